"""The jitclass ``InterpreterState``: driven by hand, shared by threads, built without compiling.

The oracle is the reference engine run on the same ``Code``."""

from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pytest
from numba import njit
from numba.core import event
from numba.core.errors import TypingError

from fusejit import InterpreterError, parse_ir
from fusejit.examples import WHILE_IF
from fusejit.runtime.code import Code
from fusejit.runtime.interpreter import NativeInterpreter, _load
from fusejit.runtime.native import bodies
from fusejit.runtime.native.opcodes import NativeOp
from fusejit.runtime.native.registers import META_WIDTH, RegisterFile
from fusejit.runtime.native.slots import data
from fusejit.runtime.reference import InterpreterState as ReferenceState
from tests.runtime.conftest import nrt_live

balanced = pytest.mark.usefixtures("nrt_balanced")

TENSOR_LOOP = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %y : Tensor):
      %a : Tensor = aten::mul(%y, %y)
      %b : Tensor = aten::sub(%a, %y, %one)
      -> (%t, %b)
  return (%out)
"""


def reference(code: Code, *inputs) -> list:
    stack = list(inputs)
    ReferenceState(code).run(stack)
    return stack


@balanced
def test_the_state_is_a_numba_jitclass_instance():
    from numba.experimental.jitclass.base import JitClassType

    interpreter = NativeInterpreter(Code(parse_ir(WHILE_IF)))
    from fusejit.runtime.native.state import InterpreterState

    assert isinstance(InterpreterState, JitClassType)
    assert isinstance(interpreter.state, InterpreterState)


@balanced
def test_running_the_state_by_hand_stops_at_the_store_with_the_reference_result():
    native = _load()
    from fusejit.runtime.native.state import DONE, HOSTCALL

    code = Code(parse_ir(WHILE_IF))
    program = native.program_of(code)
    regs, pc_box, state = program.acquire()
    try:
        load = code.rows[0]
        assert code.kinds[0] == "prim::Load"
        regs.write(int(code.int_data[load[4]]), 37)
        pc_box[0] = 1
        assert state.run() == HOSTCALL                    # the Store is the host's
        store = code.rows[int(pc_box[0])]
        assert code.kinds[int(pc_box[0])] == "prim::Store"
        got = regs.read(int(code.int_data[store[2]]))
        assert [got] == reference(code, 37)
        pc_box[0] = len(code.instructions)
        assert state.run() == DONE                        # past the end: nothing to run
    finally:
        program.release(regs, pc_box, state)


@balanced
def test_states_share_one_compiled_loop_across_eight_threads():
    code = Code(parse_ir(TENSOR_LOOP))
    inputs = [(np.linspace(-1, 1, 16 + k).astype(np.float32), 5 + k) for k in range(8)]
    want = [reference(code, x, n) for x, n in inputs]
    got: list = [None] * len(inputs)
    errors: list = []

    def work(k: int) -> None:
        try:
            for _ in range(20):
                stack = list(inputs[k])
                NativeInterpreter(code).run(stack)
                got[k] = stack
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[0], w[0])


class _Compiles(event.Listener):
    def __init__(self):
        self.names: list[str] = []

    def on_start(self, ev):
        self.names.append(getattr(ev.data["dispatcher"], "__qualname__", "?"))

    def on_end(self, ev):
        pass


@balanced
def test_a_new_state_and_its_first_run_compile_nothing_once_one_has_run():
    NativeInterpreter(Code(parse_ir(WHILE_IF))).run([3])     # the jitclass is compiled now
    listener = _Compiles()
    code = Code(parse_ir(TENSOR_LOOP))   # another Code: a new program, a new state
    stack = [np.ones(4, np.float32), 3]
    with event.install_listener("numba:compile", listener):
        NativeInterpreter(code).run(stack)
    assert listener.names == []
    np.testing.assert_array_equal(stack[0], reference(code, np.ones(4, np.float32), 3)[0])


@balanced
def test_the_python_face_of_a_state_exposes_only_run():
    interpreter = NativeInterpreter(Code(parse_ir(WHILE_IF)))
    face = type(interpreter.state)
    assert callable(face.run)
    # A getter per field would be compiled on the first boxing (~70 ms each, 26 fields).
    assert not hasattr(face, "tags") and not hasattr(face, "pc_box")


HUGE_PRODUCT = """graph(%x : Tensor):
  %s : int[] = prim::Constant[value=[4194304, 4194304]]()
  %f : bool = prim::Constant[value=0]()
  %e : Tensor = aten::expand(%x, %s, %f)
  %y : Tensor = aten::mul(%e, %e)
  return (%y)
"""


def test_an_allocation_failing_inside_the_loop_is_reported_like_the_reference():
    # expand makes a 2^44-element view for free; mul must allocate 64 TiB and cannot. The op
    # body raises inside the loop; the driver runs that instruction on the host, which raises
    # NumPy's MemoryError, reported at the node as the reference engine reports it.
    code = Code(parse_ir(HUGE_PRODUCT))
    x = np.ones((1, 1), np.float32)

    def errors() -> list:
        found = []
        for engine in (NativeInterpreter, ReferenceState):
            with pytest.raises(InterpreterError) as info:
                engine(code).run([x])
            found.append(info.value)
        return found

    native, reference = errors()
    assert str(native) == str(reference)
    assert "aten::mul" in str(native) and isinstance(native.__cause__, MemoryError)
    # Numba does not release what a function holds when it raises. Here that is one small
    # allocation per failure (measured), and references that keep the pooled register file
    # alive (emptied all the same) once the Code is gone. (The counts need the NRT's
    # statistics, which only the nrt_balanced fixture turned on: run alone, this test had none.)
    from numba.core.runtime import _nrt_python

    _nrt_python.memsys_enable_stats()
    gc.collect()
    before = nrt_live()
    for _ in range(10):
        errors()
    gc.collect()
    leaked = [b - a for a, b in zip(before, nrt_live())]
    assert all(n <= 10 * 4 for n in leaked), leaked


@njit
def _unary_body(table, regs, op, ra, out):
    return bodies.UNARY(data(table), regs, op, ra, out)


def _register_tuple(regs: RegisterFile) -> tuple:
    return (regs.tags, regs.ints, regs.floats, regs.meta, *regs.lists(),
            np.zeros((3, META_WIDTH), np.int64))


def test_a_body_called_through_its_address_runs_and_its_exceptions_reach_the_caller():
    # ``bodies.UNARY`` calls ``dispatch._unary`` at its address in the table. Register 0 holds
    # a 2^46-element broadcast view (free); its negation must allocate 256 TiB, and the body's
    # MemoryError comes back through the call as it came through a linked-in call.
    regs = RegisterFile(4)
    x = np.linspace(-2, 2, 7).astype(np.float32)
    regs.write(0, np.broadcast_to(x[:1], (1 << 23, 1 << 23)))
    regs.write(1, x)
    table = bodies.addresses()
    assert _unary_body(table, _register_tuple(regs), int(NativeOp.NEG), 1, 2)
    np.testing.assert_array_equal(regs.read(2), np.negative(x))
    assert not _unary_body(table, _register_tuple(regs), int(NativeOp.NEG), 3, 2)   # empty
    with pytest.raises(MemoryError):
        _unary_body(table, _register_tuple(regs), int(NativeOp.NEG), 0, 3)
    regs.reset()


def test_a_call_through_an_address_refuses_arguments_its_body_does_not_take():
    @njit
    def float_op(table, regs):
        return bodies.UNARY(data(table), regs, 1.5, 0, 1)   # op: an int64 parameter

    with pytest.raises(TypingError):
        float_op(bodies.addresses(), _register_tuple(RegisterFile(2)))


class _FailingOnce:
    """A state whose first ``run`` raises ``error`` (as a native op body would, with nothing
    changed and the pc on its instruction); later runs are the real state's."""

    def __init__(self, real, error: BaseException):
        self.real, self.error, self.calls = real, error, 0

    def run(self):
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return self.real.run()


def test_a_failed_native_allocation_runs_that_instruction_on_the_host():
    code = Code(parse_ir(TENSOR_LOOP))   # its own program: the stub never reaches a pool
    x = np.arange(4, dtype=np.float32)
    interpreter = NativeInterpreter(code)
    interpreter.state = _FailingOnce(interpreter.state, MemoryError("no room"))
    stack = [x, 3]
    interpreter.run(stack)
    np.testing.assert_array_equal(stack[0], reference(code, x, 3)[0])
    assert interpreter.state is None and interpreter.host_calls == 3   # Load, that op, Store


@pytest.mark.parametrize("error", [RuntimeError("boom"), ValueError("bad size")])
def test_any_other_exception_from_the_loop_is_reported_at_its_node(error):
    code = Code(parse_ir(TENSOR_LOOP))
    interpreter = NativeInterpreter(code)
    interpreter.state = _FailingOnce(interpreter.state, error)
    with pytest.raises(InterpreterError) as info:
        interpreter.run([np.ones(4, np.float32), 3])
    assert interpreter.regs is None   # the run ended: its registers went back, emptied
    message = str(info.value)
    assert "operation failed in interpreter" in message and str(error) in message
    assert info.value.__cause__ is error
    assert info.value.node is code.nodes[1]   # where the loop stopped: the first after Load


@balanced
def test_the_loop_releases_the_gil_while_it_runs():
    # A thread runs a long scalar loop natively (~1 s); this thread sleeps 0.2 s and then
    # needs the GIL to go on, which it gets before the loop ends only if the loop let go.
    code = Code(parse_ir(WHILE_IF))
    NativeInterpreter(code).run([3])
    started = threading.Event()
    result: list = []

    def long_run() -> None:
        started.set()
        stack = [40_000_000]
        NativeInterpreter(code).run(stack)
        result.append(stack[0])

    runner = threading.Thread(target=long_run)
    runner.start()
    started.wait()
    time.sleep(0.2)
    woke_first = runner.is_alive()
    runner.join()
    assert woke_first, "the native loop held the GIL"
    # even k add k, odd k subtract 1: for an even n, h(h - 1) - h with h = n / 2
    closed = lambda n: (n // 2) * (n // 2 - 1) - n // 2  # noqa: E731
    assert reference(code, 10) == [closed(10)] and result == [closed(40_000_000)]


def _loop_with(native_ops: int, host_ops: int) -> str:
    body = [f"%a{i} : Tensor = aten::mul({'%y' if i == 0 else f'%a{i - 1}'}, %x)"
            for i in range(native_ops)]
    last = f"%a{native_ops - 1}"
    for j in range(host_ops):
        body.append(f"%e{j} : Tensor = aten::erf({last})")   # erf: no native body
        last = f"%e{j}"
    lines = "\n      ".join(body)
    return f"""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %y : Tensor):
      {lines}
      -> (%t, {last})
  return (%out)
"""


@pytest.mark.parametrize("native_ops, host_ops, engine", [
    (1, 1, "reference"), (3, 1, "reference"), (4, 1, "native"), (8, 2, "native"),
    (7, 2, "reference"), (4, 0, "native")])
def test_auto_takes_the_native_loop_when_host_ops_are_few(native_ops, host_ops, engine):
    import fusejit

    fn = fusejit.compile(parse_ir(_loop_with(native_ops, host_ops)))
    x = np.linspace(-1, 1, 8).astype(np.float32)
    assert fn.plan_for(fn.check_inputs([x, 3])).engine == engine
    code = Code(parse_ir(_loop_with(native_ops, host_ops)))
    stack = [x, 3]
    NativeInterpreter(code).run(stack)
    np.testing.assert_array_equal(stack[0], reference(code, x, 3)[0])
