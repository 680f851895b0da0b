"""Remembered calls of a ``CompiledFunction``: what a warm call runs, found by one lookup.

A call of ``CompiledFunction`` on the general path checks every argument against its parameter
(``check_inputs``), makes the argument spec and looks up the plan (``plan_for``), asks the plan
for its tier and times the call: 2-3 us of Python around a fused kernel of a few
microseconds, more than NumPy takes for the whole expression on a thousand elements. All of it
depends only on each argument's type, and for arrays on dtype, rank and C-contiguity (the
plan's spec): so once a call has passed the checks and its plan has settled on a tier, the
function remembers a runner for the call's key (``call_key``), and later calls with the same
key run it after that one lookup.

Only what the checks would pass unchanged is remembered: NumPy arrays (exact type) for Tensor
parameters, and Python floats, bools and None for parameters of those types; Python ints for
int parameters are remembered too, with the int64 range test (a value test) kept in the runner.
Anything else (a NumPy scalar, an int for a float, a list, an array subclass, a Dask array, a
wrong count) has a key nothing is remembered under, and takes the general path and its errors.
A plan still warming up (``tiering``) is not remembered: its calls are timed for the move.

A remembered call is counted, and timed (the display's mean call time) while the plan has had
at most ``SAMPLE_FIRST`` calls and then one in ``SAMPLE_EVERY``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.limits import fits_int64
from ..ir.types import BoolType, FloatType, IntType, NoneType, OptionalType, TensorType, Type
from . import blas
from .fusion.outputs import host_sized
from .interpreter import NativeInterpreter
from .reference import InterpreterState

_NDARRAY = np.ndarray
# How many keys one function remembers (a function called with ever new ranks or dtypes
# forgets the old ones: they take the general path again).
MAX_REMEMBERED = 16
# Remembered calls are timed one in this many (a power of two: a mask test), after the first
# ``SAMPLE_FIRST`` calls of the plan, which are all timed.
SAMPLE_EVERY = 64
SAMPLE_FIRST = 8
_count = itertools.count()


def call_key(inputs: tuple) -> tuple:
    """What a call is remembered under: per array its dtype, rank and C-contiguity; per other
    value its type (the dispatcher tests the same, dtypes by identity)."""
    return tuple([(x.dtype, x.ndim, x.flags.c_contiguous) if type(x) is _NDARRAY else type(x)
                  for x in inputs])


def _taken_as_is(t: Type, value: Any) -> bool:
    """Would the general path's check pass ``value`` for a parameter of type ``t`` unchanged,
    for every value of its type (ints: within int64, which the runner tests)?"""
    cls = type(value)
    if isinstance(t, OptionalType):
        return value is None or _taken_as_is(t.elem, value)
    if isinstance(t, TensorType):
        return cls is _NDARRAY
    if isinstance(t, FloatType):
        return cls is float
    if isinstance(t, IntType):
        return cls is int
    if isinstance(t, BoolType):
        return cls is bool
    if isinstance(t, NoneType):
        return value is None
    return False


class RememberedCalls:
    """The calls a ``CompiledFunction`` remembers, and ``dispatch``: a generated function of
    the call's inputs (a tuple) that tests them against each remembered key and runs its
    runner, or the general path. The text numbers the inputs; every value it tests against
    (types, dtypes, callables) is a global of the generated code, so no user text enters it::

        def dispatch(inputs):
            if len(inputs) != 2:
                return GENERAL(inputs)
            a0, a1 = inputs
            if type(a0) is NDARRAY and a0.dtype is D0_0 and a0.ndim == 1 \\
                    and a0.flags.c_contiguous and type(a1) is T_float:
                return R0(inputs)
            return GENERAL(inputs)
    """

    def __init__(self, fn: Any, general: Callable[[tuple], Any]):
        self.fn = fn
        self.general = general
        self.runners: dict[tuple, Callable[[tuple], Any]] = {}
        self.refused: set[tuple] = set()    # keys whose calls always need the checks
        self.dispatch: Callable[[tuple], Any] = general
        # (called after a key is remembered: a caller that wrote runners into its own text,
        # ``frontend/fastcall.py``, writes it again)
        self.listeners: list[Callable[[], None]] = []

    def remember(self, plan: Any, engine: str, inputs: tuple, timings: Any) -> None:
        """Remember what calls with ``inputs``' key run from now on (``plan`` on ``engine``),
        where the checks allow."""
        if engine not in ("native", "reference"):
            return      # (still warming up: asked again at its next call)
        key = call_key(inputs)
        if key in self.runners or key in self.refused:
            return      # (an equal dtype of another identity: the general path it is)
        run = runner(self.fn, plan, engine, inputs, timings, self.general)
        if run is None:
            if len(self.refused) >= MAX_REMEMBERED:
                self.refused.clear()
            self.refused.add(key)
            return
        if len(self.runners) >= MAX_REMEMBERED:
            self.runners.clear()
        self.runners[key] = run
        self.dispatch = _dispatcher(len(inputs), list(self.runners.items()), self.general)
        for listener in self.listeners:
            listener()


def _dispatcher(n_inputs: int, runners: list[tuple[tuple, Callable]],
                general: Callable[[tuple], Any]) -> Callable[[tuple], Any]:
    names: dict[str, Any] = {"GENERAL": general, "NDARRAY": _NDARRAY}
    lines = ["def dispatch(inputs):",
             f"    if len(inputs) != {n_inputs}:",
             "        return GENERAL(inputs)"]
    if n_inputs:
        lines.append(f"    {''.join(f'a{i}, ' for i in range(n_inputs))}= inputs")
    for r, (key, run) in enumerate(runners):
        tests = []
        for i, k in enumerate(key):
            if isinstance(k, tuple):
                dtype, rank, contiguous = k
                names[f"D{i}_{r}"] = dtype
                tests.append(f"type(a{i}) is NDARRAY and a{i}.dtype is D{i}_{r} "
                             f"and a{i}.ndim == {int(rank)} and "
                             f"{'' if contiguous else 'not '}a{i}.flags.c_contiguous")
            elif k is type(None):
                tests.append(f"a{i} is None")
            else:
                names[f"T{i}_{r}"] = k
                tests.append(f"type(a{i}) is T{i}_{r}")
        names[f"R{r}"] = run
        lines += [f"    if {' and '.join(tests) or 'True'}:", f"        return R{r}(inputs)"]
    lines.append("    return GENERAL(inputs)")
    text = "\n".join(lines) + "\n"
    exec(compile(text, f"<fusejit remembered calls {next(_count)}>", "exec"), names)
    return names["dispatch"]


def runner(fn: Any, plan: Any, engine: str, inputs: tuple, timings: Any,
           general: Callable[[tuple], Any]) -> Callable[[tuple], Any] | None:
    """What a call with ``inputs``' key runs from now on, for ``fn``'s ``plan`` on ``engine``
    (settled: "native" or "reference"): or None when a call of that key needs the checks.
    ``general`` is the general path, which the runner takes for an int beyond int64."""
    if fn.device.name != "cpu" or engine not in ("native", "reference"):
        return None
    if len(inputs) != len(fn.params) or \
            not all(_taken_as_is(p.type, x) for p, x in zip(fn.params, inputs)):
        return None
    ints = tuple(i for i, x in enumerate(inputs) if type(x) is int)
    code, single, products = plan.code, plan.single, plan.products
    clock, mask = time.perf_counter, SAMPLE_EVERY - 1

    auto = fn.engine == "auto"

    def body(args: tuple) -> Any:
        stack = list(args)
        if engine == "native" and not (auto and host_sized(args)):
            NativeInterpreter(code).run(stack)
        else:   # (big arrays run on the host's loop: fusion/outputs.py, host_sized)
            InterpreterState(code).run(stack)
        return stack

    group = pick = None
    if engine == "reference" and single is not None:
        body = single.outputs       # (one fused group: its outputs, without a stack)
        group, pick = single.group(), single.take
    elif engine == "reference" and plan.straight() is not None:
        body = plan.straight()      # (no calls or forks)

    def run(args: tuple) -> Any:
        for i in ints:
            if not fits_int64(args[i]):
                return general(args)        # (its error)
        if products:
            blas.refresh()
        calls = timings.calls = timings.calls + 1
        if calls > SAMPLE_FIRST and calls & mask:
            outs = None
            # (the group's kernel called as its last call, where the inputs are exactly
            # like those: ``fusion/quick.py``; None, or any failure: the group's own path)
            quick = getattr(group._kernel, "_quick", None) if group is not None else None
            if quick is not None:
                try:
                    outs = quick(args if pick is None else pick(args))
                except Exception:  # noqa: BLE001 - body(args) reports it at its node
                    outs = None
            if outs is None:
                outs = body(args)
        else:
            start = clock()
            outs = body(args)
            timings.sample(clock() - start)
        if len(outs) == 1:
            return outs[0]
        return tuple(outs) if outs else None

    return run


__all__ = ["MAX_REMEMBERED", "SAMPLE_EVERY", "RememberedCalls", "call_key", "runner"]
