"""The native register file: scalar banks, a typed tensor file and the Python-side conversions.

Register ``r`` of one run is described by ``tags[r]``; its payload lives in the bank the tag
names::

    %n : int      tags[r] = INT      ints[r] = 3
    %f : float    tags[r] = FLOAT    floats[r] = 0.5
    %b : bool     tags[r] = BOOL     ints[r] = 1
    %o : None     tags[r] = NONE
    %x : Tensor   tags[r] = TENSOR   meta[r] = dtype, rank, offset, readonly, sizes, strides
                                     f32[r] (or f64/i64/b8[r], by dtype) = the 1-D buffer
                                     ints[r] = token of the Python array it came from, or 0
    %s : int[]    tags[r] = ILIST    ilists[r] = int64 array (lists made natively, never mutated)
    %l : Tensor[] tags[r] = PY       objects[r] on the Python side (the driver's)

Tensors are views (buffer, element offset, sizes, element strides): ``t``, ``select``,
``expand`` and ``view`` share the buffer, so aliasing is as in NumPy. The buffer lists are
Numba typed Lists with one slot per register plus a shared empty sentinel at index ``R``:
clearing a register stores the sentinel, which drops the buffer's reference (NRT frees it at
its last use). Only float32, float64, int64 and bool tensors of rank <= ``MAX_RANK`` are native;
any other value is a ``PY`` object and the instructions that touch it run on the host.

An array written from Python keeps its identity: its register carries a token (copied by
moves and assigns, reset by every native op), and reading the register hands back the
original object, as the reference engine would.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.typed import List

from .slots import data, items, slot_clear

# Register tags.
EMPTY, INT, FLOAT, BOOL, NONE, TENSOR, ILIST, PY = range(8)

# Native tensor dtypes (codes stored in meta[r, DTYPE]).
D_BOOL, D_I64, D_F32, D_F64 = range(4)
DTYPES = (np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))
DTYPE_CODE = {dtype: code for code, dtype in enumerate(DTYPES)}

MAX_RANK = 8
DTYPE, RANK, OFFSET, READONLY, SIZES = 0, 1, 2, 3, 4
STRIDES = SIZES + MAX_RANK
META_WIDTH = STRIDES + MAX_RANK

BUFFER_TYPES = (types.boolean[::1], types.int64[::1], types.float32[::1], types.float64[::1])


class RegisterFile:
    """One run's registers: NumPy banks shared with the native loop, typed buffer Lists, and
    the Python objects of ``PY`` registers."""

    __slots__ = ("size", "tags", "ints", "floats", "meta", "b8", "i64", "f32", "f64", "ilists",
                 "objects", "origins", "_next_token")

    def __init__(self, size: int):
        self.size = size
        self.tags = np.zeros(size, np.int64)
        self.ints = np.zeros(size, np.int64)
        self.floats = np.zeros(size, np.float64)
        self.meta = np.zeros((size, META_WIDTH), np.int64)
        self.b8, self.i64, self.f32, self.f64, self.ilists = new_buffer_lists(size)
        self.objects: list[Any] = [None] * size
        self.origins: dict[int, np.ndarray] = {}
        self._next_token = 1

    def lists(self) -> tuple:
        return self.b8, self.i64, self.f32, self.f64, self.ilists

    # -- Python values in and out --------------------------------------------------------------

    def write(self, r: int, value: Any) -> None:
        """Put a Python value in register ``r`` (native when it can be)."""
        if self.tags[r] != EMPTY or self.objects[r] is not None:
            self.clear(r)
        kind = type(value)
        if kind is bool:
            self.tags[r], self.ints[r] = BOOL, value
        elif kind is int and -(1 << 63) <= value < (1 << 63):
            self.tags[r], self.ints[r] = INT, value
        elif kind is float:
            self.tags[r], self.floats[r] = FLOAT, value
        elif value is None:
            self.tags[r] = NONE
        elif kind is np.ndarray and self._write_tensor(r, value):
            pass
        else:
            self.tags[r] = PY
            self.objects[r] = value

    def _write_tensor(self, r: int, a: np.ndarray) -> bool:
        code = DTYPE_CODE.get(a.dtype)
        if code is None or a.ndim > MAX_RANK:
            return False
        itemsize = a.itemsize
        if any(s % itemsize for s in a.strides):
            return False
        strides = [s // itemsize for s in a.strides]
        if a.size == 0:
            buffer, offset = np.empty(0, a.dtype), 0
        elif a.flags.c_contiguous and a.flags.writeable:
            buffer, offset = a.reshape(-1), 0
        else:
            low = sum((n - 1) * s for n, s in zip(a.shape, strides) if s < 0)
            high = sum((n - 1) * s for n, s in zip(a.shape, strides) if s > 0)
            buffer = _flat_buffer(a, a.ctypes.data + low * itemsize, high - low + 1)
            offset = -low
        row = self.meta[r]
        row[DTYPE], row[RANK], row[OFFSET] = code, a.ndim, offset
        row[READONLY] = not a.flags.writeable
        row[SIZES:SIZES + a.ndim] = a.shape
        row[STRIDES:STRIDES + a.ndim] = strides
        put_buffer(self.tags, self.b8, self.i64, self.f32, self.f64, r, code, buffer)
        token, self._next_token = self._next_token, self._next_token + 1
        self.ints[r] = token
        self.origins[token] = a
        return True

    def prune_origins(self) -> None:
        """Forget the Python arrays no register refers to any more (they may be freed)."""
        if self.origins:
            live = set(self.ints[self.tags == TENSOR].tolist())
            for token in [t for t in self.origins if t not in live]:
                del self.origins[token]

    def read(self, r: int) -> Any:
        """The Python value of register ``r``."""
        tag = self.tags[r]
        if tag == INT:
            return int(self.ints[r])
        if tag == FLOAT:
            return float(self.floats[r])
        if tag == BOOL:
            return bool(self.ints[r])
        if tag == TENSOR:
            original = self.origins.get(int(self.ints[r]))
            return original if original is not None else self._read_tensor(r)
        if tag == ILIST:
            return [int(x) for x in get_ilist(self.ilists, r)]
        if tag == PY:
            return self.objects[r]
        return None

    def _read_tensor(self, r: int) -> np.ndarray:
        row = self.meta[r].tolist()
        code, rank, offset = row[DTYPE], row[RANK], row[OFFSET]
        buffer = _get(self.lists()[code], r)
        shape = tuple(row[SIZES:SIZES + rank])
        strides = row[STRIDES:STRIDES + rank]
        itemsize = buffer.itemsize
        numel = math.prod(shape)
        if numel == 0:
            array = np.empty(shape, buffer.dtype)
        elif offset == 0 and strides == _contiguous_strides(shape) and len(buffer) == numel:
            array = buffer.reshape(shape)
        else:
            array = np.lib.stride_tricks.as_strided(
                buffer[offset:], shape, tuple(s * itemsize for s in strides))
        if row[READONLY]:
            array.flags.writeable = False
        return array

    def take(self, r: int, move: bool) -> Any:
        """Read register ``r``, clearing it when this is its last use."""
        value = self.read(r)
        if move:
            self.clear(r)
        return value

    def reset(self) -> None:
        """Empty every register (a finished run leaves most of them empty already)."""
        if self.tags.any():
            clear_all(self.tags, self.meta, *self.lists())
        self.objects = [None] * self.size
        self.origins.clear()

    def clear(self, r: int) -> None:
        tag = self.tags[r]
        if tag == TENSOR:
            _drop(self.lists()[self.meta[r, DTYPE]], r)
        elif tag == ILIST:
            _drop(self.ilists, r)
        self.tags[r] = EMPTY
        self.objects[r] = None


class _BufferOwner:
    """Exposes a span of an array's memory as a writable 1-D buffer, keeping the array alive."""

    def __init__(self, base: np.ndarray, address: int, length: int):
        self.base = base
        self.__array_interface__ = {"shape": (length,), "typestr": base.dtype.str,
                                    "data": (address, False), "version": 3}


def _flat_buffer(a: np.ndarray, address: int, length: int) -> np.ndarray:
    # Native ops never write through an input's buffer; in-place ops run on the host, through
    # an array rebuilt with the input's own read-only flag.
    return np.asarray(_BufferOwner(a, address, length))


def _contiguous_strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


# -- native helpers (cached: they are also called from the loop) -------------------------------

# The small helpers of the loop's hot paths: compiled once per signature (and cached), then
# inlined by LLVM (``forceinline`` gives them its ``alwaysinline``), under the loop's numpy error
# model. Numba's own inlining (``inline="always"``) copies a helper's IR into its caller before
# typing, so the loop was typed and lowered again with every helper at every call site
# (``clear_slots``, ``write_tensor``, ``move_register``, the fast paths...), nested.
FORCEINLINE = {"forceinline": True, "cache": True, "error_model": "numpy", "nogil": True}


@njit(cache=True)
def new_buffer_lists(size):
    """Five typed Lists of ``size`` + 1 slots, each slot the shared empty sentinel."""
    b8 = List.empty_list(types.boolean[::1])
    i64 = List.empty_list(types.int64[::1])
    f32 = List.empty_list(types.float32[::1])
    f64 = List.empty_list(types.float64[::1])
    ilists = List.empty_list(types.int64[::1])
    eb, ei, ef, ed, el = (np.empty(0, np.bool_), np.empty(0, np.int64),
                          np.empty(0, np.float32), np.empty(0, np.float64),
                          np.empty(0, np.int64))
    for _ in range(size + 1):
        b8.append(eb)
        i64.append(ei)
        f32.append(ef)
        f64.append(ed)
        ilists.append(el)
    return b8, i64, f32, f64, ilists


@njit(types.ListType(types.int64[::1])(types.int64[::1], types.int64[::1]), cache=True)
def int_list_table(values, bounds):
    """A typed List whose item ``k`` is ``values[bounds[k]:bounds[k + 1]]`` (a copy). Made
    here, not from Python: Python's typed-List constructor and ``append`` are compiled again
    in every process (~0.2 s)."""
    table = List.empty_list(types.int64[::1])
    for k in range(len(bounds) - 1):
        table.append(values[bounds[k]:bounds[k + 1]].copy())
    return table


@njit(**FORCEINLINE)
def clear_slots(tags, meta, b8, i64, f32, f64, ilists, sentinel, r):
    """``clear_register`` over data pointers and List ``items`` (``slots``), for the loop: a
    helper taking arrays or Lists costs an atomic reference count per argument and call."""
    tag = tags[r]
    if tag == TENSOR:
        code = meta[r * META_WIDTH + DTYPE]
        if code == D_F32:
            slot_clear(f32, r, sentinel)
        elif code == D_F64:
            slot_clear(f64, r, sentinel)
        elif code == D_I64:
            slot_clear(i64, r, sentinel)
        else:
            slot_clear(b8, r, sentinel)
    elif tag == ILIST:
        slot_clear(ilists, r, sentinel)
    tags[r] = EMPTY


@njit(**FORCEINLINE)
def copy_meta(dst, src):
    """``dst[:] = src`` for two meta rows, without the slice assignment's shape check: the
    code formatting its error message took ~4 s of the loop's cold compile (one core)."""
    for c in range(META_WIDTH):
        dst[c] = src[c]


@njit(cache=True)
def clear_register(tags, meta, b8, i64, f32, f64, ilists, r):
    """Empty register ``r``, dropping its buffer (the sentinel takes its slot)."""
    clear_slots(data(tags), data(meta), items(b8), items(i64), items(f32), items(f64),
                items(ilists), len(tags), r)


@njit(cache=True)
def clear_all(tags, meta, b8, i64, f32, f64, ilists):
    for r in range(len(tags)):
        if tags[r] != EMPTY:
            clear_register(tags, meta, b8, i64, f32, f64, ilists, r)


@njit(cache=True)
def _put(buffers, r, buffer):
    buffers[r] = buffer


def put_buffer(tags, b8, i64, f32, f64, r: int, code: int, buffer: np.ndarray) -> None:
    """Store ``buffer`` (of the dtype ``code`` names) as register ``r``'s tensor buffer."""
    _put((b8, i64, f32, f64)[code], r, buffer)
    tags[r] = TENSOR


@njit(cache=True)
def _get(buffers, r):
    return buffers[r]


@njit(cache=True)
def _drop(buffers, r):
    """Slot ``r`` takes the shared empty sentinel (the last slot), dropping its buffer."""
    buffers[r] = buffers[len(buffers) - 1]


def get_ilist(ilists, r: int) -> np.ndarray:
    return _get(ilists, r)


@njit(cache=True)
def put_ilist(tags, ilists, r, values):
    ilists[r] = values
    tags[r] = ILIST
