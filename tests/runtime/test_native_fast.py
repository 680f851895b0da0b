"""The native loop's scalar fast path (``native/fast.py``) against the reference engine: every
int/bool op body it has, the operands it leaves to the general loop (floats, a division that
Python must raise), and a scalar while+if that runs natively from end to end."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.examples import WHILE_IF
from fusejit.runtime.code import Code
from fusejit.runtime.interpreter import NativeInterpreter
from fusejit.runtime.native import fast
from fusejit.runtime.native.program import program_of
from tests.runtime.test_native_ops import I64_MAX, I64_MIN, assert_same, errors_of, run_both

pytestmark = pytest.mark.usefixtures("nrt_balanced")

OPS = ["add", "sub", "mul", "floordiv", "remainder", "eq", "ne", "lt", "le", "gt", "ge",
       "__and__", "__or__", "__xor__"]
RESULT = {"eq": "bool", "ne": "bool", "lt": "bool", "le": "bool", "gt": "bool", "ge": "bool"}
# (a, b) pairs per operand type: signs, zero, the int64 ends (wrap-around), mixed kinds.
PAIRS = {("int", "int"): [(7, -3), (-7, 3), (0, 5), (I64_MAX, 1), (I64_MIN, 2), (3, 3)],
         ("bool", "bool"): [(True, False), (True, True), (False, False)],
         ("int", "float"): [(3, 0.5), (-2, -2.0)],
         ("float", "float"): [(1.5, -0.25), (float("nan"), 1.0)]}
LOGIC = {"__and__", "__or__", "__xor__"}


def _graph(op: str, ta: str, tb: str) -> str:
    logic = op in LOGIC
    ty = "bool" if logic else RESULT.get(op, "float" if "float" in (ta, tb) else "int")
    return f"graph(%a : {ta}, %b : {tb}):\n  %y : {ty} = aten::{op}(%a, %b)\n  return (%y)\n"


@pytest.mark.parametrize("op, types", [
    (op, types) for op in OPS for types in PAIRS if (op in LOGIC) == (types == ("bool", "bool"))])
def test_fast_scalar_ops_match_the_reference(op, types):
    for a, b in PAIRS[types]:
        got, want, host_calls = run_both(_graph(op, *types), a, b)
        assert_same(got, want)
        assert host_calls == 2   # Load and Store only


@pytest.mark.parametrize("op, a, b", [("floordiv", 5, 0), ("remainder", -5, 0)])
def test_a_division_by_zero_leaves_the_fast_path_and_raises_the_reference_error(op, a, b):
    native, reference = errors_of(_graph(op, "int", "int"), a, b)
    assert "ZeroDivisionError" in native and native == reference


@pytest.mark.parametrize("op", ["floordiv", "remainder"])
def test_int64_min_by_minus_one_runs_on_the_host(op):
    got, want, host_calls = run_both(_graph(op, "int", "int"), I64_MIN, -1)
    assert_same(got, want)
    assert host_calls == 3


def _while_if(n: int) -> int:
    k = acc = 0
    while k < n:
        acc = acc + k if k % 2 == 0 else acc - 1
        k += 1
    return acc


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_a_scalar_loop_runs_in_the_fast_path(n):
    code = Code(parse_ir(WHILE_IF))
    rows = program_of(code).fast
    kinds = set(rows[:-1, fast.KIND].tolist())
    # Load and Store are the only instructions left to the general loop.
    assert sum(rows[:-1, fast.KIND] == fast.F_EXIT) == 2
    assert {fast.F_JUMP, fast.F_JUMPZ, fast.F_JUMPNZ, fast.F_CONST, fast.F_ASSIGN, fast.F_DROP,
            fast.F_REMAINDER_MASK, fast.F_COMPARE_BRANCH, fast.F_ADD, fast.F_SUB,
            fast.F_COMPARE_ASSIGN_BRANCH} <= kinds
    assert rows[-1, fast.KIND] == fast.F_EXIT
    state = NativeInterpreter(code)
    stack = [n]
    state.run(stack)
    assert stack == [_while_if(n)] and state.host_calls == 2


# -- superinstructions: each against the reference engine, with the rows it decodes to ------

def _kinds(text: str) -> set[int]:
    return set(program_of(Code(parse_ir(text))).fast[:, fast.KIND].tolist())


COMPARES = ["eq", "ne", "lt", "le", "gt", "ge"]
# int/bool mixes, equal values, the int64 ends; a value beyond int64 is a Python object
# (its tag leaves every fast row for the general loop)
COMPARE_PAIRS = [(3, 5), (5, 3), (4, 4), (True, 1), (0, False), (I64_MIN, I64_MAX),
                 (I64_MAX, I64_MIN), (2 ** 70, 1)]


def _branch_graph(op: str, ta: str = "int", tb: str = "int") -> str:
    # the compare's result only feeds the If: the compare and its JumpNZ make one row
    return f"""graph(%a : {ta}, %b : {tb}):
  %c : bool = aten::{op}(%a, %b)
  %y : int = prim::If(%c)
    block0():
      %one : int = prim::Constant[value=1]()
      -> (%one)
    block1():
      %two : int = prim::Constant[value=2]()
      -> (%two)
  return (%y)
"""


@pytest.mark.parametrize("op", COMPARES)
def test_compare_and_branch_match_the_reference(op):
    assert fast.F_COMPARE_BRANCH in _kinds(_branch_graph(op))
    for a, b in COMPARE_PAIRS:
        got, want, host_calls = run_both(_branch_graph(op), a, b)
        assert_same(got, want)
        assert host_calls == (3 if a == 2 ** 70 else 2)


@pytest.mark.parametrize("op", ["lt", "eq"])
def test_compare_and_branch_on_float_operands_runs_the_general_body(op):
    text = _branch_graph(op, "float", "int")
    assert fast.F_COMPARE_BRANCH not in _kinds(text)
    for a, b in [(0.5, 1), (1.0, 1), (float("nan"), 0)]:
        got, want, host_calls = run_both(text, a, b)
        assert_same(got, want)
        assert host_calls == 2


def _assigned_graph(op: str, ta: str = "int", tb: str = "int") -> str:
    # each branch's result is an op whose value an Assign moves into the If's output
    return f"""graph(%a : {ta}, %b : {tb}, %c : bool):
  %y : int = prim::If(%c)
    block0():
      %p : int = aten::{op}(%a, %b)
      -> (%p)
    block1():
      %q : int = aten::{op}(%b, %a)
      -> (%q)
  return (%y, %a, %b)
"""


ARITHMETIC = ["add", "sub", "mul", "floordiv", "remainder"]
ARITHMETIC_PAIRS = [(7, -3), (-7, 2), (I64_MAX, 1), (I64_MIN, -1), (I64_MIN, 3), (True, 5),
                    (2 ** 70, 2)]


@pytest.mark.parametrize("op", ARITHMETIC)
@pytest.mark.parametrize("c", [True, False])
def test_op_and_assign_match_the_reference(op, c):
    text = _assigned_graph(op)
    rows = program_of(Code(parse_ir(text))).fast
    ops = rows[rows[:, fast.KIND] >= fast.F_ADD]
    assert len(ops) == 2 and (ops[:, fast.RET] != ops[:, fast.OUT]).all()
    for a, b in ARITHMETIC_PAIRS:
        got, want, _ = run_both(text, a, b, c)
        assert_same(got, want)


@pytest.mark.parametrize("op", ["floordiv", "remainder"])
def test_op_and_assign_division_by_zero_raises_the_reference_error(op):
    native, reference = errors_of(_assigned_graph(op), 5, 0, True)
    assert "ZeroDivisionError" in native and native == reference


def _by_constant(op: str, divisor: int) -> str:
    return f"""graph(%a : int):
  %d : int = prim::Constant[value={divisor}]()
  %y : int = aten::{op}(%a, %d)
  return (%y)
"""


@pytest.mark.parametrize("op", ["floordiv", "remainder"])
@pytest.mark.parametrize("divisor", [1, 2, 8, 1 << 62, 3, -2, -1])
def test_floordiv_and_remainder_by_a_constant_match_the_reference(op, divisor):
    text = _by_constant(op, divisor)
    power_of_two = divisor > 0 and divisor & (divisor - 1) == 0
    assert (fast.F_FLOORDIV_SHIFT in _kinds(text) or fast.F_REMAINDER_MASK in _kinds(text)) \
        == power_of_two
    for a in [0, 7, -7, -8, I64_MAX, I64_MIN, True]:
        got, want, _ = run_both(text, a)
        assert_same(got, want)


@pytest.mark.parametrize("op", ["floordiv", "remainder"])
def test_division_by_a_zero_constant_raises_the_reference_error(op):
    native, reference = errors_of(_by_constant(op, 0), 5)
    assert "ZeroDivisionError" in native and native == reference


def test_a_constant_register_written_twice_is_not_an_immediate():
    # %d is 2 or 3 depending on %c: both Constants write one register after the If
    text = """graph(%a : int, %c : bool):
  %d : int = prim::If(%c)
    block0():
      %two : int = prim::Constant[value=2]()
      -> (%two)
    block1():
      %three : int = prim::Constant[value=3]()
      -> (%three)
  %y : int = aten::remainder(%a, %d)
  return (%y)
"""
    assert fast.F_REMAINDER_MASK not in _kinds(text)
    for a, c in [(7, True), (7, False), (-5, True)]:
        got, want, _ = run_both(text, a, c)
        assert_same(got, want)


@pytest.mark.parametrize("n", [0, 1, 5, 64])
@pytest.mark.parametrize("moves", [True, False])
def test_a_while_loop_on_the_loop_back_edge_row_matches_python(n, moves):
    code = Code(parse_ir(WHILE_IF))
    assert fast.F_COMPARE_ASSIGN_BRANCH in set(program_of(code).fast[:, fast.KIND].tolist())
    if not moves:
        code.bool_data[:] = False   # no register is freed: the values stay (read at run time)
    stack = [n]
    NativeInterpreter(code).run(stack)
    assert stack == [_while_if(n)]


def test_a_logic_op_on_bools_and_ints_matches_the_reference():
    text = """graph(%a : bool, %b : bool):
  %x : bool = aten::__xor__(%a, %b)
  %y : bool = aten::__and__(%x, %b)
  %z : bool = aten::__or__(%y, %a)
  return (%x, %y, %z)
"""
    assert fast.F_LOGIC in _kinds(text)
    for a in (True, False):
        for b in (True, False):
            got, want, _ = run_both(text, a, b)
            assert_same(got, want)


def _drop_after_assign_graph(dropped: str) -> str:
    # %x's last use is in block1, so block0 ends by dropping it, right after the Assign of %p
    return f"""graph(%a : int, %b : int, %c : bool, %x : {dropped}):
  %y : int = prim::If(%c)
    block0():
      %p : int = aten::add(%a, %b)
      -> (%p)
    block1():
      %q : int = aten::size(%x, %a)
      -> (%q)
  return (%y, %a, %b)
"""


@pytest.mark.parametrize("c", [True, False])
def test_an_op_assign_row_folds_a_following_drop_and_leaves_a_tensor_drop_to_the_loop(c):
    text = _drop_after_assign_graph("Tensor")
    code = Code(parse_ir(text))
    rows = program_of(code).fast
    (pc,) = [pc for pc, kind in enumerate(code.kinds) if kind == "aten::add"]
    assert code.kinds[pc + 2] == "prim::Drop" and rows[pc, fast.DROP] >= 0
    assert rows[pc, fast.NEXT] == pc + 3
    x = np.ones((2, 3), np.float32)
    got, want, _ = run_both(text, 0, 1, c, x)   # the dropped register holds a tensor
    assert_same(got, want)


@pytest.mark.parametrize("c", [True, False])
def test_an_op_assign_row_folds_the_jump_that_ends_an_if_branch(c):
    text = _assigned_graph("sub")
    code = Code(parse_ir(text))
    rows = program_of(code).fast
    (pc,) = [pc for pc, kind in enumerate(code.kinds) if kind == "aten::sub" and
             code.kinds[pc + 2] == "prim::Jump"]
    jump = code.rows[pc + 2]
    assert rows[pc, fast.NEXT] == pc + 3 + jump[1] and rows[pc, fast.DROP] == -1
    got, want, _ = run_both(text, 9, 4, c)
    assert_same(got, want)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_the_loop_back_edge_with_one_move_flag_off_matches_python(which):
    # the specialised back edge needs both the Assign and the jump to move the condition;
    # with either flag (or a carried value's) off it takes the general copy
    code = Code(parse_ir(WHILE_IF))
    rows = program_of(code).fast
    pc = np.flatnonzero(rows[:, fast.KIND] == fast.F_COMPARE_ASSIGN_BRANCH)[-1]   # (the entry
    assign = code.rows[pc + 1]                                                   # is first)
    flags = [assign[2], rows[pc + 1, fast.MOVES], assign[2] + 1]
    code.bool_data[flags[which]] = False
    for n in (0, 3, 10):
        stack = [n]
        NativeInterpreter(code).run(stack)
        assert stack == [_while_if(n)]
