"""Tiny graphs run as NumPy ufunc calls (runtime/direct.py): the same values, dtypes, scalar
or array results and errors as NumPy eager and the graph's own path, and only where the
table's ufunc computes exactly what the op does. No Numba compile: these graphs skip the
whole-graph tier."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fusejit
from fusejit.frontend.jit import numpy_scalar_outputs
from fusejit.runtime.direct import direct_function


def lone_add(x, y):
    return x + y


def two_outputs(x, y):
    return x - y, x * y


def product_max(x, y):
    return (x * y).max()


def unary_and_sum(x, y):
    return np.sqrt(x), y.sum()


def scaled(x, y):
    return x * 3 / y


def with_constant(x, y):
    return x * 2, y + 1


def chain(x, y):
    return x * y + x


def mixed(x, y):
    return x + y.astype(np.float64)


def costly(x, y):
    return np.exp(x), y      # (a kernel of its own: passes/lone_maps.py)


DIRECT = (lone_add, two_outputs, product_max, unary_and_sum, with_constant)
DTYPES = (np.float32, np.float64, np.int64, np.int32)
SHAPES = (((7,), (7,)), ((3, 1), (4,)), ((), ()), ((2, 5), (2, 5)))


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def _arguments(dtype, shapes, seed=0):
    rng = np.random.default_rng(seed)
    x, y = (np.asarray(rng.uniform(1, 5, shape)).astype(dtype) for shape in shapes)
    return x, y


@pytest.mark.parametrize("fn", DIRECT, ids=lambda f: f.__name__)
def test_direct_calls_give_numpys_results(fn):
    cases = [(dtype, SHAPES) for dtype in DTYPES]
    if fn is product_max:
        # (a temporary: small arrays run the graph compiled whole, which these sizes skip)
        cases = [(np.float32, (((5000,), (5000,)),)), (np.float64, (((70, 80), (70, 80)),))]
    elif fn is unary_and_sum:
        # (sqrt of integers casts first, float64 sqrt has a kernel of its own: not direct)
        cases = cases[:1]
    for dtype, shapes in cases:
        jitted = fusejit.jit(fn)
        for pair in shapes:
            x, y = _arguments(dtype, pair)
            want = fn(x, y)
            for _ in range(3):       # first call, then the fast call's
                _same(jitted(x, y), want)
            # strided views take the same calls (NumPy's loops take any layout)
            if x.ndim == 2 and y.ndim == 2 and fn is not product_max:
                _same(jitted(x[:, ::2], y[:, ::2]), fn(x[:, ::2], y[:, ::2]))
        assert any(jitted._direct.values()), f"{fn.__name__} ran no NumPy calls for {dtype}"


def compared(x, y):
    return x > y, x <= 2, x == y


def compared_with_python_numbers(x, n):
    return x < n, x != 3


@pytest.mark.parametrize("dtype", DTYPES + (np.uint8,))
def test_comparisons_are_numpys_calls(dtype):
    """A comparison's operands share a dtype and its result is bool: NumPy's ufunc on them,
    NaN and the weak scalar's rule included (a uint8 array against 300: NumPy's exact answer,
    through the graph's own path)."""
    x, y = _arguments(dtype, ((4, 6), (6,)))
    if x.dtype.kind == "f":
        x[0, :2] = np.nan
    jitted = fusejit.jit(compared)
    for _ in range(3):
        _same(jitted(x, y), compared(x, y))
    assert any(jitted._direct.values())
    jitted = fusejit.jit(compared_with_python_numbers)
    for n in ([2.5, 2.0] if x.dtype.kind == "f" else [2, 300, -1]):
        for _ in range(2):
            _same(jitted(x, n), compared_with_python_numbers(x, n))


def differences(x, y):
    return x[1:] - x[:-1], y[:, 2::3] * 2


def differences_of_a_product(x, y):
    return (x * y)[1:]                        # a slice of a computed value: not direct


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_slices_of_the_arguments_are_numpys_views(dtype):
    """``x[1:] - x[:-1]`` is NumPy's basic indexing and one ufunc call; short slices, empty
    ones and rows past the end give NumPy's shapes."""
    jitted = fusejit.jit(differences)
    rng = np.random.default_rng(7)
    for n, shape in ((5000, (40, 7)), (1, (3, 2)), (2, (5, 0))):
        x = rng.integers(-50, 50, n).astype(dtype)
        y = rng.integers(-50, 50, shape).astype(dtype)
        for _ in range(3):
            _same(jitted(x, y), differences(x, y))
        _same(jitted(x[::-1], y[::2]), differences(x[::-1], y[::2]))
    assert any(jitted._direct.values())
    product = fusejit.jit(differences_of_a_product)
    x = np.arange(1.0, 5.0)
    _same(product(x, x), differences_of_a_product(x, x))
    assert not any(product._direct.values())


def test_direct_results_are_new_arrays_and_arguments_unchanged():
    x, y = _arguments(np.float32, ((5,), (5,)))
    copies = x.copy(), y.copy()
    jitted = fusejit.jit(two_outputs)
    for _ in range(3):
        out = jitted(x, y)
        assert not any(np.shares_memory(o, a) for o in out for a in (x, y))
    np.testing.assert_array_equal(x, copies[0])
    np.testing.assert_array_equal(y, copies[1])


@pytest.mark.parametrize("fn,dtypes", [
    (chain, (np.float32, np.float32)),           # a chain: fused kernels' work
    (mixed, (np.float32, np.float64)),           # a cast first
    (scaled, (np.int64, np.int64)),              # int / int is float: not one ufunc loop
    (lone_add, (np.float32, np.float64)),        # promotion inside the op
], ids=["chain", "cast", "int-division", "promotion"])
def test_graphs_that_are_not_one_exact_ufunc_call_each_run_their_own_path(fn, dtypes):
    x, y = (np.arange(1, 6).astype(d) for d in dtypes)
    jitted = fusejit.jit(fn)
    _same(jitted(x, y), fn(x, y))    # (one call: a second would compile the graph whole)
    assert not any(jitted._direct.values())


def test_costly_maps_keep_their_kernels():
    """A lone map with vectorised math in its kernel (``passes/lone_maps.py``: exp, float64
    sqrt) is not a NumPy call here: the kernel beats NumPy's loop (1.1x on 2^14 float32
    elements, 2.1x on 2^18)."""
    x = np.linspace(-3, 3, 5000).astype(np.float32)
    jitted = fusejit.jit(costly)
    for _ in range(3):
        got = jitted(x, x)
        np.testing.assert_allclose(got[0], np.exp(x), rtol=2e-6)
        assert got[1] is x
    assert not any(jitted._direct.values())


def test_constants_are_numpys_weak_scalars_or_not_direct():
    def small(x):
        return x + 100

    def too_big(x):
        return x + 1000                          # beyond int8: NumPy refuses it

    x = np.arange(5, dtype=np.int8)
    jitted = fusejit.jit(small)
    for _ in range(3):
        _same(jitted(x), small(x))
    assert any(jitted._direct.values())
    big = fusejit.jit(too_big)
    try:
        big(x)
    except fusejit.FusejitError:
        pass
    assert not any(big._direct.values())


def test_failures_are_the_graphs_own_errors():
    jitted = fusejit.jit(lone_add)
    a, b = np.ones(3, np.float32), np.ones(4, np.float32)
    jitted(a, a)
    for _ in range(2):
        with pytest.raises(fusejit.FusejitError, match="lone_add|broadcast|size"):
            jitted(a, b)
    def lone_max(x):
        return x.max()

    reduced = fusejit.jit(lone_max)
    reduced(a)
    assert any(reduced._direct.values())
    for _ in range(2):
        with pytest.raises(fusejit.FusejitError):
            reduced(np.ones(0, np.float32))


def test_floating_point_errors_as_exceptions_fall_back_to_the_silent_result():
    jitted = fusejit.jit(lone_add)
    x = np.full(4, 3e38, np.float32)
    with pytest.warns(RuntimeWarning, match="overflow"):    # NumPy's own call warns
        jitted(x, x)
    want = np.full(4, np.inf, np.float32)
    with np.errstate(over="raise"):
        _same(jitted(x, x), want)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same(jitted(x, x), want)


def test_direct_function_reads_only_the_tables_ufuncs():
    jitted = fusejit.jit(product_max)
    x = np.ones(4, np.float32)
    jitted(x, x)            # (once: interpreted)
    graph = jitted._compiled.graph
    direct = direct_function(graph, numpy_scalar_outputs(graph))
    assert direct is not None and direct.temporary
    assert "max" not in direct.source and "product_max" not in direct.source
    # a 0-d result the graph returns as an array is not what a reduction gives
    assert direct_function(graph, {}) is None


def scale(x, a):
    return x * a


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8])
def test_python_number_arguments_are_numpys_weak_scalars(dtype):
    """A float argument with a float array, an int with an integer one: computed in the
    array's dtype, as NumPy computes ``x * a``; any other pair (a cast first) and a number out
    of the dtype's range run the graph's own path."""
    jitted = fusejit.jit(scale)
    x = np.arange(-3, 4).astype(dtype)
    for a in (0.1, 3.0, 1e300, 7, -2, 300):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = scale(x, a)
            except OverflowError:      # (NumPy 2: 300 is out of range for int8)
                with pytest.raises(fusejit.FusejitError, match="out of bounds"):
                    jitted(x, a)
                continue
            direct = (type(a) is float) == (np.dtype(dtype).kind == "f")
            for _ in range(3 if direct else 1):    # (again: it would compile it whole)
                got = jitted(x, a)
                assert type(got) is type(want) and got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
    direct = {key[1]: d is not None for key, d in jitted._direct.items()}
    assert direct == ({float: True, int: False} if np.dtype(dtype).kind == "f"
                      else {float: False, int: True})


def clipped(x):
    return np.clip(x, -1, 0.5), np.clip(x, 0.0, -0.0), np.clip(x, 2, -2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_by_numbers_is_numpys_clip_ufunc(dtype):
    """np.clip between two numbers is one call of its ufunc (NumPy's Python wrapper around
    it took 4 of its 7 us on 10^4 float64): NaN kept, signed zeros and bounds given in the
    wrong order as NumPy gives them."""
    x = np.array([np.nan, -0.0, 0.0, 0.7, -3.0, np.inf, -np.inf, 0.5], dtype)
    jitted = fusejit.jit(clipped)
    for _ in range(3):
        got, want = jitted(x), clipped(x)
        for g, w in zip(got, want):
            _same(g, w)
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
    assert any(jitted._direct.values())


def nan_mask(x):
    return np.isnan(x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_isnan_is_numpys_isnan_call(dtype):
    """np.isnan(x), written x != x, runs as NumPy's isnan (its own loop; not_equal of x with
    itself took 1.17x its time), with its bools for NaN of either sign, infinities and zeros."""
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5] * 3, dtype)
    jitted = fusejit.jit(nan_mask)
    for _ in range(3):
        _same(jitted(x), nan_mask(x))
    graph = jitted._compiled.graph
    direct = direct_function(graph, numpy_scalar_outputs(graph))
    assert direct is not None
    assert np.isnan in direct.__globals__.values()
    assert np.not_equal not in direct.__globals__.values()
