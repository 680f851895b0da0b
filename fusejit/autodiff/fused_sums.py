"""Fusion groups of backward graphs that end in ``aten::_grad_sum_to_size``: the kernel computes
the full-size gradient and the sum runs after it, as PyTorch's fusion executor does (it removes
the ``_grad_sum_to_size`` nodes from the kernel and sums the outputs to the recorded sizes)::

    with prim::FusionGroup_0 = graph(%g, %y, %s : int[]):      kernel: graph(%g, %y):
      %a = aten::mul(%g, %y)                         ==>          %a = aten::mul(%g, %y)
      %r = aten::_grad_sum_to_size(%a, %s)                        return (%a)
      return (%r)                                             then: sum_to_size(a, s)

A ``_grad_sum_to_size`` whose result is only a group output is moved after the kernel (the sum
happens exactly where the graph had it). One that feeds further ops inside the group is dropped
from the kernel, and each call checks that its size is the full size the kernel iterates over
(autodiff emits such no-op sums wherever an op *could* broadcast); when it is not, the call
interprets the original group instead, so the answer never changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.graph import Node
from ..ir.symbols import aten, prim
from ..ir.types import ListType


def strip_grad_sum_to_size(group: Node) -> tuple[Node, list[int], list[int | None],
                                                  list[int]] | None:
    """``(kernel group, arguments it takes, per output the argument holding its size, the
    arguments that must hold the full size)``, or None when the group has no
    ``_grad_sum_to_size`` or its sizes are computed inside."""
    subgraph = group.g("Subgraph").copy()
    reductions = [n for n in subgraph.nodes() if n.kind == aten._grad_sum_to_size]
    if not reductions:
        return None
    outer_of_inner = {inner: i for i, inner in enumerate(subgraph.inputs)}
    sizes: list[int | None] = [None] * len(subgraph.outputs)
    full: list[int] = []
    for node in reductions:
        result, size = node.output(), node.input(1)
        if size not in outer_of_inner:
            return None
        if all(u.user.kind == prim.Return for u in result.uses):
            for use in list(result.uses):
                sizes[use.offset] = outer_of_inner[size]
        else:
            full.append(outer_of_inner[size])
        result.replace_all_uses_with(node.input(0))
        node.destroy()
    keep = []
    for i in range(len(subgraph.inputs) - 1, -1, -1):
        value = subgraph.inputs[i]
        if isinstance(value.type, ListType):
            if value.uses:
                return None
            subgraph.erase_input(i)
        else:
            keep.append(i)
    keep.reverse()
    stripped = group.graph.create(prim.FusionGroup, [group.inputs[i] for i in keep], 0)
    stripped.g_("Subgraph", subgraph)
    for out in group.outputs:
        stripped.add_output(out.type)
    return stripped, keep, sizes, full


class SummedGroup:
    """Runs the stripped group's operation, then sums each output to its size; interprets the
    original group when a dropped sum would not have been a no-op."""

    __slots__ = ("operation", "group", "keep", "sizes", "full", "_fallback")

    def __init__(self, operation: Any, group: Node, keep: list[int], sizes: list[int | None],
                 full: list[int]):
        self.operation = operation
        self.group = group
        self.keep = keep
        self.sizes = sizes
        self.full = full
        self._fallback = None

    def __call__(self, *args: Any) -> tuple:
        from ..oplib.tensor import broadcast_sizes, sum_to_size

        if self.full:
            shape = broadcast_sizes(*(a.shape for a in args if isinstance(a, np.ndarray)))
            if any(args[p] is not None and list(args[p]) != shape for p in self.full):
                return self.interpret(args)
        outs = self.operation(*[args[i] for i in self.keep])
        return tuple(out if pos is None or args[pos] is None else sum_to_size(out, args[pos])
                     for out, pos in zip(outs, self.sizes))

    def interpret(self, args: tuple) -> tuple:
        from ..runtime.code import Code
        from ..runtime.reference import InterpreterState

        if self._fallback is None:
            self._fallback = Code(self.group.g("Subgraph"))
        stack = list(args)
        InterpreterState(self._fallback).run(stack)
        return tuple(stack)


__all__ = ["SummedGroup", "strip_grad_sum_to_size"]
