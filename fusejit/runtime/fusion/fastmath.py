"""Vectorisable float32 ``exp``, ``expm1``, ``log``, ``log1p``, ``log2``, ``log10``, ``tanh``,
``sigmoid``, ``sinh`` and ``cosh`` for generated kernels (the trigonometry is ``vectrig``).

The pip llvmlite has no SVML, so a kernel calling libm's ``expf`` runs one element at a time.
These functions use only arithmetic, comparisons and bit casts, which LLVM vectorises, so
``aten::tanh`` on float32 costs a few cycles an element::

    %3 : Float(*, *) = aten::tanh(%2)      ->      t3 = fm.tanh_f32(t2)        (precise=False)
                                           ->      t3 = math.tanh(t2)          (precise=True)

Method (the coefficients were fitted here by iterated weighted least squares, near-minimax):

- ``exp_f32``: x = n ln2 + r with n = rint(x / ln2), ln2 split in two (Cody-Waite), so
  |r| <= ln2/2; exp(r) = 1 + r + r^2 P5(r); 2^n applied as two power-of-two factors made from
  exponent bits, so results down in the subnormal range round once.
- ``log_f32``: subnormals pre-scaled by 2^23; x = m 2^e with m in [sqrt(1/2), sqrt(2));
  s = (m-1)/(m+1), log m = 2s + s^3 R3(s^2); result e ln2_hi + (log m + e ln2_lo).
- ``tanh_f32``: |x| < 0.625: x + x^3 Q5(x^2); otherwise sign(x) (1 - 2 / (exp(2|x|) + 1)),
  with 2|x| clamped at 20 so that exp needs no range checks and one power-of-two factor.
- ``sigmoid_f32``: e = exp_f32(-|x|); 1 / (1 + e) for x >= 0, e / (1 + e) below.
- ``expm1_f32``: exp's reduction and polynomial without its constant term, then
  2^n (em1 + (1 - 2^-n)) (n > 0) or 2^n em1 + (2^n - 1) (n < 0); -1 below -18.
- ``log2_f32``/``log10_f32``: log's reduction; e + log(m) / ln 2, e log10(2) + log(m) / ln 10
  (log10(2) in two parts, e times the first exact).
- ``log1p_f32``: u = 1 + x rounded, its rounding error c by Fast2Sum (exact); log(u) by
  ``log_f32``'s method, plus c / u; for |x| < 2^-7 the Taylor series to x^6 instead.
- ``sinh_f32``/``cosh_f32``: (e + e / (e + 1)) / 2 with e = expm1(|x|), e / 2 + 1 / (2e) with
  e = exp(|x|); from |x| = 88, where e overflows first, (e^(|x|/2) / 2) e^(|x|/2).

Measured accuracy, against float64 NumPy rounded to float32, in ulps of the float32 result over
**all 2^32 float32 inputs** (``python -m fusejit.runtime.fusion.fastmath --sweep``; a dense
sample plus edges runs in the test suite). The functions are compiled with contraction allowed,
so the results depend on whether the CPU has FMA: the table is the full sweep on an AVX-512 +
FMA host (AMD EPYC); without FMA (``NUMBA_CPU_NAME=generic``, every 257th bit pattern) the
maxima were exp 0.936, log 0.833, tanh 1.268, sigmoid 2.330 ulp (its earlier stable form),
inside the same bounds:

==========  =========  =====================  ===================================================
function    max ulp    worst input            notes
==========  =========  =====================  ===================================================
exp_f32     0.988      -59.94443130493164     inf above 88.7228, 0 below -103.973, NaN stays NaN
log_f32     0.858      0.7041804194450378     -inf at +-0, NaN below 0 and at NaN, inf at inf
tanh_f32    1.331      +-0.6283095479011536   exactly +-1 beyond |x| ~ 9.01
sigmoid     2.404      -16.641347885131836    0 below -88.72 as the reference; every 17th pattern
log1p_f32   1.256      -0.3656008541584015    against float64 libm, unrounded (tools/ulp_sweep.py)
expm1_f32   1.432      17.014109              every 257th pattern + [-20, 90] by 2^-22 (as log1p)
log2_f32    1.801      1.4127635              every 257th pattern + [0.5, 2] by 2^-22 (as log1p)
log10_f32   1.931      1.3254611              every 257th pattern + [0.5, 2] by 2^-22 (as log1p)
sinh_f32    2.343      -89.40836              every 257th pattern + [-95, 95] (as log1p)
cosh_f32    2.343      -89.40836              every 257th pattern + [-95, 95] (as log1p)
==========  =========  =====================  ===================================================

(``ULP_BOUNDS`` below holds the bounds the tests assert.) ``precise=True`` on a kernel keeps
libm for all of these.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# measured, rounded up
ULP_BOUNDS = {"exp": 1.0, "log": 1.0, "tanh": 1.5, "sigmoid": 2.5, "log1p": 1.3}

# Only contraction (a * b + c -> fma where the CPU has one): it halves the polynomial work and
# cannot make a result less accurate than the bounds measured with and without FMA. The flag
# sits on these functions' own instructions, so a kernel's arithmetic around a call is never
# contracted.
_FM = {"contract"}


@intrinsic
def _bits_to_f32(typingctx, bits):
    """Reinterpret an int32 as float32 (an LLVM bitcast, which vectorises)."""
    if bits != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@intrinsic
def _f32_to_bits(typingctx, value):
    """Reinterpret a float32 as int32."""
    if value != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.int32(types.float32), codegen


_F = np.float32
_LOG2E = _F(1.44269504088896341)
_LN2_HI = _F(0.693359375)            # few mantissa bits: n * _LN2_HI is exact
_LN2_LO = _F(-2.12194440e-4)
_EXP_LO = _F(-104.0)
_EXP_HI = _F(89.0)
_E0, _E1, _E2 = _F(0.5), _F(0.1666666716337204), _F(0.04166646674275398)
_E3, _E4, _E5 = _F(0.00833328627049923), _F(0.0013933642767369747), _F(0.00019907570094801486)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def exp_f32(x):
    """e**x for float32, max error 1 ulp (see the module docstring)."""
    y = _EXP_LO if x < _EXP_LO else x
    y = _EXP_HI if y > _EXP_HI else y
    y = _F(0.0) if y != y else y     # a NaN would reach int32(n), which LLVM leaves undefined
    n = np.rint(y * _LOG2E)
    r = (y - n * _LN2_HI) - n * _LN2_LO
    p = _E0 + r * (_E1 + r * (_E2 + r * (_E3 + r * (_E4 + r * _E5))))
    p = _F(1.0) + (r + r * r * p)
    k = np.int32(n)
    k1 = k >> np.int32(1)
    k2 = k - k1
    s1 = _bits_to_f32(np.int32((k1 + np.int32(127)) << np.int32(23)))
    s2 = _bits_to_f32(np.int32((k2 + np.int32(127)) << np.int32(23)))
    result = p * s1 * s2
    return x if x != x else result


@njit(cache=True, error_model="numpy", fastmath=_FM)
def _pow2_f32(k):
    """2.0**k for -126 <= k <= 127, from exponent bits."""
    return _bits_to_f32(np.int32((k + np.int32(127)) << np.int32(23)))


@njit(cache=True, error_model="numpy", fastmath=_FM)
def expm1_f32(x):
    """e**x - 1 for float32: exp_f32's reduction and polynomial without its constant term, then
    2**n (em1 + (1 - 2**-n)) (n > 0) or 2**n em1 + (2**n - 1) (n < 0)."""
    y = _F(-18.0) if x < _F(-18.0) else x      # (below, e**x is under half an ulp of 1)
    y = _EXP_HI if y > _EXP_HI else y
    y = _F(0.0) if y != y else y
    n = np.rint(y * _LOG2E)
    r = (y - n * _LN2_HI) - n * _LN2_LO
    em1 = r + r * r * (_E0 + r * (_E1 + r * (_E2 + r * (_E3 + r * (_E4 + r * _E5)))))
    k = np.int32(n)
    k1 = k >> np.int32(1)
    # (1 - 2**-k rounds to 1 from k = 25 on)
    low = _pow2_f32(-k if k < np.int32(25) else np.int32(-25))
    up = ((em1 + (_F(1.0) - low)) * _pow2_f32(k1)) * _pow2_f32(k - k1)
    scale = _pow2_f32(k if k < np.int32(0) else np.int32(0))
    down = em1 * scale + (scale - _F(1.0))
    result = up if k > np.int32(0) else down
    result = _F(-1.0) if x < _F(-18.0) else result
    return x if (x != x) | (x == _F(0.0)) else result


_SQRT_HALF = _F(0.70710678118654752)
_L0, _L1, _L2, _L3 = (_F(0.666666567325592), _F(0.4000440537929535), _F(0.2816190719604492),
                      _F(0.32153743505477905))
_TINY = _F(1.17549435e-38)
_TWO23 = _F(8388608.0)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def _log_parts(x, shift):
    """(e, log m) with x 2**shift = m 2**e, m in [sqrt(1/2), sqrt(2)), for a positive normal
    float32 x."""
    bits = _f32_to_bits(x)
    e = np.int32(((bits >> np.int32(23)) & np.int32(255)) - np.int32(127) + shift)
    m = _bits_to_f32(np.int32((bits & np.int32(0x7FFFFF)) | np.int32(0x3F800000)))   # in [1, 2)
    big = m > _F(1.4142135623730951)
    m = m * _F(0.5) if big else m
    e = np.int32(e + np.int32(1)) if big else e
    f = m - _F(1.0)
    s = f / (m + _F(1.0))
    u = s * s
    # log m = 2s + s R with R = u P(u); 2s = f - hfsq + s hfsq keeps the exact f leading.
    hfsq = _F(0.5) * f * f
    r = u * (_L0 + u * (_L1 + u * (_L2 + u * _L3)))
    logm = f - (hfsq - s * (hfsq + r))
    return _F(e), logm


@njit(cache=True, error_model="numpy", fastmath=_FM)
def _log_normal(x, shift):
    """log(x 2**shift) for a positive normal float32 x: the common part of log and log1p."""
    ef, logm = _log_parts(x, shift)
    return ef * _LN2_HI + (logm + ef * _LN2_LO)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def _log_any(x, result):
    """``result`` made log's value at +-0, below 0, NaN and inf."""
    result = -np.inf if x == _F(0.0) else result
    result = np.nan if x < _F(0.0) else result
    return x if (x != x or x == np.inf) else result


@njit(cache=True, error_model="numpy", fastmath=_FM)
def log_f32(x):
    """Natural log for float32, max error 1 ulp (see the module docstring)."""
    sub = x < _TINY
    # (subnormals scaled by 2**23 into the normal range, and 23 taken off the exponent)
    return _log_any(x, _log_normal(x * _TWO23 if sub else x,
                                   np.int32(-23) if sub else np.int32(0)))


_INV_LN2 = _F(1.4426950408889634)
_INV_LN10 = _F(0.4342944819032518)
_LOG10_2_HI = _F(0.30102539)            # log10(2) in 16 bits: e * _LOG10_2_HI is exact
_LOG10_2_LO = _F(4.6050389811952132e-06)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def log2_f32(x):
    """Base-2 log for float32: e + log(m) / ln 2 (exact at powers of two)."""
    sub = x < _TINY
    ef, logm = _log_parts(x * _TWO23 if sub else x, np.int32(-23) if sub else np.int32(0))
    return _log_any(x, ef + logm * _INV_LN2)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def log10_f32(x):
    """Base-10 log for float32: e log10(2) + log(m) / ln 10, log10(2) in two parts."""
    sub = x < _TINY
    ef, logm = _log_parts(x * _TWO23 if sub else x, np.int32(-23) if sub else np.int32(0))
    return _log_any(x, ef * _LOG10_2_HI + (logm * _INV_LN10 + ef * _LOG10_2_LO))


@njit(cache=True, error_model="numpy", fastmath=_FM)
def log1p_f32(x):
    """log(1 + x) for float32: log(u) + c / u, where u = 1 + x rounded and c the rounding's
    error (Fast2Sum, exact); max error 1 ulp (see the module docstring)."""
    u = _F(1.0) + x
    c = (x - (u - _F(1.0))) if abs(x) <= _F(1.0) else (_F(1.0) - (u - x))
    # (u is 0 or at least 2**-24 when x >= -1: never subnormal; other x are handled below)
    v = _F(1.0) if not u >= _TINY else u
    result = _log_normal(v, np.int32(0)) + c / v
    # near 0, where u's rounding costs log(u) its relative accuracy: the Taylor series (its
    # next term is below 2**-33 relative for |x| < 2**-7)
    q = _F(-0.5) + x * (_F(1 / 3) + x * (_F(-0.25) + x * (_F(0.2) + x * _F(-1 / 6))))
    result = x + x * x * q if abs(x) < _F(0.0078125) else result
    result = -np.inf if x == _F(-1.0) else result
    result = np.nan if x < _F(-1.0) else result
    return x if (x != x) | (x == np.inf) | (x == _F(0.0)) else result


_T0, _T1, _T2 = _F(-0.3333333432674408), _F(0.13333266973495483), _F(-0.05395108461380005)
_T3, _T4, _T5 = _F(0.02170661836862564), _F(-0.008152573369443417), _F(0.0020889409352093935)


_TANH_CLAMP = _F(20.0)               # tanh is exactly +-1 in float32 from |x| ~ 9.01 on


@njit(cache=True, error_model="numpy", fastmath=_FM)
def _exp_pos(y):
    """e**y for 0 <= y <= 20 (or NaN): exp_f32 without its range checks and with a single
    power-of-two factor, which is exact here (n <= 29)."""
    n = np.rint(y * _LOG2E)
    r = (y - n * _LN2_HI) - n * _LN2_LO
    p = _E0 + r * (_E1 + r * (_E2 + r * (_E3 + r * (_E4 + r * _E5))))
    p = _F(1.0) + (r + r * r * p)
    # (n is NaN only when y is, and then p is NaN whatever the factor)
    return p * _bits_to_f32(np.int32((np.int32(n) + np.int32(127)) << np.int32(23)))


@njit(cache=True, error_model="numpy", fastmath=_FM)
def tanh_f32(x):
    """Hyperbolic tangent for float32, max error 2 ulp (see the module docstring)."""
    a = abs(x)
    u = x * x
    small = x + x * u * (_T0 + u * (_T1 + u * (_T2 + u * (_T3 + u * (_T4 + u * _T5)))))
    y = a + a
    # (not y <= clamp) also takes NaN: int32(NaN) in _exp_pos would be undefined in LLVM, and
    # gave a different garbage value from call to call
    y = _TANH_CLAMP if not y <= _TANH_CLAMP else y
    big = _F(1.0) - _F(2.0) / (_exp_pos(y) + _F(1.0))
    # tanh is odd: the result takes x's sign, -0.0 included (copysign is exact and vectorises)
    result = np.copysign(small if a < _F(0.625) else big, x)
    return x if x != x else result


@njit(cache=True, error_model="numpy", fastmath=_FM)
def sigmoid_f32(x):
    """1 / (1 + e**-x) for float32, max error 2 ulp down to -87.3; exactly 0 below -88.72,
    where e**-x overflows, as in the reference (the operator library) and PyTorch. (The stable
    e**x / (1 + e**x) kept subnormal results down to -103.9; the subnormal arithmetic that needs
    made an LSTM cell on 512 x 1024 matmul outputs ~4x slower.)"""
    one = _F(1.0)
    return one / (one + exp_f32(-x))


# (inlined by Numba: LLVM's inliner leaves this one a call, over its size threshold, and a call
# keeps the kernel's loop from vectorising)
@njit(cache=True, error_model="numpy", fastmath=_FM, inline="always")
def sinh_f32(x):
    """Hyperbolic sine for float32: (e + e / (e + 1)) / 2 with e = expm1(|x|); from 88, where
    e overflows before sinh does, (e**(|x|/2) / 2) e**(|x|/2)."""
    a = abs(x)
    e = expm1_f32(a if a < _F(88.0) else _F(0.0))
    v = _F(0.5) * (e + e / (e + _F(1.0)))
    h = _exp_pos(_F(0.5) * min(a, _F(90.0)))
    v = v if a < _F(88.0) else (_F(0.5) * h) * h
    return x if x != x else np.copysign(v, x)


@njit(cache=True, error_model="numpy", fastmath=_FM)
def cosh_f32(x):
    """Hyperbolic cosine for float32: e / 2 + 1 / (2 e) with e = exp(|x|), and as sinh_f32
    from 88."""
    a = abs(x)
    e = exp_f32(a if a < _F(88.0) else _F(0.0))
    v = _F(0.5) * e + _F(0.5) / e
    h = _exp_pos(_F(0.5) * min(a, _F(90.0)))
    v = v if a < _F(88.0) else (_F(0.5) * h) * h
    return x if x != x else v


# --- measuring ---------------------------------------------------------------------------------

@njit(cache=True, parallel=False, error_model="numpy")
def _apply(which, x, out):
    for i in range(x.size):
        v = x[i]
        if which == 0:
            out[i] = exp_f32(v)
        elif which == 1:
            out[i] = log_f32(v)
        elif which == 2:
            out[i] = tanh_f32(v)
        elif which == 3:
            out[i] = sigmoid_f32(v)
        else:
            out[i] = log1p_f32(v)


_NAMES = ("exp", "log", "tanh", "sigmoid", "log1p")


def _reference(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)
        if name == "exp":
            return np.exp(d)
        if name == "log":
            return np.log(d)
        if name == "tanh":
            return np.tanh(d)
        if name == "log1p":
            return np.log1p(d)
        # 1 / (1 + e**-x), with e**-x overflowing where float32's does (the reference's sigmoid)
        e = np.exp(-d)
        return np.where(e > np.finfo(np.float32).max, 0.0, 1.0 / (1.0 + e))


def ulp_errors(name: str, x: np.ndarray, got: np.ndarray | None = None) -> np.ndarray:
    """Error of the fast ``name`` at float32 inputs ``x``, in ulps of the correctly rounded result.

    NaN/inf mismatches count as infinite error; both NaN (or the same infinity) as 0. ``got``
    replaces the fast function's results (to check this measure itself).
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    if got is None:
        got = np.empty_like(x)
        _apply(_NAMES.index(name), x, got)
    ref = _reference(name, x)
    with np.errstate(all="ignore"):
        want = ref.astype(np.float32)
        # Spacing of the float32 grid at the exact value (the smaller one at a power of two).
        unit = np.spacing(np.abs(want)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - ref) / unit
    special = ~np.isfinite(want) | ~np.isfinite(got)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    err[special] = np.where(same[special], 0.0, np.inf)
    return err


def sweep(name: str, step: int = 1, chunk: int = 1 << 24) -> tuple[float, float]:
    """Max ulp error of ``name`` over every ``step``-th float32 bit pattern; (max, worst input)."""
    worst, where = 0.0, 0.0
    for start in range(0, 1 << 32, chunk):
        bits = np.arange(start, min(start + chunk, 1 << 32), step, dtype=np.uint64)
        x = bits.astype(np.uint32).view(np.float32)
        err = ulp_errors(name, x)
        i = int(np.argmax(err))
        if err[i] > worst:
            worst, where = float(err[i]), float(x[i])
    return worst, where


if __name__ == "__main__":      # python -m fusejit.runtime.fusion.fastmath --sweep
    step = 1 if "--sweep" in sys.argv else 4099
    for fn in _NAMES:
        err, at = sweep(fn, step)
        print(f"{fn:8s} max {err:.3f} ulp at x = {at!r} (every {step}th bit pattern)")
