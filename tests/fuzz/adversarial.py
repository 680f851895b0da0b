"""Adversarial graphs for the native engine: sizes and indices at the edges of int64.

``build_adversarial(rnd, seed)`` draws a straight-line graph over one or two small input
tensors that views, reshapes, expands, selects, chunks, indexes size lists, multiplies,
adds (also in place, through views of the inputs) and sums, with sizes and indices drawn from
small ones and adversarial ones: huge (2**59 and up), negative, int64's ends, and size lists
whose product wraps around int64 to the tensor's real element count::

    %c3 : int = prim::Constant[value=4611686018427387907]()   # 2**62 + 3: (2**62 + 3) * 4
    %l5 : int[] = prim::ListConstruct(%c3, %c4)               # wraps around to 12
    %v6 : Tensor = aten::view(%i0, %l5)

The generator follows each value's exact shape with Python integers (the reference's own
``infer_size``, ``chunk_sizes``, ``broadcast_sizes``): an op that computes over its elements
(add, mm, sum, a copying reshape, an in-place add) only takes operands of a few hundred
elements, or ones whose result cannot be allocated at all (2**60 bytes and more), so no graph
runs for long or touches much memory, whatever the engines do. Values whose shape it cannot
tell (after an op the reference may refuse) are only viewed further.
"""

from __future__ import annotations

import math
import random

import numpy as np

from fusejit.oplib.tensor import broadcast_sizes, chunk_sizes, infer_size

from .vocabulary import BOOL, F32, F64, I64, MAX_NUMEL, FuzzCase

_MAX = (1 << 63) - 1
_UNALLOCATABLE = 1 << 60      # bytes: beyond any address space, so np.empty fails at once
HUGE = (1 << 59, 1 << 60, 1 << 62, (1 << 62) + 3, _MAX)
NEGATIVE = (-1, -2, -(1 << 62), -_MAX - 1)
INDICES = (0, 1, 2, -1, -3, 3, 5, 1 << 62, _MAX, -_MAX - 1, -(1 << 40))


def _too_big(shape: tuple[int, ...], itemsize: int) -> bool:
    """NumPy's refusal: the non-zero sizes times the item size pass 2**63 - 1."""
    count = itemsize
    for s in shape:
        count *= s if s else 1
    return count > _MAX


def _bytes(shape: tuple[int, ...], itemsize: int) -> int:
    return math.prod(shape) * itemsize


class _Value:
    __slots__ = ("name", "shape", "dtype", "from_input")

    def __init__(self, name: str, shape, dtype: np.dtype, from_input: bool):
        self.name = name
        self.shape = shape          # the exact shape if the op succeeds, or None: unknown
        self.dtype = dtype
        self.from_input = from_input    # a view of a graph input (in-place ops write through)

    @property
    def numel(self) -> int | None:
        return None if self.shape is None else math.prod(self.shape)

    def small(self) -> bool:
        return self.shape is not None and self.numel <= MAX_NUMEL


class _Graph:
    def __init__(self, rnd: random.Random, data: np.random.Generator):
        self.rnd, self.data = rnd, data
        self.params: list[str] = []
        self.args: list = []
        self.lines: list[str] = []
        self.tensors: list[_Value] = []
        self.ints: list[str] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)

    def int_value(self, value: int) -> str:
        """An int operand: a graph input (written at run time) or a constant."""
        if self.rnd.random() < 0.4:
            name = self.fresh("s")
            self.params.append(f"%{name} : int")
            self.args.append(value)
        else:
            name = self.fresh("c")
            self.emit(f"%{name} : int = prim::Constant[value={value}]()")
        return "%" + name

    def int_list(self, values: list[int]) -> str:
        names = [self.int_value(v) for v in values]
        name = self.fresh("l")
        self.emit(f"%{name} : int[] = prim::ListConstruct({', '.join(names)})")
        return "%" + name

    def tensor_input(self) -> None:
        rnd = self.rnd
        shape = tuple(rnd.choice((0, 1, 2, 3, 4)) if rnd.random() < 0.1 else rnd.randint(1, 4)
                      for _ in range(rnd.randint(0, 3)))
        dtype = rnd.choice((F32, F32, F64, I64, BOOL))
        n = math.prod(shape)
        if dtype == BOOL:
            flat = self.data.random(n) < 0.5
        else:
            flat = self.data.integers(-9, 10, n).astype(dtype)
        array = flat.reshape(shape)
        if len(shape) >= 2 and rnd.random() < 0.3:
            array = np.ascontiguousarray(array.T).T
        name = self.fresh("i")
        self.params.append(f"%{name} : Tensor")
        self.args.append(array)
        self.tensors.append(_Value(name, shape, dtype, True))

    def output(self, value: _Value, kind: str, shape, from_input: bool) -> str:
        out = _Value(self.fresh("v"), shape, value.dtype, from_input and kind == "view")
        self.tensors.append(out)
        return "%" + out.name

    def pick(self, pred=lambda v: True) -> _Value | None:
        options = [v for v in self.tensors if pred(v)]
        return self.rnd.choice(options) if options else None

    # -- sizes ---------------------------------------------------------------------------
    def sizes_for(self, value: _Value) -> list[int]:
        """A size list for ``value``: a valid one, a wrapping one, or adversarial numbers."""
        rnd = self.rnd
        n = value.numel
        r = rnd.random()
        if n is not None and r < 0.35:
            if n == 0:
                return rnd.choice(([0], [2, 0], [-1, 0], [1 << 32, 1 << 32, 0], [0, -1]))
            # (a large count: an expanded view; its divisors would take long to list)
            factors = [d for d in range(1, n + 1) if n % d == 0] if n <= MAX_NUMEL else [1, n]
            d = rnd.choice(factors)
            return rnd.choice(([d, n // d], [-1, d], [n], [d, -1, 1]))
        if n is not None and r < 0.6:
            wraps = [[(1 << 64) // k + n // k, k] for k in (4, 8, 16) if n % k == 0]
            wraps += [[1 << 32, 1 << 32], [1 << 32, 1 << 32, max(n, 1)],
                      [(1 << 62) + 3, 4], [-(1 << 62), -4, max(n, 1)]]
            sizes = rnd.choice(wraps)
            return sizes[::-1] if rnd.random() < 0.5 else sizes
        pool = (0, 1, 2, 3, 4, -1) + HUGE + NEGATIVE
        return [rnd.choice(pool) for _ in range(rnd.randint(0, 3))]

    def index(self, x: _Value, dim: int | None) -> int:
        """Mostly a valid index (of a dimension of ``x``, or along ``dim``), else any."""
        if x.shape is None or self.rnd.random() < 0.3:
            return self.rnd.choice(INDICES)
        n = len(x.shape) if dim is None else x.shape[dim]
        return self.rnd.randint(-n, n - 1) if n else 0

    # -- ops -------------------------------------------------------------------------------
    def view_op(self) -> None:
        x = self.pick()
        if x is None:
            return
        op = self.rnd.choice(("view", "view", "reshape"))
        if op == "reshape" and not x.small():
            return       # reshape may copy: only a small operand
        sizes = self.sizes_for(x)
        shape = None
        if x.shape is not None:
            try:
                shape = infer_size(sizes, x.numel)
            except RuntimeError:
                shape = None
            if shape is not None and _too_big(shape, x.dtype.itemsize):
                shape = None
        lst = self.int_list(sizes)
        self.emit(f"{self.output(x, 'view', shape, x.from_input)} : Tensor = "
                  f"aten::{op}(%{x.name}, {lst})")

    def expand_op(self) -> None:
        x = self.pick()
        if x is None:
            return
        rnd = self.rnd
        sizes = ([rnd.choice((1, 2, 3, -1) + HUGE + NEGATIVE) for _ in range(rnd.randint(0, 3))]
                 if rnd.random() < 0.5 else
                 [rnd.choice(HUGE) for _ in range(rnd.randint(1, 2))] + list(x.shape or ()))
        shape = _expanded(x.shape, sizes, x.dtype.itemsize) if x.shape is not None else None
        lst = self.int_list(sizes)
        false = self.fresh("c")
        self.emit(f"%{false} : bool = prim::Constant[value=0]()")
        self.emit(f"{self.output(x, 'expand', shape, False)} : Tensor = "
                  f"aten::expand(%{x.name}, {lst}, %{false})")

    def select_op(self) -> None:
        x = self.pick()
        if x is None:
            return
        dim, index = self.index(x, None), 0
        if x.shape and -len(x.shape) <= dim < len(x.shape):
            index = self.index(x, dim % len(x.shape))
        shape = None
        if x.shape and -len(x.shape) <= dim < len(x.shape):
            d = dim % len(x.shape)
            if -x.shape[d] <= index < x.shape[d]:
                shape = x.shape[:d] + x.shape[d + 1:]
        d_name, i_name = self.int_value(dim), self.int_value(index)
        self.emit(f"{self.output(x, 'view', shape, x.from_input)} : Tensor = "
                  f"aten::select(%{x.name}, {d_name}, {i_name})")

    def chunk_op(self) -> None:
        x = self.pick()
        if x is None:
            return
        # As many outputs as chunks, and a dim in [-64, 64): parse_ir refuses anything else
        # (ir/limits.py), so the engines only meet pieces that do not exist at run time.
        chunks = self.rnd.choice((1, 2, 2, 3))
        dim = self.rnd.choice((0, 1, -1, 2, 63))
        shapes = [None] * chunks
        if x.shape and -len(x.shape) <= dim < len(x.shape):
            d = dim % len(x.shape)
            pieces = chunk_sizes(x.shape[d], chunks)
            if len(pieces) == chunks:
                shapes = [x.shape[:d] + (p,) + x.shape[d + 1:] for p in pieces]
        names = [self.output(x, "view", s, x.from_input) for s in shapes]
        self.emit(", ".join(f"{name} : Tensor" for name in names)
                  + f" = prim::ConstantChunk[chunks={chunks}, dim={dim}](%{x.name})")

    def getitem_op(self) -> None:
        x = self.pick()
        if x is None:
            return
        sizes, n = self.fresh("l"), self.fresh("n")
        self.emit(f"%{sizes} : int[] = aten::size(%{x.name})")
        self.emit(f"%{n} : int = aten::__getitem__(%{sizes}, "
                  f"{self.int_value(self.index(x, None))})")
        self.ints.append(n)

    def pointwise_op(self) -> None:
        a = self.pick(lambda v: v.shape is not None)
        b = self.pick(lambda v: v.shape is not None)
        if a is None or b is None:
            return
        try:
            shape = tuple(broadcast_sizes(a.shape, b.shape))
        except RuntimeError:
            shape = None
        if shape is not None and math.prod(shape) > MAX_NUMEL \
                and not _bytes(shape, 1) >= _UNALLOCATABLE:
            return       # a result that could be allocated and filled: too slow
        op = self.rnd.choice(("add", "mul", "lt"))
        extra = f", {self.int_value(1)}" if op == "add" else ""
        out = self.output(a, "new", shape, False)
        self.emit(f"{out} : Tensor = aten::{op}(%{a.name}, %{b.name}{extra})")

    def inplace_op(self) -> None:
        a = self.pick(lambda v: v.from_input and v.small())
        if a is None:
            return
        b = self.pick(lambda v: v.small())
        alpha = self.int_value(self.rnd.choice((1, 2)))
        out = self.output(a, "view", a.shape, True)
        self.emit(f"{out} : Tensor = aten::add_(%{a.name}, %{b.name}, {alpha})")

    def mm_op(self) -> None:
        a = self.pick(lambda v: v.small() and len(v.shape) == 2)
        b = self.pick(lambda v: v.shape is not None and len(v.shape) == 2)
        if a is None or b is None or a.shape[1] != b.shape[0] or a.dtype != b.dtype \
                or a.dtype not in (F32, F64):
            return
        rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
        if rows * inner * cols > MAX_NUMEL and not _bytes((rows, cols), 1) >= _UNALLOCATABLE:
            return
        out = self.output(a, "new", (rows, cols), False)
        self.emit(f"{out} : Tensor = aten::mm(%{a.name}, %{b.name})")

    def sum_op(self) -> None:
        x = self.pick(lambda v: v.small())
        if x is None:
            return
        none = self.fresh("c")
        self.emit(f"%{none} : NoneType = prim::Constant()")
        self.emit(f"{self.output(x, 'new', (), False)} : Tensor = aten::sum(%{x.name}, %{none})")


def _expanded(shape: tuple[int, ...], sizes: list[int], itemsize: int):
    """The reference's ``expand`` shape, or None where it raises (NumPy's size limit too)."""
    if len(sizes) < len(shape):
        return None
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                return None
        else:
            have = shape[i - lead]
            if s == -1:
                s = have
            elif have != 1 and s != have or s < 0:
                return None
        target.append(s)
    return None if _too_big(tuple(target), itemsize) else tuple(target)


_OPS = ("view_op", "view_op", "expand_op", "select_op", "select_op", "chunk_op", "getitem_op",
        "pointwise_op", "pointwise_op", "inplace_op", "mm_op", "sum_op")


def build_adversarial(rnd: random.Random, seed: int, n_ops: int) -> FuzzCase:
    """One graph of about ``n_ops`` ops (see the module docstring)."""
    g = _Graph(rnd, np.random.default_rng(seed))
    for _ in range(rnd.randint(1, 2)):
        g.tensor_input()
    for _ in range(n_ops):
        getattr(g, rnd.choice(_OPS))()
    made = [v.name for v in g.tensors[-3:] if v.small() or v.shape is None] + g.ints[-1:]
    outputs = list(dict.fromkeys(made or [g.tensors[-1].name]))
    g.lines.append("  return (" + ", ".join("%" + n for n in outputs) + ")")
    text = "graph(" + ", ".join(g.params) + "):\n" + "\n".join(g.lines) + "\n"
    return FuzzCase(text, g.args, {}, False)


__all__ = ["build_adversarial"]
