"""What the frontend calls each Python construct it does not translate, and what to write
instead (``ExpressionEmitter.unsupported`` puts both in the error); and the one ``with``
it does translate (``ErrstateBlocks``)."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

# What the error message calls a construct the frontend does not translate.
CONSTRUCT_NAMES = {
    ast.Dict: "a dict", ast.Set: "a set", ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression", ast.Lambda: "a lambda", ast.Await: "await",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.JoinedStr: "an f-string",
    ast.NamedExpr: "an assignment expression (:=)", ast.Starred: "star-args",
    ast.Slice: "a slice", ast.With: "a with statement", ast.AsyncWith: "async with",
    ast.Try: "a try statement", ast.Raise: "raise", ast.Global: "a global statement",
    ast.Nonlocal: "a nonlocal statement", ast.Break: "break", ast.Continue: "continue",
    ast.Delete: "del", ast.Import: "import", ast.ImportFrom: "import",
    ast.FunctionDef: "a nested function definition", ast.ClassDef: "a class definition",
    ast.AsyncFunctionDef: "an async function", ast.AsyncFor: "async for",
    ast.Assert: "assert",
}
# What to write instead, by construct (appended to the "not supported" error).
INSTEAD = {
    ast.Set: "a tuple", ast.SetComp: "a list comprehension",
    ast.DictComp: "a dict with constant keys, or a list comprehension",
    ast.GeneratorExp: "a list comprehension, or a for loop that accumulates",
    ast.Lambda: "a def at module level (helpers are inlined)",
    ast.Yield: "a list built with append, returned", ast.YieldFrom: "a returned list",
    ast.JoinedStr: "a constant string", ast.NamedExpr: "the assignment on its own line",
    ast.Starred: "the arguments one by one", ast.With: "the with block around the call",
    ast.Try: "an if test before the operation, or try/except around the call",
    ast.Global: "an argument for the value, and a returned result",
    ast.Nonlocal: "an argument for the value, and a returned result",
    ast.Delete: "a new assignment to the name", ast.Import: "the import at module level",
    ast.ImportFrom: "the import at module level",
    ast.FunctionDef: "the helper at module level (helpers are inlined)",
    ast.ClassDef: "the class outside, passing arrays and numbers in",
    ast.Assert: 'if not ...: raise ValueError("...")',
    ast.AsyncFunctionDef: "a plain def", ast.AsyncFor: "a plain for loop",
    ast.Await: "a plain call",
}
if hasattr(ast, "TryStar"):
    CONSTRUCT_NAMES[ast.TryStar] = "a try statement"
if hasattr(ast, "Match"):
    CONSTRUCT_NAMES[ast.Match] = "a match statement"



class ErrstateBlocks(ast.NodeTransformer):
    """``with np.errstate(divide="ignore"): body`` becomes ``body``: a compiled function
    gives no floating-point warnings to silence (its values are NumPy's either way). Blocks
    that ask for errors (``all="raise"``) or bind a name stay ``with`` statements, which
    are refused at their line."""

    _QUIET = frozenset({"ignore", "warn", "print", "log"})

    def __init__(self, *scopes: dict[str, Any]):
        self.scopes = scopes   # (the function's closure and globals)

    def visit_With(self, node: ast.With) -> Any:
        self.generic_visit(node)
        if all(self._quiet(item) for item in node.items):
            return node.body
        return node

    def _quiet(self, item: ast.withitem) -> bool:
        call = item.context_expr
        return (item.optional_vars is None and isinstance(call, ast.Call) and not call.args
                and self._resolve(call.func) is np.errstate
                and all(k.arg is not None and isinstance(k.value, ast.Constant)
                        and k.value.value in self._QUIET for k in call.keywords))

    def _resolve(self, node: ast.expr) -> Any:
        """The module-level object a dotted name (``np.errstate``) is, or None."""
        if isinstance(node, ast.Attribute):
            return getattr(self._resolve(node.value), node.attr, None)
        if isinstance(node, ast.Name):
            for scope in self.scopes:
                if node.id in scope:
                    return scope[node.id]
        return None


__all__ = ["CONSTRUCT_NAMES", "INSTEAD", "ErrstateBlocks"]
