"""NumPy calls a whole-graph function makes with Numba's own (``element_function``):
``np.convolve`` and ``np.correlate`` in every mode, ``np.bincount``, ``np.flatnonzero``,
``np.nonzero`` / ``np.argwhere``, ``np.diagonal`` / ``np.diag`` / ``np.trace``. Each program is
compiled with a fallback that fails the test, so every value checked is the compiled
function's, against NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.element_function import compile_element_graph
from fusejit.runtime.element_support import is_element_graph
from tests.matrix import covered
from tests.runtime.conftest import compiled_whole, refuse, scripted


def convolve_modes(a, v):
    return np.convolve(a, v), np.convolve(a, v, "valid"), np.convolve(a, v, "same")


def correlate_modes(a, v):
    return np.correlate(a, v, "full"), np.correlate(a, v), np.correlate(a, v, "same")


def _close_to(got, want, a, v):
    """Equal up to rounding: the sums run in another order than NumPy's BLAS dot, so each
    element may differ by a few ulps of the sum of its terms' magnitudes."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
        return
    scale = np.convolve(np.abs(a.astype(np.float64)), np.abs(v.astype(np.float64)), "full")
    scale = scale.max() if scale.size else 1.0
    assert np.max(np.abs(got.astype(np.float64) - want), initial=0.0) <= \
        4 * np.finfo(want.dtype).eps * scale


@pytest.mark.parametrize("dtype, fn", covered([np.float64, np.float32, np.int64],
                                               [convolve_modes, correlate_modes], strength=1))
def test_convolve_and_correlate_in_every_mode_and_length(dtype, fn):
    rng = np.random.default_rng(5)
    lengths = range(1, 9)
    compiled = None
    for n in lengths:
        for m in lengths:        # (either operand the longer; odd and even lengths)
            a = (rng.standard_normal(n) * 10).astype(dtype)
            v = (rng.standard_normal(m) * 10).astype(dtype)
            compiled = compiled or compiled_whole(fn, a, v)
            for got, want in zip(compiled(a, v), fn(a, v)):
                _close_to(got, want, a, v)


def test_a_convolution_of_mixed_dtypes_and_an_empty_operand():
    rng = np.random.default_rng(6)
    a32, v = rng.standard_normal(30).astype(np.float32), rng.standard_normal(5)

    def mixed(a, v):
        return np.convolve(a, v, "valid") * 2.0

    _close_to(compiled_whole(mixed, a32, v)(a32, v), mixed(a32, v), a32, v)

    def smoothed(x):
        return np.convolve(x, np.ones(4) / 4, mode="same")

    x = rng.standard_normal(50)
    _close_to(compiled_whole(smoothed, x)(x), smoothed(x), x, np.ones(4) / 4)
    f = fusejit.jit(mixed)
    for _ in range(3):      # (interpreted, then compiled: NumPy's error either way)
        with pytest.raises(Exception, match="cannot be empty"):
            f(a32[:0], v)


def counts(labels, weights):
    return (np.bincount(labels), np.bincount(labels, weights),
            np.bincount(labels, minlength=9), np.bincount(labels, weights, 2))


# (one source for every dtype of labels, a compile each: the narrower ints are exhaustive)
@pytest.mark.parametrize("dtype", [np.int64, *(pytest.param(d, marks=pytest.mark.exhaustive)
                                               for d in (np.int32, np.uint8, np.int16))])
def test_bincount_counts_and_weighted_sums(dtype):
    rng = np.random.default_rng(7)
    for each in (np.int64, np.int32, np.uint8, np.int16):     # (the same draws for each)
        labels = rng.integers(0, 6, 40).astype(each)
        for weights in (rng.random(40), rng.random(40).astype(np.float32)):
            if each is not dtype:
                continue
            got, want = compiled_whole(counts, labels, weights)(labels, weights), \
                counts(labels, weights)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype
                np.testing.assert_array_equal(g, w)
    f = fusejit.jit(counts)
    labels, weights = np.array([1, -1, 2]), np.ones(3)
    for _ in range(3):
        with pytest.raises(Exception, match="negative"):
            f(labels, weights)


def positions(x):
    return np.flatnonzero(x > 0.2), np.argwhere(x < 0), np.nonzero(x > 0.5)


def test_nonzero_positions_of_vectors_and_matrices():
    rng = np.random.default_rng(8)
    for x in (rng.standard_normal(30), rng.standard_normal((5, 7)), np.full(4, -1.0)):
        got, want = compiled_whole(positions, x)(x), positions(x)
        want = want[:2] + want[2]       # (the graph's outputs: np.nonzero's arrays flat)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
        np.testing.assert_equal(fusejit.jit(positions)(x), positions(x))


def diagonals(a):
    return (np.diag(a), np.diagonal(a, 2), np.diagonal(a, -3), np.diagonal(a, 30),
            np.diagonal(a, 1, 1, 0), np.diagonal(a, -2, axis1=-1, axis2=-2), np.trace(a),
            np.trace(a, 1))


def test_diagonals_and_traces_of_wide_and_tall_matrices():
    rng = np.random.default_rng(9)
    for a in (rng.standard_normal((4, 7)), rng.standard_normal((7, 4)),
              rng.integers(-9, 9, (5, 5))):
        got, want = compiled_whole(diagonals, a)(a), diagonals(a)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype


def diagonal_then_written(a):
    d = np.diagonal(a)
    a += 1.0
    return d * 1.0


def test_a_diagonal_of_a_graph_that_writes_stays_a_view():
    """The compiled diagonal is a copy: a graph that writes memory keeps the interpreter's
    view (NumPy's diagonal reads the matrix as it is when used)."""
    a = np.arange(9.0).reshape(3, 3)
    graph = scripted(diagonal_then_written, a)
    assert not is_element_graph(graph)
    f = fusejit.jit(diagonal_then_written)
    for _ in range(3):
        np.testing.assert_array_equal(f(a.copy()), diagonal_then_written(a.copy()))


def truth_along(a, b):
    return (np.any(a > 0.5, axis=0), np.all(a > -1.0, axis=1), a.any(axis=-1, keepdims=True),
            np.all(b, axis=0), np.any(b, 1), np.any(a, axis=0))


def test_any_and_all_along_an_axis_of_a_matrix():
    """NaN is true (not zero), an empty axis gives False for any and True for all."""
    rng = np.random.default_rng(10)
    a = rng.standard_normal((6, 5))
    a[2, 3] = np.nan
    b = rng.integers(-1, 2, (6, 5))
    compiled = compiled_whole(truth_along, a, b)
    for x, y in ((a, b), (a[:0], b[:0]), (a[:, :0], b[:, :0]), (np.zeros((3, 4)), b[:3, :4])):
        for g, w in zip(compiled(x, y), truth_along(x, y)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def paired_products(m):
    return sum(a @ b for a, b in zip(m[:4], m[4:8]))


def row_maxima(m):
    found = []
    for row in m:
        found.append(row.max() > 0)
    tops = []
    for row in m:
        tops.append(row.max())
    return np.stack(found), np.stack(tops)


def test_lists_of_numbers_appended_in_a_loop_and_stacked():
    """Scalars a loop appends (0-d arrays: ``a @ b`` of vectors, ``row.max()``) make a list of
    numbers in the compiled function, stacked into a vector; an empty one is NumPy's error."""
    rng = np.random.default_rng(11)
    m, ints = rng.standard_normal((9, 6)), rng.integers(-5, 5, (7, 3))
    np.testing.assert_allclose(compiled_whole(paired_products, m)(m), paired_products(m),
                               rtol=1e-14)
    for x in (m, ints):
        for g, w in zip(compiled_whole(row_maxima, x)(x), row_maxima(x)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    f = fusejit.jit(row_maxima)
    for _ in range(3):
        with pytest.raises(Exception, match="non-empty|at least one array"):
            f(m[:0])


def row_sums(m):
    return [row.sum() for row in m[:5]]


def row_facts(m):
    return [row.max() > 0 for row in m], [int(row.argmax()) for row in m], m.shape[0]


def test_a_returned_list_of_numbers_holds_numpy_scalars_on_every_tier():
    """``[row.sum() for row in A]`` compiled whole: Numba returns Python numbers, which the
    call makes NumPy scalars of the list's dtype, as NumPy's list (and the interpreter's)
    holds; empty when the loop ran zero times. (Quarters: every order of a row's sum gives
    the same bits, which the fused row kernel of the first call and NumPy need not.)"""
    rng = np.random.default_rng(12)
    m, ints = rng.integers(-40, 40, (7, 4)) / 4.0, rng.integers(-5, 5, (6, 3))
    compiled = compiled_whole(row_sums, m)
    for x in (m, m[:0]):
        got = compiled(x)
        assert [type(v) for v in got] == [type(v) for v in row_sums(x)]
        assert got == row_sums(x)
    for fn, x in ((row_sums, m), (row_sums, ints), (row_sums, m[:0]), (row_facts, m),
                  (row_facts, ints)):
        f = fusejit.jit(fn)
        want = fn(x)
        for _ in range(3):      # (interpreted, then compiled whole: the fast call's path)
            got = f(x)
            assert repr(got) == repr(want)


def orders(x):
    return np.argsort(x, kind="stable"), np.sort(x), np.sort(x)[-3:] * 2.0


def test_sorts_in_numpys_stable_order_with_nan_last():
    """``np.argsort(kind="stable")`` is Numba's mergesort, NumPy's order of ties and NaN last;
    ``np.sort`` (``x[argsort(x)]`` as scripted) sorts the values themselves. Ties of equal
    values, -0.0 and 0.0 among them, and NaNs, in floats, ints and bools."""
    rng = np.random.default_rng(13)
    compiled = None         # (one function for every float64 vector)
    for _ in range(20):
        x = rng.integers(-3, 3, rng.integers(3, 40)).astype(np.float64)
        x[rng.random(x.size) < 0.2] = np.nan
        x[rng.random(x.size) < 0.2] = -0.0
        compiled = compiled or compiled_whole(orders, x)
        got, want = compiled(x), orders(x)
        np.testing.assert_array_equal(got[0], want[0])
        for g, w in zip(got[1:], want[1:]):    # (the values; zeros' signs by position)
            np.testing.assert_array_equal(g, w)
    ints = rng.integers(-5, 5, 30)
    rng.random(25)      # (the bools' draw: bools sort in an exhaustive case, below)
    for x in (ints, rng.standard_normal(9)):
        _same_orders(x)


def _same_orders(x):
    for g, w in zip(compiled_whole(orders, x)(x), orders(x)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.exhaustive
def test_bools_sort_in_numpys_stable_order():
    """Bools: the ints' source of the test above, compiled with Numba's sorts of bools."""
    rng = np.random.default_rng(13)
    _same_orders(rng.random(25) < 0.5)


def quantiles(x):
    return (np.percentile(x, [5, 50, 95]), np.median(x),
            [np.quantile(x, 0.37, method=m) for m in ("lower", "higher", "nearest", "midpoint")])


def test_quantiles_of_one_sort_against_numpy():
    """np.percentile of a list makes one quantile per item, each of the sorted values: the
    compiled function sorts once (common subexpressions are merged before it is written)."""
    from fusejit.runtime.element_function import element_source

    rng = np.random.default_rng(14)
    x = rng.standard_normal(301)
    graph = scripted(quantiles, x)
    compiled = compile_element_graph(graph, refuse)
    for data in (x, x[:8], np.where(x > 1.5, np.nan, x)):
        got, want = compiled(data), quantiles(data)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1] or np.isnan(got[1]) and np.isnan(want[1])
        np.testing.assert_array_equal(got[2:], want[2])
    from fusejit.passes import eliminate_common_subexpression, eliminate_dead_code

    graph = graph.copy()
    eliminate_common_subexpression(graph)
    eliminate_dead_code(graph)
    assert element_source(graph).count("np.sort(") == 1


def int_powers(a):
    return a ** 0, a ** 1, a ** 2, a ** 3, a ** 4, a[1] ** 3, (a[:2] ** 2)[1]


@pytest.mark.parametrize("dtype", [np.int16, np.int64,
                                   pytest.param(np.uint8, marks=pytest.mark.exhaustive)])
def test_integer_powers_by_small_constants_wrap_as_numpys(dtype):
    """``a ** k`` of integers for k = 0..4 is written as products, which wrap as NumPy's power
    does (int16 cubes of hundreds, int64 fourth powers of millions); ``a ** 1`` is a new array."""
    rng = np.random.default_rng(15)
    a = rng.integers(-3_000_000, 3_000_000, 40).astype(dtype)
    compiled = compiled_whole(int_powers, a)
    got, want = compiled(a), int_powers(a)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    assert not np.shares_memory(got[1], a)


def distinct(a):
    values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                               return_counts=True)
    return (values, index, inverse, counts, np.unique(a), np.unique(a, return_counts=True),
            np.unique(a, return_inverse=True), np.unique(a, return_inverse=True,
                                                         return_counts=True))


def _unique_cases():
    rng = np.random.default_rng(16)
    floats = rng.integers(0, 6, 50).astype(np.float64)
    floats[[3, 9, 30]] = np.nan
    return {"ints": (rng.integers(0, 5, 200), np.zeros(0, np.int64)), "floats": (floats,),
            "matrix": (rng.integers(-2, 3, (5, 7)),), "bools": (rng.random(20) < 0.5,),
            "float32": (rng.integers(0, 9, 30).astype(np.float32),)}


@pytest.mark.parametrize("kind", ["ints",   # (a compile each: the rest exhaustive)
                                  *(pytest.param(k, marks=pytest.mark.exhaustive)
                                    for k in ("matrix", "floats", "bools", "float32"))])
def test_unique_values_positions_inverse_and_counts(kind):
    """NaNs are one value (NumPy's equal_nan), the first positions those of the stable order,
    the inverse in the array's shape; values and counts alone come from a sort of the values,
    and with the inverse but no positions from an unstable argsort (NumPy's quicksort)."""
    for a in _unique_cases()[kind]:
        got, want = compiled_whole(distinct, a)(a), distinct(a)
        want = want[:5] + sum(want[5:], ())   # (the whole graph's results: one flat tuple)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def placed(s, v, x):
    return (np.searchsorted(s, v), np.searchsorted(s, v, side="right"),
            np.searchsorted(s, 0.5), np.digitize(x, np.array([-1.0, 0.0, 1.0])))


def test_searchsorted_and_small_constant_arrays():
    """``np.searchsorted`` (Numba's: NaN last, as NumPy's, and -0.0 equal to 0.0) of both
    sides; a literal array (``np.array([-1.0, 0.0, 1.0])``) is written into the source as its
    numbers, a new array each call."""
    rng = np.random.default_rng(17)
    s = np.sort(rng.integers(-3, 3, 40).astype(np.float64))
    s[-3:] = np.nan
    v = rng.integers(-4, 4, 25).astype(np.float64)
    v[[2, 7]], v[5] = np.nan, -0.0
    x = rng.standard_normal(30) * 2
    compiled = compiled_whole(placed, s, v, x)
    for g, w in zip(compiled(s, v, x), placed(s, v, x)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)

    def literal(x):
        return x[:3] * np.array([1.5, -0.0, np.inf]), np.array([[1, 2], [3, 4]])

    first = compiled_whole(literal, x)(x)
    np.testing.assert_array_equal(first[0], literal(x)[0])
    np.testing.assert_array_equal(first[1], literal(x)[1])
    first[1][0, 0] = 9        # (its own array: the next call's is new)
    assert compiled_whole(literal, x)(x)[1][0, 0] == 1
