"""Accumulators of the row-reduction kernels (``rows.py``) that LLVM may vectorise.

A loop ``acc = acc + v`` only vectorises when LLVM may reassociate the additions (partial sums
per vector lane, added up at the end), and a NaN-propagating maximum written with comparisons
not at all. These functions emit exactly one instruction carrying the ``reassoc`` flag, so only
the accumulation is reassociated, never the element arithmetic around it::

    acc = rm.add(acc, np.float64(t3))       # fadd reassoc double
    top = rm.maximum(top, t5)               # llvm.maximum: NaN if either is NaN, -0.0 < 0.0

Summing in another order changes the rounding of a sum as pairwise summation (NumPy's) does;
float32 rows are summed in float64 by the kernels, so their sums are the more accurate.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_FLAGS = ("reassoc",)


def _same_floats(a, b) -> bool:
    return isinstance(a, types.Float) and a == b


@intrinsic
def add(typingctx, a, b):
    """``a + b`` that LLVM may reassociate across loop iterations (a vectorised sum)."""
    if not _same_floats(a, b):
        return None

    def codegen(context, builder, signature, args):
        return builder.fadd(args[0], args[1], flags=_FLAGS)

    return a(a, b), codegen


def _extremum(name: str, op: str):
    def typer(typingctx, a, b):
        if isinstance(a, types.Boolean) and a == b:       # (bools: or, and)
            def logic(context, builder, signature, args):
                return (builder.or_ if op == ">" else builder.and_)(args[0], args[1])

            return a(a, b), logic
        if isinstance(a, types.Integer) and a == b:
            # (integers: a plain compare and select, which has no NaN or signed zero)
            def pick(context, builder, signature, args):
                compare = builder.icmp_signed if a.signed else builder.icmp_unsigned
                return builder.select(compare(op, args[0], args[1]), args[0], args[1])

            return a(a, b), pick
        if not _same_floats(a, b):
            return None

        def codegen(context, builder, signature, args):
            ty = context.get_value_type(signature.return_type)
            fn = builder.module.declare_intrinsic(name, [ty], ir.FunctionType(ty, [ty, ty]))
            return builder.call(fn, args, fastmath=_FLAGS)

        return a(a, b), codegen

    return typer


maximum = intrinsic(_extremum("llvm.maximum", ">"))
maximum.__doc__ = ("NumPy's ``maximum`` of two floats (NaN wins; 0.0 above -0.0), integers or "
                   "bools, vectorisable as a reduction.")
minimum = intrinsic(_extremum("llvm.minimum", "<"))
minimum.__doc__ = ("NumPy's ``minimum`` of two floats (NaN wins; -0.0 below 0.0), integers or "
                   "bools, vectorisable as a reduction.")


def _loose(name: str, flags: tuple = ("nnan", "nsz", "reassoc")):
    def typer(typingctx, a, b):
        if not _same_floats(a, b):
            return None

        def codegen(context, builder, signature, args):
            ty = context.get_value_type(signature.return_type)
            fn = builder.module.declare_intrinsic(name, [ty], ir.FunctionType(ty, [ty, ty]))
            return builder.call(fn, args, fastmath=flags)

        return a(a, b), codegen

    return typer


fmax = intrinsic(_loose("llvm.maxnum"))
fmax.__doc__ = ("The larger of two floats neither of which is NaN, either zero where both are "
                "zeros (one ``vmaxpd``): the fast pass of a maximum, whose NaN and zeros "
                "``unordered`` and the caller's exact pass take care of.")
fmin = intrinsic(_loose("llvm.minnum"))
fmin.__doc__ = "The smaller of two floats, as ``fmax`` (one ``vminpd``)."
maxnum = intrinsic(_loose("llvm.maxnum", ("nsz",)))
maxnum.__doc__ = ("The larger of two floats, the other where one is NaN, either zero where both "
                  "are zeros: a value for any input (``fmax`` assumes no NaN), for a fast sweep "
                  "whose caller tests the inputs for NaN and the result for zero.")
minnum = intrinsic(_loose("llvm.minnum", ("nsz",)))
minnum.__doc__ = "The smaller of two floats, as ``maxnum``."


@intrinsic
def unordered(typingctx, seen, a):
    """``seen or a != a``: whether a NaN was seen, as an or-reduction LLVM vectorises."""
    if not (isinstance(seen, types.Boolean) and isinstance(a, types.Float)):
        return None

    def codegen(context, builder, signature, args):
        return builder.or_(args[0], builder.fcmp_unordered("uno", args[1], args[1]))

    return types.boolean(seen, a), codegen
