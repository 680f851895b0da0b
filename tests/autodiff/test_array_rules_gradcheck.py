"""The rules of ``array_rules`` (permute, diagonal and its backward, diag_embed, triu/tril,
logaddexp, hypot, cbrt, convolve, index, index_put, select_scatter, slice_scatter, squeeze,
constant_pad_nd, interp, partition, linalg_inv/det/slogdet/solve, cumprod, and ``linalg_rules``/``remainder_rules``:
cholesky, svdvals, eigvalsh, eigh, remainder, fmod) against float64 central finite differences of the IR itself, over offsets,
dims, broadcast patterns and repeated indices; and in float32 (the gradient keeps the input's
dtype and agrees with float64's). The reference engine runs them: no kernel is compiled.
"""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.autodiff.rules import RULES

from .test_rules_gradcheck import PAIRS, check, check_float32, normal, positive


def graph(inputs: str, body: str) -> str:
    return f"""graph({inputs}):
  %none : NoneType = prim::Constant()
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %z : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  {body}
  return (%y)"""


def on_x(body: str) -> str:
    return graph("%x : Tensor", body)


def ints(name: str, value) -> str:
    return f"%{name} : int[] = prim::Constant[value={list(value)}]()\n  "


INDEX_INPUTS = "%x : Tensor, %i : Tensor"
REPEATED = np.array([4, 0, 4, -2, 1])

CASES = [
    (on_x(ints("d", [2, 0, 1]) + "%y : Tensor = aten::permute(%x, %d)"), [(normal(2, 3, 4),)]),
    (on_x("%y : Tensor = aten::diagonal(%x, %z, %z, %one)"), [(normal(3, 4),), (normal(4, 3),)]),
    (on_x("%y : Tensor = aten::diagonal(%x, %one, %z, %one)"), [(normal(3, 4),)]),
    (on_x("%y : Tensor = aten::diagonal(%x, %m1, %two, %z)"), [(normal(3, 2, 4),)]),
    (on_x(ints("s", [3, 4]) + "%y : Tensor = aten::diagonal_backward(%x, %s, %one, %z, %one)"),
     [(normal(3),)]),
    (on_x("%y : Tensor = aten::diag_embed(%x, %z, %z, %one)"), [(normal(3),)]),
    (on_x("%y : Tensor = aten::diag_embed(%x, %m1, %m1, %z)"), [(normal(2, 3),)]),
    (on_x("%y : Tensor = aten::triu(%x, %z)"), [(normal(3, 4),), (normal(2, 3, 3),)]),
    (on_x("%y : Tensor = aten::triu(%x, %one)"), [(normal(4, 3),)]),
    (on_x("%y : Tensor = aten::tril(%x, %m1)"), [(normal(3, 4),)]),
    (graph("%a : Tensor, %b : Tensor", "%y : Tensor = aten::logaddexp(%a, %b)"),
     [(normal(*sa), normal(*sb)) for sa, sb in PAIRS]),
    # (np.cbrt, both signs, away from 0 where its slope is infinite)
    (on_x("%y : Tensor = fusejit::cbrt(%x)"), [(positive(3, 4) + 0.5,), (-positive(5) - 0.5,)]),
    (graph("%a : Tensor, %b : Tensor", "%y : Tensor = aten::hypot(%a, %b)"),
     [(positive(*sa), -positive(*sb)) for sa, sb in PAIRS]),
    # (np.convolve in its three modes, the first operand longer, shorter and as long)
    *[(graph("%a : Tensor, %b : Tensor", f"%y : Tensor = fusejit::convolve(%a, %b, %{mode})"),
       [(normal(7), normal(3)), (normal(2), normal(5)), (normal(4), normal(4))])
      for mode in ("z", "one", "two")],
    (graph(INDEX_INPUTS, "%l : Tensor?[] = prim::ListConstruct(%i)\n"
                         "  %y : Tensor = aten::index(%x, %l)"),
     [(normal(5, 3), REPEATED), (normal(5), REPEATED[:, None] % 5)]),
    (graph(INDEX_INPUTS, "%l : Tensor?[] = prim::ListConstruct(%none, %i)\n"
                         "  %y : Tensor = aten::index(%x, %l)"), [(normal(2, 5, 3), REPEATED)]),
    (graph(INDEX_INPUTS, "%l : Tensor?[] = prim::ListConstruct(%i, %i)\n"
                         "  %y : Tensor = aten::index(%x, %l)"), [(normal(5, 5, 2), REPEATED)]),
    (graph(INDEX_INPUTS + ", %v : Tensor",
           "%l : Tensor?[] = prim::ListConstruct(%i)\n"
           "  %y : Tensor = aten::index_put(%x, %l, %v, %t)"),
     [(normal(5, 3), REPEATED, normal(5, 3)), (normal(5, 3), REPEATED, normal(3))]),
    (graph(INDEX_INPUTS + ", %v : Tensor",
           "%l : Tensor?[] = prim::ListConstruct(%i)\n"
           "  %y : Tensor = aten::index_put(%x, %l, %v, %f)"),
     [(normal(5, 3), np.array([3, 0, -1]), normal(3, 3)), (normal(5), np.array([1, 2]),
                                                           normal())]),
    (graph("%x : Tensor, %v : Tensor", "%y : Tensor = aten::select_scatter(%x, %v, %one, %m1)"),
     [(normal(3, 4), normal(3))]),
    (graph("%x : Tensor, %v : Tensor",
           "%y : Tensor = aten::slice_scatter(%x, %v, %z, %one, %none, %two)"),
     [(normal(5, 2), normal(2, 2))]),
    # (np.interp: points inside the samples' intervals, on neither side of one, outside on
    # both sides; fp's ends or given values outside)
    *[(graph("%x : Tensor, %p : Tensor, %v : Tensor" + ends,
             f"%y : Tensor = fusejit::interp(%x, %p, %v, {given})"),
       [(np.array([-0.5, 0.3, 1.2, 1.9, 2.2, 3.1, 4.5, 0.7]), np.array([0.0, 1.0, 1.5, 2.5, 4.0]),
         normal(5), *extra)])
      for ends, given, extra in [("", "%none, %none", ()),
                                 (", %l : Tensor, %r : Tensor", "%l, %r", (normal(), normal()))]],
    (on_x("%y : Tensor = aten::squeeze(%x)"), [(normal(3, 1, 4),), (normal(1, 1),)]),
    (on_x(ints("p", [1, 2]) + "%y : Tensor = aten::constant_pad_nd(%x, %p, %two)"),
     [(normal(2, 3),)]),
    (on_x(ints("p", [0, 1, -1, 2]) + "%y : Tensor = aten::constant_pad_nd(%x, %p, %z)"),
     [(normal(3, 2, 3),)]),
]



def conditioned(*shape: int) -> np.ndarray:
    """Square matrices far from singular (the identity times 3, plus noise)."""
    return normal(*shape) * 0.5 + 3.0 * np.eye(shape[-1])




def with_zeros(*shape: int) -> np.ndarray:
    """Rows with no zero, one zero and two zeros (where a division-based gradient fails)."""
    x = normal(*shape)
    x[1, 2] = 0.0
    x[2, 0] = x[2, 3] = 0.0
    return x


CASES += [
    (on_x("%y : Tensor = aten::cumprod(%x, %one, %none)"), [(normal(3, 4),), (with_zeros(3, 4),)]),
    (on_x("%y : Tensor = aten::cumprod(%x, %z, %none)"), [(normal(5),), (normal(),)]),
    # (np.maximum.accumulate and np.minimum.accumulate: each running extreme's gradient to the
    # element it is, along either axis; distinct values, so no tie moves under a difference)
    (on_x("%y : Tensor = fusejit::maximum_accumulate(%x, %z)"), [(normal(9),), (normal(4, 3),)]),
    (on_x("%y : Tensor = fusejit::maximum_accumulate(%x, %m1)"), [(normal(3, 5),)]),
    (on_x("%y : Tensor = fusejit::minimum_accumulate(%x, %one)"), [(normal(2, 6),)]),
    (on_x("%y : Tensor = aten::linalg_inv(%x)"), [(conditioned(3, 3),), (conditioned(2, 3, 3),)]),
    (on_x("%y : Tensor = aten::linalg_det(%x)"), [(conditioned(3, 3),), (conditioned(2, 2, 2),)]),
    # (np.partition: each output's gradient back where its value came from, along either
    # axis, the kth negative and several)
    (on_x(ints("k", [2]) + "%y : Tensor = fusejit::partition(%x, %k, %z)"), [(normal(7),)]),
    (on_x(ints("k", [1, -2]) + "%y : Tensor = fusejit::partition(%x, %k, %one)"),
     [(normal(3, 6),)]),
    (on_x(ints("k", [0]) + "%y : Tensor = fusejit::partition(%x, %k, %z)"), [(normal(4, 3),)]),
    # (log|det|, of a negative determinant too; the sign has no gradient)
    (on_x("%s : Tensor, %y : Tensor = aten::linalg_slogdet(%x)"),
     [(conditioned(3, 3),), (-conditioned(3, 3),), (conditioned(2, 2, 2),)]),
    (graph("%a : Tensor, %b : Tensor", "%y : Tensor = aten::linalg_solve(%a, %b, %t)"),
     [(conditioned(3, 3), normal(3)), (conditioned(3, 3), normal(3, 2))]),
]


def symmetric(*shape: int) -> np.ndarray:
    """Symmetric positive definite matrices with distinct eigenvalues."""
    a = normal(*shape)
    return a @ np.swapaxes(a, -1, -2) + np.diag(np.arange(1.0, shape[-1] + 1))


def uplo(which: str) -> str:
    return f'%u : str = prim::Constant[value="{which}"]()\n  '


# (the factorisations read one triangle, as NumPy's do: perturbing the other changes nothing,
# which the finite differences see too)
CASES += [
    (on_x("%y : Tensor = aten::linalg_cholesky(%x, %f)"), [(symmetric(3, 3),),
                                                           (symmetric(2, 3, 3),)]),
    (on_x("%y : Tensor = aten::linalg_svdvals(%x, %none)"), [(normal(3, 4),), (normal(2, 3, 2),)]),
    (on_x(uplo("L") + "%y : Tensor = aten::linalg_eigvalsh(%x, %u)"), [(symmetric(3, 3),)]),
    (on_x(uplo("U") + "%y : Tensor = aten::linalg_eigvalsh(%x, %u)"), [(symmetric(2, 3, 3),)]),
    (on_x(uplo("L") + "%w : Tensor, %y : Tensor = aten::linalg_eigh(%x, %u)"),
     [(symmetric(3, 3),)]),
    (on_x(uplo("U") + "%y : Tensor, %v : Tensor = aten::linalg_eigh(%x, %u)"),
     [(symmetric(2, 3, 3),)]),
    (graph("%a : Tensor, %b : Tensor", "%y : Tensor = aten::remainder(%a, %b)"),
     [(normal(3, 4), positive(3, 4) + 0.5), (normal(3, 4), -positive(4) - 0.5)]),
    (graph("%a : Tensor, %b : Tensor", "%y : Tensor = aten::fmod(%a, %b)"),
     [(normal(3, 4), positive(4) + 0.5)]),
    (on_x("%h : float = prim::Constant[value=0.7]()\n  %y : Tensor = aten::remainder(%x, %h)"),
     [(normal(3, 4),)]),
    (on_x("%h : float = prim::Constant[value=0.7]()\n  %y : Tensor = aten::fmod(%x, %h)"),
     [(normal(3, 4),)]),
]



def _kind(ir: str) -> str:
    return ir.split(" = ")[-1].split("(")[0]


# The rules these cases check (for test_rules_gradcheck's "every rule has a check"): each
# schema of the op the case's last node runs
ARRAY_SCHEMAS = {schema for ir, _ in CASES for schema in RULES
                 if schema.split("(")[0].split(".")[0] == _kind(ir)}

PARAMS = [pytest.param(ir, args, id=f"{_kind(ir)[6:]}-{i}-{j}")
          for i, (ir, arg_sets) in enumerate(CASES) for j, args in enumerate(arg_sets)]


@pytest.mark.parametrize("ir, args", PARAMS)
def test_vjp_matches_finite_differences(ir: str, args: tuple) -> None:
    check(ir, *args)


# (check_float32 casts every array: the cases with integer indices are left out)
FLOAT_PARAMS = [p for p in PARAMS if all(a.dtype.kind == "f" for a in p.values[1])]


@pytest.mark.parametrize("ir, args", FLOAT_PARAMS[::2])
def test_float32_gradients_keep_their_dtype_and_agree_with_float64(ir: str, args: tuple) -> None:
    check_float32(ir, *args)


def test_a_gathered_row_used_twice_gets_both_gradients() -> None:
    # index_backward accumulates: x[[1, 1]] sends row 1 the sum of both rows' gradients
    import fusejit

    ir = graph(INDEX_INPUTS, "%l : Tensor?[] = prim::ListConstruct(%i)\n"
                             "  %y : Tensor = aten::index(%x, %l)")
    x, i = normal(3, 2), np.array([1, 1])
    _, vjp_fn = fusejit.vjp(fusejit.parse_ir(ir), x, i, fuse=False, engine="reference")
    cot = np.array([[1.0, 2.0], [10.0, 20.0]])
    np.testing.assert_array_equal(vjp_fn(cot)[0], [[0.0, 0.0], [11.0, 22.0], [0.0, 0.0]])
