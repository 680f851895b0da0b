"""Fused kernels' outputs in their inputs' memory order, as NumPy's ufuncs make them
(``order='K'``, ``fusion/plan.py``'s ``_memory_order``): values, shapes and strides checked
against NumPy's eager result of the same expression on the same arrays."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion import plan as plans
from tests.matrix import covered

UNARY = """graph(%x : Tensor):
  %half : float = prim::Constant[value=0.5]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::mul(%a, %half)
  %c : Tensor = aten::add(%b, %x, %one)
  return (%c)
"""

BINARY = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::add(%a, %y, %one)
  %c : Tensor = aten::neg(%a)
  return (%b, %c)
"""

EACH_OWN = """graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::neg(%x)
  %c : Tensor = aten::exp(%y)
  return (%a, %b, %c)
"""

ADD = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  return (%a)
"""


def unary_numpy(x):
    return np.exp(x) * 0.5 + x


def binary_numpy(x, y):
    return x * y + y, -(x * y)


def each_own_numpy(x, y):
    return x * y, -x, np.exp(y)


def _kernel(text):
    return FusedKernel(fusejit.parse_ir(text))


def _long_strides(a):
    """The strides of the dimensions longer than 1 (NumPy's layout flags ignore the others)."""
    return tuple(s for n, s in zip(a.shape, a.strides) if n != 1)


def _same_layout(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert _long_strides(got) == _long_strides(want), (got.strides, want.strides)
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous


def _check(got, want):
    _same_layout(got, want)
    tol = 1e-6 if got.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _layouts(dtype) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    x2 = rng.standard_normal((40, 30)).astype(dtype)
    x3 = rng.standard_normal((4, 5, 6)).astype(dtype)
    cases = {"2-d C": x2, "2-d x.T": x2.T, "2-d F": np.asfortranarray(x2),
             "2-d strided.T": x2[::2].T, "2-d negative.T": x2.T[::-1],
             "2-d negative": x2[::-1], "3-d F": np.asfortranarray(x3),
             "1-d strided": x2[0, ::3], "0-d": x2[0, 0, None][0, ...],
             "3-d strided (2, 0, 1)": rng.standard_normal((4, 10, 6)).astype(dtype)[:, ::2]
             .transpose(2, 0, 1),
             "size-1 dim F": np.asfortranarray(x3[:, :1])}
    for perm in itertools.permutations(range(3)):
        cases[f"3-d {perm}"] = x3.transpose(perm)
    return cases


_CASES = list(_layouts(np.float64))


# (each layout in one dtype: the order of the output does not depend on it)
@pytest.mark.parametrize("case, dtype", covered(_CASES, [np.float32, np.float64], strength=1))
def test_unary_output_in_input_order(case, dtype):
    x = _layouts(dtype)[case]
    kernel = _kernel(UNARY)
    want = unary_numpy(x)
    (got,) = kernel(x)
    _check(got, want)
    (again,) = kernel(x)           # (a later call of the signature: its quick call)
    _check(again, want)


_PAIRS = {
    "C, C": lambda a, b: (a, b),
    "F, F": lambda a, b: (np.asfortranarray(a), np.asfortranarray(b)),
    "x.T, y.T": lambda a, b: (a.T.copy().T, b.T.copy().T),
    "C, F": lambda a, b: (a, np.asfortranarray(b)),
    "F, C": lambda a, b: (np.asfortranarray(a), b),
    "F, row": lambda a, b: (np.asfortranarray(a), b[0].copy()),
    "row, F": lambda a, b: (a[0].copy(), np.asfortranarray(b)),
    "F, column": lambda a, b: (np.asfortranarray(a), b[:, :1].copy()),
    "F, 0-d": lambda a, b: (np.asfortranarray(a), np.array(b[0, 0])),
    "F, 3-d C": lambda a, b: (np.asfortranarray(a), np.stack([b, b])),
}


@pytest.mark.parametrize("case, dtype", covered(list(_PAIRS), [np.float32, np.float64],
                                                 strength=1))
def test_two_inputs_follow_numpy(case, dtype):
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((30, 20)).astype(dtype) for _ in range(2))
    x, y = _PAIRS[case](a, b)
    got = _kernel(BINARY)(x, y)
    for g, w in zip(got, binary_numpy(x, y)):
        _check(g, w)


@pytest.mark.parametrize("case", ["C, F", "F, C", "x.T, F"])
def test_each_output_in_its_own_inputs_order(case):
    """Outputs reading different inputs get each their own layout, as NumPy's ops give them:
    (x * y, -x, exp(y)) of an F x and a C y is (C, F, C)."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((2, 30, 20))
    x, y = {"C, F": (a, np.asfortranarray(b)), "F, C": (np.asfortranarray(a), b),
            "x.T, F": (a.T.copy().T, np.asfortranarray(b))}[case]
    for got, want in zip(_kernel(EACH_OWN)(x, y), each_own_numpy(x, y)):
        _check(got, want)


def _random_view(rng, shape):
    """A view of ``shape`` with its axes in a random memory order, maybe strided, maybe
    broadcast along some axes (stride 0)."""
    perm = rng.permutation(len(shape))
    steps = rng.integers(1, 3, len(shape))
    base = rng.standard_normal([shape[p] * steps[p] for p in perm])
    view = base[tuple(slice(None, None, steps[p]) for p in perm)].transpose(np.argsort(perm))
    return np.broadcast_to(view[tuple(slice(0, 1) if rng.random() < 0.2 else slice(None)
                                      for _ in shape)], shape)


# (each new layout compiles its plan's variant: 12-15 s for 60 pairs; the exhaustive case
# goes on past the default's 20 with the same pairs)
@pytest.mark.parametrize("pairs", [20, pytest.param(40, marks=pytest.mark.exhaustive)])
def test_random_layouts_match_numpy_add(pairs):
    """np.add's own layout for pairs of random layouts (ties, conflicts and broadcasts among
    them): the kernel makes the same for dimensions longer than 1."""
    rng = np.random.default_rng(7)
    kernel = _kernel(ADD)
    for _ in range(pairs):
        shape = tuple(rng.choice([1, 3, 4, 7], size=rng.integers(2, 5)))
        x, y = _random_view(rng, shape), _random_view(rng, shape)
        (got,) = kernel(x, y)
        want = np.add(x, y)
        np.testing.assert_array_equal(got, want)
        assert _long_strides(got) == _long_strides(want), (x.strides, y.strides)


def test_parallel_kernel_in_memory_order(monkeypatch):
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
    x = np.random.default_rng(2).standard_normal((300, 200)).T
    (got,) = _kernel(UNARY)(x)
    _check(got, unary_numpy(x))


def test_layouts_get_their_own_plans():
    """C and F inputs of one shape through one kernel: each call gets its own layout (plans
    and remembered calls are keyed on strides; the compiled variant is shared)."""
    kernel = _kernel(UNARY)
    x = np.random.default_rng(3).standard_normal((64, 48))
    for a in (x, np.asfortranarray(x), x, x.T, np.asfortranarray(x)):
        (got,) = kernel(a)
        _check(got, unary_numpy(a))


def test_empty_input():
    x = np.zeros((0, 5), order="F").T
    (got,) = _kernel(UNARY)(x)
    assert got.shape == (5, 0)


def test_concat_output_stays_c_ordered():
    """A FusedConcat's output keeps C order (its pieces are slices of one C array)."""
    text = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::mul(%x, %y)
  %c : Tensor = prim::FusedConcat[dim=0](%a, %b)
  return (%c)
"""
    rng = np.random.default_rng(4)
    x, y = np.asfortranarray(rng.random((6, 5))), np.asfortranarray(rng.random((6, 5)))
    (got,) = _kernel(text)(x, y)
    want = np.concatenate([x + y, x * y])
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert got.flags.c_contiguous


# (above jit's WHOLE_GRAPH_MAX_ELEMENTS, so that the call runs the plan and its kernels)
@pytest.mark.parametrize("layout", ["x.T", "F", "C"])
def test_jit_function_keeps_numpy_layout(layout):
    x = np.random.default_rng(5).standard_normal((120, 90)).astype(np.float32)
    a = {"x.T": x.T, "F": np.asfortranarray(x), "C": x}[layout]
    compiled = fusejit.jit(unary_numpy)
    want = unary_numpy(a)
    for _ in range(2):
        _check(compiled(a), want)


def test_update_in_place_of_an_f_ordered_array():
    """``x += expr`` with x F-ordered: NumPy writes into x; so does the compiled function
    (through a new array copied in, as for any layout a kernel cannot write directly)."""
    def update(x, v):
        x += v * 2.0 + 1.0
        return x

    rng = np.random.default_rng(6)
    for x, v in [(np.asfortranarray(rng.random((100, 80))), rng.random((100, 80))),
                 (rng.random((100, 80)), np.asfortranarray(rng.random((100, 80))))]:
        expected = update(x.copy(order="K"), v)
        result = fusejit.jit(update)(x, v)
        assert result is x
        np.testing.assert_allclose(x, expected, rtol=1e-13)
