"""Register writes for the native loop: the one tensor write (``write_tensor``), passing
buffers between slots, storing results, and reading operands in a computation dtype (with
PyTorch's type promotion over native tags)::

    write_tensor(..., r, code, m, 0)    register r = a new tensor, meta m (the slot comes next)
    _set_view(regs, x, y, 2)            register y = a view of x's buffer with meta tmp[2]
    _set_result(regs, y, buffer, 2)     register y = a new tensor over buffer, meta tmp[2]
    _as_f32(regs, r)                    register r's buffer (or scalar) as float32

``regs`` is the tuple ``(tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp)``. Binding it
costs a reference count per member, so the hot paths in ``dispatch`` and ``loop`` avoid it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .registers import (
    BOOL,
    D_BOOL,
    D_F32,
    D_F64,
    D_I64,
    DTYPE,
    EMPTY,
    FLOAT,
    FORCEINLINE,
    ILIST,
    INT,
    META_WIDTH,
    RANK,
    READONLY,
    TENSOR,
    clear_register,
    clear_slots,
    copy_meta,
)
from .slots import data, items, slot_move, slot_put, slot_share

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}

# -- the one register write ------------------------------------------------------------------
# Over data pointers (``slots.data``; ``meta`` flat, rows of META_WIDTH) and the Lists' ``items``:
# the loop's fast paths inline these, and a helper taking arrays or Lists would count a
# reference on each per call. The ``regs`` helpers below reach them through ``pointers``.

_W = META_WIDTH


@njit(**FORCEINLINE)
def write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, r, code, m, readonly):
    """Make register ``r`` a new tensor of dtype ``code`` whose meta is ``m`` (``META_WIDTH``
    values: an array, a row or a pointer), read-only or not. Its buffer slot must be filled
    next (``slot_put``, ``slot_alloc``, ``share_buffer``...): a buffer of the same dtype still
    in that slot is released by that write, so only another kind of value is cleared here
    (each typed List access costs about 40 ns). The register is a new tensor object: no Python
    original to hand back (``ints[r]``, the token, is 0)."""
    o = r * _W
    if tags[r] == ILIST or (tags[r] == TENSOR and meta[o + DTYPE] != code):
        clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, r)
    for c in range(_W):
        meta[o + c] = m[c]
    meta[o + DTYPE] = code
    meta[o + READONLY] = readonly
    ints[r] = 0
    tags[r] = TENSOR


@njit(**FORCEINLINE)
def pass_buffer(b8, i64, f32, f64, code, src, dst, sentinel, move):
    """Register ``dst``'s slot of the bank of dtype ``code`` = ``src``'s buffer; with ``move``
    ``src`` gets the sentinel and the buffer passes without a reference count."""
    if code == D_F32:
        _pass(f32, src, dst, sentinel, move)
    elif code == D_F64:
        _pass(f64, src, dst, sentinel, move)
    elif code == D_I64:
        _pass(i64, src, dst, sentinel, move)
    else:
        _pass(b8, src, dst, sentinel, move)


@njit(**FORCEINLINE)
def _pass(buffers, src, dst, sentinel, move):
    if move:
        slot_move(buffers, src, dst, sentinel)
    else:
        slot_share(buffers, src, dst)


@intrinsic
def dtype_code(typingctx, array):
    """The native dtype code of an array's dtype (a constant, known when compiling)."""
    if not isinstance(array, types.Array) or array.dtype not in _CODES:
        return None
    code = _CODES[array.dtype]

    def codegen(context, builder, sig, args):
        return context.get_constant(types.int64, code)

    return types.int64(array), codegen


@intrinsic
def bank_of(typingctx, b8, i64, f32, f64, array):
    """Of the four bank pointers (``items``), the one holding buffers like ``array``."""
    if not isinstance(array, types.Array) or array.dtype not in _CODES:
        return None
    k = _CODES[array.dtype]
    banks = (b8, i64, f32, f64)

    def codegen(context, builder, sig, args):
        return args[k]

    return banks[k](b8, i64, f32, f64, array), codegen


_CODES = {types.boolean: D_BOOL, types.int64: D_I64, types.float32: D_F32,
          types.float64: D_F64}


@njit(inline="always")
def pointers(regs):
    """What ``write_tensor`` takes, for a helper holding the register tuple: data pointers,
    the Lists' ``items`` and the sentinel slot."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    return (data(tags), data(ints), data(meta), items(b8), items(i64), items(f32), items(f64),
            items(ilists), len(tags))


# -- register moves over the register tuple ---------------------------------------------------

@njit(inline="always")
def _clear(regs, r):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    if tags[r] == TENSOR or tags[r] == ILIST:
        clear_register(tags, meta, b8, i64, f32, f64, ilists, r)
    else:
        tags[r] = EMPTY


@njit(inline="always")
def _set_view(regs, src, dst, row):
    """Register ``dst`` = a view of ``src``'s buffer described by ``tmp[row]``."""
    tags_p, ints_p, meta_p, b8, i64, f32, f64, ilists, sentinel = pointers(regs)
    meta, tmp = regs[3], regs[9]
    code = meta[src, DTYPE]
    write_tensor(tags_p, ints_p, meta_p, b8, i64, f32, f64, ilists, sentinel, dst, code,
                 tmp[row], tmp[row, READONLY])
    pass_buffer(b8, i64, f32, f64, code, src, dst, sentinel, False)


@njit(inline="always")
def _set_result(regs, r, buffer, row):
    """Register ``r`` = a new tensor over ``buffer`` (any native dtype), meta ``tmp[row]``."""
    tags_p, ints_p, meta_p, b8, i64, f32, f64, ilists, sentinel = pointers(regs)
    write_tensor(tags_p, ints_p, meta_p, b8, i64, f32, f64, ilists, sentinel, r,
                 dtype_code(buffer), regs[9][row], 0)
    slot_put(bank_of(b8, i64, f32, f64, buffer), r, buffer)


@njit(inline="always")
def _set_int(regs, r, value):
    tags, ints = regs[0], regs[1]
    _clear(regs, r)
    ints[r] = value
    tags[r] = INT


@njit(inline="always")
def _set_ilist(regs, r, values):
    tags, ilists = regs[0], regs[8]
    if tags[r] != ILIST:   # (a list in the slot is released by the write)
        _clear(regs, r)
    ilists[r] = values
    tags[r] = ILIST


# -- operands in a computation dtype ----------------------------------------------------------

@njit(inline="always")
def _operand_meta(regs, r, row):
    """Row ``row`` of tmp = the meta of operand ``r`` (a scalar is a 0-dim view at 0)."""
    tags, meta, tmp = regs[0], regs[3], regs[9]
    if tags[r] == TENSOR:
        copy_meta(tmp[row], meta[r])
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


