"""How many cores other processes leave free: what fused kernels (``fusion/plan.py``) and BLAS
products (``blas.py``) read to choose between one thread and several.

``spare_cores()`` is the cores beyond the caller's own that other processes left idle, measured
from ``/proc/stat`` at most every ``SAMPLE_S`` seconds (cheap between samples): the busy time of
the cores this process may run on, less this process's own CPU time (its threads, Numba's
spinning workers included) and that of the helper processes it waits for (the kernel compile
child, ``count_as_own``), over the time since the last sample. The threads that ran before
fusejit was imported (OpenBLAS's pool, which spins for a while after each product NumPy runs)
count as another process (``_foreign``), but for BLAS products, which run on that pool
(``spare_cores(products=True)``); where a parallel call was far slower than its fastest
while one of them ran, the cores count as busy until the next sample (``slow_parallel_call``).
A cgroup CPU quota lowers the cores counted (``quota_cores``): a process over its quota is
stopped until the next period, which stalls a parallel call as a busy core does. The answer is
a whole number of cores that moves only when a measurement is ``HYSTERESIS`` past the halfway
point (``settle``), so a load near it does not flip kernels between one thread and several from
one sample to the next.
Where ``/proc/stat`` is missing the answer is 0 (busy). ``$FUSEJIT_FREE_CORES`` or
``assume_free_cores`` put a value in place of the measurement (tests pin 0, so that no code
path depends on the machine's load).

Why the helpers count as this process's own: after ``FUSEJIT_COMPILE_IN_PROCESS`` kernels a
child compiles each new kernel while this process waits, a core-second or more per kernel. As
another process's load, that made the next samples busy, so a full ``benchmarks/ops.py`` run
went from two threads to one core after its 32nd kernel. Processes that run beside this one
(the tiering's background compile of the native loop) do take a core, and count as others.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import FusejitError

# How often (seconds) the other processes' use of the cores is measured.
SAMPLE_S = 0.25


def _affinity() -> set[int]:
    """The cores this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:
        return set(range(os.cpu_count() or 1))


CORES = _affinity()


def _quota(directory: Path) -> float | None:
    """The CPUs the CPU quota of the cgroup at ``directory`` allows (cgroup v2 ``cpu.max``, or
    v1 ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``); None without one."""
    try:
        if (directory / "cpu.max").exists():
            quota, period = (directory / "cpu.max").read_text().split()[:2]
        else:
            quota = (directory / "cpu.cfs_quota_us").read_text().strip()
            period = (directory / "cpu.cfs_period_us").read_text().strip()
        if quota == "max" or int(quota) <= 0 or int(period) <= 0:
            return None
        return int(quota) / int(period)
    except (OSError, ValueError):
        return None


def quota_cores(root: Path = Path("/sys/fs/cgroup"),
                membership: Path = Path("/proc/self/cgroup")) -> float | None:
    """The CPUs this process's cgroups let it use: the lowest CPU quota from its own cgroup up
    to the hierarchy's root (a container sees its own cgroup as the root); None without a
    quota or where cgroups are not mounted."""
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return None
    found = []
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == "":           # cgroup v2 (or v1's hybrid mount, without cpu)
            mount = root if (root / "cgroup.controllers").exists() else root / "unified"
        elif "cpu" in controllers.split(","):
            mount = root / controllers
            if not mount.exists():
                mount = root / "cpu"
        else:
            continue
        directory = mount / path.lstrip("/")
        if mount not in (directory, *directory.parents):
            directory = mount
        while True:
            limit = _quota(directory)
            if limit is not None:
                found.append(limit)
            if directory == mount:
                break
            directory = directory.parent
    return min(found) if found else None


QUOTA = quota_cores()
# The cores this process can keep busy: those it may run on, fewer under a CPU quota.
_usable = [float(len(CORES)) if QUOTA is None else max(1.0, min(len(CORES), QUOTA))]


def quota_threads() -> int:
    """The most threads worth running at once here: the cores this process may run on, fewer
    under a cgroup CPU quota (whole CPUs of it)."""
    return max(1, int(_usable[0]))


def _busy_ticks() -> int | None:
    """Busy clock ticks since boot of the cores this process may run on, from /proc/stat
    (None where it is missing)."""
    try:
        with open("/proc/stat", "rb") as stat:
            lines = stat.read().split(b"\n")
    except OSError:
        return None
    busy = 0
    for line in lines[1:]:
        if not line.startswith(b"cpu"):
            break
        name, *fields = line.split()
        if int(name[3:]) in CORES:
            # user nice system idle iowait irq softirq steal guest guest_nice: idle and iowait
            # are not busy, and guest time is in user and nice already
            ticks = [int(f) for f in fields[:8]]
            busy += sum(ticks) - ticks[3] - ticks[4]
    return busy


_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
# (time of the last sample, busy seconds of this process's cores, this process's CPU seconds)
_sample = [0.0, 0.0, 0.0]
# (the foreign threads' CPU seconds at the last sample; the free cores the last sample found
# for a BLAS product, None: not known)
_foreign_then = [0.0]
_for_products: list[float | None] = [None]
# The helper processes whose CPU time is this process's own (``count_as_own``): pid -> CPU
# seconds as last read; and the seconds of helpers since forgotten.
_helpers: dict[int, float] = {}
_retired = [0.0]


def _stat_fields(pid: int, where: str = "/proc") -> list[bytes] | None:
    """The fields after the name in ``{where}/{pid}/stat`` (the state first), None where it
    cannot be read (gone)."""
    try:
        with open(f"{where}/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _process_seconds(pid: int, where: str = "/proc") -> float | None:
    """CPU seconds (user and system) process ``pid`` has used, from /proc (None: gone); with
    ``where="/proc/self/task"``, thread ``pid`` of this process."""
    fields = _stat_fields(pid, where)
    try:
        return (int(fields[11]) + int(fields[12])) * _TICK_S    # (utime, stime)
    except (TypeError, IndexError, ValueError):
        return None


def _foreign_threads() -> dict[int, float]:
    """The threads of this process other than the calling one (the importing thread: this
    module is imported after NumPy), each with 0.0 CPU seconds seen: OpenBLAS's pool, which
    starts when NumPy loads the library, and whatever else ran before fusejit (a notebook
    kernel's threads)."""
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except (OSError, ValueError):
        return {}
    return {tid: 0.0 for tid in tids if tid != threading.get_native_id()}


# Threads of this process whose CPU time counts as another process's load (``_foreign_threads``):
# tid -> CPU seconds as last read. For a while after each product NumPy runs, OpenBLAS's idle
# threads spin on the other cores: taken as this process's own time, those cores looked free,
# and a parallel kernel's threads waited there for their turn (x.sum() of 10^6 float64 over 2
# threads, each call right after an np.dot: 600 us, where alone it takes 56, and on one thread
# 97). Threads started later (Numba's workers, a caller's) are this process's own.
_foreign = _foreign_threads()


def _own_seconds() -> float:
    """CPU seconds of this process and of its helpers, those forgotten included, less those of
    the foreign threads (``_foreign``)."""
    for pid, seen in list(_helpers.items()):
        _helpers[pid] = max(seen, _process_seconds(pid) or 0.0)
    for tid, seen in list(_foreign.items()):
        _foreign[tid] = max(seen, _process_seconds(tid, "/proc/self/task") or 0.0)
    return time.process_time() + _retired[0] + sum(_helpers.values()) - sum(_foreign.values())


def count_as_own(pid: int) -> None:
    """Count the CPU time of child ``pid`` from now on as this process's own: a helper that
    works while this process waits for it (``fusion/isolated.py``'s compile child)."""
    _helpers[pid] = 0.0


def forget(pid: int) -> None:
    """Stop reading helper ``pid`` (call it before the helper is reaped: its last CPU time is
    read here and kept)."""
    if pid in _helpers:
        seen = max(_helpers.pop(pid), _process_seconds(pid) or 0.0)
        _retired[0] += seen


def free_cores() -> float | None:
    """Of the cores this process may use, how many (beyond one for itself) processes other than
    this one and its helpers left idle since the last call; None at the first call, or where
    /proc/stat is missing. (A measurement, uncached and unsettled: ``spare_cores`` is what
    callers read.)"""
    ticks = _busy_ticks()
    now, own = time.monotonic(), _own_seconds()
    _for_products[0] = None
    if ticks is None:
        return None
    then, busy_then, own_then = _sample
    busy, foreign = ticks * _TICK_S, sum(_foreign.values())
    _sample[:] = [now, busy, own]
    pool, _foreign_then[0] = foreign - _foreign_then[0], foreign
    if then == 0.0 or now - then < 1e-3:
        return None
    others = max(0.0, (busy - busy_then) - (own - own_then)) / (now - then)
    # (a BLAS product runs on OpenBLAS's pool: the pool's own spin, the foreign threads' time
    # on a machine other processes leave idle, waits for the product's work, not against it)
    _for_products[0] = max(0.0, _usable[0] - 1 - max(0.0, others - pool / (now - then)))
    return max(0.0, _usable[0] - 1 - others)


# How far past the halfway point between two whole numbers of free cores a measurement must be
# to move the answer (cores): on a 2-core machine the other core turns busy at 0.7 of it used
# by others, and free again at 0.3.
HYSTERESIS = 0.2


def settle(held: float | None, measured: float | None) -> float | None:
    """The whole number of free cores to act on after ``measured``: ``held`` (the last answer;
    None: none yet) while the measurement is within ``HYSTERESIS`` of its halfway points or
    not known, else the whole number nearest the measurement."""
    if measured is None or held is not None and abs(measured - held) < 0.5 + HYSTERESIS:
        return held
    return float(math.floor(measured + 0.5))


def _after_fork_in_child() -> None:
    """A forked child has its own CPU time from 0 and none of its parent's helpers."""
    _sample[:] = [0.0, 0.0, 0.0]
    _foreign_then[0], _for_products[0] = 0.0, None
    _helpers.clear()
    _foreign.clear()            # (the child has only the thread that forked)
    _retired[0] = 0.0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

# A first sample at import: the first ``spare_cores`` call (a kernel's, after parsing and
# compiling) then measures since the import instead of answering "not known" (busy) for the
# whole first sample period (``benchmarks/ops.py``'s first op ran serially for that).
free_cores()

# The answer (0.0: busy or not known), when it was taken, the last settled measurement (None:
# none yet), and the value taken instead of measuring ([None]: measure; []:
# $FUSEJIT_FREE_CORES not read yet).
_free = [0.0]
_taken = [0.0]
_held: list[float | None] = [None]
# (the same for BLAS products: ``spare_cores(products=True)``)
_free_products = [0.0]
_held_products: list[float | None] = [None]
_assumed: list[float | None] = []


def _env_free_cores() -> float | None:
    """``$FUSEJIT_FREE_CORES`` as a number of free cores (unset or empty: None)."""
    text = os.environ.get("FUSEJIT_FREE_CORES", "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < math.inf:        # (also NaN)
        raise FusejitError(f"FUSEJIT_FREE_CORES must be a finite number of cores >= 0, "
                           f"got {text!r}")
    return value


def assume_free_cores(free: float | None) -> None:
    """From now on take ``free`` cores as free instead of measuring them (None: measure
    again). ``$FUSEJIT_FREE_CORES`` sets the same from the start: for tests and benchmarks
    whose code paths must not depend on the machine's load (0: act as on a busy machine)."""
    _assumed[:] = [None if free is None else float(free)]
    _taken[0] = 0.0


@contextlib.contextmanager
def free_cores_assumed(free: float) -> Iterator[None]:
    """``assume_free_cores(free)`` inside the ``with`` block; the setting before it (assumed,
    measured, or still to be read from ``$FUSEJIT_FREE_CORES``) afterwards."""
    before = list(_assumed)
    assume_free_cores(free)
    try:
        yield
    finally:
        _assumed[:] = before
        _taken[0] = 0.0


def _assumed_count() -> float | None:
    """The count taken instead of measuring (``assume_free_cores``, else
    ``$FUSEJIT_FREE_CORES``, read once), None where the cores are measured."""
    if not _assumed:
        _assumed.append(_env_free_cores())
    return _assumed[0]


def spare_cores(products: bool = False) -> float:
    """The cores beyond the caller's own that other processes left idle, as last measured (at
    most ``SAMPLE_S`` seconds ago) and settled (``settle``); 0.0 when busy or not known. For
    a BLAS product (``products``), OpenBLAS's pool spinning after a product is no load: those
    threads take the product's work. (As a load, NumPy's products run beside fusejit's in one
    process made each of fusejit's big products run on one thread: 1000 x 256 @ 256 x 2000
    float32, 5.3 ms against NumPy's 2.8.)"""
    now = time.monotonic()
    if now - _taken[0] >= SAMPLE_S:
        if _assumed_count() is None:
            _held[0] = settle(_held[0], free_cores())
            _held_products[0] = settle(_held_products[0], _for_products[0])
            _free[0], _free_products[0] = _held[0] or 0.0, _held_products[0] or 0.0
        else:
            _free[0] = _free_products[0] = _assumed[0]
        _taken[0] = now
    return _free_products[0] if products else _free[0]


def _running(tid: int) -> bool:
    """Is thread ``tid`` of this process running (or ready to) now?"""
    fields = _stat_fields(tid, "/proc/self/task")
    return bool(fields) and fields[0] == b"R"


def pool_spinning() -> None:
    """A product just ran on several of OpenBLAS's threads, which spin on their cores for a
    while after it: a kernel's threads would wait there (``slow_parallel_call``), so act as on
    a busy machine for kernels until the next sample, which sees the spin. Products, which the
    spinning threads take, are not held back (``spare_cores(products=True)``). An assumed
    count stands."""
    if _assumed_count() is None:
        spare_cores()               # (a sample due now is taken first, and then overruled)
        _free[0] = 0.0
        _taken[0] = time.monotonic()


def slow_parallel_call() -> None:
    """A parallel call just took far longer than its fastest (``fusion/compiler.SLOW_FACTOR``).
    Where a foreign thread (``_foreign``) is running, it waited for that thread's core (the
    sample, at most every ``SAMPLE_S``, sees OpenBLAS's spin only when it fills most of a
    period): act as on a busy machine until the next sample. Else (page faults, say) nothing
    changes. An assumed count stands."""
    if _assumed_count() is None and any(_running(tid) for tid in _foreign):
        _free[0] = 0.0
        _taken[0] = time.monotonic()


__all__ = ["CORES", "HYSTERESIS", "QUOTA", "SAMPLE_S", "assume_free_cores", "count_as_own",
           "forget", "free_cores", "free_cores_assumed", "pool_spinning", "quota_cores",
           "quota_threads", "settle", "slow_parallel_call", "spare_cores"]
