"""Output types of one node for shape analysis, read off the operator library itself.

Rather than a second table of dtype rules, a node's NumPy body (``make_operation(node)``) is run on
small *proxy* inputs built from the input types, and the outputs' dtypes and ranks are read back::

    %x : Long(*, *, device=cpu), %h : float = 0.5
    %y = aten::add(%x, %h, %one)       proxies: ones((1, 1), int64), 0.5, 1  ->  float32 (1, 1)
    %y : Float(*, *, device=cpu)

Proxies: a tensor with known dtype and rank becomes ``ones`` of its known sizes, unknown dims
filled with 1 (broadcast-neutral); a constant input is its value; a ``prim::ListConstruct`` input
is a list of its items' proxies. What is not known is *tried*: an unknown dtype over
Float/Long/Bool/Double, an unknown rank over 1, 2, 0, 3, a non-constant int over 1, 0, 2, -1, a
bool over both values (up to four trials, candidates cycled). A property is kept only when every
trial that ran agrees on it (``keepdim`` given by a non-constant bool gives two ranks: the rank
stays unknown); sizes are kept only from a single exact trial (every input size and value known).
Trials that raise are values the program cannot have at run time; if all of them raise with unknown
dims filled with 1, they are retried once with the unknown dims larger than any integer the node
mentions (so ``select(%x, 0, 2)`` on ``Float(*, *)`` works).

Impure ops are never run (``prim::PythonOp``, ``prim::RaiseException``, ``aten::rand_like``, the
in-place ops, fork and wait are interpreter kinds or ``pure=False`` entries); they, and nodes
whose proxies cannot be built (a non-constant ``int[]`` of unknown length) or all fail, take the
schema's rules: a return that aliases an in-place argument (``Tensor(a!)``) has that argument's
type; a view (``Tensor(a)`` return) keeps ``self``'s dtype and device, and has as many dims as a
``size``/``shape`` list of known length; otherwise the declared return type (``Tensor``: unknown),
type variables bound from the arguments. Chunks, list and tuple plumbing and futures are structural.

``infer_outputs(node, facts)`` returns one type per output (``None``: nothing inferred; the caller
keeps the declared type). ``facts`` holds compile-time values (constants, shape metadata) and the
element types of op-made lists; the rules add what they learn about the outputs.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.constants import constant_value
from ..ir.schema import FunctionSchema, registry
from ..ir.symbols import aten, prim
from ..ir.types import (
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    TENSOR,
    AnyType,
    BoolType,
    DeviceType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    ScalarType,
    TensorType,
    TupleType,
    Type,
)
from ..ir.values import ElidedTensor
from ..oplib import find_entry, make_operation
from ..oplib.table import wrap_dim
from ..oplib.tensor import broadcast_sizes, chunk_sizes


class Facts:
    """What the analysis knows about values beyond their types: ``values`` holds compile-time
    values (constants, shape metadata), ``items`` the element types of lists an op returned
    (``aten::broadcast_tensors``), so that a ``prim::ListUnpack`` of them keeps dtypes and ranks;
    ``typed`` the values this analysis has typed so far, in program order (a loop body's are
    dropped before each round), whose types are therefore current."""

    __slots__ = ("values", "items", "typed")

    def __init__(self):
        self.values: dict[Any, Any] = {}
        self.items: dict[Any, list[Type | None]] = {}
        self.typed: set[Any] = set()

    def forget(self, value) -> None:
        self.values.pop(value, None)
        self.items.pop(value, None)
        self.typed.discard(value)


Known = dict  # Value -> compile-time Python value (``Facts.values``)


# A proxy larger than this is shrunk to ones in every dim (its sizes then count as unknown).
PROXY_NUMEL_LIMIT = 1 << 16
MAX_TRIALS = 4
# The retry fill for unknown dims: above every integer the node mentions, within this bound.
MAX_FILL = 64

_DTYPE_CANDIDATES = tuple(st.dtype for st in (ScalarType.Float, ScalarType.Long,
                                              ScalarType.Bool, ScalarType.Double))
_RANK_CANDIDATES = (1, 2, 0, 3)
_INT_CANDIDATES = (1, 0, 2, -1)
_FLOAT_CANDIDATES = (0.5, 2.0)
_BOOL_CANDIDATES = (False, True)
_NUMBER_CANDIDATES = (1, 0.5)

# Ops whose results depend only on shapes, never on tensor values: their exact results are known
# at compile time (``%n = aten::size(%x, %zero)`` on ``Float(3, 4)`` is 3).
_SHAPE_OPS = frozenset({
    aten.size, aten.dim, aten.numel, aten.len, prim.BroadcastSizes, prim.ChunkSizes,
    "aten::_size_if_not_equal",
})
# Argument names of view-like ops that give the result's dims (PyTorch's reshape/expand rule).
_SIZE_ARGUMENTS = ("size", "shape")


def infer_outputs(node, facts: Facts) -> list[Type | None]:
    """One inferred type per output of ``node`` (``None`` where nothing could be inferred)."""
    rule = _STRUCTURAL.get(node.kind)
    if rule is not None:
        return rule(node, facts)
    entry = find_entry(node)
    schema = registry.find(node)
    if entry is not None and entry.pure and _worth_running(node, schema):
        types = _run_proxies(node, facts)
        if types is not None:
            return _fill_gaps(types, _schema_rule(node, schema, facts.values))
    return _schema_rule(node, schema, facts.values)


def list_items(value) -> tuple | None:
    """The items of a list or tuple built by ``prim::ListConstruct``/``TupleConstruct`` and never
    written to (an in-place user such as ``aten::append`` makes the items unknowable)."""
    producer = value.node
    if producer.kind not in (prim.ListConstruct, prim.TupleConstruct):
        return None
    for use in value.uses:
        schema = use.user.schema
        if schema is not None and schema.is_mutable:
            return None
    return producer.inputs


# -- proxies ----------------------------------------------------------------------------------

class _Proxies:
    """The candidate run-time values of one input, and whether the first is the exact value."""

    __slots__ = ("candidates", "exact")

    def __init__(self, candidates: list[Any], exact: bool):
        self.candidates = candidates
        self.exact = exact


def _worth_running(node, schema: FunctionSchema | None) -> bool:
    if not node.outputs:
        return False
    if node.kind in _SHAPE_OPS or schema is None:
        return True
    # Scalar arithmetic has exact schema return types; running it could only cost time
    # (``aten::pow(int, int)`` on huge constants).
    takes_tensors = any(_holds_tensor(v.type) for v in node.inputs)
    returns_concrete = all(_is_concrete(t) for t in schema.returns)
    return takes_tensors or not returns_concrete


def _holds_tensor(t: Type) -> bool:
    if isinstance(t, TensorType):
        return True
    if isinstance(t, (ListType, OptionalType, FutureType)):
        return _holds_tensor(t.elem)
    if isinstance(t, TupleType):
        return any(_holds_tensor(e) for e in t.elems)
    return isinstance(t, AnyType)


def _is_concrete(t: Type) -> bool:
    if isinstance(t, (IntType, FloatType, BoolType, NoneType)) or t == STR:
        return True
    if isinstance(t, ListType):
        return _is_concrete(t.elem)
    return False


def _proxies(value, known: Known, fill: int, depth: int = 0) -> _Proxies | None:
    if value in known:
        item = known[value]
        return _Proxies([list(item) if isinstance(item, list) else item], True)
    items = list_items(value)
    if items is not None and depth < 4:
        parts = [_proxies(v, known, fill, depth + 1) for v in items]
        if any(p is None for p in parts):
            return None
        make = list if value.node.kind == prim.ListConstruct else tuple
        count = max((len(p.candidates) for p in parts), default=1)
        return _Proxies([make(p.candidates[j % len(p.candidates)] for p in parts)
                         for j in range(count)], all(p.exact for p in parts))
    return _type_proxies(value.type, fill)


def _type_proxies(t: Type, fill: int) -> _Proxies | None:
    if isinstance(t, TensorType):
        return _tensor_proxies(t, fill)
    if isinstance(t, BoolType):
        return _Proxies(list(_BOOL_CANDIDATES), False)
    if isinstance(t, IntType):
        return _Proxies(list(_INT_CANDIDATES), False)
    if isinstance(t, FloatType):
        return _Proxies(list(_FLOAT_CANDIDATES), False)
    if isinstance(t, NumberType):
        return _Proxies(list(_NUMBER_CANDIDATES), False)
    if isinstance(t, NoneType):
        return _Proxies([None], True)
    if isinstance(t, DeviceType):
        return _Proxies(["cpu"], True)
    if isinstance(t, OptionalType):
        inner = _type_proxies(t.elem, fill)
        return None if inner is None else _Proxies([None, *inner.candidates], False)
    return None  # lists of unknown length, strings, tuples, futures: no honest proxy


def _tensor_proxies(t: TensorType, fill: int) -> _Proxies:
    dtypes = [t.dtype] if t.scalar_type is not None else list(_DTYPE_CANDIDATES)
    exact = t.scalar_type is not None and t.sizes is not None and None not in t.sizes
    if t.sizes is None:
        shapes = [(fill,) * rank for rank in _RANK_CANDIDATES]
    else:
        shape = tuple(fill if s is None else s for s in t.sizes)
        if math.prod(shape) > PROXY_NUMEL_LIMIT or any(s < 0 for s in shape):
            shape, exact = (1,) * len(shape), False
        shapes = [shape]
    count = max(len(dtypes), len(shapes))
    return _Proxies([np.ones(shapes[j % len(shapes)], dtypes[j % len(dtypes)])
                     for j in range(count)], exact)


def _node_integers(node, known: Known) -> list[int]:
    found = [node.attr(name) for name in node.attribute_names() if node.kind_of(name) == "i"]
    for v in node.inputs:
        if _holds_tensor(v.type):
            found.append(1)   # (tensor proxies are ones: as indices, x[idx], they mention 1)
        item = known.get(v)
        if isinstance(item, list):
            found.extend(x for x in item if isinstance(x, int))
        elif isinstance(item, int):
            found.append(item)
        for part in list_items(v) or ():   # (constant index arrays: x[[0, 2, 4]] mentions 4)
            if part.node.kind == prim.Constant and isinstance(part.type, TensorType) and \
                    part.type.scalar_type is not None and part.type.dtype.kind in "iu":
                data = constant_value(part.node)
                if isinstance(data, np.ndarray) and 0 < data.size <= MAX_FILL:
                    found.append(int(np.abs(data.astype(np.int64)).max()))
    return [abs(int(x)) for x in found if not isinstance(x, bool)]


def _run_proxies(node, facts: Facts) -> list[Type | None] | None:
    """The output types the node's body gives on proxies, or None when no trial ran."""
    known = facts.values
    try:
        op = make_operation(node)
    except Exception:
        return None
    result = _trials(node, op, known, 1)
    if result is None:
        fill = max(_node_integers(node, known), default=0) + 1
        if 1 < fill <= MAX_FILL:
            result = _trials(node, op, known, fill)
    if result is None:
        # unknown dims as large as a known one (w @ h, w: (*, *), h: (3,): contracting dims
        # must agree)
        sized = max((s for v in node.inputs if isinstance(v.type, TensorType)
                     for s in v.type.sizes or () if s is not None), default=0)
        if 1 < sized <= MAX_FILL:
            result = _trials(node, op, known, sized)
    if result is None:
        return None
    outcomes, exact = result
    device = _common_device(node)
    types = [_agree([_abstract(out[i], device) for out in outcomes], exact)
             for i in range(len(node.outputs))]
    if exact and node.kind in _SHAPE_OPS:
        for v, item in zip(node.outputs, outcomes[0]):
            if isinstance(item, (int, list)):
                known[v] = item
    for i, v in enumerate(node.outputs):
        pieces = [out[i] for out in outcomes]
        if all(isinstance(p, list) for p in pieces) and len({len(p) for p in pieces}) == 1:
            facts.items[v] = [_agree([_abstract(p[k], device) for p in pieces], exact)
                              for k in range(len(pieces[0]))]
    return types


def _trials(node, op: Callable, known: Known, fill: int) -> tuple[list[tuple], bool] | None:
    try:
        inputs = [_proxies(v, known, fill) for v in node.inputs]
    except Exception:  # a malformed type (negative sizes...) just leaves the outputs unknown
        return None
    if any(p is None for p in inputs):
        return None
    count = min(max((len(p.candidates) for p in inputs), default=1), MAX_TRIALS)
    outcomes = []
    for j in range(count):
        args = [p.candidates[j % len(p.candidates)] for p in inputs]
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outs = op(*args)
        except Exception:
            continue
        if len(outs) == len(node.outputs):
            outcomes.append(outs)
    if not outcomes:
        return None
    exact = count == 1 and fill == 1 and all(p.exact for p in inputs)
    return outcomes, exact


def _common_device(node) -> str | None:
    """The device of the node's tensor inputs, those inside a constructed list included."""
    for v in node.inputs:
        for item in list_items(v) or (v,):
            if isinstance(item.type, TensorType) and item.type.device is not None:
                return item.type.device
    return None


def _abstract(x: Any, device: str | None) -> Type | None:
    """The type of one proxy result (sizes exact; ``_agree`` decides what to keep)."""
    if isinstance(x, np.generic):
        x = np.asarray(x)
    if isinstance(x, np.ndarray):
        try:
            scalar = ScalarType.from_dtype(x.dtype)
        except ValueError:
            scalar = None
        return TensorType(scalar, tuple(int(s) for s in x.shape), None, None, device)
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return INT
    if isinstance(x, float):
        return FLOAT
    if isinstance(x, str):
        return STR
    if x is None:
        return NONE
    if isinstance(x, list):
        elems = {TENSOR if isinstance(e, np.ndarray) else _abstract(e, device) for e in x}
        return ListType(elems.pop()) if len(elems) == 1 and None not in elems else None
    if isinstance(x, tuple):
        elems = [_abstract(e, device) for e in x]
        return None if None in elems else TupleType(tuple(elems))
    return None


def _agree(types: list[Type | None], exact: bool) -> Type | None:
    if any(t is None for t in types):
        return None
    first = types[0]
    if all(isinstance(t, TensorType) for t in types):
        scalars = {t.scalar_type for t in types}
        ranks = {t.rank for t in types}
        devices = {t.device for t in types}
        rank = ranks.pop() if len(ranks) == 1 else None
        sizes = None if rank is None else (first.sizes if exact else (None,) * rank)
        return TensorType(scalars.pop() if len(scalars) == 1 else None, sizes, None, None,
                          devices.pop() if len(devices) == 1 else None)
    if all(t == first for t in types):
        return _dimensioned(first) if not exact else first
    return None


def _dimensioned(t: Type) -> Type:
    if isinstance(t, TensorType):
        return t.dimensioned_only()
    if isinstance(t, TupleType):
        return TupleType(tuple(_dimensioned(e) for e in t.elems))
    return t


def _fill_gaps(types: list[Type | None], fallback: list[Type | None]) -> list[Type | None]:
    return [t if t is not None else f for t, f in zip(types, fallback)]


# -- schema rules -----------------------------------------------------------------------------

_RETURN_ALIAS = re.compile(r"\(([a-z])(!?)\)")


def _schema_rule(node, schema: FunctionSchema | None, known: Known) -> list[Type | None]:
    n = len(node.outputs)
    if schema is None or len(schema.returns) != n:
        return [None] * n
    bound = _bind_type_variables(schema, node)
    aliases = _return_aliases(schema)
    types: list[Type | None] = []
    for i, declared in enumerate(schema.returns):
        source = aliases[i] if i < len(aliases) else None
        if source is not None and isinstance(declared, TensorType) \
                and isinstance(node.inputs[source[0]].type, TensorType):
            types.append(_alias_type(node, schema, known, *source))
        else:
            types.append(_substitute(declared, bound))
    return types


def _return_aliases(schema: FunctionSchema) -> list[tuple[int, bool] | None]:
    """Per return: (index of the argument it aliases, written in place?) or None."""
    arrow = schema.text.rfind("->")
    if arrow < 0:
        return []
    result: list[tuple[int, bool] | None] = []
    for piece in _split_returns(schema.text[arrow + 2:]):
        found = _RETURN_ALIAS.search(piece)
        match = None
        if found:
            for i, arg in enumerate(schema.arguments):
                if arg.alias is not None and arg.alias.rstrip("!").strip() == found.group(1) \
                        and isinstance(arg.type, TensorType):
                    match = (i, found.group(2) == "!")
                    break
        result.append(match)
    return result


def _split_returns(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("(") and not text.startswith("()") and text.endswith(")") \
            and not _RETURN_ALIAS.fullmatch(text):
        return [p.strip() for p in text[1:-1].split(",")]
    return [text] if text and text != "()" else []


def _alias_type(node, schema: FunctionSchema, known: Known, index: int,
                in_place: bool) -> TensorType:
    source = node.inputs[index].type
    if in_place:  # the op returns its argument: same dtype, sizes and device
        return TensorType(source.scalar_type, source.sizes, None, None, source.device)
    sizes = None
    for name in _SIZE_ARGUMENTS:
        try:
            value = node.inputs[schema.argument_index(name)]
        except Exception:
            continue
        items = known.get(value)
        if isinstance(items, list) and all(isinstance(x, int) for x in items):
            sizes = tuple(x if x >= 0 else None for x in items)
        elif (construct := list_items(value)) is not None:
            sizes = tuple(known.get(v) if isinstance(known.get(v), int)
                          and known[v] >= 0 else None for v in construct)
    return TensorType(source.scalar_type, sizes, None, None, source.device)


def _bind_type_variables(schema: FunctionSchema, node) -> dict[str, Type]:
    bound: dict[str, Type] = {}

    def bind(formal: Type, actual: Type) -> None:
        if isinstance(formal, AnyType) and hasattr(formal, "var"):
            bound.setdefault(formal.var, actual)
        elif isinstance(formal, ListType) and isinstance(actual, ListType):
            bind(formal.elem, actual.elem)
        elif isinstance(formal, OptionalType):
            bind(formal.elem, actual.elem if isinstance(actual, OptionalType) else actual)

    for arg, value in zip(schema.arguments, node.inputs):
        bind(arg.type, value.type)
    return bound


def _substitute(t: Type, bound: dict[str, Type]) -> Type | None:
    if isinstance(t, AnyType) and hasattr(t, "var"):
        return bound.get(t.var)
    if isinstance(t, ListType):
        elem = _substitute(t.elem, bound)
        return None if elem is None else ListType(elem)
    if isinstance(t, OptionalType):
        elem = _substitute(t.elem, bound)
        return None if elem is None else OptionalType(elem)
    if isinstance(t, TupleType):
        elems = [_substitute(e, bound) for e in t.elems]
        return None if None in elems else TupleType(tuple(elems))
    return t


# -- structural rules: constants, containers, chunks, futures ---------------------------------

def _constant(node, facts: Facts) -> list[Type | None]:
    known = facts.values
    value = constant_value(node)
    if isinstance(value, ElidedTensor):
        return [value.type]
    known[node.output()] = value
    if isinstance(value, np.ndarray):
        return [TensorType.of_array(value, requires_grad=None)]
    return [None]  # the declared scalar or list type is the constant's own


def _list_construct(node, facts: Facts) -> list[Type | None]:
    known = facts.values
    values = [known.get(v, _MISSING) for v in node.inputs]
    if all(x is not _MISSING and not isinstance(x, np.ndarray) for x in values):
        known[node.output()] = list(values)
    declared = node.output().type
    if isinstance(declared, ListType) and isinstance(declared.elem, OptionalType):
        return [None]   # (aten::index's Tensor?[] keeps its type, whatever its items are)
    types = {TENSOR if isinstance(v.type, TensorType) else v.type for v in node.inputs}
    return [ListType(types.pop()) if len(types) == 1 else None]


def _tuple_construct(node, facts: Facts) -> list[Type | None]:
    return [TupleType(tuple(v.type for v in node.inputs))]


def _unpack(node, facts: Facts) -> list[Type | None]:
    known = facts.values
    container = node.input(0)
    items = list_items(container)
    n = len(node.outputs)
    if items is not None and len(items) == n:
        for out, item in zip(node.outputs, items):
            if item in known:
                known[out] = known[item]
        return [v.type for v in items]
    item_types = facts.items.get(container)
    if item_types is not None and len(item_types) == n:
        return list(item_types)
    value = known.get(container)
    if isinstance(value, (list, tuple)) and len(value) == n:
        for out, item in zip(node.outputs, value):
            known[out] = item
    if container.node.kind == aten.chunk and node.kind == prim.ListUnpack:
        chunks, dim = (known.get(v) for v in container.node.inputs[1:3])
        if isinstance(chunks, int) and isinstance(dim, int):
            return _chunk_types(container.node.input(0).type, chunks, dim, n)
    t = container.type
    if isinstance(t, ListType):
        return [t.elem] * n
    if isinstance(t, TupleType) and len(t.elems) == n:
        return list(t.elems)
    return [None] * n


def _tuple_index(node, facts: Facts) -> list[Type | None]:
    known = facts.values
    index = known.get(node.input(1))
    t = node.input(0).type
    if isinstance(index, int) and isinstance(t, TupleType) and -len(t.elems) <= index < len(
            t.elems):
        items = list_items(node.input(0))
        return [items[index].type if items is not None else t.elems[index]]
    return [None]


def _getitem(node, facts: Facts) -> list[Type | None]:
    known = facts.values
    items = list_items(node.input(0))
    index = known.get(node.input(1))
    if items is not None and isinstance(index, int) and -len(items) <= index < len(items):
        return [items[index].type]
    item_types = facts.items.get(node.input(0))
    if item_types is not None and isinstance(index, int) and -len(item_types) <= index < len(
            item_types):
        return [item_types[index]]
    t = node.input(0).type
    if isinstance(t, ListType) and isinstance(t.elem, TensorType) and (
            t.elem.scalar_type is None or t.elem.rank is None):
        held = _held_type(node.input(0), facts)
        if held is not None:
            return [held]
    return [t.elem if isinstance(t, ListType) else None]


# What a list's uses may be for ``_held_type`` to know every item it holds: ops that put an
# item in (the item at this input), and ops that only read it
_PUTS = {aten.append: 1, aten._set_item: 2, aten.insert: 2}
_READS = frozenset({aten["__getitem__"], aten.len, aten.stack, aten.cat, aten.pop})


def _held_type(items, facts: Facts) -> TensorType | None:
    """The type every array in ``items`` has (``details = []``, then ``details.append(d)`` in a
    loop, then ``for d in details``): the one dtype and rank of the arrays the list was built
    from and every ``append`` put in, when the list is used only by ops that add an item or
    read them. Each array put in must already be typed by this analysis (an ``append`` that
    comes after the read, in program order or later in a loop's body, is not yet): a type
    from before the analysis could be stale. None where it is not known."""
    root = items
    while root.node.kind in _PUTS:
        root = root.node.input(0)
    if root.node.kind != prim.ListConstruct:
        return None
    held: set[Type] = set()
    for v in root.node.inputs:
        held.add(v.type)
    aliases, seen = [root], {root}
    while aliases:
        for use in aliases.pop().uses:
            user = use.user
            if user.kind in _PUTS and use.offset == 0:
                value = user.input(_PUTS[user.kind])
                if value not in facts.typed:
                    return None
                held.add(value.type)
                for out in user.outputs:
                    if out not in seen and isinstance(out.type, ListType):
                        seen.add(out)
                        aliases.append(out)
            elif user.kind == prim.Return:   # the graph's result (a block's could be added to)
                if user is not user.graph.block.return_node:
                    return None
            elif user.kind not in _READS or use.offset != 0:
                return None
    kinds = {t.dimensioned_only() if isinstance(t, TensorType) else None for t in held}
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    if kind is None or kind.scalar_type is None or kind.rank is None:
        return None
    return kind


def _chunk_types(t: Type, chunks: int, dim: int, n: int) -> list[Type | None]:
    if not isinstance(t, TensorType):
        return [None] * n
    if t.sizes is None:
        return [TensorType(t.scalar_type, None, None, None, t.device)] * n
    try:
        d = wrap_dim(dim, len(t.sizes))
        pieces = chunk_sizes(t.sizes[d], chunks) if t.sizes[d] is not None else []
    except Exception:
        return [None] * n  # a 0-dim input or a bad dim: the op fails at run time
    types = []
    for i in range(n):
        sizes = list(t.sizes)
        sizes[d] = pieces[i] if len(pieces) == n else None
        types.append(TensorType(t.scalar_type, tuple(sizes), None, None, t.device))
    return types


def _constant_chunk(node, facts: Facts) -> list[Type | None]:
    return _chunk_types(node.input(0).type, node.i("chunks"), node.i("dim"), len(node.outputs))


def _broadcasting_chunk(node, facts: Facts) -> list[Type | None]:
    chunks = node.i("chunks")
    types = [v.type for v in node.inputs]
    if len(node.outputs) != chunks * len(types) or not all(
            isinstance(t, TensorType) for t in types):
        return [None] * len(node.outputs)
    if all(t.sizes is not None and None not in t.sizes for t in types):
        try:
            shape = tuple(broadcast_sizes(*(t.sizes for t in types)))
        except Exception:
            return [None] * len(node.outputs)
    elif all(t.sizes is not None for t in types):
        shape = (None,) * max(len(t.sizes) for t in types)
    else:
        shape = None
    result: list[Type | None] = []
    for t in types:
        broadcast = TensorType(t.scalar_type, shape, None, None, t.device)
        result.extend(_chunk_types(broadcast, chunks, node.i("dim"), chunks))
    return result


def _wait(node, facts: Facts) -> list[Type | None]:
    t = node.input(0).type
    return [t.elem if isinstance(t, FutureType) else None]


_MISSING = object()

_STRUCTURAL: dict[str, Callable[[Any, Facts], list[Type | None]]] = {
    prim.Constant: _constant,
    prim.ListConstruct: _list_construct,
    prim.TupleConstruct: _tuple_construct,
    prim.ListUnpack: _unpack,
    prim.TupleUnpack: _unpack,
    prim.TupleIndex: _tuple_index,
    aten["__getitem__"]: _getitem,   # (not aten.__getitem__: the namespace's own method)
    prim.ConstantChunk: _constant_chunk,
    prim.BroadcastingChunk: _broadcasting_chunk,
    aten.wait: _wait,
}
