"""Loops of a few constant trips written out in full (for ``@fusejit.jit``'s CPU plans).

A ``for`` loop over a constant range runs on the interpreter as a loop: its trip count test, the
counter's arithmetic and one fused kernel per trip, each reading and writing the whole array
(``np.polyval(p, x)`` with four coefficients: three trips of ``y = y * x + p[i]``, 0.44x NumPy
on 10^4 elements). Written out, the trips are straight-line code the fuser makes one kernel of::

    %y = prim::Loop(%3, %true, %y0)              %i1 = aten::add(%0, %one)     # (the counter
      block0(%k : int, %yk : Tensor):            %c1 = aten::select(%p, %zero, %i1)   # folds)
        %i = aten::add(%k, %one)        ==>      %y1 = <y0 * x + c1>
        %c = aten::select(%p, %zero, %i)         ... two more trips ...
        %yn = <yk * x + c>                       (uses of %y read the last trip's value)
        -> (%true, %yn)

PyTorch's ``UnrollLoops`` does the same for constant trip counts (and unrolls other loops by a
factor, which this does not). Only a ``for`` loop is taken: its trip count a constant of at most
``MAX_TRIPS``, its condition true on entry and after every trip (no ``break``), and its body,
nested blocks included, at most ``MAX_NODES`` nodes over all trips. Nested loops are taken in
turn, outer first. A trip's counter is a constant; folding the arithmetic on it is left to the
caller (``constant_propagation``).
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from .pass_checks import graph_pass

MAX_TRIPS = 64
MAX_NODES = 256


@graph_pass
def unroll_constant_loops(graph: Graph) -> bool:
    """Write out each loop of ``graph`` that the module docstring admits; True if any was."""
    changed = False
    while True:
        loop = next((n for n in graph.all_nodes() if n.kind == prim.Loop and _unrollable(n)),
                    None)
        if loop is None:
            return changed
        _unroll(loop)
        changed = True


def _unrollable(loop: Node) -> bool:
    trips = _constant(loop.input(0))
    if type(trips) is not int or not 0 <= trips <= MAX_TRIPS:
        return False
    (body,) = loop.blocks
    return _constant(loop.input(1)) is True and _constant(body.outputs[0]) is True \
        and trips * _size(body) <= MAX_NODES


def _constant(value: Value):
    return constant_value(value.node) if value.node.kind == prim.Constant else None


def _size(block: Block) -> int:
    return sum(1 + sum(_size(b) for b in node.blocks) for node in block.nodes())


def _unroll(loop: Node) -> None:
    graph = loop.graph
    (body,) = loop.blocks
    carried = list(loop.inputs[2:])
    with graph.inserting_before(loop):
        for trip in range(_constant(loop.input(0))):
            env: dict[Value, Value] = {body.inputs[0]: graph.insert_constant(trip)}
            env.update(zip(body.inputs[1:], carried))
            mapped = env.get
            for node in body.nodes():
                clone = graph.insert_node(graph.create_clone(node, lambda v, m=mapped: m(v, v)))
                env.update(zip(node.outputs, clone.outputs))
            carried = [env.get(v, v) for v in body.outputs[1:]]
    for out, value in zip(loop.outputs, carried, strict=True):
        out.replace_all_uses_with(value)
    loop.destroy()


__all__ = ["MAX_NODES", "MAX_TRIPS", "unroll_constant_loops"]
