"""The int conversions generated functions call are scalar_helpers', compiled once a machine."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit
from fusejit.runtime import scalar_helpers


def converted(x, y):
    return int(x) + math.floor(y) + math.ceil(x * y)


def counted(a, y):
    return int(a.sum()) + math.floor(y) + a.shape[0]


def _globals_of(jitted, key) -> dict:
    compiled = jitted._specialised[key].compiled
    return getattr(compiled, "py_func", compiled).__globals__


def test_scalar_and_whole_functions_call_the_shared_conversions():
    """A scalar function and a whole-graph function of arrays, each with int(), floor and
    ceil of floats, give Python's values and call the conversions of ``scalar_helpers``, not
    copies their modules define (each copy was compiled again: about 0.15 s a module)."""
    f = fusejit.jit(converted)
    for x, y in [(2.5, -1.25), (-3.75, 7.5), (1e6, 0.5)]:
        for _ in range(2):
            assert f(x, y) == converted(x, y)
    names = _globals_of(f, (float, float))
    assert names["_to_int"] is scalar_helpers.to_int
    assert names["_floor_int"] is scalar_helpers.floor_int
    assert names["_ceil_int"] is scalar_helpers.ceil_int
    g = fusejit.jit(counted)
    a = np.linspace(0.0, 3.0, 11)
    for _ in range(3):
        assert g(a, -2.5) == counted(a, -2.5)
    (whole,) = [s for s in g._specialised.values() if hasattr(s, "compiled")]
    names = getattr(whole.compiled, "py_func", whole.compiled).__globals__
    assert names["_to_int"] is scalar_helpers.to_int
    assert names["_floor_int"] is scalar_helpers.floor_int


@pytest.mark.parametrize("x", [math.nan, math.inf, -math.inf])
def test_int_of_a_non_finite_float_raises_pythons_class(x):
    """The compiled conversion refuses it, and the interpreter's rerun raises what Python's
    ``int()`` raises: a ValueError for a NaN, an OverflowError for an infinity (both had been
    ValueErrors)."""
    f = fusejit.jit(converted)
    assert f(1.5, 2.0) == converted(1.5, 2.0)
    with pytest.raises((ValueError, OverflowError)) as python:
        converted(x, 1.0)
    with pytest.raises(type(python.value)) as ours:
        f(x, 1.0)
    assert isinstance(ours.value, fusejit.FusejitError)
    assert not isinstance(ours.value, (ValueError, OverflowError)[type(python.value) is ValueError])


def test_int_of_a_float_beyond_int64_is_an_overflow_error():
    """Python gives an int of any size; fusejit's ints are int64, so it refuses, with the
    OverflowError Python raises for an int no C integer holds, rather than wrapping."""
    f = fusejit.jit(converted)
    assert converted(1e300, 1.0) > 2 ** 63
    with pytest.raises(OverflowError, match="beyond the 64-bit range"):
        f(1e300, 1.0)
