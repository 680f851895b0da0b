"""The native instruction loop: ``run_loop`` executes a ``Code``'s integer encoding from pc.

It runs control flow, moves, drops, scalar constants and every op whose native body accepts
its operands, and returns ``HOSTCALL`` with ``pc_box[0]`` at the first instruction it cannot
run (a Python op, a future, a fusion group, a value only Python holds, an op without a native
body, or any operand a native body refuses, such as a shape mismatch whose error the NumPy body
reports). Before returning it has changed nothing for that instruction, so the driver runs it
whole and resumes at the next pc. An op body that raises (a failed allocation) leaves
``pc_box[0]`` at its instruction, which the driver then runs on the host. ``DONE`` means the
program ran to its end. ``YIELDED`` gives Python a turn (for Ctrl-C, ``runtime/interrupts.py``):
the loop has spent its budget of jumps and instructions in ``pc_box[1]`` and ``YIELD_CYCLES``
have passed since the cycle count in ``pc_box[2]``; the driver resumes at ``pc_box[0]``::

    0, 1 = prim::Load                    HOSTCALL (the driver writes the arguments)
    2 = aten::mul move(0), 1             native: pointwise kernel, register 0 freed
     = prim::Store move(2)               HOSTCALL (the driver reads the results)

Everything here is ``@njit(cache=True)``: a process that finds the on-disk cache warm does not
compile it again. Scalar instructions run in ``fast.run_fast`` (pre-decoded fixed-width rows
read through pointers, with superinstructions: ~2.5 ns an instruction, from ~10.5 in this
loop). The other hot paths (tensor moves and drops, float pointwise ops on contiguous or
broadcast operands, views and int lists) are inlined into ``run_loop`` (by LLVM:
``registers.FORCEINLINE``) and reach the banks through data pointers and the Lists through
``slots``: every array, List or tuple a helper takes costs atomic reference counts at each call
(a small op paid ~60 of them, ~940 ns; now ~90 ns). The general paths (``_binary``,
``_unary``, ``_tensor_op``, which take the register tuple), ``mm`` and the fuser's list
broadcast are compiled on their own and called through their addresses (``bodies``), so the
loop's compile does not optimise them again. Numba's cache of these functions lives under
``$FUSEJIT_CACHE_DIR/native/<digest>``, the digest taken over every runtime module they read
(``runtime/compile_cache.py``): editing any of them (dispatch, fast, moves, pointwise, slots,
views...) compiles the loop afresh, never runs stale inlined code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..code import ARG, IN_SIZE, IN_START, OPCODE, OUT_SIZE, OUT_START, Opcode
from ..interrupts import BUDGET, TENSOR_UNITS, YIELD_CYCLES, YIELDED, cycles
from .bodies import BINARY, BROADCAST_LIST, TENSOR_OP, UNARY
from .dispatch import _is_plain, fast_binary, fast_unary, move_register
from .fast import run_fast
from .opcodes import NativeOp
from .registers import (
    BOOL,
    EMPTY,
    FLOAT,
    FORCEINLINE,
    ILIST,
    INT,
    NONE,
    OFFSET,
    PY,
    STRIDES,
    TENSOR,
    clear_slots,
)
from .scalar_ops import scalar_binary, scalar_unary
from .slots import data, items
from .views import fast_tensor_op

DONE, HOSTCALL = 0, 1
PC_BOX_SIZE = 3   # pc, budget units left, cycle count at the last YIELDED

_OP, _CONSTANT, _DROP, _ASSIGN = int(Opcode.OP), int(Opcode.CONSTANT), int(Opcode.DROP), \
    int(Opcode.ASSIGN)
_JUMP, _JUMPZ, _JUMPNZ = int(Opcode.JUMP), int(Opcode.JUMPZ), int(Opcode.JUMPNZ)
_OPTIONS = {"cache": True, "error_model": "numpy", "nogil": True}


@njit(**FORCEINLINE)
def _holds_py(tags, int_data, start, size):
    """Whether an operand is a Python object. The early exit keeps LLVM from vectorising this
    1-4 element loop into gathers (no measurable change in the scalar benchmark)."""
    for k in range(start, start + size):
        if tags[int_data[k]] == PY:
            return True
    return False


# -- the loop ---------------------------------------------------------------------------------

@njit(**_OPTIONS)
def run_loop(a):
    """Execute from ``a.pc_box[0]`` until the end (DONE) or an instruction for the host.

    ``a`` is the state's ``LoopArgs`` (``state.py``: its fields and their types are declared
    there, once). Scalar ops, jumps, scalar constants and assigns and drops of scalars run in
    ``run_fast`` over ``fast``'s fixed-width rows; what it leaves (tensors, lists, Python
    values, the rare operand it refuses) is run below, where the arrays are indexed directly
    (no slices, no calls): every array view or call argument costs an atomic reference
    count."""
    pc_box, tags, ints, floats, meta, tmp = a.pc_box, a.tags, a.ints, a.floats, a.meta, a.tmp
    b8, i64, f32, f64, ilists = a.b8, a.i64, a.f32, a.f64, a.ilists
    instructions, int_data, bool_data = a.instructions, a.int_data, a.bool_data
    native_op, op_params, scratch = a.native_op, a.op_params, a.scratch
    const_tags, const_ints, const_floats = a.const_tags, a.const_ints, a.const_floats
    const_ilists, kernel_fns, kernel_rows = a.const_ilists, a.kernel_fns, a.kernel_rows
    regs = (tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp)
    # What the inlined helpers take: data pointers and List slots, passed without counting.
    tags_p, ints_p, floats_p, meta_p, tmp_p = data(tags), data(ints), data(floats), data(meta), \
        data(tmp)
    b8_s, i64_s, f32_s, f64_s, ilists_s = items(b8), items(i64), items(f32), items(f64), \
        items(ilists)
    # What run_fast takes: pointers only (bool_data as bytes: a bool pointer loads an i1).
    fast_p, moves_p, int_data_p = data(a.fast), data(bool_data.view(np.uint8)), data(int_data)
    const_tags_p, const_ints_p, const_floats_p = data(const_tags), data(const_ints), \
        data(const_floats)
    box_p = data(pc_box)
    bodies = data(a.bodies)   # the out-of-line bodies' addresses (``bodies``)
    sentinel = len(tags)
    n = len(instructions)
    pc = pc_box[0]
    while pc < n:
        pc = run_fast(pc, fast_p, tags_p, ints_p, floats_p, moves_p, int_data_p, const_tags_p,
                      const_ints_p, const_floats_p, box_p)
        if pc >= n:
            break
        pc_box[0] = pc   # where an op body that raises (a failed allocation) stopped
        left = pc_box[1] - TENSOR_UNITS
        pc_box[1] = left
        if left <= 0:
            pc_box[1] = BUDGET
            now = cycles()
            if now == 0 or now - pc_box[2] >= YIELD_CYCLES:
                pc_box[2] = now
                return YIELDED
        opcode = instructions[pc, OPCODE]
        arg = instructions[pc, ARG]
        in_start, in_size = instructions[pc, IN_START], instructions[pc, IN_SIZE]
        out_start, out_size = instructions[pc, OUT_START], instructions[pc, OUT_SIZE]
        if opcode == _OP:
            op = native_op[pc]
            if op <= NativeOp.HOST:   # (and COVERED)
                break
            # the groups, in ascending order of ids (opcodes.py)
            if op < NativeOp.ADD:   # SCALAR_BINARY, SCALAR_UNARY
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
                        clear_slots(tags_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s,
                                    sentinel, r)
                    tags[r], ints[r], floats[r] = tag, i, f
            elif op < NativeOp.NEG:   # TENSOR_ARITH, TENSOR_COMPARE
                ra, rb = int_data[in_start], int_data[in_start + 1]
                rc = int_data[in_start + 2] if in_size == 3 else -1
                done = fast_binary(op, tags_p, ints_p, floats_p, meta_p, tmp_p,
                                   b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel, ra, rb, rc,
                                   int_data[out_start])
                if not done:
                    done = BINARY(bodies, regs, op, int_data, in_start, in_size,
                                  int_data[out_start])
            elif op == NativeOp.BROADCAST_LIST:
                last = op_params[pc, 0]
                if not BROADCAST_LIST(bodies, regs, int_data, bool_data, in_start, in_size,
                                      instructions[last, OUT_START], instructions[last, OUT_SIZE],
                                      int_data[out_start], int_data[instructions[last, IN_START]]):
                    break
                pc = last + 1
                continue
            elif op >= NativeOp.KERNEL:   # KERNELS: slot op - KERNEL
                k = op - NativeOp.KERNEL
                done = kernel_rows[k, 0] == 1 and kernel_fns[k](
                    tags, ints, floats, meta, b8, i64, f32, f64, ilists, int_data, in_start,
                    out_start, kernel_rows[k])
            else:
                if op < NativeOp.MM:   # TENSOR_UNARY; else STRUCTURAL, LISTS
                    ra, out = int_data[in_start], int_data[out_start]
                    done = fast_unary(op, tags_p, ints_p, meta_p, tmp_p, b8_s,
                                      i64_s, f32_s, f64_s, ilists_s, sentinel, ra, out)
                    if not done:
                        done = UNARY(bodies, regs, op, ra, out)
                else:
                    done = fast_tensor_op(op, op_params[pc, 0], op_params[pc, 1], tags_p,
                                          ints_p, meta_p, tmp_p, b8_s, i64_s, f32_s, f64_s,
                                          ilists_s, sentinel, int_data_p, in_start, in_size,
                                          out_start, out_size, bodies)
                    if not done:
                        done = TENSOR_OP(bodies, regs, op, op_params[pc, 0], op_params[pc, 1],
                                         int_data, in_start, in_size, out_start, out_size)
            if not done:
                break
            for k in range(in_start, in_start + in_size):
                if bool_data[k]:
                    rr = int_data[k]
                    if tags[rr] == TENSOR or tags[rr] == ILIST:
                        clear_slots(tags_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s,
                                    sentinel, rr)
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
            if _holds_py(tags, int_data, in_start, in_size):
                break
            if op_params[pc, 0] == 1:
                # no output overwrites a later input: copy straight across
                for k in range(in_size):
                    src, dst = int_data[in_start + k], int_data[out_start + k]
                    if src == dst:
                        continue
                    if _is_plain(tags[src]) and _is_plain(tags[dst]):
                        tags[dst], ints[dst], floats[dst] = tags[src], ints[src], floats[src]
                        if bool_data[in_start + k]:
                            tags[src] = EMPTY
                    else:
                        move_register(tags_p, ints_p, floats_p, meta_p, b8_s, i64_s, f32_s,
                                      f64_s, ilists_s, sentinel, src, dst,
                                      bool_data[in_start + k])
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
                    move_register(tags_p, ints_p, floats_p, meta_p, b8_s, i64_s, f32_s, f64_s,
                                  ilists_s, sentinel, src, tmp_r, bool_data[in_start + k])
            for k in range(out_size):
                dst, tmp_r = int_data[out_start + k], scratch + k
                if _is_plain(tags[tmp_r]) and _is_plain(tags[dst]):
                    tags[dst], ints[dst], floats[dst] = tags[tmp_r], ints[tmp_r], floats[tmp_r]
                    tags[tmp_r] = EMPTY
                else:
                    move_register(tags_p, ints_p, floats_p, meta_p, b8_s, i64_s, f32_s, f64_s,
                                  ilists_s, sentinel, tmp_r, dst, True)
            pc += 1
        elif opcode == _CONSTANT:
            r = int_data[out_start]
            tag = const_tags[arg]
            if tag == INT or tag == BOOL or tag == FLOAT or tag == NONE:
                if tags[r] == TENSOR or tags[r] == ILIST:
                    clear_slots(tags_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel, r)
                else:
                    tags[r] = EMPTY
                ints[r], floats[r] = const_ints[arg], const_floats[arg]
                tags[r] = tag
            elif tag == ILIST:
                if tags[r] == TENSOR or tags[r] == ILIST:
                    clear_slots(tags_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel, r)
                else:
                    tags[r] = EMPTY
                ilists[r] = const_ilists[arg]
                tags[r] = ILIST
            else:
                break
            pc += 1
        elif opcode == _DROP:
            if _holds_py(tags, int_data, in_start, in_size):
                break
            for k in range(in_start, in_start + in_size):
                rr = int_data[k]
                if tags[rr] == TENSOR or tags[rr] == ILIST:
                    clear_slots(tags_p, meta_p, b8_s, i64_s, f32_s, f64_s, ilists_s, sentinel, rr)
                else:
                    tags[rr] = EMPTY
            pc += 1
        else:
            break
    pc_box[0] = pc
    return DONE if pc >= n else HOSTCALL


__all__ = ["DONE", "HOSTCALL", "PC_BOX_SIZE", "YIELDED", "run_loop", "OFFSET", "STRIDES"]
