"""List comprehensions, small dicts and ``raise`` for ``fusejit.script``.

A list comprehension is the loop that appends to a fresh list (a name no source can spell),
so it is unrolled where a ``for`` loop would be (over a tuple, a Python list or a ``range`` of
constants) and otherwise builds an IR list of arrays::

    [w * x for w in (1.0, 2.0)]          [x * 1.0, x * 2.0]        (scripting-time list)
    [x[i] * 2 for i in range(n)]         $comp = []; for i in range(n): $comp.append(x[i] * 2)

A dict with constant keys lives only while scripting, like a tuple: ``d["a"]``, ``d["b"] = v``,
``len(d)``, ``d.keys()``/``.values()``/``.items()`` (tuples, unrolled by ``for``). It cannot
cross a loop, a branch or ``return``.

``raise E("message")`` (a constant message) is ``prim::RaiseException``: a
``fusejit.JITException`` at run time whose text starts with ``E: message``.
"""

from __future__ import annotations

import ast
from typing import Any

from ..ir.symbols import prim
from .builder import Item

# A comprehension over a constant range longer than this is a loop, not unrolled.
MAX_UNROLL = 64


class DictMethod:
    """``d.items`` (``keys``, ``values``) of a scripting-time dict, before it is called."""

    __slots__ = ("items", "name")

    def __init__(self, items: dict, name: str):
        self.items = items
        self.name = name

    def __call__(self) -> tuple:
        if self.name == "keys":
            return tuple(self.items)
        if self.name == "values":
            return tuple(self.items.values())
        return tuple(self.items.items())


class ContainerStatements:
    """Mixed into the statement emitter (``script.StatementEmitter``)."""

    env: dict[str, Any]
    loop_count: int

    def eval_ListComp(self, node: ast.ListComp) -> Item:
        if any(gen.is_async for gen in node.generators):
            raise self.unsupported(node, "an async comprehension")
        gen = node.generators[0]
        targets = [n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)]
        hidden = {n: self.env[n] for n in targets if n in self.env}
        try:
            iterable = self._unrolled_range(gen.iter)
            sequence = self.eval_value(iterable) if isinstance(iterable, ast.Tuple) or not \
                isinstance(iterable, ast.Call) else None
            if isinstance(sequence, (tuple, list)):
                return self._unrolled_comprehension(node, gen, sequence)
            if len(node.generators) > 1:
                raise self.unsupported(node, "a list comprehension with several for clauses "
                                             "whose first runs over run-time values (write "
                                             "nested for loops that append)")
            return self._comprehension_loop(node, gen, iterable if sequence is None
                                            else ast.Name("$compseq", ast.Load()), sequence)
        finally:
            for n in targets:  # the loop variable is the comprehension's own (Python 3)
                self.env.pop(n, None)
            self.env.update(hidden)

    def eval_map(self, node: ast.Call) -> tuple:
        """``map(f, xs, ...)`` over tuples or lists known while scripting (``a, b =
        map(np.radians, (a, b))``): the tuple of the calls, unrolled."""
        if len(node.args) < 2 or node.keywords or any(isinstance(a, ast.Starred)
                                                      for a in node.args):
            raise self.unsupported(node, "this form of map() (write map(f, xs))")
        func = self.eval(node.args[0])
        sequences = [self.eval_value(a) for a in node.args[1:]]
        self.at(node)
        if not all(isinstance(s, (tuple, list)) for s in sequences):
            raise self.b.error("map() here takes tuples or lists known while scripting; for "
                               "arrays call the function on the array itself")
        return tuple(self.call(func, list(items), {}) for items in zip(*sequences))

    def eval_GeneratorExp(self, node: ast.GeneratorExp) -> Item:
        """``sum(f(x) for x in xs)``: the generator made a list (what sum, max, np.stack and
        tuple() take alike)."""
        return self.eval_ListComp(node)  # type: ignore[arg-type]

    def _unrolled_comprehension(self, node: ast.ListComp, gen: ast.comprehension,
                                sequence: tuple | list) -> list:
        result = []
        for item in sequence:
            if isinstance(gen.target, ast.Name):
                self.env[gen.target.id] = item  # a number stays one: its tests fold
            else:
                self.assign(gen.target, item)
            keep = True
            for test in gen.ifs:
                static = self.b.static(self.eval_value(test))
                if not isinstance(static, (bool, int, float)):
                    raise self.unsupported(test, "a list comprehension over a tuple or list "
                                                 "whose if depends on run-time values (write "
                                                 "a for loop, or np.where)")
                keep = keep and bool(static)
            if keep and len(node.generators) > 1:
                # (several for clauses: the rest of them, for this item, each unrolled too)
                inner = ast.copy_location(ast.ListComp(node.elt, node.generators[1:]), node)
                items = self.eval_ListComp(inner)
                if not isinstance(items, list):
                    raise self.unsupported(node, "a list comprehension with several for "
                                                 "clauses over run-time values (write nested "
                                                 "for loops that append)")
                result.extend(items)
            elif keep:
                result.append(self.eval_value(node.elt))
        return result

    def _comprehension_loop(self, node: ast.ListComp, gen: ast.comprehension,
                            iterable: ast.expr, sequence: Any) -> Item:
        if sequence is not None:
            self.env["$compseq"] = sequence  # (evaluated once, above)
        self.loop_count += 1
        name = f"$comp{self.loop_count}"
        append = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append",
                                                 ast.Load()), [node.elt], []))
        body: list[ast.stmt] = [append]
        for test in reversed(gen.ifs):
            body = [ast.If(test, body, [])]
        loop = ast.For(gen.target, iterable, body, [], None)
        for new in ast.walk(loop):
            if not hasattr(new, "lineno") and isinstance(new, (ast.stmt, ast.expr)):
                ast.copy_location(new, node)
        self.env[name] = []
        self.emit_statement(loop)
        self.env.pop("$compseq", None)
        return self.env.pop(name)

    def _unrolled_range(self, iterable: ast.expr) -> ast.expr:
        """``range(3)`` (constant bounds, ``-1`` too, at most MAX_UNROLL items) as the tuple
        (0, 1, 2)."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
                and iterable.func.id == "range" and not iterable.keywords \
                and 1 <= len(iterable.args) <= 3 \
                and getattr(self.eval(iterable.func), "obj", None) is range \
                and all(type(_literal_int(a)) is int for a in iterable.args):
            values = range(*(_literal_int(a) for a in iterable.args))
            if len(values) <= MAX_UNROLL:
                return ast.copy_location(ast.Tuple([ast.Constant(v) for v in values],
                                                   ast.Load()), iterable)
        return iterable

    def eval_Dict(self, node: ast.Dict) -> dict:
        items = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise self.unsupported(value, "** inside a dict (write the keys out)")
            if not (isinstance(key, ast.Constant) and isinstance(key.value, (str, int))):
                raise self.unsupported(key, "a dict key that is not a constant string or int "
                                            "(use constant keys, or a tuple indexed by int)")
            items[key.value] = self.eval_value(value)
        return items

    def dict_key(self, node: ast.expr) -> Any:
        """A dict key: a constant string or int (a name bound to a constant int too)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
            return node.value
        key = self.b.static(self.eval_value(node))
        if not isinstance(key, int):
            raise self.unsupported(node, "a dict key that is not a constant string or int "
                                         "(use constant keys, or a tuple indexed by int)")
        return key

    def dict_item(self, items: dict, key: Any) -> Item:
        if not isinstance(key, (str, int)) or key not in items:
            raise self.b.error(f"key {key!r} is not in this dict (its keys are constants: "
                               f"{', '.join(map(repr, items))})")
        return items[key]

    def stmt_Assert(self, stmt: ast.Assert) -> None:
        """``assert test, "message"``: ``if not test: raise AssertionError("message")``."""
        text = _message_text(stmt.msg) if stmt.msg is not None else None
        message = [ast.Constant(text)] if text is not None else []
        if stmt.msg is not None and not message:
            raise self.unsupported(stmt.msg, "an assert message that is not a constant string "
                                             "(write a constant string)")
        fail = ast.Raise(ast.Call(ast.Name("AssertionError", ast.Load()), message, []), None)
        check = ast.If(ast.UnaryOp(ast.Not(), stmt.test), [fail], [])
        for new in ast.walk(check):
            if not hasattr(new, "lineno") and isinstance(new, (ast.stmt, ast.expr)):
                ast.copy_location(new, stmt)
        self.emit_statements([check])

    def eval_print(self, node: ast.Call) -> None:
        """``print(...)``: ``prim::Print`` of the values (constant strings as they are)."""
        values = []
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                values.append(self.b.value_const(arg.value))
            elif isinstance(arg, ast.Starred):
                raise self.unsupported(arg, "print(*args): print the values one by one")
            else:
                values.append(self.b.value(self.eval_value(arg)))
        if node.keywords:
            raise self.unsupported(node, "print() with keywords (write print(a, b))")
        self.at(node)
        self.b.create(prim.Print, values, 0)

    def stmt_Raise(self, stmt: ast.Raise) -> None:
        exc = stmt.exc
        if isinstance(exc, ast.Call):
            message = _message_text(exc.args[0]) if len(exc.args) == 1 else None
            if len(exc.args) > 1 or exc.keywords or exc.args and message is None:
                raise self.unsupported(exc, "raise with a message that is not one constant "
                                            "string or f-string (write raise "
                                            "ValueError(\"...\"))")
            message = message or ""
            exc = exc.func
        else:
            message = ""
        kind = self.eval(exc) if exc is not None else None
        kind = getattr(kind, "obj", None)
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise self.unsupported(stmt, "raise of something other than an exception class "
                                         "(write raise ValueError(\"...\"))")
        self.at(stmt)
        text = f"{kind.__name__}: {message}" if message else kind.__name__
        self.b.create(prim.RaiseException, [self.b.value_const(text)], 0)


def _literal_int(node: ast.expr) -> int | None:
    """An int literal, negated or not (``3``, ``-1``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal_int(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _message_text(node: ast.expr) -> str | None:
    """An exception's message: a constant string, or an f-string's text with each value
    written as its source in braces (``f"bad n: {n}"`` -> ``"bad n: {n}"``: strings are not
    run-time values here); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
        elif isinstance(part, ast.FormattedValue):
            parts.append("{" + ast.unparse(part.value) + "}")
        else:
            return None
    return "".join(parts)


def dict_method(items: dict, name: str, error: Any) -> DictMethod:
    if name not in ("keys", "values", "items"):
        raise error(f"a dict here has keys(), values() and items(), not {name}()")
    return DictMethod(items, name)


__all__ = ["ContainerStatements", "DictMethod", "MAX_UNROLL", "dict_method"]
