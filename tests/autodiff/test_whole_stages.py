"""Stages compiled whole (``autodiff/whole.py``): the same gradients as the interpreter's staged
Code on the same graphs, the handle's saved values and their release, and the fallbacks."""

from __future__ import annotations

import gc
import re
import weakref

import numpy as np
import pytest

import fusejit
from fusejit import ops as F
from fusejit.autodiff.staged import StagedCode
from fusejit.examples import lstm_loop
from fusejit.runtime.blas import numpy_blas

from .test_api import numeric_grad

RNG = np.random.default_rng(19)


def lstm_loss(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
    hy, cy = lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh, steps)
    return np.sum(hy * cy)


def mlp_loss(x, y, w1, b1, w2, b2):
    h = F.relu(x @ w1 + b1)
    d = F.sigmoid(h @ w2 + b2) - y
    return np.sum(d * d) * 0.5


def broadcasting(x, w, b):
    # b (3,) and w (1, 3) broadcast against x (4, 3): their gradients are summed to size
    return np.sum(np.tanh(x * w + b) * np.exp(x))


def _lstm_args(steps: int = 5) -> list:
    hidden = 4
    return [RNG.standard_normal((3, 5)), RNG.standard_normal((3, hidden)),
            RNG.standard_normal((3, hidden)), RNG.standard_normal((4 * hidden, 5)) * 0.5,
            RNG.standard_normal((4 * hidden, hidden)) * 0.5,
            RNG.standard_normal(4 * hidden) * 0.5, RNG.standard_normal(4 * hidden) * 0.5, steps]


CASES = [
    ("lstm", lstm_loss, _lstm_args, (0, 1, 2, 3, 4, 5, 6)),
    ("mlp", mlp_loss, lambda: [RNG.standard_normal((6, 5)), RNG.standard_normal((6, 2)),
                               RNG.standard_normal((5, 7)), RNG.standard_normal(7),
                               RNG.standard_normal((7, 2)), RNG.standard_normal(2)],
     (2, 3, 4, 5)),
    ("broadcasting", broadcasting, lambda: [RNG.standard_normal((4, 3)),
                                            RNG.standard_normal((1, 3)),
                                            RNG.standard_normal(3)], (0, 1, 2)),
]


def _both(fn, args, wrt):
    graph = fusejit.jit(fn).graph
    # (the fallback Code unfused: no kernel compiles in the suite)
    whole = StagedCode(graph, wrt, args, fuse=False, engine="reference", whole=True)
    interpreted = StagedCode(graph, wrt, args, fuse=False, engine="reference", whole=False)
    return whole, interpreted


@pytest.mark.parametrize("name, fn, make_args, wrt", CASES, ids=[c[0] for c in CASES])
def test_whole_stages_give_the_interpreters_gradients(name, fn, make_args, wrt) -> None:
    args = make_args()
    whole, interpreted = _both(fn, args, wrt)
    assert whole.whole is not None and interpreted.whole is None
    results = []
    for staged in (whole, interpreted):
        outputs, handle = staged.run_forward(*args)
        grads = staged.run_backward(handle, np.ones_like(outputs[0]))
        results.append((outputs, grads))
    (out_w, grads_w), (out_i, grads_i) = results
    np.testing.assert_allclose(out_w[0], out_i[0], rtol=1e-12)
    assert isinstance(out_w[0], np.ndarray) and out_w[0].shape == ()
    for got, want in zip(grads_w, grads_i):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    extra = args[len(arrays):]
    for k, i in enumerate(wrt):   # and both against float64 finite differences
        np.testing.assert_allclose(grads_w[k], numeric_grad(lambda *a: fn(*a, *extra),
                                                            arrays, i), rtol=1e-6, atol=1e-7)


def test_pointwise_expressions_of_the_stages_are_loops(monkeypatch) -> None:
    from fusejit.runtime import element_stage

    sources: list[str] = []
    compile_stage = element_stage.compile_stage_graph

    def spy(graph, name, shapes=None):
        sources.append(element_stage.stage_source(graph, name, shapes))
        return compile_stage(graph, name, shapes)

    monkeypatch.setattr(element_stage, "compile_stage_graph", spy)
    _both(lstm_loss, _lstm_args(), tuple(range(7)))
    # the forward's gate sum, in its Region's loop nest: the bias rows indexed by the trailing
    # index (this matched the node-by-node fallback's loops, which are NumPy expressions now)
    assert re.search(r"for k1 in range\(a\d+\[1\]\):\n(?:.*\n)*?\s+t\d+ = \(t\d+ \+ a\d+\[k1\]\)",
                     sources[0]), sources[0]
    # b_ih and b_hh (same size) take one row sum of the gates' gradient per step, not two
    assert sources[1].count("= _sum_to_size_2_1(") == 1
    if numpy_blas() is not None:
        # w_hh.T, read by the loop's product, is made contiguous once before the loop
        assert re.search(r"= np\.ascontiguousarray\(v\d+\.T\)\n(.*\n)*\s+while ",
                         sources[0])
        # the weight gradient is summed by gemm (beta = 1), not a product array per step
        assert sources[1].count("_blas.mm_add(") == 1


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_mm_add_adds_the_product_in_place(layout) -> None:
    from fusejit.runtime import blas

    if numpy_blas() is None:
        pytest.skip("compiled products use np.dot here")
    a = RNG.standard_normal((6, 4))
    b = RNG.standard_normal((3, 4)).T if layout == "F" else RNG.standard_normal((4, 3))
    if layout == "strided":
        a = RNG.standard_normal((6, 8))[:, ::2]   # (copied: BLAS cannot read it)
    c = RNG.standard_normal((6, 3))
    want = c + a @ b
    blas.mm_add(c, a, b)
    np.testing.assert_allclose(c, want, rtol=1e-13)
    with pytest.raises(ValueError):
        blas.mm_add(np.zeros((3, 6)).T, a, b)   # (the sum must be C-contiguous)


def test_value_and_grad_runs_small_steps_whole() -> None:
    args = CASES[2][2]()
    step = fusejit.value_and_grad(broadcasting, argnums=(0, 1, 2))
    value, grads = step(*args)
    from fusejit.autodiff.api import differentiable

    (staged,) = differentiable(broadcasting)._staged.values()
    assert staged.whole is not None and staged._code is None   # no interpreter Code built
    np.testing.assert_allclose(value, broadcasting(*args))
    for k in range(3):
        np.testing.assert_allclose(grads[k], numeric_grad(broadcasting, args, k), rtol=1e-6,
                                   atol=1e-7)


def test_tiered_stages_compile_whole_once_warm(monkeypatch) -> None:
    """With tiering on (the default outside the suite), a size's first calls run on the
    interpreter and cost no compile; once they have spent ``WHOLE_AFTER_SECONDS`` there,
    the next call compiles the stages whole and gives the interpreter's results. Sizes warm
    up separately; ``whole=True`` compiles at once."""
    from fusejit.autodiff.whole import input_sizes
    from fusejit.runtime import tiering

    monkeypatch.setenv("FUSEJIT_TIERING", "1")
    monkeypatch.setattr(tiering, "WHOLE_AFTER_SECONDS", 3600.0)
    args = CASES[1][2]()
    graph = fusejit.jit(mlp_loss).graph
    wrt = (2, 3, 4, 5)
    staged = StagedCode(graph, wrt, args)   # (fused: kernels too run interpreted while tiered)
    assert staged.whole is None   # nothing compiled yet
    seed = np.ones(())
    results = []
    for _ in range(3):
        outputs, handle = staged.run_forward(*args)
        assert handle.sizes is not None   # (ran on the interpreter, timed)
        results.append((outputs, staged.run_backward(handle, seed)))
    assert staged.whole is None and staged._code is not None
    assert staged._warming[input_sizes(list(args))] > 0   # forward and backward times counted

    monkeypatch.setattr(tiering, "WHOLE_AFTER_SECONDS", 0.0)
    other = [a[:3] if i < 2 else a for i, a in enumerate(args)]   # a batch of 3: not warm
    outputs, handle = staged.run_forward(*args)
    assert staged.whole is not None and staged._wholes[input_sizes(list(args))] is staged.whole
    whole_results = (outputs, staged.run_backward(handle, seed))
    for got, want in zip([*whole_results[0], *whole_results[1]],
                         [*results[0][0], *results[0][1]]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # another batch size warms up on its own
    monkeypatch.setattr(tiering, "WHOLE_AFTER_SECONDS", 3600.0)
    _, handle = staged.run_forward(*other)
    staged.run_backward(handle, seed)
    assert input_sizes(list(other)) not in staged._wholes
    monkeypatch.setattr(tiering, "WHOLE_AFTER_SECONDS", 0.0)
    _, handle = staged.run_forward(*other)
    assert isinstance(handle.saved_values(), list) and handle.sizes is None   # ran whole
    staged.run_backward(handle, seed)
    assert staged._wholes[input_sizes(list(other))] is not None

    monkeypatch.setattr(tiering, "WHOLE_AFTER_SECONDS", 3600.0)
    assert StagedCode(graph, wrt, args, fuse=False, whole=True).whole is not None


def test_warm_calls_run_the_compiled_stages_directly(monkeypatch) -> None:
    """A second call of one exact signature skips binding, lookup and handles (api._Warm) and
    gives the first call's results; other signatures, and grad() made anew, still agree."""
    from fusejit.autodiff.api import differentiable

    args = CASES[2][2]()
    step = fusejit.value_and_grad(broadcasting, argnums=(0, 1, 2))
    value, grads = step(*args)
    target = differentiable(broadcasting)
    assert any(key[0] == (0, 1, 2) for key in target.warm)

    def general_path(*_):
        raise AssertionError("a warm call took the general path")

    with monkeypatch.context() as patched:
        patched.setattr(target, "staged", general_path)
        again, grads_again = step(*args)
        from_grad = fusejit.grad(broadcasting, argnums=(0, 1, 2))(*args)   # made anew
    assert again == value and isinstance(again, np.ndarray) and again.shape == ()
    for got, want in zip(grads_again, grads):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(from_grad, grads):
        np.testing.assert_array_equal(got, want)
    # a new size, keywords, an int argnums: their own way, the same gradients
    bigger = [RNG.standard_normal((6, 3)), args[1], args[2]]
    for call in (lambda: step(*bigger), lambda: step(*bigger)):
        _, grads_big = call()
        np.testing.assert_allclose(grads_big[0], numeric_grad(broadcasting, bigger, 0),
                                   rtol=1e-6, atol=1e-7)
    _, gb = fusejit.value_and_grad(broadcasting, argnums=2)(x=args[0], w=args[1], b=args[2])
    np.testing.assert_array_equal(gb, grads[2])
    assert fusejit.value_and_grad(broadcasting, argnums=-1)(*args)[1].shape == (3,)


def test_an_int_for_a_float_parameter_is_not_a_warm_signature() -> None:
    """The general path converts it (to 2.0): a warm call would pass the int itself."""
    from fusejit.autodiff.api import differentiable

    graph = fusejit.parse_ir("graph(%x : Tensor, %s : float):\n"
                             "  %y : Tensor = aten::mul(%x, %s)\n"
                             "  %n : NoneType = prim::Constant()\n"
                             "  %z : Tensor = aten::sum(%y, %n)\n  return (%z)\n")
    step, x = fusejit.value_and_grad(graph), RNG.standard_normal(3)
    for scale in (3, 3, 3.0, 3.0):
        value, gx = step(x, scale)
        np.testing.assert_allclose(value, 3.0 * x.sum(), rtol=1e-12)
        np.testing.assert_array_equal(gx, np.full(3, 3.0))
    assert [key[2] for key in differentiable(graph).warm] == [float]


def test_the_handle_holds_the_saved_values_once_and_lets_go() -> None:
    args = CASES[2][2]()
    whole, _ = _both(broadcasting, args, (0, 1, 2))
    outputs, handle = whole.run_forward(*args)
    arrays = [v for v in handle.saved_values() if isinstance(v, np.ndarray)]
    # the arguments the backward reads are saved as they are; what the forward computed dies
    refs = [weakref.ref(a) for a in arrays if not any(a is x for x in args)]
    assert len(refs) >= 2
    del arrays
    whole.run_backward(handle, np.ones(()))
    gc.collect()
    assert all(r() is None for r in refs)
    with pytest.raises(fusejit.FusejitError, match="already used"):
        whole.run_backward(handle, np.ones(()))


def test_a_loops_saved_iterations_are_one_list_freed_after_backward() -> None:
    args = _lstm_args(steps=5)   # (the graph of CASES: its compiled stages are reused)
    whole, _ = _both(lstm_loss, args, tuple(range(7)))
    _, handle = whole.run_forward(*args)
    lists = [v for v in handle.saved_values() if type(v).__name__ == "List"]
    assert len(lists) == 1 and len(lists[0]) == 5
    assert all(isinstance(t, tuple) for t in lists[0])
    ref = weakref.ref(lists[0])
    del lists
    whole.run_backward(handle, np.ones(()))
    gc.collect()
    assert ref() is None and handle.saved_values() == []


def test_unsupported_graphs_fall_back_to_the_interpreter() -> None:
    def uses_cbrt(x):
        return np.sum(np.cbrt(x) * x)

    x = RNG.standard_normal((3, 2))
    staged = StagedCode(fusejit.jit(uses_cbrt).graph, [0], [x], fuse=False, whole=True)
    assert staged.whole is None   # (fusejit::cbrt: no whole-stage form)
    outputs, handle = staged.run_forward(x)
    (gx,) = staged.run_backward(handle, np.ones(()))
    np.testing.assert_allclose(gx, 4 / 3 * np.cbrt(x), rtol=1e-12)


def test_each_input_size_gets_its_stages_then_the_interpreter_runs(monkeypatch) -> None:
    import fusejit.autodiff.staged as staged_module
    from fusejit.autodiff.whole import SavedValues

    args = CASES[2][2]()
    whole, _ = _both(broadcasting, args, (0, 1, 2))
    monkeypatch.setattr(staged_module, "MAX_WHOLE_SIZES", 2)
    for rows, compiled in ((6, True), (5, False)):   # a second size; a third: interpreter
        bigger = [RNG.standard_normal((rows, 3)), args[1], args[2]]
        outputs, handle = whole.run_forward(*bigger)
        assert isinstance(handle.state, SavedValues) == compiled
        grads = whole.run_backward(handle, np.ones(()))
        for k in range(3):
            np.testing.assert_allclose(grads[k], numeric_grad(broadcasting, bigger, k),
                                       rtol=1e-6, atol=1e-7)
