"""How ``fuse_graph`` time grows with graph size, on three synthetic shapes of graph.

* chain: ``x -> exp -> sin -> exp -> ...``: one group swallowing every node.
* diamonds: ``t = f(x)`` feeding two branches that meet again (``exp``/``sin`` -> ``mul``),
  repeated; everything fuses, and each producer has two consumers (group outputs, fixpoint).
* small groups: ``exp -> sin -> mm`` repeated: one two-op group per ``mm`` barrier.

Run ``python benchmarks/fuser_scaling.py [max_nodes]``; prints seconds per size and the ratio to
the previous size (10x nodes: ~10x time is linear, ~100x quadratic).
"""

from __future__ import annotations

import sys
import time

from fusejit import parse_ir
from fusejit.passes import fuse_graph

T = "Float(8, 8, strides=[8, 1], requires_grad=0, device=cpu)"


def chain(n: int) -> str:
    lines = [f"graph(%x : {T}):"]
    prev = "%x"
    for i in range(n):
        op = "exp" if i % 2 else "sin"
        lines.append(f"  %c{i} : {T} = aten::{op}({prev})")
        prev = f"%c{i}"
    lines.append(f"  return ({prev})")
    return "\n".join(lines) + "\n"


def diamonds(n: int) -> str:
    lines = [f"graph(%x : {T}):"]
    prev = "%x"
    for i in range(n // 3):
        lines.append(f"  %a{i} : {T} = aten::exp({prev})")
        lines.append(f"  %b{i} : {T} = aten::sin({prev})")
        lines.append(f"  %m{i} : {T} = aten::mul(%a{i}, %b{i})")
        prev = f"%m{i}"
    lines.append(f"  return ({prev})")
    return "\n".join(lines) + "\n"


def small_groups(n: int) -> str:
    lines = [f"graph(%x : {T}, %w : {T}):"]
    prev = "%x"
    for i in range(n // 3):
        lines.append(f"  %e{i} : {T} = aten::exp({prev})")
        lines.append(f"  %s{i} : {T} = aten::sin(%e{i})")
        lines.append(f"  %m{i} : {T} = aten::mm(%s{i}, %w)")
        prev = f"%m{i}"
    lines.append(f"  return ({prev})")
    return "\n".join(lines) + "\n"


def time_fuse(text: str) -> float:
    graph = parse_ir(text)
    start = time.perf_counter()
    fuse_graph(graph)
    return time.perf_counter() - start


def main(max_nodes: int = 100_000) -> None:
    sizes = [n for n in (1_000, 10_000, 100_000) if n <= max_nodes]
    print(f"{'graph':<14}{'nodes':>8}{'seconds':>10}{'x prev':>9}")
    for name, make in (("chain", chain), ("diamonds", diamonds), ("small groups", small_groups)):
        previous = None
        for n in sizes:
            seconds = time_fuse(make(n))
            ratio = f"{seconds / previous:8.1f}x" if previous else ""
            print(f"{name:<14}{n:>8}{seconds:>10.3f}{ratio:>9}", flush=True)
            previous = seconds


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
