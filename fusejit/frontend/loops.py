"""Loops for ``fusejit.script``: ``while``/``for`` emission, ``break``/``continue``, sequences.

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

A loop over a tuple or a Python list known while scripting is unrolled instead (its
break/continue lowered the same way, in each copy of the body).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from ..ir.graph import Block, Value
from ..ir.symbols import prim
from ..ir.types import BOOL, FLOAT, INT, TENSOR, ListType, ScalarType, TensorType
from .builder import Item, describe, is_none, is_tensor, rebuilt, scalar_type_of
from .expressions import Sugared, Undefined, assigned_flag
from .lowering import (
    LIST_NUMBER_DTYPES,
    append_to,
    as_tensor,
    binary,
    list_length,
    note_item_type,
    note_scalar_item,
    scalar_rank,
    to_int,
    widen,
)
from .numpy_dtypes import cast, dtype_of, holding_dtype, kind_key, numpy_scalar, scalar_kinds
from .numpy_lowering import copy

INT64_MAX = 9223372036854775807
# The most iterations emitted before a loop whose body changes a variable's dtype
# (``_peeled``): one makes ``x = x.astype(np.uint8) + 200`` hold still; dtypes still changing
# after this many (a variable that alternates between two) are refused.
_MOST_PEELED = 3


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


def _is_zip(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "zip" and bool(node.args) and not node.keywords)


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


class LoopStatements:
    """``while`` and ``for`` for the statement emitter (a mixin: it uses its ``env``,
    ``emit_statements``, ``assign``, ``flatten`` ...)."""


    def stmt_While(self, stmt: ast.While) -> None:
        if stmt.orelse:
            raise self.unsupported(stmt.orelse[0], "a while loop's else clause")
        cond = self.condition(stmt.test)
        self.at(stmt)
        trip = self.b.value(INT64_MAX)
        stmt, breaks = self._lower_exits(stmt)
        if breaks is not None:  # the next condition: not $break and test
            test = ast.BoolOp(ast.And(), [not_flag(breaks, stmt), stmt.test])
            stmt = ast.copy_location(ast.While(ast.copy_location(test, stmt.test), stmt.body,
                                               []), stmt)
        self.emit_loop(stmt, trip, cond, None)

    def _flagged_body(self, stmt) -> tuple[list[ast.stmt], str | None] | None:
        """``stmt``'s body with break/continue lowered to flags (see ``loops``), ``$continue``
        cleared first, and the name of its break flag (None without a break); None where the
        body has neither."""
        kinds = exit_kinds(stmt.body)
        if not kinds:
            return None
        self.loop_count += 1
        flags = {kind: f"${kind.__name__.lower()}{self.loop_count}" for kind in kinds}
        body = lower_exits(stmt.body, flags, self.unsupported)
        if ast.Continue in flags:
            body.insert(0, set_flag(flags[ast.Continue], False, stmt))
        return body, flags.get(ast.Break)

    def _lower_exits(self, stmt):
        """``stmt`` with break/continue lowered to flags (see ``loops``), and its break flag."""
        flagged = self._flagged_body(stmt)
        if flagged is None:
            return stmt, None
        body, breaks = flagged
        if breaks is not None:
            self.at(stmt)
            self.env[breaks] = self.b.value(False)
        new = ast.For(stmt.target, stmt.iter, body, []) if isinstance(stmt, ast.For) \
            else ast.While(stmt.test, body, [])
        return ast.copy_location(new, stmt), breaks

    def _unrolled_body(self, stmt: ast.For) -> list[ast.stmt]:
        """The body a loop over a tuple or list repeats for each item (``_flagged_body``),
        guarded whole by ``if not $break`` (set False before the loop). A flag known while
        scripting (``if i == 0: continue`` with i a number of the tuple) leaves out what it
        skips."""
        flagged = self._flagged_body(stmt)
        if flagged is None:
            return stmt.body
        body, breaks = flagged
        if breaks is not None:
            self.at(stmt)
            self.env[breaks] = False
            body = [ast.copy_location(ast.If(not_flag(breaks, stmt), body, []), stmt)]
        return body

    def _for_over_zip(self, stmt: ast.For, call: ast.Call, enumerated: bool = False) -> None:
        """``for a, b in zip(xs, ys)`` (``call`` is the zip; ``for i, (a, b) in
        enumerate(zip(xs, ys))`` when ``enumerated``): unrolled over tuples and lists, else
        indexed by ``range(min(len(xs), len(ys)))``."""
        sequences = [self.eval_value(arg) for arg in call.args]
        if all(isinstance(s, (tuple, list)) for s in sequences):
            body = self._unrolled_body(stmt)
            for i, items in enumerate(zip(*sequences)):
                self.assign(stmt.target, (i, tuple(items)) if enumerated else tuple(items))
                self.emit_statements(body)
            return
        self.loop_count += 1
        names = [f"$zip{self.loop_count}_{k}" for k in range(len(sequences))]
        counter = f"$i{self.loop_count}"
        at = stmt
        for name, sequence in zip(names, sequences):
            self.at(stmt.iter)
            if not (is_tensor(sequence) or isinstance(getattr(sequence, "type", None),
                                                       ListType)):
                raise self.b.error(f"zip() in a for loop takes arrays, or tuples and lists, "
                                   f"got a {describe(sequence)}")
            self.env[name] = sequence
        lengths = [ast.copy_location(ast.Call(name_node("len", at), [name_node(n, at)], []), at)
                   for n in names]
        length = lengths[0]
        for other in lengths[1:]:
            length = ast.copy_location(ast.Call(name_node("min", at), [length, other], []), at)
        items = ast.copy_location(ast.Tuple([ast.copy_location(ast.Subscript(
            name_node(n, at), name_node(counter, at), ast.Load()), at) for n in names],
            ast.Load()), at)
        if enumerated:
            items = ast.copy_location(ast.Tuple([name_node(counter, at), items], ast.Load()), at)
        unpack = ast.copy_location(ast.Assign([stmt.target], items), at)
        bounds = ast.copy_location(ast.Call(name_node("range", at), [length], []), at)
        loop = ast.For(name_node(counter, at, store=True), bounds, [unpack, *stmt.body], [])
        self.stmt_For(ast.copy_location(loop, stmt))

    def _for_over_sequence(self, stmt: ast.For) -> None:
        """``for x in xs`` / ``enumerate(xs)``: unrolled over a tuple, else indexed by range."""
        if _is_zip(stmt.iter):
            return self._for_over_zip(stmt, stmt.iter)
        if is_enumerate(stmt.iter) and _is_zip(stmt.iter.args[0]) and isinstance(
                stmt.target, (ast.Tuple, ast.List)) and len(stmt.target.elts) == 2:
            return self._for_over_zip(stmt, stmt.iter.args[0], enumerated=True)
        source = stmt.iter.args[0] if is_enumerate(stmt.iter) else stmt.iter
        sequence = self.eval_value(source)
        if isinstance(sequence, (tuple, list)):
            body = self._unrolled_body(stmt)
            for i, item in enumerate(sequence):
                if is_enumerate(stmt.iter):
                    index_target, target = stmt.target.elts
                    self.assign(index_target, i)
                else:
                    target = stmt.target
                self.assign(target, item)
                self.emit_statements(body)
            return
        self.at(source)
        if not (is_tensor(sequence) or isinstance(getattr(sequence, "type", None), ListType)):
            raise self.b.error(f"a for loop cannot iterate over a {describe(sequence)}")
        self.loop_count += 1
        name, counter = f"$seq{self.loop_count}", f"$i{self.loop_count}"
        self.env[name] = sequence
        self.stmt_For(over_sequence(stmt, name, counter))

    def sliced_list(self, items: Value, index: slice, node: ast.AST) -> Value:
        """``xs[a:b:c]`` of a list built in a loop (an IR list): a new list, which a loop over
        ``range`` of the bounds Python's ``slice.indices`` gives appends the items to (the
        step a constant; the bounds ints, known when it runs or before)."""
        b = self.b
        step = 1 if index.step is None else b.static(index.step)
        if type(step) is not int or step == 0:
            raise b.error("a list built in a loop is sliced with a constant step other than "
                          "0 (xs[a:b], xs[::2])")
        n = list_length(b, items)
        self.loop_count += 1
        k = self.loop_count
        names = {part: f"$slice{k}_{part}" for part in ("list", "out", "i", "start", "stop")}
        self.env[names["list"]] = items
        self.env[names["out"]] = []
        self.env[names["start"]] = self._list_bound(index.start, n, step, True)
        self.env[names["stop"]] = self._list_bound(index.stop, n, step, False)
        at = node
        bounds = ast.copy_location(ast.Call(name_node("range", at), [
            name_node(names["start"], at), name_node(names["stop"], at),
            ast.copy_location(ast.Constant(step), at)], []), at)
        item = ast.copy_location(ast.Subscript(name_node(names["list"], at),
                                               name_node(names["i"], at), ast.Load()), at)
        put = ast.copy_location(ast.Call(ast.copy_location(ast.Attribute(
            name_node(names["out"], at), "append", ast.Load()), at), [item], []), at)
        loop = ast.For(name_node(names["i"], at, store=True), bounds,
                       [ast.copy_location(ast.Expr(put), at)], [])
        self.stmt_For(ast.copy_location(loop, at))
        self.at(node)
        return self.env[names["out"]]

    def joined_lists(self, first: Item, second: Item, node: ast.AST) -> Item:
        """``xs + ys`` where either is a list a loop built (an IR list), the other one too or a
        Python list: a new list, ``first``'s items then ``second``'s, each list of the IR
        appended by a loop over its indices (``cols + [np.ones(n)]``)."""
        self.loop_count += 1
        k = self.loop_count
        out = f"$join{k}_out"
        self.env[out] = []
        at = node
        for part, items in (("a", first), ("b", second)):
            if isinstance(items, list):
                current = self.env[out]
                if isinstance(current, list):
                    current.extend(items)
                else:
                    for item in items:
                        append_to(self.b, current, item)
                continue
            source, index = f"$join{k}_{part}", f"$join{k}_{part}i"
            self.env[source] = items
            count = ast.copy_location(ast.Call(name_node("len", at), [name_node(source, at)],
                                               []), at)
            bounds = ast.copy_location(ast.Call(name_node("range", at), [count], []), at)
            item = ast.copy_location(ast.Subscript(name_node(source, at), name_node(index, at),
                                                   ast.Load()), at)
            put = ast.copy_location(ast.Call(ast.copy_location(ast.Attribute(
                name_node(out, at), "append", ast.Load()), at), [item], []), at)
            loop = ast.For(name_node(index, at, store=True), bounds,
                           [ast.copy_location(ast.Expr(put), at)], [])
            self.stmt_For(ast.copy_location(loop, at))
        self.at(node)
        joined = self.env[out]
        if isinstance(joined, Value):
            # (the arrays both lists hold share a type where each list's do, and the Python
            # list's items have it too: the reads in the loops above were untyped)
            shared = [self.b.list_types.get(v) for v in (first, second) if isinstance(v, Value)]
            held = [getattr(item, "type", None) for v in (first, second) if isinstance(v, list)
                    for item in v]
            kinds = {(t.scalar_type, t.rank) if isinstance(t, TensorType) else None
                     for t in shared + held}
            if len(kinds) == 1 and None not in kinds:
                self.b.list_types[joined] = shared[0]
        return joined

    def _list_bound(self, bound: Item, n: Value, step: int, start: bool) -> Item:
        """One bound of a slice of a list of ``n`` items, as ``slice.indices`` makes it: None
        the list's start or end in the step's direction; a negative one counted from the end;
        then within ``[0, n]`` (a positive step) or ``[-1, n - 1]`` (a negative one)."""
        b = self.b
        if bound is None or is_none(bound):
            return (0 if start else n) if step > 0 else (binary(b, "sub", n, 1) if start else -1)
        if scalar_type_of(bound) != INT:
            raise b.error(f"a list's slice bounds are ints, got a {describe(bound)}")
        fixed = b.static(bound)
        if isinstance(fixed, int):
            bound = binary(b, "add", n, fixed) if fixed < 0 else fixed
        else:
            below = to_int(b, binary(b, "lt", bound, 0))
            bound = binary(b, "add", bound, binary(b, "mul", n, below))
        low, high = (0, n) if step > 0 else (-1, binary(b, "sub", n, 1))
        return binary(b, "min", binary(b, "max", bound, low), high)

    def stmt_For(self, stmt: ast.For) -> None:
        if stmt.orelse:
            raise self.unsupported(stmt.orelse[0], "a for loop's else clause")
        call = stmt.iter
        func = self.eval(call.func) if isinstance(call, ast.Call) else None
        if not (isinstance(func, Sugared) and func.obj is range):
            return self._for_over_sequence(stmt)
        if not isinstance(stmt.target, ast.Name):
            raise self.unsupported(stmt.target, "a for loop target other than one name")
        if call.keywords or not 1 <= len(call.args) <= 3:
            raise self.unsupported(call, "this form of range()")
        bounds = []
        for arg in call.args:
            value = self.eval_value(arg)
            if scalar_type_of(value) != INT:
                self.at(arg)
                kind = "an array" if is_tensor(value) else f"a {describe(value)}"
                raise self.b.error(f"range() needs int bounds, got {kind} (a tensor cannot be "
                                   f"used as a loop bound; convert with int(...))")
            bounds.append(value)
        self.at(stmt)
        start, stop, step = _range_parts(bounds)
        trip = self._trip_count(start, stop, step)
        stmt, breaks = self._lower_exits(stmt)
        self.emit_loop(stmt, trip, self.b.value(True), (stmt.target.id, start, step), breaks)

    def _trip_count(self, start: Item, stop: Item, step: Item) -> Item:
        """max(0, ceil((stop - start) / step)) as TorchScript computes it."""
        b = self.b
        step_value = b.static(step)
        if step_value == 0:
            raise b.error("range() arg 3 must not be zero")
        if not isinstance(step_value, int):
            # a run-time step (range(i * i, n, i)): -((start - stop) // step), whose sign
            # the loop needs not (zero of it raises, as Python's range does)
            return binary(b, "sub", 0, binary(b, "floordiv", binary(b, "sub", start, stop),
                                              step))
        span = stop if b.static(start) == 0 else binary(b, "sub", stop, start)
        if step_value == 1:
            return span
        if step_value < 0:
            span = binary(b, "sub", 0, span)
        # Negative results mean zero iterations: prim::Loop runs while i < trip count.
        return binary(b, "floordiv", binary(b, "add", span, abs(step_value) - 1), abs(step_value))

    def emit_loop(self, stmt, trip: Item, cond: Value, index: tuple | None,
                  breaks: str | None = None, peeled: int = 0, kinds: dict | None = None
                  ) -> None:
        """The loop ``stmt`` as a ``prim::Loop``. ``kinds``: carried numbers whose kind (int or
        float, a Python number or a NumPy scalar) the iterations that ran decide, {name: (the
        kinds it may have, the rank of the type that holds them)}: each is carried with the
        index of its kind (``_kinds_to_carry``)."""
        self._lists_appended_in(stmt.body)
        flags = self._assignment_flags(stmt)
        # what the loop reads before assigning it (its next iteration among them), and what
        # is read after it: a name assigned before it is read in each iteration is neither
        header = _reads([stmt.iter if isinstance(stmt, ast.For) else stmt.test])
        targets = set(_assigned([stmt.target])) if isinstance(stmt, ast.For) else set()
        reads = (header | _exposed_reads(stmt.body, targets) | self.live_after[-1]
                 | ({breaks} if breaks else set()) | flags)
        assigned = _assigned(stmt.body)
        if index is not None and index[0] not in assigned:
            # (a range loop's name keeps its last value after the loop, as Python's does:
            # for i in range(n): ... break; return i)
            assigned.insert(0, index[0])
        in_loop = header | _exposed_reads(stmt.body, targets) | ({breaks} if breaks else set())
        # labels = None, then labels = ... in every iteration, read after the loop: defined in
        # the loop (below), None only where it ran zero times, which raises (``_raise_unless_ran``)
        nones = {n for n in assigned if n in self.env and is_none(self.env[n])
                 and n not in in_loop}
        carried = [n for n in assigned if n in self.env and not isinstance(self.env[n], Undefined)
                   and n in reads and n not in nones]
        kinds = dict(kinds or {})
        for name in carried:
            start = self.env[name]
            if name not in kinds and isinstance(start, Value) and self.b.branched and \
                    start in self.b.branched:
                # (of several kinds before the loop: carried so from the first emission on,
                # so that the body sees them)
                kinds[name] = (self.b.branched[start][1], dtype_of(start) if is_tensor(start)
                               else scalar_rank(start))
        starts = {name: self.env[name] for name in kinds}   # (before the kinded start)
        kind_starts = []
        for name, (found, holder) in kinds.items():
            self.at(stmt)
            start = self.env[name]
            if _is_placeholder(start):
                # (a placeholder, read only where the loop assigned it: of the holder's type)
                kind_starts.append(self.b.value(0))
                self.env[name] = self._placeholder(
                    TensorType(ScalarType.from_dtype(holder), ()) if isinstance(holder, np.dtype)
                    else {0: BOOL, 1: INT, 2: FLOAT}[holder])
                continue
            kind_starts.append(self.b.value(self._kind_index(start, found)))
            start = self._held(start, holder, name)
            if isinstance(holder, np.dtype):
                start = copy(self.b, start)     # (fresh: never a constant's memory)
            self.env[name] = start
        initial = [self.env[n] for n in carried]
        init_values = [v for n, item in zip(carried, initial) for v in self.flatten(item, n)]
        node = self.b.create(prim.Loop, [self.b.value(trip), cond, *init_values, *kind_starts],
                             0)
        body = node.add_block()
        counter = body.add_input(type=INT)
        before = self.env
        self.env = dict(before)
        block_inputs = iter([body.add_input(type=v.type) for v in init_values])
        kind_inputs = [body.add_input(type=INT) for _ in kinds]
        strong = self.b.numpy_scalars
        for v0, block_input in zip(init_values, body.inputs[1:]):
            if v0 in strong:   # (a NumPy scalar carried: one in every iteration)
                strong[block_input] = strong[v0]
            if v0 in self.b.zero_d_arrays:  # (a 0-d array carried: a -= 1 writes it)
                self.b.zero_d_arrays.add(block_input)
            if v0 in self.b.mixed_dtypes:   # (an array of one of several dtypes carried)
                self.b.mixed_dtypes[block_input] = self.b.mixed_dtypes[v0]
        for name, item in zip(carried, initial):
            self.env[name] = self._named(self.unflatten(item, block_inputs), name)
        for (name, (found, _)), kind_input in zip(kinds.items(), kind_inputs):
            strong.pop(self.env[name], None)    # (of one kind or another in each iteration)
            self.b.branched[self.env[name]] = (kind_input, found)
        with self.b.graph.inserting_before(body):
            self._bind_index(body, counter, index)
            self.live_after.append(self.live_after[-1] | reads)
            self.loop_depth += 1
            try:
                self.emit_statements(stmt.body)
            finally:
                self.live_after.pop()
                self.loop_depth -= 1
            if isinstance(stmt, ast.While):
                next_cond = self.condition(stmt.test)
            elif breaks is not None:
                next_cond = self.condition(not_flag(breaks, stmt))
            else:
                next_cond = cond
            self.at(stmt)
            body.register_output(next_cond)
            kinds_after = self._kinds_to_carry(stmt, kinds, carried, initial, self.env)
            kind_outputs = []
            if kinds_after is None:
                for name, (found, holder) in kinds.items():
                    kind_outputs.append(self.b.value(self._kind_index(self.env[name], found)))
                    self.env[name] = self._held(self.env[name], holder, name)
            body_values = [v for n in carried for v in self.flatten(self.env[n], n)]
        body_env, self.env = self.env, before
        self.env.update(starts)     # (a loop emitted again starts from them)
        if kinds_after is not None:
            # a number whose kind an iteration decides (k = k * 2 if x[i] > 0 else k + 0.5:
            # an int while every step doubles it), or a kind not yet among those carried:
            # carried with the index of its kind, from the kinds found so far
            node.destroy()
            return self.emit_loop(stmt, trip, cond, index, breaks, peeled, kinds_after)
        defined_in_body = [n for n in assigned if n not in carried and n in body_env
                           and n in self.live_after[-1] and isinstance(body_env[n], Value)
                           and (not isinstance(self.env.get(n, Undefined("")), Value)
                                or n in nones)]
        if defined_in_body:
            # labels = ... in the loop, read after it: defined before it as uninitialised
            # (prim::Uninitialized, as TorchScript does) and checked to have run once.
            node.destroy()
            self.at(stmt)
            for name in defined_in_body:
                self.env[name] = self._placeholder(body_env[name].type)
            self.emit_loop(stmt, trip, cond, index, breaks, kinds=kinds)
            # (a returned value is read only where the loop returned: it ran)
            named = [n for n in defined_in_body if not n.startswith("$value")]
            if named:
                self._raise_unless_ran(stmt, trip, cond, named, nones)
            return None
        # A number whose type the body changes starts the loop as the type it has after the
        # body, and the loop is emitted again; where the loop may run zero times, NumPy's
        # number then keeps its type from before it (``_kinds_where_it_ran_none``).
        # (a number carried with its kind is of several types from the first iteration on)
        unkinded = [n for n in carried if n not in kinds]
        initial = [self.env[n] for n in unkinded]
        wider = self._numbers_that_widened(unkinded, initial, body_env)
        if wider:
            # x = 1; x = x - f(x) / g(x): the number is a float from the first iteration on
            # (Numba unifies the types the same way)
            node.destroy()
            was = {name: self.env[name] for name in wider}
            for name, rank in wider.items():
                self.at(stmt)
                if not self._retyped_placeholder(name, body_env[name].type):
                    self.env[name] = widen(self.b, self.env[name], rank)
            self.emit_loop(stmt, trip, cond, index, breaks, kinds=kinds)
            return self._kinds_where_it_ran_none(stmt, trip, cond, was)
        stronger = self._numbers_that_became_numpy_scalars(unkinded, initial, body_env)
        if stronger:
            # s = 0; s = s + np.float32(x): a float32 NumPy scalar from the first iteration
            # on (strong beside arrays)
            node.destroy()
            was = {name: self.env[name] for name in stronger}
            for name, dtype in stronger.items():
                self.at(stmt)
                if self._retyped_placeholder(name, body_env[name].type):
                    self.b.numpy_scalars[self.env[name]] = dtype
                else:
                    self.env[name] = numpy_scalar(self.b, self.env[name], dtype, shared=True)
            self.emit_loop(stmt, trip, cond, index, breaks, kinds=kinds)
            return self._kinds_where_it_ran_none(stmt, trip, cond, was)
        promoted = self._scalars_that_became_arrays(unkinded, initial, body_env)
        grown = {name: ("a number", f"a {dtype} array") for name, dtype in promoted.items()
                 if body_env[name].type.rank != 0 and not _is_placeholder(self.env[name])}
        if grown and peeled < _MOST_PEELED:
            # acc = 0; acc = acc + x * i: an array from the first iteration on, of the array's
            # rank (a 0-d start merged with it had no rank, and later ops took it as a
            # number: float32 + int32 arrays gave float32): the first iteration on its own
            node.destroy()
            return self._peeled(stmt, trip, cond, index, breaks, peeled, grown, reads, kinds)
        if promoted:
            # s = 0.0; s += x[i]: NumPy makes s a float64 scalar (here a 0-d array) in the
            # first iteration
            node.destroy()
            was = {name: self.env[name] for name in promoted}
            for name, dtype in promoted.items():
                self.at(stmt)
                if self._retyped_placeholder(name, body_env[name].type):
                    continue
                start = cast(self.b, as_tensor(self.b, self.env[name], name), dtype, name)
                self.env[name] = copy(self.b, start)  # fresh: never a constant's memory
            self.emit_loop(stmt, trip, cond, index, breaks, kinds=kinds)
            return self._kinds_where_it_ran_none(stmt, trip, cond, was)
        mixing = self._dtypes_that_mix(unkinded, initial, body_env)
        if mixing:
            # while True: ...; if t > 2: break; a = (b > b) * 2: an array whose dtype after a
            # step depends on the branch taken is one of several in every step, and after the
            # loop (ops on it compute in the dtype all give, or are refused)
            node.destroy()
            for name, dtypes in mixing.items():
                self.b.mixed_dtypes[self.env[name]] = dtypes
            return self.emit_loop(stmt, trip, cond, index, breaks, peeled, kinds)
        changed = self._dtypes_that_changed(unkinded, initial, body_env)
        if changed:
            # x = x.astype(np.uint8) + 200 on a float32 x: each iteration computes in the
            # dtypes its start holds, as NumPy does, so the first one is emitted on its own
            # and the loop goes on from the second (until the dtypes hold still)
            node.destroy()
            return self._peeled(stmt, trip, cond, index, breaks, peeled, changed, reads, kinds)
        for v0, block_input, v1 in zip(init_values, body.inputs[1:], body_values):
            rank0, rank1 = scalar_rank(v0), scalar_rank(v1)
            if rank0 is not None and rank1 is not None and rank1 < rank0:
                with self.b.graph.inserting_before(body):  # x = 0.0; x = i: as a float
                    v1 = self.b.value(widen(self.b, v1, rank0))
            body.register_output(v1)
            joined = self.join_types(v0, v1, "a loop-carried variable's values before and in "
                                              "the loop")
            block_input.set_type(joined)
            node.add_output(joined)
            if block_input in strong:
                strong[node.outputs[-1]] = strong[block_input]
            if block_input in self.b.zero_d_arrays:
                self.b.zero_d_arrays.add(node.outputs[-1])
            if block_input in self.b.mixed_dtypes:
                self.b.mixed_dtypes[node.outputs[-1]] = self.b.mixed_dtypes[block_input]
        outputs = iter(node.outputs)
        for name in carried:
            self.env[name] = self._named(self.unflatten(before[name], outputs), name)
        for (name, (found, _)), kind_output in zip(kinds.items(), kind_outputs):
            body.register_output(kind_output)
            self.b.branched[self.env[name]] = (node.add_output(INT), found)
        reason = f"it is assigned inside the loop at line {stmt.lineno + self.src.line_offset}"
        for name in assigned:
            if name not in carried and name in body_env:
                self.env[name] = Undefined(reason + " and not defined before it")

    def _assignment_flags(self, stmt) -> set[str]:
        """Names the loop ``stmt`` assigns, read after it and not defined before it, whose
        assignment a ``break``/``continue`` test or an ``if`` may skip (``for ...: if c:
        continue; t = ...``, then ``return t``): each gets a flag, False before the loop and
        set True after each assignment of the name (``set_flag``, added to the body once), so
        that an if assigning it in one branch only gives a placeholder in the other
        (``StatementEmitter.stmt_If``) and a read where no assignment ran raises Python's
        UnboundLocalError (``ExpressionEmitter.eval_Name``). The flags' names."""
        every_step = set(_assigned([t for x in stmt.body if isinstance(x, ast.Assign)
                                    for t in x.targets]))   # (each iteration assigns them)
        assigned = [n for n in _assigned(stmt.body) if not n.startswith("$")]
        names = [n for n in assigned if n in self.live_after[-1] and n not in every_step
                 and (n not in self.env or isinstance(self.env[n], Undefined)
                      or _is_placeholder(self.env[n]))]
        if names and not hasattr(stmt, "_fusejit_flagged"):
            # (once: a name defined before the loop in another scripting of this body, where
            # a test decided while scripting defines it, sets a flag nothing reads)
            stmt.body = _flag_assignments(stmt.body, set(assigned))
            stmt._fusejit_flagged = True
        flags = {assigned_flag(n) for n in names}
        for flag in flags:
            if flag not in self.env or isinstance(self.env[flag], Undefined):
                self.env[flag] = False
        return flags

    def _kinds_to_carry(self, stmt, kinds: dict, carried: list[str], initial: list,
                        body_env: dict) -> dict | None:
        """The carried numbers of the loop ``stmt`` (jit's NumPy rules only) whose kind the
        iterations that ran decide: those of several kinds before it, or after its body (a
        branch of it, or an inner loop, decided), and those of ``kinds`` (carried so, its
        kinds before the body): {name: (the kinds it may have, in an order kept from each
        emission to the next; the rank of the number type holding them)}. None where that is
        ``kinds``: the loop as emitted carries them."""
        b = self.b
        if b.branched is None:
            return None
        found = {}
        for name, start in zip(carried, initial):
            after = body_env.get(name)
            several = name in kinds or any(isinstance(v, Value) and v in b.branched
                                           for v in (start, after))
            if not several:
                continue
            # (a start carried with its kind is held as the kinds' holder: its kinds are
            # those carried)
            was = () if name in kinds else scalar_kinds(b, start)
            now = scalar_kinds(b, after)
            if was is None or now is None or not isinstance(after, Value):
                if name not in kinds:
                    continue    # (an array after its body, or before it: not a number's kind)
                self.at(stmt)
                raise self.b.error(f"{name!r} is a number of several kinds in the loop at line "
                                   f"{stmt.lineno + self.src.line_offset} and an array after "
                                   f"its body; make it one type before the loop")
            old, holder = kinds.get(name, ((), 0))
            merged = tuple({kind_key(k): k for k in (*old, *was, *now)}.values())
            if isinstance(holder, np.dtype) or is_tensor(start) or is_tensor(after):
                # (a NumPy scalar held as a 0-d array: one of a dtype that holds each kind's
                # numbers exactly, as an if's merge makes it)
                holder = holding_dtype(merged)
            else:
                holder = max(holder, scalar_rank(b.value(start)), scalar_rank(after))
            found[name] = (merged, holder)
        return None if found == kinds else found

    def _held(self, item: Item, holder: int | np.dtype, name: str) -> Value:
        """A number of several kinds (``_kinds_to_carry``) as the value that holds it in the
        loop: a number of the type of rank ``holder``, or a 0-d array of dtype ``holder``."""
        value = self.b.value(item)
        if isinstance(holder, np.dtype):
            return cast(self.b, value, holder, name) if is_tensor(value) else \
                as_tensor(self.b, value, name, holder)
        return value if scalar_rank(value) == holder else self.b.value(
            widen(self.b, value, holder))

    def _kind_index(self, item: Item, kinds: tuple) -> Item:
        """The index among ``kinds`` of the kind ``item`` has (``scalar_kinds``): a number, or
        a value where the branch that ran decides it (``IRBuilder.branched``)."""
        b = self.b
        keys = [kind_key(k) for k in kinds]
        positions = [keys.index(kind_key(k)) for k in scalar_kinds(b, item)]
        if len(set(positions)) == 1:
            return positions[0]
        index = b.branched[item][0]
        if positions == list(range(len(positions))):
            return index
        out: Item = 0
        for j, position in enumerate(positions):
            if position:
                picked = to_int(b, binary(b, "eq", index, j))
                out = binary(b, "add", out, binary(b, "mul", picked, position))
        return out

    def _dtypes_that_mix(self, carried: list[str], initial: list, body_env: dict) -> dict:
        """Carried arrays of a known dtype (or several) before the loop whose value after its
        body is one of several by the branch taken (``b.mixed_dtypes``) not all among them:
        {name: every dtype it may have}."""
        mixed, found = self.b.mixed_dtypes, {}
        for name, before in zip(carried, initial):
            after = body_env.get(name)
            if not (is_tensor(before) and is_tensor(after)) or after not in mixed:
                continue
            was = mixed.get(before) or {dtype_of(before)}
            if None in was or mixed[after] <= was:
                continue
            found[name] = was | mixed[after]
        return found

    def _dtypes_that_changed(self, carried: list[str], initial: list, body_env: dict) -> dict:
        """Carried names whose array dtype, or NumPy scalar dtype, differs between the value
        before the loop and the value after its body: {name: (before, after)}."""
        strong = self.b.numpy_scalars
        found = {}
        for name, before in zip(carried, initial):
            after = body_env.get(name)
            if not (isinstance(before, Value) and isinstance(after, Value)):
                continue
            if is_tensor(before) and is_tensor(after):
                was, now = dtype_of(before), dtype_of(after)
                if was is not None and now is not None and was != now:
                    found[name] = (was, now)
            elif before in strong and after in strong and strong[before] != strong[after]:
                found[name] = (strong[before], strong[after])
        return found

    def _peeled(self, stmt, trip: Item, cond: Value, index: tuple | None, breaks: str | None,
                peeled: int, changed: dict, reads: set[str], kinds: dict) -> None:
        """The loop's first iteration emitted before it, then the loop from its second: a
        variable whose dtype the body changes (``changed``) then has one dtype in the loop,
        the one NumPy's iterations give it. The loop must run: where it may run zero times
        (a trip count known at run time), a call on which it does raises a ValueError saying
        why, rather than going on with the variable's dtype from before it."""
        line = stmt.lineno + self.src.line_offset
        listed = ", ".join(f"{n!r} ({a} before it, {b} after its body)"
                           for n, (a, b) in changed.items())
        if peeled >= _MOST_PEELED:
            self.at(stmt)
            raise self.b.error(f"the loop at line {line} changes the dtype of {listed} in "
                               f"each of its first {_MOST_PEELED + 1} iterations; fusejit "
                               f"gives a loop's variables one dtype from some iteration on: "
                               f"convert them before the loop (x = x.astype(...))")
        self.at(stmt)
        steps = self.b.static(trip)
        if isinstance(steps, int) and not isinstance(steps, bool) and steps <= 0:
            return None     # (range(0), or the iterations left after those peeled: none)
        if not self._surely_runs(trip, cond):
            self._raise_if_it_ran_none(trip, cond, f"ValueError: the loop at line {line} ran "
                                       f"zero times; fusejit types {listed} as its iterations "
                                       f"make them, and does not go on with the dtypes from "
                                       f"before it (convert them before the loop)")
        if index is not None:
            name, start, step = index
            self.env[name] = start
        self.live_after.append(self.live_after[-1] | reads)
        try:
            self.emit_statements(stmt.body)
        finally:
            self.live_after.pop()
        self.at(stmt)
        if isinstance(stmt, ast.While):
            cond = self.condition(stmt.test)
        elif breaks is not None:
            cond = self.condition(not_flag(breaks, stmt))
        if index is not None:
            trip = binary(self.b, "sub", trip, 1)
            index = (name, binary(self.b, "add", start, step), step)
        return self.emit_loop(stmt, trip, cond, index, breaks, peeled + 1, kinds)

    def _raise_unless_ran(self, stmt, trip: Item, cond: Value, names: list[str],
                          nones: set[str] = frozenset()) -> None:
        """An error at run time when a loop that defines ``names`` ran zero times (Python's
        UnboundLocalError, here a JITException with the loop's line). Those of ``nones`` were
        None before the loop: Python would go on with None, which fusejit does not hold where
        the loop gives an array, so it says so."""
        self.at(stmt)
        line = stmt.lineno + self.src.line_offset
        unbound = [n for n in names if n not in nones]
        if unbound:
            listed = ", ".join(repr(n) for n in unbound)
            message = f"UnboundLocalError: {listed} is assigned only inside the loop at " \
                      f"line {line}, which ran zero times"
        else:
            listed = ", ".join(repr(n) for n in names)
            message = f"ValueError: {listed} is None before the loop at line {line}, which " \
                      f"ran zero times; fusejit holds {listed} as what the loop assigns and " \
                      f"does not go on with None (assign a value of that type before the loop)"
        self._raise_if_it_ran_none(trip, cond, message)

    def _retyped_placeholder(self, name: str, type_) -> bool:
        """Where ``name`` is defined only in the loop (its value before it a placeholder,
        ``prim::Uninitialized``, read only where the loop ran: ``_raise_unless_ran``): a new
        placeholder of ``type_`` for it, and True; there is nothing to convert (converting
        one ran ``int(None)``). Else False."""
        if not _is_placeholder(self.env[name]):
            return False
        self.env[name] = self._placeholder(type_)
        return True

    def _placeholder(self, type_) -> Value:
        """A value of ``type_`` defined only where it is assigned (``prim::Uninitialized``,
        TorchScript's)."""
        placeholder = self.b.create(prim.Uninitialized, [])
        return placeholder.output().set_type(type_)

    def _kinds_where_it_ran_none(self, stmt, trip: Item, cond: Value, was: dict) -> None:
        """After a loop whose body changes the type of numbers (``was``: their values before
        it), emitted with them in their types after the body: where it may run zero times, a
        number read after it has its kind from before the loop where it ran none (an int 0
        after zero runs of ``t = t + 0.5``), as NumPy's keeps it (``IRBuilder.branched``).
        One that the body makes an array (``t = 0``; ``t = t + x``) cannot be both: a call on
        which the loop runs zero times raises a ValueError saying so."""
        b = self.b
        if b.branched is None or self._surely_runs(trip, cond):
            return None
        line = stmt.lineno + self.src.line_offset
        ran = None
        for name, before in was.items():
            after = self.env.get(name)
            kinds, now = scalar_kinds(b, before), scalar_kinds(b, after)
            if name not in self.live_after[-1] or kinds is None or \
                    _is_placeholder(before):   # (read only where it ran)
                continue
            self.at(stmt)
            if now is None:
                self._raise_if_it_ran_none(trip, cond, f"ValueError: the loop at line {line} "
                                           f"ran zero times; {name!r} is a number before it "
                                           f"and an array after its body, and fusejit does "
                                           f"not go on with the number (start it as an "
                                           f"array: np.zeros_like(...))")
                continue
            if {kind_key(k) for k in now} == {kind_key(k) for k in kinds}:
                continue
            if ran is None:
                ran = b.emit("aten::Int", [self._it_ran(trip, cond)], "loop")
            # (the index of its kind: after's where it ran, past them before's where not)
            index_now = b.branched[after][0] if after in b.branched else 0
            index_was = len(now)
            if isinstance(before, Value) and before in b.branched:
                index_was = binary(b, "add", b.branched[before][0], len(now))
            index = binary(b, "add", index_was, binary(b, "mul", ran, binary(
                b, "sub", index_now, index_was)))
            b.branched[after] = (b.value(index), (*now, *kinds))
        return None

    def _raise_if_it_ran_none(self, trip: Item, cond: Value, message: str) -> None:
        """``message`` raised at run time where a loop of ``trip`` steps, first tested with
        ``cond``, runs zero times."""
        self.b.raise_unless(self._it_ran(trip, cond), message)

    def _it_ran(self, trip: Item, cond: Value) -> Value:
        """Whether a loop of ``trip`` steps, first tested with ``cond``, runs (a bool when it
        runs)."""
        return self.b.emit("aten::__and__", [cond, binary(self.b, "gt", trip, 0)], "loop")

    def _surely_runs(self, trip: Item, cond: Value) -> bool:
        """Does a loop of ``trip`` steps, first tested with ``cond``, run, as far as both are
        known while scripting (a constant positive trip count, a true condition)?"""
        steps = self.b.static(trip)
        return self.b.static(cond) is True and isinstance(steps, int) and \
            not isinstance(steps, bool) and steps > 0

    @staticmethod
    def _numbers_that_widened(carried: list[str], initial: list, body_env: dict) -> dict:
        """Carried names holding a number before the loop and a wider one (bool < int <
        float) after its body, with the wider type's rank."""
        wider = {}
        for name, before in zip(carried, initial):
            after = body_env.get(name)
            if isinstance(before, Value) and isinstance(after, Value):
                rank0, rank1 = scalar_rank(before), scalar_rank(after)
                if rank0 is not None and rank1 is not None and rank1 > rank0:
                    wider[name] = rank1
        return wider

    def _numbers_that_became_numpy_scalars(self, carried: list[str], initial: list,
                                           body_env: dict) -> dict:
        """Carried names holding a number before the loop (a Python number, or a NumPy
        scalar of a narrower dtype) and a NumPy scalar after its body, with its dtype."""
        strong = self.b.numpy_scalars
        found = {}
        for name, before in zip(carried, initial):
            after = body_env.get(name)
            if not isinstance(after, Value) or after not in strong \
                    or scalar_type_of(before) is None:
                continue
            was = strong.get(before) if isinstance(before, Value) else None
            if was is None or (was != strong[after]
                               and np.promote_types(was, strong[after]) == strong[after]):
                found[name] = strong[after]
        return found

    @staticmethod
    def _scalars_that_became_arrays(carried: list[str], initial: list, body_env: dict) -> dict:
        """Carried names holding a number before the loop and an array of known dtype after
        its body (``y = 0.0; for c in p: y = y * x + c``), with that dtype."""
        promoted = {}
        for name, before in zip(carried, initial):
            after = body_env.get(name)
            if isinstance(before, Value) and scalar_type_of(before) is not None \
                    and isinstance(after, Value) and dtype_of(after) is not None \
                    and after.type.rank is not None:
                promoted[name] = dtype_of(after)
        return promoted

    def _lists_appended_in(self, body: list[ast.stmt]) -> None:
        """Python lists appended to inside a loop become IR lists (``aten::append``)."""
        for name in appended_names(body):
            items = self.env.get(name)
            if not isinstance(items, list):
                continue
            self.b.loc = None
            if items and all(isinstance(i, (tuple, list)) for i in items):
                # rows = [(0.0, 1)], then rows.append((t, n)) in the loop: a list of tuples
                listed = self.b.tensor_list([], name, allow_empty=True)
                for item in items:
                    append_to(self.b, listed, item)
                self._rebind_list(items, listed)
                continue
            kinds = {TENSOR if is_tensor(i) else scalar_type_of(i) for i in items}
            if len(kinds) > 1 or None in kinds:
                raise self.b.error(f"{name!r}: only a list of arrays, or of numbers of one "
                                   f"type, can be appended to in a loop")
            listed = self.b.tensor_list([as_tensor(self.b, i, name, LIST_NUMBER_DTYPES.get(
                scalar_type_of(i))) for i in items], name, allow_empty=True)
            if kinds:   # (what it holds: an empty list takes its first append's kind)
                self.b.list_items[listed] = kinds.pop()
            for item in items:
                if is_tensor(item):
                    note_scalar_item(self.b, listed, item)
                    note_item_type(self.b, listed, item)
            self._rebind_list(items, listed)

    def _rebind_list(self, old: list, new: Value) -> None:
        """Every name that holds the Python list ``old``, here and in the functions this one
        is inlined into, or holds it inside a list, tuple or dict, holds the IR list ``new``
        from now on: Python's names share one list (``b = a``, a helper's parameter)."""
        for emitter in (*getattr(self, "callers", ()), self):
            for name, item in list(emitter.env.items()):
                emitter.env[name] = _replaced(item, old, new)

    def _bind_index(self, body: Block, counter: Value, index: tuple | None) -> None:
        if index is None:
            return
        name, start, step = index
        value: Item = counter
        if self.b.static(step) != 1:
            value = binary(self.b, "mul", value, step)
        if self.b.static(start) != 0:
            value = binary(self.b, "add", value, start)
        value = self.b.value(value)
        if not value.has_debug_name():
            value.set_debug_name(name)
        self.env[name] = value

    @staticmethod
    def _named(item: Any, name: str) -> Any:
        if isinstance(item, Value):
            item.set_debug_name(name)
        return item


def _range_parts(bounds: list[Item]) -> tuple[Item, Item, Item]:
    if len(bounds) == 1:
        return 0, bounds[0], 1
    if len(bounds) == 2:
        return bounds[0], bounds[1], 1
    return bounds[0], bounds[1], bounds[2]


def _reads(stmts: list[ast.AST]) -> set[str]:
    names = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def _replaced(item: Any, old: list, new: Value, depth: int = 0) -> Any:
    """``item`` with the list ``old`` replaced by ``new`` wherever it holds it: lists and
    dicts changed in place (others may hold them too), tuples rebuilt."""
    if item is old:
        return new
    if depth > 16:
        return item
    if isinstance(item, list):
        item[:] = [_replaced(i, old, new, depth + 1) for i in item]
    elif isinstance(item, dict):
        for key, value in item.items():
            item[key] = _replaced(value, old, new, depth + 1)
    elif isinstance(item, tuple):
        parts = [_replaced(i, old, new, depth + 1) for i in item]
        if any(a is not b for a, b in zip(parts, item)):
            return rebuilt(item, parts)
    return item


def _exposed_reads(stmts: list[ast.stmt], defined: set[str]) -> set[str]:
    """The names ``stmts`` may read before assigning them (``defined``: assigned already):
    a plain assignment defines its names for the statements after it; a name assigned only
    inside an ``if`` or a loop is not surely defined after it."""
    defined = set(defined)
    exposed: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.While)):
            header = stmt.iter if isinstance(stmt, ast.For) else stmt.test
            inner = set(_assigned([stmt.target])) if isinstance(stmt, ast.For) else set()
            exposed |= _reads([header]) - defined
            exposed |= _exposed_reads(stmt.body, defined | inner)
            exposed |= _exposed_reads(stmt.orelse, defined)
        elif isinstance(stmt, ast.If):
            exposed |= _reads([stmt.test]) - defined
            exposed |= _exposed_reads(stmt.body, defined) | _exposed_reads(stmt.orelse, defined)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            exposed |= _reads([stmt.value, *targets]) - defined   # (x[i] = v reads x, i)
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
            defined |= {e.id for t in targets if isinstance(t, (ast.Tuple, ast.List))
                        for e in t.elts if isinstance(e, ast.Name)}
        else:
            exposed |= _reads([stmt]) - defined
    return exposed


def _is_placeholder(item: Item) -> bool:
    """Is ``item`` a placeholder (``prim::Uninitialized``) for a name defined in a loop?"""
    return isinstance(item, Value) and item.node.kind == prim.Uninitialized


def _flag_assignments(stmts: list[ast.stmt], names: set[str]) -> list[ast.stmt]:
    """``stmts`` with ``$assigned_n = True`` after each assignment of a name ``n`` of
    ``names``, in nested blocks too (not in nested functions)."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) and \
                    not isinstance(stmt, (ast.FunctionDef, ast.Lambda)):
                setattr(stmt, field, _flag_assignments(inner, names))
        out.append(stmt)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for name in dict.fromkeys(_assigned(targets)):
                if name in names:
                    out.append(set_flag(assigned_flag(name), True, stmt))
    return out


def _assigned(stmts: list[ast.stmt]) -> list[str]:
    names: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names[node.id] = None
    return list(names)


__all__ = ["INT64_MAX", "LoopStatements", "appended_names", "exit_kinds", "is_enumerate",
           "lower_exits", "name_node", "not_flag", "over_sequence", "set_flag"]
