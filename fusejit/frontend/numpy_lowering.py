"""Lowerings for everyday NumPy beyond pointwise math: reductions, indexing, creation, stores.

Reductions take ``axis`` as an int (negative counts from the end), a tuple or None, and
``keepdims``; where NumPy's result dtype differs from PyTorch's (``mean`` of ints is float64)
the operand is cast first (``numpy_dtypes``)::

    x.max(axis=-1, keepdims=True)   %m = aten::amax(%x, [-1], True)
    x[:, 1:]                        %s = aten::slice(%x, 1, 1, None, 1)
    x[None, :, 0]                   aten::unsqueeze(aten::select(%x, 1, 0), 0)
    np.zeros((n, 3))                aten::zeros([%n, 3], 7, None, None, None)    7: float64
    a[i] = v                        aten::copy_(aten::select(%a, 0, %i), v)
    a[idx] = v                      aten::index_put_(%a, [%idx], v)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ScriptError
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import FLOAT, INT, ListType, TensorType
from ..oplib.table import DTYPE_CODES
from .builder import (
    VIEW_KINDS,
    IRBuilder,
    Item,
    describe,
    is_none,
    is_tensor,
    scalar_type_of,
)
from .lowering import (
    LIST_NUMBER_DTYPES,
    _array,
    as_tensor,
    binary,
    concatenate,
    conformed_list,
    records_of,
    reshape,
    stack,
    typed_from_appends,
)
from .numpy_arrays import advanced_index, index_store, is_int_array
from .numpy_dtypes import (
    branch_dtype,
    cast,
    check_python_ints,
    conform,
    dtype_of,
    unsigned_total,
)

# name -> (NumPy function for the result dtype, aten op, its argument form)
_REDUCTIONS: dict[str, tuple[Any, str, str]] = {
    "sum": (np.sum, "aten::sum", "dims"), "mean": (np.mean, "aten::mean", "dims"),
    "max": (np.max, "aten::amax", "list"), "min": (np.min, "aten::amin", "list"),
    "prod": (np.prod, "aten::prod", "each"), "any": (None, "aten::any", "plain"),
    "all": (None, "aten::all", "plain"), "var": (np.var, "aten::var", "moment"),
    "std": (np.std, "aten::std", "moment"), "argmax": (None, "aten::argmax", "arg"),
    "argmin": (None, "aten::argmin", "arg"),
}
REDUCTION_NAMES = tuple(_REDUCTIONS)


def rank_of(x: Value) -> int | None:
    return x.type.rank if isinstance(x.type, TensorType) else None


def _axes(b: IRBuilder, axis: Item, what: str) -> list[int] | None:
    if is_none(axis):
        return None
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    return [b.static_int(a, f"{what}'s axis") for a in items]


def _sum_widens(x: Value) -> bool:
    """Is ``x`` an array of ints or bools that ``aten::sum`` adds up in int64, NumPy's dtype
    for its sum, by itself? (Cast to int64 first, the interpreter made an int64 copy of the
    array: int32 ``x.sum(axis=0)`` of 1024 x 1024 ran 0.27-0.45x NumPy.)"""
    dtype = dtype_of(x)
    return dtype is not None and dtype.kind in "bi" and \
        np.sum(np.zeros(1, dtype)).dtype == np.dtype(np.int64)


def reduce(b: IRBuilder, name: str, x: Item, axis: Item = None, keepdims: Item = False,
           ddof: Item = 0) -> Value:
    """``x.name(axis=..., keepdims=...)`` / ``np.name(x, ...)`` for the reductions above."""
    what = f"{name}"
    x = _array(b, x, what)
    keep = b.static_bool(keepdims, f"{what}(keepdims=...)")
    fn, kind, form = _REDUCTIONS[name]
    if fn is not None and not (name == "sum" and _sum_widens(x)):
        (x,) = conform(b, fn, [x], what)
    code = unsigned_total(x) if name in ("sum", "prod") else None
    axes = _axes(b, axis, what)
    if axes == [] and form != "arg":
        # NumPy reduces over no axis at all (the result has x's shape, in the reduction's
        # dtype); PyTorch reads an empty dim list as every axis. A new unit axis, reduced,
        # gives NumPy's values for each reduction (a std of one element, a mean of itself).
        x, axes, keep = b.emit(aten.unsqueeze, [x, -1], what), [-1], False
    if form == "arg":
        if axes is not None and len(axes) != 1:
            raise b.error(f"{what}: axis must be one int or None")
        return b.emit(kind, [x, None if axes is None else axes[0], keep], what)
    if form == "each":  # prod reduces one dim at a time (PyTorch's prod takes one dim)
        if axes is None:
            out = b.emit(kind, [x, code], what)
            rank = rank_of(x)
            if keep and rank is None:
                raise b.error(f"{what}(keepdims=True) without an axis needs an array of known "
                              f"rank")
            return reshape(b, out, (1,) * rank) if keep else out
        rank = rank_of(x)
        if rank == 0 and all(a in (0, -1) for a in axes):
            return b.emit(kind, [x, code], what)    # (a 0-d array has axis 0, as NumPy's)
        if rank is not None:
            for a in axes:      # (NumPy's AxisError: no axis wraps around)
                if not -rank <= a < rank:
                    raise b.error(f"{what}: axis {a} is out of bounds for an array of "
                                  f"dimension {rank}")
            if len({a % rank for a in axes}) != len(axes):
                raise b.error(f"{what}: duplicate value in 'axis'")
        order = sorted((a % rank for a in axes), reverse=True) if rank is not None else axes
        for a in order:
            x = b.emit(kind, [x, a, keep, code], what)
        return x
    dims = b.value_const(axes) if axes is not None else None
    if form == "dims":
        if dims is None and not keep:
            return b.emit(kind, [x, code], what)
        return b.emit(kind, [x, dims, keep, code], what)
    if form == "list":
        return b.emit(kind, [x, dims if dims is not None else b.value_const([]), keep], what)
    if form == "moment":
        return b.emit(kind, [x, dims, ddof, keep], what)
    return b.emit(kind, [x, dims, keep], what)


def cumsum(b: IRBuilder, x: Item, axis: Item = None, dtype: Any = None) -> Value:
    """``np.cumsum``/``x.cumsum()``; ``dtype=`` sums in that dtype (``x`` cast first)."""
    x = _array(b, x, "cumsum")
    code = None
    if is_none(dtype):
        (x,) = conform(b, np.cumsum, [x], "cumsum")
        code = unsigned_total(x)
    else:
        code = dtype_code(b, dtype, None, "cumsum")
        x = cast(b, x, np.dtype(dtype), "cumsum")
    x, dim = scanned(b, x, axis, "cumsum")
    return b.emit(aten.cumsum, [x, dim, code], "cumsum")


def scanned(b: IRBuilder, x: Value, axis: Item, what: str) -> tuple[Value, int]:
    """A running sum's or product's operand and constant axis: ``x`` flattened where there
    is no axis, or where it is 0-d (NumPy runs a 0-d array as 1-d); the axis within its rank
    where that is known (NumPy's AxisError, not the interpreter's IndexError when it runs)."""
    if is_none(axis) or rank_of(x) == 0:
        x = reshape(b, x, (-1,))
        axis = 0 if is_none(axis) else axis
    dim, rank = b.static_int(axis, f"{what}'s axis"), rank_of(x)
    if rank is not None and not -rank <= dim < rank:
        raise b.error(f"{what}: axis {dim} is out of bounds for array of dimension {rank}")
    return x, dim


def running_extreme(kind: str, display: str):
    """``np.maximum.accumulate``/``np.minimum.accumulate`` along an int axis (NumPy's
    default 0): ``fusejit::maximum_accumulate``, NumPy's own (a loop over the axis ran
    2-7x NumPy's time); ``out=`` as NumPy's."""
    def lower(b: IRBuilder, a: Item, axis: Item = 0, dtype: Any = None, out: Item = None):
        from .numpy_ufuncs import written_out

        if not is_none(dtype):
            raise b.error(f"{display}: dtype= is not supported; cast the array first")
        x = _array(b, a, display)
        rank = rank_of(x)
        if rank == 0:
            raise b.error(f"{display}: cannot accumulate on a scalar")
        if is_none(axis):
            if rank is None or rank > 1:
                raise b.error(f"{display}: axis=None takes a 1-D array (NumPy: accumulate "
                              f"does not allow multiple axes)")
            axis = 0
        dim = b.static_int(axis, f"{display}'s axis")
        if rank is not None and not -rank <= dim < rank:
            raise b.error(f"{display}: axis {dim} is out of bounds for array of dimension "
                          f"{rank}")
        result = b.emit(kind, [x, dim], display)
        return result if is_none(out) else written_out(b, out, result, display)
    return lower


# -- indexing -------------------------------------------------------------------------------


def index(b: IRBuilder, x: Value, index: Item) -> Value:
    """``x[index]`` for ints, slices, ``None``, ``...`` and their tuples (basic indexing)."""
    items = list(index) if isinstance(index, tuple) else [index]
    advanced = any(is_int_array(b, i) for i in items)
    if any(is_tensor(i) for i in items) and not advanced:
        raise b.error("indexing with an array (x[mask], x[idx]) has a data-dependent shape and "
                      "is not supported; write np.where(mask, x, 0) or take elements with "
                      "integer indices")
    rank = rank_of(x)
    ellipsis = any(i is Ellipsis for i in items)
    if ellipsis:
        if sum(i is Ellipsis for i in items) > 1:
            raise b.error("an index can only have a single ellipsis ('...')")
        if rank is None:
            raise b.error("'...' in an index needs an array of known rank")
        used = sum(1 for i in items if i is not None and i is not Ellipsis)
        at = next(k for k, i in enumerate(items) if i is Ellipsis)
        items[at:at + 1] = [slice(None)] * max(rank - used, 0)
    if advanced:
        return advanced_index(b, x, items)
    dim = 0
    for i in items:
        if i is None:
            x = b.emit(aten.unsqueeze, [x, dim], "indexing")
            dim += 1
        elif isinstance(i, slice):
            x = _slice(b, x, dim, i)
            dim += 1
        elif scalar_type_of(i) == INT:
            x = b.emit(aten.select, [x, dim, i], "indexing")
        else:
            raise b.error(f"an index must be an int, a slice, None or '...', got {describe(i)}")
    if ellipsis and rank_of(x) == 0:
        # (x[..., 0] of a 1-d x, x[0, ...]: NumPy gives a 0-d view, not a scalar; v += 1
        # writes x)
        b.zero_d_arrays.add(x)
    return x


def _slice(b: IRBuilder, x: Value, dim: int, s: slice) -> Value:
    s = slice(*(_bound(b, v) for v in (s.start, s.stop, s.step)))
    step = _step(b, s)
    if isinstance(step, Value):
        b.raise_unless(binary(b, "gt", step, 0), "ValueError: a slice step known only at run "
                       "time must be positive (a constant negative step reverses)")
        start, stop = (None if is_none(v) else v for v in (s.start, s.stop))
        return b.emit(aten.slice, [x, dim, start, stop, step], "indexing")
    if is_none(s.start) and is_none(s.stop) and step == 1:
        return x
    if step < 0:
        s = _mirrored(b, s)
        x = b.emit(aten.flip, [x, [dim]], "indexing")
        step = s.step
        if step == 1 and s.start is None and s.stop is None:
            return x
    start, stop = (None if is_none(v) else v for v in (s.start, s.stop))
    return b.emit(aten.slice, [x, dim, start, stop, step], "indexing")


def _bound(b: IRBuilder, v: Any) -> Any:
    """A slice bound: a 0-d integer array (``x[idx[0]:idx[-1] + 1]``) is the int it holds, as
    NumPy reads it through ``__index__`` (a float or bool one is NumPy's TypeError)."""
    if not is_tensor(v) or rank_of(v) != 0:
        return v
    if dtype_of(v) is None or dtype_of(v).kind not in "iu":
        raise b.error(f"slice indices must be integers, got a 0-d {dtype_of(v)} array")
    from .lowering import to_int

    return to_int(b, v)


def _step(b: IRBuilder, s: slice) -> int | Value:
    """A slice's step: a constant int, or an int known at run time (``x[i * i::i]``), which
    must then be positive (checked where it runs: a negative step reverses, and reversing
    takes constant bounds, ``_mirrored``)."""
    step = 1 if is_none(s.step) else b.static(s.step)
    if step is ... and isinstance(s.step, Value) and s.step.type == INT:
        return s.step
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        raise b.error("a slice step must be a non-zero int (a constant, or a positive int "
                      "known at run time)")
    return step


def _mirrored(b: IRBuilder, s: slice) -> slice:
    """The slice of ``flip(x, dim)`` that holds ``x[s]`` (``s`` of negative step), in
    order: ``x[a:b:-k]`` is ``flip(x)[n-1-a : n-1-b : k]``, Python's clamping kept."""
    start, stop = (None if is_none(v) else v for v in (s.start, s.stop))
    bounds = [b.static(v) for v in (start, stop) if v is not None]
    if any(isinstance(v, bool) or not isinstance(v, int) for v in bounds):
        raise b.error("a negative slice step needs constant bounds (x[5:1:-2]); write "
                      "np.flip(x[b + 1:a + 1], axis)[::k] instead")
    start, stop = (_flipped(b.static(v)) if v is not None else None for v in (start, stop))
    return slice(start, stop, -_step(b, s))


def negative_step(b: IRBuilder, s: slice) -> bool:
    step = _step(b, s)
    return not isinstance(step, Value) and step < 0


def _reversing(b: IRBuilder, items: list[Item]) -> bool:
    return any(isinstance(i, slice) and negative_step(b, i) for i in items)


def _store_reversed(b: IRBuilder, x: Value, items: list[Item], value: Item) -> None:
    """``x[::-1] = v``, ``x[:, 5:1:-2] = v``: aten's slices take no negative step (reading
    flips a copy, ``_slice``), so the write goes into ``flip(x)`` at the mirrored slices,
    and that is flipped back into ``x``."""
    if any(i is Ellipsis for i in items):
        raise b.error("assigning through a negative-step slice together with '...' is not "
                      "supported; write the axes out with ':'")
    dims, mirrored, dim = [], [], 0
    for i in items:
        if isinstance(i, slice) and negative_step(b, i):
            dims.append(dim)
            i = _mirrored(b, i)
        mirrored.append(i)
        dim += i is not None
    flipped = b.emit(aten.flip, [x, dims], "assignment")
    _store(b, flipped, tuple(mirrored), value)
    b.emit(aten.copy_, [x, b.emit(aten.flip, [flipped, dims], "assignment"), False],
           "assignment")


def _flipped(bound: int) -> int:
    """Where a bound of a negative-step slice lands once its axis (of size ``n``) is flipped:
    ``n - 1 - bound`` from the start, which is ``-1 - bound`` counted as Python counts (from
    the end where it is negative, clamped as Python clamps), so a constant: ``x[:0:-1]`` is
    ``flip(x)[:-1]``, ``x[-2::-1]`` is ``flip(x)[1:]``, and a bound past either end stays past
    it."""
    return -1 - bound


def store(b: IRBuilder, x: Value, index_item: Item, value: Item) -> None:
    """``x[index] = value``: a write through the view ``x[index]`` (``x[mask] = v`` is
    ``masked.store``'s)."""
    refuse_reversed_target(b, x)
    _store(b, x, index_item, value)



def check_stored_number(b: IRBuilder, x: Value, value: Item) -> Item:
    """The value ``x[...] = value`` stores. A Python number an integer ``x`` cannot hold
    raises NumPy's error when it runs (``uint8_array[m] = 300``: OverflowError;
    ``int_array[m] = np.nan``: ValueError); the store would have cast it, as a cast of arrays
    does (300 -> 44). A NumPy integer scalar is cast as an array is: ``uint8_array[0] =
    np.int64(-2)`` stores 254, the constant given wrapped (the store raised as for -2)."""
    number, dtype = b.static(value), dtype_of(x)
    if dtype is None or dtype.kind not in "iu":
        return value
    strong = b.numpy_scalars.get(value) if isinstance(value, Value) else None
    if strong is not None and strong.kind == "f":
        # (a NumPy float scalar is cast as an array is: uint8_array[0] = np.float32(-1.5)
        # stores 255, the first call raised as for the Python float and later ones skipped
        # the store)
        if isinstance(number, float) and math.isfinite(number):
            return int(np.array(number, strong).astype(dtype))
        if not isinstance(number, float):
            return cast(b, as_tensor(b, value, "the stored value", strong), dtype,
                        "the stored value")
    if type(number) is float and math.isfinite(number):
        info = np.iinfo(dtype)
        if not info.min <= math.trunc(number) <= info.max:  # (NumPy's error for -1.5)
            b.raise_unless(False, f"OverflowError: Python integer {math.trunc(number)} out "
                                  f"of bounds for {dtype.name}")
        return value
    if type(number) not in (int, float):
        check_python_ints(b, [value], dtype, "the stored value")
        return value
    if isinstance(number, int):
        info = np.iinfo(dtype)
        if info.min <= number <= info.max:
            return value
        if value in b.numpy_scalars:
            return int(np.array(number).astype(dtype))
        b.raise_unless(False, f"OverflowError: Python integer {number} out of bounds "
                              f"for {dtype.name}")
    elif math.isnan(number):
        b.raise_unless(False, "ValueError: cannot convert float NaN to integer")
    elif math.isinf(number):
        b.raise_unless(False, "OverflowError: cannot convert float infinity to integer")
    return value

def viewed(value: Value) -> Value:
    """The array ``value`` is a view of (through slices, transposes, reshapes ...)."""
    while value.node.kind in VIEW_KINDS:
        value = value.node.inputs[0]
    return value


def refuse_reversed_target(b: IRBuilder, x: Value) -> None:
    """A write into ``x[::-1]``, ``np.flip(x)`` or a view of one: NumPy writes through to
    ``x``, but those are copies here (aten's flip), so the write would be lost."""
    if viewed(x).node.kind == "aten::flip":
        raise b.error("writing into a reversed view (x[::-1], np.flip(x), or a view of one) "
                      "is not supported: it would not reach the array it reverses; assign "
                      "through the reversed slice directly (x[::-1] = v) or write "
                      "x = np.flip(...) for a new array")


def memory_of(value: Value) -> Value:
    """The array whose memory ``value`` is, as far as a write can tell: through views,
    in-place results and a loop's variables (taken as their value before the loop, which an
    update in place keeps)."""
    while True:
        node = value.node
        if node.kind in VIEW_KINDS or (
                node.kind.ns == "aten" and node.kind.name.endswith("_") and node.inputs):
            value = node.inputs[0]
        elif node.kind == prim.Param and node.owning_block is not None \
                and node.owning_block.owning_node is not None \
                and node.owning_block.owning_node.kind == prim.Loop and value.offset >= 1:
            value = node.owning_block.owning_node.inputs[value.offset + 1]
        else:
            return value


def refuse_stale_reversals(graph: Graph) -> None:
    """A write into ``x`` (or a view of it) after ``np.flip(x)`` or ``x[::-1]`` was taken,
    where the reversed array is read after the write: NumPy's reversal is a view, which sees
    the write; here it is a copy made before it (aten's flip), so the read would be stale, a
    silent difference. Refused, naming the write. A use inside a loop counts as read at the
    loop's end (a later trip reads it again after the write)."""
    nodes = list(graph.all_nodes())
    order = {node: i for i, node in enumerate(nodes)}
    for flip in (n for n in nodes if n.kind == "aten::flip"):
        memory = memory_of(flip.input(0))
        last = max((_read_until(use.user, flip, order) for value in _views_of(flip.output())
                    for use in value.uses), default=-1)
        for write in nodes[order[flip] + 1:last]:
            if _writes_first(write) and memory_of(write.input(0)) is memory:
                raise ScriptError(
                    f"{write.location}: this writes into an array after np.flip or a "
                    f"negative-step slice of it was taken ({flip.location}), and the "
                    f"reversed array is read after the write: in NumPy it is a view that "
                    f"sees the write, here a copy made before it; take the reversal after "
                    f"the write, or write np.flip(x).copy() if the values before the write "
                    f"are meant")


def _writes_first(node: Node) -> bool:
    """Does ``node`` write into its first input: an in-place aten op (``x += v``,
    ``x[i] = v``), or any op whose schema says so (``Tensor(a!) self``: ``np.maximum.at``)?"""
    schema = node.schema
    return bool(node.inputs) and (node.kind.ns == "aten" and node.kind.name.endswith("_") or
                                  schema is not None and 0 in schema.written)


def _views_of(value: Value) -> list[Value]:
    found, pending = [], [value]
    while pending:
        value = pending.pop()
        found.append(value)
        pending.extend(out for use in value.uses if use.user.kind in VIEW_KINDS
                       for out in use.user.outputs)
    return found


def _read_until(user: Node, flip: Node, order: dict) -> int:
    """Where a read by ``user`` counts as happening: its place, or the end of the outermost
    loop around it that is not around ``flip``. A block's return (the function's result, an
    if's or a loop's value, read after it) counts as read at the end."""
    if user.kind == prim.Return:
        return len(order)
    until = order.get(user, -1)
    block = user.owning_block
    while block is not None and block.owning_node is not None:
        loop = block.owning_node
        if loop.kind == prim.Loop and not _inside(flip, loop):
            until = max(until, _last_position(loop, order) + 1)   # (after its last node)
        block = loop.owning_block
    return until


def _inside(node: Node, outer: Node) -> bool:
    block = node.owning_block
    while block is not None and block.owning_node is not None:
        if block.owning_node is outer:
            return True
        block = block.owning_node.owning_block
    return False


def _last_position(node: Node, order: dict) -> int:
    last = order.get(node, -1)
    for block in node.blocks:
        for inner in block.nodes():
            last = max(last, _last_position(inner, order))
    return last


def _store(b: IRBuilder, x: Value, index_item: Item, value: Item) -> None:
    items = index_item if isinstance(index_item, tuple) else (index_item,)
    reversing = _reversing(b, list(items))
    if any(is_int_array(b, i) for i in items):
        if reversing:
            raise b.error("assigning through an integer array and a negative-step slice "
                          "together is not supported; flip the value instead")
        index_store(b, x, list(items), value)
        return
    if reversing:
        _store_reversed(b, x, list(items), value)
        return
    view = index(b, x, index_item)
    if is_tensor(value):
        b.emit(aten.copy_, [view, value, False], "assignment")
    elif scalar_type_of(value) is not None:
        b.emit("aten::fill_", [view, value], "assignment")
    elif isinstance(value, (tuple, list)) and value:
        # (joints[i] = (x, y): the array NumPy makes of it, cast as the assignment casts)
        b.emit(aten.copy_, [view, array(b, value), False], "assignment")
    else:
        raise b.error(f"cannot assign a {describe(value)} into an array")


# -- creation -------------------------------------------------------------------------------


def dtype_code(b: IRBuilder, dtype: Any, default: Any, what: str) -> int:
    """The ScalarType code of a ``dtype=`` argument (``np.float32``, ``float``, ``None``)."""
    if is_none(dtype):
        dtype = default
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        raise b.error(f"{what}: dtype must be a NumPy dtype such as np.float32, got "
                      f"{describe(dtype)}") from None
    code = DTYPE_CODES.get(resolved)
    if code is None:
        raise b.error(f"{what}: dtype {resolved} is not supported")
    return code


def _shape(b: IRBuilder, shape: Item, what: str) -> Value:
    if isinstance(shape, Value) and isinstance(shape.type, ListType):
        return shape  # x.shape
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return b.int_list(dims, f"{what}'s shape")


def filled(b: IRBuilder, name: str, shape: Item, dtype: Any = None) -> Value:
    """``np.zeros``/``np.ones``/``np.empty`` (empty is zero-filled: deterministic)."""
    code = dtype_code(b, dtype, np.float64, f"np.{name}")
    kind = "aten::ones" if name == "ones" else "aten::zeros"
    return _zero_d_array(b, b.emit(kind, [_shape(b, shape, f"np.{name}"), code, None, None,
                                          None], f"np.{name}"))


def _zero_d_array(b: IRBuilder, made: Value) -> Value:
    """``made``, a new array, noted as a 0-d array (not a NumPy scalar: ``y += v`` writes it
    in place, another name for it sees that) where it has no dimensions (``np.zeros(())``)."""
    if isinstance(made.type, TensorType) and made.type.rank == 0:
        b.zero_d_arrays.add(made)
    return made


def full(b: IRBuilder, shape: Item, fill_value: Item, dtype: Any = None) -> Value:
    # (the fill value's own dtype: an int argument int64, a NumPy scalar its dtype, an array
    # its dtype; an array is copied in after the fill)
    filled = is_tensor(fill_value)
    default = dtype_of(fill_value) if filled else \
        branch_dtype(b, np.asarray, [fill_value], "np.full") or np.dtype(np.float64)
    code = dtype_code(b, dtype, default, "np.full")
    made = b.emit("aten::full", [_shape(b, shape, "np.full"), 0 if filled else fill_value,
                                 code, None, None, None], "np.full")
    return _filled_with(b, made, fill_value, "np.full") if filled else _zero_d_array(b, made)


def like(b: IRBuilder, name: str, x: Item, fill_value: Item = 0, dtype: Any = None) -> Value:
    """``np.zeros_like``/``ones_like``/``empty_like``/``full_like``."""
    x = _array(b, x, f"np.{name}")
    fill = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(name, fill_value)
    code = None if is_none(dtype) else dtype_code(b, dtype, None, f"np.{name}")
    filled = is_tensor(fill)        # (an array: copied in after the fill)
    made = b.emit("aten::full_like", [x, 0 if filled else fill, code, None, None, None, None],
                  f"np.{name}")
    return _filled_with(b, made, fill, f"np.{name}") if filled else _zero_d_array(b, made)


def _filled_with(b: IRBuilder, made: Value, fill: Value, what: str) -> Value:
    """``made`` (a new array) with the array ``fill`` written into it: broadcast to its shape
    and cast as NumPy's ``copyto(..., casting="unsafe")`` (``np.full_like(x, p[0])``, a fill
    value that is a 0-d array, or a row broadcast down the result)."""
    if dtype_of(fill) is None:
        raise b.error(f"{what}: the fill value is an array whose dtype is not known here")
    b.emit(aten.copy_, [made, fill, False], what)
    return _zero_d_array(b, made)


def arange(b: IRBuilder, start: Item, stop: Item = None, step: Item = 1,
           dtype: Any = None) -> Value:
    if is_none(stop):
        start, stop = 0, start
    # (0-d arrays as bounds, np.arange(n) for n = mask.sum(): their numbers, as NumPy reads
    # them)
    start, stop, step = (_bound(b, v) for v in (start, stop, step))
    if any(isinstance(v, Value) and b.branched and v in b.branched for v in (start, stop, step)):
        # (a bound that is an int or a float by the branch taken: one dtype either way, or
        # refused)
        default = branch_dtype(b, lambda *v: np.arange(*v).dtype, [start, stop, step],
                               "np.arange")
    else:
        default = np.arange(*[_weak(b, v) for v in (start, stop, step)]).dtype
    code = dtype_code(b, dtype, default, "np.arange")
    return b.emit("aten::arange", [start, stop, step, code, None, None, None], "np.arange")


def _bound(b: IRBuilder, item: Item) -> Item:
    """An ``np.arange`` bound: a 0-d array as its Python number (a float for a float array);
    an array of more dimensions is NumPy's TypeError."""
    from .lowering import to_float, to_int

    if not is_tensor(item):
        return item
    if rank_of(item) != 0:
        raise b.error("np.arange: a bound must be a number or a 0-d array (NumPy's "
                      "TypeError: only 0-d arrays convert to a number)")
    dtype = dtype_of(item)
    return to_float(b, item) if dtype is not None and dtype.kind == "f" else to_int(b, item)


def _weak(b: IRBuilder, item: Item) -> Any:
    static = b.static(item)
    if static is not ...:
        return static
    return 1.0 if scalar_type_of(item) == FLOAT else 1


def linspace(b: IRBuilder, start: Item, stop: Item, num: Item = 50, endpoint: Item = True,
             retstep: Item = False, dtype: Any = None, axis: Item = 0) -> Item:
    """``np.linspace``'s points (``_points``); with ``retstep=True`` and number bounds, also
    its step as NumPy computes it, ``(stop - start) / div`` (``div``: ``num - 1``, or ``num``
    without the endpoint), an ``np.float64``; the Python float NaN where ``div`` is 0."""
    from .numpy_dtypes import numpy_scalar

    if b.static(axis) != 0:
        raise b.error("np.linspace: axis= is not supported (the points are a vector)")
    points = _points(b, start, stop, num, endpoint, dtype)
    if not b.static_bool(retstep, "np.linspace(retstep=...)"):
        return points
    if is_tensor(start) or is_tensor(stop):
        raise b.error("np.linspace(retstep=True) takes number bounds here; compute the step "
                      "as (stop - start) / (num - 1)")
    count = b.static_int(num, "np.linspace's num with retstep=True")
    div = count - 1 if b.static_bool(endpoint, "np.linspace(endpoint=...)") else count
    if div <= 0:
        return points, float("nan")     # (NumPy's step here is the Python float nan)
    step = binary(b, "div", binary(b, "sub", stop, start), float(div))
    return points, numpy_scalar(b, to_float_item(b, step), np.dtype(np.float64))


def to_float_item(b: IRBuilder, item: Item) -> Item:
    """A number item as a float (an int difference of int bounds made float)."""
    from .lowering import to_float

    static = b.static(item)
    if isinstance(static, (bool, int, float)):
        return float(static)
    return to_float(b, item)


def _points(b: IRBuilder, start: Item, stop: Item, num: Item = 50, endpoint: Item = True,
            dtype: Any = None) -> Value:
    """``np.linspace``; ``endpoint=False`` is the first ``num`` of ``num + 1`` points (NumPy's
    step, ``(stop - start) / num``). 0-d arrays as bounds (``x.min()``) are read as floats;
    float32 ones give float32 points, computed in float32 as NumPy does."""
    from .lowering import to_float

    bounds = [v for v in (start, stop) if is_tensor(v)]
    for v in bounds:
        if rank_of(v) != 0:
            raise b.error("np.linspace: start and stop must be numbers or 0-d arrays here "
                          "(x.min(), x[0])")
    if bounds and dtype is None and all(dtype_of(v) == np.float32 for v in bounds):
        return _linspace_float32(b, start, stop, num, b.static_bool(
            endpoint, "np.linspace(endpoint=...)"))
    start, stop = (to_float(b, v) if is_tensor(v) else v for v in (start, stop))
    code = dtype_code(b, dtype, np.float64, "np.linspace")
    if b.static_bool(endpoint, "np.linspace(endpoint=...)"):
        return b.emit("aten::linspace", [start, stop, num, code, None, None, None],
                      "np.linspace")
    more = binary(b, "add", num, 1)
    points = b.emit("aten::linspace", [start, stop, more, code, None, None, None], "np.linspace")
    return b.emit(aten.slice, [points, 0, None, num, 1], "np.linspace")


def _linspace_float32(b: IRBuilder, start: Item, stop: Item, num: Item,
                      endpoint: bool) -> Value:
    """``np.linspace`` between float32 0-d arrays (and numbers), in float32 as NumPy computes
    it: ``arange(num) * ((stop - start) / div) + start`` (``/ div * delta`` where that step
    is 0, ``* delta`` where there is no step), the last point ``stop``."""
    from .lowering import where

    start, stop = (as_tensor(b, v, "np.linspace", np.dtype(np.float32)) for v in (start, stop))
    div = binary(b, "sub", num, 1) if endpoint else num
    delta = binary(b, "sub", stop, start)
    y = arange(b, 0, num, 1, np.float32)
    step = binary(b, "div", delta, div)
    scaled = where(b, binary(b, "eq", step, 0.0),
                   binary(b, "mul", binary(b, "div", y, div), delta), binary(b, "mul", y, step))
    positive = as_tensor(b, binary(b, "gt", div, 0), "np.linspace")
    y = binary(b, "add", where(b, positive, scaled, binary(b, "mul", y, delta)), start)
    if not endpoint:
        return y
    last = binary(b, "eq", arange(b, 0, num, 1, np.int64), binary(b, "sub", num, 1))
    several = as_tensor(b, binary(b, "gt", num, 1), "np.linspace")   # (one point: start)
    return where(b, binary(b, "__and__", last, several), stop, y)


def eye(b: IRBuilder, n: Item, m: Item = None, k: Item = 0, dtype: Any = None) -> Value:
    """``np.eye(n, m, k)``: ``aten::eye`` on the main diagonal; another diagonal is where
    ``row + k == column`` (``k`` may be a run-time int)."""
    code = dtype_code(b, dtype, np.float64, "np.eye")
    m = n if is_none(m) else m
    if b.static(k) == 0:
        return b.emit("aten::eye", [n, m, code, None, None, None], "np.eye")
    if scalar_type_of(k) != INT:
        raise b.error(f"np.eye: k must be an int, got {describe(k)}")
    from ..oplib.table import SCALAR_TYPE_CODES

    rows = b.emit(aten.unsqueeze, [arange(b, 0, n, 1, np.int64), 1], "np.eye")
    cols = b.emit(aten.unsqueeze, [arange(b, 0, m, 1, np.int64), 0], "np.eye")
    on = binary(b, "eq", binary(b, "add", rows, k), cols)
    return cast(b, on, SCALAR_TYPE_CODES[code], "np.eye")


def astype(b: IRBuilder, x: Item, dtype: Any, copies: bool = True) -> Value:
    """``x.astype(dtype)``; ``copies=False``: ``x`` itself when it has that dtype."""
    x = _array(b, x, ".astype")
    code = dtype_code(b, dtype, None, ".astype")
    from ..oplib.table import SCALAR_TYPE_CODES

    target = SCALAR_TYPE_CODES[code]
    if dtype_of(x) == target:
        return copy(b, x) if copies else x  # astype copies, as NumPy's does
    return cast(b, x, target, ".astype")


def copy(b: IRBuilder, x: Item) -> Value:
    """``x.copy()`` / ``np.copy(x)``: ``aten::clone``."""
    return b.emit("aten::clone", [_array(b, x, "copy"), None], "copy")


def array(b: IRBuilder, obj: Item, dtype: Any = None, copies: bool = True) -> Value:
    """``np.array(obj, dtype)`` / ``np.asarray``: an array (copied by ``np.array``), a list or
    tuple of arrays (stacked, as NumPy builds it) or of constant numbers (a constant)."""
    if is_tensor(obj):
        result = copy(b, obj) if copies and dtype is None else obj
        if rank_of(obj) == 0 and dtype is None:
            result = copy(b, obj) if result is obj else result
            b.zero_d_arrays.add(result)
    elif isinstance(obj, Value) and scalar_type_of(obj) is not None:
        # a number: a 0-d array of NumPy's dtype for it (float64, int64, bool), or of a
        # NumPy scalar's own (np.asarray(np.float32(1.5)) is float32)
        kind = b.numpy_scalars.get(obj) or np.dtype(
            {FLOAT: np.float64, INT: np.int64}.get(scalar_type_of(obj), np.bool_))
        if b.branched and obj in b.branched:   # (an int or a float by the branch taken)
            kind = branch_dtype(b, np.asarray, [obj], "np.array")
        static = b.static(obj)
        if isinstance(static, (bool, int, float)):
            result = b.value_const(np.array(static, dtype=kind))
        else:
            result = cast(b, as_tensor(b, obj, "np.array"), kind, "np.array")
    elif isinstance(obj, (list, tuple)) and obj and _numbers_only(b, obj):
        result = _from_numbers(b, obj)
        result = _fresh(b, result) if copies else result
    elif (records := records_of(b, obj)) is not None:   # (np.array(rows) of tuples)
        columns = [array(b, field, None, False) for field in records.fields]
        result = stack(b, columns, 1)   # (NumPy's dtype for them all)
    elif isinstance(obj, Value) and b.list_items.get(obj) in LIST_NUMBER_DTYPES:
        result = _from_appended_numbers(b, obj)
    elif isinstance(obj, Value) and isinstance(obj.type, ListType):
        result = _from_appended_arrays(b, obj)
    elif isinstance(obj, Value) or isinstance(obj, (list, tuple)) and any(
            is_tensor(i) for i in obj):
        items = b.tensor_list(conformed_list(b, obj, "np.array"), "np.array")
        result = typed_from_appends(b.emit(aten.stack, [items, 0], "np.array"), items, 1)
    elif isinstance(obj, (list, tuple)) and obj and all(
            isinstance(b.static(i), (bool, int, float)) for i in obj):
        result = b.value_const(np.array([b.static(i) for i in obj]))
        result = _fresh(b, result) if copies else result
    elif isinstance(b.static(obj), (bool, int, float)):
        result = b.value_const(np.array(b.static(obj)))
    else:
        raise b.error(f"np.array takes an array, or a list or tuple of arrays or of constant "
                      f"numbers, got {describe(obj)}; for numbers computed here write "
                      f"np.stack([np.asarray(a), ...]) of arrays")
    # (np.asarray(x, dtype) is x itself where x has that dtype, as NumPy's; np.array copies)
    return result if dtype is None else astype(b, result, dtype, copies=copies)


def contiguous(b: IRBuilder, a: Item, dtype: Any = None) -> Value:
    """``np.ascontiguousarray(a, dtype)``: ``np.asarray``'s array, itself where it is
    C-contiguous (``aten::contiguous``: a write into the result writes into ``a`` then, as in
    NumPy), else a contiguous copy; a 0-d array becomes a 1-element vector, as NumPy's does."""
    x = array(b, a, dtype, copies=False)
    rank = rank_of(x)
    if rank is None:
        raise b.error("np.ascontiguousarray of an array whose rank is known only when it "
                      "runs is not supported; write np.asarray(a).reshape(...) of a known rank")
    if rank == 0:
        return reshape(b, x, (1,))
    return b.emit(aten.contiguous, [x, 0], "np.ascontiguousarray")


def _from_appended_arrays(b: IRBuilder, obj: Value) -> Value:
    """``np.array(rows)`` of a list of arrays (or of NumPy scalars, ``x.sum()``) a loop
    appended: them stacked. An empty list is NumPy's empty float64 vector: given where the
    items are float64 scalars, which make a float64 vector too; for others the graph's array
    is of another dtype or rank, and an empty list raises, saying so (``aten::stack`` raised
    "stack expects a non-empty TensorList")."""
    items = b.tensor_list(conformed_list(b, obj, "np.array"), "np.array")
    stacked = typed_from_appends(b.emit(aten.stack, [items, 0], "np.array"), items, 1)
    count = b.emit("aten::len", [items], "np.array")
    if dtype_of(stacked) == np.dtype(np.float64) and rank_of(stacked) == 1:
        return _empty_float64_or(b, count, stacked)
    b.raise_unless(binary(b, "gt", count, 0),
                   "ValueError: np.array of an empty list is a float64 vector in NumPy; "
                   "fusejit gives this list's arrays their stacked array, of another dtype "
                   "or rank, and cannot when it is empty (test len(items) first)")
    stacked.node.move_before(b.graph.insert_point)      # (after the test)
    return stacked


def _from_appended_numbers(b: IRBuilder, items: Value) -> Value:
    """``np.array(values)`` of a list of numbers a loop appended: their array, in NumPy's
    dtype for them. An empty list gives NumPy's empty float64 array; for a list of ints or
    bools that is another dtype than the list's array, which the graph types once: an empty
    one raises, saying so, rather than give an int64 array NumPy would not."""
    def stacked() -> Value:
        return typed_from_appends(b.emit(aten.stack, [items, 0], "np.array"), items, 1)

    count = b.emit("aten::len", [items], "np.array")
    if b.list_items[items] != FLOAT:
        b.raise_unless(binary(b, "gt", count, 0),
                       "ValueError: np.array of an empty list is a float64 array in NumPy; "
                       "fusejit gives this list of ints or bools its int64 or bool array, "
                       "and cannot when it is empty (append floats, or test len(values) "
                       "first)")
        return stacked()
    return _empty_float64_or(b, count, stacked())


def _empty_float64_or(b: IRBuilder, count: Value, made: Value) -> Value:
    """``made`` (just emitted: the stack of a list's items) where the list has items
    (``count``), NumPy's empty float64 vector where it has none: an if whose second branch
    ``made``'s node moves into."""
    node = b.create(prim.If, [b.value(binary(b, "eq", count, 0))], 1)
    empty, full = node.add_block(), node.add_block()
    with b.graph.inserting_before(empty):
        empty.register_output(copy(b, b.value_const(np.zeros(0))))
    made.node.move_before(full.return_node)
    full.register_output(made)
    return node.output().set_type(made.type)


def _fresh(b: IRBuilder, x: Value) -> Value:
    """``np.array`` of a list of numbers: a new array at each evaluation, as NumPy makes it,
    which the program may write (``c = np.array([1.0, 2.0]); c[0] = x``: a constant is
    read-only); a copy only read is dropped again for plans (``passes/fresh_stores.py``).
    ``np.asarray`` of one stays the constant, whose sizes fold while scripting (the shims
    read them: ``np.polyval``'s loop over its coefficients is unrolled in plans)."""
    if x.node.kind != prim.Constant:
        return x
    return copy(b, x)


def _numbers_only(b: IRBuilder, obj: Item) -> bool:
    """Is ``obj`` a (nested) list or tuple of numbers and 0-d arrays, one length per level?"""
    if isinstance(obj, (list, tuple)):
        if not obj or not all(_numbers_only(b, i) for i in obj):
            return False
        lengths = {len(i) if isinstance(i, (list, tuple)) else -1 for i in obj}
        return len(lengths) == 1
    return scalar_type_of(obj) is not None or is_tensor(obj) and rank_of(obj) == 0


def _from_numbers(b: IRBuilder, obj: Item) -> Value:
    """``np.array([[1, 2], [3, 4]])``, ``np.array([x[0], n, 0.0])``: a constant when every
    number is one, else the numbers stacked, in the dtype NumPy finds for them (a Python
    float is float64 here, not weak)."""
    static = _static_numbers(b, obj)
    if static is not None:
        return b.value_const(np.array(static))
    leaves = _leaves(obj)
    dtype = np.result_type(*(dtype_of(v) if is_tensor(v) else b.numpy_scalars.get(
        v, np.dtype({FLOAT: np.float64, INT: np.int64}.get(scalar_type_of(v), np.bool_)))
        for v in leaves))
    if any(isinstance(v, Value) and b.branched and v in b.branched for v in leaves):
        # (a number that is an int or a float by the branch taken: one dtype either way, or
        # refused)
        dtype = branch_dtype(b, lambda *v: np.result_type(*[np.asarray(x) for x in v]),
                             leaves, "np.array")
    return _stacked(b, obj, dtype)


def _static_numbers(b: IRBuilder, obj: Item) -> Any:
    if isinstance(obj, (list, tuple)):
        items = [_static_numbers(b, i) for i in obj]
        return None if any(i is None for i in items) else items
    static = b.static(obj) if not is_tensor(obj) else None
    return static if isinstance(static, (bool, int, float)) else None


def _leaves(obj: Item) -> list[Item]:
    if isinstance(obj, (list, tuple)):
        return [leaf for i in obj for leaf in _leaves(i)]
    return [obj]


def _stacked(b: IRBuilder, obj: Item, dtype: np.dtype) -> Value:
    if not isinstance(obj, (list, tuple)):
        return cast(b, as_tensor(b, obj, "np.array"), dtype, "np.array")
    items = b.tensor_list([_stacked(b, i, dtype) for i in obj], "np.array")
    return typed_from_appends(b.emit(aten.stack, [items, 0], "np.array"), items, 1)


def outer(b: IRBuilder, x: Item, y: Item) -> Value:
    """``np.outer(a, b)``: a column times a row."""
    return binary(b, "mul", reshape(b, _array(b, x, "np.outer"), (-1, 1)),
                  reshape(b, _array(b, y, "np.outer"), (1, -1)))


def stack_along(b: IRBuilder, name: str, arrays: Item) -> Value:
    """``np.hstack`` (axis 1, or 0 for 1-D arrays) and ``np.vstack`` (1-D arrays as rows)."""
    shared = b.list_types.get(arrays) if isinstance(arrays, Value) else None
    if shared is not None and shared.rank:   # (a list of arrays of one type a loop built)
        if name == "vstack" and shared.rank == 1:
            return stack(b, arrays, 0)
        return concatenate(b, arrays, 1 if name == "hstack" and shared.rank > 1 else 0)
    items = list(arrays) if isinstance(arrays, (tuple, list)) else arrays
    if not isinstance(items, list) or not items:
        raise b.error(f"np.{name} takes a non-empty list or tuple of arrays")
    # (NumPy's: each item as an array, at least 2-d for vstack (a vector is a row), at least
    # 1-d for hstack, which joins along axis 1 unless the first is 1-d)
    least = 2 if name == "vstack" else 1
    items = [a if is_tensor(a) else array(b, a) for a in items]
    items = [reshape(b, a, (1,) * (least - rank_of(a)) + (-1,) * min(rank_of(a), 1))
             if rank_of(a) is not None and rank_of(a) < least else a for a in items]
    ranks = [rank_of(a) for a in items]
    if None in ranks or len(set(ranks)) != 1:
        raise b.error(f"np.{name} needs arrays of one known rank; use np.concatenate with "
                      f"an axis")
    axis = 1 if name == "hstack" and ranks[0] > 1 else 0
    return concatenate(b, items, axis)


def isnan(b: IRBuilder, x: Item) -> Value:
    return binary(b, "ne", x, x)


def _magnitude(b: IRBuilder, x: Item, name: str) -> Value:
    """``|x|`` for ``np.isinf`` and ``np.isfinite``; a bool array's as uint8 (aten has no
    ``abs`` of bools; NumPy's answer is all finite)."""
    x = _array(b, x, name)
    if dtype_of(x) == np.bool_:
        x = cast(b, x, np.dtype(np.uint8), name)
    return b.emit(aten.abs, [x], name)


def isinf(b: IRBuilder, x: Item) -> Value:
    return binary(b, "eq", _magnitude(b, x, "np.isinf"), float("inf"))


def isfinite(b: IRBuilder, x: Item) -> Value:
    return binary(b, "lt", _magnitude(b, x, "np.isfinite"), float("inf"))


def norm(b: IRBuilder, x: Item, ord: Item = None, axis: Item = None,
         keepdims: Item = False) -> Value:
    """``np.linalg.norm`` for the 2-norm (``ord=None``) of real arrays."""
    if not is_none(ord):
        raise b.error("np.linalg.norm: only ord=None (the 2-norm) is supported; write "
                      "np.abs(x).sum() or np.abs(x).max() for the 1- and inf-norms")
    x = _array(b, x, "np.linalg.norm")
    if dtype_of(x) is not None and dtype_of(x).kind not in "f":
        x = cast(b, x, np.dtype(np.float64), "np.linalg.norm")   # (as NumPy's norm does)
    return b.emit(aten.sqrt, [reduce(b, "sum", binary(b, "mul", x, x), axis, keepdims)],
                  "np.linalg.norm")


def square(b: IRBuilder, x: Item) -> Value:
    if is_tensor(x):
        (x,) = conform(b, np.square, [x], "np.square")   # (bool: int8 in NumPy)
    return binary(b, "mul", x, x)


def dot(b: IRBuilder, x: Item, y: Item) -> Value:
    """``np.dot``: a product (``matmul``), as NumPy's BLAS computes it for floats (of two
    vectors too: ``ddot``, not a sum of the products in NumPy's pairwise order); of integer
    or bool vectors the sum of the products (NumPy's own loop, which wraps the same way)."""
    floats = all(dtype_of(v) is not None and dtype_of(v).kind == "f" for v in (x, y)) or (
        dtype_of(x) is not None and dtype_of(y) is not None
        and np.result_type(dtype_of(x), dtype_of(y)).kind == "f")
    if rank_of(_array(b, x, "np.dot")) == 1 and rank_of(_array(b, y, "np.dot")) == 1 and \
            not floats:
        product = binary(b, "mul", x, y)
        total = b.emit(aten.sum, [product, None], "np.dot")
        # (aten::sum of ints or bools gives int64; NumPy's dot keeps the product's dtype)
        dtype = dtype_of(product)
        return total if dtype is None else cast(b, total, dtype, "np.dot")
    return binary(b, "matmul", x, y)


__all__ = ["REDUCTION_NAMES", "arange", "as_tensor", "astype", "contiguous", "copy",
           "cumsum", "dot", "dtype_code", "eye", "filled", "full", "index", "isfinite", "isinf",
           "isnan", "like", "linspace", "norm", "outer", "reduce", "square", "stack_along", "store"]
