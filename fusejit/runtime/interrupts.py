"""How long-running compiled code lets Ctrl-C (and every other Python signal handler) through.

CPython runs a signal's Python handler (``KeyboardInterrupt`` for SIGINT) only between two
bytecodes of the main thread, so a loop in compiled code that never ends cannot be stopped
unless it gives Python a turn now and then. Two kinds of compiled code loop for long:

- The native interpreter loop (``native/loop.py``) runs without the GIL. It counts its
  conditional jumps (every loop iteration makes one) and the instructions it runs outside the
  scalar fast path, and when ``BUDGET`` of these are spent it reads the CPU's cycle counter:
  after ``YIELD_CYCLES`` cycles (some 5-10 ms) it returns ``YIELDED`` to its Python driver with
  the pc on an instruction boundary. The driver's next bytecode lets CPython run the pending
  handler; when that raises, the run ends there, else the driver resumes at pc::

      while True:                     native: 2^16 jumps, or 2^8 tensor instructions, ...
          status = state.run()        ... then 2^24 cycles since the last yield: YIELDED
          if status == YIELDED:
              continue                (a pending KeyboardInterrupt is raised here)

- A graph compiled whole (``scalar_function.py``, ``element_function.py``) holds the GIL, so
  its ``while`` loops call ``check_signals()`` every 2^16 iterations: ``PyErr_CheckSignals``,
  whose handler's exception leaves the compiled function as a Python exception.

A single call into a fused kernel, BLAS or NumPy is not interrupted: it ends first.

What the counting costs: the while+if benchmark's native loop went from 25.0 to 26.8 ns an
iteration (CPU time, medians of 9, three alternated runs on a loaded machine). Two variants
cost more: counting only jumps back (27.4 ns) and keeping the count in a register returned
by an inlined loop (27.5 ns); the fast path's registers are already spilled, and any change
there moves its code.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

BUDGET = 1 << 16         # units between two looks at the clock: a conditional jump is one,
TENSOR_UNITS = 1 << 8    # an instruction outside the fast path (a tensor op) this many
YIELD_CYCLES = 1 << 24   # cycles between two returns to Python (~5-10 ms at 1.7-3.5 GHz)
YIELDED = 2              # native loop status next to DONE (0) and HOSTCALL (1)
LOOP_CHECK_MASK = (1 << 16) - 1   # a compiled while loop checks when (i & mask) == mask


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (``rdtsc`` on x86-64): a few ns, no call into the kernel. It is
    0 on targets without one; the native loop then returns to Python at every look."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@intrinsic
def check_signals(typingctx):
    """Run pending Python signal handlers (``PyErr_CheckSignals``; the caller holds the GIL).
    When a handler raises, the compiled function returns that exception to its caller."""

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "PyErr_CheckSignals")
        failed = builder.icmp_signed("!=", builder.call(fn, []), ir.Constant(ir.IntType(32), 0))
        with builder.if_then(failed, likely=False):
            context.call_conv.return_exc(builder)
        return context.get_dummy_value()

    return types.none(), codegen


__all__ = ["BUDGET", "LOOP_CHECK_MASK", "TENSOR_UNITS", "YIELDED", "YIELD_CYCLES",
           "check_signals", "cycles"]
