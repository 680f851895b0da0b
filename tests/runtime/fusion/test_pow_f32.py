"""float32 pow: tensor ** tensor (fastmath.pow_f32), and with a constant exponent (2y an
integer, |y| <= 8: vecpow.pow_const_f32, double-float products and a corrected square root)
and with a constant scalar base (vecpow.pow_base_f32, e**(y ln b) with y ln b in
double-float), against NumPy's power: the same NaN, infinities and signed zeros, and finite
results within ``vecpow.ULPS``'s bounds of the exact value (tensor ** tensor: half an ulp)."""

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


@pytest.mark.parametrize("y", [2.5, -2.5, 1.5, -1.5, 4.0, -5.0, 7.5, -8.0])
def test_constant_exponent(y):
    graph = fusejit.parse_ir(f"graph(%x : Float(*)):\n  %e : float = prim::Constant[value={y}]()"
                             "\n  %o : Tensor = aten::pow(%x, %e)\n  return (%o)\n")
    x = _values(np.random.default_rng(1), 10.0)
    got = FusedKernel(graph)(x)[0]
    with np.errstate(all="ignore"):
        _check(got, np.power(x, np.float32(y)), np.power(x.astype(np.float64), y),
               vecpow.ULPS["pow_const_f32"], vecpow.ULPS["pow_const_subnormal"])


@pytest.mark.parametrize("b", [2, 10.0, 0.5, 2.718281828459045, 1e-3])
def test_constant_scalar_base(b):
    graph = fusejit.parse_ir(f"graph(%x : Float(*)):\n  %b : float = prim::Constant[value={b}]()"
                             "\n  %o : Tensor = aten::pow(%b, %x)\n  return (%o)\n")
    y = _values(np.random.default_rng(2), 120.0)
    got = FusedKernel(graph)(y)[0]
    base = np.float32(b)     # (the op computes in float32: the scalar is cast first)
    with np.errstate(all="ignore"):
        _check(got, np.power(base, y), np.power(np.float64(base), y.astype(np.float64)),
               vecpow.ULPS["pow_base_f32"])


def test_tensor_pow_on_random_pairs_and_special_grid():
    """fm.pow_f32 (tensor ** tensor): every pair of the edge values, and random pairs (bit
    patterns, [-4, 4], and x in (0, 4] with y in [-40, 40]) within vecmath.F32_ULPS's bound."""
    graph = fusejit.parse_ir("graph(%x : Float(*), %y : Float(*)):\n"
                             "  %o : Tensor = aten::pow(%x, %y)\n  return (%o)\n")
    rng = np.random.default_rng(3)
    gx, gy = (g.ravel() for g in np.meshgrid(EDGES, EDGES))
    bits = rng.integers(0, 1 << 32, (2, 3000), dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([gx, bits[0], rng.uniform(-4, 4, 3000).astype(np.float32),
                        rng.uniform(0, 4, 3000).astype(np.float32)])
    y = np.concatenate([gy, bits[1], rng.uniform(-4, 4, 3000).astype(np.float32),
                        rng.uniform(-40, 40, 3000).astype(np.float32)])
    got = FusedKernel(graph)(x, y)[0]
    with np.errstate(all="ignore"):
        want = np.power(x, y)
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
    _check(got, want, exact, vecmath.F32_ULPS["pow"])
