"""Threads: 8 threads calling one compiled function (fused, with a loop) 1,000 times each with
different inputs get exactly the single-threaded results; the same for one ``FusedKernel``
called from 8 threads (the executor does not call kernels yet)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel
from tests.conftest import read_corpus

THREADS, CALLS = 8, 1000


def _inputs(k: int):
    rng = np.random.default_rng(k)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    return x, y, k % 4


def _hammer(call, expected: dict, n_threads: int, calls: int) -> list[str]:
    failures: list[str] = []
    start = threading.Barrier(n_threads)

    def worker(t: int) -> None:
        start.wait()
        for i in range(calls):
            k = (t * calls + i * 7) % len(expected)
            try:
                got = call(k)
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(f"thread {t} call {i}: {error!r}")
                return
            for a, b in zip(got, expected[k]):
                if a.dtype != b.dtype or not np.array_equal(a, b, equal_nan=True):
                    failures.append(f"thread {t} call {i} input {k}: wrong result")
                    return

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not any(th.is_alive() for th in threads), "a thread hung"
    return failures


@pytest.mark.parametrize("engine", ["native", "reference"])
def test_threads_share_one_compiled_function(engine):
    graph = fusejit.parse_ir(read_corpus("loop_fusible_body/input.ir"))
    fn = fusejit.compile(graph, fuse=True, engine=engine)
    calls = CALLS if engine == "native" else CALLS // 10
    inputs = {k: _inputs(k) for k in range(256)}
    nodes = list(fn.graph_for(*inputs[0]).all_nodes())
    assert {"prim::Loop", "prim::FusionGroup"} <= {n.kind for n in nodes}
    expected = {k: (fn(*args),) for k, args in inputs.items()}
    # the single-threaded results are right, not merely repeatable
    reference = fusejit.compile(graph, engine="reference")
    for k in range(0, 256, 17):
        np.testing.assert_allclose(expected[k][0], reference(*inputs[k]), rtol=1e-6)
    failures = _hammer(lambda k: (fn(*inputs[k]),), expected, THREADS, calls)
    assert not failures, failures[:5]


def test_threads_share_one_kernel():
    text = read_corpus("lstm_cell/expected_fused.ir")
    graph = fusejit.parse_ir(text)
    (group,) = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    kernel = FusedKernel(group)
    rng = np.random.default_rng(0)
    inputs = {k: [rng.standard_normal((3, 20)).astype(np.float32)] +
              [rng.standard_normal((3, 80)).astype(np.float32)
               for _ in range(4)] for k in range(64)}
    expected = {k: kernel(*args) for k, args in inputs.items()}
    failures = _hammer(lambda k: kernel(*inputs[k]), expected, THREADS, 250)
    assert not failures, failures[:5]
