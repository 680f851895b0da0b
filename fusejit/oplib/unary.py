"""Pointwise ops of one tensor: float functions, rounding, ``relu``, ``logit``, ``rand_like``.

Float functions of integer and bool tensors compute in the default float dtype (float32), while
``abs``/``neg``/``relu`` keep the integer dtype and ``ceil``/``floor``/``round``/``trunc``
return integers unchanged::

    %y : Float(3) = aten::exp(%x)          # x : Long(3)  ->  exp(float32(x))
    %r : Long(3) = aten::floor(%i)         # the identity on integers
    %l : Float(3) = aten::logit(%p, %eps)  # log(z / (1 - z)), z = clamp(p, eps, 1 - eps)

Each op is one entry: its schema, NumPy body, dtype rule, fusibility, kernel renderer and
native body name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .dtypes import DEFAULT_FLOAT, category
from .pointwise import BOOL, dtype_name, inplace, pooled, pooled_out, quiet, same_dtype_ufunc, to
from .render import Emitter, Operand, fail, floating, is_float, same_as
from .table import as_tensor, define, register

# What an integer or bool input does: computed as float; kept; kept for integers but refused for
# bools (PyTorch dispatches these over numbers only); returned unchanged for integers, refused
# for bools; refused.
FLOAT, KEEP, NUMBER, IDENTITY, FLOAT_ONLY = "float", "keep", "number", "identity", "float_only"


def unary_body(name: str, fn: Callable[[np.ndarray], np.ndarray], rule: str,
               signals: bool = True) -> Callable:
    """The NumPy body of ``aten::name(Tensor self)`` computing ``fn`` under ``rule``;
    ``signals=False`` for a ``fn`` that raises no floating-point error (a sign-bit operation),
    which then runs without setting NumPy's error state (~0.2 us a call)."""
    def body(self: np.ndarray) -> np.ndarray:
        if self.dtype.kind == "f":
            if isinstance(fn, np.ufunc):   # (a big result into pooled memory: pooled_out)
                out = pooled_out(self.dtype, self)
                if out is not None and same_dtype_ufunc(fn, self.dtype):
                    return as_tensor(fn(self, out=out))
            return as_tensor(fn(self))
        if rule == FLOAT:
            return as_tensor(fn(self.astype(DEFAULT_FLOAT)))
        if rule == KEEP or (rule == NUMBER and self.dtype != BOOL):
            return as_tensor(fn(self))
        if rule == IDENTITY and self.dtype != BOOL:
            return self.copy()
        raise RuntimeError(f"{name} is not implemented for {dtype_name(self.dtype)} tensors")

    body.__name__ = name
    return quiet(body) if signals else body


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


def _one(x: np.ndarray) -> Any:
    return x.dtype.type(1)


# -- float functions: name -> (NumPy function, exact kernel text, native body) ---------------------

FLOAT_FUNCTIONS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str, str | None]] = {
    "exp": (np.exp, "math.exp({x})", "EXP"),
    "expm1": (np.expm1, "math.expm1({x})", None),
    "log": (np.log, "math.log({x})", "LOG"),
    "log10": (np.log10, "math.log10({x})", None),
    "log1p": (np.log1p, "math.log1p({x})", None),
    "log2": (np.log2, "math.log2({x})", None),
    "sqrt": (np.sqrt, "math.sqrt({x})", "SQRT"),
    "rsqrt": (lambda x: _one(x) / np.sqrt(x), "{one} / math.sqrt({x})", "RSQRT"),
    "reciprocal": (lambda x: _one(x) / x, "{one} / {x}", "RECIPROCAL"),
    "sin": (np.sin, "math.sin({x})", "SIN"),
    "cos": (np.cos, "math.cos({x})", "COS"),
    "tan": (np.tan, "math.tan({x})", None),
    "asin": (np.arcsin, "math.asin({x})", None),
    "acos": (np.arccos, "math.acos({x})", None),
    "atan": (np.arctan, "math.atan({x})", None),
    "sinh": (np.sinh, "math.sinh({x})", None),
    "cosh": (np.cosh, "math.cosh({x})", None),
    "tanh": (np.tanh, "math.tanh({x})", "TANH"),
    "sigmoid": (lambda x: _one(x) / (_one(x) + np.exp(-x)), "h.sigmoid({x}, {one})", "SIGMOID"),
    "erf": (_math_ufunc(math.erf, math.nan), "math.erf({x})", None),
    "erfc": (_math_ufunc(math.erfc, math.nan), "math.erfc({x})", None),
    "lgamma": (_math_ufunc(math.lgamma, math.inf), "math.lgamma({x})", None),
}


def _render_math(text: str) -> Callable[..., str]:
    def render(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
        x = cx.cast(ops[0], dtype)
        return cx.math(node.kind, text.format(x=x, one=cx.literal(1.0, dtype)), x, dtype)
    return render


def register_inplace(name: str, body: Callable, formals: str = "") -> None:
    """PyTorch's in-place form ``aten::name_(Tensor(a!) self...) -> Tensor(a!)`` of a unary op:
    computed out of place, written back (a float result into an integer tensor is refused)."""
    register(f"aten::{name}_(Tensor(a!) self{formals}) -> Tensor(a!)",
             inplace(f"{name}_", body), pure=False)


def unary_entry(name: str, body: Callable, *, dtype: Callable, render: Callable,
                native: str | None = None, fuses: bool = True, ufunc: Any = None) -> None:
    """The entry of ``aten::name(Tensor self) -> Tensor`` and its in-place form ``name_``
    (never fused: PyTorch's fuser takes no in-place op); ``ufunc``: the NumPy ufunc ``body``
    is for a tensor of the result dtype (``table.Overload``)."""
    schema = f"aten::{name}(Tensor self) -> Tensor"
    register(schema, body, ufunc=ufunc)
    register_inplace(name, body)
    define(f"aten::{name}", fuses=(schema,) if fuses else (), dtype=dtype, render=render,
           extends=() if fuses else (schema,),
           native=native, sum_to_size=(schema,) if name == "neg" else ())


for _name, (_fn, _text, _native) in FLOAT_FUNCTIONS.items():
    unary_entry(_name, unary_body(_name, _fn, FLOAT), dtype=floating(), render=_render_math(_text),
                native=_native, ufunc=_fn if isinstance(_fn, np.ufunc) else None)

# NumPy's inverse hyperbolic functions (np.arcsinh ...), PyTorch's asinh, acosh, atanh: not in
# the fuser's list, so ``@fusejit.jit``'s own maps (``extends``), which kernels compute with
# ``vecmath``'s vectorised forms (libm's where ``precise``).
INVERSE_HYPERBOLIC = {"asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
for _name, _fn in INVERSE_HYPERBOLIC.items():
    unary_entry(_name, unary_body(_name, _fn, FLOAT), dtype=floating(),
                render=_render_math(f"math.{_name}({{x}})"), fuses=False, ufunc=_fn)


# -- ops that keep the dtype --------------------------------------------------------------------

def _relu(x: np.ndarray) -> np.ndarray:
    if x.dtype == BOOL:
        raise RuntimeError("relu is not implemented for Bool tensors")
    return np.where(x > 0, x, x.dtype.type(0)) if category(x.dtype) == 1 else np.maximum(x, 0)


def _neg(x: np.ndarray) -> np.ndarray:
    if x.dtype == BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return pooled(np.negative, x.dtype, x)


def _render_same(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if dtype == BOOL:
        raise fail(node, "not defined for Bool tensors")
    x = ops[0].expr
    name = node.kind.removeprefix("aten::")
    if name == "abs":
        return f"abs({x})"
    if name == "neg":
        return f"-{x}"
    if name == "relu":
        zero = cx.literal(0, dtype)
        return f"({zero} if {x} <= {zero} else {x})"
    if not is_float(dtype):
        if name == "frac":
            raise fail(node, "frac is only defined for floating tensors")
        return x        # rounding an integer is the identity
    if name == "frac":
        return f"{x} - {cx.function('trunc')}({x})"
    return f"{cx.function('rint' if name == 'round' else name)}({x})"


# name -> (NumPy function, integer rule, native body)
SAME_DTYPE: dict[str, tuple[Callable[[np.ndarray], np.ndarray], str, str | None]] = {
    "abs": (np.abs, NUMBER, "ABS"), "neg": (_neg, KEEP, "NEG"), "relu": (_relu, KEEP, "RELU"),
    "ceil": (np.ceil, IDENTITY, "CEIL"), "floor": (np.floor, IDENTITY, "FLOOR"),
    "trunc": (np.trunc, IDENTITY, "TRUNC"),
    "round": (np.round, IDENTITY, "ROUND"),  # np.round rounds half to even, like nearbyint
    "frac": (lambda x: x - np.trunc(x), FLOAT_ONLY, None),
}

for _name, (_fn, _rule, _native) in SAME_DTYPE.items():
    # (abs and neg change the sign bit alone: no floating-point error to silence)
    unary_entry(_name, unary_body(_name, _fn, _rule, signals=_name not in ("abs", "neg")),
                dtype=same_as(0), render=_render_same, native=_native,
                ufunc=_fn if isinstance(_fn, np.ufunc) else None)

# Not in the fuser's list (PyTorch's neither): bodies only.
for _name, _body in (("sign", unary_body("sign", np.sign, KEEP)),
                     ("logical_not", lambda self: as_tensor(np.logical_not(self)))):
    register(f"aten::{_name}(Tensor self) -> Tensor", _body)
    register_inplace(_name, _body)


# -- digamma: what lgamma's derivative reads; not in PyTorch's fuser list -----------------------

def _digamma(x: np.ndarray) -> np.ndarray:
    from scipy.special import psi  # a dependency already (Numba's BLAS); imported when used

    # PyTorch: -inf at +0, +inf at -0 (the pole's sides), NaN at the negative integers
    out = psi(x.astype(np.float64))
    zero = x == 0
    if np.any(zero):
        out = np.where(zero, np.copysign(np.inf, -x.astype(np.float64)), out)
    return out.astype(x.dtype)


_DIGAMMA = unary_body("digamma", _digamma, FLOAT)
register("aten::digamma(Tensor self) -> Tensor", _DIGAMMA)
register_inplace("digamma", _DIGAMMA)


# -- logit: fused by PyTorch 2.13 with its optional eps -------------------------------------------

def _logit(self: np.ndarray, eps: float | None = None) -> np.ndarray:
    def compute(x: np.ndarray) -> np.ndarray:
        if eps is not None:
            # PyTorch clamps to [eps, 1 - eps] computed in the tensor's dtype; NaN stays NaN
            low = to(eps, x.dtype)
            x = np.clip(x, low, _one(x) - low)
        return np.log(x / (_one(x) - x))
    return unary_body("logit", compute, FLOAT)(self)


def _render_logit(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    x = cx.cast(ops[0], dtype)
    one = cx.literal(1.0, dtype)
    if len(ops) > 1 and not ops[1].is_none:
        eps = cx.cast(ops[1], dtype)
        x = f"h.clamp({x}, {eps}, {one} - {eps})"
    ratio = f"({x} / ({one} - {x}))"
    return cx.math("aten::log", f"math.log{ratio}", ratio, dtype)


_LOGIT = "aten::logit(Tensor self, float? eps=None) -> Tensor"
register(_LOGIT, _logit)
register_inplace("logit", _logit, ", float? eps=None")
define("aten::logit", fuses=(_LOGIT,), dtype=floating(0, 1), render=_render_logit)


# -- rand_like: fusible, nondeterministic ----------------------------------------------------------

_RNG = np.random.default_rng()
_RAND_LIKE = ("aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
              "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
              "-> Tensor")


def _rand_like(self: np.ndarray, dtype: int | None = None, layout: Any = None,
               device: Any = None, pin_memory: Any = None, memory_format: Any = None):
    if dtype is not None:
        raise RuntimeError("rand_like: only the input's dtype is supported")
    if category(self.dtype) != 2:
        raise RuntimeError(f"rand_like is not implemented for {dtype_name(self.dtype)} tensors")
    return as_tensor(_RNG.random(self.shape).astype(self.dtype))


def _render_rand_like(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if not is_float(dtype):
        raise fail(node, "rand_like is only defined for floating tensors")
    if any(not op.is_none for op in ops[1:]):
        raise fail(node, "only the input's dtype, layout and device")
    return cx.random(dtype)


register("aten::rand_like(Tensor self) -> Tensor", _rand_like, pure=False)
register(_RAND_LIKE, _rand_like, pure=False)
define("aten::rand_like", fuses=("aten::rand_like(Tensor self) -> Tensor", _RAND_LIKE),
       dtype=same_as(0), render=_render_rand_like)


# -- hardsigmoid: relu6(x + 3) / 6; not in PyTorch's fuser list, so fuse_graph leaves it alone ---

def _hardsigmoid(x: np.ndarray) -> np.ndarray:
    three, six = x.dtype.type(3), x.dtype.type(6)
    return np.minimum(np.maximum(x + three, x.dtype.type(0)), six) / six   # NaN stays NaN


def _render_hardsigmoid(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if not is_float(dtype):
        raise fail(node, "hardsigmoid is only defined for floating tensors")
    x, zero, six = ops[0].expr, cx.literal(0.0, dtype), cx.literal(6.0, dtype)
    return f"h.clamp({x} + {cx.literal(3.0, dtype)}, {zero}, {six}) / {six}"


unary_entry("hardsigmoid", unary_body("hardsigmoid", _hardsigmoid, FLOAT_ONLY), fuses=False,
            dtype=same_as(0), render=_render_hardsigmoid)


# -- softplus: log1p(exp(beta x)) / beta, x itself above the threshold; not fused by PyTorch ------

@quiet
def _softplus(self: np.ndarray, beta: Any = 1, threshold: Any = 20) -> np.ndarray:
    if category(self.dtype) != 2:
        raise RuntimeError(f"softplus is not implemented for {dtype_name(self.dtype)} tensors")
    # PyTorch converts beta and threshold to the tensor's dtype before computing
    b, t = to(beta, self.dtype), to(threshold, self.dtype)
    scaled = self * b
    return as_tensor(np.where(scaled > t, self, np.log1p(np.exp(scaled)) / b))


def _render_softplus(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    if not is_float(dtype):
        raise fail(node, "softplus is only defined for floating tensors")
    x, beta, threshold = ops[0].expr, cx.cast(ops[1], dtype), cx.cast(ops[2], dtype)
    scaled = f"({x} * {beta})"
    exp = cx.math("aten::exp", f"math.exp{scaled}", scaled, dtype)
    log1p = cx.math("aten::log1p", f"math.log1p({exp})", exp, dtype)
    return f"({x} if {scaled} > {threshold} else {log1p} / {beta})"


_SOFTPLUS = "aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor"
register(_SOFTPLUS, _softplus)
define("aten::softplus", dtype=same_as(0), render=_render_softplus, extends=(_SOFTPLUS,))
