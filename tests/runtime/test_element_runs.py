"""Runs of pointwise nodes and stores in whole-graph functions (``element_runs``): one loop
over the elements each, against NumPy on every call, where the run's function runs and where
it declines (a broadcast, a target sharing some elements with another array, one array passed
twice), and which loops the tiering then compiles whole (``makes_arrays_in_loops``)."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.runtime.element_function import _ElementWriter, element_source
from fusejit.runtime.element_runs import overlapping, store_runs
from fusejit.runtime.element_support import makes_arrays_in_loops
from tests.runtime.conftest import compiled_whole, same_arrays, scripted


def tridiagonal(a, b, c, d):
    n = b.shape[0]
    cp, dp, x = np.empty_like(b), np.empty_like(b), np.empty_like(b)
    denom = np.empty(b.shape[1], b.dtype)
    np.divide(c[0], b[0], out=cp[0])
    np.divide(d[0], b[0], out=dp[0])
    for i in range(1, n):
        np.multiply(a[i], cp[i - 1], out=denom)
        np.subtract(b[i], denom, out=denom)
        np.divide(c[i], denom, out=cp[i])
        np.multiply(a[i], dp[i - 1], out=dp[i])
        np.subtract(d[i], dp[i], out=dp[i])
        dp[i] /= denom
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        np.multiply(cp[i], x[i + 1], out=x[i])
        np.subtract(dp[i], x[i], out=x[i])
    return x


def ring_average(frames, depth):
    ring = np.zeros((depth, frames.shape[1]), dtype=frames.dtype)
    acc = np.zeros(frames.shape[1], dtype=frames.dtype)
    out = np.empty_like(frames)
    for k in range(frames.shape[0]):
        slot = k % depth
        acc -= ring[slot]
        np.copyto(ring[slot], frames[k])
        acc += ring[slot]
        out[k] = acc
        out[k] *= 0.25
    return out


def window_extremes(x, window):
    n = x.shape[0] - window + 1
    lo, hi = x[:n].copy(), x[:n].copy()
    for k in range(1, window):
        np.minimum(lo, x[k:k + n], out=lo)
        np.maximum(hi, x[k:k + n], out=hi)
    return lo, hi


def grid_relax(u, f, steps):
    # 2-d runs: a weighted update of a grid by a second one, both read whole
    v = u.copy()
    w = np.zeros_like(u)
    for _ in range(steps):
        w[...] = v * 0.5 - f
        v -= w / 3.0
        v[...] = -v + 0.1
    return v, w


def stencil_in_place(u, steps):
    # the target shares some elements with what it reads: the run declines, each step
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u[0] = u[1]
    return u


def rows_of_one_array(x, i, j):
    # x[i] and x[j] are two views, one row where i == j
    y = x.copy()
    for _ in range(2):
        y[i] = y[j] * 2.0 + 1.0
        y[i] -= y[j]
    return y


def broadcast_store(x, row):
    # a (1, n) row stored into (m, n): not the target's shape, so the run declines
    y = np.zeros_like(x)
    for _ in range(2):
        y[...] = row * 2.0 + y
        y -= row
    return y


def ends_and_middle(u, steps):
    # np.gradient's parts, stored into one array by three views of different shapes: three
    # runs (as one, its function would decline every call)
    out = np.empty_like(u)
    for _ in range(steps):
        out[:1] = u[1:2] - u[:1]
        out[1:-1] = (u[2:] - u[:-2]) * 0.5
        out[-1:] = u[-1:] - u[-2:-1]
        u = u + 0.1 * out
    return u, out


def _fresh(args: tuple) -> list:
    """The arguments with each array copied (some programs write theirs)."""
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _programs(rng):
    m, n = 9, 33
    a, c, d = rng.uniform(-1.0, 1.0, (3, m, n))
    b = 2.5 + rng.random((m, n))
    x = rng.standard_normal(200)
    x[[3, 50, 51]] = [np.nan, -0.0, 0.0]
    return [
        (tridiagonal, (a, b, c, d)),
        (tridiagonal, tuple(v.astype(np.float32) for v in (a, b, c, d))),
        (ring_average, ((10 + rng.standard_normal((20, 17))).astype(np.float32), 4)),
        (window_extremes, (x, 5)),
        (window_extremes, (x.astype(np.float32), 7)),
        (grid_relax, (rng.standard_normal((6, 5)), rng.standard_normal((6, 5)), 3)),
        (stencil_in_place, (rng.standard_normal(50), 4)),
        (rows_of_one_array, (rng.standard_normal((4, 6)), 1, 2)),
        (rows_of_one_array, (rng.standard_normal((4, 6)), 2, 2)),
        (broadcast_store, (rng.standard_normal((5, 6)), rng.standard_normal((1, 6)))),
        (ends_and_middle, (rng.standard_normal((12, 5)), 3)),
    ]


@pytest.mark.parametrize("case", [6, 9])
def test_runs_that_decline_leave_numpy_s_values_to_their_nodes(case):
    rng = np.random.default_rng(31)
    fn, args = _programs(rng)[case]
    run = compiled_whole(fn, *args)
    for _ in range(2):          # (a fresh copy each call: some write their arguments)
        with np.errstate(all="ignore"):
            want = fn(*_fresh(args))
        same_arrays(run(*_fresh(args)), want)


# The programs whose runs run (the others decline: a target sharing some elements with what it
# reads, a (1, n) row against (m, n)). (``y[i] -= y[j]`` reads a copy of ``y[j]``, which the
# scripted graph makes: apart from ``y[i]`` even where i == j.)
RUNNING = {0, 1, 2, 3, 4, 5, 7, 8, 10}


# (1 and 4: the float32 copies of 0 and 3, the same runs; 2's runs are float32)
@pytest.mark.parametrize("case", [pytest.param(case, marks=pytest.mark.exhaustive)
                                  if case in (1, 4) else case for case in range(11)])
def test_runs_run_unless_a_shape_or_an_overlap_says_otherwise(monkeypatch, case):
    """With each run's fallback (the nodes one by one) replaced by an error, the programs
    whose runs should run still compute NumPy's values, and the others fail."""
    original = _ElementWriter._run

    def strict(self, run, depth):
        write = self.node

        def node(n, d):
            if n is run.body[0]:
                self.emit(d, "raise ValueError('the run declined')")
            elif n not in run.body:
                write(n, d)

        self.node = node
        try:
            original(self, run, depth)
        finally:
            del self.node

    monkeypatch.setattr(_ElementWriter, "_run", strict)
    fn, args = _programs(np.random.default_rng(31))[case]
    assert "if not _run" in element_source(scripted(fn, *args))
    run = compiled_whole(fn, *args)
    if case in RUNNING:
        same_arrays(run(*_fresh(args)), fn(*_fresh(args)))
    else:
        with pytest.raises(AssertionError, match="fell back"):
            run(*_fresh(args))


def divide_and_extremes(x, y):
    out = np.empty_like(x)
    top = np.empty_like(x)
    for _ in range(1):
        out[...] = x / y
        top[...] = np.maximum(out, -x)
        top -= np.minimum(y, x)
    return out, top


@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                              marks=pytest.mark.exhaustive)])
def test_run_elements_are_numpy_s_at_zeros_nans_and_infinities(dtype):
    """Division by zero gives inf and nan (no ZeroDivisionError); maximum and minimum give
    NumPy's NaN and, of equal zeros, its second operand."""
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.5], dtype)
    x, y = np.meshgrid(special, special)
    x, y = x.ravel().copy(), y.ravel().copy()
    assert "if not _run" in element_source(scripted(divide_and_extremes, x, y))
    run = compiled_whole(divide_and_extremes, x, y)
    with np.errstate(all="ignore"):
        want = divide_and_extremes(x, y)
    got = run(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def float32_weak_numbers(x, s, steps):
    y = np.empty_like(x)
    for _ in range(steps):
        y[...] = x * 0.1 + s
        y *= 3.3
    return y


def test_a_float32_run_computes_in_float32_with_python_numbers_cast_to_it():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(1000).astype(np.float32)
    assert "if not _run" in element_source(scripted(float32_weak_numbers, x, 0.7, 2))
    run = compiled_whole(float32_weak_numbers, x, 0.7, 2)
    got, want = run(x, 0.7, 2), float32_weak_numbers(x, 0.7, 2)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def same_array_twice(x, y):
    for _ in range(2):
        x[...] = y * 2.0 - x
    return x


def test_arguments_that_are_one_array_decline_and_match_numpy():
    rng = np.random.default_rng(8)
    x = rng.standard_normal(40)
    run = compiled_whole(same_array_twice, x, x)
    a, b = x.copy(), x.copy()
    got = run(a, a)
    want = same_array_twice(b, b)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, b)


def test_loops_of_runs_make_no_arrays_unless_a_target_may_share_some_elements():
    rng = np.random.default_rng(2)
    a, b, c, d = rng.random((4, 8, 16))
    assert not makes_arrays_in_loops(scripted(tridiagonal, a, b, c, d))
    assert not makes_arrays_in_loops(scripted(window_extremes, rng.random(100), 5))
    graph = scripted(stencil_in_place, rng.random(100), 3)
    assert makes_arrays_in_loops(graph)
    (loop,) = [n for n in graph.nodes() if n.kind == "prim::Loop"]
    runs = list(store_runs(loop.blocks[0]).values())
    assert runs and all(overlapping(run) for run in runs)
