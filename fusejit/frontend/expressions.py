"""Python expressions to IR: the expression half of ``fusejit.script``.

An expression evaluates to an *item*: an IR ``Value``, a Python literal not yet materialised, a
tuple or list of items, or a *sugared* value that only exists at compile time (a module, a
function, a bound method, ``x.shape``)::

    np.tanh(x[0]) * 2        %2 : int = prim::Constant[value=0]()
                             %3 : Tensor = aten::select(%x, %2, %2)      # f.py:3:16
                             %4 : Tensor = aten::tanh(%3)                # f.py:3:8
                             %5 : int = prim::Constant[value=2]()
                             %6 : Tensor = aten::mul(%4, %5)             # f.py:3:8

Names resolve to locals first, then the function's closure, globals and builtins, read without
running anything: a global number becomes a constant, a module or function stays sugared, and
anything else is an error naming the construct.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import types
from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..ir.types import (
    BOOL,
    FLOAT,
    INT,
    TENSOR,
    ListType,
    OptionalType,
    TensorType,
)
from . import numpy_lowering, numpy_more, numpy_ufuncs
from .builder import (
    LITERAL_TYPES,
    IRBuilder,
    Item,
    describe,
    is_none,
    is_tensor,
    scalar_type_of,
)
from .calls import ATTRIBUTES, METHODS, find_callee
from .constructs import CONSTRUCT_NAMES, INSTEAD
from .containers import DictMethod, dict_method
from .local_functions import LocalFunction
from .lowering import (
    append_to,
    as_tensor,
    binary,
    invert,
    list_element,
    list_length,
    ndim,
    numbers_as_0d,
    record_item,
    records_of,
    scalar_rank,
    shape,
    size,
    to_bool,
    transpose,
    unary,
    widen,
)
from .masked import FUNCTIONS as MASKED_FUNCTIONS
from .masked import REDUCTIONS as MASK_REDUCTIONS
from .masked import Masked, mask_among, masked_after_slices, split_mask
from .masked import call as masked_call
from .masked import count as masked_count
from .masked import select as masked_select
from .masked import values as masked_values
from .numpy_dtypes import (
    cast,
    dtype_of,
    holding_dtype,
    is_numpy_function,
    kind_key,
    numpy_scalar,
    numpy_scalar_result,
    scalar_kinds,
)
from .numpy_lowering import rank_of
from .numpy_shims import SHIMS
from .numpy_shims import unsupported as shim_unsupported
from .static_conditions import StaticConditions

# A dtype's attributes read while scripting (what each is for the dtype known then)
_DTYPE_ATTRIBUTES = frozenset({"itemsize", "kind", "name", "char", "str", "alignment"})
# The dtype a Python number of each type is as a NumPy scalar
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
           ast.Mod: "remainder", ast.FloorDiv: "floordiv", ast.MatMult: "matmul",
           ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "lshift",
           ast.RShift: "rshift"}
_COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
            ast.GtE: "ge"}

# NumPy's reductions of one axis, which np.apply_along_axis(f, axis, arr) computes
_ALONG_AXIS = frozenset({np.sum, np.mean, np.max, np.min, np.prod, np.std, np.var, np.median,
                         np.any, np.all, np.argmax, np.argmin, np.ptp, np.amax, np.amin,
                         np.nansum, np.nanmean, np.nanmax, np.nanmin, np.count_nonzero})

def assigned_flag(name: str) -> str:
    """The name of the flag that says whether ``name``, first assigned in a loop, has been
    (``LoopStatements._assignment_flags``): no Python source can spell it."""
    return f"$assigned_{name}"


def _a_list(item: Any) -> bool:
    """A Python list, or a list of the IR that a loop built (not of tuples)?"""
    return isinstance(item, list) or isinstance(item, Value) and isinstance(
        item.type, ListType)


def _mask_then_basic(index: Any) -> bool:
    """Is ``index`` a tuple of a boolean array first, then only basic items (slices, ints,
    ``None``, ``...``)?"""
    if not isinstance(index, tuple) or len(index) < 2 or not is_tensor(index[0]) or \
            dtype_of(index[0]) != np.dtype(np.bool_):
        return False
    return all(i is None or i is Ellipsis or isinstance(i, slice)
               or isinstance(i, int) and not isinstance(i, bool)
               or isinstance(i, Value) and i.type == INT for i in index[1:])


class Sugared:
    """A compile-time-only value: a module, function or other Python object from the scope."""

    __slots__ = ("obj", "name")

    def __init__(self, obj: Any, name: str):
        self.obj = obj
        self.name = name


class BoundMethod:
    """``x.sum`` before it is called."""

    __slots__ = ("receiver", "name")

    def __init__(self, receiver: Value, name: str):
        self.receiver = receiver
        self.name = name


class ShapeOf:
    """``x.shape`` before it is indexed (``x.shape[i]`` becomes ``aten::size(x, i)``)."""

    __slots__ = ("array",)

    def __init__(self, array: Value):
        self.array = array


class Undefined:
    """A name that cannot be read here, with the reason (assigned in one branch only ...)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


class FunctionSource:
    """A function's parsed source, with the offsets that map AST positions to the file."""

    __slots__ = ("fn", "tree", "file", "line_offset", "col_offset", "globals", "closure")

    def __init__(self, fn, tree: ast.FunctionDef, file: str, line_offset: int, col_offset: int):
        self.fn = fn
        self.tree = tree
        self.file = file
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.globals = fn.__globals__
        self.closure: dict[str, Any] = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                pass


class ExpressionEmitter(StaticConditions):
    """Evaluates expressions of one function body into items, emitting nodes as it goes."""

    def __init__(self, b: IRBuilder, src: FunctionSource):
        self.b = b
        self.src = src
        self.env: dict[str, Any] = {}
        # An element read into a name, and its copy once its array is written (the names
        # that held the read now hold the copy: ``StatementEmitter.keep_read_elements``).
        self.element_copies: dict[Value, Value] = {}

    # -- locations ----------------------------------------------------------------------------

    def at(self, node: ast.AST) -> None:
        """Locate the nodes emitted next at ``node`` in the user's file."""
        from .builder import Location

        self.b.loc = Location(self.src.file, node.lineno + self.src.line_offset,
                              node.col_offset + self.src.col_offset)

    def unsupported(self, node: ast.AST, what: str | None = None):
        self.at(node)
        instead = INSTEAD.get(type(node)) if what is None else None
        what = what or CONSTRUCT_NAMES.get(type(node), type(node).__name__)
        tail = f"; write {instead} instead" if instead else ""
        return self.b.error(f"{what} is not supported by fusejit.script{tail}")

    # -- expressions --------------------------------------------------------------------------

    def eval(self, node: ast.expr) -> Any:
        method = getattr(self, f"eval_{type(node).__name__}", None)
        if method is None:
            raise self.unsupported(node)
        return method(node)

    def eval_value(self, node: ast.expr, masked: bool = False) -> Item:
        """An expression that must be a run-time value (not a module, function ...);
        ``masked``: an ``x[mask]`` selection may be (a call's argument, a name's value)."""
        item = self.eval(node)
        if isinstance(item, Masked) and not masked:
            self.at(node)
            return masked_values(self.b, item)   # (the selection as an array)
        if isinstance(item, ShapeOf):
            self.at(node)
            rank = item.array.type.rank
            if rank is not None and self.b.facts is not None:  # typed: a tuple of sizes
                return tuple(size(self.b, item.array, d) for d in range(rank))
            return shape(self.b, item.array)
        if isinstance(item, Sugared) and _is_dtype(item.obj):
            return np.dtype(item.obj)  # np.float32, float ... as a dtype= value
        if isinstance(item, (Sugared, BoundMethod)):
            self.at(node)
            name = item.name
            raise self.b.error(f"{name!r} is not a value (only arrays, numbers and tuples are)")
        return item

    def eval_Constant(self, node: ast.Constant) -> Item:
        if isinstance(node.value, (*LITERAL_TYPES, str)):
            return node.value  # (a string lives while scripting: compared, or a dict key)
        raise self.unsupported(node, f"a {type(node.value).__name__} constant (write a "
                                     f"number or a string)")

    def eval_Name(self, node: ast.Name) -> Any:
        name = node.id
        if name in self.env:
            item = self.env[name]
            if isinstance(item, Value):  # (an element read before a write: its copy)
                item = self.element_copies.get(item, item)
            elif isinstance(item, Masked) and item.kept is not None:
                item = item.kept    # (x[mask] read before a write into x: its copy)
            if isinstance(item, Undefined):
                self.at(node)
                raise self.b.error(f"{name!r} is not defined here: {item.reason}")
            assigned = self.assignment_flag(name)
            if assigned is not None and assigned is not True:
                # (first assigned in a loop, where a break/continue test or an if may skip
                # the assignment: LoopStatements._assignment_flags)
                self.at(node)
                self.b.raise_unless(self.b.value(assigned), f"UnboundLocalError: {name!r} is "
                                    f"read at line {node.lineno + self.src.line_offset}, "
                                    f"where no assignment of it ran")
            return item
        for scope in (self.src.closure, self.src.globals):
            if name in scope:
                return self.from_python(node, scope[name], name)
        if hasattr(builtins, name):
            return self.from_python(node, getattr(builtins, name), name)
        self.at(node)
        raise self.b.error(f"name {name!r} is not defined; define it before this line, "
                           f"in the function or its module")

    def assignment_flag(self, name: str) -> Item:
        """Whether ``name``, first assigned in a loop, has been (a bool, or a value of one),
        where such a flag follows it here (``LoopStatements._assignment_flags``); else None."""
        flag = self.env.get(assigned_flag(name))
        return None if isinstance(flag, Undefined) else flag

    def from_python(self, node: ast.AST, obj: Any, name: str) -> Any:
        """A Python object found in the scope: numbers become literals, others stay sugared."""
        if isinstance(obj, (bool, int, float)) or obj is None:
            return obj
        if isinstance(obj, np.generic) and isinstance(obj.item(), (bool, int, float)):
            self.at(node)
            return numpy_scalar(self.b, obj.item(), obj.dtype)  # (strong, as NumPy's)
        if obj is np.mgrid or obj is np.ogrid:
            return numpy_more.IndexGrid(obj is np.ogrid)
        if isinstance(obj, types.ModuleType) or callable(obj):
            return Sugared(obj, name)  # resolved when called (or rejected as a value)
        # Global lists and arrays are read once, when the function is scripted for a
        # signature (as Numba and JAX freeze globals): a later change is not seen.
        if isinstance(obj, (list, tuple)) and all(
                isinstance(i, (bool, int, float)) for i in obj):
            return type(obj)(obj)
        if isinstance(obj, dict) and all(isinstance(k, (str, int)) for k in obj) and all(
                isinstance(v, (bool, int, float)) for v in obj.values()):
            return dict(obj)  # CONFIG["lr"]: a dict with constant keys (containers.py)
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf" and obj.dtype.isnative:
            self.at(node)
            return self.b.value_const(obj.copy())
        self.at(node)
        raise self.b.error(f"{name!r} is a Python {type(obj).__name__}, which cannot be used "
                           f"inside a scripted function (pass it as an argument)")

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        name = f"{_dotted(node.value)}.{node.attr}"
        if isinstance(base, Sugared) and isinstance(base.obj, np.ufunc) and \
                node.attr in ("outer", "reduce", "accumulate", "at", "reduceat"):
            return Sugared(getattr(base.obj, node.attr), name)   # np.add.outer (numpy_shims)
        if isinstance(base, Sugared) and isinstance(base.obj, types.ModuleType):
            if not hasattr(base.obj, node.attr):
                self.at(node)
                raise self.b.error(f"module {base.name!r} has no attribute {node.attr!r}")
            return self.from_python(node, getattr(base.obj, node.attr), name)
        if isinstance(base, dict):
            self.at(node)
            return dict_method(base, node.attr, self.b.error)
        if isinstance(base, tuple) and node.attr in getattr(base, "_fields", ()):
            return getattr(base, node.attr)    # (np.linalg.eigh(a).eigenvalues)
        if isinstance(base, np.finfo) and hasattr(base, node.attr):
            return self.from_python(node, getattr(base, node.attr), name)   # np.finfo(f).eps
        if isinstance(base, np.iinfo) and node.attr in ("min", "max", "bits"):
            return getattr(base, node.attr)     # np.iinfo(np.uint16).max: a Python int
        if isinstance(base, np.dtype) and node.attr in _DTYPE_ATTRIBUTES:
            return getattr(base, node.attr)      # x.dtype.itemsize, x.dtype.kind == "u"
        if isinstance(base, Masked):
            self.at(node)
            if node.attr in MASK_REDUCTIONS:
                return BoundMethod(base, node.attr)
            if node.attr == "size" and rank_of(base.mask) == rank_of(base.array):
                return masked_count(self.b, base)
            base = masked_values(self.b, base)      # (x[m].std(), x[m].shape: the array)
        if is_tensor(base):
            self.at(node)
            if node.attr == "T":
                return transpose(self.b, base)
            if node.attr == "shape":
                return ShapeOf(base)
            if node.attr == "ndim":
                return ndim(self.b, base)
            if node.attr == "dtype" and dtype_of(base) is not None:
                return dtype_of(base)
            if node.attr == "size":
                return self.b.emit(aten.numel, [base], ".size")
            if node.attr in ("itemsize", "nbytes") and dtype_of(base) is not None:
                itemsize = dtype_of(base).itemsize
                if node.attr == "itemsize":
                    return itemsize
                return binary(self.b, "mul", self.b.emit(aten.numel, [base], ".nbytes"),
                              itemsize)
            if node.attr in METHODS:
                return BoundMethod(base, node.attr)
            if node.attr in ("dtype", "itemsize", "nbytes"):
                raise self.b.error(f"x.{node.attr} of this array is not known while scripting: "
                                   f"its dtype is not (an item of a list whose arrays differ "
                                   f"in dtype or rank, say); convert it first, e.g. "
                                   f"np.asarray(x, np.float64)")
        self.at(node)
        supported = ", ".join(sorted(ATTRIBUTES | set(METHODS)))
        raise self.b.error(f"attribute {node.attr!r} of a {describe(base)} is not supported "
                           f"(arrays have: {supported})")

    def eval_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._elements(node.elts))

    def eval_List(self, node: ast.List) -> list:
        return list(self._elements(node.elts))

    def _elements(self, elts: list[ast.expr]) -> list:
        """A tuple's or list's items, ``*xs`` of a tuple or list known while scripting
        spliced in (``(*np.histogram2d(x, y), n)``)."""
        items = []
        for e in elts:
            if isinstance(e, ast.Starred):
                inner = self.eval(e.value)
                if not isinstance(inner, (tuple, list)):
                    raise self.unsupported(e, "star-args of other than a tuple or list")
                items.extend(inner)
            else:
                items.append(self.eval_value(e))
        return items

    def eval_BinOp(self, node: ast.BinOp) -> Item:
        op = _BINOPS.get(type(node.op))
        lhs, rhs = self.eval_value(node.left), self.eval_value(node.right)
        self.at(node)
        if op is None:
            raise self.unsupported(node, f"the operator {type(node.op).__name__}")
        if op == "add" and _a_list(lhs) and _a_list(rhs):
            # (list concatenation, as in Python: of two lists known now, now; else a new list
            # of the IR, ``cols + [np.ones(n)]``)
            if isinstance(lhs, list) and isinstance(rhs, list):
                return lhs + rhs
            return self.joined_lists(lhs, rhs, node)
        return binary(self.b, op, lhs, rhs)

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Item:
        operand = self.eval_value(node.operand)
        self.at(node)
        if isinstance(node.op, ast.UAdd):
            # (``+x`` of an array is NumPy's np.positive: a new array, which an update of
            # ``y = +x`` must not write through to ``x``)
            return numpy_ufuncs.positive(self.b, operand) if is_tensor(operand) else operand
        if isinstance(node.op, ast.USub):
            if isinstance(operand, (int, float)) and not isinstance(operand, bool):
                return -operand  # a negative literal such as -1
            return unary(self.b, "neg", operand, "unary '-'")
        if isinstance(node.op, ast.Not):
            return self.b.emit(aten["__not__"], [self.condition_of(operand)], "not")
        return invert(self.b, operand, "'~'")

    def eval_Compare(self, node: ast.Compare) -> Item:
        """``a < b`` and chains ``a < b < c``: ``b`` evaluated once, nested short-circuit ifs."""
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return self.identity(node, isinstance(node.ops[0], ast.Is))
        ops = []
        for op_node in node.ops:
            op = _COMPARE.get(type(op_node))
            if op is None:
                raise self.unsupported(node, f"the comparison {type(op_node).__name__}")
            ops.append(op)

        def chain(i: int, left: Item) -> Item:
            right = self.eval_value(node.comparators[i])
            self.at(node)
            if isinstance(left, tuple) and isinstance(right, tuple) and ops[i] in ("eq", "ne"):
                result = self.tuples_equal(left, right, ops[i] == "eq")
            elif (isinstance(left, np.dtype) and isinstance(right, np.dtype)
                  or isinstance(left, str) or isinstance(right, str)) \
                    and ops[i] in ("eq", "ne"):  # x.dtype == np.float32, mode == "mean":
                result = (left == right) == (ops[i] == "eq")  # known while scripting
            else:
                result = binary(self.b, ops[i], left, right)
            if i + 1 == len(ops):
                return result
            if is_tensor(result) and rank_of(result) == 0:
                return self.scalar_chain(node, result, lambda: chain(i + 1, right))
            return self.short_circuit(node, self.condition_of(result), True,
                                      lambda: chain(i + 1, right))

        return chain(0, self.eval_value(node.left))

    def tuples_equal(self, left: tuple, right: tuple, equal: bool) -> Item:
        """``x.shape == y.shape``: equal lengths and items (a literal when all are known)."""
        if len(left) != len(right):
            return not equal
        result: Item = True
        for a, c in zip(left, right):
            same = binary(self.b, "eq", a, c)
            result = same if result is True else binary(self.b, "and", result, same)
            if result is False:
                break
        if equal:
            return result
        return (not result) if isinstance(result, bool) else self.b.emit(
            aten["__not__"], [result], "'!='")

    def identity(self, node: ast.Compare, positive: bool) -> Item:
        """``a is None`` / ``a is not None``: decided while scripting unless ``a`` is Optional."""
        left, right = self.eval_value(node.left), self.eval_value(node.comparators[0])
        self.at(node)
        if not (is_none(left) or is_none(right)):
            raise self.b.error("'is' is only supported against None (write == to compare "
                               "values)")
        other = right if is_none(left) else left
        if isinstance(other, Value) and isinstance(other.type, OptionalType):
            result = self.b.emit("aten::__is__", [other, None], "'is'")
            return result if positive else self.b.emit(aten["__not__"], [result], "'is not'")
        return is_none(other) == positive

    def eval_BoolOp(self, node: ast.BoolOp) -> Item:
        """``a and b`` / ``a or b`` short-circuit, as a ``prim::If`` on bools; decided while
        scripting where an operand is known then (``x.dtype != np.float32 and ...``), so an
        ``if`` on it stays decided (its branches' arrays keep their own dtypes)."""
        is_and = isinstance(node.op, ast.And)
        result = self.condition_of(self.eval_value(node.values[0]))
        for operand in node.values[1:]:
            known = self.b.static(result)
            if isinstance(known, bool):
                if known != is_and:     # (False and ..., True or ...: the rest never runs)
                    return result
                result = self.condition_of(self.eval_value(operand))
                continue
            result = self.short_circuit(node, result, is_and,
                                        lambda operand=operand: self.eval_value(operand))
        return result

    def scalar_chain(self, node: ast.AST, first: Value, rest) -> Value:
        """``lo < v < hi`` of a NumPy scalar ``v``: Python's ``first and rest()``, whose value
        is the NumPy bool that decided it (an ``np.bool_``, as NumPy's comparisons give)."""
        if_node = self.b.create(prim.If, [self.condition_of(first)], 1)
        taken, short = if_node.add_block(), if_node.add_block()
        with self.b.graph.inserting_before(taken):
            later = rest()
            scalar = is_tensor(later) and rank_of(later) == 0
            taken.register_output(self.b.value(later if scalar else self.condition_of(later)))
        with self.b.graph.inserting_before(short):
            self.at(node)
            short.register_output(first if scalar else self.condition_of(first))
        return if_node.output().set_type(self.join_types(taken.outputs[0], short.outputs[0],
                                                         "the comparisons"))

    def short_circuit(self, node: ast.AST, first: Value, is_and: bool, second) -> Value:
        """``first and second()`` / ``first or second()``: ``second`` runs in one branch only."""
        self.at(node)
        if_node = self.b.create(prim.If, [first], 1)
        taken, other = if_node.add_block(), if_node.add_block()
        evaluated, short = (taken, other) if is_and else (other, taken)
        with self.b.graph.inserting_before(evaluated):
            evaluated.register_output(self.condition_of(second()))
        with self.b.graph.inserting_before(short):
            self.at(node)
            short.register_output(self.b.value(not is_and))
        return if_node.output().set_type(BOOL)

    def eval_IfExp(self, node: ast.IfExp) -> Item:
        static = self.static_condition(node.test)
        if static is not None:
            return self.eval_value(node.body if static else node.orelse)
        cond = self.condition(node.test)
        self.at(node)
        if_node = self.b.create(prim.If, [cond], 0)
        outs = []
        for expr in (node.body, node.orelse):
            block = if_node.add_block()
            with self.b.graph.inserting_before(block):
                outs.append((block, self.b.value(self.eval_value(expr))))
        self.at(node)
        kinded = self.merged_kinds(if_node, [v for _, v in outs], "the conditional "
                                   "expression's branches")
        if kinded is not None:
            return kinded
        if_node.add_output()
        outs = self.widened(outs)
        for block, value in zip(if_node.blocks, outs):
            block.register_output(value)
        if_node.output().set_type(self.join_types(outs[0], outs[1], "the conditional "
                                                  "expression's branches"))
        self.note_merged(if_node.output(), outs[0], outs[1])
        return if_node.output()

    def tensor_item(self, arrays: tuple | list, index: Value) -> Value:
        """``masks[c]`` of a tuple or list of arrays by an int known only when it runs: the
        list of them, indexed (Python's IndexError past its end). The arrays must share a
        dtype and a rank, so that what follows compiles for the one the index picks."""
        kinds = {(dtype_of(a), rank_of(a)) for a in arrays}
        if len(kinds) != 1 or any(v is None for v in next(iter(kinds))):
            listed = ", ".join(sorted({f"{d} {r}-d" for d, r in kinds}, key=str))
            raise self.b.error(f"a tuple of arrays indexed by an int known only when it runs "
                               f"must hold arrays of one dtype and rank, got {listed}; index "
                               f"it with a constant, or stack the arrays (np.stack) and "
                               f"index that")
        items = self.b.tensor_list(list(arrays), "indexing")
        item = self.b.emit(aten["__getitem__"], [items, index], "indexing")
        types = {a.type for a in arrays}
        if len(types) == 1:
            item.set_type(next(iter(types)))
        return item

    def eval_Subscript(self, node: ast.Subscript) -> Item:
        base = self.eval(node.value)
        if isinstance(base, dict):
            self.at(node)
            return self.dict_item(base, self.dict_key(node.slice))
        index = self.eval_index(node.slice)
        self.at(node)
        if isinstance(base, numpy_more.IndexGrid):
            return numpy_more.index_grid(self.b, base, index)
        if isinstance(base, Masked):     # (x[mask][:5], x[mask][0]: the selected values)
            base = masked_values(self.b, base)
        if isinstance(base, ShapeOf):
            if isinstance(index, slice):    # (h, w = img.shape[:2]: the sizes of known rank)
                rank = base.array.type.rank
                bounds = [self.b.static(v) for v in (index.start, index.stop, index.step)]
                if rank is None or any(v is ... for v in bounds):
                    raise self.b.error("slicing x.shape is supported with constant bounds on "
                                       "an array of known rank; index it with an int instead")
                return tuple(size(self.b, base.array, d) for d in range(rank))[slice(*bounds)]
            return size(self.b, base.array, index)
        if isinstance(base, (tuple, list)):
            if isinstance(index, slice):
                bounds = [self.b.static(v) for v in (index.start, index.stop, index.step)]
                if any(v is ... for v in bounds):
                    raise self.b.error("a tuple can only be sliced with constant bounds")
                return base[slice(*bounds)]
            numbers = [self.b.static(v) for v in base]
            kinds = {type(n) for n in numbers}
            if isinstance(index, Value) and index.type == INT and base and \
                    len(kinds) == 1 and kinds <= {int, float}:
                # (c[i] of a tuple of numbers by an int known when it runs: the list of them,
                # indexed; Python's number, weak beside arrays)
                items = self.b.value_const(numbers)
                return self.b.emit(aten["__getitem__"], [items, index], "indexing")
            if isinstance(index, Value) and index.type == INT and base and all(
                    is_tensor(v) for v in base):
                return self.tensor_item(base, index)
            if isinstance(index, Value) and index.type == INT:
                raise self.b.error("a tuple (or a list passed as an argument) indexed by an int "
                                   "known only when it runs must hold numbers of one type, "
                                   "all ints or all floats; make an array of it "
                                   "(np.asarray(...)) to index it otherwise")
            i = self.b.static_int(index, "a tuple index")
            if not -len(base) <= i < len(base):
                raise self.b.error(f"index {i} is out of range for a tuple of {len(base)}")
            return base[i]
        if isinstance(base, Value) and isinstance(base.type, ListType):
            if isinstance(index, slice):   # (levels[:-1] of a list built in a loop)
                return self.sliced_list(base, index, node)
            records = records_of(self.b, base)
            if records is not None:     # (rows[i] of a list of tuples)
                return record_item(self.b, records, index)
            return list_element(self.b, base,
                                self.b.emit(aten["__getitem__"], [base, index], "indexing"))
        if is_tensor(base) and is_tensor(index) and dtype_of(index) == np.dtype(np.bool_):
            return masked_select(self.b, base, index)
        at = mask_among(self.b, index) if is_tensor(base) else None
        if at is not None:
            if any(isinstance(i, slice) for i in index[:at]):
                return masked_after_slices(self.b, base, index, at)
            return masked_select(self.b, *split_mask(self.b, base, index, at, False))
        if is_tensor(base) and _mask_then_basic(index):
            # (x[mask, None], x[mask, ..., 0]: the rows the mask selects, then the rest of the
            # index over their remaining axes, as NumPy reads it)
            rows = masked_values(self.b, masked_select(self.b, base, index[0]))
            return numpy_lowering.index(self.b, rows, (slice(None), *index[1:]))
        if is_tensor(base):
            return numpy_lowering.index(self.b, base, index)
        raise self.b.error(f"a {describe(base)} cannot be indexed")

    def eval_index(self, node: ast.expr) -> Any:
        """An index: items, Python ``slice`` objects of items, ``...``, or a tuple of them."""
        if isinstance(node, ast.Slice):
            return slice(*(None if part is None else self.eval_value(part)
                           for part in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return Ellipsis
        if isinstance(node, ast.Tuple):
            return tuple(self.eval_index(e) for e in node.elts)
        return self.eval_value(node)

    def eval_Call(self, node: ast.Call, method: bool = True) -> Item:
        if method and isinstance(node.func, ast.Attribute) and node.func.attr == "append":
            return self.append(node)
        func = self.eval(node.func)
        if isinstance(func, Sugared) and func.obj is isinstance:
            return self.eval_isinstance(node)
        if isinstance(func, Sugared) and func.obj is np.apply_along_axis:
            return self.eval_apply_along_axis(node)
        if isinstance(func, Sugared) and func.obj is print:
            return self.eval_print(node)
        if isinstance(func, Sugared) and func.obj is map:
            return self.eval_map(node)
        if isinstance(func, Sugared) and func.obj is reversed:
            return self.eval_reversed(node)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.unsupported(arg, "star-args (*args): write the arguments one by one")
            args.append(self.eval_value(arg, masked=True))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.unsupported(keyword.value, "keyword star-args (**kwargs): write the "
                                                    "keywords one by one")
            kwargs[keyword.arg] = self.eval_value(keyword.value)
        self.at(node)
        return self.call(func, args, kwargs)

    def call(self, func: Any, args: list[Item], kwargs: dict[str, Item]) -> Item:
        """``func(*args, **kwargs)`` for an evaluated callee."""
        if isinstance(func, DictMethod):
            if args or kwargs:
                raise self.b.error(f"{func.name}() takes no arguments")
            return func()
        if isinstance(func, Sugared) and func.obj is len and len(args) == 1 \
                and isinstance(args[0], dict):
            return len(args[0])
        if isinstance(func, BoundMethod) and isinstance(func.receiver, Masked):
            return masked_call(self.b, func.name, func.receiver, args, kwargs)
        if args and isinstance(args[0], Masked) and isinstance(func, Sugared) \
                and func.obj in MASKED_FUNCTIONS:
            return masked_call(self.b, MASKED_FUNCTIONS[func.obj], args[0], args[1:], kwargs)
        if any(isinstance(a, Masked) for a in args) and not (
                isinstance(func, Sugared) and inspect.isfunction(func.obj)):
            # (np.sort(x[m]), np.median(x[m]): the selection as an array)
            args = [masked_values(self.b, a) if isinstance(a, Masked) else a for a in args]
        if isinstance(func, BoundMethod):
            if func.name in ("fill", "sort") and hasattr(self, "keep_read_elements"):
                self.keep_read_elements(func.receiver)   # (x.fill(v) writes x)
            mark = len(self.b.writes)
            result = METHODS[func.name](self.b, [func.receiver, *args], kwargs)
            self.keep_what_was_read(mark)
            return result
        if isinstance(func, LocalFunction):   # (a def or lambda of this function: inlined)
            return self.inline_call(func, args, kwargs)
        if not isinstance(func, Sugared):
            raise self.b.error(f"a {describe(func)} is not callable")
        if func.obj in (max, min) and not kwargs:
            kinded = self.kinded_extreme(func.obj.__name__, args)
            if kinded is not None:
                return kinded
        callee = find_callee(func.obj)
        if callee is not None:
            mark = len(self.b.writes)
            result = callee(self.b, args, kwargs)
            self.keep_what_was_read(mark)
            if is_numpy_function(func.obj):   # np.sqrt(n): a NumPy scalar, strong (NEP 50)
                return numpy_scalar_result(self.b, func.obj, args, result, kwargs,
                                           operator=False)
            return result
        if func.obj is range:
            raise self.b.error("range() is only supported as the iterable of a for loop")
        if func.obj is shim_unsupported and len(args) == 1 and isinstance(args[0], str):
            raise self.b.error(args[0])   # (a stand-in refusing its arguments)
        shim = SHIMS.get(func.obj) if not isinstance(func.obj, type) else None
        if shim is not None:
            return self.inline_shim(func.name, shim, args, kwargs)
        if inspect.isfunction(func.obj) and not is_numpy_function(func.obj):
            return self.inline_call(func.obj, args, kwargs)
        inner = getattr(func.obj, "__fusejit_function__", None)
        if inspect.isfunction(inner):  # another @fusejit.jit function: inlined like a helper
            return self.inline_call(inner, args, kwargs)
        raise self.b.error(f"call to unknown function {func.name!r}: it is neither a "
                           f"supported NumPy/fusejit.ops function nor a Python function; "
                           f"write it with the supported functions (README: What NumPy is "
                           f"supported), or call it outside the jitted function")

    def append(self, node: ast.Call) -> Item:
        """``xs.append(v)``: on a Python list while scripting, ``aten::append`` on an IR list."""
        items = self.eval(node.func.value)  # type: ignore[attr-defined]
        if isinstance(items, Sugared):   # np.append(x, v): NumPy's function, not a method
            return self.eval_Call(node, method=False)
        if len(node.args) != 1 or node.keywords:
            raise self.unsupported(node, "append() with other than one argument")
        value = self.eval_value(node.args[0])
        self.at(node)
        if isinstance(items, list):
            items.append(value)
            return None
        if isinstance(items, Value) and isinstance(items.type, ListType):
            append_to(self.b, items, value)
            return None
        raise self.b.error(f"a {describe(items)} has no append()")

    def inline_call(self, fn, args: list[Item], kwargs: dict[str, Item]) -> Item:
        raise NotImplementedError  # provided by the statement emitter

    def sliced_list(self, items: Value, index: slice, node: ast.AST) -> Value:
        raise NotImplementedError  # provided by the statement emitter (loops.py)

    def joined_lists(self, first: Item, second: Item, node: ast.AST) -> Item:
        raise NotImplementedError  # provided by the statement emitter (loops.py)

    def dict_item(self, items: dict, key: Any) -> Item:
        raise NotImplementedError  # provided by the statement emitter (containers.py)

    def eval_reversed(self, node: ast.Call) -> Item:
        """``reversed(xs)``: a tuple or list known while scripting, reversed; a list a loop
        built, as its slice ``xs[::-1]``; an array's rows from the last, ``x[::-1]`` (what
        a for loop over it reads)."""
        if len(node.args) != 1 or node.keywords:
            raise self.unsupported(node, "reversed() with other than one argument")
        items = self.eval_value(node.args[0])
        self.at(node)
        if isinstance(items, (tuple, list)):
            return tuple(reversed(items))
        if isinstance(items, Value) and isinstance(items.type, ListType):
            return self.sliced_list(items, slice(None, None, -1), node)
        if is_tensor(items) and rank_of(items) not in (None, 0):
            return numpy_lowering.index(self.b, items, (slice(None, None, -1),))
        raise self.b.error(f"reversed() takes a tuple, a list or an array, got "
                           f"{describe(items)}")

    def eval_map(self, node: ast.Call) -> tuple:
        raise NotImplementedError  # provided by the statement emitter (containers.py)

    def dict_key(self, node: ast.expr) -> Any:
        raise NotImplementedError  # provided by the statement emitter (containers.py)

    def eval_apply_along_axis(self, node: ast.Call) -> Item:
        """``np.apply_along_axis(np.sum, axis, arr, *args, **kwargs)`` for NumPy's reductions
        of one axis: the reduction along it (``np.sum(arr, axis)``: the same values; a sum of
        a long axis may round its last bit otherwise than NumPy's slice-by-slice sums, whose
        additions go in another order); other functions are refused (their results would be
        stacked slice by slice)."""
        if len(node.args) < 3 or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "np.apply_along_axis without (func, axis, arr)")
        fn = self.eval(node.args[0])
        self.at(node)
        if not isinstance(fn, Sugared) or fn.obj not in _ALONG_AXIS:
            raise self.b.error("np.apply_along_axis takes one of NumPy's reductions here "
                               f"({', '.join(sorted(f.__name__ for f in _ALONG_AXIS))}); for "
                               "another function loop over the slices and np.stack them")
        axis = self.eval_value(node.args[1])
        arr = self.eval_value(node.args[2], masked=True)
        extra = [self.eval_value(a) for a in node.args[3:]]
        kwargs = {k.arg: self.eval_value(k.value) for k in node.keywords}
        self.at(node)
        return self.call(fn, [arr, axis, *extra], kwargs)

    def eval_isinstance(self, node: ast.Call) -> bool:
        """``isinstance(x, np.ndarray)``, ``isinstance(v, (int, float))``: decided while
        scripting, from the type the value has in NumPy (an array, a NumPy scalar of its
        dtype, a Python number, a tuple ...)."""
        if len(node.args) != 2 or node.keywords:
            raise self.unsupported(node, "isinstance() with other than two arguments")
        item = self.eval(node.args[0])
        given = node.args[1]
        classes = tuple(self.eval(e) for e in given.elts) if isinstance(given, ast.Tuple) \
            else (self.eval(given),)
        self.at(node)
        if not all(isinstance(c, Sugared) and isinstance(c.obj, type) for c in classes):
            raise self.b.error("isinstance() takes a class or a tuple of classes here")
        kind = self._numpy_type(item)
        if kind is None:
            raise self.b.error(f"isinstance() of a {describe(item)}: its type is known only "
                               f"when it runs")
        return issubclass(kind, tuple(c.obj for c in classes))

    def _numpy_type(self, item: Any) -> type | None:
        """The Python type ``item`` has in NumPy, where scripting knows it."""
        if isinstance(item, Masked):
            return np.ndarray
        if isinstance(item, Value):
            if isinstance(item.type, TensorType):
                rank = item.type.rank
                if rank is None:
                    return None
                if rank or item in self.b.zero_d_arrays:
                    return np.ndarray
                dtype = item.type.dtype
                return dtype.type if dtype is not None else None
            if item in self.b.numpy_scalars:
                return self.b.numpy_scalars[item].type
            scalar = scalar_type_of(item)
            return {BOOL: bool, INT: int, FLOAT: float}.get(scalar)
        if isinstance(item, (bool, int, float, str, tuple, list, dict)) or item is None:
            return type(item)
        return None

    def keep_what_was_read(self, mark: int) -> None:
        """After a call whose ops write arrays in place (``b.writes`` from ``mark`` on:
        ``out=``, ``np.copyto``, ``np.add.at``...): what names read of those arrays before it
        (``t = x[0]``, ``t = x[x > 0]``) keeps the values read, as a write by assignment does
        (``StatementEmitter.keep_read_elements``, whose copies go where the reads were)."""
        written = self.b.writes[mark:]
        if not written:
            return
        del self.b.writes[mark:]
        if hasattr(self, "keep_read_elements"):
            for target in dict.fromkeys(written):
                self.keep_read_elements(target)

    def eval_print(self, node: ast.Call) -> None:
        raise NotImplementedError  # provided by the statement emitter (containers.py)

    # -- helpers ------------------------------------------------------------------------------

    def condition(self, node: ast.expr) -> Value:
        item = self.eval_value(node)
        self.at(node)
        return self.condition_of(item)

    def condition_of(self, item: Item) -> Value:
        """A ``bool`` value for ``if``/``while``/``and``: arrays and numbers via ``aten::Bool``;
        a list built in a loop is true while it holds an item (``while stack:``), as in
        Python."""
        if isinstance(item, Value) and isinstance(item.type, ListType):
            return self.b.value(binary(self.b, "ne", list_length(self.b, item), 0))
        if isinstance(item, (tuple, list)):     # (a literal: its length is known now)
            return self.b.value(bool(item))
        if not is_tensor(item) and scalar_type_of(item) is None:
            raise self.b.error(f"a {describe(item)} cannot be used as a condition")
        return self.b.value(to_bool(self.b, item))

    def widened(self, values: list[tuple[Any, Value]]) -> list[Value]:
        """Values merged from several blocks (``(block, value)``) where a Python number has
        different types, ``x = 0`` then ``x = x * 0.5``: each converted at the end of its block
        to the widest type (bool < int < float), as Numba unifies them. Others unchanged."""
        ranks = [scalar_rank(v) for _, v in values]
        if None in ranks:
            return numbers_as_0d(self.b, values)
        if len(set(ranks)) == 1:
            return [v for _, v in values]
        target = max(ranks)
        out = []
        for (block, value), rank in zip(values, ranks):
            if rank != target:
                with self.b.graph.inserting_before(block):
                    value = self.b.value(widen(self.b, value, target))
            out.append(value)
        return out

    def merged_kinds(self, node, values: list[Item], what: str) -> Value | None:
        """A number that the blocks of the If ``node`` give different kinds (``values``, one a
        block): an int in one and a float in the other, a np.float32 and a np.float64, a
        Python float and a NumPy scalar... NumPy's number keeps the kind of the branch that
        ran. The If gives the number (as ``widened`` merges numbers; a 0-d array of a dtype
        that holds every branch's exactly where one is a NumPy scalar held as a 0-d array) and
        the index of its kind among the branches' (``IRBuilder.branched``), which ops on it
        (``numpy_dtypes``) and the caller it is returned to read. None where the kinds are
        one, or a value is not a number (or with PyTorch's rules: ``b.branched`` None)."""
        b = self.b
        if b.branched is None:
            return None
        kinds = [scalar_kinds(b, v) for v in values]
        if any(k is None for k in kinds) or len({kind_key(k) for ks in kinds for k in ks}) == 1:
            return None
        pairs = list(zip(node.blocks, values))
        if any(is_tensor(v) for v in values):
            target = holding_dtype([k for ks in kinds for k in ks])
            merged = []
            for block, value in pairs:
                with b.graph.inserting_before(block):
                    value = cast(b, value, target, what) if is_tensor(value) else \
                        as_tensor(b, value, what, target)
                    merged.append(b.value(value))
        else:
            merged = [b.value(v) if not isinstance(v, Value) else v
                      for v in self.widened([(block, b.value(v)) for block, v in pairs])]
        offset, indexes = 0, []
        for (block, value), found in zip(pairs, kinds):
            with b.graph.inserting_before(block):
                index = offset
                if isinstance(value, Value) and value in b.branched:
                    index = binary(b, "add", b.branched[value][0], offset) if offset else \
                        b.branched[value][0]
                indexes.append(b.value(index))
            offset += len(found)
        for block, value in zip(node.blocks, merged):
            block.register_output(value)
        out = node.add_output(self.join_types(*merged, what))
        for block, index in zip(node.blocks, indexes):
            block.register_output(index)
        b.branched[out] = (node.add_output(INT), tuple(k for ks in kinds for k in ks))
        return out

    def kinded_extreme(self, op: str, args: list[Item]) -> Value | None:
        """Builtin ``max``/``min`` of numbers of different kinds (``max(0, x)`` of a float x,
        ``max(n, x.max())``): Python's is the argument that wins, of its own kind (an int 0
        where every x is negative), so each step is an if whose result has its kind by the
        branch taken (``merged_kinds``). A later argument wins where it is strictly greater
        (smaller), as Python keeps the first of equal ones (and of a NaN). None where the
        kinds are one (or under PyTorch's rules), or an argument is not a number."""
        b = self.b
        items = list(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) \
            else list(args)
        kinds = [scalar_kinds(b, i) for i in items] if b.branched is not None else [None]
        if len(items) < 2 or any(k is None for k in kinds) or \
                len({kind_key(k) for ks in kinds for k in ks}) == 1:
            return None
        what = f"{op}()'s arguments"
        total = items[0]
        for item in items[1:]:
            pair = (*scalar_kinds(b, total), *scalar_kinds(b, item))
            if len({kind_key(k) for k in pair}) == 1:   # (of one kind: as NumPy's maximum)
                total = binary(b, op, total, item)
                continue
            wins = self.condition_of(binary(b, "gt" if op == "max" else "lt", item, total))
            node = b.create(prim.If, [wins], 0)
            values = []
            for value in (item, total):
                block = node.add_block()
                with b.graph.inserting_before(block):
                    values.append(b.value(value))
            total = self.merged_kinds(node, values, what)
        return total

    def note_merged(self, joined: Value, a: Value, b: Value) -> None:
        """What ``joined`` (an if's output of ``a`` and ``b``, one a branch) is to NumPy where
        both branches agree: a 0-d array either way (a write through it is seen), a NumPy
        scalar of one dtype either way (np.float32: strong beside arrays), or an array of
        several dtypes (``note_mixed``)."""
        self.note_mixed(joined, a, b)
        if a in self.b.zero_d_arrays and b in self.b.zero_d_arrays:
            self.b.zero_d_arrays.add(joined)
        strong = self.b.numpy_scalars.get(a)
        if strong is not None and self.b.numpy_scalars.get(b) == strong:
            self.b.numpy_scalars[joined] = strong

    def note_mixed(self, joined: Value, a: Value, b: Value) -> None:
        """``joined`` (an if's output of the values ``a`` and ``b``) is an array of several
        dtypes (``b.mixed_dtypes``) where they are arrays of different known dtypes (or such
        arrays themselves, from inner ifs)."""
        if is_tensor(a) and is_tensor(b):
            found = [self.b.mixed_dtypes.get(v) or {dtype_of(v)} for v in (a, b)]
            dtypes = found[0] | found[1]
            if len(dtypes) > 1 and not any(d is None for d in dtypes):
                self.b.mixed_dtypes[joined] = dtypes

    def join_types(self, a: Value, b: Value, what: str):
        """The type of a value merged from two definitions (If branches, loop iterations)."""
        if isinstance(a.type, TensorType) and isinstance(b.type, TensorType):
            if a.type == b.type:
                return a.type
            ta, tb = a.type.dimensioned_only(), b.type.dimensioned_only()
            if ta.scalar_type is not None and (ta.scalar_type, ta.rank) == (tb.scalar_type,
                                                                            tb.rank):
                # the same dtype and rank (np.zeros(n) carries no device, x * 2 does):
                # keep what they share, so the loop's value stays typed
                return ta.with_(device=ta.device if ta.device == tb.device else None,
                                requires_grad=None)
            return TENSOR
        if a.type == b.type:
            return a.type
        raise self.b.error(f"{what} have different types: {describe(a)} and {describe(b)}; "
                           f"make them one type (np.asarray(v, dtype) for a number, or "
                           f"np.full(shape, v))")


def _is_dtype(obj: Any) -> bool:
    return isinstance(obj, type) and (issubclass(obj, np.generic) or obj in (bool, int, float))


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "<expression>"


SCALAR_ANNOTATIONS = {int: INT, float: FLOAT, bool: BOOL, np.ndarray: TENSOR}
