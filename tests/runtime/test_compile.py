"""``compile``: argument checking, results, graph_for, errors, threads; on both engines."""

from __future__ import annotations

import functools
import threading

import numpy as np
import pytest

from fusejit import FusejitError, InterpreterError, parse_ir
from fusejit.ir.graph import Graph
from fusejit.ir.types import FLOAT, INT
from fusejit.runtime import executor
from fusejit.runtime.python_op import create_python_op

compile = executor.compile  # the engine of the running test (set by the fixture)


@pytest.fixture(params=executor.ENGINES, autouse=True)
def engine(request, monkeypatch, nrt_balanced):
    monkeypatch.setitem(globals(), "compile",
                        functools.partial(executor.compile, engine=request.param))
    return request.param

PASS_THROUGH = """graph(%x : Float(3, 4), %n : int, %f : float, %b : bool, %l : int[],
      %o : Tensor?):
  return (%x, %n, %f, %b, %l, %o)
"""
GOOD = [np.ones((3, 4), np.float32), 2, 0.5, True, [1, 2], None]


def test_outputs_come_back_as_a_tuple_in_order():
    fn = compile(parse_ir(PASS_THROUGH))
    out = fn(*GOOD)
    assert isinstance(out, tuple) and len(out) == 6
    assert out[0] is GOOD[0] and out[1:] == (2, 0.5, True, [1, 2], None)


def test_single_output_is_returned_bare_and_none_for_no_outputs():
    one = compile(parse_ir("graph(%x : Tensor):\n  return (%x)\n"))
    a = np.arange(3)
    assert one(a) is a
    assert compile(parse_ir("graph(%x : Tensor):\n  return ()\n"))(a) is None


@pytest.mark.parametrize("index, value, expected", [
    (0, np.zeros((5,), np.int64), None),          # any dtype/shape for a Tensor parameter
    (1, np.int64(7), 7),                            # NumPy integer for int
    (2, 3, 3.0),                                    # int for float, converted
    (2, np.float32(0.25), 0.25),
    (3, np.bool_(False), False),
    (4, (4, 5), [4, 5]),                            # tuple for int[]
    (5, np.ones(2), None),                          # Tensor? given a tensor
])
def test_accepted_arguments(index, value, expected):
    args = list(GOOD)
    args[index] = value
    out = compile(parse_ir(PASS_THROUGH))(*args)[index]
    if expected is None:
        assert out is value
    else:
        assert out == expected and type(out) is type(expected)


@pytest.mark.parametrize("index, value, message", [
    (0, [[1.0] * 4] * 3, r"%x \(input 0\) expects Float\(3, 4\), got a list of 3"),
    (0, 1.5, r"%x \(input 0\) expects .*got float"),
    (1, True, r"%n \(input 1\) expects int, got bool"),
    (1, 2.0, r"%n \(input 1\) expects int, got float"),
    (1, np.array(3), r"%n \(input 1\) expects int, got an array of int64 \(\)"),
    (2, "x", r"%f \(input 2\) expects float, got str"),
    (3, 1, r"%b \(input 3\) expects bool, got int"),
    (4, [1, 2.5], r"%l \(input 4\) expects int\[\], got a list of 2 \(element 1 is float\)"),
    (5, 3, r"%o \(input 5\) expects Tensor\?, got int"),
])
def test_rejected_arguments_name_the_parameter(index, value, message):
    args = list(GOOD)
    args[index] = value
    with pytest.raises(InterpreterError, match=message):
        compile(parse_ir(PASS_THROUGH))(*args)


def test_wrong_argument_count_lists_the_parameters():
    fn = compile(parse_ir(PASS_THROUGH))
    with pytest.raises(InterpreterError, match=r"expected 6 arguments \(%x, %n, %f, %b, %l, %o\)"):
        fn(*GOOD[:2])


SCALE_SHIFT = """graph(%x : Tensor, %a : float, %n : int):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %a)
  %z : Tensor = aten::add(%y, %n, %one)
  return (%z)
"""


def test_remembered_calls_still_check_every_input_that_changes(engine, monkeypatch):
    """After many calls of one kind (remembered: ``runtime/remembered.py``), a call whose
    dtype, rank, strides, type, count or int range differs is checked anew and runs the plan
    the checks select for it (its call count goes up), with NumPy's values; the remembered
    call then still runs its own plan. (Fused, with tiering on: the group is interpreted,
    so no kernel compiles; one engine is enough, the test does not choose one.)"""
    if engine != "reference":
        pytest.skip("engine='auto' on one of the fixture's runs")
    monkeypatch.setenv("FUSEJIT_TIERING", "1")
    fn = executor.compile(parse_ir(SCALE_SHIFT), fuse=True)
    x = np.arange(12, dtype=np.float32)
    x64 = np.arange(12.0)

    def run(*args):
        plan = fn.plan_for(fn.check_inputs(args))
        before = fn._timings[plan].calls if plan in fn._timings else 0
        out = fn(*args)
        assert fn._timings[plan].calls == before + 1
        return out

    for _ in range(20):
        out = run(x, 0.5, 3)
    assert fn._remembered.runners and out.dtype == np.float32
    np.testing.assert_array_equal(out, x * np.float32(0.5) + 3)
    for arg, a, expected in [(x64, 0.5, x64 * 0.5 + 3),                          # dtype
                             (x.reshape(3, 4), 0.5, x.reshape(3, 4) * 0.5 + 3),  # rank
                             (x64[::3], 2.0, x64[::3] * 2 + 3),                  # strides
                             (x, 2, x * np.float32(2) + 3),                      # int for float
                             (x.reshape(3, 4).T, 0.5, x.reshape(3, 4).T * 0.5 + 3)]:
        got = run(arg, a, 3)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
    for args, message in [(([1.0, 2.0], 0.5, 3), "%x"), ((x, "0.5", 3), "%a"),
                          ((x, 0.5, True), "%n"), ((x, 0.5, 2 ** 63), "64-bit range of int"),
                          ((x, 0.5), "expected 3 arguments")]:
        with pytest.raises(InterpreterError, match=message):
            fn(*args)
    np.testing.assert_array_equal(run(x, 0.5, 3), out)


def test_if_without_operators():
    fn = compile(parse_ir("""graph(%x : Tensor, %y : Tensor, %c : bool):
  %z : Tensor = prim::If(%c)
    block0():
      -> (%x)
    block1():
      -> (%y)
  return (%z)
"""))
    x, y = np.zeros(2), np.ones(2)
    assert fn(x, y, True) is x and fn(x, y, False) is y


def test_graph_for_returns_the_graph_it_ran_and_checks_inputs():
    graph = parse_ir(PASS_THROUGH)
    fn = compile(graph)
    assert str(fn.graph_for(*GOOD)) == str(graph)
    with pytest.raises(InterpreterError):
        fn.graph_for(1)


def _checked_sqrt_graph() -> Graph:
    g = Graph()
    x = g.add_input("x", FLOAT)

    def checked_sqrt(v):
        if v < 0:
            raise ValueError(f"negative: {v}")
        return v ** 0.5

    node = g.insert_node(create_python_op(g, checked_sqrt, [x], output_types=[FLOAT]))
    g.register_output(node.output())
    return g


def test_function_keeps_working_after_an_error():
    fn = compile(_checked_sqrt_graph())
    assert fn(4.0) == 2.0
    with pytest.raises(InterpreterError, match="negative: -1.0") as info:
        fn(-1.0)
    assert isinstance(info.value.__cause__, ValueError)
    assert fn(9) == 3.0


def test_threads_share_one_compiled_function():
    g = Graph()
    x, k = g.add_input("x"), g.add_input("k", INT)
    node = g.insert_node(create_python_op(g, lambda a, b: a * b, [x, k]))
    g.register_output(node.output())
    fn = compile(g)
    failures = []

    def worker(t):
        for i in range(200):
            a = np.full(3, float(t))
            if not np.array_equal(fn(a, i), a * i):
                failures.append((t, i))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_compile_rejects_bad_arguments():
    with pytest.raises(FusejitError, match="needs a fusejit Graph"):
        compile("graph()")
    with pytest.raises(FusejitError, match="unknown engine 'turbo'"):
        compile(parse_ir(PASS_THROUGH), engine="turbo")


def test_fuse_true_runs_the_fuser_on_a_copy():
    pytest.importorskip("fusejit.passes.graph_fuser")
    pytest.importorskip("fusejit.runtime.ops")
    text = """graph(%x : Float(3, 4, strides=[4, 1], device=cpu)):
  %a : Float(3, 4, strides=[4, 1], device=cpu) = aten::exp(%x)
  %b : Float(3, 4, strides=[4, 1], device=cpu) = aten::tanh(%a)
  return (%b)
"""
    graph = parse_ir(text)
    fn = compile(graph, fuse=True)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    assert "prim::FusionGroup" in str(fn.graph_for(x))
    assert str(graph) == parse_ir(text).__str__()
    np.testing.assert_allclose(fn(x), np.tanh(np.exp(x)), rtol=1e-6)


# -- with the operator library ------------------------------------------------------------------

COLLATZ = """graph(%x : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %c0 : bool = aten::gt(%x, %one)
  %zero : int = prim::Constant[value=0]()
  %steps : int, %v : int = prim::Loop(%max, %c0, %zero, %x)
    block0(%i : int, %s : int, %a : int):
      %r : int = aten::remainder(%a, %two)
      %odd : bool = aten::eq(%r, %one)
      %b : int = prim::If(%odd)
        block0():
          %m : int = aten::mul(%a, %three)
          %p : int = aten::add(%m, %one)
          -> (%p)
        block1():
          %h : int = aten::floordiv(%a, %two)
          -> (%h)
      %c : bool = aten::gt(%b, %one)
      %s1 : int = aten::add(%i, %one)
      -> (%c, %s1, %b)
  return (%steps, %v)
"""


@pytest.mark.parametrize("x", [1, 2, 6, 27])
def test_while_loop_with_if_runs_on_the_operator_library(x):
    # %s1 counts iterations from the trip counter %i, so it tests the desugared counter too
    steps, v = 0, x
    while v > 1:
        v = 3 * v + 1 if v % 2 == 1 else v // 2
        steps += 1
    assert compile(parse_ir(COLLATZ))(x) == (steps, v)


def test_operator_failure_and_raise_exception_with_the_operator_library():
    from fusejit import JITException

    mm = compile(parse_ir("""graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%a, %b) # model.py:12:8
  return (%c)
"""))
    with pytest.raises(InterpreterError, match=r"(?s)aten::mm\(%a, %b\).*model.py:12:8"):
        mm(np.ones((2, 3)), np.ones((2, 3)))
    np.testing.assert_array_equal(mm(np.ones((2, 3)), np.ones((3, 1))), np.full((2, 1), 3.0))
    check = compile(parse_ir("""graph(%c : bool):
  %msg : str = prim::Constant[value="bad input"]()
  %n : NoneType = prim::Constant()
  %r : NoneType = prim::If(%c)
    block0():
       = prim::RaiseException(%msg) # model.py:4:8
      -> (%n)
    block1():
      -> (%n)
  return (%r)
"""))
    with pytest.raises(JITException, match=r"(?s)model.py:4:8.*bad input"):
        check(True)
    assert check(False) is None


def test_one_operation_plans_run_without_the_loop_and_fail_as_it_does():
    """Code that is one operation on the loaded inputs (a plan fused into one group) runs it
    directly (``reference.SingleOperation``): the same results, with inputs taken in the
    operation's order, and the same errors as the reference loop's, node and location."""
    from fusejit.runtime.reference import InterpreterState, SingleOperation

    text = """graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%b, %a) # model.py:12:8
  return (%c)
"""
    plan = compile(parse_ir(text))._unfused
    single = SingleOperation.of(plan.code)
    assert single is not None and single.take is not None
    a, b = np.arange(6.0).reshape(2, 3), np.arange(8.0).reshape(4, 2)
    stack = [a, b]
    single.run(stack)
    np.testing.assert_array_equal(stack[0], b @ a)
    for args, message in (([a, a], "model.py:12:8"), ([a], "1 were given")):
        errors = []
        for run in (single.run, InterpreterState(plan.code).run):
            with pytest.raises(InterpreterError, match=message) as info:
                run(list(args))
            errors.append((str(info.value), type(info.value.__cause__)))
        assert errors[0] == errors[1]
    two = compile(parse_ir(text.replace("  return (%c)", "  %d : Tensor = aten::neg(%c)\n"
                                        "  return (%d)")))._unfused
    assert SingleOperation.of(two.code) is None


STRAIGHT = """graph(%a : Tensor, %b : Tensor, %s : float):
  %one : int = prim::Constant[value=1]()
  %c : Tensor = aten::mm(%b, %a) # model.py:12:8
  %d : Tensor = aten::mul(%c, %s)
  %e : Tensor = aten::add(%d, %c, %one) # model.py:13:4
  %t : (Tensor, Tensor) = prim::TupleConstruct(%e, %c)
  %f : Tensor, %g : Tensor = prim::TupleUnpack(%t)
  return (%g, %f, %a)
"""


def test_straight_line_plans_run_without_the_loop_and_fail_as_it_does(engine):
    """Code without jumps runs as one generated function (``runtime/straight.py``): the same
    outputs as the reference loop, and the same errors, node and source location (a failing
    first and a failing later instruction)."""
    if engine != "reference":
        pytest.skip("the reference side only: one of the fixture's runs")
    from fusejit.runtime.reference import InterpreterState
    from fusejit.runtime.straight import straight_line

    plan = compile(parse_ir(STRAIGHT))._unfused
    run = straight_line(plan.code)
    assert run is not None and plan.single is None
    a, b = np.arange(6.0).reshape(2, 3), np.arange(8.0).reshape(4, 2)
    stack = [a, b, 0.5]
    InterpreterState(plan.code).run(stack)
    got = run((a, b, 0.5))
    assert len(got) == 3 and got[2] is a
    for value, expected in zip(got, stack):
        np.testing.assert_array_equal(value, expected)
    np.testing.assert_array_equal(got[1], (b @ a) * 0.5 + b @ a)
    for args, message in (((a, a, 0.5), "model.py:12:8"), ((a, b, "x"), "aten::mul")):
        errors = []
        for runs in (run, lambda args: InterpreterState(plan.code).run(list(args))):
            with pytest.raises(InterpreterError, match=message) as info:
                runs(args)
            errors.append((str(info.value), type(info.value.__cause__)))
        assert errors[0] == errors[1]


BRANCHED = """graph(%x : Tensor, %c : bool, %d : bool):
  %one : int = prim::Constant[value=1]()
  %z : Tensor = prim::If(%c)
    block0():
      %w : Tensor = prim::If(%d)
        block0():
          %n : Tensor = aten::neg(%x)
          -> (%n)
        block1():
          %m : Tensor = aten::mul(%x, %x)
          -> (%m)
      -> (%w)
    block1():
      %y : Tensor = aten::add(%x, %one, %one)
      -> (%y)
   = prim::If(%d)
    block0():
      %bad : Tensor = aten::mm(%x, %x)
      -> ()
    block1():
      -> ()
  %r : Tensor = aten::sub(%z, %x, %one)
  return (%r, %z)
"""


def test_branched_plans_run_as_python_ifs_as_the_loop_does():
    """Forward jumps of ``prim::If`` (nested, one with no else branch) are written as
    Python's if/else: every path gives the loop's outputs, and an error inside a branch the
    loop's error."""
    from fusejit.runtime.reference import InterpreterState
    from fusejit.runtime.straight import straight_line

    plan = compile(parse_ir(BRANCHED))._unfused
    run = straight_line(plan.code)
    assert run is not None
    x = np.arange(6.0).reshape(2, 3)
    for c, d in ((True, False), (False, False)):
        stack = [x, c, d]
        InterpreterState(plan.code).run(stack)
        got = run((x, c, d))
        for value, expected in zip(got, stack, strict=True):
            np.testing.assert_array_equal(value, expected)
    square = np.arange(4.0).reshape(2, 2)
    for c in (True, False):
        stack = [square, c, True]
        InterpreterState(plan.code).run(stack)
        np.testing.assert_array_equal(run((square, c, True))[0], stack[0])
    _same_mm_error(plan.code, run, (x, True, True))   # (the inner branch, then the mm)


def _same_mm_error(code, run, args) -> None:
    """``run`` (the straight-line function of ``code``) raises on ``args`` the error the
    interpreter's loop raises, from an ``aten::mm``."""
    from fusejit.runtime.reference import InterpreterState

    errors = []
    for runs in (run, lambda args: InterpreterState(code).run(list(args))):
        with pytest.raises(InterpreterError, match="aten::mm") as info:
            runs(args)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


LOOPED = """graph(%x : Tensor, %n : int, %m : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %y : Tensor, %t : int = prim::Loop(%n, %true, %x, %zero)
    block0(%i : int, %a : Tensor, %c : int):
      %b : Tensor = aten::neg(%a)
      %inner : Tensor = prim::Loop(%m, %true, %b)
        block0(%j : int, %e : Tensor):
          %odd : bool = aten::lt(%j, %one)
          %f : Tensor = prim::If(%odd)
            block0():
              %g : Tensor = aten::add(%e, %x, %one)
              -> (%g)
            block1():
              %h : Tensor = aten::mm(%e, %e)
              -> (%h)
          -> (%true, %f)
      %d : int = aten::add(%c, %i)
      %more : bool = aten::lt(%d, %three)
      -> (%more, %inner, %d)
  return (%y, %t)
"""


def test_loops_run_as_python_while_loops_as_the_loop_does():
    """A loop (JumpZ into it, JumpNZ back: ``Code.insert_loop``) is written as Python's
    ``while``, nested loops and ifs inside it too: every trip count, an early exit by the
    condition, and an error in an iteration give the loop's outputs and errors."""
    from fusejit.runtime.reference import InterpreterState
    from fusejit.runtime.straight import straight_line

    code = compile(parse_ir(LOOPED))._unfused.code
    run = straight_line(code)
    assert run is not None
    x = np.arange(4.0).reshape(2, 2)
    for n, m in ((0, 0), (1, 1), (2, 1), (5, 1), (7, 0), (3, 2)):
        stack = [x, n, m]
        InterpreterState(code).run(stack)
        got = run((x, n, m))
        assert len(got) == len(stack) == 2 and got[1] == stack[1]
        np.testing.assert_array_equal(got[0], stack[0])
    bad = np.arange(6.0).reshape(2, 3)            # (the second inner trip's mm fails)
    _same_mm_error(code, run, (bad, 2, 2))


def test_auto_engine_runs_all_native_plans_natively_and_others_on_the_reference():
    import fusejit

    native_only = fusejit.parse_ir(
        "graph(%x : Tensor,\n      %y : Tensor):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %z : Tensor = aten::add(%x, %y, %one)\n  return (%z)\n")
    with_kernel = fusejit.parse_ir(
        "graph(%x : Tensor,\n      %y : Tensor):\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %z : Tensor = aten::add(%x, %y, %one)\n  %w : Tensor = aten::tanh(%z)\n"
        "  return (%w)\n")
    with_cat = fusejit.parse_ir(
        "graph(%x : Tensor,\n      %y : Tensor):\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %l : Tensor[] = prim::ListConstruct(%x, %y)\n"
        "  %z : Tensor = aten::cat(%l, %zero)\n  return (%z)\n")
    looping = fusejit.parse_ir(
        "graph(%x : Tensor,\n      %y : Tensor):\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %n : int = prim::Constant[value=3]()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %out : Tensor = prim::Loop(%n, %t, %x)\n"
        "    block0(%i : int, %z : Tensor):\n"
        "      %a : Tensor = aten::add(%z, %y, %one)\n"
        "      %b : Tensor = aten::tanh(%a)\n"
        "      -> (%t, %b)\n"
        "  return (%out)\n")
    long_chain = fusejit.parse_ir(
        "graph(%x : Tensor,\n      %y : Tensor):\n"
        + "".join(f"  %v{i} : Tensor = aten::mul(%{'x' if i == 0 else f'v{i - 1}'}, %y)\n"
                  for i in range(executor.NATIVE_MIN_OPS)) + "  return "
        f"(%v{executor.NATIVE_MIN_OPS - 1})\n")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # Loops and long plans run natively, fused kernels included; short straight-line plans
    # and plans with a host instruction (a tensor list made for cat) on the reference loop.
    for graph, fuse, engine in ((native_only, True, "reference"), (with_kernel, True, "reference"),
                                (looping, True, "native"), (looping, False, "native"),
                                (long_chain, False, "native"), (with_cat, True, "reference")):
        fn = fusejit.compile(graph, fuse=fuse)
        assert fn.plan_for(fn.check_inputs([x, x])).engine == engine
    np.testing.assert_allclose(fusejit.compile(looping, fuse=True)(x, x),
                               np.tanh(np.tanh(np.tanh(x + x) + x) + x), rtol=1e-6)
    np.testing.assert_allclose(fusejit.compile(with_kernel, fuse=True)(x, x), np.tanh(x + x),
                               rtol=1e-6)
    np.testing.assert_array_equal(fusejit.compile(with_cat, fuse=True)(x, x),
                                  np.concatenate([x, x]))


def test_copies_of_compiled_functions_are_the_functions_themselves():
    import copy

    import fusejit

    fn = fusejit.jit(lambda_free_add)
    compiled = fusejit.compile(fusejit.parse_ir(
        "graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x)\n  return (%y)\n"))
    for obj in (fn, compiled):
        assert copy.copy(obj) is obj and copy.deepcopy(obj) is obj
    assert copy.deepcopy(fn).__wrapped__ is lambda_free_add


def lambda_free_add(x, y):
    return x + y


def test_loops_nested_past_pythons_limit_are_left_to_the_loop():
    """Python compiles at most 20 nested blocks: deeper loops keep the interpreter's loop
    (``straight_line`` gives None), which runs them."""
    from fusejit.runtime.reference import InterpreterState
    from fusejit.runtime.straight import straight_line

    depth = 22
    lines = ["graph(%x : Tensor, %n : int):", "  %true : bool = prim::Constant[value=1]()"]
    for k in range(depth):
        pad = "  " + "    " * k
        lines += [f"{pad}%y{k} : Tensor = prim::Loop(%n, %true, %{'x' if k == 0 else f'a{k - 1}'})",
                  f"{pad}  block0(%i{k} : int, %a{k} : Tensor):"]
    pad = "  " + "    " * depth
    lines.append(f"{pad}%b : Tensor = aten::neg(%a{depth - 1})")
    lines.append(f"{pad}-> (%true, %b)")
    for k in reversed(range(depth - 1)):
        pad = "  " + "    " * (k + 1)
        lines.append(f"{pad}-> (%true, %y{k + 1})")
    lines.append("  return (%y0)")
    code = compile(parse_ir("\n".join(lines) + "\n"))._unfused.code
    assert straight_line(code) is None
    stack = [np.ones(2), 1]
    InterpreterState(code).run(stack)
    np.testing.assert_array_equal(stack[0], -np.ones(2))       # (the innermost negates)
