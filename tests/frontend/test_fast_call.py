"""The generated fast ``__call__`` of a ``@fusejit.jit`` function (frontend/fastcall.py): it
must bind, dispatch and fail exactly as the general path and plain Python do."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import fusejit
from fusejit.frontend.fastcall import fast_call_source

from .numpy_programs import assert_same


def newton(a, x=1.0, *, steps=4):
    for _ in range(steps):
        x = x - (x * x - a) / (2 * x)
    return x


def halve(self, n):             # a parameter named like the generated code's own ``self``
    return self * 2 + n // 2


def divides(a, b):
    return a // b


def scale(x, s=2.0):
    return x * s


def _warm(fn, *args, **kwargs):
    for _ in range(3):          # interpreted, compiled whole, then the fast path
        out = fn(*args, **kwargs)
    return out


def test_fast_path_binds_positional_keyword_and_default_arguments():
    f = fusejit.jit(newton)
    _warm(f, 2.0)
    assert "_own_class" in type(f).__dict__          # the instance has its generated __call__
    for args, kwargs in [((2.0,), {}), ((2.0, 1.5), {}), ((2.0,), {"x": 3.0}),
                         ((), {"a": 9.0, "steps": 6}), ((2.0, 1.0), {"steps": 2}),
                         ((2,), {}), ((True,), {}), ((2.0, 1), {})]:
        assert_same(f(*args, **kwargs), newton(*args, **kwargs))
    assert inspect.signature(type(f).__call__).parameters["steps"].default == 4


def test_fast_path_keeps_each_signature_apart():
    f = fusejit.jit(halve)
    for args in [(3, 5), (3.0, 5), (True, 4), (3, 5.0), (7, 9)] * 3:
        assert_same(f(*args), halve(*args))
    assert set(f._specialised) >= {(int, int), (float, int), (bool, int), (int, float)}


def test_fast_path_errors_are_the_general_paths():
    f = fusejit.jit(newton)
    _warm(f, 2.0)
    with pytest.raises(fusejit.FusejitError, match="missing a required argument: 'a'"):
        f(x=1.0)
    with pytest.raises(fusejit.FusejitError, match="too many positional arguments"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(fusejit.FusejitError, match="argument 'x': a str is not supported"):
        f(1.0, "x")
    for g in (f, fusejit.jit(newton)):                # fast path, and general path
        with pytest.raises(fusejit.FusejitError,
                           match=r"newton\(\): got an unexpected keyword argument 'eps'"):
            g(1.0, eps=3)                              # as the plain function says it
        with pytest.raises(fusejit.FusejitError, match="unexpected keyword argument 'eps'"):
            g(1.0, steps=2, eps=3)


def test_compiled_scalar_errors_on_the_fast_path_come_from_the_interpreter():
    _, first = inspect.getsourcelines(divides)
    f = fusejit.jit(divides)
    assert _warm(f, 7, 2) == 3
    for _ in range(2):
        with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 1}:"):
            f(1, 0)
    assert f(9, 4) == 2


def test_fast_path_tests_array_dtype_and_rank():
    f = fusejit.jit(scale)
    for x in [np.arange(4.0), np.arange(4, dtype=np.float32), np.ones((2, 3)),
              np.arange(6, dtype=np.int64)] * 3:
        assert_same(f(x), scale(x))
        assert_same(f(x, s=3), scale(x, s=3))
    assert_same(f(np.float32(2.5)), scale(np.float32(2.5)))   # a NumPy scalar: 0-d, slow path
    with pytest.raises(fusejit.FusejitError, match="argument 'x': a list is supported when"):
        f(["1.0", "2.0"])       # after many fast calls: another type is still refused


def test_generated_text_holds_no_user_text():
    names: dict = {}
    text = fast_call_source(2, 1, 1, [((float, float, int), object())], names)
    assert "newton" not in text and "steps" not in text
    compile(text, "<test>", "exec")


def reduce_along(x, axis=0, keep=False):
    return x.sum(axis=axis, keepdims=keep)


def test_int_and_bool_arguments_used_as_axes_are_constants_of_the_signature():
    """``axis=-1`` as a parameter: scripted with the argument's value (JAX's static
    arguments); a call with another value is another signature, on the fast path too."""
    f = fusejit.jit(reduce_along)
    x = np.arange(12.0).reshape(3, 4)
    for args in [(x,), (x, 1), (x, -1, True), (x, 0, True), (x,), (x, 1)] * 3:
        assert_same(f(*args), reduce_along(*args))
    assert f._constant_params == (1, 2)
    assert len(f._specialised) == 4
    with pytest.raises(fusejit.FusejitError, match="axis must be a constant int"):
        f(x, 1.5)


def weighted(coeffs, x):
    return sum(c * x ** k for k, c in enumerate(coeffs))


def test_a_tuple_or_list_of_numbers_scripted_as_a_constant_takes_the_fast_call():
    """A short tuple of numbers (or a list of them, which the slow path makes that tuple) is a
    constant of its signature that the fast call tests number by number, each by type and
    value, the values globals of the text, not text; a longer one, another value, a NaN or
    a number of another type take the slow path, which keys it."""
    f = fusejit.jit(weighted)
    x = np.linspace(-1.0, 1.0, 9)
    for coeffs in [(0.5, 2.0), [0.5, 2.0], (1, 2), [1.0, 2], (0.5, np.nan)] * 3:
        assert_same(f(coeffs, x), weighted(coeffs, x))
    key = next(k for k in f._specialised if (0, (0.5, 2.0), (float, float)) in k)
    names: dict = {}
    text = fast_call_source(2, 2, 0, [(key, f._specialised[key])], names)
    assert "0.5" not in text and "2.0" not in text
    assert "type(a0[1]) is T_float" in text and sorted(
        v for k, v in names.items() if k.startswith("V0_0_")) == [0.5, 2.0]
    long = tuple(float(k) for k in range(12))
    assert_same(f(long, x), weighted(long, x))
    key = next(k for k in f._specialised if (0, long, (float,) * 12) in k)
    assert "a0[" not in fast_call_source(2, 2, 0, [(key, f._specialised[key])], {})


def smooth(x, a):
    return (x[1:] * a + x[:-1] * (1 - a)).sum(), x * 2.0


def test_array_fast_path_calls_the_compiled_entry_only_for_c_contiguous_small_arrays():
    """The entry point unboxes arrays as its signature's layout says: a strided view or an
    array over the size limit must take the wrapper (which Numba's dispatch or the fused
    interpreter serve), and still give NumPy's answer."""
    import importlib

    jit_module = importlib.import_module("fusejit.frontend.jit")  # (fusejit.jit: the decorator)
    f = fusejit.jit(smooth)
    base = np.arange(40.0)
    big = np.linspace(0.0, 1.0, jit_module.WHOLE_GRAPH_MAX_ELEMENTS + 2)
    for x in [base[:20], base[:20], base[::2], base[:20].copy(), base[1::3], big, base[:20]]:
        assert_same(f(x, 0.25), smooth(x, 0.25))
    run = f._specialised[next(iter(f._specialised))]
    assert run.max_elements == jit_module.WHOLE_GRAPH_MAX_ELEMENTS and run.post is not None
    names: dict = {}
    text = fast_call_source(2, 2, 0, [(next(iter(f._specialised)), run)], names)
    assert "a0.flags.c_contiguous" in text and "E0(" in text
    assert run.before is None and "B0()" not in text   # (no products: no thread rule to read)


def gram(x, w):
    return x @ w + 1.0


def test_fast_path_refreshes_the_blas_thread_rule_before_a_graph_with_products():
    """Compiled products read the thread rule ``blas.refresh`` measures (whether other cores
    are free): a whole-graph function with products calls it first, on its wrapper's path
    and on the fast path. (Nothing is compiled here: the dispatcher's overload is a stand-in.)"""
    from types import SimpleNamespace

    from numba.core import types

    from fusejit.frontend.jit import argument_ir_type
    from fusejit.frontend.script import script
    from fusejit.runtime import blas
    from fusejit.runtime.element_function import compile_element_graph

    x = np.ones((2, 2))
    graph = script(gram, [argument_ir_type("x", x), argument_ir_type("w", x)])
    run = compile_element_graph(graph, gram)
    assert run.before is blas.refresh
    matrix = types.Array(types.float64, 2, "C")
    stand_in = SimpleNamespace(compiled=SimpleNamespace(overloads={
        (matrix, matrix): SimpleNamespace(entry_point=gram)}), fallback=gram,
        before=run.before, written=(), post=None, max_elements=None)
    names: dict = {}
    key = ((x.dtype, 2), (x.dtype, 2))
    text = fast_call_source(2, 2, 0, [(key, stand_in)], names)
    assert names["B0"] is blas.refresh and text.index("B0()") < text.index("E0(")


def shift_in_place(x, k):
    x += 1.0
    x[1:] = x[:-1] * 2
    return x[k]


def test_fast_path_of_a_function_writing_its_argument_restores_it_on_failure():
    """The generated code copies a written argument, calls the entry, and on an error puts
    the copy back before the interpreter reruns (its located error; NumPy's final values).
    A read-only array never reaches the entry."""
    import inspect as _inspect

    _, first = _inspect.getsourcelines(shift_in_place)
    f = fusejit.jit(shift_in_place)
    for _ in range(3):
        x, want = np.arange(5.0), np.arange(5.0)
        assert_same(f(x, 2), shift_in_place(want, 2))
        np.testing.assert_array_equal(x, want)
    names: dict = {}
    key = next(iter(f._specialised))
    assert "COPYTO(a0, s0)" in fast_call_source(2, 2, 0, [(key, f._specialised[key])], names)
    x, want = np.arange(5.0), np.arange(5.0)
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 3}:"):
        f(x, 7)
    with pytest.raises(IndexError):
        shift_in_place(want, 7)
    np.testing.assert_array_equal(x, want)
    frozen = np.arange(5.0)
    frozen.flags.writeable = False
    with pytest.raises(fusejit.FusejitError):
        f(frozen, 2)
    np.testing.assert_array_equal(frozen, np.arange(5.0))


def scale_in_place(a, b):
    a += b
    a *= 2.0
    return a


def scale_and_total(a, b):
    a += b
    a *= 0.5
    return b * 3.0, a, a.sum()


def add_twice(a, b):
    a += b
    a -= b * b
    return a


def _text(f) -> str:
    key = next(iter(f._specialised))
    return fast_call_source(2, 2, 0, [(key, f._specialised[key])], {})


@pytest.mark.parametrize("fn", [scale_in_place, scale_and_total])
def test_arguments_written_in_place_come_back_as_themselves(fn):
    """An output that is an array argument (written in place) is left out of what the
    compiled function returns, and the caller's own object put back in its place
    (``function_source``'s ``passed``): on the fast path and on the wrapper's (a strided
    view), the same objects and values as NumPy's."""
    f = fusejit.jit(fn)
    for make in (lambda: (np.arange(6.0), np.linspace(0, 1, 6)),
                 lambda: (np.arange(12.0)[::2], np.linspace(0, 1, 6))):
        for _ in range(4):
            got_args, want_args = make(), make()
            got, want = f(*got_args), fn(*want_args)
            assert_same(got, want)
            np.testing.assert_array_equal(got_args[0], want_args[0])
            outs = got if isinstance(got, tuple) else (got,)
            wants = want if isinstance(want, tuple) else (want,)
            assert [o is got_args[0] for o in outs] == [w is want_args[0] for w in wants]
    run = f._specialised[next(iter(f._specialised))]
    assert run.rejoin is not None     # (compiled whole: the wrapper around its Numba function)
    outs = len(outs)
    assert run.rejoin(None if outs == 1 else tuple(range(outs - 1)), ("a", "b")) == (
        "a" if outs == 1 else (0, "a", 1))


def count_and_total(x):
    return np.count_nonzero(x == 0), x.sum()


def count_in_range(x, lo, hi):
    inside = (x >= lo) & (x < hi)
    return inside.sum(), np.count_nonzero(x == 0), inside


# (count_in_range's count and sums are NumPy scalars as count_and_total's are: an exhaustive case)
@pytest.mark.parametrize("fn, extra", [
    pytest.param(count_and_total, (), marks=pytest.mark.exhaustive), (count_in_range, (0, 10))])
def test_numpy_scalars_held_as_numbers_keep_their_type_on_every_call(fn, extra):
    """``np.count_nonzero(x)`` is a number in the graph, an ``np.int64`` in NumPy: every call
    (interpreted, compiled whole, the fast path) returns the same types as NumPy does."""
    f = fusejit.jit(fn)
    x = np.array([0, 1, 0, 3, 12, -2, 7])
    for _ in range(6):
        got, want = f(x, *extra), fn(x, *extra)
        assert [type(v) for v in got] == [type(v) for v in want]
        assert_same(got, want)


def test_a_call_that_raises_before_writing_copies_nothing_first():
    """``a += b; a *= 2.0`` can only raise before it writes ``a`` (the shapes), so no copy is
    made before a call; a failed call leaves ``a`` as it was and gives the interpreter's
    located error. A second in-place op with an array operand, or a sum after the write,
    keeps the copy (``raises_before_writes``)."""
    _, first = inspect.getsourcelines(scale_in_place)
    f = fusejit.jit(scale_in_place)
    _warm(f, np.arange(6.0), np.ones(6))
    assert ".copy()" not in _text(f) and "a0.flags.writeable" in _text(f)
    a = np.arange(6.0)
    with pytest.raises(fusejit.FusejitError, match=f"{__file__}:{first + 1}:"):
        f(a, np.ones(5))
    np.testing.assert_array_equal(a, np.arange(6.0))
    for fn in (add_twice, scale_and_total):
        g = fusejit.jit(fn)
        _warm(g, np.arange(6.0), np.ones(6))
        assert "s0 = a0.copy()" in _text(g) and "COPYTO(a0, s0)" in _text(g)
        a = np.arange(6.0)
        with pytest.raises(fusejit.FusejitError):
            g(a, np.ones(5))
        np.testing.assert_array_equal(a, np.arange(6.0))


def halve_then_abs(a, b, c):
    b /= 0.5
    t1 = np.abs(a) + c
    return b % (t1 * t1 + 1)


def scale_then_negate(a, b, c):
    a *= 3.0
    return -b + c


# (scale_then_negate's minus is an op of one operand after a write, as halve_then_abs's np.abs
# is: exhaustive cases)
@pytest.mark.parametrize("fn", [halve_then_abs,
                                pytest.param(scale_then_negate, marks=pytest.mark.exhaustive)])
@pytest.mark.parametrize("same", [False, True], ids=["apart", "one array twice"])
def test_a_write_of_an_argument_then_a_one_operand_op_runs_on_every_call(fn, same):
    """An argument written in place and then an op of one operand (``np.abs``, ``-``): the
    check of what follows the write (``raises_before_writes``) read an operand such an op does
    not have, so the second call raised IndexError and every later one AttributeError. Each
    call is compared with NumPy, the arguments too (``a`` and ``b`` one array or two)."""
    f = fusejit.jit(fn)
    for _ in range(3):
        made = [np.linspace(-3.0, 3.0, 37), np.linspace(-2.0, 2.0, 37),
                np.linspace(1.0, 2.0, 37)]
        if same:
            made[1] = made[0]
        mine = [made[0].copy(), None, made[2].copy()]
        mine[1] = mine[0] if same else made[1].copy()
        want = fn(*mine)
        got = f(*made)
        assert_same(got, want)
        for a, b in zip(made, mine):
            np.testing.assert_array_equal(a, b)


def soft(x, y):
    return np.exp(-x) * y + np.tanh(y)


def test_small_arrays_compiled_whole_take_the_vectorised_maps():
    """The whole-graph function of small arrays computes exp and tanh of an array through
    the vectorisable maps the fused kernels use (Numba's np.exp of an array is a libm call
    per element, ~10x slower), with NumPy's values."""
    f = fusejit.jit(soft)
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    y = np.linspace(0.5, -2, 50, dtype=np.float32)
    got = _warm(f, x, y)
    np.testing.assert_allclose(got, soft(x, y), rtol=2e-6, atol=1e-6)
    assert got.dtype == np.float32
    run = f._specialised[next(iter(f._specialised))]
    source = inspect.getsource(run.compiled.py_func)
    assert "_map_exp_float32(" in source and "_map_tanh_float32(" in source
    assert "np.exp(" not in source and "np.tanh(" not in source


@pytest.mark.parametrize("structure, count", [
    (None, 1), (None, 3), ((0,), 1), ((0, (1, 2)), 3), ([0, 1], 2), (((0,), [1, (2,)]), 3),
    ({"a": 0, "b": (1, 2)}, 3)])
def test_returned_values_are_shaped_as_the_general_loop_shapes_them(structure, count):
    """``_shaped`` writes its outputs' shaping out as text (``_written_shape``): the same
    nesting, types and NumPy scalars as the general loop over ``scalars``, for a 0-d array
    output, a number the graph holds and an output of a rank known only when it runs; a dict
    takes the general loop."""
    jit_module = importlib.import_module("fusejit.frontend.jit")

    def shaped(written):
        real = jit_module._written_shape
        jit_module._written_shape = real if written else (lambda *a: None)
        def fn(out):
            return out

        fn.graph_for = fn.code_for = None
        try:
            return jit_module._shaped(fn, structure, scalars, count)
        finally:
            jit_module._written_shape = real

    makes = [np.float64, np.int64, jit_module._scalar_if_0d]
    scalars = {i: makes[i % 3] for i in range(count) if i != 1}
    values = [np.array(2.5), 7, np.array(3.0), np.arange(3.0)][:count]
    out = values[0] if count == 1 else tuple(values)
    got, want = shaped(True)(out), shaped(False)(out)
    assert (jit_module._written_shape(structure, scalars, count) is None) == \
        isinstance(structure, dict)

    def same(g, w):
        assert type(g) is type(w)
        if isinstance(w, (tuple, list)):
            assert len(g) == len(w)
            for a, b in zip(g, w):
                same(a, b)
        elif isinstance(w, dict):
            assert g.keys() == w.keys()
            for k in w:
                same(g[k], w[k])
        else:
            np.testing.assert_array_equal(g, w)

    same(got, want)
    if structure is None and count == 1:
        assert type(got) is np.float64 and got == 2.5


def positives_and_total(x, y):
    return np.count_nonzero(x > 0), (x * y).sum()


def test_the_fast_call_runs_a_remembered_runner_itself():
    """Once the interpreter's function remembers a runner for C-contiguous arrays of a
    signature (``runtime/remembered.py``), the fast call is written again to call it (the
    same runner its dispatch would run: counted, timed, the same values); other arrays of the
    signature (strided views) still take the function's own path, and get its answers."""
    jit_module = importlib.import_module("fusejit.frontend.jit")
    n = jit_module.WHOLE_GRAPH_MAX_ELEMENTS * 4       # (beyond the whole-graph size)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, n))
    fn = fusejit.jit(positives_and_total)
    _warm(fn, x, y)
    runners = fn._compiled._remembered.runners
    assert len(runners) == 1
    written = type(fn).__call__.__globals__
    assert any(value is runner for value in written.values() for runner in runners.values())
    timings = next(iter(fn._compiled._timings.values()))
    before = timings.calls
    for args in ((x, y), (x[::2], y[::2]), (y, x)):
        assert_same(fn(*args), positives_and_total(*args))
        assert type(fn(*args)[0]) is np.int64
    assert timings.calls == before + 4      # (the strided calls: a plan of their own)


def minus_true(a, s):
    a -= True               # NumPy: a - 1, in a's dtype
    a -= s
    return a


def extremes_of_0d(a):
    return a.min(axis=-1, keepdims=True), a.max(axis=0), np.amax(a, axis=-1)


def products_of_0d(a):
    return np.prod(a, axis=-1), a.prod(axis=0, keepdims=True), np.prod(a * 2, axis=0)


def logicals_of_0d(a):
    return (np.any(a > 0, axis=-1, keepdims=True) * a, np.all(a > 5, axis=0),
            (a < 0).any(axis=-1))


def reversed_then_written(a):
    t = a[::-1]
    a += 1.0                # t, a view in NumPy, sees it
    return t


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_minus_a_bool_number_is_minus_one(dtype):
    """``a -= True`` raised aten's 'subtraction with a bool tensor' error on every call (the
    test that casts a bool operand compared the dtype to None with ``in``, which NumPy's
    dtype equality makes true)."""
    f = fusejit.jit(minus_true)
    for n in (37, 5000):
        for _ in range(3):
            a = np.arange(n).astype(dtype) + 3
            want = minus_true(a.copy(), True)
            assert_same(f(a, True), want)
            np.testing.assert_array_equal(a, want)


@pytest.mark.parametrize("fn", [extremes_of_0d, products_of_0d, logicals_of_0d])
def test_reductions_of_a_0d_array_along_its_axis_are_its_value(fn):
    """NumPy takes axis 0 (or -1) of a 0-d array: aten's amax raised AxisError, and np.prod
    was refused, saying the axis was out of bounds; so did np.any and np.all (fuzz seed
    484269). NumPy's values and types (an int32's product is an np.int64), every call."""
    f = fusejit.jit(fn)
    for a in (np.array(2.5), np.array(7, np.int64), np.array(3, np.int32)):
        for _ in range(3):
            assert_same(f(a), fn(a))


def test_a_reversed_view_returned_after_its_array_is_written_is_refused():
    """``t = a[::-1]; a += 1; return t``: t is a copy here (aten's flip), a view in NumPy;
    the write before the return made it stale, silently (the check of reversals took a
    function's result for no read). It is refused, naming the write."""
    f = fusejit.jit(reversed_then_written)
    with pytest.raises(fusejit.FusejitError, match="writes into an array after np.flip"):
        f(np.linspace(-1.0, 1.0, 37))


def numpy_ints_stored(b):
    b[b > 50] = np.int64(-2)        # NumPy casts a NumPy scalar as it casts arrays: 254
    b[0] = np.int32(-3)
    c = b.copy()
    c[...] = np.int64(300)          # 44
    return b, c


def test_a_numpy_integer_scalar_out_of_an_arrays_range_is_stored_wrapped():
    """``uint8_array[m] = np.int64(-2)`` stores 254 in NumPy (a Python int -2 raises
    OverflowError); fusejit raised the Python int's error for it, on every call."""
    f = fusejit.jit(numpy_ints_stored)
    for n in (37, 5000):
        for _ in range(3):
            b = (np.arange(n) % 100).astype(np.uint8)
            want = numpy_ints_stored(b.copy())
            assert_same(f(b), want)
            np.testing.assert_array_equal(b, want[0])


def scaled_exp(x, g, k):
    return np.exp(x) * g + k


def scaled_count(x, lo, flag):
    return np.count_nonzero(x > lo) if flag else x.sum() * lo


@pytest.mark.parametrize("fn, make", [
    (scaled_exp, lambda: (np.linspace(0.0, 1.0, 300, dtype=np.float32), np.float32(0.37),
                          np.float64(2.5))),
    (scaled_exp, lambda: (np.linspace(0.0, 1.0, 50), np.int8(-3), np.float32(0.5))),
    (scaled_count, lambda: (np.arange(20), np.int64(7), np.bool_(True))),
    (scaled_count, lambda: (np.arange(20, dtype=np.uint8), np.uint8(3), np.bool_(False))),
], ids=["float32-float64", "int8-float32", "int64-bool", "uint8-bool"])
def test_numpy_scalar_arguments_take_the_fast_call(fn, make, monkeypatch):
    """A NumPy scalar argument (``g = np.float32(0.37)``) is tested by its exact type in the
    fast call and passed on as the 0-d array the slow path makes of it: warm calls no longer
    bind, key and look up every time (5.9 us a call of ``np.exp(x) * g`` on 1000 float32,
    against NumPy's 1.3; 1.2 us now). Values and types are NumPy's on every call."""
    f = fusejit.jit(fn)
    args = make()
    for _ in range(3):
        got, want = f(*args), fn(*args)
        assert type(got) is type(want)
        assert_same(got, want)

    def refused(*_args):
        raise AssertionError("a warm call with NumPy scalars took the slow path")

    # (the slow path specialises a call with a NumPy scalar anew each time: jit._call_bound)
    monkeypatch.setattr(f, "_specialise", refused)
    for _ in range(2):
        assert_same(f(*args), fn(*args))
    # (a Python float where the signature has a np.float32 is another signature: slow path)
    monkeypatch.undo()
    other = tuple(a.item() if isinstance(a, np.generic) else a for a in args)
    assert_same(f(*other), fn(*other))
