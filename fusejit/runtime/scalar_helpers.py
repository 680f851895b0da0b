"""The int conversions that generated whole-graph and scalar functions call, compiled once.

Every module ``scalar_function``, ``element_function`` and ``element_stage`` generate calls
these by name; defined in each module's own text, they were compiled again for each one (some
0.15 s a module that calls ``int()``, ``math.floor`` or ``math.ceil`` of a float). Here they are
compiled once per machine and cached with fusejit's own functions (``compile_cache``).

``int()`` is an int64 (Numba's int() of a uint8 element is unsigned: int(a[0]) - int(a[1])
wrapped to 2**64 - 158). Float to int conversions raise where the int would not fit int64
(Numba's int() of 1e300 or nan is whatever the CPU gives); the interpreter then reruns the call
and gives its error. (An int operand near 2**63 compares as a float and is refused too: the
rerun gives its value.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def int64_range(x):
    if not -9223372036854775808.0 <= x < 9223372036854775808.0:
        raise ValueError("cannot convert the float to an int64")


@njit(cache=True)
def to_int(x):
    int64_range(x)
    return np.int64(x)


@njit(cache=True)
def floor_int(x):
    int64_range(x)
    return math.floor(x)


@njit(cache=True)
def ceil_int(x):
    int64_range(x)
    return math.ceil(x)


@njit(cache=True)
def int_pow(a, b):
    """Python's ``a ** b`` of two int64s, ``b >= 0`` (``oplib.scalar.int_power``): raises
    where ``b`` is negative or the result is beyond int64 (the interpreter then gives the
    error)."""
    if b < 0:
        raise ValueError("an int to a negative int power")
    if a == 0 or a == 1:
        return np.int64(1) if b == 0 else np.int64(a)
    if a == -1:
        return np.int64(1) if b % 2 == 0 else np.int64(-1)
    if b > 64:
        raise ValueError("beyond int64")
    result = np.int64(1)
    limit = np.int64(9223372036854775807) // abs(a)
    for _ in range(b):
        if abs(result) > limit:
            raise ValueError("beyond int64")
        result *= a
    return result


__all__ = ["ceil_int", "floor_int", "int64_range", "int_pow", "to_int"]
