"""Searches the row kernels' argmax and argmin (``rowargs.py``) make: the first element of a
contiguous block equal to a value, or the first NaN, one vector of elements at a time.

LLVM does not vectorise a loop that stops at its first hit, and a loop that does not stop
(a min-reduction of indices) reads the whole block; these functions emit the loop themselves:
a 64-byte vector compared at once, its lanes' bits tested, the first set bit counted::

    first = rs.first_equal(q0, best)     # q0[first] == best, first of them; len(q0) if none
    first = rs.first_nan(q0)             # q0[first] != q0[first]

Equality is IEEE (``-0.0 == 0.0``; a NaN equals nothing); a bool equals ``value`` where its
byte is zero exactly when ``value`` is False.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

_VECTOR_BYTES = 64
# vectors a step of ``first_max``'s loop tests at once
_UNROLL = 4


def _contiguous(arr) -> bool:
    return isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C" and \
        isinstance(arr.dtype, (types.Float, types.Integer, types.Boolean))


def _search(context, builder, array_type, array, test):
    """The first index of contiguous 1-d ``array`` whose element passes ``test(builder,
    element)`` (an ``i1`` or a vector of them, for an element or a vector of them); its length
    where none does."""
    ary = context.make_array(array_type)(context, builder, array)
    n = builder.extract_value(ary.shape, 0)
    element = context.get_data_type(array_type.dtype)
    width = max(1, element.width // 8) if isinstance(element, ir.IntType) else \
        (4 if isinstance(element, ir.FloatType) else 8)
    lanes = _VECTOR_BYTES // width
    vector = ir.VectorType(element, lanes)
    i64 = ir.IntType(64)
    data = builder.bitcast(ary.data, element.as_pointer())
    end = builder.and_(n, ir.Constant(i64, -lanes))      # (n >= 0: the whole vectors)
    start = builder.basic_block
    fn = builder.function
    vec_head, vec_body, vec_hit = (fn.append_basic_block(f"search.{s}")
                                   for s in ("vhead", "vbody", "vhit"))
    tail_head, tail_body, done = (fn.append_basic_block(f"search.{s}")
                                  for s in ("thead", "tbody", "done"))
    builder.branch(vec_head)

    builder.position_at_end(vec_head)
    i = builder.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), start)
    builder.cbranch(builder.icmp_signed("<", i, end), vec_body, tail_head)

    builder.position_at_end(vec_body)
    at = builder.bitcast(builder.gep(data, [i]), vector.as_pointer())
    loaded = builder.load(at, align=1)
    bits = builder.bitcast(test(builder, loaded), ir.IntType(lanes))
    i_next = builder.add(i, ir.Constant(i64, lanes))
    i.add_incoming(i_next, vec_body)
    builder.cbranch(builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(lanes), 0)),
                    vec_hit, vec_head)

    builder.position_at_end(vec_hit)
    mask = ir.IntType(lanes)
    cttz = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        mask, [mask, ir.IntType(1)]), f"llvm.cttz.i{lanes}")
    lane = builder.zext(builder.call(cttz, [bits, ir.Constant(ir.IntType(1), 1)]), i64)
    found_vec = builder.add(i, lane)
    builder.branch(done)

    builder.position_at_end(tail_head)
    j = builder.phi(i64)
    j.add_incoming(i, vec_head)
    more = builder.icmp_signed("<", j, n)
    tail_end = builder.basic_block
    builder.cbranch(more, tail_body, done)

    builder.position_at_end(tail_body)
    hit = test(builder, builder.load(builder.gep(data, [j])))
    j.add_incoming(builder.add(j, ir.Constant(i64, 1)), tail_body)
    builder.cbranch(hit, done, tail_head)

    builder.position_at_end(done)
    result = builder.phi(i64)
    result.add_incoming(found_vec, vec_hit)
    result.add_incoming(n, tail_end)
    result.add_incoming(j, tail_body)
    return result


def _splat(builder, value, like):
    if isinstance(like.type, ir.VectorType):
        vector = ir.VectorType(value.type, like.type.count)
        undef = ir.Constant(vector, ir.Undefined)
        first = builder.insert_element(undef, value, ir.Constant(ir.IntType(32), 0))
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), like.type.count), None)
        return builder.shuffle_vector(first, undef, zeros)
    return value


def first_equal(arr, value):
    """The first index of 1-d ``arr`` holding ``value`` (``len(arr)`` if none)."""
    for i in range(len(arr)):
        if arr[i] == value:
            return i
    return len(arr)


def first_nan(arr):
    """The first index of 1-d float ``arr`` holding a NaN (``len(arr)`` if none)."""
    for i in range(len(arr)):
        if arr[i] != arr[i]:
            return i
    return len(arr)


@overload(first_equal, inline="always")
def _first_equal(arr, value):
    if _contiguous(arr) and arr.dtype == value:
        return lambda arr, value: _first_equal_vectors(arr, value)
    if isinstance(arr, types.Array) and arr.ndim == 1:      # (strided: one at a time)
        return first_equal
    return None


@overload(first_nan, inline="always")
def _first_nan(arr):
    if _contiguous(arr) and isinstance(arr.dtype, types.Float):
        return lambda arr: _first_nan_vectors(arr)
    if isinstance(arr, types.Array) and arr.ndim == 1 and isinstance(arr.dtype, types.Float):
        return first_nan
    return None


@intrinsic
def _first_equal_vectors(typingctx, arr, value):
    """``first_equal`` of a contiguous array, a vector of elements at a time."""
    if not _contiguous(arr) or arr.dtype != value:
        return None

    def codegen(context, builder, signature, args):
        array, wanted = args
        if isinstance(value, types.Boolean):
            def test(b, x):
                zero = ir.Constant(x.type, None)
                is_false = b.icmp_unsigned("==", x, zero)
                return b.xor(is_false, _splat(b, wanted, is_false))   # (x != 0) == wanted
        elif isinstance(value, types.Float):
            def test(b, x):
                return b.fcmp_ordered("==", x, _splat(b, wanted, x))
        else:
            def test(b, x):
                return b.icmp_signed("==", x, _splat(b, wanted, x))
        return _search(context, builder, signature.args[0], array, test)

    return types.int64(arr, value), codegen


@intrinsic
def _first_nan_vectors(typingctx, arr):
    """``first_nan`` of a contiguous array, a vector of elements at a time."""
    if not _contiguous(arr) or not isinstance(arr.dtype, types.Float):
        return None

    def codegen(context, builder, signature, args):
        def test(b, x):
            return b.fcmp_unordered("uno", x, x)
        return _search(context, builder, signature.args[0], args[0], test)

    return types.int64(arr), codegen


def first_max(arr):
    """The index of the first max of 1-d ``arr``, or of its first NaN where it holds one:
    NumPy's argmax."""
    best, at = arr[0], 0
    for i in range(len(arr)):
        v = arr[i]
        if v != v:
            return i
        if v > best:
            best, at = v, i
    return at


def first_min(arr):
    """The index of the first min of 1-d ``arr``, or of its first NaN: NumPy's argmin."""
    best, at = arr[0], 0
    for i in range(len(arr)):
        v = arr[i]
        if v != v:
            return i
        if v < best:
            best, at = v, i
    return at


def _vectors_or_loop(vectors, loop):
    def chooser(arr):
        if _contiguous(arr) and not isinstance(arr.dtype, types.Boolean):
            return lambda arr: vectors(arr)
        if isinstance(arr, types.Array) and arr.ndim == 1:
            return loop
        return None
    return chooser


def _extreme_vectors(largest: bool):
    def typer(typingctx, arr):
        if not _contiguous(arr) or isinstance(arr.dtype, types.Boolean):
            return None
        floats = isinstance(arr.dtype, types.Float)
        signed = floats or arr.dtype.signed

        def codegen(context, builder, signature, args):
            def beats(b, x, acc):
                # (a NaN beats everything: it ends the search, as the first NaN is the answer)
                if floats:
                    return b.fcmp_unordered(">" if largest else "<", x, acc)
                compare = b.icmp_signed if signed else b.icmp_unsigned
                return compare(">" if largest else "<", x, acc)

            return _extreme_search(context, builder, signature.args[0], args[0], beats,
                                   floats, signed, largest)

        return types.int64(arr), codegen

    return typer


def _extreme_search(context, builder, array_type, array, beats, floats, signed, largest):
    """``first_max`` (``first_min``) of a contiguous array. Steps of ``_UNROLL`` vectors:
    their lane-wise max (min) ``m`` and a test whether any lane of ``m`` beats the running
    best ``acc`` or any element is a NaN (a NaN, or inf - inf, in the sum of the vectors); only
    then (a branch rarely taken once the lanes hold large values) ``acc`` takes ``m`` and the
    lane records the step, or a NaN ends the search at the first one. After the steps: the
    best of the lanes, the first step where a lane holding it got it (the first step holding
    it at all), the first element equal to it in that step, and the elements left one by
    one."""
    ary = context.make_array(array_type)(context, builder, array)
    n = builder.extract_value(ary.shape, 0)
    element = context.get_data_type(array_type.dtype)
    width = element.width // 8 if isinstance(element, ir.IntType) else \
        (4 if isinstance(element, ir.FloatType) else 8)
    lanes = _VECTOR_BYTES // width
    span = lanes * _UNROLL
    vector = ir.VectorType(element, lanes)
    i64 = ir.IntType(64)
    # (steps as int32 numbers: twice the lanes of int64 indices; n < 2^31 steps)
    i32 = ir.IntType(32)
    steps_type = ir.VectorType(i32, lanes)
    shift = ir.Constant(i64, span.bit_length() - 1)
    mask_type = ir.IntType(lanes)
    wide = ir.IntType(span)
    data = builder.bitcast(ary.data, element.as_pointer())
    end = builder.and_(n, ir.Constant(i64, -span))
    first = _splat(builder, builder.load(data), ir.Constant(vector, None))
    start = builder.basic_block
    fn = builder.function
    head, body, slow, update, reduce_, tail_head, tail_body, tail_better, done = (
        fn.append_basic_block(f"extreme.{s}") for s in (
            "head", "body", "slow", "update", "reduce", "thead", "tbody", "tbetter", "done"))
    zero_mask = ir.Constant(mask_type, 0)
    one = ir.Constant(ir.IntType(1), 1)

    def cttz(value):
        f = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            value.type, [value.type, ir.IntType(1)]), f"llvm.cttz.i{value.type.width}")
        count = builder.call(f, [value, one])
        return builder.zext(count, i64) if value.type.width < 64 else \
            builder.trunc(count, i64) if value.type.width > 64 else count

    def first_set(masks):
        """The index of the first set bit of the lane masks ``masks`` in order."""
        joined = None
        for k, mask in enumerate(masks):
            part = builder.zext(builder.bitcast(mask, mask_type), wide)
            if k:
                part = builder.shl(part, ir.Constant(wide, k * lanes))
            joined = part if joined is None else builder.or_(joined, part)
        return cttz(joined), builder.icmp_unsigned("!=", joined, ir.Constant(wide, 0))

    def load(index):
        return builder.load(builder.bitcast(builder.gep(data, [index]), vector.as_pointer()),
                            align=1)

    def better_of(a, b):
        return builder.select(beats(builder, a, b), a, b)

    builder.branch(head)
    builder.position_at_end(head)
    i = builder.phi(i64)
    acc = builder.phi(vector)
    rec = builder.phi(steps_type)
    i.add_incoming(ir.Constant(i64, 0), start)
    acc.add_incoming(first, start)
    rec.add_incoming(ir.Constant(steps_type, None), start)
    builder.cbranch(builder.icmp_signed("<", i, end), body, reduce_)

    builder.position_at_end(body)
    xs = [load(builder.add(i, ir.Constant(i64, k * lanes))) for k in range(_UNROLL)]
    m = better_of(better_of(xs[0], xs[1]), better_of(xs[2], xs[3]))
    flags = builder.bitcast(beats(builder, m, acc), mask_type)
    if floats:
        total = builder.fadd(builder.fadd(xs[0], xs[1]), builder.fadd(xs[2], xs[3]))
        odd = builder.bitcast(builder.fcmp_unordered("uno", total, total), mask_type)
        flags = builder.or_(flags, odd)
    i_next = builder.add(i, ir.Constant(i64, span))
    builder.cbranch(builder.icmp_unsigned("!=", flags, zero_mask), slow, head)
    i.add_incoming(i_next, body)
    acc.add_incoming(acc, body)
    rec.add_incoming(rec, body)

    nan_exits = []
    builder.position_at_end(slow)
    if floats:      # (most slow steps are new maxima: the NaN test only where the sum had one)
        checks = fn.append_basic_block("extreme.nancheck")
        builder.cbranch(builder.icmp_unsigned("!=", odd, zero_mask), checks, update)
        builder.position_at_end(checks)
        nans = [builder.fcmp_unordered("uno", x, x) for x in xs]
        seen = builder.or_(builder.or_(nans[0], nans[1]), builder.or_(nans[2], nans[3]))
        nan_exit = fn.append_basic_block("extreme.nan")
        builder.cbranch(builder.icmp_unsigned("!=", builder.bitcast(seen, mask_type),
                                              zero_mask), nan_exit, update)
        builder.position_at_end(nan_exit)
        where, _seen = first_set(nans)
        nan_exits.append((builder.add(i, where), nan_exit))
        builder.branch(done)
    else:
        builder.branch(update)
    builder.position_at_end(update)
    wins = beats(builder, m, acc)
    new_acc = builder.select(wins, m, acc)
    number = builder.trunc(builder.lshr(i, shift), i32)
    new_rec = builder.select(wins, _splat(builder, number, rec), rec)
    builder.branch(head)
    i.add_incoming(i_next, update)
    acc.add_incoming(new_acc, update)
    rec.add_incoming(new_rec, update)

    # the best lane; the first step holding its value; the first element equal to it there
    builder.position_at_end(reduce_)
    suffix = f"v{lanes}{'f' if floats else 'i'}{width * 8}"
    pick = ("f" if floats else "s" if signed else "u") + ("max" if largest else "min")
    best = builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        element, [vector]), f"llvm.vector.reduce.{pick}.{suffix}"), [acc])
    wanted = _splat(builder, best, acc)
    same = builder.fcmp_ordered("==", acc, wanted) if floats else \
        builder.icmp_signed("==", acc, wanted)
    big = ir.Constant(steps_type, [ir.Constant(i32, 2 ** 31 - 1)] * lanes)
    number = builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        i32, [steps_type]), f"llvm.vector.reduce.smin.v{lanes}i32"),
        [builder.select(same, rec, big)])
    step = builder.shl(builder.zext(number, i64), shift)
    found = fn.append_basic_block("extreme.found")
    scalar_first = builder.extract_element(first, ir.Constant(ir.IntType(32), 0))
    builder.cbranch(builder.icmp_signed("<", i, ir.Constant(i64, span)), tail_head, found)
    no_steps = builder.basic_block
    builder.position_at_end(found)
    equal = [builder.fcmp_ordered("==", x, wanted) if floats else
             builder.icmp_signed("==", x, wanted)
             for x in (load(builder.add(step, ir.Constant(i64, k * lanes)))
                       for k in range(_UNROLL))]
    offset, _hit = first_set(equal)
    at_step = builder.add(step, offset)
    builder.branch(tail_head)

    builder.position_at_end(tail_head)
    j = builder.phi(i64)
    tail_best = builder.phi(element)
    tail_at = builder.phi(i64)
    j.add_incoming(i, no_steps)
    tail_best.add_incoming(scalar_first, no_steps)
    tail_at.add_incoming(ir.Constant(i64, 0), no_steps)
    j.add_incoming(i, found)
    tail_best.add_incoming(best, found)
    tail_at.add_incoming(at_step, found)
    builder.cbranch(builder.icmp_signed("<", j, n), tail_body, done)

    builder.position_at_end(tail_body)
    v = builder.load(builder.gep(data, [j]))
    j_next = builder.add(j, ir.Constant(i64, 1))
    builder.cbranch(beats(builder, v, tail_best), tail_better, tail_head)
    j.add_incoming(j_next, tail_body)
    tail_best.add_incoming(tail_best, tail_body)
    tail_at.add_incoming(tail_at, tail_body)

    builder.position_at_end(tail_better)
    if floats:      # (a NaN here is the first: the vectors held none)
        is_nan = builder.fcmp_unordered("uno", v, v)
        tail_nan_block = builder.basic_block
        keep_going = fn.append_basic_block("extreme.tkeep")
        builder.cbranch(is_nan, done, keep_going)
        builder.position_at_end(keep_going)
    builder.branch(tail_head)
    j.add_incoming(j_next, builder.basic_block)
    tail_best.add_incoming(v, builder.basic_block)
    tail_at.add_incoming(j, builder.basic_block)

    builder.position_at_end(done)
    result = builder.phi(i64)
    result.add_incoming(tail_at, tail_head)
    for index, block in nan_exits:
        result.add_incoming(index, block)
    if floats:
        result.add_incoming(j, tail_nan_block)
    return result


_first_max_vectors = intrinsic(_extreme_vectors(True))
_first_min_vectors = intrinsic(_extreme_vectors(False))
overload(first_max, inline="always")(_vectors_or_loop(_first_max_vectors, first_max))
overload(first_min, inline="always")(_vectors_or_loop(_first_min_vectors, first_min))
