"""The reference interpreter: a short pure-Python loop over a :class:`~.code.Code`.

It is the executable specification of the instruction set; every faster engine must agree with
it. One ``InterpreterState`` is one call: it owns the registers and the program counter, so
threads share a ``Code`` but never a state::

    code = Code(parse_ir('''graph(%x : Tensor):
      %y : Tensor = aten::exp(%x)
      return (%y)'''))
    stack = [np.ones(3)]
    InterpreterState(code).run(stack)     # stack == [exp(ones(3))]

``run_async(stack)`` returns a :class:`~.futures.Future`: when the program meets ``aten::wait``
on an unfinished future it suspends, keeping its pc and registers, and a continuation on the fork
pool resumes it when that future completes (interpreter.cpp's Suspend / InterpreterContinuation).
A failing instruction raises :class:`~fusejit.InterpreterError` naming the node and its source
location ("operation failed in interpreter"), with the original exception chained;
``prim::RaiseException`` keeps its class, :class:`~fusejit.JITException`.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Sequence
from typing import Any

from ..errors import FusejitError, InterpreterError, JITException
from . import futures
from .code import Code, Opcode, _node_error
from .futures import Future


class _ForkedError(Exception):
    """A waited-on future failed: re-raise its error as is, not as a failure of ``wait``."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


class RunDriver:
    """What both engines share around their instruction loop: ``run`` to the end, ``run_async``
    returning a future, and resumption after a suspension. Subclasses hold ``code`` and
    ``future`` and define ``_run_impl(stack) -> bool`` (True when suspended)."""

    __slots__ = ()

    def get_or_create_future(self) -> Future:
        if self.future is None:
            self.future = Future()
        return self.future

    def run(self, stack: list) -> None:
        """Run to the end: ``stack`` holds the inputs before and the outputs after."""
        if self._run_impl(stack):
            result = self.future.wait()
            stack.clear()
            stack.extend(result if self.code.n_outputs != 1 else (result,))

    def run_async(self, stack: list) -> Future:
        """Run until done or suspended; the future completes with the output (a tuple if not 1)."""
        future = self.get_or_create_future()
        self._run_impl(stack)
        return future

    def _resume(self) -> None:
        self._run_impl([])

    def run_one_stage(self, stack: list) -> None:
        """Run the next stage of staged code (interpreter.cpp's ``runOneStage``): ``stack``
        holds that stage's inputs before and its outputs after; the registers, and so every
        value a later stage reads, stay in this state between stages."""
        ends = self.code.stage_ends
        if self.stage >= len(ends):
            raise InterpreterError(f"the code has {len(ends)} stage(s), all of them run")
        self.stage += 1
        if self._run_impl(stack):
            raise InterpreterError("a staged run may not suspend on aten::wait")

    def _stop(self) -> int:
        """Where ``_run_impl`` stops: the end of the stage being run, else of the code."""
        return self.code.stage_ends[self.stage - 1] if self.stage else len(self.code.rows)


class InterpreterState(RunDriver):
    """The registers and pc of one run of a :class:`Code` (interpreter.cpp's InterpreterState)."""

    __slots__ = ("code", "pc", "registers", "future", "stage")

    def __init__(self, code: Code):
        if not isinstance(code, Code):
            raise FusejitError(f"InterpreterState needs a Code, got {type(code).__name__}")
        self.code = code
        self.pc = 0
        self.registers: list[Any] = [None] * code.register_size
        self.future: Future | None = None
        self.stage = 0   # stages started by run_one_stage (0: run the whole code)

    def _run_impl(self, stack: list) -> bool:
        """Execute from pc. True when suspended on an unfinished future, False when finished."""
        code = self.code
        instructions, operands = code.rows, code.operands
        operations, constants = code.operations, code.constants
        registers = self.registers
        last = self._stop()
        pc = self.pc
        if pc == 0 and len(stack) != code.n_inputs:
            return self._handle_error(InterpreterError(
                f"the graph takes {code.n_inputs} inputs, {len(stack)} were given"))
        # (pc is kept in a local and stored in self.pc when the loop leaves: on suspension,
        # at the end, and by _handle_error)
        while pc < last:
            row = instructions[pc]
            ins, out_registers = operands[pc]
            try:
                args = []
                for register, moved in ins:
                    args.append(registers[register])
                    if moved:
                        registers[register] = None
                opcode = row[0]
                # (host_step's commonest cases, inlined)
                if opcode == _OP:
                    outs = operations[row[1]](*args)
                    if len(outs) != row[5]:
                        raise _count_error(outs, row[5])
                    new_pc = pc + 1
                elif opcode == _CONSTANT:
                    outs = (constants[row[1]],)
                    new_pc = pc + 1
                elif opcode == _STORE:
                    stack.extend(args)
                    outs, new_pc = (), pc + 1
                else:
                    outs, new_pc = host_step(code, pc, row, args, stack, _run_call, fork)
                    if outs is None:
                        self.pc = pc
                        self._suspend(args[0], row[2])
                        return True
                for i, register in enumerate(out_registers):
                    registers[register] = outs[i]
                pc = new_pc
            except Exception as error:  # noqa: BLE001 - every failure is reported with its node
                return self._handle_error(*node_failure(error, code, pc))
        self.pc = pc
        if self.future is not None and last == len(instructions):
            outputs = tuple(stack[len(stack) - code.n_outputs:])
            self.future.mark_completed(outputs[0] if code.n_outputs == 1 else outputs)
        return False

    def _suspend(self, future: Future, in_start: int) -> None:
        self.get_or_create_future()
        if self.code.bool_data[in_start]:
            # The wait re-runs on resumption and reads its input again.
            self.registers[int(self.code.int_data[in_start])] = future
        # Last, so a future that completes meanwhile cannot resume us before we have returned.
        future.add_callback(lambda: futures.submit(self._resume))

    def _handle_error(self, error: FusejitError, cause: BaseException | None = None) -> bool:
        # Registers are dropped so nothing stays alive after a failed run.
        self.registers = [None] * len(self.registers)
        self.pc = len(self.code.instructions)
        if self.future is not None:
            error.__cause__ = cause if cause is not None else error.__cause__
            self.future.set_error(error)
            return False
        if cause is None:
            raise error
        raise error from cause


def host_step(code: Code, pc: int, row: Sequence[int], args: list, stack: list, call,
              fork_code) -> tuple:
    """Run instruction ``pc`` of ``code`` (its ``row``) on ``args`` (its inputs, already read
    and their moved registers emptied): ``(outputs, next pc)``, or ``(None, pc)`` for an
    ``aten::wait`` on an unfinished future (the engine suspends; the wait runs again on
    resumption). The one dispatch over opcodes of both engines: the reference loop runs every
    instruction here, the native driver those its loop leaves to the host.
    ``call(subcode, stack)`` and ``fork_code(subcode, args)`` run a subprogram on the calling
    engine."""
    opcode, arg, _, _, _, out_size = row
    new_pc = pc + 1
    if opcode == Opcode.OP:
        outs = code.operations[arg](*args)
        if len(outs) != out_size:
            raise _count_error(outs, out_size)
    elif opcode == Opcode.CONSTANT:
        outs = (code.constants[arg],)
    elif opcode == Opcode.ASSIGN:
        outs = args
    elif opcode == Opcode.JUMPNZ:
        outs = ()
        if args[0]:
            new_pc += arg
    elif opcode == Opcode.JUMPZ:
        outs = ()
        if not args[0]:
            new_pc += arg
    elif opcode == Opcode.JUMP:
        outs = ()
        new_pc += arg
    elif opcode == Opcode.LOAD:
        outs = stack[len(stack) - out_size:]
        del stack[len(stack) - out_size:]
    elif opcode == Opcode.STORE:
        stack.extend(args)
        outs = ()
    elif opcode == Opcode.DROP:
        outs = ()
    elif opcode == Opcode.CALL:
        outs = list(args)
        call(code.subcodes[arg], outs)
    elif opcode == Opcode.FORK:
        outs = (fork_code(code.subcodes[arg], args),)
    elif opcode == Opcode.WAIT:
        future = args[0]
        if not isinstance(future, Future):
            raise InterpreterError(f"aten::wait needs a Future, got {type(future).__name__}")
        if not future.completed():
            return None, pc
        if future.error is not None:
            raise _ForkedError(future.error)
        outs = (future.value(),)
    else:
        raise InterpreterError(f"unknown opcode {opcode}")
    return outs, new_pc


_OP, _CONSTANT, _STORE = int(Opcode.OP), int(Opcode.CONSTANT), int(Opcode.STORE)
_DROP = int(Opcode.DROP)


class SingleOperation:
    """Code that loads its inputs, runs one operation on them and stores that operation's
    outputs as they are: a plan that fused into one group (``np.exp(-x) * y + 1``), after the
    drops of the inputs it does not read, if any. ``run`` does what the loop does for it
    without the loop (~2 us less a call, against a fused kernel's ~1.5 us), failing as the
    loop fails; ``of(code)`` is None for any other code."""

    __slots__ = ("code", "index", "take", "n_outputs", "pc")

    def __init__(self, code: Code, index: int, positions: tuple[int, ...], n_outputs: int,
                 pc: int = 1):
        self.code = code
        self.index = index                  # (read at each run, as the loop reads it)
        # the operation's inputs from the stack (None: the stack as it is)
        self.take = None if positions == tuple(range(code.n_inputs)) else \
            operator.itemgetter(*positions) if len(positions) > 1 else \
            (lambda stack, at=positions[0]: (stack[at],)) if positions else \
            (lambda stack: ())
        self.n_outputs = n_outputs
        self.pc = pc                        # (the operation's instruction)

    @classmethod
    def of(cls, code: Code) -> SingleOperation | None:
        rows = code.rows
        opcodes = [row[0] for row in rows]
        if len(opcodes) < 3 or opcodes[0] != Opcode.LOAD or opcodes[-2:] != [_OP, _STORE] \
                or any(op != _DROP for op in opcodes[1:-2]):
            return None
        loaded = code.operands[0][1]
        pc = len(rows) - 2
        ins, outs = code.operands[pc]
        stored = tuple(register for register, _moved in code.operands[pc + 1][0])
        read = {register for register, _moved in ins}
        dropped = [register for k in range(1, pc) for register, _moved in code.operands[k][0]]
        if len(set(loaded)) != len(loaded) or len(loaded) != code.n_inputs \
                or stored != outs or len(outs) != rows[pc][5] or not read <= set(loaded) \
                or not set(dropped) <= set(loaded) - read:
            return None
        return cls(code, rows[pc][1],
                   tuple(loaded.index(register) for register, _moved in ins), len(outs), pc)

    def run(self, stack: list) -> None:
        """As ``InterpreterState(code).run(stack)``."""
        if len(stack) != self.code.n_inputs:
            InterpreterState(self.code).run(stack)      # (its error)
            return
        stack[:] = self.outputs(stack)

    def outputs(self, inputs: Sequence) -> Sequence:
        """The code's outputs for its ``inputs`` (as many as it takes: the caller's test),
        without a stack (``runtime/remembered.py``); the loop's error where it fails."""
        try:
            outs = self.code.operations[self.index](
                *(inputs if self.take is None else self.take(inputs)))
            if len(outs) != self.n_outputs:
                raise _count_error(outs, self.n_outputs)
        except Exception as error:  # noqa: BLE001 - reported with its node, as the loop does
            failure, cause = node_failure(error, self.code, self.pc)
            if cause is None:
                raise failure  # noqa: B904 - as _handle_error raises it
            raise failure from cause
        return outs

    def group(self) -> Any:
        """The operation where it runs a fusion group's kernel (``executor.GroupOperation``),
        on the inputs ``take`` picks, else None."""
        # (executor.py imports this module; by name here, so that the kernel-cache digest,
        # which follows import statements, does not take the executor and what it imports for
        # modules the native loop's compiled code reads)
        executor = importlib.import_module(f"{__package__}.executor")
        operation = self.code.operations[self.index]
        return operation if isinstance(operation, executor.GroupOperation) else None


def _count_error(outs, out_size: int) -> InterpreterError:
    return InterpreterError(f"the operation returned {len(outs)} values, expected {out_size}")


def node_failure(error: Exception, code: Code, pc: int) -> tuple[FusejitError, Exception | None]:
    """The error an engine reports when instruction ``pc`` failed with ``error``, and its cause:
    "operation failed in interpreter" at the node and its source location (a forked task's
    error, re-raised by its wait, keeps its class; ``prim::RaiseException``'s too)."""
    if isinstance(error, _ForkedError):
        return _rethrown(error.error, code, pc), None
    cls = JITException if isinstance(error, JITException) else InterpreterError
    return _node_error(cls, "operation failed in interpreter", code.nodes[pc], error), error


def _run_call(subcode: Code, stack: list) -> None:
    InterpreterState(subcode).run(stack)


def _rethrown(error: BaseException, code: Code, pc: int) -> FusejitError:
    """A forked task's error, raised again by the ``wait`` that read it, keeping its class."""
    cls = type(error) if isinstance(error, FusejitError) else InterpreterError
    where = code.source_ranges[pc]
    try:
        new = cls(f"{error}\n(raised in a forked task, waited for at {where or 'unknown'})")
    except TypeError:
        new = InterpreterError(f"{error}\n(raised in a forked task)")
    new.__cause__ = error
    return new


def fork(code: Code, args: list) -> Future:
    """Run ``code`` on ``args`` in the fork pool; returns its future at once."""
    state = InterpreterState(code)
    future = state.get_or_create_future()
    stack = list(args)
    futures.submit(lambda: _run_forked(state, stack))
    return future


def _run_forked(state: InterpreterState, stack: list) -> None:
    try:
        state.run_async(stack)
    except BaseException as error:  # noqa: BLE001 - a pool task must report, never raise
        if not state.future.completed():
            state.future.set_error(InterpreterError(f"forked task failed: {error}"))
