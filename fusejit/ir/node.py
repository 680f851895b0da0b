"""``Node``: one operation, ``outputs = kind[attributes](inputs)``, with optional sub-blocks.

::

    %r : Tensor = prim::If(%c)       # kind prim::If, one input, one output, two blocks
      block0():
        -> (%x)
      block1():
        -> (%y)

Every change to inputs goes through a method here, which keeps the values' use-lists exact.
Attributes are typed (``i f s is fs ss t ts g gs ival ty``), set with ``i_``, ``f_``... and read
with ``i``, ``f``...; their order is kept, as the printer shows them in insertion order.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import IRError
from .schema import registry as _registry
from .symbols import Symbol, prim
from .types import TENSOR, Type
from .values import SourceRange, Use, Value

if TYPE_CHECKING:
    from .graph import Block, Graph

_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class Node:
    """An operation: ``outputs = kind[attributes](inputs)`` plus optional sub-blocks."""

    __slots__ = ("kind", "graph", "owning_block", "prev", "next", "_topo", "_inputs",
                 "_outputs", "_blocks", "_attrs", "_attr_text", "source_range", "text_line",
                 "origin", "_schema_memo", "__weakref__")

    def __init__(self, graph: Graph, kind: str):
        self.kind = Symbol(kind)
        self.graph = graph
        self.owning_block: Block | None = None
        self.prev: Node | None = None
        self.next: Node | None = None
        self._topo = 0
        self._inputs: list[Value] = []
        self._outputs: list[Value] = []
        self._blocks: list[Block] = []
        self._attrs: dict[str, tuple[str, Any]] = {}
        self._attr_text: dict[str, str] = {}
        self.source_range: SourceRange | None = None
        # The line of the IR text the node was parsed from (not printed): where errors point
        # when the text gave no source comment.
        self.text_line: int | None = None
        # Where a node a pass made in place of others came from (the ``aten::cat`` a
        # ``prim::FusedConcat`` replaced), not printed: PyTorch's pass gives it no source range.
        self.origin: str | None = None
        # (registry version, kind, input types, schema): the passes ask for a node's schema
        # again and again, and the answer depends on nothing else.
        self._schema_memo: tuple | None = None

    # -- inputs and outputs -------------------------------------------------------------------

    @property
    def inputs(self) -> tuple[Value, ...]:
        return tuple(self._inputs)

    @property
    def outputs(self) -> tuple[Value, ...]:
        return tuple(self._outputs)

    @property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(self._blocks)

    def input(self, i: int = 0) -> Value:
        return self._inputs[i]

    def output(self, i: int = 0) -> Value:
        if i == 0 and len(self._outputs) != 1:
            raise IRError(f"{self.kind} has {len(self._outputs)} outputs, expected one")
        return self._outputs[i]

    def has_uses(self) -> bool:
        return any(o.uses for o in self._outputs)

    def add_input(self, value: Value) -> Value:
        self._check_same_graph(value)
        value.uses.append(Use(self, len(self._inputs)))
        self._inputs.append(value)
        return value

    def insert_input(self, i: int, value: Value) -> Value:
        self._check_same_graph(value)
        for use_index in range(i, len(self._inputs)):
            self._find_use(use_index).offset += 1
        self._inputs.insert(i, value)
        value.uses.append(Use(self, i))
        return value

    def replace_input(self, i: int, new: Value) -> Value:
        """Make input ``i`` read ``new``; returns the value it read before."""
        self._check_same_graph(new)
        old = self._inputs[i]
        old.uses.remove(Use(self, i))
        self._inputs[i] = new
        new.uses.append(Use(self, i))
        return old

    def replace_input_with(self, old: Value, new: Value) -> None:
        for i, v in enumerate(self._inputs):
            if v is old:
                self.replace_input(i, new)

    def remove_input(self, i: int) -> None:
        self._drop_use(i)
        for later in range(i + 1, len(self._inputs)):
            self._find_use(later).offset -= 1
        del self._inputs[i]

    def remove_all_inputs(self) -> None:
        for i in range(len(self._inputs)):
            self._drop_use(i)
        self._inputs.clear()

    def add_output(self, type: Type = TENSOR) -> Value:
        value = Value(self, len(self._outputs), type)
        self._outputs.append(value)
        return value

    def insert_output(self, i: int, type: Type = TENSOR) -> Value:
        value = Value(self, i, type)
        self._outputs.insert(i, value)
        for j in range(i + 1, len(self._outputs)):
            self._outputs[j].offset = j
        return value

    def erase_output(self, i: int) -> None:
        value = self._outputs[i]
        if value.uses:
            raise IRError(f"cannot erase output %{value.debug_name} of {self.kind}: still used "
                          f"by {', '.join(str(u.user.kind) for u in value.uses)}")
        self.graph._names.release(value)
        del self._outputs[i]
        for j in range(i, len(self._outputs)):
            self._outputs[j].offset = j

    def _find_use(self, i: int) -> Use:
        for use in self._inputs[i].uses:
            if use.user is self and use.offset == i:
                return use
        raise IRError(f"use-list of %{self._inputs[i].debug_name} lost input {i} of {self.kind}")

    def _drop_use(self, i: int) -> None:
        self._inputs[i].uses.remove(Use(self, i))

    def _check_same_graph(self, value: Value) -> None:
        if value.graph is not self.graph:
            raise IRError(f"%{value.debug_name} belongs to another graph than {self.kind}")

    # -- blocks -------------------------------------------------------------------------------

    def add_block(self) -> Block:
        from .graph import Block

        block = Block(self.graph, self)
        self._blocks.append(block)
        return block

    def erase_block(self, i: int) -> None:
        self._blocks[i]._destroy()
        del self._blocks[i]

    # -- attributes ---------------------------------------------------------------------------

    def set_attr(self, name: str, kind: str, value: Any) -> Node:
        """Set attribute ``name`` (no ``attr::``) of kind ``i f s is fs ss t g ival ...``."""
        if not isinstance(name, str) or not _ATTRIBUTE_NAME.fullmatch(name):
            # The printer writes the name as it is: it must read back as one.
            raise IRError(f"attribute name {name!r} is not an identifier"[:200])
        if kind == "t" and isinstance(value, np.ndarray):
            value = value.copy()
            value.flags.writeable = False
        self._attrs[name] = (kind, value)
        self._attr_text.pop(name, None)
        return self

    def i_(self, name: str, v: int) -> Node:
        return self.set_attr(name, "i", _converted(int, v, name))

    def f_(self, name: str, v: float) -> Node:
        return self.set_attr(name, "f", _converted(float, v, name))

    def s_(self, name: str, v: str) -> Node:
        return self.set_attr(name, "s", str(v))

    def is__(self, name: str, v: list[int]) -> Node:
        return self.set_attr(name, "is", [_converted(int, x, name) for x in v])

    def t_(self, name: str, v: np.ndarray) -> Node:
        return self.set_attr(name, "t", v)

    def g_(self, name: str, v: Graph) -> Node:
        return self.set_attr(name, "g", v)

    def ival_(self, name: str, v: Any) -> Node:
        return self.set_attr(name, "ival", v)

    def has_attribute(self, name: str) -> bool:
        return name in self._attrs

    def attribute_names(self) -> list[str]:
        return list(self._attrs)

    def kind_of(self, name: str) -> str:
        try:
            return self._attrs[name][0]
        except KeyError:
            raise IRError(f"{self.kind} has no attribute {name!r}") from None

    def attr(self, name: str, kind: str | None = None) -> Any:
        try:
            found_kind, value = self._attrs[name]
        except KeyError:
            raise IRError(f"{self.kind} has no attribute {name!r}") from None
        if kind is not None and found_kind != kind:
            raise IRError(f"attribute {name!r} of {self.kind} is of kind {found_kind}, not {kind}")
        return value

    def i(self, name: str) -> int:
        return self.attr(name, "i")

    def f(self, name: str) -> float:
        return self.attr(name, "f")

    def s(self, name: str) -> str:
        return self.attr(name, "s")

    def is_(self, name: str) -> list[int]:
        return self.attr(name, "is")

    def t(self, name: str) -> np.ndarray:
        return self.attr(name, "t")

    def g(self, name: str) -> Graph:
        return self.attr(name, "g")

    def remove_attribute(self, name: str) -> None:
        self._attrs.pop(name, None)
        self._attr_text.pop(name, None)

    def copy_attributes(self, other: Node) -> Node:
        """Copy every attribute of ``other``; subgraphs are copied deeply."""
        self._attrs = {}
        for name, (kind, value) in other._attrs.items():
            if kind == "g":
                value = value.copy()
            elif kind == "gs":
                value = [g.copy() for g in value]
            self._attrs[name] = (kind, value)
        self._attr_text = dict(other._attr_text)
        return self

    # -- position -----------------------------------------------------------------------------

    def in_block_list(self) -> bool:
        return self.owning_block is not None and self.next is not None

    def insert_before(self, n: Node) -> Node:
        """Put this (not yet inserted) node just before ``n``."""
        if n.kind == prim.Param:
            raise IRError("cannot insert before a block's Param node")
        return self.insert_after(n.prev)

    def insert_after(self, n: Node) -> Node:
        """Put this (not yet inserted) node just after ``n``."""
        if self.in_block_list():
            raise IRError(f"{self.kind} is already in a block; use move_after")
        if n.kind == prim.Return or n.owning_block is None:
            raise IRError("cannot insert after a block's Return node or a free node")
        block = n.owning_block
        self.owning_block = block
        self.prev, self.next = n, n.next
        n.next.prev = self
        n.next = self
        block._assign_topo(self)
        return self

    def move_before(self, n: Node) -> None:
        self._remove_from_list()
        self.insert_before(n)

    def move_after(self, n: Node) -> None:
        self._remove_from_list()
        self.insert_after(n)

    def _remove_from_list(self) -> None:
        if not self.in_block_list():
            return
        self.prev.next = self.next
        self.next.prev = self.prev
        self.prev = self.next = None
        self.owning_block = None

    def is_before(self, other: Node) -> bool:
        return self._compare(other) < 0

    def is_after(self, other: Node) -> bool:
        return self._compare(other) > 0

    def _compare(self, other: Node) -> int:
        """Order of two nodes in the program, comparing their ancestors in a common block."""
        lhs: Node | None = self
        while lhs is not None:
            rhs: Node | None = other
            while rhs is not None and rhs.owning_block is not None:
                if lhs.owning_block is rhs.owning_block:
                    return (lhs._topo > rhs._topo) - (lhs._topo < rhs._topo)
                rhs = rhs.owning_block.owning_node
            if lhs.owning_block is None:
                break
            lhs = lhs.owning_block.owning_node
        raise IRError(f"{self.kind} and {other.kind} are not in one graph")

    def destroy(self) -> None:
        """Remove the node from its block; refuses while any output is still read."""
        for out in self._outputs:
            if out.uses:
                users = ", ".join(sorted({str(u.user.kind) for u in out.uses}))
                raise IRError(f"cannot destroy {self.kind}: output %{out.debug_name} is still "
                              f"used by {users}\n{self}")
        self.remove_all_inputs()
        for block in self._blocks:
            block._destroy()
        self._blocks.clear()
        for out in self._outputs:
            self.graph._names.release(out)
        self._remove_from_list()

    # -- queries ------------------------------------------------------------------------------

    def matches(self, schema: str) -> bool:
        """Does this node's kind and input types fit the operator signature ``schema``?"""
        from .schema import parse_schema

        return parse_schema(schema).matches(self)

    @property
    def schema(self):
        """The registered schema this node matches, or ``None``."""
        registry = _registry
        memo = self._schema_memo
        if (memo is not None and memo[0] == registry.version and memo[1] is self.kind
                and len(memo[2]) == len(self._inputs)
                and all(t is v.type for t, v in zip(memo[2], self._inputs))):
            return memo[3]
        schema = registry.find(self)
        self._schema_memo = (registry.version, self.kind,
                             tuple(v.type for v in self._inputs), schema)
        return schema

    def copy_location(self, other: Node) -> Node:
        """Take ``other``'s place in the source (its source range, IR text line and
        ``origin``), as a node a pass makes in its stead does; returns this node."""
        self.source_range, self.text_line, self.origin = \
            other.source_range, other.text_line, other.origin
        return self

    @property
    def location(self) -> str:
        """Where the node came from: its source range, else the place of the node a pass made
        it from (``origin``), else its line in the parsed IR text."""
        if self.source_range is not None:
            return str(self.source_range)
        if self.origin is not None:
            return self.origin
        if self.text_line is not None:
            return f"line {self.text_line} of the IR text"
        return "unknown"

    def get_attr_or_input(self, name: str):
        """The input named ``name`` in this node's schema (used by passes that read arguments)."""
        schema = self.schema
        if schema is None:
            raise IRError(f"{self.kind} has no known schema")
        return self._inputs[schema.argument_index(name)]

    def __str__(self) -> str:
        from .printer import print_node

        return print_node(self)

    def __repr__(self) -> str:
        outs = ", ".join(f"%{o.debug_name}" for o in self._outputs)
        ins = ", ".join(f"%{i.debug_name}" for i in self._inputs)
        return f"<Node {outs} = {self.kind}({ins})>"


def _converted(kind: type, value: Any, name: str) -> Any:
    """``kind(value)`` for an attribute, with an ``IRError`` naming it when that fails."""
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError):
        raise IRError(f"attribute {name!r} needs a {kind.__name__}, got "
                      f"{type(value).__name__}") from None
