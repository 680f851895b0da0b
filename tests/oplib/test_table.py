"""The whole operator table, checked from the table itself (``tests/oplib/table_cases.py``).

- The tables derived from it agree with it and with each other (no drift): the fuser's
  simple-map set, the kernel generator's renderers, the schema registry, the native engine's
  op ids, the derivative slot.
- Every op with a renderer (every fusible op, and those only custom fusion takes) renders for
  CPU and CUDA kernels with the dtype its NumPy body gives, and refuses (a clear
  ``IRError``) exactly the dtypes its NumPy body refuses.
- Every such op, compiled into wide CPU kernels (four for float32) and run unfused on the
  reference and the native interpreter, agrees with its NumPy body. (CUDA kernels run under
  the simulator in ``tests/cuda/test_op_table.py``.)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import fusejit
from fusejit.errors import IRError
from fusejit.ir.parser import parse_ir
from fusejit.ir.schema import parse_schema, registry
from fusejit.oplib import ENTRIES, FUSIBLE, KERNELS, OPS
from fusejit.passes import graph_fuser
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion.codegen import generate, generate_cuda
from fusejit.runtime.fusion.templates import DTYPE_ONLY, RENDERERS

from . import table_cases as tc

DTYPES = ["float32", "float64", "int64", "bool"]


def _types(schema) -> list[str]:
    return [str(a.type) for a in schema.arguments]


# -- consistency ----------------------------------------------------------------------------------

def test_every_fusible_schema_has_a_body_a_renderer_and_a_dtype_rule():
    problems = []
    for kind, op in FUSIBLE.items():
        if op.render is None or op.dtype is None:
            problems.append(f"{kind}: no renderer or dtype rule")
        for text in op.fuses:
            fused = parse_schema(text)
            bodies = [o for o in op.overloads
                      if _types(parse_schema(o.schema)) == _types(fused) and o.numpy_body]
            if fused.name != kind or not bodies:
                problems.append(f"{text}: no overload of {kind} with these argument types")
            elif not any(bodies[0].schema == s.text for s in registry.schemas(kind)):
                problems.append(f"{bodies[0].schema}: not in the schema registry")
    assert not problems, "\n".join(problems)


def test_kernel_facts_come_together():
    # A renderer needs its dtype rule and the reverse; fusion facts need fusion. (A renderer
    # no kernel reaches is dead code, as aten::maximum's was: an op with a renderer is computed
    # by fused kernels, custom fusion or one-node CUDA kernels, and each is run below.)
    stray = [kind for kind, op in ENTRIES.items()
             if bool(op.render) != bool(op.dtype) or (op.fusible and not op.render)
             or (not op.fusible and (op.dtype_only or op.sum_to_size))]
    assert not stray
    assert set(FUSIBLE) <= set(KERNELS)


def test_derived_tables_are_views_of_the_entries():
    assert set(RENDERERS) == set(KERNELS)
    assert set(FUSIBLE) == set(graph_fuser._SIMPLE_MAP_SCHEMAS)
    for kind, schemas in graph_fuser._SIMPLE_MAP_SCHEMAS.items():
        assert [s.text for s in schemas] == [parse_schema(t).text for t in FUSIBLE[kind].fuses]
    assert DTYPE_ONLY == {k: op.dtype_only for k, op in KERNELS.items() if op.dtype_only}
    for schema in graph_fuser._COMMUTES_WITH_SUM_TO_SIZE:
        assert schema.text in [parse_schema(t).text for t in FUSIBLE[schema.name].fuses]
    # every registered schema belongs to an entry, every overload to the registry
    for kind in registry.kinds():
        assert kind in ENTRIES, kind
    for key, overload in OPS.items():
        assert ENTRIES[overload.op.kind] is overload.op and overload in overload.op.overloads
        if "(" in key:
            assert parse_schema(key) in registry.schemas(overload.op.kind), key


def test_native_op_names_match_the_native_table():
    # Each entry names the native body its tensor overloads run (a NativeOp member); the native
    # table is built from those names, so every pointwise row is an entry's body and every
    # named body runs at least one overload.
    from fusejit.runtime.native.opcodes import Group, NativeOp
    from fusejit.runtime.native.table import NATIVE_OPS

    pointwise = Group.TENSOR_ARITH | Group.TENSOR_COMPARE | Group.TENSOR_UNARY
    named = 0
    for key, op_id in NATIVE_OPS.items():
        if op_id not in pointwise:
            continue
        op = OPS[key].op
        assert op.native is not None, f"{key} runs natively but its entry names no body"
        assert NativeOp[op.native] == op_id, key
        named += 1
    assert named >= 20
    for op in ENTRIES.values():
        if op.native is not None:
            assert any(NATIVE_OPS.get(o.schema) is not None for o in op.overloads), op.kind


def test_derivative_slot_holds_each_rule():
    from fusejit.autodiff.rules import RULES

    for key, rule in RULES.items():
        if key.startswith("prim::"):
            continue
        assert key in OPS, f"derivative rule for an unknown schema: {key}"
        assert OPS[key].derivative is rule


# -- rendering, for every dtype -------------------------------------------------------------------

def _render(graph, args, target: str):
    kernel = FusedKernel(graph)
    specs, _flats, _scalars, plan, _key = kernel._prepare(tuple(args))
    if target == "cpu":
        return generate(kernel.layout, specs, list(plan.classes), plan.rank)[1]
    return generate_cuda(kernel.layout, specs, plan.rank, (7, 0))[1]


@pytest.mark.parametrize("dtype", DTYPES)
def test_renders_with_the_dtype_of_its_numpy_body(dtype):
    args = tc.inputs(dtype)
    problems = []
    for case in tc.cases():
        want = tc.oracle(case, dtype, args)
        graph = tc.single(case, dtype)
        for target in ("cpu", "cuda"):
            try:
                (got,) = _render(graph, args, target)
            except IRError as error:
                if not isinstance(want, Exception) and not (
                        target == "cuda" and case.kind == "aten::rand_like"):
                    problems.append(f"{case.call} ({target}): refused: {error}")
                continue
            if isinstance(want, Exception):
                problems.append(f"{case.call} ({target}): renders, body raises {want!r}")
            elif np.dtype(got) != want.dtype:
                problems.append(f"{case.call} ({target}): {got} != body's {want.dtype}")
    assert not problems, "\n".join(problems)


def test_rand_like_refuses_cuda_kernels_clearly():
    case = next(c for c in tc.cases() if c.kind == "aten::rand_like")
    args = tc.inputs("float32")
    with pytest.raises(IRError, match="rand_like has no CUDA kernel"):
        _render(tc.single(case, "float32"), args, "cuda")


# -- running: wide kernels, and both interpreters --------------------------------------------------

def _check_all(calls, results, wants) -> None:
    problems = [p for case, got, want in zip(calls, results, wants)
                if (p := tc.check(case, got, want)) is not None]
    assert not problems, "\n".join(problems)


# (float32 only: wide kernels compile in 10-30 s here; the integer and bool renderings are
# checked above without compiling, and tests/runtime/fusion/test_ops.py runs them.) The ops are
# dealt round-robin over GROUPS kernels: compiling grows faster than a kernel's size, so four
# kernels of 18 ops compile in about two thirds of the CPU time of one of 72 (see test_ops.py).
GROUPS = 4


def _shape(call: str, constants: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """A call's kind and what each argument is: a tensor, a scalar graph input (``%s``) or a
    constant of its type."""
    kind, args = call.split("(", 1)
    names = [a.strip() for a in args.rstrip(")").split(",") if a.strip()]
    return kind, tuple("Tensor" if n in ("%x", "%y", "%z", "%c", "%cond")
                       else "input" if n == "%s" else constants[n] for n in names)


def _run_by_test_ops() -> set[tuple[str, tuple[str, ...]]]:
    """The calls (``_shape``) that tests/runtime/fusion/test_ops.py's default float32 case
    compiles into wide kernels and checks against the same NumPy bodies (its oracle runs
    ``make_operation``), on broadcast, non-contiguous operands; none if that case is no longer
    a default one."""
    from tests.runtime.fusion import test_ops

    float32 = ("float32",) * 3
    if not any(p.values == (float32, "broadcast_noncontig") and not p.marks
               for p in test_ops.CASES):
        return set()
    constants = dict(re.findall(r"(%\w+) : (\w+) = prim::Constant", test_ops.HEADER))
    return {_shape(text, constants) for _name, text, _need in test_ops.OPS}


# The calls test_ops.py's default case runs the same way (57 of 82 here) are an exhaustive case;
# the default one compiles the rest: the ops and overloads only the table reaches (acosh, hypot,
# logit, rand_like, cbrt, ..., comparisons and remainders with a constant).
@pytest.mark.parametrize("dtype", ["float32"])
@pytest.mark.parametrize("which", ["table_only", pytest.param("test_ops_too",
                                                              marks=pytest.mark.exhaustive)])
def test_fused_kernel_agrees_with_numpy_bodies(which, dtype):
    constants = {f"%{name}": typ for name, (typ, _value) in tc.CONSTANTS.items()}
    shared = _run_by_test_ops()
    valid = [(case, want) for case, want in tc.valid_cases(dtype)
             if (_shape(case.call, constants) in shared) == (which == "test_ops_too")]
    if not valid:
        pytest.skip("test_ops.py's default case runs none of the table's calls")
    calls, results, wants = [], [], []
    for part in range(GROUPS):
        group = valid[part::GROUPS]
        graph = parse_ir(tc.graph_text([case for case, _ in group], dtype))
        got = FusedKernel(graph)(*tc.inputs(dtype))
        assert len(got) == len(group)
        calls += [case for case, _ in group]
        results += got
        wants += [want for _, want in group]
    assert len(calls) == len(valid)
    _check_all(calls, results, wants)


@pytest.mark.parametrize("engine", ["reference", "native"])
def test_interpreters_agree_with_numpy_bodies(engine):
    valid = tc.valid_cases("float32")
    calls = [case for case, _ in valid]
    graph = parse_ir(tc.graph_text(calls, "float32"))
    fn = fusejit.compile(graph, fuse=False, engine=engine)
    _check_all(calls, fn(*tc.inputs("float32")), [want for _, want in valid])


def test_logit_fuses_as_pytorch_fuses_it():
    graph = parse_ir("""graph(%x : Float(2, 3), %y : Float(2, 3)):
  %eps : float = prim::Constant[value=0.05]()
  %a : Float(2, 3) = aten::logit(%x, %eps)
  %b : Float(2, 3) = aten::mul(%a, %y)
  return (%b)
""")
    fusejit.fuse_graph(graph)
    (group,) = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    kinds = [n.kind for n in group.g("Subgraph").nodes() if n.kind != "prim::Constant"]
    assert kinds == ["aten::logit", "aten::mul"]


@pytest.mark.parametrize("self_, other", [("%x", "%k"), ("%k", "%x"), ("%k", "%j")])
def test_where_scalar_overloads_run_and_do_not_fuse(self_, other):
    text = f"""graph(%c : Bool(2, 3), %x : Float(2, 3)):
  %k : float = prim::Constant[value=0.5]()
  %j : int = prim::Constant[value=3]()
  %w : Tensor = aten::where(%c, {self_}, {other})
  %r : Tensor = aten::mul(%w, %x)
  return (%r)
"""
    fused = parse_ir(text)
    fusejit.fuse_graph(fused)
    assert [n.kind for n in fused.nodes() if n.kind.startswith("aten::")] == [
        "aten::where", "aten::mul"]   # (PyTorch's fuser list has only where.self)
    rng = np.random.default_rng(3)
    c, x = rng.random((2, 3)) < 0.5, rng.standard_normal((2, 3)).astype(np.float32)
    values = {"%x": x, "%k": 0.5, "%j": 3}
    want = np.where(c, values[self_], values[other])
    want = want.astype(np.float32) if want.dtype == np.float64 else want
    got = fusejit.compile(parse_ir(text), engine="reference")(c, x)
    np.testing.assert_allclose(got, want * x, rtol=1e-6)
    assert got.dtype == (want * x).dtype
