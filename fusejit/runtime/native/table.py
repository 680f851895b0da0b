"""The table that maps the operator library's keys onto native op ids (``opcodes.NativeOp``).

``NATIVE_OPS`` is keyed like ``fusejit.runtime.ops.OPS`` (schema text, or ``prim::`` kind) and
gives the ``NativeOp`` the loop dispatches on::

    NATIVE_OPS["aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"] == ADD
    NATIVE_OPS["aten::lt(int a, int b) -> bool"] == S_LT

``native_op_for(node)`` gives ``(id, param0, param1)`` for one node at lowering time, or
``(HOST, 0, 0)`` when the node always runs on the host. An operator-library entry that names
its native op (``OpEntry.native``, a ``NativeOp`` name) gives the rows of its tensor
overloads; the structural and list ops are listed here.
"""

from __future__ import annotations

from ...oplib import ENTRIES
from ..ops import OPS, find_entry
from .opcodes import Group, NativeOp
from .scalar_ops import RETURN_KINDS, SCALAR_BINARY, SCALAR_UNARY

_SCALARS = frozenset({"int", "float", "bool", "Scalar"})
_POINTWISE = Group.TENSOR_ARITH | Group.TENSOR_COMPARE | Group.TENSOR_UNARY


def _named_body(key: str) -> NativeOp | None:
    """The pointwise body the operator library's entry for ``key`` names (``OpEntry.native``)."""
    entry = ENTRIES.get(key.split("(")[0])
    if entry is None or entry.native is None:
        return None
    op = NativeOp[entry.native]
    if op not in _POINTWISE:
        raise AssertionError(f"{entry.kind} names {op.name}, which is not a pointwise body")
    return op


_TENSOR_OPS = {
    "aten::mm(Tensor self, Tensor mat2) -> Tensor": NativeOp.MM,
    # mm's body takes two 2-d operands only; any other matmul runs on the host.
    "aten::matmul(Tensor self, Tensor other) -> Tensor": NativeOp.MM,
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor": NativeOp.SUM_ALL,
    "aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor": NativeOp.SUM_DIMS,
    "aten::view(Tensor(a) self, int[] size) -> Tensor(a)": NativeOp.VIEW,
    "aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)": NativeOp.RESHAPE,
    "aten::t(Tensor(a) self) -> Tensor(a)": NativeOp.T,
    "aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)": NativeOp.SELECT,
    "aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)":
        NativeOp.EXPAND,
    "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)":
        NativeOp.CONTIGUOUS,
    "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)":
        NativeOp.COPY_,
    "aten::size(Tensor self) -> int[]": NativeOp.SIZE,
    "aten::size(Tensor self, int dim) -> int": NativeOp.SIZE_DIM,
    "aten::dim(Tensor self) -> int": NativeOp.DIM,
    "aten::numel(Tensor self) -> int": NativeOp.NUMEL,
    "aten::len(t[] a) -> int": NativeOp.LEN,
    "aten::__getitem__(t[] list, int idx) -> t": NativeOp.GETITEM,
    "prim::ConstantChunk": NativeOp.CONSTANT_CHUNK,
    "prim::ListUnpack": NativeOp.LIST_UNPACK,
    "prim::BroadcastSizes": NativeOp.BROADCAST_SIZES,
}


def _build() -> dict[str, NativeOp]:
    table: dict[str, NativeOp] = dict(_TENSOR_OPS)
    for key in OPS:
        if key.startswith("aten::full_like("):
            table[key] = NativeOp.FULL_LIKE
        if key.startswith("aten::empty_like("):
            table[key] = NativeOp.EMPTY_LIKE
        if "(" not in key:
            continue
        name = key.split("(")[0].removeprefix("aten::")
        formals = key[key.index("(") + 1:key.rindex(") ->")].split(", ")
        types = [f.split(" ")[0] for f in formals if f != "*"]
        if set(types) <= _SCALARS and types:
            if len(types) == 2 and name in SCALAR_BINARY:
                table[key] = SCALAR_BINARY[name]
            elif len(types) == 1 and name in SCALAR_UNARY:
                table[key] = SCALAR_UNARY[name]
        elif (body := _named_body(key)) is None:
            continue
        elif body in Group.TENSOR_UNARY:
            if types == ["Tensor"] and key.endswith("-> Tensor"):
                table[key] = body
        elif types[0] == "Tensor" and len(types) >= 2 and types[1] in ("Tensor", "Scalar") \
                and "rounding_mode" not in key:
            table[key] = body
    table["prim::ListConstruct"] = NativeOp.LIST_INT
    return table


NATIVE_OPS: dict[str, NativeOp] = _build()


def native_op_for(node) -> tuple[NativeOp, int, int]:
    """(native op, param0, param1) for ``node``; ``NativeOp.HOST`` when the host runs it."""
    entry = find_entry(node)
    if entry is None:
        return NativeOp.HOST, 0, 0
    op = NATIVE_OPS.get(entry.schema, NativeOp.HOST)
    if op == NativeOp.HOST:
        return op, 0, 0
    if op in Group.SCALAR_BINARY or op in Group.SCALAR_UNARY:
        return op, RETURN_KINDS.get(entry.schema.rsplit("-> ", 1)[1], 0), 0
    if op == NativeOp.CONSTANT_CHUNK:
        chunks, dim = node.i("chunks"), node.i("dim")
        if not all(-(1 << 63) <= v < (1 << 63) for v in (chunks, dim)):
            return NativeOp.HOST, 0, 0   # (an int64 parameter row cannot hold them: the host)
        return op, chunks, dim
    if op in Group.LIST_PRODUCERS and not _stays_immutable(node):
        return NativeOp.HOST, 0, 0
    return op, 0, 0


def _stays_immutable(node) -> bool:
    """Whether a list made natively (a fresh copy each time the host reads it) is safe: only
    when no use could mutate it or observe its identity."""
    if node.kind == "prim::ListConstruct" and not all(
            str(v.type) == "int" for v in node.inputs):
        return False
    return all(read_only_use(use.user) for out in node.outputs for use in out.uses)


def read_only_use(user) -> bool:
    if user.kind in ("prim::Return", "prim::PythonOp", "prim::fork", "aten::__is__",
                     "aten::__isnot__", "prim::TupleConstruct", "prim::ListConstruct") \
            or user.has_attribute("Subgraph"):
        return False
    entry = find_entry(user)
    return entry is not None and entry.pure and "!" not in entry.schema
