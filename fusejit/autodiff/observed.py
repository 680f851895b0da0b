"""Exact dtypes and ranks of a stage graph, from running it once on the example inputs.

Shape analysis cannot always say what a backward graph computes: the rank of
``aten::expand(%grad, %sizes)`` or ``aten::_grad_sum_to_size(%g, %sizes)`` is the length of a
size list saved by the forward stage, which is known only where that list was made. The whole
compiled stages (``autodiff/whole.py``) need every tensor's dtype and rank, so they run the
graph once, node by node, on copies of the example inputs (the interpreter's own operations),
and record what each value was::

    values = observe(graph, inputs)       # {value: {("tensor", float64, 2)}, ...}
    retype(graph, values)                 # Double(*, *) where one dtype and rank was seen

A value seen with two dtypes or ranks, or never computed (an ``If`` branch not taken, a loop
that did not run), gets an unknown type, so the graph does not qualify for compiling whole.
The ranks of every op the compiled stages accept follow from the input ranks alone, so what
one run shows holds for every call with the same dtypes and ranks (the staged cache's key).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Value
from ..ir.symbols import aten, prim
from ..ir.types import ScalarType, TensorType

Observed = dict[Value, set]


def _signature(value: Any) -> tuple:
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.str_):
        return ("tensor", np.dtype(value.dtype), np.ndim(value))
    if isinstance(value, tuple):
        return ("tuple", *(_signature(v) for v in value))
    return (type(value).__name__,)


def observe(graph: Graph, inputs: Sequence[Any],
            shapes: dict[Value, set] | None = None) -> tuple[list[Any], Observed, set]:
    """Run ``graph`` on copies of ``inputs``: its outputs, each value's signatures, and the
    ``_grad_sum_to_size`` nodes that summed nothing (their operand had the size already) every
    time they ran. ``shapes``, if given, collects each array value's shapes."""
    from ..oplib.table import make_operation

    seen: Observed = {}
    summed: set = set()
    ran: set = set()
    operations: dict = {}
    env: dict[Value, Any] = {}

    def bind(values: Sequence[Value], results: Sequence[Any]) -> None:
        for v, r in zip(values, results):
            env[v] = r
            seen.setdefault(v, set()).add(_signature(r))
            if shapes is not None and isinstance(r, np.ndarray):
                shapes.setdefault(v, set()).add(r.shape)

    def run(block: Block) -> None:
        for node in block.nodes():
            args = [env[v] for v in node.inputs]
            if node.kind == prim.Constant:
                results = (constant_value(node),)
            elif node.kind == prim.Loop:
                results = run_loop(node, args)
            elif node.kind == prim.If:
                branch = node.blocks[0 if args[0] else 1]
                run(branch)
                results = [env[v] for v in branch.outputs]
            else:
                operation = operations.get(node)
                if operation is None:
                    operation = operations[node] = make_operation(node)
                results = operation(*args)
                if node.kind == aten._grad_sum_to_size:
                    ran.add(node)
                    if args[1] is not None and tuple(np.shape(args[0])) != tuple(args[1]):
                        summed.add(node)
            bind(node.outputs, results)

    def run_loop(node, args: list) -> list:
        trip, again, carried = args[0], args[1], args[2:]
        body = node.blocks[0]
        i = 0
        while again and i < trip:
            bind(body.inputs, [i, *carried])
            run(body)
            again, *carried = [env[v] for v in body.outputs]
            i += 1
        return carried

    bind(graph.inputs, [x.copy() if isinstance(x, np.ndarray) else x for x in inputs])
    run(graph.block)
    return [env[v] for v in graph.outputs], seen, ran - summed


def drop_sums(nodes: set) -> None:
    """Remove ``_grad_sum_to_size`` nodes that sum nothing (for inputs of the observed sizes:
    the sizes of every value follow from the input sizes)."""
    for node in nodes:
        node.output().replace_all_uses_with(node.input(0))
        node.destroy()


def retype(graph: Graph, seen: Observed) -> None:
    """Give each tensor value of ``graph`` the dtype and rank it was seen with (unknown where
    it was never seen or seen with several)."""

    def visit(values: Sequence[Value]) -> None:
        for v in values:
            if not isinstance(v.type, TensorType):
                continue
            kinds = seen.get(v, set())
            if len(kinds) == 1 and next(iter(kinds))[0] == "tensor":
                _, dtype, rank = next(iter(kinds))
                v.set_type(TensorType(ScalarType.from_dtype(dtype), (None,) * rank,
                                      device="cpu"))
            else:
                v.set_type(TensorType())

    def walk(block: Block) -> None:
        visit(block.inputs)
        for node in block.nodes():
            for inner in node.blocks:
                walk(inner)
            visit(node.outputs)

    walk(graph.block)


__all__ = ["drop_sums", "observe", "retype"]
