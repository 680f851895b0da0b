"""``fusejit.grad``, ``value_and_grad`` and ``vjp`` on scripted functions, graphs and compiled
functions, with control flow, against float64 finite differences of the plain NumPy function;
plus the errors, the staged code and the memory the handle holds."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import fusejit
from fusejit import ops as F
from fusejit.autodiff import AutodiffError, differentiate
from fusejit.autodiff.staged import StagedCode

RNG = np.random.default_rng(7)


def numeric_grad(fn, args: list, k: int, eps: float = 1e-6) -> np.ndarray:
    """Central differences of scalar ``fn`` (plain NumPy) in argument ``k``."""
    g = np.zeros_like(args[k])
    for idx in np.ndindex(args[k].shape):
        plus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        minus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        plus[k][idx] += eps
        minus[k][idx] -= eps
        g[idx] = (float(fn(*plus)) - float(fn(*minus))) / (2 * eps)
    return g


def assert_grads(fn, args: list, grads) -> None:
    for k, got in enumerate(grads):
        np.testing.assert_allclose(got, numeric_grad(fn, args, k), rtol=1e-6, atol=1e-7)


def mlp_loss(x, w1, b1, w2):
    h = np.tanh(x @ w1 + b1)
    return np.sum((h @ w2) ** 2)


def branchy(x, w):
    y = x * w
    if np.sum(y) > 0:
        y = np.exp(y) * w
    else:
        z = F.sigmoid(y)
        y = z * z
    return np.sum(y)


def looped(x, w):
    h = x
    for _ in range(4):
        h = np.tanh(h * w + 0.5)
    return np.sum(h * h)


def gates(x, h):
    a, b, c, d = np.split(x + h, 4, axis=1)
    return np.sum(F.sigmoid(a) * np.tanh(b) + F.relu(c) / (1.0 + d * d))


@pytest.mark.parametrize("fn, shapes", [
    (mlp_loss, [(4, 3), (3, 5), (5,), (5, 2)]),
    (looped, [(2, 3), (3,)]),
    (gates, [(2, 8), (1, 8)]),
], ids=["mlp", "loop", "chunk"])
def test_grad_matches_finite_differences(fn, shapes) -> None:
    args = [RNG.standard_normal(s) for s in shapes]
    grads = fusejit.grad(fn, argnums=tuple(range(len(args))), fuse=False,
                         engine="reference")(*args)
    assert_grads(fn, args, grads)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_both_branches_of_an_if(sign: float) -> None:
    x = np.abs(RNG.standard_normal((2, 3))) * sign
    w = np.abs(RNG.standard_normal((2, 3))) + 0.1
    grads = fusejit.grad(branchy, argnums=(0, 1), fuse=False, engine="reference")(x, w)
    assert_grads(branchy, [x, w], grads)


def test_jit_function_value_and_grad_with_fusion() -> None:
    jitted = fusejit.jit(mlp_loss)
    args = [RNG.standard_normal(s) for s in [(4, 3), (3, 5), (5,), (5, 2)]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # every fusion group compiles to a kernel
        value, (dw1, db1) = fusejit.value_and_grad(jitted, argnums=(1, 2),
                                                   engine="reference")(*args)
    np.testing.assert_allclose(value, mlp_loss(*args), rtol=1e-12)
    assert_grads(lambda w1, b1: mlp_loss(args[0], w1, b1, args[3]), [args[1], args[2]],
                 [dw1, db1])


def test_graph_and_compiled_function() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor, %y : Tensor):
  %p : Tensor = aten::mul(%x, %y)
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%p, %n)
  return (%s)""")
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    for target in (graph, fusejit.compile(graph, engine="reference")):
        gx, gy = fusejit.grad(target, argnums=(0, 1), fuse=False)(x, y)
        np.testing.assert_allclose(gx, np.broadcast_to(y, (3, 4)))
        np.testing.assert_allclose(gy, x.sum(axis=0))


def test_vjp_of_several_outputs_and_unreached_inputs() -> None:
    def f(x, y, unused):
        return np.exp(x) * y, np.sum(x)

    x, y, u = (RNG.standard_normal((2, 3)) for _ in range(3))
    (out0, out1), vjp_fn = fusejit.vjp(f, x, y, u, fuse=False, engine="reference")
    np.testing.assert_allclose(out0, np.exp(x) * y)
    c0, c1 = RNG.standard_normal((2, 3)), np.asarray(2.0)
    gx, gy, gu = vjp_fn(c0, c1)
    np.testing.assert_allclose(gx, c0 * np.exp(x) * y + 2.0)
    np.testing.assert_allclose(gy, c0 * np.exp(x))
    np.testing.assert_array_equal(gu, np.zeros_like(u))


def elementwise(x):
    return np.exp(x)


def total(x):
    return np.sum(x)


def test_grad_needs_a_scalar_output() -> None:
    with pytest.raises(fusejit.FusejitError, match=r"one scalar output.*\(2, 2\)"):
        fusejit.grad(elementwise, fuse=False)(np.ones((2, 2)))
    # one element is a scalar, as in jax
    np.testing.assert_allclose(fusejit.grad(elementwise, fuse=False)(np.ones(1)), np.e)


def test_grad_needs_float_array_arguments() -> None:
    with pytest.raises(fusejit.FusejitError, match="argument 0 is a int64 array"):
        fusejit.grad(total, fuse=False)(np.ones(3, dtype=np.int64))
    with pytest.raises(fusejit.FusejitError, match="argnums 3"):
        fusejit.grad(total, argnums=3, fuse=False)(np.ones(3))


def test_while_loop_is_an_error_naming_the_node() -> None:
    def f(x):
        while np.sum(x) < 10.0:
            x = x * 2.0
        return np.sum(x)

    with pytest.raises(AutodiffError, match=r"prim::Loop.*test_api.py:\d+"):
        fusejit.grad(f, fuse=False)(np.ones(3))


def test_op_without_derivative_is_an_error_naming_the_node() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %y : Tensor = aten::digamma(%x) # model.py:3:4
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%y, %n)
  return (%s)""")
    with pytest.raises(AutodiffError, match=r"aten::digamma.*model.py:3:4"):
        differentiate(graph, [0])


def test_saved_values_are_only_what_backward_reads() -> None:
    # d/dx sum(exp(x) * 3) needs exp(x) only: neither x nor the product is saved.
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %e : Tensor = aten::exp(%x)
  %c : float = prim::Constant[value=3.]()
  %p : Tensor = aten::mul(%e, %c)
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%p, %n)
  return (%s)""")
    gradient = differentiate(graph, [0])
    saved = gradient.forward.outputs[gradient.num_outputs:]
    kinds = sorted(str(v.node.kind) for v in saved)
    assert kinds == ["aten::exp", "aten::size"]


def test_handle_frees_saved_values_after_backward() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %e : Tensor = aten::exp(%x)
  %t : Tensor = aten::tanh(%e)
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%t, %n)
  return (%s)""")
    x = RNG.standard_normal((3, 3))
    staged = StagedCode(graph, [0], [x], fuse=False, engine="reference")
    outputs, handle = staged.run_forward(x)
    arrays = [v for v in handle.saved_values() if isinstance(v, np.ndarray)]
    # exp(x) and tanh(exp(x)); neither x nor the sum is held for the backward stage
    assert len(arrays) == 2 and not any(a is x for a in arrays)
    np.testing.assert_allclose(sorted(a.sum() for a in arrays),
                               sorted([np.exp(x).sum(), np.tanh(np.exp(x)).sum()]))
    refs = [weakref.ref(a) for a in arrays]
    del arrays
    (gx,) = staged.run_backward(handle, np.ones(()))
    gc.collect()
    assert [r() for r in refs] == [None, None]
    np.testing.assert_allclose(gx, (1 - np.tanh(np.exp(x)) ** 2) * np.exp(x))
    with pytest.raises(fusejit.FusejitError, match="already used"):
        staged.run_backward(handle, np.ones(()))


def test_dump_shows_both_stages_each_starting_with_a_load() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %e : Tensor = aten::sin(%x)
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%e, %n)
  return (%s)""")
    x = RNG.standard_normal(3)
    text = StagedCode(graph, [0], [x], fuse=False, engine="reference").dump()
    assert text.startswith("stage 0:\n")
    stage0, stage1 = text.split("stage 1:\n")
    assert stage0.splitlines()[1].strip().endswith("= prim::Load")
    assert stage1.splitlines()[0].strip().endswith("= prim::Load")
    assert "aten::sin" in stage0 and "prim::Store" in stage0.splitlines()[-1]
    assert "aten::cos" in stage1 and "prim::Store" in stage1


def test_native_engine_runs_the_stages_like_the_reference() -> None:
    args = [RNG.standard_normal((2, 3)), np.abs(RNG.standard_normal((2, 3))) + 0.1]
    for fn in (branchy, looped):
        argnums = (0, 1)
        native = fusejit.grad(fn, argnums=argnums, fuse=False, engine="native")(*args[:2])
        reference = fusejit.grad(fn, argnums=argnums, fuse=False, engine="reference")(*args)
        for a, b in zip(native, reference):
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def steps_loop(x, w, steps: int):
    h = x
    for _ in range(steps):
        h = np.tanh(h * w)
    return np.sum(h)


def test_trip_count_argument_is_known_when_specialising() -> None:
    x, w = RNG.standard_normal(3), RNG.standard_normal(3)
    grad = fusejit.grad(steps_loop, argnums=(0, 1), fuse=False, engine="reference")
    for steps in (1, 3):
        got = grad(x, w, steps)
        assert_grads(lambda a, b, n=steps: steps_loop(a, b, n), [x, w], got)


def test_grad_sum_to_size_runs_on_both_engines() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor, %s : int[]):
  %y : Tensor = aten::_grad_sum_to_size(%x, %s)
  return (%y)""")
    x = RNG.standard_normal((3, 4, 5))
    for size in ([4, 1], [1, 4, 5], [3, 1, 1]):
        results = [fusejit.compile(graph, engine=engine)(x, size)
                   for engine in ("native", "reference")]
        want = x.sum(axis=tuple(i for i in range(3) if i < 3 - len(size) or
                                size[i - 3 + len(size)] == 1), keepdims=True)
        for got in results:
            np.testing.assert_allclose(got, want.reshape(size))


def nested(x, w):
    y = x * w
    for _ in range(3):
        if np.sum(y) > 0:
            if np.sum(w) > 0:
                y = np.sin(y) * w
            else:
                y = np.exp(y) * 0.5
        else:
            y = y * y - w
    return np.sum(y)


@pytest.mark.parametrize("fuse", [False, True])
def test_nested_ifs_inside_a_loop(fuse: bool) -> None:
    rng = np.random.default_rng(5)   # away from the branches' boundaries
    args = [rng.standard_normal((2, 3)), rng.standard_normal((2, 3))]
    grads = fusejit.grad(nested, argnums=(0, 1), fuse=fuse, engine="reference")(*args)
    assert_grads(nested, args, grads)


def test_grad_in_a_loop_differentiates_once() -> None:
    from fusejit.autodiff.api import differentiable

    def cubes(x):
        return np.sum(x * x * x)

    x = RNG.standard_normal(3)
    for _ in range(3):
        np.testing.assert_allclose(fusejit.grad(cubes, fuse=False)(x), 3 * x * x)
    assert len(differentiable(cubes, fuse=False)._staged) == 1
