"""Elementwise math a whole-graph function computes itself (``element_function``): the float
maps with vectorisable forms (``element_helpers.FAST_MAPS``: log1p, expm1, log2, log10, sinh,
cosh, arcsin, arccos, arctan, ...; ``TRIG_MAPS``: sin, cos, tan, with libm beyond the fast
forms' limit), NumPy's ufuncs for floor, ceil, rint, trunc, signbit,
hypot, arctan2, integer shifts, ``np.prod``, ``np.cumsum`` / ``np.cumprod`` (along an axis
too) and powers by an array of exponents. Each program is compiled with a fallback that fails
the test, so every value checked is the compiled function's, against NumPy's: special values
(NaN, infinities, signed zeros, subnormals, domain edges) exactly, others within a few ulps."""

from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.conftest import compiled_whole


def _agrees(got, want, ulps=8, what=""):
    """Same dtype and shape; NaN, infinities and zeros (with their signs) where NumPy has
    them; other values within ``ulps`` of NumPy's (each side's error, the fast forms' bounds
    in ``fusion/fastmath.py`` and ``fusion/vecmath.py``, and NumPy's own)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    special = ~np.isfinite(want) | (want == 0)
    np.testing.assert_array_equal(got[special], want[special], err_msg=what)
    signed = special & ~np.isnan(want)    # (a NaN's sign bit is no part of its value)
    assert np.array_equal(np.signbit(got[signed]), np.signbit(want[signed])), what
    gap = np.abs(got[~special].astype(np.float64) - want[~special])
    with np.errstate(over="ignore"):      # (the spacing at the largest float is inf)
        ulp = np.spacing(np.abs(want[~special])).astype(np.float64)
    assert np.all(gap <= ulps * ulp), (what, np.max(gap / ulp, initial=0.0))


def _values(dtype):
    info = np.finfo(dtype)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1e-3, -0.999999,
             info.tiny, info.tiny / 4, -info.tiny / 4, info.max, -info.max, 88.0, -88.0, 710.0,
             2.0 ** 60]
    rng = np.random.default_rng(11)
    spread = np.concatenate([rng.standard_normal(300), rng.uniform(-1, 1, 300),
                             np.exp(rng.uniform(-40, 40, 300))])
    return np.concatenate([np.array(edges), spread, -spread]).astype(dtype)


def log1p_(x):
    return np.log1p(x)


def expm1_(x):
    return np.expm1(x)


def log2_(x):
    return np.log2(x)


def log10_(x):
    return np.log10(x)


def sinh_(x):
    return np.sinh(x)


def cosh_(x):
    return np.cosh(x)


def arcsin_(x):
    return np.arcsin(x)


def arccos_(x):
    return np.arccos(x)


def arctan_(x):
    return np.arctan(x)


def tan_(x):
    return np.tan(x)


def sin_(x):
    return np.sin(x)


def cos_(x):
    return np.cos(x)


def floor_(x):
    return np.floor(x)


def ceil_(x):
    return np.ceil(x)


def rint_(x):
    return np.rint(x)


def round2_(x):
    return np.round(x, 2)


def trunc_(x):
    return np.trunc(x)


def signbit_(x):
    return np.signbit(x)


def copysign_(x):
    return np.copysign(1.0, x)


MAPS = [log1p_, expm1_, log2_, log10_, sinh_, cosh_, arcsin_, arccos_, arctan_, tan_, sin_, cos_,
        floor_, ceil_, rint_, round2_, trunc_, signbit_, copysign_]


def every_map(x):
    return log1p_(x), expm1_(x), log2_(x), log10_(x), sinh_(x), cosh_(x), arcsin_(x), \
        arccos_(x), arctan_(x), tan_(x), sin_(x), cos_(x), floor_(x), ceil_(x), rint_(x), \
        round2_(x), trunc_(x), signbit_(x), copysign_(x)


@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                              marks=pytest.mark.exhaustive)])
def test_float_maps_of_arrays_agree_with_numpy(dtype):
    """(One function of every map, compiled once a dtype: the suite's compile time.)"""
    x = _values(dtype)
    compiled = compiled_whole(every_map, x)
    with np.errstate(all="ignore"):
        for fn, got, want in zip(MAPS, compiled(x), every_map(x)):
            _agrees(got, want, what=fn.__name__)


def some_maps(x):
    return log1p_(x), arcsin_(x), rint_(x), signbit_(x)


def test_maps_of_strided_matrices_keep_their_shape():
    x = _values(np.float64)[:48].reshape(4, 12)
    compiled = compiled_whole(some_maps, x)
    for y in (x, x[:, ::2], x.T[::-1]):     # (any rank, layout and stride)
        with np.errstate(all="ignore"):
            for got, want in zip(compiled(y), some_maps(y)):
                _agrees(got, want)


@pytest.mark.parametrize("fn", [log1p_, expm1_, arctan_, tan_, floor_, rint_, signbit_],
                         ids=lambda f: f.__name__)
def test_float_maps_of_0d_values_agree_with_numpy(fn):
    def of_element(x):
        return fn(x[3]) + fn(x[0]) * 0    # (0-d values: Numba numbers in the function)

    x = np.array([0.25, -1.5, 2.5, 3.5, 1e-3])
    _agrees(compiled_whole(of_element, x)(x), of_element(x))


def test_maps_of_integer_arrays_are_float64():
    def of_ints(i):
        return np.log1p(i), np.arctan(i), np.hypot(i, i), np.arctan2(i, 3)

    i = np.arange(-3, 40).astype(np.int32)[3:]
    for got, want in zip(compiled_whole(of_ints, i)(i), of_ints(i)):
        _agrees(got, want)


@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                              marks=pytest.mark.exhaustive)])
def test_hypot_and_arctan2_agree_with_numpy(dtype):
    def binary(x, y):
        return np.hypot(x, y), np.arctan2(y, x), np.hypot(x, 2.0), np.arctan2(1.0, x)

    x = _values(dtype)
    y = np.roll(x, 7)
    # (hypot: C's, as NumPy's; arctan2 of two arrays: the fast form, 2 ulps, against NumPy's
    # own SIMD one)
    with np.errstate(all="ignore"):
        for got, want, ulps in zip(compiled_whole(binary, x, y)(x, y), binary(x, y), (2, 4, 2, 4)):
            _agrees(got, want, ulps)


@pytest.mark.parametrize("dtype", [np.int8, *(pytest.param(d, marks=pytest.mark.exhaustive)
                                              for d in (np.int16, np.int32)), np.int64, np.uint8])
def test_shifts_by_constants_wrap_as_numpy_does(dtype):
    def shifts(i):
        return i << 1, i >> 2, i << 7, (i >> 1) + (i << 3)

    info = np.iinfo(dtype)
    i = np.array([0, 1, 3, info.max, info.min, info.max // 3, info.min // 5 + 1], dtype=dtype)
    for got, want in zip(compiled_whole(shifts, i)(i), shifts(i)):
        _agrees(got, want)


def test_a_shift_past_the_width_is_numpys():
    """C leaves a shift by the width or more undefined; NumPy gives 0, or -1 for a negative
    number shifted right (the whole-graph function tests the count: it was left to the
    interpreter)."""
    def too_far(i):
        return i << 40, i >> 40, i[0] >> 40, i[1] << 33

    i = np.array([-7, 5, 0, np.iinfo(np.int32).min], dtype=np.int32)
    for got, want in zip(compiled_whole(too_far, i)(i), too_far(i)):
        _agrees(got, want)


# (each layout of the operands is a compile of its own: the default suite runs float64's
# contiguous and strided ones, and bool's, whose products are int64, contiguous)
@pytest.mark.parametrize("dtype, layout", [
    pytest.param(dtype, layout, marks=[] if (dtype, layout) in {
        (np.float64, "contiguous"), (np.float64, "strided"), (np.bool_, "contiguous")}
        else [pytest.mark.exhaustive])
    for dtype in (np.float64, np.bool_, np.float32, np.int32)
    for layout in ("contiguous", "strided", "transposed")])
def test_prod_and_running_products_in_numpys_order_and_dtype(dtype, layout):
    def products(x, m):
        return x.prod(), np.cumprod(x), np.cumsum(m, axis=0), np.cumprod(m, axis=1), \
            np.cumsum(m, axis=-1)

    rng = np.random.default_rng(3)
    x = (1 + 0.05 * rng.standard_normal(300)) if dtype in (np.float32, np.float64) else \
        rng.integers(0, 3, 300)
    x = x.astype(dtype)
    m = x[:48].reshape(6, 8)
    compiled = compiled_whole(products, x, m)
    cases = {"contiguous": [(x, m), (x[:0], m[:0]), (x[:1], m[:1])],
             "strided": [(x[::-3], m[:, ::-2])], "transposed": [(x[1::2], m.T[:, :5])]}
    for args in cases[layout]:
        for got, want in zip(compiled(*args), products(*args)):
            np.testing.assert_array_equal(got, want)     # (sequential: exactly NumPy's)
            assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_powers_by_an_array_of_exponents(dtype):
    def powers(x, e):
        return np.power(x, e), 2.0 ** e, 10 ** np.linspace(0, 2, 5).astype(x.dtype)

    x = _values(dtype)
    with np.errstate(all="ignore"):
        e = np.roll(x, 5) % 7
        for got, want in zip(compiled_whole(powers, x, e)(x, e), powers(x, e)):
            _agrees(got, want, ulps=2)


def test_trig_maps_run_the_vectorisable_forms_and_libm_beyond_their_limit():
    """sin, cos and tan of arrays call the maps over the fast forms (Numba's np.sin calls
    libm element by element); arguments beyond the forms' limit (2^60, the largest float)
    still get libm's values (checked above)."""
    from fusejit.runtime.element_function import element_source
    from tests.runtime.conftest import scripted

    for dtype in ("float32", "float64"):
        source = element_source(scripted(every_map, _values(np.dtype(dtype))), [])
        for kind in ("sin", "cos", "tan"):
            assert f"_map_{kind}_{dtype}(" in source, (kind, dtype)
