"""The fuzzer's op families: each draws one op that fits the values in scope and returns
``(emit, outputs)`` or None. ``emit()`` writes the op's lines (and the constants it needs)::

    %c7 : int = prim::Constant[value=2]()
    %v6 : Tensor = aten::sub(%v3, %i1, %c7)      # _binary: operands that broadcast

An inexact float never feeds a discontinuous op (rounding, comparison, remainder, threshold,
a cast to an integer), so integers and bools always match exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fusejit.oplib.dtypes import result_type

from .vocabulary import (
    BOOL,
    COMPARE,
    EXACT_FLOAT_UNARY,
    F32,
    FLOAT_CONSTANTS,
    I64,
    INEXACT_UNARY,
    INT_CONSTANTS,
    ROUNDING_UNARY,
    SAME_UNARY,
    Meta,
)

if TYPE_CHECKING:
    from .graphs import _Builder


def broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _shape_of(*shapes) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*shapes))


# -- op families: each returns (emit, outputs) or None ----------------------------------------

def _unary(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    op = rnd.choice(INEXACT_UNARY + EXACT_FLOAT_UNARY + SAME_UNARY + ROUNDING_UNARY)
    if op in ROUNDING_UNARY:
        a = bx.pick(first, lambda m: m.kind == "float" and m.exact)
    elif op in ("sin", "cos", "tan"):
        # A periodic function turns its argument's relative error into an absolute one as
        # large as the argument (cos(exp(exp(x))) of a few-ulp difference moved 1.3e-4 in a
        # long run): like atan2, it takes only exact inputs.
        a = bx.pick(first, lambda m: m.exact)
    elif op in SAME_UNARY:
        a = bx.pick(first, lambda m: m.kind != "bool")
    else:
        a = bx.pick(first, lambda m: True)
    if a is None:
        return None
    dtype = a.dtype if (op in SAME_UNARY or op in ROUNDING_UNARY or a.kind == "float") else F32
    exact = a.exact and op not in INEXACT_UNARY
    out = bx.result(a.shape, dtype, exact)
    if out is None:
        return None
    return (lambda: bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name})")), [out]


def _binary(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    op = rnd.choice(("add", "sub", "mul", "div", "max", "min", "atan2", "pow", "fmod",
                     "remainder", *COMPARE, "type_as"))
    # atan2 jumps by 2 pi across y = +-0 for x < 0, so its inputs must be exact too
    discontinuous = op in ("fmod", "remainder", "atan2", *COMPARE)
    if op in ("add", "mul", "div", *COMPARE[:2]):
        ok = lambda m: True
    elif op in ("atan2", "pow"):
        ok = lambda m: m.kind == "float"
    elif op == "type_as":
        ok = lambda m: True
    else:
        ok = lambda m: m.kind != "bool"
    if discontinuous:
        ok_exact = lambda m: ok(m) and m.exact
    else:
        ok_exact = ok
    a = bx.pick(first, ok_exact)
    if a is None:
        return None
    same_float = lambda m: ok_exact(m) and (op not in ("pow", "atan2") or m.dtype == a.dtype)
    b = bx.partner(a, same_float)
    if b is None:
        return None
    if op in ("add", "mul") and a.kind == "bool" and b.kind == "bool":
        return None
    dtype = result_type(a.proxy(), b.proxy())
    exact = a.exact and b.exact
    if op in COMPARE:
        dtype = BOOL
    elif op == "div" and dtype.kind != "f":
        dtype = F32
    elif op in ("atan2", "pow"):
        exact = False
    shape = _shape_of(a.shape, b.shape)
    if op == "type_as":
        if b.kind != "float" and a.kind == "float" and not a.exact:
            return None
        dtype, shape = b.dtype, a.shape
        exact = a.exact
    out = bx.result(shape, dtype, exact)
    if out is None:
        return None

    def emit() -> None:
        if op in ("add", "sub"):
            alpha = bx.const(rnd.choice((1, 2, -1)))
            bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name}, %{b.name}, %{alpha})")
        else:
            bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name}, %{b.name})")
    return emit, [out]


def _with_scalar(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    op = rnd.choice(("add", "sub", "mul", "div", "pow", *COMPARE))
    a = bx.pick(first, lambda m: m.kind != "bool" and (m.exact or op not in COMPARE))
    if a is None:
        return None
    # The scalar's kind follows the tensor's (an int tensor with a float scalar would be a
    # float result); div also takes an int scalar with a float tensor and vice versa.
    kind = a.kind if op != "div" else rnd.choice(("int", "float"))
    if op == "pow":
        exact = a.kind == "int"           # integer powers are exact (and wrap)
    else:
        exact = a.exact
    dtype = a.dtype
    if op in COMPARE:
        dtype = BOOL
    elif kind == "float" and a.kind != "float" or op == "div" and dtype.kind != "f":
        dtype = F32
    out = bx.result(a.shape, dtype, exact)
    if out is None:
        return None

    def emit() -> None:
        if op == "pow" and a.kind == "int":
            operand = "%" + bx.const(rnd.randint(0, 3))   # never a negative integer power
        else:
            operand = bx.scalar_operand(kind)[0]
        if op in ("add", "sub"):
            alpha = bx.const(1)
            bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name}, {operand}, %{alpha})")
        else:
            bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name}, {operand})")
    return emit, [out]


def _select(bx: _Builder, first: Meta | None):
    """where, clamp, threshold, lerp, addcmul, _cast_Float, pow(Scalar, Tensor)."""
    rnd = bx.rnd
    op = rnd.choice(("where", "clamp", "threshold", "lerp", "lerp_t", "addcmul", "cast",
                     "rpow"))
    if op == "where":
        a = bx.pick(first, lambda m: m.kind != "bool")
        if a is None:
            return None
        cond = bx.partner(a, lambda m: m.kind == "bool")
        b = bx.partner(a, lambda m: m.kind != "bool" and (cond is None or
                                                         broadcasts(cond.shape, m.shape)))
        if cond is None or b is None:
            return None
        shape = _shape_of(cond.shape, a.shape, b.shape)
        out = bx.result(shape, result_type(a.proxy(), b.proxy()), a.exact and b.exact)
        if out is None:
            return None
        return (lambda: bx.emit(f"{bx.out_decl(out)} = aten::where(%{cond.name}, %{a.name}, "
                                f"%{b.name})")), [out]
    if op in ("clamp", "threshold"):
        a = bx.pick(first, lambda m: m.kind != "bool" and (op == "clamp" or m.exact))
        if a is None:
            return None
        out = bx.result(a.shape, a.dtype, a.exact)
        if out is None:
            return None
        pool = FLOAT_CONSTANTS if a.kind == "float" else INT_CONSTANTS

        def emit() -> None:
            if op == "clamp":
                lo, hi = sorted(rnd.sample(pool, 2))
                lo = None if rnd.random() < 0.25 else lo
                hi = None if lo is not None and rnd.random() < 0.25 else hi
                args = ", ".join("%" + bx.const(v) for v in (lo, hi))
            else:
                args = ", ".join("%" + bx.const(rnd.choice(pool)) for _ in range(2))
            bx.emit(f"{bx.out_decl(out)} = aten::{op}(%{a.name}, {args})")
        return emit, [out]
    if op == "cast":
        a = bx.pick(first, lambda m: True)
        if a is None:
            return None
        out = bx.result(a.shape, F32, a.exact)
        if out is None:
            return None

        def emit() -> None:
            flag = bx.const(False)
            bx.emit(f"{bx.out_decl(out)} = aten::_cast_Float(%{a.name}, %{flag})")
        return emit, [out]
    if op == "rpow":
        a = bx.pick(first, lambda m: m.kind == "float")
        if a is None:
            return None
        out = bx.result(a.shape, a.dtype, False)
        if out is None:
            return None

        def emit() -> None:
            base = bx.const(rnd.choice((0.5, 2.0, 3.0)))
            bx.emit(f"{bx.out_decl(out)} = aten::pow(%{base}, %{a.name})")
        return emit, [out]
    # lerp, lerp_t, addcmul: float operands of one dtype
    a = bx.pick(first, lambda m: m.kind == "float")
    if a is None:
        return None
    b = bx.partner(a, lambda m: m.dtype == a.dtype)
    if b is None:
        return None
    c = None
    if op != "lerp":
        c = bx.partner(a, lambda m: m.dtype == a.dtype and broadcasts(b.shape, m.shape))
        if c is None:
            return None
    shape = _shape_of(a.shape, b.shape, *(() if c is None else (c.shape,)))
    out = bx.result(shape, a.dtype, False)
    if out is None:
        return None

    def emit() -> None:
        if op == "lerp":
            w = bx.const(rnd.choice((0.25, 0.5, 0.75, 1.5)))
            bx.emit(f"{bx.out_decl(out)} = aten::lerp(%{a.name}, %{b.name}, %{w})")
        elif op == "lerp_t":
            bx.emit(f"{bx.out_decl(out)} = aten::lerp(%{a.name}, %{b.name}, %{c.name})")
        else:
            v = bx.const(rnd.choice((1, 2, 0.5)))
            bx.emit(f"{bx.out_decl(out)} = aten::addcmul(%{a.name}, %{b.name}, %{c.name}, "
                    f"%{v})")
    return emit, [out]


def _chunk(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    a = bx.pick(first, lambda m: any(n and n % 2 == 0 or n and n % 3 == 0 for n in m.shape))
    if a is None:
        return None
    dims = [(d, c) for d, n in enumerate(a.shape) for c in (2, 3) if n and n % c == 0]
    dim, chunks = rnd.choice(dims)
    shape = list(a.shape)
    shape[dim] //= chunks
    outs = [bx.result(tuple(shape), a.dtype, a.exact) for _ in range(chunks)]
    if dim and rnd.random() < 0.5:
        dim -= len(a.shape)
    decls = ", ".join(bx.out_decl(o) for o in outs)

    def emit() -> None:
        if rnd.random() < 0.5:
            bx.emit(f"{decls} = prim::ConstantChunk[chunks={chunks}, dim={dim}](%{a.name})")
        else:
            c, d = bx.const(chunks), bx.const(dim)
            lst = bx.fresh("l")
            bx.emit(f"%{lst} : Tensor[] = aten::chunk(%{a.name}, %{c}, %{d})")
            bx.emit(f"{decls} = prim::ListUnpack(%{lst})")
    return emit, outs


def _cat(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    a = bx.pick(first, lambda m: len(m.shape) >= 1)
    if a is None:
        return None
    others = bx.tensors(lambda m: m.shape == a.shape and m.dtype == a.dtype)
    b = rnd.choice(others)
    dim = rnd.randrange(len(a.shape))
    shape = list(a.shape)
    shape[dim] *= 2
    out = bx.result(tuple(shape), a.dtype, a.exact and b.exact)
    if out is None:
        return None

    def emit() -> None:
        lst = bx.fresh("l")
        bx.emit(f"%{lst} : Tensor[] = prim::ListConstruct(%{a.name}, %{b.name})")
        d = bx.const(dim - len(shape) if rnd.random() < 0.3 else dim)
        bx.emit(f"{bx.out_decl(out)} = aten::cat(%{lst}, %{d})")
    return emit, [out]


def _mm(bx: _Builder, first: Meta | None):
    a = bx.pick(first, lambda m: len(m.shape) == 2 and m.kind == "float")
    if a is None:
        return None
    m = bx.rnd.choice((1, 2, 3))
    out = bx.result((a.shape[0], m), a.dtype, False)
    if out is None:
        return None

    def emit() -> None:
        # The right operand is a new graph input: mm takes no broadcasting.
        saved, bx.scopes = bx.scopes, [bx.scopes[0]]
        b = bx.tensor_input((a.shape[1], m), a.dtype)
        bx.scopes = saved
        bx.emit(f"{bx.out_decl(out)} = aten::mm(%{a.name}, %{b.name})")
    return emit, [out]


def _sum(bx: _Builder, first: Meta | None):
    rnd = bx.rnd
    a = bx.pick(first, lambda m: True)
    if a is None:
        return None
    dtype = a.dtype if a.kind == "float" else I64
    rank = len(a.shape)
    dims = sorted(rnd.sample(range(rank), rnd.randint(1, rank))) if rank and rnd.random() < 0.6 \
        else None
    keep = rnd.random() < 0.5
    if dims is None:
        shape: tuple[int, ...] = ()
    else:
        shape = tuple(1 if d in dims else n for d, n in enumerate(a.shape) if keep or d not in dims)
    out = bx.result(shape, dtype, a.exact and a.kind != "float")
    if out is None:
        return None

    def emit() -> None:
        none = bx.const(None)
        if dims is None:
            bx.emit(f"{bx.out_decl(out)} = aten::sum(%{a.name}, %{none})")
        else:
            lst, k = bx.int_list(dims), bx.const(keep)
            bx.emit(f"{bx.out_decl(out)} = aten::sum(%{a.name}, %{lst}, %{k}, %{none})")
    return emit, [out]


FAMILIES = (_unary, _unary, _binary, _binary, _binary, _with_scalar, _select, _select,
             _chunk, _cat, _mm, _sum)


