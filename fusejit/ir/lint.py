"""``lint(graph)``: check every invariant of the IR; the error prints the offending node.

Checked: use-lists match inputs both ways; outputs know their node and offset; each block's linked
list is consistent and its positions increase; every value is defined before its use and visible
in the using block (defined in it or in an enclosing block, before the owning node); ``If`` and
``Loop`` have the arity their semantics need; a node with a subgraph has as many inputs and
outputs as the subgraph (which is linted in turn); debug names are unique in the graph.
"""

from __future__ import annotations

from ..errors import IRError
from .graph import Block, Graph, Node, Value
from .symbols import prim
from .types import BoolType, IntType


def lint(graph: Graph) -> None:
    """Raise ``IRError`` naming the broken invariant and printing the node that breaks it."""
    _Linter(graph).run()


class _Linter:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.seen_values: set[int] = set()

    def fail(self, message: str, node: Node | None = None) -> IRError:
        where = f"\n  at: {node}" if node is not None and node.kind not in (
            prim.Param, prim.Return) else ""
        error = IRError(f"lint: {message}{where}")
        error.node = node
        return error

    def run(self) -> None:
        visible: set[int] = set()
        self.check_block(self.graph.block, visible)
        names = self.graph._names.owner
        for name, value in names.items():
            if value._name != name:
                raise self.fail(f"name table maps {name!r} to a value now called "
                                f"%{value.debug_name}")

    def define(self, value: Value, node: Node, offset: int, visible: set[int]) -> None:
        if value.node is not node or value.offset != offset:
            raise self.fail(f"output {offset} (%{value.debug_name}) does not point back to its "
                            f"node", node)
        if value.graph is not self.graph:
            raise self.fail(f"%{value.debug_name} belongs to another graph", node)
        if id(value) in self.seen_values:
            raise self.fail(f"%{value.debug_name} is defined twice", node)
        self.seen_values.add(id(value))
        visible.add(id(value))
        for use in value.uses:
            user = use.user
            if use.offset >= len(user._inputs) or user._inputs[use.offset] is not value:
                raise self.fail(f"%{value.debug_name} lists a use by {user.kind} at input "
                                f"{use.offset} that does not read it", node)

    def check_inputs(self, node: Node, visible: set[int]) -> None:
        for i, value in enumerate(node._inputs):
            if id(value) not in visible:
                raise self.fail(f"input {i} (%{value.debug_name}) is not defined before this "
                                f"use or not visible in this block", node)
            if sum(1 for u in value.uses if u.user is node and u.offset == i) != 1:
                raise self.fail(f"use-list of %{value.debug_name} does not record input {i}",
                                node)

    def check_block(self, block: Block, visible: set[int]) -> None:
        owners = (block.param_node.owning_block, block.return_node.owning_block)
        if owners[0] is not block or owners[1] is not block:
            raise self.fail("a block's Param/Return node does not belong to it")
        for i, value in enumerate(block.inputs):
            self.define(value, block.param_node, i, visible)
        local = set(visible)
        previous = block.param_node
        for node in block.nodes():
            if node.prev is not previous or previous.next is not node:
                raise self.fail("node list links are broken", node)
            if node.owning_block is not block:
                raise self.fail("node's owning block is wrong", node)
            if node._topo <= previous._topo:
                raise self.fail("node positions are not increasing", node)
            if node.graph is not self.graph:
                raise self.fail("node belongs to another graph", node)
            self.check_inputs(node, local)
            self.check_node(node)
            for sub in node.blocks:
                if sub.owning_node is not node:
                    raise self.fail("a block does not point back to its node", node)
                self.check_block(sub, set(local))
            for i, value in enumerate(node._outputs):
                self.define(value, node, i, local)
            previous = node
        if block.return_node.prev is not previous:
            raise self.fail("node list does not end at the block's Return node")
        self.check_inputs(block.return_node, local)

    def check_node(self, node: Node) -> None:
        kind, n_in, n_out = node.kind, len(node._inputs), len(node._outputs)
        if kind == prim.If:
            if n_in != 1 or len(node.blocks) != 2:
                raise self.fail("prim::If needs one condition input and two blocks", node)
            if not isinstance(node._inputs[0].type, BoolType):
                raise self.fail("prim::If condition is not a bool", node)
            for block in node.blocks:
                if block.inputs or len(block.outputs) != n_out:
                    raise self.fail(f"prim::If blocks must take no inputs and return {n_out} "
                                    f"values", node)
        elif kind == prim.Loop:
            if n_in < 2 or len(node.blocks) != 1:
                raise self.fail("prim::Loop needs (max trip count, condition, carried...) and "
                                "one block", node)
            carried = n_in - 2
            body = node.blocks[0]
            if n_out != carried or len(body.inputs) != carried + 1 or len(
                    body.outputs) != carried + 1:
                raise self.fail(f"prim::Loop carries {carried} values: it needs {carried} "
                                f"outputs, {carried + 1} block inputs and {carried + 1} block "
                                f"outputs", node)
            if not isinstance(node._inputs[0].type, IntType):
                raise self.fail("prim::Loop max trip count is not an int", node)
        elif kind == prim.Constant:
            if n_in or n_out != 1:
                raise self.fail("prim::Constant takes no inputs and has one output", node)
        elif node.blocks:
            raise self.fail(f"{kind} may not have blocks", node)
        if node.has_attribute("Subgraph") and node.kind_of("Subgraph") == "g":
            sub = node.g("Subgraph")
            if len(sub.inputs) != n_in or len(sub.outputs) != n_out:
                raise self.fail(f"{kind} has {n_in} inputs and {n_out} outputs but its subgraph "
                                f"takes {len(sub.inputs)} and returns {len(sub.outputs)}", node)
            try:
                lint(sub)
            except IRError as exc:
                raise self.fail(f"in the subgraph of {kind}: {exc}", node) from None
