"""Native op ids and the table that maps the operator library's keys onto them.

``NATIVE_OPS`` is keyed like ``fusejit.runtime.ops.OPS`` (schema text, or ``prim::`` kind) and
gives the native op id the loop dispatches on::

    NATIVE_OPS["aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"] == 200 + ADD
    NATIVE_OPS["aten::lt(int a, int b) -> bool"] == S_LT

``native_op_for(node)`` gives ``(id, param0, param1)`` for one node at lowering time, or
``(-1, 0, 0)`` when the node always runs on the host. To merge these bodies into the operator
library later, set ``OPS[key].native_body = NATIVE_OPS[key]`` for every key of this table.
"""

from __future__ import annotations

from ..ops import OPS, find_entry
from . import pointwise as pw
from .scalar_ops import RETURN_KINDS, SCALAR_BINARY, SCALAR_UNARY

BINARY_BASE, UNARY_BASE, TENSOR_BASE = 200, 300, 400
(MM, SUM_ALL, SUM_DIMS, VIEW, RESHAPE, T, SELECT, EXPAND, CONTIGUOUS, SIZE, SIZE_DIM, DIM,
 NUMEL, CONSTANT_CHUNK, LIST_INT, LIST_UNPACK, LEN, GETITEM, BROADCAST_SIZES) = range(
    TENSOR_BASE, TENSOR_BASE + 19)
# Fusion groups with a compiled kernel: KERNEL_BASE + slot (see kernel_entry.py).
KERNEL_BASE = 1000
# ListConstruct -> broadcast_tensors -> ListUnpack as one op (lists.py); COVERED marks the two
# instructions it runs (the host runs them when it reaches them).
BROADCAST_LIST, COVERED = TENSOR_BASE + 19, -2

_SCALARS = frozenset({"int", "float", "bool", "Scalar"})
_TENSOR_BINARY = {"add": pw.ADD, "sub": pw.SUB, "mul": pw.MUL, "div": pw.DIV,
                  "max": pw.MAXIMUM, "min": pw.MINIMUM, "eq": pw.EQ, "ne": pw.NE,
                  "lt": pw.LT, "le": pw.LE, "gt": pw.GT, "ge": pw.GE}
_TENSOR_UNARY = {"neg": pw.NEG, "abs": pw.ABS, "relu": pw.RELU, "floor": pw.FLOOR,
                 "ceil": pw.CEIL, "trunc": pw.TRUNC, "round": pw.ROUND, "sqrt": pw.SQRT,
                 "rsqrt": pw.RSQRT, "reciprocal": pw.RECIPROCAL, "exp": pw.EXP, "log": pw.LOG,
                 "tanh": pw.TANH, "sigmoid": pw.SIGMOID, "sin": pw.SIN, "cos": pw.COS}
_TENSOR_OPS = {
    "aten::mm(Tensor self, Tensor mat2) -> Tensor": MM,
    # mm's body takes two 2-d operands only; any other matmul runs on the host.
    "aten::matmul(Tensor self, Tensor other) -> Tensor": MM,
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor": SUM_ALL,
    "aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor": SUM_DIMS,
    "aten::view(Tensor(a) self, int[] size) -> Tensor(a)": VIEW,
    "aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)": RESHAPE,
    "aten::t(Tensor(a) self) -> Tensor(a)": T,
    "aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)": SELECT,
    "aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)": EXPAND,
    "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)":
        CONTIGUOUS,
    "aten::size(Tensor self) -> int[]": SIZE,
    "aten::size(Tensor self, int dim) -> int": SIZE_DIM,
    "aten::dim(Tensor self) -> int": DIM,
    "aten::numel(Tensor self) -> int": NUMEL,
    "aten::len(t[] a) -> int": LEN,
    "aten::__getitem__(t[] list, int idx) -> t": GETITEM,
    "prim::ConstantChunk": CONSTANT_CHUNK,
    "prim::ListUnpack": LIST_UNPACK,
    "prim::BroadcastSizes": BROADCAST_SIZES,
}
# Ops that produce an int list natively (see _stays_immutable).
LIST_PRODUCERS = frozenset({SIZE, BROADCAST_SIZES, LIST_INT})


def _build() -> dict[str, int]:
    table: dict[str, int] = dict(_TENSOR_OPS)
    for key in OPS:
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
        elif types[0] == "Tensor" and name in _TENSOR_BINARY and len(types) >= 2 \
                and types[1] in ("Tensor", "Scalar") and "rounding_mode" not in key:
            table[key] = BINARY_BASE + _TENSOR_BINARY[name]
        elif types == ["Tensor"] and name in _TENSOR_UNARY and key.endswith("-> Tensor"):
            table[key] = UNARY_BASE + _TENSOR_UNARY[name]
    table["prim::ListConstruct"] = LIST_INT
    return table


NATIVE_OPS: dict[str, int] = _build()


def native_op_for(node) -> tuple[int, int, int]:
    """(native id, param0, param1) for ``node``; id -1 when it runs on the host."""
    entry = find_entry(node)
    if entry is None:
        return -1, 0, 0
    op = NATIVE_OPS.get(entry.schema, -1)
    if op < 0:
        return -1, 0, 0
    if op < BINARY_BASE:
        return op, RETURN_KINDS.get(entry.schema.rsplit("-> ", 1)[1], 0), 0
    if op == CONSTANT_CHUNK:
        chunks, dim = node.i("chunks"), node.i("dim")
        if not all(-(1 << 63) <= v < (1 << 63) for v in (chunks, dim)):
            return -1, 0, 0   # (an int64 parameter row cannot hold them: the host reports)
        return op, chunks, dim
    if op in LIST_PRODUCERS and not _stays_immutable(node):
        return -1, 0, 0
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
