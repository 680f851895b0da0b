"""The native engine against the reference engine, op by op: same dtype, same shape, same bits
(a documented ulp bound for libm functions, a rounding tolerance for mm and sum), the same error
when a native body refuses its operands; plus memory, threads and native coverage.

``host_calls == 2`` (Load and Store) shows that a graph ran natively from end to end.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import threading
import tracemalloc

import numpy as np
import pytest

from fusejit import InterpreterError, parse_ir
from fusejit.runtime.code import Code
from fusejit.runtime.interpreter import NativeInterpreter
from fusejit.runtime.native import pointwise as pw
from fusejit.runtime.native.opcodes import NativeOp
from fusejit.runtime.reference import InterpreterState
from tests.runtime.conftest import nrt_live

pytestmark = pytest.mark.usefixtures("nrt_balanced")

RNG = np.random.default_rng(7)


def run_both(text: str, *inputs):
    """(native outputs, reference outputs, native host calls) of one graph."""
    code = Code(parse_ir(text))
    native = NativeInterpreter(code)
    want = [x.copy() if isinstance(x, np.ndarray) else x for x in inputs]  # in-place ops
    got = list(inputs)
    native.run(got)
    InterpreterState(Code(parse_ir(text))).run(want)
    return got, want, native.host_calls


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w, strict=True)
        else:
            assert g == w or (g != g and w != w)


def errors_of(text: str, *inputs) -> tuple[str, str]:
    messages = []
    for state in (NativeInterpreter, InterpreterState):
        with pytest.raises(InterpreterError) as info:
            state(Code(parse_ir(text))).run(list(inputs))
        messages.append(str(info.value))
    return messages[0], messages[1]


def tensor(shape, dtype, layout="contiguous"):
    if dtype == np.bool_:
        a = RNG.random(shape) > 0.5
    elif np.dtype(dtype).kind == "i":
        a = RNG.integers(-50, 50, shape).astype(dtype)
    else:
        a = np.asarray(RNG.standard_normal(shape) * 4).astype(dtype)
    if layout == "transposed":
        return np.ascontiguousarray(a.T).T
    if layout == "strided":
        return np.repeat(a, 2, axis=-1)[..., ::2]
    return a


# -- pointwise --------------------------------------------------------------------------------

BINARY = """graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::{op}(%a, %b{extra})
  return (%y)
"""
OPERANDS = [  # (a, b, runs natively)
    (lambda: tensor((3, 4), np.float32), lambda: tensor((3, 4), np.float32), True),
    # a transposed operand: NumPy's result is not C-contiguous, so the host runs it
    (lambda: tensor((3, 4), np.float32, "transposed"), lambda: tensor((3, 4), np.float32,
                                                                      "strided"), False),
    (lambda: tensor((3, 4), np.float32, "strided"), lambda: tensor((3, 4), np.float64,
                                                                   "strided"), True),
    (lambda: tensor((3, 4), np.float32), lambda: tensor((4,), np.float64), True),
    (lambda: tensor((3, 1), np.float64), lambda: tensor((1, 5), np.float32), True),
    (lambda: tensor((3, 4), np.int64), lambda: tensor((3, 4), np.int64), True),
    (lambda: tensor((3, 4), np.int64), lambda: tensor((), np.float64), True),
    (lambda: tensor((2, 3), np.float32), lambda: tensor((), np.float64), True),
    (lambda: tensor((2, 3), np.bool_), lambda: tensor((2, 3), np.int64), True),
    (lambda: tensor((2, 3), np.int32), lambda: tensor((2, 3), np.int64), False),
]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min",
                                "eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("case", range(len(OPERANDS)))
def test_binary_tensor_ops_are_bit_exact(op, case):
    make_a, make_b, native = OPERANDS[case]
    a, b = make_a(), make_b()
    if op == "sub" and (a.dtype == np.bool_ or b.dtype == np.bool_):
        pytest.skip("bool subtraction is an error, tested below")
    extra = ", %one" if op in ("add", "sub") else ""
    got, want, calls = run_both(BINARY.format(op=op, extra=extra), a, b)
    assert_same(got, want)
    if native:
        assert calls == 2


SCALAR_OTHER = """graph(%a : Tensor, %s : {kind}):
  %alpha : {akind} = prim::Constant[value={alpha}]()
  %y : Tensor = aten::{op}(%a, %s, %alpha)
  %z : Tensor = aten::mul(%a, %s)
  %c : Tensor = aten::lt(%a, %s)
  return (%y, %z, %c)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("kind, value", [("float", 2.5), ("int", 3), ("float", -0.1)])
@pytest.mark.parametrize("op, akind, alpha", [("add", "int", 1), ("sub", "int", 2),
                                              ("add", "float", 0.5)])
def test_tensor_scalar_ops_promote_like_pytorch(dtype, kind, value, op, akind, alpha):
    a = tensor((5,), dtype)
    text = SCALAR_OTHER.format(kind=kind, akind=akind, alpha=alpha, op=op)
    if akind == "float" and dtype == np.int64 and kind == "int":
        native, reference = errors_of(text, a, value)  # float alpha for integer results
        assert "must not be a floating point number" in native
        assert native == reference
        return
    got, want, calls = run_both(text, a, value)
    assert_same(got, want)
    assert calls == 2


UNARY = """graph(%a : Tensor):
  %y : Tensor = aten::{op}(%a)
  return (%y)
"""


@pytest.mark.parametrize("op", ["neg", "abs", "relu", "floor", "ceil", "trunc", "round", "sqrt",
                                "rsqrt", "reciprocal", "exp", "log", "tanh", "sigmoid", "sin",
                                "cos"])
@pytest.mark.parametrize("dtype, layout", [(np.float32, "contiguous"), (np.float64, "contiguous"),
                                           (np.float32, "transposed"), (np.float32, "strided"),
                                           (np.int64, "contiguous")])
def test_unary_ops_match_within_documented_ulps(op, dtype, layout):
    a = tensor((40, 50), dtype, layout)
    if dtype != np.int64:
        a.flat[:6] = [0.5, 1.5, 2.5, -0.5, -0.0, np.nan]  # round half even, signed zero, nan
        if op in ("log", "sqrt", "rsqrt"):
            a = np.abs(a)
    got, want, calls = run_both(UNARY.format(op=op), a)
    # (a transposed operand: NumPy's result keeps its layout, so the host runs it)
    assert calls == (3 if layout == "transposed" else 2)
    code = NativeOp[op.upper()]
    (g,), (w,) = got, want
    assert g.dtype == w.dtype and g.shape == w.shape
    if code not in pw.ULP_BOUNDS:
        np.testing.assert_array_equal(g, w, strict=True)
    else:
        np.testing.assert_array_max_ulp(g, w, maxulp=pw.ULP_BOUNDS[code])


def test_float32_log_is_within_one_ulp_of_the_correctly_rounded_result():
    """The native log (libm's) near 1, where NumPy's own float32 log strays up to 3 ulp: the
    reason ``ULP_BOUNDS`` allows 4 between the two."""
    rng = np.random.default_rng(71)
    a = np.concatenate([rng.uniform(0.7, 1.4, 100_000), np.abs(rng.standard_normal(100_000)),
                        [1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0)]]).astype(np.float32)
    (got,), (want,), _ = run_both(UNARY.format(op="log"), a)
    exact = np.log(a.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_max_ulp(got, exact, maxulp=1)
    np.testing.assert_array_max_ulp(got, want, maxulp=pw.ULP_BOUNDS[NativeOp.LOG])


def test_bool_tensors_run_on_the_host_with_the_reference_error():
    native, reference = errors_of(UNARY.format(op="neg"), tensor((3,), np.bool_))
    assert "Negation" in native and native == reference


# -- scalars ----------------------------------------------------------------------------------

SCALAR = """graph(%a : {ta}, %b : {tb}):
  %y : {ty} = aten::{op}(%a, %b)
  return (%y)
"""
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


@pytest.mark.parametrize("op, ta, tb, ty, a, b", [
    ("add", "int", "int", "int", I64_MAX, 1),             # wraps as int64
    ("mul", "int", "int", "int", 1 << 40, 1 << 40),
    ("sub", "float", "int", "float", 0.5, 3),
    ("floordiv", "int", "int", "int", -7, 2),             # Python's floor
    ("remainder", "int", "int", "int", -7, 3),            # the divisor's sign
    ("remainder", "int", "int", "int", 7, -3),
    ("floordiv", "float", "float", "float", -7.5, 2.0),
    ("remainder", "float", "float", "float", -7.5, 2.0),
    ("div", "int", "int", "float", 1, 0),                 # IEEE inf
    ("div", "float", "float", "float", 0.0, 0.0),         # nan
    ("lt", "int", "float", "bool", (1 << 53) + 1, float(1 << 53)),  # exact int/float compare
    ("eq", "int", "int", "bool", 3, 3),
    ("ge", "float", "float", "bool", float("nan"), 1.0),
    ("min", "float", "float", "float", float("nan"), 1.0),
    ("max", "int", "int", "int", -4, 9),
    ("__and__", "bool", "bool", "bool", True, False),
    ("__or__", "bool", "bool", "bool", True, False),
])
def test_scalar_ops_match_python(op, ta, tb, ty, a, b):
    got, want, _ = run_both(SCALAR.format(op=op, ta=ta, tb=tb, ty=ty), a, b)
    assert_same(got, want)


@pytest.mark.parametrize("op, a, b", [("floordiv", 5, 0), ("remainder", 5, 0)])
def test_integer_division_by_zero_reports_like_the_reference(op, a, b):
    native, reference = errors_of(SCALAR.format(op=op, ta="int", tb="int", ty="int"), a, b)
    assert "ZeroDivisionError" in native and native == reference


def test_int_of_nan_reports_like_the_reference():
    text = "graph(%a : float):\n  %y : int = aten::Int(%a)\n  return (%y)\n"
    native, reference = errors_of(text, float("nan"))
    assert native == reference


# -- shapes, views, reductions, lists ---------------------------------------------------------

VIEWS = """graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %m1 : int = prim::Constant[value=-1]()
  %two : int = prim::Constant[value=2]()
  %f : bool = prim::Constant[value=0]()
  %t : Tensor = aten::t(%x)
  %s : Tensor = aten::select(%x, %one, %m1)
  %shape : int[] = prim::ListConstruct(%m1, %two)
  %r : Tensor = aten::reshape(%x, %shape)
  %sz : int[] = aten::size(%x)
  %d : int = aten::size(%x, %m1)
  %n : int = aten::numel(%x)
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=1](%x)
  %big : int[] = prim::ListConstruct(%two, %two, %m1)
  %e : Tensor = aten::expand(%s, %big, %f)
  %c : Tensor = aten::contiguous(%x, %zero)
  %v : Tensor = aten::view(%c, %shape)
  %k : int = aten::len(%sz)
  %g : int = aten::__getitem__(%sz, %zero)
  %p : int, %q : int = prim::ListUnpack(%sz)
  %u : Tensor = aten::sum(%x, %shape_none, %f, %none)
  return (%t, %s, %v, %r, %d, %n, %a, %b, %e, %c, %k, %g, %p, %q)
""".replace("  %u : Tensor = aten::sum(%x, %shape_none, %f, %none)\n", "")


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_views_and_shapes_match_the_reference(layout):
    x = tensor((4, 6), np.float32) if layout == "contiguous" else tensor((6, 4), np.float32).T
    got, want, calls = run_both(VIEWS, x)
    assert_same(got, want)
    if layout == "contiguous":
        assert calls == 2
        # views share memory with the input, as NumPy's do
        assert np.shares_memory(got[0], x) and np.shares_memory(got[6], x)
    assert not got[8].flags.writeable  # expand is a read-only broadcast view


def test_in_place_write_through_a_native_view_reaches_the_base():
    text = """graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %row : Tensor = aten::select(%x, %zero, %one)
  %w : Tensor = aten::add_(%row, %one, %one)
  return (%x, %w)
"""
    x = np.zeros((3, 2), np.float32)
    got, want, _ = run_both(text, x.copy())
    assert_same(got, want)
    np.testing.assert_array_equal(got[0], [[0, 0], [1, 1], [0, 0]])


COPY = """graph(%x : Tensor, %y : Tensor):
  %f : bool = prim::Constant[value=0]()
  %w : Tensor = aten::copy_(%x, %y, %f)
  return (%x, %w)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("src_shape", [(3, 4), (4,), (1, 4), ()])
def test_copy_runs_natively_into_the_callers_array(dtype, src_shape):
    x, y = tensor((3, 4), dtype), np.asarray(tensor(src_shape, dtype))
    x_native = x.copy()
    got, want, calls = run_both(COPY, x_native, y)
    assert calls == 2                     # Load and Store: copy_ ran in the loop
    assert_same(got, want)
    assert got[0] is x_native and got[1] is x_native   # self, written in place, is the output
    np.testing.assert_array_equal(x_native, np.broadcast_to(y, (3, 4)))


@pytest.mark.parametrize("case", ["cast", "overlap", "readonly", "strided", "bad_shape"])
def test_copy_leaves_what_it_cannot_do_exactly_to_the_host(case):
    x, y = tensor((3, 4), np.float32), tensor((3, 4), np.float32)
    if case == "cast":
        y = y.astype(np.float64)
    elif case == "overlap":
        base = tensor((4, 4), np.float32)
        x, y = base[:3], base[1:]         # two registers over one block of memory
    elif case == "readonly":
        x.flags.writeable = False
    elif case == "strided":
        x = tensor((3, 4), np.float32, "transposed")
    else:
        y = tensor((2, 4), np.float32)
    if case in ("readonly", "bad_shape"):
        native, reference = errors_of(COPY, x, y)
        assert native == reference
        return
    base_want = base.copy() if case == "overlap" else None
    got, want, calls = run_both(COPY, x, y)
    assert calls == 3                     # copy_ ran on the host
    if base_want is not None:             # run_both copied the reference's inputs apart
        np.copyto(base_want[:3], base_want[1:].copy())
        np.testing.assert_array_equal(base, base_want)
    else:
        assert_same(got, want)


FULL_LIKE = """graph(%x : Tensor, %fill : {kind}):
  %none : NoneType = prim::Constant()
  %dtype : {dtype_type} = prim::Constant{dtype_value}()
  %y : Tensor = aten::full_like(%x, %fill, %dtype, %none, %none, %none, %none)
  return (%y)
"""


@pytest.mark.parametrize("x_dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("kind, fill", [("float", 0.1), ("float", float("nan")), ("int", -7),
                                        ("int", 1 << 40), ("bool", True)])
@pytest.mark.parametrize("dtype", [None, 6, 7, 4, 11])   # ScalarType: float32 ... bool
def test_full_like_matches_the_reference(x_dtype, kind, fill, dtype):
    text = FULL_LIKE.format(
        kind=kind, dtype_type="NoneType" if dtype is None else "int",
        dtype_value="" if dtype is None else f"[value={dtype}]")
    x = tensor((2, 3), x_dtype)
    code = Code(parse_ir(text))
    try:
        want = [x, fill]
        InterpreterState(code).run(want)
    except InterpreterError as error:
        native, _ = errors_of(text, x, fill)
        assert native == str(error)
        return
    got, want, calls = run_both(text, x, fill)
    assert_same(got, want)
    target = np.dtype(x_dtype) if dtype is None else want[0].dtype
    exact = (target.kind == "f" and (kind == "float" or abs(fill) <= 1 << 24)) \
        or (target == np.int64 and kind in ("int", "bool")) \
        or (target == np.dtype(np.bool_) and kind == "bool")
    assert calls == (2 if exact else 3)   # natively exactly when the conversion is exact


EMPTY_LIKE = """graph(%x : Tensor, %src : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %dtype : {dtype_type} = prim::Constant{dtype_value}()
  %y : Tensor = aten::empty_like(%x, %dtype, %none, %none, %none, %none)
  %z : Tensor = aten::copy_(%y, %src, %false)
  return (%z)
"""


@pytest.mark.parametrize("x_dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("dtype", [None, 6, 7, 4, 11, 3])   # ScalarType: float32 ... int32
def test_empty_like_matches_the_reference(x_dtype, dtype):
    """``aten::empty_like`` (made by ``fuse_inplace_updates`` for an array written whole first):
    a new array of ``x``'s shape and the dtype asked for, natively for its four dtypes; filled
    here by a copy, whose values both loops must then agree on."""
    text = EMPTY_LIKE.format(
        dtype_type="NoneType" if dtype is None else "int",
        dtype_value="" if dtype is None else f"[value={dtype}]")
    x = tensor((2, 3), x_dtype)
    target = np.dtype(x_dtype) if dtype is None else np.dtype(
        {6: np.float32, 7: np.float64, 4: np.int64, 11: np.bool_, 3: np.int32}[dtype])
    src = tensor((3,), target)
    got, want, calls = run_both(text, x, src)
    assert_same(got, want)
    assert got[0].shape == (2, 3) and got[0].dtype == target
    # (int32 arrays are the host's: empty_like and copy_ run there, one call each)
    assert calls == (4 if target == np.int32 else 2)


REDUCE = """graph(%x : Tensor, %y : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %dims : int[] = prim::ListConstruct(%m1)
  %dims0 : int[] = prim::ListConstruct(%zero)
  %mm : Tensor = aten::mm(%x, %y)
  %s : Tensor = aten::sum(%x, %none)
  %s1 : Tensor = aten::sum(%x, %dims, %t, %none)
  %s0 : Tensor = aten::sum(%x, %dims0, %f, %none)
  return (%mm, %s, %s1, %s0)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("shape", [(3, 5), (17, 300)])
def test_mm_and_sum_match_within_rounding(dtype, shape):
    x = tensor(shape, dtype)
    y = tensor((shape[1], 4), dtype)
    got, want, calls = run_both(REDUCE, x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if dtype == np.int64:
            np.testing.assert_array_equal(g, w)
        else:  # summation order: a few ulp of the magnitudes added
            scale = np.abs(x).sum() * np.abs(y).max() if g is got[0] else np.abs(x).sum()
            np.testing.assert_allclose(g, w, rtol=0, atol=16 * np.finfo(dtype).eps * scale)
    assert calls == (2 if dtype != np.int64 else 3)  # integer mm runs on the host


@contextlib.contextmanager
def openblas_on_one_thread():
    """NumPy's OpenBLAS on one thread while the block runs (then its count as before): a
    float32 gemm's rounding depends on how many threads split it, and the host product picks
    its threads by the machine's load (``runtime/blas.py``), so bit-for-bit needs one count on
    both sides. Skips where NumPy's BLAS is not an OpenBLAS whose threads can be set."""
    from fusejit.runtime import blas
    found = blas.numpy_blas()
    if found is None or not found.pthreads:
        pytest.skip("NumPy's BLAS thread count cannot be set here")
    get = ctypes.CFUNCTYPE(ctypes.c_int)(found.addresses["openblas_get_num_threads"])
    put = ctypes.CFUNCTYPE(None, ctypes.c_int)(found.addresses["openblas_set_num_threads"])
    before = get()
    put(1)
    try:
        yield
    finally:
        put(before)


@pytest.mark.parametrize("transposed", [False, True])
def test_large_mm_runs_on_the_host_with_numpys_blas(transposed):
    """From HOST_MM_MACS multiply-adds on, the loop hands mm to the host (NumPy's matmul, the
    same BLAS as NumPy; a transposed operand is not copied): one more host call, and NumPy's
    result bit for bit when both run on the same number of BLAS threads."""
    from fusejit.runtime.native.tensor_ops import HOST_MM_MACS
    x = tensor((128, 256), np.float32)
    y = tensor((64, 256), np.float32).T if transposed else tensor((256, 64), np.float32)
    assert 128 * 256 * 64 >= HOST_MM_MACS
    with openblas_on_one_thread():
        got, want, calls = run_both(REDUCE, x, y)
        expected = x @ y
    np.testing.assert_array_equal(got[0], expected)
    assert calls == 3


@pytest.mark.parametrize("n", [1, 7, 8, 9, 128, 129, 1000, 100_000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_of_a_contiguous_tensor_is_numpys_pairwise_sum_bit_for_bit(n, dtype):
    text = """graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  return (%s)
"""
    got, want, calls = run_both(text, tensor((n,), dtype))
    assert_same(got, want)
    assert calls == 2


def test_shape_errors_come_from_the_reference_body():
    text = "graph(%a : Tensor, %b : Tensor):\n  %c : Tensor = aten::mm(%a, %b)\n  return (%c)\n"
    native, reference = errors_of(text, np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert "cannot be multiplied" in native and native == reference
    text = BINARY.format(op="add", extra=", %one")
    native, reference = errors_of(text, np.ones((2, 3)), np.ones((4,)))
    assert native == reference


# -- control flow natively, memory, threads ---------------------------------------------------

WHILE = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %h : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %hp : Tensor):
      %a : Tensor = aten::mul(%hp, %x)
      %b : Tensor = aten::tanh(%a)
      %c : bool = aten::lt(%i, %n)
      %r : Tensor = prim::If(%c)
        block0():
          %d : Tensor = aten::add(%b, %x, %one)
          -> (%d)
        block1():
          -> (%b)
      -> (%t, %r)
  return (%h)
"""


def test_loops_with_tensors_run_natively_and_free_their_buffers():
    x = tensor((8, 8), np.float32)
    before = nrt_live()
    got, want, calls = run_both(WHILE, x, 50)
    assert calls == 2
    np.testing.assert_array_max_ulp(got[0], want[0], maxulp=64)
    del got
    assert all(a <= b for a, b in zip(nrt_live(), before))


def test_a_graph_failing_ten_thousand_times_leaves_memory_flat():
    text = """graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %c : Tensor = aten::mul(%a, %a)
  %d : Tensor = aten::add(%c, %b, %one)
  return (%d)
"""
    code = Code(parse_ir(text))
    a, b = np.ones((16, 16), np.float32), np.ones((3,), np.float32)

    def fail(times: int) -> None:
        for _ in range(times):
            with pytest.raises(InterpreterError):
                NativeInterpreter(code).run([a, b])

    fail(100)
    gc.collect()
    nrt_before = nrt_live()
    tracemalloc.start()
    try:
        fail(1000)
        first, nrt_first = tracemalloc.get_traced_memory()[0], nrt_live()
        fail(9000)
        last, nrt_last = tracemalloc.get_traced_memory()[0], nrt_live()
    finally:
        tracemalloc.stop()
    # A failed run's traceback holds its frames (and so its registers) in a reference cycle
    # until the collector runs, as with the reference engine: bounded, never growing.
    assert nrt_last[0] - nrt_first[0] < 100, (nrt_first, nrt_last)
    assert last - first < 256 * 1024, f"memory grew by {last - first} bytes"
    gc.collect()
    assert nrt_live() == nrt_before


def test_eight_threads_share_one_code_and_get_the_single_threaded_results():
    code = Code(parse_ir(WHILE))
    inputs = [(tensor((8, 8), np.float32), n) for n in range(16)]
    expected = []
    for x, n in inputs:
        stack = [x, n]
        NativeInterpreter(code).run(stack)
        expected.append(stack[0])
    results: dict[int, list] = {i: [] for i in range(len(inputs))}

    def worker(indices):
        for _ in range(10):
            for i in indices:
                stack = list(inputs[i])
                NativeInterpreter(code).run(stack)
                results[i].append(stack[0])

    threads = [threading.Thread(target=worker, args=(range(k, len(inputs), 8),))
               for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, outs in results.items():
        assert len(outs) == 10
        for out in outs:
            np.testing.assert_array_equal(out, expected[i], strict=True)


SWAP = """graph(%x : Tensor, %y : Tensor, %row : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %half : float = prim::Constant[value=0.5]()
  %a : Tensor, %b : Tensor = prim::Loop(%n, %t, %x, %y)
    block0(%i : int, %p : Tensor, %q : Tensor):
      %s : Tensor = aten::add(%p, %row, %two)
      %d : Tensor = aten::sub(%s, %q, %half)
      %e : Tensor = aten::sigmoid(%d)
      %m : Tensor = aten::max(%e, %p)
      -> (%t, %q, %m)
  return (%a, %b, %x)
"""


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_loop_carried_tensors_swap_broadcast_and_keep_their_inputs(dtype):
    # the inlined float paths: broadcast rows, int and float alpha, registers swapped through
    # scratch each iteration, and an input still read after the loop (shared, not moved)
    x, y, row = tensor((4, 3), dtype), tensor((4, 3), dtype), tensor((3,), dtype)
    before = nrt_live()
    got, want, calls = run_both(SWAP, x, y, row, 7)
    assert calls == 2
    assert_same(got[2:], want[2:])
    for k in range(2):
        np.testing.assert_array_max_ulp(got[k], want[k], maxulp=8)
    del got
    assert all(a <= b for a, b in zip(nrt_live(), before))
