"""The graph fuser on small hand-written graphs, with the expected grouping derived by hand
from PyTorch's algorithm (reverse scan, alias-checked moves, pairs only)."""

from __future__ import annotations

import pytest

from fusejit import parse_ir
from fusejit.errors import IRError
from fusejit.ir.symbols import Symbol, aten, prim
from fusejit.ir.types import TensorType
from fusejit.passes import custom_fuse_graph, fuse_graph, peephole_optimize_shape_expressions

T = "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)"


def outside(graph) -> list[str]:
    return [str(n.kind) for n in graph.nodes() if n.kind != prim.FusionGroup]


def groups(graph) -> list:
    return [n for n in graph.all_nodes() if n.kind == prim.FusionGroup]


def inner_kinds(group) -> list[str]:
    return sorted(str(n.kind) for n in group.g("Subgraph").nodes() if n.kind != prim.Constant)


UNARY = "abs exp log sigmoid tanh sin relu neg sqrt erf trunc frac".split()


@pytest.mark.parametrize("first, second", list(zip(UNARY, UNARY[1:] + UNARY[:1])))
def test_two_pointwise_ops_form_one_group(first: str, second: str):
    g = parse_ir(f"""graph(%x : {T}):
  %a : {T} = aten::{first}(%x)
  %b : {T} = aten::{second}(%a)
  return (%b)
""")
    fuse_graph(g)
    g.lint()
    (group,) = groups(g)
    assert inner_kinds(group) == sorted([f"aten::{first}", f"aten::{second}"])
    assert list(group.inputs) == [g.inputs[0]]
    assert outside(g) == []


@pytest.mark.parametrize("op", UNARY)
def test_a_single_op_never_forms_a_group(op: str):
    g = parse_ir(f"""graph(%x : {T}):
  %a : {T} = aten::{op}(%x)
  return (%a)
""")
    fuse_graph(g)
    assert groups(g) == [] and outside(g) == [f"aten::{op}"]


@pytest.mark.parametrize("scalar_type, fuses", [("int", False), ("float", True)])
def test_non_constant_scalars(scalar_type: str, fuses: bool):
    # A float graph input becomes a group input after the tensors; an int one blocks the op.
    g = parse_ir(f"""graph(%x : {T}, %s : {scalar_type}):
  %a : {T} = aten::mul(%x, %s)
  %b : {T} = aten::exp(%a)
  return (%b)
""")
    fuse_graph(g)
    if fuses:
        (group,) = groups(g)
        assert list(group.inputs) == [g.inputs[0], g.inputs[1]]
    else:
        assert groups(g) == [] and outside(g) == ["aten::mul", "aten::exp"]


@pytest.mark.parametrize("middle, outside_kinds", [
    # add_ writes %x, which exp reads before and the group reads after: exp cannot move.
    ("aten::add_(%x, %y, %one)", ["prim::Constant", "aten::exp", "aten::add_"]),
    ("aten::add(%x, %y, %one)", ["prim::Constant", "aten::add"]),
])
def test_in_place_write_blocks_the_move_into_a_group(middle: str, outside_kinds: list[str]):
    g = parse_ir(f"""graph(%x : {T}, %y : {T}):
  %one : int = prim::Constant[value=1]()
  %a : {T} = aten::exp(%x)
  %w : {T} = {middle}
  %d : {T} = aten::mul(%a, %x)
  %e : {T} = aten::sin(%d)
  return (%e, %w)
""")
    fuse_graph(g)
    g.lint()
    assert outside(g) == outside_kinds
    assert len(groups(g)) == 1


@pytest.mark.parametrize("returned, outside_kinds", [
    ("%e", []),                                   # chunk read only by the group: moves in
    ("%e, %a", ["prim::ConstantChunk"]),           # an outside use keeps the chunk out
])
def test_chunk_moves_into_group_only_without_outside_uses(returned: str, outside_kinds):
    g = parse_ir(f"""graph(%x : Float(3, 8, strides=[8, 1], requires_grad=0, device=cpu)):
  %a : {T}, %b : {T} = prim::ConstantChunk[chunks=2, dim=1](%x)
  %d : {T} = aten::mul(%a, %b)
  %e : {T} = aten::sin(%d)
  return ({returned})
""")
    fuse_graph(g)
    g.lint()
    assert outside(g) == outside_kinds
    (group,) = groups(g)
    inside = [str(n.kind) for n in group.g("Subgraph").nodes()]
    assert ("prim::ConstantChunk" in inside) == (not outside_kinds)


def test_producer_with_later_use_becomes_a_second_output():
    g = parse_ir(f"""graph(%x : {T}, %w : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu)):
  %a : {T} = aten::exp(%x)
  %b : {T} = aten::sin(%a)
  %m : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::mm(%a, %w)
  return (%b, %m)
""")
    fuse_graph(g)
    (group,) = groups(g)
    assert len(group.outputs) == 2
    mm = next(n for n in g.nodes() if n.kind == aten.mm)
    assert mm.input(0) in group.outputs
    assert g.outputs[0] in group.outputs


def test_different_blocks_never_fuse():
    g = parse_ir(f"""graph(%x : {T}, %c : bool):
  %a : {T} = aten::exp(%x)
  %r : {T} = prim::If(%c)
    block0():
      %b : {T} = aten::sin(%a)
      -> (%b)
    block1():
      -> (%a)
  return (%r)
""")
    fuse_graph(g)
    assert groups(g) == []


def test_unfusable_device_is_left_alone():
    text = f"""graph(%x : {T}):
  %a : {T} = aten::exp(%x)
  %b : {T} = aten::sin(%a)
  return (%b)
"""
    g = parse_ir(text)
    for node in g.nodes():
        node.output().set_type(node.output().type.with_(device="mps"))
    fuse_graph(g)
    assert groups(g) == []


ADDS = """graph(%x0 : Tensor, %x1 : Tensor, %x2 : Tensor, %x3 : Tensor, %x4 : Tensor):
  %one : int = prim::Constant[value=1]()
  %s1 : Tensor = aten::add(%x0, %x1, %one)
  %s2 : Tensor = aten::add(%s1, %x2, %one)
  %s3 : Tensor = aten::add(%s2, %x3, %one)
  %s4 : Tensor = aten::add(%s3, %x4, %one)
  return (%s4)
"""


@pytest.mark.parametrize("limit, fused_adds, left", [
    # (group inputs + outputs) + (producer inputs + outputs) must not exceed the limit:
    # s4+s3: 4+4; +s2: 4+4; +s1: 5+4.
    (7, 0, 4), (8, 3, 1), (9, 4, 0),
])
def test_argument_limit_counts_as_pytorch(limit: int, fused_adds: int, left: int):
    g = parse_ir(ADDS)
    custom_fuse_graph(g, lambda n: n.kind == aten.add, prim.FusionGroup, arg_limit=limit)
    g.lint()
    found = groups(g)
    assert sum(len(inner_kinds(grp)) for grp in found) == fused_adds
    assert outside(g).count("aten::add") == left


def test_custom_fuse_graph_uses_the_callback_and_kind():
    kind = Symbol("fusejit::MyGroup")
    g = parse_ir(f"""graph(%x : {T}, %w : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu)):
  %a : {T} = aten::mm(%x, %w)
  %b : {T} = aten::mm(%a, %w)
  %c : {T} = aten::exp(%b)
  return (%c)
""")
    custom_fuse_graph(g, lambda n: n.kind == aten.mm, kind)
    g.lint()
    assert [str(n.kind) for n in g.nodes()] == ["fusejit::MyGroup", "aten::exp"]
    sub = next(g.nodes()).g("Subgraph")
    assert [str(n.kind) for n in sub.nodes()] == ["aten::mm", "aten::mm"]


def test_peephole_shape_expressions():
    g = parse_ir("""graph(%a : int[], %b : int[], %c : int[]):
  %one : int[] = prim::BroadcastSizes(%a)
  %dup : int[] = prim::BroadcastSizes(%b, %a, %b)
  %inner : int[] = prim::BroadcastSizes(%a, %c)
  %outer : int[] = prim::BroadcastSizes(%inner, %b)
  return (%one, %dup, %outer)
""")
    peephole_optimize_shape_expressions(g)
    g.lint()
    # one-input broadcast gone; duplicates removed (ordered by value number); chain merged.
    assert g.outputs[0] is g.inputs[0]
    dup = g.outputs[1].node
    assert list(dup.inputs) == [g.inputs[0], g.inputs[1]]
    outer = g.outputs[2].node
    assert sorted(v.debug_name for v in outer.inputs) == ["a", "b", "c"]
    assert [str(n.kind) for n in g.nodes()] == ["prim::BroadcastSizes"] * 2


def test_fused_graph_keeps_types_and_rejects_non_graphs():
    g = parse_ir(f"""graph(%x : {T}):
  %a : {T} = aten::exp(%x)
  %b : {T} = aten::sin(%a)
  return (%b)
""")
    fuse_graph(g)
    assert isinstance(g.outputs[0].type, TensorType)
    assert g.outputs[0].type == parse_ir(f"graph(%x : {T}):\n  return (%x)\n").inputs[0].type
    with pytest.raises(IRError):
        fuse_graph("graph(%x : Tensor):\n  return (%x)\n")
