"""``fusejit.jit`` on NumPy-spelled code: unannotated scalar arguments specialised per call, and
NumPy's dtype rules (NEP 50 weak Python scalars), each checked against NumPy itself."""

from __future__ import annotations

import math
import re
from typing import Optional

import numpy as np
import pytest

import fusejit

from .numpy_programs import assert_same, ewma


def _same(got, want) -> None:
    assert_same(got, want, rtol=1e-6)


def newton(a, x0=1.0, eps=1e-5):
    x = x0
    while abs(x * x - a) > eps:
        x = 0.5 * (x + a / x)
    return x


def scaled(x, k, *, shift=0):
    return x * k + shift


def test_scalar_arguments_are_specialised_per_call_type():
    f = fusejit.jit(newton)
    _same(f(2.0), newton(2.0))
    _same(f(2), newton(2))                 # int a: a / x is still a float
    _same(f(9.0, eps=1e-9), newton(9.0, eps=1e-9))
    g = fusejit.jit(scaled)
    x = np.arange(4, dtype=np.float32)
    _same(g(x, 3), scaled(x, 3))           # int k: float32 stays float32
    _same(g(x, 0.5, shift=1), scaled(x, 0.5, shift=1))
    _same(g(x, True), scaled(x, True))
    i = np.arange(4)
    _same(g(i, 2), scaled(i, 2))           # int64 * int
    _same(g(i, 0.5), scaled(i, 0.5))       # int64 * weak float -> float64
    assert len(g._specialised) == 5


def mixing(i32, f32, i64, f64):
    return (i32 / 2, f32 + i64, np.sqrt(i32), f32 * 0.5, i64 / i64, f32 @ f64, i32 + 1,
            np.exp(i32), f32 - f64, np.where(i32 > 2, f32, 0.0), np.where(i32 > 2, i64, 0.5),
            np.maximum(i32, f32))


def test_numpy_dtype_rules():
    i32 = np.arange(1, 5, dtype=np.int32)
    f32 = np.linspace(0.5, 2, 4, dtype=np.float32)
    i64 = np.arange(16777217, 16777221)
    f64 = np.linspace(-1, 1, 4)
    _same(fusejit.jit(mixing)(i32, f32, i64, f64), mixing(i32, f32, i64, f64))


def test_int_division_keeps_float64_precision():
    # float32 would round 16777217 / 2 to 8388608.0 (the example)
    f = fusejit.jit(lambda_free_half)
    i = np.array([16777217])
    assert f(i)[0] == 8388608.5 and f(i).dtype == np.float64


def lambda_free_half(i):
    return i / 2


@pytest.mark.parametrize("value, what", [
    (np.ones(3, np.complex128), "complex128"), (np.ones(3, np.float16), "float16"),
    (np.array([None, 1]), "object"), (1j, "complex"), ("text", "str")])
def test_unsupported_arguments_name_the_argument(value, what):
    with pytest.raises(fusejit.FusejitError, match=f"argument 'k'.*{what}"):
        fusejit.jit(scaled)(np.ones(3), value)


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def scalar_mix(a, b, flag):
    out = 0.0
    for k in range(b):
        if flag and k % 2 == 1:
            continue
        out += math.sqrt(abs(a)) * k - a / (k + 1)
        if out > 1e6:
            break
    return out, int(out) // 3, out < 0, float(b) ** 0.5


def divides(a, b):
    return a // b


def test_scalar_only_functions_compile_whole():
    from fusejit.runtime.scalar_function import is_scalar_graph

    f = fusejit.jit(collatz)
    assert [f(n) for n in (1, 7, 27, 97)] == [collatz(n) for n in (1, 7, 27, 97)]
    assert is_scalar_graph(f.graph_for(27))
    assert hasattr(f._specialised[(int,)], "compiled")  # the whole-graph Numba function
    g = fusejit.jit(scalar_mix)
    for args in [(2.0, 10, True), (-3.5, 7, False), (1e3, 4000, False), (0.0, 0, True)]:
        _same(g(*args), scalar_mix(*args))
    _same(fusejit.jit(newton)(1e6), newton(1e6))


def test_scalar_function_errors_come_from_the_interpreter_with_the_line():
    import inspect

    _, first = inspect.getsourcelines(divides)
    f = fusejit.jit(divides)
    assert f(7, 2) == 3
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 1}:"):
        f(1, 0)


def peak(x, start):
    best = x[start]
    k = start
    for i in range(start, x.shape[0]):
        if x[i] > best:
            best = x[i]
            k = i
    return best, k, best > 0.5


def write_argument(x, v):
    for i in range(x.shape[0]):
        x[i] = v * i
    return x


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])    # (float32: the same code, another dtype)
def test_element_loops_compile_whole_and_match_numpy(dtype):
    x = np.random.default_rng(3).standard_normal(300).astype(dtype)
    f = fusejit.jit(ewma)
    _same(f(x, 0.3), ewma(x, 0.3))  # interpreted
    _same(f(x, 0.3), ewma(x, 0.3))  # compiled whole on the second call
    assert hasattr(f._specialised[next(iter(f._specialised))], "compiled")
    g = fusejit.jit(peak)
    _same(g(x, 5), peak(x, 5))
    _same(g(x, -3), peak(x, -3))
    _same(g(x, 7), peak(x, 7))


def running_peak_total(x, start: int):
    best = x[0]
    total = 0.0
    for i in range(start, x.shape[0] - 1):
        if x[i] > best:
            best = x[i]
        total += best
    return total


def test_a_first_call_whose_loop_runs_long_compiles_whole_at_once(monkeypatch):
    """A function called once never waits for Numba, unless its first call's loops would
    take longer interpreted than the compile (``FIRST_CALL_WHOLE_STEPS``, node runs counted
    from the trip counts the arguments give: ``range(start, x.shape[0] - 1)``)."""
    import importlib

    jit_module = importlib.import_module("fusejit.frontend.jit")
    monkeypatch.setattr(jit_module, "FIRST_CALL_WHOLE_STEPS", 2000)
    x = np.random.default_rng(4).standard_normal(1000)
    for size, start, whole in ((1000, 0, True), (1000, 900, False), (100, 0, False)):
        f = fusejit.jit(running_peak_total)
        _same(f(x[:size], start), running_peak_total(x[:size], start))
        assert hasattr(f._specialised[next(iter(f._specialised))], "compiled") == whole


def spread(x):
    s = x.std()
    if s < 1e-12:
        return 0.1
    return s


def scaled_or_centred(x):
    mu = x.mean()
    s = x.std()
    if s < 1e-12:
        return x - mu, 0.0
    return (x - mu) / s, s


def tiers_of_answers(x):
    if x.size == 0:
        return 0
    t = x.sum()
    if t > 100:
        return 100
    return t


def half_size_or_mean(x):
    if x.size < 3:
        return x.size * 0.3
    return x.mean()


# (spread's float64 calls take float32's two branches in float64, where no float32 rounding is
# at stake; tiers_of_answers' int8 array takes int32's branch and rule, its sum an np.int64:
# exhaustive cases)
@pytest.mark.parametrize("fn, makes", [
    (half_size_or_mean, [lambda: np.arange(2, dtype=np.float32),
                         lambda: np.arange(5, dtype=np.float32)]),
    (spread, [lambda: np.full(5, 3.0, np.float32), lambda: np.arange(5, dtype=np.float32)]),
    pytest.param(spread, [lambda: np.full(5, 3.0), lambda: np.arange(5.0)],
                 marks=pytest.mark.exhaustive),
    (scaled_or_centred, [lambda: np.full(4, 2.5, np.float32), lambda: np.arange(4.0)]),
    (tiers_of_answers, [lambda: np.arange(3, dtype=np.int32), lambda: np.arange(30),
                        lambda: np.zeros(0, np.int64)]),
    pytest.param(tiers_of_answers, [lambda: np.arange(4, dtype=np.int8)],
                 marks=pytest.mark.exhaustive),
])
def test_a_returned_number_or_numpy_scalar_by_branch_is_numpys_on_every_call(fn, makes):
    """``if s < eps: return 0.1`` / ``return s``: NumPy returns the Python number from one
    branch and the NumPy scalar from the other; so does every tier (interpreted, compiled
    whole, the fast path), exactly (0.1 is no float32 rounded back)."""
    f = fusejit.jit(fn)
    for make in makes:
        for _ in range(4):
            got, want = f(make()), fn(make())
            gots, wants = (got, want) if isinstance(want, tuple) else ((got,), (want,))
            assert [type(g) for g in gots] == [type(w) for w in wants]
            for g, w in zip(gots, wants):
                np.testing.assert_array_equal(g, w)


def write_then_read(x, i):
    x += 1.0
    x[1:] = x[:-1] * 2          # the source overlaps the target
    return x[i]


def test_element_loops_that_write_arguments_compile_whole_and_update_the_callers_array():
    f = fusejit.jit(write_argument)
    f(np.zeros(5), 2.0)
    for _ in range(2):                                  # compiled whole, then the fast path
        x = np.zeros(5)
        _same(f(x, 2.0), write_argument(np.zeros(5), 2.0))
        np.testing.assert_array_equal(x, [0, 2, 4, 6, 8])  # the caller's array, as NumPy
    assert hasattr(f._specialised[next(iter(f._specialised))], "compiled")


def test_a_failed_compiled_call_restores_written_arguments_before_the_interpreter_reruns():
    import inspect

    _, first = inspect.getsourcelines(write_then_read)
    f = fusejit.jit(write_then_read)
    for _ in range(3):
        x, want = np.arange(4.0), np.arange(4.0)
        _same(f(x, 2), write_then_read(want, 2))
        np.testing.assert_array_equal(x, want)
    x, want = np.arange(4.0), np.arange(4.0)
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 3}:"):
        f(x, 9)
    with pytest.raises(IndexError):
        write_then_read(want, 9)
    np.testing.assert_array_equal(x, want)              # written once, as NumPy leaves it
    assert not f._specialised[next(iter(f._specialised))].refused


def test_element_loop_index_errors_come_from_the_interpreter_with_the_line():
    import inspect

    _, first = inspect.getsourcelines(peak)
    f = fusejit.jit(peak)
    f(np.ones(3), 0)
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 1}:"):
        f(np.ones(3), 7)


def squares(n, x):
    out = np.zeros(n, dtype=np.int64)
    fixed = np.ones((4,), dtype=np.float32)
    for i in range(n):
        out[i] = i * i
    fixed[1] = x[0] * 2
    return out, fixed


def test_element_loops_create_arrays_of_constant_and_argument_shapes():
    x = np.array([1.5, 2.0])
    f = fusejit.jit(squares)
    _same(f(6, x), squares(6, x))
    _same(f(6, x), squares(6, x))
    assert hasattr(f._specialised[next(iter(f._specialised))], "compiled")


def axis_stats(a):
    return (a.std(axis=0), a.var(axis=1, ddof=1), np.std(a, axis=-1, keepdims=True), a.max(0),
            a.argmin(axis=1), a.sum(axis=0, keepdims=True), a.mean(axis=1), a.cumsum(axis=0))


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])    # (float32: the same code, another dtype)
def test_axis_reductions_compiled_whole_match_numpy(dtype):
    a = np.random.default_rng(1).standard_normal((7, 4)).astype(dtype)
    f = fusejit.jit(axis_stats)
    for _ in range(2):  # interpreted, then compiled whole (or interpreted if it cannot be)
        assert_same(f(a), axis_stats(a))


def over_no_axis(a):
    return (a.sum(axis=()), np.max(a, axis=()), a.min(axis=(), keepdims=True), a.mean(axis=()),
            np.std(a, axis=()), a.var(axis=(), ddof=0), np.prod(a, axis=()), np.any(a, axis=()))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reductions_over_no_axis_keep_every_element_as_numpy_does(dtype):
    # axis=() reduces nothing in NumPy; PyTorch would read the empty dim list as "all dims"
    a = np.arange(-3, 9).reshape(3, 4).astype(dtype)
    got, want = fusejit.jit(over_no_axis)(a), over_no_axis(a)
    for g, w in zip(got, want):
        assert g.shape == w.shape == a.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def grid_and_division(i, n):
    e = np.eye(n) + np.linspace(0.0, 1.0, n)
    return i // 3, i % 4, -i // 2, e, e.sum(axis=0)


def number_on_the_left(i):
    odd = (2 * i + 1).astype(np.int8)   # (NumPy's weak scalar takes the array's dtype)
    return -17 // odd, 17 % odd, -2.5 % (i + 0.5), np.float32(1.5) // odd, 7 // (odd * 1.5)


def divide_by(i, d):
    return i // d


def test_division_and_creation_compiled_whole_match_numpy():
    i = np.arange(-7, 9)
    f = fusejit.jit(grid_and_division)
    for _ in range(2):
        assert_same(f(i, 4), grid_and_division(i, 4))
    assert hasattr(f._specialised[next(iter(f._specialised))], "compiled")
    assert_same(fusejit.jit(number_on_the_left)(i), number_on_the_left(i))
    g = fusejit.jit(divide_by)  # a divisor known only at run time stays on the interpreter
    for _ in range(2):
        assert_same(g(i, 3), divide_by(i, 3))
    assert not hasattr(g._specialised[next(iter(g._specialised))], "compiled")


def keyword_defaults(x, y=2, *, s=1.0, t=None):
    return x * y + s if t is None else x


def keyword_required(x, *, s):
    return x * s


def test_positional_calls_fill_positional_and_keyword_only_defaults():
    x = np.arange(3.0)
    f = fusejit.jit(keyword_defaults)
    for args, kwargs in [((x,), {}), ((x, 3), {}), ((x,), {"s": 2.0}), ((x, 1), {"t": None}),
                         ((x, 3), {"s": 0.5}), ((x,), {"t": 1})]:
        assert_same(f(*args, **kwargs), keyword_defaults(*args, **kwargs))
    with pytest.raises(fusejit.FusejitError, match="missing a required argument: 's'"):
        fusejit.jit(keyword_required)(x)


def optional_arguments(x: np.ndarray, bias: Optional[np.ndarray] = None,  # noqa: UP045
                       scale: float | None = None):
    y = x * 2
    if bias is not None:
        y = y + bias
    if scale is not None:
        y = y * scale
    return y


def test_optional_annotations_and_none_defaults():
    f = fusejit.jit(optional_arguments)
    x = np.arange(3.0)
    for args, kwargs in [((x,), {}), ((x, np.ones(3)), {}), ((x, None, 0.5), {}),
                         ((x,), {"scale": 2})]:
        assert_same(f(*args, **kwargs), optional_arguments(*args, **kwargs))


def test_whole_compiled_array_code_leaves_big_arrays_to_the_fused_kernels():
    import importlib

    jit_module = importlib.import_module("fusejit.frontend.jit")   # (the package's .jit is
    # the decorator)

    def scaled(x):
        return np.tanh(x * 2.0) + 1.0

    fn = fusejit.jit(scaled)
    small = np.linspace(-1, 1, 64).astype(np.float32)
    big = np.linspace(-1, 1, jit_module.WHOLE_GRAPH_MAX_ELEMENTS + 1).astype(np.float32)
    for _ in range(3):
        np.testing.assert_allclose(fn(small), scaled(small), rtol=1e-5)
    compiled = fn._compiled     # (the interpreter's function: its calls are counted, on
    # every path to it, the fast call's remembered runner too)

    def calls():
        return sum(timings.calls for timings in compiled._timings.values())

    before = calls()
    np.testing.assert_allclose(fn(small), scaled(small), rtol=1e-5)
    assert calls() == before                  # small: the whole-graph function
    np.testing.assert_allclose(fn(big), scaled(big), rtol=1e-5, atol=1e-6)
    assert calls() == before + 1              # big: the interpreter with its fused kernel
    plan = compiled.plan_for([big])
    assert plan.kernels



def _rows_mean(x, w):
    return (x - x.mean(axis=1, keepdims=True)) * w


def _self_distance(x):
    return np.abs(x[:, None] - x[None, :]).sum(axis=1)


def _outer_times(x, w):
    return (x[:, None] * w).sum()


def _gram(x):
    return x @ x.T


def _logistic_gradient(w, x):
    return x.T @ (x @ w)


def _frame_changes(x):
    s = np.signbit(x[:6].reshape(2, 3))
    return np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1)


def _scattered(keys, v):
    t = np.zeros((5, 5))
    k = keys.astype(np.int64) % 5
    np.add.at(t, (k, k), v)
    return t.sum(axis=0)


@pytest.mark.parametrize("fn, shapes, degree", [
    (_rows_mean, [(8, 4), (4,)], 1),          # a keepdims mean against its own rows
    (_frame_changes, [(8,)], 1),              # slices of one reshaped array against each other
    (_scattered, [(8,), (8,)], 1),            # an update: the array written
    (_self_distance, [(8,)], 2),              # one argument, broadcast against itself
    (_outer_times, [(8,), (5,)], 2),          # a new axis against a vector
    (_gram, [(8, 4)], 2),                     # a product
    (_logistic_gradient, [(4,), (8, 4)], 1),  # products with a vector: no bigger than x
])
def test_growth_degree_bounds_the_arrays_a_graph_makes(fn, shapes, degree):
    """The whole-graph function (Numba's NumPy, op by op) is for small arrays: arguments of
    4096 elements qualify where no array the graph makes is bigger, 64 where it makes
    ``len(x) ** 2`` (an outer difference of 2048-element vectors ran 3x slower than NumPy)."""
    from fusejit.frontend.jit import argument_ir_type
    from fusejit.runtime.element_support import argument_limit, growth_degree

    args = [np.ones(shape) for shape in shapes]
    jitted = fusejit.jit(fn)
    graph = jitted._script([argument_ir_type(f"a{i}", a) for i, a in enumerate(args)], args)
    assert growth_degree(graph) == degree
    assert argument_limit(graph, 4096) == {1: 4096, 2: 64}[degree]

def _rbf(x, y):
    return np.exp((x * x).sum(axis=1)[:, None] + (y * y).sum(axis=1)[None, :] - 2.0 * x @ y.T)


def _cumsum_shift(x):
    c = np.cumsum(x)
    return c[1:] - c[:-1] + np.zeros(x.shape)


def _flat_outer(x):
    return (x[:, None] * x[None, :]).reshape(-1, 1) + 1.0


def _counted(n, x):
    return np.arange(n) * x.sum()


def _counted_twice(n, x):
    return np.arange(2 * n) * x.sum()


def _kmeans_step(points, centers):
    for _ in range(2):
        labels = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(-1).argmin(1)
        new = np.zeros_like(centers)
        for k in range(centers.shape[0]):
            new[k] = (points * (labels == k)[:, None]).sum(0)
        centers = new
    return centers


def _descent(A, t):
    # (A only multiplied, through its transpose too: BLAS's either way, so it does not count)
    w = np.zeros(A.shape[1])
    for _ in range(3):
        r = A @ w - t
        w -= 0.1 * (A.T @ r)
    return w, np.logaddexp(0.0, r).sum()


def _descent_scaled(A, t):
    # (... unless something else reads it: A * 2.0 makes an array of its elements)
    w = np.zeros(A.shape[1])
    for _ in range(3):
        w -= 0.1 * ((A * 2.0).T @ (A @ w - t))
    return w


def _one_part_joined(a, b):
    # (a concatenation of one array is as long as it: its bound's text had "a-2.shape[1]",
    # fuzz seed 520317, and the fast call failed to compile on the third call)
    return np.stack([b * 0.5, b + 1.0]), np.concatenate([np.sqrt(np.abs(a)) + 1])


@pytest.mark.parametrize("fn, shapes, most", [
    (_one_part_joined, [(8,), (8,)], 2 * 8),
    (_rbf, [(40, 3), (30, 3)], 40 * 30),     # rows x rows, not (40 * 3) * (30 * 3)
    (_descent, [(50, 4), (50,)], 50),
    (_descent_scaled, [(50, 4), (50,)], 50 * 4),
    (_gram, [(8, 4)], 8 * 8),
    (_self_distance, [(8,)], 8 * 8),
    (_outer_times, [(8,), (5,)], 8 * 5),
    (_rows_mean, [(8, 4), (4,)], 8 * 4),
    (_cumsum_shift, [(8,)], 8),               # (np.cumsum reshapes to 1-d; zeros of x.shape)
    (_kmeans_step, [(60, 2), (3, 2)], 60 * 3 * 2),     # loops: what enters and comes back
    (_flat_outer, [(8,)], None),              # a reshape may make a longer dimension
    (_counted, [(), (8,)], 8),                # np.arange(n): at most n, an int argument (5)
    (_counted_twice, [(), (8,)], None),       # np.arange(2 * n): a length computed from one
])
def test_made_elements_bounds_the_arrays_a_graph_makes_by_the_arguments_dimensions(
        fn, shapes, most):
    """The most elements an array the graph makes can have, from the arguments' shapes: the
    whole-graph function takes ``_rbf`` of 40 x 3 and 30 x 3 arrays (1200 elements made),
    which ``growth_degree`` alone (degree 4: arguments of 8 elements) leaves to the
    interpreter."""
    from fusejit.frontend.jit import argument_ir_type
    from fusejit.runtime.array_bounds import made_elements

    args = [np.ones(shape) if shape else 5 for shape in shapes]
    graph = fusejit.jit(fn)._script([argument_ir_type(f"a{i}", a) for i, a in enumerate(args)],
                                    args)
    bound = made_elements(graph)
    assert (bound if bound is None else bound(*args)) == most
    if bound is not None:   # (the fast call writes each term into its text: each reads)
        named = {f"a{i}": a for i, a in enumerate(args)}
        assert max(eval(term, named) for term in bound.terms) <= most  # noqa: S307


@pytest.mark.parametrize("m", [30, 102, 103])
def test_whole_graph_runs_where_the_arrays_it_makes_are_small(m):
    """``_rbf`` of 40 x 3 and m x 3 arrays: compiled whole (no interpreter call) while the
    arrays it makes stay within 4096 elements, on the interpreter beyond; NumPy's values both
    ways, through the fast call and the general path."""
    import importlib

    jit_module = importlib.import_module("fusejit.frontend.jit")
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((40, 3)), rng.standard_normal((m, 3))
    fn = fusejit.jit(_rbf)
    for _ in range(3):
        np.testing.assert_allclose(fn(x, y), _rbf(x, y), rtol=1e-12)
    interpreted = fn._interpreted[jit_module.call_key((x, y))]
    calls = []
    original = type(interpreted).__call__
    try:
        type(interpreted).__call__ = lambda self, *a: calls.append(1) or original(self, *a)
        np.testing.assert_allclose(fn(x, y), _rbf(x, y), rtol=1e-12)          # (fast call)
        np.testing.assert_allclose(fn._call_bound((x, y)), _rbf(x, y), rtol=1e-12)
        assert bool(calls) == (40 * m > 4096)
    finally:
        type(interpreted).__call__ = original


def _waves(t, w):
    return np.cos(w * t).sum(axis=1)


@pytest.mark.parametrize("n, m", [(50, 40), (4000, 64)])
def test_arguments_with_size_1_dimensions_are_held_to_what_they_broadcast_to(n, m):
    """``t`` of (n,) times ``w`` of (m, 1) makes n * m elements though each argument is within
    the whole form's limit (its growth degree, typed by ranks, is 1): whole for 2000, the
    interpreter's fused kernel for 256000 (Numba's NumPy, an op at a time with libm's cos,
    ran it at 0.6x NumPy), by the fast call and the general path."""
    t, w = np.linspace(0.0, 20.0, n), np.linspace(0.5, 5.0, m).reshape(m, 1)
    fn = fusejit.jit(_waves)
    for _ in range(3):
        np.testing.assert_allclose(fn(t, w), _waves(t, w), rtol=1e-12)
    compiled = fn._compiled     # (the interpreter's calls, on every path to it, counted)

    def calls():
        return sum(timings.calls for timings in compiled._timings.values())

    before = calls()
    np.testing.assert_allclose(fn(t, w), _waves(t, w), rtol=1e-12)          # (fast call)
    np.testing.assert_allclose(fn._call_bound((t, w)), _waves(t, w), rtol=1e-12)
    assert calls() - before == (2 if n * m > 4096 else 0)


def _euler(x, v, dt):
    for _ in range(3):
        v = v - dt * x
        x = x + dt * v
    return x, v


def _decay_in_place(x):
    x = x.copy()
    for _ in range(3):
        x *= 0.999                  # (whole arrays updated by arithmetic: array work too)
        x += 0.001
    return x


def _running(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        out[i] = 0.5 * out[i - 1] + x[i]
    return out


def _stacked(x, v, dt):
    hs = []
    for _ in range(3):
        v = v - dt * x
        hs.append(v)
    return np.stack(hs)


@pytest.mark.parametrize("fn, makes_arrays, sized", [
    (_euler, True, True), (_decay_in_place, False, True), (_running, False, False),
    (_stacked, True, True)])
def test_loops_that_make_arrays_leave_big_arrays_to_the_fused_kernels(fn, makes_arrays,
                                                                      sized):
    """A loop that makes arrays (``v = v - dt * x``) runs whole only on small arrays, as
    straight-line array code does (on 2^22 float64 elements, whole: 0.21x NumPy; fused
    kernels: 4.5x); a loop over elements runs whole at any size. One that updates them by
    arithmetic in runs (``x *= 0.999; x += 0.001``: one loop over the elements,
    ``element_runs``) makes none, but is held to the size too (timed against the
    interpreter beyond it, where timing is on: ``test_timed_choice``). A loop of few steps whose
    stack has no bound from the arguments' dimensions (arrays appended in the loop, stacked
    after it) is held to the limit too: its steps' arrays have one (a 4-step particle update
    of 1.2 * 10^6 elements ran whole at 0.42x NumPy, interpreted at 12x)."""
    import importlib

    from fusejit.frontend.jit import argument_ir_type
    from fusejit.runtime.element_support import makes_arrays_in_loops

    jit_module = importlib.import_module("fusejit.frontend.jit")
    x, v = np.random.default_rng(2).random((2, jit_module.WHOLE_GRAPH_MAX_ELEMENTS + 1))
    args = [x] if fn in (_running, _decay_in_place) else [x, v, 0.1]
    jitted = fusejit.jit(fn)
    graph = jitted._script([argument_ir_type(f"a{i}", a) for i, a in enumerate(args)], args)
    assert makes_arrays_in_loops(graph) == makes_arrays
    for _ in range(3):
        _same(jitted(*args), fn(*args))
    compiled = jitted._compiled    # (the interpreter's function: its calls are counted)

    def calls():
        return sum(timings.calls for timings in compiled._timings.values())

    before = calls()
    _same(jitted(*args), fn(*args))
    assert (calls() > before) == sized


def newton_from_int(a, x=1, steps=4):
    for _ in range(steps):
        x = x - (x * x - a) / (2 * x)
    return x


def last_index(n):
    x = 0.0
    for i in range(n):
        x = i
    return x


def branches_of_two_types(c, v):
    r = 1 if c else v * 0.5
    if c:
        y = True
    else:
        y = 3
    if v > 2:
        return r, y
    return 2.5, y


@pytest.mark.parametrize("fn, args, want", [
    (newton_from_int, (2,), newton_from_int(2)),
    (last_index, (5,), 4.0), (last_index, (0,), 0.0),
    (branches_of_two_types, (True, 3), (1, True)), (branches_of_two_types, (False, 1), (2.5, 3))])
def test_numbers_that_change_type_take_the_wider_type_as_in_numba(fn, args, want):
    """``x = 1`` then ``x = x / 2`` in a loop, or ``x = 0.0`` then ``x = i``: Numba unifies
    to the wider type (bool < int < float); fusejit does the same. An int in one branch of an
    if and a float in the other is the type of the branch that ran, as Python returns it
    (it was the wider type, as Numba's, before ``merged_kinds``)."""
    f = fusejit.jit(fn)
    for _ in range(3):                      # interpreted, then compiled whole
        got = f(*args)
        assert got == want and type(got) is type(want)
        if isinstance(got, tuple):
            assert [type(g) for g in got] == [type(w) for w in want]


def collect_rows(xs, n, w):
    hs = []
    h = np.zeros(xs.shape[1])
    for t in range(n):
        h = np.tanh(xs[t] + h * w)
        hs.append(h)
    return np.array(hs), np.stack(hs)


def sgd(w, X, y, steps, lr):
    for _ in range(steps):
        w -= lr * X.T @ (X @ w - y) / X.shape[0]
    return w


def test_lists_appended_in_loops_and_loop_updates_of_arguments_compile_whole():
    """``hs.append(h)`` then ``np.stack(hs)``, and ``w -= ...`` in a loop on the caller's
    ``w``: compiled whole on the second call, NumPy's values, the caller's array updated;
    an empty list fails with the interpreter's located error."""
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((5, 3))
    f, g = fusejit.jit(collect_rows), fusejit.jit(sgd)
    X, y = rng.standard_normal((20, 3)), rng.standard_normal(20)
    for _ in range(3):
        _same(f(xs, 4, 0.5), collect_rows(xs, 4, 0.5))
        w, want = np.zeros(3), np.zeros(3)
        _same(g(w, X, y, 5, 0.1), sgd(want, X, y, 5, 0.1))
        np.testing.assert_allclose(w, want)
    for fn in (f, g):
        run = next(iter(fn._specialised.values()))
        assert hasattr(run, "compiled") and not run.refused
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:"):
        f(xs, 0, 0.5)


def haar_levels(x, levels):
    approx = x.astype(np.float64)
    details = []
    for _ in range(levels):
        details.append(approx[::2] - approx[1::2])
        approx = (approx[::2] + approx[1::2]) * 0.5
    energies = np.array([float((d * d).sum()) for d in details])
    peak = 0.0
    for d in details:
        peak = max(peak, float(np.abs(d).max()))
    return approx, energies, peak, details[-1] * 2.0, details[0][:3], len(details)


def halvings_then_wider(x, n):
    hs = [x]
    for _ in range(n):
        hs.append(hs[-1] * np.float32(0.5))
    hs.append(x.astype(np.float64) * 0.25)      # (float64, after float32 reads)
    return np.concatenate(hs), hs[1][:4] + 1.0


@pytest.mark.parametrize("size", [64, 1 << 16])
def test_arrays_read_back_from_an_appended_list_keep_their_type(size):
    """``for d in details`` over a list a loop appended vectors to: each item is read as the
    float64 vector it is (whole-graph form for small calls, fused kernels for big ones),
    NumPy's values at every call. A list that takes a float64 array after float32 items were
    read is scripted again with untyped reads, still NumPy's values."""
    x = np.random.default_rng(5).standard_normal(size).astype(np.float32).cumsum()
    f, g = fusejit.jit(haar_levels), fusejit.jit(halvings_then_wider)
    for _ in range(3):
        _same(f(x, 5), haar_levels(x, 5))
        _same(g(x, 3), halvings_then_wider(x, 3))
    item = next(n for n in f.graph_for(x, 5).all_nodes() if n.kind == "aten::__getitem__")
    assert item.output().type.scalar_type is not None and item.output().type.rank == 1
    if size <= 4096:
        assert not next(iter(f._specialised.values())).refused
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:"):
        f(x, 0)    # (details[-1] of an empty list: the interpreter's located error)


def colour_update(u0, rhs, i0, j0):
    u = u0.copy()
    n, m = u.shape
    ci, cj = slice(i0, n - 1, 2), slice(j0, m - 1, 2)
    up, dn = slice(i0 - 1, n - 2, 2), slice(i0 + 1, n, 2)
    u[ci, cj] = 0.25 * (u[up, cj] + u[dn, cj] + rhs[ci, cj])
    return u, u[slice(3)], u[slice(None, None, -1), slice(j0, None)]


def test_slice_objects_index_as_the_slices_they_stand_for():
    """``ci = slice(i0, n - 1, 2)``, then ``u[ci, cj] = ...``: Python's slice objects, with
    bounds known when it runs, index (and assign) as ``u[i0:n - 1:2]`` would."""
    rng = np.random.default_rng(8)
    u, rhs = rng.random((9, 8)), rng.random((9, 8))
    f = fusejit.jit(colour_update)
    for i0, j0 in [(1, 2), (2, 1), (1, 1)]:
        for _ in range(3):
            _same(f(u, rhs, i0, j0), colour_update(u, rhs, i0, j0))

    def bad(x):
        return x[slice(0.5, 2)]
    with pytest.raises(fusejit.FusejitError, match="slice\\(\\)'s arguments are ints or None, got a float"):
        fusejit.jit(bad)(u)


def level_sums(x, a, b, c):
    levels = [x]
    cur = x
    while cur.shape[0] >= 2 and len(levels) < 6:
        cur = 0.5 * (cur[0::2] + cur[1::2])
        levels.append(cur)
    steps = []
    for fine, coarse in zip(levels[:-1], levels[1:]):
        steps.append(float(fine.sum() - 2.0 * coarse.sum()))
    back = [float(lv.sum()) for lv in levels[::-1]]
    some = [float(lv.max()) for lv in levels[a:b]]
    down = [float(lv.max()) for lv in levels[-3:c:-1]]
    return np.array(steps), np.array(back), np.array(some), np.array(down)


@pytest.mark.parametrize("size", [64, pytest.param(1 << 14, marks=pytest.mark.exhaustive)])
def test_slices_of_lists_built_in_loops_are_pythons(size):
    """``levels[:-1]``, ``levels[::-1]``, ``levels[a:b]`` of a list a loop appended to: the
    items Python's slice of the list holds, for bounds negative, beyond the ends, known when
    it runs or before, at every call."""
    x = np.random.default_rng(9).random(size)
    f = fusejit.jit(level_sums)
    for a, b, c in [(1, 3, 0), (-4, -1, -6), (0, 100, 2), (-10, 5, -10)]:
        for _ in range(3):
            _same(f(x, a, b, c), level_sums(x, a, b, c))


def last_labels(x, n):
    labels = None
    for i in range(n):
        labels = np.argmax(x * (i + 1.0), axis=1)
    return np.bincount(labels, minlength=4)


def fits(x, n):
    coef = None
    totals = []
    for d in range(1, n + 1):
        coef = x[:d] * 2.0
        totals.append(float(coef.sum()))
    return np.array(totals), coef


def test_a_name_that_is_none_before_a_loop_takes_what_the_loop_assigns():
    """``labels = None`` before a loop that assigns it an array each iteration, read after
    it: the loop's array; a loop that ran zero times leaves Python's None, which fusejit
    says it does not hold (a located error naming the variable), never a wrong value."""
    x = np.random.default_rng(10).random((50, 4))
    f, g = fusejit.jit(last_labels), fusejit.jit(fits)
    for _ in range(3):
        _same(f(x, 3), last_labels(x, 3))
        _same(g(x[:, 0], 4), fits(x[:, 0], 4))
    with pytest.raises(fusejit.FusejitError, match="'labels' is None before the loop at line"):
        f(x, 0)


def last_positive(a):
    for x in a:
        if x <= 0:
            continue
        last = x                    # (skipped by continue: assigned in some steps only)
    return last


def before_the_first_big(a):
    for i in range(a.shape[0]):
        if a[i] > 0.5:
            break
        below = a[i] * 2            # (skipped from the break on)
    return below


def tripled_positive(a):
    for i in range(2):
        for x in a:
            if x > 0:
                y = x * 3 + i       # (assigned in one branch of an if)
    return y


def last_kept(x):
    if x.ndim == 2:                 # (decided while scripting: defined before the loop or not)
        t = 0.0
    for v in x.ravel():
        if v < 0:
            continue
        t = v
    return t


def test_a_name_defined_before_the_loop_in_one_scripting_only_keeps_its_value():
    """``last_kept`` scripted for a vector (t first assigned in the loop: flagged) and then for
    a matrix (t = 0.0 before it): the matrix's t keeps 0.0 where the loop assigns nothing,
    with no UnboundLocalError from the flags the first scripting added to the loop."""
    f = fusejit.jit(last_kept)
    for _ in range(2):
        with pytest.raises(fusejit.JITException, match="UnboundLocalError: 't'"):
            f(-np.ones(3))
        _same(f(-np.ones((2, 2))), last_kept(-np.ones((2, 2))))
        _same(f(np.array([[1.0, 3.0]])), last_kept(np.array([[1.0, 3.0]])))


@pytest.mark.parametrize("n", [4, pytest.param(5000, marks=pytest.mark.exhaustive)])
def test_a_name_a_loop_may_skip_assigning_is_read_after_it_as_python_reads_it(n):
    """A name first assigned in a loop after a continue or break test, or in one branch of
    an if, and read after the loop: the value of its last assignment, and Python's
    UnboundLocalError (a JITException naming it) where no assignment ran. It was refused
    ("'last' is not defined here: it is assigned inside the loop"; 9 structure-fuzz cases).
    Every call."""
    up = np.linspace(-1.0, 1.0, n)
    unbound = 0
    for fn in (last_positive, before_the_first_big, tripled_positive):
        f = fusejit.jit(fn)
        for a in (up, up[::-1].copy(), up.astype(np.float32), -np.ones(n), np.ones(n)):
            try:
                want = fn(a)
            except UnboundLocalError:
                unbound += 1
                for _ in range(3):
                    with pytest.raises(fusejit.JITException, match="UnboundLocalError"):
                        f(a)
                continue
            for _ in range(3):
                _same(f(a), want)
    assert unbound == 4     # (each function has inputs of both kinds)


def _drawdown(r):
    wealth = np.cumsum(r)
    gap = np.maximum.accumulate(wealth) - wealth
    i = int(np.argmax(gap))
    return float(gap[i]), i


def drawdowns(returns):
    details = [_drawdown(r) for r in returns]
    depth, where = [], []
    for d, i in details:
        depth.append(d)
        where.append(i)
    first = details[0]
    return (np.array(depth), np.array(where, dtype=np.int64), first[0], first[1],
            len(details), np.array(details), np.array(details[1:][::2]))


def sweep(scores, labels, thresholds):
    hits = labels == 1
    rows = []
    for t in thresholds:
        pred = scores > t
        tp = int(np.count_nonzero(pred & hits))
        rows.append([float(t), tp / max(int(np.count_nonzero(pred)), 1), tp])
    return np.vstack([np.array(r) for r in rows]), np.array(rows), np.hstack(
        [np.array(r) for r in rows])


def windows(x, n):
    rows = [(x[:3], 0)]
    for i in range(n):
        rows.append((x[i:i + 3] * 2.0, i))
    total = 0.0
    for part, k in rows[1:]:
        total += float(part.sum()) * k
    return total, rows[-1][0], np.array(rows[2][0])


@pytest.mark.parametrize("fn, args", [
    (drawdowns, (np.random.default_rng(11).standard_normal((5, 300)) * 0.01,)),
    (sweep, (np.random.default_rng(12).random(1000).astype(np.float32),
             (np.random.default_rng(13).random(1000) < 0.3).astype(np.int64),
             np.linspace(0.1, 0.9, 9))),
    (windows, (np.random.default_rng(14).random(50), 5))])
def test_lists_of_tuples_appended_in_loops(fn, args):
    """``rows.append((t, precision, tp))``, a comprehension of tuples from a helper, tuples
    of arrays: each field kept as a list of its own; indexing, unpacking in a for loop,
    len(), slices, np.array(rows) (NumPy's dtype over the fields) and np.vstack of the rows
    give NumPy's values at every call."""
    f = fusejit.jit(fn)
    for _ in range(3):
        _same(f(*args), fn(*args))


def returned_rows(x, n):
    rows = []
    for i in range(n):
        rows.append((x[i], i))
    return rows


def rows_read_first(x, n):
    rows = []
    for i in range(n):
        if len(rows) > 2:
            x = x * 2.0
        rows.append((x[i], i))
    return x


def ragged_rows(x, n):
    rows = []
    for i in range(n):
        rows.append((x[i], i))
        rows.append((x[i], i, 3))
    return np.array(rows)


@pytest.mark.parametrize("fn, message", [
    (returned_rows, "a list of tuples built in a loop is returned"),
    (rows_read_first, "this list is read before a tuple is first appended to it"),
    (ragged_rows, "this list holds tuples of 2 items; appending a tuple of 3")])
def test_lists_of_tuples_fusejit_cannot_hold_are_refused_where_they_are_built(fn, message):
    with pytest.raises(fusejit.FusejitError, match=message) as info:
        fusejit.jit(fn)(np.arange(5.0), 3)
    assert f"{__file__}:" in str(info.value)


def smoothed(series, alpha, beta, steps):
    level, trend = series[0].copy(), series[1] - series[0]
    for t in range(1, steps):
        new_level = alpha * series[t] + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    return level + trend, float(alpha) * 2.0, int(steps) + 1


def test_numpy_scalar_arguments_compile_whole():
    """np.float32 / np.int64 arguments (0-d arrays in the graph, the numbers they hold in
    the whole-graph function): compiled whole from the second call on, NumPy's values and
    dtypes; Numba could not type ``float()`` of the 0-d array, and every call fell back to
    the interpreter."""
    series = np.random.default_rng(15).standard_normal((40, 30)).astype(np.float32)
    args = (series, np.float32(0.3), np.float32(0.1), np.int64(25))
    f = fusejit.jit(smoothed)
    for _ in range(3):
        _same(f(*args), smoothed(*args))
    run = next(iter(f._specialised.values()))
    assert hasattr(run, "compiled") and not run.refused, run.refused


def doubled_above(x, t):
    values = []
    for v in x:
        if v > t:
            values.append(float(v) * 2.0)
    return np.array(values), len(values)


def indices_above(x, t):
    found = []
    for i in range(x.shape[0]):
        if x[i] > t:
            found.append(i)
    return np.array(found)


@pytest.mark.parametrize("size", [50, pytest.param(1 << 16, marks=pytest.mark.exhaustive)])
def test_arrays_of_appended_numbers_that_may_be_empty(size):
    """np.array of a list of floats a loop appended is NumPy's empty float64 array when
    nothing was appended; of ints, whose empty array NumPy makes float64, a located error
    says so rather than give an int64 one."""
    x = np.linspace(0.0, 1.0, size)
    f, g = fusejit.jit(doubled_above), fusejit.jit(indices_above)
    for t in (0.5, 2.0, 0.5, 2.0, 2.0):
        _same(f(x, t), doubled_above(x, t))
        _same(g(x, 0.9), indices_above(x, 0.9))
    for _ in range(3):
        with pytest.raises(fusejit.FusejitError, match="np.array of an empty list is a float64"):
            g(x, 2.0)


def sums_of_scaled(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.array([r.sum() for r in rows])


def scaled_rows(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.array(rows)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_arrays_of_appended_arrays_that_may_be_empty(dtype):
    """np.array of a list of float64 scalars (x.sum()) a loop appended is NumPy's empty
    float64 vector when nothing was appended; of int64 scalars, or of arrays (a matrix
    otherwise), a located error says so. Both raised the stack's internal "stack expects a
    non-empty TensorList" (fuzz seed 520368)."""
    x = np.arange(5).astype(dtype)
    f, g = fusejit.jit(sums_of_scaled), fusejit.jit(scaled_rows)
    for n in (3, 0, 2, 0):
        _same(f(x, 3), sums_of_scaled(x, 3))
        _same(g(x, 2), scaled_rows(x, 2))
        if dtype is np.float64:
            _same(f(x, n), sums_of_scaled(x, n))
        elif n == 0:
            with pytest.raises(fusejit.FusejitError, match="np.array of an empty list is a f"):
                f(x, n)
        with pytest.raises(fusejit.FusejitError, match="np.array of an empty list is a f"):
            g(x, 0)


def dtype_of_mixed_item(x, n):
    hs = [x]
    for _ in range(n):
        hs.append(hs[-1] * np.float32(0.5))
    hs.append(x.astype(np.float64))
    return hs[1].dtype == np.float32


def test_the_dtype_of_an_item_of_a_mixed_list_is_a_located_error():
    """An item read from a list whose arrays differ in dtype has no dtype while scripting:
    x.dtype of it says so (it listed dtype among the attributes arrays have)."""
    with pytest.raises(fusejit.FusejitError, match="x.dtype of this array is not known "
                                                   "while scripting") as info:
        fusejit.jit(dtype_of_mixed_item)(np.ones(4, np.float32), 2)
    assert f"{__file__}:" in str(info.value)


def _append_doubled(items, v):
    items.append(v * 2.0)


def shared_lists(x, n):
    a = [x]
    b = a
    b.append(x + 1.0)
    _append_doubled(a, x)
    groups = [a, [x * 3.0]]
    groups[0].append(x - 1.0)
    built = []
    alias = built
    for i in range(n):
        alias.append(x * i)
    _grow(built, x, n)
    return len(a), a[-1], a[1], len(built), np.stack(built)


def _grow(items, x, n):
    for i in range(n):
        items.append(x + i)


def _shifted(x, s):
    return x[s] + 1.0


def sliced_in_helper(x):
    s = slice(2, None)
    return _shifted(x, s), _shifted(x, slice(None, 3)), _shifted(x, slice(None, None, -2))


def test_names_and_helpers_share_one_list_as_in_python():
    """``b = a; b.append(v)`` appends to ``a``; so does a helper given ``a``, a loop appending
    through another name, and a list held in a list: one list, as Python's (each had its
    own copy, and the appends were lost: a wrong length and last item, silently). Slices
    pass to helpers as the index they are."""
    x = np.arange(5.0)
    f, g = fusejit.jit(shared_lists), fusejit.jit(sliced_in_helper)
    for _ in range(3):
        _same(f(x, 3), shared_lists(x, 3))
        _same(g(x), sliced_in_helper(x))


def bumped_copies(x):
    copies = []
    for _ in range(3):
        copies.append(x * 2.0)
    for c in copies:
        c += 1.0
    copies[0][0] = 100.0
    return np.stack(copies)


@pytest.mark.parametrize("size", [4, 1 << 16])
def test_arrays_appended_from_one_expression_are_each_their_own(size):
    """``copies.append(x * 2.0)`` three times is three arrays, as NumPy makes them, then each
    bumped in place through the list: loop unrolling and CSE made them one array (every
    item bumped three times, and the element written into all three), as would hoisting
    the product out of the loop (found by this session's adversarial helper)."""
    x = np.arange(float(size))
    f = fusejit.jit(bumped_copies)
    for _ in range(3):
        _same(f(x), bumped_copies(x))


def mixed_appends(x):
    parts = []
    for k in range(3):
        if k == 1:
            parts.append(x.astype(np.int32))
        else:
            parts.append(x.astype(np.float32))
    return np.stack(parts), np.concatenate(parts), np.array(parts)


@pytest.mark.parametrize("size", [3, 1 << 15])
def test_joining_a_list_of_several_dtypes_takes_numpys_common_dtype(size):
    """float32 and int32 arrays appended in a loop, then stacked, concatenated or made an
    array: NumPy's float64 (they were joined by PyTorch's rule, float32: 16777217 became
    16777216; found by this session's adversarial helper)."""
    x = np.resize(np.array([1.5, 16777217.0, -2.0]), size)
    f = fusejit.jit(mixed_appends)
    for _ in range(3):
        got, want = f(x), mixed_appends(x)
        assert [g.dtype for g in got] == [w.dtype for w in want]
        _same(got, want)


def loss_summary(x, n):
    losses, rows = [], []
    for i in range(n):
        losses.append(float((x * i).sum()))
        rows.append(x * (i + 1.0))
    return (np.mean(losses), np.max(losses), np.sum(losses), np.std(losses),
            np.mean(rows, axis=0), np.max(rows))


@pytest.mark.parametrize("size", [4, 1 << 15])
def test_numpy_functions_take_a_list_a_loop_built_as_its_array(size):
    """np.mean(losses) of a list of floats a loop appended, np.mean(rows, axis=0) of one of
    arrays: the list's array, as NumPy takes it (they were refused: 'needs an array')."""
    x = np.linspace(0.0, 1.0, size)
    f = fusejit.jit(loss_summary)
    for _ in range(3):
        _same(f(x, 5), loss_summary(x, 5))


def backward_through_steps(x, n):
    states = []
    h = x * 0.0
    for i in range(n):
        h = np.tanh(h + x * (i + 1))
        states.append(h)
    grad = x * 0.0 + 1.0
    total = 0.0
    for h in reversed(states):
        grad = grad * (1.0 - h * h)
        total += float(grad.sum())
    rows = [r.sum() for r in reversed(np.arange(12.0).reshape(3, 4))]
    return grad, total, np.array(rows), tuple(reversed((1, 2, 3)))[0]


@pytest.mark.parametrize("size", [50, 1 << 15])
def test_reversed_walks_lists_arrays_and_tuples_from_the_end(size):
    """``for h in reversed(states)`` over a list a loop built (a backward pass), an array's
    rows and a tuple: Python's order, at every call (reversed() was an unknown function)."""
    x = np.linspace(-1.0, 1.0, size)
    f = fusejit.jit(backward_through_steps)
    for _ in range(3):
        _same(f(x, 4), backward_through_steps(x, 4))


def normalize_by(x, method="zscore", *, axis=0):
    if method == "zscore":
        return (x - x.mean(axis=axis)) / x.std(axis=axis)
    elif method == "minmax":
        return (x - x.min(axis=axis)) / (x.max(axis=axis) - x.min(axis=axis))
    raise ValueError("unknown method")


def test_string_options_are_constants_of_the_signature():
    """``method="minmax"``: the string picks the code while scripting (keyed by its value,
    as JAX's static arguments); another value is another signature."""
    f = fusejit.jit(normalize_by)
    x = np.random.default_rng(4).standard_normal((6, 3))
    for _ in range(3):
        for args, kwargs in [((x,), {}), ((x, "minmax"), {}), ((x,), {"method": "minmax"}),
                             ((x, "zscore"), {"axis": 0}), ((x, "minmax"), {"axis": -2})]:
            _same(f(*args, **kwargs), normalize_by(*args, **kwargs))
    with pytest.raises(fusejit.JITException, match="ValueError: unknown method"):
        f(x, "median")
    assert f.graph_for(x, "minmax").inputs[0].debug_name == "x"   # the string is no input


def affine_by(x, coeffs):
    out = np.zeros(x.shape)
    for k, c in enumerate(coeffs):
        out = out + c * x ** k
    return out, x * coeffs[0] + min(x.shape)     # (the min of a 1-tuple: its item)


def test_tuples_of_numbers_are_constants_of_the_signature():
    """``coeffs=(1, 2)`` is scripted as a constant keyed by its values and their types:
    ``(1, 2)`` and ``(1.0, 2.0)`` are equal, but give int64 and float64 as in NumPy."""
    f = fusejit.jit(affine_by)
    x = np.arange(-2, 3)
    for coeffs in [(1, 2), (1.0, 2.0), (True, 0.5, 3)]:    # (each scripted once)
        _same(f(x, coeffs), affine_by(x, coeffs))
    with pytest.raises(fusejit.FusejitError, match="argument 'coeffs': a tuple"):
        f(x, (1, "a"))


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def test_a_parameter_once_a_constant_may_take_an_array():
    """A parameter scripted as a constant for one call (a tuple of numbers, a list) may take
    an array in another: that call is a signature of its own (the array an input), and each
    kind of argument keeps its own, in any order, with NumPy's values (an array there had
    made the key unhashable: a TypeError from inside fusejit)."""
    f = fusejit.jit(horner)
    x = np.linspace(-2.0, 2.0, 50)
    calls = [(2.0, -3.0), np.array([2.0, -3.0]), [5.0], np.array([1.0, 2.0, 3.0]), (1, 2),
             np.arange(4).astype(np.float32), [1.0, 2.0], [1, 2.0], (np.nan, 1.0), [2.0, -3.0]]
    for _ in range(3):      # (the later calls through the fast call, which tests each number)
        for coeffs in calls:
            _same(f(coeffs, x), horner(coeffs, x))
    # (six constants, (2.0, -3.0) and [2.0, -3.0] one; float64 and float32 vectors)
    assert len(f._specialised) == 8


def test_a_constant_tuple_holding_a_nan_is_one_signature():
    """A NaN equals nothing, not even itself: a tuple of numbers holding a new NaN object at
    each call is still one signature (it had missed every key, and each call scripted and
    compiled anew), with NumPy's values."""
    f = fusejit.jit(horner)
    x = np.linspace(-2.0, 2.0, 20)
    for k in range(4):
        coeffs = (float("nan") if k % 2 else float(np.float64(np.nan)), 1.0, 2.0)
        _same(f(coeffs, x), horner(coeffs, x))
    assert len(f._specialised) == 1


_CHAIN_IR = """graph(%a : Double(*, *), %b : Double(*, *), %c : Double(*, *)):
  %one : int = prim::Constant[value=1]()
  %p : Double(*, *) = aten::mul(%a, %b)
  %s : Double(*, *) = aten::add(%p, %c, %one)
  %d : Double(*, *) = aten::sub(%a, %c, %one)
  %r : Double(*, *) = aten::mul(%s, %d)
  %w : Double(*, *) = aten::add_(%c, %one, %one)
  %q : Double(*, *) = aten::mul(%r, %b)
  %t : Double(*, *) = aten::add(%d, %w, %one)
  return (%q, %t)
"""


def _written_between(a, b):
    p = a * b
    a += b            # p was read before: computing it at its reader would see a updated
    return p + a, np.sqrt(np.abs(p * b - a))


def test_whole_graph_arrays_read_once_are_computed_in_their_readers_expression():
    """Numba makes one loop and one array of an expression of NumPy operators, but one per
    statement: a whole-graph function writes an array read once, with no write between, into
    its reader's expression (``p`` and ``s`` into ``r``'s); ``d`` (read twice) and ``r`` (read
    after ``c`` is written) keep their own statements."""
    from fusejit.runtime.element_function import element_source

    source = element_source(fusejit.parse_ir(_CHAIN_IR))
    body = source[source.index("def element_fn"):].splitlines()[1:]
    # (each statement's array expression; where its arrays are contiguous and of one shape
    # it is also computed over their elements in a row, ``_flattened``)
    assigned = [line.strip() for line in body if re.match(r" +v\d+ = \(", line)
                and "ascontiguousarray" not in line]
    assert len(assigned) == 4, source       # d, r, q, t
    assert re.fullmatch(r"v\d+ = \(+v0 \* v1\)+ \+ v2\)+ \* v\d+\)", assigned[1]), source
    write = next(i for i, line in enumerate(body) if "+=" in line)
    lines = [line.strip() for line in body]
    assert lines.index(assigned[1]) < write < lines.index(assigned[2])
    rng = np.random.default_rng(11)
    fn = fusejit.jit(_written_between)
    for _ in range(3):
        a, b = rng.random((2, 30, 20)) + 1.0
        got, want = fn(a.copy(), b), _written_between(a.copy(), b)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def cube_root_shifted(x):
    return np.abs(x) ** (1 / 3) + math.sqrt(2 / math.pi) * x


def fresh_zeros(x):
    z = np.zeros(3)
    return z + x


def test_arithmetic_on_literals_is_folded_but_arrays_are_made_each_call():
    """1 / 3 and math.sqrt(2 / pi) reach the fused kernel as constants (a constant exponent takes
    pow's short form); an array made from constants is still a new array on every call."""
    f = fusejit.jit(cube_root_shifted)
    x = np.linspace(-2, 2, 101, dtype=np.float32)
    _same(f(x), cube_root_shifted(x))
    graph = f.graph_for(x)
    (group,) = [n for n in graph.nodes() if n.kind.startswith("prim::FusionGroup")]
    assert [v.debug_name for v in group.inputs] == ["x"], str(graph)   # (no scalar operands)
    assert "aten::div" not in str(graph) and "aten::pow" in str(graph)
    g = fusejit.jit(fresh_zeros)
    y = np.ones(3)
    first = g(y)
    first[0] = 99.0
    assert g(y).tolist() == [1.0, 1.0, 1.0]


def _numbers_over_arrays(x, i, y):
    return 1.0857 / x, 3 / i, 2.5 / y, 1 / x, 1.0857 / np.maximum(x, 1e-9)


@pytest.mark.parametrize("n", [100, 100_000])
def test_a_number_divided_by_an_array_is_one_division(n):
    """``c / x`` is NumPy's one division (the weak number in x's dtype), not the reciprocal
    times c, which rounds twice: ``1.0857 / x`` of float32 was an ulp off in a quarter of the
    elements. Compiled whole (small) and in a fused kernel (big), NumPy's bits both ways."""
    rng = np.random.default_rng(4)
    x = rng.gamma(2.0, 3.0, n).astype(np.float32)
    i = rng.integers(1, 1000, n)
    y = rng.standard_normal(n)
    fn = fusejit.jit(_numbers_over_arrays)
    for _ in range(3):
        for got, want in zip(fn(x, i, y), _numbers_over_arrays(x, i, y), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def heun_in_place(x, v, w2, c, dt, steps):
    x = x.copy()
    v = v.copy()
    amp = np.abs(x)
    a1 = np.empty_like(x)
    xp = np.empty_like(x)
    vp = np.empty_like(x)
    for k in range(steps):
        np.multiply(c, v, out=a1)
        a1 += w2 * x
        np.subtract(np.cos(k * dt), a1, out=a1)
        np.multiply(v, dt, out=xp)
        xp += x
        np.multiply(a1, dt, out=vp)
        vp += v
        x += (0.5 * dt) * vp
        v += (0.5 * dt) * a1
        np.maximum(amp, np.abs(x), out=amp)
    return x, v, amp


# (the loop's one group and its shape checks are the graph's at any size; 100 elements run
# the group's kernel on the first call, interpreted, and the whole form after it)
@pytest.mark.parametrize("n", [100, pytest.param(5000, marks=pytest.mark.exhaustive)])
def test_a_loop_of_out_updates_is_one_fused_group_past_its_shape_checks(n):
    """The frontend checks each ``out=`` target's shape against the operands with an ``if``
    that raises, between a producer and its consumer: the fuser moves pure nodes past it (as
    PyTorch's does), so the loop body's pointwise work is one kernel (set K's driven
    oscillators, 10^5 float64: 0.92x NumPy before, 5.3x after), and the checks still run."""
    f = fusejit.jit(heun_in_place)
    r = np.random.default_rng(5)
    x, v, w2, c = (r.normal(size=n) for _ in range(4))
    for steps in (3, 4, 3):
        want = heun_in_place(x.copy(), v.copy(), w2, c, 0.01, steps)
        _same(f(x.copy(), v.copy(), w2, c, 0.01, steps), want)
    (loop,) = [node for node in f.graph_for(x, v, w2, c, 0.01, 3).nodes()
               if node.kind == "prim::Loop"]
    body = list(loop.blocks[0].nodes())
    groups = [node for node in body if node.kind.startswith("prim::FusionGroup")]
    assert len(groups) == 1, str(loop)
    assert any(node.kind == "prim::If" for node in body)         # (the shape checks)

    with pytest.raises(fusejit.FusejitError, match="does not have the array's shape"):
        f(x.copy(), v.copy(), w2, c[:-1], 0.01, 3)      # (NumPy: a ValueError too)
