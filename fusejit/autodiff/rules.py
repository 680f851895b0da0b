"""The derivative table: one entry per op schema (or ``prim::`` kind) -> a function that emits
the backward IR of one node.

This is the *derivative slot* of the planned single op table (issue 16): when that table exists,
each function here moves into its op's entry unchanged. The formulas are PyTorch's
(``tools/autograd/derivatives.yaml`` and ``torch/csrc/jit/runtime/symbolic_script.cpp``);
broadcast inputs get their gradient through ``aten::_grad_sum_to_size``, as PyTorch emits it::

    %z = aten::mul(%x, %y)          # forward; backward of x, with %gz the gradient of %z:
    %0 = aten::mul(%gz, %y)
    %s = aten::size(%x)             # computed in the forward stage, saved in the handle
    %gx = aten::_grad_sum_to_size(%0, %s)

A rule is ``rule(ctx, node, grads) -> {forward value: backward gradient}`` (or a list of
such pairs, where one value may appear twice: ``aten::mul(%x, %x)``). ``grads`` holds one
backward value (or None: no gradient reaches it) per node output. ``ctx`` (a
:class:`~fusejit.autodiff.differentiate.Backward`) emits backward nodes and saves the forward
values a formula reads: ``ctx.saved(v)`` for a value, ``ctx.size_of(v)`` for a tensor's size.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..ir.graph import Node, Value
from ..ir.types import INT, ListType, TensorType
from ..oplib import OPS

Rule = Callable[..., dict]

RULES: dict[str, Rule] = {}

# Ops whose outputs carry no gradient (PyTorch gives them zero or no derivative).
NONDIFFERENTIABLE = frozenset(
    "aten::eq aten::ne aten::ge aten::gt aten::le aten::lt aten::__and__ aten::__or__ "
    "aten::__xor__ aten::logical_not aten::floor aten::ceil aten::round aten::trunc aten::sign "
    "aten::size aten::dim aten::numel aten::Bool aten::Int aten::Float aten::item aten::rand_like "
    "aten::zeros_like aten::ones_like aten::_size_if_not_equal "
    "aten::floordiv aten::len aten::tensor prim::Constant "
    "prim::BroadcastSizes prim::ChunkSizes prim::Uninitialized prim::NumToTensor "
    "prim::ImplicitTensorToNum prim::dtype prim::device aten::argmax aten::argmin aten::all "
    "aten::any aten::floor_divide aten::full_like aten::empty_like aten::argsort "
    "aten::searchsorted aten::bincount fusejit::unique_values aten::nonzero "
    "fusejit::argsort fusejit::argpartition fusejit::flatnonzero fusejit::unique_all "
    "fusejit::unique_counts fusejit::unique_inverse fusejit::unique_along fusejit::matrix_rank "
    "fusejit::lexsort "
    "fusejit::histogram2d aten::signbit fusejit::ufunc_at_ aten::gcd aten::lcm".split())


def derivative(*schemas: str) -> Callable[[Rule], Rule]:
    """Register ``rule`` for each schema text (or ``prim::`` kind)."""
    def register(rule: Rule) -> Rule:
        for schema in schemas:
            RULES[schema] = rule
        return rule
    return register


def _alpha_is_one(node: Node, index: int) -> bool:
    from ..ir.constants import constant_value
    from ..ir.symbols import prim

    producer = node.input(index).node
    return producer.kind == prim.Constant and constant_value(producer) == 1


# -- add, sub, mul, div ----------------------------------------------------------------------

@derivative("aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            "aten::sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
def _add_sub(ctx, node: Node, grads: list) -> dict:
    g = grads[0]
    self, other = node.input(0), node.input(1)
    g_other = g if _alpha_is_one(node, 2) else ctx.emit("aten::mul", g, ctx.saved(node.input(2)))
    if node.kind == "aten::sub":
        g_other = ctx.emit("aten::neg", g_other)
    return [(self, ctx.sum_to(g, self)), (other, ctx.sum_to(g_other, other))]


@derivative("aten::add(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
            "aten::sub(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
            "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
            "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor")
def _identity(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): grads[0]}


@derivative("aten::mul(Tensor self, Tensor other) -> Tensor")
def _mul(ctx, node: Node, grads: list) -> dict:
    self, other = node.input(0), node.input(1)
    return [(self, ctx.sum_to(ctx.emit("aten::mul", grads[0], ctx.saved(other)), self)),
            (other, ctx.sum_to(ctx.emit("aten::mul", grads[0], ctx.saved(self)), other))]


@derivative("aten::mul(Tensor self, Scalar other) -> Tensor",
            "aten::div(Tensor self, Scalar other) -> Tensor")
def _scale(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit(node.kind, grads[0], ctx.saved(node.input(1)))}


def _div_tensor(ctx, node: Node, grads: list) -> dict:
    g = grads[0]
    self, other = node.input(0), node.input(1)
    o = ctx.saved(other)
    # d(self / other)/d other = -self / other^2 (derivatives.yaml: div_tensor_other_backward)
    g_other = ctx.emit("aten::neg", ctx.emit("aten::div", ctx.emit(
        "aten::mul", g, ctx.saved(self)), ctx.emit("aten::mul", o, o)))
    return [(self, ctx.sum_to(ctx.emit("aten::div", g, o), self)),
            (other, ctx.sum_to(g_other, other))]


RULES["aten::div(Tensor self, Tensor other) -> Tensor"] = _div_tensor


@derivative("aten::div(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor")
def _div_mode(ctx, node: Node, grads: list) -> dict:
    from ..ir.types import NoneType

    if isinstance(node.input(2).type, NoneType):
        return _div_tensor(ctx, node, grads)
    return {}   # floor and trunc division are piecewise constant


# -- unary pointwise -------------------------------------------------------------------------

def _unary(schema_op: str, formula: Callable[..., Value]) -> None:
    def rule(ctx, node: Node, grads: list) -> dict:
        return {node.input(0): formula(ctx, grads[0], node.input(0), node.output())}
    RULES[f"aten::{schema_op}(Tensor self) -> Tensor"] = rule


def _times(ctx, a: Value, b: Value) -> Value:
    return ctx.emit("aten::mul", a, b)


def _scalar_mul(ctx, a: Value, c: float) -> Value:
    return ctx.emit("aten::mul", a, ctx.const(float(c)))


def _one_minus(ctx, x: Value) -> Value:
    return ctx.emit("aten::add", ctx.emit("aten::neg", x), ctx.const(1), ctx.const(1))


_unary("neg", lambda c, g, x, y: c.emit("aten::neg", g))
_unary("exp", lambda c, g, x, y: _times(c, g, c.saved(y)))
_unary("expm1", lambda c, g, x, y: _times(c, g, c.emit("aten::add", c.saved(y), c.const(1),
                                                        c.const(1))))
_unary("log", lambda c, g, x, y: c.emit("aten::div", g, c.saved(x)))
_unary("log2", lambda c, g, x, y: c.emit("aten::div", g, _scalar_mul(c, c.saved(x),
                                                                      math.log(2.0))))
_unary("log10", lambda c, g, x, y: c.emit("aten::div", g, _scalar_mul(c, c.saved(x),
                                                                       math.log(10.0))))
_unary("log1p", lambda c, g, x, y: c.emit("aten::div", g, c.emit(
    "aten::add", c.saved(x), c.const(1), c.const(1))))
_unary("tanh", lambda c, g, x, y: _times(c, g, _one_minus(c, _times(c, c.saved(y), c.saved(y)))))
_unary("sigmoid", lambda c, g, x, y: _times(c, g, _times(c, c.saved(y), _one_minus(c, c.saved(y)))))
_unary("relu", lambda c, g, x, y: _times(c, g, c.emit(
    "aten::type_as", c.emit("aten::gt", c.saved(y), c.const(0)), g)))
_unary("sqrt", lambda c, g, x, y: c.emit("aten::div", g, _scalar_mul(c, c.saved(y), 2.0)))
_unary("rsqrt", lambda c, g, x, y: _times(c, _scalar_mul(c, g, -0.5), c.emit(
    "aten::pow", c.saved(y), c.const(3))))
_unary("reciprocal", lambda c, g, x, y: c.emit("aten::neg", _times(c, g, _times(
    c, c.saved(y), c.saved(y)))))
_unary("sin", lambda c, g, x, y: _times(c, g, c.emit("aten::cos", c.saved(x))))
_unary("cos", lambda c, g, x, y: c.emit("aten::neg", _times(c, g, c.emit("aten::sin",
                                                                         c.saved(x)))))
_unary("tan", lambda c, g, x, y: _times(c, g, c.emit("aten::add", _times(c, c.saved(y), c.saved(y)),
                                                    c.const(1), c.const(1))))
_unary("sinh", lambda c, g, x, y: _times(c, g, c.emit("aten::cosh", c.saved(x))))
_unary("cosh", lambda c, g, x, y: _times(c, g, c.emit("aten::sinh", c.saved(x))))
_unary("atan", lambda c, g, x, y: c.emit("aten::div", g, c.emit(
    "aten::add", _times(c, c.saved(x), c.saved(x)), c.const(1), c.const(1))))
_unary("asin", lambda c, g, x, y: _times(c, g, c.emit("aten::rsqrt", _one_minus(
    c, _times(c, c.saved(x), c.saved(x))))))
_unary("acos", lambda c, g, x, y: c.emit("aten::neg", _times(c, g, c.emit("aten::rsqrt", _one_minus(
    c, _times(c, c.saved(x), c.saved(x)))))))
_unary("asinh", lambda c, g, x, y: _times(c, g, c.emit("aten::rsqrt", c.emit(
    "aten::add", _times(c, c.saved(x), c.saved(x)), c.const(1), c.const(1)))))
_unary("acosh", lambda c, g, x, y: _times(c, g, c.emit("aten::rsqrt", c.emit(
    "aten::sub", _times(c, c.saved(x), c.saved(x)), c.const(1), c.const(1)))))
_unary("atanh", lambda c, g, x, y: c.emit("aten::div", g, _one_minus(
    c, _times(c, c.saved(x), c.saved(x)))))
_unary("abs", lambda c, g, x, y: _times(c, g, c.emit("aten::sign", c.saved(x))))
_unary("erf", lambda c, g, x, y: _times(c, _scalar_mul(c, g, 2.0 / math.sqrt(math.pi)), c.emit(
    "aten::exp", c.emit("aten::neg", _times(c, c.saved(x), c.saved(x))))))


# -- pow, clamp, where, min/max and friends ------------------------------------------------------

@derivative("aten::pow(Tensor self, Scalar exponent) -> Tensor")
def _pow_scalar(ctx, node: Node, grads: list) -> dict:
    # g * e * x^(e-1); derivatives.yaml's pow_backward (e == 0 has a zero gradient, which this
    # gives too: the factor e is 0)
    e = ctx.saved(node.input(1))
    e_minus_one = ctx.emit("aten::sub", e, ctx.const(1), type=node.input(1).type)
    power = ctx.emit("aten::pow", ctx.saved(node.input(0)), e_minus_one)
    return {node.input(0): _times(ctx, ctx.emit("aten::mul", grads[0], e), power)}


@derivative("aten::pow(Tensor self, Tensor other) -> Tensor")
def _pow_tensor(ctx, node: Node, grads: list) -> dict:
    self, exponent = node.input(0), node.input(1)
    x, e = ctx.saved(self), ctx.saved(exponent)
    e_minus_one = ctx.emit("aten::sub", e, ctx.const(1), ctx.const(1))
    g_self = _times(ctx, _times(ctx, grads[0], e), ctx.emit("aten::pow", x, e_minus_one))
    g_exp = _times(ctx, _times(ctx, grads[0], ctx.saved(node.output())), ctx.emit("aten::log", x))
    return [(self, ctx.sum_to(g_self, self)), (exponent, ctx.sum_to(g_exp, exponent))]


@derivative("aten::pow(Scalar self, Tensor exponent) -> Tensor")
def _pow_base_scalar(ctx, node: Node, grads: list) -> dict:
    from ..ir.types import FLOAT

    log_base = ctx.emit("aten::log", ctx.emit("aten::Float", ctx.saved(node.input(0)),
                                              type=FLOAT), type=FLOAT)
    return {node.input(1): _times(ctx, ctx.emit("aten::mul", grads[0], log_base),
                                ctx.saved(node.output()))}


def _masked(ctx, g: Value, mask: Value) -> Value:
    """``g`` where ``mask`` holds, else 0 (``mask`` a bool tensor)."""
    return _times(ctx, g, ctx.emit("aten::type_as", mask, g))


@derivative("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")
def _clamp(ctx, node: Node, grads: list) -> dict:
    from ..ir.types import NoneType

    x = ctx.saved(node.input(0))
    mask = None
    for bound, op in ((node.input(1), "aten::ge"), (node.input(2), "aten::le")):
        if isinstance(bound.type, NoneType):
            continue
        inside = ctx.emit(op, x, ctx.saved(bound))
        mask = inside if mask is None else ctx.emit("aten::__and__", mask, inside)
    return {node.input(0): grads[0] if mask is None else _masked(ctx, grads[0], mask)}


@derivative("aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor")
def _threshold(ctx, node: Node, grads: list) -> dict:
    above = ctx.emit("aten::gt", ctx.saved(node.input(0)), ctx.saved(node.input(1)))
    return {node.input(0): _masked(ctx, grads[0], above)}


@derivative("aten::where(Tensor condition, Tensor self, Tensor other) -> Tensor")
def _where(ctx, node: Node, grads: list) -> dict:
    cond, self, other = node.inputs
    c = ctx.saved(cond)
    g_self = _masked(ctx, grads[0], c)
    g_other = ctx.emit("aten::sub", grads[0], g_self, ctx.const(1))
    return [(self, ctx.sum_to(g_self, self)), (other, ctx.sum_to(g_other, other))]


@derivative("aten::where(Tensor condition, Tensor self, Scalar other) -> Tensor",
            "aten::where(Tensor condition, Scalar self, Tensor other) -> Tensor",
            "aten::where(Tensor condition, Scalar self, Scalar other) -> Tensor")
def _where_scalar(ctx, node: Node, grads: list) -> list:
    # PyTorch's where.ScalarOther/ScalarSelf: the tensor branch gets grad where it was chosen
    cond, self, other = node.inputs
    g_self = _masked(ctx, grads[0], ctx.saved(cond))
    pairs = []
    if isinstance(self.type, TensorType):
        pairs.append((self, ctx.sum_to(g_self, self)))
    if isinstance(other.type, TensorType):
        g_other = ctx.emit("aten::sub", grads[0], g_self, ctx.const(1))
        pairs.append((other, ctx.sum_to(g_other, other)))
    return pairs


@derivative("aten::max(Tensor self, Tensor other) -> Tensor",
            "aten::min(Tensor self, Tensor other) -> Tensor")
def _max_min(ctx, node: Node, grads: list) -> dict:
    # derivatives.yaml (maximum/minimum): a tie splits the gradient evenly between the two.
    self, other = node.input(0), node.input(1)
    x, y = ctx.saved(self), ctx.saved(other)
    wins = ctx.emit("aten::gt" if node.kind == "aten::max" else "aten::lt", x, y)
    half = _scalar_mul(ctx, ctx.emit("aten::type_as", ctx.emit("aten::eq", x, y), grads[0]), 0.5)
    share = ctx.emit("aten::add", ctx.emit("aten::type_as", wins, grads[0]), half, ctx.const(1))
    g_self = _times(ctx, grads[0], share)
    g_other = ctx.emit("aten::sub", grads[0], g_self, ctx.const(1))
    return [(self, ctx.sum_to(g_self, self)), (other, ctx.sum_to(g_other, other))]


@derivative("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) "
            "-> Tensor")
def _addcmul(ctx, node: Node, grads: list) -> dict:
    self, t1, t2, value = node.inputs
    g_scaled = ctx.emit("aten::mul", grads[0], ctx.saved(value))
    return [(self, ctx.sum_to(grads[0], self)),
            (t1, ctx.sum_to(_times(ctx, g_scaled, ctx.saved(t2)), t1)),
            (t2, ctx.sum_to(_times(ctx, g_scaled, ctx.saved(t1)), t2))]


@derivative("aten::lerp(Tensor self, Tensor end, Scalar weight) -> Tensor")
def _lerp_scalar(ctx, node: Node, grads: list) -> dict:
    self, end, weight = node.inputs
    w = ctx.saved(weight)
    g_end = ctx.emit("aten::mul", grads[0], w)
    g_self = ctx.emit("aten::sub", grads[0], g_end, ctx.const(1))
    return [(self, ctx.sum_to(g_self, self)), (end, ctx.sum_to(g_end, end))]


@derivative("aten::type_as(Tensor self, Tensor other) -> Tensor",
            "aten::_cast_Float(Tensor self, bool non_blocking) -> Tensor")
def _type_as(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::type_as", grads[0], ctx.saved(node.input(0)))}


# -- matrices --------------------------------------------------------------------------------

@derivative("aten::mm(Tensor self, Tensor mat2) -> Tensor")
def _mm(ctx, node: Node, grads: list) -> dict:
    self, other = node.input(0), node.input(1)
    t = "aten::t"
    return [(self, ctx.emit(node.kind, grads[0], ctx.emit(t, ctx.saved(other)))),
            (other, ctx.emit(node.kind, ctx.emit(t, ctx.saved(self)), grads[0]))]


@derivative("aten::matmul(Tensor self, Tensor other) -> Tensor")
def _matmul(ctx, node: Node, grads: list) -> list:
    # derivatives.yaml: matmul_backward, by the operands' ranks (known after specialising)
    self, other = node.input(0), node.input(1)
    g, x, y = grads[0], ctx.saved(self), ctx.saved(other)
    ranks = (ctx.rank_of(self), ctx.rank_of(other))
    mm = "aten::matmul"
    if ranks == (1, 1):
        return [(self, _times(ctx, g, y)), (other, _times(ctx, g, x))]
    if ranks == (1, 2):
        outer = ctx.emit(mm, ctx.emit("aten::unsqueeze", x, ctx.const(1)),
                         ctx.emit("aten::unsqueeze", g, ctx.const(0)))
        return [(self, ctx.emit(mm, y, g)), (other, outer)]
    if ranks == (2, 1):
        outer = ctx.emit(mm, ctx.emit("aten::unsqueeze", g, ctx.const(1)),
                         ctx.emit("aten::unsqueeze", y, ctx.const(0)))
        return [(self, outer), (other, ctx.emit(mm, ctx.emit("aten::t", x), g))]
    if None in ranks or min(ranks) < 2:
        ctx.unsupported(node, f"aten::matmul of ranks {ranks} is not differentiated (1-D "
                              f"operands with more than 2-D ones, or unknown ranks)")

    def swap(v: Value) -> Value:
        return ctx.emit("aten::transpose", v, ctx.const(-1), ctx.const(-2))
    g_self, g_other = ctx.emit(mm, g, swap(y)), ctx.emit(mm, swap(x), g)
    if ranks == (2, 2):   # no batch dimensions, so nothing was broadcast
        return [(self, g_self), (other, g_other)]
    return [(self, ctx.sum_to(g_self, self)), (other, ctx.sum_to(g_other, other))]


@derivative("aten::transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
def _transpose(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::transpose", grads[0], ctx.saved(node.input(1)),
                                    ctx.saved(node.input(2)))}


@derivative("aten::t(Tensor(a) self) -> Tensor(a)")
def _t(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::t", grads[0])}


# -- views -----------------------------------------------------------------------------------

@derivative("aten::view(Tensor(a) self, int[] size) -> Tensor(a)",
            "aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)")
def _reshape(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::reshape", grads[0], ctx.size_of(node.input(0)))}


@derivative("aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)")
def _expand(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.sum_to(grads[0], node.input(0))}


@derivative("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)")
def _unsqueeze(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::reshape", grads[0], ctx.size_of(node.input(0)))}


@derivative("aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)")
def _select(ctx, node: Node, grads: list) -> dict:
    self, dim, index = node.inputs
    return {self: ctx.emit("aten::select_backward", grads[0], ctx.size_of(self), ctx.saved(dim),
                           ctx.saved(index))}


@derivative("aten::narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)")
def _narrow(ctx, node: Node, grads: list) -> dict:
    self, dim, start, length = node.inputs
    begin = ctx.saved(start)
    end = ctx.emit("aten::add", begin, ctx.saved(length), type=INT)
    return {self: ctx.emit("aten::slice_backward", grads[0], ctx.size_of(self), ctx.saved(dim),
                           begin, end, ctx.const(1))}


def _split_backward(ctx, pieces: tuple[Value, ...], grads: list, dim: Value) -> Value:
    """The gradient of a tensor cut into ``pieces`` along ``dim``: their gradients joined,
    zeros where a piece has none (derivatives.yaml: split_backward)."""
    parts = [g if g is not None else ctx.emit("aten::zeros_like", ctx.saved(p))
             for p, g in zip(pieces, grads)]
    tensors = ctx.emit("prim::ListConstruct", *parts, type=ListType(parts[0].type))
    return ctx.emit("aten::cat", tensors, dim)


@derivative("prim::ConstantChunk")
def _constant_chunk(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): _split_backward(ctx, node.outputs, grads, ctx.const(node.i("dim")))}


@derivative("prim::ListUnpack")
def _list_unpack(ctx, node: Node, grads: list) -> dict:
    producer = node.input(0).node
    if producer.kind != "aten::chunk":
        ctx.unsupported(node, f"prim::ListUnpack of {producer.kind} is not differentiated")
    return {producer.input(0): _split_backward(ctx, node.outputs, grads,
                                               ctx.saved(producer.input(2)))}


@derivative("aten::cat(Tensor[] tensors, int dim=0) -> Tensor")
def _cat(ctx, node: Node, grads: list) -> dict:
    tensors = _list_elements(ctx, node)
    dim = ctx.saved(node.input(1))
    result, start = [], ctx.const(0)
    for t in tensors:
        length = ctx.saved_size_at(t, node.input(1))
        result.append((t, ctx.emit("aten::narrow", grads[0], dim, start, length)))
        start = ctx.emit("aten::add", start, length, type=INT)
    return result


@derivative("aten::stack(Tensor[] tensors, int dim=0) -> Tensor")
def _stack(ctx, node: Node, grads: list) -> dict:
    tensors = _list_elements(ctx, node)
    dim = ctx.saved(node.input(1))
    return [(t, ctx.emit("aten::select", grads[0], dim, ctx.const(i)))
            for i, t in enumerate(tensors)]


def _list_elements(ctx, node: Node) -> tuple[Value, ...]:
    tensors = node.input(0)
    producer = tensors.node
    if producer.kind != "prim::ListConstruct":
        ctx.unsupported(node, f"{node.kind} of a list made by {producer.kind} is not "
                              f"differentiated (only of a prim::ListConstruct)")
    for use in tensors.uses:
        schema = use.user.schema
        if schema is not None and use.offset in schema.written:
            # (its elements are not the ListConstruct's inputs: the gradient would be lost)
            ctx.unsupported(node, f"{node.kind} of a list changed by {use.user.kind} after it "
                                  f"was made is not differentiated (build the list in one "
                                  f"expression, or stack inside the loop)")
    return producer.inputs


# -- reductions ------------------------------------------------------------------------------

@derivative("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor")
def _sum_all(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::expand", grads[0], ctx.size_of(node.input(0)),
                                    ctx.const(False))}


@derivative("aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
            "-> Tensor")
def _sum_dims(ctx, node: Node, grads: list) -> dict:
    from ..ir.constants import constant_value

    self, dim, keepdim = node.input(0), node.input(1), node.input(2)
    g = grads[0]
    if dim.node.kind != "prim::Constant" or keepdim.node.kind != "prim::Constant":
        ctx.unsupported(node, "aten::sum is differentiated for constant dim and keepdim only")
    dims, keep = constant_value(dim.node), constant_value(keepdim.node)
    if dims is None:
        dims = []
    if not keep and dims:
        rank = ctx.rank_of(self)
        if rank is None:
            ctx.unsupported(node, f"the rank of %{self.debug_name} is unknown")
        for d in sorted(d % rank if rank else d for d in dims):
            g = ctx.emit("aten::unsqueeze", g, ctx.const(d))
    return {self: ctx.emit("aten::expand", g, ctx.size_of(self), ctx.const(False))}


@derivative("aten::softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")
def _softmax(ctx, node: Node, grads: list) -> dict:
    # derivatives.yaml: _softmax_backward_data, (g - sum(g * y, dim, keepdim)) * y
    y = ctx.saved(node.output())
    dims = ctx.emit("prim::ListConstruct", ctx.saved(node.input(1)), type=ListType(INT))
    gy = _times(ctx, grads[0], y)
    total = ctx.emit("aten::sum", gy, dims, ctx.const(True), ctx.const(None))
    return {node.input(0): _times(ctx, ctx.emit("aten::sub", grads[0], total, ctx.const(1)), y)}


@derivative("aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)")
def _grad_sum_to_size(ctx, node: Node, grads: list) -> dict:
    return {node.input(0): ctx.emit("aten::expand", grads[0], ctx.size_of(node.input(0)),
                                    ctx.const(False))}


# -- the fusible ops' remaining rules and those of clamp_min/clamp_max/clamp(Tensor) -------------

_unary("erfc", lambda c, g, x, y: _times(c, _scalar_mul(c, g, -2.0 / math.sqrt(math.pi)), c.emit(
    "aten::exp", c.emit("aten::neg", _times(c, c.saved(x), c.saved(x))))))
_unary("lgamma", lambda c, g, x, y: _times(c, g, c.emit("aten::digamma", c.saved(x))))
_unary("frac", lambda c, g, x, y: g)     # derivatives.yaml: frac: grad
# hardsigmoid_backward: grad / 6 strictly inside (-3, 3), else 0
_unary("hardsigmoid", lambda c, g, x, y: _scalar_mul(c, _masked(c, g, c.emit(
    "aten::__and__", c.emit("aten::gt", c.saved(x), c.const(-3.0)),
    c.emit("aten::lt", c.saved(x), c.const(3.0)))), 1.0 / 6.0))


@derivative("aten::atan2(Tensor self, Tensor other) -> Tensor")
def _atan2(ctx, node: Node, grads: list) -> list:
    # atan2_backward: (grad * other, grad * -self) / (self^2 + other^2)
    self, other = node.input(0), node.input(1)
    y, x = ctx.saved(self), ctx.saved(other)
    denominator = ctx.emit("aten::add", _times(ctx, y, y), _times(ctx, x, x), ctx.const(1))
    g = ctx.emit("aten::div", grads[0], denominator)
    return [(self, ctx.sum_to(_times(ctx, g, x), self)),
            (other, ctx.sum_to(ctx.emit("aten::neg", _times(ctx, g, y)), other))]


@derivative("aten::lerp(Tensor self, Tensor end, Tensor weight) -> Tensor")
def _lerp_tensor(ctx, node: Node, grads: list) -> list:
    # derivatives.yaml lerp.Tensor: grad * (1 - weight), grad * weight, grad * (end - self)
    self, end, weight = node.inputs
    w = ctx.saved(weight)
    g_end = _times(ctx, grads[0], w)
    g_self = ctx.emit("aten::sub", grads[0], g_end, ctx.const(1))
    g_weight = _times(ctx, grads[0], ctx.emit("aten::sub", ctx.saved(end), ctx.saved(self),
                                              ctx.const(1)))
    return [(self, ctx.sum_to(g_self, self)), (end, ctx.sum_to(g_end, end)),
            (weight, ctx.sum_to(g_weight, weight))]


@derivative("aten::logit(Tensor self, float? eps=None) -> Tensor")
def _logit(ctx, node: Node, grads: list) -> dict:
    from ..ir.types import NoneType

    # logit_backward: grad / (x (1 - x)); with eps, 0 outside [eps, 1 - eps]; without, NaN
    # outside [0, 1] (where the forward is NaN too)
    x = ctx.saved(node.input(0))
    g = ctx.emit("aten::div", grads[0], _times(ctx, x, _one_minus(ctx, x)))
    eps = node.input(1)
    if isinstance(eps.type, NoneType):
        inside = ctx.emit("aten::__and__", ctx.emit("aten::ge", x, ctx.const(0.0)),
                          ctx.emit("aten::le", x, ctx.const(1.0)))
        return {node.input(0): ctx.emit("aten::where", inside, g, ctx.const(math.nan))}
    e = ctx.saved(eps)
    inside = ctx.emit("aten::__and__", ctx.emit("aten::ge", x, e),
                      ctx.emit("aten::ge", _one_minus(ctx, x), e))
    return {node.input(0): _masked(ctx, g, inside)}


@derivative("aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor")
def _softplus(ctx, node: Node, grads: list) -> dict:
    # softplus_backward: grad where beta x > threshold, else grad * sigmoid(beta x)
    scaled = ctx.emit("aten::mul", ctx.saved(node.input(0)), ctx.saved(node.input(1)))
    above = ctx.emit("aten::gt", scaled, ctx.saved(node.input(2)))
    smooth = _times(ctx, grads[0], ctx.emit("aten::sigmoid", scaled))
    return {node.input(0): ctx.emit("aten::where", above, grads[0], smooth)}


@derivative("aten::clamp_min(Tensor self, Scalar min) -> Tensor",
            "aten::clamp_max(Tensor self, Scalar max) -> Tensor",
            "aten::clamp_min(Tensor self, Tensor min) -> Tensor",
            "aten::clamp_max(Tensor self, Tensor max) -> Tensor")
def _clamp_one_side(ctx, node: Node, grads: list) -> list:
    # derivatives.yaml: self gets grad where self >= min (<= max); a Tensor bound where it won
    self, bound = node.input(0), node.input(1)
    x, b = ctx.saved(self), ctx.saved(bound)
    is_min = node.kind == "aten::clamp_min"
    kept = ctx.emit("aten::ge" if is_min else "aten::le", x, b)
    pairs = [(self, ctx.sum_to(_masked(ctx, grads[0], kept), self))]
    if isinstance(bound.type, TensorType):
        won = ctx.emit("aten::lt" if is_min else "aten::gt", x, b)
        pairs.append((bound, ctx.sum_to(_masked(ctx, grads[0], won), bound)))
    return pairs


@derivative("aten::clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor")
def _clamp_tensor(ctx, node: Node, grads: list) -> list:
    from ..ir.types import NoneType

    # clamp_backward_min_max: self where min <= self <= max; min where self < min (and
    # min < max when both are given); max where self > max (or max < min)
    self, low, high = node.inputs
    x, g = ctx.saved(self), grads[0]
    lo = None if isinstance(low.type, NoneType) else ctx.saved(low)
    hi = None if isinstance(high.type, NoneType) else ctx.saved(high)
    if lo is None and hi is None:
        ctx.unsupported(node, "clamp needs a min or a max")
    masks = [ctx.emit(op, x, b) for op, b in (("aten::ge", lo), ("aten::le", hi)) if b is not None]
    inside = masks[0] if len(masks) == 1 else ctx.emit("aten::__and__", *masks)
    pairs = [(self, ctx.sum_to(_masked(ctx, g, inside), self))]
    if lo is not None:
        below = ctx.emit("aten::lt", x, lo)
        if hi is not None:
            below = ctx.emit("aten::__and__", below, ctx.emit("aten::lt", lo, hi))
        pairs.append((low, ctx.sum_to(_masked(ctx, g, below), low)))
    if hi is not None:
        above = ctx.emit("aten::gt", x, hi)
        if lo is not None:
            above = ctx.emit("aten::__or__", above, ctx.emit("aten::lt", hi, lo))
        pairs.append((high, ctx.sum_to(_masked(ctx, g, above), high)))
    return pairs


# (rules.py is full: mean, amax/amin, prod, var/std, slice, flip, cumsum, appended lists'
# stack and indexing, factorisations and remainder live in these)
from . import (  # noqa: E402, F401
    array_rules,
    linalg_rules,
    list_grads,
    mean_rules,
    reduction_rules,
    remainder_rules,
    view_rules,
)

# Each rule in its overload's derivative slot of the operator library (prim kinds have none).
for _schema, _rule in RULES.items():
    if _schema in OPS:
        OPS[_schema].derivative = _rule

__all__ = ["NONDIFFERENTIABLE", "RULES", "derivative"]
