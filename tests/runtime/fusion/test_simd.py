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

import fusejit
from fusejit.runtime.fusion import FusedKernel, simd, templates, vecmath, vecpow

from . import test_pow_f32

avx512 = pytest.mark.skipif(not simd.HOST_AVX512, reason="needs an AVX-512 host")


@avx512
def test_loop_calls_the_16_lane_variant_and_strips_call_the_strip_function():
    """A loop over pow_simd_f32 (as a kernel's) vectorises into calls of fj_powf_v16 on 16
    lanes, the scalar fj_powf takes the remainder; pow_strip_f32 on contiguous rows calls
    fj_powf_strip (on strided ones, the element loop); all give float64 pow's value within the
    documented bound (sizes 16k + 5 and 32k + 21: vector bodies and remainders both run), and
    the strip's flag is set where a pair is outside the domain (a subnormal base is inside)."""

    @njit(error_model="numpy")
    def loop(x, y, out, strip, strided):
        vecmath.wide_vectors()
        for i in range(x.size):
            out[i] = vecpow.pow_simd_f32(x[i], y[i])
        flags = np.empty(3, np.bool_)
        flags[0] = vecpow.pow_strip_f32(x, y, strip)
        flags[1] = vecpow.pow_strip_f32(x[::2], y[::2], strided[::2])
        flags[2] = vecpow.pow_strip_f32(x[:1], y[:1], strip[:1])
        return flags

    rng = np.random.default_rng(5)
    x = rng.uniform(0.01, 30, 16 * 40 + 5).astype(np.float32)
    y = rng.uniform(-20, 20, x.size).astype(np.float32)
    got, strip, strided = (np.empty_like(x) for _ in range(3))
    assert not loop(x, y, got, strip, strided).any()
    ir = loop.inspect_llvm(loop.signatures[0])
    assert re.search(r"call <16 x float> @fj_powf_v16\(", ir)
    assert re.search(r"call float @fj_powf\(", ir)
    assert re.search(r"call i8 @fj_powf_strip\(", ir)
    exact = np.power(x.astype(np.float64), y.astype(np.float64))
    for values, exact_ in ((got, exact), (strip, exact), (strided[::2], exact[::2])):
        ulps = np.abs(values - exact_) / np.spacing(exact_.astype(np.float32)).astype(np.float64)
        assert ulps.max() <= vecmath.F32_ULPS["pow"]
    # one pair outside the domain flags the strip: a zero, a negative or an infinite base, a
    # NaN exponent, |y log2 x| past 200; a subnormal base is computed (and right)
    for i, (a, b) in enumerate([(0.0, 2.0), (-2.0, 2.0), (np.inf, 0.5), (2.0, np.nan),
                                (30.0, 50.0), (1e-40, 0.5)]):
        x2, y2, out = x[:16 * 2 + 21].copy(), y[:16 * 2 + 21].copy(), np.empty(53, np.float32)
        x2[20 + 6 * i], y2[20 + 6 * i] = a, b
        flag = loop(x2, y2, np.empty_like(x2), out, np.empty_like(x2))[0]
        assert flag == (i < 5)
    exact = np.float64(np.float32(1e-40)) ** 0.5
    assert abs(out[50] - exact) <= vecmath.F32_ULPS["pow"] * np.spacing(np.float32(exact))


@avx512
def test_portable_forms_as_hosts_without_avx512_render_them(monkeypatch):
    """With no host forms (a host without AVX-512), kernels render pow_inside_f32 and
    pow_outside_f32 again, and they pass the same tensor test."""
    monkeypatch.setattr(templates, "HOST_FORMS", {})
    assert templates.vector_function("pow_inside_f32") == "vp.pow_inside_f32"
    test_pow_f32.test_tensor_pow_on_random_pairs_and_special_grid()


@avx512
def test_kernels_whose_whole_work_is_pow_call_the_strip_form():
    """A float32 kernel that only computes pow(x, y) calls pow_strip_f32 strip by strip (and
    pow_f32 where the strip's flag is set); with another op after it, the element loop."""
    x = np.ones(8, np.float32)
    for body, strip in (("%o : Tensor = aten::pow(%x, %y)", True),
                        ("%p : Tensor = aten::pow(%x, %y)\n  %o : Tensor = aten::mul(%p, %x)",
                         False)):
        graph = fusejit.parse_ir(f"graph(%x : Float(*), %y : Float(*)):\n  {body}\n"
                                 "  return (%o)\n")
        source = FusedKernel(graph).source(x, x)
        assert ("fix = vp.pow_strip_f32(sr0, sr1, sw2)" in source) == strip
        assert "vp.pow_f32(a0, a1)" in source
