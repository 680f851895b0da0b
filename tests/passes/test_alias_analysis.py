"""AliasDb: points-to sets from schemas, and the two move questions the fuser asks."""

from __future__ import annotations

import pytest

from fusejit import parse_ir
from fusejit.passes import AliasDb


def by_name(graph, name: str):
    for node in graph.all_nodes():
        for out in node.outputs:
            if out.debug_name == name:
                return node
    raise KeyError(name)


def order(graph) -> list[str]:
    return [n.outputs[0].debug_name if n.outputs else str(n.kind) for n in graph.nodes()]


def test_views_alias_their_input_and_fresh_results_do_not():
    g = parse_ir("""graph(%x : Tensor, %i : int):
  %v : Tensor = aten::t(%x)
  %e : Tensor = aten::exp(%x)
  %s : Tensor = aten::select(%v, %i, %i)
  return (%s, %e)
""")
    db = AliasDb(g)
    x, v, e, s = g.inputs[0], by_name(g, "v").output(), by_name(g, "e").output(), \
        by_name(g, "s").output()
    assert db.may_alias(x, v) and db.may_alias(x, s)
    assert not db.may_alias(x, e)


def test_in_place_op_writes_what_its_self_argument_points_to():
    g = parse_ir("""graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %v : Tensor = aten::t(%x)
  %w : Tensor = aten::add_(%v, %y, %one)
  return (%w)
""")
    db = AliasDb(g)
    writes = db.get_writes(by_name(g, "w"))
    assert db.points_to(g.inputs[0]) <= writes
    assert not (db.points_to(by_name(g, "one").output()) & writes)


def test_an_appended_array_is_held_by_its_list_and_written_through_its_items():
    """``items.append(a)``: ``a`` is held by the list, so an item read back may be ``a``, and
    a write into that item (``items[0] += 1``) writes ``a``: a pass must not share ``a``
    with another value that looks the same (``x * 2.0`` appended three times, made one by
    CSE or hoisted from the loop, was one array three times in the list)."""
    g = parse_ir("""graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : float = prim::Constant[value=2.]()
  %items : Tensor[] = prim::ListConstruct()
  %a : Tensor = aten::mul(%x, %two)
  %put : Tensor[] = aten::append(%items, %a)
  %b : Tensor = aten::mul(%x, %two)
  %d : Tensor = aten::__getitem__(%items, %zero)
  %w : Tensor = aten::add_(%d, %one, %one)
  return (%w, %b)
""")
    db = AliasDb(g)
    a, b, d = (by_name(g, n).output() for n in ("a", "b", "d"))
    assert db.may_alias(d, a) and not db.may_alias(d, b)
    assert db.points_to(a) <= db.get_writes(by_name(g, "w"))
    assert db.points_to(a) <= db.written_locations()
    assert not db.points_to(b) & db.written_locations()


BARRIER = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
  %w : Tensor = {middle}
  %d : Tensor = aten::mul(%a, %x)
  return (%d, %w)
"""


@pytest.mark.parametrize("middle, movable", [
    ("aten::add_(%x, %y, %one)", False),   # writes x, which both exp and the mul read
    ("aten::add(%x, %y, %one)", True),     # pure: nothing to preserve
    # Writes y: the caller may pass one tensor as both x and y (graph inputs are wildcards).
    ("aten::add_(%y, %y, %one)", False),
])
def test_a_write_between_blocks_the_move(middle: str, movable: bool):
    g = parse_ir(BARRIER.format(middle=middle))
    db = AliasDb(g)
    a, d = by_name(g, "a"), by_name(g, "d")
    before = order(g)
    assert db.could_move_before_topologically(a, d) == movable
    assert order(g) == before                       # the dry run moves nothing
    assert db.move_before_topologically_valid(a, d) == movable
    if movable:
        assert order(g) == ["one", "w", "a", "d"]
    else:
        assert order(g) == before


def test_move_drags_dependent_nodes_behind_the_move_point():
    g = parse_ir("""graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::exp(%x)
  %u : Tensor = aten::sin(%a)
  %c : Tensor = aten::cos(%y)
  %d : Tensor = aten::mul(%c, %y)
  return (%d, %u)
""")
    db = AliasDb(g)
    assert db.move_before_topologically_valid(by_name(g, "a"), by_name(g, "d"))
    assert order(g) == ["c", "a", "d", "u"]
    g.lint()


def test_move_refused_when_a_dragged_node_feeds_the_move_point():
    g = parse_ir("""graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %u : Tensor = aten::sin(%a)
  %d : Tensor = aten::mul(%u, %x)
  return (%d)
""")
    db = AliasDb(g)
    assert not db.move_before_topologically_valid(by_name(g, "a"), by_name(g, "d"))
    assert order(g) == ["a", "u", "d"]


def test_side_effects_block_moves_and_blocks_never_cross():
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::exp(%x)
   = prim::Print(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::sin(%a)
      -> (%b)
    block1():
      -> (%a)
  %d : Tensor = aten::mul(%r, %x)
  return (%d)
""")
    db = AliasDb(g)
    a, d = by_name(g, "a"), by_name(g, "d")
    assert not db.could_move_before_topologically(a, d)
    inner = by_name(g, "b")
    assert not db.could_move_before_topologically(inner, d)
