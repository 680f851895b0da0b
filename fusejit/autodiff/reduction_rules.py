"""Derivatives of the reductions NumPy-spelled code reaches beyond sum and mean: ``amax``/``amin``
(``x.max(axis=...)``), ``prod``, ``var`` and ``std`` (``correction`` is NumPy's ``ddof``), with
PyTorch's formulas (``tools/autograd/derivatives.yaml``, ``FunctionsManual.cpp``)::

    %m = aten::amax(%x, [1], False)     d%x = unsqueeze(d%m, 1) * (%x == m') / sum(%x == m', [1])
    %v = aten::var(%x, [1], %c, False)  d%x = unsqueeze(d%v, 1) * 2 (%x - mean(%x, [1])) / (n - c)

(``m'`` is ``%m`` with the reduced dims put back.) Ties of ``amax`` share the gradient evenly
(``scale_grad_by_count``); ``prod`` handles zeros without dividing by them (``prod_backward``).
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Node, Value
from ..ir.types import INT, ListType, NoneType
from .mean_rules import _averaged
from .rules import derivative


def reduced_dims(ctx, node: Node, dim: Value) -> list[int]:
    """The dims ``node`` reduces, made non-negative: a constant list (or int) of ``dim``;
    None and ``[]`` mean every dim, as in PyTorch's reductions."""
    if dim.node.kind != "prim::Constant":
        ctx.unsupported(node, f"{node.kind} is differentiated for constant dims only")
    rank = ctx.rank_of(node.input(0))
    if rank is None:
        ctx.unsupported(node, f"the rank of %{node.input(0).debug_name} is unknown")
    dims = constant_value(dim.node)
    dims = [dims] if isinstance(dims, int) else list(dims or [])
    return sorted({d % rank for d in dims} if rank else set()) if dims else list(range(rank))


def keeps_dims(ctx, node: Node, keepdim: Value) -> bool:
    if keepdim.node.kind != "prim::Constant":
        ctx.unsupported(node, f"{node.kind} is differentiated for a constant keepdim only")
    return bool(constant_value(keepdim.node))


def restore_reduced(ctx, value: Value, dims: list[int], keep: bool) -> Value:
    """``value`` (a reduction's result or gradient) with its reduced ``dims`` back as size-1
    dims, so it broadcasts against the input (``restore_reduced_dims``)."""
    if not keep:
        for d in dims:   # ascending: each index is already where it belongs
            value = ctx.emit("aten::unsqueeze", value, ctx.const(d))
    return value


def _dim_list(ctx, dims: list[int]) -> Value:
    return ctx.const(list(dims)) if dims else ctx.emit("prim::ListConstruct", type=ListType(INT))


def _sum_keep(ctx, value: Value, dims: list[int]) -> Value:
    """``sum(value, dims, keepdim=True)``; no dims (a 0-d input) leaves it as it is."""
    if not dims:
        return value
    return ctx.emit("aten::sum", value, _dim_list(ctx, dims), ctx.const(True), ctx.const(None))


@derivative("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
            "aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
def _extreme(ctx, node: Node, grads: list) -> dict:
    # scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self)
    self, dim, keepdim = node.inputs
    dims, keep = reduced_dims(ctx, node, dim), keeps_dims(ctx, node, keepdim)
    g = restore_reduced(ctx, grads[0], dims, keep)
    result = restore_reduced(ctx, ctx.saved(node.output()), dims, keep)
    hit = ctx.emit("aten::type_as", ctx.emit("aten::eq", ctx.saved(self), result), g)
    share = ctx.emit("aten::div", g, _sum_keep(ctx, hit, dims))
    return {self: ctx.emit("aten::mul", share, hit)}


def _prod_backward(ctx, g: Value, self: Value, dims: list[int]) -> Value:
    """``g`` (with the reduced dims restored) times the product of the other elements: by
    ``prod / x`` without zeros, the product of the rest at a lone zero, and 0 beside two zeros
    (the three cases of PyTorch's ``prod_backward``, with no division by a zero)."""
    x = ctx.saved(self)
    zero = ctx.emit("aten::eq", x, ctx.const(0))
    safe = ctx.emit("aten::where", zero, ctx.const(1.0), x)      # zeros read as ones
    rest = safe
    for d in dims:    # prod takes one dim at a time
        rest = ctx.emit("aten::prod", rest, ctx.const(d), ctx.const(True), ctx.const(None))
    zeros = _sum_keep(ctx, ctx.emit("aten::type_as", zero, g), dims)
    none_zero = ctx.emit("aten::eq", zeros, ctx.const(0))
    lone_zero = ctx.emit("aten::__and__", zero, ctx.emit("aten::eq", zeros, ctx.const(1)))
    at_lone = ctx.emit("aten::where", lone_zero, rest, ctx.const(0.0))
    others = ctx.emit("aten::where", none_zero, ctx.emit("aten::div", rest, safe), at_lone)
    return ctx.emit("aten::mul", g, others)


@derivative("aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def _prod_all(ctx, node: Node, grads: list) -> dict:
    self = node.input(0)
    rank = ctx.rank_of(self)
    if rank is None:
        ctx.unsupported(node, f"the rank of %{self.debug_name} is unknown")
    return {self: _prod_backward(ctx, grads[0], self, list(range(rank)))}


@derivative("aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
            "ScalarType? dtype=None) -> Tensor")
def _prod_dim(ctx, node: Node, grads: list) -> dict:
    self = node.input(0)
    dims = reduced_dims(ctx, node, node.input(1))
    g = restore_reduced(ctx, grads[0], dims, keeps_dims(ctx, node, node.input(2)))
    return {self: _prod_backward(ctx, g, self, dims)}


def _var_backward(ctx, node: Node, g: Value) -> Value:
    """var_backward: ``2 / (n - correction) * g * (x - mean(x, dims))``, ``g`` with the reduced
    dims restored; ``n`` (how many elements each result reduced) is saved, not computed."""
    self, dim, correction, keepdim = node.inputs
    dims = reduced_dims(ctx, node, dim)
    g = restore_reduced(ctx, g, dims, keeps_dims(ctx, node, keepdim))
    count = _averaged(ctx, node)
    if isinstance(correction.type, NoneType):
        divisor = ctx.emit("aten::sub", count, ctx.const(1), type=count.type)
    else:
        divisor = ctx.emit("aten::sub", count, ctx.saved(correction), type=count.type)
    x = ctx.saved(self)
    mean = ctx.emit("aten::mean", x, _dim_list(ctx, dims), ctx.const(True), ctx.const(None))
    spread = ctx.emit("aten::sub", x, mean, ctx.const(1))
    scale = ctx.emit("aten::div", ctx.const(2.0), divisor, type=count.type)
    return ctx.emit("aten::mul", ctx.emit("aten::mul", g, spread), scale)


@derivative("aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> Tensor")
def _var(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): _var_backward(ctx, node, grads[0])}


@derivative("aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
            "bool keepdim=False) -> Tensor")
def _std(ctx, node: Node, grads: list) -> dict:
    # std_backward: var_backward((grad / (2 result)).masked_fill_(result == 0, 0))
    result = ctx.saved(node.output())
    zero = ctx.emit("aten::eq", result, ctx.const(0))
    halved = ctx.emit("aten::div", grads[0], ctx.emit("aten::mul", result, ctx.const(2.0)))
    g = ctx.emit("aten::where", zero, ctx.const(0.0), halved)
    return {node.input(0): _var_backward(ctx, node, g)}


__all__ = ["keeps_dims", "reduced_dims", "restore_reduced"]
