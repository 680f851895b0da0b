"""Device plumbing that needs neither a GPU nor the simulator, and the simulator suite itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fusejit.errors import FusejitError, InterpreterError
from fusejit.ir.parser import parse_ir
from fusejit.runtime.devices import get_device, infer_device, is_cuda_array
from fusejit.runtime.executor import compile as compile_graph
from fusejit.runtime.fusion.cuda_compiler import launch_config
from tests.conftest import FULL_SUITE

from .conftest import SIMULATED

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("numel, sms, per_sm, per_block, want", [
    (10, 132, 2048, 1024, (1, 256)),               # one partial block
    (256 * 100, 132, 2048, 1024, (100, 256)),      # fewer blocks than the device holds
    (1 << 26, 132, 2048, 1024, (132 * 8 * 4, 256)),  # capped at 4 waves of 8 blocks per SM
    (1000, 1, 8, 4, (8, 4)),                       # simulator: 2 resident blocks x 4 waves
    (3, 1, 8, 4, (1, 4)),
])
def test_launch_config(numel, sms, per_sm, per_block, want):
    assert launch_config(numel, sms, per_sm, per_block) == want


def test_launch_config_covers_all_elements_with_grid_stride():
    for numel in (1, 255, 257, 10**6, 1 << 30):
        blocks, threads = launch_config(numel, 132, 2048, 1024)
        assert 1 <= blocks <= 132 * 8 * 4 and threads == 256
        assert blocks * threads >= min(numel, 132 * 8 * 4 * 256)


class _FakeCupyArray:
    """Stands in for a cupy.ndarray: only its type's module is looked at."""


_FakeCupyArray.__module__ = "cupy._core.core"


def test_infer_device():
    host, dev = np.ones(3), _FakeCupyArray()
    assert is_cuda_array(dev) and not is_cuda_array(host)
    assert infer_device([host, 2.0]) == "cpu"
    assert infer_device([dev, [dev], 1]) == "cuda"
    assert infer_device([1, "x"]) is None
    with pytest.raises(InterpreterError, match="input 2 is a CuPy .* input 0 a NumPy"):
        infer_device([host, 1, [dev]])


def test_unknown_device():
    with pytest.raises(FusejitError, match="unknown device 'tpu'"):
        get_device("tpu")
    with pytest.raises(FusejitError, match="unknown device 'tpu'"):
        compile_graph(parse_ir("graph(%x : Tensor):\n  return (%x)\n"), device="tpu")


@pytest.mark.skipif(SIMULATED, reason="the simulator provides a device")
def test_cuda_without_cupy_says_what_to_install():
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("CuPy is installed")
    with pytest.raises(FusejitError, match=r'pip install -e "\.\[cuda\]"'):
        get_device("cuda")


def test_import_does_not_load_cuda():
    code = ("import sys, fusejit, fusejit.runtime.devices, fusejit.runtime.fusion.cuda_compiler;"
            "import fusejit.runtime.ops.cupy_bodies;"
            "bad = [m for m in ('cupy', 'numba.cuda') if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(SIMULATED, reason="already inside the simulator process")
def test_cudasim_suite_passes():
    """The ``cudasim`` tests, in their own process with NUMBA_ENABLE_CUDASIM=1: one process
    (``-n 0``), as two pytest-xdist workers and the native loop's compile the controller starts
    (tests/conftest.py) cost more to start than the tests take. Cases marked ``exhaustive`` are
    deselected, not skipped, unless the full suite runs (a skip fails the check below)."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    marks = "cudasim" if FULL_SUITE else "cudasim and not exhaustive"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/cuda", "-m", marks, "-n", "0", "-q", "-p",
         "no:cacheprovider"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    tail = (result.stdout + result.stderr)[-4000:]
    assert result.returncode == 0, tail
    assert " passed" in result.stdout and "skipped" not in result.stdout.splitlines()[-1], tail
