"""Compiling kernels in a child process once this process has compiled many.

Numba never frees compiled code: a kernel compiled in a process keeps about 1.5 MiB (its LLVM
module inside the JIT, its environment, its dispatcher) until the process ends, while one
loaded from the disk cache keeps about 0.2 MiB (measured with ``benchmarks/kernel_memory.py``).
So after ``FUSEJIT_COMPILE_IN_PROCESS`` kernels (default 32) compiled here, each new kernel
function is compiled by a child process, which writes it to the disk cache, and this process
loads it from there. The child serves one request after another (a pickled runtime digest,
cache root, kernel module text, function name and Numba signature in; True, or what went wrong,
out) and is replaced after ``_Child.RECYCLE`` kernels. Without a usable, writable cache root,
when the child fails (warned once), or when fusejit changed on disk since this process
started (the child would cache under another digest), the kernel compiles here as before.

A second child compiles in the background (``compile_later``): under tiering, a fusion group
whose kernel the disk cache lacks asks for it once it is warm and runs interpreted until it is
there (``executor.GroupOperation``), rather than stopping a call for the compile.
"""

from __future__ import annotations

import atexit
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path

try:
    import fcntl
except ImportError:     # (no pipe sizes to set on this platform)
    fcntl = None

from .. import compile_cache as cc
from .. import cores
from ..status import LISTENER, say
from .cache import load_module
from .interleave import compiled

_DEFAULT = 32
_STALE = "its fusejit sources differ from this process's"


def _digest() -> str:
    return cc.runtime_digest()


def in_process_limit() -> int:
    text = os.environ.get("FUSEJIT_COMPILE_IN_PROCESS", "")
    try:
        return max(int(text), 0) if text else _DEFAULT
    except ValueError:
        cc.warn_once("in_process", f"FUSEJIT_COMPILE_IN_PROCESS must be an integer, got "
                     f"{text[:40]!r}; using {_DEFAULT}")
        return _DEFAULT


def _cache_root(dispatcher, sig) -> Path | None:
    """The cache root of a kernel function whose disk cache lacks ``sig`` (None when it holds
    it, or is not a cache fusejit keeps)."""
    root = shared_root(dispatcher)
    return None if root is None or cached(dispatcher, sig) else root


def shared_root(dispatcher) -> Path | None:
    """The cache root through which a child can hand this process ``dispatcher``'s compiled
    code (a cache fusejit keeps, usable and writable), else None."""
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if not isinstance(cache_file, cc.TrustedCacheFile) or cache_file.root is None:
        return None
    if cc.usable_root(cache_file.root) != cache_file.root or not cc.writes_enabled():
        return None              # unusable: nothing to share through it
    return cache_file.root


def cached(dispatcher, sig) -> bool:
    """Is ``dispatcher`` compiled for ``sig``, in this process or in its disk cache?"""
    if sig in dispatcher.overloads:
        return True
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if cache_file is None:
        return False
    key = cache._index_key(sig, dispatcher.targetctx.codegen())
    return key in cache_file._load_index()


def ensure_compiled(text: str, dispatcher, sig) -> None:
    """Before ``dispatcher`` (a function of the kernel module ``text``) first runs for
    ``sig``: have a child compile it into the disk cache if this process has compiled enough
    kernels already and the cache does not hold it."""
    if LISTENER.kernels < in_process_limit() or not cc.writes_enabled():
        return
    try:
        root = _cache_root(dispatcher, sig)
        if root is not None:
            _CHILD.compile(str(root), text, dispatcher.py_func.__name__, sig)
    except Exception:  # noqa: BLE001 - only saves memory: the caller's call compiles here
        pass


class _Child:
    """One child process serving compile requests in turn (length-prefixed pickles over its
    pipes), started on first use and replaced after ``RECYCLE`` kernels, since its own
    memory grows with each."""

    RECYCLE = 200

    def __init__(self, waited: bool = True):
        self.proc: subprocess.Popen | None = None
        self.served = 0
        self.lock = threading.Lock()
        self.usable = True
        # (does this process wait while it compiles? its CPU time is then counted as this
        # process's own, not as another's load: cores.count_as_own)
        self.waited = waited
        self.closed = False     # (at exit: a compile cut short is no failure to warn of)

    def compile(self, root: str, text: str, name: str, sig) -> bool:
        with self.lock:
            if not self.usable or self.closed:
                return False
            if self.proc is None or self.proc.poll() is not None or self.served >= self.RECYCLE:
                self.stop()
                self.proc = _start()
                if self.waited:
                    cores.count_as_own(self.proc.pid)
                self.served = 0
            self.served += 1
            try:
                _send(self.proc.stdin, (_digest(), root, text, name, sig))
                reply = _receive(self.proc.stdout)
                if reply is True:
                    return True
                failure = str(reply)[:300]
                if reply == _STALE:
                    # fusejit was edited or upgraded since this process started: a child
                    # would cache under another digest than the one this process reads
                    self.usable = False
                    self.stop()
            except Exception as why:  # noqa: BLE001 - a broken pipe, a dead child, a bad reply
                if self.closed:
                    return False
                failure = f"{type(why).__name__}, exit code {self.proc.poll()}"
                self.stop()
            cc.warn_once("child", f"the kernel compile helper process failed ({failure}); "
                         "compiling kernels in this process")
            return False

    def stop(self, wait: float = 10) -> None:
        if self.proc is not None:
            cores.forget(self.proc.pid)
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=wait)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def _start() -> subprocess.Popen:
    env = dict(os.environ, FUSEJIT_QUIET="1")
    package_parent = str(cc._PACKAGE.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent,
                                                      env.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c",
                             "from fusejit.runtime.fusion.isolated import serve; serve()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)


def _framed(obj) -> bytes:
    data = pickle.dumps(obj)
    return struct.pack("<Q", len(data)) + data


def _send(stream, obj) -> None:
    stream.write(_framed(obj))
    stream.flush()


# What a pipe holds before a writer waits (Linux's default), and what the requests handed on
# at exit may ask it to hold (Linux allows up to /proc/sys/fs/pipe-max-size, 1 MiB by default).
_PIPE_BYTES = 1 << 16
_HANDED_BYTES = 1 << 20


def _receive(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


class Later:
    """A background compile (``compile_later``): ``done`` is None while it runs, then True
    (every function is in the disk cache) or False (the child failed: the caller compiles)."""

    __slots__ = ("requests", "done", "_finished")

    def __init__(self, requests: list):
        self.requests = requests
        self.done: bool | None = None
        self._finished = threading.Event()

    def finish(self, done: bool) -> None:
        self.done = done
        self._finished.set()

    def wait(self) -> bool:
        """Wait until the compile is done; True when it succeeded."""
        self._finished.wait()
        return bool(self.done)


class _Background:
    """One thread handing ``Later`` jobs, in turn, to a child of its own (``_Child``), which
    compiles while this process goes on."""

    def __init__(self):
        self.child = _Child(waited=False)
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.submitted: list[Later] = []
        self.sending: Later | None = None       # (the job the child compiles now)

    def submit(self, job: Later) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._work, name="fusejit-compile",
                                               daemon=True)
                self.thread.start()
            self.submitted = [j for j in self.submitted if j.done is None]
            self.submitted.append(job)
        self.jobs.put(job)

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            self.sending = job
            try:
                done = all(self.child.compile(root, text, name, sig)
                           for root, text, name, sig in job.requests)
            except Exception:  # noqa: BLE001 - the waiting group compiles it itself
                done = False
            job.finish(done)
            self.sending = None

    def after_fork(self) -> None:
        """In a forked child: its parent's jobs are nobody's here (no thread or child serves
        them), so their groups compile themselves rather than wait; then a service of its
        own."""
        for job in self.submitted:
            if job.done is None:
                job.finish(False)
        self.__init__()

    def stop(self) -> None:
        """At exit: this process waits for no compile. The child finishes the one in flight
        and ends with this process's pipe; the others go to a new child, left to compile them
        and end. (A script that ends before its kernels are compiled finds them in the disk
        cache when it runs again, as it did when they compiled in the calling process.)"""
        child = self.child
        child.closed = True
        self.jobs.put(None)
        proc = child.proc
        in_flight = self.sending if proc is not None and proc.poll() is None else None
        with self.lock:
            left = [r for j in self.submitted if j.done is None and j is not in_flight
                    for r in j.requests]
        if proc is not None:
            cores.forget(proc.pid)
        if not left:
            return
        try:
            heir = _start()
            room = _PIPE_BYTES
            if fcntl is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
                try:
                    room = fcntl.fcntl(heir.stdin, fcntl.F_SETPIPE_SZ, _HANDED_BYTES)
                except OSError:
                    pass
            for request in left:
                data = _framed((_digest(), *request))
                if len(data) > room:
                    break       # (no more than the pipe holds: this process never waits)
                heir.stdin.write(data)
                room -= len(data)
            heir.stdin.close()
        except (OSError, ValueError):   # (no child to be had: they compile when next asked)
            pass


def compile_later(requests: list[tuple[Path, str, str, tuple]]) -> Later:
    """Have a background child compile each (cache root, kernel module text, function name,
    Numba signature) into the disk cache; the returned job's ``done`` says when it is."""
    job = Later([(str(root), text, name, sig) for root, text, name, sig in requests])
    if _BACKGROUND.thread is None:
        say("compiling fused kernels in a background process (once per machine and input "
            "signature); calls run interpreted until each is ready")
    _BACKGROUND.submit(job)
    return job


_CHILD = _Child()
_BACKGROUND = _Background()
atexit.register(_CHILD.stop)
atexit.register(_BACKGROUND.stop)
if hasattr(os, "register_at_fork"):
    # a forked process must not talk to its parent's children over the same pipes
    os.register_at_fork(after_in_child=_CHILD.__init__)
    os.register_at_fork(after_in_child=_BACKGROUND.after_fork)


def serve() -> None:
    """The child's side: compile each requested kernel function into the disk cache, until
    the parent closes the pipe. Only the parent process writes to this pipe."""
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)               # anything else printed goes to stderr, not into the replies
    while True:
        try:
            digest, root, text, name, sig = _receive(requests)
        except EOFError:
            return
        if digest != _digest():
            _send(replies, _STALE)
            continue
        os.environ["FUSEJIT_CACHE_DIR"] = root     # where the parent looks for it
        try:
            module = load_module(text)
            compiled(module, getattr(module, name), sig)
            reply: bool | str = True
        except Exception as why:  # noqa: BLE001 - the parent compiles it itself, and warns
            reply = f"{type(why).__name__}: {why}"
        try:
            _send(replies, reply)
        except OSError:
            pass    # (the parent has ended: its last requests are compiled all the same)
