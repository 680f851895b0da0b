"""Shape analysis (``propagate_input_shapes``): hand-derived types after the pass (PyTorch's type
promotion and shape rules worked out by hand), the corpus's PyTorch-produced types, and the types
of values computed on real inputs of other sizes (what the executor relies on)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fusejit import parse_ir
from fusejit.errors import IRError
from fusejit.ir.constants import constant_value
from fusejit.ir.graph import Graph
from fusejit.ir.symbols import aten, prim
from fusejit.ir.types import (
    FLOAT,
    INT,
    TENSOR,
    FutureType,
    ListType,
    ScalarType,
    TensorType,
    Type,
)
from fusejit.passes.shape_analysis import (
    argument_type,
    merge_types,
    propagate_input_shapes,
    unify_types,
)
from fusejit.runtime.code import Code
from fusejit.runtime.ops import make_operation
from fusejit.runtime.reference import InterpreterState
from tests.conftest import IR_FILES, corpus_path, read_corpus

Float, Double, Long, Bool = ScalarType.Float, ScalarType.Double, ScalarType.Long, ScalarType.Bool


def ranked(scalar: ScalarType | None, rank: int | None, device: str | None = "cpu") -> TensorType:
    return TensorType(scalar, None if rank is None else (None,) * rank, None, None, device)


def parsed_type(text: str | Type) -> Type:
    if isinstance(text, Type):  # 0-dim types print like rank-unknown ones: give those directly
        return text
    return parse_ir(f"graph(%x : {text}):\n  return (%x)\n").inputs[0].type


def all_values(graph) -> list:
    found = list(graph.inputs)
    for node in graph.all_nodes():
        for block in node.blocks:
            found.extend(block.inputs)
        found.extend(node.outputs)
        if node.has_attribute("Subgraph"):
            found.extend(all_values(node.g("Subgraph")))
    return found


def structure(graph) -> list:
    """Everything but the types: kinds, operands, attributes, nesting."""
    return [(str(n.kind), [v.debug_name for v in n.inputs], [v.debug_name for v in n.outputs],
             sorted(n.attribute_names()), len(n.blocks)) for n in graph.all_nodes()]


def strip_tensor_types(graph) -> None:
    for value in all_values(graph):
        if isinstance(value.type, TensorType):
            value.set_type(TENSOR)


def types_of(graph) -> dict[str, Type]:
    return {v.debug_name: v.type for v in all_values(graph)}


# -- hand-derived results ---------------------------------------------------------------------

PRELUDE = """  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %half : float = prim::Constant[value=0.5]()
  %true : bool = prim::Constant[value=1]()
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %dim1 : int[] = prim::Constant[value=[1]]()
"""

# (body using %x and %y, input types of %x and %y, expected type of %r as printed)
CASES = [
    ("aten::add(%x, %half, %one)", Long, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::add(%x, %two, %one)", Long, 2, None, None, "Long(*, *, device=cpu)"),
    ("aten::add(%x, %y, %one)", Long, 2, Float, 1, "Float(*, *, device=cpu)"),
    ("aten::add(%x, %y, %one)", Float, 2, Double, 3, "Double(*, *, *, device=cpu)"),
    ("aten::add(%x, %y, %one)", Bool, 1, Bool, 1, "Bool(*, device=cpu)"),
    # a 0-dim operand of a higher category sets the dtype; of the same category, it does not
    ("aten::add(%x, %y, %one)", Long, 2, Double, 0, "Double(*, *, device=cpu)"),
    ("aten::add(%x, %y, %one)", Float, 2, Double, 0, "Float(*, *, device=cpu)"),
    ("aten::mul(%x, %y)", Bool, 2, Long, 2, "Long(*, *, device=cpu)"),
    ("aten::div(%x, %two)", Long, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::remainder(%x, %two)", Long, 1, None, None, "Long(*, device=cpu)"),
    ("aten::pow(%x, %half)", Long, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::gt(%x, %y)", Long, 2, Float, 2, "Bool(*, *, device=cpu)"),
    ("aten::eq(%x, %half)", Double, 3, None, None, "Bool(*, *, *, device=cpu)"),
    ("aten::lt(%x, %two)", Float, 0, None, None, ranked(Bool, 0)),
    ("aten::__and__(%x, %y)", Bool, 2, Bool, 2, "Bool(*, *, device=cpu)"),
    ("aten::sigmoid(%x)", Double, 2, None, None, "Double(*, *, device=cpu)"),
    ("aten::exp(%x)", Long, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::neg(%x)", Long, 1, None, None, "Long(*, device=cpu)"),
    ("aten::type_as(%x, %y)", Float, 2, Long, 1, "Long(*, *, device=cpu)"),
    ("aten::mm(%x, %y)", Float, 2, Float, 2, "Float(*, *, device=cpu)"),
    ("aten::matmul(%x, %y)", Double, 3, Double, 2, "Double(*, *, *, device=cpu)"),
    ("aten::t(%x)", Long, 2, None, None, "Long(*, *, device=cpu)"),
    ("aten::sum(%x, %dim1, %true, %none)", Float, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::sum(%x, %dim1, %false, %none)", Float, 3, None, None, "Float(*, *, device=cpu)"),
    ("aten::sum(%x, %none)", Long, 2, None, None, ranked(Long, 0)),
    ("aten::sum(%x, %dim1, %false, %none)", Bool, 2, None, None, "Long(*, device=cpu)"),
    ("aten::select(%x, %one, %two)", Float, 3, None, None, "Float(*, *, device=cpu)"),
    ("aten::clamp(%x, %none, %half)", Long, 2, None, None, "Float(*, *, device=cpu)"),
    ("aten::where(%y, %x, %x)", Long, 2, Bool, 3, "Long(*, *, *, device=cpu)"),
    ("aten::lerp(%x, %y, %half)", Float, 2, Float, 1, "Float(*, *, device=cpu)"),
    ("aten::add_(%x, %y, %one)", Float, 2, Double, 2, "Float(*, *, device=cpu)"),
    ("aten::contiguous(%x, %two)", Bool, 2, None, None, "Bool(*, *, device=cpu)"),
]


@pytest.mark.parametrize("call, xt, xr, yt, yr, expected", CASES,
                         ids=[f"{c[0].split('(')[0]}-{i}" for i, c in enumerate(CASES)])
def test_output_type_of_one_op(call, xt, xr, yt, yr, expected):
    g = parse_ir(f"graph(%x : Tensor, %y : Tensor):\n{PRELUDE}  %r : Tensor = {call}\n"
                 "  return (%r)\n")
    before = structure(g)
    propagate_input_shapes(g, [ranked(xt, xr), ranked(yt, yr) if yt else ranked(Float, 1)])
    assert g.outputs[0].type == parsed_type(expected)
    assert structure(g) == before
    g.lint()


@pytest.mark.parametrize("scalar, tensor, expected", [
    ("float", Long, Float), ("int", Long, Long), ("float", Double, Double),
    ("int", Bool, Long), ("bool", Long, Long),
])
def test_non_constant_scalar_inputs_promote_by_kind(scalar, tensor, expected):
    # Any value of the scalar's kind gives the same dtype: several are tried, all agree.
    g = parse_ir(f"""graph(%x : Tensor, %s : {scalar}):
  %r : Tensor = aten::mul(%x, %s)
  return (%r)
""")
    propagate_input_shapes(g, [ranked(tensor, 2), None])
    assert g.outputs[0].type == ranked(expected, 2)


def test_complete_sizes_propagate_and_metadata_is_known():
    # size() of a complete tensor is known, so the view's result has its sizes too.
    g = parse_ir("""graph(%x : Tensor, %w : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %minus : int = prim::Constant[value=-1]()
  %m : Tensor = aten::mm(%x, %w)
  %n : int = aten::size(%m, %zero)
  %shape : int[] = prim::ListConstruct(%minus, %n)
  %v : Tensor = aten::view(%m, %shape)
  %s : Tensor = aten::add(%v, %one, %one)
  return (%s)
""")
    x, w = np.ones((3, 4), np.float32), np.ones((4, 6), np.float32)
    propagate_input_shapes(g, [argument_type(x, complete=True), argument_type(w, complete=True)])
    t = types_of(g)
    assert t["m"] == TensorType(Float, (3, 6), None, None, "cpu")
    assert t["v"].sizes == (6, 3) and t["s"].sizes == (6, 3)
    assert t["s"].strides is None  # computed values get no strides


def test_view_rank_comes_from_the_size_list():
    g = parse_ir("""graph(%x : Tensor, %a : int, %sizes : int[]):
  %minus : int = prim::Constant[value=-1]()
  %c : int[] = prim::Constant[value=[2, 12]]()
  %l : int[] = prim::ListConstruct(%a, %minus, %a)
  %v1 : Tensor = aten::view(%x, %c)
  %v2 : Tensor = aten::reshape(%x, %l)
  %v3 : Tensor = aten::view(%x, %sizes)
  %e : Tensor = aten::exp(%v3)
  return (%v1, %v2, %v3, %e)
""")
    propagate_input_shapes(g, [ranked(Long, 2), None, None])
    t = types_of(g)
    assert t["v1"] == TensorType(Long, (2, 12), None, None, "cpu")
    assert t["v2"] == ranked(Long, 3)
    # a list of unknown length: the rank is unknown, the dtype is the viewed tensor's
    assert t["v3"] == ranked(Long, None)
    assert t["e"] == ranked(Float, None)


def test_keepdim_that_is_not_a_constant_leaves_the_rank_unknown():
    g = parse_ir(f"""graph(%x : Tensor, %k : bool):
{PRELUDE}  %r : Tensor = aten::sum(%x, %dim1, %k, %none)
  return (%r)
""")
    propagate_input_shapes(g, [ranked(Double, 2), None])
    assert g.outputs[0].type == ranked(Double, None)


def test_unknown_dtype_input_still_gives_bool_comparisons():
    g = parse_ir("""graph(%x : Tensor):
  %h : float = prim::Constant[value=0.5]()
  %c : Tensor = aten::gt(%x, %h)
  %m : Tensor = aten::mul(%x, %h)
  return (%c, %m)
""")
    propagate_input_shapes(g, [ranked(None, 2)])
    c, m = g.outputs
    assert c.type == ranked(Bool, 2)
    assert m.type == ranked(None, 2)  # Float for Long or Float inputs, Double for Double


@pytest.mark.parametrize("chunks, dim, sizes, expected", [
    (2, 1, None, ["Float(*, *, device=cpu)"] * 2),
    (2, 1, (4, 6), ["Float(4, 3, device=cpu)"] * 2),
    (3, 0, (5, 2), ["Float(2, 2, device=cpu)", "Float(2, 2, device=cpu)",
                    "Float(1, 2, device=cpu)"]),
    (4, -1, (3, 8), ["Float(3, 2, device=cpu)"] * 4),
])
def test_constant_chunk(chunks, dim, sizes, expected):
    outs = ", ".join(f"%c{i} : Tensor" for i in range(chunks))
    g = parse_ir(f"""graph(%x : Tensor):
  {outs} = prim::ConstantChunk[chunks={chunks}, dim={dim}](%x)
  return ({", ".join(f"%c{i}" for i in range(chunks))})
""")
    t = ranked(Float, 2) if sizes is None else TensorType(Float, sizes, None, None, "cpu")
    propagate_input_shapes(g, [t])
    assert [v.type for v in g.outputs] == [parsed_type(e) for e in expected]


def test_chunk_list_broadcast_tensors_and_unpack():
    g = parse_ir("""graph(%x : Tensor, %b : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %l : Tensor[] = aten::chunk(%x, %two, %one)
  %p : Tensor, %q : Tensor = prim::ListUnpack(%l)
  %pair : Tensor[] = prim::ListConstruct(%b, %p)
  %bt : Tensor[] = aten::broadcast_tensors(%pair)
  %u : Tensor, %w : Tensor = prim::ListUnpack(%bt)
  return (%q, %u, %w)
""")
    propagate_input_shapes(g, [ranked(Double, 2), ranked(Long, 1)])
    t = types_of(g)
    assert t["l"] == ListType(TENSOR) and t["pair"] == ListType(TENSOR)
    assert t["p"] == t["q"] == ranked(Double, 2)
    assert t["u"] == ranked(Long, 2) and t["w"] == ranked(Double, 2)


# -- control flow -----------------------------------------------------------------------------

IF_GRAPH = """graph(%x : Tensor, %y : Tensor, %b : bool):
  %one : int = prim::Constant[value=1]()
  %r : Tensor = prim::If(%b)
    block0():
      %p : Tensor = aten::add(%x, %one, %one)
      -> (%p)
    block1():
      %q : Tensor = aten::mul(%y, %one)
      -> (%q)
  return (%r)
"""


@pytest.mark.parametrize("x, y, expected", [
    (ranked(Float, 2), ranked(Float, 2), ranked(Float, 2)),
    (ranked(Float, 2), ranked(Double, 2), ranked(None, 2)),
    (ranked(Long, 2), ranked(Long, 3), ranked(Long, None)),
    (ranked(Float, 1), ranked(Bool, 0), ranked(None, None)),
    (TensorType(Float, (3, 4), None, None, "cpu"), TensorType(Float, (3, 5), None, None, "cpu"),
     TensorType(Float, (3, None), None, None, "cpu")),
])
def test_if_output_unifies_both_branches(x, y, expected):
    g = parse_ir(IF_GRAPH)
    propagate_input_shapes(g, [x, y, None])
    assert g.outputs[0].type == expected
    assert types_of(g)["q"].scalar_type == (Long if y.scalar_type is Bool else y.scalar_type)


def test_if_on_a_constant_takes_the_branch_that_runs():
    g = parse_ir(IF_GRAPH.replace("%b : bool):", "%c : bool):\n  %b : bool = "
                                  "prim::Constant[value=0]()"))
    propagate_input_shapes(g, [ranked(Float, 2), ranked(Double, 3), None])
    assert g.outputs[0].type == ranked(Double, 3)


LOOP_GRAPH = """graph(%x : Tensor, %y : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor, %s : Tensor, %g : Tensor = prim::Loop(%n, %true, %x, %x, %x)
    block0(%i : int, %a.1 : Tensor, %s.1 : Tensor, %g.1 : Tensor):
      %a.2 : Tensor = aten::mul(%a.1, %half)
      %s.2 : Tensor = aten::add(%s.1, %one, %one)
      %g.2 : Tensor = aten::add(%g.1, %y, %one)
      -> (%true, %a.2, %s.2, %g.2)
  return (%a, %s, %g)
"""


def test_loop_carried_values_reach_a_fixpoint():
    g = parse_ir(LOOP_GRAPH)
    propagate_input_shapes(g, [ranked(Long, 2), ranked(Long, 3), None])
    t = types_of(g)
    # Long, then Float after one round: the dtype is unknown (it could be Long at exit)
    assert t["a"] == t["a.1"] == ranked(None, 2)
    assert t["a.2"] == ranked(None, 2)  # Float from Long or Float, Double from Double
    assert t["s"] == t["s.1"] == ranked(Long, 2)  # stable from the first round
    assert t["g"] == ranked(Long, None)  # rank 2 at entry, 3 after a round


def test_loop_agrees_with_the_interpreter_for_zero_and_more_trips():
    g = parse_ir(LOOP_GRAPH)
    propagate_input_shapes(g, [ranked(Float, 2), ranked(Float, 2), None])
    assert [v.type for v in g.outputs] == [ranked(Float, 2)] * 3
    for trips in (0, 3):
        outs = run_graph(g, [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), trips])
        assert all(o.dtype == np.float32 and o.ndim == 2 for o in outs)


def test_fusion_group_subgraph_is_specialised():
    g = parse_ir("""graph(%x : Tensor, %y : Tensor):
  %r : Tensor = prim::FusionGroup_0(%x, %y)
  return (%r)
with prim::FusionGroup_0 = graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %c : Tensor = aten::add(%a, %b, %one)
  %d : Tensor = aten::gt(%c, %one)
  return (%d)
""")
    propagate_input_shapes(g, [ranked(Long, 2), ranked(Float, 1)])
    group = next(n for n in g.nodes() if n.kind == prim.FusionGroup)
    inner = types_of(group.g("Subgraph"))
    assert inner["a"] == ranked(Long, 2) and inner["c"] == ranked(Float, 2)
    assert g.outputs[0].type == inner["d"] == ranked(Bool, 2)


# -- types already in the graph ---------------------------------------------------------------

KNOWN = "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)"
OPAQUE = f"""graph(%x : {KNOWN}):
  %a : {KNOWN} = aten::sigmoid(%x)
  %b : {KNOWN} = fusejit::opaque(%a)
  return (%b)
"""


@pytest.mark.parametrize("new, a, b", [
    # the same input types: every claim of the text still holds
    (KNOWN, "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)", KNOWN),
    # rank only (a plan reused for any size): the text's sizes may be wrong, its rank is not
    ("Float(*, *, device=cpu)", "Float(*, *, requires_grad=0, device=cpu)",
     "Float(*, *, requires_grad=0, device=cpu)"),
    # another dtype: the opaque op's declared dtype may be wrong, its rank still holds
    ("Double(*, *, device=cpu)", "Double(*, *, requires_grad=0, device=cpu)",
     "Tensor(*, *, requires_grad=0, device=cpu)"),
    # another rank: the opaque op keeps its dtype, not its rank (which would print as 0-dim)
    ("Float(*, *, *, device=cpu)", "Float(*, *, *, requires_grad=0, device=cpu)",
     TensorType(Float, None, None, False, "cpu")),
])
def test_declared_types_survive_only_while_the_inputs_keep_them(new, a, b):
    g = parse_ir(OPAQUE)
    propagate_input_shapes(g, [parsed_type(new)])
    t = types_of(g)
    assert t["a"] == parsed_type(a)
    assert t["b"] == (parsed_type(b) if isinstance(b, str) else b)


def test_inferred_types_replace_contradicting_declarations():
    g = parse_ir("""graph(%x : Float(*, *, device=cpu)):
  %a : Double(7, device=cpu) = aten::exp(%x)
  return (%a)
""")
    propagate_input_shapes(g, [None])
    assert g.outputs[0].type == ranked(Float, 2)


def test_merge_keeps_what_only_the_graph_knows():
    old = TensorType(Float, (3, None), None, False, "cpu")
    assert merge_types(old, ranked(None, 2), frozenset()) == TensorType(
        Float, (3, None), None, False, "cpu")
    assert merge_types(old, ranked(None, 2), frozenset({"sizes"})) == TensorType(
        Float, (None, None), None, False, "cpu")
    assert merge_types(INT, None, frozenset()) == INT


@pytest.mark.parametrize("a, b, expected", [
    (INT, INT, INT),
    (INT, FLOAT, None),
    (ListType(INT), ListType(INT), ListType(INT)),
    (parsed_type("NoneType"), ranked(Float, 2), parsed_type("Float(*, *, device=cpu)?")),
    (TensorType(Float, (2, 3), (3, 1), None, "cpu"), TensorType(Float, (2, 3), (3, 1), None,
                                                                 "cpu"),
     TensorType(Float, (2, 3), (3, 1), None, "cpu")),
    (TensorType(Float, (2, 3), (3, 1), None, "cpu"), TensorType(Float, (2, 3), (1, 2), None,
                                                                 "cpu"),
     TensorType(Float, (2, 3), None, None, "cpu")),
])
def test_unify_types(a, b, expected):
    assert unify_types(a, b) == expected
    assert unify_types(b, a) == expected


# -- what must not happen ---------------------------------------------------------------------

def test_impure_ops_are_never_run(capsys):
    g = parse_ir("""graph(%x : Tensor):
  %msg : str = prim::Constant[value="boom"]()
  %two : int = prim::Constant[value=2]()
   = aten::warn(%msg, %two)
   = prim::Print(%x)
  %r : Tensor = aten::rand_like(%x)
  %s : Tensor = aten::sigmoid(%r)
  return (%s)
""")
    state = np.random.get_state()[1].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        propagate_input_shapes(g, [ranked(Float, 2)])
    assert capsys.readouterr().out == ""
    assert (np.random.get_state()[1] == state).all()
    # nothing is known about rand_like's result, so nothing about the sigmoid's either
    assert g.outputs[0].type == TENSOR


def test_python_op_outputs_keep_their_declared_types():
    g = parse_ir("""graph(%x : Tensor):
  %y : Float(*, device=cpu) = prim::PythonOp(%x)
  %z : Tensor = aten::neg(%y)
  return (%z)
""")
    propagate_input_shapes(g, [ranked(Long, 2)])
    assert g.outputs[0].type == ranked(Float, 1)


ONE_INPUT = "graph(%x : Tensor):\n  return (%x)\n"
TWO_INPUTS = "graph(%x : Tensor, %n : int):\n  return (%x)\n"


@pytest.mark.parametrize("text, types, message", [
    (ONE_INPUT, [ranked(Float, 2)] * 2, "2 input types for a graph with 1 inputs"),
    (TWO_INPUTS, [ranked(Float, 2)] * 2, "input %n is declared int"),
    (TWO_INPUTS, [None, FLOAT], "input %n is declared int"),
    (TWO_INPUTS, ["Float", None], "input %x: 'Float' is not an IR type"),
    (TWO_INPUTS, [INT, None], "input %x is declared Tensor"),
])
def test_bad_input_types_are_clear_errors(text, types, message):
    with pytest.raises(IRError, match=re.escape(message)):
        propagate_input_shapes(parse_ir(text), types)


def test_huge_known_sizes_do_not_allocate():
    g = parse_ir("""graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %r : Tensor = aten::add(%x, %y, %one)
  return (%r)
""")
    big = TensorType(Float, (1 << 20, 1 << 20), None, None, "cpu")
    propagate_input_shapes(g, [big, ranked(Double, 1)])
    assert g.outputs[0].type == ranked(Double, 2)


# -- the corpus: PyTorch's complete shape analysis --------------------------------------------

@pytest.mark.parametrize("rel", IR_FILES)
def test_corpus_types_from_stripped_graphs(rel):
    """Strip every tensor type, specialise to the inputs' dtype and rank: each dtype and rank
    PyTorch printed is found again, and the graph is otherwise unchanged."""
    text = read_corpus(rel)
    original, g = parse_ir(text), parse_ir(text)
    strip_tensor_types(g)
    before = structure(g)
    arrays = np.load(corpus_path(rel.split("/")[0] + "/inputs.npz"))
    types = [argument_type(arrays[f"arg{i}"]) if isinstance(v.type, TensorType) else None
             for i, v in enumerate(original.inputs)]
    propagate_input_shapes(g, types)
    assert structure(g) == before
    g.lint()
    compared = 0
    for want, got in zip(all_values(original), all_values(g)):
        if isinstance(want.type, TensorType):
            assert isinstance(got.type, TensorType), want.debug_name
            if want.type.scalar_type is not None:
                assert got.type.scalar_type == want.type.scalar_type, want.debug_name
                compared += 1
            if want.type.rank is not None:
                assert got.type.rank == want.type.rank, want.debug_name
    assert compared > 0


@pytest.mark.parametrize("rel", [r for r in IR_FILES if r.endswith("input.ir")])
def test_corpus_complete_inputs_give_pytorchs_sizes(rel):
    """With complete input types, every size we infer equals the one PyTorch printed."""
    text = read_corpus(rel)
    original, g = parse_ir(text), parse_ir(text)
    strip_tensor_types(g)
    arrays = np.load(corpus_path(rel.split("/")[0] + "/inputs.npz"))
    types = [v.type if isinstance(v.type, TensorType) else None for v in original.inputs]
    assert all(t is None or t.sizes == arrays[f"arg{i}"].shape for i, t in enumerate(types))
    propagate_input_shapes(g, types)
    for want, got in zip(all_values(original), all_values(g)):
        if isinstance(want.type, TensorType) and want.type.sizes and got.type.sizes:
            for w, s in zip(want.type.sizes, got.type.sizes):
                assert w is None or s is None or w == s, want.debug_name


# -- the types hold for real inputs of any size -----------------------------------------------

def run_graph(graph, args: list) -> list:
    stack = list(args)
    InterpreterState(Code(graph.copy())).run(stack)
    return stack


def evaluate(graph, args: list) -> dict:
    """Every value of a straight-line graph, computed by the operator library."""
    env = dict(zip(graph.inputs, args))
    for node in graph.nodes():
        if node.kind == prim.Constant:
            env[node.output()] = constant_value(node)
            continue
        outs = make_operation(node)(*(env[v] for v in node.inputs))
        env.update(zip(node.outputs, outs))
    return env


BINARY = ["aten::add(%a, %b, %one)", "aten::sub(%a, %b, %one)", "aten::mul(%a, %b)",
          "aten::div(%a, %b)", "aten::max(%a, %b)", "aten::gt(%a, %b)", "aten::eq(%a, %half)",
          "aten::add(%a, %half, %one)", "aten::mul(%a, %two)", "aten::where(%c, %a, %b)",
          "aten::type_as(%a, %b)", "aten::pow(%a, %two)", "aten::atan2(%a, %b)"]
UNARY = ["aten::sigmoid(%a)", "aten::neg(%a)", "aten::abs(%a)", "aten::exp(%a)",
         "aten::sum(%a, %none)", "aten::floor(%a)", "aten::relu(%a)"]
DTYPES = [np.float32, np.float64, np.int64, np.bool_]


@st.composite
def programs(draw):
    """A chain of pointwise ops over two inputs of random dtypes, ranks and sizes."""
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    lines, names = [], ["x", "y"]
    for i in range(draw(st.integers(1, 6))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        template = draw(st.sampled_from(BINARY + UNARY))
        lines.append(f"  %v{i} : Tensor = " + template.replace("%a", f"%{a}")
                     .replace("%b", f"%{b}").replace("%c", "%m"))
        names.append(f"v{i}")
    text = ("graph(%x : Tensor, %y : Tensor, %m : Tensor):\n" + PRELUDE + "\n".join(lines)
            + f"\n  return (%{names[-1]})\n")
    dtypes = [draw(st.sampled_from(DTYPES)) for _ in range(2)]
    y_rank = draw(st.integers(0, len(shape)))
    x = np.full(shape, 3, dtypes[0])
    y = np.full(shape[len(shape) - y_rank:], 2, dtypes[1])
    mask = np.ones(shape[:1] + [1] * (len(shape) - 1), bool) if shape else np.array(True)
    return text, [x, y, mask]


@settings(max_examples=60, deadline=None)
@given(programs())
def test_inferred_types_hold_for_real_inputs(program):
    """Types inferred from dtype and rank alone (proxies of size 1) are those of the values the
    operator library computes on real inputs of other sizes."""
    text, args = program
    g = parse_ir(text)
    try:
        with np.errstate(all="ignore"):
            env = evaluate(g, args)
    except Exception:
        return  # an ill-typed program (sub of bools...): nothing to check
    propagate_input_shapes(g, [argument_type(a) for a in args])
    for value, result in env.items():
        t = value.type
        if isinstance(result, np.ndarray) and isinstance(t, TensorType):
            if t.scalar_type is not None:
                assert t.dtype == result.dtype, (value.debug_name, t, result.dtype)
            if t.rank is not None:
                assert t.rank == result.ndim, (value.debug_name, t, result.shape)


def test_fork_subgraph_and_wait():
    g = Graph()
    x = g.add_input("x")
    sub = Graph()
    a = sub.add_input("a")
    sub.register_output(sub.insert(aten.exp, [a]).output())
    fork = g.insert_node(g.create(prim.fork, [x], 1))
    fork.g_("Subgraph", sub)
    fork.output().set_type(FutureType(TENSOR))
    wait = g.insert(aten.wait, [fork.output()])
    g.register_output(wait.output())
    propagate_input_shapes(g, [ranked(Long, 2)])
    assert fork.output().type == FutureType(ranked(Float, 2))
    assert g.outputs[0].type == ranked(Float, 2)


_APPENDED = """graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %hs : Tensor[] = prim::ListConstruct()
  %last : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %h : Tensor):
      %early : Tensor = aten::__getitem__(%hs, %zero)
      %h2 : Tensor = aten::mul(%h, %half)
      %put : Tensor[] = aten::append(%hs, %h2)
      -> (%true, %h2)
  %k : int = aten::len(%hs)
  %d : Tensor = aten::__getitem__(%hs, %one)
  %e : Tensor = aten::add(%d, %one, %one){late}
  return ({result})
"""


def test_an_item_of_an_appended_list_has_the_type_every_append_put_in():
    """``for d in details`` after a loop that appended float32 vectors: the item read is a
    float32 vector, and so is what is computed from it. A read in the loop's body before its
    append stays untyped: that append's type is not yet current there."""
    g = parse_ir(_APPENDED.format(late="", result="%e, %k"))
    propagate_input_shapes(g, [ranked(Float, 1), INT])
    t = types_of(g)
    assert t["d"] == ranked(Float, 1) and t["e"] == ranked(Float, 1)
    assert t["early"].scalar_type is None


@pytest.mark.parametrize("late, result", [
    # an append of another dtype after the read
    ("\n  %wide : Tensor = aten::to(%x, %seven, %f, %f, %none)\n"
         "  %put2 : Tensor[] = aten::append(%hs, %wide)", "%e, %put2"),
    # the list goes to an op that could put anything in it (a function's argument)
    ("\n  %out : Tensor = aten::cat(%hs, %zero)\n  %t : (Tensor[], int) = "
         "prim::TupleConstruct(%hs, %k)", "%e, %t"),
])
def test_an_item_of_a_list_whose_items_are_not_all_known_stays_untyped(late, result):
    text = _APPENDED.format(late=late, result=result)
    text = text.replace("  %hs :", "  %seven : int = prim::Constant[value=7]()\n"
                                   "  %f : bool = prim::Constant[value=0]()\n"
                                   "  %none : NoneType = prim::Constant()\n  %hs :")
    g = parse_ir(text)
    propagate_input_shapes(g, [ranked(Float, 1), INT])
    t = types_of(g)
    assert t["d"].scalar_type is None and t["e"].scalar_type is None
