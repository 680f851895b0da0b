"""Markers for the CUDA tests.

``cudasim`` tests need ``NUMBA_ENABLE_CUDASIM=1`` set before Numba is imported, so they run in
their own pytest process (``test_cudasim_suite.py`` starts it from the main suite); in any
other process they are skipped. ``gpu`` tests need CuPy and a real CUDA device.
"""

from __future__ import annotations

import os

import pytest

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def _gpu_reason() -> str | None:
    if SIMULATED:
        return "the CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1)"
    try:
        import cupy
        from numba import cuda
    except ImportError as error:
        return f"CuPy / numba.cuda not installed ({error})"
    try:
        if not cuda.is_available() or cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
    except Exception as error:  # noqa: BLE001 - any driver failure means no device
        return f"no usable CUDA device ({error})"
    return None


def pytest_collection_modifyitems(config, items):
    sim_skip = pytest.mark.skip(reason="needs NUMBA_ENABLE_CUDASIM=1 (its own process)")
    gpu_reason = None
    checked = False
    for item in items:
        if "cudasim" in item.keywords and not SIMULATED:
            item.add_marker(sim_skip)
        if "gpu" in item.keywords:
            if not checked:
                gpu_reason, checked = _gpu_reason(), True
            if gpu_reason is not None:
                item.add_marker(pytest.mark.skip(reason=gpu_reason))
