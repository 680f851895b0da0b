"""Which graphs ``element_function`` compiles whole, and what they write.

A graph qualifies when every value has a known dtype and rank (or is a number, None or a list
of ints) and every node is one the writer knows: element reads and writes, views, creation,
pointwise math on 0-d values and on small arrays, the reductions Numba's NumPy has, ``cat`` and
``stack`` of fixed lists. In-place writes go to memory the graph made or to arguments;
``written_arguments`` names the arguments, which ``compile_element_graph`` saves before a call
so that a failed compiled call can be rerun on the interpreter from the caller's values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import (
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    StringType,
    TensorType,
)
from ..oplib.table import DTYPE_CODES
from .element_helpers import FAST_MAPS
from .scalar_function import _CALLS, _INFIX

_SCALAR = (IntType, FloatType, BoolType)
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "max", "min", "neg", "abs", "eq", "ne",
                         "lt", "le", "gt", "ge", "sqrt", "exp", "log", "tanh", "sin", "cos",
                         "floor", "ceil"})
# On whole arrays: NumPy's ufuncs in Numba give the same values and (operands cast) dtypes.
_ARRAY_SAFE = frozenset({"add", "sub", "mul", "div", "max", "min", "neg", "abs", "eq", "ne",
                         "lt", "le", "gt", "ge", "sqrt", "exp", "log", "tanh", "sin", "cos"})
_ARRAY_CALLS = {"max": "np.maximum", "min": "np.minimum", "abs": "np.abs", "sqrt": "np.sqrt",
                "exp": "np.exp", "log": "np.log", "tanh": "np.tanh", "sin": "np.sin",
                "cos": "np.cos", "floor": "np.floor", "ceil": "np.ceil"}
_VIEWS = frozenset({"select", "slice", "unsqueeze", "t", "reshape", "view", "expand", "size",
                    "numel",
                    "dim"})
_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "argmax", "argmin", "any", "all",
                         "var", "std"})
_INPLACE = {"add_": "+", "sub_": "-", "mul_": "*", "div_": "/"}
# Reductions written as np.<fn> of the whole array (or by the 2-d axis helpers).
_WHOLE_REDUCTIONS = {"amax": "max", "amin": "min", "argmax": "argmax", "argmin": "argmin",
                     "any": "any", "all": "all", "var": "var", "std": "std"}
_PREDICATES = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
# A uint64 array compared with an int compiles whole only where the int is a constant of 0 or
# more: Numba compares a uint64 and an int64 as floats, and an int64 compare wraps the uint64s
# of 2**63 and up, where NumPy compares the values (``uint64_array > -1`` is all True).
_UINT64 = np.dtype(np.uint64)
_UINT64_CODE = DTYPE_CODES[_UINT64]
# Float maps of float arrays as NumPy's ufuncs in Numba (same values: C's functions, and rint
# rounds halves to even as NumPy's round), and of 0-d values as the same calls on numbers.
_FLOAT_UFUNCS = {"tan": "np.tan", "floor": "np.floor", "ceil": "np.ceil", "round": "np.rint",
                 "trunc": "np.trunc", "signbit": "np.signbit", "hypot": "np.hypot",
                 "atan2": "np.arctan2"}
# Integer shifts by a constant count below the dtype's width (C's shifts are undefined past it)
_SHIFTS = {"__lshift__": "<<", "__rshift__": ">>"}
_WRITES = frozenset({"copy_", "fill_", "index_put_"})
_CREATE = frozenset({"full_like", "zeros", "ones", "full"})
_CONVERT = {"Bool": "bool", "Float": "float", "Int": "_to_int"}


def _dtype(value: Value) -> np.dtype | None:
    t = value.type
    if isinstance(t, TensorType) and t.scalar_type is not None:
        return t.scalar_type.dtype
    return None


def _rank(value: Value) -> int | None:
    return value.type.rank if isinstance(value.type, TensorType) else None


def _known(value: Value) -> bool:
    t = value.type
    if isinstance(t, (*_SCALAR, NoneType, StringType)):
        return True
    if isinstance(t, ListType):
        return isinstance(t.elem, IntType) or _joined_list(value) or _appended_list(value) \
            or _chunked_list(value) or index_list(value) is not None or (
                bool(value.uses) and all(masked_gather(use.user) or masked_put(use.user)
                                         for use in value.uses))
    return isinstance(t, TensorType) and t.scalar_type is not None and t.rank is not None


# The most elements of a constant array written into a whole-graph function's source, a
# formatted number each (``np.array([-1.0, 0.0, 1.0])`` as a program writes it)
CONSTANT_MAX_ELEMENTS = 64


def written_constant(value: Value) -> bool:
    """Is ``value`` (a ``prim::Constant`` array) small enough, and of a dtype, to be written as
    numbers into the function's source (each a number this module formats, never user text)?
    A fresh array each call, as the interpreter's copy is."""
    array = _static(value)
    return isinstance(array, np.ndarray) and array.size <= CONSTANT_MAX_ELEMENTS and \
        array.dtype.kind in "biuf" and array.dtype.name != "uint64"


def _joined_list(value: Value) -> bool:
    """``np.concatenate([a, b])``: a fixed list of arrays that only ``cat``/``stack`` read
    (written out as a tuple in their call); or of numbers (0-d arrays) that only ``stack``
    reads (``np.percentile(x, [5, 50, 95])``'s three results)."""
    node = value.node
    if node.kind != prim.ListConstruct or not node.inputs or any(
            _dtype(v) is None or _rank(v) is None for v in node.inputs):
        return False
    joins = ("aten::stack",) if any(_rank(v) == 0 for v in node.inputs) else \
        ("aten::cat", "aten::stack")
    return all(use.user.kind in joins and use.offset == 0 for use in value.uses)


def _appended_list(value: Value) -> bool:
    """``hs = []; for ...: hs.append(h)``, then ``np.stack(hs)``: a list that only ``append``
    (arrays of one dtype and rank), ``stack`` along axis 0, ``len`` and reading an item (``for
    h in hs``) use, empty or made with items of that dtype and rank (``history = [1.0]``,
    ``snapshots = [u.copy()]``); a list of numbers (0-d arrays) may also be returned
    (``[row.sum() for row in A]``)."""
    while value.node.kind == "aten::append":
        value = value.node.input(0)
    node = value.node
    if node.kind != prim.ListConstruct:
        return False
    kinds = {(_dtype(v), _rank(v)) for v in node.inputs}
    if node.inputs and not any(use.user.kind == "aten::append" for use in value.uses):
        return False    # (a list made whole: _joined_list's)
    returned = False
    for use in value.uses:
        user = use.user
        if user.kind == prim.Return:
            returned = True
            continue
        if use.offset != 0 or user.kind not in ("aten::append", "aten::stack", "aten::len",
                                                "aten::__getitem__"):
            return False
        if user.kind == "aten::stack" and _static(user.input(1)) != 0:
            return False
        if user.kind == "aten::append":
            kinds.add((_dtype(user.input(1)), _rank(user.input(1))))
    if len(kinds) != 1:
        return False
    dtype, rank = next(iter(kinds))  # (np.dtype("float64") == None is True: test "is")
    return dtype is not None and rank is not None and (rank == 0 or not returned)


def _chunked_list(value: Value) -> bool:
    """``i, f, g, o = np.split(gates, 4, axis=-1)``: ``aten::chunk`` by constants, unpacked
    at once into as many arrays (written as slices)."""
    node = value.node
    if node.kind != "aten::chunk" or not all(_constant_int(v) for v in node.inputs[1:]) \
            or (_rank(node.input(0)) or 0) < 1 or _dtype(node.input(0)) is None:
        return False
    return len(value.uses) == 1 and value.uses[0].user.kind == prim.ListUnpack \
        and len(value.uses[0].user.outputs) == _static(node.input(1))


def index_list(value: Value) -> tuple[int, list[Value]] | None:
    """``x[:, idx]``, ``x[rows, cols]``: the ``Tensor?[]`` of ``aten::index`` and
    ``aten::index_put_`` as ``(p, indices)``, where its items are ``p`` Nones (whole
    dimensions) and then integer tensors of known ranks (no bools: masks, no uint64: an index
    past 2**63 would wrap); None for any other list (Nones between tensors move NumPy's
    broadcast dimensions first) or one read by anything else."""
    node = value.node
    if node.kind != prim.ListConstruct or not node.inputs or not all(
            use.offset == 1 and use.user.kind in ("aten::index", "aten::index_put_",
                                                  "fusejit::ufunc_at_")
            for use in value.uses):
        return None
    items = list(node.inputs)
    p = 0
    while p < len(items) and isinstance(items[p].type, NoneType):
        p += 1
    indices = items[p:]
    if not indices or not all(
            _dtype(v) is not None and _dtype(v).kind in "iu" and _dtype(v).name != "uint64"
            and _rank(v) is not None for v in indices):
        return None
    return p, indices


def _mask_list(value: Value) -> bool:
    """Is the index list ``value`` read only as the index of ``aten::index`` and
    ``aten::index_put_`` nodes (one, or several by one mask that common subexpression
    elimination joined: ``y[m] = x[m]``)?"""
    return bool(value.uses) and all(
        use.offset == 1 and use.user.kind in ("aten::index", "aten::index_put_")
        for use in value.uses)


def boolean_mask(node: Node) -> Value | None:
    """The mask of ``node``, an ``aten::index`` or ``aten::index_put_`` of ``x`` by one bool
    array of ``x``'s rank, whose list only such nodes read; else None."""
    items = node.input(1).node
    if items.kind != prim.ListConstruct or len(items.inputs) != 1 or not _mask_list(
            node.input(1)):
        return None
    mask, x = items.input(0), node.input(0)
    if isinstance(mask.type, TensorType) and _dtype(mask) is not None and \
            _dtype(mask).kind == "b" and (_rank(x) or 0) >= 1 and _rank(mask) == _rank(x):
        return mask
    return None


def masked_gather(node: Node) -> bool:
    """Is ``node`` ``x[mask]``: an ``aten::index`` by a ``boolean_mask`` (the elements where
    it is true, in C order)?"""
    return node.kind == "aten::index" and boolean_mask(node) is not None


def masked_put(node: Node) -> bool:
    """Is ``node`` ``x[mask] = values``: an ``aten::index_put_`` by a ``boolean_mask``, not
    accumulating, of a vector of values that casts to x's dtype?"""
    if node.kind != "aten::index_put_" or _static(node.input(3)) is not False or \
            boolean_mask(node) is None:
        return False
    x, values = node.input(0), node.input(2)
    return isinstance(values.type, TensorType) and _rank(values) == 1 and \
        _dtype(values) is not None and _dtype(x) is not None and \
        np.can_cast(_dtype(values), _dtype(x), "same_kind")


def list_element(value: Value) -> tuple[np.dtype, int]:
    """The dtype and rank of the arrays appended to ``value`` (an ``_appended_list``)."""
    append = next(u.user for u in value.uses if u.user.kind == "aten::append")
    return _dtype(append.input(1)), _rank(append.input(1))


# Ops whose result is (or may be) their first input, or a view of it.
_ALIASING = frozenset({"aten::select", "aten::slice", "aten::unsqueeze", "aten::t",
                       "aten::transpose", "aten::permute", "aten::expand",
                       "aten::reshape", "aten::view", "aten::type_as", "aten::copy_",
                       "aten::fill_", "aten::add_", "aten::sub_", "aten::mul_", "aten::div_",
                       "aten::index_put_", "fusejit::ufunc_at_"})


def writes_into(node: Node) -> bool:
    """Does ``node`` write its first input, an array, in place (``x += v``, ``x[i] = v``, and
    any op whose schema says so, ``Tensor(a!) self``: ``np.maximum.at(x, i, v)``; not a list's
    ``append``)?"""
    if node.kind.ns == "aten" and (node.kind.name in _INPLACE or node.kind.name in _WRITES):
        return True
    schema = node.schema
    return schema is not None and 0 in schema.written and \
        isinstance(node.input(0).type, TensorType)


def _root(value: Value, seen: frozenset = frozenset()) -> Value:
    """The value whose memory ``value`` is (through views and in-place results; a loop's
    variable that every iteration updates in place, ``w -= lr * g``, is its value before
    the loop)."""
    while value.node.kind in _ALIASING:
        value = value.node.input(0)
    block = value.node.owning_block if value.node.kind == prim.Param else None
    loop = block.owning_node if block is not None else None
    if loop is not None and loop.kind == prim.Loop and value not in seen:
        i = block.inputs.index(value)
        if i > 0 and _root(block.outputs[i], seen | {value}) is value:
            return _root(loop.input(i + 1), seen | {value})
    return value


def _writable(target: Value, arguments: set) -> bool:
    """May the compiled function write ``target``: memory the graph made, or an argument
    (``written_arguments``: saved before each call, restored if the call fails)?"""
    return _owned(target) or _root(target) in arguments


def written_arguments(graph: Graph) -> list[int]:
    """The positions of the inputs that ``graph`` writes in place (directly or via views)."""
    written = {_root(node.input(0)) for node in graph.all_nodes() if writes_into(node)}
    return [i for i, v in enumerate(graph.inputs) if v in written]


def raises_before_writes(graph: Graph) -> bool:
    """Can ``graph``'s compiled function raise only before it first writes an argument, so
    that a call which raised left every argument as it was (and the interpreter may rerun it
    without a copy saved first)? True for a straight graph whose first write of an argument
    is an in-place ``+ - * /`` of that argument itself (``a += b``: written out as
    ``a[...] = a + b``, whose temporary and store check the shapes before anything is
    written), followed only by constants and in-place ``+ - * /`` by a number or a 0-d
    tensor (``a *= 2.0``), which cannot raise. Any other graph keeps its copies."""
    inputs = set(graph.inputs)
    nodes = list(graph.block.nodes())
    if any(node.blocks for node in nodes):
        return False
    first = next((i for i, node in enumerate(nodes) if writes_into(node)
                  and _root(node.input(0)) in inputs), None)
    if first is None:
        return True
    node = nodes[first]
    if node.kind.name not in _INPLACE or node.input(0) not in inputs:
        return False
    for node in nodes[first + 1:]:
        if node.kind == prim.Constant:
            continue
        if node.kind.ns != "aten" or node.kind.name not in _INPLACE:
            return False
        operand = node.input(1)
        if isinstance(operand.type, TensorType) and _rank(operand) != 0:
            return False
    return True


def _owned(value: Value, seen: frozenset = frozenset()) -> bool:
    """Is ``value`` memory this graph made (not an argument, nor a view of one)? A loop-carried
    value is when its value before the loop and its value after the body are."""
    while value.node.kind in _ALIASING:
        value = value.node.input(0)
    node = value.node
    if node.kind in (prim.Loop, prim.If):
        # (a loop's result: its value before the loop and after the body; an if's: each
        # branch's; total += p[...] in nested loops; a cycle already being checked is)
        if value in seen:
            return True
        k = node.outputs.index(value)
        seen = seen | {value}
        if node.kind == prim.Loop:
            return _owned(node.input(k + 2), seen) and _owned(node.blocks[0].outputs[k + 1],
                                                                seen)
        return all(_owned(block.outputs[k], seen) for block in node.blocks)
    if node.kind != prim.Param:
        return node.kind.ns == "aten"
    block = node.owning_block
    loop = block.owning_node if block is not None else None
    if loop is None or loop.kind != prim.Loop or value in seen:
        return value in seen  # an argument; or a cycle through the loop already checked
    i = block.inputs.index(value)
    return i > 0 and _owned(loop.input(i + 1), seen | {value}) \
        and _owned(block.outputs[i], seen | {value})


def is_element_graph(graph: Graph) -> bool:
    """Does ``graph`` compute with 0-d tensors and element reads/writes only?"""
    if not graph.outputs or not all(_known(v) for v in [*graph.inputs, *graph.outputs]):
        return False
    if not any(isinstance(v.type, TensorType) for v in [*graph.inputs, *graph.outputs]):
        return False  # scalar graphs: scalar_function
    if any(_rank(graph.inputs[i]) == 0 for i in written_arguments(graph)):
        return False  # (a 0-d value is a Numba number here: the caller's array is not written)
    return _supported(graph.block, set(graph.inputs))


def _supported(block: Block, arguments: set,
               extra: Callable[[Node], bool | None] | None = None) -> bool:
    """Is every node of ``block`` one the writer knows? ``extra(node)`` decides first for the
    nodes a writer subclass adds (True, False; None: the checks here)."""
    for node in block.nodes():
        verdict = extra(node) if extra is not None else None
        if verdict is not None:
            if not verdict:
                return False
            continue
        if not all(_known(v) for v in [*node.inputs, *node.outputs]):
            return False
        kind = node.kind
        if kind in (prim.If, prim.Loop):
            if not all(_supported(b, arguments, extra) for b in node.blocks):
                return False
            continue
        if kind in (prim.Uninitialized, prim.RaiseException) or kind == prim.Constant and \
                isinstance(node.output().type, StringType):
            continue  # (a loop's variable before the loop; the error if it never ran)
        if kind == prim.Constant:
            out = node.output()
            if isinstance(out.type, TensorType) and out.type.rank != 0 and \
                    not written_constant(out):
                return False  # (big arrays are never written into the source)
            continue
        if kind in (prim.ListConstruct, prim.NumToTensor):
            continue
        if kind == prim.ListUnpack and _chunked_list(node.input(0)):
            continue
        if kind.ns != "aten" and kind not in _FUSEJIT_OPS or \
                not _supported_op(node, arguments):
            return False
    return True


# fusejit's own ops the writer knows (``np.maximum.accumulate``, ``np.convolve``,
# ``np.flatnonzero``, ``np.argsort``, ``np.unique``)
_FUSEJIT_OPS = frozenset({"fusejit::maximum_accumulate", "fusejit::minimum_accumulate",
                          "fusejit::convolve", "fusejit::flatnonzero", "fusejit::argsort",
                          "fusejit::unique_all", "fusejit::unique_values", "fusejit::unique_counts",
                          "fusejit::unique_inverse",
                          "fusejit::lstsq", "fusejit::polyfit", "fusejit::interp",
                          "fusejit::ufunc_at_"})


def _supported_op(node: Node, arguments: set) -> bool:
    name = node.kind.name
    tensors = [v for v in [*node.inputs, *node.outputs] if isinstance(v.type, TensorType)]
    if name in ("len", "__getitem__") and isinstance(node.input(0).type, ListType) and \
            not isinstance(node.input(0).type.elem, IntType):
        # (``for d in details``: how many arrays a loop appended, and one of them by an int)
        return _appended_list(node.input(0)) and (
            name == "len" or isinstance(node.input(1).type, IntType))
    if not tensors:
        return name in _INFIX or name in _CALLS or name in ("neg", "__not__", "Bool", "pow")
    arrays = any(_rank(v) != 0 for v in tensors)
    if name in _INPLACE:
        target = node.input(0)
        return _writable(target, arguments) and (_rank(target) == 0 or not any(
            isinstance(v.type, TensorType) and (_rank(v) or 0) > _rank(target)
            for v in node.inputs[1:2])) and (len(node.inputs) < 3
                                              or _static(node.input(2)) == 1)
    if name in ("__and__", "__or__", "__xor__"):
        return all(_dtype(v).kind in "biu" for v in tensors)
    if name == "constant_pad_nd":   # (np.pad by constant widths and value)
        pads, value = _static(node.input(1)), _static(node.input(2))
        return isinstance(pads, list) and all(type(p) is int and p >= 0 for p in pads) and \
            len(pads) <= 2 * (_rank(node.input(0)) or 0) and \
            type(value) in (int, float, bool) and node.input(2).node.kind == prim.Constant
    if name == "logical_not":   # (of any real dtype: bool)
        return _dtype(node.input(0)).kind in "biuf"
    if name == "bitwise_not":   # (~x of integers and bools)
        return _dtype(node.input(0)).kind in "biu"
    if name == "reciprocal":
        return _dtype(node.output(0)).kind == "f"
    if name in ("cumsum", "cumprod"):   # (a vector, or along a constant axis of a matrix;
        # in its own dtype, or a uint64 one in uint64, NumPy's)
        dtype = _static(node.input(2))
        return (_rank(node.input(0)) == 1 or _rank(node.input(0)) == 2 and _constant_int(
            node.input(1))) and node.input(2).node.kind == prim.Constant and (
                dtype is None or dtype == _UINT64_CODE and _dtype(node.input(0)) == _UINT64)
    if name == "prod":          # (of the whole array, in NumPy's dtype)
        return _rank(node.output(0)) == 0 and _static(node.input(1)) is None and \
            node.input(1).node.kind == prim.Constant
    if name in FAST_MAPS and len(node.inputs) == 1 or name in _FLOAT_UFUNCS:
        # (a float result; the rounding ones and signbit of float arrays only, as NumPy
        # keeps an integer array's dtype there)
        out = _dtype(node.output(0))
        if name in FAST_MAPS and arrays:
            return out.kind == "f"
        if (arrays or name in _FLOAT_UFUNCS or name in _CALLS) and (
                out.kind == "f" or name == "signbit") and (
                name in ("hypot", "atan2") and len(node.inputs) == 2 or len(node.inputs) == 1
                and (name in FAST_MAPS or _dtype(node.input(0)).kind == "f")):
            return True
    if name in _SHIFTS:     # (by a number: a constant, or one tested when it runs)
        count, dtype = node.input(1), _dtype(node.output(0))
        return dtype.kind in "iu" and _dtype(node.input(0)) == dtype and (
            isinstance(count.type, IntType) or _rank(count) == 0 and _dtype(count) == dtype)
    if name == "arange":   # (start, end, step, dtype, ...: the writer's form)
        return len(node.inputs) == 7 and all(v.node.kind == prim.Constant
                                              for v in node.inputs[3:])
    if name in ("eye", "linspace"):
        return all(v.node.kind == prim.Constant for v in node.inputs[3:])
    if name in ("floor_divide", "remainder"):
        # (Numba's integer division by zero gives 0 where the interpreter raises, and its
        # int8 -128 // -1 gives 0 where NumPy's wraps to -128: arrays of divisors are checked
        # where they run, _int_divisors, numbers by _int_floordiv and _int_mod; a constant 0
        # or -1 stays the interpreter's.)
        # An integer array by a number known only when it runs stays NumPy's, which divides
        # by libdivide's multiply and shift (Numba's loop divides: set F's digit sums,
        # 10^4 int64 by a base, ran 0.65x NumPy whole against 0.78x interpreted); by a
        # constant LLVM multiplies too, and by an array both divide.
        divisor = _static(node.input(1))
        return _dtype(node.outputs[0]).kind == "f" or not arrays or \
            (_rank(node.input(1)) or 0) > 0 or (isinstance(divisor, (int, float)) and
                                               not isinstance(divisor, bool)
                                               and divisor not in (0, -1))
    if name in ("select", "unsqueeze"):
        return _constant_int(node.input(1))
    if name in ("triu", "tril"):    # (of a matrix, by a constant diagonal: a copy)
        return _rank(node.input(0)) == 2 and _constant_int(node.input(1))
    if name == "permute":       # (np.transpose(x, axes), np.moveaxis: a constant order)
        order, rank = _static(node.input(1)), _rank(node.input(0))
        return isinstance(order, list) and rank is not None and len(order) == rank and \
            sorted(d % max(rank, 1) for d in order) == list(range(rank))
    if name == "transpose":     # (np.swapaxes(x, a, b) by constant axes)
        rank = _rank(node.input(0))
        return all(_constant_int(v) and -max(rank, 1) <= _static(v) < max(rank, 1)
                   for v in node.inputs[1:3])
    if name == "index" and masked_gather(node):
        return True
    if name == "index_put_" and masked_put(node):
        return _writable(node.input(0), arguments)
    if name in ("index", "index_put_"):
        return _indexing_supported(node, arguments)
    if name == "ufunc_at_":     # (np.maximum.at(out, idx, v) ...: index_put_'s walk)
        # (values of another dtype: each step computes in theirs, cast back: NumPy's)
        return _static(node.input(3)) in UFUNCS_AT_CALLS and \
            _dtype(node.input(2)) == _dtype(node.input(0)) and \
            _indexing_supported(node, arguments)
    if name in _WRITES:
        target, rank = node.input(0), _rank(node.input(0))
        return _writable(target, arguments) and (
            name == "fill_" or (_rank(node.input(1)) or 0) <= (rank or 0))
    if name in ("cat", "stack"):
        return (_joined_list(node.input(0)) or name == "stack" and _appended_list(
            node.input(0))) and _constant_int(node.input(1))
    if name == "append":
        return _appended_list(node.input(0))
    if name == "chunk":
        return _chunked_list(node.output())
    if name in _CREATE:
        return name == "full_like" or node.input(0).node.kind in (
            prim.ListConstruct, prim.Constant, "aten::size")
    if name == "expand":
        return _expandable(node)
    if name == "flip":   # (by constant dims of an array of known rank)
        return _rank(node.input(0)) not in (None, 0) and isinstance(_static(node.input(1)), list)
    if name in _VIEWS or name in _CONVERT or name in ("type_as", "clone", "where", "clamp"):
        return name not in _CONVERT or not arrays
    if name in _REDUCTIONS:
        return _reduction_supported(node)
    if name == "argsort":       # (a vector's stable order, ascending: np.sort's; fusejit's
        # np.argsort of kind "mergesort" or "stable", SORT_KINDS' 2 and 4)
        stable = _static(node.input(2)) in (2, 4) if node.kind.ns == "fusejit" else \
            _static(node.input(2)) is False
        # (NumPy's default and heapsort order equal values by their algorithms: of floats,
        # ``_argsort_distinct``, which leaves ties and NaN to the interpreter)
        distinct = node.kind.ns == "fusejit" and _static(node.input(2)) in (0, 1, 3) and \
            _dtype(node.input(0)).kind == "f"
        return _rank(node.input(0)) == 1 and _constant_int(node.input(1)) and \
            _static(node.input(1)) in (0, -1) and (stable or distinct)
    if name in ("maximum_accumulate", "minimum_accumulate"):   # (a vector, or a matrix along
        # a constant axis)
        rank = _rank(node.input(0))
        return rank in (1, 2) and _constant_int(node.input(1)) and \
            -rank <= _static(node.input(1)) < rank
    if name == "convolve":      # (two vectors, by a constant mode)
        return _rank(node.input(0)) == 1 == _rank(node.input(1)) and \
            _constant_int(node.input(2))
    if name == "searchsorted":  # (of a vector of boundaries of the values' dtype; a side)
        boundaries, values = node.input(0), node.input(1)
        side = _static(node.input(4))
        return _rank(boundaries) == 1 and _dtype(boundaries) == _dtype(values) and \
            all(v.node.kind == prim.Constant for v in node.inputs[2:6]) and \
            _static(node.input(5)) is None and side in (None, "left", "right") and \
            not (side == "left" and _static(node.input(3)))
    if name in ("unique_all", "unique_values", "unique_counts", "unique_inverse"):
        return (_rank(node.input(0)) or 0) >= 1
    if name in ("flatnonzero", "nonzero"):
        return (_rank(node.input(0)) or 0) >= 1
    if name == "bincount":      # (of integers NumPy casts to its index type safely; minlength
        # any int: the counts are as long as the data's largest value anyway)
        x = node.input(0)
        return _rank(x) == 1 and _dtype(x).kind in "iu" and _dtype(x).name != "uint64" and \
            all(v.node.kind == prim.Constant or _rank(v) == 1 for v in node.inputs[1:2]) \
            and isinstance(node.input(2).type, IntType)
    if name == "diag_embed":    # (np.diag(v, k) of a vector by a constant k)
        return _rank(node.input(0)) == 1 and all(_constant_int(v) for v in node.inputs[1:4]) \
            and [_static(v) % 2 for v in node.inputs[2:4]] == [0, 1]
    if name == "diagonal":      # (of a matrix; a copy: only in a graph that writes nothing)
        return _rank(node.input(0)) == 2 and all(_constant_int(v) for v in node.inputs[1:4]) \
            and sorted(_static(v) % 2 for v in node.inputs[2:4]) == [0, 1] and not any(
                writes_into(n) for n in node.graph.all_nodes())
    if name in LINALG:
        return _linalg_supported(node)
    if name == "interp":        # (real points and values; the ends None or numbers)
        return _rank(node.input(1)) == 1 and _rank(node.input(2)) == 1 and all(
            _dtype(v).kind in "biuf" for v in node.inputs[:3]) and all(
                _rank(v) == 0 or v.node.kind == prim.Constant and _static(v) is None
                for v in node.inputs[3:])
    if name in ("mm", "matmul"):    # (a stack of matrices by NumPy's BLAS, matrix by matrix)
        a, b = node.input(0), node.input(1)
        from .blas import numpy_blas

        return _dtype(a) == _dtype(b) and _dtype(a).kind == "f" and (_rank(a) in (1, 2) or (
            _rank(a) == 3 and name == "matmul" and numpy_blas() is not None)) \
            and _rank(b) in (1, 2)
    if name == "pow":   # (floats by a number; integers by a constant 0 to 4, as products)
        exponent, kind = _static(node.input(1)), _dtype(node.output(0)).kind
        if kind == "f":
            return True         # (by an array of exponents, or a 0-d one: C's pow, as NumPy's)
        return not isinstance(node.input(1).type, TensorType) and (
            kind in "iu" and type(exponent) is int and 0 <= exponent <= 4)
    if name in _PREDICATES and any(_dtype(v) == _UINT64 for v in tensors) and not all(
            not isinstance(v.type, IntType) or type(_static(v)) is int and _static(v) >= 0
            for v in node.inputs):
        return False    # (a uint64 array and an int that may be negative: see _UINT64)
    if name in _ARITHMETIC:
        if arrays and (name not in _ARRAY_SAFE or _dtype(node.outputs[0]).name == "bool"
                       and name not in _PREDICATES):
            return False
        return not (name in ("add", "sub") and len(node.inputs) == 3
                    and _static(node.input(2)) != 1)
    return False


# np.linalg's calls on one matrix that ``lapack.py`` makes as NumPy does (in float64), and
# np.polyfit (fusejit::lstsq and fusejit::polyfit)
LINALG = frozenset({"linalg_solve", "linalg_inv", "linalg_det", "linalg_slogdet",
                    "linalg_eigvalsh", "linalg_eigh", "linalg_cholesky", "lstsq", "polyfit"})


def _linalg_supported(node: Node) -> bool:
    from .lapack import numpy_lapack

    name, a = node.kind.name, node.input(0)
    if not numpy_lapack():
        return False
    if name == "polyfit":   # (x's dtype picks the cut-off: float32's precision, or float64's)
        return _rank(a) == 1 and _rank(node.input(1)) in (1, 2) and \
            _constant_int(node.input(2)) and _static(node.input(2)) >= 0 and all(
                _dtype(v).kind in "biuf" and _dtype(v).name != "float16" for v in node.inputs[:2])
    if name == "lstsq":     # (the rank an int32 number; rcond None or a number)
        rcond = node.input(2)
        return _rank(a) == 2 and _rank(node.input(1)) in (1, 2) and all(
            _dtype(v).kind in "biuf" for v in node.inputs[:2]) and all(
                _dtype(v).kind == "f" for k, v in enumerate(node.outputs) if k != 2) and (
            isinstance(rcond.type, FloatType) or rcond.node.kind == prim.Constant
            and _static(rcond) is None)
    if _rank(a) != 2 or not all(
            isinstance(v.type, TensorType) and _dtype(v).kind == "f" for v in node.outputs):
        return False
    if name == "linalg_solve":
        return _rank(node.input(1)) in (1, 2) and _static(node.input(2)) is True and \
            node.input(2).node.kind == prim.Constant
    if name in ("linalg_eigvalsh", "linalg_eigh"):
        return _static(node.input(1)) in ("L", "U")
    if name == "linalg_cholesky":   # (the lower factor, np.linalg.cholesky's)
        return _static(node.input(1)) is False and node.input(1).node.kind == prim.Constant
    return True


def _expandable(node: Node) -> bool:
    """``aten::expand(x, sizes, implicit)`` as ``np.broadcast_to``: sizes a list of ints made
    here (each -1 keeps x's size), x of known rank no more than their count, and the view only
    read (NumPy's broadcast view is read-only; an in-place op on it is PyTorch's error)."""
    sizes = node.input(1)
    items = expand_sizes(sizes)
    rank = _rank(node.input(0))
    return items is not None and rank is not None and rank <= len(items) and \
        node.input(2).node.kind == prim.Constant and \
        not any(use.user.kind.name.endswith("_") for use in node.output().uses)


def expand_sizes(sizes: Value) -> list | None:
    """The items of an ``int[]`` made here (a constant list: its ints; a ``ListConstruct``:
    its values), else None."""
    if sizes.node.kind == prim.ListConstruct:
        return list(sizes.node.inputs)
    if sizes.node.kind == prim.Constant and isinstance(_static(sizes), list):
        return list(_static(sizes))
    return None


# np.<ufunc>.at's update of one element (or part) ``a`` by ``v``, as Numba writes it
UFUNCS_AT_CALLS = {"subtract": "({a} - {v})", "multiply": "({a} * {v})",
                   "maximum": "np.maximum({a}, {v})", "minimum": "np.minimum({a}, {v})",
                   "fmax": "np.fmax({a}, {v})", "fmin": "np.fmin({a}, {v})"}


def _indexing_supported(node: Node, arguments: set) -> bool:
    """``x[idx]``, ``x[:, idx]``, ``x[rows, cols]`` (``index_list``) of an array, and
    ``x[...] = v`` (``+= v`` accumulating) into one the graph may write, whose ``v`` has no
    more dimensions than the indexed part and casts to ``x``'s dtype as NumPy's same-kind
    rule allows (Numba's float to int conversion is not NumPy's for NaN and overflow)."""
    x, listed = node.input(0), index_list(node.input(1))
    if not _rank(x) or listed is None or listed[0] + len(listed[1]) > _rank(x):
        return False
    if node.kind.name == "index":
        return True
    p, indices = listed
    values = node.input(2)
    indexed = _rank(x) - len(indices) + max(_rank(v) for v in indices)
    return _writable(x, arguments) and isinstance(values.type, TensorType) and \
        _dtype(values) is not None and (_rank(values) or 0) <= indexed and \
        np.can_cast(_dtype(values), _dtype(x), "same_kind") and \
        node.input(3).node.kind == prim.Constant


def _reduction_supported(node: Node) -> bool:
    name, x = node.kind.name, node.input(0)
    if _rank(x) == 0 and name not in ("any", "all") or any(
            v.node.kind != prim.Constant for v in node.inputs[1:]):
        return False
    args = [_static(v) for v in node.inputs[1:]]
    if name in ("sum", "mean"):
        if len(args) == 1:
            return args[0] is None or name == "sum" and args[0] == _UINT64_CODE and \
                _dtype(x) == _UINT64
        dims, keep, dtype = args
        # (NumPy's uint64 sum of uint64s, which the frontend asks for with uint64's code)
        same = dtype is None or name == "sum" and dtype == _UINT64_CODE and _dtype(x) == _UINT64
        return same and (dims is None and not keep or dims is not None
                                  and len(dims) == 1)
    if name in ("amax", "amin"):
        return args[0] == [] and args[1] is False or _rank(x) == 2 and len(args[0]) == 1
    if name in ("argmax", "argmin"):
        return args[0] is None and args[1] is False or _rank(x) == 2 and args[0] is not None
    if name in ("any", "all") and _rank(x) == 0:
        return args[0] is None
    if name in ("any", "all"):     # (of the whole array, or over one axis of a matrix)
        axis = args[0][0] if isinstance(args[0], list) and len(args[0]) == 1 else args[0]
        return args[0] is None and args[1] is False or _rank(x) == 2 and \
            isinstance(axis, int) and not isinstance(axis, bool)
    if name in ("var", "std"):
        whole = args[0] is None and args[1] == 0 and args[2] is False
        return whole or _rank(x) == 2 and isinstance(args[0], list) and len(args[0]) == 1 \
            and isinstance(args[1], int) and not isinstance(args[1], bool)
    return False


def _constant_int(value: Value) -> bool:
    return isinstance(_static(value), int)


def _static(value: Value) -> Any:
    if value.node.kind != prim.Constant:
        return None
    from ..ir.constants import constant_value

    return constant_value(value.node)


# Views that may give their result size-1 dimensions its input lacked; broadcasting such a
# value against another makes an array bigger than either (``x[:, None] - y[None, :]``).
_ADDS_ONES = frozenset({"unsqueeze", "reshape", "view"})
_PRODUCTS = frozenset({"mm", "matmul"})


# Ops whose result has their operands' broadcast shape (and slices): operands that are all
# slices of one array make no more elements than it has.
_ELEMENTWISE = _ARITHMETIC | _PREDICATES | frozenset(FAST_MAPS) | frozenset(_FLOAT_UFUNCS) | \
    frozenset({"where", "clamp", "pow", "__and__", "__or__", "__xor__", "logical_not",
               "bitwise_not", "remainder", "floor_divide", "reciprocal", "slice", "clone"})


def _sliced_from(value: Value) -> Value:
    """The array ``value`` is a slice of (through ``aten::slice`` nodes), or ``value``."""
    while value.node.kind == "aten::slice":
        value = value.node.input(0)
    return value


def growth_degree(graph: Graph) -> int:
    """The least ``d`` found such that no array the graph makes has more than ``S ** d``
    elements, ``S`` the most elements of an array argument (at least 1).

    Each tensor gets a degree and a flag, "may have size-1 dimensions an argument's array
    lacks" (from ``x[:, None]``, ``reshape``, a ``keepdims`` reduction, a product's output).
    A broadcasting op whose result has the rank of an unflagged operand has that operand's
    shape (dimensions without 1s only broadcast to themselves); otherwise its degree is the sum
    of its operands' (``x[:, None] - y[None, :]``: 2). An argument that itself has size-1
    dimensions (``f(x[:, None], y[None, :])``) is not seen."""
    info: dict[Value, tuple[int, bool]] = {}
    for value in graph.inputs:
        if (_rank(value) or 0) > 0:
            info[value] = (1, False)
    highest = 1
    for node in graph.all_nodes():
        operands = [(*info.get(v, (highest, True)), _rank(v)) for v in node.inputs
                    if (_rank(v) or 0) > 0 or isinstance(v.type, ListType) and v in info]
        name = node.kind.name
        for out in node.outputs:
            rank = _rank(out)
            if node.kind == prim.ListConstruct and operands:
                info[out] = (max(d for d, _, _ in operands), True)
                continue
            if not rank:
                continue
            same = [d for d, ones, r in operands if not ones and r == rank]
            bases = {_sliced_from(v) for v in node.inputs if (_rank(v) or 0) > 0}
            if writes_into(node) and node.input(0) in info:
                # (x[idx] += v, np.add.at(x, ...): x itself, updated)
                degree, ones = info[node.input(0)]
            elif len(bases) == 1 and _rank(next(iter(bases))) == rank and \
                    next(iter(bases)) in info and name in _ELEMENTWISE:
                # (s[:, 1:] != s[:, :-1]: slices of one array broadcast to no more than it)
                degree, ones = info[next(iter(bases))]
            elif not operands:                # (created from numbers: np.zeros(n))
                degree, ones = 1, rank > 1
            elif name in _PRODUCTS and any(r == 1 for _, _, r in operands):
                # (a product with a vector, X @ w: no more elements than its matrix has)
                degree, ones = max(d for d, _, _ in operands), True
            elif name in _PRODUCTS:
                degree, ones = sum(d for d, _, _ in operands), True
            elif name == "index" and _element_gather(node) and \
                    index_list(node.input(1))[0] == 0:
                # (x[idx], x[rows, cols] reaching every dimension: an element per index, the
                # indices broadcast together)
                picks = [(*info.get(v, (highest, True)), _rank(v))
                         for v in index_list(node.input(1))[1]]
                ranks = {r for _, _, r in picks}
                degree = max(d for d, _, _ in picks) if len(ranks) == 1 and not any(
                    flagged for _, flagged, _ in picks) else sum(d for d, _, _ in picks)
                ones = any(flagged for _, flagged, _ in picks)
            elif name == "index" and masked_gather(node):    # (at most x's elements)
                degree, ones = info.get(node.input(0), (highest, True))[0], False
            elif name == "index":             # (x[idx]: up to an element per index each)
                degree, ones = sum(d for d, _, _ in operands), True
            elif rank == 1 and name not in ("cat", "stack"):
                # (vectors broadcast to the longest of them: no outer product at rank 1)
                degree, ones = max(d for d, _, _ in operands), any(f for _, f, _ in operands)
            elif len(operands) == 1:          # (a view or a reduction of one array)
                degree, flagged, had = operands[0]
                ones = flagged or name in _ADDS_ONES or rank > (had or 0) or (
                    name in _REDUCTIONS and rank == had)
            elif same:
                degree, ones = max(same), False
            else:
                degree, ones = sum(d for d, _, _ in operands), True
            info[out] = (degree, ones)
            highest = max(highest, degree)
    return highest


# Nodes whose arrays are arrays other nodes made (a branch's or loop's results, a list's
# items) or none (a loop variable before the loop).
_PASSES_ON = frozenset({prim.If, prim.Loop, prim.ListUnpack, prim.Uninitialized})


# Ops that make, move or view elements without arithmetic: compiled whole, as fast at any size
# as the interpreter's path (a fused kernel has nothing to compute for them).
# (Not copies of whole arrays: the kernels copy a transposed array in blocks on every core,
# 3x NumPy's time for 1000 x 1000 float64, where Numba's copy ran at 0.95x; Numba's
# concatenate of two 10^6 float64 vectors ran 0.82x, NumPy's 0.98x.)
_MOVES = _VIEWS | _CREATE | frozenset({
    "arange", "eye", "linspace", "chunk", "fill_", "index_put_"})


def computes_arrays(graph: Graph) -> bool:
    """Does ``graph`` compute an array by arithmetic (or reduce one, or copy one), where fused
    kernels (vectorised math, threads) would beat Numba's NumPy on big arrays? ``np.zeros``
    and a scatter into it (a one-hot encoding), a gather of elements (``table[codes]``), a
    copy of a vector, do not. (A gather of rows, ``X[idx]``, does: NumPy copies each row as
    one block, Numba's loop ran 1.45x its time for 1000 rows of 1000 float64.) fusejit's own
    ops do too: on big arrays the interpreter runs NumPy's functions, or threads
    (``np.interp`` of 200k points: 28 ms whole, 14 ms on the interpreter's two threads)."""
    return any(node.kind.ns in ("aten", "fusejit") and node.kind.name not in _MOVES and any(
        (_rank(v) or 0) > 0 for v in [*node.inputs, *node.outputs])
        and not _element_gather(node)
        and not (node.kind == "aten::clone" and _rank(node.output()) == 1)
        for node in graph.all_nodes())


def _element_gather(node: Node) -> bool:
    """``table[codes]``, ``X[:, cols]``: an ``aten::index`` whose indices reach the last
    dimension (it picks elements, not rows)."""
    listed = index_list(node.input(1)) if node.kind == "aten::index" else None
    return listed is not None and listed[0] + len(listed[1]) == _rank(node.input(0))


def makes_arrays_in_loops(graph: Graph, runs: bool = True) -> bool:
    """Does a loop of ``graph`` compute whole arrays: make new ones (``for _ in range(5):
    v = v - dt * x``) or update them by arithmetic (``x *= 0.999``), not only make views,
    store and update elements (``out[i] = a * x[i] + out[i - 1]``)? (Numba's ``x *= 0.999``
    of 10^6 float32 took ~280 us, NumPy's ~45: such a loop ran whole at 0.16-0.38x NumPy.)
    A run of pointwise nodes and stores (``element_runs``) makes none (with ``runs``): it is
    one loop over the elements, unless its targets may share elements with its other arrays.
    (``np.minimum(lo, x[k:k + n], out=lo)`` and its maximum, 8 steps on 4 x 10^6 float32:
    whole, as runs, 28 ms; the interpreter 59; NumPy 48.)"""
    from .element_runs import overlapping, store_runs

    def in_block(block: Block, looped: bool) -> bool:
        found = store_runs(block).values() if looped and runs else ()
        # (a run's values are elements of one loop, never arrays: ``element_runs``)
        looped_over = {node for run in found if not overlapping(run) for node in run.body}
        for node in block.nodes():
            if node in looped_over:
                continue
            if looped and node.kind.name in _INPLACE and _rank(node.input(0)) != 0:
                return True
            if looped and node.kind not in _PASSES_ON and node.kind not in _ALIASING and any(
                    isinstance(v.type, TensorType) and _rank(v) != 0 for v in node.outputs):
                return True
            if any(in_block(b, looped or node.kind == prim.Loop) for b in node.blocks):
                return True
        return False
    return in_block(graph.block, False)


def argument_limit(graph: Graph, max_elements: int) -> int:
    """The most elements an array argument may have for no array the graph makes to exceed
    ``max_elements`` (``growth_degree``)."""
    return max(1, int(max_elements ** (1.0 / growth_degree(graph)) + 1e-9))
