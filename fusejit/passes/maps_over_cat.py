"""Maps of a concatenation as a concatenation of maps (for ``@fusejit.jit``, beyond PyTorch).

PyTorch's fuser takes ``aten::cat`` as the end of a group (``prim::FusedConcat``: each piece
written where the result has it), never as its start. ``np.concatenate([x, y]) * 2`` then ran
the ``cat`` alone (a new array) and the product in a second pass (another): at 10^6 float64
elements each call made two 16 MB arrays, one more than NumPy (which multiplies its temporary
in place), and paid the page faults of fresh memory for them, 0.27x NumPy's time. A map whose
one array operand is a ``cat`` (its other operands numbers or 0-d tensors, so nothing
broadcasts along the pieces) is the ``cat`` of the map of each piece::

    %l = prim::ListConstruct(%x, %y)           %a = aten::mul(%x, %2)
    %c = aten::cat(%l, 0)              ==>     %b = aten::mul(%y, %2)
    %m = aten::mul(%c, %2)                     %l2 = prim::ListConstruct(%a, %b)
                                               %m = aten::cat(%l2, 0)

and the fuser makes one kernel of the maps and the concatenation, writing the result once.
The ``cat`` stays where other nodes read it. Pieces of another dtype than the result (a
``cat`` that promotes) are left alone, and so is a ``cat`` whose result or pieces are written
between it and the map (the maps of the pieces read them where the map was). ``fuse_graph``
is unchanged; the executor runs this before it, on CPU plans of ``@fusejit.jit``.
"""

from __future__ import annotations

from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import TensorType
from .alias_analysis import AliasDb
from .more_maps import jit_map
from .pass_checks import graph_pass


@graph_pass
def distribute_maps_over_cat(graph: Graph) -> bool:
    """Rewrite each map of a ``cat`` as the ``cat`` of the maps of its pieces (see the
    module's docstring); True if any was."""
    # (one pass in program order: a rewrite removes only the map and the cat and list before
    # it, and the map that reads its new cat comes later)
    changed = False
    db = None
    for node in list(graph.all_nodes()):
        joined = _joined_operand(node)
        if joined is None:
            continue
        if db is None:
            db = AliasDb(graph)
        if _written_between(db, node.input(joined).node, node):
            continue
        _distribute(graph, node, joined)
        changed = True
        db = None       # (the rewrite added nodes: analysed again at the next candidate)
    return changed


def _written_between(db: AliasDb, cat: Node, node: Node) -> bool:
    """Is the ``cat``'s result or one of its pieces written after ``cat`` and before
    ``node``? (``t = np.concatenate([x, y]); np.copyto(t, z); t * 2`` maps what ``z``
    wrote; ``x += 1`` there would change a piece the maps would read.)"""
    listed = cat.input(0).node
    locs = db.locations(cat.output())
    for piece in listed.inputs:
        locs |= db.locations(piece)
    return db.writes_between(cat, node, locs)


def _rank(value: Value) -> int | None:
    t = value.type
    return t.rank if isinstance(t, TensorType) else None


def _joined_operand(node: Node) -> int | None:
    """The position of ``node``'s one array operand where that is a ``cat`` of pieces of
    its dtype and rank in ``node``'s block, and ``node`` a map whose other operands are
    numbers or 0-d tensors; None otherwise."""
    if len(node.outputs) != 1 or not jit_map(node):
        return None
    arrays = [i for i, v in enumerate(node.inputs)
              if isinstance(v.type, TensorType) and v.type.rank != 0]
    if len(arrays) != 1:
        return None
    joined = node.input(arrays[0])
    cat = joined.node
    if cat.kind != aten.cat or cat.owning_block is not node.owning_block or \
            len(cat.inputs) != 2 or cat.input(1).node.kind != prim.Constant:
        return None
    listed = cat.input(0).node
    if listed.kind != prim.ListConstruct or len(listed.inputs) < 2:
        return None
    t = joined.type
    if not isinstance(t, TensorType) or t.rank is None or t.scalar_type is None or \
            _rank(node.output()) != t.rank:
        return None
    for piece in listed.inputs:
        p = piece.type
        if not isinstance(p, TensorType) or p.rank != t.rank or p.scalar_type != t.scalar_type:
            return None
    return arrays[0]


def _distribute(graph: Graph, node: Node, position: int) -> None:
    cat = node.input(position).node
    listed = cat.input(0).node
    out = node.output()
    pieces = []
    with graph.inserting_before(node):
        for piece in listed.inputs:
            mapped = graph.create_clone(node, lambda v, p=piece: p if v is cat.output() else v)
            graph.insert_node(mapped)
            mapped.output().type = out.type.dimensioned_only()   # (a piece's sizes)
            pieces.append(mapped.output())
        joined = graph.insert(prim.ListConstruct, pieces)
        joined.output().type = listed.output().type
        new_cat = graph.insert(aten.cat, [joined.output(), cat.input(1)])
        new_cat.output().type = out.type.dimensioned_only()
        new_cat.copy_location(cat)
    out.replace_all_uses_with(new_cat.output())
    node.destroy()
    if not cat.output().uses:
        cat.destroy()
        if not listed.output().uses:
            listed.destroy()


__all__ = ["distribute_maps_over_cat"]
