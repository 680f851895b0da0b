"""Scripted and traced graphs run through the executor and compared with running the plain
Python function in NumPy: same dtype, same shape, same values."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import ops as F
from fusejit.frontend import jit, script, trace
from fusejit.oplib.dtypes import DEFAULT_FLOAT, result_type
from fusejit.runtime.executor import compile

RNG = np.random.default_rng(7)


def arr(*shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def check_same(got, want):
    got, want = as_tuple(got), as_tuple(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            assert isinstance(g, np.ndarray), type(g)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
        else:
            assert type(g) is type(w) and g == pytest.approx(w)


# -- functions without data-dependent control flow: scripted AND traced ----------------------


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def scalars_weak(x):
    return x * 0.5 + 1, 2.0 - x, 3 / (x * x + 1), x ** 2, -x


def compare_select(x, y):
    m = x > y
    return np.where(m, x, y), np.where(x < 0, 0.0, x), m, x == y


def clamps(x, y):
    return np.clip(x, -0.5, 0.5), np.maximum(x, y), np.minimum(x, 0.25), abs(x)


def shapes(x, y):
    c = np.concatenate([x, y], axis=1)
    a, b = np.split(c, 2, axis=1)
    s = c.sum(axis=1, keepdims=True) + np.sum(a, axis=0)[0]
    r = c.reshape(-1, 2)
    return s, r, b[1], x.T @ y


def helper(a, scale=2.0):
    return a * scale, a - 1


def with_helpers(x):
    p, q = helper(x)
    r, _ = helper(q, scale=3)
    return p + r


def intermediates(x, y):
    h = np.tanh(x) * y
    h = h + x
    out = np.log1p(np.abs(h)) - np.expm1(-np.abs(y))
    return out


UNARY = [np.exp, np.log1p, np.expm1, np.tanh, np.sin, np.cos, np.arctan, np.sqrt, np.abs,
         np.floor, np.ceil, np.negative, F.sigmoid, F.relu, F.rsqrt, F.erf, F.frac]

FIXED = [
    (lstm_cell, lambda: [arr(3, 10), arr(3, 20), arr(3, 20), arr(80, 10), arr(80, 20),
                         arr(80), arr(80)]),
    (scalars_weak, lambda: [arr(3, 4)]),
    (scalars_weak, lambda: [arr(5, dtype=np.float64)]),
    (compare_select, lambda: [arr(4, 3), arr(4, 3)]),
    (compare_select, lambda: [arr(4, 3, dtype=np.float64), arr(3, dtype=np.float64)]),
    (clamps, lambda: [arr(2, 6), arr(2, 6)]),
    (shapes, lambda: [arr(4, 3), arr(4, 5)]),
    (with_helpers, lambda: [arr(3, 3)]),
    (intermediates, lambda: [arr(6, 2), arr(6, 2)]),
]


@pytest.mark.parametrize("fn, make", FIXED, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                 enumerate(FIXED)])
@pytest.mark.parametrize("frontend", ["script", "trace"])
def test_graph_matches_plain_numpy(fn, make, frontend):
    inputs = make()
    graph = script(fn) if frontend == "script" else trace(fn, *inputs)
    check_same(compile(graph)(*inputs), fn(*inputs))


@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions(ufunc, dtype):
    def f(x):
        return ufunc(x) * 2

    x = arr(3, 5, dtype=dtype, low=0.1, high=3.0)
    check_same(compile(script(f))(x), f(x))
    check_same(compile(trace(f, x))(x), f(x))


PROMOTED = [(np.float32, np.float32), (np.float32, np.float64), (np.int64, np.int64),
            (np.int64, np.float32)]


# Each op on mixed dtypes compiles functions of its own (on one dtype, only int / int does): of
# those, sub and mul promote as add does, and ge as lt does.
@pytest.mark.parametrize("dtypes, op", [
    pytest.param(dtypes, op, id=f"dtypes{i}-{op}",
                 marks=[pytest.mark.exhaustive] if dtypes[0] != dtypes[1]
                 and op in ("sub", "mul", "ge") else [])
    for op in ["add", "sub", "mul", "div", "lt", "ge"] for i, dtypes in enumerate(PROMOTED)])
def test_binary_tensor_promotion(op, dtypes):
    fns = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "div": lambda a, b: a / b, "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b}
    x = arr(3, 4, dtype=dtypes[0], low=1, high=9)
    y = arr(3, 4, dtype=dtypes[1], low=1, high=9)
    # Untyped script (the IR path): the dtype PyTorch's promotion gives, where NumPy's differs
    # (int64 with float32 is float32, int / int is the default float).
    dtype = np.dtype(bool) if op in ("lt", "ge") else result_type(x, y)
    if op == "div" and dtype.kind != "f":
        dtype = DEFAULT_FLOAT
    want = fns[op](x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    check_same(compile(script(fns_script[op]))(x, y), want)
    # trace and jit are NumPy-spelled code: NumPy's own result, dtype included.
    check_same(compile(trace(fns[op], x, y))(x, y), fns[op](x, y))
    check_same(jit(fns_script[op])(x, y), fns[op](x, y))


def _add(a, b):
    return a + b


def _sub(a, b):
    return a - b


def _mul(a, b):
    return a * b


def _div(a, b):
    return a / b


def _lt(a, b):
    return a < b


def _ge(a, b):
    return a >= b


fns_script = {"add": _add, "sub": _sub, "mul": _mul, "div": _div, "lt": _lt, "ge": _ge}


# -- control flow (scripted only: the tracer freezes it) -------------------------------------


def nested(x, n: int, flag: bool):
    total = 0.0
    for t in range(n):
        if flag:
            x = x * 0.5 + t
        elif t % 2 == 0:
            x = np.tanh(x)
        else:
            x = x - 1
        total = total + t * 0.5
    return x, total


def doubling(x):
    k = 0
    while x.sum() < 100.0:
        x = x * 2
        k = k + 1
    return x, k


def stepped(x, lo: int, hi: int):
    acc = x
    for i in range(lo, hi, 3):
        acc = acc + i
    for j in range(hi, lo, -2):
        acc = acc * 1.0 - j
    return acc


def early(x, n: int):
    if n > 2:
        return x * 2, n
    y = x + 1  # noqa: F841 (a function without return gives None)
    return y, n + 1


def conditional_expr(x, y):
    big = x.sum() > y.sum() and x.shape[0] > 1
    z = x if big else y
    return z + 0, float(x.sum()), int(x.shape[1])


def dynamic_shapes(x, n: int, flag: bool):
    s = x.shape
    y = x.reshape(n, -1)
    if not flag:
        y = y * s[1]
    return y, s[0] + len(x), x.ndim


def chained(x, n: int, m: int):
    inside = 0 < n * 2 < m + 1 <= 10
    return x * 1.0 if inside and not n == m else x - 1.0


def returns_nothing(x):
    y = x + 1  # noqa: F841 (a function without return gives None)


CONTROL = [
    (dynamic_shapes, [arr(4, 3), 2, False]), (dynamic_shapes, [arr(4, 3), 6, True]),
    (returns_nothing, [arr(2)]),
    (chained, [arr(2), 1, 5]), (chained, [arr(2), 0, 5]), (chained, [arr(2), 3, 5]),
    (chained, [arr(2), 3, 10]), (chained, [arr(2), 2, 12]),
    (nested, [arr(2, 3), 4, True]), (nested, [arr(2, 3), 5, False]), (nested, [arr(3), 0, True]),
    (doubling, [np.ones((2, 2), np.float32)]), (doubling, [np.full(3, 50.0, np.float64)]),
    (stepped, [arr(4), 1, 11]), (stepped, [arr(4), 5, 2]), (stepped, [arr(4), -3, 3]),
    (early, [arr(3), 5]), (early, [arr(3), 1]),
    (conditional_expr, [arr(3, 2, low=1, high=2), arr(3, 2, low=-2, high=-1)]),
    (conditional_expr, [arr(3, 2, low=-2, high=-1), arr(3, 2, low=1, high=2)]),
]


@pytest.mark.parametrize("fn, inputs", CONTROL, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                     enumerate(CONTROL)])
def test_control_flow_matches_python(fn, inputs):
    check_same(compile(script(fn))(*inputs), fn(*inputs))


def frozen(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def test_trace_freezes_control_flow_and_warns():
    from fusejit.frontend.trace import TracerWarning

    positive = np.ones(3, np.float32)
    with pytest.warns(TracerWarning, match="frozen"):
        g = trace(frozen, positive)
    negative = -positive
    np.testing.assert_array_equal(compile(g)(negative), negative * 2)  # the recorded path
    np.testing.assert_array_equal(compile(script(frozen))(negative), negative - 1)


def inplace(x, y):
    x += y
    x *= 2.0
    return x


@pytest.mark.parametrize("frontend", ["script", "trace"])
def test_augmented_assignment_is_in_place(frontend):
    x, y = arr(3, 3), arr(3, 3)
    want = inplace(x.copy(), y)
    graph = script(inplace) if frontend == "script" else trace(inplace, x, y)
    assert [n.kind for n in graph.nodes() if n.kind != "prim::Constant"] == ["aten::add_",
                                                                               "aten::mul_"]
    check_same(compile(graph)(x.copy(), y), want)


# -- jit -------------------------------------------------------------------------------------


@jit
def jitted_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def test_jit_runs_fused_and_keeps_the_plain_function():
    inputs = FIXED[0][1]()
    check_same(jitted_cell(*inputs), jitted_cell.__wrapped__(*inputs))
    check_same(jitted_cell(*inputs), lstm_cell(*inputs))
    assert jitted_cell.__name__ == "jitted_cell"
    assert "aten::matmul" in str(jitted_cell.graph)
    fused = jitted_cell.graph_for(*inputs)
    assert any(n.kind == "prim::FusionGroup" for n in fused.nodes())
    dump = jitted_cell.code_for(*inputs)
    # typed by the call, the 2-D products are aten::mm
    assert "prim::FusionGroup" in dump and "aten::mm" in dump


@jit(device="cpu")
def with_defaults(x, scale: float = 2.0):
    return x * scale


def test_jit_binds_defaults_and_keywords():
    x = arr(4)
    check_same(with_defaults(x), x * 2.0)
    check_same(with_defaults(x, scale=3.0), x * 3.0)


def test_runtime_error_points_at_the_python_line():
    import inspect

    import fusejit

    @jit
    def bad(x, w):
        y = x * 2
        return y @ w

    _, first = inspect.getsourcelines(bad.__wrapped__)
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 3}:"):
        bad(np.ones((2, 3)), np.ones((4, 5)))
