"""float32 pow: tensor ** tensor (vecpow.pow_f32, and pow_inside_f32 where kernels take it),
and with a constant exponent (2y an
integer, |y| <= 8: vecpow.pow_const_f32, double-float products and a corrected square root)
and with a constant scalar base (vecpow.pow_base_f32, e**(y ln b) with y ln b in
double-float), against NumPy's power: the same NaN, infinities and signed zeros, and finite
results within ``vecpow.ULPS``'s bounds of the exact value (tensor ** tensor: vecmath.F32_ULPS).
The general forms with a constant exponent or a scalar argument base are tested in both
dtypes here too (one kernel)."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel, vecmath, vecpow

EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -1e-40, 1.0, -1.0,
                  2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1e10, 1e-10, 3e38, -3e38, 1e19, 1e-19, 7.5],
                 dtype=np.float32)


def _values(rng: np.random.Generator, scale: float) -> np.ndarray:
    return np.concatenate([EDGES, rng.uniform(-scale, scale, 4000).astype(np.float32),
                           np.exp(rng.uniform(-100, 80, 4000)).astype(np.float32)])


def _check(got: np.ndarray, want: np.ndarray, exact: np.ndarray, bound: float = 0.5001,
           subnormal: float | None = None) -> None:
    """``want``: NumPy's float32 power; ``exact``: the float64 power of the same inputs;
    ``subnormal``: the bound for subnormal results, if not ``bound``."""
    assert np.array_equal(np.isnan(got), np.isnan(want))
    with np.errstate(over="ignore"):
        rounded = exact.astype(np.float32)
    special = ~np.isfinite(rounded) | (rounded == 0)
    assert np.array_equal(got[special & ~np.isnan(want)], want[special & ~np.isnan(want)])
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero]))
    ok = ~special & ~np.isnan(want)
    ulps = np.abs(got[ok] - exact[ok]) / np.spacing(np.abs(rounded[ok])).astype(np.float64)
    tiny = np.abs(rounded[ok]) < np.finfo(np.float32).tiny
    assert ulps[~tiny].max() <= bound
    assert ulps[tiny].max(initial=0) <= (bound if subnormal is None else subnormal)


# Each exponent compiles a kernel of its own (2y is a literal in it, and LLVM folds _pow_const's
# branches on it). 2.5 and -1.5 are exhaustive: 2.5's paths are 4.0's (k = |y| rounded down
# even) and 7.5's (a positive half-integer), -1.5's are -2.5's (a negative half-integer) and
# 1.5's (k = 1).
@pytest.mark.parametrize("y", [pytest.param(2.5, marks=pytest.mark.exhaustive), -2.5, 1.5,
                               pytest.param(-1.5, marks=pytest.mark.exhaustive), 4.0, -5.0,
                               7.5, -8.0])
def test_constant_exponent(y):
    graph = fusejit.parse_ir(f"graph(%x : Float(*)):\n  %e : float = prim::Constant[value={y}]()"
                             "\n  %o : Tensor = aten::pow(%x, %e)\n  return (%o)\n")
    x = _values(np.random.default_rng(1), 10.0)
    got = FusedKernel(graph)(x)[0]
    with np.errstate(all="ignore"):
        _check(got, np.power(x, np.float32(y)), np.power(x.astype(np.float64), y),
               vecpow.ULPS["pow_const_f32"], vecpow.ULPS["pow_const_subnormal"])


# (e and 1e-3 repeat 10.0's and 0.5's path: a float base above and below 1; 2 is an int constant)
@pytest.mark.parametrize("b", [2, 10.0, 0.5, pytest.param(2.718281828459045,
                                                          marks=pytest.mark.exhaustive),
                               pytest.param(1e-3, marks=pytest.mark.exhaustive)])
def test_constant_scalar_base(b):
    graph = fusejit.parse_ir(f"graph(%x : Float(*)):\n  %b : float = prim::Constant[value={b}]()"
                             "\n  %o : Tensor = aten::pow(%b, %x)\n  return (%o)\n")
    y = _values(np.random.default_rng(2), 120.0)
    got = FusedKernel(graph)(y)[0]
    base = np.float32(b)     # (the op computes in float32: the scalar is cast first)
    with np.errstate(all="ignore"):
        _check(got, np.power(base, y), np.power(np.float64(base), y.astype(np.float64)),
               vecpow.ULPS["pow_base_f32"])


_TENSOR_POW = ("graph(%x : Float(*), %y : Float(*)):\n"
               "  %o : Tensor = aten::pow(%x, %y)\n  return (%o)\n")


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the edge values, and random pairs (bit patterns, [-4, 4], and x in (0, 4]
    with y in [-40, 40])."""
    rng = np.random.default_rng(3)
    gx, gy = (g.ravel() for g in np.meshgrid(EDGES, EDGES))
    bits = rng.integers(0, 1 << 32, (2, 3000), dtype=np.uint64).astype(np.uint32).view(np.float32)
    # (the last 9000 pairs: x normal and positive, y finite, so their strips take the kernel's
    # short form, pow_inside_f32, where |y log2 x| <= 1000 in every pair; x = 2**u, y = v / u
    # puts y log2 x = v anywhere from below the subnormal results to past the overflow, where
    # the error is largest; then v to +-990, results 0 and inf from the short form's unclamped
    # 2**z; then v to +-1200, strips the full form computes again)
    u = rng.uniform(-126, 128, 9000)
    v = np.concatenate([rng.uniform(-151, 129, 3000), rng.uniform(-990, 990, 3000),
                        rng.uniform(-1200, 1200, 3000)])
    x = np.concatenate([gx, bits[0], rng.uniform(-4, 4, 3000).astype(np.float32),
                        rng.uniform(0, 4, 3000).astype(np.float32), np.exp2(u).astype(np.float32)])
    y = np.concatenate([gy, bits[1], rng.uniform(-4, 4, 3000).astype(np.float32),
                        rng.uniform(-40, 40, 3000).astype(np.float32), (v / u).astype(np.float32)])
    return x, y


def test_tensor_pow_on_random_pairs_and_special_grid():
    """vp.pow_f32 (tensor ** tensor) on ``_pairs`` within vecmath.F32_ULPS's bound."""
    x, y = _pairs()
    got = FusedKernel(fusejit.parse_ir(_TENSOR_POW))(x, y)[0]
    with np.errstate(all="ignore"):
        want = np.power(x, y)
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
    _check(got, want, exact, vecmath.F32_ULPS["pow"])


def test_tensor_pow_in_a_parallel_kernel(parallel_plans):
    """The parallel kernel (tiles of a few strips on two threads): its strips outside the short
    form's domain are marked and computed again by the serial kernel, so the result is the
    serial kernel's, bit for bit. (On AVX-512 hosts the parallel kernel's strips call the
    strip form, ``vp.pow_strip_f32``, and it did not compile: its strip views were missing.)"""
    from fusejit.runtime.fusion.loops import STRIP

    x, y = _pairs()
    want = FusedKernel(fusejit.parse_ir(_TENSOR_POW))(x, y)[0]
    with parallel_plans(2 * STRIP + 5):
        kernel = FusedKernel(fusejit.parse_ir(_TENSOR_POW))
        assert not kernel._prepare((x, y))[3].serial
        got = kernel(x, y)[0]
    assert np.array_equal(got, want, equal_nan=True)


def test_general_constant_exponents_and_scalar_argument_bases():
    """pow with a constant exponent that is no half-integer, and with a scalar argument as the
    base, float32 and float64 in one kernel: the general forms (the short one in strips of
    normal positive bases and finite exponents, the full one elsewhere). Special values as
    NumPy's; float32 within F32_ULPS of the float64 power, float64 within POW_F64_ULPS of
    NumPy's."""
    graph = fusejit.parse_ir(
        "graph(%x : Float(*), %d : Double(*), %s : float):\n"
        "  %third : float = prim::Constant[value=0.3333333333333333]()\n"
        "  %c : float = prim::Constant[value=-2.2]()\n"
        "  %w : float = prim::Constant[value=-7.7]()\n"
        "  %a : Tensor = aten::pow(%x, %third)\n  %b : Tensor = aten::pow(%s, %x)\n"
        "  %e : Tensor = aten::pow(%d, %c)\n  %f : Tensor = aten::pow(%s, %d)\n"
        "  %g : Tensor = aten::pow(%x, %w)\n  %h : Tensor = aten::pow(%x, %s)\n"
        "  return (%a, %b, %e, %f, %g, %h)\n")
    rng = np.random.default_rng(4)
    x = _values(rng, 10.0)
    # (exponents to +-11000: with the base 0.9408, float64 e**(th + tl) gets a tl of ~0.2,
    # log_dd's low part holding its series' tail; 2**n from th alone was 867 ulps off)
    x = np.concatenate([x, np.exp2(rng.uniform(-126, 128, 4000)).astype(np.float32),
                        rng.uniform(-150, 128, 4000).astype(np.float32),
                        rng.uniform(-11000, 11000, 4000).astype(np.float32)])
    d = x.astype(np.float64) * np.float64(1.0 + 2.0 ** -40)
    # (x ** s: a +0 base takes the short form on 1, then its exact value: s = 0, NaN too)
    for s in (2.0, 0.3, -2.0, 0.9408492422553973, 0.0, np.nan):
        a, b, e, f, g, h = FusedKernel(graph)(x, d, s)
        with np.errstate(all="ignore"):
            _check(h, np.power(x, np.float32(s)), np.power(x.astype(np.float64),
                                                           np.float64(np.float32(s))),
                   vecmath.F32_ULPS["pow"])
            # (the op computes in float32: y is cast first. -7.7: |y log2 x| up to 985 in the
            # short form, which tests x alone for a constant |y| <= 7.8, results 0 and inf;
            # its shorter polynomials have their own bound)
            for got, c in ((a, np.float32(1 / 3)), (g, np.float32(-7.7))):
                _check(got, np.power(x, c), np.power(x.astype(np.float64), np.float64(c)),
                       vecpow.ULPS["pow_small_f32"])
            _check(b, np.power(np.float32(s), x), np.power(np.float64(np.float32(s)),
                                                            x.astype(np.float64)),
                   vecmath.F32_ULPS["pow"])
            for got, want in ((e, np.power(d, -2.2)), (f, np.power(s, d))):
                assert np.array_equal(np.isnan(got), np.isnan(want))
                fixed = (~np.isfinite(want) | (want == 0)) & ~np.isnan(want)
                assert np.array_equal(got[fixed], want[fixed])
                assert np.array_equal(np.signbit(got[fixed]), np.signbit(want[fixed]))
                ok = np.isfinite(want) & (want != 0)
                ulps = np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok]))
                assert ulps.max() <= vecmath.POW_F64_ULPS
