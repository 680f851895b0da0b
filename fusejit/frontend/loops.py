"""Loop forms ``fusejit.script`` rewrites into ``range`` loops, and ``break``/``continue``.

Rewrites happen on the AST, with names no Python source can spell (``$break``), so the
statement emitter only ever sees ``for name in range(...)`` and ``while`` loops::

    for x in xs:                    $seq = xs
        body                        for $i in range(len($seq)):
                                        x = $seq[$i]
                                        body

    for i, x in enumerate(xs):      ... i = $i; x = $seq[$i]

    while c:                        $break = False
        a                           while c:            (the loop condition is
        if d:                           $continue = False      not $break and c)
            break                       a
        b                               if d:
                                            $break = True
                                        if not ($break or $continue):
                                            b

A loop over a tuple or a Python list known while scripting is unrolled instead.
"""

from __future__ import annotations

import ast


def exit_kinds(stmts: list[ast.stmt]) -> set[type]:
    """The kinds (``ast.Break``, ``ast.Continue``) of the exits of this loop body (not those
    of nested loops)."""
    found: set[type] = set()
    for stmt in stmts:
        if isinstance(stmt, (ast.Break, ast.Continue)):
            found.add(type(stmt))
        elif isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                               ast.ClassDef, ast.AsyncFor)):
            continue
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    found |= exit_kinds([s for s in inner if isinstance(s, ast.stmt)])
    return found


def name_node(name: str, at: ast.AST, store: bool = False) -> ast.Name:
    return ast.copy_location(ast.Name(name, ast.Store() if store else ast.Load()), at)


def set_flag(name: str, value: bool, at: ast.AST) -> ast.Assign:
    node = ast.Assign([name_node(name, at, store=True)], ast.copy_location(ast.Constant(value), at))
    return ast.copy_location(node, at)


def _stopped(flags: list[str], at: ast.AST) -> ast.expr:
    """``$break or $continue`` (the flags this loop has)."""
    names = [name_node(f, at) for f in flags]
    test = names[0] if len(names) == 1 else ast.copy_location(ast.BoolOp(ast.Or(), names), at)
    return test


def lower_exits(stmts: list[ast.stmt], flags: dict[type, str], unsupported) -> list[ast.stmt]:
    """``stmts`` with ``break``/``continue`` turned into assignments of their flag names
    (``flags[ast.Break]``...), and what follows an exit guarded by ``if not (flags)``."""
    out: list[ast.stmt] = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, (ast.Break, ast.Continue)):
            out.append(set_flag(flags[type(stmt)], True, stmt))
            return out
        if not exit_kinds([stmt]):
            out.append(stmt)
            continue
        if not isinstance(stmt, ast.If):
            raise unsupported(stmt, "break or continue inside this statement")
        branch = ast.If(stmt.test, lower_exits(stmt.body, flags, unsupported),
                        lower_exits(stmt.orelse, flags, unsupported))
        out.append(ast.copy_location(branch, stmt))
        rest = lower_exits(stmts[i + 1:], flags, unsupported)
        if rest:
            at = stmts[i + 1]
            guard = ast.copy_location(ast.UnaryOp(ast.Not(), _stopped(list(flags.values()), at)),
                                      at)
            out.append(ast.copy_location(ast.If(guard, rest, []), at))
        return out
    return out


def over_sequence(stmt: ast.For, sequence: str, counter: str) -> ast.For:
    """``for target in seq`` (or ``enumerate(seq)``) as a loop over ``range(len($seq))``."""
    at = stmt
    element = ast.copy_location(ast.Subscript(name_node(sequence, at), name_node(counter, at),
                                              ast.Load()), at)
    target = stmt.target
    prologue: list[ast.stmt] = []
    if is_enumerate(stmt.iter):
        index_target, target = target.elts  # type: ignore[attr-defined]
        prologue.append(ast.copy_location(ast.Assign([index_target], name_node(counter, at)), at))
    prologue.append(ast.copy_location(ast.Assign([target], element), at))
    length = ast.copy_location(ast.Call(name_node("len", at), [name_node(sequence, at)], []), at)
    bounds = ast.copy_location(ast.Call(name_node("range", at), [length], []), at)
    loop = ast.For(name_node(counter, at, store=True), bounds, [*prologue, *stmt.body], [])
    return ast.copy_location(loop, stmt)


def is_enumerate(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "enumerate" and len(node.args) == 1 and not node.keywords)


def appended_names(stmts: list[ast.stmt]) -> set[str]:
    """Names ``x`` of ``x.append(...)`` calls in ``stmts``."""
    names = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "append" and isinstance(node.func.value, ast.Name)):
                names.add(node.func.value.id)
    return names


def not_flag(name: str, at: ast.AST) -> ast.expr:
    return ast.copy_location(ast.UnaryOp(ast.Not(), name_node(name, at)), at)


__all__ = ["appended_names", "exit_kinds", "is_enumerate", "lower_exits", "name_node",
           "not_flag", "over_sequence", "set_flag"]
