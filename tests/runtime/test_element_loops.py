"""Pointwise expressions of compiled training stages written as loop nests
(``runtime/element_loops.py``): the text the stage writer emits for typed IR, and its values
against NumPy, run as plain Python (the stage function's ``py_func``: no Numba compile)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.runtime.element_stage import stage_source
from fusejit.runtime.fusion.cache import load_module

GRAPH = """graph(%x : Double(*, *, *), %w : Double(*, *), %b : Double(*), %s : float):
  %one : int = prim::Constant[value=1]()
  %a : Double(*, *, *) = aten::mul(%x, %w)
  %c : Double(*, *, *) = aten::sub(%a, %b, %one)
  %d : Double(*, *, *) = aten::div(%c, %x)
  %e : Double(*, *, *) = aten::mul(%d, %s)
  %f : Double(*, *, *) = aten::neg(%e)
  return (%c, %f)
"""


def source() -> str:
    text = stage_source(parse_ir(GRAPH), "stage")
    return text[text.index("def stage("):]


def test_expressions_become_loop_nests_and_division_does_not():
    text = source()
    nest = r"for (k\d+) in range.*\n +for (k\d+) in range.*\n +for (k\d+) in range.*\n"
    found = re.search(nest + r" +(v\d+)\[\1, \2, \3\] = \(\((v\d+)\[\1, \2, \3\] \* "
                      r"(v\d+)\[\2, \3\]\) - (v\d+)\[\3\]\)", text)
    # x * w - b in one loop: w indexed by the two trailing indices, b by the last
    assert found, text
    (division,) = [line for line in text.splitlines() if " / " in line]
    assert "[k" not in division     # (Python's ZeroDivisionError in a loop; NumPy's inf)
    assert re.search(r"\[k\d+, k\d+, k\d+\] = \(-\([ev]\d+\[k\d+, k\d+, k\d+\] \* "
                     r"np.float64\(v\d+\)\)\)", text)   # the scalar as it is


@pytest.mark.parametrize("w_shape", [(3, 4), (1, 4)], ids=["loops", "size-1-dim"])
def test_values_match_numpy(w_shape):
    fn = load_module(stage_source(parse_ir(GRAPH), "stage")).stage.py_func
    rng = np.random.default_rng(7)
    x, w, b = (rng.standard_normal(s) for s in [(2, 3, 4), w_shape, (4,)])
    x[0, 0, 0] = 0.0   # x / 0: inf, as NumPy gives
    with np.errstate(divide="ignore", invalid="ignore"):
        c, f = fn(x, w, b, 2.5)
        want_c = x * w - b
        want_f = -(want_c / x * 2.5)
    np.testing.assert_array_equal(c, want_c)
    np.testing.assert_array_equal(f, want_f)


RELU = """graph(%x : Double(*, *), %b : Double(*), %g : Double(*, *)):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %z : Double(*, *) = aten::add(%x, %b, %one)
  %h : Double(*, *) = aten::relu(%z)
  %m : Bool(*, *) = aten::gt(%h, %zero)
  %t : Double(*, *) = aten::type_as(%m, %g)
  %d : Double(*, *) = aten::mul(%g, %t)
  return (%h, %d)
"""


@pytest.mark.parametrize("b_shape", [(4,), (1,)], ids=["loops", "size-1-dim"])
def test_bias_relu_and_its_mask_are_one_loop_each(b_shape):
    """An MLP layer's bias add + relu, and relu's backward mask g * (h > 0).type_as(g): one
    pass each (no bool array, no astype), NaN and ties as NumPy gives them."""
    text = stage_source(parse_ir(RELU), "stage")
    body = text[text.index("def stage("):]
    assert re.search(r"\] = np\.maximum\(\(v\d+\[k\d+, k\d+\] \+ v\d+\[k\d+\]\), "
                     r"np\.float64\(0\)\)", body), body
    assert re.search(r"\] = \(v\d+\[k\d+, k\d+\] \* \(v\d+\[k\d+, k\d+\] > "
                     r"np\.float64\(v\d+\)\)\)", body), body
    assert ".astype(" not in body
    fn = load_module(text).stage.py_func
    rng = np.random.default_rng(8)
    x, b, g = rng.standard_normal((3, 4)), rng.standard_normal(b_shape), rng.standard_normal(
        (3, 4))
    x[0, 0], x[1, 1], g[2, 2] = np.nan, -b[1 % b.size], np.inf   # NaN, relu(0), inf * 0
    with np.errstate(invalid="ignore"):
        h, d = fn(x, b, g)
        want_h = np.maximum(x + b, 0.0)
        want_d = g * (want_h > 0).astype(np.float64)
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(d, want_d)
