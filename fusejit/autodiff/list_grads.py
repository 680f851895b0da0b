"""Gradients through lists of arrays built with ``append`` (an RNN collecting its states)::

    outs = [x]                       %L = prim::ListConstruct(%x)
    for _ in range(n):               prim::Loop(...)
        h = np.tanh(w @ h)             %p = aten::len(%L)          (added: h's position)
        outs.append(h)                 aten::append(%L, %h)
    y = np.stack(outs)               %y = aten::stack(%L, 0)
    z = outs[-1]                     %z = aten::__getitem__(%L, -1)

Reading the list (``stack``, ``outs[i]``) records a *contribution*: a function from an element's
position to that element's gradient (``select(d%y, 0, p)``; ``d%z`` where ``p`` is the index,
zero elsewhere). Walking back, each ``append`` gives its element the sum of the contributions
at its position, which the forward stage saved (``len`` of the list just before the append; per
iteration inside a loop); the ``ListConstruct`` gives its elements theirs at 0, 1, ...

The readers must be in the block that made the list (their gradients are used by the appends
inside loops); a list used any other way while it carries a gradient is an AutodiffError naming
the node, never a gradient silently lost.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.graph import Node, Value
from ..ir.types import BOOL, FLOAT, INT, ListType, TensorType
from .rules import _cat, _stack, derivative

Contribution = Callable[..., Value]   # (ctx, position) -> the element's gradient

_READERS = ("aten::stack", "aten::cat", "aten::__getitem__", "aten::len", "fusejit::cat_offsets")


def _is_tensor_list(value: Value) -> bool:
    return isinstance(value.type, ListType) and isinstance(value.type.elem, TensorType)


def _written(lst: Value) -> bool:
    return any(u.user.kind == "aten::append" and u.offset == 0 for u in lst.uses)


def _check(ctx, lst: Value, reader: Node) -> None:
    """Refuse (naming the node) a list whose uses the contributions cannot follow."""
    maker = lst.node
    if maker.kind != "prim::ListConstruct":
        ctx.unsupported(reader, f"{reader.kind} of a list made by {maker.kind} is not "
                                f"differentiated (only of a list literal and its appends)")
    for use in lst.uses:
        user = use.user
        if user.kind == "aten::append" and use.offset == 0:
            if user.output().uses:
                ctx.unsupported(user, "the result of list.append is read; not differentiated")
            if reader.kind in ("aten::stack", "aten::cat") and user.is_after(reader):
                ctx.unsupported(reader, f"{reader.kind} of a list that grows after it is read "
                                        f"is not differentiated; stack or concatenate it "
                                        f"after the last append")
            continue
        if user.kind in _READERS and user.owning_block is maker.owning_block:
            continue
        ctx.unsupported(user, f"a list of arrays that carries a gradient is used by "
                              f"{user.kind} (or outside the block that made it), which is not "
                              f"differentiated; stack it or index it where it was made")


def _contribute(ctx, lst: Value, reader: Node, contribution: Contribution) -> None:
    _check(ctx, lst, reader)
    ctx.list_grads.setdefault(lst, []).append(contribution)


@derivative("aten::stack(Tensor[] tensors, int dim=0) -> Tensor")
def _stack_appended(ctx, node: Node, grads: list) -> dict:
    lst = node.input(0)
    if not _written(lst):
        return _stack(ctx, node, grads)
    g, dim = grads[0], ctx.saved(node.input(1))
    _contribute(ctx, lst, node, lambda c, p: c.emit("aten::select", g, dim, p))
    return {}


@derivative("aten::cat(Tensor[] tensors, int dim=0) -> Tensor")
def _cat_appended(ctx, node: Node, grads: list) -> dict:
    lst = node.input(0)
    if not _written(lst):
        return _cat(ctx, node, grads)
    # where each element starts (and the last ends), computed by the forward once the list is
    # whole, and saved: the element at p gets narrow(d%y, dim, start[p], start[p+1] - start[p])
    forward = ctx.forward
    with forward.inserting_after(node):
        offsets = forward.insert("fusejit::cat_offsets", [lst, ctx._forward_copy(node.input(1))])
    offsets.output().set_type(ListType(INT))
    offsets.source_range = node.source_range
    g, dim, starts = grads[0], ctx.saved(node.input(1)), ctx.saved(offsets.output())

    def at(c, p: Value) -> Value:
        start = c.emit("aten::__getitem__", starts, p, type=INT)
        end = c.emit("aten::__getitem__", starts, c.emit("aten::add", p, c.const(1), type=INT),
                     type=INT)
        return c.emit("aten::narrow", g, dim, start, c.emit("aten::sub", end, start, type=INT))
    _contribute(ctx, lst, node, at)
    return {}


@derivative("aten::__getitem__(t[] list, int idx) -> t")
def _getitem(ctx, node: Node, grads: list) -> dict:
    lst, g = node.input(0), grads[0]
    if not _is_tensor_list(lst):
        return {}
    # the index made non-negative with the list's length at the read, saved by the forward
    forward = ctx.forward
    with forward.inserting_before(node):
        length = forward.insert("aten::len", [lst])
    length.output().set_type(INT)
    length.source_range = node.source_range
    index = ctx.emit("aten::remainder", ctx.saved(node.input(1)), ctx.saved(length.output()),
                     type=INT)

    def at(c, p: Value) -> Value:
        hit = c.emit("aten::Float", c.emit("aten::eq", p, index, type=BOOL), type=FLOAT)
        return c.emit("aten::mul", g, hit)
    _contribute(ctx, lst, node, at)
    return {}


def _gradient_at(ctx, lst: Value, position: Value) -> Value | None:
    total = None
    for contribution in ctx.list_grads[lst]:
        g = contribution(ctx, position)
        total = g if total is None else ctx.emit("aten::add", total, g, ctx.const(1))
    return total


def backprop_list_node(ctx, node: Node, grads: dict) -> bool:
    """The backward of an ``append`` to, or the ``ListConstruct`` of, a list whose readers
    recorded contributions; False for any other node."""
    if node.kind == "aten::append":
        lst = node.input(0)
        if lst not in ctx.list_grads:
            return False
        element = node.input(1)
        forward = ctx.forward
        with forward.inserting_before(node):
            length = forward.insert("aten::len", [lst])
        length.output().set_type(INT)
        length.source_range = node.source_range
        ctx.node = node
        ctx.accumulate(grads, element, _gradient_at(ctx, lst, ctx.saved(length.output())))
        ctx.node = None
        return True
    if node.kind == "prim::ListConstruct" and node.output() in ctx.list_grads:
        ctx.node = node
        for i, element in enumerate(node.inputs):
            ctx.accumulate(grads, element, _gradient_at(ctx, node.output(), ctx.const(i)))
        ctx.node = None
        return True
    return False


def appends_to_tracked(ctx, node: Node) -> bool:
    """Does a block of ``node`` (a loop, an if) append to a list with contributions? Then it
    is walked back even when none of its outputs has a gradient."""
    for block in node.blocks:
        for inner in block.nodes():
            if inner.kind == "aten::append" and inner.input(0) in ctx.list_grads:
                return True
            if inner.blocks and appends_to_tracked(ctx, inner):
                return True
    return False


__all__ = ["appends_to_tracked", "backprop_list_node"]
