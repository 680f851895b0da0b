"""Everyday NumPy programs on medium arrays (10^4 elements by default), where the cost of each
call around the arithmetic decides: ``@fusejit.jit`` against NumPy eager in the same run.

    python benchmarks/medium.py [--n N] [--repeat R] [--only NAME,...]

Stencils and differences of slices, running sums and products, masked fixes of a copy, integer
bucketing, a one-hot scatter, gathers and scatters by index arrays, a counting loop,
transposed broadcasting: the programs are written as a NumPy
user writes them. Each is called until its kernels are compiled (``FUSEJIT_TIERING`` as set:
the first calls may run interpreted while a background process compiles), then timed: per
round, as many calls of each engine as fit in ~20 ms, NumPy and fusejit alternating; the
median over ``--repeat`` rounds. Each result is checked against NumPy's first. Prints one row
per program and the ratio NumPy time / fusejit time (> 1: fusejit is faster). The machine is
shared: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import fusejit  # noqa: E402


def int_arith(a, b):
    return (a * 3 + b // 2) % 7 - (a & b)


def count_in_range(x, lo, hi):
    return np.count_nonzero((x >= lo) & (x < hi))


def laplacian2d(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]


def first_difference(x):
    return x[1:] - x[:-1]


def moving_average(x, w):
    c = np.cumsum(x)
    return (c[w:] - c[:-w]) / w


def euler_step(x, v, dt):
    a = -x * 0.5 - 0.1 * v
    return x + dt * v, v + dt * a


def center_rows_via_T(X):
    return (X.T - X.mean(axis=1)).T


def cumulative_returns(p):
    r = p[1:] / p[:-1]
    return np.cumprod(r) - 1.0


def copy_and_modify(x):
    y = x.copy()
    y[y < 0] = 0
    return y * 2


def nan_to_zero_mean(x):
    y = x * 1.0
    y[np.isnan(y)] = 0.0
    return y.mean()


def bucket_and_phase(t, period):
    return t // period, t % period


def one_hot(labels, k):
    out = np.zeros((labels.shape[0], k), np.float32)
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def gather_scale(x, idx):
    return x[idx] * 2.0


def palette_lookup(codes, table):
    return table[codes]


def count_labels(labels, k):
    counts = np.zeros(k)
    for i in range(labels.shape[0]):
        counts[labels[i]] += 1.0
    return counts


def scatter_fix(x, idx):
    y = x.copy()
    y[idx] = 0.0
    return y


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def cases(n: int):
    rng = np.random.default_rng(0)
    side = max(3, int(n ** 0.5))
    with_nans = rng.standard_normal(n)
    with_nans[::17] = np.nan
    yield "int_arith", int_arith, (rng.integers(0, 100, n), rng.integers(1, 100, n))
    yield "count_in_range", count_in_range, (rng.standard_normal(n), -0.5, 0.5)
    yield "laplacian2d", laplacian2d, (rng.standard_normal((side, side)),)
    yield "first_difference", first_difference, (rng.standard_normal(n),)
    yield "moving_average", moving_average, (rng.standard_normal(n), 5)
    yield "euler_step", euler_step, (rng.standard_normal(n), rng.standard_normal(n), 0.01)
    yield "center_rows_via_T", center_rows_via_T, (rng.standard_normal((side, side)),)
    yield "cumulative_returns", cumulative_returns, (rng.uniform(1, 2, n),)
    yield "copy_and_modify", copy_and_modify, (rng.standard_normal(n).astype(np.float32),)
    yield "nan_to_zero_mean", nan_to_zero_mean, (with_nans,)
    yield "bucket_and_phase", bucket_and_phase, (rng.integers(-10 ** 6, 10 ** 6, n), 7)
    yield "one_hot", one_hot, (rng.integers(0, 10, max(1, n // 10)), 10)
    yield "gather_scale", gather_scale, (rng.standard_normal(n), rng.integers(-n, n, n))
    yield "palette_lookup", palette_lookup, (rng.integers(0, 256, n).astype(np.uint8),
                                             rng.standard_normal(256).astype(np.float32))
    yield "count_labels", count_labels, (rng.integers(0, 10, n), 10)
    yield "scatter_fix", scatter_fix, (rng.standard_normal(n), rng.integers(0, n, n // 4))
    yield "softplus", softplus, (rng.standard_normal(n).astype(np.float32),)


def _same(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-6)


def _calls_in(fn, args, seconds: float) -> int:
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        fn(*args)
        calls += 1
    return max(calls, 1)


def _round(fn, args, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="elements per array")
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds")
    parser.add_argument("--only", default="", help="comma-separated program names")
    opts = parser.parse_args()
    only = set(filter(None, opts.only.split(",")))
    ratios = []
    print(f"{'program':20s} {'NumPy us':>9s} {'fusejit us':>10s} {'ratio':>6s}   (n={opts.n})")
    for name, fn, args in cases(opts.n):
        if only and name not in only:
            continue
        jitted = fusejit.jit(fn)
        _same(jitted(*args), fn(*args))
        # until the kernels run (compiled in the background under tiering): ~2 s of calls
        deadline = time.perf_counter() + 2.0
        while time.perf_counter() < deadline:
            jitted(*args)
        n_np, n_fj = _calls_in(fn, args, 0.02), _calls_in(jitted, args, 0.02)
        t_np, t_fj = [], []
        for _ in range(opts.repeat):
            t_np.append(_round(fn, args, n_np))
            t_fj.append(_round(jitted, args, n_fj))
        a, b = statistics.median(t_np), statistics.median(t_fj)
        ratios.append(a / b)
        print(f"{name:20s} {a * 1e6:9.1f} {b * 1e6:10.1f} {a / b:5.2f}x", flush=True)
    if ratios:
        print(f"== {len(ratios)} programs: min {min(ratios):.2f}x, median "
              f"{statistics.median(ratios):.2f}x NumPy")


if __name__ == "__main__":
    main()
