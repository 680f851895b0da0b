"""The scalar fast path of the native loop: a fixed-width decoding of each instruction, and the
inner loop ``run_fast`` that runs scalar ops, jumps, scalar constants, plain assigns and drops.

``decode(code, native_op, op_params, const_tags, direct_assign)`` builds one int64 row of
``WIDTH`` per instruction (one more, ``F_EXIT``, for the end of the program) once per
``Code``::

    kind         a   b   out  moves  target  op     ret  next drop
    F_COMPARE    18  0   19   39     -       0b001  19   -    -     19 = aten::lt 18, 0
    F_JUMPNZ     14  -   -    35     17      -      -    -    -     = prim::JumpNZ move(14) -> 17

``moves`` is the index of the instruction's first move flag in ``bool_data`` (read at run
time: a caller may edit the flags after the table is built), ``target`` an absolute pc (or,
for ``F_CONST``, the constant's index; for ``F_ASSIGN`` and ``F_DROP``, ``a`` and ``b`` are
the start and size of the inputs in ``int_data`` and ``out`` the start of the outputs);
``next`` and ``drop`` serve an int op followed by the Assign of its result (below).

Int/bool ops (chosen when the IR types both operands int or bool; the tags are still checked
at run time) carry a truth table, mask or shift in ``op`` and, in ``ret``, a second output.
Some rows run two or three instructions (superinstructions), decided here::

    8 = aten::remainder 6, 3          F_REMAINDER_MASK (register 3 only ever holds 2: x & 1)
    9 = aten::eq move(8), 1           F_COMPARE_BRANCH: the compare and the jump on its result
    = prim::JumpNZ move(9) -> 13
    10 = aten::sub 7, 2               F_SUB with ret = 11: the op, then the Assign of its result
    11 = prim::Assign move(10)        and, folded in (``next``, ``drop``), a Jump or a Drop of
    = prim::Jump -> 15                one register right after (an If branch's end)
    14 = aten::lt 13, 0               F_COMPARE_ASSIGN_BRANCH: a loop's test, its carried
    5, 6 = prim::Assign move(14), ... values and back edge (that Assign is F_ASSIGN_BRANCH);
    = prim::JumpNZ move(5) -> 7       when both move the condition, it never reaches a register

Each does exactly what its instructions would, in their order (the second instruction's row
stays, for jumps into it). Conditional jumps are real branches, not selects (their target is
loaded on the taken path only): a select made the next pc wait for the condition's value
(a three-op while loop without the if: 18.6 -> 15.6 ns an iteration).

``run_loop`` calls ``run_fast`` at every pc it reaches. ``run_fast`` reads one row per
instruction through raw pointers (no negative-index wraparound, no bounds checks, no
reference counts) and returns the pc of the first instruction it leaves to the general loop:
an ``F_EXIT`` row (tensor ops, Load/Store, ...), or any operand it does not handle here (a
non-scalar register, an integer division by zero...). It changes nothing for that
instruction, so the general loop runs it whole, with the same result. Before the table, the
general loop alone spent ~10.5 ns per scalar instruction (the benchmark's while+if).

Every conditional jump also takes a unit from the budget in ``box[1]`` (``pc_box[1]``), so that
a loop that never ends still reaches the general loop, which gives Python a turn for Ctrl-C
now and then (``runtime/interrupts.py``).

``run_fast`` is a function of its own, called, not inlined into ``run_loop``: compiled alone
it keeps its registers to itself, and the benchmark's loop ran 23-25 ns an iteration against
26-28 inlined (a tensor op pays the call, a few ns of its ~90).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...ir.types import BoolType, IntType
from ..code import Code, Opcode
from .opcodes import Group, NativeOp
from .registers import BOOL, EMPTY, FLOAT, INT, NONE
from .scalar_ops import RET_BOOL, RET_INT, RET_SCALAR, scalar_binary, scalar_unary

WIDTH = 10
KIND, A, B, OUT, MOVES, TARGET, OP, RET, NEXT, DROP = range(WIDTH)
(F_EXIT, F_JUMP, F_JUMPZ, F_JUMPNZ, F_CONST, F_ASSIGN, F_DROP, F_BINARY, F_UNARY,
 F_ASSIGN_BRANCH) = range(10)
# Bodies for two int/bool operands (others, and operands of other types at run time, go through
# scalar_binary). OP holds a mask, a shift or a truth table; RET the second output.
(F_ADD, F_SUB, F_MUL, F_FLOORDIV, F_REMAINDER, F_REMAINDER_MASK, F_FLOORDIV_SHIFT, F_COMPARE,
 F_LOGIC, F_COMPARE_BRANCH, F_COMPARE_ASSIGN_BRANCH) = range(16, 27)
_ARITHMETIC = {NativeOp.S_ADD: F_ADD, NativeOp.S_SUB: F_SUB, NativeOp.S_MUL: F_MUL,
               NativeOp.S_FLOORDIV: F_FLOORDIV, NativeOp.S_REMAINDER: F_REMAINDER}
# Compare: bit (2 * (a > b) + (a == b)) of the table is the result (lt, eq, gt).
_COMPARE = {NativeOp.S_LT: 0b001, NativeOp.S_EQ: 0b010, NativeOp.S_GT: 0b100,
            NativeOp.S_LE: 0b011, NativeOp.S_GE: 0b110, NativeOp.S_NE: 0b101}
# Logic: bit (2 * (a != 0) + (b != 0)).
_LOGIC = {NativeOp.S_AND: 0b1000, NativeOp.S_OR: 0b1110, NativeOp.S_XOR: 0b0110}
_JUMP_IF_TRUE = 8   # in F_COMPARE_BRANCH's table when the jump is a JumpNZ
_INT_MIN = np.iinfo(np.int64).min


def _constant_registers(code: Code, const_tags: np.ndarray) -> dict[int, int]:
    """Registers only ever written by int/bool constants of one value: register -> value."""
    values: dict[int, int | None] = {}
    int_data = code.int_data
    for opcode, arg, _, _, out_start, out_size in code.instructions.tolist():
        for r in int_data[out_start:out_start + out_size].tolist():
            value = None
            if opcode == Opcode.CONSTANT and const_tags[arg] in (INT, BOOL):
                value = int(code.constants[arg])
            if r in values and values[r] != value:
                value = None
            values[r] = value
    return {r: v for r, v in values.items() if v is not None}


def _int_kind(op: int, ret: int, divisor: int | None) -> tuple[int, int] | None:
    """(kind, OP field) of an int/bool binary op, or None for scalar_binary's body;
    ``divisor`` is b's value when b is a constant register."""
    if op in _COMPARE and ret in (RET_SCALAR, RET_BOOL):
        return F_COMPARE, _COMPARE[op]
    if op in _LOGIC and ret in (RET_SCALAR, RET_BOOL):
        return F_LOGIC, _LOGIC[op]
    if op not in _ARITHMETIC or ret not in (RET_SCALAR, RET_INT):
        return None
    if op in (NativeOp.S_FLOORDIV, NativeOp.S_REMAINDER) and divisor is not None and divisor > 0 \
            and divisor & (divisor - 1) == 0:
        # Python's // and % by a positive power of two are a shift and a mask, any sign.
        if op == NativeOp.S_FLOORDIV:
            return F_FLOORDIV_SHIFT, divisor.bit_length() - 1
        return F_REMAINDER_MASK, divisor - 1
    return _ARITHMETIC[op], 0


def _int_operands(node) -> bool:
    """Whether the IR types both operands int or bool (a float operand would leave every fast
    row; the registers' tags are still checked at run time)."""
    return node is not None and all(isinstance(v.type, (IntType, BoolType))
                                    for v in node.inputs)


def _branch_on(instructions: list, int_data: np.ndarray, pc: int, register: int):
    """(flag index, absolute target, is JumpNZ) when instruction ``pc`` is a JumpZ/JumpNZ on
    ``register``, else None."""
    if pc >= len(instructions):
        return None
    opcode, arg, in_start, in_size = instructions[pc][:4]
    if opcode not in (Opcode.JUMPZ, Opcode.JUMPNZ) or in_size != 1 \
            or int(int_data[in_start]) != register:
        return None
    return in_start, pc + 1 + arg, opcode == Opcode.JUMPNZ


def _moved_copy(instructions: list, int_data: np.ndarray, direct_assign: np.ndarray, pc: int,
                register: int, flags_at: int) -> int | None:
    """The output of instruction ``pc`` when it is a one-value Assign copying ``register``
    whose move flag is at ``flags_at``, else None."""
    if pc >= len(instructions):
        return None
    opcode, _, in_start, in_size, out_start, out_size = instructions[pc]
    if opcode != Opcode.ASSIGN or not direct_assign[pc] or in_size != 1 or out_size != 1 \
            or in_start != flags_at or int(int_data[in_start]) != register:
        return None
    return int(int_data[out_start])


def _after_copy(instructions: list, int_data: np.ndarray, pc: int) -> tuple[int, int]:
    """(next pc, register to drop or -1) after an op and the Assign of its result, folding
    the instruction at ``pc`` in when it is a Jump or a one-register Drop."""
    if pc < len(instructions):
        opcode, arg, in_start, in_size = instructions[pc][:4]
        if opcode == Opcode.JUMP:
            return pc + 1 + arg, -1
        if opcode == Opcode.DROP and in_size == 1:
            return pc + 1, int(int_data[in_start])
    return pc, -1


def decode(code: Code, native_op: np.ndarray, op_params: np.ndarray,
           const_tags: np.ndarray, direct_assign: np.ndarray) -> np.ndarray:
    """The fixed-width rows of ``code`` (see the module docstring); ``direct_assign[pc]`` is 1
    for an Assign that copies in order (``program._direct_assign``)."""
    n = len(code.instructions)
    rows = np.zeros((n + 1, WIDTH), np.int64)
    int_data = code.int_data
    constants = _constant_registers(code, const_tags)
    instructions = code.instructions.tolist()
    for pc, (opcode, arg, in_start, in_size, out_start, out_size) in enumerate(instructions):
        row = rows[pc]
        first_in = int(int_data[in_start]) if in_size else 0
        out = int(int_data[out_start]) if out_size else 0
        if opcode == Opcode.JUMP:
            row[KIND], row[TARGET] = F_JUMP, pc + 1 + arg
        elif opcode in (Opcode.JUMPZ, Opcode.JUMPNZ) and in_size == 1:
            row[:8] = (F_JUMPZ if opcode == Opcode.JUMPZ else F_JUMPNZ, first_in, 0, 0,
                      in_start, pc + 1 + arg, 0, 0)
        elif opcode == Opcode.CONSTANT and const_tags[arg] in (INT, FLOAT, BOOL, NONE):
            row[KIND], row[OUT], row[TARGET] = F_CONST, out, arg
        elif opcode == Opcode.ASSIGN and direct_assign[pc] and in_size == out_size:
            row[:4] = F_ASSIGN, in_start, in_size, out_start
            branch = _branch_on(instructions, int_data, pc + 1, out)
            if branch is not None and in_size:
                row[KIND], row[MOVES], row[TARGET], row[OP], row[RET] = \
                    F_ASSIGN_BRANCH, branch[0], branch[1], branch[2], out
        elif opcode == Opcode.DROP:
            row[:3] = F_DROP, in_start, in_size
        elif opcode == Opcode.OP and out_size == 1:
            op, ret = int(native_op[pc]), int(op_params[pc, 0])
            if op in Group.SCALAR_BINARY and in_size == 2:
                a, b = first_in, int(int_data[in_start + 1])
                fast = _int_kind(op, ret, constants.get(b)) \
                    if _int_operands(code.nodes[pc]) else None
                if fast is None:
                    row[:8] = F_BINARY, a, b, out, in_start, 0, op, ret
                    continue
                kind, field = fast
                row[:8] = kind, a, b, out, in_start, 0, field, out
                # The op's flags are at in_start, +1; its output's at +2; the next
                # instruction's first input flag at +3.
                branch = _branch_on(instructions, int_data, pc + 1, out)
                copy = _moved_copy(instructions, int_data, direct_assign, pc + 1, out,
                                   in_start + 3)
                if kind == F_COMPARE and branch is not None and branch[0] == in_start + 3:
                    row[KIND], row[TARGET] = F_COMPARE_BRANCH, branch[1]
                    row[OP] |= _JUMP_IF_TRUE if branch[2] else 0
                elif copy is not None and copy not in (a, b, out):
                    row[RET] = copy
                    row[NEXT], row[DROP] = _after_copy(instructions, int_data, pc + 2)
            elif op in Group.SCALAR_UNARY and in_size == 1:
                row[:8] = F_UNARY, first_in, 0, out, in_start, 0, op, ret
    # A compare before a loop's back edge (the Assign of the carried values and its jump)
    # runs straight into it.
    for pc in range(n - 1):
        if rows[pc, KIND] == F_COMPARE and rows[pc, RET] == rows[pc, OUT] \
                and rows[pc + 1, KIND] == F_ASSIGN_BRANCH:
            rows[pc, KIND] = F_COMPARE_ASSIGN_BRANCH
    return rows


@njit(inline="always")
def _int_like(tag):
    # INT (1) and BOOL (3) keep their value in ints; FLOAT is 2.
    return (tag | 2) == 3


@njit(inline="always")
def _truth(table, index):
    return (table >> index) & 1


@njit(inline="always")
def _assign(rows, row, tags, ints, floats, moves, int_data):
    """An F_ASSIGN / F_ASSIGN_BRANCH row's copies; False (nothing done) when a register is
    not a scalar."""
    start, size, out_start = rows[row + A], rows[row + B], rows[row + OUT]
    if not _scalar_pairs(tags, int_data, start, out_start, 0, size):
        return False
    _copy(tags, ints, floats, moves, int_data, start, out_start, size)
    return True


@njit(inline="always")
def _scalar_pairs(tags, int_data, start, out_start, first, size):
    """Whether inputs and outputs ``first`` .. size - 1 of an Assign are scalar registers."""
    for k in range(first, size):
        if tags[int_data[start + k]] > NONE or tags[int_data[out_start + k]] > NONE:
            return False
    return True


@njit(inline="always")
def _copy(tags, ints, floats, moves, int_data, start, out_start, size):
    """Copy ``size`` registers in order (no output is a later input:
    ``program._direct_assign``), emptying the moved inputs."""
    for k in range(size):
        src, dst = int_data[start + k], int_data[out_start + k]
        if src != dst:
            tag = tags[src]
            tags[dst], ints[dst] = tag, ints[src]
            if tag == FLOAT:
                floats[dst] = floats[src]
            if moves[start + k]:
                tags[src] = EMPTY


@njit(inline="always")
def _spent(box):
    """Take one unit (a conditional jump: every loop iteration makes one) from the budget in
    ``box[1]`` (``interrupts.py``); True when none is left."""
    left = box[1] - 1
    box[1] = left
    return left <= 0


@njit(inline="always")
def _condition(r, moved, tags, ints, floats):
    """A JumpZ/JumpNZ's test of register ``r``: 1 or 0, or -1 when ``r`` is not a scalar."""
    tag = tags[r]
    if _int_like(tag):
        value = int(ints[r] != 0)
    elif tag == FLOAT:
        value = int(floats[r] != 0.0)
    else:
        return -1
    if moved:
        tags[r] = EMPTY
    return value


@njit(cache=True, nogil=True, error_model="numpy")
def run_fast(pc, rows, tags, ints, floats, moves, int_data, const_tags, const_ints,
             const_floats, box):
    """Run from ``pc`` while the instructions are the scalar kinds above; return the pc of the
    first one left to the general loop, or of the next one when a conditional jump spent the
    last unit of the budget in ``box[1]`` (the general loop then looks at the clock). Every
    argument is a pointer or a number (no reference counts); a register whose tag is above
    NONE (a tensor, list or Python object) is never touched here. An int or bool register's
    float payload is never read (readers go by tag), so the int bodies do not write it."""
    while True:
        row = pc * WIDTH
        kind = rows[row + KIND]
        if kind >= F_ADD:
            # a op b -> out, and out2 = out when an Assign copying out follows (else out2 is out)
            a, b, out, out2 = rows[row + A], rows[row + B], rows[row + OUT], rows[row + RET]
            if not (_int_like(tags[a]) & _int_like(tags[b]) & (tags[out] <= NONE)
                    & (tags[out2] <= NONE)):
                return pc
            x, y, m = ints[a], ints[b], rows[row + MOVES]
            tag = INT
            if kind == F_ADD:
                i = x + y
            elif kind == F_SUB:
                i = x - y
            elif kind == F_REMAINDER_MASK:
                i = x & rows[row + OP]
            elif kind == F_FLOORDIV_SHIFT:
                i = x >> rows[row + OP]
            elif kind == F_MUL:
                i = x * y
            elif kind == F_FLOORDIV or kind == F_REMAINDER:
                if y == 0 or (x == _INT_MIN and y == -1):
                    return pc
                i = x // y if kind == F_FLOORDIV else x % y
            elif kind == F_LOGIC:
                i, tag = _truth(rows[row + OP], 2 * int(x != 0) + int(y != 0)), BOOL
            else:
                i, tag = _truth(rows[row + OP], 2 * int(x > y) + int(x == y)), BOOL
            # the output, then the moved inputs (the general loop's order), then the Assign
            tags[out], ints[out] = tag, i
            if moves[m]:
                tags[a] = EMPTY
            if moves[m + 1]:
                tags[b] = EMPTY
            if out2 != out:
                tags[out2], ints[out2] = tag, i
                if moves[m + 3]:
                    tags[out] = EMPTY
                drop = rows[row + DROP]
                if drop >= 0:
                    if tags[drop] > NONE:
                        return pc + 2
                    tags[drop] = EMPTY
                pc = rows[row + NEXT]
                continue
            pc += 1
            if kind == F_COMPARE_BRANCH:
                # the JumpZ/JumpNZ on out right after (its flag follows the op's output)
                if moves[m + 3]:
                    tags[out] = EMPTY
                if i == (rows[row + OP] >> 3):
                    pc = rows[row + TARGET]
                else:
                    pc += 1
                if _spent(box):
                    return pc
                continue
            if kind != F_COMPARE_ASSIGN_BRANCH:
                continue
            # the loop's back edge: the Assign carrying the condition, then its jump
            row = pc * WIDTH
            kind = F_ASSIGN_BRANCH
            start, size, cond = rows[row + A], rows[row + B], rows[row + RET]
            if moves[start] & moves[rows[row + MOVES]] & (tags[cond] <= NONE):
                # The condition only passes through its register: copy the other carried
                # values, leave both registers empty and branch on i.
                out_start = rows[row + OUT]
                if _scalar_pairs(tags, int_data, start, out_start, 1, size):
                    tags[out] = EMPTY
                    tags[cond] = EMPTY
                    _copy(tags, ints, floats, moves, int_data, start + 1, out_start + 1,
                          size - 1)
                    if i == rows[row + OP]:
                        pc = rows[row + TARGET]
                    else:
                        pc += 2   # past the Assign and its jump
                    if _spent(box):
                        return pc
                    continue
        if kind == F_ASSIGN or kind == F_ASSIGN_BRANCH:
            if not _assign(rows, row, tags, ints, floats, moves, int_data):
                return pc
            pc += 1
            if kind == F_ASSIGN_BRANCH:
                value = _condition(rows[row + RET], moves[rows[row + MOVES]], tags, ints,
                                   floats)
                if value < 0:
                    return pc
                # a branch, not a select: the target is loaded on the taken path only
                if value == rows[row + OP]:
                    pc = rows[row + TARGET]
                else:
                    pc += 1
                if _spent(box):
                    return pc
        elif kind == F_BINARY:
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
            value = _condition(rows[row + A], moves[rows[row + MOVES]], tags, ints, floats)
            if value < 0:
                return pc
            if value == (kind == F_JUMPNZ):
                pc = rows[row + TARGET]
            else:
                pc += 1
            if _spent(box):
                return pc
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
