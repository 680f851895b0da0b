"""Lowerings for NumPy's axis permutations, diagonals, triangles, integer-array indexing, the
smooth binary maps and the keyword forms of ``clip`` and builtin ``min``/``max``::

    x.transpose(2, 0, 1)         aten::permute(%x, [2, 0, 1])      (x.T of 3-D: reversed)
    np.trace(a, k)               aten::sum(aten::diagonal(%a, %k, 0, 1), [-1])
    np.diag(a, k) (2-D)          aten::diagonal(%a, %k, 0, 1)
    np.diag(v, k) (1-D)          aten::diag_embed(%v, %k, 0, 1)
    np.triu(a, k), np.tril       aten::triu(%a, %k), aten::tril
    np.logaddexp, np.hypot       aten::logaddexp(%a, %b), aten::hypot
    x[idx], x[:, [2, 0]]         aten::index(%x, [None, %idx])     NumPy's advanced indexing
    np.clip(x, a_min=, a_max=)   aten::clamp (number bounds) or clamp(Tensor) (array bounds)
    max(a, b, c), min((a, b))    a chain of max/min

Integer-array indexing keeps NumPy's semantics (negative indices count from the end, an index
out of range is an IndexError, ints beside an array broadcast with it, separated advanced
indices put their dimensions first): ``aten::index`` runs NumPy's own indexing.
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..ir.types import INT, TENSOR, ListType, OptionalType
from .builder import IRBuilder, Item, describe, is_none, is_tensor, scalar_type_of
from .lowering import _array, as_tensor, binary, transpose
from .numpy_dtypes import conform, dtype_of


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


def trace(b: IRBuilder, a: Item, offset: Item = 0, axis1: Item = 0, axis2: Item = 1,
          dtype: Item = None, out: Item = None) -> Value:
    if not is_none(dtype) or not is_none(out):
        raise b.error("np.trace: the dtype= and out= arguments are not supported")
    (a,) = conform(b, np.trace, [_array(b, a, "np.trace")], "np.trace")
    rank = _rank(b, a, "np.trace")
    if rank < 2:
        raise b.error("np.trace needs an array of at least 2 dimensions")
    d1, d2 = _axis(b, rank, axis1, "np.trace's axis1"), _axis(b, rank, axis2, "np.trace's axis2")
    diagonal = b.emit("aten::diagonal", [a, offset, d1, d2], "np.trace")
    return b.emit(aten.sum, [diagonal, [-1], False, None], "np.trace")


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


def clip(b: IRBuilder, a: Item, a_min: Item = None, a_max: Item = None, out: Item = None,
         min: Item = None, max: Item = None) -> Value:   # noqa: A002  (NumPy's names)
    """``np.clip(a, a_min, a_max)``, ``np.clip(a, min=..., max=...)``, ``x.clip(lo, hi)``:
    number bounds clamp with ``aten::clamp``, array bounds with its Tensor overload."""
    x = _array(b, a, "np.clip")
    if not is_none(out):
        raise b.error("np.clip: the out= argument is not supported")
    if not (is_none(min) and is_none(max)):
        if not (is_none(a_min) and is_none(a_max)):
            raise b.error("np.clip: pass the bounds as a_min/a_max or as min/max, not both")
        a_min, a_max = min, max
    bounds = [a_min, a_max]
    for bound in bounds:
        if not is_none(bound) and not is_tensor(bound) and scalar_type_of(bound) is None:
            raise b.error(f"np.clip: bounds must be numbers, arrays or None, got "
                          f"{describe(bound)}")
    if all(is_none(v) for v in bounds):
        return b.emit("aten::clone", [x, None], "np.clip")
    if not any(is_tensor(v) for v in bounds):
        return b.emit(aten.clamp, [x, a_min, a_max], "np.clip")
    present = [v for v in bounds if not is_none(v)]
    x, *present = conform(b, lambda *v: np.result_type(*v), [x, *present], "np.clip")
    it = iter(present)
    lo, hi = (None if is_none(v) else as_tensor(b, next(it), "np.clip") for v in bounds)
    return b.emit(aten.clamp, [x, lo, hi], "np.clip")


def extreme(op: str):
    """Builtin ``max``/``min`` of two or more items, or of one tuple or list."""
    def lower(b: IRBuilder, args: tuple) -> Item:
        items = list(args)
        if len(items) == 1 and isinstance(items[0], (tuple, list)):
            items = list(items[0])
        if len(items) < 2:
            raise b.error(f"{op}() of one array or of an empty sequence is not supported; "
                          f"write np.{op}(x) or {op}(a, b, ...)")
        total = items[0]
        for item in items[1:]:
            total = binary(b, op, total, item)
        return total
    return lower


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
    node = b.create(prim.ListConstruct, indices)
    node.output().set_type(ListType(OptionalType(TENSOR)))
    return b.emit("aten::index", [x, node.output()], "indexing")


__all__ = ["advanced_index", "clip", "diag", "extreme", "is_int_array", "smooth", "trace",
           "transpose_axes", "triangle"]
