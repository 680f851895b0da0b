"""Helpers for the operator tests (no tests here): build a one-node graph and run its operation.

``call("aten::add", x, y, 1)`` types graph inputs from the runtime values, creates the node, lets
``make_operation`` resolve the overload the way the interpreter will, and returns the outputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fusejit.ir.graph import Graph
from fusejit.ir.types import (
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    TENSOR,
    ListType,
    TensorType,
    TupleType,
    Type,
)
from fusejit.runtime.ops import make_operation


def type_of(value: Any) -> Type:
    """The IR type a graph input holding ``value`` would have."""
    if isinstance(value, np.ndarray):
        return TensorType.of_array(value)
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STR
    if value is None:
        return NONE
    if isinstance(value, tuple):
        return TupleType(tuple(type_of(v) for v in value))
    if isinstance(value, list):
        if value and all(isinstance(v, np.ndarray) for v in value):
            return ListType(TENSOR)
        if value and all(isinstance(v, float) for v in value):
            return ListType(FLOAT)
        return ListType(INT)
    raise TypeError(f"no IR type for {type(value).__name__}")


def make_node(kind: str, *args: Any, num_outputs: int = 1, types: list[Type] | None = None,
              **attrs: Any):
    graph = Graph()
    inputs = [graph.add_input(type=t) for t in (types or [type_of(a) for a in args])]
    node = graph.insert(kind, inputs, num_outputs)
    for name, value in attrs.items():
        if isinstance(value, int):
            node.i_(name, value)
        else:
            node.s_(name, value)
    for out in node.outputs:  # each output is read, as in a real graph
        graph.register_output(out)
    return node


def call(kind: str, *args: Any, num_outputs: int = 1, **attrs: Any) -> Any:
    """Run ``kind`` on ``args``; one output is returned bare, several as a tuple."""
    node = make_node(kind, *args, num_outputs=num_outputs, **attrs)
    outs = make_operation(node)(*args)
    assert len(outs) == num_outputs
    return outs[0] if num_outputs == 1 else outs
