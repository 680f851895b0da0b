"""Native op dispatch: pointwise (with the flat fast paths), shapes, views, reductions, new
tensors and lists. Each returns False, having changed nothing, when the host must run the
instruction::

    _binary(regs, ADD, int_data, in_start, 3, out)     aten::add(%x, %y, %alpha)
    _tensor_op(regs, SELECT, 0, 0, int_data, in_start, 3, out_start, 1)
                                                       aten::select(%x, %dim, %index)

The general paths take the register tuple (see ``moves``); the fast paths (``fast_binary``,
``fast_unary``, ``move_register``) are inlined into the loop and take data pointers. Both run
the same generated loops of ``pointwise`` and write registers through ``moves.write_tensor``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...oplib.table import SCALAR_TYPE_CODES
from . import pointwise as pw
from . import tensor_ops as to
from .moves import (
    _as_f32,
    _as_f64,
    _as_i64,
    _operand_dtype,
    _operand_meta,
    _set_ilist,
    _set_int,
    _set_result,
    _set_view,
    pass_buffer,
    pointers,
    result_dtype,
    write_tensor,
)
from .opcodes import NativeOp
from .registers import (
    BOOL,
    D_BOOL,
    D_F32,
    D_F64,
    D_I64,
    DTYPE,
    DTYPE_CODE,
    EMPTY,
    FLOAT,
    FORCEINLINE,
    ILIST,
    INT,
    MAX_RANK,
    META_WIDTH,
    NONE,
    OFFSET,
    RANK,
    READONLY,
    SIZES,
    TENSOR,
    clear_slots,
    copy_meta,
)
from .slots import at, slot_alloc, slot_data, slot_move, slot_share

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}
_W = META_WIDTH

# -- pointwise --------------------------------------------------------------------------------

@njit(**_OPTIONS)
def _binary(regs, op, int_data, in_start, n_in, out):
    tags, ints, floats, meta = regs[0], regs[1], regs[2], regs[3]
    ra, rb = int_data[in_start], int_data[in_start + 1]
    dtype = result_dtype(tags, meta, ra, rb)
    if dtype < 0:
        return False
    is_compare = op >= NativeOp.EQ
    if dtype == D_BOOL:
        return False  # bool arithmetic and comparisons: the host
    if op == NativeOp.SUB and (_operand_dtype(tags, meta, ra)[0] == D_BOOL
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
    compute = D_F32 if op == NativeOp.DIV and dtype == D_I64 else dtype
    _operand_meta(regs, ra, 0)
    _operand_meta(regs, rb, 1)
    tmp = regs[9]
    n = pw.broadcast_meta(tmp[0], tmp[1], tmp[2])
    if n < 0:
        return False
    s = np.empty((2, MAX_RANK), np.int64)
    ka, kb = pw.operand_strides(tmp[0], tmp[2], s[0]), pw.operand_strides(tmp[1], tmp[2], s[1])
    pa, pb, om = tmp[0, OFFSET], tmp[1, OFFSET], tmp[2]
    if compute == D_F32:
        a, b = _as_f32(regs, ra), _as_f32(regs, rb)
        if is_compare:
            c = np.empty(n, np.bool_)
            pw.compare(op, a, pa, s[0], ka, b, pb, s[1], kb, c, om, n, np.float32(1), False)
            _set_result(regs, out, c, 2)
        else:
            r32 = np.empty(n, np.float32)
            pw.arith(op, a, pa, s[0], ka, b, pb, s[1], kb, r32, om, n, np.float32(alpha_f),
                     scaled)
            _set_result(regs, out, r32, 2)
    elif compute == D_F64:
        a, b = _as_f64(regs, ra), _as_f64(regs, rb)
        if is_compare:
            c = np.empty(n, np.bool_)
            pw.compare(op, a, pa, s[0], ka, b, pb, s[1], kb, c, om, n, 1.0, False)
            _set_result(regs, out, c, 2)
        else:
            r64 = np.empty(n, np.float64)
            pw.arith(op, a, pa, s[0], ka, b, pb, s[1], kb, r64, om, n, alpha_f, scaled)
            _set_result(regs, out, r64, 2)
    else:
        a, b = _as_i64(regs, ra), _as_i64(regs, rb)
        if is_compare:
            c = np.empty(n, np.bool_)
            pw.compare(op, a, pa, s[0], ka, b, pb, s[1], kb, c, om, n, 1, False)
            _set_result(regs, out, c, 2)
        else:
            ri = np.empty(n, np.int64)
            pw.arith_int(op, a, pa, s[0], ka, b, pb, s[1], kb, ri, om, n, alpha_i, scaled)
            _set_result(regs, out, ri, 2)
    return True


@njit(**_OPTIONS)
def _unary(regs, op, ra, out):
    tags, meta, tmp = regs[0], regs[3], regs[9]
    if tags[ra] != TENSOR or not pw.keeps_c_order(meta[ra]) or not pw.sizes_fit(meta[ra]):
        return False   # (a tensor the host made past MAX_ELEMENTS: NumPy may refuse it)
    code = meta[ra, DTYPE]
    _operand_meta(regs, ra, 0)
    n = pw.broadcast_meta(tmp[0], tmp[0], tmp[2])   # the contiguous meta of its shape
    s = np.empty(MAX_RANK, np.int64)
    k = pw.operand_strides(tmp[0], tmp[2], s)
    p, om = tmp[0, OFFSET], tmp[2]
    if code == D_I64 and NativeOp.NEG <= op <= NativeOp.ROUND:
        # (neg ... round, consecutive ids: the ops that keep an int64 tensor's dtype)
        a = regs[5][ra]
        ri = np.empty(n, np.int64)
        pw.unary_int(op, a, p, s, k, a, p, s, k, ri, om, n, 1, False)
        _set_result(regs, out, ri, 2)
    elif code == D_F32 or code == D_I64:   # float functions of integers: the default float
        a = _as_f32(regs, ra)
        r32 = np.empty(n, np.float32)
        pw.unary(op, a, p, s, k, a, p, s, k, r32, om, n, np.float32(1), False)
        _set_result(regs, out, r32, 2)
    elif code == D_F64:
        a = regs[7][ra]
        r64 = np.empty(n, np.float64)
        pw.unary(op, a, p, s, k, a, p, s, k, r64, om, n, 1.0, False)
        _set_result(regs, out, r64, 2)
    else:
        return False
    return True


# -- the inlined fast paths -------------------------------------------------------------------
# These take data pointers of the banks (``slots.data``; ``meta`` and ``tmp`` flat, rows of
# META_WIDTH) and the Lists' ``slots.items``: inlined into the loop, a helper taking arrays or
# Lists would count a reference on each per call. Buffers change only through ``slots``.
# ``tmp`` row 2 receives the result's meta; rows 0 and 1 the operands' aligned strides.


@njit(**FORCEINLINE)
def _row(rows, r):
    """Row ``r`` of a flat meta table, as a data pointer: indexed without the negative-index
    test an array (even a ``numba.carray``) pays at each access."""
    return at(rows, r * _W)


@njit(**FORCEINLINE)
def fast_binary(op, tags, ints, floats, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, rb,
                rc, out):
    """Arithmetic on two float tensors of one dtype, each contiguous or broadcast along the
    result (``rc``: the alpha register, or -1); False (nothing changed) for everything else,
    which ``_binary`` then handles."""
    if op >= NativeOp.EQ or tags[ra] != TENSOR or tags[rb] != TENSOR or out == ra \
            or out == rb:
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
    am, bm, om = _row(meta, ra), _row(meta, rb), _row(tmp, 2)
    n = pw.broadcast_meta(am, bm, om)
    if n < 0:
        return False
    sa, sb = _row(tmp, 0), _row(tmp, 1)
    ka, kb = pw.operand_strides(am, om, sa), pw.operand_strides(bm, om, sb)
    if ka < 0 or kb < 0:
        return False
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, out, code, om, 0)
    pa, pb = am[OFFSET], bm[OFFSET]
    if code == D_F32:
        pw.arith_flat(op, slot_data(f32, ra), pa, ka, slot_data(f32, rb), pb, kb,
                      slot_alloc(f32, out, n), n, np.float32(alpha), alpha != 1.0)
    else:
        pw.arith_flat(op, slot_data(f64, ra), pa, ka, slot_data(f64, rb), pb, kb,
                      slot_alloc(f64, out, n), n, alpha, alpha != 1.0)
    return True


@njit(**FORCEINLINE)
def fast_unary(op, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, out):
    """``fast_binary``'s counterpart for a contiguous float tensor."""
    if tags[ra] != TENSOR or out == ra:
        return False
    code = meta[ra * _W + DTYPE]
    if code != D_F32 and code != D_F64:
        return False
    am, om, sa = _row(meta, ra), _row(tmp, 2), _row(tmp, 0)
    n = pw.broadcast_meta(am, am, om)
    if n < 0 or (pw.operand_strides(am, om, sa) != 1 and n > 1):
        return False
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, out, code, om, 0)
    p = am[OFFSET]
    if code == D_F32:
        a32 = slot_data(f32, ra)
        pw.unary_flat(op, a32, p, 1, a32, p, 1, slot_alloc(f32, out, n), n, np.float32(1),
                      False)
    else:
        a64 = slot_data(f64, ra)
        pw.unary_flat(op, a64, p, 1, a64, p, 1, slot_alloc(f64, out, n), n, 1.0, False)
    return True


@njit(**FORCEINLINE)
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
        pass_buffer(b8, i64, f32, f64, code, src, dst, sentinel, move)
    elif tag == ILIST:
        if move:
            slot_move(ilists, src, dst, sentinel)
        else:
            slot_share(ilists, src, dst)
    tags[dst] = tag
    if move and src != dst:
        tags[src] = EMPTY


# -- shapes, views, reductions, lists ---------------------------------------------------------

@njit(**_OPTIONS)
def _tensor_op(regs, op, p0, p1, int_data, in_start, n_in, out_start, n_out):
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    ins = int_data[in_start:in_start + n_in]
    outs = int_data[out_start:out_start + n_out]
    ra = ins[0]
    if op == NativeOp.LIST_INT:
        values = np.empty(n_in, np.int64)
        for k in range(n_in):
            if tags[ins[k]] != INT:
                return False
            values[k] = ints[ins[k]]
        _set_ilist(regs, outs[0], values)
        return True
    if op == NativeOp.LEN or op == NativeOp.GETITEM or op == NativeOp.LIST_UNPACK \
            or op == NativeOp.BROADCAST_SIZES:
        for k in range(n_in):
            if tags[ins[k]] != ILIST:
                if not (op == NativeOp.GETITEM and k == 1 and tags[ins[k]] == INT):
                    return False
        items = ilists[ra]
        if op == NativeOp.LEN:
            _set_int(regs, outs[0], len(items))
        elif op == NativeOp.GETITEM:
            idx = ints[ins[1]]
            if idx < -len(items) or idx >= len(items):
                return False
            _set_int(regs, outs[0], items[idx + len(items) if idx < 0 else idx])
        elif op == NativeOp.LIST_UNPACK:
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
    if op == NativeOp.SIZE:
        _set_ilist(regs, outs[0], m[SIZES:SIZES + rank].copy())
    elif op == NativeOp.DIM:
        _set_int(regs, outs[0], rank)
    elif op == NativeOp.NUMEL:
        _set_int(regs, outs[0], to.numel(m))
    elif op == NativeOp.SIZE_DIM:
        if tags[ins[1]] != INT or rank == 0:
            return False
        d = to.wrap_dim(ints[ins[1]], rank)
        if d < 0:
            return False
        _set_int(regs, outs[0], m[SIZES + d])
    elif op == NativeOp.T:
        if not to.transpose(m, tmp[2]):
            return False
        _set_view(regs, ra, outs[0], 2)
    elif op == NativeOp.SELECT:
        if tags[ins[1]] != INT or tags[ins[2]] != INT:
            return False
        if not to.select(m, ints[ins[1]], ints[ins[2]], tmp[2]):
            return False
        _set_view(regs, ra, outs[0], 2)
    elif op == NativeOp.VIEW or op == NativeOp.RESHAPE or op == NativeOp.EXPAND:
        if tags[ins[1]] != ILIST:
            return False
        if op == NativeOp.EXPAND:
            if n_in > 2 and tags[ins[2]] != BOOL:
                return False
            copy_meta(tmp[2], m)
            if not to.expand(m, ilists[ins[1]], tmp[2]):
                return False
        else:
            copy_meta(tmp[2], m)
            if not to.infer_view(m, ilists[ins[1]], tmp[2]):
                return False
        _set_view(regs, ra, outs[0], 2)
    elif op == NativeOp.CONTIGUOUS:
        if not to.is_contiguous(m):
            return False
        copy_meta(tmp[2], m)
        _set_view(regs, ra, outs[0], 2)
    elif op == NativeOp.CONSTANT_CHUNK:
        if to.chunk_count(m, p0, p1) != n_out:   # more pieces: the reference's error
            return False
        for k in range(n_out):
            to.chunk_piece(m, p0, p1, k, tmp[2])
            _set_view(regs, ra, outs[k], 2)
    elif op == NativeOp.MM:
        rb = ins[1]
        if tags[rb] != TENSOR or rank != 2 or meta[rb, RANK] != 2:
            return False
        code = m[DTYPE]
        if meta[rb, DTYPE] != code or m[SIZES + 1] != meta[rb, SIZES] \
                or to.mm_on_host(m, meta[rb]) or not to.mm_fits(m[SIZES], meta[rb, SIZES + 1]):
            return False
        if code == D_F32:
            _set_result(regs, outs[0], to.mm(f32[ra], m, f32[rb], meta[rb], tmp[2]), 2)
        elif code == D_F64:
            _set_result(regs, outs[0], to.mm(f64[ra], m, f64[rb], meta[rb], tmp[2]), 2)
        else:
            return False
    elif op == NativeOp.SUM_ALL or op == NativeOp.SUM_DIMS:
        if tags[ins[n_in - 1]] != NONE or not pw.sizes_fit(m):
            return False   # an explicit dtype, or a tensor too large to sum (cast) natively
        code = m[DTYPE]
        if op == NativeOp.SUM_DIMS:
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
                _set_result(regs, outs[0], to.sum_dims(f32[ra], m, reduce, keep, tmp[2]), 2)
            elif code == D_F64:
                _set_result(regs, outs[0], to.sum_dims(f64[ra], m, reduce, keep, tmp[2]), 2)
            else:
                _set_result(regs, outs[0], to.sum_dims(_as_i64(regs, ra), m, reduce, keep,
                                                    tmp[2]), 2)
        elif code == D_F32:
            _set_result(regs, outs[0], to.sum_all(f32[ra], m, tmp[2]), 2)
        elif code == D_F64:
            _set_result(regs, outs[0], to.sum_all(f64[ra], m, tmp[2]), 2)
        else:
            _set_result(regs, outs[0], to.sum_all(_as_i64(regs, ra), m, tmp[2]), 2)
    elif op == NativeOp.COPY_:
        return _copy(regs, ra, ins[1], outs[0])
    elif op == NativeOp.FULL_LIKE:
        return _full_like(regs, ra, ins[1], ins[2], outs[0])
    elif op == NativeOp.EMPTY_LIKE:
        return _empty_like(regs, ra, ins[1], outs[0])
    else:
        return False
    return True


@njit(**_OPTIONS)
def _copy(regs, ra, rb, out):
    """``aten::copy_(self, src)``: ``src`` broadcast into ``self``'s own buffer, then ``out`` is
    ``self`` (the same tensor: its token too). Only a writable contiguous ``self`` of ``src``'s
    dtype whose memory does not overlap ``src``'s (NumPy buffers such overlaps; the host does)."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    if tags[rb] != TENSOR or meta[ra, READONLY] != 0 or not to.is_contiguous(meta[ra]):
        return False
    code = meta[ra, DTYPE]
    if meta[rb, DTYPE] != code:
        return False   # a cast: the host (NumPy's unsafe casts of nan and overflow)
    n = pw.broadcast_meta(meta[ra], meta[rb], tmp[2])
    if n < 0 or tmp[2, RANK] != meta[ra, RANK]:
        return False
    for d in range(meta[ra, RANK]):
        if tmp[2, SIZES + d] != meta[ra, SIZES + d]:
            return False   # src does not broadcast to self's shape: the host's error
    s = np.empty(MAX_RANK, np.int64)
    k = pw.operand_strides(meta[rb], tmp[2], s)
    p, q = meta[rb, OFFSET], meta[ra, OFFSET]
    if code == D_F32:
        done = _copy_into(f32[ra], q, f32[rb], p, s, k, tmp[2], n)
    elif code == D_F64:
        done = _copy_into(f64[ra], q, f64[rb], p, s, k, tmp[2], n)
    elif code == D_I64:
        done = _copy_into(i64[ra], q, i64[rb], p, s, k, tmp[2], n)
    else:
        done = _copy_into(b8[ra], q, b8[rb], p, s, k, tmp[2], n)
    if not done:
        return False
    if out != ra:
        tags_p, ints_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel = pointers(regs)
        write_tensor(tags_p, ints_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel, out,
                     code, meta[ra], 0)
        pass_buffer(b8_s, i64_s, f32_s, f64_s, code, ra, out, sentinel, False)
        ints[out] = ints[ra]   # the same tensor: self's Python original, if it has one
    return True


@njit(inline="always")
def _copy_into(dst, q, src, p, s, k, om, n):
    """``dst[q:q + n]`` = ``src`` walked as ``om``; False (nothing written) when the two spans
    of memory overlap."""
    if n == 0:
        return True
    lo, hi = dst.ctypes.data + q * dst.itemsize, dst.ctypes.data + (q + n) * dst.itemsize
    src_lo = src.ctypes.data
    if lo < src_lo + len(src) * src.itemsize and src_lo < hi:
        return False
    pw.copy(NativeOp.COPY_, src, p, s, k, src, p, s, k, dst[q:q + n], om, n, src[0], False)
    return True


# ScalarType code -> native dtype code (-1: not native), for full_like's and empty_like's dtype
# argument.
_DTYPE_OF_SCALAR_TYPE = np.full(max(SCALAR_TYPE_CODES) + 1, -1, np.int64)
for _code, _dtype in SCALAR_TYPE_CODES.items():
    _DTYPE_OF_SCALAR_TYPE[_code] = DTYPE_CODE.get(np.dtype(_dtype), -1)
_EXACT_F32 = 1 << 24   # ints of at most this magnitude are exact in float32 and float64


@njit(**FORCEINLINE)
def _like_code(tags, ints, meta, ra, rd):
    """The native dtype code of a ``*_like(self, ..., dtype)`` result: ``self``'s, or the
    ScalarType ``dtype`` names; -1 where it has none (not native: the host runs the op)."""
    if tags[rd] == INT:
        if ints[rd] < 0 or ints[rd] >= len(_DTYPE_OF_SCALAR_TYPE):
            return -1
        return _DTYPE_OF_SCALAR_TYPE[ints[rd]]
    if tags[rd] != NONE:
        return -1
    return meta[ra, DTYPE]


@njit(**_OPTIONS)
def _full_like(regs, ra, rf, rd, out):
    """``aten::full_like(self, fill, dtype, ...)``: a new contiguous tensor of ``self``'s shape
    (layout, device, pin_memory and memory_format change nothing, as in the NumPy body). Only
    fills whose conversion is exact or rounds as NumPy's does: a float or small int into a float
    dtype, an int or bool into int64, a bool into bool."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    code = _like_code(tags, ints, meta, ra, rd)
    fill = tags[rf]
    n = pw.broadcast_meta(meta[ra], meta[ra], tmp[2])
    if n < 0 or code < 0:
        return False
    if code == D_F32 or code == D_F64:
        if fill == FLOAT:
            value = floats[rf]
        elif (fill == INT or fill == BOOL) and abs(ints[rf]) <= _EXACT_F32:
            value = float(ints[rf])
        else:
            return False
        if code == D_F32:
            _set_result(regs, out, np.full(n, np.float32(value)), 2)
        else:
            _set_result(regs, out, np.full(n, value), 2)
    elif code == D_I64 and (fill == INT or fill == BOOL):
        _set_result(regs, out, np.full(n, ints[rf]), 2)
    elif code == D_BOOL and fill == BOOL:
        _set_result(regs, out, np.full(n, ints[rf] != 0), 2)
    else:
        return False
    return True


@njit(**FORCEINLINE)
def _is_plain(tag):
    """A register the loop moves without touching a buffer list."""
    return tag != TENSOR and tag != ILIST


@njit(**_OPTIONS)
def _empty_like(regs, ra, rd, out):
    """``aten::empty_like(self, dtype, ...)``: a new contiguous tensor of ``self``'s shape whose
    elements are not set (``passes/inplace_fusion.py`` makes these only for arrays a kernel
    writes whole before anything reads them)."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    code = _like_code(tags, ints, meta, ra, rd)
    n = pw.broadcast_meta(meta[ra], meta[ra], tmp[2])
    if n < 0 or code < 0:
        return False
    if code == D_F32:
        _set_result(regs, out, np.empty(n, np.float32), 2)
    elif code == D_F64:
        _set_result(regs, out, np.empty(n, np.float64), 2)
    elif code == D_I64:
        _set_result(regs, out, np.empty(n, np.int64), 2)
    else:
        _set_result(regs, out, np.empty(n, np.bool_), 2)
    return True
