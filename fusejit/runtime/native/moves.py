"""Register moves for the native loop: clearing, copying, sharing buffers, storing results, and
reading operands in a computation dtype (with PyTorch's type promotion over native tags)::

    _set_view(regs, x, y, 2)     register y = a view of x's buffer with meta tmp[2]
    _as_f32(regs, r)             register r's buffer (or scalar) as float32

``regs`` is the tuple ``(tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp)``. Binding it
costs a reference count per member, so the hot paths in ``dispatch`` and ``loop`` avoid it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .registers import (
    BOOL,
    D_BOOL,
    D_F32,
    D_F64,
    D_I64,
    DTYPE,
    EMPTY,
    FLOAT,
    ILIST,
    INT,
    RANK,
    READONLY,
    TENSOR,
    clear_register,
)

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}

# -- register moves ---------------------------------------------------------------------------

@njit(inline="always")
def _clear(regs, r):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    if tags[r] == TENSOR or tags[r] == ILIST:
        clear_register(tags, meta, b8, i64, f32, f64, ilists, r)
    else:
        tags[r] = EMPTY


@njit(inline="always")
def _clear_for(regs, r, tag, code):
    """Empty register ``r`` before it receives a value of ``tag`` (and tensor dtype ``code``):
    a buffer in the list slot the new value overwrites needs no sentinel first (each typed
    List access costs about 40 ns)."""
    tags, meta = regs[0], regs[3]
    old = tags[r]
    if old == TENSOR and tag == TENSOR and meta[r, DTYPE] == code:
        tags[r] = EMPTY
    elif old == ILIST and tag == ILIST:
        tags[r] = EMPTY
    else:
        _clear(regs, r)


@njit(inline="always")
def _share(regs, code, src, dst):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    if code == D_F32:
        f32[dst] = f32[src]
    elif code == D_F64:
        f64[dst] = f64[src]
    elif code == D_I64:
        i64[dst] = i64[src]
    else:
        b8[dst] = b8[src]


@njit(inline="always")
def _set_view(regs, src, dst, row):
    """Register ``dst`` = a view of ``src``'s buffer described by ``tmp[row]``."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    code = meta[src, DTYPE]
    _clear_for(regs, dst, TENSOR, code)
    meta[dst, :] = tmp[row, :]
    meta[dst, DTYPE] = code
    _share(regs, code, src, dst)
    ints[dst] = 0  # a new tensor object: no Python original to hand back
    tags[dst] = TENSOR


@njit(inline="always")
def _set_int(regs, r, value):
    tags, ints = regs[0], regs[1]
    _clear(regs, r)
    ints[r] = value
    tags[r] = INT


@njit(inline="always")
def _set_ilist(regs, r, values):
    ilists = regs[8]
    _clear_for(regs, r, ILIST, 0)
    ilists[r] = values
    regs[0][r] = ILIST


@njit(inline="always")
def _set_f32(regs, r, buffer, row):
    tags, meta, f32, tmp = regs[0], regs[3], regs[6], regs[9]
    _clear_for(regs, r, TENSOR, D_F32)
    meta[r, :] = tmp[row, :]
    meta[r, DTYPE], meta[r, READONLY] = D_F32, 0
    f32[r] = buffer
    regs[1][r] = 0
    tags[r] = TENSOR


@njit(inline="always")
def _set_f64(regs, r, buffer, row):
    tags, meta, f64, tmp = regs[0], regs[3], regs[7], regs[9]
    _clear_for(regs, r, TENSOR, D_F64)
    meta[r, :] = tmp[row, :]
    meta[r, DTYPE], meta[r, READONLY] = D_F64, 0
    f64[r] = buffer
    regs[1][r] = 0
    tags[r] = TENSOR


@njit(inline="always")
def _set_i64(regs, r, buffer, row):
    tags, meta, i64, tmp = regs[0], regs[3], regs[5], regs[9]
    _clear_for(regs, r, TENSOR, D_I64)
    meta[r, :] = tmp[row, :]
    meta[r, DTYPE], meta[r, READONLY] = D_I64, 0
    i64[r] = buffer
    regs[1][r] = 0
    tags[r] = TENSOR


@njit(inline="always")
def _set_b8(regs, r, buffer, row):
    tags, meta, b8, tmp = regs[0], regs[3], regs[4], regs[9]
    _clear_for(regs, r, TENSOR, D_BOOL)
    meta[r, :] = tmp[row, :]
    meta[r, DTYPE], meta[r, READONLY] = D_BOOL, 0
    b8[r] = buffer
    regs[1][r] = 0
    tags[r] = TENSOR


# -- operands in a computation dtype ----------------------------------------------------------

@njit(inline="always")
def _operand_meta(regs, r, row):
    """Row ``row`` of tmp = the meta of operand ``r`` (a scalar is a 0-dim view at 0)."""
    tags, meta, tmp = regs[0], regs[3], regs[9]
    if tags[r] == TENSOR:
        tmp[row, :] = meta[r, :]
    else:
        tmp[row, :] = 0


@njit(**_OPTIONS)
def _as_f32(regs, r):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    tag = tags[r]
    if tag == FLOAT:
        return np.full(1, floats[r], np.float32)
    if tag != TENSOR:
        return np.full(1, ints[r], np.float32)
    code = meta[r, DTYPE]
    if code == D_F32:
        return f32[r]
    if code == D_F64:
        return f64[r].astype(np.float32)
    if code == D_I64:
        return i64[r].astype(np.float32)
    return b8[r].astype(np.float32)


@njit(**_OPTIONS)
def _as_f64(regs, r):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    tag = tags[r]
    if tag == FLOAT:
        return np.full(1, floats[r], np.float64)
    if tag != TENSOR:
        return np.full(1, ints[r], np.float64)
    code = meta[r, DTYPE]
    if code == D_F64:
        return f64[r]
    if code == D_F32:
        return f32[r].astype(np.float64)
    if code == D_I64:
        return i64[r].astype(np.float64)
    return b8[r].astype(np.float64)


@njit(**_OPTIONS)
def _as_i64(regs, r):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    if tags[r] != TENSOR:
        return np.full(1, ints[r], np.int64)
    if meta[r, DTYPE] == D_I64:
        return i64[r]
    return b8[r].astype(np.int64)


@njit(inline="always")
def _operand_dtype(tags, meta, r):
    """(dtype code, group) of a pointwise operand; group 0: tensor, 1: 0-dim, 2: scalar;
    dtype -1 when it is no native number."""
    tag = tags[r]
    if tag == TENSOR:
        return meta[r, DTYPE], 0 if meta[r, RANK] > 0 else 1
    if tag == INT:
        return D_I64, 2
    if tag == FLOAT:
        return D_F32, 2
    if tag == BOOL:
        return D_BOOL, 2
    return -1, 0


@njit(inline="always")
def _category(code):
    return 0 if code == D_BOOL else 1 if code == D_I64 else 2


@njit(inline="always")
def _promote(a, b):
    if a < 0:
        return b
    if b < 0:
        return a
    return max(a, b)  # bool < int64 < float32 < float64, and no int type widens a float


@njit(inline="always")
def _combine(higher, lower):
    if higher < 0:
        return lower
    if lower < 0:
        return higher
    if _category(higher) == 2:
        return higher
    if higher == D_BOOL or _category(lower) == 2:
        return _promote(higher, lower)
    return higher


@njit(inline="always")
def result_dtype(tags, meta, ra, rb):
    """PyTorch's result type of two pointwise operands; -1 if one is not a native number."""
    da, ga = _operand_dtype(tags, meta, ra)
    db, gb = _operand_dtype(tags, meta, rb)
    if da < 0 or db < 0:
        return -1
    dim = zero = wrapped = -1
    if ga == 0:
        dim = da
    elif ga == 1:
        zero = da
    else:
        wrapped = da
    if gb == 0:
        dim = _promote(dim, db)
    elif gb == 1:
        zero = _promote(zero, db)
    else:
        wrapped = _promote(wrapped, db)
    return _combine(dim, _combine(zero, wrapped))


