"""Shared fixtures: the PyTorch-produced conformance corpus, committed in tests/data/conformance.

``FUSEJIT_CONFORMANCE`` points the suite at another copy (a newer corpus, say).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent

# Fused calls in the suite run the kernels and engines they test from their first call, and no
# test starts a background compile; tests/runtime/test_tiering.py turns tiering on itself.
os.environ.setdefault("FUSEJIT_TIERING", "0")
os.environ.setdefault("FUSEJIT_BACKGROUND_COMPILE", "0")
# Kernels and products choose threads as on a busy machine, whatever the machine's load: no
# test's code path (nor which kernels it compiles) depends on it. Tests of the free-core rule
# set the measurement themselves (``runtime.cores.assume_free_cores``).
os.environ.setdefault("FUSEJIT_FREE_CORES", "0")


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


def pytest_collection_modifyitems(config, items):
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


def corpus_path(rel: str) -> Path:
    if CORPUS is None:
        pytest.skip("conformance corpus not found (set FUSEJIT_CONFORMANCE)")
    return CORPUS / rel


def read_corpus(rel: str) -> str:
    return corpus_path(rel).read_text(encoding="utf-8")
