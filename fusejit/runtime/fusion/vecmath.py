"""Vectorisable float64 transcendentals for generated kernels, float32 forms that compute
through them, the table of every fast form's measured error, and ``wide_vectors`` (kernels'
512-bit vector preference).

Like ``fastmath`` (native float32 forms), ``vecspecial`` (erf, erfc, float64 sinh and cosh),
``vecpow`` (float64 pow, and pow with a constant operand) and ``vecinverse`` (float64 asin,
acos, atan, atan2), these use only arithmetic, comparisons, selects, ``sqrt``, ``rint``,
``fma``, bit casts and, on AVX-512 hosts, ``llvm.ldexp`` (``SCALEF``), which LLVM vectorises;
one libm call in a kernel's loop would make LLVM run the whole loop one element at a time::

    %3 : Double(*) = aten::log1p(%2)      ->      t3 = vm.log1p_f64(t2)

Methods (every branch is a select: both sides are computed, then one is kept; polynomials by
Horner's rule, which ran faster than Estrin's tree at 512 bits: ``_exp_poly``):

- ``exp``: x = n ln2 + r, ln2 in two parts (Cody-Waite), |r| <= ln2/2, n read from the bits of
  x/ln2 + 1.5 * 2**52; e**r = 1 + r + r**2 P(r), P of degree 9 fitted at the Chebyshev nodes;
  then 2**n e**r by one ``vscalefpd``, which overflows to inf and rounds into the subnormals
  once. Without AVX-512 (``_exp_bits``): e**r - 1 = em1 by its Taylor polynomial to r**13,
  2**n (1 + em1) as one fused multiply-add with 2**n clamped to [2**-1000, 2**1000], times the
  rest of 2**n (so the result overflows or rounds into a subnormal in that last product).
- ``expm1``: the second form, 2**n em1 + (2**n - 1) in one fused multiply-add.
- ``log``: subnormals scaled by 2**54; x = (1 + f) 2**e, 1 + f in [sqrt(1/2), sqrt(2)), read
  from the bits less those of sqrt(1/2); s = f / (2 + f), log(1 + f) = f - s (f - R(s**2))
  with fdlibm's published minimax R, summed with e ln2 (in two parts) as fdlibm orders it.
  ``log2``/``log10`` scale log(1 + f) and add e (times log10(2) in two parts).
- ``log1p``: e from u = 1 + x rounded; then f = x 2**-e + (2**-e - 1), exact, and log's
  reduction (no correction term c / u, so no second division); x's sign by copysign.
- Kernel loops take the logs' short forms (``*_inside_f64``: positive normal finite x;
  log1p: -1 < x < 2**1000), the same arithmetic without the subnormal and special-value
  steps, and rerun a strip holding any other x with the full form (``templates.inside_form``).
- ``sin``/``cos``/``tan``: n = rint(x 2/pi) and n mod 4 from the bits of x 2/pi + 1.5 * 2**52,
  r = x - n pi/2 with pi/2 in three parts (the first 33 bits long, so n pi/2_1 is exact while
  |n| < 2**20, |x| < ``TRIG_LIMIT``), fused multiply-adds for the rest; Taylor polynomials
  to r**17 / r**18. Beyond ``TRIG_LIMIT`` the kernel recomputes the element with libm in a
  separate loop (codegen's fix-up pass).
- ``tanh``: e / (e + 2), e = e**(2|x|) - 1 from exp's reduction and polynomial; ``sigmoid``
  from ``exp``; ``sinh``/``cosh``: ``vecspecial``; asin, acos, atan, atan2: ``vecinverse``.

float32 pow is ``vecpow``'s (in float64 lanes; AVX-512 hosts: ``simd``'s), float32
trigonometry ``vectrig``'s (in float32); the float32 columns below name the module of each form.

Measured maximum errors (``python tools/ulp_sweep.py --all``, which says how; the bounds the
tests assert are ``F32_ULPS``/``F64_ULPS``/``POW_F64_ULPS``, ``fastmath.ULP_BOUNDS`` and
``vectrig.ULPS``). float32: against float64 libm, unrounded, in float32 ulps, over **all 2^32
float32 inputs**; float64: against NumPy's (glibc's; erf/erfc: glibc's through Numba) result in
float64 ulps, 10^8 samples (a third uniform bit patterns) plus 204 special values, so the error
against the exact value may be up to glibc's own (<= 1 ulp) more; atan2 and pow: 10^8 random
pairs. sin/cos/tan: the fast form up to ``TRIG_LIMIT`` (float32: ``vectrig.TRIG_LIMIT_F32``),
libm beyond. Measured on an AVX-512 + FMA host (Sapphire Rapids), the whole table in one run;
then the float64 exp, expm1, log, log1p, log2, log10, asin, acos, atan, atan2, sinh, cosh, tanh
and sigmoid again after their rewrite (same sweep; asin went 1 -> 2 ulp, worst just above 1/2,
where the rounding of its square root is no longer compensated; the others kept their figures);
then float32 atan (all 2^32: 1.617 -> 1.692, a polynomial one degree lower) and atan2 (10^8
pairs, its short form included: 1.771 -> 1.752), float64 atan2 (10^8 pairs) and atan, sin, cos
and tan (2 * 10^7 samples plus the special values) after their next rewrite, which kept the
float64 figures:

=========  ==========  ========  ==========  ==========  ========
function   float32     float64   function    float32     float64
=========  ==========  ========  ==========  ==========  ========
exp        0.917 *     1         asin        1.302 t     2
expm1      1.315 *     2         acos        1.053 t     1
log        0.921 *     1         atan        1.692 t     1
log1p      1.051 *     1         atan2       1.752 t     2
log2       1.897 *     2         sinh        1.227 *     2
log10      1.817 *     2         cosh        1.368 *     2
sin        1.995 t     1         tanh        2.606 *     3
cos        1.995 t     1         sigmoid     2.481 *     4
tan        3.725 t     3         pow         0.529 p     1 p
erf        1.222 e     1 v       erfc        3.687 e     5 v
rsqrt      1.490       0         reciprocal  0.500       0
=========  ==========  ========  ==========  ==========  ========

``*`` ``fastmath``'s float32 forms; ``t`` ``vectrig``'s; ``v`` ``vecspecial``'s; ``e``
``vecspecial``'s float32 erf and erfc, computed in float32 (erf measured on an AMD Zen AVX2 +
FMA host; the float64-computed forms before them: 0.500 each, at about 3x and 2x the cost);
``p``
``vecpow``'s (which also has pow's constant-operand forms and their table; float32 pow: 0.529
is ``simd``'s form, which AVX-512 hosts take, 0.516 the portable one; NumPy's own: 1.437);
unmarked:
here (float64 asin, acos, atan, atan2: ``vecinverse``). float32 tan's worst case (3.725 ulp
at 62604.2) is a large argument just below the fast range's limit; below 64 it stays under
2.5 ulp (``vectrig``'s table).
lgamma: ``veclgamma`` (its own table; computed in a vectorised loop of its own).
asinh, acosh, atanh (``asinh_f64``... below; PyTorch's fuser has none, ``@fusejit.jit``'s own
maps; float32: ``fastmath``'s, 1.878, 2.018 and 1.716 ulp over all 2^32): 2 ulp each against
NumPy's, 10^8 samples plus the special values (AMD EPYC Zen 4, AVX-512 + FMA), within 2 of
the exact value on mpmath's check of the worst; one ``log1p_f64`` and one square root or
division each, ~1.5-2 ns an element on one core (NumPy's 1.7-2.2); kernel loops take
``*_inside_f64`` (log1p's short form, for |x| <= 2**28, atanh |x| < 1) and fix up the strips
holding another x: 0.76-1.02 ns (Zen 5 core, NumPy's 1.5-2.0).
hypot (``hypot_f32``, ``hypot_f64``; not on the fuser's list, ``@fusejit.jit``'s own): 0.500
ulp for both against long double, 4 x 2^22 random pairs of magnitudes 2^-1000 to 2^1000 and
the special values (glibc's float64 hypot: 0.566, so 0.5% of results differ from NumPy's;
float32: NumPy's bits, both computed in float64); 1.2 ns an element against libm's 16.7.
cbrt (``cbrt_f32``, ``cbrt_f64``; ``np.cbrt``, ``@fusejit.jit``'s own too): float32 0.5000
ulp over **all 2^32** inputs against the float64 root (which is itself within 0.5000 ulp),
float64 0.49999909 ulp against 120-bit mpmath on 2 x 10^5 random bit patterns plus every power
of two and its predecessor; exact at cubes. NumPy's (glibc's) float32 cbrt is off by up to
1.92 ulp and its float64 one misrounds 0.6% of random arguments, so fused results differ from
NumPy's there. ~1 ns (float32) and ~1.9 ns (float64) an element on one core.
"""

from __future__ import annotations

import re

import numpy as np
from llvmlite import binding, ir
from numba import njit, types
from numba.core import config
from numba.extending import intrinsic

# Contraction only (a * b + c -> fma where the CPU has one), on these functions' instructions.
_FM = {"contract"}
_OPTS = {"cache": True, "error_model": "numpy", "fastmath": _FM}
# The error bounds the tests assert, in ulps (the table above, rounded up; float32 ones for the
# forms here, fastmath.ULP_BOUNDS for its own).
# (pow: 0.516 measured for vecpow.pow_f32/pow_inside_f32, 0.529 for simd's forms on AVX-512 hosts)
F32_ULPS = {"pow": 0.53, "erf": 1.25, "erfc": 3.7}
F64_ULPS = {"exp": 1, "expm1": 2, "log": 1, "log1p": 1, "log2": 2, "log10": 2, "sin": 1,
            "cos": 1, "tan": 3, "asin": 2, "acos": 2, "atan": 1, "atan2": 2, "sinh": 3,
            "cosh": 3, "tanh": 3, "sigmoid": 4, "erf": 1, "erfc": 5, "asinh": 2, "acosh": 2,
            "atanh": 2}
POW_F64_ULPS = 1        # (vecpow.pow_f64, binary)
# The functions kernels call: each is compiled once (and cached on disk) and carries LLVM's
# ``alwaysinline``, since LLVM's inliner would leave the bigger ones (or several calls of one)
# as calls, over its size threshold, and one call keeps the kernel's loop from vectorising.
# No fastmath flag: their instructions get none, as when Numba inlined them into the kernels
# (whose own instructions carry none); the polynomials they call keep their contraction. Numba's
# own inlining (``inline="always"``) typed and lowered each body again in every kernel calling
# it: about a quarter of a kernel's compile time.
_BIG = {"cache": True, "error_model": "numpy", "forceinline": True}
# The few whose intrinsics act on the LLVM function or module they are lowered into (a function
# attribute, a vector function the vectoriser must find in the kernel's module) are still
# inlined by Numba, so that those land in the kernel's own.
_INLINE_IR = {**_OPTS, "inline": "always"}


@intrinsic
def _bits_to_f64(typingctx, bits):
    """Reinterpret an int64 as float64 (an LLVM bitcast, which vectorises)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _f64_to_bits(typingctx, value):
    """Reinterpret a float64 as int64."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once, float64 or float32 (llvm.fma: one instruction on CPUs with FMA,
    and vectorised)."""
    if not (a == b == c and a in (types.float64, types.float32)):
        return None

    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return a(a, a, a), codegen


@intrinsic
def _ldexp(typingctx, x, k):
    """x * 2**k rounded once (llvm.ldexp, k an int64 within int32): one ``vscalefpd`` on AVX-512
    hosts, overflow to inf and gradual underflow included. Only where ``SCALEF`` holds: other
    hosts make it a libm call per element, which would keep the kernel's loop scalar."""
    if x != types.float64 or k != types.int64:
        return None

    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.ldexp", [ir.DoubleType(), i32], ir.FunctionType(ir.DoubleType(),
                                                                   [ir.DoubleType(), i32]))
        return builder.call(fn, [args[0], builder.trunc(args[1], i32)])
    return types.float64(types.float64, types.int64), codegen


def _host_scalef() -> bool:
    """Does Numba compile for this host (no other CPU or feature set configured), and does it
    have AVX-512 (``vscalefpd``)?"""
    features = config.CPU_FEATURES
    return (config.CPU_NAME in (None, "host")
            and (features is None or "+avx512f" in features.split(","))
            and bool(binding.get_host_cpu_features().get("avx512f")))


# Use ``_ldexp`` (exp_f64 ran 0.53 -> 0.47 ns/element with it, against 2**k built from bits and
# clamped in two factors); the forms for other hosts are kept beside it.
SCALEF = _host_scalef()


# LLVM's tuning for recent Intel CPUs (skylake-avx512 and later) prefers 256-bit vectors even
# where 512-bit ones exist; this string attribute on a kernel's own LLVM functions lifts that
# for them alone (Numba's global configuration, and other code, stay as they are). Ignored by
# CPUs without 512-bit vectors.
WIDE_ATTRIBUTE = '"prefer-vector-width"="512"'


# LLVM's tuning for AMD Zen 4 does not have that preference: there loops get 512-bit vectors
# unless asked otherwise. Memory-bound kernels ask for narrower ones, as NumPy's own loops are
# (AVX2 for add, SSE for abs and floor): a loop of 64-byte loads and stores moved arrays larger
# than the caches slower than one of 32-byte accesses, and a one-input loop of 32-byte ones
# slower than one of 16-byte ones (``codegen._Generator.vector_bits`` has the figures; the
# alignment of the arrays made no difference to the first). Ignored by CPUs without such vectors.
VECTORS_256 = '"prefer-vector-width"="256"'
VECTORS_128 = '"prefer-vector-width"="128"'


def _prefer(builder, attribute: str) -> None:
    # (llvmlite's FunctionAttributes accepts only enum attributes through ``add``; the set's own
    # add stores the string attribute, which it prints into the definition)
    set.add(builder.function.attributes, attribute)


@intrinsic
def wide_vectors(typingctx):
    """Let LLVM vectorise the function this is called in with 512-bit vectors (no code)."""
    def codegen(context, builder, signature, args):
        _prefer(builder, WIDE_ATTRIBUTE)
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def vectors_256(typingctx):
    """Have LLVM vectorise the function this is called in with vectors of at most 256 bits
    (no code)."""
    def codegen(context, builder, signature, args):
        _prefer(builder, VECTORS_256)
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def vectors_128(typingctx):
    """Have LLVM vectorise the function this is called in with vectors of at most 128 bits
    (no code)."""
    def codegen(context, builder, signature, args):
        _prefer(builder, VECTORS_128)
        return context.get_dummy_value()
    return types.none(), codegen


# The X86 feature clang's -mno-gather sets: LLVM's vectoriser then reads a strided row slice
# (a kernel's STRIDED operand) with scalar loads put into vectors, as it does on AVX2 hosts,
# not with AVX-512 gathers (vgatherdps), which ran 2.1-2.8x slower than scalar loads on an
# AMD Zen 4 host (x[:, ::s] * y[:, ::s] + 1, s = 2, 3, 4).
_NO_GATHER = "+prefer-no-gather"
_FEATURE = re.compile(r"[+-][\w.-]+")


def _no_gather_attribute(context) -> str | None:
    """The function attribute giving Numba's target features plus ``_NO_GATHER`` (a function's
    "target-features" replaces the target machine's string), or None where they are unknown."""
    features = getattr(context.codegen(), "_tm_features", None)
    if not isinstance(features, str) or not features:
        return None
    listed = features.split(",")
    if not all(_FEATURE.fullmatch(feature) for feature in listed):
        return None
    return f'"target-features"="{",".join(listed + [_NO_GATHER])}"'


@intrinsic
def no_gathers(typingctx):
    """Have LLVM vectorise the function this is called in without gather instructions
    (no code)."""
    def codegen(context, builder, signature, args):
        attribute = _no_gather_attribute(context)
        if attribute is not None:
            _prefer(builder, attribute)
        return context.get_dummy_value()
    return types.none(), codegen


_I = np.int64
_D = np.float64
_INF = np.inf
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01     # 33 leading bits of ln 2: n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_PI = 3.141592653589793
_PI_2 = 1.5707963267948966


@njit(**_OPTS)
def _pow2(k):
    """2.0**k for -1022 <= k <= 1023, from exponent bits."""
    return _bits_to_f64((k + _I(1023)) << _I(52))


# The polynomials below are evaluated by Estrin's scheme (pairs, then pairs of pairs) rather than
# Horner's: the same number of fused multiply-adds in a tree a few deep instead of a chain, so a
# vectorised loop keeps more iterations in flight (float64 exp ran 1.4x faster). ``c`` is a
# tuple of coefficients, lowest degree first.

@njit(**_OPTS)
def _estrin7(z, c):
    """c[0] + c[1] z + ... + c[6] z**6."""
    z2 = z * z
    return ((c[0] + c[1] * z) + (c[2] + c[3] * z) * z2) + ((c[4] + c[5] * z) + c[6] * z2) * (
        z2 * z2)


@njit(**_OPTS)
def _estrin8(z, c):
    """c[0] + c[1] z + ... + c[7] z**7."""
    z2 = z * z
    return ((c[0] + c[1] * z) + (c[2] + c[3] * z) * z2) + (
        (c[4] + c[5] * z) + (c[6] + c[7] * z) * z2) * (z2 * z2)


# 1.5 * 2**52: y + _ROUNDER rounds y to an integer, which the low bits then hold
_ROUNDER = 6755399441055744.0
_ROUNDER_BITS = _I(0x4338000000000000)
_ONE_BITS = _I(0x3FF0000000000000)


@njit(**_OPTS)
def _reduce_exp(x):
    """(k, r) with x = k ln2 + r, |r| <= ln2/2 (about), k an int64, for |x| < 2**50.

    k comes from the bits of x/ln2 + 1.5 * 2**52 (one fused multiply-add, no conversion
    instruction); NaN gives a NaN r (and a k that ``_exp_scale`` clamps)."""
    t = _fma(x, _LOG2E, _ROUNDER)
    n = t - _ROUNDER
    r = _fma(-n, _LN2_HI, x)              # (exact: n ln2_hi has at most 46 bits)
    return _f64_to_bits(t) - _ROUNDER_BITS, _fma(-n, _LN2_LO, r)


@njit(**_OPTS)
def _expm1_poly(r):
    """e**r - 1 for |r| <= 0.35: Taylor to r**13 (truncation below 2**-57 relative), by
    Estrin's scheme: the fused multiply-adds form a tree four deep rather than a chain of
    twelve, so a vector loop keeps more iterations in flight (exp_f64 ran 1.4x faster)."""
    r2 = r * r
    r4 = r2 * r2
    s0 = (0.5 + r * (1.0 / 6.0)) + (1.0 / 24.0 + r * (1.0 / 120.0)) * r2
    s1 = (1.0 / 720.0 + r * (1.0 / 5040.0)) + (1.0 / 40320.0 + r * (1.0 / 362880.0)) * r2
    s2 = ((1.0 / 3628800.0 + r * (1.0 / 39916800.0))
          + (1.0 / 479001600.0 + r * (1.0 / 6227020800.0)) * r2)
    return r + r2 * ((s0 + s1 * r4) + s2 * (r4 * r4))


@njit(**_OPTS)
def _exp_scale(k, em1, minus):
    """2**k (1 + em1) - ``minus`` (0 or 1) rounded once, then times 2**(k - kc) for k beyond
    kc = k clamped to [-1000, 1000] (inf beyond the range, a subnormal rounded once below)."""
    kc = min(max(k, _I(-1000)), _I(1000))
    s = _pow2(kc)
    return _fma(s, em1, s - minus) * _pow2(k - kc)


# (e**r - 1 - r) / r**2 for |r| <= ln2/2: degree 9, interpolated at the Chebyshev nodes (mpmath,
# 50 digits); off by 1.2e-16 at most with these rounded coefficients, 1.4e-17 once times r**2
_EXP_P = (0.5000000000000001, 0.16666666666666669, 0.04166666666662413, 0.008333333333330062,
          0.0013888888917213717, 0.00019841269863053618, 2.4801521295954376e-05,
          2.7557268459997064e-06, 2.7620088445409746e-07, 2.510038549551032e-08)


@njit(**_OPTS)
def _exp_p(r):
    """P(r) with e**r = 1 + r + r**2 P(r) for |r| <= ln2/2 (about), by Horner's rule. (At 512
    bits Estrin's tree ran slower: LLVM copies a register for each of its leaves, and the
    loop's iterations overlap anyway.)"""
    c = _EXP_P
    q = _fma(_fma(_fma(_fma(c[9], r, c[8]), r, c[7]), r, c[6]), r, c[5])
    return _fma(_fma(_fma(_fma(_fma(q, r, c[4]), r, c[3]), r, c[2]), r, c[1]), r, c[0])


@njit(**_OPTS)
def _exp_poly(r):
    """e**r for |r| <= ln2/2 (about)."""
    return _fma(_fma(_exp_p(r), r, 1.0), r, 1.0)


@njit(**_OPTS)
def _expm1_small(r):
    """e**r - 1 for |r| <= ln2/2 (about): r + r**2 P(r)."""
    return _fma(r * _exp_p(r), r, r)


@njit(**_BIG)
def _exp_scalef(x):
    """e**x for float64 on AVX-512 hosts: 2**k e**r, scaled by ``_ldexp`` (NaN stays NaN through
    the clamps and the polynomial)."""
    y = -746.0 if x < -746.0 else x
    y = 710.0 if y > 710.0 else y
    t = _fma(y, _LOG2E, _ROUNDER)
    n = t - _ROUNDER
    r = _fma(-n, _LN2_LO, _fma(-n, _LN2_HI, y))
    return _ldexp(_exp_poly(r), _f64_to_bits(t) - _ROUNDER_BITS)


@njit(**_BIG)
def _exp_bits(x):
    """e**x for float64 where ``SCALEF`` does not hold."""
    y = -746.0 if x < -746.0 else x
    y = 710.0 if y > 710.0 else y
    k, r = _reduce_exp(y)
    result = _exp_scale(k, _expm1_poly(r), 0.0)
    return x if x != x else result


exp_f64 = _exp_scalef if SCALEF else _exp_bits


@njit(**_BIG)
def expm1_f64(x):
    """e**x - 1 for float64, accurate for small x: 2**k em1 + (2**k - 1), rounded once (2**k - 1
    is exact while k <= 53); above, 2**k (1 + em1) in two factors 2**(k - k//2) 2**(k//2), so
    it overflows to inf in the last product. From -40 on the result rounds to -1."""
    y = -40.0 if x < -40.0 else x
    y = 710.0 if y > 710.0 else y
    t = _fma(y, _LOG2E, _ROUNDER)
    n = t - _ROUNDER
    m = _expm1_small(_fma(-n, _LN2_LO, _fma(-n, _LN2_HI, y)))
    s = _bits_to_f64((_f64_to_bits(t) << _I(52)) + _ONE_BITS)     # 2**k: t's low bits are k
    k = _f64_to_bits(t) - _ROUNDER_BITS
    half = _pow2(k >> _I(1))
    big = _fma(half, m, half) * _pow2(k - (k >> _I(1)))
    result = _fma(s, m, s - 1.0) if k <= _I(53) else big
    return x if x == 0.0 else result            # (-0 stays -0; NaN stays NaN throughout)


_LG1, _LG2, _LG3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
_LG4, _LG5, _LG6 = 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_LG = (_LG1, _LG2, _LG3, _LG4, _LG5, _LG6, _LG7)
_TWO54 = 18014398509481984.0
_TINY = 2.2250738585072014e-308


@njit(**_OPTS)
def split_f64(x):
    """(e, m) with x = m 2**e, m in [sqrt(1/2), sqrt(2)), for finite x > 0 (subnormals too)."""
    sub = x < _TINY
    xs = x * _TWO54 if sub else x
    bits = _f64_to_bits(xs)
    e = ((bits >> _I(52)) & _I(0x7FF)) - _I(1023)
    e = e - _I(54) if sub else e
    m = _bits_to_f64((bits & _I(0xFFFFFFFFFFFFF)) | _I(0x3FF0000000000000))
    big = m > 1.4142135623730951
    return (e + _I(1) if big else e), (m * 0.5 if big else m)


_SQRT_HALF_BITS = _I(0x3FE6A09E667F3BCD)


@njit(**_OPTS)
def _split_normal(x):
    """(e, f) with x = (1 + f) 2**e, 1 + f in [sqrt(1/2), sqrt(2)), for normal x > 0: the bits
    less those of sqrt(1/2), shifted, are e (the borrow moves the upper half of the mantissa
    range to the next exponent), and the bits less e's are 1 + f. f = (1 + f) - 1 is exact."""
    bits = _f64_to_bits(x)
    e = (bits - _SQRT_HALF_BITS) >> _I(52)
    return e, _bits_to_f64(bits - (e << _I(52))) - 1.0


@njit(**_OPTS)
def _log_reduced(f):
    """(s, g) for f in [sqrt(1/2) - 1, sqrt(2) - 1], s = f / (2 + f), g = f - R, R = z P(z),
    z = s**2, P fdlibm's minimax (by Horner's rule, see ``_exp_poly``), with
    log(1 + f) = 2 atanh(s) = f - s g: fdlibm's shorter form, four operations fewer than its
    f - (f**2/2 - s (f**2/2 + R)). Callers add the small s g to e ln2's low part before f."""
    s = f / (2.0 + f)
    z = s * s
    c = _LG
    p = _fma(_fma(_fma(_fma(_fma(_fma(c[6], z, c[5]), z, c[4]), z, c[3]), z, c[2]), z, c[1]),
             z, c[0])
    return s, _fma(-z, p, f)


@njit(**_OPTS)
def _log_sum(e, f):
    """e ln2 + log(1 + f) (``_log_reduced``'s f): e ln2_hi - ((s g - e ln2_lo) - f), as fdlibm
    orders it (e ln2_hi is exact; the small terms meet first)."""
    s, g = _log_reduced(f)
    return _fma(e, _LN2_HI, f - _fma(s, g, -e * _LN2_LO))


@njit(**_OPTS)
def _log_parts(x):
    """(e, f) with x = (1 + f) 2**e, 1 + f in [sqrt(1/2), sqrt(2)), for finite x > 0
    (subnormals scaled by 2**54 first)."""
    sub = x < _TINY
    e, f = _split_normal(x * _TWO54 if sub else x)
    return _D(e - _I(54) if sub else e), f


@njit(**_OPTS)
def _log1p_reduced(f):
    """log(1 + f) for ``_log_reduced``'s f."""
    s, g = _log_reduced(f)
    return _fma(-s, g, f)


@njit(**_OPTS)
def _log_special(x, result):
    """log's results at 0, below 0, NaN and inf; ``result`` elsewhere."""
    result = -_INF if x == 0.0 else result
    result = np.nan if x < 0.0 else result
    return x if (x != x) | (x == _INF) else result


_INV_LN2 = 1.4426950408889634
_INV_LN10 = 0.4342944819032518
_LOG10_2_HI = 3.01029995663611771306e-01     # log10(2), 33 leading bits
_LOG10_2_LO = 3.69423907715893078616e-13


@njit(**_OPTS)
def _lg2(e, f):
    """e + log(1 + f) / ln 2 (exact at powers of two)."""
    return _fma(_log1p_reduced(f), _INV_LN2, e)


@njit(**_OPTS)
def _lg10(e, f):
    """e log10(2) (in two parts) + log(1 + f) / ln 10."""
    return _fma(e, _LOG10_2_HI, _fma(_log1p_reduced(f), _INV_LN10, e * _LOG10_2_LO))


# Kernel loops take the logs' short forms (``*_inside_f64``, ``templates.inside_form``) where
# x is positive, normal and finite, and rerun a strip holding any other x with the full form
# (as ``fastmath``'s float32 logs): the subnormal scaling and the special values took 9 of
# log's ~30 vector instructions (measured: 0.83 -> 0.64 ns an element, one thread, in cache).


@intrinsic
def _outside_bits(typingctx, bits, lo, span):
    """Whether int64 ``bits`` lies outside [lo, lo + span) as an unsigned number: bits - lo
    (wrapping) >= span unsigned, one subtraction and one compare. (Numba's own int64
    arithmetic is signed and may not wrap.)"""
    if not (bits == lo == span == types.int64):
        return None

    def codegen(context, builder, signature, args):
        return builder.icmp_unsigned(">=", builder.sub(args[0], args[1]), args[2])
    return types.boolean(types.int64, types.int64, types.int64), codegen


_NORMAL_LO, _INF_BITS = _I(0x0010000000000000), 0x7FF0000000000000
_LOG_SPAN = _I(_INF_BITS - _NORMAL_LO)


@njit(**_OPTS)
def log_outside_f64(x):
    """Whether x is outside the float64 ``*_inside_f64`` logs' domain (positive, normal,
    finite): 0, subnormals, negatives, inf and NaN."""
    return _outside_bits(_f64_to_bits(x), _NORMAL_LO, _LOG_SPAN)


@njit(**_BIG)
def log_f64(x):
    """Natural log for float64."""
    e, f = _log_parts(x)
    return _log_special(x, _log_sum(e, f))


@njit(**_BIG)
def log_inside_f64(x):
    """``log_f64`` where not ``log_outside_f64(x)``: its arithmetic without the subnormal and
    special-value steps. (No function passed as an argument, as ``fastmath``'s float32 forms
    do: inlined by Numba into a kernel beside the others, it became a first-class function
    value, which Numba's cache refuses.)"""
    e, f = _split_normal(x)
    return _log_sum(_D(e), f)


@njit(**_BIG)
def log2_f64(x):
    """Base-2 log for float64: e + log(m) / ln 2 (exact at powers of two)."""
    e, f = _log_parts(x)
    return _log_special(x, _lg2(e, f))


@njit(**_BIG)
def log2_inside_f64(x):
    """``log2_f64`` where not ``log_outside_f64(x)``."""
    e, f = _split_normal(x)
    return _lg2(_D(e), f)


@njit(**_BIG)
def log10_f64(x):
    """Base-10 log for float64."""
    e, f = _log_parts(x)
    return _log_special(x, _lg10(e, f))


@njit(**_BIG)
def log10_inside_f64(x):
    """``log10_f64`` where not ``log_outside_f64(x)``."""
    e, f = _split_normal(x)
    return _lg10(_D(e), f)


@njit(**_OPTS)
def _log1p_positive(x):
    """(e, f, u's bits) for x > -1 with u = 1 + x rounded (see ``log1p_f64``); f right while
    e <= 1000."""
    u = 1.0 + x
    bits = _f64_to_bits(u)
    e = (bits - _SQRT_HALF_BITS) >> _I(52)
    scale = _bits_to_f64(_ONE_BITS - (e << _I(52)))        # 2**-e
    return e, _fma(x, scale, scale - 1.0), bits


@njit(**_BIG)
def log1p_f64(x):
    """log(1 + x) for float64, accurate for small x: e from u = 1 + x rounded, then
    f = x 2**-e + (2**-e - 1), exact in one fused multiply-add for e <= 53 (both terms are
    multiples of f's ulp) and off by 2**-e, far below the result's ulp, above; so
    log(1 + x) = e ln2 + log(1 + f) with no correction term (fdlibm adds c / u, one more
    division). Beyond 2**1000, where 2**-e would be subnormal, f comes from u's bits."""
    e, f, bits = _log1p_positive(x)
    f = f if e <= _I(1000) else _bits_to_f64(bits - (e << _I(52))) - 1.0
    # (x's sign: -0 stays -0; NaN and +inf as they are)
    result = np.copysign(_log_sum(_D(e), f), x) if x < _INF else x
    result = -_INF if x == -1.0 else result
    return np.nan if x < -1.0 else result


# log1p's short form: 1 + x positive, normal and below the bits where e would pass 1000
_LOG1P_HI = 0x3FE6A09E667F3BCD + (1001 << 52)
_LOG1P_SPAN = _I(_LOG1P_HI - _NORMAL_LO)


@njit(**_OPTS)
def log1p_outside_f64(x):
    """Whether x is outside ``log1p_inside_f64``'s domain (-1 < x < 2**1000 or so, where 1 + x
    is positive, normal and e <= 1000): x <= -1, huge x, inf and NaN. (1 + x is the short
    form's own sum, which LLVM computes once for both.)"""
    return _outside_bits(_f64_to_bits(1.0 + x), _NORMAL_LO, _LOG1P_SPAN)


@njit(**_BIG)
def log1p_inside_f64(x):
    """``log1p_f64`` where not ``log1p_outside_f64(x)``."""
    e, f, bits = _log1p_positive(x)
    return np.copysign(_log_sum(_D(e), f), x)


# --- trigonometric ------------------------------------------------------------------------------

_TWO_OVER_PI = 0.6366197723675814
_PIO2_1 = 1.57079632673412561417e+00       # 33 leading bits of pi/2
_PIO2_2 = 6.07710050650619224932e-11       # pi/2 - _PIO2_1, rounded
_PIO2_3 = 3.5215598651832e-27              # pi/2 - _PIO2_1 - _PIO2_2, rounded
TRIG_LIMIT = 1.0e6        # |x| beyond this: libm in a fix-up loop (n no longer fits 20 bits)


@njit(**_OPTS)
def _reduce_trig(x):
    """(n mod 4, r) with x = n pi/2 + r, |r| <= pi/4 (about), for |x| <= TRIG_LIMIT: n from
    the low bits of x 2/pi + _ROUNDER (defined for every x, so no range select and no
    conversion: beyond the limit the kernel's fix-up replaces the value, NaN stays NaN)."""
    t = _fma(x, _TWO_OVER_PI, _ROUNDER)
    n = t - _ROUNDER
    r = _fma(-n, _PIO2_1, x)             # (exact: n _PIO2_1 has at most 53 bits)
    r = _fma(-n, _PIO2_2, r)
    r = _fma(-n, _PIO2_3, r)
    return _f64_to_bits(t) & _I(3), r


# Taylor polynomials to r**17 and r**18 (Estrin's scheme). fdlibm's minimax ones of degree 13
# and 14 by Horner's rule took eight fewer vector operations, but without the reduction's tail
# (which fdlibm carries) cos reached 2 ulp against NumPy's (1 with these, 10^8 samples)
_SIN = (1.0 / 6.0, -1.0 / 120.0, 1.0 / 5040.0, -1.0 / 362880.0, 1.0 / 39916800.0,
        -1.0 / 6227020800.0, 1.0 / 1307674368000.0, -1.0 / 355687428096000.0)
_COS = (1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0, 1.0 / 479001600.0,
        -1.0 / 87178291200.0, 1.0 / 20922789888000.0, -1.0 / 6402373705728000.0)


@njit(**_OPTS)
def _sin_poly(r, z):
    """sin(r) for |r| <= pi/4 (z = r*r): Taylor to r**17."""
    return r - r * z * _estrin8(z, _SIN)


@njit(**_OPTS)
def _cos_poly(z):
    """cos(r) for |r| <= pi/4 (z = r*r): Taylor to r**18."""
    p = _estrin8(z, _COS)
    hz = 0.5 * z
    w = 1.0 - hz
    # 1 - z/2 rounded, plus what that rounding lost, plus the rest (keeps cos near 1 exact)
    return w + (((1.0 - w) - hz) + z * z * p)


@njit(**_OPTS)
def _finite_or_nan(x, result):
    return result if abs(x) < _INF else x - x        # inf - inf and NaN give NaN


@njit(**_BIG)
def sin_f64(x):
    """Sine for float64 with |x| <= TRIG_LIMIT (the kernel fixes up the rest)."""
    q, r = _reduce_trig(x)
    z = r * r
    s, c = _sin_poly(r, z), _cos_poly(z)
    v = s if (q & _I(1)) == _I(0) else c
    v = -v if (q & _I(2)) != _I(0) else v
    return _finite_or_nan(x, x if x == 0.0 else v)


@njit(**_BIG)
def cos_f64(x):
    """Cosine for float64 with |x| <= TRIG_LIMIT (the kernel fixes up the rest)."""
    q, r = _reduce_trig(x)
    z = r * r
    s, c = _sin_poly(r, z), _cos_poly(z)
    v = c if (q & _I(1)) == _I(0) else -s
    v = -v if (q & _I(2)) != _I(0) else v
    return _finite_or_nan(x, v)


@njit(**_BIG)
def tan_f64(x):
    """Tangent for float64 with |x| <= TRIG_LIMIT (the kernel fixes up the rest)."""
    q, r = _reduce_trig(x)
    z = r * r
    s, c = _sin_poly(r, z), _cos_poly(z)
    even = (q & _I(1)) == _I(0)
    v = (s if even else -c) / (c if even else s)        # (one division, not two)
    return _finite_or_nan(x, x if x == 0.0 else v)


# --- hyperbolic ---------------------------------------------------------------------------------

@njit(**_BIG)
def tanh_f64(x):
    """Hyperbolic tangent for float64: e / (e + 2), e = e**(2|x|) - 1 = 2**k (1 + m) - 1 with
    m = e**r - 1 (``_exp_poly``'s polynomial), exactly 1 from 19.1. 2|x| is clamped at 40, so
    0 <= k <= 58 and 2**k comes from two integer operations (no clamps, unlike ``expm1_f64``).
    NaN passes the clamp and stays NaN."""
    a = abs(x)
    y = 2.0 * (40.0 if a > 40.0 else a)
    t = _fma(y, _LOG2E, _ROUNDER)
    n = t - _ROUNDER
    r = _fma(-n, _LN2_LO, _fma(-n, _LN2_HI, y))
    m = _expm1_small(r)
    s = _bits_to_f64((_f64_to_bits(t) << _I(52)) + _ONE_BITS)      # 2**k: t's low bits are k
    e = _fma(s, m, s - 1.0)
    return np.copysign(e / (e + 2.0), x)


@njit(**_BIG)
def sigmoid_f64(x):
    """1 / (1 + e**-x) for float64: 0 below -709.78, where e**-x overflows, as in the reference
    and in PyTorch (and as ``fastmath.sigmoid_f32``)."""
    return 1.0 / (1.0 + exp_f64(-x))


# hypot's scaling: above _HYPOT_HIGH a square could overflow, below _HYPOT_LOW the residual of
# one would fall below the normal range; by 2**-600 or 2**600 (exact) the larger stays inside.
_HYPOT_HIGH = 2.0 ** 500
_HYPOT_LOW = 2.0 ** -450
_HYPOT_DOWN = 2.0 ** -600
_HYPOT_UP = 2.0 ** 600


@njit(**_BIG)
def hypot_f64(x, y):
    """sqrt(x**2 + y**2) for float64 with no overflow or underflow on the way: h, the square
    root of the sum of squares fused once, corrected by its residual, h - (h**2 - a**2 - b**2)
    / 2h, the residual exact in fused multiply-adds (C. F. Borges, "An improved algorithm for
    hypot(a, b)", 2019), a the larger of |x|, |y| and both scaled by a power of two where a is
    huge or tiny. |x| where y is 0; +inf where either is infinite, a NaN beside it too (C's
    hypot); NaN where either is otherwise."""
    ax = abs(x)
    ay = abs(y)
    a = ax if ax >= ay else ay
    b = ay if ax >= ay else ax
    s = _HYPOT_DOWN if a > _HYPOT_HIGH else (_HYPOT_UP if a < _HYPOT_LOW else 1.0)
    a = a * s
    b = b * s
    h = np.sqrt(_fma(a, a, b * b))
    hh = h * h
    aa = a * a
    residual = _fma(-b, b, hh - aa) + _fma(h, h, -hh) - _fma(a, a, -aa)
    result = (h - residual / (h + h)) / s
    result = a / s if b == 0.0 else result
    return _INF if (ax == _INF) | (ay == _INF) else result


@njit(**_BIG)
def hypot_f32(x, y):
    """sqrt(x**2 + y**2) for float32, computed in float64, where the squares are exact and
    their sum and root round far below float32's ulp; +inf where either is infinite, a NaN
    beside it too (C's hypotf)."""
    a = _D(x)
    b = _D(y)
    result = np.float32(np.sqrt(a * a + b * b))
    return np.float32(_INF) if (abs(a) == _INF) | (abs(b) == _INF) else result


# Cube roots: a first guess from the exponent's bits (the high word divided by 3, biased so the
# exponent stays right: within 3.2% of the root), two Halley steps t (t^3 + 2a) / (2t^3 + a)
# (the error cubes: 3e-2 -> 1e-5 -> 4e-15), then for float64 one Newton step on the residual
# a - t^3 made exact by fused multiply-adds. Arguments below 2^-900 are scaled by 2^180 and
# above 2^1000 by 2^-60 (their roots by 2^-60 and 2^20: exact), so that the residual's terms
# stay normal. 0, +-inf and NaN are their own roots.
_CBRT_BIAS = 0x2A9F7893      # (2/3 of the exponent bias in the high word, tuned down 1.4%)
_CBRT_TINY = 2.0 ** -900
_CBRT_HUGE = 2.0 ** 1000
_THIRD = 1.0 / 3.0


@njit(**_BIG)
def _cbrt_guess(a):
    """A first guess of the cube root of a positive normal float64 ``a`` (3.2% or better)."""
    hi = _f64_to_bits(a) >> 32
    return _bits_to_f64((np.int64(np.float64(hi) * _THIRD) + _CBRT_BIAS) << 32)


@njit(**_BIG)
def _halley_cbrt(t, a):
    t3 = t * t * t
    return t * ((t3 + a + a) / (t3 + t3 + a))      # (the ratio first: t * (t3 + 2a) underflows)


@njit(**_BIG)
def cbrt_f64(x):
    """The real cube root of a float64 (NumPy's np.cbrt: sign kept, -0.0, +-inf and NaN
    their own roots)."""
    ax = abs(x)
    s = ax * 2.0 ** 180 if ax < _CBRT_TINY else (ax * 2.0 ** -60 if ax > _CBRT_HUGE else ax)
    t = _halley_cbrt(_halley_cbrt(_cbrt_guess(s), s), s)
    t2 = t * t
    t3 = t2 * t
    residual = (s - t3) - (_fma(t2, t, -t3) + _fma(t, t, -t2) * t)
    t = t + residual / (3.0 * t2)
    t = t * 2.0 ** -60 if ax < _CBRT_TINY else (t * 2.0 ** 20 if ax > _CBRT_HUGE else t)
    t = -t if x < 0.0 else t
    return x if (ax == 0.0) | (ax == _INF) | (x != x) else t


@njit(**_BIG)
def cbrt_f32(x):
    """The real cube root of a float32, computed in float64 (every float32 is a normal
    float64) to 4e-15 and rounded once."""
    a = abs(_D(x))
    t = np.float32(_halley_cbrt(_halley_cbrt(_cbrt_guess(a), a), a))
    t = -t if x < 0 else t
    return x if (a == 0.0) | (a == _INF) | (x != x) else t


# Inverse hyperbolic functions, each one log1p of an argument built without cancellation
# (fdlibm's and glibc's split of the ranges): near 0 the argument is about |x|, so log1p keeps
# its relative accuracy; past 2 the argument is 2|x| less a small correction, less 1; past 2**28
# the correction is below an ulp and log(2|x|) = log1p(|x| - 1) + ln 2 (|x| - 1 is exact up to
# 2**53 and rounds to |x| beyond, where log1p(|x|) - log|x| = 1/|x| is far below an ulp), so
# nothing overflows. Every branch is a select.
_HYPER_BIG = 2.0 ** 28
_LN2 = 0.6931471805599453


@njit(**_BIG)
def _asinh_arg(t):
    """w with asinh(t) = log1p(w) for 0 <= t <= 2**28: up to 2, t + t**2 / (1 + sqrt(1 + t**2)),
    past it 2t + 1 / (sqrt(t**2 + 1) + t) - 1: one square root and one division, the ranges'
    numerators and denominators chosen before it."""
    r = np.sqrt(_fma(t, t, 1.0))
    small = t <= 2.0
    d = (t * t if small else 1.0) / ((1.0 + r) if small else (r + t))
    return (t + d) if small else ((t + t) + d - 1.0)


@njit(**_BIG)
def asinh_f64(x):
    """The inverse hyperbolic sine of a float64 (NumPy's np.arcsinh: odd, so -0.0 and the
    sign kept; +-inf and NaN their own): log1p(``_asinh_arg(|x|)``), past 2**28
    log1p(|x| - 1) + ln 2."""
    t = abs(x)
    big = t > _HYPER_BIG
    v = log1p_f64(t - 1.0 if big else _asinh_arg(t))
    return np.copysign(v + _LN2 if big else v, x)


@njit(**_BIG)
def asinh_inside_f64(x):
    """``asinh_f64`` where not ``asinh_outside_f64(x)``."""
    return np.copysign(log1p_inside_f64(_asinh_arg(abs(x))), x)


@njit(**_BIG)
def asinh_outside_f64(x):
    """Whether x is outside ``asinh_inside_f64``'s domain |x| <= 2**28 (NaN too)."""
    return not abs(x) <= _HYPER_BIG


@njit(**_BIG)
def _acosh_arg(x):
    """w with acosh(x) = log1p(w) for 1 <= x <= 2**28: up to 2, t + sqrt(2t + t**2), t = x - 1
    (exact there); past it 2x - 1 / (x + sqrt(x**2 - 1)) - 1: one square root (its argument
    chosen first)."""
    t = x - 1.0
    small = x <= 2.0
    s = np.sqrt(_fma(t, t, t + t) if small else _fma(x, x, -1.0))
    return (t + s) if small else ((x + x) - 1.0 / (x + s) - 1.0)


@njit(**_BIG)
def acosh_f64(x):
    """The inverse hyperbolic cosine of a float64 (np.arccosh): NaN below 1 and for NaN, 0 at
    1, +inf at +inf: log1p(``_acosh_arg(x)``), past 2**28 log1p(x - 1) + ln 2."""
    big = x > _HYPER_BIG
    v = log1p_f64(x - 1.0 if big else _acosh_arg(x))
    v = v + _LN2 if big else v
    return v if x >= 1.0 else np.nan            # (NaN in: the compare fails too)


@njit(**_BIG)
def acosh_inside_f64(x):
    """``acosh_f64`` where not ``acosh_outside_f64(x)``."""
    return log1p_inside_f64(_acosh_arg(x))


@njit(**_BIG)
def acosh_outside_f64(x):
    """Whether x is outside ``acosh_inside_f64``'s domain 1 <= x <= 2**28 (NaN too)."""
    return not (x >= 1.0 and x <= _HYPER_BIG)


@njit(**_BIG)
def _atanh_arg(t):
    """w with atanh(t) = log1p(w) / 2, 0 <= t: 2t / (1 - t) = 2q (1 - t exact for t >= 1/2),
    below 1/2 as 2t + 2t q, q = t / (1 - t), accurate as t -> 0."""
    q = t / (1.0 - t)
    return _fma(t + t, q, t + t) if t < 0.5 else q + q


@njit(**_BIG)
def atanh_f64(x):
    """The inverse hyperbolic tangent of a float64 (np.arctanh): odd, +-inf at +-1, NaN beyond
    and for NaN."""
    t = abs(x)
    v = 0.5 * log1p_f64(_atanh_arg(t))
    return np.copysign(v if t <= 1.0 else np.nan, x)


@njit(**_BIG)
def atanh_inside_f64(x):
    """``atanh_f64`` where not ``atanh_outside_f64(x)``."""
    return np.copysign(0.5 * log1p_inside_f64(_atanh_arg(abs(x))), x)


@njit(**_BIG)
def atanh_outside_f64(x):
    """Whether x is outside ``atanh_inside_f64``'s domain |x| < 1 (NaN too)."""
    return not abs(x) < 1.0


@njit(**_OPTS)
def pow_specials(x, y, v, one):
    """|x|**y = ``v`` (NaN where x or y is) turned into C99's x**y, in the type of ``one`` (1
    in x's type: float64 or float32): the sign for odd integer y, NaN for x < 0 and y not an
    integer, 1 for x = 1 or y = 0 and for (-1)**(+-inf). (v >= 0; an odd y is below 2**p,
    every float at or above it even, so floor(y / 2) = y / 2 there.)"""
    zero = one - one
    half = one / (one + one)
    integral = np.floor(y) == y
    odd = integral & (np.floor(half * y) != half * y)
    v = np.copysign(v, x) if odd else v
    v = zero / zero if (x < zero) & (not integral) & (abs(x) != one / zero) else v
    v = one if (abs(x) == one) & (abs(y) == one / zero) else v
    v = v if x == x else x
    v = v if y == y else y
    return one if (y == zero) | (x == one) else v


_F = np.float32     # (vecspecial's float32 forms round their float64 results with it)
