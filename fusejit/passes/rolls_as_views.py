"""Rolls of one array as views of one wrapped copy of it (for ``@fusejit.jit``, beyond PyTorch).

The frontend writes ``np.roll(x, s, d)`` as the concatenation of two slices of ``x``::

    %n = aten::size(%x, %d)
    %m = aten::max(%n, 1)                   # (an empty axis: rolled into itself)
    %r = aten::remainder(%s, %m)
    %cut = aten::sub(%n, %r)
    %a = aten::slice(%x, %d, %cut, None, 1)
    %b = aten::slice(%x, %d, None, %cut, 1)
    %l = prim::ListConstruct(%a, %b)
    %y = aten::cat(%l, %d)

A stencil on a torus (the game of life, a cellular automaton, a periodic Laplacian) sums eight
such rolls of one board, some of them rolls of rolls. Each ``cat`` made a new array, and the
fuser could not start a group at one (``prim::FusedConcat`` ends a group): eight copies and
a NumPy call per roll, where NumPy's own ``np.roll`` makes one copy each. That ran at 0.3-0.9x
NumPy's time (set G's and set H's game_of_life, set D's rule184_traffic).

This pass copies ``x`` once, wrapped: ``fusejit::wrap_pad(x, pads)`` puts before and after each
rolled dimension as many of its far elements as the largest shift either way needs
(``np.pad(x, ..., mode="wrap")``). A roll by ``s`` along ``d`` is then the window of that copy
starting ``lo - s`` rows in, ``lo`` the padding before ``d``: a view with constant arguments,
which ``move_views_into_groups`` takes into the groups reading it::

    %p = fusejit::wrap_pad(%x, [1, 1])                    # the rows n-1, 0..n-1, 0
    %y = aten::slice(%p, 0, 0, -2, 1)                     # np.roll(x, 1, 0)
    %z = aten::slice(%p, 0, 2, None, 1)                   # np.roll(x, -1, 0)

so the board's update is one kernel reading ``%p`` at eight offsets. A roll of a roll adds the
shifts. Only rolls whose every use only reads them (an op whose schema neither writes that
operand nor returns an alias of it, ``aten::size``, or a roll of them) are taken: a view must
not be written through, nor returned as an array of its own. ``fuse_graph`` is unchanged; the
executor runs this first, on CPU plans of ``@fusejit.jit``.
"""

from __future__ import annotations

from ..ir.constants import constant_int, constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import Symbol, aten, prim
from ..ir.types import TensorType
from .pass_checks import graph_pass

WRAP_PAD = Symbol("fusejit::wrap_pad")


def _is_none(value: Value) -> bool:
    return value.node.kind == prim.Constant and constant_value(value.node) is None


def _length_or_one(divisor: Value, n: Value) -> bool:
    """Is ``divisor`` the axis length ``n``, or ``max(n, 1)`` (the frontend's, so that an
    empty axis rolls into itself)?"""
    node = divisor.node
    return divisor is n or node.kind == aten.max and len(node.inputs) == 2 and \
        node.input(0) is n and constant_int(node.input(1)) == 1


def roll_of(cat: Node) -> tuple[Value, int, int] | None:
    """(x, d, s) where ``cat`` is the frontend's ``np.roll(x, s, d)`` (the module's
    docstring), ``d`` its dimension counted from the front, else None."""
    if cat.kind != aten.cat or len(cat.inputs) != 2 or len(cat.outputs) != 1:
        return None
    listed = cat.input(0).node
    dim = constant_int(cat.input(1))
    if listed.kind != prim.ListConstruct or len(listed.inputs) != 2 or dim is None:
        return None
    tail, head = (v.node for v in listed.inputs)
    if tail.kind != aten.slice or head.kind != aten.slice or len(tail.inputs) != 5 \
            or len(head.inputs) != 5 or tail.input(0) is not head.input(0):
        return None
    x = tail.input(0)
    t = x.type
    if not isinstance(t, TensorType) or t.rank is None or not 0 <= dim < t.rank:
        return None
    cut = tail.input(2)
    if any(constant_int(n.input(1)) != dim or constant_int(n.input(4)) != 1
           for n in (tail, head)) or not _is_none(tail.input(3)) \
            or not _is_none(head.input(2)) or head.input(3) is not cut:
        return None
    sub = cut.node
    if sub.kind != aten.sub or len(sub.inputs) != 2:
        return None
    size, rest = sub.input(0).node, sub.input(1).node
    if size.kind != aten.size or len(size.inputs) != 2 or size.input(0) is not x \
            or constant_int(size.input(1)) != dim:
        return None
    if rest.kind != aten.remainder or not _length_or_one(rest.input(1), sub.input(0)):
        return None
    shift = constant_int(rest.input(0))
    if shift is None:
        return None
    # (the slices and the list must be the roll's own: nothing else may read them)
    if len(listed.output().uses) != 1 or any(len(n.output().uses) != 1 for n in (tail, head)):
        return None
    return x, dim, shift


class _Roll:
    """One roll: its ``cat``, the array it rolls at the bottom of a chain of rolls (``root``)
    and its shift along each dimension from it."""

    def __init__(self, cat: Node, root: Value, shifts: dict[int, int]):
        self.cat = cat
        self.root = root
        self.shifts = shifts


def _rolls(block: Block) -> list[_Roll]:
    """The rolls of ``block`` (and of the blocks inside it), in program order, each composed
    with the rolls it rolls in the same block."""
    found: dict[Value, _Roll] = {}
    rolls = []
    for node in block.nodes():
        for sub in node.blocks:
            rolls.extend(_rolls(sub))
        match = roll_of(node)
        if match is None:
            continue
        x, dim, shift = match
        inner = found.get(x)
        root, shifts = (inner.root, dict(inner.shifts)) if inner is not None else (x, {})
        shifts[dim] = shifts.get(dim, 0) + shift
        roll = _Roll(node, root, shifts)
        found[node.output()] = roll
        rolls.append(roll)
    return rolls


def _only_read(roll: _Roll, cats: set[Node]) -> bool:
    """Does every use of ``roll`` only read it: an op whose schema neither writes that operand
    nor returns an alias of it (a map, ``x += roll``), ``aten::size``, or a roll of it in
    ``cats`` (its slices)? And does an op other than those read it?"""
    read = False
    for use in roll.cat.output().uses:
        user = use.user
        if user.kind == aten.size:
            continue
        if user.kind == aten.slice and len(user.output().uses) == 1:
            listed = user.output().uses[0].user
            if listed.kind == prim.ListConstruct and len(listed.output().uses) == 1 and \
                    listed.output().uses[0].user in cats:
                continue
        schema = user.schema
        if schema is None or use.offset >= len(schema.arguments) or \
                schema.arguments[use.offset].alias is not None:
            return False
        read = True
    return read


@graph_pass
def rolls_as_views(graph: Graph) -> bool:
    """Rewrite the rolls of each array that only get read as views of one wrapped copy of it
    (the module's docstring); whether any was."""
    rolls = _rolls(graph.block)
    cats = {r.cat for r in rolls}
    # (a roll that only another roll reads is not taken: the outer one's window replaces both)
    taken = [r for r in rolls if _only_read(r, cats)]
    by_root: dict[tuple[Value, Block], list[_Roll]] = {}
    for roll in taken:
        by_root.setdefault((roll.root, roll.cat.owning_block), []).append(roll)
    for (root, _), group in by_root.items():
        _rewrite(graph, root, group)
    return bool(by_root)


def _rewrite(graph: Graph, root: Value, rolls: list[_Roll]) -> None:
    dims = sorted({d for r in rolls for d in r.shifts})
    lo = {d: max(0, max(r.shifts.get(d, 0) for r in rolls)) for d in dims}
    hi = {d: max(0, max(-r.shifts.get(d, 0) for r in rolls)) for d in dims}
    rank = root.type.rank
    pads = []
    for d in range(rank):
        pads += [lo.get(d, 0), hi.get(d, 0)]
    first = rolls[0].cat
    with graph.inserting_before(first):
        pad = graph.insert(WRAP_PAD, [root, graph.insert_constant(pads)])
        pad.output().type = root.type.dimensioned_only()
        pad.copy_location(first)
        for roll in rolls:
            with graph.inserting_before(roll.cat):
                view = pad.output()
                for d in dims:
                    s = roll.shifts.get(d, 0)
                    start, end = lo[d] - s, -(hi[d] + s)
                    cut = graph.insert(aten.slice, [
                        view, graph.insert_constant(d), graph.insert_constant(start),
                        graph.insert_constant(end if end else None),
                        graph.insert_constant(1)])
                    cut.output().type = roll.cat.output().type.dimensioned_only()
                    cut.copy_location(roll.cat)
                    view = cut.output()
                out = roll.cat.output()
                for use in list(out.uses):
                    if use.user.kind == aten.size:       # (a roll keeps the shape)
                        use.user.replace_input(use.offset, root)
                out.replace_all_uses_with(view)


__all__ = ["WRAP_PAD", "roll_of", "rolls_as_views"]
