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


CHECKED = """graph(%x : Tensor, %y : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %a : Tensor = aten::exp(%x)
  %k : int = aten::size({sized}, %zero)
  %ok : bool = aten::eq(%k, %n)
   = prim::If(%ok)
    block0():
      -> ()
    block1():
      %msg : str = prim::Constant[value="ValueError: shapes differ"]()
       = prim::RaiseException(%msg)
      -> ()
  %d : Tensor = aten::mul(%a, %y)
  return (%d)
"""


def test_a_pure_node_moves_past_an_if_that_raises_but_never_drags_it():
    """As PyTorch's ``Node::hasSideEffects``: an ``if`` whose block raises (a frontend shape
    check between a producer and its consumer) has no side effects of its own kind, so pure
    nodes pass it; where it depends on what moves, it would have to travel along, and never
    does (fusejit moves no node whose blocks have side effects)."""
    g = parse_ir(CHECKED.format(sized="%y"))
    db = AliasDb(g)
    a, d = by_name(g, "a"), by_name(g, "d")
    assert db.move_before_topologically_valid(a, d)
    assert order(g) == ["one", "zero", "k", "ok", "prim::If", "a", "d"]
    g.lint()

    g = parse_ir(CHECKED.format(sized="%a"))       # (the check reads exp's result)
    db = AliasDb(g)
    before = order(g)
    assert not db.move_before_topologically_valid(by_name(g, "a"), by_name(g, "d"))
    assert order(g) == before


def test_arrays_a_loop_carries_are_what_its_body_writes():
    """A loop's parameter may be the array carried in or the one its body carried back: a
    write to the parameter writes both, and a write to either reaches the parameter. Two
    fresh arrays carried in stay apart from each other and from a third not carried."""
    g = parse_ir("""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %h : float = prim::Constant[value=0.5]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::exp(%x)
  %c : Tensor = aten::exp(%x)
  %ra : Tensor, %rb : Tensor = prim::Loop(%n, %t, %a, %b)
    block0(%i : int, %pa : Tensor, %pb : Tensor):
      %wa : Tensor = aten::mul_(%pa, %h)
      %nb : Tensor = aten::add(%pb, %c, %one)
      -> (%t, %wa, %nb)
  return (%ra, %rb)
""")
    db = AliasDb(g)
    a, b, c = (by_name(g, name).output() for name in "abc")
    loop = by_name(g, "ra")
    pa, pb = loop.blocks[0].inputs[1:]
    nb = by_name(g, "nb").output()
    written = db.written_locations()
    assert db.points_to(a) & written             # (by mul_ of %pa)
    assert not db.points_to(b) & written and not db.points_to(c) & written
    assert db.may_alias(a, pa) and db.may_alias(b, pb) and db.may_alias(nb, pb)
    assert not db.may_alias(a, b) and not db.may_alias(pa, pb) and not db.may_alias(c, pb)
    assert db.may_alias(loop.outputs[0], a) and db.may_alias(loop.outputs[1], nb)


def test_fresh_arrays_a_loop_writes_stay_two_arrays():
    """Two ``np.empty_like(q)`` that a loop carries and writes were one array after
    common-subexpression elimination (set K's upwind advection: both differences in one
    buffer). NumPy's values on every call."""
    import numpy as np

    import fusejit

    def two_buffers(q0, n):
        q = q0.copy()
        dqx = np.empty_like(q)
        dqy = np.empty_like(q)
        for _ in range(n):
            np.subtract(q, np.roll(q, 1, axis=1), out=dqx)
            np.subtract(q, np.roll(q, 1, axis=0), out=dqy)
            dqx *= 0.5
            dqy *= 0.25
            q -= dqx
            q -= dqy
        return q, float(dqx.sum())

    f = fusejit.jit(two_buffers)
    for shape in ((5, 7), (300, 200)):
        q0 = np.random.default_rng(3).random(shape)
        want = two_buffers(q0, 3)
        for _ in range(3):
            for g, w in zip(f(q0, 3), want):
                np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)


def test_an_array_a_loop_carries_back_may_be_its_parameter_but_is_made_each_iteration():
    """A map's result carried back is the parameter of the next iteration (may alias), and
    still an array its node makes (``made_here``: no value of its own iteration is it, which
    the carried-arrays pass asks). The program: the body's new ``buf`` (``x * 2``, as ``a``
    before the loop) is scaled in place by the next iteration, which must not reach ``a``."""
    import numpy as np

    import fusejit

    def rebound(x, n):
        a = x * 2.0
        buf = x.copy()
        for _ in range(n):
            buf *= 3.0
            buf = x * 2.0
        return a, buf

    f = fusejit.jit(rebound)
    x = np.arange(5.0)
    for _ in range(3):
        got, want = f(x, 3), rebound(x, 3)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    g = parse_ir("""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %b : Tensor = aten::exp(%x)
  %r : Tensor = prim::Loop(%n, %t, %b)
    block0(%i : int, %p : Tensor):
      %e : Tensor = aten::exp(%p)
      -> (%t, %e)
  return (%r)
""")
    db = AliasDb(g)
    e = by_name(g, "e").output()
    p = by_name(g, "r").blocks[0].inputs[1]
    assert db.made_here(e) and db.may_alias(e, p) and not db.made_here(p)
