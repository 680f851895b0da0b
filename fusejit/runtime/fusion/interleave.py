"""Interleaved vector loops for kernels with long bodies.

LLVM's loop vectoriser interleaves a vectorised loop (computes several vectors an iteration)
only where its body is short; a fused chain of transcendentals gets one vector an iteration.
Each of its ops waits on the one before, so an iteration is one long dependency chain, longer
than the CPU's reorder window can look ahead: the next iteration's vector cannot start while
this one's waits, and the chain runs at its latency, not at the core's throughput. Four
vectors an iteration give the core four independent chains to fill its ports with.

Kernels whose estimated element cost (``templates.element_cost``) reaches ``FROM_NS`` and that
call vectorised math have ``INTERLEAVE = 4`` in their module text (so the decision is part of
the file's name and of Numba's cache key); their functions are compiled with LLVM's
``-force-vector-interleave`` set to it (``compiled``), under Numba's compiler lock, and the
option is put back to LLVM's default (0: the cost model decides) before any other code
compiles. Results are the same bits: every element is computed by the same instructions.

Measured on the AMD Zen 4 host (2 cores, AVX-512), one thread, 2^16 float32 in L2, minimum of
101 calls, ns an element per op: a chain of 8 sin 0.746 -> 0.344 (one sin alone: 0.313 ->
0.295), of 8 exp 0.648 -> 0.280; the loop of a held-out random chain (seed 5305: 10
transcendentals, pow's vector call among them) 4.83 -> 3.65 ns an element, of heldout.py's
trig_mix 3.01 -> 2.46. Compiling took the same time (5.4 and 5.1 s for trig_mix's kernels,
6.7 and 6.9 s for seed 5412's). The cost is on tiny calls, where more of the elements fall to
the loop's remainder: 8 sin over 30 elements 1.03 -> 1.36 us, over 100 0.97 -> 1.21 us; over
1000 6.4 -> 3.4 us. Cheap kernels (below ``FROM_NS``: one or two transcendentals) keep LLVM's
own choice, and so do kernels whose loop calls a vector function (``simd``'s pow): a call
spills every live vector, four chains have four times as many, and heldout.py's pow_tensor ran
0.68x as fast interleaved (``benchmarks/interleave.py``, which measures all 16 of its chains:
11 faster, up to 1.31x, and log_sigmoid_mix 0.85x, haversine 0.88x, gauss_pdf 0.94x slower).
Kernels from ``INLINE_POW_FROM_NS`` compute float32 pow inline instead (``inline_pow``), with
no call, and interleave: eight held-out random chains with a pow, not among those the bound was
chosen on, ran 0.99-1.58x as fast as with the call (median 1.05x).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from llvmlite import binding
from numba.core.compiler_lock import global_compiler_lock

# The module-level name a kernel module defines its interleave count under.
NAME = "INTERLEAVE"
# Vectors an iteration, and the element cost (ns of one core) from which kernels take them.
COUNT = 4
FROM_NS = 3.0
_OPTION = "-force-vector-interleave"


# The element cost from which a kernel computes float32 pow inline (the portable form) rather
# than by calling the host's vector function (AVX-512: ``simd``'s ``pow_simd_f32``), and so
# interleaves. Below it the call is faster: one thread's time, 2^24 float32, 3 alternated runs
# each, the call and no interleaving against inline and interleaved (``benchmarks/
# interleave.py``), in ``inline_pow``'s docstring.
INLINE_POW_FROM_NS = 10.0


def inline_pow(cost: float) -> bool:
    """Does a CPU kernel of estimated element ``cost`` compute float32 pow inline (so that its
    loop, with no call in it, interleaves)?

    A call in the loop spills every live vector; interleaved, four chains' worth. Measured as
    above: random chains of heldout.py, seed 5606 (cost 17.0) 7.61 -> 5.75 ns an element,
    5305 (14.4) 5.74 -> 4.81, 5611 (11.4) 7.44 -> 6.46; under the bound, the call stays
    faster or as fast: pow_tensor (9.3) 2.88 -> 2.81, a pow and five transcendentals (8.7)
    2.50 -> 2.78, with three (6.4) 2.02 -> 1.98, (|x| + 0.5) ** y * exp(y) (4.2) 1.17 -> 1.41,
    |x| ** 1.7 + y (3.1) 1.03 -> 1.19. Only where the kernel interleaves at all: ``FROM_NS``
    raised past every kernel turns the inline pow off with the interleaving."""
    return cost >= max(FROM_NS, INLINE_POW_FROM_NS)


def count_for(cost: float, vector_math: bool) -> int:
    """The interleave count for a CPU kernel of estimated element ``cost`` whose loops call
    vectorised math (``vector_math``); 0: LLVM's own choice."""
    return COUNT if vector_math and cost >= FROM_NS else 0


@contextmanager
def interleaved(count: int) -> Iterator[None]:
    """Compile what runs inside with ``count`` vectors a loop iteration (0 or 1: no change),
    holding Numba's compiler lock so that no other function compiles with the option."""
    if count <= 1:
        yield
        return
    with global_compiler_lock:
        binding.set_option("fusejit", f"{_OPTION}={int(count)}")
        try:
            yield
        finally:
            binding.set_option("fusejit", f"{_OPTION}=0")


def compiled(module, function, signature) -> None:
    """Compile ``function`` (a dispatcher of kernel ``module``) for ``signature`` with the
    module's interleave count (or load it from the disk cache)."""
    with interleaved(getattr(module, NAME, 0)):
        function.compile(signature)


__all__ = ["COUNT", "FROM_NS", "NAME", "compiled", "count_for", "inline_pow", "interleaved"]
