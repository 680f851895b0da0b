"""Constant propagation (PyTorch's ``ConstantPropagation``): run what only depends on constants.

::

    graph(%x : Tensor):                           graph(%x : Tensor):
      %a : int = prim::Constant[value=2]()          %c : int = prim::Constant[value=6]()
      %b : int = prim::Constant[value=3]()    ==>   %y : Tensor = aten::mul(%x, %c)
      %c : int = aten::mul(%a, %b)                  return (%y)
      %y : Tensor = aten::mul(%x, %c)
      return (%y)

A node is folded when every input is a ``prim::Constant``, it has an operation
(``fusejit.oplib``) that is pure (deterministic, no side effects, writes nothing), it has
no blocks, and alias analysis finds no writer of the memory its inputs or outputs use (a
constant tensor that something later mutates in place must stay a node). Its outputs become
constants (tensor results become tensor constants); an output that cannot be a constant (a
list of tensors) is left to the node. A node whose operation raises is left in place, so the
error happens at run time, where it belongs.

``numbers_only=True`` folds only nodes whose outputs are all numbers (int, float, bool):
``@fusejit.jit`` runs it that way, so ``x ** (1 / 3)`` or ``math.sqrt(2 / math.pi) * x`` reach the
fuser with a constant (kernels specialise constant exponents and factors) while an array
made from constants (``np.zeros(3)``) stays a node, a new array on every call.

Control flow: a ``prim::If`` with a constant condition is replaced by the chosen block's nodes;
otherwise its blocks are propagated and outputs both branches agree on (the same outer value,
or equal constants) are removed. A ``prim::Loop`` that cannot run (constant trip count <= 0 or
constant false condition) is replaced by its initial values; otherwise its body is propagated
and loop-carried values the body passes through unchanged are removed. Dead code is
eliminated at the end, as PyTorch does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import FusejitError
from ..ir.constants import constant_value
from ..ir.graph import Block, ElidedTensor, Graph, Node, Value
from ..ir.symbols import NONDETERMINISTIC, SIDE_EFFECTS, prim
from ..ir.types import BOOL, FLOAT, INT, ListType, NoneType, OptionalType, Type
from ..oplib import find_entry, make_operation
from .alias_analysis import AliasDb
from .dead_code_elimination import eliminate_dead_code
from .pass_checks import graph_pass

__all__ = ["constant_propagation"]

# Kinds never folded even with constant inputs (PyTorch's skip list, for the kinds we have):
# folding prim::Uninitialized would turn "no value yet" into a None constant.
_SKIP = frozenset({prim.Constant, prim.If, prim.Loop, prim.Uninitialized})
_NUMBERS = (INT, FLOAT, BOOL)


@graph_pass
def constant_propagation(graph: Graph, numbers_only: bool = False) -> bool:
    """Fold constant subcomputations of ``graph`` in place (with ``numbers_only``, only those
    that give numbers); True when anything changed."""
    propagator = _ConstantPropagator(graph, numbers_only)
    propagator.run_block(graph.block)
    if propagator.changed:
        eliminate_dead_code(graph)
    return propagator.changed


def _is_constant(value: Value) -> bool:
    node = value.node
    return node.kind == prim.Constant and not isinstance(constant_value(node), ElidedTensor)


class _ConstantPropagator:
    def __init__(self, graph: Graph, numbers_only: bool = False):
        self.graph = graph
        self.numbers_only = numbers_only
        self.changed = False
        self._alias_db: AliasDb | None = None
        self._written: set[int] = set()

    @property
    def alias_db(self) -> AliasDb:
        # Built on first need; folding only removes writers, so the written set stays valid.
        if self._alias_db is None:
            self._alias_db = AliasDb(self.graph)
            self._written = self._alias_db.written_locations()
        return self._alias_db

    def run_block(self, block: Block) -> None:
        for node in list(block.nodes()):
            self.run_node(node)

    def run_node(self, node: Node) -> None:
        runnable = all(_is_constant(v) for v in node.inputs)
        if node.kind == prim.If:
            if runnable:
                self.inline_if(node)
            else:
                self.run_blocks(node)
                self.remove_extra_if_outputs(node)
        elif node.kind == prim.Loop:
            if _loop_will_not_run(node):
                self.remove_loop(node)
            else:
                self.run_blocks(node)
                self.remove_extra_loop_outputs(node)
        elif runnable and self.supported(node):
            self.fold(node)
        else:
            self.run_blocks(node)

    def run_blocks(self, node: Node) -> None:
        for block in node.blocks:
            self.run_block(block)

    # -- folding one node --------------------------------------------------------------------

    def supported(self, node: Node) -> bool:
        if node.kind in _SKIP or node.blocks or node.kind in SIDE_EFFECTS:
            return False
        if node.kind in NONDETERMINISTIC:
            return False
        if self.numbers_only and not all(out.type in _NUMBERS for out in node.outputs):
            return False
        entry = find_entry(node)
        if entry is None or not entry.pure:
            return False
        return not self.has_writers(node)

    def has_writers(self, node: Node) -> bool:
        db = self.alias_db
        if not self._written:
            return False
        locations = db.output_locations(node)
        for value in node.inputs:
            locations |= db.points_to(value)
        return bool(locations & self._written)

    def fold(self, node: Node) -> None:
        try:
            outputs = make_operation(node)(*(constant_value(v.node) for v in node.inputs))
        except Exception:  # the op fails on these constants: leave it to fail at run time
            return
        replaced = 0
        with self.graph.inserting_before(node):
            for out, value in zip(node.outputs, outputs):
                constant = _insert_constant(self.graph, value, out.type)
                if constant is None:
                    continue
                out.replace_all_uses_with(constant)
                replaced += 1
        if replaced:
            self.changed = True
        if replaced == len(node.outputs):
            node.destroy()

    # -- control flow ------------------------------------------------------------------------

    def inline_if(self, node: Node) -> None:
        chosen = node.blocks[0 if constant_value(node.input().node) else 1]
        self.run_block(chosen)
        for inner in list(chosen.nodes()):
            inner.move_before(node)
        for out, value in zip(node.outputs, chosen.outputs):
            out.replace_all_uses_with(value)
        node.destroy()
        self.changed = True

    def remove_extra_if_outputs(self, node: Node) -> None:
        true_block, false_block = node.blocks
        i = 0
        while i < len(node.outputs):
            t_out, f_out = true_block.outputs[i], false_block.outputs[i]
            replacement: Value | None = None
            if t_out is f_out:  # neither branch changes the value
                replacement = t_out
            elif _is_constant(t_out) and _is_constant(f_out) and _same_constant(t_out, f_out):
                with self.graph.inserting_before(node):
                    replacement = _insert_constant(
                        self.graph, constant_value(t_out.node), node.outputs[i].type)
            if replacement is None:
                i += 1
                continue
            node.outputs[i].replace_all_uses_with(replacement)
            node.erase_output(i)
            true_block.erase_output(i)
            false_block.erase_output(i)
            self.changed = True

    def remove_loop(self, node: Node) -> None:
        # inputs: (max trip count, condition, initial carried values...)
        for out, initial in zip(node.outputs, node.inputs[2:]):
            out.replace_all_uses_with(initial)
        node.destroy()
        self.changed = True

    def remove_extra_loop_outputs(self, node: Node) -> None:
        body = node.blocks[0]
        # body inputs: (iteration, carried...); body outputs: (condition, carried...)
        for i in reversed(range(len(node.outputs))):
            if body.inputs[i + 1] is not body.outputs[i + 1]:
                continue
            initial = node.inputs[i + 2]
            node.outputs[i].replace_all_uses_with(initial)
            body.inputs[i + 1].replace_all_uses_with(initial)
            node.erase_output(i)
            node.remove_input(i + 2)
            body.erase_input(i + 1)
            body.erase_output(i + 1)
            self.changed = True


def _loop_will_not_run(node: Node) -> bool:
    trip, cond = node.inputs[0], node.inputs[1]
    if _is_constant(trip):
        count = constant_value(trip.node)
        if isinstance(count, int) and count <= 0:
            return True
    return _is_constant(cond) and constant_value(cond.node) is False


def _same_constant(a: Value, b: Value) -> bool:
    x, y = constant_value(a.node), constant_value(b.node)
    if type(x) is not type(y):
        return False
    if isinstance(x, np.ndarray):
        return x.dtype == y.dtype and x.shape == y.shape and bool(np.array_equal(x, y))
    return x == y


_LIST_ELEMENTS = (INT, FLOAT, BOOL)


def _insert_constant(graph: Graph, value: Any, declared: Type) -> Value | None:
    """A constant for a folded output before the insertion point, or None when the value cannot
    be a constant (tuples, lists of tensors or strings)."""
    if isinstance(value, np.ndarray):
        value = value.copy()  # a constant owns its data; a folded view must not share it
    elif isinstance(value, tuple):
        return None
    elif isinstance(value, list):
        if not all(type(v) in (bool, int, float) for v in value):
            return None
        if not value and not (isinstance(declared, ListType) and declared.elem in _LIST_ELEMENTS):
            return None
    try:
        constant = graph.insert_constant(value)
    except FusejitError:
        return None
    constant.set_type(_constant_type(constant.type, declared))
    return constant


def _constant_type(inferred: Type, declared: Type) -> Type:
    """The type of a folded output: the value's own type, except where the value cannot tell
    (None of an Optional, an empty list), where the node's declared type is kept."""
    if isinstance(inferred, NoneType) and isinstance(declared, (OptionalType, NoneType)):
        return declared
    if isinstance(inferred, ListType) and isinstance(declared, ListType):
        return declared
    return inferred
