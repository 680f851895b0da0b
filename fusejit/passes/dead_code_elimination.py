"""Dead-code elimination (PyTorch's ``EliminateDeadCode``): remove nodes whose results nobody
reads, unless they have side effects or write memory.

::

    graph(%x : Tensor):                          graph(%x : Tensor):
      %a : Tensor = aten::exp(%x)                  %b : Tensor = aten::sin(%x)
      %b : Tensor = aten::sin(%x)        ==>       return (%b)
      return (%b)

Blocks are cleaned from the inside; a ``prim::If`` output that is never read is removed with
the block outputs that feed it, and so is a ``prim::Loop``-carried value that neither the loop's
users nor its body read. Writers (``aten::add_`` and other ops whose schema has ``(a!)``) are
kept even when their result is unused: the write is their effect. Ops of unknown namespaces,
with no schema, are kept too (we cannot tell they are pure).
"""

from __future__ import annotations

from ..ir.graph import Block, Graph, Node
from ..ir.schema import PRIM_KINDS, registry
from ..ir.symbols import prim
from .alias_analysis import has_side_effects
from .pass_checks import graph_pass

__all__ = ["eliminate_dead_code"]


@graph_pass
def eliminate_dead_code(graph_or_block: Graph | Block) -> None:
    """Remove unused pure nodes from the graph (or block), nested blocks included."""
    block = graph_or_block.block if isinstance(graph_or_block, Graph) else graph_or_block
    _eliminate_in_block(block)


def _eliminate_in_block(block: Block) -> None:
    for node in block.reverse_nodes():
        if node.blocks:
            _remove_dead_block_outputs(node)
        if _is_dead(node):
            node.destroy()


def _remove_dead_block_outputs(node: Node) -> None:
    if node.kind == prim.If:
        for i in reversed(range(len(node.outputs))):
            if not node.outputs[i].uses:
                for b in node.blocks:
                    b.erase_output(i)
                node.erase_output(i)
        for b in node.blocks:
            _eliminate_in_block(b)
    elif node.kind == prim.Loop and node.blocks:
        body = node.blocks[0]
        _eliminate_in_block(body)
        # Loop inputs: (trip count, condition, carried...); body inputs: (i, carried...);
        # body outputs: (condition, carried...).
        for i in reversed(range(len(node.outputs))):
            if node.outputs[i].uses or body.inputs[i + 1].uses:
                continue
            body.erase_output(i + 1)
            body.erase_input(i + 1)
            node.remove_input(i + 2)
            node.erase_output(i)
        _eliminate_in_block(body)
    else:
        for b in node.blocks:
            _eliminate_in_block(b)


def _is_dead(node: Node) -> bool:
    if any(out.uses for out in node.outputs) or has_side_effects(node):
        return False
    if any(_writes_inside(block) for block in node.blocks):
        return False  # an If or Loop whose body writes memory (a[i] = v in a loop)
    return not _may_write(node)


def _writes_inside(block: Block) -> bool:
    for inner in block.nodes():
        if has_side_effects(inner) or _may_write(inner):
            return True
        if any(_writes_inside(b) for b in inner.blocks):
            return True
    return False


def _may_write(node: Node) -> bool:
    if node.has_attribute("written_into"):
        return True     # a fusion group writing into an input (passes/inplace_fusion.py)
    schema = node.schema
    if schema is not None:
        return schema.is_mutable
    if node.kind in PRIM_KINDS:
        return False
    known = registry.schemas(node.kind)
    if known:
        return any(s.is_mutable for s in known)
    # Unknown op: in-place by naming convention, or an unknown namespace: keep it.
    return node.kind.ns != "aten" or node.kind.name.endswith("_")
