"""constant_propagation: before/after IR, written by hand from PyTorch's pass semantics.

Graphs are compared through ``_canon``, which prints every non-constant node with constant
inputs shown by value, so the expected IR can be written without guessing fresh value names.
"""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.ir.constants import constant_value
from fusejit.ir.parser import parse_ir
from fusejit.ir.symbols import prim
from fusejit.ir.types import FLOAT, INT, ListType, TensorType
from fusejit.passes.constant_propagation import constant_propagation
from tests.conftest import IR_FILES, read_corpus


def _canon(graph) -> list[str]:
    names = {v: f"in{i}" for i, v in enumerate(graph.inputs)}
    lines: list[str] = []

    def show(v) -> str:
        if v.node.kind == prim.Constant:
            value = constant_value(v.node)
            return repr(value.tolist() if isinstance(value, np.ndarray) else value)
        return names[v]

    def walk(block, indent: str) -> None:
        for node in block.nodes():
            if node.kind == prim.Constant:
                continue
            for out in node.outputs:
                names[out] = f"v{len(names)}"
            outs = ", ".join(names[o] for o in node.outputs)
            lines.append(f"{indent}{outs} = {node.kind}({', '.join(show(v) for v in node.inputs)})")
            for b in node.blocks:
                for v in b.inputs:
                    names[v] = f"v{len(names)}"
                lines.append(f"{indent}  block({', '.join(names[v] for v in b.inputs)})")
                walk(b, indent + "    ")
                lines.append(f"{indent}    -> ({', '.join(show(v) for v in b.outputs)})")
        if block is graph.block:
            lines.append(f"return ({', '.join(show(v) for v in block.outputs)})")

    walk(graph.block, "")
    return lines


def _fold(text: str):
    graph = parse_ir(text)
    changed = constant_propagation(graph)
    graph.lint()
    return graph, changed


def _constants(graph) -> list:
    return [constant_value(n) for n in graph.all_nodes() if n.kind == prim.Constant]


def test_scalar_chain_folds_into_one_constant() -> None:
    graph, changed = _fold("""graph(%x : Float(3)):
  %a : int = prim::Constant[value=2]()
  %b : int = prim::Constant[value=3]()
  %c : int = aten::mul(%a, %b)
  %d : int = aten::add(%c, %a)
  %one : int = prim::Constant[value=1]()
  %y : Float(3) = aten::add(%x, %d, %one)
  return (%y)""")
    assert changed
    assert _canon(graph) == ["v1 = aten::add(in0, 8, 1)", "return (v1)"]
    assert sorted(_constants(graph)) == [1, 8]  # 2 and 3 are dead and gone


def test_tensor_op_on_constant_tensors_becomes_a_tensor_constant() -> None:
    graph, _ = _fold("""graph():
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %b : Float(3) = prim::Constant[value= 10  20  30 [ CPUFloatType{3} ]]()
  %two : int = prim::Constant[value=2]()
  %c : Float(3) = aten::add(%a, %b, %two)
  %d : Float(3) = aten::neg(%c)
  return (%d)""")
    (node,) = list(graph.nodes())
    value = constant_value(node)
    assert value.dtype == np.float32 and value.tolist() == [-21.0, -42.0, -63.0]
    assert node.output().type == TensorType.of_array(value)


def test_list_construct_of_constants_becomes_an_int_list() -> None:
    graph, _ = _fold("""graph(%x : Float(6)):
  %a : int = prim::Constant[value=2]()
  %b : int = prim::Constant[value=-1]()
  %s : int[] = prim::ListConstruct(%a, %b)
  %y : Float(2, 3) = aten::view(%x, %s)
  return (%y)""")
    assert _canon(graph) == ["v1 = aten::view(in0, [2, -1])", "return (v1)"]
    view = next(n for n in graph.nodes() if n.kind == "aten::view")
    assert view.input(1).type == ListType(INT)


def test_numbers_only_folds_numbers_and_leaves_arrays_and_lists() -> None:
    """``numbers_only`` (what ``@fusejit.jit`` runs): the int and float arithmetic folds; a
    tensor op and a list construct on constants stay nodes (a new array every call)."""
    graph = parse_ir("""graph(%x : Float(6)):
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %third : float = aten::div(%one, %three)
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %na : Float(3) = aten::neg(%a)
  %m : int = prim::Constant[value=-1]()
  %s : int[] = prim::ListConstruct(%three, %m)
  %v : Float(3, 2) = aten::view(%x, %s)
  %p : Float(6) = aten::pow(%x, %third)
  return (%p, %na, %v)""")
    assert constant_propagation(graph, numbers_only=True)
    graph.lint()
    assert _canon(graph) == ["v1 = aten::neg([1.0, 2.0, 3.0])", "v2 = prim::ListConstruct(3, -1)",
                             "v3 = aten::view(in0, v2)", f"v4 = aten::pow(in0, {1 / 3!r})",
                             "return (v4, v1, v3)"]


@pytest.mark.parametrize("flag, expected", [(1, "aten::sin"), (0, "aten::cos")])
def test_if_with_constant_condition_is_inlined(flag: int, expected: str) -> None:
    graph, changed = _fold(f"""graph(%x : Float(3)):
  %c : bool = prim::Constant[value={flag}]()
  %y : Float(3) = prim::If(%c)
    block0():
      %s : Float(3) = aten::sin(%x)
      -> (%s)
    block1():
      %t : Float(3) = aten::cos(%x)
      -> (%t)
  %z : Float(3) = aten::exp(%y)
  return (%z)""")
    assert changed
    assert _canon(graph) == [f"v1 = {expected}(in0)", "v2 = aten::exp(v1)", "return (v2)"]


def test_if_branches_are_propagated_and_agreeing_outputs_removed() -> None:
    graph, _ = _fold("""graph(%x : Float(3), %c : bool):
  %two : int = prim::Constant[value=2]()
  %y : Float(3), %k : int, %same : Float(3) = prim::If(%c)
    block0():
      %four : int = aten::mul(%two, %two)
      %s : Float(3) = aten::sin(%x)
      -> (%s, %four, %x)
    block1():
      %four2 : int = aten::add(%two, %two)
      -> (%x, %four2, %x)
  %z : Float(3) = aten::mul(%y, %k)
  %w : Float(3) = aten::mul(%z, %same)
  return (%w)""")
    assert _canon(graph) == [
        "v2 = prim::If(in1)",
        "  block()",
        "    v3 = aten::sin(in0)",
        "    -> (v3)",
        "  block()",
        "    -> (in0)",
        "v4 = aten::mul(v2, 4)",
        "v5 = aten::mul(v4, in0)",
        "return (v5)",
    ]


def test_loop_that_cannot_run_is_replaced_by_its_initial_values() -> None:
    graph, _ = _fold("""graph(%x : Float(3)):
  %zero : int = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %y : Float(3) = prim::Loop(%zero, %true, %x)
    block0(%i : int, %acc : Float(3)):
      %n : Float(3) = aten::exp(%acc)
      -> (%true, %n)
  return (%y)""")
    assert _canon(graph) == ["return (in0)"]


def test_loop_carried_value_passed_through_unchanged_is_removed() -> None:
    graph, _ = _fold("""graph(%x : Float(3), %n : int):
  %true : bool = prim::Constant[value=1]()
  %y : Float(3), %k : int = prim::Loop(%n, %true, %x, %n)
    block0(%i : int, %acc : Float(3), %kk : int):
      %e : Float(3) = aten::exp(%acc)
      %f : Float(3) = aten::mul(%e, %kk)
      -> (%true, %f, %kk)
  %z : Float(3) = aten::mul(%y, %k)
  return (%z)""")
    assert _canon(graph) == [
        "v2 = prim::Loop(in1, True, in0)",
        "  block(v3, v4)",
        "    v5 = aten::exp(v4)",
        "    v6 = aten::mul(v5, in1)",
        "    -> (True, v6)",
        "v7 = aten::mul(v2, in1)",
        "return (v7)",
    ]


# -- what must not fold ----------------------------------------------------------------------

NOT_FOLDED = {
    "nondeterministic": """graph():
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %r : Float(3) = aten::rand_like(%a)
  return (%r)""",
    "side effect": """graph():
  %m : str = prim::Constant[value="boom"]()
   = prim::RaiseException(%m)
  %z : int = prim::Constant[value=0]()
  return (%z)""",
    "failing op": """graph():
  %a : int = prim::Constant[value=1]()
  %b : int = prim::Constant[value=0]()
  %c : int = aten::floordiv(%a, %b)
  return (%c)""",
    "shape error": """graph():
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %b : Float(2) = prim::Constant[value= 1  2 [ CPUFloatType{2} ]]()
  %one : int = prim::Constant[value=1]()
  %c : Float(3) = aten::add(%a, %b, %one)
  return (%c)""",
    "non-constant input": """graph(%n : int):
  %a : int = prim::Constant[value=1]()
  %c : int = aten::add(%a, %n)
  return (%c)""",
    "uninitialized": """graph():
  %u : Tensor = prim::Uninitialized()
  return (%u)""",
    "list of tensors": """graph():
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %l : Tensor[] = prim::ListConstruct(%a, %a)
  %c : Tensor = aten::cat(%l)
  return (%l)""",
}


@pytest.mark.parametrize("name", list(NOT_FOLDED))
def test_left_in_place(name: str) -> None:
    text = NOT_FOLDED[name]
    before = _canon(parse_ir(text))
    graph, changed = _fold(text)
    assert not changed
    assert _canon(graph) == before


def test_constant_that_is_written_in_place_is_not_folded() -> None:
    text = """graph(%x : Float(3)):
  %a : Float(3) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %one : int = prim::Constant[value=1]()
  %e : Float(3) = aten::exp(%a)
  %v : Float(3) = aten::t(%a)
  %w : Float(3) = aten::add_(%v, %x, %one)
  %r : Float(3) = aten::mul(%e, %w)
  return (%r)"""
    graph, changed = _fold(text)
    assert not changed
    assert _canon(graph) == _canon(parse_ir(text))


def test_untouched_graph_reports_no_change() -> None:
    graph, changed = _fold("""graph(%x : Float(3)):
  %y : Float(3) = aten::exp(%x)
  return (%y)""")
    assert not changed and _canon(graph) == ["v1 = aten::exp(in0)", "return (v1)"]


def test_folded_float_and_none_outputs_get_their_types() -> None:
    graph, _ = _fold("""graph():
  %a : float = prim::Constant[value=1.5]()
  %b : int = prim::Constant[value=2]()
  %c : float = aten::mul(%a, %b)
  %s : int[] = prim::Constant[value=[2, 3]]()
  %n : int[]? = aten::_size_if_not_equal(%s, %s)
  return (%c, %n)""")
    product, none = (v.node for v in graph.outputs)
    assert constant_value(product) == 3.0 and product.output().type == FLOAT
    assert constant_value(none) is None and str(none.output().type) == "int[]?"


@pytest.mark.parametrize("rel", [f for f in IR_FILES if f.endswith("input.ir")])
def test_corpus_inputs_are_already_propagated(rel: str) -> None:
    # PyTorch ran its constant propagation before printing input.ir: nothing is left to fold
    graph = parse_ir(read_corpus(rel))
    before = str(graph)
    assert not constant_propagation(graph)
    assert str(graph) == before
