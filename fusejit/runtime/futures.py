"""Futures and the bounded pool that runs forked graphs (``prim::fork`` / ``aten::wait``).

A ``prim::fork`` node carries its body as a subgraph; running it submits an interpreter for that
subgraph to the fork pool and yields a :class:`Future` at once. ``aten::wait`` reads the value::

    %fut : Future[Tensor] = prim::fork_0(%x)
    %y : Tensor = aten::wait(%fut)

An interpreter that meets ``aten::wait`` on an unfinished future suspends (returns its pool thread)
and is resumed by a continuation when the future completes, as in interpreter.cpp, so pool threads
never block on each other and a small pool cannot deadlock on nested forks. The pool size is
``FUSEJIT_FORK_THREADS`` (default: the CPU count, at least 2, at most 8) or
:func:`set_fork_pool_size`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..errors import FusejitError

_PENDING = object()


class Future:
    """A value computed elsewhere: completed once, with a value or with an error."""

    __slots__ = ("_cond", "_value", "_error", "_callbacks")

    def __init__(self):
        self._cond = threading.Condition()
        self._value: Any = _PENDING
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[], None]] = []

    def completed(self) -> bool:
        return self._value is not _PENDING or self._error is not None

    def mark_completed(self, value: Any) -> None:
        """Complete with ``value`` and run the callbacks (in this thread, as the seed does)."""
        self._complete(value, None)

    def set_error(self, error: BaseException) -> None:
        """Complete with ``error``: :meth:`value` and :meth:`wait` raise it."""
        self._complete(_PENDING, error)

    def _complete(self, value: Any, error: BaseException | None) -> None:
        with self._cond:
            if self.completed():
                raise FusejitError("a Future was completed twice")
            self._value, self._error = value, error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback()

    def add_callback(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` once completed; at once if it already is."""
        with self._cond:
            if not self.completed():
                self._callbacks.append(callback)
                return
        callback()

    @property
    def error(self) -> BaseException | None:
        return self._error

    def value(self) -> Any:
        """The value of a completed future; raises its error, or if it is not completed yet."""
        if self._error is not None:
            raise self._error
        if self._value is _PENDING:
            raise FusejitError("value() of a Future that has not completed")
        return self._value

    def wait(self, timeout: float | None = None) -> Any:
        """Block until completed, then return the value (or raise the error)."""
        with self._cond:
            if not self._cond.wait_for(self.completed, timeout):
                raise FusejitError(f"Future not completed within {timeout} s")
        return self.value()

    def __repr__(self) -> str:
        state = "error" if self._error is not None else "done" if self.completed() else "pending"
        return f"<Future {state}>"


def _default_size() -> int:
    text = os.environ.get("FUSEJIT_FORK_THREADS", "")
    if text.strip():
        try:
            size = int(text)
        except ValueError:
            raise FusejitError(f"FUSEJIT_FORK_THREADS must be an integer, got {text!r}") from None
        if size < 1:
            raise FusejitError(f"FUSEJIT_FORK_THREADS must be at least 1, got {size}")
        return size
    return min(max(os.cpu_count() or 1, 2), 8)


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def set_fork_pool_size(size: int) -> None:
    """Use at most ``size`` threads for forked graphs (tasks already queued still run)."""
    global _pool, _pool_size
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise FusejitError(f"the fork pool needs at least one thread, got {size!r}")
    with _pool_lock:
        old, _pool, _pool_size = _pool, ThreadPoolExecutor(size, "fusejit-fork"), size
    if old is not None:
        old.shutdown(wait=False)


def fork_pool_size() -> int:
    return _pool_size or _default_size()


def submit(task: Callable[[], None]) -> None:
    """Run ``task()`` on the fork pool. The task must not raise (it reports through a Future)."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None:
            _pool_size = _default_size()
            _pool = ThreadPoolExecutor(_pool_size, "fusejit-fork")
        pool = _pool
    pool.submit(task)
