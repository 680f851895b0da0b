"""What the pointwise entries share: PyTorch's error messages and casts for their NumPy bodies.

The entries themselves are in ``unary`` (one tensor operand), ``binary`` (arithmetic,
comparisons, bitwise and in-place forms) and ``selection`` (where, clamp, threshold, lerp,
addcmul, casts). Promotion follows ``fusejit.oplib.dtypes.result_type``: 0-dim tensors and
Python scalars are weak, so ``float32 tensor + 2.5`` stays float32 and ``int64 tensor / 2`` is
float32. Float overflow, 0/0 and domain errors give inf/nan without warnings::

    %z : Float(3) = aten::add(%x, %y, %alpha)      z = x + alpha * y, broadcast, promoted
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.types import ScalarType
from .dtypes import category, result_type
from .table import is_cuda_array

BOOL = np.dtype(np.bool_)


try:
    # NumPy >= 2 keeps the floating-point error state in a context variable: setting a
    # prepared state and resetting it costs ~0.1 us, where ``np.errstate`` (which builds the
    # state each time it is entered) costs ~1 us, as much as a ufunc on 10^3 elements
    from numpy._core.umath import _extobj_contextvar as _ERRORS
    from numpy._core.umath import _make_extobj
except ImportError:       # NumPy 1.x: the state is a thread's global, set by np.errstate
    _ERRORS = None

# (a state seen last, the same with every error ignored): a race between threads at worst
# makes the second one again
_ignoring: tuple[Any, Any] = (None, None)


def _ignoring_state(current: Any) -> Any:
    """``current`` (the state now) with every floating-point error ignored, its buffer size and
    error callback kept as ``np.errstate`` keeps them; remembered for the next call."""
    global _ignoring
    ignoring = _make_extobj(all="ignore")
    _ignoring = (current, ignoring)
    return ignoring


def quiet(fn: Callable) -> Callable:
    """Float overflow, 0/0 and domain errors give inf/nan silently, as in PyTorch."""

    if _ERRORS is None:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)

        return run

    get, set_, reset = _ERRORS.get, _ERRORS.set, _ERRORS.reset    # (~0.1 us less a call)

    @functools.wraps(fn)
    def run_quietly(*args: Any, **kwargs: Any):
        current = get()
        seen, ignoring = _ignoring
        if current is ignoring:     # (within another quiet body, or the caller's errstate)
            return fn(*args, **kwargs)
        if current is not seen:
            ignoring = _ignoring_state(current)
        token = set_(ignoring)
        try:
            return fn(*args, **kwargs)
        finally:
            reset(token)

    return run_quietly


def promoted_pair(a: Any, b: Any) -> tuple[np.dtype, Any, Any]:
    """(the computation dtype of a binary op on ``a`` and ``b``, both in it): ``result_type``
    and ``to``, with a short way for the common case of a float array and an array of its
    dtype or a Python float (~0.1 us where ``result_type`` takes ~1.5)."""
    if type(a) is np.ndarray:
        dtype = a.dtype
        if dtype.kind == "f":
            if type(b) is np.ndarray:
                if b.dtype is dtype:
                    return dtype, a, b
            elif type(b) is float:
                # (a NumPy scalar, not the Python float: NumPy 1.x would widen for that)
                return dtype, a, dtype.type(b)
    dtype = result_type(a, b)
    return dtype, to(a, dtype), to(b, dtype)


def pooled_out(dtype: np.dtype, *operands: Any) -> np.ndarray | None:
    """The ``out=`` of a host op's elementwise NumPy call on ``operands`` with a result in
    ``dtype``: reused memory from the kernel outputs' pool where the result is big
    (``runtime/fusion/outputs.py``: a fresh big array costs a page fault per 4 KiB), else
    None (NumPy allocates). ``dtype`` must be what the call gives for these operands."""
    if OUTPUT_POOL:
        for op in operands:   # (a loop, not max() over a generator: ~0.3 us less a call)
            if type(op) is np.ndarray and op.nbytes >= _POOL_GATE:
                return OUTPUT_POOL[0](np.dtype(dtype), *operands)
    return None


def pooled(ufunc: Callable, dtype: np.dtype, *operands: Any) -> np.ndarray:
    """``ufunc(*operands)``, written into ``pooled_out``'s memory where it gives some (the
    small call passes no ``out=``, whose parsing alone costs NumPy ~0.1 us)."""
    if OUTPUT_POOL:
        for op in operands:
            if type(op) is np.ndarray and op.nbytes >= _POOL_GATE:
                out = OUTPUT_POOL[0](np.dtype(dtype), *operands)
                if out is not None:
                    return ufunc(*operands, out=out)
                break
    return ufunc(*operands)


def new_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, from the kernel outputs' pool where it is big: a kernel
    writing a fresh big array takes its page faults on every thread at once (float64 2^22,
    ``np.exp(x + y)`` written into it: 40-57 ms a call on 2 threads, against 5 ms into reused
    memory and NumPy's own 11 ms)."""
    if NEW_ARRAY:
        count = dtype.itemsize
        for size in shape:
            count *= size
        if count >= _POOL_GATE:
            return NEW_ARRAY[0](shape, dtype)
    return np.empty(shape, dtype)


# The pool's ``out_for(dtype, *operands)``, which the runtime installs (``fusejit/runtime``'s
# ``__init__``: oplib sits below the runtime and imports nothing of it).
OUTPUT_POOL: list[Callable[..., np.ndarray | None]] = []
# Results from operands of less than this many bytes are never pooled (the pool starts far
# above it): the common small call stops here.
_POOL_GATE = 1 << 20
# ... and its ``take(shape, dtype)``, for ``new_array``.
NEW_ARRAY: list[Callable[[tuple[int, ...], np.dtype], np.ndarray]] = []


def same_dtype_ufunc(fn: Any, dtype: np.dtype) -> bool:
    """Is ``fn`` a one-input NumPy ufunc whose result for ``dtype`` is ``dtype``?"""
    return isinstance(fn, np.ufunc) and fn.nin == 1 and fn.nout == 1 and \
        fn.resolve_dtypes((dtype, None))[1] == dtype


def to(x: Any, dtype: np.dtype) -> np.ndarray:
    """An operand (array or Python scalar) in the computation dtype (a CuPy array stays on its
    device: NumPy bodies run on them where an op has no device body of its own)."""
    if isinstance(x, np.ndarray) or is_cuda_array(x):
        return x.astype(dtype, copy=False)
    return np.asarray(x, dtype=dtype)


def dtype_name(dtype: np.dtype) -> str:
    try:
        return ScalarType.from_dtype(dtype).name
    except ValueError:
        return str(dtype)


def is_bool(x: Any) -> bool:
    return isinstance(x, bool) or (isinstance(x, np.ndarray) and x.dtype == BOOL)


def check_scalar_fits(name: str, value: Any, dtype: np.dtype) -> None:
    """PyTorch refuses a float ``alpha``/``value`` for integer results, a bool one for numbers."""
    if isinstance(value, float) and category(dtype) < 2:
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")
    if isinstance(value, bool) and dtype != BOOL and name == "alpha":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


def check_int_divisor(b: Any) -> None:
    if any_zero(b):
        raise ZeroDivisionError("ZeroDivisionError: integer division or modulo by zero")


def any_zero(b: Any) -> bool:
    """Is ``b`` (a number, or a NumPy or CuPy array) zero anywhere? (``np.any`` of a number
    made into a 0-d array took ~13 us a call.)"""
    zero = b == 0
    return bool(zero.any()) if hasattr(zero, "any") else bool(zero)


def tensor_schemas(kind: str, *others: str) -> list[str]:
    """``aten::kind(Tensor self, <other>) -> Tensor`` for each formal text in ``others``."""
    return [f"aten::{kind}(Tensor self{', ' + other if other else ''}) -> Tensor"
            for other in others]


def inplace(name: str, compute: Callable) -> Callable:
    """The body of ``name`` (an in-place form): ``compute`` out of place, its result cast back
    and written through ``self`` (views included), PyTorch's checks first."""

    def body(self: np.ndarray, *args: Any) -> np.ndarray:
        result = compute(self, *args)
        if category(result.dtype) > category(self.dtype):
            raise RuntimeError(f"result type {dtype_name(result.dtype)} can't be cast to the "
                               f"desired output type {dtype_name(self.dtype)}")
        if np.broadcast_shapes(result.shape, self.shape) != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(result.shape)}")
        np.copyto(self, result, casting="unsafe")
        return self

    body.__name__ = name
    return body
