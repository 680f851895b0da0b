"""How many cores other processes leave free: what fused kernels (``fusion/plan.py``) and BLAS
products (``blas.py``) read to choose between one thread and several.

``spare_cores()`` is the cores beyond the caller's own that other processes left idle, measured
from ``/proc/stat`` at most every ``SAMPLE_S`` seconds (cheap between samples): the busy time of
the cores this process may run on, less this process's own CPU time (so that its own spinning
threads do not count as others'), over the time since the last sample. A cgroup CPU quota
lowers the cores counted (``quota_cores``): a process over its quota is stopped until the next
period, which stalls a parallel call as a busy core does. Where ``/proc/stat`` is missing the
answer is 0 (busy). ``$FUSEJIT_FREE_CORES`` or ``assume_free_cores`` put a value in place of
the measurement (tests pin 0, so that no code path depends on the machine's load).
"""

from __future__ import annotations

import contextlib
import math
import os
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
            # user nice system idle iowait irq softirq steal ...: idle and iowait are not busy
            ticks = [int(f) for f in fields]
            busy += sum(ticks) - ticks[3] - ticks[4]
    return busy


_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
# (time of the last sample, busy seconds of this process's cores, this process's CPU seconds)
_sample = [0.0, 0.0, 0.0]


def free_cores() -> float | None:
    """Of the cores this process may use, how many (beyond one for itself) processes other than
    this one left idle since the last call; None at the first call, or where /proc/stat is
    missing. (A measurement, uncached: ``spare_cores`` is what callers read.)"""
    ticks = _busy_ticks()
    now, own = time.monotonic(), time.process_time()
    if ticks is None:
        return None
    then, busy_then, own_then = _sample
    busy = ticks * _TICK_S
    _sample[:] = [now, busy, own]
    if then == 0.0 or now - then < 1e-3:
        return None
    others = max(0.0, (busy - busy_then) - (own - own_then)) / (now - then)
    return max(0.0, _usable[0] - 1 - others)


# A first sample at import: the first ``spare_cores`` call (a kernel's, after parsing and
# compiling) then measures since the import instead of answering "not known" (busy) for the
# whole first sample period (``benchmarks/ops.py``'s first op ran serially for that).
free_cores()

# The last measurement (0.0: busy or not known), when it was taken, and the value taken instead
# of measuring ([None]: measure; []: $FUSEJIT_FREE_CORES not read yet).
_free = [0.0]
_taken = [0.0]
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


def spare_cores() -> float:
    """The cores beyond the caller's own that other processes left idle, as last measured (at
    most ``SAMPLE_S`` seconds ago); 0.0 when busy or not known."""
    now = time.monotonic()
    if now - _taken[0] < SAMPLE_S:
        return _free[0]
    if not _assumed:
        _assumed.append(_env_free_cores())
    free = free_cores() if _assumed[0] is None else _assumed[0]
    _free[0], _taken[0] = free or 0.0, now
    return _free[0]


__all__ = ["CORES", "QUOTA", "SAMPLE_S", "assume_free_cores", "free_cores", "free_cores_assumed",
           "quota_cores", "quota_threads", "spare_cores"]
