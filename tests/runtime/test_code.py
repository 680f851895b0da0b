"""Lowering to Code: dumps derived by hand from the lowering rules, and the integer encoding.

The expected dumps follow interpreter.cpp's rules step by step: registers are numbered in order
of definition; ``find_last_uses`` scans backwards so the first use met is the last executed; a
value read inside an If/Loop but defined outside is never moved there and is freed by a Drop
right after the If/Loop; loop outputs share the registers of the body inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import InterpreterError, parse_ir
from fusejit.runtime.code import (
    IN_SIZE,
    IN_START,
    N_COLUMNS,
    OPCODE,
    OUT_SIZE,
    OUT_START,
    Code,
    Opcode,
)


def _no_run(node):
    def never(*args):
        raise AssertionError(f"{node.kind} should not run in a dump test")

    return never


def _code(text: str) -> Code:
    return Code(parse_ir(text), make_operation=_no_run)


IF = """graph(%x : Tensor, %c : bool):
  %y : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::exp(%x)
      -> (%a)
    block1():
      %b : Tensor = aten::neg(%x)
      -> (%b)
  return (%y)
"""
# Load x=0 c=1. JumpNZ moves %c. The else block comes first; %x is read in both branches, so it
# is never moved there but dropped after the If. %y gets register 3 at the first Assign.
IF_DUMP = """0, 1 = prim::Load
= prim::JumpNZ move(1) -> 5
2 = aten::neg 0
3 = prim::Assign move(2)
= prim::Jump -> 7
4 = aten::exp 0
3 = prim::Assign move(4)
= prim::Drop move(0)
= prim::Store move(3)
"""

FOR_LOOP = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %x.1 : Tensor):
      %x.2 : Tensor = aten::mul(%x.1, %x.1)
      -> (%t, %x.2)
  return (%y)
"""
# desugar_trip_counts: %0 = 0, entry cond (0 < n) & t, counter carried first, body ends with
# i+1, (i+1 < n) & t. The condition passes through its own register (6). The loop's outputs
# (counter, %y) alias the body inputs 7, 8; the unused counter is dropped; %t, %n are read in
# the body and dropped after the loop (in the order the backward scan met them).
FOR_LOOP_DUMP = """0, 1 = prim::Load
2 = prim::Constant
3 = prim::Constant
4 = aten::lt 3, 1
5 = aten::__and__ move(4), 2
6, 7, 8 = prim::Assign move(5), move(3), move(0)
= prim::JumpZ move(6) -> 14
9 = aten::mul 8, move(8)
10 = prim::Constant
11 = aten::add move(7), move(10)
12 = aten::lt 11, 1
13 = aten::__and__ move(12), 2
6, 7, 8 = prim::Assign move(13), move(11), move(9)
= prim::JumpNZ move(6) -> 7
= prim::Drop move(2), move(1)
= prim::Drop move(7)
= prim::Store move(8)
"""

WHILE_LOOP = """graph(%x : int):
  %max : int = prim::Constant[value=9223372036854775807]()
  %lim : int = prim::Constant[value=10]()
  %c0 : bool = aten::lt(%x, %lim)
  %y : int = prim::Loop(%max, %c0, %x)
    block0(%i : int, %v : int):
      %two : int = prim::Constant[value=2]()
      %w : int = aten::mul(%v, %two)
      %c : bool = aten::lt(%w, %lim)
      -> (%c, %w)
  return (%y)
"""
# A while loop (the maximum trip count, body not reading %i) keeps no counter: the Assigns
# carry the condition and %v only, and %max is not even loaded.
WHILE_LOOP_DUMP = """0 = prim::Load
1 = prim::Constant
2 = aten::lt 0, 1
3, 4 = prim::Assign move(2), move(0)
= prim::JumpZ move(3) -> 10
5 = prim::Constant
6 = aten::mul move(4), move(5)
7 = aten::lt 6, 1
3, 4 = prim::Assign move(7), move(6)
= prim::JumpNZ move(3) -> 5
= prim::Drop move(1)
= prim::Store move(4)
"""

NESTED = """graph(%x : Tensor, %n : int, %c : bool):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %a : Tensor):
      %b : Tensor = prim::If(%c)
        block0():
          %d : Tensor = aten::neg(%a)
          -> (%d)
        block1():
          -> (%a)
      -> (%t, %b)
  return (%y)
"""
# The If inside the body reads %c (outer: never moved, dropped after the loop) and %a (a body
# input read in a branch: dropped after the If, inside the body, before the next iteration).
NESTED_DUMP = """0, 1, 2 = prim::Load
3 = prim::Constant
4 = prim::Constant
5 = aten::lt 4, 1
6 = aten::__and__ move(5), 3
7, 8, 9 = prim::Assign move(6), move(4), move(0)
= prim::JumpZ move(7) -> 19
= prim::JumpNZ 2 -> 10
10 = prim::Assign 9
= prim::Jump -> 12
11 = aten::neg 9
10 = prim::Assign move(11)
= prim::Drop move(9)
12 = prim::Constant
13 = aten::add move(8), move(12)
14 = aten::lt 13, 1
15 = aten::__and__ move(14), 3
7, 8, 9 = prim::Assign move(15), move(13), move(10)
= prim::JumpNZ move(7) -> 7
= prim::Drop move(3), move(1), move(2)
= prim::Drop move(8)
= prim::Store move(9)
"""


@pytest.mark.parametrize("text, dump", [
    (IF, IF_DUMP), (FOR_LOOP, FOR_LOOP_DUMP), (WHILE_LOOP, WHILE_LOOP_DUMP),
    (NESTED, NESTED_DUMP),
], ids=["if", "for_loop", "while_loop", "if_in_loop"])
def test_dump(text, dump):
    code = _code(text)
    assert code.dump() == dump
    assert str(code) == f"{code.graph}\n{dump}"


@pytest.mark.parametrize("text", [IF, FOR_LOOP, WHILE_LOOP, NESTED])
def test_encoding_is_flat_and_consistent(text):
    code = _code(text)
    ins = code.instructions
    assert ins.dtype == np.int64 and ins.ndim == 2 and ins.shape[1] == N_COLUMNS
    assert code.int_data.dtype == np.int64 and code.bool_data.dtype == np.bool_
    assert len(code.int_data) == len(code.bool_data)
    assert len(code.kinds) == len(code.nodes) == len(code.source_ranges) == len(ins)
    n = len(ins)
    for pc, (opcode, arg, in_start, in_size, out_start, out_size) in enumerate(ins.tolist()):
        assert opcode != Opcode.PLACEHOLDER
        # operands and results are contiguous and in range; results never carry a move flag
        assert out_start == in_start + in_size
        registers = code.int_data[in_start:out_start + out_size]
        assert ((0 <= registers) & (registers < code.register_size)).all()
        assert not code.bool_data[out_start:out_start + out_size].any()
        if opcode in (Opcode.JUMP, Opcode.JUMPZ, Opcode.JUMPNZ):
            assert 0 <= pc + 1 + arg <= n
        if opcode == Opcode.CONSTANT:
            assert 0 <= arg < len(code.constants)
    assert (ins[:, OPCODE] >= 0).all() and (ins[:, IN_SIZE] >= 0).all()
    assert (ins[:, OUT_SIZE] >= 0).all() and (ins[:, IN_START] >= 0).all()
    assert (ins[:, OUT_START] <= len(code.int_data)).all()


def test_constant_table_holds_values():
    code = _code(WHILE_LOOP)
    # %lim and the body's 2 (%max went with the while loop's counter)
    assert code.constants == [10, 2]
    # the same loop with a real trip count: %max, %lim, the counter's 0, the body's 2, its 1
    code = _code(WHILE_LOOP.replace("Loop(%max", "Loop(%lim"))
    assert code.constants == [9223372036854775807, 10, 0, 2, 1]


def test_fusion_group_gets_its_own_code():
    code = _code("""graph(%x : Tensor):
  %y : Tensor = prim::FusionGroup_0(%x)
  return (%y)
with prim::FusionGroup_0 = graph(%a : Tensor):
  %b : Tensor = aten::neg(%a)
  return (%b)
""")
    assert code.dump() == "0 = prim::Load\n1 = prim::FusionGroup move(0)\n= prim::Store move(1)\n"
    assert code.instructions[1, OPCODE] == Opcode.CALL
    assert code.subcodes[0].dump() == "0 = prim::Load\n1 = aten::neg move(0)\n= prim::Store move(1)\n"


def test_unknown_operation_is_reported_with_the_node():
    g = parse_ir("""graph(%x : Tensor):
  %y : Tensor = aten::exp(%x) # model.py:3:4
  return (%y)
""")

    def refuse(node):
        from fusejit.errors import SchemaError
        raise SchemaError(f"no such op {node.kind}")

    with pytest.raises(InterpreterError) as info:
        Code(g, make_operation=refuse)
    assert "aten::exp" in str(info.value) and "model.py:3:4" in str(info.value)


def test_code_does_not_change_its_graph():
    g = parse_ir(FOR_LOOP)
    before = str(g)
    Code(g, make_operation=_no_run)
    assert str(g) == before
