"""Inputs a fused kernel declines (big-endian, float16, ``np.matrix``, masked arrays, more than
32 dimensions) do not fail the fused call: the group is interpreted, and the result is the
unfused path's (same type, dtype, shape and values), on both engines, also after the native
loop bound its kernel slots to plain inputs. The kernel itself
declines them, and a scalar beyond int64, with an ``InterpreterError``."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel

TEXT = """graph(%x : Tensor, %y : Tensor, %k : int):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::tanh(%a)
  %c : Tensor = aten::add(%b, %x, %one)
  %d : Tensor = aten::mul(%c, %k)
  %e : Tensor = aten::sigmoid(%d)
  %f : Tensor = aten::sub(%e, %y, %one)
  %g : Tensor = aten::relu(%f)
  return (%g)
"""

RNG = np.random.default_rng(7)
_X = RNG.standard_normal((3, 4)).astype(np.float32)
_Y = RNG.standard_normal((3, 4)).astype(np.float32)

ODD = {
    "big_endian": lambda: (_X.astype(">f4"), _Y.astype(">f4"), 2),
    "big_endian_float64": lambda: (_X.astype(">f8"), _Y, 2),
    "float16": lambda: (_X.astype(np.float16), _Y.astype(np.float16), 2),
    "matrix": lambda: (np.asmatrix(_X), np.asmatrix(_Y), 2),
    "masked": lambda: (np.ma.masked_greater(_X, 0.5), _Y, 2),
    "rank_33": lambda: (_X[0].reshape((1,) * 32 + (4,)), _Y[0], 2),
    "native": lambda: (_X, _Y, 2),    # the ordinary case, for contrast
}


def _same(got, want) -> None:
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        if isinstance(want, np.ma.MaskedArray):
            # (the data under the mask is unspecified: compare the mask and the rest)
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
            got, want = got.filled(0), want.filled(0)
        # (a group after the declined one may run its kernel: vectorised sigmoid, a few ulp)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def _outcome(fn, args):
    try:
        return fn(*args), None
    except fusejit.FusejitError as error:
        return None, str(error)


@pytest.mark.parametrize("engine", ["native", "reference"])
@pytest.mark.parametrize("case", list(ODD))
def test_a_declined_input_runs_interpreted_with_the_unfused_result(case, engine):
    graph = fusejit.parse_ir(TEXT)
    fused = fusejit.compile(graph, fuse=True, engine=engine)
    unfused = fusejit.compile(fusejit.parse_ir(TEXT), fuse=False, engine="reference")
    for _ in range(2):   # plain inputs first: the native loop binds its kernel slots
        fused(*ODD["native"]())
    got, got_error = _outcome(fused, ODD[case]())
    want, want_error = _outcome(unfused, ODD[case]())
    assert (got_error is None) == (want_error is None), (got_error, want_error)
    if want_error is None:
        _same(got, want)
    if case == "native":
        assert any(n.kind == "prim::FusionGroup" for n in fused.graph_for(*ODD[case]())
                   .all_nodes())


@pytest.mark.parametrize("case", [c for c in ODD if c != "native"])
def test_the_kernel_itself_declines_with_an_interpreter_error(case):
    fused = fusejit.compile(fusejit.parse_ir(TEXT), fuse=True)
    group = next(n for n in fused.graph_for(*ODD["native"]()).nodes()
                 if n.kind == "prim::FusionGroup")   # mul, tanh, add of (x, y)
    x, y, _ = ODD[case]()
    kernel = FusedKernel(group)
    with pytest.raises(fusejit.InterpreterError, match="fused kernel input"):
        kernel(x, y)
    (got,) = kernel(_X, _Y)
    np.testing.assert_allclose(got, np.tanh(_X * _Y) + _X, rtol=1e-6)


def test_a_scalar_beyond_int64_is_declined():
    """Also on a signature called before, whose later calls skip the full checks; the group
    takes its scalar first (the kernel takes tensors first: later calls reorder)."""
    group = fusejit.parse_ir("""graph(%k : int, %x : Float(*)):
  %y : Float(*) = aten::mul(%x, %k)
  return (%y)
""")
    kernel = FusedKernel(group)
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(fusejit.InterpreterError, match="beyond int64"):
        kernel(2**63, x)
    for k in (3, -7, np.int64(5), np.int32(-2), np.uint64(9), 3):
        np.testing.assert_array_equal(kernel(k, x)[0], x * int(k))
    for k in (2**63, -2**63 - 1, np.uint64(2**63)):
        with pytest.raises(fusejit.InterpreterError, match="beyond int64"):
            kernel(k, x)
    with pytest.raises(fusejit.InterpreterError, match="must be a number"):
        kernel("3", x)
    with pytest.raises(fusejit.InterpreterError, match="must be a NumPy array"):
        kernel(3, list(x))
    np.testing.assert_array_equal(kernel(1, x[::-1])[0], x[::-1])
