"""The memory of big kernel outputs: page-aligned, and reused once nothing refers to it.

glibc serves an allocation above its mmap threshold (at most 32 MiB) with fresh pages, which the
kernel zeroes on first touch; NumPy's arrays of that size get the same. For a cheap kernel that
fault-and-zero costs as much as the kernel: float64 ``neg`` of 2^22 elements (32 MiB) took
1.60 ns/element into a new array and 0.76 into an old one, and NumPy pays the same 1.60. Outputs
of at least ``MIN_BYTES`` therefore come from buffers this module keeps. A buffer is handed out
again only when the pool holds the sole reference to it: every array whose memory lies in it
(the output, its views, arrays made from its buffer) refers to it through its ``base`` chain,
so a buffer some value still reads is never reused::

    out = take((4096, 1024), np.float64)     # a view of a pooled buffer, page-aligned
    view = out[1:]
    del out                                  # view still refers to the buffer: not reused
    del view                                 # now it is: the next take of that size gets it

The pool holds at most ``$FUSEJIT_OUTPUT_POOL_MB`` MiB (default 256; 0 turns it off), read at
the first big output. Buffers over the limit are plain NumPy arrays; a free buffer of another
size is dropped to make room for a new one.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

from ...errors import FusejitError

# Outputs smaller than this are plain np.empty: glibc's mmap threshold rises (to at most
# 32 MiB) as big blocks are freed, so below it malloc reuses memory without faults. Pooling
# them made things worse: float32 neg of 2^22 (16 MiB) ran 0.49 ns/element pooled against
# 0.30 plain (NumPy 0.41 and 0.28 in those runs): a pooled buffer is memory NumPy's own
# outputs cannot reuse, so more of it competes for the caches.
MIN_BYTES = 32 << 20
# ... and the outputs of a call that makes several, from this many bytes together (at 2.4 MB,
# two outputs of a leaky integrate-and-fire step, np.empty's were as fast).
MIN_SEVERAL_BYTES = 4 << 20
_ROUND = 2 << 20            # buffer sizes are rounded up to this (a huge page)
# Outputs start on a page. An output a little ahead of its input in the page (NumPy's big
# arrays start 16 bytes into one) makes the loop's loads wait on its stores to the same address
# bits ("4K aliasing"): with outputs 64-byte aligned (48 bytes ahead of such an input), one
# thread, ns an element, 64 -> page: float64 cosh of 2^22 1.13 -> 1.01, expm1 1.32 -> 1.22,
# float32 tanh of 2^23 0.51 -> 0.42; neg, mul even. (16 bytes into the page, as NumPy's, was
# as good for those, but float64 neg, whose stores stream, ran 0.63 -> 0.78: its strips
# began and ended off cache lines.)
_ALIGN = 4096

_lock = threading.Lock()
_held: list[np.ndarray] = []        # the pool's buffers (uint8), in use or free
_limit: list[int] = []              # bytes, once read from the environment


def _limit_bytes() -> int:
    if not _limit:
        text = os.environ.get("FUSEJIT_OUTPUT_POOL_MB", "").strip()
        try:
            mib = int(text) if text else 256
        except ValueError:
            raise FusejitError(f"FUSEJIT_OUTPUT_POOL_MB must be an int, got {text!r}") from None
        if mib < 0:
            raise FusejitError(f"FUSEJIT_OUTPUT_POOL_MB must be >= 0, got {mib}")
        _limit.append(mib << 20)
    return _limit[0]


def _nbytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    count = 1
    for size in shape:
        count *= size
    return count * dtype.itemsize


def pooled(shape: tuple[int, ...], dtype: np.dtype) -> bool:
    """Does ``take`` serve an array of ``shape`` and ``dtype`` from the pool (its size, and the
    pool's limit, which is read once)? Callers that remember this call ``np.empty`` for the
    others directly."""
    return _nbytes(shape, np.dtype(dtype)) >= MIN_BYTES and _limit_bytes() > 0


# A call with an input of this many bytes in float64 runs on the host's loop, not the native
# one (``host_sized``).
HOST_LOOP_BYTES = 2 << 20


def host_sized(inputs) -> bool:
    """Should a call with ``inputs`` run on the host's loop, not the native one? The native
    loop (``runtime/interpreter.py``) makes its arrays with Numba's allocator: above glibc's
    mmap threshold that is fresh memory, a page fault per 4 KiB, where NumPy's arrays of 4 MiB
    and more take huge pages and this pool serves the biggest; its saving, a Python round trip
    per op (~10 us), is small next to ops on such arrays. So an input whose float64
    counterpart (results are often wider: ``np.arange(n)`` times a float32 signal) has
    ``HOST_LOOP_BYTES`` sends the call to the host's loop. A 5-step loop of one fused kernel
    over two float64 arrays, native against host loop: 2^22 elements 219 against 21 ms (NumPy
    98); 2^20 34 against 12 ms (NumPy 22-26); 2^18 4.6 against 4.4 ms; 2^17 3.2 against 3.4 ms;
    2^13 53 against 87 us."""
    for x in inputs:
        if type(x) is np.ndarray and x.size * 8 >= HOST_LOOP_BYTES:
            return True
    return False


def pooled_together(shapes, dtypes) -> bool:
    """Do the outputs of one call, of ``shapes`` and ``dtypes``, come from the pool
    (``take_all``): one of at least ``MIN_BYTES``, or several of at least
    ``MIN_SEVERAL_BYTES`` together? Several freed together are what glibc gives back to the
    system (its trim threshold is twice the mmap threshold, which rises only to the biggest
    block freed), and the next call faults them in again: a kernel making two float64
    arrays of 10^6 elements took 2.4-10 ms a call (~800 faults) against 0.4 pooled, and an
    SIR step writing three of 2 * 10^5 (4.8 MB) ran at 0.48x NumPy, 3.6x pooled."""
    total = count = 0
    for shape, dtype in zip(shapes, dtypes):
        total += _nbytes(shape, np.dtype(dtype))
        count += 1
    return total >= (MIN_BYTES if count == 1 else MIN_SEVERAL_BYTES) and _limit_bytes() > 0


def take_all(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``take``, from the pool whatever the size (one of the outputs ``pooled_together``
    pools)."""
    return take(shape, dtype, 0)


def take(shape: tuple[int, ...], dtype: np.dtype, least: int | None = None) -> np.ndarray:
    """An uninitialised C-contiguous array of ``shape`` and ``dtype``, like ``np.empty``
    (page-aligned when it comes from the pool: from ``least`` bytes, ``MIN_BYTES`` unless
    given)."""
    dtype = np.dtype(dtype)
    nbytes = _nbytes(shape, dtype)
    if nbytes < (MIN_BYTES if least is None else least) or not nbytes or not _limit_bytes():
        return np.empty(shape, dtype)
    size = -(-(nbytes + _ALIGN) // _ROUND) * _ROUND
    with _lock:
        buffer = _reuse(size)
        if buffer is None:
            buffer = np.empty(size, np.uint8)
            _keep(buffer)
        start = -buffer.ctypes.data % _ALIGN
        # (made under the lock: from here on the buffer's reference count says it is in use)
        return buffer[start:start + nbytes].view(dtype).reshape(shape)


def out_for(dtype: np.dtype, *operands) -> np.ndarray | None:
    """Pooled memory for the result, in ``dtype``, of an elementwise NumPy call on
    ``operands`` (arrays and scalars), where it is big enough for the pool and every array
    operand is C-contiguous (the result NumPy would make is then C-contiguous too); None
    otherwise, and NumPy allocates. The interpreter's host ops pass it as ``out=``
    (``oplib.pointwise.pooled_out``), so that a big op of a graph run op by op skips the page
    faults of fresh memory as fused kernels do: float64 ``x + y`` of 2^22 elements ran 1.93 ->
    1.16 ns/element of one thread's CPU time."""
    shapes = []
    for op in operands:
        if isinstance(op, np.ndarray):
            if not op.flags.c_contiguous:
                return None
            shapes.append(op.shape)
    shape = shapes[0] if shapes else ()
    if any(s != shape for s in shapes):
        # (only where the shapes differ: with np.broadcast_shapes every time, this function
        # took 6-7 us a call of float32 x * y of 10^6 elements, 2.4-3.2 without)
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            return None           # (NumPy's own call reports it)
    return take(shape, dtype) if pooled(shape, dtype) else None


def _reuse(size: int) -> np.ndarray | None:
    """A free pooled buffer of ``size`` bytes; one whose only reference is ``_held``'s."""
    for i in range(len(_held)):
        # (two references: the list's and getrefcount's argument)
        if _held[i].nbytes == size and sys.getrefcount(_held[i]) == 2:
            return _held[i]
    return None


def _keep(buffer: np.ndarray) -> None:
    """Pool ``buffer`` if the limit allows, after dropping free buffers to make room."""
    limit = _limit_bytes()
    held = sum(b.nbytes for b in _held)
    i = 0
    while held + buffer.nbytes > limit and i < len(_held):
        if sys.getrefcount(_held[i]) == 2:
            held -= _held.pop(i).nbytes
        else:
            i += 1
    if held + buffer.nbytes <= limit:
        _held.append(buffer)


def pooled_bytes() -> tuple[int, int]:
    """(bytes the pool holds, of which free): for tests and diagnostics."""
    with _lock:
        total = sum(b.nbytes for b in _held)
        free = sum(_held[i].nbytes for i in range(len(_held))
                   if sys.getrefcount(_held[i]) == 2)
    return total, free
