"""The "What NumPy is supported" table of the README, generated from the frontend's own tables.

::

    python -m fusejit.frontend.support      # prints the Markdown table

Function rows come from the callee tables (``calls.CALLEES``, ``calls.METHODS``,
``calls.ATTRIBUTES``), operator rows from the expression emitter's operator tables and
statement rows from the statement emitter's methods, so the README cannot claim what the
frontend does not have (``tests/frontend/test_support_table.py`` compares the two).
"""

from __future__ import annotations

import ast
import builtins
import math
import types
from typing import Any

import numpy as np

from .. import ops as F
from .calls import ATTRIBUTES, CALLEES, METHODS
from .expressions import _BINOPS, _COMPARE
from .numpy_dtypes import is_numpy_function
from .numpy_shims import SHIMS
from .script import StatementEmitter

_OPERATOR_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
                  ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.BitAnd: "&",
                  ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
                  ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<",
                  ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_STATEMENT_TEXT = {
    "Assign": "`a = ...`, `a, b = ...`, `a[i] = v`, `a[i, j] = v`, `a[s:t] = v`, `a[mask] = v`, "
              "`a[idx] = v` (integer arrays), `a[::-1] = v` (negative steps)",
    "AnnAssign": "`a: T = ...`",
    "AugAssign": "`a += b` (in place, as NumPy: a caller's array is updated; also `-=`, "
                 "`*=`, `/=`, `//=`, `%=`, `**=`, `&=`, `|=`, `^=`, `<<=`, `>>=`), "
                 "`a[i] *= v`, "
                 "`a[mask] += v`, `a[idx] += v` (integer arrays), `a[::-1] += v`",
    "If": "`if`/`elif`/`else` (decided while scripting when the test is known, e.g. "
          "`x is None`, `x.ndim == 2`)",
    "While": "`while` with `break`/`continue`",
    "For": "`for` over `range(...)`, an array's rows, a list, a tuple (unrolled), "
           "`enumerate(...)`, `zip(...)`, `enumerate(zip(...))`; `break`/`continue`; names "
           "first assigned in a loop are read after it (an error if it ran zero times; "
           "also where a `break`/`continue` test or an `if` may skip the assignment: "
           "Python's UnboundLocalError, as a `fusejit.JITException`, where none ran), "
           "and so are names set to `None` before a loop that assigns them in every "
           "iteration (`labels = None; for ...: labels = ...`; an error if it ran zero "
           "times, where Python would go on with `None`); "
           "`return` inside loops (out of every loop, as TorchScript's exit transform)",
    "Expr": "expression statements, `list.append(v)`, `print(...)`",
    "FunctionDef": "`def` and `lambda` inside the function (inlined where called; they read "
                   "the enclosing names)",
    "Pass": "`pass`; `with np.errstate(...)` blocks that ignore or warn (their body: "
            "compiled code has no warnings to silence)",
    "Raise": '`raise ValueError("constant message")` (a `fusejit.JITException` at run time)',
    "Assert": '`assert test, "constant message"`',
}
_ROWS_BY_HAND = [
    ("indexing", "`x[i]`, `x[i, j]`, `x[a:b]`, `x[::k]`, `x[::-1]`, `x[a:b:-k]` (constant "
                 "bounds), negative bounds, "
                 "`x[None]`/`np.newaxis`, `x[...]`, mixed int/slice, in `jit` and `trace`; "
                 "integer arrays (`x[idx]`, `x[rows, cols]`, `x[:, [2, 0]]`: NumPy's advanced "
                 "indexing, in `jit`); "
                 "`x[mask]` (reduced, `.sum()`, `.mean()`, `.max()`, `.min()`, `.any()`, "
                 "`.all()`, `len()`, `axis=0` of a row mask, with the mask broadcast; any "
                 "other use makes NumPy's selection, an array whose length is known when it "
                 "runs)"),
    ("arguments", "arrays of bool, int8/16/32/64, uint8/16/32/64, float32/64; Python "
                  "`int`/`float`/`bool` "
                  "(scalars, specialised per call); NumPy scalars (`np.int64(3)`, "
                  "`np.float32(x)`: strong scalars of their dtype, usable as bounds and "
                  "sizes); `None`; defaults; keyword-only "
                  "parameters; an int/bool used as an axis, a string option "
                  "(`method=\"minmax\"`) and a tuple or list of up to 256 numbers are "
                  "constants of their signature. complex, float16 "
                  "and object arrays are refused naming the argument"),
    ("out=", "`out=` of every NumPy function and array method that takes it "
             "(`np.add(x, y, out=z)`, `np.cumsum(x, out=p[1:])`, `np.dot(A, x, out=y)`, "
             "`np.take(t, i, out=row)`, `x.sum(axis=0, out=s)`; the array written and "
             "returned, with NumPy's casting rule for the function); a ufunc's `where=` "
             "with `out=` (`np.divide(1.0, d, out=inv, where=d > 0)`)"),
    ("dtypes", "NumPy's rules (NEP 50: Python numbers are weak, NumPy scalars strong): "
               "`int / int` is float64, `float32 * 0.5` stays float32, `float32 / "
               "np.sqrt(n)` is float64; `dtype=np.float32`, `float`, `x.dtype` (and its "
               "`itemsize`, `kind`, `name`). "
               "Unsigned arrays wrap as NumPy's (`uint32` "
               "products, logical shifts), their sums and products are uint64 "
               "(`uint8_array.sum()`), a uint64 compares with any Python int exactly "
               "(`uint64_array > -1` is all True), and uint64 numbers beyond int64 "
               "(`np.uint64(0x9E3779B97F4A7C15)`, `x > 2**63`) are 0-d uint64 arrays, as "
               "NumPy 2 promotes them. A number whose type the branch taken or a loop's "
               "iterations decide (`best = 0`, then `best = x` for a larger float32 element; "
               "`max(0, x)`) keeps, and computes in, NumPy's type for what ran (the int 0, "
               "or a `np.float32`); an array made from one (`np.full(3, k)`), or an op whose "
               "array dtype depends on it, is refused"),
    ("scipy.special", "`expit`, `logit`, `logsumexp` (`axis`, `keepdims`), `softmax`, "
                      "`log_softmax`, `xlogy`, `erf`, `erfc`, `gammaln`"),
    ("calls", "plain Python functions and other `@fusejit.jit` functions (inlined); "
              "`fusejit.jit(lambda x: ...)`"),
    ("containers", "tuples; lists (`append` of arrays, numbers, or tuples/lists of them, "
                   "`rows.append((t, p))`; read back by `xs[i]`, `for x in xs`, `zip`, `len`, "
                   "slices `xs[a:b:c]`, `xs + ys`, truth (`while xs:`); "
                   "`np.stack`/`np.concatenate`/`np.vstack`/`np.hstack`/`np.column_stack`/"
                   "`np.array` of them, in NumPy's common dtype; names and helpers share one "
                   "list, as in Python); `slice(a, b, c)` objects as indices; list "
                   "comprehensions, generator expressions (`sum(f(x) for x in xs)`, as lists); "
                   "dicts with constant keys (`d[\"k\"]`, `.items()`), "
                   "while scripting, and returned (`return {\"loss\": l, \"grad\": g}`)"),
    ("globals", "numbers, lists/tuples of numbers, dicts of numbers and arrays, read when a "
                "signature is "
                "scripted (as Numba and JAX freeze them)"),
]


def _display(obj: Any, name: str) -> str:
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc):     # (np.maximum.accumulate)
        return f"np.{owner.__name__}.{obj.__name__}"
    if is_numpy_function(obj):
        return f"np.{obj.__name__}"
    if obj in vars(F).values():
        return f"F.{obj.__name__}"
    if getattr(obj, "__module__", None) == "math" or obj in vars(math).values():
        return f"math.{obj.__name__}"
    if isinstance(obj, (types.BuiltinFunctionType, type)):
        return obj.__name__
    return name


def support_rows() -> list[tuple[str, str]]:
    """(what, the supported names) rows, from the frontend's tables."""
    groups: dict[str, set[str]] = {"NumPy functions": {"`np.mgrid[...]`", "`np.ogrid[...]`"},
                                   "fusejit.ops": set(),
                                   "math": set(), "builtins": {"`map`", "`reversed`"}}
    # (map: unrolled; reversed: expressions.eval_reversed)
    for obj, callee in CALLEES.items():
        name = _display(obj, callee.name)
        group = ("NumPy functions" if name.startswith("np.") else "fusejit.ops"
                 if name.startswith("F.") else "math" if name.startswith("math.")
                 else "builtins" if getattr(builtins, name, None) is obj else None)
        if group is not None:   # (None: a user's own fusejit.python_op, not fusejit's)
            groups[group].add(f"`{name}`")
    for obj in SHIMS:   # (written in scripted NumPy: numpy_shims.py)
        name = _display(obj, obj.__name__)
        groups["math" if name.startswith("math.") else "NumPy functions"].add(f"`{name}`")
    rows = [(group, ", ".join(sorted(names))) for group, names in groups.items()]
    rows.append(("array methods", ", ".join(f"`x.{m}()`" for m in sorted(METHODS))))
    rows.append(("array attributes", ", ".join(f"`x.{a}`" for a in sorted(ATTRIBUTES))))
    operators = [_OPERATOR_TEXT[op] for op in (*_BINOPS, *_COMPARE)]
    # A '|' inside a Markdown table cell must be escaped.
    rows.append(("operators", ", ".join(f"`{o}`".replace("|", "\\|") for o in operators)
                 + ", unary `-`, `~` (boolean and integer arrays, ints), `not`, `and`/`or`, "
                   "`a if c else b`, `is None`"))
    rows.extend(_ROWS_BY_HAND)
    statements = sorted(name[5:] for name in dir(StatementEmitter) if name.startswith("stmt_"))
    rows.append(("statements", "; ".join(_STATEMENT_TEXT.get(s, f"`{s}`")
                                         for s in statements)))
    return rows


def support_table() -> str:
    """The README's Markdown table."""
    lines = ["| what | supported |", "| --- | --- |"]
    lines += [f"| {what} | {names} |" for what, names in support_rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(support_table(), end="")
