"""Canonicalise ops for the graph fuser (PyTorch's ``CanonicalizeOps``): a constant
``aten::chunk`` whose list is only unpacked becomes one ``prim::ConstantChunk`` node.

::

    %c : int = prim::Constant[value=2]()           %a : Tensor, %b : Tensor =
    %d : int = prim::Constant[value=1]()     ==>       prim::ConstantChunk[chunks=2, dim=1](%x)
    %l : Tensor[] = aten::chunk(%x, %c, %d)
    %a : Tensor, %b : Tensor = prim::ListUnpack(%l)

The rewrite happens only when ``chunks`` and ``dim`` are constants and every use of the list is
a ``prim::ListUnpack`` with exactly ``chunks`` outputs (otherwise the list length is not known
statically). Dead-code elimination runs afterwards to drop the old nodes.
"""

from __future__ import annotations

from ..ir.constants import constant_int
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from .dead_code_elimination import eliminate_dead_code
from .pass_checks import graph_pass

__all__ = ["canonicalize_graph_fuser_ops"]

_CHUNK = "aten::chunk(Tensor self, int chunks, int dim) -> Tensor[]"


@graph_pass
def canonicalize_graph_fuser_ops(graph: Graph) -> None:
    """Turn ``aten::chunk`` + ``prim::ListUnpack`` into ``prim::ConstantChunk``; then DCE."""
    _canonicalize_block(graph.block)
    eliminate_dead_code(graph)


def _chunk_outputs(node: Node, chunks: int) -> list[list[Value]] | None:
    unpacked = []
    for use in node.output().uses:
        user = use.user
        if user.kind != prim.ListUnpack or len(user.outputs) != chunks:
            return None
        unpacked.append(list(user.outputs))
    return unpacked or None


def _canonicalize_block(block: Block) -> None:
    for node in block.nodes():
        for sub in node.blocks:
            _canonicalize_block(sub)
        if not node.matches(_CHUNK):
            continue
        chunks, dim = constant_int(node.input(1)), constant_int(node.input(2))
        if chunks is None or dim is None or chunks < 1:
            continue
        groups = _chunk_outputs(node, chunks)
        if groups is None:
            continue
        graph = node.graph
        new = graph.create(prim.ConstantChunk, [node.input(0)], chunks)
        new.i_("chunks", chunks)
        new.i_("dim", dim)
        new.source_range = node.source_range
        new.insert_before(node)
        for i, new_out in enumerate(new.outputs):
            new_out.copy_metadata(groups[0][i])
            for outs in groups:
                outs[i].replace_all_uses_with(new_out)
