"""The graph API: mutations keep use-lists consistent, destroy refuses used nodes, copy is deep,
insert points, ordering queries and TorchScript's debug-name uniquing."""

from __future__ import annotations

import pytest

from fusejit import IRError, parse_ir
from fusejit.ir import Graph, lint
from fusejit.ir.symbols import aten, prim
from fusejit.ir.types import BOOL, INT, TensorType

CHAIN = """\
graph(%x : Tensor,
      %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::mul(%a, %a)
  %c : Tensor = aten::exp(%b)
  return (%c, %a)
"""


def uses_consistent(graph: Graph) -> bool:
    lint(graph)
    return True


def test_uses_track_every_input():
    g = parse_ir(CHAIN)
    a = g.outputs[1]
    users = sorted((u.user.kind, u.offset) for u in a.uses)
    assert users == [("aten::mul", 0), ("aten::mul", 1), ("prim::Return", 1)]


def test_replace_all_uses_with_moves_every_use():
    g = parse_ir(CHAIN)
    x, a = g.inputs[0], g.outputs[1]
    a.replace_all_uses_with(x)
    assert a.uses == []
    assert g.outputs[1] is x
    mul = next(n for n in g.nodes() if n.kind == aten.mul)
    assert mul.inputs == (x, x)
    assert uses_consistent(g)


def test_replace_input_and_remove_input_renumber_uses():
    g = parse_ir(CHAIN)
    add = next(n for n in g.nodes() if n.kind == aten.add)
    x, y = g.inputs
    add.remove_input(0)
    assert [(u.user.kind, u.offset) for u in y.uses] == [("aten::add", 0)]
    add.insert_input(0, y)
    assert [u.offset for u in y.uses if u.user is add] == [1, 0]
    add.replace_input(0, x)
    assert add.inputs[:2] == (x, y)
    assert uses_consistent(g)


def test_destroy_refuses_a_used_node_and_frees_a_dead_one():
    g = parse_ir(CHAIN)
    mul = next(n for n in g.nodes() if n.kind == aten.mul)
    with pytest.raises(IRError, match="still used"):
        mul.destroy()
    exp = next(n for n in g.nodes() if n.kind == aten.exp)
    g.erase_output(0)
    exp.destroy()
    assert [n.kind for n in g.nodes()] == [prim.Constant, aten.add, aten.mul]
    a = g.outputs[0]
    assert sorted(u.offset for u in a.uses if u.user is mul) == [0, 1]
    mul.destroy()
    assert [u.user.kind for u in a.uses] == ["prim::Return"]
    assert uses_consistent(g)


def test_copy_is_deep():
    g = parse_ir(CHAIN)
    c = g.copy()
    assert str(c) == str(g)
    assert not ({id(n) for n in c.all_nodes()} & {id(n) for n in g.all_nodes()})
    next(n for n in c.nodes() if n.kind == aten.exp).output().set_debug_name("changed")
    mul = next(n for n in c.nodes() if n.kind == aten.mul)
    mul.replace_input(1, c.inputs[0])
    assert str(g) == CHAIN
    assert "changed" in str(c)


def test_copy_copies_subgraphs_deeply():
    text = """\
graph(%x : Tensor):
  %y : Tensor = prim::FusionGroup_0(%x)
  return (%y)
with prim::FusionGroup_0 = graph(%a : Tensor):
  %b : Tensor = aten::exp(%a)
  return (%b)
"""
    g = parse_ir(text)
    c = g.copy()
    sub_g = next(g.nodes()).g("Subgraph")
    sub_c = next(c.nodes()).g("Subgraph")
    assert sub_g is not sub_c
    next(sub_c.nodes()).output().set_debug_name("renamed")
    assert str(g) == text


def test_insert_point_context_and_order_queries():
    g = parse_ir(CHAIN)
    add, mul, exp = [n for n in g.nodes() if n.kind != prim.Constant]
    with g.inserting_before(mul):
        neg = g.insert(aten.neg, [add.output()])
    with g.inserting_after(exp):
        tail = g.insert(aten.relu, [exp.output()])
    kinds = [n.kind for n in g.nodes()]
    assert kinds == [prim.Constant, aten.add, aten.neg, aten.mul, aten.exp, aten.relu]
    assert add.is_before(neg) and neg.is_before(mul) and tail.is_after(exp)
    assert not mul.is_before(neg)
    neg.move_after(exp)
    assert neg.is_after(exp) and neg.is_before(tail)
    assert uses_consistent(g)


def test_many_inserts_at_one_point_keep_order():
    g = Graph()
    x = g.add_input("x")
    first = g.insert(aten.exp, [x])
    last = g.insert(aten.exp, [first.output()])
    made = []
    for _ in range(200):  # forces positions to be re-spaced
        with g.inserting_before(last):
            made.append(g.insert(aten.neg, [x]))
    nodes = list(g.nodes())
    assert nodes == [first, *made, last]
    assert all(a.is_before(b) for a, b in zip(nodes, nodes[1:]))


def test_order_across_blocks():
    text = """\
graph(%c : bool, %x : Tensor):
  %a : Tensor = aten::exp(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::neg(%a)
      -> (%b)
    block1():
      -> (%a)
  %z : Tensor = aten::relu(%r)
  return (%z)
"""
    g = parse_ir(text)
    a_node, if_node, relu = list(g.nodes())
    inner = next(if_node.blocks[0].nodes())
    assert a_node.is_before(inner) and inner.is_before(relu)
    assert inner.is_after(a_node) and relu.is_after(inner)


def test_debug_names_are_uniqued_like_torchscript():
    g = Graph()
    a = g.add_input("x")
    b = g.add_input()
    b.set_debug_name("x")
    assert (a.debug_name, b.debug_name) == ("x.1", "x")
    c = g.add_input()
    c.set_debug_name("x")
    assert (a.debug_name, b.debug_name, c.debug_name) == ("x.1", "x.2", "x")
    with pytest.raises(IRError):
        c.set_debug_name("12")


def test_create_clone_and_with_subgraph():
    g = parse_ir(CHAIN)
    add = next(n for n in g.nodes() if n.kind == aten.add)
    group = g.create_with_subgraph(prim.FusionGroup)
    sub = group.g("Subgraph")
    env = {v: sub.add_input(type=v.type) for v in add.inputs}
    clone = sub.insert_node(sub.create_clone(add, lambda v: env[v]))
    sub.register_output(clone.output())
    assert clone.kind == aten.add and clone is not add
    assert [v.node.kind for v in clone.inputs] == [prim.Param] * 3
    assert add.source_range == clone.source_range


def test_lint_reports_the_offending_node():
    g = parse_ir(CHAIN)
    mul = next(n for n in g.nodes() if n.kind == aten.mul)
    exp = next(n for n in g.nodes() if n.kind == aten.exp)
    mul.move_after(exp)  # now exp reads %b before it is defined
    with pytest.raises(IRError, match=r"not defined before.*\n.*aten::exp"):
        lint(g)


def test_lint_checks_control_flow_arity():
    g = Graph()
    c = g.add_input("c", BOOL)
    node = g.insert(prim.If, [c], 1)
    node.add_block()
    with pytest.raises(IRError, match="two blocks"):
        lint(g)
    node.add_block()
    with pytest.raises(IRError, match="return 1 values"):
        lint(g)
    for block in node.blocks:
        block.register_output(g.insert_constant(1))
    # constants inserted at the graph's end come after the If: not defined before use
    with pytest.raises(IRError):
        lint(g)


def test_loop_arity_and_types():
    text = """\
graph(%n : int, %x : Tensor):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %v : Tensor):
      %w : Tensor = aten::exp(%v)
      -> (%t, %w)
  return (%y)
"""
    g = parse_ir(text)
    lint(g)
    assert g.inputs[0].type == INT
    assert isinstance(g.outputs[0].type, TensorType)
