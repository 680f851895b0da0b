"""PyTorch's type promotion, over NumPy dtypes.

Operands fall in three priority groups: tensors with at least one dimension, 0-dim tensors, and
Python scalars ("wrapped numbers"). A lower group only matters when it is of a higher *category*
(bool < integer < floating) than every group above it::

    float32 tensor + float64 0-dim tensor  -> float32    (same category: the tensor wins)
    int64 tensor   + 0.5                   -> float32    (a Python float is the default dtype)
    bool tensor    + 1                     -> int64
    int32 tensor   + int64 0-dim tensor    -> int32

Within one group dtypes promote as usual, except that an integer never widens a float
(``float16 + int64 -> float16``), unlike NumPy.
"""

from __future__ import annotations

import numpy as np

DEFAULT_FLOAT = np.dtype(np.float32)
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)


def category(dtype: np.dtype) -> int:
    """0 for bool, 1 for integers, 2 for floating types."""
    if not isinstance(dtype, np.dtype):     # (np.dtype of a dtype costs ~0.15 us)
        dtype = np.dtype(dtype)
    if dtype == _BOOL:
        return 0
    return 2 if dtype.kind == "f" else 1


def promote_types(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    if a is None:
        return b
    if b is None:
        return a
    a, b = np.dtype(a), np.dtype(b)
    ca, cb = category(a), category(b)
    if ca != cb and 2 in (ca, cb):
        return a if ca == 2 else b
    return np.promote_types(a, b)


def scalar_dtype(value) -> np.dtype:
    """The dtype PyTorch gives a Python scalar: bool, int64, or the default float (float32)."""
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, (int, np.integer)):
        return _INT64
    return DEFAULT_FLOAT


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == 2:
        return higher
    if higher == _BOOL or category(lower) == 2:
        return promote_types(higher, lower)
    return higher


_WRAPPED = (bool, int, float, np.bool_, np.integer, np.floating)
_NDARRAY = np.ndarray
# result_type by what decides it: per operand, a wrapped number's type, or an array's dtype and
# whether it is 0-d (~0.4 us a call of two operands, against ~3.8 us worked out each time).
_RESULTS: dict[tuple, np.dtype] = {}


def result_type(*operands) -> np.dtype:
    """The dtype of a pointwise op over ``operands`` (arrays and Python scalars)."""
    key = []
    for x in operands:
        t = type(x)
        # (arrays first: the isinstance test of the wrapped types costs ~0.45 us)
        if t is not _NDARRAY and (t is float or t is int or t is bool or isinstance(x, _WRAPPED)):
            key.append(t)
        else:                       # (NumPy and CuPy arrays)
            key.append((x.dtype, x.ndim == 0))
    key = tuple(key)
    result = _RESULTS.get(key)
    if result is None:
        result = _result_type(operands)
        if len(_RESULTS) < 4096:
            _RESULTS[key] = result
    return result


def _result_type(operands: tuple) -> np.dtype:
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, _WRAPPED):
            wrapped = promote_types(wrapped, scalar_dtype(x))
        elif getattr(x, "ndim", 0) == 0:
            zero = promote_types(zero, x.dtype)
        else:
            dim = promote_types(dim, x.dtype)
    result = _combine(dim, _combine(zero, wrapped))
    if result is None:
        raise TypeError("result_type needs at least one operand")
    return np.dtype(result)


def result_type_from(kinds: list[tuple[np.dtype, str]]) -> np.dtype:
    """``result_type`` from descriptions: (dtype, ``"tensor" | "zero_dim" | "scalar"``) pairs.

    Code generators use this form, which knows dtypes and ranks but no values.
    """
    dim = zero = wrapped = None
    for dtype, kind in kinds:
        if kind == "scalar":
            wrapped = promote_types(wrapped, dtype)
        elif kind == "zero_dim":
            zero = promote_types(zero, dtype)
        else:
            dim = promote_types(dim, dtype)
    result = _combine(dim, _combine(zero, wrapped))
    if result is None:
        raise TypeError("result_type_from needs at least one operand")
    return np.dtype(result)


def float_to_int_via(source: np.dtype | None, target: np.dtype | None) -> str | None:
    """The signed dtype a float converts through on its way to a narrow integer ``target``,
    as NumPy's casts on x86 do: a float goes to int32 (to int64 for uint32) and is then cut to
    ``target``'s bits, so -1.7 is 255 as a uint8 and 300.5 is 44 (C leaves a float out of the
    target's range undefined, and LLVM's direct conversion gave 0 in vector loops and 255 in
    scalar ones). None where the conversion is direct: not a float, or a target of 32 signed
    or 64 bits."""
    if source is None or target is None or source.kind != "f" or target.kind not in "iu":
        return None
    if target.itemsize <= 2:
        return "int32"
    return "int64" if target == np.dtype(np.uint32) else None
