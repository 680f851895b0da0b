"""Integer-array indexing in whole-graph functions (``element_function``): gathers
(``x[idx]``, ``X[:, idx]``, ``X[rows, cols]``), stores and accumulations into them
(``y[idx] = v``, ``counts[labels[i]] += 1`` in a loop), against NumPy; and the swapped axes of
running extremes (``np.maximum.accumulate``). Each program is compiled
with a fallback that fails the test, so every value checked here is the compiled function's;
the calls that must fail (an index out of range) go to the interpreter, which raises NumPy's
error with the arguments as the caller passed them."""

from __future__ import annotations

import re

import numpy as np
import pytest

import fusejit
from fusejit.runtime.array_bounds import made_elements
from fusejit.runtime.element_function import compile_element_graph, element_source
from fusejit.runtime.element_support import computes_arrays, is_element_graph
from tests.matrix import covered
from tests.runtime.conftest import compiled_whole, refuse, same_arrays, scripted


def gathers(x, X, idx, rows, cols, i32, u8):
    # one index (negative ones wrap), rows of a matrix, columns, two broadcast index arrays,
    # a 0-d index among arrays, narrow index dtypes
    return (x[idx], X[idx], X[:, cols], X[rows[:, None], cols], X[rows[:4], cols] * 2.0,
            X[0, i32], x[u8], X[rows][:, 1:], X[-1][cols])


def _gather_args(rng, n, m):
    x = rng.standard_normal(n)
    X = rng.standard_normal((n, m))
    idx = rng.integers(-n, n, 7)
    rows = rng.integers(0, n, 5)
    cols = rng.integers(-m, m, 4)
    return (x, X, idx, rows, cols, rng.integers(0, m, 3).astype(np.int32),
            rng.integers(0, n, 6).astype(np.uint8))


def test_gathers_are_numpys():
    rng = np.random.default_rng(0)
    run = compiled_whole(gathers, *_gather_args(rng, 9, 6))
    for n, m in ((9, 6), (1, 1), (40, 13)):
        args = _gather_args(rng, n, m)
        same_arrays(run(*args), gathers(*args))


def stores(x, X, idx, v, rows, cols):
    y = x.copy()
    y[idx] = v                 # an array, duplicates in idx: NumPy keeps the last
    z = x.copy()
    z[idx] = 0.5
    z[idx] += 1.0              # a read, an add and a store (not an accumulation)
    Y = X.copy()
    Y[rows[:2], cols] = -1.0
    Y[:, cols] = Y[:, cols] * 3.0
    Y[rows] = v[: X.shape[1]]  # whole rows, from a row
    W = np.zeros_like(X)
    W[rows[:, None], cols] = X[rows[:, None], cols]
    return y, z, Y, W


def _store_args(rng, n):
    x = rng.standard_normal(n)
    X = rng.standard_normal((n, n))
    idx = rng.integers(-n, n, n)        # (duplicates)
    v = rng.standard_normal(n)
    return x, X, idx, v, rng.integers(0, n, 3), rng.integers(-n, n, 2)


def test_stores_are_numpys():
    rng = np.random.default_rng(1)
    run = compiled_whole(stores, *_store_args(rng, 5))
    for n in (5, 1, 17):
        args = _store_args(rng, n)
        same_arrays(run(*args), stores(*args))


def counts_in_a_loop(labels, weights, pairs, k):
    counts = np.zeros(k)
    sums = np.zeros(k, np.float32)
    table = np.zeros((k, k), np.int64)
    for i in range(labels.shape[0]):
        counts[labels[i]] += 1.0
        sums[labels[i]] += weights[i]
        table[pairs[i, 0], pairs[i, 1]] += 1
    return counts, sums, table


def test_scatters_in_loops_are_numpys():
    rng = np.random.default_rng(2)

    def args(n, k):
        return (rng.integers(-k, k, n), rng.standard_normal(n).astype(np.float32),
                rng.integers(0, k, (n, 2)), k)

    run = compiled_whole(counts_in_a_loop, *args(10, 3))
    for n, k in ((10, 3), (0, 2), (500, 7)):
        a = args(n, k)
        same_arrays(run(*a), counts_in_a_loop(*a))


def one_hot(labels, k):
    out = np.zeros((labels.shape[0], k), np.float32)
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def test_one_hot_is_compiled_whole_at_any_size():
    labels = np.array([2, 0, 1, 2])
    graph = scripted(one_hot, labels, 3)
    assert is_element_graph(graph) and not computes_arrays(graph)
    run = compile_element_graph(graph, refuse)
    for n, k in ((4, 3), (20000, 10)):
        labels = np.random.default_rng(n).integers(0, k, n)
        same_arrays(run(labels, k), one_hot(labels, k))


def test_made_elements_follow_index_shapes_and_counted_ranges():
    rng = np.random.default_rng(3)
    args = _gather_args(rng, 9, 6)
    bound = made_elements(scripted(gathers, *args))
    # the biggest array made: X[rows[:, None], cols] (5 x 4) or the arguments themselves
    assert bound(*args) == 9 * 6
    big_rows = rng.integers(0, 9, 100)
    args = args[:3] + (big_rows,) + args[4:]
    assert bound(*args) == 100 * 6      # X[rows]: a row per index
    labels = np.zeros(50, np.int64)
    # (k: an int argument, which bounds its dimension by its value)
    assert made_elements(scripted(one_hot, labels, 3))(labels, 3) == 50 * 3
    assert made_elements(scripted(one_hot, labels, 3))(labels, 7) == 50 * 7

    def ranks(x):
        return x[np.arange(x.shape[0])] * 2.0
    assert made_elements(scripted(ranks, labels))(labels) == 50

    def picked(x, y):
        return -x[x > 0], y[y < 1] * 2.0     # (a matrix's mask: at most its elements)
    x, y = np.ones((6, 7)), np.ones((2, 3, 4))
    assert made_elements(scripted(picked, x, y))(x, y) == 6 * 7
    assert made_elements(scripted(picked, x, y))(x[:2], np.ones((5, 5, 5))) == 125


def test_a_slice_with_constant_bounds_bounds_its_dimension_by_their_count():
    """``pts[:3]`` has at most 3 rows whatever ``pts`` has: the distances of 40 points to
    those 3 centres are 40 x 3 x 3, where the argument's dimension alone gave 40 x 40 x 3
    (over WHOLE_GRAPH_MAX_ELEMENTS: a k-means step ran interpreted at 0.3x NumPy). Bounds
    from a run-time value or a negative one keep the argument's dimension."""
    def centres(pts):
        c = pts[:3]
        return ((pts[:, None, :] - c[None]) ** 2).sum(-1)

    def stepped(pts):
        return pts[1:8:3] * 2.0        # (rows 1, 4, 7: 3)

    def from_the_end(pts):
        return pts[:-1] * 2.0

    def run_time(pts, k):
        return pts[:k] * 2.0

    pts = np.random.default_rng(4).standard_normal((40, 3))
    assert made_elements(scripted(centres, pts))(pts) == 40 * 3 * 3
    assert made_elements(scripted(stepped, pts))(pts) == 40 * 3    # (the argument itself)
    tall = np.zeros((400, 3))
    assert made_elements(scripted(stepped, tall))(tall) == 400 * 3
    assert made_elements(scripted(from_the_end, pts))(pts) == 40 * 3
    assert made_elements(scripted(run_time, pts, 5))(pts, 5) == 40 * 3
    few = np.zeros((2, 3))              # (fewer rows than the bound: still a bound)
    assert made_elements(scripted(centres, few))(few) >= 2 * 2 * 3
    for fn, args in ((centres, (pts,)), (stepped, (pts,)), (centres, (few,))):
        same_arrays(fusejit.jit(fn)(*args), fn(*args))


def column_times_row(x):
    return x.reshape(-1, 1) * x.reshape(1, -1)


def test_a_reshape_to_a_constant_shape_bounds_its_dimensions():
    """``x[:5].reshape(-1, 1) * y[:6].reshape(1, -1)`` (``np.outer``'s form) makes 5 x 6
    elements: the -1 stands for the one long dimension of the reshaped array, the numbers
    bound theirs. With no such bound (a matrix's -1, a run-time shape) the graph has none."""
    def outer(x, y):
        return np.outer(x[:5], y[:6])

    def numbered(x):
        return x[:12].reshape(3, 4) + 1.0

    def flattened(m):
        return m.reshape(-1) * 2.0

    def run_time(x, k):
        return x.reshape(k, -1) * 2.0

    x, y, m = np.arange(100.0), np.arange(200.0), np.ones((10, 10))
    assert made_elements(scripted(outer, x, y))(x, y) == 200      # (the arguments)
    assert made_elements(scripted(outer, x[:9], y[:9]))(x[:9], y[:9]) == 5 * 6
    assert made_elements(scripted(numbered, x))(x) == 100
    assert made_elements(scripted(column_times_row, x[:30]))(x[:30]) == 30 * 30
    assert made_elements(scripted(flattened, m)) is None
    assert made_elements(scripted(run_time, x, 4)) is None
    for fn, args in ((outer, (x, y)), (numbered, (x,))):
        _runs_whole(fn, *args)


def _runs_whole(fn, *args):
    compiled = compiled_whole(fn, *args)
    for _ in range(2):
        same_arrays(compiled(*args), fn(*args))
    same_arrays(fusejit.jit(fn)(*args), fn(*args))


@pytest.mark.exhaustive
def test_a_column_times_a_row_of_one_vector_runs_whole():
    """``np.outer``'s form of one vector with itself (``outer`` in the test above, the default
    suite's case of it)."""
    _runs_whole(column_times_row, np.arange(30.0))


# (the compiled run of reshaped_then_read is kron's, then arithmetic and a sum: an exhaustive
# case; its bound, None, is checked in every case)
@pytest.mark.parametrize("name", ["kron", "made_here",
                                  pytest.param("reshaped_then_read", marks=pytest.mark.exhaustive)])
def test_constant_shapes_and_a_returned_reshape_are_bounded(name):
    """``np.eye(2)``, ``np.ones(5)`` and ``np.zeros((3, 4))`` are as long as their numbers;
    ``np.kron`` ends in a reshape to sizes it computes at run time, which nothing reads after:
    as many elements as the product it reshapes (9 x 4 for a 3 x 3 block by np.eye(2)). The
    same reshape read by another op leaves the graph without a bound."""
    def kron(a):
        return np.kron(np.eye(2), a[:3, :3])

    def made_here(a):
        return np.ones(5) * a[0, 0] + np.zeros((3, 4)).sum()

    def reshaped_then_read(a):
        b = a[:3, :3]
        return (np.kron(np.eye(2), b) * 2.0).sum()

    a = np.arange(900.0).reshape(30, 30)
    assert made_elements(scripted(kron, a))(a) == 900               # (the argument)
    small = np.arange(9.0).reshape(3, 3)
    assert made_elements(scripted(kron, small))(small) == 4 * 9
    assert made_elements(scripted(made_here, small))(small) == 12
    assert made_elements(scripted(reshaped_then_read, a)) is None
    fn = {"kron": kron, "made_here": made_here, "reshaped_then_read": reshaped_then_read}[name]
    compiled = compiled_whole(fn, a)
    for _ in range(2):
        same_arrays(compiled(a), fn(a))
    same_arrays(fusejit.jit(fn)(a), fn(a))


def test_linspace_and_stacked_numbers_are_bounded():
    """``np.linspace(a, b, n)`` is ``n`` long, for a constant ``n``, ``x.shape[0]`` or a
    vector's ``x.size``; ``np.stack`` of a fixed list counts its items (three quantiles)."""
    def spaced(x):
        return np.linspace(0.0, 1.0, x.size) * x + np.linspace(0.0, 1.0, 7).sum()

    def three(x):
        return np.stack([x.min(), x.max(), x.mean()]) * 2.0

    def rows(m):
        return np.stack([m[0], m[1], m[0]], axis=1) * 2.0

    x, m = np.arange(50.0), np.ones((2, 6))
    assert made_elements(scripted(spaced, x))(x) == 50
    assert made_elements(scripted(three, x[:2]))(x[:2]) == 3
    assert made_elements(scripted(rows, m))(m) == 6 * 3       # (more than m's 12)
    for fn, arg in ((spaced, x), (three, x), (rows, m)):
        same_arrays(compiled_whole(fn, arg)(arg), fn(arg))


@pytest.mark.parametrize("bad", [9, -10])
def test_an_index_out_of_range_is_numpys_error_and_writes_nothing(bad):
    def put(x, idx):
        x[idx] = 7.0
        return x

    jitted = fusejit.jit(put)
    x = np.arange(9.0)
    idx = np.array([1, 2, 3])
    for _ in range(3):                       # interpreted, compiled whole, the fast path
        same_arrays(jitted(x.copy(), idx), put(x.copy(), idx))
    idx = np.array([1, bad, 3])
    y = x.copy()
    with pytest.raises(IndexError):
        put(y.copy(), idx)
    with pytest.raises(fusejit.FusejitError, match="IndexError: index -?\\d+ is out of bounds"):
        jitted(y, idx)
    np.testing.assert_array_equal(y, x)      # (the element before the bad one put back)


def casting_stores(a, f, idx, v):
    a[idx] = 2.5            # (NumPy truncates the value to the array's dtype)
    f[idx] = v              # (float64 values into float32)
    return a, f


def test_stores_cast_values_to_the_arrays_dtype():
    def args():
        return (np.arange(5), np.zeros(5, np.float32), np.array([1, -1]),
                np.array([1 / 3, 1e39]))

    run = compiled_whole(casting_stores, *args())
    with np.errstate(over="ignore"):
        same_arrays(run(*args()), casting_stores(*args()))


def filled(x, idx, v):
    x.fill(v)
    return x


def stored(x, idx, v):
    x[...] = v
    return x


def put_at(x, idx, v):
    x[idx] = v
    return x


def element_at(x, idx, v):
    x[1] = v
    return x


# Each store of each dtype compiles a function of its own (v is an argument: the values of one
# dtype share it). uint8 runs every store, in range, below and above it; each other dtype runs
# one store, the rest are exhaustive cases.
_ONE_STORE = {np.int8: put_at, np.uint64: filled, np.int32: element_at}


@pytest.mark.parametrize("dtype, v, fn", [
    pytest.param(dtype, v, fn, marks=[] if dtype is np.uint8 or _ONE_STORE[dtype] is fn
                 else [pytest.mark.exhaustive])
    for dtype, v in [(np.uint8, 255), (np.uint8, -1), (np.uint8, 256), (np.int8, -128),
                     (np.int8, 128), (np.uint64, -1), (np.int32, -(1 << 31) - 1)]
    for fn in (filled, stored, put_at, element_at)])
def test_an_int_stored_out_of_its_arrays_range_raises(dtype, v, fn):
    """An int stored into an integer array (a fill, a part, indices, an element) is NumPy's
    Python int: out of the dtype's range NumPy raises, where Numba's cast would wrap it (-1
    into uint8: 255). The compiled function raises too, and the jitted function's fallback,
    the interpreter, gives NumPy's error at every call."""
    def args():
        return np.zeros(4, dtype), np.array([0, 3]), v

    try:
        want = fn(*args())
    except OverflowError:
        want = None
    if want is not None:
        same_arrays(compiled_whole(fn, *args())(*args()), want)
        return
    with pytest.raises(AssertionError, match="fell back"):
        compiled_whole(fn, *args())(*args())
    jitted = fusejit.jit(fn)
    for _ in range(3):
        with pytest.raises(fusejit.FusejitError, match="OverflowError"):
            jitted(*args())


def test_only_graphs_that_move_elements_run_whole_at_any_size():
    x, X, idx = np.arange(6.0), np.ones((3, 4)), np.array([0, 2])
    codes, table = np.array([1, 0], np.uint8), np.arange(4.0)

    def moves(fn, *args):
        return not computes_arrays(scripted(fn, *args))

    def copy_and_fix(x, idx):
        y = x.copy()
        y[idx] = 0.0
        return y

    assert moves(lambda codes, table: table[codes], codes, table)
    assert moves(copy_and_fix, x, idx)
    # the kernels beat Numba's NumPy on big arrays: arithmetic, copies of rows and matrices
    assert not moves(lambda X, idx: X[idx], X, idx)
    assert not moves(lambda X: X.T.copy(), X)
    assert not moves(lambda x, idx: x[idx] * 2.0, x, idx)


def middle_or_nan(x):
    # (np.where of numbers: a number, where Numba's np.where would make a 0-d array)
    s = np.sort(x)
    m = 0.5 * (s[0] + s[-1])
    return float(np.where(s[-1] != s[-1], np.nan, m)), np.where(m > 0.0, s[0], s[1]) * 2.0


def test_where_of_numbers_compiles_whole():
    x = np.random.default_rng(2).standard_normal(9)
    run = compiled_whole(middle_or_nan, x)
    for a in (x, -x, np.append(x, np.nan)):
        got, want = run(a), middle_or_nan(a)
        assert type(got[0]) is float
        np.testing.assert_equal(got[0], want[0])
        np.testing.assert_equal(np.asarray(got[1]), want[1])


def running_extremes(x, X):
    # (fusejit::maximum_accumulate and minimum_accumulate, and an aten::transpose)
    return (np.maximum.accumulate(x), np.minimum.accumulate(X, axis=1),
            np.maximum.accumulate(X, axis=0), np.swapaxes(X, 0, 1) * 2.0,
            np.minimum.accumulate(X, axis=0), np.maximum.accumulate((X * 4).astype(np.int8), 1),
            np.maximum.accumulate(X > 0.5, axis=0))


def test_running_extremes_compile_whole():
    """NumPy's values: of equal values the later (-0.0 or 0.0), NaN from where it is on,
    integers and bools, along either axis."""
    rng = np.random.default_rng(4)

    def args(n, m):
        x, X = rng.standard_normal(n), rng.standard_normal((n, m)).round(1)
        x[n // 2] = np.nan          # (NaN carries on, as NumPy's maximum does)
        x[0] = -0.0
        X[rng.random(X.shape) < 0.3] = 0.0
        X[rng.random(X.shape) < 0.3] *= -1.0
        X[n // 3, m // 2] = np.nan
        return x, X

    run = compiled_whole(running_extremes, *args(6, 3))
    for n, m in ((6, 3), (1, 1), (300, 7)):
        a = args(n, m)
        got, want = run(*a), running_extremes(*a)
        same_arrays(got, want)
        for g, w in zip(got, want):
            if w.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("dim", [2, -3, 5])
def test_running_extremes_along_no_axis_stay_the_interpreters(dim):
    """An IR graph's running maximum along an axis the matrix has not (the frontend refuses
    it at the call's line): not compiled whole, where the axis would be taken modulo the
    rank; the interpreter raises NumPy's error."""
    graph = fusejit.parse_ir(f"""graph(%x : Double(*, *, device=cpu)):
  %d : int = prim::Constant[value={dim}]()
  %y : Double(*, *, device=cpu) = fusejit::maximum_accumulate(%x, %d)
  return (%y)""")
    assert not is_element_graph(graph)
    with pytest.raises(fusejit.FusejitError, match="out of range|out of bounds"):
        fusejit.compile(graph)(np.ones((3, 4)))


def broadcast_copies(v, M, x):
    # np.tile and np.repeat (aten::expand of a reshape, copied by the reshape after), and a
    # broadcast read (a read-only view, summed)
    return (np.tile(v, (3, 1)) + 1, np.repeat(v, 2) * 3, np.tile(M, (2, 2)),
            np.repeat(M, 3, axis=1), np.broadcast_to(x, (4, x.shape[0])).sum(axis=0))


def test_broadcast_copies_compile_whole():
    rng = np.random.default_rng(3)
    args = (rng.standard_normal(5), rng.standard_normal((2, 3)), rng.standard_normal(4))
    compiled = compiled_whole(broadcast_copies, *args)
    for _ in range(2):
        same_arrays(compiled(*args), broadcast_copies(*args))


def reversals(x, y, M):
    # read by arithmetic (a reversed view), returned (a copy: not the argument's memory),
    # along one axis of a matrix and along both
    return np.flip(x) + y, x[::-1], M[:, ::-1] * 2.0, np.flip(M)


def reversal_where_the_graph_writes(x):
    out = np.zeros(3)
    out[0] = 2.0
    return np.flip(x) * out[0]


@pytest.mark.parametrize("fn", [reversals, reversal_where_the_graph_writes])
def test_reversals_compile_whole_and_return_copies(fn):
    rng = np.random.default_rng(4)
    args = (rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal((3, 4)))
    args = args[:1] if fn is reversal_where_the_graph_writes else args
    compiled = compiled_whole(fn, *args)
    for _ in range(2):
        got = compiled(*args)
        same_arrays(got, fn(*args))
        for g in got if isinstance(got, tuple) else (got,):
            assert not any(np.shares_memory(g, a) for a in args)


def unit_step_slices(x, X, dx):
    g = np.empty_like(x)
    g[1:-1] = (x[2:] - x[:-2]) / (2.0 * dx)
    g[0] = (x[1] - x[0]) / dx
    g[-1] = (x[-1] - x[-2]) / dx
    return g, X[1:, :-1] - X[:-1, 1:], x[::2] + x[1::2][: len(x[::2])], X[::-1][1:]


def test_unit_step_slices_are_written_without_a_step():
    """``x[a:b]`` of a contiguous array is contiguous to Numba, ``x[a:b:1]`` any layout (scalar
    loops: 2.4x the time on 10^4 float64), so a constant step of 1 is left out."""
    rng = np.random.default_rng(5)
    args = (rng.standard_normal(1000), rng.standard_normal((40, 30)), 0.1)
    source = element_source(scripted(unit_step_slices, *args))
    source = source[source.index("def element_fn"):]     # (not the runs' functions)
    # (a slice item with two colons, ``v0[v7::v6]``, ``[:, ::-1]``)
    stepped = re.findall(r"[\[,] *[^\[\],:]*:[^\[\],:]*:[^\[\],]*(?=[\],])", source)
    # (x[::2] (twice), x[1::2] and the reversed X[::-1] keep theirs; no other slice has one)
    assert len(stepped) == 4, stepped
    fn = compiled_whole(unit_step_slices, *args)
    for n in (1000, 8, 2):     # (even: x[::2] and x[1::2] of one length)
        args = (rng.standard_normal(n), rng.standard_normal((n, 3)), 0.5)
        same_arrays(fn(*args), unit_step_slices(*args))


def overlapping_views(x):
    # stores whose source is a view of the target's own memory, of its own dtype: stored as
    # they are, Numba's store copying an overlapping source first (as NumPy's assignment)
    y = x.copy()
    y[1:] = y[:-1]
    y[:, 1:] = y[:, :-1]
    y[1:, :] = y[:-1, ::-1]
    y[::-1] = y
    z = np.zeros((x.shape[0] + 2, x.shape[1] + 2), dtype=x.dtype)
    z[1:-1, 1:-1] = x
    z[0] = z[1]
    z[:, 0] = z[:, 1]
    z[1:, 1:] = z[:-1, :-1]
    return y, z


def updates_of_views(x):
    # x += v with v a view of x (overlapping: a new value stored) or of another array
    y = x.copy()
    y[1:] += y[:-1]
    y[:, 1:] *= y[:, :-1]
    acc = np.zeros((x.shape[0], x.shape[1] - 2), dtype=x.dtype)
    for k in range(3):
        acc += x[:, k:k + acc.shape[1]]
        acc -= y[:, k:k + acc.shape[1]]
    return y, acc


@pytest.mark.parametrize("fn, dtype", covered([overlapping_views, updates_of_views],
                                              [np.float32, np.int64], strength=1))
def test_stores_and_updates_from_overlapping_views_match_numpy(fn, dtype):
    rng = np.random.default_rng(21)
    x = rng.integers(-9, 10, (7, 6)).astype(dtype)
    run = compiled_whole(fn, x)
    for shape in ((7, 6), (40, 9)):
        x = rng.integers(-9, 10, shape).astype(dtype)
        same_arrays(run(x.copy()), fn(x.copy()))
