"""``fuse_sibling_maps``: maps that read one array and feed nothing of each other share one
fusion group (one pass over the array, an output each), while ``fuse_graph`` alone leaves them
apart. Checked against NumPy, with the programs where merging would be wrong: an array written
between the maps, a map's result used before the other one runs, a path through another op
between them, and maps of arrays of other shapes."""

from __future__ import annotations

import numpy as np

import fusejit
from fusejit.ir.symbols import aten, prim


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def _group_sizes(graph) -> list[int]:
    return [len(n.outputs) for n in graph.nodes() if n.kind == prim.FusionGroup]


RNG = np.random.default_rng(8)
T = RNG.integers(-10 ** 6, 10 ** 6, 500)
X = RNG.standard_normal((20, 25))


def bucket_and_phase(t, period):
    return t // period, t % period, -t // 3


def sin_and_cos(x):
    return np.sin(x), np.cos(x) * 2.0


def written_between(x):
    a = x * 2.0
    x += 1.0
    b = x * 3.0
    return a, b


def used_between(x):
    a = x * 2.0
    m = a @ a.T           # (a product: no group takes it)
    b = x + 1.0
    return m, b


def other_shapes(x, row):
    return x * 2.0, row + 1.0


def _same(got, want, rtol=1e-15):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol)


def test_maps_of_one_array_are_one_kernel():
    f = fusejit.jit(bucket_and_phase)
    _same(f(T, 7), bucket_and_phase(T, 7))
    graph = f.graph_for(T, 7)
    assert _top(graph) == [prim.FusionGroup] and _group_sizes(graph) == [3]
    g = fusejit.jit(sin_and_cos)
    _same(g(X), sin_and_cos(X))
    assert _group_sizes(g.graph_for(X)) == [2]
    plain = fusejit.compile(fusejit.script(sin_and_cos), fuse=True)
    assert aten.sin in _top(plain.graph_for(X))        # (fuse_graph alone: apart)


def test_an_array_written_between_its_maps_keeps_them_apart():
    f = fusejit.jit(written_between)
    x, y = X.copy(), X.copy()
    _same(f(x), written_between(y))
    np.testing.assert_array_equal(x, y)


def test_a_result_used_before_the_other_map_keeps_them_apart():
    f = fusejit.jit(used_between)
    _same(f(X), used_between(X), rtol=1e-13)
    assert _group_sizes(f.graph_for(X)) != [2]      # (a group at b's place: a too late)


def test_maps_of_arrays_of_other_shapes_stay_apart():
    row = X[0].copy()
    f = fusejit.jit(other_shapes)
    _same(f(X, row), other_shapes(X, row))
    assert 2 not in _group_sizes(f.graph_for(X, row))


def envelope(x, y, w):
    return np.minimum(x, y), np.maximum(x, y), np.maximum(x, w)


def test_maps_of_the_same_arrays_are_one_kernel():
    """Maps reading the same two arrays share a group (their broadcast shape); one reading
    another pair stays apart. NumPy's values, NaN and -0.0 included, on every call."""
    rng = np.random.default_rng(9)
    x, y, w = (rng.standard_normal((300, 400)) for _ in range(3))
    x[0, :3], y[0, :3] = (np.nan, -0.0, 0.0), (1.0, 0.0, -0.0)
    f = fusejit.jit(envelope)
    for _ in range(3):
        got, want = f(x, y, w), envelope(x, y, w)
        for g, v in zip(got, want):
            np.testing.assert_array_equal(g, v)
            assert np.array_equal(np.signbit(g), np.signbit(v))
    assert _group_sizes(f.graph_for(x, y, w)) == [2]        # (max(x, w): NumPy's, alone)
