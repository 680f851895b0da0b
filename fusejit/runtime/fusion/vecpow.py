"""Vectorisable ``pow`` forms for generated kernels: float32 and float64 x**y, and the forms
kernels use when one operand is a constant (an exponent y with 2y an integer, a base).

Companion of ``vecmath`` (the same rules: arithmetic, selects, bit casts, ``sqrt``; no libm
call, so LLVM vectorises a loop that calls them). The renderer (``oplib.binary``) picks::

    aten::pow(%x, %y)     Double    ->  vp.pow_inside_f64(x, y), strips holding a pair where
                                        vp.pow_outside_f64(x, y) again with vp.pow_f64(x, y)
    aten::pow(%x, %y)     Float     ->  the same with pow_inside_f32/_outside_f32/pow_f32
                                        (AVX-512 hosts: pow_simd_f32/_outside_simd_f32, the
                                        hand-written vector form of ``simd``)
    aten::pow(%x, 1.7)    Float     ->  the same with pow_small_f32/_outside_x_f32/pow_f32
                                        (a constant |y| <= 7.8, no half-integer)
    aten::pow(%x, 2.5)    Float     ->  vp.pow_const_f32(x, 5)      (2y = 5, a literal)
    aten::pow(%x, 2.5)    Double    ->  vp.pow_const_f64(x, 5)
    aten::pow(10.0, %y)   Float     ->  vp.pow_base_f32(y, lh, ll)   (ln 10 = lh + ll)
    aten::pow(10.0, %y)   Double    ->  vp.pow_base_f64(y, lh, ll)

(pow(x, y) for y in 2, 3, 0.5, -0.5, -1, -2 stays the renderer's text, PyTorch's own forms;
float32 x**y is ``pow_f32``/``pow_inside_f32`` here, in float64 lanes. Other constant
exponents, and scalar bases that are kernel arguments, take the tensor ** tensor forms.)

Method:

- ``pow_f64``: e**(y log|x|) with log|x| in double-double (``log_dd``: a = 2**e m, m = c (1 + t)
  with c = m rounded to a multiple of 1/8, log c picked by selects, log m = log c +
  2 atanh(s), s = (m - c)/(m + c) carried as two floats), y log|x| in double-double (two fused
  multiply-adds), then e**(th + tl) without rounding the sum (on AVX-512 hosts 2**n e**r, n
  from th + tl, e**r by ``vecmath._EXP_P``'s polynomial, 2**n by one vscalefpd; elsewhere
  ``vecspecial._exp_sum``); C99's special cases (``vecmath.pow_specials``).
  ``pow_inside_f64`` is the same for x normal and positive and -708 < y log x < 709 (y finite
  and a normal result), without the special cases and the clamp of y log x, with x split by
  integer operations alone and (AVX-512 hosts) 2**n added to e**r's exponent bits: kernels
  take it for strips where ``pow_outside_f64`` is false for every pair (its y log x is the
  short form's, which LLVM computes once for both; a constant |y| <= 0.99 tests x alone,
  ``oplib.binary.POW_Y_NARROW_F64``), and ``pow_f64`` for the others. The loop is bound by
  its latency (the division in atanh's s, then the series, then exp): the polynomials are
  evaluated by Estrin's scheme and sums as trees.
- ``pow_f32``: x**y for float32, 2^(y log2|x|) in float64 lanes: |x| split as
  ``fastmath``'s log splits it (in float32, subnormals scaled first), log2(1 + f) = f P(f)
  with P of degree 12 (``_LG``), z = y log2|x| clamped to +-200, 2^z = 2^n 2^r with 2^r by a
  degree-7 polynomial (``_EX``; both fitted here, relative errors 2^-35.8 and 2^-34, by
  Estrin's scheme) and 2^n from bits, one rounding to float32; C99's special cases on float32
  lanes (``vecmath.pow_specials``). Kernels take ``pow_inside_f32`` (the same without the
  special cases, the subnormal step and the clamp of z: 2**n added to the exponent bits of
  2**r, valid for |z| <= 1000) for strips where ``pow_outside_f32`` is false for every pair (x
  normal and positive, |y log2 x| <= 1000, a product LLVM shares with the short form), and the
  full form for the other strips (a strip with a zero, negative, subnormal, infinite or NaN
  base, an infinite or NaN exponent, or a result far past float32's range, is computed twice).
  A constant exponent |y| <= 7.8 keeps every normal x within that: its kernels test x alone
  (``pow_outside_x_f32``), and take ``pow_small_f32``, the short form with shorter
  polynomials (log2(1 + f) to 2**-30.5, 2**r to 2**-29.0): |y log2(1 + f)| <= 3.9 there, so
  log2's error counts 2**8 times less than for a tensor y.
- On AVX-512 hosts (``templates.HOST_FORMS``) kernels take ``pow_simd_f32`` for a tensor y
  instead of ``pow_inside_f32`` (kernels of an element cost below
  ``interleave.INLINE_POW_FROM_NS``: longer ones keep ``pow_inside_f32``, inline, which lets
  their loops interleave), in strips where ``pow_outside_simd_f32`` is false for every
  pair (x normal and positive, |y| <= 2**100): ``simd``'s 16-lane function (float32 lanes,
  log2 x in double-float, register tables), which the loop vectoriser calls; ``pow_f32``
  elsewhere, as above. A kernel whose whole work is that pow (two float32 rows in, one out)
  calls ``pow_strip_f32`` once a strip instead (``simd``'s loop in IR, with no call per 16
  lanes; its flag sends a strip with a pair outside the domain, or with |y log2 x| past 200,
  to ``pow_f32``). Measured (one thread's CPU time, x and y in [0.1, 3], load 14-22 on the
  2-core machine, 3 runs alternated with the code before, ``benchmarks/ops.py --cpu``):
  2^18 pairs 0.63-0.64 ns an element against NumPy's 0.66-0.69, 1.04-1.07x (before:
  0.88-0.95 ns, 0.75-0.78x); 2^22, 0.91-0.98 against 0.96-1.02, 1.04-1.06x (before
  0.71-0.72x). The strip loop alone, 2^16 pairs: 1.18-1.23x NumPy. ``pow_simd_f32`` (chains)
  is shorter too: a plain loop over it, 2^18 pairs, ran 0.83-0.85 ns an element before
  (NumPy 0.62-0.64, load 6) and 0.64-0.67 after (NumPy 0.62-0.63, load 14), one run each.
- ``pow_const_f32``/``pow_const_f64`` (``_pow_const``, one body for both types, 2 < |2y| <=
  16): the base b = |x| (y > 0) or 1/|x| as a double-float (y < 0: no intermediate overflow
  where the result does not overflow); b**k (k = |y| rounded down) in double-float by squaring
  (k is a literal in the kernel, so LLVM folds the bit tests away); for a half-integer y,
  times sqrt(b) = s (1 + r / (2b)), r = b - s**2 the exact residual, whose term is b**(k-1) s
  r / 2 (no division), so the square root adds no error; the sign (odd integer y) or NaN (x <
  0, half-integer y) last. A base whose power would be below 2**-900 (float32: 2**-80), where
  the products' low parts would lose bits, is scaled by 2**e first (e = 2 ceil(100 / |y|),
  float32 2 ceil(32 / |y|)) and the result by 2**(-e |y|) last: exact, except that subnormal
  results round twice. Normal results are within half an ulp and 2**-40 or so of the exact
  value: correctly rounded but in rare near-ties.
- ``pow_base_f64``: e**(y ln b) with ln b = lh + ll in double-double (the renderer computes it
  in decimal, ``oplib.binary.log_parts``), y ln b in double-double, e**(th + tl) as
  ``pow_f64``'s; b**0 = 1 exactly.
- ``pow_base_f32``: the same in float32: y ln b as a double-float, then ``fastmath.exp_f32``'s
  reduction and polynomial with y ln b's low part added to the reduced argument.

Measured accuracy (``python tools/ulp_sweep.py powc NAME``, see there: float32 over all 2^32
inputs against float64 pow, unrounded, in float32 ulps; float64 over 10^8 samples and the
special values against libm's pow through Numba (which is itself up to ~0.5 ulp from the exact
value, so the exact error may be that much more or less; ``tests/.../test_vecpow.py`` checks
against 40-digit decimal arithmetic: within 0.501 ulp for normal results); ``pow_f64``:
``binary``, 10^8 random pairs against NumPy's power, a quarter of them at the largest
|y log2 x|, plus every pair of 52 special values, the short form where kernels take it):

==============  =========================  ===============  ==============================
form            float32 max ulp (at)       float64 max ulp  notes
==============  =========================  ===============  ==============================
pow_f32/_f64    0.516 (1.00862, 8959.11)   1                (x, y) pairs, ``binary``
pow_simd_f32    0.529 (2.93094, 19.3252)                    the same, AVX-512 hosts
pow_strip_f32   0.529 (2.93094, 19.3252)                    ``pow_strip``: the same
                                                            (flagged strips: pow_f32)
x**2.5          0.750 (5.884e-16)          1.000            float64 against libm
x**5            0.750 (2.280e-08)          1.000
x**-1.5         0.750 (2.743e+25)          1.000
x**7.5          0.750 (8.061e-06)          1.000
x**-8           0.750 (56944.867)          1.000
2**y            1.069 (-85.506)            1.000
10**y           1.089 (-2.5436)            1.000
0.5**y          1.069 (85.506)             1.000
x**7.8          0.553 (92.0047)            1.000            float32: ``pow_small_f32`` for
x**-7.8         0.553 (0.0220968)          1.000            x normal and positive, else
x**1.7          0.533 (1.30502e-12)        1.000            ``pow_f32``; float64: pow_f64's
x**-2.2         0.534 (8.35508e+11)        1.000            forms, 10^6 samples
==============  =========================  ===============  ==============================

The float32 worst cases of the half-integer exponents are subnormal results (double rounding,
bound 0.8 ulp); normal results stay within 0.501 ulp of the exact value on the tests' samples
(float64: against 40-digit decimal arithmetic), so the float64 1.000s of the constant
exponents are libm's misroundings (checked by hand at x = 7.986 for x**2.5); the float64
bases, e**(th + tl) like ``pow_f64``, are within ``ULPS``'s 1.1 ulp of the exact value on the
tests' samples. ``ULPS`` holds the bounds the tests assert. ``precise=True`` on a kernel
keeps NumPy's power. For comparison, NumPy's own float32 power (SVML's on AVX-512 hosts)
measures 1.437 ulp at (0.98804, 5958.34) on the ``binary`` sweep's pairs (10^8 and the grid).
The float64 column was measured again after the rewrite of the float64 short form and of
e**(th + tl) (the same sweeps, ``binary`` 10^8 pairs and ``powc`` 10^6 samples): unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import fastmath as fm
from . import simd
from .vecmath import (
    _BIG,
    _D,
    _EXP_P,
    _F,
    _I,
    _INLINE_IR,
    _LN2_HI,
    _LN2_LO,
    _LOG2E,
    _OPTS,
    _ROUNDER,
    _ROUNDER_BITS,
    _SQRT_HALF_BITS,
    SCALEF,
    _bits_to_f64,
    _estrin8,
    _exp_poly,
    _f64_to_bits,
    _fma,
    _ldexp,
    _pow2,
    log_outside_f64,
    pow_specials,
    split_f64,
)
from .vecspecial import _exp_sum, _horner

# The bounds the tests assert, in ulps of the result's dtype (measured, rounded up).
ULPS = {"pow_const_f64": 0.501, "pow_const_f32": 0.501, "pow_const_subnormal": 0.8,
        "pow_base_f64": 1.1, "pow_base_f32": 1.1, "pow_small_f32": 0.56}

# --- float64 pow: e**(y log|x|) with log|x| and the product in double-double -------------------

# log(j/8) for j = 6..11 as hi + lo, hi a multiple of 2**-33 (as e ln2_hi is: their sum is
# exact), lo the rest (j = 8 is 0)
_LOGC_HI = (-0.28768207249231637, -0.13353139266837388, 0.0, 0.11778303561732173,
            0.22314355126582086, 0.3184537311317399)
_LOGC_LO = (4.053543780278539e-11, 4.385125962419471e-11, 0.0, 3.906172487875993e-11,
            4.838889490356316e-11, -1.3205298607019631e-11)

# 2 atanh(s) = 2 s + s w (2/3 + 2/5 w + ...), w = s**2: six terms, the first left out 2 s w**7
# / 15 < 2**-68 |2 s| (|s| <= 0.04)
_ATANH = (2 / 3, 2 / 5, 2 / 7, 2 / 9, 2 / 11, 2 / 13)
# m + _C_ROUNDER - _C_ROUNDER is m rounded to a multiple of 1/8 (ties to even, as rint(8 m) / 8)
_C_ROUNDER = 1.5 * 2.0 ** 49


@njit(**_OPTS)
def _fast_two_sum(a, b):
    """(s, e) with s = a + b rounded and s + e = a + b exactly, for a = 0 or |a| >= |b|."""
    s = a + b
    return s, b - (s - a)


@njit(**_OPTS)
def _estrin6(z, c):
    """c[0] + c[1] z + ... + c[5] z**5."""
    z2 = z * z
    return ((c[0] + c[1] * z) + (c[2] + c[3] * z) * z2) + (c[4] + c[5] * z) * (z2 * z2)


@njit(**_OPTS)
def _pick(c, table):
    """table[8 c - 6] for c in 6/8..11/8, by selects (vectorises without a gather)."""
    v = table[0]
    v = table[1] if c >= 0.875 else v
    v = table[2] if c >= 1.0 else v
    v = table[3] if c >= 1.125 else v
    v = table[4] if c >= 1.25 else v
    return table[5] if c >= 1.375 else v


@njit(**_OPTS)
def _log_dd_parts(ef, m):
    """log(2**ef m) as hi + lo for m in [sqrt(1/2), sqrt(2)) (``log_dd``'s method)."""
    c = (m + _C_ROUNDER) - _C_ROUNDER               # (two additions where rint took a
    num = m - c                                     # multiply, a round and a multiply)
    # (exact: c / 2 <= m <= 2 c; and c's exponent is at least m's, so Fast2Sum is exact)
    dh, dl = _fast_two_sum(c, m)
    inv = 1.0 / dh
    sh = num * inv
    sl = (_fma(-sh, dh, num) - sh * dl) * inv       # (the remainder is exact)
    w = sh * sh
    tail = sh * w * _estrin6(w, _ATANH)
    # (e ln2_hi + log c's hi is exact, both multiples of 2**-33 below 2**11. Fast2Sum: |that|
    # >= 0.118 > |2 s| unless e = 0 and c = 1, where it is 0)
    hi, err = _fast_two_sum(_fma(ef, _LN2_HI, _pick(c, _LOGC_HI)), 2.0 * sh)
    # (the terms that wait for the division last: the loop is bound by its latency)
    lo = (_fma(ef, _LN2_LO, _pick(c, _LOGC_LO)) + _fma(2.0, sl, err)) + tail
    return hi, lo


@njit(**_BIG)
def log_dd(a):
    """log(a) as hi + lo, relative error below 2**-62 (about), for finite a > 0.

    a = 2**e m with m in [sqrt(1/2), sqrt(2)), then m = c (1 + t) with c = rint(8 m) / 8, so
    log m = log c + 2 atanh(s), s = (m - c) / (m + c), |s| <= 0.04: the series' tail past 2s is
    under 0.06% of it, and 2s itself is carried as sh + sl.
    """
    e, m = split_f64(a)
    return _log_dd_parts(_D(e), m)


@njit(**_OPTS)
def _times_dd(y, lh, ll):
    """y (lh + ll) as th + tl (th = y lh rounded; its error and y ll in two fused
    multiply-adds)."""
    th = y * lh
    return th, _fma(y, ll, _fma(y, lh, -th))


# e**r = 1 + r + r**2 P(r): ``vecmath._EXP_P``'s P by Estrin's scheme. (exp_f64 runs faster
# with Horner's rule; pow's loop, twice as long, is bound by its latency: 2.03 -> 1.95
# ns/element, one thread, 2^18 pairs)
@njit(**_OPTS)
def _exp_poly_tree(r):
    """e**r for |r| <= ln2/2 (about), P by Estrin's scheme."""
    c = _EXP_P
    r4 = (r * r) * (r * r)
    p = _estrin8(r, c[:8]) + _fma(c[9], r, c[8]) * (r4 * r4)
    return _fma(_fma(p, r, 1.0), r, 1.0)


@njit(**_OPTS)
def _exp_reduce(th, tl):
    """(t, r) with th + tl = n ln2 + r, |r| <= ln2 / 2 (about) and t = n + _ROUNDER, for
    |th| < 2**50."""
    t = _fma(th + tl, _LOG2E, _ROUNDER)     # (tl may be ~1e-5 th: log_dd's lo holds
    n = t - _ROUNDER                        # the series' tail, |r| stays <= ln2 / 2)
    return t, _fma(-n, _LN2_LO, _fma(-n, _LN2_HI, th) + tl)    # (th - n ln2_hi is exact)


@njit(**_OPTS)
def _exp_dd_by(poly, th, tl):
    """e**(th + tl) for a double-double exponent (a NaN th gives 1: the callers' special cases
    replace it); th beyond [-746, 710] is clamped there, past both over- and underflow. On
    AVX-512 hosts 2**n e**r with e**r by ``poly`` and 2**n by ``_ldexp`` (one vscalefpd,
    gradual underflow included); elsewhere ``vecspecial._exp_sum``."""
    inside = (th > -746.0) & (th < 710.0)
    tl = tl if inside else 0.0
    th = th if inside else (0.0 if th != th else min(max(th, -746.0), 710.0))
    if SCALEF:
        t, r = _exp_reduce(th, tl)
        return _ldexp(poly(r), _f64_to_bits(t) - _ROUNDER_BITS)
    return _exp_sum(th, tl)


# (the polynomial is passed from functions LLVM inlines, never from one Numba inlines into a
# kernel, where it would become a first-class function value, which Numba's cache refuses)
@njit(**_OPTS)
def _exp_dd(th, tl):
    """``_exp_dd_by`` with ``_exp_poly_tree``: pow_f64's, the same bits as its short form."""
    return _exp_dd_by(_exp_poly_tree, th, tl)


@njit(**_OPTS)
def _exp_dd_horner(th, tl):
    """``_exp_dd_by`` with ``vecmath._exp_poly`` (Horner's rule): pow_base_f64's, whose shorter
    loop ran 3-4% faster with it than with Estrin's tree."""
    return _exp_dd_by(_exp_poly, th, tl)


# The short form's range of y log x: e**(y log x) = 2**n e**r is a normal number, which n added
# to e**r's exponent bits builds (two integer operations where ``_ldexp`` took three)
_TH_LOW, _TH_HIGH = -708.0, 709.0


@njit(**_OPTS)
def _exp_dd_normal(th, tl):
    """``_exp_dd`` for _TH_LOW < th < _TH_HIGH, whose results are normal: no clamp, and on
    AVX-512 hosts 2**n e**r by adding n to the exponent bits of e**r (the same bits as
    ``_ldexp`` there)."""
    if SCALEF:
        t, r = _exp_reduce(th, tl)
        return _times_2n(_exp_poly_tree(r), t)
    return _exp_sum(th, tl)


@njit(**_BIG)
def pow_f64(x, y):
    """x**y for float64: e**(y log|x|) with log|x| and y log|x| in double-double, and C99's
    (NumPy's) special cases."""
    a = abs(x)
    finite = (a > 0.0) & (a < np.inf)
    lh, ll = log_dd(a if finite else 1.0)
    lh = lh if finite else (-np.inf if a == 0.0 else a)      # (NaN stays NaN)
    th, tl = _times_dd(y, lh, ll)
    return pow_specials(x, y, _exp_dd(th, tl), 1.0)


@njit(**_OPTS)
def _pow_exponent(x, y):
    """y log x as th + tl for x normal, 0 < x < inf (no select in the split of x)."""
    bits = _f64_to_bits(x)
    e = (bits - _SQRT_HALF_BITS) >> _I(52)
    lh, ll = _log_dd_parts(_D(e), _bits_to_f64(bits - (e << _I(52))))
    return _times_dd(y, lh, ll)


@njit(**_BIG)
def pow_outside_f64(x, y):
    """Is (x, y) outside ``pow_inside_f64``'s domain (x normal, 0 < x < inf, _TH_LOW < y log x
    < _TH_HIGH: y finite, and the result normal)?
    (y log x is ``pow_inside_f64``'s own: LLVM computes it once for both.)"""
    th = _pow_exponent(x, y)[0]
    return log_outside_f64(x) | (not ((th > _TH_LOW) & (th < _TH_HIGH)))


@njit(**_BIG)
def pow_inside_f64(x, y):
    """x**y for float64 x normal, 0 < x < inf, and -708 < y log x < 709 (y finite):
    ``pow_f64`` without its special cases, the clamp of y log x and the selects in the split of
    x (kernels take it where ``pow_outside_f64`` is false for a whole strip; the special cases
    and selects took half of pow_f64's time, the clamp a tenth of what was left)."""
    th, tl = _pow_exponent(x, y)
    return _exp_dd_normal(th, tl)


# --- float32 pow: |x| split in float32, log2 and 2**z in float64 lanes -------------------------

# log2(1 + f) = f (_LG[0] + _LG[1] f + ... + _LG[12] f**12) for sqrt(1/2) - 1 <= f <
# sqrt(2) - 1 (fitted here on Chebyshev nodes, relative error 2**-35.8: y log2|x| is then within
# |y log2 x| 2**-35.7)
_LG = (1.4426950408685875, -0.7213475208603248, 0.4808983614641188, -0.3606736765079667,
       0.28853728783388893, -0.2404530686171824, 0.20617548807152783, -0.18030295997229767,
       0.1587696205973132, -0.14313069245274088, 0.14472831303518427, -0.14294376657662694,
       0.077515656233073)
# 2**r = _EX[0] + _EX[1] r + ... + _EX[7] r**7 for |r| <= 1/2 (fitted here, relative error
# 2**-34)
_EX = (0.9999999999595487, 0.6931471805459306, 0.24022651213594348, 0.05550410941215758,
       0.009618025603044568, 0.0013333450560733915, 0.0001546973195535589,
       1.5310080963346488e-05)
_SHIFTER_D = 6755399441055744.0            # 1.5 * 2**52, as _SHIFTER for float64
_ONE_BITS_D = np.int64(1023 << 52)
_POW_CLAMP = 200.0                         # 2**200 and 2**-200: far outside float32's range
# The short forms' range of z = y log2 x: 2**z is then built from bits without a clamp (float64's
# exponent reaches 2**-1022 and 2**1023). A constant exponent up to ``oplib.binary``'s
# POW_Y_WIDE_F32 keeps every normal float32 x there (|log2 x| <= 128), so its kernels test x alone.
_Z_WIDE = 1000.0


@njit(**_OPTS)
def _log2_poly(f):
    """_LG's polynomial by Estrin's scheme (a tree of fused multiply-adds four deep, so that
    the vectorised loop keeps several iterations in flight: Horner's chain of 12 made the old
    form latency-bound)."""
    f2 = f * f
    f4 = f2 * f2
    top = (_LG[8] + _LG[9] * f) + (_LG[10] + _LG[11] * f) * f2 + _LG[12] * f4
    return _estrin8(f, _LG[:8]) + top * (f4 * f4)


@njit(**_OPTS)
def _log2_parts(ix, e):
    """log2 of the float32 whose bits less sqrt(1/2)'s are ``ix`` (normal), as a float64, plus
    ``e``: e + log2(1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) (as ``fastmath._split``)."""
    f = _mantissa_f64(ix)
    return _fma(f, _log2_poly(f), np.float64(fm._I(e + fm._I(ix >> fm._I(23)))))


@njit(**_OPTS)
def _mantissa_f64(ix):
    """f as a float64 (exact), for 1 + f in [sqrt(1/2), sqrt(2)) the mantissa of the float32
    whose bits less sqrt(1/2)'s are ``ix``."""
    m = fm._bits_to_f32(fm._I(fm._I(ix & fm._I(0x7FFFFF)) + fm._SQRT_HALF_BITS))
    return np.float64(m - fm._ONE)


@njit(**_OPTS)
def _exp2_f64(z):
    """2**z in float64 for float32's range: z clamped to +-200 (NaN passes), 2**n 2**r with
    |r| <= 1/2, 2**r by ``_EX``'s polynomial, 2**n (a normal float64) from bits."""
    z = -_POW_CLAMP if z < -_POW_CLAMP else z
    z = _POW_CLAMP if z > _POW_CLAMP else z
    t = z + _SHIFTER_D                                  # z rounded to an integer n, in t's bits
    r = z - (t - _SHIFTER_D)                            # (exact, |r| <= 1/2)
    return _estrin8(r, _EX) * _bits_to_f64((_f64_to_bits(t) << np.int64(52)) + _ONE_BITS_D)


# (``_BIG``: always inlined, as LLVM's inliner would leave a function this size a call, and a
# call in a loop keeps the loop from vectorising)
@njit(**_BIG)
def pow_f32(x, y):
    """x**y for float32: 2**(y log2|x|) in float64 (log2 from |x|'s float32 split, subnormals
    scaled first, and ``_log2_poly``; ``_exp2_f64``), one rounding to float32, C99's special
    cases computed on float32 lanes."""
    a = abs(x)
    sub = a < fm._TINY
    lg = _log2_parts(fm._I(fm._f32_to_bits(a * fm._TWO23 if sub else a) - fm._SQRT_HALF_BITS),
                     fm._I(-23) if sub else fm._I(0))
    lg = -np.inf if a == fm._F(0.0) else lg
    lg = np.inf if a == fm._INF else lg                  # (NaN x: pow_specials returns x)
    return pow_specials(x, y, np.float32(_exp2_f64(np.float64(y) * lg)), fm._ONE)


@njit(**_OPTS)
def _log2_normal(x):
    """log2 x as a float64, for float32 x normal and positive (``_log2_parts``)."""
    return _log2_parts(fm._I(fm._f32_to_bits(x) - fm._SQRT_HALF_BITS), fm._I(0))


@njit(**_OPTS)
def _exp2_wide(z):
    """2**z in float64 for |z| <= _Z_WIDE, unclamped: 2**r by ``_EX``'s polynomial (in [0.7,
    1.42]), n added to its exponent bits (the sum stays a normal float64, |n| <= 1000; one
    integer add where a product by 2**n took three operations). The short forms' callers keep
    |z| within that."""
    t = z + _SHIFTER_D
    return _times_2n(_estrin8(z - (t - _SHIFTER_D), _EX), t)


@njit(**_OPTS)
def _times_2n(p, t):
    """p 2**n for t = n + _SHIFTER_D (n added to p's exponent bits: the caller keeps the result
    a normal number)."""
    return _bits_to_f64(_f64_to_bits(p) + (_f64_to_bits(t) << np.int64(52)))


@njit(**_OPTS)
def pow_outside_f32(x, y):
    """Is (x, y) outside ``pow_inside_f32``'s domain (x normal, 0 < x < inf, |y log2 x| <=
    _Z_WIDE: y finite, and the result far from float32's range only where it is 0 or inf)?
    (y log2 x is ``pow_inside_f32``'s own product: LLVM computes it once for both.)"""
    return not ((x >= fm._TINY) & (x < fm._INF)
                & (abs(np.float64(y) * _log2_normal(x)) <= _Z_WIDE))


@njit(**_OPTS)
def pow_outside_x_f32(x):
    """``pow_outside_f32`` for a constant exponent |y| <= ``oplib.binary.POW_Y_WIDE_F32``
    (|y log2 x| <= _Z_WIDE for every normal x): is x not normal and positive?"""
    return not ((x >= fm._TINY) & (x < fm._INF))


@njit(**_BIG)
def pow_inside_f32(x, y):
    """x**y for float32 x normal, 0 < x < inf, and |y log2 x| <= _Z_WIDE (y finite):
    ``pow_f32`` without the special cases, the subnormal step and the clamp of z (kernels
    take it where ``pow_outside_f32`` is false for a whole strip; those took a third of
    pow_f32's time, and the clamp alone 10%)."""
    return np.float32(_exp2_wide(np.float64(y) * _log2_normal(x)))


# On AVX-512 hosts (``simd.HOST_AVX512``) kernels take these two instead of pow_inside_f32 and
# pow_outside_f32 (``oplib.binary``): ``simd``'s hand-written vector pow, whose clamps make its
# domain independent of y log2 x. (Inlined by Numba: the vector function must be defined in the
# kernel's own module.)
@njit(**_INLINE_IR)
def pow_simd_f32(x, y):
    """x**y for float32 x normal, 0 < x < inf, and |y| <= ``simd.Y_LIMIT`` (``simd``)."""
    return simd.powf_avx512(x, y)


# (x normal and positive, |y| <= 2**100: the domain of pow_simd_f32)
pow_outside_simd_f32 = simd.pow_outside


@njit(**_OPTS, inline="always")
def pow_strip_f32(x, y, out):
    """out = x**y for a strip of float32 rows by ``simd``'s loop in IR (``simd.powf_strip``),
    right unless the returned flag is set: some pair outside its domain (a subnormal x is
    inside) or with |y log2 x| past 200, where kernels compute the strip again with
    ``pow_f32``."""
    return simd.powf_strip(x, y, out)


# A constant exponent |y| <= ``oplib.binary.POW_Y_WIDE_F32`` (no half-integer: those are
# ``pow_const_f32``'s) keeps |y log2(1 + f)| <= 3.9, against up to 1000 for a tensor y: the
# error of log2(1 + f), times that, then matters 2**8 times less, and ``pow_small_f32`` takes
# shorter polynomials (with Horner's rule: 0.917 -> 0.732 ns/element against the tensor short
# form in one run, one thread, 2^18 float32, y = 1.7; NumPy 0.880).
# log2(1 + f) = f (_LG_SMALL[0] + ... + _LG_SMALL[10] f**10) on _LG's interval, relative error
# 2**-30.5; 2**r = _EX_SMALL[0] + ... + _EX_SMALL[6] r**6 for |r| <= 1/2, relative error 2**-29.0
# (both fitted here, Lawson's weighted least squares): results within 0.5 + 0.03 (log2: ln 2 *
# 3.9 * 2**-30.5 relative) + 0.03 (2**r) ulp; measured 0.553 (the table above).
_LG_SMALL = (1.4426950417996434, -0.7213475156600326, 0.4808978892090969, -0.3606741493196036,
             0.28857617341853875, -0.24046720859931944, 0.20504348922957955,
             -0.17890870943730697, 0.17205685348244584, -0.1690633604822556,
             0.09703383856140545)
_EX_SMALL = (1.0000000005541674, 0.6931472057372652, 0.24022646890627825,
             0.055503287769693065, 0.009618488957793164, 0.0013399931217869985,
             0.00015345811820504548)


# (Horner's rule here, unlike the tensor form's Estrin: with a constant y, 0.829 -> 0.731
# ns/element in one run, where the tensor form ran slower with it)
@njit(**_OPTS)
def _log2_small(x):
    """log2 x as a float64 for float32 x normal and positive, by _LG_SMALL's polynomial."""
    ix = fm._I(fm._f32_to_bits(x) - fm._SQRT_HALF_BITS)
    f = _mantissa_f64(ix)
    return _fma(f, _horner(f, _LG_SMALL), np.float64(fm._I(ix >> fm._I(23))))


@njit(**_OPTS)
def _exp2_small(z):
    """2**z in float64 for |z| <= _Z_WIDE, by _EX_SMALL's polynomial (``_exp2_wide``'s method)."""
    t = z + _SHIFTER_D
    return _times_2n(_horner(z - (t - _SHIFTER_D), _EX_SMALL), t)


# (the arithmetic is in the functions above: this one's own instructions carry no contraction
# flag, as the kernel's, and LLVM inlines those functions with theirs)
@njit(**_BIG)
def pow_small_f32(x, y):
    """x**y for float32 x normal, 0 < x < inf, and a constant |y| <= ``POW_Y_WIDE_F32``:
    ``pow_inside_f32`` with _LG_SMALL's and _EX_SMALL's polynomials (kernels take it where
    ``pow_outside_x_f32`` is false for a whole strip)."""
    return np.float32(_exp2_small(np.float64(y) * _log2_small(x)))


# --- a constant exponent y with 2y an integer ----------------------------------------------------
# (written for float32 and float64 alike: every constant derives from ``one``, of x's type)

@njit(**_OPTS)
def _dd_mul(ah, al, bh, bl):
    """(ah + al)(bh + bl) as hi + lo (relative error about 2**-2p, p the precision)."""
    h = ah * bh
    return h, _fma(ah, bh, -h) + (ah * bl + al * bh)


@njit(**_OPTS)
def _dd_power(bh, bl, k):
    """(bh + bl)**k as hi + lo for 1 <= k <= 15, by squaring. k is a literal where kernels
    call this, so LLVM folds the bit tests and the branches away."""
    ph, pl = bh, bl
    have = False
    for bit in range(4):
        if (k >> bit) & 1:
            if have:
                ph, pl = _dd_mul(ph, pl, bh, bl)
            else:
                ph, pl = bh, bl
            have = True
        if k >> (bit + 1):
            bh, bl = _dd_mul(bh, bl, bh, bl)
    return ph, pl


@njit(**_OPTS)
def _exact_power(a, k, zero):
    """a**k as hi + lo for an exact a and 1 <= k <= 16: (a**2)**(k // 2), a**2 exact as two
    floats, times a for odd k."""
    if k == 1:
        return a, zero
    h = a * a
    ph, pl = _dd_power(h, _fma(a, a, -h), k >> 1)
    if k & 1:
        h = ph * a
        ph, pl = h, _fma(ph, a, -h) + pl * a
    return ph, pl


@njit(**_BIG)
def _pow_const(x, k2, one, low, up, down):
    """x**(k2 / 2) for a literal integer k2, 2 < |k2| <= 16, in x's type (``one`` is 1 in
    it), with C99's (NumPy's) special cases. A base b below ``low`` (whose power would be so
    small that the low parts of the products lose bits, or subnormal) is scaled by ``up`` first
    and the result by ``down`` (= up**-|y|) last."""
    zero = one - one
    k = abs(k2) >> 1
    a = abs(x)
    if k2 < 0:
        # |x|**y = (1 / |x|)**-y, 1 / |x| as bh + bl: no intermediate overflows where the
        # result does not
        bh = one / a
        bl = bh * _fma(-bh, a, one) if a - a == zero else zero
    else:
        bh, bl = a, zero
    small = bh < low
    bh, bl = (bh * up, bl * up) if small else (bh, bl)
    if k2 < 0:
        ph, pl = _dd_power(bh, bl, k) if k else (one, zero)
    else:
        ph, pl = _exact_power(bh, k, zero) if k else (one, zero)
    if k2 & 1:
        # times sqrt(b) = s (1 + r / (2 b)), r = b - s**2 (exact residual, plus b's low
        # part): the square root adds no error; b**k r s / (2 b) = b**(k - 1) s r / 2
        s = np.sqrt(bh)
        r = _fma(-s, s, bh) + bl
        h = ph * s
        below = _dd_power(bh, zero, k - 1)[0] if k > 1 else (one if k else one / bh)
        ph, pl = h, _fma(ph, s, -h) + _fma(pl, s, r * s * below / (one + one))
    scale = down if small else one
    # (where ph overflowed, pl may be an infinity of either sign or NaN; at +-inf and 0 too)
    # The scaling is exact unless the result is subnormal (which then rounds twice).
    v = ((ph + pl) if (ph - ph == zero) & (ph != zero) else ph) * scale
    if k2 & 1:
        return zero / zero if (x < zero) & (x - x == zero) else v
    return np.copysign(v, x) if k & 1 else v


@njit(**_BIG)
def pow_const_f64(x, k2):
    """x**(k2 / 2) for float64 x and a literal integer k2, 2 < |k2| <= 16: bases whose power is
    below 2**-900 scaled by 2**e, e = 2 ceil(100 / |y|) (the low parts stay normal)."""
    m = abs(k2)
    e = 2 * ((200 + m - 1) // m)
    return _pow_const(x, k2, 1.0, _pow2(-(1800 // m)), _pow2(e), _pow2(-(e * m) // 2))


@njit(**_BIG)
def pow_const_f32(x, k2):
    """x**(k2 / 2) for float32 x and a literal integer k2, 2 < |k2| <= 16: bases whose power is
    below 2**-80 scaled by 2**e, e = 2 ceil(32 / |y|)."""
    m = abs(k2)
    e = 2 * ((64 + m - 1) // m)
    return _pow_const(x, k2, _F(1.0), _F(_pow2(-(160 // m))), _F(_pow2(e)),
                      _F(_pow2(-(e * m) // 2)))


# --- a constant base -----------------------------------------------------------------------------

@njit(**_BIG)
def pow_base_f64(y, lh, ll):
    """b**y for float64 and a constant 0 < b < inf, b != 1, given ln b = lh + ll: e**(y ln b),
    y ln b in double-double. 1 at y = +-0, inf or 0 at y = +-inf, NaN at NaN."""
    v = _exp_dd_horner(*_times_dd(y, lh, ll))
    return v if y == y else y


@njit(**_BIG)
def pow_base_f32(y, lh, ll):
    """b**y for float32 and a constant 0 < b < inf, b != 1, given ln b = lh + ll (float32
    parts): u = y ln b in double-float, then ``fastmath.exp_f32``'s method with u's low part
    added to the reduced argument. 1 at y = +-0, inf or 0 at y = +-inf, NaN at NaN."""
    uh = y * lh
    ul = _fma(y, lh, -uh) + y * ll
    # uh clamped past both thresholds (NaN stays), where ul goes (NaN or inf if uh is)
    inside = (uh > _F(-104.0)) & (uh < _F(89.0))
    ul = ul if inside else _F(0.0)
    u = _F(-104.0) if uh < _F(-104.0) else uh
    u = _F(89.0) if u > _F(89.0) else u
    t, r = fm._reduce_exp(u)
    r = r + ul
    p = _fma(r, _fma(r, _fma(_fma(_fma(_fma(fm._E4, r, fm._E3), r, fm._E2), r, fm._E1), r,
                             fm._E0), _F(1.0)), _F(1.0))
    return fm._times_pow2(p, t)

