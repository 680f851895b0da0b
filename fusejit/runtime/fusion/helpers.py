"""Scalar helpers that generated kernels call for ops with more than one line of logic.

A kernel line such as ``t3 = h.remainder_f(t1, t2)`` stands for ``aten::remainder`` on floats.
Each helper follows PyTorch's CPU kernel for that op (sign rules, NaN propagation, the lerp
formula); LLVM inlines them into the kernel's inner loop.

::

    %3 : Float(*) = aten::remainder(%1, %2)      ->      t3 = h.remainder_f(a0, a1)
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .vecmath import (  # noqa: F401  (np.cbrt where a kernel does not vectorise)
    _fma,  # (llvm.fma: one instruction, vectorised)
    cbrt_f32,
    cbrt_f64,
)


@njit(cache=True, error_model="numpy")
def remainder_f(a, b):
    """Python-style modulus (sign of the divisor), PyTorch's float remainder."""
    m = np.fmod(a, b)
    if m != 0 and (b < 0) != (m < 0):
        m += b
    return m


# fmod_wide is exact while |a / b| is below this (and b is finite): see its docstring.
FMOD_QUOTIENT_LIMIT = 4503599627370496.0        # 2**52


@njit(cache=True, error_model="numpy")
def fmod_wide(a, b):
    """C ``fmod`` of two floats (float32 or float64) in float64, with no libm call, so that
    it vectorises; exact where ``fmod_wide_fails`` is False (the kernels recompute the other
    elements with libm's fmod). q = trunc(fl(a / b)) is the true truncated quotient or one more
    in magnitude (rounding is monotonic and the integers below 2^52 are floats); the remainder
    a - q*b is a float (a multiple of the smaller operand's ulp below |b|, or a Sterbenz
    difference when |a| < |b|), so the fused multiply-add gives it exactly; one more means a
    remainder of the wrong sign, and adding |b| back is exact as well."""
    x = np.float64(a)
    y = np.float64(b)
    q = np.trunc(x / y)
    r = _fma(-q, y, x)
    if r != 0 and (r < 0) != (x < 0):
        r = r + abs(y) if x > 0 else r - abs(y)
    return math.copysign(abs(r), x)      # (a zero remainder takes the dividend's sign)


@njit(cache=True, error_model="numpy")
def fmod_wide_fails(a, b):
    """Where ``fmod_wide`` may be wrong: a quotient of 2^52 or more, an infinite or NaN
    operand, a zero divisor."""
    x = np.float64(a)
    y = np.float64(b)
    return not ((abs(x / y) < FMOD_QUOTIENT_LIMIT) & (abs(y) < np.inf))


@njit(cache=True, error_model="numpy")
def remainder_of(m, b):
    """Python's modulus from C's fmod ``m`` of a and b: the divisor's sign (PyTorch's float
    remainder, as ``remainder_f``)."""
    if m != 0 and (b < 0) != (m < 0):
        m += b
    return m


@njit(cache=True, error_model="numpy")
def remainder_i(a, b):
    """Integer modulus with the divisor's sign; a zero divisor gives 0 (the kernel flags it)."""
    if b == 0:
        return a - a
    m = a % b
    return m


@njit(cache=True, error_model="numpy")
def floor_divide_i(a, b):
    """Integer division rounded down (Python's ``//``); a zero divisor gives 0 (the kernel
    flags it)."""
    if b == 0:
        return a - a
    if b == -1:
        return -a       # (NumPy's wrap for the minimum, where Numba's // gives 0)
    return a // b


@njit(cache=True, error_model="numpy")
def floor_divide_f(a, b):
    """NumPy's float floor division (its ``npy_divmod``): from the exact ``fmod``, not
    ``floor(a / b)``, whose rounding can give the next integer; ``a / b`` for a zero ``b``."""
    if b == 0:
        return a / b
    mod = np.fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and (b < 0) != (mod < 0):
        div -= 1
    if div != 0:
        whole = np.floor(div)
        if div - whole > 0.5:
            whole += 1
        return whole
    return np.copysign(div - div, a / b)


@njit(cache=True, error_model="numpy")
def floor_divide_of(mod, a, b, one):
    """``floor_divide_f`` given the exact fmod ``mod`` of a and b (``fmod_wide``, where
    ``fmod_wide_fails`` is False: b finite and non-zero), in the dtype of ``one`` (1 in a's
    type), with selects only, so that it vectorises: the same steps and roundings as NumPy's."""
    div = (a - mod) / b
    div = div - one if (mod != 0) & ((b < 0) != (mod < 0)) else div
    whole = np.floor(div)
    whole = whole + one if div - whole > 0.5 else whole
    return whole if div != 0 else np.copysign(div - div, a / b)


@njit(cache=True, error_model="numpy")
def fmod_i(a, b):
    """C ``fmod`` on integers: the result has the dividend's sign."""
    if b == 0:
        return a - a
    m = a % b
    if m != 0 and (m < 0) != (a < 0):
        m -= b
    return m


@njit(cache=True, error_model="numpy")
def pow_i(a, b):
    """Integer power by squaring; negative exponents follow PyTorch (1, +-1 or 0)."""
    if b < 0:
        if a == 1:
            return a
        if a == -1:
            return a if (-b) % 2 == 1 else -a
        return a - a
    result = a - a + 1
    base = a
    while b > 0:
        if b & 1:
            result *= base
        base *= base
        b >>= 1
    return result


@njit(cache=True, error_model="numpy")
def maximum_f(a, b):
    """Max that propagates NaN from either side (torch.maximum). ``a if a > b else b`` is
    one ``vmaxpd`` (which gives its second operand, b, when either is NaN); only a NaN in a
    needs a select after it. (Testing both for NaN first took a compare, a masked compare and
    two blends a vector: float64 0.37 against add's 0.24 ns/element in the L1 cache.)"""
    t = a if a > b else b
    return a if a != a else t


@njit(cache=True, error_model="numpy")
def minimum_f(a, b):
    """Min that propagates NaN from either side (torch.minimum); see ``maximum_f``."""
    t = a if a < b else b
    return a if a != a else t


@njit(cache=True, error_model="numpy")
def clamp(x, lo, hi):
    """min(max(x, lo), hi) with NaN in x or in a bound propagated; lo > hi gives hi, as in
    PyTorch."""
    t = lo if (x < lo or lo != lo) else x
    return hi if (t > hi or hi != hi) else t


@njit(cache=True, error_model="numpy")
def pow_half(x, inf):
    """x ** 0.5 as NumPy's power gives it: sqrt, but +0 at -0 and +inf at -inf (``inf`` carries
    the dtype)."""
    return inf if x == -inf else math.sqrt(abs(x) if x == 0 else x)


@njit(cache=True, error_model="numpy")
def plus_zero_as_one(x, one):
    """x, or ``one`` where x is +0: a base that a fast pow form's domain holds, so that a +0
    base (a clipped or rectified value: common) does not send its strip to the full form."""
    return one if (x == 0) & (math.copysign(1.0, x) > 0) else x


@njit(cache=True, error_model="numpy")
def pow_plus_zero(x, y, value, one, inf):
    """``value`` (x**y by a fast form of ``plus_zero_as_one(x)``), or x**y at x = +0: 0, inf or
    1 for y > 0, < 0 or 0 (a NaN y is outside the fast forms' domain; its fix-up gives NaN)."""
    at_zero = (one - one) if y > 0 else (inf if y < 0 else one)
    return at_zero if (x == 0) & (math.copysign(1.0, x) > 0) else value


@njit(cache=True, error_model="numpy")
def lerp(a, b, w, one):
    """PyTorch's two-sided lerp formula, exact at both ends (``one`` carries the dtype)."""
    if abs(w) < 0.5:
        return a + w * (b - a)
    return b - (b - a) * (one - w)


@njit(cache=True, error_model="numpy")
def sigmoid(x, one):
    """1 / (1 + exp(-x)) with libm exp (``one`` carries the dtype)."""
    return one / (one + math.exp(-x))


# -- integer division by a number the kernel takes as an argument -----------------------------
#
# LLVM divides by a constant with a multiplication (Granlund and Montgomery's magic numbers);
# by a kernel argument it emits a 64-bit idiv for every element (~20-40 cycles): t // period
# and t % period over 10^4 int64 took 41.9 us in one kernel against NumPy's 27.3, whose loops
# divide by a scalar with libdivide's multiplications. ``divider`` computes the magic number
# once per call (``Emitter.hoist``), and the ``*_by`` helpers divide with it: a multiply-high,
# a shift and a sign fix (Hacker's Delight, 2nd ed., section 10-4, for 64-bit words).

_INT64_MIN = -(2 ** 63)


@intrinsic
def _mulhs(typingctx, a, b):
    """The high 64 bits of the signed 128-bit product of two int64s."""
    if a != types.int64 or b != types.int64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.sext(args[0], wide), builder.sext(args[1], wide))
        return builder.trunc(builder.ashr(product, ir.Constant(wide, 64)), ir.IntType(64))
    return types.int64(types.int64, types.int64), codegen


@njit(cache=True, error_model="numpy")
def divider(d):
    """(magic, shift, add, fix) dividing int64s by ``d`` without a branch (``truncate_by``):
    Hacker's Delight's magic number and shift for |d| >= 2 (the minimum included), with
    ``add`` the dividend's multiple to add (the magic number is 2^64 too small or too large
    as an int64) and ``fix`` 1 (a negative quotient is one too small); 1 and -1 give
    n and -n (wrapping for the minimum, as NumPy's does); 0 gives 0 (the kernel flags it)."""
    d = np.int64(d)
    if d == 0 or d == 1 or d == -1:
        return np.int64(0), np.int64(0), d, np.int64(0)
    two63 = np.uint64(1) << np.uint64(63)
    ad = np.uint64(0) - np.uint64(d) if d < 0 else np.uint64(d)     # (|minimum| = 2^63)
    t = two63 + np.uint64(1 if d < 0 else 0)
    anc = t - np.uint64(1) - t % ad          # |nc|, the largest |n| with n % d == d - 1
    p = 63
    q1 = two63 // anc
    r1 = two63 - q1 * anc
    q2 = two63 // ad
    r2 = two63 - q2 * ad
    while True:
        p += 1
        q1 = q1 * np.uint64(2)
        r1 = r1 * np.uint64(2)
        if r1 >= anc:
            q1 += np.uint64(1)
            r1 -= anc
        q2 = q2 * np.uint64(2)
        r2 = r2 * np.uint64(2)
        if r2 >= ad:
            q2 += np.uint64(1)
            r2 -= ad
        delta = ad - r2
        if not (q1 < delta or (q1 == delta and r1 == 0)):
            break
    magic = np.int64(q2 + np.uint64(1))      # (wraps: the magic number may pass 2^63)
    if d < 0:
        magic = -magic
    add = 1 if d > 0 and magic < 0 else -1 if d < 0 and magic > 0 else 0
    return magic, np.int64(p - 64), np.int64(add), np.int64(1)


@njit(cache=True, error_model="numpy")
def truncate_by(n, magic, shift, add, fix):
    """n / d rounded toward zero, with ``divider(d)``'s numbers."""
    q = (_mulhs(magic, n) + add * n) >> shift
    return q + ((q >> 63) & fix)             # (one more toward zero for a negative q)


@njit(cache=True, error_model="numpy")
def floor_divide_by(n, d, magic, shift, add, fix):
    """``floor_divide_i(n, d)`` with ``divider(d)``'s numbers."""
    q = truncate_by(n, magic, shift, add, fix)
    r = n - q * d
    return q - ((r != 0) & ((r < 0) != (d < 0)))


@njit(cache=True, error_model="numpy")
def remainder_by(n, d, magic, shift, add, fix):
    """``remainder_i(n, d)`` (the divisor's sign) with ``divider(d)``'s numbers."""
    r = n - truncate_by(n, magic, shift, add, fix) * d
    return r + d * ((r != 0) & ((r < 0) != (d < 0)))


@njit(cache=True, error_model="numpy")
def fmod_by(n, d, magic, shift, add, fix):
    """``fmod_i(n, d)`` (the dividend's sign) with ``divider(d)``'s numbers."""
    return n - truncate_by(n, magic, shift, add, fix) * d
