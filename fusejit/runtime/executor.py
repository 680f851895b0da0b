"""``fusejit.compile``: a graph made callable.

::

    fn = compile(parse_ir('''graph(%x : Float(3), %n : int):
      %y : Float(3) = aten::mul(%x, %n)
      return (%y)'''))
    fn(np.ones(3, np.float32), 2)        # array([2., 2., 2.], dtype=float32)

Arguments are checked against the graph's input types, and a mismatch raises
:class:`~fusejit.InterpreterError` naming the parameter. A ``Tensor`` parameter accepts a NumPy
array of any dtype and shape, even where the IR type is complete (``Float(3, 4)``): graphs are
specialised per input later, and PyTorch's profiled graphs likewise take any tensor. ``int``,
``float`` and ``bool`` parameters take Python (or NumPy) scalars of that kind, an ``int`` also
where a ``float`` is expected; ``bool`` is not an ``int`` here, as in TorchScript. Lists, tuples
and optionals are checked element by element.

The compiled function is thread-safe: every call has its own registers.

``fuse=True`` runs the graph fuser on a copy specialised to the inputs (``Plan``) and compiles
each fusion group to a ``FusedKernel``; a group whose kernel declines its inputs runs by
interpreting its subgraph.

``device="cuda"`` runs the same pipeline on CuPy arrays: the device only compiles the kernels
(``@cuda.jit``) and supplies the array module (``runtime/devices.py``). Plans there run on the
reference loop (every tensor instruction is a host-side launch, which the native loop would hand
back to Python anyway), so ``engine="native"`` is refused on CUDA.

``engine="native"`` runs the Numba instruction loop (``runtime/interpreter.py``);
``engine="reference"`` the pure-Python loop it is tested against (``runtime/reference.py``).
``engine="auto"`` (the default) picks one per plan, in two steps. ``Plan.engine`` says where a
plan belongs: the native loop when every instruction of the plan runs in it (fused kernels
included) and the plan loops or has at least ``NATIVE_MIN_OPS`` operations, else the reference
loop. A call on the native loop costs about 20 us however short the plan (moving tensors into and
out of the typed-List register file; measured on chains of float32 adds), against about 5 us an
operation on the reference loop: the two meet near three operations (1 op: 21 us native, 10 us
reference; 8 ops: 21 and 46 us; 64 ops: 25 and 336 us); 6 leaves a margin for ops cheaper than
adds on the reference loop. Each operation the native loop hands back to Python costs it a
round trip (about two reference-loop operations), so a plan runs there only when it has at least
``NATIVE_OPS_PER_HOST_OP`` native operations for each such one, and no call, fork or wait. Then
``runtime/tiering.py`` decides when a native plan moves there: it starts on the reference loop
and moves once it is hot and the native loop is compiled, so that no call waits for the native
engine to compile (once per machine) or load (once per process) before it is worth it.

A warm call is remembered (``runtime/remembered.py``: one generated test of its inputs, then
the plan), and a reference plan without jumps runs as one generated function, not the loop
(``runtime/straight.py``): chains of adds on 16 float32 then cost about 1.8 us an operation
against the native loop's 25-30 us a call (6 ops: 10.8 and 26.4 us; 16 ops: 29.4 and 28.9 us),
so a plan without a loop goes native from 16 operations (``NATIVE_MIN_OPS``; it was 6 before
that function, and ``np.polyval`` of four coefficients, 10 operations written out, ran
41.7 us a call natively against 13.2 on the reference side).
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from ..dask import has_dask_arrays
from ..errors import FusejitError, InterpreterError, IRError
from ..ir.graph import Graph, Node, Value
from ..ir.limits import fits_int64
from ..ir.symbols import aten, prim
from ..ir.types import (
    INT,
    TENSOR,
    AnyType,
    BoolType,
    DeviceType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    ScalarType,
    StringType,
    TensorType,
    TupleType,
    Type,
)
from . import blas, interpolate, remembered, tiering  # noqa: F401  (interpolate: np.interp's body)
from .code import Code
from .devices import CpuDevice, CudaDevice, get_device
from .fusion.outputs import host_sized
from .interpreter import NativeInterpreter
from .portable import Portable
from .reference import InterpreterState, SingleOperation
from .straight import straight_line

ENGINES = ("native", "reference")
# Array dtypes a Tensor argument may have: those with a TorchScript scalar type.
_TENSOR_DTYPES = frozenset(st.value for st in ScalarType)
ENGINE_CHOICES = ("auto", *ENGINES)


class CompiledFunction(Portable):
    """A graph ready to run: ``fn(*inputs)`` returns one value, a tuple, or None (no outputs).

    With ``fuse=True`` it is PyTorch's legacy graph executor: per argument spec (per input: kind,
    dtype, rank, contiguity) a :class:`Plan` specialises the graph's types to the inputs, fuses
    it, compiles each fusion group into a kernel and lowers the result to ``Code``.
    """

    def __init__(self, graph: Graph, fuse: bool = False, engine: str = "auto",
                 precise: bool = False, device: str = "cpu", reductions: bool = False):
        if not isinstance(graph, Graph):
            raise FusejitError(f"compile needs a fusejit Graph, got {type(graph).__name__}")
        if engine not in ENGINE_CHOICES:
            raise FusejitError(f"unknown engine {engine!r}; choose one of "
                               f"{', '.join(ENGINE_CHOICES)}")
        self.device = get_device(device)
        # Looked up once: check_inputs runs on every call.
        self._arrays = self.device.array_type
        self._check_arrays = self.device.check_arrays
        if self.device.name != "cpu" and engine == "native":
            raise FusejitError(f"engine='native' runs on the CPU only, not on device "
                               f"{device!r}: choose engine='auto' or 'reference'")
        self.engine = engine
        self.fuse = fuse
        self.precise = precise
        self.reductions = reductions
        self.graph = graph.copy()
        self.params = list(self.graph.inputs)
        self._tensors = [isinstance(p.type, TensorType) for p in self.params]
        self._plans: dict[tuple, Plan] = {}
        self._plans_lock = threading.Lock()
        self._timings: dict[Plan, PlanTimings] = {}     # shown by _repr_html_
        self._remembered = remembered.RememberedCalls(self, self._call)   # (see __call__)
        if not fuse:
            # One plan serves every input: the graph as given, unspecialised.
            self._unfused = Plan(self.graph.copy(), None, device=self.device)

    def plan_for(self, inputs: Sequence[Any]) -> Plan:
        """The plan that runs ``inputs`` (already checked), built on first use of its spec."""
        if not self.fuse:
            return self._unfused
        spec = argument_spec(inputs, self._arrays)
        plan = self._plans.get(spec)
        if plan is None:
            with self._plans_lock:
                plan = self._plans.get(spec)
                if plan is None:
                    start = time.perf_counter()
                    plan = Plan(self.graph.copy(), inputs, precise=self.precise,
                                device=self.device, reductions=self.reductions)
                    self._timings[plan] = PlanTimings(time.perf_counter() - start)
                    self._plans[spec] = plan
        return plan

    def check_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """The inputs, converted where TorchScript converts (int for float); or a clear error."""
        if len(inputs) != len(self.params):
            names = ", ".join(f"%{p.debug_name}" for p in self.params)
            raise InterpreterError(
                f"expected {len(self.params)} arguments ({names}), got {len(inputs)}")
        if self._check_arrays is not None:
            self._check_arrays(self.params, inputs)
        arrays = self._arrays
        # (an array of a dtype seen before, for a Tensor parameter, is taken as it is: what
        # _convert would do, without its two calls, ~0.25 us an argument)
        return [x if tensor and type(x) is arrays and x.dtype in _TENSOR_DTYPE_OBJECTS
                else _check_argument(p, i, x, arrays)
                for i, (p, x, tensor) in enumerate(zip(self.params, inputs, self._tensors))]

    def __call__(self, *inputs: Any) -> Any:
        # A remembered call (``runtime/remembered.py``), or the general path (``_call``).
        return self._remembered.dispatch(inputs)

    def _call(self, inputs: tuple) -> Any:
        """The general path: check, find the plan, run it on its tier, time the call; and
        remember what calls like this one run from now on, once its plan has settled."""
        if has_dask_arrays(inputs):  # chunk by chunk, returning Dask arrays (fusejit/dask.py)
            from ..dask import call_on_dask

            return call_on_dask(self, inputs)
        start = time.perf_counter()
        stack = self.check_inputs(inputs)
        plan = self.plan_for(stack)
        if plan.products:
            blas.refresh()   # (whether products may use the other cores: runtime/blas.py)
        code = plan.code
        engine = plan.tier() if self.engine == "auto" else self.engine
        if engine == "native" and not (self.engine == "auto" and host_sized(stack)):
            NativeInterpreter(code).run(stack)
        elif engine in ("reference", "native"):    # (native: big arrays, outputs.host_sized)
            plan.run_reference(stack)
        else:   # a plan on its way to the native loop: count its time on the reference side
            # (its straight-line form where it has one: one_hot's 17-row plan warmed at 39 us
            # a call through the general loop, against NumPy's 11)
            start_run = time.perf_counter()
            plan.run_reference(stack)
            plan.warming += time.perf_counter() - start_run
        timings = self._timings.get(plan)
        if timings is None:
            timings = self._timings.setdefault(plan, PlanTimings(None))
        timings.record(time.perf_counter() - start)
        self._remembered.remember(plan, engine, inputs, timings)
        if len(stack) == 1:
            return stack[0]
        return tuple(stack) if stack else None


    def graph_for(self, *inputs: Any) -> Graph:
        """The optimised graph that runs for these inputs (specialised and fused with
        ``fuse=True``)."""
        return self.plan_for(self.check_inputs(inputs)).graph

    def code_for(self, *inputs: Any) -> Code:
        """The lowered instructions that run for these inputs."""
        return self.plan_for(self.check_inputs(inputs)).code

    @property
    def run_graph(self) -> Graph:
        """The graph of the most recently built plan (the unfused graph before any call)."""
        if not self.fuse:
            return self._unfused.graph
        plans = list(self._plans.values())
        return plans[-1].graph if plans else self.graph

    def __reduce__(self) -> tuple:
        # Sent to another process as graph text, rebuilt there once (runtime/portable.py).
        from .portable import reduce_compiled

        return reduce_compiled(self)

    def __repr__(self) -> str:
        names = ", ".join(f"%{p.debug_name}" for p in self.params)
        on = "" if self.device.name == "cpu" else f" device={self.device.name}"
        return f"<fusejit.CompiledFunction ({names}) engine={self.engine}{on}>"

    def _repr_html_(self) -> str:
        from ..display import function_html

        plans = list(self._plans.items()) if self.fuse else [((), self._unfused)]
        return function_html(self, plans, self._timings)


class PlanTimings:
    """Seconds to build a plan (None: built with its function), its number of calls and the
    time of the ``timed`` ones among them (the first, which compiles the plan's kernels, and
    every call on the general path, and a sample of remembered calls); for display only."""

    __slots__ = ("build_s", "calls", "first_call_s", "total_s", "timed")

    def __init__(self, build_s: float | None):
        self.build_s = build_s
        self.calls = 0
        self.timed = 0
        self.first_call_s: float | None = None
        self.total_s = 0.0

    def record(self, seconds: float) -> None:
        """A call, timed."""
        # Unlocked: concurrent calls may lose a count; these numbers are only shown.
        self.calls += 1
        self.sample(seconds)

    def sample(self, seconds: float) -> None:
        """The time of a call already counted."""
        if self.first_call_s is None:
            self.first_call_s = seconds
        self.timed += 1
        self.total_s += seconds

    @property
    def mean_s(self) -> float | None:
        """The mean time of a call after the first (None: no such call timed)."""
        if self.timed < 2 or self.first_call_s is None:
            return None
        return (self.total_s - self.first_call_s) / (self.timed - 1)


def compile(graph: Graph, fuse: bool = False, engine: str = "auto", device: str = "cpu",
            precise: bool = False, reductions: bool = False):
    """Make ``graph`` callable; see :class:`CompiledFunction`.

    ``fuse=True`` specialises per argument spec, fuses and compiles fusion groups into kernels;
    ``precise=True`` keeps libm's exp/log/tanh in kernels instead of the vectorisable float32
    versions (see ``fusejit.runtime.fusion.fastmath`` for their measured error; CUDA kernels
    always use libdevice's accurate functions).
    ``device="cuda"`` runs on the GPU with CuPy arrays (see ``fusejit.runtime.devices``), through
    the same pipeline; ``engine="native"`` is CPU-only.
    ``reductions=True`` (what ``@fusejit.jit`` uses) also forms row-reduction groups after the
    fuser (``passes/reduction_fusion.py``): softmax or layer norm in one kernel. CUDA plans
    keep the unfused reductions.
    """
    return CompiledFunction(graph, fuse=fuse, engine=engine, precise=precise, device=device,
                            reductions=reductions)


class Plan:
    """What runs for one argument spec: the optimised graph, its kernels and its ``Code``."""

    __slots__ = ("graph", "code", "kernels", "device", "_engine", "_tier", "_short", "warming",
                 "single", "products", "_straight")

    def __init__(self, graph: Graph, inputs: Sequence[Any] | None, precise: bool = False,
                 device: CpuDevice | CudaDevice | None = None,
                 reductions: bool = False):
        self.device = device = device if device is not None else CpuDevice()
        self.kernels: list[GroupOperation] = []
        if inputs is not None:
            _optimise(graph, inputs, device, reductions)
        self.graph = graph

        def group_operation(node: Node) -> GroupOperation:
            self.kernels.append(GroupOperation(node, precise, device))
            return self.kernels[-1]

        self.code = Code(graph, make_operation=device.make_operation,
                         make_group_operation=group_operation if inputs is not None else None)
        device.place_constants(self.code)
        self.single = SingleOperation.of(self.code)
        # May it run a product, whose thread rule a call refreshes? Only a plan with a matrix
        # product the native loop runs (its own BLAS call reads the rule; host products and
        # compiled stages refresh it themselves), or a subgraph other than a group's, which
        # may hold one (x.mean(axis=0) of 16x256x256: the refresh cost ~6 us a call there,
        # its code and data cold after the kernel's pass over 8 MB; a row group and its
        # aten::Int, 10^4 elements: ~0.5 us of a 5 us call).
        self.products = any(
            n.kind in _PRODUCTS or n.kind not in _GROUPS and n.has_attribute("Subgraph")
            for n in graph.all_nodes())
        self._engine: str | None = None
        self._tier: str | None = None   # where auto runs it: None while still warming up
        self._short: bool | None = None  # no loop and fewer than NATIVE_MIN_OPS operations
        self.warming = 0.0                # seconds on the reference loop while warming up
        self._straight: Any = False       # (see straight)

    def straight(self) -> Any:
        """The plan's code as one Python function of its inputs, made on first use, where it
        has no calls, forks or waits (``runtime/straight.py``); else None."""
        if self._straight is False:
            self._straight = straight_line(self.code)
        return self._straight

    def run_reference(self, stack: list) -> None:
        """Run on the reference side: the one operation of a plan that fused into one group,
        the straight-line function of one with no jumps, else the loop (``InterpreterState``);
        the outputs replace the inputs on ``stack``."""
        if self.single is not None:
            self.single.run(stack)
        elif self.straight() is not None:
            stack[:] = self.straight()(stack)
        else:
            InterpreterState(self.code).run(stack)

    def tier(self) -> str:
        """Where ``engine="auto"`` runs this plan now: "native", "reference", or "warming" (the
        reference loop, timed; see ``runtime/tiering.py``)."""
        if self._tier is not None:
            return self._tier
        if self.device.name != "cpu":
            self._tier = "reference"     # the native loop runs host arrays only
            return self._tier
        if not tiering.enabled():
            self._tier = self.engine
            return self._tier
        if self._short is None:     # (worked out once: ~20 us a call for a 17-row plan)
            self._short = not _loops(self.code) and _count_ops(self.code) < NATIVE_MIN_OPS
        if self._short:
            # (what ``engine`` says for it, without building its native tables) A plan the
            # native loop would never take runs where it settles from its first call: one
            # fused group, ``x.mean(axis=0)``, ran the timed full loop for its first 0.5 s of
            # calls instead of ``SingleOperation`` (~4 us more a call).
            self._tier = "reference"
            return self._tier
        if self.warming < tiering.promote_after():
            return "warming"
        if self.engine != "native":
            self._tier = "reference"
        elif tiering.native_ready():
            self._tier = "native"
        else:
            tiering.request_native()
            # Ask again after a while on the reference loop: the compile may have finished.
            self.warming -= tiering.RECHECK_SECONDS
            return "warming"
        return self._tier

    @property
    def engine(self) -> str:
        """The engine ``engine="auto"`` runs this plan on (see the module docstring)."""
        if self._engine is None:
            loops = _loops(self.code)
            native = self.device.name == "cpu" and _all_native(
                self.code, host_ops=None if loops else 0) and (
                loops or _count_ops(self.code) >= NATIVE_MIN_OPS)
            self._engine = "native" if native else "reference"
        return self._engine


# Below this many operations a straight-line plan runs about as fast or faster on the
# reference loop (see the module docstring).
NATIVE_MIN_OPS = 16


def _loops(code: Code) -> bool:
    from .code import Opcode

    jumps = (Opcode.JUMP, Opcode.JUMPZ, Opcode.JUMPNZ)
    return any(row[0] in jumps and row[1] < 0 for row in code.rows)


def _count_ops(code: Code) -> int:
    from .code import Opcode

    return sum(row[0] == Opcode.OP for row in code.rows)


def _all_native(code: Code, host_ops: int | None = None) -> bool:
    """Does ``code`` run well inside the native loop (loads and stores aside): no call, fork or
    wait, and at most one operation the host runs for every ``NATIVE_OPS_PER_HOST_OP`` tensor
    operations that run natively (with ``host_ops``, at most that many)? A plan without a loop
    takes none: its straight-line function runs each host operation without the round trip
    (np.median(np.abs(x - np.median(x))) of 10^4 elements, 28 operations of which 2 host ones:
    185 us natively, 75.5 on the reference side, 69 in NumPy)."""
    from .code import Opcode
    from .native.opcodes import Group, NativeOp
    from .native.program import program_of

    native_op = program_of(code).native_op
    native = host = 0
    for pc, row in enumerate(code.rows):
        opcode = row[0]
        if opcode in (Opcode.CALL, Opcode.FORK, Opcode.WAIT):
            return False
        if opcode == Opcode.OP:
            op = native_op[pc]
            if op == NativeOp.HOST:
                host += 1
            elif op not in Group.SCALAR_BINARY and op not in Group.SCALAR_UNARY:
                native += 1   # (scalar ops are cheap on both loops: they do not count)
    return host * NATIVE_OPS_PER_HOST_OP <= native and (host_ops is None or host <= host_ops)


# A host operation inside the native loop costs a round trip to Python (~11 us measured on a
# loaded 2-core machine, against ~17 us per operation on the reference loop): a loop body of 1
# native op and 1 host op (erf) ran 0.88x as fast natively as on the reference loop, 4 native
# ops and 1 host op 1.34x, 8 and 1 2.2x, 8 and 2 1.4x. Below 4 native ops per host op the
# reference loop keeps the plan.
NATIVE_OPS_PER_HOST_OP = 4


def kernel_source(graph_or_group: Graph | Node | Any, *example_inputs: Any,
                  precise: bool = False) -> str:
    """The Python source fusejit generates for a fusion group (or a row- or column-reduction
    group) called with ``example_inputs``; for a whole graph, the sources of every kernel its
    fused plan runs on ``example_inputs`` (each headed by the group's printed name), in the
    order they run, with the row and column groups ``@fusejit.jit`` forms. A ``@fusejit.jit``
    function stands for the graph it runs for these arguments (``graph_for``: typed by them,
    with NumPy's dtypes)."""
    from ..display import KernelSource
    from ..passes.graph_fuser import is_simple_map
    from .fusion import kernel_source as group_source

    if not isinstance(graph_or_group, (Graph, Node)) and hasattr(graph_or_group, "graph_for"):
        graph_or_group = graph_or_group.graph_for(*example_inputs)
    if not isinstance(graph_or_group, (Graph, Node)):
        raise FusejitError(f"kernel_source needs a Graph, a fusion group node or a "
                           f"@fusejit.jit function, got {type(graph_or_group).__name__}")
    if isinstance(graph_or_group, Node):   # (a RowKernel for a row or column group)
        kernel = CpuDevice().group_kernel(graph_or_group, precise)
        return KernelSource(kernel.source(*example_inputs))
    # A group's subgraph holds only what a kernel computes; any graph made of just that
    # compiles to one kernel directly.
    if all(n.kind in _KERNEL_PLUMBING or is_simple_map(n) for n in graph_or_group.nodes()):
        return KernelSource(group_source(graph_or_group, *example_inputs, precise=precise))
    fn = CompiledFunction(graph_or_group, fuse=True, engine="reference", precise=precise)
    stack = fn.check_inputs(example_inputs)
    plan = Plan(fn.graph.copy(), stack, precise=precise, reductions=True)
    calls: list[tuple[Any, tuple]] = []
    for i, op in enumerate(plan.code.operations):
        if op in plan.kernels and op.kernel is not None:
            def recording(*args, _kernel=op.kernel, _op=op):
                try:
                    out = _kernel(*args)
                except (InterpreterError, IRError):
                    # Inputs the kernel declines: the group runs as a call runs it (its
                    # unfused plan or its subgraph interpreted), and has no source to show.
                    return _op(*args)
                calls.append((_kernel, args))
                return out

            plan.code.operations[i] = recording
    InterpreterState(plan.code).run(stack)
    return KernelSource("\n".join(f"# kernel {i}\n{kernel.source(*args)}"
                                   for i, (kernel, args) in enumerate(calls)))


_KERNEL_PLUMBING = frozenset({prim.Constant, prim.ConstantChunk, prim.FusedConcat})
# Products whose BLAS threads follow the rule ``blas.refresh`` sets (the native loop's ``mm``),
# and the groups, whose subgraphs hold none.
_PRODUCTS = frozenset({aten.mm, aten.matmul})
_GROUPS = frozenset({prim.FusionGroup, prim.RowReductionGroup, prim.ColumnReductionGroup})


def argument_spec(inputs: Sequence[Any], array_type: type = np.ndarray) -> tuple:
    """What a plan is specialised on: per input its kind, and for arrays (of the device's
    ``array_type``) dtype, rank and whether it is C-contiguous (never sizes)."""
    spec = []
    for x in inputs:
        if isinstance(x, array_type):
            dtype = x.dtype
            text = _DTYPE_STR.get(dtype)
            if text is None:
                text = dtype.str
                if dtype.isbuiltin == 1 and len(_DTYPE_STR) < 64:
                    _DTYPE_STR[dtype] = text
            spec.append((text, x.ndim, x.flags.c_contiguous))
        else:
            spec.append(type(x))
    return tuple(spec)


# ``dtype.str`` of NumPy's own dtypes (equal ones have the same text): it makes the string
# at each read, ~0.4 us, a quarter of a warm call's checks.
_DTYPE_STR: dict[np.dtype, str] = {}


def _optimise(graph: Graph, inputs: Sequence[Any], device: CpuDevice | CudaDevice,
              reductions: bool = False) -> None:
    """Specialise types to ``inputs``, then canonicalise and fuse (PyTorch's optimised path);
    with ``reductions`` (CPU only), first write out loops of a few constant trips
    (``passes/loop_unrolling.py``), make masked stores into fresh arrays values
    (``passes/fresh_stores.py``), sort only for the values read (``passes/sorted_values.py``),
    read the rolls of an array as windows of one wrapped copy (``passes/rolls_as_views.py``),
    add up the terms of ``+=`` into zeros first (``passes/accumulations.py``)
    and map the pieces of a concatenation (``passes/maps_over_cat.py``), write products with
    a short constant vector as their terms (``passes/short_products.py``), then after the
    fuser fuse the maps PyTorch's list leaves out
    (``passes/more_maps.py``) and the maps of one array that feed nothing of each other
    (``passes/sibling_maps.py``), form row-reduction groups, groups of one costly map
    (``passes/lone_maps.py``), fold in-place updates into their fusion groups, move the
    views the groups read into them (``passes/view_inputs.py``), and let the arithmetic left
    to NumPy write into dead temporaries (``passes/reused_temporaries.py``; all beyond
    PyTorch)."""
    from ..passes import (
        FUSION_PIPELINE,
        broadcast_read_fills,
        constant_propagation,
        distribute_maps_over_cat,
        eliminate_dead_code,
        expand_short_products,
        functionalize_carried_arrays,
        functionalize_fresh_stores,
        functionalize_fresh_updates,
        fuse_inplace_updates,
        fuse_lone_maps,
        fuse_more_maps,
        fuse_row_reductions,
        fuse_sibling_maps,
        move_views_into_groups,
        propagate_input_shapes,
        reuse_dead_temporaries,
        rolls_as_views,
        sort_values_only,
        sum_fresh_accumulations,
        unroll_constant_loops,
    )

    arrays = device.array_type
    propagate_input_shapes(graph, [_tensor_type(x, device.name) if isinstance(x, arrays)
                                   else None for x in inputs])
    if reductions and device.name == "cpu":
        if unroll_constant_loops(graph):
            constant_propagation(graph, numbers_only=True)   # (the trips' counters)
        functionalize_fresh_updates(graph)
        functionalize_fresh_stores(graph)
        functionalize_carried_arrays(graph)
        broadcast_read_fills(graph)
        sort_values_only(graph)
        if rolls_as_views(graph):
            eliminate_dead_code(graph)      # (the rolls' slices and cuts)
        sum_fresh_accumulations(graph)
        distribute_maps_over_cat(graph)
        expand_short_products(graph)
    for run_pass in FUSION_PIPELINE:
        run_pass(graph)
    if reductions and device.name == "cpu":
        fuse_more_maps(graph)
        fuse_sibling_maps(graph)
    if reductions and device.name == "cpu" and fuse_row_reductions(graph):
        eliminate_dead_code(graph)      # (the constants the groups took copies of)
    if reductions and device.name == "cpu":
        fuse_lone_maps(graph)
        fuse_inplace_updates(graph)
        move_views_into_groups(graph)
        reuse_dead_temporaries(graph)


def _tensor_type(array: Any, device: str) -> TensorType:
    """The type a plan specialises a tensor argument to: dtype, rank and device (as
    ``passes.argument_type``, for any device's arrays)."""
    return TensorType(ScalarType.from_dtype(array.dtype), (None,) * array.ndim, None, None,
                      device)


# The start of the warning a group gives when Numba refuses its kernel (the suite makes it an
# error: every kernel fusejit generates must compile).
KERNEL_REFUSED = ("Numba refused the kernel fusejit generated for a fusion group (it runs "
                  "interpreted)")

# Numba styles its error messages with terminal escapes where colorama is installed; a warning
# carries the plain text.
_TERMINAL_STYLE = re.compile(r"\x1b\[[0-9;]*m")


class GroupOperation:
    """The operation running one FusionGroup: its compiled kernel, falling back to interpreting
    the subgraph for inputs the kernel declines or rejects (as PyTorch's fusion executor falls
    back), or always where the kernel compiler cannot express the group.

    Under tiering (``runtime/tiering.py``) the kernel is compiled (or loaded from the disk cache)
    only once the interpreted group has taken ``KERNEL_AFTER_SECONDS``: a function called once on
    small inputs never waits for Numba. Before that (``KERNEL_ASK_SECONDS``) it asks for the
    kernel of the inputs it runs: taken at once where the disk cache holds it, else compiled in
    a background process while the group runs on interpreted (``_ask``); a group of long calls
    waits for that compile once it has taken ``KERNEL_AFTER_SECONDS`` (``WAIT_CALL_SECONDS``).
    ``kernel`` compiles it at once when asked (the native loop asks when it binds the group).
    """

    __slots__ = ("node", "precise", "device", "spent", "last", "_kernel", "_fallback",
                 "_straight", "_lock", "_later", "_unfused")

    def __init__(self, node: Node, precise: bool,
                 device: CpuDevice | CudaDevice | None = None):
        self.node = node
        self.precise = precise
        self.device = device if device is not None else CpuDevice()
        self.spent = 0.0                    # seconds interpreted while the kernel waits
        self.last = 0.0                     # (of which the last call's)
        self._kernel: Any = None            # the FusedKernel; False: it cannot be compiled
        self._fallback: Code | None = None
        self._straight: Any = None          # the subgraph's straight-line function, if any
        self._lock = threading.Lock()
        # None until the group asks for its kernel (``_ask``); then (the background compile,
        # the kernel it is for) while one runs, and False
        self._later: Any = None
        self._unfused: Any = None           # (a reduction group's: see _declined)
        if not tiering.enabled():
            self.kernel  # noqa: B018 - compile now

    @property
    def kernel(self):
        """The group's ``FusedKernel`` (compiled on first use), or None if it has none."""
        if self._kernel is None:
            with self._lock:
                if self._kernel is None:
                    self._kernel = self._compile()
        return self._kernel or None

    @property
    def ready(self) -> bool:
        """Does the group run its kernel now (or know it has none), with no compile left to
        wait for? (Timings of its calls before then are of the interpreted subgraph.)"""
        return self._kernel is not None

    def _compile(self):
        try:
            return self.device.group_kernel(self.node, self.precise)
        except IRError as why:
            warnings.warn(f"fusion group interpreted, not compiled: {why}", RuntimeWarning,
                          stacklevel=4)
            return False

    def __call__(self, *args):
        kernel = self._kernel      # (read once: a compiled group's calls skip the property)
        if kernel is None:
            kernel = self._warming(args)
            if kernel is None:
                start = time.perf_counter()
                try:
                    return self.interpret(args)
                finally:
                    self.last = time.perf_counter() - start
                    self.spent += self.last
        if not kernel:          # (None, or False: it cannot be compiled)
            return self.interpret(args)
        try:
            return kernel(*args)
        except (InterpreterError, IRError):
            # Declined inputs, dtypes the kernel has no code for, or a fault the kernel's
            # checks caught (incompatible shapes, integer division by zero): the interpreted
            # subgraph computes the answer, or raises the error at the op that fails, with
            # its source location.
            return self._declined(args)
        except NumbaError as why:
            # Numba refused the source fusejit generated for these argument types: a fault of
            # fusejit's code generation, not of the caller's program. The group runs
            # interpreted from now on (the same values), and says so once.
            self._kernel = False
            summary = " ".join(_TERMINAL_STYLE.sub("", str(why)).split())[:300]
            warnings.warn(f"{KERNEL_REFUSED}: {type(why).__name__}: {summary}",
                          RuntimeWarning, stacklevel=2)
            return self.interpret(args)

    def _warming(self, args) -> Any:
        """Under tiering, before the group has its kernel: the kernel where this call runs
        it, else None (the call runs interpreted)."""
        hot = self.spent >= tiering.KERNEL_AFTER_SECONDS
        # (long calls: see WAIT_CALL_SECONDS)
        wait = hot and self.last >= tiering.WAIT_CALL_SECONDS
        if self._later is None and self.spent >= tiering.KERNEL_ASK_SECONDS:
            self._later = False
            kernel = self._ask(args, here=wait)
            if kernel is not None:
                return kernel
        later = self._later
        if later:
            job, kernel = later
            if job.done is None:        # (compiling in the background: interpreted meanwhile)
                if not wait:
                    return None
                job.wait()
            self._later = False
            if job.done:
                return self._take(kernel)
        return self.kernel if hot else None

    def _take(self, kernel: Any) -> Any:
        with self._lock:
            if self._kernel is None:
                self._kernel = kernel
        return self._kernel

    def _ask(self, args, here: bool) -> Any:
        """The kernel, where this process or the disk cache holds the code a call on ``args``
        runs now (it loads at the call: milliseconds), or where it is to compile ``here``, in
        this process; else None, after asking a background process to compile it into the
        disk cache (``isolated.compile_later``). The other code the call may run, as the
        machine's load changes (serial and parallel kernels), is asked for in the background
        either way. Inputs the kernel declines, a kernel Numba has no cache for, a device
        other than the CPU: None, and ``KERNEL_AFTER_SECONDS`` decides as without asking."""
        if self.device.name != "cpu" or not tiering.background_compiles():
            return None
        from .fusion.isolated import cached, compile_later, shared_root

        kernel = self._compile()
        if not kernel:
            self._kernel = False        # (it cannot be compiled: said once, by _compile)
            return None
        try:
            missing = kernel.uncompiled(*args)
        except Exception:  # noqa: BLE001 - declined inputs: their calls decide, later
            return None
        requests, now = [], False
        for variant, dispatcher, signature, runs_now in missing:
            if cached(dispatcher, signature):
                continue
            if runs_now and here:
                continue            # (compiled by the call)
            root = shared_root(dispatcher)
            if root is None:
                return None
            requests.append((root, variant.source, dispatcher.py_func.__name__, signature))
            now = now or runs_now
        job = compile_later(requests) if requests else None
        if not now:
            return self._take(kernel)
        self._later = (job, kernel)
        return None

    def _declined(self, args) -> tuple:
        """A call the kernel declined: a reduction group runs as the graph fuser alone would
        have left it, its reductions on NumPy and its maps in fused kernels (a plan of the
        subgraph, ``reductions=False``, kept for later calls): ``(X ** 2).sum(1)[:, None] +
        yy - d`` with rows of 3 broadcast to 1000 x 1000, which no row kernel plans, ran every
        op on NumPy (0.44x NumPy's time for pairwise squared distances). Any other group, or
        an error, goes to ``interpret``, which raises it at the op that fails."""
        unfused = self._unfused
        if unfused is None:
            unfused = self._unfused = self._apart()
        if unfused:
            function, extra = unfused
            try:
                out = function(*args, *extra)
            except Exception:  # noqa: BLE001, S110 - interpret raises the error, located
                pass
            else:
                return out if type(out) is tuple else (out,)
        return self.interpret(args)

    def _apart(self) -> tuple | bool:
        """The plan ``_declined`` runs, with the arguments it takes after the group's; False
        where the group has none (it interprets)."""
        if self.node.kind in (prim.RowReductionGroup, prim.ColumnReductionGroup):
            return CompiledFunction(self.node.g("Subgraph").copy(), fuse=True,
                                    engine="reference", precise=self.precise,
                                    device=self.device.name), ()
        subgraph = self.node.g("Subgraph")
        if self.node.has_attribute("written_into") or not any(
                n.kind == prim.FusedConcat for n in subgraph.nodes()):
            return False
        # A FusedConcat's pieces of different lengths (np.gradient's one-sided ends around
        # its central differences, x[1:2] - x[:1] beside x[2:] - x[:-2]), which one kernel
        # cannot iterate: each piece fused on its own, then np.concatenate. Each concat's
        # dim is an argument of the plan, so that the fuser leaves it a concatenation.
        graph, dims = _concats_apart(subgraph)
        return CompiledFunction(graph, fuse=True, engine="reference", precise=self.precise,
                                device=self.device.name, reductions=True), tuple(dims)

    def interpret(self, args) -> tuple:
        """The group's subgraph on the reference loop (with the device's operations), or as
        the same instructions written out as one function (``straight.py``: a group with no
        control flow, the usual case), which saves ~0.5-1 us an instruction: a group runs
        here until its kernel is compiled (``KERNEL_AFTER_SECONDS``), and on 10^4 elements
        the loop had made ``(x - x.mean()) / x.std()`` 1.6x slower than NumPy's own calls."""
        if self._fallback is None:
            code = Code(self.node.g("Subgraph"), self.device.make_operation)
            self._straight = straight_line(code)
            self._fallback = code
        if self._straight is not None and len(args) == self._fallback.n_inputs:
            stack = list(self._straight(args))
        else:
            stack = list(args)
            InterpreterState(self._fallback).run(stack)
        if self.node.has_attribute("written_into"):     # (passes/inplace_fusion.py)
            from .fusion.written_into import copy_into

            return copy_into(args[self.node.i("written_into")], stack[0])
        return tuple(stack)


def _concats_apart(subgraph: Graph) -> tuple[Graph, list[int]]:
    """A copy of a fusion group's ``subgraph`` with each ``prim::FusedConcat`` an
    ``aten::cat`` of its pieces along a dim the graph takes as a new trailing input, and
    those dims."""
    graph = subgraph.copy()
    dims = []
    for node in [n for n in graph.nodes() if n.kind == prim.FusedConcat]:
        dim = graph.add_input(f"concat_dim{len(dims)}", INT)
        dims.append(node.i("dim"))
        with graph.inserting_before(node):
            pieces = graph.insert(prim.ListConstruct, list(node.inputs))
            pieces.output().type = ListType(TENSOR)
            cat = graph.insert(aten.cat, [pieces.output(), dim])
        cat.output().type = node.output().type
        node.output().replace_all_uses_with(cat.output())
        node.destroy()
    return graph, dims


class _Mismatch(Exception):
    pass


def _check_argument(param: Value, index: int, value: Any,
                    arrays: type = np.ndarray) -> Any:
    try:
        return _convert(param.type, value, arrays)
    except _Mismatch as why:
        raise InterpreterError(
            f"argument %{param.debug_name} (input {index}) expects {param.type}, got "
            f"{_describe(value)}{why}") from None


def _convert(t: Type, value: Any, arrays: type = np.ndarray) -> Any:
    """``value`` as a parameter of type ``t`` takes it; tensors are ``arrays`` (the device's)."""
    if isinstance(t, TensorType):
        if isinstance(value, arrays):
            if value.dtype not in _TENSOR_DTYPE_OBJECTS and not _tensor_dtype(value.dtype):
                raise _Mismatch(f" (dtype {value.dtype} has no tensor type; supported: "
                                f"{', '.join(sorted(_TENSOR_DTYPES))})")
            return value
        raise _Mismatch()
    if isinstance(t, BoolType):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise _Mismatch()
    if isinstance(t, IntType):
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return _int64(value)
        raise _Mismatch()
    if isinstance(t, FloatType):
        if isinstance(value, (bool, np.bool_)):
            raise _Mismatch()
        if isinstance(value, (float, np.floating)):
            return float(value)
        if isinstance(value, (int, np.integer)):
            return _as_float(value)
        raise _Mismatch()
    if isinstance(t, NumberType):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise _Mismatch()
        if isinstance(value, (float, np.floating)):
            return float(value)
        return _int64(value)
    if isinstance(t, NoneType):
        if value is None:
            return None
        raise _Mismatch()
    if isinstance(t, OptionalType):
        return None if value is None else _convert(t.elem, value, arrays)
    if isinstance(t, ListType):
        if not isinstance(value, (list, tuple)):
            raise _Mismatch()
        return [_convert_element(t.elem, i, x, arrays) for i, x in enumerate(value)]
    if isinstance(t, TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.elems):
            raise _Mismatch()
        return tuple(_convert_element(e, i, x, arrays)
                     for i, (e, x) in enumerate(zip(t.elems, value)))
    if isinstance(t, StringType):
        if isinstance(value, str):
            return value
        raise _Mismatch()
    if isinstance(t, (AnyType, DeviceType)):
        return value
    # Types the interpreter passes through unchecked (futures, classes): the graph decides.
    return value


# The dtypes found to have a tensor type (``dtype.name`` is a Python property, ~1.5 us a call).
_TENSOR_DTYPE_OBJECTS: set[np.dtype] = set()


def _tensor_dtype(dtype: np.dtype) -> bool:
    if dtype.name not in _TENSOR_DTYPES or dtype.hasobject:
        return False
    if len(_TENSOR_DTYPE_OBJECTS) < 64:
        _TENSOR_DTYPE_OBJECTS.add(dtype)
    return True


def _int64(value: int | np.integer) -> int:
    """An int argument as TorchScript holds it: 64-bit (a larger one would wrap in kernels)."""
    result = int(value)
    if not fits_int64(result):
        raise _Mismatch(" (beyond the 64-bit range of int)")
    return result


def _as_float(value: int | np.integer) -> float:
    try:
        return float(value)
    except OverflowError:
        raise _Mismatch(" (too large for a float)") from None


def _convert_element(t: Type, index: int, value: Any, arrays: type) -> Any:
    try:
        return _convert(t, value, arrays)
    except _Mismatch as why:
        raise _Mismatch(f" (element {index} is {_describe(value)}{why})") from None


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype} {tuple(value.shape)}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__
