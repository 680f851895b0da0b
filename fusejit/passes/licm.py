"""Loop-invariant code motion: pure nodes of a ``prim::Loop`` body that compute the same value
in every iteration move to just before the loop, so they run once::

    %y = prim::Loop(%n, %true, %h0)              %wt = aten::t(%w)
      block0(%i : int, %h : Tensor):             %a = aten::matmul(%x, %wt)
        %wt = aten::t(%w)                ==>     %y = prim::Loop(%n, %true, %h0)
        %a = aten::matmul(%x, %wt)                 block0(%i : int, %h : Tensor):
        %h2 = aten::add(%a, %h, %one)                %h2 = aten::add(%a, %h, %one)
        -> (%true, %h2)                              -> (%true, %h2)

Before differentiation this is what makes an RNN's ``x @ W.T`` leave the loop: the forward
computes it once, and its backward sums the gradient over the iterations before one matmul
instead of running one per iteration.

A node moves when every value it reads (its blocks' free values included) is defined outside
the loop or by a node already moved, and it is *pure* in the sense of ``AliasDb``: no side
effects, not nondeterministic, writes nothing, reads nothing the loop writes, and nothing in
the graph writes what its outputs point to (a tensor made fresh in each iteration and then
written in place must stay fresh). Nested loops are done from the inside out, so a value
invariant in both leaves both; a ``prim::If`` (or inner loop) moves as a whole or not at all:
nodes inside a branch never run speculatively. A list or tuple construction moves only with a
reader that moves (a ``cat`` keeps its list beside it).

Moving a node before the loop runs it even when the loop would run zero times, and before the
body nodes that precede it. So a node that may raise (a matmul of mismatched sizes, ``t`` of
a 3-d tensor) moves only when the loop surely runs (constant trip count of at least 1 and a
constant true condition: trip counts of ``fusejit.grad`` are constants, ``staged.py``) and
every body node that stays ahead of it has no observable effect. Nodes that cannot raise
(``_CANNOT_RAISE``) move from any loop.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import NONDETERMINISTIC, aten, prim
from .alias_analysis import AliasDb, has_side_effects
from .pass_checks import graph_pass

__all__ = ["loop_invariant_code_motion", "values_defined_in"]

_PACKS = frozenset({prim.ListConstruct, prim.TupleConstruct})
# Kinds that return a value for any inputs of their schema's types: they may run even where
# the loop would not have. (aten::size of a tensor, not of a dim: that one checks the dim.)
_CANNOT_RAISE = frozenset({
    prim.Constant, prim.ListConstruct, prim.TupleConstruct, prim.dtype, prim.device,
    aten.dim, aten.len,
})


@graph_pass
def loop_invariant_code_motion(graph: Graph) -> bool:
    """Move the loop-invariant pure nodes of every ``prim::Loop`` body before their loop
    (innermost loops first); True if any node moved."""
    if not any(node.kind == prim.Loop for node in graph.all_nodes()):
        return False   # (the common case in the fusion pipeline: no alias analysis)
    db = AliasDb(graph)
    written = db.written_locations()
    return _hoist_in_block(graph.block, db, written)


def _hoist_in_block(block: Block, db: AliasDb, written: set[int]) -> bool:
    changed = False
    for node in list(block.nodes()):
        for inner in node.blocks:
            changed |= _hoist_in_block(inner, db, written)
        if node.kind == prim.Loop:
            changed |= _hoist_from_loop(node, db, written)
    return changed


def _hoist_from_loop(loop: Node, db: AliasDb, written: set[int]) -> bool:
    body = loop.blocks[0]
    loop_writes = db.get_writes(loop)
    inside = set(values_defined_in(body))
    # May a node that can raise run before the loop? Only while everything ahead of it in
    # the first iteration, which surely runs, had no effect that an error would reveal.
    may_raise = _surely_runs(loop)
    # Invariant lists and tuples leave only with a reader that leaves: alone they cost nothing,
    # and a cat or unpack keeps its list beside it (the fuser looks for that).
    pending: dict[Value, Node] = {}
    moved = False
    for node in list(body.nodes()):
        if (not any(v in inside and v not in pending for v in _free_values(node))
                and (may_raise or _cannot_raise(node))
                and _pure(node, db, loop_writes, written)):
            if node.kind in _PACKS:
                pending.update((out, node) for out in node.outputs)
                continue
            _move_out(node, loop, inside, pending)
            moved = True
        elif has_side_effects(node) or db.get_writes(node):
            may_raise = False
    return moved


def _move_out(node: Node, loop: Node, inside: set[Value], pending: dict[Value, Node]) -> None:
    """Move ``node`` before ``loop``, the pending lists and tuples it reads first."""
    for v in list(_free_values(node)):
        pack = pending.pop(v, None)
        if pack is not None:
            _move_out(pack, loop, inside, pending)
    node.move_before(loop)
    inside.difference_update(node.outputs)


def _surely_runs(loop: Node) -> bool:
    """A constant trip count of at least 1 and a constant true start condition."""
    trip, cond = loop.input(0), loop.input(1)
    return (trip.node.kind == prim.Constant and isinstance(constant_value(trip.node), int)
            and constant_value(trip.node) >= 1
            and cond.node.kind == prim.Constant and constant_value(cond.node) is True)


def _cannot_raise(node: Node) -> bool:
    if node.kind == aten.size:
        return len(node.inputs) == 1
    return node.kind in _CANNOT_RAISE and not node.blocks


def _pure(node: Node, db: AliasDb, loop_writes: set[int] | frozenset[int],
          written: set[int]) -> bool:
    """No effects, same value every time, and nothing it reads or makes is written."""
    if has_side_effects(node) or _nondeterministic(node) or db.get_writes(node):
        return False
    if db.get_reads(node) & loop_writes:
        return False
    return not db.output_locations(node) & written


def _nondeterministic(node: Node) -> bool:
    return node.kind in NONDETERMINISTIC or any(
        _nondeterministic(n) for b in node.blocks for n in b.nodes())


def values_defined_in(block: Block) -> Iterator[Value]:
    """The block's inputs and every value its nodes define, nested blocks included."""
    yield from block.inputs
    for node in block.nodes():
        yield from node.outputs
        for inner in node.blocks:
            yield from values_defined_in(inner)


def _free_values(node: Node) -> Iterator[Value]:
    """The values ``node`` reads: its inputs and those its blocks read from outside it."""
    yield from node.inputs
    if node.blocks:
        own = {v for b in node.blocks for v in values_defined_in(b)}
        for v in _block_reads(node):
            if v not in own:
                yield v


def _block_reads(node: Node) -> Iterator[Value]:
    for b in node.blocks:
        for inner in b.nodes():
            yield from inner.inputs
            yield from _block_reads(inner)
        yield from b.outputs
