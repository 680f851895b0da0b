"""Arguments a compiled function cannot take raise ``InterpreterError`` naming the argument:
arrays of dtypes with no tensor type (they used to run as garbage, e.g. complex cast to real, or
fail with a bare ``ValueError``), and ints beyond int64 (``OverflowError`` before)."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit import InterpreterError, parse_ir

GRAPH = """\
graph(%x : Tensor, %n : int, %f : float, %s : Scalar, %l : int[]):
  %y : Tensor = aten::mul(%x, %n)
  %z : Tensor = aten::mul(%y, %f)
  return (%z)
"""

GOOD = (np.arange(3, dtype=np.float32), 2, 0.5, 1, [1])


@pytest.fixture(scope="module")
def fn():
    return fusejit.compile(parse_ir(GRAPH), engine="reference")


def test_good_arguments_run(fn):
    np.testing.assert_array_equal(fn(*GOOD), np.arange(3, dtype=np.float32) * 2 * 0.5)


@pytest.mark.parametrize("array", [
    np.ones(3, np.longdouble), np.ones(3, "m8[s]"), np.ones(3, np.complex64),
    np.array([1, "a"], dtype=object), np.array(["a", "b"]), np.zeros(2, dtype=[("a", "f4")]),
    np.array(["2020-01-01"], dtype="datetime64[D]"),
], ids=lambda a: str(a.dtype))
def test_arrays_without_a_tensor_type_are_refused(fn, array):
    with pytest.raises(InterpreterError, match=r"argument %x \(input 0\).*has no tensor type"):
        fn(array, *GOOD[1:])


@pytest.mark.parametrize("position,value,why", [
    (1, 2**63, "beyond the 64-bit range"),
    (1, -(2**63) - 1, "beyond the 64-bit range"),
    (1, np.uint64(2**64 - 1), "beyond the 64-bit range"),
    (2, 10**400, "too large for a float"),
    (3, 2**64, "beyond the 64-bit range"),
    (4, [1, 2**70], "element 1"),
])
def test_out_of_range_numbers_are_refused(fn, position, value, why):
    args = list(GOOD)
    args[position] = value
    name = ["x", "n", "f", "s", "l"][position]
    with pytest.raises(InterpreterError, match=rf"argument %{name} .*{why}"):
        fn(*args)


def test_int64_extremes_are_accepted(fn):
    x = np.zeros(3, np.float32)
    for n in (2**63 - 1, -(2**63)):
        np.testing.assert_array_equal(fn(x, n, 1.0, 1, [n]), x)
