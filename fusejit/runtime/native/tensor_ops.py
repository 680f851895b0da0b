"""Native bodies of the shape, view, reduction and matrix ops, over buffer + meta registers.

Views write only a meta row and share the input's buffer slot, so they cost no copy::

    %y : Float(3, 2) = aten::t(%x)                 meta[y] = meta[x] with sizes/strides swapped
    %r : Float(2) = aten::select(%x, %zero, %one)  offset += 1 * stride0, dimension 0 removed
    %a, %b = prim::ConstantChunk[chunks=2, dim=1](%x)

``mm`` of row-major (or transposed row-major) operands calls NumPy's own BLAS (``blas.product``),
like NumPy's ``matmul`` (bit-equal in every case measured); other layouts multiply with one
accumulator per element, k ascending. ``sum`` of a contiguous tensor is NumPy's pairwise sum,
bit for bit; axis sums add in order. The strided ``mm`` and the axis sums can differ from the
NumPy bodies by rounding (bounded in ``tests/runtime/test_native_ops.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..blas import product
from .pointwise import contiguous_strides, grow, merge_sizes, sizes_fit
from .registers import MAX_RANK, OFFSET, RANK, SIZES, STRIDES, copy_meta

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


@njit(**_OPTIONS)
def is_contiguous(m):
    step = 1
    for d in range(m[RANK] - 1, -1, -1):
        if m[SIZES + d] != 1 and m[STRIDES + d] != step:
            return False
        step *= m[SIZES + d]
    return True


@njit(**_OPTIONS)
def numel(m):
    n = 1
    for d in range(m[RANK]):
        n *= m[SIZES + d]
    return n


@njit(**_OPTIONS)
def infer_view(m, shape, om):
    """``om`` = ``m`` viewed with ``shape`` (one -1 inferred); False if it is invalid, too large
    (``pw.grow``) or ``m`` is not contiguous (the host then copies or raises)."""
    if len(shape) > MAX_RANK or not is_contiguous(m):
        return False
    n = numel(m)
    known, count, infer = 1, 1, -1
    for d in range(len(shape)):
        if shape[d] == -1:
            if infer >= 0:
                return False
            infer = d
        else:
            # checked first: (2**62 + 3) * 4 wraps around to 12
            count = grow(count, shape[d])
            if count < 0:
                return False
            known *= shape[d]
    om[RANK] = len(shape)
    for d in range(len(shape)):
        om[SIZES + d] = shape[d]
    if infer >= 0:
        if known == 0 or n % known != 0:
            return False
        om[SIZES + infer] = n // known
    elif known != n:
        return False
    contiguous_strides(om)
    om[OFFSET] = m[OFFSET]
    return True


@njit(**_OPTIONS)
def transpose(m, om):
    if m[RANK] > 2:
        return False
    copy_meta(om, m)
    if m[RANK] == 2:
        om[SIZES], om[SIZES + 1] = m[SIZES + 1], m[SIZES]
        om[STRIDES], om[STRIDES + 1] = m[STRIDES + 1], m[STRIDES]
    return True


@njit(inline="always")
def wrap_dim(dim, rank):
    bound = max(rank, 1)
    if dim < -bound or dim >= bound:
        return -1
    return dim + bound if dim < 0 else dim


@njit(**_OPTIONS)
def select(m, dim, index, om):
    rank = m[RANK]
    if rank == 0:
        return False
    d = wrap_dim(dim, rank)
    if d < 0:
        return False
    size = m[SIZES + d]
    if index < -size or index >= size:
        return False
    if index < 0:
        index += size
    copy_meta(om, m)
    om[RANK] = rank - 1
    om[OFFSET] = m[OFFSET] + index * m[STRIDES + d]
    for k in range(d, rank - 1):
        om[SIZES + k] = m[SIZES + k + 1]
        om[STRIDES + k] = m[STRIDES + k + 1]
    return True


@njit(**_OPTIONS)
def expand(m, size, om):
    """PyTorch's ``expand``: new leading dimensions and size-1 ones get stride 0."""
    rank, n = m[RANK], len(size)
    if n < rank or n > MAX_RANK:
        return False
    lead = n - rank
    copy_meta(om, m)
    om[RANK] = n
    for i in range(n):
        s = size[i]
        if i < lead:
            if s < 0:
                return False
            om[SIZES + i] = s
            om[STRIDES + i] = 0
            continue
        have = m[SIZES + i - lead]
        stride = m[STRIDES + i - lead]
        if s == -1:
            s = have
        elif have != s:
            if have != 1 or s < 0:
                return False
            stride = 0
        om[SIZES + i] = s
        om[STRIDES + i] = stride
    om[3] = 1  # READONLY: like np.broadcast_to, an expanded tensor is not written through
    return sizes_fit(om)


@njit(inline="always")
def _ceil_div(a, b):
    # (a + b - 1) // b wraps around for a ``chunks`` near 2**63
    return a // b + (1 if a % b != 0 else 0)


@njit(**_OPTIONS)
def chunk_count(m, chunks, dim):
    """How many pieces ``chunk(chunks, dim)`` gives; -1 on an invalid call."""
    rank = m[RANK]
    if rank == 0 or chunks <= 0:
        return -1
    d = wrap_dim(dim, rank)
    if d < 0:
        return -1
    n = m[SIZES + d]
    split = _ceil_div(n, chunks)
    return chunks if split == 0 else max(_ceil_div(n, split), 1)


@njit(**_OPTIONS)
def chunk_piece(m, chunks, dim, k, om):
    """Piece ``k`` of ``chunk(chunks, dim)``; returns 0 if there is no such piece, -1 on an
    invalid call, else 1."""
    count = chunk_count(m, chunks, dim)
    if count < 0:
        return -1
    if k >= count:
        return 0
    d = wrap_dim(dim, m[RANK])
    n = m[SIZES + d]
    split = _ceil_div(n, chunks)
    start = min(k * split, n)
    size = split if k < count - 1 else n - split * (count - 1)
    copy_meta(om, m)
    om[SIZES + d] = size
    om[OFFSET] = m[OFFSET] + start * m[STRIDES + d]
    return 1


# Products of at least this many multiply-adds go back to the host (the loop declines them),
# where NumPy's matmul runs them on its BLAS's threads (the same library as ``blas.product``
# here, which runs smaller products on one thread). A host call costs ~10 us, well under 1% of
# such a product.
HOST_MM_MACS = 1 << 21


@njit(inline="always")
def mm_on_host(am, bm):
    """Should ``a @ b`` (metas ``am``, ``bm``) run on the host rather than here? (Also when the
    count of multiply-adds passes what ``grow`` counts.)"""
    macs = grow(grow(grow(1, am[SIZES]), am[SIZES + 1]), bm[SIZES + 1])
    return macs < 0 or macs >= HOST_MM_MACS


@njit(inline="always")
def mm_fits(rows, cols):
    """Is ``a @ b``'s result (``rows`` x ``cols``) small enough to be native (``grow``)?"""
    return grow(grow(1, rows), cols) > 0


@njit(**_OPTIONS)
def mm(a, am, b, bm, om):
    """``a @ b`` for 2-D float views, into a new contiguous buffer; ``om`` gets its meta.
    Row-major ``a`` and a row- or column-major ``b`` go to BLAS (``blas.product``), as NumPy's
    ``matmul`` does; other layouts use one accumulator per element, k ascending."""
    rows, inner, cols = am[SIZES], am[SIZES + 1], bm[SIZES + 1]
    om[RANK] = 2
    om[OFFSET] = 0
    om[SIZES], om[SIZES + 1] = rows, cols
    contiguous_strides(om)
    ra, ca, rb, cb = am[STRIDES], am[STRIDES + 1], bm[STRIDES], bm[STRIDES + 1]
    oa, ob = am[OFFSET], bm[OFFSET]
    if rows > 0 and inner > 0 and cols > 0 and (ca == 1 or inner == 1) \
            and (ra == inner or rows == 1):
        left = a[oa:oa + rows * inner].reshape(rows, inner)
        if (cb == 1 or cols == 1) and (rb == cols or inner == 1):
            return product(left, b[ob:ob + inner * cols].reshape(inner, cols)).reshape(-1)
        if (rb == 1 or inner == 1) and (cb == inner or cols == 1):
            return product(left, b[ob:ob + inner * cols].reshape(cols, inner).T).reshape(-1)
    out = np.empty(rows * cols, a.dtype)
    zero = a.dtype.type(0)
    for i in range(rows):
        for j in range(cols):
            out[i * cols + j] = zero
        for k in range(inner):
            x = a[oa + i * ra + k * ca]
            for j in range(cols):
                out[i * cols + j] += x * b[ob + k * rb + j * cb]
    return out


@njit(**_OPTIONS)
def _pairwise(x, start, n):
    # NumPy's pairwise summation (8 accumulators in blocks of up to 128 elements)
    if n < 8:
        s = np.zeros(1, x.dtype)[0]  # +0 as NumPy starts (x - x would be NaN for an inf)
        for i in range(n):
            s += x[start + i]
        return s
    if n <= 128:
        r0, r1, r2, r3 = x[start], x[start + 1], x[start + 2], x[start + 3]
        r4, r5, r6, r7 = x[start + 4], x[start + 5], x[start + 6], x[start + 7]
        i = 8
        while i < n - n % 8:
            r0 += x[start + i]
            r1 += x[start + i + 1]
            r2 += x[start + i + 2]
            r3 += x[start + i + 3]
            r4 += x[start + i + 4]
            r5 += x[start + i + 5]
            r6 += x[start + i + 6]
            r7 += x[start + i + 7]
            i += 8
        s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            s += x[start + i]
            i += 1
        return s
    half = n // 2
    half -= half % 8
    return _pairwise(x, start, half) + _pairwise(x, start + half, n - half)


@njit(**_OPTIONS)
def sum_all(x, m, om):
    """The sum of every element (in ``x``'s dtype), as a 1-element buffer; ``om`` = 0-dim."""
    om[RANK] = 0
    om[OFFSET] = 0
    out = np.zeros(1, x.dtype)
    n = numel(m)
    if n == 0:
        return out
    if is_contiguous(m):
        out[0] = _pairwise(x, m[OFFSET], n)
        return out
    index = np.zeros(MAX_RANK, np.int64)
    rank = m[RANK]
    p = m[OFFSET]
    s = out[0]
    for _ in range(n):
        s += x[p]
        d = rank - 1
        while d >= 0:
            index[d] += 1
            p += m[STRIDES + d]
            if index[d] < m[SIZES + d]:
                break
            p -= m[STRIDES + d] * m[SIZES + d]
            index[d] = 0
            d -= 1
    out[0] = s
    return out


@njit(**_OPTIONS)
def sum_dims(x, m, reduce, keepdim, om):
    """Sum over the dimensions flagged in ``reduce``; ``om`` gets the result's meta."""
    rank = m[RANK]
    k = 0
    for d in range(rank):
        if reduce[d]:
            if keepdim:
                om[SIZES + k] = 1
                k += 1
        else:
            om[SIZES + k] = m[SIZES + d]
            k += 1
    om[RANK] = k
    om[OFFSET] = 0
    total = contiguous_strides(om)
    out = np.zeros(total, x.dtype)
    # the output offset of every input index: output strides on kept dims, 0 on reduced ones
    ostride = np.zeros(MAX_RANK, np.int64)
    k = 0
    for d in range(rank):
        if reduce[d]:
            if keepdim:
                k += 1
        else:
            ostride[d] = om[STRIDES + k]
            k += 1
    n = numel(m)
    index = np.zeros(MAX_RANK, np.int64)
    p, q = m[OFFSET], 0
    for _ in range(n):
        out[q] += x[p]
        d = rank - 1
        while d >= 0:
            index[d] += 1
            p += m[STRIDES + d]
            q += ostride[d]
            if index[d] < m[SIZES + d]:
                break
            p -= m[STRIDES + d] * m[SIZES + d]
            q -= ostride[d] * m[SIZES + d]
            index[d] = 0
            d -= 1
    return out


@njit(**_OPTIONS)
def broadcast_sizes(a, b):
    """The broadcast of two size lists, or an empty array with ok False."""
    rank = max(len(a), len(b))
    out = np.ones(rank, np.int64)
    ok = merge_sizes(out, 0, rank, a, 0, len(a)) and merge_sizes(out, 0, rank, b, 0, len(b))
    return out, ok
