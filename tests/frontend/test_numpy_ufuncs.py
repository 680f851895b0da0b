"""The NumPy ufuncs of ``frontend/numpy_ufuncs.py`` (np.sign as fusible selects too) and the reductions' ``dtype=`` argument in
``@fusejit.jit`` against NumPy itself: values (NaN, infinities and signed zeros included),
shapes and dtypes. One program holds them all, so each dtype compiles once."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit


def floats(x, y):
    return (np.reciprocal(x + 3.0) + np.fabs(x) + np.positive(x),
            np.deg2rad(x) + np.radians(y) + np.rad2deg(x) + np.degrees(y),
            np.fmax(x, y), np.fmin(x, y), np.fmax(x, np.nan), np.fmin(np.nan, y),
            np.float_power(np.abs(x) + 1, 1.5), np.heaviside(x, 0.5), np.sinc(x),
            np.logaddexp2(x, y), np.nan_to_num(np.log(x)),
            np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
            np.ptp(y, axis=1), np.ptp(y, axis=-1, keepdims=True),
            np.mean(x, axis=1, dtype=np.float64), y.sum(1, np.float64),
            np.sum(x, 0, None, None, True), np.sign(x), np.sign(y) * np.sqrt(np.abs(x)))


def integers(i):
    return (np.fabs(i) + np.deg2rad(i), np.fmax(i, 2), np.heaviside(i, 0.5), np.nan_to_num(i),
            np.sign(i), np.sign(i.astype(np.int8)), np.sign(i.astype(np.uint8)))


# (float32 repeats the frontend's ufunc lowering, which does not depend on the dtype; each op's
# float32 kernels are checked in tests/runtime/fusion/test_ops.py and test_edge_values.py)
@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])
def test_float_ufuncs_match_numpy(dtype):
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(-3, 3, (6, 9)).astype(dtype) for _ in range(2))
    x[0, :6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    y[0, :6] = [np.nan, np.inf, -np.inf, -0.0, np.nan, 1.0]
    x[1, :3], y[1, :3] = [1.0, np.inf, np.nan], [np.nan, np.inf, 2.0]
    with np.errstate(all="ignore"):
        want, got = floats(x, y), fusejit.jit(floats)(x, y)
    rtol = 1e-5 if dtype == np.float32 else 1e-13      # (sums of rounded terms)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, k
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=str(k))
    sign = got[-2]                       # (np.sign(-0.0) is 0.0; NaN stays NaN)
    assert np.array_equal(np.signbit(sign), np.signbit(want[-2]))


def test_integer_ufuncs_match_numpy():
    i = np.arange(-6, 6).reshape(3, 4)
    for g, w in zip(fusejit.jit(integers)(i), integers(i)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_integer_reciprocal_is_refused_with_the_line():
    def inverse(i):
        return np.reciprocal(i)

    with pytest.raises(fusejit.FusejitError, match=r"np\.reciprocal of int64.*1 / x"):
        fusejit.jit(inverse)(np.arange(1, 4))


def written_out(x, y, i):
    z = np.empty_like(x)
    np.add(x, y, out=z)
    np.exp(z, out=z)
    np.multiply(y, 2.0, out=y)                        # the caller's array
    view = np.sqrt(np.abs(x[1::2]), out=x[:8:2])      # a view, returned
    wide = np.empty((2,) + x.shape)                   # (a tuple sum, as in Python)
    np.subtract(x, 1.0, out=wide)                     # the result broadcast to out
    np.add(x[1:], x[:-1], out=x[1:])                  # overlapping: NumPy reads first
    narrow = np.zeros(x.shape, np.float32)
    np.maximum(i, x, out=narrow)                      # float64 -> float32: same kind
    return (z, view, wide, narrow, np.negative(x, out=(np.empty_like(x),)),
            np.multiply(x, 3, dtype=np.float32), np.sqrt(i, dtype=np.float32),
            np.add(i, 1, dtype=np.float64), np.true_divide(i, 2, dtype=np.float32))


def test_ufunc_out_and_dtype_arguments_match_numpy():
    rng = np.random.default_rng(3)
    args = (rng.standard_normal(9), rng.standard_normal(9), rng.integers(0, 9, 9))
    mine, theirs = [a.copy() for a in args], [a.copy() for a in args]
    got, want = fusejit.jit(written_out)(*mine), written_out(*theirs)
    for g, w in zip([*got, *mine], [*want, *theirs]):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)


def into_int(i):
    np.true_divide(i, 2, out=i)
    return i


def cast_as_told(x, i):
    np.multiply(x, 2.5, out=i, casting="unsafe")      # float64 -> int64: truncated
    narrow = np.empty(x.shape, np.float32)
    np.add(x, 1.0, out=narrow, casting="same_kind")
    wide = np.empty(x.shape)
    np.sqrt(narrow, out=wide, casting="safe")
    return i, narrow, wide, np.add(x, 1, dtype=np.float32, casting="unsafe")


def test_ufunc_casting_argument_matches_numpy():
    x = np.random.default_rng(4).standard_normal(9) * 4
    mine, theirs = np.zeros(9, np.int64), np.zeros(9, np.int64)
    with np.errstate(invalid="ignore"):
        got, want = fusejit.jit(cast_as_told)(x, mine), cast_as_told(x, theirs)
    for g, w in zip([*got, mine], [*want, theirs]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def safe_narrowing(x):
    out = np.empty(x.shape, np.float32)
    np.add(x, 1.0, out=out, casting="safe")      # float64 -> float32 is not safe
    return out


def safe_loop(x):
    return np.add(x, 1.0, dtype=np.float32, casting="safe")


def no_casting(x):
    return np.add(x, 1.0, casting="no")


def int_sqrt(x):
    return np.sqrt(x, dtype=np.int64)


@pytest.mark.parametrize("fn, message", [
    (into_int, "cannot cast the float64 result to the int64 out array"),
    (int_sqrt, r"np\.sqrt\(dtype=int64\): No loop"),
    (safe_narrowing, "cannot cast the float64 result to the float32 out array .*'safe'"),
    (safe_loop, r"np\.add\(dtype=float32\): .*safe"),
    (no_casting, r"casting=\.\.\.\) must be a constant 'same_kind', 'safe' or 'unsafe'")])
def test_ufunc_out_and_dtype_refuse_what_numpy_refuses(fn, message):
    x = np.arange(3) if fn in (into_int, int_sqrt) else np.ones(3)
    if fn is not no_casting:      # (NumPy runs casting="no" here; fusejit refuses it)
        with pytest.raises(TypeError):
            fn(x)
    with pytest.raises(fusejit.FusejitError, match=message):
        fusejit.jit(fn)(x)


def inverse_hyperbolics(x, c, t):
    return np.arcsinh(x), np.arccosh(c), np.arctanh(t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_hyperbolics_hold_their_ulp_bound_to_the_ends_of_the_range(dtype):
    """np.arcsinh, np.arccosh and np.arctanh (stand-ins of log1p and sqrt) within 2 ulp of
    NumPy's across the range: the largest magnitudes (x * x overflowed: NaN and inf), next
    to -1 for arctanh (1 + 2x / (1 - x) cancelled: 1e14 ulp off), signed zeros, infinities."""
    big = float(np.finfo(dtype).max)
    x = np.concatenate([-np.geomspace(1e-30, big, 400), np.geomspace(1e-30, big, 400),
                        [0.0, -0.0, np.inf, -np.inf]]).astype(dtype)
    c = np.concatenate([1 + np.geomspace(1e-7, big / 2, 400), [1.0, np.inf]]).astype(dtype)
    near = np.geomspace(np.finfo(dtype).eps, 0.5, 200)
    t = np.concatenate([-1 + near, 1 - near, np.geomspace(1e-30, 0.5, 200), [0.0, -0.0, 1.0,
                                                                            -1.0]]).astype(dtype)
    with np.errstate(all="ignore"):
        got, want = fusejit.jit(inverse_hyperbolics)(x, c, t), inverse_hyperbolics(x, c, t)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        finite = np.isfinite(w)
        np.testing.assert_array_equal(g[~finite], w[~finite])
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
        ulps = np.abs(g[finite].astype(np.float64) - w[finite]) / np.spacing(np.abs(w[finite]))
        assert ulps.max() <= 2, ulps.max()


def zeros_and_extremes(x, big):
    return (x % 1.0, (x * 2.0) % -1.5, np.cumsum(x), np.median(big), np.median(big[:2]),
            np.nanmedian(big), np.median(big.reshape(1, 3), axis=1))


@pytest.mark.parametrize("n", [4, 40000])      # (compiled whole, and fused kernels)
def test_signed_zeros_and_extremes_are_numpys(n):
    """A zero remainder takes the divisor's sign (-7.0 % 1.0 is 0.0); a running sum starts at
    -0.0, so a row of -0.0 sums to -0.0 as NumPy's cumsum does; a median of an odd count is its
    middle element (the mean of it with itself overflowed near the largest float)."""
    x = np.resize(np.array([-0.0, 0.0, -7.0, 3.0, -0.0, 2.25]), n)
    x[:2] = -0.0
    big = np.array([1e308, 1e308, -1e308])
    got, want = fusejit.jit(zeros_and_extremes)(x, big), zeros_and_extremes(x, big)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def inverse_hyperbolic(x, i, s):
    return (np.arcsinh(x), np.arccosh(x), np.arctanh(x), np.arcsinh(i), np.arctanh(i / 8),
            math.asinh(s) + math.acosh(s + 1.0) + math.atanh(s / 4), math.lgamma(s))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_hyperbolic_functions_and_lgamma_of_numbers_are_numpys(dtype):
    """np.arcsinh, np.arccosh, np.arctanh (kernels' vectorised forms: the domain edges, NaN,
    signed zeros and infinities as NumPy's, the rest within their documented ulp bounds;
    integers in float64) and math's asinh, acosh, atanh of numbers (the C library's, as
    Python's: bit for bit); lgamma within a few ulp of Python's (CPython computes its own,
    compiled code calls the C library's)."""
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.999, 1.5, 1e300,
                  -1e-310, 3.0], dtype)
    i = np.arange(-7, 8)
    with np.errstate(all="ignore"):
        want = inverse_hyperbolic(x, i, 1.75)
        got = fusejit.jit(inverse_hyperbolic)(x, i, 1.75)
    for k, (g, w) in enumerate(zip(got, want)):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype, k
        if k < 5:
            exact = ~np.isfinite(w) | (w == 0)
            assert np.array_equal(g[exact], w[exact], equal_nan=True), k
            signed = exact & ~np.isnan(w)       # (zeros and infinities; a NaN's sign is the CPU's)
            assert np.array_equal(np.signbit(g[signed]), np.signbit(w[signed])), k
            # (vecmath.F64_ULPS: 2; fastmath.ULP_BOUNDS: up to 2.05, float32)
            assert np.all(np.abs(g[~exact] - w[~exact]) <= 2.1 * np.spacing(np.abs(w[~exact]))), k
        else:
            assert g == w if k == 5 else abs(g - w) < 4e-16 * abs(w), k


def math_of_numbers(n, x, y):
    return (math.isqrt(n), math.trunc(x), math.trunc(-x), math.pow(x, y), math.fmod(-x, y),
            math.exp2(y), math.cbrt(-x), math.log(x, 2), math.log(x, abs(y) + 1.0))


@pytest.mark.parametrize("n, x, y", [(0, 2.5, 1.5), (1, 3.7, 0.3), (15, 8.0, 3.0),
                                     (16, 1e-3, 2.0), (10**18 - 1, 12.5, 5.0),
                                     (2**62 - 1, 7.25, -1.5), (2**63 - 1, 1.0, 2.0)])
def test_math_functions_of_numbers_are_pythons(n, x, y):
    """math.isqrt (exact near squares and at the int64 extremes), trunc, pow, fmod, exp2, cbrt
    and log with a base: Python's values and types."""
    got, want = fusejit.jit(math_of_numbers)(n, x, y), math_of_numbers(n, x, y)
    for k, (g, w) in enumerate(zip(got, want)):
        assert type(g) is type(w) and (g == w or abs(g - w) <= 4e-16 * abs(w)), k


def test_isqrt_is_exact_around_every_square_and_refuses_negatives():
    root = fusejit.jit(lambda n: math.isqrt(n))
    for r in (*range(40), 3037000499, 2**31, 10**9 + 7):
        for n in (r * r - 1, r * r, r * r + 1):
            if 0 <= n < 2**63:
                assert root(n) == math.isqrt(n), n
    with pytest.raises(Exception, match="isqrt.. argument must be nonnegative"):
        root(-4)


def out_everywhere(x, m, t, i):
    """out= of functions other than ufuncs, ufuncs' where=, np.putmask; every call."""
    c = np.empty_like(x)
    np.cumsum(x, out=c)                                   # (float into float: same)
    prefix = np.zeros(i.size + 1, np.int64)
    np.cumsum(i, out=prefix[1:])                          # into a view, int32 -> int64
    y = np.empty(m.shape[0])
    np.dot(m, x[:m.shape[1]], out=y)
    rows = np.zeros((3, i.size))
    for k in range(3):
        np.take(t, i + k, out=rows[k])                    # a row of a buffer in a loop
    s = np.empty(m.shape[1], np.float32)
    m.sum(axis=0, out=s)                                  # a method, float64 -> float32
    a = np.empty(m.shape[1], np.int64)
    np.argmax(m, axis=0, out=a)
    r = np.round(x, 2, out=np.empty_like(x))
    inv = np.ones_like(x)
    np.divide(1.0, x, out=inv, where=x > 0)               # keeps 1.0 where x <= 0
    lo = np.full(x.shape, -5, np.int64)
    np.floor(x * 3.0, out=lo, where=np.abs(x) < 1.0, casting="unsafe")
    p = x.copy()
    np.putmask(p, x < 0, 0.0)
    q = m.copy()
    np.putmask(q, m > 0.5, m[:, :1] * 10.0)               # (rows, 1): cycled, not broadcast
    w = x.copy()
    np.putmask(w, x > 0, np.array([7.0, 8.0, 9.0]))
    e = x.copy()
    np.putmask(e, x > 0, x[:0])                            # no values: nothing written
    k = i.copy()
    np.putmask(k, i > 4, 300)                             # a number by its value
    j = np.arange(10.0)
    np.concatenate([j[:3], j[:3]], out=j[2:8])            # each piece in turn, as NumPy
    st = np.zeros((2, 3, 3))
    np.stack([m[:3, :3], m[1:4, :3]], axis=0, out=st)
    cell = np.zeros((2, 2))
    np.mean(m, out=cell[1, 1:2].reshape(()))              # a 0-d view of a buffer
    return c, prefix, y, rows, s, a, r, inv, lo, p, q, w, e, k, j, st, cell


def test_out_where_and_putmask_match_numpy():
    rng = np.random.default_rng(9)
    args = (rng.standard_normal(11), rng.random((4, 5)), rng.standard_normal(20),
            rng.integers(0, 10, 6).astype(np.int32))
    f = fusejit.jit(out_everywhere)
    want = out_everywhere(*args)
    for _ in range(3):
        got = f(*args)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6)


def where_without_out(x):
    return np.sqrt(x, where=x > 0)


def dot_into_float32(m, x):
    y = np.empty(m.shape[0], np.float32)
    np.dot(m, x, out=y)
    return y


def cumsum_into_2d(x):
    out = np.empty((1, x.size))
    np.cumsum(x, out=out)
    return out


def putmask_float_into_int(x):
    i = np.zeros(x.shape, np.int64)
    np.putmask(i, x > 0, x)
    return i


@pytest.mark.parametrize("fn, message", [
    (putmask_float_into_int, r"np\.putmask: cannot cast array data from float64 to int64 "
                             r"according to the rule 'safe'"),
    (where_without_out, r"np\.sqrt\(where=\.\.\.\) without out= leaves"),
    (dot_into_float32, r"np\.dot: cannot cast the float64 result to the float32 out array "
                       r"\(casting rule 'no'\)"),
    (cumsum_into_2d, r"np\.cumsum\(out=\.\.\.\): the out array has 2 dimensions and the "
                     r"result 1")])
def test_out_refuses_what_numpy_refuses(fn, message):
    x = np.ones(4)
    args = (x,) if fn is not dot_into_float32 else (np.ones((3, 4)), x)
    if fn is not where_without_out:   # (NumPy runs it, leaving elements uninitialised)
        with pytest.raises((TypeError, ValueError)):
            fn(*args)
    with pytest.raises(fusejit.FusejitError, match=message):
        fusejit.jit(fn)(*args)


def minus_mask(x, m):
    y = x.copy()
    y -= m                  # (NumPy's loop reads the mask as 0 and 1 of y's dtype)
    z = x.astype(np.float32)
    z -= m
    return y, z


def test_subtracting_a_mask_in_place_is_numpys():
    x = np.arange(3, 9, dtype=np.uint8)
    m = x % 2 == 0
    f = fusejit.jit(minus_mask)
    for _ in range(3):
        for g, w in zip(f(x, m), minus_mask(x, m)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def zero_d_accumulator(x):
    y = np.zeros(())
    z = y                   # (the same 0-d array: it sees the update)
    y += x.sum()
    w = np.full((), 2.0)
    w *= x.max()
    return z, y, w


def test_a_made_0d_array_is_updated_in_place_as_numpys():
    x = np.arange(6.0)
    f = fusejit.jit(zero_d_accumulator)
    for _ in range(3):
        for g, w in zip(f(x), zero_d_accumulator(x)):
            assert type(g) is type(w) and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def ellipsis_view_updated(b):
    v = b[..., 0]           # a 0-d view of b in NumPy, not a scalar
    v += 1.0
    return b


def ellipsis_view_read_after_a_write(b):
    v = b[1, ...]
    v *= 3.0
    w = b[..., 2]
    b[2] = -1.0             # w sees it
    return b, v + 1.0, w * 2.0, float(v)


def reshaped_view_updated(s):
    v = s[0, 0:1].reshape(())
    v += 2.0
    t = s[1, 1:2].reshape(())
    s[1, 1] = 7.0           # t sees it
    return s, t + 1.0


def views_of_a_0d_array_updated(b):
    t = b.T                 # a 0-d argument's views are 0-d arrays: both updates write b
    t += np.uint8(7)
    w = np.transpose(b)
    w *= 3.0
    return b.sum()


def a_sums_views_are_numbers(b):
    s = b.sum()
    v = s.reshape(())       # a NumPy scalar's "view" is a new scalar: s keeps its value
    v += 1.0
    u = s.T
    u *= 2.0
    return s, v, u


def squeezed_view_updated(b):
    v = b[0:1, 0:1].squeeze()    # a 0-d view of b
    v -= 5.0
    return b


@pytest.mark.parametrize("fn, shape", [(ellipsis_view_updated, (37,)),
                                       (views_of_a_0d_array_updated, ()),
                                       (a_sums_views_are_numbers, (5,)),
                                       (squeezed_view_updated, (3, 4)),
                                       (ellipsis_view_updated, (5000, 2)),
                                       (ellipsis_view_read_after_a_write, (6,)),
                                       (ellipsis_view_read_after_a_write, (5000,)),
                                       (reshaped_view_updated, (3, 4)),
                                       (reshaped_view_updated, (80, 70))])
def test_a_0d_view_is_written_and_read_through_as_numpys(fn, shape):
    """``x[..., 0]`` and ``x[1:2].reshape(())`` are 0-d views in NumPy: ``v += 1`` writes
    ``x``, and ``v`` read after a write of ``x`` sees it. They were numbers: the update was
    lost and the read kept the old element, on every call. A 0-d argument's ``x.T`` was a
    number too (its update lost), and a NumPy scalar's ``s.reshape(())`` an array (its
    update wrote ``s``). Small and big arrays, three calls, the argument after each too."""
    f = fusejit.jit(fn)
    for _ in range(3):
        x = np.arange(float(np.prod(shape))).reshape(shape)
        mine = x.copy()
        want = fn(mine)
        got = f(x)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert type(g) is type(w) and np.shape(g) == np.shape(w)
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(x, mine)


def halved_in_a_loop(a, x):
    for _ in range(2):
        a -= a * 0.5        # a 0-d array argument: written in place on each step
    acc = np.zeros(())
    for v in x:
        acc += v            # a 0-d accumulator the loop carries
    return a, acc


@pytest.mark.parametrize("a", [np.array(2.5), np.array(7, np.int64) * 1.0, np.array([2.5])])
def test_a_0d_array_a_loop_updates_in_place_stays_an_array(a):
    """A 0-d array carried by a loop was a number in the loop's body: ``a -= ...`` rebound it,
    and the caller's array kept its value (on every call); the accumulator came back as a
    number. Shape (1,) is the control."""
    f = fusejit.jit(halved_in_a_loop)
    x = np.arange(5.0)
    for _ in range(3):
        mine, theirs = a.copy(), a.copy()
        got, want = f(mine, x), halved_in_a_loop(theirs, x)
        for g, w in zip(got, want):
            assert type(g) is type(w) and np.shape(g) == np.shape(w)
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(mine, theirs)


def narrowed(x):
    u8 = x.astype(np.uint8)
    return u8, x.astype(np.int16), x.astype(np.uint32), int(np.argmax(u8 + x))


def narrowed_in_place(x, out):
    out[...] = x
    return out


@pytest.mark.parametrize("shape, dtype", [((12, 11), np.float32), ((5000,), np.float64)])
def test_floats_out_of_an_integers_range_wrap_as_numpys(shape, dtype):
    """``x.astype(np.uint8)`` of -1.7 is 255 in NumPy on x86 (and 300.5 is 44): the float
    goes to int32 and is cut to 8 bits. C leaves such a conversion undefined; fusejit's
    compiled forms gave 0 in vector loops (small 2-D arrays whole, the fused kernel under a
    reduction) where the first call, and scalar loops, gave 255, so a value and its argmax
    disagreed within one call. Every call; int16, uint32 and a uint8 array written with
    floats too."""
    x = np.linspace(-300.7, 300.7, int(np.prod(shape))).astype(dtype).reshape(shape)
    f, g = fusejit.jit(narrowed), fusejit.jit(narrowed_in_place)
    with np.errstate(all="ignore"):
        want = narrowed(x)
        want_in_place = narrowed_in_place(x, np.zeros(shape, np.uint8))
    for _ in range(3):
        with np.errstate(all="ignore"):
            got = f(x)
            got_in_place = g(x, np.zeros(shape, np.uint8))
        for a, b in zip(got, want):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got_in_place, want_in_place)


def classified(x, y):
    m = np.signbit(x)
    return (np.isfinite(m), np.isinf(m), np.isnan(m), np.isfinite(y), np.isinf(y),
            np.isfinite(x > 0).sum())


@pytest.mark.parametrize("n", [5, 5000])
def test_bool_and_int_arrays_are_finite_as_numpys(n):
    """``np.isfinite`` and ``np.isinf`` of a bool array: NumPy's answer is all finite; here
    they raised (aten has no ``abs`` of bools; fuzz seed 472226). Int arrays beside them, on
    every call, small and big."""
    x = np.linspace(-2.0, 2.0, n)
    x[1] = np.inf
    y = np.arange(n).astype(np.int8)
    f = fusejit.jit(classified)
    for _ in range(3):
        for g, w in zip(f(x, y), classified(x, y), strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(g, w)
