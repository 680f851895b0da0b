"""Ops added as one entry each (the op table's promise: a new pointwise op is one entry plus
its tests), checked against values worked out by hand. The whole-table tests
(``test_table.py``, ``tests/cuda/test_op_table.py``) also run them on every engine."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import InterpreterError, IRError
from fusejit.ir.parser import parse_ir
from fusejit.runtime.fusion import FusedKernel

NAN = float("nan")


def _one_node(call: str, dtype: str = "Float") -> str:
    return f"""graph(%x : {dtype}(*)):
  %beta : int = prim::Constant[value=2]()
  %threshold : float = prim::Constant[value=4.]()
  %r : Tensor = {call}
  return (%r)
"""


def _run_everywhere(text: str, x: np.ndarray) -> list[np.ndarray]:
    """Results of the reference and native interpreters and of a fused kernel."""
    results = [fusejit.compile(parse_ir(text), engine=engine)(x)
               for engine in ("reference", "native")]
    results.append(FusedKernel(parse_ir(text))(x)[0])
    return results


def _kinds_outside_groups(text: str) -> list[str]:
    graph = parse_ir(text)
    fusejit.fuse_graph(graph)
    return [n.kind for n in graph.nodes() if n.kind.startswith("aten::")]


# -- hardsigmoid ----------------------------------------------------------------------------------

def test_hardsigmoid_values():
    x = np.array([-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 10.0, NAN], np.float32)
    want = np.array([0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, NAN], np.float32)  # relu6(x + 3) / 6
    for got in _run_everywhere(_one_node("aten::hardsigmoid(%x)"), x):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=0)


def test_hardsigmoid_refuses_integers():
    text = _one_node("aten::hardsigmoid(%x)", "Long")
    with pytest.raises(InterpreterError, match="hardsigmoid is not implemented for Long"):
        fusejit.compile(parse_ir(text), engine="reference")(np.arange(3))
    with pytest.raises(IRError, match="only defined for floating tensors"):
        FusedKernel(parse_ir(text)).source(np.arange(3))


def test_hardsigmoid_is_not_fused_as_in_pytorch():
    # PyTorch's legacy fuser has no hardsigmoid in its simple-map list: the mul/add pair forms
    # a group, the hardsigmoid stays outside.
    assert _kinds_outside_groups("""graph(%x : Float(4), %y : Float(4)):
  %one : int = prim::Constant[value=1]()
  %m : Float(4) = aten::mul(%x, %y)
  %a : Float(4) = aten::add(%m, %y, %one)
  %h : Float(4) = aten::hardsigmoid(%a)
  return (%h)
""") == ["aten::hardsigmoid"]


# -- softplus -------------------------------------------------------------------------------------

SOFTPLUS_DEFAULTS = """graph(%x : Float(*)):
  %one : int = prim::Constant[value=1]()
  %twenty : int = prim::Constant[value=20]()
  %r : Tensor = aten::softplus(%x, %one, %twenty)
  return (%r)
"""


@pytest.mark.parametrize("text, x, want", [
    # beta 1, threshold 20: log(1 + e^x); above 20, x itself (exactly)
    (SOFTPLUS_DEFAULTS, [0.0, 1.0, -5.0, 30.0, NAN],
     [0.6931471805599453, 1.3132616875182228, 0.006715348489117967, 30.0, NAN]),
    # beta 2, threshold 4: log(1 + e^(2x)) / 2 while 2x <= 4
    (_one_node("aten::softplus(%x, %beta, %threshold)"), [1.0, 2.0, 2.5, -1.0],
     [1.0634640055214863, 2.0090749639589047, 2.5, 0.06346400552148625]),
])
def test_softplus_values(text, x, want):
    x = np.array(x, np.float32)
    for got in _run_everywhere(text, x):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.array(want, np.float32), rtol=4e-7, atol=0)


def test_softplus_refuses_integers():
    text = _one_node("aten::softplus(%x, %beta, %threshold)", "Long")
    with pytest.raises(InterpreterError, match="softplus is not implemented for Long"):
        fusejit.compile(parse_ir(text), engine="reference")(np.arange(3))
    with pytest.raises(IRError, match="only defined for floating tensors"):
        FusedKernel(parse_ir(text)).source(np.arange(3))


def test_softplus_is_not_fused_as_in_pytorch():
    assert _kinds_outside_groups("""graph(%x : Float(4), %y : Float(4)):
  %one : int = prim::Constant[value=1]()
  %twenty : int = prim::Constant[value=20]()
  %m : Float(4) = aten::mul(%x, %y)
  %a : Float(4) = aten::add(%m, %y, %one)
  %s : Float(4) = aten::softplus(%a, %one, %twenty)
  return (%s)
""") == ["aten::softplus"]
