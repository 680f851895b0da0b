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

The attribute is a permission: the body (``oplib/binary.py``'s ``_reusing``) writes into that
operand only where the result would be an array of its dtype and shape and big enough to gain,
and otherwise computes as before (``x[idx] + y`` with ``y`` broadcasting ``x[idx]`` to more
rows, a result that promotes, a small array). The native loop, which runs its own kernels for
these ops, ignores it. The operand must be read by this node alone: no view of it, no list,
no other node, not the graph's output, and in the node's own block (a value made before a
loop is read again on each pass).
"""

from __future__ import annotations

from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import TensorType
from ..oplib.table import REUSES, REUSING
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
    """Is ``value`` a new array made in ``node``'s block, read by ``node`` alone (``once``:
    as one of its inputs), and else only for its shape (``_SHAPE_READS``: a check of sizes
    before an in-place update, ``passes/fresh_updates.py``; the map writing into it keeps
    its shape)?"""
    made = value.node
    return (isinstance(value.type, TensorType) and made is not None
            and made.kind in _FRESH and made.owning_block is node.owning_block
            and all(use.user is node or use.user.kind in _SHAPE_READS for use in value.uses)
            and (not once or sum(use.user is node for use in value.uses) == 1))


__all__ = ["reuse_dead_temporaries"]
