"""fusejit.script: the IR it emits for each construct, checked against hand-derived TorchScript
forms (kinds, input types, block structure, names, source locations)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import fusejit
from fusejit import ops as F
from fusejit.frontend import script
from fusejit.frontend.script import INT64_MAX
from fusejit.ir import constant_value, lint
from fusejit.ir.types import BOOL, FLOAT, INT, TENSOR, ListType


def kinds(graph_or_block, constants=False):
    nodes = graph_or_block.nodes()
    return [n.kind for n in nodes if constants or n.kind != "prim::Constant"]


def const(value):
    """The Python value of a value produced by a prim::Constant."""
    assert value.node.kind == "prim::Constant", value.node
    return constant_value(value.node)


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def test_lstm_cell_matches_torchscript_form():
    g = script(lstm_cell)
    lint(g)
    assert kinds(g) == [
        "aten::t", "aten::matmul", "aten::t", "aten::matmul", "aten::add", "aten::add",
        "aten::add", "aten::chunk", "prim::ListUnpack", "aten::sigmoid", "aten::mul",
        "aten::sigmoid", "aten::tanh", "aten::mul", "aten::add", "aten::sigmoid", "aten::tanh",
        "aten::mul"]
    assert [v.type for v in g.inputs] == [TENSOR] * 7
    assert len(g.outputs) == 2 and g.outputs[1].debug_name == "cy"
    for n in g.nodes():
        if n.kind == "aten::add":
            assert const(n.input(2)) == 1 and n.input(2).type == INT
        if n.kind == "aten::chunk":
            assert (const(n.input(1)), const(n.input(2))) == (4, 1)
            assert n.output().type == ListType(TENSOR)
    unpack = next(n for n in g.nodes() if n.kind == "prim::ListUnpack")
    assert [v.debug_name for v in unpack.outputs] == ["i", "f", "g", "o"]


def test_chunk_canonicalises_to_constant_chunk():
    from fusejit.passes import canonicalize_graph_fuser_ops

    g = script(lstm_cell)
    canonicalize_graph_fuser_ops(g)
    chunk = [n for n in g.nodes() if n.kind == "prim::ConstantChunk"]
    assert len(chunk) == 1 and chunk[0].i("chunks") == 4 and chunk[0].i("dim") == 1
    assert "aten::chunk" not in kinds(g)


def located(x):
    y = np.exp(x)
    return y * 2.0


def test_source_ranges_point_at_the_python_expression():
    g = script(located)
    lines, first = inspect.getsourcelines(located)
    exp, mul = (n for n in g.nodes() if n.kind != "prim::Constant")
    assert exp.source_range.file == __file__
    assert (exp.source_range.line, exp.source_range.col) == (first + 1, lines[1].index("np.exp"))
    assert (mul.source_range.line, mul.source_range.col) == (first + 2, lines[2].index("y * 2"))


def renamed(x):
    x = x + 1
    x = x * 2
    return x


def test_debug_names_follow_variables_and_are_uniqued():
    g = script(renamed)
    add, mul = (n for n in g.nodes() if n.kind != "prim::Constant")
    assert mul.output().debug_name == "x"
    assert add.output().debug_name.startswith("x.") and g.inputs[0].debug_name.startswith("x.")
    assert len({g.inputs[0].debug_name, add.output().debug_name, "x"}) == 3


def scalar_params(x, n: int, p: float, flag: bool):
    m = n + 1
    q = n / 2
    r = x * p + m
    return r, q, flag


def test_annotations_and_scalar_ops():
    g = script(scalar_params)
    assert [v.type for v in g.inputs] == [TENSOR, INT, FLOAT, BOOL]
    nodes = [n for n in g.nodes() if n.kind != "prim::Constant"]
    assert [(n.kind, n.output().type) for n in nodes] == [
        ("aten::add", INT), ("aten::div", FLOAT), ("aten::mul", TENSOR), ("aten::add", TENSOR)]
    assert [v.type for v in g.outputs] == [TENSOR, FLOAT, BOOL]


def scalar_on_left(x):
    a = 2.0 * x
    b = 1 - x
    c = 1 / x
    d = 2 ** x
    return a, b, c, d


def test_scalar_on_the_left_uses_torchscript_builtins():
    g = script(scalar_on_left)
    # (1 / x is the reciprocal; c / x another number's one division, NumPy's)
    assert kinds(g) == ["aten::mul", "aten::neg", "aten::add", "aten::reciprocal", "aten::pow"]
    mul = next(g.nodes().__iter__())
    while mul.kind != "aten::mul":
        mul = mul.next
    assert mul.input(0) is g.inputs[0] and const(mul.input(1)) == 2.0
    pow_ = [n for n in g.nodes() if n.kind == "aten::pow"][0]
    assert pow_.input(0).type == INT and pow_.input(1) is g.inputs[0]


def reductions(x, y):
    s = x.sum(axis=1, keepdims=True)
    t = np.sum(x)
    r = x.reshape(2, -1)
    e = x[1]
    k = x.shape[0]
    c = np.concatenate([x, y], axis=1)
    w = np.where(x > y, x, 0.5)
    m = np.clip(x, -1.0, 1.0)
    mx = np.maximum(x, y)
    mz = np.maximum(x, 0.0)
    return s, t, r, e, k, c, w, m, mx, mz


def test_numpy_functions_map_to_aten_ops():
    g = script(reductions)
    nodes = {n.output().debug_name: n for n in g.nodes()
             if n.kind != "prim::Constant" and len(n.outputs) == 1}
    s = nodes["s"]
    assert s.kind == "aten::sum" and const(s.input(1)) == [1] and const(s.input(2)) is True
    assert s.input(3).type.__class__.__name__ == "NoneType"
    assert nodes["t"].kind == "aten::sum" and len(nodes["t"].inputs) == 2
    assert nodes["r"].kind == "aten::reshape" and const(nodes["r"].input(1)) == [2, -1]
    e = nodes["e"]
    assert e.kind == "aten::select" and (const(e.input(1)), const(e.input(2))) == (0, 1)
    assert nodes["k"].kind == "aten::size" and nodes["k"].output().type == INT
    c = nodes["c"]
    assert c.kind == "aten::cat" and c.input(0).node.kind == "prim::ListConstruct"
    assert list(c.input(0).node.inputs) == list(g.inputs) and const(c.input(1)) == 1
    w = nodes["w"]
    assert w.kind == "aten::where" and w.input(0).node.kind == "aten::gt"
    assert w.input(2).node.kind == "prim::Constant" and w.input(2).type.rank == 0
    assert nodes["m"].kind == "aten::clamp"
    assert [const(v) for v in nodes["m"].inputs[1:]] == [-1.0, 1.0]
    assert nodes["mx"].kind == "aten::max" and nodes["mx"].input(1) is g.inputs[1]
    assert nodes["mz"].kind == "aten::clamp" and const(nodes["mz"].input(2)) is None


def branches(x, flag: bool):
    a = x * 2
    if flag:
        b = np.exp(a)
        c = 1
    elif a.sum() > 0:
        b = a
        c = 2
    else:
        b = -a
        c = 3
    return b * c


def test_if_elif_else_blocks_return_assigned_values():
    g = script(branches)
    lint(g)
    outer = [n for n in g.nodes() if n.kind == "prim::If"]
    assert len(outer) == 1
    outer = outer[0]
    assert outer.input(0) is g.inputs[1]
    assert [v.type for v in outer.outputs] == [TENSOR, INT]
    assert [v.debug_name for v in outer.outputs] == ["b", "c"]
    then, orelse = outer.blocks
    assert kinds(then) == ["aten::exp"] and len(then.outputs) == 2
    assert kinds(orelse) == ["aten::sum", "aten::gt", "aten::Bool", "prim::If"]
    inner = [n for n in orelse.nodes() if n.kind == "prim::If"][0]
    assert orelse.outputs == inner.outputs
    assert inner.blocks[0].outputs[0] is [n for n in g.nodes() if n.kind == "aten::mul"][0].output()


def counted(x, y, n: int):
    for t in range(n):
        tmp = x * t
        y = y + tmp
    return y


def test_for_range_is_a_loop_with_trip_count_and_true_condition():
    g = script(counted)
    loop = [n for n in g.nodes() if n.kind == "prim::Loop"][0]
    assert loop.input(0) is g.inputs[2] and const(loop.input(1)) is True
    assert len(loop.inputs) == 3 and loop.input(2) is g.inputs[1]  # only y is carried
    body = loop.blocks[0]
    assert body.inputs[0].type == INT and body.inputs[0].debug_name == "t"
    assert body.outputs[0] is loop.input(1) and len(body.outputs) == 2
    assert g.outputs[0] is loop.output()


def waiting(x):
    k = 0
    while x.sum() < 100.0:
        x = x * 2
        k = k + 1
    return x, k


def test_while_is_a_loop_with_max_trip_count_and_condition():
    g = script(waiting)
    loop = [n for n in g.nodes() if n.kind == "prim::Loop"][0]
    assert const(loop.input(0)) == INT64_MAX
    assert loop.input(1).node.kind == "aten::Bool"  # tensor condition, converted
    body = loop.blocks[0]
    assert body.outputs[0].node.kind == "aten::Bool" and body.outputs[0].node.owning_block is body
    assert [v.type for v in loop.outputs] == [TENSOR, INT]


def helper(a, scale=2.0):
    return a * scale, a - 1


def uses_helper(x):
    p, q = helper(x)
    r, _ = helper(q, scale=3)
    return p + r


def test_helpers_are_inlined_with_their_own_locations():
    g = script(uses_helper)
    assert kinds(g) == ["aten::mul", "aten::sub", "aten::mul", "aten::sub", "aten::add"]
    _, first = inspect.getsourcelines(helper)
    mul = next(n for n in g.nodes() if n.kind == "aten::mul")
    assert mul.source_range.line == first + 1
    second = [n for n in g.nodes() if n.kind == "aten::mul"][1]
    assert const(second.input(1)) == 3


def early_return(x, n: int):
    if n > 2:
        return x * 2, n
    y = x + 1
    return y, n + 1


def test_return_inside_if_moves_the_rest_into_the_else_branch():
    g = script(early_return)
    top = kinds(g)
    assert top == ["aten::gt", "prim::If"]
    node = [n for n in g.nodes() if n.kind == "prim::If"][0]
    assert list(g.outputs) == list(node.outputs) and [v.type for v in g.outputs] == [TENSOR, INT]
    assert kinds(node.blocks[1]) == ["aten::add", "aten::add"]


def stepped(n: int):
    total = 0
    for i in range(1, n, 3):
        total = total + i
    return total


def test_range_with_start_and_step_computes_the_trip_count():
    g = script(stepped)
    loop = [n for n in g.nodes() if n.kind == "prim::Loop"][0]
    assert loop.input(0).node.kind == "aten::floordiv"
    body = loop.blocks[0]
    assert kinds(body) == ["aten::mul", "aten::add", "aten::add"]


def test_the_undecorated_function_is_untouched():
    x = np.arange(4, dtype=np.float32)
    script(located)
    np.testing.assert_array_equal(located(x), np.exp(x) * 2.0)


def _as_float(x):
    if x.dtype != np.float32 and x.dtype != np.float64:
        x = x.astype(np.float64)
    return np.trunc(x).dtype == np.float64, x.dtype == np.float32 or x.ndim > 5


def test_dtype_tests_and_their_and_or_are_decided_while_scripting():
    """``x.dtype != np.float32 and x.dtype != np.float64`` is known while scripting: the if
    keeps one branch, so the array after it has a known dtype (a runtime if joined an int64
    and a float64 array into one of no dtype, whose .dtype was refused)."""
    for x, want in ((np.arange(3), (True, False)), (np.ones(2, np.float32), (False, True)),
                    (np.ones(2), (True, False))):
        got = fusejit.jit(_as_float)(x)
        assert tuple(map(bool, got)) == want == _as_float(x)


def newton_until_close(a, tol):
    x = a.copy()
    it = 0
    while True:                             # (ends only by returning)
        x_new = 0.5 * (x + a / x)
        it += 1
        if np.max(np.abs(x_new - x)) < tol or it > 100:
            return x_new, it
        x = x_new


def first_above(x, t):
    for i in range(len(x)):
        if x[i] > t:
            return i
    return -1


def find_in_grid(m, target):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):         # (out of both loops)
            if m[i, j] == target:
                return i, j
    return -1, -1


def sum_until_negative(x):
    s = 0.0
    for v in x:
        if v < 0:
            return s
        s += v
    s = s * 2
    return s


def squares_by_a_helper(x):
    total = 0.0
    for i in range(3):
        def square(v):          # (its return is its own, not the loop's)
            return v * v
        total += square(x[i])
    return total


def test_returns_inside_loops_end_the_function_as_python_does():
    """A ``return`` inside a loop (nested loops, ``while True``, code after the loop) is
    TorchScript's exit transform: the value stored, a flag set, breaks out of every loop, and
    the return after them; a loop that never runs or never returns goes on to what follows."""
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 5.0, 50)
    grid = np.arange(12.0).reshape(3, 4)
    cases = [(newton_until_close, a, 1e-12), (first_above, a, 4.0), (first_above, a, 9.0),
             (first_above, a[:0], 1.0), (find_in_grid, grid, 7.0), (find_in_grid, grid, 70.0),
             (find_in_grid, grid[:0], 1.0), (sum_until_negative, np.array([1.0, 2.0, -1.0])),
             (sum_until_negative, np.array([1.0, 2.0])), (squares_by_a_helper, a)]
    for fn, *args in cases:
        f = fusejit.jit(fn)
        want = fn(*args)
        for _ in range(3):                  # (the interpreter, then the whole-graph function)
            got = f(*args)
            assert type(got) is type(want)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert type(g) is type(w) and np.array_equal(g, w), (fn.__name__, got, want)
    loop = next(n for n in script(first_above).nodes() if n.kind == "prim::Loop")
    assert len(loop.outputs) >= 2       # (the flag and the value leave the loop)


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def test_a_list_of_numbers_is_a_constant_of_the_call():
    """A list of Python numbers passed for a parameter is scripted as the tuple it holds
    (keyed by its values, as a tuple is); too long a list, or one of other things, is refused
    with what to pass instead."""
    f = fusejit.jit(horner)
    x = np.linspace(-1.0, 1.0, 7)
    for coeffs in ([1.0, -2.0, 0.5], [3, 1], [1.0, -2.0, 0.5], [[2.0][0], 4.0]):
        np.testing.assert_array_equal(f(coeffs, x), horner(coeffs, x))
    assert len(f._specialised) == 3         # (one signature per list of values)
    for bad in (list(range(300)), ["a"]):
        with pytest.raises(fusejit.FusejitError, match="argument 'coeffs'.*np.asarray"):
            f(bad, x)


def normal_cdfs(xs, mu, sigma):
    out = np.empty((2, len(xs)))
    for i, x in enumerate(xs):
        out[0, i] = 0.5 * (1.0 + math.erf((x - mu) / (sigma * math.sqrt(2.0))))
        out[1, i] = 0.5 * math.erfc(-(x - mu) / (sigma * math.sqrt(2.0)))
    return out, math.erf(mu), math.erfc(sigma)


def test_math_erf_and_erfc_of_numbers_are_pythons():
    """``math.erf`` / ``math.erfc`` of a number: the C library's, as Python's own, on the
    interpreter (its first call) and compiled (the later ones), to the last bit."""
    rng = np.random.default_rng(4)
    xs = np.concatenate([rng.standard_normal(2000) * 4.0,
                         [0.0, -0.0, 1e-300, 6.0, -6.0, 27.0, 30.0, np.inf, -np.inf, np.nan]])
    f = fusejit.jit(normal_cdfs)
    want = normal_cdfs(xs, 0.3, 1.7)
    for _ in range(3):
        got = f(xs, 0.3, 1.7)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] and all(type(g) is float for g in got[1:])


def dots(x, y, i, f32):
    return (np.dot(x, y), np.dot(x[::-1], y), np.dot(i, i), np.dot(i, x[:5]), np.dot(f32, f32),
            np.dot(x > 0, y > 0), np.dot(x[::2], y[::2]))


def test_np_dot_of_vectors_is_numpys_product():
    """``np.dot`` of float vectors is the product NumPy's BLAS computes (``ddot``, as ``x @ y``),
    not a sum of the products in NumPy's pairwise order (it differed in the last bits); of
    integer and bool vectors, the sum of the products in their dtype."""
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal(1001), rng.standard_normal(1001)
    args = (x, y, np.arange(5), x.astype(np.float32))
    f = fusejit.jit(dots)
    want = dots(*args)
    for _ in range(3):      # (the interpreter, then the whole-graph function)
        got = f(*args)
        for g, w in zip(got, want):
            assert type(g) is type(w) and g == w


def horner_by_index(coeffs, x):
    r = np.zeros_like(x)
    for i in range(len(coeffs)):
        r = r * x + coeffs[i]       # (an index known when the loop runs)
    return r


def test_a_tuple_of_numbers_indexed_by_a_loop_variable():
    """A tuple (or a list argument) of numbers of one type indexed by an int known only when
    it runs reads the list of them: Python's number, weak beside arrays (float32 stays
    float32); a mix of types is refused, saying to make an array."""
    f = fusejit.jit(horner_by_index)
    x = np.linspace(-1.0, 1.0, 7, dtype=np.float32)
    for coeffs in ([1.5, -2.0, 0.25], (3, 1, 4), [2.0]):
        got, want = f(coeffs, x), horner_by_index(coeffs, x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(fusejit.ScriptError, match="numbers of one type"):
        f([1, 2.5], x)
