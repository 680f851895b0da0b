"""Array forms a whole-graph function writes itself (``element_function``): ``np.transpose``
with an order of axes and ``np.moveaxis`` (``aten::permute``), rows and elements picked by
constant lists (``M[[0, 2]]``, ``M[[1, 2], [3, 4]]``), ``np.unravel_index`` (integer floor
division and remainder by a size known only when it runs, ``any`` of a number), ``np.linalg``
and ``np.polyfit`` through NumPy's LAPACK, ``np.interp`` by NumPy's walk. Each program
is compiled with a fallback that fails the test, so every value checked is the compiled
function's, against NumPy's; the errors are checked through ``fusejit.jit``, whose fallback
is the interpreter."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fusejit
from fusejit.runtime.element_function import compile_element_graph
from fusejit.runtime.element_support import is_element_graph
from tests.runtime.conftest import compiled_whole, same_arrays, scripted

RNG = np.random.default_rng(17)


def kept_where(keep, *axes):
    """``pytest.param`` of every combination of the axes' values, those for which ``keep`` is
    false marked ``exhaustive`` (a strided or transposed layout of a program's arguments is a
    compile of its own, of the same source as the contiguous one's)."""
    return [pytest.param(*combo, marks=[] if keep(*combo) else [pytest.mark.exhaustive])
            for combo in itertools.product(*axes)]


LAYOUTS = ["contiguous", pytest.param("strided", marks=pytest.mark.exhaustive)]


def orders(t):
    return np.transpose(t, (2, 0, 1)), np.moveaxis(t, 0, -1), t.transpose(1, 2, 0).sum(axis=0), \
        np.transpose(t[0])


# (the strided view's permutes are the same source compiled for another layout: exhaustive)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_axes_in_any_order_are_views_of_the_same_elements(layout):
    t = RNG.standard_normal((3, 4, 5))
    compiled = compiled_whole(orders, t)
    for args in [(t[:, ::2, ::-1],)] if layout == "strided" else [(t,), (np.zeros((2, 0, 3)),)]:
        same_arrays(compiled(*args), orders(*args))


def written_through_a_permutation(t):
    u = t.copy()
    v = np.transpose(u, (1, 0, 2))
    v[0] = -1.0                      # (writes u[:, 0], as NumPy's view does)
    return u


def test_a_write_through_a_permuted_view_reaches_the_array():
    t = RNG.standard_normal((2, 3, 4))
    same_arrays(compiled_whole(written_through_a_permutation, t)(t), written_through_a_permutation(t))


def triangles(m, b):
    return np.triu(m), np.tril(m, -1), np.triu(m, 2), np.tril(b, 1), np.triu(m.T, -1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_triangles_of_matrices_by_constant_diagonals(layout):
    m = RNG.standard_normal((5, 7))
    b = RNG.random((4, 3)) < 0.5
    compiled = compiled_whole(triangles, m, b)
    cases = [(m[:, ::-2], b[::2])] if layout == "strided" else [(m, b), (m[:0], b[:, :0])]
    for args in cases:
        same_arrays(compiled(*args), triangles(*args))


def picked(m):
    return m[[0, 2, 4]], m[:, [1, 3]], m[[1, 2], [3, 4]]


def from_the_end(m):
    return m[[-1, 0]], m[:, [-2]]


def test_rows_columns_and_elements_picked_by_constant_lists():
    m = RNG.standard_normal((6, 5))
    same_arrays(compiled_whole(picked, m)(m), picked(m))
    same_arrays(compiled_whole(from_the_end, m)(m), from_the_end(m))    # (Numba's indexing wraps them)
    f = fusejit.jit(picked)
    small = m[:4]       # (row 4 is past its end: NumPy's IndexError, from the interpreter)
    for _ in range(3):
        with pytest.raises(fusejit.errors.InterpreterError, match="out of bounds"):
            f(small)


def located(m):
    return np.unravel_index(m.argmax(), m.shape), np.unravel_index(int(m.argmin()), m.shape)


def test_unravel_index_divides_by_sizes_known_when_it_runs():
    for shape in [(4, 7), (1, 9), (9, 1), (3, 3)]:
        m = RNG.standard_normal(shape)
        same_arrays(compiled_whole(located, m)(m), sum(located(m), ()))   # (its outputs, flat)


def divided(i, k):
    return i[0] // k, i[0] % k, i[1] // k, i[1] % k


# (int32: a compile of its own, between int64's and int8's, which wraps: an exhaustive case)
@pytest.mark.parametrize("dtype", [np.int64, pytest.param(np.int32, marks=pytest.mark.exhaustive),
                                   np.int8])
def test_integer_division_by_a_number_known_when_it_runs(dtype):
    info = np.iinfo(dtype)
    i = np.array([info.min, 7], dtype=dtype)
    compiled = compiled_whole(divided, i, 3)
    for k in [3, -3, 1, -1, 2, info.max]:
        with np.errstate(over="ignore"):   # (min // -1 wraps in NumPy, with a warning)
            want = divided(i, k)
        same_arrays(compiled(i, k), want)
    f = fusejit.jit(divided)
    for _ in range(3):  # (by zero: the interpreter's error, on the compiled path too)
        with pytest.raises(fusejit.errors.InterpreterError, match="by zero"):
            f(i, 0)


def ranked(x):
    return np.argsort(x), x[np.argsort(x)[-3:]], np.argsort(x, kind="heapsort")[:2]


@pytest.mark.parametrize("dtype, layout", kept_where(
    lambda dtype, layout: dtype == np.float64 and layout == "contiguous",
    [np.float64, np.float32], ["contiguous", "strided"]))
def test_argsort_by_numpys_default_kind_where_the_order_is_unique(dtype, layout):
    """Distinct values (one NaN among them goes last) have one order, which the compiled
    function gives; equal values, -0.0 and 0.0, or several NaN have NumPy's algorithm's, and
    the call reruns on the fallback."""
    x = RNG.standard_normal(300).astype(dtype)
    reran = []

    def fallback(*args):
        reran.append(args)
        return ranked(*args)

    graph = scripted(ranked, x)
    assert is_element_graph(graph)
    compiled = compile_element_graph(graph, fallback)
    one_nan = x.copy()
    one_nan[7] = np.nan
    strided = layout == "strided"
    for case in (x[::-2],) if strided else (x, one_nan, x[:1], x[:0]):
        same_arrays(compiled(case), ranked(case))
    assert not reran
    if strided:     # (the ties below are copies of x: the contiguous case's)
        return
    tied, zeros, nans = x.copy(), x.copy(), x.copy()
    tied[[3, 9]] = 0.5
    zeros[[3, 9]] = [0.0, -0.0]
    nans[[3, 9]] = np.nan
    f = fusejit.jit(ranked)
    for case in (tied, zeros, nans):
        compiled(case)
        for _ in range(3):
            same_arrays(f(case), ranked(case))
    assert len(reran) == 3


def linear_algebra(a, b):
    s = a @ a.T + np.eye(a.shape[0])
    return np.linalg.solve(a, b), np.linalg.solve(a, b[:, 0]), np.linalg.inv(a), \
        np.linalg.det(a), np.linalg.cholesky(s), np.linalg.slogdet(a), np.linalg.eigvalsh(s), \
        np.linalg.eigvalsh(s, "U"), np.linalg.eigh(s)


@pytest.mark.parametrize("dtype, layout", kept_where(
    lambda dtype, layout: dtype == np.float64 and layout == "contiguous",
    [np.float64, np.float32], ["contiguous", "transposed"]))
def test_linear_algebra_has_numpys_bits(dtype, layout):
    """NumPy's own LAPACK routines on Fortran-ordered float64 copies, as NumPy calls them
    (``runtime/lapack.py``): the same values to the last bit, and float32 results as NumPy
    casts them."""
    compiled = None
    for n in (1, 3, 8, 20):
        a = RNG.standard_normal((n, n)).astype(dtype)
        b = RNG.standard_normal((n, 2)).astype(dtype)
        compiled = compiled or compiled_whole(linear_algebra, a, b)
        if layout == "transposed":      # (any layout)
            same_arrays(compiled(a.T, b[::-1])[:5], linear_algebra(a.T, b[::-1])[:5])
            continue
        want = linear_algebra(a, b)
        flat = want[:5] + tuple(want[5]) + want[6:8] + tuple(want[8])
        same_arrays(compiled(a, b), flat)


def test_singular_matrices_are_numpys_answers_and_errors():
    def det_and_solve(a, b):
        return np.linalg.det(a), np.linalg.slogdet(a)[1]

    a = np.ones((3, 3))
    same_arrays(compiled_whole(det_and_solve, a, a)(a, a), det_and_solve(a, a))   # (0.0 and -inf)

    def solved(a, b):
        return np.linalg.solve(a, b)

    f = fusejit.jit(solved)
    for _ in range(3):   # (the compiled call raises, and reruns on the interpreter: NumPy's)
        with pytest.raises(fusejit.errors.InterpreterError, match="[Ss]ingular"):
            f(a, np.ones(3))

    def factor(a):
        return np.linalg.cholesky(a) * 2

    g = fusejit.jit(factor)
    for _ in range(3):
        with pytest.raises(fusejit.errors.InterpreterError, match="positive-definite"):
            g(-np.eye(3))


def least_squares(a, b, y):
    x, residuals, rank, s = np.linalg.lstsq(a, y, rcond=None)
    return x, residuals, rank, s, np.linalg.lstsq(a, b)[0], np.linalg.lstsq(a, y, rcond=0.1)[0]


def fitted(t, y, ys):
    return np.polyfit(t, y, 3), np.polyfit(t, ys, 1), np.polyfit(t, y, 0)


@pytest.mark.parametrize("shape, layout", kept_where(
    lambda shape, layout: layout == "contiguous",
    [(30, 4), (4, 4), (3, 7), (200, 1)], ["contiguous", "strided", "fortran"]),
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else None)
def test_least_squares_and_polynomial_fits_have_numpys_bits(shape, layout):
    """``np.linalg.lstsq`` through NumPy's own ``dgelsd`` (its workspace, its residuals only
    where NumPy keeps them: more rows than columns, full rank) and ``np.polyfit`` in NumPy's
    steps (the Vandermonde matrix, its scaled columns, the cut-off from ``x``'s dtype): the
    same values to the last bit, and NumPy's dtypes (the rank an int32)."""
    m, n = shape
    a, b, y = RNG.standard_normal((m, n)), RNG.standard_normal((m, 3)), RNG.standard_normal(m)
    compiled = compiled_whole(least_squares, a, b, y)
    args = {"contiguous": (a, b, y), "strided": (a[::-1], b[:, ::2], y),
            "fortran": (np.asfortranarray(a), b, y * 1e6)}[layout]
    same_arrays(compiled(*args), least_squares(*args))
    if layout != "contiguous":      # (the fits take no layout: the contiguous case's)
        return
    t = np.sort(RNG.uniform(-2.0, 3.0, m))
    y = t ** 3 - 2.0 * t + RNG.standard_normal(m)
    ys = np.stack([y, 3.0 * y + 1.0], axis=1)
    if m > 4:
        same_arrays(compiled_whole(fitted, t, y, ys)(t, y, ys), fitted(t, y, ys))


# (each x dtype is a whole-graph compile of its own, ~7 s cold: float64's runs in the default
# suite, above, these with FUSEJIT_FULL_SUITE=1)
@pytest.mark.exhaustive
@pytest.mark.parametrize("kind", ["float32", "int64"])
def test_polynomial_fits_of_float32_and_integer_x_have_numpys_bits(kind):
    """``np.polyfit`` of float32 ``x`` (the cut-off from its dtype) and of integers (float64
    as NumPy's x + 0.0): NumPy's values to the last bit."""
    m = 30
    t = np.sort(RNG.uniform(-2.0, 3.0, m))
    y = t ** 3 - 2.0 * t + RNG.standard_normal(m)
    ys = np.stack([y, 3.0 * y + 1.0], axis=1)
    args = (t.astype(np.float32), y.astype(np.float32), ys) if kind == "float32" else \
        (np.arange(m), y, ys)
    same_arrays(compiled_whole(fitted, *args)(*args), fitted(*args))


def test_deficient_fits_warn_and_bad_values_raise_as_numpy():
    """Where NumPy warns (a fit of lower rank than its degree) or raises (NaN: the SVD does
    not converge), the compiled call reruns on NumPy's own: the same warning, the same
    error."""
    def fit(t, y):
        return np.polyfit(t, y, 3)

    def solved(a, y):
        return np.linalg.lstsq(a, y)[0]

    f, g = fusejit.jit(fit), fusejit.jit(solved)
    t, y = np.array([1.0, 1.0, 1.0, 2.0, 2.0]), np.arange(5.0)
    a = np.ones((4, 2))
    a[0, 0] = np.nan
    for _ in range(3):
        with pytest.warns(np.exceptions.RankWarning):
            got = f(t, y)
        with pytest.warns(np.exceptions.RankWarning):
            same_arrays(got, np.polyfit(t, y, 3))
        with pytest.raises(fusejit.errors.InterpreterError, match="did not converge"):
            g(a, np.ones(4))


def interpolated(x, xp, fp):
    return np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1.0, right=2.5), \
        np.interp(0.25, xp, fp)


def _interp_cases():
    """(x, xp, fp) with NaN and infinite points, points on the samples, repeated and unsorted
    samples, NaN among them, infinite values, 1 to 100 samples and more or fewer points than
    samples (NumPy computes the slopes first where there are fewer)."""
    for n in (1, 2, 3, 4, 5, 9, 100):
        xp = np.sort(RNG.uniform(-1.0, 1.0, n))
        fp = RNG.standard_normal(n)
        for m in (0, 3, 40, 300):
            x = RNG.uniform(-1.5, 1.5, m)
            x[::5] = xp[RNG.integers(0, n, x[::5].size)]
            x[1:4] = [np.nan, np.inf, -np.inf][:len(x[1:4])]
            nan_xp, inf_fp = xp.copy(), fp.copy()
            nan_xp[n // 2] = np.nan
            inf_fp[0] = np.inf
            yield from [(x, xp, fp), (np.sort(x), xp, fp), (x, np.repeat(xp, 2), np.repeat(fp, 2)),
                        (x, RNG.uniform(-1.0, 1.0, n), fp), (x, nan_xp, fp), (x, xp, inf_fp)]


def test_interp_is_numpys_walk():
    """``np.interp`` as NumPy's ``arr_interp`` computes it (``runtime/interpolate.py``): each
    search from the last interval, the other end's form where one gives NaN, NumPy's branches
    with NaN among the samples, so the same values to the last bit for any samples."""
    x, xp, fp = next(_interp_cases())
    compiled = compiled_whole(interpolated, x, xp, fp)
    for args in _interp_cases():
        same_arrays(compiled(*args), interpolated(*args))
    grid = RNG.uniform(0.0, 1.0, (6, 7))        # (any shape of points; integer samples)
    same_arrays(compiled_whole(interpolated, grid, xp, fp)(grid, xp, fp), interpolated(grid, xp, fp))
    k, values = np.arange(12), RNG.standard_normal(4)
    same_arrays(compiled_whole(interpolated, k, k[::3], values)(k, k[::3], values),
          interpolated(k, k[::3], values))


def test_interp_on_big_arrays_is_threaded_with_numpys_values():
    """The interpreter's ``fusejit::interp`` splits the points of a big call among threads where
    the samples increase (each chunk's search its own), and runs NumPy's single walk where
    they do not: NumPy's values either way."""
    from fusejit.oplib.table import ENTRIES
    from fusejit.runtime.interpolate import interp_threaded, threaded_body

    (overload,) = ENTRIES["fusejit::interp"].overloads
    assert overload.numpy_body is threaded_body     # (the runtime's, over the library's)
    _interp = threaded_body

    xp = np.sort(RNG.uniform(0.0, 100.0, 5000))
    xp[10:14] = xp[10]                          # (repeated samples)
    fp = RNG.standard_normal(5000)
    x = RNG.uniform(-5.0, 105.0, 50_000)
    x[::97] = np.nan
    for samples in (xp, RNG.permutation(xp)):
        want = np.interp(x, samples, fp)
        for chunks in (1, 2, 7):
            same_arrays(interp_threaded(x, samples, fp, 0.0, 0.0, False, False, chunks), want)
        same_arrays(_interp(x, samples, fp), want)
        same_arrays(_interp(np.sort(x)[::-1], samples, fp, np.array(-3.0), None),
              np.interp(np.sort(x)[::-1], samples, fp, -3.0))


def test_interp_errors_are_numpys():
    def f(x, xp, fp):
        return np.interp(x, xp, fp)

    g = fusejit.jit(f)
    for _ in range(3):
        with pytest.raises(fusejit.errors.InterpreterError, match="same length"):
            g(np.ones(3), np.arange(4.0), np.ones(3))
        with pytest.raises(fusejit.errors.InterpreterError, match="empty"):
            g(np.ones(3), np.ones(0), np.ones(0))


def padded_and_negated(m, v, b):
    return np.pad(m, 1), np.pad(v, (2, 3), constant_values=-1.5), \
        np.pad(m, ((0, 0), (1, 2)), constant_values=7), np.pad(b, 1), ~b, np.logical_not(v), \
        ~m.astype(np.int32), np.pad(v[:0], 2)


def neighbour_counts(mask):
    p = np.pad(mask.astype(np.int64), 1)
    h, w = mask.shape
    total = np.zeros((h, w), dtype=np.int64)
    for dy in range(3):
        for dx in range(3):
            if dy == 1 and dx == 1:
                continue
            total += p[dy:dy + h, dx:dx + w]     # (into an array the loops carry)
    counts = total.astype(np.int32)
    counts[mask] = -1
    return counts


def test_pads_negations_and_writes_through_nested_loops():
    """``np.pad`` by constant widths (``np.full``, then the array inside), ``~`` and
    ``np.logical_not``, and in-place updates of an array carried by nested loops (memory the
    graph made, through each loop's result): compiled whole, NumPy's values and dtypes."""
    m, v = RNG.integers(-5, 5, (4, 5)), RNG.standard_normal(6)
    b = RNG.random((3, 3)) > 0.5
    same_arrays(compiled_whole(padded_and_negated, m, v, b)(m, v, b), padded_and_negated(m, v, b))
    mines = RNG.random((6, 7)) > 0.7
    same_arrays(compiled_whole(neighbour_counts, mines)(mines), neighbour_counts(mines))


def stacked_products(img, w, x, m):
    return img @ w, img @ m[:3], x @ m


def stacked_products32(img, w):
    # (of contiguous stacks: NumPy's astype keeps a transposed stack's layout, Numba's makes
    # it C-ordered, and BLAS may round a product of either layout its own way)
    return img.astype(np.float32) @ w.astype(np.float32)


@pytest.mark.parametrize("h, w", [(1, 1), (8, 9), (17, 4)])
def test_stacks_of_matrices_times_a_vector_or_matrix_have_numpys_bits(h, w):
    """``img @ weights`` and ``x @ W`` of a 3-D array: NumPy's matmul loops over the stack,
    one BLAS product per matrix, and so does the compiled product (``blas.stacked_mv``,
    ``stacked_mm``): the same bits, for strided and transposed stacks too."""
    img, weights = RNG.uniform(0.0, 1.0, (h, w, 3)), np.array([0.299, 0.587, 0.114])
    x, m = RNG.standard_normal((h, w, 5)), RNG.standard_normal((5, 7))
    compiled = compiled_whole(stacked_products, img, weights, x, m)
    for args in [(img, weights, x, m), (img[:, ::2], weights, x[::-1], m[:, :4]),
                 (np.transpose(img, (1, 0, 2)), weights, np.transpose(x, (1, 0, 2)), m.T.T)]:
        same_arrays(compiled(*args), stacked_products(*args))
    same_arrays(compiled_whole(stacked_products32, img, weights)(img, weights),
          stacked_products32(img, weights))


def group_spread(keys, vals, w):
    n = keys.max() + 1
    sw = np.bincount(keys, weights=w, minlength=n)
    m = np.bincount(keys, weights=w * vals, minlength=n) / sw
    var = np.bincount(keys, weights=w * (vals - m[keys]) ** 2, minlength=n) / sw
    return np.sqrt(var), np.bincount(keys, minlength=keys.size // 3)


def test_bincounts_as_long_as_a_length_computed_when_it_runs():
    """``np.bincount`` with weights and a ``minlength`` computed from the data: compiled whole,
    NumPy's sums (one by one, in order) and lengths; a negative one is NumPy's error."""
    for n in (5, 300):
        args = (RNG.integers(0, 4, n), RNG.standard_normal(n), RNG.uniform(0.5, 1.0, n))
        with np.errstate(invalid="ignore"):
            got, want = compiled_whole(group_spread, *args)(*args), group_spread(*args)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True)

    def shorter(keys, k):
        return np.bincount(keys, minlength=k - 10)

    f = fusejit.jit(shorter)
    for _ in range(3):
        with pytest.raises(fusejit.errors.InterpreterError, match="minlength"):
            f(np.array([1, 2]), 3)


def tridiagonal(d, off):
    a = np.diag(d) + np.diag(off, 1) + np.diag(off, -1)
    return a, np.diag(d[:2], 3), np.diag(off.astype(np.float32), -2), np.linalg.solve(a, d)


def test_diagonal_matrices_of_vectors():
    """``np.diag(v, k)`` of a vector by a constant ``k`` (Numba's np.diag, a square of
    ``len(v) + |k|``): compiled whole, NumPy's matrices (and a solve of the tridiagonal
    one)."""
    for n in (1, 4, 9):
        d, off = RNG.standard_normal(n) + 4.0, RNG.standard_normal(n - 1)
        same_arrays(compiled_whole(tridiagonal, d, off)(d, off), tridiagonal(d, off))


def ufuncs_at(keys, vals, m):
    a = np.full(6, -np.inf)
    np.maximum.at(a, keys, vals)
    b = np.ones(6)
    np.multiply.at(b, keys, vals)
    c = np.zeros(6)
    np.subtract.at(c, keys, vals)
    d = np.full(6, np.nan)
    np.fmax.at(d, keys, vals)
    e = m.copy()
    np.minimum.at(e, keys % 3, vals[:, None])      # (rows, each repeat in turn)
    return a, b, c, d, e


def test_ufunc_at_updates_each_repeat_in_turn():
    """``np.maximum.at`` and the other ``ufunc.at`` fusejit runs (``fusejit::ufunc_at_``):
    compiled whole as ``index_put_``'s walk with the ufunc's update, NumPy's values (NaN
    propagated by maximum, ignored by fmax); into an argument, the argument written."""
    keys, vals, m = RNG.integers(0, 6, 40), RNG.standard_normal(40), RNG.standard_normal((3, 4))
    vals[3] = np.nan
    with np.errstate(invalid="ignore"):
        got, want = compiled_whole(ufuncs_at, keys, vals, m)(keys, vals, m), ufuncs_at(keys, vals, m)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True)

    def into(out, keys, vals):
        np.maximum.at(out, keys, vals)
        return out.sum()

    mine, theirs = np.zeros(6), np.zeros(6)
    compiled_whole(into, mine, keys, vals[4:])(mine, keys[4:], vals[4:])
    into(theirs, keys[4:], vals[4:])
    np.testing.assert_array_equal(mine, theirs)


def masked(x, m):
    return x[x > 0], x[x > 0].mean(), m[m < 0.5], m[np.isfinite(m)].sum(), x[x > 99]


def test_boolean_masks_of_the_arrays_shape_pick_in_c_order():
    x = RNG.standard_normal(40)
    m = RNG.random((5, 6))
    m[1, 2] = np.inf
    compiled = compiled_whole(masked, x, m)
    for args in [(x, m), (x[::-3], m.T), (np.abs(x), m[:0])]:
        with np.errstate(invalid="ignore"):  # (the mean of nothing picked is NaN, as NumPy's)
            got, want = compiled(*args), masked(*args)
        picked = [0, 2, 4]
        same_arrays(tuple(got[k] for k in picked), tuple(want[k] for k in picked))
        # (a reduction of a masked pick is scripted as one of np.where(mask, x, 0): the same
        # pairwise sum over more terms, which may round otherwise in the last bit)
        for k in (1, 3):
            np.testing.assert_allclose(got[k], want[k], rtol=1e-14)

    def other_shape(x, keep):
        return x[keep]

    f = fusejit.jit(other_shape)
    for _ in range(3):     # (a mask of another length: the graph checks it, NumPy's message)
        with pytest.raises(fusejit.errors.JITException, match="boolean index did not match"):
            f(x, x[:10] > 0)


def masked_writes(x, v, hit, k):
    out = np.full(x.shape, np.nan)
    out[hit] = x[hit] * k              # (x[mask] = values: the picked elements, in C order)
    x[hit] += v[hit] / k               # (the selection updated and put back)
    v[v > 0] = v[v < 0][:1].sum() + v[v > 0]      # (one mask twice: a list CSE joins)
    return out, x, v, 10.0 ** (x.sum() / 400.0)   # (a number to a 0-d power)


def test_boolean_mask_writes_put_values_in_c_order():
    x, v = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    hit = RNG.random((4, 5)) > 0.5
    compiled = compiled_whole(masked_writes, x, v, hit, 3.0)
    for args in [(x, v, hit), (x.T, v.T, hit.T), (x[:0], v[:0], hit[:0])]:
        mine = tuple(a.copy() for a in args)
        theirs = tuple(a.copy() for a in args)
        same_arrays(compiled(*mine, 3.0), masked_writes(*theirs, 3.0))
        same_arrays(mine, theirs)

    def too_many(x, hit, values):
        x[hit] = values
        return x

    f = fusejit.jit(too_many)
    for _ in range(3):     # (a count of values that is not the mask's: NumPy's own error)
        with pytest.raises(fusejit.errors.FusejitError, match="cannot assign"):
            f(x.copy(), hit, np.ones(int(hit.sum()) + 1))


def peak_tracking(level, peak, when, grid, n):
    for t in range(n):
        level = level * 1.01 - 0.5
        higher = level > peak
        peak[higher] = level[higher]          # (x[...] = where(m, v, x): one masked pass)
        when[higher] = t + 1                  # (a number)
    grid[grid < 0] = 0.0                      # (a 2-d mask)
    shifted = grid[:, 1:]
    shifted[shifted > 0.5] = grid[:, :-1][shifted > 0.5]   # (values overlapping the target)
    return peak, when, grid


# (strided and transposed arguments are the same source compiled for other layouts: exhaustive)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_masked_stores_write_only_where_the_mask_holds(layout):
    level, grid = RNG.uniform(0, 10, 50), RNG.standard_normal((6, 7))
    from fusejit.runtime.element_function import element_source

    args = (level, np.zeros(50), np.zeros(50, np.int64), grid, 4)
    source = element_source(scripted(peak_tracking, *args), [])
    assert source.count("_masked_copy(") == 2 and source.count("_masked_fill(") == 2
    compiled = compiled_whole(peak_tracking, *args)
    strided = (level[::-2], np.zeros(50)[::2], np.zeros(25, np.int64), grid.T, 3)
    for case in [strided] if layout == "strided" else [args]:
        mine = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in case)
        theirs = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in case)
        same_arrays(compiled(*mine), peak_tracking(*theirs))
        same_arrays(mine[1:4], theirs[1:4])


def integer_quotients(a, b):
    q, r = a // b, a % b
    return q, r, (a * 3) // 7, (a - 5) % 7, np.floor_divide(b * 5, np.abs(a) + 1)


def gcd_steps(a, b):
    x = a.copy()
    y = b.copy()
    while (y != 0).any():
        nz = y != 0
        x[nz], y[nz] = y[nz], x[nz] % y[nz]
    return x, a // x * b


# (int32: a compile of its own, between int64's and int8's, which wraps)
@pytest.mark.parametrize("dtypes", [(np.int64, np.int8),
                                    pytest.param((np.int32,), marks=pytest.mark.exhaustive)],
                         ids=["int64-int8", "int32"])
def test_integer_division_of_arrays_by_run_time_divisors_is_compiled_whole(dtypes):
    """Integer // and % of arrays by arrays of divisors known only when they run: NumPy's
    floors and signs, compiled whole (an int8 product wrapped before it is divided); a 0 or
    -1 among the divisors runs the call on the interpreter (its ZeroDivisionError; NumPy's
    negation and 0)."""
    rng = np.random.default_rng(31)
    a = rng.integers(-50, 50, 200)
    b = rng.choice([-7, -3, -2, 2, 3, 5, 9], 200)
    for dtype in dtypes:
        args = (a.astype(dtype), b.astype(dtype))
        for got, want in zip(compiled_whole(integer_quotients, *args)(*args),
                             integer_quotients(*args), strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)
    u, v = rng.integers(1, 10_000, (2, 300))
    for got, want in zip(compiled_whole(gcd_steps, u, v)(u, v), gcd_steps(u, v), strict=True):
        assert np.array_equal(got, want)
    jitted = fusejit.jit(integer_quotients)
    minus = b.copy()
    minus[::7] = -1
    for got, want in zip(jitted(a, minus), integer_quotients(a, minus), strict=True):
        assert np.array_equal(got, want)
    with pytest.raises(fusejit.FusejitError, match="ZeroDivisionError"):
        jitted(a, np.where(b == 5, 0, b))


def wider_updates(x0, f):
    x = x0.copy()
    x += f * 0.01                   # (a float64 array into float32)
    t = x[0]
    t += f[1]                       # (a float32 element, a float64 one)
    return x, t


def test_in_place_updates_compute_in_the_ops_dtype_then_cast():
    """``x += v`` of a float32 ``x`` by float64 values adds in float64 and rounds the sum
    into float32, as NumPy's loop does (the whole-graph form had rounded ``v`` first: a
    different float32 for about one element in ten)."""
    rng = np.random.default_rng(32)
    args = (rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000))
    for got, want in zip(compiled_whole(wider_updates, *args)(*args), wider_updates(*args),
                         strict=True):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want)


def array_updates(x0, row, col, k):
    x = x0.copy()
    x += row                        # (broadcast along rows)
    x -= col                        # (along columns)
    x *= x0[::-1]                   # (a reversed view of another array)
    x /= x0 + 2.0                   # (a new array)
    y = x0.copy()
    y[1:] += y[:-1]                 # (overlapping: NumPy reads y[:-1] before writing)
    y[:, ::-1] -= y                 # (the same elements, backwards)
    z = x0[:, 0].copy()
    z += z[::-1]
    n = (x0 * 10).astype(np.int64)
    n -= k[:, None]                 # (integers of the target's dtype)
    return x, y, z, n


def test_in_place_updates_of_arrays_are_numpys_with_broadcasts_and_overlaps():
    """``x += v`` of an array ``v`` of ``x``'s dtype runs Numba's in-place operator where
    ``v`` broadcasts to ``x`` and is apart from it; an overlapping ``v`` is read before ``x``
    is written, as NumPy buffers it."""
    rng = np.random.default_rng(33)
    for m, n in ((6, 5), (1, 1), (0, 3), (40, 17)):
        args = (rng.uniform(1, 2, (m, n)), rng.standard_normal(n), rng.standard_normal((m, 1)),
                rng.integers(-5, 5, m))
        fn = compiled_whole(array_updates, *args)
        for got, want in zip(fn(*args), array_updates(*args), strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def grows_the_target(x, v):
    y = x.copy()
    y += v
    return y


def test_an_update_that_would_grow_its_target_raises():
    x, v = np.ones((1, 4)), np.ones((6, 4))
    with pytest.raises(ValueError, match="non-broadcastable output"):
        grows_the_target(x, v)
    with pytest.raises(fusejit.FusejitError, match=r"output with shape \[1, 4\] doesn't match"):
        fusejit.jit(grows_the_target)(x, v)
    fn = compiled_whole(grows_the_target, x, x)
    with pytest.raises(AssertionError, match="fell back"):    # (the compiled form declines)
        fn(x, v)


def selects(x, i8, u64, flags, col):
    s = np.sign(x)                                   # (three nested selects)
    return (s, np.where(x > 0, x, -0.0), np.where(flags, i8, 2.5),
            np.where(col > 0, x, i8),                # (three shapes broadcast together)
            np.where(flags, u64, np.uint64(7)), np.where(x < 0, flags, True),
            np.where(i8 > 0, i8, np.int8(-3)), np.where(flags[0], x, 1.0))


def test_selects_are_numpys_for_every_dtype_and_broadcast():
    """``np.where`` of arrays is a ufunc in the whole-graph form (``element_helpers._PICK``),
    fused with the expression around it: its values, dtypes and shapes are NumPy's, NaN and
    -0.0 included."""
    rng = np.random.default_rng(34)
    for m, n in ((5, 7), (1, 1), (40, 3)):
        x = rng.standard_normal((m, n))
        x.flat[::4] = 0.0
        x.flat[1::9] = -0.0
        x.flat[2::11] = np.nan
        args = (x, rng.integers(-100, 100, (m, n), dtype=np.int8),
                rng.integers(0, 2**64, (m, n), dtype=np.uint64), rng.random((m, n)) < 0.5,
                rng.standard_normal((m, 1)))
        fn = compiled_whole(selects, *args)
        for got, want in zip(fn(*args), selects(*args), strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            if want.dtype.kind == "f":
                assert np.array_equal(np.signbit(got), np.signbit(want))


def windowed_frames(frames, n):
    window = 0.5 - 0.5 * np.cos(np.arange(n) * (2.0 * np.pi / (n - 1)))
    weighted = frames * window
    power = np.mean(weighted * weighted, axis=1)
    spread = np.mean(np.abs(frames - frames.mean()) + 1.0, axis=1)
    return power, spread


def test_broadcast_operands_and_twice_named_expressions_are_computed_once():
    """A 1-d window broadcast against a 2-d array is its own array (inlined into the product,
    Numba's loop computed its cosines again for every row); a mean along an axis of an
    expression names it once (its sum and its count each computed the expression). The window's
    cosines are fusejit's (``_map_cos_float64``), within an ulp of NumPy's: the power is compared
    to 1e-15 (exact for 4 in 5 seeds; this test's draw from the shared RNG had depended on the
    tests before it), the spread exactly."""
    from fusejit.runtime.element_function import element_source

    frames = np.random.default_rng(17).standard_normal((7, 16))
    lines = element_source(scripted(windowed_frames, frames, 16), []).splitlines()
    # (v0: the frames; the cosines on a line of their own, not in the product's loop)
    assert not any("np.cos" in line and "v0" in line for line in lines), lines
    # (one statement computes it: over the elements in a row where it may, else as an array
    # expression, ``_flattened``)
    absolutes = [line for line in lines if "np.abs" in line]
    assert all(line.count("np.abs") == 1 for line in absolutes), lines
    assert len({line.split("=")[0].strip() for line in absolutes}) == 1, lines
    compiled = compiled_whole(windowed_frames, frames, 16)
    for _ in range(2):
        (power, spread), (want_power, want_spread) = compiled(frames, 16), \
            windowed_frames(frames, 16)
        assert power.dtype == want_power.dtype and power.shape == want_power.shape
        np.testing.assert_allclose(power, want_power, rtol=1e-15, atol=0)
        same_arrays(spread, want_spread)


def extremes_and_moments(x):
    return (np.max(x), np.min(x), np.abs(x).max(), x.var(axis=1, ddof=1), x.std(axis=0),
            np.std(x, axis=1, ddof=1))


@pytest.mark.parametrize("dtype, layout", kept_where(
    lambda dtype, layout: dtype in (np.float32, np.uint8) and layout == "contiguous",
    [np.float32, np.uint8, np.float64, np.int32], ["contiguous", "strided"]))
def test_whole_array_extrema_and_axis_moments_are_numpys(dtype, layout):
    """np.max/np.min of a whole array (a vectorised reduction: NaN wins, as NumPy's) and
    var/std along an axis, with ddof (float64 sums, two passes), against NumPy: extrema
    exactly, moments within float64 rounding of NumPy's float64 moments."""
    rng = np.random.default_rng(45)
    floats = np.dtype(dtype).kind == "f"
    x = (rng.standard_normal((37, 23)) * 50).astype(dtype) if floats \
        else rng.integers(0, 200, (37, 23)).astype(dtype)
    compiled = compiled_whole(extremes_and_moments, x)
    cases = [x[::2, ::-1]] if layout == "strided" else [x, x.T.copy()]
    if floats and layout == "contiguous":
        with_nan = x.copy()
        with_nan[3, 4] = np.nan
        cases.append(with_nan)
    for case in cases:
        got, same = compiled(case), extremes_and_moments(case)
        want = extremes_and_moments(case.astype(np.float64)) if floats else same
        for g, w, s in zip(got[:3], want[:3], same[:3]):
            assert np.asarray(g).dtype == np.asarray(s).dtype
            np.testing.assert_array_equal(np.float64(g), np.float64(w))
        for g, w in zip(got[3:], want[3:]):
            np.testing.assert_allclose(g, w, rtol=1e-6 if dtype == np.float32 else 1e-12)


def row_fractions(x, codes):
    crossings = np.signbit(x[:, 1:]) != np.signbit(x[:, :-1])
    return np.mean(crossings, axis=1), np.mean(codes, axis=1), np.mean(x > 0.5, axis=-1,
                                                                      keepdims=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_row_means_of_masks_count_without_a_float_copy(layout):
    """np.mean(mask, axis=1) (and of int8 codes) sums each row as integers, which float64
    holds exactly: NumPy's values bit for bit, with no float64 copy of the mask."""
    from fusejit.runtime.element_function import element_source

    rng = np.random.default_rng(46)
    x = rng.standard_normal((30, 41))
    codes = rng.integers(-100, 100, (30, 41)).astype(np.int8)
    source = element_source(scripted(row_fractions, x, codes), [])
    assert source.count("_count_rows(") == 3 and "astype(np.float64))" not in source, source
    compiled = compiled_whole(row_fractions, x, codes)
    cases = [(x[::2, ::-1], codes[1::2])] if layout == "strided" else \
        [(x, codes), (x[:0], codes[:0])]
    for case in cases:
        got, want = compiled(*case), row_fractions(*case)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def short_rows(p, v, w, dt):
    moved = p + v * dt                          # one shape: over the elements in a row
    speed = np.sqrt((v * v).sum(axis=1))        # (a product a reduction reads)
    scaled = np.where(moved > 0.5, moved * w, -moved)     # w: (n, 1) or (1, 3), broadcast
    return moved, speed, scaled, (p.astype(np.float32) * 2).astype(np.int16)


# (strided and transposed views both take the array expression: the transposed compile is
# exhaustive)
@pytest.mark.parametrize("layout", ["contiguous", "strided",
                                    pytest.param("transposed", marks=pytest.mark.exhaustive),
                                    "broadcast"])
def test_element_wise_expressions_over_short_rows_are_numpys(layout):
    """Over arrays of 2 or more dimensions an element-wise statement is also written over
    the elements in a row, taken where its arrays are C-contiguous and of one shape (Numba's
    loop nest over a last axis of 3 ran 4-8x NumPy's time). Its values are NumPy's on every
    layout: contiguous, strided and transposed views (the array expression), and operands of
    one rank that broadcast (``w``: a column, a row)."""
    from fusejit.runtime.element_function import element_source

    rng = np.random.default_rng(48)
    p, v = rng.standard_normal((2, 40, 3))
    w = rng.standard_normal((40, 1))
    if layout == "strided":
        p, v = rng.standard_normal((2, 80, 3))[:, ::2]
    elif layout == "transposed":
        p, v = (np.ascontiguousarray(a.T).T for a in (p, v))
    elif layout == "broadcast":
        w = rng.standard_normal((1, 3))
    source = element_source(scripted(short_rows, p, v, w, 0.1), [])
    assert "np.ascontiguousarray(" in source and ".flags.c_contiguous" in source, source
    compiled = compiled_whole(short_rows, p, v, w, 0.1)
    for _ in range(2):
        for got, want in zip(compiled(p, v, w, 0.1), short_rows(p, v, w, 0.1), strict=True):
            same_arrays(got, want)
