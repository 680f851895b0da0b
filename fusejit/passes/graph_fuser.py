"""The legacy graph fuser (PyTorch's ``graph_fuser.cpp``): group pointwise ops into
``prim::FusionGroup`` nodes, each carrying a subgraph that becomes one generated kernel.

The fuser scans a block backwards. At each fusible *consumer* it looks at the producers of its
inputs, latest first, and pulls a fusible producer into the consumer's group. The legality rule
is that the program must mean the same after the producer moves to just before the consumer::

    %a = aten::exp(%x)                    %b = aten::sin(%x)
    %b = aten::sin(%x)           ==>      %g, %a2 = prim::FusionGroup_0(%x)   # cos(exp(x)), exp(x)
    %c = aten::cos(%a)                    %d = aten::mul(%a2, %b)
    %d = aten::mul(%a, %b)

``exp`` may move past ``sin`` (no data or memory dependency): it does, and since ``%a`` is still
read after the group, ``%a`` becomes a second group output. ``AliasDb`` decides the move; a node
in between that writes memory the producer reads (``aten::add_``), or that has side effects,
blocks it. Values cross block boundaries only as group inputs: nodes of different blocks never
fuse, and the fuser recurses into each sub-block separately.

The pass repeats to a fixpoint, then fuses ``aten::cat`` into ``prim::FusedConcat``, cleans each
subgraph (DCE, CSE, constant pooling), makes chunks explicit, moves starting chunks into groups,
and replaces outputs needed only for their size by shape expressions (``fuser_shapes``). Only
pairs form groups: a lone fusible op stays as it is. ``fuse_graph`` ends as PyTorch's
``FuseGraph`` does: CSE, DCE and the shape-expression peephole over the whole graph.

``aten::_grad_sum_to_size`` joins groups only under the seed's rule
(``fuse_grad_sum_to_size=True``, for backward graphs); PyTorch 2.13 fuses none.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import cmp_to_key

from ..errors import IRError
from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.schema import parse_schema
from ..ir.symbols import aten, prim
from ..ir.types import FloatType, IntType, ListType, TensorType, Type
from ..oplib import FUSIBLE
from .alias_analysis import AliasDb
from .common_subexpression_elimination import eliminate_common_subexpression
from .constant_pooling import constant_pooling
from .dead_code_elimination import eliminate_dead_code
from .fuser_chunks import (
    can_fuse_chunk,
    fuse_chunk,
    replace_intermediate_broadcasting_chunks,
    try_to_move_chunk,
)
from .fuser_shapes import (
    peephole_optimize_shape_expressions,
    remove_outputs_used_only_in_size,
)
from .pass_checks import graph_pass

__all__ = ["GraphFuser", "custom_fuse_graph", "fuse_backward_graph", "fuse_graph",
           "is_simple_map", "matches_map", "peephole_optimize_shape_expressions"]

# The kernel argument limit (nvrtc's, applied to every device), counted as PyTorch counts it.
FUSION_KERNEL_ARGS_LIMIT = 128

# Which devices the fuser may generate kernels for (PyTorch: canFuseOnCPULegacy/canFuseOnGPU).
FUSE_ON_CPU = True
FUSE_ON_GPU = True

# The fuser's simple maps and the ops a _grad_sum_to_size may be delayed through, by kind, as
# the operator library's entries give them.
_SIMPLE_MAP_SCHEMAS: dict[str, list] = {
    kind: [parse_schema(text) for text in op.fuses] for kind, op in FUSIBLE.items()}
_COMMUTES_WITH_SUM_TO_SIZE = [parse_schema(text) for op in FUSIBLE.values()
                              for text in op.sum_to_size]
_TYPE_AS = parse_schema("aten::type_as(Tensor self, Tensor other) -> Tensor")

# Kinds looked up in hot loops (namespace attribute access builds a Symbol each time).
_FUSIONGROUP = prim.FusionGroup
_CONSTANT = prim.Constant
_GRAD_SUM_TO_SIZE = aten._grad_sum_to_size
_CAT = aten.cat
_LISTCONSTRUCT = prim.ListConstruct
_FUSEDCONCAT = prim.FusedConcat


def _is_tensor(v: Value) -> bool:
    return isinstance(v.type, TensorType)


def _is_int_list(v: Value) -> bool:
    return isinstance(v.type, ListType) and isinstance(v.type.elem, IntType)


def is_simple_map(node: Node, int_scalars: bool = False) -> bool:
    """A pointwise op the fuser can generate code for, with only constant non-float scalars
    (``int_scalars``: and ints of any source)."""
    return matches_map(node, _SIMPLE_MAP_SCHEMAS, int_scalars)


def matches_map(node: Node, schemas_of: dict[str, list], int_scalars: bool = False) -> bool:
    """Does ``node`` match one of the schemas ``schemas_of`` lists for its kind, with only
    constant non-float scalars (the fuser's rule for its maps; ``int_scalars``: ints need not
    be constants either)?"""
    schemas = schemas_of.get(node.kind)
    if not schemas or not any(s.matches(node) for s in schemas):
        return False
    for v in node.inputs:
        if _is_tensor(v) or isinstance(v.type, FloatType) or \
                int_scalars and isinstance(v.type, IntType):
            continue
        if v.node.kind != _CONSTANT:
            return False
    return True


def track_single_grad_sum_to_size_to_outputs(value: Value) -> bool:
    """Can the ``_grad_sum_to_size`` producing ``value`` be delayed to the group outputs?"""
    pending = deque(value.uses)
    while pending:
        use = pending.popleft()
        user = use.user
        if _TYPE_AS.matches(user):
            # Only the gradient being cast (self) carries the shape forward.
            if use.offset == 0:
                pending.extend(user.output().uses)
        elif any(s.matches(user) for s in _COMMUTES_WITH_SUM_TO_SIZE):
            pending.extend(user.output().uses)
        elif user.kind in (prim.Return, _GRAD_SUM_TO_SIZE):
            continue
        else:
            return False
    return True


def _sort_reverse_topological(values: tuple[Value, ...], block: Block) -> list[Value]:
    in_block = [v for v in values if v.node.owning_block is block]
    return sorted(in_block, key=cmp_to_key(
        lambda a, b: -1 if a.node.is_after(b.node) else (1 if b.node.is_after(a.node) else 0)))


class GraphFuser:
    """PyTorch's ``GraphFuser`` for one block: state is the block, the alias database, the
    fusability callback and the kind of group node it makes."""

    def __init__(self, block: Block, graph: Graph,
                 callback: Callable[[Node], bool] | None = None,
                 kind: str = _FUSIONGROUP, arg_limit: int = FUSION_KERNEL_ARGS_LIMIT,
                 strict_fuser_check: bool = False, fuse_grad_sum_to_size: bool = False):
        self.block = block
        self.graph = graph
        self.kind = kind
        self.arg_limit = arg_limit
        self.strict_fuser_check = strict_fuser_check
        self.fuse_grad_sum_to_size = fuse_grad_sum_to_size
        self._callback = callback
        self.alias_db = AliasDb(graph)
        self._device_ok: dict[int, tuple[Type, bool]] = {}
        self._devices_checked: set[Node] = set()

    # -- what may fuse -------------------------------------------------------------------------

    def is_fusable(self, node: Node) -> bool:
        if self._callback is not None:
            return self._callback(node)
        return self.is_fusable_default(node)

    def is_fusable_device(self, v: Value) -> bool:
        # Memoised by type object: a group with many outputs is asked about at every step.
        found = self._device_ok.get(id(v.type))
        if found is not None and found[0] is v.type:
            return found[1]
        ok = self._is_fusable_device(v)
        self._device_ok[id(v.type)] = (v.type, ok)
        return ok

    def _is_fusable_device(self, v: Value) -> bool:
        if not _is_tensor(v):
            return True
        device = v.type.device
        if device is None:
            return not self.strict_fuser_check
        if device == "cpu" or device.startswith("cpu:"):
            return FUSE_ON_CPU
        if device.startswith("cuda"):
            return FUSE_ON_GPU
        return False

    def is_fusable_default(self, node: Node) -> bool:
        # The cheap test first: the graph's Param node (hundreds of outputs in a backward
        # graph) is asked about at every step. A group of ours only ever takes outputs of
        # nodes that passed the device test, so once its outputs passed, it passes.
        if not self.is_fusable_map(node):
            return False
        if node in self._devices_checked:
            return True
        device_ok = all(self.is_fusable_device(o) for o in node.outputs if o.uses)
        if device_ok and node.kind == self.kind:
            self._devices_checked.add(node)
        return device_ok

    def is_fusable_map(self, node: Node) -> bool:
        # Moving nodes across blocks is not generally correct, so never fuse across them.
        if node.owning_block is not self.block:
            return False
        if node.kind == _GRAD_SUM_TO_SIZE:
            # The seed's rule (PyTorch 2.13 fuses no _grad_sum_to_size): only when its input
            # fuses too; the path to the outputs is checked in try_fuse.
            return (self.fuse_grad_sum_to_size and bool(node.inputs)
                    and self.is_fusable(node.input(0).node))
        return node.kind == _FUSIONGROUP or is_simple_map(node)

    def is_fusable_cat_node(self, node: Node) -> bool:
        if node.kind != _CAT or len(node.inputs) != 2:
            return False
        if node.input(1).node.kind != _CONSTANT:
            return False
        tensors = node.input(0).node
        if len(tensors.inputs) + len(node.outputs) > self.arg_limit:
            return False
        if tensors.kind != _LISTCONSTRUCT:
            return False
        # Other uses of the list would be fine in principle; PyTorch does not handle them.
        return len(tensors.output().uses) <= 1

    def get_subgraph(self, group: Node) -> Graph:
        if group.kind != self.kind and group.kind != _FUSIONGROUP:
            raise IRError(f"{group.kind} is not a fusion group\n{group}")
        return group.g("Subgraph")

    def contains_grad_sum_to_size(self, group: Node) -> bool:
        return any(n.kind == _GRAD_SUM_TO_SIZE for n in self.get_subgraph(group).nodes())

    # -- building groups -----------------------------------------------------------------------

    def merge_node_into_group(self, group: Node, n: Node) -> Node:
        """Copy producer ``n`` into ``group``'s subgraph (at its start); returns the copy.

        New tensor inputs go after the group's last tensor input (kernels take tensors first);
        float scalars are appended; other scalars must be constants, which are cloned inside.
        """
        if n.kind == self.kind:
            raise IRError(f"cannot merge a {n.kind} node as a plain node\n{n}")
        subgraph = self.get_subgraph(group)
        inputs_map: dict[Value, Value] = {}
        tensor_insert_idx = 0
        for i, (outer, inner) in enumerate(zip(group.inputs, subgraph.inputs)):
            inputs_map[outer] = inner
            if _is_tensor(outer):
                tensor_insert_idx = i + 1
        first = next(subgraph.nodes(), subgraph.return_node)
        with subgraph.inserting_before(first):
            for v in n.inputs:
                if v in inputs_map:
                    continue
                if _is_tensor(v):
                    inner = subgraph.insert_input(tensor_insert_idx, type=v.type)
                    group.insert_input(tensor_insert_idx, v)
                    tensor_insert_idx += 1
                elif ((isinstance(v.type, FloatType) and v.node.kind != _CONSTANT)
                      or (n.kind == _GRAD_SUM_TO_SIZE and _is_int_list(v))
                      or v.node.kind != _CONSTANT):
                    # (The last case only arises with custom callbacks: the default fuser
                    # admits no non-constant int or bool scalars.)
                    inner = subgraph.add_input(type=v.type)
                    group.add_input(v)
                else:
                    inner = subgraph.insert_node(
                        subgraph.create_clone(v.node, _no_inputs)).output()
                inputs_map[v] = inner
            in_graph = subgraph.create_clone(n, inputs_map.__getitem__)
            # An output of n that the group read from outside is now computed inside.
            for i, out in enumerate(n.outputs):
                group_inputs = group.inputs
                if out in group_inputs:
                    p = group_inputs.index(out)
                    group.remove_input(p)
                    subgraph.inputs[p].replace_all_uses_with(in_graph.outputs[i])
                    subgraph.erase_input(p)
            return subgraph.insert_node(in_graph)

    def create_singleton_fusion_group(self, n: Node) -> Node:
        group = self.graph.create_with_subgraph(self.kind)
        group.insert_before(n)
        merged = self.merge_node_into_group(group, n)
        self.get_subgraph(group).register_output(merged.output())
        out = group.add_output()
        out.copy_metadata(n.output())
        n.output().replace_all_uses_with(out)
        n.destroy()
        return group

    def merge_fusion_groups(self, consumer_group: Node, producer_group: Node) -> None:
        """Inline ``producer_group``'s nodes into the graph, then merge them into the consumer."""
        producer_subgraph = self.get_subgraph(producer_group)
        inner_to_outer = dict(zip(producer_subgraph.inputs, producer_group.inputs))
        temporary: list[Node] = []
        for inner in producer_subgraph.nodes():
            outer = self.graph.create_clone(inner, inner_to_outer.__getitem__)
            outer.insert_before(producer_group)
            temporary.append(outer)
            inner_to_outer.update(zip(inner.outputs, outer.outputs))
        for i, inner_out in enumerate(producer_subgraph.outputs):
            producer_group.outputs[i].replace_all_uses_with(inner_to_outer[inner_out])
        producer_group.destroy()

        consumer_subgraph = self.get_subgraph(consumer_group)
        for node in reversed(temporary):
            merged = self.merge_node_into_group(consumer_group, node)
            for i, out in enumerate(node.outputs):
                if not out.uses:
                    continue
                consumer_subgraph.register_output(merged.outputs[i])
                new_out = consumer_group.add_output(out.type)
                out.replace_all_uses_with(new_out)
            node.destroy()

    def try_fuse(self, consumer: Node, producer: Value) -> Node | None:
        """Pull ``producer``'s node into ``consumer``'s group (made if needed); the group or
        None. The move happens before the argument check, so a refused pair stays moved."""
        pnode = producer.node
        if not (self.is_fusable(pnode)
                and self.alias_db.move_before_topologically_valid(pnode, consumer)):
            return None
        if (len(consumer.inputs) + len(consumer.outputs) + len(pnode.inputs)
                + len(pnode.outputs)) > self.arg_limit:
            return None
        grad_sum = pnode.kind == _GRAD_SUM_TO_SIZE or (
            pnode.kind == self.kind and self.contains_grad_sum_to_size(pnode))
        if grad_sum and consumer.kind == self.kind:
            # The seed checks a plain _grad_sum_to_size producer only; a group that took one
            # (on a later pass of run's fixpoint loop) is checked the same way, so that the
            # reduction still reaches the outputs of the merged group through ops that
            # commute with it.
            subgraph = self.get_subgraph(consumer)
            for use in producer.uses:
                if use.user is consumer and not track_single_grad_sum_to_size_to_outputs(
                        subgraph.inputs[use.offset]):
                    return None
        group = consumer
        if consumer.kind != self.kind:
            group = self.create_singleton_fusion_group(consumer)
        if pnode.kind == self.kind:
            self.merge_fusion_groups(group, pnode)
            return group
        if len(pnode.outputs) != 1:
            raise IRError(f"fusible producer with {len(pnode.outputs)} outputs\n{pnode}")
        merged = self.merge_node_into_group(group, pnode)
        # Uses after the consumer remain: they read the group's copy, a new group output.
        if producer.uses:
            self.get_subgraph(group).register_output(merged.output())
            new_producer = group.add_output()
            new_producer.copy_metadata(producer)
            producer.replace_all_uses_with(new_producer)
        pnode.destroy()
        return group

    # -- scanning ------------------------------------------------------------------------------

    def scan_node(self, consumer: Node) -> tuple[Node, bool]:
        """Try to grow ``consumer``; returns the node to scan next and whether it fused."""
        if self.is_fusable(consumer):
            # Latest producer first: in f(a, a + b), fusing a first would make a look used
            # twice.
            for producer in _sort_reverse_topological(consumer.inputs, self.block):
                if try_to_move_chunk(self, consumer, producer):
                    return consumer, True
                group = self.try_fuse(consumer, producer)
                if group is not None:
                    return group, True
        return consumer.prev, False

    def scan_node_for_chunks(self, consumer: Node) -> Node:
        if consumer.kind == _FUSIONGROUP:
            for producer in _sort_reverse_topological(consumer.inputs, self.block):
                if can_fuse_chunk(consumer, producer):
                    return fuse_chunk(self, consumer, producer)
        return consumer.prev

    # -- concatenation -------------------------------------------------------------------------

    def can_fuse_with_concat(self, producer: Value, before_check: Node) -> bool:
        pnode = producer.node
        if not self.is_fusable(pnode):
            return False
        # After is_fusable, which rules out other blocks and Param nodes.
        if not self.alias_db.could_move_before_topologically(pnode, before_check):
            return False
        if (len(before_check.inputs) + len(before_check.outputs) + len(pnode.inputs)
                + len(pnode.outputs)) > self.arg_limit:
            return False
        if pnode.kind == _FUSIONGROUP:
            inner = pnode.g("Subgraph").outputs[producer.offset].node
            return inner.kind != _FUSEDCONCAT and not self.contains_grad_sum_to_size(pnode)
        return True

    def create_fused_concat(self, cat: Node) -> Node:
        list_construct = cat.input(0).node
        fused = self.graph.create(_FUSEDCONCAT, list_construct.inputs)
        fused.i_("dim", int(constant_value(cat.input(1).node)))
        fused.insert_before(list_construct)
        fused.output().copy_metadata(cat.output())
        fused.origin = None if cat.location == "unknown" else cat.location
        return self.create_singleton_fusion_group(fused)

    def fuse_concats(self) -> None:
        node = self.block.return_node.prev
        while node is not self.block.param_node:
            cat = node
            if not self.is_fusable_cat_node(cat):
                node = cat.prev
                continue
            list_construct = cat.input(0).node
            fused_cat = self.create_fused_concat(cat)
            fused_out = fused_cat.output()
            any_fused = False
            pending = _sort_reverse_topological(fused_cat.inputs, self.block)
            idx = 0
            while idx < len(pending):
                value = pending[idx]
                idx += 1
                if not self.can_fuse_with_concat(value, fused_cat):
                    continue
                if self.try_fuse(fused_cat, value) is None:
                    continue
                any_fused = True
                # The fusion may have consumed several inputs: start over.
                pending = _sort_reverse_topological(fused_cat.inputs, self.block)
                idx = 0
            if any_fused:
                cat.output().replace_all_uses_with(fused_out)
                after = cat.next
                cat.destroy()
                if not list_construct.output().uses:
                    list_construct.destroy()
                node = after.prev
            else:
                fused_cat.destroy()
                node = cat.prev

    def optimize_fused_graphs(self) -> None:
        for node in self.block.nodes():
            if node.kind != _FUSIONGROUP:
                continue
            subgraph = node.g("Subgraph")
            eliminate_dead_code(subgraph)
            eliminate_common_subexpression(subgraph)
            constant_pooling(subgraph)

    # -- driver --------------------------------------------------------------------------------

    def run(self) -> None:
        # Iterate to a fixpoint: a group formed late can unlock a merge missed earlier, e.g.
        # a producer with two consumers, one already grouped, the other fused later.
        any_changed = True
        while any_changed:
            any_changed = False
            self.alias_db = AliasDb(self.graph)
            node = self.block.return_node.prev
            while node is not self.block.param_node:
                node, changed = self.scan_node(node)
                any_changed |= changed
        self.alias_db = AliasDb(self.graph)
        self.fuse_concats()
        self.optimize_fused_graphs()
        replace_intermediate_broadcasting_chunks(self)
        node = self.block.return_node.prev
        while node is not self.block.param_node:
            node = self.scan_node_for_chunks(node)
        # Walk by hand: the size nodes after a group are destroyed while it is visited.
        node = self.block.param_node.next
        while node is not self.block.return_node:
            remove_outputs_used_only_in_size(self, node)
            node = node.next
        for node in self.block.nodes():
            for sub in node.blocks:
                type(self)(sub, self.graph, self._callback, self.kind, self.arg_limit,
                           self.strict_fuser_check, self.fuse_grad_sum_to_size).run()


def _no_inputs(v: Value) -> Value:
    raise IRError(f"a constant cloned into a fusion group has an input %{v.debug_name}")


@graph_pass
def fuse_graph(graph: Graph, strict_fuser_check: bool = False,
               fuse_grad_sum_to_size: bool = False) -> None:
    """PyTorch's ``FuseGraph``: the fuser, then CSE, DCE and the shape-expression peephole.

    ``fuse_grad_sum_to_size=True`` applies the seed's rule that pulls ``_grad_sum_to_size``
    into groups (backward graphs; ``autodiff.fused_sums`` runs such groups); PyTorch 2.13 fuses
    none, and neither does the default.
    """
    if not isinstance(graph, Graph):
        raise IRError(f"fuse_graph expects a Graph, got {type(graph).__name__}")
    GraphFuser(graph.block, graph, strict_fuser_check=strict_fuser_check,
               fuse_grad_sum_to_size=fuse_grad_sum_to_size).run()
    eliminate_common_subexpression(graph)
    eliminate_dead_code(graph)
    peephole_optimize_shape_expressions(graph.block)


@graph_pass
def fuse_backward_graph(graph: Graph) -> None:
    """``fuse_graph`` with the seed's ``_grad_sum_to_size`` rule, for backward graphs."""
    fuse_graph(graph, fuse_grad_sum_to_size=True)


@graph_pass
def custom_fuse_graph(graph: Graph, is_fusable: Callable[[Node], bool], kind: str,
                      arg_limit: int = FUSION_KERNEL_ARGS_LIMIT) -> None:
    """PyTorch's ``CustomFuseGraph``: group nodes ``is_fusable`` accepts into ``kind`` nodes."""
    GraphFuser(graph.block, graph, lambda n: bool(is_fusable(n)) or n.kind == kind, kind,
               arg_limit).run()

