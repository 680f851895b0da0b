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

A remembered call is timed one in ``SAMPLE_EVERY`` (the display's mean call time), and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.limits import fits_int64
from ..ir.types import BoolType, FloatType, IntType, NoneType, OptionalType, TensorType, Type
from . import blas
from .interpreter import NativeInterpreter
from .reference import InterpreterState

_NDARRAY = np.ndarray
# How many keys one function remembers (a function called with ever new ranks or dtypes
# forgets the old ones: they take the general path again).
MAX_REMEMBERED = 32
# Remembered calls are timed one in this many (a power of two: a mask test).
SAMPLE_EVERY = 64


def call_key(inputs: tuple) -> tuple:
    """What a remembered call is found under (``CompiledFunction.__call__`` inlines it):
    per array its dtype, rank and C-contiguity; per other value its type."""
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


def runner(fn: Any, plan: Any, engine: str, inputs: tuple, timings: Any,
           general: Callable[[tuple], Any]) -> Callable[[tuple], Any] | None:
    """What a call with ``inputs``' key runs from now on, for ``fn``'s ``plan`` on ``engine``
    (settled: "native" or "reference"): or None when a call of that key needs the checks.
    ``general`` is the general path, which the runner takes for an int beyond int64."""
    if fn.device.name != "cpu" or engine not in ("native", "reference"):
        return None
    if not all(_taken_as_is(p.type, x) for p, x in zip(fn.params, inputs)):
        return None
    ints = tuple(i for i, x in enumerate(inputs) if type(x) is int)
    code, single, products = plan.code, plan.single, plan.products
    if engine == "native":
        def body(stack: list) -> None:
            NativeInterpreter(code).run(stack)
    elif single is not None:
        body = single.run
    else:
        def body(stack: list) -> None:
            InterpreterState(code).run(stack)
    clock, mask = time.perf_counter, SAMPLE_EVERY - 1

    def run(args: tuple) -> Any:
        for i in ints:
            if not fits_int64(args[i]):
                return general(args)        # (its error)
        if products:
            blas.refresh()
        stack = list(args)
        calls = timings.calls = timings.calls + 1
        if calls & mask:
            body(stack)
        else:
            start = clock()
            body(stack)
            timings.sample(clock() - start)
        if len(stack) == 1:
            return stack[0]
        return tuple(stack) if stack else None

    return run


__all__ = ["MAX_REMEMBERED", "SAMPLE_EVERY", "call_key", "runner"]
