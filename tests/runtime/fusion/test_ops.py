"""Every simple-map op, compiled into wide fusion groups (a few kernels per dtype combination and
layout), against the operator library's NumPy bodies evaluated node by node."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel

from .oracle import run_subgraph

F32, F64, I64, BOOL = "float32", "float64", "int64", "bool"
_TYPE = {F32: "Float", F64: "Double", I64: "Long", BOOL: "Bool"}

UNARY_FLOAT = ["exp", "log", "log10", "log1p", "log2", "expm1", "sqrt", "rsqrt", "sin", "cos",
               "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc",
               "lgamma", "reciprocal"]
UNARY_SAME = ["abs", "neg", "ceil", "floor", "round", "trunc", "frac", "relu"]
UNARY = set(UNARY_FLOAT + UNARY_SAME)

# (name, node text with %x %y %z tensors, %s a float graph input, which dtypes of x it needs)
# "num": not bool; "float": floating x.
OPS: list[tuple[str, str, str]] = (
    [(op, f"aten::{op}(%x)", "any") for op in UNARY_FLOAT]
    + [(op, f"aten::{op}(%x)", "float" if op == "frac" else "num") for op in UNARY_SAME]
    + [
        ("add", "aten::add(%x, %y, %c1)", "any"),
        ("add_alpha", "aten::add(%x, %y, %c2)", "num"),
        ("sub", "aten::sub(%x, %y, %c1)", "num"),
        ("sub_alpha", "aten::sub(%x, %y, %c2)", "num"),
        ("mul", "aten::mul(%x, %y)", "any"),
        ("div", "aten::div(%x, %y)", "any"),
        ("remainder", "aten::remainder(%x, %y)", "num"),
        ("fmod", "aten::fmod(%x, %y)", "num"),
        ("atan2", "aten::atan2(%x, %y)", "num"),
        ("max", "aten::max(%x, %y)", "any"),
        ("min", "aten::min(%x, %y)", "any"),
        ("pow", "aten::pow(%x, %y)", "num"),
        ("add_scalar", "aten::add(%x, %half, %c1)", "num"),
        ("add_float_input", "aten::add(%x, %s, %c1)", "num"),
        ("mul_float_input", "aten::mul(%x, %s)", "any"),
        ("sub_scalar", "aten::sub(%x, %c2, %c1)", "num"),
        ("mul_scalar", "aten::mul(%x, %c3)", "any"),
        ("div_scalar", "aten::div(%x, %c3)", "any"),
        ("pow_2", "aten::pow(%x, %two)", "num"),
        ("pow_3_int", "aten::pow(%x, %c3)", "num"),
        ("pow_half", "aten::pow(%x, %half)", "num"),
        ("pow_m1", "aten::pow(%x, %mone)", "num"),
        ("pow_2_5", "aten::pow(%x, %twohalf)", "num"),
        ("scalar_pow", "aten::pow(%half, %x)", "num"),
        ("eq", "aten::eq(%x, %y)", "any"), ("ne", "aten::ne(%x, %y)", "any"),
        ("ge", "aten::ge(%x, %y)", "any"), ("gt", "aten::gt(%x, %y)", "any"),
        ("le", "aten::le(%x, %y)", "any"), ("lt", "aten::lt(%x, %y)", "any"),
        ("eq_scalar", "aten::eq(%x, %c1)", "any"), ("lt_scalar", "aten::lt(%x, %half)", "any"),
        ("ge_float_input", "aten::ge(%x, %s)", "any"),
        ("clamp", "aten::clamp(%x, %mhalf, %half)", "num"),
        ("clamp_min", "aten::clamp(%x, %mhalf, %none)", "num"),
        ("clamp_max", "aten::clamp(%x, %none, %c1)", "num"),
        ("clamp_inf", "aten::clamp(%x, %ninf, %inf)", "float"),
        ("threshold", "aten::threshold(%x, %tenth, %twenty)", "num"),
        ("lerp_scalar", "aten::lerp(%x, %y, %lw)", "float"),
        ("lerp_tensor", "aten::lerp(%x, %y, %z)", "float"),
        ("addcmul", "aten::addcmul(%x, %y, %z, %half)", "float"),
        ("addcmul_int", "aten::addcmul(%x, %y, %z, %c2)", "num"),
        ("where", "aten::where(%cond, %x, %z)", "any"),
        ("type_as", "aten::type_as(%x, %z)", "any"),
        ("cast_float", "aten::_cast_Float(%x, %false)", "any"),
    ])

HEADER = """  %c1 : int = prim::Constant[value=1]()
  %c2 : int = prim::Constant[value=2]()
  %c3 : int = prim::Constant[value=3]()
  %half : float = prim::Constant[value=0.5]()
  %mhalf : float = prim::Constant[value=-0.5]()
  %two : float = prim::Constant[value=2.]()
  %twohalf : float = prim::Constant[value=2.5]()
  %mone : float = prim::Constant[value=-1.]()
  %tenth : float = prim::Constant[value=0.1]()
  %twenty : float = prim::Constant[value=20.]()
  %lw : float = prim::Constant[value=0.3]()
  %inf : float = prim::Constant[value=inf]()
  %ninf : float = prim::Constant[value=-inf]()
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %cond : Tensor = aten::gt(%x, %y)
"""


def _valid(need: str, name: str, dx: str, dy: str, dz: str) -> bool:
    if name in UNARY and not dx == dy == dz:
        # The mixed cases test type promotion, which a one-operand op does not have: the
        # cases of one dtype cover every unary op on each x dtype, and compiling the
        # transcendentals again took about a fifth of this module's time (132.7 -> 105.8 s
        # alone, cold).
        return False
    floating = dx in (F32, F64)
    if need == "float" and not floating:
        return False
    if need == "num" and dx == BOOL:
        return False
    if name in ("sub", "sub_alpha", "remainder", "fmod", "atan2", "pow", "scalar_pow") \
            and BOOL in (dx, dy):
        return False
    if name == "lerp_scalar" and dy != dx:
        return False
    if name == "lerp_tensor" and not dx == dy == dz:
        return False
    if name in ("addcmul",) and BOOL in (dy, dz):
        return False
    if name == "addcmul_int" and (BOOL in (dy, dz) or floating or dy in (F32, F64)
                                  or dz in (F32, F64)):
        return False
    return True


def _group_text(ops: list[tuple[str, str]], dtypes: tuple[str, str, str], ranks) -> str:
    def ty(dtype, rank):
        return _TYPE[dtype] + ("(" + ", ".join("*" * rank) + ")" if rank else "()")
    args = [f"%x : {ty(dtypes[0], ranks[0])}", f"%y : {ty(dtypes[1], ranks[1])}",
            f"%z : {ty(dtypes[2], ranks[2])}", "%s : float"]
    body = "".join(f"  %o{i} : Tensor = {text}\n" for i, (_name, text) in enumerate(ops))
    outs = ", ".join(f"%o{i}" for i in range(len(ops)))
    return f"graph({', '.join(args)}):\n{HEADER}{body}  return ({outs})\n"


def _values(dtype: str, shape, rng, role: str) -> np.ndarray:
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    if dtype == I64:
        if role == "y":      # divisors and exponents: nonzero, small, non-negative for pow
            return rng.integers(1, 4, shape)
        return rng.integers(-6, 7, shape)
    values = rng.uniform(-2.5, 2.5, shape)
    if role == "y":
        values = np.where(np.abs(values) < 0.1, 0.7, values)
    return values.astype(dtype)


# layout name -> (shapes of x, y, z) and a view maker for non-contiguous inputs
LAYOUTS = {
    "broadcast_noncontig": [(4, 3, 7), (3, 7), (7,)],
    "zero_dim": [(), (), ()],
    "mixed_zero_dim": [(5, 6), (), (6,)],
}
COMBOS = [(F32, F32, F32), (F64, F64, F64), (I64, I64, I64), (BOOL, BOOL, BOOL),
          (F32, I64, BOOL), (I64, F64, F32)]
# The mixed-dtype cases repeat type promotion, which (I64, F32, I64) over mixed 0-dim operands
# covers in the default suite, and the float32 ops on all-0-dim operands repeat the
# broadcast_noncontig case's kernels on the rank-0 plan, which the mixed 0-dim case runs too: they
# are exhaustive cases (tests/conftest.py), about 33 s of a cold suite's kernel compiles. The
# all-bool case (8-12 s) is one too: its layouts are the other dtypes' (the plan and indexing
# do not depend on the dtype), and bool kernels run in tests/passes/test_more_maps.py, the
# corpus's int_bool_tensors and tests/fuzz/test_edge_values.py's comparisons. The float64 case
# (13 s) repeats the float32 one's ops, layout and plan with the float64 forms of the
# transcendentals, which test_vecmath.py's float64 kernels run on their special values; float32
# stays, where the fast forms and narrow rounding are.
_EXHAUSTIVE = {((F64, F64, F64), "broadcast_noncontig"),
               ((I64, I64, I64), "broadcast_noncontig"),   # (int64 ops: mixed_zero_dim)
               ((F32, I64, BOOL), "broadcast_noncontig"),
               ((BOOL, BOOL, BOOL), "broadcast_noncontig"),
               ((I64, F64, F32), "broadcast_noncontig"), ((F32, F64, I64), "mixed_zero_dim"),
               ((F32, F32, F32), "zero_dim")}
CASES = [pytest.param(combo, layout, id=f"{'-'.join(combo)}-{layout}",
                      marks=[pytest.mark.exhaustive] if (combo, layout) in _EXHAUSTIVE else [])
         for combo, layout in [(combo, "broadcast_noncontig") for combo in COMBOS] + [
             ((F32, F32, F32), "zero_dim"), ((I64, F32, I64), "mixed_zero_dim"),
             ((F32, F64, I64), "mixed_zero_dim")]]

# The ops of a case are split over this many fusion groups, op i into group i % GROUPS, so that
# the costly renderings (lgamma, erf, pow...) spread evenly. Each group is still a wide kernel
# (about 20 ops and outputs, one loop nest over the case's layout). Compiling grows faster than
# the kernel's size: the float64 case's 74 ops took 31 s of CPU time as one kernel and 22 s as
# four (Numba's passes 20 -> 17 s, LLVM 11 -> 5 s), and a smaller kernel cannot hold up the
# suite's last seconds alone.
GROUPS = 4

_results: dict = {}


def _run_case(combo, layout):
    key = (combo, layout)
    if key in _results:
        return _results[key]
    rng = np.random.default_rng(abs(hash(key)) % 2**32)
    shapes = LAYOUTS[layout]
    ops = [(name, text) for name, text, need in OPS if _valid(need, name, *combo)]
    x = _values(combo[0], shapes[0], rng, "x")
    y = _values(combo[1], shapes[1], rng, "y")
    z = _values(combo[2], shapes[2], rng, "z")
    if layout == "broadcast_noncontig":
        # x is a transposed view, y a strided slice: neither is contiguous.
        x = np.ascontiguousarray(np.swapaxes(x, 0, 2)).swapaxes(0, 2)
        y = np.repeat(y, 2, axis=1)[:, ::2]
        assert not x.flags.c_contiguous and not y.flags.c_contiguous
    s = 0.75
    result = {}
    for part in range(GROUPS):
        group = ops[part::GROUPS]
        graph = fusejit.parse_ir(_group_text(group, combo, [len(s) for s in shapes]))
        with np.errstate(all="ignore"):
            if layout == "zero_dim":
                # All operands 0-dim promote exactly like all 1-d ones; the operator library's
                # vectorised bodies (lgamma, erf, ...) return Python floats for 0-dim inputs,
                # so the oracle runs on shape (1,) and the results are reshaped back.
                want = [np.asarray(w).reshape(()) for w in
                        run_subgraph(graph, x.reshape(1), y.reshape(1), z.reshape(1), s)]
            else:
                want = run_subgraph(graph, x, y, z, s)
        got = FusedKernel(graph)(x, y, z, s)
        assert len(got) == len(want) == len(group)
        result.update({name: (g, w) for (name, _), g, w in zip(group, got, want)})
    assert len(result) == len(ops) and set(result) == {name for name, _ in ops}
    _results[key] = result
    return result


# Tolerances: libm float32 functions differ from NumPy's by a few ulps; the fast float32
# exp/log/tanh/sigmoid are within 2 ulps (fastmath's documented bounds); lgamma near its poles
# and pow with large results need a looser relative bound.
def _tolerance(name: str, dtype: np.dtype) -> tuple[float, float]:
    if dtype.kind != "f":
        return 0.0, 0.0
    if dtype == np.float64:
        return 1e-12, 1e-13
    loose = {"lgamma": 1e-5, "tan": 1e-5, "pow": 1e-5, "scalar_pow": 1e-5, "pow_2_5": 1e-5}
    return loose.get(name, 4e-6), 1e-6


@pytest.mark.parametrize("combo,layout", CASES)
def test_all_ops_match_oracle(combo, layout):
    results = _run_case(combo, layout)
    assert results, "no op applies to this dtype combination"
    failures = []
    for name, (got, want) in results.items():
        want = np.asarray(want)
        if got.dtype != want.dtype or got.shape != want.shape:
            failures.append(f"{name}: {got.dtype}{got.shape} != {want.dtype}{want.shape}")
            continue
        rtol, atol = _tolerance(name, got.dtype)
        if got.dtype.kind == "f":
            ok = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(got, want)
        if not ok:
            bad = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True))[:3] \
                if got.dtype.kind == "f" else np.argwhere(got != want)[:3]
            failures.append(f"{name}: at {bad.tolist()} got {[got[tuple(i)] for i in bad]} "
                            f"want {[want[tuple(i)] for i in bad]}")
    assert not failures, "\n".join(failures)


def test_every_simple_map_kind_is_covered():
    """The op table above exercises every kind of the fuser's simple-map list."""
    simple_map = set(UNARY_FLOAT + UNARY_SAME) | {
        "add", "sub", "mul", "div", "remainder", "fmod", "atan2", "max", "min", "pow", "eq",
        "ne", "ge", "gt", "le", "lt", "clamp", "threshold", "lerp", "addcmul", "where",
        "type_as", "_cast_Float"}
    used = {text.split("(")[0].split("::")[1] for _n, text, _need in OPS}
    assert simple_map <= used
