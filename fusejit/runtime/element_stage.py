"""The stages of a differentiated graph, each compiled whole into one Numba function.

``element_function`` writes small array graphs as Numba source; a training step's stages need
a few more things, which this writer adds:

- the per-iteration saved values of a differentiated loop (``autodiff/loops.py``): tuples
  (``prim::TupleConstruct``/``TupleUnpack``) appended to a list made before the loop and read
  back by ``aten::__getitem__``, written as a ``numba.typed.List`` of tuples. It crosses from
  the forward function to the backward one as one object, its arrays never boxed;
- the backward forms: ``_grad_sum_to_size`` (sum over the leading dims and over the dims the
  saved size has as 1), ``expand`` of the output gradient, ``zeros_like``, ``transpose``,
  ``sigmoid``, ``relu``; the size lists that ``aten::size`` saves are tuples;
- what a loop's steps repeat, made cheaper: consecutive pointwise nodes run as one loop nest
  in a function of their own (``element_loops.Region``), a gradient accumulator adds its
  products by gemm with beta = 1 (``blas.mm_add``), and a transposed operand a loop's
  products read is made contiguous once, before the loop.

The forward function returns the outputs and the saved values; the backward function takes
the output gradients and the saved values (the ``Gradient``'s graphs, unchanged). Every tensor
needs a known dtype and rank (``autodiff/observed.py`` gives them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import FloatType, IntType, ListType, NoneType, TensorType, TupleType
from .blas import numpy_blas
from .element_function import _cast, _ElementWriter, blas_import, library_imports
from .element_helpers import FAST_MAPS, MATH_IMPORTS, MAX_RANK, import_line
from .element_loops import LOOP_KINDS, SHAPES_CHANGED, Elements, Region, decide, shape_checks
from .element_support import (
    _dtype,
    _known,
    _rank,
    _static,
    _supported,
    writes_into,
    written_arguments,
)
from .fusion.templates import fast_name
from .scalar_function import _PRELUDE, function_source

# The ops this writer adds (each checked by _stage_op).
_STAGE_OPS = frozenset({"sigmoid", "relu", "zeros_like", "expand", "transpose",
                        "_grad_sum_to_size"})


def _tuple_list(value: Value) -> bool:
    t = value.type
    return isinstance(t, ListType) and isinstance(t.elem, TupleType)


def _stage_node(node: Node) -> bool | None:
    """The verdict on a node this writer adds; None for the others (``element_support``)."""
    kind = node.kind
    if kind == prim.TupleConstruct:
        return bool(node.inputs) and all(_known(v) for v in node.inputs)
    if kind == prim.TupleUnpack:
        return all(_known(v) for v in node.outputs)
    if kind == prim.ListConstruct and _tuple_list(node.output()):
        return not node.inputs
    if kind in ("aten::append", "aten::__getitem__") and _tuple_list(node.input(0)):
        return True
    if kind.ns == "aten" and kind.name in _STAGE_OPS:
        return _stage_op(node)
    if kind == "aten::size" and len(node.inputs) == 1:
        return _known(node.input(0))
    return None


def _stage_op(node: Node) -> bool:
    name = node.kind.name
    tensors = [v for v in [*node.inputs, *node.outputs] if isinstance(v.type, TensorType)]
    if not all(_known(v) for v in tensors) or any(_rank(v) > MAX_RANK for v in tensors):
        return False
    x, out = node.input(0), node.output()
    if name in ("sigmoid", "relu"):
        return _dtype(out) == _dtype(x) and _dtype(x).kind == "f"
    if name == "zeros_like":
        return _dtype(out) == _dtype(x) and all(
            isinstance(v.type, NoneType) for v in node.inputs[1:])
    if name == "expand":
        return _dtype(out) == _dtype(x) and _rank(out) >= _rank(x)
    if name == "transpose":
        dims = [_static(v) for v in node.inputs[1:]]
        return all(isinstance(d, int) for d in dims) and _rank(x) <= 2
    if name == "_grad_sum_to_size":
        size = node.input(1)
        none = isinstance(size.type, NoneType)
        return _dtype(out) == _dtype(x) and (none and _rank(out) == _rank(x)
                                             or not none and _rank(out) <= _rank(x))
    return False


def is_stage_graph(graph: Graph) -> bool:
    """Can ``graph`` (one stage of a differentiated graph) be compiled whole?"""
    ends = [*graph.inputs, *graph.outputs]
    if not all(_known(v) or _tuple_list(v) for v in ends) or written_arguments(graph):
        return False
    return _supported(graph.block, set(graph.inputs), _stage_node)


# Pointwise ops whose array result, read once in the same block, is written into its reader's
# expression: Numba fuses a nested array expression into one loop (no temporary array).
# A bias add inlines into relu, and relu's backward mask ``g * (h > 0).type_as(g)`` is one loop
# (``_masks``): an MLP step's 256x256 activations are read once each way, not three times.
_INLINE = frozenset({"aten::add", "aten::sub", "aten::mul", "aten::div", "aten::neg",
                     "aten::relu", "aten::gt", "aten::type_as"})


class _StageWriter(_ElementWriter):
    """The element writer with tuples, lists of tuples and the backward forms."""

    inline_arrays = False
    fuse_runs = False
    flatten = False

    def __init__(self, graph: Graph, shapes: dict[Value, tuple] | None = None):
        super().__init__()
        self.shapes = shapes or {}   # each value's shape in the example (autodiff/whole.py)
        self._by_name: dict[str, tuple] = {}
        # (an in-place write between a value and its reader would change an inlined operand)
        self.pure = not any(writes_into(node) for node in graph.all_nodes())
        self.elements = Elements(self.shape_of)
        self.products: dict[Value, tuple[str, str]] = {}   # summed by mm_add (_accumulated)
        self.members: set[Node] = set()      # nodes computed in a Region
        self.joined: set[Node] = set()       # the cats a Region computes (_joined)
        self.helpers: list[str] = []         # the Regions' functions
        self.plain = False                   # writing a Region's fallback: no loop nests

    def shape_of(self, name: str) -> tuple | None:
        """The shape in the example of the value named ``name`` (None: not known)."""
        if len(self._by_name) < len(self.names):
            self._by_name = {text: self.shapes[v] for v, text in self.names.items()
                             if v in self.shapes}
        return self._by_name.get(name)

    def assign(self, out: Value, expr: str, depth: int) -> None:
        node = out.node
        tokens = self.elements.on
        if self.pure and node.kind in _INLINE and _rank(out) != 0 and len(out.uses) == 1 \
                and out.uses[0].user.owning_block is node.owning_block \
                and node not in self.members and out.uses[0].user not in self.members \
                and out.uses[0].user.kind in _INLINE \
                and (not tokens or self._loops(out.uses[0].user)):   # (each operand once)
            self.exprs[out] = expr
            return
        lines = self.elements.loop(self.name(out), expr, _rank(out), _dtype(out),
                                   self.fresh) if tokens else None
        if lines is None:
            super().assign(out, self.elements.resolve(expr), depth)
        for indent, line in lines or ():
            self.emit(depth + indent, line)

    def block(self, block: Block, depth: int) -> None:
        nodes = list(block.nodes())
        runs: dict[int, list[Node]] = {}
        i = 0
        while i < len(nodes):
            run = _pointwise_run(nodes, i)
            if len(run) >= 2:
                runs[i] = run
                self.members.update(run)
            i += max(len(run), 1)
        i = 0
        while i < len(nodes):
            run = runs.get(i)
            if run is not None and self._region(run, depth):
                i += len(run)
            else:
                self.node(nodes[i], depth)
                i += 1

    def _region(self, run: list[Node], depth: int) -> bool:
        """Write ``run`` (``_pointwise_run``) as one ``Region``; False when it has no operand
        of its full rank to take the shape from (then its nodes are written one by one)."""
        rank, dtype = _pointwise(run[0])
        region = Region(rank)
        elements: dict[Value, str] = {}
        arrays: dict[str, int] = {}   # the array operands to check, by name
        outputs = []
        cat = _joined(run)
        parts = list(cat.input(0).node.inputs) if cat is not None else []
        for node in run:
            args = []
            for v in _operands(node):
                if v in elements:
                    args.append(elements[v])
                elif isinstance(v.type, TensorType) and _rank(v) >= 1:
                    arrays.setdefault(self.name(v), _rank(v))
                    base, dim, start = self.views.get(v, (None, 0, ""))
                    args.append(region.element(self.name(v), _rank(v)) if base is None else
                                region.element(self.name(base), _rank(v), (dim, start)))
                else:
                    args.append(_cast(region.argument(self.name(v)), dtype))
            out, expr = node.output(), _element_expression(node, args, dtype)
            stored = any(u.user not in run for u in out.uses) and out not in parts
            elements[out] = region.local(expr, stored)
            if stored:
                outputs.append(out)
        for part in parts:   # (in the cat's order)
            region.join(elements[part], _static(cat.input(1)) % rank)
        full = next((name for name, r in arrays.items() if r == rank), None)
        if full is None:
            self.members.difference_update(run)
            return False
        fn = self.fresh("_region")
        self.helpers.append(region.source(fn, f"{full}.shape", dtype))
        if cat is not None:
            outputs.append(cat.output())
            self.joined.add(cat)
        names = "".join(f"{self.name(v)}, " for v in outputs)
        call = f"({names}) = {fn}({', '.join(region.arguments)})"
        pairs = [(name, full, rank - r) for name, r in arrays.items() if name != full]
        checks = shape_checks(pairs)
        if not checks:
            self.emit(depth, call)
            return True
        verdict = decide(pairs, self.elements.shape_of)
        inner = depth + 1
        if verdict is False:   # (an operand broadcasts in the example: the fallback alone)
            inner = depth
        else:
            self.emit(depth, f"if {' and '.join(checks)}:")
            self.emit(depth + 1, call)
        if verdict:   # (the example's shapes: the fallback would never run)
            self.emit(depth, "else:")
            self.emit(depth + 1, f"raise ValueError({SHAPES_CHANGED!r})")
            return True
        # The fallback runs only when an operand broadcasts over a dim of size 1. It was each
        # node as a loop nest behind a shape check with a NumPy expression behind that: about
        # two thirds of the compile time of an LSTM's stages (31 against 9.6 CPU-seconds with
        # no fallback at all, loaded). Now the operands are broadcast (copied, C-ordered) and
        # the same function runs on them, compiled once; a region reading chunks at an offset
        # runs each node as NumPy's expression instead.
        if not region.starts:
            shape = self.fresh("shape")
            if verdict is None:
                self.emit(depth, "else:   # (broadcasting over a dim of size 1: operands copied)")
            self.emit(inner, f"{shape} = np.broadcast_shapes("
                             f"{''.join(f'{name}.shape, ' for name in arrays)})")
            args = [f"np.ascontiguousarray(np.broadcast_to({text}, "
                    f"{shape}[{rank - arrays[text]}:]))" if text in arrays
                    else shape if text == f"{full}.shape" else text for text in region.arguments]
            self.emit(inner, f"({names}) = {fn}({', '.join(args)})")
            return True
        if verdict is None:
            self.emit(depth, "else:   # (broadcasting over a dim of size 1: node by node)")
        self.plain = True
        try:
            for node in run:
                self.node(node, inner)
            if cat is not None:
                self._cat(cat, cat.output(), inner)
        finally:
            self.plain = False
        return True

    def _loops(self, node: Node) -> bool:
        """Is ``node`` written as a loop over its output's elements (``element_loops``)?"""
        out = node.outputs[0] if node.outputs else None
        if self.plain:
            return False
        if node.kind == "aten::type_as":
            return self._masks(node.input(0).node)
        return node.kind in LOOP_KINDS and out is not None and not (
            node.kind == "aten::add" and _accumulates(node)) and _elementwise(node, out)

    def _masks(self, node: Node) -> bool:
        """Is ``node`` a comparison whose one reader is a float ``type_as`` of it, in its
        block? Both are written into the reader's loop (a bool element, cast by the store)."""
        out = node.outputs[0] if node.outputs else None
        reader = out.uses[0].user if out is not None and len(out.uses) == 1 else None
        return self.pure and not self.plain and node.kind == "aten::gt" and reader is not None \
            and reader.kind == "aten::type_as" and reader.input(0) is out \
            and reader.owning_block is node.owning_block and _rank(out) == _rank(
                reader.output()) and _elementwise(reader, reader.output()) \
            and all((_rank(v) or 0) <= _rank(out) for v in node.inputs
                    if isinstance(v.type, TensorType))

    def name(self, value: Value) -> str:
        text = super().name(value)
        return text if self.elements.on else self.elements.resolve(text)

    def operand(self, value: Value, dtype: np.dtype | None) -> str:
        if not self.elements.on:
            return super().operand(value, dtype)
        if value in self.exprs and "\x00" in self.exprs[value]:
            return self.exprs[value]   # an inlined loop expression: its operands as they are
        self.elements.on = False
        try:
            return self.elements.leaf(super().operand(value, dtype), _rank(value) or 0)
        finally:
            self.elements.on = True

    def node(self, node: Node, depth: int) -> None:
        kind = node.kind
        out = node.outputs[0] if node.outputs else None
        if node in self.joined:
            return   # (computed by its Region)
        if self._loops(node) or self._masks(node):
            self.elements.on = True
            try:
                super().node(node, depth)
            finally:
                self.elements.on = False
        elif kind == prim.TupleConstruct:
            items = "".join(f"{self.name(v)}, " for v in node.inputs)
            self.emit(depth, f"{self.name(out)} = ({items})")
        elif kind == prim.TupleUnpack:
            names = "".join(f"{self.name(v)}, " for v in node.outputs)
            self.emit(depth, f"({names}) = {self.name(node.input(0))}")
        elif kind == prim.ListConstruct and _tuple_list(out):
            self.emit(depth, f"{self.name(out)} = List()")
        elif kind == "aten::append" and _tuple_list(node.input(0)):
            items = self.name(node.input(0))
            self.emit(depth, f"{items}.append({self.name(node.input(1))})")
            self.exprs[out] = items
        elif kind == "aten::__getitem__" and _tuple_list(node.input(0)):
            self.assign(out, f"{self.name(node.input(0))}[{self.name(node.input(1))}]", depth)
        elif kind == "aten::size" and len(node.inputs) == 1 and _rank(node.input(0)) == 0:
            self.assign(out, "()", depth)   # a 0-d value is a Numba scalar: no .shape
        elif kind == "aten::_grad_sum_to_size":
            self._sum_to_size(node, out, depth)
        elif kind == "aten::add" and _accumulates(node):
            acc = self.name(node.input(0))
            product = self.products.get(node.input(1))
            if product is not None:
                self.emit(depth, f"_blas.mm_add({acc}, {product[0]}, {product[1]})")
            else:
                self.emit(depth, f"_accumulate({acc}, "
                                 f"{self.operand(node.input(1), _dtype(out))})")
            self.exprs[out] = acc
        else:
            super().node(node, depth)

    def _mm(self, node: Node, out: Value, depth: int) -> None:
        if self.pure and _accumulated(node) and numpy_blas() is not None:
            # (written by the accumulating add: one gemm with beta = 1 into the sum)
            self.products[out] = (self.name(node.input(0)), self.name(node.input(1)))
        else:
            super()._mm(node, out, depth)

    _matmul = _mm

    def _t(self, node: Node, out: Value, depth: int) -> None:
        if self.pure and _rank(out) == 2 and _read_by_products_in_loops(out):
            self.assign(out, f"np.ascontiguousarray({self.name(node.input(0))}.T)", depth)
        else:
            super()._t(node, out, depth)

    def _sigmoid(self, node: Node, out: Value, depth: int) -> None:
        dtype = _dtype(out)
        if _rank(out) != 0:
            self._arithmetic(node, out, depth)
            return
        one = _cast("1", dtype)
        expr = f"({one} / ({one} + np.exp(-{self.name(node.input(0))})))"
        self.assign(out, expr if _rank(out) != 0 else _cast(expr, dtype), depth)

    def _relu(self, node: Node, out: Value, depth: int) -> None:
        dtype = _dtype(out)
        expr = f"np.maximum({self.operand(node.input(0), dtype)}, {_cast('0', dtype)})"
        self.assign(out, expr if _rank(out) != 0 else _cast(expr, dtype), depth)

    def _zeros_like(self, node: Node, out: Value, depth: int) -> None:
        # (C order whatever the model's order: _accumulate adds into it as one flat run)
        x, dtype = self.name(node.input(0)), _dtype(out)
        self.assign(out, f"np.zeros({x}.shape, np.{dtype.name})" if _rank(out) != 0
                    else _cast("0", dtype), depth)

    def _expand(self, node: Node, out: Value, depth: int) -> None:
        x, size = node.input(0), self.name(node.input(1))
        if _rank(out) == 0:
            self.assign(out, self.name(x), depth)
        elif _rank(x) == 0:   # the output gradient of a scalar loss, filled out
            self.assign(out, f"np.full({size}, {_cast(self.name(x), _dtype(out))})", depth)
        else:   # (a -1 in the sizes raises: the interpreter runs the stage)
            self.assign(out, f"np.broadcast_to({self.name(x)}, {size})", depth)

    def _transpose(self, node: Node, out: Value, depth: int) -> None:
        x = node.input(0)
        rank = _rank(x)
        d0, d1 = (_static(v) % max(rank, 1) for v in node.inputs[1:])
        if rank == 2 and d0 != d1:
            self._t(node, out, depth)
        else:
            self.assign(out, self.name(x), depth)

    def _sum_to_size(self, node: Node, out: Value, depth: int) -> None:
        x, size = node.inputs
        rank_in, rank_out = _rank(x), _rank(out)
        if isinstance(size.type, NoneType) or rank_in == 0:
            self.assign(out, self.name(x), depth)
        elif rank_out == 0:
            self.assign(out, _cast(f"np.sum({self.name(x)})", _dtype(out)), depth)
        else:
            self.assign(out, f"_sum_to_size_{rank_in}_{rank_out}({self.name(x)}, "
                             f"{self.name(size)})", depth)


def _elementwise(node: Node, out: Value) -> bool:
    """Can ``node``'s float output be written element by element (no operand of higher
    rank)?"""
    return isinstance(out.type, TensorType) and 1 <= (_rank(out) or 0) <= MAX_RANK \
        and _dtype(out) is not None and _dtype(out).kind == "f" and all(
            (_rank(v) or 0) <= _rank(out) for v in node.inputs if isinstance(v.type, TensorType))


def _accumulates(node: Node) -> bool:
    """Is ``node`` ``acc + x`` for a loop-carried gradient accumulator ``acc`` that nothing else
    reads, which starts as a fresh ``zeros_like`` only the loop reads? Then it adds into
    ``acc`` in place (a 64x256 weight gradient per LSTM step: no new array each iteration)."""
    acc, x = node.input(0), node.input(1)
    out = node.output()
    block = acc.node.owning_block if acc.node.kind == prim.Param else None
    loop = block.owning_node if block is not None else None
    if loop is None or loop.kind != prim.Loop or _static(node.input(2)) != 1:
        return False
    k = block.inputs.index(acc)
    start = loop.input(k + 1)
    return k > 0 and len(acc.uses) == 1 and node.owning_block is block \
        and [u.user for u in out.uses] == [block.return_node] and block.outputs[k] is out \
        and len(start.uses) == 1 and start.node.kind == "aten::zeros_like" \
        and _rank(acc) == _rank(x) == _rank(out) != 0 and _dtype(acc) == _dtype(out)


def _pointwise(node: Node) -> tuple[int, np.dtype] | None:
    """(rank, dtype) of a node a ``Region`` computes: an add/sub/mul/neg or a map of
    ``FAST_MAPS`` with a float array result, whose operands are arrays of that dtype and of
    no higher rank, 0-d values or numbers; None for other nodes."""
    kind = node.kind
    if not (kind in _REGION_KINDS or kind.ns == "aten" and kind.name in FAST_MAPS
            and len(node.inputs) == 1) or len(node.outputs) != 1:
        return None
    if kind == "aten::add" and _accumulates(node) or kind in ("aten::add", "aten::sub") and (
            len(node.inputs) != 3 or _static(node.input(2)) != 1):
        return None
    out = node.output()
    if not isinstance(out.type, TensorType) or not _known(out) or not \
            1 <= (_rank(out) or 0) <= MAX_RANK or _dtype(out).kind != "f":
        return None
    for v in _operands(node):
        if isinstance(v.type, TensorType):
            if not _known(v) or _rank(v) > _rank(out) or _rank(v) != 0 and _dtype(v) != _dtype(
                    out):
                return None
        elif not isinstance(v.type, (IntType, FloatType)):
            return None
    return _rank(out), _dtype(out)


def _operands(node: Node) -> list[Value]:
    return list(node.inputs[:2]) if node.kind.name in ("add", "sub") else list(node.inputs)


def _pointwise_run(nodes: list[Node], start: int) -> list[Node]:
    """The nodes from ``start`` on that one ``Region`` computes: consecutive pointwise nodes
    of one rank and dtype (empty when ``nodes[start]`` is not one)."""
    first = _pointwise(nodes[start])
    end = start
    while first is not None and end < len(nodes) and _pointwise(nodes[end]) == first:
        end += 1
    return nodes[start:end]


def _joined(run: list[Node]) -> Node | None:
    """An ``aten::cat`` whose parts are all distinct values of ``run`` that nothing after
    ``run`` reads (the gates' gradients an LSTM's backward joins): its ``Region`` stores them
    into the joined array itself."""
    for make in [u.user for node in run for u in node.output().uses]:
        if make.kind != prim.ListConstruct or len(make.output().uses) != 1:
            continue
        cat = make.output().uses[0].user
        parts = list(make.inputs)
        if cat.kind != "aten::cat" or cat.owning_block is not run[0].owning_block \
                or not isinstance(_static(cat.input(1)), int) or len(set(parts)) != len(parts):
            continue
        if _rank(cat.output()) == _rank(parts[0]) and all(
                p.node in run and all(u.user is make or u.user in run for u in p.uses)
                for p in parts):
            return cat
    return None


def _element_expression(node: Node, args: list[str], dtype: np.dtype) -> str:
    name = node.kind.name
    if name == "neg":
        return f"(-{args[0]})"
    if name in FAST_MAPS:
        return f"{fast_name(node.kind, dtype)}({args[0]})"
    return f"({args[0]} {_SYMBOLS[name]} {args[1]})"


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*"}
# (relu and its mask stay loops of their own: ``_StageWriter._masks``)
_REGION_KINDS = frozenset({"aten::add", "aten::sub", "aten::mul", "aten::neg"})


def _accumulated(product: Node) -> bool:
    """Is ``product`` a 2-D ``mm``/``matmul`` read only by an accumulating add
    (``_accumulates``) of its block? Then that add sums it into the accumulator itself."""
    out = product.output()
    if len(out.uses) != 1 or _rank(product.input(0)) != 2 or _rank(product.input(1)) != 2:
        return False
    use = out.uses[0]
    add = use.user
    return use.offset == 1 and add.kind == "aten::add" and _accumulates(add) \
        and add.owning_block is product.owning_block \
        and _dtype(product.input(0)) == _dtype(product.input(1)) == _dtype(out)


def _read_by_products_in_loops(value: Value) -> bool:
    """Is ``value`` an operand of a product inside a loop that it is invariant in? Then it is
    made contiguous once, before the loop: OpenBLAS's small gemm with a transposed operand
    (the flag) took 1.4-1.5 ms for 100 16x64 @ (256x64).T products where the contiguous
    copy took 0.7-1.0 ms (an LSTM's ``h @ w_hh.T``)."""
    home = value.node.owning_block
    for use in value.uses:
        if use.user.kind not in ("aten::mm", "aten::matmul"):
            continue
        block = use.user.owning_block
        while block is not home and block.owning_node is not None:
            if block.owning_node.kind == prim.Loop:
                return True
            block = block.owning_node.owning_block
    return False


def stage_source(graph: Graph, name: str, shapes: dict[Value, tuple] | None = None) -> str:
    """The module source whose function ``name`` computes ``graph``; with ``shapes`` (values'
    shapes in an example), for operands of those shapes (``element_loops.decide``)."""
    writer = _StageWriter(graph, shapes)
    source = function_source(writer, graph, name,
                             "import numpy as np\n" + blas_import(graph)
                             + library_imports(graph) + _PRELUDE
                             + "from numba.typed import List\n" + MATH_IMPORTS + import_line()
                             + "\n\n",
                             "@njit(cache=True, boundscheck=True, no_cfunc_wrapper=True)\n")
    return source + "\n\n" + "".join(writer.helpers)


def compile_stage_graph(graph: Graph, name: str, shapes: dict[Value, tuple] | None = None
                        ) -> Any:
    """The Numba dispatcher computing ``graph`` (compiled at its first call)."""
    from .fusion.cache import load_module

    return getattr(load_module(stage_source(graph, name, shapes)), name)


__all__ = ["compile_stage_graph", "is_stage_graph", "stage_source"]
