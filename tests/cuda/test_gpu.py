"""The CUDA path on a real device with CuPy (skipped without one): the simulator tests' cases
plus what only a device shows (CuPy outputs, streams, host arrays refused)."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
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
        handle = device.stream().handle     # (an int's wrapper: ctypes' or cuda-bindings')
        assert int(getattr(handle, "value", handle)) == stream.ptr
    stream.synchronize()
    want = np.broadcast_to(np.arange(1024, dtype=np.float32) + 1.5, (256, 1024))
    np.testing.assert_allclose(cp.asnumpy(out), want)


def test_host_arrays_are_refused(cp, device):
    fn = compile_graph(parse_ir(BROADCAST), fuse=True, device="cuda")
    with pytest.raises(InterpreterError, match="on the host"):
        fn(np.ones((2, 3), np.float32), np.ones(3, np.float32), 1.0, np.asarray(1.0))
    with pytest.raises(InterpreterError, match="different devices"):
        fn(cp.ones((2, 3), cp.float32), np.ones(3, np.float32), 1.0, cp.asarray(1.0))


def test_jit_runs_numpy_code_on_cupy_arrays(cp, device):
    @fusejit.jit(device="cuda")
    def f(x, y):
        z = np.where(x > 0.5, np.tanh(x * y), np.log1p(np.abs(y)))
        return z - z.mean(), (x * y).sum()

    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64, np.float32):   # (each signature its own compile)
        hx, hy = (rng.uniform(-1, 1, (64, 129)).astype(dtype) for _ in range(2))
        z, total = f(cp.asarray(hx), cp.asarray(hy))
        want = np.where(hx > 0.5, np.tanh(hx * hy), np.log1p(np.abs(hy)))
        assert isinstance(z, cp.ndarray) and z.dtype == dtype
        # (a reduction's result stays on the device as a 0-d array, as CuPy's own does)
        assert isinstance(total, cp.ndarray) and total.shape == () and total.dtype == dtype
        rtol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(cp.asnumpy(z), want - want.mean(), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(float(total), (hx * hy).sum(), rtol=rtol * 10)
    assert len(f._specialised) == 2


def test_cupy_arrays_on_a_cpu_function_and_numpy_arrays_on_a_cuda_one_are_refused(cp, device):
    on_cpu = fusejit.jit(_add)
    with pytest.raises(fusejit.FusejitError, match=r"argument 'x' is a CuPy array.*device=\"cuda\""):
        on_cpu(cp.ones(3), cp.ones(3))
    on_gpu = fusejit.jit(_add, device="cuda")
    with pytest.raises(InterpreterError, match="on the host"):
        on_gpu(np.ones(3), np.ones(3))


def _add(x, y):
    return x + y
