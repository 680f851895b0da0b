"""NumPy's own BLAS, called from compiled code: one OpenBLAS and one thread pool per process.

Numba's ``np.dot`` calls the BLAS that SciPy bundles (``scipy.linalg.cython_blas``), while NumPy's
wheels link their own copy of OpenBLAS. A process using both has two thread pools, and on a
busy machine the spinning threads of one slow the other down (an MLP training step measured
4.02 ms in NumPy at default threads against 0.98 ms on one thread). This module finds the CBLAS
functions of the library that NumPy's own extension is linked with, registers them with LLVM
under fusejit's names, and gives compiled code products that pass a transposed operand as
BLAS's transpose flag instead of copying it::

    x @ w.T   ->  mm(x, w.T)  ->  cblas_dgemm(RowMajor, NoTrans, Trans, m, n, k, 1.0,
                                              x, k, w, k, 0.0, out, n)

Writers ask ``numpy_blas()``: when it is None (the library or a symbol is missing, its integer
width is unknown, its self-check failed, or ``FUSEJIT_BLAS=numba``) they emit ``np.dot`` as
before, and ``fallback_reason()`` says why (also logged once on the ``fusejit`` logger).
How many threads a product's BLAS call may use is decided per call (``_serially``) from its
work and from whether the other cores are free (``runtime/cores.py``), which ``refresh`` reads
from Python:

- **other cores busy** (other processes used them in the last ``SAMPLE_S`` seconds): a product
  under ``SERIAL_WORK_NS`` of serial work runs on one thread. On a busy 2-core machine NumPy's
  two threads took 30-47 ms for a 256x128 @ 128x256 float64 product that one thread does in
  0.25 ms: a thread that waits for a core stalls the whole call;
- **other cores free**: a product of at least ``PARALLEL_WORK_NS`` may use them (OpenBLAS
  splits it as NumPy's own call would); smaller ones run on one thread, where waking a pool
  costs about what it saves;
- never more than ``max_threads()``: OpenBLAS's count at import (no more than a cgroup CPU quota
  allows), or ``fusejit.set_num_threads`` (or ``$FUSEJIT_NUM_THREADS``) when lower, nor more
  than OpenBLAS's count when the call is made (a ``threadpoolctl`` limit holds).

The interpreter's host products (``matmul``) follow the same rule.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
from pathlib import Path

import numpy as np
from llvmlite import binding, ir
from numba import njit, types
from numba.extending import intrinsic

from . import compile_cache  # noqa: F401  (caches the functions below with fusejit's own)
from .cores import SAMPLE_S, free_cores, pool_spinning, quota_threads, spare_cores

_log = logging.getLogger("fusejit")

# CBLAS's enumerations (C ints).
_ROW_MAJOR, _NO_TRANS, _TRANS, _UPPER = 101, 111, 112, 121
# The symbol names NumPy's wheels and common builds use, as (prefix, suffix): scipy-openblas64
# (NumPy 2 wheels, 64-bit integers), openblas64_ (NumPy 1.22-1.26 wheels), scipy-openblas32,
# and a plain CBLAS (its integer width read from OpenBLAS's configuration).
_SCHEMES = (("scipy_", "64_"), ("", "64_"), ("scipy_", ""), ("", ""))
_FUNCTIONS = ("cblas_sgemm", "cblas_dgemm", "cblas_sgemv", "cblas_dgemv", "cblas_sdot",
              "cblas_ddot", "cblas_ssyrk", "cblas_dsyrk", "openblas_get_num_threads",
              "openblas_set_num_threads")
_REGISTERED_PREFIX = "fusejit_"
# The time of one multiply-add in a serial float32 / float64 gemm (measured here: 256x128 @
# 128x256 took 112 us and 231 us on one thread of a busy 2-core machine).
_NS_PER_MAC_F32, _NS_PER_MAC_F64 = 0.014, 0.028
# A product with a vector (gemv, or dot) reads a matrix element for each multiply-add: memory-
# bound, about this many times a gemm's time per multiply-add (1000x1000 @ 1000 float64: 120 us
# on one thread, 58 us on NumPy's two; the gemm rate put it at 28 us, under PARALLEL_WORK_NS,
# so it ran on one thread at 0.48x NumPy).
_VECTOR_PRODUCT_FACTOR = 4
# Work (nanoseconds of one core) under which fusejit runs serially: a product here on one BLAS
# thread, a fused kernel its serial entry (fusion/plan.py, which imports this value and says how
# it was chosen).
SERIAL_WORK_NS = 16_000_000
# Serial work (ns) from which a product uses the cores other processes leave free: about 256K
# float32 multiply-adds, where OpenBLAS itself starts splitting a gemm for NumPy (m n k past
# 65536 * 4, whatever the dtype; it keeps smaller ones on one thread, so a float64 product
# allowed threads under its own threshold still runs on one). At 60 us (2M, the value before
# 8 us) the products between ran on one thread where NumPy's call used two: on an idle 2-core
# AMD EPYC, 1024x1024 @ 1024 float32 54.8 us against NumPy's 27.3 (0.50x), 128^3 float64 90.5
# against 54.5 (0.60x), float32 0.64x; at 8 us 0.91x, 0.96x and 0.93x (the rest is what
# ``matmul`` below costs a call). At 8 us (256K float64 multiply-adds, 571K float32) a
# (4096, 16) @ (16, 8) float32 product ran on one thread in 13.8 us, NumPy's on two in 7.8.
PARALLEL_WORK_NS = 3_600


class NumpyBlas:
    """Where NumPy's BLAS functions are: their addresses, the library, its integer type, and
    whether its threads are OpenBLAS's own pthreads (whose count may change between calls)."""

    __slots__ = ("library", "addresses", "int_bits", "scheme", "pthreads")

    def __init__(self, library: str, addresses: dict[str, int], int_bits: int,
                 scheme: tuple[str, str], pthreads: bool = False):
        self.library, self.addresses, self.int_bits = library, addresses, int_bits
        self.scheme, self.pthreads = scheme, pthreads

    def describe(self) -> str:
        prefix, suffix = self.scheme
        return (f"{Path(self.library).name}: {prefix}cblas_dgemm{suffix} and the rest, "
                f"{self.int_bits}-bit integers, {'pthreads' if self.pthreads else 'threads'}")


def _libraries() -> list[str]:
    """NumPy's extension (whose dependencies dlsym searches), then any OpenBLAS shipped in
    NumPy's wheel directories (``numpy.libs`` on Linux and Windows, ``numpy/.dylibs``)."""
    try:
        from numpy._core import _multiarray_umath as extension
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as extension
    found = [extension.__file__]
    package = Path(np.__file__).parent
    for folder in (package.parent / "numpy.libs", package / ".dylibs"):
        if folder.is_dir():
            found += sorted(str(p) for p in folder.iterdir() if "blas" in p.name.lower())
    return found


def _symbols(library: ctypes.CDLL, scheme: tuple[str, str]) -> dict[str, int] | None:
    prefix, suffix = scheme
    addresses = {}
    for name in _FUNCTIONS:
        # (OpenBLAS names its thread calls with the same prefix and suffix as CBLAS's)
        symbol = f"{prefix}{name}{suffix}"
        try:
            addresses[name] = ctypes.cast(getattr(library, symbol), ctypes.c_void_p).value
        except AttributeError:
            return None
    return addresses


def _int_bits(library: ctypes.CDLL, scheme: tuple[str, str]) -> int | None:
    """64 for an ILP64 build, 32 for LP64, None when neither the names nor the library say."""
    prefix, suffix = scheme
    if suffix == "64_":
        return 64
    try:
        config = getattr(library, f"{prefix}openblas_get_config{suffix}")
    except AttributeError:
        return None
    config.restype = ctypes.c_char_p
    text = config() or b""
    return 64 if b"USE64BITINT" in text else 32


def _pthreads(library: ctypes.CDLL, scheme: tuple[str, str]) -> bool:
    """Does the library run its threads itself (``openblas_get_parallel() == 1``)? Only then
    does ``_serially`` change the count: an OpenMP build frees per-thread buffers when the count
    drops, under a call another thread may be making."""
    prefix, suffix = scheme
    try:
        parallel = getattr(library, f"{prefix}openblas_get_parallel{suffix}")
    except AttributeError:
        return False
    parallel.restype = ctypes.c_int
    return parallel() == 1


def find_numpy_blas(libraries: list[str] | None = None) -> tuple[NumpyBlas | None, str]:
    """NumPy's BLAS in ``libraries`` (default: ``_libraries()``), checked on a small product,
    or None and the reason it was not used."""
    if os.environ.get("FUSEJIT_BLAS", "").strip().lower() == "numba":
        return None, "FUSEJIT_BLAS=numba asks for Numba's np.dot"
    reasons = []
    for path in libraries if libraries is not None else _libraries():
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            reasons.append(f"{Path(path).name}: {error}")
            continue
        for scheme in _SCHEMES:
            addresses = _symbols(library, scheme)
            if addresses is None:
                continue
            bits = _int_bits(library, scheme)
            if bits is None:
                reasons.append(f"{Path(path).name}: cannot tell the integer width of "
                               f"{scheme[0]}cblas_dgemm{scheme[1]}")
                continue
            found = NumpyBlas(path, addresses, bits, scheme, _pthreads(library, scheme))
            problem = _self_check(found)
            if problem is None:
                return found, ""
            reasons.append(f"{Path(path).name}: {problem}")
        else:
            if not any(r.startswith(f"{Path(path).name}:") for r in reasons):
                reasons.append(f"{Path(path).name}: no OpenBLAS cblas_?gemm/?gemv/?dot "
                               f"with its thread calls")
    return None, "; ".join(reasons) or "no library to search"


def _self_check(found: NumpyBlas) -> str | None:
    """A 3x2 @ (4x2).T product through ctypes, against NumPy (a wrong ABI guess shows here)."""
    blas_int = ctypes.c_int64 if found.int_bits == 64 else ctypes.c_int32
    pointer, enum = ctypes.c_void_p, ctypes.c_int
    gemm = ctypes.CFUNCTYPE(None, enum, enum, enum, blas_int, blas_int, blas_int,
                            ctypes.c_double, pointer, blas_int, pointer, blas_int,
                            ctypes.c_double, pointer, blas_int)(found.addresses["cblas_dgemm"])
    a = np.arange(6.0).reshape(3, 2) - 2.5
    b = np.arange(8.0).reshape(4, 2) * 0.5 + 1.0
    out = np.full((3, 4), np.nan)
    gemm(_ROW_MAJOR, _NO_TRANS, _TRANS, 3, 4, 2, 1.0, a.ctypes.data, 2, b.ctypes.data, 2, 0.0,
         out.ctypes.data, 4)
    if not np.array_equal(out, a @ b.T):
        return "its dgemm gave a wrong product in a self-check"
    return None


@functools.lru_cache(maxsize=1)
def _found() -> tuple[NumpyBlas | None, str]:
    found, reason = find_numpy_blas()
    if found is None:   # (a warning unless FUSEJIT_BLAS asked for it)
        level = logging.INFO if reason.startswith("FUSEJIT_BLAS") else logging.WARNING
        _log.log(level, "fusejit: compiled matrix products use Numba's np.dot (SciPy's "
                 "BLAS, a second thread pool beside NumPy's): %s", reason)
        return None, reason
    for name, address in found.addresses.items():
        binding.add_symbol(_REGISTERED_PREFIX + name, address)
    return found, ""


def numpy_blas() -> NumpyBlas | None:
    """NumPy's BLAS, registered for compiled code; None when products use ``np.dot``."""
    return _found()[0]


def blas_identity() -> str:
    """What compiled products call, for the cache digest (code compiled against one BLAS is
    never loaded where another, or ``np.dot``, is in use)."""
    found = numpy_blas()
    return found.describe() if found is not None else "np.dot"


def fallback_reason() -> str:
    """Why compiled products use ``np.dot`` ("" when they use NumPy's BLAS)."""
    return _found()[1]


# -- the products, for compiled code -------------------------------------------------------------

_FOUND = numpy_blas()
_INT = types.int32 if _FOUND is not None and _FOUND.int_bits == 32 else types.int64
_SWITCH_THREADS = _FOUND is not None and _FOUND.pthreads
_ENUM, _PTR = types.intc, types.voidptr


def _external(name: str, signature: types.Signature) -> types.ExternalFunction:
    return types.ExternalFunction(_REGISTERED_PREFIX + name, signature)


def _gemm(real: types.Type) -> types.Signature:
    return types.void(_ENUM, _ENUM, _ENUM, _INT, _INT, _INT, real, _PTR, _INT, _PTR, _INT,
                      real, _PTR, _INT)


def _gemv(real: types.Type) -> types.Signature:
    return types.void(_ENUM, _ENUM, _INT, _INT, real, _PTR, _INT, _PTR, _INT, real, _PTR, _INT)


def _syrk(real: types.Type) -> types.Signature:
    return types.void(_ENUM, _ENUM, _ENUM, _INT, _INT, real, _PTR, _INT, real, _PTR, _INT)


_sgemm = _external("cblas_sgemm", _gemm(types.float32))
_dgemm = _external("cblas_dgemm", _gemm(types.float64))
_sgemv = _external("cblas_sgemv", _gemv(types.float32))
_dgemv = _external("cblas_dgemv", _gemv(types.float64))
_ssyrk = _external("cblas_ssyrk", _syrk(types.float32))
_dsyrk = _external("cblas_dsyrk", _syrk(types.float64))
_sdot = _external("cblas_sdot", types.float32(_INT, _PTR, _INT, _PTR, _INT))
_ddot = _external("cblas_ddot", types.float64(_INT, _PTR, _INT, _PTR, _INT))
_get_threads = _external("openblas_get_num_threads", types.intc())
_set_threads = _external("openblas_set_num_threads", types.void(types.intc))


@njit(cache=True)
def _layout(a):
    """(transpose flag, leading dimension) of 2-D ``a`` as a row-major BLAS operand: itself
    when its rows are unit-stride, the transpose of one when its columns are; (0, 0) when
    neither (a copy is needed)."""
    rows, cols = a.shape
    size = a.itemsize
    s0, s1 = a.strides
    if (cols <= 1 or s1 == size) and (rows <= 1 or s0 % size == 0 and s0 // size >= cols):
        return _NO_TRANS, s0 // size if rows > 1 else max(cols, 1)
    if (rows <= 1 or s0 == size) and (cols <= 1 or s1 % size == 0 and s1 // size >= rows):
        return _TRANS, s1 // size if cols > 1 else max(rows, 1)
    return 0, 0


# -- how many threads a product may use (the module docstring says the rule) --------------------

# Read by compiled code at every product, written by ``refresh`` and ``set_max_threads``: the
# threads a product may use now, and the serial work (ns) from which it uses more than one.
_STATE = (ctypes.c_int64 * 2)(1, SERIAL_WORK_NS)
_STATE_SYMBOL = _REGISTERED_PREFIX + "blas_threads_state"
binding.add_symbol(_STATE_SYMBOL, ctypes.addressof(_STATE))


@intrinsic
def _state(typingctx, index):
    """``_STATE[index]``, read where the compiled code runs (an external global that the
    linker resolves to this process's ``_STATE``: cached code reads the current values)."""
    def codegen(context, builder, signature, args):
        try:
            cell = builder.module.get_global(_STATE_SYMBOL)
        except KeyError:
            cell = ir.GlobalVariable(builder.module, ir.ArrayType(ir.IntType(64), 2),
                                     _STATE_SYMBOL)
            cell.linkage = "external"
        zero = ir.Constant(ir.IntType(64), 0)
        return builder.load(builder.gep(cell, [zero, args[0]]))
    return types.int64(types.intp), codegen


@njit(cache=True)
def _allowed_threads(macs, itemsize):
    """The threads the rule lets a product of ``macs`` multiply-adds of ``itemsize``-byte
    floats use now: one under the serial work in force, else the count in force."""
    cost = _NS_PER_MAC_F32 if itemsize == 4 else _NS_PER_MAC_F64
    return _state(0) if macs * cost >= _state(1) else 1


@njit(cache=True)
def _serially(macs, itemsize):
    """Before a BLAS call of ``macs`` multiply-adds: set OpenBLAS's thread count for it by the
    rule (one thread, or the free cores), and return the count to put back after the call (0:
    nothing changed). The count is process-wide: a NumPy call that another thread starts
    meanwhile runs on it too. The native loop runs without the GIL, so two threads' products
    may interleave here: each puts back what it read, which leaves the count where it began
    (unless something else sets it meanwhile: then the last of these restores wins). Only
    OpenBLAS's own pthreads are switched."""
    if not _SWITCH_THREADS:
        return 0
    allowed = _allowed_threads(macs, itemsize)
    before = _get_threads()
    if before <= allowed:
        return 0
    _set_threads(max(allowed, 1))
    return before


@njit(cache=True)
def _macs(m, n, k):
    """The multiply-adds ``_serially`` weighs for an ``m x k @ k x n`` product: a product with a
    vector counts ``_VECTOR_PRODUCT_FACTOR`` times its own."""
    macs = m * n * k
    return macs * _VECTOR_PRODUCT_FACTOR if m == 1 or n == 1 else macs


@njit(cache=True)
def _restore(before):
    if before > 1:
        _set_threads(before)


@njit(cache=True)
def _operand(a):
    """(``a`` as BLAS reads it, its transpose flag, its leading dimension): ``a`` itself where
    ``_layout`` finds a form, else a C-contiguous copy."""
    flag, ld = _layout(a)
    if flag == 0:
        return np.ascontiguousarray(a), _NO_TRANS, a.shape[1]
    return a, flag, ld


@njit(cache=True)
def _gemm_call(ta, tb, m, n, k, a, lda, b, ldb, beta, c):
    """c = op(A) op(B) + beta c, c C-contiguous ``m`` x ``n``."""
    if a.itemsize == 4:
        _sgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, a.ctypes, lda, b.ctypes, ldb, beta,
               c.ctypes, n)
    else:
        _dgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, a.ctypes, lda, b.ctypes, ldb, beta,
               c.ctypes, n)


@njit(cache=True)
def _syrk_call(ta, n, k, a, lda, c):
    """c = op(A) op(A)^T, ``n`` x ``n`` C-contiguous, as NumPy's matmul computes ``a @ a.T``:
    BLAS's upper triangle, copied into the lower one."""
    if a.itemsize == 4:
        _ssyrk(_ROW_MAJOR, _UPPER, ta, n, k, 1.0, a.ctypes, lda, 0.0, c.ctypes, n)
    else:
        _dsyrk(_ROW_MAJOR, _UPPER, ta, n, k, 1.0, a.ctypes, lda, 0.0, c.ctypes, n)
    for i in range(n):
        for j in range(i + 1, n):
            c[j, i] = c[i, j]


@njit(cache=True)
def _gemv_call(trans, rows, cols, a, lda, x, incx, out):
    """out = op(A) x, A stored row-major as ``rows`` x ``cols``."""
    if a.itemsize == 4:
        _sgemv(_ROW_MAJOR, trans, rows, cols, 1.0, a.ctypes, lda, x.ctypes, incx, 0.0,
               out.ctypes, 1)
    else:
        _dgemv(_ROW_MAJOR, trans, rows, cols, 1.0, a.ctypes, lda, x.ctypes, incx, 0.0,
               out.ctypes, 1)


@njit(cache=True)
def mm(a, b):
    """``a @ b`` of 2-D float arrays of one dtype, through NumPy's BLAS as NumPy's matmul
    calls it: one row or one column by gemv, one of each by dot, else gemm (the same bits as
    NumPy's wherever NumPy passes the operands to BLAS; an operand it cannot pass, negative
    or zero strides say, is copied here, where NumPy sums in a loop of its own). A matrix
    times its own transpose is syrk's, as in NumPy's matmul."""
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k:
        raise ValueError("matmul: the operands' inner sizes differ")
    if m == 0 or n == 0 or k == 0:
        return np.zeros((m, n), a.dtype)
    out = np.empty((m, n), a.dtype)
    before = _serially(_macs(m, n, k), a.itemsize)
    _product_into(a, b, out)
    _restore(before)
    return out


@njit(cache=True)
def _product_into(a, b, out):
    """``out[:] = a @ b`` (mm's BLAS call) for non-empty ``a`` (m x k), ``b`` (k x n) and a
    C-contiguous ``out`` (m x n), the thread count already chosen."""
    m, k = a.shape
    n = b.shape[1]
    # (a matrix times its own transpose: NumPy's matmul then calls syrk, whose sums may round
    # otherwise than gemm's)
    mirrored = a.ctypes.data == b.ctypes.data and m == n and \
        a.strides[0] == b.strides[1] and a.strides[1] == b.strides[0]
    a, ta, lda = _operand(a)
    b, tb, ldb = _operand(b)
    # (a's one row steps by 1, or by lda when it is a column of a stored transpose; b's one
    # column steps by ldb, or by 1 in a stored transpose)
    if m == 1 and n == 1:
        inc_a = 1 if ta == _NO_TRANS else lda
        inc_b = ldb if tb == _NO_TRANS else 1
        if a.itemsize == 4:
            out[0, 0] = _sdot(k, a.ctypes, inc_a, b.ctypes, inc_b)
        else:
            out[0, 0] = _ddot(k, a.ctypes, inc_a, b.ctypes, inc_b)
    elif m == 1:   # b's transpose times a's row
        inc_a = 1 if ta == _NO_TRANS else lda
        if tb == _NO_TRANS:
            _gemv_call(_TRANS, k, n, b, ldb, a, inc_a, out)
        else:
            _gemv_call(_NO_TRANS, n, k, b, ldb, a, inc_a, out)
    elif n == 1:   # a times b's column
        inc_b = ldb if tb == _NO_TRANS else 1
        if ta == _NO_TRANS:
            _gemv_call(_NO_TRANS, m, k, a, lda, b, inc_b, out)
        else:
            _gemv_call(_TRANS, k, m, a, lda, b, inc_b, out)
    elif mirrored and ta != tb:
        _syrk_call(ta, n, k, a, lda, out)
    else:
        _gemm_call(ta, tb, m, n, k, a, lda, b, ldb, 0.0, out)


def _openblas_threads() -> int:
    """OpenBLAS's thread count now (1 where the count is not switched)."""
    if not _SWITCH_THREADS:
        return 1
    return ctypes.CFUNCTYPE(ctypes.c_int)(_FOUND.addresses["openblas_get_num_threads"])()


def _env_threads() -> int | None:
    """``$FUSEJIT_NUM_THREADS`` when it is a positive int (``fusion/plan.py`` reports a bad
    one)."""
    text = os.environ.get("FUSEJIT_NUM_THREADS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def max_threads() -> int:
    """The most threads a compiled or host product may use."""
    return _cap[0]


def set_max_threads(n: int) -> None:
    """Products use at most ``n`` threads (``fusejit.set_num_threads`` calls this; the
    count is process-wide, as OpenBLAS's is). More than OpenBLAS started with is not asked."""
    _cap[0] = max(1, min(int(n), _POOL))
    # (small products on one thread until ``refresh`` applies the free cores again)
    _STATE[0], _STATE[1] = _cap[0], SERIAL_WORK_NS


_POOL = _openblas_threads()          # the count NumPy's BLAS started with
_cap = [min(_POOL, _env_threads() or _POOL, quota_threads())]
_STATE[0] = _cap[0]


def refresh() -> None:
    """Set the rule compiled products read from the cores other processes leave free
    (``cores.spare_cores``: measured at most every ``SAMPLE_S`` seconds, cheap between: the
    Python entry points of compiled stages and the host products call this on every call)."""
    free = spare_cores(products=True)
    if free < 0.5:                   # busy, or not known: small products on one thread
        threads, work = _cap[0], SERIAL_WORK_NS
    else:
        threads, work = min(_cap[0], 1 + int(free + 0.5)), PARALLEL_WORK_NS
    _STATE[0], _STATE[1] = threads, work


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)`` with its BLAS threads chosen by the rule compiled products follow
    (the interpreter's host ``aten::mm``/``matmul``)."""
    if not _SWITCH_THREADS or a.dtype.kind != "f" or a.ndim == 0 or b.ndim == 0:
        return np.matmul(a, b)
    refresh()
    k = a.shape[-1]
    rows = a.shape[-2] if a.ndim > 1 else 1
    cols = b.shape[-1] if b.ndim > 1 else 1
    batches = max(a.size // max(rows * k, 1), b.size // max(k * cols, 1), 1)
    # (at most 2**62: a size NumPy refuses must reach np.matmul, not overflow Numba's int64)
    macs = min(batches * rows * k * cols * (_VECTOR_PRODUCT_FACTOR if rows == 1 or cols == 1
                                             else 1), 1 << 62)
    before = _serially(macs, a.itemsize)
    try:
        return np.matmul(a, b)
    finally:
        if before:                      # (0: the count was left as it is)
            _restore(before)
        elif _allowed_threads(macs, a.itemsize) > 1:
            pool_spinning()             # (its threads spin now: kernels run serially)


@njit(cache=True)
def mm_add(c, a, b):
    """``c += a @ b`` for C-contiguous 2-D ``c``, by one gemm with beta = 1: a gradient summed
    over a loop's iterations (an RNN's weight gradient) without a product array per step."""
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or c.shape[0] != m or c.shape[1] != n or not c.flags.c_contiguous:
        raise ValueError("matmul: the operands' sizes differ")
    if m == 0 or n == 0 or k == 0:
        return
    a, ta, lda = _operand(a)
    b, tb, ldb = _operand(b)
    before = _serially(_macs(m, n, k), a.itemsize)
    _gemm_call(ta, tb, m, n, k, a, lda, b, ldb, 1.0, c)
    _restore(before)


# A vector is a one-row or one-column matrix (a view with a stride; mm copies only what BLAS
# cannot read): one compiled product serves every rank the writers emit.

@njit(cache=True)
def mv(a, x):
    """``a @ x`` of a 2-D and a 1-D float array."""
    return mm(a, x[:, None]).reshape(a.shape[0])


@njit(cache=True)
def vm(x, b):
    """``x @ b`` of a 1-D and a 2-D float array."""
    return mm(x[None, :], b).reshape(b.shape[1])


@njit(cache=True)
def dot(x, y):
    """``x @ y`` of two 1-D float arrays: a number of their dtype."""
    return mm(x[None, :], y[:, None])[0, 0]


@njit(cache=True)
def stacked_mm(a, b):
    """``a @ b`` of a 3-D and a 2-D float array: each matrix of the stack times ``b`` (mm's
    call, into its place in the result), as NumPy's matmul loops over the stack; the thread
    count chosen once, for one matrix's product, as each of mm's calls would choose it."""
    h, m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k:
        raise ValueError("matmul: the operands' inner sizes differ")
    out = np.empty((h, m, n), a.dtype)
    if h == 0 or m == 0 or n == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    if n == 1 and m > 1 and a.flags.c_contiguous:
        # (a contiguous stack times a column, ``img @ weights``: NumPy's gemv for each matrix
        # (of one row: dot, below), the column's layout found once. One gemv over all the
        # rows would be faster, but its sums differ from the per-matrix ones in OpenBLAS for
        # some shapes)
        b, tb, ldb = _operand(b)
        inc_b = ldb if tb == _NO_TRANS else 1
        before = _serially(_macs(m, n, k), a.itemsize)
        for i in range(h):
            _gemv_call(_NO_TRANS, m, k, a[i], k, b, inc_b, out[i])
        _restore(before)
        return out
    before = _serially(_macs(m, n, k), a.itemsize)
    for i in range(h):
        _product_into(a[i], b, out[i])
    _restore(before)
    return out


@njit(cache=True)
def stacked_mv(a, x):
    """``a @ x`` of a 3-D and a 1-D float array (``img @ weights``): gemv for each matrix of
    the stack, as NumPy's matmul loops over it."""
    return stacked_mm(a, x[:, None]).reshape(a.shape[0], a.shape[1])


@njit(cache=True)
def _numba_dot(a, b):
    return np.dot(a, b)


# ``a @ b`` of 2-D float arrays for fusejit's own compiled modules: NumPy's BLAS when found, else
# Numba's np.dot (the digest names which, so cached code matches: ``blas_identity``).
product = mm if _FOUND is not None else _numba_dot

__all__ = ["NumpyBlas", "PARALLEL_WORK_NS", "SAMPLE_S", "blas_identity", "dot",
           "fallback_reason", "find_numpy_blas", "free_cores", "matmul", "max_threads", "mm",
           "mm_add", "mv", "numpy_blas", "product", "refresh", "set_max_threads",
           "stacked_mm", "stacked_mv", "vm"]
