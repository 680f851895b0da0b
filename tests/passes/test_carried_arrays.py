"""``functionalize_carried_arrays``: the arrays a time-stepping loop made for itself and updates
in place (``+=``, masked stores, arrays updated but never rebound) become values the loop
carries, so that a step is one kernel, with NumPy's values to the bit; arrays someone else can
see (an argument, another name, a view, an update in a branch) keep their in-place updates and
their values; an update that would grow the array, and a mask of the wrong size, still raise."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim
from tests.runtime.conftest import same_arrays

_IN_PLACE = {aten.add_, aten.sub_, aten.mul_, aten.div_, aten.copy_}


def _loop_body(graph):
    [loop] = [n for n in graph.all_nodes() if n.kind == prim.Loop]
    return [n.kind for n in loop.blocks[0].nodes()]


def _in_place(graph) -> list:
    """The in-place updates left, and the groups that write into an array."""
    return [n.kind for n in graph.all_nodes()
            if n.kind in _IN_PLACE or n.has_attribute("written_into")]


def bouncing(y0, vy0, g, r, dt, steps):
    y = y0.copy()
    vy = vy0.copy()
    bounces = np.zeros(y.shape, dtype=np.int64)
    for _ in range(steps):
        vy -= g * dt
        y += vy * dt
        hit = y < 0.0
        y[hit] = -y[hit]
        vy[hit] *= -r
        bounces += hit
    return y, vy, bounces


def walls(x0, vx0, size, dt, steps):
    x = x0.copy()
    vx = vx0.copy()                 # (updated in the loop, never rebound: not carried)
    for _ in range(steps):
        x += vx * dt
        out = (x < 0.0) | (x > size)
        vx[out] *= -1.0
        x = np.clip(x, 0.0, size)
    return x, vx


def lcg(seeds, steps):
    x = seeds.copy()
    acc = np.zeros_like(x)
    for _ in range(steps):
        x = x * 1664525 + 1013904223
        acc ^= x >> 16
    return x, acc


def float32_state(x0, f, steps):
    x = x0.copy()
    for _ in range(steps):
        x += f * 0.01               # (a float64 term: each step rounds into float32)
        x *= np.float32(0.999)
    return x


def collatz(starts):
    n = starts.astype(np.int64)
    steps = np.zeros_like(n)
    active = n > 1
    while active.any():
        x = n[active]               # (its size check first in the body: it stays there)
        n[active] = np.where((x & 1) == 0, x >> 1, 3 * x + 1)
        steps[active] += 1
        active = n > 1
    return steps, n


def relax_cast(a0, b, steps):
    a = a0.astype(np.float32)       # (a new array: a cast to another dtype)
    for _ in range(steps):
        a *= np.float32(0.9)
        a += np.float32(0.1) * b
        a = np.maximum(a, 0)        # (rebound to a new array: carried on)
    return a


def trajectory(x0, v0, dt, steps):
    x = x0.copy()
    v = v0.copy()
    out = np.empty((steps, x.shape[0]))
    for t in range(steps):
        v -= x * dt
        x += v * dt
        out[t] = x                  # (a copy of x into a row: it reads x, writes out)
    return out, x, v


def counted(x0, steps):
    count = np.zeros(x0.shape, dtype=np.int64)
    y = x0.copy()
    for _ in range(steps):
        y = 3.9 * y * (1.0 - y)
        count[y > 0.5] += 1         # (the mask's size check reads a mask the step makes)
    return count, y


def old_name_read(x0, steps):
    y = x0.copy()
    total = np.zeros_like(x0)
    for _ in range(steps):
        a = y
        y += 1.0
        total = total + 0.5 * a     # (a is y: it sees the update)
    return y, total


# (float64: the same step and graph; float32, rounded at every step, the stricter check of
# NumPy's bits)
@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_a_time_step_is_one_kernel_with_numpys_bits(dtype):
    rng = np.random.default_rng(3)
    args = (rng.uniform(0.5, 10.0, 2000).astype(dtype), rng.uniform(-2.0, 5.0, 2000).astype(dtype),
            9.81, 0.85, 0.005, 400)
    jitted = fusejit.jit(bouncing)
    for _ in range(3):              # (the first call interpreted, the next ones compiled)
        for a, b in zip(jitted(*args), bouncing(*args), strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
    graph = jitted.graph_for(*args)
    assert _in_place(graph) == []
    assert _loop_body(graph).count(prim.FusionGroup) == 1


def test_arrays_updated_but_not_rebound_are_carried():
    rng = np.random.default_rng(4)
    args = (rng.uniform(0.0, 1.0, 3000), rng.standard_normal(3000), 1.0, 0.01, 300)
    jitted = fusejit.jit(walls)
    for _ in range(3):
        for a, b in zip(jitted(*args), walls(*args), strict=True):
            np.testing.assert_array_equal(a, b)
    graph = jitted.graph_for(*args)
    assert _in_place(graph) == []
    assert _loop_body(graph).count(prim.FusionGroup) == 1


@pytest.mark.parametrize("fn, make", [
    (lcg, lambda rng: (rng.integers(0, 2**32, 1000, dtype=np.uint64).astype(np.uint32), 50)),
    (float32_state, lambda rng: (rng.standard_normal(1000).astype(np.float32),
                                 rng.standard_normal(1000), 60)),
    (old_name_read, lambda rng: (rng.standard_normal(500), 20)),
    (collatz, lambda rng: (rng.integers(1, 10_000, 300),)),
    # (a masked update by a mask the step makes: bouncing's, in the time step's test)
    pytest.param(counted, lambda rng: (rng.random(500), 40), marks=pytest.mark.exhaustive),
    (trajectory, lambda rng: (rng.standard_normal(400), rng.standard_normal(400), 0.01, 30)),
    (relax_cast, lambda rng: (rng.standard_normal(800), rng.random(800, np.float32), 30)),
])
def test_carried_values_are_numpys(fn, make):
    args = make(np.random.default_rng(5))
    jitted = fusejit.jit(fn)
    expected = fn(*args)
    for _ in range(3):
        same_arrays(jitted(*args), expected)
    left = _in_place(jitted.graph_for(*args))
    assert left == ([aten.copy_] if fn is trajectory else [])    # (the row of out written)


def argument_updated(x, steps):
    for _ in range(steps):
        x += 1.0                    # (the caller's array)
    return x.sum()


def other_name(x0, steps):
    y = x0.copy()
    z = y
    for _ in range(steps):
        y += 1.0
    return z                        # (z is y)


def view_before(x0, steps):
    y = x0.copy()
    v = y[1:]
    for _ in range(steps):
        y *= 2.0
    return v                        # (a view of y: it sees the updates)


def in_a_branch(x0, steps):
    y = x0.copy()
    for i in range(steps):
        if i % 2 == 0:
            y += 1.0
        y *= 0.5
    return y


def appended(x0, steps):
    y = x0.copy()
    hist = []
    for _ in range(steps):
        hist.append(y)              # (the same array each time: it sees every update)
        y += 1.0
    return hist[0], hist[-1]


def copied_from_another(x0, steps):
    x = np.ones_like(x0)
    y = x0.copy()
    for _ in range(steps):
        y = y + x * 0.5
        x[...] = y                  # (a copy of y: x and y stay two arrays)
    x += 1.0
    return x, y


@pytest.mark.parametrize("fn", [argument_updated, other_name, view_before, in_a_branch,
                                appended, copied_from_another])
def test_arrays_others_can_see_keep_their_updates(fn):
    x = np.random.default_rng(6).standard_normal(100)
    jitted = fusejit.jit(fn)
    for _ in range(3):
        mine, theirs = x.copy(), x.copy()
        got, expected = jitted(mine, 5), fn(theirs, 5)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(mine, theirs)       # (the argument, as NumPy leaves it)
    assert _in_place(jitted.graph_for(x.copy(), 5)) != []


def grows(m, steps):
    x = np.zeros(3)
    for _ in range(steps):
        x += m
    return x


def mask_of_another_size(y0, v0, steps):
    y = y0.copy()
    v = v0.copy()
    for _ in range(steps):
        y -= 1.0
        hit = y < 0
        v[hit] *= -1.0
    return y, v


def test_an_update_that_would_grow_the_array_raises():
    jitted = fusejit.jit(grows)
    with pytest.raises(ValueError, match="broadcast"):
        grows(np.ones((2, 3)), 3)
    for _ in range(2):
        with pytest.raises(Exception, match=r"doesn't match the broadcast shape \[2, 3\]"):
            jitted(np.ones((2, 3)), 3)
    np.testing.assert_array_equal(jitted(np.ones(3), 4), grows(np.ones(3), 4))


def test_a_mask_of_another_size_raises_numpys_index_error():
    jitted = fusejit.jit(mask_of_another_size)
    for _ in range(2):
        with pytest.raises(Exception, match="IndexError: boolean index did not match"):
            jitted(np.ones(4), np.ones(5), 3)
    for a, b in zip(jitted(np.ones(4), np.ones(4), 3), mask_of_another_size(np.ones(4),
                                                                           np.ones(4), 3)):
        np.testing.assert_array_equal(a, b)


def rebound_larger(x0, v, m, steps):
    x = x0.copy()
    for _ in range(steps):
        x += v                      # (the array's shape, or NumPy raises)
        x = x + m                   # (rebound: it may broadcast to more rows)
    return x


def test_an_array_rebound_to_a_larger_shape_after_its_updates():
    """After the updates, ``x = x + m`` may grow ``x`` as NumPy does (the check of the
    updates comes right after the last of them, not at the step's end); an update that
    would grow it still raises."""
    jitted = fusejit.jit(rebound_larger)
    rng = np.random.default_rng(7)
    args = (rng.standard_normal((1, 3)), rng.standard_normal((1, 3)),
            rng.standard_normal((2, 3)), 3)
    for _ in range(2):
        np.testing.assert_array_equal(jitted(*args), rebound_larger(*args))
    bad = (rng.standard_normal((1, 3)), rng.standard_normal((2, 3)), args[2], 3)
    with pytest.raises(ValueError):
        rebound_larger(*bad)
    with pytest.raises(Exception, match="doesn't match the broadcast shape"):
        jitted(*bad)
    assert _in_place(jitted.graph_for(*args)) == []


def rebound_before_use(m, steps):
    x = np.zeros(3)
    for _ in range(steps):
        y = x * 2.0
        x += m                      # (its value unused: the error must stay)
        x = y
    return x


def never_read_after(m, steps):
    x = np.zeros(3)
    for _ in range(steps):
        x += m
    return m.sum()


def index_past_the_end(w, steps):
    x = np.zeros(3)
    for i in range(steps):
        x += w[i]
    return w.sum()


def grow_then_write(m, out, steps):
    x = np.zeros(3)
    for _ in range(steps):
        x += m                      # (raises before out is written)
        out += 1.0
    return x


def late_raise(x0, w, steps):
    x = x0.copy()
    for i in range(steps):
        x += w[i]                   # (IndexError at i == 3, before the KeyError)
        if i == 3:
            raise KeyError("late")
    return x


@pytest.mark.parametrize("fn, make, error", [
    (rebound_before_use, lambda: (np.ones((2, 3)), 3), "broadcast shape"),
    (never_read_after, lambda: (np.ones((2, 3)), 3), "broadcast shape"),
    (index_past_the_end, lambda: (np.ones(3), 5), "out of (range|bounds)"),
    (grow_then_write, lambda: (np.ones((2, 3)), np.zeros(4), 3), "broadcast shape"),
    (late_raise, lambda: (np.ones(50), np.ones(3), 5), "out of (range|bounds)"),
])
def test_the_updates_error_comes_first_as_in_numpy(fn, make, error):
    """An update NumPy's loop raises at (an array it would grow, an index past the end) still
    raises, with nothing after it run: its value unused (and so removed), a write after it
    (the caller's ``out`` stays as it was), a raise of the program's own after it."""
    with pytest.raises((ValueError, IndexError)):
        fn(*make())
    jitted = fusejit.jit(fn)
    for _ in range(3):
        args = make()
        with pytest.raises(fusejit.FusejitError, match=error):
            jitted(*args)
        if fn is grow_then_write:
            np.testing.assert_array_equal(args[1], np.zeros(4))


def neighbours(board, steps):
    b = board.copy()
    nb = np.empty(b.shape, dtype=np.uint8)
    alive = np.empty(steps, dtype=np.int64)
    for t in range(steps):
        nb.fill(0)                  # (a buffer reset each step: the counts start at 0)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy or dx:
                    nb += np.roll(np.roll(b, dy, axis=0), dx, axis=1)
        b = (nb == 3) | (b & (nb == 2))
        alive[t] = np.count_nonzero(b)
    return b, alive


def step_sums(x, steps):
    acc = np.zeros_like(x)
    out = np.empty(steps)
    for k in range(steps):
        acc[...] = 0.5              # (acc itself is never read after the loop)
        acc += x * k
        acc *= np.sin(x)
        out[k] = acc.sum()
    return out


def refilled(x, steps):
    acc = np.zeros_like(x)
    for _ in range(steps):
        acc += x
        acc[:] = 2.0                # (the last update a fill: the loop's value a new array)
    return acc


def filled_with_nan(x, steps):
    acc = np.zeros_like(x)
    for _ in range(steps):
        acc.fill(np.nan)
        acc += x
    return acc


def truncated(x, steps):
    acc = np.zeros(x.shape, dtype=np.int64)
    for _ in range(steps):
        acc.fill(2.7)               # (2: a value int64 cannot hold, which stays a fill)
        acc += x
    return acc


def filled_with_the_step(x, steps):
    acc = np.zeros_like(x)
    for t in range(steps):
        acc.fill(t)                 # (not a constant: stays a fill)
        acc += x
    return acc


@pytest.mark.parametrize("fn, make, fills_left", [
    (neighbours, lambda rng: (rng.random((40, 50)) < 0.3, 12), 0),
    (step_sums, lambda rng: (rng.standard_normal(3000), 20), 0),
    (refilled, lambda rng: (rng.standard_normal(300), 4), 0),
    (filled_with_nan, lambda rng: (rng.standard_normal(300), 4), 0),
    (truncated, lambda rng: (rng.integers(0, 9, 300), 4), 1),
    (filled_with_the_step, lambda rng: (rng.standard_normal(300), 4), 1),
])
def test_a_fill_of_a_carried_array_is_a_value(fn, make, fills_left):
    """``x.fill(v)``, ``x[...] = v`` and ``x[:] = v`` of a constant the array's dtype holds
    exactly start the array's values again: the loop carries them (a Game of Life's neighbour
    counts are one kernel a step, with no update left in place), with NumPy's values and
    dtypes at every call, and a fill as the step's last update leaves a new array of its own
    (writeable, not a broadcast view). Other fills stay as they are."""
    args = make(np.random.default_rng(8))
    jitted = fusejit.jit(fn)
    expected = fn(*args)
    for _ in range(3):
        got = jitted(*args)
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        expected if isinstance(expected, tuple) else (expected,), strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            # (step_sums: the sum in the step's one row kernel, in its own order)
            np.testing.assert_allclose(a, b, rtol=1e-13 if fn is step_sums else 0, atol=0)
    if fn is refilled:
        assert got.flags.writeable and got.strides == expected.strides
        got[0] = 7.0
        assert got[1] == 2.0
    graph = jitted.graph_for(*args)
    fills = [n for n in graph.all_nodes() if n.kind == aten.fill_ and n.input(0).type.rank]
    assert len(fills) == fills_left         # (alive[t] = count: a fill of one element)
    if fills_left == 0:
        assert _in_place(graph) == [aten.copy_] * (fn is step_sums)   # (out[k] = ...)


def grows_after_a_fill(m, steps):
    x = np.zeros(3)
    total = 0.0
    for _ in range(steps):
        x.fill(1.0)
        x += m                      # (would broadcast x to m's shape: NumPy raises)
        total += x.sum()
    return total


def negative_into_bytes(x, steps):
    acc = np.zeros(x.shape, dtype=np.uint8)
    for _ in range(steps):
        acc.fill(-1)                # (NumPy raises: -1 is out of bounds for uint8)
        acc += x
    return acc


def test_a_fill_keeps_numpys_errors():
    with pytest.raises(ValueError):
        grows_after_a_fill(np.ones((2, 3)), 2)
    jitted = fusejit.jit(grows_after_a_fill)
    for _ in range(2):
        with pytest.raises(fusejit.FusejitError, match="broadcast shape"):
            jitted(np.ones((2, 3)), 2)
    assert jitted(np.ones(3), 4) == grows_after_a_fill(np.ones(3), 4)
    x = np.ones(5, np.uint8)
    with pytest.raises(OverflowError):
        negative_into_bytes(x, 2)
    jitted = fusejit.jit(negative_into_bytes)
    for _ in range(2):
        with pytest.raises((OverflowError, fusejit.FusejitError), match="out of bounds|-1"):
            jitted(x, 2)
