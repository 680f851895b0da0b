"""Bounds on what a graph may hold: nesting depth, integer ranges and chunk counts.

Every walk over a graph (printer, lint, copy, passes, lowering) recurses once per level of
nested blocks or subgraphs, so a graph nested deeper than ``MAX_DEPTH`` is refused with an
``IRError`` before any walk starts, instead of a ``RecursionError`` somewhere inside one::

    %y : Tensor = prim::If(%c)        # depth 1
      block0():
        %z : Tensor = prim::If(%c)    # depth 2 ... up to MAX_DEPTH
    ...

Attributes that passes turn into loops or allocations (``chunks``) must agree with the node's
outputs, and ``dim`` attributes must name a plausible dimension, so no number written in IR text
makes a pass run or allocate in proportion to it. The parser applies the same depth.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import IRError

if TYPE_CHECKING:
    from .graph import Graph
    from .node import Node

# Nesting of blocks and subgraphs (and of types, and of IR text): deep enough for any program a
# person writes, shallow enough that a walk recursing a few frames per level stays far below
# Python's recursion limit.
MAX_DEPTH = 64
# Nesting of container types (``int[][]``...); printing and matching types recurse.
MAX_TYPE_DEPTH = 32
# Nesting in IR text (blocks, subgraph sections, types, list attributes): room for the deepest
# graph and type above, so that every graph ``lint`` accepts prints to text that parses back.
MAX_TEXT_DEPTH = MAX_DEPTH + MAX_TYPE_DEPTH + 2
# A ``dim`` attribute d must satisfy -MAX_RANK <= d < MAX_RANK (NumPy allows at most 64 dims).
MAX_RANK = 64
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# Chunking nodes: attribute ``chunks`` and the number of outputs it implies per input.
_CHUNKING = {"prim::ConstantChunk": True, "prim::BroadcastingChunk": True,
             "prim::ChunkSizes": False}
_DIM_KINDS = frozenset({"prim::ConstantChunk", "prim::BroadcastingChunk", "prim::ChunkSizes",
                        "prim::FusedConcat"})


def fits_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def check_depth(where: Graph | Node, attributes: bool = False) -> None:
    """Raise ``IRError`` when blocks and subgraphs nest deeper than ``MAX_DEPTH`` in a graph, or
    below a node (counting from the node); with ``attributes``, also when a node's attributes
    are out of range (``attribute_problem``), which every pass checks before it starts.

    Iterative, so it is safe on any graph, however deep.
    """
    from .node import Node

    top = [where] if isinstance(where, Node) else list(where.block.nodes())
    stack: list[tuple[Iterable[Node], int]] = [(top, 0)]
    while stack:
        nodes, depth = stack.pop()  # a list or a block's node iterator
        for node in nodes:
            subs = list(node._blocks)
            if "Subgraph" in node._attrs and node._attrs["Subgraph"][0] == "g":
                subs.append(node._attrs["Subgraph"][1].block)
            if attributes and node._attrs:
                problem = attribute_problem(node)
                if problem:
                    error = IRError(f"{problem}\n  at: {node!r}")
                    error.node = node
                    raise error
            if subs and depth + 1 > MAX_DEPTH:
                error = IRError(f"{node.kind} nests blocks or subgraphs deeper than "
                                f"{MAX_DEPTH} levels")
                error.node = node  # for its position; printing it would walk the deep blocks
                raise error
            stack.extend((sub.nodes(), depth + 1) for sub in subs)


def attribute_problem(node: Node) -> str | None:
    """What is wrong with ``node``'s attributes (a range or a count), or None."""
    for name, (kind, value) in node._attrs.items():
        if kind == "i" and not (isinstance(value, int) and fits_int64(value)):
            return f"attribute {name}={value!r} is not a 64-bit integer"
        if kind == "is" and not all(isinstance(v, int) and fits_int64(v) for v in value):
            return f"attribute {name} holds a value that is not a 64-bit integer"
        if kind == "ival" and not _ints_fit(value):
            return f"attribute {name} holds an integer beyond 64 bits"
    kind = str(node.kind)
    if kind in _CHUNKING:
        if node._attrs.get("chunks", ("", None))[0] != "i":
            return f"{kind} needs an int attribute chunks"
        chunks = node._attrs["chunks"][1]
        if chunks < 1:
            return f"{kind} has chunks={chunks}; it must be at least 1"
        if _CHUNKING[kind]:
            expected = chunks * max(len(node._inputs), 1)
            if len(node._outputs) != expected:
                return (f"{kind} with chunks={chunks} and {len(node._inputs)} inputs must have "
                        f"{expected} outputs, not {len(node._outputs)}")
    if kind in _DIM_KINDS:
        if node._attrs.get("dim", ("", None))[0] != "i":
            return f"{kind} needs an int attribute dim"
        dim = node._attrs["dim"][1]
        if not -MAX_RANK <= dim < MAX_RANK:
            return f"{kind} has dim={dim}, outside [-{MAX_RANK}, {MAX_RANK})"
    return None


def _ints_fit(value: object) -> bool:
    """Do all ints inside ``value`` (nested lists and tuples, walked without recursion) fit?"""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            if id(item) not in seen:  # a list holding itself is walked once
                seen.add(id(item))
                stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and not fits_int64(item):
            return False
    return True
