"""Sums accumulated into a fresh array of zeros, as one update (for ``@fusejit.jit``, beyond
PyTorch).

A NumPy user adds terms up into an array of zeros::

    n = np.zeros(b.shape, dtype=np.int8)
    for di, dj in offsets:                      # (a loop of constant trips: unrolled)
        n += np.roll(np.roll(b, di, 0), dj, 1)

Each ``+=`` is an ``aten::add_`` that reads and writes all of ``n``: eight passes, none of which
the fuser takes (an update of an array that no group computes). When the array was zeros, is
read by nothing but the next update, and the terms need no rounding of their own, the sum is
the same computed first and added once::

    %n1 = aten::zeros(...)                      %n1 = aten::zeros(...)
    %n2 = aten::add_(%n1, %a, %1)      ==>      %a8 = aten::type_as(%a, %n1)
    %n3 = aten::add_(%n2, %b, %1)               %t = aten::add(%a8, %b, %1)
                                                %n3 = aten::add_(%n1, %t, %1)

and the fuser makes one kernel of the terms, which ``fuse_inplace_updates`` then writes into
``n`` (the runtime checks there that ``n`` has the sum's shape, as ``+=`` would raise). The
same values: on integers, sums wrap the same way in any order; on floats every term has the
array's dtype, and ``((0 + a) + b) + ...`` is ``(a + b) + ...`` term by term (and the final
``0 + t`` turns a -0.0 into 0.0 as the first ``0 + a`` did). ``-=`` takes a term's negation
(exact). The first term is cast to the array's dtype (bools add as 0 and 1, not as ``or``).
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import ScalarType, TensorType
from .pass_checks import graph_pass

_ZEROS = frozenset({aten.zeros, aten.zeros_like})
_FILLS = frozenset({aten.full, aten.full_like})     # (np.zeros_like: a fill of 0)
_STEPS = {aten.add_: aten.add, aten.sub_: aten.sub}


def _dtype(value: Value) -> np.dtype | None:
    t = value.type
    return t.dtype if isinstance(t, TensorType) and t.scalar_type is not None else None


def _step(node: Node, target: np.dtype) -> bool:
    """Is ``node`` ``x += v`` or ``x -= v`` (alpha 1) by an array whose terms sum as the
    updates would: any integer or bool into integers, the array's own dtype (or bools) into
    floats?"""
    if node.kind not in _STEPS or len(node.inputs) != 3 or \
            node.input(2).node.kind != prim.Constant or constant_value(node.input(2).node) != 1:
        return False
    term = _dtype(node.input(1))
    if term is None:
        return False
    if target.kind in "iu":
        return term.kind in "iub"
    return target.kind == "f" and (term == target or term.kind == "b")


def _chain(start: Node) -> list[Node]:
    """The updates of the zeros ``start`` makes, each the one use of the value before it, in
    its block."""
    target = _dtype(start.output())
    chain: list[Node] = []
    value = start.output()
    while target is not None and len(value.uses) == 1:
        user = value.uses[0].user
        if value.uses[0].offset != 0 or user.owning_block is not start.owning_block or \
                not _step(user, target) or user.input(1) is value:
            break
        chain.append(user)
        value = user.output()
    return chain


@graph_pass
def sum_fresh_accumulations(graph: Graph) -> bool:
    """Rewrite each run of two or more ``+=``/``-=`` into a fresh array of zeros as the sum of
    its terms added once (the module's docstring); whether any was."""
    changed = False
    for node in list(graph.all_nodes()):
        if _makes_zeros(node):
            chain = _chain(node)
            if len(chain) >= 2:
                _rewrite(graph, node.output(), chain)
                changed = True
    return changed


def _makes_zeros(node: Node) -> bool:
    """Does ``node`` make a new array of zeros (of either sign: ``-0.0 + a`` is ``a`` too)?"""
    if len(node.outputs) != 1 or not isinstance(node.output().type, TensorType):
        return False
    if node.kind in _ZEROS:
        return True
    if node.kind not in _FILLS or len(node.inputs) < 2 or node.input(1).node.kind != prim.Constant:
        return False
    fill = constant_value(node.input(1).node)
    return isinstance(fill, (int, float)) and not isinstance(fill, bool) and fill == 0


def _typed(value: Value, dtype: np.dtype, rank: int | None, like: TensorType) -> None:
    value.type = TensorType(ScalarType.from_dtype(dtype),
                            None if rank is None else (None,) * rank, None, None, like.device)


def _rewrite(graph: Graph, zeros: Value, chain: list[Node]) -> None:
    last = chain[-1]
    target = _dtype(zeros)
    like = zeros.type

    def as_target(value: Value) -> Value:
        cast = graph.insert(aten.type_as, [value, zeros])
        _typed(cast.output(), target, value.type.rank, like)
        return cast.output()

    with graph.inserting_before(last):
        one = graph.insert_constant(1)
        total = None
        for update in chain:
            term = update.input(1)
            rank = term.type.rank
            if total is None:
                if _dtype(term) != target:
                    term = as_target(term)
                if update.kind == aten.sub_:    # (a bool term is cast above: bools do not negate)
                    negated = graph.insert(aten.neg, [term])
                    _typed(negated.output(), target, rank, like)
                    term = negated.output()
                total = term
                continue
            if update.kind == aten.sub_ and _dtype(term).kind == "b":     # (bool - is refused)
                term = as_target(term)
            op = graph.insert(_STEPS[update.kind], [total, term, one])
            ranks = [total.type.rank, rank]
            _typed(op.output(), np.result_type(_dtype(total), _dtype(term)),
                   None if None in ranks else max(ranks), like)
            op.copy_location(update)
            total = op.output()
        if _dtype(total) != target:     # (wider integer terms: the sum wraps into the array's)
            total = as_target(total)
        added = graph.insert(aten.add_, [zeros, total, one])
        added.output().type = last.output().type
        added.copy_location(last)
    last.output().replace_all_uses_with(added.output())
    for update in reversed(chain):
        update.destroy()


__all__ = ["sum_fresh_accumulations"]
