"""The float32 trigonometry of fused kernels (``vectrig``) against NumPy: exact special values
(signed zeros, infinities, NaN, domain edges), atan2's quadrants, documented ulp bounds on
random samples, and the fix-up of arguments beyond ``TRIG_LIMIT_F32`` mixed with every other
kind of element in one strip."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel, loops, vectrig

_NUMPY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
          "atan": np.arctan}
_cache: dict = {}


def _unary(ops: list[str]) -> FusedKernel:
    key = tuple(ops)
    if key not in _cache:
        body = "".join(f"  %o{i} : Tensor = aten::{op}(%x)\n" for i, op in enumerate(ops))
        outs = ", ".join(f"%o{i}" for i in range(len(ops)))
        _cache[key] = FusedKernel(fusejit.parse_ir(f"graph(%x : Float(*)):\n{body}"
                                                   f"  return ({outs})\n"))
    return _cache[key]


def _ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in float32 ulps at ``exact`` (float64) rounded; NaN/inf/zero sign must
    match exactly (0 or inf)."""
    want = exact.astype(np.float32)
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - exact) / np.spacing(np.abs(want)).astype(
            np.float64)
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got)
                                                                     & np.isnan(want))
    err[same] = 0.0
    err[~same & ~(np.isfinite(got) & np.isfinite(want))] = np.inf
    err[~same & (got == 0) & (want == 0)] = np.inf      # (a zero of the wrong sign)
    return err


def _specials() -> np.ndarray:
    f = np.finfo(np.float32)
    v = np.array([0.0, f.smallest_subnormal, f.tiny, 1e-30, 1e-8, 1e-4, 0.5, 0.6, 1.0, 2.0,
                  np.pi / 4, np.pi / 2, np.pi, 3 * np.pi / 2, 100.0, 12345.678,
                  vectrig.TRIG_LIMIT_F32, 1e6, 1e20, f.max, np.inf, np.nan], np.float32)
    with np.errstate(over="ignore"):
        near = np.concatenate([np.nextafter(v, np.float32(np.inf)),
                               np.nextafter(v, np.float32(0))])
    v = np.concatenate([v, near])
    return np.concatenate([v, -v])


@pytest.mark.parametrize("op", sorted(_NUMPY))
def test_special_values_match_numpy(op):
    """At zeros (signed), subnormals, infinities, NaN, +-1 and past it, multiples of pi/2,
    the fix-up limit and beyond: NaN, infinities and zeros exactly as NumPy's float64
    function rounded, everything else within the documented bound."""
    x = _specials()
    got = _unary([op])(x)[0]
    with np.errstate(all="ignore"):
        exact = _NUMPY[op](x.astype(np.float64))
    err = _ulps(got, exact)
    bad = np.flatnonzero(err > vectrig.ULPS[op])
    assert not bad.size, [(x[i], got[i], exact[i]) for i in bad[:5]]


def test_domain_edges_and_exact_values():
    x = np.array([1.0, -1.0, np.nextafter(np.float32(1), np.float32(2)), -1.5, 0.0, -0.0,
                  np.inf, -np.inf], np.float32)
    asin, acos, atan = _unary(["asin", "acos", "atan"])(x)
    half_pi = np.float32(np.pi / 2)
    np.testing.assert_array_equal(asin, [half_pi, -half_pi, np.nan, np.nan, 0.0, -0.0,
                                         np.nan, np.nan])
    np.testing.assert_array_equal(acos, [0.0, np.float32(np.pi), np.nan, np.nan, half_pi,
                                         half_pi, np.nan, np.nan])
    np.testing.assert_array_equal(atan[4:], [0.0, -0.0, half_pi, -half_pi])
    assert np.signbit(asin[5]) and np.signbit(atan[5]) and not np.signbit(acos[0])
    s, c, t = _unary(["sin", "cos", "tan"])(np.array([0.0, -0.0], np.float32))
    np.testing.assert_array_equal(np.signbit(s), [False, True])
    np.testing.assert_array_equal(np.signbit(t), [False, True])
    np.testing.assert_array_equal(c, [1.0, 1.0])


@pytest.mark.parametrize("op", sorted(_NUMPY))
def test_ulp_bound_on_a_random_sample(op):
    """2^16 random arguments where each function changes fastest (|x| < 4; [-1, 1] for asin
    and acos) and 2^14 of every magnitude up to the fix-up limit and beyond."""
    rng = np.random.default_rng(11)
    lo = 1.0 if op in ("asin", "acos") else 4.0
    x = np.concatenate([rng.uniform(-lo, lo, 1 << 16),
                        np.exp(rng.uniform(-20, 14, 1 << 14)) * rng.choice([-1, 1], 1 << 14)])
    x = x.astype(np.float32)
    got = _unary([op])(x)[0]
    with np.errstate(all="ignore"):
        exact = _NUMPY[op](x.astype(np.float64))
    err = _ulps(got, exact)
    worst = int(np.argmax(err))
    assert err[worst] <= vectrig.ULPS[op], (x[worst], got[worst], exact[worst])


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    graph = fusejit.parse_ir("graph(%y : Float(*), %x : Float(*)):\n"
                             "  %o : Tensor = aten::atan2(%y, %x)\n  return (%o)\n")
    return FusedKernel(graph)(y, x)[0]


def test_atan2_quadrants_zeros_and_infinities():
    v = np.array([0.0, -0.0, 1e-40, 1.0, 2.5, 3e38, np.inf, np.nan], np.float32)
    v = np.concatenate([v, -v[2:]])
    y, x = (a.ravel() for a in np.meshgrid(v, v))
    rng = np.random.default_rng(12)
    y = np.concatenate([y, rng.uniform(-10, 10, 1 << 16).astype(np.float32)])
    x = np.concatenate([x, rng.uniform(-10, 10, 1 << 16).astype(np.float32)])
    # the special pairs fill the first strip (the full form); a later strip holds one NaN y and
    # one subnormal pair among ordinary pairs, which its short form takes
    y[3 * loops.STRIP + 7] = np.nan
    y[3 * loops.STRIP + 9], x[3 * loops.STRIP + 9] = 1e-40, -3e-41
    got = _atan2(y, x)
    exact = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    err = _ulps(got, exact)
    worst = int(np.argmax(err))
    assert err[worst] <= vectrig.ULPS["atan2"], (y[worst], x[worst], got[worst], exact[worst])


def test_fix_up_among_every_kind_of_element():
    """Arguments past the limit (libm's value), NaN and infinities (NaN) and ordinary ones in
    the same strips, the last strip partial: every element as NumPy's float64 function."""
    rng = np.random.default_rng(13)
    n = 2 * loops.STRIP + 5
    x = rng.uniform(-10, 10, n).astype(np.float32)
    pick = rng.random(n)
    x[pick < 0.02] = np.float32(3.0e7)
    x[(pick >= 0.02) & (pick < 0.03)] = np.inf
    x[(pick >= 0.03) & (pick < 0.04)] = np.nan
    x[-1] = np.nextafter(np.float32(vectrig.TRIG_LIMIT_F32), np.float32(np.inf))
    x[-2] = -x[-1]
    got = _unary(["sin", "cos", "tan"])(x)
    for op, g in zip(("sin", "cos", "tan"), got):
        with np.errstate(all="ignore"):
            err = _ulps(g, _NUMPY[op](x.astype(np.float64)))
        worst = int(np.argmax(err))
        assert err[worst] <= vectrig.ULPS[op], (op, x[worst], g[worst])
