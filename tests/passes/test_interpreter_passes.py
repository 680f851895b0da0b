"""The interpreter's preprocessing passes, each alone, against hand-derived IR."""

from __future__ import annotations

import pytest

from fusejit import parse_ir
from fusejit.ir.symbols import aten, prim
from fusejit.passes import desugar_trip_counts, drop_unused, find_last_uses, flatten_io

LOOP = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %x.1 : Tensor):
      %x.2 : Tensor = aten::mul(%x.1, %i)
      -> (%t, %x.2)
  return (%y)
"""


def _node(graph, kind):
    return next(n for n in graph.all_nodes() if n.kind == kind)


def test_desugar_trip_counts_makes_a_carried_counter():
    g = parse_ir(LOOP)
    n, t, x = g.inputs[1], _node(g, prim.Constant).output(), g.inputs[0]
    desugar_trip_counts(g)
    loop = _node(g, prim.Loop)
    body = loop.blocks[0]
    # Loop(cond, 0, %x): the entry condition is (0 < n) and t.
    cond, start, carried = loop.inputs
    assert carried is x
    assert start.node.kind == prim.Constant and start.node.i("value") == 0
    assert cond.node.kind == aten["__and__"]
    below, first_cond = cond.node.inputs
    assert first_cond is t and below.node.kind == aten.lt and below.node.inputs == (start, n)
    # Two outputs now: the counter's final value, then the old output %y.
    assert len(loop.outputs) == 2 and loop.outputs[1].debug_name == "y"
    assert not loop.outputs[0].uses
    # Body: (%i, %x.1) -> (cond', %i + 1, %x.2) with cond' = (%i + 1 < n) and t.
    i, x1 = body.inputs
    body_cond, incremented, x2 = body.outputs
    assert incremented.node.kind == aten.add and incremented.node.input(0) is i
    assert incremented.node.input(1).node.i("value") == 1
    assert body_cond.node.kind == aten["__and__"] and body_cond.node.input(1) is t
    below = body_cond.node.input(0).node
    assert below.kind == aten.lt and below.inputs == (incremented, n)
    assert x2.node.kind == aten.mul and x2.node.inputs == (x1, i)


def test_desugar_trip_counts_reaches_nested_loops():
    g = parse_ir("""graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %c : bool = prim::Constant[value=0]()
  %r : int = prim::If(%c)
    block0():
      %y : int = prim::Loop(%n, %t, %n)
        block0(%i : int, %a : int):
          %z : int = prim::Loop(%n, %t, %a)
            block0(%j : int, %b : int):
              -> (%t, %b)
          -> (%t, %z)
      -> (%y)
    block1():
      -> (%n)
  return (%r)
""")
    desugar_trip_counts(g)
    loops = [n for n in g.all_nodes() if n.kind == prim.Loop]
    assert len(loops) == 2
    for loop in loops:
        body = loop.blocks[0]
        assert len(loop.inputs) == 3 and len(loop.outputs) == 2
        assert len(body.inputs) == 2 and len(body.outputs) == 3
        assert body.outputs[0].node.kind == aten["__and__"]


WHILE = """graph(%x : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %lim : int = prim::Constant[value=100]()
  %c0 : bool = aten::lt(%x, %lim)
  %y : int = prim::Loop(%max, %c0, %x)
    block0(%i : int, %v : int):
      %w : int = aten::add(%v, %v)
      %c : bool = aten::lt(%w, %lim)
      -> (%c, %w)
  return (%y)
"""


def test_desugar_trip_counts_leaves_a_while_loop_without_counter():
    g = parse_ir(WHILE)
    c0, x = _node(g, aten.lt).output(), g.inputs[0]
    desugar_trip_counts(g)
    loop = _node(g, prim.Loop)
    body = loop.blocks[0]
    # Loop(%c0, %x), body (%v) -> (%c, %w): no counter, no comparison with the maximum.
    assert loop.inputs == (c0, x) and len(loop.outputs) == 1
    assert [v.debug_name for v in body.inputs] == ["v"]
    assert [v.debug_name for v in body.outputs] == ["c", "w"]
    assert not any(n.kind in (aten["__and__"], aten.add) and n.owning_block is g.block
                   for n in g.all_nodes())
    assert [n.kind for n in body.nodes()] == [aten.add, aten.lt]
    # %max had no other reader: it is gone.
    assert [n.i("value") for n in g.all_nodes() if n.kind == prim.Constant] == [100]


@pytest.mark.parametrize("change", [
    # the body reads its trip count: it stays a counter
    ("-> (%c, %w)", "-> (%c, %i)"),
    # a real trip count
    ("prim::Loop(%max, %c0, %x)", "prim::Loop(%lim, %c0, %x)"),
    # any other constant is a real trip count
    ("%max : int = prim::Constant[value=9223372036854775807]()",
     "%max : int = prim::Constant[value=9223372036854775806]()"),
])
def test_desugar_trip_counts_keeps_a_counter_that_is_needed(change):
    g = parse_ir(WHILE.replace(*change))
    desugar_trip_counts(g)
    loop = _node(g, prim.Loop)
    assert len(loop.inputs) == 3 and len(loop.outputs) == 2
    assert loop.blocks[0].outputs[0].node.kind == aten["__and__"]


def test_desugar_trip_counts_keeps_a_maximum_read_elsewhere():
    g = parse_ir(WHILE.replace("return (%y)", "%z : int = aten::add(%y, %max)\n  return (%z)"))
    desugar_trip_counts(g)
    assert len(_node(g, prim.Loop).inputs) == 2
    assert _node(g, prim.Constant).i("value") == 9223372036854775807


def test_flatten_io_moves_inputs_and_outputs_to_load_and_store():
    g = parse_ir("""graph(%x : Tensor, %y : Tensor):
  %z : Tensor = aten::mul(%x, %y)
  return (%z, %x)
""")
    flatten_io(g)
    assert str(g) == """graph():
  %x : Tensor, %y : Tensor = prim::Load()
  %z : Tensor = aten::mul(%x, %y)
   = prim::Store(%z, %x)
  return ()
"""


@pytest.mark.parametrize("text, expected_drops", [
    # one of two chunk outputs unused
    ("""graph(%x : Tensor):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=0](%x)
  return (%a)
""", [["b"]]),
    # unused graph input and unused block input (the loop's trip count)
    ("""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %x.1 : Tensor):
      -> (%t, %x.1)
  return (%y)
""", [["i"]]),
    ("""graph(%x : Tensor):
  return (%x)
""", []),
])
def test_drop_unused(text, expected_drops):
    g = parse_ir(text)
    flatten_io(g)
    drop_unused(g)
    drops = [n for n in g.all_nodes() if n.kind == prim.Drop]
    assert [[v.debug_name for v in d.inputs] for d in drops] == expected_drops
    for d in drops:
        for v in d.inputs:
            assert [u.user for u in v.uses] == [d]
            # A dropped output is dropped right after its definition (block start for inputs).
            assert d.prev is v.node or (v.node.kind == prim.Param and d.prev.kind == prim.Param)


def _flags(graph, flags, kind):
    return [flags[n] for n in graph.all_nodes() if n.kind == kind]


def test_find_last_uses_straight_line():
    g = parse_ir("""graph(%x : Tensor):
  %a : Tensor = aten::mul(%x, %x)
  %b : Tensor = aten::add(%a, %x, %a)
  return (%b, %a)
""")
    flatten_io(g)
    flags = find_last_uses(g)
    # Scanning backwards: Store reads %b, %a last; add reads %x last (its second operand); mul
    # reads %x twice, neither a last use.
    assert _flags(g, flags, aten.mul) == [[False, False]]
    assert _flags(g, flags, aten.add) == [[False, True, False]]
    assert _flags(g, flags, prim.Store) == [[True, True]]
    assert not any(n.kind == prim.Drop for n in g.all_nodes())


def test_find_last_uses_if_branch_use_gets_a_drop_after_the_if():
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::exp(%x)
  %y : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::neg(%a)
      -> (%b)
    block1():
      -> (%x)
  return (%y)
""")
    flatten_io(g)
    flags = find_last_uses(g)
    if_node = _node(g, prim.If)
    drop = if_node.next
    # %a is last read inside block0 and %x inside block1: both are freed after the If.
    assert drop.kind == prim.Drop
    assert sorted(v.debug_name for v in drop.inputs) == ["a", "x"]
    assert flags[drop] == [True, True]
    assert flags[if_node] == [True]                       # %c
    assert _flags(g, flags, aten.neg) == [[False]]
    assert flags[if_node.blocks[0].return_node] == [True]   # %b
    assert flags[if_node.blocks[1].return_node] == [False]  # %x, dropped after the If
    assert _flags(g, flags, aten.exp) == [[False]]        # %x is read again in block1


def test_find_last_uses_loop_body_never_moves_outer_values():
    g = parse_ir(LOOP)
    desugar_trip_counts(g)
    flatten_io(g)
    drop_unused(g)
    flags = find_last_uses(g)
    loop = _node(g, prim.Loop)
    body = loop.blocks[0]
    mul = _node(g, aten.mul)
    assert flags[mul] == [True, False]    # %x.1 dies here; %i is read again by the increment
    # %n and %t are read inside the body: a Drop after the loop frees them.
    after = [n for n in g.nodes() if n.kind == prim.Drop and n.prev is loop]
    assert len(after) == 1
    assert sorted(v.debug_name for v in after[0].inputs) == ["n", "t"]
    assert flags[body.return_node] == [True, True, True]
    for node in body.nodes():
        for value, flag in zip(node.inputs, flags[node]):
            if value.node.owning_block is not body:
                assert not flag, f"{node.kind} moves outer value %{value.debug_name}"


def test_desugar_trip_counts_refuses_a_malformed_loop():
    from fusejit import IRError
    from fusejit.ir.graph import Graph

    g = Graph()
    g.insert(prim.Loop, (g.add_input("n"),), 0).add_block()
    with pytest.raises(IRError, match="prim::Loop needs a trip count"):
        desugar_trip_counts(g)
