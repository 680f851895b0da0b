"""Native op dispatch: pointwise (with the flat float fast paths), shapes, views, reductions and
lists. Each returns False, having changed nothing, when the host must run the instruction::

    _binary(regs, ADD, int_data, in_start, 3, out)     aten::add(%x, %y, %alpha)
    _tensor_op(regs, SELECT, 0, 0, ins, 3, outs, 1)    aten::select(%x, %dim, %index)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import pointwise as pw
from . import tensor_ops as to
from .moves import (
    _as_f32,
    _as_f64,
    _as_i64,
    _operand_dtype,
    _operand_meta,
    _set_b8,
    _set_f32,
    _set_f64,
    _set_i64,
    _set_ilist,
    _set_int,
    _set_view,
    result_dtype,
)
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
    META_WIDTH,
    NONE,
    OFFSET,
    RANK,
    READONLY,
    SIZES,
    STRIDES,
    TENSOR,
    clear_register,
    clear_slots,
)
from .slots import slot_alloc, slot_data, slot_move, slot_share
from .table import (
    BROADCAST_SIZES,
    CONSTANT_CHUNK,
    CONTIGUOUS,
    DIM,
    EXPAND,
    GETITEM,
    LEN,
    LIST_INT,
    LIST_UNPACK,
    MM,
    NUMEL,
    RESHAPE,
    SELECT,
    SIZE,
    SIZE_DIM,
    SUM_ALL,
    SUM_DIMS,
    TENSOR_BASE,
    UNARY_BASE,
    VIEW,
)
from .table import T as TRANSPOSE

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}

# -- pointwise --------------------------------------------------------------------------------

@njit(**_OPTIONS)
def _binary(regs, op, int_data, in_start, n_in, out):
    tags, ints, floats, meta = regs[0], regs[1], regs[2], regs[3]
    ra, rb = int_data[in_start], int_data[in_start + 1]
    dtype = result_dtype(tags, meta, ra, rb)
    if dtype < 0:
        return False
    is_compare = op >= pw.EQ
    if dtype == D_BOOL:
        return False  # bool arithmetic and comparisons: the host
    if op == pw.SUB and (_operand_dtype(tags, meta, ra)[0] == D_BOOL
                         or _operand_dtype(tags, meta, rb)[0] == D_BOOL):
        return False
    if (tags[ra] == TENSOR and not pw.keeps_c_order(meta[ra])) \
            or (tags[rb] == TENSOR and not pw.keeps_c_order(meta[rb])):
        return False   # NumPy's result would not be C-contiguous (the host keeps its layout)
    scaled, alpha_f, alpha_i = False, 1.0, 1
    if n_in == 3:
        rc = int_data[in_start + 2]
        tag = tags[rc]
        if tag == FLOAT:
            if dtype == D_I64:
                return False
            alpha_f = floats[rc]
            scaled = alpha_f != 1.0
        elif tag == INT:
            alpha_i = ints[rc]
            alpha_f = float(alpha_i)
            scaled = alpha_i != 1
        else:
            return False
    compute = D_F32 if op == pw.DIV and dtype == D_I64 else dtype
    if not is_compare and tags[ra] == TENSOR and tags[rb] == TENSOR \
            and meta[ra, DTYPE] == compute and meta[rb, DTYPE] == compute \
            and (compute == D_F32 or compute == D_F64):
        return _binary_float_tensors(regs, op, ra, rb, out, compute, alpha_f, scaled)
    _operand_meta(regs, ra, 0)
    _operand_meta(regs, rb, 1)
    tmp = regs[9]
    if not pw.broadcast_meta(tmp[0], tmp[1], tmp[2]):
        return False
    if compute == D_F32:
        a, b = _as_f32(regs, ra), _as_f32(regs, rb)
        if is_compare:
            _set_b8(regs, out, pw.compare(op, a, tmp[0], b, tmp[1], tmp[2]), 2)
        else:
            r = pw.binary(op, a, tmp[0], b, tmp[1], np.float32(alpha_f), scaled, tmp[2])
            _set_f32(regs, out, r, 2)
    elif compute == D_F64:
        a, b = _as_f64(regs, ra), _as_f64(regs, rb)
        if is_compare:
            _set_b8(regs, out, pw.compare(op, a, tmp[0], b, tmp[1], tmp[2]), 2)
        else:
            r = pw.binary(op, a, tmp[0], b, tmp[1], alpha_f, scaled, tmp[2])
            _set_f64(regs, out, r, 2)
    else:
        a, b = _as_i64(regs, ra), _as_i64(regs, rb)
        if is_compare:
            _set_b8(regs, out, pw.compare(op, a, tmp[0], b, tmp[1], tmp[2]), 2)
        else:
            r = pw.binary_int(op, a, tmp[0], b, tmp[1], alpha_i, scaled, tmp[2])
            _set_i64(regs, out, r, 2)
    return True


@njit(**_OPTIONS)
def _binary_float_tensors(regs, op, ra, rb, out, code, alpha, scaled):
    """The common case, written flat: two float tensors of the computation dtype. Every
    helper that takes the register tuple pays a reference count per member (~0.3 us here)."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    om = tmp[2]
    if not pw.broadcast_meta(meta[ra], meta[rb], om):
        return False
    if code == D_F32:
        buffer32 = pw.binary(op, f32[ra], meta[ra], f32[rb], meta[rb], np.float32(alpha),
                             scaled, om)
    else:
        buffer64 = pw.binary(op, f64[ra], meta[ra], f64[rb], meta[rb], alpha, scaled, om)
    if tags[out] == ILIST or (tags[out] == TENSOR and meta[out, DTYPE] != code):
        clear_register(tags, meta, b8, i64, f32, f64, ilists, out)
    for c in range(META_WIDTH):
        meta[out, c] = om[c]
    meta[out, DTYPE] = code
    meta[out, READONLY] = 0
    if code == D_F32:
        f32[out] = buffer32
    else:
        f64[out] = buffer64
    ints[out] = 0
    tags[out] = TENSOR
    return True


@njit(**_OPTIONS)
def _unary_float_tensor(regs, op, ra, out, code):
    """``_binary_float_tensors``' counterpart: a float tensor, written flat."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    om = tmp[2]
    if code == D_F32:
        buffer32 = pw.unary_float(op, f32[ra], meta[ra], om)
    else:
        buffer64 = pw.unary_float(op, f64[ra], meta[ra], om)
    if tags[out] == ILIST or (tags[out] == TENSOR and meta[out, DTYPE] != code):
        clear_register(tags, meta, b8, i64, f32, f64, ilists, out)
    for c in range(META_WIDTH):
        meta[out, c] = om[c]
    meta[out, DTYPE] = code
    meta[out, READONLY] = 0
    if code == D_F32:
        f32[out] = buffer32
    else:
        f64[out] = buffer64
    ints[out] = 0
    tags[out] = TENSOR
    return True


@njit(**_OPTIONS)
def _unary(regs, op, ra, out):
    tags, meta, tmp = regs[0], regs[3], regs[9]
    if tags[ra] != TENSOR or not pw.keeps_c_order(meta[ra]) or not pw.sizes_fit(meta[ra]):
        return False   # (a tensor the host made past MAX_ELEMENTS: NumPy may refuse it)
    code = meta[ra, DTYPE]
    if code == D_F32 or code == D_F64:
        return _unary_float_tensor(regs, op, ra, out, code)
    _operand_meta(regs, ra, 0)
    if code == D_F32:
        _set_f32(regs, out, pw.unary_float(op, regs[6][ra], tmp[0], tmp[2]), 2)
    elif code == D_F64:
        _set_f64(regs, out, pw.unary_float(op, regs[7][ra], tmp[0], tmp[2]), 2)
    elif code == D_I64:
        if op in (pw.NEG, pw.ABS, pw.RELU, pw.FLOOR, pw.CEIL, pw.TRUNC, pw.ROUND):
            _set_i64(regs, out, pw.unary_int(op, regs[5][ra], tmp[0], tmp[2]), 2)
        else:  # float functions of integers compute in the default float dtype
            _set_f32(regs, out, pw.unary_float(op, _as_f32(regs, ra), tmp[0], tmp[2]), 2)
    else:
        return False
    return True


# -- the inlined fast paths -------------------------------------------------------------------
# These take data pointers of the banks (``slots.data``; ``meta`` and ``tmp`` flat, rows of
# META_WIDTH) and the Lists' ``slots.items``: inlined into the loop, a helper taking arrays or
# Lists would count a reference on each per call. Buffers change only through ``slots``.
# ``tmp`` row 2 (from ``_O``) receives the result's meta.

_W = META_WIDTH
_O = 2 * META_WIDTH


@njit(inline="always")
def _broadcast_rows(meta, ra, rb, tmp):
    """``pw.broadcast_meta`` of registers ``ra`` and ``rb`` into ``tmp`` row 2; returns the
    element count, -1 if they do not broadcast or the result is too large (``pw.grow``)."""
    a, b = ra * _W, rb * _W
    a_rank, b_rank = meta[a + RANK], meta[b + RANK]
    rank = max(a_rank, b_rank)
    tmp[_O + RANK] = rank
    tmp[_O + OFFSET] = 0
    for d in range(rank):
        sa = meta[a + SIZES + d - (rank - a_rank)] if d >= rank - a_rank else 1
        sb = meta[b + SIZES + d - (rank - b_rank)] if d >= rank - b_rank else 1
        if sa == sb or sb == 1:
            tmp[_O + SIZES + d] = sa
        elif sa == 1:
            tmp[_O + SIZES + d] = sb
        else:
            return -1
    step, empty = 1, False
    for d in range(rank - 1, -1, -1):
        tmp[_O + STRIDES + d] = step
        size = tmp[_O + SIZES + d]
        step = pw.grow(step, size)   # (2**40, 1) and (1, 2**40): the count would wrap
        empty = empty or size == 0
    if step < 0:
        return -1
    return 0 if empty else step


@njit(inline="always")
def _walk_row(meta, r, tmp):
    """``pw.walk_kind`` of register ``r`` against the contiguous meta in ``tmp`` row 2."""
    x = r * _W
    rank, rx = tmp[_O + RANK], meta[x + RANK]
    flat, constant = True, True
    for d in range(rank):
        s = 0
        if d >= rank - rx:
            k = d - (rank - rx)
            if meta[x + SIZES + k] != 1 or tmp[_O + SIZES + d] == 1:
                s = meta[x + STRIDES + k]
        if tmp[_O + SIZES + d] != 1:
            if s != 0:
                constant = False
            if s != tmp[_O + STRIDES + d]:
                flat = False
    if constant:
        return 0
    return 1 if flat else -1


@njit(inline="always")
def _new_float_result(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, out, code):
    """Prepare ``out`` for a new float buffer of dtype ``code`` whose meta is ``tmp`` row 2: a
    buffer in the slot the result overwrites is released by that write, any other is dropped."""
    o = out * _W
    if tags[out] == ILIST or (tags[out] == TENSOR and meta[o + DTYPE] != code):
        clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, out)
    for c in range(_W):
        meta[o + c] = tmp[_O + c]
    meta[o + DTYPE] = code
    meta[o + READONLY] = 0
    ints[out] = 0
    tags[out] = TENSOR


@njit(inline="always")
def fast_binary(op, tags, ints, floats, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, rb,
                rc, out):
    """Arithmetic on two float tensors of one dtype, each contiguous or broadcast along the
    result (``rc``: the alpha register, or -1); False (nothing changed) for everything else,
    which ``_binary`` then handles."""
    if op >= pw.EQ or tags[ra] != TENSOR or tags[rb] != TENSOR or out == ra or out == rb:
        return False
    code = meta[ra * _W + DTYPE]
    if meta[rb * _W + DTYPE] != code or (code != D_F32 and code != D_F64):
        return False
    alpha = 1.0
    if rc >= 0:
        if tags[rc] == FLOAT:
            alpha = floats[rc]
        elif tags[rc] == INT:
            alpha = float(ints[rc])
        else:
            return False
    n = _broadcast_rows(meta, ra, rb, tmp)
    if n < 0:
        return False
    ka, kb = _walk_row(meta, ra, tmp), _walk_row(meta, rb, tmp)
    if ka < 0 or kb < 0:
        return False
    _new_float_result(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, out, code)
    pa, pb = meta[ra * _W + OFFSET], meta[rb * _W + OFFSET]
    if code == D_F32:
        pw.binary_flat(op, slot_data(f32, ra), pa, ka, slot_data(f32, rb), pb, kb,
                       slot_alloc(f32, out, n), n, np.float32(alpha), alpha != 1.0)
    else:
        pw.binary_flat(op, slot_data(f64, ra), pa, ka, slot_data(f64, rb), pb, kb,
                       slot_alloc(f64, out, n), n, alpha, alpha != 1.0)
    return True


@njit(inline="always")
def fast_unary(op, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, out):
    """``fast_binary``'s counterpart for a contiguous float tensor."""
    if tags[ra] != TENSOR or out == ra:
        return False
    code = meta[ra * _W + DTYPE]
    if code != D_F32 and code != D_F64:
        return False
    n = _broadcast_rows(meta, ra, ra, tmp)
    if n < 0 or (_walk_row(meta, ra, tmp) != 1 and n > 1):
        return False
    _new_float_result(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, out, code)
    p = meta[ra * _W + OFFSET]
    if code == D_F32:
        pw.unary_flat(op, slot_data(f32, ra), p, 1, slot_alloc(f32, out, n), n, np.float32(1),
                      np.float32(0))
    else:
        pw.unary_flat(op, slot_data(f64, ra), p, 1, slot_alloc(f64, out, n), n, 1.0, 0.0)
    return True


@njit(inline="always")
def _pass(buffers, src, dst, sentinel, move):
    if move:
        slot_move(buffers, src, dst, sentinel)
    else:
        slot_share(buffers, src, dst)


@njit(inline="always")
def move_register(tags, ints, floats, meta, b8, i64, f32, f64, ilists, sentinel, src, dst, move):
    """Register ``dst`` = register ``src`` (a tensor or list shares its buffer); with ``move``
    ``src`` is emptied and its buffer passes to ``dst`` without a reference count."""
    tag, old = tags[src], tags[dst]
    s, d = src * _W, dst * _W
    code = meta[s + DTYPE]
    if (old == TENSOR and not (tag == TENSOR and meta[d + DTYPE] == code)) \
            or (old == ILIST and tag != ILIST):
        clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, dst)
    ints[dst], floats[dst] = ints[src], floats[src]
    if tag == TENSOR:
        for c in range(_W):
            meta[d + c] = meta[s + c]
        if code == D_F32:
            _pass(f32, src, dst, sentinel, move)
        elif code == D_F64:
            _pass(f64, src, dst, sentinel, move)
        elif code == D_I64:
            _pass(i64, src, dst, sentinel, move)
        else:
            _pass(b8, src, dst, sentinel, move)
    elif tag == ILIST:
        _pass(ilists, src, dst, sentinel, move)
    tags[dst] = tag
    if move and src != dst:
        tags[src] = EMPTY


# -- shapes, views, reductions, lists ---------------------------------------------------------

@njit(**_OPTIONS)
def _tensor_op(regs, op, p0, p1, ins, n_in, outs, n_out):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    ra = ins[0]
    if op == LIST_INT:
        values = np.empty(n_in, np.int64)
        for k in range(n_in):
            if tags[ins[k]] != INT:
                return False
            values[k] = ints[ins[k]]
        _set_ilist(regs, outs[0], values)
        return True
    if op == LEN or op == GETITEM or op == LIST_UNPACK or op == BROADCAST_SIZES:
        for k in range(n_in):
            if tags[ins[k]] != ILIST:
                if not (op == GETITEM and k == 1 and tags[ins[k]] == INT):
                    return False
        items = ilists[ra]
        if op == LEN:
            _set_int(regs, outs[0], len(items))
        elif op == GETITEM:
            idx = ints[ins[1]]
            if idx < -len(items) or idx >= len(items):
                return False
            _set_int(regs, outs[0], items[idx + len(items) if idx < 0 else idx])
        elif op == LIST_UNPACK:
            if len(items) != n_out:
                return False
            for k in range(n_out):
                _set_int(regs, outs[k], items[k])
        else:
            sizes = items.copy()
            for k in range(1, n_in):
                sizes, ok = to.broadcast_sizes(sizes, ilists[ins[k]])
                if not ok:
                    return False
            _set_ilist(regs, outs[0], sizes)
        return True
    if tags[ra] != TENSOR:
        return False
    m = meta[ra]
    rank = m[RANK]
    if op == SIZE:
        _set_ilist(regs, outs[0], m[SIZES:SIZES + rank].copy())
    elif op == DIM:
        _set_int(regs, outs[0], rank)
    elif op == NUMEL:
        _set_int(regs, outs[0], to.numel(m))
    elif op == SIZE_DIM:
        if tags[ins[1]] != INT or rank == 0:
            return False
        d = to.wrap_dim(ints[ins[1]], rank)
        if d < 0:
            return False
        _set_int(regs, outs[0], m[SIZES + d])
    elif op == TRANSPOSE:
        if not to.transpose(m, tmp[2]):
            return False
        _set_view(regs, ra, outs[0], 2)
    elif op == SELECT:
        if tags[ins[1]] != INT or tags[ins[2]] != INT:
            return False
        if not to.select(m, ints[ins[1]], ints[ins[2]], tmp[2]):
            return False
        _set_view(regs, ra, outs[0], 2)
    elif op == VIEW or op == RESHAPE or op == EXPAND:
        if tags[ins[1]] != ILIST:
            return False
        if op == EXPAND:
            if n_in > 2 and tags[ins[2]] != BOOL:
                return False
            tmp[2, :] = m
            if not to.expand(m, ilists[ins[1]], tmp[2]):
                return False
        else:
            tmp[2, :] = m
            if not to.infer_view(m, ilists[ins[1]], tmp[2]):
                return False
        _set_view(regs, ra, outs[0], 2)
    elif op == CONTIGUOUS:
        if not to.is_contiguous(m):
            return False
        tmp[2, :] = m
        _set_view(regs, ra, outs[0], 2)
    elif op == CONSTANT_CHUNK:
        if to.chunk_count(m, p0, p1) != n_out:   # more pieces: the reference's error
            return False
        for k in range(n_out):
            to.chunk_piece(m, p0, p1, k, tmp[2])
            _set_view(regs, ra, outs[k], 2)
    elif op == MM:
        rb = ins[1]
        if tags[rb] != TENSOR or rank != 2 or meta[rb, RANK] != 2:
            return False
        code = m[DTYPE]
        if meta[rb, DTYPE] != code or m[SIZES + 1] != meta[rb, SIZES] \
                or to.mm_on_host(m, meta[rb]) or not to.mm_fits(m[SIZES], meta[rb, SIZES + 1]):
            return False
        if code == D_F32:
            _set_f32(regs, outs[0], to.mm(f32[ra], m, f32[rb], meta[rb], tmp[2]), 2)
        elif code == D_F64:
            _set_f64(regs, outs[0], to.mm(f64[ra], m, f64[rb], meta[rb], tmp[2]), 2)
        else:
            return False
    elif op == SUM_ALL or op == SUM_DIMS:
        if tags[ins[n_in - 1]] != NONE or not pw.sizes_fit(m):
            return False   # an explicit dtype, or a tensor too large to sum (cast) natively
        code = m[DTYPE]
        if op == SUM_DIMS:
            if rank == 0 or tags[ins[2]] != BOOL or not pw.keeps_c_order(m):
                return False
            reduce = np.zeros(rank, np.bool_)
            if tags[ins[1]] == ILIST and len(ilists[ins[1]]) > 0:
                for d in ilists[ins[1]]:
                    w = to.wrap_dim(d, rank)
                    if w < 0 or reduce[w]:
                        return False
                    reduce[w] = True
            elif tags[ins[1]] == ILIST or tags[ins[1]] == NONE:
                reduce[:] = True
            else:
                return False
            keep = ints[ins[2]] != 0
            if code == D_F32:
                _set_f32(regs, outs[0], to.sum_dims(f32[ra], m, reduce, keep, tmp[2]), 2)
            elif code == D_F64:
                _set_f64(regs, outs[0], to.sum_dims(f64[ra], m, reduce, keep, tmp[2]), 2)
            else:
                _set_i64(regs, outs[0], to.sum_dims(_as_i64(regs, ra), m, reduce, keep,
                                                    tmp[2]), 2)
        elif code == D_F32:
            _set_f32(regs, outs[0], to.sum_all(f32[ra], m, tmp[2]), 2)
        elif code == D_F64:
            _set_f64(regs, outs[0], to.sum_all(f64[ra], m, tmp[2]), 2)
        else:
            _set_i64(regs, outs[0], to.sum_all(_as_i64(regs, ra), m, tmp[2]), 2)
    else:
        return False
    return True


@njit(inline="always")
def _is_plain(tag):
    """A register the loop moves without touching a buffer list."""
    return tag != TENSOR and tag != ILIST


@njit(**_OPTIONS)
def _tensor_instruction(regs, op, p0, p1, int_data, in_start, in_size, out_start, out_size):
    ins = int_data[in_start:in_start + in_size]
    if op < TENSOR_BASE:
        return _unary(regs, op - UNARY_BASE, ins[0], int_data[out_start])
    return _tensor_op(regs, op, p0, p1, ins, in_size,
                      int_data[out_start:out_start + out_size], out_size)
