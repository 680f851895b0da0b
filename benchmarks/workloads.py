"""Reduction workloads that ``heldout.py`` does not have, written as a NumPy user writes them
(``np.mean(x, axis=0)``, ``x.std(0)``, ``keepdims=True``, ``np.linalg.norm``, ``ddof=1``, 3-d
arrays reduced along the middle axis), decorated with ``fusejit.jit``, against NumPy eager and
``numba.njit(parallel=True)`` of the same function, float32 and float64, in the same run.

    python benchmarks/workloads.py [--repeat N] [--quick] [--only SUBSTRING] [--dtypes ...]
                                   [--cpu | --threads T] [--free-cores K] [--no-numba]

- **Columns:** standardising and min-max scaling columns, batch norm, log-sum-exp and softmax
  over axis 0, column L2 normalisation, ``np.var(x, axis=0, ddof=1)``, max-abs scaling,
  mean squared error per column, column sums of clipped values.
- **Rows:** z-scores with ``keepdims``, weighted means, clip then sum, ``x.std(1, ddof=1)``,
  L1 normalisation, a matrix-vector product written ``(x * v).sum(axis=1)``.
- **3-d:** mean, max and centring along the middle axis, and along the first axis; means and
  instance norm over the last two axes; standardising by the whole array's mean and std.

Timing, checks and the printed row are ``heldout.py``'s (``measure``, ``show``): medians of
``--repeat`` calls after a checked warm-up call, the columns' calls alternating within each
repetition; ratio = NumPy's time / that time (higher is faster). ``--cpu`` times the process's
CPU time with fusejit and numba on one thread (the figure for a busy machine);
``--free-cores 0`` keeps the default threads but makes fusejit take every other core as busy
(``ops.py``'s option: kernels under 16 ms of work then run serially). The rows slower than
NumPy are listed at the end. The machine is shared: single rows move by several percent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import heldout  # noqa: E402  (its timing, checks and printing)

import fusejit  # noqa: E402
from fusejit.runtime import cores  # noqa: E402

# --- column statistics (axis 0 of 2-d arrays) --------------------------------------------------

def standardise_columns(x):
    return (x - np.mean(x, axis=0)) / x.std(0)


def minmax_columns(x):
    lo = x.min(axis=0)
    return (x - lo) / (x.max(axis=0) - lo)


def batch_norm(x, g, b):
    mu = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def logsumexp_columns(x):
    m = np.max(x, axis=0)
    return m + np.log(np.sum(np.exp(x - m), axis=0))


def softmax_columns_keepdims(x):
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def l2_normalise_columns(x):
    return x / np.linalg.norm(x, axis=0)


def var_ddof_columns(x):
    return np.var(x, axis=0, ddof=1)


def max_abs_columns(x):
    return x / np.abs(x).max(axis=0)


def mse_columns(x, y):
    return np.mean((x - y) ** 2, axis=0)


def clip_sum_columns(x):
    return np.clip(x, -1.0, 1.0).sum(axis=0)


# --- row statistics (the last axis) ------------------------------------------------------------

def zscore_rows_keepdims(x):
    mu = np.mean(x, axis=-1, keepdims=True)
    sd = np.std(x, axis=-1, keepdims=True)
    return (x - mu) / (sd + 1e-8)


def weighted_mean_rows(x, p):
    return np.sum(x * p, axis=1) / np.sum(p, axis=1)


def clip_sum_rows(x):
    return np.clip(x, -1.0, 1.0).sum(axis=1)


def std_ddof_rows(x):
    return x.std(axis=1, ddof=1)


def l1_normalise_rows(x):
    return x / np.abs(x).sum(axis=1, keepdims=True)


def matvec_rows(x, v):
    return (x * v).sum(axis=1)


def softmax_rows_max_keepdims(x):
    z = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


# --- 3-d arrays ---------------------------------------------------------------------------------

def mean_middle_axis(x):
    return np.mean(x, axis=1)


def centre_middle_axis(x):
    return x - x.mean(axis=1, keepdims=True)


def max_middle_axis(x):
    return np.max(x, axis=1, keepdims=True) - np.min(x, axis=1, keepdims=True)


def mean_first_axis_3d(x):
    return x.mean(axis=0)


def standardise_first_axis_3d(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-6)


def standardise_whole(x):
    return (x - x.mean()) / x.std()


def mean_last_two_axes(x):
    return x.mean(axis=(1, 2))


def instance_norm(x):
    mu = x.mean(axis=(1, 2), keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=(1, 2), keepdims=True) + 1e-5)


# (function, shapes, argument kinds): "x" a normal matrix of the shape, "y" another, "p" a
# positive one, "g" a normal vector over the last axis, "w" a positive one.
WORKLOADS = (
    (standardise_columns, ((1024, 1024), (4096, 256), (256, 4096)), "x"),
    (minmax_columns, ((1024, 1024), (4096, 256)), "x"),
    (batch_norm, ((4096, 256), (1024, 1024)), "xgg"),
    (logsumexp_columns, ((1024, 1024), (4096, 256)), "x"),
    (softmax_columns_keepdims, ((1024, 1024),), "x"),
    (l2_normalise_columns, ((1024, 1024), (4096, 256)), "x"),
    (var_ddof_columns, ((1024, 1024), (256, 4096)), "x"),
    (max_abs_columns, ((1024, 1024),), "x"),
    (mse_columns, ((1024, 1024), (4096, 256)), "xy"),
    (clip_sum_columns, ((1024, 1024),), "x"),
    (zscore_rows_keepdims, ((1024, 1024), (4096, 256)), "x"),
    (weighted_mean_rows, ((1024, 1024),), "xp"),
    (clip_sum_rows, ((1024, 1024), (256, 4096)), "x"),
    (std_ddof_rows, ((1024, 1024),), "x"),
    (l1_normalise_rows, ((1024, 1024), (4096, 256)), "x"),
    (matvec_rows, ((1024, 1024), (4096, 256)), "xg"),
    (softmax_rows_max_keepdims, ((1024, 1024),), "x"),
    (mean_middle_axis, ((16, 256, 256), (64, 64, 256)), "x"),
    (centre_middle_axis, ((16, 256, 256),), "x"),
    (max_middle_axis, ((16, 256, 256),), "x"),
    (mean_first_axis_3d, ((16, 256, 256),), "x"),
    (standardise_first_axis_3d, ((16, 256, 256),), "x"),
    (standardise_whole, ((1024, 1024),), "x"),
    (mean_last_two_axes, ((16, 256, 256),), "x"),
    (instance_norm, ((16, 256, 256),), "x"),
)


def make_data(rng: np.random.Generator, shape: tuple, kinds: str, dtype) -> tuple:
    """One array per argument kind (the table above)."""
    made = {"x": lambda: rng.standard_normal(shape), "y": lambda: rng.standard_normal(shape),
            "p": lambda: rng.uniform(0.1, 1.0, shape),
            "g": lambda: rng.standard_normal(shape[-1:]),
            "w": lambda: rng.uniform(0.1, 1.0, shape[-1:])}
    return tuple(made[k]().astype(dtype) for k in kinds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--only", default="", help="run the cases whose title has this")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--cpu", action="store_true", help="CPU time, one thread each")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--free-cores", type=float, default=None,
                        help="take this many other cores as free instead of measuring them")
    parser.add_argument("--no-numba", action="store_true")
    args = parser.parse_args()
    threads = 1 if args.cpu else args.threads
    if threads:
        fusejit.set_num_threads(threads)
        if not args.no_numba:
            import numba

            numba.set_num_threads(threads)
    if args.cpu:
        heldout.CLOCK[0] = time.process_time
    if args.free_cores is not None:
        cores.assume_free_cores(args.free_cores)
    print("load average (1, 5, 15 min): " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
          flush=True)
    others = () if args.no_numba else ("numba",)
    rng = np.random.default_rng(3)
    slower = []
    for fn, shapes, kinds in WORKLOADS:
        for shape in shapes:
            if args.quick:
                shape = tuple(max(2, s // 16) for s in shape)
            for dtype in args.dtypes.split(","):
                title = f"{fn.__name__} {'x'.join(map(str, shape))} {dtype}"
                if args.only not in title:
                    continue
                data = make_data(rng, shape, kinds, np.dtype(dtype))
                row = heldout.measure(fn, data, args.repeat, others)
                heldout.show(title, row)
                value = row.get("fusejit")
                if isinstance(value, str) or value > row["numpy"]:
                    slower.append(title if not isinstance(value, str) else title + " (refused)")
    print("slower than NumPy or refused:", ", ".join(slower) or "none")
    print("load average (1, 5, 15 min): " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
          flush=True)


if __name__ == "__main__":
    main()
