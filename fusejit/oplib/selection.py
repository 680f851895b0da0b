"""Pointwise ops that choose, bound, blend or cast: ``where``, ``clamp``, ``threshold``, ``lerp``,
``addcmul``, ``type_as`` and ``_cast_Float``.

::

    %r : Float(3) = aten::where(%cond, %x, %y)       x where cond, else y (promoted)
    %r : Float(3) = aten::where(%cond, %x, %zero)    the Scalar overloads run, never fuse
    %c : Float(3) = aten::clamp(%x, %lo, %none)      a NaN bound gives NaN
    %c : Float(3) = aten::clamp_min(%x, %lo)         the same as clamp(%x, %lo, None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import category, result_type
from .pointwise import BOOL, check_scalar_fits, dtype_name, pooled_out, promoted_pair, quiet, to
from .render import (
    FLOAT32,
    Emitter,
    Operand,
    fail,
    fixed,
    is_float,
    promote_operands,
    promoted,
    same_as,
)
from .table import as_tensor, define, register

# -- where ----------------------------------------------------------------------------------------

_CONDITIONS = (BOOL, np.dtype(np.uint8))


def _where(condition: np.ndarray, self: Any, other: Any) -> np.ndarray:
    if condition.dtype not in _CONDITIONS:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {dtype_name(condition.dtype)}")
    _dtype, a, b = promoted_pair(self, other)
    return as_tensor(np.where(condition.astype(BOOL, copy=False), a, b))


def _render_where(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    cond, a, b = ops
    return f"({cx.cast(a, dtype)} if {cx.cast(cond, BOOL)} else {cx.cast(b, dtype)})"


_WHERE = "aten::where(Tensor condition, Tensor self, Tensor other) -> Tensor"
register(_WHERE, _where)
# PyTorch's where.ScalarSelf, where.ScalarOther and where.Scalar: not in its fuser's list.
for _self, _other in (("Scalar", "Tensor"), ("Tensor", "Scalar"), ("Scalar", "Scalar")):
    register(f"aten::where(Tensor condition, {_self} self, {_other} other) -> Tensor", _where)
define("aten::where", fuses=(_WHERE,), dtype=promoted(1, 3), render=_render_where,
       sum_to_size=(_WHERE,))


# -- clamp, threshold -----------------------------------------------------------------------------

_NUMBERS = (int, float)
# (np.clip's ufunc, which np.clip calls from a Python wrapper; NumPy 1.x names its module core)
_CLIP = (np._core if hasattr(np, "_core") else np.core).umath.clip


@quiet
def _clamp(self: np.ndarray, min: Any = None, max: Any = None) -> np.ndarray:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if self.dtype.kind in "iu":
        # An int bound beyond the array's range binds no element: NumPy's clip drops it
        # (np.clip(uint8_array, -3, 3) is clip to 3), where converting it would overflow
        info = np.iinfo(self.dtype)
        if type(min) is int and min <= info.min:
            min = None
        if type(max) is int and max >= info.max:
            max = None
        if min is None and max is None:
            return as_tensor(self.copy())
    if self.dtype.kind == "f" and type(min) in _NUMBERS and type(max) in _NUMBERS:
        dtype = self.dtype      # (a float array and Python numbers: its dtype, NEP 50)
    else:
        dtype = result_type(self, *(v for v in (min, max) if v is not None))
    x = to(self, dtype)
    # NaN from the input or a bound; min > max gives max, as in PyTorch. Where x equals a
    # bound (-0.0 and 0.0) NumPy's clip keeps x, its maximum/minimum (one bound) give the bound
    if min is not None and max is not None:
        # (np.clip's ufunc itself: np.clip's Python wrapper took 4 of its 7 us on 10^4
        # float64; the values are the same)
        x = _CLIP(x, to(min, dtype), to(max, dtype))
    elif min is not None:
        x = np.maximum(x, to(min, dtype))
    elif max is not None:
        x = np.minimum(x, to(max, dtype))
    return as_tensor(x.copy() if x is self else x)


def _clamp_dtype(ops: list[Operand]) -> np.dtype:
    return ops[0].dtype if is_float(ops[0].dtype) else promote_operands(ops)


def _render_clamp(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    x, lo, hi = ops
    if lo.is_none and hi.is_none:
        raise fail(node, "at least one of min and max must not be None")
    if dtype == BOOL:
        raise fail(node, "not defined for Bool tensors")
    v = cx.cast(x, dtype)
    # NumPy's maximum/minimum (the reference): NaN from either, and the bound where they are
    # equal (np.maximum(-0.0, 0.0) is 0.0)
    if hi.is_none:
        low = cx.cast(lo, dtype)
        return f"({v} if ({v} > {low} or {v} != {v}) else {low})"
    if lo.is_none:
        high = cx.cast(hi, dtype)
        return f"({v} if ({v} < {high} or {v} != {v}) else {high})"
    return f"h.clamp({v}, {cx.cast(lo, dtype)}, {cx.cast(hi, dtype)})"


_CLAMP = "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor"
register(_CLAMP, _clamp, ufunc=_CLIP)   # (runtime/direct.py's call, with both bounds numbers)
# The Tensor-bound overload and clamp_min/clamp_max: PyTorch's fuser takes none of them.
register("aten::clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", _clamp)
for _bound in ("Scalar", "Tensor"):
    register(f"aten::clamp_min(Tensor self, {_bound} min) -> Tensor",
             lambda self, min: _clamp(self, min, None))
    register(f"aten::clamp_max(Tensor self, {_bound} max) -> Tensor",
             lambda self, max: _clamp(self, None, max))
define("aten::clamp", fuses=("aten::clamp(Tensor self, Scalar? min, Scalar? max) -> Tensor",),
       dtype=_clamp_dtype, render=_render_clamp)


def _threshold(self: np.ndarray, threshold: Any, value: Any) -> np.ndarray:
    # The result keeps the input's dtype; the scalars are converted to it.
    dtype = self.dtype
    if dtype == BOOL:
        raise RuntimeError("threshold is not implemented for Bool tensors")
    return as_tensor(np.where(self <= np.asarray(threshold).astype(dtype),
                              np.asarray(value).astype(dtype), self))


def _render_threshold(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    x, threshold, value = ops
    if dtype == BOOL:
        raise fail(node, "not defined for Bool tensors")
    v = x.expr
    return f"({cx.cast(value, dtype)} if {v} <= {cx.cast(threshold, dtype)} else {v})"


_THRESHOLD = "aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor"
register(_THRESHOLD, _threshold)
define("aten::threshold", fuses=(_THRESHOLD,), dtype=same_as(0), render=_render_threshold)


# -- lerp, addcmul --------------------------------------------------------------------------------

def _check_same_dtype(op: str, name: str, x: np.ndarray, expected: np.dtype) -> None:
    if x.dtype != expected:
        raise RuntimeError(f"{op}: expected dtype {dtype_name(expected)} for `{name}` but got "
                           f"dtype {dtype_name(x.dtype)}")


@quiet
def _lerp(self: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    dtype = self.dtype
    _check_same_dtype("lerp", "end", end, dtype)
    if isinstance(weight, np.ndarray):
        _check_same_dtype("lerp", "weight", weight, dtype)
    if category(dtype) != 2:
        raise RuntimeError(f"lerp is not implemented for {dtype_name(dtype)} tensors")
    w = to(weight, dtype)
    diff = end - self
    one = dtype.type(1)
    # PyTorch's two-sided formula: exact at both ends
    return as_tensor(np.where(np.abs(w) < 0.5, self + w * diff, end - diff * (one - w)))


def _lerp_dtype(ops: list[Operand]) -> np.dtype:
    return promote_operands(ops if ops[2].is_tensor else ops[:2])


def _render_lerp(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if not is_float(dtype):
        raise fail(node, "lerp needs floating tensors")
    a, b, w = (cx.cast(op, dtype) for op in ops)
    return f"h.lerp({a}, {b}, {w}, {cx.literal(1.0, dtype)})"


_LERP = ("aten::lerp(Tensor self, Tensor end, Scalar weight) -> Tensor",
         "aten::lerp(Tensor self, Tensor end, Tensor weight) -> Tensor")
for _schema in _LERP:
    register(_schema, _lerp)
define("aten::lerp", fuses=_LERP, dtype=_lerp_dtype, render=_render_lerp)


@quiet
def _addcmul(self: np.ndarray, tensor1: np.ndarray, tensor2: np.ndarray,
             value: Any = 1) -> np.ndarray:
    dtype = result_type(self, tensor1, tensor2)
    if dtype == BOOL:
        raise RuntimeError("addcmul is not implemented for Bool tensors")
    check_scalar_fits("value", value, dtype)
    product = np.multiply(to(value, dtype), to(tensor1, dtype)) * to(tensor2, dtype)
    return as_tensor(np.add(to(self, dtype), product))


def _render_addcmul(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if dtype == BOOL:
        raise fail(node, "not defined for Bool tensors")
    a, b, c = (cx.cast(op, dtype) for op in ops[:3])
    if len(ops) > 3 and ops[3].is_constant and isinstance(ops[3].value, float) \
            and not is_float(dtype):
        raise fail(node, "a floating value needs floating inputs")
    value = cx.cast(ops[3], dtype) if len(ops) > 3 else cx.literal(1, dtype)
    return f"{a} + {value} * {b} * {c}"


_ADDCMUL = ("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) "
            "-> Tensor")
register(_ADDCMUL, _addcmul)
define("aten::addcmul", fuses=(_ADDCMUL,), dtype=promoted(0, 3), render=_render_addcmul)


# -- casts ----------------------------------------------------------------------------------------

def _type_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    # Like Tensor.to: the same tensor back when the dtype already matches.
    if self.dtype == other.dtype:
        return self
    out = pooled_out(other.dtype, self)
    if out is None:
        return self.astype(other.dtype)
    np.copyto(out, self, casting="unsafe")     # (astype's casting)
    return out


def _render_cast(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    return cx.cast(ops[0], dtype)


_TYPE_AS = "aten::type_as(Tensor self, Tensor other) -> Tensor"
register(_TYPE_AS, _type_as)
# ``other`` gives only a dtype: it takes no part in broadcasting and the kernel never reads it.
define("aten::type_as", fuses=(_TYPE_AS,), dtype=same_as(1), render=_render_cast,
       dtype_only=(1,))

_CAST_FLOAT = "aten::_cast_Float(Tensor self, bool non_blocking) -> Tensor"
register(_CAST_FLOAT, lambda self, non_blocking=False: self.astype(np.float32, copy=False))
define("aten::_cast_Float", fuses=(_CAST_FLOAT,), dtype=fixed(FLOAT32), render=_render_cast)
