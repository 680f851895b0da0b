"""Turn a ``prim::Loop``'s trip count into an ordinary loop-carried counter (interpreter.cpp).

The interpreter's Loop lowering only knows a condition and loop-carried values, so the trip count
becomes a counter ``i`` carried as the first loop-carried value, and the condition becomes
``i < max_trip_count and cond`` both on entry and at the end of the body::

    %y = prim::Loop(%n, %c, %x)                 %0 = prim::Constant[value=0]()
      block0(%i, %x.1):                         %lt = aten::lt(%0, %n)
        %x.2 = aten::mul(%x.1, %x.1)     ==>    %c.1 = aten::__and__(%lt, %c)
        -> (%t, %x.2)                           %i.last, %y = prim::Loop(%c.1, %0, %x)
                                                  block0(%i, %x.1):
                                                    %x.2 = aten::mul(%x.1, %x.1)
                                                    %1 = prim::Constant[value=1]()
                                                    %i.1 = aten::add(%i, %1)
                                                    %lt.1 = aten::lt(%i.1, %n)
                                                    %c.2 = aten::__and__(%lt.1, %t)
                                                    -> (%c.2, %i.1, %x.2)

A while loop needs no counter: when the trip count is the constant ``9223372036854775807``
(what ``while`` scripts to) and the body never reads its trip-count input, the counter and its
comparisons are left out and the trip count is simply removed (``%max`` goes too when nothing
else reads it)::

    %y = prim::Loop(%max, %c, %x)               %y = prim::Loop(%c, %x)
      block0(%i, %x.1):                 ==>       block0(%x.1):
        %x.2 = aten::mul(%x.1, %x.1)                %x.2 = aten::mul(%x.1, %x.1)
        -> (%t, %x.2)                               -> (%t, %x.2)

Observable results only differ for a loop that runs 2^63 - 1 times, which no loop finishes.

After this pass every Loop has inputs ``(cond, carried...)``, its body inputs and outputs are
``(carried...)`` and ``(cond, carried...)``, and its outputs are the final carried values: for
a desugared counter, the counter is the first carried value (an output nobody reads).
"""

from __future__ import annotations

from ..errors import IRError
from ..ir.graph import Block, Graph, Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL, INT
from .pass_checks import lowering_pass

_AND = aten["__and__"]
_WHILE_TRIP_COUNT = 9223372036854775807


def _trip_count_conjunctive_condition(graph: Graph, current: Value, max_trip_count: Value,
                                      cond: Value) -> Value:
    """``current < max_trip_count and cond``, inserted at the graph's insert point."""
    below = graph.insert(aten.lt, (current, max_trip_count)).output().set_type(BOOL)
    return graph.insert(_AND, (below, cond)).output().set_type(BOOL)


def _is_while_trip_count(value: Value) -> bool:
    node = value.node
    return node.kind == prim.Constant and node.has_attribute("value") \
        and node.kind_of("value") == "i" and node.i("value") == _WHILE_TRIP_COUNT


def _desugar_block(block: Block, unused: list) -> None:
    for node in block.nodes():
        if node.kind == prim.Loop:
            _desugar_loop(node, unused)
        for sub in node.blocks:
            _desugar_block(sub, unused)


def _elide_trip_count(loop, unused: list) -> None:
    """Remove a while loop's trip count and its body's unused counter input."""
    max_trip_count = loop.input(0)
    loop.remove_input(0)
    loop.blocks[0].erase_input(0)
    if not max_trip_count.uses and max_trip_count.node not in unused:
        unused.append(max_trip_count.node)


def _desugar_loop(loop, unused: list) -> None:
    if len(loop.blocks) != 1 or len(loop.inputs) < 2 or len(loop.blocks[0].inputs) < 1 \
            or len(loop.blocks[0].outputs) < 1:
        raise IRError(f"prim::Loop needs a trip count, a condition and one body block with a "
                      f"trip-count input and a condition output:\n  {str(loop).strip()}")
    graph = loop.graph
    body = loop.blocks[0]
    body_trip_count = body.inputs[0]
    if _is_while_trip_count(loop.input(0)) and not body_trip_count.uses:
        _elide_trip_count(loop, unused)
        return
    # The counter is carried, so the loop gains an output for its final value (unused).
    loop.insert_output(0, INT)
    max_trip_count = loop.input(0)
    with graph.inserting_before(loop):
        initial = graph.insert_constant(0)
        loop.remove_input(0)
        # Input 0 is now the entry condition; carried values start at 1.
        loop.insert_input(1, initial)
        entry_cond = _trip_count_conjunctive_condition(graph, initial, max_trip_count,
                                                       loop.input(0))
        loop.replace_input(0, entry_cond)
    with graph.inserting_before(body):
        one = graph.insert_constant(1)
        incremented = graph.insert(aten.add, (body_trip_count, one)).output().set_type(INT)
        body.insert_output(1, incremented)
        body_cond = _trip_count_conjunctive_condition(graph, incremented, max_trip_count,
                                                      body.outputs[0])
        body.erase_output(0)
        body.insert_output(0, body_cond)


@lowering_pass
def desugar_trip_counts(graph: Graph) -> None:
    """Desugar the trip count of every ``prim::Loop`` (nested blocks included) in place."""
    unused: list = []
    _desugar_block(graph.block, unused)
    # Destroyed after the walk, which may still be iterating over their block.
    for node in unused:
        if not node.output().uses:
            node.destroy()
