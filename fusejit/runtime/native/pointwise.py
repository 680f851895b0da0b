"""Native (Numba) bodies of the pointwise tensor ops, over strided views of 1-D buffers.

An operand is a buffer plus a meta row (see ``registers``): ``x[offset + sum(i_d * stride_d)]``.
The ops compute in the promoted dtype exactly as the NumPy bodies do, so results are bit-equal
for the arithmetic (add, sub, mul, div, maximum, minimum, comparisons, neg, abs, relu, floor,
ceil, trunc, round, sqrt, reciprocal, rsqrt)::

    %z : Float(64) = aten::add(%x, %y, %one)      z[i] = x[i] + y[i]  (alpha 1: no multiply)
    %w : Float(64) = aten::sub(%x, %y, %two)      w[i] = x[i] - y[i] * 2  (rounded twice, as NumPy)

The transcendental ones (exp, log, tanh, sigmoid, sin, cos) call the C library through LLVM,
while NumPy has its own SIMD implementations: they may differ in the last bits (measured in
``tests/runtime/test_native_ops.py``; see ``ULP_BOUNDS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .registers import DTYPE, MAX_RANK, OFFSET, RANK, SIZES, STRIDES

# Binary op codes (the native table maps schemas onto them).
ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM = range(6)
EQ, NE, LT, LE, GT, GE = range(10, 16)
# Unary op codes.
(NEG, ABS, RELU, FLOOR, CEIL, TRUNC, ROUND, SQRT, RSQRT, RECIPROCAL, EXP, LOG, TANH, SIGMOID,
 SIN, COS) = range(20, 36)
EXACT_UNARY = frozenset({NEG, ABS, RELU, FLOOR, CEIL, TRUNC, ROUND, SQRT, RSQRT, RECIPROCAL})
# Measured bound on the difference from NumPy's bodies, in units in the last place, float32 and
# float64 alike (800,000 points in [-100, 100]; test_native_ops checks it).
ULP_BOUNDS = {EXP: 2, LOG: 3, TANH: 3, SIGMOID: 4, SIN: 1, COS: 1}

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}

# The most elements a native tensor may span, counting a size-0 dimension as 1. NumPy refuses
# an array whose non-zero sizes times its item size pass 2**63 - 1 bytes (even an empty one);
# native ops decline well before that, at 2**62 bytes for any dtype, so that no size, stride
# or offset product can wrap around int64. The host then runs the op: the reference's error,
# or its result.
MAX_ELEMENTS = 1 << 59
_SMALL = 1 << 29   # two factors below this multiply to less than MAX_ELEMENTS


@njit(inline="always")
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


@njit(inline="always")
def sizes_fit(m):
    """Can a tensor of meta ``m``'s sizes exist natively (``grow`` over every dimension)?"""
    count = 1
    for d in range(m[RANK]):
        count = grow(count, m[SIZES + d])
    return count > 0


@njit(inline="always")
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


@njit(**_OPTIONS)
def broadcast_meta(am, bm, out):
    """Write into ``out`` the contiguous meta of the broadcast of two operands; False if their
    shapes do not broadcast or the result would be too large (``MAX_ELEMENTS``)."""
    ra, rb = am[RANK], bm[RANK]
    rank = max(ra, rb)
    out[RANK] = rank
    out[OFFSET] = 0
    for d in range(rank):
        sa = am[SIZES + d - (rank - ra)] if d >= rank - ra else 1
        sb = bm[SIZES + d - (rank - rb)] if d >= rank - rb else 1
        if sa == sb or sb == 1:
            out[SIZES + d] = sa
        elif sa == 1:
            out[SIZES + d] = sb
        else:
            return False
    if not sizes_fit(out):
        return False
    contiguous_strides(out)
    return True


@njit(**_OPTIONS)
def contiguous_strides(meta):
    """Fill ``meta``'s strides for a C-contiguous layout; returns the element count. The sizes
    must fit (``sizes_fit``): every view op checks the sizes it makes."""
    step = 1
    for d in range(meta[RANK] - 1, -1, -1):
        meta[STRIDES + d] = step
        step *= max(meta[SIZES + d], 1)
    n = 1
    for d in range(meta[RANK]):
        n *= meta[SIZES + d]
    return n


@njit(**_OPTIONS)
def operand_strides(xm, om, strides):
    """``x``'s strides aligned to the output's dimensions (0 where it is broadcast); returns
    1 if it walks the output contiguously, 0 if it is constant, -1 otherwise."""
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


@njit(**_OPTIONS)
def walk_kind(xm, om):
    """``operand_strides``'s answer without storing the strides (no allocation)."""
    rank, rx = om[RANK], xm[RANK]
    flat, constant = True, True
    for d in range(rank):
        s = 0
        if d >= rank - rx:
            k = d - (rank - rx)
            if xm[SIZES + k] != 1 or om[SIZES + d] == 1:
                s = xm[STRIDES + k]
        if om[SIZES + d] != 1:
            if s != 0:
                constant = False
            if s != om[STRIDES + d]:
                flat = False
    if constant:
        return 0
    return 1 if flat else -1


@njit(**_OPTIONS)
def _offsets(xm, om, n):
    """The element offset of ``x`` for every output element, in C order."""
    rank = om[RANK]
    strides = np.zeros(MAX_RANK, np.int64)
    operand_strides(xm, om, strides)
    offsets = np.empty(n, np.int64)
    index = np.zeros(MAX_RANK, np.int64)
    p = xm[OFFSET]
    for k in range(n):
        offsets[k] = p
        d = rank - 1
        while d >= 0:
            index[d] += 1
            p += strides[d]
            if index[d] < om[SIZES + d]:
                break
            p -= strides[d] * om[SIZES + d]
            index[d] = 0
            d -= 1
    return offsets


@njit(inline="always")
def _arith(op, x, y):
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        return x / y
    if op == MAXIMUM:
        if x != x:
            return x
        if y != y:
            return y
        return x if x >= y else y
    if x != x:
        return x
    if y != y:
        return y
    return x if x <= y else y


@njit(inline="always")
def _arith_int(op, x, y):
    # _arith without true division, so integer results never pass through a float
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == MAXIMUM:
        return x if x >= y else y
    return x if x <= y else y


@njit(inline="always")
def _compare(op, x, y):
    if op == EQ:
        return x == y
    if op == NE:
        return x != y
    if op == LT:
        return x < y
    if op == LE:
        return x <= y
    if op == GT:
        return x > y
    return x >= y


@njit(**_OPTIONS)
def binary(op, a, am, b, bm, alpha, scaled, om):
    """``a op (b * alpha)`` (alpha only when ``scaled``) broadcast into a new buffer; ``om``
    must hold the broadcast meta. Arithmetic ops keep the dtype, comparisons give bool."""
    n = contiguous_strides(om)
    out = np.empty(n, a.dtype)
    ka, kb = walk_kind(am, om), walk_kind(bm, om)
    if ka >= 0 and kb >= 0:
        pa, pb = am[OFFSET], bm[OFFSET]
        for i in range(n):
            y = b[pb + i * kb]
            if scaled:
                y = y * alpha
            out[i] = _arith(op, a[pa + i * ka], y)
        return out
    oa, ob = _offsets(am, om, n), _offsets(bm, om, n)
    for i in range(n):
        y = b[ob[i]]
        if scaled:
            y = y * alpha
        out[i] = _arith(op, a[oa[i]], y)
    return out


@njit(**_OPTIONS)
def binary_flat(op, a, pa, ka, b, pb, kb, out, n, alpha, scaled):
    """``binary`` over raw data pointers: element ``i`` of ``a`` is ``a[pa + i * ka]`` (``ka``
    1: contiguous, 0: broadcast), likewise ``b``; ``out`` has ``n`` elements. Pointers, unlike
    arrays, are passed without reference counting."""
    for i in range(n):
        y = b[pb + i * kb]
        if scaled:
            y = y * alpha
        out[i] = _arith(op, a[pa + i * ka], y)


@njit(**_OPTIONS)
def binary_int(op, a, am, b, bm, alpha, scaled, om):
    """``binary`` for int64 buffers (no true division: the caller computes that in float)."""
    n = contiguous_strides(om)
    out = np.empty(n, a.dtype)
    oa, ob = _offsets(am, om, n), _offsets(bm, om, n)
    for i in range(n):
        y = b[ob[i]]
        if scaled:
            y = y * alpha
        out[i] = _arith_int(op, a[oa[i]], y)
    return out


@njit(**_OPTIONS)
def compare(op, a, am, b, bm, om):
    """``a op b`` broadcast into a new bool buffer; ``om`` holds the broadcast meta."""
    n = contiguous_strides(om)
    out = np.empty(n, np.bool_)
    ka, kb = walk_kind(am, om), walk_kind(bm, om)
    if ka >= 0 and kb >= 0:
        pa, pb = am[OFFSET], bm[OFFSET]
        for i in range(n):
            out[i] = _compare(op, a[pa + i * ka], b[pb + i * kb])
        return out
    oa, ob = _offsets(am, om, n), _offsets(bm, om, n)
    for i in range(n):
        out[i] = _compare(op, a[oa[i]], b[ob[i]])
    return out


@njit(inline="always")
def _unary(op, x, one, zero):
    if op == NEG:
        return -x
    if op == ABS:
        return abs(x)
    if op == RELU:
        return x if x >= zero or x != x else zero  # np.maximum(x, 0): keeps nan and -0.0
    if op == FLOOR:
        return np.floor(x)
    if op == CEIL:
        return np.ceil(x)
    if op == TRUNC:
        return np.trunc(x)
    if op == ROUND:
        return np.rint(x)
    if op == SQRT:
        return np.sqrt(x)
    if op == RSQRT:
        return one / np.sqrt(x)
    if op == RECIPROCAL:
        return one / x
    if op == EXP:
        return np.exp(x)
    if op == LOG:
        return np.log(x)
    if op == TANH:
        return np.tanh(x)
    if op == SIGMOID:
        return one / (one + np.exp(-x))
    if op == SIN:
        return np.sin(x)
    return np.cos(x)


@njit(**_OPTIONS)
def unary_float(op, a, am, om):
    """``op(a)`` for a float buffer, into a new contiguous buffer (``om`` gets its meta)."""
    om[RANK] = am[RANK]
    om[OFFSET] = 0
    for d in range(am[RANK]):
        om[SIZES + d] = am[SIZES + d]
    n = contiguous_strides(om)
    out = np.empty(n, a.dtype)
    one, zero = a.dtype.type(1), a.dtype.type(0)
    k = walk_kind(am, om)
    if k >= 0:
        p = am[OFFSET]
        for i in range(n):
            out[i] = _unary(op, a[p + i * k], one, zero)
        return out
    offsets = _offsets(am, om, n)
    for i in range(n):
        out[i] = _unary(op, a[offsets[i]], one, zero)
    return out


@njit(**_OPTIONS)
def unary_flat(op, a, pa, ka, out, n, one, zero):
    """``unary_float`` over raw data pointers (see ``binary_flat``)."""
    for i in range(n):
        out[i] = _unary(op, a[pa + i * ka], one, zero)


@njit(inline="always")
def _unary_int(op, x):
    if op == NEG:
        return -x
    if op == ABS:
        return abs(x)
    if op == RELU:
        return x if x > 0 else x - x
    return x  # floor, ceil, trunc, round of an integer


@njit(**_OPTIONS)
def unary_int(op, a, am, om):
    """The ops that keep an int64 tensor's dtype (neg, abs, relu, and the roundings)."""
    om[RANK] = am[RANK]
    om[OFFSET] = 0
    for d in range(am[RANK]):
        om[SIZES + d] = am[SIZES + d]
    n = contiguous_strides(om)
    out = np.empty(n, a.dtype)
    offsets = _offsets(am, om, n)
    for i in range(n):
        out[i] = _unary_int(op, a[offsets[i]])
    return out


@njit(**_OPTIONS)
def cast_f32(x):
    return x.astype(np.float32)


@njit(**_OPTIONS)
def cast_f64(x):
    return x.astype(np.float64)


@njit(**_OPTIONS)
def cast_i64(x):
    return x.astype(np.int64)


__all__ = ["DTYPE", "binary", "compare", "unary_float", "unary_int", "broadcast_meta"]
