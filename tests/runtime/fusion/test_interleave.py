"""Interleaved vector loops (``fusion/interleave.py``): which kernels take them, that they give
the same bits as the loop LLVM chooses itself, and that the LLVM option never outlives the
compile it was set for."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel, interleave, kernel_source

# four transcendentals and a product: an element cost above interleave.FROM_NS
LONG = """graph(%x : Float(*), %y : Float(*)):
  %a : Float(*) = aten::sin(%x)
  %b : Float(*) = aten::mul(%a, %y)
  %c : Float(*) = aten::exp(%b)
  %d : Float(*) = aten::tanh(%c)
  %e : Float(*) = aten::atan(%d)
  return (%e)
"""

SHORT = """graph(%x : Float(*), %y : Float(*)):
  %a : Float(*) = aten::mul(%x, %y)
  %b : Float(*) = aten::exp(%a)
  return (%b)
"""


def _inputs(n: int, dtype=np.float32):
    rng = np.random.default_rng(n)
    return rng.uniform(-3, 3, n).astype(dtype), rng.uniform(-2, 2, n).astype(dtype)


def test_long_kernels_are_interleaved_and_short_ones_left_to_llvm():
    x, y = _inputs(64)
    long_text = kernel_source(fusejit.parse_ir(LONG), x, y)
    short_text = kernel_source(fusejit.parse_ir(SHORT), x, y)
    assert f"\n{interleave.NAME} = {interleave.COUNT}\n" in long_text
    assert interleave.NAME not in short_text
    assert interleave.count_for(interleave.FROM_NS, True) == interleave.COUNT
    assert interleave.count_for(interleave.FROM_NS, False) == 0     # (no vectorised math)
    assert interleave.count_for(interleave.FROM_NS - 0.01, True) == 0


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])
def test_interleaved_kernel_gives_the_same_bits_as_the_plain_one(monkeypatch, dtype):
    """Sizes around the interleaved loop's 4 vectors an iteration (and a strip's 1024): every
    element, the loop's remainder included, is what the kernel LLVM vectorised itself gives."""
    text = LONG.replace("Float", "Double") if dtype == np.float64 else LONG
    sizes = (1, 15, 63, 64, 65, 1000, 1024 + 37, 3 * 1024 + 255)
    inputs = [_inputs(n, dtype) for n in sizes]
    interleaved = FusedKernel(fusejit.parse_ir(text))
    want = [interleaved(x, y)[0] for x, y in inputs]
    monkeypatch.setattr(interleave, "FROM_NS", float("inf"))
    plain = FusedKernel(fusejit.parse_ir(text))
    x, y = inputs[0]
    assert interleave.NAME not in plain.source(x, y)
    for (x, y), got in zip(inputs, want):
        assert np.array_equal(plain(x, y)[0], got, equal_nan=True), x.size


def test_the_option_is_put_back_even_when_the_compile_fails(monkeypatch):
    seen = []
    monkeypatch.setattr(interleave.binding, "set_option",
                        lambda name, option: seen.append(option))
    with pytest.raises(RuntimeError), interleave.interleaved(4):
        raise RuntimeError("a compile error")
    assert seen == ["-force-vector-interleave=4", "-force-vector-interleave=0"]
    seen.clear()
    with interleave.interleaved(0):      # (nothing to set)
        pass
    assert seen == []


def test_a_loop_that_calls_a_vector_function_is_not_interleaved():
    """simd's pow is a call in the loop (AVX-512 hosts): it spills every live vector, so such
    kernels keep LLVM's own choice; elsewhere pow is inline and the long kernel interleaves."""
    text = LONG.replace("  return (%e)", "  %f : Float(*) = aten::pow(%e, %y)\n  return (%f)")
    x, y = _inputs(64)
    source = kernel_source(fusejit.parse_ir(text), np.abs(x), y)
    assert (interleave.NAME in source) == ("pow_simd_f32(" not in source)


# LONG with a pow and seven more transcendentals: an element cost past INLINE_POW_FROM_NS
VERY_LONG = LONG.replace("  return (%e)", """  %f : Float(*) = aten::pow(%e, %y)
  %g : Float(*) = aten::cos(%f)
  %h : Float(*) = aten::log1p(%g)
  %i : Float(*) = aten::sin(%h)
  %j : Float(*) = aten::exp(%i)
  %k : Float(*) = aten::tanh(%j)
  %l : Float(*) = aten::atan(%k)
  %m : Float(*) = aten::sin(%l)
  return (%e, %f, %m)""")


def test_a_very_long_kernel_computes_pow_inline_and_interleaves():
    """Past ``INLINE_POW_FROM_NS`` a kernel takes the portable inline pow (no call in its loop,
    on any host) and interleaves; its values are the full pow's where the short form's domain
    ends (a zero, negative or non-finite base is computed again by the fix-up)."""
    from fusejit.runtime.fusion.templates import element_cost

    graph = fusejit.parse_ir(VERY_LONG)
    kernel = FusedKernel(graph)
    assert interleave.inline_pow(element_cost(kernel.layout))
    assert not interleave.inline_pow(interleave.INLINE_POW_FROM_NS - 0.01)
    x, y = _inputs(3000)
    x[[3, 700, 2999]] = [0.0, np.inf, np.nan]
    source = kernel.source(x, y)
    assert "pow_simd_f32(" not in source and "vp.pow_inside_f32(" in source
    assert f"\n{interleave.NAME} = {interleave.COUNT}\n" in source
    with np.errstate(all="ignore"):
        got_e, got_pow, got = kernel(x, y)
        e = np.arctan(np.tanh(np.exp(np.sin(x) * y)))
        # (pow of the kernel's own base, within 2 ulps of the exact value)
        want_pow = (got_e.astype(np.float64) ** y).astype(np.float32)
        want = np.sin(np.arctan(np.tanh(np.exp(np.sin(np.log1p(np.cos(e ** y)))))))
    np.testing.assert_array_max_ulp(got_pow[np.isfinite(want_pow)],
                                    want_pow[np.isfinite(want_pow)], maxulp=2)
    # (the chain after pow: float32 rounding of each op, amplified by the chain)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    assert np.array_equal(np.isnan(got), np.isnan(want))
