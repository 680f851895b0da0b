"""Shared fixtures: the PyTorch-produced conformance corpus, committed in tests/data/conformance.

``FUSEJIT_CONFORMANCE`` points the suite at another copy (a newer corpus, say).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.matrix import halved

_ROOT = Path(__file__).resolve().parent.parent

# Fused calls in the suite run the kernels and engines they test from their first call, and no
# test starts a background compile; tests/runtime/test_tiering.py turns tiering on itself.
os.environ.setdefault("FUSEJIT_TIERING", "0")
os.environ.setdefault("FUSEJIT_BACKGROUND_COMPILE", "0")
# Which form runs a call never depends on the machine's load: a signature compiled whole keeps
# the whole form from its second call (tests/frontend/test_timed_choice.py turns timing on).
os.environ.setdefault("FUSEJIT_TIMED_CHOICE", "0")
# ... nor on a race against NumPy eager: the compiled forms run every call they test
# (tests/frontend/test_race.py turns the race on).
os.environ.setdefault("FUSEJIT_NUMPY_RACE", "0")
# Kernels and products choose threads as on a busy machine, whatever the machine's load: no
# test's code path (nor which kernels it compiles) depends on it. Tests of the free-core rule
# set the measurement themselves (``runtime.cores.assume_free_cores``).
os.environ.setdefault("FUSEJIT_FREE_CORES", "0")
# A worker compiles its first 1024 kernels itself rather than its first 32 (the default): a
# kernel the compile child makes is compiled there and then loaded here, which a cold suite paid
# for in its time (some 650 kernels a worker: 572 s with 256 compiled in the worker, 534 s with
# all, one run each on a 2-core AMD EPYC; 506 against 484 s in an earlier suite). The price is
# memory, ~1.5 MiB a kernel compiled in process (runtime/fusion/isolated.py): ~1 GiB a worker.
# tests/robustness/test_cache_trust.py and test_tiering.py run the child themselves, with
# limits of their own.
os.environ.setdefault("FUSEJIT_COMPILE_IN_PROCESS", "1024")


def pytest_configure(config):
    """Under pytest-xdist, the controller compiles the native loop in a child process from the
    start (``warm_native``, under the cache's compile lock), while the workers run other tests;
    a worker that needs the loop before it is ready waits for it and loads it from disk
    (``tiering.native_compile_lock``), rather than every worker compiling it at once."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    code = "from fusejit.runtime.tiering import warm_native; warm_native(wait=True)"
    config._fusejit_warm = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


# The tests here compile fused kernels (``FusedKernel``) but never need the native loop: they
# run first, so that under pytest-xdist the workers compile kernels while the controller's child
# compiles the loop, instead of waiting on it.
_KERNELS_ONLY = "tests/runtime/fusion/"


# Cases marked ``exhaustive`` repeat, for one more dtype, size or program, what a case the default
# suite runs already checks the same way (``tests/matrix.py`` marks them for whole matrices and
# corpora); each compiles kernels of its own, which is most of a cold suite's time. They run with
# ``FUSEJIT_FULL_SUITE=1`` (or ``-m exhaustive``) and are reported as skipped otherwise, so the
# default suite stays under 10 minutes on 2 cores.
FULL_SUITE = os.environ.get("FUSEJIT_FULL_SUITE", "") not in ("", "0")


def _skip_exhaustive(config, items) -> None:
    if FULL_SUITE or "exhaustive" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="exhaustive case: FUSEJIT_FULL_SUITE=1 runs it")
    for item in items:
        if item.get_closest_marker("exhaustive") is not None:
            item.add_marker(skip)


def pytest_collection_modifyitems(config, items):
    _skip_exhaustive(config, items)
    _order_for_workers(config, items)


def _order_for_workers(config, items):
    """Kernel-only tests first on every worker. ``--dist worksteal`` (pyproject.toml) starts
    worker k on the k-th of ``workercount`` consecutive shares of the collection (the first
    ``N // n`` items, then half the rest, ...; idle workers later steal half of the longest
    queue): each share opens with every n-th kernel-only test module (all its tests together,
    in order: tests of a module share kernels compiled once per process, and two workers
    compiling the same kernel at once would each pay for it), then other tests fill it in their
    own order. Without workers this is the kernel-only tests, then the rest."""
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    modules: dict[str, list] = {}
    others = []
    for item in items:
        if item.nodeid.startswith(_KERNELS_ONLY):
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
        else:
            others.append(item)
    ordered, start = [], 0
    for k in range(workers):
        share = (len(items) - start) // (workers - k)
        mine = [item for group in list(modules.values())[k::workers] for item in group]
        fill = max(share - len(mine), 0) if k < workers - 1 else len(others)
        ordered += mine + others[:fill]
        others = others[fill:]
        start += share
    items[:] = ordered + others


# ``FUSEJIT_COMPILE_LOG=PATH``: every Numba compile (a cache miss: loads from the on-disk cache
# are not counted) is appended to ``PATH.<pid>`` as a JSON line naming the test that caused it,
# the function and whether it was compiled on its own or inside another compile: the number of
# kernels a cold suite compiles, and which tests compile them, to keep the suite's time down.
# Kernels that fusejit compiles in its compile child (runtime/fusion/isolated.py: every kernel
# after the first ``FUSEJIT_COMPILE_IN_PROCESS`` of a process) are not seen here: set that
# high to log them all, or count the kernel files (``kernels/fk_*.py``) in the cache.
_COMPILE_LOG = os.environ.get("FUSEJIT_COMPILE_LOG")
_RUNNING = {"test": "<collect>"}

if _COMPILE_LOG:
    import json
    import time

    from numba.core import event

    class _CompileLog(event.Listener):
        def __init__(self) -> None:
            self.started: list[float] = []

        def on_start(self, ev) -> None:
            self.started.append(time.perf_counter())

        def on_end(self, ev) -> None:
            seconds = time.perf_counter() - self.started.pop()
            fn = getattr(ev.data["dispatcher"], "py_func", None)
            name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
            record = {"test": _RUNNING["test"], "fn": name, "nested": bool(self.started),
                      "args": str(ev.data["args"])[:200], "s": round(seconds, 4)}
            with open(f"{_COMPILE_LOG}.{os.getpid()}", "a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")

    event.register("numba:compile", _CompileLog())

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        _RUNNING["test"] = item.nodeid
        yield
        _RUNNING["test"] = "<between>"


def pytest_unconfigure(config):
    warm = getattr(config, "_fusejit_warm", None)
    if warm is not None and warm.poll() is None:
        warm.kill()
        warm.wait()


def _find_corpus() -> Path | None:
    env = os.environ.get("FUSEJIT_CONFORMANCE")
    candidates = [Path(env)] if env else []
    candidates.append(_ROOT / "tests" / "data" / "conformance")
    for path in candidates:
        if path.is_dir():
            return path
    return None


CORPUS = _find_corpus()
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS else []
IR_FILES = [f"{case}/{name}" for case in CASES for name in ("input.ir", "expected_fused.ir")]
# The corpus cases whose kernels the default suite runs: every other one (``halved``), and not
# the costliest to compile (130 inputs: 10-13 s cold, a fiftieth of the suite); the rest with
# FUSEJIT_FULL_SUITE=1. The conformance tests check every case's fusion.
_COSTLY_KERNELS = {"many_inputs_130"}
KERNEL_CASES = halved([pytest.param(c, marks=[pytest.mark.exhaustive] * (c in _COSTLY_KERNELS))
                       for c in CASES])


def corpus_path(rel: str) -> Path:
    if CORPUS is None:
        pytest.skip("conformance corpus not found (set FUSEJIT_CONFORMANCE)")
    return CORPUS / rel


def read_corpus(rel: str) -> str:
    return corpus_path(rel).read_text(encoding="utf-8")
