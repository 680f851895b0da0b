"""The native interpreter: a Numba loop over a ``Code``'s integer encoding, and its driver.

``InterpreterState`` (``native/state.py``, a Numba jitclass) holds the pc, the scalar banks
(int64, float64, bool as int64), the tensor register file and the code arrays; ``run``
executes instructions natively (``native/loop.py``, cached on disk) until the program ends or
an instruction needs Python, and then returns ``HOSTCALL``. ``NativeInterpreter`` (the
driver) runs that one instruction with the reference semantics (operator-library body, Python
op, fusion group, fork/wait), moving values between the native register file and Python, and
resumes at the next pc::

    graph(%x : Float(64), %n : int):         0, 1 = prim::Load            host: writes x, n
      ...                                    2 = aten::mul move(0), 1     native kernel
                                             3 = prim::PythonOp move(2)   host, then resume
                                              = prim::Store move(3)       host: reads result

Results are the reference engine's (``reference.py``); the ops whose native bodies may round
differently are listed in ``native/pointwise.py`` and ``native/tensor_ops.py``. Nothing is
compiled on import: the Numba functions load (or compile, the first time on a machine) on the
first native run.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..errors import FusejitError, InterpreterError
from . import futures, tiering
from .code import Code, Opcode
from .futures import Future
from .interrupts import YIELDED
from .reference import RunDriver, host_step, node_failure

_lock = threading.Lock()
_native: Any = None  # the lazily imported Numba side: see _load()


def _load() -> Any:
    """Import (and so load or compile) the native modules on first use."""
    global _native
    if _native is None:
        with _lock:
            if _native is None:
                from .native import program as native_program

                _native = native_program
    return _native


class NativeInterpreter(RunDriver):
    """One run of a :class:`Code` on the native engine (``run`` / ``run_async`` as in the
    reference engine's ``InterpreterState``)."""

    __slots__ = ("code", "program", "regs", "pc_box", "state", "future", "host_calls", "stage")

    def __init__(self, code: Code):
        if not isinstance(code, Code):
            raise FusejitError(f"NativeInterpreter needs a Code, got {type(code).__name__}")
        native = _load()
        self.code = code
        self.program = native.program_of(code)
        # The state shares pc_box with this driver: pc_box[0] is the pc on both sides.
        self.regs, self.pc_box, self.state = self.program.acquire()
        tiering.mark_built()
        self.future: Future | None = None
        self.host_calls = 0  # instructions the driver ran (Load and Store are two of them)
        self.stage = 0       # stages started by run_one_stage (0: run the whole code)

    def _run_impl(self, stack: list) -> bool:
        """Execute from pc. True when suspended on an unfinished future, False when finished."""
        try:
            return self._steps(stack)
        except BaseException:
            # A KeyboardInterrupt (raised while the native loop gave Python a turn) or an
            # error: the run is over, and its emptied registers serve the next run.
            self._finish()
            raise

    def _steps(self, stack: list) -> bool:
        code = self.code
        last = self._stop()
        pc_box = self.pc_box
        if pc_box[0] == 0 and len(stack) != code.n_inputs:
            return self._handle_error(InterpreterError(
                f"the graph takes {code.n_inputs} inputs, {len(stack)} were given"))
        on_host = self.program.on_host
        while True:
            pc = int(pc_box[0])
            # (A stage ends after its Store, which runs here, so the native loop never runs
            # past the end of a stage.)
            if pc < last and not on_host[pc]:   # (Load and Store never run natively)
                try:
                    if self.state.run() == YIELDED:
                        # Python's turn: a pending signal's handler runs at this jump (a
                        # KeyboardInterrupt ends the run); else the loop resumes at pc.
                        continue
                except MemoryError:
                    # A native op body could not allocate its result. It changed nothing, and
                    # pc_box[0] is on its instruction: the host runs it below, whose NumPy body
                    # allocates the same or raises NumPy's MemoryError at the node (as the
                    # reference engine does). Any other exception is a failure of that
                    # instruction, reported at its node.
                    pass
                except Exception as error:  # noqa: BLE001 - reported with its node, below
                    return self._handle_error(*node_failure(error, code, int(pc_box[0])))
                pc = int(pc_box[0])
            if pc >= last:
                break
            self.host_calls += 1
            try:
                if self._host_step(pc, stack):
                    return True
            except Exception as error:  # noqa: BLE001 - every failure is reported with its node
                return self._handle_error(*node_failure(error, code, pc))
        if last < len(code.instructions):
            return False   # a stage ended; the registers wait for the next one
        self._finish()
        if self.future is not None:
            outputs = tuple(stack[len(stack) - code.n_outputs:])
            self.future.mark_completed(outputs[0] if code.n_outputs == 1 else outputs)
        return False

    def _host_step(self, pc: int, stack: list) -> bool:
        """Run instruction ``pc`` in Python (``reference.host_step``, moving values between the
        register file and Python); True when it suspends on an unfinished future."""
        code, regs = self.code, self.regs
        row = code.rows[pc]
        opcode = row[0]
        ins, out_registers = code.operands[pc]
        args = [regs.take(register, moved) for register, moved in ins]
        outs, new_pc = host_step(code, pc, row, args, stack, _run_call, fork)
        if outs is None:   # aten::wait on an unfinished future: it runs again on resumption
            if ins[0][1]:
                regs.write(ins[0][0], args[0])
            self._suspend(args[0])
            return True
        if opcode == Opcode.OP and self.program.kernels:
            self.program.bind_kernel(pc, args)
        for i, register in enumerate(out_registers):
            regs.write(register, outs[i])
        if opcode != Opcode.LOAD and opcode != Opcode.STORE:
            # (A Load only fills registers the run has not used yet; a Store ends the run,
            # which empties the register file.)
            regs.prune_origins()
        self.pc_box[0] = new_pc
        return False

    def _finish(self) -> None:
        """The run is over (ended or failed): its registers, emptied, and its state serve the
        next run of this code; this driver keeps only a pc past the end."""
        if self.regs is not None:
            self.program.release(self.regs, self.pc_box, self.state)
            self.regs = self.state = None
            self.pc_box = np.array([len(self.code.instructions)], np.int64)

    def _suspend(self, future: Future) -> None:
        self.get_or_create_future()
        # The wait runs again on resumption and reads its input then; pc stays on it.
        future.add_callback(lambda: futures.submit(self._resume))

    def _handle_error(self, error: FusejitError, cause: BaseException | None = None) -> bool:
        self._finish()   # emptied: nothing of a failed run stays alive
        if self.future is not None:
            error.__cause__ = cause if cause is not None else error.__cause__
            self.future.set_error(error)
            return False
        if cause is None:
            raise error
        raise error from cause


def _run_call(subcode: Code, stack: list) -> None:
    NativeInterpreter(subcode).run(stack)


def fork(code: Code, args: list) -> Future:
    """Run ``code`` on ``args`` in the fork pool with the native engine; returns its future."""
    interpreter = NativeInterpreter(code)
    future = interpreter.get_or_create_future()
    stack = list(args)
    futures.submit(lambda: _run_forked(interpreter, stack))
    return future


def _run_forked(interpreter: NativeInterpreter, stack: list) -> None:
    try:
        interpreter.run_async(stack)
    except BaseException as error:  # noqa: BLE001 - a pool task must report, never raise
        if not interpreter.future.completed():
            interpreter.future.set_error(InterpreterError(f"forked task failed: {error}"))


def run(code: Code, stack: list) -> None:
    """Run ``code`` on the native engine: ``stack`` holds the inputs before, outputs after."""
    NativeInterpreter(code).run(stack)


__all__ = ["NativeInterpreter", "fork", "run", "np"]
