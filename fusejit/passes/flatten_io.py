"""Replace a graph's inputs and outputs by ``prim::Load`` / ``prim::Store`` nodes (interpreter.cpp).

The interpreter starts with the call's arguments on a stack and must leave the results there;
``prim::Load`` pops the arguments into registers and ``prim::Store`` pushes the results::

    graph(%x, %y):                       graph():
      %z = aten::mul(%x, %y)      ==>      %x, %y = prim::Load()
      return (%z)                          %z = aten::mul(%x, %y)
                                           prim::Store(%z)
                                           return ()
"""

from __future__ import annotations

from ..ir.graph import Graph
from ..ir.symbols import prim
from .pass_checks import lowering_pass


@lowering_pass
def flatten_io(graph: Graph) -> None:
    """Move the graph's inputs onto a leading ``prim::Load``, its outputs onto a ``prim::Store``."""
    load = graph.block.prepend_node(graph.create(prim.Load, (), 0))
    for old in graph.inputs:
        new = load.add_output(old.type)
        old.replace_all_uses_with(new)
        # Keep the parameter names so dumps and error messages still read %x, not %3.
        name = old.debug_name if old.has_debug_name() else None
        old.set_debug_name(None)
        if name is not None:
            new.set_debug_name(name)
    graph.block.append_node(graph.create(prim.Store, graph.outputs, 0))
    while graph.inputs:
        graph.erase_input(len(graph.inputs) - 1)
    while graph.outputs:
        graph.erase_output(len(graph.outputs) - 1)
