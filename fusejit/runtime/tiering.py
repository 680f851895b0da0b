"""Tiered execution: fusion groups start interpreted and plans on the reference loop; kernels
compile, and plans move to the native loop, once they are hot.

Kernels: see ``KERNEL_ASK_SECONDS`` and ``KERNEL_AFTER_SECONDS`` (``executor.GroupOperation``).
A gradient's stages compiled whole: see ``WHOLE_AFTER_SECONDS`` (``autodiff/staged.py``). The
native loop (``engine="auto"``):

Building the native engine costs once per machine (Numba compiling the instruction loop: one to
three minutes on two cores, then cached on disk) and once per process (the ``InterpreterState``
jitclass and loading the cached loop: about half a second). A call that would pay either of those
to save microseconds is a bad trade, so a plan that could run natively (``Plan.engine``) first
runs on the reference loop, which starts at once, and its time there is counted:

    reference time of the plan   native engine             what happens
    < PROMOTE_SECONDS            -                         stay on the reference loop
    >= PROMOTE_SECONDS           built in this process      move to the native loop
                                 compiled on disk           build it here (~0.5 s), then move
                                 not compiled               compile it in a background
                                                           process; stay, ask again later

This is the ski-rental rule: a plan pays at most about twice what running it natively from the
start would have cost, and a function called a few times never pays for the native engine. Once
the native engine is built in a process it costs a plan little to move, so the threshold drops to
``PROMOTE_SECONDS_WARM``.

The background compile (``warm_native`` in a child process, one at a time per cache directory
through a lock file) writes Numba's on-disk cache and exits; ``FUSEJIT_BACKGROUND_COMPILE=0``
turns it off (the plan then stays on the reference loop until something compiles the native
engine, such as ``python -m fusejit warmup`` or a call with ``engine="native"``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# About the per-process cost of building the native engine from a warm disk cache (measured
# 0.5-0.7 s on 2 cores: the jitclass and loading the loop), so that a plan moves only once it
# has spent as long on the reference loop as the move costs.
PROMOTE_SECONDS = 0.5
# Once the engine is built in this process a plan's move costs its native tables and, for a
# plan with kernels, loading their native entries from disk: a few milliseconds.
PROMOTE_SECONDS_WARM = 0.02
# A fusion group runs interpreted (NumPy, op by op) until it has taken this long, then compiles
# its kernel: loading a cached kernel costs 0.05-1 s in a process (the first one initialises
# Numba's CPU target), compiling one 2-10 s, so a function called once on small inputs never
# pays for either, and one on big inputs compiles on its second call.
KERNEL_AFTER_SECONDS = 0.2
# Before that, once a group has taken this long interpreted, it asks for its kernel for the
# inputs it runs: where the disk cache holds it (loading costs milliseconds) it runs the kernel
# from then on; where not, a background process compiles it (``fusion/isolated.py``,
# ``compile_later``) while the group goes on interpreted, and the group takes the kernel once
# it is there, without a pause: a function called many times on 10^4 elements (30-40 us a call
# interpreted, 0.7x NumPy; 3-4x NumPy with its kernels) otherwise ran interpreted for some
# thousands of calls, then stopped seconds for the compile. ``FUSEJIT_BACKGROUND_COMPILE=0``
# leaves only the rule above.
KERNEL_ASK_SECONDS = 0.01
# A group whose interpreted calls take this long (its last one) still waits for its background
# compile once it has taken KERNEL_AFTER_SECONDS, as it would have compiled in the calling
# process then: a few calls of a big array pay for a compile in one pause, where every call
# until it lands would cost far more (a 12-op chain on 2^24 float32: about 400 ms a call
# interpreted, 50 ms from its kernel), and a program timing a few calls after one warm-up call
# times the kernel.
WAIT_CALL_SECONDS = 0.005
# A differentiated function's stages run on the interpreter, per input sizes, until they have
# taken this long there, then compile whole (``autodiff/staged.py``, ``autodiff/whole.py``):
# compiling a pair costs 2-12 s cold (0.2-0.5 s from the disk cache) and saves 0.2-1 ms a call
# on small arrays, so a gradient taken a few times never pays for it, and a training loop
# compiles after its first second of steps (some thousands of them).
WHOLE_AFTER_SECONDS = 1.0
# How long a plan waits between asking again whether a background compile has finished.
RECHECK_SECONDS = 1.0

_lock = threading.Lock()
_built = False          # a native state was built in this process
_on_disk: bool | None = None
_background: subprocess.Popen | None = None


def enabled() -> bool:
    """Tiering is on unless ``FUSEJIT_TIERING=0``: then kernels compile when a plan is built and
    ``engine="auto"`` runs a plan where ``Plan.engine`` says from its first call (the test suite
    does this, so that its fused calls run the kernels and engines they test)."""
    return os.environ.get("FUSEJIT_TIERING", "1") != "0"


def timed_choice() -> bool:
    """Whether a signature compiled whole near its size limit times the whole form against the
    interpreter before keeping one (``frontend/jit.py``, ``JitFunction._tiered``); off with
    ``FUSEJIT_TIMED_CHOICE=0`` (the test suite does this, so that which form runs a call never
    depends on the machine's load; ``tests/frontend/test_timed_choice.py`` turns it on)."""
    return os.environ.get("FUSEJIT_TIMED_CHOICE", "1") != "0"


def background_compiles() -> bool:
    """May fusejit compile in background processes (the native loop, kernels)? Unless
    ``FUSEJIT_BACKGROUND_COMPILE=0`` (the test suite sets it: its calls never wait on one)."""
    return os.environ.get("FUSEJIT_BACKGROUND_COMPILE", "1") != "0"


def mark_built() -> None:
    """The native engine ran in this process (called by the native driver)."""
    global _built
    _built = True


def promote_after() -> float:
    """Reference-loop seconds after which an eligible plan asks to move to the native loop."""
    return PROMOTE_SECONDS_WARM if _built else PROMOTE_SECONDS


def native_ready() -> bool:
    """Can the native loop run here without compiling it first (built in this process, or
    compiled in Numba's disk cache)? Loads the native modules on first use."""
    global _on_disk
    if _built:
        return True
    with _lock:
        if not _on_disk:
            from .interpreter import _load

            _on_disk = _load().compiled_on_disk()
        return _on_disk


def request_native() -> None:
    """The native loop is wanted but not compiled: compile it in a background process (once
    per process; ``FUSEJIT_BACKGROUND_COMPILE=0`` disables it)."""
    global _background
    with _lock:
        if _background is not None or not background_compiles():
            return
        code = "from fusejit.runtime.tiering import warm_native; warm_native()"
        _background = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    from .status import say

    say("compiling the native interpreter in a background process (once per machine, one to "
        "three minutes on two cores); until it is ready, code runs on the reference interpreter")


@contextmanager
def native_compile_lock(wait: bool = True) -> Iterator[bool]:
    """Hold the cache directory's lock on compiling the native loop (``native-compile.lock``),
    so that processes sharing a cache (pytest-xdist workers, Dask workers, a background
    compile) compile it once: the others wait, then load it from disk. Yields False at once,
    holding nothing, when ``wait`` is false and another process holds it; True with no disk
    cache (nothing to share) or where file locks are unavailable."""
    from .fusion.cache import cache_dir

    root = cache_dir()
    try:
        import fcntl
    except ImportError:       # (no flock on this platform: each process compiles for itself)
        fcntl = None
    if root is None or fcntl is None:
        yield True
        return
    with open(root / "native-compile.lock", "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True


def warm_native(wait: bool = False) -> bool:
    """Compile (or load) the native loop, so that it is in the disk cache for every later
    process. One process at a time per cache directory: without ``wait``, returns False at once
    when another holds the lock (with no disk cache at all, it just compiles)."""
    from .native.state import _loop_addresses

    with native_compile_lock(wait) as held:
        if held:
            _loop_addresses(lock_held=True)
        return held
