"""Pointwise expressions of compiled training stages written as loop nests
(``runtime/element_loops.py``): the text the stage writer emits for typed IR, and its values
against NumPy, run as plain Python (the stage function's and its regions' ``py_func``: no
Numba compile)."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.ir.symbols import prim
from fusejit.runtime.element_loops import SHAPES_CHANGED
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


def as_python(text: str, **replaced):
    """The stage function of module ``text`` with its regions as plain Python (a copy of the
    module's names: the cached module is left as it is)."""
    module = load_module(text)
    names = dict(vars(module), **replaced)
    for name in [n for n in names if n.startswith("_region") or n == "stage"]:
        names[name] = types.FunctionType(getattr(module, name).py_func.__code__, names)
    return names["stage"]


def source() -> str:
    text = stage_source(parse_ir(GRAPH), "stage")
    return text[text.index("def stage("):]


def test_expressions_become_loop_nests_and_division_does_not():
    text = source()
    # x * w - b in one region's loop nest: w indexed by the two trailing indices, b by the
    # last, the product a local that is not stored (only c is read after the region)
    found = re.search(r"for k2 in range.*\n +t0 = \(a(\d+)\[k0, k1, k2\] \* a(\d+)\[k1, k2\]\)"
                      r"\n +t1 = \(t0 - a(\d+)\[k2\]\)\n +o0\[k0, k1, k2\] = t1\n +return "
                      r"\(o0, \)", text)
    assert found, text
    (division,) = [line for line in text.splitlines() if " / " in line]
    assert "[k" not in division     # (Python's ZeroDivisionError in a loop; NumPy's inf)
    assert re.search(r"t0 = \(a\d+\[k0, k1, k2\] \* np.float64\(a\d+\)\)\n +t1 = \(-t0\)",
                     text)   # the scalar as it is
    # the stage checks the operands' shapes before each region and else runs node by node
    assert re.search(r"if v\d+\.shape == v\d+\.shape\[1:\] and .*:\n +\(v\d+, \) = "
                     r"_region\d+\(.*\)\n +else:", text)


@pytest.mark.parametrize("w_shape", [(3, 4), (1, 4)], ids=["loops", "size-1-dim"])
def test_values_match_numpy(w_shape):
    fn = as_python(stage_source(parse_ir(GRAPH), "stage"))
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
    fn = as_python(text)
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

JOINED = """graph(%x : Double(*, *), %w : Double(*, *)):
  %one : int = prim::Constant[value=1]()
  %a : Double(*, *) = aten::mul(%x, %w)
  %b : Double(*, *) = aten::sub(%x, %w, %one)
  %n : Double(*, *) = aten::neg(%a)
  %e : Double(*, *) = aten::mul(%x, %x)
  %l : Tensor[] = prim::ListConstruct(%b, %n, %a)
  %c : Double(*, *) = aten::cat(%l, %one)
  %chunks : Tensor[] = aten::chunk(%c, %one, %one)
  %p : Double(*, *) = prim::ListUnpack(%chunks)
  %t : Double(*, *) = aten::tanh(%p)
  %s : Double(*, *) = aten::mul(%t, %p)
  return (%s, %e)
"""


@pytest.mark.parametrize("w_shape", [(3, 4), (1, 4)], ids=["region", "size-1-dim"])
def test_a_regions_parts_are_stored_into_their_cat_and_chunks_read_in_place(w_shape):
    text = stage_source(parse_ir(JOINED), "stage")
    # the cat of the region's values is its output (np.concatenate only in the fallback), and
    # e (read after the region) is stored too
    assert re.search(r"o0\[k0, k1\] = t\d+\n +joined\[k0, s0 \+ k1\] = t\d+\n +joined\[k0, "
                     r"s1 \+ k1\] = t\d+\n +joined\[k0, s2 \+ k1\] = t\d+\n", text), text
    fn = as_python(text, vm=types.SimpleNamespace(tanh_f64=np.tanh))   # (no compile)
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal(w_shape)
    s, e = fn(x, w)
    c = np.concatenate([x - w, -(x * w), x * w], axis=1)
    np.testing.assert_allclose(s, np.tanh(c) * c, rtol=1e-15)
    np.testing.assert_array_equal(e, x * x)


def _example_shapes(graph, x_shape, w_shape, b_shape) -> dict:
    """GRAPH's array values and their shapes in an example (as ``autodiff/whole.py``
    observes them): x, w, b, then a, c, d, e and f, each of x's shape."""
    values = [*graph.inputs[:3]] + [n.output() for n in graph.nodes()
                                    if n.kind != prim.Constant]
    return dict(zip(values, [x_shape, w_shape, b_shape] + [x_shape] * 5))


@pytest.mark.parametrize("w_shape", [(3, 4), (1, 4)], ids=["example-equal", "example-size-1"])
def test_a_stage_written_for_its_examples_shapes_keeps_one_form(w_shape):
    # the shapes decide each check where the stage is written: the loop nest or the fallback,
    # not both; a check that held in the example raises SHAPES_CHANGED if a call breaks it
    graph = parse_ir(GRAPH)
    text = stage_source(graph, "stage", _example_shapes(graph, (2, 3, 4), w_shape, (4,)))
    fn = as_python(text)
    rng = np.random.default_rng(9)
    x, b = rng.standard_normal((2, 3, 4)), rng.standard_normal(4)
    for w in (rng.standard_normal((3, 4)), rng.standard_normal((1, 4))):
        if w.shape == w_shape or w_shape == (1, 4):   # (the fallback takes both)
            c, f = fn(x, w, b, 2.5)
            np.testing.assert_array_equal(c, x * w - b)
            np.testing.assert_array_equal(f, -((x * w - b) / x * 2.5))
        else:
            with pytest.raises(ValueError, match=SHAPES_CHANGED):
                fn(x, w, b, 2.5)
    assert (SHAPES_CHANGED in text) == (w_shape == (3, 4))
    assert ("np.broadcast_to(" in text) == (w_shape == (1, 4))


def test_a_whole_stage_whose_shapes_changed_runs_its_general_form(monkeypatch):
    from fusejit.autodiff.whole import WholeStages
    from fusejit.runtime import element_stage

    graph = parse_ir(GRAPH)
    written = []

    def compile_stage_graph(graph, name, shapes=None):   # (as Python: no compile)
        written.append(shapes)
        return as_python(stage_source(graph, "stage", shapes))

    monkeypatch.setattr(element_stage, "compile_stage_graph", compile_stage_graph)
    stages = WholeStages.__new__(WholeStages)
    stages.graphs, stages.general, stages.warm = (graph, graph), [None, None], [True, True]
    specialised = compile_stage_graph(graph, "forward_stage",
                                      _example_shapes(graph, (2, 3, 4), (3, 4), (4,)))
    rng = np.random.default_rng(10)
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((1, 4)), rng.standard_normal(4)
    for _ in range(2):   # (the general form is compiled once)
        c, f = stages._call(0, specialised, [x, w, b, 2.5])
        np.testing.assert_array_equal(c, x * w - b)
        np.testing.assert_array_equal(f, -((x * w - b) / x * 2.5))
    assert written[1:] == [None]
    with pytest.raises(ValueError, match="cannot be broadcast"):   # (the general form's error)
        stages._call(0, specialised, [x, rng.standard_normal((2, 4)), b, 2.5])


NUMEL = """graph(%x : Double(*, *)):
  %none : NoneType = prim::Constant()
  %m : Double() = aten::mean(%x, %none)
  %n : int = aten::numel(%m)
  %k : int = aten::numel(%x)
  return (%m, %n, %k)
"""


def test_the_numel_of_a_0_d_value_is_one():
    # a mean's backward asks for its 0-d output's numel: a Numba scalar inside the stage, with
    # no .size (the stage failed to compile and the program ran on the interpreter)
    text = stage_source(parse_ir(NUMEL), "stage")
    body = text[text.index("def stage("):]
    assert re.search(r"\n +v\d+ = 1\n", body) and body.count(".size") == 2, body   # (mean, k)
    x = np.random.default_rng(11).standard_normal((3, 4))
    m, n, k = as_python(text)(x)
    assert (n, k) == (1, 12) and m == np.mean(x)
