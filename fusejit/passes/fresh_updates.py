"""In-place updates of arrays nobody else holds, as values, in straight-line code (for
``@fusejit.jit``, beyond PyTorch).

NumPy written for memory updates a new array in place, one statement at a time::

    y = x.copy()
    y -= y.mean(axis=-1, keepdims=True)     # aten::sub_(%y, aten::mean(%y, ...))
    y /= np.sqrt(np.square(y).mean(axis=-1, keepdims=True) + eps)
    y *= gamma
    y += beta
    return y

Each update writes one array, so the fuser's groups end at each of them: a layer norm written
so ran as five kernels and a copy, 0.67x NumPy's time at 8192 x 512 float32. But ``y`` is a new
array (a copy, a fill, a map) that no view, list or other name holds, so an update changes only
what the later reads of ``y`` see, and each can be a new value instead: its out-of-place op (cast
to ``y``'s dtype as the in-place op casts), read by every later use of ``y``. The graph is then
the out-of-place layer norm, which ``fuse_row_reductions`` makes one row kernel.

A chain qualifies (``_chain``) where its array is made in the updates' block (``_new_array``: a
copy, a fill, a map or a reduction), every update is a node of that block with a value that
casts to the array as the in-place op would (``carried_arrays._casts``), and every other use of
the array and of its updated values, in that block or in later nodes' blocks, reads it only
(``reads_only``: no view, list or unknown op could see a later write). Reads before an update
keep reading the value before it; reads after it, and the block's result, read its value.

An in-place update never changes the array's shape: ``y *= w`` raises where ``w`` would
broadcast ``y`` to a larger one. An operand that is a number, a map of the array's values and
numbers, or a reduction of them with ``keepdims`` cannot grow it; for any other (``gamma``),
the chain's last value is checked against the array's first shape (``fusejit::kept_shape``,
raising at the first such update's line): a value that grew at an update stays grown through
the maps after it. The check comes after nodes that would otherwise have run before the error,
so the chain qualifies then only where each of them writes nothing the caller can see and has
no side effects (``carried_arrays._harmless``), and only where something the function returns
comes from that last value (else the check would be dead code, removed with it).
``fuse_graph`` is unchanged; the executor runs this before it, on CPU plans of
``@fusejit.jit``.
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL, INT, TensorType
from .alias_analysis import AliasDb, _same_block_ancestor, has_side_effects
from .carried_arrays import (
    _UPDATES,
    _dtype,
    _fresh,
    _harmless,
    _kept,
    _read_current,
    _updates,
    _value_of,
)
from .dead_code_elimination import eliminate_dead_code
from .fresh_stores import _SAME_ARRAY
from .more_maps import computed_from_any, is_map
from .pass_checks import graph_pass
from .raising import located, raise_unless
from .reduction_fusion import blocks_within

# The error of an in-place update whose operand would broadcast the array to a larger shape
# (NumPy's ValueError, its shapes left out: the check reads sizes, not the arrays).
GROWS_MESSAGE = ("ValueError: non-broadcastable output operand: an operand of an in-place "
                 "update would broadcast the array to a larger shape")
# Reductions whose result with keepdims is no larger than their input.
_KEEPDIM_REDUCTIONS = {aten.sum: 2, aten.mean: 2, aten.amax: 2, aten.amin: 2, aten.var: 3,
                       aten.std: 3}


@graph_pass
def functionalize_fresh_updates(graph: Graph) -> bool:
    """Replace the in-place updates of each new array nobody else holds by their values (see
    the module's docstring); True if any was."""
    changed = False
    for block in list(blocks_within(graph.block)):
        db = None
        for node in list(block.nodes()):
            if node.owning_block is not block or len(node.outputs) != 1 or not any(
                    u.user.kind in _UPDATES and u.offset == 0 for u in node.output().uses):
                continue
            db = db or AliasDb(graph)
            if not _new_array(node.output(), db):
                continue
            updates = _chain(node.output(), block, db)
            if updates:
                _rewrite(graph, node.output(), block, updates)
                changed = True
                db = None
    if changed:
        eliminate_dead_code(graph)
    return changed


def _new_array(value: Value, db: AliasDb) -> bool:
    """Is ``value`` a new array of known dtype and rank: a copy, a fill, a map
    (``carried_arrays._fresh``), or any op's result the alias analysis finds its node makes
    (``made_here``: a reduction's, ``x.mean(axis=-1, keepdims=True)``), but an op that may give
    its input back (``type_as``)?"""
    if _fresh(value):
        return True
    node = value.node
    return _dtype(value) is not None and node.kind.ns == "aten" and \
        node.kind not in _SAME_ARRAY and db.made_here(value)


def _chain(start: Value, block: Block, db: AliasDb) -> list[Node] | None:
    """The updates, in order, of the new array ``start`` in ``block``, where it qualifies."""
    found = _updates(start, block, db, None, any_result=True)
    if found is None:
        return None
    updates, members = found
    if any(u.kind == aten.sub_ and _dtype(u.input(1)) == np.bool_ for u in updates):
        return None     # (NumPy subtracts a mask from integers in place; aten::sub refuses)
    unproven = next((u for u in updates if not _no_larger(u.input(1), members)), None)
    if unproven is None:
        return updates
    if not all(_harmless(n) for n in block.nodes()
               if n.is_after(unproven) and n.is_before(updates[-1])):
        return None
    if _growths(start, updates, members) is not None:
        return updates      # (checked on shapes alone: an if that raises, which DCE keeps)
    if block.owning_node is None and _reaches_result(members, updates[-1], block):
        # (the check reads the last value: where nothing the function returns comes from it,
        # dead-code elimination would drop the check with it, and an update that grew the
        # array would raise nothing)
        return updates
    return None


def _growths(start: Value, updates: list[Node], members: set[Value]) \
        -> tuple[list[Value], list[Value]] | None:
    """Where ``start`` is a map (``gs = u[:-2] + u[2:]``), its shape is its tensor operands'
    broadcast: (those operands, the updates' operands that might grow it), when every one of
    those is of no higher rank, so that a check of their sizes alone (``_check_growths``)
    tells whether one grows the array; else None."""
    node = start.node
    leaves = [v for v in node.inputs if isinstance(v.type, TensorType)]
    rank = start.type.rank
    if not leaves or not is_map(node) or rank is None or \
            any(v.type.rank is None for v in leaves):
        return None
    grows = [u.input(1) for u in updates if not _no_larger(u.input(1), members)]
    if any(not isinstance(v.type, TensorType) or v.type.rank is None or v.type.rank > rank
           for v in grows):
        return None
    return leaves, grows


def _check_growths(graph: Graph, at: Node, leaves: list[Value], grows: list[Value],
                   rank: int) -> None:
    """Before ``at``: raise NumPy's error unless each of ``grows`` broadcasts into the shape
    ``leaves`` broadcast to (of ``rank`` dims): along each of its dims, its size is 1 or one
    of the leaves' (the leaves broadcast already, so any size of theirs but 1 is the
    array's)."""
    def op(kind, inputs, type_):
        return located(graph, at, kind, inputs, type_)

    with graph.inserting_before(at):
        one = graph.insert_constant(1)
        ok = None
        for grow in grows:
            for k in range(grow.type.rank):
                d = k + rank - grow.type.rank
                size = op(aten.size, [grow, graph.insert_constant(k)], INT)
                fits = op(aten.eq, [size, one], BOOL)
                for leaf in leaves:
                    j = d - (rank - leaf.type.rank)
                    if j >= 0:
                        theirs = op(aten.size, [leaf, graph.insert_constant(j)], INT)
                        fits = op(aten["__or__"], [fits, op(aten.eq, [size, theirs], BOOL)],
                                  BOOL)
                ok = fits if ok is None else op(aten["__and__"], [ok, fits], BOOL)
    if ok is not None:      # (0-d operands: nothing can grow)
        raise_unless(graph, at, ok, GROWS_MESSAGE)


def _reaches_result(members: set[Value], last: Node, block: Block) -> bool:
    """Does something the function returns, or a node with side effects, come from the array's
    last value: from a read of any of its names after its ``last`` update (NumPy's ``out=``
    leaves the name bound to the array, ``np.maximum(c, 0, out=c)`` whose result is unused),
    through any ops of ``block`` or the nodes holding the blocks that read it? Dead-code
    elimination then keeps what reads it."""
    seen: set[Node] = set()
    pending = [use.user for m in members for use in m.uses]
    while pending:
        user = _same_block_ancestor(pending.pop(), block)
        if user is None or user in seen or user is last or \
                user is not block.return_node and not user.is_after(last):
            continue
        if user is block.return_node or has_side_effects(user):
            return True
        seen.add(user)
        pending += [use.user for out in user.outputs for use in out.uses]
    return False


def _no_larger(value: Value, members: set[Value]) -> bool:
    """Is ``value`` no larger than the array: a number, a map of its values and numbers, or a
    reduction of such a value with keepdims (``y.mean(axis=-1, keepdims=True)``)?"""
    if computed_from_any(value, members):
        return True
    node = value.node
    at = _KEEPDIM_REDUCTIONS.get(node.kind)
    return at is not None and len(node.inputs) > at and \
        node.input(at).node.kind == prim.Constant and \
        constant_value(node.input(at).node) is True and \
        isinstance(node.input(0).type, TensorType) and \
        node.input(0).type.rank == value.type.rank and \
        computed_from_any(node.input(0), members)


def _rewrite(graph: Graph, start: Value, block: Block, updates: list[Node]) -> None:
    """Replace ``updates`` by their values, each read of the array by the value the updates
    before it have made, and check the last value's shape where an operand might have grown
    it."""
    target = _dtype(start)
    members = {start} | {u.output() for u in updates}
    unproven = next((u for u in updates if not _no_larger(u.input(1), members)), None)
    growths = _growths(start, updates, members) if unproven is not None else None
    current = start
    for node in list(block.nodes()):
        if not node.is_after(start.node):
            continue
        _read_current(node, members, current)
        if node in updates:
            with graph.inserting_before(node):
                current = _value_of(graph, node, current, target)
            if node is updates[-1] and unproven is not None and growths is not None:
                _check_growths(graph, node, *growths, start.type.rank)
            elif node is updates[-1] and unproven is not None:
                with graph.inserting_before(node):
                    shape = start.node.input(0) if start.node.kind == aten.clone else start
                    current = _kept(graph, current, shape, unproven)
            members.add(current)
    _read_current(block.return_node, members, current)
    for node in reversed(updates):
        node.destroy()


__all__ = ["functionalize_fresh_updates"]
