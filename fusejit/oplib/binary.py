"""Pointwise ops of two operands: arithmetic, comparisons, bitwise ops and the in-place forms.

::

    %z : Float(3) = aten::add(%x, %y, %alpha)      z = x + alpha * y, broadcast, promoted
    %m : Bool(3) = aten::gt(%x, %half)             comparisons give bool tensors
    %q : Long(3) = aten::remainder(%i, %j)         int remainder takes the divisor's sign

Integer division or remainder by zero raises ``ZeroDivisionError`` as PyTorch does (in a fused
kernel, a guard sets the status flag the caller turns into that error); float division by zero
gives inf/nan without warnings.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import Any

import numpy as np

from .dtypes import DEFAULT_FLOAT, category, result_type
from .pointwise import (
    BOOL,
    check_int_divisor,
    check_scalar_fits,
    dtype_name,
    inplace,
    is_bool,
    pooled,
    promoted_pair,
    quiet,
    tensor_schemas,
    to,
)
from .render import (
    Emitter,
    Operand,
    fail,
    fixed,
    floating,
    integer_division,
    is_float,
    promote_operands,
    promoted,
)
from .table import REUSING, as_tensor, define, register

_TENSOR_OR_SCALAR = ("Tensor", "Scalar")


# -- add, sub, mul, div ---------------------------------------------------------------------------

def _scaled(b: np.ndarray, factor: Any, name: str, dtype: np.dtype) -> np.ndarray:
    check_scalar_fits(name, factor, dtype)
    if factor == 1 and not isinstance(factor, bool):
        return b
    return np.multiply(b, to(factor, dtype))


@quiet
def _add(self: Any, other: Any, alpha: Any = 1) -> np.ndarray:
    dtype, a, b = promoted_pair(self, other)
    if type(alpha) is not int or alpha != 1:
        b = _scaled(b, alpha, "alpha", dtype)
    return as_tensor(pooled(np.add, dtype, a, b))


@quiet
def _sub(self: Any, other: Any, alpha: Any = 1) -> np.ndarray:
    if is_bool(self) or is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    dtype, a, b = promoted_pair(self, other)
    if type(alpha) is not int or alpha != 1:
        b = _scaled(b, alpha, "alpha", dtype)
    return as_tensor(pooled(np.subtract, dtype, a, b))


def _alpha(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str | None:
    """The alpha factor's text, or None when it is the literal 1."""
    if len(ops) < 3:
        return None
    alpha = ops[2]
    if alpha.is_constant:
        if isinstance(alpha.value, float) and not is_float(dtype):
            raise fail(node, "a floating alpha needs floating inputs")
        if alpha.value == 1:
            return None
    return cx.cast(alpha, dtype)


def _render_add_sub(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    alpha = _alpha(cx, node, ops, dtype)
    is_add = node.kind == "aten::add"
    if not is_add and BOOL in (ops[0].dtype, ops[1].dtype):
        raise fail(node, "subtraction with a Bool operand is not supported")
    if dtype == BOOL:
        return f"({a} or {b})" if alpha is None else f"({a} or ({alpha} and {b}))"
    op = "+" if is_add else "-"
    return f"{a} {op} {b}" if alpha is None else f"{a} {op} {alpha} * {b}"


for _name, _body, _native, _ufunc in (("add", _add, "ADD", np.add),
                                      ("sub", _sub, "SUB", np.subtract)):
    register(f"aten::{_name}(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", _body,
             ufunc=_ufunc)
    register(f"aten::{_name}(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", _body,
             ufunc=_ufunc)
    _tensor = f"aten::{_name}(Tensor self, Tensor other, *, Scalar alpha) -> Tensor"
    define(f"aten::{_name}", dtype=promoted(0, 2), render=_render_add_sub, native=_native,
           fuses=(_tensor, f"aten::{_name}(Tensor self, Scalar other, Scalar alpha) -> Tensor"),
           sum_to_size=(_tensor,) if _name == "add" else ())


@quiet
def _mul(self: Any, other: Any) -> np.ndarray:
    dtype, a, b = promoted_pair(self, other)
    if dtype == BOOL:
        return as_tensor(np.logical_and(a, b))
    return as_tensor(pooled(np.multiply, dtype, a, b))


def _render_mul(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    return f"({a} and {b})" if dtype == BOOL else f"{a} * {b}"


def _trunc_divide_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    # floor and truncation differ when the signs differ and the division is inexact
    inexact = (a - q * b) != 0
    return as_tensor(np.where(inexact & ((a < 0) != (b < 0)), q + 1, q))


@quiet
def _div(self: Any, other: Any, rounding_mode: str | None = None) -> np.ndarray:
    if rounding_mode is None and type(self) is np.ndarray and self.dtype.kind == "f":
        dtype, a, b = promoted_pair(self, other)   # (a float: no integer cast to overflow)
        return as_tensor(pooled(np.true_divide, dtype, a, b))
    dtype = result_type(self, other)
    if rounding_mode is None:
        if category(dtype) < 2:
            dtype = DEFAULT_FLOAT
        a, b = to(self, dtype), to(other, dtype)
        return as_tensor(pooled(np.true_divide, dtype, a, b))
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if dtype == BOOL:
        raise RuntimeError(f"div with rounding_mode='{rounding_mode}' is not implemented for Bool")
    a, b = to(self, dtype), to(other, dtype)
    if category(dtype) == 2:
        if rounding_mode == "trunc":
            return as_tensor(np.trunc(np.true_divide(a, b)))
        return as_tensor(np.floor_divide(a, b))  # NumPy's float floor division is PyTorch's
    check_int_divisor(b)
    if rounding_mode == "trunc":
        return _trunc_divide_int(a, b)
    return as_tensor(np.floor_divide(a, b))


def _render_div(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if len(ops) > 2:
        raise fail(node, "rounding_mode is not a simple map")
    return f"{cx.cast(ops[0], dtype)} / {cx.cast(ops[1], dtype)}"


register("aten::div(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", _div)
for _kind in _TENSOR_OR_SCALAR:
    register(f"aten::mul(Tensor self, {_kind} other) -> Tensor", _mul, ufunc=np.multiply)
    register(f"aten::div(Tensor self, {_kind} other) -> Tensor", _div, ufunc=np.true_divide)
_MUL = tensor_schemas("mul", "Tensor other", "Scalar other")
_DIV = tensor_schemas("div", "Tensor other", "Scalar other")
define("aten::mul", fuses=_MUL, dtype=promoted(), render=_render_mul, native="MUL",
       sum_to_size=_MUL)
define("aten::div", fuses=_DIV, dtype=floating(0, 2), render=_render_div, native="DIV",
       sum_to_size=_DIV)


# -- written into a dead temporary ---------------------------------------------------------------

# Results of at least this many bytes go into a dead temporary operand where the executor found
# one (``table.REUSES``), as NumPy elides a temporary of this size in ``x[idx] * 2``: a fresh big
# array costs a page fault per 4 KiB (``runtime/fusion/outputs.py``), and a second one freed
# beside the first makes glibc return both to the system, to fault again on the next call.
REUSE_MIN_BYTES = 1 << 18


@quiet
def _into(ufunc: Callable, a: Any, b: Any, target: np.ndarray) -> np.ndarray:
    return ufunc(a, b, out=target)


def _reusing(ufunc: Callable, floats_only: bool = False) -> Callable[[Callable, int], Callable]:
    """For add, sub, mul and div (``floats_only``): ``reuse(body, position)`` is ``body``
    writing its result into its operand ``position``, a dead temporary, where that is the
    result ``body`` would make: the operand an array of ``REUSE_MIN_BYTES`` or more, of the
    computation's dtype (a number type: bool operands take ``body``'s rules and errors) and of
    the result's shape, with alpha 1 and no rounding mode. The operands are cast as ``body``
    casts them (``promoted_pair``); only where the result goes differs."""
    def reuse(body: Callable, position: int) -> Callable:
        def run(self: Any, other: Any, *rest: Any) -> Any:
            target = other if position else self
            if type(target) is np.ndarray and target.nbytes >= REUSE_MIN_BYTES \
                    and target.flags.writeable and not is_bool(self) and not is_bool(other) \
                    and (not rest or rest[0] is None or type(rest[0]) is int and rest[0] == 1):
                dtype, a, b = promoted_pair(self, other)
                if dtype == target.dtype and dtype.kind in ("f" if floats_only else "iuf") \
                        and np.broadcast_shapes(np.shape(a), np.shape(b)) == target.shape:
                    return _into(ufunc, a, b, target)
            return body(self, other, *rest)

        run.__name__ = f"{getattr(body, '__name__', 'body')}_reusing"
        return run
    return reuse


REUSING.update({"aten::add": _reusing(np.add), "aten::sub": _reusing(np.subtract),
                "aten::mul": _reusing(np.multiply),
                "aten::div": _reusing(np.true_divide, floats_only=True)})


# -- remainder, fmod, atan2, max, min -------------------------------------------------------------

@quiet
def _remainder(self: Any, other: Any) -> np.ndarray:
    dtype = result_type(self, other)
    a, b = to(self, dtype), to(other, dtype)
    if category(dtype) == 2:
        mod = np.fmod(a, b)
        return as_tensor(np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod))
    check_int_divisor(b)
    return as_tensor(np.remainder(a, b))  # Python's %: the divisor's sign


@quiet
def _fmod(self: Any, other: Any) -> np.ndarray:
    dtype = result_type(self, other)
    a, b = to(self, dtype), to(other, dtype)
    if category(dtype) < 2:
        check_int_divisor(b)
    return as_tensor(np.fmod(a, b))  # C's fmod: the dividend's sign


def _render_remainder(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if dtype == BOOL:
        raise fail(node, "not defined for Bool tensors")
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    is_fmod = node.kind == "aten::fmod"
    if is_float(dtype):
        # libm's fmod is exact but a call (~9 ns an element); helpers.fmod_wide vectorises
        # (~0.9) and is exact where fmod_wide_fails is False: libm recomputes the rest
        exact = f"{cx.function('fmod')}({a}, {b})" if is_fmod else f"h.remainder_f({a}, {b})"
        fast = f"np.{dtype.name}(h.fmod_wide({a}, {b}))"
        if not is_fmod:
            fast = f"h.remainder_of({fast}, {b})"
        return cx.checked(fast, exact, f"h.fmod_wide_fails({a}, {b})")
    by = integer_division(cx, "fmod" if is_fmod else "remainder", a, ops[1], dtype)
    if by is not None:
        return by
    cx.guard(f"{b} == 0")
    return f"h.{'fmod_i' if is_fmod else 'remainder_i'}({a}, {b})"


for _kind in _TENSOR_OR_SCALAR:
    register(f"aten::remainder(Tensor self, {_kind} other) -> Tensor", _remainder)
    register(f"aten::fmod(Tensor self, {_kind} other) -> Tensor", _fmod)
for _name in ("remainder", "fmod"):
    # (the Scalar form, x % 7, is not in PyTorch's list: @fusejit.jit's fusion takes it)
    define(f"aten::{_name}", fuses=tensor_schemas(_name, "Tensor other"), dtype=promoted(),
           render=_render_remainder, extends=tensor_schemas(_name, "Scalar other"))


@quiet
def _atan2(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = result_type(self, other)
    if category(dtype) < 2:
        dtype = DEFAULT_FLOAT
    return as_tensor(np.arctan2(to(self, dtype), to(other, dtype)))


def _render_atan2(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    y, x = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    fast = cx.vectorised(f"atan2_{'f32' if dtype == np.float32 else 'f64'}")
    if fast is not None and dtype == np.float32:
        # (the short form for finite pairs, not both zero, below the reduction's overflow: a
        # strip holding another pair is computed again with the full form)
        return cx.short_form(f"{cx.vectorised('atan2_inside_f32')}({y}, {x})",
                             f"{fast}({y}, {x})",
                             f"{cx.vectorised('atan2_outside_f32')}({y}, {x})")
    return f"{fast or 'math.atan2'}({y}, {x})"


register("aten::atan2(Tensor self, Tensor other) -> Tensor", _atan2)
define("aten::atan2", fuses=tensor_schemas("atan2", "Tensor other"), dtype=floating(),
       render=_render_atan2)


def _extremum(fn: Callable) -> Callable:
    @quiet
    def body(self: np.ndarray, other: np.ndarray) -> np.ndarray:
        _dtype, a, b = promoted_pair(self, other)
        return as_tensor(fn(a, b))
    return body


def _render_max_min(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    is_max = node.kind == "aten::max"
    if dtype == BOOL:
        return f"({a} or {b})" if is_max else f"({a} and {b})"
    if is_float(dtype):
        return f"h.{'maximum_f' if is_max else 'minimum_f'}({a}, {b})"
    return f"{'max' if is_max else 'min'}({a}, {b})"


for _name, _fn, _native in (("max", np.maximum, "MAXIMUM"), ("min", np.minimum, "MINIMUM")):
    register(f"aten::{_name}(Tensor self, Tensor other) -> Tensor", _extremum(_fn))
    define(f"aten::{_name}", fuses=tensor_schemas(_name, "Tensor other"), dtype=promoted(),
           render=_render_max_min, native=_native)


# -- pow ------------------------------------------------------------------------------------------

def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer power; a negative exponent gives 0 except for bases 1 and -1 (PyTorch's powi)."""
    negative = b < 0
    result = np.power(a, np.where(negative, 0, b))
    if np.any(negative):
        odd = (b % 2) != 0
        reciprocal = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        result = np.where(negative, reciprocal.astype(result.dtype), result)
    return as_tensor(result)


# Float exponents whose power NumPy's ``**`` of a Python int computes with one ufunc (its fast
# scalar powers), the same bits as np.power's C pow (each correctly rounded; 0.5 is NumPy's
# square root, -0.0 and -inf included): np.power with a float exponent calls C's pow, 4x the
# time for 2 (0.34 against 0.09 ms for 2^20 float32) and 16x for 0.5.
_ONE_UFUNC_POWERS = {2.0: np.square, 0.5: np.sqrt, -1.0: np.reciprocal}


@quiet
def _pow(self: Any, exponent: Any) -> np.ndarray:
    dtype = result_type(self, exponent)
    a, b = to(self, dtype), to(exponent, dtype)
    if category(dtype) == 2:
        if type(exponent) is not np.ndarray or exponent.ndim == 0:
            fn = _ONE_UFUNC_POWERS.get(float(b)) if type(a) is np.ndarray else None
            if fn is not None:
                return as_tensor(fn(a))
        return as_tensor(np.power(a, b))
    if not isinstance(exponent, np.ndarray) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if dtype == BOOL:
        raise RuntimeError("pow is not implemented for Bool tensors")
    return _int_pow(a, b)


# PyTorch's pow(Tensor, Scalar) replaces these exponents by cheaper exact-enough forms. NumPy's
# power (the reference) takes sqrt for 0.5 but C's pow for -0.5, which is +inf at -0 and 0 at
# -inf: ``h.pow_half`` gives those.
POW_SPECIAL = {
    2.0: "{x} * {x}", 3.0: "{x} * {x} * {x}", 0.5: "math.sqrt({x})",
    -0.5: "{one} / h.pow_half({x}, {inf})", -1.0: "{one} / {x}", -2.0: "{one} / ({x} * {x})",
}


# pow with a constant exponent y, 2y an integer and |y| <= this, other than those above:
# vp.pow_const_f32/f64 (double-float products and a corrected square root, within half an ulp
# and a little more; ``vecpow``)
_POW_PRODUCTS_MAX = 8

# A constant float32 exponent up to this keeps y log2 x within the short form's unclamped range
# (``vecpow._Z_WIDE`` = 1000) for every normal x (|log2 x| <= 128): its kernels test x alone
# (``vp.pow_outside_x_f32``).
POW_Y_WIDE_F32 = 7.8

# A constant float64 exponent up to this keeps y log x within the short form's range
# (``vecpow._TH_LOW``, ``_TH_HIGH``: -708 and 709) for every normal x (-708.4 <= log x <= 709.8):
# its kernels test x alone (``vm.log_outside_f64``: normal and positive).
POW_Y_NARROW_F64 = 0.99


def log_parts(b: float, dtype: np.dtype) -> tuple[float, float]:
    """ln b as hi + lo, each of ``dtype`` (float32 or float64), from a 40-digit decimal
    logarithm of b's exact value: the constants of ``vp.pow_base_f32/f64``."""
    with decimal.localcontext() as context:
        context.prec = 40
        exact = decimal.Decimal(b).ln()
        hi = float(np.dtype(dtype).type(exact))
        return hi, float(exact - decimal.Decimal(hi))


def _scalar_base_pow(cx: Emitter, b: float, y: str, dtype: np.dtype) -> str:
    """b**y for a constant 0 < b < inf, b != 1: vp.pow_base_f32/f64, e**(y ln b) with ln b and
    the product in double-float. inf or 0 at y = +-inf, NaN at NaN, 1 at +-0."""
    hi, lo = log_parts(b, dtype)
    name = "pow_base_f32" if dtype == np.float32 else "pow_base_f64"
    return f"{cx.vectorised(name)}({y}, {cx.literal(hi, dtype)}, {cx.literal(lo, dtype)})"


def _render_pow(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    base, exponent = ops
    if dtype == BOOL:
        raise fail(node, "pow is not defined for Bool tensors")
    a, b = cx.cast(base, dtype), cx.cast(exponent, dtype)
    if is_float(dtype):
        if exponent.is_constant and base.is_tensor and float(exponent.value) in POW_SPECIAL:
            one, inf = cx.literal(1.0, dtype), cx.literal(float("inf"), dtype)
            return POW_SPECIAL[float(exponent.value)].format(x=a, one=one, inf=inf)
        if dtype in (np.float32, np.float64) and cx.vectorised("exp_f64") is not None:
            if exponent.is_constant and base.is_tensor:
                y = float(exponent.value)
                if (2 * y).is_integer() and 0 < abs(y) <= _POW_PRODUCTS_MAX:
                    fn = cx.vectorised("pow_const_f32" if dtype == np.float32 else
                                       "pow_const_f64")
                    return f"{fn}({a}, {int(2 * y)})"
            if base.is_constant and not base.is_tensor and exponent.is_tensor:
                value = float(dtype.type(base.value))     # (cast as the op casts it)
                if 0 < value < np.inf and value != 1:
                    return _scalar_base_pow(cx, value, b, dtype)
        kind = "f32" if dtype == np.float32 else "f64"
        fast = cx.vectorised(f"pow_{kind}")
        if fast is not None:
            # (the short form for x normal and positive, y finite: a strip holding another
            # pair is computed again with the full form, special cases included)
            outside = f"{cx.vectorised(f'pow_outside_{kind}')}({a}, {b})"
            short = f"{cx.vectorised(f'pow_inside_{kind}')}({a}, {b})"
            if (kind == "f32" and exponent.is_constant and base.is_tensor
                    and abs(float(exponent.value)) <= POW_Y_WIDE_F32
                    and cx.vectorised("pow_inside_f32") != cx.vectorised("pow_simd_f32")):
                # (|y log2 x| is within the short form's unclamped range for every normal x:
                # only x is tested; and the small |y| lets it take shorter polynomials. Not
                # on AVX-512 hosts, whose short form is simd's: x ** (1 / 3) over 2^22 float32,
                # one thread, ran 0.76 ns an element with it and 1.03 with these polynomials)
                outside = f"{cx.vectorised('pow_outside_x_f32')}({a})"
                short = f"{cx.vectorised('pow_small_f32')}({a}, {b})"
            elif (kind == "f64" and exponent.is_constant and base.is_tensor
                    and abs(float(exponent.value)) <= POW_Y_NARROW_F64):
                outside = f"{cx.vectorised('log_outside_f64')}({a})"
            full = f"{fast}({a}, {b})"
            if base.is_tensor and not exponent.is_tensor:
                # (a +0 base, from np.clip or np.maximum(x, 0), takes the short form on 1 and
                # then its exact value: in the short form's domain, its strip is not computed
                # again with the full form. np.clip(x, 0, 1) ** (1 / 2.4) over 2^22 float32
                # with 8% zeros ran the full form everywhere, 1.0x NumPy. A tensor exponent
                # keeps the strip form, ``templates.STRIP_FORMS``.)
                one, inf = cx.literal(1.0, dtype), cx.literal(float("inf"), dtype)
                x1 = f"h.plus_zero_as_one({a}, {one})"
                outside, short = outside.replace(f"({a}", f"({x1}", 1), short.replace(
                    f"({a}", f"({x1}", 1)
                short = f"h.pow_plus_zero({a}, {b}, {short}, {one}, {inf})"
            return cx.short_form(short, full, outside)
        return f"{a} ** {b}"
    if exponent.is_constant and exponent.value < 0:
        raise fail(node, "integers to negative integer powers are not allowed")
    return f"h.pow_i({a}, {b})"


register("aten::pow(Tensor self, Tensor other) -> Tensor", _pow)
register("aten::pow(Tensor self, Scalar exponent) -> Tensor", _pow)
register("aten::pow(Scalar self, Tensor exponent) -> Tensor", _pow)
define("aten::pow", dtype=promoted(), render=_render_pow, fuses=(
    "aten::pow(Tensor self, Tensor exponent) -> Tensor",
    "aten::pow(Tensor self, Scalar exponent) -> Tensor",
    "aten::pow(Scalar self, Tensor exponent) -> Tensor"))


# -- comparisons and bitwise ops ------------------------------------------------------------------

COMPARISONS: dict[str, tuple[Callable, str, str]] = {
    "eq": (np.equal, "==", "EQ"), "ne": (np.not_equal, "!=", "NE"),
    "ge": (np.greater_equal, ">=", "GE"), "gt": (np.greater, ">", "GT"),
    "le": (np.less_equal, "<=", "LE"), "lt": (np.less, "<", "LT"),
}


def _compare_body(name: str, fn: Callable) -> Callable:
    @quiet
    def body(self: np.ndarray, other: Any) -> np.ndarray:
        if type(self) is np.ndarray and self.dtype.kind == "f":
            _dtype, a, b = promoted_pair(self, other)   # (a float: other's range is no matter)
            return as_tensor(fn(a, b))
        dtype = result_type(self, other)
        if dtype.kind in "iu" and type(other) is int and not _fits(other, dtype):
            # NumPy 2 compares an int array with any Python int exactly (uint8_array < 300
            # and uint64_array > -1 are all True), where converting it to the array's dtype
            # would overflow
            return as_tensor(np.asarray(fn(to(self, dtype), other)))
        return as_tensor(fn(to(self, dtype), to(other, dtype)))

    body.__name__ = name
    return body


def _fits(value: int, dtype: np.dtype) -> bool:
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def _render_compare(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    compute = promote_operands(ops)
    name = node.kind.removeprefix("aten::")
    if compute == _UINT64 and any(op.kind == "scalar" and not (
            op.is_constant and type(op.value) is int and op.value >= 0) for op in ops):
        return _unsigned_compare(cx, name, ops)
    if compute.kind in "iu" and any(
            op.kind == "scalar" and not (op.is_constant and type(op.value) is int
                                         and _fits(op.value, compute)) for op in ops):
        # (a Python int beyond the array's dtype, see the body; a constant that fits, as in
        # image > 128, keeps the narrow compare)
        compute = np.dtype(np.int64)
    symbol = COMPARISONS[name][1]
    return f"({cx.cast(ops[0], compute)} {symbol} {cx.cast(ops[1], compute)})"


_UINT64 = np.dtype(np.uint64)
# (a comparison read from the other side: k < u is u > k)
_MIRRORED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _unsigned_compare(cx: Emitter, name: str, ops: list[Operand]) -> str:
    """A uint64 ``u`` compared with an int ``k`` that may be negative, exactly as NumPy
    does: int64 would wrap the uint64s of 2**63 and up, so ``k`` below 0 decides alone (every
    uint64 is greater than it), and one of 0 or more compares in uint64."""
    if ops[0].kind == "scalar":
        name, ops = _MIRRORED[name], ops[::-1]
    u, k = cx.cast(ops[0], _UINT64), cx.cast(ops[1], np.dtype(np.int64))
    compared = f"({u} {COMPARISONS[name][1]} {cx.cast(ops[1], _UINT64)})"
    if name in ("gt", "ge", "ne"):
        return f"(({k} < 0) | {compared})"
    return f"(({k} >= 0) & {compared})"


for _name, (_fn, _symbol, _native) in COMPARISONS.items():
    _schemas = tensor_schemas(_name, "Tensor other", "Scalar other")
    for _schema in _schemas:
        # (runtime/direct.py calls the ufunc where both operands have one dtype)
        register(_schema, _compare_body(_name, _fn), ufunc=_fn)
    define(f"aten::{_name}", fuses=_schemas, dtype=fixed(BOOL), render=_render_compare,
           native=_native)

BITWISE: dict[str, Callable] = {
    "__and__": np.bitwise_and, "__or__": np.bitwise_or, "__xor__": np.bitwise_xor,
    # (NumPy's shifts: by the width or more gives 0, or -1 for a negative number shifted right)
    "__lshift__": np.left_shift, "__rshift__": np.right_shift,
}


def _bitwise_body(name: str, fn: Callable) -> Callable:
    def body(self: np.ndarray, other: Any) -> np.ndarray:
        dtype = result_type(self, other)
        if category(dtype) == 2 or category(dtype) == 0 and name not in _BITWISE_SYMBOLS:
            # (PyTorch shifts no bools; NumPy's shift of bools is int8, not their dtype)
            raise RuntimeError(f"{name} is not implemented for {dtype_name(dtype)} tensors")
        return as_tensor(fn(to(self, dtype), to(other, dtype)))

    body.__name__ = name
    return body


_BITWISE_SYMBOLS = {"__and__": "&", "__or__": "|", "__xor__": "^"}


def _render_bitwise(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    name = node.kind.removeprefix("aten::")
    if category(dtype) == 2:
        raise fail(node, f"{name} is not implemented for {dtype_name(dtype)} tensors")
    return f"({cx.cast(ops[0], dtype)} {_BITWISE_SYMBOLS[name]} {cx.cast(ops[1], dtype)})"


def _render_shift(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    """A shift as NumPy's: by a count of 0 to the width less one as C's; by more, or a
    negative count, 0, or -1 for a negative number shifted right (C leaves those undefined).
    The test is of the count alone: of a kernel argument or constant, once per loop (LLVM
    hoists it); of an array of counts, per element, as a select."""
    name = node.kind.removeprefix("aten::")
    if dtype.kind not in "iu":
        raise fail(node, f"{name} is not implemented for {dtype_name(dtype)} tensors")
    x, count = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    width = cx.literal(8 * dtype.itemsize, dtype)
    fits = f"({count} < {width})" if dtype.kind == "u" else \
        f"(({count} >= {cx.literal(0, dtype)}) & ({count} < {width}))"
    if name == "__rshift__" and dtype.kind == "i":     # (by the width less one: 0 or -1)
        return f"({x} >> ({count} if {fits} else {cx.literal(8 * dtype.itemsize - 1, dtype)}))"
    symbol = "<<" if name == "__lshift__" else ">>"
    return f"(({x} {symbol} {count}) if {fits} else {cx.literal(0, dtype)})"


# Not in the fuser's list (PyTorch's neither): fuse_graph leaves them alone. They have a kernel
# form, which @fusejit.jit's own fusion (passes/more_maps.py) uses: a mask made of comparisons,
# (x >= lo) & (x < hi), is one kernel, and so is a hash's chain of shifts, xors and products.
for _name, _fn in BITWISE.items():
    _schema = f"aten::{_name}(Tensor self, Tensor other) -> Tensor"
    register(_schema, _bitwise_body(_name, _fn))
    define(f"aten::{_name}", dtype=promoted(), extends=(_schema,),
           render=_render_bitwise if _name in _BITWISE_SYMBOLS else _render_shift)


# -- in-place forms: compute out of place, check the cast, write through (views included) --------

def _copy_(self: np.ndarray, src: np.ndarray, non_blocking: bool = False) -> np.ndarray:
    # (a source of the target's shape needs no broadcast view: ~2 us a call less, in a time
    # step's masked store)
    same = type(src) is np.ndarray and src.shape == self.shape
    np.copyto(self, src if same else np.broadcast_to(src, self.shape), casting="unsafe")
    return self


def _in_place(name: str, ufunc: Callable, compute: Callable) -> Callable:
    """``inplace(name, compute)`` for add_, sub_, mul_ and div_, with ``ufunc`` writing into
    ``self`` directly where that computes the same: ``self`` a writeable int64 (not for div_,
    whose result is a float) or floating array,
    ``other`` an array of its shape whose promotion with it keeps ``self``'s dtype (``x += mask``
    of an int64 count, ``x *= y`` of one dtype), or a Python float (floating ``self``) or int,
    alpha 1. NumPy casts ``other`` in its loop and buffers memory ``other`` shares with
    ``self``; the general form computes out of place (a cast copy of ``other``, the result),
    checks, and copies back: for ``count += inside`` on 3072 elements, ~10 of the ~27 us an
    iteration of an escape-time loop took on the interpreter. Elsewhere, the general form,
    with PyTorch's checks and errors (a bool operand of sub_, a float result into ints)."""
    general = inplace(name, compute)
    no_bool = name == "sub_"
    floats_only = name == "div_"

    @quiet
    def direct(self: np.ndarray, other: Any) -> np.ndarray:
        ufunc(self, other, out=self)
        return self

    def body(self: Any, other: Any, *alpha: Any) -> np.ndarray:     # (mul_ has no alpha)
        if type(self) is np.ndarray and (not alpha or type(alpha[0]) is int and alpha[0] == 1) \
                and self.flags.writeable:
            dtype = self.dtype
            kind = dtype.kind
            if kind == "f" or dtype == np.int64 and not floats_only:
                kind_of = type(other)
                if kind_of is np.ndarray:
                    if other.shape == self.shape and not (no_bool and other.dtype.kind == "b") \
                            and (other.dtype is dtype or result_type(self, other) == dtype):
                        return direct(self, other)
                elif (kind_of is float and kind == "f") or (
                        kind_of is int and -(1 << 62) < other < (1 << 62)):
                    return direct(self, other)
        return general(self, other, *alpha)

    body.__name__ = name
    return body


register("aten::add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         _in_place("add_", np.add, _add), pure=False)
register("aten::add_(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
         _in_place("add_", np.add, _add), pure=False)
register("aten::sub_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         _in_place("sub_", np.subtract, _sub), pure=False)
register("aten::sub_(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
         _in_place("sub_", np.subtract, _sub), pure=False)
register("aten::mul_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         _in_place("mul_", np.multiply, _mul), pure=False)
register("aten::mul_(Tensor(a!) self, Scalar other) -> Tensor(a!)",
         _in_place("mul_", np.multiply, _mul), pure=False)
register("aten::div_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
         _in_place("div_", np.true_divide, _div), pure=False)
register("aten::div_(Tensor(a!) self, Scalar other) -> Tensor(a!)",
         _in_place("div_", np.true_divide, _div), pure=False)
register("aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
         _copy_, pure=False)
