"""Values and the small records around them: ``Use``, ``SourceRange``, ``ElidedTensor``.

A ``Value`` is the SSA result of a node (block inputs are outputs of the block's ``prim::Param``
node). Its ``uses`` list names every ``(node, input offset)`` that reads it; the graph keeps that
list exact::

    %y : Tensor = aten::mul(%x, %x)     # %x.uses == [Use(mul, 0), Use(mul, 1)]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import IRError
from .types import TensorType, Type

if TYPE_CHECKING:
    from .graph import Graph
    from .node import Node

_NUMBER = re.compile(r"[0-9]+")
# Characters a printed name may hold (what the parser reads after ``%``); any other character
# of a name set through the API becomes ``_``, so printed IR always parses back.
_NOT_NAME_CHAR = re.compile(r"[^A-Za-z0-9_.]")


class Use:
    """One read of a value: input ``offset`` of node ``user``."""

    __slots__ = ("user", "offset")

    def __init__(self, user: Node, offset: int):
        self.user = user
        self.offset = offset

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Use) and self.user is other.user and self.offset == other.offset

    def __hash__(self) -> int:
        return hash((id(self.user), self.offset))

    def __repr__(self) -> str:
        return f"Use({self.user.kind}, {self.offset})"


class SourceRange:
    """Where a node came from: ``file:line:col`` as printed after ``#`` in the IR text."""

    __slots__ = ("file", "line", "col")

    def __init__(self, file: str, line: int = 0, col: int = 0):
        self.file = file
        self.line = line
        self.col = col

    @classmethod
    def parse(cls, text: str) -> SourceRange:
        match = re.match(r"^(.*):(\d+):(\d+)$", text)
        if match:
            return cls(match.group(1), int(match.group(2)), int(match.group(3)))
        return cls(text)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" if self.line else self.file

    def __repr__(self) -> str:
        return f"SourceRange({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceRange) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class ElidedTensor:
    """A tensor constant whose values the text did not show (printed as ``<Tensor>``)."""

    __slots__ = ("type",)

    def __init__(self, type: TensorType):
        self.type = type

    def __repr__(self) -> str:
        return f"ElidedTensor({self.type})"


class Value:
    """An SSA value: output ``offset`` of ``node`` (block inputs are outputs of a Param node)."""

    __slots__ = ("node", "offset", "type", "uses", "_unique", "_name")

    def __init__(self, node: Node, offset: int, type: Type):
        _check_type(type)
        self.node = node
        self.offset = offset
        self.type = type
        self.uses: list[Use] = []
        self._unique = node.graph._next_unique()
        self._name: str | None = None

    @property
    def graph(self) -> Graph:
        return self.node.graph

    @property
    def unique(self) -> int:
        return self._unique

    @property
    def debug_name(self) -> str:
        """The printed name without ``%``: the debug name if set, else the unique number."""
        return self._name if self._name is not None else str(self._unique)

    def has_debug_name(self) -> bool:
        return self._name is not None

    def set_debug_name(self, name: str | None) -> Value:
        """Name the value; a name another value holds is taken over, the other gets ``name.N``."""
        self.graph._names.rename(self, name)
        return self

    def set_type(self, type: Type) -> Value:
        _check_type(type)
        self.type = type
        return self

    def has_uses(self) -> bool:
        return bool(self.uses)

    def replace_first_use_with(self, new: Value) -> None:
        use = self.uses[0]
        use.user.replace_input(use.offset, new)

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every reader of this value read ``new`` instead."""
        if new is self:
            return
        while self.uses:
            self.replace_first_use_with(new)

    def replace_all_uses_after_node_with(self, node: Node, new: Value) -> None:
        """Redirect only the uses that come after ``node`` in program order."""
        for use in list(self.uses):
            if use.user.is_after(node):
                use.user.replace_input(use.offset, new)

    def copy_metadata(self, other: Value) -> Value:
        self.type = other.type
        if other.has_debug_name():
            self.set_debug_name(other.debug_name)
        return self

    def __repr__(self) -> str:
        return f"%{self.debug_name}"


def _check_type(type_: object) -> None:
    if not isinstance(type_, Type):
        raise IRError(f"a value's type must be a fusejit.ir.types.Type, not "
                      f"{type(type_).__name__}")


class _NameTable:
    """Debug names of one graph, uniqued as TorchScript does (``x``, then ``x.1``, ``x.2``...)."""

    def __init__(self):
        self.owner: dict[str, Value] = {}
        self.next_suffix: dict[str, int] = {}

    def rename(self, value: Value, name: str | None) -> None:
        if name is not None and not isinstance(name, str):
            raise IRError(f"a debug name must be a str, not {type(name).__name__}")
        if name is not None and name != "" and _NUMBER.fullmatch(name):
            raise IRError(f"debug names may not be plain numbers: {name!r}")
        if name:
            name = _NOT_NAME_CHAR.sub("_", name)
        if value._name is not None:
            del self.owner[value._name]
            value._name = None
        if not name:
            return
        previous = self.owner.get(name)
        if previous is not None:
            self.rename(previous, self._fresh_variant(name))
        self.owner[name] = value
        value._name = name

    def _fresh_variant(self, name: str) -> str:
        base, suffix = name, 1
        head, dot, tail = name.rpartition(".")
        if dot and tail.isdigit() and head:
            base, suffix = head, int(tail)
        suffix = max(suffix, self.next_suffix.get(base, 0))
        while f"{base}.{suffix}" in self.owner:
            suffix += 1
        self.next_suffix[base] = suffix + 1
        return f"{base}.{suffix}"

    def release(self, value: Value) -> None:
        if value._name is not None and self.owner.get(value._name) is value:
            del self.owner[value._name]
