"""More NumPy functions, written with the ops the frontend already emits.

Each is NumPy's own definition spelled in ops fusejit has, so values and dtypes follow::

    np.diff(x, n, axis)          x[1:] - x[:-1] along axis, n times (!= for bool arrays)
    np.count_nonzero(x, axis)    (x != 0).sum(axis); a Python int without an axis
    np.logical_and(a, b)         (a != 0) & (b != 0)            (or, xor alike)
    np.exp2(x)                   2.0 ** x
    np.expand_dims(x, axis)      aten::unsqueeze
    np.swapaxes(x, a, b)         aten::transpose
    np.flip(x, axis)             aten::flip over axis (every axis for None)
    np.isclose(a, b)             |a - b| <= atol + rtol * |b| for a finite float b, or a == b
    np.round(x, d)               rint(x * 10**d) / 10**d, as NumPy computes it
    sum(x)                       x.sum(axis=0) for an array, a + b + ... for a tuple
    np.finfo(float).eps          NumPy's number, read while scripting (np.iinfo's too)
    np.float64(v)                a cast of an array; a number converted
    np.column_stack, np.hsplit   1-D arrays as columns then cat; np.split along axis 1
    np.roll(x, k, axis)          cat of the last k % n elements and the others
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from ..ir.types import BOOL, FLOAT, INT, ListType, TensorType
from .builder import IRBuilder, Item, describe, is_none, is_tensor, scalar_type_of
from .lowering import (
    LIST_NUMBER_DTYPES,
    _array,
    as_tensor,
    binary,
    stack,
    to_bool,
    to_float,
    to_int,
    unary,
)
from .numpy_dtypes import cast, conform, dtype_of, numpy_scalar, unsigned_total
from .numpy_lowering import _slice, rank_of, reduce, scanned


def _axis(b: IRBuilder, x: Value, axis: Item, extra: int = 0) -> int:
    rank = rank_of(x)
    value = b.static_int(axis, "axis")
    if rank is None:
        raise b.error("this function needs an array of known rank")
    if not -(rank + extra) <= value < rank + extra:
        raise b.error(f"axis {value} is out of bounds for an array of dimension {rank}")
    return value % (rank + extra)


def diff(b: IRBuilder, x: Item, n: Item = 1, axis: Item = -1, prepend: Item = None,
         append: Item = None) -> Value:
    """``np.diff``; ``prepend``/``append`` join ``x`` along the axis first, as NumPy joins
    them (a number, or a 0-d array, broadcast to one slice of ``x``; the dtypes promoted as
    ``np.concatenate`` promotes them), except where ``n`` is 0 (``x`` itself)."""
    from .lowering import concatenate, size
    from .numpy_lowering import array

    x = _array(b, x, "np.diff")
    times = b.static_int(n, "np.diff's n")
    if times < 0:
        raise b.error("np.diff: n must be non-negative")
    dim = _axis(b, x, axis)
    if times and not (is_none(prepend) and is_none(append)):
        pieces: list[Item] = []
        for value in (prepend, x, append):
            if value is not x and is_none(value):
                continue
            if value is not x:
                value = array(b, value, copies=False) if not is_tensor(value) else value
                if rank_of(value) == 0:
                    # (one slice of x: its sizes, 1 along the axis)
                    sizes = tuple(1 if d == dim else size(b, x, d) for d in range(rank_of(x)))
                    value = broadcast_to(b, value, sizes)
            pieces.append(value)
        x = concatenate(b, pieces, dim)
    for _ in range(times):
        hi, lo = _slice(b, x, dim, slice(1, None)), _slice(b, x, dim, slice(None, -1))
        x = binary(b, "ne" if dtype_of(x) == np.dtype(np.bool_) else "sub", hi, lo)
    return x


def _truth(b: IRBuilder, x: Item, what: str) -> Value:
    x = _array(b, x, what)
    return x if dtype_of(x) == np.dtype(np.bool_) else binary(b, "ne", x, 0)


def count_nonzero(b: IRBuilder, x: Item, axis: Item = None) -> Item:
    total = reduce(b, "sum", _truth(b, x, "np.count_nonzero"), axis)
    if axis is not None:
        return total
    # (NumPy's count is an np.int64: a number here, returned as the NumPy scalar it is)
    return numpy_scalar(b, to_int(b, total), np.dtype(np.int64))


def logical(op: str):
    def lower(b: IRBuilder, x1: Item, x2: Item) -> Value:
        what = f"np.logical_{op}"
        sides = [_truth(b, v, what) if is_tensor(v) else as_tensor(b, bool(b.static(v)), what)
                 if isinstance(b.static(v), (bool, int, float)) else _bad(b, what, v)
                 for v in (x1, x2)]
        return binary(b, op, *sides)
    return lower


def _bad(b: IRBuilder, what: str, item: Item):
    raise b.error(f"{what} takes arrays or constant numbers, got {describe(item)}")


def exp2(b: IRBuilder, x: Item) -> Value:
    return binary(b, "pow", 2.0, _array(b, x, "np.exp2"))


def expand_dims(b: IRBuilder, x: Item, axis: Item) -> Value:
    x = _array(b, x, "np.expand_dims")
    return b.emit(aten.unsqueeze, [x, _axis(b, x, axis, extra=1)], "np.expand_dims")


def swapaxes(b: IRBuilder, x: Item, axis1: Item, axis2: Item) -> Value:
    x = _array(b, x, "np.swapaxes")
    return b.emit(aten.transpose, [x, _axis(b, x, axis1), _axis(b, x, axis2)], "np.swapaxes")


def flip(b: IRBuilder, x: Item, axis: Item = None) -> Value:
    x = _array(b, x, "np.flip")
    if axis is None:
        rank = rank_of(x)
        if rank is None:
            raise b.error("np.flip without an axis needs an array of known rank; name the "
                          "axes: np.flip(x, axis=(0, 1))")
        dims = list(range(rank))
    else:   # (aten::flip wraps negative dims and checks them when it runs)
        items = axis if isinstance(axis, (tuple, list)) else (axis,)
        dims = [b.static_int(a, "np.flip's axis") for a in items]
    return b.emit(aten.flip, [x, dims], "np.flip") if dims else x


def isclose(b: IRBuilder, a: Item, x: Item, rtol: Item = 1e-05, atol: Item = 1e-08,
            equal_nan: Item = False) -> Value:
    if b.static(equal_nan) is not False:
        raise b.error("np.isclose: equal_nan=True is not supported; write "
                      "np.isclose(a, b) | (np.isnan(a) & np.isnan(b))")
    # NumPy's: b as a float (an int's |a - b| could wrap at the int minimum), and an
    # infinite b is close only to itself
    if not is_tensor(x):
        x = to_float(b, x)
    elif dtype_of(x) is not None and dtype_of(x).kind in "biu":
        x = cast(b, x, np.dtype(np.float64), "np.isclose")
    near = binary(b, "le", unary(b, "abs", binary(b, "sub", a, x)),
                  binary(b, "add", atol, binary(b, "mul", rtol, unary(b, "abs", x))))
    finite = binary(b, "lt", unary(b, "abs", x), float("inf"))
    return binary(b, "or", binary(b, "and", near, finite), binary(b, "eq", a, x))


def round_(b: IRBuilder, x: Item, decimals: Item = 0) -> Value:
    digits = b.static_int(decimals, "np.round's decimals")
    dtype = dtype_of(x) if is_tensor(x) else None
    if digits >= 0 and dtype is not None and dtype.kind in "iu":
        return b.emit("aten::clone", [x, None], "np.round")   # (ints: NumPy's copy)
    if digits == 0:
        return unary(b, "round", x, "np.round")
    scale = 10.0 ** digits
    x = _array(b, x, "np.round")
    if dtype is not None and dtype.kind in "iu":
        # (np.round(ints, -1): NumPy divides by 10 in float64, rounds half to even,
        # multiplies back and casts to the array's dtype: 125 as int8 is 120)
        tens = 10.0 ** -digits
        rounded = unary(b, "round", binary(b, "div", x, tens), "np.round")
        return cast(b, binary(b, "mul", rounded, tens), dtype, "np.round")
    if dtype_of(x) is not None and dtype_of(x).kind != "f":
        raise b.error("np.round with decimals takes a float or int array; convert it with "
                      ".astype(np.float64)")
    return binary(b, "div", unary(b, "round", binary(b, "mul", x, scale), "np.round"), scale)


def builtin_round(b: IRBuilder, x: Item, ndigits: Item = None) -> Item:
    """Python's ``round``: half to even. ``round(x)`` is an int; ``round(x, n)`` of an array
    or a NumPy scalar is ``np.round`` (NumPy's ``__round__``)."""
    if isinstance(x, (bool, int, float)) and isinstance(ndigits, (int, type(None))):
        return round(x, ndigits)
    if ndigits is None:
        return x if scalar_type_of(x) in (INT, BOOL) else to_int(b, unary(b, "round", x))
    if is_tensor(x) or x in b.numpy_scalars:
        return round_(b, x, ndigits)
    raise b.error("round(x, ndigits) of a Python float rounds its exact decimal value, which "
                  "fusejit does not; write np.round(x, ndigits) (NumPy's rounding)")


def builtin_sum(b: IRBuilder, items: Item, start: Item = 0) -> Item:
    if isinstance(items, Value) and isinstance(items.type, ListType) and isinstance(
            items.type.elem, TensorType):
        # (a list appended to in a loop may be empty when it runs: Python's sum is then the
        # start, 0, which is not what the rows' sum is here)
        b.raise_unless(binary(b, "gt", b.emit("aten::len", [items], "sum()"), 0),
                       "ValueError: sum() of a list that is empty when it runs: Python "
                       "gives its start (0), where fusejit sums the list's items into an "
                       "array or number of theirs; test that the list is not empty first")
        if b.list_items.get(items) in LIST_NUMBER_DTYPES:   # (numbers: a Python number)
            total = binary(b, "add", reduce(b, "sum", stack(b, items), 0), start)
            return (to_float if b.list_items[items] == FLOAT else to_int)(b, total)
        items = stack(b, items)   # (a list of arrays built by append: the rows' sum)
    if is_tensor(items):
        if rank_of(items) == 0:
            raise b.error("sum() of a 0-d array: write float(x) or x.sum()")
        total = reduce(b, "sum", items, 0)
        dtype = dtype_of(items)
        if dtype is not None and dtype.kind in "iuf":  # row + row keeps the rows' dtype
            total = cast(b, total, dtype, "sum()")
        return total if b.static(start) == 0 else binary(b, "add", total, start)
    if not isinstance(items, (tuple, list)):
        raise b.error(f"sum() takes an array, a tuple or a list, got {describe(items)}")
    total = start
    for item in items:
        total = binary(b, "add", total, item)
    return total


def cumprod(b: IRBuilder, x: Item, axis: Item = None) -> Value:
    """``np.cumprod``/``x.cumprod()``: ``aten::cumprod`` (flattened without an axis)."""
    x = _array(b, x, "cumprod")
    (x,) = conform(b, np.cumprod, [x], "cumprod")
    x, dim = scanned(b, x, axis, "cumprod")
    return b.emit("aten::cumprod", [x, dim, unsigned_total(x)], "cumprod")


def finfo(b: IRBuilder, dtype: Item) -> np.finfo:
    """``np.finfo(float).eps``, ``np.finfo(x.dtype).tiny``: NumPy's own object, read while
    scripting (its attributes become numbers, as a NumPy scalar global does)."""
    try:
        return np.finfo(np.dtype(b.static(dtype)))
    except (TypeError, ValueError):
        raise b.error(f"np.finfo takes a float dtype, got {describe(dtype)}") from None


def iinfo(b: IRBuilder, dtype: Item) -> np.iinfo:
    """``np.iinfo(np.uint16).max``, ``np.iinfo(x.dtype).bits``: NumPy's own object, read
    while scripting (its attributes are Python ints, weak as NumPy makes them)."""
    try:
        return np.iinfo(np.dtype(b.static(dtype)))
    except (TypeError, ValueError):
        raise b.error(f"np.iinfo takes an integer dtype, got {describe(dtype)}") from None


def scalar_of(dtype: type):
    """``np.float64(v)``/``np.float32(v)``...: an array cast to the dtype; a number converted
    (a Python number, weak like a NumPy scalar global)."""
    kind = np.dtype(dtype).kind
    name = f"np.{np.dtype(dtype).name}"

    def lower(b: IRBuilder, x: Item = 0) -> Item:
        if is_tensor(x):
            return cast(b, x, np.dtype(dtype), name)
        if kind == "f":
            return to_float(b, x)
        return to_bool(b, x) if kind == "b" else to_int(b, x)
    return lower


def column_stack(b: IRBuilder, arrays: Item) -> Value:
    """``np.column_stack``: 1-D arrays as columns, beside 2-D ones."""
    from .lowering import concatenate, reshape

    if isinstance(arrays, Value) and isinstance(arrays.type, ListType):
        # (a list a loop built: its arrays share one type, so one rank)
        shared = b.list_types.get(arrays)
        rank = shared.rank if isinstance(shared, TensorType) else None
        if rank in (1, 2):
            joined = stack(b, arrays, 1) if rank == 1 else concatenate(b, arrays, 1)
            if isinstance(joined, Value) and isinstance(joined.type, TensorType):
                joined.set_type(shared.with_(sizes=(None, None), strides=None))
            return joined
        raise b.error("np.column_stack of a list a loop built takes 1-D or 2-D arrays of one "
                      "type")
    if not isinstance(arrays, (tuple, list)) or not arrays:
        raise b.error("np.column_stack takes a non-empty list or tuple of arrays")
    columns = [reshape(b, a, (-1, 1)) if rank_of(_array(b, a, "np.column_stack")) == 1 else a
               for a in arrays]
    return concatenate(b, columns, 1)


def split_along(axis: int, name: str):
    """``np.hsplit`` (axis 1, or 0 for a 1-D array) and ``np.vsplit`` (axis 0)."""
    from .lowering import split

    def lower(b: IRBuilder, x: Item, sections: Item) -> tuple[Value, ...]:
        rank = rank_of(_array(b, x, name))
        return split(b, x, sections, 0 if rank == 1 else axis)
    return lower


def roll(b: IRBuilder, a: Item, shift: Item, axis: Item = None) -> Value:
    """``np.roll`` by an int shift: the last ``shift % n`` elements moved to the front;
    shifts and axes as tuples roll along each pair in turn (one of them broadcast to the
    other's length, as NumPy's)."""
    from .lowering import concatenate, reshape, size

    if isinstance(shift, (tuple, list)) or isinstance(axis, (tuple, list)):
        shifts = list(shift) if isinstance(shift, (tuple, list)) else None
        axes = list(axis) if isinstance(axis, (tuple, list)) else None
        if axes is None and is_none(axis):
            axes = [None] * len(shifts)     # (the flattened array, by each shift in turn)
        shifts = shifts if shifts is not None else [shift] * len(axes)
        axes = axes if axes is not None else [axis] * len(shifts)
        if len(shifts) != len(axes):
            raise b.error(f"np.roll: {len(shifts)} shifts for {len(axes)} axes (NumPy's "
                          "ValueError: shape mismatch)")
        x = _array(b, a, "np.roll")
        for one_shift, one_axis in zip(shifts, axes):
            x = roll(b, x, one_shift, one_axis)
        return x
    x = given = _array(b, a, "np.roll")
    if isinstance(shift, Value) and shift.type == INT and b.static(shift) is ... and \
            shift not in b.graph.inputs:
        steps = shift       # (an int known when it runs: a loop's ``np.roll(f, dy, axis=0)``)
    else:
        # (a constant; a parameter becomes one, each value a signature: rolls of one array
        # by constant shifts are windows of one wrapped copy, passes/rolls_as_views.py)
        steps = b.static_int(shift, "np.roll's shift")
    flat = axis is None and rank_of(x) != 1       # (a vector rolls along its one axis)
    if flat:
        original = b.emit(aten.size, [x], "np.roll")
        x, dim = reshape(b, x, (-1,)), 0
    else:
        dim = _axis(b, x, 0 if axis is None else axis)
    n = size(b, x, dim)
    # (modulo 1 along an empty axis: NumPy rolls it into itself, where % 0 would raise)
    cut = binary(b, "sub", n, binary(b, "remainder", steps, binary(b, "max", n, 1)))
    rolled = concatenate(b, [_slice(b, x, dim, slice(cut, None)),
                             _slice(b, x, dim, slice(None, cut))], dim)
    if not flat:
        return rolled
    rolled = b.emit(aten.reshape, [rolled, original], "np.roll")
    if isinstance(given.type, TensorType):   # (the argument's shape: what later ops fuse on)
        rolled.set_type(given.type.with_(strides=None))
    return rolled


_UINT8 = np.dtype(np.uint8)


def _bit_axis(b: IRBuilder, x: Value, axis: Item, what: str) -> Value:
    """``x`` flattened (``axis=None``), or as it is where ``axis`` is its last; other axes are
    refused (the bits of one run along the last)."""
    from .lowering import reshape

    if is_none(axis):
        return reshape(b, x, (-1,))
    if _axis(b, x, axis) != rank_of(x) - 1:
        raise b.error(f"{what}: only axis=None or the last axis is supported; move the axis "
                      f"last first (np.moveaxis)")
    return x


def _bit_weights(b: IRBuilder, bitorder: Item, what: str) -> np.ndarray:
    """The eight bits' positions in a byte, in ``bitorder``: 7 to 0 (``'big'``) or 0 to 7."""
    order = b.static(bitorder)
    if order not in ("big", "little"):
        raise b.error(f"{what}: bitorder must be 'big' or 'little', got {describe(bitorder)}")
    shifts = np.arange(8, dtype=np.uint8)
    return shifts[::-1].copy() if order == "big" else shifts


def packbits(b: IRBuilder, a: Item, axis: Item = None, bitorder: Item = "big") -> Value:
    """``np.packbits``: each eight elements (nonzero or not) along the flattened array or its
    last axis as the bits of one uint8, the last byte padded with zeros."""
    from .lowering import reshape, size

    what = "np.packbits"
    x = _array(b, a, what)
    if dtype_of(x) is None or dtype_of(x).kind not in "biu":
        raise b.error(f"{what}: expected an array of integer or boolean dtype, got "
                      f"{describe(x)} (NumPy's TypeError)")
    shifts = _bit_weights(b, bitorder, what)
    x = _bit_axis(b, x, axis, what)
    rank = rank_of(x)
    bits = cast(b, binary(b, "ne", x, 0), _UINT8, what)
    pad = binary(b, "remainder", binary(b, "sub", 0, size(b, bits, rank - 1)), 8)
    bits = b.emit(aten.constant_pad_nd, [bits, [0, pad], 0], what)
    groups = reshape(b, bits, (*(size(b, bits, d) for d in range(rank - 1)), -1, 8))
    # (bit by bit, the eight strided views of one map: NumPy's sum over a last axis of 8 took
    # 3.8 ms of 200,000 bytes, a loop of 8 each)
    packed = None
    for position, shift in enumerate(shifts.tolist()):
        bit = b.emit(aten.select, [groups, -1, position], what)
        term = binary(b, "lshift", bit, shift) if shift else bit
        packed = term if packed is None else binary(b, "or", packed, term)
    return packed


def unpackbits(b: IRBuilder, a: Item, axis: Item = None, count: Item = None,
               bitorder: Item = "big") -> Value:
    """``np.unpackbits``: the eight bits of each uint8, along the flattened array or its last
    axis, as uint8 zeros and ones; ``count`` keeps that many (zeros after the last byte's), or
    drops ``-count`` from the end."""
    from .lowering import reshape, size

    what = "np.unpackbits"
    x = _array(b, a, what)
    if dtype_of(x) != _UINT8:
        raise b.error(f"{what}: expected an input array of unsigned byte data type, got "
                      f"{describe(x)} (NumPy's TypeError)")
    shifts = _bit_weights(b, bitorder, what)
    x = _bit_axis(b, x, axis, what)
    rank = rank_of(x)
    bits = binary(b, "and", binary(b, "rshift", b.emit(aten.unsqueeze, [x, -1], what),
                                   b.value_const(shifts)), 1)
    bits = reshape(b, bits, (*(size(b, x, d) for d in range(rank - 1)), -1))
    if is_none(count):
        return bits
    n = b.static_int(count, f"{what}'s count")
    if n >= 0:     # (NumPy pads with zeros past the last byte)
        bits = b.emit(aten.constant_pad_nd, [bits, [0, n], 0], what)
    return _slice(b, bits, rank - 1, slice(None, n))


def convolve(b: IRBuilder, a: Item, v: Item, mode: Item = "full") -> Value:
    """``np.convolve`` of two vectors: ``fusejit::convolve``, NumPy's own (its result dtype,
    its errors); its gradient correlates (``autodiff/array_rules.py``)."""
    from ..oplib.array_ops import CONVOLVE_MODES
    from .numpy_linalg import _typed
    from .numpy_lowering import array

    # (a list or tuple of numbers: the array NumPy makes of it)
    a, v = (array(b, item, None, False) if isinstance(item, (list, tuple)) else item
            for item in (a, v))
    x, k = _array(b, a, "np.convolve"), _array(b, v, "np.convolve")
    if rank_of(x) != 1 or rank_of(k) != 1:
        raise b.error("np.convolve takes two 1-D arrays (of known rank)")
    name = b.static(mode)
    if name not in CONVOLVE_MODES:
        raise b.error(f"np.convolve's mode must be 'full', 'valid' or 'same', got "
                      f"{describe(mode)}")
    out = b.emit("fusejit::convolve", [x, k, CONVOLVE_MODES.index(name)], "np.convolve")
    return _typed(out, x, np.result_type(dtype_of(x), dtype_of(k)), 1)


def interp(b: IRBuilder, x: Item, xp: Item, fp: Item, left: Item = None, right: Item = None,
           period: Item = None) -> Value:
    """``np.interp``: ``fusejit::interp``, NumPy's own walk (float64 of ``x``'s shape, a NumPy
    scalar for a number); its gradient reaches all five operands
    (``fusejit::interp_backward``)."""
    from .numpy_linalg import _typed
    from .numpy_lowering import array

    what = "np.interp"
    x, xp, fp = (array(b, item, None, False) if isinstance(item, (list, tuple)) else item
                 for item in (x, xp, fp))
    x = as_tensor(b, x, what, np.float64)
    points, values = _array(b, xp, what), _array(b, fp, what)
    if rank_of(points) not in (None, 1) or rank_of(values) not in (None, 1):
        raise b.error(f"{what}: xp and fp must be 1-D")
    for item in (x, points, values):
        dtype = dtype_of(item)
        if dtype is not None and dtype.kind not in "biuf":
            raise b.error(f"{what}: {dtype} values are not supported (real numbers only)")
    ends = [None if is_none(end) else as_tensor(b, end, what, np.float64)
            for end in (left, right)]
    if not is_none(period):
        x, points, values = _periodic(b, x, points, values, period)
        ends = [None, None]     # (NumPy ignores left and right with a period)
    out = b.emit("fusejit::interp", [x, points, values, *ends], what)
    return _typed(out, x, np.float64, rank_of(x) if rank_of(x) is not None else 0)


def _periodic(b: IRBuilder, x: Value, points: Value, values: Value,
              period: Item) -> tuple[Value, Value, Value]:
    """NumPy's ``np.interp(..., period=p)`` as a plain one: ``x`` and the points modulo
    ``|p|`` (NumPy's ValueError for a period of 0), the points sorted with their values, and
    each end wrapped around to the other (the last point less ``p`` before the first, the
    first plus ``p`` after the last)."""
    from .lowering import concatenate
    from .numpy_arrays import advanced_index
    from .numpy_linalg import argsort

    what = "np.interp"
    if is_tensor(period) and (period.type.rank != 0 or dtype_of(period) is None or
                              dtype_of(period).kind not in "iuf") or \
            not is_tensor(period) and scalar_type_of(period) not in (INT, FLOAT):
        raise b.error(f"{what}: period must be a number, got {describe(period)}")
    p = as_tensor(b, period, what, np.float64)
    b.raise_unless(to_bool(b, binary(b, "ne", p, 0)), "ValueError: period must be a non-zero value")
    p = unary(b, "abs", p)
    x = binary(b, "remainder", x, p)
    points = binary(b, "remainder", as_tensor(b, points, what, np.float64), p)
    order = argsort(b, points)
    points = advanced_index(b, points, [order])
    values = advanced_index(b, values, [order])
    points = concatenate(b, [binary(b, "sub", _slice(b, points, 0, slice(-1, None)), p),
                             points,
                             binary(b, "add", _slice(b, points, 0, slice(0, 1)), p)], 0)
    values = concatenate(b, [_slice(b, values, 0, slice(-1, None)), values,
                             _slice(b, values, 0, slice(0, 1))], 0)
    return x, points, values


def broadcast_to(b: IRBuilder, array: Item, shape: Item) -> Value:
    """``np.broadcast_to(x, shape)``: ``aten::expand`` (a read-only view in NumPy too; its
    gradient sums over the copies)."""
    from .numpy_lowering import _shape

    x = _array(b, array, "np.broadcast_to")
    return b.emit("aten::expand", [x, _shape(b, shape, "np.broadcast_to"), False],
                  "np.broadcast_to")




def reduceat(name: str):
    """``np.add.reduceat(x, indices, axis=0)`` (and ``multiply``, ``maximum``, ``minimum``):
    ``fusejit::reduceat``, NumPy's own (each segment from one index to the next, in order),
    in the dtype NumPy's gives; ``indices`` an integer array, list or tuple."""
    what = f"np.{name}.reduceat"

    def lower(b: IRBuilder, array: Item, indices: Item, axis: Item = 0, dtype: Item = None,
              out: Item = None) -> Value:
        from .numpy_linalg import _typed
        from .numpy_lowering import array as made_array

        if not is_none(dtype) or not is_none(out):
            raise b.error(f"{what}: dtype= and out= are not supported")
        x = _array(b, array, what)
        idx = made_array(b, indices, None, False) if isinstance(indices, (list, tuple)) \
            else indices
        if not is_tensor(idx) or dtype_of(idx) is None or dtype_of(idx).kind not in "iu" or \
                rank_of(idx) != 1:
            raise b.error(f"{what}: indices must be a 1-D integer array, list or tuple, got "
                          f"{describe(indices)}")
        rank = rank_of(x)
        if rank is None or rank == 0 or dtype_of(x) is None:
            raise b.error(f"{what} takes an array of known rank and dtype, of 1 or more "
                          f"dimensions")
        dim = _axis(b, x, axis)
        result = getattr(np, name).reduceat(np.zeros((1,) * rank, dtype_of(x)), [0],
                                            axis=dim).dtype
        made = b.emit("fusejit::reduceat", [x, idx, dim, b.value_const(name)], what)
        return _typed(made, x, result, rank)
    return lower


class IndexGrid:
    """``np.mgrid`` (dense) or ``np.ogrid`` (sparse) while scripting: indexed by slices
    (``index_grid``)."""

    __slots__ = ("sparse",)

    def __init__(self, sparse: bool):
        self.sparse = sparse


def index_grid(b: IRBuilder, grid: IndexGrid, index: Item) -> Item:
    """``np.mgrid[a:b:s, c:d]`` and ``np.ogrid[...]`` with real steps, as NumPy's grids:
    along axis k the points ``i * step + start`` for ``i < ceil((stop - start) / step)`` (a
    negative count is NumPy's ValueError), in the dtype of all of them (int64, or float64
    where any bound or step is a float); dense, each broadcast to the whole grid and stacked;
    sparse, each shaped to its axis. One slice is ``np.arange``'s points, as in NumPy."""
    from .lowering import reshape, size, stack
    from .numpy_lowering import arange

    what = "np.ogrid" if grid.sparse else "np.mgrid"
    items = index if isinstance(index, tuple) else (index,)
    if not items or not all(isinstance(i, slice) for i in items):
        raise b.error(f"{what} is indexed by slices (start:stop:step)")
    numbers = []
    for part in items:
        for value in (part.start, part.stop, part.step):
            if value is None:
                continue
            if isinstance(value, complex) or scalar_type_of(value) not in (INT, FLOAT):
                raise b.error(f"{what}: the bounds and steps must be real numbers (a complex "
                              f"step, a number of points, is not supported: use np.linspace), "
                              f"got {describe(value)}")
            numbers.append(value)
    kinds = {scalar_type_of(v) for v in numbers}
    dtype = np.dtype(np.float64) if FLOAT in kinds else np.dtype(np.int64)
    if not isinstance(index, tuple):    # (NumPy's own np.arange)
        part = items[0]
        return arange(b, 0 if part.start is None else part.start, part.stop,
                      1 if part.step is None else part.step, dtype)
    lines = []
    for part in items:
        # (NumPy's grid: i * step + start for i < ceil((stop - start) / step))
        start = 0 if part.start is None else part.start
        step = 1 if part.step is None else part.step
        count = binary(b, "div", binary(b, "sub", part.stop, start), to_float(b, step))
        count = to_int(b, unary(b, "ceil", count))
        b.raise_unless(binary(b, "ge", count, 0),
                       "ValueError: negative dimensions are not allowed")
        points = arange(b, 0, count, 1, dtype)
        lines.append(binary(b, "add", binary(b, "mul", points, step), start))
    rank = len(lines)
    shaped = [reshape(b, line, tuple(-1 if a == k else 1 for a in range(rank)))
              for k, line in enumerate(lines)]
    if grid.sparse:
        return tuple(shaped)
    full = tuple(size(b, line, 0) for line in lines)
    return stack(b, [broadcast_to(b, line, full) for line in shaped], 0)


__all__ = ["IndexGrid", "broadcast_to", "builtin_sum", "column_stack", "convolve",
           "count_nonzero", "cumprod", "diff", "exp2", "expand_dims", "finfo", "index_grid",
           "isclose", "logical", "reduceat", "roll", "round_", "scalar_of", "split_along",
           "swapaxes"]
