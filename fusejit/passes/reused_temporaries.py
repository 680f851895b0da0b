"""Arithmetic written into a dead temporary (for ``@fusejit.jit``'s CPU plans, beyond PyTorch).

NumPy computes ``x[idx] * 2.0`` into the array ``x[idx]`` made, when that array is big and
nothing else holds it (its "temporary elision"). The interpreter ran the product into a new
array: at 10^6 float64 elements two 8 MB arrays a call where NumPy has one, and the second,
freed beside the first, made glibc give both back to the system, to be faulted in again on the
next call (~1300 page faults a call, 0.43x NumPy's time for ``x[idx] * 2.0``, 0.31x for
``x[idx] + x``). This pass marks such a node: an out-of-place add, sub, mul or div whose
operand is an array made in the same block by an op that always makes a new array (a gather,
a product, a sort, a cumulative sum, a concatenation, a copy, or another of these four), read
by nothing else::

    %g : Double(*) = aten::index(%x, %l)             %g : Double(*) = aten::index(%x, %l)
    %y : Double(*) = aten::mul(%g, %two)     ==>     %y : Double(*) = aten::mul[reuses=0](%g, %two)

A loop's array counts too where only the loop holds it (``_carried_temporary``): started as
a new array, made anew by each step, and read in a step only by the op that makes the next
one (``acc = np.zeros(n); for ...: acc += x[k:k + n]``, which ``carried_arrays`` makes a value
the loop carries). Each step's op then writes into the array the step began with.

The attribute is a permission: the body (``oplib/binary.py``'s ``_reusing``) writes into that
operand only where the result would be an array of its dtype and shape and big enough to gain,
and otherwise computes as before (``x[idx] + y`` with ``y`` broadcasting ``x[idx]`` to more
rows, a result that promotes, a small array). The native loop, which runs its own kernels for
these ops, ignores it. The operand must be read by this node alone: no view of it, no list,
no other node, not the graph's output, and in the node's own block (a value made before a
loop is read again on each pass).
"""

from __future__ import annotations

from ..ir.graph import Block, Graph, Node, Use, Value
from ..ir.symbols import aten, prim
from ..ir.types import TensorType
from ..oplib.table import REUSES, REUSING
from .carried_arrays import _MADE, KEPT_SHAPE
from .inplace_fusion import WRITTEN_INTO
from .pass_checks import graph_pass

# Ops whose body always returns a new array, shared with nothing (``x[idx]``, ``x[mask]``,
# products, ``np.sort``'s values, ``np.cumsum``, ``np.concatenate``, ``x.copy()``), and the
# maps this pass marks, whose result is a new array or their own dead temporary.
_FRESH = frozenset({
    aten.index, aten.mm, aten.matmul, "fusejit::sort_values", aten.cumsum, aten.cumprod,
    aten.cat, aten.stack, aten.clone, aten.add, aten.sub, aten.mul, aten.div})


# A row-reduction group may write an element output into a dead temporary input, as NumPy's
# ``np.cov`` subtracts the mean in place (``X -= avg[:, None]``): the group's element ops are
# these (the output loop then loses LLVM's vector loop to the overlap check, and stays
# memory-bound only for these: ``runtime/fusion/written_into.py``), its reductions any; no
# per-row view (x[:, 0] read after the row's first element is written) and no running sum.
_CHEAP_IN_ROWS = frozenset({aten.add, aten.sub, aten.mul, aten.neg, prim.Constant, aten.sum,
                            aten.mean, aten.amax, aten.amin, aten.var, aten.std})
# Uses of a temporary that read its shape only (which writing its elements leaves).
_SHAPE_READS = frozenset({aten.size, aten.dim})
# Groups, whose results are new arrays (but one written into an input).
_GROUPS = frozenset({prim.FusionGroup, prim.RowReductionGroup, prim.ColumnReductionGroup})


@graph_pass
def reuse_dead_temporaries(graph: Graph) -> bool:
    """Mark each add, sub, mul and div of ``graph`` with a dead temporary operand (see the
    module's docstring) ``reuses=<its position>``, and each row-reduction group of cheap
    element ops with a dead temporary input whose shape alone is read after it
    (``_CHEAP_IN_ROWS``; ``runtime/fusion/row_kernel.py`` writes an element output of the
    input's shape and dtype into it); True if any was."""
    changed = False
    for node in graph.all_nodes():
        if node.has_attribute(REUSES):
            continue
        if node.kind in REUSING:
            position = _dead_temporary(node)
        elif node.kind == prim.RowReductionGroup and all(
                n.kind in _CHEAP_IN_ROWS for n in node.g("Subgraph").nodes()):
            position = next((i for i, value in enumerate(node.inputs)
                             if _temporary(value, node, once=True)), None)
        else:
            continue
        if position is not None:
            node.i_(REUSES, position)
            changed = True
    return changed


def _dead_temporary(node: Node) -> int | None:
    """The position (0 or 1) of ``node``'s first operand that is a dead temporary, or None."""
    for position, value in enumerate(node.inputs[:2]):
        if _temporary(value, node):
            return position
    return None


def _temporary(value: Value, node: Node, once: bool = False) -> bool:
    """Is ``value`` a new array made in ``node``'s block (or one a loop carries, made anew
    each step: ``_carried_temporary``), read by ``node`` alone (``once``: as one of its
    inputs), and else only for its shape (``_shape_read``: a check of sizes before an
    in-place update, ``passes/fresh_updates.py``; the map writing into it keeps its shape)?"""
    made = value.node
    return (isinstance(value.type, TensorType) and made is not None
            and (made.kind in _FRESH and made.owning_block is node.owning_block
                 or made.kind == prim.Param and _carried_temporary(value, node))
            and all(use.user is node or _shape_read(use) for use in value.uses)
            and (not once or sum(use.user is node for use in value.uses) == 1))


def _shape_read(use: Use) -> bool:
    return use.user.kind in _SHAPE_READS or use.user.kind == KEPT_SHAPE and use.offset == 1


def _carried_temporary(param: Value, node: Node) -> bool:
    """Is ``param``, an array a loop carries, read in ``node``'s step only there (``node`` a
    node of the loop's body itself), an array no one else holds: the loop starts it as a new
    array read by the loop alone, and each step ends it as a new array the step made
    (``rows = rows + buf[:, dx:dx + w]`` in a loop, a value ``carried_arrays`` made of
    ``rows += ...``, after ``rows = np.zeros(...)``)? Each step's array then dies at ``node``,
    which may write into it: two arrays a step fewer, and a pass that reads and writes one
    (at 2004 x 2000 float32, 2.0 -> 1.2 ms an add)."""
    block = param.node.owning_block
    loop = block.owning_node if block is not None else None
    k = param.offset - 1
    if loop is None or loop.kind != prim.Loop or node.owning_block is not block or k < 0 or \
            len(loop.inputs) != len(block.inputs) + 1:
        return False
    start = loop.inputs[2 + k]
    made = start.node
    if made is None or len(start.uses) != 1 or not (
            made.kind in _FRESH or made.kind in _MADE or made.kind == aten.expand
            and made.input(0).node.kind == prim.Constant):
        return False        # (an expand of a constant: read-only, which the op checks)
    return _made_for_the_loop(block.outputs[1 + k], block, 1 + k)


def _made_for_the_loop(result: Value, block: Block, at: int) -> bool:
    """Is ``result``, the block's result at ``at``, a new array made in ``block`` (through
    shape checks: ``kept_shape``), each of whose names there is read only by the next check,
    the result, a group or an arithmetic op reading it into a new array, or for its shape?"""
    chain = [result]
    while chain[-1].node is not None and chain[-1].node.kind == KEPT_SHAPE and len(chain) < 8:
        chain.append(chain[-1].node.input(0))
    made = chain[-1].node
    if made is None or made.kind not in _FRESH:
        return False
    for value in chain:
        if value.node.owning_block is not block:
            return False
        for use in value.uses:
            user = use.user
            if user is block.return_node:
                if use.offset != at or value is not result:
                    return False
            elif user.kind == KEPT_SHAPE and use.offset == 0:
                if user.output() not in chain:
                    return False
            elif not (_shape_read(use) or user.kind in REUSING or user.kind in _GROUPS
                      and not user.has_attribute(WRITTEN_INTO)):
                return False
    return True


__all__ = ["reuse_dead_temporaries"]
