"""What compiling one kernel costs: each kernel compiled first in a fresh process with an empty
kernel cache, after a small warm-up kernel (so Numba's own start-up is not counted), in CPU
seconds of that process; with the time of Numba's passes that took the most.

    python benchmarks/compile_time.py [--repeat N] [--parallel] [NAME ...]

Kernels: ``ops18`` (18 float32 ops of every kind, 18 outputs, as a test_ops group),
``chain_f32`` (a float32 chain of transcendentals), ``inputs124`` (124 inputs summed, then a
sigmoid: PyTorch's many_inputs corpus group), ``softmax`` (a row kernel), ``add`` (one op).
``--parallel`` compiles the parallel variant instead of the serial one (inputs large enough,
or the serial threshold lowered to 0). Prints medians of ``--repeat`` fresh processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
import numpy as np
import fusejit
from fusejit.runtime.fusion import FusedKernel, cache, plan
from fusejit.runtime.fusion.row_kernel import RowKernel
from fusejit.ir.symbols import prim

name, parallel, marginal = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
rng = np.random.default_rng(0)


def graph(params, body, outs):
    return fusejit.parse_ir(f"graph({params}):\n  %one : int = prim::Constant[value=1]()\n"
                            f"  %h : float = prim::Constant[value=0.5]()\n{body}"
                            f"  return ({outs})\n")


def ops18():
    calls = ["exp(%x)", "log(%x)", "sin(%x)", "tanh(%x)", "sigmoid(%x)", "erf(%x)",
             "lgamma(%x)", "atan2(%x, %y)", "pow(%x, %y)", "add(%x, %y, %one)", "mul(%x, %y)",
             "div(%x, %y)", "floor(%x)", "clamp(%x, %h, %h)", "max(%x, %y)", "sqrt(%x)",
             "lt(%x, %y)", "where(%c, %x, %y)"]
    body = "  %c : Tensor = aten::gt(%x, %y)\n" + "".join(
        f"  %o{i} : Tensor = aten::{call}\n" for i, call in enumerate(calls))
    g = graph("%x : Float(*, *), %y : Float(*)", body,
              ", ".join(f"%o{i}" for i in range(len(calls))))
    return FusedKernel(g), lambda n: (rng.random((n, 7), np.float32) + 0.5,
                                      rng.random(7, np.float32) + 0.5)


def chain_f32():
    body = ("  %a : Tensor = aten::mul(%x, %x)\n  %b : Tensor = aten::neg(%a)\n"
            "  %c : Tensor = aten::exp(%b)\n  %d : Tensor = aten::sin(%x)\n"
            "  %e : Tensor = aten::mul(%c, %d)\n  %f : Tensor = aten::tanh(%e)\n"
            "  %g : Tensor = aten::log1p(%a)\n  %k : Tensor = aten::add(%f, %g, %one)\n"
            "  %m : Tensor = aten::sigmoid(%k)\n  %p : Tensor = aten::cos(%m)\n"
            "  %q : Tensor = aten::sqrt(%a)\n  %r : Tensor = aten::mul(%p, %q)\n")
    return FusedKernel(graph("%x : Float(*)", body, "%r")), \
        lambda n: (rng.standard_normal(n * 7).astype(np.float32),)


def add():
    return FusedKernel(graph("%x : Float(*), %y : Float(*)",
                             "  %o : Tensor = aten::add(%x, %y, %one)\n", "%o")), \
        lambda n: (rng.random(n * 7, np.float32), rng.random(n * 7, np.float32))


def inputs124():
    count = 124
    params = ", ".join(f"%x{i} : Float(*)" for i in range(count))
    body = "".join(f"  %s{i} : Tensor = aten::add(%{'x0' if i == 1 else f's{i - 1}'}, %x{i},"
                   f" %one)\n" for i in range(1, count))
    body += f"  %o : Tensor = aten::sigmoid(%s{count - 1})\n"
    return FusedKernel(graph(params, body, "%o")), \
        lambda n: tuple(rng.random(n * 7, np.float32) for _ in range(count))


def softmax():
    from fusejit.examples import softmax as fn
    fused = fusejit.compile(fusejit.script(fn), fuse=True, reductions=True)
    x = rng.random((4, 8), np.float32)
    (group,) = [n for n in fusejit.jit(fn).graph_for(x).all_nodes()
                if n.kind == prim.RowReductionGroup]
    del fused
    return RowKernel(group), lambda n: (rng.random((n, 64), np.float32),)


if parallel:
    plan.SERIAL_WORK_NS = 0
start = time.process_time()
kernel, inputs = add() if name != "add" else chain_f32()     # warm-up: Numba's own start-up
kernel(*inputs(4))
kernel, inputs = globals()[name]()
if marginal:
    # the helpers the kernel calls compiled first, by the same kernel for reversed inputs
    kernel(*[x[..., ::2] for x in inputs(4096)])
cache._modules.clear()
warm = time.process_time() - start
args = inputs(64)
t0, w0 = time.process_time(), time.perf_counter()
kernel(*args)
cpu, wall = time.process_time() - t0, time.perf_counter() - w0
passes = {}
for module in cache._modules.values():
    for fn in vars(module).values():
        for cres in getattr(fn, "overloads", {}).values():
            for times in cres.metadata.get("pipeline_times", {}).values():
                for pname, t in times.items():
                    key = pname.split("_", 1)[1]
                    passes[key] = passes.get(key, 0.0) + t.run
print(json.dumps({"from": fusejit.__file__, "cpu": cpu, "wall": wall, "warm": warm,
                  "passes": passes}))
"""

NAMES = ["ops18", "chain_f32", "inputs124", "softmax", "add"]


def run(name: str, parallel: bool, marginal: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="fjcompile-") as cache:
        env = dict(os.environ, FUSEJIT_CACHE_DIR=cache, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", CHILD, name, "1" if parallel else "0",
                              "1" if marginal else "0"],
                             env=env, cwd=cache, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--parallel", action="store_true")
    parser.add_argument("--marginal", action="store_true",
                        help="compile the helpers the kernel calls first (another variant)")
    args = parser.parse_args()
    print(f"{'kernel':<12} {'cpu s':>7} {'wall s':>7}   top passes (s)")
    for name in args.names or NAMES:
        runs = [run(name, args.parallel, args.marginal) for _ in range(args.repeat)]
        cpu = statistics.median(r["cpu"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        passes = runs[0]["passes"]
        top = sorted(passes.items(), key=lambda kv: -kv[1])[:4]
        shown = ", ".join(f"{k} {v:.2f}" for k, v in top)
        print(f"{name:<12} {cpu:7.2f} {wall:7.2f}   {shown}", flush=True)


if __name__ == "__main__":
    main()
