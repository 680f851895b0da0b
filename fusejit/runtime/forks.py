"""Fork safety: which kernels a process forked after a parallel kernel ran may still call.

Parallel kernels (``@njit(parallel=True)``) run on Numba's threading layer. The one chosen
here, on Linux with the pip wheels, is ``omp`` over GNU OpenMP (libgomp), which is not
fork-safe: Numba marks a child forked after the parent started its threads, and the child's
next parallel loop prints "Terminating: fork() called from a process already using GNU
OpenMP, this is unsafe." and raises SIGTERM. A fork-start ``multiprocessing.Pool`` then waits
forever for the result of the worker it lost. TBB and Numba's ``workqueue`` layer survive a
fork (Numba's "forksafe" layers on Linux)::

    parent: kernel(x)   (100k elements: parallel, the layer's threads start)
    os.fork()           child: serial_only() is True; every kernel runs its serial entry

``os.register_at_fork`` runs ``_after_fork_in_child`` in the child; callbacks registered
with ``after_fork_in_child`` (the native programs unbinding their kernel slots) run after it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

_serial_only = False
_callbacks: list[Callable[[], None]] = []


def serial_only() -> bool:
    """Must kernels run serially in this process (a child of a fork-unsafe threading layer)?"""
    return _serial_only


def after_fork_in_child(callback: Callable[[], None]) -> None:
    """Call ``callback`` in a forked child once ``serial_only()`` has been decided."""
    _callbacks.append(callback)


def _threads_break_on_fork() -> bool:
    """Did this process start threads of a threading layer that a forked child cannot use?"""
    try:
        from numba.np.ufunc import parallel
    except ImportError:
        return False
    if not getattr(parallel, "_is_initialized", False):
        return False   # no thread started yet: the child starts its own
    layer = parallel.threading_layer()
    if layer in ("tbb", "workqueue"):
        return False
    if layer == "omp":
        try:
            from numba.np.ufunc import omppool
        except ImportError:
            return True
        return getattr(omppool, "openmp_vendor", "GNU") == "GNU"
    return True   # a layer we do not know: serial is always safe


def _after_fork_in_child() -> None:
    global _serial_only
    if not _serial_only:
        _serial_only = _threads_break_on_fork()
    for callback in _callbacks:
        callback()


os.register_at_fork(after_in_child=_after_fork_in_child)

__all__ = ["after_fork_in_child", "serial_only"]
