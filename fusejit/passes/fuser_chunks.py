"""Chunk handling in the graph fuser (part of PyTorch's ``graph_fuser.cpp``).

*Chunk motion.* A pointwise producer in front of a chunk is pushed past it, so that it can join
the consumers' group. ``prim::BroadcastingChunk(x, y)`` broadcasts its inputs together, then
chunks each the same way; it lets several producers move one after another::

    %z = aten::add(%x, %y, %one)
    %a, %b = prim::ConstantChunk[chunks=2, dim=1](%z)
  ==>
    %x0, %x1, %y0, %y1 = prim::BroadcastingChunk[chunks=2, dim=1](%x, %y)
    %a = aten::add(%x0, %y0, %one)
    %b = aten::add(%x1, %y1, %one)

After fusion, each remaining ``BroadcastingChunk`` becomes explicit ``aten::broadcast_tensors``
plus one ``prim::ConstantChunk`` per input (``replace_intermediate_broadcasting_chunks``).

*Chunk fusion.* A ``prim::ConstantChunk`` whose outputs are read only by one group moves into
it, under two invariants: its tensor input is a group input, and no two chunks in a group share
an input (a second chunk of the same tensor reuses the first one's outputs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.graph import Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import TENSOR, ListType, TensorType
from .fuser_shapes import broadcast_sizes, calculates_size, insert_size

if TYPE_CHECKING:
    from .graph_fuser import GraphFuser

TENSOR_LIST = ListType(TENSOR)


def _is_tensor(v: Value) -> bool:
    return isinstance(v.type, TensorType)


def all_users_are_this_consumer_or_calc_sizes(consumer: Node, producer: Value) -> bool:
    for out in producer.node.outputs:
        for use in out.uses:
            if use.user is not consumer and not calculates_size(use.user):
                return False
    return True


def promote_chunk_to_broadcasting_chunk(chunk: Node) -> Node:
    nchunks = chunk.i("chunks")
    bchunk = chunk.graph.create(prim.BroadcastingChunk, [chunk.input()], nchunks)
    for old, new in zip(chunk.outputs, bchunk.outputs):
        new.copy_metadata(old)
        old.replace_all_uses_with(new)
    bchunk.copy_attributes(chunk)
    bchunk.insert_after(chunk)
    chunk.destroy()
    return bchunk


def try_to_move_chunk(fuser: GraphFuser, consumer: Node, producer: Value) -> bool:
    """Move a fusible producer of a chunk's input past the chunk; True if it did."""
    chunk = producer.node
    if chunk.kind not in (prim.ConstantChunk, prim.BroadcastingChunk):
        return False
    producer_index = None
    for i, candidate in enumerate(chunk.inputs):
        if (fuser.is_fusable_map(candidate.node)
                and all_users_are_this_consumer_or_calc_sizes(chunk, candidate)):
            producer_index = i
            break
    if producer_index is None:
        return False
    for out in chunk.outputs:
        if any(use.user is not consumer for use in out.uses):
            return False
    producer_node = chunk.input(producer_index).node
    if len(producer_node.outputs) != 1:
        return False

    bchunk = chunk
    if chunk.kind == prim.ConstantChunk:
        bchunk = promote_chunk_to_broadcasting_chunk(chunk)
    nchunks = bchunk.i("chunks")
    graph = bchunk.graph
    with graph.inserting_before(bchunk.next):
        producer_chunk_outputs = [bchunk.outputs[nchunks * producer_index + i]
                                  for i in range(nchunks)]
        # chunked_inputs[k][j]: chunk j of the producer's k-th tensor operand.
        chunked_inputs: list[list[Value]] = []
        for operand in producer_node.inputs:
            if not _is_tensor(operand):
                continue
            bchunk_inputs = bchunk.inputs
            if operand in bchunk_inputs:
                at = bchunk_inputs.index(operand)
                chunked_inputs.append([bchunk.outputs[nchunks * at + j]
                                       for j in range(nchunks)])
                continue
            bchunk.add_input(operand)
            chunked_inputs.append([bchunk.add_output(sel.type) for sel in producer_chunk_outputs])
        for sel in producer_chunk_outputs:
            op = graph.create(producer_node.kind)
            op.copy_attributes(producer_node)
            op.output().set_type(sel.type)
            k = 0
            for operand in producer_node.inputs:
                if _is_tensor(operand):
                    op.add_input(chunked_inputs[k][sel.offset % nchunks])
                    k += 1
                else:
                    op.add_input(operand)
            graph.insert_node(op)
            sel.replace_all_uses_with(op.output())
    bchunk.remove_input(producer_index)
    for _ in range(nchunks):
        bchunk.erase_output(nchunks * producer_index)

    # aten::size users of the moved producer now get the broadcast of its operands' sizes,
    # computed right where the producer was.
    size_uses = list(producer_node.output().uses)
    if size_uses:
        with graph.inserting_before(producer_node):
            sizes = [insert_size(graph, v) for v in producer_node.inputs if _is_tensor(v)]
            size = sizes[0] if len(sizes) == 1 else broadcast_sizes(sizes)
        for use in size_uses:
            use.user.output().replace_all_uses_with(size)
            use.user.destroy()
    producer_node.destroy()
    return True


def insert_explicit_broadcast(node: Node) -> None:
    """Replace ``node``'s tensor inputs by the outputs of ``aten::broadcast_tensors`` on them."""
    graph = node.graph
    tensors = [v for v in node.inputs if _is_tensor(v)]
    with graph.inserting_before(node):
        packed = graph.insert(prim.ListConstruct, tensors).output().set_type(TENSOR_LIST)
        broadcast = graph.insert(aten.broadcast_tensors, [packed]).output()
        broadcast.set_type(TENSOR_LIST)
        unpacked = graph.insert(prim.ListUnpack, [broadcast], len(tensors)).outputs
    k = 0
    for i, v in enumerate(node.inputs):
        if _is_tensor(v):
            node.replace_input(i, unpacked[k])
            k += 1


def replace_intermediate_broadcasting_chunks(fuser: GraphFuser) -> None:
    block = fuser.block
    node = block.return_node.prev
    while node is not block.param_node:
        preceding = node.prev
        if node.kind != prim.BroadcastingChunk:
            node = preceding
            continue
        bchunk = node
        insert_explicit_broadcast(bchunk)
        graph = bchunk.graph
        nchunks = bchunk.i("chunks")
        with graph.inserting_before(bchunk.next):
            for offset, operand in enumerate(bchunk.inputs):
                chunk = graph.insert(prim.ConstantChunk, [operand], 0)
                chunk.copy_attributes(bchunk)
                for j in range(nchunks):
                    old = bchunk.outputs[offset * nchunks + j]
                    new = chunk.add_output(old.type).copy_metadata(old)
                    old.replace_all_uses_with(new)
        bchunk.destroy()
        node = preceding


def can_fuse_chunk(consumer: Node, producer: Value) -> bool:
    if consumer.kind != prim.FusionGroup:
        return False
    chunk = producer.node
    if chunk.kind != prim.ConstantChunk:
        return False
    for out in chunk.outputs:
        if any(use.user is not consumer for use in out.uses):
            return False
    # A one-piece chunk is a no-op better removed than fused.
    return chunk.i("chunks") != 1


def find_fused_chunk(fuser: GraphFuser, group: Node, value: Value) -> Node | None:
    inputs = group.inputs
    if value not in inputs:
        return None
    inner = fuser.get_subgraph(group).inputs[inputs.index(value)]
    if inner.uses and inner.uses[0].user.kind == prim.ConstantChunk:
        return inner.uses[0].user
    return None


def fuse_chunk_by_reusing_existing_fused_chunk(fuser: GraphFuser, group: Node, chunk: Node,
                                               existing: Node) -> None:
    if len(chunk.outputs) != len(existing.outputs):
        return
    subgraph = fuser.get_subgraph(group)
    for replacement, value in zip(existing.outputs, chunk.outputs):
        if value not in group.inputs:
            # A piece nothing uses (can_fuse_chunk: every use is the group's): nothing to
            # rewrite. PyTorch's loop indexes past the inputs here and throws.
            continue
        index = group.inputs.index(value)
        subgraph.inputs[index].replace_all_uses_with(replacement)
        group.remove_input(index)
        subgraph.erase_input(index)
    chunk.destroy()


def fuse_chunk(fuser: GraphFuser, consumer: Node, producer: Value) -> Node:
    """Move ``producer``'s chunk into group ``consumer``; returns where to continue scanning."""
    chunk = producer.node
    existing = find_fused_chunk(fuser, consumer, chunk.input())
    if existing is not None:
        fuse_chunk_by_reusing_existing_fused_chunk(fuser, consumer, chunk, existing)
        return consumer
    fuser.merge_node_into_group(consumer, chunk)
    chunk.destroy()
    return consumer
