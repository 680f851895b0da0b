"""The kernel generator's view of the operator library, and its vectorised math tables.

The facts of each fusible op (dtype rule, renderer) are its entry in ``fusejit.oplib``;
``RENDERERS`` and ``DTYPE_ONLY`` are views of those entries by kind. What stays here is what
belongs to the CPU target: which unary functions have a vectorisable form (``fastmath``,
``vecmath``), which need a loop of their own, and the per-element cost estimate::

    %5 : Float(*) = aten::exp(%4)     -> "vm.exp_f32(a0)" (CPU), "math.exp(a0)" (precise, CUDA)
"""

from __future__ import annotations

import numpy as np

from ...ir.constants import constant_value
from ...ir.symbols import aten, prim
from ...oplib import KERNELS, OpEntry
from ...oplib.binary import POW_SPECIAL
from ...passes.lone_maps import COSTLY
from ...passes.view_inputs import VIEWS
from . import simd

# kind -> the op's entry (dtype rule and renderer), for the kinds a fused kernel computes
RENDERERS: dict[str, OpEntry] = dict(KERNELS)
# Inputs that give only a dtype, never elements: they do not take part in broadcasting, and the
# kernel neither reads them nor computes them (``layout`` leaves them out of ``needed``).
DTYPE_ONLY: dict[str, frozenset[int]] = {
    kind: op.dtype_only for kind, op in KERNELS.items() if op.dtype_only}

# --- unary ops on floats ------------------------------------------------------------------------

# Vectorisable forms (``fastmath``: float32 exp/log/tanh/sigmoid; ``vectrig``: float32
# trigonometry; ``vecmath``: the rest, float64 and float32), used unless the kernel is
# ``precise``; accuracy is documented in those modules.
_FAST32 = {aten.exp: "fm.exp_f32", aten.tanh: "fm.tanh_f32", aten.log: "fm.log_f32",
           aten.sigmoid: "fm.sigmoid_f32", aten.log1p: "fm.log1p_f32", aten.sin: "vt.sin_f32",
           aten.cos: "vt.cos_f32", aten.log2: "fm.log2_f32", aten.log10: "fm.log10_f32",
           aten.expm1: "fm.expm1_f32", aten.tan: "vt.tan_f32", aten.sinh: "fm.sinh_f32",
           aten.cosh: "fm.cosh_f32", aten.asin: "vt.asin_f32", aten.acos: "vt.acos_f32",
           aten.atan: "vt.atan_f32", aten.asinh: "fm.asinh_f32", aten.acosh: "fm.acosh_f32",
           aten.atanh: "fm.atanh_f32"}
_VEC = {aten.exp: "exp", aten.expm1: "expm1", aten.log: "log", aten.log1p: "log1p",
        aten.log2: "log2", aten.log10: "log10", aten.sin: "sin", aten.cos: "cos",
        aten.tan: "tan", aten.asin: "asin", aten.acos: "acos", aten.atan: "atan",
        aten.sinh: "sinh", aten.cosh: "cosh", aten.tanh: "tanh", aten.sigmoid: "sigmoid",
        aten.erf: "erf", aten.erfc: "erfc", aten.lgamma: "lgamma", aten.asinh: "asinh",
        aten.acosh: "acosh", aten.atanh: "atanh"}
# The ops a kernel computes with vectorised math (a loop of them wants vectors, not scalars):
# those a lone map gets a kernel for (``passes/lone_maps.py``: ``_VEC``'s, atan2, sqrt, rsqrt,
# pow, fmod, remainder, floor division).
VECTOR_MATH = COSTLY
# Fast only for |x| <= the dtype's limit (``trig_limit``): a fix-up loop recomputes larger
# arguments with libm.
_TRIG = frozenset({aten.sin, aten.cos, aten.tan})


def trig_limit(dtype: np.dtype) -> str:
    """The kernel module's name for the largest |x| the fast sin/cos/tan of ``dtype`` take."""
    return "vt.TRIG_LIMIT_F32" if dtype == np.float32 else "vm.TRIG_LIMIT"


# Logs, float32 expm1, asinh, acosh, atanh (and lgamma) whose kernel loops take a shorter form,
# valid where the arguments usually are (``fm.log_outside``/``vm.log_outside_f64`` false:
# positive, normal and finite; log1p: -1 < x < inf, short of the largest x; expm1: |x| <= 88;
# asinh: |x| < 2**125 (float64: 2**28); acosh: 1 <= x < 2**125 (2**28); atanh: |x| < 1;
# lgamma: 0 < x < inf), and note whether a strip holds another argument; only then the strip
# is computed again with the full form, which is vectorised too. The subnormal and
# special-value steps took 9 of the ~30 vector instructions of float32 log10 (``fastmath``) and
# of float64 log; the strip's check costs 2. (asinh, acosh and atanh: 0.57-0.65 ns an element
# in float32 with their full forms, 0.36-0.40 with the short ones.)
_INSIDE32 = {aten.log: ("fm.log_inside_f32", "fm.log_outside"),
             aten.log2: ("fm.log2_inside_f32", "fm.log_outside"),
             aten.log10: ("fm.log10_inside_f32", "fm.log_outside"),
             aten.log1p: ("fm.log1p_inside_f32", "fm.log1p_outside"),
             aten.expm1: ("fm.expm1_inside_f32", "fm.expm1_outside"),
             aten.lgamma: ("vl.lgamma_inside_f32", "vl.lgamma_outside_f32"),
             aten.asinh: ("fm.asinh_inside_f32", "fm.asinh_outside"),
             aten.acosh: ("fm.acosh_inside_f32", "fm.acosh_outside"),
             aten.atanh: ("fm.atanh_inside_f32", "fm.atanh_outside")}
_INSIDE64 = {aten.log: ("vm.log_inside_f64", "vm.log_outside_f64"),
             aten.log2: ("vm.log2_inside_f64", "vm.log_outside_f64"),
             aten.log10: ("vm.log10_inside_f64", "vm.log_outside_f64"),
             aten.log1p: ("vm.log1p_inside_f64", "vm.log1p_outside_f64"),
             aten.lgamma: ("vl.lgamma_inside_f64", "vl.lgamma_outside_f64"),
             aten.asinh: ("vm.asinh_inside_f64", "vm.asinh_outside_f64"),
             aten.acosh: ("vm.acosh_inside_f64", "vm.acosh_outside_f64"),
             aten.atanh: ("vm.atanh_inside_f64", "vm.atanh_outside_f64")}


def inside_form(kind: str, dtype: np.dtype) -> tuple[str, str] | None:
    """(short form, its domain's test) where unary ``kind`` on ``dtype`` has a kernel-loop form
    valid only inside a domain (``_INSIDE32``, ``_INSIDE64``); the full form is
    ``fast_name``'s."""
    if dtype == np.float32:
        return _INSIDE32.get(kind)
    return _INSIDE64.get(kind) if dtype == np.float64 else None


# Vectorised forms computed in a loop of their own (``ScalarPass``, which LLVM vectorises as
# well): lgamma's full form is so long that LLVM declined to vectorise a 20-op chain that
# inlined it. Where an op has an inside form (lgamma in float32 and float64), the kernel loop
# inlines that short form instead, and the full form runs only on a strip's rerun.
_SEPARATE = frozenset({aten.lgamma})

# The vectorised functions (by name, as ``fast_name`` and ``Emitter.vectorised`` ask for them)
# that live outside ``vecmath`` (vm), by the alias of the module that has them
# (``MATH_MODULES``).
_ELSEWHERE = {
    "vs": ("erf_f32", "erf_f64", "erfc_f32", "erfc_f64", "sinh_f64", "cosh_f64"),
    "vt": ("sin_f32", "cos_f32", "tan_f32", "asin_f32", "acos_f32", "atan_f32", "atan2_f32",
           "atan2_inside_f32", "atan2_outside_f32"),
    "vl": ("lgamma_f32", "lgamma_f64", "lgamma_inside_f32", "lgamma_outside_f32",
           "lgamma_inside_f64", "lgamma_outside_f64"),
    "vi": ("asin_f64", "acos_f64", "atan_f64", "atan2_f64"),
    "vp": ("pow_f32", "pow_inside_f32", "pow_outside_f32", "pow_outside_x_f32", "pow_small_f32",
           "pow_simd_f32", "pow_outside_simd_f32", "pow_strip_f32",
           "pow_f64", "pow_inside_f64", "pow_outside_f64", "pow_const_f64", "pow_const_f32",
           "pow_base_f64", "pow_base_f32"),
}
_MODULE_OF = {name: alias for alias, names in _ELSEWHERE.items() for name in names}


# The modules generated kernels call vectorised math from, by the alias they import them as
# (in the order the import lines are written).
MATH_MODULES = {"fm": "fastmath", "vm": "vecmath", "vs": "vecspecial", "vt": "vectrig",
                "vl": "veclgamma", "vi": "vecinverse", "vp": "vecpow"}


def math_modules(text: str) -> set[str]:
    """The aliases of ``MATH_MODULES`` that generated source ``text`` calls."""
    return {alias for alias in MATH_MODULES if f"{alias}." in text}


def math_imports(aliases: set[str]) -> list[str]:
    """The import lines of the math modules ``aliases`` name, for a generated module."""
    return [f"from fusejit.runtime.fusion import {module} as {alias}"
            for alias, module in MATH_MODULES.items() if alias in aliases]


# On AVX-512 hosts (``simd.HOST_AVX512``, decided at import) these functions give way to the
# hand-written vector forms beside them: the renderer asks for the portable name, and the
# generated source names what it computes, so Numba's caches never mix the two.
HOST_FORMS = ({"pow_inside_f32": "pow_simd_f32", "pow_outside_f32": "pow_outside_simd_f32"}
              if simd.HOST_AVX512 else {})


# On AVX-512 hosts a strip whose whole work is one of these host forms (two loaded float32 rows,
# the value written to one output row) calls the strip form beside it instead of running the
# element loop: ``simd``'s loop in IR, constants loaded once (``loops``). Each maps to (strip
# form, the test of the host form's domain that the strip form's flag covers).
STRIP_FORMS = ({"vp.pow_simd_f32": ("vp.pow_strip_f32", "vp.pow_outside_simd_f32")}
               if simd.HOST_AVX512 else {})


# Hand-written vector functions (``simd``) that only LLVM's loop vectoriser reaches: a loop it
# leaves scalar calls them for one lane at a time, 16 lanes' work (a kernel calling one asks
# for the vectors they take: ``rows.module_text``).
WIDENED_CALLS = ("vp.pow_simd_f32(",) if simd.HOST_AVX512 else ()


def kernel_decorator(parallel: bool) -> str:
    """The ``@njit`` line of a generated kernel function. No C function wrapper: Python calls
    a kernel through its dispatcher and its native entry calls it directly, so the wrapper,
    lowered and compiled with every kernel, was unused (about 5% of a small kernel's compile)."""
    return (f'@njit(parallel={parallel}, cache=True, error_model="numpy", '
            f'no_cfunc_wrapper=True)')


def vector_function(name: str, host: bool = True) -> str:
    """The qualified name of vectorised function ``name`` in a kernel module: this host's form
    of it (``HOST_FORMS``), or with ``host`` false the portable one."""
    name = HOST_FORMS.get(name, name) if host else name
    return f"{_MODULE_OF.get(name, 'vm')}.{name}"


def fast_name(kind: str, dtype: np.dtype) -> str | None:
    """The vectorisable function computing unary ``kind`` on ``dtype``, if there is one."""
    if dtype == np.float32 and kind in _FAST32:
        return _FAST32[kind]
    if kind in _VEC and dtype in (np.float32, np.float64):
        return vector_function(f"{_VEC[kind]}_{'f32' if dtype == np.float32 else 'f64'}")
    return None


# Estimated nanoseconds an element costs on one core, for the serial/parallel choice (measured
# roughly here: vectorised float32 arithmetic ~0.1, a vectorised transcendental ~1, each
# operand read or written ~0.3).
_COST_TRANSCENDENTAL = 1.0
# general pow (``pow_inside_f32``/``_f64``): 1.1 ns float32, 2.6-3.0 ns float64 (2^22 pairs, one
# thread's CPU time, load ~16); one rate, since a layout serves both dtypes. (The forms before
# them cost 2.2 and 4.7; float64's short form has since dropped to 2.0-2.3 at 2^18, and
# float32's AVX-512 form ``pow_simd_f32`` to 0.9-1.3, and its strip form ``pow_strip_f32`` to
# 0.6-1.0 at 2^18-2^22: the rate still sits between them, and overstates float32's.)
_COST_POW = 2.0
# (veclgamma's full forms: 10 ns an element, one thread's CPU time. Kernels now run its short
# forms, 1.1 ns float32 and 6.3 float64, where x > 0: the rate overstates them, and is left to
# the serial/parallel decision's owner with the tests that pin it, test_threads.py.)
_COST_LONG = 10.0
_COST_ARITHMETIC = 0.1
_COST_OPERAND = 0.3


def _product_pow(node) -> bool:
    """Is pow ``node``'s exponent a constant the renderer computes by products or a square root
    (``oplib.binary.POW_SPECIAL``: 2, 3, 0.5, -0.5, -1, -2)?"""
    producer = node.inputs[1].node
    if producer.kind != prim.Constant:
        return False
    value = constant_value(producer)
    return isinstance(value, (int, float)) and float(value) in POW_SPECIAL


def element_cost(layout) -> float:
    """The estimated cost of one element of a group's kernel, in nanoseconds of one core."""
    cost = layout.element_cost
    if cost is None:
        cost = _COST_OPERAND * (len(layout.operands) + len(layout.outputs))
        for node in layout.graph.nodes():
            if node.kind in _SEPARATE:
                cost += _COST_LONG
            elif node.kind == aten.pow:
                cost += _COST_ARITHMETIC if _product_pow(node) else _COST_POW
            elif node.kind in _VEC or node.kind in (aten.atan2, aten.fmod, aten.remainder,
                                                    aten.floor_divide, aten.hypot):
                # (float fmod: helpers.fmod_wide, 0.93 ns/element; libm's only on a fix-up)
                cost += _COST_TRANSCENDENTAL
            elif node.kind == aten.logaddexp:       # (an exp and a log1p)
                cost += 2 * _COST_TRANSCENDENTAL
            elif node.kind not in STRUCTURAL:
                cost += _COST_ARITHMETIC
        layout.element_cost = cost
    return cost


# Kinds handled by the generator itself rather than by a renderer (views: ``layout.VIEWS``).
STRUCTURAL = frozenset({prim.Constant, prim.ConstantChunk, prim.FusedConcat}) | VIEWS
