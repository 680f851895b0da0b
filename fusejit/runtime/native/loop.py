"""The native instruction loop: ``run_loop`` executes a ``Code``'s integer encoding from pc.

It runs control flow, moves, drops, scalar constants and every op whose native body accepts
its operands, and returns ``HOSTCALL`` with ``pc_box[0]`` at the first instruction it cannot
run (a Python op, a future, a fusion group, a value only Python holds, an op without a native
body, or any operand a native body refuses, such as a shape mismatch whose error the NumPy body
reports). Before returning it has changed nothing for that instruction, so the driver runs it
whole and resumes at the next pc. ``DONE`` means the program ran to its end::

    0, 1 = prim::Load                    HOSTCALL (the driver writes the arguments)
    2 = aten::mul move(0), 1             native: pointwise kernel, register 0 freed
     = prim::Store move(2)               HOSTCALL (the driver reads the results)

Everything here is ``@njit(cache=True)``: a process that finds the on-disk cache warm does not
compile it again. The small helpers are inlined into ``run_loop``: a call that passes the
register tuple costs about 60 ns in reference counting alone. Numba's cache keys on each
file's own mtime, so after editing a module this one imports, clear the ``.nbi``/``.nbc``
files in ``native/__pycache__`` (its callees are compiled into it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..code import ARG, IN_SIZE, IN_START, OPCODE, OUT_SIZE, OUT_START, Opcode
from . import pointwise as pw
from . import tensor_ops as to
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
    PY,
    RANK,
    READONLY,
    SIZES,
    STRIDES,
    TENSOR,
    clear_register,
)
from .scalar_ops import scalar_binary, scalar_unary
from .table import (
    BINARY_BASE,
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
    UNARY_BASE,
    VIEW,
)
from .table import T as TRANSPOSE

DONE, HOSTCALL = 0, 1

_OP, _CONSTANT, _DROP, _ASSIGN = int(Opcode.OP), int(Opcode.CONSTANT), int(Opcode.DROP), \
    int(Opcode.ASSIGN)
_JUMP, _JUMPZ, _JUMPNZ = int(Opcode.JUMP), int(Opcode.JUMPZ), int(Opcode.JUMPNZ)
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
def _copy(regs, src, dst):
    """Register ``dst`` = register ``src`` (a tensor shares the buffer)."""
    tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp = regs
    tag = tags[src]
    _clear_for(regs, dst, tag, meta[src, DTYPE])
    ints[dst], floats[dst] = ints[src], floats[src]
    if tag == TENSOR:
        meta[dst, :] = meta[src, :]
        _share(regs, meta[src, DTYPE], src, dst)
    elif tag == ILIST:
        ilists[dst] = ilists[src]
    tags[dst] = tag


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
    if tags[ra] != TENSOR:
        return False
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
        for k in range(n_out):
            if to.chunk_piece(m, p0, p1, k, tmp[2]) != 1:
                return False
        for k in range(n_out):
            to.chunk_piece(m, p0, p1, k, tmp[2])
            _set_view(regs, ra, outs[k], 2)
    elif op == MM:
        rb = ins[1]
        if tags[rb] != TENSOR or rank != 2 or meta[rb, RANK] != 2:
            return False
        code = m[DTYPE]
        if meta[rb, DTYPE] != code or m[SIZES + 1] != meta[rb, SIZES]:
            return False
        if code == D_F32:
            _set_f32(regs, outs[0], to.mm(f32[ra], m, f32[rb], meta[rb], tmp[2]), 2)
        elif code == D_F64:
            _set_f64(regs, outs[0], to.mm(f64[ra], m, f64[rb], meta[rb], tmp[2]), 2)
        else:
            return False
    elif op == SUM_ALL or op == SUM_DIMS:
        if tags[ins[n_in - 1]] != NONE:  # an explicit dtype: the host
            return False
        code = m[DTYPE]
        if op == SUM_DIMS:
            if rank == 0 or tags[ins[2]] != BOOL:
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
    if op < 400:
        return _unary(regs, op - UNARY_BASE, ins[0], int_data[out_start])
    return _tensor_op(regs, op, p0, p1, ins, in_size,
                      int_data[out_start:out_start + out_size], out_size)


@njit(**_OPTIONS)
def _copy_out_of_line(regs, src, dst):
    _copy(regs, src, dst)


# -- the loop ---------------------------------------------------------------------------------

@njit(**_OPTIONS)
def run_loop(pc_box, tags, ints, floats, meta, tmp, b8, i64, f32, f64, ilists, instructions,
             int_data, bool_data, native_op, op_params, const_tags, const_ints, const_floats,
             const_ilists, scratch):
    """Execute from ``pc_box[0]`` until the end (DONE) or an instruction for the host.

    Arguments are flat: a tuple argument costs tens of microseconds to type at every call
    from Python, a typed List about 0.7 us and an array 0.1 us. Scalars, jumps and assigns of
    plain registers index the arrays directly (no slices, no calls): every array view or call
    argument costs an atomic reference count."""
    regs = (tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp)
    n = len(instructions)
    pc = pc_box[0]
    while pc < n:
        opcode = instructions[pc, OPCODE]
        arg = instructions[pc, ARG]
        in_start, in_size = instructions[pc, IN_START], instructions[pc, IN_SIZE]
        out_start, out_size = instructions[pc, OUT_START], instructions[pc, OUT_SIZE]
        if opcode == _OP:
            op = native_op[pc]
            if op < 0:
                break
            if op < BINARY_BASE:
                ra = int_data[in_start]
                if in_size == 2:
                    rb = int_data[in_start + 1]
                    done, tag, i, f = scalar_binary(op, op_params[pc, 0], tags[ra], ints[ra],
                                                    floats[ra], tags[rb], ints[rb], floats[rb])
                else:
                    done, tag, i, f = scalar_unary(op, op_params[pc, 0], tags[ra], ints[ra],
                                                   floats[ra])
                if done:
                    r = int_data[out_start]
                    if not _is_plain(tags[r]):
                        clear_register(tags, meta, b8, i64, f32, f64, ilists, r)
                    tags[r], ints[r], floats[r] = tag, i, f
            elif op < UNARY_BASE:
                done = _binary(regs, op - BINARY_BASE, int_data, in_start, in_size,
                               int_data[out_start])
            else:
                done = _tensor_instruction(regs, op, op_params[pc, 0], op_params[pc, 1],
                                           int_data, in_start, in_size, out_start, out_size)
            if not done:
                break
            for k in range(in_start, in_start + in_size):
                if bool_data[k]:
                    rr = int_data[k]
                    if tags[rr] == TENSOR or tags[rr] == ILIST:
                        clear_register(tags, meta, b8, i64, f32, f64, ilists, rr)
                    else:
                        tags[rr] = EMPTY
            pc += 1
        elif opcode == _JUMP:
            pc += 1 + arg
        elif opcode == _JUMPZ or opcode == _JUMPNZ:
            r = int_data[in_start]
            tag = tags[r]
            if tag == INT or tag == BOOL:
                value = ints[r] != 0
            elif tag == FLOAT:
                value = floats[r] != 0.0
            else:
                break
            if bool_data[in_start]:
                tags[r] = EMPTY
            pc += 1 + arg if value == (opcode == _JUMPNZ) else 1
        elif opcode == _ASSIGN:
            native = True
            for k in range(in_start, in_start + in_size):
                if tags[int_data[k]] == PY:
                    native = False
            if not native:
                break
            if op_params[pc, 0] == 1:
                # no output overwrites a later input: copy straight across
                for k in range(in_size):
                    src, dst = int_data[in_start + k], int_data[out_start + k]
                    if src == dst:
                        continue
                    if _is_plain(tags[src]) and _is_plain(tags[dst]):
                        tags[dst], ints[dst], floats[dst] = tags[src], ints[src], floats[src]
                    else:
                        _copy_out_of_line(regs, src, dst)
                    if bool_data[in_start + k]:
                        if _is_plain(tags[src]):
                            tags[src] = EMPTY
                        else:
                            clear_register(tags, meta, b8, i64, f32, f64, ilists, src)
                pc += 1
                continue
            # all inputs are read (into scratch registers) before any output is written
            for k in range(in_size):
                src, tmp_r = int_data[in_start + k], scratch + k
                if _is_plain(tags[src]):
                    tags[tmp_r], ints[tmp_r], floats[tmp_r] = tags[src], ints[src], floats[src]
                    if bool_data[in_start + k]:
                        tags[src] = EMPTY
                else:
                    _copy_out_of_line(regs, src, tmp_r)
                    if bool_data[in_start + k]:
                        clear_register(tags, meta, b8, i64, f32, f64, ilists, src)
            for k in range(out_size):
                dst, tmp_r = int_data[out_start + k], scratch + k
                if _is_plain(tags[tmp_r]) and _is_plain(tags[dst]):
                    tags[dst], ints[dst], floats[dst] = tags[tmp_r], ints[tmp_r], floats[tmp_r]
                    tags[tmp_r] = EMPTY
                else:
                    _copy_out_of_line(regs, tmp_r, dst)
                    if tags[tmp_r] == TENSOR or tags[tmp_r] == ILIST:
                        clear_register(tags, meta, b8, i64, f32, f64, ilists, tmp_r)
                    else:
                        tags[tmp_r] = EMPTY
            pc += 1
        elif opcode == _CONSTANT:
            r = int_data[out_start]
            tag = const_tags[arg]
            if tag == INT or tag == BOOL or tag == FLOAT or tag == NONE:
                if tags[r] == TENSOR or tags[r] == ILIST:
                    clear_register(tags, meta, b8, i64, f32, f64, ilists, r)
                else:
                    tags[r] = EMPTY
                ints[r], floats[r] = const_ints[arg], const_floats[arg]
                tags[r] = tag
            elif tag == ILIST:
                if tags[r] == TENSOR or tags[r] == ILIST:
                    clear_register(tags, meta, b8, i64, f32, f64, ilists, r)
                else:
                    tags[r] = EMPTY
                ilists[r] = const_ilists[arg]
                tags[r] = ILIST
            else:
                break
            pc += 1
        elif opcode == _DROP:
            native = True
            for k in range(in_start, in_start + in_size):
                if tags[int_data[k]] == PY:
                    native = False
            if not native:
                break
            for k in range(in_start, in_start + in_size):
                rr = int_data[k]
                if tags[rr] == TENSOR or tags[rr] == ILIST:
                    clear_register(tags, meta, b8, i64, f32, f64, ilists, rr)
                else:
                    tags[rr] = EMPTY
            pc += 1
        else:
            break
    pc_box[0] = pc
    return DONE if pc >= n else HOSTCALL


__all__ = ["DONE", "HOSTCALL", "run_loop", "OFFSET", "STRIDES"]
