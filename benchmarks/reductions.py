"""Reductions as a NumPy user writes them, beyond ``workloads.py``'s named workloads: every
reduction (sum, mean, max, min, std, var, argmax) over every kind of axis (0, 1, -1, (0, 2),
None, keepdims), on every input kind (float32/float64/int32/int64/bool; C, Fortran-ordered,
transposed and sliced arrays; small, tall, wide, 3-d and 4-d shapes), alone and fed by a
pointwise chain, decorated with ``fusejit.jit``, against NumPy eager (and ``numba.njit`` /
``jax.jit`` when asked) in the same run.

    python benchmarks/reductions.py [--section grid,dtypes,layouts,shapes,chains] [--only S]
                                    [--repeat N] [--cpu] [--numba] [--jax] [--quick]

Sections:
- **grid:** each reduction over axes 0, 1, -1, (0, 2) and None (and keepdims) of a
  16 x 256 x 256 array, float32 and float64;
- **dtypes:** sum, mean, max, argmax of 1024 x 1024 int32, int64 and bool arrays;
- **layouts:** sum, mean, std over axes 0 and -1 of a Fortran-ordered array, of ``x.T`` and
  of ``x[:, ::2]``;
- **shapes:** 10 x 10, 10^6 x 4, 4 x 10^6 and 8 x 16 x 64 x 64; a short axis of 3-d
  arrays (2 x 4 x 131072 over axis 0, 64 x 3 x 4096 over axis 1, 4 x 4 x 65536 over both);
- **chains:** ``np.sqrt(x * x + 1.0) * 0.5`` feeding each reduction.

Timing, checks and rows are ``heldout.py``'s (``measure``, ``show``); ratio = NumPy's time /
that time (higher is faster). ``--cpu`` times the process's CPU time on one thread each. The
rows below ``--below`` (default 1.05) are listed at the end. The machine is shared: single
rows move by several percent.
"""

from __future__ import annotations

import argparse
import linecache
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import heldout  # noqa: E402  (its timing, checks and printing)

import fusejit  # noqa: E402

REDUCTIONS = ("sum", "mean", "max", "min", "std", "var", "argmax")
CHAIN = "np.sqrt(x * x + 1.0) * 0.5"


def call_text(op: str, axis: str, keepdims: bool = False, on: str = "x") -> str:
    """``on.op(axis=...)`` written as users write it (``np.argmax`` takes no tuple)."""
    keep = ", keepdims=True" if keepdims else ""
    if axis == "None":
        return f"np.{op}({on}{keep})"
    return f"{on}.{op}(axis={axis}{keep})" if op != "argmax" else f"np.argmax({on}, axis={axis})"


def grid_cases(dtypes: list[str]) -> list[tuple]:
    cases = []
    for dtype in dtypes:
        for op in REDUCTIONS:
            for axis in ("0", "1", "-1", "(0, 2)", "None"):
                if op == "argmax" and axis == "(0, 2)":
                    continue
                cases.append((call_text(op, axis), (16, 256, 256), dtype, "C"))
        for op in ("mean", "std", "max"):
            for axis in ("0", "-1"):
                cases.append((call_text(op, axis, True), (16, 256, 256), dtype, "C"))
    return cases


def dtype_cases() -> list[tuple]:
    cases = []
    for dtype in ("int32", "int64", "bool"):
        for op in ("sum", "mean", "max", "argmax"):
            for axis in ("0", "-1"):
                cases.append((call_text(op, axis), (1024, 1024), dtype, "C"))
    return cases


def layout_cases(dtypes: list[str]) -> list[tuple]:
    return [(call_text(op, axis), (1024, 1024), dtype, layout)
            for dtype in dtypes for layout in ("F", "T", "slice")
            for op in ("sum", "mean", "std") for axis in ("0", "-1")]


def shape_cases(dtypes: list[str]) -> list[tuple]:
    # (and reductions over a short axis of a 3-d array: column kernels of 2 to 4 rows)
    shapes = [((10, 10), ("0", "-1")), ((1_000_000, 4), ("0", "-1")),
              ((4, 1_000_000), ("0", "-1")), ((8, 16, 64, 64), ("0", "-1")),
              ((2, 4, 131072), ("0",)), ((64, 3, 4096), ("1",)), ((4, 4, 65536), ("0", "1"))]
    return [(call_text(op, axis), shape, dtype, "C")
            for dtype in dtypes for shape, axes in shapes
            for op in ("sum", "std", "max") for axis in axes]


def chain_cases(dtypes: list[str]) -> list[tuple]:
    return [(call_text(op, axis, on=f"({CHAIN})"), shape, dtype, "C")
            for dtype in dtypes for shape in ((1024, 1024), (16, 256, 256))
            for op in ("sum", "mean", "max", "std") for axis in ("0", "1", "-1", "None")
            if not (len(shape) == 2 and axis == "1")]


SECTIONS = {"grid": grid_cases, "dtypes": lambda dtypes: dtype_cases(),
            "layouts": layout_cases, "shapes": shape_cases, "chains": chain_cases}


def functions(texts: list[str]) -> dict[str, object]:
    """{text: ``def f(x): return text``}, from one generated source file that ``linecache``
    holds (``fusejit.jit`` reads a function's source)."""
    source = "".join(f"def case_{i}(x):\n    return {t}\n\n\n" for i, t in enumerate(texts))
    name = "<benchmarks.reductions cases>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    space = {"np": np, "__name__": "reductions_cases"}
    exec(compile(source, name, "exec"), space)  # noqa: S102 - our own fixed texts
    return {t: space[f"case_{i}"] for i, t in enumerate(texts)}


def make_input(rng: np.random.Generator, shape: tuple, dtype: str, layout: str) -> np.ndarray:
    """An array of ``shape`` in ``layout``: C, F (Fortran order), T (the transpose of a C
    array) or slice (every other column of a C array twice as wide)."""
    base = shape[::-1] if layout == "T" else (
        shape[:-1] + (2 * shape[-1],) if layout == "slice" else shape)
    if dtype == "bool":
        x = rng.random(base) < 0.5
    elif dtype.startswith("int"):
        x = rng.integers(-1000, 1000, base).astype(dtype)
    else:
        x = rng.standard_normal(base).astype(dtype)
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "T":
        return x.T
    return x[..., ::2] if layout == "slice" else x


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--section", default=",".join(SECTIONS))
    parser.add_argument("--only", default="", help="run the cases whose title has this")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--cpu", action="store_true", help="CPU time, one thread each")
    parser.add_argument("--numba", action="store_true")
    parser.add_argument("--jax", action="store_true")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--below", type=float, default=1.05)
    args = parser.parse_args()
    if args.cpu:
        os.environ["XLA_FLAGS"] = ("--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")
        fusejit.set_num_threads(1)
        if args.numba:
            import numba

            numba.set_num_threads(1)
        heldout.CLOCK[0] = time.process_time
    others = tuple(name for name, on in (("numba", args.numba), ("jax.jit", args.jax)) if on)
    dtypes = args.dtypes.split(",")
    cases = [c for s in args.section.split(",") for c in SECTIONS[s](dtypes)]
    fns = functions(sorted({c[0] for c in cases}))
    print("load average (1, 5, 15 min): " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
          flush=True)
    rng = np.random.default_rng(5)
    low = []
    for text, shape, dtype, layout in cases:
        if args.quick:
            shape = tuple(max(2, s // 16) for s in shape)
        title = f"{text} {'x'.join(map(str, shape))} {dtype} {layout}"
        if args.only not in title:
            continue
        row = heldout.measure(fns[text], (make_input(rng, shape, dtype, layout),),
                              args.repeat, others)
        heldout.show(title, row)
        value = row.get("fusejit")
        if isinstance(value, str) or row["numpy"] / value < args.below:
            low.append(title + (" (refused)" if isinstance(value, str) else
                                f" {row['numpy'] / value:.2f}x"))
    print(f"below {args.below}x NumPy or refused ({len(low)}):")
    print("\n".join("  " + t for t in low) or "  none")
    print("load average (1, 5, 15 min): " + " ".join(f"{v:.2f}" for v in os.getloadavg()),
          flush=True)


if __name__ == "__main__":
    main()
