"""Views, int lists and ``mm`` in the native loop without the register tuple: ``select``,
``t``, ``view``/``reshape``, ``ConstantChunk``, ``ListConstruct`` of ints and 2-d float ``mm``,
over data pointers and List slots (``slots``) like the pointwise fast paths::

    %x : Tensor = aten::select(%xs, %zero, %i)     meta row of x from xs's, buffer shared
    %s : int[] = prim::ListConstruct(%one, %n)     a new int64 buffer in the ilists slot
    %y : Tensor = aten::mm(%x, %w)                 tensor_ops.mm's new buffer in y's slot

The arithmetic is ``tensor_ops``' own, called on ``numba.carray`` views of the meta rows and
buffers (arrays without a meminfo: passing one counts nothing). Through ``_tensor_op`` (which
takes the register tuple and slices of ``int_data``) each of these cost ~0.3-0.5 us more in
reference counts. ``fast_tensor_op`` returns False, having changed nothing, for anything else;
the loop then calls ``_tensor_instruction``.
"""

from __future__ import annotations

from numba import carray, njit

from . import tensor_ops as to
from .moves import pass_buffer, write_tensor
from .opcodes import NativeOp
from .registers import (
    D_F32,
    D_F64,
    DTYPE,
    ILIST,
    INT,
    META_WIDTH,
    PY,
    RANK,
    READONLY,
    SIZES,
    TENSOR,
    clear_slots,
)
from .slots import at, slot_alloc, slot_data, slot_put, slot_size

_W = META_WIDTH
_O = 2 * META_WIDTH   # tmp row 2: the new view's meta


@njit(inline="always")
def _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, src, dst):
    """Register ``dst`` = a view of ``src``'s buffer with the meta in ``tmp`` row 2
    (``moves._set_view``; ``dst`` is neither ``src`` nor a Python object)."""
    code = meta[src * _W + DTYPE]
    om = at(tmp, _O)
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, dst, code, om,
                 om[READONLY])
    pass_buffer(b8, i64, f32, f64, code, src, dst, sentinel, False)


@njit(inline="always")
def _list_int(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, int_data, in_start,
              in_size, out):
    for k in range(in_start, in_start + in_size):
        if tags[int_data[k]] != INT:
            return False
    if tags[out] == PY:
        return False
    if tags[out] == TENSOR:
        clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, out)
    values = slot_alloc(ilists, out, in_size)
    for k in range(in_size):
        values[k] = ints[int_data[in_start + k]]
    tags[out] = ILIST
    return True


@njit(inline="always")
def _buffer(lst, r):
    """Register ``r``'s whole buffer as an array that counts nothing (borrowed)."""
    return carray(slot_data(lst, r), slot_size(lst, r))


@njit(cache=True, error_model="numpy", nogil=True)
def _mm(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, rb, out):
    """``_tensor_op``'s MM for two 2-d float tensors of one dtype (``moves._set_f32``). Not
    inlined: in ``run_loop`` it slowed the small pointwise op from ~88 to ~120 ns."""
    a, b = ra * _W, rb * _W
    code = meta[a + DTYPE]
    if tags[rb] != TENSOR or out == rb or meta[a + RANK] != 2 or meta[b + RANK] != 2 \
            or meta[b + DTYPE] != code or meta[a + SIZES + 1] != meta[b + SIZES] \
            or (code != D_F32 and code != D_F64) \
            or not to.mm_fits(meta[a + SIZES], meta[b + SIZES + 1]):
        return False
    m, bm, om = carray(at(meta, a), _W), carray(at(meta, b), _W), carray(at(tmp, _O), _W)
    if to.mm_on_host(m, bm):
        return False
    if code == D_F32:
        buffer32 = to.mm(_buffer(f32, ra), m, _buffer(f32, rb), bm, om)
    else:
        buffer64 = to.mm(_buffer(f64, ra), m, _buffer(f64, rb), bm, om)
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, out, code, om, 0)
    if code == D_F32:
        slot_put(f32, out, buffer32)
    else:
        slot_put(f64, out, buffer64)
    return True


@njit(inline="always")
def fast_tensor_op(op, p0, p1, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel,
                   int_data, in_start, in_size, out_start, out_size):
    """Run instruction ``op`` if it is one of the module docstring's; False, with nothing
    changed, when ``_tensor_instruction`` must (other ops and operands, an output that is an
    input or a Python object)."""
    out = int_data[out_start]
    if op == NativeOp.LIST_INT:
        return _list_int(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, int_data,
                         in_start, in_size, out)
    ra = int_data[in_start]
    if tags[ra] != TENSOR:
        return False
    m, om = carray(at(meta, ra * _W), _W), carray(at(tmp, _O), _W)
    if op == NativeOp.CONSTANT_CHUNK:
        if to.chunk_count(m, p0, p1) != out_size:   # more pieces: the reference's error
            return False
        for k in range(out_size):
            r = int_data[out_start + k]
            if r == ra or tags[r] == PY:
                return False
        for k in range(out_size):
            to.chunk_piece(m, p0, p1, k, om)
            _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra,
                       int_data[out_start + k])
        return True
    if out == ra or tags[out] == PY:
        return False
    if op == NativeOp.MM:
        return _mm(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra,
                   int_data[in_start + 1], out)
    if op == NativeOp.SELECT:
        rd, ri = int_data[in_start + 1], int_data[in_start + 2]
        if tags[rd] != INT or tags[ri] != INT or not to.select(m, ints[rd], ints[ri], om):
            return False
    elif op == NativeOp.T:
        if not to.transpose(m, om):
            return False
    elif op == NativeOp.VIEW or op == NativeOp.RESHAPE:
        rs = int_data[in_start + 1]
        if tags[rs] != ILIST:
            return False
        for c in range(_W):
            om[c] = m[c]
        if not to.infer_view(m, carray(slot_data(ilists, rs), slot_size(ilists, rs)), om):
            return False
    else:
        return False
    _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, out)
    return True


__all__ = ["fast_tensor_op"]
