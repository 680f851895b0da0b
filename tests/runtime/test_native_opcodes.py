"""Native op ids: one ``NativeOp`` member per native body, named groups, and the tables derived
from them (no native loop is compiled here: these run in milliseconds)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from fusejit import parse_ir
from fusejit.runtime.native import loop, state
from fusejit.runtime.native.opcodes import Group, NativeOp
from fusejit.runtime.native.table import NATIVE_OPS, native_op_for
from fusejit.runtime.ops import OPS

NATIVE_DIR = Path(loop.__file__).parent


def test_every_table_row_is_a_member_of_one_group():
    assert NATIVE_OPS and all(isinstance(op, NativeOp) for op in NATIVE_OPS.values())
    for key, op in NATIVE_OPS.items():
        assert Group.of(op) not in ("HOST", "KERNELS"), key
        assert key in OPS, key            # every row names an operator-library body


def test_groups_partition_the_members_and_are_consecutive():
    grouped = [op for name in Group.ORDER for op in getattr(Group, name)]
    assert len(grouped) == len(set(grouped))
    assert set(grouped) | {NativeOp.HOST, NativeOp.COVERED, NativeOp.KERNEL} == set(NativeOp)
    for name in Group.ORDER:
        ids = sorted(getattr(Group, name))
        assert ids == list(range(ids[0], ids[-1] + 1)), name


@pytest.mark.parametrize("name, group", [("ADD", "TENSOR_ARITH"), ("GE", "TENSOR_COMPARE"),
                                         ("S_LT", "SCALAR_BINARY"), ("COPY_", "STRUCTURAL"),
                                         ("FULL_LIKE", "STRUCTURAL"), ("COS", "TENSOR_UNARY"),
                                         ("LIST_INT", "LISTS")])
def test_a_member_is_found_by_name(name, group):
    # the operator library's entries carry the name; this is all the wiring takes
    assert Group.of(NativeOp[name]) == group
    assert Group.of(NativeOp.KERNEL + 3) == "KERNELS" and Group.of(-1) == "HOST"


@pytest.mark.parametrize("line, op", [
    ("%y : Tensor = aten::add(%x, %x, %one)", NativeOp.ADD),
    ("%y : Tensor = aten::sigmoid(%x)", NativeOp.SIGMOID),
    ("%y : Tensor = aten::copy_(%x, %x, %f)", NativeOp.COPY_),
    ("%b : bool = aten::lt(%one, %one)", NativeOp.S_LT),
    ("%y : Tensor = aten::erf(%x)", NativeOp.HOST),
])
def test_lowering_gives_members(line, op):
    graph = parse_ir(f"""graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  {line}
  return (%x)
""")
    node = [n for n in graph.nodes() if n.kind != "prim::Constant"][0]
    got, _, _ = native_op_for(node)
    assert got == op and isinstance(got, NativeOp)


def test_no_native_module_compares_op_ids_with_bare_numbers():
    # The op ids live in opcodes.py alone: dispatch compares against members.
    pattern = re.compile(r"\bop\s*(==|!=|<=|>=|<|>)\s*-?\d")
    for path in NATIVE_DIR.glob("*.py"):
        if path.name == "opcodes.py":
            continue
        for number, text in enumerate(path.read_text().splitlines(), 1):
            assert not pattern.search(text), f"{path.name}:{number}: {text.strip()}"


def test_the_loops_arguments_are_declared_once():
    # run_loop reads LoopArgs by attribute: each field once, no field missing, none unknown.
    source = inspect.getsource(loop.run_loop.py_func)
    tree = ast.parse(source)
    read = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "a"}
    assert read == set(state.LOOP_ARGS)
    assert list(state.LoopArgs._fields) == list(state.LOOP_ARGS)
    params = list(inspect.signature(loop.run_loop.py_func).parameters)
    assert params == ["a"]
