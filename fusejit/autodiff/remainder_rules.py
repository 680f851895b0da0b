"""Derivatives of ``aten::remainder`` (NumPy's ``%``, ``np.mod``) and ``aten::fmod``, with
PyTorch's formulas (``tools/autograd/derivatives.yaml``)::

    %r = aten::remainder(%a, %b)      d%a = d%r
                                      d%b = -d%r * floor(%a / %b)
    %r = aten::fmod(%a, %b)           d%a = d%r
                                      d%b = -d%r * trunc(%a / %b)

Both are ``a - q * b`` with a piecewise-constant quotient ``q``, so the gradient is exact
everywhere but at the jumps (where ``a / b`` is an integer).
"""

from __future__ import annotations

from ..ir.graph import Node
from ..ir.types import TensorType
from .rules import derivative


@derivative("aten::remainder(Tensor self, Tensor other) -> Tensor",
            "aten::remainder(Tensor self, Scalar other) -> Tensor",
            "aten::fmod(Tensor self, Tensor other) -> Tensor",
            "aten::fmod(Tensor self, Scalar other) -> Tensor")
def _remainder(ctx, node: Node, grads: list) -> list:
    self, other = node.inputs
    pairs = [(self, ctx.sum_to(grads[0], self))]
    if isinstance(other.type, TensorType):
        rounding = "aten::floor" if node.kind == "aten::remainder" else "aten::trunc"
        quotient = ctx.emit(rounding, ctx.emit("aten::div", ctx.saved(self),
                                               ctx.saved(other)))
        g_other = ctx.emit("aten::neg", ctx.emit("aten::mul", grads[0], quotient))
        pairs.append((other, ctx.sum_to(g_other, other)))
    return pairs
