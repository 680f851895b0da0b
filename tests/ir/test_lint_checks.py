"""What ``lint`` rejects beyond structure (graphs built through the API, where the parser's own
checks do not apply), debug names that printed IR must carry, and API misuse that must raise
``IRError`` rather than a bare Python exception."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import IRError, parse_ir
from fusejit.ir import Graph, lint
from fusejit.ir.types import FLOAT, INT, TensorType


def _graph_with(kind: str, n_inputs: int, out_type=None) -> Graph:
    g = Graph()
    x = g.add_input("x", TensorType())
    node = g.insert(kind, [x] * n_inputs)
    if out_type is not None:
        node.output().set_type(out_type)
    g.register_output(node.output())
    return g


@pytest.mark.parametrize("kind,n_inputs", [("aten::sigmoid", 3), ("aten::add", 1),
                                           ("aten::mul", 3), ("aten::exp", 0)])
def test_input_count_no_schema_takes(kind, n_inputs):
    with pytest.raises(IRError, match=f"{kind} takes .* not {n_inputs}"):
        lint(_graph_with(kind, n_inputs))


def test_input_counts_that_omit_defaulted_arguments_pass():
    g = Graph()
    x = g.add_input("x", TensorType())
    lst = g.insert("prim::ListConstruct", [x, x]).output()
    lst.set_type(parse_ir("graph(%l : Tensor[]):\n  return (%l)\n").inputs[0].type)
    g.register_output(g.insert("aten::cat", [lst]).output())  # dim=0 by default
    lint(g)


def test_output_type_contradicting_the_schema():
    with pytest.raises(IRError, match=r"output 0 \(%\d+\) has type int"):
        lint(_graph_with("aten::exp", 1, INT))
    lint(_graph_with("aten::exp", 1, TensorType()))


def test_unknown_ops_are_left_to_the_runtime():
    lint(_graph_with("aten::frobnicate", 5))


@pytest.mark.parametrize("make,message", [
    (lambda g: g.create("prim::Constant", (), 1).output().set_type(INT).node, "has no value"),
    (lambda g: g.create_constant(2**70), "not a 64-bit integer"),
    (lambda g: g.create_constant("text", FLOAT), "attribute kind s"),
])
def test_bad_constants(make, message):
    g = Graph()
    g.register_output(g.insert_node(make(g)).output())
    with pytest.raises(IRError, match=message):
        lint(g)


def test_none_constants_need_no_value():
    g = Graph()
    g.register_output(g.insert_constant(None))
    lint(g)


def test_negative_sizes_in_types():
    g = Graph()
    g.register_output(g.add_input("x", TensorType(sizes=(3, -4))))
    with pytest.raises(IRError, match="negative"):
        lint(g)


HOSTILE_NAMES = ["a\nb", 'q"uote', "x'y", "%x : Tensor", "sp ace", "é", "\u202e", "a.1",
                 "a\n%b : Tensor = aten::neg(%a)"]


def test_debug_names_always_print_parseable_text():
    g = Graph()
    value = g.add_input("x")
    for name in HOSTILE_NAMES + HOSTILE_NAMES:
        value = g.insert("aten::neg", [value]).output().set_debug_name(name)
        g.register_output(value)
    lint(g)
    text = str(g)
    assert str(parse_ir(text)) == text
    names = [v.debug_name for v in g.outputs]
    assert len(set(names)) == len(names)
    for name in names:
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def test_plain_names_are_kept():
    g = Graph()
    assert g.add_input("x.1").debug_name == "x.1"
    assert g.add_input("some_name").debug_name == "some_name"


def test_a_wrong_kind_attribute_does_not_break_printing():
    g = Graph()
    node = g.insert("prim::Constant", (), 1).set_attr("value", "i", "abc")
    node.output().set_type(INT)
    g.register_output(node.output())
    assert "<invalid>" in str(g)
    with pytest.raises(IRError, match="not a 64-bit integer"):
        lint(g)


@pytest.mark.parametrize("misuse", [
    lambda g: g.create("add"),
    lambda g: g.create(3),
    lambda g: g.add_input().set_debug_name(5),
    lambda g: g.insert_constant(1).node.kind_of("nothing"),
    lambda g: g.create("aten::mul").i_("x", "abc"),
    lambda g: g.create("aten::mul").i_("x]", 1),
    lambda g: g.create("aten::mul").f_("x", object()),
    lambda g: lint("not a graph"),
    lambda g: g.insert_constant(np.ones(2, np.complex64)),
    lambda g: g.add_input("x", "Tensor"),
    lambda g: g.add_input("x").set_type(int),
])
def test_api_misuse_raises_ir_error(misuse):
    with pytest.raises(IRError):
        misuse(Graph())


def test_source_ranges_with_line_breaks_print_parseable_text():
    from fusejit.ir.values import SourceRange

    g = Graph()
    node = g.insert("aten::neg", [g.add_input("x")])
    node.source_range = SourceRange("f.py\n  %y : Tensor = aten::exp(%x)\r", 3, 4)
    g.register_output(node.output())
    text = str(g)
    assert str(parse_ir(text)) == text
    assert len(parse_ir(text).block.return_node.prev.inputs) == 1


def test_attribute_names_must_read_back():
    node = Graph().create("aten::mul")
    for name in ("a b", "x]=1, y", "", "1x"):
        with pytest.raises(IRError, match="not an identifier"):
            node.s_(name, "v")
    node.s_("fine_name1", "v")


def test_integers_inside_tuple_constants_fit_int64():
    g = Graph()
    g.register_output(g.insert_constant((1, 2**70)))
    with pytest.raises(IRError, match="beyond 64 bits"):
        lint(g)
    g = Graph()
    g.register_output(g.insert_constant((1, -(2**63))))
    lint(g)
