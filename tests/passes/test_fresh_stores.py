"""``functionalize_fresh_stores``: a masked store into an array nobody else holds becomes the
``where`` it stores, so the fuser makes one kernel of the copy, the mask, the store and what
reads the array after (``y = x.copy(); y[y < 0] = 0; y * 2``). Checked: the graphs, the
values against NumPy, the caller's arrays left (or updated) as NumPy leaves them, and the
programs where it must not apply: a store into an argument, into an array a view or a later
in-place update holds, after the copied array changed, inside a loop, through a cast that may
give its input back. A copy only read (by a map, a concatenation, a product, a sort) is
dropped; one returned, viewed, or read after its original changes stays."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


RNG = np.random.default_rng(21)
X = RNG.standard_normal(300).astype(np.float32)
M = RNG.standard_normal((20, 30))


def clip_and_scale(x):
    y = x.copy()
    y[y < 0] = 0
    return y * 2


def nan_to_zero_sum(x, w):
    y = x * w
    y[np.isnan(y)] = 0.0
    return y.sum(axis=-1)


def bump_large(x):
    y = x * 2.0
    y[y > 1] += 1.0
    y[y < -1] *= 0.5
    return y - x


def store_into_argument(x):
    x[x < 0] = 0
    return x * 2


def store_seen_through_a_view(x):
    y = x.copy()
    v = y[1:]
    y[y < 0] = 0
    return v * 1.0


def copy_then_change_the_original(x):
    y = x.copy()
    x += 1.0
    y[y < 0] = 0
    return y * 2, x


def read_copy_after_the_original_changes(x):
    y = x.copy()
    x[x > 0] = 0
    return y + x


def store_in_a_loop(x):
    y = x.copy()
    for i in range(3):
        y[y < i] = i
    return y


def appended_then_stored(x):
    hist = []
    for _ in range(2):
        y = x * 1.0
        hist.append(y)              # (the list holds y: it sees the store)
        y[y > 0] = 0.0
    return hist[0]


def cast_then_store(x):
    y = x.astype(np.float32)
    y[y < 0] = 0
    return y, x


def mask_of_another_array(x, m):
    y = x.copy()
    y[m] = -1.0
    return y * 3


def copies_only_read(x, m):
    a = x.astype(np.float32)        # (a copy: x is float32)
    b = np.array(m)
    return np.concatenate([a, x.copy()]).max(), b @ b.T, np.sort(x.copy()) * 2


def copies_others_may_see(x, m):
    a = x.copy()
    b = m.copy()
    c = x.copy()
    x[0] = 5.0                      # (after the copy, before its read)
    return a, b.T, c.sum(), np.copy(m)[0]


def _same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if np.asarray(w).dtype == np.float32 and np.ndim(w) == 0:
            # (a float32 sum: the row kernel's vector lanes add in another order than
            # NumPy's pairwise sum, which differs by an ulp on some CPUs)
            np.testing.assert_allclose(g, w, rtol=4e-7)
        else:
            np.testing.assert_array_equal(g, w)


def _check(fn, *args):
    """fusejit's results and the arguments it leaves, against NumPy's, twice."""
    f = fusejit.jit(fn)
    for _ in range(2):
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        _same(f(*mine), fn(*theirs))
        for a, b in zip(mine, theirs):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
    return f.graph_for(*args)


def test_a_copy_fixed_by_a_mask_is_one_kernel_reading_the_original():
    graph = _check(clip_and_scale, X)
    assert _top(graph) == [prim.FusionGroup]
    (group,) = [n for n in graph.nodes() if n.kind == prim.FusionGroup]
    assert graph.inputs[0] in group.inputs          # (no copy: the kernel reads x)


def test_a_fixed_map_joins_the_reduction_that_reads_it():
    x = np.where(X > 1, np.nan, X)
    f = fusejit.jit(nan_to_zero_sum)
    # (the row kernel's float32 sum is NumPy's to within rounding, not bit for bit)
    np.testing.assert_allclose(f(x, 2.0), nan_to_zero_sum(x, 2.0), rtol=1e-6)
    assert _top(f.graph_for(x, 2.0)) == [prim.RowReductionGroup]


def test_updates_of_a_masked_selection_of_a_fresh_array():
    graph = _check(bump_large, X)
    assert _top(graph) == [prim.FusionGroup]


@pytest.mark.parametrize("fn", [store_into_argument, store_seen_through_a_view,
                                copy_then_change_the_original,
                                # (a store into the argument, and a copy read after its
                                # original is written: store_into_argument's, and
                                # copies_others_may_see's c in the test of copies that stay)
                                pytest.param(read_copy_after_the_original_changes,
                                             marks=pytest.mark.exhaustive),
                                store_in_a_loop, cast_then_store, appended_then_stored])
def test_stores_others_may_see_stay_stores(fn):
    graph = _check(fn, X)
    if fn in (store_into_argument, store_seen_through_a_view, store_in_a_loop,
              appended_then_stored):
        assert any(n.kind in (aten.copy_, prim.FusionGroup, prim.Loop)
                   for n in graph.all_nodes())


def test_a_mask_from_another_array_is_checked_then_stored():
    m = RNG.random(M.shape) < 0.3
    graph = _check(mask_of_another_array, M, m)
    assert aten.copy_ not in _top(graph)
    f = fusejit.jit(mask_of_another_array)
    with pytest.raises(fusejit.FusejitError, match="IndexError"):
        f(M, m[:1])


def test_copies_only_read_are_dropped():
    graph = _check(copies_only_read, X, M)
    assert not any(n.kind == aten.clone for n in graph.all_nodes())


def test_copies_returned_viewed_or_read_after_a_write_stay():
    graph = _check(copies_others_may_see, X, M)
    # a and b (returned, viewed), c (x written before it is read), np.copy(m) (a row of it
    # returned: a view)
    assert len([n for n in graph.all_nodes() if n.kind == aten.clone]) == 4


def fills_read_and_kept(x, m):
    ones = np.ones_like(x)
    kept = np.zeros_like(m)
    kept[0] = 5.0                   # (written: a new array still)
    return ((x * ones).sum(), np.full_like(m, 2, dtype=np.int32) + m, kept,
            np.full_like(x, 7) * x, np.zeros_like(x), np.full_like(m, 1.5).T @ m,
            np.ones(x.shape[0]) * 2.5 + x, np.zeros((2, 3)) + 1, np.full(m.shape, 4.0) * m)


def test_fills_only_read_are_broadcast_values():
    """np.full_like/zeros_like/ones_like and np.full/zeros/ones only read are the value
    broadcast (aten::expand of a 0-d constant: no array filled); a fill written into,
    returned, or read by an op that may give it back stays a new, writeable array, as
    NumPy's."""
    m = RNG.standard_normal((3, 4))
    graph = _check(fills_read_and_kept, X, m)
    fills = [n for n in graph.all_nodes() if n.kind == aten.full_like]
    # (kept, the returned zeros_like, and the int32 fill that a cast to float64 reads: the
    # cast may give its input back)
    assert len(fills) == 3
    assert len([n for n in graph.all_nodes() if n.kind == aten.expand]) == 6
    for out in fusejit.jit(fills_read_and_kept)(X, m):
        assert not isinstance(out, np.ndarray) or out.flags.writeable
