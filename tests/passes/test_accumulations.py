"""``sum_fresh_accumulations``: ``n = np.zeros(...); n += a; n += b ...`` adds the terms up first
and updates ``n`` once (one kernel written into it), with NumPy's values to the bit: integer
sums that wrap, bool terms counted as 0 and 1, float terms of the array's dtype, ``-=``,
negative zeros; runs it leaves alone (another reader, a float term of a wider dtype) keep
their values, and a term that would broadcast ``n`` larger still raises."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def counts(b, c):
    n = np.zeros(b.shape, dtype=np.int8)
    n += b
    n += c
    n -= b[::-1]
    n += c * 100        # (int64 terms: the int8 sum wraps as NumPy's updates do)
    return n


def floats(x, y):
    s = np.zeros_like(x)
    s += x
    s += y * y
    s -= x * 0.5
    s += -0.0 * y
    return s


def wider_term(x, y):
    s = np.zeros_like(x)
    s += x
    s += y.astype(np.float64)       # (float32 += float64: each update rounds; left alone)
    return s


def read_between(x, y):
    s = np.zeros_like(x)
    s += x
    t = s * 2.0                     # (reads the first sum: left alone)
    s += y
    return s, t


@pytest.mark.parametrize("fn", [counts, floats, wider_term, read_between])
def test_accumulations_are_numpys_bits(fn):
    rng = np.random.default_rng(9)
    if fn is counts:
        args = (rng.random((20, 30)) < 0.5, rng.integers(0, 3, (20, 30)))
    else:
        x = rng.standard_normal(1000).astype(np.float32)
        args = (x, rng.standard_normal(1000).astype(np.float32))
        args[0][:3] = [-0.0, 0.0, -0.0]
        args[1][:3] = [-0.0, -0.0, 0.0]
    jitted = fusejit.jit(fn)
    got, want = jitted(*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
        assert np.array_equal(np.signbit(g), np.signbit(w))
    # (the updates the sums leave, a float32 += float64 and a read between, are values too:
    # passes/fresh_updates.py, each rounding as its update does)
    updates = _top(jitted.graph_for(*args)).count(aten.add_) + \
        _top(jitted.graph_for(*args)).count(aten.sub_)
    assert updates == 0


def broadcasting_term(x, y):
    s = np.zeros(x.shape)
    s += x
    s += y
    return s


def test_a_term_that_would_grow_the_array_still_raises():
    x, y = np.ones(3), np.ones((2, 3))
    with pytest.raises(ValueError):
        broadcasting_term(x, y)
    with pytest.raises(Exception, match="(?i)shape|broadcast|size"):
        fusejit.jit(broadcasting_term)(x, y)
