"""The CUDA path on a real device with CuPy (skipped without one): the simulator tests' cases
plus what only a device shows (CuPy outputs, streams, host arrays refused)."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.errors import InterpreterError
from fusejit.ir.parser import parse_ir
from fusejit.runtime.devices import cuda_device
from fusejit.runtime.executor import compile as compile_graph
from fusejit.runtime.fusion.cuda_compiler import CudaFusedKernel

from .cases import OP_CASES, assert_matches, op_graph, op_inputs, reference
from .test_cudasim import BROADCAST, RUNNABLE, _corpus

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cp():
    import cupy
    return cupy


@pytest.fixture(scope="module")
def device():
    return cuda_device()


@pytest.mark.parametrize("case", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_simple_map_op(cp, device, case):
    graph = parse_ir(op_graph(case))
    inputs = op_inputs(case, shape=(33, 65))
    (got,) = CudaFusedKernel(graph, device)(*[cp.asarray(x) for x in inputs])
    assert isinstance(got, cp.ndarray)
    assert_matches(cp.asnumpy(got), reference(graph, inputs))


@pytest.mark.parametrize("case", RUNNABLE)
def test_corpus_graph(cp, device, case):
    graph, inputs, expected = _corpus(case)
    fn = compile_graph(graph, fuse=True, device="cuda")
    got = fn(*[cp.asarray(x) if isinstance(x, np.ndarray) else x for x in inputs])
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, expected):
        if isinstance(g, cp.ndarray):
            np.testing.assert_allclose(cp.asnumpy(g), e, rtol=1e-5, atol=1e-6)
        else:
            assert list(g) == list(e)


def test_runs_on_the_current_stream(cp, device):
    fn = compile_graph(parse_ir(BROADCAST), fuse=True, device="cuda")
    a = cp.ones((256, 1024), cp.float32)
    b = cp.arange(1024, dtype=cp.float32)
    z = cp.asarray(np.float32(0.5))
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        out = fn(a, b, 2.0, z)
        assert device.stream().handle.value == stream.ptr
    stream.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), np.arange(1024, dtype=np.float32)[None] + 1.5)


def test_host_arrays_are_refused(cp, device):
    fn = compile_graph(parse_ir(BROADCAST), fuse=True, device="cuda")
    with pytest.raises(InterpreterError, match="on the host"):
        fn(np.ones((2, 3), np.float32), np.ones(3, np.float32), 1.0, np.asarray(1.0))
    with pytest.raises(InterpreterError, match="different devices"):
        fn(cp.ones((2, 3), cp.float32), np.ones(3, np.float32), 1.0, cp.asarray(1.0))
