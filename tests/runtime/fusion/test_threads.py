"""The serial/parallel choice by work (elements x estimated cost) and free cores (the
measurement injected: ``cores.assume_free_cores``, fake ``/proc/stat`` readings, fake cgroup
files), ``fusejit.set_num_threads``, ``$FUSEJIT_NUM_THREADS`` and ``$FUSEJIT_FREE_CORES``.
Plans only: no kernel is compiled here."""

from __future__ import annotations

import os
import time

import numba
import numpy as np
import pytest

import fusejit
from fusejit.runtime import blas, cores
from fusejit.runtime.fusion import plan as plans
from fusejit.runtime.fusion.layout import analyse


def _layout(op: str):
    return analyse(fusejit.parse_ir(f"graph(%x : Float(*)):\n  %y : Tensor = aten::{op}(%x)\n"
                                    f"  %z : Tensor = aten::mul(%y, %x)\n  return (%z)\n"))


@pytest.fixture
def restore_threads():
    before, products = numba.get_num_threads(), blas.max_threads()
    saved = list(plans._threads)
    yield
    numba.set_num_threads(before)
    blas.set_max_threads(products)   # (set_num_threads caps BLAS products too)
    plans._threads[:] = saved


def _serial(op: str, n: int) -> bool:
    return plans.make_plan(_layout(op), [(n,)], [(1,)]).serial


def test_cheap_small_is_serial_and_expensive_small_is_not(restore_threads):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    n = 2_000_000
    assert _serial("neg", n)                 # ~1.4 ms of work
    assert not _serial("lgamma", n)          # ~22 ms of work (veclgamma: ~10 ns an element)
    assert not _serial("neg", 1 << 26)


@pytest.mark.parametrize("shape", [(1_000_003,), (3, 700_001), (5, 4099)])
def test_parallel_tiles_are_whole_strips(restore_threads, monkeypatch, shape):
    """A row cut into blocks is cut on strip boundaries (``loops.STRIP``), so a parallel
    kernel's strips are the serial kernel's, and results that depend on a strip (a short form
    computed again whole where one of its elements is outside its domain) do not depend on the
    number of threads; the blocks still cover each row once."""
    from fusejit.runtime.fusion.loops import STRIP

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0.0)
    plan = plans.make_plan(_layout("neg"), [shape], [(1,) * len(shape)])
    n_tiles, cols, block, n_blocks = (int(v) for v in plan.meta[:4])
    assert not plan.serial and n_blocks > 1
    assert block % STRIP == 0 and (n_blocks - 1) * block < cols <= n_blocks * block
    assert n_tiles == n_blocks * (plan.numel // cols)


def test_a_plan_of_no_rows_with_the_thresholds_at_zero(restore_threads, monkeypatch):
    """With every plan taken as parallel work (thresholds set to zero, as tests do), a shape
    with no rows still plans (its blocks were divided by its row count)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0.0)
    plan = plans.make_plan(_layout("neg"), [(5, 0, 3)], [(0, 3, 1)])
    assert plan.numel == 0 and not plan.serial


def test_one_thread_is_always_serial(restore_threads):
    fusejit.set_num_threads(1)
    assert numba.get_num_threads() == 1 and blas.max_threads() == 1
    assert _serial("lgamma", 1 << 24)


@pytest.mark.parametrize("bad", [0, -1, 2.0, "2", True, 10 ** 6])
def test_bad_thread_counts_are_refused(bad, restore_threads):
    with pytest.raises(fusejit.FusejitError, match="set_num_threads"):
        fusejit.set_num_threads(bad)


def test_environment_variable(monkeypatch, restore_threads):
    monkeypatch.setenv("FUSEJIT_NUM_THREADS", "1")
    plans._threads[:] = []
    assert plans.num_threads() == 1 and numba.get_num_threads() == 1
    for bad in ("many", "0", str(numba.config.NUMBA_NUM_THREADS + 1)):
        monkeypatch.setenv("FUSEJIT_NUM_THREADS", bad)
        plans._threads[:] = []
        with pytest.raises(fusejit.FusejitError, match=f"FUSEJIT_NUM_THREADS .*'{bad}'"):
            plans.num_threads()


def test_the_setting_holds_in_every_calling_thread(restore_threads):
    """Numba's count is per thread: a kernel launched from another thread (a Dask worker's)
    ran on all NUMBA_NUM_THREADS, whatever ``set_num_threads`` said. A parallel launch gives
    that thread the setting; a serial one leaves Numba's count alone."""
    import threading

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    plan = plans.make_plan(_layout("lgamma"), [(1 << 24,)], [(1,)])    # (busy rule: parallel)
    seen = []

    def worker():
        numba.set_num_threads(1)            # (not the setting: as a new thread's default is not)
        seen.append(plans.make_plan(_layout("neg"), [(64,)], [(1,)]).launch()[0])
        seen.append(numba.get_num_threads())
        seen.append(plan.launch()[0])
        seen.append(numba.get_num_threads())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [True, 1, False, 2]


@pytest.fixture
def free_cores():
    """Sets the free-core measurement for the test (``cores.assume_free_cores``), restores it."""
    saved = list(cores._assumed)
    yield cores.assume_free_cores
    cores.assume_free_cores(None)
    cores._assumed[:] = saved


def test_free_core_rule_lowers_the_parallel_threshold(restore_threads, free_cores):
    """With the other core free a kernel of FREE_WORK_NS runs in parallel, cut into tiles; busy,
    it stays serial until SERIAL_WORK_NS; tiny kernels and one thread are serial either way."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    layout = _layout("neg")
    n = 2_000_000                            # ~1.4 ms of work: over FREE_WORK_NS, under serial
    plan = plans.make_plan(layout, [(n,)], [(1,)])
    assert plans.FREE_WORK_NS <= plan.work < plans.SERIAL_WORK_NS
    free_cores(1.0)
    serial, meta = plan.launch()
    assert not serial and meta[3] > 1        # (meta[3]: column blocks, a few per thread)
    assert meta[0] * meta[2] >= n            # (the tiles cover the row)
    free_cores(0.3)                          # (less than half a core: busy)
    assert plan.launch() == (True, plan.meta) and plan.meta[3] == 1
    free_cores(1.0)
    assert plans.make_plan(layout, [(1000,)], [(1,)]).launch()[0]
    fusejit.set_num_threads(1)
    assert plans.make_plan(layout, [(n,)], [(1,)]).launch()[0]


def test_free_core_rule_wants_a_core_for_every_thread(restore_threads, free_cores,
                                                      monkeypatch):
    """A kernel of 4 threads takes the low threshold only with 3 cores free (the 4th thread
    would wait for a busy core, the floor the busy rule avoids)."""
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 4)
    free_cores(2.0)
    assert plans.free_work_ns(4) == plans.SERIAL_WORK_NS
    assert plans.free_work_ns(3) == plans.FREE_WORK_NS
    free_cores(3.0)
    assert plans.free_work_ns(4) == plans.FREE_WORK_NS
    assert plans.free_work_ns(1) == plans.SERIAL_WORK_NS


@pytest.fixture
def fake_machine(monkeypatch):
    """A clock, this process's CPU seconds, /proc/stat's busy ticks and helpers' CPU seconds,
    all set by the test; no helper registered, no sample taken."""
    clock = {"now": 100.0, "own": 5.0, "busy": 0, "helpers": {}}

    class FakeTime:
        monotonic = staticmethod(lambda: clock["now"])
        process_time = staticmethod(lambda: clock["own"])

    monkeypatch.setattr(cores, "time", FakeTime)
    monkeypatch.setattr(cores, "_busy_ticks", lambda: clock["busy"])
    monkeypatch.setattr(cores, "_process_seconds",
                        lambda pid, where="/proc": clock["helpers"].get(pid))
    monkeypatch.setattr(cores, "_foreign", {})
    monkeypatch.setattr(cores, "_sample", [0.0, 0.0, 0.0])
    monkeypatch.setattr(cores, "_helpers", {})
    monkeypatch.setattr(cores, "_retired", [0.0])
    monkeypatch.setattr(cores, "_usable", [2.0])

    def run(seconds: float, own: float, others: float, helpers: dict[int, float] | None = None):
        """``seconds`` pass; this process uses ``own`` CPU seconds, other processes ``others``
        and each helper its own (all busy time of the machine's cores)."""
        clock["now"] += seconds
        clock["own"] += own
        helpers = helpers or {}
        for pid, used in helpers.items():
            clock["helpers"][pid] = clock["helpers"].get(pid, 0.0) + used
        clock["busy"] += int(round((own + others + sum(helpers.values())) / cores._TICK_S))
    return run


def test_free_cores_counts_other_processes_and_the_quota(fake_machine, monkeypatch):
    """free = usable cores - 1 - (busy time of the cores less this process's CPU time) / time;
    a cgroup quota lowers the usable cores."""
    for usable, want in ((4.0, 1.0), (2.0, 0.0), (3.5, 0.5)):
        monkeypatch.setattr(cores, "_usable", [usable])
        assert cores.free_cores() is None     # (a first sample, or no time since: nothing)
        fake_machine(1.0, own=0.5, others=2.0)  # (busy 2.5 s in all, 0.5 s this process's)
        assert cores.free_cores() == pytest.approx(want)


def test_a_helper_this_process_waits_for_is_not_another_process(fake_machine):
    """A full ops.py run went serial from its 33rd kernel on a quiet 2-core machine: the compile
    child (``fusion/isolated.py``) burnt a core while this process waited, and counted as another
    process's load. Its CPU time is this process's own, up to when it is forgotten; a process
    that runs beside this one (not registered) still counts as another's."""
    cores.free_cores()
    fake_machine(2.0, own=0.1, others=0.0, helpers={7: 1.9})
    assert cores.free_cores() == pytest.approx(1.0 - 1.9 / 2)       # (not registered)
    cores.count_as_own(7)
    fake_machine(2.0, own=0.1, others=0.0, helpers={7: 1.9})
    assert cores.free_cores() == pytest.approx(1.0)
    fake_machine(0.5, own=0.1, others=0.0, helpers={7: 0.4})
    cores.forget(7)                                  # (read here, before it is reaped)
    fake_machine(0.5, own=0.1, others=0.4)
    assert cores.free_cores() == pytest.approx(1.0 - 0.4 / 1.0)
    assert cores._helpers == {} and cores._retired[0] == pytest.approx(4.2)


def test_settled_free_cores_do_not_flip_near_the_halfway_point(fake_machine, monkeypatch):
    """Others' load around half a core must not flip kernels between one thread and two from
    one sample to the next: the answer moves HYSTERESIS past the halfway point, to a whole
    number, and the first measurement is taken as it is (rounded)."""
    assert cores.settle(None, 0.62) == 1.0 and cores.settle(None, None) is None
    assert cores.settle(1.0, 0.35) == 1.0 and cores.settle(1.0, 0.25) == 0.0
    assert cores.settle(0.0, 0.65) == 0.0 and cores.settle(0.0, 0.75) == 1.0
    assert cores.settle(3.0, 1.2) == 1.0 and cores.settle(1.0, None) == 1.0
    monkeypatch.setattr(cores, "_assumed", [None])
    monkeypatch.setattr(cores, "_held", [None])
    monkeypatch.setattr(cores, "_taken", [0.0])
    cores.free_cores()
    seen = []
    for others in (0.1, 0.45, 0.6, 0.4, 0.65, 0.9, 0.55, 0.35, 0.6, 0.2):
        fake_machine(cores.SAMPLE_S, own=0.2, others=others * cores.SAMPLE_S)
        seen.append(cores.spare_cores())
    assert seen == [1.0] * 5 + [0.0] * 4 + [1.0]
    fake_machine(cores.SAMPLE_S / 2, own=0.0, others=cores.SAMPLE_S)
    assert cores.spare_cores() == 1.0                 # (cached until the next sample is due)


@pytest.mark.parametrize("files,want", [
    ({"cpu.max": "max 100000\n"}, None),
    ({"cpu.max": "150000 100000\n"}, 1.5),
    ({"cpu.max": "max 100000\n", "a/cpu.max": "300000 100000\n",
      "a/b/cpu.max": "400000 100000\n"}, 3.0),           # (the lowest on the path)
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({"cpu/a/b/cpu.cfs_quota_us": "50000\n", "cpu/a/b/cpu.cfs_period_us": "100000\n"}, 0.5),
    ({}, None),
])
def test_cgroup_quota(tmp_path, files, want):
    v2 = "cpu.max" in "".join(files)
    root = tmp_path / "cgroup"
    (root / ("" if v2 else "cpu")).mkdir(parents=True)
    if v2:
        (root / "cgroup.controllers").write_text("cpu memory\n")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    membership = tmp_path / "self_cgroup"
    membership.write_text("0::/a/b\n" if v2 else "4:memory:/x\n1:cpu:/a/b\n0::/\n")
    assert cores.quota_cores(root, membership) == want


def test_quota_caps_the_default_thread_count(monkeypatch, restore_threads):
    monkeypatch.delenv("FUSEJIT_NUM_THREADS", raising=False)
    monkeypatch.setattr(cores, "_usable", [1.0])
    plans._threads[:] = []
    assert plans.num_threads() == 1 and blas.max_threads() == 1


def test_free_cores_environment_variable(monkeypatch, free_cores):
    """``$FUSEJIT_FREE_CORES`` is read at the first measurement; a bad value is an error
    there (each time: nothing is taken from it)."""
    free_cores(None)
    cores._assumed[:] = []
    monkeypatch.setenv("FUSEJIT_FREE_CORES", "1")
    assert cores.spare_cores() == 1.0
    for bad in ("many", "-1", "nan"):
        free_cores(None)
        cores._assumed[:] = []
        monkeypatch.setenv("FUSEJIT_FREE_CORES", bad)
        for _ in range(2):
            with pytest.raises(fusejit.FusejitError, match="FUSEJIT_FREE_CORES"):
                blas.refresh()


def test_a_thread_outside_fusejit_is_another_process(fake_machine, monkeypatch):
    """Threads that ran before fusejit was imported (OpenBLAS's pool, which spins on the other
    cores for a while after each product NumPy runs) load the cores as another process would:
    their CPU time is not this process's own."""
    monkeypatch.setattr(cores, "_foreign", {42: 0.0})
    thread = {"seconds": 0.0}
    monkeypatch.setattr(cores, "_process_seconds", lambda tid, where="/proc": (
        thread["seconds"] if (tid, where) == (42, "/proc/self/task") else None))
    cores.free_cores()
    # (the thread's 0.8 s are in this process's CPU time, and so in the cores' busy time)
    fake_machine(1.0, own=0.9, others=0.0)
    thread["seconds"] = 0.8
    assert cores.free_cores() == pytest.approx(1.0 - 0.8)
    assert cores._foreign == {42: pytest.approx(0.8)}
    fake_machine(1.0, own=0.1, others=0.0)
    thread["seconds"] = 0.0             # (gone: its seconds seen stay counted)
    assert cores.free_cores() == pytest.approx(1.0)


def test_openblas_spinning_is_a_load_to_kernels_but_not_to_products(fake_machine, monkeypatch):
    """OpenBLAS's pool spinning after a product (a foreign thread's CPU time) leaves no core
    free for a kernel's threads, which would wait for it, but is no load to a BLAS product,
    whose work those threads take: ``blas.refresh`` then lets products use both cores. Another
    process's load counts for both."""
    monkeypatch.setattr(cores, "_assumed", [None])
    for name in ("_held", "_held_products"):
        monkeypatch.setattr(cores, name, [None])
    monkeypatch.setattr(cores, "_taken", [0.0])
    monkeypatch.setattr(cores, "_foreign", {42: 0.0})
    monkeypatch.setattr(cores, "_foreign_then", [0.0])
    thread = {"seconds": 0.0}
    monkeypatch.setattr(cores, "_process_seconds", lambda tid, where="/proc": (
        thread["seconds"] if (tid, where) == (42, "/proc/self/task") else None))
    cores.free_cores()
    fake_machine(cores.SAMPLE_S, own=0.2 + 0.2, others=0.0)     # (the pool's 0.2 s included)
    thread["seconds"] += 0.2
    assert (cores.spare_cores(), cores.spare_cores(products=True)) == (0.0, 1.0)
    blas.refresh()
    assert blas._STATE[0] == min(blas._cap[0], 2) and blas._STATE[1] == blas.PARALLEL_WORK_NS
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.0)
    assert (cores.spare_cores(), cores.spare_cores(products=True)) == (1.0, 1.0)
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.25)           # (another process)
    assert (cores.spare_cores(), cores.spare_cores(products=True)) == (0.0, 0.0)
    blas.refresh()
    assert blas._STATE[1] == blas.SERIAL_WORK_NS


def test_after_a_product_on_several_threads_kernels_run_serially_until_the_next_sample(
        fake_machine, monkeypatch):
    """A host product that used several of OpenBLAS's threads leaves them spinning: kernels
    (whose threads would wait for those cores) act as on a busy machine until the next sample;
    products do not. A product on one thread changes nothing."""
    if not blas._SWITCH_THREADS or blas._cap[0] < 2:
        pytest.skip("needs NumPy's OpenBLAS with two threads or more")
    monkeypatch.setattr(cores, "_assumed", [None])
    for name in ("_held", "_held_products"):
        monkeypatch.setattr(cores, name, [None])
    monkeypatch.setattr(cores, "_taken", [0.0])
    monkeypatch.setattr(cores, "_foreign_then", [0.0])
    cores.free_cores()
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.0)
    small = np.ones((4, 4))
    big = np.ones((300, 300))
    np.testing.assert_array_equal(blas.matmul(small, small), small @ small)
    assert (cores.spare_cores(), cores.spare_cores(products=True)) == (1.0, 1.0)
    np.testing.assert_array_equal(blas.matmul(big, big), big @ big)
    assert (cores.spare_cores(), cores.spare_cores(products=True)) == (0.0, 1.0)
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.0)
    assert cores.spare_cores() == 1.0


def test_a_slow_parallel_call_beside_a_running_foreign_thread_counts_the_cores_busy(
        fake_machine, monkeypatch):
    """A parallel call far slower than its fastest, while a thread from outside fusejit runs
    (the sample cannot see OpenBLAS's spin between two products), makes the cores count as
    busy until the next sample; with that thread asleep (the slowness had another cause), or
    a count assumed, nothing changes."""
    monkeypatch.setattr(cores, "_assumed", [None])
    monkeypatch.setattr(cores, "_held", [None])
    monkeypatch.setattr(cores, "_taken", [0.0])
    monkeypatch.setattr(cores, "_foreign", {42: 0.0})
    running = {42: False}
    monkeypatch.setattr(cores, "_running", lambda tid: running[tid])
    cores.free_cores()
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.0)
    assert cores.spare_cores() == 1.0
    cores.slow_parallel_call()
    assert cores.spare_cores() == 1.0
    running[42] = True
    cores.slow_parallel_call()
    assert cores.spare_cores() == 0.0
    fake_machine(cores.SAMPLE_S / 2, own=0.1, others=0.0)
    assert cores.spare_cores() == 0.0              # (until the next sample is due)
    fake_machine(cores.SAMPLE_S, own=0.2, others=0.0)
    assert cores.spare_cores() == 1.0
    monkeypatch.setattr(cores, "_assumed", [1.0])
    cores.slow_parallel_call()
    assert cores.spare_cores() == 1.0


def test_the_running_state_of_a_thread_is_read_from_proc():
    """``_running`` reads the state of this process's threads: the calling thread runs; a
    thread waiting on an event does not; a thread that is gone does not."""
    import threading

    if not os.path.exists("/proc/self/task"):
        pytest.skip("no /proc")
    assert cores._running(threading.get_native_id())
    ready, stop = threading.Event(), threading.Event()
    seen = []

    def waiter():
        seen.append(threading.get_native_id())
        ready.set()
        stop.wait()

    thread = threading.Thread(target=waiter)
    thread.start()
    ready.wait()
    try:
        deadline = time.monotonic() + 5.0
        while cores._running(seen[0]) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not cores._running(seen[0])
    finally:
        stop.set()
        thread.join()
    # (join returns before the thread has left the kernel: its task may run a moment more)
    deadline = time.monotonic() + 5.0
    while cores._running(seen[0]) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not cores._running(seen[0])


def test_a_parallel_call_much_slower_than_its_fastest_is_reported(monkeypatch):
    """``FusedKernel._run`` times each parallel call of a signature against the fastest one:
    SLOW_FACTOR times it and SLOW_S more is reported to ``cores.slow_parallel_call``; serial
    calls are not timed."""
    from fusejit.runtime.fusion import compiler

    class Call:
        entries = [lambda *args: None, lambda *args: None]
        fastest = float("inf")
        variant = type("V", (), {"deferred": False, "guarded": False})()

    reports = []
    monkeypatch.setattr(cores, "slow_parallel_call", lambda: reports.append(1))
    clock = iter([0.0, 1e-3, 1.0, 1.0 + 3e-3, 2.0, 2.0 + 0.2e-3, 3.0, 3.0 + 3.5e-3])
    monkeypatch.setattr(compiler, "perf_counter", lambda: next(clock))
    kernel = object.__new__(compiler.FusedKernel)
    call = Call()
    seen = []
    for _ in range(4):
        before = len(reports)
        kernel._run(call, False, (None,))
        seen.append((call.fastest, len(reports) - before))
    # 1 ms (the fastest), 3 ms (under 3 x 1 ms + 0.1 ms), 0.2 ms (the new fastest), 3.5 ms
    assert seen == [(1e-3, 0), (1e-3, 0), (pytest.approx(0.2e-3), 0), (pytest.approx(0.2e-3), 1)]
    kernel._run(call, True, (None,))        # (serial: no clock read; the iterator is spent)
