"""``prim::PythonOp``: a node that calls a Python callable (interpreter.cpp, 2018).

Only Python code can make such a node: :func:`create_python_op` stores the callable, wrapped in a
:class:`PythonCallable`, in the node's ``fn`` attribute. IR text can name a PythonOp but never
carry a callable, so a parsed ``prim::PythonOp`` is refused when lowered, never executed::

    %y : Tensor = prim::PythonOp[fn="slow_exp"](%x)

The callable receives the node's inputs in order and returns one value (one output), ``None``
(no outputs) or a tuple of exactly as many values as the node has outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InterpreterError
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import TENSOR, Type


class PythonCallable:
    """The callable of one ``prim::PythonOp``; prints as its quoted name."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable[..., Any], name: str):
        self.fn = fn
        self.name = name

    def __str__(self) -> str:
        return '"' + self.name.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def __repr__(self) -> str:
        return f"PythonCallable({self.name!r})"


def create_python_op(graph: Graph, fn: Callable[..., Any], inputs: Sequence[Value],
                     num_outputs: int = 1, output_types: Sequence[Type] | None = None,
                     name: str | None = None) -> Node:
    """A new (uninserted) ``prim::PythonOp`` node calling ``fn`` on ``inputs``."""
    if not callable(fn):
        raise InterpreterError(f"prim::PythonOp needs a callable, got {type(fn).__name__}")
    types = list(output_types) if output_types is not None else [TENSOR] * num_outputs
    if len(types) != num_outputs:
        raise InterpreterError(f"prim::PythonOp: {num_outputs} outputs but {len(types)} types")
    node = graph.create(prim.PythonOp, inputs, 0)
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    node.ival_("fn", PythonCallable(fn, str(label)))
    for t in types:
        node.add_output(t)
    return node


def make_python_operation(node: Node) -> Callable[..., tuple]:
    """The operation of a ``prim::PythonOp``: ``op(*inputs) -> tuple of outputs``."""
    held = node.attr("fn") if node.has_attribute("fn") else None
    if not isinstance(held, PythonCallable):
        raise InterpreterError(
            "prim::PythonOp has no Python callable (IR text cannot carry one; build the node "
            f"with fusejit.runtime.python_op.create_python_op):\n  {str(node).strip()}")
    fn, name, n_out = held.fn, held.name, len(node.outputs)

    def python_operation(*args: Any) -> tuple:
        result = fn(*args)
        if n_out == 1:
            return (result,)
        if n_out == 0:
            return ()
        if not isinstance(result, tuple) or len(result) != n_out:
            is_tuple = isinstance(result, tuple)
            got = f"a tuple of {len(result)}" if is_tuple else type(result).__name__
            raise InterpreterError(f"Python op {name} returned {got}; its node has {n_out} outputs")
        return result

    return python_operation
