"""Pointwise ops against hand-derived PyTorch semantics and independently written NumPy/math."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tests.runtime.test_ops_support import call

F32, F64, I64, I32, B = np.float32, np.float64, np.int64, np.int32, np.bool_


def arr(values, dtype):
    return np.array(values, dtype=dtype)


# -- integer remainder vs fmod, rounding, division ---------------------------------------------

@pytest.mark.parametrize("a, b, remainder, fmod", [
    (-3, 2, 1, -1), (3, -2, -1, 1), (-3, -2, -1, -1), (7, 3, 1, 1), (-7, 3, 2, -1),
])
@pytest.mark.parametrize("dtype", [I64, I32, F32, F64])
def test_remainder_has_divisor_sign_fmod_dividend_sign(a, b, remainder, fmod, dtype) -> None:
    x, y = arr([a], dtype), arr([b], dtype)
    assert call("aten::remainder", x, y).tolist() == [remainder]
    assert call("aten::fmod", x, y).tolist() == [fmod]
    assert call("aten::remainder", x, y).dtype == dtype


def test_float_remainder_is_python_modulo() -> None:
    x = np.linspace(-5, 5, 41, dtype=F64)
    got = call("aten::remainder", x, 1.5)
    assert got.tolist() == pytest.approx([v % 1.5 for v in x.tolist()], abs=1e-12)


@pytest.mark.parametrize("op", ["remainder", "fmod"])
def test_integer_modulo_by_zero_raises(op: str) -> None:
    with pytest.raises(ZeroDivisionError):
        call(f"aten::{op}", arr([1, 2], I64), arr([1, 0], I64))


def test_round_is_half_to_even() -> None:
    x = arr([0.5, 1.5, 2.5, -0.5, -2.5, 3.5, 2.4999], F32)
    assert call("aten::round", x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 4.0, 2.0]


@pytest.mark.parametrize("op", ["ceil", "floor", "round", "trunc"])
def test_rounding_an_integer_tensor_keeps_it(op: str) -> None:
    x = arr([-3, 0, 7], I64)
    got = call(f"aten::{op}", x)
    assert got.dtype == I64 and got.tolist() == [-3, 0, 7]
    assert got is not x


def test_true_division_of_integers_is_float32() -> None:
    got = call("aten::div", arr([7, -7, 1], I64), arr([2, 2, 0], I64))
    assert got.dtype == F32
    assert got.tolist() == [3.5, -3.5, math.inf]


@pytest.mark.parametrize("mode, expected", [("trunc", [3, -3, -3, 3]), ("floor", [3, -4, -4, 3])])
def test_div_rounding_modes_on_ints(mode: str, expected: list) -> None:
    a, b = arr([7, -7, 7, -7], I64), arr([2, 2, -2, -2], I64)
    got = call("aten::div", a, b, mode)
    assert got.dtype == I64 and got.tolist() == expected
    assert call("aten::div", a.astype(F32), b.astype(F32), mode).tolist() == expected


def test_div_bad_rounding_mode_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="rounding_mode"):
        call("aten::div", arr([1.0], F32), arr([2.0], F32), "ceil")


def test_float_division_by_zero_gives_inf_and_nan_without_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = call("aten::div", arr([1.0, -1.0, 0.0], F32), arr([0.0, 0.0, 0.0], F32))
    assert got[0] == math.inf and got[1] == -math.inf and math.isnan(got[2])


def test_quiet_ops_leave_the_callers_error_state_and_buffer_size() -> None:
    # the op library sets NumPy's error state for each op (not np.errstate: a prepared state)
    x = arr([3e38, 1.0], F32)
    size = np.getbufsize()
    try:
        for state in ("raise", "warn"):
            with np.errstate(all=state):
                np.setbufsize(16384)
                got = call("aten::mul", x, 10.0)
                assert got.dtype == F32 and got[0] == math.inf and got[1] == 10.0
                assert np.geterr()["over"] == state and np.getbufsize() == 16384
                with pytest.raises(FloatingPointError if state == "raise" else RuntimeWarning):
                    with warnings.catch_warnings():
                        warnings.simplefilter("error")
                        np.multiply(x, F32(10.0))
    finally:
        np.setbufsize(size)


_PAIRS = [(np.array(2.0, F64), 0.5, F64), (arr([1, 2], I32), 0.5, F32),
          (arr([1.5], F32), np.array(2.0, F64), F32), (arr([1.5], F32), arr([2.0], F64), F64),
          (arr([1.5], F32), arr([2.0], F32), F32), (np.array(1.5, F32), arr([2.0], F32), F32)]


@pytest.mark.parametrize("op, a, b, dtype", [
    (op, a, b, dtype) for op in ("add", "sub", "mul", "div", "max", "gt")
    for a, b, dtype in _PAIRS if op != "max" or isinstance(b, np.ndarray)])
def test_binary_ops_promote_as_result_type(op: str, a, b, dtype) -> None:
    # (float arrays with an array of their dtype or a Python float take a short way)
    got = call(f"aten::{op}", a, b, *((1,) if op in ("add", "sub") else ()))
    numpy = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
             "max": np.maximum, "gt": np.greater}[op]
    expected = numpy(np.asarray(a, dtype), np.asarray(b, dtype))
    assert got.dtype == expected.dtype and got.shape == np.shape(expected)
    assert got.tobytes() == np.asarray(expected).tobytes()


# -- pow -------------------------------------------------------------------------------------

def test_integer_tensor_to_negative_scalar_power_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="negative integer powers"):
        call("aten::pow", arr([2, 3], I64), -1)


def test_integer_pow_with_negative_tensor_exponents_follows_powi() -> None:
    base, exponent = arr([2, 1, -1, -1, 0, 3], I64), arr([-1, -5, -3, -2, 2, 3], I64)
    assert call("aten::pow", base, exponent).tolist() == [0, 1, -1, 1, 0, 27]


@pytest.mark.parametrize("base, exponent, dtype", [
    (2, arr([1, 2, 3], I64), I64), (2.0, arr([1, 2, 3], I64), F32),
    (2, arr([1.0, 2.0], F64), F64), (arr([1, 2], I32), 2, I32), (arr([1, 2], I32), 0.5, F32),
])
def test_pow_overloads_promote(base, exponent, dtype) -> None:
    got = call("aten::pow", base, exponent)
    assert got.dtype == dtype
    expected = np.power(np.asarray(base, F64), np.asarray(exponent, F64))
    np.testing.assert_allclose(got.astype(F64), expected, rtol=1e-6)


# -- type promotion --------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, dtype", [
    (arr([1.0], F32), np.array(2.0, F64), F32),   # a 0-dim double does not widen a tensor
    (arr([1], I64), 0.5, F32),                     # a Python float is the default float
    (arr([True], B), 1, I64),                      # bool tensor + int -> int64
    (arr([1], I32), np.array(2, I64), I32),        # 0-dim int64 does not widen int32
    (arr([1], I32), arr([2], I64), I64),           # two dimensioned tensors do
    (np.array(1, I64), 2.5, F32),                  # 0-dim int tensor + Python float
    (np.array(1.0, F64), 2, F64),                  # 0-dim double + Python int
    (arr([1], I64), arr([1.0], F64), F64),
    (arr([1.0], np.float16), arr([1], I64), np.float16),
])
def test_add_result_dtype(a, b, dtype) -> None:
    got = call("aten::add", a, b, 1)
    assert got.dtype == dtype
    assert float(np.asarray(got).ravel()[0]) == float(np.asarray(a).ravel()[0]) + float(
        np.asarray(b).ravel()[0])


def test_zero_dim_results_are_zero_dim_arrays() -> None:
    got = call("aten::mul", np.array(3.0, F32), np.array(2.0, F32))
    assert type(got) is np.ndarray and got.shape == () and got == 6.0
    assert type(call("aten::exp", np.array(0.0, F32))) is np.ndarray


@pytest.mark.parametrize("op", ["exp", "sin", "sqrt", "sigmoid", "tanh", "log1p", "erf",
                                "lgamma", "reciprocal", "rsqrt"])
def test_unary_float_ops_promote_ints_to_float32(op: str) -> None:
    got = call(f"aten::{op}", arr([1, 2, 3], I64))
    assert got.dtype == F32
    oracle = {"exp": math.exp, "sin": math.sin, "sqrt": math.sqrt, "tanh": math.tanh,
              "sigmoid": lambda v: 1 / (1 + math.exp(-v)), "log1p": math.log1p,
              "erf": math.erf, "lgamma": math.lgamma, "reciprocal": lambda v: 1 / v,
              "rsqrt": lambda v: 1 / math.sqrt(v)}[op]
    assert got.tolist() == pytest.approx([oracle(v) for v in (1, 2, 3)], rel=1e-6)


@pytest.mark.parametrize("op, expected", [("abs", [3, 0, 2]), ("neg", [3, 0, -2]),
                                          ("relu", [0, 0, 2])])
def test_abs_neg_relu_keep_integer_dtype(op: str, expected: list) -> None:
    got = call(f"aten::{op}", arr([-3, 0, 2], I64))
    assert got.dtype == I64 and got.tolist() == expected


def test_special_functions_at_poles_and_infinities() -> None:
    x = arr([0.0, -1.0, math.inf, -math.inf, math.nan], F64)
    lgamma = call("aten::lgamma", x)
    assert lgamma[:4].tolist() == [math.inf, math.inf, math.inf, math.inf]
    assert math.isnan(lgamma[4])
    assert call("aten::erf", x)[2:4].tolist() == [1.0, -1.0]
    assert call("aten::frac", arr([2.75, -2.75], F32)).tolist() == [0.75, -0.75]


# -- alpha, comparisons, clamp and friends ---------------------------------------------------

def test_alpha_scales_the_second_operand() -> None:
    x, y = arr([1.0, 2.0], F32), arr([10.0, 20.0], F32)
    assert call("aten::add", x, y, 2).tolist() == [21.0, 42.0]
    assert call("aten::sub", x, y, 0.5).tolist() == [-4.0, -8.0]
    assert call("aten::sub", x, 3, 2).tolist() == [-5.0, -4.0]


def test_float_alpha_with_integer_tensors_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="alpha"):
        call("aten::add", arr([1], I64), arr([1], I64), 0.5)


@pytest.mark.parametrize("op, fn", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                    ("le", np.less_equal), ("gt", np.greater),
                                    ("ge", np.greater_equal)])
def test_comparisons_return_bool_tensors(op, fn) -> None:
    a, b = arr([1, 2, 3], I64), arr([2.0, 2.0, 2.5], F32)
    got = call(f"aten::{op}", a, b)
    assert got.dtype == B and got.tolist() == fn([1.0, 2.0, 3.0], [2.0, 2.0, 2.5]).tolist()
    assert call(f"aten::{op}", a, 2).tolist() == fn([1, 2, 3], 2).tolist()


def test_clamp_with_one_bound_missing() -> None:
    x = arr([-2.0, 0.5, 3.0, math.nan], F32)
    assert call("aten::clamp", x, 0.0, None)[:3].tolist() == [0.0, 0.5, 3.0]
    assert call("aten::clamp", x, None, 1.0)[:3].tolist() == [-2.0, 0.5, 1.0]
    assert math.isnan(call("aten::clamp", x, 0.0, 1.0)[3])  # NaN passes through
    with pytest.raises(RuntimeError, match="At least one"):
        call("aten::clamp", x, None, None)


def test_threshold_lerp_addcmul_where() -> None:
    x = arr([-1.0, 0.5, 2.0], F32)
    assert call("aten::threshold", x, 0.5, 9.0).tolist() == [9.0, 9.0, 2.0]
    end = arr([1.0, 1.5, 0.0], F32)
    for w in (0.25, 0.75):
        assert call("aten::lerp", x, end, w).tolist() == pytest.approx(
            [s + w * (e - s) for s, e in zip(x.tolist(), end.tolist())], rel=1e-6)
    assert call("aten::addcmul", x, end, x, 0.5).tolist() == pytest.approx(
        [s + 0.5 * e * s for s, e in zip(x.tolist(), end.tolist())])
    cond = arr([True, False, True], B)
    got = call("aten::where", cond, x, arr([7, 8, 9], I64))
    assert got.dtype == F32 and got.tolist() == [-1.0, 8.0, 2.0]


def test_bitwise_ops_and_type_casts() -> None:
    a, b = arr([True, True, False], B), arr([True, False, False], B)
    assert call("aten::__and__", a, b).tolist() == [True, False, False]
    assert call("aten::__or__", a, b).tolist() == [True, True, False]
    assert call("aten::__xor__", a, b).tolist() == [False, True, False]
    with pytest.raises(RuntimeError):
        call("aten::__and__", arr([1.0], F32), arr([1.0], F32))
    x = arr([1.5, -2.5], F64)
    assert call("aten::type_as", x, arr([1], I32)).dtype == I32
    assert call("aten::_cast_Float", x, False).dtype == F32


def test_broadcasting() -> None:
    col, row = arr([[1.0], [2.0]], F32), arr([10.0, 20.0, 30.0], F32)
    got = call("aten::mul", col, row)
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, np.outer([1.0, 2.0], [10.0, 20.0, 30.0]))
    with pytest.raises(ValueError):
        call("aten::add", arr([1.0, 2.0], F32), arr([1.0, 2.0, 3.0], F32), 1)


# -- purity and in-place ops -----------------------------------------------------------------

@pytest.mark.parametrize("op, args", [
    ("aten::add", (1, 1)), ("aten::mul", (2.0,)), ("aten::sigmoid", ()), ("aten::clamp", (0, 1)),
    ("aten::div", (3,)), ("aten::neg", ()), ("aten::type_as", (arr([1.0], F64),)),
])
def test_bodies_do_not_mutate_inputs(op: str, args: tuple) -> None:
    x = arr([-1.0, 0.5, 2.0], F32)
    before = x.copy()
    call(op, x, *args)
    np.testing.assert_array_equal(x, before)


def test_inplace_add_through_a_view_reaches_the_base() -> None:
    base = np.zeros((2, 3), F32)
    row = call("aten::select", base, 0, 1)
    out = call("aten::add_", row, arr([1.0, 2.0, 3.0], F32), 1)
    assert out is row
    assert base.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]
    col = call("aten::t", base)
    call("aten::mul_", col, 2.0)
    assert base.tolist() == [[0.0, 0.0, 0.0], [2.0, 4.0, 6.0]]


def test_inplace_refuses_a_result_it_cannot_hold() -> None:
    with pytest.raises(RuntimeError, match="can't be cast"):
        call("aten::add_", arr([1, 2], I64), arr([0.5, 0.5], F32), 1)
    with pytest.raises(RuntimeError, match="broadcast shape"):
        call("aten::add_", arr([1.0], F32), arr([1.0, 2.0], F32), 1)


def test_copy_converts_and_broadcasts() -> None:
    dst = np.zeros((2, 2), I64)
    call("aten::copy_", dst, arr([1.7, -2.2], F32), False)
    assert dst.tolist() == [[1, -2], [1, -2]]


@pytest.mark.parametrize("op, fn", [("lgamma", math.lgamma), ("erf", math.erf),
                                    ("erfc", math.erfc)])
def test_math_module_ops_keep_a_zero_dim_array(op: str, fn) -> None:
    out = call(f"aten::{op}", np.array(3.5, np.float32))
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float32
    assert out == np.float32(fn(3.5))
