"""Op bodies the loop calls through their addresses: compiled on their own, never linked in.

Numba links the module of every function a function calls into the caller's and optimises the
whole again, so each big body under ``run_loop`` (the general pointwise paths over three
dtypes, the shape, reduction and list ops, ``mm``, the fuser's list broadcast) was optimised by
itself, again inside its caller and again inside the loop, whose one giant function LLVM then
optimised with all of it in view (~20 s of the ~100 s cold compile, one core). These bodies
are rarely hot (they allocate; the hot paths stay inlined in the loop), so the loop calls them
through a pointer instead: each is compiled (or loaded from the disk cache) by itself for one
fixed signature, ``addresses()`` reads their entry points once a process, and the state hands
the loop that table (``LoopArgs.bodies``)::

    done = BINARY(bodies, regs, op, int_data, in_start, in_size, out)   # bodies[BINARY's slot]

A call is made through Numba's own calling convention, so an exception a body raises (a
failed allocation) reaches the loop's caller as before. Each caller intrinsic converts its
arguments to the body's declared types and refuses (a typing error) any it cannot convert
safely, so a call never passes what the compiled body does not take.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.core.typeconv import Conversion
from numba.extending import intrinsic

from . import tensor_ops as to
from .dispatch import _binary, _tensor_op, _unary
from .kernel_entry import _LISTS
from .lists import broadcast_list
from .moves import write_tensor
from .registers import D_F32, D_F64, DTYPE, META_WIDTH, RANK, SIZES, TENSOR
from .slots import at, slot_data, slot_put, slot_size

_I1, _I2, _F1, _INT = types.int64[::1], types.int64[:, ::1], types.float64[::1], types.int64
# The register tuple of ``moves`` (tags, ints, floats, meta, b8, i64, f32, f64, ilists, tmp)
# and its pointer form of the loop's fast paths (``slots.data`` and ``slots.items``).
REGS = types.Tuple((_I1, _I1, _F1, _I2, *_LISTS, _I2))
_POINTERS = (types.CPointer(types.int64),) * 4 + tuple(
    types.CPointer(lst.item_type) for lst in _LISTS)

_table: list = []   # (dispatcher, signature), in slot order


def _converts(typingctx, actual, wanted) -> bool:
    """Does ``actual`` convert to ``wanted`` without losing anything (an int literal to int64,
    a C-contiguous array to any layout; never a float to an int)?"""
    kind = typingctx.can_convert(actual, wanted)
    return kind is not None and kind <= Conversion.safe


def _out_of_line(dispatcher, *args):
    """Give ``dispatcher`` a slot of the address table for the signature ``bool(*args)`` and
    return the intrinsic that calls it there: ``call(bodies, *args)``, ``bodies`` the table's
    data pointer."""
    slot, signature = len(_table), types.boolean(*args)
    _table.append((dispatcher, signature))

    @intrinsic
    def call(typingctx, bodies, *actual):
        if bodies != types.CPointer(types.int64) or len(actual) != len(signature.args) \
                or not all(_converts(typingctx, a, w) for a, w in zip(actual, signature.args)):
            return None

        def codegen(context, builder, sig, llargs):
            values = [context.cast(builder, v, a, w) for v, a, w in
                      zip(cgutils.unpack_tuple(builder, llargs[1]), sig.args[1], signature.args)]
            address = builder.load(builder.gep(llargs[0], [ir.Constant(ir.IntType(64), slot)]))
            fnty = context.call_conv.get_function_type(signature.return_type, signature.args)
            status, result = context.call_conv.call_function(
                builder, builder.inttoptr(address, fnty.as_pointer()), signature.return_type,
                signature.args, values)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return signature.return_type(bodies, types.StarArgTuple.from_types(actual)), codegen

    call.__name__ = call.__qualname__ = dispatcher.py_func.__name__.lstrip("_")
    return call


_W = META_WIDTH
_O = 2 * META_WIDTH   # tmp row 2: the result's meta


@njit(inline="always")
def _buffer(lst, r):
    """Register ``r``'s whole buffer as an array that counts nothing (borrowed)."""
    return carray(slot_data(lst, r), slot_size(lst, r))


@njit(cache=True, error_model="numpy", nogil=True)
def mm(tags, ints, meta, tmp, b8, i64, f32, f64, ilists, sentinel, ra, rb, out):
    """``views.fast_tensor_op``'s ``mm`` of two 2-d float tensors of one dtype, over the
    loop's data pointers and List slots (``_tensor_op``'s MM takes the register tuple)."""
    a, b = ra * _W, rb * _W
    code = meta[a + DTYPE]
    if tags[rb] != TENSOR or out == rb or meta[a + RANK] != 2 or meta[b + RANK] != 2 \
            or meta[b + DTYPE] != code or meta[a + SIZES + 1] != meta[b + SIZES] \
            or (code != D_F32 and code != D_F64) \
            or not to.mm_fits(meta[a + SIZES], meta[b + SIZES + 1]):
        return False
    m, bm, om = carray(at(meta, a), _W), carray(at(meta, b), _W), carray(at(tmp, _O), _W)
    if to.mm_on_host(m, bm):
        return False
    if code == D_F32:
        buffer32 = to.mm(_buffer(f32, ra), m, _buffer(f32, rb), bm, om)
    else:
        buffer64 = to.mm(_buffer(f64, ra), m, _buffer(f64, rb), bm, om)
    write_tensor(tags, ints, meta, b8, i64, f32, f64, ilists, sentinel, out, code, om, 0)
    if code == D_F32:
        slot_put(f32, out, buffer32)
    else:
        slot_put(f64, out, buffer64)
    return True


# The slots, in this fixed order: the loop's compiled (and cached) code holds the numbers.
BINARY = _out_of_line(_binary, REGS, _INT, _I1, _INT, _INT, _INT)
UNARY = _out_of_line(_unary, REGS, _INT, _INT, _INT)
TENSOR_OP = _out_of_line(_tensor_op, REGS, _INT, _INT, _INT, _I1, _INT, _INT, _INT, _INT)
BROADCAST_LIST = _out_of_line(broadcast_list, REGS, _I1, types.boolean[::1], _INT, _INT, _INT,
                              _INT, _INT, _INT)
MM = _out_of_line(mm, *_POINTERS, _INT, _INT, _INT, _INT)


def addresses() -> np.ndarray:
    """The bodies' entry points in slot order, each compiled or loaded from the disk cache
    (the caller holds the cache directory's compile lock when it may compile)."""
    table = np.zeros(len(_table), np.int64)
    for slot, (dispatcher, signature) in enumerate(_table):
        dispatcher.compile(signature)
        result = dispatcher.overloads[signature.args]
        if result.signature != signature:
            raise TypeError(f"{dispatcher.py_func.__name__} compiled as {result.signature}, "
                            f"not {signature}")
        table[slot] = result.library.get_pointer_to_function(result.fndesc.llvm_func_name)
    return table


def compiled_on_disk() -> bool:
    """Are all the bodies in Numba's disk cache (or compiled in this process)?"""
    for dispatcher, signature in _table:
        if signature.args in dispatcher.overloads:
            continue
        index = dispatcher._cache._cache_file._load_index()
        if not any(key[0] == signature for key in index):
            return False
    return True


__all__ = ["BINARY", "BROADCAST_LIST", "MM", "REGS", "TENSOR_OP", "UNARY", "addresses",
           "compiled_on_disk"]
