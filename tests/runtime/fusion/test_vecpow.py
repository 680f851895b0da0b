"""``vecpow``'s constant-operand pow forms against NumPy's power (the same NaN, infinities and
signed zeros) and against the exact value (40-digit decimal arithmetic, correctly rounded by
``float``): float64 x**c for constants c with 2c an integer (one kernel for all of them) and
float64 b**y for constant bases b."""

from __future__ import annotations

import decimal

import numpy as np

import fusejit
from fusejit.runtime.fusion import FusedKernel, vecmath, vecpow

EXPONENTS = (2.5, -2.5, -1.5, 5.0, -3.0, 7.5, -8.0)
BASES = (2.0, 10.0, 0.5, 1e-3)
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, -1e-310, 1.0,
                  -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1e300, -1e300, 1e-300, 1.7e308,
                  -1.7e308, 1e154, 1e-160, 1e123, 1e-123, 1e38, 1e-41])


def _kernel(lines: list[str], outs: list[str]) -> FusedKernel:
    return FusedKernel(fusejit.parse_ir(
        "graph(%x : Double(*)):\n" + "".join(f"  {line}\n" for line in lines)
        + f"  return ({', '.join(outs)})\n"))


def _exact(base: float, exponent: float) -> decimal.Decimal:
    """base**exponent to 40 significant digits, for finite base > 0."""
    with decimal.localcontext() as context:
        context.prec = 40
        context.Emin, context.Emax = -999999, 999999
        return decimal.Decimal(base) ** decimal.Decimal(exponent)


def _ulps(got: np.ndarray, exact: list[decimal.Decimal]) -> np.ndarray:
    """|got - exact| in ulps of the correctly rounded exact value."""
    units = np.spacing(np.abs(np.array([float(e) for e in exact])))
    with decimal.localcontext() as context:
        context.prec = 40
        return np.array([float(abs(decimal.Decimal(g) - e) / decimal.Decimal(u))
                         for g, e, u in zip(got, exact, units)])


def _check(x: np.ndarray, got: np.ndarray, want: np.ndarray, exact: list, sign: np.ndarray,
           sample: np.ndarray) -> None:
    """Specials equal NumPy's; sampled finite results within the bound of the exact value
    (subnormal results, which may round twice: their own bound)."""
    assert np.array_equal(np.isnan(got), np.isnan(want)), x[np.isnan(got) != np.isnan(want)]
    fixed = ~np.isfinite(want) | (want == 0) | ~np.isfinite(got) | (got == 0)
    fixed &= ~np.isnan(want)
    assert np.array_equal(got[fixed], want[fixed]), (x[fixed][got[fixed] != want[fixed]])
    assert np.array_equal(np.signbit(got[fixed]), np.signbit(want[fixed]))
    g = got[sample] * sign
    ulps = _ulps(g, exact)
    tiny = np.abs(g) < np.finfo(np.float64).tiny
    worst = np.argmax(np.where(tiny, 0, ulps))
    assert ulps[worst] <= vecpow.ULPS["pow_const_f64"], (x[sample][worst], g[worst])
    assert ulps[tiny].max(initial=0) <= vecpow.ULPS["pow_const_subnormal"], (
        x[sample][tiny], g[tiny], [exact[i] for i in np.flatnonzero(tiny)])


def test_float64_constant_exponents():
    rng = np.random.default_rng(11)
    x = np.concatenate([EDGES, rng.uniform(-10, 10, 3000),
                        np.exp(rng.uniform(-745, 709, 3000)) * rng.choice([-1, 1], 3000),
                        # results near the overflow and underflow thresholds, per exponent
                        *(np.exp(rng.uniform(-746, 710, 400) / abs(y)) for y in EXPONENTS)])
    lines = [f"%c{i} : float = prim::Constant[value={y}]()" for i, y in enumerate(EXPONENTS)]
    lines += [f"%o{i} : Tensor = aten::pow(%x, %c{i})" for i in range(len(EXPONENTS))]
    outs = _kernel(lines, [f"%o{i}" for i in range(len(EXPONENTS))])(x)
    sample = np.flatnonzero(np.isfinite(x) & (x != 0))[::4]
    for y, got in zip(EXPONENTS, outs):
        with np.errstate(all="ignore"):
            want = np.power(x, y)
        finite = sample[np.isfinite(want[sample]) & (want[sample] != 0)]
        finite = finite[~np.isnan(want[finite])]
        exact = [_exact(abs(v), y) for v in x[finite]]
        sign = np.where((x[finite] < 0) & (y % 2 == 1), -1.0, 1.0)
        _check(x, got, want, exact, sign, finite)


def test_float64_constant_bases():
    rng = np.random.default_rng(12)
    y = np.concatenate([EDGES, rng.uniform(-40, 40, 3000), rng.uniform(-1100, 1100, 3000),
                        rng.integers(-60, 60, 300).astype(np.float64)])
    lines = [f"%b{i} : float = prim::Constant[value={b}]()" for i, b in enumerate(BASES)]
    lines += [f"%o{i} : Tensor = aten::pow(%b{i}, %x)" for i in range(len(BASES))]
    outs = _kernel(lines, [f"%o{i}" for i in range(len(BASES))])(y)
    for b, got in zip(BASES, outs):
        with np.errstate(all="ignore"):
            want = np.power(b, y)
        sample = np.flatnonzero(np.isfinite(want) & (want != 0))[::3]
        exact = [_exact(b, v) for v in y[sample]]
        assert np.array_equal(np.isnan(got), np.isnan(want))
        fixed = (~np.isfinite(want) | (want == 0) | (y == 0)) & ~np.isnan(want)
        assert np.array_equal(got[fixed], want[fixed]), y[fixed][got[fixed] != want[fixed]]
        ulps = _ulps(got[sample], exact)
        assert ulps.max() <= vecpow.ULPS["pow_base_f64"], (b, y[sample][np.argmax(ulps)])


def test_float64_small_general_constant_exponents():
    """float64 x**y for constants |y| <= ``oplib.binary.POW_Y_NARROW_F64`` that are no
    half-integers: kernels test x alone for the short form (y log x stays in its range for every
    normal x), so strips of normal positive x from the smallest normal to the largest finite
    take it. Specials as NumPy's; the rest within POW_F64_ULPS of NumPy's power, and bit-equal
    whether a strip is computed by the short form or, holding a zero, by the full one."""
    exponents = (1 / 3, -0.99, -1.7)       # (-1.7: y log x tested as well)
    lines = [f"%c{i} : float = prim::Constant[value={y!r}]()" for i, y in enumerate(exponents)]
    lines += [f"%o{i} : Tensor = aten::pow(%x, %c{i})" for i in range(len(exponents))]
    kernel = _kernel(lines, [f"%o{i}" for i in range(len(exponents))])
    rng = np.random.default_rng(13)
    n = 1024                                 # (``loops.STRIP``: whole strips of positive x)
    x = np.concatenate([np.exp(rng.uniform(-708.39, 709.78, 2 * n)), rng.uniform(0, 10, n),
                        [np.finfo(np.float64).tiny, np.finfo(np.float64).max] * (n // 2)])
    # (-0: outside the short form; a +0 base takes it, on 1, then its exact value)
    spoiled = np.where(np.arange(x.size) % n == 7, -0.0, x)
    both = np.concatenate([x, EDGES])
    outs = kernel(both)
    for y, got, full in zip(exponents, outs, kernel(np.concatenate([spoiled, EDGES]))):
        with np.errstate(all="ignore"):
            want = np.power(both, y)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        fixed = (~np.isfinite(want) | (want == 0)) & ~np.isnan(want)
        assert np.array_equal(got[fixed], want[fixed])
        ok = np.isfinite(want) & (want != 0)
        ulps = np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok]))
        assert ulps.max() <= vecmath.POW_F64_ULPS
        keep = spoiled != 0.0
        np.testing.assert_array_equal(got[:x.size][keep], full[:x.size][keep])
