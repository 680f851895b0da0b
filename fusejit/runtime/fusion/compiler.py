"""``FusedKernel``: a fusion group compiled to native code, called with NumPy arrays.

::

    group = graph.find(prim.FusionGroup)          # or the subgraph itself
    kernel = FusedKernel(group)
    hy, cy = kernel(cx, gates_a, gates_b, ...)    # NumPy in, NumPy out (a tuple)
    print(kernel_source(group, *inputs))          # the generated module, as text

A call checks the inputs (count, kinds, dtypes), makes or reuses a launch plan for their shapes
and strides (bad shapes raise ``InterpreterError`` before any native code runs), picks the
variant compiled for the inputs' (dtype, rank, inner-stride class) signature, compiling it on
first use through the on-disk cache, and runs the serial or parallel entry point.
"""

from __future__ import annotations

import numpy as np
from numba.core import caching as numba_caching
from numpy.lib.stride_tricks import as_strided

from ...errors import InterpreterError
from ...ir.graph import Graph, Node
from ..native.kernel_entry import ENTRY_SIGNATURE, NUMEL, OUTPUT_WIDTH
from ..native.registers import MAX_RANK
from .cache import load_module, reload_module
from .codegen import _SUPPORTED as SUPPORTED_DTYPES  # (the dtypes generate() takes)
from .codegen import ArgSpec, generate
from .isolated import ensure_compiled
from .layout import GroupLayout, analyse
from .native_entry import RowLayout
from .outputs import take
from .plan import Plan, make_plan, num_threads

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


class _Variant:
    __slots__ = ("source", "parallel", "serial", "out_dtypes", "entries")

    def __init__(self, source: str, module, out_dtypes):
        self.source = source
        self.out_dtypes = out_dtypes
        self.use(module)

    def use(self, module) -> None:
        self.parallel = module.kernel_parallel
        self.serial = module.kernel_serial
        # (serial, parallel) entry points for the native loop, when the dtypes allow them
        self.entries = (getattr(module, "native_serial", None),
                        getattr(module, "native_parallel", None))


class FusedKernel:
    """One fusion group, compiled per input signature; ``kernel(*inputs) -> tuple``."""

    # The array module of the tensors a call takes (CuPy, or NumPy, for CUDA kernels).
    xp = np

    def __init__(self, group: Node | Graph, *, precise: bool = False):
        self.layout: GroupLayout = analyse(_subgraph(group))
        self.precise = precise
        self._variants: dict[tuple, _Variant] = {}
        self._plans: dict[tuple, Plan] = {}
        # (plan, variant, how to flatten each input) of calls whose inputs are all plain
        # arrays, by dtypes, shapes, strides and thread count: such a call skips _prepare's
        # checks and plan keys (~60% of a small call's time), all of which its first call made
        self._quick: dict[tuple, tuple[Plan, _Variant, tuple[int, ...]]] = {}
        self._all_tensors = all(kind == "tensor" for kind in self.layout.input_kinds)

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
            plan = make_plan(self.layout, shapes, strides)
            self._plans[key] = plan
        return plan, (tuple(s.key() for s in specs), plan.classes, plan.rank)

    def _flatten(self, inputs: tuple):
        """Specs, 1-d windows from each tensor's first element, scalars, shapes and element
        strides (of the window: a copy when the tensor had negative strides)."""
        specs, arrays, scalars = self._specs(inputs)
        flats, shapes, strides = [], [], []
        xp = self.xp
        for x in arrays:
            how = _flattening(x)
            if how == _COPY:
                x = xp.ascontiguousarray(x)
            flats.append(_flat(x, how, xp))
            shapes.append(x.shape)
            strides.append(tuple(s // x.itemsize for s in x.strides) if x.ndim else ())
        return specs, flats, scalars, shapes, strides

    def _variant(self, specs: list[ArgSpec], plan: Plan, key: tuple) -> _Variant:
        variant = self._variants.get(key)
        if variant is None:
            source, out_dtypes = generate(self.layout, specs, list(plan.classes), plan.rank,
                                          self.precise)
            variant = _Variant(source, load_module(source), out_dtypes)
            self._variants[key] = variant
        return variant

    # -- public ------------------------------------------------------------------------------
    def source(self, *inputs) -> str:
        """The generated module's text for inputs like these."""
        specs, _flats, _scalars, plan, _key = self._prepare(inputs)
        return generate(self.layout, specs, list(plan.classes), plan.rank, self.precise)[0]

    def _quick_key(self, inputs: tuple) -> tuple | None:
        """The ``_quick`` key of a call whose inputs are all plain NumPy arrays: everything the
        checks, the plan and the variant depend on (dtype, which fixes the byte order; shape,
        which fixes the rank; strides, which fix the plan; the thread count)."""
        if not self._all_tensors or len(inputs) != len(self.layout.input_kinds):
            return None
        key: list = [num_threads()]
        for x in inputs:
            if type(x) is not np.ndarray:
                return None
            key += (x.dtype, x.shape, x.strides)
        return tuple(key)

    def __call__(self, *inputs) -> tuple[np.ndarray, ...]:
        quick = self._quick_key(inputs)
        hit = self._quick.get(quick) if quick is not None else None
        if hit is None:
            hows = ()
            if quick is not None:
                # Small strided inputs are copied (a 1-d window costs more than the copy);
                # the plan is made for the copies, which every later call makes alike.
                hows = tuple(_small_flattening(x) for x in inputs)
                inputs = tuple(np.ascontiguousarray(x) if how == _COPY else x
                               for x, how in zip(inputs, hows))
            specs, flats, scalars, plan, key = self._prepare(inputs)
            variant = self._variant(specs, plan, key)
            if quick is not None:
                if len(self._quick) >= _PLAN_LIMIT:
                    self._quick.clear()
                self._quick[quick] = plan, variant, hows
        else:
            plan, variant, hows = hit
            flats = [x.reshape(-1) if how == _VIEW else _flat(x, how, np)
                     for x, how in zip(inputs, hows)]
            scalars = []
        # (big outputs: pooled memory, which skips the page faults of a fresh allocation)
        outs = [take(shape, dtype) for shape, dtype in zip(plan.out_shapes, variant.out_dtypes)]
        if plan.numel:
            status = np.zeros(1, np.int64)
            serial, meta = plan.launch()     # (by work and free cores: plan.py)
            args = (meta, *flats, *scalars, *[o.reshape(-1) for o in outs], status)
            fn = variant.serial if serial else variant.parallel
            if not fn.overloads:
                ensure_compiled(variant.source, fn, tuple(fn.typeof_pyval(a) for a in args))
            try:
                fn(*args)
            except Exception as why:
                if not from_numba_cache(why):
                    raise
                # Numba could not load its cached code (a damaged file): drop its files and
                # compile again; the failed call ran no kernel code.
                variant.use(reload_module(variant.source))
                (variant.serial if serial else variant.parallel)(*args)
            if status[0]:
                raise InterpreterError("integer division by zero in a fused remainder or fmod")
        return tuple(outs)


    def native_binding(self, *inputs) -> tuple | None:
        """For inputs like these (just run by ``__call__``): the native loop's entry point and
        the slot row (``runtime/native/kernel_entry.py``) that lets it run the same variant and
        plan from registers; None when the loop cannot (dtypes it does not hold). Inputs the
        kernel declines (odd arrays, shapes it cannot plan) raise ``InterpreterError``: the slot
        stays unbound, for a later call with other inputs."""
        specs, _flats, _scalars, shapes, strides = self._flatten(inputs)
        plan, key = self._plan(specs, shapes, strides)
        variant = self._variants.get(key)
        if variant is None:
            return None
        entry = variant.entries[0 if plan.serial else 1]
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
        return entry, row


# How a kernel input becomes the 1-d array the kernel reads: itself reshaped (C-contiguous), a
# window from its first element to the last one it reaches (non-negative strides), or a
# contiguous copy of it (negative strides; or small, as a copy costs ~1-2 us against ~5 us for
# as_strided's window). A positive number k: the window is its element [0, ..., 0] along its
# first k dimensions, of stride 0 (an expanded bias, a broadcast scalar), which is C-contiguous.
_VIEW, _WINDOW, _COPY = 0, -1, -2
_COPY_BYTES = 32 * 1024


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
    return _WINDOW


def _small_flattening(x) -> int:
    how = _flattening(x)
    return _COPY if how == _WINDOW and x.size * x.itemsize <= _COPY_BYTES else how


def _flat(x, how: int, xp):
    """``x`` as the 1-d array the kernel reads (``how`` from ``_flattening``; a ``_COPY`` input
    is copied here when the caller has not)."""
    if how == _VIEW:
        return x.reshape(-1)
    if how > 0:
        return x[(0,) * how].reshape(-1)
    if how == _COPY:
        return xp.ascontiguousarray(x).reshape(-1)
    item = x.itemsize
    span = 1 + sum((n - 1) * s // item for n, s in zip(x.shape, x.strides)) if x.size else 0
    strided = as_strided if xp is np else xp.lib.stride_tricks.as_strided
    return strided(x, shape=(span,), strides=(item,))


def kernel_source(group: Node | Graph, *example_inputs, precise: bool = False) -> str:
    """The Python source fusejit generates for ``group`` called with inputs like these."""
    return FusedKernel(group, precise=precise).source(*example_inputs)
