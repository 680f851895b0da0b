"""argmax and argmin in row and column kernels (``rowargs.py``) and the vector searches they
use (``rowsearch.py``), against NumPy: the first NaN wins, then the first of equal maxima
(``-0.0 == 0.0``); ties across blocks and vector steps, +inf beside -inf (whose sum is NaN
with no NaN there), rows longer than a block, bools, and empty inputs (NumPy's error)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import fusejit
from fusejit.ir.symbols import prim
from fusejit.runtime import executor
from fusejit.runtime.fusion import rowsearch as rs
from fusejit.runtime.fusion.rows import EXTREMA_BLOCK, SEARCH_BLOCK


@pytest.fixture
def kernels_only(monkeypatch):
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


@njit(cache=False)
def _searches(a, v):
    return rs.first_max(a), rs.first_min(a), rs.first_equal(a, v), rs.first_nan(a)


@njit(cache=False)
def _int_searches(a, v, b):
    return (rs.first_max(a), rs.first_min(a), rs.first_equal(a, v), rs.first_equal(b, True),
            rs.first_equal(b, False))


def _first(hits: np.ndarray, n: int) -> int:
    found = np.flatnonzero(hits)
    return int(found[0]) if len(found) else n


def _special_rows(rng, n: int) -> list[np.ndarray]:
    rows = []
    for case in range(9):
        x = rng.standard_normal(n).astype(np.float32)
        if case == 1:
            x = np.round(x)
            x[x == 0] = -0.0                        # ties, and zeros of both signs
        elif case == 2:
            x[rng.integers(0, n, 3)] = np.nan        # NaNs anywhere
        elif case == 3:
            x[0] = np.nan
        elif case == 4:
            x[:] = -np.inf
        elif case == 5:
            x[n // 2] = np.inf
            x[n // 3] = -np.inf                      # (a step's sum is NaN with no NaN)
        elif case == 6:
            x[-1] = np.nan
        elif case == 7:
            x[:] = 0.0
            x[n // 2:] = -0.0
        elif case == 8:
            x[:] = 1.0                               # all equal: the first
        rows.append(x)
    return rows


@pytest.mark.parametrize("n", [1, 15, 63, 64, 65, 200, 1000])
def test_searches_match_numpy(n):
    rng = np.random.default_rng(n)
    for x in _special_rows(rng, n):
        v = x[n // 2]
        got = _searches(x, v)
        assert got == (np.argmax(x), np.argmin(x), _first(x == v, n), _first(np.isnan(x), n))
        s = x[::2]                                   # (strided: the plain loops)
        assert _searches(s, v)[:2] == (np.argmax(s), np.argmin(s))
    for lo, hi in ((-2**31, 2**31 - 1), (-2, 2)):
        i = rng.integers(lo, hi, n, dtype=np.int32, endpoint=True)
        v = i[n // 2]
        b = i > hi - 2
        assert _int_searches(i, v, b) == (np.argmax(i), np.argmin(i), _first(i == v, n),
                                          _first(b, n), _first(~b, n))


def args_of_rows(x):
    return np.argmax(x, axis=-1), np.argmin(x * 2 - x, axis=-1)


def args_of_columns(x):
    return np.argmax(x, axis=0), np.argmin(x, axis=0), x.max(axis=0)


FUSED = {f: fusejit.compile(fusejit.script(f), fuse=True, reductions=True)
         for f in (args_of_rows, args_of_columns)}


def _check(fn, x):
    with np.errstate(all="ignore"):
        want = fn(x)
        got = FUSED[fn](x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g, w, equal_nan=True), (g, w)


def test_rows(kernels_only):
    """argmax of the input (one search a row) and argmin of a chain (blocks, the best block
    searched again), in one group (both read x), over rows of special values and rows longer
    than a block with the extreme, a tie or a NaN in a later block."""
    rng = np.random.default_rng(5)
    x = np.stack(_special_rows(rng, 300))
    kinds = [n.kind for n in FUSED[args_of_rows].graph_for(x).nodes() if n.kind != prim.Constant]
    assert kinds == [prim.RowReductionGroup]
    _check(args_of_rows, x)
    long = rng.standard_normal((5, 2 * EXTREMA_BLOCK + 9)).astype(np.float32)
    long[0, EXTREMA_BLOCK + 3] = -50.0
    long[1, [5, EXTREMA_BLOCK + 5]] = 50.0, -50.0
    long[1, [6, EXTREMA_BLOCK + 6]] = -50.0, 50.0      # ties across blocks: the first
    long[2, EXTREMA_BLOCK + 7] = np.nan
    long[3, [1, 2 * EXTREMA_BLOCK + 1]] = np.inf, -np.inf
    long[4] = -np.inf
    _check(args_of_rows, long)


def same_arg_twice(x):
    return np.argmax(x, axis=-1), np.argmax(x, axis=-1, keepdims=True)


def test_one_argmax_read_twice(kernels_only):
    """``np.argmax`` with and without ``keepdims`` of one value share its search: the kernel
    compiles (it named an accumulator argmax has none) and both read its index."""
    rng = np.random.default_rng(6)
    x = np.stack(_special_rows(rng, 300))
    fused = fusejit.compile(fusejit.script(same_arg_twice), fuse=True, reductions=True)
    assert [n.kind for n in fused.graph_for(x).nodes() if n.kind != prim.Constant] == \
        [prim.RowReductionGroup]
    with np.errstate(all="ignore"):
        for got, want in zip(fused(x), same_arg_twice(x)):
            assert got.dtype == want.dtype and np.array_equal(got, want)


def first_of_bools(x, t: float):
    return np.argmax(x > t, axis=-1), np.argmin(x < t, axis=-1)


def test_bool_rows_stop_at_the_first_hit(kernels_only):
    """argmax (argmin) of a bool chain stops at the first block with a True (False): the
    first hit in the first, a later or the last block, none at all (0, as NumPy's)."""
    rng = np.random.default_rng(8)
    x = rng.uniform(0, 1, (6, 3 * SEARCH_BLOCK + 5))
    x[x > 0.5] = 0.0
    x[0, 0] = x[1, SEARCH_BLOCK + 7] = x[2, -1] = x[4, [9, 2 * SEARCH_BLOCK]] = 1.0
    x[5, SEARCH_BLOCK - 1:] = 1.0
    fused = fusejit.compile(fusejit.script(first_of_bools), fuse=True, reductions=True)
    got, want = fused(x, 0.75), first_of_bools(x, 0.75)
    assert [list(g) for g in got] == [list(w) for w in want] == \
        [[0, SEARCH_BLOCK + 7, x.shape[1] - 1, 0, 9, SEARCH_BLOCK - 1]] * 2


def test_columns(kernels_only):
    """Column kernel (per column the best and its row, by selects), and the row kernel a
    Fortran-ordered input takes instead (argmax, argmin and max in one pass: the arg ones
    blocked, their searches over the input's own block; the max's NaN test a sum, here
    NaN where +inf meets -inf): NaN in a later row wins, the first of ties stays."""
    rng = np.random.default_rng(6)
    x = np.round(rng.standard_normal((37, 70)).astype(np.float32))
    x[x == 0] = -0.0
    x[20, 3] = x[30, 4] = np.nan
    x[:, 5] = -np.inf
    x[0, 6] = np.nan
    x[[2, 9], 7] = np.inf, -np.inf
    _check(args_of_columns, x)
    _check(args_of_columns, np.asfortranarray(x))


def test_empty_raises():
    """An empty input runs interpreted, with the op's error (NumPy's raises too)."""
    with pytest.raises(ValueError):
        np.argmax(np.zeros((0, 4), np.float32), axis=0)
    with pytest.raises(fusejit.FusejitError, match="zero-size array"):
        FUSED[args_of_columns](np.zeros((0, 4), np.float32))
