"""How each NumPy-spelled operation becomes TorchScript IR (shared by ``script`` and ``trace``).

Every function takes the :class:`IRBuilder` and items (values or Python literals) and emits the
nodes TorchScript would emit for the same operation::

    x + 1          %2 : Tensor = aten::add(%x, %1, %1)          alpha is the int constant 1
    2.0 * x        %3 : Tensor = aten::mul(%x, %2)              commutative: swapped
    1 - x          %4 : Tensor = aten::neg(%x)                  TorchScript's rsub builtin
                   %5 : Tensor = aten::add(%4, %1, %1)
    n + 1          %6 : int = aten::add(%n, %1)                 scalar op, typed by its schema
    x @ w          %7 : Tensor = aten::matmul(%x, %w)           aten::mm when both are 2-D
    np.split(x, 2, axis=1)
                   %8 : Tensor[] = aten::chunk(%x, %2, %1)
                   %a : Tensor, %b : Tensor = prim::ListUnpack(%8)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL, FLOAT, INT, TENSOR, BoolType, FloatType, IntType, ListType, TensorType
from ..oplib.table import DTYPE_CODES
from .builder import (
    IRBuilder,
    Item,
    Location,
    describe,
    is_none,
    is_tensor,
    scalar_type_of,
    script_error,
)
from .numpy_dtypes import (
    branch_dtype,
    cast,
    conform,
    dtype_of,
    kinded_result,
    numpy_dtype,
    numpy_scalar,
    numpy_scalar_result,
)

# Binary operators whose operands can be swapped (with the comparison mirrored).
_MIRRORED = {"add": "add", "mul": "mul", "eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt",
             "le": "ge", "ge": "le", "max": "max", "min": "min", "and": "and", "or": "or",
             "xor": "xor"}
_ATEN_NAME = {"and": "__and__", "or": "__or__", "xor": "__xor__", "lshift": "__lshift__",
              "rshift": "__rshift__"}
_BITWISE = frozenset(_ATEN_NAME)
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "pow", "remainder", "floordiv", "max",
                         "min", "fmod", "atan2"})
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "remainder": "%",
           "floordiv": "//", "matmul": "@", "eq": "==", "ne": "!=", "lt": "<", "le": "<=",
           "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
           "rshift": ">>"}


def _kind(op: str, tensor: bool = True) -> str:
    if tensor and op == "floordiv":
        return aten.floor_divide  # aten::floordiv is the scalar op
    return aten[_ATEN_NAME.get(op, op)]


def binary(b: IRBuilder, op: str, lhs: Item, rhs: Item, ufunc: Any = None) -> Value:
    """``lhs op rhs`` for tensors and scalars, with TorchScript's overloads; NumPy's result
    dtype is the operator's (``NUMPY_BINARY``), or ``ufunc``'s when it is called by name."""
    if op == "pow" and ufunc is None and all(
            scalar_type_of(x) == INT and not isinstance(x, bool) and not is_tensor(x)
            and not (isinstance(x, Value) and (x in b.numpy_scalars or b.branched and
                                               x in b.branched)) for x in (lhs, rhs)):
        # (Python's int ** int: an int for an exponent of 0 or more, where TorchScript's is
        # a float: ``2 ** zoom`` is 4096, not 4096.0, in what it then sizes or clips)
        if isinstance(lhs, int) and isinstance(rhs, int):
            return lhs ** rhs
        return b.emit("fusejit::int_pow", [lhs, rhs], "'**'")
    result = _binary(b, op, lhs, rhs, ufunc)
    if b.branched and is_tensor(result) and result.type.rank == 0 and \
            result not in b.zero_d_arrays and op in NUMPY_BINARY and \
            any(isinstance(x, Value) and x in b.branched for x in (lhs, rhs)) and \
            not any(is_tensor(x) and x.type.rank != 0 for x in (lhs, rhs)):
        # (k * 2 of a k that is a np.float64 or a float by the branch taken, held as a 0-d
        # array: a np.float64 or a float by the branch too)
        return kinded_result(b, ufunc or NUMPY_BINARY[op], [lhs, rhs], result,
                             again=lambda operands: binary(b, op, *operands, ufunc))
    if op == "remainder" and is_tensor(result) and _is_float(result):
        # PyTorch's float remainder keeps fmod's zero (-7.0 % 1.0 is -0.0); NumPy's, as
        # Python's, gives a zero the divisor's sign (a divisor of +-0 gives NaN, not a zero)
        zero = binary(b, "eq", result, 0)
        divisor = b.static(rhs)
        if isinstance(divisor, (int, float)) and not isinstance(divisor, bool):
            return where(b, zero, -0.0 if divisor < 0 else 0.0, result)
        below = binary(b, "and", zero, binary(b, "lt", rhs, 0))
        result = where(b, below, -0.0, where(b, zero, 0.0, result))
    return result


def _binary(b: IRBuilder, op: str, lhs: Item, rhs: Item, ufunc: Any = None) -> Value:
    what = f"'{_SYMBOL.get(op, op)}'"
    if op == "add" and isinstance(lhs, tuple) and isinstance(rhs, tuple):
        return lhs + rhs    # (2,) + x.shape: a tuple known while scripting, as in Python
    for side in (lhs, rhs):
        if not is_tensor(side) and scalar_type_of(side) is None:
            hint = " (compare strings with ==, or write them as dict keys)" \
                if isinstance(side, str) else ""
            raise b.error(f"{what} does not take a {describe(side)} operand{hint}")
    lt, rt = is_tensor(lhs), is_tensor(rhs)
    if op in _BITWISE and any(_is_float(x) for x in (lhs, rhs)):
        raise b.error(f"{what} takes integers and bools, not floats (NumPy raises TypeError)")
    if op in _PREDICATES and lt != rt:
        decided = _beyond_range(b, op, lhs, rhs) if lt else _beyond_range(
            b, _MIRRORED[op], rhs, lhs)
        if decided is not None:
            return decided
    if op in _PREDICATES and lt and rt:
        kinds = [(dtype_of(x).kind, dtype_of(x).itemsize) if dtype_of(x) is not None else None
                 for x in (lhs, rhs)]
        if ("u", 8) in kinds and any(k is not None and k[0] == "i" for k in kinds):
            return _unsigned_against_signed(b, op, lhs, rhs, what)
    if (lt or rt) and op in NUMPY_BINARY:
        lhs, rhs = conform(b, ufunc or NUMPY_BINARY[op], [lhs, rhs], what,
                           op not in _PREDICATES, kinded=True)
    if op == "pow":
        _refuse_negative_int_powers(b, lhs, rhs, what)
    if op == "matmul":
        if not (lt and rt):
            raise b.error("'@' needs two arrays")
        return matmul(b, lhs, rhs)
    if not lt and not rt:
        return _scalar_binary(b, op, lhs, rhs, what)
    if op in _ARITHMETIC and dtype_of(lhs if lt else rhs) != np.dtype(np.bool_):
        # f32 - True: a bool is the int 1 here (aten::sub and others take no bool scalar)
        lhs, rhs = (to_int(b, x) if not is_tensor(x) and scalar_type_of(x) == BOOL else x
                    for x in (lhs, rhs))
    if op == "atan2" and not (lt and rt):  # (aten::atan2 has no Scalar overload)
        lhs, rhs = (as_tensor(b, v, what) for v in (lhs, rhs))
        lt = rt = True
    if op in _BITWISE and not (lt and rt):
        # (aten::__and__ and the others take no scalar: ``a & 3`` gets a 0-d array of a's
        # dtype, which NumPy's result dtype is: the weak int fits it, conform checked)
        dtype = dtype_of(lhs if lt else rhs)
        lhs, rhs = (as_tensor(b, v, what, dtype) for v in (lhs, rhs))
        lt = rt = True
    if lt and rt:
        return b.emit(_kind(op), [lhs, rhs, 1] if op in ("add", "sub") else [lhs, rhs], what)
    if lt:
        if op == "max":
            return b.emit(aten.clamp, [lhs, rhs, None], what)
        if op == "min":
            return b.emit(aten.clamp, [lhs, None, rhs], what)
        return b.emit(_kind(op), [lhs, rhs, 1] if op in ("add", "sub") else [lhs, rhs], what)
    # scalar op tensor
    if op in _MIRRORED:
        return binary(b, _MIRRORED[op], rhs, lhs)
    if op == "sub":
        return b.emit(aten.add, [b.emit(aten.neg, [rhs]), lhs, 1], what)
    if op == "div" and b.static(lhs) == 1:
        return b.emit(aten.reciprocal, [rhs], what)
    # (c / x: NumPy divides once; the reciprocal times c rounds twice, and 1.0857 / x of
    # float32 was an ulp off in a quarter of the elements. The number becomes a 0-d array below)
    if op == "pow":
        return b.emit(aten.pow, [lhs, rhs], what)
    # ``10 // a``, ``1.0 % x``: no Scalar-first overloads, so the number becomes a 0-d array
    # of the array's dtype (conform cast the array to NumPy's result dtype, which a weak
    # number takes)
    static, dtype = b.static(lhs), dtype_of(rhs)
    if isinstance(static, (int, float)) and dtype is not None:
        lhs = b.value_const(np.array(static, dtype))   # (not a cast constant: folded)
    return b.emit(_kind(op), [as_tensor(b, lhs, what, dtype), rhs], what)


def _unsigned_against_signed(b: IRBuilder, op: str, lhs: Value, rhs: Value,
                             what: str) -> Value:
    """A uint64 array compared with a signed int array, exactly as NumPy 2 compares them
    (their common dtype is float64, which would make 2**53 + 1 > 2**53 False): where the
    signed one is negative the order is known, elsewhere both compare as uint64."""
    if dtype_of(lhs).kind == "i":
        op, lhs, rhs = _MIRRORED[op], rhs, lhs
    negative = b.emit(aten.lt, [rhs, 0], what)
    compared = b.emit(aten[op], [lhs, cast(b, rhs, _UINT64, what)], what)
    if op in ("gt", "ge", "ne"):        # (every uint64 is above a negative int)
        return b.emit(aten["__or__"], [negative, compared], what)
    return b.emit(aten["__and__"], [b.emit(aten.logical_not, [negative], what), compared],
                  what)


def _is_float(x: Item) -> bool:
    if is_tensor(x):
        return dtype_of(x) is not None and dtype_of(x).kind == "f"
    return scalar_type_of(x) == FLOAT


def _beyond_range(b: IRBuilder, op: str, x: Value, number: Item) -> Value | None:
    """``uint8_array > -1``, ``int8_array == 1000``: NumPy 2 compares an integer array with
    a Python int outside its dtype's range exactly (every element is on one side of it), so
    the answer is one constant; None where the number fits (or is not known here)."""
    value, dtype = b.static(number), dtype_of(x)
    if type(value) is not int or number in b.numpy_scalars or dtype is None \
            or dtype.kind not in "iu":
        return None
    info = np.iinfo(dtype)
    if info.min <= value <= info.max:
        return None
    above = value > info.max   # (every element is below the number)
    truth = {"eq": False, "ne": True, "lt": above, "le": above, "gt": not above,
             "ge": not above}[op]
    return b.emit("aten::full_like", [x, truth, DTYPE_CODES[np.dtype(np.bool_)], None, None,
                                      None, None], f"'{_SYMBOL[op]}'")


_NEGATIVE_INT_POWER = "Integers to negative integer powers are not allowed."


def _refuse_negative_int_powers(b: IRBuilder, lhs: Item, rhs: Item, what: str) -> None:
    """NumPy raises ValueError for an integer array to a negative integer power: so does a
    literal exponent here, while scripting, and an integer array exponent when it runs (a
    scalar variable's pow raises in the interpreter's op already)."""
    # (conform has cast the arrays to NumPy's result dtype: float powers give inf instead)
    dtypes = [dtype_of(x) if is_tensor(x) else None for x in (lhs, rhs)]
    if not any(d is not None and d.kind in "iu" for d in dtypes):
        return
    if type(rhs) is int and rhs < 0 and dtypes[0] is not None:
        raise b.error(f"{what}: {_NEGATIVE_INT_POWER[:-1]} (NumPy raises ValueError; write "
                      f"a float exponent, e.g. x ** {float(rhs)})")
    if dtypes[1] is not None and dtypes[1].kind == "i":
        negative = b.emit(aten.any, [b.emit(aten.lt, [rhs, 0], what), None, False], what)
        node = b.create(prim.If, [to_bool(b, negative)], 0)
        with b.graph.inserting_before(node.add_block()):
            b.create(prim.RaiseException, [b.value_const(f"ValueError: {_NEGATIVE_INT_POWER}")],
                     0)
        node.add_block()


# The NumPy function each binary operator is, for NumPy's result dtypes (numpy_dtypes).
# (``**`` is the operator itself: NumPy's ``bool_array ** 2`` squares, int8, where
# ``np.power`` gives int64)
NUMPY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "pow": operator.pow, "remainder": np.remainder, "floordiv": np.floor_divide,
    "max": np.maximum, "min": np.minimum, "fmod": np.fmod, "atan2": np.arctan2,
    "matmul": np.result_type, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal,
}
_PREDICATES = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
# The NumPy function each unary aten op is (the ones NumPy has).
NUMPY_UNARY = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "log2": np.log2,
    "log10": np.log10, "sqrt": np.sqrt, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": np.rint, "sign": np.sign, "neg": np.negative, "logical_not": np.logical_not,
    "reciprocal": np.reciprocal, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
}


_IDENTITY_ON_BOOLS = frozenset({"abs", "floor", "ceil", "trunc"})
_FOLDED = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
           "gt": operator.gt, "ge": operator.ge}


# Python's arithmetic on two literals, folded as Python computes it: ``2 ** 40`` is an int
# (TorchScript's ``pow(int, int)`` is a float: ``i64 + 2 ** 40`` would be float64). Only
# where NumPy's rules apply (``fusejit.jit``'s typed scripting); ``fusejit.script`` keeps
# TorchScript's.
_ARITHMETIC_FOLDED = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                      "pow": operator.pow}
_INT_POWERS = range(1, 9)   # n ** k by k - 1 products: an int, as in Python


def _scalar_binary(b: IRBuilder, op: str, lhs: Item, rhs: Item, what: str) -> Item:
    literals = all(isinstance(x, (bool, int, float)) for x in (lhs, rhs))
    if op in _FOLDED and literals:
        return _FOLDED[op](lhs, rhs)  # two literals (an unrolled loop's items): a literal
    if op in _BITWISE and not all(scalar_type_of(x) == BOOL for x in (lhs, rhs)):
        return _integer_bits(b, op, lhs, rhs, what, literals)
    python = b.facts is not None
    if python and op in _ARITHMETIC_FOLDED and literals and not (
            op == "pow" and isinstance(rhs, int) and abs(rhs) > 64):
        try:
            return _ARITHMETIC_FOLDED[op](lhs, rhs)
        except (OverflowError, ZeroDivisionError):
            pass   # (TorchScript's float arithmetic gives inf or nan, as before)
    if python and op == "pow" and scalar_type_of(lhs) == INT and type(rhs) is int \
            and rhs in _INT_POWERS and lhs not in b.numpy_scalars \
            and not (b.branched and lhs in b.branched):
        result = lhs
        for _ in range(rhs - 1):
            result = b.emit(aten.mul, [result, lhs], what)
        return result
    strong = any(x in b.numpy_scalars for x in (lhs, rhs) if isinstance(x, Value))
    # (an int or a float by the branch that ran: the result's kinds too, numpy_scalar_result)
    kinded = bool(b.branched) and any(x in b.branched for x in (lhs, rhs) if isinstance(x, Value))
    if strong and (op in _UNSIGNED_READ or op in _ARITHMETIC and FLOAT in (
            scalar_type_of(lhs), scalar_type_of(rhs))) and any(
            b.numpy_scalars.get(x) == _UINT64 for x in (lhs, rhs) if isinstance(x, Value)):
        return _unsigned_scalars(b, op, lhs, rhs, what)
    items = [lhs, rhs]
    if op in _ARITHMETIC:
        # Python arithmetic treats bools as ints; TorchScript's schemas do not.
        lhs, rhs = (to_int(b, x) if scalar_type_of(x) == BOOL else x for x in (lhs, rhs))
    result = b.emit(_kind(op, tensor=False), [lhs, rhs], what)
    if (strong or kinded) and op in NUMPY_BINARY:   # np.float32(2) * n: a NumPy scalar too
        return numpy_scalar_result(b, NUMPY_BINARY[op], items, result, again=lambda operands:
                                   binary(b, op, *operands))
    return result


# Ops on a np.uint64 number whose result depends on its being unsigned: the IR's int64 holds
# its bits, which are right for +, -, *, &, | and ^ (they wrap alike), but one of 2**63 or
# more is negative there (so is its arithmetic with a float, and float() of it).
_UNSIGNED_READ = _PREDICATES | frozenset({"div", "floordiv", "remainder", "rshift", "pow"})
_UINT64 = np.dtype(np.uint64)


def _unsigned_scalars(b: IRBuilder, op: str, lhs: Item, rhs: Item, what: str) -> Item:
    """``op`` of np.uint64 numbers (held as int64 bits) computed on 0-d uint64 arrays of them,
    with NumPy's rules for the other operand; a number again (a uint64's bits as int64)."""
    tensors = [as_tensor(b, x, what, _UINT64)
               if isinstance(x, Value) and b.numpy_scalars.get(x) == _UINT64 else x
               for x in (lhs, rhs)]
    result = binary(b, op, *tensors)
    dtype = dtype_of(result)
    if dtype == np.dtype(np.bool_):
        return numpy_scalar(b, to_bool(b, result), dtype)
    if dtype is not None and dtype.kind == "f":
        return numpy_scalar(b, to_float(b, result), dtype)
    return numpy_scalar(b, b.emit(aten.Int, [result], what), dtype or _UINT64)


_BITS_FOLDED = {"and": operator.and_, "or": operator.or_, "xor": operator.xor,
                "lshift": operator.lshift, "rshift": operator.rshift}


def _integer_bits(b: IRBuilder, op: str, lhs: Item, rhs: Item, what: str,
                  literals: bool) -> Item:
    """``n & m``, ``n << k`` ... of numbers, not both bools: folded for two literals (``1 <<
    20``), else NumPy's op on 0-d arrays of NumPy's result dtype (aten's scalar ``__and__``
    and the others are logical ops of bools, and there is no scalar shift)."""
    if literals and (op != "lshift" or 0 <= rhs < 64 and lhs << rhs < 1 << 64):
        # (1 << 63 is Python's 2**63, a np.uint64 or a uint64 array's operand as NumPy takes
        # it, where an int64 shift gave -2**63)
        return _BITS_FOLDED[op](lhs, rhs)
    dtype = numpy_dtype(NUMPY_BINARY[op], [lhs, rhs], b.numpy_scalars) or np.dtype(np.int64)
    tensors = [as_tensor(b, x, what, dtype) for x in (lhs, rhs)]
    result = b.emit(_kind(op), tensors, what)
    if any(x in b.numpy_scalars or b.branched and x in b.branched
           for x in (lhs, rhs) if isinstance(x, Value)):
        # (k & 3 of a k that is an int or a np.int8 by the branch taken: either, and an
        # int8's bits where it is one)
        return numpy_scalar_result(b, NUMPY_BINARY[op], [lhs, rhs], to_int(b, result),
                                   again=lambda operands: binary(b, op, *operands))
    return to_int(b, result)


LIST_NUMBER_DTYPES = {FLOAT: np.dtype(np.float64), INT: np.dtype(np.int64),
                       BOOL: np.dtype(np.bool_)}


class Records:
    """A list of tuples (or of lists) of one length that a loop appends to (``rows.append((t,
    precision, recall))``): one list per field, each of arrays or of numbers of one type, as
    ``appended`` keeps any list. Reading item ``i`` gives the tuple of the fields' items."""

    __slots__ = ("fields", "kind", "at")

    def __init__(self, fields: list[Value], kind: type, at: Location | None):
        self.fields = fields
        self.kind = kind    # tuple or list: what an item is read back as
        self.at = at        # where its first tuple was appended


def records_of(b: IRBuilder, items: Item) -> Records | None:
    return b.records.get(items) if isinstance(items, Value) else None


def append_to(b: IRBuilder, items: Value, value: Item) -> None:
    """``items.append(value)`` on a list built in a loop: ``aten::append`` of the array or
    number; a tuple or list appends each of its items to its field's list (``Records``)."""
    records = records_of(b, items)
    if records is None and isinstance(value, (tuple, list)):
        if b.list_items.get(items) is not None:
            raise b.error(f"this list holds {_HELD[b.list_items[items]]}; appending a "
                          f"{describe(value)} to it is not supported")
        if items.uses:
            raise b.error("this list is read before a tuple is first appended to it; build "
                          "it from tuples from its start (rows = [(a, b)]), or append arrays")
        with b.graph.inserting_after(items.node):
            fields = [b.tensor_list([], "append", allow_empty=True) for _ in value]
        records = b.records[items] = Records(fields, type(value), b.loc)
    if records is None:
        b.emit("aten::append", [items, appended(b, items, value)], "append")
        return
    if not isinstance(value, (tuple, list)) or len(value) != len(records.fields):
        held = f"{records.kind.__name__}s of {len(records.fields)} items"
        raise b.error(f"this list holds {held}; appending a {describe(value)}"
                      f"{f' of {len(value)}' if isinstance(value, (tuple, list)) else ''} to "
                      f"it is not supported")
    for field, item in zip(records.fields, value):
        b.emit("aten::append", [field, appended(b, field, item)], "append")


def record_item(b: IRBuilder, records: Records, index: Item) -> tuple | list:
    """Item ``index`` of a list of tuples: each field's item, read as any list's is."""
    return records.kind(list_element(b, f, b.emit(aten["__getitem__"], [f, index], "indexing"))
                        for f in records.fields)


def list_length(b: IRBuilder, items: Value) -> Value:
    """``len(items)`` of a list built in a loop (of its first field's for a list of tuples)."""
    records = records_of(b, items)
    return b.emit("aten::len", [records.fields[0] if records else items], "len()")


def check_records_unused(b: IRBuilder) -> None:
    """A list of tuples is read through its fields' lists only: where anything read the list
    itself (a use this frontend does not know to take apart), that is refused here, at the
    use's line, rather than reading the list's never-appended self."""
    for items, records in b.records.items():
        if items.uses:
            user = items.uses[0].user
            at = user.source_range
            how = "returned (return np.array(rows), or a tuple of arrays)" \
                if user.kind == prim.Return else f"used in a way fusejit does not support " \
                                                 f"({user.kind})"
            raise script_error(
                f"a list of tuples built in a loop is {how}; index it, loop over it, take its "
                f"len(), slice it or make an array of it (np.array(rows))",
                Location(at.file, at.line, at.col) if at is not None else records.at)


def appended(b: IRBuilder, items: Value, value: Item) -> Value:
    """What ``items.append(value)`` appends to a list built by append (``Tensor[]``): an
    array, or a number as the 0-d array of NumPy's dtype for it (``history.append(loss)``:
    ``np.array(history)`` is then NumPy's float64 array), recorded in ``b.list_items`` so
    that reading an element gives the number back. One list holds one kind."""
    kind = TENSOR if is_tensor(value) else scalar_type_of(value)
    if kind is None:
        raise b.error(f"only arrays and numbers can be appended to this list, got "
                      f"{describe(value)}")
    held = b.list_items.setdefault(items, kind)
    if kind == TENSOR:
        note_scalar_item(b, items, value)
        note_item_type(b, items, value)
    if held != kind:
        raise b.error(f"this list holds {_HELD[held]}; appending {_HELD[kind]} to it is not "
                      f"supported (convert it first, e.g. float(v) or np.asarray(v))")
    return value if kind == TENSOR else as_tensor(b, value, "append", LIST_NUMBER_DTYPES[kind])


def note_scalar_item(b: IRBuilder, items: Value, value: Value) -> None:
    """Records whether every array in ``items`` so far is a NumPy scalar (``x[i]``,
    ``x.sum()``): such a list is returned with NumPy scalars, as NumPy's list holds."""
    scalar = value.type.rank == 0 and value not in b.zero_d_arrays
    b.scalar_lists[items] = b.scalar_lists.get(items, True) and scalar


class ListTypeChanged(Exception):
    """A list of arrays took an array of another dtype or rank after one of its items was
    read with the type of those before (``list_element``): the function is scripted again
    with reads of such lists left untyped (``script.scripted``). Never reaches the user."""


def note_item_type(b: IRBuilder, items: Value, value: Value) -> None:
    """Records the type the arrays in ``items`` share, now that ``value`` is put in too."""
    t = value.type
    shared = t.dimensioned_only() if isinstance(t, TensorType) and \
        t.scalar_type is not None and t.rank is not None else None
    b.list_dtypes.setdefault(items, set()).add(
        t.scalar_type.dtype if isinstance(t, TensorType) and t.scalar_type is not None
        else None)
    if items in b.list_types and b.list_types[items] != shared:
        shared = None
    b.list_types[items] = shared
    read = b.list_reads.get(items)
    if read is not None and read != shared:
        raise ListTypeChanged(f"a list read as {read} took a {t}")


_HELD = {TENSOR: "arrays", FLOAT: "floats", INT: "ints", BOOL: "bools"}


def list_element(b: IRBuilder, items: Value, element: Value) -> Item:
    """``element`` read from ``items``: the number again where the list holds numbers; an
    array of the type every array put in so far shares (so ``for d in details`` reads typed
    arrays, which the rest of the function can compile with). Should a later ``append`` put
    in another type, the function is scripted again without this (``ListTypeChanged``)."""
    kind = b.list_items.get(items)
    if kind in LIST_NUMBER_DTYPES:
        return {FLOAT: to_float, INT: to_int, BOOL: to_bool}[kind](b, element)
    shared = b.list_types.get(items)
    if kind == TENSOR and shared is not None and b.typed_list_reads and b.facts is not None:
        element.set_type(shared)
        b.list_reads[items] = shared
    return element


def invert(b: IRBuilder, x: Item, what: str) -> Item:
    """``~x`` (``np.invert``): logical not of bools, every bit flipped for integers."""
    dtype = dtype_of(x) if is_tensor(x) else None
    if dtype == np.dtype(np.bool_):
        return b.emit("aten::logical_not", [x], what)   # ~mask
    if dtype is not None and dtype.kind in "iu":   # ~a: a ^ (all bits set), in a's dtype
        ones = -1 if dtype.kind == "i" else int(np.iinfo(dtype).max)
        return binary(b, "xor", x, ones)
    if scalar_type_of(x) == INT:
        return binary(b, "sub", binary(b, "mul", x, -1), 1)   # ~n: -n - 1
    raise b.error(f"{what} of a {describe(x)} is not supported (it inverts boolean arrays "
                  f"and ints)")


def unary(b: IRBuilder, name: str, x: Item, what: str | None = None) -> Value:
    """A pointwise function of one argument (``aten::exp`` ...), on an array or a scalar."""
    what = what or name
    if is_tensor(x):
        # (a number of several kinds held as a 0-d array: its result's kinds by the branch
        # taken, a narrow kind computed again in it: kinded_result)
        kinded = bool(b.branched) and x in b.branched and name in NUMPY_UNARY
        operand = x
        if name in NUMPY_UNARY:
            (x,) = conform(b, NUMPY_UNARY[name], [x], what, kinded=kinded)
        if name in _IDENTITY_ON_BOOLS and dtype_of(x) == np.dtype(np.bool_):
            return b.emit("aten::clone", [x, None], what)   # (NumPy's: aten's refuse bools)
        result = b.emit(aten[name], [x], what)
        if kinded:
            return kinded_result(b, NUMPY_UNARY[name], [operand], result,
                                 again=lambda operands: unary(b, name, operands[0], what))
        return result
    st = scalar_type_of(x)
    if st is None:
        raise b.error(f"{what} takes an array or a number, got {describe(x)}")
    strong = isinstance(x, Value) and (x in b.numpy_scalars or bool(b.branched)
                                       and x in b.branched)
    item = x
    if st != FLOAT and not any(isinstance(s.arguments[0].type, (IntType, BoolType))
                               for s in _schemas(name)):
        x = to_float(b, x)
    if not any(isinstance(s.arguments[0].type, (FloatType, IntType, BoolType))
               for s in _schemas(name)):
        # (no scalar overload, as for aten::round: through a 0-d float64 array)
        tensor = as_tensor(b, x, what, np.dtype(np.float64))
        result = to_float(b, b.emit(aten[name], [tensor], what))
    else:
        result = b.emit(aten[name], [x], what)
    if strong and name in NUMPY_UNARY:    # -np.float32(2): a NumPy scalar as well
        return numpy_scalar_result(b, NUMPY_UNARY[name], [item], result, again=lambda
                                   operands: unary(b, name, operands[0], what))
    return result


def _schemas(name: str):
    from ..ir.schema import registry

    return [s for s in registry.schemas(aten[name]) if len(s.arguments) == 1]


def tensor_only(b: IRBuilder, name: str, x: Item, what: str) -> Value:
    if not is_tensor(x):
        raise b.error(f"{what} takes an array, got {describe(x)}")
    return b.emit(aten[name], [x], what)


def matmul(b: IRBuilder, lhs: Value, rhs: Value) -> Value:
    if _rank(lhs) == 2 and _rank(rhs) == 2:
        return b.emit(aten.mm, [lhs, rhs], "'@'")
    return b.emit(aten.matmul, [lhs, rhs], "'@'")


def _rank(v: Value) -> int | None:
    return v.type.rank if isinstance(v.type, TensorType) else None


def transpose(b: IRBuilder, x: Item) -> Value:
    """``x.T``: ``aten::t``, which (like NumPy) leaves 0-D and 1-D arrays as they are; more
    dimensions are all reversed (``aten::permute``)."""
    if not is_tensor(x):
        raise b.error(f".T needs an array, got {describe(x)}")
    rank = _rank(x)
    if rank is not None and rank > 2:
        return b.emit("aten::permute", [x, list(range(rank))[::-1]], ".T")
    return b.emit(aten.t, [x], ".T")


# -- shapes and reductions ------------------------------------------------------------------


def size(b: IRBuilder, x: Item, dim: Item) -> Value:
    """``x.shape[dim]``: ``aten::size(x, dim)``."""
    return b.emit(aten.size, [_array(b, x, ".shape"), dim], ".shape[...]")


def shape(b: IRBuilder, x: Item) -> Value:
    return b.emit(aten.size, [_array(b, x, ".shape")], ".shape")


def ndim(b: IRBuilder, x: Item) -> Item:
    """``x.ndim``: a number while scripting for typed arguments (each rank is scripted on
    its own), else ``aten::dim``."""
    x = _array(b, x, ".ndim")
    if b.facts is not None and x.type.rank is not None:
        return x.type.rank
    return b.emit(aten.dim, [x], ".ndim")


def select(b: IRBuilder, x: Item, index: Item) -> Value:
    """``x[i]``: ``aten::select(x, 0, i)``; ``x[i, j]`` selects twice."""
    indices = index if isinstance(index, tuple) else (index,)
    out = _array(b, x, "indexing")
    for i in indices:
        if scalar_type_of(i) != INT:
            raise b.error(f"only integer indexing is supported, got an index of type "
                          f"{describe(i)} (slices, arrays and masks are not)")
        out = b.emit(aten.select, [out, 0, i], "indexing")
    return out


def reduce_sum(b: IRBuilder, x: Item, axis: Item = None, keepdims: Item = False) -> Value:
    """``x.sum(axis=..., keepdims=...)``: ``aten::sum(x, [dims], keepdim, None)``."""
    x = _array(b, x, "sum")
    keep = b.static_bool(keepdims, "sum(keepdims=...)")
    if is_none(axis):
        if not keep:
            return b.emit(aten.sum, [x, None], "sum")
        return b.emit(aten.sum, [x, None, True, None], "sum")
    dims = b.int_list(axis if isinstance(axis, (tuple, list)) else (axis,), "sum(axis=...)")
    return b.emit(aten.sum, [x, dims, keep, None], "sum")


def reshape(b: IRBuilder, x: Item, new_shape: Item) -> Value:
    x = _array(b, x, "reshape")
    dims = new_shape if isinstance(new_shape, (tuple, list)) else (new_shape,)
    return b.emit(aten.reshape, [x, b.int_list(dims, "reshape's shape")], "reshape")


def _sections(b: IRBuilder, sections: Item, axis: Item, what: str) -> tuple[int, int]:
    """The number of sections (a constant positive int, not split points) and the axis of
    ``np.split``/``np.array_split``."""
    if isinstance(sections, (tuple, list)) or is_tensor(sections):
        raise b.error(f"{what}: only an int number of sections is supported, not a list of "
                      f"split points")
    n = b.static_int(sections, f"{what}'s number of sections")
    if n < 1:
        raise b.error(f"{what}: the number of sections must be positive, got {n}")
    return n, b.static_int(axis, f"{what}'s axis")


def split(b: IRBuilder, x: Item, sections: Item, axis: Item = 0) -> tuple[Value, ...]:
    """``np.split(x, n, axis=d)`` into equal parts: ``aten::chunk`` + ``prim::ListUnpack``."""
    x = _array(b, x, "np.split")
    n, dim = _sections(b, sections, axis, "np.split")
    sizes = x.type.sizes if isinstance(x.type, TensorType) else None
    if sizes is not None and -len(sizes) <= dim < len(sizes) and sizes[dim] is not None:
        if sizes[dim] % n:
            raise b.error(f"np.split: axis {dim} of size {sizes[dim]} does not divide into "
                          f"{n} equal sections")
    chunks = b.create(aten.chunk, [x, b.value(n), b.value(dim)])
    chunks.output().set_type(ListType(TENSOR))
    b.refine(chunks)
    unpack = b.create(prim.ListUnpack, [chunks.output()], n)
    b.refine(unpack)
    return unpack.outputs


def array_split(b: IRBuilder, x: Item, sections: Item, axis: Item = 0) -> tuple[Value, ...]:
    """``np.array_split(x, n, axis=d)``: ``n`` slices, the first ``len % n`` of them one
    element longer (NumPy's rule), their bounds computed when it runs."""
    x = _array(b, x, "np.array_split")
    n, dim = _sections(b, sections, axis, "np.array_split")
    length = size(b, x, dim)
    each, extras = binary(b, "floordiv", length, n), binary(b, "remainder", length, n)
    bounds = [binary(b, "add", binary(b, "mul", i, each), binary(b, "min", i, extras))
              for i in range(n + 1)]
    return tuple(b.emit(aten.slice, [x, dim, bounds[i], bounds[i + 1], 1], "np.array_split")
                 for i in range(n))


def conformed_list(b: IRBuilder, items: Item, what: str) -> Item:
    """A list a loop built of arrays of several dtypes (float32, then int32), as a new list of
    them all in NumPy's common dtype, which ``stack`` and ``cat`` of it give (they would
    promote by PyTorch's rules: float32 and int32 to float32, where NumPy's is float64).
    Other items are returned as they are."""
    dtypes = b.list_dtypes.get(items) if isinstance(items, Value) else None
    if not dtypes or len(dtypes) < 2 or None in dtypes:
        return items
    target = np.result_type(*dtypes)
    out = b.tensor_list([], what, allow_empty=True)
    loop = b.create(prim.Loop, [b.emit("aten::len", [items], what), b.value(True)], 0)
    body = loop.add_block()
    index = body.add_input(type=INT)
    with b.graph.inserting_before(body):
        item = b.emit(aten["__getitem__"], [items, index], what)
        item = b.emit(aten.type_as, [item, b.value_const(np.zeros((), target))], what)
        b.emit("aten::append", [out, appended(b, out, item)], what)
        body.register_output(b.value(True))
    return out


def concatenate(b: IRBuilder, arrays: Item, axis: Item = 0) -> Value:
    arrays = conformed_list(b, _array_likes(b, arrays), "np.concatenate")
    if is_none(axis):   # (NumPy's: the arrays flattened, then joined)
        if not isinstance(arrays, (tuple, list)):
            raise b.error("np.concatenate(axis=None) takes a list or tuple of arrays")
        arrays, axis = [reshape(b, _array(b, a, "np.concatenate"), (-1,)) for a in arrays], 0
    b.static_int(axis, "np.concatenate's axis")
    items = b.tensor_list(_common_dtype(b, arrays, "np.concatenate"), "np.concatenate")
    return typed_from_appends(b.emit(aten.cat, [items, axis], "np.concatenate"), items, 0)


def stack(b: IRBuilder, arrays: Item, axis: Item = 0) -> Value:
    b.static_int(axis, "np.stack's axis")
    arrays = conformed_list(b, _array_likes(b, arrays), "np.stack")
    items = b.tensor_list(_common_dtype(b, arrays, "np.stack"), "np.stack")
    return typed_from_appends(b.emit(aten.stack, [items, axis], "np.stack"), items, 1)


def _array_likes(b: IRBuilder, arrays: Item) -> Item:
    """The items of a tuple or list of arrays that are lists or tuples of numbers made arrays,
    as ``np.asarray`` makes them (``np.concatenate([[0.0], x])``)."""
    if not isinstance(arrays, (tuple, list)):
        return arrays
    from .numpy_lowering import array

    return [array(b, a) if isinstance(a, (tuple, list)) else a for a in arrays]


def _common_dtype(b: IRBuilder, arrays: Item, what: str) -> Item:
    """A tuple or list of arrays cast to their NumPy result dtype (``np.stack([f32, i32])``
    is float64); a list built in a loop as it is."""
    if isinstance(arrays, (tuple, list)) and arrays and all(is_tensor(a) for a in arrays):
        return conform(b, lambda *v: np.result_type(*v), list(arrays), what)
    return arrays


def typed_from_appends(out: Value, items: Value, extra: int) -> Value:
    """``out`` (``stack``/``cat`` of a list built by ``append`` in a loop, which the type
    rules see as ``Tensor[]``) typed from the appended arrays, when they share a dtype and
    rank: ``extra`` more dimensions, on the same device."""
    if not isinstance(out.type, TensorType) or out.type.scalar_type is not None:
        return out
    kinds = {u.user.input(1).type for u in items.uses if u.user.kind == "aten::append"}
    kinds = {t.dimensioned_only() for t in kinds if isinstance(t, TensorType)}
    if len(kinds) == 1:
        (t,) = kinds
        if t.scalar_type is not None and t.rank is not None:
            out.set_type(t.with_(sizes=(None,) * (t.rank + extra)))
    return out


# -- selection and clamping -----------------------------------------------------------------


def where(b: IRBuilder, condition: Item, x: Item, y: Item) -> Value:
    """``np.where(c, x, y)``: ``aten::where``; scalar branches become 0-D tensors, and so does
    a number as the condition (``np.where(x.size > 3, x, 0.0)``: its truth, as NumPy takes
    it)."""
    if not is_tensor(condition):
        if scalar_type_of(condition) is None:
            raise b.error(f"np.where's condition must be an array or a number, got "
                          f"{describe(condition)}")
        condition = as_tensor(b, condition, "np.where", np.dtype(np.bool_))
    kind = dtype_of(condition)     # (not "in (None, bool)": float64 == None is True)
    if kind is not None and kind != np.dtype(np.bool_):
        # (NumPy takes any array as its truth: np.where(c & 1, ...) of uint32s; aten::where
        # takes bools, its result's type unknown for others)
        condition = b.emit(aten.ne, [condition, 0], "np.where")
    x, y = conform(b, _where_dtype, [x, y], "np.where")
    # a number branch is made in NumPy's result dtype (np.where(c, 1.0, 0.0): float64;
    # np.where(c, x64, 0.1): float64's 0.1, not float32's widened)
    dtype = branch_dtype(b, _where_dtype, [x, y], "np.where")
    return b.emit(aten.where, [condition, as_tensor(b, x, "np.where", dtype),
                               as_tensor(b, y, "np.where", dtype)], "np.where")


def _where_dtype(x, y):
    return np.where(True, x, y)


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def as_tensor(b: IRBuilder, item: Item, what: str, dtype: np.dtype | None = None) -> Value:
    """A scalar operand as a 0-D tensor (weakly typed like PyTorch's wrapped numbers), or
    of ``dtype`` where it is given."""
    if is_tensor(item):
        return item
    if dtype is not None and scalar_type_of(item) is not None:
        static = b.static(item)
        if isinstance(static, (bool, int, float)):
            # (a number known now: made in dtype at once; through the default float32
            # constant, np.where(c, 0.1, 0.2) of float64 gave float32's 0.1, 1.5e-9 off)
            try:
                with np.errstate(all="ignore"):
                    return b.value_const(np.array(static, dtype=dtype))
            except (OverflowError, ValueError):
                pass    # (an int out of dtype's range: the cast's own rule)
        return cast(b, as_tensor(b, item, what), dtype, what)
    static = b.static(item)
    if isinstance(static, (bool, int, float)):
        dtype = (np.bool_ if isinstance(static, bool) else
                 np.int64 if isinstance(static, int) else
                 # (float32 like PyTorch's default, unless it would overflow: np.finfo.max;
                 # a 0-d float64 does not promote a float32 array either)
                 np.float32 if abs(static) <= _FLOAT32_MAX or static != static else np.float64)
        return b.value_const(np.array(static, dtype=dtype))
    if scalar_type_of(item) is None:
        raise b.error(f"{what} takes arrays or numbers, got {describe(item)}")
    node = b.create(prim.NumToTensor, [b.value(item)])
    node.output().set_type(TENSOR)
    b.refine(node)
    return node.output()


def numbers_as_0d(b: IRBuilder, values: list[tuple[Any, Value]]) -> list[Value]:
    """``scale = 1.0 / x.max()`` in one branch, ``scale = 1.0`` in the other: a number
    merged with 0-d arrays of one dtype that it keeps (NumPy's float32 * 1.0 is float32)
    becomes a 0-d array of that dtype; others unchanged."""
    dtypes = {dtype_of(v) for _, v in values if is_tensor(v) and _rank(v) == 0}
    numbers = [v for _, v in values if scalar_type_of(v) is not None]
    if len(dtypes) != 1 or None in dtypes or len(numbers) + sum(
            is_tensor(v) and _rank(v) == 0 for _, v in values) != len(values):
        return [v for _, v in values]
    (dtype,) = dtypes
    zero = np.zeros(1, dtype)
    if any(np.result_type(zero, {INT: 1, FLOAT: 1.0}.get(scalar_type_of(v), True))
           != dtype for v in numbers):
        return [v for _, v in values]
    out = []
    for block, value in values:
        if scalar_type_of(value) is not None:
            with b.graph.inserting_before(block):
                value = as_tensor(b, value, "a number merged with arrays", dtype)
        out.append(value)
    return out


# -- conversions ----------------------------------------------------------------------------


def to_float(b: IRBuilder, x: Item) -> Item:
    if isinstance(x, Value) and b.numpy_scalars.get(x) == _UINT64:
        # (its int64 bits read as uint64: 2**63 and more are not negative)
        x = as_tensor(b, x, "float()", _UINT64)
    return _convert(b, x, "Float", FLOAT, float)


def to_int(b: IRBuilder, x: Item) -> Item:
    return _convert(b, x, "Int", INT, int)


def to_bool(b: IRBuilder, x: Item) -> Item:
    return _convert(b, x, "Bool", BOOL, bool)


def _convert(b: IRBuilder, x: Item, name: str, target, python_type) -> Item:
    if isinstance(x, (bool, int, float)):
        return python_type(x)
    if isinstance(x, str) and python_type in (int, float):
        # (a constant string: float("inf"), int("10"), parsed as Python parses it)
        try:
            return python_type(x)
        except ValueError as error:
            raise b.error(f"{python_type.__name__}({x!r}): {error}") from None
    if not isinstance(x, Value):
        raise b.error(f"{python_type.__name__}() takes an array or a number, got {describe(x)}")
    if x.type == target and x not in b.numpy_scalars and not (b.branched and x in b.branched):
        return x
    # (float(np.sqrt(2)): a Python number again, weak, so a value of its own; float(k) of a
    # number an int or a float by the branch taken: a float whichever ran)
    return b.emit(aten[name], [x], f"{python_type.__name__}()")


def array_like(b: IRBuilder, x: Item) -> bool:
    """Is ``x`` what NumPy makes an array of where it takes an array_like: a list a loop built
    (``np.mean(losses)``), or a non-empty list or tuple (``np.diag([1.0, 1.0, d])``)?"""
    if isinstance(x, Value):
        return isinstance(x.type, ListType) and (x in b.list_items or x in b.records)
    return isinstance(x, (tuple, list)) and bool(x)


def _array(b: IRBuilder, x: Item, what: str) -> Value:
    if array_like(b, x):
        from .numpy_lowering import array

        return array(b, x, None, False)
    if not is_tensor(x):
        raise b.error(f"{what} needs an array, got {describe(x)}")
    return x


_SCALAR_RANKS = {BoolType: 0, IntType: 1, FloatType: 2}


def scalar_rank(value: Value) -> int | None:
    """Where a Python number's type stands in bool < int < float (None: not a number)."""
    return _SCALAR_RANKS.get(type(value.type))


def widen(b: IRBuilder, value: Value, rank: int) -> Item:
    """``value`` (a number) converted to the type of ``rank`` (``scalar_rank``)."""
    return to_int(b, value) if rank == 1 else to_float(b, value)
