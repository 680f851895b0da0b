"""Programs written by people who did not know fusejit (``benchmarks/stranger_sets/``: helpers
were asked for NumPy the way users write it, and were not shown fusejit: sets A and B everyday
programs, C elementwise-heavy ones, D everyday ones of other domains, E elementwise chains,
time-stepping loops and small broadcasts, F and G chains, simulations, mid-size and integer
programs, H unsigned-integer programs: hashing, bits, images, checksums, I programs that lean
on views, slicing and axis work, J programs structured as software engineers write them:
helpers, lists of arrays, convergence loops, K programs that mutate arrays in place: ``out=``,
slice and masked stores, buffers, ring buffers, L reductions and normalisations along axes, M
simulations and numerical methods as notebooks write them, N machine learning from scratch, O
mixed dtypes and data wrangling: images in uint8, audio in int16, timestamps, NaN-aware
statistics, float16 and complex inputs, P time series and finance without pandas, Q geometry,
graphics, robotics and GIS, R time-stepping loops, stencils and image filters), run through
``fusejit.jit`` and compared with NumPy; with ``--time``, warm calls timed against NumPy eager in
the same process.

    python benchmarks/stranger_sets.py [--set a|...|r|all] [--only NAME,...] [--time]
                                       [--no-race]

Each program is called three times (``FUSEJIT_TIERING=0`` is set: the compiled forms from
the first call, the steady state), and each call's results are compared with NumPy's: dtype
and shape, integers and bools exactly, float64 to a relative 1e-9 and float32 to 1e-4 of the
largest value (so are two Python floats that are both exactly float32 values:
``float(x.mean())`` of a float32 array). Results that differ are compared with the program
run one float width up (float32 arguments as float64, float64 as long double): where each of
fusejit's is no farther from it than twice NumPy's is (largest and mean distance; integers
and bools equal to it in no fewer places), the difference is rounding (a float32 sum added
up in another order, a logarithm an ulp apart) and the line says ``ROUNDING``, with both
distances. A line per program: ``ok`` (with ``--time``: microseconds a call for NumPy and
fusejit, and NumPy's time over fusejit's, > 1: fusejit is faster; the better of two medians
of 7 rounds of calls filling ~20 ms; the checked calls run with the race against NumPy off,
``frontend/race.py``, and the timed ones on a new ``fusejit.jit`` of the program with it on,
as a user's run, unless ``--no-race``: "(NumPy's side)" where the race gave the size to the
function as written), ``REFUSED`` with the error's first line, or ``WRONG``
with what differs (for values: how many elements, and the largest relative difference); then
the counts, the number below NumPy and the median ratio. The machine is shared and noisy:
compare ratios of one run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("FUSEJIT_TIERING", "0")

import numpy as np  # noqa: E402

import fusejit  # noqa: E402

SETS = {"a": "set_a.py", "b": "set_b.py", "c": "set_c.py", "d": "set_d.py", "e": "set_e.py",
        "f": "set_f.py", "g": "set_g.py", "h": "set_h.py", "i": "set_i.py",
        "j": "set_j.py", "k": "set_k.py", "l": "set_l.py", "m": "set_m.py",
        "n": "set_n.py", "o": "set_o.py",
        "p": "set_p.py", "q": "set_q.py", "r": "set_r.py"}


def load(name: str):
    path = Path(__file__).resolve().parent / "stranger_sets" / SETS[name]
    spec = importlib.util.spec_from_file_location(f"stranger_set_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def leaves(value) -> list:
    return [x for v in value for x in leaves(v)] if isinstance(value, tuple) else [value]


def _from_float32(a: np.ndarray, b: np.ndarray) -> bool:
    """Are two float64 results (Python floats, 0-d here, or arrays of them) float32 values on
    both sides, ``float(x.mean())`` of a float32 ``x``, ``np.array([float(...) ...])``? Then
    they are compared at float32's tolerance: float64 values that are all exactly float32
    ones, on both sides, are float32 results passed through ``float()``."""
    if a.dtype != np.float64 or b.dtype != np.float64 or not np.isfinite(b).all():
        return False
    return all(np.array_equal(v.astype(np.float32).astype(np.float64), v) for v in (a, b))


_WIDER = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.longdouble,
          np.dtype(np.complex64): np.complex128, np.dtype(np.complex128): np.clongdouble}


def widened(args: tuple) -> tuple:
    """``args`` one float width up: float32 arrays and NumPy scalars as float64, float64 ones
    as long double (Python floats stay: they meet the arrays in the arrays' dtype)."""
    return tuple(a.astype(_WIDER[a.dtype]) if isinstance(a, (np.ndarray, np.generic))
                 and a.dtype in _WIDER else a for a in args)


def rounding(got, want, exact) -> str | None:
    """Where fusejit's results differ from NumPy's: how far each is from ``exact`` (the program
    run one width up; floats: the largest distance over its largest value), if each of
    fusejit's is no farther from it than twice NumPy's (largest and mean distance of floats,
    not finite only where NumPy's are not; integers and bools equal to it in no fewer
    places); else None, and None where a result's dtype is not NumPy's (the same values in
    float64 where NumPy's are int64 are a wrong result, not rounding)."""
    g, w, e = leaves(got), leaves(want), leaves(exact)
    if not len(g) == len(w) == len(e):
        return None
    said = []
    for a, b, x in zip(g, w, e):
        a, b, x = np.asarray(a), np.asarray(b), np.asarray(x)
        if x.shape != b.shape or a.dtype != b.dtype:     # (another dtype is no rounding)
            return None
        if a.dtype.kind not in "fc":
            if a.dtype.kind != x.dtype.kind and x.dtype.kind in "fc":
                return None
            mine, theirs = int(np.sum(a != x)), int(np.sum(b != x))
            if mine > theirs:
                return None
            said.append(f"{mine} elements apart from it (NumPy {theirs})")
            continue
        if not np.array_equal(np.isfinite(a), np.isfinite(b)):
            return None
        both = np.isfinite(a) & np.isfinite(x)
        if not both.any():
            continue
        mine = np.abs(a[both].astype(x.dtype) - x[both]).astype(np.float64)
        theirs = np.abs(b[both].astype(x.dtype) - x[both]).astype(np.float64)
        if mine.max() > 2 * theirs.max() or mine.mean() > 2 * theirs.mean():
            return None
        scale = max(float(np.abs(x[both]).max()), np.finfo(np.float64).tiny)
        said.append(f"{mine.max() / scale:.2g} of its largest value (NumPy "
                    f"{theirs.max() / scale:.2g})")
    return "from the exact result: " + ", ".join(said)


def verdict(fn, args: tuple, calls: list, want) -> tuple[str, str]:
    """``ok``, ``rounding`` or ``wrong``, and what differs: fusejit's results of each call
    against NumPy's ``want``, then, where they differ, against the program run one width up."""
    why = next((f"call {k + 1}: {d}" for k, got in enumerate(calls)
                if (d := differs(got, want))), None)
    if why is None:
        return "ok", ""
    try:
        exact = fn(*widened(copied(args)))
    except Exception:  # noqa: BLE001 - NumPy has no long double form of it: not judged
        return "wrong", why
    near = [rounding(got, want, exact) for got in calls if differs(got, want)]
    return ("rounding", f"{why}; {near[-1]}") if all(near) else ("wrong", why)


def differs(got, want) -> str | None:
    """What differs between fusejit's results and NumPy's (None: nothing)."""
    g, w = leaves(got), leaves(want)
    if len(g) != len(w):
        return f"{len(g)} results, NumPy {len(w)}"
    for a, b in zip(g, w):
        if isinstance(a, np.ndarray) != isinstance(b, np.ndarray):
            return f"a {type(a).__name__}, NumPy a {type(b).__name__}"
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{a.dtype}{a.shape}, NumPy {b.dtype}{b.shape}"
        if a.dtype.kind in "fc":
            tol = 1e-4 if a.dtype in (np.float32, np.complex64) or _from_float32(a, b) \
                else 1e-9
            finite = np.isfinite(b)
            scale = float(np.abs(b[finite]).max()) if finite.any() else 1.0
            if not np.allclose(a, b, rtol=tol, atol=tol * max(1.0, scale), equal_nan=True):
                both = np.isfinite(a) & np.isfinite(b)
                if not np.array_equal(np.isfinite(a), np.isfinite(b)) or not both.any():
                    return "values (not finite where NumPy's are, or the other way)"
                gap = np.abs(a[both].astype(np.float64) - b[both]) / np.maximum(
                    np.abs(b[both].astype(np.float64)), np.finfo(b.dtype).tiny)
                return f"values ({int(np.sum(gap > tol))} of {b.size} beyond the tolerance; " \
                       f"largest relative difference {gap.max():.2g})"
        elif not np.array_equal(a, b):
            return "values"
    return None


def copied(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def per_call(fn, args: tuple, budget: float = 0.02, rounds: int = 7) -> float:
    """Median seconds a call, over ``rounds`` rounds of as many calls as fill ``budget``."""
    fn(*args)
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn(*args)
        spent = time.perf_counter() - start
        if spent > budget / 4 or n > 100_000:
            break
        n *= 4
    n = max(1, int(n * budget / 4 / max(spent, 1e-9)))
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            fn(*args)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="all", choices=[*SETS, "all"])
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--time", action="store_true", help="time warm calls against NumPy")
    parser.add_argument("--no-race", dest="race", action="store_false",
                        help="time fusejit's compiled forms alone (FUSEJIT_NUMPY_RACE=0)")
    options = parser.parse_args()
    only = set(filter(None, options.only.split(",")))
    for name in (list(SETS) if options.set == "all" else [options.set]):
        counts = {"ok": 0, "rounding": 0, "refused": 0, "wrong": 0}
        ratios = []
        numpy_side = 0
        print(f"set {name}")
        for label, fn, args in load(name).progs:
            if only and label not in only:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = fn(*copied(args))
                os.environ["FUSEJIT_NUMPY_RACE"] = "0"     # (the checked calls: fusejit's)
                jitted = fusejit.jit(fn)
                try:
                    calls = [jitted(*copied(args)) for _ in range(3)]
                except Exception as error:  # noqa: BLE001 - reported, not raised
                    counts["refused"] += 1
                    first = str(error).splitlines()[0] if str(error) else ""
                    print(f"  {label:24s} REFUSED {type(error).__name__}: {first}"[:200])
                    continue
                kind, why = verdict(fn, args, calls, want)
                counts[kind] += 1
                if kind == "wrong":
                    print(f"  {label:24s} WRONG {why}")
                    continue
                if kind == "rounding":
                    print(f"  {label:24s} ROUNDING {why}")
                if not options.time:
                    if kind == "ok":
                        print(f"  {label:24s} ok")
                    continue
                if options.race:       # (timed as a user runs it: a new function, raced)
                    os.environ["FUSEJIT_NUMPY_RACE"] = "1"
                    jitted = fusejit.jit(fn)
                mine, theirs = copied(args), copied(args)
                numpy_s = min(per_call(fn, theirs), per_call(fn, theirs))
                ours_s = min(per_call(jitted, mine), per_call(jitted, mine))
            ratios.append(numpy_s / ours_s)
            tag = "ok" if kind == "ok" else "~ "       # (~: rounding, its line above)
            sides = {r.runs for r in jitted.races}
            side = "  (NumPy's side)" if sides == {"numpy"} else \
                "  (both sides)" if len(sides) > 1 else ""
            numpy_side += bool(side)
            print(f"  {label:24s} {tag}  numpy {numpy_s * 1e6:10.1f} us  fusejit "
                  f"{ours_s * 1e6:10.1f} us  ratio {numpy_s / ours_s:6.2f}{side}", flush=True)
        summary = ", ".join(f"{k} {v}" for k, v in counts.items())
        if ratios:
            summary += (f"; below NumPy {sum(r < 1 for r in ratios)} of {len(ratios)}, median "
                        f"ratio {statistics.median(ratios):.2f}; the race gave NumPy's side "
                        f"{numpy_side}")
        print(f"set {name}: {summary}")


if __name__ == "__main__":
    main()
