"""Products with a short constant vector, as maps (for ``@fusejit.jit``'s CPU plans, beyond
PyTorch).

A weighted sum of a few channels is often written as a product with a vector of weights::

    gray = img @ np.array([0.299, 0.587, 0.114])      # (h, w, 3) @ (3,) -> (h, w)

NumPy runs it as a BLAS dot product of three elements for each pixel, a call per row of the
stack, and the interpreter did the same (``aten::matmul``), with any cast or map of the result
another pass over memory (set B's 256 x 512 x 3 float64 image to float32 gray: 0.83-0.90x
NumPy's time). Written as the sum of its terms, each a view of one channel times a number::

    %k = aten::size(%img, -1)                          # (raise unless %k == 3, as matmul does)
    %c0 = aten::select(%img, -1, 0)
    %t0 = aten::mul(%c0, 0.299)
    ...
    %gray = aten::add(aten::add(%t0, %t1), %t2)

it is maps the fuser puts in one kernel with what reads the result (the cast), each pixel's
channels read once. The rewrite takes ``aten::matmul(a, w)`` where ``w`` is a constant vector of
at most ``MAX_TERMS`` floats and ``a`` an array of floats of rank 2 or more, of ``w``'s dtype or
float32 beside a float64 ``w`` (cast first: the product is float64, as NumPy's); the sum runs in
the order of ``w``'s elements, which BLAS need not keep (the two differ in the last bit or so,
as two BLAS builds do). ``fuse_graph`` is unchanged; the executor runs this before it.
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL, INT, TensorType
from .dead_code_elimination import eliminate_dead_code
from .more_maps import is_map
from .pass_checks import graph_pass
from .raising import located, raise_unless

# The most elements a constant vector may have to be taken as its terms.
MAX_TERMS = 8

# NumPy's error for operands whose inner sizes differ (the first operand's size is not known
# when the check is written: it is left out).
MISMATCH_MESSAGE = ("ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, "
                    "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k} is different from "
                    "the last dimension of operand 0)")


@graph_pass
def expand_short_products(graph: Graph) -> bool:
    """Write each product of an array with a short constant vector (see the module's
    docstring) as the sum of its terms; True if any was."""
    changed = False
    for node in list(graph.all_nodes()):
        weights = _short_weights(node)
        if weights is not None:
            _expand(graph, node, weights)
            changed = True
    if changed:
        eliminate_dead_code(graph)      # (the weights' copies and casts)
    return changed


def _short_weights(node: Node) -> np.ndarray | None:
    """The constant vector ``node`` multiplies an array by, where it is a product the rewrite
    takes; else None."""
    if node.kind != aten.matmul or len(node.inputs) != 2 or len(node.outputs) != 1:
        return None
    a, w = node.inputs
    weights = _constant_array(w)
    t, out = a.type, node.output().type
    if not isinstance(weights, np.ndarray) or weights.ndim != 1 or \
            not 1 <= weights.size <= MAX_TERMS or weights.dtype not in _FLOATS or \
            not isinstance(t, TensorType) or t.rank is None or t.rank < 2 or \
            t.dtype not in _FLOATS or not isinstance(out, TensorType) or \
            out.dtype != np.result_type(t.dtype, weights.dtype):
        return None
    return weights


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _constant_array(value: Value, depth: int = 4) -> np.ndarray | None:
    """The array ``value`` always is, where it is a constant, or a copy or cast of one to the
    dtype of a constant (``np.array([...], dtype=np.float32)``: a clone and a ``type_as``);
    else None."""
    node = value.node
    if node is None or depth <= 0:
        return None
    if node.kind == prim.Constant:
        array = constant_value(node)
        return array if isinstance(array, np.ndarray) else None
    if node.kind == aten.clone and node.inputs:
        return _constant_array(node.input(0), depth - 1)
    if node.kind == aten.type_as and len(node.inputs) == 2:
        array, like = _constant_array(node.input(0), depth - 1), node.input(1)
        dtype = like.type.dtype if isinstance(like.type, TensorType) else None
        if array is not None and dtype is not None and like.node.kind == prim.Constant:
            return array.astype(dtype)
    return None


def _maps_from(value: Value, depth: int = 8) -> tuple[Value, list[Node]]:
    """The array ``value`` is computed from by maps of one tensor operand of its rank
    (``img.astype(np.float32)``), and those maps, first to last: the array itself and none
    where it is not such a map."""
    chain: list[Node] = []
    node = value.node
    while node is not None and depth > 0 and is_map(node):
        tensors = [i for i, v in enumerate(node.inputs)
                   if isinstance(v.type, TensorType) and v.type.rank]
        if len(tensors) != 1 or node.input(tensors[0]).type.rank != value.type.rank:
            break
        chain.append(node)
        value, node, depth = node.input(tensors[0]), node.input(tensors[0]).node, depth - 1
    return value, chain[::-1]


def _expand(graph: Graph, node: Node, weights: np.ndarray) -> None:
    """``node``'s product as the sum of its terms. Each column is a view of the array the
    operand's maps start from, those maps applied to it (a cast of the operand, moved past the
    view, fuses with the terms: a view of a map's result would need its array made), and the
    sizes checked are that array's."""
    a, out = node.input(0), node.output()
    source, maps = _maps_from(a)

    def op(kind: str, inputs: list[Value], type_) -> Value:
        return located(graph, node, kind, inputs, type_)

    def column_type(value: Value) -> TensorType:
        return value.type.with_(sizes=value.type.sizes[:-1], strides=None)

    with graph.inserting_before(node):
        last = graph.insert_constant(-1)
        size = op(aten.size, [source, last], INT)
        fits = op(aten.eq, [size, graph.insert_constant(weights.size)], BOOL)
    raise_unless(graph, node, fits, MISMATCH_MESSAGE.format(k=weights.size))
    with graph.inserting_before(node):
        term_type = out.type.with_(strides=None)
        one, total = graph.insert_constant(1), None
        for k, weight in enumerate(weights.tolist()):
            column = op(aten.select, [source, last, graph.insert_constant(k)],
                        column_type(source))
            for m in maps:          # (the operand's maps, on the column)
                inputs = [column if isinstance(v.type, TensorType) and v.type.rank else v
                          for v in m.inputs]
                column = located(graph, m, m.kind, inputs, column_type(m.output()))
            if column.type.dtype != out.type.dtype:    # (float32 by a float64 vector)
                column = op(aten.type_as, [column, node.input(1)],
                            column.type.with_(scalar_type=out.type.scalar_type))
            term = op(aten.mul, [column, graph.insert_constant(float(weight))], term_type)
            total = term if total is None else op(aten.add, [total, term, one], term_type)
    out.replace_all_uses_with(total)
    node.destroy()


__all__ = ["MAX_TERMS", "MISMATCH_MESSAGE", "expand_short_products"]
