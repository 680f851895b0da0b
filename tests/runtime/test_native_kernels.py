"""Fused kernels, the fuser's broadcast triple and matmul called from the native loop.

The oracle is the same plan run on the reference engine (which calls the same kernels through
Python) and NumPy; ``host_calls`` counts the instructions the native driver had to run itself
(the Load and the Store are two of them)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import fusejit
from fusejit.errors import InterpreterError
from fusejit.runtime.executor import compile as compile_graph
from fusejit.runtime.interpreter import NativeInterpreter
from fusejit.runtime.native.program import BIND_ON_RUN, program_of

pytestmark = pytest.mark.usefixtures("nrt_balanced")

LOOP = """graph(%x : Tensor, %y : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %z : Tensor):
      %a : Tensor = aten::mul(%z, %y)
      %b : Tensor = aten::sigmoid(%a)
      %c : Tensor = aten::add(%b, %y, %one)
      -> (%t, %c)
  return (%out)
"""


def loop_numpy(x, y, n):
    for _ in range(n):
        x = 1 / (1 + np.exp(-(x * y))) + y
    return x


def native_run(fn, *inputs):
    """Run ``fn``'s plan for ``inputs`` on a fresh native interpreter: (outputs, host calls)."""
    code = fn.code_for(*inputs)
    interpreter = NativeInterpreter(code)
    stack = list(fn.check_inputs(list(inputs)))
    interpreter.run(stack)
    return stack, interpreter.host_calls


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_a_bound_kernel_runs_inside_the_loop_and_matches_the_reference(dtype):
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True)
    x, y = rand(4, 8, dtype=dtype), rand(8, dtype=dtype, seed=1)
    assert fn.plan_for(fn.check_inputs([x, y, 3])).engine == "native"
    first, calls_first = native_run(fn, x, y, 50)
    again, calls_again = native_run(fn, x, y, 50)
    # The first run binds the slot after the group's second host call (``BIND_ON_RUN``);
    # later runs need none.
    assert calls_first == 2 + BIND_ON_RUN and calls_again == 2
    reference = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="reference")
    np.testing.assert_array_equal(again[0], reference(x, y, 50))
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_allclose(again[0], loop_numpy(x, y, 50), rtol=1e-5)


# LOOP with a pow and a log1p (short forms: strips with an argument outside them are
# computed again) before its add
POW_LOOP = LOOP.replace("      %c : Tensor = aten::add(%b, %y, %one)\n",
                        "      %p : Tensor = aten::pow(%b, %y)\n"
                        "      %l : Tensor = aten::log1p(%p)\n"
                        "      %c : Tensor = aten::add(%l, %y, %one)\n")


def test_a_parallel_kernel_bound_in_the_loop_matches_the_serial_reference(parallel_plans):
    """The native entry of a parallel kernel (``native_parallel``: strips outside the fast
    forms' domains marked by the parallel kernel, computed again by the serial one), bound and
    run inside the loop on two threads, against the reference engine run serially. (float32:
    its pow's short form differs from the full one in the last bit, so a strip computed again
    that should not be, or not again that should, shows.)"""
    from fusejit.runtime.fusion.loops import STRIP

    x, y = rand(3, 3 * STRIP + 9), rand(3 * STRIP + 9, seed=1)
    y[[5, 2000, 3000]] = [np.inf, -np.inf, np.nan]      # (strips the fix-ups compute again)
    reference = compile_graph(fusejit.parse_ir(POW_LOOP), fuse=True, engine="reference")
    with np.errstate(all="ignore"):
        want = reference(x, y, 4)
        with parallel_plans(STRIP + 3):
            fn = compile_graph(fusejit.parse_ir(POW_LOOP), fuse=True)
            assert fn.plan_for(fn.check_inputs([x, y, 4])).engine == "native"
            first, calls_first = native_run(fn, x, y, 4)
            again, calls_again = native_run(fn, x, y, 4)
    assert calls_first == 2 + BIND_ON_RUN and calls_again == 2   # (bound on the second)
    for got in (first[0], again[0]):
        assert np.array_equal(got, want, equal_nan=True)


def _other_shapes_after_binding_stay_right(others: list) -> None:
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True)
    reference = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="reference")
    x, y = rand(4, 8), rand(8, seed=1)
    native_run(fn, x, y, 2)
    for xs in others:
        out, calls = native_run(fn, xs, y, 3)
        assert calls > 2
        np.testing.assert_array_equal(out[0], reference(xs, y, 3))
        np.testing.assert_allclose(out[0], loop_numpy(xs, y, 3), rtol=1e-5, atol=1e-6)
    out, calls = native_run(fn, x, y, 3)          # the bound shape still runs natively
    assert calls == 2


def test_other_shapes_after_binding_run_on_the_host_and_stay_right():
    transposed = rand(8, 4, seed=3).T            # same shape, other strides: not the bound plan
    _other_shapes_after_binding_stay_right([rand(6, 8, seed=2), transposed])


@pytest.mark.exhaustive
def test_other_ranks_after_binding_run_on_the_host_and_stay_right():
    """The other shapes of test_other_shapes_after_binding_run_on_the_host_and_stay_right
    (other ranks, a dimension of 1): not the bound plan either, as 6 x 8 is not."""
    _other_shapes_after_binding_stay_right([rand(8, seed=2), rand(1, 8, seed=2),
                                            rand(3, 2, 8, seed=2)])


def test_a_group_run_once_compiles_no_entry():
    """A slot binds on the group's second host run: a graph run once, on the host, never
    compiles the kernel's native entry (as long again as the kernel); the next run binds it,
    and the one after runs the group in the loop."""
    text = """graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::sin(%a)
  return (%b)
"""
    fn = compile_graph(fusejit.parse_ir(text), fuse=True)
    x, y = rand(3, 5), rand(5, seed=1)
    program = program_of(fn.code_for(x, y))
    compiles = []
    for kernel in program.kernels:
        original = kernel.native_binding
        kernel.native_binding = lambda *inputs, original=original: (
            compiles.append(1), original(*inputs))[1]
    outs = [native_run(fn, x, y) for _ in range(3)]
    assert BIND_ON_RUN == 2 and len(compiles) == 1
    assert [calls for _, calls in outs] == [3, 3, 2]      # host, host and bind, in the loop
    assert all(program.kernel_rows[:, 0] == 1)
    for out, _ in outs:
        np.testing.assert_allclose(out[0], np.sin(x * y), rtol=1e-6)


def test_a_kernel_fault_in_the_loop_reports_like_the_host():
    text = """graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::remainder(%a, %y)
  return (%b)
"""
    fn = compile_graph(fusejit.parse_ir(text), fuse=True)
    x = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    y = np.array([1, 2, 3], np.int64)
    for _ in range(BIND_ON_RUN):
        native_run(fn, x, y)
    out, calls = native_run(fn, x, y)
    assert calls == 2
    np.testing.assert_array_equal(out[0], np.remainder(x * y, y))
    zero = np.array([1, 0, 3], np.int64)
    with pytest.raises(InterpreterError, match="remainder"):
        fn(x, zero)


def test_non_native_dtypes_keep_the_host_path():
    text = """graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::neg(%a)
  return (%b)
"""
    fn = compile_graph(fusejit.parse_ir(text), fuse=True)
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    for _ in range(2):
        out, calls = native_run(fn, x, x)
        np.testing.assert_array_equal(out[0], -(x * x))
        assert out[0].dtype == np.int32
    assert calls == 3


LSTM = """graph(%x : Tensor, %h : Tensor, %c : Tensor, %w_ih : Tensor, %w_hh : Tensor,
      %b_ih : Tensor, %b_hh : Tensor, %steps : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %four : int = prim::Constant[value=4]()
  %h_out : Tensor, %c_out : Tensor = prim::Loop(%steps, %t, %h, %c)
    block0(%i : int, %hx : Tensor, %cx : Tensor):
      %wt : Tensor = aten::t(%w_ih)
      %ut : Tensor = aten::t(%w_hh)
      %xw : Tensor = aten::matmul(%x, %wt)
      %hw : Tensor = aten::matmul(%hx, %ut)
      %g0 : Tensor = aten::add(%xw, %hw, %one)
      %g1 : Tensor = aten::add(%g0, %b_ih, %one)
      %gates : Tensor = aten::add(%g1, %b_hh, %one)
      %ig : Tensor, %fg : Tensor, %cg : Tensor, %og : Tensor = prim::ConstantChunk[chunks=4, dim=1](%gates)
      %i2 : Tensor = aten::sigmoid(%ig)
      %f2 : Tensor = aten::sigmoid(%fg)
      %c2 : Tensor = aten::tanh(%cg)
      %o2 : Tensor = aten::sigmoid(%og)
      %fc : Tensor = aten::mul(%f2, %cx)
      %ic : Tensor = aten::mul(%i2, %c2)
      %cy : Tensor = aten::add(%fc, %ic, %one)
      %tc : Tensor = aten::tanh(%cy)
      %hy : Tensor = aten::mul(%o2, %tc)
      -> (%t, %hy, %cy)
  return (%h_out, %c_out)
"""


def lstm_numpy(x, h, c, w_ih, w_hh, b_ih, b_hh, steps):
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    for _ in range(steps):
        i, f, g, o = np.split(x @ w_ih.T + h @ w_hh.T + b_ih + b_hh, 4, axis=1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
    return h, c


def lstm_inputs(batch=2, hidden=16, steps=5):
    return (rand(batch, hidden), rand(batch, hidden, seed=1), rand(batch, hidden, seed=2),
            rand(4 * hidden, hidden, seed=3) * 0.3, rand(4 * hidden, hidden, seed=4) * 0.3,
            rand(4 * hidden, seed=5), rand(4 * hidden, seed=6), steps)


def test_an_lstm_loop_with_broadcast_chunk_runs_wholly_native():
    fn = compile_graph(fusejit.parse_ir(LSTM), fuse=True)
    inputs = lstm_inputs()
    code = fn.code_for(*inputs)
    kinds = [node.kind for node in code.nodes if node is not None]
    assert "aten::broadcast_tensors" in kinds and "prim::FusionGroup" in kinds
    assert fn.plan_for(fn.check_inputs(list(inputs))).engine == "native"
    native_run(fn, *inputs)
    out, calls = native_run(fn, *inputs)
    assert calls == 2
    reference = compile_graph(fusejit.parse_ir(LSTM), fuse=True, engine="reference")
    for got, want, numpy in zip(out, reference(*inputs), lstm_numpy(*inputs)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got, numpy, rtol=1e-5, atol=1e-5)


def test_the_broadcast_triple_falls_back_to_the_host_error():
    fn = compile_graph(fusejit.parse_ir(LSTM), fuse=True)
    inputs = list(lstm_inputs())
    inputs[5] = rand(3, seed=7)                   # b_ih that cannot broadcast with the gates
    with pytest.raises(InterpreterError, match="size"):
        fn(*inputs)
    reference = compile_graph(fusejit.parse_ir(LSTM), fuse=True, engine="reference")
    with pytest.raises(InterpreterError, match="size"):
        reference(*inputs)


def test_the_broadcast_triple_is_found_only_where_it_is_safe():
    fn = compile_graph(fusejit.parse_ir(LSTM), fuse=True)
    inputs = lstm_inputs()
    program = program_of(fn.code_for(*inputs))
    code = fn.code_for(*inputs)
    triples = [pc for pc, node in enumerate(code.nodes)
               if node is not None and node.kind == "prim::ListConstruct"]
    assert triples and all(program.native_op[pc + 1] == -2 for pc in triples)
    # A tensor list someone else also reads is a real list: the host makes it.
    text = """graph(%x : Tensor, %y : Tensor):
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %m : Tensor[] = aten::broadcast_tensors(%l)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%m)
  %n : int = aten::len(%l)
  return (%a, %b, %n)
"""
    plain = compile_graph(fusejit.parse_ir(text))
    x, y = rand(2, 3), rand(3)
    assert all(op != -2 for op in program_of(plain.code_for(x, y)).native_op)
    a, b, n = plain(x, y)
    np.testing.assert_array_equal(b, np.broadcast_to(y, (2, 3)))
    assert n == 2


def test_matmul_of_two_matrices_is_native_and_other_ranks_are_not_lost():
    text = """graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::matmul(%a, %b)
  return (%c)
"""
    fn = compile_graph(fusejit.parse_ir(text))
    a, b = rand(3, 5), rand(5, 4, seed=1)
    out, calls = native_run(fn, a, b)
    assert calls == 2
    np.testing.assert_allclose(out[0], a @ b, rtol=1e-6)
    for x, y in [(rand(5), rand(5, 4)), (rand(2, 3, 5), rand(5, 4)), (rand(3, 5), rand(5))]:
        np.testing.assert_allclose(fn(x, y), x @ y, rtol=1e-5)


def test_threads_share_one_compiled_loop_with_a_bound_kernel():
    fn = compile_graph(fusejit.parse_ir(LSTM), fuse=True)
    inputs = lstm_inputs(steps=20)
    want = fn(*inputs)
    results: list = [None] * 8

    def work(k: int) -> None:
        for _ in range(25):
            results[k] = fn(*inputs)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got in results:
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_register_files_are_reused_empty_even_after_a_failure():
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="native")
    x, y = rand(4, 8), rand(8, seed=1)
    program = program_of(fn.code_for(x, y, 3))
    first = fn(x, y, 3)
    assert len(program._pool) == 1
    pooled = program._pool[0]
    regs, pc_box, _ = pooled
    assert not regs.tags.any() and not regs.origins and pc_box[0] == 0
    np.testing.assert_array_equal(fn(x, y, 3), first)   # runs on the pooled file
    assert program._pool == [pooled]
    with pytest.raises(InterpreterError):
        fn(x, rand(5, seed=2), 3)                        # y cannot broadcast with x
    assert program._pool == [pooled]                     # emptied and reused after a failure
    assert not regs.tags.any() and not any(regs.objects) and pc_box[0] == 0
    np.testing.assert_array_equal(fn(x, y, 3), first)


def test_a_group_first_run_on_tensors_beyond_the_native_rank_stays_on_the_host():
    text = """graph(%x : Tensor, %y : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %z : Tensor):
      %a : Tensor = aten::mul(%z, %y)
      %b : Tensor = aten::tanh(%a)
      -> (%t, %b)
  return (%out)
"""
    fn = compile_graph(fusejit.parse_ir(text), fuse=True, engine="native")
    x = rand(*([2] * 9))                           # rank 9: more than the register file holds
    y = rand(2, seed=1)
    out = fn(x, y, 3)
    np.testing.assert_allclose(out, np.tanh(np.tanh(np.tanh(x * y) * y) * y), rtol=1e-5,
                               atol=1e-6)


def test_a_failing_binding_warns_and_the_run_goes_on(monkeypatch):
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="native")
    x, y = rand(4, 8), rand(8, seed=1)
    program = program_of(fn.code_for(x, y, 3))

    def broken(*inputs):
        raise RuntimeError("no entry today")

    for kernel in program.kernels:
        monkeypatch.setattr(kernel, "native_binding", broken)
    with pytest.warns(RuntimeWarning, match="no entry today"):
        out = fn(x, y, 3)
    np.testing.assert_allclose(out, loop_numpy(x, y, 3), rtol=1e-5, atol=1e-6)
    assert all(program.kernel_rows[:, 0] == -1)
    np.testing.assert_array_equal(fn(x, y, 3), out)        # on the host from now on


def test_a_group_with_more_tensors_than_an_entry_takes_stays_on_the_host():
    from fusejit.runtime.fusion.compiler import MAX_ENTRY_TENSORS

    n = MAX_ENTRY_TENSORS + 1
    names = [f"%x{k}" for k in range(n)]
    lines = [f"graph({', '.join(name + ' : Tensor' for name in names)}, %n : int):",
             "  %t : bool = prim::Constant[value=1]()",
             "  %out : Tensor = prim::Loop(%n, %t, %x0)",
             "    block0(%i : int, %acc : Tensor):"]
    previous = "%acc"
    for k, name in enumerate(names[1:]):
        lines.append(f"      %m{k} : Tensor = aten::mul({previous}, {name})")
        previous = f"%m{k}"
    lines += [f"      -> (%t, {previous})", "  return (%out)"]
    fn = compile_graph(fusejit.parse_ir("\n".join(lines) + "\n"), fuse=True, engine="native")
    xs = [rand(4, seed=k) for k in range(n)]
    program = program_of(fn.code_for(*xs, 3))
    assert len(program.kernels) == 1
    out = fn(*xs, 3)
    assert program.kernel_rows[0, 0] == -1           # never bound: the host runs the group
    want = xs[0]
    for _ in range(3):
        for x in xs[1:]:
            want = want * x
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_a_declined_first_call_leaves_the_slot_for_a_later_one():
    """An ``np.matrix`` has a plain array's argument spec, so it shares the plan: the kernel
    declines it (the group runs interpreted), and the slot binds at the next plain call."""
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="native")
    x, y = rand(4, 8), rand(4, 8, seed=1)
    program = program_of(fn.code_for(x, y, 3))
    with pytest.warns(PendingDeprecationWarning):
        mx, my = np.asmatrix(x), np.asmatrix(y)
    assert fn.code_for(mx, my, 3) is fn.code_for(x, y, 3)
    np.testing.assert_allclose(fn(mx, my, 3), loop_numpy(x, y, 3), rtol=1e-5, atol=1e-6)
    assert all(program.kernel_rows[:, 0] == 0)       # declined: not bound, not refused
    np.testing.assert_allclose(fn(x, y, 3), loop_numpy(x, y, 3), rtol=1e-5, atol=1e-6)
    assert all(program.kernel_rows[:, 0] == 1)


def test_a_group_with_f_ordered_outputs_runs_on_the_host_in_numpy_order():
    """Outputs in their F-ordered inputs' memory order (``fusion/plan.py``) are not what a
    native entry makes (C-contiguous): such a group stays on the host, each call a host call,
    and its results keep NumPy's layout through the loop."""
    fn = compile_graph(fusejit.parse_ir(LOOP), fuse=True)
    x, y = np.asfortranarray(rand(6, 8)), rand(8, seed=1)
    reference = compile_graph(fusejit.parse_ir(LOOP), fuse=True, engine="reference")
    want = loop_numpy(x, y, 3)
    for _ in range(2):
        out, calls = native_run(fn, x, y, 3)
        assert calls == 2 + 3
        assert out[0].flags.f_contiguous and want.flags.f_contiguous
        np.testing.assert_array_equal(out[0], reference(x, y, 3))
        np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-6)
