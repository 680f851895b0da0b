"""Fusion of the maps PyTorch's fuser leaves out, for ``@fusejit.jit`` (beyond PyTorch).

PyTorch's list of simple maps (``graph_fuser.cpp``) has no bitwise ops, so a mask made of
comparisons stays three NumPy calls and a kernel for each comparison alone::

    %a : Bool(*) = aten::ge(%x, %lo)
    %b : Bool(*) = aten::lt(%x, %hi)          # np.count_nonzero((x >= lo) & (x < hi))
    %m : Bool(*) = aten::__and__(%a, %b)

This pass runs the fuser again over the graph that ``fuse_graph`` made, taking also the ops
of the operator library that have a kernel form but no place in PyTorch's list: each entry's
``extends`` (``&``, ``|``, ``^``, ``x % 7`` and ``fmod`` by a number, ``//``,
``hardsigmoid``, ``softplus``), and maps of an int argument or other computed int, which
PyTorch's fuser takes only as constants (``(c[w:] - c[:-w]) / w``, ``t % period``: kernel
arguments; on int64 and float tensors, ``_int_scalars``). Their
groups merge with the groups already there, so the mask above is one group, which the
row-reduction pass then takes into its sum. ``fuse_graph`` is unchanged (its groups are checked
against PyTorch's); the executor runs this after it where it runs the other passes beyond
PyTorch (``compile(..., reductions=True)``, which ``@fusejit.jit`` asks for on the CPU).
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Graph, Node, Value
from ..ir.schema import parse_schema
from ..ir.symbols import prim
from ..ir.types import IntType, TensorType
from ..oplib.table import ENTRIES
from .common_subexpression_elimination import eliminate_common_subexpression
from .dead_code_elimination import eliminate_dead_code
from .graph_fuser import (
    GraphFuser,
    is_simple_map,
    matches_map,
    peephole_optimize_shape_expressions,
)
from .pass_checks import graph_pass


def _extra_schemas() -> dict[str, list]:
    """kind -> the parsed schemas each op's entry lists as ``extends``."""
    return {kind: [parse_schema(text) for text in entry.extends]
            for kind, entry in ENTRIES.items() if entry.extends and entry.render is not None}


_EXTRA = _extra_schemas()


# Tensor dtypes a map may combine with an int that is not a constant (``_int_scalars``).
_WIDE = frozenset({np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64)})


def is_extra_map(node: Node) -> bool:
    """Is ``node`` one of the maps with a kernel form that PyTorch's fuser does not take, with
    only constant non-float scalars (as the fuser requires of its own maps); or a map of
    either list that takes an int which is not a constant (``_int_scalars``)?"""
    return matches_map(node, _EXTRA) or _int_scalars(node)


def _int_scalars(node: Node) -> bool:
    """A map of the fuser's list or of ``_EXTRA`` taking an int that is not a constant
    (``t // period``, ``x / n``), on tensors of int64, float32 or float64 only: an int64 kernel
    argument is such a tensor's element exactly, or is converted as NumPy converts a Python
    int for it (kernel arguments are int64: the call refuses larger ints). PyTorch's fuser
    takes only constant ints."""
    if not any(isinstance(v.type, IntType) and v.node.kind != prim.Constant
               for v in node.inputs):
        return False
    ins = [v.type.dtype for v in node.inputs if isinstance(v.type, TensorType)]
    outs = [v.type.dtype for v in node.outputs if isinstance(v.type, TensorType)]
    if not ins or not all(d in _WIDE for d in ins) or \
            not all(d in _WIDE or d == np.dtype(np.bool_) for d in outs):
        return False    # (comparisons give bools)
    return matches_map(node, _EXTRA, int_scalars=True) or is_simple_map(node, int_scalars=True)


def jit_map(node: Node) -> bool:
    """Is ``node`` a map ``@fusejit.jit``'s fusion takes: one of the fuser's simple maps, or
    an extra one (``is_extra_map``)?"""
    return is_simple_map(node) or is_extra_map(node)


def is_map(node: Node) -> bool:
    """Is ``node`` a map of the fuser's list or of ``_EXTRA``, whatever its scalars (its result
    has the broadcast shape of its tensor inputs)?"""
    return len(node.outputs) == 1 and (matches_map(node, _EXTRA, int_scalars=True) or
                                       is_simple_map(node, int_scalars=True))


def computed_from(value: Value, array: Value, depth: int = 8) -> bool:
    """Is ``value`` ``array``, a number, a 0-d tensor, or a map of such values (``is_map``,
    to ``depth`` levels), so that it is no larger than ``array`` (``x < 0``, ``x * 2 + 1``)?"""
    return computed_from_any(value, {array}, depth)


def computed_from_any(value: Value, arrays: set[Value], depth: int = 8) -> bool:
    """``computed_from`` where any of ``arrays`` (the names of one array) may stand for it."""
    t = value.type
    if value in arrays or not isinstance(t, TensorType) or t.rank == 0:
        return True
    node = value.node
    return depth > 0 and node is not None and is_map(node) and \
        all(computed_from_any(v, arrays, depth - 1) for v in node.inputs)


class JitMapsFuser(GraphFuser):
    """The fuser taking ``@fusejit.jit``'s maps (``jit_map``) in its block."""

    def is_fusable_map(self, node: Node) -> bool:
        if super().is_fusable_map(node):
            return True
        return node.owning_block is self.block and is_extra_map(node)


@graph_pass
def fuse_more_maps(graph: Graph) -> None:
    """The fuser again, with the maps PyTorch's list leaves out (``is_extra_map``)."""
    if any(is_extra_map(node) for node in graph.all_nodes()):
        JitMapsFuser(graph.block, graph).run()
        # (fuse_graph's own tail: the fuser leaves size expressions for the shapes of the
        # groups' outputs, which would keep a group's output in use outside it)
        eliminate_common_subexpression(graph)
        eliminate_dead_code(graph)
        peephole_optimize_shape_expressions(graph.block)


__all__ = ["JitMapsFuser", "computed_from", "fuse_more_maps", "is_extra_map", "is_map",
           "jit_map"]
