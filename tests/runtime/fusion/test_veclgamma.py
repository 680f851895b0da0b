"""The vectorised lgamma (``veclgamma``) in fused kernels against the operator library's body
(Python's ``math.lgamma``) and glibc's (through Numba): the poles, NaN, +-inf, +-0, subnormals and huge values exactly, and
the documented error bounds (ulps where |lgamma| >= 1/4, absolute error near its zeros) on a
dense sample. One kernel per dtype."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import fusejit
from fusejit.runtime.fusion import FusedKernel, veclgamma

from .oracle import run_subgraph

_TYPE = {"float32": "Float", "float64": "Double"}
_cache: dict = {}


def _kernel(dtype: str) -> FusedKernel:
    if dtype not in _cache:
        graph = fusejit.parse_ir(f"graph(%x : {_TYPE[dtype]}(*)):\n"
                                 f"  %y : Tensor = aten::lgamma(%x)\n  return (%y)\n")
        _cache[dtype] = graph, FusedKernel(graph)
    return _cache[dtype]


@njit(error_model="numpy")
def _glibc(x):
    """libm's lgamma in float64 (glibc's, through Numba; +inf at the poles), unrounded. (Not
    Python's math.lgamma: CPython's own Lanczos sum is 79 ulps off at 2.1, glibc 0.)"""
    out = np.empty(x.size)
    for i in range(x.size):
        out[i] = math.lgamma(x[i])
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_exactly_as_the_reference(dtype):
    info = np.finfo(dtype)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -3.0, -100.0, -2.0 ** 22,
                  -2.0 ** 40, -2.0 ** 60, 1.0, 2.0, float(info.smallest_subnormal),
                  -float(info.smallest_subnormal), float(info.tiny), float(info.max),
                  -float(info.max), 2.0 ** 60, 1e30], dtype)
    graph, kernel = _kernel(dtype)
    got = kernel(x)[0]
    with np.errstate(all="ignore"):
        want = np.asarray(run_subgraph(graph, x)[0])
    assert got.dtype == want.dtype == np.dtype(dtype)
    exact = ~np.isfinite(want) | (want == 0)
    assert np.array_equal(got[exact], want[exact], equal_nan=True), (x[exact], got[exact])
    # the rest (subnormals, tiny, huge): -log|x| and x (log x - 1) within 2 ulps
    np.testing.assert_allclose(got[~exact], want[~exact], rtol=4 * float(info.eps))


def _dense(dtype: str) -> np.ndarray:
    if dtype == "float32":
        x = np.arange(0, 1 << 32, 65521, dtype=np.uint64).astype(np.uint32).view(np.float32)
        return x[np.isfinite(x)]
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.integers(0, 1 << 63, 1 << 14).view(np.float64),
                        rng.uniform(-30, 30, 1 << 15), rng.uniform(0, 3, 1 << 14),
                        rng.uniform(-1e3, 0, 1 << 14),
                        1.0 + rng.uniform(-1e-3, 1e-3, 1 << 12),
                        2.0 + rng.uniform(-1e-3, 1e-3, 1 << 12)])
    return x[np.isfinite(x)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_documented_bounds_on_a_dense_sample(dtype):
    """The bounds ``veclgamma.ULPS``/``ABS`` (tools/ulp_sweep.py measured them over all 2^32
    float32 inputs and 10^8 float64 samples) on every 65521st float32 bit pattern, or 2^17
    float64 values of every magnitude, both sides of the poles and close to the zeros."""
    x = _dense(dtype)
    got = _kernel(dtype)[1](x)[0].astype(np.float64)
    want = _glibc(x.astype(np.float64))
    with np.errstate(all="ignore"):
        rounded = want.astype(dtype)
        unit = np.spacing(np.abs(rounded)).astype(np.float64)
        ulp = np.abs(got - want) / unit
    same = (got == rounded) & ~np.isfinite(rounded)
    near = (np.abs(want) < 0.25) & ~same
    far = ~near & ~same
    assert not np.isnan(got[np.isfinite(want)]).any()
    worst = int(np.argmax(np.where(far, ulp, 0.0)))
    assert ulp[far].max() <= veclgamma.ULPS[dtype[0] + dtype[-2:]], (x[worst], got[worst])
    with np.errstate(invalid="ignore"):
        absolute = np.abs(got - want)[near]
    assert absolute.max() <= veclgamma.ABS[dtype[0] + dtype[-2:]], x[near][np.argmax(absolute)]


def test_float32_relative_error_near_the_zeros_at_one_and_two():
    """Every float32 within 2^-8 of 1 and 2^-7 of 2: within ``veclgamma.NEAR_ZEROS_ULPS`` of
    the result itself, not only in absolute error (the polynomial carries the factors t - 1
    and t - 2 exactly); the zeros exactly 0."""
    lo = np.array([1 - 2 ** -8, 2 - 2 ** -7], np.float32).view(np.uint32)
    hi = np.array([1 + 2 ** -8, 2 + 2 ** -7], np.float32).view(np.uint32)
    x = np.concatenate([np.arange(a, b + 1, dtype=np.uint32) for a, b in zip(lo, hi)])
    x = x.view(np.float32)
    got = _kernel("float32")[1](x)[0].astype(np.float64)
    want = _glibc(x.astype(np.float64))
    assert got[(x == 1) | (x == 2)].tolist() == [0.0, 0.0]
    ulp = np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    ulp = ulp[want != 0]
    assert ulp.max() <= veclgamma.NEAR_ZEROS_ULPS, x[want != 0][np.argmax(ulp)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_strip_with_a_negative_gives_the_positives_the_same_values(dtype):
    """Kernels compute 0 < x < inf by the short form (``lgamma_inside_*``) and a strip holding
    any other x again by the full form: the positives come out bit-equal either way."""
    x = np.random.default_rng(3).uniform(0, 12, 3000).astype(dtype)
    kernel = _kernel(dtype)[1]
    alone = kernel(x)[0]
    mixed = kernel(np.concatenate([x, np.array([-2.5, np.inf], dtype)]))[0]
    assert np.array_equal(alone, mixed[:x.size])
