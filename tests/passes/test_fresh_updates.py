"""``functionalize_fresh_updates``: a new array updated in place statement by statement (a
layer norm or softmax written for memory) becomes values, one row kernel, with NumPy's values
on every call; arrays someone else can see (a view, an argument) keep their updates; a read of
another name for the array sees the updates made before it; an update that would grow the array
still raises NumPy's error."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim

_IN_PLACE = {aten.add_, aten.sub_, aten.mul_, aten.div_, aten.copy_}


def _in_place(graph) -> list:
    return [n.kind for n in graph.all_nodes()
            if n.kind in _IN_PLACE or n.has_attribute("written_into")]


def layer_norm_in_place(x, gamma, beta, eps):
    y = x.copy()
    y -= y.mean(axis=-1, keepdims=True)
    var = np.square(y).mean(axis=-1, keepdims=True)
    var += eps
    np.sqrt(var, out=var)
    y /= var
    y *= gamma
    y += beta
    return y


def softmax_in_place(logits, t):
    z = logits / t
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def _same(got, want, rtol):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype, rows", [
    (np.float32, 3000), (np.float64, 3000),
    # (few rows: the same graphs' values, compiled whole as one Numba function, which other
    # tests of in-place updates compile too; 11 s of a cold suite's compiles in float32, 6 in
    # float64)
    pytest.param(np.float32, 8, marks=pytest.mark.exhaustive),
    pytest.param(np.float64, 8, marks=pytest.mark.exhaustive)])
def test_updates_of_a_new_array_are_one_row_kernel(dtype, rows):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((rows, 300)) * 3 + 1).astype(dtype)
    gamma, beta = rng.random(300).astype(dtype), rng.random(300).astype(dtype)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    for fn, args in ((layer_norm_in_place, (x, gamma, beta, 1e-5)),
                     (softmax_in_place, (x, 0.7))):
        f = fusejit.jit(fn)
        for _ in range(3):
            _same(f(*args), fn(*args), rtol)
        if rows == 3000:        # (small arrays compile whole, as one Numba function)
            graph = f.graph_for(*args)
            assert _in_place(graph) == []
            assert [n.kind for n in graph.nodes() if n.kind == prim.RowReductionGroup] == \
                [prim.RowReductionGroup]


def aliases_and_views(x):
    y = x.copy()
    other = y               # another name: reads after the update see it
    y += 1.0
    doubled = other * 2.0
    z = x.copy()
    view = z[::2]           # a view held: z keeps its update
    z *= 3.0
    w = x * 1.0
    before = w.sum()        # read before the update: the value before it
    w -= 5.0
    return doubled, view, w, before


def test_other_names_views_and_earlier_reads_keep_numpys_values():
    x = np.random.default_rng(1).standard_normal(20_000)
    f = fusejit.jit(aliases_and_views)
    for _ in range(3):
        _same(f(x), aliases_and_views(x), 1e-12)
    assert aten.mul_ in _in_place(f.graph_for(x))       # (the one a view holds)


def grows(x, w):
    y = x.copy()
    y *= w
    return y + 1.0


def grows_unreturned(x, w):
    y = x.copy()
    y *= w
    s = y.sum()         # (of the grown array: NumPy raised before)
    y += 1.0            # (the last value, not returned)
    return s


@pytest.mark.parametrize("fn", [grows, grows_unreturned])
@pytest.mark.parametrize("n", [5, 50_000])
def test_an_update_that_would_grow_the_array_still_raises(fn, n):
    """Also where the chain's last value is not returned: the shape check reads it, so the
    updates then stay in place (the check would be dead code), and NumPy's error comes."""
    x, w = np.ones((1, n)), np.ones((3, n))
    with pytest.raises(ValueError):
        fn(x, w)
    f = fusejit.jit(fn)
    for _ in range(3):
        with pytest.raises(fusejit.FusejitError):
            f(x, w)
    _same(f(w, x), fn(w, x), 1e-12)


def positive_copy(x):
    y = +x              # (np.positive: a new array)
    y += 1
    return y


def test_unary_plus_makes_a_new_array():
    x = np.zeros(4)
    f = fusejit.jit(positive_copy)
    for _ in range(3):
        np.testing.assert_array_equal(f(x), np.ones(4))
        np.testing.assert_array_equal(x, np.zeros(4))


def payoff(s, k, d):
    call = s * d
    call -= k * d           # (k: an array that might grow call: checked)
    np.maximum(call, 0.0, out=call)     # (its result unused: call still names the array)
    put = call - s
    return call, put


def test_a_chain_whose_last_value_is_read_by_its_name_is_values():
    """``np.maximum(call, 0, out=call)``'s result is unused and later reads name ``call``:
    they read the chain's last value, which the function returns, so the chain is values and
    its shape check stays; NumPy's values on every call."""
    rng = np.random.default_rng(4)
    s, k, d = (rng.random(50_000) for _ in range(3))
    f = fusejit.jit(payoff)
    for _ in range(3):
        _same(f(s, k, d), payoff(s, k, d), 1e-12)
    assert _in_place(f.graph_for(s, k, d)) == []
    with pytest.raises(fusejit.FusejitError):
        f(s[:1], np.ones((3, 50_000)), d[:1])


def sums_in_a_loop(x, a, b, c, steps):
    for _ in range(steps):
        acc = a * b         # (a map: its shape is a's and b's broadcast)
        acc += c            # (c might grow it)
        acc *= 0.5
        x += acc
    return x


def sums_at_top(a, b, c):
    acc = a * b
    acc += c
    acc *= 0.5
    return acc


@pytest.mark.parametrize("shapes, grows", [
    (((4, 6), (4, 6), (1, 6)), False),
    # (more broadcasts of the operands: the first case's and the third's checks)
    pytest.param(((4, 6), (1, 6), (4, 1)), False, marks=pytest.mark.exhaustive),
    (((4, 1), (1, 6), (4, 6)), False),     # (the broadcast of a and b is (4, 6))
    (((1, 6), (1, 6), (4, 6)), True),      # (c grows acc: NumPy raises)
    pytest.param(((4, 1), (4, 1), (4, 6)), True, marks=pytest.mark.exhaustive)])
def test_a_chain_on_a_map_is_checked_on_sizes_alone(shapes, grows):
    """A new array made by a map and updated by an operand that might grow it: the chain is
    values (in a loop's body too), and the check reads the sizes of the map's operands and of
    the update's, an ``if`` that raises, so the fused group writes no other array and the
    value goes straight on (``x += acc`` takes the group). Each call equals NumPy's, or
    raises where NumPy does."""
    rng = np.random.default_rng(18)
    a, b, c = (rng.standard_normal(s) for s in shapes)
    x_shape = np.broadcast_shapes(*shapes)
    for fn, args in ((sums_at_top, (a, b, c)), (sums_in_a_loop, (None, a, b, c, 3))):
        f = fusejit.jit(fn)
        for _ in range(3):
            call = args if fn is sums_at_top else (np.zeros(x_shape), *args[1:])
            if grows:
                with pytest.raises(ValueError):
                    fn(*(v.copy() if isinstance(v, np.ndarray) else v for v in call))
                with pytest.raises(fusejit.FusejitError, match="non-broadcastable"):
                    f(*call)
            else:
                want = fn(*(v.copy() if isinstance(v, np.ndarray) else v for v in call))
                _same(f(*call), want, 1e-12)
        graph = f.graph_for(*call)
        kinds = [n.kind for n in graph.all_nodes()]
        assert "fusejit::kept_shape" not in kinds
        groups = [n for n in graph.all_nodes() if n.kind.startswith("prim::FusionGroup")]
        assert groups and all(len(g.outputs) == 1 for g in groups), str(graph)
