"""A ``Code`` prepared for the native loop, and the jitclass that runs it.

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
from numba.experimental import jitclass
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
            if opcode == Opcode.OP and node is not None and node.kind != "prim::PythonOp" \
                    and node.kind != "prim::Constant":
                op, p0, p1 = native_op_for(node)
                self.native_op[pc] = op
                self.op_params[pc] = p0, p1
            elif opcode == Opcode.CONSTANT:
                const_nodes[arg] = node
            elif opcode == Opcode.ASSIGN:
                width = max(width, row[3], row[5])
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
        self.bool_data = np.ascontiguousarray(code.bool_data, np.bool_)
        self.instructions = np.ascontiguousarray(code.instructions, np.int64)
        self.int_data = np.ascontiguousarray(code.int_data, np.int64)


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


_spec = [
    ("pc", types.int64), ("pc_box", types.int64[::1]), ("scratch", types.int64),
    ("tags", types.int64[::1]), ("ints", types.int64[::1]), ("floats", types.float64[::1]),
    ("meta", types.int64[:, ::1]), ("tmp", types.int64[:, ::1]),
    ("instructions", types.int64[:, ::1]), ("int_data", types.int64[::1]),
    ("bool_data", types.boolean[::1]), ("native_op", types.int64[::1]),
    ("op_params", types.int64[:, ::1]), ("const_tags", types.int64[::1]),
    ("const_ints", types.int64[::1]), ("const_floats", types.float64[::1]),
]


@jitclass(_spec)
class InterpreterState:
    """pc, scalar banks, tensor meta table and code arrays of one run. The buffer Lists are
    passed to ``run`` rather than held: a typed-List member makes the class cost seconds more
    to build in every process (a jitclass is never cached on disk)."""

    def __init__(self, tags, ints, floats, meta, instructions, int_data, bool_data, native_op,
                 op_params, const_tags, const_ints, const_floats, scratch):
        self.pc = 0
        self.pc_box = np.zeros(1, np.int64)
        self.scratch = scratch
        self.tags, self.ints, self.floats, self.meta = tags, ints, floats, meta
        self.tmp = np.zeros((3, META_WIDTH), np.int64)
        self.instructions, self.int_data, self.bool_data = instructions, int_data, bool_data
        self.native_op, self.op_params = native_op, op_params
        self.const_tags, self.const_ints, self.const_floats = const_tags, const_ints, \
            const_floats

    def run(self, b8, i64, f32, f64, ilists, const_ilists):
        """Execute from pc; DONE at the end, HOSTCALL at an instruction for the host."""
        self.pc_box[0] = self.pc
        regs = (self.tags, self.ints, self.floats, self.meta, b8, i64, f32, f64, ilists,
                self.tmp)
        program = (self.instructions, self.int_data, self.bool_data, self.native_op,
                   self.op_params, self.const_tags, self.const_ints, self.const_floats,
                   const_ilists, self.scratch)
        status = run_loop(self.pc_box, regs, program)
        self.pc = self.pc_box[0]
        return status


def new_state(program: NativeProgram, regs: RegisterFile) -> InterpreterState:
    """A fresh ``InterpreterState`` over ``regs`` for ``program``'s code."""
    return InterpreterState(regs.tags, regs.ints, regs.floats, regs.meta, program.instructions,
                            program.int_data, program.bool_data, program.native_op,
                            program.op_params, program.const_tags, program.const_ints,
                            program.const_floats, program.scratch)
