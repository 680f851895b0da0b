"""Printer and parser: byte-identical round trips on PyTorch's own output, and the forms in
GRAMMAR.md built through the API."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.ir import Graph, TensorType, lint
from fusejit.ir.printer import format_float, format_tensor, quote_string
from fusejit.ir.types import FLOAT, INT, FutureType, ListType, OptionalType, ScalarType, TupleType
from tests.conftest import CORPUS, IR_FILES, read_corpus


def test_corpus_is_present():
    assert CORPUS is not None, "conformance corpus missing: tests would silently skip"
    assert len(IR_FILES) == 64


@pytest.mark.parametrize("rel", IR_FILES)
def test_round_trip_is_byte_identical(rel):
    text = read_corpus(rel)
    graph = parse_ir(text)
    lint(graph)
    assert str(graph) == text


@pytest.mark.parametrize("rel", IR_FILES)
def test_copy_prints_the_same(rel):
    graph = parse_ir(read_corpus(rel))
    copy = graph.copy()
    lint(copy)
    assert str(copy) == str(graph)


@pytest.mark.parametrize("value, text", [
    (2.0, "2."), (100000000.0, "100000000."), (0.5, "0.5"), (0.1, "0.10000000000000001"),
    (1e-08, "1e-08"), (5e-09, "5.0000000000000001e-09"), (-1e30, "-1e+30"),
    (float("inf"), "inf"), (float("-inf"), "-inf"), (-0.0, "-0."), (1e10, "10000000000"),
    (-0.5, "-0.5"),
])
def test_float_format(value, text):
    assert format_float(value) == text
    # and the parser reads it back to the same double
    g = parse_ir(f"graph():\n  %a : float = prim::Constant[value={text}]()\n  return (%a)\n")
    assert g.outputs[0].node.f("value") == value


def test_tensor_type_forms():
    f = ScalarType.Float
    assert str(TensorType(f, (3, 20), (20, 1), False, "cpu")) == \
        "Float(3, 20, strides=[20, 1], requires_grad=0, device=cpu)"
    assert str(TensorType(f, (None, None), None, None, "cpu")) == "Float(*, *, device=cpu)"
    assert str(TensorType(f, (), None, False, "cpu")) == "Float(requires_grad=0, device=cpu)"
    assert str(TensorType(None, None, None, None, "cpu")) == "Tensor(device=cpu)"
    assert str(TensorType()) == "Tensor"
    assert str(ListType(INT)) == "int[]"
    assert str(TupleType((TensorType(), FLOAT))) == "(Tensor, float)"
    assert str(OptionalType(TensorType())) == "Tensor?"
    assert str(FutureType(INT)) == "Future[int]"


@pytest.mark.parametrize("type_text", [
    "Float(3, 4, strides=[1, 3], requires_grad=0, device=cpu)", "Tensor(*, *)",
    "Tensor(device=cpu)", "Long(*, *, device=cpu)", "Float(requires_grad=0, device=cpu)",
    "int[]", "Tensor[]", "(Tensor, int)", "Tensor?", "Future[Tensor]", "float[]?",
    "Double(2, 2, strides=[2, 0], device=cuda:0)", "NoneType", "str", "bool",
])
def test_types_round_trip(type_text):
    text = f"graph(%x : {type_text}):\n  return (%x)\n"
    graph = parse_ir(text)
    assert str(graph) == text
    assert str(graph.inputs[0].type) == type_text


def test_strings_escape_and_round_trip():
    s = 'a"b\\c\n\t\u00e9\x01'
    quoted = quote_string(s)
    assert quoted == '"a\\"b\\\\c\\n\\t\\303\\251\\001"'
    text = f"graph():\n  %s : str = prim::Constant[value={quoted}]()\n  return (%s)\n"
    graph = parse_ir(text)
    assert graph.outputs[0].node.s("value") == s
    assert str(graph) == text


def test_constants_built_through_the_api_print_like_pytorch():
    g = Graph()
    values = [g.insert_constant(v) for v in (1, True, 0.5, "trunc", None, [2, 12])]
    values.append(g.insert_constant(np.arange(1, 6, dtype=np.float32)))
    for v in values:
        g.register_output(v)
    text = str(g)
    assert "%0 : int = prim::Constant[value=1]()" in text
    assert "%1 : bool = prim::Constant[value=1]()" in text
    assert "%2 : float = prim::Constant[value=0.5]()" in text
    assert '%3 : str = prim::Constant[value="trunc"]()' in text
    assert "%4 : NoneType = prim::Constant()" in text
    assert "%5 : int[] = prim::Constant[value=[2, 12]]()" in text
    assert ("%6 : Float(5, strides=[1], requires_grad=0, device=cpu) = "
            "prim::Constant[value= 1  2  3  4  5 [ CPUFloatType{5} ]]()") in text
    again = parse_ir(text)
    assert str(again) == text
    np.testing.assert_array_equal(again.outputs[6].node.t("value"), np.arange(1, 6))


@pytest.mark.parametrize("array", [
    np.array([0.5, -1.25, 3.0], dtype=np.float32), np.array([[1, 2], [3, 4]], dtype=np.int64),
    np.array([1e-5, 2e3], dtype=np.float64), np.array([True, False]),
    np.array([123456.5, 1.5], dtype=np.float64),
])
def test_small_tensor_constants_round_trip_values(array):
    g = Graph()
    g.register_output(g.insert_constant(array))
    again = parse_ir(str(g))
    got = again.outputs[0].node.t("value")
    assert got.dtype == array.dtype and got.shape == array.shape
    np.testing.assert_allclose(got.astype(np.float64), array.astype(np.float64), rtol=1e-4)


def test_large_tensor_constant_prints_elided():
    assert format_tensor(np.zeros((4, 5), np.float32)) == "<Tensor>"
    assert format_tensor(np.array(0.5, np.float32)) == "{0.5}"


def test_subgraph_sections_nest_and_number_depth_first():
    text = read_corpus("if_branches_not_across/expected_fused.ir")
    graph = parse_ir(text)
    groups = [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]
    assert len(groups) >= 2
    for node in groups:
        assert len(node.g("Subgraph").inputs) == len(node.inputs)


def test_tuple_constants_round_trip():
    from fusejit.ir import constant_value

    g = Graph()
    g.register_output(g.insert_constant((1, 2.5, "a", True)))
    g.register_output(g.insert_constant((3,)))
    text = str(g)
    assert '%0 : (int, float, str, bool) = prim::Constant[value=(1, 2.5, "a", True)]()' in text
    assert "%1 : (int) = prim::Constant[value=(3,)]()" in text
    again = parse_ir(text)
    assert str(again) == text
    assert [constant_value(v.node) for v in again.outputs] == [(1, 2.5, "a", True), (3,)]


@pytest.mark.parametrize("text, rank", [
    ("Float(requires_grad=0, device=cpu)", 0), ("Float()", 0), ("Float(device=cpu)", None),
    ("Tensor(device=cpu)", None), ("Tensor(requires_grad=0)", None), ("Float", None),
    ("Float(*, device=cpu)", 1),
])
def test_ambiguous_sizeless_tensor_types(text, rank):
    graph = parse_ir(f"graph(%x : {text}):\n  return (%x)\n")
    assert graph.inputs[0].type.rank == rank
    assert str(graph.inputs[0].type) == text
