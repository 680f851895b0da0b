"""Straight-line code (its ifs and loops too) run as one generated Python function instead of
the reference loop.

The reference loop (``InterpreterState``) costs about 0.5-1 us an instruction around the
operation it calls, and 1-2 us a run to set up: on small arrays more than NumPy takes for
the operations themselves (``x + y`` on 10^4 float32: 9 us through the loop, 2.4 us NumPy).
Code without jumps, calls, forks or waits (a plan's usual shape: Load, constants and
operations, Store) runs the same instructions as a function written for it, whose registers
are local variables::

    def run(inputs):                 # 0, 1 = prim::Load
        r0, r1, = inputs
        try:
            pc = 1
            o = (CONSTANTS[0],)      # 2 = prim::Constant
            r2, = o
            pc = 2
            o = OPERATIONS[0](r0, r1, r2)   # 3 = aten::add move(0), move(1), move(2)
            if len(o) != 1:
                COUNT(o, 1)
            del r0, r1, r2
            r3, = o
            pc = 3
            return (r3,)             # = prim::Store move(3)
        except Exception as error:
            FAIL(error, pc)          # the loop's error for instruction pc

Every value of the text is an integer it was made from or a global (the code's lists, read
at each run as the loop reads them), so no user text enters it. A moved register is dropped
right after its instruction, as the loop drops it (the loop's argument list holds it during
the call, and so do these locals): pooled buffers (``fusion/outputs.py``) are free as early.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from .code import Code, Opcode

_count = itertools.count()
_BODY = (int(Opcode.OP), int(Opcode.CONSTANT), int(Opcode.ASSIGN), int(Opcode.DROP))
_JUMPS = (int(Opcode.JUMP), int(Opcode.JUMPZ), int(Opcode.JUMPNZ))


def straight_line(code: Code) -> Callable[[Sequence], tuple] | None:
    """``code`` as a function of its inputs (exactly ``code.n_inputs`` of them: the caller
    tests the count) returning its outputs; None unless ``code`` is Load, then operations,
    constants, assigns, drops, the forward jumps of ``prim::If``s (written as Python's
    ``if``/``else``: ``_structured``) and the jumps of ``prim::Loop``s (a ``while``), then
    Store (with drops after it). A loop ran 2-3x faster so: ``[row.sum() for row in A[:5]]``
    61 -> 26 us a call, where the reference loop took ~1.8 us an instruction."""
    from .reference import _count_error, node_failure

    rows = code.rows
    opcodes = [row[0] for row in rows]
    if len(rows) < 2 or opcodes[0] != Opcode.LOAD or Opcode.STORE not in opcodes:
        return None
    store = opcodes.index(Opcode.STORE)
    if any(op not in _BODY and op not in _JUMPS for op in opcodes[1:store]) or \
            any(op != Opcode.DROP for op in opcodes[store + 1:]):
        return None
    branches = any(op in _JUMPS for op in opcodes[1:store])
    plan = _structured(rows, 1, store) if branches else [(pc,) for pc in range(1, store)]
    if plan is None:
        return None
    operands = code.operands
    loaded = operands[0][1]
    if len(loaded) != code.n_inputs:
        return None

    def fail(error: Exception, pc: int) -> None:
        failure, cause = node_failure(error, code, pc)
        if cause is None:
            raise failure
        raise failure from cause

    names: dict[str, Any] = {"OPERATIONS": code.operations, "CONSTANTS": code.constants,
                             "COUNT": _raise_count(_count_error), "FAIL": fail}
    lines = ["def run(inputs):"]
    if loaded:
        lines.append(f"    {''.join(f'r{r}, ' for r in loaded)}= inputs")
    lines.append("    try:")

    def write(steps: list, indent: str) -> None:
        for step in steps:
            if len(step) == 4:      # (a loop: its entry test's pc, body, back jump's pc)
                pc, _loop, body, back = step
                ((entry, _moved),) = operands[pc][0]
                ((again, _moved),) = operands[back][0]
                lines.append(f"{indent}pc = {pc}")
                lines.append(f"{indent}if r{entry}:")
                lines.append(f"{indent}    while True:")
                write(body, indent + "        ")
                lines.append(f"{indent}        pc = {back}")
                lines.append(f"{indent}        if not r{again}:")
                lines.append(f"{indent}            break")
                continue
            if len(step) == 3:      # (a branch: its jump's pc, the code when it is taken, not)
                pc, taken, fallen = step
                (opcode, *_rest), ((condition, _moved),) = rows[pc], operands[pc][0]
                test = f"r{condition}" if opcode == Opcode.JUMPNZ else f"not r{condition}"
                lines.append(f"{indent}pc = {pc}")
                lines.append(f"{indent}if {test}:")
                write(taken, indent + "    ")
                lines.append(f"{indent}    pass")
                lines.append(f"{indent}else:")
                write(fallen, indent + "    ")
                lines.append(f"{indent}    pass")
                continue
            (pc,) = step
            (opcode, arg, *_rest, out_size), (ins, outs) = rows[pc], operands[pc]
            args = ", ".join(f"r{r}" for r, _moved in ins)
            moved = [f"r{r}" for r, is_moved in ins if is_moved]
            body: list[str] = [f"pc = {pc}"]
            # (an instruction of one value: held in ``o`` itself, not in a tuple around it)
            one = len(outs) == 1 and (opcode == Opcode.CONSTANT or opcode == Opcode.OP and
                                      _single(code.operations[int(arg)], out_size))
            if opcode == Opcode.CONSTANT:
                body.append(f"o = CONSTANTS[{int(arg)}]" if one else
                            f"o = (CONSTANTS[{int(arg)}],)")
            elif one:
                # (a table operation of one result: its body, called directly)
                names[f"B{int(arg)}"] = code.operations[int(arg)].fn
                body.append(f"o = B{int(arg)}({args})")
            elif opcode == Opcode.OP:
                body += [f"o = OPERATIONS[{int(arg)}]({args})",
                         f"if len(o) != {int(out_size)}:", f"    COUNT(o, {int(out_size)})"]
            elif opcode == Opcode.ASSIGN:
                body.append(f"o = ({args}{',' if len(ins) == 1 else ''})")
            if moved:
                # (in branched code a register one branch moved may be dropped after both:
                # released by None, which a second drop repeats harmlessly)
                body.append(f"{', '.join(moved)} = {', '.join(['None'] * len(moved))}"
                            if branches else f"del {', '.join(moved)}")
            if one:
                body.append(f"r{outs[0]} = o")
            elif opcode != Opcode.DROP and outs:
                body.append(f"{''.join(f'r{r}, ' for r in outs)}= o")
            lines.extend(f"{indent}{line}" for line in body)

    write(plan, "        ")
    (ins, _outs) = operands[store]
    lines.append(f"        pc = {store}")
    lines.append(f"        return ({', '.join(f'r{r}' for r, _m in ins)}"
                 f"{',' if len(ins) == 1 else ''})")
    lines += ["    except Exception as error:", "        FAIL(error, pc)"]
    text = "\n".join(lines) + "\n"
    try:
        compiled = compile(text, f"<fusejit straight-line code {next(_count)}>", "exec")
    except (SyntaxError, RecursionError, MemoryError):
        return None     # (blocks nested past Python's limit of 20: the loop runs it)
    exec(compiled, names)
    return names["run"]


def _single(operation: Any, out_size: int) -> bool:
    """Is ``operation`` a table ``Operation`` of one result (``(fn(*args),)`` a call)?"""
    from ..oplib.table import Operation

    return type(operation) is Operation and not operation.multiple and \
        operation.num_outputs == 1 and out_size == 1


def _structured(rows: list, start: int, end: int) -> list | None:
    """The instructions ``start`` to ``end`` (exclusive) as steps: ``(pc,)`` for an
    instruction, ``(pc, taken, fallen)`` for a conditional jump forward and the steps run when
    it is taken and when it is not, as the lowering of a ``prim::If`` lays them out, and
    ``(p, "loop", body, q)`` for a loop (``p``: its JumpZ past the loop, ``q``: its JumpNZ
    back to ``p + 1``)::

        p:      JumpNZ c -> t           (JumpZ likewise, the test negated)
        p+1..:  the steps run when c is false
        t-1:    Jump -> e               (absent for an If without an else)
        t..e-1: the steps run when c is true

    None where a jump leaves that shape (a jump out of its region)."""
    steps: list = []
    pc = start
    while pc < end:
        opcode, arg = rows[pc][0], int(rows[pc][1])
        if opcode == Opcode.JUMP:
            return None         # (only the end of a branch's fallen part, handled below)
        if opcode not in (Opcode.JUMPZ, Opcode.JUMPNZ):
            steps.append((pc,))
            pc += 1
            continue
        target = pc + 1 + arg
        if not pc < target <= end:
            return None
        last = target - 1
        if opcode == Opcode.JUMPZ and last > pc and rows[last][0] == Opcode.JUMPNZ and \
                last + 1 + int(rows[last][1]) == pc + 1:
            # a loop (``Code.insert_loop``): JumpZ c -> end; body; JumpNZ c -> body's start
            body = _structured(rows, pc + 1, last)
            if body is None:
                return None
            steps.append((pc, "loop", body, last))
            pc = target
            continue
        if last > pc and rows[last][0] == Opcode.JUMP:
            after = last + 1 + int(rows[last][1])
            if not target <= after <= end:
                return None
            fallen, taken = _structured(rows, pc + 1, last), _structured(rows, target, after)
        else:
            after = target
            fallen, taken = _structured(rows, pc + 1, target), []
        if fallen is None or taken is None:
            return None
        steps.append((pc, taken, fallen))
        pc = after
    return steps


def _raise_count(count_error: Callable) -> Callable:
    def count(outs: Sequence, size: int) -> None:
        raise count_error(outs, size)
    return count


__all__ = ["straight_line"]
