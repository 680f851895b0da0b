"""Vectorisable error functions (float64, and float32 in its own arithmetic) for generated kernels.

Companions of ``vecmath`` (same rules: arithmetic, selects, bit casts and ``vecmath``'s own
exp machinery, so LLVM vectorises a loop that calls them)::

    %3 : Double(*) = aten::erfc(%2)      ->      t3 = vs.erfc_f64(t2)
    %3 : Float(*) = aten::erf(%2)        ->      t3 = vs.erf_f32(t2)

Method: fdlibm's (``s_erf.c``), with its published rational approximations, made branch-free:
every lane evaluates one numerator and one denominator whose coefficients are selected by
the range of |x|, so each call costs two divisions and one exponential whatever the input:

- |x| < 0.84375: erf = x + x P(x^2) / Q(x^2);
- 0.84375 <= |x| < 1.25: erf = c + P1(s) / Q1(s), s = |x| - 1, c = 0.845062911510467529297;
- 1.25 <= |x| (clamped at 28, where erfc underflows): erfc = exp(-t^2 - 0.5625 +
  (t - |x|)(t + |x|) + R(1/x^2) / S(1/x^2)) / |x|, t = |x| with its low 32 bits cleared (so
  t^2 + 0.5625 is exact), R/S of degree 7/8 below 1/0.35, 6/7 above. R and S are evaluated as
  polynomials in x^2 with the coefficients reversed (R(1/z) z^8 / (S(1/z) z^8)), which saves
  the division 1/x^2; the exponential takes its argument as an exact part plus a small one
  (``_exp_sum``), so the large exact part loses nothing to rounding.

erf(x) = 1 - erfc(x) and erfc(x) = 1 - erf(x) in the ranges where that cancels nothing, as in
fdlibm; both are odd/even-extended by sign. The measured errors are in ``vecmath``'s table.

float32 erfc is computed in float32 too (``erfc_f32``): below |x| = 0.85, 1 -+ erf(|x|) by
``erf_f32``'s a + a Q(a^2) (erfc >= 0.23 there: the subtraction loses under an ulp); above,
e^(-a^2) erfcx(a), e^(-a^2) from a^2 split exactly (as ``erf_f32``'s tail) and erfcx(a) =
u G(u), u = 1 / (1 + a / 2) with its rounding error carried to first order, G a degree-9
polynomial; a clamped at 10.1, where float32's erfc rounds to 0, and the power of two applied in
two factors so that subnormal results round once. Max error 3.687 ulp over all 2^32 inputs (at
1.3286604; mean about 0.6 ulp on [1, 10]), against 0.500 for the float64 form it replaced
(a polynomial, a division and float64's exponential, four lanes a vector): 1.24-1.31 -> 0.60 ns
an element in ``benchmarks/ops.py`` (2^22 elements, 2 threads, SciPy's erfc 20.8 ns), as fast
as float32 erf.

float32 erf is computed in float32 (``erf_f32``): erf needs no relative accuracy in its tail,
where it is 1 - erfc(a) with erfc(a) < 0.08, so e**(-a^2) (float32, a^2's rounding error
taken off the reduced argument) times a degree-6 polynomial serves, and below 1.25 a + a Q(a^2)
with Q in a^2 - 0.4 (a shifted variable: Q in a^2 itself cancelled to 1.6 ulp near 1.2). Twice
the lanes per vector, no conversions, no division: 16.5 -> 5.0 ns an element (one thread's CPU
time, 2^20 elements, load 11, AMD Zen AVX2 host; the float64 form's division and exponential
ran 4 lanes a vector there); max error 1.222 ulp over all 2^32 inputs (at 1.2341199, near the
switch), against 0.500 for the float64 form.

float64 ``sinh``/``cosh``: a = |x| = n ln2 + r once (``vecmath``'s reduction); e**r - 1 = e + o
(its even and odd parts) gives e**-r - 1 = e - o as well, so (e**a -+ e**-a) / 2 needs neither a
division nor a second exponential; sinh for n = 0 is o alone (sinh(r), no cancellation). On
AVX-512 hosts (``vm.SCALEF``) sinh and cosh scale by ``vm._ldexp`` instead of clamped powers of
two (and sinh needs no select for n = 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import fastmath as fm
from .vecmath import (
    _BIG,
    _F,
    _I,
    _LN2_HI,
    _LN2_LO,
    _LOG2E,
    _OPTS,
    SCALEF,
    _bits_to_f64,
    _exp_scale,
    _expm1_poly,
    _f64_to_bits,
    _fma,
    _ldexp,
    _pow2,
    _reduce_exp,
)

_ERX = 8.45062911510467529297e-01
# fdlibm s_erf.c: erf on [0, 0.84375] (pp, qq), on [0.84375, 1.25] (pa, qa), erfc on
# [1.25, 1/0.35] (ra, sa) and on [1/0.35, 28] (rb, sb)
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)
_SMALL, _MID, _FAR = 0.84375, 1.25, 1.0 / 0.35


@njit(**_OPTS)
def _exp_sum(a, b):
    """e**(a + b) for an exact a in [-800, 0] and |b| < 1, without rounding a + b."""
    n = np.rint((a + b) * _LOG2E)
    r = ((a - n * _LN2_HI) + b) - n * _LN2_LO      # (a - n ln2_hi is exact)
    return _exp_scale(_I(n), _expm1_poly(r), 0.0)


@njit(**_OPTS)
def _tail_ratio(z, far):
    """R(1/z) / S(1/z) for z = x^2 >= 1.5625, as R(1/z) z^8 / (S(1/z) z^8)."""
    # below 1/0.35: R of degree 7, S of degree 8; above: 6 and 7 (an extra factor z on top)
    num = _RA[0] if not far else _RB[0]
    num = num * z + (_RA[1] if not far else _RB[1])
    num = num * z + (_RA[2] if not far else _RB[2])
    num = num * z + (_RA[3] if not far else _RB[3])
    num = num * z + (_RA[4] if not far else _RB[4])
    num = num * z + (_RA[5] if not far else _RB[5])
    num = num * z + (_RA[6] if not far else _RB[6])
    num = num * z + _RA[7] if not far else num
    num = num * z
    den = z + (_SA[0] if not far else _SB[0])
    den = den * z + (_SA[1] if not far else _SB[1])
    den = den * z + (_SA[2] if not far else _SB[2])
    den = den * z + (_SA[3] if not far else _SB[3])
    den = den * z + (_SA[4] if not far else _SB[4])
    den = den * z + (_SA[5] if not far else _SB[5])
    den = den * z + (_SA[6] if not far else _SB[6])
    den = den * z + _SA[7] if not far else den
    return num, den


@njit(**_BIG)
def _erf_parts(x):
    """(erf(x), erfc(x)) for finite or infinite x; NaN gives NaN."""
    a = abs(x)
    a = 0.0 if a != a else min(a, 28.0)
    z = a * a
    small = a < _SMALL
    mid = (a >= _SMALL) & (a < _MID)
    # one numerator and one denominator for the lane's range, then a single division
    s = a - 1.0
    p_small = _PP[0] + z * (_PP[1] + z * (_PP[2] + z * (_PP[3] + z * _PP[4])))
    q_small = 1.0 + z * (_QQ[0] + z * (_QQ[1] + z * (_QQ[2] + z * (_QQ[3] + z * _QQ[4]))))
    p_mid = _PA[0] + s * (_PA[1] + s * (_PA[2] + s * (_PA[3] + s * (
        _PA[4] + s * (_PA[5] + s * _PA[6])))))
    q_mid = 1.0 + s * (_QA[0] + s * (_QA[1] + s * (_QA[2] + s * (
        _QA[3] + s * (_QA[4] + s * _QA[5])))))
    p_tail, q_tail = _tail_ratio(max(z, 1.5625), a >= _FAR)
    num = p_small if small else (p_mid if mid else p_tail)
    den = q_small if small else (q_mid if mid else q_tail)
    ratio = num / den
    # |x| < 0.84375
    e_small = x + x * ratio
    c_small = 1.0 - e_small if x < 0.25 else 0.5 - (x * ratio + (x - 0.5))
    # 0.84375 <= |x| < 1.25
    e_mid = np.copysign(_ERX + ratio, x)
    c_mid = (1.0 - _ERX) - ratio if x > 0.0 else 1.0 + (_ERX + ratio)
    # 1.25 <= |x|
    t = _bits_to_f64(_f64_to_bits(a) & _I(-4294967296))      # (low 32 bits cleared)
    tail = _exp_sum(-t * t - 0.5625, (t - a) * (t + a) + ratio) / max(a, _MID)
    c_far = tail if x > 0.0 else 2.0 - tail
    e_far = np.copysign(1.0 - tail, x)
    erf = e_small if small else (e_mid if mid else e_far)
    erfc = c_small if small else (c_mid if mid else c_far)
    return (x, x) if x != x else (erf, erfc)


@njit(**_BIG)
def erf_f64(x):
    """The error function for float64."""
    return _erf_parts(x)[0]


@njit(**_BIG)
def erfc_f64(x):
    """The complementary error function 1 - erf(x) for float64, accurate where it is small."""
    return _erf_parts(x)[1]


@njit(**_OPTS)
def _horner(z, c):
    p = c[len(c) - 1]
    for k in range(len(c) - 2, -1, -1):
        p = p * z + c[k]
    return p


# float32 erf in float32 arithmetic (``erf_f32``), fitted here by Lawson's iteration (scipy's
# erf and erfcx as the target): erf(a) / a - 1 as a polynomial of degree 7 in a**2 - 0.4 on
# [0, 1.25] (relative error 2**-29.9); erfcx(a) = e**(a**2) erfc(a) as one of degree 6 in
# a - 2.625 on [1.25, 4], weighted by erfc(a), the weight its error has in erf = 1 - erfc
# (0.06 ulp of erf at most). erf of a float32 above 4 rounds to 1.
_ERF32_Q = (_F(-0.005611305590718985), _F(-0.2975168824195862), _F(0.0851096585392952),
            _F(-0.019733896479010582), _F(0.0037735921796411276), _F(-0.0006099505117163062),
            _F(8.273582352558151e-05), _F(-7.573399670945946e-06))
_ERF32_R = (_F(0.2018711417913437), _F(-0.06855577975511551), _F(0.022234268486499786),
            _F(-0.005810036323964596), _F(0.004253801889717579), _F(0.0013431316474452615),
            _F(0.0008794552413746715))
_ERF32_SPLIT, _ERF32_Z0, _ERF32_MID, _ERF32_ONE = _F(1.25), _F(0.4), _F(2.625), _F(4.0)


@njit(**_OPTS)
def _exp_neg_square_parts_f32(a):
    """(p, t) with e**(-a**2) = p 2**n, n held in t's bits (``fastmath._reduce_exp``), for
    float32 a with a**2 < 2**21: a**2 = h + l exactly (one fused multiply-add for l), e**-h by
    ``fastmath``'s reduction and polynomial with l taken off the reduced argument, so the
    square's rounding is not in the result."""
    h = a * a
    lo = _fma(a, a, -h)              # (exact: always fused)
    t, r = fm._reduce_exp(-h)
    r = r - lo
    p = fm._fma(r, fm._fma(r, fm._fma(fm._fma(fm._fma(fm._fma(
        fm._E4, r, fm._E3), r, fm._E2), r, fm._E1), r, fm._E0), _F(1.0)), _F(1.0))
    return p, t


@njit(**_OPTS)
def _exp_neg_square_f32(a):
    """e**(-a**2) for float32 1 <= a <= 4 (``_exp_neg_square_parts_f32``); normal throughout
    (>= e**-16)."""
    p, t = _exp_neg_square_parts_f32(a)
    return p * fm._pow2_bits(t, 127)


@njit(**_BIG)
def _erf_near_f32(a):
    """erf(a) for float32 0 <= a <= 1.25 by a + a Q(a**2 - 0.4) (``_ERF32_Q``). (Without
    contraction, as in the forms that call it: a**2 - 0.4 rounded twice, as fitted.)"""
    z = a * a - _ERF32_Z0
    q = _ERF32_Q
    p = fm._fma(fm._fma(fm._fma(q[7], z, q[6]), z, q[5]), z, q[4])
    p = fm._fma(fm._fma(fm._fma(fm._fma(p, z, q[3]), z, q[2]), z, q[1]), z, q[0])
    return fm._fma(a, p, a)


@njit(**_BIG)
def erf_f32(x):
    """erf for float32 in float32 arithmetic: a = |x|; below 1.25, a + a Q(a**2); above,
    1 - e**(-a**2) R(a - 2.625), a clamped at 4 (where erf rounds to 1; inf too); x's sign
    (-0 stays -0, NaN stays NaN through both forms). Both forms are computed, one kept."""
    a = abs(x)
    a = _ERF32_ONE if a > _ERF32_ONE else a
    near = _erf_near_f32(a)
    u = a - _ERF32_MID
    c = _ERF32_R
    rr = fm._fma(fm._fma(fm._fma(c[6], u, c[5]), u, c[4]), u, c[3])
    rr = fm._fma(fm._fma(fm._fma(rr, u, c[2]), u, c[1]), u, c[0])
    # (the tail form at a >= 1.25 only, so that the small a of the other form keep it in range)
    b = _ERF32_SPLIT if a < _ERF32_SPLIT else a
    far = _F(1.0) - _exp_neg_square_f32(b) * rr
    return np.copysign(near if a < _ERF32_SPLIT else far, x)


# float32 erfc in float32 arithmetic (``erfc_f32``): erfcx(a) = e**(a**2) erfc(a) as u G(u),
# u = 1 / (1 + a / 2), G a polynomial of degree 9 fitted here on a in [0.5, 10.1] (Lawson's
# iteration, scipy's erfcx the target, relative error), each coefficient rounded to float32 and
# the rest fitted again around it: relative error 2**-28.5 with the float32 coefficients. u's
# own rounding error is carried to first order (``_erfc_tail_f32``); the rest of the 3.687 ulp
# (``vecmath``'s table) is the float32 evaluation of G and of e**(-a**2), about 1.5 and 1.3
# units of 2**-24 at worst.
_ERFCX32 = (_F(0.2820863723754883), _F(0.2823212146759033), _F(0.24423052370548248),
            _F(0.19300174713134766), _F(0.01859206333756447), _F(0.15208496153354645),
            _F(-0.27180707454681396), _F(0.06299039721488953), _F(0.06681838631629944),
            _F(-0.030346734449267387))
# d log(u G(u)) / d log u, a cubic in u (least squares, within 7.5e-4): the weight of u's
# rounding error in erfcx
_ERFCX32_S = (_F(1.0197547674179077), _F(0.7651832699775696), _F(1.7117478847503662),
              _F(-1.2611535787582397))
_ERFC32_SPLIT = _F(0.85)
# erfc of a float32 above this rounds to 0 (below it, to subnormals down to 1.4e-45)
_ERFC32_ZERO = _F(10.1)


@njit(**_OPTS)
def _erfc_tail_f32(a):
    """erfc(a) for float32 0.85 <= a <= 10.1: e**(-a**2) (``_exp_neg_square_parts_f32``, the
    power of two in two factors so that subnormal results round once) times erfcx(a) = u G(u)
    by ``_ERFCX32``."""
    p, t = _exp_neg_square_parts_f32(a)
    # u = 1 / (1 + a / 2) = u0 (1 + rho): 1 + a / 2 = d + e exactly (e is d's rounding
    # error), u0 = 1 / d rounded, rho = 1 - u0 d - u0 e to first order; then erfcx(a) =
    # u0 G(u0) (1 + s rho), s = d log(u G) / d log u (between 1.19 and 1.96) by _ERFCX32_S
    d = fm._fma(a, _F(0.5), _F(1.0))
    e = fm._fma(a, _F(0.5), _F(1.0) - d)
    u0 = _F(1.0) / d
    rho = fm._fma(-u0, e, fm._fma(-u0, d, _F(1.0)))
    c = _ERFCX32
    g = fm._fma(fm._fma(fm._fma(fm._fma(c[9], u0, c[8]), u0, c[7]), u0, c[6]), u0, c[5])
    g = fm._fma(fm._fma(fm._fma(fm._fma(fm._fma(g, u0, c[4]), u0, c[3]), u0, c[2]), u0, c[1]),
                u0, c[0])
    cs = _ERFCX32_S
    sens = fm._fma(fm._fma(fm._fma(cs[3], u0, cs[2]), u0, cs[1]), u0, cs[0])
    q0 = u0 * g
    q = fm._fma(q0, sens * rho, q0)
    return fm._times_pow2(p * q, t)


@njit(**_BIG)
def erfc_f32(x):
    """erfc for float32 in float32 arithmetic: 1 -+ erf(a) below a = |x| = 0.85
    (``_erf_near_f32``), above e**(-a**2) erfcx(a) (``_erfc_tail_f32``, a clamped at 10.1 where
    erfc rounds to 0), and 2 minus it for x < 0; NaN gives NaN."""
    a = abs(x)
    near = _erf_near_f32(a)
    b = _ERFC32_SPLIT if a < _ERFC32_SPLIT else (_ERFC32_ZERO if a > _ERFC32_ZERO else a)
    tail = _erfc_tail_f32(b)
    small = a < _ERFC32_SPLIT
    positive = x >= _F(0.0)
    v = (_F(1.0) - near if positive else _F(1.0) + near) if small else (
        tail if positive else _F(2.0) - tail)
    return x + x if x != x else v


# --- float64 sinh and cosh ------------------------------------------------------------------------

# e**r - 1 = z E(z) + r + r z O(z), z = r**2, for |r| <= 0.35: E and O of degree 4 in z,
# interpolated at the five Chebyshev nodes of [0, 0.35**2] (exact arithmetic, from their Taylor
# series): z |E - exact| < 1.4e-17 and z |O - exact| < 2.1e-18 with these rounded coefficients,
# against Taylor to r**12 and r**13 (one more fused multiply-add for each)
_EVEN = (0.5000000000000001, 0.04166666666662068, 0.0013888888918918907,
         2.4801518672268355e-05, 2.7621324269313687e-07)
_ODD = (0.16666666666666669, 0.008333333333329796, 0.00019841269864364933,
        2.7557266442353424e-06, 2.5101335854788522e-08)


@njit(**_OPTS)
def _horner5(z, c):
    """c[0] + c[1] z + ... + c[4] z**4 by Horner's rule (see ``vecmath._exp_poly``)."""
    return _fma(_fma(_fma(_fma(c[4], z, c[3]), z, c[2]), z, c[1]), z, c[0])


@njit(**_OPTS)
def _exp_both(r):
    """(e, o), the even and odd parts of e**r - 1 for |r| <= 0.35: e**r - 1 = e + o and
    e**-r - 1 = e - o, from one pair of polynomials."""
    z = r * r
    return z * _horner5(z, _EVEN), _fma(r * z, _horner5(z, _ODD), r)


@njit(**_OPTS)
def _hyperbolic(a):
    """(p, d, f, e, o, k) for 0 <= a <= 711, from one reduction a = k ln2 + r and the even and
    odd parts e, o of e**r - 1: e**a / 2 = s1 (1 + e + o) f, e**-a / 2 = s2 (1 + e - o), with
    p = s1 + s2 and d = s1 - s2 (exact while s2 matters, k <= 26; s2 clamped at 2**-1000)."""
    k, r = _reduce_exp(a)
    e, o = _exp_both(r)
    kc = min(k - _I(1), _I(1000))
    s1 = _pow2(kc)
    s2 = _pow2(max(-k - _I(1), _I(-1000)))
    return s1 + s2, s1 - s2, _pow2(k - _I(1) - kc), e, o, k


@njit(**_BIG)
def _sinh_bits(x):
    """Hyperbolic sine for float64: (e**a - e**-a) / 2 = d (1 + e) + p o, a = |x|; for k = 0
    (|x| < 0.35) the odd part o alone, which is sinh(r) = sinh(a)."""
    a = abs(x)
    p, d, f, e, o, k = _hyperbolic(a if a < 711.0 else 711.0)
    v = o if k == _I(0) else (d + _fma(p, o, d * e)) * f
    return x if x != x else np.copysign(v, x)


@njit(**_BIG)
def _cosh_bits(x):
    """Hyperbolic cosine for float64: (e**a + e**-a) / 2 = p (1 + e) + d o."""
    a = abs(x)
    p, d, f, e, o, _k = _hyperbolic(a if a < 711.0 else 711.0)
    v = (p + _fma(p, e, d * o)) * f
    return x if x != x else v


@njit(**_BIG)
def _cosh_scalef(x):
    """Hyperbolic cosine for float64 on AVX-512 hosts: (e**a + e**-a) / 2 =
    2**(k-1) (p (1 + e) + d o), p = 1 + w, d = 1 - w, w = 2**-2k, with ``vm._ldexp`` making w and
    scaling the sum (so no clamped factors; NaN passes the clamp and stays NaN)."""
    a = abs(x)
    k, r = _reduce_exp(711.0 if a > 711.0 else a)
    e, o = _exp_both(r)
    w = _ldexp(1.0, -(k + k))
    p = 1.0 + w
    return _ldexp(p + _fma(p, e, (1.0 - w) * o), k - _I(1))


@njit(**_BIG)
def _sinh_scalef(x):
    """Hyperbolic sine for float64 on AVX-512 hosts: 2**(k-1) (d (1 + e) + p o) as in
    ``_cosh_scalef``; for k = 0, d = 0 and p = 2, so the odd part o comes out exactly, with no
    select."""
    a = abs(x)
    k, r = _reduce_exp(711.0 if a > 711.0 else a)
    e, o = _exp_both(r)
    w = _ldexp(1.0, -(k + k))
    d = 1.0 - w
    return np.copysign(_ldexp(d + _fma(d, e, (1.0 + w) * o), k - _I(1)), x)


cosh_f64 = _cosh_scalef if SCALEF else _cosh_bits
sinh_f64 = _sinh_scalef if SCALEF else _sinh_bits
