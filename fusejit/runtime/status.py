"""One line on stderr when fusejit starts a compile that takes seconds, and progress counters;
and, while any Numba compile runs in the process, fewer garbage collections
(``COMPILE_GC_THRESHOLD``).

A Numba ``numba:compile`` event fires only when a function is really compiled (not loaded from
its cache), so a listener on it sees exactly the cold compiles. The slow ones are announced
once: the native interpreter loop (minutes, once per machine and fusejit version) and the first
fused kernel of a process (seconds each, once per machine and input signature); later kernels
advance a counter (``\\r`` on a terminal, nothing otherwise). ``FUSEJIT_QUIET=1`` silences it::

    fusejit: compiling the native interpreter loop: once per machine and fusejit version,
    about 1.5 minutes on 2 idle cores, more on busy ones (cached in ~/.cache/fusejit;
    `python -m fusejit warmup` does it ahead of time)
"""

from __future__ import annotations

import gc
import os
import sys
import time

from numba.core import event

# (module, function) -> (what it is, how long its cold compile takes on 2 cores)
# (measured: 77 s of CPU for the whole `warmup`, 6 min of wall time on a busy 2-core machine)
SLOW = {("fusejit.runtime.native.loop", "run_loop"):
        ("the native interpreter loop", "about 1.5 minutes on 2 idle cores, more on busy ones")}
KERNEL = ("fused kernels", "1-10 s each")


def quiet() -> bool:
    return os.environ.get("FUSEJIT_QUIET", "") not in ("", "0")


def say(line: str) -> None:
    if not quiet():
        print(f"fusejit: {line}", file=sys.stderr, flush=True)


class Progress:
    """``[3/12] what: item`` steps: one line rewritten in place on a terminal, a line each
    otherwise (a log keeps them all)."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.done = total, what, 0
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()

    def step(self, item: str) -> None:
        self.done += 1
        if quiet():
            return
        line = f"[{self.done}/{self.total}] {self.what}: {item}"
        if self.tty:
            print(f"\r{line}\033[K", end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> float:
        """End the line; returns the seconds since the start."""
        seconds = time.perf_counter() - self.start
        if self.tty and not quiet():
            print(file=sys.stderr, flush=True)
        return seconds


# Python's cyclic collector, during a compile: a first generation of this many objects instead
# of CPython's 700. Numba allocates millions of short-lived IR objects per kernel, and each
# collection also walks the older generations in turn: in a process holding a million objects
# (a long session, a test worker) collections were 7% of a 74-op kernel's compile (1.8 of 24.7 s
# of CPU time, 2141 collections). Garbage in cycles still goes, in bigger batches.
COMPILE_GC_THRESHOLD = 100_000


class _CompileListener(event.Listener):
    """Announces the outermost cold compile of a slow fusejit function (callees compiled
    inside it fire nested events, ignored), and collects less often while it runs."""

    def __init__(self):
        self.depth = 0
        self.kernels = 0
        self.thresholds: tuple[int, ...] | None = None

    def on_start(self, ev) -> None:
        self.depth += 1
        if self.depth == 1:
            self.thresholds = gc.get_threshold()
            if 0 < self.thresholds[0] < COMPILE_GC_THRESHOLD:
                gc.set_threshold(COMPILE_GC_THRESHOLD, *self.thresholds[1:])
            self.announce(getattr(ev.data.get("dispatcher"), "py_func", None))

    def on_end(self, ev) -> None:
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0 and self.thresholds is not None:
            # (unless the compile itself changed them)
            if gc.get_threshold()[0] == COMPILE_GC_THRESHOLD:
                gc.set_threshold(*self.thresholds)
            self.thresholds = None

    def announce(self, func) -> None:
        module = getattr(func, "__module__", "") or ""
        name = getattr(func, "__qualname__", "")
        if (module, name) in SLOW:
            what, how_long = SLOW[module, name]
            from .compile_cache import configured_root

            say(f"compiling {what}: once per machine and fusejit version, {how_long} "
                f"(cached in {configured_root()}; `python -m fusejit warmup` does it ahead "
                "of time)")
        elif module.startswith("fusejit_kernels."):
            self.kernels += 1
            if self.kernels == 1:
                say(f"compiling {KERNEL[0]}: once per machine and input signature, "
                    f"{KERNEL[1]}")
            elif sys.stderr.isatty() and not quiet():
                print(f"\rfusejit: compiled fused kernels: {self.kernels - 1}\033[K", end="",
                      file=sys.stderr, flush=True)


LISTENER = _CompileListener()
event.register("numba:compile", LISTENER)
