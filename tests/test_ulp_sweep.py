"""tools/ulp_sweep.py's float32 sweep against the same errors computed with NumPy, on a small
range and a deliberately wrong function (so a wrong error measure, a missed element or a missed
NaN would show)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
from numba import njit

_PATH = Path(__file__).resolve().parent.parent / "tools" / "ulp_sweep.py"
_SPEC = importlib.util.spec_from_file_location("ulp_sweep", _PATH)
sweep_tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sweep_tool)


@njit(error_model="numpy")
def _skewed_exp(x):
    """float32 e**x, 3 * 2^-23 relatively high above 1, NaN at 0.5, else correctly rounded."""
    v = np.float32(math.exp(np.float64(x)))
    v = np.float32(v * np.float32(1.0 + 3 * 2.0 ** -23)) if x > np.float32(1.0) else v
    return np.float32(math.nan) if x == np.float32(0.5) else v


def test_the_sweep_finds_what_numpy_finds():
    lo = int(np.array([0.96875], np.float32).view(np.uint32)[0])
    hi = lo + (1 << 20)                 # 0.97 to 1.06: across the skew at 1
    sweep = sweep_tool._make_f32_sweep(_skewed_exp, math.exp, math.inf, False)
    worst = sweep(lo, hi, 1, 4)
    x = np.arange(lo, hi, dtype=np.uint32).view(np.float32)
    want = np.exp(x.astype(np.float64))
    skew = np.float32(1.0 + 3 * 2.0 ** -23)
    fast = np.where(x > 1, (want.astype(np.float32) * skew).astype(np.float32),
                    want.astype(np.float32)).astype(np.float64)
    errors = np.abs(fast - want) / np.spacing(want.astype(np.float32)).astype(np.float64)
    best = int(np.argmax(worst[:, 0]))
    assert math.isclose(worst[best, 0], errors.max(), rel_tol=1e-12)
    assert int(worst[best, 1]) == lo + int(np.argmax(errors))
    assert 4.0 < errors.max() < 5.0     # (3 * 2^-23 of e**x in [2.6, 2.9]: 4.2 ulps, + rounding)


def test_a_nan_that_is_not_a_nan_input_is_an_infinite_error():
    half = int(np.array([0.5], np.float32).view(np.uint32)[0])
    sweep = sweep_tool._make_f32_sweep(_skewed_exp, math.exp, math.inf, False)
    assert sweep(half - 8, half + 8, 1, 2)[:, 0].max() == math.inf
    assert sweep_tool._nan_mismatches(_skewed_exp, 0x7F800001, 0x7F800001 + 4096) == 0
