"""Emitting checked nodes: the one place where the frontends create IR.

Both frontends (``script`` reads Python's AST, ``trace`` records calls on tracer arrays) go through
an :class:`IRBuilder`. It knows the Python source location of the expression being translated,
stamps it on every node it creates, materialises Python literals as ``prim::Constant`` nodes at
their use, and checks each node against the operator registry, so that the output type of a
scalar op comes from its schema::

    b = IRBuilder(graph)
    b.emit("aten::add", [n, b.value(1)])     # %3 : int = aten::add(%n, %2)   # f.py:4:8
    b.emit("aten::add", [x, b.value(1.5), b.value(1)])
                                             # %5 : Tensor = aten::add(%x, %4, %1)

Items that flow through the frontends are IR ``Value``s, Python literals (``int``, ``float``,
``bool``, ``None``) not yet materialised, or tuples/lists of items.
"""

from __future__ import annotations

import linecache
from typing import Any

import numpy as np

from ..errors import ScriptError
from ..ir.graph import Graph, Node, SourceRange, Value
from ..ir.schema import registry
from ..ir.symbols import Symbol, prim
from ..ir.types import (
    BOOL,
    FLOAT,
    INT,
    TENSOR,
    AnyType,
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    OptionalType,
    TensorType,
    Type,
)

Item = Value | int | float | bool | None | tuple | list

LITERAL_TYPES = (bool, int, float, type(None))


class Location:
    """A point in the user's Python source: file, 1-based line, 0-based column."""

    __slots__ = ("file", "line", "col")

    def __init__(self, file: str, line: int, col: int):
        self.file = file
        self.line = line
        self.col = col

    def source_range(self) -> SourceRange:
        return SourceRange(self.file, self.line, self.col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class NeedsConstant(ScriptError):
    """A parameter is used where a constant is needed (an axis, ``keepdims``); ``index``:
    which graph input."""

    index: int


def script_error(message: str, loc: Location | None,
                 kind: type[ScriptError] = ScriptError) -> ScriptError:
    """A ``ScriptError`` that shows ``file:line:col``, the source line and a caret."""
    if loc is None:
        return kind(message)
    text = linecache.getline(loc.file, loc.line).rstrip("\n")
    text = text.encode("ascii", "backslashreplace").decode("ascii")[:200]
    caret = " " * min(loc.col, len(text)) + "^"
    error = kind(f"{loc}: {message}\n    {text}\n    {caret}")
    error.location = loc  # type: ignore[attr-defined]
    return error


def is_tensor(item: Item) -> bool:
    return isinstance(item, Value) and isinstance(item.type, TensorType)


def rebuilt(template: tuple | list, items: Any) -> tuple | list:
    """``items`` in a container of ``template``'s type: a list, a tuple, or a named tuple
    (NumPy's ``SlogdetResult``), made from its fields by position."""
    if hasattr(template, "_fields"):
        return type(template)(*items)
    return type(template)(items)


def describe(item: Item) -> str:
    """A short type description for error messages."""
    if isinstance(item, Value):
        return "Tensor" if isinstance(item.type, TensorType) else str(item.type)
    if isinstance(item, tuple):
        return "tuple"
    if isinstance(item, list):
        return "list"
    return type(item).__name__


def _return_type(schema_type: Type, inputs: list[Value]) -> Type:
    if isinstance(schema_type, TensorType):
        return TENSOR
    if isinstance(schema_type, AnyType):
        # Type variables: ``t[] -> t`` style; the element type of the first list input.
        for v in inputs:
            if isinstance(v.type, ListType):
                return v.type.elem
        return inputs[0].type if inputs else schema_type
    if isinstance(schema_type, ListType) and isinstance(schema_type.elem, TensorType):
        return ListType(TENSOR)
    return schema_type


# The ops whose result shares its input's memory, in NumPy's terms and aten's.
VIEW_KINDS = frozenset(f"aten::{name}" for name in (
    "slice", "select", "unsqueeze", "squeeze", "t", "transpose", "permute", "reshape", "view",
    "expand", "diagonal", "numpy_T", "swapaxes"))


class IRBuilder:
    """Creates nodes at the graph's insertion point, located at ``self.loc``."""

    def __init__(self, graph: Graph, typed: bool = False):
        self.graph = graph
        self.loc: Location | None = None
        # The dtype of each scalar value that is a NumPy scalar (``np.sqrt(n)``,
        # ``np.float32(0.5)``): strong in NumPy's promotion, unlike Python numbers (NEP 50;
        # ``numpy_dtypes.numpy_scalar``).
        self.numpy_scalars: dict[Value, np.dtype] = {}
        # The 0-d values made as arrays (``np.array(x.sum())``): NumPy returns them as 0-d
        # arrays, where it returns other 0-d results as NumPy scalars.
        self.zero_d_arrays: set[Value] = set()
        # The run-time Python ints checked to fit an integer dtype (``check_python_ints``),
        # with the dtype and the block whose later nodes the check covers.
        self.checked_ints: set[tuple] = set()
        # Arrays that the branches of an if give different dtypes, with those dtypes
        # (``note_mixed``): an op on one computes in NumPy's dtype where every branch gives
        # the same, and is refused where they differ (``numpy_dtypes.conform``).
        self.mixed_dtypes: dict[Value, set] = {}
        # The arrays that ops emitted so far write in place (``out=``, ``np.copyto``...), which
        # a NumPy call's emitter reads to keep what names read of them before
        # (``ExpressionEmitter.eval_Call``).
        self.writes: list[Value] = []
        # Numbers whose kind the branch of an if that ran (or whether a loop ran) decides:
        # an int or a float, a np.float32 or a np.float64 (``ExpressionEmitter.merged_kinds``):
        # value -> (the index of its kind, its kinds: Python number types and NumPy scalar
        # dtypes). None: not followed (PyTorch's rules).
        self.branched: dict[Value, tuple[Value, tuple]] | None = None
        # What each list built by append holds: arrays (``TENSOR``), or numbers of one type
        # (``FLOAT``, ``INT``, ``BOOL``) held as 0-d arrays and read back as numbers.
        self.list_items: dict[Value, Type] = {}
        # The lists of arrays whose every item is a 0-d NumPy scalar (``out.append(x[i])``).
        self.scalar_lists: dict[Value, bool] = {}
        # Lists of tuples (or lists) built by append (``rows.append((t, p, r))``): one list
        # per field (``lowering.Records``), by the list as the graph first made it, which
        # then has no use of its own (``lowering.check_records_unused``).
        self.records: dict[Value, Any] = {}
        # What every array put in a list of arrays so far shares: its dtype and rank, on one
        # device (None: the arrays differ, or one's type is not known); and the type a read of
        # an item was given from it (``for d in details``: ``lowering.list_element``). With
        # ``typed_list_reads`` False (``script.py`` scripts again so) reads stay untyped.
        self.list_types: dict[Value, TensorType | None] = {}
        self.list_reads: dict[Value, TensorType] = {}
        self.typed_list_reads = True
        # The dtypes of the arrays put in each such list so far (None among them: one unknown)
        self.list_dtypes: dict[Value, set] = {}
        # With typed inputs (``fusejit.jit`` specialises per call), each node's output types are
        # inferred as it is emitted, so lowerings can read dtypes (NumPy's promotion rules).
        self.facts = None
        if typed:
            from ..passes.shape_rules import Facts

            self.facts = Facts()

    # -- errors -------------------------------------------------------------------------------

    def error(self, message: str) -> ScriptError:
        return script_error(message, self.loc)

    # -- nodes --------------------------------------------------------------------------------

    def create(self, kind: str, inputs: list[Value], num_outputs: int = 1) -> Node:
        """An unchecked node, inserted and located (for prim:: plumbing)."""
        node = self.graph.insert(kind, inputs, num_outputs)
        if self.loc is not None:
            node.source_range = self.loc.source_range()
        return node

    def raise_unless(self, condition: Item, message: str) -> None:
        """At run time, ``prim::RaiseException(message)`` where the bool ``condition`` is
        False: an ``If`` whose false branch raises (a ``JITException`` naming the line)."""
        check = self.create(prim.If, [self.value(condition)], 0)
        check.add_block()
        fail = check.add_block()
        with self.graph.inserting_before(fail):
            self.create(prim.RaiseException, [self.value_const(message)], 0)

    def emit(self, kind: str, inputs: list[Item], what: str | None = None) -> Value:
        """An operator node with one output, checked against the registered schemas."""
        values = [self.value(i) for i in inputs]
        node = self.create(kind, values)
        schema = registry.find(node)
        if schema is None:
            node.destroy()
            types = ", ".join(describe(v) for v in values)
            raise self.error(f"{what or Symbol(kind).name}: no overload of {kind} takes "
                             f"({types})")
        if len(schema.returns) != 1:
            raise self.error(f"{kind} must have exactly one result")
        node.output().set_type(_return_type(schema.returns[0], values))
        if 0 in schema.written and isinstance(values[0].type, TensorType):
            self.writes.append(values[0])
        self.refine(node)
        if kind in VIEW_KINDS and kind != "aten::select" and \
                getattr(node.output().type, "rank", None) == 0 and \
                (values[0] in self.zero_d_arrays or values[0].type.rank != 0):
            # (a 0-d view of an array is a 0-d array, not a NumPy scalar: v = x.T or
            # x.reshape(()); v += 1 writes x. A NumPy scalar's views are scalars, x[i] too)
            self.zero_d_arrays.add(node.output())
        return node.output()

    def refine(self, node: Node) -> None:
        """Give ``node``'s outputs the types inferred from its inputs (typed builders only)."""
        if self.facts is None:
            return
        from ..passes.shape_analysis import merge_types
        from ..passes.shape_rules import infer_outputs

        try:
            inferred = infer_outputs(node, self.facts)
        except Exception:  # noqa: BLE001 - inference is advisory; the executor infers again
            return
        for out, t in zip(node.outputs, inferred):
            out.set_type(merge_types(out.type, t, frozenset()))

    # -- literals -----------------------------------------------------------------------------

    def value(self, item: Item) -> Value:
        """``item`` as an IR value: literals become constants here, at their use."""
        if isinstance(item, Value):
            return item
        if isinstance(item, LITERAL_TYPES):
            return self.value_const(item)
        if isinstance(item, (tuple, list)):
            return self.int_list(item, "list")
        hint = (" (a string is only compared with == or used as a dict key or message)"
                if isinstance(item, str) else "")
        raise self.error(f"a {describe(item)} cannot be used as a value here{hint}")

    def static(self, item: Item) -> Any:
        """The compile-time value of ``item`` (a literal or a constant node), else ``Ellipsis``."""
        if isinstance(item, Value):
            if item.node.kind == prim.Constant and not isinstance(item.type, TensorType):
                from ..ir.constants import constant_value

                return constant_value(item.node)
            return ...
        if isinstance(item, (tuple, list)):
            inner = [self.static(i) for i in item]
            return ... if any(i is ... for i in inner) else tuple(inner)
        return item

    def static_int(self, item: Item, what: str) -> int:
        value = self.static(item)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._not_constant(item, f"{what} must be a constant int, got "
                                           f"{describe(item)}")
        return value

    def static_bool(self, item: Item, what: str) -> bool:
        value = self.static(item)
        if not isinstance(value, bool):
            raise self._not_constant(item, f"{what} must be a constant bool, got "
                                           f"{describe(item)}")
        return value

    def _not_constant(self, item: Item, message: str) -> ScriptError:
        """The error for a value that must be known while scripting; when it is a parameter
        (``axis=-1``), ``fusejit.jit`` catches it and scripts again with that argument's value
        as a constant (``NeedsConstant.index``)."""
        if isinstance(item, Value) and item in self.graph.inputs:
            error = script_error(message + " (pass a Python int or bool for it)", self.loc,
                                 NeedsConstant)
            error.index = self.graph.inputs.index(item)  # type: ignore[attr-defined]
            return error
        return self.error(message)

    def int_list(self, item: Item, what: str) -> Value:
        """An ``int[]`` value from an int or a tuple/list of ints (constant when all are)."""
        items = list(item) if isinstance(item, (tuple, list)) else [item]
        static = [self.static(i) for i in items]
        if all(isinstance(s, int) and not isinstance(s, bool) for s in static):
            return self.value_const(list(static))
        values = []
        for i in items:
            v = self.value(i)
            if not isinstance(v.type, IntType):
                raise self.error(f"{what} must hold ints, got {describe(i)}")
            values.append(v)
        node = self.create(prim.ListConstruct, values)
        node.output().set_type(ListType(INT))
        self.refine(node)
        return node.output()

    def tensor_list(self, items: Item, what: str, allow_empty: bool = False) -> Value:
        if isinstance(items, Value) and items.type == ListType(TENSOR):
            return items  # a list built in a loop
        if not isinstance(items, (tuple, list)) or not (items or allow_empty):
            raise self.error(f"{what} takes a non-empty list or tuple of arrays")
        values = []
        for i in items:
            if not is_tensor(i):
                raise self.error(f"{what}: every element must be an array, got {describe(i)}")
            values.append(i)
        node = self.create(prim.ListConstruct, values)
        node.output().set_type(ListType(TENSOR))
        self.refine(node)
        return node.output()

    def index_list(self, indices: list[Value]) -> Value:
        """The ``Tensor?[]`` of an ``aten::index``/``index_put_`` (None: a whole dimension)."""
        node = self.create(prim.ListConstruct, indices)
        node.output().set_type(ListType(OptionalType(TENSOR)))
        return node.output()

    def value_const(self, value: Any) -> Value:
        if type(value) is int and not -(1 << 63) <= value < 1 << 63:
            raise self.error(f"the int {value} is beyond the 64-bit range of the IR's ints "
                             f"(beside a uint64 array it is NumPy's uint64; elsewhere write it "
                             f"as np.uint64(...) or a float)")
        node = self.graph.create_constant(value)
        self.graph.insert_node(node)
        if self.loc is not None:
            node.source_range = self.loc.source_range()
        self.refine(node)
        return node.output()


def scalar_type_of(item: Item) -> Type | None:
    """INT, FLOAT or BOOL for scalar items, ``None`` for anything else."""
    if isinstance(item, bool):
        return BOOL
    if isinstance(item, int):
        return INT
    if isinstance(item, float):
        return FLOAT
    if isinstance(item, Value) and isinstance(item.type, (IntType, FloatType, BoolType)):
        return item.type
    return None


def is_none(item: Item) -> bool:
    return item is None or (isinstance(item, Value) and isinstance(item.type, NoneType))


def remove_unused_constants(graph: Graph) -> None:
    """Drop constants nobody reads (literals consumed at compile time, such as an axis)."""
    for node in list(graph.all_nodes()):
        if node.kind == prim.Constant and not node.has_uses():
            node.destroy()
