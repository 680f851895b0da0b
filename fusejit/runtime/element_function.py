"""Element loops over arrays, compiled whole into one Numba function.

An EWMA recurrence or a running maximum reads and writes one element per step: every tensor
it computes is 0-d, and its arrays are only arguments, views of them, and arrays it creates.
Such a graph is written out like a scalar graph (``scalar_function``), with arrays as Numba
arrays::

    out = np.empty_like(x)                  v2 = np.full(v0.shape, 0, np.float64)
    out[i] = a * x[i] + (1 - a) * out[i-1]  v2[v9] = np.float64(np.float64(v1) * v0[v8] + ...)

A 0-d ``aten::select`` is not a variable but the expression ``base[index]``, read where it is
used, so a write through the view is seen by later reads as in the graph. Each 0-d operation
casts its operands to the dtype PyTorch computes it in and its result to the graph's dtype, so
a float32 recurrence rounds as the interpreter's does. Bounds are checked; on an exception the
call runs on the interpreter (which gives the graph's own error with its source line). The
arguments a graph writes (``a -= a.mean()``, ``a[a < lo] = lo``) are copied before each call
and put back before that rerun, so running twice is safe. Which graphs qualify:
``element_support``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba.core.errors import NumbaError

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import BoolType, FloatType, IntType, ListType, NoneType, TensorType
from ..oplib.array_ops import CONVOLVE_MODES
from ..oplib.dtypes import float_to_int_via, result_type_from, scalar_dtype
from .array_bounds import made_elements
from .blas import numpy_blas, refresh
from .element_helpers import BINARY_MAPS, FAST_MAPS, TRIG_MAPS, import_line, map_name
from .element_jit import COMPILE_SETTINGS
from .element_runs import Run, run_source, store_runs
from .element_support import (
    _ALIASING,
    _ARRAY_CALLS,
    _CONVERT,
    _FLOAT_UFUNCS,
    _FUSEJIT_OPS,
    _INPLACE,
    _PREDICATES,
    _SHIFTS,
    _UINT64,
    _WHOLE_REDUCTIONS,
    LINALG,
    UFUNCS_AT_CALLS,
    _appended_list,
    _dtype,
    _rank,
    _static,
    argument_limit,
    boolean_mask,
    expand_sizes,
    growth_degree,
    index_list,
    is_element_graph,
    list_element,
    masked_gather,
    masked_put,
    raises_before_writes,
    writes_into,
    written_arguments,
)
from .scalar_function import _CALLS, _INFIX, _PRELUDE, _literal, _Writer, function_source


def _masked_store(node: Node) -> tuple[Value, Value] | None:
    """``(mask, v)`` where ``node`` is ``x[...] = np.where(mask, v, x)``: an ``aten::copy_``
    into an array ``x`` of the where, read by nothing else, of a bool mask of x's rank and
    of values ``v`` of x's dtype (an array, or a number or 0-d value cast to it); else None."""
    if node.kind != "aten::copy_" or not _rank(node.input(0)):
        return None
    target, value = node.input(0), node.input(1)
    where = value.node
    if where.kind != "aten::where" or len(value.uses) != 1 or where.input(2) is not target \
            or where.next is not node:     # (nothing between may write what the where read)
        return None
    mask, v = where.input(0), where.input(1)
    if _dtype(mask) != np.dtype(np.bool_) or _rank(mask) != _rank(target) or \
            _dtype(value) != _dtype(target):
        return None
    if _rank(v):
        return (mask, v) if _dtype(v) == _dtype(target) else None
    return (mask, v) if isinstance(v.type, TensorType) or _dtype(target).kind in "fiu" \
        else None


class _Indexing(NamedTuple):
    """The walk of an indexing node (``_ElementWriter._indexed``): nested loop headers, the
    subscripted ``x`` and the result's subscript inside them, the result's shape (text),
    and whether each step reaches a part of ``x`` (trailing dimensions), not an element."""

    loops: list[str]
    source: str
    target: str
    shape: str
    part: bool


class _ElementWriter(_Writer):
    """A scalar writer that also knows arrays, element expressions and their dtypes."""

    # Runs of pointwise nodes and stores as one loop each (``element_runs``), and element-wise
    # expressions over their elements in a row (``_flattened``); the stage writer has loop
    # regions of its own
    fuse_runs = True
    flatten = True

    def __init__(self):
        super().__init__()
        self.exprs: dict[Value, str] = {}
        self.views: dict[Value, tuple[Value, int, str]] = {}   # chunk -> (array, dim, start)
        self.run_functions: list[str] = []      # the module text of the runs' functions
        # an inlined element-wise expression's arrays and its numbers' names (_flat_leaves)
        self.leaves: dict[Value, tuple[tuple[str, ...], frozenset[str]]] = {}
        self.looped = 0                         # loops around the block being written

    def loop(self, node: Node, depth: int) -> None:
        self.looped += 1
        try:
            super().loop(node, depth)
        finally:
            self.looped -= 1

    def block(self, block: Block, depth: int) -> None:
        # (in loops only, where they repeat: each is a function Numba compiles, ~0.3 s, and
        # outside loops stores run whole on small arrays only, where a store's new array
        # costs microseconds)
        runs = store_runs(block) if self.fuse_runs and self.looped else {}
        written: set[Node] = set()
        for node in block.nodes():
            run = runs.get(node)
            if run is not None:
                self._run(run, depth)
                written.update(run.nodes)
            elif node not in written:
                self.node(node, depth)

    def _run(self, run: Run, depth: int) -> None:
        """``run`` as a call of its function (``element_runs``), and its nodes one by one
        where the function declines."""
        for store in run.stores:    # (a view of a target after its store: of the target)
            self.exprs[store.output()] = self.name(store.input(0))
        for node in run.free:
            self.node(node, depth)
        fn = f"_run{len(self.run_functions)}"
        text, args = run_source(run, fn, self.name, lambda v: self.operand(v, run.dtype))
        self.run_functions.append(text)
        self.emit(depth, f"if not {fn}({', '.join(args)}):")
        self.emit(depth + 1, "pass")
        for node in run.body:
            self.node(node, depth + 1)

    def name(self, value: Value) -> str:
        expr = self.exprs.get(value)
        return expr if expr is not None else super().name(value)

    def node(self, node: Node, depth: int) -> None:
        kind = node.kind
        out = node.outputs[0] if node.outputs else None
        if kind == prim.Constant and isinstance(out.type, NoneType):
            self.exprs[out] = "None"
            return
        if kind == prim.Constant and isinstance(out.type, TensorType):
            value = np.asarray(_static(out))  # 0-d, or small (see _supported): numbers
            if value.ndim == 0:
                self.exprs[out] = _cast(_literal(value.item()), value.dtype)
            elif value.size == 0:
                self.emit(depth, f"{self.name(out)} = np.empty({value.shape!r}, "
                                 f"{_np(value.dtype)})")
            else:
                items = "".join(f"{_literal(v)}, " for v in value.ravel().tolist())
                shape = f".reshape({value.shape!r})" if value.ndim > 1 else ""
                self.emit(depth, f"{self.name(out)} = np.array([{items}], "
                                 f"{_np(value.dtype)}){shape}")
            return
        if kind == prim.Constant and isinstance(out.type, ListType):
            items = "".join(f"{int(i)}, " for i in _static(out))
            self.emit(depth, f"{self.name(out)} = ({items})")
            return
        if kind == prim.ListConstruct and not isinstance(out.type.elem, IntType) \
                and (not node.inputs or _appended_list(out)):
            # hs = [] (or history = [1.0]): a list of arrays (or numbers) as appended, its
            # first items appended as the loop's are
            dtype, rank = list_element(out)
            empty = f"np.empty({(0,) * rank!r}, {_np(dtype)})" if rank else _cast("0", dtype)
            self.emit(depth, f"{self.name(out)} = [{empty}][:0]")
            for item in node.inputs:
                self.emit(depth, f"{self.name(out)}.append({self._list_item(item)})")
            return
        if kind == prim.ListConstruct and not isinstance(out.type.elem, IntType):
            return  # arrays to join: read by ``_cat`` from this node's inputs
        if kind == prim.ListConstruct:
            items = "".join(f"{self.name(v)}, " for v in node.inputs)
            self.emit(depth, f"{self.name(out)} = ({items})")
            return
        if kind == prim.NumToTensor:
            self._NumToTensor(node, out, depth)
            return
        if kind in ("aten::len", "aten::__getitem__") and isinstance(node.input(0).type,
                                                                      ListType):
            # (of an appended list: its items, as appended; Numba's list wraps a negative
            # index and raises on one out of range, and the interpreter gives the error)
            items = self.name(node.input(0))
            expr = f"len({items})" if kind == "aten::len" else \
                f"{items}[{self.name(node.input(1))}]"
            self.emit(depth, f"{self.name(out)} = {expr}")
            return
        if kind == prim.ListUnpack:  # of a chunk (element_support._chunked_list)
            self._unpack_chunks(node, depth)
            return
        if kind.ns != "aten" and kind not in _FUSEJIT_OPS or not any(
                isinstance(v.type, TensorType) for v in [*node.inputs, *node.outputs]):
            super().node(node, depth)
            return
        if kind.name in _WHOLE_REDUCTIONS:
            self._reduce(node, out, depth)
        else:
            getattr(self, f"_{kind.name}", self._arithmetic)(node, out, depth)

    # -- arrays and elements ----------------------------------------------------------------

    def _select(self, node: Node, out: Value, depth: int) -> None:
        dim = _static(node.input(1))
        index = ":, " * (dim % max(_rank(node.input(0)) or 1, 1)) + self.name(node.input(2))
        expr = f"{self.name(node.input(0))}[{index}]"
        if _rank(out) == 0:
            self.exprs[out] = expr  # read at each use
        else:
            self.emit(depth, f"{self.name(out)} = {expr}")

    def _indexed(self, node: Node, depth: int) -> _Indexing:
        """How ``x[:, i, j]`` (``aten::index``, ``index_put_``; ``index_list``) is walked: loops
        over the kept leading dimensions and the index arrays' broadcast shape (emitting
        that shape and the broadcast index arrays before them), and the subscripts of ``x``
        and of the result inside them. Numba's integer indexing wraps negative indices and
        checks bounds (``element_jit``): an index out of range raises, and the interpreter
        gives the graph's error."""
        x = self.name(node.input(0))
        p, indices = index_list(node.input(1))
        arrays = [v for v in indices if _rank(v)]
        loops, kept, positions = [], [], []
        for d in range(p):
            kept.append(self.fresh("a"))
            loops.append(f"for {kept[-1]} in range({x}.shape[{d}]):")
        shape, broadcast = "()", {}
        if len(arrays) == 1:
            shape = f"{self.name(arrays[0])}.shape"
            broadcast[arrays[0]] = self.name(arrays[0])
        elif arrays:
            shape = self.fresh("shape")
            shapes = "".join(f"{self.name(v)}.shape, " for v in arrays)
            self.emit(depth, f"{shape} = np.broadcast_shapes({shapes})")
            for v in arrays:
                broadcast[v] = self.fresh("index")
                self.emit(depth, f"{broadcast[v]} = np.broadcast_to({self.name(v)}, {shape})")
        for d in range(max((_rank(v) for v in arrays), default=0)):
            positions.append(self.fresh("b"))
            loops.append(f"for {positions[-1]} in range({shape}[{d}]):")
        at = "".join(f"{b}, " for b in positions)
        picks = [f"{broadcast[v]}[{at}]" if v in broadcast else self.name(v) for v in indices]
        return _Indexing(
            loops, f"{x}[{''.join(f'{a}, ' for a in kept)}{', '.join(picks)}]",
            f"[{''.join(f'{a}, ' for a in kept + positions)}]",
            f"{x}.shape[:{p}] + {shape} + {x}.shape[{p + len(indices)}:]",
            _rank(node.input(0)) > p + len(indices))

    def _nest(self, loops: list[str], depth: int) -> int:
        """Emit ``loops`` nested from ``depth``; the depth of their body."""
        for k, loop in enumerate(loops):
            self.emit(depth + k, loop)
        return depth + len(loops)

    def _index(self, node: Node, out: Value, depth: int) -> None:
        if _value_sort(node):   # (a sort of values, not of positions: Numba's np.sort)
            self.assign(out, f"np.sort({self.name(node.input(0))})", depth)
            return
        if masked_gather(node):
            mask = boolean_mask(node)
            self.assign(out, f"_mask_gather({self.name(node.input(0))}, {self.name(mask)})",
                        depth)
            return
        walk = self._indexed(node, depth)
        name = self.name(out)
        if not walk.loops:   # (every index 0-d: an element, or a copy of a part)
            self.emit(depth, f"{name} = {walk.source}" + (".copy()" if _rank(out) else ""))
            return
        self.emit(depth, f"{name} = np.empty({walk.shape}, {_np(_dtype(out))})")
        self.emit(self._nest(walk.loops, depth), f"{name}{walk.target} = {walk.source}")

    def _index_put_(self, node: Node, out: Value, depth: int) -> None:
        x, values = node.input(0), node.input(2)
        dtype, accumulate = _dtype(x), bool(_static(node.input(3)))
        if masked_put(node):    # (x[mask] = values: a copy in x's dtype, written in order)
            mask = boolean_mask(node)
            self.emit(depth, f"_mask_put({self.name(x)}, {self.name(mask)}, "
                             f"{self.name(values)}.astype({_np(dtype)}))")
            self.exprs[out] = self.name(x)
            return
        walk = self._indexed(node, depth)
        if not accumulate:
            self._check_int_store(values, dtype, depth)
        value = _cast(self.name(values), dtype)
        if _rank(values):   # (a copy in x's dtype: it may be a view of x itself)
            value = self.fresh("values")
            self.emit(depth, f"{value} = np.broadcast_to({self.name(values)}.astype("
                             f"{_np(dtype)}), {walk.shape})")
            if walk.loops:
                value += walk.target
        inner = self._nest(walk.loops, depth)
        if node.kind.name == "ufunc_at_":   # (np.maximum.at ...: each repeat in turn)
            update = UFUNCS_AT_CALLS[_static(node.input(3))]
        else:
            update = "({a} + {v})" if accumulate else "{v}"
        if not walk.part:   # (an element; accumulating, each repeated index adds)
            self.emit(inner, f"{walk.source} = " + update.format(a=walk.source, v=value))
        else:               # (a part of x: its view, written in place)
            view = self.fresh("part")
            self.emit(inner, f"{view} = {walk.source}")
            self.emit(inner, f"{view}[...] = " + update.format(a=view, v=value))
        self.exprs[out] = self.name(x)

    _ufunc_at_ = _index_put_

    def _size(self, node: Node, out: Value, depth: int) -> None:
        index = f"[{self.name(node.input(1))}]" if len(node.inputs) == 2 else ""
        self.emit(depth, f"{self.name(out)} = {self.name(node.input(0))}.shape{index}")

    def _copy_(self, node: Node, out: Value, depth: int) -> None:
        target, value = node.input(0), node.input(1)
        name, dtype = self.name(target), _dtype(target)
        store = _masked_store(node)
        if store is not None:     # (x[...] = np.where(mask, v, x): x[mask] = v, in one pass)
            mask, v = store
            if _rank(v):
                self.emit(depth, f"_masked_copy({name}, {self.name(mask)}, {self.name(v)})")
            else:
                self.emit(depth, f"_masked_fill({name}, {self.name(mask)}, "
                                 f"{_cast(self.name(v), dtype)})")
            self.exprs[out] = name
            return
        self._check_int_store(value, dtype, depth)
        if _rank(target) == 0:  # an element: ``base[i]``
            self.emit(depth, f"{name} = {_cast(self.name(value), dtype)}")
        elif _rank(value) not in (None, 0):
            # An array of the target's dtype is stored as it is: Numba's store copies a source
            # whose memory may overlap the target's first (x[1:] = x[:-1]). Another dtype's
            # is converted by astype first, NumPy's conversion (-1.7 to uint8: 255), which
            # Numba's store would not make. (astype's copy of an image of 2000 x 2000 float32
            # stored into a padded buffer took 3.4 ms of the store's 5.4)
            via = float_to_int_via(_dtype(value), dtype)
            hop = "" if via is None else f".astype(np.{via})"
            same = _dtype(value) == dtype
            self.emit(depth, f"{name}[...] = {self.name(value)}"
                             + ("" if same else f"{hop}.astype({_np(dtype)})"))
        else:
            self.emit(depth, f"{name}[...] = {_cast(self.name(value), dtype)}")
        self.exprs[out] = name

    _fill_ = _copy_

    def _check_int_store(self, value: Value, dtype: np.dtype, depth: int) -> None:
        """Raise where an int (a Python int to NumPy) stored into an integer array is out of
        its dtype's range (``x.fill(-1)`` of uint8), as NumPy does, where Numba's cast would
        wrap it; the interpreter, which the call then falls back to, says which."""
        if not isinstance(value.type, IntType) or dtype is None or dtype.kind not in "iu":
            return
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -(1 << 63)), min(info.max, (1 << 63) - 1)
        if (lo, hi) == (-(1 << 63), (1 << 63) - 1):
            return
        v = self.name(value)
        self.emit(depth, f"if {v} < {lo} or {v} > {hi}:")
        self.emit(depth + 1, "raise OverflowError(\"an integer out of the array's range\")")

    def _cat(self, node: Node, out: Value, depth: int, fn: str = "concatenate") -> None:
        dtype = _dtype(out)
        parts = "".join(f"{self.operand(v, dtype)}, " for v in node.input(0).node.inputs)
        axis = _static(node.input(1)) % _rank(out)
        self.assign(out, f"np.{fn}(({parts}), axis={axis})", depth)

    def _stack(self, node: Node, out: Value, depth: int) -> None:
        # (an appended list's first items are in it, appended: ``history = [1.0]``)
        items = [] if _appended_list(node.input(0)) else node.input(0).node.inputs
        if items and _rank(out) == 1:   # numbers in a fixed list
            dtype = _dtype(out)
            parts = "".join(f"{self.operand(v, dtype)}, " for v in items)
            self.assign(out, f"np.array([{parts}], {_np(dtype)})", depth)
        elif items or node.input(0).node.kind != prim.ListConstruct:
            self._cat(node, out, depth, "stack")
        elif _rank(out) == 1:   # an appended list of numbers (0-d arrays)
            zero = _cast("0", _dtype(out))
            self.assign(out, f"_stack_numbers({self.name(node.input(0))}, {zero})", depth)
        else:  # an appended list (an empty one fails: the interpreter gives the error)
            self.assign(out, f"_stack_list({self.name(node.input(0))})", depth)

    def _chunk(self, node: Node, out: Value, depth: int) -> None:
        pass  # written by the ListUnpack that takes it apart

    def _unpack_chunks(self, node: Node, depth: int) -> None:
        """The pieces of ``aten::chunk(x, c, dim)``: slices of ceil(n / c) along ``dim``
        (PyTorch's rule; the last may be shorter, as np.array_split's)."""
        chunk = node.input(0).node
        x, count = chunk.input(0), _static(chunk.input(1))
        dim = _static(chunk.input(2)) % _rank(x)
        size = self.fresh("chunk")
        self.emit(depth, f"{size} = ({self.name(x)}.shape[{dim}] + {count - 1}) // {count}")
        for i, piece in enumerate(node.outputs):
            bounds = f"{i} * {size}:{i + 1} * {size}"
            self.views[piece] = (x, dim, f"{i} * {size}")
            self.assign(piece, f"{self.name(x)}[{':, ' * dim}{bounds}]", depth)

    def _list_item(self, item: Value) -> str:
        # (what a list holds: a C-contiguous array itself, as NumPy's list holds it; a
        # number in the list's dtype)
        return f"np.ascontiguousarray({self.name(item)})" if _rank(item) else \
            _cast(self.name(item), _dtype(item))

    def _append(self, node: Node, out: Value, depth: int) -> None:
        items = self.name(node.input(0))
        self.emit(depth, f"{items}.append({self._list_item(node.input(1))})")
        self.exprs[out] = items

    def _full_like(self, node: Node, out: Value, depth: int) -> None:
        fill = self.name(node.input(1))
        if _rank(out) == 0:      # (like a number, an element: ``x[0] > 300`` of uint8s)
            self.emit(depth, f"{self.name(out)} = {_cast(fill, _dtype(out))}")
            return
        like = self.name(node.input(0))
        self.emit(depth, f"{self.name(out)} = np.full({like}.shape, {fill}, "
                         f"np.{_dtype(out).name})")

    def _zeros(self, node: Node, out: Value, depth: int, fill: str = "0") -> None:
        shape = node.input(0)
        size = (f"{self.name(shape.node.input(0))}.shape" if shape.node.kind == "aten::size"
                else self.name(shape))
        self.emit(depth, f"{self.name(out)} = np.full({size}, {fill}, np.{_dtype(out).name})")

    def _ones(self, node: Node, out: Value, depth: int) -> None:
        self._zeros(node, out, depth, "1")

    def _full(self, node: Node, out: Value, depth: int) -> None:
        self._zeros(node, out, depth, self.name(node.input(1)))

    def _type_as(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, self.operand(node.input(0), _dtype(out)), depth)

    def _NumToTensor(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, _cast(self.name(node.input(0)), _dtype(out)), depth)

    def _clone(self, node: Node, out: Value, depth: int) -> None:
        copy = "" if _rank(out) == 0 else ".copy()"  # a 0-d value is a Numba scalar
        self.assign(out, f"{self.name(node.input(0))}{copy}", depth)

    def _slice(self, node: Node, out: Value, depth: int) -> None:
        x, dim, start, end, step = node.inputs
        rank = _rank(x)
        # (a step of 1 left out: Numba types x[a:b] of a contiguous array as contiguous, and
        # x[a:b:s] as any layout, whose loops are scalar: (x[2:] - x[:-2]) / d on 10^4
        # float64 took 7.4 us, with the steps 17.9)
        unit = not isinstance(step.type, NoneType) and _static(step) == 1
        bounds = ":".join("" if isinstance(v.type, NoneType) else self.name(v)
                          for v in ((start, end) if unit else (start, end, step)))
        self.assign(out, f"{self.name(x)}[{':, ' * (_static(dim) % rank)}{bounds}]", depth)

    def _unsqueeze(self, node: Node, out: Value, depth: int) -> None:
        dim = _static(node.input(1)) % (_rank(node.input(0)) + 1)
        self.assign(out, f"np.expand_dims({self.name(node.input(0))}, {dim})", depth)

    def _t(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"{self.name(node.input(0))}.T", depth)

    def _transpose(self, node: Node, out: Value, depth: int) -> None:
        x = node.input(0)
        rank = max(_rank(x), 1)
        axes = list(range(_rank(x)))
        a, b = (_static(v) % rank for v in node.inputs[1:3])
        if a == b or _rank(x) == 0:         # (np.swapaxes of an axis with itself: x)
            self.assign(out, self.name(x), depth)
            return
        axes[a], axes[b] = axes[b], axes[a]
        self._transposed(x, axes, out, depth)

    def _transposed(self, x: Value, axes: list[int], out: Value, depth: int) -> None:
        """``x`` with its axes in the order ``axes``: a view (a 0-d value is itself)."""
        if _rank(x) == 0:
            self.assign(out, self.name(x), depth)
        else:
            self.assign(out, f"{self.name(x)}.transpose(({''.join(f'{d}, ' for d in axes)}))",
                        depth)

    def _triu(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"np.{node.kind.name}({self.name(node.input(0))}, "
                         f"{int(_static(node.input(1)))})", depth)

    _tril = _triu

    def _permute(self, node: Node, out: Value, depth: int) -> None:
        x = node.input(0)
        rank = max(_rank(x), 1)
        self._transposed(x, [d % rank for d in _static(node.input(1))], out, depth)

    def _flip(self, node: Node, out: Value, depth: int) -> None:
        # A reversed view where only arithmetic reads it in a graph that writes nothing (so no
        # write can reach it, nor it the caller); else a copy, as aten's flip makes
        x = node.input(0)
        rank = max(_rank(x), 1)
        dims = {d % rank for d in _static(node.input(1))}
        view = f"{self.name(x)}[{''.join('::-1, ' if d in dims else ':, ' for d in range(rank))}]"
        read_only = all(use.user.kind not in _ALIASING and use.user.kind != prim.Return
                        for use in out.uses) and not any(
            n.kind.ns == "aten" and n.kind.name.endswith("_") or writes_into(n)
            for n in node.graph.all_nodes())
        self.assign(out, view if read_only else f"{view}.copy()", depth)

    def _expand(self, node: Node, out: Value, depth: int) -> None:
        x = node.input(0)
        items = expand_sizes(node.input(1))
        lead = len(items) - _rank(x)
        parts = []
        for i, item in enumerate(items):
            size = self.name(item) if isinstance(item, Value) else str(int(item))
            # (-1 keeps x's size there, as aten's expand; NumPy's broadcast_to has no -1)
            parts.append(size if i < lead else
                         f"({size} if {size} != -1 else {self.name(x)}.shape[{i - lead}])")
        self.assign(out, f"np.broadcast_to({self.name(x)}, ({''.join(p + ', ' for p in parts)}))",
                    depth)

    def _reshape(self, node: Node, out: Value, depth: int) -> None:
        x = node.input(0)
        if _rank(out) == 0 and _rank(x):
            # its one element, read at each use and written in place as NumPy's 0-d view of
            # it is (``v = S[0, 0:1].reshape(()); v[...] = 5``): a 0-d value is a number here
            self.emit(depth, f"_one_element({self.name(x)})")
            self.exprs[out] = f"{self.name(x)}[{', '.join(['0'] * _rank(x))}]"
            return
        self.assign(out, f"np.ascontiguousarray({self.name(x)})"
                         f".reshape({self.name(node.input(1))})", depth)

    _view = _reshape

    def _numel(self, node: Node, out: Value, depth: int) -> None:
        # (a 0-d tensor is a Numba scalar here, which has no .size: a mean's backward asks)
        x = node.input(0)
        self.assign(out, "1" if _rank(x) == 0 else f"{self.name(x)}.size", depth)

    def _dim(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"{self.name(node.input(0))}.ndim", depth)

    def _where(self, node: Node, out: Value, depth: int) -> None:
        c, x, y = node.inputs
        dtype = _dtype(out)
        if len(out.uses) == 1 and _masked_store(out.uses[0].user) is not None:
            return      # (written by the copy_ it feeds: _masked_copy)
        if _rank(out) == 0:     # (of numbers: Numba's np.where makes a 0-d array of them)
            self.assign(out, f"({self.operand(x, dtype)} if {self.name(c)} else "
                             f"{self.operand(y, dtype)})", depth)
            return
        # (a ufunc that fuses with the array expression around it, element_helpers._PICK;
        # its values both of the result's dtype, so its loop is that dtype's)
        self.assign(out, f"_pick({self.name(c)}, {self.operand(x, dtype)}, "
                         f"{self.operand(y, dtype)})", depth)

    def _clamp(self, node: Node, out: Value, depth: int) -> None:
        x, lo, hi = node.inputs
        dtype, array = _dtype(out), _rank(out) != 0
        expr = self.name(x)
        # Numba's np.maximum/np.minimum give their first operand where the two are equal. One
        # float bound is NumPy's maximum/minimum, the bound where equal: the bound goes first.
        # Both are np.clip's, x where equal: x goes first.
        one = dtype.kind == "f" and isinstance(lo.type, NoneType) != isinstance(hi.type, NoneType)
        for bound, fn in ((lo, "maximum"), (hi, "minimum")):
            if not isinstance(bound.type, NoneType):
                value = self.name(bound)
                if dtype.kind in "iu" and isinstance(bound.type, IntType):
                    info = np.iinfo(dtype)
                    value = f"_int_bound({value}, {info.min}, {info.max}, {fn == 'maximum'})"
                pair = [expr, _cast(value, dtype)]
                if one and array:
                    expr = f"np.{fn}({pair[1]}, {pair[0]})"
                elif one:
                    expr = f"_{fn[:3]}_nan0({pair[0]}, {pair[1]})"
                else:
                    expr = f"{f'np.{fn}' if array else fn[:3]}({pair[0]}, {pair[1]})"
        self.assign(out, expr if array else _cast(expr, dtype), depth)

    def _mm(self, node: Node, out: Value, depth: int) -> None:
        a, b = node.input(0), node.input(1)
        # NumPy's own BLAS, a transposed operand passed as a flag (``blas``); else np.dot
        fn = _PRODUCTS[_rank(a), _rank(b)] if numpy_blas() is not None else "np.dot"
        self.assign(out, f"{fn}({self.name(a)}, {self.name(b)})", depth)

    _matmul = _mm

    # -- np.linalg: NumPy's LAPACK calls in float64 (``lapack.py``), results in their dtype --

    def _float64(self, value: Value) -> str:
        return self.operand(value, np.dtype(np.float64))

    def _linalg_result(self, expr: str, out: Value) -> str:
        dtype = _dtype(out)
        if dtype == np.float64:
            return expr
        return f"{expr}.astype(np.{dtype.name})" if _rank(out) else _cast(expr, dtype)

    def _linalg_solve(self, node: Node, out: Value, depth: int) -> None:
        a, b = node.input(0), node.input(1)
        fn = "solve_vector" if _rank(b) == 1 else "solve"
        self.assign(out, self._linalg_result(
            f"_lapack.{fn}({self._float64(a)}, {self._float64(b)})", out), depth)

    def _linalg_of_one(self, node: Node, out: Value, depth: int) -> None:
        """``_lapack.<name>`` of one matrix (and eigvalsh's and eigh's triangle): one value,
        or two (slogdet, eigh), each in its output's dtype."""
        args = self._float64(node.input(0))
        if node.kind.name in ("linalg_eigvalsh", "linalg_eigh"):
            args += f", {_static(node.input(1)) == 'L'}"
        call = f"_lapack.{node.kind.name[len('linalg_'):]}({args})"
        if len(node.outputs) == 1:
            self.assign(out, self._linalg_result(call, out), depth)
        else:
            self._linalg_results(node, call, depth)

    def _linalg_results(self, node: Node, call: str, depth: int) -> None:
        """``call``'s several results into the node's outputs, each in its dtype."""
        self.emit(depth, f"{', '.join(self.name(v) for v in node.outputs)} = {call}")
        for value in node.outputs:
            converted = self._linalg_result(self.name(value), value)
            if converted != self.name(value):
                self.emit(depth, f"{self.name(value)} = {converted}")

    _linalg_inv = _linalg_cholesky = _linalg_det = _linalg_eigvalsh = _linalg_of_one
    _linalg_slogdet = _linalg_eigh = _linalg_of_one

    def _constant_pad_nd(self, node: Node, out: Value, depth: int) -> None:
        """``np.pad(x, widths, constant_values=v)``: ``v`` everywhere, then ``x`` inside."""
        x, rank = self.name(node.input(0)), _rank(node.input(0))
        pads = _static(node.input(1))
        widths = [(0, 0)] * rank
        for k in range(len(pads) // 2):     # (from the last dimension back)
            widths[rank - 1 - k] = (pads[2 * k], pads[2 * k + 1])
        shape = "".join(f"{x}.shape[{d}] + {lo + hi}, " for d, (lo, hi) in enumerate(widths))
        name = self.name(out)
        self.emit(depth, f"{name} = np.full(({shape}), {_static(node.input(2))!r}, "
                         f"np.{_dtype(out).name})")
        inside = ", ".join(f"{lo}:{lo} + {x}.shape[{d}]" for d, (lo, _) in enumerate(widths))
        self.emit(depth, f"{name}[{inside}] = {x}")

    def _logical_not(self, node: Node, out: Value, depth: int) -> None:
        x = self.name(node.input(0))
        self.assign(out, f"np.logical_not({x})" if _rank(node.input(0)) else f"(not {x})",
                    depth)

    def _bitwise_not(self, node: Node, out: Value, depth: int) -> None:
        if _dtype(node.input(0)).kind == "b":     # (~ of bools: their logical not)
            self._logical_not(node, out, depth)
            return
        x = self.name(node.input(0))
        # (a number: Python's ~ of an int, cast back to its dtype)
        self.assign(out, f"np.invert({x})" if _rank(node.input(0)) else
                    _cast(f"(~{x})", _dtype(out)), depth)

    def _lstsq(self, node: Node, out: Value, depth: int) -> None:
        """``np.linalg.lstsq``: its four results in their dtypes (the rank NumPy's int32)."""
        a, b, rcond = node.inputs
        default = rcond.node.kind == prim.Constant and _static(rcond) is None
        cutoff = "0.0" if default else f"float({self.name(rcond)})"
        fn = "lstsq_vector" if _rank(b) == 1 else "lstsq"
        self._linalg_results(node, f"_lapack.{fn}({self._float64(a)}, {self._float64(b)}, "
                                   f"{cutoff}, {default})", depth)

    def _interp(self, node: Node, out: Value, depth: int) -> None:
        """``np.interp``: NumPy's walk (``interpolate.py``), float64; a number as one point."""
        x, xp, fp, *ends = node.inputs
        given = [not (v.node.kind == prim.Constant and _static(v) is None) for v in ends]
        numbers = ", ".join(f"float({self.name(v)})" if g else "0.0"
                            for v, g in zip(ends, given))
        points = self._float64(x) if _rank(x) else f"np.full(1, float({self.name(x)}))"
        call = f"_interpolate.interp({points}, {self._float64(xp)}, {self._float64(fp)}, " \
               f"{numbers}, {given[0]}, {given[1]})"
        self.assign(out, call if _rank(x) else f"{call}[0]", depth)

    def _polyfit(self, node: Node, out: Value, depth: int) -> None:
        """``np.polyfit(x, y, deg)`` (float64), with float32's cut-off for a float32 ``x``."""
        x, y, deg = node.inputs
        fn = "polyfit_vector" if _rank(y) == 1 else "polyfit"
        single = _dtype(x) == np.float32
        self.assign(out, f"_lapack.{fn}({self._float64(x)}, {self._float64(y)}, "
                         f"{int(_static(deg))}, {single})", depth)

    def _pow(self, node: Node, out: Value, depth: int) -> None:
        dtype = _dtype(out)
        base = self.operand(node.input(0), dtype)
        if (_rank(node.input(1)) or 0) > 0:    # (an array of exponents)
            self.assign(out, f"np.power({base}, {self.operand(node.input(1), dtype)})", depth)
            return
        exponent = _cast(self.name(node.input(1)), dtype)
        if dtype.kind != "f":
            # integers by a constant 0 to 4 (element_support): products, which wrap as
            # NumPy's power does (Numba's np.power of int64 went through doubles)
            k = _static(node.input(1))
            if not _rank(out):      # (a number: the product cast back, wrapping)
                self.assign(out, _cast(" * ".join([base] * k) or "1", dtype), depth)
            else:                   # (x ** 1 a new array, as NumPy's)
                self.assign(out, " * ".join([base] * k) if k > 1 else f"{base}.copy()"
                            if k else f"np.ones_like({base})", depth)
            return
        # NumPy's power is sqrt for 0.5 (nan at -inf, -0 at -0); C's pow, which Numba's
        # calls, gives inf and 0 there
        self.assign(out, f"(np.sqrt({base}) if {exponent} == 0.5 else "
                         f"np.power({base}, {exponent}))", depth)

    def _reciprocal(self, node: Node, out: Value, depth: int) -> None:
        dtype = _dtype(out)
        expr = f"({_cast('1', dtype)} / {self.operand(node.input(0), dtype)})"
        self.assign(out, expr if _rank(out) != 0 else _cast(expr, dtype), depth)

    def _inplace(self, node: Node, out: Value, depth: int) -> None:
        target, dtype = node.input(0), _dtype(node.input(0))
        symbol = _INPLACE[node.kind.name]
        # (computed in the op's own dtype, then cast into the target's: a float32 x += a
        # float64 array adds in float64, as NumPy's loop does, not the term rounded first)
        other = self.operand(node.input(1), _compute_dtype([target, node.input(1)]))
        name = self.name(target)
        if _rank(target) == 0:
            self.emit(depth, f"{name} = {_cast(f'({name} {symbol} {other})', dtype)}")
        else:
            if _rank(node.input(1)) and _dtype(node.input(1)) == dtype \
                    and _compute_dtype([target, node.input(1)]) == dtype:
                # (an array of the target's dtype: in place, where it fits and is apart from
                # the target, ``element_helpers._update_helper``)
                self.emit(depth, f"_{node.kind.name[:-1]}_into({name}, {other})")
            elif _rank(node.input(1)):
                # An array: written as a new value stored into the target, whose store
                # checks the shapes (Numba's ``x += v`` broadcast a (6, n) v into a (1, n) x
                # without an error, where NumPy raises) and which may overlap the target.
                self.emit(depth, f"{name}[...] = {name} {symbol} {other}")
            else:
                self.emit(depth, f"{name} {symbol}= {other}")
        self.exprs[out] = name

    _add_ = _sub_ = _mul_ = _div_ = _inplace

    def _cumsum(self, node: Node, out: Value, depth: int) -> None:
        # (floats in their own dtype, one by one from the first element: NumPy's order)
        x, name = node.input(0), node.kind.name
        if _rank(x) == 2:
            axis = _static(node.input(1)) % 2
            expr = f"_cum2({self._wide(x, floats=False)}, {axis}, {name == 'cumprod'})"
        else:
            expr = f"_{name}({self._wide(x, floats=False)})"
        self.assign(out, f"{expr}.astype(np.{_dtype(out).name})", depth)

    _cumprod = _cumsum

    def _maximum_accumulate(self, node: Node, out: Value, depth: int) -> None:
        x, largest = node.input(0), node.kind.name == "maximum_accumulate"
        if _rank(x) == 2:
            expr = f"_running2({self.name(x)}, {_static(node.input(1)) % 2}, {largest})"
        else:
            expr = f"_running1({self.name(x)}, {largest})"
        self.assign(out, expr, depth)

    _minimum_accumulate = _maximum_accumulate

    def _prod(self, node: Node, out: Value, depth: int) -> None:
        # (one by one, as NumPy multiplies; integers and bools in int64)
        self.assign(out, _cast(f"np.prod({self._wide(node.input(0), floats=False)})",
                               _dtype(out)), depth)

    def _arange(self, node: Node, out: Value, depth: int) -> None:
        start, end, step = (self.name(v) for v in node.inputs[:3])
        self.assign(out, f"np.arange({start}, {end}, {step}).astype(np.{_dtype(out).name})",
                    depth)

    def _argsort(self, node: Node, out: Value, depth: int) -> None:
        # (Numba's mergesort: NumPy's stable order, NaN last; checked in the tests)
        users = [use.user for use in out.uses]
        if len(users) == 1 and users[0].kind == prim.ListConstruct and all(
                _value_sort(use.user) for use in users[0].output().uses):
            return      # (read only by the sort of values below)
        x = self.name(node.input(0))
        if node.kind.ns == "fusejit" and _static(node.input(2)) not in (2, 4):
            self.assign(out, f"_argsort_distinct({x})", depth)
        else:
            self.assign(out, f"np.argsort({x}, kind=\"mergesort\")", depth)

    def _convolve(self, node: Node, out: Value, depth: int) -> None:
        # (``_convolve`` is the full one, whichever operand is longer: the mode's part is
        # sliced from it where NumPy places it; an empty operand raises, as NumPy's. Its sums
        # run in another order than NumPy's BLAS dot: floats may differ in the last bits,
        # float32 the least computed in float64)
        dtype = _dtype(out)
        wide = np.dtype(np.float64) if dtype == np.float32 else dtype
        a, v, full = self.fresh("signal"), self.fresh("kernel"), self.fresh("full")
        self.emit(depth, f"{a} = {self.operand(node.input(0), wide)}")
        self.emit(depth, f"{v} = {self.operand(node.input(1), wide)}")
        narrow = "" if wide == dtype else f".astype({_np(dtype)})"
        self.emit(depth, f"{full} = _convolve({a}, {v}){narrow}")
        mode = CONVOLVE_MODES[_static(node.input(2))]
        if mode == "full":
            self.assign(out, full, depth)
            return
        short = f"min({a}.shape[0], {v}.shape[0])"
        start, length = (f"{short} - 1", f"max({a}.shape[0], {v}.shape[0]) - {short} + 1") \
            if mode == "valid" else (f"({short} - 1) // 2", f"max({a}.shape[0], {v}.shape[0])")
        self.assign(out, f"{full}[{start}:{start} + {length}]", depth)

    def _searchsorted(self, node: Node, out: Value, depth: int) -> None:
        # (Numba's, NaN last as NumPy's; the side is one of two words written here)
        boundaries, values = (self.name(v) for v in node.inputs[:2])
        right = _static(node.input(4)) == "right" or bool(_static(node.input(3)))
        found = f"np.searchsorted({boundaries}, {values}, side={'right' if right else 'left'!r})"
        if _rank(out) == 0:
            found = _cast(found, _dtype(out))
        elif _dtype(out) != np.int64:       # (out_int32; Numba's positions are int64)
            found = f"{found}.astype({_np(_dtype(out))})"
        self.assign(out, found, depth)

    def _unique_all(self, node: Node, out: Value, depth: int) -> None:
        x = self.name(node.input(0))
        values, index, inverse, counts = (self.name(v) for v in node.outputs)
        if node.outputs[1].uses or node.outputs[2].uses:
            self.emit(depth, f"{values}, {index}, {inverse}, {counts} = _unique_all({x})")
        else:
            self.emit(depth, f"{values}, {counts} = _unique_counts({x})")

    def _unique_inverse(self, node: Node, out: Value, depth: int) -> None:
        x = self.name(node.input(0))
        values, inverse, counts = (self.name(v) for v in node.outputs)
        self.emit(depth, f"{values}, {inverse}, {counts} = _unique_inverse({x})")

    def _unique_counts(self, node: Node, out: Value, depth: int) -> None:
        values, counts = (self.name(v) for v in node.outputs)
        self.emit(depth, f"{values}, {counts} = _unique_counts({self.name(node.input(0))})")

    def _unique_values(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"_unique_counts({self.name(node.input(0))})[0]", depth)

    def _flatnonzero(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"np.flatnonzero({self.name(node.input(0))})", depth)

    def _nonzero(self, node: Node, out: Value, depth: int) -> None:
        self.assign(out, f"np.argwhere({self.name(node.input(0))})", depth)

    def _bincount(self, node: Node, out: Value, depth: int) -> None:
        x, weights, minlength = (self.name(v) for v in node.inputs[:3])
        if weights != "None":
            weights = f"{weights}.astype(np.float64)"
        self.assign(out, f"np.bincount({x}, {weights}, {minlength})", depth)

    def _diag_embed(self, node: Node, out: Value, depth: int) -> None:
        v = self.name(node.input(0))
        self.assign(out, f"np.diag({v}, {int(_static(node.input(1)))})", depth)

    def _diagonal(self, node: Node, out: Value, depth: int) -> None:
        x = self.name(node.input(0))
        offset, dim1 = _static(node.input(1)), _static(node.input(2)) % 2
        self.assign(out, f"np.diag({x if dim1 == 0 else f'{x}.T'}, {int(offset)})", depth)

    def _eye(self, node: Node, out: Value, depth: int) -> None:
        n, m = (self.name(v) for v in node.inputs[:2])
        self.assign(out, f"np.eye({n}, {m}).astype(np.{_dtype(out).name})", depth)

    def _linspace(self, node: Node, out: Value, depth: int) -> None:
        start, end, steps = (self.name(v) for v in node.inputs[:3])
        self.assign(out, f"np.linspace({start}, {end}, {steps}).astype("
                         f"np.{_dtype(out).name})", depth)

    def _floor_divide(self, node: Node, out: Value, depth: int) -> None:
        dtype = _dtype(out)
        x, y = (self.operand(v, dtype) for v in node.inputs[:2])
        fn = "floor_divide" if node.kind.name == "floor_divide" else "remainder"
        expr = f"np.{fn}({x}, {y})"
        if fn == "floor_divide" and dtype.kind == "f":
            expr = f"_floor_divide_{dtype.name}({x}, {y})"   # (NumPy's, not Numba's)
        elif dtype.kind != "f" and _rank(out) == 0:
            expr = f"{'_int_floordiv' if fn == 'floor_divide' else '_int_mod'}({x}, {y})"
        elif dtype.kind != "f" and _rank(node.input(1)):    # (an array of divisors)
            expr = f"np.{fn}({x}, _int_divisors({y}))"
        self.assign(out, expr if _rank(out) != 0 else _cast(expr, dtype), depth)

    _remainder = _floor_divide

    def _axis2(self, fn: str, node: Node, out: Value, depth: int) -> None:
        """A reduction over one axis of a 2-d array (Numba's np.max has no axis)."""
        x = node.input(0)
        dims = _static(node.input(1))
        axis = (dims[0] if isinstance(dims, list) else dims) % 2
        if fn in ("var", "std"):  # (self, dims, correction, keepdim)
            expr = f"_{fn}2({self.name(x)}, {axis}, {int(_static(node.input(2)))})"
            keep = _static(node.input(3))
        else:
            expr = f"_{fn}2({self.name(x)}, {axis})"
            keep = _static(node.input(2))
        if keep:
            expr = f"np.expand_dims({expr}, {axis})"
        # the helpers return new arrays, in x's dtype (max, min) or int64 (argmax, argmin):
        # a cast to the same dtype would only copy (a lone x.max(axis=0) of 4 x 10^6 float32
        # paid 30% for it)
        made = np.dtype(np.int64) if fn.startswith("arg") else \
            _dtype(x) if fn in ("max", "min") else \
            np.dtype(np.bool_) if fn in ("any", "all") else None
        if made != _dtype(out):
            expr = f"{expr}.astype(np.{_dtype(out).name})"
        self.assign(out, expr, depth)

    # -- reductions (float sums in NumPy's pairwise order and dtype; moments in float64) --

    def _wide(self, x: Value, floats: bool = True) -> str:
        dtype = _dtype(x)
        wide = "float64" if dtype.kind == "f" and floats else \
            "int64" if dtype.kind in "iub" and dtype.name != "uint64" else None
        return f"{self.name(x)}.astype(np.{wide})" if wide and dtype.name != wide \
            else self.name(x)

    def _named_once(self, value: Value, depth: int) -> None:
        """Give ``value`` a local of its own where it is an inlined array expression
        (``_inlined``) that a writer names more than once (a mean's sum and count): each
        naming would compute the expression again."""
        expr = self.exprs.get(value)
        if expr is not None and _rank(value) not in (None, 0) and not expr.isidentifier():
            local = self.fresh("t")
            self.emit(depth, f"{local} = {expr}")
            self.exprs[value] = local

    def _sum(self, node: Node, out: Value, depth: int, mean: bool = False) -> None:
        x, dtype = node.input(0), _dtype(out)
        dims = _static(node.input(1)) if len(node.inputs) == 4 else None
        pairwise = _dtype(x).kind == "f"
        # (np.mean(mask, axis=1): the mask's exact integer row sums, no float copy of it)
        source = _widened_from(x) if pairwise and dims is not None and _rank(x) == 2 and \
            dims[0] % 2 == 1 and x in self.exprs else None
        if mean:
            self._named_once(x if source is None else source, depth)
        if dims is None:
            expr = f"np.{'mean' if mean else 'sum'}({self._wide(x)})"
            if pairwise:   # (NumPy's mean: that sum over the count, in the array's dtype)
                count = f" / np.{_dtype(x).name}({self.name(x)}.size)" if mean else ""
                expr = f"(_sum_pw({self.name(x)}){count})"
            self.assign(out, _cast(expr, dtype), depth)
            return
        axis = dims[0] % _rank(x)
        expr = f"np.sum({self._wide(x)}, axis={axis})"
        # (a new array in x's dtype, which a cast to that dtype would only copy: a lone
        # x.mean(axis=0) of 4 x 256000 float32 ran 0.85x NumPy with the copy)
        fresh = False
        if pairwise and _rank(x) == 2 and axis == 1:
            expr = f"_sum_rows_pw({self.name(x)})" if source is None else \
                f"_count_rows({self.name(source)}).astype(np.{_dtype(x).name})"
        if _rank(x) == 2 and axis == 0:
            # row by row, in the input's float dtype: NumPy's order and rounding (it sums
            # columns so, not pairwise), with no float64 copy of the array
            kind = _dtype(x).kind
            zero = f"np.{_dtype(x).name}(0)" if kind == "f" or _dtype(x) == _UINT64 \
                else "np.int64(0)"
            expr = f"_sum0({self.name(x)}, {zero})"
            fresh = kind == "f" or not mean
        if mean:
            count = f"{self.name(x if source is None else source)}.shape[{axis}]"
            expr = f"({expr} / {f'np.{_dtype(x).name}({count})' if pairwise else count})"
        if _static(node.input(2)):
            expr = f"np.expand_dims({expr}, {axis})"
        if _rank(out) == 0:
            self.assign(out, _cast(expr, dtype), depth)
        elif fresh and dtype == _dtype(x):
            self.assign(out, expr, depth)
        else:
            self.assign(out, f"np.asarray({expr}).astype(np.{dtype.name})", depth)

    def _mean(self, node: Node, out: Value, depth: int) -> None:
        self._sum(node, out, depth, mean=True)

    def _whole(self, fn: str, node: Node, out: Value, depth: int, wide: bool = False) -> None:
        x = node.input(0)
        if fn in ("max", "min") and _dtype(x).kind in "iuf":
            # (NaN-propagating vectorised extrema: Numba's np.max of 4096 x 64 float32 took
            # 188 us, NumPy's 48)
            self.assign(out, _cast(f"_{fn}_all({self.name(x)})", _dtype(out)), depth)
            return
        self.assign(out, _cast(f"np.{fn}({self._wide(x) if wide else self.name(x)})",
                               _dtype(out)), depth)

    def _reduce(self, node: Node, out: Value, depth: int) -> None:
        """max/min/argmax/argmin/any/all/var/std of the whole array or over one axis of a
        2-d one (the moments accumulate in 64 bits)."""
        name = node.kind.name
        fn = _WHOLE_REDUCTIONS[name]
        if _rank(node.input(0)) == 0:       # (any/all of a number: whether it is nonzero)
            self.assign(out, f"({self.name(node.input(0))} != 0)", depth)
        elif _rank(out) != 0:
            self._axis2(fn, node, out, depth)
        else:
            self._whole(fn, node, out, depth, wide=name in ("var", "std"))

    # -- pointwise ---------------------------------------------------------------------------

    def operand(self, value: Value, dtype: np.dtype | None) -> str:
        """``value`` in ``dtype``: arrays converted with astype, numbers and 0-d values cast."""
        via = float_to_int_via(_dtype(value), dtype)   # (-1.7 to uint8: 255, as NumPy's)
        if _rank(value) not in (None, 0):
            same = dtype is None or _dtype(value) == dtype
            if same:
                return self.name(value)
            hop = "" if via is None else f".astype(np.{via})"
            return f"{self.name(value)}{hop}.astype(np.{dtype.name})"
        return _cast(self.name(value) if via is None else f"np.{via}({self.name(value)})",
                     dtype)

    # (the stage writer, ``element_stage``, inlines by rules of its own: its loop regions)
    inline_arrays = True

    def assign(self, out: Value, expr: str, depth: int) -> None:
        found = self._flat_leaves(out)
        leaves = found[0] if found is not None else ()
        if self.inline_arrays and _inlined(out) and (
                not leaves or self._elementwise(out.uses[0].user)
                or _widened_from(out) is not None
                and out.uses[0].user.kind.name in ("sum", "mean")):
            # (an element-wise reader inlines it; another, a reduction say, reads it
            # computed over its elements in a row where it may be, below; a row mean of a
            # mask's float cast counts the mask, ``_sum``)
            self.exprs[out] = f"({expr})"
            if found is not None:
                self.leaves[out] = found
        elif leaves:
            self._flattened(out, expr, leaves, depth)
        else:
            self.emit(depth, f"{self.name(out)} = {expr}")

    def _flat_leaves(self, out: Value) -> tuple[tuple[str, ...], frozenset[str]] | None:
        """The arrays an element-wise expression computing ``out`` (an array of 2 or more
        dimensions) reads, its operands and those of the expressions inlined in it, where each
        is named and of ``out``'s rank, and the names its numbers' text holds; None where the
        expression is not element-wise or reads another array (a lower rank broadcast, a view
        written as an expression, one of its arrays' sizes)."""
        rank, node = _rank(out), out.node
        if not self.flatten or rank is None or rank < 2 or not self._elementwise(node):
            return None
        leaves: list[str] = []
        numbers: set[str] = set()   # the names in the text of numbers the expression reads
        for v in node.inputs:
            if not isinstance(v.type, TensorType) or _rank(v) == 0:
                numbers.update(_NAME.findall(self.name(v)))
                continue
            if _rank(v) != rank:
                return None
            if v in self.leaves:
                found, named = self.leaves[v]
                numbers |= named
            else:
                found = (self.name(v),)
                if not _NAME.fullmatch(found[0]):
                    return None
            leaves.extend(n for n in found if n not in leaves)
        if numbers.intersection(leaves):
            # (an array the numbers read, x.shape[1] or x.sum(): it would be read flat there)
            return None
        return tuple(leaves), frozenset(numbers)

    def _elementwise(self, node: Node) -> bool:
        """Does the writer compute ``node`` as an element-wise expression of its operands (a
        NumPy operator or ufunc, a cast, a helper map) when its result is an array?"""
        if node.kind.ns != "aten" or node.blocks:
            return False
        name = node.kind.name
        if name in _ELEMENTWISE_METHODS:
            return True
        return not hasattr(self, f"_{name}") and name not in _WHOLE_REDUCTIONS

    def _flattened(self, out: Value, expr: str, leaves: tuple[str, ...], depth: int) -> None:
        """``out = expr`` over arrays of 2 or more dimensions, computed over their elements
        in a row where they are all C-contiguous and of one shape. Numba's array expressions
        loop over each dimension, testing each operand's broadcast at each step; over a short
        last axis the inner loop is all overhead: ``x * y + 1.0`` of (3072, 3) float32 took
        19 us, over the 9216 elements in a row 1.9 (NumPy 4.5)."""
        first = leaves[0]
        test = " and ".join([f"{n}.shape == {first}.shape" for n in leaves[1:]]
                            + [f"{n}.flags.c_contiguous" for n in leaves])
        flat = _NAME.sub(lambda m: f"np.ascontiguousarray({m[0]}).reshape({m[0]}.size)"
                         if m[0] in leaves else m[0], expr)
        name = self.name(out)
        self.emit(depth, f"if {test}:")
        self.emit(depth + 1, f"{name} = ({flat}).reshape({first}.shape)")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"{name} = {expr}")

    def _shift(self, node: Node, out: Value) -> str:
        """A shift by a number, as NumPy's: by a count known to be 0 to the width less one,
        as Numba's; by one known only when it runs, tested first (by the width or more, or a
        negative count, NumPy gives 0, or -1 for a negative number shifted right, where C
        leaves it undefined). A number's shift is cast back to its dtype (Numba shifts small
        ints as int64: a uint8 element << 4 was 3200)."""
        x, dtype = self.name(node.input(0)), _dtype(out)
        count = _cast(self.name(node.input(1)), dtype)
        width = 8 * dtype.itemsize
        expr = f"({x} {_SHIFTS[node.kind.name]} {count})"
        if not _fixed_count(node.input(1), width):
            fits = f"({count} < {width})" if dtype.kind == "u" else \
                f"({count} >= 0 and {count} < {width})"
            if node.kind.name == "__rshift__" and dtype.kind == "i":
                expr = f"({x} >> ({count} if {fits} else {_cast(str(width - 1), dtype)}))"
            else:
                zero = f"np.zeros_like({x})" if _rank(out) != 0 else _cast("0", dtype)
                expr = f"({expr} if {fits} else {zero})"
        return expr if _rank(out) != 0 else _cast(expr, dtype)

    def _arithmetic(self, node: Node, out: Value, depth: int) -> None:
        name = node.kind.name
        if (name in FAST_MAPS or name in TRIG_MAPS) and _rank(out) != 0 and \
                _dtype(out).kind == "f":
            # (the vectorisable form fused kernels use: Numba's np.exp of an array calls libm
            # per element, ~2.9 ns for float32 against ~0.3)
            self.assign(out, f"{map_name(name, _dtype(out))}("
                             f"{self.operand(node.input(0), _dtype(out))})", depth)
            return
        if name in BINARY_MAPS and _rank(out) != 0 and \
                _rank(node.input(0)) == _rank(node.input(1)) == _rank(out):
            # (two arrays of the result's rank: the vectorisable form where shapes agree)
            dtype = _dtype(out)
            args = ", ".join(self.operand(v, dtype) for v in node.inputs)
            self.assign(out, f"{map_name(name, dtype)}({args})", depth)
            return
        if name in _FLOAT_UFUNCS and (name != "floor" and name != "ceil"
                                      or _dtype(node.input(0)).kind == "f"):
            dtype = _dtype(out)
            args = [self.operand(v, None if name == "signbit" else dtype) for v in node.inputs]
            expr = f"{_FLOAT_UFUNCS[name]}({', '.join(args)})"
            self.assign(out, expr if _rank(out) != 0 else _cast(expr, dtype), depth)
            return
        if name in _SHIFTS:
            self.assign(out, self._shift(node, out), depth)
            return
        if name in _CONVERT:
            self.assign(out, f"{_CONVERT[name]}({self.name(node.input(0))})", depth)
            return
        operands = node.inputs[:2] if name in ("add", "sub") else node.inputs
        compute = _compute_dtype(operands) if name in _PREDICATES else _dtype(out)
        if name in _PREDICATES and compute.kind in "iu" and compute.name != "uint64" and any(
                isinstance(v.type, IntType) for v in operands):
            # (NumPy's uint8_array < 300: exact, all True; a uint64 is compared with an int
            # constant of 0 or more only, element_support's _UINT64, in uint64)
            compute = np.dtype(np.int64)
        args = [self.operand(v, compute) for v in operands]
        array = _rank(out) != 0
        if name in _INFIX:
            expr = f"({args[0]} {_INFIX[name]} {args[1]})"
        elif name == "neg":
            expr = f"(-{args[0]})"
        elif name in ("max", "min") and getattr(_dtype(out), "kind", "") == "f":
            # NumPy's ties (b where equal) and NaN: Numba's np.maximum gives its first
            # operand where equal, so b goes first; Python's max would drop a NaN b
            expr = f"np.{name}imum({args[1]}, {args[0]})" if array else \
                f"_{name}_nan0({args[0]}, {args[1]})"
        else:
            expr = f"{(_ARRAY_CALLS if array else _CALLS)[name]}({', '.join(args)})"
        self.assign(out, expr if array else _cast(expr, _dtype(out)), depth)


# Readers of a small integer array (int8 to int32) that may take it unwrapped, as Numba's array
# expressions compute it (in int64): wrapping their result gives the wrapped operand's.
# ``(a * 3) // 7`` of int8 must divide the wrapped product: the product is made first.
_WRAPPING = frozenset({"add", "sub", "mul", "neg", "__and__", "__or__", "__xor__",
                       "bitwise_not"})


_SMALL_INTS = frozenset(np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16,
                                              np.uint16))


# Nodes whose writer methods compute an element-wise expression of their operands (the others
# without a method of their own are ``_arithmetic``'s maps)
_ELEMENTWISE_METHODS = frozenset({"type_as", "where", "clamp", "pow", "reciprocal",
                                  "logical_not", "bitwise_not", "floor_divide", "remainder"})
# A name the writer gives a value (``scalar_function._Writer.name``)
_NAME = re.compile(r"(?<![\w.])v\d+(?!\w)")


def _widened_from(value: Value) -> Value | None:
    """The bool or small-integer array ``value`` is a float cast of (``np.mean(mask, axis=1)``
    sums ``mask.astype(np.float64)``), whose integer row sums the float holds exactly."""
    node = value.node
    if node.kind not in ("aten::type_as", "aten::to") or _dtype(value).kind != "f":
        return None
    source = node.input(0)
    return source if _dtype(source) in _SMALL_INTS and _rank(source) == _rank(value) else None


def _inlined(value: Value) -> bool:
    """Is ``value`` an array that its one reader computes in its own expression: made and read
    by nodes that write nothing, in one block, with only such nodes between? Numba evaluates
    the expressions of NumPy operators and ufuncs on arrays as one loop over the elements
    (its array expressions), but only across temporaries: ``v3 = (v1 * v2) + v0`` makes one
    array where ``v2 = v1 * v2; v3 = v2 + v0`` makes two, and a loop each (a 20-step escape-time
    iteration on 48x64 arrays spent most of its time allocating and looping per operator)."""
    if _rank(value) in (None, 0) or len(value.uses) != 1:
        return False
    made, reader = value.node, value.uses[0].user
    if any((_rank(out) or 0) > _rank(value) for out in reader.outputs):
        # (broadcast: the reader's loop would compute it again for every row; a window
        # 0.5 - 0.5 * np.cos(...) of 1024 float32 times 975 x 1024 frames took 6 ms inlined,
        # where NumPy computes its 1024 cosines once)
        return False
    if reader.owning_block is not made.owning_block or not _writes_nothing(made) \
            or not _writes_nothing(reader):
        return False
    dtype = _dtype(value)
    if dtype is not None and dtype.kind in "iu" and dtype.itemsize < 8 and \
            reader.kind.name not in _WRAPPING:
        return False    # (an array expression computes int8 * int8 in int64, unwrapped)
    between = made.next
    while between is not reader:
        if not _writes_nothing(between):
            return False
        between = between.next
    return True


def _writes_nothing(node: Node) -> bool:
    """Does ``node`` neither write memory nor hold a block (a constant, an ``aten`` op whose
    schema writes no argument)?"""
    if node.blocks:
        return False
    if node.kind == prim.Constant:
        return True
    schema = node.schema if node.kind.ns == "aten" else None
    return schema is not None and not schema.written


_SCALAR_DTYPES = {IntType: scalar_dtype(1), FloatType: scalar_dtype(1.0),
                  BoolType: scalar_dtype(True)}


def _compute_dtype(operands: list[Value]) -> np.dtype:
    """The dtype PyTorch compares in (arrays over 0-d tensors over Python scalars)."""
    kinds = [(_dtype(v), "zero_dim" if _rank(v) == 0 else "tensor")
             if isinstance(v.type, TensorType)
             else (_SCALAR_DTYPES[type(v.type)], "scalar") for v in operands]
    return result_type_from(kinds)


def _value_sort(node: Node) -> bool:
    """Is ``node`` ``x[np.argsort(x)]`` of a vector, the order read by it alone: ``np.sort(x)``
    as scripting writes it? (Numba's np.sort puts NaN last, as NumPy's; equal values are
    equal, but for -0.0 and 0.0, whose order NumPy's own sort leaves to its algorithm.)"""
    if node.kind != "aten::index" or _rank(node.input(0)) != 1:
        return False
    listed = index_list(node.input(1))
    if listed is None or listed[0] != 0 or len(listed[1]) != 1:
        return False
    order = listed[1][0]
    return order.node.kind == "aten::argsort" and order.node.input(0) is node.input(0) and \
        len(order.uses) == 1 and len(node.input(1).uses) == 1


def _np(dtype: np.dtype) -> str:
    return "np.bool_" if dtype.name == "bool" else f"np.{dtype.name}"


def _fixed_count(count: Value, width: int) -> bool:
    """Is ``count`` a constant of 0 to ``width`` less one (a shift C and NumPy agree on)?"""
    value = _static(count)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        value = int(value)
    return type(value) is int and 0 <= value < width


def _cast(expr: str, dtype: np.dtype | None) -> str:
    if dtype is None:
        return expr
    return f"np.{dtype.name}({expr})" if dtype.name != "bool" else f"np.bool_({expr})"


# The products of NumPy's BLAS by the operands' ranks (``blas``; rank 1 or 2, see _supported).
_PRODUCTS = {(2, 2): "_blas.mm", (2, 1): "_blas.mv", (1, 2): "_blas.vm", (1, 1): "_blas.dot",
             (3, 1): "_blas.stacked_mv", (3, 2): "_blas.stacked_mm"}


def blas_import(graph: Graph) -> str:
    """The import line of ``blas`` for a module computing ``graph``, if it writes products."""
    products = any(node.kind in ("aten::mm", "aten::matmul") for node in graph.all_nodes())
    return "from fusejit.runtime import blas as _blas\n" if products and \
        numpy_blas() is not None else ""


def library_imports(graph: Graph) -> str:
    """The import lines of ``lapack`` and ``interpolate`` for a module computing ``graph``,
    where it calls np.linalg or np.interp."""
    kinds = {(node.kind.ns, node.kind.name) for node in graph.all_nodes()}
    calls = any(ns in ("aten", "fusejit") and name in LINALG for ns, name in kinds)
    return ("from fusejit.runtime import lapack as _lapack\n" if calls else "") + (
        "from fusejit.runtime import interpolate as _interpolate\n"
        if ("fusejit", "interp") in kinds else "")


def element_source(graph: Graph, passed: list[tuple[int, int]] | None = None) -> str:
    """The module source whose ``element_fn`` computes ``graph``; with a list ``passed``, it
    leaves out of its results the outputs that are array parameters, which it appends to
    ``passed`` (``function_source``; ``rejoined`` puts them back)."""
    writer = _ElementWriter()
    for value in graph.inputs:      # (0-d parameters: the numbers they hold)
        if isinstance(value.type, TensorType) and _rank(value) == 0:
            writer.emit(1, f"{writer.name(value)} = number_of({writer.name(value)})")
    body = function_source(writer, graph, "element_fn", "", "", passed)
    loops = any(_LOOP.match(line) for line in writer.lines)
    runs = writer.run_functions
    return ("import numpy as np\n" + blas_import(graph) + library_imports(graph) + _PRELUDE
            + import_line()
            + _ELEMENT_JIT + ("from fusejit.runtime.element_jit import helper_jit\n" if runs
                              else "") + "\n\n" + "".join(runs)
            + ("@element_jit(loops=True)\n" if loops and byte_stores_in_loops(graph)
               else "@element_jit(vectorise=True, loops=True)\n" if loops
               else "@element_jit(vectorise=True)\n") + body)


_ONE_BYTE = frozenset({np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.uint8)})


def byte_stores_in_loops(graph: Graph) -> bool:
    """Could a loop of the function computing ``graph`` store into a one-byte array (bool,
    int8, uint8), the stores LLVM 22's vectoriser miscompiles (``element_jit``)? Where a
    one-byte array is written in place anywhere (``is_prime[j] = False``), made inside a loop,
    or made by indexing (which the writer writes as loops). A function without such a store
    keeps the vectoriser with its loops: its array expressions and reductions vectorise
    (set J's Kepler iteration on 10^4 float32 ran 0.79x NumPy without it)."""
    def in_block(block, looped: bool) -> bool:
        for node in block.nodes():
            for value in node.outputs:
                if _rank(value) and _dtype(value) in _ONE_BYTE and (
                        looped or node.kind in ("aten::index", "aten::index_put_")):
                    return True
            if node.inputs and writes_into(node) and _dtype(node.input(0)) in _ONE_BYTE:
                return True     # (an element too: a 0-d view of the array)
            if any(in_block(b, looped or node.kind == prim.Loop) for b in node.blocks):
                return True
        return False
    return in_block(graph.block, False)


def rejoined(passed: list[tuple[int, int]], count: int) -> Callable[[Any, tuple], Any]:
    """``rejoin(results, args)``: the ``count`` outputs of a graph whose compiled function
    returned ``results`` without the outputs ``passed`` ((output index, argument index)
    pairs, ``element_source``), which are its arguments ``args`` at those indices: one value
    or a tuple, as the function returned them with every output. ``rejoin.argument`` is the
    index of the argument a graph of one output returns (else None)."""
    where = dict(passed)
    kept = count - len(where)

    def rejoin(results: Any, args: tuple) -> Any:
        if count == 1:
            return args[passed[0][1]]
        values = iter((results,) if kept == 1 else results or ())
        return tuple(args[where[i]] if i in where else next(values) for i in range(count))

    rejoin.argument = passed[0][1] if count == 1 else None  # type: ignore[attr-defined]
    return rejoin


# (LLVM's loop vectoriser off where the function has loops of its own, which ``_LOOP`` finds
# in its lines: ``element_jit.py`` says which miscompiled loops it avoids)
_ELEMENT_JIT = ("from fusejit.runtime.element_jit import element_jit, number_of"
                f"  # {COMPILE_SETTINGS}\n")
_LOOP = re.compile(r"\s*(for|while)\b")


_COLUMN_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin"})


def lone_column_reduction(graph: Graph) -> bool:
    """Is ``graph`` one reduction of a 2-d input over axis 0 (a lone ``x.sum(0)``)? Its
    compiled form reads the input once, row by row (``_sum0``, ``_max0``), at NumPy's speed or
    better, so it may run whole at any size: on the interpreter path such a call cost ~35 us
    more than NumPy's 150-190 us (1024 x 1024 float32). (Several reductions of one input are
    a column kernel's, which reads it once for all.)"""
    inputs = set(graph.inputs)
    reductions = 0
    for node in graph.all_nodes():
        if node.kind == prim.Constant:
            continue
        if node.kind.ns != "aten" or node.kind.name not in _COLUMN_REDUCTIONS:
            return False
        x, dims = node.input(0), _static(node.input(1))
        if x not in inputs or _rank(x) != 2 or not isinstance(dims, list) or len(dims) != 1 \
                or dims[0] not in (0, -2):
            return False
        reductions += 1
    return reductions == 1


def compile_element_graph(graph: Graph, fallback: Callable[..., Any],
                          max_elements: int | None = None) -> Callable[..., Any]:
    """``graph`` as one compiled function; on an exception the call runs ``fallback``, and so
    does a call that could make an array of more than ``max_elements`` elements (None: no
    limit): one whose array arguments are bigger than ``argument_limit`` allows and whose
    arrays ``array_bounds.made_elements`` finds (or cannot find) bigger than that, as Numba's
    NumPy computes op by op (an outer difference of two 2048-element float32 vectors took
    45 ms whole against 13 ms for NumPy).

    The returned function carries what ``frontend/fastcall.py`` needs to call the Numba
    function itself: ``compiled`` (the dispatcher), ``post`` (the results as the graph gives
    them, or None when they already are), ``rejoin`` (None, or what puts back into the
    compiled function's results the array arguments it returns, which it leaves out:
    ``rejoined``; ``post`` takes what it gives), ``zero_d`` (the positions and dtypes of the 0-d
    outputs post makes 0-d arrays), ``written`` (the argument positions it writes), ``saved``
    (those of them copied before a call: ``raises_before_writes``),
    ``max_elements``, ``made_elements`` and ``made_limit``, ``fallback`` and ``before`` (what
    to call before the Numba function, or None: ``blas.refresh`` for a graph with products,
    whose compiled code reads the thread rule it sets)."""
    from ..passes import eliminate_common_subexpression, eliminate_dead_code
    from .fusion.cache import load_module

    # (computed once: np.percentile(x, [5, 50, 95]) sorts x once for its three quantiles)
    graph = graph.copy()
    eliminate_common_subexpression(graph)
    eliminate_dead_code(graph)
    passed: list[tuple[int, int]] = []
    compiled = load_module(element_source(graph, passed)).element_fn
    rejoin = rejoined(passed, len(graph.outputs)) if passed else None
    bound = made = None
    degree = growth_degree(graph)
    if max_elements is not None:
        made = made_elements(graph)
        bound = max_elements
        max_elements = argument_limit(graph, max_elements // (made.times if made else 1))
    zero_d = tuple((i, _dtype(v)) for i, v in enumerate(graph.outputs) if _rank(v) == 0)
    # (lists of numbers a loop appended: Python numbers from Numba, NumPy scalars from the
    # interpreter, as NumPy's list holds them: ``[row.sum() for row in A]``)
    numbers = tuple((i, list_element(v)[0].type) for i, v in enumerate(graph.outputs)
                    if isinstance(v.type, ListType) and not isinstance(v.type.elem, IntType))
    post = None
    if zero_d and len(graph.outputs) == 1:
        dtype = zero_d[0][1]

        def post(results: Any) -> Any:  # a 0-d result: a NumPy 0-d array, as the graph's
            return np.asarray(results, dtype)
    elif numbers and len(graph.outputs) == 1:
        scalar = numbers[0][1]

        def post(results: Any) -> Any:
            return list(map(scalar, results))
    elif zero_d or numbers:
        def post(results: Any) -> Any:
            results = list(results)
            for i, dtype in zero_d:
                results[i] = np.asarray(results[i], dtype)
            for i, scalar in numbers:
                results[i] = list(map(scalar, results[i]))
            return tuple(results)

    refused: list[BaseException] = []  # Numba could not compile it: the interpreter from now
    written = written_arguments(graph)
    # (the arguments copied before each call, to be put back before a rerun: none where a
    # call that raises has written nothing)
    saved = () if raises_before_writes(graph) else tuple(written)
    before = refresh if blas_import(graph) else None
    ndarray = np.ndarray

    def too_big(args: tuple) -> bool:
        """Do ``args`` go to ``fallback`` for their size (with a ``max_elements``)? An
        argument with a size-1 dimension broadcasts against the others (``t`` of (4000,)
        times ``w`` of (64, 1): 256000 elements), which ``growth_degree``, typed by ranks,
        does not see: then the product of the arguments' sizes must stay within the limit,
        or ``made`` bound it."""
        if max_elements is None:
            return False
        flat = True
        for a in args:
            if type(a) is ndarray:
                if a.size > max_elements:
                    return made is None or made(*args) > bound
                if flat and a.ndim > 1 and 1 in a.shape:
                    flat = False
        if flat:
            return False
        product = 1
        for a in args:
            if type(a) is ndarray:
                product *= a.size
        return product > max_elements and (made is None or made(*args) > bound)

    def run(*args: Any) -> Any:
        if refused or max_elements is not None and too_big(args):
            return fallback(*args)
        copies = [args[i].copy() for i in saved] if saved else ()
        if before is not None:
            before()
        try:
            results = compiled(*args)
        except Exception as error:  # noqa: BLE001 - the interpreter gives the graph's answer
            for i, values in zip(saved, copies):  # or error, from the caller's values
                if args[i].flags.writeable:  # (a read-only one was not written)
                    np.copyto(args[i], values)
            if isinstance(error, NumbaError):
                refused.append(error)
            return fallback(*args)
        if rejoin is not None:
            results = rejoin(results, args)
        return results if post is None else post(results)

    run.compiled = compiled  # type: ignore[attr-defined]
    run.refused = refused  # type: ignore[attr-defined]
    run.post, run.written, run.saved = post, written, saved  # type: ignore[attr-defined]
    run.rejoin = rejoin  # type: ignore[attr-defined]  # (before post: the outputs it left out)
    run.zero_d = zero_d  # type: ignore[attr-defined]  # (what post converts: jit's shaping)
    run.numbers = numbers  # type: ignore[attr-defined]  # (... and the lists of numbers)
    run.max_elements, run.fallback = max_elements, fallback  # type: ignore[attr-defined]
    # (what frontend/fastcall.py tests where the arguments are bigger than max_elements)
    run.made_elements, run.made_limit = made, bound  # type: ignore[attr-defined]
    run.degree = degree  # type: ignore[attr-defined]
    run.too_big = too_big  # type: ignore[attr-defined]
    run.before = before  # type: ignore[attr-defined]
    run.graph_for = getattr(fallback, "graph_for", None)  # type: ignore[attr-defined]
    run.code_for = getattr(fallback, "code_for", None)  # type: ignore[attr-defined]
    return run


def whole_size(run: Callable[..., Any], args: tuple) -> int | None:
    """The size ``run`` (``compile_element_graph``'s, with a limit) holds ``args`` to: the most
    elements an array its graph makes can have for them (``made_elements``), or where that has
    no bound, the most elements of an array argument to the graph's ``growth_degree`` (what
    ``argument_limit`` takes back to the argument: ``np.outer`` of two 100-element vectors,
    10^4). None where ``run`` has no limit, or where ``args`` go to its fallback."""
    made = getattr(run, "made_elements", None)
    if getattr(run, "max_elements", None) is None or run.too_big(args):
        return None
    if made is not None:
        return int(made(*args))
    biggest = max((a.size for a in args if isinstance(a, np.ndarray)), default=1)
    return max(biggest, 1) ** run.degree


__all__ = ["compile_element_graph", "element_source", "is_element_graph",
           "lone_column_reduction", "whole_size"]
