"""``CudaFusedKernel``: a fusion group compiled by ``@cuda.jit``, called with device arrays.

The group description (``layout``), the launch plan (``plan``: broadcasting, chunk offsets,
concat slices, coalesced dimensions) and the op templates are the CPU kernel's; only the loop
around the element computation differs (``codegen.generate_cuda``)::

    with prim::FusionGroup_0 = graph(%0 : Float(*, *), %1 : Float(*)):
      %2 : Float(*, *) = aten::mul(%0, %1)
      return (%2)

    kernel = CudaFusedKernel(group, device)      # device: fusejit.runtime.devices.CudaDevice
    (out,) = kernel(x, y)                        # CuPy in, CuPy out, on the current stream

Kernels are specialised on (dtype, rank) per input and on the device's compute capability
(which is also written into the source, so each generation has its own cache file and Numba
cache entry). The launch covers the element count with a grid-stride loop
(``launch_config``). The int64 ``meta`` array of a plan is uploaded once and kept on the
device; nothing else is copied, and the only synchronisation is reading the status flag of
kernels that can divide integers by zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InterpreterError
from ...ir.graph import Graph, Node
from .cache import load_module, reload_module
from .codegen import ArgSpec, generate_cuda
from .compiler import FusedKernel, from_numba_cache
from .plan import Plan

THREADS_PER_BLOCK = 256
# Blocks per launch, in multiples of what the device keeps resident at once: more than one
# wave evens out the tail when blocks finish at different times.
WAVES = 4


def launch_config(numel: int, sm_count: int, max_threads_per_sm: int,
                  max_threads_per_block: int) -> tuple[int, int]:
    """(blocks, threads per block) for a grid-stride loop over ``numel`` elements."""
    if numel <= 0:
        raise InterpreterError("a CUDA launch needs at least one element")
    threads = max(1, min(THREADS_PER_BLOCK, max_threads_per_block))
    needed = -(-numel // threads)
    resident = max(1, sm_count) * max(1, max_threads_per_sm // threads)
    return max(1, min(needed, resident * WAVES)), threads


class _CudaVariant:
    __slots__ = ("source", "kernel", "out_dtypes", "guarded")

    def __init__(self, source: str, kernel: Any, out_dtypes: list[np.dtype], guarded: bool):
        self.source = source
        self.kernel = kernel
        self.out_dtypes = out_dtypes
        self.guarded = guarded


def _leading_ones(plan: Plan) -> int:
    """How many of the plan's first dimensions have size 1 (the last one is never counted):
    its coalesced sizes are padded to the group's rank with leading 1s."""
    sizes = [int(plan.meta[4 + d]) for d in range(plan.rank - 1)]
    lead = 0
    while lead < len(sizes) and sizes[lead] == 1:
        lead += 1
    return lead


class CudaFusedKernel(FusedKernel):
    """One fusion group for one CUDA device; ``kernel(*device_arrays) -> tuple``."""

    SHORT_ROWS = False      # (a thread an element: no tiles of rows)

    def __init__(self, group: Node | Graph, device: Any):
        super().__init__(group, precise=True)
        self.device = device
        self.xp = device.xp
        self._device_meta: dict[int, tuple[Plan, Any]] = {}

    def _cuda_variant(self, specs: list[ArgSpec], plan: Plan) -> _CudaVariant:
        cc = tuple(self.device.compute_capability)
        lead = _leading_ones(plan)
        # Unit and zero strides only in one-dimensional loops: in the LSTM cell's rank-2 loop
        # over chunks (H200, 8192 x 8192) i1 for i1 * stride ran 2.33 ms against 2.07.
        classes = plan.classes if lead == plan.rank - 1 else None
        key = (tuple(s.key() for s in specs), plan.rank, cc, classes, lead)
        variant = self._variants.get(key)
        if variant is None:
            source, out_dtypes, guarded = generate_cuda(self.layout, specs, plan.rank, cc,
                                                        classes, lead)
            module = load_module(source)
            variant = _CudaVariant(source, module.kernel_cuda, out_dtypes, guarded)
            self._variants[key] = variant
        return variant

    def _meta(self, plan: Plan) -> Any:
        found = self._device_meta.get(id(plan))
        if found is not None and found[0] is plan:
            return found[1]
        if len(self._device_meta) > 2 * len(self._plans) + 8:
            self._device_meta.clear()
        meta = self.device.upload(plan.meta)
        self._device_meta[id(plan)] = (plan, meta)
        return meta

    def source(self, *inputs) -> str:
        """The generated CUDA module's text for inputs like these."""
        specs, _flats, _scalars, plan, _key = self._prepare(inputs)
        return self._cuda_variant(specs, plan).source

    def __call__(self, *inputs) -> tuple:
        specs, flats, scalars, plan, _key = self._prepare(inputs)
        variant = self._cuda_variant(specs, plan)
        xp = self.xp
        outs = [xp.empty(shape, dtype) for shape, dtype in zip(plan.out_shapes,
                                                                variant.out_dtypes)]
        if plan.numel:
            device = self.device
            status = xp.zeros(1, np.int64) if variant.guarded else device.no_status()
            arrays = [self._meta(plan), *flats]
            args = ([device.kernel_arg(a) for a in arrays[:1]] + [plan.numel]
                    + [device.kernel_arg(a) for a in arrays[1:]] + scalars
                    + [device.kernel_arg(o.reshape(-1)) for o in outs]
                    + [device.kernel_arg(status)])
            try:
                device.launch(variant.kernel, plan.numel, args)
            except Exception as why:
                if not from_numba_cache(why):
                    raise
                # Numba's cached code for this kernel would not load: recompile it.
                variant.kernel = reload_module(variant.source).kernel_cuda
                device.launch(variant.kernel, plan.numel, args)
            if variant.guarded and int(status[0]):
                raise InterpreterError("integer division by zero in a fused remainder or fmod")
        if plan.out_axes is not None:
            # (allocated in the inputs' memory order, as on the CPU: plan.py)
            return tuple(o.transpose(axes) for o, axes in zip(outs, plan.out_axes))
        return tuple(outs)
