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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import IRError
from .limits import check_depth
from .node import Node
from .symbols import prim
from .types import TENSOR, Type
from .values import ElidedTensor, SourceRange, Use, Value, _NameTable

__all__ = ["Block", "ElidedTensor", "Graph", "Node", "SourceRange", "Use", "Value"]

_SPACING = 1 << 20


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
        elif node.prev is self.param_node and low + _SPACING < high:
            # Prepending (as the fuser does into subgraphs) must not halve one gap each time.
            node._topo = high - _SPACING
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
        if copy_blocks and node._blocks:
            check_depth(node)  # clone_from recurses once per level
        new = Node(self, node.kind)
        new.copy_attributes(node)
        new.copy_location(node)
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
        check_depth(self)  # copying recurses once per level of blocks and subgraphs
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

    def _repr_html_(self) -> str:
        from ..display import graph_html

        return graph_html(self)

    def _repr_svg_(self) -> str | None:
        from ..display import graph_svg

        return graph_svg(self)


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
