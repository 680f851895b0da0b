"""Interpreter speed: the native loop against the reference loop, CPython, NumPy and (when
installed) TorchScript, all measured in this run. Medians of repeated runs.

    python benchmarks/interpreter.py            # everything, including fresh-process starts
    python benchmarks/interpreter.py --quick    # skip the cold-cache start (a minute or more)

Prints, next to the issue's goals:
- ns per instruction of a scalar while-loop with an if inside (instructions counted by
  running the same Code on the reference engine);
- ns per small tensor op (64 float32): a loop with the op minus the same loop without it;
- a 100-step LSTM loop, batch 1, hidden 64, unfused (mm, add, ConstantChunk, sigmoid, tanh);
- the first call in a fresh process (import fusejit included), with an empty and a warm cache.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from fusejit import parse_ir
from fusejit.examples import WHILE_IF
from fusejit.runtime.code import Code
from fusejit.runtime.executor import compile as compile_graph
from fusejit.runtime.reference import InterpreterState


def while_if_python(n: int) -> int:
    k = acc = 0
    while k < n:
        if k % 2 == 0:
            acc += k
        else:
            acc -= 1
        k += 1
    return acc


def small_op_graph(with_op: bool) -> str:
    body = "%y2 : Tensor = aten::mul(%x, %x)\n      " if with_op else ""
    result = "%y2" if with_op else "%y"
    return f"""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %y : Tensor):
      {body}-> (%t, {result})
  return (%out)
"""


LSTM = """graph(%xs : Tensor, %h0 : Tensor, %c0 : Tensor, %w_ih : Tensor, %w_hh : Tensor,
      %b : Tensor, %steps : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %h : Tensor, %c : Tensor = prim::Loop(%steps, %t, %h0, %c0)
    block0(%i : int, %hp : Tensor, %cp : Tensor):
      %x : Tensor = aten::select(%xs, %zero, %i)
      %xr : int[] = prim::ListConstruct(%one, %n64)
      %x2 : Tensor = aten::view(%x, %xr)
      %g1 : Tensor = aten::mm(%x2, %w_ih)
      %g2 : Tensor = aten::mm(%hp, %w_hh)
      %g3 : Tensor = aten::add(%g1, %g2, %one)
      %g : Tensor = aten::add(%g3, %b, %one)
      %ig : Tensor, %fg : Tensor, %gg : Tensor, %og : Tensor = prim::ConstantChunk[chunks=4, dim=1](
          %g)
      %i2 : Tensor = aten::sigmoid(%ig)
      %f2 : Tensor = aten::sigmoid(%fg)
      %g4 : Tensor = aten::tanh(%gg)
      %o2 : Tensor = aten::sigmoid(%og)
      %fc : Tensor = aten::mul(%f2, %cp)
      %ic : Tensor = aten::mul(%i2, %g4)
      %cn : Tensor = aten::add(%fc, %ic, %one)
      %tc : Tensor = aten::tanh(%cn)
      %hn : Tensor = aten::mul(%o2, %tc)
      -> (%t, %hn, %cn)
  return (%h, %c)
""".replace("%n64", "%sixty_four").replace(
    "  %zero : int = prim::Constant[value=0]()\n",
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %sixty_four : int = prim::Constant[value=64]()\n")


def lstm_numpy(xs, h, c, w_ih, w_hh, b, steps):
    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    for i in range(steps):
        g = xs[i].reshape(1, 64) @ w_ih + h @ w_hh + b
        ig, fg, gg, og = np.split(g, 4, axis=1)
        c = sigmoid(fg) * c + sigmoid(ig) * np.tanh(gg)
        h = sigmoid(og) * np.tanh(c)
    return h, c


def median_time(fn, repeats: int = 7, inner: int = 1, clock=time.perf_counter) -> float:
    """The median over ``repeats`` rounds of ``inner`` calls of ``fn``, per call, by ``clock``
    (wall time; ``call_overhead.py`` passes ``time.thread_time``)."""
    times = []
    for _ in range(repeats):
        start = clock()
        for _ in range(inner):
            fn()
        times.append((clock() - start) / inner)
    return statistics.median(times)


def executed_instructions(code: Code, stack: list) -> int:
    """How many instructions the reference engine executes for ``stack``."""

    class Counting(list):
        count = 0

        def __getitem__(self, pc):
            Counting.count += 1
            return list.__getitem__(self, pc)

    rows = code.rows
    code.rows = Counting(rows)
    try:
        InterpreterState(code).run(list(stack))
    finally:
        code.rows = rows
    return Counting.count


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def bench_while_if() -> None:
    n = 1_000_000
    graph = parse_ir(WHILE_IF)
    native = compile_graph(graph)
    assert native(n) == while_if_python(n) == compile_graph(graph, engine="reference")(1000) \
        * 0 + while_if_python(n)
    per_iter = executed_instructions(Code(graph), [1001]) - executed_instructions(
        Code(graph), [1000])
    t_native = median_time(lambda: native(n)) / n
    t_python = median_time(lambda: while_if_python(n)) / n
    reference = compile_graph(graph, engine="reference")
    t_reference = median_time(lambda: reference(20_000), repeats=3) / 20_000
    print(f"scalar while+if: {per_iter} instructions/iteration")
    print(f"  native     {t_native * 1e9:8.1f} ns/iteration  {t_native * 1e9 / per_iter:6.2f} "
          f"ns/instruction   (goal <= 5 ns/instruction, >= 3x CPython)")
    print(f"  CPython    {t_python * 1e9:8.1f} ns/iteration  -> native is "
          f"{t_python / t_native:.1f}x faster   (issue: CPython 70-110 ns, TorchScript 200-290)")
    print(f"  reference  {t_reference * 1e9:8.1f} ns/iteration")
    if torch_available():
        import torch

        @torch.jit.script
        def ts(n: int) -> int:
            k = 0
            acc = 0
            while k < n:
                if k % 2 == 0:
                    acc += k
                else:
                    acc -= 1
                k += 1
            return acc

        ts(10)
        print(f"  TorchScript {median_time(lambda: ts(n)) / n * 1e9:7.1f} ns/iteration")
    else:
        print("  TorchScript: not installed")


def bench_small_op() -> None:
    n = 200_000
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    with_op = compile_graph(parse_ir(small_op_graph(True)))
    without = compile_graph(parse_ir(small_op_graph(False)))
    ref = compile_graph(parse_ir(small_op_graph(True)), engine="reference")(x, 5)
    np.testing.assert_array_equal(with_op(x, 5), ref)
    t_op = median_time(lambda: with_op(x, n)) / n
    t_loop = median_time(lambda: without(x, n)) / n
    y = x.copy()

    def numpy_loop():
        z = y
        for _ in range(n):
            z = x * x
        return z

    def empty_loop():
        z = y
        for _ in range(n):
            z = z
        return z

    t_numpy = (median_time(numpy_loop) - median_time(empty_loop)) / n
    print("small tensor op (mul of 64 float32, new result each time):")
    print(f"  native     {(t_op - t_loop) * 1e9:8.1f} ns/op  (loop with op {t_op * 1e9:.1f}, "
          f"without {t_loop * 1e9:.1f})   (goal <= 150 ns)")
    print(f"  NumPy      {t_numpy * 1e9:8.1f} ns/op   (issue: NumPy ~900 ns, TorchScript "
          f"1.2-1.8 us)")


def bench_lstm() -> None:
    rng = np.random.default_rng(1)
    f32 = np.float32
    steps = 100
    args = (rng.standard_normal((steps, 64)).astype(f32), np.zeros((1, 64), f32),
            np.zeros((1, 64), f32), (rng.standard_normal((64, 256)) * 0.1).astype(f32),
            (rng.standard_normal((64, 256)) * 0.1).astype(f32),
            (rng.standard_normal((1, 256)) * 0.1).astype(f32), steps)
    graph = parse_ir(LSTM)
    native = compile_graph(graph)
    reference = compile_graph(graph, engine="reference")
    h, c = native(*args)
    h_np, c_np = lstm_numpy(*args)
    np.testing.assert_allclose(h, h_np, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, reference(*args)[0], rtol=1e-5, atol=1e-6)
    t_native = median_time(lambda: native(*args), repeats=9)
    t_reference = median_time(lambda: reference(*args), repeats=5)
    t_numpy = median_time(lambda: lstm_numpy(*args), repeats=9)
    print("LSTM, 100 steps, batch 1, hidden 64, unfused:")
    print(f"  native     {t_native * 1e3:8.3f} ms   (goal < 1 ms; issue: NumPy 4.5 ms, "
          f"TorchScript 5.0 ms, jax.jit+scan 1.1 ms)")
    print(f"  NumPy      {t_numpy * 1e3:8.3f} ms")
    print(f"  reference  {t_reference * 1e3:8.3f} ms")


FIRST_CALL = """
import time
start = time.perf_counter()
import numpy as np
import fusejit
from fusejit.runtime.executor import compile
fn = compile(fusejit.parse_ir('''graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %one)
  %m : int = aten::mul(%n, %n)
  return (%y, %m)'''), engine="native")
fn(np.ones(4, np.float32), 3)
print(time.perf_counter() - start)
"""


def bench_first_call(cold: bool) -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, FUSEJIT_CACHE_DIR=cache)   # all of fusejit's compiled code
        runs = []
        if cold:
            runs.append(("cold cache", _fresh_process(env)))
        else:
            _fresh_process(env)  # fill this private cache
        warm = [_fresh_process(env) for _ in range(3)]
        runs.append(("warm cache", statistics.median(warm)))
    print("first call in a fresh process (import fusejit included):")
    for name, seconds in runs:
        goal = "   (goal <= 1.5 s)" if name == "warm cache" else ""
        print(f"  {name:10s} {seconds:8.2f} s{goal}")


def _fresh_process(env: dict) -> float:
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"fusejit interpreter benchmark ({os.cpu_count()} CPUs); medians")
    bench_while_if()
    bench_small_op()
    bench_lstm()
    bench_first_call(cold=not quick)


if __name__ == "__main__":
    main()
