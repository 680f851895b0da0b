"""Stores of pointwise expressions in whole-graph functions, written as one loop.

A NumPy program that updates arrays in place, in a loop with ``out=`` or slice stores (a
tridiagonal solve's ``np.divide(c[i], denom, out=cp[i])``, a sliding window's
``np.minimum(lo, x[k:k + n], out=lo)``), reaches the whole-graph writer (``element_function``)
as pointwise nodes and ``copy_`` stores. Written one by one, each store is a Numba array
expression computed into a new array and then copied into its target, and every array a
statement makes is written out and read back by the next.

A *run* is a sequence of consecutive nodes of one block in a loop: pointwise arithmetic (``add``,
``sub``, ``mul``, ``div``, ``neg``, two-operand ``min``/``max``) and stores into arrays
(``copy_``, ``add_``, ``sub_``, ``mul_``, ``div_``), all of one float dtype and one rank, with
the views and numbers they read (``select``, ``slice``, scalar arithmetic) among them: two
or more pointwise nodes and stores, one a store. Its pointwise values are read inside it only
(a store alone is as fast as Numba's own). It
is written as one loop nest over the elements, in a function of its own (vectorised, without
index checks), each value a local::

    if not _run1(v27, v28, v24, v26, v29, v30, v31, v32):
        (the nodes one by one, as before)

    @helper_jit(error_model="numpy")
    def _run1(a0, a1, a2, a3, a4, a5, a6, a7):
        if not (a1.shape == a0.shape and ...):              # every array of one shape
            return False
        if not (_apart(a0, a1) and ...):                    # each target from the others
            return False
        for k0 in range(a0.shape[0]):
            e0 = a2[k0]
            e1 = a3[k0]
            e2 = (e0 * e1)
            ...                                             # denom, never made
            a0[k0] = e6                                     # each target stored once
            a1[k0] = e11
        return True

One array is one parameter however many views name it (``select``/``slice`` nodes of the same
array with the same numbers: ``_view_key``), so within a step of the loop each element is
loaded once, taken from the local that last loaded or stored it, and each target's element
is stored once, at the end. The function declines (False, before it writes anything) where
an array's shape differs from the first target's (a broadcast: NumPy's rules, or its error,
come from the nodes one by one), or where a target shares memory with another of its arrays
(``x[1:] = x[:-1]``: NumPy reads before it writes; two arguments that are one array). Every
operand is of the run's float dtype and numbers are cast to it, so each element is computed
in that dtype as NumPy's loop computes it (a float32 run in float32); ``min``/``max`` give
NumPy's NaN and equal operands (the second where equal); division by zero gives inf or nan
(``error_model``).

The views and numbers are written before the loop: they read no element, so moving them
before the run's stores changes nothing. The forward sweep of a tridiagonal solve of 64 x
10^4 float64 (3 pointwise nodes and 2 stores a step): 1.37 ms one by one, 0.70 as a run
written by hand; NumPy with ``out=``, 0.86. A ring buffer's running mean (four updates of
8192 float32 a step): 1.25 ms with each target stored at once, 0.36 as above; NumPy 0.66.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir.graph import Block, Node, Value
from ..ir.symbols import prim
from ..ir.types import BoolType, FloatType, IntType, TensorType
from .element_support import _dtype, _rank, _static

_POINTWISE = {"add": "+", "sub": "-", "mul": "*", "div": "/", "neg": "-", "min": "<",
              "max": ">"}
_UPDATES = {"copy_": None, "add_": "+", "sub_": "-", "mul_": "*", "div_": "/"}
_VIEWS = frozenset({"select", "slice"})
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
MAX_RUN_RANK = 3


class Run:
    """A run's nodes: ``free`` (views and numbers, written before it) and ``body`` (the
    pointwise nodes and stores, in order), of ``dtype`` and ``rank``."""

    def __init__(self, nodes: list[Node], dtype: np.dtype, rank: int):
        self.nodes = nodes
        self.dtype = dtype
        self.rank = rank
        self.body = [n for n in nodes if _role(n) != "free"]
        self.free = [n for n in nodes if _role(n) == "free"]
        self.stores = [n for n in self.body if _role(n) == "store"]


def _number(value: Value, dtype: np.dtype) -> bool:
    """A number meeting arrays of ``dtype`` (NumPy casts it to theirs): a Python number, or a
    0-d value of that dtype."""
    if isinstance(value.type, (FloatType, IntType, BoolType)):
        return True
    return isinstance(value.type, TensorType) and _rank(value) == 0 and _dtype(value) == dtype


def _array(value: Value, dtype: np.dtype, rank: int) -> bool:
    return isinstance(value.type, TensorType) and _rank(value) == rank and \
        _dtype(value) == dtype


def _unit_alpha(node: Node) -> bool:
    return len(node.inputs) < 3 or _static(node.input(2)) == 1


def _role(node: Node) -> str | None:
    """``element``, ``store`` or ``free`` for a node a run may hold, else None."""
    kind = node.kind
    if node.blocks:
        return None
    if kind == prim.Constant:
        return "free"
    tensors = [v for v in [*node.inputs, *node.outputs] if isinstance(v.type, TensorType)]
    if kind.ns == "aten" and kind.name in _VIEWS and len(node.outputs) == 1 and \
            (_rank(node.output()) or 0) >= 1:
        return "free"
    if kind.ns == "aten" and kind.name in ("size", "dim") or not tensors and (
            kind in (prim.ListConstruct, prim.TupleConstruct) or kind.ns == "aten") and \
            _writes_nothing(node):
        return "free"   # (numbers, shapes and lists of them: they read no element)
    shape = _kind(node)
    if shape is None:
        return None
    return "store" if kind.name in _UPDATES else "element"


def _kind(node: Node) -> tuple[np.dtype, int] | None:
    """(dtype, rank) of a pointwise node or store a run may hold, else None."""
    kind = node.kind
    if kind.ns != "aten" or len(node.outputs) != 1:
        return None
    out = node.output()
    if not isinstance(out.type, TensorType) or _dtype(out) not in _FLOATS:
        return None
    dtype, rank = _dtype(out), _rank(out)
    if rank is None or not 1 <= rank <= MAX_RUN_RANK:
        return None
    name = kind.name
    if name in _POINTWISE:
        count = 1 if name == "neg" else 2
        if name in ("add", "sub") and not _unit_alpha(node):
            return None
        if len(node.inputs) != count + (name in ("add", "sub")):
            return None
        operands = node.inputs[:count]
        if not any(_array(v, dtype, rank) for v in operands):
            return None
    elif name in _UPDATES:
        if name in ("add_", "sub_") and not _unit_alpha(node):
            return None
        if name == "copy_" and _masked(node):
            return None
        operands = node.inputs[:2]
        if not _array(operands[0], dtype, rank):
            return None
    else:
        return None
    if not all(_array(v, dtype, rank) or _number(v, dtype) for v in operands):
        return None
    return dtype, rank


def _masked(node: Node) -> bool:
    from .element_function import _masked_store

    return _masked_store(node) is not None


def _writes_nothing(node: Node) -> bool:
    from .element_function import _writes_nothing as writes_nothing

    return writes_nothing(node)


def store_runs(block: Block) -> dict[Node, Run]:
    """The runs of ``block``, by their first node."""
    nodes = list(block.nodes())
    runs: dict[Node, Run] = {}
    i = 0
    while i < len(nodes):
        run = _grow(nodes, i)
        if run is None:
            i += 1
            continue
        runs[run.nodes[0]] = run
        i += len(run.nodes)
    return runs


def _grow(nodes: list[Node], start: int) -> Run | None:
    """The run that starts at ``nodes[start]`` (a pointwise node or a store), if any."""
    if _role(nodes[start]) not in ("element", "store"):
        return None
    dtype, rank = _kind(nodes[start])
    end = start
    made: set[Value] = set()        # the values of the run's pointwise nodes
    alias: dict[Value, Value] = {}  # a store's result -> its target
    targets: list[object] = []      # the view keys of the run's targets
    while end < len(nodes):
        node = nodes[end]
        role = _role(node)
        if role is None or role != "free" and _kind(node) != (dtype, rank):
            break
        if role == "free" and any(v in made for v in node.inputs):
            break       # (a view of a value the run never makes)
        if role == "store" and node.input(0) in made:
            break       # (a store into a value the run never makes)
        if role == "store":
            # Another view of an array the run already stores into (np.gradient's ends and
            # middle, ``o[:1] = ...; o[1:-1] = ...``) ends the run: such views rarely share
            # a shape, and the run's function would decline every call (``overlapping``),
            # its stores then each an array made and copied; apart, each run computes its
            # elements into its target.
            target = _view_key(node.input(0), alias)
            if any(t != target and _base(t) == _base(target) for t in targets):
                break
            targets.append(target)
            alias[node.output()] = node.input(0)
        if role == "element":
            made.add(node.output())
        end += 1
    members = nodes[start:end]
    while members:
        inside = set(members)
        outside = next((k for k, n in enumerate(members) if _role(n) == "element" and any(
            use.user not in inside or _role(use.user) == "free"
            for use in n.output().uses)), None)
        if outside is not None:
            members = members[:outside]
            continue
        last = max((k for k, n in enumerate(members) if _role(n) == "store"), default=-1)
        if last + 1 < len(members):
            members = members[:last + 1]
            continue
        break
    body = [n for n in members if _role(n) != "free"]
    stores = [n for n in body if _role(n) == "store"]
    if not stores or len(body) < 2:
        return None     # (one store alone: Numba's own store is as good)
    return Run(members, dtype, rank)


def _view_key(value: Value, alias: dict[Value, Value]) -> object:
    """What identifies the memory ``value`` is: a view made by ``select`` or ``slice`` of the
    same array with the same numbers is the same view (a view reads no element, so the
    stores between two such nodes change nothing), as is a store's result and its target."""
    while value in alias:
        value = alias[value]
    node = value.node
    if node.kind.ns == "aten" and node.kind.name in _VIEWS and _role(node) == "free":
        parts = [_view_key(node.input(0), alias)]
        for v in node.inputs[1:]:
            known = v.node.kind == prim.Constant
            parts.append(("constant", repr(_static(v))) if known else v)
        return (node.kind.name, *parts)
    return value


def _base(key: object) -> object:
    while isinstance(key, tuple):
        key = key[1]
    return key


def _may_overlap(a: object, b: object) -> bool:
    """May the views of keys ``a`` and ``b`` (``_view_key``) share some elements and not all?
    Views of one array by ``select`` at different indices of one dim share none (or all,
    where the indices are equal: the run's function then declines); a ``slice`` may share
    some."""
    if a == b:
        return False
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "select" and \
            a[2] == b[2]:
        return a[1] != b[1] and _may_overlap(a[1], b[1])
    return _base(a) == _base(b)


def overlapping(run: Run) -> bool:
    """Could a target of ``run`` share some elements of another of its arrays, not all (a
    stencil's ``u[1:-1] = u[1:-1] + (u[2:] - u[:-2])``)? Its function would decline each
    call, and the nodes run one by one."""
    alias = {store.output(): store.input(0) for store in run.stores}
    keys = {_view_key(v, alias) for n in run.body for v in n.inputs
            if _array(v, run.dtype, run.rank)}
    targets = {_view_key(store.input(0), alias) for store in run.stores}
    return any(_may_overlap(t, k) for t in targets for k in keys)


def run_source(run: Run, fn: str, name: Callable[[Value], str],
               number: Callable[[Value], str]) -> tuple[str, list[str]]:
    """The module text of ``run``'s function ``fn``, and the caller's argument texts (``name``
    of an array value, ``number`` of a number cast to the run's dtype). Each array is one
    parameter, however many views name it; within a step of the loop each of its elements is
    loaded once and then taken from the local that last loaded or stored it, and each target's
    element is stored once, at the end (every other array is apart from it, or it declines)."""
    dtype, rank = run.dtype, run.rank
    alias = {store.output(): store.input(0) for store in run.stores}
    params: dict[object, str] = {}  # an array's key (or a number's text) -> parameter
    texts: list[str] = []           # the caller's argument of each parameter
    arrays: list[str] = []          # the parameters that are arrays
    targets: list[str] = []
    current: dict[str, str] = {}    # array parameter -> the local holding its element
    local: dict[Value, str] = {}
    index = ", ".join(f"k{d}" for d in range(rank))
    lines: list[str] = []

    def fresh(expr: str) -> str:
        lines.append(f"e{len(lines)} = {expr}")
        return f"e{len(lines) - 1}"

    def param(value: Value) -> str:
        array = _array(value, dtype, rank)
        key = _view_key(value, alias) if array else number(value)
        if key not in params:
            params[key] = f"a{len(params)}"
            texts.append(name(value) if array else number(value))
            arrays.extend([params[key]] if array else [])
        return params[key]

    def operand(value: Value) -> str:
        if value in local:
            return local[value]
        if not _array(value, dtype, rank):
            return param(value)
        array = param(value)
        if array not in current:
            current[array] = fresh(f"{array}[{index}]")
        return current[array]

    for store in run.stores:        # (the targets first: a0 gives the loop's shape)
        targets += [param(store.input(0))]
    for node in run.body:
        kind = node.kind.name
        if kind in _UPDATES:
            target, symbol = param(node.input(0)), _UPDATES[kind]
            value = operand(node.input(1))
            if symbol is not None:
                value = fresh(f"({operand(node.input(0))} {symbol} {value})")
            current[target] = value     # (stored once, at the end of the step)
            continue
        args = [operand(v) for v in node.inputs[:1 if kind == "neg" else 2]]
        if kind == "neg":
            expr = f"(-{args[0]})"
        elif kind in ("min", "max"):
            a, b = args
            expr = f"({a} if ({a} {_POINTWISE[kind]} {b} or {a} != {a}) else {b})"
        else:
            expr = f"({args[0]} {_POINTWISE[kind]} {args[1]})"
        local[node.output()] = fresh(expr)
    targets = list(dict.fromkeys(targets))
    lines += [f"{t}[{index}] = {current[t]}" for t in targets]
    first = targets[0]
    same = [f"{a}.shape == {first}.shape" for a in arrays if a != first]
    pairs = dict.fromkeys(tuple(sorted((t, a))) for t in targets for a in arrays if a != t)
    text = ['@helper_jit(error_model="numpy")', f"def {fn}({', '.join(params.values())}):"]
    if same:
        text += [f"    if not ({' and '.join(same)}):", "        return False"]
    if pairs:
        text += [f"    if not ({' and '.join(f'_apart({a}, {b})' for a, b in pairs)}):",
                 "        return False"]
    for d in range(rank):
        text.append(f"{'    ' * (d + 1)}for k{d} in range({first}.shape[{d}]):")
    text += ["    " * (rank + 1) + line for line in lines]
    text.append("    return True")
    return "\n".join(text) + "\n\n\n", texts


__all__ = ["MAX_RUN_RANK", "Run", "overlapping", "run_source", "store_runs"]
