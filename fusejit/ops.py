"""``F``: the pointwise functions NumPy lacks, usable eagerly and recognised by the frontends.

::

    from fusejit import ops as F

    F.sigmoid(np.array([0.0, 2.0], np.float32))   # eager: array([0.5, 0.8807971], float32)

    @fusejit.jit
    def gate(x):
        return F.sigmoid(x) * F.relu(x)           # scripted: aten::sigmoid, aten::relu, aten::mul

Eagerly each function computes what the matching ``aten::`` op computes (PyTorch's dtype rules:
floating functions of integer arrays return float32). ``fusejit.script`` maps the functions
themselves (by identity) to IR; ``fusejit.trace`` sees them through ``__fusejit_op__`` on its
tracer arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .oplib.dtypes import DEFAULT_FLOAT, result_type

__all__ = ["addcmul", "erf", "erfc", "frac", "lerp", "lgamma", "logit", "reciprocal", "relu",
           "rsqrt", "sigmoid", "softmax", "threshold", "type_as"]


def _traced(function: Callable) -> Callable:
    """Let a tracer array intercept the call, so ``trace`` records it instead of running it."""
    name = function.__name__

    def dispatch(*args: Any, **kwargs: Any):
        for arg in args:
            hook = getattr(type(arg), "__fusejit_op__", None)
            if hook is not None:
                return hook(arg, name, args, kwargs)
        return function(*args, **kwargs)

    dispatch.__name__ = name
    dispatch.__qualname__ = name
    dispatch.__doc__ = function.__doc__
    dispatch.__wrapped__ = function  # type: ignore[attr-defined]
    return dispatch


def _floating(x: Any) -> np.ndarray:
    """``x`` as an array of a floating dtype (integers and bools become float32, as in PyTorch)."""
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(DEFAULT_FLOAT)


@_traced
def sigmoid(x):
    """``aten::sigmoid``: 1 / (1 + exp(-x))."""
    x = _floating(x)
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


@_traced
def relu(x):
    """``aten::relu``: max(x, 0), keeping the dtype."""
    x = np.asarray(x)
    return np.maximum(x, np.zeros((), x.dtype))


@_traced
def rsqrt(x):
    """``aten::rsqrt``: 1 / sqrt(x)."""
    x = _floating(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1 / np.sqrt(x)).astype(x.dtype, copy=False)


@_traced
def reciprocal(x):
    """``aten::reciprocal``: 1 / x (integer arrays give float32)."""
    x = _floating(x)
    with np.errstate(divide="ignore"):
        return (1 / x).astype(x.dtype, copy=False)


@_traced
def frac(x):
    """``aten::frac``: x - trunc(x)."""
    x = np.asarray(x)
    return x - np.trunc(x)


@_traced
def logit(x):
    """``aten::logit``: log(x / (1 - x))."""
    x = _floating(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x)).astype(x.dtype, copy=False)


def _elementwise(function: Callable[[float], float], x) -> np.ndarray:
    x = _floating(x)
    return np.vectorize(function, otypes=[x.dtype])(x) if x.size else x.copy()


@_traced
def erf(x):
    """``aten::erf``: the error function."""
    return _elementwise(math.erf, x)


@_traced
def erfc(x):
    """``aten::erfc``: 1 - erf(x), accurate for large x."""
    return _elementwise(math.erfc, x)


@_traced
def lgamma(x):
    """``aten::lgamma``: log |Gamma(x)|."""
    return _elementwise(lambda v: math.lgamma(v) if v > 0 or v != math.floor(v) else math.inf, x)


@_traced
def threshold(x, threshold, value):
    """``aten::threshold``: x where x > threshold, else value."""
    x = np.asarray(x)
    return np.where(x > threshold, x, np.asarray(value, dtype=x.dtype))


@_traced
def lerp(start, end, weight):
    """``aten::lerp``: start + weight * (end - start)."""
    start, end = np.asarray(start), np.asarray(end)
    return (start + weight * (end - start)).astype(result_type(start, end), copy=False)


@_traced
def addcmul(x, tensor1, tensor2, value=1):
    """``aten::addcmul``: x + value * tensor1 * tensor2."""
    x, tensor1, tensor2 = np.asarray(x), np.asarray(tensor1), np.asarray(tensor2)
    dtype = result_type(x, tensor1, tensor2)
    return (x + value * tensor1 * tensor2).astype(dtype, copy=False)


@_traced
def softmax(x, axis):
    """``aten::softmax(x, axis)``: exp(x) / sum(exp(x)) along ``axis``, max-shifted."""
    x = _floating(x)
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return (shifted / np.sum(shifted, axis=axis, keepdims=True)).astype(x.dtype, copy=False)


@_traced
def type_as(x, other):
    """``aten::type_as``: x converted to the dtype of ``other``."""
    return np.asarray(x).astype(np.asarray(other).dtype)
