"""Vectorisable float64 inverse trigonometric functions for generated kernels: asin, acos, atan
and atan2, companions of ``vecmath`` (same rules: arithmetic, comparisons, selects, ``sqrt``,
``fma`` and bit casts, which LLVM vectorises)::

    %3 : Double(*) = aten::asin(%2)      ->      t3 = vi.asin_f64(t2)

Methods (every branch is a select: both sides are computed, then one is kept):

- ``atan``: |x| reduced to |t| <= 7/16 by t = (|x| - c) / (1 + c |x|), c in {0, 1/2, 1} (c = 1
  up to 39/16, where fdlibm takes 3/2 from 19/16: three selects fewer, 1.11 -> 0.91 ns an
  element, one thread, NumPy 1.45 in the same run; still within 1 ulp of NumPy's),
  or t = -1/|x|; atan(t) = t - t z P(z) with fdlibm's published coefficients (by Horner's
  rule: ``vecmath._exp_poly`` says why); plus atan(c) in two parts. ``atan2``: the same steps
  (c in {0, 1/2, 1}) on the smaller over the larger magnitude, both reductions in one quotient
  (mn - c mx) / (mx + c mn), so one division (it took three: 1.94 -> 1.47 ns an element, one
  thread, data in cache, NumPy 1.77 in the same run); then the quadrant.
- ``asin``/``acos``: fdlibm's reduction, asin(x) = pi/2 - 2 asin(sqrt((1 - |x|) / 2)) for
  |x| >= 1/2, so that one argument s in [0, 1/2] with t = s**2 serves both ranges; but where
  fdlibm evaluates a rational R(t) = P(t) / Q(t) (a division, which cost more than everything
  else), asin(s) = s + s t Q(t) with Q a polynomial of degree 12 fitted here, so there is no
  division; acos from the same pieces. The square root's rounding is not compensated (fdlibm
  splits it in two, which takes another division): asin is 2 ulp at worst, just above 1/2.

Their measured errors are in ``vecmath``'s table.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .vecmath import _BIG, _INF, _OPTS, _PI, _fma

_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)
_ATAN_HALF = (4.63647609000806093515e-01, 2.26987774529616870924e-17)
_ATAN_ONE = (7.85398163397448278999e-01, 3.06161699786838301793e-17)
_ATAN_INF = (1.57079632679489655800e+00, 6.12323399573676603587e-17)


@njit(**_OPTS)
def _atan_reduced(t):
    """atan(t) for |t| <= 7/16: t - t z P(z), z = t**2 (fdlibm's coefficients)."""
    z = t * t
    c = _AT
    p = _fma(_fma(_fma(_fma(_fma(c[10], z, c[9]), z, c[8]), z, c[7]), z, c[6]), z, c[5])
    p = _fma(_fma(_fma(_fma(_fma(p, z, c[4]), z, c[3]), z, c[2]), z, c[1]), z, c[0])
    return t - t * z * p


@njit(**_OPTS)
def _atan_pos(a):
    """atan(a) for a >= 0 (inf included; NaN gives NaN)."""
    # (fdlibm's intervals less the one of c = 3/2: c = 1 from 11/16 up to 39/16 keeps
    # |t| <= 7/16, and pi/4 + atan(t) does not cancel there. Taking c = 1 from 7/16 too, one
    # more select fewer, reached 2 ulp just above 1/2, where pi/4 + atan(t) cancels)
    c = 0.0 if a < 0.4375 else (0.5 if a < 0.6875 else 1.0)
    hi = 0.0 if a < 0.4375 else (_ATAN_HALF[0] if a < 0.6875 else _ATAN_ONE[0])
    lo = 0.0 if a < 0.4375 else (_ATAN_HALF[1] if a < 0.6875 else _ATAN_ONE[1])
    far = a >= 2.4375
    t = (-1.0 if far else a - c) / (a if far else 1.0 + c * a)     # (one division)
    hi = _ATAN_INF[0] if far else hi
    lo = _ATAN_INF[1] if far else lo
    return hi + (_atan_reduced(t) + lo)


@njit(**_BIG)
def atan_f64(x):
    """Arc tangent for float64."""
    return np.copysign(_atan_pos(abs(x)), x)


# (asin(sqrt(t)) / sqrt(t) - 1) / t for 0 <= t <= 1/4: degree 12, interpolated at the
# Chebyshev nodes (mpmath, 50 digits); off by 2.2e-17 at most, 5.4e-18 once times t
_ASIN_Q = (0.16666666666666669, 0.07499999999998433, 0.04464285714635543, 0.030381944138531247,
           0.02237217294214989, 0.017352392720869973, 0.013971212973552933,
           0.011479177415184906, 0.01032281435018578, 0.005457506718640358, 0.01740087944269402,
           -0.014851887071247204, 0.028757851367421566)
_PIO4_HI = 7.85398163397448278999e-01


@njit(**_OPTS)
def _asin_parts(a):
    """For 0 <= a <= 1: (s, q) with asin(s) = s + q, s = a below 0.5, else
    s = sqrt((1 - a) / 2) (0 <= s <= 1/2 either way), q = s t Q(t), t = s**2 (a**2 or
    (1 - a) / 2, exact). One polynomial serves both ranges, so there is no division (fdlibm's
    rational, evaluated for both, cost a division that took longer than all the rest)."""
    small = a < 0.5
    t = a * a if small else 0.5 - 0.5 * a
    s = a if small else math.sqrt(t)
    c = _ASIN_Q
    q = _fma(_fma(_fma(_fma(_fma(_fma(c[12], t, c[11]), t, c[10]), t, c[9]), t, c[8]), t, c[7]),
             t, c[6])
    q = _fma(_fma(_fma(_fma(_fma(_fma(q, t, c[5]), t, c[4]), t, c[3]), t, c[2]), t, c[1]), t,
             c[0])
    return s, s * t * q


@njit(**_BIG)
def asin_f64(x):
    """Arc sine for float64: s + q below 0.5, else pi/2 - 2 asin(s) = pi/4 + (pi/4 - 2s) - 2q
    (the terms ordered as fdlibm orders them); NaN outside [-1, 1]."""
    a = abs(x)
    s, q = _asin_parts(a)
    mid = _PIO4_HI - ((2.0 * q - _ATAN_INF[1]) - (_PIO4_HI - 2.0 * s))
    v = s + q if a < 0.5 else mid
    # (a > 1, inf included: s = sqrt of a negative number, NaN; NaN stays NaN throughout)
    return np.copysign(v, x)


@njit(**_BIG)
def acos_f64(x):
    """Arc cosine for float64 (fdlibm's method): pi/2 - asin(x) below 0.5 in magnitude, else
    2 asin(sqrt((1 -+ x) / 2)) (from pi for x < 0); NaN outside [-1, 1]."""
    a = abs(x)
    s, q = _asin_parts(a)
    q = np.copysign(q, x)
    small = _ATAN_INF[0] - (x - (_ATAN_INF[1] - q))
    low = _PI - 2.0 * (s + (-q - _ATAN_INF[1]))                              # x <= -0.5
    high = 2.0 * (s + q)                                                     # x >= 0.5
    v = small if a < 0.5 else (low if x < 0.0 else high)
    return x if x != x else v           # (a > 1: s and so v are NaN, as in asin_f64)


# above this, atan2's operands are halved, so that mx + c mn cannot overflow (the ratio is
# unchanged; exact, except where the smaller one then loses a subnormal bit, 2**-2000 below mx)
_HUGE = 2.0 ** 1020


@njit(**_BIG)
def atan2_f64(y, x):
    """atan2(y, x) for float64, with C99's signed zeros and infinities: with u = mn / mx <= 1
    (the smaller magnitude over the larger), atan(u) = atan(c) + atan((mn - c mx) / (mx + c mn))
    for c in {0, 1/2, 1} (fdlibm's steps for u <= 1), one reciprocal for the quotient of
    both reductions (the form before took three divisions); then the quadrant."""
    a, b = abs(y), abs(x)
    swap = a > b
    mx = a if swap else b
    mn = b if swap else a
    s = 0.5 if mx > _HUGE else 1.0
    mx = mx * s
    mn = mn * s
    c = 0.0 if mn < 0.4375 * mx else (0.5 if mn < 0.6875 * mx else 1.0)
    hi = 0.0 if mn < 0.4375 * mx else (_ATAN_HALF[0] if mn < 0.6875 * mx else _ATAN_ONE[0])
    lo = 0.0 if mn < 0.4375 * mx else (_ATAN_HALF[1] if mn < 0.6875 * mx else _ATAN_ONE[1])
    t = _fma(-c, mx, mn) / _fma(c, mn, mx)
    v = hi + (_atan_reduced(t) + lo)
    # (mn = 0, both zero included, and an infinite mx with a finite mn: atan(0); both
    # infinite: atan(1). Their quotients above are garbage, and not used)
    v = 0.0 if mn == 0.0 else v
    v = (_ATAN_ONE[0] if mn == _INF else 0.0) if mx == _INF else v
    v = (_ATAN_INF[0] - v + _ATAN_INF[1]) if swap else v
    v = (_PI - v) if np.signbit(x) else v
    v = np.copysign(v, y)
    return (x + y) if (x != x) | (y != y) else v
