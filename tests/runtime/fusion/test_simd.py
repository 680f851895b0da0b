"""``simd``: the hand-written AVX-512 float32 pow that LLVM's loop vectoriser calls through the
vector-function-abi-variant attribute, and the portable forms that hosts without AVX-512 keep.

Its accuracy against NumPy on the special grid and random pairs is ``test_pow_f32``'s tensor
test, which on an AVX-512 host runs it; here: that the vectoriser really calls the 16-lane
variant (and the remainder the scalar one), with right results, and the portable forms, forced
as a host without AVX-512 renders them, through the same tensor test."""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba import njit

from fusejit.runtime.fusion import simd, templates, vecmath, vecpow

from . import test_pow_f32

avx512 = pytest.mark.skipif(not simd.HOST_AVX512, reason="needs an AVX-512 host")


@avx512
def test_loop_calls_the_16_lane_variant():
    """A loop over pow_simd_f32 (as a kernel's) vectorises into calls of fj_powf_v16 on 16
    lanes, the scalar fj_powf takes the remainder, and both give float64 pow's value within
    the documented bound (sizes 16k + 5: the vector body and the remainder both run)."""

    @njit(error_model="numpy")
    def loop(x, y, out):
        vecmath.wide_vectors()
        for i in range(x.size):
            out[i] = vecpow.pow_simd_f32(x[i], y[i])

    rng = np.random.default_rng(5)
    x = rng.uniform(0.01, 30, 16 * 40 + 5).astype(np.float32)
    y = rng.uniform(-20, 20, x.size).astype(np.float32)
    got = np.empty_like(x)
    loop(x, y, got)
    ir = loop.inspect_llvm(loop.signatures[0])
    assert re.search(r"call <16 x float> @fj_powf_v16\(", ir)
    assert re.search(r"call float @fj_powf\(", ir)
    exact = np.power(x.astype(np.float64), y.astype(np.float64))
    ulps = np.abs(got - exact) / np.spacing(exact.astype(np.float32)).astype(np.float64)
    assert ulps.max() <= vecmath.F32_ULPS["pow"]


@avx512
def test_portable_forms_as_hosts_without_avx512_render_them(monkeypatch):
    """With no host forms (a host without AVX-512), kernels render pow_inside_f32 and
    pow_outside_f32 again, and they pass the same tensor test."""
    monkeypatch.setattr(templates, "HOST_FORMS", {})
    assert templates.vector_function("pow_inside_f32") == "vp.pow_inside_f32"
    test_pow_f32.test_tensor_pow_on_random_pairs_and_special_grid()
