"""Sorting for values only (for ``@fusejit.jit``, beyond PyTorch).

The frontend writes ``np.sort(x)`` as ``x`` taken in its ``argsort`` order, so that a
gradient goes back to where each value came from; ``np.median`` and ``np.percentile`` read a
few elements of that sorted array. Run as written, that is a stable argsort, a gather, and for
the median a whole sort to read two elements: 10^4 float64, ``np.sort`` 0.38x NumPy's time,
``np.median`` 0.07x (NumPy selects them with ``np.partition``, in linear time). Where the
values are all a call needs (this runs on the plans ``@fusejit.jit`` executes, after any
gradient was taken), this pass computes only them::

    %o = aten::argsort(%x, 0, False)           %s = fusejit::sort_values(%x, 0)
    %l = prim::ListConstruct(%o)         ==>   (the values np.sort gives: its own call)
    %s = aten::index(%x, %l)

and ``np.take_along_axis``'s form of the same along axis ``d`` of an array (its other axes
indexed by their positions, each an ``arange`` shaped to broadcast) is ``sort_values(%x, d)``::

    %s = fusejit::sort_values(%x, 0)           %s = fusejit::select_sorted(%x, [%k0, %k1])
    %a = aten::select(%s, 0, %k0)        ==>   %a = aten::select(%s, 0, %k0)
    %b = aten::select(%s, 0, %k1)              %b = aten::select(%s, 0, %k1)

``fusejit::select_sorted`` is ``np.partition`` at the positions read (the sorted values
there, NumPy's own for its median); where a position is out of range it sorts, and the
select raises its error as before. It applies to sorts of vectors only (``np.sort(x)``, the
median and percentiles of a flattened array), where every use of the sorted array is a select of
one of its elements or its length, and every position read is computed before the first
read (or by ops on numbers and 0-d arrays, and lengths, that can move there: ``n // 2``).
Later sorts of the same (flattened) vector read the first where the graph writes nothing and
one partition can serve all their reads (``_share_sorts``: ``np.percentile(x, [5, 95])``, whose
stand-in runs once for each q, and ``np.median(x)`` beside it). ``fuse_graph`` is unchanged.
"""

from __future__ import annotations

from ..ir.graph import Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import BoolType, FloatType, IntType, ListType, ScalarType, TensorType
from .alias_analysis import AliasDb, _same_block_ancestor
from .pass_checks import graph_pass

SORT_VALUES = "fusejit::sort_values"
SELECT_SORTED = "fusejit::select_sorted"


@graph_pass
def sort_values_only(graph: Graph) -> bool:
    """Rewrite the sorts whose values alone are read (see the module's docstring); True if
    any was."""
    changed = False
    for node in list(graph.all_nodes()):
        if node.kind == "aten::index" and _sorted_gather(node):
            _sort_values(graph, node)
            changed = True
    sorts = [node for node in graph.all_nodes() if node.kind == SORT_VALUES]
    if len(sorts) > 1:
        _share_sorts(sorts, AliasDb(graph))
    for node in [node for node in graph.all_nodes() if node.kind == SORT_VALUES]:
        changed |= _select_sorted(graph, node)
    return changed


def _share_sorts(sorts: list[Node], db: AliasDb) -> None:
    """Later sorts of a vector one sort already made, in its block, read that one instead
    (``np.percentile(x, [5, 95])``: one sort per q as written; one partition at every position
    read then), where nothing between the two writes what either sorts (``img -= lo`` after
    the percentiles of ``img``, or before both, leaves them one) and every position the reads
    of both take is available before their first read (else each keeps its own partition)."""
    first: dict[tuple, Node] = {}
    for sort in sorts:
        if not _vector(sort.input(0)):
            continue
        source = _flattened_from(sort.input(0))
        key = (source, _constant(sort.input(1)), sort.owning_block)
        kept = first.setdefault(key, sort)
        sorted_memory = set().union(*(db.locations(v)
                                      for v in (source, kept.input(0), sort.input(0))))
        if kept is sort or db.writes_between(kept, sort, sorted_memory):
            continue
        reads = _reads(sort)
        for size in reads[1] if reads is not None else ():  # (the kept sort's input's length)
            size.replace_input(0, kept.input(0))
        if _readable_together([kept, sort]):
            sort.output().replace_all_uses_with(kept.output())
            sort.destroy()


def _flattened_from(value: Value) -> Value:
    """The array ``value`` flattens (``x.reshape(-1)``, each call of a shim its own), else
    ``value``."""
    while value.node.kind == "aten::reshape" and _constant(value.node.input(1)) == [-1]:
        value = value.node.input(0)
    return value


def _readable_together(sorts: list[Node]) -> bool:
    """Could one partition serve every read of ``sorts``' values (``_select_sorted``'s
    conditions over all of them)?"""
    selects = []
    for sort in sorts:
        reads = _reads(sort)
        if reads is None:
            return False
        selects += reads[0]
    first = _earliest(selects)
    return all(_position_before(user, first) for user in selects)


def _reads(sort: Node) -> tuple[list[Node], list[Node]] | None:
    """The selects of one element (of ``sort``'s block, at least one) and the lengths that
    are every use of ``sort``'s values, else None."""
    selects, sizes = [], []
    for use in sort.output().uses:
        user = use.user
        if user.kind == "aten::select" and use.offset == 0 and _constant(user.input(1)) in (0, -1):
            selects.append(user)
        elif user.kind == "aten::size" and len(user.inputs) == 2 and \
                _constant(user.input(1)) in (0, -1):
            sizes.append(user)
        else:
            return None
    if not selects or any(user.owning_block is not sort.owning_block for user in selects):
        return None
    return selects, sizes


def _earliest(nodes: list[Node]) -> Node:
    """The first of ``nodes`` (of one block) in program order."""
    first = nodes[0]
    for node in nodes:
        if node.is_before(first):
            first = node
    return first


def _position_before(select: Node, first: Node) -> bool:
    """Is the position ``select`` reads an int available before ``first`` (``_available``,
    which moves it there)?"""
    k = select.input(2)
    return isinstance(k.type, IntType) and _available(k, first)


def _vector(value: Value) -> bool:
    return isinstance(value.type, TensorType) and value.type.rank == 1 and \
        value.type.scalar_type is not None


def _constant(value: Value):
    if value.node.kind != prim.Constant:
        return None
    from ..ir.constants import constant_value

    return constant_value(value.node)


def _sorted_gather(node: Node) -> bool:
    """``aten::index(x, [aten::argsort(x, d, False)])`` of a vector, or ``np.take_along_axis``'s
    form of it along axis ``d`` of an array (each other axis ``k`` indexed by
    ``arange(x.shape[k])`` shaped to broadcast), the order read there alone."""
    x, listed = node.input(0), node.input(1)
    rank = x.type.rank if isinstance(x.type, TensorType) else None
    if not rank or x.type.scalar_type is None or listed.node.kind != prim.ListConstruct or \
            len(listed.uses) != 1 or len(listed.node.inputs) != rank:
        return False
    along = _sort_axis(x, listed.node.inputs)
    return along is not None and all(
        _positions_along(index, x, k, rank)
        for k, index in enumerate(listed.node.inputs) if k != along)


def _sort_axis(x: Value, indices: list[Value]) -> int | None:
    """The axis whose index is the stable ascending ``argsort`` of ``x`` along it (read
    there alone), else None."""
    orders = [k for k, index in enumerate(indices) if index.node.kind == "aten::argsort"]
    if len(orders) != 1:
        return None
    along, order = orders[0], indices[orders[0]]
    argsort = order.node
    dim = _constant(argsort.input(1))
    if argsort.input(0) is not x or len(order.uses) != 1 or not isinstance(dim, int) or \
            not -len(indices) <= dim < len(indices) or dim % len(indices) != along or \
            _constant(argsort.input(2)) is not False:
        return None
    return along


def _positions_along(index: Value, x: Value, k: int, rank: int) -> bool:
    """Is ``index`` ``arange(0, x.shape[k], 1)`` reshaped to lie along axis ``k`` of ``rank``
    (``-1`` there, ``1`` elsewhere)?"""
    shaped = index.node
    if shaped.kind != "aten::reshape" or \
            _constant(shaped.input(1)) != [-1 if j == k else 1 for j in range(rank)]:
        return False
    arange = shaped.input(0).node
    if arange.kind != "aten::arange" or len(arange.inputs) != 7 or \
            _constant(arange.input(0)) != 0 or _constant(arange.input(2)) != 1:
        return False
    length = arange.input(1).node
    return length.kind == "aten::size" and len(length.inputs) == 2 and \
        length.input(0) is x and _constant(length.input(1)) in (k, k - rank)


def _sort_values(graph: Graph, gather: Node) -> Node:
    x, listed = gather.input(0), gather.input(1).node
    along = _sort_axis(x, listed.inputs)
    argsort = listed.input(along).node
    with graph.inserting_before(gather):
        dim = graph.insert_constant(along)
        sort = graph.insert(SORT_VALUES, [x, dim])
    sort.output().type = gather.output().type
    sort.copy_location(gather)
    gather.output().replace_all_uses_with(sort.output())
    gather.destroy()
    listed.destroy()        # (the positions along the other axes: dead code now)
    argsort.destroy()
    return sort


def _select_sorted(graph: Graph, sort: Node) -> bool:
    """``sort``'s values read only at a few positions, each known before the first read:
    ``np.partition`` at them."""
    s, x = sort.output(), sort.input(0)
    reads = _reads(sort) if _vector(x) else None
    if reads is None:
        return False
    selects, sizes = reads
    first = _earliest(selects)
    positions = []
    for user in selects:
        if not _position_before(user, first):
            return False
        if user.input(2) not in positions:
            positions.append(user.input(2))
    widened = _widened(x, first)
    for size in sizes:              # (the sorted array's length is the vector's)
        size.replace_input(0, x)
    if widened:                     # (... and the other array's: no read keeps the cast)
        for use in list(x.uses):
            if use.user.kind == "aten::size" and use.offset == 0:
                use.user.replace_input(0, widened[0])
    with graph.inserting_before(first):
        listed = graph.insert(prim.ListConstruct, positions)
        listed.output().type = ListType(IntType())
        picked = graph.insert(SELECT_SORTED, [widened[0] if widened else x, listed.output()])
    picked.output().type = widened[0].type if widened else s.type
    picked.copy_location(sort)
    s.replace_all_uses_with(picked.output())
    sort.destroy()
    if widened:
        for user in selects:        # (each value read, widened as the whole vector was)
            value = user.output()
            wide = value.type
            with graph.inserting_after(user):
                cast = graph.insert(widened[1].kind, [value, widened[1].input(1)])
            cast.output().type = wide
            cast.copy_location(user)
            value.replace_all_uses_with(cast.output())
            cast.replace_input(0, value)
            value.type = wide.with_(scalar_type=widened[0].type.scalar_type)
    return True


def _widened(x: Value, first: Node) -> tuple[Value, Node] | None:
    """Where the vector ``x`` is another array cast to float64 (``aten::type_as``: an array
    ``np.percentile`` of a list of q reads as float64, as NumPy computes) and flattened, and
    nothing writes that array from the cast to ``first`` (where the partition runs: the cast
    copied the values it had then), that array flattened (a new ``reshape`` beside ``x``'s),
    and the cast: a cast to float64 keeps the order (each value exactly, or an int64
    rounded, never reordered; NaNs last), so the sorted values at some positions are the
    other array's there, cast, and its partition moves half the bytes (or fewer), with no
    cast copy of the whole array."""
    flat = x.node
    if flat.kind != "aten::reshape" or _constant(flat.input(1)) != [-1]:
        return None
    cast = flat.input(0).node
    if cast.kind != "aten::type_as" or len(cast.inputs) != 2:
        return None
    source = cast.input(0)
    if not isinstance(source.type, TensorType) or source.type.scalar_type is None or \
            source.type.scalar_type not in _WIDENS or \
            x.type.scalar_type != _FLOAT64:
        return None
    stop = _same_block_ancestor(first, cast.owning_block)
    if stop is None:
        return None
    db = AliasDb(flat.graph)
    written = db.locations(source)
    # (the node holding ``first`` too: its blocks may write before it)
    if db.writes_between(cast, stop, written) or \
            stop is not first and db.get_writes(stop) & written:
        return None
    with flat.graph.inserting_after(flat):
        minus_one = flat.graph.insert_constant([-1])
        shaped = flat.graph.insert(flat.kind, [source, minus_one])
    shaped.output().type = x.type.with_(scalar_type=source.type.scalar_type)
    shaped.copy_location(flat)
    return shaped.output(), cast


_SCALARS = (IntType, FloatType, BoolType)
# The element types a cast to float64 keeps in order (exactly, or int64 and uint64 rounded).
_WIDENS = frozenset({ScalarType.Byte, ScalarType.Char, ScalarType.Short, ScalarType.Int,
                     ScalarType.Long, ScalarType.Half, ScalarType.Float, ScalarType.UInt16,
                     ScalarType.UInt32, ScalarType.UInt64})
_FLOAT64 = ScalarType.Double


def _available(value: Value, node: Node, depth: int = 0) -> bool:
    """Is ``value`` defined where ``node`` runs, or can it be: a number computed from such
    values by ops on numbers alone (``n // 2`` after a first read of the sorted array), which
    move before ``node``?"""
    if _defined_before(value, node):
        return True
    made = value.node
    # (an array's length moves where the array is defined)
    sized = made.kind == "aten::size" and _defined_before(made.input(0), node)
    if depth > 8 or made.owning_block is not node.owning_block or made.blocks or \
            made.kind.ns != "aten" or made.schema is None or made.schema.written or \
            not all(_scalar(v) for v in [*made.inputs[sized:], *made.outputs]):
        return False
    if not all(_available(v, node, depth + 1) for v in made.inputs):
        return False
    made.move_before(node)
    return True


def _scalar(value: Value) -> bool:
    """A number, or a 0-d array (``np.floor(virtual)`` of a number is one)."""
    return isinstance(value.type, _SCALARS) or (
        isinstance(value.type, TensorType) and value.type.rank == 0)


def _defined_before(value: Value, node: Node) -> bool:
    """Is ``value`` defined where ``node`` runs: before it in its block or an enclosing one,
    or a parameter of one of those blocks?"""
    made = value.node
    here = _same_block_ancestor(node, made.owning_block)
    if here is None:
        return False
    return made.kind == prim.Param or made.is_before(here)


__all__ = ["SELECT_SORTED", "SORT_VALUES", "sort_values_only"]
