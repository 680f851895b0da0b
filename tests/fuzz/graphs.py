"""Random well-typed graphs for the differential fuzzer, written as IR text, with their inputs.

One draw gives a :class:`FuzzCase`: the IR text, the arrays and scalars to call it with, and for
every value the generator made whether it is *exact* (see ``tolerances.py``). The generator
tracks each value's shape and dtype (PyTorch promotion via ``fusejit.oplib.dtypes``) so that
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

from .families import FAMILIES, broadcasts
from .vocabulary import (
    BOOL,
    F32,
    F64,
    FLOAT_CONSTANTS,
    HOSTILE_SOURCE,
    HOSTILE_WORDS,
    I64,
    INEXACT_UNARY,
    INT_CONSTANTS,
    MAX_NUMEL,
    FuzzCase,
    Meta,
)

__all__ = ["HOSTILE_SOURCE", "HOSTILE_WORDS", "INEXACT_UNARY", "FuzzCase", "Meta", "build_case"]


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
        family = self.rnd.choice(FAMILIES)
        return family(self, first)

    def result(self, shape, dtype, exact: bool) -> Meta | None:
        if int(np.prod(shape, dtype=np.int64)) > MAX_NUMEL:
            return None
        return Meta(self.fresh("v"), tuple(shape), np.dtype(dtype), exact)

    def partner(self, a: Meta, pred: Callable[[Meta], bool] = lambda m: True) -> Meta | None:
        options = self.tensors(lambda m: pred(m) and broadcasts(a.shape, m.shape))
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
