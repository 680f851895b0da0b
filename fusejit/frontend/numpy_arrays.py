"""Lowerings for NumPy's axis permutations, diagonals, triangles, integer-array indexing, the
smooth binary maps, the keyword forms of ``clip`` and builtin ``min``/``max``, and reshaping
helpers::

    x.transpose(2, 0, 1)         aten::permute(%x, [2, 0, 1])      (x.T of 3-D: reversed)
    np.trace(a, k)               aten::sum(aten::diagonal(%a, %k, 0, 1), [-1])
    np.diag(a, k) (2-D)          aten::diagonal(%a, %k, 0, 1)
    np.diag(v, k) (1-D)          aten::diag_embed(%v, %k, 0, 1)
    np.triu(a, k), np.tril       aten::triu(%a, %k), aten::tril
    np.logaddexp, np.hypot       aten::logaddexp(%a, %b), aten::hypot
    x[idx], x[:, [2, 0]]         aten::index(%x, [None, %idx])     NumPy's advanced indexing
    np.clip(x, a_min=, a_max=)   aten::clamp (number bounds) or clamp(Tensor) (array bounds)
    max(a, b, c), min((a, b))    a chain of max/min
    np.squeeze, np.atleast_2d    aten::squeeze / a reshape to the other dims; unsqueeze
    np.pad(x, w)                 aten::constant_pad_nd(%x, [w...]); fusejit::pad in other modes
    np.tile, np.repeat           reshape, expand, reshape (copies as blocks / element-wise)
    np.take, take_along_axis     aten::index, with aranges along the other axes
    a, b = x                     aten::select(%x, 0, 0), aten::select(%x, 0, 1) (length checked)

Integer-array indexing keeps NumPy's semantics (negative indices count from the end, an index
out of range is an IndexError, ints beside an array broadcast with it, separated advanced
indices put their dimensions first): ``aten::index`` runs NumPy's own indexing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..ir.types import INT, TensorType
from ..oplib.array_ops import PAD_MODES
from .builder import IRBuilder, Item, describe, is_none, is_tensor, scalar_type_of
from .lowering import _array, as_tensor, binary, reshape, transpose
from .numpy_dtypes import cast, conform, dtype_of, numpy_dtype


def _rank(b: IRBuilder, x: Value, what: str) -> int:
    rank = x.type.rank
    if rank is None:
        raise b.error(f"{what} needs an array of known rank")
    return rank


def _axis(b: IRBuilder, rank: int, axis: Item, what: str) -> int:
    value = b.static_int(axis, what)
    if not -rank <= value < max(rank, 1):
        raise b.error(f"{what} {value} is out of bounds for an array of dimension {rank}")
    return value % max(rank, 1)


def transpose_axes(b: IRBuilder, x: Item, axes: Item) -> Value:
    """``x.transpose(*axes)`` / ``np.transpose(x, axes)``; no axes reverses them (``x.T``)."""
    x = _array(b, x, "transpose")
    if isinstance(axes, tuple) and len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])   # x.transpose((1, 0, 2))
    if is_none(axes) or axes == () or (isinstance(axes, tuple) and len(axes) == 1
                                       and is_none(axes[0])):
        return transpose(b, x)
    if not isinstance(axes, (tuple, list)):
        raise b.error(f"transpose: axes must be a tuple of ints, got {describe(axes)}")
    rank = _rank(b, x, "transpose with axes")
    order = [_axis(b, rank, a, "transpose's axis") for a in axes]
    if sorted(order) != list(range(rank)):
        raise b.error(f"transpose: axes {tuple(b.static(a) for a in axes)} do not match an "
                      f"array of dimension {rank}")
    if order == list(range(rank)):
        return x
    return b.emit("aten::permute", [x, order], "transpose")


def moveaxis(b: IRBuilder, a: Item, source: Item, destination: Item) -> Value:
    """``np.moveaxis(a, source, destination)``: ``aten::permute`` with the moved axes at
    their destinations and the others in their order, as NumPy builds the permutation."""
    x = _array(b, a, "np.moveaxis")
    rank = _rank(b, x, "np.moveaxis")

    def axes(item: Item, name: str) -> list[int]:
        items = item if isinstance(item, (tuple, list)) else (item,)
        found = [_axis(b, rank, v, f"np.moveaxis's {name}") for v in items]
        if len(set(found)) != len(found):
            raise b.error(f"np.moveaxis: repeated axis in `{name}` argument")
        return found

    moved, to = axes(source, "source"), axes(destination, "destination")
    if len(moved) != len(to):
        raise b.error("np.moveaxis: `source` and `destination` arguments must have the same "
                      "number of elements")
    order = [d for d in range(rank) if d not in moved]
    for at, d in sorted(zip(to, moved)):
        order.insert(at, d)
    return x if order == list(range(rank)) else b.emit("aten::permute", [x, order],
                                                          "np.moveaxis")


def indices(b: IRBuilder, dimensions: Item, dtype: Any = None, sparse: Item = False) -> Value:
    """``np.indices(dimensions)``: one grid per axis, its index along that axis (an arange
    shaped to the axis and broadcast to the others), stacked; ``dtype`` cast as NumPy casts
    it (int, the default: int64)."""
    from .lowering import stack
    from .numpy_lowering import arange, astype
    from .numpy_more import broadcast_to

    if b.static_bool(sparse, "np.indices(sparse=...)"):
        raise b.error("np.indices(sparse=True) is not supported; write np.ix_ of aranges")
    items = dimensions if isinstance(dimensions, (tuple, list)) else (dimensions,)
    dims = tuple(items)     # (ints, known while scripting or when it runs: x.shape)
    for n in dims:
        if scalar_type_of(n) is not INT and not isinstance(b.static(n), int):
            raise b.error(f"np.indices: dimensions must be ints, got {describe(n)}")
    grids = []
    for axis, n in enumerate(dims):
        line = reshape(b, arange(b, n), tuple(n if a == axis else 1 for a in range(len(dims))))
        grids.append(broadcast_to(b, line, dims))
    if not grids:
        raise b.error("np.indices(()) is not supported (an empty grid)")
    grid = stack(b, grids, 0)
    return grid if dtype is None or dtype is int else astype(b, grid, dtype)


def _order(b: IRBuilder, order: Item, what: str) -> str:
    """A static ``order=`` of ``np.ravel``/``reshape``: "C" or "F" ("A" and "K" follow the
    argument's memory layout, which scripting does not know)."""
    value = b.static(order)
    if value not in ("C", "F"):
        raise b.error(f"{what}: order={value!r} is not supported; order='C' or 'F' is")
    return value


def ravel(b: IRBuilder, a: Item, order: Item = "C") -> Value:
    """``np.ravel(a, order)``: the elements in C order, or in F order (those of ``a.T``)."""
    x = _array(b, a, "np.ravel")
    if _order(b, order, "np.ravel") == "F":
        x = transpose(b, x)
    return reshape(b, x, (-1,))


def reshape_ordered(b: IRBuilder, a: Item, shape: Item, order: Item = "C") -> Value:
    """``np.reshape(a, shape, order)`` / ``a.reshape(shape, order=...)``: order "F" reads and
    writes the elements in F order, ``a.T`` reshaped to the reversed shape, transposed."""
    x = _array(b, a, "reshape")
    if _order(b, order, "reshape") == "C":
        return reshape(b, x, shape)
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    return transpose(b, reshape(b, transpose(b, x), dims[::-1]))


def diagonal(b: IRBuilder, a: Item, offset: Item = 0, axis1: Item = 0, axis2: Item = 1,
             what: str = "np.diagonal") -> Value:
    a = _array(b, a, what)
    rank = _rank(b, a, what)
    if rank < 2:
        raise b.error(f"{what} needs an array of at least 2 dimensions")
    d1, d2 = _axis(b, rank, axis1, f"{what}'s axis1"), _axis(b, rank, axis2, f"{what}'s axis2")
    return b.emit("aten::diagonal", [a, offset, d1, d2], what)


def trace(b: IRBuilder, a: Item, offset: Item = 0, axis1: Item = 0, axis2: Item = 1,
          dtype: Item = None, out: Item = None) -> Value:
    if not is_none(dtype) or not is_none(out):
        raise b.error("np.trace: the dtype= and out= arguments are not supported")
    (a,) = conform(b, np.sum, [_array(b, a, "np.trace")], "np.trace")   # (a sum's dtype)
    return b.emit(aten.sum, [diagonal(b, a, offset, axis1, axis2, "np.trace"), [-1], False, None],
                  "np.trace")


def diag(b: IRBuilder, v: Item, k: Item = 0) -> Value:
    v = _array(b, v, "np.diag")
    rank = _rank(b, v, "np.diag")
    if scalar_type_of(k) is None or b.static(k) is ...:
        raise b.error(f"np.diag: k must be a constant int, got {describe(k)}")
    if rank == 1:
        return b.emit("aten::diag_embed", [v, k, 0, 1], "np.diag")
    if rank == 2:
        return b.emit("aten::diagonal", [v, k, 0, 1], "np.diag")
    raise b.error(f"np.diag takes a 1-D or 2-D array, got {rank}-D")


def triangle(name: str):
    def lower(b: IRBuilder, m: Item, k: Item = 0) -> Value:
        m = _array(b, m, f"np.{name}")
        if _rank(b, m, f"np.{name}") < 2:
            raise b.error(f"np.{name} of a 1-D array is not supported; write "
                          f"np.{name}(np.tile(v, (len(v), 1)))")
        return b.emit(f"aten::{name}", [m, k], f"np.{name}")
    return lower


def smooth(name: str, fn):
    """``np.logaddexp``/``np.hypot``: arrays or numbers, cast as NumPy computes them."""
    def lower(b: IRBuilder, x1: Item, x2: Item) -> Value:
        what = f"np.{fn.__name__}"
        if not (is_tensor(x1) or is_tensor(x2)):
            raise b.error(f"{what} of two numbers is not supported; write np.{fn.__name__}"
                          f"(np.asarray(a), b)")
        x1, x2 = conform(b, fn, [x1, x2], what)
        return b.emit(f"aten::{name}", [as_tensor(b, x1, what), as_tensor(b, x2, what)], what)
    return lower


def integer_pair(name: str, fn):
    """``np.gcd``/``np.lcm``: ``aten::gcd``/``lcm`` of integer arrays or numbers (NumPy has no
    loop for floats or bools: refused here, as NumPy raises)."""
    smooth_lower = smooth(name, fn)

    def lower(b: IRBuilder, x1: Item, x2: Item) -> Value:
        what = f"np.{fn.__name__}"
        for x in (x1, x2):
            dtype = dtype_of(x) if is_tensor(x) else None
            if dtype is not None and dtype.kind not in "iu" or not is_tensor(x) and \
                    scalar_type_of(x) not in (None, INT):
                got = f"a {dtype.name} array" if dtype is not None else describe(x)
                raise b.error(f"{what} takes integers, got {got} (NumPy has no "
                              f"{fn.__name__} loop for it)")
        return smooth_lower(b, x1, x2)
    return lower


def own_unary(kind: str, fn):
    """A NumPy ufunc of one array that is ``kind``, NumPy's own call (``np.cbrt``): the
    argument cast as NumPy computes it."""
    def lower(b: IRBuilder, x: Item) -> Item:
        from .lowering import to_float

        what = f"np.{fn.__name__}"
        if not is_tensor(x):     # (a number: through a 0-d float64 array, a number back)
            if scalar_type_of(x) is None:
                raise b.error(f"{what} takes an array or a number, got {describe(x)}")
            return to_float(b, b.emit(kind, [as_tensor(b, x, what, np.dtype(np.float64))],
                                      what))
        (x,) = conform(b, fn, [x], what)
        return b.emit(kind, [x], what)
    return lower


def signbit(b: IRBuilder, x: Item) -> Value:
    """``np.signbit(x)``: ``aten::signbit``, NumPy's own call (the sign bit of -0.0 and of a
    NaN); a number as NumPy's float64 (or int64, bool) 0-d array."""
    from .numpy_lowering import array

    x = x if is_tensor(x) else array(b, x, copies=False)
    return b.emit("aten::signbit", [x], "np.signbit")


def clip(b: IRBuilder, a: Item, a_min: Item = None, a_max: Item = None, out: Item = None,
         min: Item = None, max: Item = None) -> Value:   # noqa: A002  (NumPy's names)
    """``np.clip(a, a_min, a_max)``, ``np.clip(a, min=..., max=...)``, ``x.clip(lo, hi)``:
    number bounds clamp with ``aten::clamp``, array bounds with its Tensor overload;
    ``out=`` writes the result into an array (cast as NumPy's "same_kind" allows)."""
    result = _clipped(b, a, a_min, a_max, min, max)
    if is_none(out):
        return result
    from .numpy_ufuncs import written_out

    return written_out(b, out, result, "np.clip")


def _clipped(b: IRBuilder, a: Item, a_min: Item, a_max: Item, min: Item,  # noqa: A002
             max: Item) -> Value:   # noqa: A002
    x = _array(b, a, "np.clip")
    if not (is_none(min) and is_none(max)):
        if not (is_none(a_min) and is_none(a_max)):
            raise b.error("np.clip: pass the bounds as a_min/a_max or as min/max, not both")
        a_min, a_max = min, max
    bounds = [a_min, a_max]
    for bound in bounds:
        if not is_none(bound) and not is_tensor(bound) and scalar_type_of(bound) is None:
            raise b.error(f"np.clip: bounds must be numbers, arrays or None, got "
                          f"{describe(bound)}")
    dtype = dtype_of(x)
    if dtype is not None and dtype.kind in "iu":
        # (Python int bounds compare by value, as NumPy 2's clip: np.clip(uint8, -2, 2)
        # leaves 0 and 1; a fused kernel took -2 as the uint8 254 and gave 2 everywhere)
        info = np.iinfo(dtype)
        low, high = (b.static(v) if type(b.static(v)) is int else None for v in bounds)
        for v in (low if low is not None and low > info.max else None,
                  high if high is not None and high < info.min else None):
            if v is not None:
                raise b.error(f"np.clip: Python integer {v} out of bounds for {dtype} "
                              f"(NumPy's OverflowError)")
        bounds = [None if low is not None and low < info.min else a_min,
                  None if high is not None and high > info.max else a_max]
        a_min, a_max = bounds
    if all(is_none(v) for v in bounds):
        return b.emit("aten::clone", [x, None], "np.clip")
    present = [v for v in bounds if not is_none(v)]
    # (an int array with float bounds is float64, as a float32 one with np.float64 bounds)
    x, *present = conform(b, lambda *v: np.result_type(*v), [x, *present], "np.clip")
    if not any(is_tensor(v) for v in bounds):
        return b.emit(aten.clamp, [x, a_min, a_max], "np.clip")
    it = iter(present)
    lo, hi = (None if is_none(v) else as_tensor(b, next(it), "np.clip") for v in bounds)
    return b.emit(aten.clamp, [x, lo, hi], "np.clip")


def extreme(op: str):
    """Builtin ``max``/``min`` of two or more items, or of one tuple or list."""
    def lower(b: IRBuilder, args: tuple) -> Item:
        items = list(args)
        if len(items) == 1 and isinstance(items[0], (tuple, list)):
            items = list(items[0])
            if len(items) == 1:     # min(x.shape) of a 1-d x: its one item, as in Python
                return items[0]
        if len(items) < 2:
            raise b.error(f"{op}() of one array or of an empty sequence is not supported; "
                          f"write np.{op}(x) or {op}(a, b, ...)")
        total = items[0]
        for item in items[1:]:
            total = binary(b, op, total, item)
        return total
    return lower


def squeeze(b: IRBuilder, x: Item, axis: Item = None) -> Value:
    """``np.squeeze``: without an axis ``aten::squeeze`` (its rank depends on the sizes); with
    one, a reshape to the other dimensions, which fails (as NumPy does) when that dimension is
    not of size 1."""
    x = _array(b, x, "squeeze")
    if is_none(axis):
        out = b.emit("aten::squeeze", [x], "squeeze")
        sizes = getattr(x.type, "sizes", None)
        if isinstance(out.type, TensorType) and (sizes is None or None in sizes):
            # (the shape rules' proxies fill unknown sizes with 1, which all squeeze away)
            out.set_type(out.type.with_(sizes=None, strides=None))
        return out
    rank = _rank(b, x, "squeeze with an axis")
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    dropped = {_axis(b, rank, a, "squeeze's axis") for a in items}
    if len(dropped) != len(items):
        raise b.error("squeeze: duplicate value in 'axis'")
    from .lowering import size

    return reshape(b, x, [size(b, x, d) for d in range(rank) if d not in dropped])


def atleast(n: int):
    """``np.atleast_1d``/``2d``: dimensions of 1 added in front (NumPy's 3-D rule differs)."""
    def lower(b: IRBuilder, x: Item) -> Value:
        x = _array(b, x, f"np.atleast_{n}d")
        rank = _rank(b, x, f"np.atleast_{n}d")
        for _ in range(n - rank):
            x = b.emit(aten.unsqueeze, [x, 0], f"np.atleast_{n}d")
        return x
    return lower


def pad(b: IRBuilder, x: Item, pad_width: Item, mode: Item = None,
        constant_values: Item = 0) -> Value:
    """``np.pad`` with a constant: ``aten::constant_pad_nd`` (its pads run from the last
    dimension back, before then after); in modes ``'edge'``, ``'wrap'``, ``'reflect'`` and
    ``'symmetric'``, each padded axis gathered at the positions NumPy copies
    (``_padded_positions``)."""
    x = _array(b, x, "np.pad")
    kind = b.static(mode)
    if kind not in (None, "constant", *PAD_MODES):
        raise b.error(f"np.pad: mode must be 'constant', 'edge', 'wrap', 'reflect' or "
                      f"'symmetric', got {describe(mode)}")
    rank = _rank(b, x, "np.pad")
    widths = _pad_widths(b, pad_width, rank)
    if kind in PAD_MODES:
        if b.static(constant_values) != 0:
            raise b.error(f"np.pad: constant_values is for mode='constant', not {kind!r}")
        return b.emit("fusejit::pad", [x, b.int_list([w for pair in widths for w in pair],
                                                     "np.pad's pad_width"),
                                       b.value_const(kind)],
                      "np.pad")
    pads = b.int_list([p for before, after in reversed(widths) for p in (before, after)],
                      "np.pad's pad_width")
    value = b.static(constant_values)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise b.error("np.pad: constant_values must be a constant number")
    return b.emit("aten::constant_pad_nd", [x, pads, value], "np.pad")


def _pad_widths(b: IRBuilder, pad_width: Item, rank: int) -> list[tuple[Item, Item]]:
    """``np.pad``'s ``pad_width`` as (before, after) for each of ``rank`` axes, NumPy's
    forms broadcast (``n``, ``(n,)``, ``(before, after)``, ``((before, after),)``, one pair
    per axis). Each width is a constant int or an int known when it runs (``k // 2`` of a
    kernel's shape), which is checked then: a negative one is NumPy's ValueError (the pad
    ops would crop)."""
    def width(item: Item) -> Item:
        return _count(b, item, "np.pad: pad_width", "np.pad: pad_width holds a negative width "
                      "({})", "index can't contain negative values")

    items = pad_width if isinstance(pad_width, (tuple, list)) else (pad_width,)
    if not items:
        raise b.error("np.pad: pad_width is empty")
    if not any(isinstance(i, (tuple, list)) for i in items):
        pairs = [tuple(items) * 2 if len(items) == 1 else tuple(items)]
    elif all(isinstance(i, (tuple, list)) for i in items) and len({len(i) for i in items}) == 1:
        pairs = [tuple(i) * 2 if len(i) == 1 else tuple(i) for i in items]
    else:
        raise b.error("np.pad: pad_width mixes ints and pairs, or pairs of two lengths")
    if len(pairs) == 1:
        pairs = pairs * rank
    if len(pairs) != rank or any(len(pair) != 2 for pair in pairs):
        raise b.error(f"np.pad: pad_width of {len(pairs)} pairs does not fit an array of "
                      f"dimension {rank}")
    return [(width(before), width(after)) for before, after in pairs]


def _count(b: IRBuilder, item: Item, what: str, refused: str, raised: str) -> Item:
    """A width or length NumPy takes as a non-negative int: a constant (a negative one
    refused now, ``refused`` formatted with it), or an int known when it runs (``k // 2`` of
    a kernel's shape), checked then: NumPy's ValueError ``raised`` where it is below 0."""
    value = b.static(item)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise b.error(refused.format(value))
        return value
    if isinstance(item, Value) and item.type == INT:
        b.raise_unless(binary(b, "ge", item, 0), f"ValueError: {raised}")
        return item
    raise b.error(f"{what} must hold ints, got {describe(item)}")


def take(b: IRBuilder, a: Item, indices: Item, axis: Item = None) -> Value:
    """``np.take(a, idx, axis)``: ``a.flatten()[idx]``, or ``idx`` along ``axis``."""
    a = _array(b, a, "np.take")
    if is_none(axis):
        return advanced_index(b, reshape(b, a, [-1]), [indices])
    rank = _rank(b, a, "np.take")
    along = _axis(b, rank, axis, "np.take's axis")
    return advanced_index(b, a, [slice(None)] * along + [indices])


def ix_(b: IRBuilder, sequences: tuple) -> tuple[Value, ...]:
    """``np.ix_(a, b, ...)``: each integer sequence shaped to lie along its own axis (an open
    mesh, for ``x[np.ix_(rows, cols)]``); a boolean one would need its positions, whose count
    the data decides (refused)."""
    from .numpy_lowering import array

    found = []
    for k, item in enumerate(sequences):
        x = item if is_tensor(item) else array(b, item, None, False)
        if _rank(b, x, "np.ix_") != 1:
            raise b.error("np.ix_ takes 1-D sequences")
        if dtype_of(x) is not None and dtype_of(x).kind not in "iu":
            raise b.error(f"np.ix_ takes integer sequences here, got {dtype_of(x)}; for a "
                          "mask write np.flatnonzero(mask)")
        found.append(reshape(b, x, [-1 if j == k else 1 for j in range(len(sequences))]))
    return tuple(found)


def sliding_window_view(b: IRBuilder, x: Item, window_shape: Item, axis: Item = None,
                        subok: Item = False, writeable: Item = False) -> Value:
    """``np.lib.stride_tricks.sliding_window_view``: for each window length ``w`` along an
    axis of length ``n``, the axis becomes its ``n - w + 1`` starts and a new last axis the
    ``w`` elements of each window (a gather: a copy where NumPy gives a read-only view of the
    same values)."""
    from .lowering import size
    from .numpy_lowering import arange

    what = "sliding_window_view"
    x = _array(b, x, what)
    rank = _rank(b, x, what)
    if b.static(writeable) is not False:
        raise b.error(f"{what}: writeable=True is not supported (the windows are a copy here)")
    shape = list(window_shape) if isinstance(window_shape, (tuple, list)) else [window_shape]
    negative = f"{what}: window_shape cannot contain negative values"
    shape = [_count(b, w, f"{what}: window_shape", negative, negative) for w in shape]
    if is_none(axis):
        if len(shape) != rank:
            raise b.error(f"{what}: window_shape has {len(shape)} entries for an array of "
                          f"dimension {rank} (give axis=)")
        axes = list(range(rank))
    else:
        given = b.static(axis)
        axes = [_axis(b, rank, a, f"{what}'s axis") for a in (
            given if isinstance(given, (tuple, list)) else [given])]
        if len(axes) != len(shape):
            raise b.error(f"{what}: window_shape and axis have different lengths")
    for along, w in zip(axes, shape):
        n = size(b, x, along)
        starts = binary(b, "add", binary(b, "sub", n, w), 1)
        b.raise_unless(binary(b, "ge", n, w),
                       f"ValueError: {what}: window shape cannot be larger than input array "
                       "shape")
        offsets = binary(b, "add", reshape(b, arange(b, 0, starts, 1, np.int64), [-1, 1]),
                         reshape(b, arange(b, 0, w, 1, np.int64), [1, -1]))
        x = take(b, x, offsets, along)       # (the window axis next to its starts ...)
        order = [d for d in range(rank + 1) if d != along + 1] + [along + 1]
        x = b.emit(aten.permute, [x, order], what)    # (... moved last, as NumPy's)
        rank += 1
    return x


def take_along_axis(b: IRBuilder, arr: Item, indices: Item, axis: Item) -> Value:
    """``np.take_along_axis``: ``aten::index`` with ``indices`` along ``axis`` and, along each
    other axis, its positions (an ``arange`` shaped to broadcast)."""
    arr = _array(b, arr, "np.take_along_axis")
    rank = _rank(b, arr, "np.take_along_axis")
    if is_none(axis):
        arr, rank, along = reshape(b, arr, [-1]), 1, 0
    else:
        along = _axis(b, rank, axis, "np.take_along_axis's axis")
    if _rank(b, _array(b, indices, "np.take_along_axis"), "np.take_along_axis") != rank:
        raise b.error("np.take_along_axis: indices must have as many dimensions as the array")
    return advanced_index(b, arr, _along_axis(b, arr, rank, indices, along))


def _along_axis(b: IRBuilder, arr: Value, rank: int, indices: Item, along: int) -> list[Item]:
    """The index ``np.take_along_axis`` and ``np.put_along_axis`` read ``arr`` through:
    ``indices`` along ``along`` and, along each other axis, its positions (an ``arange``
    shaped to broadcast)."""
    from .lowering import size
    from .numpy_lowering import arange

    items: list[Item] = []
    for d in range(rank):
        if d == along:
            items.append(indices)
        else:
            positions = arange(b, 0, size(b, arr, d), 1, np.int64)
            items.append(reshape(b, positions, [-1 if k == d else 1 for k in range(rank)]))
    return items


def put_along_axis(b: IRBuilder, arr: Item, indices: Item, values: Item, axis: Item) -> None:
    """``np.put_along_axis``: ``arr[idx] = values`` through the index ``take_along_axis``
    reads (``indices`` along ``axis``, each other axis's positions), written into ``arr``
    itself; NumPy returns None. ``axis=None`` (NumPy's ``arr.flat``) takes a vector."""
    from .numpy_lowering import store

    what = "np.put_along_axis"
    arr = _array(b, arr, what)
    rank = _rank(b, arr, what)
    if is_none(axis):
        if rank != 1:
            raise b.error(f"{what}(axis=None) is supported for a vector only; write "
                          f"{what}(a, indices, values, axis) along one axis")
        axis = 0
    along = _axis(b, rank, axis, f"{what}'s axis")
    index = _array(b, indices, what)
    if _rank(b, index, what) != rank:
        raise b.error(f"{what}: indices must have as many dimensions as the array")
    if dtype_of(index) is not None and dtype_of(index).kind not in "iu":
        raise b.error(f"{what}: indices must be integers, got {dtype_of(index)}")
    store(b, arr, tuple(_along_axis(b, arr, rank, index, along)), values)


def fill_diagonal(b: IRBuilder, a: Item, val: Item, wrap: Item = False) -> None:
    """``np.fill_diagonal(a, val, wrap=False)``: ``val`` written into ``a``'s main diagonal,
    in place (NumPy returns None). 2-D: positions ``(i, i)`` for ``i < min(rows, cols)``; with
    ``wrap``, NumPy's ``a.flat[::cols + 1]``, which in a tall matrix starts the diagonal again
    below. More dimensions: all of one length (NumPy's ValueError otherwise), ``(i, ..., i)``.
    ``val`` is a number or an array of one value per position (NumPy repeats a shorter one;
    here its length is an error when it runs)."""
    from .lowering import size
    from .numpy_lowering import arange, store

    what = "np.fill_diagonal"
    x = _array(b, a, what)
    rank = _rank(b, x, what)
    if rank < 2:
        raise b.error(f"{what}: array must be at least 2-d")
    wrapped = b.static(wrap)
    if not isinstance(wrapped, bool):
        raise b.error(f"{what}: wrap must be True or False known while scripting, got "
                      f"{describe(wrap)}")
    if rank == 2:
        rows, cols = size(b, x, 0), size(b, x, 1)
        if wrapped:
            flat = arange(b, 0, binary(b, "mul", rows, cols), binary(b, "add", cols, 1),
                          np.int64)
            index: tuple = (binary(b, "floordiv", flat, cols),
                            binary(b, "remainder", flat, cols))
        else:
            steps = arange(b, 0, extreme("min")(b, (rows, cols)), 1, np.int64)
            index = (steps, steps)
    else:
        length = size(b, x, 0)
        for d in range(1, rank):
            b.raise_unless(binary(b, "eq", size(b, x, d), length),
                           "ValueError: All dimensions of input must be of equal length")
        index = (arange(b, 0, length, 1, np.int64),) * rank
    store(b, x, index, val)


def unpack_rows(b: IRBuilder, x: Value, count: int) -> tuple[Value, ...]:
    """``a, b, c = x``: x's rows, after a run-time check that it has ``count`` of them
    (NumPy's ValueError, here a JITException naming the line)."""
    from .lowering import size

    if x.type.rank == 0:
        raise b.error("cannot unpack a 0-d array")
    rows = size(b, x, 0)
    b.raise_unless(binary(b, "eq", rows, count),
                   f"ValueError: cannot unpack an array into {count} names: its length is not "
                   f"{count}")
    return tuple(b.emit(aten.select, [x, 0, i], "unpacking") for i in range(count))


def _copies(b: IRBuilder, x: Value, counts: list[int], inside: bool, what: str) -> Value:
    """Each dimension ``d`` of ``x`` repeated ``counts[d]`` times, as whole blocks (``np.tile``,
    ``inside=False``: a new dimension before each) or element by element (``np.repeat``: after
    each); then the pairs merged. Built from reshape and expand, whose rules give the
    gradient (the copies' gradients summed)."""
    from .lowering import size

    sizes = [size(b, x, d) for d in range(len(counts))]
    spread: list[Item] = []
    target: list[Item] = []
    for n, c in zip(sizes, counts):
        spread += [n, 1] if inside else [1, n]
        target += [n, c] if inside else [c, n]
    wide = b.emit(aten.expand, [reshape(b, x, spread), b.int_list(target, what), False], what)
    return reshape(b, wide, [binary(b, "mul", n, c) for n, c in zip(sizes, counts)])


def tile(b: IRBuilder, a: Item, reps: Item) -> Value:
    """``np.tile(a, reps)``: ``a`` given leading dimensions of 1 to match ``reps`` (or ``reps``
    ones in front to match ``a``), then copied as whole blocks."""
    x = _array(b, a, "np.tile")
    counts = b.static(reps)
    counts = [counts] if isinstance(counts, int) else counts
    if not isinstance(counts, (tuple, list)) or not all(
            isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise b.error(f"np.tile: reps must be constant non-negative ints, got {describe(reps)}")
    rank = _rank(b, x, "np.tile")
    counts = [1] * (rank - len(counts)) + list(counts)
    for _ in range(len(counts) - rank):
        x = b.emit(aten.unsqueeze, [x, 0], "np.tile")
    return _copies(b, x, counts, False, "np.tile")


def repeat(b: IRBuilder, a: Item, repeats: Item, axis: Item = None) -> Value:
    """``np.repeat(a, k, axis)`` with a constant int ``k``: each element ``k`` times in a row
    (``a`` flattened first without an axis)."""
    x = _array(b, a, "np.repeat")
    k = b.static(repeats)
    if isinstance(repeats, (list, tuple)) or is_tensor(repeats) and repeats.type.rank == 1:
        return _repeat_each(b, x, repeats, axis)
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise b.error(f"np.repeat: repeats must be a non-negative int, or one count per "
                      f"element, got {describe(repeats)}")
    if is_none(axis):
        x, along, rank = reshape(b, x, [-1]), 0, 1
    else:
        rank = _rank(b, x, "np.repeat")
        along = _axis(b, rank, axis, "np.repeat's axis")
    return _copies(b, x, [k if d == along else 1 for d in range(rank)], True, "np.repeat")


def _repeat_each(b: IRBuilder, x: Value, repeats: Item, axis: Item) -> Value:
    """``np.repeat(a, counts, axis)`` with a count per element along the axis: the element
    at each output position is the first whose running count passes it
    (``searchsorted(cumsum(counts), arange(total), side="right")``), taken along the axis.
    A negative count, or a count vector of another length, is NumPy's ValueError."""
    from .lowering import binary, size, to_int
    from .numpy_linalg import searchsorted
    from .numpy_lowering import arange, array, cumsum, rank_of

    what = "np.repeat"
    counts = repeats if is_tensor(repeats) else array(b, list(repeats), copies=False)
    if dtype_of(counts) is None or dtype_of(counts).kind not in "iub":
        raise b.error(f"{what}: the counts must be integers, got {describe(repeats)}")
    if is_none(axis):
        x, axis = reshape(b, x, [-1]), 0
    rank = _rank(b, x, what)
    along = _axis(b, rank, axis, f"{what}'s axis")
    if rank_of(counts) != 1:
        raise b.error(f"{what}: the counts must be a vector, one per element")
    b.raise_unless(binary(b, "eq", size(b, counts, 0), size(b, x, along)),
                   "ValueError: np.repeat: the counts must have the length of the repeated axis")
    negative = b.emit("aten::Bool", [b.emit("aten::any", [binary(b, "lt", counts, 0), None,
                                                         False], what)], what)
    b.raise_unless(b.emit("aten::__not__", [negative], what),
                   "ValueError: repeats may not contain negative values.")
    ends = cumsum(b, counts, 0, np.int64)
    total = to_int(b, b.emit("aten::sum", [counts, None], what))    # (0 for no counts)
    positions = arange(b, 0, total, 1, np.int64)
    picks = searchsorted(b, ends, positions, "right")
    return take(b, x, picks, along)


# -- integer-array indexing -----------------------------------------------------------------


def is_int_array(b: IRBuilder, item: Item) -> bool:
    """Is an index item an integer array (or a list of constant ints, which NumPy takes as
    one)?"""
    if is_tensor(item):
        dtype = dtype_of(item)
        return dtype is not None and dtype.kind in "iu"
    if isinstance(item, list) and item:
        return all(isinstance(b.static(i), int) and not isinstance(b.static(i), bool)
                   for i in item)
    return False


def advanced_index(b: IRBuilder, x: Value, items: list[Item]) -> Value:
    """``x[items]`` where an item is an integer array: basic slices first (they keep their
    dimension), then one ``aten::index`` with the arrays and ints, None for a whole
    dimension."""
    x, indices = _index_list(b, x, items)
    return b.emit("aten::index", [x, indices], "indexing")


def index_store(b: IRBuilder, x: Value, items: list[Item], value: Item) -> None:
    """``x[items] = value`` where an item is an integer array: ``aten::index_put_`` into
    ``x`` (into its slice view where an item is a slice with bounds); NumPy casts the value
    to ``x``'s dtype, and the last write wins where indices repeat."""
    x, indices = _index_list(b, x, items)
    value = as_tensor(b, value, "assignment", dtype_of(x))   # (a number: made in x's dtype)
    if dtype_of(x) is not None:
        value = cast(b, value, dtype_of(x), "assignment")
    b.emit("aten::index_put_", [x, indices, value, False], "assignment")


def add_at(b: IRBuilder, a: Item, indices: Item, values: Item = None) -> None:
    """``np.add.at(a, idx, v)``: ``v`` added into ``a`` at ``idx``, every repeat of an index
    counted (``aten::index_put_`` with ``accumulate``: the gather's gradient's scatter);
    ``idx`` an integer array or list, or a tuple of them over the leading axes."""
    ufunc_at(b, "add", a, indices, values)


def ufunc_at(b: IRBuilder, ufunc: str, a: Item, indices: Item, values: Item = None) -> None:
    """``np.<ufunc>.at(a, idx, v)`` (add, or one of ``oplib.array_ops.UFUNCS_AT``, which
    ``calls.py`` registers): ``a`` updated in place at ``idx`` with ``v``, every repeat of an
    index applied in turn, as ``add_at`` says."""
    what = f"np.{ufunc}.at"
    x = _array(b, a, what)
    items = list(indices) if isinstance(indices, tuple) else [indices]
    if not all(is_int_array(b, i) or isinstance(i, slice) for i in items) or not any(
            is_int_array(b, i) for i in items):
        raise b.error(f"{what}: the indices must be integer arrays (or a tuple of them and "
                      f"slices), got {describe(indices)}")
    if values is None:
        raise b.error(f"{what} of a binary ufunc takes the values to apply")
    view, found = _index_list(b, x, items)
    try:
        loop = numpy_dtype(getattr(np, ufunc), [x, values], b.numpy_scalars)
    except OverflowError:
        # (a Python int out of the array's range: NumPy's ufunc.at casts it into the dtype
        # unsafely, np.add.at(uint8_array, i, -3) subtracting 3 modulo 256, where np.add
        # raises)
        loop = dtype_of(x)
    if dtype_of(x) is not None and loop is not None and loop != dtype_of(x):
        # (np.add.at(int_array, i, 0.1): NumPy adds each repeat in float64 and casts the sum
        # back; the values cast to the array's dtype first added nothing)
        value = cast(b, as_tensor(b, values, what, loop), loop, what)
        b.emit("fusejit::ufunc_at_", [view, found, value, b.value_const(ufunc)], what)
        return
    value = as_tensor(b, values, what, dtype_of(x))
    if dtype_of(x) is not None:
        value = cast(b, value, dtype_of(x), what)   # (NumPy's unsafe cast into a)
    if ufunc == "add":
        b.emit("aten::index_put_", [view, found, value, True], what)
    else:
        b.emit("fusejit::ufunc_at_", [view, found, value, b.value_const(ufunc)], what)


def copyto(b: IRBuilder, dst: Item, src: Item, casting: Item = "same_kind",
           where: Item = True) -> None:
    """``np.copyto(dst, src)``: ``dst[...] = src`` after NumPy's casting check (same_kind
    by default: float into int raises); ``where=mask`` keeps ``dst`` where it is False."""
    from .lowering import where as select
    from .numpy_lowering import store

    what = "np.copyto"
    x = _array(b, dst, what)
    rule = b.static(casting)
    if rule not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise b.error(f"{what}: casting must be one of 'no', 'equiv', 'safe', 'same_kind' or "
                      f"'unsafe', got {describe(casting)}")
    source = dtype_of(src) if is_tensor(src) else np.result_type(b.static(src)) \
        if isinstance(b.static(src), (bool, int, float)) else None
    if source is not None and dtype_of(x) is not None and not np.can_cast(
            source, dtype_of(x), rule) and not (not is_tensor(src) and rule == "same_kind"):
        raise b.error(f"{what}: cannot cast array data from {source} to {dtype_of(x)} "
                      f"according to the rule {rule!r} (NumPy's TypeError)")
    if b.static(where) is True:
        store(b, x, Ellipsis, src)
    else:
        store(b, x, Ellipsis, select(b, where, src, x))


def putmask(b: IRBuilder, a: Item, mask: Item, values: Item) -> None:
    """``np.putmask(a, mask, values)``: ``a.flat[n] = values.flat[n % values.size]`` where
    ``mask.flat[n]`` holds, as NumPy's: values repeated over ``a`` in flat order, not
    broadcast (a ``(rows, 1)`` array of values fills ``a`` row after row), none written where
    there are none, the mask of ``a``'s size (checked when it runs). An array of values casts
    to ``a``'s dtype by the safe rule and a number by its value, as NumPy's."""
    from .lowering import where as select
    from .numpy_lowering import arange, check_stored_number, full, store

    what = "np.putmask"
    x = _array(b, a, what)
    mask = _array(b, mask, what)
    if dtype_of(mask) is not None and dtype_of(mask) != np.bool_:
        raise b.error(f"{what} takes a boolean mask, got an array of {dtype_of(mask)}")
    n = b.emit(aten.numel, [x], what)
    shape = b.emit(aten.size, [x], what)
    b.raise_unless(binary(b, "eq", b.emit(aten.numel, [mask], what), n),
                   "ValueError: putmask: mask and data must be the same size")
    mask = b.emit(aten.reshape, [mask, shape], what)
    if is_tensor(values) and not (isinstance(values.type, TensorType) and
                                  values.type.rank == 0):
        have, want = dtype_of(values), dtype_of(x)
        if have is not None and want is not None and not np.can_cast(have, want, "safe"):
            raise b.error(f"{what}: cannot cast array data from {have} to {want} according "
                          "to the rule 'safe' (NumPy's TypeError)")
        flat = reshape(b, values, [-1])
        count = b.emit(aten.numel, [flat], what)
        # (no values: nothing written; the index of element 0 then reads a itself)
        mask = binary(b, "__and__", mask, as_tensor(b, binary(b, "gt", count, 0), what))
        flat = b.emit(aten.cat, [b.tensor_list([flat, full(b, [1], 0, have)], what), 0], what)
        at = binary(b, "remainder", arange(b, n), extreme("max")(b, (count, 1)))
        values = b.emit(aten.reshape, [advanced_index(b, flat, [at]), shape], what)
    else:
        values = check_stored_number(b, x, values)
    store(b, x, Ellipsis, select(b, mask, values, x))


def _index_list(b: IRBuilder, x: Value, items: list[Item]) -> tuple[Value, Value]:
    """``x`` sliced by the slice items, and the ``Tensor?[]`` of the other items."""
    if any(i is None for i in items):
        raise b.error("indexing with an integer array and None (np.newaxis) together is not "
                      "supported; add the axis afterwards with x[idx][:, None]")
    if any(is_tensor(i) and not is_int_array(b, i) for i in items):
        raise b.error("indexing with an integer array together with a boolean mask or an "
                      "array of unknown dtype is not supported")
    rank = x.type.rank
    if rank is not None and len(items) > rank:
        raise b.error(f"too many indices for an array of dimension {rank}")
    from .numpy_lowering import _slice

    indices: list[Value] = []
    for dim, item in enumerate(items):
        if isinstance(item, slice):
            x = _slice(b, x, dim, item)
            indices.append(b.value_const(None))
        elif is_tensor(item):
            indices.append(item)
        elif isinstance(item, list):
            indices.append(b.value_const(np.array([b.static(i) for i in item], np.int64)))
        elif scalar_type_of(item) == INT:
            indices.append(as_tensor(b, item, "indexing"))
        else:
            raise b.error(f"an index must be an int, a slice, '...' or an integer array, got "
                          f"{describe(item)}")
    while indices and indices[-1].node.kind == prim.Constant and is_none(indices[-1]):
        indices.pop()
    return x, b.index_list(indices)


__all__ = ["advanced_index", "atleast", "clip", "diag", "diagonal", "extreme", "index_store",
           "is_int_array", "pad", "repeat", "smooth", "squeeze", "take", "take_along_axis",
           "tile", "trace", "transpose_axes", "triangle", "unpack_rows"]
