"""Element loops over arrays, compiled whole into one Numba function.

An EWMA recurrence or a running maximum reads and writes one element per step: every tensor
it computes is 0-d, and its arrays are only arguments, views of them, and arrays it creates.
Such a graph is written out like a scalar graph (``scalar_function``), with arrays as Numba
arrays::

    out = np.empty_like(x)                  v2 = np.full(v0.shape, 0, np.float64)
    out[i] = a * x[i] + (1 - a) * out[i-1]  v2[v9] = np.float64(np.float64(v1) * v0[v8] + ...)

A 0-d ``aten::select`` is not a variable but the expression ``base[index]``, read where it is
used, so a write through the view is seen by later reads as in the graph. Each 0-d operation
casts its operands to the dtype PyTorch computes it in and its result to the graph's dtype, so
a float32 recurrence rounds as the interpreter's does. Bounds are checked; on an exception the
call runs on the interpreter (which gives the graph's own error with its source line): only
graphs that write no argument are compiled, so running twice is safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import BoolType, FloatType, IntType, ListType, NoneType, TensorType
from .dtypes import result_type_from, scalar_dtype
from .scalar_function import _CALLS, _INFIX, _PRELUDE, _Writer

_SCALAR = (IntType, FloatType, BoolType)
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "max", "min", "neg", "abs", "eq", "ne",
                         "lt", "le", "gt", "ge", "sqrt", "exp", "log", "tanh", "sin", "cos",
                         "floor", "ceil"})
_PREDICATES = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
_WRITES = frozenset({"copy_", "fill_"})
_CREATE = frozenset({"full_like", "zeros", "ones", "full"})
_CONVERT = {"Bool": "bool", "Float": "float", "Int": "_to_int"}


def _dtype(value: Value) -> np.dtype | None:
    t = value.type
    if isinstance(t, TensorType) and t.scalar_type is not None:
        return t.scalar_type.dtype
    return None


def _rank(value: Value) -> int | None:
    return value.type.rank if isinstance(value.type, TensorType) else None


def _known(value: Value) -> bool:
    t = value.type
    if isinstance(t, (*_SCALAR, NoneType)):
        return True
    if isinstance(t, ListType):
        return isinstance(t.elem, IntType)
    return isinstance(t, TensorType) and t.scalar_type is not None and t.rank is not None


def _root(value: Value) -> Value:
    while value.node.kind in ("aten::select", "aten::copy_", "aten::fill_"):
        value = value.node.input(0)
    return value


def is_element_graph(graph: Graph) -> bool:
    """Does ``graph`` compute with 0-d tensors and element reads/writes only?"""
    if not graph.outputs or not all(_known(v) for v in [*graph.inputs, *graph.outputs]):
        return False
    if not any(isinstance(v.type, TensorType) for v in [*graph.inputs, *graph.outputs]):
        return False  # scalar graphs: scalar_function
    return _supported(graph.block, set(graph.inputs))


def _supported(block: Block, arguments: set) -> bool:
    for node in block.nodes():
        if not all(_known(v) for v in [*node.inputs, *node.outputs]):
            return False
        kind = node.kind
        if kind in (prim.If, prim.Loop):
            carried = [v for b in node.blocks for v in [*b.inputs, *b.outputs]]
            if any((_rank(v) or 0) > 0 for v in [*carried, *node.outputs]):
                return False  # arrays do not flow through control flow here
            if not all(_supported(b, arguments) for b in node.blocks):
                return False
            continue
        if kind == prim.Constant:
            out = node.output()
            if isinstance(out.type, TensorType) and not all(
                    u.user.kind == "aten::type_as" and u.offset == 1 for u in out.uses):
                return False
            continue
        if kind == prim.ListConstruct:
            continue
        if kind.ns != "aten":
            return False
        name = kind.name
        tensors = [v for v in [*node.inputs, *node.outputs] if isinstance(v.type, TensorType)]
        if not tensors:
            if not (name in _INFIX or name in _CALLS or name in ("neg", "__not__", "Bool")):
                return False
        elif name == "select":
            if not _constant_int(node.input(1)):
                return False
        elif name == "size":
            if len(node.inputs) != 2:
                return False
        elif name in _WRITES:
            if _rank(node.input(0)) != 0 or _root(node.input(0)) in arguments:
                return False
        elif name in _CREATE:
            if name != "full_like" and node.input(0).node.kind not in (
                    prim.ListConstruct, prim.Constant, "aten::size"):
                return False
        elif name == "type_as" or name in _CONVERT:
            if _rank(node.input(0)) != 0:
                return False
        elif name in _ARITHMETIC:
            if any(_rank(v) != 0 for v in tensors):
                return False
            if name in ("add", "sub") and len(node.inputs) == 3 and _static(node.input(2)) != 1:
                return False
        else:
            return False
    return True


def _constant_int(value: Value) -> bool:
    return isinstance(_static(value), int)


def _static(value: Value) -> Any:
    if value.node.kind != prim.Constant:
        return None
    from ..ir.constants import constant_value

    return constant_value(value.node)


class _ElementWriter(_Writer):
    """A scalar writer that also knows arrays, element expressions and their dtypes."""

    def __init__(self):
        super().__init__()
        self.exprs: dict[Value, str] = {}

    def name(self, value: Value) -> str:
        expr = self.exprs.get(value)
        return expr if expr is not None else super().name(value)

    def node(self, node: Node, depth: int) -> None:
        kind = node.kind
        out = node.outputs[0] if node.outputs else None
        if kind == prim.Constant and isinstance(out.type, NoneType):
            self.exprs[out] = "None"
            return
        if kind == prim.Constant and isinstance(out.type, TensorType):
            self.exprs[out] = "None"  # type_as's prototype: only its dtype is read
            return
        if kind == prim.Constant and isinstance(out.type, ListType):
            items = "".join(f"{int(i)}, " for i in _static(out))
            self.emit(depth, f"{self.name(out)} = ({items})")
            return
        if kind == prim.Constant and isinstance(out.type, ListType):
            items = "".join(f"{int(i)}, " for i in _static(out))
            self.emit(depth, f"{self.name(out)} = ({items})")
            return
        if kind == prim.ListConstruct:
            items = "".join(f"{self.name(v)}, " for v in node.inputs)
            self.emit(depth, f"{self.name(out)} = ({items})")
            return
        if kind.ns != "aten" or not any(isinstance(v.type, TensorType)
                                        for v in [*node.inputs, *node.outputs]):
            super().node(node, depth)
            return
        getattr(self, f"_{kind.name}", self._arithmetic)(node, out, depth)

    # -- arrays and elements ----------------------------------------------------------------

    def _select(self, node: Node, out: Value, depth: int) -> None:
        dim = _static(node.input(1))
        index = ":, " * (dim % max(_rank(node.input(0)) or 1, 1)) + self.name(node.input(2))
        expr = f"{self.name(node.input(0))}[{index}]"
        if _rank(out) == 0:
            self.exprs[out] = expr  # read at each use
        else:
            self.emit(depth, f"{self.name(out)} = {expr}")

    def _size(self, node: Node, out: Value, depth: int) -> None:
        self.emit(depth, f"{self.name(out)} = {self.name(node.input(0))}.shape"
                         f"[{self.name(node.input(1))}]")

    def _copy_(self, node: Node, out: Value, depth: int) -> None:
        target = self.name(node.input(0))
        self.emit(depth, f"{target} = {_cast(self.name(node.input(1)), _dtype(node.input(0)))}")
        self.exprs[out] = target

    _fill_ = _copy_

    def _full_like(self, node: Node, out: Value, depth: int) -> None:
        like = self.name(node.input(0))
        self.emit(depth, f"{self.name(out)} = np.full({like}.shape, "
                         f"{self.name(node.input(1))}, np.{_dtype(out).name})")

    def _zeros(self, node: Node, out: Value, depth: int, fill: str = "0") -> None:
        shape = node.input(0)
        size = (f"{self.name(shape.node.input(0))}.shape" if shape.node.kind == "aten::size"
                else self.name(shape))
        self.emit(depth, f"{self.name(out)} = np.full({size}, {fill}, np.{_dtype(out).name})")

    def _ones(self, node: Node, out: Value, depth: int) -> None:
        self._zeros(node, out, depth, "1")

    def _full(self, node: Node, out: Value, depth: int) -> None:
        self._zeros(node, out, depth, self.name(node.input(1)))

    def _type_as(self, node: Node, out: Value, depth: int) -> None:
        self.emit(depth, f"{self.name(out)} = {_cast(self.name(node.input(0)), _dtype(out))}")

    def _arithmetic(self, node: Node, out: Value, depth: int) -> None:
        name = node.kind.name
        if name in _CONVERT:
            self.emit(depth, f"{self.name(out)} = {_CONVERT[name]}({self.name(node.input(0))})")
            return
        operands = node.inputs[:2] if name in ("add", "sub") else node.inputs
        compute = _compute_dtype(operands) if name in _PREDICATES else _dtype(out)
        args = [_cast(self.name(v), compute) for v in operands]
        if name in _INFIX:
            expr = f"({args[0]} {_INFIX[name]} {args[1]})"
        elif name == "neg":
            expr = f"(-{args[0]})"
        else:
            expr = f"{_CALLS[name]}({', '.join(args)})"
        self.emit(depth, f"{self.name(out)} = {_cast(expr, _dtype(out))}")


_SCALAR_DTYPES = {IntType: scalar_dtype(1), FloatType: scalar_dtype(1.0),
                  BoolType: scalar_dtype(True)}


def _compute_dtype(operands: list[Value]) -> np.dtype:
    """The dtype PyTorch compares in (0-d tensors over Python scalars, by category)."""
    kinds = [(_dtype(v), "zero_dim") if isinstance(v.type, TensorType)
             else (_SCALAR_DTYPES[type(v.type)], "scalar") for v in operands]
    return result_type_from(kinds)


def _cast(expr: str, dtype: np.dtype | None) -> str:
    if dtype is None:
        return expr
    return f"np.{dtype.name}({expr})" if dtype.name != "bool" else f"np.bool_({expr})"


def element_source(graph: Graph) -> str:
    """The module source whose ``element_fn`` computes ``graph``."""
    writer = _ElementWriter()
    params = ", ".join(writer.name(v) for v in graph.inputs)
    writer.block(graph.block, 1)
    outs = [writer.name(v) for v in graph.outputs]
    writer.emit(1, f"return ({', '.join(outs)},)")
    return ("import numpy as np\n" + _PRELUDE + "@njit(cache=True, boundscheck=True)\n"
            + f"def element_fn({params}):\n" + "\n".join(writer.lines) + "\n")


def compile_element_graph(graph: Graph, fallback: Callable[..., Any]) -> Callable[..., Any]:
    """``graph`` as one compiled function; on an exception the call runs ``fallback``."""
    from .fusion.cache import load_module

    compiled = load_module(element_source(graph)).element_fn
    zero_d = tuple((i, _dtype(v)) for i, v in enumerate(graph.outputs) if _rank(v) == 0)
    single = len(graph.outputs) == 1

    def run(*args: Any) -> Any:
        try:
            results = compiled(*args)
        except Exception:  # noqa: BLE001 - the interpreter gives the graph's own answer/error
            return fallback(*args)
        if zero_d:
            results = list(results)
            for i, dtype in zero_d:
                results[i] = np.asarray(results[i], dtype)
        return results[0] if single else tuple(results)

    run.compiled = compiled  # type: ignore[attr-defined]
    run.graph_for = getattr(fallback, "graph_for", None)  # type: ignore[attr-defined]
    run.code_for = getattr(fallback, "code_for", None)  # type: ignore[attr-defined]
    return run


__all__ = ["compile_element_graph", "element_source", "is_element_graph"]
