"""Memory: 10,000 calls of a fused graph with a loop, 10,000 calls failing inside it and
10,000 direct kernel calls leave Numba's NRT live-allocation counters exactly where they were
and RSS within a bound (``benchmarks/memory.py`` prints the curve for 100,000 calls).

Arrays are 16 x 64 float32 (4 KiB): a leaked intermediate per call would add 40 MiB over
10,000 calls, so the 16 MiB bound catches a leak of about 1.6 KiB per call.
"""

from __future__ import annotations

import gc
import importlib.util
from pathlib import Path

import pytest

import fusejit

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "memory.py"
_spec = importlib.util.spec_from_file_location("fusejit_memory_benchmark", _BENCH)
memory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(memory)

CALLS = 10_000
RSS_BOUND = 16 * 2**20


@pytest.fixture(scope="module")
def work():
    if not memory.rss_bytes():
        pytest.skip("no /proc/self/statm on this platform")
    memory.enable_nrt_stats()
    return memory.workload(shape=(16, 64))


def _failing(fn, bad):
    def call():
        with pytest.raises(fusejit.InterpreterError, match="broadcast"):
            fn(*bad)
    return call


@pytest.mark.parametrize("phase", ["fused", "failing", "kernel"])
def test_calls_keep_memory_flat(work, phase):
    fn, good, bad, kernel, kernel_inputs = work
    call = {"fused": lambda: fn(*good), "failing": _failing(fn, bad),
            "kernel": lambda: kernel(*kernel_inputs)}[phase]
    for _ in range(300):
        call()
    gc.collect()
    live, rss = memory.nrt_live(), memory.rss_bytes()
    for _ in range(CALLS):
        call()
    gc.collect()
    assert memory.nrt_live() == live
    grown = memory.rss_bytes() - rss
    assert grown < RSS_BOUND, f"RSS grew {grown / 2**20:.1f} MiB over {CALLS} {phase} calls"
