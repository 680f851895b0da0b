"""The scalar fast path of the native loop: a fixed-width decoding of each instruction, and the
inner loop ``run_fast`` that runs scalar ops, jumps, scalar constants, plain assigns and drops.

``decode(code, native_op, op_params)`` builds one int64 row of ``WIDTH`` per instruction (one
more, ``F_EXIT``, for the end of the program) once per ``Code``::

    kind       a    b    out  moves  target  op     ret
    F_LT       18   0    19   39     -       S_LT   RET_BOOL    19 = aten::lt 18, 0
    F_JUMPNZ   14   -    -    35     17      -      -           = prim::JumpNZ move(14) -> 17

``moves`` is the index of the instruction's first move flag in ``bool_data`` (read at run
time: a caller may edit the flags after the table is built), ``target`` an absolute pc (or,
for ``F_CONST``, the constant's index; for ``F_ASSIGN`` and ``F_DROP``, ``a`` and ``b`` are
the start and size of the inputs in ``int_data`` and ``out`` the start of the outputs).

``run_loop`` calls ``run_fast`` at every pc it reaches. ``run_fast`` reads one row per
instruction through raw pointers (no negative-index wraparound, no bounds checks, no
reference counts) and returns the pc of the first instruction it leaves to the general loop:
an ``F_EXIT`` row (tensor ops, Load/Store, ...), or any operand it does not handle here (a
non-scalar register, an integer division by zero...). It changes nothing for that
instruction, so the general loop runs it whole, with the same result. Before the table, the
general loop alone spent ~10.5 ns per scalar instruction (the benchmark's while+if).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..code import Code, Opcode
from .registers import BOOL, EMPTY, FLOAT, INT, NONE
from .scalar_ops import (
    RET_BOOL,
    RET_INT,
    RET_SCALAR,
    S_ADD,
    S_AND,
    S_EQ,
    S_FLOORDIV,
    S_GE,
    S_GT,
    S_LE,
    S_LT,
    S_MUL,
    S_NE,
    S_OR,
    S_REMAINDER,
    S_SUB,
    S_XOR,
    scalar_binary,
    scalar_unary,
)

WIDTH = 8
KIND, A, B, OUT, MOVES, TARGET, OP, RET = range(WIDTH)
(F_EXIT, F_JUMP, F_JUMPZ, F_JUMPNZ, F_CONST, F_ASSIGN, F_DROP, F_BINARY, F_UNARY) = range(9)
# Binary ops with a body for two int/bool operands here (others go through scalar_binary).
(F_ADD, F_SUB, F_MUL, F_FLOORDIV, F_REMAINDER, F_EQ, F_NE, F_LT, F_LE, F_GT, F_GE, F_AND, F_OR,
 F_XOR) = range(16, 30)
_INT_RESULT = {S_ADD: F_ADD, S_SUB: F_SUB, S_MUL: F_MUL, S_FLOORDIV: F_FLOORDIV,
               S_REMAINDER: F_REMAINDER}
_BOOL_RESULT = {S_EQ: F_EQ, S_NE: F_NE, S_LT: F_LT, S_LE: F_LE, S_GT: F_GT, S_GE: F_GE,
                S_AND: F_AND, S_OR: F_OR, S_XOR: F_XOR}
_SCALAR_BINARY, _SCALAR_UNARY = range(100, 150), range(150, 200)
_INT_MIN = np.iinfo(np.int64).min


def decode(code: Code, native_op: np.ndarray, op_params: np.ndarray,
           const_tags: np.ndarray, direct_assign: np.ndarray) -> np.ndarray:
    """The fixed-width rows of ``code`` (see the module docstring); ``direct_assign[pc]`` is 1
    for an Assign that copies in order (``program._direct_assign``)."""
    n = len(code.instructions)
    rows = np.zeros((n + 1, WIDTH), np.int64)
    int_data = code.int_data
    for pc, (opcode, arg, in_start, in_size, out_start, out_size) in enumerate(
            code.instructions.tolist()):
        row = rows[pc]
        first_in = int(int_data[in_start]) if in_size else 0
        out = int(int_data[out_start]) if out_size else 0
        if opcode == Opcode.JUMP:
            row[KIND], row[TARGET] = F_JUMP, pc + 1 + arg
        elif opcode in (Opcode.JUMPZ, Opcode.JUMPNZ) and in_size == 1:
            row[:] = (F_JUMPZ if opcode == Opcode.JUMPZ else F_JUMPNZ, first_in, 0, 0,
                      in_start, pc + 1 + arg, 0, 0)
        elif opcode == Opcode.CONSTANT and const_tags[arg] in (INT, FLOAT, BOOL, NONE):
            row[KIND], row[OUT], row[TARGET] = F_CONST, out, arg
        elif opcode == Opcode.ASSIGN and direct_assign[pc] and in_size == out_size:
            row[:4] = F_ASSIGN, in_start, in_size, out_start
        elif opcode == Opcode.DROP:
            row[:3] = F_DROP, in_start, in_size
        elif opcode == Opcode.OP and out_size == 1:
            op, ret = int(native_op[pc]), int(op_params[pc, 0])
            if op in _SCALAR_BINARY and in_size == 2:
                kind = F_BINARY
                if op in _INT_RESULT and ret in (RET_SCALAR, RET_INT):
                    kind = _INT_RESULT[op]
                elif op in _BOOL_RESULT and ret in (RET_SCALAR, RET_BOOL):
                    kind = _BOOL_RESULT[op]
                row[:] = kind, first_in, int(int_data[in_start + 1]), out, in_start, 0, op, ret
            elif op in _SCALAR_UNARY and in_size == 1:
                row[:] = F_UNARY, first_in, 0, out, in_start, 0, op, ret
    return rows


@njit(inline="always")
def _int_like(tag):
    # INT (1) and BOOL (3) keep their value in ints; FLOAT is 2.
    return (tag | 2) == 3


@njit(inline="always")
def run_fast(pc, rows, tags, ints, floats, moves, int_data, const_tags, const_ints,
             const_floats):
    """Run from ``pc`` while the instructions are the scalar kinds above; return the pc of the
    first one left to the general loop. Every argument is a pointer or a number (no reference
    counts); a register whose tag is above NONE (a tensor, list or Python object) is never
    touched here."""
    while True:
        row = pc * WIDTH
        kind = rows[row + KIND]
        if kind >= F_ADD:
            a, b, out = rows[row + A], rows[row + B], rows[row + OUT]
            if not (_int_like(tags[a]) and _int_like(tags[b]) and tags[out] <= NONE):
                kind = F_BINARY
            else:
                x, y = ints[a], ints[b]
                tag = BOOL
                if kind == F_ADD:
                    i, tag = x + y, INT
                elif kind == F_SUB:
                    i, tag = x - y, INT
                elif kind == F_MUL:
                    i, tag = x * y, INT
                elif kind == F_FLOORDIV or kind == F_REMAINDER:
                    if y == 0 or (x == _INT_MIN and y == -1):
                        return pc
                    i, tag = (x // y if kind == F_FLOORDIV else x % y), INT
                elif kind == F_EQ:
                    i = int(x == y)
                elif kind == F_NE:
                    i = int(x != y)
                elif kind == F_LT:
                    i = int(x < y)
                elif kind == F_LE:
                    i = int(x <= y)
                elif kind == F_GT:
                    i = int(x > y)
                elif kind == F_GE:
                    i = int(x >= y)
                elif kind == F_AND:
                    i = int(x != 0 and y != 0)
                elif kind == F_OR:
                    i = int(x != 0 or y != 0)
                else:
                    i = int((x != 0) != (y != 0))
                # the output first, then the moved inputs (as the general loop does)
                tags[out], ints[out], floats[out] = tag, i, 0.0
                m = rows[row + MOVES]
                if moves[m]:
                    tags[a] = EMPTY
                if moves[m + 1]:
                    tags[b] = EMPTY
                pc += 1
                continue
        if kind == F_BINARY:
            a, b, out = rows[row + A], rows[row + B], rows[row + OUT]
            if tags[out] > NONE:
                return pc
            done, tag, i, f = scalar_binary(rows[row + OP], rows[row + RET], tags[a], ints[a],
                                            floats[a], tags[b], ints[b], floats[b])
            if not done:
                return pc
            tags[out], ints[out], floats[out] = tag, i, f
            m = rows[row + MOVES]
            if moves[m]:
                tags[a] = EMPTY
            if moves[m + 1]:
                tags[b] = EMPTY
            pc += 1
        elif kind == F_JUMP:
            pc = rows[row + TARGET]
        elif kind == F_JUMPZ or kind == F_JUMPNZ:
            r = rows[row + A]
            tag = tags[r]
            if _int_like(tag):
                value = ints[r] != 0
            elif tag == FLOAT:
                value = floats[r] != 0.0
            else:
                return pc
            if moves[rows[row + MOVES]]:
                tags[r] = EMPTY
            pc = rows[row + TARGET] if value == (kind == F_JUMPNZ) else pc + 1
        elif kind == F_ASSIGN:
            start, size, out_start = rows[row + A], rows[row + B], rows[row + OUT]
            for k in range(size):
                if tags[int_data[start + k]] > NONE or tags[int_data[out_start + k]] > NONE:
                    return pc
            # in order: no output is a later input (program._direct_assign)
            for k in range(size):
                src, dst = int_data[start + k], int_data[out_start + k]
                if src != dst:
                    tags[dst], ints[dst], floats[dst] = tags[src], ints[src], floats[src]
                    if moves[start + k]:
                        tags[src] = EMPTY
            pc += 1
        elif kind == F_CONST:
            out, k = rows[row + OUT], rows[row + TARGET]
            if tags[out] > NONE:
                return pc
            tags[out], ints[out], floats[out] = const_tags[k], const_ints[k], const_floats[k]
            pc += 1
        elif kind == F_UNARY:
            a, out = rows[row + A], rows[row + OUT]
            if tags[out] > NONE:
                return pc
            done, tag, i, f = scalar_unary(rows[row + OP], rows[row + RET], tags[a], ints[a],
                                           floats[a])
            if not done:
                return pc
            tags[out], ints[out], floats[out] = tag, i, f
            if moves[rows[row + MOVES]]:
                tags[a] = EMPTY
            pc += 1
        elif kind == F_DROP:
            start, size = rows[row + A], rows[row + B]
            for k in range(size):
                if tags[int_data[start + k]] > NONE:
                    return pc
            for k in range(size):
                tags[int_data[start + k]] = EMPTY
            pc += 1
        else:
            return pc


__all__ = ["WIDTH", "decode", "run_fast"]
