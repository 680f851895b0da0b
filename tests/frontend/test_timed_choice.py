"""A signature compiled whole near its size limit times the whole form against the interpreter
(``JitFunction._tiered``, ``FUSEJIT_TIMED_CHOICE``): the calls after the compiling one alternate
between the two on arguments of one size, and the slower gives that size up. The clock here is
scripted, so that each test decides what the timing finds; every call's result is NumPy's."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import fusejit

jit_module = importlib.import_module("fusejit.frontend.jit")


def escape_time(c_re, c_im):
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_im)
    count = np.zeros(c_re.shape, dtype=np.int64)
    for _ in range(6):
        inside = z_re * z_re + z_im * z_im <= 4.0
        z_re, z_im = (np.where(inside, z_re * z_re - z_im * z_im + c_re, z_re),
                      np.where(inside, 2.0 * z_re * z_im + c_im, z_im))
        count += inside
    return count


class ScriptedClock:
    """``time`` for jit.py: a timed call of the whole form takes ``whole`` seconds, one of the
    interpreter ``interpreted`` seconds (told apart by what ran between the two readings),
    its first ``warming`` calls ``first`` seconds each."""

    def __init__(self, whole: float, interpreted: float, warming: int = 0, first: float = 0.0):
        self.whole, self.interpreted = whole, interpreted
        self.warming, self.first = warming, first
        self.now, self.readings = 0.0, 0

    def interpreter_call(self) -> None:
        if self.warming:
            self.warming -= 1
            self.advance(self.first)
        else:
            self.advance(self.interpreted)

    def perf_counter(self) -> float:
        self.readings += 1
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _grid(n: int):
    return tuple(np.meshgrid(np.linspace(-2.0, 0.5, n), np.linspace(-1.2, 1.2, n)))


def _jitted(monkeypatch, clock: ScriptedClock, fn=escape_time):
    """``fn`` under ``fusejit.jit`` with timing on, and its interpreter and whole form
    advancing ``clock`` by their scripted seconds on each call (the whole form's only where
    it runs, not where its arguments go to the interpreter)."""
    monkeypatch.setenv("FUSEJIT_TIMED_CHOICE", "1")
    monkeypatch.setattr(jit_module, "time", clock)
    compile_whole = jit_module.compile_element_graph

    def timed_whole(graph, fallback, *limit):
        run = compile_whole(graph, fallback, *limit)

        def timed_run(*args):
            if not run.too_big(args):
                clock.advance(clock.whole)
            return run(*args)
        timed_run.__dict__.update(run.__dict__)    # (what jit and the fast call read)
        return timed_run
    monkeypatch.setattr(jit_module, "compile_element_graph", timed_whole)
    jitted = fusejit.jit(fn)
    real_tiered = jitted._tiered

    def tiered(key, graph, interpreted, whole, *rest):
        class Timed:       # (the interpreter, timed; what jit reads of it passed through)
            def __call__(self, *args):
                clock.interpreter_call()
                return interpreted(*args)

            def __getattr__(self, name):
                return getattr(interpreted, name)
        return real_tiered(key, graph, Timed(), whole, *rest)
    monkeypatch.setattr(jitted, "_tiered", tiered)
    return jitted


def _installed(f):
    (run,) = f._specialised.values()
    return run


@pytest.mark.parametrize("whole, interpreted, keeps_whole", [
    (10.0, 1.0, False),       # the interpreter 10x faster: it takes this size
    (1.0, 10.0, True),        # the whole form faster: it stays
    (1.05, 1.0, True)])       # within the margin: the whole form stays
def test_the_faster_form_runs_the_size_it_was_timed_on(monkeypatch, whole, interpreted,
                                                       keeps_whole):
    clock = ScriptedClock(whole, interpreted)
    f = _jitted(monkeypatch, clock)
    args = _grid(24)                                     # 576 elements: under the limit
    want = escape_time(*args)
    for call in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(*args), want)
        settled = call == 1 + 2 * jit_module.TIMED_CALLS
        assert hasattr(_installed(f), "compiled") == settled, call
    assert clock.readings == 4 * jit_module.TIMED_CALLS      # (two readings a timed call)
    run = _installed(f)
    assert run.made_limit == (jit_module.WHOLE_GRAPH_MAX_ELEMENTS if keeps_whole else 24 * 24 - 1)
    small = _grid(8)                 # smaller arguments run whole either way
    np.testing.assert_array_equal(f(*small), escape_time(*small))
    assert fusejit.runtime.element_function.whole_size(run, small) == 64
    assert (fusejit.runtime.element_function.whole_size(run, args) is not None) == keeps_whole


@pytest.mark.parametrize("whole, interpreted, keeps_whole", [
    (40e-6, 25e-6, False),    # the interpreter faster once warm: it takes this size
    (40e-6, 50e-6, True)])    # ... or slower: the whole form stays
def test_cheap_calls_are_timed_past_their_first_calls(monkeypatch, whole, interpreted,
                                                      keeps_whole):
    """The interpreter's first calls run slower (its straight-line code is built; caches):
    calls of some microseconds are timed until ``TIMED_SECONDS`` or ``MOST_TIMED_CALLS``, and
    each form's fastest call counts (3 calls each kept the slower whole form of a 10^4-word
    parity in 1 of 5 runs)."""
    # (every interpreter call up to the third timed one runs slow: the first, untimed, too)
    clock = ScriptedClock(whole, interpreted, warming=1 + jit_module.TIMED_CALLS, first=200e-6)
    f = _jitted(monkeypatch, clock)
    args = _grid(24)
    want = escape_time(*args)
    calls = 0
    while calls == 0 or not hasattr(_installed(f), "compiled"):
        np.testing.assert_array_equal(f(*args), want)
        calls += 1
        assert calls <= 2 + 2 * jit_module.MOST_TIMED_CALLS
    each = clock.readings // 4       # (two readings a timed call)
    assert calls == 2 + 2 * each and jit_module.TIMED_CALLS < each
    np.testing.assert_array_equal(f(*args), want)
    assert (fusejit.runtime.element_function.whole_size(_installed(f), args) is not None) \
        == keeps_whole


def test_calls_that_keep_changing_size_stop_timing_and_keep_the_whole_form(monkeypatch):
    clock = ScriptedClock(10.0, 1.0)
    f = _jitted(monkeypatch, clock)
    # (the first call interprets, the second compiles; then each size is timed once)
    sizes = [10 + k for k in range(jit_module.MEASURED_CALLS + 3)]
    for n in sizes:
        args = _grid(n)
        np.testing.assert_array_equal(f(*args), escape_time(*args))
    run = _installed(f)
    assert hasattr(run, "compiled") and run.made_limit == jit_module.WHOLE_GRAPH_MAX_ELEMENTS


def test_timing_off_keeps_the_whole_form_from_the_second_call(monkeypatch):
    clock = ScriptedClock(10.0, 1.0)
    f = _jitted(monkeypatch, clock)
    monkeypatch.setenv("FUSEJIT_TIMED_CHOICE", "0")
    args = _grid(24)
    f(*args)
    np.testing.assert_array_equal(f(*args), escape_time(*args))
    assert hasattr(_installed(f), "compiled") and clock.readings == 0


def rolled_difference(x):
    return np.roll(x, 3) - x


@pytest.mark.parametrize("whole, interpreted", [
    (1.0, 10.0),        # the whole form keeps this size
    (10.0, 1.0)])       # the interpreter takes it
def test_sizes_beyond_the_limit_are_timed_where_nothing_fuses(monkeypatch, whole, interpreted):
    clock = ScriptedClock(whole, interpreted)
    f = _jitted(monkeypatch, clock, rolled_difference)
    x = np.linspace(-1.0, 1.0, 6400)     # over the limit, under TIMED_MAX_ELEMENTS
    for _ in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(x), rolled_difference(x))
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    run = _installed(f)
    # (the size the whole form won at: the bound on what its graph makes for x, which counts
    # np.roll's two joined slices as up to twice x's length)
    assert x.size <= run.made_elements(x) <= 2 * x.size
    assert run.made_limit == (run.made_elements(x) if whole < interpreted
                              else jit_module.WHOLE_GRAPH_MAX_ELEMENTS)
    whole_size = fusejit.runtime.element_function.whole_size
    assert (whole_size(run, (x,)) is not None) == (whole < interpreted)
    bigger = np.linspace(-1.0, 1.0, 6401)   # (the interpreter's where the whole form won)
    np.testing.assert_array_equal(f(bigger), rolled_difference(bigger))
    assert whole_size(run, (bigger,)) is None


def test_sizes_beyond_the_limit_keep_it_while_the_interpreters_kernels_compile(monkeypatch):
    """escape_time's plan has kernels: timed while they compile in the background, the
    interpreter would lose sizes it wins once they have; beyond the limit nothing is timed."""
    monkeypatch.setattr(jit_module, "_kernels_ready", lambda interpreted, args: False)
    clock = ScriptedClock(1.0, 10.0)
    f = _jitted(monkeypatch, clock)
    args = _grid(80)                     # 6400 elements
    for _ in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(*args), escape_time(*args))
    assert clock.readings == 0
    assert _installed(f).made_limit == jit_module.WHOLE_GRAPH_MAX_ELEMENTS


@pytest.mark.parametrize("whole, interpreted", [(1.0, 10.0), (10.0, 1.0)])
def test_sizes_beyond_the_limit_are_timed_once_the_interpreters_kernels_run(
        monkeypatch, whole, interpreted):
    """Compiled kernels (no background compile: FUSEJIT_TIERING=0, or compiled already), the
    timing is of what each form runs from then on: the faster keeps the size (an Adler-32
    checksum of 10^4 bytes ran 7.9 us whole, 27 us interpreted, held to the limit before)."""
    clock = ScriptedClock(whole, interpreted)
    f = _jitted(monkeypatch, clock)
    args = _grid(80)                     # 6400 elements
    for _ in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(*args), escape_time(*args))
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    whole_size = fusejit.runtime.element_function.whole_size
    assert (whole_size(_installed(f), args) is not None) == (whole < interpreted)


def test_sizes_beyond_timing_are_not_timed(monkeypatch):
    clock = ScriptedClock(1.0, 10.0)
    f = _jitted(monkeypatch, clock, rolled_difference)
    x = np.linspace(-1.0, 1.0, jit_module.TIMED_MAX_ELEMENTS + 1)
    for _ in range(4):
        np.testing.assert_array_equal(f(x), rolled_difference(x))
    assert clock.readings == 0
    assert _installed(f).made_limit == jit_module.WHOLE_GRAPH_MAX_ELEMENTS


def outer(a, b):
    return np.outer(a, b)


def test_a_graph_without_a_made_bound_is_timed_by_its_arguments(monkeypatch):
    """``np.outer`` of two matrices (each flattened: a reshape to -1 of two long dimensions)
    makes arrays with no ``made_elements`` bound: its size is the biggest argument to its
    growth degree (10 x 10 matrices: 10^4, over the limit)."""
    clock = ScriptedClock(1.0, 10.0)
    f = _jitted(monkeypatch, clock, outer)
    a, b = np.linspace(0.0, 1.0, 100).reshape(10, 10), np.linspace(-1.0, 2.0, 100).reshape(10, 10)
    f(a, b)
    f(a, b)
    whole = _installed(f).whole
    assert whole.made_elements is None
    assert fusejit.runtime.element_function.whole_size(whole, (a, b)) == 100 ** whole.degree
    for _ in range(2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(a, b), outer(a, b))
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    run = _installed(f)
    assert run.made_limit == 100 ** whole.degree and run.max_elements == 100


def ranked(adj, steps):
    p = adj / np.maximum(adj.sum(axis=1), 1.0)[:, None]
    r = np.full(adj.shape[0], 1.0 / adj.shape[0])
    for _ in range(steps):
        r = 0.85 * (r @ p) + 0.15 / adj.shape[0]
    return r


def stepped_big(x, steps):
    for _ in range(steps):
        x = 0.5 * x + 1.0
    return x


@pytest.mark.parametrize("whole, interpreted", [(1.0, 10.0), (10.0, 1.0)])
def test_loops_of_many_steps_on_small_arrays_are_timed_at_any_size(monkeypatch, whole,
                                                                   interpreted):
    """A loop of many steps over small arrays (300-element ranks), its big array made once
    outside it (a 300 x 300 matrix, beyond TIMED_MAX_ELEMENTS): the interpreter pays a node's
    cost at every step, so both forms are timed, kernels compiled or not, and the faster keeps
    the size. A loop whose steps make big arrays is not (its kernels may win once compiled)."""
    monkeypatch.setattr(jit_module, "_kernels_ready", lambda interpreted, args: False)
    clock = ScriptedClock(whole, interpreted)
    f = _jitted(monkeypatch, clock, ranked)
    adj = (np.random.default_rng(3).random((300, 300)) < 0.05).astype(np.float64)
    assert adj.size > jit_module.TIMED_MAX_ELEMENTS
    steps = jit_module.LOOPED_STEPS
    for _ in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_allclose(f(adj, steps), ranked(adj, steps), rtol=1e-12)
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    whole_size = fusejit.runtime.element_function.whole_size
    assert (whole_size(_installed(f), (adj, steps)) is not None) == (whole < interpreted)

    clock = ScriptedClock(1.0, 10.0)
    g = _jitted(monkeypatch, clock, stepped_big)
    x = np.linspace(0.0, 1.0, jit_module.TIMED_MAX_ELEMENTS + 1)
    for _ in range(4):
        np.testing.assert_allclose(g(x, steps), stepped_big(x, steps))
    assert clock.readings == 0


def few_steps_appending(x, steps):
    sums = []
    for _ in range(steps):
        x = 0.5 * x + 1.0
        sums.append(float(x.sum()))
    return x, np.array(sums)


def test_a_few_steps_on_big_arrays_keep_the_limit_where_a_stack_has_no_bound(monkeypatch):
    """A loop of few steps on arrays an argument bounds, which appends numbers to stack after
    it (no bound on the stack): held to the size limit, so big arguments run on the
    interpreter's kernels (set J's 4-step particle update of 1.2 * 10^6 elements ran whole,
    op by op, at 0.42x NumPy, against 12x interpreted); small ones run whole."""
    monkeypatch.setenv("FUSEJIT_TIMED_CHOICE", "0")
    f = fusejit.jit(few_steps_appending)
    big = np.linspace(0.0, 1.0, 1 << 16)
    for _ in range(3):
        got, want = f(big, 3), few_steps_appending(big, 3)
        np.testing.assert_allclose(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1])
    run = _installed(f)
    assert hasattr(run, "compiled") and run.too_big((big, 3))
    assert not run.too_big((big[:100], 3))


def decay_in_runs(x, steps):
    y = x.copy()
    for _ in range(steps):
        y *= 0.999              # (one run: a loop over y's elements, no array made)
        y += 0.001
    return y


@pytest.mark.parametrize("whole, interpreted", [(1.0, 10.0), (10.0, 1.0)])
def test_loops_of_runs_are_timed_at_any_size(monkeypatch, whole, interpreted):
    """A loop whose array work is all runs (``element_runs``) makes no array, but a run is one
    pass on one core: beyond TIMED_MAX_ELEMENTS both forms are timed once the interpreter's
    kernels run, and the faster keeps the size."""
    monkeypatch.setattr(jit_module, "_kernels_ready", lambda interpreted, args: True)
    clock = ScriptedClock(whole, interpreted)
    f = _jitted(monkeypatch, clock, decay_in_runs)
    x = np.linspace(-1.0, 1.0, jit_module.TIMED_MAX_ELEMENTS + 1000)
    for _ in range(2 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(x, 3), decay_in_runs(x, 3))
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    whole_size = fusejit.runtime.element_function.whole_size
    assert (whole_size(_installed(f), (x, 3)) is not None) == (whole < interpreted)


def test_loops_of_runs_run_whole_untimed_while_the_interpreters_kernels_compile(monkeypatch):
    ready = [False]
    monkeypatch.setattr(jit_module, "_kernels_ready", lambda interpreted, args: ready[0])
    clock = ScriptedClock(10.0, 1.0)
    f = _jitted(monkeypatch, clock, decay_in_runs)
    x = np.linspace(-1.0, 1.0, jit_module.TIMED_MAX_ELEMENTS + 1000)
    for _ in range(4):      # (the first interpreted, then the whole form, not timed)
        np.testing.assert_array_equal(f(x, 3), decay_in_runs(x, 3))
    assert clock.readings == 0 and clock.now == clock.interpreted + 3 * clock.whole
    ready[0] = True
    for _ in range(1 + 2 * jit_module.TIMED_CALLS):
        np.testing.assert_array_equal(f(x, 3), decay_in_runs(x, 3))
    assert clock.readings == 4 * jit_module.TIMED_CALLS
    whole_size = fusejit.runtime.element_function.whole_size
    assert whole_size(_installed(f), (x, 3)) is None         # (the interpreter won)
