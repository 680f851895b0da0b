"""Ops NumPy-spelled code needs beyond the fuser's set: reductions, slicing, creation, fills.

Each keeps PyTorch's semantics (its schema is PyTorch's; the frontend casts operands where
NumPy's dtypes differ) and has only a NumPy reference body: the native engine hands them to the
host, and the fuser never fuses them (the seed's fuser does not)::

    %m : Float(4, 1) = aten::mean(%x, %dims, %keep, %none)     x.mean(axis=-1, keepdims=True)
    %s : Float(4, 3) = aten::slice(%x, %one, %one, %none, %one)   x[:, 1:]
    %z : Double(3, 4) = aten::zeros(%shape, %seven, %none, %none, %none)   np.zeros((3, 4))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dtypes import DEFAULT_FLOAT, result_type
from .pointwise import any_zero, new_array, pooled_out
from .render import Emitter, Operand, fail, integer_division, promoted
from .table import as_tensor, define, dtype_of_code, register, wrap_dim
from .tensor import _reduce_dims

_FACTORY = "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, " \
           "bool? pin_memory=None"


def _axes(self: np.ndarray, dim: list[int] | None) -> tuple[int, ...]:
    return _reduce_dims(dim, self.ndim)


def _reduction(fn, empty_means_all: bool = True):
    def body(self: np.ndarray, dim: list[int] | None = None, keepdim: bool = False,
             dtype: int | None = None) -> np.ndarray:
        out = fn(self, axis=_axes(self, dim), keepdims=keepdim)
        return as_tensor(out if dtype is None else out.astype(dtype_of_code(dtype)))
    return body


_mean = _reduction(np.mean)
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _mean_all(self: np.ndarray, dtype: int | None = None) -> np.ndarray:
    if dtype is None and type(self) is np.ndarray and self.size \
            and self.dtype in (_FLOAT32, _FLOAT64):
        # (np.mean's steps for these, without its ~2 us of Python: the sum in the array's
        # dtype, divided by the count as an intp, which divides a float32 sum in float64)
        total = np.add.reduce(self, axis=None)
        return as_tensor(total.dtype.type(total / np.intp(self.size)))
    return _mean(self, None, False, dtype)


def _no_empty_axis(self: np.ndarray, axes: tuple[int, ...] | None, name: str) -> None:
    """NumPy's refusal of a max/min/argmax over a zero-length axis (other axes may be empty:
    ``np.zeros((0, 3)).max(axis=1)`` is an empty array)."""
    if self.size == 0 and (axes is None or not self.ndim
                           or any(self.shape[a] == 0 for a in axes)):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")


def _extreme(fn, reduce):
    def body(self: np.ndarray, dim: list[int] | None = None, keepdim: bool = False):
        axes = _axes(self, dim)     # (checked: a 0-d array has axis 0, or -1, as NumPy's)
        if self.ndim == 0:
            return as_tensor(np.array(self, copy=True))
        _no_empty_axis(self, axes, fn.__name__)
        if type(self) is np.ndarray:    # (what fn runs for an ndarray, without its Python)
            return as_tensor(reduce(self, axis=_axes(self, dim), keepdims=keepdim))
        return as_tensor(fn(self, axis=_axes(self, dim), keepdims=keepdim))
    return body


def _prod_all(self: np.ndarray, dtype: int | None = None) -> np.ndarray:
    return as_tensor(np.prod(self, dtype=_accumulate(self, dtype)))


def _prod_dim(self: np.ndarray, dim: int, keepdim: bool = False,
              dtype: int | None = None) -> np.ndarray:
    axis = wrap_dim(dim, self.ndim)
    return as_tensor(np.prod(self, axis=axis if self.ndim else None, keepdims=keepdim,
                             dtype=_accumulate(self, dtype)))


def _accumulate(x: np.ndarray, dtype: int | None) -> np.dtype:
    if dtype is not None:
        return dtype_of_code(dtype)
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.int64)


def _arg(fn):
    def body(self: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
        axis = None if dim is None or self.ndim == 0 else wrap_dim(dim, self.ndim)
        _no_empty_axis(self, None if axis is None else (axis,), fn.__name__)
        return as_tensor(fn(self, axis=axis, keepdims=keepdim).astype(np.int64))
    return body


def _logical(fn):
    def body(self: np.ndarray, dim: list[int] | None = None,
             keepdim: bool = False) -> np.ndarray:
        axes = _axes(self, dim)     # (checked: a 0-d array has axis 0, or -1, as NumPy's)
        if self.ndim == 0:
            return as_tensor(fn(self, keepdims=keepdim))
        return as_tensor(fn(self, axis=axes, keepdims=keepdim))
    return body


def _moment(fn):
    def body(self: np.ndarray, dim: list[int] | None = None, correction: Any = None,
             keepdim: bool = False) -> np.ndarray:
        ddof = 1 if correction is None else correction
        with np.errstate(all="ignore"):
            return as_tensor(fn(self, axis=_axes(self, dim), ddof=ddof, keepdims=keepdim))
    return body


def _cumsum(self: np.ndarray, dim: int, dtype: int | None = None) -> np.ndarray:
    out = _accumulate(self, dtype)
    if self.ndim == 0:
        return self.astype(out)
    return np.cumsum(self, axis=wrap_dim(dim, self.ndim), dtype=out)


def _floor_divide(self: Any, other: Any) -> np.ndarray:
    out = result_type(self, other)
    if out.kind in "iub" and any_zero(other):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        return as_tensor(np.floor_divide(self, other).astype(out, copy=False))


# -- views --------------------------------------------------------------------------------------

def _slice(self: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> np.ndarray:
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    axis = wrap_dim(dim, self.ndim)
    return self[(slice(None),) * axis + (slice(start, end, step),)]


def _unsqueeze(self: np.ndarray, dim: int) -> np.ndarray:
    return np.expand_dims(self, wrap_dim(dim, self.ndim + 1))


def _flip(self: np.ndarray, dims: list[int]) -> np.ndarray:
    # (a reversed slice on each axis flipped: np.flip's axis checks cost ~2 us a call)
    axes = {wrap_dim(d, self.ndim) for d in dims}
    return self[tuple(_REVERSED if d in axes else _WHOLE for d in range(self.ndim))].copy()


_REVERSED, _WHOLE = slice(None, None, -1), slice(None)


# -- creation -----------------------------------------------------------------------------------

def _dtype(code: int | None, default: np.dtype = DEFAULT_FLOAT) -> np.dtype:
    return default if code is None else dtype_of_code(code)


def _new_filled(shape: tuple, fill: Any, dtype: np.dtype) -> np.ndarray:
    """``np.full``; for a fill of +0 (not -0.0), ``np.zeros``, whose memory comes zeroed from
    the allocator (``calloc``) rather than written here: ``np.zeros((10000, 100), float32)``
    then a scatter of ones ran in 141 us this way against 95 us for NumPy's ``np.zeros``."""
    if type(fill) in (int, bool) and not fill or type(fill) is float and fill == 0.0 and \
            math.copysign(1.0, fill) > 0:
        return np.zeros(shape, dtype)
    return np.full(shape, fill, dtype)


def _filled(fill: Any):
    def body(size: list[int], dtype: int | None = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> np.ndarray:
        return _new_filled(tuple(size), fill, _dtype(dtype))
    return body


def _full(size: list[int], fill_value: Any, dtype: int | None = None, layout: Any = None,
          device: Any = None, pin_memory: Any = None) -> np.ndarray:
    default = result_type(fill_value) if not isinstance(fill_value, float) else DEFAULT_FLOAT
    return _new_filled(tuple(size), fill_value, _dtype(dtype, default))


def _full_like(self: np.ndarray, fill_value: Any, dtype: int | None = None, layout: Any = None,
               device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> np.ndarray:
    return _new_filled(self.shape, fill_value, _dtype(dtype, self.dtype))


def _empty(size: list[int], dtype: int | None = None, layout: Any = None, device: Any = None,
           pin_memory: Any = None, memory_format: Any = None) -> np.ndarray:
    # (as ``_empty_like``: made only for an array a kernel writes whole before it is read)
    return new_array(tuple(size), _dtype(dtype))


def _empty_like(self: np.ndarray, dtype: int | None = None, layout: Any = None,
                device: Any = None, pin_memory: Any = None,
                memory_format: Any = None) -> np.ndarray:
    # (graphs from Python have none: ``np.empty_like`` is lowered to a zero fill, deterministic;
    # ``passes/inplace_fusion.py`` makes one where a kernel writes the whole array first)
    return new_array(self.shape, _dtype(dtype, self.dtype))


def _arange(start: Any, end: Any, step: Any = 1, dtype: int | None = None, layout: Any = None,
            device: Any = None, pin_memory: Any = None) -> np.ndarray:
    if step == 0:
        raise RuntimeError("step must be nonzero")
    default = np.dtype(np.int64) if all(isinstance(v, int) for v in (start, end, step)) \
        else DEFAULT_FLOAT
    return np.arange(start, end, step, dtype=_dtype(dtype, default))


def _linspace(start: Any, end: Any, steps: int, dtype: int | None = None, layout: Any = None,
              device: Any = None, pin_memory: Any = None) -> np.ndarray:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return np.linspace(start, end, steps, dtype=_dtype(dtype))


def _eye(n: int, m: int, dtype: int | None = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> np.ndarray:
    if n < 0 or m < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {min(n, m)}")
    return np.eye(n, m, dtype=_dtype(dtype))


def _clone(self: np.ndarray, memory_format: Any = None) -> np.ndarray:
    out = pooled_out(self.dtype, self)
    if out is None:
        return np.array(self, copy=True)
    np.copyto(out, self)
    return out


def _fill_(self: np.ndarray, value: Any) -> np.ndarray:
    self[...] = value
    return self


register("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", _mean_all)
register("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
         "ScalarType? dtype=None) -> Tensor", _mean)
register("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
         _extreme(np.max, np.maximum.reduce), ufunc=np.maximum, reduces=True)
register("aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
         _extreme(np.min, np.minimum.reduce), ufunc=np.minimum, reduces=True)
register("aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", _prod_all)
register("aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
         "ScalarType? dtype=None) -> Tensor", _prod_dim)
register("aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
         _arg(np.argmax))
register("aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
         _arg(np.argmin))
register("aten::any.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor",
         _logical(np.any))
register("aten::all.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor",
         _logical(np.all))
register("aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
         "bool keepdim=False) -> Tensor", _moment(np.var))
register("aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
         "bool keepdim=False) -> Tensor", _moment(np.std))
register("aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", _cumsum)
register("aten::floor_divide(Tensor self, Tensor other) -> Tensor", _floor_divide)
register("aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", _floor_divide)


def _render_floor_divide(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if dtype.kind == "f":
        # NumPy's steps from the exact fmod, which ``helpers.fmod_wide`` computes with no libm
        # call (so the loop vectorises) where ``fmod_wide_fails`` is False; libm's fmod in a
        # fix-up for the rest (as ``_render_remainder``)
        a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
        mod = f"np.{dtype.name}(h.fmod_wide({a}, {b}))"
        fast = f"h.floor_divide_of({mod}, {a}, {b}, {cx.literal(1.0, dtype)})"
        return cx.checked(fast, f"h.floor_divide_f({a}, {b})", f"h.fmod_wide_fails({a}, {b})")
    if dtype.kind == "b":
        raise fail(node, "not defined for Bool tensors")     # (as remainder)
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    by = integer_division(cx, "floor_divide", a, ops[1], dtype)
    if by is not None:
        return by
    cx.guard(f"{b} == 0")
    return f"h.floor_divide_i({a}, {b})"


# Not in PyTorch's list; @fusejit.jit's own fusion takes it (x // 2, t // period).
define("aten::floor_divide", dtype=promoted(), render=_render_floor_divide,
       extends=("aten::floor_divide(Tensor self, Tensor other) -> Tensor",
                "aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor"))
register("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
         "SymInt step=1) -> Tensor(a)", _slice)
register("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", _unsqueeze)
register("aten::flip(Tensor self, int[] dims) -> Tensor", _flip)
register(f"aten::zeros(SymInt[] size, {_FACTORY}) -> Tensor", _filled(0))
register(f"aten::ones(SymInt[] size, {_FACTORY}) -> Tensor", _filled(1))
register(f"aten::full(SymInt[] size, Scalar fill_value, {_FACTORY}) -> Tensor", _full)
register(f"aten::full_like(Tensor self, Scalar fill_value, {_FACTORY}, "
         f"MemoryFormat? memory_format=None) -> Tensor", _full_like)
register(f"aten::empty.memory_format(SymInt[] size, {_FACTORY}, "
         f"MemoryFormat? memory_format=None) -> Tensor", _empty)
register(f"aten::empty_like(Tensor self, {_FACTORY}, "
         f"MemoryFormat? memory_format=None) -> Tensor", _empty_like)
register(f"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, {_FACTORY}) "
         f"-> Tensor", _arange)
register(f"aten::linspace(Scalar start, Scalar end, int steps, {_FACTORY}) -> Tensor",
         _linspace)
register(f"aten::eye.m(SymInt n, SymInt m, {_FACTORY}) -> Tensor", _eye)
register("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", _clone)
register("aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", _fill_, pure=False)
