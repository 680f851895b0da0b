"""Math functions that LLVM inlines into every kernel calling them, compiled by Numba once.

A kernel's loop vectorises only when each call in it is inlined, and LLVM's inliner leaves the
long vectorised forms (``vm.log_f64``, ``vl.lgamma_f32``...) as calls, over its size threshold.
Numba's own ``inline="always"`` inlines them, but at the level of Numba's IR: every kernel
copies the function's IR (a deep copy of every statement), runs Numba's untyped passes on it
again, and types and lowers the copy, at each call site. With LLVM inlining instead, a kernel
of 18 float32 math ops compiled in 3.8-4.7 CPU seconds against 4.7-5.4, a float32 chain of
transcendentals in 0.5-0.6 against 0.7-0.8, once the functions it calls are compiled (or
loaded from the disk cache); the first kernel of a process to call them pays for compiling
them alone, about what their inlined copies cost (``benchmarks/compile_time.py``).

``ALWAYS_INLINE`` (``@njit(**ALWAYS_INLINE)``, with the function's own options) compiles such a
function once per process (or loads it from the disk cache) and marks its definition
``alwaysinline`` in the module that callers link in, so LLVM inlines it into each kernel before
the loop vectoriser runs, as Numba's inlining did::

    @njit(cache=True, error_model="numpy", **ALWAYS_INLINE)      # (vecmath._BIG)
    def log_f64(x): ...
"""

from __future__ import annotations

from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.typed_passes import NativeLowering


@register_pass(mutates_CFG=False, analysis_only=True)
class _MarkAlwaysInline(LoweringPass):
    """After lowering: the function's definition in the module callers link carries
    ``alwaysinline`` (the same module goes to the disk cache, so a cached function keeps it)."""

    _name = "fusejit_mark_always_inline"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state) -> bool:
        shared = state.library._get_module_for_linking()
        shared.get_function(state.cr.fndesc.llvm_func_name).add_function_attribute(
            "alwaysinline")
        return False


class _AlwaysInlineCompiler(CompilerBase):
    """Numba's nopython pipeline with ``_MarkAlwaysInline`` after its native lowering."""

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(_MarkAlwaysInline, NativeLowering)
        pipeline.finalize()
        return [pipeline]


ALWAYS_INLINE = {"pipeline_class": _AlwaysInlineCompiler}

# Numba's own inlining (its IR copied into each caller), for the functions whose kernels ran
# slower with ``ALWAYS_INLINE``, or whose intrinsics set an attribute that must land on the
# kernel's own function. No fastmath flags either way (a kernel has none).
NUMBA_INLINE = {"cache": True, "error_model": "numpy", "inline": "always"}
