"""Never slower than the function as written: a signature's compiled form timed against NumPy.

Fusion and whole-graph compilation win on arithmetic; some programs have none to win on. A lone
``np.interp`` of 1000 points at 200 runs through fusejit's layers in 5.7 us against NumPy's 3.1,
a loop of ``np.roll`` and a table lookup on 4000 cells in 9.0 ms against 5.7, and
``np.argpartition`` then ``np.argsort`` of 1000 values in 9.1 us against 5.8 (Numba's forms of
them trail NumPy's C). Where that happens the user would have been better off without the
decorator, so the decorator measures it: once a signature's form has settled, its calls on
arguments of one size alternate between the form and the Python function itself (NumPy eager),
``RACE_CALLS`` each and more where they are cheap (``RACE_SECONDS``, at most
``MOST_RACE_CALLS``), and where NumPy's fastest call (plus ``DISPATCH_SECONDS``) beats the
form's by ``MARGIN`` that size runs the function as written from then on. Sizes are classes of
the arrays' total element count (its bit length: 1000 and 1023 elements are one size, 1024 the
next). When the form wins a size and NumPy holds none, the race ends for the signature: the form
is installed alone, with no cost left on its calls (the fast call enters a whole form's Numba
entry point itself, ``fastcall.py``: n ^ (n >> 1) on 64 int64 ran 0.62 us a call so, 0.94
through the race's runner, NumPy 0.68). Sizes other than the first are raced only while NumPy
holds one (``MAX_SIZES`` at most).

When a form has settled: with ``FUSEJIT_TIERING=0``, once the form installed last has run
``WARM_CALLS`` calls (its first one compiles or loads it, and the next ones run slower). With
tiering on, once the signature's calls have taken ``RACE_AFTER_SECONDS`` on its form (its
kernels have compiled and its plan has moved to the native loop by then,
``runtime/tiering.py``), and a size NumPy holds is raced again after
``RECHECK_SECONDS``, doubling, in case a background compile landed since.

What is raced: CPU signatures whose arguments are arrays, numbers, NumPy scalars (passed back to
the function as the scalars they were) and None, at least one array, but for graphs of a few
NumPy ufunc calls (``runtime/direct.py``: the fast call makes those
calls itself on small arrays), of a plain function (no ``*args`` or ``**kwargs``) whose graph
has nothing that could differ between the two (random numbers, printing, warnings, calls back
into Python) and that reads no global array, list or dict (the compiled forms read those once,
when scripted, as Numba and JAX do; the function as written reads them at each call). Results
are NumPy's own where NumPy runs: its values, its warnings, its errors (with the user's source
line). ``FUSEJIT_NUMPY_RACE=0`` turns the race off (the test suite does, so that which form
runs a call never depends on the machine's load), and ``fusejit.jit(race=False)`` or
``race=True`` decides for one function whatever the variable says; ``JitFunction.races`` lists
what each signature decided.
"""

from __future__ import annotations

import itertools
import os
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..ir.graph import Graph
from ..ir.symbols import NONDETERMINISTIC, aten, prim
from ..runtime import tiering

# Calls of each side at a size before deciding, and more while their times add up to less
# than RACE_SECONDS, up to MOST_RACE_CALLS each: a first call after a switch runs slower (its
# caches are cold), so each side's fastest call counts. And the form's calls before any race
# (tiering off): a form's first calls after its compile run slower (a whole form of a sort, a
# median and masks over 2 * 10^4 float64: 244 us at best in its first 8 raced calls, 185 us
# after; NumPy 175-195).
RACE_CALLS = 3
RACE_SECONDS = 0.02
MOST_RACE_CALLS = 16
WARM_CALLS = 4
# NumPy takes a size where its fastest call beat the form's by this factor, with
# DISPATCH_SECONDS added to it: once NumPy holds a size its calls go through the fast call's
# general path and the race's runner (np.interp of 1000 points at 200: 3.09 us alone, 3.50
# through the jitted function), where a form that won is entered alone (a whole form at its
# Numba entry point). (apply_gain_db, x * 10.0 ** (db / 20.0) on 4000 float32, ran 0.8 us
# compiled and in NumPy, and 1.1 us once the race without it gave NumPy the size.)
MARGIN = 1.05
DISPATCH_SECONDS = 0.3e-6
# A form this much faster than NumPy (fastest calls) wins its size after RACE_CALLS each
# whatever their time, after CLEAR_CALLS each where NumPy's took CLEAR_SECONDS or more, and
# after one each where NumPy's took ONE_CALL_SECONDS or more. Every NumPy call of the race is
# one the form would have run faster: with three of them, heldout.py's rows (NumPy 0.4-1.8 ms a
# call, a median of 7 calls after one) timed 1.17-8.52x NumPy against 1.38-9.69x without the
# race (layer norm 1024 x 1024: 4.64 against 7.29x). But a function's first call runs cold
# (np.interp of 300 points took 8.8 us once, then 2.2), and one call each let a cold NumPy call
# hand the form a size NumPy wins (a 37 us Planck spectrum, compiled 44 us); on calls of
# milliseconds a cold call costs a smaller part, and a mistaken win only keeps the form the
# signature ran before the race.
CLEAR_WIN = 2.0
CLEAR_CALLS = 2
CLEAR_SECONDS = 50e-6
ONE_CALL_SECONDS = 1e-3
# Sizes raced per signature; later new sizes run the form.
MAX_SIZES = 12
# With tiering on: the form's own time before any race, and the first wait before a size
# NumPy holds is raced again (doubling each time).
RACE_AFTER_SECONDS = 2.0
RECHECK_SECONDS = 10.0

# Graph nodes whose results or effects may differ between the compiled form and the
# function as written.
_UNRACED_KINDS = NONDETERMINISTIC | {prim.Print, prim.PythonOp, aten.warn}

_NDARRAY = np.ndarray
_count = itertools.count()
_RACED_ARGUMENTS = (_NDARRAY, bool, int, float, type(None))


def enabled() -> bool:
    """Is the race on (unless ``FUSEJIT_NUMPY_RACE=0``)?"""
    return os.environ.get("FUSEJIT_NUMPY_RACE", "1") != "0"


@dataclass(frozen=True)
class RaceResult:
    """What one size of one signature decided: ``runs`` is ``"fusejit"`` (the compiled form)
    or ``"numpy"`` (the function as written); times are each side's fastest call, in seconds.
    ``elements`` is the size class: arrays of ``elements[0]`` to ``elements[1]`` elements in
    all."""

    signature: str
    elements: tuple[int, int]
    runs: str
    fusejit_s: float
    numpy_s: float

    def __str__(self) -> str:
        lo, hi = self.elements
        return (f"{self.signature} at {lo}-{hi} elements: {self.runs} "
                f"(fusejit {self.fusejit_s * 1e6:.1f} us, NumPy {self.numpy_s * 1e6:.1f} us)")


def raceable(fn: Callable, graph: Graph, args: tuple, wanted: bool | None = None) -> bool:
    """May calls of this signature (``args``: one value per parameter) be raced? ``wanted``:
    ``fusejit.jit``'s ``race`` option (None: ``enabled()``)."""
    if not (enabled() if wanted is None else wanted):
        return False
    if not any(type(a) is _NDARRAY for a in args):
        return False
    if not all(type(a) in _RACED_ARGUMENTS for a in args):
        return False
    if any(node.kind in _UNRACED_KINDS for node in graph.all_nodes()):
        return False
    return not reads_mutable_globals(fn)


def reads_mutable_globals(fn: Callable, _seen: set | None = None) -> bool:
    """Does ``fn``, or a Python function it names, name a global or closure variable holding an
    array, a list, a tuple, a dict or a NumPy scalar (directly, or as an attribute of a module
    it names)? The scripted graph holds such values as they were when scripted."""
    seen = set() if _seen is None else _seen
    if fn in seen or len(seen) > 64:
        return len(seen) > 64
    seen.add(fn)
    code = fn.__code__
    names: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    values = [fn.__globals__[n] for n in names if n in fn.__globals__]
    for cell in fn.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:       # (an empty cell: a name assigned later)
            continue
    for value in values:
        value = getattr(value, "__fusejit_function__", value)   # (a jitted helper: inlined)
        if isinstance(value, types.ModuleType):
            if any(_mutable(getattr(value, n, None)) for n in names):
                return True
        elif _mutable(value):
            return True
        elif isinstance(value, types.FunctionType) and reads_mutable_globals(value, seen):
            return True
    return False


def _mutable(value: Any) -> bool:
    return isinstance(value, (_NDARRAY, list, tuple, dict, set, np.generic))


class _Size:
    """One size class's race: each side's call times, then the decision."""

    __slots__ = ("form", "numpy", "runs", "recheck_at", "wait")

    def __init__(self):
        self.form: list[float] = []
        self.numpy: list[float] = []
        self.runs: str | None = None
        self.recheck_at = 0.0
        self.wait = RECHECK_SECONDS


class Race:
    """A signature's race: ``form`` (the compiled form, as installed) against ``numpy`` (the
    function as written), per size class; ``runner()`` is the callable to install, and
    ``done(form)`` installs ``form`` alone when the race ends. ``results``: the decided
    sizes."""

    def __init__(self, form: Any, numpy: Callable, signature: str, arrays: tuple[int, ...],
                 done: Callable[[Any], None]):
        self.form = form
        self.numpy = numpy
        self.signature = signature
        self._arrays = arrays   # (the positions of the array arguments)
        self._done = done
        self._sizes: dict[int, _Size] = {}
        self._runs: dict[int, Callable] = {}     # (decided sizes: who runs them)
        self._tiered = tiering.enabled()
        self._recheck_at = float("inf")          # (tiering on: the next size raced again)
        self._warm = 0          # the form's calls before racing (WARM_CALLS)
        self._form_seconds = 0.0

    def runner(self, count: int) -> Callable:
        """The signature's callable, of ``count`` positional parameters: a generated function
        (cheaper to call than this object; its text holds only made-up names) that finds a
        decided size's side in one lookup and calls it::

            def run(a0, a1, a2):                        # (a0 and a2 arrays, a1 an int)
                bits = (a0.size + a2.size).bit_length()
                side = RUNS(bits)
                if side is not None:                    # (tiering on: and CLOCK() < ...)
                    return side(a0, a1, a2)
                return CALL(bits, (a0, a1, a2))
        """
        params = ", ".join(f"a{i}" for i in range(count))
        size = " + ".join(f"a{i}.size" for i in self._arrays)
        due = " and CLOCK() < RACE._recheck_at" if self._tiered else ""
        text = (f"def run({params}):\n"
                f"    bits = ({size}).bit_length()\n"
                f"    side = RUNS(bits)\n"
                f"    if side is not None{due}:\n"
                f"        return side({params})\n"
                f"    return CALL(bits, ({params},))\n")
        scope = {"RUNS": self._runs.get, "CALL": self._call, "CLOCK": time.perf_counter,
                 "RACE": self}
        exec(compile(text, f"<fusejit race {next(_count)}>", "exec"), scope)  # noqa: S102
        run = scope["run"]
        for name in ("graph_for", "code_for"):
            if hasattr(self.form, name):
                setattr(run, name, getattr(self.form, name))
        run.race = self
        return run

    def _call(self, bits: int, args: tuple) -> Any:
        state = self._sizes.get(bits)
        if state is not None and state.runs == "fusejit":     # (another size's recheck is due)
            return self.form(*args)
        if state is not None and state.runs == "numpy":
            if time.perf_counter() < state.recheck_at:
                return self.numpy(*args)
            state.runs, state.form, state.numpy = None, [], []     # (raced again)
            self._runs.pop(bits, None)     # (another thread may have raced it first)
            self._recheck_at = min((s.recheck_at for s in self._sizes.values()
                                    if s.runs == "numpy"), default=float("inf"))
        if not self._settled():
            start = time.perf_counter()
            result = self.form(*args)
            self._form_seconds += time.perf_counter() - start
            self._warm += 1
            return result
        if state is None:
            if len(self._sizes) >= MAX_SIZES:
                return self.form(*args)
            state = self._sizes[bits] = _Size()
        return self._raced(bits, state, args)

    def _settled(self) -> bool:
        if self._tiered:
            return self._form_seconds >= RACE_AFTER_SECONDS
        return self._warm >= WARM_CALLS

    def _raced(self, bits: int, state: _Size, args: tuple) -> Any:
        forms, numpys = state.form, state.numpy
        run, times = ((self.form, forms) if len(forms) <= len(numpys) else
                      (self.numpy, numpys))
        start = time.perf_counter()
        result = run(*args)
        times.append(time.perf_counter() - start)
        if len(forms) != len(numpys):
            return result
        form_best, numpy_best = min(forms), min(numpys)
        calls = (1 if numpy_best >= ONE_CALL_SECONDS else
                 CLEAR_CALLS if numpy_best >= CLEAR_SECONDS else RACE_CALLS)
        if form_best * CLEAR_WIN <= numpy_best and len(forms) >= calls:
            self._decide(bits, state, "fusejit")
        elif len(forms) >= RACE_CALLS and (sum(forms) + sum(numpys) >= RACE_SECONDS
                                           or len(forms) >= MOST_RACE_CALLS):
            numpy_wins = (numpy_best + DISPATCH_SECONDS) * MARGIN < form_best
            self._decide(bits, state, "numpy" if numpy_wins else "fusejit")
        return result

    def _decide(self, bits: int, state: _Size, runs: str) -> None:
        state.runs = runs
        self._runs[bits] = self.form if runs == "fusejit" else self.numpy
        if runs == "numpy":
            state.recheck_at = time.perf_counter() + state.wait
            state.wait *= 2
            if self._tiered:
                self._recheck_at = min(self._recheck_at, state.recheck_at)
        elif all(s.runs == "fusejit" for s in self._sizes.values()):
            self._done(self.form)

    @property
    def results(self) -> list[RaceResult]:
        return [RaceResult(self.signature, (1 << bits >> 1, (1 << bits) - 1), state.runs,
                           min(state.form), min(state.numpy))
                for bits, state in sorted(self._sizes.items()) if state.runs is not None]


__all__ = ["RaceResult", "Race", "enabled", "raceable", "reads_mutable_globals"]
