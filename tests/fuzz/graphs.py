"""Random well-typed graphs for the differential fuzzer, written as IR text, with their inputs.

One draw gives a :class:`FuzzCase`: the IR text, the arrays and scalars to call it with, and for
every value the generator made whether it is *exact* (see ``tolerances.py``). The generator
tracks each value's shape and dtype (PyTorch promotion via ``fusejit.runtime.dtypes``) so that
every op it writes is valid for its operands::

    graph(%i0 : Float(3, 1, requires_grad=0, device=cpu), %i1 : Double(4), %s2 : float):
      %v3 : Tensor = aten::exp(%i0)
      %c4 : int = prim::Constant[value=1]()
      %v5 : Tensor = aten::add(%v3, %i1, %c4)               # broadcast (3, 1) + (4,)
      %v6 : Tensor, %v7 : Tensor = prim::ConstantChunk[chunks=2, dim=1](%v5)
      ...
      return (%v6, %v7)

Ops: the fuser's simple-map ops (unary, binary, scalar forms, where, clamp, threshold, lerp,
addcmul, pow, type_as, _cast_Float), ConstantChunk and aten::chunk + ListUnpack, cat, mm and
sum, and If/Loop blocks whose bodies are generated the same way. Inputs have broadcasting shapes
(with 0-size and 0-dim ones), dtypes float32, float64, int64 and bool, and arrive contiguous,
transposed, strided, reversed or broadcast (stride 0).

An inexact float never feeds a discontinuous op (rounding, comparison, remainder, threshold,
a cast to an integer), so integers and bools must always match exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from fusejit.ir.types import ScalarType, TensorType
from fusejit.runtime.dtypes import result_type

F32, F64, I64, BOOL = (np.dtype(t) for t in ("float32", "float64", "int64", "bool"))
MAX_NUMEL = 720

# Hostile debug names and a hostile source file name: any of these words in a kernel's
# source means text was copied from the graph.
HOSTILE_WORDS = ("__import__", "evil_payload", "os_system", "subprocess_popen", "__builtins__")
HOSTILE_SOURCE = "evil_source_file.py"

INEXACT_UNARY = ("exp log tanh sigmoid sin cos atan log1p expm1 erf rsqrt acos asin cosh "
                 "sinh tan log10 log2 erfc").split()
INEXACT_UNARY = tuple(INEXACT_UNARY)
EXACT_FLOAT_UNARY = ("sqrt", "reciprocal")
SAME_UNARY = ("abs", "neg", "relu")
ROUNDING_UNARY = ("floor", "ceil", "trunc", "round", "frac")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
FLOAT_CONSTANTS = (0.5, -1.25, 2.0, 0.1, 3.0, -0.3, 1e-3)
INT_CONSTANTS = (0, 1, 2, 3, -2)


class Meta:
    """What the generator knows of one value: a tensor's shape and dtype, or a scalar's kind."""

    __slots__ = ("name", "shape", "dtype", "exact", "scalar")

    def __init__(self, name: str, shape: tuple[int, ...] = (), dtype: np.dtype = F32,
                 exact: bool = True, scalar: str | None = None):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.exact = exact
        self.scalar = scalar          # None for tensors, else "float" | "int" | "bool"

    def proxy(self):
        return np.zeros(self.shape, self.dtype)

    @property
    def kind(self) -> str:
        return {"b": "bool", "i": "int", "f": "float"}[self.dtype.kind]


class FuzzCase:
    """A generated graph: its text, its call arguments and what each value name must satisfy."""

    __slots__ = ("text", "args", "exact", "hostile")

    def __init__(self, text: str, args: list, exact: dict[str, bool], hostile: bool):
        self.text = text
        self.args = args
        self.exact = exact
        self.hostile = hostile

    def __repr__(self) -> str:
        described = [f"array({a.dtype}, shape={a.shape}, strides={a.strides})"
                     if isinstance(a, np.ndarray) else repr(a) for a in self.args]
        return f"FuzzCase(\n{self.text}\nargs={described})"


def _type_text(meta: Meta) -> str:
    scalar_type = ScalarType.from_dtype(meta.dtype)
    return str(TensorType(scalar_type, meta.shape, None, False, "cpu"))


class _Builder:
    def __init__(self, rnd: random.Random, data: np.random.Generator, typed: bool,
                 hostile: bool):
        self.rnd = rnd
        self.data = data
        self.typed = typed
        self.hostile = hostile
        self.counter = 0
        self.params: list[str] = []
        self.args: list = []
        self.lines: list[str] = []
        self.indent = 1
        self.scopes: list[list[Meta]] = [[]]
        self.exact: dict[str, bool] = {}
        self.flag: Meta | None = None
        self.trips: Meta | None = None
        self.input_names: set[str] = set()

    # -- names, lines, constants -----------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        if self.hostile:
            return f"{self.rnd.choice(HOSTILE_WORDS)}{prefix}{self.counter}"
        return f"{prefix}{self.counter}"

    def emit(self, text: str) -> None:
        comment = f" # {HOSTILE_SOURCE}:{self.counter}:1" if self.hostile else ""
        self.lines.append("  " * self.indent + text + comment)

    def const(self, value) -> str:
        name = self.fresh("c")
        if value is None:
            self.emit(f"%{name} : NoneType = prim::Constant()")
        elif isinstance(value, bool):
            self.emit(f"%{name} : bool = prim::Constant[value={int(value)}]()")
        elif isinstance(value, int):
            self.emit(f"%{name} : int = prim::Constant[value={value}]()")
        else:
            self.emit(f"%{name} : float = prim::Constant[value={value!r}]()")
        return name

    def int_list(self, values: list[int]) -> str:
        names = [self.const(v) for v in values]
        name = self.fresh("l")
        self.emit(f"%{name} : int[] = prim::ListConstruct({', '.join('%' + n for n in names)})")
        return name

    def out_decl(self, meta: Meta) -> str:
        return f"%{meta.name} : {_type_text(meta) if self.typed else 'Tensor'}"

    def pool(self) -> list[Meta]:
        return [m for scope in self.scopes for m in scope]

    def tensors(self, pred: Callable[[Meta], bool] = lambda m: True) -> list[Meta]:
        return [m for m in self.pool() if m.scalar is None and pred(m)]

    def add(self, meta: Meta) -> Meta:
        self.scopes[-1].append(meta)
        self.exact[meta.name] = meta.exact
        return meta

    # -- inputs ----------------------------------------------------------------------------
    def tensor_input(self, shape: tuple[int, ...], dtype: np.dtype) -> Meta:
        meta = Meta(self.fresh("i"), shape, dtype)
        self.params.append(f"%{meta.name} : {_type_text(meta)}")
        self.input_names.add(meta.name)
        self.args.append(self.array(shape, dtype))
        return self.add(meta)

    def scalar_input(self, kind: str, value) -> Meta:
        meta = Meta(self.fresh("s"), (), {"float": F64, "int": I64, "bool": BOOL}[kind],
                    scalar=kind)
        self.params.append(f"%{meta.name} : {kind}")
        self.args.append(value)
        self.scopes[0].append(meta)
        return meta

    def array(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        data, n = self.data, int(np.prod(shape, dtype=np.int64))
        if dtype == BOOL:
            flat = data.random(n) < 0.5
        elif dtype.kind == "i":
            flat = data.integers(-4, 5, n).astype(dtype)
        else:
            flat = np.round(data.uniform(-3, 3, n), 2).astype(dtype)
            if n and data.random() < 0.2:
                specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e30], dtype)
                picks = data.integers(0, n, max(1, n // 4))
                flat[picks] = specials[data.integers(0, len(specials), len(picks))]
        base = flat.reshape(shape)
        layout = self.rnd.choice(("contiguous", "contiguous", "transposed", "strided",
                                  "reversed", "broadcast"))
        if layout == "transposed" and len(shape) >= 2:
            return np.ascontiguousarray(base.T).T
        if layout == "strided" and len(shape) >= 1:
            wide = np.zeros(shape[:-1] + (2 * shape[-1],), dtype)
            wide[..., ::2] = base
            return wide[..., ::2]
        if layout == "reversed" and len(shape) >= 1:
            return np.ascontiguousarray(base[..., ::-1])[..., ::-1]
        if layout == "broadcast" and len(shape) >= 1 and shape[0] > 1:
            return np.broadcast_to(base[:1], shape)
        return base

    # -- ops -------------------------------------------------------------------------------
    def plan(self, first: Meta | None = None):
        """A random op: (emit function, output metas), or None if the draw does not fit."""
        family = self.rnd.choice(_FAMILIES)
        return family(self, first)

    def result(self, shape, dtype, exact: bool) -> Meta | None:
        if int(np.prod(shape, dtype=np.int64)) > MAX_NUMEL:
            return None
        return Meta(self.fresh("v"), tuple(shape), np.dtype(dtype), exact)

    def partner(self, a: Meta, pred: Callable[[Meta], bool] = lambda m: True) -> Meta | None:
        options = self.tensors(lambda m: pred(m) and _broadcasts(a.shape, m.shape))
        return self.rnd.choice(options) if options else None

    def pick(self, first: Meta | None, pred: Callable[[Meta], bool]) -> Meta | None:
        if first is not None:
            return first if pred(first) else None
        options = self.tensors(pred)
        return self.rnd.choice(options) if options else None

    def scalar_operand(self, kind: str) -> tuple[str, object]:
        """A constant or a float graph input, for an op whose tensor operand is ``kind``."""
        rnd = self.rnd
        if kind == "float":
            floats = [m for m in self.scopes[0] if m.scalar == "float"]
            if floats and rnd.random() < 0.4:
                return "%" + floats[0].name, 0.5
            value = rnd.choice(FLOAT_CONSTANTS)
        else:
            value = rnd.choice(INT_CONSTANTS)
        return "%" + self.const(value), value

    # -- blocks ----------------------------------------------------------------------------
    def chain(self, start: Meta, steps: int) -> Meta:
        """Ops that keep ``start``'s shape and dtype, ending in a value like it."""
        cur = start
        for _ in range(steps):
            for _attempt in range(12):
                planned = self.plan(cur)
                if planned is None:
                    continue
                emit, outs = planned
                out = outs[0]
                if out.shape == start.shape and out.dtype == start.dtype:
                    emit()
                    for m in outs:
                        self.add(m)
                    cur = out
                    break
        return cur

    def if_block(self) -> None:
        start = self.pick(None, lambda m: True)
        if start is None:
            return
        if self.flag is None:
            self.flag = self.scalar_input("bool", self.rnd.random() < 0.5)
        out = Meta(self.fresh("v"), start.shape, start.dtype, start.exact)
        header = len(self.lines)
        results = []
        self.emit("")                      # the header, filled in below
        for b in range(2):
            self.indent += 1
            self.emit(f"block{b}():")
            self.indent += 1
            self.scopes.append([])
            end = self.chain(start, self.rnd.randint(0, 3))
            self.emit(f"-> (%{end.name})")
            results.append(end)
            self.scopes.pop()
            self.indent -= 2
        out.exact = all(r.exact for r in results)
        self.lines[header] = "  " * self.indent + f"{self.out_decl(out)} = prim::If(%{self.flag.name})"
        self.add(out)

    def loop_block(self) -> None:
        start = self.pick(None, lambda m: True)
        if start is None:
            return
        if self.trips is None or self.rnd.random() < 0.3:
            trips = "%" + self.const(self.rnd.randint(0, 3))
        else:
            trips = "%" + self.trips.name
        cond = self.const(True)
        out = Meta(self.fresh("v"), start.shape, start.dtype)
        # A float carried into the body may come back inexact, so the body treats it as inexact.
        carried = Meta(self.fresh("v"), start.shape, start.dtype,
                       start.exact and start.kind != "float")
        index = self.fresh("v")
        header = len(self.lines)
        self.emit("")
        self.indent += 1
        self.emit(f"block0(%{index} : int, {self.out_decl(carried)}):")
        self.indent += 1
        self.scopes.append([carried])
        end = self.chain(carried, self.rnd.randint(1, 3))
        self.emit(f"-> (%{cond}, %{end.name})")
        self.scopes.pop()
        self.indent -= 2
        out.exact = carried.exact and end.exact
        self.lines[header] = ("  " * self.indent + f"{self.out_decl(out)} = "
                              f"prim::Loop({trips}, %{cond}, %{start.name})")
        self.exact[carried.name] = out.exact
        self.add(out)


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
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
    discontinuous = op in ("fmod", "remainder", *COMPARE)
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
                                                         _broadcasts(cond.shape, m.shape)))
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
        c = bx.partner(a, lambda m: m.dtype == a.dtype and _broadcasts(b.shape, m.shape))
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


_FAMILIES = (_unary, _unary, _binary, _binary, _binary, _with_scalar, _select, _select,
             _chunk, _cat, _mm, _sum)


def build_case(rnd: random.Random, seed: int, typed: bool, hostile: bool,
               n_ops: int, blocks: bool = True) -> FuzzCase:
    """Draw one graph with about ``n_ops`` ops; ``rnd`` makes the structure, ``seed`` the data."""
    bx = _Builder(rnd, np.random.default_rng(seed), typed, hostile)
    rank = rnd.choice((0, 1, 1, 2, 2, 2, 3))
    base = tuple(rnd.choice((0, 1, 2, 3, 3, 4, 5, 6) if rnd.random() < 0.15 else (1, 2, 3, 4, 6))
                 for _ in range(rank))
    family = rnd.choice(((F32,), (F32,), (F64,), (F32, I64), (F32, F64, I64, BOOL)))
    for _ in range(rnd.randint(1, 4)):
        k = rnd.randint(0, rank)
        shape = tuple(1 if rnd.random() < 0.25 else n for n in base[rank - k:])
        bx.tensor_input(shape, rnd.choice(family))
    if rnd.random() < 0.5:
        bx.scalar_input("float", rnd.choice(FLOAT_CONSTANTS))
    if blocks and rnd.random() < 0.4:
        bx.trips = bx.scalar_input("int", rnd.randint(0, 3))
    made = 0
    for _ in range(4 * n_ops):
        if made >= n_ops:
            break
        r = rnd.random()
        if blocks and r < 0.08:
            bx.if_block()
        elif blocks and r < 0.14:
            bx.loop_block()
        else:
            planned = bx.plan()
            if planned is None:
                continue
            emit, outs = planned
            emit()
            for m in outs:
                bx.add(m)
        made += 1
    made_values = [m for m in bx.scopes[0] if m.scalar is None and m.name not in bx.input_names]
    candidates = made_values or bx.tensors()
    outputs = {candidates[-1].name: None}
    for m in rnd.sample(candidates, min(len(candidates), rnd.randint(0, 2))):
        outputs[m.name] = None
    bx.lines.append("  return (" + ", ".join("%" + n for n in outputs) + ")")
    text = "graph(" + ",\n      ".join(bx.params) + "):\n" + "\n".join(bx.lines) + "\n"
    return FuzzCase(text, bx.args, bx.exact, hostile)
