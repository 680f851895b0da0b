"""The rules of ``reduction_rules`` and ``view_rules`` (amax, amin, prod, var, std, slice, flip,
cumsum) against float64 central finite differences, over the dims, keepdim, corrections and
ranks (0-d included) they take, in float64 and float32; plus the cases finite differences
cannot judge (three-way ties of amax, std at a constant row), against PyTorch's documented
values.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit

from .test_rules_gradcheck import RNG, check, check_float32, normal, positive

AMAX = "aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
AMIN = "aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor"
PROD = "aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor"
PROD_DIM = ("aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
            "ScalarType? dtype=None) -> Tensor")
VAR = ("aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
       "bool keepdim=False) -> Tensor")
STD = ("aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
       "bool keepdim=False) -> Tensor")
SLICE = ("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
         "SymInt step=1) -> Tensor(a)")
FLIP = "aten::flip(Tensor self, int[] dims) -> Tensor"
CUMSUM = "aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor"
GETITEM = "aten::__getitem__(t[] list, int idx) -> t"
PAD = "fusejit::pad(Tensor self, int[] pad, str mode) -> Tensor"


def graph(body: str) -> str:
    return f"""graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  {body}
  return (%y)"""


def dims(value) -> str:
    return "%d : int[] = prim::Constant[value=" + str(list(value)) + "]()\n  "


def pairs_tied(*shape: int) -> np.ndarray:
    """Random values whose largest and smallest along the last axis come twice (a two-way tie
    is where finite differences and PyTorch's even split agree: each gets half)."""
    x = normal(*shape)
    top, bottom = x.max(axis=-1) + 0.5, x.min(axis=-1) - 0.5
    x[..., 1] = x[..., 2] = top
    x[..., 0] = x[..., 3] = bottom
    return x


def with_zeros(*shape: int) -> np.ndarray:
    """Rows with no zero, one zero and two zeros: prod_backward's three cases."""
    x = normal(*shape)
    x[1, 2] = 0.0
    x[2, 0] = x[2, 3] = 0.0
    return x


MORE_CASES = [
    (AMAX, graph(dims([1]) + "%y : Tensor = aten::amax(%x, %d, %f)"),
     [(normal(3, 5),), (pairs_tied(3, 5),)]),
    (AMAX, graph(dims([0, -1]) + "%y : Tensor = aten::amax(%x, %d, %t)"), [(normal(2, 3, 4),)]),
    (AMAX, graph(dims([]) + "%y : Tensor = aten::amax(%x, %d, %f)"),
     [(normal(3, 4),), (normal(),)]),
    (AMIN, graph(dims([-1]) + "%y : Tensor = aten::amin(%x, %d, %t)"),
     [(normal(3, 5),), (pairs_tied(2, 3, 5),)]),
    (AMIN, graph(dims([]) + "%y : Tensor = aten::amin(%x, %d, %f)"), [(normal(6),)]),
    (PROD, graph("%y : Tensor = aten::prod(%x, %none)"),
     [(normal(3, 4),), (with_zeros(4, 4)[:2],), (with_zeros(4, 4)[2:],), (normal(),)]),
    (PROD_DIM, graph("%one : int = prim::Constant[value=1]()\n"
                     "  %y : Tensor = aten::prod(%x, %one, %f, %none)"),
     [(normal(3, 4),), (with_zeros(3, 4),)]),
    (PROD_DIM, graph("%z : int = prim::Constant[value=-2]()\n"
                     "  %y : Tensor = aten::prod(%x, %z, %t, %none)"),
     [(normal(2, 3, 4),), (with_zeros(4, 4).T.copy(),)]),
    (VAR, graph("%y : Tensor = aten::var(%x, %none, %none, %f)"), [(normal(3, 4),)]),
    (VAR, graph(dims([1]) + "%c : int = prim::Constant[value=0]()\n"
                "  %y : Tensor = aten::var(%x, %d, %c, %f)"), [(normal(3, 4),)]),
    (VAR, graph(dims([0, 2]) + "%c : float = prim::Constant[value=2.]()\n"
                "  %y : Tensor = aten::var(%x, %d, %c, %t)"), [(normal(3, 2, 4),)]),
    (STD, graph("%y : Tensor = aten::std(%x, %none, %none, %f)"), [(normal(3, 4),)]),
    (STD, graph(dims([-1]) + "%c : int = prim::Constant[value=0]()\n"
                "  %y : Tensor = aten::std(%x, %d, %c, %t)"), [(normal(3, 4),), (normal(2, 2, 5),)]),
    (SLICE, graph("%one : int = prim::Constant[value=1]()\n"
                  "  %y : Tensor = aten::slice(%x, %one, %one, %none, %one)"), [(normal(3, 4),)]),
    (SLICE, graph("%z : int = prim::Constant[value=0]()\n"
                  "  %two : int = prim::Constant[value=2]()\n"
                  "  %m : int = prim::Constant[value=-1]()\n"
                  "  %y : Tensor = aten::slice(%x, %z, %none, %m, %two)"), [(normal(6, 2),)]),
    (SLICE, graph("%m : int = prim::Constant[value=-1]()\n"
                  "  %a : int = prim::Constant[value=-3]()\n"
                  "  %b : int = prim::Constant[value=100]()\n"
                  "  %one : int = prim::Constant[value=1]()\n"
                  "  %y : Tensor = aten::slice(%x, %m, %a, %b, %one)"), [(normal(2, 5),)]),
    (FLIP, graph(dims([0]) + "%y : Tensor = aten::flip(%x, %d)"), [(normal(4),)]),
    (FLIP, graph(dims([0, -1]) + "%y : Tensor = aten::flip(%x, %d)"), [(normal(2, 3, 4),)]),
    (CUMSUM, graph("%z : int = prim::Constant[value=0]()\n"
                   "  %y : Tensor = aten::cumsum(%x, %z, %none)"), [(normal(5),), (normal(),)]),
    (CUMSUM, graph("%m : int = prim::Constant[value=-1]()\n"
                   "  %y : Tensor = aten::cumsum(%x, %m, %none)"), [(normal(3, 4),)]),
    (GETITEM, graph("%m : int = prim::Constant[value=-1]()\n"
                    "  %e : Tensor = aten::exp(%x)\n"
                    "  %l : Tensor[] = prim::ListConstruct(%x, %e, %x)\n"
                    "  %a : Tensor = aten::__getitem__(%l, %m)\n"
                    "  %one : int = prim::Constant[value=1]()\n"
                    "  %b : Tensor = aten::__getitem__(%l, %one)\n"
                    "  %y : Tensor = aten::mul(%a, %b)"), [(normal(3, 4),)]),
    # (np.pad's copying modes: ends wider than the array repeat its pattern)
    *((PAD, graph(dims(widths) + f'%s : str = prim::Constant[value="{mode}"]()\n'
                  "  %y : Tensor = fusejit::pad(%x, %d, %s)"), [(normal(*shape),)])
      for mode in ("edge", "wrap", "reflect", "symmetric")
      for shape, widths in (((4,), [2, 3]), ((3, 4), [1, 0, 2, 5]), ((2, 3, 2), [0, 1, 3, 0, 1, 1]))),
]

PARAMS = [pytest.param(ir, args, id=f"{schema.split('(')[0]}-{i}-{j}")
          for i, (schema, ir, arg_sets) in enumerate(MORE_CASES)
          for j, args in enumerate(arg_sets)]


@pytest.mark.parametrize("ir, args", PARAMS)
def test_vjp_matches_finite_differences(ir: str, args: tuple) -> None:
    check(ir, *args)


@pytest.mark.parametrize("ir, args", PARAMS)
def test_float32_gradients_keep_their_dtype_and_agree_with_float64(ir: str, args: tuple) -> None:
    check_float32(ir, *args)


def test_three_way_ties_share_the_gradient_evenly() -> None:
    # scale_grad_by_count: each of k tied maxima gets 1/k (finite differences would say 1/2)
    ir = graph(dims([1]) + "%y : Tensor = aten::amax(%x, %d, %f)")
    x = np.array([[1.0, 3.0, 3.0, 3.0], [0.5, 2.0, -1.0, 0.0]])
    out, vjp_fn = fusejit.vjp(fusejit.parse_ir(ir), x, fuse=False, engine="reference")
    (got,) = vjp_fn(np.array([6.0, 1.0]))
    np.testing.assert_array_equal(got, [[0.0, 2.0, 2.0, 2.0], [0.0, 1.0, 0.0, 0.0]])


def test_std_of_a_constant_row_has_a_zero_gradient() -> None:
    # std_backward: masked_fill_(result == 0, 0), where sqrt has no derivative
    ir = graph(dims([1]) + "%y : Tensor = aten::std(%x, %d, %none, %f)")
    x = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    out, vjp_fn = fusejit.vjp(fusejit.parse_ir(ir), x, fuse=False, engine="reference")
    cot = RNG.standard_normal(2)
    (got,) = vjp_fn(cot)
    np.testing.assert_array_equal(got[0], 0.0)
    row = x[1]
    want = cot[1] * (row - row.mean()) / ((len(row) - 1) * np.std(row, ddof=1))
    np.testing.assert_allclose(got[1], want, rtol=1e-12)


def test_cumsum_with_a_dtype_gives_the_gradient_in_the_input_dtype() -> None:
    # cumsum_backward(grad.to(self.scalar_type()), dim): a float32 input summed in float64
    ir = graph("%z : int = prim::Constant[value=1]()\n"
               "  %dt : int = prim::Constant[value=7]()\n"
               "  %y : Tensor = aten::cumsum(%x, %z, %dt)")
    x = normal(2, 4).astype(np.float32)
    out, vjp_fn = fusejit.vjp(fusejit.parse_ir(ir), x, fuse=False, engine="reference")
    cot = RNG.standard_normal(out.shape)
    (got,) = vjp_fn(cot)
    assert out.dtype == np.float64 and got.dtype == np.float32
    want = np.flip(np.cumsum(np.flip(cot, 1), 1), 1)    # each input feeds every later sum
    # (summed in float32, as PyTorch sums it after grad.to(float32))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("body", [
    "%y : Tensor = aten::prod(%x, %dt)", "%y : Tensor = aten::sum(%x, %dt)",
    "%one : int = prim::Constant[value=1]()\n  %y : Tensor = aten::prod(%x, %one, %f, %dt)"])
def test_a_reduction_in_float64_of_a_float32_input_gives_a_float32_gradient(body: str) -> None:
    # PyTorch's engine casts each input's gradient to the input's dtype
    ir = graph("%dt : int = prim::Constant[value=7]()\n  " + body)
    x = positive(2, 3)
    out, vjp_fn = fusejit.vjp(fusejit.parse_ir(ir), x.astype(np.float32), fuse=False,
                              engine="reference")
    (got,) = vjp_fn(np.ones(out.shape))
    assert out.dtype == np.float64 and got.dtype == np.float32
    _, vjp64 = fusejit.vjp(fusejit.parse_ir(ir), x.astype(np.float32).astype(np.float64),
                           fuse=False, engine="reference")
    np.testing.assert_allclose(got, vjp64(np.ones(out.shape))[0], rtol=1e-6)
