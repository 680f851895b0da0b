"""Reduction kernels over other axes than the last alone: column kernels over the middle axis
of 3-d arrays and axis 0 of 3-d and 4-d ones (``columns.column_layout``), row kernels over the
last few axes (``x.mean(axis=(1, 2))``), against NumPy, from contiguous, strided and broadcast
inputs; the answer comes from the kernel (the group is never interpreted) where the layout
allows one."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import prim
from fusejit.runtime import executor
from fusejit.runtime.devices import CpuDevice
from fusejit.runtime.fusion.columns import column_layout


def middle(x):
    """Over axis 1, keeping it."""
    return (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)


# (``standardize`` and ``column_stats`` of test_row_kernels.py, and ``middle``, make the same
# kernel text as those 2-d ones do: the layouts below reuse their compiled kernels)
def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def column_stats(x):
    return x.mean(axis=0), x.var(axis=0, keepdims=True), x.min(axis=0), \
        x.max(axis=0, keepdims=True) - x.sum(axis=0)


def moments_over(x):
    """test_row_kernels.py's ``moments`` over the last two axes (the same kernel text)."""
    c = x - x.mean(axis=(1, 2), keepdims=True)
    return c / x.std(axis=(1, 2), keepdims=True), (c * c).sum(axis=(1, 2)), \
        np.amin(c, axis=(1, 2)), x.var(axis=(1, 2), keepdims=True) + c.max(axis=(1, 2),
                                                                         keepdims=True)


def moments_all(x):
    """The same over every axis: ``x.mean()``, ``x.std()`` (no axes given), and all listed."""
    c = x - x.mean()
    return c / x.std(), (c * c).sum(axis=(0, 1, 2)), np.amin(c, axis=(0, 1, 2)), \
        x.var(keepdims=True) + c.max(axis=(0, 1, 2), keepdims=True)


def over_axes(x):
    """Reductions over a set of axes that is not a suffix (``segments.py``)."""
    return x.sum(axis=(0, 2)), x.mean(axis=(2, 0), keepdims=True), x.max(axis=(0, 2)), \
        x.min(axis=(0, 2)), x.std(axis=(0, 2), ddof=1)


def over_first_two(x):
    """The same over axes 0 and 1 (one merged axis where the strides allow)."""
    return x.sum(axis=(0, 1)), x.mean(axis=(1, 0), keepdims=True), x.max(axis=(0, 1)), \
        x.min(axis=(0, 1)), x.std(axis=(0, 1), ddof=1)


COMPILED = {f: fusejit.compile(fusejit.script(f), fuse=True, reductions=True)
            for f in (middle, standardize, column_stats, moments_over, moments_all, over_axes,
                      over_first_two)}


@pytest.fixture
def kernels_only(monkeypatch):
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


def _check(fn, *args, kind=prim.ColumnReductionGroup):
    graph = COMPILED[fn].graph_for(*args)
    assert [n.kind for n in graph.nodes() if n.kind != prim.Constant] == [kind]
    got, want = COMPILED[fn](*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=3e-5, atol=3e-5)


# (strided: batches and columns at steps, which test_first_axis_of_more_dims_matches_numpy's
# batches and test_several_axes_match_numpy's layouts read too)
@pytest.mark.parametrize("layout", ["contiguous",
                                    pytest.param("strided", marks=pytest.mark.exhaustive)])
def test_middle_axis_matches_numpy(layout, kernels_only):
    x = np.random.default_rng(1).standard_normal((6, 33, 150)).astype(np.float32)
    if layout == "strided":
        x = x[::2, :, 3::2]                     # batches and columns at steps
    _check(middle, x)


# (4-d: the same column layout of batches as 3-d, another rank of the arrays; the layout of
# its axes is test_layout_coalesces_what_every_operand_allows's)
@pytest.mark.parametrize("shape", [(9, 20, 70),
                                   pytest.param((5, 3, 4, 70), marks=pytest.mark.exhaustive)])
def test_first_axis_of_more_dims_matches_numpy(shape, kernels_only):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32) * 3 + 1
    _check(standardize, x)                      # one batch: the columns coalesce
    _check(standardize, x[..., ::2, :])         # batches: they do not
    _check(column_stats, x[..., ::2, :])        # per-column outputs of every batch


def test_layout_coalesces_what_every_operand_allows():
    full = (5, 3, 4, 70)
    x = ((5, 3, 4, 70), (840, 280, 70, 1))
    g = ((70,), (1,))
    # x alone: the columns are the 3 x 4 x 70 after axis 0, one batch
    m, lanes, batch, bases, steps, _ = column_layout(full, 0, *zip(x), [True])
    assert (m, lanes, batch) == (5, 840, 1) and steps.tolist() == [[840, 1], [840, 1]]
    # with g: columns of 70, batches over 3 x 4, each at its offset in x and in the output
    m, lanes, batch, bases, steps, _ = column_layout(full, 0, *zip(x, g), [True])
    assert (m, lanes, batch) == (5, 70, 12)
    assert bases[0].tolist() == bases[2].tolist() == list(range(0, 840, 70))
    assert bases[1].tolist() == [0] * 12 and steps[1].tolist() == [0, 1]


def test_a_size_one_last_axis_is_interpreted():
    x = np.random.default_rng(3).standard_normal((4, 30, 1)).astype(np.float32)
    got, want = COMPILED[middle](x), middle(x)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=3e-5, atol=3e-5)


def test_rows_over_the_last_two_axes_match_numpy(kernels_only):
    x = np.random.default_rng(4).standard_normal((6, 20, 300)).astype(np.float32) * 4
    _check(moments_over, x, kind=prim.RowReductionGroup)
    _check(moments_over, x[::2], kind=prim.RowReductionGroup)          # rows at a step


def test_one_row_of_every_axis_matches_numpy(kernels_only):
    x = np.random.default_rng(6).standard_normal((6, 20, 300)).astype(np.float32) * 4 + 1
    _check(moments_all, x, kind=prim.RowReductionGroup)     # (0-d and [1, 1, 1] results)


@pytest.mark.parametrize("fn", [moments_over, moments_all])
def test_rows_over_axes_at_no_single_step_are_interpreted(fn):
    x = np.random.default_rng(5).standard_normal((6, 20, 30)).astype(np.float32)[:, ::2]
    for got, want in zip(COMPILED[fn](x), fn(x)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=3e-5, atol=3e-5)


def _exact_extrema(got, want):
    """The max and min (outputs 2 and 3) bit for bit: NaN where NumPy's, the sign of zeros."""
    for g, w in zip(got[2:4], want[2:4]):
        np.testing.assert_array_equal(g, w)
        assert np.array_equal(np.signbit(g), np.signbit(w))


def _cube(seed: int) -> np.ndarray:
    """Over 32 KiB: kernels read it through its strides (smaller arrays are copied)."""
    x = np.random.default_rng(seed).standard_normal((5, 6, 300)).astype(np.float32) * 3 + 1
    x[1, 2, 7] = np.nan                         # a NaN in one kept index
    x[:, 4, :] = -0.0                           # one kept index all -0.0
    return x


# (slice: runs at a step of 2, another layout of the segments' strided reads)
@pytest.mark.parametrize("layout", ["C", "F", "T", "reversed",
                                    pytest.param("slice", marks=pytest.mark.exhaustive)])
def test_several_axes_match_numpy(layout, kernels_only):
    x = _cube(7)
    x = {"C": x, "F": np.asfortranarray(x), "T": np.ascontiguousarray(x.T).T,
         "reversed": x[::-1, :, ::-1],
         "slice": np.repeat(x, 2, axis=2)[:, :, ::2]}[layout]  # (runs at a step of 2)
    _check(over_axes, x)
    _exact_extrema(COMPILED[over_axes](x), over_axes(x))


def test_several_axes_merge_where_the_strides_allow(kernels_only):
    x = _cube(8)
    def plan(fn, y):
        graph = COMPILED[fn].graph_for(y)
        group = next(n for n in graph.nodes() if n.kind == prim.ColumnReductionGroup)
        return CpuDevice().group_kernel(group, False)._prepare((y,))[3]

    y = np.asfortranarray(x)
    # axes (0, 2), C order: 6 rows of 5 segments (axis 0) of runs of 300 (axis 2)
    found = plan(over_axes, x)
    assert found.columns == "segments" and (found.rows, found.n_seg, found.n) == (6, 5, 300)
    # axes (0, 1), C order: they merge into one of 30, reduced down 300 contiguous columns
    # (the column kernel's traversal); Fortran order: one run of 30 along both
    found = plan(over_first_two, x)
    assert found.columns is True and (found.rows, found.n) == (30, 300)
    found = plan(over_first_two, y)
    assert found.columns == "segments" and (found.rows, found.n_seg, found.n) == (300, 1, 30)
    _check(over_first_two, y)
    _exact_extrema(COMPILED[over_first_two](y), over_first_two(y))


def integer_columns(a):
    """Sums, maxima, minima and any/all of integers and bools over axis 0."""
    return (np.count_nonzero(a, axis=0), (a > 5).sum(axis=0), a.sum(axis=0),
            a.max(axis=0), a.min(axis=0, keepdims=True) - 1, (a > 3).any(axis=0),
            (a > -100).all(axis=0))


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(300, 40), (20, 30, 40)])
def test_integer_and_bool_columns_run_in_column_kernels(dtype, shape, kernels_only):
    """The sums (in int64, exactly, as NumPy gives them), maxima and minima of integer and
    bool columns are column-kernel reductions: NumPy's values and dtypes on every call (the
    first one interpreted by design, the kernels after), counts past 2^24 included."""
    rng = np.random.default_rng(7)
    a = rng.integers(0 if dtype == np.uint8 else -100, 100, shape).astype(dtype)
    if dtype == np.int64:
        a[::2] *= 2**40                     # (sums a float64 accumulator would round)
    f = fusejit.jit(integer_columns)
    graph = f.graph_for(a)
    assert any(n.kind == prim.ColumnReductionGroup for n in graph.nodes())
    for _ in range(3):
        for g, w in zip(f(a), integer_columns(a)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
