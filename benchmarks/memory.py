"""RSS and Numba NRT allocations over time: 100,000 calls of a fused graph with a loop, then
10,000 calls that fail inside the graph (shapes that do not broadcast), then 10,000 direct
``FusedKernel`` calls. A leak shows as RSS or live NRT allocations growing with the count.

    python benchmarks/memory.py [--calls 100000] [--failing 10000] [--every 10000]

Prints one line per ``--every`` calls: calls so far, RSS in MiB, growth since warm-up, live
NRT allocations and meminfos, and microseconds per call over the interval.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np

import fusejit
from fusejit.runtime.fusion import FusedKernel

GRAPH = """graph(%x : Tensor, %y : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %r : Tensor = prim::Loop(%n, %t, %x) # memory.py:1:1
    block0(%i : int, %c : Tensor):
      %a : Tensor = aten::mul(%c, %y) # memory.py:2:5
      %b : Tensor = aten::add(%a, %half, %one)
      %s : Tensor = aten::sigmoid(%b)
      -> (%t, %s)
  %o : Tensor = aten::tanh(%r)
  %p : Tensor = aten::mul(%o, %x)
  return (%p)
"""


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def nrt_live() -> tuple[int, int]:
    from numba.core.runtime import rtsys

    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free, stats.mi_alloc - stats.mi_free


def enable_nrt_stats() -> None:
    from numba.core.runtime import _nrt_python

    _nrt_python.memsys_enable_stats()


def workload(shape=(64, 128)):
    """The compiled function, good and bad inputs, and a kernel with its inputs."""
    graph = fusejit.parse_ir(GRAPH)
    fn = fusejit.compile(graph, fuse=True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    bad_y = np.ones(shape[-1] + 1, np.float32)
    group = next(n for n in fn.graph_for(x, y, 2).all_nodes() if n.kind == "prim::FusionGroup")
    kernel = FusedKernel(group)
    sub = group.g("Subgraph")
    kernel_inputs = [y if v.type.__class__.__name__ == "TensorType" else 0.5
                     for v in sub.inputs]
    return fn, (x, y, 2), (x, bad_y, 2), kernel, kernel_inputs


def run_phase(label: str, call, count: int, every: int, base_rss: int) -> None:
    start = time.perf_counter()
    for done in range(1, count + 1):
        call()
        if done % every == 0 or done == count:
            gc.collect()
            now = time.perf_counter()
            rss = rss_bytes()
            live = nrt_live()
            print(f"{label:8s} {done:7d} calls  RSS {rss / 2**20:8.1f} MiB  "
                  f"(+{(rss - base_rss) / 2**20:6.1f})  NRT live {live}  "
                  f"{(now - start) / (done if done < every else every) * 1e6:7.1f} us/call")
            start = now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--failing", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=10_000)
    args = parser.parse_args()
    fn, good, bad, kernel, kernel_inputs = workload()
    enable_nrt_stats()

    def failing() -> None:
        try:
            fn(*bad)
        except fusejit.InterpreterError:
            return
        raise AssertionError("the bad call did not fail")

    for _ in range(200):                   # warm-up: compile, fill caches and pools
        fn(*good)
        failing()
        kernel(*kernel_inputs)
    gc.collect()
    base = rss_bytes()
    print(f"warm-up done: RSS {base / 2**20:.1f} MiB, NRT live {nrt_live()}")
    run_phase("fused", lambda: fn(*good), args.calls, args.every, base)
    run_phase("failing", failing, args.failing, max(1, args.every // 10), base)
    run_phase("kernel", lambda: kernel(*kernel_inputs), args.failing, max(1, args.every // 10),
              base)


if __name__ == "__main__":
    main()
