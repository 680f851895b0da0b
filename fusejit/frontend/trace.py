"""``fusejit.trace``: record a NumPy function's operations by running it on tracer arrays.

::

    def f(x, y):
        return np.tanh(x) * 2 + y

    trace(f, np.ones((3, 4), np.float32), np.ones(4, np.float32))

    graph(%x : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),
          %y : Float(4, strides=[1], requires_grad=0, device=cpu)):
      %2 : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::tanh(%x)  # f.py:2:11
      ...

A :class:`TracerArray` wraps an example value and the IR value that produced it. NumPy hands
ufunc calls to ``__array_ufunc__`` and functions to ``__array_function__``; ``fusejit.ops``
hands its functions to ``__fusejit_op__``. Each records the node ``fusejit.script`` would emit
for the same call (one lowering serves both) and computes the result eagerly, with the dtype
PyTorch gives it, so every recorded type is complete.

**Control flow is frozen**: ``if``, ``while``, ``bool(x)``, ``float(x)``, ``len(x)`` and
``x.shape`` read the example values, and the graph holds only the path they took (a
``TracerWarning`` says so where a tensor decides). Use ``fusejit.script`` for data-dependent
control flow.
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops as F
from ..errors import ScriptError
from ..ir.graph import Graph, Value
from ..ir.symbols import aten
from ..ir.types import TensorType
from ..oplib.dtypes import DEFAULT_FLOAT, result_type
from .builder import IRBuilder, Location, rebuilt, remove_unused_constants
from .calls import CALLEES, METHODS, Callee
from .lowering import transpose
from .numpy_lowering import index as _index


def _basic_index(i: Any) -> bool:
    if isinstance(i, slice):
        return all(p is None or (isinstance(p, (int, np.integer)) and not isinstance(p, bool))
                   for p in (i.start, i.stop, i.step))
    return i is None or i is Ellipsis or (isinstance(i, (int, np.integer))
                                          and not isinstance(i, bool))

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class TracerWarning(UserWarning):
    """A traced function's control flow read a tensor's value: the graph is frozen to it."""


def trace(fn: Callable, *example_inputs: np.ndarray) -> Graph:
    """Run ``fn`` on tracer arrays made from ``example_inputs`` and return the recorded graph.

    The example arrays are copied (in-place operations do not touch them); their dtypes and
    shapes give the graph's input types. Python control flow is frozen to the path taken.
    """
    if not callable(fn):
        raise ScriptError(f"fusejit.trace needs a function, got {type(fn).__name__}")
    graph = Graph()
    state = _TraceState(graph)
    names = _parameter_names(fn, len(example_inputs))
    tracers = []
    for i, (name, example) in enumerate(zip(names, example_inputs)):
        if isinstance(example, np.generic):
            example = np.asarray(example)
        if not isinstance(example, np.ndarray):
            raise ScriptError(f"fusejit.trace: example input {i} ({name}) is a "
                              f"{type(example).__name__}; only NumPy arrays can be traced "
                              f"(bind other arguments with a closure)")
        value = example.copy()
        tracers.append(TracerArray(state, value, graph.add_input(name, TensorType.of_array(value))))
    result = fn(*tracers)
    with graph.inserting_before(graph.block):
        for value in state.outputs(result):
            graph.register_output(value)
    remove_unused_constants(graph)
    graph.lint()
    return graph


def _parameter_names(fn: Callable, count: int) -> list[str | None]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names: list[str | None] = [None] * count
    for i, param in enumerate(params[:count]):
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            names[i] = param.name
    return names


class _TraceState:
    """The graph being recorded and how to locate the user's line that made each node."""

    def __init__(self, graph: Graph):
        self.graph = graph
        # Typed: every node's dtype is inferred as it is recorded, so the recorded values take
        # the dtype the graph computes (NumPy's, through the casts ``numpy_dtypes`` inserts).
        self.b = IRBuilder(graph, typed=True)

    def locate(self) -> None:
        frame = sys._getframe(2)
        while frame is not None:
            file = os.path.abspath(frame.f_code.co_filename)
            if not (file.startswith(_PACKAGE_DIR) or file.startswith(_NUMPY_DIR)):
                self.b.loc = Location(frame.f_code.co_filename, frame.f_lineno, _column(frame))
                return
            frame = frame.f_back
        self.b.loc = None

    def item(self, obj: Any) -> Any:
        """A call argument as a lowering item: tracers give their IR value."""
        if isinstance(obj, TracerArray):
            if obj._state is not self:
                raise self.b.error("a tracer array from another trace was used here")
            return obj._ir
        if isinstance(obj, np.generic):
            obj = obj.item()
        if isinstance(obj, (bool, int, float, slice, str)) or obj is None or obj is Ellipsis:
            return obj   # (a str: an option known while tracing, np.einsum's subscripts)
        if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
            return np.dtype(obj)
        if isinstance(obj, np.ndarray):  # an array the function closes over: a constant
            return self.b.value_const(obj)
        if isinstance(obj, (tuple, list)):
            return rebuilt(obj, [self.item(o) for o in obj])
        raise self.b.error(f"a {type(obj).__name__} cannot be traced")

    def record(self, callee: Callee, eager: Callable, args: tuple, kwargs: dict) -> Any:
        """Emit ``callee`` on the items of ``args``, run ``eager`` on their values, pair them."""
        self.locate()
        items = [self.item(a) for a in args]
        keyword_items = {k: self.item(v) for k, v in kwargs.items()}
        out = callee(self.b, items, keyword_items)
        try:
            values = eager(*_unwrap(args), **_unwrap(kwargs))
        except Exception as error:  # the user's example inputs do not fit the call
            raise self.b.error(f"{callee.name} failed on the example values: {error}") from None
        if isinstance(out, tuple):
            return [self.wrap(v, np.asarray(a), None, args) for v, a in zip(out, values)]
        return self.wrap(out, values, callee.rule, args)

    def wrap(self, ir: Any, value: Any, rule: str | None, args: tuple) -> Any:
        if not isinstance(ir, Value):  # folded at compile time (e.g. len of a tuple)
            return ir
        if not isinstance(ir.type, TensorType):
            return value
        value = np.asarray(value)
        scalar = ir.type.scalar_type
        dtype = scalar.dtype if scalar is not None else _pytorch_dtype(rule, args, value.dtype)
        if dtype != value.dtype:
            value = value.astype(dtype)
        ir.set_type(TensorType.of_array(value))
        return TracerArray(self, value, ir)

    def outputs(self, result: Any) -> list[Value]:
        if isinstance(result, (tuple, list)):
            return [v for r in result for v in self.outputs(r)]
        self.b.loc = None
        return [self.b.value(self.item(result))]


def _column(frame) -> int:
    """The column of the instruction a frame is executing (Python 3.11+), else 0."""
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is None:
        return 0
    index = frame.f_lasti // 2
    for i, position in enumerate(positions()):
        if i == index:
            return position[2] or 0
    return 0


def _unwrap(obj: Any) -> Any:
    if isinstance(obj, TracerArray):
        return obj._value
    if isinstance(obj, (tuple, list)):
        return rebuilt(obj, [_unwrap(o) for o in obj])
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    return obj


def _pytorch_dtype(rule: str | None, args: tuple, numpy_dtype: np.dtype) -> np.dtype:
    """The dtype PyTorch gives the result where NumPy's rules differ (see ``calls``)."""
    operands = [a for a in _unwrap(args) if isinstance(a, (np.ndarray, bool, int, float))]
    if rule is None or not operands:
        return numpy_dtype
    if rule == "promote_last2":
        operands = operands[1:3]
    if rule in ("promote", "promote_last2", "div"):
        dtype = result_type(*operands)
        return DEFAULT_FLOAT if rule == "div" and dtype.kind != "f" else dtype
    first = np.asarray(operands[0]).dtype
    if rule == "float":
        return first if first.kind == "f" else DEFAULT_FLOAT
    if rule == "same":
        return first
    if rule == "bool":
        return np.dtype(np.bool_)
    return numpy_dtype


def _method(name: str, eager: Callable) -> Callable:
    def method(self: TracerArray, *args: Any, **kwargs: Any) -> Any:
        return self._state.record(METHODS[name], eager, (self, *args), kwargs)
    method.__name__ = name
    return method


def _ufunc_operator(ufunc: np.ufunc, reflected: bool = False) -> Callable:
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


def _inplace_operator(op: str, ufunc: np.ufunc) -> Callable:
    """``x += y`` on a tracer records ``aten::add_`` and updates the example value in place."""
    def method(self: TracerArray, other: Any) -> TracerArray:
        state = self._state
        state.locate()
        operand = state.item(other)
        args = [self._ir, operand, 1] if op in ("add", "sub") else [self._ir, operand]
        out = state.b.emit(aten[f"{op}_"], args, f"'{op}='")
        try:
            ufunc(self._value, _unwrap(other), out=self._value)
        except Exception as error:
            raise state.b.error(f"in-place {op} failed on the example values: {error}") from None
        out.set_type(TensorType.of_array(self._value))
        self._ir = out
        return self
    return method


class TracerArray:
    """An example array plus the IR value that computes it; operations on it are recorded."""

    __slots__ = ("_state", "_value", "_ir")
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    def __init__(self, state: _TraceState, value: np.ndarray, ir: Value):
        self._state = state
        self._value = value
        self._ir = ir

    # -- NumPy protocols ----------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        callee = CALLEES.get(ufunc)
        if method != "__call__" or callee is None:
            shown = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
            self._state.locate()
            raise self._state.b.error(f"np.{shown} is not supported by fusejit.trace")
        return self._state.record(callee, ufunc, inputs, kwargs)

    def __array_function__(self, func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
        callee = CALLEES.get(func)
        if callee is None:
            self._state.locate()
            raise self._state.b.error(f"np.{getattr(func, '__name__', func)} is not supported "
                                      f"by fusejit.trace")
        return self._state.record(callee, func, args, kwargs)

    def __fusejit_op__(self, name: str, args: tuple, kwargs: dict) -> Any:
        function = getattr(F, name)
        return self._state.record(CALLEES[function], function.__wrapped__, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        self._state.locate()
        raise self._state.b.error("a tracer array was converted to a plain NumPy array (by a "
                                  "function fusejit.trace does not understand)")

    # -- operators ----------------------------------------------------------------------------

    __add__, __radd__ = _ufunc_operator(np.add), _ufunc_operator(np.add, True)
    __sub__, __rsub__ = _ufunc_operator(np.subtract), _ufunc_operator(np.subtract, True)
    __mul__, __rmul__ = _ufunc_operator(np.multiply), _ufunc_operator(np.multiply, True)
    __truediv__ = _ufunc_operator(np.divide)
    __rtruediv__ = _ufunc_operator(np.divide, True)
    __floordiv__ = _ufunc_operator(np.floor_divide)
    __rfloordiv__ = _ufunc_operator(np.floor_divide, True)
    __mod__, __rmod__ = _ufunc_operator(np.remainder), _ufunc_operator(np.remainder, True)
    __pow__, __rpow__ = _ufunc_operator(np.power), _ufunc_operator(np.power, True)
    __matmul__, __rmatmul__ = _ufunc_operator(np.matmul), _ufunc_operator(np.matmul, True)
    __and__, __rand__ = _ufunc_operator(np.bitwise_and), _ufunc_operator(np.bitwise_and, True)
    __or__, __ror__ = _ufunc_operator(np.bitwise_or), _ufunc_operator(np.bitwise_or, True)
    __xor__, __rxor__ = _ufunc_operator(np.bitwise_xor), _ufunc_operator(np.bitwise_xor, True)
    __lshift__, __rlshift__ = _ufunc_operator(np.left_shift), _ufunc_operator(np.left_shift, True)
    __rshift__ = _ufunc_operator(np.right_shift)
    __rrshift__ = _ufunc_operator(np.right_shift, True)
    __lt__, __le__ = _ufunc_operator(np.less), _ufunc_operator(np.less_equal)
    __gt__, __ge__ = _ufunc_operator(np.greater), _ufunc_operator(np.greater_equal)
    __eq__, __ne__ = _ufunc_operator(np.equal), _ufunc_operator(np.not_equal)  # type: ignore
    __iadd__ = _inplace_operator("add", np.add)
    __isub__ = _inplace_operator("sub", np.subtract)
    __imul__ = _inplace_operator("mul", np.multiply)
    __itruediv__ = _inplace_operator("div", np.divide)

    def __neg__(self) -> Any:
        return np.negative(self)

    def __pos__(self) -> TracerArray:
        return self

    def __abs__(self) -> Any:
        return np.abs(self)

    def __getitem__(self, index: Any) -> Any:
        indices = index if isinstance(index, tuple) else (index,)
        state = self._state
        if not all(_basic_index(i) for i in indices):
            state.locate()
            raise state.b.error("fusejit.trace supports basic indexing only (ints, slices, "
                                "None, '...'); for a mask write np.where(mask, x, 0)")
        indices = tuple(int(i) if isinstance(i, np.integer) else i for i in indices)
        callee = Callee("indexing", "x, index", _index)
        return state.record(callee, lambda x, i: x[i], (self, indices), {})

    # -- attributes and methods ---------------------------------------------------------------

    @property
    def T(self) -> Any:  # noqa: N802 (NumPy's name)
        return self._state.record(Callee(".T", "x", transpose), lambda x: x.T, (self,), {})

    @property
    def shape(self) -> tuple[int, ...]:
        """The example's shape, as plain ints: frozen into the graph as constants."""
        return self._value.shape

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def size(self) -> int:
        return self._value.size

    sum = _method("sum", lambda a, axis=None, keepdims=False: np.sum(a, axis, keepdims=keepdims))
    reshape = _method("reshape", lambda a, *shape: a.reshape(*shape))
    clip = _method("clip", lambda a, min=None, max=None: np.clip(a, min, max))
    transpose = _method("transpose", lambda a: a.T)
    item = _method("item", lambda a: a.item())

    def __len__(self) -> int:
        return len(self._value)

    def _frozen(self, what: str) -> None:
        self._state.locate()
        where = f" at {self._state.b.loc}" if self._state.b.loc else ""
        warnings.warn(f"{what} of a traced array{where}: the graph is frozen to the example "
                      f"value (use fusejit.script for data-dependent control flow)",
                      TracerWarning, stacklevel=3)

    def __bool__(self) -> bool:
        self._frozen("bool()")
        return bool(self._value)

    def __float__(self) -> float:
        self._frozen("float()")
        return float(self._value)

    def __int__(self) -> int:
        self._frozen("int()")
        return int(self._value)

    def __index__(self) -> int:
        self._frozen("using as an index")
        return self._value.__index__()

    def __repr__(self) -> str:
        return f"TracerArray(%{self._ir.debug_name}, {self._value!r})"


def _eager_method(name: str) -> Callable:
    return lambda a, *args, **kwargs: getattr(a, name)(*args, **kwargs)


# Every other array method the script frontend knows (mean, max, astype, cumsum ...) records
# the same lowering.
for _name in METHODS:
    if not hasattr(TracerArray, _name):
        setattr(TracerArray, _name, _method(_name, _eager_method(_name)))


__all__ = ["TracerArray", "TracerWarning", "trace"]
