"""Writes through views of fresh arrays (``out[t] = h``, ``y[1:] = v``, ``h[0, :2] = 0.0``,
``acc[i] += v``)
rewritten as the scatter ops PyTorch's functionalization uses, before differentiating::

    out = np.zeros((n, 3))        %out = aten::zeros(...)
    for t in range(n):            %o = prim::Loop(%n, %true, %out)       (out now carried)
        ...                         block0(%t, %out.1):
        out[t] = h                    %row = aten::select(%out.1, 0, %t)   (kept: a read)
                                      %out.2 = aten::select_scatter(%out.1, %h', 0, %t)
                                      -> (%true, %out.2)
    np.sum(out ** 2)              aten::pow(%o, 2)                    (reads the loop's result)

``%h'`` is the source cast to the array's dtype and broadcast to the view's size, as
``copy_`` would write it. A chain of views (``h[0, :2]``: a select then a slice) scatters into
each view in turn. The array written must be made by an op returning a new array (not a graph
input, not a view), in the write's block or in a block enclosing it through loops only (the
loops then carry it); no view of it may be taken before the write and read after it (that
view would see the write). Other writes stay, and differentiation refuses them, naming the
node.
"""

from __future__ import annotations

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import INT, ListType

_SCATTERS = {"aten::select": "aten::select_scatter", "aten::slice": "aten::slice_scatter"}


def functionalize_view_writes(graph: Graph) -> None:
    """Rewrite the ``copy_``/``fill_`` through select/slice views that no alias observes."""
    fresh: set[Value] = set()   # what the rewrites made loops carry and ifs return
    for node in [n for n in graph.all_nodes() if _is_write(n)]:
        found = _writable(node, fresh)
        if found is not None:
            _rewrite(graph, node, *found, fresh)


def _is_write(node: Node) -> bool:
    """``copy_``/``fill_``, or an in-place op on its first input with an out-of-place form
    (``acc[i] += v`` is ``add_`` on the view)."""
    from .functionalize import _pure_schema

    if node.kind in ("aten::copy_", "aten::fill_"):
        return True
    schema = node.schema
    return (node.kind.endswith("_") and schema is not None and schema.written == (0,)
            and _pure_schema(node) is not None)


def _returns_alias(node: Node) -> bool:
    schema = node.schema
    return schema is None or "(" in schema.text.rsplit("->", 1)[1]


def _writable(node: Node, fresh: set[Value]) -> tuple[Value, list[Node], list[Node]] | None:
    """(the array written, the views from it to the written one, the loops between the
    array's block and the write's) when the rewrite is sound, else None."""
    if node.output().uses:
        return None
    chain: list[Node] = []
    target = node.input(0)
    while target.node.kind in _SCATTERS and len(target.uses) == 1:
        chain.append(target.node)
        target = target.node.input(0)
    if chain and chain[-1].input(0) is not target:
        return None
    base, maker = target, target.node
    if base not in fresh and (maker.kind == prim.Param or _returns_alias(maker)
                              or maker.schema is None):
        return None
    loops: list[Node] = []
    block: Block | None = node.owning_block
    while block is not maker.owning_block:
        owner = block.owning_node if block is not None else None
        if owner is None or owner.kind not in (prim.Loop, prim.If):
            return None
        loops.append(owner)
        block = owner.owning_block
    if not chain and not any(n.kind == prim.If for n in loops):
        return None   # (a write into the array itself, outside any if: remove_mutation's)
    outermost = loops[-1] if loops else node   # what writes the array, in the array's block
    for use in base.uses:
        user = use.user
        # a view taken before the write must be read only before it: in the same iteration
        # (or branch) when taken inside the loops and ifs, before them when taken outside
        inner = loops and any(_inside(user, b) for b in outermost.blocks)
        limit = node if inner else outermost
        if user in chain or not user.is_before(limit) or not _returns_alias(user):
            continue
        for out in user.outputs:
            if any(not u.user.is_before(limit) for u in out.uses):
                return None
    return base, chain, loops[::-1]


def _carry(graph: Graph, loop: Node, value: Value) -> Value:
    """``value`` carried by ``loop`` unchanged (the write changes what the body returns):
    its uses inside the body read the body's parameter, those after the loop its result."""
    body = loop.blocks[0]
    param = body.add_input(type=value.type)
    if value.has_debug_name():
        param.set_debug_name(value.debug_name)
    for use in list(value.uses):
        if _inside(use.user, body):
            use.user.replace_input(use.offset, param)
    loop.add_input(value)
    body.register_output(param)
    result = loop.add_output(value.type)
    value.replace_all_uses_after_node_with(loop, result)
    return param


def _through_if(node: Node, value: Value) -> Value:
    """``value`` made an output of the ``if`` ``node`` (each branch returns it; the write
    changes what its branch returns): uses after the ``if`` read that output."""
    for block in node.blocks:
        block.register_output(value)
    result = node.add_output(value.type)
    value.replace_all_uses_after_node_with(node, result)
    return value


def _inside(node: Node, block: Block) -> bool:
    while node is not None and node.owning_block is not None:
        if node.owning_block is block:
            return True
        node = node.owning_block.owning_node
    return False


def _rewrite(graph: Graph, node: Node, base: Value, chain: list[Node], loops: list[Node],
             fresh: set[Value]) -> None:
    for owner in loops:
        base = _carry(graph, owner, base) if owner.kind == prim.Loop else _through_if(owner, base)
        fresh.update((base, owner.outputs[-1]))   # (a later write may write them again)
    innermost = chain[0].output() if chain else base
    with graph.inserting_before(node):
        if node.kind == "aten::fill_":
            src = _insert(graph, node, "aten::full_like", [innermost, node.input(1)] +
                          [graph.insert_constant(None)] * 5, innermost.type)
        else:
            src = node.input(1)
            if node.kind != "aten::copy_":   # (add_: the view's new value is view + v)
                src = _insert(graph, node, node.kind[:-1], [innermost, *node.inputs[1:]],
                              innermost.type)
            src = _insert(graph, node, "aten::type_as", [src, innermost], innermost.type)
            size = _insert(graph, node, "aten::size", [innermost], ListType(INT))
            src = _insert(graph, node, "aten::expand", [src, size, graph.insert_constant(False)],
                          innermost.type)
        for view in chain:
            parent = view.input(0)
            src = _insert(graph, node, _SCATTERS[view.kind], [parent, src, *view.inputs[1:]],
                          parent.type)
    if base.has_debug_name():
        src.set_debug_name(base.debug_name)
    base.replace_all_uses_after_node_with(node, src)
    node.destroy()


def _insert(graph: Graph, at: Node, kind: str, inputs: list[Value], type_) -> Value:
    made = graph.insert(kind, inputs)
    made.output().set_type(type_)
    made.source_range = at.source_range
    return made.output()


__all__ = ["functionalize_view_writes"]
