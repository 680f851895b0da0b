"""NumPy spellings stranger sets P, Q and R (time series, geometry, stencils) found refused,
each against NumPy itself: lists and tuples where NumPy takes an array (``np.diag([1.0, 1.0,
d])``, a ufunc of a list a loop built), a mask followed by ``None`` or ``...`` in an index, a
list's truth in ``if``/``while``, NumPy's window functions, ``ufunc.reduceat`` and
``np.interp`` with a period.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit

from .numpy_programs import assert_same

R = np.random.default_rng(23)


def _check(fn, *args):
    assert_same(fusejit.jit(fn, race=False)(*args), fn(*args))


def reflection_fixed(v, d):
    return np.diag([1.0, 1.0, d]) @ v, np.diag((1, 2, 3)), np.cumsum([d, 2.0, 3.0]), \
        np.sort([3, 1, d])


def logs_of_a_built_list(x, n):
    means = []
    for w in range(2, n):
        means.append(np.mean(x[:w]))
    return np.log(means), np.exp([0.5, 1.0]), np.add([1, 2, 3], x[:3]), \
        np.maximum((0.1, 0.2, 0.3), x[:3])


def test_lists_and_tuples_where_numpy_takes_an_array():
    _check(reflection_fixed, R.standard_normal(3), -1.0)
    _check(logs_of_a_built_list, R.random(20) + 0.1, 8)


def frustum(clip, w):
    inside = (w > 0) & np.all(np.abs(clip[:, :3]) <= w[:, None], axis=1)
    ndc = clip[inside, :3] / w[inside, None]
    return ndc, ndc.mean(axis=0), clip[inside, ..., 1], clip[inside, None, 1:]


def test_a_mask_then_none_or_an_ellipsis_indexes_the_selected_rows():
    _check(frustum, R.standard_normal((60, 4)), R.random(60) + 0.5)


def drained(x, n):
    todo = []
    for i in range(n):
        todo.append(float(x[i]))
    seen = 0
    while todo:                          # (a list a loop built: true while it holds one)
        seen += 1
        todo = todo[1:]
    empty = []
    return seen, (1 if empty else 2), (3 if (1, 2) else 4)


def test_the_truth_of_a_list_is_whether_it_holds_an_item():
    for n in (0, 1, 7):
        _check(drained, R.standard_normal(9), n)


def windows(m, x):
    taps = np.hamming(m)
    return np.hanning(m), taps, np.blackman(m), np.bartlett(m), \
        np.convolve(x, taps / taps.sum(), mode="same")


@pytest.mark.parametrize("m", [1, 2, 5, 32])
def test_window_functions_are_numpys(m):
    _check(windows, m, R.standard_normal(40))


def test_window_functions_of_no_points_are_empty():
    def empty(m):
        return np.hanning(m), np.hamming(m), np.blackman(m), np.bartlett(m)

    for m in (0, -3):
        _check(empty, m)


def segments(x, idx, m):
    return (np.add.reduceat(x, idx), np.maximum.reduceat(x, [0, 3, 3, 7]),
            np.minimum.reduceat(m, idx, axis=1), np.multiply.reduceat(m, (0, 2), axis=0),
            np.add.reduceat(m.astype(np.int32), idx, axis=1))


def test_reduceat_is_numpys():
    """Each segment from one index to the next reduced in order; an index not below the next
    gives its element; the dtype NumPy's gives (int32 stays int32)."""
    x, m = R.standard_normal(10), R.standard_normal((4, 10))
    _check(segments, x, np.array([0, 2, 5, 4, 9]), m)
    with pytest.raises(fusejit.FusejitError, match="out-of-bounds"):
        fusejit.jit(segments, race=False)(x, np.array([0, 12]), m)


def lagged_design(x, n_lags):
    n = x.shape[0]
    cols = [x[n_lags - k - 1: n - k - 1] for k in range(n_lags)]
    design = np.column_stack(cols + [np.ones(n - n_lags)])
    return design, np.linalg.solve(design.T @ design, design.T @ x[n_lags:])


def joined_numbers(n):
    fixed = [1, 2] + [3]
    built = [i * 2 for i in range(n)] + [i for i in range(n)] + [7]
    return len(fixed), len(built), np.array(built), np.array(fixed)


def test_lists_join_with_plus():
    """``cols + [np.ones(n)]`` of a list a loop built: a new list of both lists' items, which
    keeps the arrays' shared type (``np.column_stack`` of it, then a solve, compile)."""
    _check(lagged_design, R.standard_normal(60), 4)
    for n in (0, 3):
        _check(joined_numbers, n)


def grids(h, w, s, a):
    ys, xs = np.mgrid[0:h, 0:w]
    oy, ox = np.ogrid[0:h, 2:w + 2]
    return ys, xs, np.mgrid[1:h:2, 0.5:w], oy, ox, np.mgrid[0:h], np.mgrid[-1.0:1.0:s], \
        np.mgrid[a:3.3:0.3, 0:2], ys * ox


@pytest.mark.parametrize("h, w, s, a", [(4, 5, 0.25, 0.5), (1, 3, 0.5, -1.7), (0, 2, 0.3, 0.1)])
def test_mgrid_and_ogrid_are_numpys(h, w, s, a):
    """np.mgrid and np.ogrid over int and float slices: NumPy's points exactly (i * step +
    start for a grid, np.arange's for one slice), dtypes and shapes; a negative count is
    NumPy's ValueError."""
    _check(grids, h, w, s, a)
    for got, want in zip(fusejit.jit(grids, race=False)(h, w, s, a), grids(h, w, s, a),
                         strict=True):
        np.testing.assert_array_equal(got, want)        # (the same points, bit for bit)
    with pytest.raises(ValueError):
        grids(-1, w, s, a)
    with pytest.raises(fusejit.FusejitError, match="negative dimensions"):
        fusejit.jit(grids, race=False)(-1, w, s, a)


def tile_ids(lon, zoom):
    n = 2 ** zoom                        # (an int, as in Python: it bounds an int clip)
    tx = np.floor((lon + 180.0) / 360.0 * n).astype(np.int64)
    return np.clip(tx, 0, n - 1), n, zoom ** 3, 3 ** 4


def powers_in_a_loop(n):
    total = 0
    for k in range(n):
        total += 2 ** (k % 10) + k ** 3
    return total


def test_an_int_to_an_int_power_is_pythons_int():
    """``2 ** zoom`` of two ints is an int, as in Python (TorchScript's pow of ints is a
    float: the clip above then gave float64 tiles where NumPy's are int64), compiled whole in
    a loop; a negative exponent (Python's float) and a result beyond int64 are errors."""
    _check(tile_ids, np.linspace(-180.0, 179.0, 9), 12)
    got = fusejit.jit(tile_ids, race=False)(np.linspace(-180.0, 179.0, 9), 12)
    assert got[0].dtype == np.int64 and type(got[1]) is int
    jitted = fusejit.jit(powers_in_a_loop, race=False)
    for _ in range(3):
        assert jitted(500) == powers_in_a_loop(500)

    def power(a, b):
        return a ** b

    with pytest.raises(fusejit.FusejitError, match="negative int power is a float"):
        fusejit.jit(power, race=False)(2, -1)
    with pytest.raises(fusejit.FusejitError, match="beyond the 64-bit int range"):
        fusejit.jit(power, race=False)(3, 41)
    assert fusejit.jit(power, race=False)(-3, 3) == -27


def voxel_means(points, size):
    keys = np.floor(points / size).astype(np.int64)
    cells, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    sums = np.zeros((cells.shape[0], points.shape[1]))
    np.add.at(sums, inverse, points)
    columns, first = np.unique(keys, axis=1, return_index=True)
    return cells, sums / counts[:, None], np.unique(keys, axis=0), columns, first, \
        np.unique(points, axis=-1)


def test_unique_along_an_axis_is_numpys():
    """np.unique(x, axis=0): the distinct rows in NumPy's order, with the positions, inverse
    and counts the flags ask for (voxel downsampling, set Q)."""
    _check(voxel_means, R.random((400, 3)), 0.25)

    def beyond(x):
        return np.unique(x, axis=2)

    with pytest.raises(fusejit.ScriptError, match="out of bounds"):
        fusejit.jit(beyond, race=False)(R.random((4, 3)))


def periodic_interp(x, xp, fp, p):
    return (np.interp(x, xp, fp, period=p), np.interp(x, xp, fp, period=360),
            np.interp(x.astype(np.float32), xp, fp, left=-5, right=7, period=-360.0),
            np.interp(3.5, xp, fp, period=p))


def period_from_the_grid(x, xp, fp):
    length = x[-1] - x[0] + (x[1] - x[0])           # (a period computed from x: 0-d)
    return np.interp(x * 0.5, xp, fp, period=length)


def test_interp_with_a_period_is_numpys():
    """``np.interp(..., period=p)`` (as set R's Lax-Wendroff advection on a ring writes it): the points
    modulo the period, sorted, each end wrapped to the other; NumPy's ValueError for 0."""
    xp = np.array([190.0, -190.0, 350.0, -350.0, 10.0, -10.0, 100.0])
    fp = np.arange(7.0) ** 2
    x = np.linspace(-720.0, 720.0, 41)
    _check(periodic_interp, x, xp, fp, 360.0)
    _check(periodic_interp, x[::3], xp[:4], fp[:4] * -1.5, 2 * np.pi)
    _check(periodic_interp, x, xp, fp, np.float32(90.0))    # (a NumPy scalar: a 0-d array)
    _check(period_from_the_grid, x, xp, fp)
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        fusejit.jit(periodic_interp, race=False)(x, xp, fp, 0.0)
