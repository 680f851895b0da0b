"""Each NumPy construct ``fusejit.jit`` accepts, against NumPy itself: value, dtype and shape.

One small function per construct (reductions with every axis form, indexing, creation,
assignment, Python structure); the oracle is the same function run by NumPy. Arguments that
the function writes into must end as NumPy leaves them.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from tests.matrix import halved

from .numpy_programs import assert_same as _same

RNG = np.random.default_rng(5)
F64 = RNG.standard_normal((4, 5, 3))
F32 = RNG.standard_normal((6, 4)).astype(np.float32)
I32 = RNG.integers(-5, 9, (3, 4)).astype(np.int32)
B = RNG.random((3, 4)) > 0.5


CASES = []


def case(*args):
    def register(fn):
        CASES.append(pytest.param(fn, args, id=fn.__name__))
        return fn
    return register


# Constructs a case of CASES the default suite runs already checks, in another form: exhaustive
# cases (tests/conftest.py), after the halved corpus.
MORE_CASES = []


def more_case(*args):
    def register(fn):
        MORE_CASES.append(pytest.param(fn, args, id=fn.__name__, marks=pytest.mark.exhaustive))
        return fn
    return register


@case(RNG.integers(0, 1 << 32, (3, 4), dtype=np.uint32))
def dtype_attributes(x):
    # (the width a generic bit trick reads; kind and name tested while scripting)
    bits = 8 * x.dtype.itemsize
    top = x >> (bits - 4)
    unsigned = x.dtype.kind == "u" and x.dtype.name == "uint32" and x.dtype.char == "I"
    # (np.iinfo's numbers: weak Python ints, uint64's max beyond int64)
    saturated = np.minimum(x.astype(np.uint64) * 2, np.iinfo(x.dtype).max)
    near_top = x.astype(np.uint64) > np.iinfo(np.uint64).max - 5
    return top, x.nbytes, x.itemsize, unsigned, F32.nbytes, x.dtype.str == "<u4", saturated, \
        near_top, np.iinfo(np.int8).min, np.iinfo(np.int16).bits


@case(RNG.random(21) < 0.5, RNG.integers(0, 3, (3, 13)).astype(np.int32))
def packed_bits(a, m):
    # (21 and 13 bits: the last byte padded; counts past the end pad with zeros)
    p = np.packbits(a)
    q = np.packbits(m, axis=-1, bitorder="little")
    return p, q, np.unpackbits(p), np.unpackbits(p, count=30), \
        np.unpackbits(q, axis=1, count=-3, bitorder="little"), np.unpackbits(p).sum()


@case(np.arange(6, dtype=np.int32), 3, np.array([1, -1, 2, 0, 1, 3]))
def bincount_of_a_loop_variable(x, steps, d):
    for _ in range(steps):
        x = np.clip(x + d, 0, 9)       # (int32, then int64: its dtype known when it runs)
    return np.bincount(x, minlength=10)


@case(np.array([0, 1, 2, 3, 0, 7], np.uint32), np.array([0.0, np.nan, -0.0, 2.5, 0.0, 1e-300]))
def where_of_numbers(c, f):
    # (any array is NumPy's truth: nonzero, NaN included; a loop's table of a CRC)
    table = np.arange(8, dtype=np.uint32)
    for _ in range(3):
        table = np.where(table & 1, 0xEDB88320 ^ (table >> 1), table >> 1)
    return np.where(c & 1, f, -f), np.where(c, 1.0, 0.0), np.where(f, c, 9), table


# -- reductions -----------------------------------------------------------------------------

@case(F64)
def reductions_all(x):
    return x.sum(), x.mean(), x.max(), x.min(), x.prod(), x.var(), x.std(), x.argmax(), \
        x.argmin(), (x > 0).any(), (x > -9).all()


@case(F64)
def reductions_axis(x):
    return (x.sum(axis=0), x.mean(axis=-1), x.max(axis=1), x.min(axis=(0, 2)),
            x.prod(axis=(0, 2)), x.var(axis=1, ddof=1), x.std(axis=-1, keepdims=True),
            x.argmax(axis=1), x.argmin(axis=-1, keepdims=True), (x > 0).any(axis=2),
            (x > -1).all(axis=(0, 1)), x.cumsum(axis=1), x.cumsum())


@case(F32, I32)
def np_reductions(x, i):
    return (np.sum(x, axis=1, keepdims=True), np.mean(i), np.mean(i, axis=0), np.max(x, 0),
            np.amin(i, axis=1), np.prod(i, axis=0), np.argmax(x, axis=1), np.var(i),
            np.std(x, axis=0), np.any(i > 3), np.all(i > -9, axis=1), np.cumsum(i, axis=0),
            np.sum(i), np.prod(x, axis=(0, 1), keepdims=True))


@case(F32, I32)
def ufuncs(x, i):
    return (np.maximum(x, 0.5), np.minimum(i, 2), np.clip(x, -0.5, 0.5), np.abs(i),
            np.sign(x), np.square(i), np.sqrt(np.abs(x)), np.dot(x, x.T), np.exp(i),
            np.floor(x), np.floor_divide(i, 3), i // 2, i % 3, np.log1p(np.abs(x)),
            np.dot(x[0], x[1]), x.dot(x.T))


# -- indexing -------------------------------------------------------------------------------

@case(F64)
def slicing(x):
    return (x[1:], x[:-1], x[::2], x[1:3, ::2], x[-2:, 1], x[:, 1:] - x[:, :-1], x[..., 0],
            x[0, ..., 1:], x[None], x[:, None, :, 0], x[np.newaxis, 1], x[2, 3, 1],
            x[::-1], x[1:-1:2, -1])


@case(F32)
def mask_where(x):
    return np.where(x > 0, x, 0.0), np.where(x > 0, 1, -1), x * (x > 0)


# -- creation and conversion -----------------------------------------------------------------

@case(F32, 3)
def creation(x, n):
    e, e_like = np.empty((2, n)), np.empty_like(x)   # uninitialised: only written ones compared
    e[...] = 1.0
    e_like[:] = 2.0
    return (np.zeros((n, 2)), np.ones(4, dtype=np.int32), e, np.full((2, 2), 7),
            np.full((n,), 0.5, dtype=np.float32), np.zeros_like(x), np.ones_like(x, dtype=int),
            e_like, np.full_like(x, 3), np.arange(n), np.arange(1, 10, 2),
            np.arange(0.0, 1.0, 0.25), np.linspace(0, 1, 5), np.eye(n), np.eye(2, 3),
            np.zeros(x.shape), x.astype(np.float64), x.astype(int), x.astype(bool))


@case(I32, F32)
def dtype_values(i, x):
    return i.astype(x.dtype), np.zeros(3, dtype=i.dtype), x.astype(np.int8)


# -- assignment -----------------------------------------------------------------------------

@case(np.zeros((4, 3)), F32[:4, :3].copy(), 1, 2.5)
def assignment(a, b, i, v):
    a[i] = v
    a[i, 2] = -1.0
    a[2:4] = b[:2]
    a[:, 0] += 1
    a[3] *= 2.0
    b[b < 0] = 0.0
    b += a
    return a, b


@case(F64.copy(), F64[0].copy())
def inplace_on_arguments(a, b):
    a += 1
    b *= 2
    a[0] -= b
    return a.sum() + b.sum()


# -- Python -----------------------------------------------------------------------------------

def _helper(x, scale=2.0):
    return x * scale


@case(F32, 3)
def python_structure(x, n, *, scale=0.5, bias=None):
    rows = []
    for row in x:
        if row.sum() > 0:
            continue
        rows.append(_helper(row, scale))
    total = 0
    for k in range(10):
        if k == n:
            break
        total += k
    for w in (1.0, 2.0):
        x = x * w
    out = np.stack(rows) if bias is None else x
    return np.concatenate([x, x], axis=0), out, total


# -- boolean masks read shape-independently, masked updates, loop-defined names -------------

@case(F64[0], 0.1, I32)
def masked_reductions(x, t, i):
    rows = x[x[:, 0] > t]                 # a row selection, held in a name until reduced
    return (x[x > t].sum(), x[x > t].mean(), np.max(x[x < t]), len(x[x > t]), x[x > 9].mean(),
            rows.mean(axis=0), rows.sum(axis=0), x[x > t].any(), x[x > -9].all(),
            i[i > 2].sum(), i[i > 2].mean(), i[i < 0].min(), (x > t)[x < 0].size)


@case(I32.copy(), F32[:3, :4].copy())
def masked_updates(counts, x):
    counts[x > 0] += 1
    counts[x > 0.5] *= 2
    x[x < 0] -= 1.5
    return counts, x


@case(F64[:, :, 0].copy(), F64[:, :, 1].copy(), (np.arange(20).reshape(4, 5) % 7 - 2).astype(np.int32),
      F64[:, :, 2] > -0.5)
def masked_updates_by_arrays(hp, damage, counts, alive):
    active = (damage > 0) & alive
    hp[active] -= damage[active]                   # y[mask], the same mask: over the arrays
    hp[alive] *= 1.0 + damage[alive]
    counts[alive] += counts[alive]                 # the updated array itself
    hp[hp < 0] /= damage[hp < 0]                   # a division: the selection, put back
    counts[counts > 2] //= np.arange(1, 1 + int((counts > 2).sum()), dtype=np.int32)
    rows = active.any(axis=1)
    hp[rows, 0] += damage[rows, 1]                 # a mask beside an int: the view's rows
    return hp, counts


@case(F64[:, :, 0].copy(), 2)
def exits_from_loops_over_tuples(x, n):
    total = np.zeros_like(x)
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            if i == 0 and j == 0:                  # decided while scripting
                continue
            total += np.roll(np.roll(x, i, axis=0), j, axis=1)
    for k, w in enumerate((0.5, 2.0, 4.0)):
        if total.sum() > n * w:                    # decided when it runs
            break
        total = total * w + k
    for a, b in zip((1, 2, 3), (x, x * 2, x * 3)):
        if b.max() < a:
            continue
        total -= b
    return total


@case(F32, 3)
def defined_in_the_loop(x, n):
    for k in range(n):
        y = x * k
        last = k
    return y, last


GLOBAL_COEFFS = [1.0, -2.0, 0.5]
GLOBAL_TABLE = np.array([3, 1, 2], dtype=np.int32)
GLOBAL_CONFIG = {"scale": 1.5, "shift": 2}


@case(F32[0])
def arrays_from_lists_and_globals(x):
    rows = [x, x * 2]
    acc = 0.0
    for c in GLOBAL_COEFFS:
        acc = acc * 1.5 + c
    return (np.array(rows), np.array([1, 2, 3]) * x[0], np.asarray(x, dtype=np.float64),
            acc, GLOBAL_TABLE * 2, np.array(x), x * GLOBAL_CONFIG["scale"] + GLOBAL_CONFIG["shift"])


@case(F64[0], 3)
def comprehensions_and_dicts(x, n):
    rows = [x[i] * 2 for i in range(n)]                # an IR list, stacked
    scaled = [w * x for w in (1.0, 2.0, -1.0) if w > 0]  # unrolled, the if decided
    squares = [k * k for k in range(4)]                 # unrolled: Python numbers
    stats = {"mean": x.mean(), "max": x.max()}
    stats["span"] = stats["max"] - x.min()
    total = 0.0
    for _key, value in stats.items():
        total = total + value
    if x.ndim != 2:
        raise ValueError("x must be a matrix")
    return np.stack(rows), np.array(scaled), squares[3] + 0.5, total, len(stats)


@case(F64[0], I32, B)
def more_numpy_functions(x, i, m):
    return (np.diff(x), np.diff(x, 2, axis=0), np.diff(m, axis=1), np.count_nonzero(x > 0),
            np.count_nonzero(i, axis=0), np.logical_and(x > 0, x < 1), np.logical_or(m, 0),
            np.logical_xor(m, i > 2), np.exp2(i), np.exp2(x.astype(np.float32)),
            np.expand_dims(x, -1), np.swapaxes(x, 0, 1), x.swapaxes(1, 0),
            np.isclose(x, x + 1e-9), np.isclose(i, 3), np.round(x, 2), np.round(x, -1),
            sum(x), sum((x, x, 1.0)), sum(i), np.arctan2(x, 1.0), np.arctan2(2, i))


@case(F64[0], F64[1])
def zip_asserts_and_shape_tests(x, y):
    assert x.ndim == 2, "x must be a matrix"
    total = 0.0
    for a, b in zip(x, y):                         # rows of two arrays
        total = total + (a * b).sum()
    for w, v in zip((1.0, 2.0), (x, y)):           # unrolled
        total = total + w * v.sum()
    same = x + y if x.shape == y.shape else x
    return (total, same, x.shape != y.shape, x.shape == (4, 5), x.dtype == np.float64,
            x.dtype != np.float32)


@case(F64[0])
def negative_steps(x):
    return (x[3:0:-2], x[:1:-1], x[2::-1], x[-1:-4:-2], x[9:0:-1], x[1:3:-1], x[-1::-2],
            np.eye(4, k=1), np.eye(3, 5, -1, dtype=np.int32))


EDGES = np.array([-1.0, -0.25, 0.0, 0.0, 0.5, 2.0])
SEARCHED = np.array([np.nan, -np.inf, -1.0, 0.0, 0.1, 0.5, 3.0, np.inf, -0.25])


@case(EDGES, SEARCHED, I32)
def binning(edges, v, i):
    # (a number is taken as np.asarray takes it, not as a weak scalar: 0.1 and 2**24 + 1
    # are compared with float32 edges in float64, where float32's 0.1 is above 0.1)
    e32 = edges.astype(np.float32)
    return (np.searchsorted(edges, v), np.searchsorted(edges, v, side="right"),
            np.searchsorted(edges, 0.1), np.searchsorted(e32, 0.1),
            np.searchsorted(e32 * 0.0 + 0.1, 0.1, side="right"),
            np.searchsorted(e32 * 0.0 + 16777216.0, 16777217),
            np.searchsorted(np.sort(i.ravel()), 3), np.digitize(v, edges),
            np.digitize(v, edges, right=True), np.digitize(v, edges[::-1]),
            np.digitize(v, edges[::-1], right=True), np.digitize(i, [0, 2, 4]))


@case(F64[0])
def selections_as_arrays(x):
    # (x[mask] used as an array: NumPy's selection, of a length known when it runs)
    return (x[x > 0], (x[x > 0] + 1).sum(), x[x > 0].cumsum(), x[x[:, 0] > 0] * 2,
            np.sort(x[x < 0]), x[x > 0].std(), x[x > 0].shape[0], x[x > 9])


@case(F64[0], B)
def positions(x, m):
    # (np.nonzero's arrays and np.argwhere's rows: their count known when they run)
    rows, cols = np.nonzero(x > 0)
    return (rows, cols, np.where(m)[1], np.argwhere(m), np.flatnonzero(x < 0),
            x[np.nonzero(x > 0)] * 2, np.where(x > 9)[0])


@case(F64[0], np.array([0, 7, 14]))
def unravelled_and_gradients(x, flat):
    (r, c), (rs, cs) = np.unravel_index(np.argmax(x), x.shape), np.unravel_index(flat, x.shape)
    v = x[:, 0]
    return (r, c, rs, cs, np.unravel_index(7, (2, 3, 4))[2], np.gradient(v),
            np.gradient(v[:2]), np.gradient(v.astype(np.float32)),
            np.gradient((v * 10).astype(np.int64)))


LABELS = np.array([3, 0, 3, 1, 7, 0, 3])
WEIGHTS = np.array([0.5, np.nan, 1.0, -2.0, 0.25, np.nan, 4.0], np.float32)


@case(LABELS, WEIGHTS)
def counting(labels, w):
    # (lengths known when they run: the largest label + 1, the number of distinct values)
    return (np.bincount(labels), np.bincount(labels, minlength=10),
            np.bincount(labels, weights=w), np.unique(labels), np.unique(w),
            np.unique(labels.reshape(7, 1) * 2))


@case(F64[0], LABELS)
def uneven_splits(x, labels):
    a, b, c = np.array_split(labels, 3)              # (7 elements: 3, 2, 2)
    left, right = np.array_split(x, 2, axis=1)
    return a, b, c, left, right, np.array_split(labels[:2], 4)[3], np.array_split(x, 1)[0]


@case(LABELS, np.array([3.0, np.nan, -1.0, np.nan]), np.array([], np.int64))
def set_operations(labels, floats, none):
    return (np.intersect1d(labels, [0, 3, 9]), np.union1d(labels, floats),
            np.setdiff1d(labels, [3]), np.setdiff1d(floats, floats[:2]),
            np.setdiff1d(np.unique(labels), none, assume_unique=True),
            np.intersect1d(floats, floats))


@case(LABELS, np.array([3.0, np.nan, -1.0]), np.array([], np.int64))
def membership_and_log_grids(labels, tests, none):
    return (np.isin(labels, tests), np.isin(labels, [0, 7], invert=True),
            np.isin(labels * 0.5, tests), np.isin(labels, none), np.isin(tests, tests),
            np.logspace(0, 2, 5), np.logspace(-1.0, 1.0, 4, base=2.0))


def test_isin_of_a_few_test_elements_counts_matches_in_one_row_kernel():
    """np.isin of at most 8 test elements compares each element with each and counts (one row
    kernel), not a binary search (160K int16 codes in 5 int64 vowels: 1.6 ms searched, 10 ns
    an element); more test elements search; NumPy's values either way, NaN in nothing."""
    rng = np.random.default_rng(12)
    codes = rng.integers(90, 125, 5000).astype(np.int16)
    many = rng.integers(0, 200, 50)

    def vowels(codes, many):
        return (np.isin(codes, np.array([97, 101, 105, 111, 117])),
                np.isin(codes, many, invert=True), np.isin(codes * 0.5, [48.5, np.nan]))

    jitted = fusejit.jit(vowels)
    for _ in range(3):
        for got, want in zip(jitted(codes, many), vowels(codes, many), strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)
    kinds = [n.kind for n in jitted.graph_for(codes, many).all_nodes()]
    assert "prim::RowReductionGroup" in kinds and "aten::searchsorted" in kinds


def test_asarray_of_its_own_dtype_is_the_array_itself():
    """``np.asarray(x, dtype=x.dtype)`` is ``x`` itself, as in NumPy: an update of it writes
    the caller's array (fusejit had copied it, and the caller's array stayed as it was); of
    another dtype it is a new array, and ``np.array`` always copies."""
    def bump(x, i):
        y = np.asarray(x, dtype=np.float64)
        y += 1.0
        z = np.asarray(i, dtype=np.float64)
        z += 1.0
        w = np.array(x, dtype=np.float64)
        w += 1.0
        return y, z, w

    jitted = fusejit.jit(bump)
    for _ in range(3):
        mine, theirs = (np.zeros(4), np.arange(4)), (np.zeros(4), np.arange(4))
        for got, want in zip(jitted(*mine), bump(*theirs), strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)
        for got, want in zip(mine, theirs, strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)


@case(F64)
def contiguous_arrays(x):
    t = np.ascontiguousarray(x.T)       # (a copy: writing it leaves x alone)
    t[0] = -1.0
    same = np.ascontiguousarray(x)      # (x itself: writing it writes x, as in NumPy)
    same[1, 1] = 7.0
    return (t * 2.0, np.ascontiguousarray(x[:, ::2], dtype=np.float32),
            np.ascontiguousarray(x.sum()), np.ascontiguousarray(x[0]) + same)


@case(F64, F32)
def array_likes_of_numbers(x, x32):
    c = np.cumsum(np.concatenate([[0.0], x.reshape(-1)]))   # (a list of numbers: an array)
    return (c[5:] - c[:-5], np.concatenate(([1, 2], x32[0])), np.stack([(1.0, 2.0, 3.0),
            x[0, 0]]), np.percentile(x, [5, 50, 95]), np.quantile(x32, q=(0.25, 0.75)),
            np.percentile(x, (10, 90), axis=0))


@case(F64, F32, np.array([0.0, 0.1, 0.5, 0.5, 0.99, 1.0]))
def quantiles_at_an_array(x, x32, q):
    # (an array q: one result per item, ahead of the other axes, in NumPy's linear method)
    edges = np.quantile(x, np.linspace(0, 1, 5))
    return (edges, np.percentile(x32, q * 100), np.quantile(x.reshape(-1, 3), q, axis=0),
            np.searchsorted(edges[1:-1], x.reshape(-1), side="right"),
            np.quantile(np.where(x > 1.5, np.nan, x), q))


@case(F64)
def slices_of_a_shape(img):
    # (img.shape[:2] of an array of known rank: its sizes, a tuple)
    h, w = img.shape[:2]
    p = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
    acc = np.zeros(img.shape)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + h, dx:dx + w]
    return acc / 9.0, np.zeros(img.shape[1:]) + img[0], np.ones(img.shape[::-2])


@case(F64[0, :, 0], F32)
def tuples_written_into_rows(thetas, m):
    # (a tuple or list of numbers written into a row: the array NumPy makes of it, cast)
    joints = np.zeros((thetas.shape[0] + 1, 2))
    x = y = phi = 0.0
    for i in range(thetas.shape[0]):
        phi += thetas[i]
        x += np.cos(phi)
        y += np.sin(phi)
        joints[i + 1] = (x, y)
    out = np.zeros((3, 3), dtype=np.int32)
    out[0] = [1.7, 2, -3.5]
    out[1, :2] = (m[0, 0] * 10, m[1, 1])
    return joints, out


@case(np.random.default_rng(8).integers(0, 5, 60), F64.reshape(-1)[:60])
def bincounts_as_long_as_a_computed_length(keys, w):
    # (minlength a NumPy integer computed from the data)
    n = keys.max() + 3
    sw = np.bincount(keys, weights=w, minlength=n)
    return sw, np.bincount(keys, minlength=keys.size // 10 + keys.min())


@case(np.where(F64.reshape(-1) > 0.8, np.nan, F64.reshape(-1)), F32)
def accumulations_into_out(x, m):
    # (ufunc.accumulate(..., out=o): the result written into o, and o returned)
    idx = np.where(~np.isnan(x), np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    o = np.zeros_like(m)
    r = np.add.accumulate(m, axis=1, out=o)
    r[0, 0] = 5.0                       # (r is o)
    return x[idx], o, np.minimum.accumulate(m, 0, None, np.empty((6, 4)))


def _running_data():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((400, 300)).round(1)        # (many ties)
    x[rng.random(x.shape) < 0.3] = 0.0
    x[rng.random(x.shape) < 0.3] *= -1.0                # (-0.0 beside 0.0)
    x[7, 5] = x[200, 9] = np.nan                        # (NaN from there on)
    return x, (x * 10).astype(np.int8), x > 0.5


@case(*_running_data())
def running_extremes_of_each_dtype_and_axis(x, k, b):
    # (np.maximum.accumulate and np.minimum.accumulate: NumPy's own op along any axis; the
    # later of two equal values, so -0.0 or 0.0 as NumPy's; NaN on from where it is)
    o = np.empty_like(x)
    np.minimum.accumulate(x, axis=1, out=o)
    return (np.maximum.accumulate(x), np.minimum.accumulate(x, axis=-1), o,
            np.maximum.accumulate(x[:, 3]), np.maximum.accumulate(k, 1),
            np.minimum.accumulate(k), np.maximum.accumulate(b, axis=1),
            np.signbit(np.maximum.accumulate(x, axis=0)), np.signbit(o))


@case(np.random.default_rng(9).integers(-500, 500, 300),
      np.random.default_rng(10).integers(0, 60, 300).astype(np.int32))
def gcds_and_lcms(a, b):
    # (np.gcd and np.lcm: NumPy's own, in the promoted dtype; signs dropped; gcd(0, 0) is 0)
    g = np.gcd(a, b)
    return g, np.lcm(a, b), np.gcd(b, 12), np.lcm(b, b[::-1]), np.mean(g == 1), np.gcd(a, 0)


@case(F32, np.arange(6.0) ** 1.5, np.arange(7) * 3)
def gradients_by_spacing_and_axis(m, x, k):
    # (np.gradient: a spacing, coordinates uneven or even, each axis of a matrix, integers)
    return (np.gradient(m, x, axis=0), *np.gradient(m, 0.5), np.gradient(k, k),
            np.gradient(m[:, 0], np.linspace(0.0, 1.0, 6)))


@more_case(np.sort(F64.reshape(-1)), F32)
def more_gradients_by_spacing_and_axis(t, m):
    # (uneven coordinates of a vector, the default and a one-axis spacing, two elements: what
    # gradients_by_spacing_and_axis and unravelled_and_gradients run, in other forms)
    y = np.sin(t)
    return (np.gradient(y, t), *np.gradient(m), np.gradient(m, 2.0, axis=-1),
            np.gradient(y[:2]))


TIES = np.random.default_rng(5).integers(0, 10, 400)


@case(TIES, TIES.reshape(20, 20).astype(np.float32))
def argsorts_of_ties(keys, grid):
    # (NumPy's default sort is not stable: tied keys come in its own order, not stable's)
    return (np.argsort(keys), np.argsort(keys, kind="stable"), np.argsort(grid, axis=0),
            np.argsort(grid, axis=None, kind="mergesort"), np.argsort(-keys)[-5:],
            np.sort(keys))


@case(F64.reshape(-1), np.array([1.0, -2.0, 0.5]), np.arange(7))
def convolutions(x, k, ints):
    return (np.convolve(x, k), np.convolve(k, x, "valid"), np.convolve(x, k[:2], "same"),
            np.correlate(x, k, "same"), np.convolve(ints, ints[:3]), np.convolve(x, np.ones(5) / 5,
                                                                                mode="valid"))


# (values on the edges np.histogram makes for them, a constant array, float32)
ON_EDGES = np.concatenate([np.linspace(-2.0, 3.0, 11), [0.1, 2.95, -1.999]])


def histograms(x, x32, labels, w):
    # (each a path of its own: float32 with a range, int labels with weights, a constant array,
    # edges given, int labels with int edges and density; bins=5 / float32 without a range / int
    # labels alone repeated these and cost ~7 s of a cold suite's whole-graph compile)
    return (np.histogram(x32, bins=7, range=(0.1, 2.9)),
            np.histogram(labels.astype(np.float64), bins=3, weights=w),
            np.histogram(x * 0.0 + 1.5, bins=3),
            np.histogram(x, bins=np.array([-1.0, 0.0, 0.1, 3.0])),
            np.histogram(labels, bins=np.array([0, 1, 3, 8]), density=True))


def more_histograms(x):
    # (a range found, a range given, density: histograms runs them for a constant array,
    # float32 and int edges, and counts for float64's counts)
    return (np.histogram(x), np.histogram(x, bins=3, range=(-1.0, 1.0)),
            np.histogram(x, bins=4, density=True))


@pytest.mark.parametrize("fn", [histograms,
                                pytest.param(more_histograms, marks=pytest.mark.exhaustive)])
def test_histograms_are_numpys_exactly(fn):
    args = (ON_EDGES, ON_EDGES.astype(np.float32), LABELS, WEIGHTS)
    args = args if fn is histograms else args[:1]
    jitted = fusejit.jit(fn)
    for _ in range(2):
        for (n, edges), (want_n, want_edges) in zip(jitted(*args), fn(*args), strict=True):
            for got, want in ((n, want_n), (edges, want_edges)):
                assert (got.dtype, got.shape) == (want.dtype, want.shape)
                np.testing.assert_array_equal(got, want)


def counts(x):
    return np.histogram(x, bins=32)[0], np.histogram(x, bins=20, range=(-1.0, 2.5))[0]


# (float32 is an exhaustive case: the same lowering and groups; float32's edges, values on
# them included, are checked exactly by test_histograms_are_numpys_exactly[histograms])
@pytest.mark.parametrize("x", [
    pytest.param(np.concatenate([np.random.default_rng(4).standard_normal(5000), ON_EDGES]),
                 id="float64"),
    pytest.param(ON_EDGES.astype(np.float32), id="float32", marks=pytest.mark.exhaustive)])
def test_a_histogram_bins_in_one_kernel_and_counts(x):
    """The bin of each value (edges[i] and edges[i + 1] by the arithmetic that made the edges,
    not gathers, which split the maps into three kernels: 0.66x NumPy at 2^20 float64) is one
    fusion group, then np.bincount; NumPy's counts, values on the edges included."""
    from fusejit.ir.symbols import aten, prim

    jitted = fusejit.jit(counts)
    graph = jitted.graph_for(x)
    kinds = [n.kind for n in graph.nodes()]
    assert aten.index not in kinds and kinds.count(aten.bincount) == 2
    readers = [n for n in graph.nodes() if any(v is graph.inputs[0] for v in n.inputs)]
    # (one group of x's maps for each histogram, besides its min and max)
    assert [n.kind for n in readers].count(prim.FusionGroup) == 2
    for got, want in zip(jitted(x), counts(x)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
@pytest.mark.parametrize("fn, args", halved(CASES) + MORE_CASES)
def test_construct_matches_numpy(fn, args):
    mine = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    theirs = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    _same(fusejit.jit(fn)(*mine), fn(*theirs))
    for m, t in zip(mine, theirs):
        if isinstance(t, np.ndarray):
            np.testing.assert_allclose(m, t, rtol=1e-6)


def gradients_along_axes(a, coords, h):
    b = a[0].astype(np.float64)
    return (np.gradient(a, axis=-1), np.gradient(a, axis=1), np.gradient(a, 0.5, axis=0),
            np.gradient(a, axis=-3), np.gradient(b, coords, axis=0), np.gradient(b, h, axis=1),
            np.gradient(b[:, :2], axis=1), *np.gradient(b))


def gradient_steps(u, v, n):
    for _ in range(n):
        gx = np.gradient(u, axis=1)
        gy = np.gradient(u, axis=0)
        v = v + 0.01 * (gx * gx + gy * gy)
        u = u + 0.01 * v
    return u, v


def test_np_gradient_is_numpys_along_every_axis_its_parts_stored_into_the_result():
    """np.gradient's stand-in writes its three parts (the two ends and the middle) into one
    result, along the first or last axis by slices in the result's own order, not as a
    concatenation transposed back; its values, dtypes and layout are NumPy's, alone and in
    a loop (which runs whole)."""
    a = np.cos(np.arange(60.0)).reshape(3, 4, 5).astype(np.float32)
    coords = np.array([0.0, 0.1, 0.3, 0.4])
    got = fusejit.jit(gradients_along_axes, race=False)(a, coords, 0.25)
    want = gradients_along_axes(a, coords, 0.25)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.flags.c_contiguous
        np.testing.assert_array_equal(g, w)
    jitted = fusejit.jit(gradients_along_axes, race=False)
    kinds = {n.kind for n in jitted.graph_for(a, coords, 0.25).all_nodes()}
    assert "aten::cat" not in kinds
    u = np.sin(np.arange(48.0) * 0.3).reshape(6, 8)
    v = np.cos(np.arange(48.0)).reshape(6, 8)
    _same(fusejit.jit(gradient_steps, race=False)(u, v, 3), gradient_steps(u, v, 3))


def checked_sqrt(x):
    if x.min() < 0:
        raise ValueError("negative input")
    return np.sqrt(x)


def test_raise_with_a_constant_message_is_a_run_time_error_at_its_line():
    import inspect

    _, first = inspect.getsourcelines(checked_sqrt)
    f = fusejit.jit(checked_sqrt)
    for _ in range(3):                       # interpreted, compiled whole, the fast path
        _same(f(np.arange(4.0)), np.sqrt(np.arange(4.0)))
        with pytest.raises(fusejit.JITException, match="ValueError: negative input") as info:
            f(np.arange(4.0) - 1)
        assert f"{__file__}:{first + 2}:" in str(info.value)


def checked_length(x, n):
    if x.shape[0] > n:
        raise ValueError(f"{x.shape[0]} elements, more than n={n:d}")
    assert x.min() > -100, f"too small: {x.min()}"
    return x[:n]


def test_an_f_string_message_names_each_value_by_its_source():
    """Strings are not run-time values here: the message keeps the f-string's text, each
    value as its source in braces, raised where Python raises."""
    f = fusejit.jit(checked_length)
    _same(f(np.arange(3.0), 3), checked_length(np.arange(3.0), 3))
    with pytest.raises(fusejit.JITException,
                       match=r"ValueError: \{x.shape\[0\]\} elements, more than n=\{n\}"):
        f(np.arange(5.0), 3)
    with pytest.raises(fusejit.JITException, match=r"AssertionError: too small: \{x.min\(\)\}"):
        f(np.full(2, -500.0), 3)


def guarded_scale(x, k):
    if k == 0:
        raise ValueError("k must not be 0")
    else:
        y = x / k
        n = 3
    return y * n, k + 1


def short_or_raise(x):
    if x.shape[0] < 10:
        return x * 2, 1
    elif x.shape[0] > 100:
        return x[:3], 2
    raise ValueError("between 10 and 100 elements")


def test_a_branch_that_raises_leaves_the_other_branchs_values():
    """After an if whose branch raises, only the other branch has run: the names it assigns
    are defined after the if, and a function whose last path raises returns the others'
    values (TorchScript's placeholders, prim::Uninitialized, for the raising block)."""
    f, g = fusejit.jit(guarded_scale), fusejit.jit(short_or_raise)
    for _ in range(3):                       # interpreted, compiled whole, the fast path
        _same(f(np.arange(3.0), 2), guarded_scale(np.arange(3.0), 2))
        _same(g(np.arange(4.0)), short_or_raise(np.arange(4.0)))
        _same(g(np.arange(200.0)), short_or_raise(np.arange(200.0)))
        with pytest.raises(fusejit.JITException, match="ValueError: k must not be 0"):
            f(np.arange(3.0), 0)
        with pytest.raises(fusejit.JITException, match="between 10 and 100"):
            g(np.arange(50.0))


def printing(x):
    print("total:", x.sum(), 3)
    assert x.min() > -100, "too small"
    return x * 2


def test_print_and_assert_run_at_call_time(capsys):
    import inspect

    _, first = inspect.getsourcelines(printing)
    f = fusejit.jit(printing)
    x = np.arange(3.0)
    _same(f(x), x * 2)
    assert capsys.readouterr().out.split() == ["total:", str(np.float64(3.0)), "3"]
    with pytest.raises(fusejit.JITException, match="AssertionError: too small") as info:
        f(x - 1000)
    assert f"{__file__}:{first + 2}:" in str(info.value)


def test_calling_another_jit_function():
    inner = fusejit.jit(_helper)

    @fusejit.jit
    def outer(x):
        return inner(x, 3.0) + 1

    x = F32.copy()
    _same(outer(x), x * 3.0 + 1)


@pytest.mark.parametrize("source, what, hint", [
    ("x[x > 0].sum(axis=1)", "axis=None, or axis=0", "axis=0"),
    ("x.sum(out=x)", r"sum\(out=\.\.\.\): the out array has 2 dimensions and the result 0",
     "NumPy requires the result's shape"),
    ("x[len(x) - 1:0:-1]", "negative slice step needs constant bounds", "np.flip"),
    ("x[np.arange(2), None]", "integer array and None", "x[idx][:, None]"),
    ("np.linalg.svd(x, hermitian=True)", "hermitian=True is not supported", "np.linalg.svd"),
    ("np.kron(x[None, None], x[None, None])", "np.kron is supported for two 1-D or two 2-D",
     "np.kron"),
    # (NumPy's AxisError and ValueError: an axis is never wrapped around, nor taken twice)
    ("np.prod(x, axis=2)", "axis 2 is out of bounds", "dimension 2"),
    ("x.prod(axis=(1, -1))", "duplicate value in 'axis'", "prod"),
    ("np.squeeze(x[None], axis=(0, 0))", "duplicate value in 'axis'", "squeeze"),
    ("np.apply_along_axis(np.cumsum, 0, x)", "takes one of NumPy's reductions", "np.stack"),
    ("np.maximum.accumulate(x, dtype=np.float64)", "dtype= is not supported", "cast the array"),
    ("np.gcd(x, 2)", "np.gcd takes integers, got a float32 array", "no gcd loop"),
    ("np.lcm(x.astype(np.int64), 2.5)", "np.lcm takes integers, got float", "no lcm loop"),
    ("np.minimum.accumulate(x, axis=None)", "axis=None takes a 1-D array", "multiple axes"),
    ("np.maximum.accumulate(x.sum())", "cannot accumulate on a scalar", "accumulate"),
    ("np.maximum.accumulate(x, axis=2)", "axis 2 is out of bounds for array of dimension 2",
     "maximum.accumulate"),
])
def test_unsupported_constructs_name_the_line_and_the_alternative(tmp_path, source, what, hint):
    import importlib.util

    path = tmp_path / "user_code.py"
    path.write_text(f"import numpy as np\n\n\ndef f(x):\n    return {source}\n")
    spec = importlib.util.spec_from_file_location("user_code", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(fusejit.FusejitError, match=what) as info:
        fusejit.jit(module.f)(F32.copy())
    assert f"{path}:5:" in str(info.value) and hint in str(info.value)


def traced_slices(x):
    return x[1:, None, ::2] - x[:-1, None, ::2], x[..., 0], x[-1, 1:3], x.mean(axis=1)


def test_trace_records_basic_indexing_and_reductions():
    graph = fusejit.trace(traced_slices, F64)
    _same(fusejit.compile(graph)(F64), traced_slices(F64))


def scalar_is_a_copy(x):
    best = x[0]
    best += 1.0
    total = 0.0
    for v in x:
        total += v
    return best, total, x


def test_scalars_read_from_arrays_are_copies_and_constants_stay_constant():
    f = fusejit.jit(scalar_is_a_copy)
    for _ in range(2):  # a second call must not see memory the first one changed
        x = np.arange(4.0)
        _same(f(x), scalar_is_a_copy(np.arange(4.0)))
        np.testing.assert_array_equal(x, np.arange(4.0))


def mask_uses(x, m):
    y = x.copy()
    y[m] = 0.0
    return y, x[m].sum(), len(x[m])


def mask_update(x, m):
    x[m] += 1.0
    return x


# (1-D masks of another length compile the whole graph once more for the check the 2-D ones
# make; tests/runtime/test_element_forms.py checks a 1-D one read in a graph compiled whole)
@pytest.mark.parametrize("bad_rank", [2, pytest.param(1, marks=pytest.mark.exhaustive)])
@pytest.mark.parametrize("fn", [mask_uses, mask_update])
def test_a_mask_of_other_sizes_is_numpys_index_error(fn, bad_rank):
    """The lowerings broadcast a mask over the array: one whose sizes differ from the array's
    leading ones would select along the broadcast (one row of a mask for every row), where
    NumPy raises IndexError; each use checks the sizes at run time."""
    x = RNG.standard_normal((4, 5))
    good = RNG.random((4, 5)) > 0.5
    f = fusejit.jit(fn)
    _same(f(x.copy(), good), fn(x.copy(), good))
    _same(f(x.copy(), good[:, 0]), fn(x.copy(), good[:, 0]))      # (a mask over rows)
    for bad in (good[:1], good[:, :1]) if bad_rank == 2 else (good[0], np.ones(3, bool)):
        with pytest.raises(IndexError):
            fn(x.copy(), bad)
        with pytest.raises(fusejit.FusejitError, match="IndexError: boolean index did not "
                                                       "match indexed array along axis"):
            f(x.copy(), bad)


def test_binning_errors_are_numpys():
    def unsorted_bins(x, bins):
        return np.digitize(x, bins)

    def with_sorter(a, v):
        return np.searchsorted(a, v, sorter=np.argsort(a))

    x = np.array([0.1, 0.7])
    with pytest.raises(ValueError):
        unsorted_bins(x, np.array([0.0, 1.0, 0.5]))
    with pytest.raises(fusejit.JITException, match="bins must be monotonically increasing"):
        fusejit.jit(unsorted_bins)(x, np.array([0.0, 1.0, 0.5]))
    with pytest.raises(fusejit.FusejitError, match="sorter= is not supported"):
        fusejit.jit(with_sorter)(x, x)

    def histogram(x, edges):
        return np.histogram(x, bins=edges)

    def unranged(x):
        return np.histogram(x, bins=4)

    for bad_edges in (np.array([0.0, 2.0, 1.0]), np.ones((2, 2))):
        with pytest.raises(ValueError):
            histogram(x, bad_edges)
        with pytest.raises(fusejit.FusejitError, match="`bins` must"):
            fusejit.jit(histogram)(x, bad_edges)
    with pytest.raises(fusejit.FusejitError, match="autodetected range of `a` is not finite"):
        fusejit.jit(unranged)(np.array([0.0, np.nan]))

    def counted(labels):
        return np.bincount(labels)

    with pytest.raises(ValueError):
        counted(np.array([1, -1]))
    with pytest.raises(fusejit.FusejitError, match="must have no negative elements"):
        fusejit.jit(counted)(np.array([1, -1]))


def grids_between_values(x, n):
    return (np.linspace(x.min(), x.max(), 11), np.linspace(0, x[3], 5),
            np.linspace(x[0], 2.0, 4, endpoint=False), np.linspace(x[1], x[2], n),
            np.linspace(x[0], x[0], n))


@pytest.mark.parametrize("dtype", [np.float64, pytest.param(np.int64, marks=pytest.mark.exhaustive),
                                   np.float32])
def test_linspace_between_values_of_arrays(dtype):
    """0-d arrays as bounds: NumPy's points, for float32 ones computed in float32."""
    x = (np.random.default_rng(9).standard_normal(20) * 10).astype(dtype)
    jitted = fusejit.jit(grids_between_values)
    for n in (0, 1, 2, 9, 9):
        for got, want in zip(jitted(x, n), grids_between_values(x, n), strict=True):
            assert (got.dtype, got.shape) == (want.dtype, want.shape)
            np.testing.assert_array_equal(got, want)


def number_branches(c, x):
    y = x.copy()
    y[np.array([0, 2])] = 0.1          # (an integer-array store of a number)
    return (np.where(c, x, 0.1), np.where(c, 0.3, x), np.where(c, x, 3), np.where(c, 2, x),
            np.where(c, 0.1, 0.2), np.where(c, 1, 2), np.where(c, True, x), y)


# (int64 and uint8 take int8's rule: a Python number beside an integer array is made in its
# dtype)
@pytest.mark.parametrize("dtype", [np.float64, np.float32,
                                   pytest.param(np.int64, marks=pytest.mark.exhaustive), np.int8,
                                   np.bool_, pytest.param(np.uint8, marks=pytest.mark.exhaustive)])
def test_numbers_are_made_in_numpys_result_dtype_exactly(dtype):
    """A Python number beside arrays is made in NumPy's result dtype at once: through the
    default float32 constant, np.where(c, 0.1, 0.2) and np.where(c, x64, 0.1) gave float32's
    0.1 widened, 1.5e-9 off (exact equality, where the other tests allow 1e-5)."""
    c = np.array([True, False, True])
    x = np.array([1.5, -2.0, 0.25]).astype(dtype)
    jitted = fusejit.jit(number_branches)
    for _ in range(2):
        for got, want in zip(jitted(c, x), number_branches(c, x), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def flip_read_after_write(x):
    y = np.flip(x)
    x[0] = -1.0
    return y + 0


def slice_reversed_read_after_view_write(x):
    y = x[::-1]
    x[1:][0] = -1.0          # (through a view of x)
    return y * 2


def flip_read_after_ufunc_at(x):
    y = np.flip(x)
    np.maximum.at(x, np.array([0, 1]), 5.0)     # (fusejit's op, writing x in place)
    return y * 1.0


def flip_read_in_loop_after_write(x):
    y = np.flip(x)
    out = np.zeros_like(x)
    for i in range(3):
        out += y             # (read again on the next trip, after the write below)
        x[0] = float(i)
    return out


@pytest.mark.parametrize("fn", [flip_read_after_write, slice_reversed_read_after_view_write,
                                flip_read_in_loop_after_write, flip_read_after_ufunc_at])
def test_a_reversal_read_after_a_write_into_its_array_is_refused(fn):
    """NumPy's reversal is a view that sees a later write; here it is a copy made before it:
    refused at the write, where the result would otherwise silently differ."""
    with pytest.raises(fusejit.ScriptError, match="reversed array is read after the write"):
        fusejit.jit(fn)(np.arange(6.0))


def flip_used_before_write(x):
    y = x[::-1] * 2
    x[0] = 5.0
    return y + x


def write_then_flip(x):
    out = np.zeros_like(x)
    for i in range(3):
        out += np.flip(x)    # (made on each trip, after the last write)
        x[0] = float(i)
    return out, x[::-1] + 1


def add_own_reversal(x):
    x += x[::-1]
    return x


@pytest.mark.parametrize("fn", [flip_used_before_write, write_then_flip, add_own_reversal])
def test_reversals_read_before_a_write_are_numpys(fn):
    mine, theirs = np.arange(6.0), np.arange(6.0)
    _same(fusejit.jit(fn)(mine), fn(theirs))
    np.testing.assert_array_equal(mine, theirs)


def constant_arrays(x):
    return np.array([1.0, 2.0, 3.0]), np.arange(4.0)[::2], x + 1


def test_returned_constant_arrays_are_new_writeable_arrays():
    """NumPy makes a new array on each call: the caller may write into it, and the next call's
    is unchanged (a graph constant is read-only, shared by every call)."""
    jitted = fusejit.jit(constant_arrays)
    x = np.zeros(3)
    first = jitted(x)
    for array in first:
        array[0] = 99.0
    _same(jitted(x), constant_arrays(x))


def test_a_stored_number_an_integer_array_cannot_hold_raises_numpys_error():
    """``x[m] = 300`` into uint8, ``x[...] = -1`` into uint8 and ``x[m] = np.nan`` into int64
    raise NumPy's error when they run (the store had cast them: 300 became 44), and not in a
    branch that does not run; numbers that fit store as NumPy's do."""
    def store(x, m, i, which):
        x[m] = 255
        x[0] = 7
        if which == 1:
            x[m] = 300
        if which == 2:
            x[...] = -1
        if which == 3:
            i[m] = np.nan
        return x, i

    jitted = fusejit.jit(store)
    m = np.array([True, False, True, False])
    for _ in range(3):
        for got, want in zip(jitted(np.zeros(4, np.uint8), m, np.zeros(4, np.int64), 0),
                             store(np.zeros(4, np.uint8), m, np.zeros(4, np.int64), 0),
                             strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)
    for which, error, text in ((1, OverflowError, "Python integer 300 out of bounds for uint8"),
                               (2, OverflowError, "Python integer -1 out of bounds for uint8"),
                               (3, ValueError, "cannot convert float NaN to integer")):
        with pytest.raises(error, match=text):
            store(np.zeros(4, np.uint8), m, np.zeros(4, np.int64), which)
        with pytest.raises(fusejit.FusejitError, match=text):
            jitted(np.zeros(4, np.uint8), m, np.zeros(4, np.int64), which)


def number_conditions(x, y):
    return (np.where(np.float64(x.size) > 3, x, -y), np.where(x.size > 100, x, 2.0),
            np.where(3, x, y), np.where(x.sum() * 0.0, x, y), np.where(np.nan, x, y),
            np.where(True, 1.0, 2.0), np.where(float(x[0]) > 0, x, y.astype(np.float32)))


def test_np_where_takes_a_number_as_its_condition():
    """NumPy takes a number (a Python or NumPy bool, int or float) as ``np.where``'s condition,
    by its truth: it had been refused ("must be an array")."""
    f = fusejit.jit(number_conditions)
    for n in (2, 5, 5000):
        x, y = RNG.standard_normal(n), RNG.standard_normal(n)
        for _ in range(3):                   # interpreted, compiled whole or fused
            _same(f(x, y), number_conditions(x, y))
    with pytest.raises(fusejit.FusejitError, match="must be an array or a number"):
        fusejit.jit(lambda x: np.where("yes", x, 0.0))(np.ones(3))


def selection_then_add(b):
    t = b[b > 0]
    b += 100.0
    return t


def selection_then_column_store(b):
    t = b[b > 0]
    b[:, 0] = 100.0
    return t, t.sum()


def selection_of_a_slice_then_store(b):
    t = b[1:][b[1:] > 0]
    b[1:] = 0.0
    return t


def selection_then_loop_of_adds(b, n):
    t = b[b > 0]
    for _ in range(n):
        b += 1.0
    return t.mean(), t


def selection_then_write_into_the_mask(b, m):
    t = b[m]
    m[:] = False
    return t


def selection_of_a_local_then_copyto(a):
    x = a + 0.0
    t = x[x > 0]
    np.copyto(x, 0.0)
    return t, x


def element_then_loop_of_adds(b, n):
    t = b[0, 1]
    for _ in range(n):
        b += 1.0
    return t


def element_then_copyto(b):
    t = b[1]
    np.copyto(b, 5.0)
    return t, b


def element_then_out(b):
    t = b[2, 0]
    np.multiply(b, 2.0, out=b)
    return t


@pytest.mark.parametrize("n", [12, 6000])
@pytest.mark.parametrize("fn", [selection_then_add, selection_then_column_store,
                                selection_of_a_slice_then_store, selection_then_loop_of_adds,
                                selection_then_write_into_the_mask,
                                selection_of_a_local_then_copyto, element_then_loop_of_adds,
                                element_then_copyto, element_then_out])
def test_a_selection_keeps_the_values_it_read_before_a_write(fn, n):
    """``t = b[b > 0]`` is a copy in NumPy: a later write into ``b`` (``b += 100``, a column
    or slice store, a loop of adds, ``np.copyto``), or into the mask, does not show in ``t``.
    fusejit kept the selection lazy until it was used, after the write, and returned the
    new values on every call. So is an element ``t = b[0, 1]`` (a NumPy scalar), which a
    loop's in-place adds, ``np.copyto`` and ``out=`` wrote through. Every call, both sizes."""
    def arguments():
        b = np.arange(-n / 2, n / 2, dtype=np.float64).reshape(-1, 3)
        if fn in (selection_then_add, selection_of_a_local_then_copyto, element_then_copyto):
            b = b.ravel()
        if fn in (selection_then_loop_of_adds, element_then_loop_of_adds):
            return b, 3
        if fn is selection_then_write_into_the_mask:
            return b, b > 0
        return (b,)

    jitted = fusejit.jit(fn)
    for _ in range(3):
        want_args, got_args = arguments(), arguments()
        _same(jitted(*got_args), fn(*want_args))
        for got, want in zip(got_args, want_args):
            np.testing.assert_array_equal(got, want)
