"""``sort_values_only``: ``np.sort`` along any axis is NumPy's own sort, not a stable argsort
and a gather, and a median or percentile of a vector reads the positions it needs from
``np.partition``.
Checked: the graphs ``@fusejit.jit`` runs, the values against NumPy (NaN, signed zeros, odd
and even lengths, a single element), and the programs where it must not apply (the order is
read too; the sorted array is returned or read whole; another array's order)."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.oplib import array_ops
from fusejit.oplib.array_ops import _select_sorted
from fusejit.passes.sorted_values import SELECT_SORTED, SORT_VALUES


def _kinds(jitted, *args) -> set:
    return {n.kind for n in jitted.graph_for(*args).all_nodes()}


def _same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _vectors():
    rng = np.random.default_rng(11)
    with_nan = rng.standard_normal(101)
    with_nan[[5, 40]] = np.nan
    zeros = np.array([0.0, -0.0, 1.0, -0.0, 0.0, -1.0])
    ties = rng.integers(0, 4, 64).astype(np.float32)
    return [rng.standard_normal(100), rng.standard_normal(7), with_nan, zeros, ties,
            np.array([3.0]), rng.integers(-50, 50, 33)]


def sort(x):
    return np.sort(x)


def median(x):
    return np.median(x)


def quantiles(x):
    return np.percentile(x, 90), np.quantile(x, 0.25), np.median(x) * 2.0


@pytest.mark.parametrize("x", _vectors(), ids=lambda x: f"{x.dtype}-{x.size}")
def test_sort_is_numpys_sort(x):
    jitted = fusejit.jit(sort)
    for _ in range(2):
        _same(jitted(x), np.sort(x))
    kinds = _kinds(jitted, x)
    assert SORT_VALUES in kinds and "aten::argsort" not in kinds


@pytest.mark.parametrize("x", _vectors(), ids=lambda x: f"{x.dtype}-{x.size}")
def test_medians_and_percentiles_read_a_partition(x):
    for fn in (median, quantiles):
        jitted = fusejit.jit(fn)
        for _ in range(2):
            got, want = jitted(x), fn(x)
            for g, w in zip(np.atleast_1d(got), np.atleast_1d(want)):
                np.testing.assert_allclose(g, w, rtol=1e-15)
        kinds = _kinds(jitted, x)
        assert SELECT_SORTED in kinds and "aten::argsort" not in kinds
        assert SORT_VALUES not in kinds


def order_and_values(x):
    order = np.argsort(x)
    return order, x[order]


def sorted_and_median(x):
    s = np.sort(x)
    return s, s[len(s) // 2]


def rows_sorted(X):
    return np.sort(X, axis=1)


def sorted_along(X, axis):
    return np.sort(X, axis=axis)


def median_along(X, axis):
    return np.median(X, axis=axis)


def ordered_by_other(X, Y):
    return np.take_along_axis(X, np.argsort(Y, axis=0), axis=0)


# (a matrix's two axes are the first and last of the 3-D case's three: an exhaustive case)
@pytest.mark.parametrize("shape", [pytest.param((6, 9), marks=pytest.mark.exhaustive),
                                   (3, 4, 5)])
def test_sorts_along_any_axis_are_numpys_sort(shape):
    rng = np.random.default_rng(13)
    X = rng.standard_normal(shape)
    X.flat[[1, 7, 20]] = [np.nan, -0.0, 0.0]
    for data in (X, X.astype(np.float32), rng.integers(-9, 9, shape)):
        for axis in range(-len(shape), len(shape)):
            jitted = fusejit.jit(sorted_along)
            _same(jitted(data, axis), np.sort(data, axis=axis))
            kinds = _kinds(jitted, data, axis)
            assert SORT_VALUES in kinds and "aten::argsort" not in kinds
            np.testing.assert_array_equal(fusejit.jit(median_along)(data, axis),
                                          np.median(data, axis=axis))
    Y = rng.standard_normal(shape)
    jitted = fusejit.jit(ordered_by_other)     # (another array's order: a gather as written)
    _same(jitted(X, Y), ordered_by_other(X, Y))
    assert SORT_VALUES not in _kinds(jitted, X, Y)


def test_where_the_order_or_the_whole_sort_is_read_it_stays():
    x = np.random.default_rng(12).standard_normal(50)
    X = x.reshape(5, 10)
    jitted = fusejit.jit(order_and_values)      # (np.argsort: NumPy's own, fusejit::argsort)
    assert "fusejit::argsort" in _kinds(jitted, x) and SORT_VALUES not in _kinds(jitted, x)
    for g, w in zip(jitted(x), order_and_values(x)):
        _same(g, w)
    jitted = fusejit.jit(sorted_and_median)
    assert SORT_VALUES in _kinds(jitted, x) and SELECT_SORTED not in _kinds(jitted, x)
    for g, w in zip(jitted(x), sorted_and_median(x)):
        _same(g, w)
    jitted = fusejit.jit(rows_sorted)
    _same(jitted(X), rows_sorted(X))


def test_select_sorted_holds_the_sorted_values_at_its_positions():
    rng = np.random.default_rng(13)
    for n in (1, 2, 5, 100, 1001):
        x = rng.standard_normal(n)
        x[rng.integers(0, n, n // 10)] = np.nan
        want = np.sort(x)
        for positions in ([0], [n - 1], [n // 2, (n - 1) // 2, -1], [-n, n - 1, 0],
                          list(rng.integers(-n, n, 4))):
            got = _select_sorted(x, positions)
            np.testing.assert_array_equal(got[positions], want[positions])
    # a position out of range: the whole sort (the read then raises as it would)
    x = rng.standard_normal(4)
    np.testing.assert_array_equal(_select_sorted(x, [1, 4]), np.sort(x))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint16", "int64", "uint8",
                                   "int8", "bool"])
def test_select_sorted_of_long_vectors_one_position_at_a_time_or_counted(dtype):
    """From ``_SELECT_AT_ONCE`` elements the positions are selected one partition at a time
    (each past the one before), 8-bit values counted: the sorted values at each position,
    NaNs last, whatever the dtype."""
    rng = np.random.default_rng(17)
    for n in (array_ops._SELECT_AT_ONCE, 30001):
        if dtype in ("float64", "float32"):
            x = rng.standard_normal(n).astype(dtype)
            x[rng.integers(0, n, n // 10)] = np.nan
        elif dtype == "bool":
            x = rng.random(n) < 0.3
        else:
            info = np.iinfo(dtype)
            x = rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dtype)
        want = np.sort(x)
        for positions in ([n // 2 - 1, n // 2, n - 1], [0, 1, 2], [n // 100, n // 100 + 1,
                          n * 99 // 100, n * 99 // 100 + 1], [-1, 0],
                          list(rng.integers(-n, n, 5))):
            got = _select_sorted(x, positions)
            assert got.dtype == x.dtype and got.shape == x.shape
            np.testing.assert_array_equal(got[positions], want[positions])


def percentiles_of_arguments(x, low, high):
    return np.percentile(x, [low, high]), np.quantile(x, [low / 100, 0.5])


def test_percentiles_of_numbers_known_when_it_runs_share_one_partition():
    """A list of q that are Python numbers passed in (``np.percentile(img, [lo, hi])`` of two
    arguments) reads one partition, as a list of constants does (a partition each had made
    set O's stretch of a 512 x 512 uint16 image 2.3x slower than NumPy)."""
    x = np.random.default_rng(18).standard_normal(5001)
    jitted = fusejit.jit(percentiles_of_arguments)
    for low, high in ((1.0, 99.0), (0, 100), (37.5, 62.5)):
        for g, w in zip(jitted(x, low, high), percentiles_of_arguments(x, low, high),
                        strict=True):
            _same(g, w)
    kinds = [n.kind for n in jitted.graph_for(x, 1.0, 99.0).all_nodes()]
    assert kinds.count(SELECT_SORTED) == 1 and SORT_VALUES not in kinds


def clipped_at_percentiles(x):
    lo, hi = np.percentile(x, [5, 95])       # (the shim runs once for each q: two sorts)
    return np.clip(x, lo, hi), np.median(x)


def test_sorts_of_one_vector_share_one_partition():
    """Later sorts of a vector an earlier sort made read that one, where every position both
    read can be computed before the first read: one partition at all of them."""
    x = np.random.default_rng(14).standard_normal(1001)
    # (float32: the percentiles read a float64 copy, as NumPy computes them, the median x)
    for arg, partitions in ((x, 1), (x.astype(np.float32), 2)):
        jitted = fusejit.jit(clipped_at_percentiles)
        graph = jitted.graph_for(arg)
        kinds = [n.kind for n in graph.all_nodes()]
        assert kinds.count(SELECT_SORTED) == partitions and SORT_VALUES not in kinds
        for g, w in zip(jitted(arg), clipped_at_percentiles(arg), strict=True):
            assert (g.dtype, g.shape) == (w.dtype, w.shape)
            np.testing.assert_array_equal(g, w)


def stretched_in_place(x):
    img = x.copy()
    img -= img.min()
    lo, hi = np.percentile(img, [1.0, 99.0])
    img -= lo
    img *= 1.0 / (hi - lo)
    np.clip(img, 0.0, 1.0, out=img)
    return img, np.median(img)


def median_before_and_after(x):
    img = x.copy()
    before = np.median(img)
    img *= -1.0                 # (between the two sorts of img: each keeps its own)
    return before, np.median(img)


def test_writes_elsewhere_leave_sorts_shared_and_a_write_between_them_does_not():
    """Sorts of one vector share a partition where nothing between them writes it (writes
    before both, or after both, as in an image stretched in place between its percentiles),
    and keep their own where something does."""
    x = np.random.default_rng(15).standard_normal((40, 51))
    for fn, partitions in ((stretched_in_place, 2), (median_before_and_after, 2)):
        jitted = fusejit.jit(fn)
        for _ in range(3):
            for g, w in zip(jitted(x), fn(x), strict=True):
                _same(g, w)
        kinds = [n.kind for n in jitted.graph_for(x).all_nodes()]
        assert kinds.count(SELECT_SORTED) == partitions, fn.__name__


def listed_percentiles(x):
    return np.percentile(x, [0.0, 3.5, 50.0, 99.0, 100.0]), np.quantile(x, [0.25, 0.75])


# (int32: a narrow int, each value read cast, as uint8, the one the default suite runs)
@pytest.mark.parametrize("dtype", ["float32", "int64",
                                   pytest.param("int32", marks=pytest.mark.exhaustive), "uint8"])
def test_percentiles_of_a_list_partition_the_array_not_a_float64_copy(dtype):
    """NumPy computes a list of q in float64: the frontend reads the array cast to float64,
    and the partition takes the array itself, each value it reads cast (a cast to float64
    keeps the order; int64 near 2^62 rounds and ties, never reorders), so no float64 copy
    of the whole array is made (set K's 1732 x 1732 float32 image: its percentiles read
    from a 24 MB copy)."""
    rng = np.random.default_rng(16)
    if dtype == "float32":
        x = rng.standard_normal(1001).astype(np.float32)
        x[[3, 500]] = np.nan
        values = [x, np.abs(x[~np.isnan(x)])]
    elif dtype == "int64":
        values = [rng.integers(-(1 << 62), 1 << 62, 999) | 1, rng.integers(-5, 5, 200)]
    else:
        values = [rng.integers(0, 200, 777).astype(dtype)]
    jitted = fusejit.jit(listed_percentiles)
    for x in values:
        for _ in range(2):
            for g, w in zip(jitted(x), listed_percentiles(x), strict=True):
                _same(g, w)
        graph = jitted.graph_for(x)
        widened = [n for n in graph.all_nodes() if n.kind == "aten::type_as"
                   and n.output().type.rank and n.output().type.dtype == np.float64]
        assert not widened, str(graph)


def percentiles_then_written(x):
    img = x.astype(np.float32)
    p = np.percentile(img, [10.0, 90.0])
    img *= 2.0
    return p, np.percentile(img, [10.0, 90.0]), np.median(img)


def test_a_write_after_the_float64_copy_keeps_the_values_it_copied():
    """The percentiles of a list read the array as its float64 copy made at the call; a
    write after the call changes the array, not what the partition of that call reads."""
    x = np.random.default_rng(17).standard_normal(501)
    jitted = fusejit.jit(percentiles_then_written)
    for _ in range(2):
        for g, w in zip(jitted(x), percentiles_then_written(x), strict=True):
            _same(g, w)
