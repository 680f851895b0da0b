"""Constant pooling (PyTorch's ``ConstantPooling``): one ``prim::Constant`` per distinct value,
hoisted to the top of the graph.

::

    graph(%x : Tensor):                          graph(%x : Tensor):
      %a : int = prim::Constant[value=1]()         %b : int = prim::Constant[value=1]()
      %y : Tensor = aten::add(%x, %x, %a)  ==>     %y : Tensor = aten::add(%x, %x, %b)
      %b : int = prim::Constant[value=1]()         %z : Tensor = aten::add(%y, %y, %b)
      %z : Tensor = aten::add(%y, %y, %b)          return (%z)
      return (%z)

Constants are visited in program order (nested blocks included); the first of each value is
moved in front of the graph's current first node, so the surviving constants end up at the top
in reverse order of first appearance, as in PyTorch. A duplicate is replaced by the survivor.
"""

from __future__ import annotations

from ..ir.graph import Block, Graph
from ..ir.symbols import prim
from .common_subexpression_elimination import attributes_key
from .pass_checks import graph_pass

__all__ = ["constant_pooling"]


@graph_pass
def constant_pooling(graph: Graph) -> None:
    """Deduplicate constants and move them to the start of ``graph``."""
    _pool_block(graph, graph.block, {})


def _pool_block(graph: Graph, block: Block, seen: dict) -> None:
    for node in block.nodes():
        if node.blocks:
            for sub in node.blocks:
                _pool_block(graph, sub, seen)
            continue
        if node.kind != prim.Constant:
            continue
        key = (attributes_key(node), str(node.output().type))
        existing = seen.get(key)
        if existing is not None:
            node.output().replace_all_uses_with(existing.output())
            node.destroy()
            continue
        seen[key] = node
        first = next(graph.block.nodes())
        if first is not node:
            node.move_before(first)
