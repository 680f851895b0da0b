"""``parse_ir(text) -> Graph``: reads TorchScript's printed IR (see ``printer``).

::

    >>> g = parse_ir('''graph(%x : Float(2, 3)):
    ...   %y : Float(2, 3) = aten::exp(%x) # f.py:1:4
    ...   return (%y)
    ... ''')
    >>> str(g.outputs[0].node.source_range)
    'f.py:1:4'

The parser is a scanner (``scanner``) over the text with one-token look-ahead, attribute values
are read by ``attribute_text``; it never evaluates anything it
reads: value names, kinds and strings are data. Every malformed input raises ``IRParseError`` with
the line, the column and the offending line shown under a caret. Nesting depth is bounded, so
pathological input fails with an error, not a ``RecursionError``.
"""

from __future__ import annotations

import gc
import math
import re

from ..errors import IRError, IRParseError
from .attribute_text import SCALAR_NAMES, AttributeParser
from .graph import Block, ElidedTensor, Graph, Node, SourceRange, Value
from .limits import MAX_RANK
from .lint import lint
from .scanner import INT
from .symbols import is_qualified
from .types import (
    SIMPLE_TYPES,
    FloatType,
    FutureType,
    ListType,
    OptionalType,
    ScalarType,
    TensorType,
    TupleType,
    Type,
)

_SPACES = re.compile(r"[ \t]*")
_KIND = re.compile(r"[A-Za-z_][A-Za-z_0-9]*::[A-Za-z_0-9][A-Za-z_0-9.]*")
_VALUE_NAME = re.compile(r"%([A-Za-z0-9_.]+)")
# A type without nesting (``int``, ``Float(3, 4, strides=[4, 1], device=cpu)``), for the cache.
_SIMPLE_TYPE = re.compile(r"[A-Za-z]+(?:\([A-Za-z0-9_=*:, -]*(?:\[[0-9, -]*\][A-Za-z0-9_=*:, -]*)?"
                          r"\))?(?![\[?(A-Za-z0-9_])")
_GROUP_SUFFIX = re.compile(r"^(.*)_([0-9]+)$")


def parse_ir(text: str) -> Graph:
    """Parse IR text (one graph and its ``with`` subgraph sections) into a ``Graph``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise IRParseError(f"IR text is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not isinstance(text, str):
        raise IRParseError(f"parse_ir takes a str, not {type(text).__name__}")
    # Every object the parser makes stays alive until it returns, so the cyclic collector's
    # passes over them find nothing; pausing it saves ~20% on large files (400k nodes).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _Parser(text).parse_file()
    finally:
        if collecting:
            gc.enable()


class _Section:
    """A parsed ``graph(...)`` and the group nodes in it that expect a ``with`` section."""

    def __init__(self, graph: Graph, groups: list[tuple[Node, str, int]]):
        self.graph = graph
        self.groups = groups


class _Parser(AttributeParser):
    def __init__(self, text: str):
        super().__init__(text)
        self.node_positions: dict[int, int] = {}
        self.type_cache: dict[str, Type] = {}

    # -- file and graph sections --------------------------------------------------------------

    def parse_file(self) -> Graph:
        if "\x00" in self.text:
            raise self.error("IR text contains a NUL character", self.text.index("\x00"))
        self.skip()
        if not self.at("graph"):
            raise self.error(f"expected 'graph(' at the start of the text, found {self.describe()}")
        main = self.parse_section()
        sections: list[tuple[str, int, _Section]] = []
        while self.accept("with"):
            self.skip()
            start = self.pos
            name = self.match(_KIND)
            if not name:
                raise self.error(f"expected a group kind after 'with', found {self.describe()}")
            self.expect("=")
            sections.append((name.group(0), start, self.parse_section()))
        self.skip()
        if self.pos < len(self.text):
            raise self.error(f"unexpected text after the graph: {self.describe()}")
        remaining = list(reversed(sections))
        self.attach_subgraphs(main, remaining)
        if remaining:
            name, start, _ = remaining[-1]
            raise self.error(f"no node refers to subgraph section {name}", start)
        try:
            lint(main.graph)
        except IRError as exc:
            node = getattr(exc, "node", None)
            pos = self.node_positions.get(id(node), 0)
            raise self.error(str(exc).removeprefix("lint: ").split("\n", 1)[0], pos) from None
        return main.graph

    def attach_subgraphs(self, section: _Section, remaining: list) -> None:
        """Give each group node its ``with`` section, in printing order (depth first)."""
        with self.nested():
            for node, written, pos in section.groups:
                if not remaining:
                    raise self.error(f"{written} has no 'with {written} = graph(...)' section", pos)
                name, start, sub = remaining.pop()
                if name != written:
                    raise self.error(f"expected the section of {written}, found {name}", start)
                node.g_("Subgraph", sub.graph)
                node._attrs = {"Subgraph": node._attrs.pop("Subgraph"), **node._attrs}
                self.attach_subgraphs(sub, remaining)

    def parse_section(self) -> _Section:
        self.expect("graph")
        self.expect("(")
        graph = Graph()
        scopes: list[dict[str, Value]] = [{}]
        groups: list[tuple[Node, str, int]] = []
        self.parse_params(graph.block, scopes[0], graph)
        self.expect(")")
        self.expect(":")
        self.parse_body(graph, graph.block, scopes, groups, "return")
        self.expect("(", "'(' after 'return'")
        for value in self.parse_uses(scopes, ")"):
            graph.block.register_output(value)
        return _Section(graph, groups)

    def parse_params(self, block: Block, scope: dict[str, Value], graph: Graph) -> None:
        if self.at(")"):
            return
        while True:
            name, pos = self.value_name()
            self.expect(":", "':' and a type after the parameter name")
            value = block.add_input(type=self.parse_type())
            self.define(graph, scope, name, value, pos)
            if not self.accept(","):
                return

    def parse_body(self, graph: Graph, block: Block, scopes: list[dict[str, Value]],
                   groups: list, terminator: str) -> None:
        while True:
            if self.accept(terminator):
                return
            if self.pos >= len(self.text) or terminator == "return" and self.at("with"):
                raise self.error(f"expected '{terminator}' to close the "
                                 f"{'graph' if terminator == 'return' else 'block'}")
            self.parse_node(graph, block, scopes, groups)

    def parse_node(self, graph: Graph, block: Block, scopes: list[dict[str, Value]],
                   groups: list) -> None:
        outputs: list[tuple[str, int, Type]] = []
        self.skip()
        line_start = self.pos
        if not self.at("="):
            while True:
                name, pos = self.value_name()
                self.expect(":", "':' and a type after the output name")
                outputs.append((name, pos, self.parse_type()))
                if not self.accept(","):
                    break
        self.expect("=", "'=' after the node's outputs")
        self.skip()
        kind_pos = self.pos
        kind_match = self.match(_KIND)
        if not kind_match:
            raise self.error(f"expected a node kind such as aten::add, found {self.describe()}")
        written = kind_match.group(0)
        node = graph.create(written, (), 0)
        self.node_positions[id(node)] = line_start
        node.text_line = self.line_of(line_start)
        if self.at("["):
            self.parse_attributes(node)
        self.expect("(", f"'(' and the inputs of {written}")
        for value in self.parse_uses(scopes, ")"):
            node.add_input(value)
        self.parse_source_comment(node)
        block.append_node(node)
        group = _GROUP_SUFFIX.match(written)
        if group and (group.group(1).endswith("Group") or group.group(1).endswith("Graph")):
            node.kind = type(node.kind)(group.group(1))
            groups.append((node, written, kind_pos))
        for name, pos, type_ in outputs:
            self.define(graph, scopes[-1], name, node.add_output(type_), pos)
        self.settle_attributes(node, kind_pos)
        while self.at("block"):
            self.parse_block(graph, node, scopes, groups)

    def settle_attributes(self, node: Node, pos: int) -> None:
        """Constants take their attribute kind, dtype and shape from the output type.

        A float constant of 1e10 or more prints without a dot (``10000000000``) and reads as an
        int; a tensor constant's text gives values, the type gives dtype and shape.
        """
        out_type = node.outputs[0].type if len(node.outputs) == 1 else None
        if isinstance(out_type, FloatType) and node.has_attribute("value") \
                and node.kind_of("value") == "i":
            node.f_("value", node.i("value"))
        if isinstance(out_type, ListType) and isinstance(out_type.elem, FloatType) \
                and node.has_attribute("value") and node.kind_of("value") == "is":
            node.set_attr("value", "fs", [float(v) for v in node.is_("value")])
        if not isinstance(out_type, TensorType):
            return
        for name in node.attribute_names():
            kind, value = node._attrs[name]
            if kind != "t":
                continue
            if isinstance(value, ElidedTensor):
                value.type = out_type
                continue
            if out_type.scalar_type is not None and value.dtype != out_type.dtype:
                value = value.astype(out_type.dtype)
            sizes = out_type.sizes
            if sizes is not None and all(s is not None for s in sizes):
                if math.prod(sizes) != value.size:
                    raise self.error(f"tensor constant has {value.size} values but its type is "
                                     f"{out_type}", pos)
                value = value.reshape(sizes)
            text = node._attr_text.get(name)
            node.set_attr(name, kind, value)
            node._attr_text[name] = text

    def parse_block(self, graph: Graph, node: Node, scopes: list[dict[str, Value]],
                    groups: list) -> None:
        with self.nested():
            self.expect("block")
            if not self.match(re.compile(r"[0-9]+")):
                raise self.error("expected the block number after 'block'")
            block = node.add_block()
            scopes.append({})
            self.expect("(")
            self.parse_params(block, scopes[-1], graph)
            self.expect(")")
            self.expect(":")
            self.parse_body(graph, block, scopes, groups, "->")
            self.expect("(", "'(' after '->'")
            for value in self.parse_uses(scopes, ")"):
                block.register_output(value)
            scopes.pop()

    def parse_source_comment(self, node: Node) -> None:
        after = _SPACES.match(self.text, self.pos).end()
        if self.text.startswith("# ", after):
            end = self.text.find("\n", after)
            end = len(self.text) if end < 0 else end
            node.source_range = SourceRange.parse(self.text[after + 2:end])
            self.pos = end

    # -- values -------------------------------------------------------------------------------

    def value_name(self) -> tuple[str, int]:
        self.skip()
        pos = self.pos
        found = self.match(_VALUE_NAME)
        if not found:
            raise self.error(f"expected a value name such as %x, found {self.describe()}")
        return found.group(1), pos

    def define(self, graph: Graph, scope: dict[str, Value], name: str, value: Value,
               pos: int) -> None:
        if name in scope:
            raise self.error(f"%{name} is defined twice", pos)
        scope[name] = value
        if name.isdigit():
            if len(name) > 18:
                raise self.error(f"value number %{name} is too large", pos)
            graph._claim_unique(value, int(name))
        else:
            try:
                value.set_debug_name(name)
            except IRError as exc:
                raise self.error(str(exc), pos) from None

    def parse_uses(self, scopes: list[dict[str, Value]], close: str) -> list[Value]:
        values: list[Value] = []
        if self.accept(close):
            return values
        while True:
            name, pos = self.value_name()
            for scope in reversed(scopes):
                if name in scope:
                    values.append(scope[name])
                    break
            else:
                raise self.error(f"unknown value %{name} (not defined before this use, or "
                                 f"defined in a block that has ended)", pos)
            if self.accept(close):
                return values
            self.expect(",", f"',' or '{close}'")

    # -- types --------------------------------------------------------------------------------

    def parse_type(self) -> Type:
        self.skip()
        start = self.pos
        # Printed graphs repeat a few type texts thousands of times: a text parsed once is
        # looked up after that (types are immutable, so sharing them is safe). Only what the
        # full parser accepted, over exactly the same span, is remembered.
        simple = _SIMPLE_TYPE.match(self.text, start)
        if simple is not None:
            known = self.type_cache.get(simple.group(0))
            if known is not None:
                self.pos = simple.end()
                return known
        try:
            result = self.parse_type_at(start)
        except IRError as exc:  # a type nested deeper than the IR allows
            raise self.error(str(exc), start) from None
        if simple is not None and self.pos == simple.end():
            self.type_cache[simple.group(0)] = result
        return result

    def parse_type_at(self, start: int) -> Type:
        with self.nested():
            if self.accept("("):
                elems = []
                if not self.accept(")"):
                    while True:
                        elems.append(self.parse_type())
                        if self.accept(")"):
                            break
                        self.expect(",", "',' or ')' in a tuple type")
                result: Type = TupleType(tuple(elems))
            else:
                name = self.ident("a type")
                if name in SIMPLE_TYPES:
                    result = SIMPLE_TYPES[name]
                elif name in ("Future", "List", "Optional") and self.at("["):
                    self.expect("[")
                    inner = self.parse_type()
                    self.expect("]", f"']' to close {name}[")
                    result = {"Future": FutureType, "List": ListType,
                              "Optional": OptionalType}[name](inner)
                elif name == "Tensor" or name in SCALAR_NAMES:
                    result = self.parse_tensor_type(SCALAR_NAMES.get(name), start)
                else:
                    raise self.error(f"unknown type {name!r}", start)
            while True:
                if self.text.startswith("[]", self.pos):
                    self.pos += 2
                    result = ListType(result)
                elif self.text.startswith("?", self.pos):
                    self.pos += 1
                    result = OptionalType(result)
                else:
                    return result

    def parse_tensor_type(self, scalar: ScalarType | None, start: int) -> TensorType:
        """The part after the dtype word. TorchScript prints a 0-dim tensor and one of unknown rank
        alike when no sizes show: ``Float(requires_grad=0, device=cpu)``. Read it as 0-dim only
        when the dtype and ``requires_grad`` are known (as complete shape analysis leaves 0-dim
        values) or the parentheses are empty (``Float()``); otherwise the rank stays unknown,
        which loses information at worst, never claims a wrong rank.
        """
        if not self.text.startswith("(", self.pos):
            return TensorType(scalar_type=scalar)
        self.pos += 1
        sizes: list[int | None] = []
        strides = requires_grad = device = None
        rank_known = False
        while not self.accept(")"):
            if sizes or rank_known or strides is not None or requires_grad is not None \
                    or device is not None:
                self.expect(",", "',' or ')' in a tensor type")
            self.skip()
            item_pos = self.pos
            if self.accept("*"):
                sizes.append(None)
                rank_known = True
            elif found := self.match(INT):
                if strides is not None or requires_grad is not None or device is not None:
                    raise self.error("sizes must come before strides, requires_grad and device",
                                     item_pos)
                size = self.int64(found.group(0), item_pos)
                if size < 0:
                    raise self.error(f"tensor size {size} is negative", item_pos)
                sizes.append(size)
                rank_known = True
            else:
                key = self.ident("a size, strides=, requires_grad= or device=")
                self.expect("=")
                if key == "strides":
                    strides = tuple(self.parse_int_list())
                elif key == "requires_grad":
                    flag = self.match(re.compile(r"[01]"))
                    if not flag:
                        raise self.error("requires_grad must be 0 or 1")
                    requires_grad = flag.group(0) == "1"
                elif key == "device":
                    found = self.match(re.compile(r"(cpu|cuda)(:[0-9]+)?|meta"))
                    if not found:
                        raise self.error(f"unknown device {self.describe()}")
                    device = found.group(0)
                else:
                    raise self.error(f"unknown tensor type field {key!r}", item_pos)
        if len(sizes) > MAX_RANK:
            raise self.error(f"tensor type of rank {len(sizes)}; at most {MAX_RANK} dims", start)
        if strides is not None and len(strides) != len(sizes):
            raise self.error(f"{len(strides)} strides for {len(sizes)} sizes", start)
        has_rank = rank_known or strides is not None or (
            requires_grad is None and device is None) or (
            scalar is not None and requires_grad is not None)
        return TensorType(scalar, tuple(sizes) if has_rank else None, strides, requires_grad,
                          device)

def is_node_kind(text: str) -> bool:
    return is_qualified(text)
