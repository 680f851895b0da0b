"""The native loop's scalar fast path (``native/fast.py``) against the reference engine: every
int/bool op body it has, the operands it leaves to the general loop (floats, a division that
Python must raise), and a scalar while+if that runs natively from end to end."""

from __future__ import annotations

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
