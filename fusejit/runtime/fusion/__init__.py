"""CPU fusion kernels: one ``prim::FusionGroup`` subgraph -> generated Numba source -> native code.

::

    with prim::FusionGroup_0 = graph(%0 : Float(*, *), %1 : Float(*, *)):
      %2 : Float(*, *) = aten::mul(%0, %1)
      %3 : Float(*, *) = aten::tanh(%2)
      return (%3)

    kernel = FusedKernel(group_node)        # or the subgraph
    (out,) = kernel(x, y)                   # == np.tanh(x * y), one pass over memory
    print(kernel_source(group_node, x, y))  # the generated module

Modules: ``layout`` (what a group reads and writes), ``templates`` (the vectorised-math tables;
the per-op renderers and dtype rules are the entries of ``fusejit.oplib``), ``codegen`` (the
kernel text), ``plan`` (shapes and strides -> ``meta``), ``cache``
(hash-named source files in the user's cache directory, an LRU of loaded modules, the disk cap),
``isolated`` (kernels compiled in a child process once a process compiled many), ``interleave``
(long kernels compiled with four vectors a loop iteration), ``compiler``
(``FusedKernel``), ``fastmath`` (vectorisable float32 exp/log/log1p/tanh/sigmoid with measured
error), ``vecmath`` (the other transcendentals, float32 and float64, with measured error; and
the 512-bit vector preference of kernels), ``vecspecial`` (erf, erfc), ``vecpow`` (float64 pow,
pow with a constant operand), ``loops`` (a
kernel's inner loop cut around ops that keep libm), ``helpers``.
"""

from __future__ import annotations

# (first: installs Numba's cache locator before any cache=True function here is defined)
from .. import compile_cache  # noqa: F401
from .cache import cache_clear, cache_info
from .compiler import FusedKernel, kernel_source
from .plan import KernelDeclined, set_num_threads

__all__ = ["FusedKernel", "KernelDeclined", "cache_clear", "cache_info", "kernel_source",
           "set_num_threads"]
