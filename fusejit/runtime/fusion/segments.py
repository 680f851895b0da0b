"""Reductions over any set of axes (``x.sum(axis=(0, 2))``, ``x.std(axis=(0, 2))``): the
plan that picks their traversal from the strides, and the *segmented* row kernel.

A column group whose reductions reduce a set ``R`` of axes (``reduction_fusion.several_axes``)
computes one value per index of the kept axes ``K``. ``axes_layout`` looks at the strides:

- size-1 axes are dropped, and reduced axes that every operand steps over as over one longer
  axis are merged (``(0, 1)`` of a C-ordered ``[B, M, N]`` is one axis of ``B * M``);
- where ``R`` merges into one axis and the first input's smallest step is along a kept axis,
  the group runs the column kernel (``columns.py``) on that geometry (down the merged axis,
  vectorised across the contiguous kept ones);
- else the reduced axis with the first input's smallest step is the *run* (``n`` elements at
  one step, merged with the reduced axes that continue it), the other reduced axes are
  *segments* (a table ``segs`` of offsets per operand), the kept axes are *rows* (a table
  ``bases``). Each pass walks the segments outermost and the rows (in chunks) within them,
  in memory order, reading each run as a row kernel reads a row (vectorised blocks) into the
  row's accumulators, kept in arrays over the rows between visits::

    all_acc_t0_sum = np.full(rows, 0.0)                # pass: aten::sum
    for k in prange(n_chunks):                          # (chunks of the rows)
        for sg in range(n_seg):                         # (memory order: segments outermost)
            for row in range(lo, hi):
                acc_t0_sum = all_acc_t0_sum[row]
                b0 = bases[0, row] + segs[0, sg]
                r0 = x0[b0:b0 + n]
                for blk in range(...): ...              # (rows.py's pass over a row)
                all_acc_t0_sum[row] = acc_t0_sum
    for k in prange(n_chunks):
        for row in range(lo, hi):
            acc_t0_sum = all_acc_t0_sum[row]
            t0 = np.float32(acc_t0_sum)
            o0[row] = t0

``x.sum(axis=(0, 2))`` of a C-ordered 16 x 256 x 256 array: 256 rows of 16 runs of 256
contiguous elements. Only per-row outputs (element outputs decline: the group is interpreted).
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import InterpreterError
from .codegen import STRIDED, UNIT, ZERO
from .rows import ELEMENT, RowGenerator, module_text
from .templates import kernel_decorator

_COUNT = re.compile(r"\bn\b")


def _walks(full: tuple, shapes: list, strides: list) -> list[list[int]]:
    """Each input's element steps over ``full`` (0 where it broadcasts)."""
    rank = len(full)
    walks = []
    for shape, st in zip(shapes, strides):
        if np.broadcast_shapes(tuple(shape), full) != full:
            raise InterpreterError(f"reduction kernel: input of shape {shape} does not "
                                   f"broadcast to {full}")
        pad = rank - len(shape)
        walks.append([0] * pad + [s if size != 1 else 0 for size, s in zip(shape, st)])
    return walks


def _offsets(walks: list, full: tuple, dims: list[int]) -> np.ndarray:
    """Per operand, the offset of every index of ``dims`` (C order): shape (operands, count)."""
    if not dims:
        return np.zeros((len(walks), 1), np.int64)
    index = np.indices([full[e] for e in dims], dtype=np.int64).reshape(len(dims), -1)
    return np.array([np.asarray([w[e] for e in dims], np.int64) @ index for w in walks],
                    np.int64).reshape(len(walks), -1)


def axes_layout(full: tuple, reduced: tuple, shapes: list, strides: list):
    """How to reduce the axes ``reduced`` of the iteration shape ``full`` for inputs of these
    shapes and element strides: ``("columns", full, d, shapes, strides)``, a geometry for the
    column kernel (the reduced axes merged into axis ``d``), or ``("segments", n, rows,
    n_seg, bases, segs, steps, classes)``."""
    walks = _walks(full, shapes, strides)
    red = [e for e in reduced if full[e] != 1]
    kept = [e for e in range(len(full)) if e not in reduced and full[e] != 1]
    first = walks[0] if walks else [0] * len(full)

    def step(e: int) -> int:
        return abs(first[e]) if first[e] else 1 << 62     # (broadcast axes last)

    red.sort(key=step)
    run = red[:1]           # the run: innermost first, merged with the axes continuing it
    length = full[run[0]] if run else 1
    for e in red[1:]:
        if all(w[e] == w[run[0]] * length for w in walks):
            run.append(e)
            length *= full[e]
    others = [e for e in red if e not in run]
    if not others and kept and step(min(kept, key=step)) < step(run[0]):
        # one reduced axis, the smallest step along a kept one: down the columns
        shapes_v = [(length,) + tuple(full[e] for e in kept)] * len(walks)
        strides_v = [(w[run[0]],) + tuple(w[e] for e in kept) for w in walks]
        return ("columns", shapes_v[0] if walks else (length,), 0, shapes_v, strides_v)
    steps = np.array([w[run[0]] if run else 0 for w in walks], np.int64)
    classes = tuple(UNIT if length == 1 or s == 1 else ZERO if s == 0 else STRIDED
                    for s in steps)
    bases = _offsets(walks, full, kept)
    segs = _offsets(walks, full, sorted(others))
    return ("segments", length, bases.shape[1], segs.shape[1], bases, segs, steps, classes)


def per_row_only(group) -> None:
    """Decline (``InterpreterError``) a group the segmented and column kernels cannot run:
    an element output, or a softmax."""
    if any(group.classes[v] == ELEMENT for v in group.outputs) or \
            any(r.kind == "sumexp" for r in group.reductions):
        raise InterpreterError("reduction kernel over several axes: only per-row outputs")


class _SegmentGenerator(RowGenerator):
    """The row kernels' passes (``rows.RowGenerator._pass``) over segmented rows, in memory
    order: each pass visits the segments outermost and a chunk of rows within each, so that
    consecutive runs are read one after the other (row by row, 16 segments 512 KiB apart made
    16 streams: x.sum(axis=(0, 2)) of 16 x 256 x 256 float64 took 250-280 us that way, 160 us
    in memory order, NumPy 270-315). The accumulators of a row live in arrays over the rows
    between its visits; its per-row values are made from them where a later pass or the
    outputs read them."""

    WHAT = "segmented row"
    CHUNKS = 64         # pieces of the rows the parallel variant's threads share

    def kernel_text(self, name: str, parallel: bool) -> list[str]:
        group = self.group
        n_tensors = len(group.tensor_index)
        args = (["n", "rows", "n_seg", "bases", "segs", "steps"]
                + [f"x{i}" for i in range(n_tensors)]
                + [f"s{i}" for i in range(len(group.scalar_index))]
                + [f"o{j}" for j in range(len(group.outputs))] + ["status"])
        heads: list[str] = []       # where each input's run starts, per segment
        loads: dict[str, str] = {}
        for k in range(n_tensors):
            heads.append(f"b{k} = bases[{k}, row] + segs[{k}, sg]")
            if self.classes[k] == ZERO:
                heads.append(f"a{k} = x{k}[b{k}]")
            elif self.classes[k] == UNIT:
                heads.append(f"r{k} = x{k}[b{k}:b{k} + n]")
                loads[f"a{k}"] = f"a{k} = r{k}[c]"
            else:
                heads.append(f"r{k} = x{k}[b{k}:b{k} + (n - 1) * steps[{k}] + 1:steps[{k}]]")
                loads[f"a{k}"] = f"a{k} = r{k}[c]"
        per = f"max(1, (rows + {self.CHUNKS - 1}) // {self.CHUNKS})" if parallel else "rows"
        loop = "prange" if parallel else "range"
        top = ["total = n * n_seg", f"per = {per}", "n_chunks = (rows + per - 1) // per"]
        chunk = ([f"for k in {loop}(n_chunks):"] + ["    " + line for line in self.directives()]
                 + ["    lo = k * per", "    hi = min(lo + per, rows)"])
        row_nodes = [n for n in group.graph.nodes()
                     if n in self.code and group.classes[n.output()] != ELEMENT]
        restore: list[str] = []     # a row's per-row values of the passes made so far
        body: list[str] = []
        for level in range(1, group.passes):
            lines = self._pass([r for r in group.reductions if r.level == level], loads, [])
            starts, before, loop_lines, after = _split_pass(lines)
            top += [f"all_{acc} = np.full(rows, {value})" for acc, value in starts]
            visit = (restore + [f"{acc} = all_{acc}[row]" for acc, _ in starts] + before
                     + heads + loop_lines + [f"all_{acc}[row] = {acc}" for acc, _ in starts])
            body += chunk + ["    for sg in range(n_seg):", "        for row in range(lo, hi):"]
            body += ["            " + line for line in visit]
            restore = restore + [f"{acc} = all_{acc}[row]" for acc, _ in starts] + after
            for node in row_nodes:
                if group.levels[node.output()] == level:
                    restore += self._scalar_lines(node)
        outs = [f"o{j}[row] = {self.values[v].expr}" for j, v in enumerate(group.outputs)]
        body += chunk + ["    for row in range(lo, hi):"]
        body += ["        " + line for line in restore + outs]
        return ([kernel_decorator(parallel),
                 f"def {name}({', '.join(args)}):"]
                + ["    " + line for line in top + body])


_START = re.compile(r"^(acc_\w+) = (.+)$")


def _split_pass(lines: list[str]) -> tuple[list, list[str], list[str], list[str]]:
    """A pass of ``RowGenerator._pass`` as (its accumulators and their starts, the lines
    before its loop over the row's blocks, that loop, its per-row results); the lines before
    and after count ``total`` elements (the pass's ``n``, the length of one run here)."""
    first = next(i for i, line in enumerate(lines) if line.startswith("for blk in range("))
    end = first + 1
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    starts, before = [], []
    for line in lines[:first]:
        found = _START.match(line)
        if found:
            starts.append((found.group(1), found.group(2)))
        else:
            before.append(_COUNT.sub("total", line))
    return starts, before, lines[first:end], [_COUNT.sub("total", line) for line in lines[end:]]


def generate_segments(group, specs, classes, precise: bool = False, linear: bool = False,
                      long_rows: bool = False):
    """The segmented row kernel module's source and the outputs' dtypes (see
    ``rows.generate_rows``)."""
    return module_text(_SegmentGenerator(group, specs, classes, precise, linear),
                       "segmented row-reduction", long_rows)


__all__ = ["axes_layout", "generate_segments", "per_row_only"]
