"""Every fusible op of the operator table in one CUDA kernel per dtype, under Numba's simulator,
against its NumPy body (the cases come from the table: ``tests/oplib/table_cases.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.errors import IRError
from fusejit.ir.parser import parse_ir
from fusejit.runtime.devices import cuda_device
from fusejit.runtime.fusion.cuda_compiler import CudaFusedKernel
from tests.oplib import table_cases as tc

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_cuda_kernel_agrees_with_numpy_bodies(dtype):
    device = cuda_device()
    assert device.simulated and device.xp is np
    # rand_like has no CUDA form (no device generator): checked below. The simulator runs
    # Python's math, which raises where a device gives NaN or inf (acos(2)): those are left out.
    valid = [(case, want) for case, want in tc.valid_cases(dtype)
             if case.kind != "aten::rand_like" and np.all(np.isfinite(want))]
    calls = [case for case, _ in valid]
    got = CudaFusedKernel(parse_ir(tc.graph_text(calls, dtype)), device)(*tc.inputs(dtype))
    problems = [p for case, g, (_, want) in zip(calls, got, valid)
                if (p := tc.check(case, g, want)) is not None]
    assert not problems, "\n".join(problems)


def test_rand_like_is_refused_with_a_clear_error():
    case = next(c for c in tc.cases() if c.kind == "aten::rand_like")
    kernel = CudaFusedKernel(tc.single(case, "float32"), cuda_device())
    with pytest.raises(IRError, match="rand_like has no CUDA kernel"):
        kernel(*tc.inputs("float32"))
