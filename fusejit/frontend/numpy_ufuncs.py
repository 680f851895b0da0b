"""NumPy ufuncs and functions that elementwise code calls, written with ops fusejit fuses::

    np.sign(x)                   where(x > 0, 1, where(x < 0, -1, where(isnan(x), x, 0)))
    np.reciprocal(x)             aten::reciprocal (floats; NumPy's integer form truncates)
    np.fabs(x)                   aten::abs, in NumPy's float dtype
    np.positive(x)               a copy
    np.deg2rad, np.radians       x * (pi / 180), as NumPy computes them
    np.rad2deg, np.degrees       x * (180 / pi)
    np.fmax(a, b), np.fmin       maximum/minimum, the other operand where one is NaN
    np.float_power(a, b)         a ** b in float64
    np.heaviside(x, h0)          0 below zero, 1 above, h0 at zero, NaN at NaN
    np.sinc(x)                   sin(y) / y with y = pi * where(x == 0, 1e-20, x) (NumPy's)
    np.logaddexp2(a, b)          max + log1p(2 ** -|a - b|) / ln 2; a + 1 where a == b
    np.nan_to_num(x, ...)        where(isnan), where(+inf), where(-inf) with finfo's bounds
    np.ptp(x, axis, keepdims)    max - min
    np.add(x, y, out=z)          aten::copy_(%z, x + y): the result cast "same_kind" into z
    np.exp(x, dtype=np.float32)  x cast to the loop's dtype NumPy resolves, then exp

Each casts as NumPy's own function does (``numpy_dtypes.conform``), so dtypes follow NumPy.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from ..ir.types import BOOL, INT
from ..oplib.table import SCALAR_TYPE_CODES
from .builder import IRBuilder, Item, describe, is_none, is_tensor, scalar_type_of
from .lowering import _array, as_tensor, binary, unary, where
from .numpy_dtypes import cast, conform, dtype_of
from .numpy_lowering import copy, dtype_code, isnan, reduce, refuse_reversed_target


def _floats(b: IRBuilder, fn, x: Item, what: str) -> Value:
    (x,) = conform(b, fn, [_array(b, x, what)], what)
    return x


def sign(b: IRBuilder, x: Item) -> Value:
    """``aten::sign`` is not on the fuser's list (PyTorch's neither): a lone one splits a
    chain in two kernels around an interpreted op (float64: 5 ns an element against NumPy's 3).
    Selects fuse; the derivative stays 0, NaN stays NaN and -0.0 gives 0.0, as NumPy's."""
    x = _array(b, x, "np.sign")
    dtype = dtype_of(x)
    if dtype is None or dtype == np.dtype(np.bool_):
        return unary(b, "sign", x, "np.sign")
    rest = where(b, isnan(b, x), x, 0) if dtype.kind == "f" else \
        where(b, binary(b, "lt", x, 0), -1, 0)
    if dtype.kind == "f":
        rest = where(b, binary(b, "lt", x, 0), -1.0, rest)
    # (integer constants are int64 0-d tensors: back to int8, uint8, ... as NumPy keeps it)
    return cast(b, where(b, binary(b, "gt", x, 0), 1, rest), dtype, "np.sign")


def reciprocal(b: IRBuilder, x: Item) -> Value:
    x = _array(b, x, "np.reciprocal")
    dtype = dtype_of(x)
    if dtype is not None and dtype.kind != "f":
        raise b.error(f"np.reciprocal of {dtype} (NumPy truncates 1 / x to an integer) is not "
                      f"supported; write 1 / x for a float result")
    return unary(b, "reciprocal", x, "np.reciprocal")


def fabs(b: IRBuilder, x: Item) -> Value:
    return b.emit(aten.abs, [_floats(b, np.fabs, x, "np.fabs")], "np.fabs")


def positive(b: IRBuilder, x: Item) -> Value:
    if is_tensor(x) and dtype_of(x) == np.dtype(np.bool_):
        raise b.error("np.positive of a bool array is refused by NumPy; write x.copy()")
    return copy(b, x)


def scaled(fn, factor: float):
    """``np.deg2rad``-like: ``x * factor`` in ``fn``'s float dtype."""
    def lower(b: IRBuilder, x: Item) -> Value:
        return binary(b, "mul", _floats(b, fn, x, f"np.{fn.__name__}"), factor)
    return lower


def nan_ignoring(op: str):
    """``np.fmax`` (``op`` "max") / ``np.fmin``: NaN only where both operands are NaN."""
    fn = np.fmax if op == "max" else np.fmin

    def lower(b: IRBuilder, x1: Item, x2: Item) -> Value:
        what = f"np.{fn.__name__}"
        x1, x2 = conform(b, fn, [x1, x2], what)
        out = binary(b, op, x1, x2)
        if not (is_tensor(out) and (dtype_of(out) is None or dtype_of(out).kind == "f")):
            return out
        for this, other in ((x2, x1), (x1, x2)):
            if is_tensor(this):
                out = where(b, isnan(b, this), other, out)
            elif isinstance(b.static(this), float) and math.isnan(b.static(this)):
                out = where(b, isnan(b, out), other, out)
        return out
    return lower


def float_power(b: IRBuilder, x1: Item, x2: Item) -> Value:
    if not (is_tensor(x1) or is_tensor(x2)):
        raise b.error("np.float_power of two numbers is not supported; write float(a) ** b")
    x1, x2 = conform(b, np.float_power, [x1, x2], "np.float_power")
    return binary(b, "pow", x1, x2)


def heaviside(b: IRBuilder, x1: Item, x2: Item) -> Value:
    x1, x2 = conform(b, np.heaviside, [_array(b, x1, "np.heaviside"), x2], "np.heaviside")
    at_zero = where(b, binary(b, "eq", x1, 0.0), x2, x1)          # (NaN stays NaN)
    return where(b, binary(b, "lt", x1, 0.0), 0.0,
                 where(b, binary(b, "gt", x1, 0.0), 1.0, at_zero))


def sinc(b: IRBuilder, x: Item) -> Value:
    x = _floats(b, np.sinc, x, "np.sinc")
    y = binary(b, "mul", where(b, binary(b, "eq", x, 0.0), 1.0e-20, x), math.pi)
    return binary(b, "div", unary(b, "sin", y, "np.sinc"), y)


def logaddexp2(b: IRBuilder, x1: Item, x2: Item) -> Value:
    what = "np.logaddexp2"
    if not (is_tensor(x1) or is_tensor(x2)):
        raise b.error(f"{what} of two numbers is not supported")
    x1, x2 = conform(b, np.logaddexp2, [x1, x2], what)
    top = binary(b, "max", x1, x2)
    gap = unary(b, "neg", unary(b, "abs", binary(b, "sub", x1, x2), what), what)
    tail = binary(b, "mul", unary(b, "log1p", binary(b, "pow", 2.0, gap), what),
                  1.0 / math.log(2.0))
    # (equal operands, infinities included, give x + 1 as in NumPy's npy_logaddexp2)
    return where(b, binary(b, "eq", x1, x2), binary(b, "add", x1, 1.0),
                 binary(b, "add", top, tail))


def nan_to_num(b: IRBuilder, x: Item, copy_: Item = True, nan: Item = 0.0,
               posinf: Item = None, neginf: Item = None) -> Value:
    x = _array(b, x, "np.nan_to_num")
    dtype = dtype_of(x)
    if dtype is None:
        raise b.error("np.nan_to_num needs an array of known dtype")
    if dtype.kind != "f":
        return copy(b, x)
    # (finfo's bounds as constants of x's dtype: a number would be a float32 0-d tensor)
    big = np.finfo(dtype).max
    hi = b.value_const(np.array(big, dtype)) if is_none(posinf) else posinf
    lo = b.value_const(np.array(-big, dtype)) if is_none(neginf) else neginf
    out = where(b, isnan(b, x), nan, x)
    out = where(b, binary(b, "eq", x, math.inf), hi, out)
    return where(b, binary(b, "eq", x, -math.inf), lo, out)


def ptp(b: IRBuilder, a: Item, axis: Item = None, out: Item = None,
        keepdims: Item = False) -> Value:
    if not is_none(out):
        raise b.error("np.ptp: the out= argument is not supported")
    x = _array(b, a, "np.ptp")
    return binary(b, "sub", reduce(b, "max", x, axis, keepdims),
                  reduce(b, "min", x, axis, keepdims))


# The casting rules a ufunc call may name (NumPy's "no" and "equiv" forbid the casts between
# byte orders and dtypes that fusejit's arrays make freely: refused).
_CASTINGS = ("same_kind", "safe", "unsafe")


def with_out_and_dtype(lower, ufunc: np.ufunc, name: str):
    """A ufunc's lowering taking NumPy's ``out=`` (an array written in place and returned;
    the result must cast to it by ``casting``, "same_kind" unless given, and broadcast to its
    shape as NumPy requires of the inputs), ``dtype=`` (the inputs cast to the loop NumPy
    resolves for that output dtype, as ``signature=(None, ..., dtype)`` does, each by
    ``casting`` too), ``casting=`` ("same_kind", "safe" or "unsafe") and ``where=`` (a mask:
    ``out`` keeps its values where it is False; NumPy leaves them uninitialised without
    ``out``, which is refused)."""
    def call(b: IRBuilder, *args: Item) -> Item:
        *xs, out, dtype, casting, mask = args
        casting = b.static(casting)
        if casting not in _CASTINGS:
            raise b.error(f"{name}(casting=...) must be a constant 'same_kind', 'safe' or "
                          f"'unsafe', got {describe(args[-2])}")
        if dtype is not None:
            xs = _in_loop_dtypes(b, ufunc, name, xs, dtype, casting)
        result = lower(b, *xs)
        masked = b.static(mask) is not True
        if masked and out is None:
            raise b.error(f"{name}(where=...) without out= leaves the other elements "
                          "uninitialised in NumPy; pass out= (the values to keep there)")
        if out is None:
            return result
        if masked:
            if not is_tensor(mask) and not isinstance(b.static(mask), bool):
                raise b.error(f"{name}(where=...) takes a boolean array or a bool, got "
                              f"{describe(mask)}")
            if is_tensor(mask) and dtype_of(mask) is not None and dtype_of(mask) != np.bool_:
                raise b.error(f"{name}(where=...) takes a boolean mask, got an array of "
                              f"{dtype_of(mask)}")
        return written_out(b, out, result, name, casting, mask if masked else None)
    return call


def written_out(b: IRBuilder, out: Item, result: Item, name: str,
                casting: str = "same_kind", mask: Item = None) -> Value:
    """NumPy's ``out=``: ``result`` written into the array ``out`` (cast by ``casting``, as
    NumPy allows), which is returned; with a ufunc's ``where=`` ``mask``, only where it holds."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not is_tensor(out) or not is_tensor(result):
        raise b.error(f"{name}(out=...) takes an array to write an array result into, "
                      f"got {describe(out)}")
    if mask is not None:
        # (out's values where the mask is False: the cast of the promoted values back to
        # out's dtype gives them unchanged, and the result cast once, as NumPy writes it)
        result = where(b, mask, result, out)
    refuse_reversed_target(b, out)      # (a copy here: the write would be lost)
    have, want = dtype_of(result), dtype_of(out)
    if have is not None and want is not None and not np.can_cast(have, want, casting):
        raise b.error(f"{name}: cannot cast the {have} result to the {want} out array "
                      f"(casting rule {casting!r}), as NumPy refuses")
    return b.emit(aten.copy_, [out, result, False], f"{name}(out=...)")


def _in_loop_dtypes(b: IRBuilder, ufunc: np.ufunc, name: str, xs: list[Item],
                    dtype: Item, casting: str) -> list[Item]:
    target = SCALAR_TYPE_CODES[dtype_code(b, dtype, None, f"{name}(dtype=...)")]
    kinds = []
    for x in xs:
        if is_tensor(x):
            kinds.append(dtype_of(x))
        elif isinstance(x, Value) and x in b.numpy_scalars:
            kinds.append(b.numpy_scalars[x])
        else:
            kind = scalar_type_of(x)
            kinds.append(bool if kind == BOOL else int if kind == INT else float)
    if any(k is None for k in kinds) or not any(is_tensor(x) for x in xs):
        raise b.error(f"{name}(dtype=...) takes an array of known dtype here")
    try:
        loop = ufunc.resolve_dtypes((*kinds, None), signature=(None,) * len(xs) + (target,),
                                    casting=casting)
    except (TypeError, ValueError) as error:      # (UFuncTypeError is a TypeError)
        raise b.error(f"{name}(dtype={target}): {error}") from None
    return [cast(b, x, d, name) if is_tensor(x) else as_tensor(b, x, name, d)
            for x, d in zip(xs, loop)]


__all__ = ["fabs", "float_power", "heaviside", "logaddexp2", "nan_ignoring", "nan_to_num",
           "positive", "ptp", "reciprocal", "scaled", "sign", "sinc", "with_out_and_dtype"]
