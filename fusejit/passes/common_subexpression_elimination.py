"""Common-subexpression elimination (PyTorch's ``EliminateCommonSubexpression``): a node equal
to an earlier one (same kind, same inputs, same attributes, same output types) is replaced by it.

::

    graph(%x : Tensor):                          graph(%x : Tensor):
      %a : int[] = aten::size(%x)                  %a : int[] = aten::size(%x)
      %b : int[] = aten::size(%x)        ==>       return (%a, %a)
      return (%a, %b)

A node in a nested block may be replaced by an equal node of an enclosing block, never the
other way round, unless both may alias memory the caller sees (graph inputs or outputs). Left
alone: nodes with side effects, nondeterministic ops (``rand_like``), nodes with blocks or
subgraph attributes, ops that write memory or whose inputs or outputs some node writes (alias
analysis), and pairs whose outputs would both alias graph outputs (merging them would make two
graph outputs one buffer; a merge that makes a value a graph output counts for later pairs).
"""

from __future__ import annotations

from collections import ChainMap
from typing import Any

import numpy as np

from ..ir.graph import Block, Graph, Node
from ..ir.symbols import NONDETERMINISTIC, prim
from .alias_analysis import AliasDb, has_side_effects
from .dead_code_elimination import _may_write
from .pass_checks import graph_pass

__all__ = ["attributes_key", "eliminate_common_subexpression"]


def attributes_key(node: Node) -> tuple:
    """A hashable key equal for nodes with equal attributes (floats compared exactly)."""
    items = []
    for name in node.attribute_names():
        kind = node.kind_of(name)
        items.append((name, kind, _value_key(node.attr(name))))
    return tuple(items)


def _value_key(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ("tensor", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_value_key(v) for v in value))
    if isinstance(value, (int, str, bool)) or value is None:
        return (type(value).__name__, value)
    return ("object", id(value))


@graph_pass
def eliminate_common_subexpression(graph_or_block: Graph | Block) -> bool:
    """Replace repeated pure computations by their first occurrence; True if anything changed."""
    if isinstance(graph_or_block, Graph):
        graph, block = graph_or_block, graph_or_block.block
    else:
        graph, block = graph_or_block.graph, graph_or_block
    cse = _Cse(graph)
    return cse.run(block, ChainMap())


class _Cse:
    def __init__(self, graph: Graph):
        self.db = AliasDb(graph)
        self.written = self.db.written_locations()
        self.return_node = graph.return_node
        self.wildcards: set[int] | None = None
        self.graph_outputs: set[int] = set()
        self._add_graph_outputs(graph.outputs)

    def _escapes(self, node: Node) -> bool:
        if self.wildcards is None:
            self.wildcards = self.db._with_contained(frozenset(self.db._wildcards.values()))
        return bool(self.db.output_locations(node) & (self.graph_outputs | self.wildcards))

    def _add_graph_outputs(self, values) -> None:
        for v in values:
            self.graph_outputs |= self.db._with_contained(self.db.points_to(v))

    def _eligible(self, node: Node) -> bool:
        if node.blocks or node.kind in NONDETERMINISTIC or has_side_effects(node):
            return False
        if node.kind in (prim.Param, prim.Return):
            return False
        if any(node.kind_of(a) in ("g", "gs") for a in node.attribute_names()):
            return False
        if _may_write(node):
            return False
        if self.written:
            if self.db.output_locations(node) & self.written:
                return False
            if any(self.db.points_to(v) & self.written for v in node.inputs):
                return False
        return True

    def run(self, block: Block, table: ChainMap) -> bool:
        changed = False
        for node in block.nodes():
            for sub in node.blocks:
                changed |= self.run(sub, table.new_child())
            if not self._eligible(node):
                continue
            key = (node.kind, tuple(id(v) for v in node.inputs), attributes_key(node),
                   tuple(str(o.type) for o in node.outputs))
            existing = table.get(key)
            if existing is None:
                table[key] = node
                continue
            if key in table.maps[0]:
                # Same block: do not make two graph outputs one buffer.
                if (self.db.output_locations(node) & self.graph_outputs
                        and self.db.output_locations(existing) & self.graph_outputs):
                    continue
            elif self._escapes(node) and self._escapes(existing):
                # An enclosing block's node (PyTorch's safeToChangeAliasingRelationship): both
                # may alias memory the caller sees (graph inputs or outputs).
                continue
            returned = any(u.user is self.return_node for o in node.outputs for u in o.uses)
            for old, new in zip(node.outputs, existing.outputs):
                old.replace_all_uses_with(new)
            node.destroy()
            changed = True
            if returned:
                # ``existing`` now produces a graph output: a later node equal to it that is
                # also returned must stay (PyTorch tests against the graph's current outputs).
                self._add_graph_outputs(existing.outputs)
        return changed
