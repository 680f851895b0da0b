"""Differentiated ``for`` loops stay loops: the forward saves one tuple per iteration, the
backward runs a loop in reverse. Gradients against float64 finite differences (and, for the
LSTM, against the hand-written NumPy backward of ``benchmarks/autodiff.py``'s formulas); the
staged code keeps one ``prim::Loop`` per stage; the per-iteration saved values die with the
backward stage."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import fusejit
from fusejit import ops as F
from fusejit.autodiff.staged import StagedCode
from fusejit.examples import lstm_loop
from fusejit.ir.symbols import prim

from .test_api import assert_grads

RNG = np.random.default_rng(11)


def rnn(x, h, w, u, steps: int):
    for _ in range(steps):
        h = np.tanh(x @ w + h @ u)
    return np.sum(h * h)


def two_carried(x, w, steps: int):
    a, b = x, x * 0.5
    for _ in range(steps):
        a, b = np.sin(a * w) + b, F.sigmoid(a) * w
    return np.sum(a * b)


def nested_loops(x, w):
    h = x
    for _ in range(2):
        for _ in range(3):
            h = np.tanh(h * w) + x
        h = h * 0.5
    return np.sum(h)


def loop_with_if(x, w, steps: int):
    h = x
    for _ in range(steps):
        if np.sum(h) > 0:
            h = np.exp(h * -0.5) * w
        else:
            h = h * w + 1.0
    return np.sum(h)


def _loops_per_stage(staged: StagedCode) -> list[int]:
    kinds = [n.kind for n in staged.graph.nodes()]
    split = next(i for i, k in enumerate(kinds) if k == prim.Store)
    return [kinds[:split].count(prim.Loop), kinds[split:].count(prim.Loop)]


_LOOPS = [("rnn", rnn, [(2, 3), (2, 4), (3, 4), (4, 4)], 5),
          ("two-carried", two_carried, [(2, 3), (3,)], 4),
          ("nested", nested_loops, [(2, 3), (1, 3)], None),
          ("if-inside", loop_with_if, [(2, 3), (2, 3)], 4)]
# Fused, the RNN and the two carried values are exhaustive cases (4 s cold each): the nested
# loops and the loop around an if run fused loops by default, and
# test_lstm_loop_stays_a_loop_in_both_stages a fused loop of products. Unfused, every program.
_FUSED_REPEATS = {"rnn", "two-carried"}


@pytest.mark.parametrize("fn, shapes, steps, fuse", [
    pytest.param(fn, shapes, steps, fuse, id=f"{name}-{fuse}",
                 marks=[pytest.mark.exhaustive] * (fuse and name in _FUSED_REPEATS))
    for fuse in (False, True) for name, fn, shapes, steps in _LOOPS])
def test_loop_gradients_match_finite_differences(fn, shapes, steps, fuse: bool) -> None:
    args = [RNG.standard_normal(s) for s in shapes]
    extra = () if steps is None else (steps,)
    grads = fusejit.grad(fn, argnums=tuple(range(len(args))), fuse=fuse)(*args, *extra)
    assert_grads(lambda *a: fn(*a, *extra), args, grads)


def test_zero_iterations_pass_the_gradient_through() -> None:
    x, h = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4))
    w, u = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    gx, gh, gw, gu = fusejit.grad(rnn, argnums=(0, 1, 2, 3), fuse=False)(x, h, w, u, 0)
    np.testing.assert_array_equal(gh, 2 * h)
    for g in (gx, gw, gu):
        np.testing.assert_array_equal(g, np.zeros_like(g))


def _lstm_args(hidden: int = 8):
    return [RNG.standard_normal((3, 5)), RNG.standard_normal((3, hidden)),
            RNG.standard_normal((3, hidden)), RNG.standard_normal((4 * hidden, 5)) * 0.3,
            RNG.standard_normal((4 * hidden, hidden)) * 0.3,
            RNG.standard_normal(4 * hidden) * 0.1, RNG.standard_normal(4 * hidden) * 0.1]


def lstm_loss(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
    hy, cy = lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh, steps)
    return np.sum(hy * cy)


@pytest.mark.parametrize("fuse", [False, True])
def test_lstm_loop_stays_a_loop_in_both_stages(fuse: bool) -> None:
    args, steps = _lstm_args(), 6
    wrt = tuple(range(7))
    graph = fusejit.jit(lstm_loss).graph
    staged = StagedCode(graph, wrt, [*args, steps], fuse=fuse)
    assert _loops_per_stage(staged) == [1, 1]
    outputs, handle = staged.run_forward(*args, steps)
    grads = staged.run_backward(handle, np.ones(()))
    assert_grads(lambda *a: lstm_loss(*a, steps), args, grads)


def test_saved_iterations_are_freed_after_backward() -> None:
    args, steps = _lstm_args(), 4
    # (the interpreter's staged Code; test_whole_stages checks the compiled stages' list)
    staged = StagedCode(fusejit.jit(lstm_loss).graph, (3, 4), [*args, steps], whole=False)
    _, handle = staged.run_forward(*args, steps)
    per_step = [v for v in handle.saved_values()
                if isinstance(v, list) and all(isinstance(t, tuple) for t in v)]
    assert len(per_step) == 1 and len(per_step[0]) == steps
    held = [a for t in per_step[0] for a in t if isinstance(a, np.ndarray)]
    # (the first iteration's carried values are the arguments h and c: those stay alive)
    refs = [weakref.ref(a) for a in held if not any(a is b for b in args)]
    assert len(refs) >= 4 * steps
    del held
    del per_step
    staged.run_backward(handle, np.ones(()))
    gc.collect()
    assert all(r() is None for r in refs)


def over_rows(x, w):
    acc = w * 0.0
    for r in x:
        acc = np.tanh(acc * w + r)
    return np.sum(acc)


def indexed_by_counter(x, w, n: int):
    acc = w
    for i in range(n):
        acc = acc * x[i] + w
    return np.sum(acc)


@pytest.mark.parametrize("fn, extra", [(over_rows, ()), (indexed_by_counter, (3,))],
                         ids=["rows", "counter"])
def test_trip_count_and_index_read_as_the_loop_runs(fn, extra) -> None:
    args = [RNG.standard_normal((4, 3)), RNG.standard_normal(3)]
    grads = fusejit.grad(fn, argnums=(0, 1))(*args, *extra)
    assert_grads(lambda *a: fn(*a, *extra), args, grads)


def appended(x, w):
    hs = []
    h = w
    for _ in range(3):
        h = np.sin(h * x)
        hs.append(h)
    return np.sum(np.stack(hs))


def test_a_list_grown_by_append_is_differentiated() -> None:
    # each appended state gets its slice of the stacked gradient (autodiff/list_grads.py)
    args = [RNG.standard_normal(3), RNG.standard_normal(3)]
    grads = fusejit.grad(appended, argnums=(0, 1), fuse=False)(*args)
    assert_grads(appended, args, grads)
