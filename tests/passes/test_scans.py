"""Running sums and products along the last axis in row groups: ``np.cumsum`` and ``np.cumprod``
with their pointwise producers and consumers in one ``prim::RowReductionGroup`` (beyond
PyTorch's fuser), computed in the kernel's last pass over each row. Checked: the graphs (which
scans join, what stays outside: other axes, a reduction of a running sum), and the values
against NumPy's bit for bit (NumPy accumulates one element after the other, in the output's
dtype: the kernel must too) for every dtype the row kernels read (NumPy's unsigned sums are
uint64, which fusejit refuses before any kernel), on C-ordered, Fortran-ordered,
strided and broadcast inputs, with NaN, infinities and integer overflow."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim
from tests.matrix import covered


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def _groups(graph) -> list[list[str]]:
    """The kinds inside each row group of ``graph``."""
    return [sorted(str(n.kind) for n in g.g("Subgraph").nodes() if n.kind != prim.Constant)
            for g in graph.nodes() if g.kind == prim.RowReductionGroup]


def _inside(graph) -> list:
    return sorted(kind for kinds in _groups(graph) for kind in kinds)


def scaled_cumsum(x):
    return np.cumsum(np.exp(x) * 2.0, axis=-1) / 3.0


def growth(p):
    return np.cumprod(p[1:] / p[:-1]) - 1.0


def centred_cumsum(x):
    return np.cumsum(x - x.mean(axis=-1, keepdims=True), axis=-1)


def running_both(x):
    return np.cumsum(x, axis=-1) * 0.5, np.cumprod(x, axis=-1)


def twice(x):
    return np.cumsum(np.cumsum(x, axis=-1), axis=-1)


def total_of_running(x):
    return np.cumsum(x, axis=-1).sum(axis=-1)


def down_columns(x):
    return np.cumsum(x * 2.0, axis=0)


def flattened_kept(x):
    y = x.reshape(-1)
    return np.cumsum(y * 2.0), y


RNG = np.random.default_rng(5)


def _layouts(shape, dtype):
    if np.dtype(dtype).kind == "f":
        base = RNG.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)
    elif dtype == np.bool_:
        base = RNG.random((*shape[:-1], 2 * shape[-1])) < 0.5
    else:
        base = RNG.integers(-9, 10, (*shape[:-1], 2 * shape[-1])).astype(dtype)
    c = np.ascontiguousarray(base[..., :shape[-1]])
    return {"c": c, "f": np.asfortranarray(c), "strided": base[..., ::2],
            "broadcast": np.broadcast_to(c[..., :1, :], c.shape) if c.ndim > 1 else c}


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_a_running_sum_joins_its_producers_and_consumers():
    x = RNG.standard_normal((6, 50)).astype(np.float32)
    f = fusejit.jit(scaled_cumsum)
    for _ in range(2):      # (the kernel's exp is within 2 ulp of NumPy's: not bit for bit)
        got = f(x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, scaled_cumsum(x), rtol=2e-5, atol=1e-5)
    graph = f.graph_for(x)
    assert _top(graph) == [prim.RowReductionGroup]
    assert _inside(graph) == ["aten::cumsum", "aten::div", "aten::exp", "aten::mul"]


def test_a_flattening_of_a_vector_gives_way_to_the_scan_of_its_group():
    p = RNG.uniform(1, 2, 300)
    f = fusejit.jit(growth)
    for _ in range(2):
        _same(f(p), growth(p))
    graph = f.graph_for(p)
    assert aten.reshape not in _top(graph) and prim.RowReductionGroup in _top(graph)
    assert "aten::div" in _inside(graph) and "aten::cumprod" in _inside(graph)
    # (the caller's array comes back as a view of it, as NumPy's reshape gives)
    x = RNG.standard_normal(40)
    g = fusejit.jit(flattened_kept)
    out, view = g(x)
    _same(out, flattened_kept(x)[0])
    assert view is not x and np.shares_memory(view, x)


def test_a_running_sum_after_a_row_mean_reads_it_in_the_last_pass():
    x = RNG.standard_normal((9, 64))
    f = fusejit.jit(centred_cumsum)
    # (the row kernel's mean is NumPy's to within an ulp, not bit for bit: row_kernels tests)
    np.testing.assert_allclose(f(x), centred_cumsum(x), rtol=1e-12, atol=1e-13)
    assert _top(f.graph_for(x)) == [prim.RowReductionGroup]


# Each layout once, and float32 (rounded in its own dtype), int8 (summed as int64, as int32
# is), int64 and bool (one byte read) once: float64 and int32, in every layout, are exhaustive
# cases, their scans float32's and int8's.
_LAYOUTS = ["c", "f", "strided", "broadcast"]


@pytest.mark.parametrize("layout, dtype", covered(
    _LAYOUTS, [np.float32, np.int8, np.int64, np.bool_], strength=1) + [
    pytest.param(layout, dtype, marks=pytest.mark.exhaustive)
    for layout in _LAYOUTS for dtype in (np.float64, np.int32)])
def test_sums_and_products_of_every_dtype_and_layout_match_numpy_bit_for_bit(dtype, layout):
    x = _layouts((5, 37), dtype)[layout]
    f = fusejit.jit(running_both)
    for _ in range(2):
        got, want = f(x), running_both(x)
        for a, b in zip(got, want):
            _same(a, b)
    assert _top(f.graph_for(x)) == [prim.RowReductionGroup]


@pytest.mark.parametrize("shape", [(1,), (1000,), (3, 1), (2, 3, 17), (1, 4, 1, 5)])
def test_shapes_one_dimensional_to_four(shape):
    x = RNG.standard_normal(shape)
    f = fusejit.jit(twice)
    _same(f(x), twice(x))


def test_nan_infinities_and_integer_overflow_as_numpy_has_them():
    x = RNG.standard_normal((4, 20))
    x[0, 3], x[1, 0], x[2, 5], x[2, 9] = np.nan, np.inf, np.inf, -np.inf
    f = fusejit.jit(running_both)
    with np.errstate(all="ignore"):
        for a, b in zip(f(x), running_both(x)):
            _same(a, b)
    big = np.full((2, 70), 3, np.int64)      # 3 ** 70 wraps in int64, as NumPy's does
    for a, b in zip(f(big), running_both(big)):
        _same(a, b)


def test_a_reduction_of_a_running_sum_and_other_axes_stay_apart():
    x = RNG.standard_normal((7, 30))
    f = fusejit.jit(total_of_running)
    np.testing.assert_allclose(f(x), total_of_running(x), rtol=1e-12)
    # (the sum reads the scan's values: a group of its own after the scan's)
    assert _groups(f.graph_for(x)) == [["aten::cumsum"], ["aten::sum"]]
    g = fusejit.jit(down_columns)
    _same(g(x), down_columns(x))
    assert aten.cumsum in _top(g.graph_for(x))


def test_empty_rows_run_as_numpy_does():
    f = fusejit.jit(running_both)
    for shape in [(0,), (3, 0), (0, 4)]:
        x = np.zeros(shape)
        for a, b in zip(f(x), running_both(x)):
            _same(a, b)
