"""Cases drawn from the operator table itself: one node per schema of each op a kernel computes
(the schemas it fuses under, for the ops the graph fuser takes).

Nothing here lists ops: a new entry in ``fusejit.oplib`` is tested as soon as it exists. Each
schema becomes calls whose tensor arguments are graph inputs (``%c`` for a ``condition``, else
``%x``, ``%y``, ``%z`` in order) and whose other arguments are constants chosen by type; an
optional argument gives one call with ``None`` and one with a value::

    aten::logit(Tensor self, float? eps=None)   ->  aten::logit(%x, %none), aten::logit(%x, %k0)

The oracle is the op's NumPy body (``make_operation``) on the same inputs. Tensor inputs lie
inside every op's domain: floats in (0.1, 0.9) (logit, acos, log...), integers in 1..4 (nonzero
divisors, non-negative exponents).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fusejit.ir.constants import constant_value
from fusejit.ir.parser import parse_ir
from fusejit.ir.schema import parse_schema
from fusejit.ir.types import (
    BoolType,
    FloatType,
    NumberType,
    OptionalType,
    TensorType,
)
from fusejit.oplib import KERNELS, make_operation

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
SHAPE = (2, 3)
# Constants a call may use, by name (declared in every graph).
CONSTANTS = {
    "none": ("NoneType", None), "false": ("bool", "0"), "two": ("int", "2"),
    "half": ("float", "0.5"), "eps": ("float", "0.05"),
}


@dataclass(frozen=True)
class Case:
    id: str            # e.g. "aten::logit#1"
    kind: str
    schema: str        # the schema this call is made from
    call: str          # IR text of the call, e.g. "aten::logit(%x, %eps)"
    nondeterministic: bool


def _numeric_optional(formal) -> bool:
    """``float?``/``Scalar?``: called once with None and once with a number. (Other optionals,
    rand_like's ``ScalarType? dtype``... are only ever None here.)"""
    return isinstance(formal.type, OptionalType) and isinstance(
        formal.type.elem, (FloatType, NumberType))


def _constant_for(formal, with_value: bool) -> str:
    """The constant name for a non-tensor formal argument."""
    typ = formal.type
    if isinstance(typ, OptionalType):
        if not (with_value and _numeric_optional(formal)):
            return "none"
        typ = typ.elem
    if isinstance(typ, BoolType):
        return "false"
    if isinstance(typ, FloatType):
        return "eps"
    if isinstance(typ, NumberType):
        return "half" if formal.name in ("min", "weight", "threshold") else "two"
    raise AssertionError(f"no constant for {formal!r}: extend table_cases")


def cases() -> list[Case]:
    found = []
    for kind, op in sorted(KERNELS.items()):
        overloads = [o for o in op.overloads if not o.pure]
        # the schemas it fuses under, or (an op fuse_graph leaves alone) its tensor overloads
        # (and those @fusejit.jit's own fusion takes beyond PyTorch's: ``extends``)
        for text in (op.fuses + op.extends) or [o.schema for o in op.overloads
                                                if o.schema.startswith(f"{kind}(Tensor ")]:
            schema = parse_schema(text)
            optional = any(_numeric_optional(a) for a in schema.arguments)
            for with_value in ((False, True) if optional else (True,)):
                tensors = iter(["%x", "%y", "%z"])
                args = []
                for formal in schema.arguments:
                    if isinstance(formal.type, TensorType):
                        args.append("%c" if formal.name == "condition" else next(tensors))
                    else:
                        args.append("%" + _constant_for(formal, with_value))
                call = f"{kind}({', '.join(args)})"
                if all(c.call != call for c in found):
                    found.append(Case(f"{kind}#{len(found)}", kind, text, call,
                                      bool(overloads)))
    return found


def graph_text(calls: list[Case], dtype: str) -> str:
    tensor = f"{_TYPE[dtype]}(*, *)"
    lines = [f"graph(%x : {tensor}, %y : {tensor}, %z : {tensor}, %c : Bool(*, *)):"]
    for name, (typ, value) in CONSTANTS.items():
        attr = "" if value is None else f"[value={value}]"
        lines.append(f"  %{name} : {typ} = prim::Constant{attr}()")
    for i, case in enumerate(calls):
        lines.append(f"  %o{i} : Tensor = {case.call}")
    lines.append(f"  return ({', '.join(f'%o{i}' for i in range(len(calls)))})")
    return "\n".join(lines) + "\n"


def inputs(dtype: str, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        tensors = [rng.random(SHAPE) < 0.5 for _ in range(3)]
    elif dtype == "int64":
        tensors = [rng.integers(1, 5, SHAPE) for _ in range(3)]
    else:
        tensors = [rng.uniform(0.1, 0.9, SHAPE).astype(dtype) for _ in range(3)]
    return [*tensors, rng.random(SHAPE) < 0.5]


def single(case: Case, dtype: str):
    """The one-node graph of ``case`` (returning just its result)."""
    return parse_ir(graph_text([case], dtype))


def oracle(case: Case, dtype: str, args: list[np.ndarray]) -> np.ndarray | Exception:
    """The NumPy body's result for ``case`` on ``args``, or the error it raises."""
    graph = single(case, dtype)
    node = next(n for n in graph.nodes() if n.kind == case.kind)
    env = dict(zip(graph.inputs, args))
    for n in graph.nodes():
        if n.kind == "prim::Constant":
            env[n.output()] = constant_value(n)
    try:
        with np.errstate(all="ignore"):
            return make_operation(node)(*[env[v] for v in node.inputs])[0]
    except (RuntimeError, ZeroDivisionError, ValueError, TypeError) as error:
        return error


def valid_cases(dtype: str) -> list[tuple[Case, np.ndarray]]:
    """The cases whose NumPy body accepts ``dtype`` inputs, with its result."""
    args = inputs(dtype)
    found = []
    for case in cases():
        want = oracle(case, dtype, args)
        if not isinstance(want, Exception):
            found.append((case, want))
    return found


def tolerance(case: Case, dtype: np.dtype) -> dict:
    """Fused kernels use vectorised float32 math within a few ulps of NumPy (documented in
    ``runtime/fusion/vecmath.py``); lgamma, tan and pow are looser in float32."""
    if dtype.kind != "f":
        return {"rtol": 0, "atol": 0}
    if dtype == np.float64:
        return {"rtol": 1e-12, "atol": 1e-13}
    loose = case.kind in ("aten::lgamma", "aten::tan", "aten::pow")
    return {"rtol": 1e-5 if loose else 4e-6, "atol": 1e-6}


def check(case: Case, got: np.ndarray, want: np.ndarray) -> str | None:
    """None when ``got`` agrees with the NumPy body's ``want``, else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{case.call}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    if case.nondeterministic:
        if not (np.all(got >= 0) and np.all(got < 1)):
            return f"{case.call}: samples outside [0, 1): {got}"
        return None
    try:
        np.testing.assert_allclose(got, want, **tolerance(case, got.dtype))
    except AssertionError as error:
        return f"{case.call}: {error}"
    return None
