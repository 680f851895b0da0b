"""Everyday NumPy programs (tests/frontend/numpy_programs.py) timed warm: NumPy as written,
``fusejit.jit``, ``numba.njit`` and ``jax.jit`` (each where it accepts the program), and the
per-call overhead of a trivial function under each.

    python benchmarks/programs.py [--repeat N] [--only NAME,...] [--overhead-only]

Prints one row per program: the median time of a warm call for each engine (microseconds) and
NumPy's time divided by fusejit's (> 1: fusejit is faster). A program an engine does not accept
shows its error class; one whose results differ from NumPy's shows "differs". ``jax.jit`` runs
the function with ``np`` bound to ``jax.numpy`` (and its module's helpers rebuilt the same
way), with 64-bit types enabled, and waits for its result. All engines run in the same process,
one after another, on the same arguments; medians over ``--repeat`` rounds of as many calls as
fit in about 20 ms. The machine is shared and noisy: compare ratios from one run, not absolute
times across runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import types
import warnings
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

# Steady-state times: kernels compile and plans take their engine on the first call (tiering
# only changes the first calls; benchmarks/cold_start.py measures those).
os.environ.setdefault("FUSEJIT_TIERING", "0")
import fusejit  # noqa: E402
from tests.frontend.numpy_programs import PROGRAMS  # noqa: E402
from tests.frontend.numpy_programs_new import NEW_PROGRAMS, newton_cubic  # noqa: E402

NEW = {name for name, _, _ in NEW_PROGRAMS}


def _copy(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


WARM_CALLS = 10


def median_call_us(fn: Callable, args: tuple, repeat: int, pick: Callable = statistics.median
                   ) -> float:
    """Median (or ``pick``) over ``repeat`` rounds of the mean time of one warm call, in
    microseconds. Warm: after ``WARM_CALLS`` calls (a jitted signature compiles whole on its
    second call, and one held to the size bound times that form against the interpreter for
    six more before keeping one: README, "small array code")."""
    for _ in range(WARM_CALLS):
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
    return pick(rounds) * 1e6


def with_numpy_module(fn: Callable, module: object) -> Callable:
    """``fn`` and the functions of its module it calls, with the name ``np`` bound to
    ``module`` (jax.numpy): how a JAX user would write the same program."""
    scope = dict(fn.__globals__)
    scope["np"] = module
    for name, obj in list(scope.items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == fn.__module__:
            scope[name] = types.FunctionType(obj.__code__, scope, obj.__name__, obj.__defaults__,
                                             obj.__closure__)
            scope[name].__kwdefaults__ = obj.__kwdefaults__
    return scope[fn.__name__] if scope.get(fn.__name__) is not None else fn


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
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def jax_jit(fn: Callable) -> Callable:
            compiled = jax.jit(with_numpy_module(fn, jnp))
            return lambda *args: jax.block_until_ready(compiled(*args))

        engines["jax"] = jax_jit
    except ImportError:
        pass
    return engines


def _same(got: object, want: object) -> bool:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    try:
        return len(got) == len(want) and all(
            np.allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-4,
                        atol=1e-6, equal_nan=True) for g, w in zip(got, want))
    except (TypeError, ValueError):
        return False


def overhead(repeat: int) -> None:
    """Warm per-call time of trivial functions, and a 4-step Newton iteration against
    CPython (the issue's goal: 3x faster than CPython; per-call overhead <= 5 us). The best
    round of ``repeat`` (timeit's advice for overheads on a shared machine)."""
    engines = {"cpython": lambda fn: fn, **_engines()}
    engines.pop("numpy")
    cases = [("x + 1.0 (float)", _add_one, (2.0,)),
             ("x + 1.0 (16 f64)", _add_one, (np.ones(16),)),
             ("newton 4 steps", _newton4, (2.0,)),
             ("newton to 1e-10", newton_cubic, (2.0,)),
             ("collatz(27)", _collatz, (27,))]
    print(f"{'per call':18}" + "".join(f"{name + ' us':>14}" for name in engines)
          + f"{'cpython/fusejit':>17}")
    for label, fn, args in cases:
        row = {}
        for engine, wrap in engines.items():
            try:
                row[engine] = median_call_us(wrap(fn), args, 3 * repeat, min)
            except Exception as error:  # noqa: BLE001 - an engine refusing it is a result
                row[engine] = type(error).__name__
        cells = "".join(f"{v:>14.3f}" if isinstance(v, float) else f"{v[:13]:>14}"
                        for v in row.values())
        ratio = row["cpython"] / row["fusejit"] if isinstance(row["fusejit"], float) else 0.0
        print(f"{label:18}{cells}{ratio:>17.2f}")


def _add_one(x):
    return x + 1.0


def _newton4(a, x=1.0):
    for _ in range(4):
        x = x - (x * x - a) / (2 * x)
    return x


def _collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="")
    parser.add_argument("--overhead-only", action="store_true")
    options = parser.parse_args()
    overhead(options.repeat)
    if options.overhead_only:
        return
    print()
    only = set(filter(None, options.only.split(",")))
    engines = _engines()
    header = f"{'program':18}" + "".join(f"{name + ' us':>14}" for name in engines)
    print(header + f"{'numpy/fusejit':>15}")
    faster = total = new_faster = new_total = 0
    for name, fn, make in PROGRAMS:
        if only and name not in only:
            continue
        args = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = fn(*_copy(args))
        row: dict[str, float | str] = {}
        for engine, wrap in engines.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    wrapped = wrap(fn)
                    if not _same(wrapped(*_copy(args)), want):
                        row[engine] = "differs"
                        continue
                    row[engine] = median_call_us(wrapped, args, options.repeat)
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
            if name in NEW:
                new_total += 1
                new_faster += value > 1
        print(f"{name:18}{cells}{ratio}")
    print(f"fusejit faster than NumPy on {faster} of {total} programs"
          + (f" ({new_faster} of {new_total} in the third batch, numpy_programs_new.py)"
             if new_total else ""))


if __name__ == "__main__":
    main()
