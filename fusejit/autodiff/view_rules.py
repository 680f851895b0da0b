"""Derivatives of the orderings NumPy-spelled code reaches: basic slicing (``x[:, 1:]``,
``x[::2]``), ``np.flip`` and ``np.cumsum``, with PyTorch's formulas
(``tools/autograd/derivatives.yaml``)::

    %s = aten::slice(%x, 1, 1, None, 1)   d%x = aten::slice_backward(d%s, size(%x), 1, 1, MAX, 1)
    %f = aten::flip(%x, [0])              d%x = aten::flip(d%f, [0])
    %c = aten::cumsum(%x, 1, None)        d%x = flip(cumsum(flip(d%c, [1]), 1), [1])

The gradient of a cumulative sum is the sum of the later gradients, so a reversed cumulative
sum (``cumsum_backward``); a slice scatters its gradient into zeros (``slice_backward_wrapper``:
an absent start is 0 and an absent end the largest int).
"""

from __future__ import annotations

from ..ir.graph import Node, Value
from ..ir.types import INT, ListType, NoneType, OptionalType
from .rules import derivative

# slice_backward_wrapper's stand-in for an absent end: INT64_MAX (slicing clamps it)
_NO_END = 2 ** 63 - 1


def _bound(ctx, node: Node, value: Value, absent: int) -> Value:
    if isinstance(value.type, NoneType):
        return ctx.const(absent)
    if isinstance(value.type, OptionalType):
        # (None or an int only known when it runs: slice_backward takes an int)
        ctx.unsupported(node, f"aten::slice with a bound of type {value.type} is differentiated"
                              f" when the bound is an int or None")
    return ctx.saved(value)


@derivative("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, "
            "SymInt? end=None, SymInt step=1) -> Tensor(a)")
def _slice(ctx, node: Node, grads: list) -> dict:
    self, dim, start, end, step = node.inputs
    return {self: ctx.emit("aten::slice_backward", grads[0], ctx.size_of(self), ctx.saved(dim),
                           _bound(ctx, node, start, 0), _bound(ctx, node, end, _NO_END),
                           ctx.saved(step))}


@derivative("aten::flip(Tensor self, int[] dims) -> Tensor")
def _flip(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::flip", grads[0], ctx.saved(node.input(1)))}


@derivative("aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
def _cumsum(ctx, node: Node, grads: list) -> dict:
    # cumsum_backward(grad.to(self.scalar_type()), dim)
    self, dim, dtype = node.inputs
    g = grads[0]
    if not isinstance(dtype.type, NoneType):
        g = ctx.emit("aten::type_as", g, ctx.saved(self))
    if ctx.rank_of(self) == 0:      # a 0-d cumsum is the identity
        return {self: g}
    d = ctx.saved(dim)
    dims = ctx.emit("prim::ListConstruct", d, type=ListType(INT))
    flipped = ctx.emit("aten::flip", g, dims)
    summed = ctx.emit("aten::cumsum", flipped, d, ctx.const(None))
    return {self: ctx.emit("aten::flip", summed, dims)}
