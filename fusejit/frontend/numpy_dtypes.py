"""NumPy's result dtypes for NumPy-spelled code, reached by casting operands of PyTorch's ops.

The ops keep PyTorch's semantics (the IR path runs them unchanged). When a jitted function is
scripted for typed arguments, each array operation first asks NumPy which dtype it would give,
by running the NumPy function itself on 0-d proxies of the operands' dtypes (Python numbers
stay Python numbers, so they are "weak" as NumPy 2 makes them, NEP 50). Array operands of
another dtype are cast to it with ``aten::type_as`` (which the fuser fuses), so PyTorch's op
then computes in, and returns, NumPy's dtype::

    i32 / 2          %c : Double() = prim::Constant[value={0}]()
                     %a : Double(*) = aten::type_as(%i32, %c)
                     %r : Double(*) = aten::div(%a, %two)          NumPy: float64
    f32 * 0.5        %r : Float(*) = aten::mul(%f32, %half)        no cast: float32 either way
    f32 + i64        both cast to Double, then aten::add           NumPy: float64

Operands whose dtype is unknown (a loop-carried value whose dtype changes) leave the op as it
is: PyTorch's rules then decide.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from ..ir.types import BoolType, FloatType, IntType, TensorType
from .builder import IRBuilder, Item, is_tensor

# What a run-time scalar of each IR type stands for when NumPy is asked (weak, like a literal).
_SCALAR_PROXIES = {IntType: 1, FloatType: 1.0, BoolType: True}


def dtype_of(item: Item) -> np.dtype | None:
    """The dtype of an array item whose dtype is known, else None."""
    if isinstance(item, Value) and isinstance(item.type, TensorType):
        st = item.type.scalar_type
        return st.dtype if st is not None else None
    return None


def _proxy(item: Item) -> Any:
    if isinstance(item, Value):
        if isinstance(item.type, TensorType):
            dtype = dtype_of(item)
            return None if dtype is None else np.ones((), dtype)
        return _SCALAR_PROXIES.get(type(item.type))
    if isinstance(item, (bool, int, float)):
        return item
    return None


def numpy_dtype(fn: Callable, items: list[Item]) -> np.dtype | None:
    """The dtype NumPy's ``fn`` gives for these operands (None: unknown, or NumPy refuses)."""
    proxies = [_proxy(i) for i in items]
    if any(p is None for p in proxies):
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = fn(*proxies)
    except Exception:  # noqa: BLE001 - NumPy refuses these dtypes: PyTorch's rules decide
        return None
    return result if isinstance(result, np.dtype) else np.asarray(result).dtype


def cast(b: IRBuilder, x: Value, dtype: np.dtype, what: str) -> Value:
    """``x`` as ``dtype``: ``aten::type_as`` against a 0-d constant of that dtype."""
    if dtype_of(x) == dtype:
        return x
    return b.emit(aten.type_as, [x, b.value_const(np.zeros((), dtype))], what)


def conform(b: IRBuilder, fn: Callable, items: list[Item], what: str,
            result: bool = True) -> list[Item]:
    """``items`` with every array cast to the dtype NumPy's ``fn`` computes in.

    ``result=True``: that is NumPy's result dtype (arithmetic, ``sqrt``...). For ops whose
    result is bool (comparisons) the arrays are cast to their common NumPy dtype instead, and
    only when they differ.
    """
    arrays = [i for i in items if is_tensor(i)]
    if not arrays:
        return items
    if result:
        target = numpy_dtype(fn, items)
    else:
        dtypes = {dtype_of(a) for a in arrays}
        if len(dtypes) < 2 or None in dtypes:
            return items
        target = np.result_type(*dtypes)
    if target is None:
        return items
    if target == np.dtype(np.bool_) and any(dtype_of(a) != target for a in arrays):
        return items  # a predicate (logical_not of floats): its input is not cast to bool
    return [cast(b, i, target, what) if is_tensor(i) else i for i in items]


__all__ = ["cast", "conform", "dtype_of", "numpy_dtype"]
