"""``prim::Constant`` nodes: making them from Python values and reading their values back.

TorchScript's conventions, which the printer and parser rely on::

    %a : int = prim::Constant[value=1]()          int and bool use attribute kind ``i``
    %b : float = prim::Constant[value=0.5]()      float: ``f``
    %c : str = prim::Constant[value="trunc"]()    str: ``s``
    %d : int[] = prim::Constant[value=[2, 12]]()  int list: ``is``
    %e : NoneType = prim::Constant()              None: no attribute
    %f : Float(5, ...) = prim::Constant[value= 1  2  3  4  5 [ CPUFloatType{5} ]]()   tensor: ``t``
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import IRError
from .symbols import prim
from .types import (
    BOOL,
    DEVICE,
    FLOAT,
    INT,
    NONE,
    STR,
    BoolType,
    ListType,
    TensorType,
    TupleType,
    Type,
)


def make_constant(graph, value: Any, type: Type | None = None):
    node = graph.create(prim.Constant, (), 0)
    kind, attr_value, inferred = _encode(value)
    if type == DEVICE and kind == "s":
        inferred = DEVICE
    if kind is not None:
        node.set_attr("value", kind, attr_value)
    node.add_output(type if type is not None else inferred)
    return node


def _encode(value: Any) -> tuple[str | None, Any, Type]:
    """(attribute kind, attribute value, type) of a constant, by TorchScript's conventions."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "i", int(value), BOOL
    if isinstance(value, int):
        return "i", value, INT
    if isinstance(value, float):
        return "f", value, FLOAT
    if isinstance(value, str):
        return "s", value, STR
    if value is None:
        return None, None, NONE
    if isinstance(value, np.ndarray):
        return "t", value, TensorType.of_array(value)
    if isinstance(value, tuple):
        parts = [_encode(x) for x in value]
        if any(kind in ("t", None) for kind, _, _ in parts):
            raise IRError("tuple constants may hold only scalars, strings and lists")
        items = tuple(bool(v) if t == BOOL else v for _, v, t in parts)
        return "ival", items, TupleType(tuple(t for _, _, t in parts))
    if isinstance(value, list) and value and all(isinstance(x, bool) for x in value):
        return "ival", [bool(x) for x in value], ListType(BOOL)
    if isinstance(value, list) and all(isinstance(x, int) for x in value):
        return "is", list(value), ListType(INT)
    if isinstance(value, list) and all(isinstance(x, (int, float)) for x in value):
        return "fs", [float(x) for x in value], ListType(FLOAT)
    raise IRError(f"cannot make a constant of {type_name(value)}")


def constant_value(node) -> Any:
    """The Python (or NumPy) value of a ``prim::Constant`` node."""
    if node.kind != prim.Constant:
        raise IRError(f"{node.kind} is not a constant")
    if not node.has_attribute("value"):
        return None
    kind = node.kind_of("value")
    value = node.attr("value")
    if kind == "i" and isinstance(node.outputs[0].type, BoolType):
        return bool(value)
    if kind in ("is", "fs", "ss"):
        return list(value)
    return value


def constant_int(value) -> int | None:
    """The int ``value`` holds where a ``prim::Constant`` makes it (not a bool), else None."""
    if value.node.kind != prim.Constant:
        return None
    v = constant_value(value.node)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def type_name(value: Any) -> str:
    return type(value).__name__
