"""Kernels of a group that raises to a number known only at run time, such as ``(1 - p) ** gamma``
with ``gamma`` an argument: for calls where that number is 2.0, a second kernel squares.

A constant exponent of 2.0 is a multiplication in the kernel (``oplib.binary.POW_SPECIAL``, as
NumPy's ``x ** 2.0`` is ``np.square``); a number passed in takes the general vectorised pow,
about 0.6 ns an element against a multiplication's nothing. A test of the number inside the
loop does not help: LLVM unswitches a small loop on it, not a fused kernel's (a focal loss of
2^21 float32 ran 3.1 ms with the test, 3.3 without, 1.9 with the constant). So the group gets
a second kernel, made on the first call that needs it, from a copy of its subgraph whose
``aten::pow`` nodes take the constant 2.0 where they took that input::

    %l = prim::RowReductionGroup_0(%logits, %labels, %gamma)        # calls with gamma == 2.0:
      %w = aten::pow(%q, %gamma)        ->      %w = aten::pow(%q, 2.0)    (q * q)

``ByExponent`` picks the kernel per call. It has no native entry and no quick call (both
would skip the pick): the native loop and the remembered calls run it through the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...ir.graph import Graph, Node
from ...ir.symbols import aten
from ...ir.types import FloatType, TensorType

# The exponent a second kernel is made for.
SQUARED = 2.0


def squared_exponents(group: Node) -> tuple[int, ...]:
    """The positions of ``group``'s float number inputs that an ``aten::pow`` of a float
    tensor takes as its exponent."""
    subgraph = group.g("Subgraph")
    found = []
    for position, value in enumerate(subgraph.inputs):
        if isinstance(value.type, FloatType) and any(
                use.user.kind == aten.pow and use.offset == 1
                and isinstance(use.user.input(0).type, TensorType)
                and use.user.input(0).type.dtype is not None
                and use.user.input(0).type.dtype.kind == "f" for use in value.uses):
            found.append(position)
    return tuple(found)


def squared_group(group: Node, positions: tuple[int, ...]) -> Node:
    """A copy of ``group`` (in no block of the plan) whose ``aten::pow`` nodes take the
    constant ``SQUARED`` where they took the inputs at ``positions``."""
    subgraph = group.g("Subgraph").copy()
    nodes = list(subgraph.nodes())
    with subgraph.inserting_before(nodes[0] if nodes else subgraph.block):
        two = subgraph.insert_constant(SQUARED)
    for position in positions:
        for use in list(subgraph.inputs[position].uses):
            if use.user.kind == aten.pow and use.offset == 1:
                use.user.replace_input(1, two)
    # (a node of a graph of its own, with no inputs: no user of the plan's values)
    copy = Graph().create(group.kind, num_outputs=0)
    copy.copy_attributes(group)
    copy.source_range = group.source_range
    copy.g_("Subgraph", subgraph)
    return copy


class ByExponent:
    """The kernel of a group whose exponents at ``positions`` are numbers: ``general``, or for
    calls where some of them are ``SQUARED``, the kernel ``make(positions that are)`` gives
    (made once each)."""

    __slots__ = ("general", "positions", "make", "variants")

    def __init__(self, general: Any, positions: tuple[int, ...],
                 make: Callable[[tuple[int, ...]], Any]):
        self.general = general
        self.positions = positions
        self.make = make
        self.variants: dict[tuple[int, ...], Any] = {}

    def pick(self, inputs: tuple) -> Any:
        """The kernel for a call on ``inputs``."""
        squared = tuple(p for p in self.positions if isinstance(inputs[p], float)
                        and inputs[p] == SQUARED)
        if not squared:
            return self.general
        kernel = self.variants.get(squared)
        if kernel is None:
            kernel = self.variants[squared] = self.make(squared)
        return kernel

    def __call__(self, *inputs) -> tuple:
        return self.pick(inputs)(*inputs)

    def write_into(self, target: Any, inputs: tuple) -> Any:
        return self.pick(inputs).write_into(target, inputs)

    def source(self, *inputs) -> str:
        """The generated source of the kernel a call on ``inputs`` runs."""
        return self.pick(inputs).source(*inputs)

    def uncompiled(self, *inputs, run=None) -> list:
        return self.pick(inputs).uncompiled(*inputs, run=run)

    @property
    def layout(self) -> Any:
        return self.general.layout


__all__ = ["SQUARED", "ByExponent", "squared_exponents", "squared_group"]
