"""Every entry of the derivative table against float64 central finite differences.

Each case is a one-op graph; its vector-Jacobian product with a random cotangent (through
``fusejit.vjp``) must match the finite-difference derivative of ``sum(f(x) * cotangent)``
computed by running the forward graph on the reference interpreter. Binary ops are checked on
broadcast patterns too, so the ``_grad_sum_to_size`` reductions are exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.autodiff.rules import RULES

RNG = np.random.default_rng(19)
TOL = 1e-6


def normal(*shape: int) -> np.ndarray:
    return np.asarray(RNG.standard_normal(shape))


def positive(*shape: int) -> np.ndarray:
    return np.asarray(RNG.uniform(0.5, 2.0, shape))


def unit(*shape: int) -> np.ndarray:
    return np.asarray(RNG.uniform(-0.8, 0.8, shape))


def away_from_zero(*shape: int) -> np.ndarray:
    return np.asarray(RNG.choice([-1.0, 1.0], shape) * RNG.uniform(0.3, 2.0, shape))


def numeric_vjp(graph, args: list, cot: list, wrt: list[int], eps: float = 1e-6) -> list:
    fn = fusejit.compile(graph, engine="reference")

    def loss(values: list) -> float:
        outs = fn(*values)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum(float(np.sum(o * c)) for o, c in zip(outs, cot))

    grads = []
    for k in wrt:
        g = np.zeros_like(args[k])
        for idx in np.ndindex(args[k].shape):
            plus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            minus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (loss(plus) - loss(minus)) / (2 * eps)
        grads.append(g)
    return grads


def check(ir: str, *args) -> None:
    graph = fusejit.parse_ir(ir)
    args = list(args)
    outs, vjp_fn = fusejit.vjp(graph, *args, fuse=False, engine="reference")
    outs = outs if isinstance(outs, tuple) else (outs,)
    cot = [RNG.standard_normal(np.shape(o)) for o in outs]
    grads = vjp_fn(*cot)
    wrt = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    expected = numeric_vjp(graph, args, cot, wrt)
    for k, want in zip(wrt, expected):
        got = grads[k]
        assert got.shape == args[k].shape, (k, got.shape, args[k].shape)
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL, err_msg=f"input {k}\n{ir}")


def unary(op: str, make=normal) -> tuple:
    return (f"aten::{op}(Tensor self) -> Tensor", f"""graph(%x : Tensor):
  %y : Tensor = aten::{op}(%x)
  return (%y)""", [(make(3, 4),)])


# Broadcast patterns for binary ops: equal shapes, a row, a column against a row, a 0-d tensor.
PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]


def binary(schema: str, body: str, make_a=normal, make_b=normal) -> tuple:
    return (schema, f"""graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : float = prim::Constant[value=2.5]()
  {body}
  return (%y)""", [(make_a(*sa), make_b(*sb)) for sa, sb in PAIRS])


CASES = [
    unary("neg"), unary("exp"), unary("expm1"), unary("log", positive), unary("log2", positive),
    unary("log10", positive), unary("log1p", positive), unary("tanh"), unary("sigmoid"),
    unary("relu", away_from_zero), unary("sqrt", positive), unary("rsqrt", positive),
    unary("reciprocal", away_from_zero), unary("sin"), unary("cos"), unary("tan", unit),
    unary("sinh"), unary("cosh"), unary("atan"), unary("asin", unit), unary("acos", unit),
    unary("abs", away_from_zero), unary("erf"), unary("asinh"), unary("atanh", unit),
    unary("acosh", lambda *shape: 1.0 + positive(*shape)),
    binary("aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
           "%y : Tensor = aten::add(%a, %b, %two)"),
    binary("aten::sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
           "%y : Tensor = aten::sub(%a, %b, %one)"),
    binary("aten::mul(Tensor self, Tensor other) -> Tensor", "%y : Tensor = aten::mul(%a, %b)"),
    binary("aten::div(Tensor self, Tensor other) -> Tensor", "%y : Tensor = aten::div(%a, %b)",
           make_b=away_from_zero),
    binary("aten::div(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
           "%n : NoneType = prim::Constant()\n  %y : Tensor = aten::div(%a, %b, %n)",
           make_b=away_from_zero),
    binary("aten::pow(Tensor self, Tensor other) -> Tensor",
           "%y : Tensor = aten::pow(%a, %b)", make_a=positive),
    binary("aten::max(Tensor self, Tensor other) -> Tensor", "%y : Tensor = aten::max(%a, %b)"),
    binary("aten::min(Tensor self, Tensor other) -> Tensor", "%y : Tensor = aten::min(%a, %b)"),
    binary("aten::where(Tensor condition, Tensor self, Tensor other) -> Tensor",
           "%z : int = prim::Constant[value=0]()\n  %c : Tensor = aten::gt(%a, %z)\n"
           "  %y : Tensor = aten::where(%c, %a, %b)", make_a=away_from_zero),
    binary("aten::lerp(Tensor self, Tensor end, Scalar weight) -> Tensor",
           "%y : Tensor = aten::lerp(%a, %b, %two)"),
    binary("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) "
           "-> Tensor", "%y : Tensor = aten::addcmul(%a, %b, %a, %two)"),
    binary("aten::type_as(Tensor self, Tensor other) -> Tensor",
           "%y : Tensor = aten::type_as(%a, %b)"),
]


def scalar_case(schema: str, body: str, make=normal, scalar: str = "float",
                value: float = 1.5) -> tuple:
    return (schema, f"""graph(%x : Tensor, %s : {scalar}):
  %one : int = prim::Constant[value=1]()
  {body}
  return (%y)""", [(make(3, 4), value)])


def plain(schema: str, ir: str, *arg_sets) -> tuple:
    return (schema, ir, list(arg_sets))


CASES += [
    scalar_case("aten::add(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
                "%y : Tensor = aten::add(%x, %s, %one)"),
    scalar_case("aten::sub(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
                "%y : Tensor = aten::sub(%x, %s, %one)"),
    scalar_case("aten::mul(Tensor self, Scalar other) -> Tensor",
                "%y : Tensor = aten::mul(%x, %s)"),
    scalar_case("aten::div(Tensor self, Scalar other) -> Tensor",
                "%y : Tensor = aten::div(%x, %s)"),
    scalar_case("aten::pow(Tensor self, Scalar exponent) -> Tensor",
                "%y : Tensor = aten::pow(%x, %s)", make=positive),
    scalar_case("aten::pow(Scalar self, Tensor exponent) -> Tensor",
                "%y : Tensor = aten::pow(%s, %x)"),
    scalar_case("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
                "%lo : float = prim::Constant[value=-0.5]()\n"
                "  %y : Tensor = aten::clamp(%x, %lo, %s)", make=normal, value=0.7),
    scalar_case("aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
                "%y : Tensor = aten::threshold(%x, %s, %one)", value=0.1),
    plain("aten::mm(Tensor self, Tensor mat2) -> Tensor", """graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::mm(%a, %b)
  return (%y)""", (normal(3, 4), normal(4, 2))),
    plain("aten::matmul(Tensor self, Tensor other) -> Tensor", """graph(%a : Tensor, %b : Tensor):
  %y : Tensor = aten::matmul(%a, %b)
  return (%y)""", (normal(2, 3), normal(3, 4)), (normal(3), normal(3)), (normal(3), normal(3, 2)),
          (normal(2, 3), normal(3)), (normal(2, 2, 3), normal(3, 4)),
          (normal(4, 3), normal(2, 1, 3, 2))),
    plain("aten::transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
          """graph(%x : Tensor):
  %a : int = prim::Constant[value=0]()
  %b : int = prim::Constant[value=-1]()
  %t : Tensor = aten::transpose(%x, %a, %b)
  %y : Tensor = aten::exp(%t)
  return (%y)""", (normal(2, 3, 4),)),
    plain("aten::t(Tensor(a) self) -> Tensor(a)", """graph(%x : Tensor):
  %t : Tensor = aten::t(%x)
  %y : Tensor = aten::mul(%t, %t)
  return (%y)""", (normal(3, 4),)),
    plain("aten::view(Tensor(a) self, int[] size) -> Tensor(a)", """graph(%x : Tensor):
  %s : int[] = prim::Constant[value=[2, 6]]()
  %v : Tensor = aten::view(%x, %s)
  %y : Tensor = aten::exp(%v)
  return (%y)""", (normal(3, 4),)),
    plain("aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)", """graph(%x : Tensor):
  %s : int[] = prim::Constant[value=[4, -1]]()
  %v : Tensor = aten::reshape(%x, %s)
  %y : Tensor = aten::exp(%v)
  return (%y)""", (normal(3, 4),)),
    plain("aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)",
          """graph(%x : Tensor):
  %s : int[] = prim::Constant[value=[2, 3, 4]]()
  %f : bool = prim::Constant[value=0]()
  %y : Tensor = aten::expand(%x, %s, %f)
  return (%y)""", (normal(3, 1),)),
    plain("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", """graph(%x : Tensor):
  %d : int = prim::Constant[value=-2]()
  %y : Tensor = aten::unsqueeze(%x, %d)
  return (%y)""", (normal(3, 4),)),
    plain("aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)", """graph(%x : Tensor):
  %d : int = prim::Constant[value=1]()
  %i : int = prim::Constant[value=2]()
  %y : Tensor = aten::select(%x, %d, %i)
  return (%y)""", (normal(3, 4),)),
    plain("aten::narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)",
          """graph(%x : Tensor):
  %d : int = prim::Constant[value=1]()
  %s : int = prim::Constant[value=1]()
  %n : int = prim::Constant[value=2]()
  %y : Tensor = aten::narrow(%x, %d, %s, %n)
  return (%y)""", (normal(3, 4),)),
    plain("aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
          """graph(%x : Tensor):
  %m : int = prim::Constant[value=0]()
  %t : Tensor = aten::t(%x)
  %y : Tensor = aten::contiguous(%t, %m)
  return (%y)""", (normal(3, 4),)),
    plain("prim::ConstantChunk", """graph(%x : Tensor):
  %a : Tensor, %b : Tensor, %c : Tensor = prim::ConstantChunk[chunks=3, dim=1](%x)
  %y : Tensor = aten::mul(%a, %c)
  return (%y)""", (normal(2, 6),)),
    plain("prim::ListUnpack", """graph(%x : Tensor):
  %n : int = prim::Constant[value=2]()
  %d : int = prim::Constant[value=0]()
  %l : Tensor[] = aten::chunk(%x, %n, %d)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)
  %y : Tensor = aten::mul(%a, %b)
  return (%y)""", (normal(4, 3),)),
    plain("aten::cat(Tensor[] tensors, int dim=0) -> Tensor", """graph(%a : Tensor, %b : Tensor):
  %d : int = prim::Constant[value=1]()
  %l : Tensor[] = prim::ListConstruct(%a, %b, %a)
  %y : Tensor = aten::cat(%l, %d)
  return (%y)""", (normal(2, 3), normal(2, 1))),
    plain("aten::stack(Tensor[] tensors, int dim=0) -> Tensor", """graph(%a : Tensor, %b : Tensor):
  %d : int = prim::Constant[value=1]()
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::stack(%l, %d)
  return (%y)""", (normal(2, 3), normal(2, 3))),
    plain("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", """graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::sum(%x, %n)
  return (%y)""", (normal(3, 4),)),
    plain("aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
          "-> Tensor", """graph(%x : Tensor):
  %d : int[] = prim::Constant[value=[0, -1]]()
  %k : bool = prim::Constant[value=0]()
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::sum(%x, %d, %k, %n)
  return (%y)""", (normal(2, 3, 4),)),
    plain("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", """graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::mean(%x, %n)
  return (%y)""", (normal(3, 4),)),
    plain("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
          "ScalarType? dtype=None) -> Tensor", """graph(%x : Tensor):
  %d : int[] = prim::Constant[value=[0, -1]]()
  %k : bool = prim::Constant[value=0]()
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::mean(%x, %d, %k, %n)
  return (%y)""", (normal(2, 3, 4),), (normal(1, 5, 2),)),
    plain("aten::softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
          """graph(%x : Tensor):
  %d : int = prim::Constant[value=-1]()
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::softmax(%x, %d, %n)
  return (%y)""", (normal(3, 4),)),
    plain("aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)",
          """graph(%x : Tensor):
  %s : int[] = prim::Constant[value=[1, 4]]()
  %y : Tensor = aten::_grad_sum_to_size(%x, %s)
  return (%y)""", (normal(3, 4),)),
]

def in_unit_interval(*shape: int) -> np.ndarray:
    return np.asarray(RNG.uniform(0.05, 0.95, shape))


def three_inputs(schema: str, body: str, shapes, make=normal) -> tuple:
    return (schema, f"""graph(%a : Tensor, %b : Tensor, %c : Tensor):
  %one : int = prim::Constant[value=1]()
  {body}
  return (%y)""", [tuple(make(*s) for s in triple) for triple in shapes])


CASES += [
    unary("erfc"), unary("lgamma", positive), unary("frac", away_from_zero),
    unary("hardsigmoid", lambda *s: normal(*s) * 4.0),     # both flat sides and the slope
    binary("aten::atan2(Tensor self, Tensor other) -> Tensor",
           "%y : Tensor = aten::atan2(%a, %b)", make_b=away_from_zero),
    three_inputs("aten::lerp(Tensor self, Tensor end, Tensor weight) -> Tensor",
                 "%y : Tensor = aten::lerp(%a, %b, %c)",
                 [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (2, 3), ())]),
    plain("aten::logit(Tensor self, float? eps=None) -> Tensor", """graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %y : Tensor = aten::logit(%x, %n)
  return (%y)""", (in_unit_interval(3, 4),),
          (np.array([-0.5, 1.5, 2.0]),)),             # outside [0, 1]: NaN, as in PyTorch
    plain("aten::logit(Tensor self, float? eps=None) -> Tensor", """graph(%x : Tensor):
  %e : float = prim::Constant[value=0.2]()
  %y : Tensor = aten::logit(%x, %e)
  return (%y)""", (np.array([0.1, 0.15, 0.3, 0.5, 0.7, 0.9, -0.4, 1.3]),)),
    scalar_case("aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
                "%t : float = prim::Constant[value=1.]()\n"
                "  %y : Tensor = aten::softplus(%x, %s, %t)",
                make=lambda *s: normal(*s) * 2.0, value=1.5),    # some beta x above 1
    scalar_case("aten::where(Tensor condition, Tensor self, Scalar other) -> Tensor",
                "%z : int = prim::Constant[value=0]()\n  %c : Tensor = aten::gt(%x, %z)\n"
                "  %y : Tensor = aten::where(%c, %x, %s)", make=away_from_zero),
    scalar_case("aten::where(Tensor condition, Scalar self, Tensor other) -> Tensor",
                "%z : int = prim::Constant[value=0]()\n  %c : Tensor = aten::gt(%x, %z)\n"
                "  %y : Tensor = aten::where(%c, %s, %x)", make=away_from_zero),
    scalar_case("aten::where(Tensor condition, Scalar self, Scalar other) -> Tensor",
                "%z : int = prim::Constant[value=0]()\n  %c : Tensor = aten::gt(%x, %z)\n"
                "  %w : Tensor = aten::where(%c, %s, %z)\n"
                "  %y : Tensor = aten::mul(%w, %x)", make=away_from_zero),
    plain("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
          """graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %c : Tensor = aten::clone(%x, %n)
  %y : Tensor = aten::mul(%c, %x)
  return (%y)""", (normal(3, 4),)),
    scalar_case("aten::clamp_min(Tensor self, Scalar min) -> Tensor",
                "%y : Tensor = aten::clamp_min(%x, %s)", value=0.3),
    scalar_case("aten::clamp_max(Tensor self, Scalar max) -> Tensor",
                "%y : Tensor = aten::clamp_max(%x, %s)", value=-0.2),
    binary("aten::clamp_min(Tensor self, Tensor min) -> Tensor",
           "%y : Tensor = aten::clamp_min(%a, %b)"),
    binary("aten::clamp_max(Tensor self, Tensor max) -> Tensor",
           "%y : Tensor = aten::clamp_max(%a, %b)"),
    three_inputs("aten::clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
                 "%lo : Tensor = aten::sub(%b, %c, %one)\n  %hi : Tensor = aten::add(%b, %c, %one)"
                 "\n  %y : Tensor = aten::clamp(%a, %lo, %hi)",
                 [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1))]),
    three_inputs("aten::clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
                 "%n : NoneType = prim::Constant()\n  %y : Tensor = aten::clamp(%a, %n, %b)",
                 [((3, 4), (4,), (1,))]),
]


PARAMS = [pytest.param(ir, args, id=f"{schema.split('(')[0]}-{i}")
          for schema, ir, arg_sets in CASES for i, args in enumerate(arg_sets)]


@pytest.mark.parametrize("ir, args", PARAMS)
def test_vjp_matches_finite_differences(ir: str, args: tuple) -> None:
    check(ir, *args)


def test_every_rule_has_a_gradient_check() -> None:
    from .test_array_rules_gradcheck import ARRAY_SCHEMAS
    from .test_more_rules_gradcheck import MORE_CASES

    checked = {schema for schema, _, _ in CASES + MORE_CASES} | ARRAY_SCHEMAS
    # (prim::PythonOp needs a Python callable, which IR text cannot carry: test_python_op.py;
    # _cast_Float's float32 result is too coarse for finite differences: checked below)
    assert sorted(set(RULES) - checked - {"prim::PythonOp", CAST_FLOAT}) == []


CAST_FLOAT = "aten::_cast_Float(Tensor self, bool non_blocking) -> Tensor"


def test_cast_float_passes_the_gradient_back_in_the_input_dtype() -> None:
    # derivatives.yaml: _cast_Float: grad, which autograd casts back to the input's dtype
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %f : bool = prim::Constant[value=0]()
  %c : Tensor = aten::_cast_Float(%x, %f)
  %y : Tensor = aten::mul(%c, %c)
  return (%y)""")
    x = normal(3, 4)
    out, vjp_fn = fusejit.vjp(graph, x, fuse=False, engine="reference")
    cot = RNG.standard_normal(out.shape).astype(np.float32)
    (got,) = vjp_fn(cot)
    assert out.dtype == np.float32 and got.dtype == np.float64
    want = (2 * cot * x.astype(np.float32)).astype(np.float64)       # d(c^2) = 2 c, in float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


FIRST_OF_EACH = [pytest.param(ir, arg_sets[0], id=schema.split("(")[0])
                 for schema, ir, arg_sets in CASES]


@pytest.mark.parametrize("ir, args", FIRST_OF_EACH)
def test_float32_gradients_keep_their_dtype_and_agree_with_float64(ir: str, args: tuple) -> None:
    check_float32(ir, *args)


def check_float32(ir: str, *args) -> None:
    """The float32 gradients have dtype float32 and agree with the float64 ones."""
    graph = fusejit.parse_ir(ir)
    single = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
    outs64, vjp64 = fusejit.vjp(graph, *args, fuse=False, engine="reference")
    outs32, vjp32 = fusejit.vjp(graph, *single, fuse=False, engine="reference")
    outs64 = outs64 if isinstance(outs64, tuple) else (outs64,)
    outs32 = outs32 if isinstance(outs32, tuple) else (outs32,)
    cot = [RNG.standard_normal(np.shape(o)) for o in outs64]
    grads64 = vjp64(*cot)
    grads32 = vjp32(*[c.astype(np.float32) for c in cot])
    for k, (g64, g32) in enumerate(zip(grads64, grads32)):
        if g64 is None:
            continue
        assert g32.dtype == np.float32, f"input {k}: {g32.dtype}\n{ir}"
        np.testing.assert_allclose(g32, g64, rtol=2e-4, atol=2e-5, err_msg=f"input {k}\n{ir}")

