"""Conditions decided while scripting, and the NumPy stand-ins inlined at a call
(``ExpressionEmitter``'s mixin)::

    if y is None: ...             only the taken branch is scripted
    if x.ndim == 1 and k > 0:     the same, for typed arrays (each rank is scripted on its own)
    np.cov(x, rowvar=False)       numpy_shims.cov inlined; its nodes located at this line

A test is decided only when evaluating it emits nothing (a constant, a name, ``x.ndim`` of
an array of known rank), so nothing is emitted twice.
"""

from __future__ import annotations

import ast
import operator
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import ScriptError
from ..ir.graph import Value
from ..ir.types import FloatType, IntType
from .builder import Item, is_tensor
from .numpy_dtypes import dtype_of
from .numpy_shims import OVER_ARRAY, OVER_ITEMS, SHIMS_FILE

_STATIC_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
                   ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


def _dtype_like(value: Any) -> bool:
    """A NumPy dtype, or a scalar type (np.float32) standing for one."""
    return isinstance(value, np.dtype) or isinstance(value, type) and issubclass(value,
                                                                                np.generic)


class StaticConditions:
    """``static_condition`` and ``inline_shim`` (for ``ExpressionEmitter``)."""

    b: Any
    env: dict
    src: Any

    def static_condition(self, node: ast.expr) -> bool | None:
        """The value of a condition known while scripting (``x is None``, a constant), else
        None. Only tests that emit nothing are decided here, so nothing is emitted twice."""
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Is, ast.IsNot)):
            item = self.eval_value(node)
        elif isinstance(node, (ast.Constant, ast.Name)):
            item = self.eval_value(node)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], (ast.Eq, ast.NotEq)) and all(
                isinstance(n, (ast.Constant, ast.Name)) for n in (node.left, *node.comparators)):
            sides = [self.eval_value(n) for n in (node.left, *node.comparators)]
            if not any(isinstance(v, str) for v in sides):  # (numbers: the general path)
                return None
            return (sides[0] == sides[1]) == isinstance(node.ops[0], ast.Eq)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.static_condition(node.operand)
            return None if inner is None else not inner
        elif isinstance(node, ast.BoolOp):   # (x.ndim == 1 and y is None)
            values = [self.static_condition(v) for v in node.values]
            if any(v is None for v in values):
                return None
            return all(values) if isinstance(node.op, ast.And) else any(values)
        elif isinstance(node, ast.Compare) and all(
                self._known_leaf(n) for n in (node.left, *node.comparators)):
            # numbers known while scripting: a constant, a name bound to one, x.ndim
            sides = [self.b.static(self.eval_value(n)) for n in (node.left, *node.comparators)]
            folds = [_STATIC_COMPARE.get(type(op)) for op in node.ops]
            if None in folds:
                return None
            if len(sides) == 2 and all(map(_dtype_like, sides)) and \
                    isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                # (x.dtype == np.float32: the dtypes, as NumPy compares them)
                return folds[0](np.dtype(sides[0]), np.dtype(sides[1]))
            if not all(isinstance(v, (bool, int, float)) for v in sides):
                return None
            return all(fold(a, c) for fold, a, c in zip(folds, sides, sides[1:]))
        else:
            return None
        static = self.b.static(item)
        return bool(static) if isinstance(static, (bool, int, float)) or static is None \
            else None

    def _known_leaf(self, node: ast.expr) -> bool:
        """Is ``node`` a constant, a name, or ``name.ndim`` of an array of known rank (typed
        scripting): evaluating it emits nothing."""
        if isinstance(node, (ast.Constant, ast.Name)):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return isinstance(node.operand, ast.Constant)   # (-1)
        if isinstance(node, ast.Attribute) and node.attr == "ndim" and \
                isinstance(node.value, ast.Name) and self.b.facts is not None:
            item = self.env.get(node.value.id)
            return is_tensor(item) and item.type.rank is not None
        if isinstance(node, ast.Attribute) and node.attr == "dtype" and \
                isinstance(node.value, ast.Name):   # (x.dtype of an array of known dtype)
            item = self.env.get(node.value.id)
            return is_tensor(item) and dtype_of(item) is not None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id not in self.env:   # (np.float32: a module's attribute)
            scope = self.src.closure if node.value.id in self.src.closure else self.src.globals
            return isinstance(scope.get(node.value.id), ModuleType)
        return False

    def inline_shim(self, name: str, shim, args: list[Item], kwargs: dict[str, Item]) -> Item:
        """A NumPy function fusejit writes in NumPy (``numpy_shims``), inlined; what it cannot
        take is refused at the caller's line."""
        call_loc = self.b.loc
        position, keyword = OVER_ITEMS.get(shim, (None, None))
        items = args[position] if position is not None and len(args) > position else \
            kwargs.get(keyword) if keyword is not None else None
        if is_tensor(items) and items.type.rank != 0 and position is not None:
            # (an array of items: its own stand-in where there is one)
            if shim not in OVER_ARRAY:
                raise self.b.error(f"{name}: an array {keyword} is not supported here; pass a "
                                   f"list of numbers")
            shim = OVER_ARRAY[shim]
        elif isinstance(items, (list, tuple)) and items:
            # (an array_like of numbers: the shim on each of its elements, 0-d arrays of the
            # dtype np.asarray gives it (strong, as NumPy's array q), stacked)
            from .lowering import _array, stack
            from .numpy_dtypes import cast, dtype_of
            from .numpy_lowering import array

            numbers = [self.b.static(i) for i in items]
            # (a number known when it runs, a Python float or int argument, is one too: its
            # positions are computed from numbers alone, so the partition can take them with
            # the others' before the first read)
            numbers = [i if v is ... and isinstance(i, Value) and isinstance(
                i.type, (FloatType, IntType)) and i not in self.b.numpy_scalars else v
                for i, v in zip(items, numbers)]
            x = _array(self.b, args[0], name) if args and position != 0 else None
            if x is not None and all(type(v) in (int, float) or isinstance(v, Value)
                                     for v in numbers) and \
                    dtype_of(x) is not None and dtype_of(x).kind in "iuf":
                # (numbers, with the array in float64 as NumPy computes for an array q: the
                # same values, and positions computed from numbers, which one partition of
                # the sorted array can take together: passes/sorted_values.py)
                method = kwargs.get("method", args[5] if len(args) > 5 else "linear")
                if dtype_of(x) != np.float64 and self.b.static(method) not in (
                        "lower", "higher", "nearest"):   # (those keep the array's dtype)
                    x = cast(self.b, x, np.dtype(np.float64), name)
                args = [x, *args[1:]]
                whole = None
            else:
                whole = array(self.b, items)
            results = []
            for i in range(len(items)):
                self.b.loc = call_loc
                item = numbers[i] if whole is None else \
                    self.b.emit("aten::select", [whole, 0, i], name)
                if position is not None and len(args) > position:
                    one = self.inline_shim(name, shim, [*args[:position], item,
                                                        *args[position + 1:]], kwargs)
                else:
                    one = self.inline_shim(name, shim, args, {**kwargs, keyword: item})
                results.append(one)
            self.b.loc = call_loc
            return stack(self.b, results, 0)
        try:
            result = self.inline_call(shim, args, kwargs)
            # what it emitted is located at the call (a run-time error, an autodiff refusal
            # name the caller's line, not the stand-in's)
            here = call_loc.source_range() if call_loc is not None else None
            for made in self.b.graph.all_nodes():
                if made.source_range is not None and made.source_range.file == SHIMS_FILE:
                    made.source_range = here
            return result
        except ScriptError as error:
            self.b.loc = call_loc
            reason = str(error).split("\n", 1)[0]
            where = getattr(error, "location", None)
            if where is not None:
                reason = reason.removeprefix(f"{where}: ")
            raise self.b.error(f"{name}: {reason} (these arguments are not supported)") \
                from None
