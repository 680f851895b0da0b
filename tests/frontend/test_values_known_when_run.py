"""Forms that once needed a constant while scripting and now take values known only when the
function runs, as NumPy code writes them: ``np.pad`` widths and ``sliding_window_view``
windows from a kernel's shape or an int argument, ``np.full_like(x, p[0])`` of an array, a
tuple of arrays indexed by a loop variable, ``x[:, :, mask] = v`` with a 2-d mask,
``np.roll`` by a loop's variable; and
``math``'s integer functions, ``np.vander`` and ``float("inf")``. Each against NumPy (or
Python) itself, and each refusal or run-time error against theirs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit

from .numpy_programs import assert_same

R = np.random.default_rng(7)
swv = np.lib.stride_tricks.sliding_window_view


def _check(fn, *args):
    mine = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    theirs = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    assert_same(fusejit.jit(fn, race=False)(*mine), fn(*theirs))
    for m, t in zip(mine, theirs):     # (what the function wrote into its arguments)
        if isinstance(t, np.ndarray):
            np.testing.assert_array_equal(m, t)


def pad_by_kernel_shape(x, w):
    kh, kw = w.shape
    return np.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw - 1)))


def pad_edge_by_argument(img, radius):
    return np.pad(img, radius + 1, mode="edge"), np.pad(img, [radius], mode="reflect")


def pad_wrap_pairs(x, r):
    return np.pad(x, ((2, r), (1, r)), mode="wrap"), np.pad(x, ((r,), (1,)), mode="symmetric")


@pytest.mark.parametrize("fn, args", [
    (pad_by_kernel_shape, (R.standard_normal((2, 5, 6)), np.ones((3, 4)))),
    (pad_edge_by_argument, (R.integers(0, 255, (5, 7)).astype(np.uint8), 2)),
    (pad_wrap_pairs, (R.standard_normal((4, 5)).astype(np.float32), 3)),
])
def test_pad_widths_known_when_it_runs(fn, args):
    _check(fn, *args)


def test_a_negative_pad_width_known_when_it_runs_is_numpys_value_error():
    # (the pad ops would crop where NumPy refuses)
    with pytest.raises(fusejit.JITException, match="negative values"):
        fusejit.jit(pad_edge_by_argument, race=False)(np.ones((3, 3)), -4)
    with pytest.raises(ValueError, match="negative values"):
        pad_edge_by_argument(np.ones((3, 3)), -4)


def test_pad_widths_of_two_lengths_are_refused_as_numpy_refuses():
    def uneven(x, r):
        return np.pad(x, ((r,), (1, r)))

    with pytest.raises(ValueError):
        uneven(np.ones((2, 2)), 1)
    with pytest.raises(fusejit.ScriptError, match="pairs of two lengths"):
        fusejit.jit(uneven, race=False)(np.ones((2, 2)), 1)


def conv1d_valid(x, w, b):
    k = w.shape[0]
    win = swv(x, k, axis=1)
    return np.maximum(np.tensordot(win, w, axes=([2, 3], [1, 0])) + b, 0)


def window_sums(x, k):
    return swv(x, (k, k + 1)).sum(axis=(-1, -2))


def test_sliding_windows_of_a_length_known_when_it_runs():
    _check(conv1d_valid, R.standard_normal((2, 10, 3)), R.standard_normal((4, 3, 5)),
           R.standard_normal(5))
    _check(window_sums, np.arange(42.0).reshape(6, 7), 2)
    with pytest.raises(fusejit.JITException, match="cannot contain negative values"):
        fusejit.jit(window_sums, race=False)(np.ones((6, 7)), -1)
    with pytest.raises(fusejit.JITException, match="larger than input array"):
        fusejit.jit(window_sums, race=False)(np.ones((6, 7)), 7)


def horner(coeffs, x):
    p = np.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        p = p * x + c
    return p


def filled_rows(x, row, ints):
    # (a row broadcast down; a float array cast into ints as NumPy's unsafe copy does)
    return np.full((3, 4), row), np.full_like(ints, row), np.full_like(x, row[1:2],
                                                                        dtype=np.float32)


def test_fill_values_that_are_arrays():
    _check(horner, np.array([2.0, -1.0, 0.5]), R.standard_normal(9))
    _check(horner, np.array([3, 1]), np.arange(5.0))
    _check(filled_rows, np.ones(4), np.array([1.7, -2.2, 3.9, 4.0]), np.zeros((2, 4), np.int32))
    with pytest.raises(fusejit.FusejitError, match="broadcast"):
        fusejit.jit(horner, race=False)(np.ones((2, 3)), np.ones(4))


def alternating_masks(x, n):
    masks = [x > 0, x < 0]
    out = np.zeros(x.shape)
    for c in range(n):
        out = out + np.where(masks[c % 2], x, -x)
    return out


def picked(x, i):
    return (x, x * 2, x + 1)[i].sum()


def test_a_tuple_of_arrays_indexed_when_it_runs():
    _check(alternating_masks, R.standard_normal(11), 5)
    for i in (0, 2, -1):
        _check(picked, R.standard_normal(5), i)
    with pytest.raises(fusejit.FusejitError, match="IndexError: list index out of range"):
        fusejit.jit(picked, race=False)(np.ones(3), 3)


def test_a_tuple_of_arrays_of_two_dtypes_indexed_when_it_runs_is_refused():
    def mixed(x, i):
        return (x, x.astype(np.float32))[i]

    with pytest.raises(fusejit.ScriptError, match="one dtype and rank.*float32 1-d, float64"):
        fusejit.jit(mixed, race=False)(np.ones(3), 1)


def causal_scores(att, t):
    mask = np.triu(np.ones((t, t)), k=1).astype(bool)
    att[:, :, mask] = -1e9
    return att


def masked_after_slices(x, m):
    x[:, m] = 7.0
    x[1:, :, m[0]] += 2
    return x


def test_a_mask_of_two_dimensions_after_sliced_axes_takes_a_number():
    _check(causal_scores, R.standard_normal((2, 3, 4, 4)), 4)
    _check(masked_after_slices, R.standard_normal((3, 4, 5)), R.random((4, 5)) > 0.5)


def integer_math(x, n, k):
    return (x * math.factorial(n) + math.comb(n, k), math.perm(n, k), math.perm(n),
            math.gcd(n, -k), math.lcm(n, k), math.comb(60, 30))


@pytest.mark.parametrize("n, k", [(5, 2), (0, 0), (20, 10), (7, 9), (12, 0), (6, 6)])
def test_maths_integer_functions_are_pythons(n, k):
    _check(integer_math, np.ones(2), n, k)


@pytest.mark.parametrize("n, k, error, message", [
    (21, 3, OverflowError, "64-bit"), (-1, 3, ValueError, "negative"),
    (5, -2, ValueError, "non-negative"), (66, 33, OverflowError, "64-bit")])
def test_maths_integer_functions_refuse_what_python_refuses_or_int64_cannot_hold(
        n, k, error, message):
    def comb(n, k):
        return math.comb(n, k) + math.factorial(n)

    with pytest.raises(fusejit.JITException, match=f"{error.__name__}.*{message}"):
        fusejit.jit(comb, race=False)(n, k)
    if n <= 20:     # (Python's ints grow where int64 overflows)
        with pytest.raises(error):
            comb(n, k)


def taylor_coefficients(x, degree):
    coeffs = [1.0 / math.factorial(k) for k in range(degree, -1, -1)]
    return np.polyval(coeffs, x)


def vandermonde(x, n, increasing):
    return np.vander(x, n, increasing=increasing), np.vander(x)


@pytest.mark.parametrize("x", [np.linspace(-2, 3, 6), np.arange(5, dtype=np.int32),
                               np.array([True, False]), np.linspace(0, 1, 4, dtype=np.float32)],
                         ids=["float64", "int32", "bool", "float32"])
def test_vander_is_numpys(x):
    for n in (0, 1, 3, 7):
        for increasing in (False, True):
            _check(vandermonde, x, n, increasing)
    _check(taylor_coefficients, np.linspace(0, 1, 5), 8)
    with pytest.raises(fusejit.JITException, match="negative dimensions"):
        fusejit.jit(vandermonde, race=False)(x, -1, True)


def snr_db(x, noise):
    p = float(np.sum(noise ** 2))
    return (10.0 * math.log10(float(np.sum(x ** 2)) / p) if p > 0 else float("inf"),
            float("-inf"), math.isnan(float("nan")), float(" 1.5e3 "), int("12"), float("Infinity"))


def test_float_and_int_of_a_constant_string_are_pythons():
    _check(snr_db, np.ones(3), np.zeros(3))
    _check(snr_db, np.ones(3), np.full(3, 0.1))

    def bad(x):
        return x + float("abc")

    with pytest.raises(fusejit.ScriptError, match="could not convert string to float"):
        fusejit.jit(bad, race=False)(np.ones(2))


def group_means(x, labels, k):
    out = np.zeros((k, x.shape[1]))
    for j in range(k):
        out[j] = x[labels == j].mean(axis=0)
    return out


def group_extremes(x, labels, k):
    top = np.zeros((k, x.shape[1]), x.dtype)
    for j in range(k):
        top[j] = x[labels == j].max(axis=0) - x[labels == j].sum(axis=0)
    return top


def test_masked_row_reductions_in_a_loop_select_the_rows():
    """In a loop over groups, ``x[labels == j].mean(axis=0)`` selects the rows, as NumPy
    does, rather than reading all of ``x`` in every iteration (the where form did k times
    NumPy's work: 16 groups of 200000 x 8 ran 0.59x NumPy); an empty group's max is NumPy's
    error, as its selection is NumPy's."""
    rng = np.random.default_rng(19)
    x, labels = rng.standard_normal((300, 4)), rng.integers(0, 5, 300)
    _check(group_means, x, labels, 5)
    ints = rng.integers(-9, 9, (300, 4)).astype(np.int32)
    _check(group_means, ints, labels, 5)
    _check(group_extremes, ints, labels, 5)
    jitted = fusejit.jit(group_means, race=False)
    loop = next(n for n in jitted.graph_for(x, labels, 5).nodes() if n.kind == "prim::Loop")
    kinds = [str(n.kind) for n in loop.blocks[0].nodes()]
    assert "aten::index" in kinds and "aten::where" not in kinds, kinds
    with pytest.raises(ValueError):
        group_extremes(ints, labels, 6)         # (group 5 is empty)
    with pytest.raises(fusejit.FusejitError):
        fusejit.jit(group_extremes, race=False)(ints, labels, 6)


def box_blur_by_rolls(img, radius):
    acc = np.zeros_like(img)
    for dy in range(-radius, radius + 1):
        rows = np.roll(img, dy, axis=0)
        for dx in range(-radius, radius + 1):
            acc += np.roll(rows, dx * 3 + 100, axis=-1)
    return acc, np.roll(img, radius - 5), np.roll(img[:, :0], radius, axis=1)


def rolled_by_a_parameter(x, k):
    return np.roll(x, k, axis=0) + np.roll(x, -k, axis=0)


def test_np_roll_by_a_shift_known_when_it_runs():
    """``np.roll(img, dy, axis=0)`` by a loop's variable (any sign, past the axis' length,
    flattened, along an empty axis: NumPy rolls that into itself); a shift that is a
    parameter is still a constant of each signature, so the rolls of one array stay windows of
    one wrapped copy (``passes/rolls_as_views.py``)."""
    img = R.standard_normal((6, 7)).astype(np.float32)
    _check(box_blur_by_rolls, img, 2)
    x = R.standard_normal((9, 4))
    _check(rolled_by_a_parameter, x, 3)
    jitted = fusejit.jit(rolled_by_a_parameter, race=False)
    kinds = [n.kind for n in jitted.graph_for(x, 3).all_nodes()]
    assert "fusejit::wrap_pad" in kinds and "aten::cat" not in kinds
    empty = np.zeros((0, 3))
    _check(rolled_by_a_parameter, empty, 2)
