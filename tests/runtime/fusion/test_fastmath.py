"""The fast float32 functions' error in ulps over a dense sample of all float32 bit patterns
plus the edges (the full 2^32 sweep is ``python tools/ulp_sweep.py f32``)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import fusejit
from fusejit.runtime.fusion import FusedKernel, fastmath, vecmath
from fusejit.runtime.fusion.fastmath import ULP_BOUNDS, ulp_errors

EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 88.72283, 88.72284, 89.0,
                  -87.33654, -103.97208, -103.97209, -104.0, 1e-45, -1e-45, 1.17549435e-38,
                  3.4028235e38, -3.4028235e38, 0.625, -0.625, 9.01, 0.5, 2.0, 1e-7, -1e-7,
                  0.6931472, 16.6],
                 dtype=np.float32)


@pytest.mark.parametrize("name", sorted(ULP_BOUNDS))
def test_ulp_error_within_documented_bound(name):
    bits = np.arange(0, 1 << 32, 65521, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32), EDGES])
    err = ulp_errors(name, x)
    worst = int(np.argmax(err))
    assert err[worst] <= ULP_BOUNDS[name], (x[worst], err[worst])


def test_ulp_measure_counts_ulps():
    """The measure itself: correctly rounded results score <= 0.5, results 4 steps off ~4."""
    x = np.array([0.5, 1.5, -3.0, 10.0], np.float32)
    exact = np.exp(x.astype(np.float64)).astype(np.float32)
    assert np.all(ulp_errors("exp", x, exact) <= 0.5)
    off = exact
    for _ in range(4):
        off = np.nextafter(off, np.float32(np.inf))
    err = ulp_errors("exp", x, off)
    assert np.all((err > 3.4) & (err < 4.6))
    assert np.isinf(ulp_errors("exp", np.array([1.0], np.float32),
                               np.array([np.nan], np.float32))).all()


# Where NumPy's float32 ufuncs (the eager reference) give exact answers: zeros of either sign,
# infinities, NaN, subnormals, domain edges and the overflow/underflow thresholds.
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, -1e-40,
                    5.877472e-39, 1.17549435e-38, -1.17549435e-38, 1e-30, 1.0, -1.0, 2.0, 0.5,
                    -1.0000001, -0.99999994, 88.72283, 88.72284, 89.0, 89.41598, 89.416, 90.0,
                    -87.33654, -88.8, -89.5, -103.97208, -104.0, -17.3, -18.0, -18.1, 9.01,
                    20.0, 3.4028235e38, -3.4028235e38, 2.4e-4, -2.4e-4, 6e-8, -6e-8,
                    4096.0, 4096.0005, 16777216.0, 0.49999997, -0.49999997, 1.0000001,
                    4.2535293e37, 4.2535296e37, -4.2535296e37, 4.25353e37],
                   dtype=np.float32)
_NUMPY = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
          "log2": np.log2, "log10": np.log10, "sinh": np.sinh, "cosh": np.cosh,
          "tanh": np.tanh, "sigmoid": lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)),
          "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}


@pytest.mark.parametrize("name", sorted(_NUMPY))
def test_special_values_as_numpy(name):
    """NaN where NumPy has NaN, the same infinities and the same signed zeros; the finite
    results within the documented bound of the exact value (subnormals included)."""
    with np.errstate(all="ignore"):
        want = _NUMPY[name](SPECIAL)
    got = np.empty_like(SPECIAL)
    fastmath._apply(fastmath._NAMES.index(name), SPECIAL, got)
    assert np.array_equal(np.isnan(got), np.isnan(want)), SPECIAL[np.isnan(got) != np.isnan(want)]
    exact = ~np.isfinite(want) | (want == 0)
    assert np.array_equal(got[exact & ~np.isnan(want)], want[exact & ~np.isnan(want)])
    zero = want == 0
    assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), SPECIAL[zero]
    err = ulp_errors(name, SPECIAL, got)
    assert err.max() <= ULP_BOUNDS[name], SPECIAL[np.argmax(err)]


# The kernels' short forms (``templates.inside_form``) against the full forms, over their
# domain: the same arithmetic, so the same bits (the full forms are the ones swept and bounded).
_INSIDE = {"log": (fastmath.log_inside_f32, fastmath.log_f32, fastmath.log_outside),
           "log2": (fastmath.log2_inside_f32, fastmath.log2_f32, fastmath.log_outside),
           "log10": (fastmath.log10_inside_f32, fastmath.log10_f32, fastmath.log_outside),
           "log1p": (fastmath.log1p_inside_f32, fastmath.log1p_f32, fastmath.log1p_outside),
           "expm1": (fastmath.expm1_inside_f32, fastmath.expm1_f32, fastmath.expm1_outside),
           # (float64 log2 and log10 share log's reduction, test and special values: the
           # kernel test below runs them)
           "log_f64": (vecmath.log_inside_f64, vecmath.log_f64, vecmath.log_outside_f64),
           "log1p_f64": (vecmath.log1p_inside_f64, vecmath.log1p_f64,
                         vecmath.log1p_outside_f64),
           "asinh": (fastmath.asinh_inside_f32, fastmath.asinh_f32, fastmath.asinh_outside),
           "acosh": (fastmath.acosh_inside_f32, fastmath.acosh_f32, fastmath.acosh_outside),
           "atanh": (fastmath.atanh_inside_f32, fastmath.atanh_f32, fastmath.atanh_outside),
           "asinh_f64": (vecmath.asinh_inside_f64, vecmath.asinh_f64,
                         vecmath.asinh_outside_f64),
           "acosh_f64": (vecmath.acosh_inside_f64, vecmath.acosh_f64,
                         vecmath.acosh_outside_f64),
           "atanh_f64": (vecmath.atanh_inside_f64, vecmath.atanh_f64,
                         vecmath.atanh_outside_f64)}


@njit(cache=False)
def _both(inside, full, outside, x, a, b, out):
    for i in range(x.size):
        a[i] = inside(x[i])
        b[i] = full(x[i])
        out[i] = outside(x[i])


def _sample64(rng) -> np.ndarray:
    """float64s of every magnitude and sign, the specials, every power of two, and their
    neighbours."""
    x = np.concatenate([rng.integers(0, 1 << 64, 1 << 16, dtype=np.uint64).view(np.float64),
                        rng.uniform(-1, 3, 1 << 12), 2.0 ** rng.uniform(-60, 1030, 1 << 12),
                        SPECIAL.astype(np.float64), 2.0 ** np.arange(-1074.0, 1024.0)])
    return np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)])


# (float32 log2 and log10 are exhaustive cases: their forms are log's, ``_inside`` and ``_full``
# around a polynomial of their own that both call, with log's domain test, log_outside; the
# kernel test below runs them)
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.exhaustive]
                                               if n in ("log2", "log10") else [])
                                  for n in sorted(_INSIDE)])
def test_inside_forms_are_the_full_forms_on_their_domain(name):
    forms = _INSIDE[name]
    if name.endswith("_f64"):
        rng = np.random.default_rng(3)
        with np.errstate(over="ignore", invalid="ignore"):
            x = _sample64(rng)
        module, uint, name = vecmath, np.uint64, name[:-4]
    else:
        bits = np.arange(0, 1 << 32, 7919, dtype=np.uint64).astype(np.uint32)
        x = np.concatenate([bits.view(np.float32), SPECIAL])
        module, uint = fastmath, np.uint32
    a, b = np.empty_like(x), np.empty_like(x)
    outside = np.empty(x.size, np.bool_)
    _both(*forms, x, a, b, outside)
    with np.errstate(invalid="ignore", over="ignore"):
        # (log1p: 1 + x below the bits where 2**-e stops being normal; expm1: 2**n normal)
        top = np.array(module._LOG1P_HI, uint).view(x.dtype)
        # (asinh, acosh: where the argument of log1p stops being 2|x| - 1 and a correction)
        big = 2.0 ** (125 if x.dtype == np.float32 else 28)
        below = np.abs(x) < big if x.dtype == np.float32 else np.abs(x) <= big
        domain = {"log1p": (x > -1) & (x + 1 < top), "expm1": np.abs(x) <= 88,
                  "asinh": below, "acosh": (x >= 1) & below, "atanh": np.abs(x) < 1}.get(
            name, (x >= np.finfo(x.dtype).tiny) & (x < np.inf))
    assert np.array_equal(~outside, domain)
    assert np.array_equal(a[domain].view(uint), b[domain].view(uint))


def _assert_numpys(name: str, x: np.ndarray, got: np.ndarray) -> None:
    """A kernel's ``name`` of ``x`` against NumPy's: NaN where NumPy's is, infinities and zeros
    (their signs too) exact, the rest within the documented bound (float32: ``ULP_BOUNDS`` in
    ulps of the exact value; float64: ``vecmath.F64_ULPS`` in ulps of NumPy's)."""
    with np.errstate(all="ignore"):
        want = _NUMPY[name](x)
    assert np.array_equal(np.isnan(got), np.isnan(want)), name
    exact = ~np.isfinite(want) | (want == 0)
    assert np.array_equal(got[exact], want[exact], equal_nan=True), name
    assert np.array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0])), name
    if x.dtype == np.float32:
        assert ulp_errors(name, x, got).max() <= ULP_BOUNDS[name], name
    else:
        ok = ~exact
        err = np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok]))
        assert err.max() <= vecmath.F64_ULPS[name], name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_kernels_fix_up_the_strips_with_special_arguments(dtype):
    """A kernel of the four logs (short forms in the loop, the full forms where a strip of 1024
    holds 0, a subnormal, a negative, inf, NaN or, for log1p, a huge x) against NumPy, special
    values scattered over some strips and absent from others."""
    ty = "Float" if dtype == "float32" else "Double"
    graph = fusejit.parse_ir(f"graph(%x : {ty}(*)):\n"
                             "  %a : Tensor = aten::log(%x)\n  %b : Tensor = aten::log2(%x)\n"
                             "  %c : Tensor = aten::log10(%x)\n  %d : Tensor = aten::log1p(%x)\n"
                             "  return (%a, %b, %c, %d)\n")
    rng = np.random.default_rng(5)
    x = rng.uniform(0.0, 50.0, 5000).astype(dtype)
    special = SPECIAL.astype(dtype)
    if dtype == "float64":
        special = np.concatenate([special, [2.0 ** 1005, 1.7e308, 5e-324, -5e-324, 2e-308]])
    where = rng.choice(2048, special.size, replace=False) + 2048     # (strips 2 and 3 only)
    x[where] = special
    source = (fastmath.log_inside_f32 if dtype == "float32" else vecmath.log_inside_f64).__name__
    kernel = FusedKernel(graph)
    assert source in kernel.source(x)
    got = kernel(x)
    for name, g in zip(("log", "log2", "log10", "log1p"), got):
        _assert_numpys(name, x, g)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inverse_hyperbolic_kernels_fix_up_the_strips_with_special_arguments(dtype):
    """asinh, acosh and atanh in one kernel: the short forms in the loop, the full forms where a
    strip of 1024 holds NaN, an infinity, |x| >= 1 (atanh), x < 1 (acosh) or a huge x; against
    NumPy."""
    ty = "Float" if dtype == "float32" else "Double"
    graph = fusejit.parse_ir(f"graph(%x : {ty}(*), %y : {ty}(*), %z : {ty}(*)):\n"
                             "  %a : Tensor = aten::asinh(%x)\n  %b : Tensor = aten::acosh(%y)\n"
                             "  %c : Tensor = aten::atanh(%z)\n  return (%a, %b, %c)\n")
    rng = np.random.default_rng(8)
    n = 14 * 1024 + 100
    big = 2.0 ** (125 if dtype == "float32" else 28)
    x = rng.uniform(-30.0, 30.0, n).astype(dtype)
    y = rng.uniform(1.0, 30.0, n).astype(dtype)
    z = rng.uniform(-0.999, 0.999, n).astype(dtype)
    huge = [big, -big, big * 4, float(np.finfo(dtype).max)]
    # the special values in strips 2 and 3; from strip 4 on, one argument a strip outside only
    # the short form's domain of one op (no NaN or infinity beside it, none in the other
    # inputs' strip); in strip 0 the largest inside it
    strip = 4
    for a, alone, last in ((x, huge, np.nextafter(big, 0)), (y, huge, np.nextafter(big, 0)),
                           (z, [1.0, -1.0], np.nextafter(1.0, 0))):
        a[rng.choice(2048, SPECIAL.size, replace=False) + 2048] = SPECIAL
        a[1024 * (strip + np.arange(len(alone))) + 500] = alone
        strip += len(alone)
        a[700] = last
    kernel = FusedKernel(graph)
    source = kernel.source(x, y, z)
    suffix = "f32" if dtype == "float32" else "f64"
    for name in ("asinh", "acosh", "atanh"):
        assert f"{name}_inside_{suffix}(" in source, name
    got = kernel(x, y, z)
    for name, arg, g in zip(("asinh", "acosh", "atanh"), (x, y, z), got):
        _assert_numpys(name, arg, g)
