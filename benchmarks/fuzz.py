"""Differential fuzzer: random NumPy programs run by NumPy and by ``fusejit.jit``, every call
compared.

    python benchmarks/fuzz.py [--minutes 20] [--workers 2] [--seed N] [--tiering on|off|mixed]
                              [--timeout 90] [--out DIR]
    python benchmarks/fuzz.py --one SEED [--tiering off]   # replay one case in-process
    python benchmarks/fuzz.py --show SEED                  # print a case's program
    python benchmarks/fuzz.py --mode structure ...         # helpers, loops, lists (SGen)

One function ``f(a, b, [c,] s)`` per case: 3-10 random statements over arrays ``a``, ``b``
(one full shape) and an optional third operand ``c`` that is either full-shaped or a broadcast
operand ((k,) or (n, 1) against an (n, k) array), plus a Python scalar ``s``. Statements are
drawn from: pointwise expressions (mixed dtypes, np.where / np.clip / np.maximum / np.minimum
with mixed dtypes, // and % by negative numbers and by zero, np.float32 / np.float64 scalars),
reductions along axis 0 / 1 with keepdims feeding broadcasts, in-place updates (augmented
assignment, slices, masks, out=, views written in place: ``v = x[:, 1]; v *= 2``,
``x[..., 0] += 1``, ``x.reshape(-1)[::3] = 0``), ``for`` and counted ``while`` loops, and
``if``/``else`` on scalars computed from reductions, with variables that take different dtypes
in the two branches or across loop iterations; and (``Gen.extra``) scans, sorts and argsorts
with an axis, argmax / argmin, integer-array and boolean-mask indexing (reads, writes,
np.take, np.add.at), int8 / int16 / uint8 overflow, bit operations, float16 made by astype,
logical_and / or / xor, any / all / std / var / mean with axis, ddof or dtype, rounding,
np.arange / linspace / full / zeros_like, transposes, concatenate / stack, and reshaped views
written in place. Shapes: small (<= 4096 elements, run
whole-graph compiled) and big (> 4096, fused kernels), including 2-D arrays with a short last
dimension ((5000, 3), (2000, 8), (700, 1)).

A case is rejection-sampled until NumPy runs it. Then ``fusejit.jit(f)`` is called 3 times on
fresh copies of the inputs (call 1: the interpreter, calls 2-3: the compiled forms). Every
call's results must match NumPy's exactly in dtype and shape, integers and bools exactly,
floats to a small relative tolerance (NaN / inf positions exactly), and the arguments after
the call must match the arguments NumPy left (in-place effects). Values that differ are
compared with the program run one float width up (``stranger_sets.rounding``: float32
arguments as float64, float64 as long double): where fusejit's are no farther from it than
twice NumPy's, the case is *rounding* (a float32 sum added up in another order), counted apart
from the failures. An exception is a *refusal*
when it is a ``fusejit.ScriptError`` / ``SchemaError`` or names a documented divergence; any
other exception, a wrong result, a dead worker or a case over ``--timeout`` is a *failure*.

Cases run in ``--workers`` worker processes (``--tiering mixed``: half of them with
``FUSEJIT_TIERING=0``); each failure is printed as it comes, then a table of passed /
rounding / refused / failed / invalid cases by shape kind, the commonest refusals and the next
seed to start from.
The generated programs (``progs/``) and a JSON line per case (``log.jsonl``) are written under
``--out`` (default: ``fusejit-fuzz`` in the system's temporary directory).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

# fusejit is imported inside the functions that use it: the environment (FUSEJIT_TIERING)
# must be set before it is imported.

SHAPES = [  # (kind, shape, weight)
    ("small1d", (37,), 12), ("small2d", (12, 11), 8), ("big1d", (5000,), 10),
    ("big2d", (80, 70), 6), ("small_n3", (50, 3), 8), ("small_n8", (12, 8), 6),
    ("small_n1", (9, 1), 5), ("big_n3", (5000, 3), 10), ("big_n8", (2000, 8), 8),
    ("big_n1", (700, 1), 2), ("big_n1x", (5000, 1), 5), ("zerod", (), 2), ("one", (1,), 2),
    ("empty2d", (0, 3), 1),
]
DTYPES = [("float64", 30), ("float32", 25), ("int64", 18), ("int32", 12), ("uint8", 6),
          ("bool", 4), ("int8", 3), ("int16", 3)]  # float16 arguments are refused: made by astype
# documented divergences with clear messages: int // 0, a loop that re-types its variables,
# sum() of a list and np.array of a list (of ints, or of arrays) that are empty when they run
REFUSAL_WORDS = ("by zero", "ran zero times", "empty when it runs", "array of an empty list")
# scalars of expressions: casts, scales that overflow float32 or underflow, mixed-type addends
CASTS = ["float32", "float64", "int32", "int64", "uint8", "bool_"]
BIG_SMALL = ["np.float32(2.5)", "np.float64(2.5)", "np.float32(1e-3)", "np.float64(1e300)"]
ADDENDS = ["np.float32(0.1)", "np.float64(0.1)", "0.1", "np.int64(3)", "np.int32(-3)"]
DEFAULT_OUT = os.path.join(tempfile.gettempdir(), "fusejit-fuzz")
MODE = os.environ.get("FUSEJIT_FUZZ_MODE", "ops")  # ops | structure (--mode)


def wchoice(r: random.Random, items: list):
    """A weighted choice from ``(value..., weight)`` tuples: the value, or the values' tuple."""
    tot = sum(it[-1] for it in items)
    x = r.uniform(0, tot)
    for it in items:
        x -= it[-1]
        if x <= 0:
            return it[:-1] if len(it) > 2 else it[0]
    return items[-1][:-1] if len(items[-1]) > 2 else items[-1][0]


class Gen:
    """Random statements over the arrays of one shape; tracks the variables defined so far."""

    def __init__(self, r: random.Random, shape: tuple, cshape: str | None):
        self.r, self.shape, self.nd = r, shape, len(shape)
        self.full = ["a", "b"] + (["c"] if cshape == "full" else [])
        self.bcast = ["c"] if cshape in ("row", "col") else []  # broadcasts against full shape
        self.other = []  # other shapes: returnable only
        self.scalars = ["s"]  # Python / NumPy scalars
        self.n = 0
        self.depth = 0

    def new(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def A(self) -> str:
        return self.r.choice(self.full)

    def AB(self) -> str:
        """A full operand or a broadcast one."""
        return self.r.choice(self.full + self.bcast * 2)

    def scal(self) -> str:
        return self.r.choice(["2", "-3", "0.5", "-0.25", "3.0", "True", "np.float32(2.5)",
                              "np.float64(0.1)", "np.float32(-1.5)", "np.int32(3)",
                              "np.int64(-2)", "np.uint8(7)"] + self.scalars * 2)

    def divisor(self) -> str:
        return self.r.choice(["3", "-3", "-7", "0", "-1", "np.int32(-4)", "np.int64(0)",
                              "np.int32(5)", "2"])

    def axis(self) -> str:
        return self.r.choice(["0", "-1"] + (["1"] if self.nd == 2 else []))

    def red(self, A: str) -> str:
        """A reduction with keepdims (broadcasts back against the full shape)."""
        op = self.r.choice(["sum", "mean", "max", "min", "prod"])
        if op == "prod":
            return f"np.abs({A} * 0.1).prod(axis={self.axis()}, keepdims=True)"
        return f"{A}.{op}(axis={self.axis()}, keepdims=True)"

    def cond(self) -> str:
        A = self.A()
        return self.r.choice([f"{A}.sum() > 0", f"{A}.max() > 2", f"{A}.mean() < {self.scal()}",
                              "s > 0", f"np.any({A} < 0)", f"np.all({A} >= -1)",
                              f"{A}.min() == 0", f"{A}.sum() > {self.A()}.sum()",
                              f"float({A}.mean()) > 0.1"])

    def expr(self) -> str:
        r = self.r
        A, B = self.A(), self.AB()
        s = self.scal()
        k = r.randrange(30)
        forms = [
            lambda: f"{A} {r.choice('+-*')} {B}",
            lambda: f"{A} {r.choice(['+', '-', '*', '/'])} {s}",
            lambda: f"{A} // {self.divisor()}",
            lambda: f"{A} % {self.divisor()}",
            lambda: f"{A} {r.choice(['//', '%'])} {B}",
            lambda: f"({A} > {B}) * {s}",
            lambda: f"np.where({A} > {B}, {A}, {r.choice([B, s, '0.5', '0'])})",
            lambda: (f"np.where({A} > 0, {r.choice(['1', s, 'np.float32(0.5)'])}, "
                     f"{r.choice([B, '-1', '2.5'])})"),
            lambda: (f"np.clip({A}, {r.choice(['-1', '0.5', 's', 'np.float32(-1.5)', '0'])}, "
                     f"{r.choice(['2', '2.5', 'np.int32(3)', '250'])})"),
            lambda: f"np.{r.choice(['maximum', 'minimum'])}({A}, {r.choice([s, B, '-1', '0.5'])})",
            lambda: f"np.abs({A}) {r.choice('+-')} {B}",
            lambda: f"np.sqrt(np.abs({A}))",
            lambda: f"np.exp({A} * 0.1)",
            lambda: f"np.tanh({A}) * {s}",
            lambda: f"np.floor({A} * 0.7)",
            lambda: f"{A}.astype(np.{r.choice(CASTS)})",
            lambda: f"{A} - {self.red(A)}",
            lambda: f"{self.red(A)} * {B}",
            lambda: f"{A} / ({self.red('np.abs(' + A + ')')} + 1)",
            lambda: f"{A} - {A}.{r.choice(['min', 'max', 'sum', 'mean'])}()",
            lambda: f"{A} * {r.choice(BIG_SMALL)}",
            lambda: f"{A} + {r.choice(ADDENDS)}",
            lambda: f"{A} * {B} {r.choice('+-')} {s}",
            lambda: f"np.where({self.red(A)} > 0, {A}, {B})",
            lambda: f"{A}.astype(np.int32) {r.choice(['//', '%'])} {B}.astype(np.int32)",
            lambda: f"{A} + {r.choice(self.scalars)}",
            lambda: f"({A} {r.choice(['//', '%'])} {r.choice(['-3', '0'])}).astype(np.float32)",
            lambda: (f"{A} + {B}.{r.choice(['sum', 'max', 'mean'])}"
                     f"(axis={self.axis()}, keepdims=True)"),
            lambda: f"np.maximum({A}, {B}.astype(np.float32))",
            lambda: f"{A} * {s} + {B}",
        ]
        return forms[k]()

    def view_write(self) -> list[str]:
        """Statements that write into an array through a view of it."""
        r, A, s = self.r, self.A(), self.scal()
        v = self.new()
        op = r.choice(["+=", "-=", "*="])
        if self.nd == 2:
            col = r.choice(["0", "1", "-1", str(self.shape[1] - 1)])
            return r.choice([
                [f"{v} = {A}[:, {col}]", f"{v} {op} {s}"],
                [f"{A}[..., 0] {op} {s}"],
                [f"{A}.reshape(-1)[::3] = {r.choice(['0', s])}"],
                [f"{v} = {A}.reshape(-1)", f"{v}[1::2] {op} {s}"],
                [f"{A}[:, -1] = {A}[:, 0]"],
                [f"{v} = {A}.T", f"{v}[0] {op} {s}"],
                [f"{A}[1:, :] {op} {A}[:-1, :]"],
                [f"{A}[:, 0] = {A}.sum(axis=1)"],
                [f"{v} = {A}[::2]", f"{v} *= {s}"],
            ])
        return r.choice([
            [f"{v} = {A}[1:]", f"{v} {op} {s}"],
            [f"{A}[..., 0] {op} {s}"] if self.nd else [f"{A}[...] {op} {s}"],
            [f"{A}.reshape(-1)[::3] = {r.choice(['0', s])}"],
            [f"{v} = {A}[::2]", f"{v} *= {s}"],
            [f"{A}[1:] {op} {A}[:-1]"],
        ])

    def inplace(self) -> list[str]:
        r = self.r
        A, B, s = self.A(), self.AB(), self.scal()
        k = r.randrange(14)
        if k < 4:
            return self.view_write()
        forms = [
            lambda: f"{A} {r.choice(['+=', '-=', '*='])} {B}",
            lambda: f"{A} {r.choice(['+=', '-=', '*=', '/='])} {s}",
            lambda: f"{A} {r.choice(['//=', '%='])} {self.divisor()}",
            lambda: f"{A}[{B} > 0] = {s}",
            lambda: f"np.{r.choice(['maximum', 'minimum', 'add'])}({A}, {B}, out={A})",
            lambda: f"np.copyto({A}, {self.expr()})",
            lambda: f"{A} -= {self.red(A)}",
            lambda: f"{A}[...] = np.clip({A}, -2, 2)",
            lambda: f"{A} *= {r.choice(['np.float32(2.5)', 'np.float64(0.5)', 'np.int32(-2)'])}",
            lambda: f"{A} += {A}",
        ]
        return [forms[k - 4]()]

    def assign(self) -> list[str]:
        """A new variable: a full-shaped array, a scalar, or an array of another shape."""
        r = self.r
        k = r.randrange(10)
        t = self.new()
        if k < 6:
            self.full.append(t)
            return [f"{t} = {self.expr()}"]
        if k == 6:
            self.full.append(t)
            return [f"{t} = {self.A()}.copy()"]
        if k == 7:  # a scalar from a reduction, used later
            self.scalars.append(t)
            value = r.choice([f"{self.A()}.sum()", f"{self.A()}.max()",
                              f"float({self.A()}.mean())", f"int({self.A()}.min())",
                              f"{self.A()}.mean()"])
            return [f"{t} = {value}"]
        self.other.append(t)
        A = self.A()
        value = r.choice([f"{A}.sum(axis={self.axis()})",
                          f"{A}.max(axis={self.axis()}, keepdims=True)",
                          f"np.argmax({A}, axis=0)", f"{A}.mean(axis=0)", f"{A}[::-1]",
                          f"{A}.min()"])
        return [f"{t} = {value}"]

    def branches(self) -> list[str]:
        """if/else on a scalar condition; the branches may give a variable different dtypes."""
        r = self.r
        t = self.new()
        A = self.A()
        pairs = [(f"{A} * 0.5", f"{A}.astype(np.int32)"), (f"{A}.astype(np.float32)", f"{A} + 1"),
                 (self.expr(), self.expr()), ("0", "1.5"), (f"{A}.sum()", "0"),
                 (f"{A} > 0", f"{A} * 2"), (f"{A} // -2", f"{A} / 2"),
                 ("np.float32(2.5)", "np.float64(2.5)")]
        x, y = r.choice(pairs)
        lines = [f"if {self.cond()}:", f"    {t} = {x}"]
        if r.random() < .3:
            lines += ["    " + line for line in self.inplace()]
        lines += ["else:", f"    {t} = {y}"]
        if r.random() < .3:
            lines += ["    " + line for line in self.inplace()]
        scalar_like = x in ("0", "1.5", "np.float32(2.5)") or x.endswith(".sum()")
        (self.scalars if scalar_like else self.other).append(t)
        if not scalar_like and r.random() < .5:
            lines.append(f"{self.A()} += {t}")
        return lines

    def extra(self) -> list[str]:
        """Wider NumPy: scans, sorts, fancy and mask indexing, small-int overflow, bit ops,
        float16, logical ops, axis any/all, std/var with ddof, rounding, constructors,
        transposes, concatenate/stack, reshaped views written in place."""
        r = self.r
        A, B, s, ax = self.A(), self.AB(), self.scal(), self.axis()
        t = self.new()
        key = self.A() + ("[:, 0]" if self.nd == 2 else "")  # one value a row
        order = f"np.argsort({key}, kind='stable')"
        full = [
            lambda: f"np.cumsum({A}, axis={ax})",
            lambda: f"np.cumprod({A} * 0.5, axis={ax})",
            lambda: f"{A}.cumsum(axis={ax}) {r.choice('+-*')} {B}",
            lambda: (f"np.cumsum({r.choice([A + ' > 0', A + '.astype(np.int8)'])}, "
                     f"axis={ax})"),
            lambda: f"np.sort({A}, axis={ax})",
            lambda: f"np.argsort({A}, axis={ax}, kind='stable')",
            lambda: f"{A}[{order}]",
            lambda: f"np.take({A}, {order}, axis=0)",
            lambda: f"{A}[np.abs({key}.astype(np.int64)) % {A}.shape[0]]",
            lambda: f"{A}.astype(np.int8) * np.int8({r.choice(['100', '16', '-128', '127'])})",
            lambda: f"{A}.astype(np.int16) * {r.choice(['3000', 'np.int16(-3000)', '2'])}",
            lambda: (f"{A}.astype(np.uint8) {r.choice('+-*')} "
                     f"{r.choice(['200', 'np.uint8(200)', '1', B])}"),
            lambda: f"np.abs({A}.astype(np.int8) * np.int8(16))",
            lambda: f"-({A}.astype(np.uint8))",
            lambda: f"{A}.astype(np.int32) {r.choice(['&', '|', '^'])} {B}.astype(np.int32)",
            lambda: (f"{A}.astype(np.int64) {r.choice(['<<', '>>'])} "
                     f"{r.choice(['1', '3', 'np.int32(2)', '63'])}"),
            lambda: f"~{A}.astype({r.choice(['np.int64', 'np.uint8', 'np.int8', 'bool'])})",
            lambda: f"({A} > 0) {r.choice(['&', '|', '^'])} ({B} < {s})",
            lambda: f"~({A} > {B})",
            lambda: f"{A} {r.choice(['&', '|', '^'])} {B}",
            lambda: (f"{A}.astype(np.float16) {r.choice('+-*/')} "
                     f"{r.choice([B, s, '1.5', 'np.float16(0.1)'])}"),
            lambda: f"np.exp({A}.astype(np.float16))",
            lambda: (f"np.{r.choice(['logical_and', 'logical_or', 'logical_xor'])}"
                     f"({A} > 0, {B} < {s})"),
            lambda: f"np.logical_not({A})",
            lambda: f"np.{r.choice(['any', 'all'])}({A} > 0, axis={ax}, keepdims=True) * {B}",
            lambda: (f"{A} - np.{r.choice(['std', 'var'])}({A}, axis={ax}, "
                     f"ddof={r.choice(['0', '1'])}, keepdims=True)"),
            lambda: (f"{A} - np.mean({A}, axis={ax}, "
                     f"dtype=np.{r.choice(['float32', 'float64'])}, keepdims=True)"),
            lambda: f"np.round({A} * 1.7{r.choice(['', ', 1', ', 2'])})",
            lambda: f"np.round({A} * 2.5)",
            lambda: f"np.round({A}.astype(np.int64) * 37, -1)",
            lambda: (f"np.{r.choice(['floor', 'ceil', 'trunc', 'rint', 'sign'])}"
                     f"({r.choice([A, A + ' * 1.5', A + ' - 0.5'])})"),
            lambda: f"{A} * np.arange({A}.shape[-1])" if self.nd else f"{A} + 1",
            lambda: f"{A} + np.linspace(0, 1, {A}.shape[-1])" if self.nd else f"{A} + 1",
            lambda: f"np.{r.choice(['zeros_like', 'ones_like'])}({A}) + {B}",
            lambda: f"np.full_like({A}, {r.choice(['2.5', '-1', 's', 'np.float32(0.5)'])})",
            lambda: f"np.full({A}.shape, {r.choice(['2.5', '-1', 's', 'np.int8(3)'])})",
            lambda: (f"np.zeros({A}.shape, dtype=np.{r.choice(['int32', 'float32', 'bool_'])})"
                     f" + {B}"),
            lambda: f"({A}.T {r.choice('+-*')} {B}.T).T",
            lambda: f"np.transpose(np.transpose({A}) * {s})",
            lambda: f"np.concatenate([{A}[:1], {B}[1:]], axis=0)",
            lambda: f"np.stack([{A}, {B}]).{r.choice(['sum', 'max', 'mean'])}(axis=0)",
            lambda: f"np.{r.choice(['sqrt', 'log', 'log1p', 'arcsin'])}({A})",
            lambda: f"{A} ** {r.choice(['2', '3', '0.5', '-1', 'np.int32(2)', '2.0'])}",
            lambda: f"np.{r.choice(['isnan', 'isfinite', 'signbit'])}({A})",
            lambda: f"np.nan_to_num(np.log({A}))",
            lambda: f"np.diff({A}, axis={ax}, prepend=0)",
            lambda: f"np.where({A} > 0)[0].sum() + {A}" if self.nd == 1 else f"{A} + 1",
        ]
        other = [
            lambda: f"np.{r.choice(['argmax', 'argmin'])}({A}, axis={ax})",
            lambda: f"np.{r.choice(['argmax', 'argmin'])}({A})",
            lambda: f"{A}[{B} > 0]",
            lambda: f"{A}[{A} > {s}] * 2",
            lambda: f"np.{r.choice(['any', 'all'])}({A} > 0, axis={ax})",
            lambda: f"np.{r.choice(['std', 'var'])}({A}, axis={ax}, ddof={r.choice(['0', '1'])})",
            lambda: f"np.mean({A}, axis={ax}, dtype=np.float32)",
            lambda: f"{A}.sum(axis={ax}, dtype=np.{r.choice(['int8', 'float32', 'int64'])})",
            lambda: f"np.count_nonzero({A} > 0, axis={ax})",
            lambda: f"{A}.T * {s}",
            lambda: f"{A}.T.copy()",
            lambda: f"np.concatenate([{A}, {B}], axis={ax})",
            lambda: f"np.stack([{A}, {B}], axis=-1)",
            lambda: f"np.arange({r.choice(['5', f'len({A})', '0.5, 3.0, 0.25', '10, 0, -3'])})",
            lambda: f"np.linspace(-1, 1, {r.choice(['7', '1', '0'])})",
            lambda: f"np.diff({A}, axis={ax})",
            lambda: f"{A} @ {B}.T" if self.nd == 2 else f"{A} @ {B}",
            lambda: f"{A}.reshape(-1)[[0, 2, 1, 2]]",
            lambda: f"np.sort({A}.ravel())[::-1]",
        ]
        scal = [
            lambda: f"{A}.var(ddof=1)",
            lambda: f"np.std({A})",
            lambda: f"int(np.argmax({A}))",
            lambda: f"{A}[{B} > 0].sum()",
            lambda: f"np.count_nonzero({A})",
            lambda: f"bool(np.all({A} > -5))",
            lambda: f"{A}.astype(np.int8).sum()",
            lambda: "np.abs(np.int8(-128))",
            lambda: f"round(float({A}.mean()), 2)",
        ]
        inplace = [
            lambda: [f"{A}[{order}[:3]] = {s}"],
            lambda: [f"{A}[[0, 2, 0]] {r.choice(['+=', '-=', '*='])} {s}"],
            lambda: [f"np.add.at({A}, [0, 0, 1], {r.choice(['1', s])})"],
            lambda: [f"{A}.reshape(-1)[np.argsort({key}.reshape(-1), kind='stable')[:5]] = {s}"],
            lambda: [f"{t} = {A}.reshape({A}.shape[::-1])",
                     f"{t}[0] {r.choice(['+=', '*=', '-='])} {s}"],
            lambda: [f"{t} = {A}.ravel()", f"{t}[:5] = {s}"],
            lambda: [f"{A}.reshape(-1, 1)[::2, 0] *= {s}"],
            lambda: [f"{t} = {A}.T", f"{t} {r.choice(['+=', '*=', '-='])} {s}"],
            lambda: [f"{A}.T[...] = {B}.T"],
            lambda: [f"np.cumsum({A}, axis={ax}, out={A})"],
            lambda: [f"{A}[{A} > {s}] *= 2"],
            lambda: [f"{A}[:] = np.sort({A}, axis={ax})"],
            lambda: [f"{A} <<= 1"], lambda: [f"{A} &= {B}"], lambda: [f"{A} ^= True"],
            lambda: [f"np.round({A}, 1, out={A})"],
            lambda: [f"np.negative({A}, out={A})"],
            lambda: [f"{A}[...] = np.where({A} > {B}, {A}, {B})"],
        ]
        c = r.random()
        if c < .45:
            self.full.append(t)
            return [f"{t} = {r.choice(full)()}"]
        if c < .65:
            self.other.append(t)
            return [f"{t} = {r.choice(other)()}"]
        if c < .75:
            self.scalars.append(t)
            return [f"{t} = {r.choice(scal)()}"]
        return r.choice(inplace)()

    def body(self, n: int) -> list[str]:
        """n statements of a loop body (if/else only one level deep)."""
        out = []
        for _ in range(n):
            c = self.r.random()
            if c < .45:
                out += self.inplace()
            elif c < .7:
                A = self.A()
                out.append(f"{A} = {self.expr()}")
            elif c < .78:
                out += self.extra()
            elif c < .88 and self.depth < 1:
                out += self.branches()
            else:
                A, B = self.A(), self.A()
                out += [f"{A}, {B} = {B}, {A} + {B}"]
        return out

    def loop(self) -> list[str]:
        """A ``for`` or counted ``while`` loop, maybe with an accumulator that changes type."""
        r = self.r
        self.depth += 1
        acc = self.new() if r.random() < .5 else None
        out = [f"{acc} = {r.choice(['0', '0.0', 's', 'np.float32(0)', 'False'])}"] if acc else []
        k = r.randint(1, 4)
        kind = r.randrange(3)
        if kind == 0:
            out.append(f"for i in range({k}):")
        else:
            cond = f" and {self.cond()}" if kind == 2 else ""
            out += ["i = 0", f"while i < {k}{cond}:"]
        body = self.body(r.randint(1, 3))
        if acc:
            body.append(r.choice([f"{acc} = {acc} + {self.A()}", f"{acc} += {self.A()}.sum()",
                                  f"{acc} = {acc} + i", f"{acc} = {acc} * 0.5 + {self.A()}.max()",
                                  f"{acc} = {self.A()} * i"]))
        if kind:
            body.append("i += 1")
        out += ["    " + line for line in body]
        self.depth -= 1
        if acc:
            self.other.append(acc)
            if r.random() < .4:
                out.append(f"{self.A()} += {acc}")
        return out

    def program(self) -> tuple[list[str], list[str]]:
        """The function's statements and the names it returns."""
        lines = []
        for _ in range(self.r.randint(3, 9)):
            c = self.r.random()
            if c < .22:
                lines += self.assign()
            elif c < .5:
                lines += self.extra()
            elif c < .65:
                lines += self.inplace()
            elif c < .8:
                lines += self.branches()
            else:
                lines += self.loop()
        pool = self.full + self.other + self.scalars[1:]
        rets = self.r.sample(pool, min(len(pool), self.r.randint(1, 3)))
        return lines, rets


class SGen(Gen):
    """``--mode structure``: program structure a NumPy user writes: module-level helpers
    (keyword arguments, defaults, tuples returned, helpers that write their arguments),
    local ``def`` / lambda helpers, lists built by append then np.stack / sum, row loops
    (``for row in x``, enumerate, zip), ``while`` with break / continue, nested loops, early
    returns, ``if`` on ``ndim`` / ``shape`` / ``size``, dicts of arrays, ternaries, slices
    updated in loops, accumulators that start as Python numbers, builtins (max / min / abs /
    len / sum / float / int / round) and asserts."""

    def __init__(self, r: random.Random, shape: tuple, cshape: str | None):
        super().__init__(r, shape, cshape)
        self.helpers: list[str] = []
        self.early = False

    def helper(self) -> str:
        """A module-level helper; its name."""
        r = self.r
        h = f"h{len(self.helpers) + 1}"
        k = r.randrange(8)
        s = self.r.choice(["2", "0.5", "np.float32(1.5)", "-1", "3.0"])
        if k == 0:
            src = [f"def {h}(x, y, k={s}):", "    return x * k + y, x - y"]
        elif k == 1:
            src = [f"def {h}(x, k={s}):", "    if x.sum() > 0:", "        return x * k",
                   "    return x - k"]
        elif k == 2:
            src = [f"def {h}(x, n=3):", "    acc = 0", "    for i in range(n):",
                   "        acc = acc + x * i", "    return acc"]
        elif k == 3:
            src = [f"def {h}(x, k={s}):", f"    x {r.choice(['+=', '*=', '-='])} k",
                   "    return x"]
        elif k == 4:
            src = [f"def {h}(x):", "    y = x.copy()", "    y[y < 0] = 0", "    return y",
                   ]
        elif k == 5:
            src = [f"def {h}(x, y=None):", "    if y is None:", "        y = x",
                   "    return np.maximum(x, y), float(x.sum())"]
        elif k == 6:
            src = [f"def {h}(*xs):", "    t = 0", "    for x in xs:", "        t = t + x",
                   "    return t"]
        else:
            prev = f"h{len(self.helpers)}" if self.helpers else None
            if prev:
                src = [f"def {h}(x, y):", f"    return {prev}(x + 0, y)"]
            else:
                src = [f"def {h}(x, y):", "    return (x + y) * 0.5"]
        self.helpers.append("\n".join(src))
        return h

    def call(self) -> list[str]:
        """A helper call's statements."""
        r, A, B, s = self.r, self.A(), self.A(), self.scal()
        h = self.helper()
        src = self.helpers[-1]
        t, u = self.new(), self.new()
        if src.startswith(f"def {h}(x, y, k"):
            self.full += [t, u]
            return r.choice([[f"{t}, {u} = {h}({A}, {B}, k={s})"],
                             [f"{t}, {u} = {h}({A}, y={B})"],
                             [f"{t} = {h}({A}, {B})[0]", f"{u} = {t}"]])
        if "*xs" in src:
            self.full.append(t)
            return [f"{t} = {h}({A}, {B}, {r.choice([A, B, s])})"]
        if "y=None" in src:
            self.full.append(t)
            self.scalars.append(u)
            return [f"{t}, {u} = {h}({A}{r.choice(['', ', ' + B, ', y=' + B])})"]
        if src.startswith(f"def {h}(x, y)"):
            self.full.append(t)
            return [f"{t} = {h}({A}, {B})"]
        if "n=3" in src:
            self.full.append(t)
            return [f"{t} = {h}({A}{r.choice(['', ', 2', ', n=1', ', n=0'])})"]
        self.full.append(t)
        kw = r.choice(["", f", {s}", f", k={s}"]) if "k=" in src else ""
        return [f"{t} = {h}({A}{kw})"]

    def rows(self) -> list[str]:
        """Loops over an array's rows."""
        r, A, B, s = self.r, self.A(), self.A(), self.scal()
        t = self.new()
        it = A if self.nd == 2 else f"{A}[:{r.randint(0, 6)}]"
        forms = [
            [f"{t} = 0", f"for row in {it}:", f"    {t} = {t} + row"],
            [f"{t} = 0.0", f"for row in {it}:",
             f"    {t} += {r.choice(['row.sum()', 'float(row.max())', 'abs(row.min())'])}"],
            [f"for i, row in enumerate({it}):", f"    {B}[i] = row * {r.choice(['i', s, '0.5'])}"],
            [f"for i, row in enumerate({it}):", "    if i % 2 == 0:", "        continue",
             f"    {B}[i] {r.choice(['+=', '-=', '*='])} row"],
            [f"{t} = []", f"for x, y in zip({it}, {B}):",
             f"    {t}.append(x * y {r.choice('+-')} {s})",
             f"{t} = np.stack({t}) if len({t}) else {A}[:0]"],
            [f"{t} = 0", f"for x, y in zip({A}, {B}):",
             f"    {t} = max({t}, "
             f"{r.choice(['x.max()', 'float((x - y).sum())', 'int(np.argmax(x))'])})"],
        ]
        self.other.append(t)
        return r.choice(forms)

    def lists(self) -> list[str]:
        r, A, B, s = self.r, self.A(), self.A(), self.scal()
        t = self.new()
        k = r.randint(0, 4)
        item = r.choice([f"{A} * i", f"{A} + {B} * i", f"np.sqrt(np.abs({A})) + i",
                         f"{A}[::-1] * {s}", f"{A}.astype(np.float32) - i"])
        build = r.choice([[f"L{t} = []", f"for i in range({k}):", f"    L{t}.append({item})"],
                          [f"L{t} = [{item} for i in range({k})]"],
                          [f"L{t} = [{A}, {B}]", f"L{t}.append({item.replace('i', '2')})"]])
        use = r.choice([f"np.stack(L{t})", f"sum(L{t})", f"np.concatenate(L{t})",
                        f"L{t}[-1]", f"np.stack(L{t}, axis=-1).sum(axis=-1)",
                        f"np.array([x.sum() for x in L{t}])", f"len(L{t})"])
        (self.scalars if use.startswith("len") else self.other).append(t)
        return build + [f"{t} = {use}"]

    def whiles(self) -> list[str]:
        r, A, s = self.r, self.A(), self.scal()
        t = self.new()
        self.scalars.append(t)
        k = r.randint(1, 5)
        body = ["    " + x for x in self.body(r.randint(1, 2))] if self.depth < 1 else []
        return r.choice([
            [f"{t} = 0", "while True:", f"    {t} += 1", f"    if {t} > {k}:", "        break",
             f"    if {t} % 2 == 0:", "        continue", f"    {A} = {A} * {s}"] + body,
            [f"{t} = 0", f"while {A}.max() > {r.choice(['1', '0.5', '2'])} and {t} < {k}:",
             f"    {A} = {A} * 0.5", f"    {t} = {t} + 1"],
            [f"{t} = {r.choice(['0', '0.0', 's'])}", f"for i in range({k}):",
             f"    for j in range({r.randint(0, 3)}):",
             f"        {t} = {t} + i * j + {r.choice([A + '.sum()', '1', A + '.max()'])}",
             f"        if {t} > {r.choice(['10', '3', '100'])}:", "            break"],
        ])

    def props(self) -> list[str]:
        r, A, B, _ = self.r, self.A(), self.A(), self.scal()
        t = self.new()
        cond = r.choice([f"{A}.ndim == 2", f"{A}.shape[0] > 3", f"{A}.size > 100",
                         f"len({A}) > 10", f"{A}.ndim >= 1 and {A}.shape[-1] == 3",
                         f"{A}.dtype == np.float32", f"{A}.dtype.kind == 'f'",
                         "isinstance(s, float)", f"{A}.shape == {B}.shape"])
        x, y = r.choice([(f"{A} * 2", f"{A} - 1"), (f"{A}.sum(axis=0)", f"{A}.max(axis=0)"),
                         (f"{A}.astype(np.float64)", f"{A} + 0.5"), (f"{A}[1:]", f"{A}[:-1]")])
        self.other.append(t)
        if r.random() < .5:
            return [f"{t} = {x} if {cond} else {y}"]
        return [f"if {cond}:", f"    {t} = {x}", "else:", f"    {t} = {y}"]

    def misc(self) -> list[str]:
        r, A, B, s = self.r, self.A(), self.A(), self.scal()
        t, u = self.new(), self.new()
        k = r.randrange(13)
        if k == 0:
            self.full.append(u)
            return [f"d = {{'x': {A}, 'y': {B} * 2}}", "d['z'] = d['x'] + d['y']",
                    f"{u} = d['z'] - d[{r.choice(['x', 'y'])!r}]"]
        if k == 1:
            self.full.append(t)
            return r.choice([[f"g = lambda x: x * {s} + 1", f"{t} = g({A}) + g({B})"],
                             ["def g(x, k=2):", "    return x * k - 1", f"{t} = g({A}, k={s})"],
                             ["def g(x):", "    if x.ndim == 2:",
                              "        return x.sum(axis=1, keepdims=True) + x",
                              "    return x + x.sum()", f"{t} = g({A})"]])
        if k == 2:
            self.scalars.append(t)
            return [f"{t} = " + r.choice([
                f"max({A}.max(), {s})", f"min(3, len({A}))", f"abs({A}.sum())",
                f"max(float({A}.sum()), 0.0)", f"int(np.argmax({A}))",
                f"round(float({A}.mean()), 2)", f"min({A}.min(), {B}.min())", f"abs({s})",
                f"len({A}) + {s}", f"float({A}.sum()) / max(len({A}), 1)",
                f"int({A}.size) // 2", f"bool({A}.any())", f"max(1, int(abs({A}.max())))"])]
        if k == 3:
            self.other.append(t)
            return [f"{t} = " + r.choice([f"abs({A})", f"sum({A})",
                                          f"max({A}.max(), {B}.min()) * {A}",
                                          f"{A} * len({A})", f"{A} + float({B}.sum())"])]
        if k == 4:
            return [r.choice([f"assert {A}.shape[0] > 0", f"assert {A}.ndim >= 1",
                              f"assert {A}.shape == {B}.shape", f"assert len({A}) > 0, 'empty'"])]
        if k == 5:
            n = r.randint(1, 4)
            return [f"for i in range({n}):",
                    "    " + r.choice([f"{A}[i::{n + 1}] {r.choice(['+=', '*=', '-='])} {s}",
                                       f"{A}[:{n} - i] *= 0.5", f"{A}[i] = {A}[i] * 2 + i",
                                       f"{A}[i:] += {B}[:len({B}) - i]" if self.nd
                                       else f"{A} += i"])]
        if k == 6:
            return [f"{A}.reshape(-1)[int(np.argmax({A}))] = {s}"]
        if k == 7:
            self.scalars.append(t)
            return [f"{t} = 0", f"for i in range(min(len({A}), 4)):",
                    f"    {t} += float({A}[i].sum())" if self.nd == 2 else f"    {t} += {A}[i]"]
        if k == 8 and self.nd == 2:
            self.scalars += [t, u]
            return [f"{t}, {u} = {A}.shape", f"{A}[{t} - 1, {u} - 1] = {s}"]
        if k == 9:
            self.early = True
            return [f"if {self.cond()}:", "    return __RETS__"]
        if k == 10:
            self.full.append(t)
            return [f"{t} = SCALE * {A} + OFFSET"]
        if k == 11:
            return [f"{A}, {B} = {B}, {A}" if A != B else f"{A} = {A}"]
        self.full.append(t)
        return [f"{t} = {A}", f"{t} = {t} + 1" if r.random() < .5 else f"{t} += 1"]

    def program(self) -> tuple[list[str], list[str]]:
        lines = []
        cons = [(self.call, 5), (self.rows, 3), (self.lists, 3), (self.whiles, 3),
                (self.props, 3), (self.misc, 6), (self.assign, 2), (self.inplace, 1),
                (self.loop, 1), (self.branches, 1)]
        for _ in range(self.r.randint(3, 8)):
            lines += wchoice(self.r, cons)()
        pool = self.full + self.other + self.scalars[1:]
        rets = self.r.sample(pool, min(len(pool), self.r.randint(1, 3)))
        return lines, rets


def make_case(seed: int) -> tuple[str, list, object, dict]:
    """A case's program source, its arrays, its scalar ``s`` and a description."""
    r = random.Random(seed)
    kind, shape = wchoice(r, SHAPES)
    dts = [wchoice(r, DTYPES)]
    dts.append(dts[0] if r.random() < .6 else wchoice(r, DTYPES))
    cshape = r.choice([None, "full"] + (["row", "col", "row"] if len(shape) == 2 else []))
    if cshape:
        dts.append(dts[0] if r.random() < .5 else wchoice(r, DTYPES))
    sval = r.choice([1.5, -0.5, 2, -3, 0, True])
    g = (SGen if MODE == "structure" else Gen)(r, shape, cshape)
    lines, rets = g.program()
    params = ", ".join(["a", "b"] + (["c"] if cshape else []) + ["s"])
    body = "\n".join("    " + line for line in lines).replace("__RETS__", ", ".join(rets))
    head = "import numpy as np\n\n"
    if MODE == "structure":
        head += "SCALE = 2.0\nOFFSET = np.float32(0.5)\n\n" + "".join(
            h + "\n\n\n" for h in g.helpers)
    src = f"{head}def f({params}):\n{body}\n    return {', '.join(rets)}\n"
    rs = np.random.RandomState(seed % (2 ** 32))
    shapes = [shape, shape]
    if cshape:
        shapes.append({"full": shape, "row": shape[-1:], "col": shape[:1] + (1,)}[cshape])
    arrs = []
    for dt, sh in zip(dts, shapes):
        if dt.startswith("float"):
            x = rs.uniform(-3, 3, size=sh).astype(dt)
        elif dt == "uint8":
            x = rs.randint(0, 256, size=sh).astype(dt)
        elif dt in ("int8", "int16"):
            x = rs.randint(-128, 128, size=sh).astype(dt)
        elif dt == "bool":
            x = rs.rand(*sh) < .5
        else:
            x = rs.randint(-9, 9, size=sh).astype(dt)  # zeros are common: x // b with b == 0
        arrs.append(np.asarray(x))
    meta = dict(kind=kind, shape=shape, dtypes=dts, cshape=cshape, s=sval)
    return src, arrs, sval, meta


def build_inputs(arrs: list, sval) -> list:
    return [x.copy() for x in arrs] + [sval]


def load(src: str, name: str, out: str):
    """Write a program to ``out/progs/name.py`` (tracebacks then show its lines); its ``f``."""
    prog_dir = os.path.join(out, "progs")
    os.makedirs(prog_dir, exist_ok=True)
    path = os.path.join(prog_dir, f"{name}.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def quiet_call(fn, args: list):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def flatten(res) -> list:
    return [y for x in res for y in flatten(x)] if isinstance(res, tuple) else [res]


def compare(exp, got, what: str) -> str | None:
    """None if equal, else a description of the first difference."""
    E, G = flatten(exp), flatten(got)
    if len(E) != len(G):
        return f"{what}: {len(E)} outputs vs {len(G)}"
    for i, (e, g) in enumerate(zip(E, G)):
        ea, ga = np.asarray(e), np.asarray(g)
        # Python bool / int / float (np.float64 is a float)
        kinds = [next((t.__name__ for t in (bool, int, float) if isinstance(x, t)), None)
                 for x in (e, g)]
        if None not in kinds and kinds[0] != kinds[1]:
            return f"{what}[{i}]: Python {kinds[0]} vs {kinds[1]}"
        if ea.dtype != ga.dtype:
            return f"{what}[{i}]: dtype {ea.dtype} vs {ga.dtype}"
        if ea.shape != ga.shape:
            return f"{what}[{i}]: shape {ea.shape} vs {ga.shape}"
        if ea.dtype.kind in "biu":
            bad = np.argwhere(np.atleast_1d(ea != ga))
            if bad.size:
                j = tuple(bad[0]) if ea.ndim else ()
                return (f"{what}[{i}]: {len(bad)} values differ, first at {list(j)}: "
                        f"numpy {ea[j]} vs fusejit {ga[j]}")
            continue
        if not np.array_equal(np.isnan(ea), np.isnan(ga)):
            return (f"{what}[{i}]: NaN positions differ "
                    f"({np.isnan(ea).sum()} vs {np.isnan(ga).sum()})")
        inf = np.isinf(ea)
        if not np.array_equal(inf, np.isinf(ga)) or not np.array_equal(ea[inf], ga[inf]):
            return f"{what}[{i}]: inf positions/signs differ"
        fin = np.isfinite(ea)
        rtol = {np.dtype(np.float32): 2e-4, np.dtype(np.float16): 2e-3}.get(ea.dtype, 1e-9)
        scale = float(np.abs(ea[fin]).max()) if fin.any() else 1.0
        d = np.abs(ea[fin].astype(np.float64) - ga[fin].astype(np.float64))
        ok = d <= rtol * np.abs(ea[fin]) + rtol * max(scale, 1.0) * 1e-2
        if not ok.all():
            j = tuple(np.argwhere(fin)[~ok][0]) if ea.ndim else ()
            return (f"{what}[{i}]: {int((~ok).sum())} values differ, first at {list(j)}: "
                    f"numpy {ea[j]!r} vs fusejit {ga[j]!r}")
    return None


def is_refusal(ex: BaseException) -> bool:
    """A ScriptError / SchemaError (refused when scripting), or a runtime error that names a
    documented divergence (integer // or % by zero, a loop that re-types its variables and ran
    zero times, an empty list summed or made an array); any other exception where NumPy
    succeeds is a failure."""
    import fusejit

    if isinstance(ex, (fusejit.ScriptError, fusejit.SchemaError)):
        return True
    return any(w in str(ex).lower() for w in REFUSAL_WORDS)


def run_case(seed: int, out: str) -> dict:
    """One case: a verdict dict (status ok / rounding / refused / fail / invalid)."""
    import fusejit

    for attempt in range(40):  # rejection-sample a program NumPy runs
        sub = seed * 100 + attempt
        src, arrs, sval, meta = make_case(sub)
        try:
            ref_args = build_inputs(arrs, sval)
            numpy_fn = load(src, f"np_{sub}", out)
            exp = quiet_call(numpy_fn, ref_args)
        except Exception:
            continue
        break
    else:
        return dict(seed=seed, status="invalid")
    verdict = dict(seed=seed, sub=sub, kind=meta["kind"], meta=meta, src=src)
    nargs = len(arrs)
    try:
        jf = fusejit.jit(load(src, f"fj_{sub}", out))
    except Exception as ex:
        status = "refused" if is_refusal(ex) else "fail"
        return dict(verdict, status=status, call=0,
                    msg=f"jit(): {type(ex).__name__}: {str(ex)[:400]}")
    for call in (1, 2, 3):
        args = build_inputs(arrs, sval)
        try:
            got = quiet_call(jf, args)
        except Exception as ex:
            msg = f"{type(ex).__name__}: {str(ex)[-400:]}"
            if is_refusal(ex):
                return dict(verdict, status="refused", call=call, msg=msg)
            return dict(verdict, status="fail", call=call,
                        msg="exception where NumPy succeeds: " + msg,
                        tb=traceback.format_exc()[-2500:])
        d = (compare(exp, got, "result")
             or compare(tuple(ref_args[:nargs]), tuple(args[:nargs]), "args-after"))
        if d:
            near = rounding_only(numpy_fn, arrs, sval, (exp, ref_args[:nargs]),
                                 (got, args[:nargs])) if "values differ" in d else None
            if near:
                return dict(verdict, status="rounding", call=call, msg=f"{d}; {near}")
            return dict(verdict, status="fail", call=call, msg=d)
    return dict(verdict, status="ok")


def rounding_only(numpy_fn, arrs: list, sval, want: tuple, got: tuple) -> str | None:
    """Where fusejit's results (and arguments after the call) differ from NumPy's ``want`` in
    value: how far each is from the program run one float width up, if fusejit's are no
    farther than twice NumPy's (``stranger_sets.rounding``); else None (NumPy has no wider
    form of the program, or fusejit's are farther: a failure)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from stranger_sets import rounding, widened

    wide = list(widened(tuple(build_inputs(arrs, sval))))
    try:
        exact = quiet_call(numpy_fn, wide)
    except Exception:  # noqa: BLE001 - no wider form: not judged
        return None
    nargs = len(arrs)
    flat = [tuple(flatten(result)) + tuple(after) for result, after in (want, got)]
    return rounding(flat[1], flat[0], tuple(flatten(exact)) + tuple(wide[:nargs]))


def worker(out: str) -> None:
    """Run the seeds read from stdin, a JSON verdict per line on stdout."""
    for line in sys.stdin:
        seed = int(line)
        try:
            v = run_case(seed, out)
        except BaseException as ex:  # a problem of the harness itself
            v = dict(seed=seed, status="fail", msg=f"harness: {type(ex).__name__}: {ex}",
                     tb=traceback.format_exc()[-2000:])
        sys.stdout.write(json.dumps(v, default=str) + "\n")
        sys.stdout.flush()


def tier_env(mode: str, i: int) -> dict:
    """The environment worker i adds: FUSEJIT_TIERING=0 where tiering is off for it."""
    off = mode == "off" or (mode == "mixed" and i % 2 == 0)
    return {"FUSEJIT_TIERING": "0"} if off else {}


def driver(o: argparse.Namespace) -> None:
    """Feed seeds to the workers for ``o.minutes``, log every verdict, print the summary."""
    base = dict(os.environ, FUSEJIT_TIMED_CHOICE="0", FUSEJIT_QUIET="1", FUSEJIT_FUZZ_MODE=MODE)
    base.pop("FUSEJIT_TIERING", None)
    os.makedirs(o.out, exist_ok=True)
    results = []

    def spawn(i: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker",
                                 "--out", o.out],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                env=dict(base, **tier_env(o.tiering, i)), bufsize=1)

    def record(v: dict, i: int) -> None:
        v["tiering"] = "off" if tier_env(o.tiering, i) else "on"
        log.write(json.dumps(v) + "\n")
        log.flush()
        results.append(v)
        if v["status"] == "fail":
            print(f"[fail] seed={v['seed']} tiering={v['tiering']} call={v.get('call')} "
                  f"{v.get('kind')} {v.get('msg', '')[:200]}", flush=True)

    n = o.workers
    procs, busy = [spawn(i) for i in range(n)], [None] * n  # busy: (seed, start time)
    nxt, end = o.seed, time.time() + o.minutes * 60
    with open(os.path.join(o.out, "log.jsonl"), "a") as log:
        while True:
            for i, p in enumerate(procs):
                if busy[i] is None and time.time() < end:
                    p.stdin.write(f"{nxt}\n")
                    p.stdin.flush()
                    busy[i] = (nxt, time.time())
                    nxt += 1
            if all(b is None for b in busy):
                break
            fds = {procs[i].stdout.fileno(): i for i in range(n) if busy[i] is not None}
            ready, _, _ = select.select(list(fds), [], [], 1.0)
            for fd in ready:
                i = fds[fd]
                line = procs[i].stdout.readline()
                if line:
                    v = json.loads(line)
                else:
                    v = dict(seed=busy[i][0], status="fail", kind="(crash)",
                             msg=f"crash: worker died rc={procs[i].wait()}")
                    procs[i] = spawn(i)
                v["secs"] = round(time.time() - busy[i][1], 1)
                busy[i] = None
                record(v, i)
            for i, b in enumerate(busy):
                if b is not None and time.time() - b[1] > o.timeout:
                    procs[i].kill()
                    procs[i].wait()
                    record(dict(seed=b[0], status="fail", kind="(hang)",
                                msg=f"hang: no answer in {o.timeout}s"), i)
                    procs[i], busy[i] = spawn(i), None
    for p in procs:
        p.stdin.close()
        p.wait()
    summary(results)
    print("next seed:", nxt)


def refusal_line(msg: str) -> str:
    """The line of a refusal's message that explains it, without generated programs' paths."""
    lines = [line for line in msg.split("\n") if line.strip()]
    if "device=cpu" in msg or "operation failed" in msg:  # runtime: the explaining line
        explaining = [line.strip() for line in lines if re.match(r"\s*(\(|\w*Error)", line)]
        m = (explaining or lines[-1:])[-1]
    else:
        m = lines[0]
    return re.sub(r"\S*/progs/\S+", "", m).strip()[:120]


def summary(results: list[dict]) -> None:
    """Counts by shape kind, then the five commonest refusals."""
    table = {}
    for v in results:
        row = table.setdefault(v.get("kind", "?"),
                               dict(ok=0, rounding=0, refused=0, fail=0, invalid=0))
        row[v["status"]] += 1
    print(f"{'kind':10} {'passed':>7} {'rounding':>9} {'refused':>8} {'failed':>7} "
          f"{'invalid':>8}")
    for k in sorted(table):
        r = table[k]
        print(f"{k:10} {r['ok']:7} {r['rounding']:9} {r['refused']:8} {r['fail']:7} "
              f"{r['invalid']:8}")
    msgs = {}
    for v in results:
        if v["status"] == "refused":
            m = refusal_line(v["msg"])
            msgs[m] = msgs.get(m, 0) + 1
    for m, c in sorted(msgs.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  refused x{c}: {m}")


def main() -> None:
    global MODE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--one", type=int, metavar="SEED", help="replay one case in-process")
    ap.add_argument("--show", type=int, metavar="SEED", help="print a case's program")
    ap.add_argument("--tiering", choices=["on", "off", "mixed"], default="mixed",
                    help="FUSEJIT_TIERING for the workers (mixed: half the workers off)")
    ap.add_argument("--timeout", type=float, default=90,
                    help="seconds per case before it counts as a hang")
    ap.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                    help=f"where the generated programs and log.jsonl go (default {DEFAULT_OUT})")
    ap.add_argument("--mode", choices=["ops", "structure"], default=MODE,
                    help="ops: pointwise / reduction / in-place statements; structure: "
                    "helpers, list building, row loops, break / continue, early returns")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    o = ap.parse_args()
    MODE = o.mode
    os.environ["FUSEJIT_FUZZ_MODE"] = MODE  # the workers inherit it
    if o.worker:
        worker(o.out)
    elif o.show is not None:
        src, _, _, meta = make_case(o.show)
        print(src, meta, sep="\n")
    elif o.one is not None:  # in-process: set the environment before fusejit is imported
        os.environ.update(tier_env("off" if o.tiering == "off" else "on", 0))
        os.environ.setdefault("FUSEJIT_QUIET", "1")
        v = run_case(o.one, o.out)
        print(v.get("src", ""))
        print({k: x for k, x in v.items() if k != "src"})
    else:
        driver(o)


if __name__ == "__main__":
    main()
