"""Views and int lists in the native loop without the register tuple: ``select``, ``t``,
``view``/``reshape``, ``ConstantChunk`` and ``ListConstruct`` of ints, over data pointers and
List slots (``slots``) like the pointwise fast paths::

    %x : Tensor = aten::select(%xs, %zero, %i)     meta row of x from xs's, buffer shared
    %s : int[] = prim::ListConstruct(%one, %n)     a new int64 buffer in the ilists slot

The shape arithmetic is ``tensor_ops``' own, called on ``numba.carray`` views of the meta rows
(an array without a meminfo: passing it counts nothing). Through ``_tensor_op`` (which takes
the register tuple and slices of ``int_data``) each of these cost ~0.3-0.5 us more in
reference counts. ``fast_view`` returns False, having changed nothing, for anything else; the
loop then calls ``_tensor_instruction``.
"""

from __future__ import annotations

from numba import carray, njit

from . import tensor_ops as to
from .registers import (
    D_F32,
    D_F64,
    D_I64,
    DTYPE,
    ILIST,
    INT,
    META_WIDTH,
    PY,
    TENSOR,
    clear_slots,
)
from .slots import at, slot_alloc, slot_data, slot_share, slot_size
from .table import CONSTANT_CHUNK, LIST_INT, RESHAPE, SELECT, VIEW
from .table import T as TRANSPOSE

_W = META_WIDTH
_O = 2 * META_WIDTH   # tmp row 2: the new view's meta


@njit(inline="always")
def _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, src, dst):
    """Register ``dst`` = a view of ``src``'s buffer with the meta in ``tmp`` row 2
    (``moves._set_view``; ``dst`` is neither ``src`` nor a Python object)."""
    s, d = src * _W, dst * _W
    code = meta[s + DTYPE]
    if tags[dst] == ILIST or (tags[dst] == TENSOR and meta[d + DTYPE] != code):
        clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, dst)
    for c in range(_W):
        meta[d + c] = tmp[_O + c]
    meta[d + DTYPE] = code
    # the slot's old buffer (same dtype) or sentinel is released by the share
    if code == D_F32:
        slot_share(f32, src, dst)
    elif code == D_F64:
        slot_share(f64, src, dst)
    elif code == D_I64:
        slot_share(i64, src, dst)
    else:
        slot_share(b8, src, dst)
    ints[dst] = 0  # a new tensor object: no Python original to hand back
    tags[dst] = TENSOR


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
def fast_view(op, p0, p1, tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, int_data,
              in_start, in_size, out_start, out_size):
    """Run view or int-list instruction ``op`` (see the module docstring); False, with nothing
    changed, when ``_tensor_instruction`` must (other ops and operands, an output that is an
    input or a Python object)."""
    out = int_data[out_start]
    if op == LIST_INT:
        return _list_int(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, int_data,
                         in_start, in_size, out)
    ra = int_data[in_start]
    if tags[ra] != TENSOR:
        return False
    m, om = carray(at(meta, ra * _W), _W), carray(at(tmp, _O), _W)
    if op == CONSTANT_CHUNK:
        for k in range(out_size):
            r = int_data[out_start + k]
            if r == ra or tags[r] == PY or to.chunk_piece(m, p0, p1, k, om) != 1:
                return False
        for k in range(out_size):
            to.chunk_piece(m, p0, p1, k, om)
            _view_into(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra,
                       int_data[out_start + k])
        return True
    if out == ra or tags[out] == PY:
        return False
    if op == SELECT:
        rd, ri = int_data[in_start + 1], int_data[in_start + 2]
        if tags[rd] != INT or tags[ri] != INT or not to.select(m, ints[rd], ints[ri], om):
            return False
    elif op == TRANSPOSE:
        if not to.transpose(m, om):
            return False
    elif op == VIEW or op == RESHAPE:
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


__all__ = ["fast_view"]
