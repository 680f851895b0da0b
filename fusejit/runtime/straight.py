"""Straight-line code run as one generated Python function instead of the reference loop.

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


def straight_line(code: Code) -> Callable[[Sequence], tuple] | None:
    """``code`` as a function of its inputs (exactly ``code.n_inputs`` of them: the caller
    tests the count) returning its outputs; None unless ``code`` is Load, then operations,
    constants, assigns and drops, then Store (with drops after it)."""
    from .reference import _count_error, node_failure

    rows = code.rows
    opcodes = [row[0] for row in rows]
    if len(rows) < 2 or opcodes[0] != Opcode.LOAD or Opcode.STORE not in opcodes:
        return None
    store = opcodes.index(Opcode.STORE)
    if any(op not in _BODY for op in opcodes[1:store]) or \
            any(op != Opcode.DROP for op in opcodes[store + 1:]):
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
    for pc in range(1, store + 1):
        (opcode, arg, *_rest, out_size), (ins, outs) = rows[pc], operands[pc]
        args = ", ".join(f"r{r}" for r, _moved in ins)
        moved = [f"r{r}" for r, is_moved in ins if is_moved]
        body: list[str] = [f"pc = {pc}"]
        if opcode == Opcode.STORE:
            body.append(f"return ({args}{',' if len(ins) == 1 else ''})")
        elif opcode == Opcode.CONSTANT:
            body.append(f"o = (CONSTANTS[{int(arg)}],)")
        elif opcode == Opcode.OP:
            body += [f"o = OPERATIONS[{int(arg)}]({args})",
                     f"if len(o) != {int(out_size)}:", f"    COUNT(o, {int(out_size)})"]
        elif opcode == Opcode.ASSIGN:
            body.append(f"o = ({args}{',' if len(ins) == 1 else ''})")
        if moved and opcode != Opcode.STORE:
            body.append(f"del {', '.join(moved)}")
        if opcode != Opcode.DROP and opcode != Opcode.STORE and outs:
            body.append(f"{''.join(f'r{r}, ' for r in outs)}= o")
        lines += [f"        {line}" for line in body]
    lines += ["    except Exception as error:", "        FAIL(error, pc)"]
    text = "\n".join(lines) + "\n"
    exec(compile(text, f"<fusejit straight-line code {next(_count)}>", "exec"), names)
    return names["run"]


def _raise_count(count_error: Callable) -> Callable:
    def count(outs: Sequence, size: int) -> None:
        raise count_error(outs, size)
    return count


__all__ = ["straight_line"]
