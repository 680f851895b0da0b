"""Insert ``prim::Drop`` nodes for values nobody reads (interpreter.cpp).

A value with no use would otherwise stay alive in its register until the run ends; a Drop gives
it a last use, where the interpreter frees it::

    %a, %b = prim::ConstantChunk[chunks=2, dim=0](%x)       %a, %b = prim::ConstantChunk[...](%x)
    return (%a)                                       ==>   prim::Drop(%b)
                                                            return (%a)

Unused block inputs (say an unused loop counter) get a Drop at the start of their block.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from .pass_checks import lowering_pass


def _drop_if_unused(block: Block, values: Sequence[Value]) -> Node | None:
    unused = [v for v in values if not v.uses]
    if not unused:
        return None
    return block.graph.create(prim.Drop, unused, 0)


def _drop_unused_in(block: Block) -> None:
    drop = _drop_if_unused(block, block.inputs)
    if drop is not None:
        block.prepend_node(drop)
    for node in list(block.nodes()):
        drop = _drop_if_unused(block, node.outputs)
        if drop is not None:
            drop.insert_after(node)
        for sub in node.blocks:
            _drop_unused_in(sub)


@lowering_pass
def drop_unused(graph: Graph) -> None:
    """Give every unused value (block inputs, node outputs, nested blocks too) a ``prim::Drop``."""
    _drop_unused_in(graph.block)
