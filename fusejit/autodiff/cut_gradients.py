"""Refuse gradients that a conversion to a Python number would silently cut::

    s = float(np.sum(x ** 2))        %s : float = aten::Float(%t)   (no gradient flows back)
    return s * 1.0 + np.sum(x)       the gradient would miss d s / d x

A float made from an array that carries a gradient has no gradient of its own (PyTorch's
``.item()`` detaches it too), but NumPy's finite differences see it: if such a number reaches
an output, :func:`refuse_cut_gradients` raises an AutodiffError naming the conversion. A number
used only to decide (``if float(loss) > 0``) or an int/bool (piecewise constant) is fine.
"""

from __future__ import annotations

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import FloatType, NumberType

# Conversions of a tensor to a Python number, by kind.
_TO_NUMBER = frozenset({"aten::Float", "aten::item", "prim::ImplicitTensorToNum"})
# Inputs of control nodes that choose what runs but carry no value to the outputs.
_DECIDING = {prim.If: (0,), prim.Loop: (0, 1)}


def refuse_cut_gradients(graph: Graph, requires: set) -> None:
    """An AutodiffError if a float converted from a gradient-carrying tensor reaches an
    output of ``graph``."""
    from .rules import NONDIFFERENTIABLE

    cut_by: dict[Value, Node] = {}   # value -> the conversion it depends on

    def visit(block: Block) -> None:
        for node in block.nodes():
            for inner in node.blocks:
                visit(inner)
            if node.kind in _TO_NUMBER:
                out = node.output()
                if node.input(0) in requires and isinstance(out.type, (FloatType, NumberType)):
                    cut_by[out] = node
                continue
            if node.kind in NONDIFFERENTIABLE:
                continue   # comparisons, rounding: piecewise constant, a zero gradient is right
            skip = _DECIDING.get(node.kind, ())
            sources = [v for i, v in enumerate(node.inputs) if i not in skip]
            sources += [v for b in node.blocks for v in b.outputs]
            origin = next((cut_by[v] for v in sources if v in cut_by), None)
            if origin is not None:
                for out in node.outputs:
                    cut_by.setdefault(out, origin)
            if node.kind == prim.Loop:   # carried values flow back into the body
                for b in node.blocks:
                    for param, out in zip(b.inputs[1:], node.outputs):
                        if out in cut_by:
                            cut_by.setdefault(param, cut_by[out])

    size = -1
    while size != len(cut_by):
        size = len(cut_by)
        visit(graph.block)
    for out in graph.outputs:
        node = cut_by.get(out)
        if node is not None:
            from .differentiate import AutodiffError, describe

            raise AutodiffError(f"{node.kind} turns an array that carries a gradient into a "
                                f"Python number, which has none, and the number reaches the "
                                f"result: its part of the gradient would be lost; keep it an "
                                f"array (drop float(...) / .item()):\n  {describe(node)}")


__all__ = ["refuse_cut_gradients"]
