"""Arithmetic on TorchScript's ``int``, ``float`` and ``bool`` scalars (Python values at run time).

::

    %c : int = aten::floordiv(%a, %b)        Python's //: rounds toward -inf
    %r : int = aten::remainder(%a, %b)       Python's %: the divisor's sign
    %q : float = aten::div(%a, %b)           / of two ints is a float
    %m : bool = aten::lt(%i, %n)

Semantics chosen (TorchScript's, where it is defined):

- ``int`` is a 64-bit integer: results of ``add``/``sub``/``mul``/``neg``/``abs``/``floordiv``/
  ``remainder`` wrap around on overflow (two's complement), as TorchScript's int64 does in
  practice. Integer ``//`` and ``%`` by zero raise ``ZeroDivisionError``.
- ``float`` follows IEEE-754: ``/`` by zero gives inf or nan, ``sqrt(-1.0)`` is nan, ``pow`` of
  a negative base and a fractional exponent is nan; nothing warns. ``pow(int, int)`` is a float.
- ``min``/``max`` of floats propagate nan. ``floor``/``ceil``/``Int`` of inf or nan, or of a
  float whose integer is beyond int64 (1e300), are errors (they do not wrap around).
- ``Scalar`` overloads (operands whose kind is only known at run time) give an ``int`` when both
  operands are ints (bools count as ints) and a ``float`` otherwise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.schema import registry
from .table import register

_SCALAR_TYPES = frozenset({"int", "float", "bool", "Scalar"})
_INT_MIN, _INT_RANGE = -(1 << 63), 1 << 64

Number = bool | int | float


def wrap_int64(value: int) -> int:
    """``value`` reduced to int64 with two's-complement wrap-around."""
    return (value - _INT_MIN) % _INT_RANGE + _INT_MIN


def _both_int(a: Number, b: Number) -> bool:
    return isinstance(a, int) and isinstance(b, int)


def _ieee(fn: Callable, *args: Number) -> float:
    """A float64 NumPy function with IEEE results (inf, nan) and no warnings."""
    with np.errstate(all="ignore"):
        return float(fn(*(np.float64(a) for a in args)))


def _check_divisor(b: int) -> None:
    if b == 0:
        raise ZeroDivisionError("ZeroDivisionError: integer division or modulo by zero")


def _div(a: Number, b: Number) -> float:
    # (Python's float division is IEEE's, as NumPy's float64 one, but for a zero divisor,
    # where it raises and NumPy gives inf or nan; _ieee's errstate and conversions cost
    # ~6 us, paid on each step of a loop that divides numbers)
    try:
        return float(a) / float(b)
    except ZeroDivisionError:
        return _ieee(np.true_divide, a, b)


def _floordiv(a: Number, b: Number) -> Number:
    if _both_int(a, b):
        _check_divisor(b)
        return a // b
    return _ieee(lambda x, y: np.floor(x / y), a, b)


def _remainder(a: Number, b: Number) -> Number:
    if _both_int(a, b):
        _check_divisor(b)
        return a % b
    return _ieee(lambda x, y: np.fmod(y + np.fmod(x, y), y), a, b)


def _pow(a: Number, b: Number) -> float:
    return _ieee(np.power, a, b)


def _nan_aware(pick: Callable[[Number, Number], Number]) -> Callable[[Number, Number], Number]:
    def body(a: Number, b: Number) -> Number:
        for x in (a, b):
            if isinstance(x, float) and math.isnan(x):
                return x
        return pick(a, b)

    return body


# name -> body over Python numbers (the result is then coerced to the schema's return type)
BINARY: dict[str, Callable[[Number, Number], Any]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _div, "floordiv": _floordiv, "remainder": _remainder, "pow": _pow,
    "min": _nan_aware(min), "max": _nan_aware(max),
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "__and__": lambda a, b: bool(a) and bool(b), "__or__": lambda a, b: bool(a) or bool(b),
    "__xor__": lambda a, b: bool(a) != bool(b),
}


def _int64_of(value: float, rounded: int) -> int:
    """``rounded`` (an integral float ``value`` rounded), refused unless it is an int64: the
    int that Python would give does not fit, and wrapping it around would give a number
    unrelated to ``value`` (1e300 would be 0). An OverflowError, as Python's for an int that
    does not fit a C integer."""
    if not _INT_MIN <= rounded < -_INT_MIN:
        raise OverflowError(f"cannot convert float {value!r} to integer: beyond the 64-bit "
                            f"range")
    return rounded


def _refuse_non_finite(value: float) -> None:
    """Python's error for ``int()`` of a NaN (a ValueError) or an infinity (an OverflowError),
    with this module's message."""
    if math.isnan(value):
        raise ValueError(f"cannot convert float {value} to integer")
    if math.isinf(value):
        raise OverflowError(f"cannot convert float {value} to integer")


def to_int64(value: Number) -> int:
    """``int(value)``, refused for a non-finite float or one beyond int64."""
    if isinstance(value, float):
        _refuse_non_finite(value)
        return _int64_of(value, int(value))
    return int(value)


def _rounding(fn: Callable[[float], int]) -> Callable[[Number], int]:
    def body(a: Number) -> int:
        if isinstance(a, float):
            _refuse_non_finite(a)
            return _int64_of(a, fn(a))
        return fn(a)

    return body


UNARY: dict[str, Callable[[Number], Any]] = {
    "neg": lambda a: -a, "abs": abs,
    "floor": _rounding(math.floor), "ceil": _rounding(math.ceil),
    "sqrt": lambda a: _ieee(np.sqrt, a), "exp": lambda a: _ieee(np.exp, a),
    "log": lambda a: _ieee(np.log, a), "tanh": lambda a: _ieee(np.tanh, a),
    "__not__": lambda a: not a,
    "Int": to_int64, "Float": float, "Bool": bool,
}
# Python's math functions of one float (NumPy-spelled code calls them on scalars too).
MATH = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
        "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "log1p": np.log1p,
        "expm1": np.expm1, "log2": np.log2, "log10": np.log10,
        # (Python's own, the C library's, as compiled code calls it: not lgamma, which
        # CPython computes itself)
        "erf": math.erf, "erfc": math.erfc,
        "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
UNARY.update({name: functools.partial(_ieee, fn) for name, fn in MATH.items()})

# TorchScript's scalar overloads, registered before the run-time-kind ones below (a node
# takes the first schema it matches).
_COMPARE = "eq ne ge gt le lt".split()
_SCALAR_BINARY = "add sub mul div floordiv remainder pow eq ne lt le gt ge min max".split()
SCHEMAS = [
    "aten::Float(Scalar a) -> float",
    "aten::Int(Scalar a) -> int",
    *(f"aten::{op}(int a, int b) -> {'bool' if op in _COMPARE else 'int'}"
      for op in _SCALAR_BINARY if op not in ("div", "pow")),
    *(f"aten::{op}(float a, float b) -> {'bool' if op in _COMPARE else 'float'}"
      for op in _SCALAR_BINARY),
    *(f"aten::{op}(int a, float b) -> {'bool' if op in _COMPARE else 'float'}"
      for op in _SCALAR_BINARY),
    *(f"aten::{op}(float a, int b) -> {'bool' if op in _COMPARE else 'float'}"
      for op in _SCALAR_BINARY),
    "aten::div(int a, int b) -> float",
    "aten::pow(int a, int b) -> float",
    "aten::neg(int a) -> int",
    "aten::neg(float a) -> float",
    "aten::eq(bool a, bool b) -> bool",
    "aten::ne(bool a, bool b) -> bool",
    "aten::__and__(bool a, bool b) -> bool",
    "aten::__or__(bool a, bool b) -> bool",
    "aten::__xor__(bool a, bool b) -> bool",
    "aten::Bool(int a) -> bool",
    "aten::Bool(float a) -> bool",
    "aten::Int(float a) -> int",
    "aten::Int(bool a) -> int",
    "aten::Float(int a) -> float",
    "aten::Float(bool a) -> float",
    "aten::abs(int a) -> int",
    "aten::abs(float a) -> float",
    "aten::floor(float a) -> int",
    "aten::ceil(float a) -> int",
    "aten::sqrt(float a) -> float",
    "aten::exp(float a) -> float",
    "aten::log(float a) -> float",
    "aten::tanh(float a) -> float",
    "aten::__not__(bool self) -> bool",
]

# Overloads TorchScript has that the IR's schema table lacks: operands of run-time kind, and
# math functions of ints.
EXTRA_SCHEMAS = [
    *(f"aten::{op}(Scalar a, Scalar b) -> Scalar"
      for op in ("add", "sub", "mul", "floordiv", "remainder", "min", "max")),
    "aten::div(Scalar a, Scalar b) -> float",
    "aten::pow(Scalar a, Scalar b) -> float",
    *(f"aten::{op}(Scalar a, Scalar b) -> bool" for op in ("eq", "ne", "lt", "le", "gt", "ge")),
    "aten::neg(Scalar a) -> Scalar",
    "aten::abs(Scalar a) -> Scalar",
    *(f"aten::{op}(int a) -> float" for op in ("sqrt", "exp", "log", "tanh")),
    "aten::floor(int a) -> int",
    "aten::ceil(int a) -> int",
    "aten::Bool(bool a) -> bool",
    *(f"aten::{op}({kind} a) -> float" for op in MATH for kind in ("float", "int")),
]


def _coerce(returns: str) -> Callable[[Any], Any]:
    if returns == "int":
        return lambda v: wrap_int64(int(v))
    if returns == "float":
        return float
    if returns == "bool":
        return bool
    return lambda v: wrap_int64(v) if isinstance(v, int) and not isinstance(v, bool) else v


def _bind(fn: Callable, coerce: Callable[[Any], Any]) -> Callable:
    return lambda *args: coerce(fn(*args))


def _register_scalar_overloads() -> None:
    for text in SCHEMAS + EXTRA_SCHEMAS:
        registry.register(text)
    for table in (BINARY, UNARY):
        for name, fn in table.items():
            for schema in registry.schemas(f"aten::{name}"):
                types = [str(a.type) for a in schema.arguments]
                if len(types) != (2 if table is BINARY else 1):
                    continue
                if not set(types) <= _SCALAR_TYPES or len(schema.returns) != 1:
                    continue
                register(schema.text, _bind(fn, _coerce(str(schema.returns[0]))))


_register_scalar_overloads()


def int_power(a: int, b: int) -> int:
    """Python's ``a ** b`` of two ints with ``b >= 0``: an int (TorchScript's ``aten::pow`` of
    ints gives a float, where ``2 ** zoom`` in Python is the int ``4096``). A negative ``b``
    (Python's result is then a float) and a result beyond int64 are errors, not another
    type or a wrapped-around number."""
    if b < 0:
        raise ValueError(f"{a} ** {b}: an int to a negative int power is a float in Python; "
                         f"write {a} ** float({b}) or float({a}) ** {b}")
    if a not in (-1, 0, 1) and b > 64:
        raise OverflowError(f"{a} ** {b} is beyond the 64-bit int range")
    result = a ** b
    if not _INT_MIN <= result < -_INT_MIN:
        raise OverflowError(f"{a} ** {b} is beyond the 64-bit int range")
    return result


register("fusejit::int_pow(int a, int b) -> int", int_power)
