"""Unsigned arrays (uint16, uint32, uint64 beside uint8) in fused kernels, the whole-graph
function and ``fusejit.jit``, bit for bit against NumPy.

The cases that differ from signed ints: arithmetic wraps at the dtype's width, shifts are
logical, uint64 values of 2**63 and more are not negative, NumPy compares them with any
Python int exactly, and sums and products of unsigned ints are uint64.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.element_support import is_element_graph
from fusejit.runtime.executor import compile as compile_graph

from .conftest import compiled_whole, scripted

# (every other value 2**63 or more, and the ends)
U64 = np.concatenate([np.random.default_rng(3).integers(0, 1 << 64, 997, dtype=np.uint64),
                      np.array([0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1], np.uint64)])


def splitmix64(z):
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z, (z >> np.uint64(11)) * (1.0 / 2 ** 53)


def xorshift32(x, rounds):
    for _ in range(rounds):
        x = x ^ (x << np.uint32(13))
        x = x ^ (x >> np.uint32(17))
        x = x ^ (x << np.uint32(5))
    return x, x % 10, x.sum()


def compared(x, k):
    return x >= k, x < k, k > x, x == k, x != k, x > 2 ** 63, x <= 5


def _same(got, want):
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("engine", ["reference", "native"])
def test_uint64_hash_in_a_fused_kernel_is_numpys_bit_for_bit(engine):
    """Wrapping uint64 products by constants beyond int64's range, logical shifts, and the
    conversion to float64 of values of 2**63 and more."""
    fn = compile_graph(scripted(splitmix64, U64), fuse=True, engine=engine, reductions=True)
    _same(fn(U64), splitmix64(U64))


def test_uint32_rounds_wrap_at_32_bits_through_jit():
    x = np.random.default_rng(4).integers(1, 1 << 32, 5000, dtype=np.uint32)
    want = xorshift32(x.copy(), 3)
    assert want[2].dtype == np.uint64        # (NumPy sums unsigned ints in uint64)
    jitted = fusejit.jit(xorshift32)
    for _ in range(3):
        _same(jitted(x.copy(), 3), want)


@pytest.mark.parametrize("k", [-2, 0, 3, (1 << 63) - 1])
@pytest.mark.parametrize("engine", ["reference", "native"])
def test_uint64_compared_with_a_runtime_int_is_exact(engine, k):
    """An int64 compare would take the uint64s of 2**63 and up for negative numbers: with
    ``k = -2`` every element is greater than ``k``."""
    fn = compile_graph(scripted(compared, U64, k), fuse=True, engine=engine)
    _same(fn(U64, k), compared(U64, k))


def constant_compared(x):
    return x > 5, x[-1] > 5, 7 < x[-2], x != 2 ** 40, x.sum(), x * np.uint64(3)


def test_whole_graph_compares_uint64_with_nonnegative_constants_in_uint64():
    """The whole-graph function compares a uint64 with an int constant of 0 or more in
    uint64, and does not take a comparison with an int that may be negative (Numba would
    compare the two as floats or wrap the uint64)."""
    _same(compiled_whole(constant_compared, U64)(U64), constant_compared(U64))
    assert not is_element_graph(scripted(compared, U64, 3))
    # (a negative constant: the frontend knows the answer, an array of it)
    _same(compiled_whole(negative_compared, U64)(U64), negative_compared(U64))


def negative_compared(x):
    return x > -1, x <= -3, x[-1] != -1


def shifted(x, k, y):
    return x << k, x >> k, (x << y) ^ (x >> y)


# (uint32's shifts are logical, as uint64's, and narrower than 64 bits, as int8's)
@pytest.mark.parametrize("dtype", [np.int8, pytest.param(np.uint32, marks=pytest.mark.exhaustive),
                                   np.int64, np.uint64])
def test_shifts_in_fused_kernels_are_numpys_by_any_count(dtype):
    """A shift by the width or more, or by a negative count, is 0 (-1 for a negative number
    shifted right) in NumPy and undefined in C: the kernel tests the count. Counts as a run-time
    int and as an array of them, below, at and beyond the width."""
    info, width = np.iinfo(dtype), 8 * np.dtype(dtype).itemsize
    rng = np.random.default_rng(6)
    x = rng.integers(info.min, info.max, 600, dtype=dtype, endpoint=True)
    y = rng.integers(max(info.min, -3), width + 4, 600).astype(dtype)
    graph = scripted(shifted, x, 3, y)
    fn = compile_graph(graph, fuse=True, engine="native", reductions=True)
    assert fusejit.kernel_source(fn, x, 3, y).count("aten::__rshift__") >= 2   # (fused)
    for k in (0, 3, width - 1, width, width + 6):
        _same(fn(x, k, y), shifted(x, k, y))


def running_totals(x, m):
    return np.cumsum(x), np.cumprod(x % 3 + 1), m.cumsum(axis=0), np.cumsum(m, axis=1)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint64])
def test_whole_graph_running_sums_of_unsigned_are_uint64(dtype):
    rng = np.random.default_rng(8)
    x = rng.integers(0, np.iinfo(dtype).max, 50, dtype=dtype, endpoint=True)
    m = rng.integers(0, np.iinfo(dtype).max, (4, 5), dtype=dtype, endpoint=True)
    _same(compiled_whole(running_totals, x, m)(x, m), running_totals(x, m))


def shifted_numbers(x, k):
    y = x << 3
    return y >> 3, x[1] << 4, x >> k, x << k, x[2] >> k, x[0] << k


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint64])
def test_whole_graph_shifts_wrap_and_take_any_count(dtype):
    """A uint8 element << 4 was 3200 (Numba shifts small ints as int64), and a count known
    only when it runs was refused; by the width or more NumPy gives 0 (-1 for a negative
    number shifted right)."""
    info, width = np.iinfo(dtype), 8 * np.dtype(dtype).itemsize
    x = np.random.default_rng(10).integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    x[:2] = info.max, info.min
    run = compiled_whole(shifted_numbers, x, 3)
    for k in (0, 3, width - 1, width, width + 9):
        _same(run(x, k), shifted_numbers(x, k))


def scalar_hash(a, b, x):
    s = np.uint64(a) * np.uint64(b)          # 2**63 and more: negative as the IR's int64
    h = np.uint64(14695981039346656037)      # FNV-1a over a few elements, as numbers
    for v in x[:4]:
        h = (h ^ v) * np.uint64(1099511628211)
    return s > 5, s // 3, s % 1000, s >> 60, s / 2, h, h > np.uint64(1 << 63), h % 97, \
        float(s), s * 2.5


def test_uint64_numbers_of_2_to_63_and_more_compare_and_divide_as_numpy():
    """np.uint64 numbers are the IR's int64 bits, right for products and xors; comparisons,
    divisions, right shifts and floats read them as uint64 (0-d arrays), as NumPy does."""
    x = np.arange(1, 9, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    args = (1 << 40, (1 << 23) + 1, x)
    want = scalar_hash(*args)
    jitted = fusejit.jit(scalar_hash)
    for _ in range(3):
        got = jitted(*args)
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w) and g == w, (g, w)


def against_signed(x, y):
    return x > y, x >= y, x < y, x <= y, x == y, x != y, y > x, y <= x


# (int8's values compare right even in float64: int64's 2**53 is the case that tells)
@pytest.mark.parametrize("dtype", [np.int64, pytest.param(np.int8, marks=pytest.mark.exhaustive)])
def test_uint64_arrays_compare_with_signed_arrays_exactly(dtype):
    """NumPy 2 compares uint64 with int64 exactly; their common dtype, float64, made
    2**53 + 1 > 2**53 False (and a negative int is below every uint64)."""
    x = np.array([2**53 + 1, 0, 5, 2**63 + 7, 3, 2**64 - 1], np.uint64)
    y = np.array([2**53 if dtype == np.int64 else 100, -1, 5, -128, 4, -1], dtype)
    jitted = fusejit.jit(against_signed)
    for _ in range(3):
        _same(jitted(x, y), against_signed(x, y))
