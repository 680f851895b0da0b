"""Shape expressions for fusion groups (part of PyTorch's ``graph_fuser.cpp``).

A fused kernel computes intermediates that the rest of the graph may still ask the size of.
Rather than keep such an intermediate as a group output only for ``aten::size``, the fuser
rebuilds its size from the sizes of the group inputs::

    %d : Tensor, %c : Tensor = prim::FusionGroup_0(%y, %x)      # %c only feeds aten::size
    %s : int[] = aten::size(%c)
  ==>
    %d : Tensor = prim::FusionGroup_0(%y, %x)
    %sx : int[] = aten::size(%x)
    %r : int[], %l : int[] = prim::ChunkSizes[dim=1, chunks=2](%sx)
    %s : int[] = prim::BroadcastSizes(%r, %l)

``peephole_optimize_shape_expressions`` then removes one-input broadcasts, deduplicates inputs
and merges chains of ``prim::BroadcastSizes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.graph import Block, Graph, Node, Value
from ..ir.schema import parse_schema
from ..ir.symbols import aten, prim
from ..ir.types import INT, ListType, TensorType
from .pass_checks import graph_pass

if TYPE_CHECKING:
    from .graph_fuser import GraphFuser

__all__ = ["broadcast_sizes", "peephole_optimize_shape_expressions"]

INT_LIST = ListType(INT)
_SIZE = parse_schema("aten::size(Tensor self) -> int[]")


def calculates_size(node: Node) -> bool:
    return _SIZE.matches(node)


def used_only_in_size(v: Value) -> bool:
    return all(calculates_size(u.user) for u in v.uses)


def insert_size(graph: Graph, v: Value) -> Value:
    out = graph.insert(aten.size, [v]).output()
    return out.set_type(INT_LIST)


def broadcast_sizes(sizes: list[Value]) -> Value:
    """Insert ``prim::BroadcastSizes(sizes...)`` at the graph's insert point."""
    graph = sizes[0].graph
    return graph.insert(prim.BroadcastSizes, sizes).output().set_type(INT_LIST)


def build_shape_expressions(fuser: GraphFuser, group: Node) -> dict[Value, Value]:
    """Map each subgraph value to an outer ``int[]`` value computing its size."""
    graph = group.graph
    subgraph = group.g("Subgraph")
    shape_of: dict[Value, Value] = {}
    with graph.inserting_before(group.next):
        for outer, inner in zip(group.inputs, subgraph.inputs):
            if isinstance(outer.type, TensorType):
                shape_of[inner] = insert_size(graph, outer)
        # An output that stays (it has non-size uses) gives its size directly, which saves
        # a chain of broadcasts from the kernel's start.
        for outer, inner in zip(group.outputs, subgraph.outputs):
            if not used_only_in_size(outer):
                shape_of[inner] = insert_size(graph, outer)
        for n in subgraph.nodes():
            # Output shapes known above take precedence (setdefault), as in PyTorch.
            if n.kind in (prim.FusedConcat, prim.Constant):
                continue
            if n.kind == prim.ConstantChunk:
                sizes = graph.insert(prim.ChunkSizes, [shape_of[n.input()]], 2)
                sizes.i_("dim", n.i("dim"))
                sizes.i_("chunks", n.i("chunks"))
                regular, last = (o.set_type(INT_LIST) for o in sizes.outputs)
                for o in n.outputs[:-1]:
                    shape_of.setdefault(o, regular)
                shape_of.setdefault(n.outputs[-1], last)
                continue
            shapes = [shape_of.get(v) for v in n.inputs if isinstance(v.type, TensorType)]
            if not shapes or None in shapes:
                # No shape expression (an input computed by a FusedConcat, which can only be
                # inside a group given to the fuser already fused): the outputs that depend
                # on it stay outputs.
                continue
            shape_of.setdefault(n.output(),
                                shapes[0] if len(shapes) == 1 else broadcast_sizes(shapes))
    return shape_of


def remove_outputs_used_only_in_size(fuser: GraphFuser, group: Node) -> None:
    """Drop group outputs read only by ``aten::size``; compute those sizes outside instead."""
    if group.kind != prim.FusionGroup or group.has_attribute("written_into"):
        return    # (a group writing into its input keeps its one output, read or not)
    subgraph = group.g("Subgraph")
    shape_of = build_shape_expressions(fuser, group)
    outputs, soutputs = group.outputs, subgraph.outputs
    # Back to front, so that index i stays the true position of outputs[i].
    for i in reversed(range(len(outputs))):
        if used_only_in_size(outputs[i]) and soutputs[i] in shape_of:
            for use in list(outputs[i].uses):
                use.user.output().replace_all_uses_with(shape_of[soutputs[i]])
                use.user.destroy()
            group.erase_output(i)
            subgraph.erase_output(i)


@graph_pass
def peephole_optimize_shape_expressions(graph_or_block: Graph | Block) -> None:
    """Simplify ``prim::BroadcastSizes``: drop no-op ones, deduplicate inputs, merge chains."""
    _peephole_block(graph_or_block.block if isinstance(graph_or_block, Graph) else graph_or_block)


def _peephole_block(block: Block) -> None:
    node = block.param_node.next
    while node is not block.return_node:
        for sub in node.blocks:
            _peephole_block(sub)
        following = node.next
        if node.kind != prim.BroadcastSizes:
            node = following
            continue
        inputs = node.inputs
        if len(inputs) == 1:
            node.output().replace_all_uses_with(inputs[0])
            node.destroy()
            node = following
            continue
        # Deduplicate by unique number, so the result depends only on the graph.
        by_unique: dict[int, Value] = {}
        for v in inputs:
            by_unique.setdefault(v.unique, v)
        if len(by_unique) != len(inputs):
            kept = [by_unique[k] for k in sorted(by_unique)]
            revisit = node.prev
            if len(kept) == 1:
                node.output().replace_all_uses_with(kept[0])
            else:
                with node.graph.inserting_before(node):
                    node.output().replace_all_uses_with(broadcast_sizes(kept))
                revisit = node.prev
            node.destroy()
            node = revisit if revisit is not block.param_node else block.param_node.next
            continue
        uses = node.output().uses
        if len(uses) == 1 and uses[0].user.kind == prim.BroadcastSizes:
            user, offset = uses[0].user, uses[0].offset
            user.remove_input(offset)
            for v in inputs:
                user.add_input(v)
            node.destroy()
        node = following
