"""Checks a pass writes into a graph at a node's place, with that node's source location: the
ops computing a condition (``located``), and an ``If`` that raises unless it holds
(``raise_unless``), as the frontend writes NumPy's own checks::

    ok = located(graph, at, aten.eq, [size, k], BOOL)      # (inside graph.inserting_before(at))
    raise_unless(graph, at, ok, "ValueError: ...")
"""

from __future__ import annotations

from ..ir.graph import Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import Type


def located(graph: Graph, at: Node, kind: str, inputs: list[Value], type_: Type) -> Value:
    """``kind`` of ``inputs``, inserted where ``graph`` inserts now, located at ``at``: its
    output, typed ``type_``."""
    made = graph.insert(kind, inputs)
    made.copy_location(at)
    return made.output().set_type(type_)


def raise_unless(graph: Graph, at: Node, ok: Value, message: str) -> None:
    """Before ``at``: an ``If`` on the bool ``ok`` whose other block raises ``message`` (its
    error's type first: ``"ValueError: ..."``), both located at ``at``."""
    with graph.inserting_before(at):
        check = graph.insert(prim.If, [ok], 0)
        check.copy_location(at)
        check.add_block()
        fail = check.add_block()
    with graph.inserting_before(fail.return_node):
        text = graph.insert_constant(message)
        raised = graph.insert(prim.RaiseException, [text], 0)
        raised.copy_location(at)


__all__ = ["located", "raise_unless"]
