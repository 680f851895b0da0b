"""Measure the maximum ulp error of the fused kernels' vectorised math, as the kernels call it.

    python tools/ulp_sweep.py --all [--markdown FILE]       # every function, both dtypes
    python tools/ulp_sweep.py f32 [--step K] [NAME ...]     # every K-th float32 (K=1: all 2^32)
    python tools/ulp_sweep.py f64 [--samples N] [NAME ...]  # N random float64s + specials
    python tools/ulp_sweep.py binary [--samples N] [NAME ...]  # atan2 and pow, random pairs
                                                            # (pow_strip: the strip form)
    python tools/ulp_sweep.py binary --numpy [NAME ...]     # NumPy's own float32 ufuncs, the same
    python tools/ulp_sweep.py powc [--step K] [--samples N] [NAME ...]  # pow, one operand fixed

Each function is the one the kernel generator renders (``templates.fast_name`` for the unary
ops, ``templates.vector_function`` for atan2/pow, the renderer's own text for rsqrt and
reciprocal), found through the module alias the generated kernel imports it by, so whatever
form the library has today is what is measured. A function without a fast form (libm in the
kernel) is reported as such and not swept.

Oracles:

- float32: the float64 libm function (through Numba's ``math``) of the float32 input, unrounded;
  the error is |fast - oracle| in units of the float32 spacing at the oracle rounded to float32.
  (glibc's float64 functions are within 1 ulp of float64, ~2^-29 float32 ulps.) A NaN or an
  infinity must be matched exactly (an infinite error otherwise).
- float64: NumPy's ufunc (glibc's libm; erf, erfc, lgamma: glibc's through Numba); the error is
  |fast - numpy| in units of the float64 spacing at NumPy's result. glibc's float64
  exp/log/sin/cos/pow are correctly rounded or within 1 ulp, the others within a few, so the
  error against the exact value is at most the figure printed plus glibc's own. Samples:
  uniform bit patterns (every exponent equally), plus uniform values in [-4, 4] and
  [-800, 800], plus the special values.

lgamma has zeros at 1 and 2, where its relative error is unbounded for any method that does not
know the zero exactly; as glibc and SVML do, its error is reported in ulps of the result except
where |lgamma(x)| < 1/4 (x within about 0.25 of 1 or 2, or near the negative zeros), where the
absolute error is reported separately (the ``abs`` column).

pow with a constant operand (``powc``; names ``pow_C`` for x**C, ``base_B`` for B**y): the
function the renderer calls for it (``vecpow``'s, with the renderer's constants), swept as a
unary function of the tensor operand in both dtypes; the oracle is libm's float64 pow (through
Numba; correctly rounded in practice, unlike NumPy's SVML power on AVX-512 hosts). The float32
base is B rounded to float32, as the op casts it. A C that is no half-integer takes the general
forms as kernels do: the short one where x is normal and positive (float32 |C| <= 7.8:
``pow_small_f32``), the full one elsewhere; C rounded to the dtype first.

sin/cos/tan are measured as the kernel computes them: the fast form for |x| <= the dtype's
limit (``templates.trig_limit``: 1e5 for float32, ``vm.TRIG_LIMIT`` for float64); beyond,
the kernel's fix-up loop calls libm, whose float32 rounding (<= 0.5 ulp) is not measured (the
float32 sweep skips the oracle there: 42% of the bit patterns, the slowest for libm).
sigmoid's oracle is 1 / (1 + e**-x) in float64, 0 where float32's (float64's) e**-x overflows,
as the reference computes it.

How the float32 sweep is fast (all 2^32 inputs, wall time on a 2-core machine at load average
6-16: exp 165 s, log1p 104, sin 123, erf 153, rsqrt 247, tan 380, lgamma 810, whose glibc
oracle alone costs ~35 ns an input; the previous element-at-a-time sweep took 20-35 min): each
worker takes interleaved chunks of 16384 bit patterns; for a chunk it computes the fast form
over a buffer (a loop LLVM vectorises, as in a kernel), then the libm oracle (the one scalar
loop), then the error in a branch-free loop. The 2^24 NaN patterns are not given to the oracle:
only NaN in -> NaN out is checked for each of them.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np
from numba import njit, prange

from fusejit.ir.symbols import aten
from fusejit.oplib.binary import POW_Y_WIDE_F32, log_parts
from fusejit.oplib.unary import FLOAT_FUNCTIONS
from fusejit.runtime.fusion import templates
from fusejit.runtime.fusion import vecmath as vm
from fusejit.runtime.fusion.fastmath import _bits_to_f32

# the float64 libm oracle of each unary function (None: NumPy's ufunc; see ``sweep_f64``)
ORACLE = {"exp": math.exp, "expm1": math.expm1, "log": math.log, "log1p": math.log1p,
          "log2": math.log2, "log10": math.log10, "sin": math.sin, "cos": math.cos,
          "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
          "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh, "sigmoid": None,
          "erf": math.erf, "erfc": math.erfc, "lgamma": math.lgamma, "rsqrt": None,
          "reciprocal": None, "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh}
NUMPY64 = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2,
           "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
           "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
           "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
           "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
           "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
BINARY = ("atan2", "pow")
# float32 pow's strip form (``templates.STRIP_FORMS``: a kernel whose whole work is pow), where
# this host has one; swept with ``binary`` too, float32 only
STRIP = ("pow_strip",) if templates.STRIP_FORMS else ()
POWC = ("pow_2.5", "pow_-1.5", "pow_7.5", "pow_-8", "pow_5", "base_2", "base_10", "base_0.5",
        "pow_1.7", "pow_-2.2", "pow_7.8", "pow_-7.8")
CHUNK = 1 << 14
NAN_LO = 0x7F800001          # float32 bit patterns NAN_LO..0x7FFFFFFF (and with the sign) are NaN


@njit
def _sig64(x):
    e = math.exp(-x)
    return 0.0 if e > 3.4028234663852886e38 else 1.0 / (1.0 + e)     # (float32's overflow)


@njit(error_model="numpy")
def _rsqrt64(x):
    return 1.0 / math.sqrt(x)


@njit(error_model="numpy")
def _recip64(x):
    return 1.0 / x


ORACLE.update(sigmoid=_sig64, rsqrt=_rsqrt64, reciprocal=_recip64)


def _aliases() -> dict[str, object]:
    """alias -> module, as the generated kernels import them (``templates.MATH_MODULES``)."""
    return {alias: import_module(f"fusejit.runtime.fusion.{module}")
            for alias, module in templates.MATH_MODULES.items()}


def fast_function(name: str, dtype: str, qualified: bool = False):
    """The jitted function a kernel calls for ``name`` on float32/64 (``dtype`` 'f32'/'f64'),
    or None where the kernel calls libm; the renderer's text for rsqrt and reciprocal.
    ``qualified``: ``name`` is a vectorised function's own name (``vector_function``)."""
    if qualified:
        alias, attr = templates.vector_function(name).split(".")
        return getattr(_aliases()[alias], attr)
    if name in ("rsqrt", "reciprocal"):
        one = f"np.float{dtype[1:]}(1.0)"
        body = FLOAT_FUNCTIONS[name][1].format(x="x", one=one)
        space: dict = {"math": math, "np": np, "njit": njit}
        # (the text is the operator library's own template, not input)
        exec(f"@njit(error_model='numpy')\ndef f(x):\n    return {body}\n", space)
        return space["f"]
    if name in BINARY:
        qualified = templates.vector_function(f"{name}_{dtype}")
    else:
        qualified = templates.fast_name(getattr(aten, name), np.dtype(f"float{dtype[1:]}"))
    if qualified is None:
        return None
    alias, attr = qualified.split(".")
    return getattr(_aliases()[alias], attr)


def powc_functions(name: str, dtype: str):
    """(fast, oracle) for ``POWC``'s ``name`` ('pow_C' or 'base_B'): the kernel's function of the
    tensor operand, and libm's float64 pow of the same."""
    kind, text = name.split("_", 1)
    value = float(text)
    real = np.dtype(f"float{dtype[1:]}")
    short = outside = None
    if kind == "pow" and not (2 * value).is_integer():
        # a general exponent: the kernel's short form for x normal and positive (float32,
        # |C| <= POW_Y_WIDE_F32: pow_small_f32), its full form elsewhere; C cast to the dtype
        small = dtype == "f32" and abs(value) <= POW_Y_WIDE_F32     # (as the renderer tests)
        value = float(real.type(value))
        fast = fast_function(f"pow_{dtype}", dtype, qualified=True)
        short = fast_function("pow_small_f32" if small else f"pow_inside_{dtype}", dtype, True)
        outside = fast_function(f"pow_outside_{dtype}", dtype, True)
        call = "fs(x, Y) if not out(x, Y) else fn(x, Y)"
        oracle_body = f"math.pow(x, {value!r})"
    elif kind == "pow":
        fast = fast_function(f"pow_const_{dtype}", dtype, qualified=True)
        call, oracle_body = f"fn(x, {int(2 * value)})", f"math.pow(x, {value!r})"
    else:
        value = float(real.type(value))            # (the op casts the base to the dtype)
        fast = fast_function(f"pow_base_{dtype}", dtype, qualified=True)
        call, oracle_body = "fn(x, HI, LO)", f"math.pow({value!r}, x)"
    hi, lo = log_parts(value, real) if kind == "base" else (0.0, 0.0)
    space = {"math": math, "np": np, "njit": njit, "fn": fast, "HI": real.type(hi),
             "LO": real.type(lo), "fs": short, "out": outside, "Y": real.type(value)}
    # (the texts hold numbers formatted here, no input)
    exec(f"@njit(error_model='numpy')\ndef fast(x):\n    return {call}\n\n"
         f"@njit(error_model='numpy')\ndef oracle(x):\n    return {oracle_body}\n", space)
    return space["fast"], space["oracle"]


def _is_trig(name: str) -> bool:
    return name not in POWC and getattr(aten, name, None) in getattr(templates, "_TRIG", ())


# -- float32: every bit pattern -------------------------------------------------------------

@njit(inline="always")
def _err32(got, ref):
    """|got - ref| in float32 ulps at ref rounded; 0 for the same NaN/inf, inf for a mismatch.
    Branch-free (selects): the spacing from the exponent bits of ref rounded to float32."""
    want = np.float32(ref)
    e = (vm._f64_to_bits(np.float64(abs(want))) >> 52) - 1023     # unbiased exponent
    spacing = vm._bits_to_f64((max(e, np.int64(-126)) - 23 + 1023) << 52)
    err = abs(np.float64(got) - ref) / spacing
    finite = math.isfinite(want) and math.isfinite(got)
    same = (got == want) or (got != got and want != want)
    return err if finite else (0.0 if same else math.inf)


@njit(inline="always")
def _abs_or_ulps(got, ref, zeros):
    """(error in ulps, absolute error): the absolute one where ``zeros`` and |ref| < 1/4."""
    near = zeros and abs(ref) < 0.25 and math.isfinite(got)
    err = _err32(got, ref)
    return (0.0 if near else err), (abs(np.float64(got) - ref) if near else 0.0)


def _make_f32_sweep(fast, oracle, limit: float, zeros: bool):
    """A parallel sweep of bit patterns [lo, hi) step ``step``: per worker the worst ulp error,
    its bit pattern, the worst absolute error near the zeros (lgamma) and its pattern."""

    # The stages of one chunk are functions of their own: each is compiled and vectorised on
    # its own (inside the parallel loop's body LLVM left the fast form scalar, 10x slower).
    @njit(error_model="numpy")
    def fill(x, got, first, step):
        for i in range(x.size):
            b = first + i * step
            x[i] = _bits_to_f32(np.int32(b - ((b >> 31) << 32)))
        for i in range(x.size):                     # the fast form, vectorised as in a kernel
            got[i] = fast(x[i])

    @njit(error_model="numpy")
    def oracles(x, got, ref):
        for i in range(x.size):                     # libm: one element at a time
            xi = np.float64(x[i])
            if abs(xi) > limit:     # the kernel's fix-up loop computes libm there: not measured
                got[i], ref[i] = 0.0, 0.0
            else:
                ref[i] = oracle(xi)

    @njit(error_model="numpy")
    def worst(got, ref):
        # non-negative float64s order as their bit patterns: an integer max, which vectorises
        most, most_abs = 0, 0
        for i in range(got.size):
            e, a = _abs_or_ulps(got[i], ref[i], zeros)
            most = max(most, vm._f64_to_bits(e))
            most_abs = max(most_abs, vm._f64_to_bits(a))
        return vm._bits_to_f64(most), vm._bits_to_f64(most_abs)

    @njit(parallel=True, error_model="numpy")
    def sweep(lo, hi, step, workers):
        per = CHUNK * step
        chunks = (hi - lo + per - 1) // per
        out = np.zeros((workers, 4))
        for w in prange(workers):
            xs = np.empty(CHUNK, np.float32)
            gots = np.empty(CHUNK, np.float32)
            refs = np.empty(CHUNK, np.float64)
            best, at, best_abs, at_abs = 0.0, 0, 0.0, 0
            for c in range(w, chunks, workers):     # interleaved: the costs vary by range
                first = lo + c * per
                n = min(CHUNK, (hi - first + step - 1) // step)
                x, got, ref = xs[:n], gots[:n], refs[:n]
                fill(x, got, first, step)
                oracles(x, got, ref)
                e, a = worst(got, ref)
                if e > best or a > best_abs:
                    for i in range(n):
                        e, a = _abs_or_ulps(got[i], ref[i], zeros)
                        if e > best:
                            best, at = e, first + i * step
                        if a > best_abs:
                            best_abs, at_abs = a, first + i * step
            out[w, 0], out[w, 1], out[w, 2], out[w, 3] = best, at, best_abs, at_abs
        return out
    return sweep


@njit(parallel=True)
def _nan_mismatches(fast, lo, hi):
    """How many NaN bit patterns in [lo, hi) the fast form does not map to NaN."""
    bad = 0
    for b in prange(lo, hi):
        y = fast(_bits_to_f32(np.int32(b - ((b >> 31) << 32))))
        bad += 0 if y != y else 1
    return bad


def _trig_limit(dtype) -> float:
    """The largest |x| the kernel's fast sin/cos/tan of ``dtype`` take (libm beyond)."""
    alias, attr = templates.trig_limit(np.dtype(dtype)).split(".")
    return float(getattr(_aliases()[alias], attr))


def sweep_f32(name: str, step: int = 1, workers: int = 64) -> dict:
    """The worst error of the float32 form over every ``step``-th bit pattern."""
    fast, oracle = powc_functions(name, "f32") if name in POWC else (
        fast_function(name, "f32"), ORACLE.get(name))
    if fast is None:
        return {}
    limit = _trig_limit(np.float32) if _is_trig(name) else math.inf
    sweep = _make_f32_sweep(fast, oracle, limit, name == "lgamma")
    rows = []
    swept = 0
    for lo, hi in ((0, NAN_LO), (1 << 31, (1 << 31) + NAN_LO)):   # every pattern but NaNs
        rows.append(sweep(lo, hi, step, workers))
        swept += (hi - lo + step - 1) // step
    nans = 0
    if step == 1:
        for lo in (NAN_LO, (1 << 31) + NAN_LO):
            nans += _nan_mismatches(fast, lo, lo - NAN_LO + (1 << 31))
        swept += 2 * ((1 << 31) - NAN_LO)
    out = np.concatenate(rows)
    i, j = int(np.argmax(out[:, 0])), int(np.argmax(out[:, 2]))
    as_f32 = (lambda b: float(np.array([int(b)], np.uint32).view(np.float32)[0]))
    return {"max": math.inf if nans else float(out[i, 0]),
            "at": "NaN" if nans else as_f32(out[i, 1]),
            "abs": float(out[j, 2]), "abs_at": as_f32(out[j, 3]), "count": swept}


# -- float64: samples -----------------------------------------------------------------------

def _apply(fast):
    @njit(parallel=True)
    def run(x, out):
        for i in prange(x.size):
            out[i] = fast(x[i])
    return run


def specials64() -> np.ndarray:
    v = np.array([0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-20, 1e-8, 0.5, 1.0, 2.0,
                  3.0, 0.4375, 0.6875, 1.1875, 2.4375, 19.1, 40.0, 709.0, 709.78, 709.79,
                  710.5, 745.13, 746.0, np.pi / 4, np.pi / 2, np.pi, 1e5, vm.TRIG_LIMIT, 1e22,
                  2.0 ** 52, 2.0 ** 58, 2.0 ** 1020, 1.7976931348623157e308, np.inf, np.nan])
    with np.errstate(all="ignore"):
        v = np.concatenate([v, np.nextafter(v, np.inf), np.nextafter(v, 0)])
    return np.concatenate([v, -v])


def _oracle64(name: str, x: np.ndarray, oracle=None) -> np.ndarray:
    with np.errstate(all="ignore"):
        if name in NUMPY64:
            return NUMPY64[name](x)
        want = np.empty_like(x)
        _apply(oracle or ORACLE[name])(x, want)     # libm's, where NumPy has none
        return want


def _samples64(rng, n: int) -> np.ndarray:
    third = n // 3
    signs = rng.choice([-1.0, 1.0], third)
    with np.errstate(all="ignore"):
        patterns = rng.integers(0, 1 << 63, third, dtype=np.int64).view(np.float64) * signs
    return np.concatenate([patterns, rng.uniform(-4, 4, third),
                           rng.uniform(-800, 800, n - 2 * third)])


def sweep_f64(name: str, samples: int, chunk: int = 1 << 23) -> dict:
    fast, oracle = powc_functions(name, "f64") if name in POWC else (
        fast_function(name, "f64"), None)
    if fast is None:
        return {}
    run = _apply(fast)
    rng = np.random.default_rng(1)
    res = {"max": 0.0, "at": 0.0, "abs": 0.0, "abs_at": 0.0, "count": 0}
    while res["count"] < samples:
        x = _samples64(rng, min(chunk, samples - res["count"]))
        if res["count"] == 0:
            x = np.concatenate([x, specials64()])
        got = np.empty_like(x)
        run(x, got)
        want = _oracle64(name, x, oracle)
        if _is_trig(name):
            big = np.abs(x) > _trig_limit(np.float64)
            got[big] = want[big]        # (the kernel's fix-up loop runs libm there)
        with np.errstate(all="ignore"):
            err = np.abs(got - want) / np.spacing(np.abs(want))
            near = (name == "lgamma") & (np.abs(want) < 0.25) & np.isfinite(got)
            absolute = np.where(near, np.abs(got - want), 0.0)
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        err[same | near] = 0.0
        err[~same & ~(np.isfinite(got) & np.isfinite(want))] = np.inf
        absolute[np.isnan(absolute)] = np.inf
        _keep_worst(res, err, absolute, x)
        res["count"] += x.size
    return res


def _keep_worst(res: dict, err: np.ndarray, absolute: np.ndarray, at) -> None:
    i, j = int(np.argmax(err)), int(np.argmax(absolute))
    if err[i] > res["max"]:
        res["max"], res["at"] = float(err[i]), at[i]
    if absolute[j] > res["abs"]:
        res["abs"], res["abs_at"] = float(absolute[j]), at[j]


# -- binary: random pairs ---------------------------------------------------------------------

def _apply2(fast):
    @njit(parallel=True)
    def run(x, y, out):
        for i in prange(x.size):
            out[i] = fast(x[i], y[i])
    return run


def _strip_runs():
    """(run, outside) for float32 pow's strip form: run(x, y, out) by strips of 1024, as
    kernels call it; outside(x, y, where): the form's own flag, pair by pair (where a kernel
    takes pow_f32 for the strip instead)."""
    strip = getattr(_aliases()["vp"], next(iter(templates.STRIP_FORMS.values()))[0][3:])

    @njit
    def run(x, y, out):
        for s in range(0, x.size, 1024):
            m = min(1024, x.size - s)
            strip(x[s:s + m], y[s:s + m], out[s:s + m])

    @njit
    def outside(x, y, where):
        one = np.empty(1, np.float32)
        for i in range(x.size):
            where[i] = strip(x[i:i + 1], y[i:i + 1], one)
    return run, outside


def _short_or_full(full, short, outside):
    """A run(x, y, out) that gives ``short``'s results where ``outside`` is false and
    ``full``'s elsewhere."""
    def run(x, y, out):
        full(x, y, out)
        where = np.empty(x.size, np.bool_)
        outside(x, y, where)
        inside = np.empty_like(out)
        short(x, y, inside)
        out[~where] = inside[~where]
    return run


def special_pairs(real) -> np.ndarray:
    """Special operands of the binary sweep (every pair of them is swept): signed zeros and
    infinities, NaN, +-1, the smallest and largest subnormals and normals, the largest finite,
    halves, small and large odd and even integers, the last odd integer and the first
    floats past it, and values beside 1."""
    info = np.finfo(real)
    p = info.nmant + 1
    last_odd = 2.0 ** p - 1
    v = np.array([0.0, np.inf, np.nan, 1.0, float(info.smallest_subnormal),
                  float(info.smallest_normal) * (1 - 2.0 ** -p), float(info.smallest_normal),
                  float(info.max), 0.5, 1.5, 2.0, 3.0, 7.0, 10.0, 0.25, 1e-3, 1e3, last_odd,
                  2.0 ** p, 2.0 ** p + 2, 2.0 ** (p + 1), 1 - 2.0 ** -p, 1 + 2.0 ** (1 - p),
                  float(info.eps) * 3, 126.5, 1000.5], dtype=real)
    return np.concatenate([v, -v])


def sweep_binary(name: str, dtype: str, samples: int, chunk: int = 1 << 22,
                 numpy_own: bool = False) -> dict:
    """Random pairs: a quarter uniform bit patterns, a quarter uniform in [-4, 4], a quarter
    with x in (0, 4] and y in [-40, 40] (pow's useful range), a quarter with x = 2**u (u uniform
    over the dtype's exponent range, either sign) and y = v / u for v uniform from below the
    subnormal results to past the overflow (pow's largest |y log2 x|, where its error is
    largest); float32 results are compared with the float64 oracle unrounded, float64 ones with
    NumPy's. atan2 takes (y, x). ``numpy_own``: sweep NumPy's own ufunc of the dtype instead
    (the yardstick: its float32 error against the float64 oracle)."""
    oracle = np.arctan2 if name == "atan2" else np.power
    real = np.float32 if dtype == "f32" else np.float64
    if numpy_own:
        def run(x, y, out):
            with np.errstate(all="ignore"):
                oracle(x, y, out=out)
    else:
        run = _apply2(fast_function(name, dtype))
    if name == "pow_strip":
        run = _short_or_full(_apply2(fast_function("pow", dtype)), *_strip_runs())
    elif not numpy_own and (name == "pow" or (name, dtype) == ("atan2", "f32")):
        # kernels take the short form where no pair of a strip is outside its domain: it is
        # swept on the pairs inside (the full form on the others)
        run = _short_or_full(run, *(_apply2(fast_function(f"{name}_{part}_{dtype}", dtype,
                                                          True))
                                    for part in ("inside", "outside")))
    rng = np.random.default_rng(2)
    bits = np.uint32 if real == np.float32 else np.uint64
    res = {"max": 0.0, "at": (0.0, 0.0), "abs": 0.0, "abs_at": None, "count": 0}
    first = True
    while res["count"] < samples:
        n = min(chunk, samples - res["count"])
        t = n // 4
        pat = rng.integers(0, np.iinfo(bits).max, (2, t), dtype=bits).view(real)
        top = 128.0 if real == np.float32 else 1024.0
        low = 151.0 if real == np.float32 else 1076.0
        u = rng.uniform(-low, top, n - 3 * t)
        u = np.where(u == 0, 1.0, u)
        with np.errstate(all="ignore"):
            x = np.concatenate([pat[0], rng.uniform(-4, 4, t), rng.uniform(0, 4, t),
                                np.exp2(u) * rng.choice([-1.0, 1.0], u.size)])
            y = np.concatenate([pat[1], rng.uniform(-4, 4, t), rng.uniform(-40, 40, t),
                                rng.uniform(-low, top + 1.0, u.size) / u])
            x, y = x.astype(real), y.astype(real)
        if first:       # every pair of the special values too (signed zeros checked as well)
            sx, sy = (g.ravel() for g in np.meshgrid(*[special_pairs(real)] * 2))
            x, y = np.concatenate([sx, x]), np.concatenate([sy, y])
            first = False
        got = np.empty_like(x)
        run(x, y, got)
        with np.errstate(all="ignore"):
            want = oracle(x.astype(np.float64), y.astype(np.float64))
            rounded = want.astype(real)
            err = np.abs(got - want) / np.spacing(np.abs(rounded)).astype(np.float64)
        same = ((got == rounded) & ~np.isfinite(rounded)) | (np.isnan(got) & np.isnan(rounded))
        err[same] = 0.0
        err[~same & ~(np.isfinite(got) & np.isfinite(rounded))] = np.inf
        err[np.isnan(err)] = np.inf
        err[(rounded == 0) & (np.signbit(got) != np.signbit(rounded))] = np.inf
        _keep_worst(res, err, np.zeros(1), list(zip(x, y)))
        res["count"] += n
    return res


# -- the command ------------------------------------------------------------------------------

def _row(name: str, dtype: str, res: dict, what: str, seconds: float) -> str:
    if not res:
        return f"| {name} | {dtype} | libm (no fast form) | | | | |"
    at = res["at"]
    if isinstance(at, tuple):
        at = f"({float(at[0])!r}, {float(at[1])!r})"
    elif not isinstance(at, str):       # (str: "NaN", a NaN input that gave a number)
        at = repr(float(at))
    near = f"{res['abs']:.3g} at {float(res['abs_at'])!r}" if res["abs"] else ""
    return (f"| {name} | {dtype} | {res['max']:.3f} | {at} | {near} "
            f"| {res['count']:,} ({what}) | {seconds:.0f} |")


def run(kind: str, names: list[str], step: int, samples: int, pair_samples: int,
        numpy_own: bool = False):
    """Yield the table rows of ``kind`` ('f32', 'f64', 'binary') for ``names`` (all: empty);
    ``numpy_own``: NumPy's own float32 ufuncs on ``binary``'s pairs."""
    if kind in ("binary", "powc"):
        jobs = [(n, d) for n in names or ((BINARY if numpy_own else BINARY + STRIP)
                                          if kind == "binary" else POWC)
                for d in (("f32",) if numpy_own or n in STRIP else ("f32", "f64"))]
    else:
        jobs = [(n, kind) for n in names or ORACLE]
    for name, dtype in jobs:
        start = time.perf_counter()
        if kind == "binary":
            res = sweep_binary(name, dtype, pair_samples, numpy_own=numpy_own)
            what = f"{pair_samples:.1e} random pairs" + (", NumPy's own" if numpy_own else "")
        elif dtype == "f32":
            res = sweep_f32(name, step)
            what = "all 2^32" if step == 1 else f"every {step}th of 2^32"
        else:
            res = sweep_f64(name, samples)
            what = f"random, {specials64().size} of them special values"
        yield _row(name, dtype, res, what, time.perf_counter() - start)


HEADER = ("| function | dtype | max ulp | at | max abs error where abs(result) < 1/4 (lgamma) "
          "| inputs | seconds |\n|---|---|---|---|---|---|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", nargs="?", choices=["f32", "f64", "binary", "powc"])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--all", action="store_true", help="f32, f64, binary and powc, every name")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--samples", type=int, default=10 ** 8)
    parser.add_argument("--pair-samples", type=int, default=10 ** 8)
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--numpy", action="store_true",
                        help="binary: sweep NumPy's own float32 ufuncs instead of the kernels'")
    args = parser.parse_intermixed_args()
    kinds = ["f32", "f64", "binary", "powc"] if args.all else [args.kind or "f32"]
    lines = [HEADER]
    print(HEADER, flush=True)
    for kind in kinds:
        for row in run(kind, [] if args.all else args.names, args.step, args.samples,
                       args.pair_samples, args.numpy and kind == "binary"):
            print(row, flush=True)
            lines.append(row)
            if args.markdown:
                Path(args.markdown).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
