"""Vectorisable lgamma (float64; float32 in float32 for x > 0) for generated kernels.

A companion of ``vecmath`` and ``vecspecial`` (the same rules: arithmetic, selects, bit casts
and ``vecmath``'s log and sine, so LLVM vectorises a loop that calls it); before it, lgamma was
libm in a loop of its own::

    %3 : Float(*) = aten::lgamma(%2)      ->      t3 = vl.lgamma_f32(t2)

Method: fdlibm's (``e_lgamma_r.c``) with its published coefficients, made branch-free (every
lane computes every range's polynomial and keeps its own), for a = |x|:

- a < 2^-70: -log a;
- a < 2: around the zeros, lgamma(1 + y) and lgamma(2 - y) by polynomials in y (so the result
  keeps its relative accuracy as it goes to 0 at 1 and 2), around the minimum tc = 1.4616 by a
  polynomial in a - tc, near 0 and 1 by a rational function; below 0.9 lgamma(a + 1) - log a;
- 2 <= a < 8: i = floor(a), lgamma(2 + f) by a rational function of f = a - i, plus
  log((f + 2) (f + 3) ... (f + i - 1)) (the product's factors selected per lane);
- 8 <= a < 2^58: Stirling, (a - 1/2)(log a - 1) + w(1/a) with w a minimax polynomial;
- a >= 2^58: a (log a - 1) (inf where that overflows, as glibc).

x < 0 by reflection: lgamma(x) = log(pi / |x sin(pi x)|) - lgamma(-x), with sin(pi x) reduced
exactly (x - n/2 is exact for n = rint(2x)) so it keeps its relative accuracy near the poles.
Negative integers and +-0 are poles: +inf, as NumPy's, SciPy's ``gammaln`` and glibc's; +-inf
give +inf, NaN gives NaN.

Kernels compute 0 < x < inf by a short form (``lgamma_inside_*``, ``templates.inside_form``)
inline in the vectorised loop, and a strip of 1024 elements holding any other x again with the
full form (the reflection's sine, cosine, log and division were about 40% of float64's cost):

- float64: the full form's own arithmetic for x > 0 (``_lgamma_positive``), so its bounds hold.
- float32, in float32 arithmetic with one log (``lgamma_inside_f32``): below 8 the argument is
  taken to t in [1, 3) (lgamma(x) = lgamma(x + 1) - log x below 1; lgamma(t) + log(t (t + 1)
  ... (x - 1)) from 3, a sum of two positives), where lgamma(t) = (t - 1)(t - 2) q(t - 2) with
  q a polynomial of degree 12 (``tools/fit_lgamma_f32.py``), the factors exact, so the result
  keeps its relative accuracy at the zeros 1 and 2; from 8 on, Stirling's series with the
  log's exact part e ln2_hi added last. The full float32 form is this short form for
  0 < x < inf and the float64 form rounded once elsewhere (negative x, the poles, inf, NaN).
  (The short form before it computed in float64: shift to x + 8, two logs and a division,
  0.500 ulp at 2.3x the cost.)

Accuracy (``python tools/ulp_sweep.py f32 lgamma`` and ``f64 lgamma``, against glibc's
lgamma; the tests assert ``ULPS``/``ABS``): lgamma has zeros at 1 and 2 (and two between each
pair of negative integers below -2), where any method's relative error is unbounded unless it
knows the zero exactly. As glibc and SVML do, the error is given in ulps of the result where
|lgamma(x)| >= 1/4 and as an absolute error elsewhere. Measured:

- float32, all 2^32 inputs: 1.625 ulp (at 2.7628, where q's last rounding counts most;
  below 1 at most 1.41, 3 to 8 1.21, from 8 on 1.44); 3.5e-8 absolute near the zeros. Within
  1/4 of 1 and 1/2 of 2, every float32: 2.33 ulp of the result itself (``NEAR_ZEROS_ULPS``;
  the worst just below 1, where lgamma(x + 1) and log x partly cancel). Negative x: the
  float64 form rounded once.
- float64, 10^8 samples plus special values: 21 ulps, at x = -5.998 (x < 0 near a pole,
  where log(pi / |x sin(pi x)|) and lgamma(-x) nearly cancel; x > 0: 2 ulps, as glibc, against
  mpmath on 50 000 points); 8.1e-16 absolute near the zeros (glibc: 8e-17, by expansions
  around each negative zero that this form does not have).

Speed (``benchmarks/ops.py lgamma``: a kernel of lgamma alone, 2^24 elements in (0.1, 10),
2 threads, medians of 7): float32 0.89 ns an element (the float64-computed short form before
it: 1.86), float64 3.9, against SciPy's gammaln 27 / 28. (One thread's CPU time, 2^20
elements: 1.13 ns against 2.54.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import fastmath as fm
from .vecmath import (
    _BIG,
    _D,
    _F,
    _I,
    _INF,
    _OPTS,
    _fma,
    cos_f64,
    log_f64,
    sin_f64,
)
from .vecspecial import _horner

# fdlibm e_lgamma_r.c: lgamma(2 - y) (a), around tc (t), near 0 and 1 (u / v), on [2, 3) (s / r),
# and Stirling's correction (w)
_A = (7.72156649015328655494e-02, 3.22467033424113591611e-01, 6.73523010531292681824e-02,
      2.05808084325167332806e-02, 7.38555086081402883957e-03, 2.89051383673415629091e-03,
      1.19270763183362067845e-03, 5.10069792153511336608e-04, 2.20862790713908385557e-04,
      1.08011567247583939954e-04, 2.52144565451257326939e-05, 4.48640949618915160150e-05)
_TC = 1.46163214496836224576e+00          # where lgamma has its minimum on (0, inf)
_TF = -1.21486290535849611461e-01         # lgamma(tc)
_TT = -3.63867699703950536541e-18         # -(tf's tail)
_T = (4.83836122723810047042e-01, -1.47587722994593911752e-01, 6.46249402391333854778e-02,
      -3.27885410759859649565e-02, 1.79706750811820387126e-02, -1.03142241298341437450e-02,
      6.10053870246291332635e-03, -3.68452016781138256760e-03, 2.25964780900612472250e-03,
      -1.40346469989232843813e-03, 8.81081882437654011382e-04, -5.38595305356740546715e-04,
      3.15632070903625950361e-04, -3.12754168375120860518e-04, 3.35529192635519073543e-04)
_U = (-7.72156649015328655494e-02, 6.32827064025093366517e-01, 1.45492250137234768737e+00,
      9.77717527963372745603e-01, 2.28963728064692451092e-01, 1.33810918536787660377e-02)
_V = (2.45597793713041134822e+00, 2.12848976379893395361e+00, 7.69285150456672783825e-01,
      1.04222645593369134254e-01, 3.21709242282423911810e-03)
_S = (-7.72156649015328655494e-02, 2.14982415960608852501e-01, 3.25778796408930981787e-01,
      1.46350472652464452805e-01, 2.66422703033638609560e-02, 1.84028451407337715652e-03,
      3.19475326584100867617e-05)
_R = (1.39200533467621045958e+00, 7.21935547567138069525e-01, 1.71933865632803078993e-01,
      1.86459191715652901344e-02, 7.77942496381893596434e-04, 7.32668430744625636189e-06)
_W = (4.18938533204672725052e-01, 8.33333333333329678849e-02, -2.77777777728775536470e-03,
      7.93650558643019558500e-04, -5.95187557450339963135e-04, 8.36339918996282139126e-04,
      -1.63092934096575273989e-03)
_PI = 3.141592653589793
_PI_LO = 1.2246467991473532e-16          # pi - _PI
_TINY = 2.0 ** -70
_HUGE = 2.0 ** 58

# Measured maximum errors (tools/ulp_sweep.py) rounded up: ulps where |lgamma| >= 1/4,
# absolute error where |lgamma| < 1/4.
ULPS = {"f32": 1.7, "f64": 24.0}
NEAR_ZEROS_ULPS = 2.4      # float32: of the result itself, within 1/4 of 1 and 1/2 of 2
ABS = {"f32": 4e-8, "f64": 1e-15}


@njit(**_BIG)
def _near_two(y):
    """lgamma(2 - y) for -0.27 <= y <= 0.27 (lgamma(1 + a) for a = 1 - y below 0.9)."""
    z = y * y
    p1 = _A[0] + z * (_A[2] + z * (_A[4] + z * (_A[6] + z * (_A[8] + z * _A[10]))))
    p2 = z * (_A[1] + z * (_A[3] + z * (_A[5] + z * (_A[7] + z * (_A[9] + z * _A[11])))))
    return (y * p1 + p2) - 0.5 * y


@njit(**_BIG)
def _near_tc(y):
    """lgamma(tc + y) for |y| <= 0.27."""
    z = y * y
    w = z * y
    p1 = _T[0] + w * (_T[3] + w * (_T[6] + w * (_T[9] + w * _T[12])))
    p2 = _T[1] + w * (_T[4] + w * (_T[7] + w * (_T[10] + w * _T[13])))
    p3 = _T[2] + w * (_T[5] + w * (_T[8] + w * (_T[11] + w * _T[14])))
    return _TF + (z * p1 - (_TT - w * (p2 + y * p3)))


@njit(**_BIG)
def _near_one(y):
    """lgamma(1 + y) for -0.77 <= y <= 0.24 (with the log term of the caller below 0.9)."""
    p1 = y * (_U[0] + y * (_U[1] + y * (_U[2] + y * (_U[3] + y * (_U[4] + y * _U[5])))))
    p2 = 1.0 + y * (_V[0] + y * (_V[1] + y * (_V[2] + y * (_V[3] + y * _V[4]))))
    return -0.5 * y + p1 / p2


@njit(**_BIG)
def _below_two(a):
    """lgamma(a) - (-log a if a <= 0.9 else 0) for 0 < a < 2: the polynomial part."""
    low = a <= 0.9
    # the argument of each form: lgamma(a) = lgamma(a + 1) - log a below 0.9
    b = a + 1.0 if low else a        # (exact enough: fdlibm's forms take a - (tc - 1), 1 - a)
    two = b >= 1.7316
    mid = (b >= 1.23164) & ~two
    y_two = (1.0 - a) if low else (2.0 - a)
    y_tc = (a - (_TC - 1.0)) if low else (a - _TC)
    y_one = a if low else a - 1.0
    v_two, v_tc, v_one = _near_two(y_two), _near_tc(y_tc), _near_one(y_one)
    return v_two if two else (v_tc if mid else v_one)


@njit(**_BIG)
def _two_to_eight(a):
    """(lgamma(2 + f) with f = a - floor(a), the product (f + 2)...(f + floor(a) - 1))."""
    i = np.floor(a)
    y = a - i
    p = y * (_S[0] + y * (_S[1] + y * (_S[2] + y * (_S[3] + y * (_S[4] + y * (
        _S[5] + y * _S[6]))))))
    q = 1.0 + y * (_R[0] + y * (_R[1] + y * (_R[2] + y * (_R[3] + y * (_R[4] + y * _R[5])))))
    z = 1.0
    z *= (y + 2.0) if i > 2.0 else 1.0
    z *= (y + 3.0) if i > 3.0 else 1.0
    z *= (y + 4.0) if i > 4.0 else 1.0
    z *= (y + 5.0) if i > 5.0 else 1.0
    z *= (y + 6.0) if i > 6.0 else 1.0
    return 0.5 * y + p / q, z


@njit(**_BIG)
def _abs_sinpi(x):
    """|sin(pi x)| for finite x, relatively accurate near the integers (0 at them)."""
    n = np.rint(2.0 * x)
    f = x - 0.5 * n                                  # exact, |f| <= 1/4
    t = f * _PI + f * _PI_LO                         # pi f
    odd = (_I(n) & _I(1)) != _I(0)
    return abs(cos_f64(t) if odd else sin_f64(t))


@njit(**_BIG)
def _lgamma_positive(a):
    """lgamma(a) for finite a >= 0 (a = |x|: the reflection's lgamma(-x) too)."""
    small = _below_two(min(a, 2.0))
    mid, prod = _two_to_eight(min(max(a, 2.0), 8.0))
    big = a >= 8.0
    # one log for the lane: of a (below 0.9, from 8 on), of the product (2 <= a < 8)
    arg = a if (a <= 0.9) | big else (prod if a >= 2.0 else 1.0)
    la = log_f64(arg)
    inv = 1.0 / max(a, 8.0)
    y = inv * inv
    w = _W[0] + inv * (_W[1] + y * (_W[2] + y * (_W[3] + y * (_W[4] + y * (
        _W[5] + y * _W[6])))))
    stirling = (a - 0.5) * (la - 1.0) + w
    stirling = a * (la - 1.0) if a >= _HUGE else stirling
    r = small - la if a <= 0.9 else small
    r = r if a < 2.0 else (mid + la if a < 8.0 else stirling)
    r = 0.0 if (a == 1.0) | (a == 2.0) else r
    return -la if a < _TINY else r


@njit(**_OPTS)
def lgamma_outside_f64(x):
    """Whether x is outside ``lgamma_inside_f64``'s domain (0 < x < inf)."""
    return not ((x > 0.0) & (x < _INF))


@njit(**_BIG)
def lgamma_inside_f64(x):
    """``lgamma_f64`` for 0 < x < inf (the same arithmetic; no reflection: its sine, cosine,
    log and division are most of the full form's cost)."""
    return _lgamma_positive(x)


@njit(**_BIG)
def lgamma_f64(x):
    """log |Gamma(x)| for float64 (+inf at the poles: 0 and the negative integers)."""
    a = abs(x)
    a_ok = a if a < _INF else 2.0        # (the polynomials on a finite stand-in; fixed below)
    r = _lgamma_positive(a_ok)
    # x < 0: log(pi / |x sin(pi x)|) - lgamma(|x|); 0 and the negative integers are poles
    sinpi = _abs_sinpi(min(a_ok, _HUGE))
    reflected = log_f64(_PI / (sinpi * max(a_ok, _TINY))) - r
    v = reflected if (x < 0.0) & (a_ok >= _TINY) else r
    v = _INF if (sinpi == 0.0) & (x < 0.0) else v
    v = _INF if a == _INF else v
    return x + x if x != x else v


# lgamma(t) / ((t - 1)(t - 2)) on 1 <= t <= 3, a polynomial of u = t - 2 (tools/fit_lgamma_f32.py:
# relative error 0.09 float32 ulps before rounding to float32)
_Q32 = tuple(_F(c) for c in (
    0.42278432846069336, -0.10031726956367493, 0.03296494483947754, -0.01238497719168663,
    0.004999483469873667, -0.0021020499989390373, 0.000910493079572916,
    -0.0004255977983120829, 0.00019582670938689262, -5.239289748715237e-05,
    2.0223917090333998e-05, -3.874389949487522e-05, 1.931758197315503e-05))
_W32 = tuple(_F(c) for c in _W[:5])
_ONE32, _TWO32 = _F(1.0), _F(2.0)


@njit(**_OPTS)
def lgamma_outside_f32(x):
    """Whether float32 x is outside ``lgamma_inside_f32``'s domain (0 < x < inf)."""
    return not ((x > _F(0.0)) & (x < _F(_INF)))


@njit(**_BIG)
def _near_zeros_f32(u, t1):
    """t1 u q(u) = lgamma(t) for t = 2 + u, -1 <= u < 1, t1 = t - 1, in float32: the product
    t1 u split exactly into two floats (a fused multiply-add gives the low part), so the
    result keeps q's relative accuracy at the zeros and the product adds one rounding."""
    q = _horner(u, _Q32)
    hi = t1 * u
    lo = _fma(t1, u, -hi)
    return _fma(hi, q, lo * q)


@njit(**_BIG)
def lgamma_inside_f32(x):
    """log Gamma(x) for float32 0 < x < inf, in float32 arithmetic with one log:

    - x < 8 is taken to t in [1, 3), where ``_near_zeros_f32`` gives lgamma(t): below 1,
      lgamma(x) = lgamma(x + 1) - log x; from 3, lgamma(x) = lgamma(t) + log(t (t + 1) ...
      (x - 1)) with t = 2 + x - floor(x) (every factor exact; the sum of two positives);
    - x >= 8: Stirling's series, (x - 1/2)(log x - 1) + w(1/x) (fdlibm's w, five terms).

    The log's e ln2_hi (exact) is added last, so the sums keep a rounding of their smaller
    parts only."""
    below = x < _ONE32
    above = x >= _F(3.0)
    big = x >= _F(8.0)
    xs = _F(2.5) if big else x                       # (Stirling's lanes: any t will do)
    n = np.floor(xs)
    u = xs - (_ONE32 if below else (n if above else _TWO32))      # t - 2, exact
    r = _near_zeros_f32(u, xs if below else u + _ONE32)      # (t - 1: exact)
    # the product t (t + 1) ... (x - 1): n - 2 factors from 3 on, 1 otherwise
    t = u + _TWO32
    z = t if above else _ONE32
    z *= (t + _ONE32) if n > _F(3.0) else _ONE32
    z *= (t + _TWO32) if n > _F(4.0) else _ONE32
    z *= (t + _F(3.0)) if n > _F(5.0) else _ONE32
    z *= (t + _F(4.0)) if n > _F(6.0) else _ONE32
    e, f = fm._split_any(x if below | big else z)
    ef = _F(e)
    low = _fma(ef, fm._LN2_LO, fm._log1p_poly(f))    # log = ef ln2_hi + low
    sign = _F(-1.0) if below else _ONE32
    small = _fma(sign * ef, fm._LN2_HI, _fma(sign, low, r))
    inv = _ONE32 / max(x, _F(8.0))
    y = inv * inv
    w = _fma(inv, _fma(y, _fma(y, _fma(y, _W32[4], _W32[3]), _W32[2]), _W32[1]), _W32[0])
    half = x - _F(0.5)
    stirling = _fma(half, _fma(ef, fm._LN2_HI, -_ONE32), _fma(half, low, w))
    return stirling if big else small


@njit(**_BIG)
def lgamma_f32(x):
    """log |Gamma(x)| for float32: ``lgamma_inside_f32`` for 0 < x < inf, elsewhere the
    float64 form rounded once."""
    full = _F(lgamma_f64(_D(x)))
    return full if lgamma_outside_f32(x) else lgamma_inside_f32(x)
