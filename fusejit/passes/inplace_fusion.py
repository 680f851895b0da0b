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
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node
from ..ir.symbols import aten, prim
from ..ir.types import TensorType
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
    """Fold each ``x op= <FusionGroup output>`` of ``graph``'s top block into the group (see
    the module docstring); True if any was."""
    changed = False
    for node in list(graph.block.nodes()):
        group = _foldable_group(node)
        if group is not None:
            _fold(node, group)
            changed = True
    return changed


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
    combined = subgraph.outputs[0]
    if node.kind != aten.copy_:
        with subgraph.inserting_before(subgraph.block.return_node):
            inputs = [inner_target, combined]
            if node.kind in (aten.add_, aten.sub_):
                inputs.append(subgraph.insert_constant(1))
            combined = subgraph.insert(_UPDATES[node.kind], inputs).output()
        combined.set_type(node.output().type)
        subgraph.erase_output(0)
        subgraph.register_output(combined)
    group.i_(WRITTEN_INTO, index)
    group.output().set_type(node.output().type)
    node.output().replace_all_uses_with(group.output())
    node.destroy()
