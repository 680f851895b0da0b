"""Launch plans: from the actual shapes and strides of a call to the kernel's ``meta`` array.

Every operand (chunk pieces, inputs, output pieces) becomes an offset and one stride per
iteration dimension, 0 where it broadcasts. Dimensions are then coalesced where every operand
allows it (``stride[d] == stride[d+1] * size[d+1]``), so a contiguous 4 x 5 x 6 call runs as
one row of 120, cut into column blocks for the threads::

    x : (4, 1) strides (1, 0)       y : (5,) strides (1,)        out : (4, 5)
    operands: x -> offset 0, strides (1, 0);  y -> (0, 1);  out -> (5, 1)
    meta = [n_tiles, cols, block, n_blocks, size_0, offset_x, 1, 0, offset_y, 0, 1, 0, 5, 1]

Outputs are laid out as NumPy lays out a ufunc's (``order='K'``, ``_memory_order``): an F-ordered
or transposed input gives an output in the same order, allocated in that order and returned
transposed (``Plan.out_axes``), and the dimensions are first put in memory order, so that the
inner loop is the contiguous one for inputs and outputs alike::

    x.T : (3, 4) strides (1, 3)                                  out : (3, 4) strides (1, 3)
    dimensions in memory order (4, 3): x.T -> (3, 1), out -> (3, 1); coalesced: one row of 12

Plans depend only on shapes and strides and are memoised by the caller.
"""

from __future__ import annotations

import os
import threading

import numba
import numpy as np

from ...errors import FusejitError, InterpreterError
from ...oplib.table import wrap_dim
from .. import blas, cores
from ..forks import serial_only
from .codegen import REVERSED, STRIDED, UNIT, ZERO
from .layout import GroupLayout
from .loops import STRIP
from .templates import element_cost


class KernelDeclined(InterpreterError):
    """These inputs give the group a shape one kernel cannot write (outputs of different shapes);
    the executor falls back to interpreting the group, as PyTorch's fusion executor does."""

# Below this much work (elements x estimated cost per element, in nanoseconds of one core) the
# serial kernel runs. A parallel launch costs ~10 us on an idle machine, but when other processes
# hold the cores each call waits for one: on a busy 2-core machine a 1M-element mul-tanh-add ran
# 0.74 ms serial and 42 ms parallel (medians of 20), and layer norm of 1024 x 1024 float32 (two
# kernels, ~2 ms of work) 1.4 ms serial and 16-32 ms parallel, against 6.4 ms for NumPy. Two
# threads can at best halve a kernel's time, so they are used only where the work is large
# against that floor. (The serial kernels vectorise like the parallel ones: 0.74 ms against
# 0.72 ms for the parallel kernel on one thread.) blas.py holds the value: its compiled code
# runs small products on one BLAS thread by the same rule, and it cannot import this module
# (this module's imports would join the compiled-code cache digest).
SERIAL_WORK_NS = blas.SERIAL_WORK_NS
# With every thread a kernel would start having a core that other processes left idle
# (``cores.spare_cores``, measured at most every quarter second), a parallel call costs its
# launch (~10-20 us), not a wait for a core, and kernels from this much work run in parallel.
# Estimated work runs 2-6x over the vectorised kernels' time; at about this much, two threads
# took float32 neg (2^18 elements) 56 -> 37 us, exp (2^17) 54 -> 36 us, pow (2^16) 90 -> 58 us
# (wall medians of 41, load ~4); at 2^14-2^15 elements they gained nothing. A wrong reading
# (a process takes the core just after a sample) costs the stalls of at most one sample period.
FREE_WORK_NS = 250_000
_MIN_BLOCK = 2048


_threads: list[int] = []        # the setting, once read from FUSEJIT_NUM_THREADS or set
# Numba's thread count is per calling thread, and a thread that never set it runs parallel
# kernels on all NUMBA_NUM_THREADS: ``.threads`` is the count this thread last gave Numba.
_here = threading.local()


def set_num_threads(n: int) -> None:
    """Run fused kernels and BLAS products on at most ``n`` threads (1: always the serial
    kernel, products on one BLAS thread). The default is Numba's thread count (fewer under a
    cgroup CPU quota), or ``$FUSEJIT_NUM_THREADS`` when set; which calls use them:
    ``Plan.launch``. The setting holds for kernels called from any thread: Numba's own count
    is per thread, so a parallel launch gives it to a thread that has not had it yet
    (``threads_here``); the products' limit is process-wide (``blas.max_threads``)."""
    if isinstance(n, bool) or not isinstance(n, int) or \
            not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        raise FusejitError(f"set_num_threads: n must be an int from 1 to "
                           f"{numba.config.NUMBA_NUM_THREADS}, got {n!r}")
    numba.set_num_threads(n)
    blas.set_max_threads(n)   # (BLAS's count is process-wide)
    _threads[:] = [n]
    _here.threads = n


def threads_here(serial: bool) -> bool:
    """``serial``, after giving Numba the setting in the calling thread when it is a parallel
    launch (a kernel called from a thread other than the one that set the count, a Dask
    worker's say, would otherwise run on every thread Numba started)."""
    if not serial and getattr(_here, "threads", 0) != num_threads():
        numba.set_num_threads(_threads[0])
        _here.threads = _threads[0]
    return serial


def _free_from() -> float:
    """The least work the free-core rule runs in parallel (no more than the busy rule's)."""
    return min(FREE_WORK_NS, SERIAL_WORK_NS)


def free_work_ns(threads: int) -> float:
    """The work (ns of one core) from which a kernel of ``threads`` threads runs in parallel
    now: ``FREE_WORK_NS`` while each of its threads beyond the caller's has a free core, else
    ``SERIAL_WORK_NS`` (the other processes' threads would make it wait)."""
    if threads > 1 and int(cores.spare_cores() + 0.5) + 1 >= threads:
        return _free_from()
    return SERIAL_WORK_NS


def wants_free_split(serial: bool, threads: int, work: float) -> bool:
    """Does a plan the busy rule makes serial need a parallel split as well, for calls the
    free-core rule runs in parallel (``Plan.launch``, ``row_kernel._RowPlan.launch``)?"""
    return serial and threads > 1 and work >= _free_from()


def parallel_now(work: float, threads: int) -> bool:
    """Does a call of ``work`` (ns of one core) run in parallel now by the free-core rule?"""
    return not threads_here(work < free_work_ns(threads) or serial_only())


def num_threads() -> int:
    """The number of threads fused kernels may use: ``set_num_threads``'s, else
    ``$FUSEJIT_NUM_THREADS``, else Numba's count (no more than a cgroup CPU quota allows)."""
    if not _threads:
        text = os.environ.get("FUSEJIT_NUM_THREADS", "").strip()
        if text:
            try:
                set_num_threads(int(text))
            except (ValueError, FusejitError):
                raise FusejitError(f"FUSEJIT_NUM_THREADS must be an int from 1 to "
                                   f"{numba.config.NUMBA_NUM_THREADS} (Numba's thread count), "
                                   f"got {text!r}") from None
        elif numba.get_num_threads() > cores.quota_threads():
            set_num_threads(cores.quota_threads())
        else:
            _threads[:] = [numba.get_num_threads()]
            _here.threads = _threads[0]
    return _threads[0]


class Plan:
    """Everything a call needs besides the data: meta, output shapes, which kernel to run.

    ``meta`` and ``serial`` follow the busy-machine rule (``SERIAL_WORK_NS``); ``launch`` also
    takes the free-core rule, for which ``free_meta`` holds the parallel split (None where that
    rule gives the same choice)."""

    __slots__ = ("meta", "classes", "out_shapes", "out_axes", "numel", "_serial", "rank",
                 "work", "threads", "free_meta", "short")

    def __init__(self, meta, classes, out_shapes, numel, serial, rank, work=0.0, threads=1,
                 free_meta=None, out_axes=None, short=False):
        self.meta = meta
        # rows shorter than SHORT_ROW: each tile is a run of whole rows, walked by index
        # (``short_meta``; the variant ``codegen`` makes for them)
        self.short = short
        self.classes = classes
        # The shapes the outputs are allocated in (C-contiguous); with ``out_axes`` (one
        # ``transpose`` argument per output) the caller returns each output transposed by its
        # axes: outputs in the inputs' memory order (``_memory_order``). None: as allocated.
        self.out_shapes = out_shapes
        self.out_axes = out_axes
        self.numel = numel
        self._serial = serial
        self.rank = rank
        self.work = work
        self.threads = threads
        self.free_meta = free_meta

    @property
    def serial(self) -> bool:
        """Run the serial kernel by the busy rule: a call under ``SERIAL_WORK_NS`` of work, or
        any call in a child forked from a process whose threading layer does not survive a fork
        (``runtime.forks``). The native loop binds by this rule: its binding is for good."""
        return self._serial or serial_only()

    def launch(self) -> tuple[bool, np.ndarray]:
        """(run the serial kernel?, the meta to run it with) for a call now."""
        if self.free_meta is not None and parallel_now(self.work, self.threads):
            return False, self.free_meta
        return threads_here(self._serial or serial_only()), self.meta    # (self.serial)

    def launches(self) -> set[bool]:
        """Whether a call may run the serial kernel, the parallel one, or either (``launch``,
        as the machine's load changes)."""
        return launches(self._serial, self.free_meta)


def launches(serial: bool, free: object) -> set[bool]:
    """The kernels (serial: True) a plan launching as ``Plan.launch`` does may run: its own
    choice (``serial``), and the parallel one where it has a launch for free cores."""
    return {serial or serial_only()} | ({False} if free is not None else set())


def _contiguous_strides(shape: tuple[int, ...]) -> list[int]:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return strides[::-1]


def _describe(layout: GroupLayout, k: int) -> str:
    op = layout.operands[k]
    pos = [p for p, n in layout.tensor_index.items() if n == op.input][0]
    name = layout.graph.inputs[pos].debug_name
    piece = "".join(f", {_step_text(step)}" for step in op.steps)
    return f"group input {pos} (%{name}{piece})"


def _step_text(step: tuple) -> str:
    kind = step[0]
    if kind == "chunk":
        return f"chunk {step[3]} of {step[1]} along dim {step[2]}"
    if kind == "slice":
        start, end = ("" if v is None else v for v in step[2:4])
        return f"slice {start}:{end}:{step[4]} along dim {step[1]}"
    if kind == "select":
        return f"index {step[2]} along dim {step[1]}"
    if kind == "t":
        return "transposed"
    if kind == "flip":
        return f"reversed along dims {list(step[1])}"
    return f"{kind} of dims {list(step[1:]) if kind == 'transpose' else list(step[1])}"


def make_plan(layout: GroupLayout, shapes: list[tuple[int, ...]],
              strides: list[tuple[int, ...]], short_rows: bool = True) -> Plan:
    """A plan for tensor inputs of these shapes and element strides.

    The iteration shape is the broadcast of the operands whose elements are read (not of
    ``type_as``'s dtype-only ``other``); each output keeps its own shape, which must equal the
    iteration shape up to leading 1s (each element is written once). ``short_rows``: rows
    shorter than ``SHORT_ROW`` under more than one row get the short-row kernel (its tiles
    are runs of rows; the CPU's kernels have it, not CUDA's).
    """
    views = _views(layout, shapes, strides)
    data = sorted(layout.data_operands)
    try:
        iter_shape = tuple(np.broadcast_shapes(*[views[k][0] for k in data]))
    except ValueError:
        listing = "; ".join(f"{_describe(layout, k)}: {views[k][0]}" for k in data)
        raise InterpreterError(f"fused kernel inputs do not broadcast together: {listing}") \
            from None
    rank = len(iter_shape)
    own_shapes = _output_shapes(layout, views, iter_shape)

    operand_strides: list[list[int]] = []
    offsets: list[int] = []
    for k, (shape, st, offset) in enumerate(views):
        if k not in layout.data_operands:
            operand_strides.append([0] * rank)       # never read (a dtype only)
            offsets.append(0)
            continue
        pad = rank - len(shape)
        operand_strides.append([0] * pad + [s if size != 1 else 0 for size, s in zip(shape, st)])
        offsets.append(offset)
    orders = _output_orders(layout, iter_shape, operand_strides)
    out_shapes, out_axes = [], []
    for out, shape, order in zip(layout.outputs, own_shapes, orders):
        pad = rank - len(shape)
        full = list(shape)
        if out.concat_dim is not None:
            dim = out.concat_dim + len(shape) if out.concat_dim < 0 else out.concat_dim
            if not 0 <= dim < len(shape):
                raise InterpreterError(f"prim::FusedConcat dim {out.concat_dim} is out of range "
                                       f"for pieces of shape {shape}")
            full[dim] *= len(out.pieces)
        # The output's dimension d - pad is iteration dimension d; leading 1s are padding.
        axes = list(range(len(full))) if order is None else [d - pad for d in order if d >= pad]
        own = _contiguous_strides(tuple(full[a] for a in axes))
        contiguous = [0] * len(full)
        for a, step in zip(axes, own):
            contiguous[a] = step
        walk = [0 if d < pad or iter_shape[d] == 1 else contiguous[d - pad] for d in range(rank)]
        if out.concat_dim is None:
            operand_strides.append(walk)
            offsets.append(0)
        else:
            for j in range(len(out.pieces)):
                operand_strides.append(list(walk))
                offsets.append(j * shape[dim] * contiguous[dim])
        out_shapes.append(tuple(full[a] for a in axes))
        out_axes.append(tuple(np.argsort(axes).tolist()))

    sizes = list(iter_shape)
    order = None if not any(orders) else _memory_order(iter_shape, operand_strides)
    if order is not None:
        # The loop nest in memory order: its last (innermost) dimension is the one the
        # inputs and outputs walk with the smallest strides.
        sizes = [sizes[d] for d in order]
        operand_strides = [[st[d] for d in order] for st in operand_strides]
    sizes, operand_strides = _coalesce(sizes, operand_strides)
    kernel_rank = max(rank, 1)
    pad = kernel_rank - len(sizes)
    sizes = [1] * pad + sizes
    operand_strides = [[0] * pad + st for st in operand_strides]
    cols = sizes[-1]
    rows = 1
    for s in sizes[:-1]:
        rows *= s
    numel = rows * cols
    classes = []
    for st in operand_strides:
        inner = st[-1]
        classes.append(UNIT if cols == 1 or inner == 1 else ZERO if inner == 0
                       else REVERSED if inner == -1 else STRIDED)
    threads = num_threads()
    work = numel * element_cost(layout)
    serial = threads == 1 or work < SERIAL_WORK_NS
    if short_rows and 0 < cols < SHORT_ROW and rows > 1:
        meta = short_meta(rows, cols, threads, sizes, offsets, operand_strides)
        free_meta = meta if wants_free_split(serial, threads, work) else None
        return Plan(meta, tuple(classes), out_shapes, numel, serial, kernel_rank, work,
                    threads, free_meta, tuple(out_axes) if any(orders) else None, short=True)
    meta = _meta(rows, cols, 1 if serial else _blocks(threads, rows, cols), sizes, offsets,
                 operand_strides)
    free_meta = None
    if wants_free_split(serial, threads, work):
        free_meta = _meta(rows, cols, _blocks(threads, rows, cols), sizes, offsets,
                          operand_strides)
    return Plan(meta, tuple(classes), out_shapes, numel, serial, kernel_rank, work, threads,
                free_meta, tuple(out_axes) if any(orders) else None)


def _output_orders(layout: GroupLayout, iter_shape: tuple[int, ...],
                   operand_strides: list[list[int]]) -> list[list[int] | None]:
    """Each output's memory order (``_memory_order``) from the operands it reads, as NumPy
    lays out that output of its own ops: in ``(x * y, -x)`` of an F-ordered x and a C-ordered
    y, the product is C-ordered and the negation F-ordered. The outputs of a group with a
    FusedConcat are C-ordered (its pieces are slices of a C-contiguous array)."""
    if any(out.concat_dim is not None for out in layout.outputs):
        return [None] * len(layout.outputs)
    orders = []
    for out in layout.outputs:
        deps = set().union(*(layout.depends.get(v, ()) for v in out.pieces))
        orders.append(_memory_order(iter_shape, [operand_strides[k] for k in sorted(deps)
                                                 if k in layout.data_operands]))
    return orders


def _memory_order(iter_shape: tuple[int, ...],
                  operand_strides: list[list[int]]) -> list[int] | None:
    """The iteration dimensions, outermost first, in the order the operands lie in memory, as
    NumPy's iterator sorts them for a ufunc's ``order='K'`` (``npyiter_find_best_axis_ordering``):
    an insertion sort from the innermost dimension out, which moves dimension a inside
    dimension b when every operand that walks both (broadcast operands walk some with stride 0)
    has the smaller stride along a; where operands disagree, C order stands. None where that
    is C order for every dimension longer than 1 (the outputs are C-contiguous, as before).
    Where it is exactly F order the result is F-contiguous in every dimension, size-1 ones
    included, as NumPy allocates for F-contiguous inputs: ``np.exp(x.T)`` of a 2-D ``x`` is
    F-ordered, ``np.add(x, x.T)`` C-ordered.

    The kernel's outputs then share their inputs' layout, and its loop nest runs in memory
    order: 2048 x 2048 float64 ``np.exp(x.T) * 0.5 + x.T`` wrote a C-ordered output while
    reading down columns, at ~0.3x NumPy's speed (``benchmarks/memory_order.py``)."""
    rank = len(iter_shape)
    perm = list(range(rank - 1, -1, -1))        # innermost first
    for i0 in range(1, rank):
        j0, at = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            decided, swap = False, False
            for st in operand_strides:
                if st[j0] and st[j1]:
                    if abs(st[j1]) <= abs(st[j0]):
                        swap = False        # (any operand against: C order wins)
                    elif not decided:
                        swap = True
                    decided = True
            if decided:
                if not swap:
                    break
                at = i1
        if at != i0:
            perm[at + 1:i0 + 1] = perm[at:i0]
            perm[at] = j0
    order = perm[::-1]
    long = [d for d in order if iter_shape[d] != 1]
    if long == sorted(long):
        return None
    if long == sorted(long, reverse=True):
        return list(range(rank - 1, -1, -1))
    return order


def _blocks(threads: int, rows: int, cols: int) -> int:
    """Column blocks a row is cut into for a parallel kernel: a few tiles a thread. (No rows:
    one; a plan of no elements is serial unless the thresholds are set to zero.)"""
    return max(1, min(-(-4 * threads // max(rows, 1)), -(-cols // _MIN_BLOCK)))


def _meta(rows: int, cols: int, n_blocks: int, sizes: list[int], offsets: list[int],
          operand_strides: list[list[int]]) -> np.ndarray:
    """The kernel's ``meta`` array (the module docstring shows one).

    A block of a row cut into several is a whole number of strips (``loops.STRIP``), so the
    strips of a parallel kernel are those of the serial one: a strip holding an element outside
    a short form's domain is computed again whole with the full form (``codegen.short_form``),
    and a result must not depend on how many threads ran it (float32 ``x ** y`` differed in
    the last bit, 6 of 18576 pairs, between one and two threads)."""
    block = -(-cols // n_blocks) if cols else 1
    if n_blocks > 1:
        block = -(-block // STRIP) * STRIP
    n_blocks = -(-cols // block) if cols else 1
    meta = [rows * n_blocks, cols, block, n_blocks] + sizes[:-1]
    for offset, st in zip(offsets, operand_strides):
        meta.append(offset)
        meta.extend(st)
    # Writable, like the row slice the native entry passes: one compiled signature serves both.
    return np.array(meta, dtype=np.int64)


def short_meta(rows: int, cols: int, threads: int, sizes: list[int], offsets: list[int],
               operand_strides: list[list[int]]) -> np.ndarray:
    """The ``meta`` of a short-row plan: as ``_meta``'s, but a tile is a run of ``block`` whole
    rows and ``n_blocks`` holds the number of rows (``[n_tiles, cols, rows per tile, rows,
    ...]``). The same tiles serve the serial and the parallel kernel: a few a thread, of at
    most ``SHORT_TILE`` elements."""
    per_tile = max(1, min(-(-rows // (4 * threads)), SHORT_TILE // cols))
    meta = [-(-rows // per_tile), cols, per_tile, rows] + sizes[:-1]
    for offset, st in zip(offsets, operand_strides):
        meta.append(offset)
        meta.extend(st)
    return np.array(meta, dtype=np.int64)


def _views(layout: GroupLayout, shapes, strides) -> list[tuple[tuple[int, ...], list[int], int]]:
    """(shape, element strides, offset) of every operand, its cuts (chunk pieces, views) made."""
    views = []
    for k, op in enumerate(layout.operands):
        shape, st = list(shapes[op.input]), list(strides[op.input])
        offset = 0
        for step in op.steps:
            try:
                offset += _cut(shape, st, step)
            except (IndexError, ValueError) as why:
                raise InterpreterError(f"{_describe(layout, k)}: {why}") from None
        views.append((tuple(shape), st, offset))
    return views


def _cut(shape: list[int], st: list[int], step: tuple) -> int:
    """Cut the view of ``shape`` and element strides ``st`` (changed in place) as ``step``
    (``TensorOperand.steps``) says, as its op would; the offset it adds."""
    ndim = len(shape)
    kind = step[0]
    if kind == "chunk":
        _, chunks, chunk_dim, index = step
        dim = chunk_dim + ndim if chunk_dim < 0 else chunk_dim
        if not 0 <= dim < ndim:
            raise IndexError(f"chunk dim {chunk_dim} is out of range for a tensor of rank "
                             f"{ndim}")
        if shape[dim] % chunks:
            raise ValueError(f"size {shape[dim]} along dim {dim} does not split into "
                             f"{chunks} equal chunks")
        shape[dim] //= chunks
        return index * shape[dim] * st[dim]
    if kind == "slice":
        _, dim, start, end, by = step
        if not ndim:
            raise IndexError("slice() cannot be applied to a 0-dim tensor")
        dim = wrap_dim(dim, ndim)
        first, stop, by = slice(start, end, by).indices(shape[dim])
        shape[dim] = len(range(first, stop, by))
        offset = first * st[dim] if shape[dim] else 0
        st[dim] *= by
        return offset
    if kind == "select":
        _, dim, index = step
        if not ndim:
            raise IndexError("select() cannot be applied to a 0-dim tensor")
        dim = wrap_dim(dim, ndim)
        if not -shape[dim] <= index < shape[dim]:
            raise IndexError(f"select(): index {index} out of range for size {shape[dim]} at "
                             f"dimension {dim}")
        offset = (index % shape[dim]) * st[dim]
        del shape[dim], st[dim]
        return offset
    if kind == "flip":      # (the last element first: a negative stride)
        dims = [wrap_dim(d, ndim) for d in step[1]] if ndim else []
        if len(set(dims)) != len(dims):
            raise ValueError(f"flip dims {list(step[1])} repeat a dim")
        offset = 0
        for d in dims:
            if shape[d]:
                offset += (shape[d] - 1) * st[d]
                st[d] = -st[d]
        return offset
    if kind == "t":
        if ndim > 2:
            raise ValueError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
        order = list(range(ndim))[::-1]
    elif kind == "transpose":
        order = list(range(ndim))
        if ndim:
            a, b = wrap_dim(step[1], ndim), wrap_dim(step[2], ndim)
            order[a], order[b] = order[b], order[a]
    else:
        order = [wrap_dim(d, ndim) for d in step[1]]
        if sorted(order) != list(range(ndim)):
            raise ValueError(f"permute dims {list(step[1])} for a tensor of rank {ndim}")
    shape[:] = [shape[d] for d in order]
    st[:] = [st[d] for d in order]
    return 0


def _output_shapes(layout: GroupLayout, views, iter_shape: tuple[int, ...]) -> list[tuple]:
    """Each output's own shape (of a FusedConcat: its pieces'), the broadcast of the operands
    it reads; it must be the iteration shape up to leading 1s, as the kernel writes each
    element of an output once."""
    result = []
    for j, out in enumerate(layout.outputs):
        found = []
        for value in out.pieces:
            deps = layout.depends.get(value, frozenset())
            shape = tuple(np.broadcast_shapes(*[views[k][0] for k in deps])) if deps else ()
            padded = (1,) * (len(iter_shape) - len(shape)) + shape
            if padded != iter_shape:
                raise KernelDeclined(
                    f"fused kernel output {j} has shape {shape} but the group's inputs "
                    f"broadcast to {iter_shape}; the fuser should not have grouped them")
            found.append(shape)
        if len(set(found)) != 1:
            raise InterpreterError(f"fused kernel output {j}: prim::FusedConcat of pieces of "
                                   f"shapes {found}, which differ in rank")
        if out.concat_dim is not None and not found[0]:
            raise InterpreterError(f"fused kernel output {j}: prim::FusedConcat of "
                                   "zero-dimensional tensors")
        result.append(found[0])
    return result


# Rows (the last dimension, after coalescing) shorter than this, under more than one, run the
# short-row kernel: a tile is a run of whole rows, each walked by index arithmetic with no row
# slices (``codegen``). A tile of one short row cost its slices and set-up for a few elements,
# and walking the long dimension instead (the rows swapped with the columns) read with a
# stride: (x - mean) / std over 200000 x 8 float64 with mean and std of 8 ran at 0.49x NumPy,
# x * w + b over 1448 x 1448 x 3 float32 (an image's channels against an alpha of one) at
# 0.78-1.04x.
SHORT_ROW = 16
# The most elements in a tile of short rows.
SHORT_TILE = 8192


def _coalesce(sizes: list[int], operand_strides: list[list[int]]):
    """Drop size-1 dimensions and merge neighbours that every operand walks contiguously."""
    keep = [d for d, s in enumerate(sizes) if s != 1]
    if not keep:
        return [1], [[0] for _ in operand_strides]
    new_sizes = [sizes[keep[0]]]
    new_strides = [[st[keep[0]]] for st in operand_strides]
    for d in keep[1:]:
        size = sizes[d]
        if all(ns[-1] == st[d] * size for ns, st in zip(new_strides, operand_strides)):
            new_sizes[-1] *= size
            for ns, st in zip(new_strides, operand_strides):
                ns[-1] = st[d]
        else:
            new_sizes.append(size)
            for ns, st in zip(new_strides, operand_strides):
                ns.append(st[d])
    return new_sizes, new_strides
