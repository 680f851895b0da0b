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
"""

from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import threading
from pathlib import Path

from .. import compile_cache as cc
from .. import cores
from ..status import LISTENER
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
    cache = getattr(dispatcher, "_cache", None)
    cache_file = getattr(cache, "_cache_file", None)
    if not isinstance(cache_file, cc.TrustedCacheFile) or cache_file.root is None:
        return None
    if cc.usable_root(cache_file.root) != cache_file.root:
        return None              # unusable: nothing to share through it
    key = cache._index_key(sig, dispatcher.targetctx.codegen())
    return None if key in cache_file._load_index() else cache_file.root


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

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.served = 0
        self.lock = threading.Lock()
        self.usable = True

    def compile(self, root: str, text: str, name: str, sig) -> bool:
        with self.lock:
            if not self.usable:
                return False
            if self.proc is None or self.proc.poll() is not None or self.served >= self.RECYCLE:
                self.stop()
                self.proc = _start()
                cores.count_as_own(self.proc.pid)   # (this process waits while it compiles)
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
                failure = f"{type(why).__name__}, exit code {self.proc.poll()}"
                self.stop()
            cc.warn_once("child", f"the kernel compile helper process failed ({failure}); "
                         "compiling kernels in this process")
            return False

    def stop(self) -> None:
        if self.proc is not None:
            cores.forget(self.proc.pid)
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
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


def _send(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


_CHILD = _Child()
atexit.register(_CHILD.stop)
if hasattr(os, "register_at_fork"):
    # a forked process must not talk to its parent's child over the same pipes
    os.register_at_fork(after_in_child=_CHILD.__init__)


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
        _send(replies, reply)
