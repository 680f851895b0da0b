"""Everyday NumPy programs (tests/frontend/numpy_programs.py) timed warm: NumPy as written,
``fusejit.jit``, ``numba.njit`` and ``jax.jit`` (each where it accepts the program).

    python benchmarks/programs.py [--repeat N] [--only NAME,...]

Prints one row per program: the median time of a warm call for each engine (microseconds) and
NumPy's time divided by fusejit's (> 1: fusejit is faster). A program an engine does not accept
shows its error class. All engines run in the same process, one after another, on the same
arguments; medians over ``--repeat`` rounds of as many calls as fit in about 20 ms. The machine
is shared and noisy: compare ratios from one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

# Steady-state times: kernels compile and plans take their engine on the first call (tiering
# only changes the first calls; benchmarks/cold_start.py measures those).
os.environ.setdefault("FUSEJIT_TIERING", "0")
import fusejit  # noqa: E402
from tests.frontend.numpy_programs import PROGRAMS  # noqa: E402


def _copy(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def median_call_us(fn: Callable, args: tuple, repeat: int) -> float:
    """Median over ``repeat`` rounds of the mean time of one warm call, in microseconds."""
    fn(*_copy(args))
    start = time.perf_counter()
    fn(*_copy(args))
    once = max(time.perf_counter() - start, 1e-7)
    calls = max(1, min(2000, int(0.02 / once)))
    rounds = []
    for _ in range(repeat):
        inputs = [_copy(args) for _ in range(calls)]  # in-place programs get fresh arguments
        start = time.perf_counter()
        for a in inputs:
            fn(*a)
        rounds.append((time.perf_counter() - start) / calls)
    return statistics.median(rounds) * 1e6


def _engines() -> dict[str, Callable[[Callable], Callable]]:
    engines: dict[str, Callable[[Callable], Callable]] = {
        "numpy": lambda fn: fn, "fusejit": fusejit.jit}
    try:
        import numba

        engines["numba"] = numba.njit
    except ImportError:
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        engines["jax"] = jax.jit
    except ImportError:
        pass
    return engines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="")
    options = parser.parse_args()
    only = set(filter(None, options.only.split(",")))
    engines = _engines()
    header = f"{'program':18}" + "".join(f"{name + ' us':>14}" for name in engines)
    print(header + f"{'numpy/fusejit':>15}")
    faster = total = 0
    for name, fn, make in PROGRAMS:
        if only and name not in only:
            continue
        args = make()
        row: dict[str, float | str] = {}
        for engine, wrap in engines.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    row[engine] = median_call_us(wrap(fn), args, options.repeat)
            except Exception as error:  # noqa: BLE001 - an engine refusing a program is a result
                row[engine] = type(error).__name__
        cells = "".join(f"{v:>14.1f}" if isinstance(v, float) else f"{v[:13]:>14}"
                        for v in row.values())
        ratio = ""
        if isinstance(row["fusejit"], float):
            total += 1
            value = row["numpy"] / row["fusejit"]
            faster += value > 1
            ratio = f"{value:>15.2f}"
        print(f"{name:18}{cells}{ratio}")
    print(f"fusejit faster than NumPy on {faster} of {total} programs")


if __name__ == "__main__":
    main()
