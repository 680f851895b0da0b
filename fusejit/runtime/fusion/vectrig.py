"""Vectorisable float32 ``sin``, ``cos``, ``tan``, ``asin``, ``acos``, ``atan`` and ``atan2`` for
generated kernels, computed in float32 throughout.

A float64 step (an argument reduced in float64, a result rounded from float64) halves the
elements a vector instruction holds and adds conversions both ways; with it these ran at
0.2-0.5x NumPy's float32 ufuncs (SVML, 16 lanes). Here every step is float32 arithmetic, fused
multiply-adds, comparisons, selects, ``sqrt`` and one division at most (tan's a reciprocal
estimate refined by Newton's step and corrected by its residual, ``_divide``)::

    %3 : Float(*) = aten::sin(%2)       ->      t3 = vt.sin_f32(t2)         (precise=False)
                                        ->      t3 = math.sin(t2)           (precise=True)

Methods (every branch is a select: both sides are computed, then one is kept):

- ``sin``/``cos``/``tan``: x = m pi/2 + r, r by three fused multiply-adds with pi/2 in three
  float32 parts (Cody-Waite; the first is exact: m P1 and x are multiples of P1's last bit
  and |r| < 2). sin: m = 2 rint(x / pi), |r| <= pi/2, sin x = +-sin r; cos: m = 2n + 1 with
  n = rint(x / pi - 1/2), cos x = +-sin r; one polynomial sin r = r + r z S(z), z = r**2, S of
  degree 4 (fitted here, near-minimax by Lawson's iteration: below 2**-35 relative), the sign
  flipped by an xor of the quadrant's bit. tan: m = rint(x 2/pi) and its parity from the bits
  of x 2/pi + 1.5 * 2**23, |r| <= pi/4, t = r + r z T(z) (T of degree 6, below 2**-29),
  tan x = t or -1 / t.
  Valid for |x| <= ``TRIG_LIMIT_F32``; beyond, the kernel recomputes the element with libm
  (``loops``: the strip is computed again, with libm where the argument is out of range).
- ``atan``: |x| reduced to |t| <= 1/2 by t = |x| (|x| <= 1/2), (|x| - 1) / (|x| + 1) (+ pi/4,
  |x| <= 2; |x| - 1 is exact there) or -1 / |x| (+ pi/2), numerator and denominator chosen
  first so there is one division; atan t = t + t z Q(z), Q of degree 4 (below 2**-26.8
  relative; fitted here as S was), plus pi/4 or pi/2 in two parts, the low part hi's times a
  constant. (Degree 5, 2**-27.8, and two selects for the low part: 0.283 -> 0.274
  ns/element, one thread, a kernel-shaped loop, NumPy 0.367 in the same run.)
- ``atan2(y, x)``: a = min(|x|, |y|), b = max: t = a / b or (a - b) / (a + b) (+ pi/4) for
  a > b/2, atan t = t + t z P(z), P of degree 5 (2**-27.8: atan2's error has less room),
  then pi/2 - v where |y| > |x|, pi - v where x's sign bit is
  set (-0 too), y's sign; C99's zeros and infinities as NumPy's; both scaled by 1/4 above
  1e38 (a + b would overflow). Kernels take a short form without the zeros', infinities' and
  overflow's steps (``atan2_inside_f32``) for strips where every pair has
  0 < max(|x|, |y|) <= 1e38, and compute any other strip again with the full form (0.59 ->
  0.50 ns an element, one thread, a kernel's loop, NumPy 0.57 in the same run).
- ``asin``: |x| <= 0.6: |x| + |x| w P(w), w = x**2; above: pi/2 - 2 (s + s w P(w)) with
  w = (1 - |x|) / 2, s = sqrt(w) (asin a = pi/2 - 2 asin sqrt((1 - a) / 2)); one P of degree
  6 on [0, 0.36] (below 2**-30). Switching at 0.6, not 1/2, keeps pi/2 - 2p from cancelling
  (1.3 ulp against 2.3). NaN outside [-1, 1] (sqrt of a negative number).
- ``acos``: the same pieces: pi/2 - asin x for |x| <= 0.6, 2 asin sqrt((1 - x) / 2) above,
  pi - 2 asin sqrt((1 + x) / 2) below -0.6.

Constants near pi are split in two float32 parts (hi + lo) where a sum would lose a bit.

Measured maximum errors, against float64 libm unrounded, in float32 ulps, over all 2^32 float32
inputs (``python tools/ulp_sweep.py f32 NAME``; ``binary``: 10^8 random pairs for atan2), and
over every float32 of the ranges named (the second column). sin/cos/tan as the kernel computes
them, libm beyond ``TRIG_LIMIT_F32``. Measured on an AVX-512 + FMA host (Sapphire Rapids):

========  =======================  ==========================================  =========
function  all 2^32 (worst x)       every float32 of a range (worst x)          bound
========  =======================  ==========================================  =========
sin       1.995 (58328.336)        1.990 in [1, 64] (26.728529)                2.5
cos       1.995 (22.01614)         1.995 in [1, 64] (22.01614)                 2.5
tan       3.725 (62604.215)        2.429 in [0.5, 64], 2.743 in [2^16, 1e5]    3.8
asin      1.302 (0.64589196)       1.302 in [0.5, 1] (0.64589196)              1.5
acos      1.053 (0.6718147)        1.053 in [0.5, 1] (0.6718147)               1.5
atan      1.692 (0.50137407)       1.692 in [0.25, 4] (0.50137407)             2.0
atan2     1.752 (2.7347102, 5.3345175), 10^8 random pairs                      2.0
========  =======================  ==========================================  =========

The sine's single polynomial on |r| <= pi/2 is why sin and cos reach 2 ulp (r + r z S(z) near
r = pi/2 sums terms of 1.5 and -0.5): a reduction by pi/2 with a sine and a cosine polynomial
and a select between them was 1.4 ulp but 40% slower (0.48 against 0.34 ns/element, a bare
loop, one thread). ``ULPS`` holds the bounds the tests assert (the last column). NumPy's own
float32 sin/cos (SVML on AVX-512 hosts) are documented at up to 4 ulp.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .fastmath import _bits_to_f32, _f32_to_bits
from .vecmath import _BIG, _INLINE_IR, _fma

# The functions kernels call are always inlined (``vecmath._BIG``: LLVM's inliner leaves bigger
# ones as calls, and one call keeps a kernel's loop from vectorising) and carry no fastmath
# flag, as the kernels' own instructions, so a flag cannot fuse a * b + c here: the polynomials
# call ``_mad`` (llvm.fmuladd, fused where the CPU has FMA), the reduction ``_fma`` (always
# fused: its first step must be exact).
_FM = {"contract"}
_OPTS = {"cache": True, "error_model": "numpy", "fastmath": _FM}

# measured (the table above), rounded up
ULPS = {"sin": 2.5, "cos": 2.5, "tan": 3.8, "asin": 1.5, "acos": 1.5, "atan": 2.0,
        "atan2": 2.0}

_F = np.float32
_I = np.int32


@intrinsic
def _mad(typingctx, a, b, c):
    """a * b + c for float32, fused where the CPU has FMA (llvm.fmuladd), for polynomials."""
    if not (a == b == c == types.float32):
        return None

    def codegen(context, builder, signature, args):
        f32 = ir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [f32], ir.FunctionType(
            f32, [f32, f32, f32]))
        return builder.call(fn, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


# LLVM computes a division flagged "arcp" and "ninf" as a reciprocal estimate where the function
# asks for it (":0": without LLVM's own Newton step; ``_divide``'s residual step refines it):
# vdivps on 16 floats takes ~10 cycles of a divider that does not pipeline, which bounded tan
# (0.43 ns/element with vdivps or with LLVM's refinement, 0.35 with this, a bare loop). The
# estimate is vrcp14ps on AVX-512 (2**-14), so the quotient reaches ~2**-28; with AVX2's
# vrcpps (2**-12) about 2**-24, up to an ulp more in tan than the table says.
_RECIP_ATTRIBUTE = '"reciprocal-estimates"="divf:0,vec-divf:0"'


@intrinsic
def _recip_estimate(typingctx, b):
    """1 / b for finite, nonzero, normal float32 b to 2**-14 relative (AVX-512; see above: the
    caller refines it)."""
    if b != types.float32:
        return None

    def codegen(context, builder, signature, args):
        set.add(builder.function.attributes, _RECIP_ATTRIBUTE)
        one = ir.Constant(ir.FloatType(), 1.0)
        return builder.fdiv(one, args[0], flags=("arcp", "ninf"))
    return types.float32(types.float32), codegen


# (inlined by Numba, so that the estimate's attribute lands on the kernel's own function)
@njit(**_INLINE_IR)
def _divide(a, b):
    """a / b for finite, nonzero, normal float32 b, within about 1/2 ulp: q = a times b's
    reciprocal estimate, corrected by its residual a - b q (exact by fma), which squares the
    estimate's relative error."""
    y = _recip_estimate(b)
    q = a * y
    return _fma(_fma(-b, q, a), y, q)


# pi/2 to 60 digits, split into float32 parts: P1 + P2 + P3 = pi/2 to about 2**-75
_PI_2 = Fraction("1.57079632679489661923132169163975144209858469968755291048747")
_P1 = _F(float(_PI_2))
_P2 = _F(float(_PI_2 - Fraction(float(_P1))))
_P3 = _F(float(_PI_2 - Fraction(float(_P1)) - Fraction(float(_P2))))
_PIO2_HI, _PIO2_LO = _P1, _P2                    # pi/2 as two float32s
_PIO4_HI = _F(float(_PI_2 / 2))
_PIO4_LO = _F(float(_PI_2 / 2 - Fraction(float(_PIO4_HI))))
_PI_HI = _F(float(_PI_2 * 2))
_PI_LO = _F(float(_PI_2 * 2 - Fraction(float(_PI_HI))))
_TWO_OVER_PI = _F(0.63661977236758134)
_ONE_OVER_PI = _F(0.31830988618379067)

# |x| beyond this: libm in the kernel's fix-up pass (the reduction's error, n P2's rounding and
# P1 + P2 + P3's truncation, grows with n)
TRIG_LIMIT_F32 = 1.0e5

# sin r = r + r z S(z), z = r**2, |r| <= pi/2
_S0, _S1, _S2 = _F(-0.1666666716337204), _F(0.008333330973982811), _F(-0.0001984086848096922)
_S3, _S4 = _F(2.7525370569492225e-06), _F(-2.388867592628685e-08)
# tan r = r + r z T(z), |r| <= pi/4
_T0, _T1, _T2 = _F(0.33333349227905273), _F(0.13332661986351013), _F(0.054060034453868866)
_T3, _T4, _T5 = _F(0.02128155715763569), _F(0.010837485082447529), _F(8.736611198401079e-05)
_T6 = _F(0.004377369303256273)


@njit(**_OPTS)
def _reduce(x, m):
    """x - m pi/2 for a whole number m (|x| <= TRIG_LIMIT_F32)."""
    r = _fma(-m, _P1, x)            # exact
    r = _fma(-m, _P2, r)
    return _fma(-m, _P3, r)


@njit(**_OPTS)
def _in_range(x):
    """x where the fast forms take it, else 0 (also for NaN: int32(NaN) is undefined)."""
    return x if abs(x) <= _F(TRIG_LIMIT_F32) else _F(0.0)


@njit(**_OPTS)
def _sin_poly(r):
    z = r * r
    p = _mad(_mad(_mad(_mad(_S4, z, _S3), z, _S2), z, _S1), z, _S0)
    return _mad(r * z, p, r)


@njit(**_OPTS)
def _negated_if(v, bit):
    """-v where int32 ``bit`` is 2, v where it is 0 (flips the sign bit: no select)."""
    return _bits_to_f32(_I(_f32_to_bits(v) ^ _I(bit << _I(30))))


@njit(**_OPTS)
def _finish(x, v):
    """``v``, or NaN where x is infinite or NaN."""
    return v if abs(x) < np.inf else x - x          # (inf - inf and NaN give NaN)


@njit(**_BIG)
def sin_f32(x):
    """Sine for float32 with |x| <= TRIG_LIMIT_F32 (the kernel fixes up the rest):
    x = n pi + r, sin x = (-1)**n sin r."""
    y = _in_range(x)
    m = _F(2.0) * np.rint(y * _ONE_OVER_PI)
    v = _negated_if(_sin_poly(_reduce(y, m)), _I(m) & _I(2))
    return _finish(x, x if x == _F(0.0) else v)      # (sin -0 is -0)


@njit(**_BIG)
def cos_f32(x):
    """Cosine for float32 with |x| <= TRIG_LIMIT_F32 (the kernel fixes up the rest):
    x = (n + 1/2) pi + r, cos x = (-1)**(n + 1) sin r."""
    y = _in_range(x)
    m = _F(2.0) * np.rint(y * _ONE_OVER_PI - _F(0.5)) + _F(1.0)      # (2n + 1)
    v = _negated_if(_sin_poly(_reduce(y, m)), (_I(m) & _I(2)) ^ _I(2))
    # (sin r at r = -pi/2 is 1 ulp off 1: cos x is 1 below 2**-12, where x**2 / 2 < 2**-25)
    return _finish(x, _F(1.0) if abs(x) < _F(2.0 ** -12) else v)


# x 2/pi + _SHIFTER (1.5 * 2**23) is rounded to a whole number, whose parity is its last bit
# (for |x 2/pi| < 2**22)
_SHIFTER = _F(12582912.0)


@njit(**_INLINE_IR)     # (calls _divide: inlined by Numba as well)
def tan_f32(x):
    """Tangent for float32 with |x| <= TRIG_LIMIT_F32 (the kernel fixes up the rest):
    x = n pi/2 + r, tan x = tan r (n even) or -1 / tan r (n odd)."""
    # No range select and no conversion to an integer: n and its parity come from the bits of
    # x 2/pi + _SHIFTER, defined for every x (NaN and inf give NaN all through; beyond the
    # limit the kernel's fix-up replaces the value), where int32(NaN) would be undefined. (Two
    # rounding instructions and a comparison before: vrndscaleps is two µops.)
    k = _fma(x, _TWO_OVER_PI, _SHIFTER)
    n = k - _SHIFTER
    r = _reduce(x, n)
    z = r * r
    p = _mad(_mad(_mad(_mad(_mad(_mad(_T6, z, _T5), z, _T4), z, _T3), z, _T2), z, _T1), z, _T0)
    t = _mad(r * z, p, r)
    odd = (_f32_to_bits(k) & _I(1)) != _I(0)
    v = _divide(_F(-1.0), t) if odd else t          # (t is not 0 where n is odd)
    return x if x == _F(0.0) else v


# --- inverse trigonometric ----------------------------------------------------------------------

# atan t = t + t z P(z), z = t**2, |t| <= 1/2 (atan2's; below 2**-27.8 relative)
_A0, _A1, _A2 = _F(-0.333333283662796), _F(0.19999489188194275), _F(-0.14272074401378632)
_A3, _A4, _A5 = _F(0.10940941423177719), _F(-0.07983899861574173), _F(0.03872082754969597)


# _PIO4_LO / _PIO4_HI, which is also _PIO2_LO / _PIO2_HI (both parts of pi/2 are twice those of
# pi/4, exactly): hi times it is lo to 2**-24 of lo
_LO_OVER_HI = _F(float(_PIO4_LO) / float(_PIO4_HI))


@njit(**_OPTS)
def _atan_poly(t):
    z = t * t
    p = _mad(_mad(_mad(_mad(_mad(_A5, z, _A4), z, _A3), z, _A2), z, _A1), z, _A0)
    return _mad(t * z, p, t)


# atan t = t + t z Q(z), |t| <= 1/2, one degree lower than P (for atan alone: below 2**-26.8
# relative against P's 2**-27.8, an ulp of float32 being 2**-24 to 2**-23)
_Q0, _Q1, _Q2 = _F(-0.3333323299884796), _F(0.19994226098060608), _F(-0.14175011217594147)
_Q3, _Q4 = _F(0.10160017013549805), _F(-0.05132600665092468)


@njit(**_OPTS)
def _atan_poly4(t):
    z = t * t
    p = _mad(_mad(_mad(_mad(_Q4, z, _Q3), z, _Q2), z, _Q1), z, _Q0)
    return _mad(t * z, p, t)


@njit(**_BIG)
def atan_f32(x):
    """Arc tangent for float32 (see the module docstring)."""
    a = abs(x)
    far = a > _F(2.0)
    mid = a > _F(0.5)
    num = _F(-1.0) if far else (a - _F(1.0) if mid else a)
    den = a if far else (a + _F(1.0) if mid else _F(1.0))
    hi = _PIO2_HI if far else (_PIO4_HI if mid else _F(0.0))
    # (a = inf: -1 / inf = -0, pi/2; NaN stays NaN through the division. A true division:
    # the reciprocal estimate made atan slower, 0.39 -> 0.45 ns/element, a bare loop. The low
    # part of pi/2 or pi/4 is hi's times one constant: a product instead of two selects)
    v = hi + _mad(hi, _LO_OVER_HI, _atan_poly4(num / den))
    return np.copysign(v, x)


# above this a + b (atan2's reduction) could overflow
_ATAN2_HUGE = _F(1e38)


@njit(**_OPTS)
def _atan2_quadrant(y, x, v, mid, swap):
    """atan2(y, x) from v = atan(t) and the reduction's choices (``atan2_f32``)."""
    v = (_PIO4_HI + (v + _PIO4_LO)) if mid else v
    v = (_PIO2_HI + (_PIO2_LO - v)) if swap else v
    v = (_PI_HI + (_PI_LO - v)) if np.signbit(x) else v
    return np.copysign(v, y)


@njit(**_BIG)
def atan2_f32(y, x):
    """atan2(y, x) for float32, with C99's signed zeros and infinities (as NumPy's)."""
    ay, ax = abs(y), abs(x)
    swap = ay > ax
    a = ax if swap else ay
    b = ay if swap else ax
    both_inf = (a == np.inf) & (b == np.inf)
    a = _F(1.0) if both_inf else a
    b = _F(1.0) if both_inf else b
    # a + b below would overflow: both scaled by 1/4 (exact where it matters: a >= b/2 there)
    huge = b > _ATAN2_HUGE
    a = a * _F(0.25) if huge else a
    b = b * _F(0.25) if huge else b
    mid = a > _F(0.5) * b
    num = a - b if mid else a
    den = a + b if mid else b
    # both zero: 0 / 1 (atan2(+-0, +-0) is +-0 or +-pi). A NaN x or y stays NaN from here on
    # (a NaN a or b reaches the division, b == 0 and both_inf never hold for it): no test
    den = _F(1.0) if b == _F(0.0) else den
    return _atan2_quadrant(y, x, _atan_poly(num / den), mid, swap)


# Kernels take ``atan2_inside_f32`` for strips where ``atan2_outside_f32`` is false for every pair
# (the larger magnitude nonzero and at most _ATAN2_HUGE, the smaller finite or NaN); a strip
# holding another pair is computed again with ``atan2_f32``: the zeros', infinities' and
# overflow's selects took 11 of the loop's ~47 vector instructions, the strip's test takes 3.


@njit(**_OPTS)
def atan2_outside_f32(y, x):
    """Is (y, x) outside ``atan2_inside_f32``'s domain (0 < max(|x|, |y|) <= 1e38, so not
    infinite, nor NaN where |x| is)? (The same max as the short form's: LLVM computes it once.)"""
    ay, ax = abs(y), abs(x)
    b = ay if ay > ax else ax
    return not ((b > _F(0.0)) & (b <= _ATAN2_HUGE))


@njit(**_BIG)
def atan2_inside_f32(y, x):
    """``atan2_f32`` where not ``atan2_outside_f32(y, x)`` (a NaN y gives NaN: it reaches the
    division)."""
    ay, ax = abs(y), abs(x)
    swap = ay > ax
    a = ax if swap else ay
    b = ay if swap else ax
    mid = a > _F(0.5) * b
    num = a - b if mid else a
    den = a + b if mid else b
    return _atan2_quadrant(y, x, _atan_poly(num / den), mid, swap)


# asin u = u + u w P(w), w = u**2 <= 0.36
_B0, _B1, _B2 = _F(0.16666677594184875), _F(0.07499242573976517), _F(0.04481632262468338)
_B3, _B4, _B5 = _F(0.028520889580249786), _F(0.03281203657388687), _F(-0.013384278863668442)
_B6 = _F(0.05554802715778351)
# asin(a) directly up to here; above, through sqrt((1 - a) / 2) (where the direct polynomial
# would need many more terms), not from 1/2 on: just above 1/2, pi/2 - 2p cancels a bit.
_ASIN_SPLIT = _F(0.6)


@njit(**_OPTS)
def _asin_parts(a):
    """(small, p): for a = |x| <= 0.6, small and p = asin a; above, p = asin sqrt((1 - a) / 2)
    (NaN for a > 1)."""
    small = a <= _ASIN_SPLIT
    w = a * a if small else _F(0.5) * (_F(1.0) - a)
    u = a if small else np.sqrt(w)
    p = _mad(_mad(_mad(_mad(_mad(_mad(_B6, w, _B5), w, _B4), w, _B3), w, _B2), w, _B1), w, _B0)
    return small, _mad(u * w, p, u)


@njit(**_BIG)
def asin_f32(x):
    """Arc sine for float32, NaN outside [-1, 1]."""
    small, p = _asin_parts(abs(x))
    v = p if small else _PIO2_HI - (_F(2.0) * p - _PIO2_LO)
    return np.copysign(v, x)


@njit(**_BIG)
def acos_f32(x):
    """Arc cosine for float32, NaN outside [-1, 1]."""
    a = abs(x)
    small, p = _asin_parts(a)
    # (small: p = asin |x|, signed as x)
    v = _PIO2_HI - (np.copysign(p, x) - _PIO2_LO) if small else _F(2.0) * p
    return _PI_HI - (v - _PI_LO) if (not small) & (x < _F(0.0)) else v
