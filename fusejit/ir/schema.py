"""Operator signatures (``FunctionSchema``) and the registry of the ops fusejit knows.

::

    >>> s = parse_schema("aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    >>> [a.name for a in s.arguments], s.arguments[2].kwarg_only, str(s.arguments[2].type)
    (['self', 'other', 'alpha'], True, 'Scalar')

``node.matches(schema)`` is true when the node's kind is the schema's name and each input's type
is a subtype of the formal's type, as TorchScript checks it (``Scalar`` takes int, float and bool;
``t`` matches anything; ``Scalar?`` also takes ``None``). Graph nodes carry every argument,
defaults included, so the input count must equal the argument count.
"""

from __future__ import annotations

import re
from functools import cache

from ..errors import SchemaError
from .types import (
    ANY,
    INT,
    SIMPLE_TYPES,
    TENSOR,
    AnyType,
    BoolType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    TensorType,
    TupleType,
    Type,
)

_BASE_TYPES: dict[str, Type] = {
    **SIMPLE_TYPES, "Tensor": TENSOR,
    # Enumerations TorchScript passes as ints.
    "ScalarType": INT, "Layout": INT, "MemoryFormat": INT, "SymInt": INT,
}


class _TypeVar(AnyType):
    """A schema type variable (``t``, ``t1``): matches any type."""

    def __init__(self, name: str):
        object.__setattr__(self, "var", name)

    def __str__(self) -> str:
        return self.var

    def __eq__(self, other):
        return isinstance(other, _TypeVar) and other.var == self.var

    def __hash__(self):
        return hash(("typevar", self.var))


class Argument:
    __slots__ = ("name", "type", "default", "kwarg_only", "alias", "has_default")

    def __init__(self, name: str, type: Type, default: str | None, kwarg_only: bool,
                 alias: str | None):
        self.name = name
        self.type = type
        self.default = default
        self.has_default = default is not None
        self.kwarg_only = kwarg_only
        self.alias = alias

    def __repr__(self) -> str:
        text = f"{self.type} {self.name}"
        return text + (f"={self.default}" if self.default is not None else "")


class FunctionSchema:
    """A parsed operator signature."""

    def __init__(self, name: str, overload: str, arguments: list[Argument], returns: list[Type],
                 is_vararg: bool, text: str):
        self.name = name
        self.overload = overload
        self.arguments = arguments
        self.returns = returns
        self.is_vararg = is_vararg
        self.text = text
        # The positions of the arguments the op writes into (alias annotations with ``!``).
        self.written = tuple(i for i, a in enumerate(arguments)
                             if a.alias is not None and "!" in a.alias)

    @property
    def is_mutable(self) -> bool:
        """Does the op write into one of its arguments (an alias annotation with ``!``)?"""
        return bool(self.written)

    def argument_index(self, name: str) -> int:
        for i, a in enumerate(self.arguments):
            if a.name == name:
                return i
        raise SchemaError(f"{self.name} has no argument {name!r}")

    def matches(self, node) -> bool:
        if node.kind != self.name:
            return False
        inputs = node.inputs
        if len(inputs) != len(self.arguments) and not (
                self.is_vararg and len(inputs) >= len(self.arguments)):
            return False
        return all(type_matches(v.type, a.type) for v, a in zip(inputs, self.arguments))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"FunctionSchema({self.text!r})"


def type_matches(actual: Type, formal: Type) -> bool:
    """Is a value of type ``actual`` acceptable where ``formal`` is expected?"""
    if isinstance(formal, (_TypeVar, AnyType)):
        return True
    if isinstance(formal, OptionalType):
        return isinstance(actual, NoneType) or type_matches(
            actual.elem if isinstance(actual, OptionalType) else actual, formal.elem)
    if isinstance(formal, TensorType):
        return isinstance(actual, TensorType)
    if isinstance(formal, NumberType):
        return isinstance(actual, (IntType, FloatType, BoolType, NumberType))
    if isinstance(formal, FloatType):
        return isinstance(actual, FloatType)
    if isinstance(formal, ListType):
        return isinstance(actual, ListType) and type_matches(actual.elem, formal.elem)
    if isinstance(formal, TupleType):
        return (isinstance(actual, TupleType) and len(actual.elems) == len(formal.elems)
                and all(type_matches(a, f) for a, f in zip(actual.elems, formal.elems)))
    if isinstance(formal, FutureType):
        return isinstance(actual, FutureType) and type_matches(actual.elem, formal.elem)
    return actual == formal


_HEAD = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*::[A-Za-z_0-9]+)(?:\.([A-Za-z_0-9]+))?\s*\(")


@cache
def parse_schema(text: str) -> FunctionSchema:
    """Parse ``ns::name[.overload](args) -> returns``; raises ``SchemaError`` when malformed."""
    head = _HEAD.match(text)
    if not head:
        raise SchemaError(f"not an operator schema: {text!r}")
    close = _matching_paren(text, head.end() - 1)
    args_text = text[head.end():close]
    rest = text[close + 1:].strip()
    if not rest.startswith("->"):
        raise SchemaError(f"schema has no '-> returns': {text!r}")
    arguments: list[Argument] = []
    kwarg_only = is_vararg = False
    for piece in _split_top(args_text):
        if piece == "*":
            kwarg_only = True
            continue
        if piece == "...":
            is_vararg = True
            continue
        arguments.append(_parse_argument(piece, kwarg_only, text))
    ret = rest[2:].strip()
    if ret.startswith("(") and _matching_paren(ret, 0) == len(ret) - 1:
        pieces = _split_top(ret[1:-1])
    else:
        pieces = [ret] if ret else []
    returns = []
    for piece in pieces:
        if piece == "...":
            is_vararg = True
            continue
        returns.append(_parse_type(piece.split()[0] if " " in piece.strip() else piece, text)[0])
    return FunctionSchema(head.group(1), head.group(2) or "", arguments, returns, is_vararg, text)


def _matching_paren(text: str, open_index: int) -> int:
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] in "([":
            depth += 1
        elif text[i] in ")]":
            depth -= 1
            if depth == 0:
                return i
    raise SchemaError(f"unbalanced brackets in schema: {text!r}")


def _split_top(text: str) -> list[str]:
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        pieces.append(text[start:].strip())
    return pieces


def _parse_argument(piece: str, kwarg_only: bool, text: str) -> Argument:
    default = None
    if "=" in piece:
        piece, default = (part.strip() for part in piece.split("=", 1))
    parts = piece.rsplit(None, 1)
    if len(parts) != 2:
        raise SchemaError(f"argument {piece!r} needs a type and a name in {text!r}")
    type_, alias = _parse_type(parts[0], text)
    return Argument(parts[1], type_, default, kwarg_only, alias)


_TYPE = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)(\([a-z!*|\s>-]*\))?((?:\[[0-9]*\]|\?)*)"
                   r"(\([a-z!*|\s>-]*\))?$")


def _parse_type(text: str, schema: str) -> tuple[Type, str | None]:
    text = text.strip()
    if text.startswith("("):
        inner = [_parse_type(p, schema)[0] for p in _split_top(text[1:-1])]
        return TupleType(tuple(inner)), None
    if text.startswith("Future(") or text.startswith("Future["):
        return FutureType(_parse_type(text[7:-1], schema)[0]), None
    found = _TYPE.match(text)
    if not found:
        raise SchemaError(f"bad type {text!r} in schema {schema!r}")
    name, alias, suffixes, list_alias = found.groups()
    alias = alias or list_alias
    if name in _BASE_TYPES:
        result = _BASE_TYPES[name]
    elif len(name) <= 2 and name[0] == "t":
        result = _TypeVar(name)
    elif name in ("Generator", "Storage", "Stream", "QScheme", "Dimname"):
        result = ANY
    else:
        raise SchemaError(f"unknown type {name!r} in schema {schema!r}")
    for suffix in re.findall(r"\[[0-9]*\]|\?", suffixes):
        result = OptionalType(result) if suffix == "?" else ListType(result)
    return result, alias[1:-1].strip() if alias else None


class OperatorRegistry:
    """Schemas by kind; ``find(node)`` returns the first one the node matches."""

    def __init__(self):
        self._by_kind: dict[str, list[FunctionSchema]] = {}
        # (kind, *input types) -> the schema found: a match depends on nothing else, and the
        # passes ask about every node again and again (alias analysis, DCE, the fuser).
        self._found: dict[tuple, FunctionSchema | None] = {}
        self.version = 0   # changes when a schema is added (nodes memoise their lookups)

    def register(self, text: str) -> FunctionSchema:
        schema = parse_schema(text)
        bucket = self._by_kind.setdefault(schema.name, [])
        if schema not in bucket:
            bucket.append(schema)
            self._found.clear()
            self.version += 1
        return schema

    def schemas(self, kind: str) -> list[FunctionSchema]:
        return list(self._by_kind.get(kind, ()))

    def kinds(self) -> list[str]:
        return sorted(self._by_kind)

    def find(self, node) -> FunctionSchema | None:
        key = (node.kind, *(v.type for v in node.inputs))
        try:
            return self._found[key]
        except KeyError:
            pass
        except TypeError:   # a type that cannot be hashed: look it up every time
            key = None
        found = next((s for s in self._by_kind.get(node.kind, ()) if s.matches(node)), None)
        if key is not None:
            if len(self._found) >= _FOUND_LIMIT:
                self._found.clear()
            self._found[key] = found
        return found


_FOUND_LIMIT = 1 << 14


# Filled by the operator library (``fusejit.oplib``), one schema per overload of each op;
# ``import fusejit`` imports it.
registry = OperatorRegistry()

# prim:: nodes have no fixed schema; these are the kinds the IR, passes and interpreter know.
PRIM_KINDS = frozenset(
    "prim::Constant prim::If prim::Loop prim::ListConstruct prim::ListUnpack "
    "prim::TupleConstruct prim::TupleUnpack prim::TupleIndex prim::ConstantChunk "
    "prim::BroadcastingChunk prim::FusionGroup prim::FusedConcat prim::BroadcastSizes "
    "prim::ChunkSizes prim::RaiseException prim::Uninitialized prim::unchecked_cast "
    "prim::PythonOp prim::fork prim::Load prim::Store prim::Drop prim::Print prim::Param "
    "prim::Return prim::CallFunction prim::GetAttr prim::dtype prim::device "
    "prim::NumToTensor prim::ImplicitTensorToNum prim::max prim::min prim::abs".split())
