"""How many elements the arrays a graph makes can have, from its arguments' shapes.

A whole-graph function (``element_function.py``: Numba's NumPy, one op at a time) pays off on
small arrays only; the fused kernels win on big ones. The size that decides is that of the
biggest array the graph makes, which the arguments' own sizes bound only loosely: ``X @ Y.T``
of 40 x 3 and 30 x 3 makes 1200 elements, and a bound from the sizes alone, ``120 * 90``, is
nine times that. ``made_elements`` follows each array's dimensions back to the arguments'
dimensions they are, so that a call can compute the exact most (``40 * 30``).

Each dimension of an array the graph makes is a set of argument dimensions, ``(argument,
axis)``: the array's dimension is at most the longest of them (broadcasting makes a dimension
of the operands' equal ones, or of the one that is not 1); the empty set stands for 1. Ops that
could make a dimension of another length (``reshape`` of a matrix to a vector, ``np.arange(n)``,
``np.concatenate``, a product of stacked matrices) leave the graph without a bound; a length
that is an int argument itself (``np.zeros(n_steps)``) is bounded by its value. A loop's
variables take the union of what enters the loop and what each iteration gives back.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import IntType, TensorType
from ..passes.rolls_as_views import roll_of
from .element_helpers import FAST_MAPS
from .element_support import (
    _ALIASING,
    _ARITHMETIC,
    _CONVERT,
    _FLOAT_UFUNCS,
    _INPLACE,
    _PREDICATES,
    _REDUCTIONS,
    _SHIFTS,
    _WRITES,
    _rank,
    _static,
    expand_sizes,
    index_list,
    masked_gather,
)

Dims = tuple[frozenset, ...]

# Ops whose result has their tensor operands' shape, broadcast.
_BROADCASTING = (_ARITHMETIC | _PREDICATES | frozenset(_CONVERT) | frozenset({
    "where", "clamp", "pow", "clone", "reciprocal", "floor_divide", "remainder",
    "__and__", "__or__", "__xor__", "full_like", "cumsum", "cumprod", "logical_not",
    "bitwise_not", "logaddexp", "logaddexp2", "copysign", "fmod", "maximum", "minimum",
    "fmax", "fmin", "heaviside", "sign", "isnan", "isinf", "isfinite", "lerp", "addcmul",
    "softplus", "threshold", "frac", "exp2", "sigmoid"}) | frozenset(FAST_MAPS)
    | frozenset(_FLOAT_UFUNCS) | frozenset(_SHIFTS))
# Ops whose result is their first operand, written (its shape).
_UPDATES = frozenset(_INPLACE) | _WRITES | frozenset({"type_as"})
_ONE: frozenset = frozenset()      # a dimension of length 1
# The "argument" of a dimension bounded by a number: ``(_CONSTANT, n)`` is at most ``n`` long.
_CONSTANT = -1
# ``(_NUMBER, i)``: at most as long as the int argument ``i`` (``np.zeros(n_steps)``).
_NUMBER = -3
# ``(_FLAT, dims)``: at most as long as an array of the dimensions ``dims`` has elements
# (``x[mask]`` of a matrix and a mask of its shape: a vector of at most x.size).
_FLAT = -4
# A dimension holding ``(_TIMES, k)`` is at most ``k`` times as long as the longest of its
# other members (a concatenation along it: the sum of its parts' lengths).
_TIMES = -2


class _Unbounded(Exception):
    """An op may make a dimension no argument's dimension bounds."""


def made_elements(graph: Graph, in_loops: bool = False) -> Callable[..., int] | None:
    """A function of the graph's arguments giving the most elements an array the graph makes
    (or an array argument) can have: the product, over its dimensions, of the longest
    argument dimension each may be. None where an op may make a dimension no argument's
    dimension bounds. ``in_loops``: of the arrays made inside loops only (what each step of a
    loop works on: ``holt``'s 400-element rows of a 500 x 400 series)."""
    dims: dict[Value, Dims] = {}
    for i, value in enumerate(graph.inputs):
        rank = _rank(value)
        if isinstance(value.type, TensorType) and rank:
            dims[value] = tuple(frozenset({(i, axis)}) for axis in range(rank))
    # (the arguments count too: a copy or an update of one has its elements; not one only
    # multiplied, whose products BLAS computes whole or interpreted: a gradient descent's data
    # matrix of 2000 x 20, its vectors of 2000 elements)
    made: set[Dims] = _InLoops() if in_loops else {
        d for v, d in dims.items() if not _only_multiplied(v)}
    try:
        _walk(graph.block, dims, made)
    except _Unbounded:
        return None
    return _bound_function(made)


_PRODUCTS = frozenset({"aten::matmul", "aten::mm", "aten::mv", "aten::dot"})
_TRANSPOSES = frozenset({"aten::t", "aten::transpose", "aten::permute"})
_SIZES = frozenset({"aten::size", "aten::dim", "aten::len"})


def _only_multiplied(value: Value) -> bool:
    """Is ``value`` (an argument) read only by matrix products (through transposes: ``X.T @
    e``) and for its sizes?"""
    for use in value.uses:
        user = use.user
        if user.kind in _TRANSPOSES and use.offset == 0:
            if not _only_multiplied(user.output()):
                return False
        elif user.kind not in _PRODUCTS and user.kind not in _SIZES:
            return False
    return bool(value.uses)


class _InLoops(set):
    """The made set of ``made_elements(in_loops=True)``: it keeps what is made while ``_loop``
    walks a body (``depth`` above 0), and drops what the graph makes outside loops."""

    depth = 0

    def add(self, dims: Dims) -> None:
        if self.depth:
            super().add(dims)

    def update(self, *more) -> None:
        if self.depth:
            super().update(*more)


def _walk(block: Block, dims: dict[Value, Dims], made: set[Dims]) -> None:
    for node in block.nodes():
        if node.kind == prim.Loop:
            _loop(node, dims, made)
            continue
        if node.kind == prim.If:
            for sub in node.blocks:   # (a loop in a branch: its own checks)
                _walk(sub, dims, made)
        try:
            if node.kind == prim.If:
                for k, out in enumerate(node.outputs):
                    if _is_array(out):
                        dims[out] = _union([dims.get(b.outputs[k]) for b in node.blocks],
                                           out)
            else:
                _node(node, dims, made)
        except _Unbounded:
            # (in_loops: what the graph makes outside its loops need not be bounded, a stack
            # of what a loop appended; a loop reading such a value is unbounded)
            if not (isinstance(made, _InLoops) and made.depth == 0):
                raise


def _loop(node: Node, dims: dict[Value, Dims], made: set[Dims]) -> None:
    """A loop's variables: what enters it, joined with what its body gives back, until the
    two agree (the sets only grow, so that comes within a few passes)."""
    body = node.blocks[0]
    carried = list(zip(node.inputs[2:], body.inputs[1:], body.outputs[1:], node.outputs))
    for entering, param, _, _ in carried:
        if _is_array(param):
            dims[param] = _union([dims.get(entering)], param)
    inside = isinstance(made, _InLoops)
    for _ in range(8):
        if inside:
            made.depth += 1
        try:
            _walk(body, dims, made)
        finally:
            if inside:
                made.depth -= 1
        changed = False
        for _, param, returned, _ in carried:
            if _is_array(param):
                joined = _union([dims[param], dims.get(returned)], param)
                if joined != dims[param]:
                    dims[param], changed = joined, True
        if not changed:
            break
    else:
        raise _Unbounded
    for _, param, _, out in carried:
        if _is_array(out):
            dims[out] = dims[param]


def _node(node: Node, dims: dict[Value, Dims], made: set[Dims]) -> None:
    outs = [v for v in node.outputs if _is_array(v)]
    if node.kind == prim.ListUnpack:          # (the pieces of a chunk: at most its shape)
        source = node.input(0).node
        if source.kind != "aten::chunk" or source.input(0) not in dims:
            raise _Unbounded
        for out in outs:
            dims[out] = dims[source.input(0)]
        return
    if not outs:
        return
    if node.kind == prim.Uninitialized:        # (a loop's variable before the loop)
        dims[outs[0]] = (_ONE,) * _rank(outs[0])
        return
    if node.kind == prim.Constant:            # (an array written into the source: its shape)
        dims[outs[0]] = tuple(map(_counted_by, _static(outs[0]).shape))
        made.add(dims[outs[0]])
        return
    if node.kind == "aten::linalg_eigh" and node.input(0) in dims and len(outs) == 2:
        # (eigenvalues, one per row; eigenvectors, the matrix's shape)
        a = dims[node.input(0)]
        dims[outs[0]], dims[outs[1]] = a[:1], a
        made.update((a[:1], a))
        return
    if node.kind == "fusejit::lstsq" and node.input(0) in dims and node.input(1) in dims:
        # (x: a's columns by b's; residuals: one per column of b, or one; singular values)
        (_, n), b = dims[node.input(0)], dims[node.input(1)]
        shapes = ((n, *b[1:]), b[1:] or (_ONE,), (n,))
        for out, shape in zip(outs, shapes):
            dims[out] = shape
        made.update(shapes)
        return
    if node.kind == "fusejit::ufunc_at_" and node.input(0) in dims:  # (x itself, updated)
        dims[outs[0]] = dims[node.input(0)]
        return
    if node.kind == "fusejit::interp" and node.input(0) in dims:    # (x's shape)
        dims[outs[0]] = dims[node.input(0)]
        made.add(dims[outs[0]])
        return
    if node.kind == "fusejit::polyfit" and node.input(1) in dims and \
            type(_static(node.input(2))) is int:
        dims[outs[0]] = (_counted_by(_static(node.input(2)) + 1), *dims[node.input(1)][1:])
        made.add(dims[outs[0]])
        return
    if node.kind.ns != "aten" and node.kind not in ("fusejit::pad", "fusejit::wrap_pad") or \
            len(outs) != 1:
        raise _Unbounded
    out = outs[0]
    shape = _op_dims(node, out, dims)
    if shape is None and node.kind in ("aten::reshape", "aten::view") and \
            node.input(0) in dims and all(use.user.kind == prim.Return for use in out.uses):
        # (a returned reshape to sizes computed at run time, np.kron's last step: as many
        # elements as the array it reshapes, which counts already; nothing reads its shape)
        return
    if shape is None or len(shape) != _rank(out):
        raise _Unbounded
    dims[out] = shape
    if node.kind not in _ALIASING:     # (views and updates make no new elements)
        made.add(shape)


def _op_dims(node: Node, out: Value, dims: dict[Value, Dims]) -> Dims | None:
    name = node.kind.name
    tensors = [v for v in node.inputs if isinstance(v.type, TensorType)]
    if any(_is_array(v) and v not in dims for v in tensors):
        return None
    if name in _UPDATES:
        return dims.get(node.input(0))
    if name in _BROADCASTING:
        return _broadcast([dims[v] for v in tensors if _is_array(v)], _rank(out))
    if name in _REDUCTIONS:
        return _reduced(node, out, dims[node.input(0)])
    x = dims.get(node.input(0)) if node.inputs else None
    if x is None and node.inputs and isinstance(node.input(0).type, TensorType) and \
            _rank(node.input(0)) == 0:
        x = ()      # (a 0-d array: no dimensions; np.asarray(t)[None] is one element)
    if name == "index" and masked_gather(node):     # (no more than x's elements)
        if x is None:
            return None
        return x if len(x) == 1 else (frozenset({(_FLAT, x)}),)
    if name == "index":     # (x[:, rows, cols]: the indices' broadcast shape in their place)
        listed = index_list(node.input(1))
        if x is None or listed is None:
            return None
        p, indices = listed
        if any(_is_array(v) and v not in dims for v in indices):
            return None
        rank = max(_rank(v) for v in indices)
        middle = _broadcast([dims.get(v, ()) for v in indices], rank)
        return None if middle is None else x[:p] + middle + x[p + len(indices):]
    if name == "arange":    # (np.arange(len(x)): from 0 by 1 to a dimension)
        return _counted(node, dims)
    if x is None and name in ("slice", "select", "unsqueeze", "t", "transpose", "permute",
                              "reshape", "view"):
        return None     # (an array of a rank known only when it runs: no bound)
    if name == "slice":
        return _sliced(node, x)
    if name == "select":
        axis = _axis(node.input(1), len(x))
        return None if axis is None else x[:axis] + x[axis + 1:]
    if name == "unsqueeze":
        axis = _axis(node.input(1), len(x) + 1)
        return None if axis is None else x[:axis] + (_ONE,) + x[axis:]
    if name == "t":
        return x[::-1]
    if name == "permute":
        order = _static(node.input(1))
        return tuple(x[d % len(x)] for d in order) if isinstance(order, list) and x and \
            len(order) == len(x) else None
    if name == "transpose":
        a, b = (_axis(v, len(x)) if x else 0 for v in node.inputs[1:3])
        if a is None or b is None:
            return None
        swapped = list(x)
        if swapped:
            swapped[a], swapped[b] = swapped[b], swapped[a]
        return tuple(swapped)
    if name in ("reshape", "view"):
        return _reshaped(node.input(1), x, _rank(out))
    if name in ("mm", "matmul"):
        a, b = dims[node.input(0)], dims[node.input(1)]
        if len(a) > 2 or len(b) > 2:
            return None
        return a[:-1] + b[1:]
    if name in ("zeros", "ones", "full"):
        return _sized(node.input(0), dims)
    if name in ("argsort", "flip", "triu", "tril"):
        return x
    if name == "searchsorted":  # (a position per value)
        values = node.input(1)
        return () if _rank(values) == 0 else dims.get(values)
    if name == "linspace":  # (np.linspace(a, b, n): n of a constant or an array's length)
        steps = _length(node.input(2), dims)
        return None if steps is None else (steps,)
    if name == "cat" and (rolled := roll_of(node)) is not None:
        return dims.get(rolled[0])   # (np.roll: its array's shape; as a join, a loop doubled it)
    if name in ("stack", "cat"):
        joining = _fixed_join(node, out, dims)
        if joining is None:
            return None
        shapes, axis = joining
    if name == "stack":     # (of arrays of one shape: a new axis as long as the list)
        joined = _broadcast(shapes, _rank(out) - 1)
        return None if joined is None else \
            joined[:axis] + (_counted_by(len(shapes)),) + joined[axis:]
    if name == "cat":       # (arrays joined along an axis they have)
        if any(len(shape) != _rank(out) for shape in shapes):
            return None
        joined = _broadcast(shapes, _rank(out))
        # (each part at most its multiple of the longest: their sum, of the sum of multiples)
        times = sum(_times(shape[axis]) for shape in shapes)
        along = frozenset(m for m in joined[axis] if m[0] != _TIMES) | (
            {(_TIMES, times)} if times > 1 else set())     # (of one part: as long as it)
        return joined[:axis] + (along,) + joined[axis + 1:]
    if name == "diagonal" and x is not None:    # (no longer than either dimension it walks)
        a, b = (_axis(v, len(x)) for v in node.inputs[2:4])
        if a is None or b is None or a == b:
            return None
        return tuple(d for k, d in enumerate(x) if k not in (a, b)) + (x[a],)
    if name == "expand" and x is not None:      # (np.broadcast_to: sizes made here)
        items = expand_sizes(node.input(1))
        if items is None or len(items) < len(x):
            return None
        lead = len(items) - len(x)
        shape = []
        for k, item in enumerate(items):
            n = _static(item) if isinstance(item, Value) else item
            length = x[k - lead] if n == -1 and k >= lead else \
                _length(item, dims) if isinstance(item, Value) else \
                _counted_by(n) if type(n) is int and n >= 0 else None
            if length is None:
                return None
            shape.append(length)
        return tuple(shape)
    if name in ("linalg_solve", "linalg_inv", "linalg_cholesky"):
        return dims.get(node.inputs[1 if name == "linalg_solve" else 0])  # (b's, or a's)
    if name == "linalg_eigvalsh" and x is not None:
        return x[:1]
    if name == "constant_pad_nd" and x is not None and isinstance(_static(node.input(1)), list):
        pads = _static(node.input(1))       # (each padded dimension: its length + its pads)
        grown = list(x)
        for k in range(len(pads) // 2):
            d = len(x) - 1 - k
            if d >= 0:
                grown[d] = _plus(x[d], pads[2 * k] + pads[2 * k + 1])
        return tuple(grown)
    if name in ("pad", "wrap_pad") and x is not None and \
            isinstance(_static(node.input(1)), list) and \
            len(_static(node.input(1))) == 2 * len(x):
        pads = _static(node.input(1))       # (from the first dimension on: before, after)
        return tuple(_plus(n, pads[2 * d] + pads[2 * d + 1]) for d, n in enumerate(x))
    if name == "diag_embed" and x is not None and len(x) == 1 and \
            type(_static(node.input(1))) is int:
        side = _plus(x[0], abs(_static(node.input(1))))  # (np.diag(v, k): len(v) + |k|)
        return (side, side)
    if name == "eye":       # (np.eye(n, m) of constant sizes, or of an array's dimensions)
        sizes = [_length(v, dims) for v in node.inputs[:2]]
        return None if None in sizes else tuple(sizes)
    return None


def _fixed_join(node: Node, out: Value, dims: dict[Value, Dims]) -> tuple[list, int] | None:
    """(the parts' dimensions, the constant axis) of ``np.stack`` / ``np.concatenate`` of a
    list made here and read by the join alone; None for others (a list a loop appends to has no
    count here)."""
    items = node.input(0).node
    axis = _axis(node.input(1), _rank(out))
    if items.kind != prim.ListConstruct or not items.inputs or axis is None or any(
            use.user.kind != node.kind for use in node.input(0).uses):
        return None
    shapes = [() if _rank(v) == 0 else dims.get(v) for v in items.inputs]
    return None if None in shapes else (shapes, axis)


def _plus(axis: frozenset, extra: int) -> frozenset:
    """A dimension ``extra`` longer than ``axis``: at most (k + 1) times the longest of its
    members and ``extra``, where k times its longest member bounded ``axis``."""
    if not extra:
        return axis
    if not axis:                        # (a length of 1)
        return _counted_by(extra + 1)
    return frozenset(m for m in axis if m[0] != _TIMES) | {(_CONSTANT, extra),
                                                           (_TIMES, _times(axis) + 1)}


def _times(axis: frozenset) -> int:
    """The multiple of its longest member a dimension is at most (``_TIMES``)."""
    return max((k for i, k in axis if i == _TIMES), default=1)


def _counted_by(n: int) -> frozenset:
    """A dimension of the constant length ``n``."""
    return _ONE if n == 1 else frozenset({(_CONSTANT, n)})


def _length(value: Value, dims: dict[Value, Dims]) -> frozenset | None:
    """The dimension an int gives a length of: a constant, ``x.shape[d]``, or the size of
    a vector (``x.size``); None for others."""
    n = _static(value)
    if type(n) is int and n >= 0:
        return _counted_by(n)
    source = value.node
    if source.kind == "aten::numel":
        x = dims.get(source.input(0))
        return x[0] if x is not None and len(x) == 1 else None
    return _dimension(value, dims)


def _sliced(node: Node, x: Dims) -> Dims:
    """A slice's result: at most the constant count of ``x[a:b:s]`` for constant bounds from
    0 (``pts[:3]``: 3, where the argument's dimension bounded it at 40, and the distances of
    40 points to 3 centres at 40 x 40 x 3), else ``x``'s dimension."""
    axis = _axis(node.input(1), len(x))
    bounds = node.inputs[2:5]
    if axis is None or len(bounds) != 3 or any(v.node.kind != prim.Constant for v in bounds):
        return x
    start, end, step = (_static(v) for v in bounds)
    start = 0 if start is None else start
    if not all(type(v) is int for v in (start, end, step)) or start < 0 or end < 0 or \
            step < 1:
        return x
    count = max(0, -(-(end - start) // step))
    return x[:axis] + (frozenset({(_CONSTANT, count)}),) + x[axis + 1:]


def _reshaped(sizes: Value, x: Dims, rank: int) -> Dims | None:
    """``x.reshape(shape)``: ``x``'s dimension where both have one, else for a constant shape
    its numbers, and for its -1 the one dimension of ``x`` longer than 1 where ``x`` has at
    most one (``x[:5].reshape(-1, 1)``, as ``np.outer`` makes its operands: 5, where the
    graph had no bound)."""
    if len(x) == 1 == rank:
        return x
    shape = _static(sizes)
    if not isinstance(shape, list) or len(shape) != rank or shape.count(-1) > 1 or any(
            type(s) is not int or s < -1 for s in shape):
        return None
    long = [d for d in x if d != _ONE]
    if -1 in shape and len(long) > 1:
        return None
    rest = long[0] if long else _ONE        # (what the -1 stands for: at most x's elements)
    return tuple(rest if s == -1 else _counted_by(s) for s in shape)


def _reduced(node: Node, out: Value, x: Dims) -> Dims | None:
    """A reduction's result: the reduced axes dropped, or 1 where it keeps them."""
    if _rank(out) == 0:
        return ()
    axes = _static(node.input(1))
    axes = [axes] if isinstance(axes, int) else axes
    if not isinstance(axes, list):
        return None
    axes = {a % len(x) for a in axes}
    if _rank(out) == len(x):
        return tuple(_ONE if a in axes else d for a, d in enumerate(x))
    if _rank(out) == len(x) - len(axes):
        return tuple(d for a, d in enumerate(x) if a not in axes)
    return None


def _counted(node: Node, dims: dict[Value, Dims]) -> Dims | None:
    """``np.arange(x.shape[d])``, ``np.arange(0, x.shape[d], 1)``: that dimension's length;
    None for other ranges."""
    count = {5: 1, 6: 2, 7: 3}.get(len(node.inputs))   # (end | start, end | .., step)
    if count is None:
        return None
    bounds = [_static(v) for v in node.inputs[:count]]
    if count > 1 and (bounds[0] != 0 or isinstance(bounds[0], bool)) or \
            count == 3 and (bounds[2] != 1 or isinstance(bounds[2], bool)):
        return None
    end = _dimension(node.input(min(count, 2) - 1), dims)
    return None if end is None else (end,)


def _dimension(value: Value, dims: dict[Value, Dims]) -> frozenset | None:
    """The dimension an int is the length of, where it is ``x.shape[d]`` of an array whose
    dimensions are known, or an int argument of the graph itself; else None."""
    source = value.node
    if source.kind == prim.Param and source.owning_block is not None and \
            source.owning_block.owning_node is None and isinstance(value.type, IntType):
        return frozenset({(_NUMBER, source.outputs.index(value))})
    if source.kind != "aten::size" or len(source.inputs) != 2:
        return None
    x = dims.get(source.input(0))
    axis = None if x is None else _axis(source.input(1), len(x))
    return None if axis is None else x[axis]


def _sized(sizes: Value, dims: dict[Value, Dims]) -> Dims | None:
    """The shape ``np.zeros(shape)`` makes, where ``shape`` is an array's (``x.shape``) or a
    tuple of its dimensions (``(x.shape[0], 1)``)."""
    node = sizes.node
    if node.kind == "aten::size" and len(node.inputs) == 1:
        return dims.get(node.input(0))
    constant = _static(sizes) if node.kind == prim.Constant else None
    if isinstance(constant, list) and all(type(n) is int and n >= 0 for n in constant):
        return tuple(map(_counted_by, constant))        # (np.ones(5), np.zeros((3, 4)))
    if node.kind != prim.ListConstruct:
        return None
    shape = []
    for item in node.inputs:
        length = _dimension(item, dims)
        if length is not None:
            shape.append(length)
        elif _static(item) in (0, 1) and not isinstance(_static(item), bool):
            shape.append(_ONE)
        else:
            return None
    return tuple(shape)


def _axis(value: Value, rank: int) -> int | None:
    axis = _static(value)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        return None
    return axis % rank


def _broadcast(shapes: list[Dims], rank: int) -> Dims | None:
    if any(len(shape) > rank for shape in shapes):
        return None
    joined = []
    for position in range(rank):
        axis: set = set()
        for shape in shapes:
            k = position - (rank - len(shape))
            if k >= 0:
                axis |= shape[k]
        joined.append(frozenset(axis))
    return tuple(joined)


def _union(shapes: list[Dims | None], value: Value) -> Dims:
    """The dimensions that any of ``shapes`` may give ``value``."""
    if any(shape is None or len(shape) != _rank(value) for shape in shapes):
        raise _Unbounded
    return tuple(frozenset().union(*axis) for axis in zip(*shapes)) if shapes[0] else ()


def _is_array(value: Value) -> bool:
    return isinstance(value.type, TensorType) and bool(_rank(value))


def _size_text(i: int, d) -> str:
    """The text of one dimension's bound: argument ``i``'s axis ``d``, the number ``d``
    (``_CONSTANT``), the int argument ``d`` (``_NUMBER``), or the elements of an array of
    the dimensions ``d`` (``_FLAT``)."""
    if i == _NUMBER:
        return f"a{int(d)}"
    if i == _FLAT:
        return f"({' * '.join(_axis_text(axis) or '1' for axis in d)})"
    return str(int(d)) if i == _CONSTANT else f"a{int(i)}.shape[{int(d)}]"


def _axis_text(axis: frozenset) -> str:
    """The text of a dimension's bound: the longest of its members, times its multiple
    (empty for a dimension of length 1)."""
    sizes = [_size_text(i, d) for i, d in sorted(axis, key=repr) if i != _TIMES]
    times = _times(axis)
    if len(sizes) > 1:
        sizes = [f"max({', '.join(sizes)})"]
    if times > 1:
        sizes = [f"{times} * {sizes[0]}" if sizes else str(times)]
    return sizes[0] if sizes else ""


def _arguments(axis: frozenset) -> set[int]:
    """The positions of the arguments a dimension's bound reads."""
    found = set()
    for i, d in axis:
        if i == _NUMBER:
            found.add(d)
        elif i == _FLAT:
            for inner in d:
                found |= _arguments(inner)
        elif i not in (_CONSTANT, _TIMES):
            found.add(i)
    return found


def _bound_function(made: set[Dims]) -> Callable[..., int]:
    """The function computing ``made``'s most elements from the arguments: generated source
    holding only argument positions and axes (numbers this module made)."""
    products = []
    terms: dict[str, None] = {}     # (what the most is the most of: a size each, in order)
    for shape in sorted(made, key=repr):
        factors = [text for text in map(_axis_text, shape) if text]
        products.append(" * ".join(factors) or "1")
        if len(factors) == 1 and len(shape) == 1 and _times(shape[0]) == 1:
            # (one axis: its sizes, each a term)
            terms.update(dict.fromkeys(_size_text(i, d)
                                       for i, d in sorted(shape[0], key=repr) if i != _TIMES))
        else:
            terms[products[-1]] = None
    arguments = sorted(set().union(*(_arguments(axis) for shape in made for axis in shape)))
    params = "".join(f"a{i}, " for i in range(max(arguments, default=-1) + 1))
    # (a product of sizes is never negative: max only to choose among several)
    body = (products[0] if len(products) == 1 else f"max({', '.join(products)})") \
        if products else "0"
    source = f"def made_elements({params}*rest):\n    return {body}\n"
    scope: dict = {}
    exec(compile(source, "<fusejit array bound>", "exec"), scope)  # noqa: S102 - see above
    fn = scope["made_elements"]
    # (the fast call writes its test into its own text, as "each term <= limit": no call,
    # no max, ~0.35 us a call of two vectors)
    fn.source, fn.terms = source, tuple(terms)
    # (the most a made array's multiples of argument sizes multiply to: an argument limit from
    # the growth degree alone would let a concatenation of two arguments at it past the bound)
    fn.times = max((math.prod(map(_times, shape)) for shape in made), default=1)
    return fn


__all__ = ["made_elements"]


# -- how long a graph's loops run ----------------------------------------------------------


def loop_steps(graph: Graph, args: tuple) -> int:
    """About how many node runs the loops of ``graph`` take on ``args``: each loop's trip
    count, where it is a constant or a size of an argument (``range(len(x))``,
    ``range(1, x.shape[0] - 1)``), times the nodes its body runs an iteration (a nested
    loop's counted the same way, else once). 0 for a graph without such loops."""
    inputs = {value: arg for value, arg in zip(graph.inputs, args)}
    return _block_steps(graph.block, inputs) - sum(1 for _ in graph.block.nodes())


def _block_steps(block: Block, inputs: dict) -> int:
    steps = 0
    for node in block.nodes():
        steps += 1
        if node.kind == prim.Loop:
            trips = _int_value(node.inputs[0], inputs)
            body = _block_steps(node.blocks[0], inputs)
            steps += body * (trips if trips is not None and trips > 0 else 1)
        elif node.kind == prim.If:
            steps += max(_block_steps(b, inputs) for b in node.blocks)
    return steps


def _int_value(value: Value, inputs: dict, depth: int = 0) -> int | None:
    """``value``'s int on these arguments, where it is a constant, an int argument, a size of
    an array argument, or sums, differences and products of such; else None."""
    if value in inputs:
        arg = inputs[value]
        return arg if type(arg) is int else None
    node = value.node
    if depth > 8 or node is None:
        return None
    kind = node.kind
    if kind == prim.Constant:
        constant = _static(value)
        return constant if type(constant) is int else None
    if kind.ns != "aten":
        return None
    operands = [_int_value(v, inputs, depth + 1) for v in node.inputs]
    if kind.name in ("size", "len", "numel") and node.inputs and node.inputs[0] in inputs:
        array = inputs[node.inputs[0]]
        shape = getattr(array, "shape", None)
        if shape is None:
            return None
        if kind.name == "size" and len(node.inputs) == 2 and type(operands[1]) is int \
                and -len(shape) <= operands[1] < len(shape):
            return int(shape[operands[1]])
        if kind.name == "len" and shape:
            return int(shape[0])
        if kind.name == "numel":
            return int(getattr(array, "size", 0))
        return None
    if kind.name in ("add", "sub", "mul", "floordiv") and len(operands) == 2 and all(
            type(o) is int for o in operands):
        a, b = operands
        if kind.name == "floordiv":
            return a // b if b else None
        return a + b if kind.name == "add" else a - b if kind.name == "sub" else a * b
    return None
