"""The interpreters: control flow, moves and liveness, errors, fork/wait, threads.

Every test runs on both engines (``engine`` below): the reference loop and the native one.

These tests do not depend on the operator library: the few ``aten::`` ops they use run through
``OPS`` below (plain Python/NumPy, the oracle), passed to ``Code`` as its ``make_operation``, and
Python callables run as ``prim::PythonOp`` nodes.
"""

from __future__ import annotations

import operator
import threading
import time
import tracemalloc

import numpy as np
import pytest

from fusejit import InterpreterError, JITException, parse_ir
from fusejit.ir.graph import Graph, SourceRange
from fusejit.ir.symbols import aten, prim
from fusejit.ir.types import TENSOR, FutureType
from fusejit.runtime.code import Code
from fusejit.runtime.futures import Future
from fusejit.runtime.interpreter import NativeInterpreter
from fusejit.runtime.python_op import create_python_op
from fusejit.runtime.reference import InterpreterState

STATES = {"native": NativeInterpreter, "reference": InterpreterState}
State = InterpreterState  # the engine of the running test (set by the fixture)


@pytest.fixture(params=sorted(STATES), autouse=True)
def engine(request, monkeypatch, nrt_balanced):
    monkeypatch.setitem(globals(), "State", STATES[request.param])
    return request.param


def _raise(message):
    raise JITException(message)


OPS = {
    "aten::lt": operator.lt, "aten::__and__": operator.and_, "aten::add": operator.add,
    "aten::mul": operator.mul, "aten::neg": operator.neg, "aten::exp": np.exp,
    "aten::mm": np.matmul, "prim::RaiseException": _raise,
}


def make_operation(node):
    fn = OPS[node.kind]
    return lambda *args: (fn(*args),) if node.outputs else (fn(*args), ())[1]


def run(code: Code, *inputs):
    stack = list(inputs)
    State(code).run(stack)
    return stack


def code_of(text: str) -> Code:
    return Code(parse_ir(text), make_operation=make_operation)


IF = """graph(%x : Tensor, %c : bool):
  %y : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::exp(%x)
      -> (%a)
    block1():
      %b : Tensor = aten::neg(%x)
      -> (%b)
  return (%y, %x)
"""


@pytest.mark.parametrize("cond", [True, False])
def test_if_takes_the_right_branch(cond):
    x = np.array([0.5, -1.0])
    y, x_back = run(code_of(IF), x, cond)
    np.testing.assert_array_equal(y, np.exp(x) if cond else -x)
    assert x_back is x


POWER = """graph(%x : int, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : int = prim::Loop(%n, %t, %x)
    block0(%i : int, %v : int):
      %w : int = aten::mul(%v, %v)
      %w2 : int = aten::add(%w, %i)
      -> (%t, %w2)
  return (%y)
"""


@pytest.mark.parametrize("x, n", [(2, 0), (2, 1), (3, 3), (1, 5), (2, -1)])
def test_for_loop_matches_python(x, n):
    expected = x
    for i in range(n):
        expected = expected * expected + i
    assert run(code_of(POWER), x, n) == [expected]


WHILE = """graph(%x : int, %lim : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %c0 : bool = aten::lt(%x, %lim)
  %y : int, %k : int = prim::Loop(%max, %c0, %x, %x)
    block0(%i : int, %v : int, %last : int):
      %two : int = prim::Constant[value=2]()
      %w : int = aten::mul(%v, %two)
      %c : bool = aten::lt(%w, %lim)
      -> (%c, %w, %i)
  return (%y, %k)
"""


@pytest.mark.parametrize("x, lim", [(1, 10), (20, 10), (3, 1000), (5, 11)])
def test_while_loop_matches_python(x, lim):
    v, last, i = x, x, 0
    while v < lim:
        v, last, i = v * 2, i, i + 1
    assert run(code_of(WHILE), x, lim) == [v, last]


# The same while loop without reading %i: desugar_trip_counts leaves the counter out.
WHILE_WITHOUT_COUNTER = WHILE.replace("-> (%c, %w, %i)", "-> (%c, %w, %v)")


@pytest.mark.parametrize("x, lim", [(1, 10), (20, 10), (3, 1000), (5, 11)])
def test_while_loop_without_counter_matches_python(x, lim):
    v, last = x, x
    while v < lim:
        v, last = v * 2, v
    code = code_of(WHILE_WITHOUT_COUNTER)
    assert "aten::__and__" not in code.dump() and "aten::__and__" in code_of(WHILE).dump()
    assert run(code, x, lim) == [v, last]


# A while loop (no counter) inside a for loop whose body reads its counter %i.
WHILE_IN_FOR = """graph(%n : int, %lim : int):
  %t : bool = prim::Constant[value=1]()
  %max : int = prim::Constant[value=9223372036854775807]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %s : int = prim::Loop(%n, %t, %zero)
    block0(%i : int, %acc : int):
      %c0 : bool = aten::lt(%i, %lim)
      %w : int = prim::Loop(%max, %c0, %i)
        block0(%j : int, %v : int):
          %v1 : int = aten::add(%v, %v)
          %v2 : int = aten::add(%v1, %one)
          %c : bool = aten::lt(%v2, %lim)
          -> (%c, %v2)
      %acc2 : int = aten::add(%acc, %w)
      -> (%t, %acc2)
  return (%s)
"""


@pytest.mark.parametrize("n, lim", [(0, 5), (1, 5), (6, 40), (4, 0)])
def test_while_loop_without_counter_inside_a_for_loop_matches_python(n, lim):
    acc = 0
    for i in range(n):
        v = i
        while v < lim:
            v = v + v + 1
        acc += v
    assert run(code_of(WHILE_IN_FOR), n, lim) == [acc]


NESTED = """graph(%n : int, %m : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int = prim::Loop(%n, %t, %zero)
    block0(%i : int, %acc : int):
      %inner : int = prim::Loop(%m, %t, %acc)
        block0(%j : int, %a : int):
          %p : int = aten::mul(%i, %j)
          %odd : bool = aten::lt(%zero, %p)
          %a2 : int = prim::If(%odd)
            block0():
              %q : int = aten::add(%a, %p)
              -> (%q)
            block1():
              -> (%a)
          -> (%t, %a2)
      -> (%t, %inner)
  return (%s)
"""


@pytest.mark.parametrize("n, m", [(0, 3), (3, 0), (4, 5), (1, 1)])
def test_nested_loops_and_if_match_python(n, m):
    expected = sum(i * j for i in range(n) for j in range(m) if i * j > 0)
    assert run(code_of(NESTED), n, m) == [expected]


def test_loop_swapping_carried_values():
    # Each iteration swaps (a, b): the Assign must read both before writing either.
    code = code_of("""graph(%a : int, %b : int, %n : int):
  %t : bool = prim::Constant[value=1]()
  %x : int, %y : int = prim::Loop(%n, %t, %a, %b)
    block0(%i : int, %p : int, %q : int):
      -> (%t, %q, %p)
  return (%x, %y)
""")
    assert run(code, 1, 2, 3) == [2, 1]
    assert run(code, 1, 2, 4) == [1, 2]


def test_condition_also_carried():
    # %c is both the loop condition and a carried value: moved by the Assign, still read.
    code = code_of("""graph(%c : bool, %n : int):
  %y : bool = prim::Loop(%n, %c, %c)
    block0(%i : int, %v : bool):
      -> (%v, %v)
  return (%y)
""")
    assert run(code, True, 3) == [True]
    assert run(code, False, 3) == [False]


# -- liveness -------------------------------------------------------------------------------

def _chain(length: int) -> Graph:
    g = Graph()
    value = g.add_input("x")
    for _ in range(length):
        value = g.insert_node(create_python_op(g, lambda a: a + 1.0, [value])).output()
    g.register_output(value)
    return g


def _peak_bytes(code: Code, x: np.ndarray) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = run(code, x)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(out[0], x + 8.0)
    return peak


def test_chain_of_large_intermediates_peaks_at_about_two():
    x = np.zeros(1_000_000)             # 8 MB; the caller keeps it alive
    code = Code(_chain(8))
    peak = _peak_bytes(code, x)
    assert peak < 2.5 * x.nbytes, f"peak {peak / x.nbytes:.2f} arrays"
    # Same program without move flags: every intermediate stays in its register. (The flags
    # are read on a Code's first run.)
    code = Code(_chain(8))
    code.bool_data[:] = False
    kept = _peak_bytes(code, x)
    assert kept > 7.5 * x.nbytes, f"peak without moves {kept / x.nbytes:.2f} arrays"


# -- errors -----------------------------------------------------------------------------------

MM = """graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%a, %b) # model.py:12:8
  return (%c)
"""


def test_failing_op_names_node_and_location_and_code_keeps_working():
    code = code_of(MM)
    with pytest.raises(InterpreterError) as info:
        run(code, np.ones((2, 3)), np.ones((2, 3)))
    message = str(info.value)
    assert "operation failed in interpreter" in message
    assert "aten::mm(%a, %b)" in message and "model.py:12:8" in message
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.source_range == SourceRange("model.py", 12, 8)
    # the same Code runs again
    (c,) = run(code, np.ones((2, 3)), np.ones((3, 4)))
    np.testing.assert_array_equal(c, np.full((2, 4), 3.0))


def test_raise_exception_gives_jit_exception():
    code = code_of("""graph(%c : bool):
  %msg : str = prim::Constant[value="bad input"]()
  %n : NoneType = prim::Constant()
  %r : NoneType = prim::If(%c)
    block0():
       = prim::RaiseException(%msg) # model.py:4:8
      -> (%n)
    block1():
      -> (%n)
  return (%r)
""")
    with pytest.raises(JITException, match="bad input") as info:
        run(code, True)
    assert "model.py:4:8" in str(info.value)
    assert run(code, False) == [None]


def test_wrong_number_of_inputs():
    with pytest.raises(InterpreterError, match="takes 2 inputs, 1 were given"):
        run(code_of(MM), np.ones((2, 2)))


def test_elided_tensor_constant_names_the_constant():
    g = parse_ir("""graph(%x : Float(4, 5)):
  %k : Float(4, 5) = prim::Constant[value=<Tensor>]()
  %y : Float(4, 5) = aten::add(%x, %k)
  return (%y)
""")
    with pytest.raises(InterpreterError, match=r"%k .*<Tensor>"):
        run(Code(g, make_operation=make_operation), np.zeros((4, 5), np.float32))
    node = next(n for n in g.nodes() if n.kind == prim.Constant)
    node.t_("value", np.arange(20.0, dtype=np.float32).reshape(4, 5))
    (y,) = run(Code(g, make_operation=make_operation), np.ones((4, 5), np.float32))
    np.testing.assert_array_equal(y, np.arange(1.0, 21.0).reshape(4, 5))


def test_python_op_from_text_is_refused_not_run():
    g = parse_ir("""graph(%x : Tensor):
  %y : Tensor = prim::PythonOp[fn="os.system"](%x)
  return (%y)
""")
    with pytest.raises(InterpreterError, match="no Python callable"):
        Code(g)


def test_python_op_wrong_output_count():
    g = Graph()
    x = g.add_input("x")
    node = g.insert_node(create_python_op(g, lambda a: (a, a, a), [x], num_outputs=2))
    g.register_output(node.outputs[0])
    g.register_output(node.outputs[1])
    with pytest.raises(InterpreterError, match="returned a tuple of 3; its node has 2"):
        run(Code(g), 1)


# -- fork / wait ------------------------------------------------------------------------------

def _fork_graph(bodies, source=None) -> Graph:
    """graph(%x): one prim::fork per body (a PythonOp on %x), then aten::wait on each."""
    g = Graph()
    x = g.add_input("x")
    futures = []
    for i, body in enumerate(bodies):
        sub = Graph()
        a = sub.add_input("a")
        op = sub.insert_node(create_python_op(sub, body, [a], name=f"body{i}"))
        op.source_range = source
        sub.register_output(op.output())
        fork = g.insert_node(g.create(prim.fork, [x], 1))
        fork.g_("Subgraph", sub)
        fork.output().set_type(FutureType(TENSOR))
        futures.append(fork.output())
    for fut in futures:
        wait = g.insert(aten.wait, [fut])
        wait.source_range = SourceRange("caller.py", 9, 4)
        g.register_output(wait.output())
    return g


def _sleepy(seconds, result):
    def body(a):
        time.sleep(seconds)
        return a + result

    return body


def test_forked_branches_overlap_in_time():
    code = Code(_fork_graph([_sleepy(0.3, 1), _sleepy(0.3, 2)]))
    start = time.perf_counter()
    assert run(code, 10) == [11, 12]
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"two 0.3 s branches took {elapsed:.2f} s: not concurrent"


def test_exception_in_forked_branch_reaches_wait_with_location():
    def fail(a):
        raise ValueError("branch exploded")

    code = Code(_fork_graph([fail], source=SourceRange("fork_body.py", 7, 3)))
    with pytest.raises(InterpreterError) as info:
        run(code, 1)
    message = str(info.value)
    assert "branch exploded" in message and "fork_body.py:7:3" in message
    assert "caller.py:9:4" in message
    assert run(Code(_fork_graph([_sleepy(0, 5)])), 1) == [6]


def test_run_async_suspends_on_wait_and_resumes():
    release = threading.Event()

    def blocked(a):
        release.wait(5)
        return a * 3

    code = Code(_fork_graph([blocked]))
    future = State(code).run_async([7])
    assert isinstance(future, Future)
    time.sleep(0.05)
    assert not future.completed()       # suspended at aten::wait, not blocking this thread
    release.set()
    assert future.wait(5) == 21


def test_run_async_error_completes_the_future():
    def fail(a):
        raise KeyError("nope")

    future = State(Code(_fork_graph([fail]))).run_async([1])
    with pytest.raises(InterpreterError, match="nope"):
        future.wait(5)


# -- threads ----------------------------------------------------------------------------------

def test_threads_share_one_code():
    code = code_of(NESTED)
    cases = [(n, m) for n in range(6) for m in range(6)]
    expected = {c: sum(i * j for i in range(c[0]) for j in range(c[1]) if i * j) for c in cases}
    results: dict = {}

    def worker(chunk):
        for _ in range(5):
            for case in chunk:
                got = run(code, *case)[0]
                results.setdefault(case, set()).add(got)

    threads = [threading.Thread(target=worker, args=(cases[k::8],)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {c: v.pop() for c, v in results.items()} == expected
    assert all(len(v) == 0 for v in results.values())


def test_nested_forks_on_a_one_thread_pool_do_not_deadlock():
    from fusejit.runtime import futures

    # The outer forked task forks an inner one and waits for it: with one pool thread this only
    # finishes because the outer task suspends at its wait instead of blocking the thread.
    inner = _fork_graph([_sleepy(0.01, 1)])
    outer = Graph()
    x = outer.add_input("x")
    fork = outer.insert_node(outer.create(prim.fork, [x], 1))
    fork.g_("Subgraph", inner)
    fork.output().set_type(FutureType(TENSOR))
    outer.register_output(outer.insert(aten.wait, [fork.output()]).output())
    size = futures.fork_pool_size()
    futures.set_fork_pool_size(1)
    try:
        future = State(Code(outer)).run_async([41])
        assert future.wait(5) == 42
    finally:
        futures.set_fork_pool_size(size)
