"""Tiny graphs with nothing to fuse, run as the NumPy ufunc calls they stand for.

A lone op (``x + y``), independent ops on the same inputs (``x + y, x * y``) or an op and a
full reduction of it (``(x * y).max()``) gain nothing from a fused kernel on small arrays: NumPy's
own loops are as fast, and every layer between the call and them (the executor's checks, the
interpreter, the operator table's promotion and casts) costs more than the loop itself below
~10^4 elements. Where each op of such a graph is a NumPy ufunc for its operand dtypes (the
table's ``Overload.ufunc``: every tensor operand already of the result dtype, every other
argument at its schema default; a Python number, constant or argument, is NumPy's weak
scalar: a float with a float array, an int with an integer one, in the array's dtype; a
comparison's operands of one dtype, its result bool), the graph is written out as those
calls::

    graph(%x : Float(*), %y : Float(*)):         def direct(a0, a1):
      %2 : int = prim::Constant[value=1]()
      %3 : Float(*) = aten::mul(%x, %y)              v0 = U0(a0, a1)        # U0 = np.multiply
      %4 : Float() = aten::amax(%3, [], False)       v1 = U1.reduce(v0, axis=None)
      return (%4)                                     return v1

The result is what NumPy eager gives for the NumPy spelling (a full reduction is a NumPy
scalar, as ``x.max()`` is), and what the graph's own path gives. Any exception (an empty
reduction, shapes that do not broadcast) means: run the graph's own path, which raises its
``FusejitError`` naming the node. Floating-point errors are NumPy's too: an overflow warns as
it does in NumPy eager (the table's bodies and fused kernels are silent, as PyTorch is; setting
NumPy's error state for the call would cost ~0.4 us, as much as ``x + y`` on 10^3 float32
elements), and where the user's error state or warning filters turn that into an exception,
the graph's own path computes the result, silently. The text holds only made-up names; ufuncs
and constants are globals of the generated code, so no user text enters it.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.schema import registry
from ..ir.symbols import aten, prim
from ..ir.types import FloatType, IntType, TensorType
from ..oplib.table import find_entry
from ..passes.lone_maps import costly_map
from .fusion.outputs import MIN_BYTES

_count = itertools.count()

# Comparisons: a bool result of operands of another dtype.
_COMPARISONS = frozenset({np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                          np.greater_equal})

# Arrays a graph with a temporary (an op feeding a reduction) runs directly up to: beyond, the
# fused kernel, which reads its inputs once and writes no temporary, is faster. Measured for
# (x * y).max(), one thread, us a call, direct / fused: float32 16000 elements 4.3 / 6.0,
# 32000 8.3 / 7.1; float64 8000 4.6 / 5.1, 16000 7.6 / 6.5.
TEMPORARY_MAX_BYTES = 1 << 16
# ... and a graph without one: the output pool of the graph's own path starts here
# (``fusion/outputs.py``: a fresh big array costs a page fault per 4 KiB); below it that path
# calls the same NumPy functions, through the interpreter (x[1:] - x[:-1] of 2^17 float64:
# 44 us against NumPy's 31 when the limit was 1 MiB).
MAX_BYTES = MIN_BYTES


# The message of the frontend's run-time check that a Python int fits the integer dtype it meets
# (``numpy_dtypes.check_python_ints``): NumPy's conversion of the int makes the same check.
INT_RANGE_MESSAGE = "OverflowError: Python integer out of bounds for "


def _int_range_check(node: Node) -> bool:
    """Is ``node`` such a check (an ``If`` that raises that message), or the comparison that
    only such checks read?"""
    if node.kind in (aten.ge, aten.le):
        return all(_int_range_check(use.user) for use in node.output().uses)
    if node.kind != prim.If or node.outputs or any(True for _ in node.blocks[0].nodes()):
        return False
    fails = list(node.blocks[1].nodes())
    if not fails or fails[-1].kind != prim.RaiseException or \
            any(n.kind != prim.Constant for n in fails[:-1]):
        return False
    message = fails[-1].input(0)
    return message.node.kind == prim.Constant and \
        str(constant_value(message.node)).startswith(INT_RANGE_MESSAGE)


def direct_function(graph: Graph, scalars: dict[int, Any]) -> Callable[..., Any] | None:
    """``graph`` (typed by a call's arguments: dtypes and ranks) as one Python function of its
    inputs calling NumPy's ufuncs, returning its outputs (one value, or a tuple), or None where
    the graph is not made only of such calls, or has a chain of them (the fuser's work).
    ``scalars``: the outputs to be NumPy scalars (``jit.numpy_scalar_outputs``): only full
    reductions give them. The function's ``max_elements``: the most elements an argument may
    have for it to be worth running (bigger: the graph's own path)."""
    if not graph.inputs:
        return None
    names: dict[str, Any] = {}
    text: dict[Value, str] = {}
    for i, v in enumerate(graph.inputs):
        if not _array_of_known_dtype(v) and not isinstance(v.type, (FloatType, IntType)):
            return None
        text[v] = f"a{i}"
    lines: list[str] = []
    reduced: set[Value] = set()      # (outputs of reductions)
    computed: set[Value] = set()     # (outputs of maps)
    temporary = False
    itemsize = 1
    for node in graph.nodes():
        if node.kind == prim.Constant or _int_range_check(node):
            continue        # (a Python int argument: NumPy's conversion below checks its range)
        if node.kind == aten.slice:       # (x[1:] - x[:-1]: views of the arguments)
            view = _slice_view(node, text)
            if view is None or node.input(0) in computed or node.input(0) in reduced:
                return None
            text[node.output()] = f"v{len(lines)}"
            lines.append(f"    v{len(lines)} = {view}")
            continue
        if costly_map(node):
            return None          # (its kernel beats NumPy's loop: passes/lone_maps.py)
        call = _call(node, text, names)
        if call is None:
            return None
        expression, operands, reduces = call
        if any(v in computed for v in operands):
            if not reduces:
                return None      # a chain: fused kernels do better
            temporary = True
        if any(v in reduced for v in operands):
            return None
        out = node.outputs[0]
        name = text[out] = f"v{len(lines)}"
        (reduced if reduces else computed).add(out)
        itemsize = max(itemsize, out.type.dtype.itemsize, *(v.type.dtype.itemsize
                                                            for v in operands))
        lines.append(f"    {name} = {expression}")
    if not lines:
        return None
    for i, v in enumerate(graph.outputs):
        if v not in text:
            return None
        # a ufunc's 0-d result is a NumPy scalar, an argument returned is as it came
        made = v not in graph.inputs and len(v.type.sizes) == 0
        if made != (scalars.get(i) is not None):
            return None
    returned = ", ".join(text[v] for v in graph.outputs)
    if len(graph.outputs) > 1:
        returned = f"({returned})"
    source = "\n".join([f"def direct({', '.join(text[v] for v in graph.inputs)}):",
                         *lines, f"    return {returned}"]) + "\n"
    exec(compile(source, f"<fusejit direct NumPy calls {next(_count)}>", "exec"), names)
    run = names["direct"]
    run.max_elements = (TEMPORARY_MAX_BYTES if temporary else MAX_BYTES) // itemsize
    run.temporary = temporary
    run.source = source
    run.inline = _inliner([line.strip() for line in lines], returned, names)
    return run


# The names the generated text makes (ufuncs, constants, values): renamed where inlined.
_MADE = re.compile(r"\b[UCv][0-9]+\b")


def _inliner(lines: list[str], returned: str, names: dict[str, Any]
             ) -> Callable[[str], tuple[list[str], str, dict[str, Any]]]:
    """``inline(tag)``: the function's statements and returned expression with each made-up
    name tagged (``U5`` -> ``U5_tag``), and the globals they read, to be written into a
    caller's generated text whose parameters are named as these (``a0``...): the fast call
    (``frontend/fastcall.py``) saves a call that way (~0.07 us)."""
    made = {name: value for name, value in names.items() if _MADE.fullmatch(name)}

    def inline(tag: str) -> tuple[list[str], str, dict[str, Any]]:
        def rename(text: str) -> str:
            return _MADE.sub(lambda m: f"{m.group(0)}_{tag}", text)
        return ([rename(line) for line in lines], rename(returned),
                {f"{name}_{tag}": value for name, value in made.items()})

    return inline


def _slice_view(node: Node, text: dict[Value, str]) -> str | None:
    """``aten::slice`` of a value the function has, by constants, as NumPy's basic indexing
    (``oplib``'s ``_slice``: the same view); None for any other."""
    x = node.input(0)
    if x not in text or not _array_of_known_dtype(x) or len(node.inputs) != 5 or \
            any(v.node.kind != prim.Constant for v in node.inputs[1:]):
        return None
    dim, start, end, step = (constant_value(v.node) for v in node.inputs[1:])
    rank = len(x.type.sizes)
    if not isinstance(dim, int) or not -rank <= dim < rank or \
            not all(v is None or type(v) is int for v in (start, end)) or \
            type(step) is not int or step <= 0:
        return None
    bounds = ":".join("" if v is None else str(int(v)) for v in (start, end, step))
    return f"{text[x]}[{':, ' * (dim % rank)}{bounds}]"


def _array_of_known_dtype(v: Value) -> bool:
    t = v.type
    return isinstance(t, TensorType) and t.dtype is not None and t.sizes is not None \
        and t.dtype.kind in "iuf"


def _call(node: Node, text: dict[Value, str], names: dict[str, Any]
          ) -> tuple[str, list[Value], bool] | None:
    """The expression computing ``node`` as a ufunc call, the graph values it reads and
    whether it is a reduction; None where ``node`` is not one exactly."""
    overload = find_entry(node)
    ufunc = overload.ufunc if overload is not None else None
    if ufunc is None or len(node.outputs) != 1 or not (
            _array_of_known_dtype(node.outputs[0]) or ufunc in _COMPARISONS and
            isinstance(node.outputs[0].type, TensorType) and
            node.outputs[0].type.sizes is not None and node.outputs[0].type.dtype == np.bool_):
        return None
    schema = registry.find(node)
    out_dtype = dtype = node.outputs[0].type.dtype
    if ufunc in _COMPARISONS:     # (bool results of operands compared in their own dtype)
        arrays = [v for v in node.inputs[:2] if isinstance(v.type, TensorType)]
        if not arrays or not _array_of_known_dtype(arrays[0]):
            return None
        dtype = arrays[0].type.dtype
    n_operands = 1 if overload.reduces else ufunc.nin
    if schema is None or len(node.inputs) != len(schema.arguments) or \
            len(node.inputs) < n_operands:
        return None
    for value, argument in zip(node.inputs[n_operands:], schema.arguments[n_operands:]):
        if not _is_default(value, argument.default):
            return None
    args, read = [], []
    for value in node.inputs[:n_operands]:
        if isinstance(value.type, TensorType):
            if value not in text or not _array_of_known_dtype(value) or \
                    value.type.dtype != dtype:
                return None
            args.append(text[value])
            read.append(value)
        elif value in text:
            # a Python number argument: NumPy's weak scalar, in the array's dtype (a float
            # for a float array, an int for an integer one, which NumPy range-checks)
            if not (isinstance(value.type, FloatType) and dtype.kind == "f" or
                    isinstance(value.type, IntType) and dtype.kind in "iu"):
                return None
            name = f"C{len(names)}"
            names[name] = dtype.type
            args.append(f"{name}({text[value]})")
        else:
            number = _scalar_operand(value, dtype)
            if number is None:
                return None
            name = f"C{len(names)}"
            names[name] = number
            args.append(name)
    if ufunc is np.not_equal and dtype.kind == "f" and node.inputs[0] is node.inputs[1]:
        # (np.isnan(x), which the frontend writes x != x: the same bools, NumPy's isnan loop,
        # 0.86x through not_equal at 2^20 float64)
        ufunc, args = np.isnan, args[:1]
    if not read or not _exact(ufunc, dtype, overload.reduces, out_dtype):
        return None
    name = f"U{len(names)}"
    names[name] = ufunc
    if overload.reduces:
        return f"{name}.reduce({args[0]}, axis=None)", read, True
    return f"{name}({', '.join(args)})", read, False


def _exact(ufunc: np.ufunc, dtype: np.dtype, reduces: bool, out: np.dtype) -> bool:
    """Does ``ufunc`` compute in ``dtype`` and give ``out`` for operands of ``dtype``?"""
    try:
        if reduces:
            return ufunc.nin == 2 and ufunc.reduce(np.ones(1, dtype)).dtype == dtype == out
        return ufunc.nout == 1 and \
            ufunc.resolve_dtypes((dtype,) * ufunc.nin + (None,)) == (dtype,) * ufunc.nin + (out,)
    except (TypeError, ValueError):
        return False


def _is_default(value: Value, default: str | None) -> bool:
    """Is ``value`` a constant equal to the schema's ``default`` (its text)?"""
    if default is None or value.node.kind != prim.Constant:
        return False
    try:
        expected = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return False
    actual = constant_value(value.node)
    if isinstance(expected, list):
        return isinstance(actual, (list, tuple)) and list(actual) == expected
    return type(actual) is type(expected) and actual == expected


def _scalar_operand(value: Value, dtype: np.dtype) -> Any:
    """A Python number constant as the NumPy scalar of ``dtype`` that NumPy's weak-scalar rule
    makes of it (``float32 array * 0.5`` computes with ``np.float32(0.5)``); None where that is
    not exact or not the rule (a float with an integer array, an int out of range, a bool)."""
    if value.node.kind != prim.Constant:
        return None
    number = constant_value(value.node)
    if type(number) is float and dtype.kind == "f":
        if abs(number) > float(np.finfo(dtype).max) and abs(number) != float("inf"):
            return None     # (overflows in the cast: the graph's own path says what it gives)
        return dtype.type(number)
    if type(number) is int:
        if dtype.kind == "f":
            return dtype.type(number) if abs(number) <= 2 ** 24 else None
        info = np.iinfo(dtype)
        return dtype.type(number) if info.min <= number <= info.max else None
    return None


__all__ = ["MAX_BYTES", "TEMPORARY_MAX_BYTES", "direct_function"]
