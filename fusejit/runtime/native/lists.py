"""Tensor lists the native loop never materialises: the fuser's broadcast before a chunk.

The graph fuser writes a broadcast of a fusion group's chunked inputs as three nodes, one list
made and taken apart again::

    %l : Tensor[] = prim::ListConstruct(%a, %b)          pc      BROADCAST_LIST (all three)
    %m : Tensor[] = aten::broadcast_tensors(%l)          pc + 1  (skipped)
    %x : Tensor, %y : Tensor = prim::ListUnpack(%m)      pc + 2  (skipped)

When the lists are used only there, the instructions are consecutive and no list register is
an input or output tensor register, ``NativeProgram`` gives the first instruction this op: it
writes the expanded views of ``%a`` and ``%b`` straight to ``%x`` and ``%y`` (read-only, like
``np.broadcast_to``), applies the move flags of all three instructions, and the loop resumes
after the unpack. If the inputs are not all native tensors or do not broadcast, it does
nothing and the host runs the three instructions one by one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import tensor_ops as to
from .moves import _clear, _set_view
from .pointwise import merge_sizes
from .registers import MAX_RANK, RANK, SIZES, TENSOR, copy_meta

_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


@njit(**_OPTIONS)
def broadcast_list(regs, int_data, bool_data, in_start, in_size, out_start, out_size, list_a,
                   list_b):
    """Run the three instructions (see the module docstring); False when the host must.
    ``list_a`` and ``list_b`` are the list registers (made at pc, pc + 1)."""
    tags, meta, tmp = regs[0], regs[3], regs[9]
    if in_size != out_size or in_size == 0:
        return False
    rank = 0
    for k in range(in_size):
        r = int_data[in_start + k]
        if tags[r] != TENSOR:
            return False
        rank = max(rank, meta[r, RANK])
    if rank > MAX_RANK:
        return False
    shape = np.ones(rank, np.int64)
    for k in range(in_size):
        r = int_data[in_start + k]
        if not merge_sizes(shape, 0, rank, meta[r], SIZES, meta[r, RANK]):
            return False
    for k in range(in_size):
        r = int_data[in_start + k]
        copy_meta(tmp[2], meta[r])
        if not to.expand(meta[r], shape, tmp[2]):
            return False
    for k in range(in_size):
        r = int_data[in_start + k]
        copy_meta(tmp[2], meta[r])
        to.expand(meta[r], shape, tmp[2])
        _set_view(regs, r, int_data[out_start + k], 2)
    for k in range(in_size):
        if bool_data[in_start + k]:
            _clear(regs, int_data[in_start + k])
    _clear(regs, list_a)
    _clear(regs, list_b)
    return True


__all__ = ["broadcast_list"]
