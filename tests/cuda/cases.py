"""Cases shared by the simulator (``cudasim``) and real-device (``gpu``) tests.

Every simple-map op as a one-node graph, with inputs inside the op's domain. The oracle is the
operator library's reference body (NumPy, written independently of the kernel templates) run
on host copies of the same inputs.
"""

from __future__ import annotations

import numpy as np

from fusejit.ir.parser import parse_ir
from fusejit.ir.symbols import prim
from fusejit.runtime.ops import make_operation

F, D, L, B = "Float", "Double", "Long", "Bool"
DTYPES = {F: np.float32, D: np.float64, L: np.int64, B: np.bool_}

UNARY_ANY = ("abs neg ceil floor round trunc frac relu sin cos atan tanh sinh cosh erf erfc "
             "exp expm1 sigmoid").split()
UNARY_POS = "log log10 log1p log2 sqrt rsqrt reciprocal lgamma asin acos tan".split()

# (id, argument types, constants "name = value" lines, call text, output type)
OP_CASES: list[tuple[str, tuple[str, ...], tuple[str, ...], str, str]] = [
    *[(f"{op}", (F,), (), f"aten::{op}(%a)", F) for op in UNARY_ANY],
    *[(f"{op}", (F + "+",), (), f"aten::{op}(%a)", F) for op in UNARY_POS],
    ("add_alpha2", (F, F), ("%k : int = prim::Constant[value=2]()",), "aten::add(%a, %b, %k)", F),
    ("sub", (F, F), ("%k : int = prim::Constant[value=1]()",), "aten::sub(%a, %b, %k)", F),
    ("mul", (F, F), (), "aten::mul(%a, %b)", F),
    ("div", (F, F + "+"), (), "aten::div(%a, %b)", F),
    ("mul_double_float", (D, F), (), "aten::mul(%a, %b)", D),
    ("remainder_f", (F, F + "+"), (), "aten::remainder(%a, %b)", F),
    ("fmod_f", (F, F + "+"), (), "aten::fmod(%a, %b)", F),
    ("atan2", (F, F), (), "aten::atan2(%a, %b)", F),
    ("max", (F, F), (), "aten::max(%a, %b)", F),
    ("min", (F, F), (), "aten::min(%a, %b)", F),
    ("pow_tensor", (F + "+", F), (), "aten::pow(%a, %b)", F),
    *[(f"pow_{e}", (F + "+",), (f"%k : float = prim::Constant[value={e}]()",),
       "aten::pow(%a, %k)", F) for e in ("2.", "0.5", "-0.5", "-1.", "1.5")],
    ("lerp", (F, F), ("%k : float = prim::Constant[value=0.25]()",), "aten::lerp(%a, %b, %k)", F),
    ("addcmul", (F, F, F), ("%k : int = prim::Constant[value=1]()",),
     "aten::addcmul(%a, %b, %c, %k)", F),
    ("where", (B, F, F), (), "aten::where(%a, %b, %c)", F),
    ("clamp", (F,), ("%lo : float = prim::Constant[value=-0.5]()",
                     "%hi : float = prim::Constant[value=0.5]()"), "aten::clamp(%a, %lo, %hi)", F),
    ("clamp_min", (F,), ("%lo : float = prim::Constant[value=-0.5]()",
                         "%hi : NoneType = prim::Constant()"), "aten::clamp(%a, %lo, %hi)", F),
    ("threshold", (F,), ("%t : float = prim::Constant[value=0.1]()",
                         "%v : float = prim::Constant[value=20.]()"),
     "aten::threshold(%a, %t, %v)", F),
    *[(op, (F, F), (), f"aten::{op}(%a, %b)", B) for op in ("eq", "ne", "ge", "gt", "le", "lt")],
    ("type_as", (F, D), (), "aten::type_as(%a, %b)", D),
    ("cast_float", (D,), ("%k : bool = prim::Constant[value=0]()",), "aten::_cast_Float(%a, %k)",
     F),
    ("add_long", (L, L), ("%k : int = prim::Constant[value=3]()",), "aten::add(%a, %b, %k)", L),
    ("remainder_long", (L, L + "+"), (), "aten::remainder(%a, %b)", L),
    ("fmod_long", (L, L + "+"), (), "aten::fmod(%a, %b)", L),
    ("pow_long", (L,), ("%k : int = prim::Constant[value=3]()",), "aten::pow(%a, %k)", L),
    ("abs_long", (L,), (), "aten::abs(%a)", L),
    ("max_long", (L, L), (), "aten::max(%a, %b)", L),
    ("lt_long_float", (L, F), (), "aten::lt(%a, %b)", B),
    ("mul_long_scalar_float", (L,), ("%k : float = prim::Constant[value=0.5]()",),
     "aten::mul(%a, %k)", F),
    ("mul_bool", (B, B), (), "aten::mul(%a, %b)", B),
]


def op_graph(case) -> str:
    _id, args, consts, call, out = case
    names = "abc"
    params = ", ".join(f"%{names[i]} : {t.rstrip('+')}(*, *)" for i, t in enumerate(args))
    lines = [f"graph({params}):", *[f"  {c}" for c in consts],
             f"  %r : {out}(*, *) = {call}", "  return (%r)"]
    return "\n".join(lines) + "\n"


def op_inputs(case, shape=(3, 5), seed=0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for t in case[1]:
        positive = t.endswith("+")
        dtype = DTYPES[t.rstrip("+")]
        if dtype == np.bool_:
            arrays.append(rng.random(shape) < 0.5)
        elif dtype == np.int64:
            low = 1 if positive else -7
            arrays.append(rng.integers(low, 8, shape).astype(np.int64))
        elif positive:
            arrays.append(rng.uniform(0.1, 0.9, shape).astype(dtype))
        else:
            arrays.append(rng.uniform(-2.5, 2.5, shape).astype(dtype))
    return arrays


def op_node(graph):
    return [n for n in graph.nodes() if n.kind != prim.Constant][0]


def reference(graph, host_inputs: list[np.ndarray]) -> np.ndarray:
    """The operator library's result for the graph's one op, bound to its constants."""
    node = op_node(graph)
    env = {p: x for p, x in zip(graph.inputs, host_inputs)}
    args = []
    for v in node.inputs:
        if v in env:
            args.append(env[v])
        else:
            from fusejit.ir.constants import constant_value
            args.append(constant_value(v.node))
    return make_operation(node)(*args)[0]


def assert_matches(got: np.ndarray, want: np.ndarray) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.dtype.kind == "f":
        tol = 2e-6 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


__all__ = ["OP_CASES", "assert_matches", "op_graph", "op_inputs", "parse_ir", "reference"]
