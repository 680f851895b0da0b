"""Calling fused kernels from the native loop: the entry signature, the per-slot state row and
the register helpers a generated entry point uses.

Each fusion-group instruction of a ``Code`` gets a kernel slot. Its row of ``kernel_rows`` is
zero until the host has run the group twice through its ``FusedKernel`` (``BIND_ON_RUN`` in
``program.py``: a graph run once compiles no entry); the driver then binds the slot: it stores
the generated ``native_serial`` / ``native_parallel`` entry of the variant that call used in
``kernel_fns[slot]`` and fills the row with what that call's launch plan depends on (the
inputs' sizes and strides) and what it computed (the plan's ``meta``, the outputs' shapes).
From then on the loop calls the entry directly; the entry checks that its registers still hold
tensors of exactly those dtypes, ranks, sizes and strides, and returns False (nothing changed:
the host runs the group) when they do not::

    row = [bound, numel, 0 ... | sizes_0, strides_0, sizes_1, ... | plan meta | rank_0, sizes_0 ...]
           HEADER                KEY (2 * rank per tensor input)    static offsets per variant

Strides of size-1 dimensions are not compared: a plan never reads them. A slot is written once
(``bound`` last) and never rebound, so a thread running natively never sees half a row.
"""

from __future__ import annotations

import numpy as np
from numba import carray, njit, types
from numba.typed import List

from .moves import write_tensor
from .registers import DTYPE, MAX_RANK, META_WIDTH, OFFSET, RANK, SIZES, STRIDES, TENSOR
from .slots import at as _at
from .slots import data, items, slot_put

# Row layout: a header, then the key, plan meta and outputs at offsets fixed per variant.
BOUND, NUMEL = 0, 1
HEADER = 4
OUTPUT_WIDTH = 1 + MAX_RANK

_LISTS = (types.ListType(types.boolean[::1]), types.ListType(types.int64[::1]),
          types.ListType(types.float32[::1]), types.ListType(types.float64[::1]),
          types.ListType(types.int64[::1]))
ENTRY_SIGNATURE = types.boolean(
    types.int64[::1], types.int64[::1], types.float64[::1], types.int64[:, ::1], *_LISTS,
    types.int64[::1], types.int64, types.int64, types.int64[::1])
ENTRY_TYPE = types.FunctionType(ENTRY_SIGNATURE)


def row_width(n_tensors: int, n_operands: int, n_outputs: int) -> int:
    """An upper bound of one slot's row length for any ranks up to ``MAX_RANK``."""
    key = 2 * MAX_RANK * n_tensors
    plan = 4 + MAX_RANK + n_operands * (1 + MAX_RANK)
    return HEADER + key + plan + n_outputs * OUTPUT_WIDTH


# The helpers every generated entry calls: compiled once per signature (and cached on disk),
# then inlined by LLVM (``forceinline``: its ``alwaysinline``), under the entries' numpy error
# model. Numba's own inlining (``inline="always"``) re-typed and re-lowered their bodies, with
# ``write_tensor``'s, in every entry: about two thirds of an entry's compile time.
_HELPER = {"cache": True, "error_model": "numpy", "nogil": True, "forceinline": True}


@njit(ENTRY_SIGNATURE, cache=True, nogil=True)
def declined(tags, ints, floats, meta, b8, i64, f32, f64, ilists, int_data, in_start, out_start,
             row):
    """The entry of a slot never bound: the host runs the group."""
    return False


@njit(**_HELPER)
def matches(tags, meta, r, code, rank, row, at):
    """Does register ``r`` hold a tensor of dtype ``code`` and rank ``rank`` with the sizes and
    strides recorded at ``row[at:]``?"""
    if tags[r] != TENSOR or meta[r, DTYPE] != code or meta[r, RANK] != rank:
        return False
    for d in range(rank):
        n = meta[r, SIZES + d]
        if n != row[at + d]:
            return False
        if n != 1 and meta[r, STRIDES + d] != row[at + rank + d]:
            return False
    return True


@njit(**_HELPER)
def output_numel(row, at):
    n = 1
    for d in range(row[at]):
        n *= row[at + 1 + d]
    return n


@njit(**_HELPER)
def put_output(tags, ints, meta, b8, i64, f32, f64, ilists, buffers, r, code, buffer, row, at):
    """Register ``r`` = a new contiguous tensor over ``buffer`` (``buffers`` is the typed List
    of its dtype ``code``) with the shape recorded at ``row[at:]``."""
    p = data(meta)
    # (its own meta row as the meta to copy: the layout is written right after)
    write_tensor(data(tags), data(ints), p, items(b8), items(i64), items(f32), items(f64),
                 items(ilists), len(tags), r, code, carray(_at(p, r * META_WIDTH), META_WIDTH),
                 0)
    rank = row[at]
    meta[r, RANK], meta[r, OFFSET] = rank, 0
    step = 1
    for d in range(rank - 1, -1, -1):
        n = row[at + 1 + d]
        meta[r, SIZES + d] = n
        meta[r, STRIDES + d] = step
        step *= max(n, 1)
    slot_put(items(buffers), r, buffer)


# The typed List of entries is made and written by these cached functions with explicit
# signatures: Python's own ``List.append`` / ``__setitem__`` compile a specialisation for a
# FunctionType item in every process (about 1 s each).
_ENTRIES = types.ListType(ENTRY_TYPE)


@njit(_ENTRIES(), cache=True)
def _new_entries():
    return List.empty_list(ENTRY_TYPE)


@njit(types.void(_ENTRIES, ENTRY_TYPE), cache=True)
def _append_entry(entries, entry):
    entries.append(entry)


@njit(types.void(_ENTRIES, types.int64, ENTRY_TYPE), cache=True)
def set_entry(entries, slot, entry):
    """``entries[slot] = entry`` (a dispatcher compiled for ``ENTRY_SIGNATURE``)."""
    entries[slot] = entry


def new_entries(n_slots: int):
    """A typed List of ``n_slots`` entries, each ``declined``."""
    entries = _new_entries()
    for _ in range(n_slots):
        _append_entry(entries, declined)
    return entries


def empty_rows(n_slots: int, width: int) -> np.ndarray:
    return np.zeros((n_slots, max(width, HEADER)), np.int64)


__all__ = ["BOUND", "ENTRY_SIGNATURE", "ENTRY_TYPE", "HEADER", "NUMEL", "OUTPUT_WIDTH",
           "declined", "empty_rows", "matches", "new_entries", "output_numel", "put_output",
           "row_width", "set_entry"]
