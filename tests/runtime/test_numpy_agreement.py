"""Answers NumPy gives bit for bit, on each tier: the compiled whole-graph function (float sums
in NumPy's pairwise order and dtype, cumsum one by one, the signs of zeros where maximum,
minimum and clip meet ties), fused kernels (a uint8 array compares with 300 exactly) and
the interpreter's reference bodies (isclose, copysign's dtype, clip of ints by bounds and
comparisons with Python ints beyond their range). NumPy is the oracle throughout; arrays
compare by dtype, value and sign bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.element_function import compile_element_graph
from tests.runtime.conftest import refuse, scripted


def _identical(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def sums_and_ties(x, y, m, d, u, lo):
    # (one compiled function, ~3 s cold alone: minimum and the other clips are the same code)
    return (x.sum(), x.mean(), np.cumsum(x), m.sum(axis=1), d.sum(), np.maximum(x, y),
            np.maximum(x, 0.0), np.clip(u, lo, 300), u < 300)


def _inputs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    # magnitudes over 11 decades: float32 sums that depend on their order
    x = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 8, n)).astype(np.float32)
    x[:4] = [-0.0, 0.0, -0.0, 1e8]
    y = np.where(rng.random(n) < 0.5, 0.0, -0.0).astype(np.float32)
    m = x[: n - n % 4].reshape(4, -1)
    d = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 8, n))
    u = rng.integers(0, 256, n).astype(np.uint8)
    return x, y, m, d, u


def test_whole_graph_sums_and_ties_are_numpys():
    args = _inputs(8, 0) + (-3,)
    graph = scripted(sums_and_ties, *args)
    run = compile_element_graph(graph, refuse)
    for n, lo in ((4, -300), (9, -3), (131, 0), (1000, 5), (70001, -1)):
        args = _inputs(n, n) + (lo,)
        for got, want in zip(run(*args), sums_and_ties(*args), strict=True):
            _identical(got, want)
    # float32 1e8 + 3998 ones - 1e8: NumPy's sum 3992 (pairwise), its cumsum ends at 0
    big = np.array([1e8] + [1.0] * 3998 + [-1e8], np.float32)
    args = (big, big, big.reshape(4, -1), big.astype(np.float64), args[4], 0)
    for got, want in zip(run(*args), sums_and_ties(*args), strict=True):
        _identical(got, want)


def signed_zeros(x, u):
    # (not %: a zero remainder keeps the dividend's sign, PyTorch's aten::remainder, which
    # tests/runtime/fusion/test_memory_bound.py holds the kernels to; README says so)
    return (np.maximum(x, 0.0), np.minimum(x, -0.0), np.clip(x, -0.0, 1.0),
            np.clip(x, -1.0, 0.0), u < 300, u > -1, u == 256 + 7, u != -3)


def test_fused_kernel_zero_signs_are_numpys():
    x = np.random.default_rng(1).standard_normal(5000)   # (over the whole-graph limit)
    x[::3] = -0.0
    x[1::3] = 0.0
    x[2::9] = np.array([0.3, -0.6, np.nan, np.inf, -np.inf, 0.9]).repeat(93)[:556]
    u = np.arange(5000).astype(np.uint8)
    with np.errstate(invalid="ignore"):
        expected = signed_zeros(x, u)
    for got, want in zip(fusejit.jit(signed_zeros)(x, u), expected, strict=True):
        _identical(got, want)


# -- the interpreter's first call (reference bodies, no compile) ---------------------------------

@pytest.fixture
def interpreted(monkeypatch):
    monkeypatch.setenv("FUSEJIT_TIERING", "1")   # (conftest turns tiering off for the suite)
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "0")


def close_to(i, f, f32):
    return (np.isclose(i, 0), np.isclose(i, 2), np.isclose(f, np.inf), np.isclose(1.0, f),
            np.isclose(i, i[1]), np.isclose(f32, 2))


def copysigns(f32, i, f64):
    return (np.copysign(1.0, f32), np.copysign(f32, f32), np.copysign(i, f32),
            np.copysign(f32, f64), np.copysign(2, f32))


def clipped(u, i8):
    return np.clip(u, -3, 3), np.clip(u, -3, 300), np.clip(i8, -1000, 5), u.clip(0, 255)


def compared(u, i8, i):
    return u < 300, u > -1, i8 >= -200, u == 259, u != 256, i < 2**53 + 1, i8 <= 2**40


CASES = [
    (close_to, (np.array([-2**63, -2**63 + 2, 2, 3, 2**63 - 1]),
                np.array([1.0, np.inf, -np.inf, np.nan, 1e308]),
                np.array([2.0, 2.00001, np.inf], np.float32))),
    (copysigns, (np.array([-1.0, 2.0, -0.0, 0.0, np.inf], np.float32),
                 np.array([-3, 0, 4, 5, -1]), np.array([-1.0, 1.0, -0.0, 0.0, -2.0]))),
    (clipped, (np.array([0, 1, 5, 255], np.uint8), np.array([-128, 0, 127], np.int8))),
    (compared, (np.array([0, 3, 255], np.uint8), np.array([-128, 0, 127], np.int8),
                np.array([2**53, 2**53 + 1, 2**53 + 2]))),
]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_interpreter_answers_are_numpys(interpreted, fn, args):
    with np.errstate(all="ignore"):
        want = fn(*args)
    for got, expected in zip(fusejit.jit(fn)(*args), want, strict=True):
        _identical(got, expected)


def modulo_of_zero(x):
    return x % (x - x)


def test_integer_modulo_by_zero_names_its_line(interpreted):
    # (the fused group that holds it has no line of its own: the error gives the member's)
    where = r"^operation failed in interpreter \(at [^)]*test_numpy_agreement\.py:\d+"
    with pytest.raises(fusejit.FusejitError, match=where):
        fusejit.jit(modulo_of_zero)(np.arange(3))


def test_native_maximum_and_minimum_ties_are_numpys():
    # (the element body every native loop runs; the loop itself takes minutes to build cold)
    from fusejit.runtime.native import pointwise as pw
    from fusejit.runtime.native.opcodes import NativeOp

    a = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, -2.0])
    b = np.array([0.0, -0.0, -0.0, 0.0, 1.0, np.nan, 3.0])
    for op, fn in ((NativeOp.MAXIMUM, np.maximum), (NativeOp.MINIMUM, np.minimum)):
        got = [pw._arith(int(op), x, y, 1.0) for x, y in zip(a, b, strict=True)]
        _identical(np.array(got), fn(a, b))
