"""Derivatives of ``aten::mean``: the gradient of ``sum`` over the same dims, divided by how
many elements each mean averaged (derivatives.yaml: ``mean: grad.expand(sizes) / numel``)::

    %m = aten::mean(%x, %dims, %keep, %none)       forward:  %n = numel(%x) / max(numel(%m), 1)
    d%x = sum's rule applied to (d%m / %n)         backward: the count is saved, not %x

The count is computed in the forward stage and saved, so the handle holds one number, not the
input.
"""

from __future__ import annotations

from ..ir.graph import Node, Value
from ..ir.types import FLOAT, INT
from .rules import _sum_all, _sum_dims, derivative


def _averaged(ctx, node: Node) -> Value:
    """How many elements each output of mean ``node`` averaged, as a saved float."""
    forward, x, out = ctx.forward, node.input(0), node.output()
    with forward.inserting_after(out.node):
        whole = forward.insert("aten::numel", [x])
        whole.output().set_type(INT)
        part = forward.insert("aten::numel", [out])
        part.output().set_type(INT)
        at_least_one = forward.insert("aten::max", [part.output(), forward.insert_constant(1)])
        at_least_one.output().set_type(INT)
        count = forward.insert("aten::div", [whole.output(), at_least_one.output()])
        count.output().set_type(FLOAT)
    for made in (whole, part, at_least_one, count):
        made.source_range = node.source_range
    return ctx.saved(count.output())


@derivative("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def _mean_all(ctx, node: Node, grads: list) -> dict:
    return _sum_all(ctx, node, [ctx.emit("aten::div", grads[0], _averaged(ctx, node))])


@derivative("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
            "ScalarType? dtype=None) -> Tensor")
def _mean_dims(ctx, node: Node, grads: list) -> dict:
    return _sum_dims(ctx, node, [ctx.emit("aten::div", grads[0], _averaged(ctx, node))])
