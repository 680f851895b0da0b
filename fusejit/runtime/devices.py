"""Devices: where tensors live, and what a plan asks of its device (CPU/NumPy, CUDA/CuPy).

::

    graph(%x : Float(*, *), %y : Float(*, *)):       fn = compile(graph, fuse=True, device="cuda")
      %z : Float(*, *) = aten::mul(%x, %y)           z = fn(cupy_x, cupy_y)  # a CuPy array
      %w : Float(*, *) = aten::tanh(%z)
      return (%w)

``get_device("cuda")`` gives the :class:`CudaDevice`: its array module ``xp`` (CuPy; NumPy under
Numba's simulator, ``NUMBA_ENABLE_CUDASIM=1``, where NumPy arrays stand in for device arrays),
compute capability, SM count and launch helpers. Without CuPy or ``numba.cuda`` it raises a
:class:`~fusejit.FusejitError` that says what to install; ``import fusejit`` never needs them.

Graphs run on every device through one executor (``runtime/executor.py``: specialisation per
argument spec, the fusion pipeline, lowering, the interpreter loops). A device decides only what
is device-specific, through the same members of :class:`CpuDevice` and :class:`CudaDevice`:
which arrays it takes (``array_type``, and ``check_arrays``, None where the type says all), the
operations of ops outside groups (``make_operation``: None on the CPU, for the operator table;
on CUDA the CuPy bodies, a simple map outside any group running as a one-node kernel), the
kernel of a fusion group (``group_kernel``: a :class:`~.fusion.FusedKernel` or a
:class:`~.fusion.cuda_compiler.CudaFusedKernel`) and where tensor constants live
(``place_constants``). On CUDA, inputs must all be device arrays: a host array, or arrays on two
devices, raise :class:`~fusejit.InterpreterError` naming the argument; nothing is copied
silently. Kernels launch on CuPy's current stream.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FusejitError, InterpreterError, IRError
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import prim
from ..ir.types import TensorType
from ..oplib.table import is_cuda_array

INSTALL_HINT = ('install the CUDA extras with `pip install -e ".[cuda]"` (CuPy and numba-cuda) '
                "on a machine with an NVIDIA driver, or set NUMBA_ENABLE_CUDASIM=1 before "
                "importing numba to use Numba's CUDA simulator")

# Under the simulator each simulated thread costs about 0.2 ms: a tiny device keeps grids small
# while still launching more than one block (so the grid-stride loop is exercised).
_SIM_PROPERTIES = {"sm_count": 1, "max_threads_per_sm": 8, "max_threads_per_block": 4}

_lock = threading.Lock()
_cuda_device: CudaDevice | None = None


class CpuDevice:
    """Host memory: NumPy arrays; ops run the operator table's bodies, groups ``FusedKernel``s."""

    name = "cpu"
    xp = np
    simulated = False
    array_type = np.ndarray

    def is_array(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    # Nothing to check beyond the arrays' type (check_inputs does that), and ops come from the
    # operator table (runtime/ops): the executor skips what is None.
    check_arrays = None
    make_operation = None

    def group_kernel(self, group: Node, precise: bool) -> Any:
        """A fusion group's ``FusedKernel``; a row- or column-reduction group's ``RowKernel``;
        for a group that raises to a number known at run time, one that picks per call
        between that and the kernel of its copy squaring where the number is 2.0
        (``fusion/exponents.py``)."""
        from .fusion.exponents import ByExponent, squared_exponents, squared_group
        from .fusion.written_into import WrittenInto

        kernel = _kernel_of(group, precise)
        positions = squared_exponents(group) if not precise else ()
        if positions:
            kernel = ByExponent(kernel, positions, lambda squared: _kernel_of(
                squared_group(group, squared), precise))
        if group.has_attribute("written_into"):
            return WrittenInto(kernel, group)
        return kernel

    def place_constants(self, code: Any) -> None:
        """Tensor constants stay where the parser put them: in host memory."""


def _kernel_of(group: Node, precise: bool) -> Any:
    """The kernel computing ``group``'s subgraph: a ``RowKernel`` for a row- or
    column-reduction group, else a ``FusedKernel``."""
    from .fusion import FusedKernel
    from .fusion.row_kernel import RowKernel

    if group.kind in (prim.RowReductionGroup, prim.ColumnReductionGroup):
        return RowKernel(group, precise=precise)
    return FusedKernel(group, precise=precise)


class CudaDevice:
    """The current CUDA device, seen through CuPy (or NumPy under the simulator)."""

    name = "cuda"

    def __init__(self) -> None:
        try:
            from numba import config, cuda
        except ImportError as error:
            raise FusejitError(f"device 'cuda' needs numba.cuda ({error}); {INSTALL_HINT}") \
                from None
        self._cuda = cuda
        self.simulated = bool(config.ENABLE_CUDASIM)
        self._streams: dict[int, Any] = {}
        self._no_status: Any = None
        if self.simulated:
            self.xp = np
            self.compute_capability = tuple(cuda.current_context().device.compute_capability)
            self.sm_count = _SIM_PROPERTIES["sm_count"]
            self.max_threads_per_sm = _SIM_PROPERTIES["max_threads_per_sm"]
            self.max_threads_per_block = _SIM_PROPERTIES["max_threads_per_block"]
            return
        try:
            import cupy
        except ImportError as error:
            raise FusejitError(f"device 'cuda' needs CuPy ({error}); {INSTALL_HINT}") from None
        try:
            available = cuda.is_available()
        except Exception:  # noqa: BLE001 - a broken driver reads as no device
            available = False
        if not available:
            raise FusejitError(f"device 'cuda': no usable CUDA device or driver; {INSTALL_HINT}")
        self.xp = cupy
        device = cuda.get_current_device()
        self.compute_capability = tuple(device.compute_capability)
        # (from the CUDA runtime through CuPy: numba-cuda's attribute names follow the driver
        # bindings it runs on, and MAX_THREADS_PER_MULTI_PROCESSOR is missing from some)
        properties = cupy.cuda.runtime.getDeviceProperties(device.id)
        self.sm_count = int(properties["multiProcessorCount"])
        self.max_threads_per_sm = int(properties["maxThreadsPerMultiProcessor"])
        self.max_threads_per_block = int(properties["maxThreadsPerBlock"])

    def __repr__(self) -> str:
        major, minor = self.compute_capability
        kind = "simulated " if self.simulated else ""
        return f"<{kind}CUDA device sm_{major}{minor}, {self.sm_count} SMs>"

    # -- arrays ------------------------------------------------------------------------------
    def is_array(self, value: Any) -> bool:
        return isinstance(value, self.xp.ndarray)

    @property
    def array_type(self) -> type:
        return self.xp.ndarray

    def check_arrays(self, params: Sequence[Value], inputs: Sequence[Any]) -> None:
        """Every array among the inputs is on the device (a host array would need a copy:
        that is the caller's decision)."""
        if not self.simulated:
            infer_device(inputs)
        for index, (param, value) in enumerate(zip(params, inputs)):
            for array in _arrays_in(value):
                if not self.is_array(array):
                    raise InterpreterError(
                        f"argument %{param.debug_name} (input {index}) is a "
                        f"{type(array).__module__}.{type(array).__name__} on the host; the "
                        f"function runs on cuda: pass a CuPy array (cupy.asarray(x))")
            if isinstance(param.type, TensorType) and not self.is_array(value):
                raise InterpreterError(
                    f"argument %{param.debug_name} (input {index}) expects a tensor on cuda, "
                    f"got {type(value).__name__}")

    def make_operation(self, node: Node) -> Any:
        """The device body of ``node``; a simple map runs as a one-node kernel."""
        from .ops.cupy_bodies import make_device_operation

        operation = make_device_operation(node, self.xp)
        single = _single_node_kernel(node, self)
        if single is None:
            return operation
        return lambda *args: _run_single(single, operation, args)

    def group_kernel(self, group: Node, precise: bool) -> Any:
        """A ``@cuda.jit`` kernel for ``group``. It computes with libdevice's functions,
        which are as accurate as libm: every CUDA kernel is ``precise``."""
        from .fusion.cuda_compiler import CudaFusedKernel

        return CudaFusedKernel(group, self)

    def place_constants(self, code: Any) -> None:
        """Copy the tensor constants of ``code`` (and of its subcodes) to the device once."""
        if self.simulated:
            return
        for i, value in enumerate(code.constants):
            if isinstance(value, np.ndarray):
                code.constants[i] = self.upload(value)
        for sub in code.subcodes:
            self.place_constants(sub)

    def upload(self, host: np.ndarray) -> Any:
        """An explicit host-to-device copy (launch metadata, tensor constants)."""
        return self.xp.asarray(host)

    def kernel_arg(self, array: Any) -> Any:
        """What a kernel launch takes for ``array``: Numba's view of the CuPy memory, made
        without the stream synchronisation Numba would otherwise do for each argument."""
        if self.simulated:
            # The simulator would copy a NumPy argument in and back out (failing on read-only
            # inputs); its own wrapper type shares the memory instead, as a device array does.
            from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

            return FakeCUDAArray(array)
        return self._cuda.as_cuda_array(array, sync=False)

    def no_status(self) -> Any:
        """A status flag for kernels that never set it (allocated once)."""
        if self._no_status is None:
            self._no_status = self.xp.zeros(1, np.int64)
        return self._no_status

    # -- launching ---------------------------------------------------------------------------
    def stream(self) -> Any:
        """Numba's handle on CuPy's current stream (0, the default, under the simulator)."""
        if self.simulated:
            return 0
        ptr = int(self.xp.cuda.get_current_stream().ptr)
        stream = self._streams.get(ptr)
        if stream is None:
            cuda = self._cuda
            stream = cuda.default_stream() if ptr == 0 else cuda.external_stream(ptr)
            self._streams[ptr] = stream
        return stream

    def launch(self, kernel: Any, numel: int, args: Sequence[Any]) -> None:
        """Run ``kernel`` over ``numel`` elements on the current stream."""
        from .fusion.cuda_compiler import launch_config

        blocks, threads = launch_config(numel, self.sm_count, self.max_threads_per_sm,
                                        self.max_threads_per_block)
        kernel[blocks, threads, self.stream()](*args)


def cuda_device() -> CudaDevice:
    """The process's CUDA device (made on first use); a clear error when there is none."""
    global _cuda_device
    if _cuda_device is None:
        with _lock:
            if _cuda_device is None:
                _cuda_device = CudaDevice()
    return _cuda_device


def get_device(name: str) -> CpuDevice | CudaDevice:
    """``"cpu"`` or ``"cuda"`` (``"cuda:0"``: the current device)."""
    if name == "cpu":
        return CpuDevice()
    if isinstance(name, str) and (name == "cuda" or name.startswith("cuda:")):
        return cuda_device()
    raise FusejitError(f"unknown device {name!r}; choose 'cpu' or 'cuda'")


def infer_device(values: Sequence[Any]) -> str | None:
    """``"cuda"`` when the arguments hold CuPy arrays, ``"cpu"`` for NumPy arrays, None with no
    arrays; mixing the two raises :class:`InterpreterError` naming an argument of each."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        for array in _arrays_in(value):
            kind = "cuda" if is_cuda_array(array) else "cpu"
            seen.setdefault(kind, index)
    if len(seen) > 1:
        raise InterpreterError(
            f"arguments on different devices: input {seen['cuda']} is a CuPy (cuda) array and "
            f"input {seen['cpu']} a NumPy (cpu) array; move them with cupy.asarray / .get()")
    return next(iter(seen), None)


def _arrays_in(value: Any):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _arrays_in(item)
    elif isinstance(value, np.ndarray) or is_cuda_array(value):
        yield value


# -- one-node kernels for simple maps outside any group ----------------------------------------

def _single_node_kernel(node: Node, device: CudaDevice):
    """A one-node fusion group for a simple map outside any group, or None."""
    from .fusion.cuda_compiler import CudaFusedKernel
    from .fusion.templates import RENDERERS

    if node.kind not in RENDERERS or len(node.outputs) != 1 or node.blocks:
        return None
    if not any(isinstance(v.type, TensorType) for v in node.inputs):
        return None
    sub = Graph()
    env: dict[Any, Any] = {}
    for value in node.inputs:
        if value in env:
            continue
        if value.node.kind == prim.Constant and not isinstance(value.type, TensorType):
            with sub.inserting_before(sub.block.return_node):
                env[value] = sub.insert_node(sub.create_clone(value.node, lambda v: v)).output()
        else:
            env[value] = sub.add_input(value.debug_name if value.has_debug_name() else None,
                                       value.type)
    with sub.inserting_before(sub.block.return_node):
        clone = sub.insert_node(sub.create_clone(node, lambda v: env[v]))
    sub.register_output(clone.output())
    try:
        kernel = CudaFusedKernel(sub, device)
    except IRError:
        return None
    # The kernel's inputs are the node's non-constant inputs, in order of first use.
    positions = []
    seen: set = set()
    for i, value in enumerate(node.inputs):
        if value not in seen and not (value.node.kind == prim.Constant
                                      and not isinstance(value.type, TensorType)):
            positions.append(i)
        seen.add(value)
    return kernel, positions


def _run_single(single, operation, args: tuple) -> tuple:
    kernel, positions = single
    try:
        return kernel(*[args[i] for i in positions])
    except IRError:
        # No kernel for these dtypes (float16...): the op's device body decides.
        return operation(*args)
