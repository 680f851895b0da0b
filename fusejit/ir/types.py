"""The IR's type system, printed exactly as TorchScript prints it.

::

    Float(3, 20, strides=[20, 1], requires_grad=0, device=cpu)   complete tensor
    Float(*, *, device=cpu)                                       rank known, sizes not
    Tensor(device=cpu)                                            dtype and rank unknown
    Tensor                                                        nothing known
    int  float  bool  str  NoneType  int[]  Tensor[]  (Tensor, int)  Tensor?  Future[int]

Types are immutable value objects; equal types compare and hash equal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from ..errors import DTypeError, IRError
from .limits import MAX_TYPE_DEPTH


class ScalarType(Enum):
    """Tensor element types, with PyTorch's names and their NumPy dtypes."""

    Byte = "uint8"
    Char = "int8"
    Short = "int16"
    Int = "int32"
    Long = "int64"
    Half = "float16"
    Float = "float32"
    Double = "float64"
    Bool = "bool"
    UInt16 = "uint16"
    UInt32 = "uint32"
    UInt64 = "uint64"

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.value)

    @property
    def is_floating(self) -> bool:
        return self in (ScalarType.Half, ScalarType.Float, ScalarType.Double)

    @property
    def is_integral(self) -> bool:
        return not self.is_floating and self is not ScalarType.Bool

    @classmethod
    def from_dtype(cls, dtype) -> ScalarType:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            raise DTypeError(f"{dtype!r} is not a NumPy dtype"[:200]) from None
        for st in cls:
            if st.value == name:
                return st
        raise DTypeError(f"no TorchScript scalar type for dtype {name}; supported: "
                         f"{', '.join(st.value for st in cls)}")


class Type:
    """Base of all IR types."""

    __slots__ = ()

    def is_subtype_of(self, other: Type) -> bool:
        if self == other or isinstance(other, AnyType):
            return True
        if isinstance(other, OptionalType):
            return isinstance(self, NoneType) or self.is_subtype_of(other.elem)
        if isinstance(other, TensorType) and isinstance(self, TensorType):
            return other.is_unknown() or other == self
        if isinstance(other, NumberType):
            return isinstance(self, (IntType, FloatType, BoolType, NumberType))
        return False


def _set_depth(type_: Type, inner: tuple) -> None:
    """Record a container type's nesting depth, refusing one deeper than ``MAX_TYPE_DEPTH``."""
    depth = 1 + max((getattr(t, "_depth", 0) for t in inner), default=0)
    if depth > MAX_TYPE_DEPTH:
        raise IRError(f"a type nested deeper than {MAX_TYPE_DEPTH} levels")
    object.__setattr__(type_, "_depth", depth)


@dataclass(frozen=True)
class _Simple(Type):
    def __str__(self) -> str:
        return self.NAME  # type: ignore[attr-defined]


@dataclass(frozen=True)
class IntType(_Simple):
    NAME = "int"


@dataclass(frozen=True)
class FloatType(_Simple):
    NAME = "float"


@dataclass(frozen=True)
class BoolType(_Simple):
    NAME = "bool"


@dataclass(frozen=True)
class StringType(_Simple):
    NAME = "str"


@dataclass(frozen=True)
class NoneType(_Simple):
    NAME = "NoneType"


@dataclass(frozen=True)
class NumberType(_Simple):
    """A scalar whose kind (int, float, bool) is only known at run time (``Scalar`` in schemas)."""

    NAME = "Scalar"


@dataclass(frozen=True)
class DeviceType(_Simple):
    NAME = "Device"


@dataclass(frozen=True)
class AnyType(_Simple):
    NAME = "Any"


@dataclass(frozen=True)
class ListType(Type):
    elem: Type

    def __post_init__(self):
        _set_depth(self, (self.elem,))

    def __str__(self) -> str:
        return f"{self.elem}[]"


@dataclass(frozen=True)
class TupleType(Type):
    elems: tuple[Type, ...]

    def __post_init__(self):
        _set_depth(self, self.elems)

    def __str__(self) -> str:
        return "(" + ", ".join(str(e) for e in self.elems) + ")"


@dataclass(frozen=True)
class OptionalType(Type):
    elem: Type

    def __post_init__(self):
        _set_depth(self, (self.elem,))

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class FutureType(Type):
    elem: Type

    def __post_init__(self):
        _set_depth(self, (self.elem,))

    def __str__(self) -> str:
        return f"Future[{self.elem}]"


@dataclass(frozen=True)
class TensorType(Type):
    """A tensor whose properties may each be unknown (``None``).

    ``sizes`` is ``None`` when the rank is unknown, else a tuple whose entries are ints or ``None``;
    ``strides`` likewise. ``device`` is a string such as ``"cpu"`` or ``"cuda:0"``.
    """

    scalar_type: ScalarType | None = None
    sizes: tuple[int | None, ...] | None = None
    strides: tuple[int | None, ...] | None = None
    requires_grad: bool | None = None
    device: str | None = None

    @property
    def rank(self) -> int | None:
        return None if self.sizes is None else len(self.sizes)

    @property
    def dtype(self) -> np.dtype | None:
        return None if self.scalar_type is None else self.scalar_type.dtype

    def is_unknown(self) -> bool:
        return (self.scalar_type is None and self.sizes is None and self.strides is None
                and self.requires_grad is None and self.device is None)

    def is_complete(self) -> bool:
        """Dtype, device, every size and every stride known."""
        return (self.scalar_type is not None and self.device is not None
                and self.sizes is not None and all(s is not None for s in self.sizes)
                and self.strides is not None and all(s is not None for s in self.strides))

    def with_(self, **changes) -> TensorType:
        return replace(self, **changes)

    def dimensioned_only(self) -> TensorType:
        """Forget sizes and strides but keep the rank (what the fuser gives group outputs)."""
        rank = self.rank
        return replace(self, sizes=None if rank is None else (None,) * rank, strides=None)

    def contiguous(self) -> TensorType:
        if self.sizes is None or any(s is None for s in self.sizes):
            return self
        strides, acc = [], 1
        for s in reversed(self.sizes):
            strides.append(acc)
            acc *= max(s, 1)
        return replace(self, strides=tuple(reversed(strides)))

    @classmethod
    def of_array(cls, array, device: str = "cpu", requires_grad: bool | None = False) -> TensorType:
        """The complete type of a NumPy (or CuPy) array, strides counted in elements."""
        itemsize = array.dtype.itemsize
        return cls(ScalarType.from_dtype(array.dtype), tuple(int(s) for s in array.shape),
                   tuple(int(s) // itemsize for s in array.strides), requires_grad, device)

    def __str__(self) -> str:
        head = self.scalar_type.name if self.scalar_type is not None else "Tensor"
        parts: list[str] = []
        if self.sizes is not None:
            parts.extend("*" if s is None else str(s) for s in self.sizes)
            strides_known = (len(self.sizes) > 0 and self.strides is not None
                             and len(self.strides) == len(self.sizes)
                             and all(s is not None for s in self.strides))
            if strides_known:
                parts.append("strides=[" + ", ".join(str(s) for s in self.strides) + "]")
        if self.requires_grad is not None:
            parts.append(f"requires_grad={int(self.requires_grad)}")
        if self.device is not None:
            parts.append(f"device={self.device}")
        if self.sizes is None and not parts:
            return head
        return head + "(" + ", ".join(parts) + ")"


INT = IntType()
FLOAT = FloatType()
BOOL = BoolType()
STR = StringType()
NONE = NoneType()
NUMBER = NumberType()
DEVICE = DeviceType()
ANY = AnyType()
TENSOR = TensorType()


def is_tensor(t: Type) -> bool:
    return isinstance(t, TensorType)


def is_scalar(t: Type) -> bool:
    return isinstance(t, (IntType, FloatType, BoolType, NumberType))

# Scalar and simple types by the name TorchScript prints (and schemas use) for them.
SIMPLE_TYPES: dict[str, Type] = {
    "int": INT, "float": FLOAT, "bool": BOOL, "str": STR, "NoneType": NONE, "Scalar": NUMBER,
    "number": NUMBER, "Device": DEVICE, "Any": ANY,
}
