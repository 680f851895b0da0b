"""Pointwise tensor ops (the fuser's simple maps and their in-place forms), PyTorch semantics.

::

    %z : Float(3) = aten::add(%x, %y, %alpha)      z = x + alpha * y, broadcast, promoted
    %m : Bool(3) = aten::gt(%x, %half)             comparisons give bool tensors
    %q : Long(3) = aten::remainder(%i, %j)         int remainder takes the divisor's sign

Promotion follows ``fusejit.oplib.dtypes.result_type``: 0-dim tensors and Python scalars are
weak, so ``float32 tensor + 2.5`` stays float32 and ``int64 tensor / 2`` is float32 (true
division of integers gives the default float dtype). Unary float functions of integer tensors
give float32, while ``abs``/``neg``/``relu`` keep the integer dtype and ``ceil``/``floor``/
``round``/``trunc`` return integers unchanged. Integer division or remainder by zero raises
``ZeroDivisionError`` as PyTorch does; float division by zero gives inf/nan without warnings.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .dtypes import DEFAULT_FLOAT, category, result_type
from .table import as_tensor, register, register_all

_BOOL = np.dtype(np.bool_)


def _quiet(fn: Callable) -> Callable:
    """Float overflow, 0/0 and domain errors give inf/nan silently, as in PyTorch."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return run


def _to(x: Any, dtype: np.dtype) -> np.ndarray:
    """An operand (array or Python scalar) in the computation dtype."""
    if isinstance(x, np.ndarray):
        return x.astype(dtype, copy=False)
    return np.asarray(x, dtype=dtype)


def _dtype_name(dtype: np.dtype) -> str:
    from ..ir.types import ScalarType

    try:
        return ScalarType.from_dtype(dtype).name
    except ValueError:
        return str(dtype)


def _is_bool(x: Any) -> bool:
    return isinstance(x, bool) or (isinstance(x, np.ndarray) and x.dtype == _BOOL)


def _check_scalar_fits(name: str, value: Any, dtype: np.dtype) -> None:
    """PyTorch refuses a float ``alpha``/``value`` for integer results, a bool one for numbers."""
    if isinstance(value, float) and category(dtype) < 2:
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")
    if isinstance(value, bool) and dtype != _BOOL and name == "alpha":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


def _check_int_divisor(b: np.ndarray) -> None:
    if np.any(b == 0):
        raise ZeroDivisionError("ZeroDivisionError: integer division or modulo by zero")


# -- unary ops --------------------------------------------------------------------------------

FLOAT, KEEP, IDENTITY, FLOAT_ONLY = "float", "keep", "identity", "float_only"


def _math_ufunc(fn: Callable[[float], float], pole: float) -> Callable[[np.ndarray], np.ndarray]:
    """Vectorise a ``math`` function in float64; ``pole`` where ``math`` raises (lgamma(0))."""

    def scalar(x: float) -> float:
        try:
            return fn(x)
        except (ValueError, OverflowError):
            return pole

    vectorised = np.frompyfunc(scalar, 1, 1)

    def apply(x: np.ndarray) -> np.ndarray:
        # frompyfunc gives a Python float, not an array, for a 0-dim input
        return np.asarray(vectorised(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)

    return apply


def _frac(x: np.ndarray) -> np.ndarray:
    return x - np.trunc(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    return one / (one + np.exp(-x))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return x.dtype.type(1) / np.sqrt(x)


def _reciprocal(x: np.ndarray) -> np.ndarray:
    return x.dtype.type(1) / x


def _relu(x: np.ndarray) -> np.ndarray:
    if x.dtype == _BOOL:
        raise RuntimeError("relu is not implemented for Bool tensors")
    return np.where(x > 0, x, x.dtype.type(0)) if category(x.dtype) == 1 else np.maximum(x, 0)


def _neg(x: np.ndarray) -> np.ndarray:
    if x.dtype == _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return np.negative(x)


def _logit(x: np.ndarray) -> np.ndarray:
    return np.log(x / (x.dtype.type(1) - x))


# name -> (NumPy function over the computation dtype, what integer/bool inputs do)
UNARY_OPS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str]] = {
    "abs": (np.abs, KEEP), "neg": (_neg, KEEP), "relu": (_relu, KEEP), "sign": (np.sign, KEEP),
    "ceil": (np.ceil, IDENTITY), "floor": (np.floor, IDENTITY), "trunc": (np.trunc, IDENTITY),
    "round": (np.round, IDENTITY),  # np.round rounds half to even, like nearbyint
    "frac": (_frac, FLOAT_ONLY),
    "acos": (np.arccos, FLOAT), "asin": (np.arcsin, FLOAT), "atan": (np.arctan, FLOAT),
    "cos": (np.cos, FLOAT), "cosh": (np.cosh, FLOAT), "sin": (np.sin, FLOAT),
    "sinh": (np.sinh, FLOAT), "tan": (np.tan, FLOAT), "tanh": (np.tanh, FLOAT),
    "exp": (np.exp, FLOAT), "expm1": (np.expm1, FLOAT), "log": (np.log, FLOAT),
    "log10": (np.log10, FLOAT), "log1p": (np.log1p, FLOAT), "log2": (np.log2, FLOAT),
    "sqrt": (np.sqrt, FLOAT), "rsqrt": (_rsqrt, FLOAT), "reciprocal": (_reciprocal, FLOAT),
    "sigmoid": (_sigmoid, FLOAT), "logit": (_logit, FLOAT),
    "erf": (_math_ufunc(math.erf, math.nan), FLOAT),
    "erfc": (_math_ufunc(math.erfc, math.nan), FLOAT),
    "lgamma": (_math_ufunc(math.lgamma, math.inf), FLOAT),
}


def _unary_body(name: str, fn: Callable[[np.ndarray], np.ndarray], rule: str) -> Callable:
    @_quiet
    def body(self: np.ndarray) -> np.ndarray:
        if category(self.dtype) == 2:
            return as_tensor(fn(self))
        if rule == FLOAT:
            return as_tensor(fn(self.astype(DEFAULT_FLOAT)))
        if rule == IDENTITY:
            return self.copy()
        if rule == KEEP:
            return as_tensor(fn(self))
        raise RuntimeError(f"{name} is not implemented for {_dtype_name(self.dtype)} tensors")

    body.__name__ = name
    return body


for _name, (_fn, _rule) in UNARY_OPS.items():
    register(f"aten::{_name}(Tensor self) -> Tensor", _unary_body(_name, _fn, _rule))


def _logical_not(self: np.ndarray) -> np.ndarray:
    return as_tensor(np.logical_not(self))


_RNG = np.random.default_rng()


def _rand_like(self: np.ndarray) -> np.ndarray:
    if category(self.dtype) != 2:
        raise RuntimeError(f"rand_like is not implemented for {_dtype_name(self.dtype)} tensors")
    return as_tensor(_RNG.random(self.shape).astype(self.dtype))


register("aten::logical_not(Tensor self) -> Tensor", _logical_not)
register("aten::rand_like(Tensor self) -> Tensor", _rand_like, pure=False)


def _cast_float(self: np.ndarray, non_blocking: bool = False) -> np.ndarray:
    return self.astype(np.float32, copy=False)


def _type_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    # Like Tensor.to: the same tensor back when the dtype already matches.
    return self if self.dtype == other.dtype else self.astype(other.dtype)


register("aten::_cast_Float(Tensor self, bool non_blocking) -> Tensor", _cast_float)
register("aten::type_as(Tensor self, Tensor other) -> Tensor", _type_as)


# -- arithmetic -------------------------------------------------------------------------------

def _scaled(b: np.ndarray, factor: Any, name: str, dtype: np.dtype) -> np.ndarray:
    _check_scalar_fits(name, factor, dtype)
    if factor == 1 and not isinstance(factor, bool):
        return b
    return np.multiply(b, _to(factor, dtype))


@_quiet
def _add(self: Any, other: Any, alpha: Any = 1) -> np.ndarray:
    dtype = result_type(self, other)
    return as_tensor(np.add(_to(self, dtype), _scaled(_to(other, dtype), alpha, "alpha", dtype)))


@_quiet
def _sub(self: Any, other: Any, alpha: Any = 1) -> np.ndarray:
    if _is_bool(self) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    dtype = result_type(self, other)
    return as_tensor(np.subtract(_to(self, dtype),
                                 _scaled(_to(other, dtype), alpha, "alpha", dtype)))


@_quiet
def _mul(self: Any, other: Any) -> np.ndarray:
    dtype = result_type(self, other)
    a, b = _to(self, dtype), _to(other, dtype)
    return as_tensor(np.logical_and(a, b) if dtype == _BOOL else np.multiply(a, b))


def _trunc_divide_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    # floor and truncation differ when the signs differ and the division is inexact
    inexact = (a - q * b) != 0
    return as_tensor(np.where(inexact & ((a < 0) != (b < 0)), q + 1, q))


@_quiet
def _div(self: Any, other: Any, rounding_mode: str | None = None) -> np.ndarray:
    dtype = result_type(self, other)
    if rounding_mode is None:
        if category(dtype) < 2:
            dtype = DEFAULT_FLOAT
        return as_tensor(np.true_divide(_to(self, dtype), _to(other, dtype)))
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if dtype == _BOOL:
        raise RuntimeError(f"div with rounding_mode='{rounding_mode}' is not implemented for Bool")
    a, b = _to(self, dtype), _to(other, dtype)
    if category(dtype) == 2:
        if rounding_mode == "trunc":
            return as_tensor(np.trunc(np.true_divide(a, b)))
        return as_tensor(np.floor_divide(a, b))  # NumPy's float floor division is PyTorch's
    _check_int_divisor(b)
    if rounding_mode == "trunc":
        return _trunc_divide_int(a, b)
    return as_tensor(np.floor_divide(a, b))


@_quiet
def _remainder(self: Any, other: Any) -> np.ndarray:
    dtype = result_type(self, other)
    a, b = _to(self, dtype), _to(other, dtype)
    if category(dtype) == 2:
        mod = np.fmod(a, b)
        return as_tensor(np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod))
    _check_int_divisor(b)
    return as_tensor(np.remainder(a, b))  # Python's %: the divisor's sign


@_quiet
def _fmod(self: Any, other: Any) -> np.ndarray:
    dtype = result_type(self, other)
    a, b = _to(self, dtype), _to(other, dtype)
    if category(dtype) < 2:
        _check_int_divisor(b)
    return as_tensor(np.fmod(a, b))  # C's fmod: the dividend's sign


@_quiet
def _atan2(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = result_type(self, other)
    if category(dtype) < 2:
        dtype = DEFAULT_FLOAT
    return as_tensor(np.arctan2(_to(self, dtype), _to(other, dtype)))


@_quiet
def _maximum(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = result_type(self, other)
    return as_tensor(np.maximum(_to(self, dtype), _to(other, dtype)))


@_quiet
def _minimum(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = result_type(self, other)
    return as_tensor(np.minimum(_to(self, dtype), _to(other, dtype)))


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer power; a negative exponent gives 0 except for bases 1 and -1 (PyTorch's powi)."""
    negative = b < 0
    result = np.power(a, np.where(negative, 0, b))
    if np.any(negative):
        odd = (b % 2) != 0
        reciprocal = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        result = np.where(negative, reciprocal.astype(result.dtype), result)
    return as_tensor(result)


@_quiet
def _pow(self: Any, exponent: Any) -> np.ndarray:
    dtype = result_type(self, exponent)
    a, b = _to(self, dtype), _to(exponent, dtype)
    if category(dtype) == 2:
        return as_tensor(np.power(a, b))
    if not isinstance(exponent, np.ndarray) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if dtype == _BOOL:
        a, b = a.astype(np.int64), b.astype(np.int64)
        return as_tensor(_int_pow(a, b).astype(_BOOL))
    return _int_pow(a, b)


_TENSOR_OR_SCALAR = ("Tensor", "Scalar")

register("aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", _add)
register("aten::add(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", _add)
register("aten::sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", _sub)
register("aten::sub(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", _sub)
register("aten::div(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", _div)
register("aten::pow(Tensor self, Tensor other) -> Tensor", _pow)
register("aten::pow(Tensor self, Scalar exponent) -> Tensor", _pow)
register("aten::pow(Scalar self, Tensor exponent) -> Tensor", _pow)
for _kind in _TENSOR_OR_SCALAR:
    register(f"aten::mul(Tensor self, {_kind} other) -> Tensor", _mul)
    register(f"aten::div(Tensor self, {_kind} other) -> Tensor", _div)
    register(f"aten::remainder(Tensor self, {_kind} other) -> Tensor", _remainder)
    register(f"aten::fmod(Tensor self, {_kind} other) -> Tensor", _fmod)
register("aten::atan2(Tensor self, Tensor other) -> Tensor", _atan2)
register("aten::max(Tensor self, Tensor other) -> Tensor", _maximum)
register("aten::min(Tensor self, Tensor other) -> Tensor", _minimum)


# -- comparisons and bitwise ops --------------------------------------------------------------

COMPARISONS: dict[str, Callable] = {
    "eq": np.equal, "ne": np.not_equal, "ge": np.greater_equal, "gt": np.greater,
    "le": np.less_equal, "lt": np.less,
}


def _compare_body(name: str, fn: Callable) -> Callable:
    @_quiet
    def body(self: np.ndarray, other: Any) -> np.ndarray:
        dtype = result_type(self, other)
        return as_tensor(fn(_to(self, dtype), _to(other, dtype)))

    body.__name__ = name
    return body


for _name, _fn in COMPARISONS.items():
    register_all((f"aten::{_name}(Tensor self, {kind} other) -> Tensor"
                  for kind in _TENSOR_OR_SCALAR), _compare_body(_name, _fn))

BITWISE: dict[str, Callable] = {
    "__and__": np.bitwise_and, "__or__": np.bitwise_or, "__xor__": np.bitwise_xor,
}


def _bitwise_body(name: str, fn: Callable) -> Callable:
    def body(self: np.ndarray, other: Any) -> np.ndarray:
        dtype = result_type(self, other)
        if category(dtype) == 2:
            raise RuntimeError(f"{name} is not implemented for {_dtype_name(dtype)} tensors")
        return as_tensor(fn(_to(self, dtype), _to(other, dtype)))

    body.__name__ = name
    return body


for _name, _fn in BITWISE.items():
    register(f"aten::{_name}(Tensor self, Tensor other) -> Tensor", _bitwise_body(_name, _fn))


# -- the remaining simple maps ----------------------------------------------------------------

@_quiet
def _clamp(self: np.ndarray, min: Any = None, max: Any = None) -> np.ndarray:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = result_type(self, *(v for v in (min, max) if v is not None))
    x = _to(self, dtype)
    # maximum/minimum propagate NaN from the input; min > max gives max, as in PyTorch
    if min is not None:
        x = np.maximum(x, _to(min, dtype))
    if max is not None:
        x = np.minimum(x, _to(max, dtype))
    return as_tensor(x.copy() if x is self else x)


def _threshold(self: np.ndarray, threshold: Any, value: Any) -> np.ndarray:
    # The result keeps the input's dtype; the scalars are converted to it.
    dtype = self.dtype
    return as_tensor(np.where(self <= np.asarray(threshold).astype(dtype),
                              np.asarray(value).astype(dtype), self))


def _check_same_dtype(op: str, name: str, x: np.ndarray, expected: np.dtype) -> None:
    if x.dtype != expected:
        raise RuntimeError(f"{op}: expected dtype {_dtype_name(expected)} for `{name}` but got "
                           f"dtype {_dtype_name(x.dtype)}")


@_quiet
def _lerp(self: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    dtype = self.dtype
    _check_same_dtype("lerp", "end", end, dtype)
    if isinstance(weight, np.ndarray):
        _check_same_dtype("lerp", "weight", weight, dtype)
    if category(dtype) != 2:
        raise RuntimeError(f"lerp is not implemented for {_dtype_name(dtype)} tensors")
    w = _to(weight, dtype)
    diff = end - self
    one = dtype.type(1)
    # PyTorch's two-sided formula: exact at both ends
    return as_tensor(np.where(np.abs(w) < 0.5, self + w * diff, end - diff * (one - w)))


@_quiet
def _addcmul(self: np.ndarray, tensor1: np.ndarray, tensor2: np.ndarray,
             value: Any = 1) -> np.ndarray:
    dtype = result_type(self, tensor1, tensor2)
    _check_scalar_fits("value", value, dtype)
    product = np.multiply(_to(value, dtype), _to(tensor1, dtype)) * _to(tensor2, dtype)
    return as_tensor(np.add(_to(self, dtype), product))


def _where(condition: np.ndarray, self: Any, other: Any) -> np.ndarray:
    if condition.dtype not in (_BOOL, np.dtype(np.uint8)):
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_dtype_name(condition.dtype)}")
    dtype = result_type(self, other)
    return as_tensor(np.where(condition.astype(_BOOL, copy=False), _to(self, dtype),
                              _to(other, dtype)))


register("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", _clamp)
register("aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", _threshold)
register("aten::lerp(Tensor self, Tensor end, Scalar weight) -> Tensor", _lerp)
register("aten::lerp(Tensor self, Tensor end, Tensor weight) -> Tensor", _lerp)
register("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
         _addcmul)
register("aten::where(Tensor condition, Tensor self, Tensor other) -> Tensor", _where)


# -- in-place forms: compute out of place, check the cast, write through (views included) -------

def _inplace(name: str, compute: Callable) -> Callable:
    def body(self: np.ndarray, *args: Any) -> np.ndarray:
        result = compute(self, *args)
        if category(result.dtype) > category(self.dtype):
            raise RuntimeError(f"result type {_dtype_name(result.dtype)} can't be cast to the "
                               f"desired output type {_dtype_name(self.dtype)}")
        if np.broadcast_shapes(result.shape, self.shape) != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
        np.copyto(self, result, casting="unsafe")
        return self

    body.__name__ = name
    return body


def _copy_(self: np.ndarray, src: np.ndarray, non_blocking: bool = False) -> np.ndarray:
    np.copyto(self, np.broadcast_to(src, self.shape), casting="unsafe")
    return self


register("aten::add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         _inplace("add_", _add), pure=False)
register("aten::add_(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
         _inplace("add_", _add), pure=False)
register("aten::sub_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         _inplace("sub_", _sub), pure=False)
register("aten::mul_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         _inplace("mul_", _mul), pure=False)
register("aten::mul_(Tensor(a!) self, Scalar other) -> Tensor(a!)",
         _inplace("mul_", _mul), pure=False)
register("aten::div_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         _inplace("div_", _div), pure=False)
register("aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
         _copy_, pure=False)
