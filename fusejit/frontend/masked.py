"""Boolean-mask selections ``x[mask]`` used in ways whose result shape does not depend on the
data: reduced (``x[mask].sum()``, ``np.mean(x[mask])``, ``points[labels == k].mean(axis=0)``),
counted (``len(x[mask])``, ``x[mask].size``) or written (``x[mask] += 1``, in script.py);
also beside ints and slices (``x[mask, 1] = 0``, ``X[labels == k, 0].mean()``: the mask over
the basic view ``x[:, 1]``, ``split_mask``).

The selection itself has a data-dependent length, so ``x[mask]`` evaluates to a ``Masked``
item first; these uses are written with the mask broadcast over ``x`` instead, which makes
no selection and fuses with what computes the mask::

    x[m].sum()            aten::sum(aten::where(%m, %x, 0))
    x[m].mean()           that / aten::sum(%m)                (NaN when nothing is selected)
    x[m].max()            aten::amax(aten::where(%m, %x, -inf))
    rows[m].mean(axis=0)  sum over axis 0 of where(m[:, None], rows, 0) / m.sum()

A mask indexes the leading ``mask.ndim`` axes of ``x`` (NumPy's rule); ``axis=0`` reduces the
selected axis of a row selection, ``axis=None`` everything. ``max``/``min`` of an empty
selection give -inf/+inf (the dtype's extremes for integers) where NumPy raises. In a loop,
a mask over fewer axes than the array's (``for j in range(k): X[labels == j].mean(axis=0)``)
selects the rows and reduces them, as NumPy does: the where form would read all of ``X`` in
each iteration. Any other use (``x[x > 0] * 2``, ``np.sort(x[m])``, returning it) makes the
selection itself, an array whose length is known when it runs (``values``: NumPy's
selection).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..passes.more_maps import computed_from, is_map
from .builder import IRBuilder, Item, is_tensor
from .lowering import binary, size, to_int, where
from .numpy_dtypes import cast, dtype_of
from .numpy_lowering import rank_of, reduce, refuse_reversed_target

REDUCTIONS = ("sum", "mean", "max", "min", "any", "all")
class Masked:
    """``array[mask]`` before it is reduced or counted. ``read_at``: the node after which the
    selection was read (a name bound to it: ``t = x[x > 0]``); ``kept``: the selection as an
    array, made there once a write into ``array`` or ``mask`` follows (NumPy's ``x[mask]`` is
    a copy: ``StatementEmitter.keep_read_elements``)."""

    __slots__ = ("array", "mask", "read_at", "kept")

    def __init__(self, array: Value, mask: Value, read_at: Any = None):
        self.array = array
        self.mask = mask
        self.read_at = read_at
        self.kept: Value | None = None


def select(b: IRBuilder, array: Value, mask: Value) -> Masked:
    """``array[mask]`` for a bool array ``mask`` over the leading axes of ``array``."""
    rank, mask_rank = rank_of(array), rank_of(mask)
    if rank is None or mask_rank is None or mask_rank > rank or mask_rank == 0:
        raise b.error("a boolean mask must index the leading axes of an array of known rank")
    _check_sizes(b, array, mask, mask_rank)
    return Masked(array, mask, b.graph.insert_point.prev)


def mask_among(b: IRBuilder, index: Any) -> int | None:
    """Where a tuple ``index`` holds a boolean mask among basic items (ints, slices):
    ``x[mask, 1]``, ``x[2, mask]``, ``x[:, mask]``, its position, else None."""
    from .numpy_lowering import is_int_array

    if not isinstance(index, tuple):
        return None
    masks = [k for k, i in enumerate(index) if is_tensor(i) and dtype_of(i) == np.bool_]
    if len(masks) != 1 or any(i is Ellipsis or i is None or is_int_array(b, i)
                              for i in index):
        return None
    return masks[0]


def split_mask(b: IRBuilder, x: Value, index: tuple, at: int, numbers_only: bool
               ) -> tuple[Value, Value]:
    """``x[index]`` with the mask at ``at``: the basic view ``x[index]`` with ``:`` for the
    mask, and the mask, over the view's leading axes. A mask after a kept axis (``x[:, m]``)
    is moved to the front by a transpose (a view too), where ``numbers_only``: a value of
    other shape would broadcast against the moved axes, not NumPy's."""
    from .numpy_lowering import index as basic_index

    mask = index[at]
    items = list(index)
    items[at] = slice(None)
    view = basic_index(b, x, tuple(items))
    axis = sum(1 for i in index[:at] if isinstance(i, slice))
    if axis:
        k, rank = rank_of(mask), rank_of(view)
        if not numbers_only or k is None or rank is None or axis + k > rank:
            raise b.error("a boolean mask after a sliced axis (x[:, mask]) takes a number "
                          "here; write x = np.where(mask, v, x) with the mask broadcast")
        # (the mask's axes moved to the front, the sliced ones after them: a view)
        order = [*range(axis, axis + k), *range(axis), *range(axis + k, rank)]
        view = b.emit(aten.permute, [view, order], "indexing")
    return view, mask


def masked_after_slices(b: IRBuilder, x: Value, index: tuple, at: int) -> Value:
    """``x[:, mask]`` (``x[1:, :, m, ::2]``: slices around the mask) as a value: NumPy's own
    selection of the mask's axes in place, by ``aten::index`` of ``None``s and the mask.
    With an int too NumPy would move the selected axis first (two advanced indices apart),
    which is refused."""
    from .numpy_lowering import index as basic_index

    mask = index[at]
    if not all(isinstance(i, slice) for k, i in enumerate(index) if k != at):
        raise b.error("x[:, mask] takes slices beside the mask; with an int as well (NumPy "
                      "then moves the selected axis first) it is not supported")
    rank, mask_rank = rank_of(x), rank_of(mask)
    if rank is None or mask_rank is None or at + mask_rank > rank:
        raise b.error("a boolean mask must index axes of an array of known rank")
    items = list(index)
    items[at] = slice(None)
    view = basic_index(b, x, tuple(items))
    _check_sizes(b, view, mask, mask_rank, at)
    indices = [b.value_const(None)] * at + [mask]
    return b.emit(aten.index, [view, b.index_list(indices)], "x[:, mask]")


def _check_sizes(b: IRBuilder, array: Value, mask: Value, mask_rank: int,
                 at: int = 0) -> None:
    """NumPy's IndexError, at run time, where the mask's size along an axis is not the array's
    along the axes from ``at`` (the lowerings broadcast the mask: a mask of one row over four
    would select in each). None for a mask over the leading axes computed from the array and
    numbers by maps (``x[x < 0]``), of the array's shape: the checks, which read the mask's
    sizes, would keep its computation out of the kernel computing the ``where``."""
    if at == 0 and computed_from(mask, array):
        return
    for axis in range(mask_rank):
        b.raise_unless(binary(b, "eq", size(b, mask, axis), size(b, array, at + axis)),
                       f"IndexError: boolean index did not match indexed array along axis "
                       f"{at + axis}")


def values(b: IRBuilder, masked: Masked) -> Value:
    """``x[mask]`` as an array, where it is used as one (``x[x > 0] * 2``, returned, passed
    on): the selected elements (rows, for a mask over the leading axes) in C order, NumPy's
    own selection (``aten::index`` with the bool mask), an array whose length is known when
    it runs."""
    if masked.kept is not None:
        return masked.kept
    return b.emit(aten.index, [masked.array, b.index_list([masked.mask])], "x[mask]")


def _spread(b: IRBuilder, masked: Masked) -> Value:
    """The mask with trailing axes of size 1, so that it broadcasts over the array."""
    extra = rank_of(masked.array) - rank_of(masked.mask)
    mask = masked.mask
    for _ in range(extra):
        mask = b.emit(aten.unsqueeze, [mask, -1], "indexing")
    return mask


def check(b: IRBuilder, x: Value, mask: Value) -> None:
    """What a write ``x[mask] = ...`` takes: a mask over the leading axes of ``x`` (not a
    reversed view), of their sizes (checked when it runs: ``_check_sizes``)."""
    refuse_reversed_target(b, x)
    rank, mask_rank = rank_of(x), rank_of(mask)
    if rank is None or mask_rank is None or mask_rank > rank or mask_rank == 0:
        raise b.error("a boolean mask must index the leading axes of an array of known rank")
    _check_sizes(b, x, mask, mask_rank)


def store(b: IRBuilder, x: Value, mask: Value, value: Item, checked: bool = False) -> None:
    """``x[mask] = value``, the mask over the leading axes of ``x``: ``where(mask, value, x)``
    written into ``x`` where ``value`` is a number, an array of ``x``'s trailing axes (one
    value for every selected row), or ``y[mask]`` with the same mask (``same_mask``) and
    ``y`` of ``x``'s rank. Other values (an array of one value per selected element or row,
    ``y[other_mask]``) go to NumPy's own ``x[mask] = values`` (``aten::index_put_``), whose
    error names the counts where they differ. ``checked``: ``check`` ran already."""
    if not checked:
        check(b, x, mask)
    rank, mask_rank = rank_of(x), rank_of(mask)
    if isinstance(value, Masked):
        if not same_mask(value.mask, mask) or rank_of(value.array) != rank:
            _put(b, x, mask, values(b, value))
            return
        value = value.array
    elif is_tensor(value) and (rank_of(value) or 0) > rank - mask_rank:
        whole = unmasked(b, value, mask, rank)
        if whole is None:
            _put(b, x, mask, value)
            return
        value = whole
    spread = _spread(b, Masked(x, mask))
    b.emit(aten.copy_, [x, where(b, spread, value, x), False], "assignment")


# Maps that can fail on integers outside the mask (``//`` and ``%`` by zero raise, as in
# PyTorch; a negative integer power too): computed over the selection only.
_FAILING_ON_INTEGERS = frozenset(f"aten::{name}" for name in (
    "floor_divide", "remainder", "fmod", "pow", "div", "__lshift__", "__rshift__"))


def unmasked(b: IRBuilder, value: Value, mask: Value, rank: int) -> Value | None:
    """``value`` computed from selections by ``mask`` (``-y[m] * r``, ``y[m] + dt * v[m]``)
    computed again over the whole arrays, where it is a tree of maps whose leaves are
    ``a[m]`` (``same_mask``, ``a`` of rank ``rank``), numbers, 0-d arrays and arrays of the
    trailing axes: kept where the mask holds, the whole value has the selection's elements
    (``x[m] = -y[m] * r`` is ``x = where(m, -y * r, x)``: one kernel, no selection made).
    None for anything else, and for maps that could fail outside the mask (an integer
    ``//``). Every size was checked when the selections were made (``select``)."""
    trailing = rank - rank_of(mask)
    built: dict[Value, Value] = {}

    def whole(v: Item) -> tuple[Item, bool] | None:
        if not isinstance(v, Value) or not is_tensor(v) or (rank_of(v) or 0) == 0:
            return v, False
        if v in built:
            return built[v], True
        node = v.node
        if node.kind == aten.index and len(node.inputs) == 2:
            items = node.input(1).node
            if items.kind != prim.ListConstruct or len(items.inputs) != 1 or \
                    not same_mask(items.input(0), mask) or rank_of(node.input(0)) != rank:
                return None
            return node.input(0), True
        if rank_of(v) is None:
            return None
        if not is_map(node) or len(node.outputs) != 1 or str(node.kind) in _FAILING_ON_INTEGERS \
                and any(is_tensor(i) and (dtype_of(i) is None or dtype_of(i).kind in "iub")
                        for i in node.inputs):
            return (v, False) if rank_of(v) <= trailing else None
        parts = [whole(i) for i in node.inputs]
        if any(p is None for p in parts):
            return None
        if not any(selected for _, selected in parts):
            return (v, False) if rank_of(v) <= trailing else None
        out = b.emit(node.kind, [p for p, _ in parts], "assignment")
        built[v] = out
        return out, True

    found = whole(value)
    return found[0] if found is not None and found[1] else None


def _put(b: IRBuilder, x: Value, mask: Value, value: Value) -> None:
    """NumPy's ``x[mask] = value`` (``value`` cast to ``x``'s dtype as NumPy casts it)."""
    if dtype_of(x) is not None:
        value = cast(b, value, dtype_of(x), "assignment")
    b.emit("aten::index_put_", [x, b.index_list([mask]), value, False], "assignment")


# Ops a mask is made with whose result two nodes of the same inputs share (no state).
_MASK_OPS = frozenset(f"aten::{name}" for name in (
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_and",
    "logical_or", "logical_xor", "logical_not", "__and__", "__or__", "__xor__",
    "bitwise_not", "signbit"))


def same_mask(a: Value, c: Value, depth: int = 4) -> bool:
    """Are two masks the same by construction: one value, or one comparison or logical op
    of the same inputs (``z[x > 0] = y[x > 0]``: each side its own ``x > 0``), to ``depth``
    levels of such ops?"""
    if a is c:
        return True
    na, nc = a.node, c.node
    if na.kind == prim.Constant and nc.kind == prim.Constant:
        u, v = constant_value(na), constant_value(nc)
        return type(u) is type(v) and isinstance(u, (bool, int, float)) and u == v
    if depth == 0 or na.kind != nc.kind or str(na.kind) not in _MASK_OPS or \
            len(na.inputs) != len(nc.inputs):
        return False
    return all(same_mask(u, v, depth - 1) for u, v in zip(na.inputs, nc.inputs))


def _axis(b: IRBuilder, masked: Masked, axis: Item) -> list[int] | None:
    """The axes of ``array`` a reduction over the selection reduces."""
    if axis is None:
        return None
    value = b.static(axis)
    if value != 0 or rank_of(masked.mask) == rank_of(masked.array):
        raise b.error(f"a reduction of x[mask] takes axis=None, or axis=0 for a mask over the "
                      f"leading axes of x, got axis={value!r}")
    return list(range(rank_of(masked.mask)))


def count(b: IRBuilder, masked: Masked) -> Item:
    """How many rows the selection has (``len``, ``.size`` for a mask over every axis), as
    a Python int as NumPy gives it."""
    return to_int(b, _selected(b, masked))


def _selected(b: IRBuilder, masked: Masked) -> Value:
    return reduce(b, "sum", masked.mask)


def _fill(dtype: np.dtype, name: str) -> Any:
    if dtype.kind == "b":
        return name == "min"
    if dtype.kind == "f":
        return -np.inf if name == "max" else np.inf
    info = np.iinfo(dtype)
    return int(info.min) if name == "max" else int(info.max)


def reduction(b: IRBuilder, name: str, masked: Masked, axis: Item = None,
              keepdims: Item = False) -> Value:
    """``x[mask].name(axis)`` for ``REDUCTIONS``."""
    if b.static(keepdims) not in (False, None):
        raise b.error(f"{name}() of x[mask] does not take keepdims")
    axes = _axis(b, masked, axis)
    if rank_of(masked.mask) < rank_of(masked.array) and _in_loop(b):
        # (rows selected by a mask that changes from one iteration to the next, ``for j in
        # range(k): X[labels == j].mean(axis=0)``: NumPy's selection, then the reduction; the
        # where form read all of X in each iteration, k times NumPy's work)
        return reduce(b, name, values(b, masked), None if axes is None else [0])
    x, mask = masked.array, _spread(b, masked)
    dtype = dtype_of(x)
    if name in ("sum", "mean"):
        total = reduce(b, "sum", where(b, mask, x, 0), axes)
        if name == "sum":
            return total
        n = _selected(b, masked)
        if axes is None and rank_of(x) > rank_of(masked.mask):  # times the trailing size
            n = binary(b, "mul", n, binary(b, "floordiv", b.emit(aten.numel, [x], "size"),
                                           b.emit(aten.numel, [masked.mask], "size")))
        wide = dtype if dtype is not None and dtype.kind == "f" else np.dtype(np.float64)
        return binary(b, "div", cast(b, total, wide, "mean"), cast(b, n, wide, "mean"))
    if name in ("max", "min"):
        return reduce(b, name, where(b, mask, x, _fill(dtype, name)), axes)
    truth = binary(b, "ne", x, 0) if dtype is not None and dtype.kind != "b" else x
    if name == "any":
        return reduce(b, "any", binary(b, "and", truth, mask), axes)
    return reduce(b, "all", binary(b, "or", truth, b.emit(
        "aten::logical_not", [mask], "indexing")), axes)


def _in_loop(b: IRBuilder) -> bool:
    """Is the builder emitting into the body of a loop?"""
    block = b.graph.insert_point.owning_block
    while block is not None and block.owning_node is not None:
        if block.owning_node.kind == prim.Loop:
            return True
        block = block.owning_node.owning_block
    return False


def _reduction_signature(axis=None, keepdims=False):  # what a reduction of x[mask] takes
    pass


# NumPy functions that reduce a selection given as their first argument.
FUNCTIONS = {np.sum: "sum", np.mean: "mean", np.max: "max", np.amax: "max", np.min: "min",
             np.amin: "min", np.any: "any", np.all: "all", len: "len"}


def call(b: IRBuilder, name: str, masked: Masked, args: list, kwargs: dict) -> Item:
    """``x[mask].sum(axis)``, ``np.mean(x[mask])``, ``len(x[mask])``."""
    if name == "len":
        return count(b, masked)
    try:
        bound = inspect.signature(_reduction_signature).bind(*args, **kwargs)
    except TypeError as error:
        raise b.error(f"{name}() of x[mask]: {error}") from None
    return reduction(b, name, masked, *bound.args, **bound.kwargs)


__all__ = ["FUNCTIONS", "Masked", "REDUCTIONS", "call", "count", "reduction", "select",
           "values"]
