"""Ops added as one entry each (the op table's promise: a new pointwise op is one entry plus
its tests), checked against values worked out by hand. The whole-table tests
(``test_table.py``, ``tests/cuda/test_op_table.py``) also run them on every engine."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import InterpreterError, IRError
from fusejit.ir.parser import parse_ir
from fusejit.oplib import OPS
from fusejit.runtime.fusion import FusedKernel

NAN = float("nan")


def _one_node(call: str, dtype: str = "Float") -> str:
    return f"""graph(%x : {dtype}(*)):
  %beta : int = prim::Constant[value=2]()
  %threshold : float = prim::Constant[value=4.]()
  %r : Tensor = {call}
  return (%r)
"""


def _run_everywhere(text: str, x: np.ndarray) -> list[np.ndarray]:
    """Results of the reference and native interpreters and of a fused kernel."""
    results = [fusejit.compile(parse_ir(text), engine=engine)(x)
               for engine in ("reference", "native")]
    results.append(FusedKernel(parse_ir(text))(x)[0])
    return results


def _kinds_outside_groups(text: str) -> list[str]:
    graph = parse_ir(text)
    fusejit.fuse_graph(graph)
    return [n.kind for n in graph.nodes() if n.kind.startswith("aten::")]


# -- hardsigmoid ----------------------------------------------------------------------------------

def test_hardsigmoid_values():
    x = np.array([-4.0, -3.0, -1.5, 0.0, 1.5, 3.0, 10.0, NAN], np.float32)
    want = np.array([0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, NAN], np.float32)  # relu6(x + 3) / 6
    for got in _run_everywhere(_one_node("aten::hardsigmoid(%x)"), x):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=0)


def test_hardsigmoid_refuses_integers():
    text = _one_node("aten::hardsigmoid(%x)", "Long")
    with pytest.raises(InterpreterError, match="hardsigmoid is not implemented for Long"):
        fusejit.compile(parse_ir(text), engine="reference")(np.arange(3))
    with pytest.raises(IRError, match="only defined for floating tensors"):
        FusedKernel(parse_ir(text)).source(np.arange(3))


def test_hardsigmoid_is_not_fused_as_in_pytorch():
    # PyTorch's legacy fuser has no hardsigmoid in its simple-map list: the mul/add pair forms
    # a group, the hardsigmoid stays outside.
    assert _kinds_outside_groups("""graph(%x : Float(4), %y : Float(4)):
  %one : int = prim::Constant[value=1]()
  %m : Float(4) = aten::mul(%x, %y)
  %a : Float(4) = aten::add(%m, %y, %one)
  %h : Float(4) = aten::hardsigmoid(%a)
  return (%h)
""") == ["aten::hardsigmoid"]


# -- softplus -------------------------------------------------------------------------------------

SOFTPLUS_DEFAULTS = """graph(%x : Float(*)):
  %one : int = prim::Constant[value=1]()
  %twenty : int = prim::Constant[value=20]()
  %r : Tensor = aten::softplus(%x, %one, %twenty)
  return (%r)
"""


@pytest.mark.parametrize("text, x, want", [
    # beta 1, threshold 20: log(1 + e^x); above 20, x itself (exactly)
    (SOFTPLUS_DEFAULTS, [0.0, 1.0, -5.0, 30.0, NAN],
     [0.6931471805599453, 1.3132616875182228, 0.006715348489117967, 30.0, NAN]),
    # beta 2, threshold 4: log(1 + e^(2x)) / 2 while 2x <= 4
    (_one_node("aten::softplus(%x, %beta, %threshold)"), [1.0, 2.0, 2.5, -1.0],
     [1.0634640055214863, 2.0090749639589047, 2.5, 0.06346400552148625]),
])
def test_softplus_values(text, x, want):
    x = np.array(x, np.float32)
    for got in _run_everywhere(text, x):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.array(want, np.float32), rtol=4e-7, atol=0)


def test_softplus_refuses_integers():
    text = _one_node("aten::softplus(%x, %beta, %threshold)", "Long")
    with pytest.raises(InterpreterError, match="softplus is not implemented for Long"):
        fusejit.compile(parse_ir(text), engine="reference")(np.arange(3))
    with pytest.raises(IRError, match="only defined for floating tensors"):
        FusedKernel(parse_ir(text)).source(np.arange(3))


def test_softplus_is_not_fused_as_in_pytorch():
    assert _kinds_outside_groups("""graph(%x : Float(4), %y : Float(4)):
  %one : int = prim::Constant[value=1]()
  %twenty : int = prim::Constant[value=20]()
  %m : Float(4) = aten::mul(%x, %y)
  %a : Float(4) = aten::add(%m, %y, %one)
  %s : Float(4) = aten::softplus(%a, %one, %twenty)
  return (%s)
""") == ["aten::softplus"]


# -- clamp_min, clamp_max, clamp with Tensor bounds ----------------------------------------------

def _two_inputs(call: str) -> str:
    return f"""graph(%x : Float(*, *), %b : Float(*)):
  %none : NoneType = prim::Constant()
  %lo : float = prim::Constant[value=-0.5]()
  %r : Tensor = {call}
  return (%r)
"""


@pytest.mark.parametrize("call, oracle", [
    ("aten::clamp_min(%x, %lo)", lambda x, b: np.maximum(x, np.float32(-0.5))),
    ("aten::clamp_max(%x, %lo)", lambda x, b: np.minimum(x, np.float32(-0.5))),
    ("aten::clamp_min(%x, %b)", np.maximum),
    ("aten::clamp_max(%x, %b)", np.minimum),
    ("aten::clamp(%x, %b, %none)", np.maximum),
    ("aten::clamp(%x, %none, %b)", np.minimum),
    ("aten::clamp(%x, %b, %x)", lambda x, b: np.minimum(np.maximum(x, b), x)),
])
def test_clamp_bounds_broadcast_and_propagate_nan(call, oracle):
    x = np.array([[-2.0, -0.25, 0.5, NAN], [3.0, -1.0, 0.0, 1.0]], np.float32)
    b = np.array([0.0, -1.0, NAN, 0.5], np.float32)        # broadcast over the rows
    for engine in ("reference", "native"):
        got = fusejit.compile(parse_ir(_two_inputs(call)), engine=engine)(x, b)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, oracle(x, b))


def test_clamp_with_no_tensor_bound_is_refused():
    fn = fusejit.compile(parse_ir(_two_inputs("aten::clamp(%x, %none, %none)")),
                         engine="reference")
    with pytest.raises(InterpreterError, match="At least one of 'min' or 'max'"):
        fn(np.zeros((1, 4), np.float32), np.zeros(4, np.float32))


# -- in-place unary forms: every unary op of the table has its ``name_`` ---------------------------

# Factories take a tensor only for its shape and dtype: PyTorch has no in-place form of them;
# nor has an op whose result is not of its input's shape (np.unique's values, nonzero).
NO_INPLACE_FORM = {"aten::zeros_like", "aten::ones_like", "aten::rand_like",
                   "fusejit::unique_values", "aten::nonzero", "fusejit::flatnonzero",
                   "aten::signbit"}


def _unary_inplace_pairs() -> list[tuple[str, str | None]]:
    """(schema, its in-place form's schema or None) for every Tensor -> Tensor op of one tensor
    (logit's optional eps included)."""
    pairs = []
    for schema in OPS:
        name = schema.split("(", 1)[0]
        unary = schema.startswith(f"{name}(Tensor self) -> Tensor") or schema.startswith(
            f"{name}(Tensor self, float? eps=None) -> Tensor")
        if unary and schema.endswith("-> Tensor") and name not in NO_INPLACE_FORM:
            pairs.append((schema, next(
                (s for s in OPS if s.startswith(f"{name}_(Tensor(a!) self")), None)))
    return pairs


UNARY_INPLACE = _unary_inplace_pairs()


def test_every_unary_op_has_its_inplace_form():
    assert [schema for schema, form in UNARY_INPLACE if form is None] == []
    assert len(UNARY_INPLACE) >= 34     # 22 float functions, 8 keeping the dtype, 4 more


@pytest.mark.parametrize("schema, inplace_schema",
                         UNARY_INPLACE)
def test_inplace_form_writes_the_out_of_place_result_through_a_view(schema, inplace_schema):
    base = np.array([[0.25, -0.75, 1.5], [0.5, 2.0, -3.0]], np.float32)
    if "logical_not" in schema:
        base[0, 0] = 0.0
    want = OPS[schema].numpy_body(base.T.copy())
    view = base.T                                   # a strided view: the write must reach base
    got = OPS[inplace_schema].numpy_body(view)
    assert got is view and got.dtype == np.float32
    np.testing.assert_array_equal(base.T, want.astype(np.float32))


def test_inplace_float_function_refuses_an_integer_tensor():
    x = np.arange(3)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        OPS["aten::exp_(Tensor(a!) self) -> Tensor(a!)"].numpy_body(x)
    np.testing.assert_array_equal(x, [0, 1, 2])     # left untouched


def test_exp_inplace_in_a_graph_is_seen_by_later_uses():
    text = """graph(%a : Float(4), %b : Float(4)):
  %one : int = prim::Constant[value=1]()
  %c : Float(4) = aten::mul(%a, %b)
  %d : Tensor = aten::exp_(%c)
  %e : Float(4) = aten::add(%c, %a, %one)
  return (%e, %d)
"""
    a = np.array([0.0, 1.0, -1.0, 0.5], np.float32)
    b = np.array([1.0, 2.0, 3.0, -4.0], np.float32)
    for engine in ("reference", "native"):
        e, d = fusejit.compile(parse_ir(text), engine=engine)(a, b)
        np.testing.assert_allclose(d, np.exp(a * b), rtol=1e-6)
        np.testing.assert_allclose(e, np.exp(a * b) + a, rtol=1e-6)


# -- digamma (lgamma's derivative) ------------------------------------------------------------------

def test_digamma_values_and_poles():
    euler = 0.5772156649015329
    x = np.array([1.0, 0.5, 2.0, -0.5, 0.0, -0.0, -1.0], np.float64)
    # psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2, psi(2) = 1 - gamma, psi(-1/2) = 2 - gamma
    # - 2 ln 2; -inf at +0 and +inf at -0 (the pole's sides), NaN at a negative integer
    want = [-euler, -euler - 2 * np.log(2), 1 - euler, 2 - euler - 2 * np.log(2),
            -np.inf, np.inf, NAN]
    got = OPS["aten::digamma(Tensor self) -> Tensor"].numpy_body(x)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    as_float = OPS["aten::digamma(Tensor self) -> Tensor"].numpy_body(np.arange(1, 3))
    assert as_float.dtype == np.float32
    np.testing.assert_allclose(as_float, [-euler, 1 - euler], rtol=1e-7)


@pytest.mark.parametrize("fill", [0, 0.0, -0.0, False, True, 2, 1.5, float("nan"), float("-inf")])
def test_filled_arrays_are_numpys_bit_for_bit(fill):
    """``aten::full``/``full_like``/``zeros`` take zeroed memory from the allocator for a fill
    of +0 (``np.zeros``): the same bits as ``np.full``, -0.0 kept."""
    from fusejit.oplib.numpy_ops import _full, _full_like, _new_filled

    for dtype in (np.float32, np.float64, np.int64, np.bool_):
        if not np.isfinite(fill) and not np.issubdtype(dtype, np.floating):
            continue            # (NumPy refuses or is undefined there)
        want = np.full((3, 5), fill, dtype)
        assert _new_filled((3, 5), fill, np.dtype(dtype)).tobytes() == want.tobytes()
    got = _full([2, 3], fill)
    assert got.tobytes() == np.full((2, 3), fill, got.dtype).tobytes()
    like = _full_like(np.ones((2, 2), np.float32), fill)
    assert like.dtype == np.float32
    assert like.tobytes() == np.full((2, 2), fill, np.float32).tobytes()


# -- pow by a number ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 2.0, 0.5, -1.0, np.float32(2.0)])
def test_pow_by_two_half_and_minus_one_is_np_powers_bits(dtype, exponent):
    """The interpreter's pow by 2, 0.5 or -1 (one ufunc: square, square root, reciprocal, as
    NumPy's ``x ** 2``) gives np.power's bits: every special value, subnormals, the largest
    floats (overflow to inf), signed zeros, and random values of every magnitude."""
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, info.max, -info.max,
                        info.tiny, info.smallest_subnormal, -info.smallest_subnormal], dtype)
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2 ** (8 * info.dtype.itemsize) - 1, 50000, dtype=np.uint64,
                        endpoint=True)
    random = bits.astype(np.uint32 if dtype == np.float32 else np.uint64).view(dtype)
    x = np.concatenate([special, random])
    body = OPS["aten::pow(Tensor self, Scalar exponent) -> Tensor"]
    with np.errstate(all="ignore"):
        got, want = np.asarray(body.numpy_body(x, exponent)), np.power(x, dtype(exponent))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want) | np.isnan(want) & np.signbit(got))
