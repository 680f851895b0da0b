"""``RowKernel``: a row-reduction group (``passes/reduction_fusion.py``) compiled to native code.

::

    kernel = RowKernel(graph.find(prim.RowReductionGroup))
    (y,) = kernel(x)                       # softmax of each row of x, one pass per level
    print(kernel.source(x))                # the generated module (``rows.py``)

A call computes the shape of every value of the group from the inputs' shapes, checks them
against the classes the pass decided from ranks (element values have the shape ``S`` the
reductions read, per-row values ``S[:-1] + (1,)``, or ``S[:-1]`` without keepdim), and
declines with ``InterpreterError`` (the executor then interprets the group, with the ops'
own bodies) where they differ, where a row or the rows are empty (NumPy's errors and
warnings for those come from the interpreted ops), and where an input is an array kernels do
not read. Plans (per-row offsets of every input) are memoised by shapes and strides; kernel
variants by dtypes, step classes and traversal, compiled through the on-disk cache like fused
kernels. The traversal follows the strides: a group whose outputs are all per-row runs the
other kernel (``columns.py`` for a row group, ``rows.py`` for a column group) where its
inputs are strided along the axis its own kernel walks and unit-stride along the other; a
column group over a set of axes runs the column kernel or the segmented row kernel
(``segments.py``), as the strides say.
As ``FusedKernel`` does, a call whose signature (thread count; each array's dtype, shape and
strides; each number's type) passed every check before goes straight to the compiled code's
entry point with the plan and variant its first call found (``compiler._Call``); other
inputs keep the full checks and their errors.
The CUDA executor does not run the pass: reductions on the GPU stay unfused.
"""

from __future__ import annotations

import numpy as np

from ...errors import InterpreterError
from ...ir.constants import constant_value
from ...ir.graph import Graph, Node
from ...ir.symbols import aten, prim
from ...ir.types import TensorType
from ...oplib.table import REUSES
from ...passes.reduction_fusion import _FLOATS, _dtype_name
from ..forks import serial_only
from . import plan as plans
from .cache import load_module
from .codegen import STRIDED, UNIT, ZERO, ArgSpec
from .columns import SHORT_ROWS, column_block, column_layout, generate_columns
from .compiler import _NO_STATUS, FusedKernel, _Call, _Declined, _reshape, _Variant
from .outputs import take_all
from .plan import KernelDeclined
from .rows import (
    ELEMENT,
    FLAT,
    KEEPDIM_AT,
    NESTED,
    ROW,
    VIEWS,
    WIDE_ROW,
    RowGroup,
    generate_rows,
)
from .segments import axes_layout, generate_segments, per_row_only
from .templates import DTYPE_ONLY

_PLAN_LIMIT = 256
# Inputs a row kernel writes its output into, where its group may (``RowKernel.reuses``),
# are at least this big: below, a new array costs no page faults, and the output loop keeps
# its vector form.
REUSE_MIN_BYTES = 1 << 22
# Rows shorter than this run the column kernel (one lane a row) where it can: a row kernel
# pays ~20 ns a row around its loops. 4M float32 in rows of n, (x * w).sum(-1), one thread,
# ms row/column kernel: n = 2: 51/9.3, 4: 32/9.0, 8: 20/8.5, 16: 9.8/9.4, 32: 6.3/8.4;
# x.std(-1): n = 4: 39/20, 8: 18/13, 16: 12/16 (NumPy 52, 30, 21, 14; 82, 53, 33).
_SHORT_ROW = 16
# A single row this long or longer may run on several threads, its blocks shared among them
# (``_RowPlan.split``); the work rules of ``plan.py`` decide whether a call does.
SPLIT_MIN = 1 << 14
# Estimated ns of one core per element and pass (a load, a few ops, an accumulation).
_COST_PER_PASS = 1.0


def _big_enough(x) -> bool:
    return type(x) is np.ndarray and x.nbytes >= REUSE_MIN_BYTES


class _RowPlan:
    __slots__ = ("n", "rows", "bases", "steps", "classes", "out_shapes", "serial", "linear",
                 "block", "work", "threads", "free_block", "batch", "columns", "short",
                 "split", "per_row", "_heads")

    def __init__(self, n, rows, bases, steps, classes, out_shapes, serial, linear, block=0,
                 work=0.0, threads=1, free_block=None, batch=1, columns=False, short=0,
                 split=False, per_row=frozenset()):
        self.linear = linear
        # element outputs (positions) of a row's shape, written once a row
        # (``rows.RowGenerator.per_row``)
        self.per_row = per_row
        # a row kernel for one long row: its parallel kernel shares the row's blocks among
        # the threads (``rows.RowGenerator.split``), where that of many rows shares the rows
        self.split = split
        # the traversal: a column kernel's (sweeps down the rows of blocks of columns), else
        # a row kernel's (``RowKernel._make_plan`` picks it by the inputs' strides)
        self.columns = columns
        # column kernels over at most ``columns.SHORT_ROWS`` rows: that count, for a kernel made
        # for it (one loop over a block per sweep, ``columns._short_sweep``); else 0
        self.short = short
        # column kernels: columns per block, and the batches (positions of the dims that are
        # neither the reduced one nor the columns)
        self.block = block
        self.batch = batch
        self.work = work
        self.threads = threads
        # (the block of a parallel call by the free-core rule, None where that rule makes the
        # busy rule's choice: plan.Plan)
        self.free_block = free_block
        self.n = n
        self.rows = rows
        self.bases = bases
        self.steps = steps
        self.classes = classes
        self.out_shapes = out_shapes
        self.serial = serial     # (by the busy rule)
        self._heads: dict[int, tuple] = {}

    @property
    def long_rows(self) -> bool:
        """Are the kernel's vectorised loops (rows; a column kernel's columns, a segment
        kernel's runs) ``WIDE_ROW`` elements or longer (``rows.module_text``)?"""
        return self.n >= WIDE_ROW

    def launch(self) -> tuple[bool, int]:
        """(run the serial kernel?, columns per block) for a call now (``plan.Plan.launch``)."""
        if self.free_block is not None and plans.parallel_now(self.work, self.threads):
            return False, self.free_block
        return plans.threads_here(self.serial or serial_only()), self.block

    def launches(self) -> set[bool]:
        """``plan.Plan.launches``."""
        return plans.launches(self.serial, self.free_block)

    def head(self, block: int) -> tuple:
        """The kernel's arguments before the data, for a call with ``block`` columns per block
        (0: a row kernel's call): the sizes, ``bases`` and ``steps``."""
        head = self._heads.get(block)
        if head is None:
            if block == 0:          # (row kernels: elements per row, rows)
                sizes: tuple = (self.n, self.rows)
            else:   # rows to reduce over, columns, columns per block, blocks, batches
                sizes = (self.rows, self.n, block, -(-self.n // block), self.batch)
            head = self._heads[block] = (*sizes, self.bases, self.steps)
        return head


class _SegmentPlan(_RowPlan):
    """A segmented row kernel's plan (``segments.py``): rows of ``n_seg`` runs of ``n``."""

    __slots__ = ("n_seg", "segs")

    def __init__(self, n_seg, segs, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.n_seg = n_seg
        self.segs = segs
        self.columns = "segments"       # (the variant's key, and the generator)

    def head(self, block: int) -> tuple:
        head = self._heads.get(0)
        if head is None:
            head = self._heads[0] = (self.n, self.rows, self.n_seg, self.bases, self.segs,
                                     self.steps)
        return head


def _view_shape(node: Node, shape: tuple) -> tuple:
    """The shape of a per-row view (``rows.VIEWS``: unsqueeze, reshape to [-1, 1] or [1, -1],
    select of index 0 or -1) of a value of ``shape``."""
    args = [constant_value(v.node) for v in node.inputs[1:]]
    if node.kind == aten.reshape:
        size = int(np.prod(shape, dtype=np.int64))
        return tuple(size if d == -1 else d for d in args[0])
    dim = args[0]
    if node.kind == aten.unsqueeze:
        dim = dim % (len(shape) + 1)
        return shape[:dim] + (1,) + shape[dim:]
    dim = dim % len(shape)
    if shape[dim] != 1:
        raise KernelDeclined(f"row kernel: select along an axis of size {shape[dim]}")
    return shape[:dim] + shape[dim + 1:]


def _row_split(full: tuple, along: list[int], walks: list) -> tuple[int | None, int]:
    """How the row kernel walks rows over the axes ``along`` of ``full`` (size-1 axes left
    out) for inputs stepping ``walks`` over them: ``(None, 0)`` where every input walks each
    row at one step; else ``(axis, n_in)``, rows as runs of ``n_in`` elements each input
    walks at one step (the axes after ``axis``), the runs at one step too (``axis`` and the
    axes before it): an input broadcast along one of them (``m[:, None]`` or a ``(1, n)``
    against ``(n, 3)`` in a sum of every axis) is read by runs (``rows.NESTED``). Declines
    (``InterpreterError``) rows that take more levels than two."""
    cuts = [e for e, f in zip(along, along[1:])
            if any(w[e] != w[f] * full[f] for w in walks)]
    if not cuts:
        return None, 0
    if len(cuts) > 1:
        raise KernelDeclined(f"row kernel: rows over axes {along} of {full} that inputs "
                             "walk in more than two levels")
    inner = along[along.index(cuts[0]) + 1:]
    return cuts[0], int(np.prod([full[e] for e in inner], dtype=np.int64))


def _moved_last(full: tuple, d: int, shapes: list, strides: list) -> tuple:
    """(``full``, input shapes, input strides) with axis ``d`` moved last: a reduction of it
    as a row reduction of the moved arrays (inputs padded to the rank of ``full``)."""
    rank = len(full)
    order = [e for e in range(rank) if e != d] + [d]
    moved_shapes, moved_strides = [], []
    for shape, st in zip(shapes, strides):
        pad = rank - len(shape)
        shape, st = (1,) * pad + tuple(shape), (0,) * pad + tuple(st)
        moved_shapes.append(tuple(shape[e] for e in order))
        moved_strides.append(tuple(st[e] for e in order))
    return tuple(full[e] for e in order), moved_shapes, moved_strides


class RowKernel:
    """One row-reduction group, compiled per input signature; ``kernel(*inputs) -> tuple``."""

    xp = np
    # FusedKernel's argument checks and 1-d windows (they read ``layout.input_kinds``, ``xp``),
    # its remembered calls and the first call of a signature (``_prepare``, ``_variant``,
    # ``_calls``), and its dispatch through Numba that keeps the compiled entry point.
    _specs = FusedKernel._specs
    _flatten = FusedKernel._flatten
    _first_call = FusedKernel._first_call
    _remember = FusedKernel._remember
    _call_and_data = FusedKernel._call_and_data
    _dispatch = FusedKernel._dispatch
    _run = FusedKernel._run
    _recording = None
    uncompiled = FusedKernel.uncompiled
    _WHAT = "a row kernel"

    def __init__(self, group: Node | Graph, *, precise: bool = False, axis: str = "row"):
        # (the input an element output may be written into: ``passes/reused_temporaries.py``)
        self.reuses: int | None = None
        if isinstance(group, Node):
            axis = "column" if group.kind == prim.ColumnReductionGroup else "row"
            if axis == "row" and group.has_attribute(REUSES):
                self.reuses = group.i(REUSES)
            group = group.g("Subgraph")
        self.group = RowGroup(group, axis)
        self.layout = self.group          # (what FusedKernel's argument checks read)
        self.precise = precise
        self._variants: dict[tuple, _Variant] = {}
        self._plans: dict[tuple, _RowPlan] = {}
        # What a call of each signature needs beyond its data (``__call__``'s key), made by
        # the first call of that signature after every check.
        self._calls: dict[tuple, _Call | _Declined] = {}

    def _prepare(self, inputs: tuple):
        specs, flats, scalars, shapes, strides = self._flatten(inputs)
        key = (tuple(shapes), tuple(strides), plans.num_threads())
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLAN_LIMIT:
                self._plans.clear()
            plan = self._plans[key] = self._make_plan(specs, shapes, strides)
        return specs, flats, scalars, plan, (tuple(s.key() for s in specs), plan.classes,
                                             plan.linear, plan.columns, plan.short,
                                             plan.split, plan.per_row, plan.long_rows)

    def _make_plan(self, specs: list[ArgSpec], shapes: list, strides: list) -> _RowPlan:
        group = self.group
        graph = group.graph
        shape_of: dict = {}
        for pos, value in enumerate(graph.inputs):
            if pos in group.tensor_index:
                shape_of[value] = tuple(shapes[group.tensor_index[pos]])
        for node in graph.nodes():
            if node.kind == prim.Constant:
                continue
            if node.kind in KEEPDIM_AT:
                shape = shape_of[node.input(0)]
                shape_of[node.output()] = self._reduced(shape, group.keepdim[node])
                continue
            if node.kind in VIEWS:
                shape_of[node.output()] = _view_shape(node, shape_of[node.input(0)])
                continue
            # (type_as's ``other`` gives a dtype only: it takes no part in the shape; an input
            # read only so then does not broadcast to the rows either, and the plan declines)
            skip = DTYPE_ONLY.get(node.kind, ())
            ins = [shape_of.get(v, ()) for i, v in enumerate(node.inputs)
                   if isinstance(v.type, TensorType) and i not in skip]
            try:
                shape_of[node.output()] = tuple(np.broadcast_shapes(*ins))
            except ValueError:
                raise KernelDeclined(f"row kernel: {node.kind} inputs of shapes {ins} do "
                                     f"not broadcast") from None
        sources = group.sources
        full = shape_of[sources[0]]
        for source in sources:
            if shape_of[source] != full:
                raise KernelDeclined(f"row kernel: reductions of shapes {full} and "
                                     f"{shape_of[source]}")
        if 0 in full or not full:
            raise KernelDeclined("row kernel: an empty row or no rows")
        want = {ELEMENT: full, ROW: self._reduced(full, True), FLAT: self._reduced(full, False)}
        out_shapes = []
        # Element outputs of a row's shape (``np.where(too_low, mid, lo)`` of ``(rows, 1)``
        # values) are written once a row by the row traversal (``RowGenerator.per_row``).
        per_row = []
        for j, value in enumerate(group.outputs):
            shape = shape_of[value]
            if shape != want[group.classes[value]]:
                if group.classes[value] != ELEMENT or shape != want[ROW] or \
                        group.axis != "row" or isinstance(group.dim, tuple):
                    raise KernelDeclined(f"row kernel: output of shape {shape} in a group "
                                         f"over rows of {full}")
                per_row.append(j)
            out_shapes.append(shape)
        rank = len(full)
        if isinstance(group.dim, tuple):
            return self._axes_plan(full, shapes, strides, out_shapes, group.dim)
        if group.axis == "column":
            plan = self._column_plan(full, shapes, strides, out_shapes, group.dim)
            if STRIDED in plan.classes and self._turns():
                # the row traversal of the reduced axis moved last
                turned = self._row_plan(*_moved_last(full, group.dim, shapes, strides),
                                        out_shapes, rank - 1)
                plan = plan if STRIDED in turned.classes else turned
            return plan
        start = self._start(full)
        plan = self._row_plan(full, shapes, strides, out_shapes, start, frozenset(per_row))
        if per_row:
            return plan
        # (sums of floats only: column kernels do not sum integers exactly, and decline them)
        short = plan.n < _SHORT_ROW and all(
            _dtype_name(r.source) in _FLOATS for r in self.group.reductions if r.kind == "sum")
        if (short or STRIDED in plan.classes) and start == rank - 1 and rank > 1 and \
                self._turns():
            try:
                turned = self._column_plan(full, shapes, strides, out_shapes, start)
            except InterpreterError:      # (outputs whose columns are not unit-stride)
                return plan
            plan = plan if STRIDED in turned.classes and not short else turned
        return plan

    def _turns(self) -> bool:
        """May this group run with the other traversal (rows of a column group, columns of a
        row group) where its inputs are strided along the one it has and unit-stride along
        the other (``x.std(axis=0)`` of a Fortran-ordered or transposed array: 0.24x NumPy,
        each element a cache line)? Only where every output is per-row (the other traversal
        would write element outputs across their rows) and no softmax (column kernels have
        none)."""
        group = self.group
        return all(group.classes[v] != ELEMENT for v in group.outputs) and \
            all(r.kind != "sumexp" for r in group.reductions)

    def _row_plan(self, full: tuple, shapes: list, strides: list, out_shapes: list,
                  start: int, per_row: frozenset[int] = frozenset()) -> _RowPlan:
        """The plan of a row kernel over rows of ``full[start:]``, writing the element
        outputs at the positions ``per_row`` once a row."""
        group = self.group
        rank = len(full)
        outer = full[:start]
        n = int(np.prod(full[start:], dtype=np.int64))
        rows = int(np.prod(outer, dtype=np.int64)) if outer else 1
        along = [e for e in range(start, rank) if full[e] != 1]    # (the row's own dims)
        walks = []
        for shape, st in zip(shapes, strides):
            if np.broadcast_shapes(shape, full) != full:
                raise KernelDeclined(f"row kernel: input of shape {shape} does not "
                                     f"broadcast to {full}")
            pad = rank - len(shape)
            walks.append([0] * pad + [s if size != 1 else 0 for size, s in zip(shape, st)])
        inner, n_in = _row_split(full, along, walks)
        # (per input its step along the row, then between the runs of a nested row; n_in)
        steps = np.zeros(2 * len(shapes) + 1, np.int64)
        steps[-1] = n_in
        classes, outer_strides = [], []
        for k, walk in enumerate(walks):
            outer_strides.append(walk[:start])
            steps[k] = walk[along[-1]] if along else 0
            if inner is not None:       # (the step between the row's runs of ``n_in``)
                steps[len(shapes) + k] = walk[inner]
                if walk[inner] != steps[k] * n_in:
                    classes.append(NESTED)
                    continue
            classes.append(UNIT if n == 1 or steps[k] == 1 else
                           ZERO if steps[k] == 0 else STRIDED)
        if NESTED in classes and any(group.classes[v] == ELEMENT and j not in per_row
                                     for j, v in enumerate(group.outputs)):
            raise KernelDeclined(f"row kernel: element outputs over rows of {full[start:]} "
                                 "that an input does not walk at one step")
        # Rows at one step in every input (contiguous, broadcast, sliced rows) need no table.
        linear = all(st[d] == st[d + 1] * outer[d + 1]
                     for st in outer_strides for d in range(len(outer) - 1))
        if linear:
            bases = np.array([[st[-1] if st else 0] for st in outer_strides], np.int64)
        else:
            index = np.indices(outer, dtype=np.int64).reshape(len(outer), -1)
            bases = np.array([np.asarray(st, np.int64) @ index for st in outer_strides])
        work = rows * n * group.passes * _COST_PER_PASS
        threads = plans.num_threads()
        # (one row: in parallel only by its blocks, where the group's kernel can share them)
        split = rows == 1 and n >= SPLIT_MIN and group.splits(classes)
        serial = threads == 1 or work < plans.SERIAL_WORK_NS or (rows == 1 and not split)
        free_block = 0 if plans.wants_free_split(serial, threads, work) and \
            (rows > 1 or split) else None
        return _RowPlan(n, rows, bases.reshape(len(shapes), -1), steps, tuple(classes),
                        out_shapes, serial, linear, 0, work, threads, free_block,
                        columns=False, split=split, per_row=per_row)

    def _axes_plan(self, full: tuple, shapes: list, strides: list, out_shapes: list,
                   dims: tuple) -> _RowPlan:
        """The plan of a group reducing the axes ``dims`` (``segments.axes_layout``): the
        column kernel's, or the segmented row kernel's."""
        per_row_only(self.group)
        layout = axes_layout(full, dims, shapes, strides)
        if layout[0] == "columns":
            _kind, merged, d, shapes_v, strides_v = layout
            return self._column_plan(merged, shapes_v, strides_v, out_shapes, d)
        n, rows, n_seg, bases, segs, steps, classes = layout[1:]
        work = rows * n * n_seg * self.group.passes * _COST_PER_PASS
        threads = plans.num_threads()
        serial = threads == 1 or work < plans.SERIAL_WORK_NS or rows == 1
        free_block = 0 if plans.wants_free_split(serial, threads, work) and rows > 1 else None
        return _SegmentPlan(n_seg, segs, n, rows, bases, steps, classes, out_shapes, serial,
                            False, 0, work, threads, free_block)

    def _start(self, shape: tuple) -> int:
        """The first axis the group reduces in values of ``shape`` (its only one in a column
        group; rows are the axes from it on)."""
        dim = self.group.dim
        if dim is None:
            return len(shape) - 1
        if dim >= len(shape):
            raise KernelDeclined(f"row kernel: axis {dim} of a value of shape {shape}")
        return dim

    def _reduced(self, shape: tuple, keep: bool) -> tuple:
        """The shape of a reduction of a value of ``shape``."""
        dims = self.group.dim
        if isinstance(dims, tuple):         # (a column group's set of axes)
            if dims[-1] >= len(shape):
                raise KernelDeclined(f"row kernel: axes {dims} of a value of shape {shape}")
            return tuple(1 if e in dims else s for e, s in enumerate(shape) if keep or
                         e not in dims)
        start = self._start(shape)
        if self.group.axis == "row":
            return shape[:start] + (1,) * (len(shape) - start) * keep
        return shape[:start] + (1,) * keep + shape[start + 1:]

    def _column_plan(self, full: tuple, shapes: list, strides: list, out_shapes: list,
                     dim: int) -> _RowPlan:
        """The plan of a column kernel reducing axis ``dim`` (``columns.column_layout``): its
        threads share blocks of columns of every batch."""
        layout = column_layout(full, dim, shapes, strides,
                               [self.group.classes[v] == ELEMENT for v in self.group.outputs])
        m, lanes, batch, bases, steps, classes = layout
        work = m * lanes * batch * self.group.passes * _COST_PER_PASS
        threads = plans.num_threads()
        serial = threads == 1 or work < plans.SERIAL_WORK_NS
        short = m if m <= SHORT_ROWS else 0
        block = column_block(lanes, batch, serial, threads, short)
        serial = serial or (batch == 1 and block >= lanes)
        free_block = None
        if plans.wants_free_split(serial, threads, work):
            free_block = column_block(lanes, batch, False, threads, short)
            if batch == 1 and free_block >= lanes:
                free_block = None
        return _RowPlan(lanes, m, bases, steps, classes, out_shapes, serial, True, block, work,
                        threads, free_block, batch, columns=True, short=short)

    def _variant(self, specs: list[ArgSpec], plan: _RowPlan, key: tuple) -> _Variant:
        variant = self._variants.get(key)
        if variant is None:
            source, out_dtypes = self._generate(specs, plan)
            variant = self._variants[key] = _Variant(source, load_module(source), out_dtypes)
        return variant

    def source(self, *inputs) -> str:
        """The generated module's text for inputs like these."""
        specs, _flats, _scalars, plan, _key = self._prepare(inputs)
        return self._generate(specs, plan)[0]

    def _generate(self, specs: list[ArgSpec], plan: _RowPlan) -> tuple[str, list]:
        if plan.columns == "segments":
            return generate_segments(self.group, specs, list(plan.classes), self.precise,
                                     plan.linear, plan.long_rows)
        if plan.columns:
            return generate_columns(self.group, specs, list(plan.classes), self.precise,
                                    plan.linear, rows=plan.short, long_rows=plan.long_rows)
        return generate_rows(self.group, specs, list(plan.classes), self.precise, plan.linear,
                             plan.split, plan.per_row, plan.long_rows)

    def __call__(self, *inputs) -> tuple[np.ndarray, ...]:
        quick = self._quick
        reused = self.reuses is not None and _big_enough(inputs[self.reuses])
        if quick is not None and not reused:
            outs = quick(inputs)
            if outs is not None:
                return outs
        call, data = self._call_and_data(inputs)
        if reused:
            outs = self._into_input(call, inputs)
        elif call.single is not None:
            outs: tuple = (np.empty(*call.single),)
        else:
            outs = tuple(map(take_all if call.pooled else np.empty, call.out_shapes,
                             call.out_dtypes))
        variant = call.variant
        status = np.zeros(1, np.int64) if variant.guarded else _NO_STATUS
        plan = call.plan
        serial, block = plan.launch()
        flats = outs if call.flat_outs is None else map(_reshape, outs, call.flat_outs)
        self._run(call, serial, (*plan.head(block), *data, *flats, status))
        if call.quick is None:
            self._make_quick(call, inputs)
        return outs

    def _into_input(self, call: _Call, inputs: tuple) -> tuple:
        """The outputs of a call whose group may write an element output into its dead input
        ``reuses`` (a big array: ``_big_enough``): that input for the first such output of
        its shape and dtype, where it is a plain writeable C-contiguous array sharing no
        memory with another input; new arrays for the others. The output pass reads each
        element before it writes it (the group has no per-row views and no running sums), as
        NumPy's ``X -= avg[:, None]`` does: at 2 x 10^6 float64, ``np.cov`` made one 16 MB
        array fewer a call, and glibc no longer gave the freed pair back to be faulted in."""
        target = inputs[self.reuses]
        at = None
        if not call.variant.guarded and target.flags.c_contiguous and \
                target.flags.writeable and not any(
                    i != self.reuses and type(x) is np.ndarray and
                    np.may_share_memory(target, x) for i, x in enumerate(inputs)):
            at = next((j for j, value in enumerate(self.group.outputs)
                       if self.group.classes[value] == ELEMENT and
                       call.out_shapes[j] == target.shape and
                       call.out_dtypes[j] == target.dtype), None)
        new = take_all if call.pooled else np.empty
        return tuple(target if j == at else new(shape, dtype)
                     for j, (shape, dtype) in enumerate(zip(call.out_shapes, call.out_dtypes)))

    _quick = None
    _make_quick = FusedKernel._make_quick

    def _quick_head(self, plan: _RowPlan) -> tuple | None:
        """The entry's arguments before the data where ``plan`` runs serially whatever the
        machine's load (``_RowPlan.launch``), else None."""
        if plan.free_block is not None or not plan.serial:
            return None
        return plan.head(plan.block)
