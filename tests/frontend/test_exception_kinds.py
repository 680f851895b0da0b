"""Errors a jitted function raises are of the classes the same code raises run by Python or
NumPy too (``fusejit.errors.kinded``): ``except IndexError`` around a call catches what it
caught before the function was jitted, and ``except fusejit.FusejitError`` still catches every
error fusejit raises, with its node and source location."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fusejit
from fusejit.errors import (
    FusejitError,
    InterpreterError,
    JITException,
    ShapeMismatch,
    builtin_kind,
    kind_of,
    kinded,
    make,
)


def past_the_end(a, i):
    return a[i] * 2.0


def mismatched(a, b):
    return (a + b).sum()


def singular(m, b):
    return np.linalg.solve(m, b) + 1.0


def negative_into_bytes(a, v):
    b = a + 1
    b[0] = v
    return b


def checked(a):
    if a.sum() < 0:
        raise ValueError("the weights must not sum to less than zero")
    return a / a.sum()


def looked_up(a, k):
    if k > 3:
        raise KeyError("no such column")
    return a * k


def reshaped(a):
    return a.reshape(3, 5) * 2.0


def joined(a, b):
    return np.concatenate([a, b]) + 1.0


def stacked(a, b):
    return np.stack([a, b]).sum(axis=0)


def product(a, b):
    return (a @ b) * 2.0


def summed_along(a):
    return a.sum(axis=3) + 1.0


CASES = [
    (past_the_end, lambda: (np.arange(5.0), 7)),
    (mismatched, lambda: (np.ones(3), np.ones(4))),
    (singular, lambda: (np.zeros((3, 3)), np.ones(3))),
    (negative_into_bytes, lambda: (np.zeros(4, np.uint8), -1)),
    (checked, lambda: (-np.ones(6),)),
    (looked_up, lambda: (np.ones(3), 5)),
    # (PyTorch's RuntimeError for these shapes, NumPy's ValueError: errors.ShapeMismatch)
    (reshaped, lambda: (np.arange(10.0),)),
    (joined, lambda: (np.ones((2, 3)), np.ones((2, 4)))),
    (stacked, lambda: (np.ones(3), np.ones(4))),
    (product, lambda: (np.ones((2, 3)), np.ones((4, 2)))),
    # (an axis out of range: NumPy's AxisError, also PyTorch's IndexError)
    (summed_along, lambda: (np.ones((2, 2)),)),
]


@pytest.mark.parametrize("fn, make_args", CASES, ids=[c[0].__name__ for c in CASES])
def test_errors_are_of_the_class_python_raises(fn, make_args):
    """Every call (the interpreter's, then the compiled forms' fallback to it): the error is a
    FusejitError and an instance of the class Python or NumPy raised, says where it happened,
    prints its message as it always did (not quoted as a KeyError's), and pickles (a Dask
    worker's error travels so) to an error of both classes with that message."""
    with pytest.raises(Exception) as plain:
        fn(*make_args())
    kind = type(plain.value)
    jitted = fusejit.jit(fn)
    for _ in range(3):
        with pytest.raises(kind) as caught:
            jitted(*make_args())
        error = caught.value
        assert isinstance(error, FusejitError) and issubclass(kind_of(error), kind)
        assert __file__ in str(error) and str(error) == error.args[0]
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)


def test_a_class_python_cannot_combine_gives_fusejits_own():
    """Kinds that are no Exception, are fusejit's own, or whose constructor takes more than a
    message: the error is of fusejit's class alone."""
    assert kinded(InterpreterError, KeyboardInterrupt) is InterpreterError
    assert kinded(InterpreterError, JITException) is InterpreterError
    assert kinded(InterpreterError, None) is InterpreterError
    error = make(InterpreterError, UnicodeDecodeError, "bad bytes")
    assert type(error) is InterpreterError and str(error) == "bad bytes"
    assert issubclass(kinded(InterpreterError, np.linalg.LinAlgError), ValueError)
    assert issubclass(kinded(InterpreterError, ShapeMismatch), (RuntimeError, ValueError))


@pytest.mark.parametrize("message, kind", [
    ("ValueError: x must be positive", ValueError),
    ("ZeroDivisionError", ZeroDivisionError),
    ("KeyboardInterrupt: stop", None),        # (not an Exception)
    ("__import__: os", None),                  # (a function of builtins, not a class)
    ("os.system: rm", None),
    ("MyError: mine", None),
    ("no class named at all", None),
])
def test_a_raise_message_names_a_builtin_class_or_none(message, kind):
    """``prim::RaiseException`` carries text: only a class of Python's ``builtins`` module
    named before its colon is taken, by lookup."""
    assert builtin_kind(message) is kind
