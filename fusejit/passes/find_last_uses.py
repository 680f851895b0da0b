"""Find each value's last use, so the interpreter moves instead of copying (interpreter.cpp).

The result maps every node (including each block's ``prim::Return``) to one flag per input: true
where that input is the value's last use, so the interpreter may free the register. A use nested
in an If or Loop is never a last use, since a loop body runs again and an If's other branch may
not read the value at all; instead a ``prim::Drop`` is inserted right after the If/Loop at the
value's own depth, and the value is freed there::

    %a = aten::exp(%x)                        %a = aten::exp(move(%x))
    %y = prim::Loop(%c, %x0)           ==>    %y = prim::Loop(%c, move(%x0))
      block0(%z):                               block0(%z):
        %w = aten::add(%z, %a)                    %w = aten::add(move(%z), %a)
        -> (%t, %w)                               -> (%t, move(%w))
                                              prim::Drop(move(%a))

Scanning runs backwards, so the first use met is the last one executed; a value read twice by
one node is moved only at its later operand.
"""

from __future__ import annotations

from ..errors import IRError
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from .pass_checks import lowering_pass

MoveFlags = dict[Node, list[bool]]


class _FindLastUses:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.seen: set[Value] = set()
        self.move_flags: MoveFlags = {}
        # If/Loop node -> the Drop placed right after it, created on demand.
        self.drop_for_node: dict[Node, Node] = {}
        self.scan_block(graph.block)

    def scan_block(self, block: Block) -> None:
        self.scan_node(block.return_node)
        for node in list(block.reverse_nodes()):
            self.scan_node(node)

    def scan_node(self, node: Node) -> None:
        for block in node.blocks:
            self.scan_block(block)
        flags = self.move_flags.setdefault(node, [])
        flags.extend([False] * (len(node.inputs) - len(flags)))
        for i in reversed(range(len(node.inputs))):
            self.scan_use(node, i)

    def scan_use(self, node: Node, i: int) -> None:
        flags = self.move_flags[node]
        value = node.input(i)
        if value in self.seen:
            flags[i] = False
            return
        self.seen.add(value)
        same_depth = self.find_owner_in_block(node, value.node.owning_block)
        if same_depth is None:
            raise IRError(f"%{value.debug_name} is used by {node.kind} outside its scope "
                          f"(run lint): {str(node).strip()}")
        if same_depth is node:
            flags[i] = True
            return
        flags[i] = False
        self.add_to_drop_if_not_exists(self.find_or_create_drop_for(same_depth), value)

    @staticmethod
    def find_owner_in_block(node: Node | None, block: Block | None) -> Node | None:
        """The node of ``block`` that is ``node`` or (transitively) holds it in a sub-block."""
        while node is not None and node.owning_block is not block:
            owner = node.owning_block.owning_node if node.owning_block is not None else None
            node = owner
        return node

    def find_or_create_drop_for(self, node: Node) -> Node:
        drop = self.drop_for_node.get(node)
        if drop is None:
            drop = self.graph.create(prim.Drop, (), 0)
            drop.insert_after(node)
            self.drop_for_node[node] = drop
            self.move_flags[drop] = []
        return drop

    def add_to_drop_if_not_exists(self, drop: Node, value: Value) -> None:
        if any(v is value for v in drop.inputs):
            return
        drop.add_input(value)
        self.move_flags[drop].append(True)


@lowering_pass
def find_last_uses(graph: Graph) -> MoveFlags:
    """Insert Drops after If/Loop nodes as needed and return the move flags of every node."""
    return _FindLastUses(graph).move_flags
