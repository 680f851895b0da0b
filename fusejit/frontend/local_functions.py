"""Functions defined inside a scripted function (``def`` and ``lambda``), inlined where they
are called, as module-level helpers are::

    def loss(x, w):
        sigmoid = lambda z: 1 / (1 + np.exp(-z))      # a LocalFunction in the scope
        def layer(h, m):                              # another
            return np.tanh(h @ m)
        return np.sum(sigmoid(layer(x, w)))           # both bodies emitted here

The body sees the enclosing function's names as they are when it is called (a closure reads
them then too); defaults are evaluated where the function is defined, as Python does.
"""

from __future__ import annotations

import ast
import copy
import inspect
from typing import Any

from .builder import Item


class LocalFunction:
    """A ``def`` or ``lambda`` of the function being scripted: its tree, signature and the
    emitter whose names it reads."""

    __slots__ = ("name", "source", "signature", "scope_of")

    def __init__(self, name: str, source: Any, signature: inspect.Signature, scope_of: Any):
        self.name = name
        self.source = source
        self.signature = signature
        self.scope_of = scope_of

    def scope(self) -> dict:
        return dict(self.scope_of.env)


class LocalFunctions:
    """Mixed into the statement emitter (``script.StatementEmitter``)."""

    env: dict[str, Any]
    src: Any
    b: Any

    def stmt_FunctionDef(self, stmt: ast.FunctionDef) -> None:
        if stmt.decorator_list:
            raise self.unsupported(stmt, "a decorated nested function")
        self.env[stmt.name] = self._local_function(stmt, stmt.name)

    def eval_Lambda(self, node: ast.Lambda) -> Item:
        tree = ast.FunctionDef(name="<lambda>", args=node.args, body=[ast.Return(node.body)],
                               decorator_list=[], returns=None, type_comment=None)
        ast.copy_location(tree, node)
        ast.copy_location(tree.body[0], node.body)
        return self._local_function(tree, "<lambda>")

    def _local_function(self, tree: ast.FunctionDef, name: str) -> LocalFunction:
        args = tree.args
        if args.vararg is not None or args.kwarg is not None:
            self.at(tree)
            raise self.b.error("a nested function with *args or **kwargs is not supported; "
                               "name each parameter instead")
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        params = []
        for i, (arg, default) in enumerate(zip(positional, defaults)):
            kind = (inspect.Parameter.POSITIONAL_ONLY if i < len(args.posonlyargs)
                    else inspect.Parameter.POSITIONAL_OR_KEYWORD)
            params.append(self._parameter(arg, kind, default))
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            params.append(self._parameter(arg, inspect.Parameter.KEYWORD_ONLY, default))
        source = copy.copy(self.src)
        source.tree = tree
        return LocalFunction(name, source, inspect.Signature(params), self)

    def _parameter(self, arg: ast.arg, kind: Any, default: ast.expr | None) -> Any:
        if default is None:
            return inspect.Parameter(arg.arg, kind)
        return inspect.Parameter(arg.arg, kind, default=self.eval_value(default))


__all__ = ["LocalFunction", "LocalFunctions"]
