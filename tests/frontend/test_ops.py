"""fusejit.ops (F): eager results against scalar oracles from ``math`` and the formulas'
definitions, with PyTorch's dtype rules; and the same functions recognised by script/trace."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fusejit import ops as F
from fusejit.frontend import script, trace
from fusejit.runtime.executor import compile

VALUES = [-3.5, -1.0, -0.25, 0.0, 0.3, 1.0, 2.5, 7.0]

ORACLES = {
    F.sigmoid: lambda v: 1 / (1 + math.exp(-v)),
    F.relu: lambda v: max(v, 0.0),
    F.erf: math.erf,
    F.erfc: math.erfc,
    F.frac: lambda v: v - math.trunc(v),
    F.lgamma: lambda v: math.lgamma(v) if v not in (0.0, -1.0) else math.inf,
}


@pytest.mark.parametrize("fn", list(ORACLES), ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eager_values_and_dtype(fn, dtype):
    x = np.array(VALUES, dtype)
    got = fn(x)
    assert got.dtype == dtype and got.shape == x.shape
    want = np.array([ORACLES[fn](float(v)) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("fn", [F.rsqrt, F.reciprocal], ids=lambda f: f.__name__)
def test_positive_only_functions(fn):
    x = np.array([0.25, 1.0, 4.0, 9.0], np.float32)
    want = {F.rsqrt: [2.0, 1.0, 0.5, 1 / 3], F.reciprocal: [4.0, 1.0, 0.25, 1 / 9]}[fn]
    np.testing.assert_allclose(fn(x), want, rtol=1e-6)


def test_integer_inputs_give_float32_like_pytorch():
    i = np.arange(3, dtype=np.int64)
    assert F.sigmoid(i).dtype == np.float32 and F.relu(i).dtype == np.int64


def test_multi_argument_functions():
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    y = np.array([1.0, 1.0, 1.0], np.float32)
    np.testing.assert_array_equal(F.threshold(x, 0.5, -9.0), [-9.0, -9.0, 2.0])
    np.testing.assert_allclose(F.lerp(x, y, 0.25), x + 0.25 * (y - x))
    np.testing.assert_allclose(F.addcmul(x, x, y, value=2), x + 2 * x * y)
    s = F.softmax(np.array([[1.0, 2.0, 3.0]], np.float32), 1)
    e = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    np.testing.assert_allclose(s[0], [v / sum(e) for v in e], rtol=1e-6)
    assert F.type_as(x, np.zeros(1, np.float64)).dtype == np.float64


def uses_ops(x, y):
    a = F.threshold(x, 0.0, 0.5)
    b = F.lerp(x, y, 0.3)
    c = F.addcmul(x, y, y, value=2)
    return F.relu(a) + F.sigmoid(b) * c


@pytest.mark.parametrize("frontend", ["script", "trace"])
def test_ops_are_recognised_by_the_frontends(frontend):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    y = np.linspace(1, 3, 12, dtype=np.float32).reshape(3, 4)
    graph = script(uses_ops) if frontend == "script" else trace(uses_ops, x, y)
    kinds = [n.kind for n in graph.nodes()]
    for kind in ("aten::threshold", "aten::lerp", "aten::addcmul", "aten::relu",
                 "aten::sigmoid"):
        assert kind in kinds
    got, want = compile(graph)(x, y), uses_ops(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
