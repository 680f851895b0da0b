"""Warm calls of everyday ``@fusejit.jit`` functions on small to medium arrays, against NumPy
eager and ``numba.njit`` in the same run: where does a jitted function cost more than the NumPy
it was written in, and from what size on is it faster?

    python benchmarks/small_calls.py [--sizes 1,10,100,1000,10000,100000] [--dtypes f4,f8]
                                     [--only chain3,softmax] [--rounds 15]

Functions are written the NumPy way (one op, 3- and 10-op chains, a chain and a sum, softmax
over the last axis of ``(size // c, c)``, a Python float argument, two outputs, a 0-d result,
lone reductions: ``np.max(x)``, the max of each of 10 long rows, the sum over the first axis
of a ``(4, 4, size // 16)`` array).
Tiering stays as users have it (on, unless ``FUSEJIT_TIERING`` is set): each case is called for
``--warm`` seconds first, which is past the tiers' switch points. Times: microseconds per call,
median of ``--rounds`` rounds of back-to-back calls (as many as take about 10 ms), one thread's
CPU time (``time.thread_time``), kernels and NumPy on one thread. The last column is NumPy's
time over fusejit's (> 1: fusejit is faster). The machine is shared and noisy: compare columns
of one run only.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interpreter import median_time  # noqa: E402

import fusejit  # noqa: E402


def op1(x, y):
    return x + y


def chain3(x, y):
    return np.tanh(x) * y + 1.0


def chain10(x, y):
    a = np.exp(-x * x) * y + 1.0
    b = np.sqrt(np.abs(a)) - y * 0.5
    return np.maximum(b, 0.0) * x


def chain_sum(x, y):
    return (x * y + 1.0).sum()


def softmax(x, y):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scaled(x, a):
    return x * a + 1.0


def two_outputs(x, y):
    return x + y, x * y


def zero_d(x, y):
    return (x * y).max()


def max_all(x, y):
    return np.max(x)


def long_rows_max(x, y):
    return x.max(axis=1)


def sum_first_axis(x, y):
    return x.sum(axis=0)


FUNCTIONS: dict[str, Callable] = {f.__name__: f for f in (
    op1, chain3, chain10, chain_sum, softmax, scaled, two_outputs, zero_d, max_all,
    long_rows_max, sum_first_axis)}


def _calls_in_10ms(fn: Callable[[], object]) -> int:
    fn()
    start, count = time.thread_time(), 0
    while time.thread_time() - start < 0.01:
        fn()
        count += 1
    return count


def _arguments(name: str, size: int, dtype: str, rng: np.random.Generator) -> tuple:
    x = rng.uniform(-2, 2, size).astype(dtype)
    y = rng.uniform(-2, 2, size).astype(dtype)
    if name == "softmax":
        columns = min(size, 100)
        return x.reshape(size // columns, columns), y
    if name == "scaled":
        return x, 0.5
    if name == "long_rows_max":         # (10 rows)
        rows = min(size, 10)
        return x[:size // rows * rows].reshape(rows, -1), y
    if name == "sum_first_axis":        # (a 3-d array: 4 x 4 x size // 16)
        side = 4 if size >= 16 else 1
        return x[:size // side ** 2 * side ** 2].reshape(side, side, -1), y
    return x, y


def _numba(fn: Callable) -> Callable | None:
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(cache=False)(fn)


def _case(name: str, size: int, dtype: str, rounds: int, warm: float,
          rng: np.random.Generator) -> list[float]:
    fn = FUNCTIONS[name]
    args = _arguments(name, size, dtype, rng)
    jitted, njitted = fusejit.jit(fn), _numba(fn)
    try:
        if njitted is not None:
            njitted(*args)
    except Exception:  # noqa: BLE001 - what Numba does not compile (keepdims=) has no column
        njitted = None
    expected = fn(*args)
    start = time.perf_counter()
    while time.perf_counter() - start < warm:
        got = jitted(*args)
    for g, e in zip(*(((v,) if not isinstance(v, tuple) else v) for v in (got, expected))):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    times = []
    for call in (lambda: jitted(*args), lambda: fn(*args),
                 (lambda: njitted(*args)) if njitted is not None else None):
        if call is None:
            times.append(math.nan)
            continue
        inner = _calls_in_10ms(call)
        times.append(median_time(call, rounds, inner, clock=time.thread_time) * 1e6)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,10,100,1000,10000,100000")
    parser.add_argument("--dtypes", default="f4,f8")
    parser.add_argument("--only", default=",".join(FUNCTIONS))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--warm", type=float, default=1.0)
    args = parser.parse_args()
    fusejit.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"{'function':12s} {'dtype':5s} {'size':>7s} {'fusejit':>9s} {'numpy':>9s} "
          f"{'njit':>9s} {'np/fj':>6s}   (us a call)", flush=True)
    for name in args.only.split(","):
        for dtype in args.dtypes.split(","):
            crossover = None
            for size in (int(s) for s in args.sizes.split(",")):
                fj, eager, nb = _case(name, size, dtype, args.rounds, args.warm, rng)
                ratio = eager / fj
                if ratio >= 1.0 and crossover is None:
                    crossover = size
                elif ratio < 1.0:
                    crossover = None
                print(f"{name:12s} {dtype:5s} {size:7d} {fj:9.2f} {eager:9.2f} {nb:9.2f} "
                      f"{ratio:6.2f}{'' if ratio >= 1.0 else '  SLOWER'}", flush=True)
            print(f"{name:12s} {dtype:5s} crossover: "
                  f"{'never' if crossover is None else f'>= {crossover}'}", flush=True)


if __name__ == "__main__":
    main()
