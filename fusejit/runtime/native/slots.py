"""Typed-List slot access for the register file's buffer Lists, without per-access overhead.

Indexing a Numba typed List calls a bounds-checked helper that takes a reference to the List
and hands back a new reference to the item: about ten atomic reference-count operations per
access here, and the loop made dozens per tensor op. These intrinsics read and write a slot in
place (of the List, or of its ``items``): the caller guarantees ``0 <= r < len(list)``
(register numbers are checked when a ``Code`` is built), and each one changes reference counts
only as ownership really moves::

    f32 = items(f32_list)           the slots, a pointer helpers take without counting
    p = slot_data(f32, r)           register r's float32 data pointer (borrowed, no count)
    q = slot_alloc(f32, r, n)       a new n-element buffer in slot r; the old one is released
    slot_put(f32, r, a)             slot r = array a (+1 on it, -1 on the old buffer)
    slot_share(f32, src, dst)       dst = src's buffer (+1 on it, -1 on dst's old buffer)
    slot_move(f32, src, dst, s)     dst takes src's buffer, src gets the sentinel at slot s
    slot_clear(f32, r, s)           slot r = the sentinel at slot s (old buffer released)
    n = slot_size(f32, r)           the length of register r's buffer

A borrowed pointer stays valid while its slot keeps the buffer, so a pointer of ``r`` must not
be used after any of the writers above replaced slot ``r``.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import _empty_nd_impl, make_array
from numba.typed.listobject import _container_get_data


def _base(context, builder, list_type, lst):
    fnty = ir.FunctionType(cgutils.voidptr_t, [cgutils.voidptr_t])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_list_base_ptr")
    base = builder.call(fn, [_container_get_data(context, builder, list_type, lst)])
    return builder.bitcast(base, context.get_data_type(_item(list_type)).as_pointer())


def _slot(context, builder, list_type, lst, index):
    """The address of item ``index`` of a typed List or of its ``items``."""
    if isinstance(list_type, types.ListType):
        lst = _base(context, builder, list_type, lst)
    return builder.gep(lst, [index])


def _item(list_type):
    """The item type of a typed List or of its ``items`` pointer."""
    if isinstance(list_type, types.ListType):
        return list_type.item_type
    return list_type.dtype


def _load(context, builder, list_type, slot):
    return context.data_model_manager[_item(list_type)].load_from_data_pointer(builder, slot)


def _store(context, builder, list_type, slot, value):
    model = context.data_model_manager[_item(list_type)]
    builder.store(model.as_data(builder, value), slot)


def _check(lst):
    if not isinstance(lst, (types.ListType, types.CPointer)):
        return False
    item = _item(lst)
    return isinstance(item, types.Array) and item.ndim == 1


@intrinsic
def items(typingctx, lst):
    """The slots of a typed List of 1-D arrays, for the ``slot_*`` intrinsics alone (indexing it
    would lose a reference count). A pointer is passed to a helper without counting; it stays
    valid while the List is not resized (the register file's Lists never are)."""
    if not _check(lst) or not isinstance(lst, types.ListType):
        return None

    def codegen(context, builder, sig, args):
        return _base(context, builder, sig.args[0], args[0])

    return types.CPointer(lst.item_type)(lst), codegen


@intrinsic
def data(typingctx, array):
    """The data pointer of a C-contiguous array (borrowed: the caller keeps the array)."""
    if not isinstance(array, types.Array) or array.layout != "C":
        return None

    def codegen(context, builder, sig, args):
        return make_array(sig.args[0])(context, builder, value=args[0]).data

    return types.CPointer(array.dtype)(array), codegen


@intrinsic
def at(typingctx, pointer, k):
    """The address of element ``k`` of a data pointer (for ``numba.carray`` views of one row:
    an array made that way has no meminfo, so passing it on counts nothing)."""
    if not isinstance(pointer, types.CPointer) or not isinstance(k, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.gep(args[0], [args[1]])

    return pointer(pointer, k), codegen


@intrinsic
def slot_size(typingctx, lst, r):
    """The length of register ``r``'s buffer."""
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        item = _load(context, builder, sig.args[0], _slot(context, builder, sig.args[0], *args))
        array = make_array(_item(sig.args[0]))(context, builder, value=item)
        return cgutils.unpack_tuple(builder, array.shape, 1)[0]

    return types.intp(lst, r), codegen


@intrinsic
def slot_data(typingctx, lst, r):
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        item = _load(context, builder, sig.args[0], _slot(context, builder, sig.args[0], *args))
        return make_array(_item(sig.args[0]))(context, builder, value=item).data

    return types.CPointer(_item(lst).dtype)(lst, r), codegen


@intrinsic
def slot_alloc(typingctx, lst, r, n):
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        list_type = sig.args[0]
        array = _empty_nd_impl(context, builder, _item(list_type), [args[2]])
        slot = _slot(context, builder, list_type, args[0], args[1])
        old = _load(context, builder, list_type, slot)
        _store(context, builder, list_type, slot, array._getvalue())
        context.nrt.decref(builder, _item(list_type), old)
        return array.data

    return types.CPointer(_item(lst).dtype)(lst, r, n), codegen


@intrinsic
def slot_put(typingctx, lst, r, array):
    if not _check(lst) or array != _item(lst):
        return None

    def codegen(context, builder, sig, args):
        # the slot takes its own reference to the array; the old buffer is released
        list_type, item_type = sig.args[0], _item(sig.args[0])
        slot = _slot(context, builder, list_type, args[0], args[1])
        old = _load(context, builder, list_type, slot)
        context.nrt.incref(builder, item_type, args[2])
        _store(context, builder, list_type, slot, args[2])
        context.nrt.decref(builder, item_type, old)
        return context.get_dummy_value()

    return types.none(lst, r, array), codegen


@intrinsic
def slot_share(typingctx, lst, src, dst):
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        list_type, item_type = sig.args[0], _item(sig.args[0])
        value = _load(context, builder, list_type, _slot(context, builder, list_type, *args[:2]))
        context.nrt.incref(builder, item_type, value)
        slot = _slot(context, builder, list_type, args[0], args[2])
        old = _load(context, builder, list_type, slot)
        _store(context, builder, list_type, slot, value)
        context.nrt.decref(builder, item_type, old)
        return context.get_dummy_value()

    return types.none(lst, src, dst), codegen


@intrinsic
def slot_move(typingctx, lst, src, dst, sentinel):
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        # dst's old buffer is released, src's reference passes to dst unchanged and src holds
        # a new reference to the sentinel; src == dst leaves the slot as it was.
        list_type, item_type = sig.args[0], _item(sig.args[0])
        lst, src, dst, sentinel = args
        with builder.if_then(builder.icmp_signed("!=", src, dst)):
            src_slot = _slot(context, builder, list_type, lst, src)
            dst_slot = _slot(context, builder, list_type, lst, dst)
            value = _load(context, builder, list_type, src_slot)
            old = _load(context, builder, list_type, dst_slot)
            empty = _load(context, builder, list_type,
                          _slot(context, builder, list_type, lst, sentinel))
            context.nrt.incref(builder, item_type, empty)
            _store(context, builder, list_type, dst_slot, value)
            _store(context, builder, list_type, src_slot, empty)
            context.nrt.decref(builder, item_type, old)
        return context.get_dummy_value()

    return types.none(lst, src, dst, sentinel), codegen


@intrinsic
def slot_clear(typingctx, lst, r, sentinel):
    if not _check(lst):
        return None

    def codegen(context, builder, sig, args):
        list_type, item_type = sig.args[0], _item(sig.args[0])
        lst, r, sentinel = args
        empty = _load(context, builder, list_type,
                      _slot(context, builder, list_type, lst, sentinel))
        context.nrt.incref(builder, item_type, empty)
        slot = _slot(context, builder, list_type, lst, r)
        old = _load(context, builder, list_type, slot)
        _store(context, builder, list_type, slot, empty)
        context.nrt.decref(builder, item_type, old)
        return context.get_dummy_value()

    return types.none(lst, r, sentinel), codegen


__all__ = ["at", "data", "items", "slot_alloc", "slot_clear", "slot_data", "slot_move",
           "slot_put", "slot_share", "slot_size"]
