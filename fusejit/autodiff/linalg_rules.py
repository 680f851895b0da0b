"""Derivatives of the factorisations of ``oplib/linalg_ops.py``, with PyTorch's formulas
(``tools/autograd/derivatives.yaml``, ``FunctionsManual.cpp``)::

    %l = aten::linalg_cholesky(%a)     cholesky_backward: with P = tril(L^T @ d%l),
                                       S = L^-T (P + tril(P, -1)^T) / 2 L^-1 (symmetric),
                                       d%a = tril(S) + tril(S, -1)   (see below)
    %s = aten::linalg_svdvals(%a)      d%a = fusejit::svdvals_backward(d%s, %a)  (U diag Vh)
    %w = aten::linalg_eigvalsh(%a)     d%a = fusejit::eigvalsh_backward(d%w, %a, UPLO)
    %w, %v = aten::linalg_eigh(%a)     d%a = fusejit::eigh_backward(d%w, d%v, %a, UPLO)

PyTorch returns the symmetric ``S``: its input is taken to be symmetric. NumPy's (and
``linalg_cholesky``'s) factorisation reads the lower triangle only, so an element below the
diagonal stands for both mirrored ones: it gets both halves of ``S`` and the upper triangle
none. Both agree on any symmetric matrix built from the inputs (``a @ a.T + eps * I``).
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Node, Value
from .array_rules import _mT
from .rules import derivative


def _solve(ctx, a: Value, b: Value) -> Value:
    return ctx.emit("aten::linalg_solve", a, b, ctx.const(True))


@derivative("aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor")
def _linalg_cholesky(ctx, node: Node, grads: list) -> dict:
    upper = node.input(1)
    if upper.node.kind != "prim::Constant" or constant_value(upper.node) is not False:
        ctx.unsupported(node, "aten::linalg_cholesky is differentiated for upper=False")
    lower = ctx.saved(node.output())
    lower_t = _mT(ctx, lower)
    p = ctx.emit("aten::tril", ctx.emit("aten::matmul", lower_t, grads[0]), ctx.const(0))
    half = ctx.emit("aten::mul", ctx.emit("aten::add", p, _mT(ctx, ctx.emit(
        "aten::tril", p, ctx.const(-1))), ctx.const(1)), ctx.const(0.5))
    # L^-T half L^-1: solve L^T Y = half, then Y L^-1 = (L^-T Y^T)^T
    left = _solve(ctx, lower_t, half)
    sym = _mT(ctx, _solve(ctx, lower_t, _mT(ctx, left)))
    return {node.input(0): ctx.emit("aten::add", ctx.emit("aten::tril", sym, ctx.const(0)),
                                    ctx.emit("aten::tril", sym, ctx.const(-1)), ctx.const(1))}


@derivative("aten::linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor")
def _linalg_svdvals(ctx, node: Node, grads: list) -> dict:
    a = node.input(0)
    return {a: ctx.emit("fusejit::svdvals_backward", grads[0], ctx.saved(a))}


@derivative('aten::linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor')
def _linalg_eigvalsh(ctx, node: Node, grads: list) -> dict:
    a = node.input(0)
    return {a: ctx.emit("fusejit::eigvalsh_backward", grads[0], ctx.saved(a),
                        ctx.saved(node.input(1)))}


@derivative('aten::linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, '
            'Tensor eigenvectors)')
def _linalg_eigh(ctx, node: Node, grads: list) -> dict:
    a = node.input(0)
    g_values, g_vectors = (g if g is not None else ctx.const(None) for g in grads)
    return {a: ctx.emit("fusejit::eigh_backward", g_values, g_vectors, ctx.saved(a),
                        ctx.saved(node.input(1)))}
