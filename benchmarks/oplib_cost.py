"""The host cost of one op of the op library (``fusejit.oplib``) around the NumPy it runs.

    python benchmarks/oplib_cost.py [--sizes 16,1000,10000,1000000] [--dtypes f4,f8]
                                    [--only add,mul,sum] [--rounds 15]

Each op is called as the interpreters call it (its bound ``Operation``, the body returning a
tuple), on contiguous arrays, against the bare NumPy call that computes the same result
(``np.add(x, y)``, ``np.add.reduce(x)``...) in the same run. Times: nanoseconds per call,
median of ``--rounds`` rounds of back-to-back calls (as many as take about 10 ms), one
thread's CPU time (``time.thread_time``); ``extra`` is the op's time less NumPy's and ``ratio``
NumPy's over the op's (1.0: no cost around NumPy). The machine may be shared and noisy:
compare columns of one run only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interpreter import median_time  # noqa: E402
from small_calls import _calls_in_10ms  # noqa: E402

from fusejit.oplib.table import OPS, Operation  # noqa: E402


def _binary(name: str) -> str:
    return f"aten::{name}(Tensor self, Tensor other) -> Tensor"


# name -> (schema, the op's arguments from x, y, mask; the bare NumPy call)
CASES: dict[str, tuple[str, Callable, Callable]] = {
    "add": ("aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            lambda x, y, m: (x, y, 1), lambda x, y, m: np.add(x, y)),
    "sub": ("aten::sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            lambda x, y, m: (x, y, 1), lambda x, y, m: np.subtract(x, y)),
    "mul": (_binary("mul"), lambda x, y, m: (x, y), lambda x, y, m: np.multiply(x, y)),
    "div": (_binary("div"), lambda x, y, m: (x, y), lambda x, y, m: np.true_divide(x, y)),
    "mul_scalar": ("aten::mul(Tensor self, Scalar other) -> Tensor",
                   lambda x, y, m: (x, 0.5), lambda x, y, m: np.multiply(x, x.dtype.type(0.5))),
    "add_scalar": ("aten::add(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
                   lambda x, y, m: (x, 1.0, 1), lambda x, y, m: np.add(x, x.dtype.type(1.0))),
    "maximum": (_binary("max"), lambda x, y, m: (x, y), lambda x, y, m: np.maximum(x, y)),
    "neg": ("aten::neg(Tensor self) -> Tensor", lambda x, y, m: (x,),
            lambda x, y, m: np.negative(x)),
    "abs": ("aten::abs(Tensor self) -> Tensor", lambda x, y, m: (x,),
            lambda x, y, m: np.absolute(x)),
    "exp": ("aten::exp(Tensor self) -> Tensor", lambda x, y, m: (x,),
            lambda x, y, m: np.exp(x)),
    "where": ("aten::where(Tensor condition, Tensor self, Tensor other) -> Tensor",
              lambda x, y, m: (m, x, y), lambda x, y, m: np.where(m, x, y)),
    "gt": (_binary("gt"), lambda x, y, m: (x, y), lambda x, y, m: np.greater(x, y)),
    "lt_scalar": ("aten::lt(Tensor self, Scalar other) -> Tensor", lambda x, y, m: (x, 0.5),
                  lambda x, y, m: np.less(x, x.dtype.type(0.5))),
    "sum": ("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
            lambda x, y, m: (x, None), lambda x, y, m: np.add.reduce(x)),
    "sum_dim": ("aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, "
                "ScalarType? dtype=None) -> Tensor",
                lambda x, y, m: (x, [0], False, None), lambda x, y, m: np.add.reduce(x, 0)),
    "amax": ("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
             lambda x, y, m: (x, [], False), lambda x, y, m: np.maximum.reduce(x)),
    "mean": ("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
             lambda x, y, m: (x, None), lambda x, y, m: np.mean(x)),
}


def measure(name: str, size: int, dtype: str, rounds: int,
            rng: np.random.Generator) -> tuple[float, float]:
    """(op, NumPy) nanoseconds a call of ``name`` on ``size`` elements of ``dtype``."""
    schema, arguments, bare = CASES[name]
    x = rng.uniform(0.5, 2, size).astype(dtype)
    y = rng.uniform(0.5, 2, size).astype(dtype)
    m = x > 1.2
    overload = OPS[schema]
    op = Operation(overload, schema, overload.numpy_body, 1)
    args = arguments(x, y, m)
    got, expected = op(*args)[0], np.asarray(bare(x, y, m))
    if got.dtype != expected.dtype or got.shape != expected.shape:
        raise AssertionError(f"{name}: {got.dtype}{got.shape} != {expected.dtype}"
                             f"{expected.shape}")
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "f4" else 1e-12)
    times = []
    for call in (lambda: op(*args), lambda: bare(x, y, m)):
        inner = _calls_in_10ms(call)
        times.append(median_time(call, rounds, inner, clock=time.thread_time) * 1e9)
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,1000,10000,1000000")
    parser.add_argument("--dtypes", default="f4,f8")
    parser.add_argument("--only", default=",".join(CASES))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'op':11s} {'dtype':5s} {'size':>8s} {'oplib':>10s} {'numpy':>10s} {'extra':>8s} "
          f"{'ratio':>6s}   (ns a call)", flush=True)
    for name in args.only.split(","):
        for dtype in args.dtypes.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                ours, bare = measure(name, size, dtype, args.rounds, rng)
                print(f"{name:11s} {dtype:5s} {size:8d} {ours:10.0f} {bare:10.0f} "
                      f"{ours - bare:8.0f} {bare / ours:6.2f}", flush=True)


if __name__ == "__main__":
    main()
