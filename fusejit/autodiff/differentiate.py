"""Symbolic reverse-mode differentiation of a graph (PyTorch's ``differentiate`` in
``autodiff.cpp``): one graph in, a forward graph and a backward graph out.

::

    graph(%x : Tensor, %w : Tensor):           forward:  graph(%x, %w):
      %y : Tensor = aten::mul(%x, %w)                      %y = aten::mul(%x, %w)
      %z : Tensor = aten::tanh(%y)                         %z = aten::tanh(%y)
      return (%z)                                          %s = aten::size(%x)
                                                           return (%z, %w, %z, %s)
                                               backward: graph(%gz, %w, %z, %s):
                                                           %1 = aten::mul(%z, %z) ...
                                                           return (%gx)

The forward graph returns the original outputs followed by the values the backward graph needs
(``num_saved`` of them); the backward graph takes one gradient per tensor output followed by
those saved values, and returns one gradient per input in ``wrt`` (the inputs nothing
reaches are absent: ``wrt_reached`` says which are there).

``prim::If`` is differentiated branch by branch: the backward graph branches on the saved
condition, and values the backward of one branch reads leave the forward ``If`` as extra
(optional) outputs. A ``prim::Loop`` over a trip count (a ``for`` loop) stays a loop: it saves
per-iteration values in lists and the backward runs a loop in reverse (:mod:`.loops`); a loop
whose condition is computed as it runs is an error naming the node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import FusejitError
from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import INT, TENSOR, ListType, NoneType, OptionalType, TensorType, Type
from .cut_gradients import refuse_cut_gradients
from .functionalize import refuse_writes, remove_mutation
from .list_grads import appends_to_tracked, backprop_list_node
from .loops import (
    Stash,
    backprop_loop,
    loop_requires,
    prune_stashes,
    values_defined_in,
)
from .rules import NONDIFFERENTIABLE, RULES
from .view_writes import functionalize_view_writes


class AutodiffError(FusejitError):
    """A graph that cannot be differentiated: the message names the node and where it is from."""


class Gradient:
    """The two graphs of a differentiated graph (``autodiff.h``'s ``Gradient``)."""

    def __init__(self, forward: Graph, backward: Graph, num_outputs: int, num_saved: int,
                 output_has_grad: list[bool], wrt: list[int], wrt_reached: list[bool]):
        self.forward = forward
        self.backward = backward
        self.num_outputs = num_outputs
        self.num_saved = num_saved
        self.output_has_grad = output_has_grad   # which outputs take a gradient in backward
        self.wrt = wrt
        self.wrt_reached = wrt_reached           # per wrt input: does backward return it?


def _where(node: Node) -> str:
    return f" at {node.source_range}" if node.source_range is not None else ""


def describe(node: Node) -> str:
    """The printed node, with its source location unless the printed text shows it."""
    text = str(node).strip()
    return text if node.source_range and str(node.source_range) in text else text + _where(node)


def _is_constant(value: Value) -> bool:
    return value.node.kind == prim.Constant


def _is_tensor(value: Value) -> bool:
    return isinstance(value.type, TensorType)


class Backward:
    """Builds the backward graph of ``forward`` (which it extends with the saved values).

    The rules in :mod:`fusejit.autodiff.rules` call ``emit``, ``const``, ``saved``, ``size_of``,
    ``sum_to``, ``rank_of`` and ``unsupported`` on it.
    """

    def __init__(self, forward: Graph, wrt: Sequence[int]):
        self.forward = forward
        self.graph = Graph()
        self.node: Node | None = None        # the forward node whose rule is running
        self.saved_values: list[Value] = []  # forward values, in backward input order
        self._saved: dict[tuple[Value, Any], Value] = {}
        self._hoisted: dict[Value, Value] = {}
        self._sizes: dict[Value, Value] = {}
        self.stashes: list[Stash] = []               # what each forward loop saves
        self.open_loops: dict[Node, Stash] = {}      # forward loops being differentiated
        self.list_grads: dict[Value, list] = {}      # appended lists' readers (list_grads.py)
        self.requires = self._requires_grad([forward.inputs[i] for i in wrt])

    # -- what carries a gradient -------------------------------------------------------------

    def _requires_grad(self, roots: list[Value]) -> set[Value]:
        requires = {v for v in roots if _is_tensor(v)}

        def visit(block: Block) -> None:
            for node in block.nodes():
                if node.kind == prim.Loop:
                    loop_requires(node, requires)
                for inner in node.blocks:
                    visit(inner)
                if node.kind in NONDIFFERENTIABLE:
                    continue
                inputs = list(node.inputs) + [v for b in node.blocks for v in b.outputs]
                if any(v in requires for v in inputs):
                    # Lists carry it too: aten::cat reads a ListConstruct, ListUnpack a chunk.
                    requires.update(o for o in node.outputs
                                    if _is_tensor(o) or isinstance(o.type, ListType))
                    # So does what a node writes into (aten::append(%list, %h), add_): its
                    # readers must not take it for a constant (their rules refuse writes).
                    schema = node.schema
                    if schema is not None:
                        requires.update(node.inputs[i] for i in schema.written
                                        if i < len(node.inputs))
        # A loop's carried values feed its own next iteration: walk until nothing changes.
        size = -1
        while size != len(requires):
            size = len(requires)
            visit(self.forward.block)
        return requires

    # -- the API the rules use ---------------------------------------------------------------

    def emit(self, kind: str, *inputs: Value, type: Type = TENSOR) -> Value:
        node = self.graph.insert(kind, inputs)
        node.output().set_type(type)
        if self.node is not None:
            node.source_range = self.node.source_range
        return node.output()

    def const(self, value: Any) -> Value:
        return self.graph.insert_constant(value)

    def saved(self, value: Value) -> Value:
        """``value`` of the forward graph, readable at the backward insertion point: constants
        are copied, anything else is saved by the forward stage and read from the handle."""
        if _is_constant(value):
            return self.graph.insert_constant(constant_value(value.node), value.type)
        key = (value, self.graph.insert_point.owning_block)
        found = self._saved.get(key)
        if found is not None:
            return found
        home = value.node.owning_block
        if home is self.forward.block or home is None:
            found = self._saved.get((value, None))
            if found is None:
                found = self.graph.add_input(type=value.type)
                if value.has_debug_name and not value.debug_name.isdigit():
                    found.set_debug_name(value.debug_name)
                self._saved[(value, None)] = found
                self.saved_values.append(value)
        elif home.owning_node.kind == prim.If:
            # Saved from inside a branch: the other branch saved None in its place.
            cast = self.graph.insert(prim.unchecked_cast, [self.saved(self._hoist(value))])
            cast.output().set_type(value.type)
            found = cast.output()
        elif home.owning_node in self.open_loops:
            # Saved from inside a loop body: saved per iteration, read back per iteration.
            found = self.open_loops[home.owning_node].read(value)
        else:
            owner = home.owning_node
            raise AutodiffError(f"a value inside {owner.kind} is needed by the backward "
                                f"pass:\n  {describe(owner)}")
        self._saved[key] = found
        return found

    def size_of(self, value: Value) -> Value:
        """The size of forward tensor ``value``, computed in the forward stage and saved (so the
        handle holds a list of ints, not the tensor)."""
        size = self._sizes.get(value)
        if size is None:
            with self.forward.inserting_after(value.node):
                node = self.forward.insert("aten::size", [value])
            node.output().set_type(ListType(INT))
            node.source_range = value.node.source_range
            size = self._sizes[value] = node.output()
        return self.saved(size)

    def saved_size_at(self, value: Value, dim: Value) -> Value:
        """``value.size(dim)`` computed in the forward stage and saved."""
        with self.forward.inserting_after(value.node):
            node = self.forward.insert("aten::size", [value, self._forward_copy(dim)])
        node.output().set_type(INT)
        return self.saved(node.output())

    def _forward_copy(self, value: Value) -> Value:
        if _is_constant(value):
            return self.forward.insert_constant(constant_value(value.node), value.type)
        return value

    def sum_to(self, grad: Value, like: Value) -> Value:
        """``grad`` summed down to the size of forward tensor ``like`` (undoing broadcasting)."""
        return self.emit("aten::_grad_sum_to_size", grad, self.size_of(like))

    def rank_of(self, value: Value) -> int | None:
        sizes = value.type.sizes if isinstance(value.type, TensorType) else None
        return None if sizes is None else len(sizes)

    def unsupported(self, node: Node, why: str) -> None:
        raise AutodiffError(f"{why}:\n  {describe(node)}")

    # -- hoisting values out of branches -----------------------------------------------------

    def _hoist(self, value: Value) -> Value:
        """``value``, made in an ``If`` branch, as an extra optional output of that ``If``
        (None from the other branches)."""
        found = self._hoisted.get(value)
        if found is not None:
            return found
        owner = value.node.owning_block.owning_node
        elem = value.type.elem if isinstance(value.type, OptionalType) else value.type
        out = owner.add_output(OptionalType(elem))
        for branch in owner.blocks:
            if branch is value.node.owning_block:
                branch.register_output(value)
            else:
                with self.forward.inserting_before(branch.return_node):
                    none = self.forward.insert(prim.Uninitialized)
                none.output().set_type(NoneType())
                branch.register_output(none.output())
        self._hoisted[value] = out
        return out

    # -- the reverse walk --------------------------------------------------------------------

    def accumulate(self, grads: dict[Value, Value], value: Value, grad: Value | None) -> None:
        if grad is None or value not in self.requires:
            return
        old = grads.get(value)
        grads[value] = grad if old is None else self.emit("aten::add", old, grad, self.const(1))

    def backprop_block(self, block: Block, grads: dict[Value, Value]) -> None:
        for node in reversed(list(block.nodes())):
            if backprop_list_node(self, node, grads):
                continue
            outs = [grads.get(o) for o in node.outputs]
            if all(g is None for g in outs) and not (node.blocks and
                                                     appends_to_tracked(self, node)):
                continue
            if node.kind == prim.If:
                self._backprop_if(node, grads, outs)
                continue
            if node.kind == prim.Loop:
                backprop_loop(self, node, grads, outs)
                continue
            schema = node.schema
            rule = RULES.get(schema.text if schema is not None else str(node.kind))
            if rule is None:
                raise AutodiffError(f"no derivative for {node.kind} (schema "
                                    f"{schema.text if schema else 'unknown'}):\n"
                                    f"  {describe(node)}")
            self.node = node
            pairs = rule(self, node, outs)
            for value, grad in (pairs.items() if isinstance(pairs, dict) else pairs):
                self.accumulate(grads, value, grad)
            self.node = None

    def _backprop_if(self, node: Node, grads: dict[Value, Value], outs: list) -> None:
        cond = self.saved(node.input(0))
        bw_if = self.graph.insert(prim.If, [cond], 0)
        bw_if.source_range = node.source_range
        branches = []
        for branch in node.blocks:
            bw_block = bw_if.add_block()
            with self.graph.inserting_before(bw_block.return_node):
                local: dict[Value, Value] = {}
                for value, grad in zip(branch.outputs, outs):
                    self.accumulate(local, value, grad)
                self.backprop_block(branch, local)
            inside = set(values_defined_in(branch))
            branches.append((bw_block, {v: g for v, g in local.items() if v not in inside}))
        escaping: list[Value] = []
        for _, found in branches:
            escaping.extend(v for v in found if v not in escaping)
        for value in escaping:
            out = bw_if.add_output(TENSOR)
            for bw_block, found in branches:
                grad = found.get(value)
                if grad is None:
                    with self.graph.inserting_before(bw_block.return_node):
                        grad = self.emit("aten::zeros_like", self.saved(value))
                bw_block.register_output(grad)
            self.accumulate(grads, value, out)


def differentiate(graph: Graph, wrt: Sequence[int]) -> Gradient:
    """Differentiate ``graph``'s outputs with respect to its inputs ``wrt`` (indices)."""
    from ..passes import eliminate_dead_code, loop_invariant_code_motion

    forward = graph.copy()
    # (x = y.copy(); x += z: differentiated as x = y + z; first the writes before any view
    # write, so y[:] = x; if c: y[0] = v sees a fresh y in the if)
    remove_mutation(forward)
    functionalize_view_writes(forward)   # (out[t] = h: out = select_scatter(out, h, 0, t))
    remove_mutation(forward)
    for i in wrt:
        if not 0 <= i < len(forward.inputs):
            raise AutodiffError(f"argnum {i} is out of range for a graph with "
                                f"{len(forward.inputs)} inputs")
        if not _is_tensor(forward.inputs[i]):
            raise AutodiffError(f"input %{forward.inputs[i].debug_name} has type "
                                f"{forward.inputs[i].type}: only tensors have gradients")
    eliminate_dead_code(forward)
    loop_invariant_code_motion(forward)   # (x @ W.T of an RNN step: one matmul each way)
    num_outputs = len(forward.outputs)
    bw = Backward(forward, wrt)
    refuse_writes(forward.block, bw.requires)
    refuse_cut_gradients(forward, bw.requires)
    grads: dict[Value, Value] = {}
    output_has_grad = []
    for i, out in enumerate(forward.outputs):
        has = _is_tensor(out)
        output_has_grad.append(has)
        if has:
            grad = bw.graph.add_input(f"grad_{i}")
            bw.accumulate(grads, out, grad)
    num_grads = len(bw.graph.inputs)
    bw.backprop_block(forward.block, grads)
    wrt_reached = []
    for i in wrt:
        grad = grads.get(forward.inputs[i])
        wrt_reached.append(grad is not None)
        if grad is not None:
            bw.graph.register_output(grad)
    eliminate_dead_code(bw.graph)
    loop_invariant_code_motion(bw.graph)   # (the transposed weights of an RNN's backward step)
    # Save only what the backward graph reads.
    saved = []
    for offset in range(len(bw.saved_values) - 1, -1, -1):
        if bw.graph.inputs[num_grads + offset].uses:
            saved.append(bw.saved_values[offset])
        else:
            bw.graph.erase_input(num_grads + offset)
    saved.reverse()
    for value in saved:
        forward.register_output(value)
    prune_stashes(bw)
    eliminate_dead_code(forward)
    return Gradient(forward, bw.graph, num_outputs, len(saved), output_has_grad, list(wrt),
                    wrt_reached)


__all__ = ["AutodiffError", "Backward", "Gradient", "differentiate"]
