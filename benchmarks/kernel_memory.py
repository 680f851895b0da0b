"""RSS growth over many distinct fused kernels compiled in one process.

Each kernel is a fusion group of a different chain of pointwise ops (picked by the digits of
its number), compiled through ``FusedKernel`` and called once on small float32 inputs, then
dropped by the caller, as a service compiling a stream of different graphs would. A kernel
cache that keeps every compiled module forever grows by its compiled code each time.

    python benchmarks/kernel_memory.py [--kernels 500] [--every 50] [--warm]

Prints one line per ``--every`` kernels: kernels so far, RSS in MiB, growth since the first
kernel, MiB per kernel and seconds per kernel over the interval, and how many kernels this
process compiled itself (the rest were compiled by its helper process, ``fusion/isolated.py``,
and loaded from the disk cache). ``--warm`` compiles each
kernel once in a child process first, so the measured process loads them from the disk cache.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time

import numpy as np

import fusejit
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.status import LISTENER

_OPS = [
    "aten::mul({a}, %y)",
    "aten::add({a}, %y, %one)",
    "aten::sub({a}, %y, %one)",
    "aten::tanh({a})",
    "aten::sigmoid({a})",
    "aten::relu({a})",
    "aten::neg({a})",
    "aten::abs({a})",
]


def graph_text(number: int, length: int = 4) -> str:
    """A graph whose chain of ``length`` ops spells ``number`` in base len(_OPS)."""
    lines = ["graph(%x : Float(*, *), %y : Float(*, *)):",
             "  %one : int = prim::Constant[value=1]()"]
    value = "%x"
    for step in range(length):
        op = _OPS[(number // len(_OPS) ** step) % len(_OPS)]
        lines.append(f"  %v{step} : Float(*, *) = {op.format(a=value)}")
        value = f"%v{step}"
    lines.append(f"  return ({value})")
    return "\n".join(lines) + "\n"


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def compile_and_call(number: int) -> None:
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    kernel = FusedKernel(fusejit.parse_ir(graph_text(number)))
    (out,) = kernel(x, x)
    assert out.shape == x.shape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=500)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--first", type=int, default=len(_OPS) ** 3,
                        help="number of the first kernel (distinct runs use distinct ranges)")
    parser.add_argument("--warm", action="store_true",
                        help="compile every kernel in a child process first")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    numbers = range(args.first, args.first + args.kernels)
    if args.child:
        for n in numbers:
            compile_and_call(n)
        return
    if args.warm:
        subprocess.run([sys.executable, __file__, "--child", "--kernels", str(args.kernels),
                        "--first", str(args.first)], check=True)
    compile_and_call(0)              # the helpers every kernel shares, outside the count
    gc.collect()
    base = last = rss_mib()
    start = time.perf_counter()
    print(f"{'kernels':>8} {'RSS MiB':>9} {'growth':>8} {'MiB/kernel':>11} {'s/kernel':>9} "
          f"{'compiled here':>14}")
    for done, n in enumerate(numbers, 1):
        compile_and_call(n)
        if done % args.every == 0 or done == args.kernels:
            gc.collect()
            rss, now = rss_mib(), time.perf_counter()
            count = done % args.every or args.every
            print(f"{done:8d} {rss:9.1f} {rss - base:8.1f} {(rss - last) / count:11.2f} "
                  f"{(now - start) / count:9.2f} {LISTENER.kernels:14d}", flush=True)
            last, start = rss, now


if __name__ == "__main__":
    main()
