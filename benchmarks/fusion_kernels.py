"""Fused CPU kernels against NumPy eager and NumExpr, measured in the same run.

    python benchmarks/fusion_kernels.py [--precise] [--repeat N]

Cases: the LSTM cell's pointwise part (the corpus's FusionGroup: four gate tensors chunked in
four, sigmoid/tanh, two outputs) at batch 1024 x hidden 4096 and 64 x 512, float32; and a
12-op elementwise chain on 2^24 float32 values. Prints median times and ratios.
"""

from __future__ import annotations

import argparse
import os

import numexpr as ne
import numpy as np
from fusion import median_time  # (this folder's benchmarks/fusion.py)

import fusejit
from fusejit.runtime.fusion import FusedKernel

_HERE = os.path.dirname(os.path.abspath(__file__))
_CORPUS = os.path.join(_HERE, "..", "tests", "data", "conformance", "lstm_cell",
                       "expected_fused.ir")

CHAIN_IR = """graph(%x : Float(*), %y : Float(*)):
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %a : Float(*) = aten::mul(%x, %y)
  %b : Float(*) = aten::add(%a, %x, %one)
  %c : Float(*) = aten::sigmoid(%b)
  %d : Float(*) = aten::mul(%c, %half)
  %e : Float(*) = aten::sub(%d, %y, %one)
  %f : Float(*) = aten::tanh(%e)
  %g : Float(*) = aten::mul(%f, %f)
  %h : Float(*) = aten::add(%g, %a, %one)
  %i : Float(*) = aten::exp(%h)
  %j : Float(*) = aten::div(%i, %b)
  %k : Float(*) = aten::neg(%j)
  %l : Float(*) = aten::relu(%k)
  return (%l)
"""


def chain_numpy(x, y):
    a = x * y
    b = a + x
    c = 1 / (1 + np.exp(-b))
    e = c * np.float32(0.5) - y
    f = np.tanh(e)
    h = f * f + a
    j = np.exp(h) / b
    return np.maximum(-j, 0)


def chain_numexpr(x, y):
    return ne.evaluate("where(-(exp(tanh(0.5 / (1 + exp(-(x * y + x))) - y) ** 2 + x * y)"
                       " / (x * y + x)) > 0, -(exp(tanh(0.5 / (1 + exp(-(x * y + x))) - y)"
                       " ** 2 + x * y) / (x * y + x)), 0)")


def lstm_numpy(cx, ig, hg, b_ih, b_hh):
    gates = b_hh + b_ih + ig + hg
    i, f, g, o = np.split(gates, 4, axis=1)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    cy = sig(f) * cx + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(cy), cy


def lstm_numexpr(cx, ig, hg, b_ih, b_hh):
    h = cx.shape[1]
    gates = ne.evaluate("b_hh + b_ih + ig + hg")
    i, f, g, o = (gates[:, k * h:(k + 1) * h] for k in range(4))
    cy = ne.evaluate("1 / (1 + exp(-f)) * cx + 1 / (1 + exp(-i)) * tanh(g)")
    hy = ne.evaluate("1 / (1 + exp(-o)) * tanh(cy)")
    return hy, cy


def report(name: str, times: dict[str, float]) -> None:
    base = times["numpy"]
    print(f"{name}")
    for key, t in times.items():
        print(f"  {key:10s} {t * 1e3:9.3f} ms   numpy/this = {base / t:6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--precise", action="store_true", help="libm exp/tanh/log in kernels")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    graph = fusejit.parse_ir(open(_CORPUS).read())
    group = next(n for n in graph.all_nodes() if n.kind == "prim::FusionGroup")
    lstm = FusedKernel(group, precise=args.precise)
    for batch, hidden in ((1024, 4096), (64, 512)):
        cx = rng.standard_normal((batch, hidden), dtype=np.float32)
        ig = rng.standard_normal((batch, 4 * hidden), dtype=np.float32)
        hg = rng.standard_normal((batch, 4 * hidden), dtype=np.float32)
        b_ih = rng.standard_normal(4 * hidden, dtype=np.float32)
        b_hh = rng.standard_normal(4 * hidden, dtype=np.float32)
        # The group's inputs, as the graph passes them: broadcast_tensors of (b_hh, b_ih, ...).
        shape = (batch, 4 * hidden)
        inputs = (cx, hg, ig, np.broadcast_to(b_ih, shape), np.broadcast_to(b_hh, shape))
        hy, cy = lstm(*inputs)
        want = lstm_numpy(cx, ig, hg, b_ih, b_hh)
        err = max(float(np.max(np.abs(hy - want[0]))), float(np.max(np.abs(cy - want[1]))))
        times = {"fusejit": median_time(lambda: lstm(*inputs), args.repeat),  # noqa: B023
                 "numpy": median_time(lambda: lstm_numpy(cx, ig, hg, b_ih, b_hh),  # noqa: B023
                                      args.repeat),
                 "numexpr": median_time(lambda: lstm_numexpr(cx, ig, hg, b_ih, b_hh),  # noqa: B023
                                        args.repeat)}
        report(f"LSTM cell pointwise {batch}x{hidden} float32 (max abs diff {err:.2e})", times)
    chain = FusedKernel(fusejit.parse_ir(CHAIN_IR), precise=args.precise)
    x = rng.uniform(-1, 1, 1 << 24).astype(np.float32)
    y = rng.uniform(-1, 1, 1 << 24).astype(np.float32)
    (got,) = chain(x, y)
    want = chain_numpy(x, y)
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1)))
    times = {"fusejit": median_time(lambda: chain(x, y), args.repeat),
             "numpy": median_time(lambda: chain_numpy(x, y), args.repeat),
             "numexpr": median_time(lambda: chain_numexpr(x, y), args.repeat)}
    report(f"12-op chain on 2^24 float32 (max rel diff {err:.2e})", times)


if __name__ == "__main__":
    main()
