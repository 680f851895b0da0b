"""Python ops with their own backward inside scripted functions: the gradient through them,
the saved values they hand to their backward, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.autodiff import AutodiffError
from fusejit.autodiff.staged import StagedCode

from .test_api import numeric_grad

RNG = np.random.default_rng(11)
CALLS: list[str] = []


@fusejit.python_op
def swish(x):
    CALLS.append("forward")
    s = 1.0 / (1.0 + np.exp(-x))
    return x * s, (x, s)


@swish.defbackward
def swish(saved, grad):  # noqa: F811 - the decorator returns the same op
    CALLS.append("backward")
    x, s = saved
    return (grad * (s + x * s * (1.0 - s)),)


@fusejit.python_op(num_outputs=2)
def scaled_pair(x, y):
    return (x * 3.0, x * y), (x, y)


@scaled_pair.defbackward
def scaled_pair(saved, g0, g1):  # noqa: F811
    x, y = saved
    return g0 * 3.0 + g1 * y, g1 * x


def uses_swish(x, w):
    return np.sum(swish(x * w) * w)


def uses_pair(x, y):
    a, b = scaled_pair(x, y)
    return np.sum(a * b)


@pytest.mark.parametrize("fn", [uses_swish, uses_pair])
def test_gradient_through_a_python_op(fn) -> None:
    args = [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))]
    graph = fusejit.script(fn)
    assert any(n.kind == "prim::PythonOp" for n in graph.nodes())
    grads = fusejit.grad(fn, argnums=(0, 1), fuse=False, engine="reference")(*args)
    for k, got in enumerate(grads):
        np.testing.assert_allclose(got, numeric_grad(fn, args, k), rtol=1e-6, atol=1e-8)


def test_the_handle_carries_the_python_ops_saved_values() -> None:
    x, w = RNG.standard_normal(4), RNG.standard_normal(4)
    staged = StagedCode(fusejit.script(uses_swish), [0], [x, w], fuse=False,
                        engine="reference")
    CALLS.clear()
    _, handle = staged.run_forward(x, w)
    assert CALLS == ["forward"]
    saved = [v for v in handle.saved_values() if isinstance(v, tuple)]
    assert len(saved) == 1
    np.testing.assert_allclose(saved[0][1], 1.0 / (1.0 + np.exp(-x * w)))
    staged.run_backward(handle, np.ones(()))
    assert CALLS == ["forward", "backward"]


def test_plain_python_op_is_not_differentiated() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %n)
  return (%s)""")
    from fusejit.runtime.python_op import create_python_op

    with graph.inserting_before(next(graph.nodes())):
        node = graph.insert_node(create_python_op(graph, np.exp, [graph.inputs[0]]))
    graph.inputs[0].replace_all_uses_after_node_with(node, node.output())
    with pytest.raises(AutodiffError, match="prim::PythonOp without a backward"):
        fusejit.grad(graph, fuse=False)(np.ones(3))


def test_eager_call_returns_the_outputs() -> None:
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(swish(x), x / (1.0 + np.exp(-x)))
