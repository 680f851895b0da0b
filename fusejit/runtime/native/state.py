"""``InterpreterState``: the Numba jitclass that holds one native run and executes it.

One state per register file: it holds the pc (in ``pc_box``, an array the Python driver
shares), the scalar banks (``tags``, ``ints``, ``floats``; bools live in ``ints``), the tensor
register file (``meta`` and the per-dtype buffer Lists), the code arrays of the program and
the loop itself. ``state.run()`` executes from pc until the program ends (``DONE``), an
instruction needs the host (``HOSTCALL``, pc left on it) or Python's signal handlers get a
turn (``YIELDED``, ``runtime/interrupts.py``)::

    pc_box = np.array([0, BUDGET, 0])            # pc, budget, cycle count (loop.py)
    state = new_state(program, regs, pc_box)     # program_of(code), a RegisterFile
    while (status := state.run()) != DONE:
        if status == HOSTCALL:
            ...run instruction pc_box[0] in Python, set pc_box[0] to the next pc...

The class is thin on purpose. A jitclass cannot be cached on disk, so everything Numba
compiles for it is compiled again in every process; here that is the constructor and one
method whose body is a single indirect call, passing its one ``LoopArgs`` field. The loop
(``loop.run_loop``, thousands of lines of LLVM IR) is compiled with ``cache=True`` and reached
through a first-class function pointer: calling it directly would link it into ``run`` and
re-optimise all of it in every process (9 s measured), and even converting the dispatcher to a
function value inside the class costs that (11 s); building the function value from its
compiled addresses costs nothing. The loop in turn calls its big, rarely hot op bodies at
their addresses (``bodies``), read once a process beside the loop's and passed in
``LoopArgs.bodies``.

Boxing a jitclass instance for Python normally compiles a getter for every field (~2 s with
the loop's 24 arguments as fields). Python never reads these fields (the driver keeps
``pc_box`` and the register file itself), so ``_register_box`` gives the instance a Python
class that only exposes ``run`` (``_run_from_python``: it releases the GIL while the loop
runs).
"""

from __future__ import annotations

import threading
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.experimental import jitclass
from numba.extending import intrinsic

from . import bodies
from .kernel_entry import _LISTS, ENTRY_TYPE
from .loop import DONE, HOSTCALL, YIELDED, run_loop
from .registers import META_WIDTH

_I1, _I2, _F1 = types.int64[::1], types.int64[:, ::1], types.float64[::1]

# Everything the loop reads, by name, with its Numba type: the one place the loop's arguments
# are declared. ``new_state`` fills a ``LoopArgs`` by keyword and ``run_loop`` reads it by
# attribute, so no list of them is kept in step by position anywhere.
LOOP_ARGS = {
    "pc_box": _I1, "tags": _I1, "ints": _I1, "floats": _F1, "meta": _I2, "tmp": _I2,
    "b8": _LISTS[0], "i64": _LISTS[1], "f32": _LISTS[2], "f64": _LISTS[3], "ilists": _LISTS[4],
    "instructions": _I2, "int_data": _I1, "bool_data": types.boolean[::1], "native_op": _I1,
    "op_params": _I2, "const_tags": _I1, "const_ints": _I1, "const_floats": _F1,
    "const_ilists": types.ListType(_I1), "scratch": types.int64,
    "kernel_fns": types.ListType(ENTRY_TYPE), "kernel_rows": _I2, "fast": _I2, "bodies": _I1,
}
LoopArgs = namedtuple("LoopArgs", tuple(LOOP_ARGS))
LOOP_ARGS_TYPE = types.NamedTuple(tuple(LOOP_ARGS.values()), LoopArgs)
LOOP_SIGNATURE = types.int64(LOOP_ARGS_TYPE)
LOOP_TYPE = types.FunctionType(LOOP_SIGNATURE)


@jitclass([("args", LOOP_ARGS_TYPE), ("loop", LOOP_TYPE)])
class InterpreterState:
    """The ``LoopArgs`` of one native run (pc, scalar banks, tensor register file, code
    arrays; see the module docstring); ``run`` executes from pc and returns DONE, HOSTCALL
    or YIELDED."""

    def __init__(self, args, c_address, jit_address):
        self.args = args
        self.loop = _function_value(c_address, jit_address)

    def run(self):
        return _call_loop(self)


@njit(inline="always")
def _call_loop(state):
    return state.loop(state.args)


@njit(nogil=True)
def _run_from_python(state):
    """``state.run()`` for Python: one compile (a jitclass method called from Python takes
    two), and the GIL is released while the loop runs, so threads run side by side."""
    return _call_loop(state)


@intrinsic
def _function_value(typingctx, c_address, jit_address):
    """A ``LOOP_TYPE`` value calling the compiled loop at these addresses (its C wrapper and
    its Numba entry). Calls go to the Numba entry, so an exception raised inside the loop
    (a failed allocation) reaches the caller; through the C wrapper it would be printed and
    lost. Made from addresses, the value brings no code of the loop into the jitclass."""

    def codegen(context, builder, signature, args):
        value = cgutils.create_struct_proxy(LOOP_TYPE)(context, builder)
        pointer = context.get_value_type(types.voidptr)
        value.c_addr = builder.inttoptr(args[0], pointer)
        value.py_addr = pointer(None)   # no Python object: the value is never boxed
        value.jit_addr = builder.inttoptr(args[1], pointer)
        return value._getvalue()

    return LOOP_TYPE(types.int64, types.int64), codegen


_lock = threading.Lock()
_addresses: tuple[int, int] | None = None
_bodies: np.ndarray | None = None   # the out-of-line bodies' addresses (``bodies``)


def _loop_addresses(lock_held: bool = False) -> tuple[int, int]:
    """The compiled loop's entry addresses (loaded from Numba's cache, or compiled once per
    machine). A compile holds the cache directory's lock (``tiering.native_compile_lock``;
    ``lock_held``: the caller holds it), so a process that finds another compiling waits for
    it and loads the result instead of compiling the same loop beside it."""
    global _addresses, _bodies
    if _addresses is None:
        with _lock:
            if _addresses is None:
                if lock_held or loop_compiled():
                    _bodies = _compile()
                else:
                    from ..tiering import native_compile_lock

                    with native_compile_lock(wait=True):
                        _bodies = _compile()
                result = run_loop.overloads[LOOP_SIGNATURE.args]
                library, names = result.library, result.fndesc
                _register_box()
                _addresses = (library.get_pointer_to_function(names.llvm_cfunc_wrapper_name),
                              library.get_pointer_to_function(names.llvm_func_name))
    return _addresses


def _compile() -> np.ndarray:
    """Compile (or load) the loop and the bodies it calls through their addresses; returns
    those addresses."""
    run_loop.compile(LOOP_SIGNATURE)
    return bodies.addresses()


def loop_compiled() -> bool:
    """Is the loop compiled, in this process or in Numba's disk cache, so that building a state
    compiles nothing big? (The tiered ``engine="auto"`` asks before moving a plan here.)"""
    if _addresses is not None:
        return True
    try:
        index = run_loop._cache._cache_file._load_index()
        return any(key[0] == LOOP_SIGNATURE for key in index) and bodies.compiled_on_disk()
    except AttributeError:
        # A Numba whose cache internals moved: say yes, so plans move as they did before
        # tiering (paying the compile in the foreground) rather than never.
        return True


def _register_box() -> None:
    """Give instances a Python class exposing only ``run`` (see the module docstring). With a
    Numba that lacks the private table this relies on, the stock class is used: slower to
    build (a getter compiled per field), the same behaviour."""
    try:
        from numba.experimental.jitclass import _box, boxing

        table = boxing._cache_specialized_box
    except (ImportError, AttributeError):
        return
    instance_type = InterpreterState.class_type.instance_type
    if instance_type not in table:
        table[instance_type] = type("InterpreterState", (_box.Box,), {
            "__slots__": (), "_numba_type_": instance_type,
            "__doc__": InterpreterState.class_type.class_doc,
            "run": _run_from_python,
        })


def new_state(program, regs, pc_box: np.ndarray) -> InterpreterState:
    """A state running ``program`` (a ``NativeProgram``) over the register file ``regs``,
    with its pc in ``pc_box[0]``."""
    c_address, jit_address = _loop_addresses()
    p = program
    args = LoopArgs(
        pc_box=pc_box, tags=regs.tags, ints=regs.ints, floats=regs.floats, meta=regs.meta,
        tmp=np.zeros((3, META_WIDTH), np.int64), b8=regs.b8, i64=regs.i64, f32=regs.f32,
        f64=regs.f64, ilists=regs.ilists, instructions=p.instructions, int_data=p.int_data,
        bool_data=p.bool_data, native_op=p.native_op, op_params=p.op_params,
        const_tags=p.const_tags, const_ints=p.const_ints, const_floats=p.const_floats,
        const_ilists=p.const_ilists, scratch=p.scratch, kernel_fns=p.kernel_fns,
        kernel_rows=p.kernel_rows, fast=p.fast, bodies=_bodies)
    return InterpreterState(args, c_address, jit_address)


__all__ = ["DONE", "HOSTCALL", "YIELDED", "InterpreterState", "LOOP_ARGS", "LOOP_SIGNATURE",
           "LoopArgs", "loop_compiled", "new_state"]
