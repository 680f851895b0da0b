"""What a warm call costs around the kernel: ``FusedKernel`` (one float32 op, as ``ops.py``
builds it), a ``fusejit.jit`` function of a few ops, and lone reductions of a 3-d array
(``x.mean(axis=0)``: a column kernel; ``x.mean(axis=(1, 2))``: a row kernel) against NumPy,
per call.

    python benchmarks/call_overhead.py [--sizes 16,4096,65536,1048576] [--rounds 9]

Rows: microseconds per call, medians of ``--rounds`` rounds of back-to-back calls (as many as
fit in about 20 ms), one thread's CPU time (``time.thread_time``) with kernels on one thread.
"kernel" calls the compiled kernel's entry point directly on a preallocated output: what the
call costs besides it is the overhead. For ``jit`` it is the fused group's ``FusedKernel``
called alone, or "(whole)" where arrays this small run as one Numba function. "RowKernel"
rows: the group's kernel called alone, and its entry point on a preallocated output; "jit"
rows of reductions: the jitted function and that kernel. The 3-d arrays are
``(4, 4, size // 16)``. The machine is shared and noisy: compare columns of one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("FUSEJIT_TIERING", "0")     # steady state from the first calls
from interpreter import median_time  # noqa: E402
from ops import _kernel  # noqa: E402

import fusejit  # noqa: E402
from fusejit.frontend.jit import WHOLE_GRAPH_MAX_ELEMENTS  # noqa: E402
from fusejit.runtime.fusion import FusedKernel  # noqa: E402
from fusejit.runtime.fusion.row_kernel import RowKernel  # noqa: E402


def _per_call(fn: Callable[[], object], rounds: int) -> float:
    fn()
    start, count = time.thread_time(), 0
    while time.thread_time() - start < 0.02:
        fn()
        count += 1
    return median_time(fn, rounds, count, clock=time.thread_time) * 1e6


def _entry(kernel: FusedKernel, args: tuple) -> Callable[[], object]:
    """The kernel's compiled entry point on a preallocated output (after one call)."""
    kernel(*args)
    (call,) = kernel._calls.values()
    entry = call.entries[True]
    out = np.empty(call.out_shapes[0], call.out_dtypes[0])
    status = np.zeros(1, np.int64)
    tensors = [a for a in args if isinstance(a, np.ndarray)]
    scalars = [a for a in args if not isinstance(a, np.ndarray)]
    return lambda: entry(call.plan.meta, *tensors, *scalars, out, status)


def chain(x, y):
    return np.exp(-x) * y + 1.0


def _rows(size: int, rng: np.random.Generator, rounds: int, jitted) -> None:
    x = rng.uniform(-2, 2, size).astype(np.float32)
    y = rng.uniform(-2, 2, size).astype(np.float32)
    eagers = {"neg": lambda: np.negative(x), "add": lambda: np.add(x, y)}
    for name, call in (("neg", "aten::neg(%x)"), ("add", "aten::add(%x, %y, %one)")):
        kernel = _kernel(call, np.float32)
        row = [_per_call(lambda k=kernel: k(x, y, 2.0), rounds),
               _per_call(_entry(kernel, (x, y, 2.0)), rounds), _per_call(eagers[name], rounds)]
        print(f"{'FusedKernel ' + name:22s} {size:8d} " + " ".join(f"{t:9.2f}" for t in row),
              flush=True)
    for _ in range(3):
        jitted(x, y)
    group = "(whole)"
    if size > WHOLE_GRAPH_MAX_ELEMENTS:
        nodes = [n for n in jitted.graph_for(x, y).all_nodes() if n.kind == "prim::FusionGroup"]
        if len(nodes) == 1:
            kernel = FusedKernel(nodes[0])
            inputs = [{"x": x, "y": y}[v.debug_name] for v in nodes[0].inputs]
            group = f"{_per_call(lambda: kernel(*inputs), rounds):9.2f}"
    print(f"{'jit exp(-x)*y+1':22s} {size:8d} {_per_call(lambda: jitted(x, y), rounds):9.2f} "
          f"{group:>9s} {_per_call(lambda: chain(x, y), rounds):9.2f}", flush=True)


def mean_first_axis(x):
    return x.mean(axis=0)


def mean_last_axes(x):
    return x.mean(axis=(1, 2))


def _reduction_rows(size: int, rng: np.random.Generator, rounds: int) -> None:
    x = rng.uniform(-2, 2, size).astype(np.float32).reshape(4, 4, -1)
    for fn in (mean_first_axis, mean_last_axes):
        _reduction_row(fn, x, size, rounds)


def _reduction_row(fn: Callable, x: np.ndarray, size: int, rounds: int) -> None:
    jitted = fusejit.jit(fn)
    for _ in range(3):
        jitted(x)
    (group,) = [n for n in jitted.graph_for(x).all_nodes()
                if n.kind in ("prim::RowReductionGroup", "prim::ColumnReductionGroup")]
    kernel = RowKernel(group)
    kernel(x)
    (call,) = kernel._calls.values()
    serial, block = call.plan.launch()
    entry, head = call.entries[serial], call.plan.head(block)
    out = np.empty(call.out_shapes[0], call.out_dtypes[0]).reshape(-1)
    flat, status = x.reshape(-1), np.zeros(1, np.int64)
    timed = [_per_call(lambda: kernel(x), rounds),
             _per_call(lambda: entry(*head, flat, out, status), rounds),
             _per_call(lambda: fn(x), rounds)]
    print(f"{'RowKernel ' + fn.__name__:22s} {size:8d} "
          + " ".join(f"{t:9.2f}" for t in timed), flush=True)
    print(f"{'jit ' + fn.__name__:22s} {size:8d} {_per_call(lambda: jitted(x), rounds):9.2f} "
          f"{timed[0]:9.2f} {timed[2]:9.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,4096,65536,1048576")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    fusejit.set_num_threads(1)
    rng = np.random.default_rng(0)
    jitted = fusejit.jit(chain)
    print(f"{'what':22s} {'size':>8s} {'fusejit':>9s} {'kernel':>9s} {'numpy':>9s}   (us a call)")
    for size in (int(s) for s in args.sizes.split(",")):
        _rows(size, rng, args.rounds, jitted)
        _reduction_rows(size, rng, args.rounds)


if __name__ == "__main__":
    main()
