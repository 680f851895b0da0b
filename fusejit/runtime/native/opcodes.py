"""Native op ids: one ``NativeOp`` member per native body, in named groups.

``native_op[pc]`` (``program.py``) holds one member per instruction; the loop dispatches on the
group first, then on the member, so every body compares against a member, never a number::

    %z : Float(64) = aten::add(%x, %y, %one)      NativeOp.ADD        (Group.TENSOR_ARITH)
    %b : bool = aten::lt(%i, %n)                  NativeOp.S_LT       (Group.SCALAR_BINARY)
    %a, %b = prim::ConstantChunk[chunks=2, dim=0] NativeOp.CONSTANT_CHUNK (Group.STRUCTURAL)
    %l : Tensor[] = prim::ListConstruct(%x, %y)   NativeOp.HOST: the host runs it

The members of a group are consecutive and the groups are in ascending order (checked on
import), so the loop tells groups apart with a few comparisons against each group's first
member (``SCALAR_FIRST`` ... ``KERNEL``). A fusion group with a compiled kernel in slot ``k``
gets ``KERNEL + k`` (``kernel_entry.py``), beyond every member.

``NativeOp[name]`` gives a member by name (the operator library's entries carry the name), and
``Group.of(op)`` the group of an id.
"""

from __future__ import annotations

from enum import IntEnum


class NativeOp(IntEnum):
    """The native op ids (see the module docstring). Scalar ops carry an ``S_`` prefix: they
    run TorchScript's ``int`` / ``float`` / ``bool`` arithmetic (``scalar_ops.py``)."""

    COVERED = -2   # run by the native op just before it (BROADCAST_LIST's last two)
    HOST = -1      # always run by the host
    # SCALAR_BINARY (scalar_ops.scalar_binary)
    S_ADD = 100
    S_SUB = 101
    S_MUL = 102
    S_DIV = 103
    S_FLOORDIV = 104
    S_REMAINDER = 105
    S_MIN = 106
    S_MAX = 107
    S_EQ = 108
    S_NE = 109
    S_LT = 110
    S_LE = 111
    S_GT = 112
    S_GE = 113
    S_AND = 114
    S_OR = 115
    S_XOR = 116
    # SCALAR_UNARY (scalar_ops.scalar_unary)
    S_NEG = 150
    S_ABS = 151
    S_NOT = 152
    S_INT = 153
    S_FLOAT = 154
    S_BOOL = 155
    S_SQRT = 156
    S_FLOOR = 157
    S_CEIL = 158
    # TENSOR_ARITH: a op (b * alpha), broadcast (pointwise.arith)
    ADD = 200
    SUB = 201
    MUL = 202
    DIV = 203
    MAXIMUM = 204
    MINIMUM = 205
    # TENSOR_COMPARE: a op b into a bool tensor (pointwise.compare)
    EQ = 210
    NE = 211
    LT = 212
    LE = 213
    GT = 214
    GE = 215
    # TENSOR_UNARY (pointwise.unary)
    NEG = 300
    ABS = 301
    RELU = 302
    FLOOR = 303
    CEIL = 304
    TRUNC = 305
    ROUND = 306
    SQRT = 307
    RSQRT = 308
    RECIPROCAL = 309
    EXP = 310
    LOG = 311
    TANH = 312
    SIGMOID = 313
    SIN = 314
    COS = 315
    # STRUCTURAL: views, reductions, mm and new tensors (tensor_ops.py, views.py)
    MM = 400
    SUM_ALL = 401
    SUM_DIMS = 402
    VIEW = 403
    RESHAPE = 404
    T = 405
    SELECT = 406
    EXPAND = 407
    CONTIGUOUS = 408
    CONSTANT_CHUNK = 409
    COPY_ = 410
    FULL_LIKE = 411
    EMPTY_LIKE = 412
    # LISTS: sizes and int lists (tensor_ops.py, lists.py)
    SIZE = 500
    SIZE_DIM = 501
    DIM = 502
    NUMEL = 503
    LIST_INT = 504
    LIST_UNPACK = 505
    LEN = 506
    GETITEM = 507
    BROADCAST_SIZES = 508
    BROADCAST_LIST = 509   # ListConstruct -> broadcast_tensors -> ListUnpack (lists.py)
    # KERNELS: KERNEL + slot, a fused kernel's native entry (kernel_entry.py)
    KERNEL = 1000


class Group:
    """The named groups of ``NativeOp``, as frozensets (for membership tests in Python)."""

    SCALAR_BINARY = frozenset(m for m in NativeOp if 100 <= m < 150)
    SCALAR_UNARY = frozenset(m for m in NativeOp if 150 <= m < 200)
    TENSOR_ARITH = frozenset(m for m in NativeOp if NativeOp.ADD <= m <= NativeOp.MINIMUM)
    TENSOR_COMPARE = frozenset(m for m in NativeOp if NativeOp.EQ <= m <= NativeOp.GE)
    TENSOR_UNARY = frozenset(m for m in NativeOp if 300 <= m < 400)
    STRUCTURAL = frozenset(m for m in NativeOp if 400 <= m < 500)
    LISTS = frozenset(m for m in NativeOp if 500 <= m < 1000)
    # unary tensor ops whose native body is exact (the others call libm: ``ULP_BOUNDS``)
    EXACT_UNARY = frozenset({NativeOp.NEG, NativeOp.ABS, NativeOp.RELU, NativeOp.FLOOR,
                             NativeOp.CEIL, NativeOp.TRUNC, NativeOp.ROUND, NativeOp.SQRT,
                             NativeOp.RSQRT, NativeOp.RECIPROCAL})
    # ops that produce an int list natively (``table._stays_immutable`` guards them)
    LIST_PRODUCERS = frozenset({NativeOp.SIZE, NativeOp.BROADCAST_SIZES, NativeOp.LIST_INT})
    # in loop order: (name, members)
    ORDER = ("SCALAR_BINARY", "SCALAR_UNARY", "TENSOR_ARITH", "TENSOR_COMPARE", "TENSOR_UNARY",
             "STRUCTURAL", "LISTS")

    @staticmethod
    def of(op: int) -> str:
        """The name of ``op``'s group ("KERNELS" for a kernel slot, "HOST" for -1 and -2)."""
        if op >= NativeOp.KERNEL:
            return "KERNELS"
        for name in Group.ORDER:
            if op in getattr(Group, name):
                return name
        return "HOST"


def _check_layout() -> None:
    """The loop's group tests compare against first members: each group must be consecutive
    and above the one before it."""
    last = NativeOp.HOST
    for name in Group.ORDER:
        members = sorted(getattr(Group, name))
        if members[0] <= last or members[-1] - members[0] != len(members) - 1:
            raise AssertionError(f"NativeOp group {name} is not consecutive and ordered")
        last = members[-1]
    if last >= NativeOp.KERNEL:
        raise AssertionError("NativeOp ids reach into the kernel slots")


_check_layout()

__all__ = ["Group", "NativeOp"]
