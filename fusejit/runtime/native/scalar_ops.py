"""Native bodies of TorchScript's ``int`` / ``float`` / ``bool`` arithmetic (``ops/scalar.py``).

::

    %c : int = aten::floordiv(%a, %b)        Python's //, int64 wrap-around
    %m : bool = aten::lt(%i, %n)
    %q : float = aten::div(%a, %b)           IEEE: 1 / 0 is inf

An op returns False, leaving every register as it was, whenever its result would need more
than int64 or float64 arithmetic can give exactly (integer division by zero, INT_MIN // -1,
comparing an int beyond 2**53 with a float, a non-finite float to int...): the driver then
runs the NumPy body, which computes the same value or raises PyTorch's error.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .opcodes import NativeOp
from .registers import BOOL, FLOAT, FORCEINLINE, INT

# TorchScript's names of the scalar ops -> their native op
SCALAR_BINARY = {
    "add": NativeOp.S_ADD, "sub": NativeOp.S_SUB, "mul": NativeOp.S_MUL, "div": NativeOp.S_DIV,
    "floordiv": NativeOp.S_FLOORDIV, "remainder": NativeOp.S_REMAINDER, "min": NativeOp.S_MIN,
    "max": NativeOp.S_MAX, "eq": NativeOp.S_EQ, "ne": NativeOp.S_NE, "lt": NativeOp.S_LT,
    "le": NativeOp.S_LE, "gt": NativeOp.S_GT, "ge": NativeOp.S_GE, "__and__": NativeOp.S_AND,
    "__or__": NativeOp.S_OR, "__xor__": NativeOp.S_XOR,
}
SCALAR_UNARY = {
    "neg": NativeOp.S_NEG, "abs": NativeOp.S_ABS, "__not__": NativeOp.S_NOT,
    "Int": NativeOp.S_INT, "Float": NativeOp.S_FLOAT, "Bool": NativeOp.S_BOOL,
    "sqrt": NativeOp.S_SQRT, "floor": NativeOp.S_FLOOR, "ceil": NativeOp.S_CEIL,
}
# What the schema returns: the natural kind ("Scalar"), or a coercion to int / float / bool.
RET_SCALAR, RET_INT, RET_FLOAT, RET_BOOL = range(4)
RETURN_KINDS = {"Scalar": RET_SCALAR, "int": RET_INT, "float": RET_FLOAT, "bool": RET_BOOL}

_EXACT = 2.0 ** 53
_INT_MIN = np.iinfo(np.int64).min
_LIMIT = 2.0 ** 63


@njit(**FORCEINLINE)
def _result(tag, i, f, ret):
    """A result of kind ``tag`` coerced to ``ret``: (ok, tag, int payload, float payload); not
    ok when the coercion cannot be exact."""
    if ret == RET_BOOL:
        return True, BOOL, int((f != 0.0) if tag == FLOAT else (i != 0)), 0.0
    if ret == RET_FLOAT and tag != FLOAT:
        return True, FLOAT, 0, float(i)
    if ret == RET_INT and tag == FLOAT:
        return False, tag, i, f
    if ret == RET_INT and tag == BOOL:
        return True, INT, i, f
    return True, tag, i, f


@njit(**FORCEINLINE)
def _mixed_inexact(ta, tb, ia, ib):
    # An int beyond 2**53 compared with a float: float64 would round it.
    return (ta == FLOAT) != (tb == FLOAT) and (
        (ta != FLOAT and abs(float(ia)) > _EXACT) or (tb != FLOAT and abs(float(ib)) > _EXACT))


@njit(**FORCEINLINE)
def scalar_binary(op, ret, ta, ia, fa, tb, ib, fb):
    """``a op b`` over register payloads (tag, int, float); returns (ok, tag, int, float).
    Takes and returns plain numbers only, so the loop pays no reference counting for it."""
    if not (INT <= ta <= BOOL and INT <= tb <= BOOL):
        return False, ta, ia, fa
    if ta != FLOAT:
        fa = float(ia)
    if tb != FLOAT:
        fb = float(ib)
    both_int = ta != FLOAT and tb != FLOAT
    if op == NativeOp.S_ADD or op == NativeOp.S_SUB or op == NativeOp.S_MUL:
        if both_int:
            i = ia + ib if op == NativeOp.S_ADD else \
                ia - ib if op == NativeOp.S_SUB else ia * ib
            return _result(INT, i, 0.0, ret)
        f = fa + fb if op == NativeOp.S_ADD else \
            fa - fb if op == NativeOp.S_SUB else fa * fb
        return _result(FLOAT, 0, f, ret)
    if op == NativeOp.S_DIV:
        return _result(FLOAT, 0, fa / fb, ret)
    if op == NativeOp.S_FLOORDIV or op == NativeOp.S_REMAINDER:
        if both_int:
            if ib == 0 or (ia == _INT_MIN and ib == -1):
                return False, ta, ia, fa
            i = ia // ib if op == NativeOp.S_FLOORDIV else ia % ib
            return _result(INT, i, 0.0, ret)
        if op == NativeOp.S_FLOORDIV:
            f = np.floor(fa / fb)
        else:
            f = np.fmod(fb + np.fmod(fa, fb), fb)
        return _result(FLOAT, 0, f, ret)
    if op == NativeOp.S_AND or op == NativeOp.S_OR or op == NativeOp.S_XOR:
        ba = fa != 0.0 if ta == FLOAT else ia != 0
        bb = fb != 0.0 if tb == FLOAT else ib != 0
        b = (ba and bb) if op == NativeOp.S_AND else \
            (ba or bb) if op == NativeOp.S_OR else ba != bb
        return _result(BOOL, int(b), 0.0, ret)
    if _mixed_inexact(ta, tb, ia, ib):
        return False, ta, ia, fa
    if op == NativeOp.S_MIN or op == NativeOp.S_MAX:
        if ta == FLOAT and fa != fa:
            return _result(ta, ia, fa, ret)
        if tb == FLOAT and fb != fb:
            return _result(tb, ib, fb, ret)
        if both_int:
            pick_b = ib < ia if op == NativeOp.S_MIN else ib > ia
        else:
            pick_b = fb < fa if op == NativeOp.S_MIN else fb > fa
        if pick_b:
            return _result(tb, ib, fb, ret)
        return _result(ta, ia, fa, ret)
    if both_int:
        x, y = ia, ib
        c = (x == y if op == NativeOp.S_EQ else x != y if op == NativeOp.S_NE
             else x < y if op == NativeOp.S_LT else x <= y if op == NativeOp.S_LE
             else x > y if op == NativeOp.S_GT else x >= y)
    else:
        c = (fa == fb if op == NativeOp.S_EQ else fa != fb if op == NativeOp.S_NE
             else fa < fb if op == NativeOp.S_LT else fa <= fb if op == NativeOp.S_LE
             else fa > fb if op == NativeOp.S_GT else fa >= fb)
    return _result(BOOL, int(c), 0.0, ret)


@njit(**FORCEINLINE)
def scalar_unary(op, ret, ta, i, f):
    """``op(a)`` over a register payload; returns (ok, tag, int, float)."""
    if not INT <= ta <= BOOL:
        return False, ta, i, f
    if ta != FLOAT:
        f = float(i)
    if op == NativeOp.S_NOT or op == NativeOp.S_BOOL:
        b = f != 0.0 if ta == FLOAT else i != 0
        if op == NativeOp.S_NOT:
            b = not b
        return _result(BOOL, int(b), 0.0, ret)
    if op == NativeOp.S_FLOAT:
        return _result(FLOAT, 0, f, ret)
    if op == NativeOp.S_SQRT:
        return _result(FLOAT, 0, np.sqrt(f), ret)
    if op == NativeOp.S_INT or op == NativeOp.S_FLOOR or op == NativeOp.S_CEIL:
        if ta != FLOAT:
            return _result(INT, i, 0.0, ret)
        if not abs(f) < _LIMIT:  # also nan and inf: the host raises PyTorch's error
            return False, ta, i, f
        g = np.trunc(f) if op == NativeOp.S_INT else \
            np.floor(f) if op == NativeOp.S_FLOOR else np.ceil(f)
        if not abs(g) < _LIMIT:
            return False, ta, i, f
        return _result(INT, int(g), 0.0, ret)
    if ta == FLOAT:
        return _result(FLOAT, 0, -f if op == NativeOp.S_NEG else abs(f), ret)
    return _result(INT, -i if op == NativeOp.S_NEG else (i if i >= 0 else -i), 0.0, ret)
