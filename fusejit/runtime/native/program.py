"""A ``Code`` prepared for the native loop, and the state that runs it.

``program_of(code)`` adds what the loop needs beside ``instructions`` / ``int_data`` /
``bool_data``: a native op id and two static parameters per instruction (-1: run on the host),
and the constant table split into banks (int, float, bool, None and immutable int lists run
natively; tensors, strings and other objects are written by the host)::

    %two : int = prim::Constant[value=2]()        const_tags[k] = INT, const_ints[k] = 2
    %w : int = aten::mul(%v, %two)                native_op[pc] = S_MUL, params = (RET_INT, 0)

It is built once per ``Code`` and shared by every run and thread (it is read-only).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import List

from ..code import Code, Opcode
from .loop import run_loop
from .registers import BOOL, FLOAT, ILIST, INT, META_WIDTH, NONE, PY, RegisterFile
from .table import native_op_for, read_only_use

__all__ = ["InterpreterState", "NativeProgram", "RegisterFile", "new_state", "program_of"]


class NativeProgram:
    """The native tables of one ``Code`` (see the module docstring)."""

    __slots__ = ("native_op", "op_params", "const_tags", "const_ints", "const_floats",
                 "const_ilists", "scratch", "total_registers", "bool_data", "instructions",
                 "int_data")

    def __init__(self, code: Code):
        n = len(code.instructions)
        self.native_op = np.full(n, -1, np.int64)
        self.op_params = np.zeros((n, 2), np.int64)
        const_nodes = {}
        width = 1
        for pc, row in enumerate(code.rows):
            opcode, arg = row[0], row[1]
            node = code.nodes[pc]
            # A Code built with its own make_operation (tests, other engines) keeps its callables.
            if opcode == Opcode.OP and node is not None and node.kind != "prim::PythonOp" \
                    and node.kind != "prim::Constant" and code._make_operation is None:
                op, p0, p1 = native_op_for(node)
                self.native_op[pc] = op
                self.op_params[pc] = p0, p1
            elif opcode == Opcode.CONSTANT:
                const_nodes[arg] = node
            elif opcode == Opcode.ASSIGN:
                width = max(width, row[3], row[5])
                self.op_params[pc, 0] = _direct_assign(code, row)
        k = len(code.constants)
        self.const_tags = np.full(k, PY, np.int64)
        self.const_ints = np.zeros(k, np.int64)
        self.const_floats = np.zeros(k, np.float64)
        self.const_ilists = List.empty_list(types.int64[::1])
        for i, value in enumerate(code.constants):
            kind = type(value)
            empty = np.empty(0, np.int64)
            if kind is bool:
                self.const_tags[i], self.const_ints[i] = BOOL, value
            elif kind is int and -(1 << 63) <= value < (1 << 63):
                self.const_tags[i], self.const_ints[i] = INT, value
            elif kind is float:
                self.const_tags[i], self.const_floats[i] = FLOAT, value
            elif value is None:
                self.const_tags[i] = NONE
            elif kind is list and _immutable_int_list(value, const_nodes.get(i)):
                self.const_tags[i] = ILIST
                empty = np.array(value, np.int64)
            self.const_ilists.append(empty)
        self.scratch = code.register_size
        self.total_registers = code.register_size + width
        # The Code's own array, not a copy: a caller that edits the move flags (a test that
        # turns liveness off) is seen by every later run.
        self.bool_data = np.ascontiguousarray(code.bool_data, np.bool_)
        self.instructions = np.ascontiguousarray(code.instructions, np.int64)
        self.int_data = np.ascontiguousarray(code.int_data, np.int64)


def _direct_assign(code: Code, row: list[int]) -> int:
    """1 when an Assign can copy input k to output k in order: no output is read later as an
    input, and no input moved earlier is an output later (else it goes through scratch)."""
    ins = [int(r) for r in code.int_data[row[2]:row[2] + row[3]]]
    outs = [int(r) for r in code.int_data[row[4]:row[4] + row[5]]]
    moves = [bool(m) for m in code.bool_data[row[2]:row[2] + row[3]]]
    if len(ins) != len(outs):
        return 0
    if any(moves[k] and ins[k] in ins[k + 1:] for k in range(len(ins))):
        return 0
    for k, dst in enumerate(outs):
        if dst in ins[k + 1:]:
            return 0
        if any(moves[j] and ins[j] == dst and j != k for j in range(k)):
            return 0
    return 1


def _immutable_int_list(value: list, node) -> bool:
    if node is None or not all(type(x) is int and -(1 << 63) <= x < (1 << 63) for x in value):
        return False
    return all(read_only_use(use.user) for use in node.output().uses)


def program_of(code: Code) -> NativeProgram:
    """The native tables of ``code``, built on first use and kept on it."""
    program = getattr(code, "_native_program", None)
    if program is None:
        program = code._native_program = NativeProgram(code)
    return program


class InterpreterState:
    """The pc, scalar banks, tensor register file and code arrays of one native run.

    ``run`` calls the cached ``run_loop`` directly. It is not a Numba jitclass: a jitclass is
    compiled again in every process, and one whose method calls ``run_loop`` took 9.4 s to
    build per process here (7.3 s with the loop passed as a first-class function), against
    0.2 s to load everything from the on-disk cache this way."""

    __slots__ = ("pc_box", "regs", "program", "tmp")

    def __init__(self, program: NativeProgram, regs: RegisterFile):
        self.pc_box = np.zeros(1, np.int64)
        self.regs = regs
        self.program = program
        self.tmp = np.zeros((3, META_WIDTH), np.int64)

    @property
    def pc(self) -> int:
        return int(self.pc_box[0])

    @pc.setter
    def pc(self, value: int) -> None:
        self.pc_box[0] = value

    def run(self) -> int:
        """Execute from pc; DONE at the end, HOSTCALL at an instruction for the host."""
        r, p = self.regs, self.program
        return run_loop(self.pc_box, r.tags, r.ints, r.floats, r.meta, self.tmp, r.b8, r.i64,
                        r.f32, r.f64, r.ilists, p.instructions, p.int_data, p.bool_data,
                        p.native_op, p.op_params, p.const_tags, p.const_ints, p.const_floats,
                        p.const_ilists, p.scratch)


def new_state(program: NativeProgram, regs: RegisterFile) -> InterpreterState:
    """A fresh ``InterpreterState`` over ``regs`` for ``program``'s code."""
    return InterpreterState(program, regs)
