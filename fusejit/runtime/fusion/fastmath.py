"""Vectorisable float32 ``exp``, ``expm1``, ``log``, ``log1p``, ``log2``, ``log10``, ``tanh``,
``sigmoid``, ``sinh``, ``cosh``, ``asinh``, ``acosh`` and ``atanh`` for generated kernels (the
trigonometry is ``vectrig``, pow ``vecpow``).

The pip llvmlite has no SVML, so a kernel calling libm's ``expf`` runs one element at a time.
These functions use only arithmetic, comparisons and bit casts, which LLVM vectorises, so
``aten::tanh`` on float32 costs a few cycles an element::

    %3 : Float(*, *) = aten::tanh(%2)      ->      t3 = fm.tanh_f32(t2)        (precise=False)
                                           ->      t3 = math.tanh(t2)          (precise=True)

Method (the coefficients were fitted here by iterated weighted least squares, near-minimax).
The exp/log family is written for LLVM's vectoriser on AVX-512: no division where a polynomial
will do, integer operations on the bits instead of float compares and selects, and each one
about 15-30 vector instructions per 16 elements, which keeps a kernel close to memory speed:

- exponent reduction (``_reduce_exp``): y = n ln2 + r, |r| <= ln2/2, ln2 in two parts
  (Cody-Waite); n = rint(y / ln2) by adding 1.5 * 2^23, which leaves n in the sum's low bits,
  so 2^n is built by an integer shift and add (no float-to-int conversion, and a NaN stays a
  NaN without any select).
- ``exp_f32``: e^r = 1 + r (1 + r P4(r)) (Horner, fused multiply-adds); 2^n as two factors, so
  results down in the subnormal range round once.
- ``expm1_f32``: with h = 2^(n-1) and rest = e^r - 1 - r = r^2 P4(r),
  2 (h rest + (h r + (h - 1/2))): the inner sum is exact for |n| <= 24 and nothing overflows
  before e^x does; x itself where |x| < 2^-24. Kernel loops use ``expm1_inside_f32`` for
  |x| <= 88 (below): h = 2^n itself, so neither the clamps nor the select for tiny x.
- ``log_f32``/``log2_f32``/``log10_f32``: subnormals scaled by 2^23; the bits of x minus those of
  sqrt(1/2) give e (shift) and m = 1 + f in [sqrt(1/2), sqrt(2)) (mask and add back), so the
  exponent's step needs no compare; a polynomial of f (no division): log(1 + f) = f + f^2 Q8(f),
  then e ln2 (two parts) + it; log2(1 + f) = f P8(f), e added by its last fused multiply-add;
  log10(1 + f) = f P8'(f) + e log10(2) (two parts).
- Kernel loops use ``*_inside_f32`` (``templates.inside_form``): the same arithmetic for
  positive normal finite x (log1p: -1 < x < 1.2e38; expm1: |x| <= 88) without the subnormal
  and special-value steps (9 of log10's ~30 vector instructions); the loop notes whether a
  strip holds another x (``log_outside``, ``log1p_outside``, ``expm1_outside``: one integer
  add and compare on the bits for the logs) and only then computes that strip again with the
  full form (measured: a zero in every strip of a 2^22 log10 took it from 0.69 to 1.08 ns an
  element, one thread).
- ``log1p_f32``: e from u = 1 + x rounded (as ``_split``), then f = x 2^-e + (2^-e - 1) by one
  fused multiply-add and its rounding error d by another (d is 0 but for 1.41 < 1 + x < 1.5,
  where x's ulp times 2^-e is finer than f's): log(1 + x) = e ln2 + log(1 + f) + d / (1 + f),
  d's slope a constant (the Fast2Sum of 1 + x and a second split it replaced cost 6 more
  vector instructions); x's sign (so -0.0 stays -0.0).
- ``sinh_f32`` (``_hyperbolic``): |x| = n ln2 + r, A, B = 2^(n-2) -+ 2^(-n-2),
  sinh = 2A + 2B r + A (2 cosh r - 2) + B (2 sinh r - 2r), even and odd polynomials in r, the
  smallest terms added first with fused multiply-adds (A = 0 at n = 0, so sinh near 0 is r
  plus its small part); |x| clamped at 89.5, past the overflow.
- ``cosh_f32``: h + 0.25 / h with h = e^|x| / 2 = 2^(n-2) (2 e^r) (exp's polynomial doubled,
  so h stays finite up to cosh's own overflow at 89.4159): one reduction, one division.
- ``tanh_f32``: u / (u + 2) with u = expm1(2|x|) (|x| clamped at 10), x's sign; u is formed
  at |x| (2|x| = n ln2 + 2s, the polynomial's coefficients scaled by powers of two), ln2/2 in
  one part (n <= 29: the constant's error reaches tanh damped; no change in the error measured
  over all 2^32 inputs); tiny x need no select (u is 2|x| exactly and u + 2 rounds to 2).
- ``sigmoid_f32``: 1 / (1 + exp_f32(-x)).
- ``asinh_f32``/``acosh_f32``/``atanh_f32``: ``log1p_f32`` of an argument without cancellation
  (float32 arithmetic, one square root and/or one division; ``vecmath``'s float64 forms give
  the ranges). Computing the argument in float64 instead took the worst case from 1.5 to 1.44
  ulp (sampled) at 1.5-1.7x the cost. Kernel loops take ``*_inside_f32`` (log1p's short form,
  no special values; asinh, acosh below 2^125, atanh for |x| < 1) and fix up the strips
  holding another x. One core of an AMD EPYC (Zen 5, AVX-512), 2^22 elements: NumPy's own
  float32 forms 0.40-0.51 ns an element, the full forms 0.57-0.65, the kernels' 0.36-0.40.
Measured accuracy, against float64 libm (NumPy's float64 function), unrounded, in ulps of the
float32 result, over all 2^32 float32 inputs (``python tools/ulp_sweep.py f32 NAME``; the tests
run a sparser sample plus the special values). The
polynomials use llvm.fmuladd: fused where the CPU has FMA, as on the AVX-512 + FMA host
(Intel Sapphire Rapids) these were measured on. For comparison, NumPy's own float32 forms
(Intel SVML, AVX-512) are documented at up to 4 ulp.

==========  =========  =====================  ===================================================
function    max ulp    worst input            notes
==========  =========  =====================  ===================================================
exp_f32     0.917      -59.922183990478516    inf above 88.7228, 0 below -103.973, NaN stays NaN
log_f32     0.921      1.5710409879684448     -inf at +-0, NaN below 0 and at NaN, inf at inf
log1p_f32   1.051      0.41467586159706116    -inf at -1, NaN below -1; -0.0 stays -0.0
expm1_f32   1.315      15.636480331420898     -1 below -17.3, inf above 88.7228
log2_f32    1.897      1.3914061784744263     exact at powers of two
log10_f32   1.817      0.9977635741233826
sinh_f32    1.227      7.972576141357422      +-inf beyond +-89.4159
cosh_f32    1.368      4.53892707824707       inf beyond +-89.4159
tanh_f32    2.606      0.06242450699210167    exactly +-1 beyond |x| ~ 9.01
sigmoid     2.481      -16.635704040527344    0 below -88.72 as the reference
asinh_f32   1.878      0.5178653001785278     odd; +-inf and NaN their own
acosh_f32   2.018      1.007264494895935      NaN below 1, 0 at 1, inf at inf
atanh_f32   1.716      0.2219821661710739     odd; +-inf at +-1, NaN beyond
==========  =========  =====================  ===================================================

(asinh, acosh and atanh measured on an AMD EPYC (Zen 4) AVX-512 + FMA host, and again
after their arguments' change at 2^125 on a Zen 5 one: the same figures.)
(``ULP_BOUNDS`` below holds the bounds the tests assert.) ``precise=True`` on a kernel keeps
libm for all of these.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# measured, rounded up
ULP_BOUNDS = {"exp": 1.0, "log": 1.0, "tanh": 2.65, "sigmoid": 2.5, "log1p": 1.1,
              "expm1": 1.4, "log2": 1.95, "log10": 1.85, "sinh": 1.3, "cosh": 1.4,
              "asinh": 1.9, "acosh": 2.05, "atanh": 1.75}

# Only contraction (a * b + c -> fma where the CPU has one): it halves the polynomial work and
# cannot make a result less accurate than the bounds measured with and without FMA. The flag
# sits on these functions' own instructions, so a kernel's arithmetic around a call is never
# contracted.
_FM = {"contract"}
_OPTS = {"cache": True, "error_model": "numpy", "fastmath": _FM}


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


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c, fused where the CPU has FMA (llvm.fmuladd: vectorises, never a libm call).
    Explicit, so that the polynomials keep their FMAs where Numba inlines these functions
    into a kernel compiled without contraction."""
    if not (a == b == c and a in (types.float32, types.float64)):
        return None
    ty = ir.FloatType() if a == types.float32 else ir.DoubleType()

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [ty], ir.FunctionType(ty, [ty] * 3))
        return builder.call(fn, args)
    return a(a, a, a), codegen


_F = np.float32
_I = np.int32
_ONE = _F(1.0)
_LOG2E = _F(1.44269504088896341)
_LN2_HI = _F(0.693359375)            # few mantissa bits: n * _LN2_HI is exact
_LN2_LO = _F(-2.12194440e-4)
# y / ln 2 + 1.5 * 2**23 rounds y / ln 2 to an integer n and leaves n in the sum's low mantissa
# bits: the sum's bits shifted left by 23 are n's exponent field, with no float-to-int convert
_SHIFTER = _F(12582912.0)
_SHIFTER_BITS = _I(0x4B400000)
# e**r - 1 = r + r**2 (_E0 + _E1 r + ... + _E4 r**4) for |r| <= ln2 / 2 (fitted here, 0.22 ulp)
_E0, _E1, _E2 = _F(0.4999999701976776), _F(0.16666541993618011), _F(0.04166720435023308)
_E3, _E4 = _F(0.008366646245121956), _F(0.0013882534112781286)
_EXP_LO = _F(-104.0)
_EXP_HI = _F(89.0)


@njit(**_OPTS)
def _reduce_exp(y):
    """(t, r) with y = n ln2 + r, |r| <= ln2/2, n held in t's bits (``_SHIFTER``), for
    |y| < 2**21 (NaN stays NaN)."""
    t = _fma(y, _LOG2E, _SHIFTER)
    n = t - _SHIFTER
    return t, _fma(n, -_LN2_LO, _fma(n, -_LN2_HI, y))


@njit(**_OPTS)
def _pow2_bits(t, bias):
    """2.0**(n + bias - 127) from ``_reduce_exp``'s t, for an exponent field in [1, 254]."""
    return _bits_to_f32(_I(_I(_f32_to_bits(t) << _I(23)) + _I(bias << 23)))


@njit(**_OPTS)
def _times_pow2(p, t):
    """p 2**n, n held in ``_reduce_exp``'s t (|n| <= 252), 2**n as two factors so
    that results in the subnormal range round once."""
    k = _I(_f32_to_bits(t) - _SHIFTER_BITS)
    k1 = _I(k >> _I(1))
    return p * _bits_to_f32(_I((k1 + _I(127)) << _I(23))) * _bits_to_f32(
        _I((k - k1 + _I(127)) << _I(23)))


@njit(**_OPTS)
def exp_f32(x):
    """e**x for float32, max error 1 ulp (see the module docstring)."""
    y = _EXP_LO if x < _EXP_LO else x           # (NaN passes both and stays NaN)
    y = _EXP_HI if y > _EXP_HI else y
    t, r = _reduce_exp(y)
    p = _fma(r, _fma(r, _fma(_fma(_fma(_fma(_E4, r, _E3), r, _E2), r, _E1), r, _E0), _ONE),
             _ONE)
    return _times_pow2(p, t)


@njit(**_OPTS)
def _expm1_core(y):
    """e**y - 1 for -18 <= y <= 89 (or NaN): with h = 2**(n-1), 2 (h r + (h - 1/2) + h rest),
    rest = e**r - 1 - r: the first two terms add exactly for |n| <= 24, so the sum rounds
    about once (and stays finite up to e**y's overflow)."""
    t = _fma(y, _LOG2E, _SHIFTER)
    n = t - _SHIFTER
    r = _fma(n, -_LN2_LO, _fma(n, -_LN2_HI, y))
    rest = r * r * _fma(_fma(_fma(_fma(_E4, r, _E3), r, _E2), r, _E1), r, _E0)
    h = _pow2_bits(t, 126)
    v = _fma(h, rest, _fma(h, r, h - _F(0.5)))
    return v + v


@njit(**_OPTS)
def expm1_f32(x):
    """e**x - 1 for float32 (see the module docstring)."""
    y = _F(-18.0) if x < _F(-18.0) else x       # (below, e**x is under half an ulp of 1)
    y = _EXP_HI if y > _EXP_HI else y
    # x itself where |x| < 2**-24 (e**x - 1 rounds to x there): also -0.0 and subnormals,
    # which the halving by h would round
    return x if abs(x) < _F(5.9604645e-08) else _expm1_core(y)


# expm1's short form: |x| <= 88, where 2**n (n = rint(x / ln2), |n| <= 127) is normal or, at
# n = -127, its bits make 0 (and the result -1 either way)
_EXPM1_INSIDE = _F(88.0)


@njit(**_OPTS)
def expm1_outside(x):
    """Whether float32 x is outside ``expm1_inside_f32``'s domain (|x| <= 88): beyond it, inf
    and NaN, which a kernel's fix-up gives ``expm1_f32``."""
    return not abs(x) <= _EXPM1_INSIDE


@njit(**_OPTS)
def expm1_inside_f32(x):
    """``expm1_f32`` for |x| <= 88: ``_expm1_core``'s sum with h = 2**n itself, not halved and
    doubled, since 2**n stays finite, so it needs neither the clamps nor the select for tiny
    x: for n = 0 the sum is r + rest, r = x exactly (subnormals too) and rest below half its
    ulp where |x| < 2**-24; x's sign keeps -0.0. The same roundings, scaled by 2, as
    ``expm1_f32`` (tested bit-equal)."""
    t = _fma(x, _LOG2E, _SHIFTER)
    n = t - _SHIFTER
    r = _fma(n, -_LN2_LO, _fma(n, -_LN2_HI, x))
    rest = r * r * _fma(_fma(_fma(_fma(_E4, r, _E3), r, _E2), r, _E1), r, _E0)
    h = _pow2_bits(t, 127)
    return np.copysign(_fma(h, rest, _fma(h, r, h - _ONE)), x)


# log(1 + f) = f + f**2 (_Q0 + _Q1 f + ... + _Q8 f**8) for sqrt(1/2) - 1 <= f < sqrt(2) - 1
# (fitted here, 0.07 ulp): a polynomial of f, no division
_Q = (_F(-0.49999988079071045), _F(0.33333325386047363), _F(-0.25001588463783264),
      _F(0.20001985132694244), _F(-0.16608987748622894), _F(0.14181587100028992),
      _F(-0.13243421912193298), _F(0.12905927002429962), _F(-0.07622604072093964))
_SQRT_HALF_BITS = _I(0x3F3504F3)
_TINY = _F(1.17549435e-38)
_TWO23 = _F(8388608.0)
_INF, _NEG_INF, _NAN = _F(np.inf), _F(-np.inf), _F(np.nan)


@njit(**_OPTS)
def _log1p_poly(f):
    q = _fma(_fma(_fma(_fma(_Q[8], f, _Q[7]), f, _Q[6]), f, _Q[5]), f, _Q[4])
    q = _fma(_fma(_fma(_fma(q, f, _Q[3]), f, _Q[2]), f, _Q[1]), f, _Q[0])
    return _fma(f * f, q, f)


@njit(**_OPTS)
def _split(x):
    """(e, f) with x = (1 + f) 2**e, 1 + f in [sqrt(1/2), sqrt(2)), for a positive normal
    float32 x: integer operations on the bits (subtracting sqrt(1/2)'s bits first puts the
    exponent's step at sqrt(1/2), so no compare and select is needed)."""
    ix = _I(_f32_to_bits(x) - _SQRT_HALF_BITS)
    e = _I(ix >> _I(23))
    m = _bits_to_f32(_I(_I(ix & _I(0x7FFFFF)) + _SQRT_HALF_BITS))
    return e, m - _ONE


@njit(**_OPTS)
def _log_special(x, result):
    """``result`` made log's value at +-0, below 0, NaN and inf."""
    result = _NEG_INF if x == _F(0.0) else result
    result = _NAN if x < _F(0.0) else result
    return x if not x < _INF else result         # (NaN and +inf)


@njit(**_OPTS)
def _split_any(x):
    """``_split`` for any x > 0: subnormals scaled by 2**23 first, and 23 taken off e."""
    sub = x < _TINY
    e, f = _split(x * _TWO23 if sub else x)
    return _I(e - _I(23)) if sub else e, f


def _wrap32(v: int) -> np.int32:
    """Python integer ``v`` modulo 2**32, as an int32 (two's complement)."""
    return _I((v + (1 << 31)) % (1 << 32) - (1 << 31))


# Bit patterns of the positive normal finite float32s: [_NORMAL_LO, _INF_BITS)
_NORMAL_LO, _INF_BITS = 0x00800000, 0x7F800000


@njit(**_OPTS)
def _bits_outside(bits, add, limit):
    """Whether int32 ``bits`` lies outside [lo, hi) as an unsigned number, with
    ``add = _wrap32(2**31 - lo)`` and ``limit = _wrap32(hi - lo - 2**31)``: bits - lo + 2**31
    (wrapping) is below ``limit`` exactly inside. One add and one compare, where the float
    compares (x >= tiny) & (x < inf) took LLVM four vector instructions and a mask negation."""
    return _I(bits + add) >= limit


_LOG_ADD, _LOG_LIMIT = _wrap32((1 << 31) - _NORMAL_LO), _wrap32(_INF_BITS - _NORMAL_LO - (1 << 31))


@njit(**_OPTS)
def log_outside(x):
    """Whether float32 x is outside the domain of the ``*_inside_f32`` logs (positive, normal,
    finite): 0, subnormals, negatives, inf and NaN, which a kernel's fix-up gives the full form."""
    return _bits_outside(_f32_to_bits(x), _LOG_ADD, _LOG_LIMIT)


@njit(**_OPTS)
def _full(log_of, x):
    """log_of(e, f) for any x (the special values as ``_log_special``)."""
    e, f = _split_any(x)
    return _log_special(x, log_of(e, f))


@njit(**_OPTS)
def _inside(log_of, x):
    """log_of(e, f) for a positive normal finite x: the same arithmetic as ``_full`` there."""
    e, f = _split(x)
    return log_of(e, f)


@njit(**_OPTS)
def _ln_of(e, f):
    ef = _F(e)
    return _fma(ef, _LN2_HI, _fma(ef, _LN2_LO, _log1p_poly(f)))


@njit(**_OPTS)
def log_f32(x):
    """Natural log for float32, max error 1 ulp (see the module docstring)."""
    return _full(_ln_of, x)


@njit(**_OPTS)
def log_inside_f32(x):
    """``log_f32`` where not ``log_outside(x)``."""
    return _inside(_ln_of, x)


# log2(1 + f) = f (_L2[0] + _L2[1] f + ... + _L2[8] f**8) and log10(1 + f) = f (_L10[0] + ...)
# for sqrt(1/2) - 1 <= f < sqrt(2) - 1 (fitted here, relative error 2**-25.1 and 2**-24.4, the
# latter mostly _L10[0]'s rounding of 1 / ln 10): each a polynomial of its own, so that e is
# added by the last fused multiply-add (log2) and no product by 1 / ln b is needed.
_L2 = (_F(1.442695), _F(-0.7213474), _F(0.480909), _F(-0.36070055), _F(0.28795248),
       _F(-0.2390153), _F(0.21549085), _F(-0.20678702), _F(0.12581575))
_L10 = (_F(0.43429446), _F(-0.21714723), _F(0.14477058), _F(-0.10857975), _F(0.08659661),
        _F(-0.07195566), _F(0.065737635), _F(-0.06252862), _F(0.035804816))
_LOG10_2_HI = _F(0.30102539)            # log10(2) in 16 bits: e * _LOG10_2_HI is exact
_LOG10_2_LO = _F(4.6050389811952132e-06)


@njit(**_OPTS)
def _horner9(c, f):
    """c[0] + c[1] f + ... + c[8] f**8, fused multiply-adds."""
    q = _fma(_fma(_fma(_fma(c[8], f, c[7]), f, c[6]), f, c[5]), f, c[4])
    return _fma(_fma(_fma(_fma(q, f, c[3]), f, c[2]), f, c[1]), f, c[0])


@njit(**_OPTS)
def _log2_of(e, f):
    return _fma(_horner9(_L2, f), f, _F(e))


@njit(**_OPTS)
def log2_f32(x):
    """Base-2 log for float32: e + f P(f) (exact at powers of two)."""
    return _full(_log2_of, x)


@njit(**_OPTS)
def log2_inside_f32(x):
    """``log2_f32`` where not ``log_outside(x)``."""
    return _inside(_log2_of, x)


@njit(**_OPTS)
def _log10_of(e, f):
    ef = _F(e)
    return _fma(ef, _LOG10_2_HI, _fma(_horner9(_L10, f), f, ef * _LOG10_2_LO))


@njit(**_OPTS)
def log10_f32(x):
    """Base-10 log for float32: e log10(2) + f P(f), log10(2) in two parts."""
    return _full(_log10_of, x)


@njit(**_OPTS)
def log10_inside_f32(x):
    """``log10_f32`` where not ``log_outside(x)``."""
    return _inside(_log10_of, x)


# log1p's short form takes 1 + x up to where 2**-e is still normal (e <= 126): 1 + x rounded
# below these bits (x < 1.2e38)
_LOG1P_HI = 0x3F3504F3 + (127 << 23)
_LOG1P_ADD, _LOG1P_LIMIT = _LOG_ADD, _wrap32(_LOG1P_HI - _NORMAL_LO - (1 << 31))


# 1 / (1 + f) in the middle of [sqrt(1/2) - 1, -1/4], the only f whose rounding ``_log1p_reduce``'s
# d holds (off by 3% at its ends: 0.04 of d, which is at most 2**-26)
_D_SLOPE = _F(1.3725)


@njit(**_OPTS)
def _log1p_reduce(x):
    """(u, e, f, d) for x > -1: u = 1 + x rounded = (1 + f') 2**e as ``_split`` takes it apart,
    f + d = x 2**-e + (2**-e - 1) = (1 + x) 2**-e - 1, f rounded by one fused multiply-add and
    d its rounding error by another, so no correction term for u's rounding is needed. (d is 0
    but where e = 1 and x < 1/2, whose ulp 2**-e makes finer than f's; above e = 24, 2**-e - 1
    rounds, where e ln2 dwarfs it.) 2**-e comes from e's bits: right for e <= 126
    (``log1p_f32`` takes f from u's bits above)."""
    u = _ONE + x
    ubits = _f32_to_bits(u)
    e = _I(_I(ubits - _SQRT_HALF_BITS) >> _I(23))
    scale = _bits_to_f32(_I(_I(0x3F800000) - _I(e << _I(23))))
    less = scale - _ONE
    f = _fma(x, scale, less)
    return u, e, f, _fma(x, scale, less - f)


@njit(**_OPTS)
def _log1p_of(e, f, d):
    """e ln2 + log(1 + f + d) for ``_log1p_reduce``'s parts: d added at log's slope there."""
    ef = _F(e)
    return _fma(ef, _LN2_HI, _fma(ef, _LN2_LO, _fma(d, _D_SLOPE, _log1p_poly(f))))


@njit(**_OPTS)
def log1p_f32(x):
    """log(1 + x) for float32: with u = 1 + x rounded = (1 + f') 2**e, log(1 + x) =
    e ln2 + log(1 + f + d), f + d = (1 + x) 2**-e - 1 from x itself (``_log1p_reduce``)."""
    u, e, f, d = _log1p_reduce(x)
    # (from e = 127 on, 2**-e is subnormal: f from u's bits, where x's part below u's ulp
    # no longer counts)
    big = e > _I(126)
    f = _bits_to_f32(_I(_f32_to_bits(u) - _I(e << _I(23)))) - _ONE if big else f
    # log1p has x's sign (and -0.0 stays -0.0)
    return np.copysign(_log_special(u, _log1p_of(e, f, _F(0.0) if big else d)), x)


@njit(**_OPTS)
def log1p_outside(x):
    """Whether float32 x is outside the domain of ``log1p_inside_f32`` (-1 < x < 1.2e38, where
    1 + x is positive, normal and below ``_LOG1P_HI``'s bits): x <= -1, huge x, inf and NaN,
    which a kernel's fix-up gives ``log1p_f32``. (1 + x is the short form's own sum, which
    LLVM computes once for both.)"""
    return _bits_outside(_f32_to_bits(_ONE + x), _LOG1P_ADD, _LOG1P_LIMIT)


@njit(**_OPTS)
def log1p_inside_f32(x):
    """``log1p_f32`` where not ``log1p_outside(x)``."""
    u, e, f, d = _log1p_reduce(x)
    return np.copysign(_log1p_of(e, f, d), x)


@njit(**_OPTS)
def sigmoid_f32(x):
    """1 / (1 + e**-x) for float32, max error 2 ulp down to -87.3; exactly 0 below -88.72,
    where e**-x overflows, as in the reference (the operator library) and PyTorch. (The stable
    e**x / (1 + e**x) kept subnormal results down to -103.9; the subnormal arithmetic that needs
    made an LSTM cell on 512 x 1024 matmul outputs ~4x slower.)"""
    return _ONE / (_ONE + exp_f32(-x))


# cosh(r) - 1 = r**2 (_CH2 + _CH4 r**2 + _CH6 r**4),
# sinh(r) - r = r**3 (_SH3 + _SH5 r**2 + _SH7 r**4)
# for |r| <= ln2 / 2 (fitted here), both doubled: the forms below take 2 cosh(r) and 2 sinh(r)
_CH2, _CH4, _CH6 = _F(2 * 0.5), _F(2 * 0.041666269302368164), _F(2 * 0.0013946241233497858)
_SH3, _SH5, _SH7 = (_F(2 * 0.1666666716337204), _F(2 * 0.008333289064466953),
                 _F(2 * 0.00019905122462660074))
_HYP_CLAMP = _F(89.5)         # sinh and cosh overflow from 89.4159 on
_TWO = _F(2.0)


@njit(**_OPTS)
def _hyperbolic(y):
    """(A, B, 2r, 2 cosh(r) - 2, 2 sinh(r) - 2r) for y = n ln2 + r, -126 <= n <= 129 (NaN
    stays NaN), where A, B = 2**(n-2) -+ 2**(-n-2), so that
        sinh y = 2A + 2B r + A (2 cosh(r) - 2) + B (2 sinh(r) - 2r)
        cosh y = 2B + 2A r + B (2 cosh(r) - 2) + A (2 sinh(r) - 2r).
    The callers add those smallest first, each sum one fused multiply-add, so the result rounds
    about once; A = 0 at n = 0, where sinh is r plus its small part."""
    t, r = _reduce_exp(y)
    u = r * r
    cp = u * _fma(u, _fma(u, _CH6, _CH4), _CH2)
    sp = (r * u) * _fma(u, _fma(u, _SH7, _SH5), _SH3)
    b = _I(_f32_to_bits(t) << _I(23))               # n's exponent field
    up = _bits_to_f32(_I(b + _I(125 << 23)))        # 2**(n-2), n <= 129
    down = _bits_to_f32(max(_I(_I(125 << 23) - b), _I(1 << 23)))     # 2**(-n-2), >= 2**-126
    return up - down, up + down, r + r, cp, sp


@njit(**_OPTS)
def sinh_f32(x):
    """Hyperbolic sine for float32 (see ``_hyperbolic``)."""
    a = abs(x)
    lo, hi, r2, cp, sp = _hyperbolic(_HYP_CLAMP if a > _HYP_CLAMP else a)
    return np.copysign(_fma(lo, _TWO, _fma(hi, r2, _fma(lo, cp, hi * sp))), x)


# 2 e**r = 2 + 2r + r**2 (2 _E0 + 2 _E1 r + ... + 2 _E4 r**4) (``exp_f32``'s, doubled exactly)
_D0, _D1, _D2, _D3, _D4 = _F(2 * _E0), _F(2 * _E1), _F(2 * _E2), _F(2 * _E3), _F(2 * _E4)


@njit(**_OPTS)
def cosh_f32(x):
    """Hyperbolic cosine for float32: h + 1/(4h) with h = e**|x| / 2 = 2**(n-2) (2 e**r), so
    that h stays finite up to cosh's own overflow (n <= 129); one division."""
    a = abs(x)
    t, r = _reduce_exp(_HYP_CLAMP if a > _HYP_CLAMP else a)
    p = _fma(r, _fma(r, _fma(_fma(_fma(_fma(_D4, r, _D3), r, _D2), r, _D1), r, _D0), _TWO),
             _TWO)
    h = p * _pow2_bits(t, 125)
    return h + _F(0.25) / h


_TANH_CLAMP = _F(10.0)        # tanh is exactly +-1 in float32 from |x| ~ 9.01 on
# e**r - 1 - r = r**2 (_E0 + ... + _E4 r**4) at r = 2s: 4 s**2 (_E0 + 2 _E1 s + ...), halved
# (exact scalings: the same roundings as at r)
_T0, _T1, _T2, _T3, _T4 = (_F(2 * _E0), _F(4 * _E1), _F(8 * _E2), _F(16 * _E3), _F(32 * _E4))


# ln 2 / 2 in one part: tanh's reduction takes n s ln2/2 off |x| <= 10 (|n| <= 29) in one fused
# multiply-add; the constant's error (2**-29 relative) moves s by at most 3e-8, which e**(2|x|)
# carries into tanh damped by 2u / (u + 2)**2 (largest where n is small, and so the error)
_HALF_LN2 = _F(0.34657359027997264)


@njit(**_OPTS)
def tanh_f32(x):
    """Hyperbolic tangent for float32: u / (u + 2) with u = expm1(2|x|), the sign of x.

    u is ``_expm1_core(2|x|)``'s form (its polynomial's coefficients scaled by powers of two)
    without forming 2|x|: 2|x| = n ln2 + 2s and, with h = 2**(n+1),
    u = h s**2 Q(s) + (h s + (h/2 - 1)); ln2/2 in one part (``_HALF_LN2``: 20 vector
    instructions per 16 elements instead of 21, no change in the measured error).
    For |x| < 2**-24 (subnormals and -0.0 included) u is 2|x| exactly and u + 2 rounds to 2,
    so tiny x need no select."""
    a = abs(x)
    a = _TANH_CLAMP if a > _TANH_CLAMP else a      # (NaN stays NaN)
    t = _fma(a, _F(2.0 * _LOG2E), _SHIFTER)
    s = _fma(t - _SHIFTER, -_HALF_LN2, a)
    rest = s * s * _fma(_fma(_fma(_fma(_T4, s, _T3), s, _T2), s, _T1), s, _T0)
    h = _pow2_bits(t, 128)
    u = _fma(h, rest, _fma(h, s, _fma(h, _F(0.5), -_ONE)))
    return np.copysign(u / (u + _TWO), x)


# --- inverse hyperbolic functions ----------------------------------------------------------------
# log1p_f32 of an argument built without cancellation, in float32 (the ranges of vecmath's
# float64 forms, which say why). Past 2 the argument is 2t + 1 / (r + t) - 1 (r = sqrt(t**2 + 1)
# overflows past 1.8e19 and the quotient is then 0, as it should be); from 2**125 on 2t would
# reach log1p_inside_f32's limit (1 + w below 1.2e38), so the argument is t - 1 and ln 2 is
# added after. Kernel loops take the short forms (``*_inside_f32``: log1p_inside_f32, no
# special values) below the limit and for |x| < 1 (atanh), and fix up the rest.
_HYPER_BIG = _F(2.0 ** 125)
_LN2_F = _F(0.6931471805599453)


@njit(**_OPTS)
def _asinh_arg(t):
    """w with asinh(t) = log1p(w) for 0 <= t < 2**125 (float32; w < 2**126)."""
    r = np.sqrt(_fma(t, t, _ONE))
    small = t <= _TWO
    d = (t * t if small else _ONE) / ((_ONE + r) if small else (r + t))
    return (t + d) if small else ((t + t) + d - _ONE)


@njit(**_OPTS)
def asinh_f32(x):
    """np.arcsinh of a float32 (odd: -0.0 and the sign kept; +-inf and NaN their own)."""
    t = abs(x)
    big = not t < _HYPER_BIG                     # (NaN too: log1p_f32(NaN - 1) is NaN)
    v = log1p_f32(t - _ONE if big else _asinh_arg(t))
    return np.copysign(v + _LN2_F if big else v, x)


@njit(**_OPTS)
def asinh_inside_f32(x):
    """``asinh_f32`` where not ``asinh_outside(x)``."""
    return np.copysign(log1p_inside_f32(_asinh_arg(abs(x))), x)


@njit(**_OPTS)
def asinh_outside(x):
    """Whether float32 x is outside ``asinh_inside_f32``'s domain: |x| >= 2**125, or NaN."""
    return not abs(x) < _HYPER_BIG


@njit(**_OPTS)
def _acosh_arg(x):
    """w with acosh(x) = log1p(w) for 1 <= x < 2**125 (float32): t + sqrt(2t + t**2) up to 2,
    t = x - 1 (exact there), past it 2x - 1 / (x + sqrt(x**2 - 1)) - 1."""
    t = x - _ONE
    small = x <= _TWO
    s = np.sqrt(_fma(t, t, t + t) if small else _fma(x, x, -_ONE))
    return (t + s) if small else ((x + x) - _ONE / (x + s) - _ONE)


@njit(**_OPTS)
def acosh_f32(x):
    """np.arccosh of a float32: NaN below 1 and for NaN, 0 at 1, +inf at +inf."""
    big = x >= _HYPER_BIG
    v = log1p_f32(x - _ONE if big else _acosh_arg(x))
    v = v + _LN2_F if big else v
    return v if x >= _ONE else _F(np.nan)


@njit(**_OPTS)
def acosh_inside_f32(x):
    """``acosh_f32`` where not ``acosh_outside(x)``."""
    return log1p_inside_f32(_acosh_arg(x))


@njit(**_OPTS)
def acosh_outside(x):
    """Whether float32 x is outside ``acosh_inside_f32``'s domain [1, 2**125): below 1, huge,
    or NaN."""
    return not (x >= _ONE and x < _HYPER_BIG)


@njit(**_OPTS)
def _atanh_arg(t):
    """w with atanh(t) = log1p(w) / 2 for 0 <= t: 2q with q = t / (1 - t) (1 - t exact for
    t >= 1/2), below 1/2 as 2t + 2t q, accurate as t -> 0."""
    q = t / (_ONE - t)
    return _fma(t + t, q, t + t) if t < _F(0.5) else q + q


@njit(**_OPTS)
def atanh_f32(x):
    """np.arctanh of a float32: odd, +-inf at +-1, NaN beyond and for NaN."""
    t = abs(x)
    v = _F(0.5) * log1p_f32(_atanh_arg(t))
    return np.copysign(v if t <= _ONE else _F(np.nan), x)


@njit(**_OPTS)
def atanh_inside_f32(x):
    """``atanh_f32`` where not ``atanh_outside(x)``."""
    return np.copysign(_F(0.5) * log1p_inside_f32(_atanh_arg(abs(x))), x)


@njit(**_OPTS)
def atanh_outside(x):
    """Whether float32 x is outside ``atanh_inside_f32``'s domain |x| < 1 (NaN too)."""
    return not abs(x) < _ONE


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
        elif which == 4:
            out[i] = log1p_f32(v)
        elif which == 5:
            out[i] = expm1_f32(v)
        elif which == 6:
            out[i] = log2_f32(v)
        elif which == 7:
            out[i] = log10_f32(v)
        elif which == 8:
            out[i] = sinh_f32(v)
        elif which == 9:
            out[i] = cosh_f32(v)
        elif which == 10:
            out[i] = asinh_f32(v)
        elif which == 11:
            out[i] = acosh_f32(v)
        else:
            out[i] = atanh_f32(v)


_NAMES = ("exp", "log", "tanh", "sigmoid", "log1p", "expm1", "log2", "log10", "sinh", "cosh",
          "asinh", "acosh", "atanh")
_REFERENCE = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "log1p": np.log1p,
              "expm1": np.expm1, "log2": np.log2, "log10": np.log10, "sinh": np.sinh,
              "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}


def _reference(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        d = x.astype(np.float64)
        if name in _REFERENCE:
            return _REFERENCE[name](d)
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
