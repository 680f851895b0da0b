"""Shape analysis: specialise a graph's tensor types to the types of its inputs.

PyTorch's ``PropagateInputShapes``, adapted: the graph inputs take the given types, then every
node's output types are computed in program order (``shape_rules.infer_outputs``: the operator
library run on proxies, schema rules where that cannot work), through ``prim::If`` blocks,
``prim::Loop`` bodies (to a fixpoint) and fusion-group subgraphs. Only types change::

    graph(%x : Tensor, %n : Tensor):                graph(%x : Long(*, *, device=cpu),
      %h : float = prim::Constant[value=0.5]()            %n : Float(*, device=cpu)):
      %y : Tensor = aten::add(%x, %h, %one)   ->      %y : Float(*, *, device=cpu) = aten::add(...)
      %c : Tensor = aten::gt(%y, %n)                  %c : Bool(*, *, device=cpu) = aten::gt(...)

with ``input_types = [Long(*, *, device=cpu), Float(*, device=cpu)]``.

Joins: an ``If`` output is the unification of its branches' results (dtype, rank, sizes and
device kept where they agree, unknown where they differ); a ``Loop``-carried value starts as its
initial type and is unified with the body's result until nothing changes.

Types already in the graph: a declared type is the author's claim for the author's inputs. Where
the new input types keep a property of every input (dtype, rank, sizes with strides, device) that
the old input types stated, the graph's claims about that property elsewhere still hold and fill
in what inference leaves unknown; where an input's property changed or became unknown (a plan
specialised on rank only runs inputs of any size), the old claims about that property are
dropped. Inferred properties replace declared ones that contradict them. Computed values get no
strides (the executor specialises on rank and contiguity of the inputs, never on sizes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import IRError
from ..ir.schema import type_matches
from ..ir.symbols import prim
from ..ir.types import (
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    AnyType,
    FutureType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    ScalarType,
    TensorType,
    TupleType,
    Type,
)
from .pass_checks import graph_pass
from .shape_rules import Facts, infer_outputs

# A loop body whose carried types still change after this many rounds gets them forgotten.
MAX_LOOP_ROUNDS = 8

_PROPERTIES = ("dtype", "rank", "sizes", "device")


@graph_pass
def propagate_input_shapes(graph, input_types: Sequence[Type | None]) -> None:
    """Give ``graph``'s inputs ``input_types`` (``None``: keep the declared type) and recompute
    the types of every value computed from them, nested blocks and subgraphs included."""
    inputs = graph.inputs
    if len(input_types) != len(inputs):
        raise IRError(f"propagate_input_shapes: {len(input_types)} input types for a graph with "
                      f"{len(inputs)} inputs")
    new_types = []
    for value, new in zip(inputs, input_types):
        if new is None:
            new = value.type
        if not isinstance(new, Type):
            raise IRError(f"input %{value.debug_name}: {new!r} is not an IR type")
        if not type_matches(new, value.type) and not _refines(new, value.type):
            raise IRError(f"input %{value.debug_name} is declared {value.type}; it cannot take "
                          f"a value of type {new}")
        new_types.append(new)
    propagator = _ShapePropagator(_stale_properties(inputs, new_types))
    for value, new in zip(inputs, new_types):
        propagator.old[value] = new
        value.set_type(new)
    propagator.run_block(graph.block)


def argument_type(value: Any, *, complete: bool = False, device: str = "cpu") -> Type:
    """The IR type of a run-time argument: tensors by dtype and rank (``Float(*, *)``), or with
    sizes and strides when ``complete``; scalars, None, strings, lists and tuples by kind."""
    if isinstance(value, np.ndarray):
        if complete:
            return TensorType.of_array(value, device=device, requires_grad=None)
        return TensorType(ScalarType.from_dtype(value.dtype), (None,) * value.ndim, None, None,
                          device)
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, (int, np.integer)):
        return INT
    if isinstance(value, (float, np.floating)):
        return FLOAT
    if value is None:
        return NONE
    if isinstance(value, str):
        return STR
    if isinstance(value, tuple):
        return TupleType(tuple(argument_type(x, complete=complete, device=device)
                               for x in value))
    if isinstance(value, list) and value:
        elems = {argument_type(x, device=device) for x in value}
        if all(isinstance(e, TensorType) for e in elems):
            return ListType(TensorType())
        if len(elems) == 1:
            return ListType(elems.pop())
    raise IRError(f"no IR type for an argument of type {type(value).__name__}")


def unify_types(a: Type, b: Type) -> Type | None:
    """The most specific type both ``a`` and ``b`` belong to (None when there is none)."""
    if a == b:
        return a
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return _unify_tensors(a, b)
    if isinstance(a, NoneType) or isinstance(b, NoneType):
        other = b if isinstance(a, NoneType) else a
        return other if isinstance(other, OptionalType) else OptionalType(other)
    if isinstance(a, OptionalType) or isinstance(b, OptionalType):
        inner = unify_types(_strip_optional(a), _strip_optional(b))
        return None if inner is None else OptionalType(_strip_optional(inner))
    if isinstance(a, ListType) and isinstance(b, ListType):
        elem = unify_types(a.elem, b.elem)
        return None if elem is None else ListType(elem)
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elems) == len(b.elems):
        elems = [unify_types(x, y) for x, y in zip(a.elems, b.elems)]
        return None if None in elems else TupleType(tuple(elems))
    return None


def _strip_optional(t: Type) -> Type:
    return t.elem if isinstance(t, OptionalType) else t


def _unify_tensors(a: TensorType, b: TensorType) -> TensorType:
    def same(x, y):
        return x if x == y else None

    sizes = None
    if a.sizes is not None and b.sizes is not None and len(a.sizes) == len(b.sizes):
        sizes = tuple(same(x, y) for x, y in zip(a.sizes, b.sizes))
    strides = same(a.strides, b.strides) if sizes is not None and None not in sizes else None
    return TensorType(same(a.scalar_type, b.scalar_type), sizes, strides,
                      same(a.requires_grad, b.requires_grad), same(a.device, b.device))


def _refines(new: Type, old: Type) -> bool:
    """May an input declared ``old`` be specialised to ``new`` (``Scalar`` to ``int``...)?"""
    if isinstance(old, (AnyType, NumberType)):
        return True
    if isinstance(old, OptionalType):
        return isinstance(new, NoneType) or _refines(new, old.elem) or type_matches(new, old.elem)
    return isinstance(old, TensorType) and isinstance(new, TensorType)


def _stale_properties(inputs, new_types: list[Type]) -> frozenset[str]:
    """The tensor properties whose old claims may be wrong for the new input types."""
    stale: set[str] = set()
    for value, new in zip(inputs, new_types):
        old = value.type
        if not isinstance(old, TensorType):
            continue
        if not isinstance(new, TensorType):
            stale.update(_PROPERTIES)
            continue
        if old.scalar_type is not None and old.scalar_type != new.scalar_type:
            stale.add("dtype")
        if old.sizes is not None and old.rank != new.rank:
            stale.update(("rank", "sizes"))
        if old.sizes is not None and any(s is not None for s in old.sizes) \
                and old.sizes != new.sizes:
            stale.add("sizes")
        if old.strides is not None and old.strides != new.strides:
            stale.add("sizes")
        if old.device is not None and old.device != new.device:
            stale.add("device")
    return frozenset(stale)


def merge_types(old: Type, inferred: Type | None, stale: frozenset[str]) -> Type:
    """The type a value ends with: ``inferred`` where known, ``old`` claims where still valid."""
    if isinstance(old, TensorType) and (inferred is None or isinstance(inferred, TensorType)):
        return _merge_tensors(old, inferred or TensorType(), stale)
    if inferred is None or inferred == old:
        return old
    if isinstance(old, TupleType) and isinstance(inferred, TupleType) \
            and len(old.elems) == len(inferred.elems):
        return TupleType(tuple(merge_types(o, i, stale)
                               for o, i in zip(old.elems, inferred.elems)))
    if type_matches(inferred, old) or _refines(inferred, old):
        return inferred
    return old  # a declared kind the inference contradicts: the graph's own word stands


def _merge_tensors(old: TensorType, new: TensorType, stale: frozenset[str]) -> TensorType:
    scalar = new.scalar_type
    if scalar is None and "dtype" not in stale:
        scalar = old.scalar_type
    device = new.device
    if device is None and "device" not in stale:
        device = old.device
    old_sizes = old.sizes if "rank" not in stale else None
    if old_sizes is not None and "sizes" in stale:
        old_sizes = (None,) * len(old_sizes)
    if new.sizes is None:
        sizes = old_sizes
    elif old_sizes is not None and len(old_sizes) == len(new.sizes):
        sizes = tuple(n if n is not None else o for n, o in zip(new.sizes, old_sizes))
    else:
        sizes = new.sizes
    strides = new.strides
    if strides is None and "sizes" not in stale and sizes == old.sizes:
        strides = old.strides
    requires_grad = new.requires_grad if new.requires_grad is not None else old.requires_grad
    return TensorType(scalar, sizes, strides, requires_grad, device)


class _ShapePropagator:
    """Walks blocks in program order; ``old`` holds each value's type before the pass,
    ``known`` the compile-time values the rules found (constants, shape metadata)."""

    __slots__ = ("stale", "old", "facts", "known")

    def __init__(self, stale: frozenset[str]):
        self.stale = stale
        self.old: dict[Any, Type] = {}
        self.facts = Facts()
        self.known = self.facts.values

    def set_type(self, value, inferred: Type | None) -> None:
        old = self.old.setdefault(value, value.type)
        value.set_type(merge_types(old, inferred, self.stale))
        self.facts.typed.add(value)

    def run_block(self, block) -> None:
        for node in block.nodes():
            self.run_node(node)

    def run_node(self, node) -> None:
        if node.kind == prim.If:
            self.run_if(node)
        elif node.kind == prim.Loop:
            self.run_loop(node)
        elif node.has_attribute("Subgraph") and node.kind_of("Subgraph") == "g":
            self.run_subgraph(node)
        else:
            for value, inferred in zip(node.outputs, infer_outputs(node, self.facts)):
                self.set_type(value, inferred)

    def run_if(self, node) -> None:
        for block in node.blocks:
            self.run_block(block)
        condition = self.known.get(node.input(0))
        blocks = node.blocks
        if isinstance(condition, bool) and len(blocks) == 2:
            blocks = (blocks[0] if condition else blocks[1],)
        for i, out in enumerate(node.outputs):
            results = [b.outputs[i] for b in blocks]
            joined = results[0].type
            for r in results[1:]:
                joined = unify_types(joined, r.type)
                if joined is None:
                    break
            self.set_type(out, joined)
            if len(results) == 1 and results[0] in self.known:
                self.known[out] = self.known[results[0]]

    def run_loop(self, node) -> None:
        body = node.blocks[0]
        params, results = body.inputs[1:], body.outputs[1:]
        carried = [v.type for v in node.inputs[2:]]
        for _ in range(MAX_LOOP_ROUNDS):
            self.enter_body(body, params, carried)
            following = [unify_types(p.type, r.type) for p, r in zip(params, results)]
            if following == [p.type for p in params]:
                break
            carried = [_forget_unjoinable(p.type, f) for p, f in zip(params, following)]
        else:
            self.enter_body(body, params, [_top(p.type) for p in params])
        for out, param in zip(node.outputs, params):
            self.set_type(out, param.type)

    def enter_body(self, body, params, carried: list[Type]) -> None:
        self.forget(body)
        for param, t in zip(params, carried):
            self.set_type(param, t)
        self.run_block(body)

    def forget(self, block) -> None:
        """Drop the compile-time values computed in ``block`` in an earlier loop round."""
        for value in block.inputs:
            self.facts.forget(value)
        for node in block.nodes():
            for value in node.outputs:
                self.facts.forget(value)
            for inner in node.blocks:
                self.forget(inner)

    def run_subgraph(self, node) -> None:
        subgraph = node.g("Subgraph")
        if len(subgraph.inputs) != len(node.inputs):
            return  # not a group whose inputs are the node's: nothing to say about its outputs
        for inner, outer in zip(subgraph.inputs, node.inputs):
            self.set_type(inner, outer.type)
            if outer in self.known:
                self.known[inner] = self.known[outer]
        self.run_block(subgraph.block)
        results = subgraph.outputs
        if node.kind == prim.fork and len(node.outputs) == 1 and len(results) == 1:
            self.set_type(node.output(), FutureType(results[0].type))
        elif len(results) == len(node.outputs):
            for out, result in zip(node.outputs, results):
                self.set_type(out, result.type)


def _forget_unjoinable(current: Type, following: Type | None) -> Type:
    return following if following is not None else _top(current)


def _top(t: Type) -> Type:
    """What is left of ``t`` when nothing about its value is known but its kind."""
    if isinstance(t, TensorType):
        return TensorType(device=t.device)
    return t
