"""Maps of one array that feed nothing of each other, in one fusion group (for ``@fusejit.jit``,
beyond PyTorch).

PyTorch's fuser merges a producer into its consumer; maps that only share an input stay apart,
each a pass over the array::

    def bucket_and_phase(t, period):
        return t // period, t % period          # two NumPy calls, two passes over t

This pass puts such siblings in one ``prim::FusionGroup`` with an output each, so one kernel
reads the array once and writes both. Candidates are fusion groups of maps (no chunks or
concats) and lone maps; they join when they read the same arrays and no others (numbers and
0-d tensors aside: ``t`` alone above, ``x`` and ``y`` in ``np.minimum(x, y), np.maximum(x,
y)``), so every output has their broadcast shape and the kernel's iteration shape is it.
Groups stay convex and run at the last member's place, where nothing in between may have
written what they read (``reduction_fusion``'s rules). Runs after ``fuse_more_maps``
and before the reduction groups, which may then take the merged group in.
"""

from __future__ import annotations

from ..ir.graph import Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import TensorType
from .alias_analysis import AliasDb
from .more_maps import jit_map
from .pass_checks import graph_pass
from .reduction_fusion import blocks_within, convex, make_group, placeable, unwritten

_SHIFTED = frozenset({prim.ConstantChunk, prim.FusedConcat})


@graph_pass
def fuse_sibling_maps(graph: Graph) -> bool:
    """Merge the maps of each block that read one array alone (see the module's docstring);
    True if any merged."""
    changed = False
    db: AliasDb | None = None
    for block in blocks_within(graph.block):
        by_arrays: dict[frozenset[Value], list[Node]] = {}
        for node in block.nodes():
            arrays = _arrays_read(node)
            if arrays is not None:
                by_arrays.setdefault(arrays, []).append(node)
        for members in by_arrays.values():
            if len(members) < 2:
                continue
            db = db or AliasDb(graph)
            if convex(members) and placeable(members) and unwritten(members, db):
                make_group(graph, members, prim.FusionGroup)
                changed = True
                db = None       # (the graph changed: analysed again when next needed)
    return changed


def _arrays_read(node: Node) -> frozenset[Value] | None:
    """The arrays ``node`` reads, when it is a map or a group of maps reading those arrays
    and numbers only (0-d tensors count as numbers), with tensor outputs of their broadcast
    rank: maps reading the same arrays have the same shape (``np.minimum(x, y)`` beside
    ``np.maximum(x, y)``)."""
    if node.kind == prim.FusionGroup:
        sub = node.g("Subgraph")
        if node.attribute_names() != ["Subgraph"] or \
                any(n.kind in _SHIFTED for n in sub.nodes()):
            return None
    elif len(node.outputs) != 1 or not jit_map(node):
        return None
    arrays = frozenset(v for v in node.inputs
                       if isinstance(v.type, TensorType) and v.type.rank != 0)
    ranks = {v.type.rank for v in arrays}
    if not arrays or None in ranks:
        return None
    rank = max(ranks)
    if not all(isinstance(out.type, TensorType) and out.type.rank == rank
               for out in node.outputs):
        return None
    return arrays


__all__ = ["fuse_sibling_maps"]
