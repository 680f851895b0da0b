"""NumPy's own LAPACK, called from compiled code: ``np.linalg.solve``, ``inv``, ``det``,
``slogdet``, ``eigvalsh``, ``eigh``, ``cholesky`` and ``lstsq`` of one matrix, as NumPy's
``umath_linalg`` computes them, and ``np.polyfit`` as NumPy's Python code computes it, so that
a whole-graph function (``element_function``) gives NumPy's bits.

NumPy copies each matrix into a Fortran-ordered buffer and calls one routine of the LAPACK in
the OpenBLAS its wheel ships (the library ``blas.py`` finds): ``dgesv`` for solve (and for inv,
of the identity), ``dgetrf`` for det and slogdet (the sign from the pivots and the diagonal,
``log|det|`` a sum of logs, and det ``sign * exp(logdet)``), ``dsyevd`` for eigvalsh and eigh
(its workspace sizes queried first), ``dpotrf`` for cholesky, ``dgelsd`` for lstsq (its
workspace queried too; the residuals summed one square at a time, as NumPy does). The
functions here do the same with the same library, on float64 matrices: NumPy computes float32
ones in float64 too and casts the results (the writer does the same). Numba's own
``np.linalg`` calls SciPy's LAPACK instead, a second OpenBLAS with its own thread pool (see
``blas.py``) whose results may differ in the last bits.

Where NumPy raises (a singular matrix, eigenvalues that do not converge, a matrix that is not
square or not positive definite), these raise ``ValueError``; the whole-graph function's caller
then runs the graph on the interpreter, which gives NumPy's own error. The thread count is left
as it is, as NumPy leaves it. ``numpy_lapack()`` is False where a routine is missing: writers
then leave linear algebra to the interpreter.
"""

from __future__ import annotations

import ctypes
import functools
import math

import numpy as np
from llvmlite import binding
from numba import njit, types

from . import compile_cache  # noqa: F401  (caches the functions below with fusejit's own)
from .blas import _REGISTERED_PREFIX, numpy_blas

_ROUTINES = ("dgesv", "dgetrf", "dsyevd", "dpotrf", "dgelsd")


@functools.lru_cache(maxsize=1)
def numpy_lapack() -> bool:
    """Are NumPy's LAPACK routines found (beside its BLAS) and registered for compiled code?"""
    found = numpy_blas()
    if found is None:
        return False
    prefix, suffix = found.scheme
    try:
        library = ctypes.CDLL(found.library)
        # (Fortran's names: scipy_dgesv_64_ in NumPy 2's wheels, beside scipy_cblas_dgemm64_)
        addresses = {name: ctypes.cast(getattr(library, f"{prefix}{name}_{suffix}"),
                                       ctypes.c_void_p).value for name in _ROUTINES}
    except (OSError, AttributeError):
        return False
    for name, address in addresses.items():
        binding.add_symbol(_REGISTERED_PREFIX + name, address)
    return True


_AVAILABLE = numpy_lapack()
_INT = np.int32 if _AVAILABLE and numpy_blas().int_bits == 32 else np.int64
_P = types.voidptr


def _external(name: str, count: int) -> types.ExternalFunction:
    """A Fortran routine: every argument a pointer."""
    return types.ExternalFunction(_REGISTERED_PREFIX + name, types.void(*([_P] * count)))


_dgesv = _external("dgesv", 8)
_dgetrf = _external("dgetrf", 6)
_dsyevd = _external("dsyevd", 11)
_dpotrf = _external("dpotrf", 5)
_dgelsd = _external("dgelsd", 14)


@njit(cache=True)
def _fortran(a):
    """A Fortran-ordered copy of matrix ``a`` (what NumPy's linearize makes)."""
    out = np.empty((a.shape[1], a.shape[0]), a.dtype).T
    out[:, :] = a
    return out


@njit(cache=True)
def _square(a):
    if a.shape[0] != a.shape[1]:
        raise ValueError("Last 2 dimensions of the array must be square")
    return a.shape[0]


@njit(cache=True)
def _gesv(a, b):
    """Solve ``a x = b`` for Fortran-ordered ``b`` (n x k) in place; ``a`` is overwritten."""
    n, k = a.shape[0], b.shape[1]
    ints = np.empty(4 + n, _INT)        # n, k, ld, info, then the pivots
    ints[0], ints[1], ints[2] = n, k, max(n, 1)
    _dgesv(ints[0:].ctypes, ints[1:].ctypes, a.ctypes, ints[2:].ctypes, ints[4:].ctypes,
           b.ctypes, ints[2:].ctypes, ints[3:].ctypes)
    if ints[3] != 0:
        raise ValueError("Singular matrix")


@njit(cache=True)
def solve(a, b):
    """``np.linalg.solve(a, b)``: ``b`` a matrix (n x k); both of one float dtype."""
    n = _square(a)
    if b.shape[0] != n:
        raise ValueError("solve: the right-hand side's rows differ from the matrix's")
    x = _fortran(b)
    if n and b.shape[1]:
        _gesv(_fortran(a), x)
    return np.ascontiguousarray(x)


@njit(cache=True)
def solve_vector(a, b):
    """``np.linalg.solve(a, b)`` of a vector ``b``."""
    column = np.empty((b.shape[0], 1), b.dtype)
    column[:, 0] = b
    return solve(a, column)[:, 0].copy()


@njit(cache=True)
def inv(a):
    """``np.linalg.inv(a)``: the solution of ``a x = I`` (NumPy's own way)."""
    n = _square(a)
    x = _fortran(np.eye(n, dtype=a.dtype))
    if n:
        _gesv(_fortran(a), x)
    return np.ascontiguousarray(x)


@njit(cache=True)
def _slogdet(a):
    """(sign, log|det|) of square ``a`` from its LU factors, in ``a``'s dtype."""
    n = _square(a)
    lu = _fortran(a)
    one, zero = np.ones(1, a.dtype)[0], np.zeros(1, a.dtype)[0]
    if n == 0:
        return one, zero
    ints = np.empty(2 + n, _INT)        # n (and ld), info, then the pivots
    ints[0] = n
    _dgetrf(ints[0:].ctypes, ints[0:].ctypes, lu.ctypes, ints[0:].ctypes, ints[2:].ctypes,
            ints[1:].ctypes)
    if ints[1] < 0:
        raise ValueError("getrf: an illegal argument")
    if ints[1] > 0:                     # (singular: NumPy's sign 0 and -inf)
        return zero, np.full(1, -np.inf, a.dtype)[0]
    sign = one
    for i in range(n):
        if ints[2 + i] != i + 1:
            sign = -sign
    logdet = zero
    for i in range(n):
        d = lu[i, i]
        if d < zero:
            sign = -sign
            d = -d
        logdet += math.log(d)
    return sign, logdet


@njit(cache=True)
def slogdet(a):
    """``np.linalg.slogdet(a)``."""
    return _slogdet(a)


@njit(cache=True)
def det(a):
    """``np.linalg.det(a)``: ``sign * exp(log|det|)``, as NumPy computes it."""
    sign, logdet = _slogdet(a)
    return sign * math.exp(logdet)


@njit(cache=True)
def cholesky(a):
    """``np.linalg.cholesky(a)``: the lower factor (``dpotrf`` on the lower triangle), zeros
    above its diagonal."""
    n = _square(a)
    z = _fortran(a)
    if n:
        chars = np.empty(1, np.uint8)
        chars[0] = 76                   # ('L')
        ints = np.empty(2, _INT)        # n (and ld), info
        ints[0] = n
        _dpotrf(chars.ctypes, ints[0:].ctypes, z.ctypes, ints[0:].ctypes, ints[1:].ctypes)
        if ints[1] != 0:
            raise ValueError("Matrix is not positive definite")
    out = np.ascontiguousarray(z)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = 0.0
    return out


@njit(cache=True)
def _syevd(a, lower, vectors):
    """(eigenvalues ascending, Fortran-ordered eigenvectors or the overwritten copy) of
    symmetric ``a``, reading its lower (or upper) triangle."""
    n = _square(a)
    w = np.empty(n, a.dtype)
    z = _fortran(a)
    if n == 0:
        return w, z
    chars = np.empty(2, np.uint8)       # jobz, uplo
    chars[0] = 86 if vectors else 78    # ('V', 'N')
    chars[1] = 76 if lower else 85      # ('L', 'U')
    ints = np.empty(5, _INT)            # n (and ld), lwork, liwork, info, the iwork query
    ints[0] = n
    ints[1], ints[2] = -1, -1
    query = np.empty(1, a.dtype)
    for attempt in range(2):            # (the workspace sizes, then the call)
        if attempt:
            work = np.empty(max(int(query[0]), 1), a.dtype)
            iwork = np.empty(max(int(ints[4]), 1), _INT)
            ints[1], ints[2] = work.size, iwork.size
        else:
            work, iwork = query, ints[4:]
        _dsyevd(chars[0:].ctypes, chars[1:].ctypes, ints[0:].ctypes, z.ctypes, ints[0:].ctypes,
                w.ctypes, work.ctypes, ints[1:].ctypes, iwork.ctypes, ints[2:].ctypes,
                ints[3:].ctypes)
        if ints[3] != 0:
            raise ValueError("Eigenvalues did not converge")
    return w, z


@njit(cache=True)
def eigvalsh(a, lower):
    """``np.linalg.eigvalsh(a, 'L' if lower else 'U')``."""
    return _syevd(a, lower, False)[0]


@njit(cache=True)
def eigh(a, lower):
    """``np.linalg.eigh(a, 'L' if lower else 'U')``: (eigenvalues, eigenvectors)."""
    w, z = _syevd(a, lower, True)
    return w, np.ascontiguousarray(z)


@njit(cache=True)
def _gelsd(a, b, rcond):
    """(solution n x k, residuals, rank, singular values) of the least squares ``a x = b``, ``b``
    a matrix: ``dgelsd`` on Fortran copies, NumPy's ``lstsq`` gufunc. The residuals, one sum of
    squares per column of ``b``, only where NumPy's ``lstsq`` keeps them (more rows than columns
    and full rank); else none. Empty operands are left to NumPy (ValueError)."""
    m, n, k = a.shape[0], a.shape[1], b.shape[1]
    if b.shape[0] != m:
        raise ValueError("Incompatible dimensions")
    if m == 0 or n == 0 or k == 0:
        raise ValueError("lstsq: an empty operand (NumPy's own handling)")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        # (LAPACK prints its complaints about NaN and infinities: NumPy's call alone does)
        raise ValueError("lstsq: values that are not finite (NumPy's own handling)")
    rows = max(m, n)
    af = _fortran(a)
    bf = np.zeros((k, rows), np.float64).T
    bf[:m, :] = b
    s = np.empty(min(m, n), np.float64)
    ints = np.empty(9, _INT)            # m, n, k, lda, ldb, rank, lwork, info, the iwork query
    ints[0], ints[1], ints[2], ints[3], ints[4] = m, n, k, m, rows
    ints[6] = -1
    reals = np.empty(1, np.float64)     # rcond
    reals[0] = rcond
    query = np.empty(1, np.float64)
    for attempt in range(2):            # (the workspace sizes, then the call)
        if attempt:
            work = np.empty(max(int(query[0]), 1), np.float64)
            iwork = np.empty(max(int(ints[8]), 1), _INT)
            ints[6] = work.size
        else:
            work, iwork = query, ints[8:]
        _dgelsd(ints[0:].ctypes, ints[1:].ctypes, ints[2:].ctypes, af.ctypes, ints[3:].ctypes,
                bf.ctypes, ints[4:].ctypes, s.ctypes, reals.ctypes, ints[5:].ctypes,
                work.ctypes, ints[6:].ctypes, iwork.ctypes, ints[7:].ctypes)
        if ints[7] != 0:
            raise ValueError("SVD did not converge in Linear Least Squares")
    rank = ints[5]
    residuals = np.empty(k if m > n and rank == n else 0, np.float64)
    for j in range(residuals.size):
        total = 0.0
        for i in range(n, m):
            total += bf[i, j] * bf[i, j]
        residuals[j] = total
    return np.ascontiguousarray(bf[:n, :]), residuals, np.int32(rank), s


@njit(cache=True)
def _cutoff(a, rcond, default):
    """``rcond``, or NumPy's default (rcond=None): the machine precision times the larger
    dimension."""
    return 2.220446049250313e-16 * max(a.shape[0], a.shape[1]) if default else rcond


@njit(cache=True)
def lstsq(a, b, rcond, default):
    """``np.linalg.lstsq(a, b, rcond)`` of a matrix ``b``: (x, residuals, rank, singular
    values); ``default``: rcond=None."""
    return _gelsd(a, b, _cutoff(a, rcond, default))


@njit(cache=True)
def lstsq_vector(a, b, rcond, default):
    """``np.linalg.lstsq(a, b, rcond)`` of a vector ``b``: x a vector, the residuals (1,) or
    (0,) as NumPy's."""
    column = np.empty((b.shape[0], 1), b.dtype)
    column[:, 0] = b
    x, residuals, rank, s = _gelsd(a, column, _cutoff(a, rcond, default))
    return x[:, 0].copy(), residuals, rank, s


@njit(cache=True)
def polyfit(x, y, deg, single):
    """``np.polyfit(x, y, deg)`` of float64 ``x`` and ``y`` (a vector or a matrix of columns),
    NumPy's steps: the Vandermonde matrix by repeated products, its columns scaled by their
    norms (sums of squares down each column, in row order), ``lstsq`` with the cut-off
    ``len(x)`` times the machine precision of ``x``'s dtype (float32's where ``single``, in
    float32 arithmetic), the coefficients unscaled. Where NumPy warns (a rank below
    ``deg + 1``) or raises, ValueError: the caller reruns the graph on NumPy's own."""
    m, order = x.shape[0], deg + 1
    if deg < 0 or m == 0 or y.shape[0] != m:
        raise ValueError("polyfit: arguments NumPy refuses")
    lhs = np.empty((m, order), np.float64)
    for i in range(m):
        power = 1.0
        lhs[i, order - 1] = power
        for j in range(order - 2, -1, -1):
            power = x[i] if j == order - 2 else power * x[i]
            lhs[i, j] = power
    scale = np.zeros(order, np.float64)
    for i in range(m):
        for j in range(order):
            scale[j] += lhs[i, j] * lhs[i, j]
    scale = np.sqrt(scale)
    for i in range(m):
        for j in range(order):
            lhs[i, j] /= scale[j]
    if single:
        rcond = np.float64(np.float32(m) * np.float32(1.1920928955078125e-07))
    else:
        rcond = m * 2.220446049250313e-16
    c, _, rank, _ = _gelsd(lhs, y, rcond)
    if rank != order:
        raise ValueError("Polyfit may be poorly conditioned (NumPy warns)")
    for i in range(order):
        for j in range(c.shape[1]):
            c[i, j] /= scale[i]
    return c


@njit(cache=True)
def polyfit_vector(x, y, deg, single):
    """``np.polyfit(x, y, deg)`` of a vector ``y``: the coefficients, highest power first."""
    column = np.empty((y.shape[0], 1), np.float64)
    column[:, 0] = y
    return polyfit(x, column, deg, single)[:, 0].copy()


__all__ = ["cholesky", "det", "eigh", "eigvalsh", "inv", "lstsq", "lstsq_vector", "numpy_lapack",
           "polyfit", "polyfit_vector", "slogdet", "solve", "solve_vector"]
