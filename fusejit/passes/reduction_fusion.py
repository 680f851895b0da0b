"""Reduction groups: last-axis reductions with their pointwise producers and consumers in one
``prim::RowReductionGroup``, which the runtime compiles into one kernel that walks the rows;
reductions over one other axis (column statistics: axis 0 of a 2-d array, the middle axis of a
3-d one) likewise in a ``prim::ColumnReductionGroup``.
Reductions of one value join one group even when nothing else links them (mean and std).

This goes beyond PyTorch's legacy fuser, whose groups hold pointwise ops only: ``fuse_graph``
stays as PyTorch has it, and this pass runs after it (``@fusejit.jit`` runs it; ``compile``
with ``reductions=True``). Softmax after ``fuse_graph``::

    %m = aten::amax(%x, [-1], True)                  %y = prim::RowReductionGroup_0(%x)
    %e = prim::FusionGroup_0(%x, %m)       ==>       with prim::RowReductionGroup_0 = graph(%x):
    %s = aten::sum(%e, [-1], True, None)               %m = aten::amax(%x, [-1], True)
    %y = aten::div(%e, %s)                              %5 = aten::sub(%x, %m, 1)
                                                        %e = aten::exp(%5)
                                                        %s = aten::sum(%e, [-1], True, None)
                                                        %y = aten::div(%e, %s)
                                                        return (%y)

Running sums and products along the last axis (``np.cumsum(x, axis=-1)``, ``SCANS``) join row
groups too: their values are element values, which the kernel computes in its last pass over
each row, so no reduction of the group may read them (``_Group.scanned``). NumPy's own
``cumsum`` takes ~3-7 ns an element; a row kernel's running sum ~1, and its pointwise
neighbours come in the same pass.

Every value of a group is one of three *classes*, decided from ranks alone: **element**
values have the iteration shape ``S = (rows..., n)`` (anything computed from a tensor read
from outside the group), **row** values have shape ``S[:-1] + (1,)`` (a reduction with
``keepdim``, or pointwise ops on such values and numbers), **flat** values have ``S[:-1]`` (a
reduction without ``keepdim``, and pointwise ops on those). A pointwise op may not mix flat
values with the other two (``[B] + [B, N]`` broadcasts the rows along the columns); a reduction
reads an element value. Row groups may also reduce the last few axes together
(``x.mean(axis=(1, 2))``: rows of ``S[1:]``) or all of them (``x.mean()``, ``x.std()``: one
row, whose 0-d flat values do broadcast against ``S``). Column groups reduce one axis ``d``
other than the last (axis 0 of a
2-d array, the middle axis of ``[B, M, N]``); their per-column values have ``S`` with 1 at
``d``, or ``S`` without ``d``. Reducing axis 0, those broadcast against ``S`` as they should
(``[N]`` against ``[M, N]``); reducing a later axis, flat values may not mix with element
values, as in row groups. Column groups also reduce any other set of axes
(``x.sum(axis=(0, 2))``, ``several_axes``): their per-column values have ``S`` with 1 at those
axes, or ``S`` without them; flat values may not mix with element values, and no element value
may leave such a group (its kernels write per-column values only: ``runtime/fusion/segments.py``).
The kernel checks the actual shapes on each call and hands the group to the interpreter when
they are not what the classes say.

Groups are convex, as fusion groups are: no path leaves a group and comes back into it::

    %m = aten::amax(%x, [-1], True)
    %z = aten::mm(%m, %w)                 # outside: amax and the sub cannot share a group
    %d = aten::sub(%m, %z)                  (the group would both feed and need %z)

and one node at the place of the last member replaces a group, so no member's value may be
used outside before that place (a later sibling reduction joins only when that holds).
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import BoolType, FloatType, IntType, TensorType
from .alias_analysis import AliasDb, _same_block_ancestor
from .more_maps import jit_map
from .pass_checks import graph_pass

ROW_GROUP = prim.RowReductionGroup
COLUMN_GROUP = prim.ColumnReductionGroup

# Reductions a row kernel computes; the position of the keepdim input of each.
ROW_REDUCTIONS = {aten.sum: 2, aten.mean: 2, aten.amax: 2, aten.amin: 2, aten.var: 3,
                  aten.std: 3, aten.argmax: 2, aten.argmin: 2}
# (argmax and argmin take one axis as an int, or None for the flattened array)
ARG_REDUCTIONS = (aten.argmax, aten.argmin)
# Running sums and products along the last axis (``np.cumsum(x, axis=-1)``): element values,
# computed in the kernel's last pass over each row (``scans_along_rows``).
SCANS = (aten.cumsum, aten.cumprod)
ELEMENT, ROW, FLAT = "element", "row", "flat"
_FLOATS = ("float32", "float64")
# (the max, min and sum of integers and bools: NumPy's, interpreted, ran 0.88-0.98x NumPy
# alone at 1024 x 1024, the row kernels 0.95-3.3x: reductions.py --cpu, section dtypes; the
# column kernels sum them in int64 accumulators)
_EXTREMA = _FLOATS + ("int8", "int16", "int32", "int64", "uint8", "bool")
_INT_SUMS = ("int8", "int16", "int32", "int64", "bool")
# (argmax of int64 rows: NumPy's, interpreted, ran 1.04x NumPy at 1024 x 1024, the row
# kernel's search 0.77x (reductions.py --cpu, load 14); its columns run in column kernels)
_ARG_ROWS_NUMPY = ("int64",)
# Reshapes between per-row values with and without the kept axis (``m[:, None]``,
# ``np.expand_dims(m, -1)``, ``m.reshape(-1, 1)``, ``r[:, 0]``): names of the same registers
# in a kernel.
VIEWS = (aten.unsqueeze, aten.reshape, aten.select)


def _rank(value: Value) -> int | None:
    t = value.type
    return t.rank if isinstance(t, TensorType) else None


def _dtype_name(value: Value) -> str | None:
    t = value.type
    if not isinstance(t, TensorType) or t.dtype is None:
        return None
    return t.dtype.name


def _constant(value: Value) -> tuple[bool, object]:
    if value.node.kind != prim.Constant:
        return False, None
    return True, constant_value(value.node)


def reduction_axis(node: Node) -> str | None:
    """``"row"`` when ``node`` reduces the last axis of a float tensor with constant arguments,
    or its last few (``x.mean(axis=(1, 2))`` of 3-d: rows of the two coalesced), or is a
    softmax along the last; ``"column"`` when it reduces one other axis (``reduced_dim``);
    else None."""
    if node.kind == aten.softmax:
        return "row" if _softmax_along_rows(node) else None
    if node.kind in SCANS:
        return "row" if scans_along_rows(node) else None
    if node.kind in (aten.sum, aten.mean) and len(node.inputs) == 2:    # (x.mean(): all axes)
        rank = _rank(node.input(0))
        known, dtype = _constant(node.input(1))
        ok = known and dtype is None and rank and _row_dtypes(node)
        return "row" if ok else None
    at = ROW_REDUCTIONS.get(node.kind)
    if at is None or len(node.inputs) != at + (2 if node.kind in (aten.sum, aten.mean) else 1) \
            or len(node.outputs) != 1:
        return None
    rank = _rank(node.input(0))
    if not rank or not _row_dtypes(node):
        return None
    dtype = _dtype_name(node.input(0))
    known, dims = _constant(node.input(1))
    dims = _listed(node, dims)
    start = _suffix_start(dims, rank) if known else None
    axis = None if start is None else \
        "row" if start == rank - 1 or not dims or len(dims) > 1 else "column"
    if known and start is None and several_axes(dims, rank):
        axis = "column"     # (any set of axes: ``several_axes``)
    if node.kind in ARG_REDUCTIONS and dtype in _ARG_ROWS_NUMPY and axis == "row":
        return None
    known, keepdim = _constant(node.input(at))
    if axis is None or not known or type(keepdim) is not bool:
        return None
    if node.kind in (aten.sum, aten.mean):
        known, dtype = _constant(node.input(3))
        return axis if known and dtype is None else None
    if node.kind in (aten.var, aten.std):
        known, correction = _constant(node.input(2))
        ok = known and (correction is None or type(correction) in (int, float))
        return axis if ok else None
    return axis


def _listed(node: Node, dims: object) -> object:
    """The axes a reduction's dim argument names, as a list (argmax's one int) or None."""
    return [dims] if node.kind in ARG_REDUCTIONS and type(dims) is int else dims


def _row_dtypes(node: Node) -> bool:
    """Does a kernel compute reduction ``node`` of its input's dtype: floats to the same
    float; the max and min of integers and bools; their sums to int64 (NumPy's, for the
    signed ones and bools)?"""
    dtype, out = _dtype_name(node.input(0)), _dtype_name(node.output())
    if node.kind in (aten.amax, aten.amin):
        return dtype in _EXTREMA and out == dtype
    if node.kind in ARG_REDUCTIONS:
        return dtype in _EXTREMA and out == "int64"
    if node.kind == aten.sum and dtype in _INT_SUMS:
        return out == "int64"
    return dtype in _FLOATS and out == dtype


def _suffix_start(dims: object, rank: int) -> int | None:
    """The axis ``dims`` (a list of ints) reduce, when one; the first of them when they are
    the last few axes (0 for None: all of them); else None."""
    if dims is None or dims == []:      # (an empty list: every axis, as the ops read it)
        return 0
    if not isinstance(dims, list) or not dims or any(type(d) is not int for d in dims) \
            or not all(-rank <= d < rank for d in dims):
        return None
    axes = sorted({d % rank for d in dims})
    if len(axes) != len(dims) or (len(axes) > 1 and axes != list(range(axes[0], rank))):
        return None
    return axes[0]


def several_axes(dims: object, rank: int) -> tuple[int, ...] | None:
    """The axes ``dims`` (a list of ints) reduce, sorted, when they are two or more and not
    the last few (``x.sum(axis=(0, 2))``); else None. Column groups reduce such a set:
    their per-column values keep the other axes (``row_kernel``'s plans pick the traversal
    by the strides, ``segments.py``)."""
    if not isinstance(dims, list) or len(dims) < 2 or any(type(d) is not int for d in dims) \
            or not all(-rank <= d < rank for d in dims):
        return None
    axes = tuple(sorted({d % rank for d in dims}))
    if len(axes) != len(dims) or _suffix_start(dims, rank) is not None:
        return None
    return axes


def reduced_dim(node: Node) -> int | tuple[int, ...]:
    """The axis (0 to rank - 1) a node ``reduction_axis`` accepts reduces; the first one of
    a row reduction over the last few; the sorted axes of a column reduction over several
    (``several_axes``)."""
    rank = _rank(node.input(0))
    if node.kind == aten.softmax or node.kind in SCANS:
        return rank - 1
    if len(node.inputs) == 2:       # (sum and mean of every axis)
        return 0
    dims = reduced_dims(node)
    start = _suffix_start(dims, rank)
    return several_axes(dims, rank) if start is None else start


def reduced_dims(node: Node) -> object:
    """The constant axes argument of reduction ``node``: a list of ints, or None (all)."""
    return _listed(node, constant_value(node.input(1).node))


def keeps_dim(node: Node) -> bool:
    """Does reduction ``node`` (one ``reduction_axis`` accepts) keep the axes it reduces?"""
    if len(node.inputs) == 2:
        return False
    return bool(constant_value(node.input(ROW_REDUCTIONS[node.kind]).node))


def kept_axis(axis: str | None, dim: int | tuple | None, rank: int | None) -> int | None:
    """The axis per-row values keep (of size 1) in a group reducing ``dim`` onwards (rows) or
    ``dim`` (columns); None where views of them are not understood (several axes, and a
    column group's set of axes)."""
    if isinstance(dim, tuple):
        return None
    if axis == "column" or (rank is not None and dim == rank - 1):
        return dim
    return None


def view_class(node: Node, kept: int | None, rank: int | None, source: str | None) -> str | None:
    """The class of a ``VIEWS`` node's result in a group reducing axis ``kept`` of ``rank``
    dimensions, its input being of class ``source``: a flat value given back its kept axis
    (row), a row value without it (flat); None for any other reshape."""
    if node.kind not in VIEWS or len(node.outputs) != 1 or rank is None or kept is None:
        return None
    args = [_constant(v) for v in node.inputs[1:]]
    if not all(known for known, _ in args):
        return None
    values = [v for _, v in args]
    axis = "row" if kept == rank - 1 else "column"
    if node.kind == aten.unsqueeze and source == FLAT:
        return ROW if type(values[0]) is int and values[0] in (kept, kept - rank) else None
    if node.kind == aten.reshape and source == FLAT and rank == 2:
        return ROW if values[0] == ([-1, 1] if axis == "row" else [1, -1]) else None
    if node.kind == aten.select and source == ROW:
        dim, index = values
        ok = type(dim) is int and dim in (kept, kept - rank) and type(index) is int
        return FLAT if ok and index in (0, -1) else None
    return None


def scans_along_rows(node: Node) -> bool:
    """``aten::cumsum(x, -1, None)`` or ``aten::cumprod`` along the last axis of a tensor of
    known rank and a dtype the row kernels read (floats, to the same float; integers and bools,
    to int64: NumPy's accumulation, sequential, wrapping as NumPy's does)."""
    if node.kind not in SCANS or len(node.inputs) != 3 or len(node.outputs) != 1:
        return False
    rank = _rank(node.input(0))
    known, dim = _constant(node.input(1))
    no_dtype, dtype = _constant(node.input(2))
    if not (rank and known and type(dim) is int and dim in (-1, rank - 1) and no_dtype
            and dtype is None):
        return False
    source, out = _dtype_name(node.input(0)), _dtype_name(node.output())
    return source in _EXTREMA and out == (source if source in _FLOATS else "int64")


def _softmax_along_rows(node: Node) -> bool:
    """``aten::softmax(x, -1, None)`` of a float tensor (``fusejit.ops.softmax``)."""
    if len(node.inputs) != 3 or len(node.outputs) != 1:
        return False
    rank = _rank(node.input(0))
    known, dim = _constant(node.input(1))
    no_dtype, dtype = _constant(node.input(2))
    return bool(rank) and known and type(dim) is int and dim in (-1, rank - 1) and no_dtype \
        and dtype is None and _dtype_name(node.input(0)) in _FLOATS \
        and _dtype_name(node.output()) == _dtype_name(node.input(0))


def _pointwise(node: Node) -> bool:
    """A fusion group made of pointwise ops only, or one simple-map op, with tensor outputs."""
    if not all(_rank(v) is not None and _dtype_name(v) is not None for v in node.outputs):
        return False
    if node.kind == prim.FusionGroup:
        # (no chunks, concats or autodiff's _grad_sum_to_size: shapes stay those of a map)
        return all(n.kind == prim.Constant or jit_map(n)
                   for n in node.g("Subgraph").nodes())
    return len(node.outputs) == 1 and jit_map(node)


class _Group:
    __slots__ = ("members", "rank", "axis", "dim", "classes", "scanned")

    def __init__(self, members: list[Node]):
        self.members = members
        self.rank: int | None = None
        self.axis: str | None = None       # "row" or "column" once a reduction is in
        # the axis it reduces once a reduction is in (a column group's set: a tuple)
        self.dim: int | tuple[int, ...] | None = None
        self.classes: dict[Value, str] = {}
        # values computed from a running sum or product (``SCANS``), which the kernel has in
        # its last pass only: no reduction of the group may read them
        self.scanned: set[Value] = set()


@graph_pass
def fuse_row_reductions(graph: Graph) -> bool:
    """Form ``prim::RowReductionGroup``s in every block of ``graph``; True if any formed."""
    changed = False
    for block in blocks_within(graph.block):
        changed |= _fuse_block(graph, block)
    return changed


def blocks_within(block: Block):
    """``block`` and every block nested in its nodes, outer ones first."""
    yield block
    for node in block.nodes():
        for sub in node.blocks:
            yield from blocks_within(sub)


def _fuse_block(graph: Graph, block: Block) -> bool:
    nodes = list(block.nodes())
    if not any(reduction_axis(n) for n in nodes):
        return False
    if any(_drop_flattening(n) for n in nodes):
        nodes = list(block.nodes())
    if _sink_scalar_reads(graph, block):
        nodes = list(block.nodes())
    group_of: dict[Node, _Group] = {}
    db = AliasDb(graph)
    for node in nodes:
        if reduction_axis(node) or _pointwise(node) or node.kind in VIEWS:
            _place(node, group_of, db)
    groups = []
    for group in dict.fromkeys(group_of.values()):
        # A group of one reduction is worth its kernel too: NumPy's own, called from the
        # interpreter, ran 0.76-0.91x NumPy's time alone (the Python around it, ~8 us, and
        # the interpreter's objects out of the caches after a big reduction), the row kernel
        # 1.2-2.2x (x.sum(axis=-1), x.max(axis=-1), np.sum(x), 16 x 256 x 256). A lone column
        # reduction of 2 dims runs compiled whole instead
        # (``element_function.lone_column_reduction``). Views compute nothing.
        computing = [m for m in group.members if m.kind not in VIEWS]
        worth = len(computing) > 1 or group.axis == "row" or \
            computing[0].kind in (aten.var, aten.std, *ARG_REDUCTIONS) or group.rank > 2 or \
            isinstance(group.dim, tuple)
        if group.axis is not None and worth and not _element_outputs_of_axes(group):
            groups.append(group)
    for group in groups:
        make_group(graph, group.members, ROW_GROUP if group.axis == "row" else COLUMN_GROUP)
    return bool(groups)


# Nodes that turn a 0-d tensor into a number: pure, one tensor read.
_SCALAR_READS = (aten.Int, aten.Float, aten.Bool)
_NUMBERS = (IntType, FloatType, BoolType)


def _sink_scalar_reads(graph: Graph, block: Block) -> bool:
    """Move each ``int(t)``/``float(t)``/``bool(t)`` of a 0-d tensor or a number down
    towards its first use, past nodes that write nothing and hold no blocks (no write and no
    branch moves to the other side of it). Such a read placed between two reductions keeps
    them apart (``placeable``): ``n = int(np.count_nonzero(m)); s = loss.sum()`` are one
    sweep once ``int`` sits after the sum."""
    db = None
    moved = False
    for node in reversed(list(block.nodes())):     # (the last first: int(int(t)) moves whole)
        if node.kind not in _SCALAR_READS or len(node.inputs) != 1 or len(node.outputs) != 1 \
                or not node.output().uses or _rank(node.input(0)) not in (0, None) \
                or not isinstance(node.input(0).type, (TensorType, *_NUMBERS)):
            continue
        users = {_same_block_ancestor(u.user, block) for u in node.output().uses}
        if None in users or node.next in users:
            continue
        db = db or AliasDb(graph)
        first = node.next
        while first not in users and first is not block.return_node and not first.blocks \
                and not db.get_writes(first):
            first = first.next
        if first is not node.next:
            node.move_before(first)
            moved = True
    return moved


def _drop_flattening(node: Node) -> bool:
    """Drop ``node`` if it is a ``reshape(x, [-1])`` of a one-dimensional ``x`` feeding a
    reduction (``np.cumsum(r)``, which NumPy defines on the flattened array), so that the
    group of ``r`` joins the reduction's: its uses read ``x`` (the same elements, the same
    memory). Kept where the graph returns it (the caller's array would come back, not a
    view of it)."""
    if node.kind != aten.reshape or len(node.inputs) != 2 or _rank(node.input(0)) != 1 \
            or _rank(node.output()) != 1 or _constant(node.input(1)) != (True, [-1]):
        return False
    out = node.output()
    if any(u.user.kind == prim.Return for u in out.uses) or \
            not any(reduction_axis(u.user) for u in out.uses):
        return False
    out.replace_all_uses_with(node.input(0))
    node.destroy()
    return True


def _element_outputs_of_axes(group: _Group) -> bool:
    """Does a group reducing a set of axes (``several_axes``) give an element value to the
    graph? Its kernels write per-row values only (``runtime/fusion/segments.py``)."""
    if not isinstance(group.dim, tuple):
        return False
    inside = set(group.members)
    return any(group.classes.get(out) == ELEMENT and any(u.user not in inside for u in out.uses)
               for m in group.members for out in m.outputs)


def _place(node: Node, group_of: dict[Node, _Group], db: AliasDb) -> None:
    """Put ``node`` into the group of its producers (merging them) when the classes and
    convexity allow; else with one producer's group; else into a group of its own."""
    producers = list(dict.fromkeys(group_of[v.node] for v in node.inputs if v.node in group_of))
    cousins: list[_Group] = []
    if reduction_axis(node):
        # Reductions of the same value share their sweeps (mean, std, min, max of columns).
        siblings = [group_of[u.user] for u in node.input(0).uses
                    if u.user in group_of and reduction_axis(u.user)]
        producers = list(dict.fromkeys(producers + siblings))
        cousins = _cousins(node, producers, group_of)
    options = ([producers + cousins] if cousins else []) + [producers] + \
        ([[g] for g in producers] if len(producers) > 1 else [])
    if producers:
        options.append([])
    for take in options:
        members = sorted([m for g in take for m in g.members] + [node], key=_position)
        group = _Group(members)
        if not all(_classify(m, group) for m in members) or \
                (take and not (convex(members) and placeable(members)
                               and unwritten(members, db))):
            continue
        for m in members:
            group_of[m] = group
        return


def _cousins(node: Node, producers: list[_Group], group_of: dict[Node, _Group]) -> list[_Group]:
    """The reduction groups that read an array from outside which the reduction ``node`` (or
    its producers' groups) reads too, of the rank it reduces: one sweep can compute both
    (``loss.mean()``, ``correct.mean()`` and ``log_sig.sum()`` of the same ``z``, each of
    its own pointwise chain, read ``z`` once instead of three times)."""
    rank = _rank(node.input(0))
    members = [node] + [m for g in producers for m in g.members]
    inside = set(members)
    read = list(dict.fromkeys(v for m in members for v in m.inputs
                              if v.node not in inside and _rank(v) == rank and rank))
    if not read:
        return []
    found = []
    for v in read:
        for use in v.uses:
            group = group_of.get(use.user)
            if group is not None and group.axis is not None and group not in producers:
                found.append(group)
    return list(dict.fromkeys(found))


def _position(node: Node) -> int:
    return node._topo


def _classify(node: Node, group: _Group) -> bool:
    """Record the classes of ``node``'s outputs in ``group`` (its members before ``node``
    classified already), fixing its rank and axis; False when ``node`` cannot be in it."""
    classes, rank = group.classes, group.rank
    if any(v in group.scanned for v in node.inputs):
        if reduction_axis(node) and node.kind not in SCANS:
            return False
        group.scanned.update(node.outputs)
    if node.kind in VIEWS:
        found = view_class(node, kept_axis(group.axis, group.dim, rank),
                           rank, classes.get(node.input(0)))
        if found is None or _rank(node.output()) != (rank - 1 if found == FLAT else rank):
            return False
        classes[node.output()] = found
        return True
    axis = reduction_axis(node)
    if axis is not None:
        source = node.input(0)
        r = _rank(source)
        dim = reduced_dim(node)
        if classes.get(source, ELEMENT) != ELEMENT or rank not in (None, r) \
                or group.dim not in (None, dim) or group.axis not in (None, axis):
            return False
        if node.kind == aten.softmax:
            classes[node.output()] = ELEMENT
        elif node.kind in SCANS:
            classes[node.output()] = ELEMENT
            group.scanned.add(node.output())
        else:
            classes[node.output()] = ROW if keeps_dim(node) else FLAT
        group.rank, group.axis, group.dim = r, axis, dim
        return True
    if node.kind == prim.FusionGroup:
        sub = node.g("Subgraph")
        local: dict[Value, str | None] = {
            s: _class_of(v, classes, rank) for s, v in zip(sub.inputs, node.inputs)}
        for n in sub.nodes():
            if n.kind != prim.Constant:
                local[n.output()] = _combine([local.get(v) for v in n.inputs
                                              if isinstance(v.type, TensorType)], group)
        found = [local.get(v) for v in sub.outputs]
    else:
        found = [_combine([_class_of(v, classes, rank) for v in node.inputs
                           if isinstance(v.type, TensorType)], group)]
    if any(c in (None, "bad") for c in found):
        return False
    if rank is None:
        if FLAT in found:
            return False    # (a group starts from a reduction or from element values)
        rank = _rank(node.outputs[0])
    flat = rank - len(group.dim) if isinstance(group.dim, tuple) else \
        rank - 1 if group.axis != "row" or group.dim is None else group.dim
    for out, cls in zip(node.outputs, found):
        if _rank(out) != (flat if cls == FLAT else rank):
            return False
        classes[out] = cls
    group.rank = rank
    return True


def _class_of(value: Value, classes: dict[Value, str], rank: int | None) -> str | None:
    """The class of a pointwise input: its group's, or ``element`` for a tensor from outside
    (read through broadcast strides; it may not have more dimensions than the group)."""
    cls = classes.get(value)
    if cls is not None:
        return cls
    r = _rank(value)
    if r is None or (rank is not None and r > rank):
        return "bad"
    return ELEMENT


def _combine(found: list[str | None], group: _Group) -> str | None:
    """The class of a pointwise result in ``group``. Reducing columns along axis 0, a flat
    ``[N]`` broadcasts against ``[M, N]`` and ``[1, N]`` along the columns, as a per-column
    value should, and so does a 0-d reduction of every axis; reducing another axis, a flat
    ``[B]`` against ``[B, N]`` would broadcast along the wrong axis: refused."""
    if not found or any(c in (None, "bad") for c in found):
        return "bad"
    kinds = set(found)
    if FLAT in kinds and kinds != {FLAT} and group.dim != 0:
        return "bad"
    return ELEMENT if ELEMENT in kinds else ROW if ROW in kinds else FLAT


def convex(members: list[Node]) -> bool:
    """No value outside ``members`` both depends on a member and feeds one."""
    inside = set(members)
    first = min(members, key=_position)
    seen: set[Node] = set()

    def reaches_group(node: Node) -> bool:
        # Depth-first over producers positioned after the group's first member.
        stack = [node]
        while stack:
            n = stack.pop()
            if n in seen or n.kind == prim.Param or n.owning_block is not first.owning_block \
                    or n._topo < first._topo:
                continue
            seen.add(n)
            for v in n.inputs:
                p = v.node
                if p in inside:
                    return True
                stack.append(p)
        return False

    for m in members:
        for v in m.inputs:
            p = v.node
            if p not in inside and reaches_group(p):
                return False
    return True


def placeable(members: list[Node]) -> bool:
    """Can one node at the last member's place replace the group of ``members``? Not when a
    value of an early member is used outside before that place."""
    last = members[-1]
    block = last.owning_block
    inside = set(members)
    for m in members:
        for out in m.outputs:
            for use in out.uses:
                # (a use inside a node's block counts at that node: an If before the last
                # member returning the value from its branches uses it there)
                user = _same_block_ancestor(use.user, block)
                if user is not None and user not in inside and user is not block.return_node \
                        and user.is_before(last):
                    return False
    return True


def unwritten(members: list[Node], db: AliasDb) -> bool:
    """Does nothing between the first of ``members`` and the last write memory a member
    reads? The group runs at the last member's place, so its early members read their
    inputs there: ``p = a * b; a += 1; p.sum()`` must not sum ``(a + 1) * b``."""
    reads: set[int] = set()
    for m in members:
        reads |= db.get_reads(m)
    return not db.writes_between(members[0], members[-1], reads, set(members))


def make_group(graph: Graph, members: list[Node], kind: str) -> Node:
    """A group node of ``kind`` at the place of the last of ``members`` (in program order,
    one block; fusion groups among them inlined) computing them all: their constants copied
    in, the values they read from outside as inputs, and as outputs those read outside."""
    inside = set(members)
    last = members[-1]
    node = graph.create_with_subgraph(kind)
    sub = node.g("Subgraph")
    env: dict[Value, Value] = {}

    def inner(value: Value) -> Value:
        found = env.get(value)
        if found is not None:
            return found
        if value.node.kind == prim.Constant and not isinstance(value.type, TensorType):
            made = sub.insert_node(sub.create_clone(value.node, lambda v: v))
            env[value] = made.output()
            return made.output()
        env[value] = sub.add_input(type=value.type).copy_metadata(value)
        node.add_input(value)
        return env[value]

    for m in members:
        if m.kind == prim.FusionGroup:
            body = m.g("Subgraph")
            local = {s: inner(v) for s, v in zip(body.inputs, m.inputs)}
            for n in body.nodes():
                clone = sub.insert_node(sub.create_clone(n, local.__getitem__))
                for a, b in zip(n.outputs, clone.outputs):
                    local[a] = b
            for out, res in zip(m.outputs, body.outputs):
                env[out] = local[res]
        else:
            clone = sub.insert_node(sub.create_clone(m, inner))
            for a, b in zip(m.outputs, clone.outputs):
                env[a] = b
    node.insert_before(last)
    for m in members:
        for out in m.outputs:
            if any(u.user not in inside for u in out.uses):
                sub.register_output(env[out])
                result = node.add_output(out.type).copy_metadata(out)
                out.replace_all_uses_with(result)
    for m in reversed(members):
        m.destroy()
    return node
