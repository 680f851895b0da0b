"""In-place updates of fresh arrays rewritten out of place before differentiating (PyTorch's
``RemoveMutation`` pass, for the writes NumPy code makes)::

    h = x.copy()                 %h.1 = aten::clone(%x)          %h.1 = aten::clone(%x)
    h *= w            becomes    %h.2 = aten::mul_(%h.1, %w)  -> %h.2 = aten::mul(%h.1, %w)
    h += 1.0                     %h   = aten::add_(%h.2, 1.)     %h   = aten::add(%h.2, 1.)
    h[h < 0] = 0.0               aten::copy_(%h, %w)             clone(expand(%w, size(%h)))

A write is rewritten only where no one can see the difference: the array written is made in the
same block by an op that returns a new array (not a graph input, not a view), or is carried by
a loop from such an array that nothing else reads and the write's result is what the loop
carries on (``for ...: h *= w``); nothing read it before through an alias (a view, a list),
and every use of it is in that block. Reads after the
write read the new value. The result keeps the written array's dtype (``type_as`` where an
operand could promote it). Other writes stay, and differentiation refuses them, naming the node.
"""

from __future__ import annotations

from ..ir.graph import Block, Graph, Node
from ..ir.symbols import prim
from ..ir.types import INT, ListType, TensorType
from ..oplib import OPS


def remove_mutation(graph: Graph) -> None:
    """Rewrite the in-place ops of ``graph`` that no alias observes as their pure forms."""
    _block(graph, graph.block)


def _block(graph: Graph, block: Block) -> None:
    for node in list(block.nodes()):
        for inner in node.blocks:
            _block(graph, inner)
        if _rewritable(node):
            _rewrite(graph, node)


def _returns_alias(node: Node) -> bool:
    schema = node.schema
    return schema is None or "(" in schema.text.rsplit("->", 1)[1]


def _rewritable(node: Node) -> bool:
    schema = node.schema
    if schema is None or schema.written != (0,) or not node.kind.endswith("_"):
        return False
    target, block = node.input(0), node.owning_block
    maker = target.node
    if not isinstance(target.type, TensorType) or maker.owning_block is not block:
        return False
    if maker.kind == prim.Param:
        if not _carried_fresh(target, node):
            return False
    elif _returns_alias(maker):
        return False
    for use in target.uses:
        user = use.user
        if user is node or user.is_after(node):
            continue   # (a read after the write, in an if or loop after it too, reads the result)
        if user.owning_block is not block:
            return False
        if user.is_before(node):
            # a read before the write must not keep an alias the write would change
            user_schema = user.schema
            if user_schema is None or user_schema.written or _returns_alias(user):
                return False
    return node.kind == "aten::copy_" or _pure_schema(node) is not None


def _carried_fresh(param, node: Node) -> bool:
    """Is ``param`` a value a loop carries, whose buffer is new (made before the loop by an op
    returning a new array, read by nothing but the loop) and is this write's result what the
    iteration carries on (``h = x * 1.0; for ...: h *= w``)?"""
    body = param.node.owning_block
    loop = body.owning_node
    if loop is None or loop.kind != prim.Loop or param not in body.inputs[1:]:
        return False
    k = body.inputs.index(param) - 1
    init = loop.input(2 + k)
    carried_on = node.output()
    while True:   # (h *= w; h += 1: the last write of the chain is what is carried on)
        writes = [u.user for u in carried_on.uses if u.offset == 0 and u.user.kind.endswith("_")
                  and u.user.schema is not None and u.user.schema.written == (0,)]
        if len(writes) != 1:
            break
        carried_on = writes[0].output()
    if body.outputs[1 + k] is not carried_on:
        return False
    maker = init.node
    if maker.kind == prim.Param or _returns_alias(maker):
        return False
    if sum(1 for u in init.uses if u.user is loop) != 1:
        return False   # (two carried values sharing one buffer see each other's writes)
    # (after the loop, the written buffer would still be read through the initial value)
    return all(u.user is loop or (u.user.owning_block is loop.owning_block and
                                  u.user.is_before(loop) and not _returns_alias(u.user)
                                  and not u.user.schema.written)
               for u in init.uses)


def _pure_schema(node: Node) -> str | None:
    """The schema of the out-of-place form of in-place ``node`` (its text without the ``_``
    and the write annotation), if the op table has it."""
    text = node.schema.text
    name, rest = text.split("(", 1)
    pure = name[:-1] + "(" + rest.replace("Tensor(a!) self", "Tensor self", 1)
    pure = pure.rsplit("->", 1)[0] + "-> Tensor"
    return pure if pure in OPS else None


def _rewrite(graph: Graph, node: Node) -> None:
    target, out = node.input(0), node.output()
    with graph.inserting_before(node):
        if node.kind == "aten::copy_":
            # y[y < 0] = 0.0 writes where(...) over all of y: y becomes a copy of the source,
            # broadcast to y's size (a new array: it may be written again)
            size = graph.insert("aten::size", [target])
            size.output().set_type(ListType(INT))
            spread = graph.insert("aten::expand", [node.input(1), size.output(),
                                                   graph.insert_constant(False)])
            spread.output().set_type(out.type)
            pure = graph.insert("aten::clone", [spread.output(), graph.insert_constant(None)])
        else:
            pure = graph.insert(node.kind[:-1], list(node.inputs))
        result = pure.output()
        result.set_type(out.type)
        pure.source_range = node.source_range
        if not _keeps_dtype(node):
            cast = graph.insert("aten::type_as", [result, target])
            cast.output().set_type(out.type)
            cast.source_range = node.source_range
            result = cast.output()
    if out.has_debug_name():
        result.set_debug_name(out.debug_name)
    target.replace_all_uses_after_node_with(node, result)
    out.replace_all_uses_with(result)
    node.destroy()


def _keeps_dtype(node: Node) -> bool:
    """Is the out-of-place result surely of the written array's dtype (no operand of another
    dtype to promote it)?"""
    want = node.input(0).type.scalar_type
    if want is None:
        return False
    for value in node.inputs[1:]:
        if isinstance(value.type, TensorType) and value.type.scalar_type != want:
            return False
    return want.is_floating


def refuse_writes(block: Block, requires: set) -> None:
    """An AutodiffError naming the first in-place write left that touches a value carrying a
    gradient: the write changes an array (or the array it views, ``h[0] = x``) behind the
    derivative rules' back, so its gradient would be silently wrong."""
    from .differentiate import AutodiffError, describe

    for node in block.nodes():
        for inner in node.blocks:
            refuse_writes(inner, requires)
        schema = node.schema
        if schema is None or not schema.written:
            continue
        written = [node.inputs[i] for i in schema.written if i < len(node.inputs)]
        if any(isinstance(v.type, TensorType) for v in written) and \
                any(v in requires for v in node.inputs):
            raise AutodiffError(f"{node.kind} writes in place into an array that carries a "
                                f"gradient (or one made from it), which is not differentiated;"
                                f" write it out of place (h = h * w; rows: outs.append(row)"
                                f" then np.stack(outs); elements: np.where(mask, v, h)):"
                                f"\n  {describe(node)}")


__all__ = ["refuse_writes", "remove_mutation"]
