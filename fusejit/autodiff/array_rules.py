"""Derivatives of the array ops of ``oplib/array_ops.py``, with PyTorch's formulas
(``tools/autograd/derivatives.yaml``)::

    %p = aten::permute(%x, [2, 0, 1])       d%x = aten::permute(d%p, [1, 2, 0])   (inverse)
    %d = aten::diagonal(%a, %k, 0, 1)       d%a = aten::diagonal_backward(d%d, size(%a), %k, 0, 1)
    %m = aten::diag_embed(%v, %k, 0, 1)     d%v = aten::diagonal(d%m, %k, 0, 1)
    %u = aten::triu(%a, %k)                 d%a = aten::triu(d%u, %k)
    %g = aten::index(%x, %indices)          d%x = aten::index_put(zeros(size(%x)), %indices,
                                                                  d%g, True)   (index_backward)
    %o = aten::select_scatter(%s, %h, 0, %t)
                                            d%s = select_scatter(d%o, zeros_like(d%o[t]), 0, %t)
                                            d%h = aten::select(d%o, 0, %t)
    %l = aten::logaddexp(%a, %b)            d%a = d%l / (1 + exp(%b - %a))
    %r = aten::hypot(%a, %b)                d%a = d%l * %a / %r
    %c = fusejit::convolve(%a, %v, %mode)   d%a = fusejit::convolve_grad(d%c, %v, len(%a), %mode)
    %y = fusejit::interp(%x, %xp, %fp, %l, %r)
                                            d%x, d%xp, d%fp, d%l, d%r =
                                                fusejit::interp_backward(d%y, %x, %xp, %fp, ...)

The gather's gradient adds where indices repeat (``index_put`` with ``accumulate``): an
embedding row used twice gets both rows' gradients.
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Node, Value
from ..ir.types import TENSOR, TensorType
from ..oplib.table import DTYPE_CODES
from .rules import _times, derivative


@derivative("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)")
def _permute(ctx, node: Node, grads: list) -> dict:
    self, dims = node.inputs
    rank = ctx.rank_of(self)
    if dims.node.kind != "prim::Constant" or rank is None:
        ctx.unsupported(node, "aten::permute is differentiated for constant dims of an array "
                              "of known rank")
    order = [d % rank if rank else d for d in constant_value(dims.node)]
    inverse = [order.index(d) for d in range(len(order))]
    return {self: ctx.emit("aten::permute", grads[0], ctx.const(inverse))}


@derivative("fusejit::convolve(Tensor a, Tensor v, int mode) -> Tensor")
def _convolve(ctx, node: Node, grads: list) -> dict:
    # each operand's gradient: the output's correlated with the other operand
    a, v, mode = node.inputs
    first = ctx.const(0)
    return {a: ctx.emit("fusejit::convolve_grad", grads[0], ctx.saved(v),
                        ctx.saved_size_at(a, first), ctx.saved(mode)),
            v: ctx.emit("fusejit::convolve_grad", grads[0], ctx.saved(a),
                        ctx.saved_size_at(v, first), ctx.saved(mode))}


@derivative("fusejit::interp(Tensor x, Tensor xp, Tensor fp, Tensor? left=None, "
            "Tensor? right=None) -> Tensor")
def _interp(ctx, node: Node, grads: list) -> dict:
    # the line through each point's interval: its slope for x, the weights (1 - t, t) for fp's
    # two ends, and their derivatives by the ends' positions for xp (one backward op)
    saved = [ctx.saved(v) for v in node.inputs]
    backward = ctx.graph.insert("fusejit::interp_backward", [grads[0], *saved], 5)
    backward.source_range = node.source_range
    for out, value in zip(backward.outputs, node.inputs):
        out.set_type(value.type if isinstance(value.type, TensorType) else TENSOR)
    return {v: out for v, out in zip(node.inputs, backward.outputs)
            if isinstance(v.type, TensorType)}


@derivative("aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
def _diagonal(ctx, node: Node, grads: list) -> dict:
    self, offset, dim1, dim2 = node.inputs
    return {self: ctx.emit("aten::diagonal_backward", grads[0], ctx.size_of(self),
                           ctx.saved(offset), ctx.saved(dim1), ctx.saved(dim2))}


@derivative("aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
            "aten::diagonal_backward(Tensor grad_output, int[] input_sizes, int offset, "
            "int dim1, int dim2) -> Tensor")
def _diag_embed(ctx, node: Node, grads: list) -> dict:
    # both put a diagonal into zeros: their gradient reads it back
    offset, dim1, dim2 = node.inputs[-3:]
    return {node.input(0): ctx.emit("aten::diagonal", grads[0], ctx.saved(offset),
                                    ctx.saved(dim1), ctx.saved(dim2))}


@derivative("aten::triu(Tensor self, int diagonal=0) -> Tensor",
            "aten::tril(Tensor self, int diagonal=0) -> Tensor")
def _triangle(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit(node.kind, grads[0], ctx.saved(node.input(1)))}


@derivative("aten::logaddexp(Tensor self, Tensor other) -> Tensor")
def _logaddexp(ctx, node: Node, grads: list) -> list:
    # derivatives.yaml: grad / (1 + exp(other - self)), grad / (1 + exp(self - other))
    self, other = node.inputs
    a, b = ctx.saved(self), ctx.saved(other)

    def share(x: Value, y: Value) -> Value:
        return ctx.emit("aten::div", grads[0], ctx.emit(
            "aten::add", ctx.emit("aten::exp", ctx.emit("aten::sub", y, x, ctx.const(1))),
            ctx.const(1), ctx.const(1)))
    return [(self, ctx.sum_to(share(a, b), self)), (other, ctx.sum_to(share(b, a), other))]


@derivative("fusejit::cbrt(Tensor self) -> Tensor")
def _cbrt(ctx, node: Node, grads: list) -> dict:
    # d cbrt(x) = 1 / (3 cbrt(x)^2): grad / (3 * result * result) (inf at 0, as x ** (1/3)'s)
    result = ctx.saved(node.output())
    cube = ctx.emit("aten::mul", _times(ctx, result, result), ctx.const(3.0))
    return {node.input(0): ctx.emit("aten::div", grads[0], cube)}


@derivative("aten::hypot(Tensor self, Tensor other) -> Tensor")
def _hypot(ctx, node: Node, grads: list) -> list:
    # derivatives.yaml: grad * self / result, grad * other / result
    self, other = node.inputs
    g = ctx.emit("aten::div", grads[0], ctx.saved(node.output()))
    return [(self, ctx.sum_to(_times(ctx, g, ctx.saved(self)), self)),
            (other, ctx.sum_to(_times(ctx, g, ctx.saved(other)), other))]


def _zeros(ctx, like: Value) -> Value:
    """Zeros of forward tensor ``like``'s size and dtype, without saving ``like`` itself where
    its dtype is known."""
    dtype = like.type.dtype if isinstance(like.type, TensorType) else None
    code = DTYPE_CODES.get(dtype) if dtype is not None else None
    if code is None:
        return ctx.emit("aten::zeros_like", ctx.saved(like))
    none = ctx.const(None)
    return ctx.emit("aten::zeros", ctx.size_of(like), ctx.const(code), none, none, none)


@derivative("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
def _index(ctx, node: Node, grads: list) -> dict:
    # index_backward: zeros of self's size, the gradient added at the indices (repeats add)
    self, indices = node.inputs
    return {self: ctx.emit("aten::index_put", _zeros(ctx, self), ctx.saved(indices), grads[0],
                           ctx.const(True))}


@derivative("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, "
            "bool accumulate=False) -> Tensor")
def _index_put(ctx, node: Node, grads: list) -> list:
    # self: grad, with zeros where it was overwritten (not when accumulating); values: grad at
    # the indices, summed to values' size
    self, indices, values, accumulate = node.inputs
    where = ctx.saved(indices)
    picked = ctx.emit("aten::index", grads[0], where)
    g_self = grads[0]
    if accumulate.node.kind != "prim::Constant" or constant_value(accumulate.node) is not True:
        g_self = ctx.emit("aten::index_put", grads[0], where,
                          ctx.emit("aten::zeros_like", picked), ctx.const(False))
    return [(self, g_self), (values, ctx.sum_to(picked, values))]


@derivative("aten::select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor")
def _select_scatter(ctx, node: Node, grads: list) -> list:
    self, src, dim, index = node.inputs
    d, i = ctx.saved(dim), ctx.saved(index)
    g_src = ctx.emit("aten::select", grads[0], d, i)
    g_self = ctx.emit("aten::select_scatter", grads[0], ctx.emit("aten::zeros_like", g_src),
                      d, i)
    return [(self, g_self), (src, g_src)]


@derivative("aten::slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, "
            "int? end=None, int step=1) -> Tensor")
def _slice_scatter(ctx, node: Node, grads: list) -> list:
    self, src, *where = node.inputs
    bounds = [ctx.saved(v) for v in where]
    g_src = ctx.emit("aten::slice", grads[0], *bounds)
    g_self = ctx.emit("aten::slice_scatter", grads[0], ctx.emit("aten::zeros_like", g_src),
                      *bounds)
    return [(self, g_self), (src, g_src)]


@derivative("aten::squeeze(Tensor(a) self) -> Tensor(a)")
def _squeeze(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::reshape", grads[0], ctx.size_of(node.input(0)))}


@derivative("aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor")
def _constant_pad_nd(ctx, node: Node, grads: list) -> dict:
    # constant_pad_nd_backward: the gradient padded by the negated pads (which crops it)
    self, pad = node.input(0), node.input(1)
    if pad.node.kind != "prim::Constant":
        ctx.unsupported(node, "aten::constant_pad_nd is differentiated for constant pads")
    crop = ctx.const([-p for p in constant_value(pad.node)])
    return {self: ctx.emit("aten::constant_pad_nd", grads[0], crop, ctx.const(0))}



@derivative("fusejit::pad(Tensor self, int[] pad, str mode) -> Tensor")
def _pad(ctx, node: Node, grads: list) -> dict:
    # each padded place's gradient added into the element it copies
    self = node.input(0)
    return {self: ctx.emit("fusejit::pad_backward", grads[0], ctx.saved(self),
                           ctx.saved(node.input(1)), ctx.saved(node.input(2)))}

# -- inverse, determinant, solve (square matrices) -----------------------------------------------

def _mT(ctx, v: Value) -> Value:
    return ctx.emit("aten::transpose", v, ctx.const(-1), ctx.const(-2))


@derivative("aten::linalg_inv(Tensor A) -> Tensor")
def _linalg_inv(ctx, node: Node, grads: list) -> dict:
    # linalg_inv: -inverse^T @ grad @ inverse^T
    inverse_t = _mT(ctx, ctx.saved(node.output()))
    product = ctx.emit("aten::matmul", inverse_t, ctx.emit("aten::matmul", grads[0], inverse_t))
    return {node.input(0): ctx.emit("aten::neg", product)}


@derivative("aten::linalg_det(Tensor A) -> Tensor")
def _linalg_det(ctx, node: Node, grads: list) -> dict:
    # linalg_det_backward for an invertible A: grad * det * A^-T (a singular A gives inf/nan
    # here, where PyTorch goes through the SVD)
    a = node.input(0)
    return {a: _scaled_inverse_t(ctx, _times(ctx, grads[0], ctx.saved(node.output())), a)}


def _scaled_inverse_t(ctx, scale: Value, a: Value) -> Value:
    """``scale[..., None, None] * A^-T``: the gradient of det (scale ``grad * det``) and of
    log|det| (scale ``grad``) with respect to a stack of matrices ``A``."""
    for _ in range(2):
        scale = ctx.emit("aten::unsqueeze", scale, ctx.const(-1))
    return _times(ctx, scale, _mT(ctx, ctx.emit("aten::linalg_inv", ctx.saved(a))))


@derivative("fusejit::partition(Tensor self, int[] kth, int dim) -> Tensor")
def _partition(ctx, node: Node, grads: list) -> dict:
    x, kth, dim = node.inputs
    return {x: ctx.emit("fusejit::partition_backward", grads[0], ctx.saved(x), ctx.saved(kth),
                        ctx.saved(dim))}


@derivative("aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)")
def _linalg_slogdet(ctx, node: Node, grads: list) -> dict:
    # log|det A| has gradient A^-T (the sign is piecewise constant: none)
    if grads[1] is None:
        return {}
    return {node.input(0): _scaled_inverse_t(ctx, grads[1], node.input(0))}


@derivative("aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor")
def _linalg_solve(ctx, node: Node, grads: list) -> list:
    # linalg_solve_backward: gB = A^-T grad; gA = -gB X^T (X the result; outer for a vector B)
    a, b = node.input(0), node.input(1)
    ranks = (ctx.rank_of(a), ctx.rank_of(b))
    if ranks not in ((2, 1), (2, 2)):
        ctx.unsupported(node, f"aten::linalg_solve of ranks {ranks} is differentiated for a "
                              f"matrix and a vector or matrix only")
    g_b = ctx.emit("aten::linalg_solve", _mT(ctx, ctx.saved(a)), grads[0], ctx.const(True))
    x = ctx.saved(node.output())
    if ranks[1] == 1:
        g_b2, x2 = (ctx.emit("aten::unsqueeze", v, ctx.const(k)) for v, k in ((g_b, 1), (x, 0)))
        g_a = ctx.emit("aten::matmul", g_b2, x2)
    else:
        g_a = ctx.emit("aten::matmul", g_b, _mT(ctx, x))
    return [(a, ctx.emit("aten::neg", g_a)), (b, g_b)]


@derivative("fusejit::maximum_accumulate(Tensor self, int dim) -> Tensor",
            "fusejit::minimum_accumulate(Tensor self, int dim) -> Tensor")
def _running_extreme(ctx, node: Node, grads: list) -> dict:
    # each running extreme's gradient to the element it is (fusejit::running_backward)
    self, dim = node.inputs
    return {self: ctx.emit("fusejit::running_backward", grads[0], ctx.saved(self),
                           ctx.saved(node.output()), ctx.saved(dim))}


@derivative("aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
def _cumprod(ctx, node: Node, grads: list) -> dict:
    # cumprod_backward(grad.to(self.scalar_type()), self, dim, result): exact where self has
    # zeros (each product leaves x_i out instead of dividing by it)
    self, dim = node.input(0), node.input(1)
    return {self: ctx.emit("fusejit::cumprod_backward", grads[0], ctx.saved(self),
                           ctx.saved(dim))}
