"""``element_jit``: the decorator of compiled whole-graph functions (``element_function.py``).

It is Numba's ``njit(cache=True, boundscheck=True)`` with one difference: LLVM's loop
vectoriser is off while the function compiles. LLVM 22 (llvmlite 0.46, under Numba 0.68)
miscompiles a loop that can leave early (an index check that raises) and stores into a
one-byte array (bool, uint8, int8) that an enclosing loop reads: the vectorised code crashes
the process. A sieve of Eratosthenes over a bool array, as a newcomer writes it, segfaulted on
its compiled call. The vectoriser off (``NUMBA_LOOP_VECTORIZE=0``) gives correct code; so does
a compile without the index checks, which a user's loop needs. (Under llvmlite 0.50 the sieves
of bool, int8 and uint8 arrays run with the vectoriser on; the rule stays for the llvmlite
versions the Numba releases pyproject allows bring.)

Whole-graph functions run user loops on arrays of a few thousand elements at most
(``frontend/fastcall.py``'s limit), where vectorised loops gain little; fused kernels, which
keep the vectoriser, have no loop that leaves early. A whole-graph function whose text has no
loop of its own (no user loop, no indexing written as loops: ``element_source``), or whose
loops can store into no one-byte array (``element_function.byte_stores_in_loops``: none is
written in place, made in a loop or made by indexing), keeps the vectoriser
(``element_jit(vectorise=True)``): its loops are Numba's array expressions and
library code, compiled as Numba compiles them for anyone, and on a few thousand elements
their vectors are most of its time (``img8.astype(np.float32) / 255.0`` of 48 x 64: 4.6 us a
call scalar, against NumPy's 1.9). Numba reads ``config.LOOP_VECTORIZE`` when
it builds each optimisation pipeline, so the switch holds for this function's compile only:
it is made under Numba's global compiler lock, which every compile in the process takes.

A compile nests: the helpers a whole-graph function calls (``element_helpers.py``: sums and
extrema along an axis, maps over the vectorisable math) compile inside its compile, on their
first call, and would inherit the switch, and then Numba's disk cache would keep them without
vectors for every later caller (a lone ``x.max(axis=0)`` of 4 x 10^6 float32 ran at 0.33-0.64x
NumPy). They are fixed text with no index checks, so ``helper_jit`` compiles them with the
vectoriser on, whoever calls them first.

These compiles also give LLVM's loop unswitching a larger budget (``UNSWITCH_THRESHOLD``,
against LLVM's 50). An array expression is a loop that tests, at each element, whether each
operand broadcasts; unswitching moves those tests out, leaving a plain loop the vectoriser
takes. Inside a user's loop of a whole-graph function, LLVM's default budget left some of them
untaken: the same ``a - b`` of two 700 x 700 float64 arrays took 95 us in a function of its
own and 170 us inline. With the budget at 300, set K's upwind advection (``q - np.roll(q, 1,
axis)`` twice in each of 20 steps) took 13.1 ms against 18.8 before (NumPy 12.5-14.0), and set
J's signal_frame_features 1.15 ms against 2.49 (NumPy 1.39-1.65). 200 fixed the first but
not the second. Set J's first check with an empty cache took 82-94 s at LLVM's budget (two
runs), 94 s at 300, 93 s at 500 and 110 s at 1000. The budget holds for the outermost such
compile and the helpers compiled inside it, and is put back to LLVM's default after; it is a
setting of LLVM's, so the generated module text names it (``COMPILE_SETTINGS``), and a cached
function compiled under another budget is not reused. Only a function with loops of its own
takes it (``element_jit(loops=True)``): the budget made a least-squares test that compiles
loop-free whole forms take 18.1-20.3 s against 13.3-14.4, and the suite's whole-form tests
1.5-2x as long.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.binding as llvm
import numpy as np
from numba.core import config, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import overload

# LLVM's loop-unswitching budget while these functions compile, and LLVM's own default
UNSWITCH_THRESHOLD = 300
_LLVM_UNSWITCH_THRESHOLD = 50
# What the generated modules say of how they are compiled (their text is their cache key)
COMPILE_SETTINGS = f"loop unswitching budget {UNSWITCH_THRESHOLD}"
_depth = 0      # compiles of these dispatchers in progress (they nest: helpers inside)


class _VectoriserDispatcher(CPUDispatcher):
    """A CPU dispatcher whose compiles run with LLVM's loop vectoriser set to ``VECTORISE``;
    one whose ``loops`` is set (a whole-graph function with loops of its own) with the larger
    loop-unswitching budget too, as do the helpers compiled inside its compile."""

    VECTORISE: bool
    loops = False

    def compile(self, sig):
        global _depth
        with global_compiler_lock:
            before = config.LOOP_VECTORIZE
            config.LOOP_VECTORIZE = self.VECTORISE
            raised = _depth == 0 and self.loops
            if raised:
                llvm.set_option("", f"-unswitch-threshold={UNSWITCH_THRESHOLD}")
            _depth += 1
            try:
                return super().compile(sig)
            finally:
                _depth -= 1
                if raised:
                    llvm.set_option("", f"-unswitch-threshold={_LLVM_UNSWITCH_THRESHOLD}")
                config.LOOP_VECTORIZE = before


class ElementDispatcher(_VectoriserDispatcher):
    """A CPU dispatcher whose compiles run without LLVM's loop vectoriser."""

    VECTORISE = False


class VectorisedElementDispatcher(_VectoriserDispatcher):
    """A CPU dispatcher of whole-graph functions without loops of their own: the vectoriser
    stays on."""

    VECTORISE = True


class HelperDispatcher(_VectoriserDispatcher):
    """A CPU dispatcher whose compiles run with LLVM's loop vectoriser, inside an
    ``ElementDispatcher``'s compile too."""

    VECTORISE = True


def _decorator(kind: type, fn: Callable | None, options: dict, cache: bool,
               loops: bool = False):
    """A ``kind`` dispatcher of ``fn`` with Numba's target ``options``, or the decorator
    making one where ``fn`` is None (``@helper_jit`` bare or with options, as ``njit``)."""
    def wrap(fn: Callable) -> _VectoriserDispatcher:
        # (no C function wrapper: nothing takes these as first-class functions, and each
        # wrapper is lowered and compiled with the function, some 5% of a small one's compile)
        dispatcher = kind(py_func=fn, locals={},
                          targetoptions={"nopython": True, "no_cfunc_wrapper": True, **options})
        dispatcher.loops = loops
        if cache:
            dispatcher.enable_caching()
        return dispatcher
    return wrap if fn is None else wrap(fn)


def helper_jit(fn: Callable | None = None, *, cache: bool = False,
               error_model: str | None = None):
    """``njit(cache=..., error_model=...)`` for the fixed helpers: the loop vectoriser stays on
    (see the module's docstring). Used bare or with options, as ``njit`` is."""
    options = {} if error_model is None else {"error_model": error_model}
    return _decorator(HelperDispatcher, fn, options, cache)


def element_jit(fn: Callable | None = None, *, vectorise: bool = False, loops: bool = False):
    """``fn`` compiled as ``njit(cache=True, boundscheck=True)`` would, without the loop
    vectoriser unless ``vectorise``, and with the larger loop-unswitching budget where it has
    ``loops`` of its own (see the module's docstring). Used bare or with options, as ``njit``
    is."""
    kind = VectorisedElementDispatcher if vectorise else ElementDispatcher
    return _decorator(kind, fn, {"boundscheck": True}, cache=True, loops=loops)


__all__ = ["COMPILE_SETTINGS", "ElementDispatcher", "HelperDispatcher",
           "VectorisedElementDispatcher", "element_jit", "helper_jit"]


def number_of(x):
    """The number a 0-d parameter holds: a 0-d array's element (a NumPy scalar argument comes
    as the caller's 0-d array), or the number itself. Whole-graph functions hold 0-d values as
    numbers (``float(v)`` of a 0-d array does not compile in Numba)."""
    return x[()] if isinstance(x, np.ndarray) else x


@overload(number_of)
def _number_of(x):
    if isinstance(x, types.Array):
        return lambda x: x[()]
    return lambda x: x

