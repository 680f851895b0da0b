"""A lone reduction over axis 0 of a 2-d array runs compiled whole at any size
(``element_function.lone_column_reduction``): its values against NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.frontend.jit import call_key


@fusejit.jit
def col_sum(x):
    return x.sum(0)


@fusejit.jit
def col_mean(x):
    return x.mean(axis=-2, keepdims=True)


@fusejit.jit
def col_mean_flat(x):
    return x.mean(axis=0)


@fusejit.jit
def col_max(x):
    return x.max(axis=0)


@fusejit.jit
def col_min(x):
    return np.min(x, axis=0)


def _calls(fn, x):
    """The first call (interpreted), the second (compiles the whole graph), a third (the
    fast call's entry); each result, and whether the compiled form of ``x``'s signature has no
    size limit."""
    results = [fn(x) for _ in range(3)]
    run = fn._specialised[call_key((x,))]
    # (compiled, not refused by Numba: a refusal falls back to the interpreter for good)
    unlimited = getattr(run, "max_elements", 0) is None and not run.refused
    return results, unlimited


@pytest.mark.parametrize("fn,numpy_form,dtype", [
    (col_sum, lambda x: x.sum(0), np.float32),
    (col_mean, lambda x: x.mean(axis=-2, keepdims=True), np.float64),
    # (col_mean's float64 takes the float mean's path: an exhaustive case)
    pytest.param(col_mean_flat, lambda x: x.mean(axis=0), np.float32,
                 marks=pytest.mark.exhaustive),
    (col_mean_flat, lambda x: x.mean(axis=0), np.int32),
    (col_max, lambda x: x.max(axis=0), np.float32),
    (col_min, lambda x: np.min(x, axis=0), np.int64),
    pytest.param(col_max, lambda x: x.max(axis=0), np.bool_, marks=pytest.mark.exhaustive)])
def test_lone_column_reductions_match_numpy_past_the_whole_graph_size(fn, numpy_form, dtype):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((90, 70)) * 50).astype(dtype)    # 6300 elements: over 4096
    if np.dtype(dtype).kind not in "iu":
        x[3, 5] = x[80, 5] = x[89, 6] = x[0, 7] = np.nan        # NaN first, inside, last
        x[10, 8], x[11, 8] = -0.0, 0.0
    results, unlimited = _calls(fn, x)
    # (an integer mean casts first: not a lone reduction, the column kernel's, one read too)
    assert unlimited == (np.dtype(dtype).kind not in "iu" or fn is not col_mean_flat)
    want = numpy_form(x)
    for got in results:
        assert got.dtype == want.dtype and got.shape == want.shape
        # NumPy's values exactly: it sums columns row by row too, in the input's dtype
        assert np.array_equal(got, want, equal_nan=True)


# (col_min reads its rows as col_max does: an exhaustive case, compiling its float32 form)
@pytest.mark.parametrize("fn,numpy_form", [
    (col_sum, lambda x: x.sum(0)), (col_max, lambda x: x.max(axis=0)),
    pytest.param(col_min, lambda x: np.min(x, axis=0), marks=pytest.mark.exhaustive)])
def test_lone_column_reductions_of_any_row_count(fn, numpy_form):
    """The compiled form reads up to 4 rows a pass, then 3 a pass, then the 2 or 1 left: at
    every row count NumPy's values, its maxima and minima to the bit (a NaN in the first or
    the last row, -0.0 tied with 0.0)."""
    rng = np.random.default_rng(11)
    for rows in (1, 2, 3, 4, 5, 6, 7, 8, 9, 13):
        x = rng.standard_normal((rows, 300)).astype(np.float32)
        x[0, 3], x[rows - 1, 4] = np.nan, np.nan
        x[:, 5], x[rows // 2, 5] = -0.0, 0.0
        results, unlimited = _calls(fn, x)
        assert unlimited
        want = numpy_form(x)
        for got in results:
            assert got.dtype == want.dtype and got.shape == want.shape
            if fn is col_sum:
                np.testing.assert_allclose(got, want, rtol=1e-6)
            else:
                assert got.tobytes() == want.tobytes()


def test_lone_column_reduction_strided_and_empty():
    x = np.random.default_rng(8).random((70, 90)).astype(np.float32)
    col_max(x.T.copy())
    view = x[::2]                       # not C-contiguous
    assert np.array_equal(col_max(view), view.max(axis=0))
    # down the contiguous columns of x.T, 8 at a time: each summed in the rows' order, as
    # row by row (NumPy sums contiguous columns pairwise: close, not equal)
    col_sum(x.T)
    got = col_sum(x.T)
    assert np.array_equal(got, col_sum(x.T.copy()))
    np.testing.assert_allclose(got, x.T.sum(axis=0), rtol=1e-5)
    with pytest.raises(fusejit.FusejitError, match=r"(?s)amax.*zero-size array"):
        col_max(np.zeros((0, 5000), np.float32))


@pytest.mark.exhaustive
def test_lone_column_max_of_a_transposed_view():
    """The contiguous columns of x.T, 8 at a time, as the max reads them (col_sum's read them
    in test_lone_column_reduction_strided_and_empty)."""
    x = np.random.default_rng(8).random((70, 90)).astype(np.float32)
    col_max(x.T.copy())
    assert np.array_equal(col_max(x.T), x.T.max(axis=0))


@fusejit.jit
def row_max(x):
    return x.max(axis=1)


@fusejit.jit
def row_argmin(x):
    return np.argmin(x, axis=1)


@pytest.mark.parametrize("fn", [row_max, row_argmin])
def test_extremes_of_empty_axes_as_numpy(fn):
    """Only a zero-length reduced axis is NumPy's error: no rows is an empty result. Each
    shape after a first call of another (the compiled forms) and as a first call."""
    for shape in [(0, 3), (0, 0), (3, 0), (4, 3), (0, 3), (0, 0), (3, 0)]:
        x = np.zeros(shape)
        try:
            want = fn.__wrapped__(x)
        except ValueError:
            with pytest.raises(fusejit.FusejitError, match="empty|zero-size"):
                fn(x)
            continue
        got = fn(x)
        assert got.dtype == want.dtype and got.shape == want.shape
