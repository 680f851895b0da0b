"""``native/views.py`` (select, t, view/reshape, ConstantChunk, int ListConstruct without the
register tuple) against the reference engine: every native dtype, views made again and again
in a loop (the output registers hold earlier views and lists), and the operands it leaves to
``dispatch._tensor_op`` or the host (a bad index, a non-contiguous view, rank 3)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.test_native_ops import assert_same, errors_of, run_both, tensor

pytestmark = pytest.mark.usefixtures("nrt_balanced")

LOOP = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %two : int = prim::Constant[value=2]()
  %a0 : Tensor, %b0 : Tensor, %c0 : Tensor = prim::ConstantChunk[chunks=3, dim=1](%x)
  %r : Tensor, %s : Tensor, %u : Tensor, %v : Tensor = prim::Loop(%n, %t, %x, %a0, %b0, %c0)
    block0(%i : int, %p : Tensor, %q : Tensor, %w : Tensor, %y : Tensor):
      %row : Tensor = aten::select(%x, %zero, %i)
      %shape : int[] = prim::ListConstruct(%two, %m1)
      %sq : Tensor = aten::view(%row, %shape)
      %tr : Tensor = aten::t(%sq)
      %a : Tensor, %b : Tensor, %c : Tensor = prim::ConstantChunk[chunks=3, dim=1](%x)
      -> (%t, %tr, %a, %b, %c)
  return (%r, %s, %u, %v)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_views_made_in_a_loop_match_the_reference(dtype, n):
    x = tensor((3, 14), dtype)   # chunks of 5, 5 and 4 columns
    got, want, calls = run_both(LOOP, x, n)
    assert_same(got, want)
    assert calls == 2
    for view in got:
        assert np.shares_memory(view, x)


SELECT = """graph(%x : Tensor, %d : int, %i : int):
  %y : Tensor = aten::select(%x, %d, %i)
  return (%y)
"""


@pytest.mark.parametrize("d, i", [(0, -3), (1, 3), (-1, -1)])
def test_select_with_wrapped_indices(d, i):
    got, want, calls = run_both(SELECT, tensor((3, 4), np.float32, "transposed"), d, i)
    assert_same(got, want)
    assert calls == 2


@pytest.mark.parametrize("d, i", [(0, 3), (2, 0), (0, -4)])
def test_a_bad_select_raises_the_reference_error(d, i):
    native, reference = errors_of(SELECT, np.zeros((3, 4), np.float32), d, i)
    assert native == reference


VIEW = """graph(%x : Tensor, %a : int, %b : int):
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::{op}(%x, %shape)
  return (%y)
"""


@pytest.mark.parametrize("op", ["view", "reshape"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_view_and_reshape_match_the_reference(op, layout):
    x = tensor((4, 6), np.float64, layout)
    if op == "view" and layout == "transposed":   # not viewable: the reference error
        native, reference = errors_of(VIEW.format(op=op), x, -1, 8)
        assert native == reference
        return
    got, want, calls = run_both(VIEW.format(op=op), x, -1, 8)
    assert_same(got, want)
    assert calls == (2 if layout == "contiguous" else 3)   # the host copies a strided reshape


def test_a_bad_view_and_transpose_of_rank_3_raise_the_reference_errors():
    assert len(set(errors_of(VIEW.format(op="view"), np.zeros(12), 5, -1))) == 1
    text = "graph(%x : Tensor):\n  %y : Tensor = aten::t(%x)\n  return (%y)\n"
    assert len(set(errors_of(text, np.zeros((2, 2, 2))))) == 1


MM_LOOP = """graph(%h : Tensor, %w : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %h)
    block0(%i : int, %x : Tensor):
      %wt : Tensor = aten::t(%w)
      %y : Tensor = aten::mm(%x, %wt)
      -> (%t, %y)
  return (%out)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_mm_in_a_loop_matches_the_reference(dtype, n):
    h, w = tensor((2, 5), dtype), tensor((5, 5), dtype)
    got, want, calls = run_both(MM_LOOP, h, w * (0.25 if dtype != np.int64 else 1), n)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    assert got[0].dtype == want[0].dtype
    assert calls == 2 + (n if dtype == np.int64 else 0)   # the host multiplies integers


def test_mm_of_mismatched_shapes_raises_the_reference_error():
    text = "graph(%a : Tensor, %b : Tensor):\n  %y : Tensor = aten::mm(%a, %b)\n  return (%y)\n"
    native, reference = errors_of(text, np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert native == reference


LAYOUT = """graph(%x : Tensor, %n : int):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %zero : int = prim::Constant[value=0]()
  %dims : int[] = prim::ListConstruct(%zero)
  %y : Tensor = {op}
  %shape : int[] = prim::ListConstruct(%n)
  %z : Tensor = aten::view(%y, %shape)
  return (%z)
"""


@pytest.mark.parametrize("op", ["aten::mul(%x, %x)", "aten::neg(%x)",
                                "aten::sum(%x, %dims, %false, %none)"])
def test_a_result_keeps_numpys_layout_for_a_later_view(op):
    """NumPy's result of an elementwise op (or axis sum) over a transposed operand is laid out
    like the operand, so viewing it flat fails; the native op declines such an operand and the
    host's result fails the same way (found by the adversarial fuzzer: mul, then view)."""
    x = tensor((2, 3, 4), np.float32, "transposed")
    n = 12 if "sum" in op else 24
    native, reference = errors_of(LAYOUT.format(op=op), x, n)
    assert native == reference and "view size is not compatible" in reference
    got, want, _calls = run_both(LAYOUT.format(op=op), np.ascontiguousarray(x), n)
    assert_same(got, want)
