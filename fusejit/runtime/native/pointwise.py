"""Native (Numba) bodies of the pointwise tensor ops, over strided views of 1-D buffers.

An operand is a buffer plus a meta row (see ``registers``): ``x[offset + sum(i_d * stride_d)]``.
The ops compute in the promoted dtype exactly as the NumPy bodies do, so results are bit-equal
for the arithmetic (add, sub, mul, div, maximum, minimum, comparisons, neg, abs, relu, floor,
ceil, trunc, round, sqrt, reciprocal, rsqrt)::

    %z : Float(64) = aten::add(%x, %y, %one)      z[i] = x[i] + y[i]  (alpha 1: no multiply)
    %w : Float(64) = aten::sub(%x, %y, %two)      w[i] = x[i] - y[i] * 2  (rounded twice, as NumPy)

Each op has one element body (``_arith``, ``_arith_int``, ``_compare``, ``_unary``,
``_unary_int``), and ``_pointwise`` makes the one loop that runs it: the same source serves the
general path (arrays, any layout) and the loop's fast path (data pointers without reference
counts), Numba specialising it for each. Shapes broadcast through one walk (``merge_sizes``),
and operands are aligned to the result by one (``operand_strides``).

The transcendental ones (exp, log, tanh, sigmoid, sin, cos) call the C library through LLVM,
while NumPy has its own SIMD implementations: they may differ in the last bits (measured in
``tests/runtime/test_native_ops.py``; see ``ULP_BOUNDS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .opcodes import Group, NativeOp
from .registers import FORCEINLINE, MAX_RANK, OFFSET, RANK, SIZES, STRIDES

EXACT_UNARY = Group.EXACT_UNARY
# Measured bound on the difference from NumPy's bodies, in units in the last place, float32 and
# float64 alike (800,000 points in [-100, 100]; test_native_ops checks it). log's is 4: near 1,
# NumPy's float32 log is up to 3 ulp from the correctly rounded result (log(0.8049311) is
# -0.21699859, NumPy's -0.21699855), libm's within 1 (6 million |normal| and [0.7, 1.4]
# points), so the two differ by up to 4, which a clean CI-like run drew.
ULP_BOUNDS = {NativeOp.EXP: 2, NativeOp.LOG: 4, NativeOp.TANH: 3, NativeOp.SIGMOID: 4,
              NativeOp.SIN: 1, NativeOp.COS: 1}

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


# The most elements a native tensor may span, counting a size-0 dimension as 1. NumPy refuses
# an array whose non-zero sizes times its item size pass 2**63 - 1 bytes (even an empty one);
# native ops decline well before that, at 2**62 bytes for any dtype, so that no size, stride
# or offset product can wrap around int64. The host then runs the op: the reference's error,
# or its result.
MAX_ELEMENTS = 1 << 59
_SMALL = 1 << 29   # two factors below this multiply to less than MAX_ELEMENTS


@njit(**FORCEINLINE)
def grow(count, size):
    """``count * max(size, 1)`` for a running element count ``count`` (>= 1), or -1 when
    ``size`` is negative or the product passes ``MAX_ELEMENTS``; -1 stays -1."""
    if size <= 1:
        return count if size >= 0 else -1
    if count < _SMALL and size < _SMALL:
        return count * size if count > 0 else -1
    if count <= 0 or size > MAX_ELEMENTS // count:
        return -1
    return count * size


@njit(**FORCEINLINE)
def sizes_fit(m):
    """Can a tensor of meta ``m``'s sizes exist natively (``grow`` over every dimension)?"""
    count = 1
    for d in range(m[RANK]):
        count = grow(count, m[SIZES + d])
    return count > 0


@njit(**FORCEINLINE)
def keeps_c_order(m):
    """Does NumPy give a C-contiguous result for an elementwise op or axis sum over this
    operand (and others that keep it)? Yes when its strides, over dimensions of size > 1 that
    are not broadcast, do not grow from outer to inner (no counter-example in 30,000 random
    layouts). A transposed operand gives NumPy's result its own layout, which a later
    ``view`` sees (it fails there), so native ops, whose results are C-contiguous, decline."""
    last = -1
    for d in range(m[RANK]):
        s = abs(m[STRIDES + d])
        if m[SIZES + d] <= 1 or s == 0:
            continue
        if last >= 0 and s > last:
            return False
        last = s
    return True


@njit(**FORCEINLINE)
def merge_sizes(out, at, rank, sizes, start, n):
    """Broadcast the ``n`` sizes ``sizes[start:]`` into the ``rank`` sizes ``out[at:]``,
    right-aligned (``out`` starts as ones); False when they clash. The one broadcast walk:
    of two operands' metas, of a tensor list and of two size lists."""
    for k in range(n):
        d = at + rank - n + k
        s, o = sizes[start + k], out[d]
        if o == 1:
            out[d] = s
        elif s != 1 and s != o:
            return False
    return True


@njit(**FORCEINLINE)
def broadcast_meta(am, bm, om):
    """Write into ``om`` the contiguous meta of the broadcast of two operands; returns its
    element count, -1 if their shapes do not broadcast or the result would be too large
    (``MAX_ELEMENTS``)."""
    ra, rb = am[RANK], bm[RANK]
    rank = max(ra, rb)
    om[RANK] = rank
    om[OFFSET] = 0
    for d in range(rank):
        om[SIZES + d] = 1
    if not (merge_sizes(om, SIZES, rank, am, SIZES, ra)
            and merge_sizes(om, SIZES, rank, bm, SIZES, rb)):
        return -1
    return contiguous_strides(om)


@njit(**FORCEINLINE)
def contiguous_strides(meta):
    """Fill ``meta``'s strides for a C-contiguous layout; returns the element count (0 when a
    size is 0), or -1 when the sizes pass ``MAX_ELEMENTS`` (``grow``)."""
    step, empty = 1, False
    for d in range(meta[RANK] - 1, -1, -1):
        meta[STRIDES + d] = step
        size = meta[SIZES + d]
        step = grow(step, size)   # (2**40, 1) and (1, 2**40): the count would wrap
        empty = empty or size == 0
    if step < 0:
        return -1
    return 0 if empty else step


@njit(**FORCEINLINE)
def operand_strides(xm, om, strides):
    """``x``'s strides aligned to the output's dimensions (0 where it is broadcast) into
    ``strides``; returns 1 if it walks the output contiguously, 0 if it is constant, -1
    otherwise (then the loop walks ``strides``)."""
    rank, rx = om[RANK], xm[RANK]
    flat, constant = True, True
    for d in range(rank):
        s = 0
        if d >= rank - rx:
            k = d - (rank - rx)
            if xm[SIZES + k] != 1 or om[SIZES + d] == 1:
                s = xm[STRIDES + k]
        strides[d] = s
        if om[SIZES + d] != 1:
            if s != 0:
                constant = False
            if s != om[STRIDES + d]:
                flat = False
    if constant:
        return 0
    return 1 if flat else -1


# -- the element bodies -----------------------------------------------------------------------
# ``c`` is the op's constant: one in the operands' dtype for the unary ops (the arithmetic has
# already applied alpha to ``y``). A unary op's ``y`` is ``x`` again.

@njit(inline="always")
def _arith(op, x, y, c):
    if op == NativeOp.ADD:
        return x + y
    if op == NativeOp.SUB:
        return x - y
    if op == NativeOp.MUL:
        return x * y
    if op == NativeOp.DIV:
        return x / y
    # (NumPy's maximum/minimum: y where they are equal, np.maximum(-0.0, 0.0) is 0.0)
    if op == NativeOp.MAXIMUM:
        if x != x:
            return x
        if y != y:
            return y
        return x if x > y else y
    if x != x:
        return x
    if y != y:
        return y
    return x if x < y else y


@njit(inline="always")
def _arith_int(op, x, y, c):
    # _arith without true division, so integer results never pass through a float
    if op == NativeOp.ADD:
        return x + y
    if op == NativeOp.SUB:
        return x - y
    if op == NativeOp.MUL:
        return x * y
    if op == NativeOp.MAXIMUM:
        return x if x >= y else y
    return x if x <= y else y


@njit(inline="always")
def _compare(op, x, y, c):
    if op == NativeOp.EQ:
        return x == y
    if op == NativeOp.NE:
        return x != y
    if op == NativeOp.LT:
        return x < y
    if op == NativeOp.LE:
        return x <= y
    if op == NativeOp.GT:
        return x > y
    return x >= y


@njit(inline="always")
def _unary(op, x, y, one):
    zero = one - one
    if op == NativeOp.NEG:
        return -x
    if op == NativeOp.ABS:
        return abs(x)
    if op == NativeOp.RELU:
        return x if x >= zero or x != x else zero  # np.maximum(x, 0): keeps nan and -0.0
    if op == NativeOp.FLOOR:
        return np.floor(x)
    if op == NativeOp.CEIL:
        return np.ceil(x)
    if op == NativeOp.TRUNC:
        return np.trunc(x)
    if op == NativeOp.ROUND:
        return np.rint(x)
    if op == NativeOp.SQRT:
        return np.sqrt(x)
    if op == NativeOp.RSQRT:
        return one / np.sqrt(x)
    if op == NativeOp.RECIPROCAL:
        return one / x
    if op == NativeOp.EXP:
        return np.exp(x)
    if op == NativeOp.LOG:
        return np.log(x)
    if op == NativeOp.TANH:
        return np.tanh(x)
    if op == NativeOp.SIGMOID:
        return one / (one + np.exp(-x))
    if op == NativeOp.SIN:
        return np.sin(x)
    return np.cos(x)


@njit(inline="always")
def _unary_int(op, x, y, one):
    if op == NativeOp.NEG:
        return -x
    if op == NativeOp.ABS:
        return abs(x)
    if op == NativeOp.RELU:
        return x if x > 0 else x - x
    return x  # floor, ceil, trunc, round of an integer


@njit(inline="always")
def _copy(op, x, y, c):
    return x   # aten::copy_: the source element, into the destination's dtype


# -- the one loop -----------------------------------------------------------------------------

def _pointwise(element):
    """The loops of one element body: ``out[i] = element(op, a_i, b_i * alpha, c)`` over the
    ``n`` elements of the result (meta ``om``), ``b`` scaled only when ``scaled``. Operand
    ``x`` starts at ``px``; with walk ``kx`` 1 it is contiguous along the result, 0 constant,
    -1 strided (``operand_strides``' ``sx``). ``a``, ``b`` and ``out`` may be arrays or data
    pointers: Numba compiles one specialisation for each, from this one source.

    Returns ``(flat, walk)``: ``flat`` for operands that are all contiguous or constant (the
    loop's fast path calls it with pointers), ``walk`` for any. ``flat`` is a function of its
    own so that LLVM, seeing a small loop, hoists the test of ``op`` out of it and vectorises
    each op's loop (merged with the strided walk it did not: +30-40 ns a small op)."""

    @njit(**_OPTIONS)
    def flat(op, a, pa, ka, b, pb, kb, out, n, c, scaled):
        for i in range(n):
            y = b[pb + i * kb]
            if scaled:
                y = y * c
            out[i] = element(op, a[pa + i * ka], y, c)

    @njit(**_OPTIONS)
    def strided(op, a, pa, sa, b, pb, sb, out, om, n, c, scaled):
        rank = om[RANK]
        index = np.zeros(MAX_RANK, np.int64)
        for i in range(n):
            y = b[pb]
            if scaled:
                y = y * c
            out[i] = element(op, a[pa], y, c)
            d = rank - 1
            while d >= 0:   # the next index in C order
                index[d] += 1
                pa += sa[d]
                pb += sb[d]
                if index[d] < om[SIZES + d]:
                    break
                pa -= sa[d] * om[SIZES + d]
                pb -= sb[d] * om[SIZES + d]
                index[d] = 0
                d -= 1

    @njit(inline="always")
    def walk(op, a, pa, sa, ka, b, pb, sb, kb, out, om, n, c, scaled):
        if ka >= 0 and kb >= 0:
            flat(op, a, pa, ka, b, pb, kb, out, n, c, scaled)
        else:
            strided(op, a, pa, sa, b, pb, sb, out, om, n, c, scaled)

    return flat, walk


arith_flat, arith = _pointwise(_arith)
arith_int = _pointwise(_arith_int)[1]
compare = _pointwise(_compare)[1]
unary_flat, unary = _pointwise(_unary)
unary_int = _pointwise(_unary_int)[1]
copy = _pointwise(_copy)[1]


__all__ = ["arith", "arith_flat", "arith_int", "broadcast_meta", "compare",
           "contiguous_strides", "copy", "merge_sizes", "operand_strides", "unary", "unary_flat",
           "unary_int"]
