"""The race against NumPy (``frontend/race.py``): a settled signature's calls alternate between
its compiled form and the function as written, per size class, and the faster keeps the size.
The clock is scripted here (each side advances it by its seconds), so that each test decides
what the timing finds; the JitFunction tests check that every call's result is NumPy's,
whichever side ran it, and which functions are never raced."""

from __future__ import annotations

import importlib
import types

import numpy as np
import pytest

import fusejit
from fusejit.frontend.race import (
    CLEAR_CALLS,
    CLEAR_SECONDS,
    MAX_SIZES,
    MOST_RACE_CALLS,
    ONE_CALL_SECONDS,
    RACE_AFTER_SECONDS,
    RACE_CALLS,
    RECHECK_SECONDS,
    WARM_CALLS,
    Race,
    reads_mutable_globals,
)

race_module = importlib.import_module("fusejit.frontend.race")


class Clock:
    """``time`` for race.py, advanced by the sides' calls."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class Side:
    """A side of the race: takes ``seconds`` (by argument size, or one for all) a call and
    records its calls."""

    def __init__(self, clock: Clock, seconds, name: str):
        self.clock, self.seconds, self.name = clock, seconds, name
        self.calls = 0

    def __call__(self, x, k):
        self.calls += 1
        seconds = self.seconds(x.size) if callable(self.seconds) else self.seconds
        self.clock.now += seconds
        return self.name, x.size + k


def _race(monkeypatch, form_s, numpy_s, tiered: bool = False):
    clock = Clock()
    monkeypatch.setattr(race_module, "time", clock)
    monkeypatch.setenv("FUSEJIT_TIERING", "1" if tiered else "0")
    form, numpy = Side(clock, form_s, "form"), Side(clock, numpy_s, "numpy")
    done = []
    race = Race(form, numpy, "f(x: float64 1-d, k: int)", (0,), done.append)
    return race, race.runner(2), form, numpy, done, clock


def _raced_to_the_end(run, x, numpy, done, most_numpy_calls: int) -> None:
    """The form's warm calls on ``x``, then calls until the race ends (``done``), NumPy's side
    running at most ``most_numpy_calls`` of them."""
    for _ in range(WARM_CALLS):
        run(x, 0)
    while not done:
        run(x, 0)
        assert numpy.calls <= most_numpy_calls


def test_numpy_takes_a_size_it_wins_and_only_that_size(monkeypatch):
    race, run, form, numpy, done, _ = _race(
        monkeypatch, lambda n: 6e-3 if n < 1000 else 6e-4, 3e-3)
    small, big = np.zeros(600), np.zeros(5000)
    for _ in range(WARM_CALLS):                          # (the form's first calls: untimed)
        assert run(small, 1) == ("form", 601)
    assert numpy.calls == 0
    sides = [run(small, 1)[0] for _ in range(2 * RACE_CALLS)]
    assert sides == ["form", "numpy"] * RACE_CALLS       # (alternating, the form first)
    (result,) = race.results
    assert (result.runs, result.elements) == ("numpy", (512, 1023))
    assert (result.fusejit_s, result.numpy_s) == pytest.approx((6e-3, 3e-3))
    assert "numpy" in str(result) and "6000.0 us" in str(result)
    calls = form.calls
    assert [run(np.zeros(1000), 2)[0] for _ in range(5)] == ["numpy"] * 5   # (same class)
    assert form.calls == calls
    # another size class is raced on its own: the form wins it by 5x (after one call each:
    # NumPy's took 3 ms), NumPy keeps the first
    sides = [run(big, 0)[0] for _ in range(5)]
    assert sides == ["form", "numpy", "form", "form", "form"]
    assert [r.runs for r in race.results] == ["numpy", "fusejit"]
    assert done == []        # (NumPy holds a size: the race stays installed)
    assert run(small, 1)[0] == "numpy"


@pytest.mark.parametrize("numpy_s, calls_each", [
    (ONE_CALL_SECONDS * 1.5, 1),             # costly NumPy calls: fewer are enough
    (CLEAR_SECONDS * 1.5, CLEAR_CALLS),
    (CLEAR_SECONDS / 2, RACE_CALLS)])
def test_a_clear_win_installs_the_form_alone(monkeypatch, numpy_s, calls_each):
    race, run, form, numpy, done, _ = _race(monkeypatch, numpy_s / 4, numpy_s)
    _raced_to_the_end(run, np.zeros(100), numpy, done, calls_each)
    assert numpy.calls == calls_each and done == [form]
    assert race.results[0].runs == "fusejit"


def test_a_close_win_ends_the_race_and_numpys_sizes_keep_it_going(monkeypatch):
    """The form 10% faster: it keeps the size, and the race ends (the form alone, entered by
    the fast call); where NumPy holds a size the race stays for other sizes, up to MAX_SIZES of
    them, and later new sizes run the form untimed."""
    race, run, form, numpy, done, clock = _race(monkeypatch, 0.9e-4, 1e-4)
    _raced_to_the_end(run, np.zeros(3), numpy, done, MOST_RACE_CALLS)
    assert done == [form] and race.results[0].runs == "fusejit"

    race, run, form, numpy, done, clock = _race(
        monkeypatch, lambda n: 2e-4 if n < 4 else 0.9e-4, 1e-4)
    for _ in range(WARM_CALLS):
        run(np.zeros(3), 0)
    for bits in range(2, MAX_SIZES + 4):
        x = np.zeros((1 << bits) - 1)
        for _ in range(2 * MOST_RACE_CALLS):   # (cheap calls: up to MOST_RACE_CALLS each)
            run(x, 0)
    assert done == [] and len(race.results) == MAX_SIZES
    assert [r.runs for r in race.results] == ["numpy"] + ["fusejit"] * (MAX_SIZES - 1)
    calls, before = numpy.calls, clock.now
    assert run(np.zeros(1 << 20), 0)[0] == "form" and numpy.calls == calls
    assert clock.now - before == pytest.approx(0.9e-4)


def test_numpy_wins_a_size_by_more_than_the_dispatch_its_calls_then_take(monkeypatch):
    """A call of a microsecond: NumPy's 0.8 us beats the form's 1.0 by 20%, less than the
    runner and the fast call's general path then add to its calls (DISPATCH_SECONDS)."""
    race, run, form, numpy, done, _ = _race(monkeypatch, 1.0e-6, 0.8e-6)
    _raced_to_the_end(run, np.zeros(10), numpy, done, MOST_RACE_CALLS)
    assert race.results[0].runs == "fusejit"


def test_with_tiering_the_race_waits_for_the_form_and_numpys_sizes_are_raced_again(
        monkeypatch):
    race, run, form, numpy, done, clock = _race(monkeypatch, 2e-3, 1e-3, tiered=True)
    x = np.zeros(100)
    while form.calls * 2e-3 < RACE_AFTER_SECONDS - 1e-9:
        assert run(x, 0)[0] == "form"
    assert numpy.calls == 0
    while not race.results:
        run(x, 0)
    assert race.results[0].runs == "numpy"
    calls = form.calls
    for _ in range(10):
        assert run(x, 0)[0] == "numpy"
    assert form.calls == calls
    # a size the form won runs the form while NumPy's size is due to be raced again
    big = np.zeros(5000)
    form.seconds = lambda n: 1e-4 if n > 1000 else 2e-3
    while len(race.results) < 2:
        run(big, 0)
    clock.now += RECHECK_SECONDS
    calls = numpy.calls
    assert [run(big, 0)[0] for _ in range(8)] == ["form"] * 8 and numpy.calls == calls
    # a background compile landed meanwhile: raced again after RECHECK_SECONDS, the form wins
    form.seconds = 1e-4
    sides = [run(x, 0)[0] for _ in range(2 * RACE_CALLS + 2)]
    assert sides[0] == "form" and sides[-2:] == ["form", "form"]
    assert race.results[0].runs == "fusejit"


# -- through fusejit.jit ------------------------------------------------------------------

def scaled_distances(points, center, *, power=2.0):
    d = np.sqrt(((points - center) ** 2).sum(axis=1))
    return d ** power / d.max(), np.argsort(d)[:3]


WEIGHTS = np.array([1.0, 2.0, 3.0])
SCALE = 2.5
settings = types.ModuleType("settings")
settings.table = np.arange(3.0)


def weighted(x):
    return x * WEIGHTS


def scaled(x):
    return np.sort(x) * SCALE


def _offset(x):
    return x + settings.table


def calls_helper(x):
    return _offset(x) * 2.0


@fusejit.jit
def _weighted(x):
    return x * WEIGHTS


def calls_jitted_helper(x):
    return _weighted(x) + 1.0


def closure_over_array():
    table = np.arange(3.0)

    def f(x):
        return x - table
    return f


@pytest.mark.parametrize("numpy_wins", [True, False])
def test_jitted_calls_give_numpys_results_whichever_side_runs(monkeypatch, numpy_wins):
    """The margin made zero (NumPy always wins) or huge (it never does): every call's results
    are NumPy's, keyword-only parameters reach the function as written by name, and a clear
    win of the form leaves it installed alone, entered by the fast call."""
    monkeypatch.setenv("FUSEJIT_NUMPY_RACE", "1")
    monkeypatch.setattr(race_module, "MARGIN", 0.0 if numpy_wins else 1e9)
    monkeypatch.setattr(race_module, "CLEAR_WIN", 1e9 if numpy_wins else 1e-9)
    f = fusejit.jit(scaled_distances)
    rng = np.random.default_rng(5)
    points, center = rng.standard_normal((50, 3)), rng.standard_normal(3)
    power = np.float32(1.5)     # (a NumPy scalar: the function as written gets it back)
    want = scaled_distances(points, center, power=power)
    calls = 0
    while not f.races:
        got = f(points, center, power=power)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_array_equal(got[1], want[1])
        calls += 1
        assert calls <= 2 + race_module.WARM_CALLS + 2 * race_module.MOST_RACE_CALLS
    for _ in range(3):
        got = f(points, center, power=power)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_array_equal(got[1], want[1])
    (result,) = f.races
    assert result.runs == ("numpy" if numpy_wins else "fusejit")
    assert result.signature == ("scaled_distances(points: float64 2-d, center: float64 1-d, "
                                "power: numpy.float32)")
    (installed,) = f._specialised.values()
    assert hasattr(installed, "race") == numpy_wins
    shown = f._repr_html_()          # (a notebook's display lists the decision)
    assert "Raced against NumPy" in shown and f"{result.elements[1]} elements: {result.runs}" in shown


def test_functions_whose_forms_could_differ_from_numpy_are_not_raced(monkeypatch):
    monkeypatch.setenv("FUSEJIT_NUMPY_RACE", "1")
    x = np.ones(3)
    for fn in (weighted, calls_helper, calls_jitted_helper, closure_over_array()):
        assert reads_mutable_globals(fn), fn
        f = fusejit.jit(fn)
        f(x), f(x)
        assert f._races == {}, fn
    assert not reads_mutable_globals(scaled)       # (a number: scripted, raced)
    f = fusejit.jit(scaled)
    f(x), f(x)          # (compiled whole on its second call: then raced)
    assert len(f._races) == 1
    # an argument the function as written would see otherwise: a list (a tuple here)
    g = fusejit.jit(lambda v, s: np.asarray(v) * s)
    g([1.0, 2.0], 2.0)
    assert g._races == {}
    # a graph of NumPy ufunc calls, which the fast call makes itself on small arrays
    u = fusejit.jit(lambda v: v + 1.0)
    u(x), u(x)
    assert u._races == {} and u._direct
    # and the switches: the variable, and fusejit.jit's option, which overrides it (and
    # travels with the function to another process)
    assert _raced_with(scaled, None) and not _raced_with(scaled, False)
    monkeypatch.setenv("FUSEJIT_NUMPY_RACE", "0")
    assert not _raced_with(scaled, None) and _raced_with(scaled, True)

    def local(x):
        return np.sort(x)
    maker, args = fusejit.jit(local, race=False).__reduce__()
    assert maker(*args).race is False


def _raced_with(fn, race) -> bool:
    f = fusejit.jit(fn, race=race)
    x = np.ones(3)
    f(x), f(x)
    return bool(f._races)
