"""A ``Code`` prepared for the native loop, and the state that runs it.

``program_of(code)`` adds what the loop needs beside ``instructions`` / ``int_data`` /
``bool_data``: a native op id and two static parameters per instruction (``NativeOp.HOST``: the
host runs it),
the constant table split into banks (int, float, bool, None and immutable int lists run
natively; tensors, strings and other objects are written by the host), and ``fast``, the
fixed-width rows of the scalar fast path (``fast.decode``)::

    %two : int = prim::Constant[value=2]()        const_tags[k] = INT, const_ints[k] = 2
    %w : int = aten::mul(%v, %two)                native_op[pc] = NativeOp.S_MUL, (RET_INT, 0)

It also gives every fusion group with a compiled CPU kernel a slot (``native_op = NativeOp.KERNEL
+ slot``, bound after the group's first host run: ``kernel_entry``), marks the fuser's
ListConstruct -> broadcast_tensors -> ListUnpack triples (``lists``), and pools register files
with their ``InterpreterState`` (``state``). It is built once per ``Code`` and shared by every
run and thread: only the slots (written once, under a lock) and the pool change. In a child
forked from a process whose threading layer breaks on fork (``runtime.forks``) the slots are
unbound again, and the next host run binds each to its serial entry.
"""

from __future__ import annotations

import threading
import warnings
import weakref

import numpy as np

from ...errors import InterpreterError
from ...ir.types import TensorType
from ..code import Code, Opcode
from ..forks import after_fork_in_child, serial_only
from ..interrupts import BUDGET
from .fast import decode
from .kernel_entry import (
    BOUND,
    ENTRY_SIGNATURE,
    HEADER,
    empty_rows,
    new_entries,
    set_entry,
)
from .kernel_entry import row_width as kernel_row_width
from .loop import PC_BOX_SIZE
from .opcodes import NativeOp
from .registers import BOOL, FLOAT, ILIST, INT, NONE, PY, RegisterFile, int_list_table
from .state import InterpreterState, new_state
from .state import loop_compiled as compiled_on_disk
from .table import native_op_for, read_only_use

_POOL_LIMIT = 4
# The host run of a fusion group after which its slot binds (``NativeProgram.bind_kernel``):
# the second. Binding compiles the kernel's native entry, which compiles the kernel once more
# inside it (about as long as the kernel itself took: a call of tests/frontend/
# test_numpy_ufuncs.py's 16 float64 groups compiled for 16 s through the host and 16 s more for
# the entries). A graph run once never calls the entries, nor does a ``jit`` signature, whose
# second call compiles the whole graph; a loop's group binds on its second iteration.
BIND_ON_RUN = 2

__all__ = ["InterpreterState", "NativeProgram", "RegisterFile", "compiled_on_disk", "new_state",
           "program_of"]


class NativeProgram:
    """The native tables of one ``Code`` (see the module docstring)."""

    __slots__ = ("native_op", "op_params", "const_tags", "const_ints", "const_floats",
                 "const_ilists", "scratch", "total_registers", "bool_data", "instructions",
                 "int_data", "kernels", "kernel_fns", "kernel_rows", "host_runs", "_bind_lock",
                 "on_host", "_pool", "fast", "__weakref__")

    def __init__(self, code: Code):
        n = len(code.instructions)
        self.native_op = np.full(n, NativeOp.HOST, np.int64)
        self.op_params = np.zeros((n, 2), np.int64)
        const_nodes = {}
        width = 1
        self.kernels: list = []           # slot -> FusedKernel
        row_width = HEADER
        for pc, row in enumerate(code.rows):
            opcode, arg = row[0], row[1]
            node = code.nodes[pc]
            kernel = native_kernel(code, pc)
            if kernel is not None:
                self.native_op[pc] = NativeOp.KERNEL + len(self.kernels)
                self.kernels.append(kernel)
                layout = kernel.layout
                row_width = max(row_width, kernel_row_width(
                    len(layout.tensor_index),
                    len(layout.operands) + sum(len(o.pieces) for o in layout.outputs),
                    len(layout.outputs)))
            # A Code built with its own make_operation (tests, other engines) keeps its callables.
            elif opcode == Opcode.OP and node is not None and node.kind != "prim::PythonOp" \
                    and node.kind != "prim::Constant" and code._make_operation is None:
                op, p0, p1 = native_op_for(node)
                self.native_op[pc] = op
                self.op_params[pc] = p0, p1
            elif opcode == Opcode.CONSTANT:
                const_nodes[arg] = node
            elif opcode == Opcode.ASSIGN:
                width = max(width, row[3], row[5])
                self.op_params[pc, 0] = _direct_assign(code, row)
        for pc in range(n):
            if _broadcast_triple(code, pc):
                self.native_op[pc] = NativeOp.BROADCAST_LIST
                self.op_params[pc] = pc + 2, 0
                self.native_op[pc + 1] = NativeOp.COVERED
        k = len(code.constants)
        self.const_tags = np.full(k, PY, np.int64)
        self.const_ints = np.zeros(k, np.int64)
        self.const_floats = np.zeros(k, np.float64)
        ilists = [[] for _ in code.constants]   # the ILIST constants' items, else empty
        for i, value in enumerate(code.constants):
            kind = type(value)
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
                ilists[i] = value
        bounds = np.cumsum([0] + [len(items) for items in ilists], dtype=np.int64)
        values = np.array([x for items in ilists for x in items], np.int64)
        self.const_ilists = int_list_table(values, bounds)
        self.scratch = code.register_size
        self.total_registers = code.register_size + width
        # The Code's own array, not a copy: a caller that edits the move flags (a test that
        # turns liveness off) is seen by every later run.
        self.bool_data = np.ascontiguousarray(code.bool_data, np.bool_)
        self.instructions = np.ascontiguousarray(code.instructions, np.int64)
        self.int_data = np.ascontiguousarray(code.int_data, np.int64)
        self.fast = decode(code, self.native_op, self.op_params, self.const_tags,
                           self.op_params[:, 0])
        self.kernel_fns = new_entries(len(self.kernels))
        self.kernel_rows = empty_rows(len(self.kernels), row_width)
        self.host_runs = np.zeros(len(self.kernels), np.int64)   # slot -> host runs so far
        self._bind_lock = threading.Lock()
        # Instructions only the host runs (entering the loop there would return at once);
        # one more entry for the end of the program.
        self.on_host = [row[0] in (Opcode.LOAD, Opcode.STORE) for row in code.rows] + [True]
        self._pool: list[tuple] = []
        if self.kernels:
            _WITH_KERNELS.add(self)

    def acquire(self) -> tuple[RegisterFile, np.ndarray, InterpreterState]:
        """An empty register file for one run, its pc (``pc_box[0]``, 0) and the jitclass
        state that runs this program over them. A released triple is reused when there is
        one: making the typed Lists costs about 15 us, the state about 10 us."""
        try:
            return self._pool.pop()
        except IndexError:
            regs = RegisterFile(self.total_registers)
            pc_box = np.zeros(PC_BOX_SIZE, np.int64)
            pc_box[1] = BUDGET   # (loop.py: the budget of jumps before the loop reads the clock)
            return regs, pc_box, new_state(self, regs, pc_box)

    def release(self, regs: RegisterFile, pc_box: np.ndarray, state: InterpreterState) -> None:
        """Take back what ``acquire`` gave, once its run has ended or failed: emptied (so
        nothing of a failed run stays alive, even while its traceback holds the register
        file), pc 0."""
        regs.reset()
        if len(self._pool) < _POOL_LIMIT:
            pc_box[0] = 0
            self._pool.append((regs, pc_box, state))

    def bind_kernel(self, pc: int, inputs: list) -> None:
        """After the host ran fusion group ``pc`` on ``inputs`` through its kernel, for the
        ``BIND_ON_RUN``-th time or later: let the loop call that kernel variant and plan itself
        from now on (see ``kernel_entry``)."""
        slot = int(self.native_op[pc]) - NativeOp.KERNEL
        if slot < 0 or self.kernel_rows[slot, BOUND]:
            return
        self.host_runs[slot] += 1
        if self.host_runs[slot] < BIND_ON_RUN:
            return
        with self._bind_lock:
            if self.kernel_rows[slot, BOUND]:
                return
            try:
                binding = self.kernels[slot].native_binding(*inputs)
                if binding is not None:
                    entry, row = binding
                    entry.compile(ENTRY_SIGNATURE)
                    set_entry(self.kernel_fns, slot, entry)
            except InterpreterError:
                return   # inputs the kernel declines (an np.matrix...): bind on a later run
            except Exception as why:  # noqa: BLE001 - binding only speeds up; the run goes on
                warnings.warn(f"a fused kernel keeps running through the host: its native "
                              f"entry failed ({type(why).__name__}: {why})", RuntimeWarning,
                              stacklevel=2)
                binding = None
            if binding is None:
                self.kernel_rows[slot, BOUND] = -1   # never bindable for this slot
                return
            self.kernel_rows[slot, 1:len(row)] = row[1:]
            self.kernel_rows[slot, BOUND] = 1        # last: a running loop sees a whole row


# Programs with kernel slots, for the fork handler (a Code's program lives as long as it).
_WITH_KERNELS: weakref.WeakSet[NativeProgram] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """In a forked child only this thread runs: a lock some other parent thread held would
    stay locked, and a slot bound to a parallel entry may have to give way to the serial one."""
    for program in list(_WITH_KERNELS):
        program._bind_lock = threading.Lock()
        if serial_only():
            bound = program.kernel_rows[:, BOUND] == 1
            program.kernel_rows[bound, BOUND] = 0   # the host runs them, then binds again


after_fork_in_child(_after_fork_in_child)


def _broadcast_triple(code: Code, pc: int) -> bool:
    """Do instructions pc .. pc + 2 make, broadcast and unpack a tensor list that nothing else
    sees, with registers ``lists.broadcast_list`` can write in any order?"""
    if pc + 2 >= len(code.rows) or code._make_operation is not None:
        return False
    nodes = code.nodes[pc:pc + 3]
    if any(node is None for node in nodes) or [node.kind for node in nodes] != [
            "prim::ListConstruct", "aten::broadcast_tensors", "prim::ListUnpack"]:
        return False
    make, broadcast, unpack = nodes
    if any(row[0] != Opcode.OP for row in code.rows[pc:pc + 3]):
        return False
    for producer, consumer in ((make, broadcast), (broadcast, unpack)):
        uses = producer.output().uses
        if len(uses) != 1 or uses[0].user is not consumer or len(consumer.inputs) != 1:
            return False
    if not all(isinstance(v.type, TensorType) for v in make.inputs):
        return False
    rows = code.rows
    registers = lambda start, size: [int(r) for r in code.int_data[start:start + size]]  # noqa: E731
    ins = registers(rows[pc][2], rows[pc][3])
    outs = registers(rows[pc + 2][4], rows[pc + 2][5])
    lists = registers(rows[pc][4], 1) + registers(rows[pc + 1][4], 1)
    moved = [bool(code.bool_data[rows[pc + 1][2]]), bool(code.bool_data[rows[pc + 2][2]])]
    return (len(ins) == len(outs) > 0 and all(moved)
            and not set(outs) & (set(ins) | set(lists)) and len(set(outs)) == len(outs))


def native_kernel(code: Code, pc: int):
    """The CPU ``FusedKernel`` that instruction ``pc`` runs (a fusion group the executor
    compiled), or None."""
    row = code.rows[pc]
    if row[0] != Opcode.OP or code._make_operation is not None:
        return None
    kernel = getattr(code.operations[row[1]], "kernel", None)
    if kernel is None or getattr(kernel, "xp", None) is not np \
            or not hasattr(kernel, "native_binding"):
        return None
    return kernel


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
