"""Dask arrays through fusejit: a compiled function called on Dask arrays returns Dask arrays.

::

    @fusejit.jit
    def gate(x, h):
        return F.sigmoid(x) * np.tanh(h)

    x = da.random.random((1 << 20, 64), chunks=(1 << 14, 64)).astype(np.float32)
    gate(x, h).compute()          # each chunk runs gate's compiled plan; Dask schedules them

``CompiledFunction.__call__`` sends any call with a Dask array among its arguments here (the test
is ``type(x).__module__``, so importing fusejit never imports Dask). The graph is specialised to
the whole arrays' shapes and cut into stages:

* **blockwise** nodes (the fuser's simple maps, chunk/split, fusion groups made of them) with
  their constants form one subgraph per stage, run by one ``dask.array.blockwise`` whose task
  calls the subgraph's :class:`CompiledFunction` on each chunk: the plan is fused and compiled
  once per process (kernels from the on-disk cache) and reused for every chunk. Arguments
  broadcast by NumPy's rules, aligned on their trailing dimensions; Dask unifies their chunks.
  A chunk or split along a dimension needs that dimension whole, so it is rechunked to one chunk.
  Computations of one stage that pass each other nothing run as separate blockwise (their
  shapes need not broadcast together); an output narrower than its stage (a bias-derived value
  returned beside the batch) is taken from the first chunk along the axes it does not span.
* **Dask's own operations** (``DASK_OPS``) run what needs more than one chunk: ``aten::sum``
  becomes Dask's tree reduction (``dask.array.reduction``) with NumPy's sum on each chunk and on
  each combined level; ``aten::mm``/``aten::matmul`` become ``dask.array.matmul`` (which sums
  partial products over a chunked contraction axis) and ``aten::t`` Dask's transpose. Such an op
  ends a stage: the nodes that use its result form the next stage.
* anything else (``aten::softmax`` along a chunked axis, ``prim::If`` and ``prim::Loop`` over
  whole arrays, ``aten::size`` of a chunk, ...) raises :class:`~fusejit.FusejitError` naming
  the node and its source location. Compute such a step with Dask itself and pass its result in.

Tasks carry the subgraph's IR text, not compiled code (``runtime/portable.py``), so they run on
``dask.distributed`` workers in other processes, and on a replacement for a worker that died.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import FusejitError
from .ir.constants import constant_value
from .ir.graph import Graph, Node, Value
from .ir.symbols import prim
from .ir.types import TENSOR, ListType, ScalarType, TensorType


def is_dask_array(value: Any) -> bool:
    """Is ``value`` a Dask array? Answered without importing Dask."""
    return type(value).__module__.startswith("dask") and hasattr(value, "chunks")


# Checked on every call of a compiled function: the common argument types answer in one lookup.
_PLAIN = frozenset({np.ndarray, int, float, bool, type(None), list, tuple})


def has_dask_arrays(values: Sequence[Any]) -> bool:
    for value in values:
        if type(value) not in _PLAIN and is_dask_array(value):
            return True
    return False


def call_on_dask(fn, inputs: Sequence[Any]) -> Any:
    """``fn(*inputs)`` for a :class:`CompiledFunction` ``fn`` whose inputs hold Dask arrays:
    the result as Dask arrays (one value, a tuple, or None as ``fn`` returns them)."""
    import dask.array as da

    from .passes import argument_type, propagate_input_shapes

    # The executor's own argument checks, on empty stand-ins of each Dask array's dtype and rank.
    stand_ins = [np.empty((0,) * x.ndim, x.dtype) if is_dask_array(x) else x for x in inputs]
    checked = fn.check_inputs(stand_ins)
    values = [x if is_dask_array(x) else c for x, c in zip(inputs, checked)]
    graph = fn.graph.copy()
    types = [_whole_type(p.debug_name, x) if is_dask_array(x) else
             argument_type(x, complete=True) if isinstance(x, np.ndarray) else None
             for p, x in zip(graph.inputs, values)]
    propagate_input_shapes(graph, types)

    env: dict[Value, Any] = dict(zip(graph.inputs, values))
    levels, dask_ops = _stages(graph)
    for level in range(max(levels.values(), default=0) + 1):
        members = [n for n in graph.nodes() if levels.get(n) == level and n not in dask_ops]
        for group in _connected(members):
            _run_blockwise(da, graph, group, env, (fn.fuse, fn.engine, fn.precise))
        for node in dask_ops:
            if levels[node] == level + 1:
                env[node.output()] = _run_dask_op(da, node, env)
    outputs = [_lookup(env, v) for v in graph.outputs]
    if len(outputs) == 1:
        return outputs[0]
    return tuple(outputs) if outputs else None


# -- which node runs how -------------------------------------------------------------------------

_CHUNKS = ("aten::chunk", prim.ConstantChunk)
# Lists of a stage's own values, broadcasting (the fuser's chunk preparation), unpacking.
_PLUMBING = frozenset({prim.ListConstruct, "aten::broadcast_tensors", prim.ListUnpack, *_CHUNKS})


def _is_blockwise(node: Node) -> bool:
    from .passes.graph_fuser import is_simple_map

    if node.kind in _PLUMBING or is_simple_map(node):
        return True
    if node.kind == prim.FusionGroup:
        sub = node.g("Subgraph")
        return all(n.kind in (prim.Constant, prim.FusedConcat) or _is_blockwise(n)
                   for n in sub.nodes())
    return False


def _sum(da, node: Node, x, *args: Any):
    """``aten::sum``: Dask's tree reduction with NumPy's sum, in the dtype shape analysis gave
    (PyTorch's: integers and bools sum to int64)."""
    dims, keepdim = (args[0], args[1]) if len(args) == 3 else (None, False)
    axes = None if not dims else tuple(int(d) % x.ndim for d in dims)
    dtype = node.output().type.dtype
    body = functools.partial(np.sum, dtype=dtype)
    return da.reduction(x, body, body, axis=axes, keepdims=bool(keepdim), dtype=dtype)


def _matmul(da, node: Node, a, b):
    return da.matmul(a, b).astype(node.output().type.dtype, copy=False)


# Nodes Dask computes with its own operations: each entry maps the node and its arguments (Dask
# arrays for tensors, Python values for the constants) to a Dask array. Reductions added to the
# op table add an entry here.
DASK_OPS = {
    "aten::sum": _sum,
    "aten::mm": _matmul,
    "aten::matmul": _matmul,
    "aten::t": lambda da, node, x: x.T,
}


def _stages(graph: Graph) -> tuple[dict[Node, int], list[Node]]:
    """The stage of every blockwise node and Dask op (a Dask op's stage is one past its inputs':
    it runs between the two), or the error naming a node that cannot run per chunk."""
    level: dict[Value, int] = {}
    levels: dict[Node, int] = {}
    dask_ops: list[Node] = []
    for node in graph.nodes():
        if _static(node):
            continue
        here = max((level.get(v, 0) for v in node.inputs), default=0)
        if node.kind in DASK_OPS and _is_tensor(node.inputs[0]):
            here += 1
            dask_ops.append(node)
            if not all(_is_tensor(v) or _static(v.node) for v in node.inputs):
                raise _not_chunkable(node, "its arguments other than arrays must be constants")
        elif not _is_blockwise(node):
            raise _not_chunkable(node, "it has no chunk-by-chunk form")
        levels[node] = here
        for out in node.outputs:
            level[out] = here
    return levels, dask_ops


def _static(node: Node) -> bool:
    """A value fixed by the graph: a constant, or a list or tuple of them."""
    if node.kind == prim.Constant:
        return True
    return node.kind in (prim.ListConstruct, prim.TupleConstruct) and all(
        _static(v.node) for v in node.inputs)


def _static_value(value: Value) -> Any:
    node = value.node
    if node.kind == prim.Constant:
        return constant_value(node)
    items = [_static_value(v) for v in node.inputs]
    return items if node.kind == prim.ListConstruct else tuple(items)


def _not_chunkable(node: Node, why: str) -> FusejitError:
    where = f" at {node.source_range}" if node.source_range is not None else ""
    return FusejitError(
        f"{node.kind}{where} cannot run on Dask arrays chunk by chunk ({why}):\n"
        f"  {str(node).strip()}\ncompute it with dask.array and pass the result in")


# -- blockwise stages ----------------------------------------------------------------------------

class BlockFunction:
    """A Dask task body: the subgraph's text, compiled once per process, called on a chunk."""

    def __init__(self, text: str, options: tuple[bool, str, bool]):
        from .runtime.portable import digest

        self.text = text
        self.options = options  # fuse, engine, precise: as the function called on Dask arrays
        self.key = digest(text, *options)
        self.__name__ = "fusejit"  # Dask names the stage's keys fusejit-<token>

    def __dask_tokenize__(self) -> str:
        return self.key

    def __call__(self, *blocks: Any) -> Any:
        from .runtime.portable import compiled_from_text

        fn = compiled_from_text(self.text, *self.options, key=self.key)
        return fn(*blocks)


def _run_blockwise(da, graph: Graph, members: list[Node], env: dict[Value, Any],
                   options: tuple[bool, str, bool]) -> None:
    sub, inputs, outputs = _subgraph(graph, members)
    stage = _StageShapes({v: tuple(env[v].shape) for v in inputs if _is_tensor(v)})
    stage.run(members)
    shapes, rank, whole = stage.shapes, stage.rank, stage.whole
    letters = string.ascii_letters[:rank]

    # A whole axis may differ in size between arguments (a chunk of 4n gives pieces of n): each
    # argument names it with a letter of its own, absent from the output, so Dask hands the
    # task the argument's single piece; the output's axis is a new one of the output's size.
    spare = iter(string.ascii_letters[rank:])
    args: list[Any] = []
    for value in inputs:
        x = env[value]
        if not _is_tensor(value):
            args += [x, None]
            continue
        x = da.asarray(x)
        lead = rank - x.ndim
        index = "".join(next(spare) if a + lead in whole else letters[a + lead]
                        for a in range(x.ndim))
        spans = {a: -1 for a in range(x.ndim) if a + lead in whole}
        args += [x.rechunk(spans) if spans else x, index]

    stage.check_inputs(inputs, members)
    narrow = {value: _narrow_axes(value, shapes.get(value), stage) for value in outputs}
    from .runtime.portable import graph_text

    body = BlockFunction(graph_text(sub), options)
    if len(outputs) == 1 and not narrow[outputs[0]]:
        out = outputs[0]
        dtype = out.type.dtype
        env[out] = da.blockwise(body, letters, *args, dtype=dtype, concatenate=True,
                                new_axes={letters[a]: shapes[out][a] for a in whole},
                                meta=np.empty((0,) * rank, dtype))
        return
    # Several outputs: one task per chunk returns them all; each output picks its own. One that
    # does not span an axis (a bias computed beside the batch) is the same in every chunk along
    # it: it is taken from the first.
    tuples = da.blockwise(body, letters, *args, dtype=object, concatenate=True,
                          new_axes={letters[a]: 1 for a in whole},
                          meta=np.empty((0,) * rank, object))
    for k, out in enumerate(outputs):
        shape, lead = shapes[out], rank - len(shapes[out])
        firsts = tuples.blocks[tuple(slice(0, 1) if a in narrow[out] else slice(None)
                                     for a in range(rank))]
        chunks = tuple((1,) if a < lead else (shape[a - lead],)
                       if a in whole or a in narrow[out] else tuples.chunks[a]
                       for a in range(rank))
        dtype = out.type.dtype
        picked = firsts.map_blocks(_pick, k, lead, dtype=dtype, chunks=chunks,
                                   meta=np.empty((0,) * rank, dtype))
        env[out] = picked[(0,) * lead] if lead else picked


def _pick(outputs: tuple | np.ndarray, k: int, lead: int) -> np.ndarray:
    """Output ``k`` of a chunk's task, with ``lead`` axes of 1 in front to match the stage's
    rank (dropped again outside)."""
    out = outputs[k] if isinstance(outputs, tuple) else outputs  # a one-output stage's array
    return out.reshape((1,) * lead + out.shape) if lead else out


def _connected(members: list[Node]) -> list[list[Node]]:
    """``members`` in groups joined by the values they pass each other, each in graph order: one
    stage may hold unrelated computations (``tanh(x)`` and ``w * 2`` before ``x @ w``) whose
    shapes need not broadcast together, so each group is a blockwise of its own."""
    root = {n: n for n in members}

    def find(n: Node) -> Node:
        while root[n] is not n:
            root[n] = root[root[n]]
            n = root[n]
        return n

    for node in members:
        for value in node.inputs:
            if value.node in root:
                root[find(value.node)] = find(node)
    groups: dict[Node, list[Node]] = {}
    for node in members:
        groups.setdefault(find(node), []).append(node)
    return list(groups.values())


def _subgraph(graph: Graph, members: list[Node]) -> tuple[Graph, list[Value], list[Value]]:
    """``members`` copied into a graph of their own (constants cloned in); its inputs are the
    outside values they use, its outputs the values they define that are used outside."""
    inside = set(members)
    sub = Graph()
    env: dict[Value, Value] = {}
    inputs: list[Value] = []

    def lookup(value: Value) -> Value:
        if value not in env:
            if _static(value.node):
                node = sub.create_clone(value.node, lookup)
                sub.block.append_node(node)
                env[value] = node.output()
            else:
                # metadata first: it copies the type, which must forget the whole array's sizes
                env[value] = sub.add_input().copy_metadata(value)
                env[value].set_type(_erased(value.type))
                inputs.append(value)
        return env[value]

    for node in members:
        clone = sub.create_clone(node, lookup)
        sub.block.append_node(clone)
        for old, new in zip(node.outputs, clone.outputs):
            new.set_type(_erased(old.type))
            env[old] = new
    outputs = [v for n in members for v in n.outputs
               if any(use.user not in inside for use in v.uses)]
    for value in outputs:
        sub.register_output(env[value])
    return sub, inputs, outputs


def _erased(t):
    # The chunk's plan specialises to each chunk's arrays; the whole arrays' sizes would not fit.
    if isinstance(t, TensorType):
        return TENSOR
    if isinstance(t, ListType) and isinstance(t.elem, TensorType):
        return ListType(TENSOR)
    return t


class _StageShapes:
    """The exact shape of every value of a stage, from its inputs' (shape analysis gives up on
    large arrays), and the axes, counted in the stage's broadcast rank, that some chunk or split
    needs whole."""

    def __init__(self, inputs: dict[Value, tuple]):
        self.shapes = dict(inputs)
        self.rank = max((len(s) for s in inputs.values()), default=0)
        self.whole: set[int] = set()

    def run(self, nodes, shapes: dict[Value, tuple] | None = None) -> None:
        shapes = self.shapes if shapes is None else shapes
        for node in nodes:
            ins = [shapes[v] for v in node.inputs if v in shapes]
            here = _broadcast(ins)
            results = [here] * len(node.outputs)
            made = node.input().node if node.kind == prim.ListUnpack else None
            if node.kind == prim.FusionGroup:
                sub = node.g("Subgraph")
                inner = {s: shapes[v] for s, v in zip(sub.inputs, node.inputs) if v in shapes}
                self.run(sub.nodes(), inner)
                results = [inner.get(v, ()) for v in sub.outputs]
            elif node.kind == prim.ConstantChunk:
                results = self._pieces(node, shapes.get(node.input(), ()), node.i("chunks"),
                                       node.i("dim"))
            elif made is not None and made.kind == prim.ListConstruct:
                results = [shapes.get(v, ()) for v in made.inputs]
            elif made is not None and made.kind == "aten::chunk":
                chunks, dim = (_constant_int(made, v) for v in made.inputs[1:3])
                results = self._pieces(made, shapes[made.input()], chunks, dim)
            for out, shape in zip(node.outputs, results):
                shapes[out] = shape

    def _pieces(self, node: Node, shape: tuple, chunks: int, dim: int) -> list[tuple]:
        from .oplib.tensor import chunk_sizes

        if not shape:
            raise _not_chunkable(node, "its input is not an array")
        d = dim % len(shape)
        self.whole.add(self.rank - len(shape) + d)
        return [shape[:d] + (n,) + shape[d + 1:] for n in chunk_sizes(shape[d], chunks)]

    @property
    def full(self) -> tuple:
        return _broadcast(list(self.shapes.values()))

    def check_inputs(self, inputs: list[Value], members: list[Node]) -> None:
        """Every array argument broadcasts to the stage's shape (else the blockwise would align
        chunks that NumPy would refuse to combine)."""
        full = self.full
        for value in inputs:
            shape = self.shapes.get(value)
            if shape is None:
                continue
            padded = (1,) * (self.rank - len(shape)) + shape
            if any(padded[a] not in (1, full[a]) for a in range(self.rank) if a not in self.whole):
                user = next(n for n in members if value in n.inputs)
                raise _not_chunkable(user, f"%{value.debug_name} {shape} does not broadcast to "
                                           f"{full} with the other arrays of its stage")


def _constant_int(node: Node, value: Value) -> int:
    if not _static(value.node):
        raise _not_chunkable(node, f"%{value.debug_name} must be a constant")
    return int(_static_value(value))


def _broadcast(shapes: list[tuple]) -> tuple:
    rank = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    return tuple(max(column) for column in zip(*padded)) if padded else ()


def _narrow_axes(value: Value, shape: tuple | None, stage: _StageShapes) -> set[int]:
    """The stage axes an output does not span (missing in front, or 1 where the stage is
    wider), checking that it is an array of known dtype that broadcasts to the stage."""
    t = value.type
    if not isinstance(t, TensorType) or shape is None:
        raise _not_chunkable(value.node, f"its result %{value.debug_name} is a {t}, used "
                                         f"outside the chunk-by-chunk stage")
    if t.dtype is None:
        raise _not_chunkable(value.node, f"shape analysis left %{value.debug_name} as {t}")
    full, lead = stage.full, stage.rank - len(shape)
    narrow = set(range(lead))
    for a in range(lead, stage.rank):
        if a not in stage.whole and shape[a - lead] != full[a]:
            if shape[a - lead] != 1:
                raise _not_chunkable(value.node, f"its result %{value.debug_name} {shape} does "
                                                 f"not broadcast to its stage's shape {full}")
            narrow.add(a)
    return narrow


# -- Dask's own operations ----------------------------------------------------------------------

def _run_dask_op(da, node: Node, env: dict[Value, Any]):
    out = node.output().type
    if not isinstance(out, TensorType) or out.dtype is None:
        raise _not_chunkable(node, f"shape analysis left its result as {out}")
    args = [da.asarray(env[v]) if _is_tensor(v) else _static_value(v) for v in node.inputs]
    return DASK_OPS[node.kind](da, node, *args)


# -- values --------------------------------------------------------------------------------------

def _lookup(env: dict[Value, Any], value: Value) -> Any:
    if value in env:
        return env[value]
    if _static(value.node):
        return _static_value(value)
    raise _not_chunkable(value.node, f"%{value.debug_name} is not computed by any stage")


def _is_tensor(value: Value) -> bool:
    return isinstance(value.type, TensorType)


def _whole_type(name: str, x: Any) -> TensorType:
    """The complete type of a Dask array as a whole (shape analysis gives every stage's sizes)."""
    if any(np.isnan(s) for s in x.shape):
        raise FusejitError(f"argument %{name}: a Dask array of unknown shape {x.shape}; call "
                           f"compute_chunk_sizes() on it first")
    try:
        scalar = ScalarType.from_dtype(x.dtype)
    except ValueError as error:
        raise FusejitError(f"argument %{name}: {error}") from None
    shape = tuple(int(s) for s in x.shape)
    return TensorType(scalar, shape, None, None, "cpu").contiguous()


__all__ = ["DASK_OPS", "BlockFunction", "call_on_dask", "has_dask_arrays", "is_dask_array"]
