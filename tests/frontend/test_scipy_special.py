"""``scipy.special`` functions inside ``@fusejit.jit`` against SciPy itself: float32 and
float64 arrays and Python floats, special values included (gammaln at -inf is SciPy's -inf,
not ``aten::lgamma``'s +inf)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit

special = pytest.importorskip("scipy.special")

_SPECIAL = [0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 0.5, 1e-30, 30.0, 3e38, np.inf, -np.inf, np.nan]


def erf_of(x):
    return special.erf(x)


def erfc_of(x):
    return special.erfc(x)


def gammaln_of(x):
    return special.gammaln(x)


@pytest.mark.parametrize("fn", [erf_of, erfc_of, gammaln_of])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_functions_match_scipy(fn, dtype):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-12, 12, 4000), _SPECIAL]).astype(dtype)
    got = fusejit.jit(fn)(x)
    with np.errstate(all="ignore"):
        want = fn(x)
    assert got.dtype == want.dtype == dtype
    # (ulps: vecspecial's and veclgamma's documented bounds; lgamma near its zeros and
    # poles in absolute terms)
    np.testing.assert_allclose(got, want, rtol=8 * np.finfo(dtype).eps, atol=1e-6,
                               equal_nan=True)
    exact = ~np.isfinite(want)
    assert np.array_equal(got[exact], want[exact], equal_nan=True), x[exact]


@pytest.mark.parametrize("value", [2.5, -math.inf, math.inf, 0.0, -3.0, -2.5])
def test_gammaln_of_a_python_float_is_scipys(value):
    got = fusejit.jit(gammaln_of)(value)
    want = special.gammaln(value)
    assert type(got) is type(want)
    assert got == pytest.approx(want, rel=1e-14) if math.isfinite(want) else got == want
