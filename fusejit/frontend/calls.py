"""The Python callables the frontends understand, keyed by the objects themselves.

A call is recognised by *what* is called, not by how it is spelled: ``np.exp``, ``numpy.exp`` and
``from numpy import exp`` are all the ufunc object ``np.exp``, which maps to one :class:`Callee`::

    CALLEES[np.exp]      -> Callee("np.exp", (x, /), unary "exp", dtype rule "float")
    CALLEES[np.split]    -> Callee("np.split", (ary, indices_or_sections, axis=0), lowering.split)
    METHODS["sum"]       -> Callee("sum", (self, axis=None, keepdims=False), lowering.reduce_sum)

Each callee binds the call's arguments to its own signature (so a keyword the mapping does not
take is a clear error), then lowers through :mod:`fusejit.frontend.lowering`. Its ``rule`` tells
the tracer which dtype PyTorch gives the result (``promote``, ``div``, ``float``, ``same``,
``bool``; ``None`` keeps NumPy's).
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops as F
from ..ir.graph import Value
from ..ir.types import INT, ListType, ScalarType
from ..oplib.array_ops import REDUCEAT_UFUNCS, UFUNCS_AT
from . import numpy_arrays, numpy_linalg, numpy_lowering, numpy_more
from . import numpy_ufuncs as U
from .builder import IRBuilder, Item, describe, is_none, is_tensor, scalar_type_of
from .einsum import einsum
from .lowering import (
    _array,
    array_like,
    array_split,
    as_tensor,
    binary,
    concatenate,
    invert,
    list_length,
    reshape,
    size,
    split,
    stack,
    to_bool,
    to_float,
    to_int,
    unary,
    where,
)
from .numpy_dtypes import dtype_of

_P = inspect.Parameter


def _signature(spec: str) -> inspect.Signature:
    """``"x, axis=0, *, keepdims=False"`` -> a Signature; defaults are None, bools, ints,
    floats and quoted strings."""
    params: list[inspect.Parameter] = []
    kind = _P.POSITIONAL_OR_KEYWORD
    for piece in (p.strip() for p in spec.split(",") if p.strip()):
        if piece == "/":
            params = [p.replace(kind=_P.POSITIONAL_ONLY) for p in params]
            continue
        if piece == "*":
            kind = _P.KEYWORD_ONLY
            continue
        if piece.startswith("*"):
            params.append(_P(piece[1:], _P.VAR_POSITIONAL))
            kind = _P.KEYWORD_ONLY
            continue
        name, _, default = piece.partition("=")
        value = {"None": None, "False": False, "True": True}.get(default, default)
        if isinstance(value, str) and value[:1] == "'" == value[-1:]:
            value = value[1:-1]
        elif isinstance(value, str) and value:
            value = float(value) if any(c in value for c in ".e") else int(value)
        params.append(_P(name, kind) if not default else _P(name, kind, default=value))
    return inspect.Signature(params)


class Callee:
    """One understood callable: its display name, signature, lowering and dtype rule."""

    __slots__ = ("name", "signature", "lower", "rule")

    def __init__(self, name: str, spec: str, lower: Callable[..., Item], rule: str | None = None):
        self.name = name
        self.signature = _signature(spec)
        self.lower = lower
        self.rule = rule

    def __call__(self, b: IRBuilder, args: list[Item], kwargs: dict[str, Item]) -> Item:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as error:
            raise b.error(f"{self.name}(): {error}; write it as {self.name}{self.signature}"
                          ) from None
        bound.apply_defaults()
        values: list[Item] = []
        for name, value in bound.arguments.items():
            if self.signature.parameters[name].kind == _P.VAR_POSITIONAL:
                values.append(tuple(value))
            else:   # (a variable holding None is None: dtype=d, axis=a as in NumPy)
                values.append(None if is_none(value) else value)
        return self.lower(b, *values)


def _where_or_nonzero(b: IRBuilder, condition: Item, x: Item, y: Item) -> Item:
    """``np.where(c, x, y)``; ``np.where(c)`` is ``np.nonzero(c)``, as in NumPy."""
    if x is None and y is None:
        return numpy_linalg.nonzero(b, condition)
    if x is None or y is None:
        raise b.error("np.where takes the condition alone or with both x and y")
    return where(b, condition, x, y)


def _array_like(b: IRBuilder, x: Item, display: str) -> Item:
    """A ufunc's operand: a list or tuple (a literal, or a list a loop built) as the array
    NumPy makes of it (``np.log(rs)`` of a list of means); anything else as it is."""
    return _array(b, x, display) if array_like(b, x) else x


def _unary(name: str, display: str) -> Callable[..., Item]:
    return lambda b, x: unary(b, name, _array_like(b, x, display), display)


def _math(name: str, display: str) -> Callable[..., Item]:
    """``math.sqrt(x[0])``: a function of ``math`` takes the Python float of a NumPy scalar
    (a 0-d array here) and computes in double, as Python does (in float32 it differed in
    the last bits, and came back as an array)."""
    def call(b: IRBuilder, x: Item) -> Item:
        if is_tensor(x) or isinstance(x, Value) and x in b.numpy_scalars:
            x = b.emit("aten::Float", [x], display)   # (a fresh Python float)
        return unary(b, name, x, display)
    return call


def _math_of(lower: Callable[..., Item], display: str) -> Callable[..., Item]:
    """``math.atan2(y, x)``, ``math.isnan(x)`` ...: ``lower`` (a NumPy-spelled form) of the
    arguments as Python floats, and a Python number back (``math`` gives one)."""
    def call(b: IRBuilder, *xs: Item) -> Item:
        xs = tuple(b.emit("aten::Float", [x], display) if is_tensor(x) or isinstance(
            x, Value) and x in b.numpy_scalars else x for x in xs)
        result = lower(b, *xs)
        return b.emit("aten::Float", [result], display) if is_tensor(result) else result
    return call


def _float64(b: IRBuilder, x: Item) -> Value:
    return as_tensor(b, to_float(b, x), "math", np.dtype(np.float64))


def _sequence(kind: type) -> Callable[..., Item]:
    """``tuple(xs)`` / ``list(xs)`` of a tuple or list known while scripting (``map``'s)."""
    def make(b: IRBuilder, items: Item = None) -> Item:
        items = () if items is None else items
        if not isinstance(items, (tuple, list)):
            raise b.error(f"{kind.__name__}() takes a tuple or list here, got "
                          f"{describe(items)}")
        return kind(items)
    return make


# (np.cbrt and math.cbrt: NumPy's cbrt, a number through a 0-d float64 array)
_cbrt = numpy_arrays.own_unary("fusejit::cbrt", np.cbrt)

_MATH_MORE = {
    math.atan2: ("y, x, /", lambda b, y, x: binary(b, "atan2", _float64(b, y), x)),
    math.hypot: ("x, y, /", lambda b, x, y: numpy_arrays.smooth("hypot", np.hypot)(
        b, _float64(b, x), y)),
    math.isnan: ("x, /", lambda b, x: binary(b, "ne", x, x)),
    math.isinf: ("x, /", lambda b, x: binary(b, "eq", unary(b, "abs", x), math.inf)),
    math.isfinite: ("x, /", lambda b, x: binary(b, "lt", unary(b, "abs", x), math.inf)),
    math.fabs: ("x, /", lambda b, x: unary(b, "abs", to_float(b, x))),
    math.radians: ("x, /", lambda b, x: binary(b, "mul", x, math.pi / 180)),
    math.degrees: ("x, /", lambda b, x: binary(b, "mul", x, 180 / math.pi)),
    math.trunc: ("x, /", lambda b, x: to_int(b, x)),
    math.pow: ("x, y, /", lambda b, x, y: binary(b, "pow", to_float(b, x), to_float(b, y))),
    math.fmod: ("x, y, /", lambda b, x, y: to_float(b, binary(b, "fmod", _float64(b, x), y))),
    math.exp2: ("x, /", lambda b, x: binary(b, "pow", 2.0, to_float(b, x))),
    math.cbrt: ("x, /", lambda b, x: _cbrt(b, to_float(b, x))),
    math.isqrt: ("n, /", lambda b, n: _isqrt(b, n)),
}


def _log(b: IRBuilder, x: Item, base: Item) -> Item:
    """``math.log(x)``, and ``math.log(x, base)`` as log(x) / log(base), as Python."""
    log = _math("log", "math.log")
    return log(b, x) if base is None else binary(b, "div", log(b, x), log(b, base))


def _isqrt(b: IRBuilder, n: Item) -> Item:
    """``math.isqrt(n)``: the float square root's integer part, one step down or up where
    rounding crossed a square (for int64 it is at most one off; the step up compares
    r + 1 with n // (r + 1), which cannot overflow); ValueError below 0."""
    n = to_int(b, n)
    b.raise_unless(binary(b, "ge", n, 0), "ValueError: isqrt() argument must be nonnegative")
    r = to_int(b, unary(b, "sqrt", to_float(b, n)))
    r = binary(b, "sub", r, to_int(b, binary(b, "gt", binary(b, "mul", r, r), n)))
    up = binary(b, "add", r, 1)
    return binary(b, "add", r, to_int(b, binary(b, "le", up, binary(b, "floordiv", n, up))))


def _binary(op: str, ufunc: Any = None) -> Callable[..., Item]:
    what = f"np.{ufunc.__name__}" if ufunc is not None else op
    return lambda b, x1, x2: binary(b, op, _array_like(b, x1, what), _array_like(b, x2, what),
                                    ufunc)


def _len(b: IRBuilder, x: Item) -> Item:
    if isinstance(x, (tuple, list)):
        return len(x)
    if isinstance(x, Value) and isinstance(x.type, ListType):
        return list_length(b, x)
    if not is_tensor(x):
        raise b.error("len() takes an array or a tuple")
    return size(b, x, 0)


def _slice(b: IRBuilder, args: tuple) -> slice:
    """``slice(stop)``, ``slice(start, stop[, step])``: Python's slice object, of ints (known
    when it runs or before) and Nones, used as an index as ``x[a:b:c]`` is."""
    if not 1 <= len(args) <= 3:
        raise b.error(f"slice() takes 1 to 3 arguments, got {len(args)}")
    for arg in args:
        if not is_none(arg) and scalar_type_of(arg) != INT:
            raise b.error(f"slice()'s arguments are ints or None, got a {describe(arg)}")
    parts = [None if is_none(arg) else arg for arg in args]
    return slice(*parts)


def _reshape_method(b: IRBuilder, x: Item, shape: tuple, order: Item = "C") -> Item:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return numpy_arrays.reshape_ordered(b, x, shape, order)


def _item(b: IRBuilder, x: Item) -> Item:
    """``x.item()``: the Python number of ``x``'s dtype (NumPy checks the size, so does the
    conversion when it runs)."""
    if dtype_of(x) is None:
        raise b.error(".item() of an array whose dtype is not known here; use float(x), "
                      "int(x) or bool(x)")
    kind = dtype_of(x).kind
    convert = to_float if kind == "f" else to_bool if kind == "b" else to_int
    return convert(b, x)


def _aten(name: str, display: str) -> Callable[..., Item]:
    return lambda b, *args: b.emit(f"aten::{name}", list(args), display)


_UNARY_UFUNCS: dict[Any, tuple[str, str]] = {
    np.exp: ("exp", "float"), np.log: ("log", "float"), np.log1p: ("log1p", "float"),
    np.expm1: ("expm1", "float"), np.log2: ("log2", "float"), np.log10: ("log10", "float"),
    np.sqrt: ("sqrt", "float"), np.tanh: ("tanh", "float"), np.sin: ("sin", "float"),
    np.cos: ("cos", "float"), np.tan: ("tan", "float"), np.arcsin: ("asin", "float"),
    np.arccos: ("acos", "float"), np.arctan: ("atan", "float"), np.sinh: ("sinh", "float"),
    np.cosh: ("cosh", "float"), np.arcsinh: ("asinh", "float"), np.arccosh: ("acosh", "float"),
    np.arctanh: ("atanh", "float"), np.abs: ("abs", "same"), np.floor: ("floor", "same"),
    np.ceil: ("ceil", "same"), np.trunc: ("trunc", "same"), np.rint: ("round", "same"),
    np.negative: ("neg", "same"),
    np.logical_not: ("logical_not", "bool"),
}
_BINARY_UFUNCS: dict[Any, tuple[str, str | None]] = {
    np.add: ("add", "promote"), np.subtract: ("sub", "promote"),
    np.multiply: ("mul", "promote"), np.divide: ("div", "div"), np.power: ("pow", "promote"),
    np.remainder: ("remainder", "promote"), np.fmod: ("fmod", "promote"),
    np.floor_divide: ("floordiv", "promote"), np.arctan2: ("atan2", "div"),
    np.maximum: ("max", "promote"), np.minimum: ("min", "promote"), np.matmul: ("matmul", None),
    np.equal: ("eq", "bool"), np.not_equal: ("ne", "bool"), np.less: ("lt", "bool"),
    np.less_equal: ("le", "bool"), np.greater: ("gt", "bool"),
    np.greater_equal: ("ge", "bool"), np.bitwise_and: ("and", "promote"),
    np.bitwise_or: ("or", "promote"), np.bitwise_xor: ("xor", "promote"),
    np.left_shift: ("lshift", "promote"), np.right_shift: ("rshift", "promote"),
}
_F_UNARY = {F.sigmoid: "sigmoid", F.relu: "relu", F.rsqrt: "rsqrt", F.reciprocal: "reciprocal",
            F.frac: "frac", F.logit: "logit", F.erf: "erf", F.erfc: "erfc", F.lgamma: "lgamma"}

CALLEES: dict[Any, Callee] = {}
for _fn, (_name, _rule) in _UNARY_UFUNCS.items():
    CALLEES[_fn] = Callee(f"np.{_fn.__name__}", "x, /", _unary(_name, f"np.{_fn.__name__}"),
                          _rule)
for _fn, (_name, _rule) in _BINARY_UFUNCS.items():
    CALLEES[_fn] = Callee(f"np.{_fn.__name__}", "x1, x2, /", _binary(_name, _fn), _rule)
for _fn, _name in _F_UNARY.items():
    CALLEES[_fn] = Callee(f"F.{_name}", "x", _unary(_name, f"F.{_name}"),
                          "same" if _name in ("relu", "frac") else "float")
CALLEES.update({
    np.where: Callee("np.where", "condition, x=None, y=None, /", _where_or_nonzero,
                     "promote_last2"),
    np.invert: Callee("np.invert", "x, /", lambda b, x: invert(b, x, "np.invert"), "same"),
    np.clip: Callee("np.clip", "a, a_min=None, a_max=None, out=None, *, min=None, max=None",
                    numpy_arrays.clip, "same"),
    np.split: Callee("np.split", "ary, indices_or_sections, axis=0", split),
    np.array_split: Callee("np.array_split", "ary, indices_or_sections, axis=0", array_split),
    np.concatenate: Callee("np.concatenate", "arrays, /, axis=0", concatenate),
    np.stack: Callee("np.stack", "arrays, axis=0", stack),
    np.reshape: Callee("np.reshape", "a, /, shape, order='C'", numpy_arrays.reshape_ordered),
    np.ravel: Callee("np.ravel", "a, order='C'", numpy_arrays.ravel),
    np.moveaxis: Callee("np.moveaxis", "a, source, destination", numpy_arrays.moveaxis),
    np.indices: Callee("np.indices", "dimensions, dtype=None, sparse=False", numpy_arrays.indices),
    np.transpose: Callee("np.transpose", "a, axes=None", numpy_arrays.transpose_axes),
    np.round: Callee("np.round", "a, decimals=0", numpy_more.round_, "same"),
    np.around: Callee("np.around", "a, decimals=0", numpy_more.round_, "same"),
    round: Callee("round", "number, ndigits=None", numpy_more.builtin_round),
    sorted: Callee("sorted", "iterable, /, *, key=None, reverse=False",
                   lambda b, items, key, reverse: _sorted(b, items, key, reverse)),
    np.divmod: Callee("np.divmod", "x1, x2, /", lambda b, x, y: _divmod(b, x, y)),
    divmod: Callee("divmod", "a, b, /", lambda b, x, y: _divmod(b, x, y)),
    F.threshold: Callee("F.threshold", "x, threshold, value", _aten("threshold", "F.threshold"),
                        "same"),
    F.lerp: Callee("F.lerp", "start, end, weight", _aten("lerp", "F.lerp"), "promote"),
    F.addcmul: Callee("F.addcmul", "x, tensor1, tensor2, value=1",
                      _aten("addcmul", "F.addcmul"), "promote"),
    F.softmax: Callee("F.softmax", "x, axis", lambda b, x, axis: b.emit(
        "aten::softmax", [x, b.static_int(axis, "F.softmax's axis"), None], "F.softmax"),
        "float"),
    F.type_as: Callee("F.type_as", "x, other", _aten("type_as", "F.type_as")),
    float: Callee("float", "x, /", to_float),
    int: Callee("int", "x, /", to_int),
    bool: Callee("bool", "x, /", to_bool),
    abs: Callee("abs", "x, /", _unary("abs", "abs"), "same"),
    min: Callee("min", "*args", numpy_arrays.extreme("min"), "promote"),
    max: Callee("max", "*args", numpy_arrays.extreme("max"), "promote"),
    len: Callee("len", "x, /", _len),
    slice: Callee("slice", "*args", _slice),
    tuple: Callee("tuple", "iterable=None, /", _sequence(tuple)),
    list: Callee("list", "iterable=None, /", _sequence(list)),
    math.exp: Callee("math.exp", "x, /", _math("exp", "math.exp")),
    math.log: Callee("math.log", "x, base=None, /", _log),
    math.sqrt: Callee("math.sqrt", "x, /", _math("sqrt", "math.sqrt")),
    math.tanh: Callee("math.tanh", "x, /", _math("tanh", "math.tanh")),
    math.floor: Callee("math.floor", "x, /", _math("floor", "math.floor")),
    **{getattr(math, _m): Callee(f"math.{_m}", "x, /", _math(_a, f"math.{_m}"))
       for _m, _a in (("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("asin", "asin"),
                      ("acos", "acos"), ("atan", "atan"), ("sinh", "sinh"), ("cosh", "cosh"),
                      ("log1p", "log1p"), ("expm1", "expm1"), ("log2", "log2"),
                      ("log10", "log10"), ("erf", "erf"), ("erfc", "erfc"),
                      ("asinh", "asinh"), ("acosh", "acosh"), ("atanh", "atanh"),
                      ("lgamma", "lgamma"))},
    math.ceil: Callee("math.ceil", "x, /", _math("ceil", "math.ceil")),
    **{fn: Callee(f"math.{fn.__name__}", spec, _math_of(lower, f"math.{fn.__name__}"))
       for fn, (spec, lower) in _MATH_MORE.items()},
})

def _reduction(name: str) -> Callable[..., Item]:
    if name in ("var", "std"):
        return lambda b, x, axis, keepdims, ddof: numpy_lowering.reduce(b, name, x, axis,
                                                                        keepdims, ddof)
    return lambda b, x, axis, keepdims: numpy_lowering.reduce(b, name, x, axis, keepdims)


_WEIGHED = ("sum", "mean", "prod")   # (NumPy's dtype= and where= are taken for these)


def _reduction_spec(name: str, receiver: str) -> str:
    if name in ("var", "std"):
        return f"{receiver}, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
    if name in ("sum", "prod"):
        return f"{receiver}, axis=None, dtype=None, out=None, keepdims=False, initial=None, " \
               f"*, where=None"
    if name in _WEIGHED:
        return f"{receiver}, axis=None, dtype=None, out=None, keepdims=False, *, where=None"
    if name in ("max", "min"):
        return f"{receiver}, axis=None, out=None, keepdims=False, initial=None, where=None"
    return f"{receiver}, axis=None, out=None, keepdims=False"


def _no_out(lower: Callable[..., Item], name: str) -> Callable[..., Item]:
    """NumPy's signatures carry ``dtype``/``out``/``where``: ``out`` is always None here
    (``_with_out`` writes the result into it); ``dtype`` casts first (NumPy then accumulates
    in it); ``where`` leaves elements out (the sum of what is left, its product, its mean)."""
    def call(b: IRBuilder, x: Item, axis: Item, *rest: Item) -> Item:
        mask = None
        if name in ("var", "std"):
            dtype, out, ddof, keepdims = rest
            extra = (keepdims, ddof)
        elif name in ("sum", "prod"):
            dtype, out, keepdims, initial, mask = rest
            if initial is not None and out is None:   # (NumPy's start: added, or multiplied)
                rest = (dtype, out, keepdims, None, mask)
                total = call(b, x, axis, *rest)
                return binary(b, "add" if name == "sum" else "mul", total, initial)
            extra = (keepdims,)
        elif name in _WEIGHED:
            dtype, out, keepdims, mask = rest
            extra = (keepdims,)
        elif name in ("max", "min"):
            out, keepdims, initial, mask = rest
            if out is None and (initial is not None or mask is not None):
                return _extreme_from(b, name, x, axis, keepdims, initial, mask)
            dtype, extra = None, (keepdims,)
        else:
            out, keepdims = rest
            dtype, extra = None, (keepdims,)
        if dtype is not None:
            x = numpy_lowering.astype(b, x, dtype, copies=False)
            # (and the result is of it: sum(dtype=np.int32) is int32, not the int64 of ints)
            return numpy_lowering.astype(b, reduce_where(b, x, axis, extra, mask), dtype,
                                         copies=False)
        return reduce_where(b, x, axis, extra, mask)

    def reduce_where(b: IRBuilder, x: Item, axis: Item, extra: tuple, mask: Item) -> Item:
        if mask is None:
            return lower(b, x, axis, *extra)
        what = f"{name}(where=...)"
        if not is_tensor(mask) or mask.type.scalar_type not in (None, ScalarType.Bool):
            raise b.error(f"{what}: where must be a boolean array, got {describe(mask)}")
        if name == "mean":
            x = numpy_lowering._array(b, x, what)
            full = b.emit("aten::expand", [mask, b.emit("aten::size", [x], what), False], what)
            total = lower_sum(b, where(b, full, x, 0), axis, *extra)
            count = lower_sum(b, where(b, full, 1.0, 0.0), axis, *extra)
            return binary(b, "div", total, count)
        return lower(b, where(b, mask, x, 1 if name == "prod" else 0), axis, *extra)
    return call


def _extreme_from(b: IRBuilder, name: str, x: Item, axis: Item, keepdims: Item,
                  initial: Item, mask: Item) -> Item:
    """``x.max(initial=v, where=m)``: NumPy's reduction started at ``v`` (in ``x``'s dtype),
    over the elements ``m`` keeps (a mask needs ``initial``: max has no identity)."""
    what = f"{name}(initial=..., where=...)"
    x = numpy_lowering._array(b, x, what)
    if initial is None:
        raise b.error(f"{what}: reduction operation {'maximum' if name == 'max' else 'minimum'}"
                      f" does not have an identity, so to use a where mask one has to specify "
                      f"'initial'")
    start = as_tensor(b, initial, what, dtype_of(x))
    if mask is not None:
        if not is_tensor(mask) or mask.type.scalar_type not in (None, ScalarType.Bool):
            raise b.error(f"{what}: where must be a boolean array, got {describe(mask)}")
        x = where(b, mask, x, start)
    reduced = numpy_lowering.reduce(b, name, x, axis, keepdims)
    return binary(b, name, reduced, start)


def lower_sum(b: IRBuilder, x: Item, axis: Item, keepdims: Item) -> Item:
    return numpy_lowering.reduce(b, "sum", x, axis, keepdims)


_NUMPY_REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min,
                     "prod": np.prod, "any": np.any, "all": np.all, "var": np.var,
                     "std": np.std, "argmax": np.argmax, "argmin": np.argmin, "amax": np.amax,
                     "amin": np.amin}
for _name, _fn in _NUMPY_REDUCTIONS.items():
    _base = {"amax": "max", "amin": "min"}.get(_name, _name)
    CALLEES[_fn] = Callee(f"np.{_name}", _reduction_spec(_base, "a"),
                          _no_out(_reduction(_base), _base))
CALLEES.update({
    np.sign: Callee("np.sign", "x, /", U.sign, "same"),
    np.reciprocal: Callee("np.reciprocal", "x, /", U.reciprocal, "float"),
    np.fabs: Callee("np.fabs", "x, /", U.fabs, "float"),
    np.positive: Callee("np.positive", "x, /", U.positive, "same"),
    **{fn: Callee(f"np.{fn.__name__}", "x, /", U.scaled(fn, factor), "float")
       for fn, factor in ((np.deg2rad, math.pi / 180), (np.radians, math.pi / 180),
                          (np.rad2deg, 180 / math.pi), (np.degrees, 180 / math.pi))},
    np.fmax: Callee("np.fmax", "x1, x2, /", U.nan_ignoring("max"), "promote"),
    np.fmin: Callee("np.fmin", "x1, x2, /", U.nan_ignoring("min"), "promote"),
    np.float_power: Callee("np.float_power", "x1, x2, /", U.float_power),
    np.heaviside: Callee("np.heaviside", "x1, x2, /", U.heaviside, "promote"),
    np.sinc: Callee("np.sinc", "x", U.sinc, "float"),
    np.logaddexp2: Callee("np.logaddexp2", "x1, x2, /", U.logaddexp2, "promote"),
    np.nan_to_num: Callee("np.nan_to_num", "x, copy=True, nan=0.0, posinf=None, neginf=None",
                          U.nan_to_num, "same"),
    np.ptp: Callee("np.ptp", "a, axis=None, out=None, keepdims=False", U.ptp),
    np.cumsum: Callee("np.cumsum", "a, axis=None, dtype=None", numpy_lowering.cumsum),
    np.maximum.accumulate: Callee("np.maximum.accumulate", "a, axis=0, dtype=None, out=None",
                                  numpy_lowering.running_extreme("fusejit::maximum_accumulate",
                                                                 "np.maximum.accumulate")),
    np.minimum.accumulate: Callee("np.minimum.accumulate", "a, axis=0, dtype=None, out=None",
                                  numpy_lowering.running_extreme("fusejit::minimum_accumulate",
                                                                 "np.minimum.accumulate")),
    np.square: Callee("np.square", "x, /", numpy_lowering.square),
    np.dot: Callee("np.dot", "a, b, /", numpy_lowering.dot),
    np.zeros: Callee("np.zeros", "shape, dtype=None", lambda b, s, d: numpy_lowering.filled(
        b, "zeros", s, d)),
    np.ones: Callee("np.ones", "shape, dtype=None", lambda b, s, d: numpy_lowering.filled(
        b, "ones", s, d)),
    np.empty: Callee("np.empty", "shape, dtype=None", lambda b, s, d: numpy_lowering.filled(
        b, "empty", s, d)),
    np.full: Callee("np.full", "shape, fill_value, dtype=None", numpy_lowering.full),
    np.zeros_like: Callee("np.zeros_like", "a, dtype=None",
                          lambda b, x, d: numpy_lowering.like(b, "zeros_like", x, 0, d)),
    np.ones_like: Callee("np.ones_like", "a, dtype=None",
                         lambda b, x, d: numpy_lowering.like(b, "ones_like", x, 1, d)),
    np.empty_like: Callee("np.empty_like", "a, dtype=None",
                          lambda b, x, d: numpy_lowering.like(b, "empty_like", x, 0, d)),
    np.full_like: Callee("np.full_like", "a, fill_value, dtype=None",
                         lambda b, x, v, d: numpy_lowering.like(b, "full_like", x, v, d)),
    np.arange: Callee("np.arange", "start, stop=None, step=1, dtype=None",
                      numpy_lowering.arange),
    np.linspace: Callee("np.linspace", "start, stop, num=50, endpoint=True, retstep=False, "
                        "dtype=None, axis=0",
                        numpy_lowering.linspace),
    np.eye: Callee("np.eye", "N, M=None, k=0, dtype=None", numpy_lowering.eye),
    np.identity: Callee("np.identity", "n, dtype=None",
                        lambda b, n, dtype: numpy_lowering.eye(b, n, dtype=dtype)),
    np.floor_divide: Callee("np.floor_divide", "x1, x2, /", _binary("floordiv")),
    np.copy: Callee("np.copy", "a", numpy_lowering.copy),
    np.array: Callee("np.array", "object, dtype=None", numpy_lowering.array),
    np.asarray: Callee("np.asarray", "a, dtype=None", lambda b, a, dtype: numpy_lowering.array(
        b, a, dtype, copies=False)),
    np.convolve: Callee("np.convolve", "a, v, mode='full'", numpy_more.convolve),
    np.interp: Callee("np.interp", "x, xp, fp, left=None, right=None, period=None",
                      numpy_more.interp),
    np.ascontiguousarray: Callee("np.ascontiguousarray", "a, dtype=None",
                                 numpy_lowering.contiguous),
    np.outer: Callee("np.outer", "a, b", numpy_lowering.outer),
    np.hstack: Callee("np.hstack", "tup", lambda b, t: numpy_lowering.stack_along(
        b, "hstack", t)),
    np.vstack: Callee("np.vstack", "tup", lambda b, t: numpy_lowering.stack_along(
        b, "vstack", t)),
    np.isnan: Callee("np.isnan", "x, /", numpy_lowering.isnan),
    np.isinf: Callee("np.isinf", "x, /", numpy_lowering.isinf),
    np.isfinite: Callee("np.isfinite", "x, /", numpy_lowering.isfinite),
    np.linalg.norm: Callee("np.linalg.norm", "x, ord=None, axis=None, keepdims=False",
                           numpy_linalg.norm),
    np.diff: Callee("np.diff", "a, n=1, axis=-1, prepend=None, append=None", numpy_more.diff),
    np.count_nonzero: Callee("np.count_nonzero", "a, axis=None", numpy_more.count_nonzero),
    np.logical_and: Callee("np.logical_and", "x1, x2, /", numpy_more.logical("and")),
    np.logical_or: Callee("np.logical_or", "x1, x2, /", numpy_more.logical("or")),
    np.logical_xor: Callee("np.logical_xor", "x1, x2, /", numpy_more.logical("xor")),
    np.exp2: Callee("np.exp2", "x, /", numpy_more.exp2),
    np.expand_dims: Callee("np.expand_dims", "a, axis", numpy_more.expand_dims),
    np.swapaxes: Callee("np.swapaxes", "a, axis1, axis2", numpy_more.swapaxes),
    np.flip: Callee("np.flip", "m, axis=None", numpy_more.flip),
    np.isclose: Callee("np.isclose", "a, b, rtol=1e-05, atol=1e-08, equal_nan=False",
                       numpy_more.isclose),
    sum: Callee("sum", "iterable, /, start=0", numpy_more.builtin_sum),
    np.trace: Callee("np.trace", "a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
                     numpy_arrays.trace),
    np.diag: Callee("np.diag", "v, k=0", numpy_arrays.diag),
    np.diagonal: Callee("np.diagonal", "a, offset=0, axis1=0, axis2=1", numpy_arrays.diagonal),
    np.triu: Callee("np.triu", "m, k=0", numpy_arrays.triangle("triu")),
    np.tril: Callee("np.tril", "m, k=0", numpy_arrays.triangle("tril")),
    np.logaddexp: Callee("np.logaddexp", "x1, x2, /", numpy_arrays.smooth("logaddexp",
                                                                           np.logaddexp)),
    np.hypot: Callee("np.hypot", "x1, x2, /", numpy_arrays.smooth("hypot", np.hypot)),
    np.gcd: Callee("np.gcd", "x1, x2, /", numpy_arrays.integer_pair("gcd", np.gcd)),
    np.lcm: Callee("np.lcm", "x1, x2, /", numpy_arrays.integer_pair("lcm", np.lcm)),
    np.cbrt: Callee("np.cbrt", "x, /", _cbrt, "float"),
    np.signbit: Callee("np.signbit", "x, /", numpy_arrays.signbit),
    np.squeeze: Callee("np.squeeze", "a, axis=None", numpy_arrays.squeeze),
    np.atleast_1d: Callee("np.atleast_1d", "a", numpy_arrays.atleast(1)),
    np.atleast_2d: Callee("np.atleast_2d", "a", numpy_arrays.atleast(2)),
    np.average: Callee("np.average", "a, axis=None, weights=None, returned=False, *, "
                       "keepdims=False", numpy_linalg.average),
    np.inner: Callee("np.inner", "a, b, /", numpy_linalg.inner),
    np.tensordot: Callee("np.tensordot", "a, b, axes=2", numpy_linalg.tensordot),
    np.pad: Callee("np.pad", "array, pad_width, mode=None, *, constant_values=0",
                   numpy_arrays.pad),
    np.take: Callee("np.take", "a, indices, axis=None", numpy_arrays.take),
    np.take_along_axis: Callee("np.take_along_axis", "arr, indices, axis",
                               numpy_arrays.take_along_axis),
    np.fill_diagonal: Callee("np.fill_diagonal", "a, val, wrap=False",
                             numpy_arrays.fill_diagonal),
    np.put_along_axis: Callee("np.put_along_axis", "arr, indices, values, axis",
                              numpy_arrays.put_along_axis),
    np.linalg.inv: Callee("np.linalg.inv", "a", numpy_linalg.linalg("inv")),
    np.linalg.det: Callee("np.linalg.det", "a", numpy_linalg.linalg("det")),
    np.linalg.slogdet: Callee("np.linalg.slogdet", "a", numpy_linalg.slogdet),
    np.linalg.solve: Callee("np.linalg.solve", "a, b", numpy_linalg.solve),
    np.linalg.cholesky: Callee("np.linalg.cholesky", "a, /, *, upper=False",
                               numpy_linalg.cholesky),
    np.linalg.eigvalsh: Callee("np.linalg.eigvalsh", "a, UPLO=None", lambda b, a, uplo:
                               numpy_linalg.eigvalsh(b, a, "L" if uplo is None else uplo)),
    np.linalg.eigh: Callee("np.linalg.eigh", "a, UPLO=None", lambda b, a, uplo:
                           numpy_linalg.eigh(b, a, "L" if uplo is None else uplo)),
    np.linalg.svd: Callee("np.linalg.svd", "a, full_matrices=True, compute_uv=True, "
                          "hermitian=False", numpy_linalg.svd),
    np.linalg.qr: Callee("np.linalg.qr", "a, mode='reduced'", numpy_linalg.qr),
    np.linalg.pinv: Callee("np.linalg.pinv", "a, rcond=None, hermitian=False",
                           numpy_linalg.pinv),
    np.linalg.matrix_rank: Callee("np.linalg.matrix_rank", "A, tol=None, hermitian=False",
                                  numpy_linalg.matrix_rank),
    np.linalg.lstsq: Callee("np.linalg.lstsq", "a, b, rcond=None", numpy_linalg.lstsq),
    np.polyfit: Callee("np.polyfit", "x, y, deg, rcond=None, full=False, w=None, cov=False",
                       numpy_linalg.polyfit),
    np.triu_indices: Callee("np.triu_indices", "n, k=0, m=None",
                            numpy_linalg.triangle_indices("triu_indices")),
    np.tril_indices: Callee("np.tril_indices", "n, k=0, m=None",
                            numpy_linalg.triangle_indices("tril_indices")),
    np.tile: Callee("np.tile", "A, reps", numpy_arrays.tile),
    np.repeat: Callee("np.repeat", "a, repeats, axis=None", numpy_arrays.repeat),
    np.sort: Callee("np.sort", "a, axis=-1, kind=None", numpy_linalg.sort),
    np.argsort: Callee("np.argsort", "a, axis=-1, kind=None", numpy_linalg.argsort),
    np.lexsort: Callee("np.lexsort", "keys, axis=-1", numpy_linalg.lexsort),
    np.histogram2d: Callee("np.histogram2d", "x, y, bins=10, range=None, density=None, "
                           "weights=None", numpy_linalg.histogram2d),
    np.partition: Callee("np.partition", "a, kth, axis=-1, kind='introselect', order=None",
                         numpy_linalg.partition(False)),
    np.argpartition: Callee("np.argpartition", "a, kth, axis=-1, kind='introselect', "
                            "order=None", numpy_linalg.partition(True)),
    np.searchsorted: Callee("np.searchsorted", "a, v, side='left', sorter=None",
                            numpy_linalg.searchsorted),
    np.bincount: Callee("np.bincount", "x, /, weights=None, minlength=0", numpy_linalg.bincount),
    np.nonzero: Callee("np.nonzero", "a", numpy_linalg.nonzero),
    np.argwhere: Callee("np.argwhere", "a", numpy_linalg.argwhere),
    np.flatnonzero: Callee("np.flatnonzero", "a", numpy_linalg.flatnonzero),
    np.unique: Callee("np.unique", "ar, return_index=False, return_inverse=False, "
                      "return_counts=False, axis=None, *, equal_nan=True", numpy_linalg.unique),
    np.median: Callee("np.median", "a, axis=None, out=None, overwrite_input=False, "
                      "keepdims=False", lambda b, a, axis, out, overwrite, keep:
                      numpy_linalg.median(b, a, axis, keep)),
    np.finfo: Callee("np.finfo", "dtype", numpy_more.finfo),
    np.iinfo: Callee("np.iinfo", "int_type", numpy_more.iinfo),
    np.cumprod: Callee("np.cumprod", "a, axis=None", numpy_more.cumprod),
    **{t: Callee(f"np.{t.__name__}", "x=0, /", numpy_more.scalar_of(t))
       for t in (np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8,
                 np.uint16, np.uint32, np.uint64, np.bool_)},
    np.column_stack: Callee("np.column_stack", "tup", numpy_more.column_stack),
    np.hsplit: Callee("np.hsplit", "ary, indices_or_sections",
                      numpy_more.split_along(1, "np.hsplit")),
    np.vsplit: Callee("np.vsplit", "ary, indices_or_sections",
                      numpy_more.split_along(0, "np.vsplit")),
    np.flipud: Callee("np.flipud", "m", lambda b, m: numpy_more.flip(b, m, 0)),
    np.fliplr: Callee("np.fliplr", "m", lambda b, m: numpy_more.flip(b, m, 1)),
    np.roll: Callee("np.roll", "a, shift, axis=None", numpy_more.roll),
    np.packbits: Callee("np.packbits", "a, /, axis=None, bitorder='big'", numpy_more.packbits),
    np.unpackbits: Callee("np.unpackbits", "a, /, axis=None, count=None, bitorder='big'",
                          numpy_more.unpackbits),
    np.broadcast_to: Callee("np.broadcast_to", "array, shape, subok=False",
                            lambda b, a, shape, subok: numpy_more.broadcast_to(b, a, shape)),
    np.ix_: Callee("np.ix_", "*args", numpy_arrays.ix_),
    np.add.at: Callee("np.add.at", "a, indices, b=None, /", numpy_arrays.add_at),
    **{getattr(np, name).at: Callee(
        f"np.{name}.at", "a, indices, b=None, /",
        lambda b, a, indices, values, name=name: numpy_arrays.ufunc_at(b, name, a, indices,
                                                                       values))
       for name in UFUNCS_AT},
    **{getattr(np, name).reduceat: Callee(
        f"np.{name}.reduceat", "array, indices, axis=0, dtype=None, out=None",
        numpy_more.reduceat(name)) for name in REDUCEAT_UFUNCS},
    np.putmask: Callee("np.putmask", "a, mask, values", numpy_arrays.putmask),
    np.copyto: Callee("np.copyto", "dst, src, casting='same_kind', where=True",
                      numpy_arrays.copyto),
    np.lib.stride_tricks.sliding_window_view: Callee(
        "np.lib.stride_tricks.sliding_window_view",
        "x, window_shape, axis=None, *, subok=False, writeable=False",
        numpy_arrays.sliding_window_view),
    # (optimize= only chooses NumPy's contraction order; the result is the same)
    np.einsum: Callee("np.einsum", "subscripts, *operands, optimize=False",
                      lambda b, subscripts, operands, optimize: einsum(b, subscripts, operands)),
})

# NumPy's out=, dtype= and where= for every ufunc called by name (np.add(x, y, out=z))
for _fn, _callee in list(CALLEES.items()):
    _params = _callee.signature.parameters
    if isinstance(_fn, np.ufunc) and not {"out", "dtype"} & set(_params) and all(
            p.kind == _P.POSITIONAL_ONLY for p in _params.values()):
        _name = _callee.name
        CALLEES[_fn] = Callee(_name, ", ".join(_params) + ", /, out=None, *, dtype=None, "
                              "casting='same_kind', where=True",
                              U.with_out_and_dtype(_callee.lower, _fn, _name), _callee.rule)


def _sorted(b: IRBuilder, items: Item, key: Item, reverse: Item) -> list:
    """``sorted(xs)`` of numbers known while scripting (a list, as Python's); of run-time
    values, refused (np.sort of an array sorts them)."""
    values = [b.static(i) for i in items] if isinstance(items, (tuple, list)) else None
    if key is not None or values is None or not all(
            isinstance(v, (int, float)) for v in values):
        raise b.error("sorted() takes a tuple or list of numbers known while scripting (no "
                      "key=); for run-time values write np.sort(np.array(...))")
    return sorted(values, reverse=b.static_bool(reverse, "sorted(reverse=...)"))


def _divmod(b: IRBuilder, x: Item, y: Item) -> tuple[Value, Value]:
    """``divmod(n, k)`` and ``np.divmod(x, y)``: the floor quotient and the remainder."""
    return binary(b, "floordiv", x, y), binary(b, "remainder", x, y)


# Methods and attributes of arrays (the receiver is the first argument).
METHODS: dict[str, Callee] = {
    "reshape": Callee("reshape", "self, *shape, order='C'", _reshape_method),
    "clip": Callee("clip", "self, min=None, max=None, out=None",
                   lambda b, x, lo, hi, out: numpy_arrays.clip(b, x, lo, hi, out), "same"),
    "transpose": Callee("transpose", "self, *axes", numpy_arrays.transpose_axes),
    "round": Callee("round", "self, decimals=0", numpy_more.round_, "same"),
    "squeeze": Callee("squeeze", "self, axis=None", numpy_arrays.squeeze),
    "cumprod": Callee("cumprod", "self, axis=None", numpy_more.cumprod),
    "repeat": Callee("repeat", "self, repeats, axis=None", numpy_arrays.repeat),
    "swapaxes": Callee("swapaxes", "self, axis1, axis2", numpy_more.swapaxes),
    "item": Callee("item", "self", _item),
    "fill": Callee("fill", "self, value", lambda b, x, v: numpy_lowering.store(b, x, ..., v)),
    "cumsum": Callee("cumsum", "self, axis=None, dtype=None", numpy_lowering.cumsum),
    # (in place, as NumPy's: the sorted copy written back)
    "sort": Callee("sort", "self, axis=-1, kind=None", lambda b, x, axis, kind:
                   numpy_lowering.store(b, x, ..., numpy_linalg.sort(b, x, axis, kind))),
    "copy": Callee("copy", "self", numpy_lowering.copy),
    "astype": Callee("astype", "self, dtype", numpy_lowering.astype),
    "dot": Callee("dot", "self, b", numpy_lowering.dot),
    # (flatten is always a copy in NumPy, ravel a view where the layout allows)
    "flatten": Callee("flatten", "self", lambda b, x: numpy_lowering.copy(
        b, reshape(b, x, (-1,)))),
    "ravel": Callee("ravel", "self", lambda b, x: reshape(b, x, (-1,))),
    "trace": Callee("trace", "self, offset=0, axis1=0, axis2=1, dtype=None, out=None",
                    numpy_arrays.trace),
    "diagonal": Callee("diagonal", "self, offset=0, axis1=0, axis2=1", numpy_arrays.diagonal),
}
for _name in numpy_lowering.REDUCTION_NAMES:
    METHODS[_name] = Callee(_name, _reduction_spec(_name, "self"),
                            _no_out(_reduction(_name), _name))
ATTRIBUTES = frozenset({"T", "shape", "ndim", "dtype", "size", "itemsize", "nbytes"})


# NumPy's out= for the functions and methods other than ufuncs that take it (np.cumsum(x,
# out=y), np.dot(A, x, out=y), np.take(t, i, out=row), x.sum(axis=0, out=s)): the result
# written into ``out``, which is returned. Its casting rule is NumPy's for the function: the
# dtype of the result itself for np.dot, same_kind for joins and rounding, else unsafe (the
# accumulations, reductions, np.take). (np.clip and the ufuncs take out= themselves.)
_OUT_CASTING = {"dot": "no", "concatenate": "same_kind", "stack": "same_kind",
                "round": "same_kind", "around": "same_kind"}
_TAKES_OUT_ITSELF = frozenset({"np.clip", "clip"})


def _with_out(callee: Callee) -> Callee:
    """``callee`` taking NumPy's ``out=`` (added to its signature where it lacked it)."""
    added = "out" not in callee.signature.parameters
    spec = str(callee.signature)[1:-1]
    if added:
        starred = any(p.kind in (_P.VAR_POSITIONAL, _P.KEYWORD_ONLY)
                      for p in callee.signature.parameters.values())
        spec += ", out=None" if starred else ", *, out=None"
    at = list(_signature(spec).parameters).index("out")
    lower, name = callee.lower, callee.name
    casting = _OUT_CASTING.get(name.removeprefix("np."), "unsafe")

    def call(b: IRBuilder, *args: Item) -> Item:
        out = args[at]
        # (the lowering's own out, where its signature had one, is always None)
        rest = args[:at] + args[at + 1:] if added else args[:at] + (None,) + args[at + 1:]
        if out is not None and name in ("np.concatenate", "np.stack") and \
                isinstance(rest[0], (tuple, list)) and is_tensor(out):
            return _joined_into(b, name, rest[0], rest[1], out)
        result = lower(b, *rest)
        if out is None:
            return result
        have = numpy_lowering.rank_of(result) if is_tensor(result) else None
        want = numpy_lowering.rank_of(out) if is_tensor(out) else None
        if have is not None and want is not None and have != want:
            raise b.error(f"{name}(out=...): the out array has {want} dimensions and the "
                          f"result {have}; NumPy requires the result's shape")
        return U.written_out(b, out, result, name, casting)

    return Callee(name, spec, call, callee.rule)


def _joined_into(b: IRBuilder, name: str, arrays: tuple | list, axis: Item,
                 out: Value) -> Value:
    """``np.concatenate(arrays, axis, out=out)`` (``np.stack``): each array written into its
    slice of ``out`` in turn, as NumPy copies them, so that a piece that overlaps ``out``
    reads what the pieces before it wrote (``np.concatenate([a[:3], a[:3]], out=a[2:8])``),
    then a check that they filled ``out`` along the axis."""
    join = concatenate if name == "np.concatenate" else stack
    rank = numpy_lowering.rank_of(out)
    if is_none(axis) or rank is None:
        return U.written_out(b, out, join(b, arrays, axis), name, "same_kind")
    pieces = [p if is_tensor(p) else numpy_lowering.array(b, p) for p in arrays]
    have = [dtype_of(p) for p in pieces]
    if pieces and None not in have and dtype_of(out) is not None and \
            not np.can_cast(np.result_type(*have), dtype_of(out), "same_kind"):
        raise b.error(f"{name}: cannot cast the {np.result_type(*have)} result to the "
                      f"{dtype_of(out)} out array (casting rule 'same_kind'), as NumPy refuses")
    along = b.static_int(axis, f"{name}'s axis")
    if not -rank <= along < rank:
        raise b.error(f"{name}: axis {along} is out of bounds for the {rank}-d out array")
    along %= rank
    offset: Item = 0
    for piece in pieces:
        if join is stack:
            piece = numpy_more.expand_dims(b, piece, along)
        end = binary(b, "add", offset, size(b, piece, along))
        numpy_lowering.store(b, out, (slice(None),) * along + (slice(offset, end),), piece)
        offset = end
    b.raise_unless(binary(b, "eq", offset, size(b, out, along)),
                   f"ValueError: {name}(out=...): the arrays do not fill the out array along "
                   f"axis {along}")
    return out


def _numpy_takes_out(fn: Any) -> bool:
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


for _fn, _callee in list(CALLEES.items()):
    if not isinstance(_fn, np.ufunc) and _callee.name not in _TAKES_OUT_ITSELF and (
            "out" in _callee.signature.parameters or _numpy_takes_out(_fn)):
        CALLEES[_fn] = _with_out(_callee)
for _name, _callee in list(METHODS.items()):
    if _name not in _TAKES_OUT_ITSELF and ("out" in _callee.signature.parameters or
                                           _numpy_takes_out(getattr(np.ndarray, _name, None))):
        METHODS[_name] = _with_out(_callee)


# scipy.special's, looked up only when the program's module imported it (importing SciPy for
# every program would cost time); kept apart from CALLEES, whose names are NumPy's
_SCIPY_CALLEES: dict[Any, Callee] = {}


def _scipy_callees() -> dict[Any, Callee]:
    if not _SCIPY_CALLEES and "scipy.special" in sys.modules:
        from scipy import special

        from . import scipy_special as S

        _SCIPY_CALLEES.update({
            special.expit: Callee("scipy.special.expit", "x, /", _unary("sigmoid", "expit"),
                                  "float"),
            special.logit: Callee("scipy.special.logit", "x, /", S.logit, "float"),
            special.logsumexp: Callee("scipy.special.logsumexp", "a, axis=None, b=None, "
                                      "keepdims=False, return_sign=False", S.logsumexp),
            special.softmax: Callee("scipy.special.softmax", "x, axis=None", S.softmax),
            special.log_softmax: Callee("scipy.special.log_softmax", "x, axis=None",
                                        S.log_softmax),
            special.xlogy: Callee("scipy.special.xlogy", "x, y, /", S.xlogy),
            special.erf: Callee("scipy.special.erf", "x, /", _unary("erf", "erf"), "float"),
            special.erfc: Callee("scipy.special.erfc", "x, /", _unary("erfc", "erfc"), "float"),
            special.gammaln: Callee("scipy.special.gammaln", "x, /", S.gammaln, "float"),
        })
    return _SCIPY_CALLEES


def find_callee(obj: Any) -> Callee | None:
    """The callee for a Python object (function, ufunc, builtin), if it is understood."""
    try:
        return CALLEES.get(obj) or _scipy_callees().get(obj)
    except TypeError:  # unhashable objects are never callees
        return None
