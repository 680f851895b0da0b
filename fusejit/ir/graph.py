"""TorchScript's graph model: ``Graph``, ``Block``, ``Node``, ``Value`` and ``Use``.

A ``Graph`` owns a top ``Block``. A block is an ordered list of nodes framed by a ``prim::Param``
node (whose outputs are the block's inputs) and a ``prim::Return`` node (whose inputs are the
block's outputs). Nodes have a kind, input and output values, sub-blocks and typed attributes::

    graph(%x : Float(3, 4), %n : int):
      %y : Float(3, 4) = aten::exp(%x)          # Node(kind=aten::exp, inputs=[%x], outputs=[%y])
      %z : Float(3, 4) = prim::If(%c)           # a node with two blocks
        block0():
          -> (%y)
        block1():
          -> (%x)
      return (%z)

The containers own the use-lists: every mutation goes through a method here, so ``value.uses``
is always exactly the set of ``(node, input offset)`` pairs that read the value. Node order inside a
block is a linked list with sparse integer positions, so ``is_before`` / ``is_after`` are O(1) for
nodes of one block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import IRError
from .symbols import Symbol, prim
from .types import TENSOR, TensorType, Type

_SPACING = 1 << 20
_NUMBER = re.compile(r"^[0-9]+$")


class Use:
    """One read of a value: input ``offset`` of node ``user``."""

    __slots__ = ("user", "offset")

    def __init__(self, user: Node, offset: int):
        self.user = user
        self.offset = offset

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Use) and self.user is other.user and self.offset == other.offset

    def __hash__(self) -> int:
        return hash((id(self.user), self.offset))

    def __repr__(self) -> str:
        return f"Use({self.user.kind}, {self.offset})"


class SourceRange:
    """Where a node came from: ``file:line:col`` as printed after ``#`` in the IR text."""

    __slots__ = ("file", "line", "col")

    def __init__(self, file: str, line: int = 0, col: int = 0):
        self.file = file
        self.line = line
        self.col = col

    @classmethod
    def parse(cls, text: str) -> SourceRange:
        match = re.match(r"^(.*):(\d+):(\d+)$", text)
        if match:
            return cls(match.group(1), int(match.group(2)), int(match.group(3)))
        return cls(text)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" if self.line else self.file

    def __repr__(self) -> str:
        return f"SourceRange({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceRange) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class ElidedTensor:
    """A tensor constant whose values the text did not show (printed as ``<Tensor>``)."""

    __slots__ = ("type",)

    def __init__(self, type: TensorType):
        self.type = type

    def __repr__(self) -> str:
        return f"ElidedTensor({self.type})"


class Value:
    """An SSA value: output ``offset`` of ``node`` (block inputs are outputs of a Param node)."""

    __slots__ = ("node", "offset", "type", "uses", "_unique", "_name")

    def __init__(self, node: Node, offset: int, type: Type):
        self.node = node
        self.offset = offset
        self.type = type
        self.uses: list[Use] = []
        self._unique = node.graph._next_unique()
        self._name: str | None = None

    @property
    def graph(self) -> Graph:
        return self.node.graph

    @property
    def unique(self) -> int:
        return self._unique

    @property
    def debug_name(self) -> str:
        """The printed name without ``%``: the debug name if set, else the unique number."""
        return self._name if self._name is not None else str(self._unique)

    def has_debug_name(self) -> bool:
        return self._name is not None

    def set_debug_name(self, name: str | None) -> Value:
        """Name the value; a name another value holds is taken over, the other gets ``name.N``."""
        self.graph._names.rename(self, name)
        return self

    def set_type(self, type: Type) -> Value:
        self.type = type
        return self

    def has_uses(self) -> bool:
        return bool(self.uses)

    def replace_first_use_with(self, new: Value) -> None:
        use = self.uses[0]
        use.user.replace_input(use.offset, new)

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every reader of this value read ``new`` instead."""
        if new is self:
            return
        while self.uses:
            self.replace_first_use_with(new)

    def replace_all_uses_after_node_with(self, node: Node, new: Value) -> None:
        """Redirect only the uses that come after ``node`` in program order."""
        for use in list(self.uses):
            if use.user.is_after(node):
                use.user.replace_input(use.offset, new)

    def copy_metadata(self, other: Value) -> Value:
        self.type = other.type
        if other.has_debug_name():
            self.set_debug_name(other.debug_name)
        return self

    def __repr__(self) -> str:
        return f"%{self.debug_name}"


class _NameTable:
    """Debug names of one graph, uniqued as TorchScript does (``x``, then ``x.1``, ``x.2``...)."""

    def __init__(self):
        self.owner: dict[str, Value] = {}
        self.next_suffix: dict[str, int] = {}

    def rename(self, value: Value, name: str | None) -> None:
        if name is not None and name != "" and _NUMBER.match(name):
            raise IRError(f"debug names may not be plain numbers: {name!r}")
        if value._name is not None:
            del self.owner[value._name]
            value._name = None
        if not name:
            return
        previous = self.owner.get(name)
        if previous is not None:
            self.rename(previous, self._fresh_variant(name))
        self.owner[name] = value
        value._name = name

    def _fresh_variant(self, name: str) -> str:
        base, suffix = name, 1
        head, dot, tail = name.rpartition(".")
        if dot and tail.isdigit() and head:
            base, suffix = head, int(tail)
        suffix = max(suffix, self.next_suffix.get(base, 0))
        while f"{base}.{suffix}" in self.owner:
            suffix += 1
        self.next_suffix[base] = suffix + 1
        return f"{base}.{suffix}"

    def release(self, value: Value) -> None:
        if value._name is not None and self.owner.get(value._name) is value:
            del self.owner[value._name]


class Node:
    """An operation: ``outputs = kind[attributes](inputs)`` plus optional sub-blocks."""

    __slots__ = ("kind", "graph", "owning_block", "prev", "next", "_topo", "_inputs",
                 "_outputs", "_blocks", "_attrs", "_attr_text", "source_range", "__weakref__")

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
        block = Block(self.graph, self)
        self._blocks.append(block)
        return block

    def erase_block(self, i: int) -> None:
        self._blocks[i]._destroy()
        del self._blocks[i]

    # -- attributes ---------------------------------------------------------------------------

    def set_attr(self, name: str, kind: str, value: Any) -> Node:
        """Set attribute ``name`` (no ``attr::``) of kind ``i f s is fs ss t g ival ...``."""
        if kind == "t" and isinstance(value, np.ndarray):
            value = value.copy()
            value.flags.writeable = False
        self._attrs[name] = (kind, value)
        self._attr_text.pop(name, None)
        return self

    def i_(self, name: str, v: int) -> Node:
        return self.set_attr(name, "i", int(v))

    def f_(self, name: str, v: float) -> Node:
        return self.set_attr(name, "f", float(v))

    def s_(self, name: str, v: str) -> Node:
        return self.set_attr(name, "s", str(v))

    def is__(self, name: str, v: list[int]) -> Node:
        return self.set_attr(name, "is", [int(x) for x in v])

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
        return self._attrs[name][0]

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
        from .schema import registry

        return registry.find(self)

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


class Block:
    """Ordered nodes with inputs (Param node outputs) and outputs (Return node inputs)."""

    __slots__ = ("graph", "owning_node", "param_node", "return_node")

    def __init__(self, graph: Graph, owning_node: Node | None):
        self.graph = graph
        self.owning_node = owning_node
        self.param_node = Node(graph, prim.Param)
        self.return_node = Node(graph, prim.Return)
        for sentinel in (self.param_node, self.return_node):
            sentinel.owning_block = self
        self.param_node.next = self.return_node
        self.return_node.prev = self.param_node
        self.param_node._topo = -(1 << 62)
        self.return_node._topo = 1 << 62
        # A circular list, so that the sentinels satisfy in_block_list.
        self.param_node.prev = self.return_node
        self.return_node.next = self.param_node

    @property
    def inputs(self) -> tuple[Value, ...]:
        return self.param_node.outputs

    @property
    def outputs(self) -> tuple[Value, ...]:
        return self.return_node.inputs

    def nodes(self) -> Iterator[Node]:
        """The block's nodes in order; safe against destroying the node just yielded."""
        node = self.param_node.next
        while node is not self.return_node:
            following = node.next
            yield node
            node = following

    def reverse_nodes(self) -> Iterator[Node]:
        node = self.return_node.prev
        while node is not self.param_node:
            preceding = node.prev
            yield node
            node = preceding

    def add_input(self, name: str | None = None, type: Type = TENSOR) -> Value:
        value = self.param_node.add_output(type)
        if name:
            value.set_debug_name(name)
        return value

    def insert_input(self, i: int, name: str | None = None, type: Type = TENSOR) -> Value:
        value = self.param_node.insert_output(i, type)
        if name:
            value.set_debug_name(name)
        return value

    def erase_input(self, i: int) -> None:
        self.param_node.erase_output(i)

    def register_output(self, value: Value) -> int:
        self.return_node.add_input(value)
        return len(self.return_node._inputs) - 1

    def insert_output(self, i: int, value: Value) -> None:
        self.return_node.insert_input(i, value)

    def erase_output(self, i: int) -> None:
        self.return_node.remove_input(i)

    def append_node(self, node: Node) -> Node:
        return node.insert_before(self.return_node)

    def prepend_node(self, node: Node) -> Node:
        return node.insert_after(self.param_node)

    def _assign_topo(self, node: Node) -> None:
        low, high = node.prev._topo, node.next._topo
        if node.next is self.return_node and low + _SPACING < high:
            node._topo = low + _SPACING
        elif high - low >= 2:
            node._topo = (low + high) // 2
        else:
            self._reindex()

    def _reindex(self) -> None:
        for position, node in enumerate(self.nodes()):
            node._topo = position * _SPACING

    def _destroy(self) -> None:
        self.return_node.remove_all_inputs()
        for node in list(self.reverse_nodes()):
            node.destroy()
        for value in self.param_node._outputs:
            if value.uses:
                raise IRError(f"cannot destroy a block whose input %{value.debug_name} is used")
            self.graph._names.release(value)

    def clone_from(self, src: Block, value_map: Callable[[Value], Value]) -> None:
        """Fill this empty block with copies of ``src``'s nodes; others via ``value_map``."""
        local: dict[Value, Value] = {}

        def env(v: Value) -> Value:
            return local[v] if v in local else value_map(v)

        for old in src.inputs:
            local[old] = self.add_input(type=old.type).copy_metadata(old)
        for node in src.nodes():
            new = self.graph.create_clone(node, env)
            self.append_node(new)
            for old_out, new_out in zip(node.outputs, new.outputs):
                local[old_out] = new_out
        for out in src.outputs:
            self.register_output(env(out))

    def __repr__(self) -> str:
        return f"<Block of {self.owning_node.kind if self.owning_node else 'graph'}>"


class Graph:
    """A TorchScript graph: one top block, a name table, and an insertion point for new nodes."""

    def __init__(self):
        self._unique_counter = 0
        self._names = _NameTable()
        self.block = Block(self, None)
        self._insert_before: Node = self.block.return_node

    def _next_unique(self) -> int:
        value = self._unique_counter
        self._unique_counter += 1
        return value

    def _claim_unique(self, value: Value, number: int) -> None:
        """Give ``value`` the printed number ``number`` (used by the parser for ``%12``)."""
        value._unique = number
        self._unique_counter = max(self._unique_counter, number + 1)

    # -- structure ----------------------------------------------------------------------------

    @property
    def inputs(self) -> tuple[Value, ...]:
        return self.block.inputs

    @property
    def outputs(self) -> tuple[Value, ...]:
        return self.block.outputs

    @property
    def param_node(self) -> Node:
        return self.block.param_node

    @property
    def return_node(self) -> Node:
        return self.block.return_node

    def nodes(self) -> Iterator[Node]:
        return self.block.nodes()

    def all_nodes(self) -> Iterator[Node]:
        """Every node of every block, depth first in program order."""
        stack = [self.block.nodes()]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            yield node
            stack.extend(reversed([b.nodes() for b in node.blocks]))

    def add_input(self, name: str | None = None, type: Type = TENSOR) -> Value:
        return self.block.add_input(name, type)

    def insert_input(self, i: int, name: str | None = None, type: Type = TENSOR) -> Value:
        return self.block.insert_input(i, name, type)

    def erase_input(self, i: int) -> None:
        self.block.erase_input(i)

    def register_output(self, value: Value) -> int:
        return self.block.register_output(value)

    def erase_output(self, i: int) -> None:
        self.block.erase_output(i)

    # -- creating nodes -----------------------------------------------------------------------

    def create(self, kind: str, inputs: list[Value] | tuple[Value, ...] = (),
               num_outputs: int = 1) -> Node:
        """A new node, not yet in any block (``insert_node`` or ``insert_before`` places it)."""
        node = Node(self, kind)
        for value in inputs:
            node.add_input(value)
        for _ in range(num_outputs):
            node.add_output()
        return node

    @property
    def insert_point(self) -> Node:
        """New nodes made by ``insert`` go just before this node."""
        return self._insert_before

    def set_insert_point(self, where: Node | Block) -> None:
        self._insert_before = where.return_node if isinstance(where, Block) else where

    @contextmanager
    def inserting_before(self, where: Node | Block):
        """``with graph.inserting_before(node):`` new nodes go before ``node`` (or block end)."""
        saved = self._insert_before
        self.set_insert_point(where)
        try:
            yield
        finally:
            self._insert_before = saved

    @contextmanager
    def inserting_after(self, node: Node):
        with self.inserting_before(node.next):
            yield

    def insert_node(self, node: Node) -> Node:
        return node.insert_before(self._insert_before)

    def insert(self, kind: str, inputs: list[Value] | tuple[Value, ...] = (),
               num_outputs: int = 1) -> Node:
        return self.insert_node(self.create(kind, inputs, num_outputs))

    def create_constant(self, value: Any, type: Type | None = None) -> Node:
        """A ``prim::Constant`` node for ``value`` with TorchScript's attribute conventions."""
        from .constants import make_constant

        return make_constant(self, value, type)

    def insert_constant(self, value: Any, type: Type | None = None) -> Value:
        return self.insert_node(self.create_constant(value, type)).output()

    def create_clone(self, node: Node, value_map: Callable[[Value], Value],
                     copy_blocks: bool = True) -> Node:
        """A copy of ``node`` (from any graph) whose inputs are ``value_map`` of the originals."""
        new = Node(self, node.kind)
        new.copy_attributes(node)
        new.source_range = node.source_range
        for value in node.inputs:
            new.add_input(value_map(value))
        for out in node.outputs:
            new.add_output(out.type).copy_metadata(out)
        if copy_blocks:
            for block in node.blocks:
                new.add_block().clone_from(block, value_map)
        return new

    def create_with_subgraph(self, kind: str) -> Node:
        """A node (a fusion group) carrying an empty subgraph in attribute ``Subgraph``."""
        node = Node(self, kind)
        node.g_("Subgraph", Graph())
        return node

    def copy(self) -> Graph:
        """A deep copy: new nodes, new values, copied subgraphs; names and numbers kept."""
        new = Graph()
        env: dict[Value, Value] = {}

        def lookup(v: Value) -> Value:
            try:
                return env[v]
            except KeyError:
                raise IRError(f"%{v.debug_name} is used before it is defined") from None

        for old in self.inputs:
            env[old] = new.add_input(type=old.type).copy_metadata(old)
        _clone_block_body(self.block, new.block, env, lookup)
        _copy_numbers(self, new)
        return new

    # -- printing and checking ----------------------------------------------------------------

    def __str__(self) -> str:
        from .printer import print_graph

        return print_graph(self)

    def lint(self) -> None:
        from .lint import lint

        lint(self)


def _clone_block_body(src: Block, dst: Block, env: dict[Value, Value],
                      lookup: Callable[[Value], Value]) -> None:
    for node in src.nodes():
        new = dst.graph.create_clone(node, lookup, copy_blocks=False)
        dst.append_node(new)
        for old_out, new_out in zip(node.outputs, new.outputs):
            env[old_out] = new_out
        for block in node.blocks:
            new_block = new.add_block()
            for old in block.inputs:
                env[old] = new_block.add_input(type=old.type).copy_metadata(old)
            _clone_block_body(block, new_block, env, lookup)
    for out in src.outputs:
        dst.register_output(lookup(out))


def _copy_numbers(src: Graph, dst: Graph) -> None:
    """Give the copy's values the same printed numbers as the original's."""
    pairs = zip(_all_values(src), _all_values(dst))
    for old, new in pairs:
        new._unique = old._unique
    dst._unique_counter = max(dst._unique_counter, src._unique_counter)


def _all_values(graph: Graph) -> Iterator[Value]:
    yield from graph.inputs
    for node in graph.all_nodes():
        for block in node.blocks:
            yield from block.inputs
        yield from node.outputs
