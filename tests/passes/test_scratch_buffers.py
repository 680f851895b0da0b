"""``forward_scratch_buffers``: ``out=`` buffers read back in the same step become values.

Every program runs through ``fusejit.jit`` three times (the interpreter, then the compiled
forms; small arrays whole, big ones in fused kernels) against NumPy on fresh arguments, and the
pass is asked directly whether it rewrites the program's scripted graph: the programs it must
leave alone are those where a read could see another step's value, a value broadcasts into the
buffer, or the buffer is viewed or returned.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.frontend.jit import argument_ir_type
from fusejit.frontend.script import scripted


def stencil_steps(c0, a, d, steps):
    c = c0.copy()
    tmp = np.empty(c.size - 2, dtype=c.dtype)
    lap = np.empty(c.size - 2, dtype=c.dtype)
    for _ in range(steps):
        np.subtract(c[2:], c[:-2], out=tmp)
        tmp *= -a
        np.add(c[2:], c[:-2], out=lap)
        lap -= 2 * c[1:-1]
        lap *= d
        tmp += lap
        c[1:-1] += tmp
    return c


def rows_through_a_buffer(x, y):
    out = np.empty_like(x)
    buf = np.empty(x.shape[1])
    for i in range(x.shape[0]):
        np.multiply(x[i], 2.0, out=buf)
        if i % 2:
            buf += y[i]
        out[i] = buf * buf
    return out


def wider_buffer(x):
    buf = np.zeros(x.shape, dtype=np.float64)
    np.multiply(x, 3, out=buf)         # a float32 value written into float64
    return buf.sum() + (buf * 0.5).max()


def heun_step(x, v, c, dt, steps):
    a1 = np.empty_like(x)
    xp = np.empty_like(x)
    for _ in range(steps):
        np.multiply(c, v, out=a1)      # two arguments: their shapes checked as it runs
        a1 += x
        np.multiply(v, dt, out=xp)
        xp += x
        x += dt * (a1 + xp)
    return x


def rows_broadcast_into_a_buffer(x, y):
    buf = np.empty((4, x.shape[1]))
    np.multiply(x, y, out=buf)         # (1, n) values into (4, n): NumPy broadcasts
    return buf * 2


def accumulated_across_steps(x, steps):
    acc = np.zeros_like(x)
    for _ in range(steps):
        acc += x                       # reads the step before's value
        np.multiply(acc, 0.5, out=acc)
    return acc


def broadcast_into_a_buffer(row, m):
    buf = np.empty((m, row.shape[0]))
    np.multiply(row, 2.0, out=buf)     # each row of buf: NumPy's broadcast
    return buf.sum(axis=0) + buf[0]


def viewed_buffer(x):
    buf = np.empty_like(x)
    np.add(x, 1.0, out=buf)
    head = buf[:3]
    return head * 2


def returned_buffer(x, y):
    buf = np.empty_like(x)
    np.add(x, y, out=buf)
    return buf, buf + 1


_MADE = {"aten::zeros", "aten::empty", "aten::full", "aten::ones", "aten::zeros_like",
         "aten::empty_like", "aten::full_like", "aten::ones_like"}
_WRITES = {"aten::copy_", "aten::add_", "aten::sub_", "aten::mul_", "aten::div_"}


def _made_buffer(value) -> bool:
    """Is ``value`` an array the function made, whole (through in-place results and a
    loop's variables, not views)?"""
    for _ in range(64):
        node = value.node
        if node.kind in _MADE:
            return True
        if node.kind in _WRITES:
            value = node.inputs[0]
        elif node.kind == "prim::Param" and node.owning_block.owning_node is not None:
            value = node.owning_block.owning_node.inputs[value.offset + 1]
        else:
            return False
    return False


def _writes_into_made_buffers(fn, args) -> int:
    """How many writes and updates of whole arrays the function made its scripted graph
    (``fusejit.jit``'s, after ``forward_scratch_buffers``) still holds."""
    graph, *_ = scripted(fn, [argument_ir_type(f"a{i}", a) for i, a in enumerate(args)],
                         branched=True)
    return sum(1 for node in graph.all_nodes()
               if node.kind in _WRITES and _made_buffer(node.inputs[0]))


def _arguments(fn, n):
    rng = np.random.default_rng(4)
    if fn is stencil_steps:
        return (rng.random(n).astype(np.float32), 0.2, 0.1, 5)
    if fn is rows_through_a_buffer:
        return rng.random((4, n // 4)), rng.random((4, n // 4))
    if fn is wider_buffer:
        return (rng.random(n).astype(np.float32),)
    if fn is heun_step:
        return rng.random(n), rng.random(n), rng.random(n), 0.01, 3
    if fn is accumulated_across_steps:
        return rng.random(n), 3
    if fn is broadcast_into_a_buffer:
        return rng.random(n // 8), 8
    if fn in (viewed_buffer, returned_buffer):
        return rng.random(n), rng.random(n)
    raise AssertionError(fn)


_PROGRAMS = [(stencil_steps, True), (rows_through_a_buffer, True), (wider_buffer, True),
             (heun_step, True),
             (accumulated_across_steps, False), (broadcast_into_a_buffer, False),
             (viewed_buffer, False), (returned_buffer, False)]
# Programs whose runs repeat another's, exhaustive cases (the pass's choice for each is
# test_the_pass_rewrites_or_leaves_every_program's): heun_step's buffers, written from two
# arguments checked as it runs, are stencil_steps' and
# test_a_value_that_broadcasts_into_a_checked_buffer_is_refused_as_it_runs's; a loop's buffer
# the pass leaves runs as returned_buffer's does, a value broadcast into out= as
# tests/frontend/test_numpy_ufuncs.py's.
_RUNS_REPEATED = {heun_step, accumulated_across_steps, broadcast_into_a_buffer}


@pytest.mark.parametrize("fn, forwarded", [
    pytest.param(fn, forwarded, marks=[pytest.mark.exhaustive] * (fn in _RUNS_REPEATED))
    for fn, forwarded in _PROGRAMS])
def test_scratch_buffers_become_values_only_where_every_read_sees_the_step_s_write(
        fn, forwarded):
    """The pass (``fusejit.jit`` runs it when it scripts) rewrites the programs whose buffers
    are written whole and read back in the same step, no write of them left, and leaves the
    others; every call of every program matches NumPy."""
    args = _arguments(fn, 64)
    if fn is viewed_buffer:
        args = args[:1]
    assert (_writes_into_made_buffers(fn, args) == 0) == forwarded
    jitted = fusejit.jit(fn)
    # (both forms where the pass rewrites: whole-graph and fused kernels; the programs it
    # leaves run as before)
    for n in (64, 8000) if forwarded else (64,):
        args = _arguments(fn, n)
        if fn is viewed_buffer:
            args = args[:1]
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        for _ in range(3):
            got = jitted(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert np.asarray(g).dtype == np.asarray(w).dtype
                np.testing.assert_allclose(g, w, rtol=1e-5)


def test_the_pass_rewrites_or_leaves_every_program():
    """The pass's choice alone (scripting compiles nothing), every program of
    test_scratch_buffers_become_values_only_where_every_read_sees_the_step_s_write."""
    for fn, forwarded in _PROGRAMS:
        args = _arguments(fn, 64)
        if fn is viewed_buffer:
            args = args[:1]
        assert (_writes_into_made_buffers(fn, args) == 0) == forwarded, fn.__name__


def test_a_value_that_broadcasts_into_a_checked_buffer_is_refused_as_it_runs():
    """``np.multiply(x, y, out=buf)`` of two arguments whose shapes the graph does not relate
    to ``buf``'s is read back as the value written, with a check of the sizes when it runs:
    (1, n) values broadcast into a (4, n) buffer (NumPy's broadcast) raise a ValueError
    saying so, rather than reading back a (1, n) array."""
    f = fusejit.jit(rows_broadcast_into_a_buffer)
    x, y = np.ones((4, 8)), np.full((4, 8), 2.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, y), rows_broadcast_into_a_buffer(x, y))
    for _ in range(3):
        with pytest.raises(fusejit.FusejitError, match="does not have the array's shape"):
            f(np.ones((1, 8)), np.ones((1, 8)))


def row_updates(a, d, b):
    x = np.empty_like(d)
    x[0] = d[0]
    for i in range(1, d.shape[0]):
        np.multiply(a[i], x[i - 1], out=x[i])     # stored, read back, stored over
        np.subtract(d[i], x[i], out=x[i])
        x[i] /= b[i]
    return x


def store_read_between(a, x, i):
    np.multiply(a, 2.0, out=x[i])
    total = x.sum()                               # reads the first store
    np.add(x[i], 1.0, out=x[i])
    return x, total


def stores_into_two_rows(a, x, i, j):
    np.multiply(a, 2.0, out=x[i])
    np.multiply(a, 3.0, out=x[j])                 # the same row where i == j
    return x[i] * 1.0, x


def aliased_arguments(a, x, y):
    np.multiply(a, 2.0, out=x[0])
    y[0] += 1.0                                   # y may be x
    return x[0] + 0.0


def _views_stored_into(fn, args) -> int:
    graph, *_ = scripted(fn, [argument_ir_type(f"a{i}", a) for i, a in enumerate(args)],
                         branched=True)
    return sum(1 for node in graph.all_nodes() if node.kind == "aten::copy_"
               and node.inputs[0].node.kind in ("aten::select", "aten::slice"))


@pytest.mark.parametrize("n", [16, 6000])
def test_a_view_stored_into_is_read_back_as_the_value_stored(n):
    """``np.multiply(a[i], x[i - 1], out=x[i])``, then ``np.subtract(d[i], x[i], out=x[i])``
    and ``x[i] /= b[i]``: the reads of ``x[i]`` take the value stored, and the two stores
    the next one overwrites unread go (one store a step, was two and an update). Stores
    read in between (``x.sum()``), into a row that may be the same (``x[j]``) or into an
    argument that may be the same array stay; every call of each matches NumPy."""
    rng = np.random.default_rng(8)
    a, d, b = rng.random((3, 4, n // 4)) + 1.0
    args = {row_updates: lambda: (a, d, b),
            store_read_between: lambda: (a[0], d.copy(), 2),
            stores_into_two_rows: lambda: (a[0], d.copy(), 1, 1),
            aliased_arguments: lambda: (a[0], d.copy(), d.copy())}
    assert _views_stored_into(row_updates, args[row_updates]()) == 2   # (x[0] = d[0], x[i])
    for fn, make in args.items():
        jitted = fusejit.jit(fn)
        want = fn(*make())
        for _ in range(3):
            got = jitted(*make())
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(g, w, rtol=1e-12)
    x = d.copy()
    got = fusejit.jit(aliased_arguments)(a[0], x, x)
    np.testing.assert_allclose(got, aliased_arguments(a[0], d.copy(), d.copy()) + 1.0)


def written_after_the_store(a, x):
    t = a * 2.0
    buf = np.empty_like(a)
    np.copyto(buf, t)
    t += 1.0                                      # buf keeps the values before
    np.multiply(a, 3.0, out=x[0])
    a += 1.0                                      # (an argument stored, then written)
    np.copyto(x[1], a)
    a += 1.0
    return buf * 1.0, x[0] * 1.0, x[1] * 1.0


def test_a_value_written_after_its_store_is_not_read_in_its_place():
    """``np.copyto(buf, t)`` then ``t += 1``: ``buf`` keeps the values before, so its reads
    must not become reads of ``t``; nor may a view stored with an argument's values (which a
    later ``a += 1`` changes) be read back as the argument. Every call."""
    jitted = fusejit.jit(written_after_the_store)
    for n in (16, 6000):
        a, x = np.arange(n, dtype=np.float64), np.zeros((2, n))
        want = written_after_the_store(a.copy(), x.copy())
        for _ in range(3):
            for g, w in zip(jitted(a.copy(), x.copy()), want):
                np.testing.assert_array_equal(g, w)


def update_by_itself(a, x):
    np.multiply(x[0], 2.0, out=x[1])
    x[1] += x[1]                                  # reads the store it updates
    np.add(x[1], a, out=x[1])
    return x


def test_an_update_of_a_view_by_itself_reads_what_was_stored():
    """``x[1] += x[1]`` right after a store into ``x[1]``: the update becomes a store of the
    value stored plus itself (the frontend's copy of the operand reads the value stored),
    and the last add's operand ``a``, an argument that may be ``x``, keeps that store. Every
    call matches NumPy."""
    jitted = fusejit.jit(update_by_itself)
    for n in (16, 6000):
        a, x = np.arange(n, dtype=np.float64), np.arange(3.0 * n).reshape(3, n)
        want = update_by_itself(a, x.copy())
        for _ in range(3):
            np.testing.assert_array_equal(jitted(a, x.copy()), want)
