"""``FusedKernel``: a fusion group compiled to native code, called with NumPy arrays.

::

    group = graph.find(prim.FusionGroup)          # or the subgraph itself
    kernel = FusedKernel(group)
    hy, cy = kernel(cx, gates_a, gates_b, ...)    # NumPy in, NumPy out (a tuple)
    print(kernel_source(group, *inputs))          # the generated module, as text

A call checks the inputs (count, kinds, dtypes), makes or reuses a launch plan for their shapes
and strides (bad shapes raise ``InterpreterError`` before any native code runs), picks the
variant compiled for the inputs' (dtype, rank, inner-stride class) signature, compiling it on
first use through the on-disk cache, and runs the serial or parallel entry point. What that
first call of a signature found (plan, variant, how each input becomes an argument) is kept
under a key of the thread count and each input's dtype, shape and strides (a number's type):
later calls with that key skip the checks and call the compiled code's entry point, ~1.3 us
a call around the kernel against ~8 us. The signature called last, where its plan runs
serially, has a function written for it that repeats the call for inputs exactly like those
(``quick.py``): a kernel tries it first.
"""

from __future__ import annotations

import operator
from time import perf_counter
from typing import Any

import numpy as np
from numba import njit
from numba.core import caching as numba_caching
from numpy.lib.stride_tricks import as_strided

from ...errors import InterpreterError
from ...ir.graph import Graph, Node
from .. import cores
from ..native.kernel_entry import ENTRY_SIGNATURE, NUMEL, OUTPUT_WIDTH
from ..native.registers import MAX_RANK
from .cache import load_module, reload_module
from .codegen import _SUPPORTED as SUPPORTED_DTYPES  # (the dtypes generate() takes)
from .codegen import STREAMS_FROM, ArgSpec, generate
from .interleave import compiled
from .isolated import ensure_compiled
from .layout import GroupLayout, analyse
from .loops import DEFER, marks_size
from .native_entry import RowLayout
from .outputs import pooled_together, take_all
from .plan import KernelDeclined, Plan, make_plan, num_threads
from .quick import quick_call

# A group with more tensor inputs than this runs through the host even in the native loop:
# its native entry checks every input's registers, and compiling it grew to about a minute
# for a 130-input group (PyTorch's many_inputs corpus graph), where the host call costs ~50 us.
MAX_ENTRY_TENSORS = 32

_PLAN_LIMIT = 256


def _subgraph(group: Node | Graph) -> Graph:
    if isinstance(group, Graph):
        return group
    if isinstance(group, Node) and group.has_attribute("Subgraph"):
        return group.g("Subgraph")
    raise InterpreterError(f"expected a fusion group node or its subgraph, got {group!r}")


_NUMBA_CACHING = numba_caching.__file__


def from_numba_cache(error: BaseException) -> bool:
    """Did ``error`` come out of Numba's on-disk cache (a damaged index or data file)?"""
    seen: set[int] = set()
    stack: list[BaseException | None] = [error]
    while stack:
        exc = stack.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == _NUMBA_CACHING:
                return True
            tb = tb.tb_next
        stack += [exc.__cause__, exc.__context__]
    return False


# The most dimensions a kernel input may have (the limit; NumPy allows 64).
MAX_KERNEL_RANK = 32
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _check_tensor(pos: int, x, xp) -> None:
    """Decline (``InterpreterError``: the caller interprets the group instead) an array the
    generated code cannot read as it reads a plain one: an ndarray subclass (``np.matrix``
    reshapes to 2-d, a masked array carries its mask), a byte order other than the machine's,
    a dtype kernels do not compute in (float16, complex, objects...) or too many dimensions."""
    why = None
    if type(x) is not xp.ndarray:
        why = f"is a {type(x).__name__}, not a plain array"
    elif not x.dtype.isnative:
        why = f"has non-native byte order ({x.dtype.str})"
    elif x.dtype not in SUPPORTED_DTYPES:
        why = f"has dtype {x.dtype}, which kernels do not support"
    elif x.ndim > MAX_KERNEL_RANK:
        why = f"has {x.ndim} dimensions (at most {MAX_KERNEL_RANK})"
    if why is not None:
        raise InterpreterError(f"fused kernel input {pos} {why}")


class _Recorded(Exception):
    """Where a dry run (``FusedKernel.uncompiled``) stops."""


# A parallel call that takes this many times its signature's fastest, and SLOW_S seconds more,
# may have waited for a core that a thread of this process outside fusejit holds
# (``cores.slow_parallel_call`` looks).
SLOW_FACTOR = 3.0
SLOW_S = 100e-6


class _Variant:
    __slots__ = ("source", "module", "parallel", "serial", "out_dtypes", "entries", "guarded",
                 "deferred", "streams_from")

    def __init__(self, source: str, module, out_dtypes):
        self.source = source
        self.out_dtypes = out_dtypes
        # The elements from which a call streams its outputs (``streams``), where the kernel
        # can: ``FusedKernel._variant`` then takes the module that does.
        self.streams_from = getattr(module, STREAMS_FROM, None)
        # Can the kernel set its status flag (integer division by zero, ``codegen``)? Calls of
        # kernels that cannot share one flag array, which they never write.
        self.guarded = _SETS_STATUS in source
        # Does the parallel kernel mark strips for the serial one to compute again
        # (``loops.DEFER``)? Its calls pass a status array with a mark per strip.
        self.deferred = DEFER in source
        self.use(module)

    def use(self, module) -> None:
        self.module = module
        self.parallel = module.kernel_parallel
        self.serial = module.kernel_serial
        # (serial, parallel) entry points for the native loop, when the dtypes allow them
        self.entries = (getattr(module, "native_serial", None),
                        getattr(module, "native_parallel", None))


class FusedKernel:
    """One fusion group, compiled per input signature; ``kernel(*inputs) -> tuple``."""

    # The array module of the tensors a call takes (CuPy, or NumPy, for CUDA kernels).
    xp = np
    _WHAT = "a fused remainder or fmod"       # (where a division by zero was, in its error)
    SHORT_ROWS = True       # (rows shorter than plan.SHORT_ROW take the short-row kernel)

    def __init__(self, group: Node | Graph, *, precise: bool = False):
        self.layout: GroupLayout = analyse(_subgraph(group))
        self.precise = precise
        self._variants: dict[tuple, _Variant] = {}
        self._plans: dict[tuple, Plan] = {}
        # What a call of each signature (``__call__``'s key) needs beyond its data, made by the
        # first call of that signature after every check: later calls skip the checks, plan
        # keys and argument specs (~80% of a small call's time).
        self._calls: dict[tuple, _Call | _Declined] = {}

    # -- preparing a call ------------------------------------------------------------------
    def _specs(self, inputs: tuple) -> tuple[list[ArgSpec], list[np.ndarray], list]:
        layout = self.layout
        if len(inputs) != len(layout.input_kinds):
            raise InterpreterError(f"fused kernel takes {len(layout.input_kinds)} inputs, "
                                   f"got {len(inputs)}")
        specs, arrays, scalars = [], [], []
        for pos, (kind, x) in enumerate(zip(layout.input_kinds, inputs)):
            if kind == "tensor":
                if not isinstance(x, self.xp.ndarray):
                    kind = "NumPy" if self.xp is np else "device"
                    raise InterpreterError(f"fused kernel input {pos} must be a {kind} array, "
                                           f"got {type(x).__name__}")
                _check_tensor(pos, x, self.xp)
                specs.append(ArgSpec("tensor", x.dtype, x.ndim))
                arrays.append(x)
            else:
                if isinstance(x, np.ndarray) and x.ndim == 0:
                    # (a 0-dim device array is not taken as a number: that would copy to host)
                    x = x.item()
                if isinstance(x, (bool, np.bool_)):
                    specs.append(ArgSpec("scalar", np.bool_))
                    scalars.append(bool(x))
                elif isinstance(x, (int, np.integer)):
                    if not _INT64_MIN <= x <= _INT64_MAX:
                        raise InterpreterError(f"fused kernel input {pos}: {x} is beyond "
                                               f"int64")
                    specs.append(ArgSpec("scalar", np.int64))
                    scalars.append(int(x))
                elif isinstance(x, (float, np.floating)):
                    specs.append(ArgSpec("scalar", np.float64))
                    scalars.append(float(x))
                else:
                    raise InterpreterError(f"fused kernel input {pos} must be a number, "
                                           f"got {type(x).__name__}")
        return specs, arrays, scalars

    def _prepare(self, inputs: tuple):
        specs, flats, scalars, shapes, strides = self._flatten(inputs)
        plan, variant_key = self._plan(specs, shapes, strides)
        return specs, flats, scalars, plan, variant_key

    def _plan(self, specs: list[ArgSpec], shapes: list, strides: list) -> tuple[Plan, tuple]:
        """The (memoised) launch plan for these shapes and strides, and its variant's key."""
        key = (tuple(shapes), tuple(strides), num_threads())
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLAN_LIMIT:
                self._plans.clear()
            plan = make_plan(self.layout, shapes, strides, self.SHORT_ROWS)
            self._plans[key] = plan
        return plan, (tuple(s.key() for s in specs), plan.classes, plan.rank, plan.short)

    def _flatten(self, inputs: tuple):
        """Specs, 1-d windows from each tensor's first element, scalars, shapes and element
        strides (of the window: a copy when the tensor had negative strides)."""
        specs, arrays, scalars = self._specs(inputs)
        flats, shapes, strides = [], [], []
        xp = self.xp
        for x in arrays:
            how = _flattening(x)
            if how == _COPY:
                x = _copy(x, xp)
                how = _flattening(x)
            flats.append(_flat(x, how, xp))
            shapes.append(x.shape)
            strides.append(tuple(s // x.itemsize for s in x.strides) if x.ndim else ())
        return specs, flats, scalars, shapes, strides

    def _variant(self, specs: list[ArgSpec], plan: Plan, key: tuple) -> _Variant:
        """The variant for ``plan``: the module that streams big outputs (``streams``) for a
        call of its size, else the plain one. The streaming kernels test a call's size
        themselves (the native loop runs one binding for every size), but their loops are
        twice as long, and so is their compile: programs of smaller calls never compile
        them. (Loading a module compiles nothing: the plain one's size test costs nothing.)"""
        variant = self._module(specs, plan, key, False)
        if variant.streams_from is not None and plan.numel >= variant.streams_from:
            variant = self._module(specs, plan, key, True)
        return variant

    def _module(self, specs: list[ArgSpec], plan: Plan, key: tuple, stream: bool) -> _Variant:
        variant = self._variants.get((key, stream))
        if variant is None:
            source, out_dtypes = generate(self.layout, specs, list(plan.classes), plan.rank,
                                          self.precise, stream, plan.short)
            variant = _Variant(source, load_module(source), out_dtypes)
            self._variants[(key, stream)] = variant
        return variant

    # -- public ------------------------------------------------------------------------------
    # A dry run's record (``uncompiled``), else None.
    _recording: list | None = None

    def uncompiled(self, *inputs, run=None) -> list[tuple[_Variant, Any, tuple, bool]]:
        """What a call on ``inputs`` may compile, each (variant, Numba dispatcher, Numba
        signature, whether the call would run it now) that this process has not compiled
        yet: the serial and the parallel kernel where the plan may launch either as the
        machine's load changes (``Plan.launches``). From a dry run of the call (``run``, or
        this kernel) that stops where the first kernel would start: it checks, plans and
        loads the modules as the call would, and runs no kernel code. Raises what the call
        would for inputs the kernel declines."""
        self._recording = recording = []
        try:
            (run or self)(*inputs)
        except _Recorded:
            pass
        finally:
            self._recording = None
        return recording

    def source(self, *inputs) -> str:
        """The generated module's text for inputs like these."""
        specs, _flats, _scalars, plan, key = self._prepare(inputs)
        return self._variant(specs, plan, key).source

    def __call__(self, *inputs) -> tuple[np.ndarray, ...]:
        quick = self._quick
        if quick is not None:
            outs = quick(inputs)
            if outs is not None:
                return outs
        call, data = self._call_and_data(inputs)
        # Run the kernel on data (the tensors' 1-d windows, then the scalars), here rather than
        # in a method of its own: a call costs ~0.1 us.
        if call.single is not None:
            outs = (_empty(*call.single),)
        else:
            # (big outputs: pooled memory, which skips the page faults of a fresh allocation)
            outs = tuple(map(take_all if call.pooled else _empty, call.out_shapes,
                             call.out_dtypes))
        plan = call.plan
        if not plan.numel:
            return outs if plan.out_axes is None else tuple(map(_transpose, outs,
                                                                plan.out_axes))
        variant = call.variant
        serial, meta = plan.launch()     # (by work and free cores: plan.py)
        if variant.deferred and not serial:
            status = np.zeros(marks_size(meta[0], meta[2]), np.int64)
        else:
            status = np.zeros(1, np.int64) if variant.guarded else _NO_STATUS
        flats = outs if call.flat_outs is None else map(_reshape, outs, call.flat_outs)
        self._run(call, serial, (meta, *data, *flats, status))
        if call.quick is None:
            self._make_quick(call, inputs)
        # (outputs in the inputs' memory order: allocated permuted, returned in their shape)
        return outs if plan.out_axes is None else tuple(map(_transpose, outs, plan.out_axes))

    # The quick call of the signature called last (``quick.py``), or None.
    _quick = None

    def _make_quick(self, call: _Call, inputs: tuple) -> None:
        """Write ``call``'s quick call (or remember that it has none), and make it the one
        this kernel tries first."""
        call.quick = quick_call(call, inputs, self._quick_head(call.plan)) or False
        self._quick = call.quick or None

    def _quick_head(self, plan: Plan) -> tuple | None:
        """The entry's arguments before the data where ``plan`` runs serially whatever the
        machine's load (``Plan.launch``), else None."""
        if plan.free_meta is not None or not plan._serial or not plan.numel:
            return None
        return (plan.meta,)

    def write_into(self, target: np.ndarray, inputs: tuple) -> np.ndarray:
        """Run the kernel with ``target`` (C-contiguous, sharing no memory with an input it
        does not read at the positions it writes) as its one output; InterpreterError where
        the output would not have that shape and dtype."""
        call, data = self._call_and_data(inputs)
        if len(call.out_shapes) != 1 or tuple(call.out_shapes[0]) != target.shape \
                or call.out_dtypes[0] != target.dtype:
            raise InterpreterError("the kernel's output is not the updated array's shape "
                                   "and dtype")
        if call.plan.out_axes is not None:
            # (a C-contiguous target is itself an operand in C order, so this is for the
            # rare inputs whose other operands decide alone, in dimensions it does not walk)
            raise InterpreterError("the kernel's output is not in the updated array's "
                                   "memory order")
        plan = call.plan
        if plan.numel:
            status = np.zeros(1, np.int64) if call.variant.guarded else _NO_STATUS
            serial, meta = plan.launch()
            out = target if call.flat_outs is None else target.reshape(-1)
            self._run(call, serial, (meta, *data, out, status))
        return target

    def _run(self, call: _Call, serial: bool, args: tuple) -> None:
        """Run the serial or parallel kernel of ``call`` on ``args`` (whose last is the status
        flag): through its entry point once known, else through Numba's dispatcher."""
        entry = call.entries[serial]
        if entry is None:
            self._dispatch(call, serial, args)
        elif serial:
            entry(*args)
        else:
            start = perf_counter()
            entry(*args)
            took = perf_counter() - start
            if took < call.fastest:
                call.fastest = took
            elif took > SLOW_FACTOR * call.fastest + SLOW_S:
                cores.slow_parallel_call()
        if not serial and call.variant.deferred and args[-1][1:].any():
            # (strips the parallel kernel marked: the serial one computes them again)
            self._run(call, True, args)
        if call.variant.guarded and args[-1][0]:
            raise InterpreterError(f"integer division by zero in {self._WHAT}")

    def _call_and_data(self, inputs: tuple) -> tuple[_Call, tuple]:
        """The call's ``_Call`` and the kernel's data arguments (the tensors' 1-d windows, then
        the scalars): remembered under the call's signature key, else from ``_first_call``.
        The key is what the checks, plan and variant depend on: the thread count; an array's
        dtype (which fixes its byte order), shape (its rank) and strides; another value's type.
        Strides and shapes are new tuples at each read: ~0.1 us an array."""
        key = [num_threads()]
        for x in inputs:
            if type(x) is _NDARRAY:
                key += (x.dtype, x.shape, x.strides)
            else:
                key.append(type(x))
        call = self._calls.get(tuple(key))
        if call is None:
            return self._first_call(inputs, tuple(key))
        if type(call) is _Declined:
            raise KernelDeclined(call.reason)
        self._quick = call.quick or None
        if call.direct:
            return call, inputs if call.order is None else call.order(inputs)
        data = call.arguments(inputs)
        if data is None:          # (an int beyond int64: the checks' error)
            return self._first_call(inputs, None)
        return call, data

    def _first_call(self, inputs: tuple, key: tuple | None) -> tuple[_Call, tuple]:
        """Check a call in full, make its plan and variant, and remember them under ``key``
        (None: nowhere) when its values allow (plain arrays where the group takes tensors,
        Python or NumPy numbers where it takes scalars)."""
        hows = _call_hows(self.layout.input_kinds, inputs)
        if hows is not None:
            # Small strided inputs are copied (a 1-d window costs more than the copy);
            # the plan is made for the copies, which every later call makes alike.
            inputs = tuple(_copy(x, np) if how == _COPY else x
                           for x, how in zip(inputs, hows))
        try:
            specs, flats, scalars, plan, vkey = self._prepare(inputs)
            call = _Call(plan, self._variant(specs, plan, vkey), hows, self.layout.input_kinds)
        except KernelDeclined as why:
            # Declined (shapes the kernel cannot plan, ``x.sum(1)[:, None] + y`` with rows
            # longer than x's): the signature's later calls, whose shapes are the same, go
            # straight to the interpreter without checking and planning again (~60 us a call
            # of a 7-op row group). (Other errors, an int beyond int64, depend on values.)
            if hows is not None and key is not None:
                self._remember(key, _Declined(str(why)))
            raise
        if hows is not None and key is not None:
            self._remember(key, call)
        return call, (*flats, *scalars)

    def _remember(self, key: tuple, call: _Call | _Declined) -> None:
        if len(self._calls) >= _PLAN_LIMIT:
            self._calls.clear()
        self._calls[key] = call

    def _dispatch(self, call: _Call, serial: bool, args: tuple) -> None:
        """Run the kernel through its Numba dispatcher (compiling it, or loading it from the
        disk cache, for these argument types), and keep the compiled code's entry point for
        the call's later runs."""
        variant = call.variant
        fn = variant.serial if serial else variant.parallel
        signature = tuple(fn.typeof_pyval(a) for a in args)
        if self._recording is not None:
            # (a dry run: every kernel the plan may launch as the machine's load changes,
            # which take the same argument types; the parallel kernel of a deferring variant
            # runs the serial one too)
            launches = call.plan.launches()
            if variant.deferred and False in launches:
                launches.add(True)
            for s in sorted(launches):
                f = variant.serial if s else variant.parallel
                if signature not in f.overloads:
                    self._recording.append((variant, f, signature, f is fn))
            raise _Recorded
        if not fn.overloads:
            ensure_compiled(variant.source, fn, signature)
        try:
            if not fn.overloads:
                compiled(variant.module, fn, signature)
            fn(*args)
        except Exception as why:
            if not from_numba_cache(why):
                raise
            # Numba could not load its cached code (a damaged file): drop its files and
            # compile again; the failed call ran no kernel code.
            variant.use(reload_module(variant.source))
            fn = variant.serial if serial else variant.parallel
            compiled(variant.module, fn, signature)
            fn(*args)
        # The entry point is the overload's C wrapper: it unboxes its arguments as its types
        # say, without Numba's dispatch (~0.12 us a call). Later calls of this signature pass
        # arguments of the same types: the key fixes every dtype and rank, and every array is
        # a C-contiguous 1-d window. It leaves out an input's read-only and aligned flags,
        # which give other Numba types but the same reads (kernels never write their inputs,
        # and the loads are unaligned vector loads either way).
        overload = fn.overloads.get(signature)
        if overload is not None:
            call.entries[serial] = overload.entry_point

    def native_binding(self, *inputs) -> tuple | None:
        """For inputs like these (just run by ``__call__``): the native loop's entry point and
        the slot row (``runtime/native/kernel_entry.py``) that lets it run the same variant and
        plan from registers; None when the loop cannot (dtypes it does not hold). Inputs the
        kernel declines (odd arrays, shapes it cannot plan) raise ``InterpreterError``: the slot
        stays unbound, for a later call with other inputs."""
        specs, _flats, _scalars, shapes, strides = self._flatten(inputs)
        plan, key = self._plan(specs, shapes, strides)
        # (the streaming module where a call has made it: its kernels test each call's size)
        variant = self._variants.get((key, True)) or self._variants.get((key, False))
        if variant is None:
            return None
        entry = variant.entries[0 if plan.serial else 1]
        if plan.out_axes is not None:
            # (the entry makes C-contiguous outputs: calls with such inputs run on the host,
            # which the executor specialises apart from C-contiguous ones)
            return None
        if entry is None or max([len(shape) for shape in (*shapes, *plan.out_shapes)],
                                default=0) > MAX_RANK:
            return None   # (registers hold tensors of rank <= MAX_RANK only)
        if len(shapes) > MAX_ENTRY_TENSORS:
            return None   # (compiling the entry would cost far more than the host calls save)
        rows = RowLayout(self.layout, specs, plan.rank)
        if rows.meta_len != len(plan.meta):
            return None
        row = np.zeros(rows.width, np.int64)
        row[NUMEL] = plan.numel
        for number, (shape, st) in enumerate(zip(shapes, strides)):
            at = rows.key_at[number]
            row[at:at + len(shape)] = shape
            row[at + len(shape):at + 2 * len(shape)] = st
        row[rows.meta_at:rows.meta_at + rows.meta_len] = plan.meta
        for j, shape in enumerate(plan.out_shapes):
            at = rows.out_at + j * OUTPUT_WIDTH
            row[at] = len(shape)
            row[at + 1:at + 1 + len(shape)] = shape
        if not entry.overloads:
            ensure_compiled(variant.source, entry, ENTRY_SIGNATURE)
            compiled(variant.module, entry, ENTRY_SIGNATURE)
        return entry, row


# How a kernel input becomes the 1-d array the kernel reads: itself reshaped (C-contiguous);
# its elements in memory order (``ravel('K')``, a view: contiguous in another order, F or a
# transposition, maybe broadcast along some axes); a window from its first element to the last
# one it reaches (non-negative strides: ``_window``, ~0.4 us, which beat a copy of even 3 KB
# views); or a copy of it in its own memory order (negative strides: ``_copy``).
# A positive number k: the window is its element [0, ..., 0] along its first k dimensions, of
# stride 0 (an expanded bias, a broadcast scalar), which is C-contiguous.
_VIEW, _WINDOW, _COPY, _DENSE = 0, -1, -2, -5


def _flattening(x) -> int:
    if x.flags.c_contiguous:
        return _VIEW
    strides, item = x.strides, x.itemsize
    if not all(s >= 0 and s % item == 0 for s in strides):
        return _COPY
    lead = 0
    while lead < len(strides) and strides[lead] == 0:
        lead += 1
    if lead and x.size and x[(0,) * lead].flags.c_contiguous:
        return lead
    if x.size and _dense(x.shape, strides, item):
        return _DENSE
    return _WINDOW


def _dense(shape: tuple[int, ...], strides: tuple[int, ...], item: int) -> bool:
    """Do positive ``strides`` lay the elements out without gaps, in some order of the axes
    (broadcast axes, of stride 0, left out)?"""
    step = item
    for s, n in sorted((s, n) for s, n in zip(strides, shape) if n != 1 and s):
        if s != step:
            return False
        step *= n
    return True


def _core(x):
    """``x`` without its broadcasting: its axes of stride 0 cut to length 1."""
    return x[tuple(slice(0, 1) if s == 0 else slice(None) for s in x.strides)]


def _copy(x, xp):
    """A copy of ``x`` with positive strides in its axes' memory order (``order='K'``), as
    NumPy's own results of ``x`` are laid out (``plan._memory_order``), still broadcast along
    the axes it was (whose stride 0 orders nothing there); C-contiguous on a device (CuPy's
    copies)."""
    if xp is not np:
        return xp.ascontiguousarray(x)
    if 0 in x.strides:
        return np.broadcast_to(_core(x).copy(order="K"), x.shape)
    return x.copy(order="K")


# How ``_Call.arguments`` passes the other values: a 1-d C-contiguous array or a Python float or
# bool as it is, an int (Python or NumPy) as a Python one after its int64 range check, another
# NumPy number as a Python one.
_SELF, _AS_IS, _AS_INT, _AS_FLOAT, _AS_BOOL = -3, -4, -6, -7, -8
_SCALAR_HOWS = {float: _AS_IS, bool: _AS_IS, int: _AS_INT, np.bool_: _AS_BOOL,
                **{t: _AS_INT for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                        np.uint16, np.uint32, np.uint64)},
                **{t: _AS_FLOAT for t in (np.float16, np.float32, np.float64)}}
_CONVERT = {_AS_INT: int, _AS_FLOAT: float, _AS_BOOL: bool}
_NDARRAY = np.ndarray
_empty = np.empty
_reshape = np.ndarray.reshape
_transpose = np.ndarray.transpose
# (the flag of kernels that never set it: ``_Variant.guarded``)
_NO_STATUS = np.zeros(1, np.int64)
_SETS_STATUS = "status[0] = 1"


def _call_hows(kinds: list[str], inputs: tuple) -> list[int] | None:
    """How each input of a call becomes a kernel argument, when a later call of the same
    ``__call__`` key may skip the checks: None where it may not (a wrong count, or a value
    other than a plain array for a tensor input or a number for a scalar one)."""
    if len(inputs) != len(kinds):
        return None
    hows = []
    for kind, x in zip(kinds, inputs):
        if kind == "tensor":
            if type(x) is not np.ndarray:
                return None
            hows.append(_SELF if x.ndim == 1 and x.flags.c_contiguous else
                        _flattening(x))
        else:
            how = _SCALAR_HOWS.get(type(x))
            if how is None:
                return None
            hows.append(how)
    return hows


class _Declined:
    """A signature the kernel declined: the reason, raised again at each of its calls."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


class _Call:
    """What a call of one signature needs beyond its data: plan, variant, how each input
    becomes an argument (``hows``; None: the call's own, remembered nowhere), the outputs."""

    __slots__ = ("plan", "variant", "direct", "order", "steps", "out_shapes", "out_dtypes",
                 "pooled", "single", "flat_outs", "entries", "quick", "fastest")

    def __init__(self, plan: Plan, variant: _Variant, hows: list[int] | None,
                 kinds: list[str]):
        self.plan = plan
        self.variant = variant
        # kernel argument order: tensors, then scalars (each in input order)
        order = sorted(range(len(kinds)), key=lambda pos: kinds[pos] != "tensor")
        self.steps = [(pos, hows[pos]) for pos in order] if hows is not None else []
        # every input passes as it is: the call's arguments are its inputs (reordered)
        self.direct = hows is not None and all(how in (_SELF, _AS_IS) for how in hows)
        self.order = None if order == sorted(order) else operator.itemgetter(*order)
        self.out_shapes = plan.out_shapes
        self.out_dtypes = variant.out_dtypes
        self.pooled = pooled_together(self.out_shapes, self.out_dtypes)
        # (shape, dtype) of the one output of a call that does not pool it
        self.single = None if self.pooled or len(self.out_shapes) != 1 else \
            (self.out_shapes[0], self.out_dtypes[0])
        self.entries: list = [None, None]       # (parallel, serial) kernel entry points
        self.fastest = float("inf")     # (seconds: its fastest parallel call, ``_run``)
        # the shapes outputs are reshaped to for the kernel (None: all are 1-d already)
        one_d = all(len(shape) == 1 for shape in self.out_shapes)
        self.flat_outs = None if one_d else (-1,) * len(self.out_shapes)
        # its quick call (``quick.py``): None until its kernel has run it, False: none
        self.quick: Any = None

    def arguments(self, inputs: tuple) -> tuple | None:
        """The kernel's data arguments for ``inputs`` (None: an int beyond int64)."""
        data = []
        for pos, how in self.steps:
            x = inputs[pos]
            if how == _SELF or how == _AS_IS:
                data.append(x)
            elif how in _CONVERT:
                x = _CONVERT[how](x)
                if how == _AS_INT and not _INT64_MIN <= x <= _INT64_MAX:
                    return None
                data.append(x)
            else:
                data.append(_flat(x, how, np))
        return tuple(data)


def _flat(x, how: int, xp):
    """``x`` as the 1-d array the kernel reads (``how`` from ``_flattening``; a ``_COPY`` input
    is copied here when the caller has not)."""
    if how == _VIEW:
        return x.reshape(-1)
    if how > 0:
        return x[(0,) * how].reshape(-1)
    if how == _COPY:
        x = _copy(x, xp)
        return _flat(x, _flattening(x), xp)
    if how == _DENSE and xp is np:
        # (from element [0, ..., 0], the lowest address of positive strides)
        return (_core(x) if 0 in x.strides else x).ravel("K")
    if xp is np:
        return _window(x)
    item = x.itemsize
    span = 1 + sum((n - 1) * s // item for n, s in zip(x.shape, x.strides)) if x.size else 0
    return xp.lib.stride_tricks.as_strided(x, shape=(span,), strides=(item,))


@njit(cache=True)
def _window(x):
    """The ``_WINDOW`` of ``x`` (positive strides, multiples of its itemsize): its elements
    from its first to the last it reaches, as a 1-d array of unit stride that keeps ``x`` alive.
    NumPy's ``as_strided`` took ~2 us a view (it builds an ``__array_interface__``), this
    ~0.4 us: a 3x3 box sum of 48 x 64 x 3 float64, nine strided views into one kernel, spent
    a third of its call there. Compiled once for each dtype and rank (~0.15 s, then cached)."""
    item = x.itemsize
    span = 0
    if x.size:
        span = 1
        for n, s in zip(x.shape, x.strides):
            span += (n - 1) * (s // item)
    return as_strided(x, (span,), (item,))


def kernel_source(group: Node | Graph, *example_inputs, precise: bool = False) -> str:
    """The Python source fusejit generates for ``group`` called with inputs like these."""
    return FusedKernel(group, precise=precise).source(*example_inputs)
