"""Lists, tuples, identity tests, exceptions and the other small ``prim::`` ops.

::

    %l : Tensor[] = prim::ListConstruct(%a, %b)
    %x : Tensor, %y : Tensor = prim::ListUnpack(%l)        an error unless %l has 2 elements
    %t : (int, float) = prim::TupleConstruct(%i, %f)
    %f2 : float = prim::TupleIndex(%t, %one)
     = prim::RaiseException(%msg)                           raises fusejit.JITException
    %n : bool = aten::__is__(%opt, %none)

Lists are Python lists (``aten::append`` mutates one in place), tuples are Python tuples.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import JITException, builtin_kind, make
from .table import DTYPE_CODES, as_tensor, declare, register


def _list_construct(*items: Any) -> list:
    return list(items)


def _list_unpack(items: list, *, num_outputs: int) -> tuple:
    if len(items) != num_outputs:
        raise RuntimeError(f"Expected {num_outputs} elements in a list but found {len(items)}")
    return tuple(items)


def _tuple_construct(*items: Any) -> tuple:
    return tuple(items)


def _tuple_unpack(items: tuple, *, num_outputs: int) -> tuple:
    if len(items) != num_outputs:
        raise RuntimeError(f"Expected a tuple of {num_outputs} elements but found {len(items)}")
    return tuple(items)


def _tuple_index(items: tuple, index: int) -> Any:
    if not -len(items) <= index < len(items):
        raise IndexError(f"tuple index {index} out of range for a tuple of {len(items)}")
    return items[index]


def _tuple_slice(items: tuple, *, beg: int, end: int) -> tuple:
    return tuple(items[beg:end])


register("prim::ListConstruct", _list_construct)
register("prim::ListUnpack", _list_unpack, multiple=True, binds=("num_outputs",))
register("prim::TupleConstruct", _tuple_construct)
register("prim::TupleUnpack", _tuple_unpack, multiple=True, binds=("num_outputs",))
register("prim::TupleIndex", _tuple_index)
register("prim::TupleSlice", _tuple_slice, binds=("beg", "end"))


def _len(a: list) -> int:
    return len(a)


def _getitem(items: list, idx: int) -> Any:
    if not -len(items) <= idx < len(items):
        raise IndexError("list index out of range")
    return items[idx]


def _append(items: list, el: Any) -> list:
    items.append(el)
    return items


register("aten::len(t[] a) -> int", _len)
register("aten::__getitem__(t[] list, int idx) -> t", _getitem)
register("aten::append(t[](a!) self, t(c -> *) el) -> t[](a!)", _append, pure=False)


def _is(a: Any, b: Any) -> bool:
    """TorchScript's ``is``: identity for tensors and containers, equality for plain numbers."""
    if a is None or b is None:
        return a is b
    if isinstance(a, (bool, int, float, str)) and isinstance(b, (bool, int, float, str)):
        return type(a) is type(b) and a == b
    return a is b


register("aten::__is__(t1 self, t2 obj) -> bool", _is)
register("aten::__isnot__(t1 self, t2 obj) -> bool", lambda self, obj: not _is(self, obj))


def _raise_exception(message: Any = "Exception", *rest: Any) -> tuple:
    # (a JITException that is also the builtin class the message names: ValueError, ...)
    text = str(message)
    raise make(JITException, builtin_kind(text), text)


def _warn(message: str, stacklevel: int = 2) -> tuple:
    warnings.warn(message, stacklevel=2)
    return ()


def _print(*values: Any) -> tuple:
    print(" ".join(str(v) for v in values))
    return ()


register("prim::RaiseException", _raise_exception, pure=False, multiple=True)
register("aten::warn(str message, int stacklevel=2) -> ()", _warn, pure=False, multiple=True)
register("prim::Print", _print, pure=False, multiple=True)
register("prim::Uninitialized", lambda: None)
register("prim::unchecked_cast", lambda x: x)


def _prim_extremum(pick):
    def body(*args: Any) -> Any:
        values = list(args[0]) if len(args) == 1 else list(args)
        if not values:
            raise RuntimeError("max() or min() of an empty list")
        return pick(values)

    return body


register("prim::max", _prim_extremum(max))
register("prim::min", _prim_extremum(min))
register("prim::abs", lambda x: as_tensor(np.abs(x)) if isinstance(x, np.ndarray) else abs(x))
register("prim::dtype", lambda a: DTYPE_CODES[a.dtype])
register("prim::device", lambda a: "cpu")

# Run by the interpreter itself (it waits on the future), so it has a schema and no body.
declare("aten::wait(Future(t) self) -> t")
