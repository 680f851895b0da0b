"""``str(graph)``: TorchScript's text format, byte for byte.

::

    graph(%x.1 : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),
          %y.1 : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)):
      %2 : Float(*, *, device=cpu) = prim::FusionGroup_0(%x.1, %y.1)
      return (%2)
    with prim::FusionGroup_0 = graph(%3 : Float(...),
          %4 : Float(...)):
      %5 : int = prim::Constant[value=1]()
      %2 : Float(*, *, device=cpu) = aten::add(%3, %4, %5) # example.py:3:11
      return (%2)

A node carrying a ``Subgraph`` attribute prints with ``_K`` appended to its kind, and its graph
follows the main one as a ``with`` section, numbered in depth-first printing order.
"""

from __future__ import annotations

import math

import numpy as np

from .graph import ElidedTensor, Graph, Node, Value
from .limits import check_depth


def print_graph(graph: Graph) -> str:
    check_depth(graph)  # the printer recurses once per level of blocks and subgraphs
    out: list[str] = []
    groups: list[Node] = []
    params = ",\n      ".join(_typed(v) for v in graph.inputs)
    out.append(f"graph({params}):\n")
    for node in graph.nodes():
        _print_node(node, 1, groups, out)
    out.append(f"  return ({_names(graph.outputs)})\n")
    for i, group in enumerate(groups):
        out.append(f"with {group.kind}_{i} = {print_graph(group.g('Subgraph'))}")
    return "".join(out)


def print_node(node: Node) -> str:
    """One node as it prints inside a graph (with its blocks), without indentation."""
    check_depth(node)
    out: list[str] = []
    _print_node(node, 0, None, out)
    return "".join(out).rstrip("\n")


def _print_node(node: Node, level: int, groups: list[Node] | None, out: list[str]) -> None:
    pad = "  " * level
    line = [pad, ", ".join(_typed(v) for v in node.outputs), " = "]
    if node.has_attribute("Subgraph") and node.kind_of("Subgraph") == "g" and groups is not None:
        line.append(f"{node.kind}_{len(groups)}")
        if len(node.attribute_names()) > 1:
            line.append(_attributes(node, skip_subgraph=True))
        groups.append(node)
    else:
        line.append(str(node.kind))
        if node.attribute_names():
            line.append(_attributes(node, skip_subgraph=False))
    line.append(f"({_names(node.inputs)})")
    if node.source_range is not None:
        # A source comment runs to the end of the line: a line break in it (set through the
        # API) would make the rest of the comment parse as IR.
        line.append(" # " + str(node.source_range).replace("\n", " ").replace("\r", " "))
    out.append("".join(line) + "\n")
    for i, block in enumerate(node.blocks):
        params = ", ".join(_typed(v) for v in block.inputs)
        out.append(f"{pad}  block{i}({params}):\n")
        for inner in block.nodes():
            _print_node(inner, level + 2, groups, out)
        out.append(f"{pad}    -> ({_names(block.outputs)})\n")


def _typed(value: Value) -> str:
    return f"%{value.debug_name} : {value.type}"


def _names(values) -> str:
    return ", ".join(f"%{v.debug_name}" for v in values)


def _attributes(node: Node, skip_subgraph: bool) -> str:
    parts = []
    for name in node.attribute_names():
        if skip_subgraph and name == "Subgraph":
            continue
        text = node._attr_text.get(name)
        if text is None:
            kind, value = node._attrs[name]
            try:
                text = format_attribute(kind, value)
            except (TypeError, ValueError, OverflowError):
                # A value of the wrong kind set through the API: lint names it; printing (in
                # lint's own message, too) must not fail on it.
                text = "<invalid>"
        parts.append(f"{name}={text}")
    return "[" + ", ".join(parts) + "]"


def format_attribute(kind: str, value) -> str:
    if kind == "i":
        return str(int(value))
    if kind == "f":
        return format_float(value)
    if kind == "s":
        return quote_string(value)
    if kind == "is":
        return "[" + ", ".join(str(int(v)) for v in value) + "]"
    if kind == "fs":
        return "[" + ", ".join(format_float(v) for v in value) + "]"
    if kind == "ss":
        return "[" + ", ".join(quote_string(v) for v in value) + "]"
    if kind == "t":
        return format_tensor(value)
    if kind == "ts":
        return "[" + ", ".join(format_tensor(v) for v in value) + "]"
    if kind in ("g", "gs"):
        return "<Graph>"
    if kind == "ty":
        return str(value)
    return format_ivalue(value)


def format_ivalue(value) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(format_ivalue(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(format_ivalue(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if value is None:
        return "None"
    return str(value)


def format_float(v: float) -> str:
    """A double as TorchScript prints it: ``2.``, ``0.5``, ``1e-08``, ``0.10000000000000001``."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if abs(v) < 1e10 and v == int(v):
        return ("-0." if math.copysign(1.0, v) < 0 else "0.") if v == 0 else f"{int(v)}."
    return f"{v:.17g}"


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def quote_string(s: str) -> str:
    """Double-quoted with C escapes; bytes outside printable ASCII as three-digit octal."""
    out = ['"']
    for byte in s.encode("utf-8", "surrogateescape"):
        ch = chr(byte)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


_MAX_SHOWN = 10
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "float16": "Half"}


def format_tensor(value) -> str:
    """A tensor constant as ATen prints it inside an attribute (``<Tensor>`` above 10 values)."""
    if isinstance(value, ElidedTensor):
        return "<Tensor>"
    array = np.asarray(value)
    if array.size == 1:
        item = array.reshape(()).item()
        if isinstance(item, float):
            return "{" + _cfmt("%g", item) + "}"
        return "{" + str(int(item)) + "}"
    if array.size > _MAX_SHOWN:
        return "<Tensor>"
    text = _aten_print(array).replace("\n", " ")
    return text


def _cfmt(spec: str, v: float) -> str:
    if math.isnan(v):
        return "nan" if math.copysign(1.0, v) > 0 else "-nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return spec % v


def _print_format(values: np.ndarray) -> tuple[float, int, str]:
    """ATen's choice of scale, field width and number format for a tensor's values."""
    flat = values.astype(np.float64).ravel()
    if flat.size == 0:
        return 1.0, 0, "%g"
    finite = flat[np.isfinite(flat)]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    exp_min = exp_max = 1.0
    if finite.size:
        first = abs(finite[0])
        lo = hi = first
        for z in finite:
            if abs(z) < lo:
                lo = abs(z)
            if z > hi:  # ATen compares the signed value here
                hi = abs(z)
        exp_min = math.floor(math.log10(lo)) + 1 if lo != 0 else 1
        exp_max = math.floor(math.log10(hi)) + 1 if hi != 0 else 1
    if int_mode:
        if exp_max > 9:
            return 1.0, 11, "%.4e"
        return 1.0, int(exp_max) + 1, "%g"
    if exp_max - exp_min > 4:
        size = 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11
        return 1.0, size, "%.4e"
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, "%.4f"
    return 1.0, 7 if exp_max == 0 else int(exp_max) + 6, "%.4f"


def _aten_print(array: np.ndarray) -> str:
    scale, width, spec = _print_format(array)
    out: list[str] = []
    if scale != 1:
        out.append(_cfmt("%g", scale) + " *\n")
    data = array.astype(np.float64)
    if data.ndim == 1:
        for v in data:
            out.append(_cfmt(spec, v / scale).rjust(width) + "\n")
    else:
        rows = data.reshape(-1, data.shape[-1]) if data.ndim >= 2 else data.reshape(1, -1)
        for row in rows:
            out.append(" ".join(_cfmt(spec, v / scale).rjust(width) for v in row) + "\n")
    dims = ",".join(str(d) for d in array.shape)
    out.append(f"[ CPU{_TYPE_NAMES.get(array.dtype.name, 'Float')}Type{{{dims}}} ]")
    return "".join(out)
