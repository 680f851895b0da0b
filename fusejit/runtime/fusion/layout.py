"""What a fusion group reads and writes, found once from its subgraph (no dtypes, no sizes).

A tensor *operand* is one strided view the kernel reads: a group input, one piece of a
``prim::ConstantChunk`` of a group input (or of such a piece), or a view of a group input with
constant arguments (``VIEWS``: a slice, a transposition or a reversal, which
``passes/view_inputs.py`` moves into groups; or such a view of a view or of a chunk piece).
Outputs are plain values or ``prim::FusedConcat``s, whose pieces are written into slices of
one array::

    graph(%x : Tensor, %y : Tensor, %s : float):
      %a, %b = prim::ConstantChunk[chunks=2, dim=1](%x)   operands: x.chunk0, x.chunk1, y
      %c = aten::mul(%a, %s)
      %d = aten::add(%c, %y, ...)
      %e = prim::FusedConcat[dim=0](%d, %b)               output 0: concat of pieces d, b
      return (%e)

A view read only by other views or chunks is no operand itself (it is not broadcast into the
iteration shape): ``u[1:-1]`` below only gives the two operands their rows::

    graph(%u : Tensor):
      %r = aten::slice(%u, 0, 1, -1, 1)        operands: u[1:-1, :-2], u[1:-1, 2:]
      %a = aten::slice(%r, 1, None, -2, 1)
      %b = aten::slice(%r, 1, 2, None, 1)
      %d = aten::sub(%b, %a, 1)
      return (%d)

Some inputs give only a dtype (``type_as``'s ``other``, see ``templates.DTYPE_ONLY``): values
reached from the outputs only through such inputs are not ``needed``, and an operand that is
not needed is neither read nor broadcast into the iteration shape::

    graph(%x : Tensor, %like : Tensor):
      %t = aten::type_as(%x, %like)          needed: t, x; data operands: x (like: dtype only)
      return (%t)
"""

from __future__ import annotations

from ...errors import IRError
from ...ir.graph import Graph, Node, Value
from ...ir.symbols import prim
from ...ir.types import BoolType, FloatType, IntType, NumberType, TensorType
from ...passes.view_inputs import VIEWS, view_step
from .templates import DTYPE_ONLY, RENDERERS

# Nodes that cut a view out of a value without reading its elements.
_CUTS = VIEWS | {prim.ConstantChunk}


class TensorOperand:
    """A view the kernel reads: group input ``input`` (a tensor-input index), maybe cut.

    ``steps`` lists the cuts applied to the input, outermost first, each a tuple tagged by its
    first item: ``("chunk", chunks, dim, index)`` (a ``prim::ConstantChunk`` of a chunk piece,
    which PyTorch's fuser forms, is a second step on the first one's view), ``("slice", dim,
    start, end, step)``, ``("select", dim, index)``, ``("t",)``, ``("transpose", dim0, dim1)``,
    ``("permute", dims)`` or ``("flip", dims)`` (the ops' own arguments, dims maybe negative;
    a flip walks its dims backwards: negative strides). ``plan._views`` applies them to the
    input's shape and strides, as the ops would.
    """

    __slots__ = ("input", "steps")

    def __init__(self, input: int, steps: tuple[tuple, ...] = ()):
        self.input = input
        self.steps = steps

    @property
    def is_chunk(self) -> bool:
        return bool(self.steps)


class OutputLayout:
    """One group output: its pieces (one value, or the inputs of a FusedConcat) and concat dim."""

    __slots__ = ("pieces", "concat_dim")

    def __init__(self, pieces: list[Value], concat_dim: int | None):
        self.pieces = pieces
        self.concat_dim = concat_dim


class GroupLayout:
    """The static structure of a fusion group's subgraph."""

    __slots__ = ("graph", "input_kinds", "tensor_index", "scalar_index", "operands",
                 "operand_of", "cut_of", "outputs", "depends", "needed", "data_operands",
                 "element_cost")

    def __init__(self, graph: Graph):
        self.graph = graph
        self.input_kinds: list[str] = []          # "tensor" or "scalar", per graph input
        self.tensor_index: dict[int, int] = {}    # graph input position -> tensor input number
        self.scalar_index: dict[int, int] = {}    # graph input position -> scalar input number
        self.operands: list[TensorOperand] = []
        self.operand_of: dict[Value, int] = {}    # input or chunk-output value -> operand
        self.cut_of: dict[Value, TensorOperand] = {}  # input or cut value -> its view
        self.outputs: list[OutputLayout] = []
        self.depends: dict[Value, frozenset[int]] = {}   # value -> operands it reads
        self.needed: set[Value] = set()           # values whose elements an output reads
        self.data_operands: frozenset[int] = frozenset()   # operands whose elements are read
        self.element_cost: float | None = None    # estimated ns an element costs (plan.py)


def _where(node: Node) -> str:
    return f" at {node.source_range}" if node.source_range is not None else ""


def analyse(graph: Graph) -> GroupLayout:
    """Check that ``graph`` is a compilable fusion subgraph and describe its operands."""
    layout = GroupLayout(graph)
    for pos, value in enumerate(graph.inputs):
        if isinstance(value.type, TensorType):
            layout.tensor_index[pos] = len(layout.tensor_index)
            layout.input_kinds.append("tensor")
            base = TensorOperand(layout.tensor_index[pos])
            layout.cut_of[value] = base
            if any(use.user.kind not in _CUTS for use in value.uses) or not value.uses:
                _add_operand(layout, value, base)
        elif isinstance(value.type, (FloatType, IntType, BoolType, NumberType)):
            layout.scalar_index[pos] = len(layout.scalar_index)
            layout.input_kinds.append("scalar")
            layout.depends[value] = frozenset()
        else:
            raise IRError(f"fusion group input {pos} has type {value.type}, which a fused kernel "
                          "cannot take (tensors and numbers only)")
    if not layout.tensor_index:
        raise IRError("a fusion group needs at least one tensor input")
    for node in graph.nodes():
        _analyse_node(layout, node)
    for value in graph.outputs:
        producer = value.node
        if producer.kind == prim.FusedConcat:
            layout.outputs.append(OutputLayout(list(producer.inputs), producer.i("dim")))
        elif isinstance(value.type, TensorType) or value in layout.operand_of:
            layout.outputs.append(OutputLayout([value], None))
        else:
            raise IRError(f"fusion group output %{value.debug_name} is not a tensor")
    _find_needed(layout)
    return layout


def _find_needed(layout: GroupLayout) -> None:
    """Mark the values the outputs read element by element (one reverse scan)."""
    needed = layout.needed
    for out in layout.outputs:
        needed.update(out.pieces)
    for node in reversed(list(layout.graph.nodes())):
        if node.kind == prim.FusedConcat or not any(v in needed for v in node.outputs):
            continue
        skip = DTYPE_ONLY.get(node.kind, frozenset())
        needed.update(v for i, v in enumerate(node.inputs) if i not in skip)
    layout.data_operands = frozenset(k for v, k in layout.operand_of.items() if v in needed)


def _add_operand(layout: GroupLayout, value: Value, operand: TensorOperand) -> None:
    layout.operand_of[value] = len(layout.operands)
    layout.depends[value] = frozenset({len(layout.operands)})
    layout.operands.append(operand)


def _cut_source(layout: GroupLayout, node: Node, what: str) -> TensorOperand:
    """The view that ``node`` (a chunk or a view) cuts further: a group input's or a cut's."""
    view = layout.cut_of.get(node.input())
    if view is None:
        raise IRError(f"{what} of a computed value{_where(node)}: a fusion group only cuts its "
                      "inputs and their chunk pieces and views")
    return view


def _analyse_node(layout: GroupLayout, node: Node) -> None:
    kind = node.kind
    if kind == prim.Constant:
        if isinstance(node.output().type, TensorType):
            raise IRError(f"tensor constant inside a fusion group{_where(node)}: tensor "
                          "constants must be group inputs")
        layout.depends[node.output()] = frozenset()
        return
    if kind == prim.ConstantChunk:
        # (a chunk of a chunk piece or of a view: a further cut of that view)
        base = _cut_source(layout, node, "prim::ConstantChunk")
        chunks, dim = node.i("chunks"), node.i("dim")
        if chunks < 1 or chunks != len(node.outputs):
            raise IRError(f"prim::ConstantChunk with chunks={chunks} and {len(node.outputs)} "
                          f"outputs{_where(node)}")
        for j, out in enumerate(node.outputs):
            piece = TensorOperand(base.input, base.steps + (("chunk", chunks, dim, j),))
            layout.cut_of[out] = piece
            _add_operand(layout, out, piece)
        return
    if kind in VIEWS:
        step = view_step(node)
        if step is None:
            raise IRError(f"{kind} in a fusion group with arguments other than constants of "
                          f"its schema's types{_where(node)}")
        base = _cut_source(layout, node, kind)
        out = node.output()
        view = layout.cut_of[out] = TensorOperand(base.input, base.steps + (step,))
        if any(use.user.kind not in _CUTS for use in out.uses):
            _add_operand(layout, out, view)
        return
    if kind == prim.FusedConcat:
        users = [use.user for out in node.outputs for use in out.uses]
        if any(u.kind != prim.Return for u in users):
            raise IRError(f"prim::FusedConcat result used inside its group{_where(node)}")
        return
    if kind not in RENDERERS:
        raise IRError(f"{kind} cannot run in a fused kernel{_where(node)}")
    if node.blocks or len(node.outputs) != 1:
        raise IRError(f"{kind} in a fusion group must have one output and no blocks"
                      f"{_where(node)}")
    deps: frozenset[int] = frozenset()
    skip = DTYPE_ONLY.get(kind, frozenset())
    for i, value in enumerate(node.inputs):
        if value not in layout.depends:
            raise IRError(f"{kind} reads %{value.debug_name}, which is not defined in its "
                          f"fusion group{_where(node)}")
        if i not in skip:
            deps |= layout.depends[value]
    layout.depends[node.output()] = deps
