"""Native (Numba) bodies for the interpreter loop; imported on the first native run only.

Modules: ``opcodes`` (``NativeOp``, the op ids in named groups), ``registers`` (the register
file and Python <-> native conversion), ``scalar_ops``, ``pointwise``, ``tensor_ops`` (the op
bodies), ``table`` (``NATIVE_OPS``: operator-library key -> ``NativeOp``), ``moves`` (the one
register write and register helpers), ``dispatch`` (op dispatch), ``views`` (views and int
lists over pointers), ``fast`` (the scalar fast path and its fixed-width rows), ``slots``
(typed-List slots read and written in place), ``lists`` (the fuser's broadcast triple),
``kernel_entry`` (fused kernels called from the loop), ``loop`` (``run_loop``), ``state``
(``InterpreterState``, the jitclass holding one run and calling the loop) and ``program``
(per-``Code`` tables and the pool of register files with their states)::

    %z : Float(64) = aten::add(%x, %y, %one)     native_op = NativeOp.ADD: runs in the loop
    %l : Tensor[] = prim::ListConstruct(%x, %y)  native_op = NativeOp.HOST: the host runs it

Numba caches every ``cache=True`` function here under ``$FUSEJIT_CACHE_DIR/native/<digest>``
(``runtime/compile_cache.py``), so the locator is installed before any of them is defined.
"""

from .. import compile_cache  # noqa: F401  (installs the locator on import)
