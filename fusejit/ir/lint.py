"""``lint(graph)``: check every invariant of the IR; the error prints the offending node.

Checked: use-lists match inputs both ways; outputs know their node and offset; each block's linked
list is consistent and its positions increase; every value is defined before its use and visible
in the using block (defined in it or in an enclosing block, before the owning node); ``If`` and
``Loop`` have the arity their semantics need; a node with a subgraph has as many inputs and
outputs as the subgraph (which is linted in turn); debug names are unique in the graph.

Beyond structure: blocks and subgraphs nest at most ``limits.MAX_DEPTH`` deep, attributes are in
range (``limits.attribute_problem``), a ``prim::Constant`` has a value unless its type is
``NoneType`` or optional, a node of a known operator has an input count some schema of it takes,
and a node matching a schema has outputs its return types allow (``Tensor`` where it returns a
tensor, not ``int``). Tensor types have sizes and strides that are 64-bit and not negative.

It runs in time linear in the graph: each use-list is read once, when its value is defined.
"""

from __future__ import annotations

from ..errors import IRError
from .graph import Block, Graph, Node, Value
from .limits import attribute_problem, check_depth, fits_int64
from .schema import registry, type_matches
from .symbols import prim
from .types import (
    BoolType,
    FloatType,
    IntType,
    NoneType,
    OptionalType,
    StringType,
    TensorType,
    Type,
)


def lint(graph: Graph) -> None:
    """Raise ``IRError`` naming the broken invariant and printing the node that breaks it."""
    if not isinstance(graph, Graph):
        raise IRError(f"lint expects a Graph, got {type(graph).__name__}")
    _Linter(graph).run()


class _Linter:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.seen_values: set[int] = set()
        # (id(user), offset) of each use of a value, keyed by id(value): built once per value
        # so that checking an input is O(1) however many readers the value has.
        self.recorded: dict[int, set[tuple[int, int]]] = {}
        # Verdicts already reached, by type identity and by (kind, input and output types):
        # parsed graphs share type objects, so most nodes repeat an earlier node's question.
        # Keys hold ids of types the graph keeps alive for the whole run.
        self.type_verdicts: dict[int, str | None] = {}
        self.schema_verdicts: dict[tuple, str | None] = {}

    def fail(self, message: str, node: Node | None = None) -> IRError:
        where = f"\n  at: {node}" if node is not None and node.kind not in (
            prim.Param, prim.Return) else ""
        error = IRError(f"lint: {message}{where}")
        error.node = node
        return error

    def run(self) -> None:
        check_depth(self.graph)
        visible: set[int] = set()
        self.check_block(self.graph.block, visible)
        names = self.graph._names.owner
        for name, value in names.items():
            if value._name != name:
                raise self.fail(f"name table maps {name!r} to a value now called "
                                f"%{value.debug_name}")

    def define(self, value: Value, node: Node, offset: int, visible: set[int]) -> None:
        if value.node is not node or value.offset != offset:
            raise self.fail(f"output {offset} (%{value.debug_name}) does not point back to its "
                            f"node", node)
        if value.graph is not self.graph:
            raise self.fail(f"%{value.debug_name} belongs to another graph", node)
        if id(value) in self.seen_values:
            raise self.fail(f"%{value.debug_name} is defined twice", node)
        self.seen_values.add(id(value))
        visible.add(id(value))
        verdicts = self.type_verdicts
        key = id(value.type)
        if key not in verdicts:
            verdicts[key] = _type_problem(value.type)
        problem = verdicts[key]
        if problem:
            raise self.fail(f"%{value.debug_name} has type {value.type}: {problem}", node)
        recorded: set[tuple[int, int]] = set()
        for use in value.uses:
            user = use.user
            if use.offset >= len(user._inputs) or user._inputs[use.offset] is not value:
                raise self.fail(f"%{value.debug_name} lists a use by {user.kind} at input "
                                f"{use.offset} that does not read it", node)
            key = (id(user), use.offset)
            if key in recorded:
                raise self.fail(f"%{value.debug_name} lists input {use.offset} of {user.kind} "
                                f"twice", node)
            recorded.add(key)
        self.recorded[id(value)] = recorded

    def check_inputs(self, node: Node, visible: set[int]) -> None:
        for i, value in enumerate(node._inputs):
            if id(value) not in visible:
                raise self.fail(f"input {i} (%{value.debug_name}) is not defined before this "
                                f"use or not visible in this block", node)
            if (id(node), i) not in self.recorded[id(value)]:
                raise self.fail(f"use-list of %{value.debug_name} does not record input {i}",
                                node)

    def check_block(self, block: Block, visible: set[int]) -> None:
        """Check ``block`` with ``visible`` holding the values defined before it; the values
        the block defines are added while it is checked and removed after (one shared set, not
        a copy per block, keeps lint linear in graphs with many blocks)."""
        owners = (block.param_node.owning_block, block.return_node.owning_block)
        if owners[0] is not block or owners[1] is not block:
            raise self.fail("a block's Param/Return node does not belong to it")
        defined: list[Value] = []
        for i, value in enumerate(block.inputs):
            self.define(value, block.param_node, i, visible)
            defined.append(value)
        previous = block.param_node
        for node in block.nodes():
            if node.prev is not previous or previous.next is not node:
                raise self.fail("node list links are broken", node)
            if node.owning_block is not block:
                raise self.fail("node's owning block is wrong", node)
            if node._topo <= previous._topo:
                raise self.fail("node positions are not increasing", node)
            if node.graph is not self.graph:
                raise self.fail("node belongs to another graph", node)
            self.check_inputs(node, visible)
            self.check_node(node)
            for sub in node.blocks:
                if sub.owning_node is not node:
                    raise self.fail("a block does not point back to its node", node)
                self.check_block(sub, visible)
            for i, value in enumerate(node._outputs):
                self.define(value, node, i, visible)
                defined.append(value)
            previous = node
        if block.return_node.prev is not previous:
            raise self.fail("node list does not end at the block's Return node")
        self.check_inputs(block.return_node, visible)
        for value in defined:
            visible.discard(id(value))

    def schema_problem(self, node: Node) -> str | None:
        if node.kind not in registry._by_kind:
            return None
        key = (node.kind, tuple(id(v.type) for v in node._inputs),
               tuple(id(v.type) for v in node._outputs))
        verdicts = self.schema_verdicts
        if key not in verdicts:
            verdicts[key] = _schema_problem(node)
        problem = verdicts[key]
        # The cached message names the first node's values: name this node's instead.
        return _schema_problem(node) if problem else None

    def check_node(self, node: Node) -> None:
        kind, n_in, n_out = node.kind, len(node._inputs), len(node._outputs)
        if kind == prim.If:
            if n_in != 1 or len(node.blocks) != 2:
                raise self.fail("prim::If needs one condition input and two blocks", node)
            if not isinstance(node._inputs[0].type, BoolType):
                raise self.fail("prim::If condition is not a bool", node)
            for block in node.blocks:
                if block.inputs or len(block.outputs) != n_out:
                    raise self.fail(f"prim::If blocks must take no inputs and return {n_out} "
                                    f"values", node)
        elif kind == prim.Loop:
            if n_in < 2 or len(node.blocks) != 1:
                raise self.fail("prim::Loop needs (max trip count, condition, carried...) and "
                                "one block", node)
            carried = n_in - 2
            body = node.blocks[0]
            if n_out != carried or len(body.inputs) != carried + 1 or len(
                    body.outputs) != carried + 1:
                raise self.fail(f"prim::Loop carries {carried} values: it needs {carried} "
                                f"outputs, {carried + 1} block inputs and {carried + 1} block "
                                f"outputs", node)
            if not isinstance(node._inputs[0].type, IntType):
                raise self.fail("prim::Loop max trip count is not an int", node)
        elif kind == prim.Constant:
            if n_in or n_out != 1:
                raise self.fail("prim::Constant takes no inputs and has one output", node)
            out_type = node._outputs[0].type
            if not node.has_attribute("value") and not isinstance(
                    out_type, (NoneType, OptionalType)):
                raise self.fail(f"a constant of type {out_type} has no value", node)
            wanted = _CONSTANT_KINDS.get(type(out_type))
            if wanted and node.has_attribute("value") and node.kind_of("value") not in wanted:
                raise self.fail(f"a constant of type {out_type} holds a value of attribute kind "
                                f"{node.kind_of('value')}", node)
        elif node.blocks:
            raise self.fail(f"{kind} may not have blocks", node)
        problem = attribute_problem(node) or self.schema_problem(node)
        if problem:
            raise self.fail(problem, node)
        if node.has_attribute("Subgraph") and node.kind_of("Subgraph") == "g":
            sub = node.g("Subgraph")
            if len(sub.inputs) != n_in or len(sub.outputs) != n_out:
                raise self.fail(f"{kind} has {n_in} inputs and {n_out} outputs but its subgraph "
                                f"takes {len(sub.inputs)} and returns {len(sub.outputs)}", node)
            try:
                lint(sub)
            except IRError as exc:
                raise self.fail(f"in the subgraph of {kind}: {exc}", node) from None


# The attribute kinds a constant of each type may hold its value in (TorchScript's conventions,
# see ``constants``); an int constant holding a float or a string would run as garbage.
_CONSTANT_KINDS = {IntType: ("i",), BoolType: ("i", "ival"), FloatType: ("f",),
                   StringType: ("s",), TensorType: ("t",)}


def _type_problem(type_: Type) -> str | None:
    """Sizes or strides of a tensor type that no tensor can have, or None."""
    if not isinstance(type_, TensorType):
        return None
    if type_.sizes is not None and any(
            s is not None and not (isinstance(s, int) and 0 <= s and fits_int64(s))
            for s in type_.sizes):
        return "a size is negative or not a 64-bit integer"
    if type_.strides is not None and any(
            s is not None and not (isinstance(s, int) and fits_int64(s)) for s in type_.strides):
        return "a stride is not a 64-bit integer"
    return None


def _schema_problem(node: Node) -> str | None:
    """A node of a known operator that no schema of it describes, or None.

    Only the input count is held against every schema (input types may be refined later); a
    node that matches a schema must have outputs that its return types allow.
    """
    schemas = registry.schemas(node.kind)
    if not schemas:
        return None
    n_in = len(node._inputs)
    if not any(_takes(s, n_in) for s in schemas):
        counts = sorted({len(s.arguments) for s in schemas})
        return (f"{node.kind} takes {' or '.join(str(c) for c in counts)} inputs "
                f"(fewer only where the last ones have defaults), not {n_in}")
    schema = next((s for s in schemas if s.matches(node)), None)
    if schema is None:
        return None
    returns = schema.returns
    if len(returns) != len(node._outputs):
        return (f"{node.kind} returns {len(returns)} values ({schema.text}), but the node has "
                f"{len(node._outputs)} outputs")
    for i, (value, formal) in enumerate(zip(node._outputs, returns)):
        if not (type_matches(value.type, formal) or type_matches(formal, value.type)):
            return (f"output {i} (%{value.debug_name}) has type {value.type}, but "
                    f"{schema.text} returns {formal} there")
    return None


def _takes(schema, n_in: int) -> bool:
    """Can a node with ``n_in`` inputs call ``schema`` (trailing defaulted arguments omitted)?"""
    n_args = len(schema.arguments)
    if n_in >= n_args:
        return n_in == n_args or schema.is_vararg
    return all(a.has_default for a in schema.arguments[n_in:])
