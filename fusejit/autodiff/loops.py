"""Reverse mode through ``prim::Loop``: the forward loop stays a loop and saves, per iteration,
the values its backward reads; the backward stage runs a second loop over the iterations in
reverse order::

    forward:                                     backward:
      %L : Tensor[] = prim::ListConstruct()        %n1 : int = aten::sub(%n, 1)
      %h : Tensor = prim::Loop(%n, %true, %h0)     %gh0, %gw = prim::Loop(%n, %true, %gh, %zw)
        block0(%i : int, %hi : Tensor):              block0(%j : int, %g : Tensor, %acc : Tensor):
          %y : Tensor = aten::tanh(%hi)                %k : int = aten::sub(%n1, %j)
          %h2 : Tensor = aten::mul(%y, %w)             %y : Tensor = aten::__getitem__(%L, %k)
          aten::append(%L, %y)                         ... backward of the body at iteration k
          -> (%true, %h2)                              %acc2 = aten::add(%acc, %g_w, 1)
                                                       -> (%true, %g_hi, %acc2)

A value defined in the loop body that the backward reads is appended to a list made before the
loop (``stash``), and read back with ``aten::__getitem__`` at the reversed index; the lists are
saved values like any other, so the handle holds them and they die with stage 1. The carried
values' gradients are the backward loop's carried values; the gradients of values from outside
the loop (weights) are summed across iterations in extra carried accumulators. The trip count
only has to be known when the loop starts (it is saved for the backward loop); loops whose
condition is computed in the body (while loops) are an error naming the node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.constants import constant_value
from ..ir.graph import Block, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import INT, TENSOR, ListType, TensorType

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


def stash(ctx: Backward, value: Value, loop: Node) -> Value:
    """The forward list that collects ``value`` (defined directly in ``loop``'s body) at the end
    of every iteration; made before the loop on first use."""
    found = ctx.lists.get(value)
    if found is not None:
        return found
    forward = ctx.forward
    with forward.inserting_before(loop):
        make = forward.insert(prim.ListConstruct, [])
    elem = TENSOR if isinstance(value.type, TensorType) else value.type
    make.output().set_type(ListType(elem))
    make.source_range = loop.source_range
    body = loop.blocks[0]
    with forward.inserting_before(body.return_node):
        append = forward.insert(aten.append, [make.output(), value])
    append.output().set_type(make.output().type)
    ctx.lists[value] = make.output()
    return make.output()


def prune_stashes(ctx: Backward) -> None:
    """Remove the lists (and their appends) that nothing reads: a backward formula may save a
    value whose use dead-code elimination later drops, and appends are never dead code."""
    changed = True
    while changed:
        changed = False
        for value, lst in list(ctx.lists.items()):
            if all(u.user.kind == aten.append and u.offset == 0 and not u.user.output().uses
                   for u in lst.uses):
                for use in list(lst.uses):
                    use.user.destroy()
                lst.node.destroy()
                del ctx.lists[value]
                changed = True


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
        ctx.loop_index[node] = ctx.emit("aten::sub", last, step, type=INT)
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
    del ctx.loop_index[node]
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


def values_defined_in(block: Block):
    yield from block.inputs
    for node in block.nodes():
        yield from node.outputs
        for inner in node.blocks:
            yield from values_defined_in(inner)


__all__ = ["backprop_loop", "check_for_loop", "loop_requires", "prune_stashes", "stash",
           "values_defined_in"]
