"""Edge values through the three paths of the differential harness: every pair of int64
extremes (overflow wraps; remainder and fmod by zero raise a FusejitError everywhere), of
uint64's (2**63 and more, which int64 would read as negative) and of
float specials (NaN, +-inf, -0.0, denormals, the float32 maximum) in float32 and float64,
for binary and unary ops, each inside a two-op fusion group so the kernel runs too (each float op
in one dtype by default, both with FUSEJIT_FULL_SUITE=1; an op whose rule another op of its
kind checks the same way, in the full suite only)."""

from __future__ import annotations

import numpy as np
import pytest

from .graphs import INEXACT_UNARY, FuzzCase
from .harness import check_case

INTS = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1, 0, 1, 7, -7], np.int64)
FLOATS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, 3.4e38, -1.5, 2.5, 1e-300]

INT_BINARY = ["add", "sub", "mul", "div", "remainder", "fmod", "max", "min", "eq", "lt"]
FLOAT_BINARY = ["add", "sub", "mul", "div", "remainder", "fmod", "max", "min", "atan2", "pow",
                "eq", "ne", "lt", "ge"]
UNARY = ["exp", "log", "tanh", "sigmoid", "sqrt", "reciprocal", "floor", "ceil", "round",
         "trunc", "frac", "abs", "neg", "relu", "expm1", "log1p", "erf", "sin"]
TYPES = {np.dtype(np.int64): "Long", np.dtype(np.float32): "Float",
         np.dtype(np.float64): "Double", np.dtype(np.uint64): "UInt64"}
# uint64's: 2**63 and more are negative as int64, so any step that went through int64 shows
UINTS = np.array([0, 1, 7, (1 << 63) - 1, 1 << 63, (1 << 64) - 1], np.uint64)
UINT_BINARY = ["add", "mul", "div", "remainder", "max", "lt"]

# Ops whose edge values take the path and the rule of another op the default suite runs, which
# it checks the same way: exhaustive cases (tests/conftest.py). sub wraps and rounds as add does,
# min propagates NaN as max does, eq and ge compare as lt does (ne, true for NaN, stays), and
# uint64's mul and max wrap and compare as its add and lt do; ceil
# and trunc round as floor does, neg flips the sign bit as abs clears it; of the vectorised
# maps (their specials in both dtypes: tests/runtime/fusion/test_vecmath.py), tanh, log1p and
# sin (a range reduction of its own) stay.
INT_REPEATS = {"sub", "min", "eq"}
UINT_REPEATS = {"mul", "max"}
FLOAT_REPEATS = {"sub", "min", "eq", "ge", "exp", "log", "sigmoid", "expm1", "erf", "ceil",
                 "trunc", "neg"}


def _ops(ops: list[str], repeats: set[str]) -> list:
    return [pytest.param(op, marks=[pytest.mark.exhaustive] * (op in repeats)) for op in ops]


def _binary_case(op: str, x: np.ndarray, y: np.ndarray) -> FuzzCase:
    t = TYPES[x.dtype]
    alpha = ", %one" if op in ("add", "sub") else ""
    text = f"""graph(%x : {t}(*, *), %y : {t}(*, *), %w : Tensor):
  %one : int = prim::Constant[value=1]()
  %r : Tensor = aten::{op}(%x, %y{alpha})
  %s : Tensor = aten::mul(%r, %w)
  return (%s, %r)
"""
    exact = op not in ("atan2", "pow")
    w = np.ones((1, 1), np.bool_)          # x * True is exact for every dtype
    return FuzzCase(text, [x, y, w], {"r": exact, "s": exact}, False)


def _unary_case(op: str, x: np.ndarray) -> FuzzCase:
    t = TYPES[x.dtype]
    text = f"""graph(%x : {t}(*), %w : Tensor):
  %r : Tensor = aten::{op}(%x)
  %s : Tensor = aten::mul(%r, %w)
  return (%s, %r)
"""
    exact = op not in INEXACT_UNARY
    return FuzzCase(text, [x, np.ones(1, np.bool_)], {"r": exact, "s": exact}, False)


def _assert_agree(case: FuzzCase) -> None:
    problems, stats = check_case(case)
    assert not problems, "\n".join(problems)
    assert stats["groups"] == 1 and stats["kernel_calls"] == 1, stats


@pytest.mark.parametrize("op", _ops(INT_BINARY, INT_REPEATS))
def test_int64_extremes(op):
    x, y = INTS[:, None], INTS[None, :]
    if op in ("remainder", "fmod"):
        y = INTS[INTS != 0][None, :]       # by zero: below
    _assert_agree(_binary_case(op, x.copy(), y.copy()))


@pytest.mark.parametrize("op", _ops(UINT_BINARY, UINT_REPEATS))
def test_uint64_extremes(op):
    x, y = UINTS[:, None], UINTS[None, :]
    if op == "remainder":
        y = UINTS[UINTS != 0][None, :]
    _assert_agree(_binary_case(op, x.copy(), y.copy()))


@pytest.mark.parametrize("op", ["remainder", "fmod"])
def test_int64_remainder_by_zero_raises_everywhere(op):
    case = _binary_case(op, INTS[:, None].copy(), np.zeros((1, 2), np.int64))
    problems, stats = check_case(case)
    assert not problems, "\n".join(problems)
    assert stats["errors"] == 1


def _alternating(ops: list[str]) -> list:
    """(op, dtype) for every op and float dtype; each op's second dtype (float64 for every other
    op, float32 for the rest) is an exhaustive case (tests/conftest.py). The default suite runs
    each op's specials through the three paths in one dtype; the kernels' own special values in
    both dtypes are checked in tests/runtime/fusion/test_vecmath.py (wide kernels, no paths).
    An op of ``FLOAT_REPEATS`` is exhaustive in both dtypes."""
    cases = []
    for i, op in enumerate(ops):
        first, second = (np.float32, np.float64) if i % 2 == 0 else (np.float64, np.float32)
        cases += [pytest.param(op, first, id=f"{op}-{first.__name__}",
                               marks=[pytest.mark.exhaustive] * (op in FLOAT_REPEATS)),
                  pytest.param(op, second, id=f"{op}-{second.__name__}",
                               marks=pytest.mark.exhaustive)]
    return cases


@pytest.mark.parametrize("op, dtype", _alternating(FLOAT_BINARY))
def test_float_specials_binary(op, dtype):
    values = np.array(FLOATS, dtype)
    _assert_agree(_binary_case(op, values[:, None].copy(), values[None, :].copy()))


@pytest.mark.parametrize("op, dtype", _alternating(UNARY))
def test_float_specials_unary(op, dtype):
    _assert_agree(_unary_case(op, np.array(FLOATS, dtype)))
