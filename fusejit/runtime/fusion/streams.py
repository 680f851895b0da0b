"""Streaming (non-temporal) stores for the outputs of kernels that move more memory than the
last-level cache holds.

A plain store to a line not in the cache first reads the line (read-for-ownership), so a map
of one input and one output moves three bytes for every two it needs. A non-temporal store
writes whole lines to memory around the cache and reads nothing. Such a store cannot be
written as an element store in the kernel's loop: LLVM's vectoriser declines a loop with a
non-temporal element store (the target allows them only for aligned vectors), so a kernel
that streams (``loops.stream_loops``) computes each strip into a small buffer that stays in
the L1 cache, vectorised as usual, and ``stream_copy`` moves the buffer to the output with
aligned 32-byte non-temporal stores written here in IR::

    for c in range(m):                   # vectorised, into the L1-resident buffer
        a0 = sr0[c]
        bw1[c] = -a0
    st.stream_copy(w1[s:s + m], bw1)     # vmovntdq, 32 bytes a store
    ...
    st.store_fence()                     # (once a tile: sfence)

Non-temporal stores are weakly ordered: ``store_fence`` (``sfence`` on x86) orders them before
the stores that follow, so the thread that joins a parallel kernel sees its results. Only big
kernels stream (``streams_from``): the output of a small one is read again soon, from the
cache, where a streamed one would have to come back from memory.

Measured on the AMD Zen 4 host (2 cores of an EPYC VM, 32 MiB L3, load 2-3), one thread's
CPU time, the same kernel with and without streaming in one process (medians of 11-31, runs
alternated): at 2^22 elements one-input maps ran 1.07-1.27x faster in float32 (neg 1.07-1.19,
relu 1.27, ceil 1.21, reciprocal 1.24) and 1.02-1.25x in float64, two-input maps (add, sub,
mul, div) 0.90-1.30x in float32 and 0.84-1.07x in float64 (the machine's other load moves
them as much); at 2^24 one-input maps 1.19-1.32x (float64 floor once 0.92), two-input ones
1.00-1.09x in float32, 0.99-1.13x in float64; the 12-op chain of ``benchmarks/fusion.py``
(2^24) 1.06x in float32, 1.14x in float64. Kernels that call vectorised math no longer stream
(``codegen._Generator.streamed``): single transcendentals (sinh, tanh) ran 12-17% slower so.
"""

from __future__ import annotations

import platform
from pathlib import Path

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

# Bytes a streaming store writes: an AVX2 register (on Zen 4 the memory-bound loops ran faster
# with 32-byte accesses than with 64-byte ones: ``codegen._Generator.vector_bits``).
CHUNK = 32
# Streamed stores fill whole cache lines. A line written partly by them and partly by plain
# stores (a strip's first or last bytes, where the output does not start on a line) is
# written to memory in pieces: float32 neg of 2^22 elements ran 0.57-0.64 ns/element with its
# output 16 bytes off a 32-byte boundary (the ends of each strip plain up to that boundary),
# 0.16-0.20 on one. So the ends up to line boundaries are plain stores.
LINE = 64
_I64 = ir.IntType(64)
_X86 = platform.machine().lower() in ("x86_64", "amd64")


def _last_level_cache_bytes(default: int = 32 << 20) -> int:
    """The largest cache of CPU 0 as Linux lists it, else ``default``."""
    sizes = []
    for entry in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        try:
            text = entry.read_text().strip()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in "KMG" else text
        if digits.isdigit():
            sizes.append(int(digits) * scale)
    return max(sizes, default=default)


# A kernel streams its outputs where the bytes it reads and writes exceed this: its first
# output lines are then out of the cache before it ends, so its consumer reads them from memory
# whether or not they were streamed.
STREAM_BYTES = _last_level_cache_bytes()


def streams_from(bytes_per_element: int) -> int:
    """The elements from which a kernel moving ``bytes_per_element`` streams its outputs."""
    return -(-STREAM_BYTES // max(bytes_per_element, 1))


@intrinsic
def stream_copy(typingctx, dst, src):
    """dst[:] = src[:dst.size] (1-d contiguous arrays of one dtype): the whole cache lines of
    ``dst`` by non-temporal stores, the ends before and after them by plain ones."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.ndim == src.ndim == 1 and dst.layout == src.layout == "C"
            and dst.dtype == src.dtype and dst.mutable):
        return None

    def codegen(context, builder, signature, args):
        out = make_array(signature.args[0])(context, builder, value=args[0])
        buf = make_array(signature.args[1])(context, builder, value=args[1])
        byte_ptr = ir.IntType(8).as_pointer()
        p = builder.bitcast(out.data, byte_ptr)
        q = builder.bitcast(buf.data, byte_ptr)
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        nbytes = builder.mul(out.nitems, ir.Constant(_I64, itemsize))
        mask = ir.Constant(_I64, LINE - 1)
        head = builder.and_(builder.neg(builder.ptrtoint(p, _I64)), mask)
        head = builder.select(builder.icmp_unsigned("<", head, nbytes), head, nbytes)
        cgutils.raw_memcpy(builder, p, q, head, 1)
        middle = builder.and_(builder.sub(nbytes, head), builder.not_(mask))
        vector = ir.VectorType(_I64, CHUNK // 8)
        nontemporal = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
        chunks = builder.udiv(middle, ir.Constant(_I64, CHUNK))
        with cgutils.for_range(builder, chunks) as loop:
            at = builder.add(head, builder.mul(loop.index, ir.Constant(_I64, CHUNK)))
            value = builder.load(builder.bitcast(builder.gep(q, [at]), vector.as_pointer()),
                                 align=1)
            store = builder.store(value, builder.bitcast(builder.gep(p, [at]),
                                                         vector.as_pointer()), align=CHUNK)
            store.set_metadata("nontemporal", nontemporal)
        done = builder.add(head, middle)
        cgutils.raw_memcpy(builder, builder.gep(p, [done]), builder.gep(q, [done]),
                           builder.sub(nbytes, done), 1)
        return context.get_dummy_value()
    return types.none(dst, src), codegen


@intrinsic
def store_fence(typingctx):
    """Order the non-temporal stores before this one before every later store (no code
    beyond one ``sfence`` on x86; a full fence elsewhere)."""
    def codegen(context, builder, signature, args):
        if _X86:
            fence = builder.module.declare_intrinsic("llvm.x86.sse.sfence", (),
                                                     ir.FunctionType(ir.VoidType(), ()))
            builder.call(fence, ())
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()
    return types.none(), codegen
