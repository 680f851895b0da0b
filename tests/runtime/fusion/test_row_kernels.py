"""Row-reduction kernels (``runtime/fusion/rows.py``) against NumPy: softmax, layer norm,
log-sum-exp, var/std and flat outputs; float32 and float64, NaN and inf rows, strided and
broadcast inputs, 1-d and 3-d inputs, rows of one element, and empty inputs (interpreted)."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

import fusejit
from fusejit.examples import layer_norm, log_sum_exp, softmax
from fusejit.ir.symbols import prim
from fusejit.runtime import cores, executor
from fusejit.runtime.fusion import columns, row_kernel, rows, simd
from fusejit.runtime.fusion import plan as plans
from fusejit.runtime.fusion.row_kernel import RowKernel
from fusejit.runtime.fusion.rows import EXTREMA_BLOCK
from tests.matrix import covered


def moments(x):
    """var/std (two passes each), amin and flat (keepdims=False) outputs in one group."""
    c = x - x.mean(axis=-1, keepdims=True)
    return c / x.std(axis=-1, keepdims=True), (c * c).sum(axis=-1), np.amin(c, axis=-1), \
        x.var(axis=-1, keepdims=True) + c.max(axis=-1, keepdims=True)


def row_sums(x):
    return x.sum(axis=-1)


JITTED = {f: fusejit.jit(f) for f in (softmax, layer_norm, log_sum_exp, moments)}
# The fused plans alone: @fusejit.jit compiles small-array graphs whole with Numba instead.
FUSED = {f: fusejit.compile(fusejit.script(f), fuse=True, reductions=True)
         for f in (*JITTED, row_sums)}


@pytest.fixture
def kernels_only(monkeypatch):
    """Fail if a group is interpreted: the answer must come from the kernel."""
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


def _rel_close(got, want, dtype):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _row_groups(fn, *args) -> list:
    graph = JITTED[fn].graph_for(*args)
    return [n for n in graph.all_nodes() if n.kind == prim.RowReductionGroup]


# (each program in one dtype, each dtype in some program: softmax and moments in float32,
# log_sum_exp in float64)
@pytest.mark.parametrize("fn, dtype", covered([softmax, log_sum_exp, moments],
                                              [np.float32, np.float64], strength=1))
def test_matches_numpy(fn, dtype, kernels_only):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((37, 1500)) * 4).astype(dtype)   # rows longer than a block
    _rel_close(JITTED[fn](x), fn(x), dtype)


def test_one_kernel_per_pattern():
    """Each pattern is one group: no reduction or fusion group is left outside it."""
    x = np.ones((4, 8), np.float32)
    w = np.ones(8, np.float32)
    for fn, args in ((softmax, (x,)), (layer_norm, (x, w, w)), (log_sum_exp, (x,)),
                     (moments, (x,))):
        graph = JITTED[fn].graph_for(*args)
        kinds = [n.kind for n in graph.nodes() if n.kind != prim.Constant]
        assert kinds == [prim.RowReductionGroup], (fn.__name__, kinds)
        (group,) = [n for n in graph.nodes() if n.kind == prim.RowReductionGroup]
        assert isinstance(RowKernel(group), RowKernel)


@pytest.mark.parametrize("layout", ["strided", "transposed", "column"])
def test_layer_norm_layouts(layout, kernels_only):
    """Inputs read with a step along the row, and a bias broadcast along it (step 0)."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal((64, 96)).astype(np.float32)
    w = rng.standard_normal(48).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    if layout == "strided":
        x = base[::2, ::2]
    elif layout == "transposed":
        x = np.asfortranarray(base[:32, :48])     # a step of 32 along the rows
    else:
        x = base[:32, :48].copy()
        b = rng.standard_normal((32, 1)).astype(np.float32)
    _rel_close(FUSED[layer_norm](x, w, b), layer_norm(x, w, b), np.float32)


def test_special_rows(kernels_only):
    x = np.array([[1.0, 2.0, 3.0, 4.0],
                  [np.nan, 0.0, 1.0, 2.0],
                  [np.inf, 0.0, 1.0, 2.0],
                  [-np.inf, 0.0, 1.0, 2.0],
                  [-np.inf, -np.inf, -np.inf, -np.inf],
                  [1e30, -1e30, 0.0, 5.0]], np.float32)
    for fn in (softmax, log_sum_exp, moments):
        with np.errstate(all="ignore"):
            want = fn(x)
        got = FUSED[fn](x)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6, equal_nan=True)


def test_extrema_of_long_rows(kernels_only):
    """Max and min take a fast pass over blocks of ``EXTREMA_BLOCK`` and the exact one again
    over a block holding a NaN or a zero: a NaN in a later block wins, and a min of zeros is
    -0.0 where one of them is (IEEE maximum's order; NumPy's sign there follows its element
    order). The kernel is test_special_rows's (float32, contiguous)."""
    block = EXTREMA_BLOCK
    x = np.random.default_rng(11).standard_normal((4, 3 * block + 5)).astype(np.float32)
    x[0, 2 * block + 7] = np.nan
    x[1] = 0.0
    x[1, 2 * block + 1] = -0.0          # c = x - mean: -0.0 there, +0.0 elsewhere
    x[2] = 0.0
    with np.errstate(all="ignore"):
        want = moments(x)
    got = FUSED[moments](x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, equal_nan=True)
    assert np.isnan(got[2][0]) and np.isnan(got[3][0, 0])
    assert list(np.signbit(got[2][1:3])) == [True, False]


def extrema(x):
    return x.max(axis=-1), np.min(x, axis=-1, keepdims=True), x.sum(axis=-1)


def test_extrema_of_long_float64_rows(kernels_only):
    """float64 maxima and minima take the fast pass too, whose NaN test is a sum of the
    elements: a NaN in a later block wins; +inf beside -inf, whose sum is NaN with no NaN
    there, still gives inf and -inf (the exact pass); zeros take IEEE's signs."""
    block = EXTREMA_BLOCK
    x = np.random.default_rng(13).standard_normal((4, 2 * block + 5))
    x[0, block + 7] = np.nan
    x[1, 3], x[1, block + 2] = np.inf, -np.inf
    x[2] = 0.0
    x[2, block + 1] = -0.0
    fused = fusejit.compile(fusejit.script(extrema), fuse=True, reductions=True)
    with np.errstate(all="ignore"):
        want = extrema(x)
        got = fused(x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)
    assert np.isnan(got[0][0]) and np.isnan(got[1][0, 0])
    assert (got[0][1], got[1][1, 0]) == (np.inf, -np.inf)
    assert not np.signbit(got[0][2]) and np.signbit(got[1][2, 0])


def row_moments(x):
    return x.sum(axis=-1) * (x * x).mean(axis=-1)


def test_strided_rows_and_columns_are_read_without_gathers(kernels_only):
    """Row and column kernels reading a strided operand (``x[:, ::2]``) ask LLVM for scalar
    loads, not AVX-512 gathers (``rows.NO_GATHERS``, in both their kernels; 2-4x faster on
    an AMD Zen 4 host), those reading unit-stride rows do not; the values are NumPy's."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal((6, 5, 40)).astype(np.float32)
    fused = fusejit.compile(fusejit.script(row_moments), fuse=True, reductions=True)
    for view, strided in ((x[..., ::2], True), (x[..., :20], False), (x[:, ::2], False)):
        (group,) = [n for n in fused.graph_for(view).nodes()
                    if n.kind == prim.RowReductionGroup]
        assert str(fusejit.kernel_source(group, view)).count("vm.no_gathers()") == \
            (2 if strided else 0)
        np.testing.assert_allclose(fused(view), row_moments(view), rtol=1e-5, atol=1e-5)
    columns_strided = x.transpose(1, 0, 2)[..., ::2]        # (the columns at a step of 2)
    fused = fusejit.compile(fusejit.script(column_sums), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(columns_strided).nodes()
                if n.kind == prim.ColumnReductionGroup]
    assert str(fusejit.kernel_source(group, columns_strided)).count("vm.no_gathers()") == 2
    for got, want in zip(fused(columns_strided), column_sums(columns_strided)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def strided_rows(x):
    return x.sum(axis=-1), x.max(axis=-1), np.min(x, axis=-1, keepdims=True), \
        (x * 2 - 1).mean(axis=-1)


# (float64: float32's lanes and exact passes, in another width)
@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive),
                                   np.int32])
def test_passes_over_strided_rows_run_in_lanes(dtype, kernels_only):
    """A pass of cheap elements over strided rows runs as ``rows.LANES`` lanes of scalars with
    partials of their own (sums, and maxima and minima whose NaN and zeros the exact pass
    redoes): NumPy's values, with a NaN or a zero in any lane, the elements past the last
    whole step of lanes, and rows of more than one block; softmax's pass with exp stays in
    vectors."""
    rng = np.random.default_rng(15)
    n = 2 * EXTREMA_BLOCK + 2 * 8 + 3               # (blocks, then 3 past the lanes)
    x = (rng.standard_normal((5, 2 * n)) * 100).astype(dtype)
    if dtype != np.int32:
        x[0, 2 * 5] = np.nan                         # (lane 5 of the first step)
        x[1, 2 * (n - 1)] = np.nan                   # (the last element, past the lanes)
        x[2, ::2] = -0.0
        x[2, 2 * 13] = 0.0                           # (a max of zeros: 0.0; a min: -0.0)
        x[3, 2 * (EXTREMA_BLOCK + 6)] = np.inf
    view = x[:, ::2]
    fused = fusejit.compile(fusejit.script(strided_rows), fuse=True, reductions=True)
    groups = [n for n in fused.graph_for(view).nodes() if n.kind == prim.RowReductionGroup]
    assert groups and all(f"while c + {rows.LANES} <= c1 - c0:" in
                          str(fusejit.kernel_source(g, view)) for g in groups)
    with np.errstate(all="ignore"):
        got, want = fused(view), strided_rows(view)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if dtype == np.int32 or g.dtype.kind != "f":
            assert np.array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                       equal_nan=True)
    if dtype != np.int32:
        assert not np.signbit(got[1][2]) and np.signbit(got[2][2, 0])
        (group,) = [n for n in FUSED[softmax].graph_for(view).nodes()
                    if n.kind == prim.RowReductionGroup]
        # (its pass of maxima runs in lanes, its pass of exp(x - max) in vectors: in each of
        # the serial and the parallel kernel, one pass in lanes)
        assert str(fusejit.kernel_source(group, view)).count("while c + ") == 2


def column_sums(x):
    return x.sum(axis=1), x.max(axis=1)


def test_integer_and_bool_rows(kernels_only):
    """The max, min and sum (int64, as NumPy's) of integers and bools along rows run as one
    row kernel (~0.35 s cold each)."""
    rng = np.random.default_rng(12)
    fused = fusejit.compile(fusejit.script(extrema), fuse=True, reductions=True)
    for x in (rng.integers(-2**31, 2**31 - 1, (9, 300), dtype=np.int32),
              rng.random((9, 300)) < 0.5):
        x[3] = x[3, 0]                   # a constant row
        assert [n.kind for n in fused.graph_for(x).nodes() if n.kind != prim.Constant] == \
            [prim.RowReductionGroup]
        for g, w in zip(fused(x), extrema(x)):
            assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (NumPy's 0 / 0 in the oracle)
@pytest.mark.parametrize("shape", [(1500,), (3, 5, 7), (6, 1), (1, 1)])
def test_ranks_and_short_rows(shape, kernels_only):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    _rel_close(FUSED[softmax](x), softmax(x), np.float32)
    _rel_close(FUSED[moments](x), moments(x), np.float32)


def test_float32_sums_are_accurate(kernels_only):
    """Long float32 rows: the sums are as good as NumPy's pairwise ones (float64 oracle)."""
    rng = np.random.default_rng(3)
    x = (rng.random((4, 200_000)) + 1).astype(np.float32)
    got = JITTED[layer_norm](x, np.ones(1, np.float32), np.zeros(1, np.float32))
    exact = layer_norm(x.astype(np.float64), 1.0, 0.0)
    ours = np.abs(got - exact).max()
    numpys = np.abs(layer_norm(x, np.float32(1), np.float32(0)) - exact).max()
    assert ours <= max(2 * numpys, 1e-5)


@pytest.mark.parametrize("n", [77, 200, 1000])
def test_float32_row_sums_past_the_vector_loop_s_last_step_are_accurate(kernels_only, n):
    """Rows whose length is no whole number of the vectorised loop's steps (64 float32 here):
    the elements past its last step are summed as a block of their own (``rows.TAIL``), not
    added one by one to the row's sum. Mean relative error against the float64 sum within
    1.3x that of NumPy's pairwise sums (uncut: 1.6x for rows of 200, 1.5x for 1000)."""
    x = np.random.default_rng(11).random((4000, n), dtype=np.float32)
    exact = x.astype(np.float64).sum(axis=-1)
    ours = np.mean(np.abs(FUSED[row_sums](x) - exact) / exact)
    numpys = np.mean(np.abs(row_sums(x) - exact) / exact)
    assert ours <= 1.3 * numpys


def test_traversal_follows_the_strides(kernels_only):
    """A group whose outputs are all per-row takes the other kernel where its inputs are
    strided along its own walk: log-sum-exp of a Fortran-ordered array walks its columns
    (column statistics of one walk its rows: ``test_columns_match_numpy``); a group with
    element outputs (softmax) keeps its own. Rows shorter than ``_SHORT_ROW`` (5 here) walk
    the columns whatever the strides."""
    rng = np.random.default_rng(9)
    c = (rng.standard_normal((300, 70)) * 4).astype(np.float32)
    c[7, 3] = np.nan
    f = np.asfortranarray(c)
    short = c[:, 1:6]
    (lse,) = _row_groups(log_sum_exp, c)
    (soft,) = _row_groups(softmax, c)
    (stats,) = [n for n in COLUMNS[column_stats].graph_for(c).nodes()
                if n.kind == prim.ColumnReductionGroup]
    traversal = {name: [RowKernel(g)._prepare((x,))[3].columns for x in (c, f, short)]
                 for name, g in (("lse", lse), ("softmax", soft), ("stats", stats))}
    assert traversal == {"lse": [False, True, True], "softmax": [False, False, False],
                         "stats": [True, False, True]}
    for x in (f, short):
        with np.errstate(all="ignore"):
            want = log_sum_exp(x)
        got = RowKernel(lse)(x)[0]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, equal_nan=True)


def test_parallel_kernel(monkeypatch, kernels_only):
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((33, 70)).astype(np.float32)
    fused = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    _rel_close(fused(x), softmax(x), np.float32)
    (group,) = _row_groups(softmax, x)
    kernel = RowKernel(group)
    assert not kernel._prepare((x,))[3].serial
    _rel_close(kernel(x)[0], softmax(x), np.float32)


# ((0,): one empty row of a 1-d input, declined as (3, 0)'s empty rows are: an exhaustive case)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (means of empty rows)
@pytest.mark.parametrize("shape", [(0, 4), (3, 0),
                                   pytest.param((0,), marks=pytest.mark.exhaustive)])
def test_empty_inputs_are_interpreted(shape):
    """Empty rows or no rows: the kernel declines and the ops give NumPy's answer."""
    x = np.zeros(shape, np.float32)
    w = np.ones(shape[-1:], np.float32)
    with np.errstate(all="ignore"):
        want = layer_norm(x, w, w)
    got = FUSED[layer_norm](x, w, w)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_other_shapes_fall_back(monkeypatch):
    """A group whose output is wider than the rows it reduces: interpreted, still right; the
    kernel remembers that it declined those shapes, and plans them only once."""
    def wider(x, y):
        return np.exp(x - x.max(axis=-1, keepdims=True)) + y

    def longer_rows(x, y):
        return np.exp((x * x).sum(axis=1)[:, None] - y)

    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 6)).astype(np.float32)
    y = rng.standard_normal((4, 6)).astype(np.float32)
    fused = fusejit.compile(fusejit.script(wider), fuse=True, reductions=True)
    graph = fused.graph_for(x, y)
    assert any(n.kind == prim.RowReductionGroup for n in graph.nodes())
    _rel_close(fused(x, y), wider(x, y), np.float32)
    _rel_close(fused(y, y), wider(y, y), np.float32)

    planned = []
    make_plan = RowKernel._make_plan
    monkeypatch.setattr(RowKernel, "_make_plan",
                        lambda self, *a: planned.append(1) or make_plan(self, *a))
    fused = fusejit.compile(fusejit.script(longer_rows), fuse=True, reductions=True)
    z = rng.standard_normal((4, 9)).astype(np.float32)
    assert any(n.kind == prim.RowReductionGroup for n in fused.graph_for(y, z).nodes())
    for _ in range(3):                       # rows of 6 reduced, rows of 9 written
        _rel_close(fused(y, z), longer_rows(y, z), np.float32)
    assert len(planned) == 1
    _rel_close(fused(y, y), longer_rows(y, y), np.float32)     # (these shapes it runs)
    assert len(planned) == 2


def pairwise_sq_dists(X, Y):
    xx = (X ** 2).sum(axis=1)[:, None]
    yy = (Y ** 2).sum(axis=1)[None, :]
    return np.maximum(xx + yy - 2.0 * X @ Y.T, 0.0)


def test_a_declined_group_runs_its_maps_fused(monkeypatch):
    """Rows of 3 reduced, then broadcast to a 300 x 200 output: no row kernel plans it, and
    the group runs as the graph fuser alone would have left it, its sums on NumPy and its
    maps in one fused kernel (``GroupOperation._declined``), not op by op; a call that fails
    raises the located error of the op that fails."""
    interpreted = []
    interpret = executor.GroupOperation.interpret
    monkeypatch.setattr(executor.GroupOperation, "interpret",
                        lambda self, args: interpreted.append(1) or interpret(self, args))
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((300, 3)), rng.standard_normal((200, 3))
    jitted = fusejit.jit(pairwise_sq_dists)
    for _ in range(3):
        np.testing.assert_allclose(jitted(x, y), pairwise_sq_dists(x, y), rtol=1e-12,
                                   atol=1e-12)
    assert not interpreted
    compiled = jitted._compiled       # (the signature's CompiledFunction)
    groups = [g for g in compiled.plan_for(compiled.check_inputs([x, y])).kernels
              if g.node.kind == prim.RowReductionGroup and g._unfused is not None]
    assert groups
    (inner,) = groups[0]._unfused[0]._plans.values()
    assert any(g.node.kind == prim.FusionGroup and g._kernel for g in inner.kernels)


def ends_and_middle(x):
    return np.concatenate((x[1:2] - x[:1], (x[2:] - x[:-2]) / 2.0, x[-1:] - x[-2:-1]))


def wider_columns(a):
    return np.concatenate((a[:, :1] * 2.0, a[:, 1:] * 3.0 + a[:, :-1]), axis=1)


@pytest.mark.parametrize("fn, shape", [(ends_and_middle, (1000,)), (wider_columns, (40, 30))])
def test_a_concat_of_pieces_of_different_lengths_runs_each_piece_fused(monkeypatch, fn, shape):
    """One group computes every piece of a concatenation (``prim::FusedConcat``); a kernel
    iterates one shape, so pieces of different lengths are declined, and each piece then
    runs in its own kernel before NumPy concatenates them (``GroupOperation._declined``),
    not op by op."""
    interpreted = []
    interpret = executor.GroupOperation.interpret
    monkeypatch.setattr(executor.GroupOperation, "interpret",
                        lambda self, args: interpreted.append(1) or interpret(self, args))
    x = np.random.default_rng(8).standard_normal(shape)
    jitted = fusejit.jit(fn)
    for _ in range(3):
        np.testing.assert_array_equal(jitted(x), fn(x))
    assert not interpreted
    compiled = jitted._compiled
    (group,) = [g for g in compiled.plan_for(compiled.check_inputs([x])).kernels
                if g._unfused is not None]
    assert any(n.kind == prim.FusedConcat for n in group.node.g("Subgraph").nodes())
    (inner,) = group._unfused[0]._plans.values()
    assert len([g for g in inner.kernels if g.node.kind == prim.FusionGroup and g._kernel]) >= 2


def subtract_row_norms(x, z):
    return np.exp((x * x).sum(axis=1)[:, None] - z)


def test_a_declined_group_that_fails_raises_the_located_error():
    rng = np.random.default_rng(7)
    x, z = rng.standard_normal((4, 6)), rng.standard_normal((4, 9))
    jitted = fusejit.jit(subtract_row_norms)
    for _ in range(2):
        np.testing.assert_allclose(jitted(x, z), subtract_row_norms(x, z), rtol=1e-13)
    with pytest.raises(fusejit.FusejitError, match=r"test_row_kernels.py:\d+.*\n.*aten::sub"):
        jitted(x, rng.standard_normal((5, 9)))


# -- column statistics: reductions over axis 0 of a 2-d array ------------------------------------

def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def column_stats(x):
    """Sibling reductions of one input share the sweeps; keepdims and not."""
    return x.mean(axis=0), x.var(axis=0, keepdims=True), x.min(axis=0), \
        x.max(axis=0, keepdims=True) - x.sum(axis=0)


COLUMNS = {f: fusejit.compile(fusejit.script(f), fuse=True, reductions=True)
           for f in (standardize, column_stats)}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (NumPy's 0 / 0 in the oracle)
@pytest.mark.parametrize(("layout", "dtype"), [
    ("contiguous", np.float32),
    pytest.param("contiguous", np.float64, marks=pytest.mark.exhaustive),   # ("nan" is float64)
    # (strided columns: test_strided_rows_and_columns_are_read_without_gathers's column kernel)
    pytest.param("strided", np.float32, marks=pytest.mark.exhaustive),
    ("fortran", np.float32), ("one_row", np.float32), ("nan", np.float64)])
def test_columns_match_numpy(layout, dtype, kernels_only):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((120, 1100)) * 3 + 1).astype(dtype)  # 2 blocks (at most 1024)
    if layout == "strided":
        x = x[::3, ::2]
    elif layout == "fortran":
        x = np.asfortranarray(x)
    elif layout == "one_row":
        x = x[:1]
    elif layout == "nan":
        x[5, 7] = np.nan
        x[:, 9] = np.inf
    for fn in (standardize, column_stats):
        graph = COLUMNS[fn].graph_for(x)
        assert [n.kind for n in graph.nodes() if n.kind != prim.Constant] == \
            [prim.ColumnReductionGroup]
        with np.errstate(all="ignore"):
            want = fn(x)
        got = COLUMNS[fn](x)
        rtol = 2e-5 if dtype == np.float32 else 1e-12
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


def test_column_parallel_kernel(monkeypatch, kernels_only):
    """The parallel column kernel, here by the free-core rule (``_RowPlan.launch``): serial by
    the busy rule, parallel in blocks of 64 columns with the other core taken as free."""
    for name, value in (("_assumed", [1.0]), ("_taken", [0.0]), ("_free", [0.0])):
        monkeypatch.setattr(cores, name, value)            # (put back after the test)
    monkeypatch.setattr(plans, "FREE_WORK_NS", 0)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((40, 200)).astype(np.float32)
    fused = fusejit.compile(fusejit.script(standardize), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(x).nodes() if n.kind == prim.ColumnReductionGroup]
    kernel = RowKernel(group)
    plan = kernel._prepare((x,))[3]
    assert plan.serial and plan.launch() == (False, 64)
    _rel_close(kernel(x)[0], standardize(x), np.float32)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (means of no rows)
def test_columns_of_no_rows_are_interpreted():
    x = np.zeros((0, 5), np.float32)
    with np.errstate(all="ignore"):
        want = standardize(x)
    got = COLUMNS[standardize](x)
    assert got.shape == want.shape and got.dtype == want.dtype
    with pytest.raises(fusejit.FusejitError, match="amin"):   # NumPy: no identity for min
        COLUMNS[column_stats](x)


def few_rows(x, y):
    """A sweep of every kind: float32 partial or float64 sums behind a producer, a mean, a std
    (a second sweep on the mean), min and max (of the input too: its NaN and -0.0 in the first
    row), argmax (twice: with keepdims it reads the same accumulator), and an element
    output."""
    c = x * y - 0.5
    return (c.sum(axis=0), x.mean(axis=0), x.std(axis=0), np.amin(c, axis=0),
            c.max(axis=0, keepdims=True), np.argmax(x, axis=0), x - x.mean(axis=0),
            x.max(axis=0), np.argmax(x, axis=0, keepdims=True), np.amin(x, axis=0))


def sum_and_max(x):
    return (x * 0.5).sum(axis=0), x.max(axis=0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (NumPy's inf - inf in the oracle)
@pytest.mark.parametrize(("dtype", "rows"), [
    (np.float32, 3), (np.float32, 8),
    pytest.param(np.float64, 6, marks=pytest.mark.exhaustive)])   # (float32 takes both paths)
def test_kernels_for_few_rows_match_the_general_kernel(dtype, rows, monkeypatch,
                                                       parallel_plans, kernels_only):
    """Column kernels over at most ``columns.SHORT_ROWS`` rows are made for their row count (one
    loop over a block per sweep; from ``FAST_EXTREMA_ROWS`` rows, fast maxima and minima): the
    same bits as the kernel for any number of rows, NaN, inf and -0.0 included, over blocks
    of columns and a strided input; for 8 rows, a sum and a max also in parallel (two threads
    sharing the blocks: the suite's kernels run serially)."""
    rng = np.random.default_rng(rows)
    # (three blocks of the kernel made for the rows, 17 of the general one; strided)
    cols = 2 * columns.SHORT_BLOCK + 116
    x = (rng.standard_normal((rows, 2 * cols)) * 3).astype(dtype)[:, ::2]
    y = rng.standard_normal((rows, cols)).astype(dtype)
    x[0, 3], x[rows - 1, 5] = np.nan, np.inf
    x[:, 4], y[:, 4] = -0.0, 0.0
    x[0, 6], x[1:, 6] = -0.0, 0.0                   # (a max of -0.0 first, then 0.0)
    # (a block whose only odd columns are zeros of both signs, and one whose only odd column
    # has a NaN in its last row: the fast maxima and minima would miss both)
    x[:, 8200], x[-1, 8200] = 0.0, -0.0
    x[:, 8201], x[-1, 8201] = -0.0, 0.0
    x[-1, cols - 50] = np.nan

    def run():
        fused = fusejit.compile(fusejit.script(few_rows), fuse=True, reductions=True)
        groups = [n for n in fused.graph_for(x, y).nodes()
                  if n.kind == prim.ColumnReductionGroup]
        plans_ = [RowKernel(g)._prepare(tuple({"x": x, "y": y}[v.debug_name]
                                              for v in g.inputs))[3] for g in groups]
        # (a group of per-column outputs over one row may take the row kernel instead)
        return fused(x, y), [p for p in plans_ if p.columns is True]

    got, plans_ = run()
    assert plans_ and all(p.short == rows and p.serial for p in plans_)
    if rows == 8:       # (a small group: a parallel kernel takes long to compile)
        fused = fusejit.compile(fusejit.script(sum_and_max), fuse=True, reductions=True)
        (group,) = [n for n in fused.graph_for(x).nodes() if n.kind == prim.ColumnReductionGroup]
        one = fused(x)
        with parallel_plans(64):
            kernel = RowKernel(group)
            assert kernel._prepare((x,))[3].short == rows
            assert kernel._prepare((x,))[3].launch()[0] is False
            two = kernel(x)
        for g, t in zip(one, two):
            assert g.tobytes() == t.tobytes()
    monkeypatch.setattr(row_kernel, "SHORT_ROWS", 0)          # (every plan: any row count)
    general, plans_ = run()
    assert plans_ and not any(p.short for p in plans_)
    with np.errstate(all="ignore"):
        want = few_rows(x, y)
    for g, r, w in zip(got, general, want):
        assert g.dtype == r.dtype == w.dtype and g.shape == r.shape == w.shape
        assert g.tobytes() == r.tobytes()
        np.testing.assert_allclose(g, w, rtol=2e-5 if dtype == np.float32 else 1e-12,
                                   equal_nan=True)


def mixed_ops(x, scale: float):
    """A float argument, a comparison and where, erf (libm, in a loop of its own) and sin of
    large arguments (its fix-up loop), inside the reduction passes and the output pass."""
    c = x - x.mean(axis=-1, keepdims=True)
    big = np.sin(x * scale)             # (of x: c * scale would magnify rounding of the mean)
    picked = np.where(c > 0, big, fusejit.ops.erf(c))
    return picked / np.abs(picked).sum(axis=-1, keepdims=True), fusejit.ops.erf(c).max(axis=-1)


@pytest.mark.parametrize("precise", [False, True])
def test_cut_loops_scalars_and_precise(precise, kernels_only):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((9, 1300)).astype(np.float32)
    fused = fusejit.compile(fusejit.script(mixed_ops), fuse=True, reductions=True,
                            precise=precise)
    graph = fused.graph_for(x, 1e4)
    assert [n.kind for n in graph.nodes() if n.kind != prim.Constant] == \
        [prim.RowReductionGroup]
    reference = fusejit.compile(fusejit.script(mixed_ops), engine="reference")
    for got, want in zip(fused(x, 1e4), reference(x, 1e4)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    # The cut loops of a pass over blocks, their fix-ups too, run over the block, with
    # buffers of a block (over the row, a row of 4M float32 logarithms took 0.66 s).
    (group,) = [n for n in graph.nodes() if n.kind == prim.RowReductionGroup]
    lines = str(fusejit.kernel_source(group, x, 1e4)).splitlines()
    blocks = [i for i, line in enumerate(lines) if "for blk in range(" in line]
    assert blocks
    for i in blocks:
        indent = len(lines[i]) - len(lines[i].lstrip())
        inside = [line for line in lines[i + 1:]
                  if line.strip()][:1000]
        end = next((k for k, line in enumerate(inside)
                    if len(line) - len(line.lstrip()) <= indent), len(inside))
        assert not [line for line in inside[:end] if "range(n)" in line or "np.empty(n," in line]


def test_rows_at_no_single_step(kernels_only):
    """Rows of a 3-d slice start at no constant step: the kernel reads a table of offsets."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 10, 70)).astype(np.float32)[:, :5, :]
    w = rng.standard_normal(70).astype(np.float32)
    _rel_close(FUSED[layer_norm](x, w, w), layer_norm(x, w, w), np.float32)
    (group,) = [n for n in FUSED[softmax].graph_for(x).nodes()
                if n.kind == prim.RowReductionGroup]
    kernel = RowKernel(group)
    assert not kernel._prepare((x,))[3].linear
    assert kernel._prepare((x[:, :, ::2],))[3].linear is False
    assert kernel._prepare((np.ascontiguousarray(x),))[3].linear
    _rel_close(kernel(x)[0], softmax(x), np.float32)


def energy(m, v):
    """Reductions of every axis of a product with an input broadcast inside the rows (the
    column sum's product is written ``v * m``, which CSE does not take for ``e``: its group
    reads both inputs)."""
    e = m * v
    return np.sum(e * v), np.argmax(e), (v * m).sum(axis=0)


ENERGY = fusejit.compile(fusejit.script(energy), fuse=True, reductions=True)


@pytest.mark.parametrize(("m_shape", "v_shape"), [((700, 1), (700, 3)), ((1, 3), (700, 3)),
                                                  ((1, 1500), (3, 1500))])
def test_inputs_broadcast_inside_the_rows(m_shape, v_shape, kernels_only):
    """``m`` of (700, 1) or (1, 3) against ``v`` of (700, 3), (1, 1500) against (3, 1500):
    the row kernel over every axis reads ``m`` by runs (``rows.NESTED``; runs across blocks,
    and blocks inside one run), the column kernel with a step of 0 along either axis;
    argmax of every axis in NumPy's order."""
    rng = np.random.default_rng(10)
    m = rng.uniform(1, 2, m_shape)
    v = rng.standard_normal(v_shape)
    v.flat[1201] = 9.0                   # (the argmax)
    kinds = [n.kind for n in ENERGY.graph_for(m, v).nodes() if n.kind != prim.Constant]
    assert prim.RowReductionGroup in kinds and prim.ColumnReductionGroup in kinds
    got, want = ENERGY(m, v), energy(m, v)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)


def test_rows_of_more_levels_or_element_outputs_fall_back():
    """Rows that inputs walk in three levels, element outputs over rows an input does not
    walk at one step: interpreted, still right; shapes that do not broadcast: an error."""
    def spread(x, y):
        d = x * y
        return d - d.mean()

    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 5, 6))
    fused = fusejit.compile(fusejit.script(spread), fuse=True, reductions=True)
    for y in (rng.standard_normal((4, 1, 6)), rng.standard_normal((4, 5, 1))):
        np.testing.assert_allclose(fused(x, y), spread(x, y), rtol=1e-12)
        (group,) = [n for n in fused.graph_for(x, y).nodes()
                    if n.kind == prim.RowReductionGroup]
        with pytest.raises(fusejit.InterpreterError, match="levels|one step"):
            RowKernel(group)(x, y)
    with pytest.raises(fusejit.FusejitError, match="broadcast"):
        ENERGY(np.ones((699, 1)), np.ones((700, 3)))


def test_kernel_source_is_cached_and_holds_no_user_text():
    """The module goes to the kernel cache under the hash of its text, like fused kernels'; no
    name from the program (``evil_name``) reaches it."""
    from fusejit.runtime.fusion import cache as kcache

    def evil_name(x):
        evil_name_mu = x.mean(axis=-1, keepdims=True)
        return x - evil_name_mu

    x = np.ones((3, 4), np.float32)
    fused = fusejit.compile(fusejit.script(evil_name), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(x).nodes() if n.kind == prim.RowReductionGroup]
    kernel = RowKernel(group)
    text = kernel.source(x)
    assert "evil" not in text
    # fusejit.kernel_source shows it: for the group, and for the graph (as @jit forms groups)
    assert str(fusejit.kernel_source(group, x)) == text
    assert text in str(fusejit.kernel_source(fusejit.script(evil_name), x))
    kernel(x)
    directory = kcache.kernels_dir()
    if directory is not None:       # (None: no usable cache directory; the module ran in memory)
        assert (directory / f"fk_{kcache.source_hash(text)}.py").read_text() == text


def softmax_op(x, w):
    """``fusejit.ops.softmax`` (one ``aten::softmax`` node) with pointwise code around it."""
    return fusejit.ops.softmax(x * 2, -1) * w


@pytest.mark.parametrize(("shape", "dtype"), [
    ((5, 1300), np.float32), pytest.param((5, 1300), np.float64, marks=pytest.mark.exhaustive),
    ((1300,), np.float32), ((2, 3, 40), np.float32), ((4, 1), np.float32)])
def test_softmax_op_is_one_kernel(shape, dtype, kernels_only):
    rng = np.random.default_rng(10)
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf][:x.size]
    w = rng.standard_normal(shape[-1:]).astype(dtype)
    fused = fusejit.compile(fusejit.script(softmax_op), fuse=True, reductions=True)
    assert [n.kind for n in fused.graph_for(x, w).nodes() if n.kind != prim.Constant] == \
        [prim.RowReductionGroup]
    reference = fusejit.compile(fusejit.script(softmax_op), engine="reference")
    got, want = fused(x, w), reference(x, w)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)


def test_softmax_op_of_empty_rows_is_interpreted():
    x, w = np.zeros((5, 0), np.float32), np.zeros(0, np.float32)
    fused = fusejit.compile(fusejit.script(softmax_op), fuse=True, reductions=True)
    assert fused(x, w).shape == (5, 0)


def row_views(x):
    """Per-row values reshaped as NumPy code writes them: ``m[:, None]``, ``np.expand_dims``,
    ``.reshape(-1, 1)``, ``[:, np.newaxis]`` and ``r[:, 0]``."""
    m = np.max(x, axis=1)
    e = np.exp(x - m[:, None])
    s = e.sum(axis=1)
    z = (x - np.expand_dims(x.mean(axis=1), 1)) / x.std(axis=1).reshape(-1, 1)
    return e / s[:, np.newaxis], m + np.log(s), z, x.min(axis=1, keepdims=True)[:, 0]


def column_views(x):
    return (x - x.mean(axis=0)[None, :]) / np.expand_dims(x.std(axis=0), 0)


@pytest.mark.parametrize(("fn", "kind"), [(row_views, prim.RowReductionGroup),
                                          (column_views, prim.ColumnReductionGroup)])
def test_views_of_per_row_values_stay_in_the_group(fn, kind, kernels_only):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((37, 1100)) * 4).astype(np.float32)
    x[3, 5] = np.nan
    fused = fusejit.jit(fn)        # (shapes known from the call: expand_dims needs ranks)
    with np.errstate(all="ignore"):
        want = fn(x)
    got = fused(x)
    assert [n.kind for n in fused.graph_for(x).nodes() if n.kind != prim.Constant] == [kind]
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, equal_nan=True)


def standardised_moments(x):
    """A float power of a per-row value (``var ** 1.5``): the kernels' vectorised pow, in a
    row kernel (whose generator once lacked the choice of its host forms: every call failed)."""
    m = x.mean()
    d = x - m
    var = (d * d).mean()
    return m, var, (d ** 3).mean() / var ** 1.5, (d ** 4).mean() / (var * var) - 3.0


# (float64: the same generator's choice of host forms for float64's pow, which
# test_vecmath.py's float64 kernels run)
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                            marks=pytest.mark.exhaustive)])
def test_float_powers_of_per_row_values(dtype, kernels_only):
    x = np.random.default_rng(12).uniform(-2, 3, 5000).astype(dtype)
    f = fusejit.compile(fusejit.script(standardised_moments), fuse=True, reductions=True)
    graph = f.graph_for(x)
    assert [n.kind for n in graph.nodes() if n.kind != prim.Constant] == \
        [prim.RowReductionGroup]
    _rel_close(f(x), standardised_moments(x), dtype)


def maps_beside_their_extremum(x, m):
    """Two element outputs no reduction reaches, and the max of each row of a third map."""
    y = np.sqrt(x * x + 1.0) * m
    return y, x - m, np.abs(np.log1p(x * x)).max(axis=-1)


@pytest.mark.parametrize("parallel, shape", covered([False, True], [(50_000,), (40, 700)],
                                                   strength=1))
def test_element_outputs_no_reduction_reaches_are_written_by_its_pass(
        shape, parallel, monkeypatch, kernels_only):
    """The pass computing the max writes ``y`` and ``x - m`` too: no output pass reading the
    inputs again, no row buffer; NumPy's values, with a NaN (the max's exact pass again over
    its block) and -0.0, on one long row (split among the threads) and on many rows."""
    if parallel:
        monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
    rng = np.random.default_rng(12)
    x = rng.standard_normal(shape)
    m = rng.uniform(0.5, 2.0, shape[-1])
    x.flat[7] = np.nan
    x.flat[x.size // 2] = -0.0
    fused = fusejit.compile(fusejit.script(maps_beside_their_extremum), fuse=True,
                            reductions=True)
    (_group,) = [n for n in fused.graph_for(x, m).all_nodes()
                 if n.kind == prim.RowReductionGroup]
    source = str(fusejit.kernel_source(fusejit.script(maps_beside_their_extremum), x, m))
    assert "keep_" not in source and "w0[c] =" not in source and "v0[c] = " in source
    got, want = fused(x, m), maps_beside_their_extremum(x, m)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=1e-14)


def bisection_step(x, lo, hi):
    """One step of a per-row bisection: element outputs whose arrays are per-row (``(rows,
    1)``), computed from per-row inputs and a row sum, beside an element output."""
    mid = 0.5 * (lo + hi)
    above = np.sum(x > mid, axis=-1, keepdims=True)
    too_low = above > 3
    return np.where(too_low, mid, lo), np.where(too_low, hi, mid), x - mid, lo * lo + 1.0


# (by default the serial kernel over one row of many blocks, the parallel one over many short
# rows of 3-d: the kernels' loops are the same, and 2-d rows are 3-d ones of one batch)
@pytest.mark.parametrize("parallel, shape", [
    pytest.param(False, (300, 40), marks=pytest.mark.exhaustive),
    pytest.param(False, (6, 5, 70), marks=pytest.mark.exhaustive),
    (False, (1, 50_000)),
    pytest.param(True, (300, 40), marks=pytest.mark.exhaustive),
    (True, (6, 5, 70)),
    pytest.param(True, (1, 50_000), marks=pytest.mark.exhaustive)])
def test_element_outputs_of_a_rows_shape_are_written_once_a_row(shape, parallel, monkeypatch,
                                                                kernels_only):
    """``np.where(too_low, mid, lo)`` of ``(rows, 1)`` values is an element value of the
    group, but its array is per-row: the kernel computes it once a row and writes it there
    (the plan declined such outputs, and the loop ran op by op). NumPy's values on every
    call, with NaN and -0.0 bounds; and an input broadcast along the rows by its strides
    (``np.broadcast_to``), whose values are per-row while its output's array is not."""
    if parallel:
        monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
    rng = np.random.default_rng(13)
    x = rng.standard_normal(shape).astype(np.float32)
    lo = x.min(axis=-1, keepdims=True)
    hi = x.max(axis=-1, keepdims=True)
    lo.reshape(-1)[:2] = (np.nan, -0.0)[:lo.size]
    f = fusejit.compile(fusejit.script(bisection_step), fuse=True, reductions=True)
    assert prim.RowReductionGroup in [n.kind for n in f.graph_for(x, lo, hi).nodes()]
    for _ in range(3):
        got, want = f(x, lo, hi), bisection_step(x, lo, hi)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
            assert np.array_equal(np.signbit(g), np.signbit(w))
    wide = np.broadcast_to(lo, shape)         # (step 0 along the rows, shape of the rows)
    got, want = f(x, wide, hi), bisection_step(x, wide, hi)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def row_means_of_a_power(x, p: float):
    return (x ** p).mean(axis=-1)


def column_means_of_a_power(x, p: float):
    return (x ** p).mean(axis=0)


def mean_of_a_power(x, p: float):
    return (x ** p).mean()


def _kernel_function_ir(variant) -> str:
    """The optimised LLVM IR of ``variant``'s serial kernel itself (not its Python wrapper, nor
    the functions it calls), compiled once more from its text uncached: Numba does not show
    the IR of code loaded from its cache."""
    namespace: dict = {}
    exec(compile(variant.source.replace("cache=True", "cache=False"), "<probe>", "exec"),
         namespace)
    probe = namespace["kernel_serial"]
    (signature,) = variant.serial.signatures
    probe.compile(signature)
    text = probe.inspect_llvm(signature)
    functions = re.findall(r"^define [^\n]*@(\S+)\([^\n]*\n(.*?)^}", text, re.M | re.S)
    (body,) = [body for name, body in functions
               if "kernel_serial" in name and "cpython" not in name and
               not name.startswith("cfunc.")]
    return body


@pytest.mark.skipif(not simd.HOST_AVX512, reason="the hand-written pow is AVX-512's")
# (rows of 3000: the row kernel, whose directive mean_of_a_power's one long row checks too)
@pytest.mark.parametrize("fn, shape", [
    pytest.param(row_means_of_a_power, (8, 3000), marks=pytest.mark.exhaustive),
    (column_means_of_a_power, (3000, 40)), (mean_of_a_power, (50_001,))])
def test_kernels_of_rows_and_columns_call_the_vector_pow(fn, shape, monkeypatch):
    """A row or column kernel calling vectorised math asks LLVM for 512-bit vectors, as the
    element-wise kernels do (``RowGenerator.directives``): without them LLVM left the loop
    calling ``vp.pow_simd_f32`` scalar, the hand-written 16-lane pow run for one lane at a
    time (``(x ** (1 / g)).mean()`` of 8M float32 at a quarter of NumPy's speed). The serial
    kernel's own loop calls a vector variant of the pow; the parallel kernel of one long row
    (its blocks shared among the threads, each chunk a function of its own) asks in each
    chunk; NumPy's values on every call."""
    x = np.random.default_rng(5).uniform(0.0, 2.0, shape).astype(np.float32)
    kernel = RowKernel(_group_of(fn, x, 0.45))
    for _ in range(2):
        (got,) = kernel(x, 0.45)
        np.testing.assert_allclose(got, fn(x, np.float32(0.45)), rtol=1e-5)
    (variant,) = kernel._variants.values()
    assert re.search(r"call (fastcc )?<\d+ x float> @fj_powf_v\d+", _kernel_function_ir(variant))
    if fn is mean_of_a_power and numba.config.NUMBA_NUM_THREADS > 1:
        monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
        source = RowKernel(_group_of(fn, x, 0.45)).source(x, 0.45)
        parallel = source[source.index("def kernel_parallel"):source.index("def kernel_serial")]
        assert re.search(r"for chunk in prange\(nchunks\):\n\s+vm\.wide_vectors\(\)", parallel)


def _group_of(fn, *args):
    fused = fusejit.compile(fusejit.script(fn), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(*args).all_nodes()
                if n.kind in (prim.RowReductionGroup, prim.ColumnReductionGroup)]
    return group


@pytest.mark.parametrize("cols, wide", [(10, False), (rows.WIDE_ROW - 1, False),
                                        (rows.WIDE_ROW, True), (3000, True)])
def test_vectorised_math_over_long_rows_asks_for_wide_vectors(cols, wide, kernels_only):
    """Softmax's kernel (exp: vectorised math, no function that needs the widening) asks for
    512-bit vectors over rows of ``WIDE_ROW`` elements or more only (rows of 10 took twice
    the time so); its text for the other rows is the kernel it was before, and both give
    NumPy's values."""
    x = np.random.default_rng(2).standard_normal((40, cols)).astype(np.float32)
    (group,) = _row_groups(softmax, x)
    kernel = RowKernel(group)
    assert ("vm.wide_vectors()" in kernel.source(x)) == wide
    _rel_close(kernel(x), (softmax(x),), np.float32)
