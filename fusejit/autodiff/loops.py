"""Reverse mode through ``prim::Loop``: the forward loop stays a loop and saves, per iteration,
the values its backward reads; the backward stage runs a second loop over the iterations in
reverse order::

    forward:                                     backward:
      %L : (Tensor)[] = prim::ListConstruct()      %n1 : int = aten::sub(%n, 1)
      %h : Tensor = prim::Loop(%n, %true, %h0)     %gh0, %gw = prim::Loop(%n, %true, %gh, %zw)
        block0(%i : int, %hi : Tensor):              block0(%j : int, %g : Tensor, %acc : Tensor):
          %y : Tensor = aten::tanh(%hi)                %k : int = aten::sub(%n1, %j)
          %h2 : Tensor = aten::mul(%y, %w)             %t : (Tensor) = aten::__getitem__(%L, %k)
          %t : (Tensor) = prim::TupleConstruct(%y)     %y : Tensor = prim::TupleUnpack(%t)
          aten::append(%L, %t)                         ... backward of the body at iteration k
          -> (%true, %h2)                              %acc2 = aten::add(%acc, %g_w, 1)
                                                       -> (%true, %g_hi, %acc2)

The values defined in the loop body that the backward reads are packed into one tuple per
iteration, appended to a list made before the loop (:class:`Stash`), and read back with
``aten::__getitem__`` at the reversed index and ``prim::TupleUnpack``; the list is a saved
value like any other, so the handle holds it and it dies with stage 1. Pure loop-invariant
nodes leave the body first (``passes.licm``), so they are neither recomputed nor saved per
iteration. The carried values' gradients are the backward loop's carried values; the
gradients of values from outside the loop (weights) are summed across iterations in extra
carried accumulators. The trip count only has to be known when the loop starts (it is saved
for the backward loop); loops whose condition is computed in the body (while loops) are an
error naming the node. Nothing is unrolled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.constants import constant_value
from ..ir.graph import Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import INT, TENSOR, ListType, TensorType, TupleType
from ..passes.licm import values_defined_in

if TYPE_CHECKING:
    from .differentiate import Backward


def check_for_loop(ctx: Backward, node: Node) -> None:
    """A ``for`` loop: the condition is constant true on entry and after every iteration."""
    body = node.blocks[0]
    cond, again = node.input(1), body.outputs[0]
    if not (_is_true(cond) and _is_true(again)):
        ctx.unsupported(node, "cannot differentiate a loop whose condition is computed as it "
                              "runs (a while loop); only loops with a trip count known when "
                              "they start (for loops over range) are differentiated")


def _is_true(value: Value) -> bool:
    return value.node.kind == prim.Constant and constant_value(value.node) is True


class Stash:
    """What one forward loop saves per iteration: a tuple of values appended to a list at the
    end of each iteration (``pack``), read back at the top of each backward iteration and
    unpacked (``unpack``: one output per saved value)."""

    __slots__ = ("items", "pack", "unpack", "slots")

    def __init__(self, items: Value, pack: Node, unpack: Node):
        self.items = items
        self.pack = pack
        self.unpack = unpack
        self.slots: dict[Value, Value] = {}

    def read(self, value: Value) -> Value:
        """``value`` (of the forward loop's body) at the backward iteration."""
        found = self.slots.get(value)
        if found is None:
            self.pack.add_input(value)
            found = self.slots[value] = self.unpack.add_output(value.type)
        return found

    def set_types(self) -> None:
        tuple_type = TupleType(tuple(v.type for v in self.pack.inputs))
        list_type = ListType(tuple_type)
        self.pack.output().set_type(tuple_type)
        self.items.set_type(list_type)
        for use in self.items.uses:
            if use.user.kind == aten.append:
                use.user.output().set_type(list_type)
        read = self.unpack.input()
        read.set_type(tuple_type)
        read.node.input(0).set_type(list_type)   # the backward stage's saved-value input


def open_stash(ctx: Backward, loop: Node, index: Value) -> Stash:
    """The stash of forward ``loop``, read at backward iteration ``index`` (the backward
    insertion point is the top of the backward loop's body)."""
    forward = ctx.forward
    empty = TupleType(())    # (the tuple grows as the backward saves values: set_types)
    with forward.inserting_before(loop):
        items = forward.insert(prim.ListConstruct, []).output().set_type(ListType(empty))
    items.node.source_range = loop.source_range
    with forward.inserting_before(loop.blocks[0].return_node):
        pack = forward.insert(prim.TupleConstruct, [])
        forward.insert(aten.append, [items, pack.output()])
    read = ctx.emit("aten::__getitem__", ctx.saved(items), index, type=empty)
    unpack = ctx.graph.insert(prim.TupleUnpack, [read], 0)
    stash = Stash(items, pack, unpack)
    ctx.stashes.append(stash)
    return stash


def prune_stashes(ctx: Backward) -> None:
    """Remove the stashes whose list the backward stage does not read (their ``pack`` is then
    dead code): no value of that loop was needed after all."""
    for stash in ctx.stashes:
        items = stash.items
        if all(u.user.kind == aten.append and u.offset == 0 for u in items.uses):
            for use in list(items.uses):
                use.user.destroy()
            items.node.destroy()
        else:
            stash.set_types()


def loop_requires(node: Node, requires: set[Value]) -> None:
    """Mark the body inputs of ``node`` whose carried value requires a gradient (on entry or
    from the previous iteration); ``differentiate`` repeats its walk until nothing changes."""
    body = node.blocks[0]
    for k, out in enumerate(node.outputs):
        carried_in, param = node.input(2 + k), body.inputs[1 + k]
        if not isinstance(param.type, (TensorType, ListType)):
            continue
        if carried_in in requires or body.outputs[1 + k] in requires:
            requires.add(param)
            requires.add(out)


def backprop_loop(ctx: Backward, node: Node, grads: dict[Value, Value], outs: list) -> None:
    """Emit the backward loop of forward loop ``node`` at the backward insertion point."""
    check_for_loop(ctx, node)
    body = node.blocks[0]
    carried = [k for k, out in enumerate(node.outputs)
               if isinstance(out.type, TensorType)
               and (out in ctx.requires or body.inputs[1 + k] in ctx.requires)]
    graph = ctx.graph
    trip = ctx.saved(node.input(0))
    inits = [outs[k] if outs[k] is not None
             else ctx.emit("aten::zeros_like", ctx.saved(node.outputs[k])) for k in carried]
    last = ctx.emit("aten::sub", trip, ctx.const(1), type=INT)
    loop = graph.insert(prim.Loop, [trip, ctx.const(True), *inits], 0)
    loop.source_range = node.source_range
    block = loop.add_block()
    step = block.add_input("j", INT)
    grads_in = [block.add_input(type=TENSOR) for _ in carried]
    with graph.inserting_before(block.return_node):
        index = ctx.emit("aten::sub", last, step, type=INT)
        ctx.open_loops[node] = open_stash(ctx, node, index)
        local: dict[Value, Value] = {}
        for k, g in zip(carried, grads_in):
            ctx.accumulate(local, body.outputs[1 + k], g)
        ctx.backprop_block(body, local)
        grads_out = [local.get(body.inputs[1 + k]) for k in carried]
        grads_out = [g if g is not None
                     else ctx.emit("aten::zeros_like", ctx.saved(body.inputs[1 + k]))
                     for g, k in zip(grads_out, carried)]
        inside = set(values_defined_in(body))
        free = [v for v in local if v not in inside]
        sums_in = [block.add_input(type=TENSOR) for _ in free]
        sums_out = [ctx.emit("aten::add", acc, local[v], ctx.const(1))
                    for acc, v in zip(sums_in, free)]
        block.register_output(ctx.const(True))
    del ctx.open_loops[node]
    for value in (*grads_out, *sums_out):
        block.register_output(value)
    with graph.inserting_before(loop):
        for v in free:
            loop.add_input(ctx.emit("aten::zeros_like", ctx.saved(v)))
    results = [loop.add_output(TENSOR) for _ in (*carried, *free)]
    for k, grad in zip(carried, results):
        ctx.accumulate(grads, node.input(2 + k), grad)
    for v, grad in zip(free, results[len(carried):]):
        ctx.accumulate(grads, v, grad)


__all__ = ["Stash", "backprop_loop", "check_for_loop", "loop_requires",
           "open_stash", "prune_stashes", "values_defined_in"]
