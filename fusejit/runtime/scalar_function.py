"""A graph over ``int``/``float``/``bool`` only, compiled whole into one Numba function.

Newton's iteration or a Collatz count spends its time in scalar arithmetic and control flow; the
interpreter's per-call setup alone costs more than CPython's whole loop. Such a graph (every
input, output and value a scalar, every node a constant, ``prim::If``, ``prim::Loop`` or a
scalar op listed below) is written out as structured Python and compiled with ``@njit``::

    graph(%n.1 : int):                         def scalar_fn(v0):
      %2 : int = prim::Constant[value=1]()         v1 = 1
      %3 : bool = aten::ne(%n.1, %2)               v3 = (v0 != v1)
      %n : int = prim::Loop(%4, %3, %n.1)          v6 = v0 ; i = 0 ; c = v3
        block0(%5 : int, %n.2 : int):              while c and i < v4:
          ...                                          v5 = i ; v7 = v6 ; ...
          -> (%8, %n.3)                                c, v6 = v8, v9 ; i += 1
      return (%n)                                  return v6

Numba's int64 arithmetic wraps as the interpreter's does. Where Numba would raise (an integer
or float division by zero) or a conversion cannot be exact (``int`` of a non-finite float), the
call is run again by the interpreter, which gives the graph's own result or error with its
source location: the graph has no side effects, so running it twice is safe.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import BoolType, FloatType, IntType, StringType, TensorType
from .interrupts import LOOP_CHECK_MASK

_SCALAR = (IntType, FloatType, BoolType)
_ZERO = {IntType: "0", FloatType: "0.0", BoolType: "False"}
_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "remainder": "%",
          "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "__and__": "&", "__or__": "|", "__xor__": "^"}
_CALLS = {"min": "min", "max": "max", "abs": "abs", "Float": "float", "floor": "_floor_int",
          "ceil": "_ceil_int", "sqrt": "math.sqrt", "exp": "math.exp", "log": "math.log",
          "tanh": "math.tanh", "sin": "math.sin", "cos": "math.cos", "tan": "math.tan",
          "asin": "math.asin", "acos": "math.acos", "atan": "math.atan", "sinh": "math.sinh",
          "cosh": "math.cosh", "log1p": "math.log1p", "expm1": "math.expm1",
          "log2": "math.log2", "log10": "math.log10", "erf": "math.erf", "erfc": "math.erfc",
          "Int": "_to_int", "int_pow": "_int_pow"}

# The generated module's imports; the int conversions it calls are scalar_helpers' (compiled
# once, not once per module).
_PRELUDE = '''\
import math

import numpy as np
from numba import njit

from fusejit.runtime.interrupts import check_signals
from fusejit.runtime.scalar_helpers import ceil_int as _ceil_int, floor_int as _floor_int
from fusejit.runtime.scalar_helpers import int_pow as _int_pow, to_int as _to_int


'''


def is_scalar_graph(graph: Graph) -> bool:
    """Can ``graph`` be compiled whole (scalars only, supported nodes only)?"""
    values = [*graph.inputs, *graph.outputs]
    if not graph.outputs or not all(isinstance(v.type, _SCALAR) for v in values):
        return False
    return _supported_block(graph.block)


def _supported_block(block: Block) -> bool:
    for node in block.nodes():
        if node.kind == prim.RaiseException or node.kind == prim.Constant and isinstance(
                node.output().type, StringType):
            continue  # (the error of a loop that never ran, and its message)
        if not all(isinstance(v.type, _SCALAR) for v in [*node.inputs, *node.outputs]):
            return False
        if node.kind in (prim.If, prim.Loop):
            if not all(_supported_block(b) for b in node.blocks):
                return False
            if not all(isinstance(v.type, _SCALAR) for b in node.blocks for v in b.inputs):
                return False
        elif node.kind == prim.Constant:
            if node.output().type is None:
                return False
        elif node.kind == prim.Uninitialized:
            pass
        elif node.kind.ns != "aten" and str(node.kind) != "fusejit::int_pow" or not (
                node.kind.name in _INFIX or node.kind.name in _CALLS
                or node.kind.name in ("neg", "__not__", "Bool", "pow")):
            return False
    return True


class _Writer:
    """Writes a graph's nodes as indented Python lines, one name per value."""

    def __init__(self):
        self.lines: list[str] = []
        self.names: dict[Value, str] = {}
        self.counter = 0

    def name(self, value: Value) -> str:
        if value not in self.names:
            self.names[value] = f"v{len(self.names)}"
        return self.names[value]

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, block: Block, depth: int) -> None:
        for node in block.nodes():
            self.node(node, depth)

    def node(self, node: Node, depth: int) -> None:
        if node.kind == prim.If:
            self.if_(node, depth)
        elif node.kind == prim.Loop:
            self.loop(node, depth)
        elif node.kind == prim.Constant and isinstance(node.output().type, StringType):
            pass  # an error message: prim::RaiseException below leaves it to the interpreter
        elif node.kind == prim.Constant:
            from ..ir.constants import constant_value

            self.emit(depth, f"{self.name(node.output())} = {_literal(constant_value(node))}")
        elif node.kind == prim.Uninitialized:  # a loop's variable before the loop
            t = node.output().type
            dtype = "" if type(t) in _ZERO else t.scalar_type.dtype.name.replace("bool", "bool_")
            zero = _ZERO.get(type(t)) or f"np.zeros({(0,) * t.rank!r}, np.{dtype})"
            self.emit(depth, f"{self.name(node.output())} = {zero}")
        elif node.kind == prim.RaiseException:
            # the fallback (the interpreter) raises the graph's own error with its location
            self.emit(depth, "raise ValueError('see the interpreter')")
        else:
            self.emit(depth, f"{self.name(node.output())} = {self.expression(node)}")

    def expression(self, node: Node) -> str:
        op = node.kind.name
        args = [self.name(v) for v in node.inputs]
        if op in _INFIX and len(args) == 2:
            return f"({args[0]} {_INFIX[op]} {args[1]})"
        if op == "pow":
            return f"(float({args[0]}) ** {args[1]})"
        if op == "neg":
            return f"(-{args[0]})"
        if op == "__not__":
            return f"(not {args[0]})"
        if op == "Bool":
            return f"({args[0]} != 0)"
        return f"{_CALLS[op]}({', '.join(args)})"

    def if_(self, node: Node, depth: int) -> None:
        outs = [self.name(v) for v in node.outputs]
        self.emit(depth, f"if {self.name(node.input(0))}:")
        for i, block in enumerate(node.blocks):
            if i == 1:
                self.emit(depth, "else:")
            self.emit(depth + 1, "pass")
            self.block(block, depth + 1)
            for out, result in zip(outs, block.outputs):
                self.emit(depth + 1, f"{out} = {self.name(result)}")

    def loop(self, node: Node, depth: int) -> None:
        body = node.blocks[0]
        trip, cond = self.name(node.input(0)), self.fresh("c")
        counter = self.fresh("i")
        carried = [self.name(v) for v in body.inputs[1:]]
        self.emit(depth, f"{cond} = {self.name(node.input(1))}")
        self.emit(depth, f"{counter} = 0")
        for name, init in zip(carried, node.inputs[2:]):
            self.emit(depth, f"{name} = {self.name(init)}")
        self.emit(depth, f"while {cond} and {counter} < {trip}:")
        self.emit(depth + 1, f"{self.name(body.inputs[0])} = {counter}")
        self.block(body, depth + 1)
        targets = ", ".join([cond, *carried])
        results = ", ".join(self.name(v) for v in body.outputs)
        self.emit(depth + 1, f"{targets}, = {results},")
        # Ctrl-C: a loop that never ends still runs Python's signal handlers (interrupts.py)
        self.emit(depth + 1, f"if ({counter} & {LOOP_CHECK_MASK}) == {LOOP_CHECK_MASK}:")
        self.emit(depth + 2, "check_signals()")
        self.emit(depth + 1, f"{counter} += 1")
        for out, name in zip(node.outputs, carried):
            self.emit(depth, f"{self.name(out)} = {name}")


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "math.nan"
    if math.isinf(value):
        return "math.inf" if value > 0 else "-math.inf"
    return repr(value)


def function_source(writer: _Writer, graph: Graph, name: str, header: str,
                    decorator: str, passed: list[tuple[int, int]] | None = None) -> str:
    """Module text: ``header``, then ``def name(inputs)`` computing ``graph`` with ``writer``.

    With a list ``passed``, an output that is one of the function's parameters (an array
    argument returned as it came or written in place, which the caller holds already) is left
    out of what it returns, and ``(output index, parameter index)`` is appended to ``passed``
    for it: boxing an array for Numba's return costs ~0.2 us a call. The function then returns
    the other outputs (one value, a tuple of several, or None). Only array parameters whose
    name the body never binds anew are left out so (``passed_kind``, ``_bound_names``)."""
    params = [writer.name(v) for v in graph.inputs]
    writer.block(graph.block, 1)
    outs = [writer.name(v) for v in graph.outputs]
    if passed is not None:
        assigned = {name for line in writer.lines for name in _bound_names(line)}
        position = {param: i for i, param in enumerate(params)}
        kept = []
        for i, out in enumerate(outs):
            j = position.get(out)
            if j is not None and out not in assigned and passed_kind(graph.inputs[j]):
                passed.append((i, j))
            else:
                kept.append(out)
        outs = kept
    if not outs:
        writer.emit(1, "return None")
    else:
        writer.emit(1, f"return {outs[0]}" if len(outs) == 1
                    else f"return ({', '.join(outs)},)")
    return header + decorator + f"def {name}({', '.join(params)}):\n" + \
        "\n".join(writer.lines) + "\n"


# The names a line binds anew: ``v3 = ...``, ``v3, v4 = ...``, ``for v3 in ...``. Not a store
# into an array (``v3[...] = ...``), nor an augmented assignment (``v3 *= 2.0``), which
# writes an array in place (the parameters it matters for are arrays: ``passed_kind``).
_TARGETS = re.compile(r"\s*(?:for\s+([\w\s,()]+?)\s+in\b|([\w\s,()]+?)\s*=(?!=))")


def _bound_names(line: str) -> list[str]:
    match = _TARGETS.match(line)
    if match is None:
        return []
    return re.findall(r"\w+", match.group(1) or match.group(2))


def passed_kind(value: Value) -> bool:
    """May a parameter for ``value`` be left out of a compiled function's results? Arrays of
    rank 1 or more only: a 0-d tensor is a Numba scalar, which the function rebinds."""
    return isinstance(value.type, TensorType) and (value.type.rank or 0) > 0


def scalar_source(graph: Graph) -> str:
    """The module source whose ``scalar_fn`` computes ``graph``."""
    return function_source(_Writer(), graph, "scalar_fn", _PRELUDE,
                           "@njit(cache=True, no_cfunc_wrapper=True)\n")


def compile_scalar_graph(graph: Graph, fallback: Callable[..., Any]) -> Callable[..., Any]:
    """``graph`` as one compiled function; on an exception the call runs ``fallback``."""
    from .fusion.cache import load_module

    compiled = load_module(scalar_source(graph)).scalar_fn

    def run(*args: Any) -> Any:
        try:
            return compiled(*args)
        except Exception:  # noqa: BLE001 - the interpreter gives the graph's own answer/error
            return fallback(*args)

    run.compiled = compiled  # type: ignore[attr-defined]
    run.fallback = fallback  # type: ignore[attr-defined]  (jit's fast call path calls both)
    # What the interpreter would run (jit's graph_for / code_for show it).
    run.graph_for = getattr(fallback, "graph_for", None)  # type: ignore[attr-defined]
    run.code_for = getattr(fallback, "code_for", None)  # type: ignore[attr-defined]
    return run


__all__ = ["compile_scalar_graph", "function_source", "is_scalar_graph", "scalar_source"]
