"""``np.<ufunc>.at`` beyond ``np.add.at`` (``fusejit::ufunc_at_``: NumPy's own, every repeat
of an index applied in turn), ``np.fill_diagonal`` (a write through the diagonal's positions)
and ``np.searchsorted`` of a list, against NumPy: values, dtypes, writes into the arguments,
and NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit

rng = np.random.default_rng(12)
LAB = rng.integers(0, 5, 300)
X = rng.standard_normal(300)
INTS = rng.integers(-9, 9, 300)


def group_max(lab, x):
    out = np.full(5, -np.inf)
    np.maximum.at(out, lab, x)
    return out


def group_min_ints(lab, ints):
    out = np.zeros(5, np.int64)
    np.minimum.at(out, lab, ints)
    return out


def group_product(lab, x):
    out = np.ones(5)
    np.multiply.at(out, lab, 1 + x * 0.01)
    return out


def group_subtract(lab, x):
    out = np.zeros(5)
    np.subtract.at(out, lab, x)
    return out


def nan_rules(lab, x):
    z = x.copy()
    z[3] = np.nan
    kept = np.full(5, np.nan)
    np.fmax.at(kept, lab, z)          # (fmax skips the NaN, maximum spreads it)
    spread = np.zeros(5)
    np.maximum.at(spread, lab, z)
    low = np.full(5, np.nan)
    np.fmin.at(low, lab, z)
    return kept, spread, low


def rows_and_pairs(lab, x):
    m = np.zeros((4, 3))
    np.maximum.at(m, (np.array([0, 0, 2]),), x[:9].reshape(3, 3))
    np.minimum.at(m, ([1, 1], [2, 2]), -5.0)
    return m


def through_views(lab, x):
    m = np.zeros((2, 5))
    np.maximum.at(m[1], lab, x)
    t = np.zeros((3, 5)).T
    np.minimum.at(t, lab, x[:, None] * np.ones(3))
    return m, t


def floats_into_ints(lab, x):
    out = np.zeros(5, np.int64)
    np.maximum.at(out, lab, x * 10)
    return out


def square(x):
    a = np.zeros((4, 4))
    np.fill_diagonal(a, 3.0)
    return a


def tall_and_wide(x):
    tall = np.ones((5, 3))
    np.fill_diagonal(tall, x[:3])
    wide = np.ones((3, 5), np.int64)
    np.fill_diagonal(wide, 7.9)         # (cast as NumPy casts into ints)
    return tall, wide


def wrapped(x):
    b = np.zeros((7, 3))
    np.fill_diagonal(b, 2.0, wrap=True)
    c = np.zeros((3, 7))
    np.fill_diagonal(c, 2.0, wrap=True)
    return b, c


def cube(x):
    a = np.zeros((3, 3, 3))
    np.fill_diagonal(a, x[0])
    return a


def listed(x):
    s = np.sort(x)
    return np.searchsorted(s, [-1.0, 0.0, 1.0]), np.searchsorted(s, (0.5, 2), side="right")


CASES = [(group_max, (LAB, X)), (group_min_ints, (LAB, INTS)), (group_product, (LAB, X)),
         (group_subtract, (LAB, X)), (nan_rules, (LAB, X)), (rows_and_pairs, (LAB, X)),
         (through_views, (LAB, X)), (floats_into_ints, (LAB, X)), (square, (X,)),
         (tall_and_wide, (X,)), (wrapped, (X,)), (cube, (X,)), (listed, (X,))]


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")    # (NaN in np.maximum.at)
@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_matches_numpy(fn, args):
    want = fn(*args)
    got = fusejit.jit(fn)(*args)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_the_argument_is_written():
    """The writes reach the caller's arrays, a transposed one too, as NumPy's do."""
    def zero_diagonal(a, out, lab, x):
        np.fill_diagonal(a.T, 0.0)
        np.maximum.at(out, lab, x)

    a, out = rng.standard_normal((5, 5)), np.zeros(5)
    want_a, want_out = a.copy(), out.copy()
    zero_diagonal(want_a, want_out, LAB, X)
    assert fusejit.jit(zero_diagonal)(a, out, LAB, X) is None
    np.testing.assert_array_equal(a, want_a)
    np.testing.assert_array_equal(out, want_out)


def test_errors():
    def out_of_bounds(x):
        out = np.zeros(3)
        np.maximum.at(out, [0, 5], 1.0)
        return out

    def unequal(x):
        a = np.zeros((3, 4, 3))
        np.fill_diagonal(a, 1.0)
        return a

    def vector(x):
        np.fill_diagonal(x, 1.0)
        return x

    def other_ufunc(x):
        out = np.zeros(3, bool)
        np.logical_or.at(out, [0, 1], True)
        return out

    with pytest.raises(fusejit.FusejitError, match="index 5 is out of bounds"):
        fusejit.jit(out_of_bounds)(X)
    with pytest.raises(fusejit.FusejitError, match="All dimensions of input must be of equal"):
        fusejit.jit(unequal)(X)
    with pytest.raises(fusejit.FusejitError, match="at least 2-d"):
        fusejit.jit(vector)(X.copy())
    with pytest.raises(fusejit.FusejitError, match="np.logical_or.at"):
        fusejit.jit(other_ufunc)(X)


def fitted(x, y):
    design = np.column_stack([np.ones_like(x), x, x ** 2])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return coef


def ends(x):
    first, *middle, last = (x[0], x[1], x[2], x[3])
    *head, tail = [x.sum(), x.max(), x.min()]
    alone, *nothing = (x[4],)
    return first + last, len(middle), middle[1] * 2, head[1] - tail, alone, len(nothing)


@pytest.mark.parametrize("fn", [fitted, ends])
def test_starred_unpacking_of_tuples_and_lists(fn):
    """``a, *rest = t`` of a tuple or list known while scripting: the starred name gets a
    list of the items between, as in Python."""
    args = (X[:40], X[40:80])[:fn.__code__.co_argcount]
    want = fn(*args)
    got = fusejit.jit(fn)(*args)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
        assert type(g) is type(w) or isinstance(w, np.ndarray) and isinstance(g, np.ndarray)


def test_starred_unpacking_errors():
    def too_few(x):
        a, b, *c = (x[0],)
        return a, b, c

    def of_an_array(x):
        a, *rest = x
        return a

    for fn, message in ((too_few, "expected at least 2, got 1"),
                        (of_an_array, "starred unpacking of a Tensor")):
        with pytest.raises(fusejit.FusejitError, match=message):
            fusejit.jit(fn)(X)


def other_values(x, y):
    z = x.copy()
    z[x > 0] = y[x > 0]                             # (each side its own x > 0)
    w = x.copy()
    w[x > 0.5] = y[y > 0.5][:(x > 0.5).sum()]       # (another mask's selection)
    v = np.zeros(x.shape[0], np.int64)
    v[(x > 0) & (y < 0)] = y[(x > 0) & (y < 0)] * 10
    return z, w, v


def rows_of_values(a):
    b = a.copy()
    m = a[:, 0] > 0
    b[m] = np.arange(3.0 * m.sum()).reshape(-1, 3)    # (np.arange of a 0-d array)
    return b


def masks_after_slices(a, t):
    return a[:, a[0] > 0], a[::2, a[0] > 0].sum(axis=1), t[1:, :, t[0, 0] > 0], \
        t[:, t[0] > 0]


@pytest.mark.parametrize("fn,args", [
    (other_values, (X, X[::-1].copy())),
    (rows_of_values, (rng.standard_normal((20, 3)),)),
    (masks_after_slices, (rng.standard_normal((6, 7)), rng.standard_normal((3, 4, 5)))),
], ids=["other_values", "rows_of_values", "masks_after_slices"])
def test_masked_selections_and_writes(fn, args):
    """``x[mask] = values`` with one value per selected element or row (NumPy's own write),
    and ``x[:, mask]`` with slices beside the mask, against NumPy."""
    want = fn(*args)
    got = fusejit.jit(fn)(*args)
    for g, w in zip(got if isinstance(want, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_masked_errors():
    def too_few(x):
        z = x.copy()
        z[x > 0] = x[:3]
        return z

    def wrong_length(a):
        return a[:, a[:, 0] > 0]

    def beside_an_int(t):
        return t[0, :, t[0, 0] > 0]

    with pytest.raises(fusejit.FusejitError, match="cannot assign 3 input values"):
        fusejit.jit(too_few)(X)
    with pytest.raises(fusejit.FusejitError, match="boolean index did not match"):
        fusejit.jit(wrong_length)(rng.standard_normal((6, 7)))
    with pytest.raises(fusejit.FusejitError, match="with an int as well"):
        fusejit.jit(beside_an_int)(rng.standard_normal((3, 4, 5)))


def add_floats_at(b):
    np.add.at(b, [0, 0, 1], 0.1)
    return b


def subtract_floats_at(b, v):
    np.subtract.at(b, [0, 0, 1], v)
    return b


def multiply_floats_at(b, i):
    np.multiply.at(b, i, 1.5)
    return b


@pytest.mark.parametrize("fn, make", [
    (add_floats_at, lambda: (np.array([-2, 3, 4, 5], np.int32),)),
    (subtract_floats_at, lambda: (np.array([254, 3, 4, 5], np.uint8), 0.6)),
    (multiply_floats_at, lambda: (np.arange(6000, dtype=np.int64) % 7, np.arange(3000) * 2))])
def test_ufunc_at_of_float_values_into_an_int_array_computes_each_step_as_numpy(fn, make):
    """``np.add.at(int32_array, [0, 0, 1], 0.1)``: NumPy adds each repeat in float64 and
    casts the sum back (-2 + 0.1 -> -1, then -1 + 0.1 -> 0). fusejit cast 0.1 to the array's
    dtype first and added nothing, on every call; so did ``subtract.at`` of 0.6 into uint8
    and ``multiply.at`` by 1.5 into int64. Every call."""
    jitted = fusejit.jit(fn)
    want = fn(*make())
    for _ in range(3):
        got = jitted(*make())
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def ints_out_of_range_at(b, i):
    np.add.at(b, [0, 0, 1], -3)
    np.subtract.at(b, [2], 300)
    np.add.at(b, i, 257)
    return b


@pytest.mark.parametrize("n", [5, 5000])
def test_ufunc_at_of_a_python_int_out_of_the_arrays_range_wraps_as_numpy(n):
    """``np.add.at(uint8_array, i, -3)``: NumPy's ufunc.at casts the Python int into the
    array's dtype unsafely (adds 253 modulo 256), where ``np.add`` raises OverflowError;
    fusejit raised (fuzz seed 480879). Every call, small and big."""
    jitted = fusejit.jit(ints_out_of_range_at)
    i = np.array([1, 3, 3])
    for _ in range(3):
        b = (np.arange(n) % 250).astype(np.uint8)
        got, want = jitted(b.copy(), i), ints_out_of_range_at(b.copy(), i)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
