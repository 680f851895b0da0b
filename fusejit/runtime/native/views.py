"""Views, int lists and ``mm`` in the native loop without the register tuple: ``select``,
``t``, ``view``/``reshape``, ``ConstantChunk``, ``ListConstruct`` of ints and 2-d float ``mm``,
over data pointers and List slots (``slots``) like the pointwise fast paths::

    %x : Tensor = aten::select(%xs, %zero, %i)     meta row of x from xs's, buffer shared
    %s : int[] = prim::ListConstruct(%one, %n)     a new int64 buffer in the ilists slot
    %y : Tensor = aten::mm(%x, %w)                 tensor_ops.mm's new buffer in y's slot

The arithmetic is ``tensor_ops``' own, called on ``numba.carray`` views of the meta rows and
buffers (arrays without a meminfo: passing one counts nothing); ``mm`` is ``bodies.mm``,
called through its address (``bodies``: the table's data pointer). Through ``_tensor_op`` (which
takes the register tuple and slices of ``int_data``) each of these cost ~0.3-0.5 us more in
reference counts. ``fast_tensor_op`` returns False, having changed nothing, for anything else;
the loop then calls ``dispatch._tensor_op``.
"""

from __future__ import annotations

from numba import carray, njit

from . import tensor_ops as to
from .bodies import MM
from .moves import pass_buffer, write_tensor
from .opcodes import NativeOp
from .registers import (
    DTYPE,
    FORCEINLINE,
    ILIST,
    INT,
    META_WIDTH,
    PY,
    READONLY,
    TENSOR,
    clear_slots,
)
from .slots import at, slot_alloc, slot_data, slot_size

_W = META_WIDTH
_O = 2 * META_WIDTH   # tmp row 2: the new view's meta


@njit(**FORCEINLINE)
def _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, src, dst):
    """Register ``dst`` = a view of ``src``'s buffer with the meta in ``tmp`` row 2
    (``moves._set_view``; ``dst`` is neither ``src`` nor a Python object)."""
    code = meta[src * _W + DTYPE]
    om = at(tmp, _O)
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, dst, code, om,
                 om[READONLY])
    pass_buffer(b8, i64, f32, f64, code, src, dst, sentinel, False)


@njit(**FORCEINLINE)
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


@njit(**FORCEINLINE)
def fast_tensor_op(op, p0, p1, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel,
                   int_data, in_start, in_size, out_start, out_size, bodies):
    """Run instruction ``op`` if it is one of the module docstring's; False, with nothing
    changed, when ``dispatch._tensor_op`` must (other ops and operands, an output that is an
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
        return MM(bodies, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra,
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
