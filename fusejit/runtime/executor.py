"""``fusejit.compile``: a graph made callable.

::

    fn = compile(parse_ir('''graph(%x : Float(3), %n : int):
      %y : Float(3) = aten::mul(%x, %n)
      return (%y)'''))
    fn(np.ones(3, np.float32), 2)        # array([2., 2., 2.], dtype=float32)

Arguments are checked against the graph's input types, and a mismatch raises
:class:`~fusejit.InterpreterError` naming the parameter. A ``Tensor`` parameter accepts a NumPy
array of any dtype and shape, even where the IR type is complete (``Float(3, 4)``): graphs are
specialised per input later, and PyTorch's profiled graphs likewise take any tensor. ``int``,
``float`` and ``bool`` parameters take Python (or NumPy) scalars of that kind, an ``int`` also
where a ``float`` is expected; ``bool`` is not an ``int`` here, as in TorchScript. Lists, tuples
and optionals are checked element by element.

``fuse=True`` runs the graph fuser on a copy (when ``fusejit.passes.fuse_graph`` exists) and the
fusion groups run by interpreting their subgraphs. The compiled function is thread-safe: every
call has its own registers.

``engine="native"`` (the default) runs the Numba instruction loop (``runtime/interpreter.py``);
``engine="reference"`` the pure-Python loop it is tested against (``runtime/reference.py``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FusejitError, InterpreterError
from ..ir.graph import Graph, Value
from ..ir.types import (
                        AnyType,
                        BoolType,
                        DeviceType,
                        FloatType,
                        IntType,
                        ListType,
                        NoneType,
                        NumberType,
                        OptionalType,
                        StringType,
                        TensorType,
                        TupleType,
                        Type,
)
from .code import Code
from .interpreter import NativeInterpreter
from .reference import InterpreterState

ENGINES = ("native", "reference")


class CompiledFunction:
    """A graph ready to run: ``fn(*inputs)`` returns one value, a tuple, or None (no outputs)."""

    def __init__(self, graph: Graph, fuse: bool = False, engine: str = "native"):
        if not isinstance(graph, Graph):
            raise FusejitError(f"compile needs a fusejit Graph, got {type(graph).__name__}")
        if engine not in ENGINES:
            raise FusejitError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
        self.engine = engine
        self.graph = graph.copy()
        self.params = list(self.graph.inputs)
        run_graph = self.graph.copy()
        if fuse:
            _fuse(run_graph)
        self.run_graph = run_graph
        self.code = Code(run_graph)

    def check_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """The inputs, converted where TorchScript converts (int for float); or a clear error."""
        if len(inputs) != len(self.params):
            names = ", ".join(f"%{p.debug_name}" for p in self.params)
            raise InterpreterError(
                f"expected {len(self.params)} arguments ({names}), got {len(inputs)}")
        return [_check_argument(p, i, x) for i, (p, x) in enumerate(zip(self.params, inputs))]

    def __call__(self, *inputs: Any) -> Any:
        stack = self.check_inputs(inputs)
        if self.engine == "native":
            NativeInterpreter(self.code).run(stack)
        else:
            InterpreterState(self.code).run(stack)
        if len(stack) == 1:
            return stack[0]
        return tuple(stack) if stack else None

    def graph_for(self, *inputs: Any) -> Graph:
        """The graph that runs for these inputs (fused when compiled with ``fuse=True``)."""
        self.check_inputs(inputs)
        return self.run_graph

    def __repr__(self) -> str:
        names = ", ".join(f"%{p.debug_name}" for p in self.params)
        return f"<fusejit.CompiledFunction ({names}) engine={self.engine}>"


def compile(graph: Graph, fuse: bool = False, engine: str = "native") -> CompiledFunction:
    """Make ``graph`` callable; see :class:`CompiledFunction`."""
    return CompiledFunction(graph, fuse=fuse, engine=engine)


def _fuse(graph: Graph) -> None:
    try:
        from ..passes.graph_fuser import fuse_graph
    except ImportError:
        warnings.warn("fusejit.passes.fuse_graph is not available: running unfused",
                      RuntimeWarning, stacklevel=3)
        return
    fuse_graph(graph)


class _Mismatch(Exception):
    pass


def _check_argument(param: Value, index: int, value: Any) -> Any:
    try:
        return _convert(param.type, value)
    except _Mismatch as why:
        raise InterpreterError(
            f"argument %{param.debug_name} (input {index}) expects {param.type}, got "
            f"{_describe(value)}{why}") from None


def _convert(t: Type, value: Any) -> Any:
    if isinstance(t, TensorType):
        if isinstance(value, np.ndarray):
            return value
        raise _Mismatch()
    if isinstance(t, BoolType):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise _Mismatch()
    if isinstance(t, IntType):
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return int(value)
        raise _Mismatch()
    if isinstance(t, FloatType):
        if isinstance(value, (bool, np.bool_)):
            raise _Mismatch()
        if isinstance(value, (float, np.floating)):
            return float(value)
        if isinstance(value, (int, np.integer)):
            return float(value)
        raise _Mismatch()
    if isinstance(t, NumberType):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise _Mismatch()
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(t, NoneType):
        if value is None:
            return None
        raise _Mismatch()
    if isinstance(t, OptionalType):
        return None if value is None else _convert(t.elem, value)
    if isinstance(t, ListType):
        if not isinstance(value, (list, tuple)):
            raise _Mismatch()
        return [_convert_element(t.elem, i, x) for i, x in enumerate(value)]
    if isinstance(t, TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.elems):
            raise _Mismatch()
        return tuple(_convert_element(e, i, x) for i, (e, x) in enumerate(zip(t.elems, value)))
    if isinstance(t, StringType):
        if isinstance(value, str):
            return value
        raise _Mismatch()
    if isinstance(t, (AnyType, DeviceType)):
        return value
    # Types the interpreter passes through unchecked (futures, classes): the graph decides.
    return value


def _convert_element(t: Type, index: int, value: Any) -> Any:
    try:
        return _convert(t, value)
    except _Mismatch as why:
        raise _Mismatch(f" (element {index} is {_describe(value)}{why})") from None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype} {tuple(value.shape)}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__
