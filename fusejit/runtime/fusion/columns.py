"""Python source for one column-reduction group: reductions over one axis ``d`` other than the
last (axis 0 of ``[m, cols]``: column statistics; the middle axis of ``[B, m, N]``), with their
pointwise producers and consumers.

``column_layout`` views the iteration shape as batches x ``m`` rows x columns: the columns are
the last dims, coalesced as far as every operand allows, the batches every other dim but ``d``
(none for 2-d). Each operand (inputs, then outputs) gets an offset per batch (``bases[k, b]``)
and a step per row and per column (``steps[k]``). The kernel cuts the columns of each batch
into blocks (a ``prange`` over batches x blocks in the parallel variant). Within a block it
makes one sweep down the rows per level of reductions, accumulating into one array per
reduction, a lane per column, so the inner loop along a row is unit-stride and vectorises
without reordering any sum; per-column values are arrays of the block's width. Standardising
columns, ``(x - x.mean(0)) / x.std(0)``::

    for t in prange(n_batch * n_blocks):
        b = t // n_blocks
        j0 = (t - b * n_blocks) * block
        n = min(block, cols - j0)
        acc_t0_sum = np.zeros(n)                        # sweep 1: the means
        for g in range(m // 4):                         # 4 rows a pass, in their order
            i = g * 4
            r0_0 = x0[bases[0, b] + steps[0, 0] * (i + 0) + j0 * steps[0, 1]:...]
            ...                                         # (r0_1 to r0_3)
            for c in range(n):
                s_acc_t0_sum = acc_t0_sum[c]
                s_acc_t0_sum += np.float64(r0_0[c])
                ...                                     # (rows 1 to 3)
                acc_t0_sum[c] = s_acc_t0_sum
        for i in range(m - m % 4, m): ...               # the rows left, one a pass
        ...                                             # sweep 2: squared deviations
        for i in range(m):                              # last sweep: the outputs
            e0 = ob0 + i * os0 + j0
            w0 = o0[e0:e0 + n]
            for c in range(n):
                w0[c] = ...

A call over at most ``SHORT_ROWS`` rows (``x.sum(axis=1)`` of 64 x 4 x 4000) gets a kernel made for
its row count (``_short_sweep``): each sweep is one loop over the block that reads every row,
keeps its accumulators in registers from their starting values, stores them once and makes
the per-column results in the same loop; the same values as the kernel for any row count.

Element expressions are the fused kernels' renderers, through ``rows._RowGenerator``; sums
accumulate in float64, max and min propagate NaN as NumPy does. Per-column outputs are
written through slices of the block as their values are made. A group whose inputs are
strided along the columns but not along the reduced axis (a Fortran-ordered array) runs the
row kernel instead, and a row group strided along its rows this one (``RowKernel``'s plans).
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import InterpreterError
from ...ir.symbols import prim
from .codegen import STRIDED, UNIT, ZERO
from .plan import _contiguous_strides
from .rowargs import ARG_KINDS, column_arg_starts, column_arg_updates
from .rowargs import _start as _arg_start
from .rows import (
    _NAMES,
    ELEMENT,
    VIEWS,
    Reduction,
    RowGenerator,
    _extremum_start,
    module_text,
    shared_with,
)
from .templates import kernel_decorator

# The most columns per block (the caller picks the width, see row_kernel.py): the
# accumulators (8 bytes a column each) stay in L1.
COLUMN_BLOCK = 1024
# The same for kernels made for at most ``SHORT_ROWS`` rows, whose accumulators are written and read
# once in one loop: at 1024 columns a block's set-up (its arrays and row slices) weighed on a
# block of so few rows. Maxima over 4 rows of 4 x 4 x 65536 float32, one thread: 0.67-0.91x
# NumPy at 1024 columns, 1.06-1.19x at 4096 and 16384 (one run each).
SHORT_BLOCK = 8192
# float32 sums add this many rows in float32 lanes, then into the float64 accumulators: a
# float64 add per element cost as much as reading the element (x - x.mean(0), 256 x 4096:
# 1.0x NumPy, which sums in float32 throughout).
ROWS_IN_FLOAT32 = 16
# Rows a sweep reads per pass over its block (a divisor of ROWS_IN_FLOAT32).
UNROLL = 4
# Calls over at most this many rows get a kernel made for their row count, whose sweeps read
# every row in one loop (``_short_sweep``; at most ROWS_IN_FLOAT32: one flush of the float32
# partial sums). Maxima over axis 0 of 8 x 16 x 64 x 64 float32 ran 0.73x NumPy with the
# general sweep (two passes of 4 rows over the accumulators).
SHORT_ROWS = 8
# From this many rows, the float maxima and minima of those kernels take a fast sweep and the
# exact one again over a block where a column held a NaN or its extremum is a zero. Over 2-4
# rows they ran as fast as the exact one alone, over 8 rows in 0.57-0.63 of its time (x.max(0)
# of 8 x 65536 in loops written by hand, one thread, float32 and float64; 5 rows: 0.90-0.97).
FAST_EXTREMA_ROWS = 5
# The names a sweep's loop body gives per row (operands, values, row slices, deviations).
_PER_ROW = re.compile(r"\b(?:[atr]\d+|dev_\w+)\b")
_ROW_INDEX = re.compile(r"\browi\b")


def column_block(lanes: int, batch: int, serial: bool, threads: int, short: int = 0) -> int:
    """Columns per block: wide blocks, as each row of a block is one short loop, whose
    overhead dominated at 64 columns (col std of 1024 x 1024 float32: 2.5 ms at 64, 1.6 at
    1024, NumPy 2.4); threads want a few pieces each, counting every batch's blocks. A kernel
    made for ``short`` rows (not 0) takes up to ``SHORT_BLOCK``."""
    want = lanes if serial else -(-lanes // max(1, -(-4 * threads // batch)))
    most = SHORT_BLOCK if short else COLUMN_BLOCK
    return min(most, max(64, -(-want // 64) * 64))


def column_layout(full: tuple, d: int, shapes: list, strides: list,
                  element_outputs: list[bool]) -> tuple:
    """(m, columns, batches, bases, steps, classes) of a column kernel reducing axis ``d`` of
    the iteration shape ``full``, for tensor inputs of these shapes and element strides, and
    outputs (contiguous; ``element_outputs``: of shape ``full``, else per-column). Declines
    (``InterpreterError``) when an output's columns are not unit-stride (the columns end at a
    dim of size 1 with ``d`` after them)."""
    rank = len(full)
    walks = []                            # each operand's strides over full, 0 where broadcast
    for shape, st in zip(shapes, strides):
        pad = rank - len(shape)
        walks.append([0] * pad + [s if size != 1 else 0 for size, s in zip(shape, st)])
    element, per_column = _contiguous_strides(full), _contiguous_strides(full[:d] + full[d + 1:])
    walks += [element if is_element else per_column[:d] + [0] + per_column[d:]
              for is_element in element_outputs]
    dims = [e for e in range(rank) if e != d and full[e] != 1]
    lane_dims = dims[-1:]
    # (a dim joins the columns while every operand steps over it as over one longer column)
    while len(lane_dims) < len(dims):
        e, f = dims[-len(lane_dims) - 1], lane_dims[0]
        if any(w[e] != w[f] * full[f] for w in walks):
            break
        lane_dims.insert(0, e)
    lanes = int(np.prod([full[e] for e in lane_dims], dtype=np.int64))
    lane_steps = [w[lane_dims[-1]] if lane_dims else 0 for w in walks]
    if lanes > 1 and any(s != 1 for s in lane_steps[len(shapes):]):
        raise InterpreterError(f"column kernel: the columns of {full} reduced along {d} are "
                               "not contiguous in the outputs")
    batch_dims = [e for e in dims if e not in lane_dims]
    bases = np.zeros((len(walks), 1), np.int64)
    if batch_dims:
        index = np.indices([full[e] for e in batch_dims], dtype=np.int64).reshape(
            len(batch_dims), -1)
        bases = np.array([np.asarray([w[e] for e in batch_dims], np.int64) @ index
                          for w in walks], np.int64)
    steps = np.array([[w[d], s] for w, s in zip(walks, lane_steps)], np.int64)
    classes = tuple(UNIT if lanes == 1 or s == 1 else ZERO if s == 0 else STRIDED
                    for s in lane_steps[:len(shapes)])
    return full[d], lanes, bases.shape[1], bases, steps, classes


class _ColumnGenerator(RowGenerator):
    WHAT = "column"

    def __init__(self, *args, rows: int = 0):
        super().__init__(*args)
        # a kernel for exactly this many rows (1 to ``SHORT_ROWS``; 0: any number), whose sweeps
        # take every row in one loop over the block (``_short_sweep``)
        self.short = rows

    def row_base(self, k: int, index: str) -> str:
        """Where row ``index`` of batch ``b`` of operand ``k`` starts (``column_layout``)."""
        return f"bases[{k}, b] + steps[{k}, 0] * {index}"

    def kernel_text(self, name: str, parallel: bool) -> list[str]:
        group = self.group
        n_tensors = len(group.tensor_index)
        args = (["m", "cols", "block", "n_blocks", "n_batch", "bases", "steps"]
                + [f"x{i}" for i in range(n_tensors)]
                + [f"s{i}" for i in range(len(group.scalar_index))]
                + [f"o{j}" for j in range(len(group.outputs))] + ["status"])
        loop = "prange" if parallel else "range"
        lines = [kernel_decorator(parallel),
                 f"def {name}({', '.join(args)}):",
                 f"    for t in {loop}(n_batch * n_blocks):",
                 "        b = t // n_blocks",
                 "        j0 = (t - b * n_blocks) * block",
                 "        n = min(block, cols - j0)"]
        lines += ["        " + line for line in self.directives()]
        lines += [f"        ob{j} = bases[{n_tensors + j}, b]" for j in range(len(group.outputs))]
        # per-column outputs are written through slices of the block's columns (an indexed
        # store ``o0[ob0 + j0 + c]`` may wrap around and did not vectorise: x.mean(axis=0) of
        # 16 x 256 x 256 float64 ran 7% slower), where their values are made
        self.slots: dict[str, list[int]] = {}
        for j, value in enumerate(group.outputs):
            if group.classes[value] != ELEMENT:
                lines.append(f"        w{j} = o{j}[ob{j} + j0:ob{j} + j0 + n]")
                self.slots.setdefault(self.values[value].expr, []).append(j)
        self.written: set[int] = set()
        body: list[str] = []
        # per-column values: their names in the loops, read from arrays col_tK
        self.columns: dict[str, str] = {}
        for level in range(1, group.passes):
            body += self._sweep([r for r in group.reductions if r.level == level])
            for node in group.graph.nodes():
                if node in self.code and group.classes[node.output()] != ELEMENT \
                        and group.levels[node.output()] == level:
                    body += self._per_column(node)
        element_outputs = [v for v in group.outputs if group.classes[v] == ELEMENT]
        if element_outputs:
            writes = [f"w{j}[c] = {self.values[v].expr}" for j, v in enumerate(group.outputs)
                      if v in element_outputs]
            outs = [line for j, v in enumerate(group.outputs) if v in element_outputs
                    for line in (f"e{j} = ob{j} + i * steps[{n_tensors + j}, 0] + j0",
                                 f"w{j} = o{j}[e{j}:e{j} + n]")]
            body += self._rows(self._closure(element_outputs), writes, outs)
        for j, value in enumerate(group.outputs):
            if group.classes[value] != ELEMENT and j not in self.written:
                column = self._column_array(self.values[value].expr)
                body += ["for c in range(n):", f"    w{j}[c] = {column}[c]"]
        return lines + ["        " + line for line in body]

    def _stores(self, name: str, node) -> tuple[list[str], str | None]:
        """Where the per-column value ``name`` (of ``node``) goes as it is made: the output
        slices returning it, and an array ``col_name`` when later code reads it (none when
        only returned: a copy of each column cost another pass over the block)."""
        slots = self.slots.get(name, [])
        self.written.update(slots)
        stores = [f"w{j}[c] = {name}" for j in slots]
        if slots and _only_returned(node.output()):
            return stores, None
        array = f"col_{name}"
        self.columns[name] = array
        return [f"{array}[c] = {name}"] + stores, array

    def _column_array(self, name: str) -> str:
        return self.columns.get(name, name)

    def _operands(self, index: str) -> tuple[dict[str, str], dict[str, str]]:
        """({operand name: its line once per row}, {name: its load line in a loop over the
        block's columns}) for row ``index`` of the tensor inputs, and the per-column values."""
        loads = {name: f"{name} = {array}[c]" for name, array in self.columns.items()}
        starts: dict[str, str] = {}
        for k in range(len(self.group.tensor_index)):
            base = f"{self.row_base(k, index)} + j0 * steps[{k}, 1]"
            if self.classes[k] == ZERO:
                starts[f"a{k}"] = f"a{k} = x{k}[{self.row_base(k, index)}]"
            else:
                step = "" if self.classes[k] == UNIT else f":steps[{k}, 1]"
                end = "n" if not step else f"(n - 1) * steps[{k}, 1] + 1"
                starts[f"a{k}"] = f"r{k} = x{k}[{base}:{base} + {end}{step}]"
                loads[f"a{k}"] = f"a{k} = r{k}[c]"
        return starts, loads

    def _rows(self, nodes: list, tail: list[str], before: list[str],
              after: tuple = ()) -> list[str]:
        """A sweep down the rows of the block computing ``nodes`` and then ``tail`` for each
        element; ``before`` runs once per row, ``after`` at its end."""
        starts, loads = self._operands("i")
        allocs, loops = self._loop(nodes, loads, tail)
        used = set(_NAMES.findall(" ".join(loops)))
        firsts = [line for name, line in starts.items() if name in used]
        return ["for i in range(m):"] + ["    " + line for line in
                                         before + firsts + allocs + loops + list(after)]

    def _sweep_rows(self, nodes: list, updates: list[str], accs: list[str],
                    flushes: list[str]) -> list[str]:
        """The rows of a sweep: ``UNROLL`` rows per pass over the block where its loop is one
        plain loop, each accumulator ``A`` read into ``s_A`` once per pass and updated row
        after row, in the rows' order (the same sums: x.sum(axis=0) of 16 x 256 x 256 float64
        read and wrote each accumulator once per row, 5% of its time); then the rows left.
        ``flushes``: the float32 partial sums' flush, every ``ROWS_IN_FLOAT32`` rows."""
        tail = [f"s_{a} = {a}[c]" for a in accs] + updates + [f"{a}[c] = s_{a}" for a in accs]

        def flush(last: str) -> tuple:
            if not flushes:
                return ()
            return (f"if ({last} + 1) % {ROWS_IN_FLOAT32} == 0 or {last} == m - 1:",
                    "    for c in range(n):", *["    " + f for f in flushes])

        single = self._rows(nodes, [_ROW_INDEX.sub("i", t) for t in tail], [], flush("i"))
        unrolled = self._unrolled(nodes, updates, UNROLL)
        if unrolled is None:
            return single         # (cut loops, buffers: one row at a time)
        heads, copies = unrolled
        passes = ([f"for g in range(m // {UNROLL}):", f"    i = g * {UNROLL}"]
                  + ["    " + line for line in heads] + ["    for c in range(n):"]
                  + [f"        s_{a} = {a}[c]" for a in accs] + ["    " + line for line in copies]
                  + [f"        {a}[c] = s_{a}" for a in accs]
                  + ["    " + line for line in flush(f"(i + {UNROLL - 1})")])
        return passes + [f"for i in range(m - m % {UNROLL}, m):"] + single[1:]

    def _unrolled(self, nodes: list, updates: list[str], rows: int,
                  first: dict[str, str] | None = None) -> tuple[list, list] | None:
        """(the row slices, the loop body) of ``rows`` rows from row ``i`` on, read in one
        loop over the block, each row's elements computed and ``updates`` applied in the
        rows' order; None where the sweep's loop is cut or has buffers (one row at a time
        then). ``first``: updates replaced in the first row."""
        _starts, loads = self._operands("i")
        allocs, loops = self._loop(nodes, loads, updates)
        if allocs or loops[0] != "for c in range(n):" or \
                any(not line.startswith("    ") for line in loops[1:]):
            return None
        used = set(_NAMES.findall(" ".join(loops)))
        heads, copies = [], []
        for u in range(rows):
            starts, _loads = self._operands(f"(i + {u})")
            heads += [_suffixed(line, u) for name, line in starts.items() if name in used]
            body = loops[1:] if u or not first else \
                ["    " + first.get(line[4:], line[4:]) for line in loops[1:]]
            copies += [_suffixed(line, u) for line in body]
        return heads, copies

    def _sweep(self, reductions: list[Reduction]) -> list[str]:
        lines = [f"# sweep: {', '.join(str(r.node.kind) for r in reductions)}"]
        updates, finals, flushes, accs = [], [], [], []
        aliases: dict[str, str] = {}        # (per accumulator taken from another, its line)
        # What a short sweep needs instead of the arrays and flushes: per accumulator the
        # literal it starts from; per float32 partial sum its float64 accumulator; per
        # allocation of an accumulator that accumulator and the line that leaves it unfilled
        # (None: never an array); per float max or min its update and that row's value, which
        # the update from the start, -inf or inf, gives to the bit in the first row, and
        # where it may take the fast pass its fast update and element value (``_redone``);
        # per reduction the accumulator it reads and its per-column results, read from the
        # accumulators' registers (``s_`` and their names).
        starts: dict[str, str] = {}
        parts: dict[str, str] = {}
        unfilled: dict[str, tuple[str, str] | None] = {}
        firsts: dict[str, tuple[str, str]] = {}
        fast: dict[str, tuple[str, str]] = {}
        in_registers: list[tuple[str, list[str]]] = []
        for r in reductions:
            dtype = np.dtype(self.dtypes[r.name]).name
            acc = f"acc_{r.name}_{r.kind}"
            source = self.values[r.source].expr
            first = shared_with(r, reductions)
            held = f"acc_{first.name}_{first.kind}"        # (the accumulator r reads)
            if first is not r and r.kind in ARG_KINDS:
                # (the row of the first: ``np.argmax(x, 0)`` beside its ``keepdims=True``)
                allocs, general, registers = self._index_results(r, f"{held}_at")
                lines += allocs
                finals += general
                in_registers.append((held, registers))
                continue
            if first is not r:
                aliases[acc] = f"{acc} = {held}"
            elif r.kind in ARG_KINDS:
                best, at = f"{acc}_best", f"{acc}_at"
                kind = np.dtype(self.values[r.source].dtype)
                allocs = column_arg_starts(r.kind, best, at, kind)
                lines += allocs
                starts[best], starts[at] = _arg_start(r.kind, kind), "np.int64(0)"
                unfilled[allocs[0]] = (best, f"{best} = np.empty(n, np.{kind.name})")
                unfilled[allocs[1]] = (at, f"{at} = np.empty(n, np.int64)")
                updates += column_arg_updates(r.kind, f"s_{best}", f"s_{at}", source,
                                              self.values[r.source].dtype.kind == "f")
                accs += [best, at]
                allocs, general, registers = self._index_results(r, at)
                lines += allocs
                finals += general
                in_registers.append((acc, registers))
                continue
            elif r.kind in ("max", "min"):
                fn = "rm.maximum" if r.kind == "max" else "rm.minimum"
                start = _extremum_start(r.kind, np.dtype(dtype))
                lines.append(f"{acc} = np.full(n, {start}, np.{dtype})")
                updates.append(f"s_{acc} = {fn}(s_{acc}, {source})")
                accs.append(acc)
                starts[acc] = start
                unfilled[lines[-1]] = (acc, f"{acc} = np.empty(n, np.{dtype})")
                if np.dtype(dtype).kind == "f" and self.values[r.source].dtype == np.dtype(dtype):
                    firsts[acc] = (updates[-1], f"s_{acc} = {source}")
                    if self.short >= FAST_EXTREMA_ROWS and self._redone(r):
                        fast[acc] = (f"s_{acc} = rm.{r.kind}num(s_{acc}, {source})", source)
            elif np.dtype(dtype).kind in "iu":
                # (a sum of integers or bools: NumPy's int64, exact, in int64 accumulators)
                lines.append(f"{acc} = np.zeros(n, np.int64)")
                unfilled[lines[-1]] = (acc, f"{acc} = np.empty(n, np.int64)")
                updates.append(f"s_{acc} += np.int64({source})")
                accs.append(acc)
                starts[acc] = "np.int64(0)"
            else:
                lines.append(f"{acc} = np.zeros(n, np.float64)")
                unfilled[lines[-1]] = (acc, f"{acc} = np.empty(n, np.float64)")
                value = f"np.{dtype}({source})"
                if r.kind == "sqdev":
                    # deviations from the mean in the input's float, as NumPy's var and the
                    # row kernels take them (in float64 the sweep ran at half the width)
                    mean = f"mean_{r.name}"
                    lines += [f"{mean} = np.empty(n, np.{dtype})", "for c in range(n):",
                              f"    {mean}[c] = np.{dtype}(acc_{r.mean.name}_sum[c] / m)"]
                    updates.append(f"dev_{r.name} = np.{dtype}({source} - {mean}[c])")
                    value = f"dev_{r.name} * dev_{r.name}"
                if dtype == "float32":
                    part = f"part_{r.name}_{r.kind}"
                    lines.append(f"{part} = np.zeros(n, np.float32)")
                    unfilled[lines[-1]] = None
                    updates.append(f"s_{part} += {value}")
                    accs.append(part)
                    flushes += [f"    {acc}[c] += np.float64({part}[c])",
                                f"    {part}[c] = np.float32(0.0)"]
                    starts[part], parts[part] = "np.float32(0.0)", acc
                else:
                    updates.append(f"s_{acc} += np.float64({value})")
                    accs.append(acc)
                    starts[acc] = "np.float64(0.0)"
            final = self._final(r, f"{acc}[c]", "m")
            if final:       # (none for the mean inside var and std)
                stores, array = self._stores(r.name, r.node)
                if array:
                    lines.append(f"{array} = np.empty(n, np.{dtype})")
                finals += ["for c in range(n):", f"    {final}"] + ["    " + t for t in stores]
                in_registers.append((held, [self._final(r, f"s_{held}", "m")] + stores))
        nodes = self._closure([r.source for r in reductions])
        if self.short:
            # the accumulators read after the sweep, which it stores: var's and std's sums
            # for the mean (``acc_`` of the mean's reduction, or what that one aliases)
            later = {s.mean for s in self.group.reductions if s.kind == "sqdev"}
            kept = {f"acc_{r.name}_{r.kind}" for r in reductions if r in later}
            stored = {f"acc_{shared_with(r, reductions).name}_{r.kind}"
                      for r in reductions if r in later}
            short = self._short_sweep(nodes, reductions, updates, accs, starts, parts,
                                      in_registers, firsts, fast, stored)
            if short is not None:
                # (what the sweep stores is written whole by it: no zeros to start from; the
                # rest, and the partial sums, live in registers)
                allocs = [line if line not in unfilled else
                          unfilled[line][1] if unfilled[line] and unfilled[line][0] in stored
                          else None for line in lines]
                return ([line for line in allocs if line is not None]
                        + [line for acc, line in aliases.items() if acc in kept] + short)
        lines += self._sweep_rows(nodes, updates, accs, flushes)
        return lines + list(aliases.values()) + finals

    def _index_results(self, r: Reduction, at: str) -> tuple[list[str], list[str], list[str]]:
        """For argmax (argmin) ``r``, whose rows the accumulator ``at`` holds: (the
        allocation of its per-column array, if later code reads one; its results after the
        general sweep; its results in a short sweep, from the register ``s_`` + ``at``)."""
        stores, array = self._stores(r.name, r.node)
        allocs = [f"{array} = np.empty(n, np.int64)"] if array else []
        return (allocs, ["for c in range(n):", f"    {r.name} = {at}[c]"]
                + ["    " + t for t in stores], [f"{r.name} = s_{at}"] + stores)

    def _short_sweep(self, nodes: list, reductions: list[Reduction], updates: list[str],
                     accs: list[str], starts: dict[str, str], parts: dict[str, str],
                     results: list[tuple[str, list[str]]], firsts: dict[str, tuple[str, str]],
                     fast: dict[str, tuple[str, str]], stored: set[str]) -> list[str] | None:
        """A sweep of a kernel for ``self.short`` rows (of the ``reductions``, whose elements
        ``nodes`` compute): one loop over the block's columns that reads every row, starts each
        accumulator in a register, computes the per-column
        ``results`` from the registers and stores only the accumulators in ``stored`` (read
        by a later sweep), all in the same loop (None where the sweep's loop is cut or has
        buffers: the general sweep then). Each column's values are those of the general
        sweep: the same updates in the rows' order from the same starts, a float32 partial
        sum flushed once into float64 zero (every row falls in one flush, ``ROWS_IN_FLOAT32``).

        Summing the 2 rows of 2 x 512000 float32 in loops written by hand, one thread: the
        general sweep's structure 417 us (NumPy 198 us in that run), with its partial sums in
        an array but no flush or zeroed arrays 190-205 us, this way 75-81 us (NumPy 152-159
        us): at few rows the accumulators' and partial sums' loads and stores, and the
        separate passes over the block, cost more than the rows. A store of an accumulator no
        later sweep reads cost a third: maxima of 4 x 2 x 131072 over axis 1 took 110 us with
        it and 76 us without (float32), 336 and 211 us (float64).

        The float maxima and minima in ``fast`` take ``rm.maxnum`` (``minnum``) and a sum of
        their elements down the column (NaN where one is); the block is swept again with
        ``rm.maximum`` for them where a column's sum is NaN or its extremum a zero (whose sign
        the fast one may lose). Maxima of 8 x 65536 by hand: 47-50 us with ``rm.maximum``,
        30 this way (float32; NumPy 56-62), 100-115 and 70 us (float64; NumPy 119-132); with
        ``rm.unordered`` for the NaN test instead of the sum, 38 and 89 us."""
        first = dict(firsts.values())
        exact = self._unrolled(nodes, updates, self.short, first)
        if exact is None:
            return None
        heads, copies = exact
        redo: list[str] = []
        if fast:
            # (per element value its sum down the column: NaN where one is, or where +inf
            # and -inf meet, which only costs the exact sweep)
            sums = {source: f"s_seen{k}" for k, source in
                    enumerate(dict.fromkeys(source for _, source in fast.values()))}
            tests = [f"{name} = {name} + {source}" for source, name in sums.items()]
            swap = {firsts[a][0]: fast[a][0] for a in fast}
            quick = [swap.get(line, line) for line in updates]
            first.update({fast[a][0]: firsts[a][1] for a in fast})
            first.update({f"{name} = {name} + {source}": f"{name} = {source}"
                          for source, name in sums.items()})
            heads, copies = self._unrolled(nodes, quick + tests, self.short, first)
            again = self._unrolled(self._closure([r.source for r in reductions
                                                  if f"acc_{r.name}_{r.kind}" in fast]),
                                   [firsts[a][0] for a in fast], self.short,
                                   {firsts[a][0]: firsts[a][1] for a in fast})
            odd = [f"({name} != {name})" for name in sums.values()] + \
                [f"(s_{a} == 0.0)" for a in fast]
            copies += [f"    redo = redo | {' | '.join(odd)}"]
            redo = (["if redo:", "    for c in range(n):"]
                    + ["    " + line for line in again[1]]
                    + ["        " + line for held, lines in results if held in fast
                       for line in lines])
        stores = []
        for a in accs:
            if a in parts:
                stores.append(f"    s_{parts[a]} = np.float64(0.0) + np.float64(s_{a})")
                a = parts[a]
            if a in stored:
                stores.append(f"    {a}[c] = s_{a}")
        return (["i = 0"] + (["redo = False"] if fast else []) + heads + ["for c in range(n):"]
                + [f"    s_{a} = {starts[a]}" for a in accs if a not in firsts]
                + copies + stores
                + ["    " + line for _, lines in results for line in lines] + redo)

    def _per_column(self, node) -> list[str]:
        """A pointwise node on per-column values: one loop over the block's columns."""
        name = self.values[node.output()].expr
        loads = {k: f"{k} = {v}[c]" for k, v in self.columns.items()}
        stores, array = self._stores(name, node)
        allocs, loops = self._loop([node], loads, stores)
        dtype = np.dtype(self.dtypes[name]).name
        return ([f"{array} = np.empty(n, np.{dtype})"] if array else []) + allocs + loops


def _suffixed(line: str, u: int) -> str:
    """``line`` of row ``u`` of an unrolled sweep: its per-row names made its own, and the
    row's index (``rowi``: argmax's) its own."""
    return _ROW_INDEX.sub(f"(i + {u})", _PER_ROW.sub(lambda m: f"{m.group(0)}_{u}", line))


def _only_returned(value) -> bool:
    """Is ``value`` (or a view of it) read by nothing in its group but the group's return?"""
    for use in value.uses:
        user = use.user
        if user.kind != prim.Return and not (user.kind in VIEWS and
                                             _only_returned(user.output())):
            return False
    return True


def generate_columns(group, specs, classes, precise: bool = False, linear: bool = False,
                     rows: int = 0, long_rows: bool = False):
    """The column kernel module's source and the outputs' dtypes (see ``rows.generate_rows``);
    ``rows``: a kernel for exactly that many rows, 1 to ``SHORT_ROWS`` (0: for any number)."""
    return module_text(_ColumnGenerator(group, specs, classes, precise, linear, rows=rows),
                       "column-reduction", long_rows)
