"""Ordinary NumPy programs that fusejit got wrong or refused (issue 14's "stranger" kinds, a
second round): each is run through ``fusejit.jit`` and compared with NumPy itself on value,
dtype, shape and the structure of what it returns.

They run on the first call of their signature with tiering on, so on the interpreter: fused
groups interpreted, no Numba compile (the whole suite compiles kernels elsewhere; these are
frontend fixes). Where NumPy raises whatever the values, fusejit must raise a
``FusejitError``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit
from tests.matrix import halved

from .numpy_programs import assert_same


@pytest.fixture(autouse=True)
def _interpreted_first_call(monkeypatch):
    monkeypatch.setenv("FUSEJIT_TIERING", "1")   # (conftest turns tiering off for the suite)
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "0")


def _same(got, want) -> None:
    """``assert_same``, through nested tuples, lists and dicts (their types, lengths and
    keys too)."""
    if isinstance(want, dict):
        assert type(got) is dict and list(got) == list(want), (got, want)
        _same(tuple(got.values()), tuple(want.values()))
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        if isinstance(want, np.generic):   # (a NumPy scalar, not a 0-d array)
            assert type(got) is type(want), (got, want)
        assert_same(got, want)


def _r(seed: int, *shape: int, dtype=np.float64) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)


# -- what is returned keeps its structure (it was flattened: a wrong answer) -----------------

def nested_return(x):
    n, m = x.shape
    return x + 1, (x.shape, x * 2), [n, m]


def shape_of_vector(v):
    return v.shape      # (n,): was the int n


def one_tuple(x):
    return (x.sum(axis=0),)


def like_shapes(x):
    return np.zeros_like(x), np.ones_like(x) * 2, np.full_like(x, 3), np.empty_like(x).shape


# -- NumPy scalar arguments: strong scalars of their dtype (x[:k] and range(k) were refused) --

def window_sum(x, k):
    total = x[:k].sum()
    for i in range(k):
        total += x[i]
    return total, np.zeros(k), np.arange(k), x * k


def scaled(x, s):
    return x * s, s * 2, x[: x.shape[0] // 2] + s


# -- integer arrays: ~ and bitwise operators with Python ints (refused) -----------------------

def bits(a):
    return (~a, a & 3, 5 | a, a ^ 5, (a & 1) == 0, ~(a > 0), (a > 0) & 1, a << 2, a >> 1,
            1 << (a & 3), np.invert(a), np.right_shift(a, 2))


def int_bits(n, k):
    m = n
    m >>= 1                 # (scalar &, |, ^, << and >> were refused: aten's are logical)
    return n & k, n | 6, n ^ k, n << k, m, 1 << 20, -n >> 2, ~n, np.int32(n) << 2


# -- a None held by a variable is None (np.sum(x, dtype=d) gave float64) ---------------------

def total(x, dtype=None):
    return np.sum(x, dtype=dtype)


def none_variables(x):
    d = None
    return total(x), np.sum(x, dtype=d), x.mean(axis=d), np.zeros(3, dtype=d)


# -- methods and functions a NumPy user reaches for (refused) --------------------------------

def everyday_calls(x, n):
    y = np.empty(n)
    y.fill(0.5)
    z = np.where(x > 1, np.nan, x)
    return (x.sum().item(), x.argmax().item(), (x > 0).any().item(), y + 1,
            np.linspace(0, 1, n, endpoint=False), np.linspace(-1, 1, 7, endpoint=False,
                                                              dtype=np.float32),
            np.allclose(x, x + 1e-9), np.allclose(x, x + 1), np.nansum(z), np.nansum(z, axis=0),
            np.nanmean(z), np.nanmean(z, axis=1, keepdims=True), np.maximum.accumulate(x),
            np.minimum.accumulate(x, axis=1))


def fill_argument(x):
    x.fill(-1)      # the caller's array, as NumPy fills it
    return x


# -- boolean masks written through (a row mask over a 2-d array wrote columns) ---------------

def row_mask_updates(x, y):
    z = x.copy()
    rows = z[:, 0] > 0
    z[rows] = 0             # whole rows, as NumPy: the mask indexes the leading axis
    z[~rows] += 1
    w = x.copy()
    w[x[:, 1] < 0] *= 2
    v = x.copy()
    m = x > y
    v[m] = y[m]             # the same mask on both sides: y where m
    u = np.zeros((3, 3))
    u[rows] = y[0]          # one row for each selected row
    return z, w, v, u


# -- Python's and NumPy's rounding, divmod, sum of an appended list (refused) ----------------

def rounding_and_sums(x, a, n):
    pieces = []
    for i in range(x.shape[0] - 1):
        pieces.append(x[i] * x[i + 1])
    return (round(a), round(n), round(x[0]), round(x[1], 2), np.around(x, 1), np.rint(a),
            np.divmod(x, 0.75), sum(pieces), sum([x, x]))


# -- lists of appended numbers (refused) and of NumPy scalars (came back as 0-d arrays) -----

def appended_numbers(x, rate, n):
    balance, history, signs, elements = 100.0, [], [0], []
    for _ in range(n):
        balance = balance * (1 + rate)
        history.append(balance)
    for v in x:
        signs.append(int(v > 0))
        elements.append(v * 2)
    return (history, history[-1], np.array(history), sum(history), signs, sum(signs),
            [float(v) ** 2 for v in x], elements)


# -- range() with a step known when it runs (refused) -----------------------------------------

def stepped_ranges(x, step):
    marks = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(1, 4):
        for j in range(i * i, x.shape[0], i):
            marks[j] += 1
    total = 0
    for k in range(x.shape[0] - 1, -3, -step):
        total += k
    for _k in range(0, x.shape[0], -step):   # (no iterations)
        total += 100
    return marks, total


# -- map() over a tuple, tuple() and list() (refused) ----------------------------------------

def mapped(x, y):
    a, b = map(np.radians, (x, y))
    return a, b, list(map(abs, (x[0], -2))), tuple(x.shape), list(map(max, (1, 5), (3, 4)))


# -- statistics: quantiles (refused) and a median with a NaN (was the median of the rest) ----

def quantiles(x):
    return (np.percentile(x, 90), np.percentile(x, 50), np.quantile(x, 0.25),
            np.percentile(x, 100), np.percentile(x, 37.5, axis=0), np.quantile(x, 0.9, axis=1),
            np.median(x), np.median(x, axis=0))


def _with_nan(x: np.ndarray) -> np.ndarray:
    x[1, 2] = np.nan
    return x


# -- a number and a 0-d array from two branches; arrays of number literals (refused) --------

def branch_scale(x):
    m = x.max()
    if m > 1:
        scale = 1.0 / m
    else:
        scale = 1.0
    return x * scale


def array_literals(x, n, t):
    return (np.array([[1, 2], [3, 4]]), np.array([[1.0, 2], [3, 4]]), np.array([x[0], x[1], 0.0]),
            np.array([n, 2 * n]), np.array([[x[0], t], [n, 1]]), np.array([x[0], x[1]]))


def flat_concatenate(x):
    return (np.concatenate([x, x.T], axis=None), np.concatenate((x[0], x[:, 1]), axis=None),
            np.vstack([x, x[0]]), np.hstack([x[0], [1.0]]), np.vstack((x[0], x[1].T)))


# -- in place over an overlapping view: NumPy reads the operand first ------------------------

def shifted_sum(x):
    x[1:] += x[:-1]
    return x


# -- reductions' initial=, where= and var/std dtype=; np.append (refused) ---------------------

def started_reductions(x, i):
    return (x.max(initial=10.0), x.min(where=x > 0, initial=np.inf), np.max(x, initial=-1.0),
            x.max(axis=0, initial=0.5), np.min(x, axis=1, where=x > 0, initial=9.0,
                                               keepdims=True),
            i.max(initial=7), np.var(x.astype(np.float32), dtype=np.float64),
            x.std(axis=1, dtype=np.float32), np.append(x, 5.0), np.append(i, [1, 2]),
            np.append(x, x[:1], axis=0), np.append(i, 2.5))


def appended_in_a_loop(x):
    out = np.zeros(0)
    for k in range(3):
        out = np.append(out, x[k] * 2)
    return out


# -- isinstance, :=, *args and **kwargs of helpers, sorted of constants (refused) ------------

def _total(*parts, **scales):
    return sum(parts) * scales["by"]


def python_forms(x, n):
    kinds = (isinstance(x, np.ndarray), isinstance(x[0], float), isinstance(x.sum(), np.floating),
             isinstance(n, (int, float)), isinstance(n, bool), isinstance((x, n), tuple),
             isinstance(x[0], np.float32))
    if (top := x.max()) > 0:
        top = top * 2
    return kinds, top, _total(x, x[::-1], by=0.5), sorted([3, 1, -1.5]), sorted((2, 1),
                                                                                  reverse=True)


# -- comprehensions of several for clauses over constants (refused) --------------------------

def neighbour_counts(grid):
    a = (grid > 0).astype(np.int64)
    n = sum(np.roll(np.roll(a, i, 0), j, 1) for i in (-1, 0, 1) for j in range(-1, 2)
            if (i, j) != (0, 0))
    pairs = [i * 10 + j for i in range(3) if i != 1 for j in (4, 5)]
    return n, pairs, [[k * v for v in (1, 2)] for k in (3, 4)]


# -- NumPy's NaN-skipping statistics and ediff1d (refused) -----------------------------------

def nan_statistics(x):
    return (np.nanmax(x), np.nanmin(x, axis=0), np.nanmax(x, axis=1, keepdims=True),
            np.nanargmax(x[:2]), np.nanargmin(x[:2], axis=1), np.nanprod(x, axis=1),
            np.nancumsum(x), np.nancumprod(x, axis=1), np.nanvar(x), np.nanvar(x, axis=1, ddof=1),
            np.nanstd(x, axis=0, keepdims=True), np.nanmedian(x), np.nanmedian(x, axis=1),
            np.nanmedian(x, axis=0, keepdims=True), np.ediff1d(x), np.ediff1d(x[0], [9], -1))


def _nan_rows(x: np.ndarray) -> np.ndarray:
    """NaN at a few places and along the whole last row (where NumPy gives NaN and warns)."""
    if x.dtype.kind == "f":
        x[0, 1] = x[1, 3] = x[2, 2] = np.nan
        x[-1] = np.nan
    return x


PROGRAMS = [
    ("nested_return", nested_return, lambda: (_r(1, 3, 4),)),
    ("shape_of_vector", shape_of_vector, lambda: (_r(2, 5),)),
    ("one_tuple", one_tuple, lambda: (_r(3, 3, 2),)),
    ("like_shapes", like_shapes, lambda: (_r(4, 3, 4, dtype=np.float32),)),
    ("window_sum_int64", window_sum, lambda: (_r(5, 10), np.int64(3))),
    ("window_sum_int32", window_sum, lambda: (_r(6, 10, dtype=np.float32), np.int32(4))),
    ("scaled_float32", scaled, lambda: (_r(7, 6, dtype=np.float32), np.float32(2.5))),
    ("scaled_float64", scaled, lambda: (_r(8, 6, dtype=np.float32), np.float64(2.5))),
    *[(f"bits_{t.__name__}", bits, lambda t=t: (np.arange(-6, 6).astype(t),))
      for t in (np.int8, np.uint8, np.int32, np.int64, np.bool_)],
    ("int_bits", int_bits, lambda: (45, 3)),
    ("appended_numbers", appended_numbers, lambda: (_r(28, 5), 0.05, 4)),
    ("stepped_ranges", stepped_ranges, lambda: (_r(29, 11), 3)),
    ("mapped", mapped, lambda: (_r(30, 4), _r(31, 4, dtype=np.float32))),
    ("none_variables_float32", none_variables, lambda: (_r(9, 5, dtype=np.float32),)),
    ("none_variables_int", none_variables, lambda: (np.arange(5),)),
    ("everyday_calls_float64", everyday_calls, lambda: (_r(10, 4, 5), 5)),
    ("everyday_calls_float32", everyday_calls, lambda: (_r(11, 4, 5, dtype=np.float32), 4)),
    ("fill_argument", fill_argument, lambda: (_r(12, 4),)),
    ("row_mask_updates", row_mask_updates, lambda: (_r(13, 3, 3), _r(14, 3, 3))),
    ("rounding_and_sums", rounding_and_sums, lambda: (np.array([2.5, -1.25, 3.5]), -2.5, 7)),
    ("shifted_sum", shifted_sum, lambda: (_r(15, 6),)),
    ("quantiles_float64", quantiles, lambda: (_r(19, 5, 4),)),
    ("quantiles_float32", quantiles, lambda: (_r(20, 4, 7, dtype=np.float32),)),
    ("quantiles_int", quantiles, lambda: (_r(21, 6, 3, dtype=np.int64),)),
    ("quantiles_nan", quantiles, lambda: (_with_nan(_r(22, 4, 5)),)),
    ("branch_scale_above", branch_scale, lambda: (_r(23, 5, dtype=np.float32),)),
    ("branch_scale_below", branch_scale, lambda: (_r(24, 5, dtype=np.float32) * 0.01,)),
    ("array_literals_float32", array_literals, lambda: (_r(25, 3, dtype=np.float32), 3, 0.5)),
    ("array_literals_int32", array_literals, lambda: (_r(26, 3, dtype=np.int32), 3, 0.5)),
    ("flat_concatenate", flat_concatenate, lambda: (_r(27, 3, 2),)),
    ("neighbour_counts", neighbour_counts, lambda: (_r(37, 6, 5),)),
    ("python_forms_float64", python_forms, lambda: (_r(40, 5), 2)),
    ("python_forms_float32", python_forms, lambda: (_r(41, 5, dtype=np.float32), 7)),
    ("started_reductions", started_reductions, lambda: (_r(38, 4, 5),
                                                        np.arange(-4, 5) * 3)),
    ("appended_in_a_loop", appended_in_a_loop, lambda: (_r(39, 5),)),
    ("nan_statistics_float64", nan_statistics, lambda: (_nan_rows(_r(32, 4, 5)),)),
    ("nan_statistics_float32", nan_statistics, lambda: (_nan_rows(_r(33, 5, 4, dtype=np.float32)),)),
    ("nan_statistics_int", nan_statistics, lambda: (_r(34, 4, 4, dtype=np.int64),)),
]


@pytest.mark.parametrize("fn, make", halved([p[1:] for p in PROGRAMS]),
                         ids=[p[0] for p in PROGRAMS])
def test_program_matches_numpy(fn, make):
    args, want_args = make(), make()
    got = fusejit.jit(fn)(*args)
    with np.errstate(all="ignore"):
        want = fn(*want_args)
    _same(got, want)
    for a, w in zip(args, want_args):   # arguments written as NumPy writes them
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, w)


# -- where NumPy raises (or has no dtype for the answer), fusejit raises, at the line --------

def negative_literal_power(a):
    return a ** -1


def array_power(a, b):
    return np.power(a, b)


def int_beyond_int64(a):
    m = 1 << 63         # (Python's 2**63: an int64 shift made it -2**63)
    return a.sum() + 0, m


def add_out_of_range(a):
    a += -1
    return a


def floor_division(a, b):
    return a // b


def nan_argmax(a):
    return np.nanargmax(a, axis=1)


def copy_float_into_int(a, f):
    np.copyto(a, f)
    return a


@pytest.mark.parametrize("fn, args, match", [
    (negative_literal_power, (np.arange(1, 4),), "negative integer powers"),
    (array_power, (np.arange(1, 4), np.array([1, -1, 2])), "negative integer powers"),
    (floor_division, (np.arange(3), np.array([1, 0, 2])), "floor_divide"),
    (add_out_of_range, (np.arange(3, dtype=np.uint8),), "-1 out of bounds for uint8"),
    (int_beyond_int64, (np.arange(3),), "9223372036854775808 is beyond the 64-bit range"),
    (nan_argmax, (_nan_rows(_r(35, 3, 4)),), "All-NaN slice encountered"),
    (copy_float_into_int, (np.zeros(3, np.int64), np.ones(3)), "cannot cast array data"),
], ids=["int_negative_literal_power", "int_array_power", "int_floor_div_zero",
        "uint8_inplace_add_negative", "int_literal_beyond_int64",
        "nanargmax_all_nan_row", "copyto_float_into_int"])
def test_refused_with_a_clear_error(fn, args, match):
    with pytest.raises(fusejit.FusejitError, match=match) as error:
        fusejit.jit(fn)(*args)
    assert __file__.rsplit("/", 1)[-1] in str(error.value)   # names the program's line


def add_inplace(a):
    a += 1.5
    return a


def divide_inplace(a):
    a /= 2
    return a


def masked_array_value(x, y):
    x[x > 0] = y    # NumPy: one value per selected element, or ValueError
    return x


@pytest.mark.parametrize("fn, args, match", [
    (add_inplace, (np.arange(3),), "same_kind"),
    (divide_inplace, (np.arange(3),), "same_kind"),
], ids=["int_add_float_inplace", "int_divide_inplace"])
def test_refused_while_scripting_where_numpy_raises(fn, args, match):
    with pytest.raises(Exception):   # noqa: B017 - NumPy's own error (UFuncTypeError ...)
        fn(*(a.copy() for a in args))
    with pytest.raises(fusejit.ScriptError, match=match):
        fusejit.jit(fn)(*args)


def test_a_masked_write_of_too_many_values_is_numpys_error():
    """``x[x > 0] = y`` with one value per element of ``x``: NumPy's ValueError (it needs
    one per selected element), raised when the counts are known, naming the line."""
    args = (np.array([1.0, -1.0, 2.0]), np.ones(3))
    with pytest.raises(ValueError, match="cannot assign 3 input values to the 2 output"):
        masked_array_value(*(a.copy() for a in args))
    with pytest.raises(fusejit.FusejitError, match="cannot assign 3 input values to the 2 "
                       "output") as error:
        fusejit.jit(masked_array_value)(*args)
    assert __file__.rsplit("/", 1)[-1] in str(error.value)


def test_a_compiled_in_place_update_reads_an_overlapping_operand_first():
    """The second call runs the whole-graph Numba function (one small compile)."""
    jitted = fusejit.jit(shifted_sum)
    jitted(_r(16, 6))
    x = _r(17, 6)
    _same(jitted(x.copy()), shifted_sum(x.copy()))


def float32_scalars(a, b, c):
    s = np.float32(0)
    for i in range(8):
        s = s + np.float32(a) / np.float32(b + i)
    return np.float32(a) * np.float32(b) + np.float32(c), s


def test_float32_scalar_arithmetic_rounds_each_result_as_numpy():
    """Each float32 NumPy-scalar result is rounded to float32, as NumPy's is (computed in
    double and rounded once, about a third of these differed in the last bit). The first
    call is interpreted, the others run the compiled whole graph."""
    jitted = fusejit.jit(float32_scalars)
    for a, b, c in np.random.default_rng(18).standard_normal((12, 3)).tolist():
        got, want = jitted(a, b, c), float32_scalars(a, b, c)
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == np.float32 and np.float32(g) == w, (a, b, c)


def test_numpy_agrees_these_are_errors():
    """The oracle side of the test above: NumPy raises for the negative powers."""
    for fn, args in ((negative_literal_power, (np.arange(1, 4),)),
                     (array_power, (np.arange(1, 4), np.array([1, -1, 2])))):
        with pytest.raises(ValueError, match="negative integer powers"):
            fn(*args)


def test_an_array_power_with_nonnegative_exponents_still_computes():
    a, b = np.arange(1, 5), np.array([0, 1, 2, 3])
    _same(fusejit.jit(array_power)(a, b), array_power(a, b))


# -- writes that were lost (a gathered or flipped copy was written) or aliased (a third round) -

def indexed_updates(a, x):
    counts = np.zeros(5, dtype=np.int64)
    for v in a:                 # each v an int64 scalar: counts[v] was a gathered copy
        counts[v] += 1
    y = x.copy()
    y[a] += 1                   # repeated indices: NumPy's buffered x[idx] = x[idx] + 1
    y[a[:2]] -= 2.5
    z = np.zeros((3, 5))
    z[1, a[:2]] += 1
    z[a[:3] % 3, :] *= 2
    return counts, y, z


def reversed_writes(x):
    y = np.zeros_like(x)
    y[::-1] = x
    z = np.zeros((3, 4))
    z[:, ::-2] = np.arange(2.0)
    z[2:0:-1, 1] = 7
    w = x.copy()
    w[5:1:-2] = -1
    w[::-3] += 10
    u = np.zeros((3, 4))
    u[::-1, ::-1] = np.arange(12.0).reshape(3, 4)
    x[-2::-1] = x[1:]           # the caller's array, overlapping operands read first
    return y, z, w, u, x


def flatten_is_a_copy(a):
    f = a.flatten()
    f[0] = 100.0
    return f, a.ravel()[::2], a


def quiet_blocks(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
    with np.errstate(all="ignore"):
        return y, x / 0.0


def inplace_operators(a, x, n):
    a -= 1                      # (a number operand: sub_ and div_ had no overload)
    a //= 2                     # (//=, %=, **=, &= ... were refused)
    b = a.copy()
    b %= 3
    b **= 2
    b &= 6
    b ^= 1
    x -= 0.1                    # float32 stays float32, rounded as NumPy's
    x /= 3
    y = x.copy()
    y //= 0.7
    y %= 0.5
    return a, b, x, y, divmod(n, 4), divmod(-n, 4), divmod(n + 0.5, 2)


def element_swaps(x):
    a = x.copy()
    t = a[0]                    # a NumPy scalar: it keeps its value when a[0] is written
    a[0] = a[1]
    a[1] = t
    a[2], a[3] = a[3], a[2]
    for i in range(len(a)):     # bubble sort, both swaps
        for j in range(len(a) - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    first = x[0]
    x += 1                      # the caller's array
    b = x.copy()
    u = b[1]
    b.fill(0.5)
    w = b[2]
    _bump(b)                    # (a helper's write keeps the caller's elements too)
    return (a, first, x, u, w, b, math.sqrt(abs(first)), math.floor(x[1]),
            math.tanh(np.float32(0.5)))


def _bump(v):
    v += 1


def masks_beside_indices(x, labels):
    y = x.copy()
    y[y[:, 0] > 0, 1] = 0.0            # (a row mask and a column: the view y[:, 1])
    y[2, y[2] < 0] = -1.0
    y[:, y[0] > 0] = 5.0               # (a column mask after a slice)
    y[y[:, 3] < 1, 1:3] += 1.5
    y[labels == 2, :2] = np.array([7.0, 8.0])
    return y, x, x[labels == 1, 0].mean(), x[labels == 0, 1:3].sum()


def scatter_and_copy(a, labels, m):
    counts = np.zeros(4, np.int64)
    np.add.at(counts, labels, 1)            # (repeats counted, unlike counts[labels] += 1)
    np.add.at(a, [0, 0, 2], 1.5)
    np.add.at(m, (np.array([2, 2, 0]),), np.ones((3, 3)))
    b = np.zeros_like(a)
    np.copyto(b, a, where=a > 0)
    np.copyto(m[0], 7)
    return counts, a, b, m


WRITES = [
    ("scatter_and_copy", scatter_and_copy, lambda: (_r(42, 6), np.array([0, 3, 3, 1, 3]),
                                                    _r(43, 3, 3))),
    ("masks_beside_indices", masks_beside_indices, lambda: (_r(36, 6, 4),
                                                            np.array([0, 1, 2, 1, 0, 2]))),
    ("element_swaps", element_swaps, lambda: (_r(35, 7),)),
    ("inplace_operators", inplace_operators,
     lambda: (np.arange(-5, 7, dtype=np.int32), _r(34, 7, dtype=np.float32), 7)),
    ("indexed_updates", indexed_updates, lambda: (np.array([0, 4, 4, 1, 0, 2]), _r(30, 6))),
    ("reversed_writes", reversed_writes, lambda: (_r(31, 8),)),
    ("flatten_is_a_copy", flatten_is_a_copy, lambda: (_r(32, 3, 4),)),
    ("quiet_blocks", quiet_blocks, lambda: (np.array([1.0, 0.0, -1.0]),)),
]


@pytest.mark.parametrize("fn, make", [p[1:] for p in WRITES], ids=[p[0] for p in WRITES])
def test_writes_reach_the_array_as_in_numpy(fn, make):
    test_program_matches_numpy(fn, make)


def view_of_reversed(x):
    v = x[::-1]
    v[0] = 5.0      # NumPy writes x[-1]; a reversed view is a copy here
    return x


def flipped_update(x):
    v = np.flip(x)
    v += 1
    return x


def reversed_out(x):
    out = np.empty_like(x)
    np.multiply(x, 2.0, out=out[::-1])     # NumPy writes out back to front
    return out


def int_indexed_float_update(a):
    a[a[:2]] += 1.5     # NumPy: UFuncTypeError (same_kind)
    return a


@pytest.mark.parametrize("fn, match", [
    (view_of_reversed, "reversed view"), (flipped_update, "reversed view"),
    (reversed_out, "reversed view"), (int_indexed_float_update, "cannot be cast"),
], ids=["view_of_reversed", "flipped_update", "reversed_out", "int_indexed_float_update"])
def test_writes_that_cannot_be_numpys_are_refused_at_their_line(fn, match):
    with pytest.raises(fusejit.ScriptError, match=match) as error:
        fusejit.jit(fn)(np.arange(4) if fn is int_indexed_float_update else _r(33, 4))
    assert __file__.rsplit("/", 1)[-1] in str(error.value)


def zero_d_updates(x, y):
    x *= 2.0
    x[...] += y
    t = x
    x -= 1.0
    return t, x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_0_d_array_argument_is_written_in_place_on_every_call(dtype):
    """A 0-d array the caller passes is an array: ``x *= 2.0`` writes into it (a NumPy scalar
    would be rebound). The first call runs on the interpreter, later ones compiled; none may
    leave the caller's array unwritten or return a NumPy scalar for it."""
    fn = fusejit.jit(zero_d_updates)
    for _ in range(4):
        a, b = np.array(1.5, dtype), np.array(1.5, dtype)
        got, want = fn(a, 0.25), zero_d_updates(b, 0.25)
        assert a.dtype == b.dtype and a == b
        for g, w in zip(got, want):
            assert type(g) is type(w) and g.dtype == w.dtype and g == w


def int_by_minus_one(a):
    return a // -1, a % -1


def test_int_floor_division_by_minus_one_wraps_as_numpy_on_later_calls():
    """int8 -128 // -1 is -128 in NumPy (a wrap); the compiled whole graph (Numba) gave 0, so
    a constant -1 divisor keeps the graph on the interpreter."""
    jitted, a = fusejit.jit(int_by_minus_one), np.array([-128, 5, -7], dtype=np.int8)
    with np.errstate(all="ignore"):
        want = int_by_minus_one(a)
    for _ in range(3):
        _same(jitted(a), want)


def test_int_division_by_zero_says_what_numpy_does_instead():
    with pytest.raises(fusejit.InterpreterError, match="NumPy returns 0") as error:
        fusejit.jit(floor_division)(np.arange(3), np.array([1, 0, 2]))
    assert __file__.rsplit("/", 1)[-1] in str(error.value)


def enumerate_zip(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):          # (was: call to unknown function 'zip')
        s += i * a * b
    for k, (u, v) in enumerate(zip((1.0, 2.0), (x[0], y[1]))):
        s -= k * u * v
    return s


def test_enumerate_over_zip_matches_numpy():
    test_program_matches_numpy(enumerate_zip, lambda: (_r(36, 5), _r(37, 4)))


def sorts_and_comparisons(x, y, a):
    t = x[0]
    x.sort()                    # in place, the caller's array (was refused)
    a.sort(axis=0)
    z = np.where(y > 0, np.nan, y)
    return (t, x, a, np.array_equal(x, y), np.array_equal(x, x[:3]), np.array_equal(z, z),
            np.array_equal(z, z, equal_nan=True), np.cumsum(a, axis=0, dtype=np.float32),
            a.cumsum(dtype=np.int32))


def test_in_place_sort_array_equal_and_cumsum_dtype_match_numpy():
    test_program_matches_numpy(sorts_and_comparisons, lambda: (_r(38, 6), _r(39, 6),
                                                               _r(40, 3, 4)))


def beyond_range_comparisons(u, i):
    # NumPy 2 compares with a Python int outside the dtype exactly (was an OverflowError)
    return u > -1, u == -1, -1 < u, u < 300, u != 256, i < 200, i >= -200, 1000 == i


def test_comparisons_with_ints_beyond_the_dtype_match_numpy():
    test_program_matches_numpy(beyond_range_comparisons, lambda: (
        np.array([0, 7, 255], dtype=np.uint8), np.array([-128, 0, 127], dtype=np.int8)))


def zero_d_results(x, y32):
    first = x[0]
    doubled = []
    for v in x:
        doubled.append(v * 2)
    if x[0] > 0:                # (a dict from two branches: was refused)
        signed = {"sign": 1, "x": x}
    else:
        signed = {"sign": -1, "x": -x}
    p = x[:2]
    return (x.sum(), first, x.max() * 2, np.float32(y32[1]) * 2, y32.mean(), x.argmax(), x,
            np.array(3.0), np.count_nonzero(x > 0), {"n": len(x), "sqrt": np.sqrt(2.0)},
            np.array(x.sum()), x[None, :, None].squeeze().shape, math.atan2(x[0], 2.0),
            math.isnan(x[1]), math.hypot(x[2], 1), -9 < x[0] < x[1] + 9,
            doubled[-1], 0.5 * np.abs(np.dot(p, np.roll(p, 1))), signed)   # (were 0-d arrays)


def uint8_elements(a):
    return a[0] + a[1], a[0] * 3, int(a[0]) - int(a[1])     # (int(): was uint64 when compiled)


def _every_tier(fn, *args):
    """``fn`` jitted, called three times (interpreted, then compiled whole): the results and
    their types against NumPy's."""
    jitted = fusejit.jit(fn)
    with np.errstate(all="ignore"):
        want = fn(*args)
    for _ in range(3):
        with np.errstate(all="ignore"):
            got = jitted(*args)
        assert [type(g) for g in got] == [type(w) for w in want]
        _same(got, want)
    return jitted, want


def test_zero_d_results_are_numpy_scalars_as_numpy_returns_them():
    # x.sum(), x[0], ... are NumPy scalars (they were 0-d arrays, and x[0] a view of x); a 0-d
    # array made on purpose, and an array, stay arrays. The first call runs interpreted, the
    # later ones compiled whole: every tier.
    x, y = _r(41, 5), _r(42, 4, dtype=np.float32)
    fn, want = _every_tier(zero_d_results, x, y)
    _every_tier(uint8_elements, np.array([10, 168, 3], dtype=np.uint8))
    first = fn(x, y)[1]
    x[0] += 1                   # a returned element is a value: a later write leaves it
    assert first == want[1]


# -- a loop that stores into a bool array inside a loop reading it (crashed compiled whole) ---

def sieve(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, n + 1):
        if is_prime[i]:
            for k in range((n - i * i) // i + 1):
                is_prime[i * i + k * i] = False
    return is_prime, is_prime.astype(np.int64).sum()


def test_a_sieve_over_a_bool_array_runs_compiled_whole():
    """LLVM's loop vectoriser made this segfault from its second (compiled) call on
    (``runtime/element_jit.py``)."""
    _every_tier(sieve, 60)


def _multiples_marked(marks):
    n = marks.shape[0] - 1
    for i in range(2, n + 1):
        if marks[i] == 0:
            for k in range(2 * i, n + 1, i):
                marks[k] = 1
    return marks, int(marks.sum())


def marked_uint8(n):
    return _multiples_marked(np.zeros(n + 1, dtype=np.uint8))


def marked_int8(n):
    return _multiples_marked(np.zeros(n + 1, dtype=np.int8))


def marked_bool(n):
    return _multiples_marked(np.zeros(n + 1, dtype=np.bool_))


def relaxed(u, f, steps):
    for _ in range(steps):
        u = 0.5 * (u + np.tanh(f - u)) + 0.1 * np.abs(u).max()
    return u


# (int8's sieve stores one byte as uint8's does)
@pytest.mark.parametrize("sieves", [
    pytest.param((marked_uint8, marked_bool), id="uint8_bool"),
    pytest.param((marked_int8,), id="int8", marks=pytest.mark.exhaustive)])
def test_whole_graph_loops_keep_the_vectoriser_unless_they_store_one_byte_arrays(sieves):
    """Only a function that could store into a one-byte array in a loop (the stores LLVM's
    vectoriser miscompiled: bool, int8 and uint8 sieves, every tier) compiles without it; a
    loop over float arrays keeps it (``element_function.byte_stores_in_loops``)."""
    from fusejit.runtime.element_function import element_source
    from tests.runtime.conftest import scripted

    for sieve_of in sieves:
        _every_tier(sieve_of, 60)
        assert "@element_jit(loops=True)\n" in element_source(scripted(sieve_of, 60), [])
    u, f = _r(43, 50), _r(44, 50)
    _every_tier(relaxed, u, f, 4)
    assert "@element_jit(vectorise=True, loops=True)\n" in element_source(
        scripted(relaxed, u, f, 4), [])


def break_index(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        total += x[i]
    return total, i          # the loop's name after it: where it broke, else the last index


def stepped_index(n):
    k = -1
    for k in range(2, n, 3):  # noqa: B007 (read after the loop: the point of the test)
        pass
    return k


def rebound_index(x):
    for i in range(x.shape[0]):
        x[i] += i
        i = i * 10           # rebinding it changes nothing the loop does, but is seen after
    return x, i


def unrun_index(n):
    for i in range(n):  # noqa: B007 (read after the loop)
        pass
    return i


@pytest.mark.parametrize("fn, make", [
    (break_index, lambda: (np.array([1.0, 2.0, -1.0, 4.0]),)),
    (break_index, lambda: (np.arange(5, dtype=np.int64),)),
    (stepped_index, lambda: (10,)), (stepped_index, lambda: (2,)),
    (rebound_index, lambda: (np.zeros(4),)), (unrun_index, lambda: (3,))],
    ids=["break", "no_break", "stepped", "stepped_unrun", "rebound", "unrun"])
def test_a_range_loops_name_is_read_after_it_on_every_call(fn, make):
    jitted = fusejit.jit(fn)
    for _ in range(3):
        args, want_args = make(), make()
        assert repr(jitted(*args)) == repr(fn(*want_args))
        assert repr(args) == repr(want_args)
    with pytest.raises(UnboundLocalError):
        unrun_index(0)
    with pytest.raises(fusejit.JITException, match="UnboundLocalError: 'i' is assigned only"):
        fusejit.jit(unrun_index)(0)


def reused_row_name(m):
    total = 0.0
    for row in m:
        total += row.sum()
    for row in m:            # (binds row before its body reads it: the first loop's is dead)
        total -= row.max()
    return total


def test_a_loop_name_that_the_next_loop_binds_anew_is_not_read_after_the_first():
    """``row`` of the first loop is never read: the second loop binds it before its body
    reads it. On zero rows each loop runs zero times and Python returns 0.0; the second loop's
    reads made ``row`` look live, and the first loop raised UnboundLocalError. (On zero rows
    the total is a NumPy float64, where Python's stays a float: its type as the loop makes
    it.)"""
    jitted = fusejit.jit(reused_row_name)
    for m in (np.zeros((0, 3)), np.arange(6.0).reshape(2, 3), np.zeros((0, 3))):
        assert jitted(m) == reused_row_name(m)


# -- NumPy scalars made arrays, 0-d arrays indexed with None, np.diff's prepend/append -------

def numpy_scalar_arrays(x):
    return (np.asarray(np.float32(1.5)), np.array(np.int8(3)) + np.int8(1),
            np.concatenate([x, np.asarray(np.float32(2))[None]]), np.asarray(x.sum())[None])


def test_a_numpy_scalar_made_an_array_keeps_its_dtype():
    """``np.asarray(np.float32(1.5))`` is float32 (it was float64, silently); a 0-d array
    indexed with None (``[None]``) is a vector of one (the whole-graph size bound raised a
    TypeError on it from the second call)."""
    _every_tier(numpy_scalar_arrays, _r(43, 5, dtype=np.float32))
    _every_tier(numpy_scalar_arrays, _r(44, 3))


def diffs_joined(x, a, ints, f32):
    return (np.diff(x, prepend=0.0), np.diff(x, append=x[-1]), np.diff(a, axis=0, prepend=0),
            np.diff(a, n=2, axis=1, prepend=a[:, :1], append=1.5), np.diff(ints, prepend=0),
            np.diff(ints, prepend=0.5), np.diff(f32, prepend=0.0),
            np.diff(f32, prepend=np.float32(0)), np.diff(x, n=0, prepend=1.0),
            np.diff(ints > 0, prepend=False), np.diff(x, prepend=[1.0, 2.0]))


def test_diff_joins_prepend_and_append_as_numpy_does():
    """A number or 0-d array broadcast to one slice of the array, arrays joined as they are,
    the dtypes promoted as np.concatenate promotes them (float32 with 0.0: float64; with
    np.float32(0): float32); n=0 leaves the array as it is."""
    rng = np.random.default_rng(45)
    _every_tier(diffs_joined, rng.standard_normal(9), rng.standard_normal((4, 6)),
                rng.integers(-9, 9, 7), rng.standard_normal(5).astype(np.float32))


def test_diff_refuses_a_prepend_of_the_wrong_shape():
    def joined(a):
        return np.diff(a, prepend=a[:1])

    with pytest.raises(ValueError):
        joined(np.ones((3, 4)))
    with pytest.raises(fusejit.FusejitError):
        fusejit.jit(joined)(np.ones((3, 4)))


def masked_then_indexed(x, a):
    return x[x > 0][0], x[x > 0][::2].sum(), a[a[:, 0] > 0][:, 1], x[np.abs(x) > 0.1][[0, 1]]


def test_a_masked_selection_is_indexed_as_the_array_it_is():
    """``x[mask][:5]``, ``x[mask][0]``: the selected values indexed (a Masked could not be)."""
    rng = np.random.default_rng(46)
    x, a = rng.standard_normal(40), rng.standard_normal((6, 3))
    a[0, 0] = 1.0
    _every_tier(masked_then_indexed, x, a)


def elements_in_a_tuple(x):
    t = (x[0], x[1])
    x[0] = 9.0
    return t[0] + t[1]


def elements_in_a_list(x):
    vals = [x[0], x[2]]
    x[0] = -1.0
    return vals[0] - vals[1]


def a_list_held_beside_a_write(x):
    idx = [1, 3]
    y = x.copy()
    y[0] = 5.0
    return y[idx]


def a_named_result_held_beside_a_write(x):
    s = np.outer(x, x) + np.eye(5)
    r = np.linalg.eigh(s)
    s[0, 0] = 9.0
    return r.eigenvalues, r.eigenvectors[:, -1] ** 2


@pytest.mark.parametrize("fn", [elements_in_a_tuple, elements_in_a_list,
                                a_list_held_beside_a_write,
                                a_named_result_held_beside_a_write])
def test_elements_read_into_a_tuple_or_list_keep_their_values_after_a_write(fn):
    """NumPy's x[0] is a scalar, read when it is: a tuple or list of them keeps what was
    read when the array is written later (they read the new values, silently); a name bound
    to a list of numbers beside a write raised TypeError."""
    for _ in range(3):
        x, y = np.arange(5.0), np.arange(5.0)
        assert_same(fusejit.jit(fn)(x), fn(y))
        np.testing.assert_array_equal(x, y)


def squared(x):
    return x * x


@pytest.mark.parametrize("value, hint", [
    (np.matrix([[1.0, 2.0], [3.0, 4.0]]), "np.asarray"),
    (np.ma.masked_array([1.0, 2.0], mask=[True, False]), "filled")])
def test_an_ndarray_subclass_argument_is_refused_naming_it(value, hint):
    """np.matrix's * is a product (it ran elementwise: silently not NumPy's answer), and a
    masked array's mask would be read as data by the kernels: a FusejitError naming the
    argument, its type and what to pass."""
    with pytest.raises(fusejit.FusejitError, match=f"argument 'x'.*subclass.*{hint}"):
        fusejit.jit(squared)(value)


def test_a_memmap_argument_runs_as_the_array_it_maps(tmp_path):
    mapped = np.memmap(tmp_path / "a.dat", dtype=np.float64, mode="w+", shape=(6,))
    mapped[:] = np.arange(6.0)
    got = fusejit.jit(squared)(mapped)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.arange(6.0) ** 2)


def put_largest_to_zero(a):
    np.put_along_axis(a, np.argmax(a, axis=1)[:, None], 0.0, axis=1)
    b = np.zeros_like(a)
    r = np.put_along_axis(b, np.argsort(a, axis=0)[:2], -1.0, axis=0)
    v = a[0].copy()
    np.put_along_axis(v, np.array([0, 3]), 9.0, axis=None)
    return a, b, v, r is None


def test_put_along_axis_writes_into_the_array_as_numpy_does():
    """Through take_along_axis' index, into the array itself (the argument too), returning
    None; axis=None of a vector."""
    rng = np.random.default_rng(47)
    for _ in range(3):
        x = rng.standard_normal((5, 7))
        y = x.copy()
        assert_same(fusejit.jit(put_largest_to_zero)(x), put_largest_to_zero(y))
        np.testing.assert_array_equal(x, y)


def spaced(x):
    pts, dx = np.linspace(-1, 1, 21, retstep=True)
    return (np.linspace(0.0, 1.0, 5, retstep=True), np.linspace(0, 10, 4, endpoint=False,
                                                                 retstep=True),
            (pts ** 2).sum() * dx, np.linspace(0.0, float(x[0]), 6, retstep=True)[1])


def one_point(x):
    return np.linspace(2.0, float(x[0]), 1, retstep=True)


def test_linspace_returns_its_step_with_retstep():
    """NumPy's step, an np.float64: (stop - start) / (num - 1), / num without the endpoint;
    for one point with it, NumPy's Python float NaN."""
    _every_tier(spaced, np.array([3.0]))
    points, step = fusejit.jit(one_point)(np.array([3.0]))
    assert type(step) is float and math.isnan(step)
    np.testing.assert_array_equal(points, [2.0])


def written_literals(x):
    c = np.array([1.0, 2.0, 3.0])
    c[0] = x[0]
    rows = []
    for i in range(3):
        r = np.array([0.0, 0.0])         # (a new array each iteration, as NumPy makes it)
        r[1] = x[i]
        r += 1.0
        rows.append(r)
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    m[:, 0] = x[:2]
    return c, np.stack(rows), m


def test_an_array_made_from_numbers_may_be_written():
    """``np.array([1.0, 2.0, 3.0])`` is a new array, which NumPy lets the program write; it
    was a read-only constant ("assignment destination is read-only"). (``np.asarray`` of a
    list still is one.)"""
    x = np.linspace(-1.0, 1.0, 5)
    _every_tier(written_literals, x)


# -- lists made with their first items, then appended (a convergence history) --------------

def convergence_history(x, n):
    history = [1.0]
    snapshots = [x.copy()]
    for k in range(n):
        x = 0.5 * (x + 2.0 / x)
        history.append(math.sqrt(np.sum((x * x - 2.0) ** 2)) / history[0])
        if k % 2 == 0:
            snapshots.append(x.copy())
    return np.array(history), np.array(snapshots), len(history)


def test_a_list_made_with_items_then_appended_runs_compiled_whole():
    """``history = [1.0]`` and ``snapshots = [u.copy()]``, appended in a loop and stacked:
    compiled whole (the interpreter ran them before, a conjugate gradient's loop at 0.45x
    NumPy), each stack holding the first items and the appended ones."""
    from tests.runtime.conftest import compiled_whole

    x = 1.0 + _r(45, 6)
    got = compiled_whole(convergence_history, x, 5)(x, 5)
    _same(tuple(got), convergence_history(x, 5))
    _every_tier(convergence_history, x, 5)
