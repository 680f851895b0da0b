"""Views of a fusion group's inputs, moved into the group (for ``@fusejit.jit``, beyond PyTorch).

A stencil or a difference reads shifted views of one array::

    def laplacian(u):
        return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]

PyTorch's fuser groups the arithmetic and leaves the eight ``aten::slice`` outside the group:
the interpreter makes each view, and the kernel's call lays each strided view out as a window
of its own (``compiler._flat``, ~3 us a view). At 100x100 float64 that overhead was twice
NumPy's whole time for the expression. This pass moves each view with constant arguments
(``view_step``) into the groups that read it::

    %a = aten::slice(%u, 0, 1, None, 1)            %y = prim::FusionGroup_0(%v, %u)
    %y = prim::FusionGroup_0(%a, %v)      ==>      with prim::FusionGroup_0 = graph(%v, %u):
                                                     %a = aten::slice(%u, 0, 1, None, 1)
                                                     ...

The kernel then reads ``u`` itself, at the view's offset and strides: the view is an operand
cut from the input (``runtime/fusion/layout.py``), as a chunk piece is, which the launch plan
works out from each call's shapes and strides (``plan._views``) as the op would. A view that
other nodes read as well stays where it is for them; a view of a view moves in after it, so a
group takes the base array. The input a group writes into (``written_into``) stays a view.
Groups of ``fuse_graph`` are unchanged (they are checked against PyTorch's); the executor runs
this after the other passes beyond PyTorch, on CPU plans.

A reversal (``aten::flip``: ``x[::-1]``, ``np.flip(x)``) moves in too, read backwards (negative
strides; ``(x + x[::-1]) * 0.5`` on 10^6 float64 ran 0.80x NumPy with the flip copied, 3.2x
read in place). A flip is a copy, not a view: it moves only where the group would read the
values the flip took (``_reads_unwritten``).
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import TensorType
from .alias_analysis import has_side_effects
from .constant_pooling import constant_pooling
from .dead_code_elimination import _may_write, eliminate_dead_code
from .inplace_fusion import WRITTEN_INTO
from .pass_checks import graph_pass

# The views a group may take in, with constant arguments (``view_step``).
VIEWS = frozenset({aten.slice, aten.select, aten.t, aten.transpose, aten.permute, aten.flip})


def view_step(node: Node) -> tuple | None:
    """The operand step (``layout.TensorOperand.steps``) of ``node``: a view of ``VIEWS`` of a
    tensor whose other arguments are constants of the types its schema takes (a slice's step
    positive, as ``aten::slice`` requires; a select of a known rank above 1, which leaves a
    view of a dimension or more), else None."""
    if node.kind not in VIEWS or len(node.outputs) != 1 or not node.inputs \
            or not isinstance(node.input(0).type, TensorType):
        return None
    args = []
    for value in node.inputs[1:]:
        if value.node.kind != prim.Constant:
            return None
        args.append(constant_value(value.node))
    if node.kind == aten.slice:
        if len(args) != 4 or not _is_int(args[0]) or not _is_int(args[3]) or args[3] <= 0 \
                or not all(a is None or _is_int(a) for a in args[1:3]):
            return None
        return ("slice", *args)
    if node.kind == aten.select:
        out = node.output().type
        if len(args) != 2 or not all(map(_is_int, args)) or not isinstance(out, TensorType) \
                or not out.rank:
            return None
        return ("select", *args)
    if node.kind == aten.t:
        return ("t",) if not args else None
    if node.kind == aten.transpose:
        return ("transpose", *args) if len(args) == 2 and all(map(_is_int, args)) else None
    # (permute and flip: one list of dims)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and all(map(_is_int, args[0])):
        return (node.kind.name, tuple(args[0]))
    return None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@graph_pass
def move_views_into_groups(graph: Graph) -> bool:
    """Move the views with constant arguments that fusion groups read into those groups (see
    the module's docstring); True if any moved."""
    moved = False
    for node in list(graph.all_nodes()):
        if node.kind == prim.FusionGroup and _take_views(node):
            constant_pooling(node.g("Subgraph"))     # (one copy of each argument)
            moved = True
    if moved:
        eliminate_dead_code(graph)     # (the views' arguments no node outside reads now)
    return moved


def _reads_unwritten(flip: Node, group: Node, written: Value | None) -> bool:
    """May ``group`` read ``flip``'s array itself, reversed? ``aten::flip`` is a copy, where
    the other ``VIEWS`` are views: the group reads the array when it runs, so nothing between
    the flip and the group may write (a node of the same block, with no blocks, no side
    effects and nothing dead-code elimination takes for a write), and the group must not
    write into the flipped array (its kernel would read elements it has already written)."""
    if flip.owning_block is not group.owning_block or not group.is_after(flip) \
            or flip.input(0) is written:
        return False
    node = flip.next
    while node is not group:
        # (and, as before, any op named as an in-place one: that also stops pure ``__and__``s,
        # which could let a flip move)
        if node.blocks or has_side_effects(node) or _may_write(node) \
                or node.kind.name.endswith("_"):
            return False
        node = node.next
    return True


def _take_views(group: Node) -> bool:
    subgraph = group.g("Subgraph")
    written = group.inputs[group.i(WRITTEN_INTO)] if group.has_attribute(WRITTEN_INTO) \
        else None
    moved = False
    i = 0
    while i < len(group.inputs):
        value = group.inputs[i]
        view = value.node
        if value is written or view_step(view) is None \
                or view.kind == aten.flip and not _reads_unwritten(view, group, written):
            i += 1
            continue
        base = view.input(0)
        if base in group.inputs:
            inner_base = subgraph.inputs[group.inputs.index(base)]
        else:
            group.add_input(base)
            inner_base = subgraph.add_input(type=base.type)
        inner = subgraph.inputs[i]
        first = next(iter(subgraph.block.nodes()), None)
        with subgraph.inserting_before(first if first is not None else subgraph.block):
            args = {v: subgraph.insert_node(subgraph.create_clone(v.node, lambda v: v)).output()
                    for v in view.inputs[1:]}
            args[base] = inner_base
            cut = subgraph.insert_node(subgraph.create_clone(view, args.__getitem__))
        cut.output().set_type(inner.type)
        inner.replace_all_uses_with(cut.output())
        group.remove_input(i)
        subgraph.erase_input(i)
        if not value.uses:
            view.destroy()
        moved = True
    if written is not None:
        group.i_(WRITTEN_INTO, group.inputs.index(written))
    return moved


__all__ = ["VIEWS", "move_views_into_groups", "view_step"]
