"""NumPy's result dtypes for NumPy-spelled code, reached by casting operands of PyTorch's ops.

The ops keep PyTorch's semantics (the IR path runs them unchanged). When a jitted function is
scripted for typed arguments, each array operation first asks NumPy which dtype it would give,
by running the NumPy function itself on 1-element proxies of the operands' dtypes (Python numbers
stay Python numbers, so they are "weak" as NumPy 2 makes them, NEP 50). Array operands of
another dtype are cast to it with ``aten::type_as`` (which the fuser fuses), so PyTorch's op
then computes in, and returns, NumPy's dtype::

    i32 / 2          %c : Double() = prim::Constant[value={0}]()
                     %a : Double(*) = aten::type_as(%i32, %c)
                     %r : Double(*) = aten::div(%a, %two)          NumPy: float64
    f32 * 0.5        %r : Float(*) = aten::mul(%f32, %half)        no cast: float32 either way
    f32 + i64        both cast to Double, then aten::add           NumPy: float64

Operands whose dtype is unknown (a loop-carried value whose dtype changes) leave the op as it
is: PyTorch's rules then decide.

A NumPy function called on numbers returns a NumPy scalar, which NEP 50 makes *strong*: with a
float32 ``x``, ``x / np.sqrt(x.shape[1])`` is float64 (``x / math.sqrt(...)`` stays float32).
The IR's scalars have no dtype, so the builder keeps the dtype of each scalar value that is a
NumPy scalar (``IRBuilder.numpy_scalars``, filled by ``numpy_scalar_result``, the scalar
operators and NumPy scalar globals), and its proxy is a NumPy scalar of that dtype::

    x / np.sqrt(n)   %s : float = aten::sqrt(%nf)             numpy_scalars[%s] = float64
                     %a : Double(*) = aten::type_as(%x, %c)   NumPy: float64
                     %r : Double(*) = aten::div(%a, %s)
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import DTypeError
from ..ir.graph import Value
from ..ir.symbols import aten
from ..ir.types import BoolType, FloatType, IntType, ScalarType, TensorType
from ..oplib.table import DTYPE_CODES
from ..runtime.direct import INT_RANGE_MESSAGE
from .builder import IRBuilder, Item, is_tensor, scalar_type_of

# The Python number type of a run-time scalar of each IR type (a "kind", ``scalar_kinds``),
# and what stands for a number of each kind when NumPy is asked (weak, like a literal).
_PYTHON_KINDS = {IntType: int, FloatType: float, BoolType: bool}
_KIND_PROXIES = {int: 1, float: 1.0, bool: True}
# What a run-time scalar of each IR type stands for when NumPy is asked (weak, like a literal).
_SCALAR_PROXIES = {t: _KIND_PROXIES[kind] for t, kind in _PYTHON_KINDS.items()}


def dtype_of(item: Item) -> np.dtype | None:
    """The dtype of an array item whose dtype is known, else None."""
    if isinstance(item, Value) and isinstance(item.type, TensorType):
        st = item.type.scalar_type
        return st.dtype if st is not None else None
    return None


def _proxy(item: Item, strong: dict[Value, np.dtype], given: dict | None = None) -> Any:
    if given and isinstance(item, Value) and item in given:
        return given[item]
    if isinstance(item, Value):
        if isinstance(item.type, TensorType):
            dtype = dtype_of(item)
            # (1-D, not 0-d: NumPy gives a 0-d bool array ** 2 int64, an n-d one int8)
            return None if dtype is None else np.ones(1, dtype)
        known = strong.get(item)
        if known is not None:
            return known.type(1)
        return _SCALAR_PROXIES.get(type(item.type))
    if isinstance(item, (bool, int, float)):
        return item
    return None


def _numpy_result(fn: Callable, items: list[Item], strong: dict[Value, np.dtype],
                  kwargs: dict[str, Item] | None = None, given: dict | None = None) -> Any:
    """What NumPy's ``fn`` returns for proxies of these operands (None: unknown, or NumPy
    refuses them; ``given``: the proxies to take for some values). An OverflowError passes: NumPy
    refuses a Python int out of an integer array's range (``int8_array + 300``), whatever the
    values."""
    proxies = [_proxy(i, strong, given) for i in items]
    named = {k: _proxy(v, strong) for k, v in (kwargs or {}).items()}
    if any(p is None for p in proxies) or any(p is None for p in named.values()):
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*proxies, **named)
    except OverflowError:
        raise
    except Exception:  # noqa: BLE001 - NumPy refuses these dtypes: PyTorch's rules decide
        return None


def numpy_dtype(fn: Callable, items: list[Item], strong: dict[Value, np.dtype] | None = None,
                given: dict | None = None) -> np.dtype | None:
    """The dtype NumPy's ``fn`` gives for these operands (None: unknown, or NumPy refuses);
    ``strong``: the dtypes of the scalar values that are NumPy scalars; ``given``: the proxies
    to take for some values (``_one_for_every_branch``)."""
    result = _numpy_result(fn, items, strong or {}, given=given)
    if result is None:
        return None
    return result if isinstance(result, np.dtype) else np.asarray(result).dtype


def scalar_kinds(b: IRBuilder, item: Item) -> tuple | None:
    """What ``item`` is to NumPy where it is a number: the kinds it may have, each a Python
    number type (weak in NumPy 2's promotion: ``int``, ``float``, ``bool``) or the dtype of a
    NumPy scalar; several where the branch of an if that ran, or whether a loop ran, decides
    (``IRBuilder.branched``). None for arrays, 0-d arrays and other items."""
    if isinstance(item, Value):
        if b.branched and item in b.branched:
            return b.branched[item][1]
        if item in b.numpy_scalars:
            return (b.numpy_scalars[item],)
        python = _PYTHON_KINDS.get(type(item.type))
        if python is not None:
            return (python,)
        if is_tensor(item) and item.type.rank == 0 and item not in b.zero_d_arrays \
                and dtype_of(item) is not None:
            return (dtype_of(item),)    # (x.sum(): a NumPy scalar, held as a 0-d array)
        return None
    return (type(item),) if type(item) in _KIND_PROXIES else None


def kind_key(kind: Any) -> str:
    """A kind (``scalar_kinds``) as a key: ``np.dtype("float64") == float`` holds."""
    return kind.__name__ if isinstance(kind, type) else f"np.{kind.name}"


def holding_dtype(kinds) -> np.dtype:
    """The dtype of a 0-d array that holds a number of any of ``kinds`` (``scalar_kinds``)
    exactly: a Python int an int64, a float a float64, with the NumPy scalars' dtypes."""
    return np.result_type(*[_PYTHON_DTYPES[k] if isinstance(k, type) else k for k in kinds])


_PYTHON_DTYPES = {float: np.dtype(np.float64), int: np.dtype(np.int64), bool: np.dtype(np.bool_)}


def _as_python(b: IRBuilder, item: Item, kind: type) -> Item:
    """``item`` (a number or a 0-d array) as the Python number of ``kind``."""
    from .lowering import to_bool, to_float, to_int  # (lowering imports this module)

    return {float: to_float, int: to_int, bool: to_bool}[kind](b, item)


def _kind_proxy(kind: Any) -> Any:
    return _KIND_PROXIES[kind] if isinstance(kind, type) else kind.type(1)


def _kinded(b: IRBuilder, items: list[Item]) -> list[Value]:
    """The items whose kind the branch that ran decides (``IRBuilder.branched``)."""
    if not b.branched:
        return []
    return [i for i in items if isinstance(i, Value) and i in b.branched]


def result_kinds(b: IRBuilder, fn: Callable, items: list[Item],
                 kwargs: dict[str, Item] | None = None, operator: bool = True
                 ) -> tuple[list, list[int], list | None, list]:
    """The kinds ``fn(*items)`` has for the kinds of its operands that the branch taken
    decides (``IRBuilder.branched``): the indexes of those kinds (one for each if, or loop,
    that decides some) and how many kinds each picks; a kind for each combination of them
    (the first index varying slowest), or None where one is not known; and each
    combination's kinds of the operands. An ``operator`` of Python numbers gives a Python
    number, a NumPy function a NumPy scalar."""
    kinded = _kinded(b, items)
    indexes = list(dict.fromkeys(b.branched[i][0] for i in kinded))
    counts = [len(b.branched[next(i for i in kinded if b.branched[i][0] is index)][1])
              for index in indexes]
    if any(len(b.branched[i][1]) != counts[indexes.index(b.branched[i][0])] for i in kinded):
        return indexes, counts, None, []
    # (a NumPy scalar held as a 0-d array, x.max(): a scalar to NumPy, not an array)
    scalars = {i: _kind_proxy(scalar_kinds(b, i)[0]) for i in items
               if is_tensor(i) and i not in kinded and scalar_kinds(b, i) is not None}
    strong = bool(scalars) or any(isinstance(i, Value) and i in b.numpy_scalars for i in items)
    kinds, combinations = [], []
    for positions in itertools.product(*[range(n) for n in counts]):
        combination = {i: b.branched[i][1][positions[indexes.index(b.branched[i][0])]]
                       for i in kinded}
        given = {**scalars, **{i: _kind_proxy(k) for i, k in combination.items()}}
        value = _numpy_result(fn, items, b.numpy_scalars, kwargs, given)
        if not isinstance(value, (np.generic, np.ndarray, bool, int, float)) or \
                isinstance(value, np.ndarray) and value.ndim:
            return indexes, counts, None, []
        if strong or not operator or not all(isinstance(k, type)
                                             for k in combination.values()):
            kinds.append(np.asarray(value).dtype)
        else:   # (numbers only: a number, as Python's arithmetic gives; NumPy's is a scalar)
            kinds.append(type(np.asarray(value).item()))
        combinations.append(combination)
    return indexes, counts, kinds, combinations


def kinded_result(b: IRBuilder, fn: Callable, items: list[Item], result: Item,
                  kwargs: dict[str, Item] | None = None, operator: bool = True,
                  again: Callable | None = None) -> Item:
    """``result`` of ``fn(*items)`` (a number, or a 0-d array standing for one), some of whose
    operands have one of several kinds by the branch taken: of the one kind every branch
    gives (a Python number, or a NumPy scalar), else with one kind per combination of the
    branches taken (an int or a float times 2; an int or a float minus another of another
    if: the index of the combination from theirs); refused where that cannot be followed (a
    kind whose arithmetic rounds or wraps where the number held does not, unless ``again``
    computes the op again for operands of that kind: ``_in_each_narrow_kind``)."""
    indexes, counts, kinds, combinations = result_kinds(b, fn, items, kwargs, operator)
    if kinds is None:
        return result
    if isinstance(result, Value) and b.branched and result in b.branched and \
            not any(result is i for i in items) and \
            len(b.branched[result][1]) == len(kinds) and len(indexes) == 1 and \
            b.branched[result][0] is indexes[0]:
        # (given its kinds already, as an operator's: np.sqrt(k) lowered as sqrt, whose
        # result for an int k is a np.float64 where the operator's was a float; a narrow
        # kind's result was computed in it then)
        b.branched[result] = (indexes[0], tuple(kinds))
        return result
    if len({kind_key(k) for k in kinds}) == 1:
        kind = kinds[0]
        if is_tensor(result):       # (a 0-d array: the number, or the NumPy scalar)
            if not isinstance(kind, type):
                return cast(b, result, kind, getattr(fn, "__name__", str(fn)))
            return _as_python(b, result, kind)
        return result if isinstance(kind, type) else numpy_scalar(
            b, result, kind, any(result is i for i in items))
    # (the number is computed once, in the widest kind: a np.float32 or np.int8 kind would
    # round or wrap each result where that does not, so those are computed again)
    what = getattr(fn, "__name__", str(fn))
    narrow = any(_narrow(k) for k in kinds)
    number = _NUMBER_TYPES.get(type(result.type)) if isinstance(result, Value) else None
    if not isinstance(result, Value) or len(kinds) > _MOST_KINDS or narrow and (
            again is None or not (is_tensor(result) and result.type.rank == 0 or number)):
        raise _unknown_kind(b, what, _kinded(b, items)[0])
    index = _combined_index(b, indexes, counts)
    if narrow and number is not None:
        # (a number: its narrow kinds picked on a 0-d array of the number type's dtype)
        from .lowering import as_tensor, to_float, to_int  # (lowering imports this module)

        result = _in_each_narrow_kind(b, as_tensor(b, result, what, number), index, kinds,
                                      combinations, again, items, what)
        result = to_float(b, result) if number.kind == "f" else to_int(b, result)
    elif narrow:
        result = _in_each_narrow_kind(b, result, index, kinds, combinations, again, items,
                                      what)
    b.branched[result] = (index, tuple(kinds))
    return result


# The most kinds an op's result follows (the combinations of its operands' branches)
_MOST_KINDS = 16
_NUMBER_TYPES = {FloatType: np.dtype(np.float64), IntType: np.dtype(np.int64)}


def _combined_index(b: IRBuilder, indexes: list, counts: list[int]) -> Item:
    """The index of the combination of branches taken, in ``result_kinds``' order (the first
    index varying slowest), from the index of each (``counts``: how many kinds each picks)."""
    from .lowering import binary  # (lowering imports this module)

    out, stride = None, 1
    for index, count in zip(reversed(indexes), reversed(counts)):
        term = index if stride == 1 else binary(b, "mul", index, stride)
        out = term if out is None else binary(b, "add", out, term)
        stride *= count
    return out


def _narrow(kind: Any) -> bool:
    """A NumPy scalar kind narrower than the 64-bit ones that hold numbers of several."""
    return not isinstance(kind, type) and kind.kind in "iuf" and kind.itemsize < 8


def _in_each_narrow_kind(b: IRBuilder, result: Value, index: Item, kinds: list,
                         combinations: list[dict], again: Callable, items: list[Item],
                         what: str) -> Value:
    """``result`` (a 0-d array of the dtype holding every kind, the op computed there), where
    the branches taken give a narrow kind (``kinds[j]``, a np.float32 or np.int32...): the op
    computed ``again`` for the operands as those branches have them (``combinations[j]``: a
    np.float32 m times 0.1 rounds 0.1 to float32 first, and the product too, as NumPy
    does), held in that dtype."""
    from .lowering import as_tensor, binary, where  # (lowering imports this module)

    held = dtype_of(result)
    for j, kind in enumerate(kinds):
        if not _narrow(kind):
            continue
        operands = []
        for item in items:
            was = combinations[j].get(item) if isinstance(item, Value) else None
            if was is None:
                operands.append(item)
            elif isinstance(was, type):
                operands.append(_as_python(b, item, was))
            else:
                operands.append(cast(b, item, was, what) if is_tensor(item)
                                else as_tensor(b, item, what, was))
        alt = again(operands)
        alt = cast(b, alt, held, what) if is_tensor(alt) else as_tensor(b, alt, what, held)
        result = where(b, binary(b, "eq", index, j), alt, result)
    return result


def numpy_scalar(b: IRBuilder, item: Item, dtype: np.dtype, shared: bool = False) -> Item:
    """``item`` (a number) as a NumPy scalar of ``dtype``: a value recorded in
    ``b.numpy_scalars``. A literal becomes a constant, rounded to ``dtype`` as NumPy's scalar
    is; a ``shared`` value (one the caller's operands hold: ``np.float64(t)``) is copied, so
    that ``t`` keeps its own kind."""
    if dtype.kind not in "biuf" or dtype.itemsize > 8:
        return item
    if isinstance(item, (bool, int, float)):
        number = dtype.type(item).item()
        wide = wide_literal(b, number)       # (a uint64 beyond the IR's int64 ints)
        if wide is not number:
            return wide
        item = b.value_const(number)
    elif shared or b.numpy_scalars.get(item, dtype) != dtype or b.branched and \
            item in b.branched:     # (np.float64(k) of an int-or-float k: a value of its own)
        name = {"b": "Bool", "f": "Float"}.get(dtype.kind, "Int")
        item = b.emit(aten[name], [item], f"np.{dtype.name}")
    if dtype == _FLOAT32 and isinstance(item, Value) and not _holds_float32(item):
        item = _rounded_to_float32(b, item)
    b.numpy_scalars[item] = dtype
    return item


_FLOAT32 = np.dtype(np.float32)
_INT64_MAX = (1 << 63) - 1
_UINT64 = np.dtype(np.uint64)
_INT64 = np.dtype(np.int64)


def _holds_float32(item: Value) -> bool:
    """Is ``item`` a constant or the element of a float32 array (a float32 value already)?"""
    node = item.node
    if node.kind == "prim::Constant":
        return True
    return node.kind == "aten::Float" and dtype_of(node.inputs[0]) == _FLOAT32


def _rounded_to_float32(b: IRBuilder, item: Value) -> Value:
    """A float scalar rounded to float32, as NumPy's float32 scalar arithmetic rounds each
    result (the IR's scalars are doubles: ``np.float32(a) * np.float32(b) + c`` computed in
    double and rounded once differed from NumPy in the last bit in about a third of cases)."""
    from .lowering import as_tensor, to_float  # (lowering imports this module)

    return to_float(b, as_tensor(b, item, "a float32 scalar", _FLOAT32))


def numpy_scalar_result(b: IRBuilder, fn: Callable, items: list[Item], result: Item,
                        kwargs: dict[str, Item] | None = None, operator: bool = True,
                        again: Callable | None = None) -> Item:
    """``result`` of ``fn(*items)`` marked as the NumPy scalar it is when ``fn`` (a NumPy
    function, or a scalar operator on a NumPy scalar) gives one for numbers; other results
    as they are. ``again``: as ``kinded_result``'s."""
    if isinstance(result, Value) and b.branched and result in b.branched and \
            _kinded(b, items):  # (np.sqrt(k) of a k held as a 0-d array: a NumPy scalar)
        return kinded_result(b, fn, items, result, kwargs, operator, again)
    if scalar_type_of(result) is None or any(is_tensor(i) for i in items):
        return result
    if _kinded(b, items):
        return kinded_result(b, fn, items, result, kwargs, operator, again)
    try:
        value = _numpy_result(fn, items, b.numpy_scalars, kwargs)
    except OverflowError as error:   # np.int8(300)
        raise b.error(f"{getattr(fn, '__name__', fn)}: {error}") from None
    if not isinstance(value, np.generic):
        return result   # (a Python number: math.sqrt, np.pi, or NumPy refuses)
    shared = any(result is i for i in items)
    if value.dtype.kind in "iu" and value.dtype.itemsize < 8 and not shared \
            and not isinstance(result, bool):
        result = _wrapped(b, result, value.dtype)
    return numpy_scalar(b, result, value.dtype, shared)


def _wrapped(b: IRBuilder, item: Item, dtype: np.dtype) -> Item:
    """An int result of NumPy scalar arithmetic wrapped into ``dtype``'s range, as NumPy's
    fixed-width scalars wrap: ``np.uint8(200) * 2`` is 144 (the IR's ints are int64; unwrapped,
    ``s += k * 2`` added 400)."""
    bits = 8 * dtype.itemsize
    half = 1 << (bits - 1) if dtype.kind == "i" else 0
    if isinstance(item, int):
        return (item + half) % (1 << bits) - half
    what = f"np.{dtype.name} arithmetic"
    if half:
        item = b.emit(aten.add, [item, b.value_const(half)], what)
    item = b.emit(aten.remainder, [item, b.value_const(1 << bits)], what)
    if half:
        item = b.emit(aten.sub, [item, b.value_const(half)], what)
    return item


def is_numpy_function(fn: Any) -> bool:
    """Whether ``fn`` is NumPy's (a ufunc, a function of ``numpy`` or a scalar type)."""
    return isinstance(fn, np.ufunc) or str(getattr(fn, "__module__", "")).split(".")[0] \
        == "numpy"


def cast(b: IRBuilder, x: Value, dtype: np.dtype, what: str) -> Value:
    """``x`` as ``dtype``: ``aten::type_as`` against a 0-d constant of that dtype."""
    if dtype_of(x) is not None and dtype_of(x) == dtype:   # (np.dtype(...) == None holds)
        return x
    try:
        ScalarType.from_dtype(dtype)
    except DTypeError:   # uint8_array.sum(): NumPy's uint64
        raise b.error(f"{what}: NumPy gives {dtype} here, a dtype fusejit has no arrays of "
                      f"(bool, uint8, int8 to int64, float32, float64); cast the operand "
                      f"first, e.g. x.astype(np.int64)") from None
    return b.emit(aten.type_as, [x, b.value_const(np.zeros((), dtype))], what)


def _one_for_every_branch(b: IRBuilder, fn: Callable, items: list[Item], what: str,
                          mixed: dict[Value, list], kinded: bool = False) -> np.dtype:
    """NumPy's result dtype for operands of which some (``mixed``: their proxies) have one of
    several dtypes or kinds, by the branch that ran: the same for every combination of them
    (int32 or float64 times 1.5: float64; an int or a float plus a float32 array: float32),
    which every operand is then cast to; where it differs (int32 or float64 plus 1: int32 or
    float64), the op is refused, unless ``kinded``: the caller gives a result of numbers
    (no arrays) its kind by the branch (``kinded_result``), held in a dtype that holds each."""
    found = set()
    for combination in itertools.product(*mixed.values()):
        given = dict(zip(mixed, combination))
        try:
            found.add(numpy_dtype(fn, items, b.numpy_scalars, given))
        except OverflowError:
            found.add(None)
    if kinded and len(found) > 1 and None not in found and all(
            b.branched and m in b.branched for m in mixed) and \
            all(not is_tensor(i) or i.type.rank == 0 for i in items):
        # (numbers: k - 1 of a k that is an int or a np.float64 by the branch taken is an int
        # or a np.float64 by it too, held in the dtype that holds both, ``kinded_result``)
        return np.result_type(*found)
    if len(found) != 1 or None in found:
        first = next(iter(mixed))
        if not is_tensor(first) or b.branched and first in b.branched:
            raise _unknown_kind(b, what, first)
        raise _unknown_dtype(b, what, first)
    return found.pop()


def branch_dtype(b: IRBuilder, fn: Callable, items: list[Item], what: str) -> np.dtype | None:
    """NumPy's result dtype for ``fn`` of ``items`` (``numpy_dtype``), where some may be
    numbers whose kind the branch that ran decides: the one dtype every branch gives, or an
    error (``np.where(c, t, 2.5)`` of a ``t`` that is np.float32 or np.float64: float32 or
    float64 by the branch)."""
    kinded = {i: [_kind_proxy(k) for k in b.branched[i][1]] for i in _kinded(b, items)}
    if kinded:
        return _one_for_every_branch(b, fn, items, what, kinded)
    return numpy_dtype(fn, items, b.numpy_scalars)


def _viewed(x: Value) -> Value:
    from .numpy_lowering import viewed  # (numpy_lowering imports this module)

    return viewed(x)


def _unknown_dtype(b: IRBuilder, what: str, x: Value) -> Exception:
    """The error for an op whose operand ``x`` has no dtype while scripting: the branches of
    an ``if`` give it different dtypes, so NumPy's result dtype depends on the branch that
    runs, which fusejit does not follow (PyTorch's rules typed such ops: float32 where NumPy
    gives float64)."""
    name = f"{x.debug_name!r} " if x.has_debug_name() else ""
    return b.error(f"{what}: the array {name}has no one dtype here (the branches of an if "
                   f"give it different dtypes), and NumPy's result dtype depends on the "
                   f"branch that ran; give it one dtype in every branch (x.astype(...))")


def _unknown_kind(b: IRBuilder, what: str, x: Value) -> Exception:
    """The error for an op on a number whose kind (an int or a float, a np.float32 or a
    np.float64...) depends on the branch of an if that ran, or on whether a loop ran, where
    NumPy's result dtype then depends on it too."""
    name = f"{x.debug_name!r}" if x.has_debug_name() else "a number"
    kinds = " or ".join(dict.fromkeys(kind_key(k) for k in b.branched[x][1]))
    return b.error(f"{what}: {name} is {kinds} by the branch of an if that ran (or by whether "
                   f"a loop ran), and NumPy's result dtype depends on which; give it one type "
                   f"everywhere (float(...), np.float64(...))")


def wide_literal(b: IRBuilder, item: Item) -> Item:
    """``item``, or a Python int beside a uint64 array that the IR's int64 ints cannot hold
    (``x > 2**63``) as a 0-d uint64 array, which NumPy 2 promotes with the array as it does
    the int."""
    if type(item) is int and _INT64_MAX < item < 1 << 64:
        return b.value_const(np.array(item, _UINT64))
    return item


def check_python_ints(b: IRBuilder, items: list[Item], dtype: np.dtype | None,
                      what: str) -> None:
    """NumPy 2 converts a Python int that meets an integer array to the array's (the result's)
    dtype, and raises OverflowError where it does not fit (``uint8_array + k``, ``k = 300``).
    A literal is checked where it is scripted (``numpy_dtype``); an int known only at run time
    is checked when it runs, here, where the compiled forms would otherwise wrap it (300 as 44).
    NumPy scalars are not checked (they are cast, as arrays are). A number that a branch makes
    an int or a NumPy integer is checked as the int: ``conform`` refused it unless every kind
    gives this dtype, and then the dtype holds each NumPy kind's values."""
    if dtype is None or dtype.kind not in "iu" or dtype == _INT64:
        return
    info, block = np.iinfo(dtype), b.graph.insert_point.owning_block
    for item in items:
        if not isinstance(item, Value) or not isinstance(item.type, IntType) or \
                b.static(item) is not ... or item in b.numpy_scalars or \
                (item, dtype, block) in b.checked_ints:
            continue
        b.checked_ints.add((item, dtype, block))
        message = f"{INT_RANGE_MESSAGE}{dtype.name} ({what})"
        b.raise_unless(b.emit(aten.ge, [item, info.min]), message)
        if info.max <= _INT64_MAX:
            b.raise_unless(b.emit(aten.le, [item, info.max]), message)


def unsigned_total(x: Value) -> int | None:
    """The ``dtype`` argument a sum, product or running sum or product of ``x`` (already in
    NumPy's dtype for it) needs: uint64's ScalarType code for a uint64 ``x``, since PyTorch's
    ops add ints up in int64 unless told, else None."""
    return DTYPE_CODES[_UINT64] if dtype_of(x) == _UINT64 else None


def conform(b: IRBuilder, fn: Callable, items: list[Item], what: str,
            result: bool = True, kinded: bool = False) -> list[Item]:
    """``items`` with every array cast to the dtype NumPy's ``fn`` computes in.

    ``result=True``: that is NumPy's result dtype (arithmetic, ``sqrt``...). For ops whose
    result is bool (comparisons) the arrays are cast to the common NumPy dtype of the arrays
    and the NumPy scalars instead, and only when they differ (``f32 == np.float64(0.1)``
    compares in float64: False for float32's 0.1, which ``f32 == 0.1`` finds).

    ``kinded``: numbers of several kinds by the branch taken (``IRBuilder.branched``) may give
    several result dtypes, which the caller follows (``kinded_result``).
    """
    arrays = [i for i in items if is_tensor(i)]
    if not arrays:
        return items
    mixed = {a: [np.ones(1, d) for d in sorted(b.mixed_dtypes[_viewed(a)], key=str)]
             for a in arrays if result and _viewed(a) in b.mixed_dtypes}
    if result:
        mixed.update({i: [_kind_proxy(k) for k in b.branched[i][1]] for i in _kinded(b, items)})
    if any(dtype_of(a) == _UINT64 for a in arrays):
        items = [wide_literal(b, i) for i in items]
    if mixed:
        target = _one_for_every_branch(b, fn, items, what, mixed, kinded)
    elif result:
        try:
            target = numpy_dtype(fn, items, b.numpy_scalars)
        except OverflowError as error:
            raise b.error(f"{what}: {error} (NumPy 2 refuses a Python int out of the "
                          f"array's range)") from None
    else:
        dtypes = {dtype_of(a) for a in arrays} | {
            b.numpy_scalars[i] for i in items if isinstance(i, Value) and i in b.numpy_scalars}
        if len(dtypes) < 2 or None in dtypes:
            return items
        target = np.result_type(*dtypes)
    if target is None:
        return items
    if target == np.dtype(np.bool_) and any(dtype_of(a) != target for a in arrays):
        return items  # a predicate (logical_not of floats): its input is not cast to bool
    if result and isinstance(fn, np.ufunc):
        check_python_ints(b, items, target, what)
    return [cast(b, i, target, what) if is_tensor(i) else i for i in items]


__all__ = ["branch_dtype", "cast", "check_python_ints", "conform", "dtype_of", "holding_dtype",
           "is_numpy_function", "kind_key", "kinded_result", "numpy_dtype", "numpy_scalar",
           "numpy_scalar_result", "result_kinds", "scalar_kinds", "unsigned_total",
           "wide_literal"]
