"""In-place updates into their fusion group: ``x += expr`` runs as one kernel that reads ``x``
and ``expr``'s operands and writes ``x + expr`` into ``x`` itself, instead of a kernel writing
``expr`` into a new array and ``aten::add_`` reading both again (NumPy's two passes)::

    %e = prim::FusionGroup_0(%v, %a, %dt)          %x2 = prim::FusionGroup_0[written_into=3](
    %x2 = aten::add_(%x, %e, %1)          ==>                %v, %a, %dt, %x)
                                                    with prim::FusionGroup_0 = graph(..., %x):
                                                      %e = ...
                                                      %s = aten::add(%x, %e, %1)
                                                      return (%s)

The group's ``written_into`` attribute names the input its (one) output is written into; the
runtime (``runtime/fusion/written_into.py``) checks on each call that the array is the output's
shape, dtype and layout and shares no memory with another input, and otherwise computes the
group into a new array and copies it in (what ``aten::add_`` does, its errors included: ``x``
that would broadcast to a larger shape raises).

This goes beyond PyTorch's legacy fuser (whose groups are pure): ``fuse_graph`` stays as
PyTorch has it and ``@fusejit.jit`` runs this pass after it, on CPU plans. ``x[...] = expr``
(``aten::copy_``) joins likewise, the group's result written into ``x``. An update joins only
where that is plainly safe: the group has one output used by the update alone and no chunk or
concat (so it reads each input, ``x`` included, at the output's position, broadcast: an ``x``
of the output's shape, which the runtime checks, is read only where it is written), ``x``, the
group's result and the update have one dtype (no cast on the write) and one rank, and no node
between the group and the update takes or makes a tensor (nothing sees ``x`` written early)
but views (``d[1:-1] = expr``: ``d``'s slice comes after the group), which the group then moves
past.

Then, on the groups that write into an array: an update of that array by a number right after
one (``z *= 0.5``) joins it; a group right after another writing into the same new array takes
the first in (``np.add(x, y, out=z); np.exp(z, out=z)``: one kernel computing ``exp(x + y)``
into ``z``); and a ``np.empty_like`` or ``np.empty`` (a zero fill) whose first use is a group
writing it whole without reading it is made without the fill (``aten::empty_like``,
``aten::empty``). The sections below say when each is safe.
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import FloatType, IntType, TensorType
from .alias_analysis import _VIEW_PRIMS, _same_block_ancestor
from .graph_fuser import FUSION_KERNEL_ARGS_LIMIT, GraphFuser
from .pass_checks import graph_pass

WRITTEN_INTO = "written_into"

# in-place op -> the out-of-place op the group computes (add_ and sub_ take alpha)
_UPDATES = {aten.add_: aten.add, aten.sub_: aten.sub, aten.mul_: aten.mul, aten.div_: aten.div,
            aten.copy_: None}
_SHIFTED = (prim.ConstantChunk, prim.FusedConcat)
# Views between the group and its update (``d[1:-1] = <fused expression>`` slices ``d`` after
# the group): they read no elements, so the group moves past them, to just before the update.
_VIEWS = frozenset({aten.slice, aten.select, aten.unsqueeze, aten.squeeze, aten.t,
                    aten.transpose, aten.permute})


@graph_pass
def fuse_inplace_updates(graph: Graph) -> bool:
    """Fold each ``x op= <FusionGroup output>`` of ``graph`` (its loops' and branches' blocks
    too: a time step's update) into the group (see the module docstring); True if any was."""
    changed = False
    for node in list(graph.all_nodes()):
        group = _foldable_group(node)
        if group is not None and (node.owning_block is graph.block
                                  or not _reads_elsewhere(group, node.input(0))):
            _fold(node, group)
            changed = True
    for node in list(graph.all_nodes()):
        group = _scalar_update_group(node)
        if group is not None:
            _fold_scalar(node, group)
            changed = True
    changed = _merge_updates_of_one_array(graph) or changed
    return _leave_unfilled(graph) or changed


def foldable_update(node: Node) -> bool:
    """Is ``node`` an in-place update a group computing its operand could take in, as far as
    the update itself decides: one of ``_UPDATES`` with alpha 1, its target, operand and
    result of one dtype and rank (no cast on the write), a float target for a division?"""
    if node.kind not in _UPDATES or len(node.inputs) not in (2, 3):
        return False
    if node.kind != aten.copy_ and len(node.inputs) == 3:
        alpha = node.input(2).node
        if alpha.kind != prim.Constant or constant_value(alpha) != 1:
            return False     # (alpha != 1: rare, left to aten::add_)
    types = [node.input(0).type, node.input(1).type, node.output().type]
    if not all(isinstance(t, TensorType) and t.dtype is not None and t.rank is not None
               for t in types):
        return False
    if len({t.dtype for t in types}) != 1 or len({t.rank for t in types}) != 1:
        return False
    return node.kind != aten.div_ or types[0].dtype.kind == "f"


def _foldable_group(node: Node) -> Node | None:
    """The fusion group whose output ``node`` (an in-place update) may take in, else None."""
    if not foldable_update(node):
        return None
    operand = node.input(1)
    group = operand.node
    if group.kind != prim.FusionGroup or len(group.outputs) != 1 \
            or group.has_attribute(WRITTEN_INTO) or len(operand.uses) != 1:
        return None
    if any(n.kind in _SHIFTED for n in group.g("Subgraph").block.nodes()):
        return None      # (reads or writes at other positions than the output's)
    between = group.next
    while between is not node:
        if between.blocks or between.kind not in _VIEWS and any(
                isinstance(v.type, TensorType) for v in (*between.inputs, *between.outputs)):
            return None
        between = between.next
    return group


def _viewed(value: Value) -> Value:
    """The array ``value`` is a view of (through ``_VIEWS``)."""
    while value.node.kind in _VIEWS:
        value = value.node.input(0)
    return value


def _reads_elsewhere(group: Node, target: Value) -> bool:
    """Does ``group`` read another view of ``target``'s array (a stencil, ``u[1:-1] +=
    f(u[2:], u[:-2])``)? The runtime then always computes into a new array and copies it in:
    in a loop's body, each step (a 1-d heat equation ran 12 or 17 ms a call by the machine's
    load, against 12 with NumPy's add_), so such an update stays NumPy's there."""
    base = _viewed(target)
    return any(v is not target and isinstance(v.type, TensorType) and _viewed(v) is base
               for v in group.inputs)


def _compute_update(subgraph: Graph, node: Node, operands: list[Value]) -> None:
    """Make ``node``'s out-of-place op (``_UPDATES``) of ``operands`` ``subgraph``'s one
    output, of ``node``'s result type."""
    with subgraph.inserting_before(subgraph.block.return_node):
        if node.kind in (aten.add_, aten.sub_):
            operands.append(subgraph.insert_constant(1))     # (alpha)
        combined = subgraph.insert(_UPDATES[node.kind], operands).output()
    combined.set_type(node.output().type)
    subgraph.erase_output(0)
    subgraph.register_output(combined)


def _fold(node: Node, group: Node) -> None:
    target = node.input(0)
    if group.next is not node:     # (past the views and numbers between: see _VIEWS)
        group.move_before(node)
    subgraph = group.g("Subgraph")
    if target in group.inputs:      # (read by the group: where it is written, see above)
        index = group.inputs.index(target)
        inner_target = subgraph.inputs[index]
    else:
        index = len(group.inputs)
        group.add_input(target)
        inner_target = subgraph.add_input(type=target.type)
    if node.kind != aten.copy_:
        _compute_update(subgraph, node, [inner_target, subgraph.outputs[0]])
    group.i_(WRITTEN_INTO, index)
    group.output().set_type(node.output().type)
    if group.source_range is None:      # (the fuser's groups have none: errors name the update)
        group.source_range = node.source_range
    node.output().replace_all_uses_with(group.output())
    node.destroy()


# -- updates by a number of an array a group has just written ----------------------------------
#
# ``np.add(x, y, out=z); z *= 0.5`` folds its first update into a group writing into ``z``; the
# second, by a number, is one more pass over ``z``. The group takes it in too (``(x + y) * 0.5``
# written into ``z``), where nothing that takes or makes a tensor runs between them. So does a
# group making the array (``y = a * b + c; y *= 2.0``): the number changes no shape or dtype.


def _previous_tensor_node(node: Node) -> Node:
    """The node before ``node`` past those that neither take nor make a tensor (numbers and
    constants), or the block's parameter node."""
    before = node.prev
    while before.kind != prim.Param and not before.blocks and not any(
            isinstance(v.type, TensorType) for v in (*before.inputs, *before.outputs)):
        before = before.prev
    return before


def _scalar_update_group(node: Node) -> Node | None:
    """The group just before ``node`` (an update of a float array by a number, or of an integer
    array by a constant int: ``h *= 0x85EBCA6B`` of a hash) whose written array ``node``
    updates, which may take ``node`` in, else None."""
    if node.kind not in _UPDATES or node.kind == aten.copy_ or len(node.inputs) not in (2, 3):
        return None
    target, number = node.input(0), node.input(1)
    if len(node.inputs) == 3:
        alpha = node.input(2).node
        if alpha.kind != prim.Constant or constant_value(alpha) != 1:
            return None
    constant = number.node.kind == prim.Constant
    if not (isinstance(number.type, FloatType) or constant and isinstance(number.type, IntType)):
        return None     # (an int that is not a constant, a bool: left to the update)
    types = (target.type, node.output().type)
    if not all(isinstance(t, TensorType) and t.dtype is not None for t in types) or \
            types[0].dtype != types[1].dtype:
        return None
    kind = types[0].dtype.kind
    if not (kind == "f" or kind in "iu" and constant and isinstance(number.type, IntType)
            and node.kind != aten.div_):
        return None     # (an integer array by a constant int: wrapping as the update's body)
    group = _previous_tensor_node(node)
    if not _writes_before(group, target) and not _makes(group, target):
        return None
    if not constant and not number.node.is_before(group):
        return None     # (a number worked out after the group: left to the update)
    return group


def _writes_before(group: Node, target: Value) -> bool:
    """Is ``group`` a group writing into the array another node updates as ``target`` (the
    array itself or ``group``'s result, the same memory)? (The group's result's other uses come
    after that node, which nothing between them and the group takes or makes a tensor: they
    see the array updated, as before.)"""
    return group.kind == prim.FusionGroup and group.has_attribute(WRITTEN_INTO) and (
        target is group.output() or target is group.inputs[group.i(WRITTEN_INTO)])


def _makes(group: Node, target: Value) -> bool:
    """Is ``target`` the new array ``group`` (a pure group, reading and writing each element
    at the output's position) makes?"""
    return group.kind == prim.FusionGroup and not group.has_attribute(WRITTEN_INTO) \
        and group.outputs == (target,) and not any(
            n.kind in _SHIFTED for n in group.g("Subgraph").block.nodes())


def _fold_scalar(node: Node, group: Node) -> None:
    subgraph = group.g("Subgraph")
    number = node.input(1)
    with subgraph.inserting_before(subgraph.block.return_node):
        if number.node.kind == prim.Constant:
            inner = subgraph.insert_node(subgraph.create_clone(number.node, lambda v: v)).output()
        elif number in group.inputs:
            inner = subgraph.inputs[group.inputs.index(number)]
        else:
            group.add_input(number)
            inner = subgraph.add_input(type=number.type)
    _compute_update(subgraph, node, [subgraph.outputs[0], inner])
    node.output().replace_all_uses_with(group.output())
    node.destroy()


# -- successive updates of one array -----------------------------------------------------------
#
# ``z = np.empty_like(x); np.add(x, y, out=z); np.exp(z, out=z)`` folds into two groups writing
# into ``z``, the second reading what the first wrote: two passes, the second reading its target
# (so computed into a new array and copied in, see ``runtime/fusion/written_into.py``). Where
# nothing runs between them, the second takes the first in, reading the first's expression where
# it read ``z``: one pass computing ``exp(x + y)`` into ``z``, which it no longer reads.
#
# The merged group reads the second's other inputs before anything is written, where the second
# read them after the first wrote ``z``: so none of them may share memory with ``z``. That is
# known where they are numbers and constants (``x ^= x << 13; x ^= x >> 17`` in a time step's
# loop, ``x`` whatever array the loop carries), or for a ``z`` the graph made itself (a new
# array, not a view), which nothing before the second group has made a view of or an alias of:
# its earlier uses are groups and ops whose results are new arrays (or, for groups writing into
# ``z``, unused).

def _merge_updates_of_one_array(graph: Graph) -> bool:
    changed = False
    for node in list(graph.all_nodes()):
        first = _earlier_update(node)
        if first is not None:
            _merge(first, node, graph)
            changed = True
    return changed


def _earlier_update(second: Node) -> Node | None:
    """The group writing into the array ``second`` (a group) writes into, just before it, which
    ``second`` may take in (see above), else None."""
    if second.kind != prim.FusionGroup or not second.has_attribute(WRITTEN_INTO):
        return None
    first = _previous_tensor_node(second)
    index = second.i(WRITTEN_INTO)
    if not _writes_before(first, second.inputs[index]):
        return None
    array, written = first.inputs[first.i(WRITTEN_INTO)], first.output()
    if any(v is array or v is written for i, v in enumerate(second.inputs) if i != index):
        return None     # (reads the array as another input too)
    if not (_reads_no_other_arrays(second, index) or _unaliased(array, first, second)):
        return None
    if any(n.kind in _SHIFTED for g in (first, second) for n in g.g("Subgraph").block.nodes()):
        return None
    if len({*first.inputs, *second.inputs}) > FUSION_KERNEL_ARGS_LIMIT:
        return None
    return first


def _reads_no_other_arrays(group: Node, index: int) -> bool:
    """Does ``group`` read, beside the array it writes into (input ``index``), numbers and
    constants only, none of which can share memory with that array?"""
    return all(i == index or not isinstance(v.type, TensorType) or v.node.kind == prim.Constant
               for i, v in enumerate(group.inputs))


def _unaliased(target: Value, writer: Node, before: Node) -> bool:
    """Is ``target`` a new array of the top block that nothing ahead of ``before`` (a node of
    the top block) but ``writer`` may have made an alias of?"""
    if target.node.owning_block is not before.owning_block or not _makes_new_arrays(
            target.node, target):
        return False
    for use in target.uses:
        user = _same_block_ancestor(use.user, before.owning_block)
        if user is None:
            return False
        if user is before or user is writer or not user.is_before(before):
            continue
        if user is not use.user or not _makes_new_arrays(user, target):
            return False      # (a use within a loop or branch: left alone)
    return True


def _makes_new_arrays(node: Node, value: Value) -> bool:
    """Are ``node``'s results new arrays, none of them ``value`` or a view of it?"""
    if node.kind == prim.FusionGroup:
        return not node.has_attribute(WRITTEN_INTO) or not node.output().uses \
            or node.inputs[node.i(WRITTEN_INTO)] is not value
    if node.blocks or node.kind in _VIEW_PRIMS:
        return False
    schema = node.schema
    if schema is None:
        return False
    # (an alias annotation: a result that may be the argument, or a write into it)
    annotated = [v for argument, v in zip(schema.arguments, node.inputs)
                 if argument.alias is not None]
    return not annotated if node is value.node else value not in annotated


def _merge(first: Node, second: Node, graph: Graph) -> None:
    """``first``'s expression into ``second``, where ``second`` read the array they write."""
    subgraph = second.g("Subgraph")
    index = second.i(WRITTEN_INTO)
    target = first.inputs[first.i(WRITTEN_INTO)]
    inner_target = subgraph.inputs[index]
    written = first.output()
    if second.inputs[index] is written:
        second.replace_input(index, target)
    written.replace_all_uses_with(second.output())     # (uses after ``second``: see above)
    # ``second`` reads what ``first`` wrote: its result, then pulled in as the fuser merges
    # a producer group into its consumer
    first.remove_attribute(WRITTEN_INTO)
    inner_written = subgraph.add_input(type=inner_target.type)
    second.add_input(written)
    inner_target.replace_all_uses_with(inner_written)
    GraphFuser(second.owning_block, graph).merge_fusion_groups(second, first)
    second.i_(WRITTEN_INTO, second.inputs.index(target))


# -- arrays a group writes whole before anything reads them ------------------------------------
#
# ``np.empty_like(x)`` (and ``np.zeros_like``, ``np.full_like``) is an ``aten::full_like``, and
# ``np.empty(shape)`` an ``aten::zeros``: a fill pass, which NumPy's ``empty`` does not make.
# Where the array's first use writes it whole (a group writing into it, which it does not read:
# the runtime writes every element, or copies a result broadcast to the whole array, or raises
# before writing), the fill is never seen, and the array is made with ``aten::empty_like`` or
# ``aten::empty``.


_FILLS = frozenset({(aten.full_like, 7), (aten.zeros, 5), (aten.ones, 5)})


def _leave_unfilled(graph: Graph) -> bool:
    changed = False
    for node in list(graph.block.nodes()):
        if (node.kind, len(node.inputs)) not in _FILLS or not _written_whole_first(node):
            continue
        with graph.inserting_before(node):
            if node.kind == aten.full_like:      # (self, fill, dtype, layout, device, ...)
                empty = graph.insert(aten.empty_like, [node.input(0), *node.inputs[2:]])
            else:                                # (size, dtype, layout, device, pin_memory)
                empty = graph.insert(aten.empty, [*node.inputs, graph.insert_constant(None)])
        empty.source_range = node.source_range
        empty.output().copy_metadata(node.output())
        node.output().replace_all_uses_with(empty.output())
        node.destroy()
        changed = True
    return changed


def _written_whole_first(node: Node) -> bool:
    """Is the first use of ``node``'s result a group writing into it without reading it?"""
    array = node.output()
    users = [_same_block_ancestor(use.user, node.owning_block) for use in array.uses]
    if not users:
        return False
    first = users[0]
    for user in users:
        if user.is_before(first):
            first = user
    if first.kind != prim.FusionGroup or not first.has_attribute(WRITTEN_INTO) \
            or users.count(first) != 1 or first.inputs[first.i(WRITTEN_INTO)] is not array:
        return False
    return not first.g("Subgraph").inputs[first.i(WRITTEN_INTO)].uses
