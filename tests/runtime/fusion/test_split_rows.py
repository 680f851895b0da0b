"""One long row (a reduction of a whole vector or array) in a row kernel: its parallel kernel
shares the row's blocks among the threads (``rows._split_blocks``), each block's partials kept
and combined in block order, where the group allows (no running sums, arg reductions or per-row
views); against NumPy and the serial kernel, run to run the same bits."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import prim
from fusejit.runtime.fusion import plan as plans
from fusejit.runtime.fusion import row_kernel
from fusejit.runtime.fusion.row_kernel import RowKernel


def dot_ratio(x, y):
    return (x * y).sum() / (x * x).sum()


def centred(x):
    return (x - x.mean()) / np.log1p(np.abs(x)).std()


def extrema(x):
    m = x * 2.0
    return m.max(), m.min()


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def log_sum_exp(x):
    m = x.max()
    return m + np.log(np.exp(x - m).sum())


def int_sums(i):
    return (i * 3 - 1).sum()


def whole_array(a):
    return a - a.mean(), (a * a).sum()


def _group(fn, *args):
    fused = fusejit.compile(fusejit.script(fn), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(*args).nodes() if n.kind == prim.RowReductionGroup]
    return group


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


N = 50_001          # (not a whole number of blocks)
_rng = np.random.default_rng(3)
_x = _rng.standard_normal(N)
_nan = _x.copy()
_nan[N // 3] = np.nan
_zeros = -np.abs(_x)
_zeros[7] = 0.0
_zeros[N - 2] = -0.0
CASES = [
    (dot_ratio, (_x, _rng.standard_normal(N))),
    (dot_ratio, (_x.astype(np.float32), _rng.standard_normal(N).astype(np.float32))),
    (centred, (_x,)),
    (centred, (_x[::3].copy(),)),
    (centred, (_rng.standard_normal(3 * N)[::3],)),        # (strided)
    (extrema, (_x,)),
    (extrema, (_nan,)),
    (extrema, (-_zeros,)),
    (softmax, (_x.astype(np.float32),)),
    (log_sum_exp, (_x * 30,)),
    (int_sums, (_rng.integers(-100, 100, N),)),
    (whole_array, (_rng.standard_normal((301, 203)).astype(np.float32),)),
]


@pytest.fixture
def parallel(monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)


# Cases that repeat a kept one's split: dot_ratio of float32 (softmax's and whole_array's
# kernels split float32 rows), centred of a strided row (the blocks' split does not depend on
# the step; strided reads are the serial kernel's too), and softmax, whose passes (a max, then
# sums of exp) are log_sum_exp's, and whose element output and float32 are whole_array's.
_EXHAUSTIVE = {1, 4, 8}
PARAMS = [pytest.param(*case, id=f"{case[0].__name__}-{k}",
                       marks=[pytest.mark.exhaustive] if k in _EXHAUSTIVE else [])
          for k, case in enumerate(CASES)]


@pytest.mark.parametrize("fn,args", PARAMS)
def test_one_long_row_splits_among_the_threads(fn, args, parallel, monkeypatch):
    group = _group(fn, *args)
    kernel = RowKernel(group)
    plan = kernel._prepare(args)[3]
    assert plan.rows == 1 and plan.split and not plan.serial
    assert "for chunk in prange(nchunks):" in kernel.source(*args)
    got = kernel(*args)
    again = kernel(*args)
    want = _as_tuple(fn(*args))
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 1e30)
    serial = RowKernel(group)
    assert serial._prepare(args)[3].serial
    alone = serial(*args)
    for g, a, s, w in zip(got, again, alone, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.reshape(w.shape).shape == w.shape
        # (run to run the same bits: partials combined in block order)
        assert np.array_equal(g, a, equal_nan=True) and \
            np.array_equal(np.signbit(g), np.signbit(a))
        rtol = 1e-5 if w.dtype == np.float32 else 1e-12
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g.reshape(w.shape), w, rtol=rtol, atol=rtol)
            np.testing.assert_allclose(g, s, rtol=rtol, atol=rtol)
            assert np.array_equal(np.signbit(g), np.signbit(s))
        else:
            assert np.array_equal(g.reshape(w.shape), w) and np.array_equal(g, s)


def test_each_block_is_computed_once(parallel):
    """Every element is read by exactly one block: a sum of ones counts the row, whatever the
    row's length against the blocks and chunks."""
    def count(x):
        return (x * 0.0 + 1.0).sum()

    for n in (row_kernel.SPLIT_MIN, 1024 * 64 + 1, 1024 * 64 * 3 - 5, 1_000_003):
        x = np.ones(n)
        kernel = RowKernel(_group(count, x))
        assert kernel._prepare((x,))[3].split
        assert kernel(x)[0] == n


def scan(x):
    return np.cumsum(x) / x.sum()


def arg(x):
    return np.argmax(x * 2.0)


@pytest.mark.parametrize("fn", [scan, arg])
def test_rows_that_carry_from_block_to_block_are_not_split(fn, parallel):
    """A running sum carries from block to block and an arg reduction keeps its first index:
    one long row of those stays on one thread."""
    x = np.random.default_rng(5).standard_normal(N)
    kernel = RowKernel(_group(fn, x))
    plan = kernel._prepare((x,))[3]
    assert plan.rows == 1 and not plan.split and plan.serial
    (got,) = kernel(x)
    np.testing.assert_allclose(got.reshape(np.shape(fn(x))), fn(x), rtol=1e-12)


def test_short_rows_are_not_split(parallel):
    x = np.ones(row_kernel.SPLIT_MIN - 1)
    plan = RowKernel(_group(dot_ratio, x, x))._prepare((x, x))[3]
    assert not plan.split and plan.serial
