"""The op table of the kernel generator: for each simple-map kind, its PyTorch result dtype and
the scalar expression that computes one element.

A renderer receives the node's operands (our own names or formatted literals, with dtypes) and
returns the expression text and the result dtype::

    %5 : Float(*, *) = aten::add(%3, %4, %alpha)      # alpha = 2
        -> ("a0 + k0 * a1", float32)        where k0 = np.float32(2.0) at module level

Type promotion is ``fusejit.runtime.dtypes.result_type_from``; operands are cast to the compute
dtype before the op, as PyTorch's TensorIterator does, so ``float32 * 0.1`` multiplies by
``float32(0.1)``. Integer division by zero cannot raise inside a parallel loop, so its renderers
emit a guard that sets a status flag the caller turns into an error.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import IRError
from ...ir.symbols import aten, prim
from ..dtypes import DEFAULT_FLOAT, result_type_from, scalar_dtype

BOOL = np.dtype(np.bool_)
_NO_VALUE = object()


class Operand:
    """One input of a node as the generator sees it: text, dtype and how it promotes."""

    __slots__ = ("expr", "dtype", "kind", "value")

    def __init__(self, expr: str, dtype: np.dtype, kind: str, value: object = _NO_VALUE):
        self.expr = expr
        self.dtype = np.dtype(dtype)
        self.kind = kind          # "tensor", "zero_dim" or "scalar"
        self.value = value        # a constant's Python value, else _NO_VALUE

    @property
    def is_constant(self) -> bool:
        return self.value is not _NO_VALUE

    @property
    def is_none(self) -> bool:
        return self.value is None

    @property
    def is_tensor(self) -> bool:
        return self.kind != "scalar"

    def promotion(self) -> tuple[np.dtype, str]:
        if self.kind == "scalar":
            return scalar_dtype(self.value if self.is_constant else self.dtype.type(0)), "scalar"
        return self.dtype, self.kind


class Emitter:
    """What a renderer may ask of the generator (implemented in ``codegen``)."""

    fast: bool

    def cast(self, op: Operand, dtype: np.dtype) -> str:
        raise NotImplementedError

    def literal(self, value: object, dtype: np.dtype) -> str:
        raise NotImplementedError

    def guard(self, condition: str) -> None:
        raise NotImplementedError

    def separate(self) -> None:
        """Compute the node being rendered in a loop of its own (a libm call that would keep
        the whole loop from vectorising)."""
        raise NotImplementedError

    def fix_up(self, slow: str, when: str) -> None:
        """After the vectorised loop, recompute the node being rendered as ``slow`` where
        ``when`` holds (arguments outside the fast form's range), in a loop of its own."""
        raise NotImplementedError

    def function(self, name: str) -> str:
        """The callable text for a rounding function or ``fmod`` (NumPy's names) on the
        generator's target: ``np.trunc`` on CPU, a device helper on CUDA."""
        raise NotImplementedError


Renderer = Callable[[Emitter, object, list[Operand]], tuple[str, np.dtype]]
RENDERERS: dict[str, Renderer] = {}


def _fail(node, why: str) -> IRError:
    where = f" ({node.source_range})" if getattr(node, "source_range", None) else ""
    return IRError(f"cannot compile {node.kind} in a fused kernel: {why}{where}")


def _promote(ops: list[Operand]) -> np.dtype:
    return result_type_from([op.promotion() for op in ops if not op.is_none])


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def _float_of(dtype: np.dtype) -> np.dtype:
    """Unary float ops compute integers and bools in the default float dtype."""
    return dtype if _is_float(dtype) else DEFAULT_FLOAT


def _register(*kinds: str):
    def wrap(fn: Renderer) -> Renderer:
        for kind in kinds:
            RENDERERS[kind] = fn
        return fn
    return wrap


# --- unary ops on floats (integers and bools promote to the default float) --------------------

_LIBM = {
    aten.exp: "math.exp({})", aten.log: "math.log({})", aten.log10: "math.log10({})",
    aten.log1p: "math.log1p({})", aten.log2: "math.log2({})", aten.expm1: "math.expm1({})",
    aten.sqrt: "math.sqrt({})", aten.sin: "math.sin({})", aten.cos: "math.cos({})",
    aten.tan: "math.tan({})", aten.asin: "math.asin({})", aten.acos: "math.acos({})",
    aten.atan: "math.atan({})", aten.sinh: "math.sinh({})", aten.cosh: "math.cosh({})",
    aten.tanh: "math.tanh({})", aten.erf: "math.erf({})", aten.erfc: "math.erfc({})",
    aten.lgamma: "math.lgamma({})",
}
# Vectorisable forms (``fastmath``: float32 exp/log/tanh/sigmoid; ``vecmath``: the rest, float64
# and float32), used unless the kernel is ``precise``; accuracy is documented in those modules.
_FAST32 = {aten.exp: "fm.exp_f32", aten.tanh: "fm.tanh_f32", aten.log: "fm.log_f32",
           aten.sigmoid: "fm.sigmoid_f32", aten.log1p: "fm.log1p_f32", aten.sin: "fm.sin_f32",
           aten.cos: "fm.cos_f32", aten.log2: "fm.log2_f32", aten.log10: "fm.log10_f32",
           aten.expm1: "fm.expm1_f32", aten.tan: "fm.tan_f32", aten.sinh: "fm.sinh_f32",
           aten.cosh: "fm.cosh_f32"}
_VEC = {aten.exp: "exp", aten.expm1: "expm1", aten.log: "log", aten.log1p: "log1p",
        aten.log2: "log2", aten.log10: "log10", aten.sin: "sin", aten.cos: "cos",
        aten.tan: "tan", aten.asin: "asin", aten.acos: "acos", aten.atan: "atan",
        aten.sinh: "sinh", aten.cosh: "cosh", aten.tanh: "tanh", aten.sigmoid: "sigmoid",
        aten.erf: "erf", aten.erfc: "erfc"}
# (of those, the ones in ``vecspecial``)
_SPECIAL = frozenset({aten.erf, aten.erfc})
# Fast only for |x| <= vm.TRIG_LIMIT: a fix-up loop recomputes larger arguments with libm.
_TRIG = frozenset({aten.sin, aten.cos, aten.tan})
# No vectorisable form here: libm, computed in a loop of its own (``Emitter.separate``) so that
# the rest of the kernel still vectorises.
_SEPARATE = frozenset({aten.lgamma})


def fast_name(kind: str, dtype: np.dtype) -> str | None:
    """The vectorisable function computing unary ``kind`` on ``dtype``, if there is one."""
    if dtype == np.float32 and kind in _FAST32:
        return _FAST32[kind]
    if kind in _VEC and dtype in (np.float32, np.float64):
        module = "vs" if kind in _SPECIAL else "vm"
        return f"{module}.{_VEC[kind]}_{'f32' if dtype == np.float32 else 'f64'}"
    return None


@_register(*_LIBM, aten.sigmoid, aten.rsqrt, aten.reciprocal)
def _unary_float(cx: Emitter, node, ops: list[Operand]):
    dtype = _float_of(ops[0].dtype)
    x = cx.cast(ops[0], dtype)
    one = cx.literal(1.0, dtype)
    if node.kind == aten.rsqrt:
        return f"{one} / math.sqrt({x})", dtype
    if node.kind == aten.reciprocal:
        return f"{one} / {x}", dtype
    libm = f"h.sigmoid({x}, {one})" if node.kind == aten.sigmoid else \
        _LIBM[node.kind].format(x)
    fast = fast_name(node.kind, dtype) if cx.fast else None
    if fast is not None:
        if node.kind in _TRIG:
            cx.fix_up(libm, f"abs({x}) > vm.TRIG_LIMIT")
        return f"{fast}({x})", dtype
    if cx.fast and node.kind in _SEPARATE:
        cx.separate()
    return libm, dtype


@_register(aten.logit)
def _logit(cx: Emitter, node, ops: list[Operand]):
    dtype = _float_of(ops[0].dtype)
    x = cx.cast(ops[0], dtype)
    one = cx.literal(1.0, dtype)
    if len(ops) > 1 and not ops[1].is_none:
        eps = cx.cast(ops[1], dtype)
        x = f"h.clamp({x}, {eps}, {one} - {eps})"
    log = fast_name(aten.log, dtype) if cx.fast else None
    return f"{log or 'math.log'}({x} / ({one} - {x}))", dtype


# --- unary ops that keep the dtype -----------------------------------------------------------

@_register(aten.abs, aten.neg, aten.ceil, aten.floor, aten.round, aten.trunc, aten.frac,
           aten.relu)
def _unary_same(cx: Emitter, node, ops: list[Operand]):
    dtype = ops[0].dtype
    if dtype == BOOL:
        raise _fail(node, "not defined for Bool tensors")
    x = ops[0].expr
    kind = node.kind
    if kind == aten.abs:
        return f"abs({x})", dtype
    if kind == aten.neg:
        return f"-{x}", dtype
    if kind == aten.relu:
        zero = cx.literal(0, dtype)
        return f"({zero} if {x} <= {zero} else {x})", dtype
    if not _is_float(dtype):
        if kind == aten.frac:
            raise _fail(node, "frac is only defined for floating tensors")
        return x, dtype        # rounding an integer is the identity
    if kind == aten.frac:
        return f"{x} - {cx.function('trunc')}({x})", dtype
    name = {aten.ceil: "ceil", aten.floor: "floor", aten.round: "rint", aten.trunc: "trunc"}[kind]
    return f"{cx.function(name)}({x})", dtype


# --- binary arithmetic -------------------------------------------------------------------------

def _alpha(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str | None:
    """The alpha factor's text, or None when it is the literal 1."""
    if len(ops) < 3:
        return None
    alpha = ops[2]
    if alpha.is_constant:
        if isinstance(alpha.value, float) and not _is_float(dtype):
            raise _fail(node, "a floating alpha needs floating inputs")
        if alpha.value == 1:
            return None
    return cx.cast(alpha, dtype)


@_register(aten.add, aten.sub)
def _add_sub(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops[:2])
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    alpha = _alpha(cx, node, ops, dtype)
    if dtype == BOOL:
        if node.kind == aten.sub:
            raise _fail(node, "subtraction of Bool tensors is not supported")
        if alpha is None:
            return f"({a} or {b})", dtype
        return f"({a} or ({alpha} and {b}))", dtype
    op = "+" if node.kind == aten.add else "-"
    if alpha is None:
        return f"{a} {op} {b}", dtype
    return f"{a} {op} {alpha} * {b}", dtype


@_register(aten.mul)
def _mul(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops)
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    if dtype == BOOL:
        return f"({a} and {b})", dtype
    return f"{a} * {b}", dtype


@_register(aten.div)
def _div(cx: Emitter, node, ops: list[Operand]):
    if len(ops) > 2:
        raise _fail(node, "rounding_mode is not a simple map")
    dtype = _float_of(_promote(ops))
    return f"{cx.cast(ops[0], dtype)} / {cx.cast(ops[1], dtype)}", dtype


@_register(aten.remainder, aten.fmod)
def _remainder(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops)
    if dtype == BOOL:
        raise _fail(node, "not defined for Bool tensors")
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    if _is_float(dtype):
        if cx.fast:
            cx.separate()      # (libm's fmod: exact, but a call)
        if node.kind == aten.fmod:
            return f"{cx.function('fmod')}({a}, {b})", dtype
        return f"h.remainder_f({a}, {b})", dtype
    cx.guard(f"{b} == 0")
    name = "remainder_i" if node.kind == aten.remainder else "fmod_i"
    return f"h.{name}({a}, {b})", dtype


@_register(aten.atan2)
def _atan2(cx: Emitter, node, ops: list[Operand]):
    dtype = _float_of(_promote(ops))
    y, x = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    if cx.fast:
        return f"vm.atan2_{'f32' if dtype == np.float32 else 'f64'}({y}, {x})", dtype
    return f"math.atan2({y}, {x})", dtype


@_register(aten.max, aten.min, aten.maximum, aten.minimum)
def _max_min(cx: Emitter, node, ops: list[Operand]):
    if len(ops) != 2 or not (ops[0].is_tensor and ops[1].is_tensor):
        raise _fail(node, "only the binary tensor-tensor form is a simple map")
    dtype = _promote(ops)
    a, b = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    is_max = node.kind in (aten.max, aten.maximum)
    if dtype == BOOL:
        return (f"({a} or {b})" if is_max else f"({a} and {b})"), dtype
    if _is_float(dtype):
        return f"h.{'maximum_f' if is_max else 'minimum_f'}({a}, {b})", dtype
    return f"{'max' if is_max else 'min'}({a}, {b})", dtype


# PyTorch's pow(Tensor, Scalar) replaces these exponents by cheaper exact-enough forms. NumPy's
# power (the reference) takes sqrt for 0.5 but C's pow for -0.5, which is +inf at -0 and 0 at
# -inf: ``h.pow_half`` gives those.
_POW_SPECIAL = {
    2.0: "{x} * {x}", 3.0: "{x} * {x} * {x}", 0.5: "math.sqrt({x})",
    -0.5: "{one} / h.pow_half({x}, {inf})", -1.0: "{one} / {x}", -2.0: "{one} / ({x} * {x})",
}


@_register(aten.pow)
def _pow(cx: Emitter, node, ops: list[Operand]):
    base, exponent = ops
    dtype = _promote(ops)
    if dtype == BOOL:
        raise _fail(node, "pow is not defined for Bool tensors")
    a, b = cx.cast(base, dtype), cx.cast(exponent, dtype)
    if _is_float(dtype):
        if exponent.is_constant and base.is_tensor and float(exponent.value) in _POW_SPECIAL:
            one, inf = cx.literal(1.0, dtype), cx.literal(float("inf"), dtype)
            return _POW_SPECIAL[float(exponent.value)].format(x=a, one=one, inf=inf), dtype
        if cx.fast:
            return f"{'vm.pow_f32' if dtype == np.float32 else 'vs.pow_f64'}({a}, {b})", dtype
        return f"{a} ** {b}", dtype
    if exponent.is_constant and exponent.value < 0:
        raise _fail(node, "integers to negative integer powers are not allowed")
    return f"h.pow_i({a}, {b})", dtype


@_register(aten.lerp)
def _lerp(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops[:2] if not ops[2].is_tensor else ops)
    if not _is_float(dtype):
        raise _fail(node, "lerp needs floating tensors")
    a, b, w = (cx.cast(op, dtype) for op in ops)
    return f"h.lerp({a}, {b}, {w}, {cx.literal(1.0, dtype)})", dtype


@_register(aten.addcmul)
def _addcmul(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops[:3])
    if dtype == BOOL:
        raise _fail(node, "not defined for Bool tensors")
    a, b, c = (cx.cast(op, dtype) for op in ops[:3])
    if len(ops) > 3 and ops[3].is_constant and isinstance(ops[3].value, float) \
            and not _is_float(dtype):
        raise _fail(node, "a floating value needs floating inputs")
    value = cx.cast(ops[3], dtype) if len(ops) > 3 else cx.literal(1, dtype)
    return f"{a} + {value} * {b} * {c}", dtype


@_register(aten.where)
def _where(cx: Emitter, node, ops: list[Operand]):
    cond, a, b = ops
    dtype = _promote([a, b])
    return f"({cx.cast(a, dtype)} if {cx.cast(cond, BOOL)} else {cx.cast(b, dtype)})", dtype


@_register(aten.clamp)
def _clamp(cx: Emitter, node, ops: list[Operand]):
    x, lo, hi = ops
    if lo.is_none and hi.is_none:
        raise _fail(node, "at least one of min and max must not be None")
    dtype = x.dtype if _is_float(x.dtype) else _promote(ops)
    if dtype == BOOL:
        raise _fail(node, "not defined for Bool tensors")
    v = cx.cast(x, dtype)
    # A NaN bound gives NaN, as NumPy's maximum/minimum (the reference) give.
    if hi.is_none:
        low = cx.cast(lo, dtype)
        return f"({low} if ({v} < {low} or {low} != {low}) else {v})", dtype
    if lo.is_none:
        high = cx.cast(hi, dtype)
        return f"({high} if ({v} > {high} or {high} != {high}) else {v})", dtype
    return f"h.clamp({v}, {cx.cast(lo, dtype)}, {cx.cast(hi, dtype)})", dtype


@_register(aten.threshold)
def _threshold(cx: Emitter, node, ops: list[Operand]):
    x, threshold, value = ops
    dtype = x.dtype
    if dtype == BOOL:
        raise _fail(node, "not defined for Bool tensors")
    v = x.expr
    return f"({cx.cast(value, dtype)} if {v} <= {cx.cast(threshold, dtype)} else {v})", dtype


_COMPARE = {aten.eq: "==", aten.ne: "!=", aten.ge: ">=", aten.gt: ">", aten.le: "<=",
            aten.lt: "<"}


@_register(*_COMPARE)
def _compare(cx: Emitter, node, ops: list[Operand]):
    dtype = _promote(ops)
    return f"({cx.cast(ops[0], dtype)} {_COMPARE[node.kind]} {cx.cast(ops[1], dtype)})", BOOL


# Inputs that give only a dtype, never elements: they do not take part in broadcasting, and the
# kernel neither reads them nor computes them (``layout`` leaves them out of ``needed``).
DTYPE_ONLY: dict[str, frozenset[int]] = {aten.type_as: frozenset({1})}


@_register(aten.type_as)
def _type_as(cx: Emitter, node, ops: list[Operand]):
    return cx.cast(ops[0], ops[1].dtype), ops[1].dtype


@_register(aten._cast_Float)
def _cast_float(cx: Emitter, node, ops: list[Operand]):
    return cx.cast(ops[0], np.dtype(np.float32)), np.dtype(np.float32)


# Estimated nanoseconds an element costs on one core, for the serial/parallel choice (measured
# roughly here: vectorised float32 arithmetic ~0.1, a vectorised transcendental ~1, one libm call
# in a separate loop ~15, each operand read or written ~0.3).
_COST_TRANSCENDENTAL = 1.0
_COST_LIBM = 15.0
_COST_ARITHMETIC = 0.1
_COST_OPERAND = 0.3


def element_cost(layout) -> float:
    """The estimated cost of one element of a group's kernel, in nanoseconds of one core."""
    cost = layout.element_cost
    if cost is None:
        cost = _COST_OPERAND * (len(layout.operands) + len(layout.outputs))
        for node in layout.graph.nodes():
            if node.kind in _SEPARATE or node.kind in (aten.fmod, aten.remainder):
                cost += _COST_LIBM
            elif node.kind in _VEC or node.kind in (aten.pow, aten.atan2):
                cost += _COST_TRANSCENDENTAL
            elif node.kind not in STRUCTURAL:
                cost += _COST_ARITHMETIC
        layout.element_cost = cost
    return cost


# Kinds handled by the generator itself rather than by a renderer.
STRUCTURAL = frozenset({prim.Constant, prim.ConstantChunk, prim.FusedConcat})
