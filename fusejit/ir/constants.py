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
from .types import BOOL, DEVICE, FLOAT, INT, NONE, STR, BoolType, ListType, TensorType, Type


def make_constant(graph, value: Any, type: Type | None = None):
    node = graph.create(prim.Constant, (), 0)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        node.i_("value", int(value))
        inferred = BOOL
    elif isinstance(value, int):
        node.i_("value", value)
        inferred = INT
    elif isinstance(value, float):
        node.f_("value", value)
        inferred = FLOAT
    elif isinstance(value, str):
        node.s_("value", value)
        inferred = STR if type != DEVICE else DEVICE
    elif value is None:
        inferred = NONE
    elif isinstance(value, np.ndarray):
        node.t_("value", value)
        inferred = TensorType.of_array(value)
    elif isinstance(value, (list, tuple)) and all(isinstance(x, bool) for x in value) and value:
        node.ival_("value", [bool(x) for x in value])
        inferred = ListType(BOOL)
    elif isinstance(value, (list, tuple)) and all(isinstance(x, int) for x in value):
        node.is__("value", list(value))
        inferred = ListType(INT)
    elif isinstance(value, (list, tuple)) and all(isinstance(x, (int, float)) for x in value):
        node.set_attr("value", "fs", [float(x) for x in value])
        inferred = ListType(FLOAT)
    else:
        raise IRError(f"cannot make a constant of {type_name(value)}")
    node.add_output(type if type is not None else inferred)
    return node


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


def type_name(value: Any) -> str:
    return type(value).__name__
