"""``np.interp`` compiled: NumPy's own loop (``arr_interp`` in ``compiled_base.c``), for
whole-graph functions (``element_function``) and, threaded, for the interpreter's
``fusejit::interp`` on big arrays.

NumPy walks the points in order, each search starting from the interval the previous point fell
in (``binary_search_with_guess``: the guess, its neighbours, then bisection, within 8 places
where it can), and computes ``slope * (x - xp[j]) + fp[j]`` in the interval ``[xp[j],
xp[j + 1])`` holding ``x``; ``fp[j]`` where ``x`` is ``xp[j]``; the other end's form where that
gives NaN; ``left`` and ``right`` (by default ``fp``'s ends) outside; NaN for NaN. Slopes are
computed once where there are no more of them than points. ``interp`` follows those steps, so
its values are NumPy's bits, whatever ``xp`` holds.

Where ``xp`` increases (ties allowed, no NaN), the interval a point falls in does not depend on
the guess, so ``interp_threaded`` splits the points among threads, each chunk searching from its
own start, with the same values; elsewhere it runs NumPy's single walk. Imported, this module
makes it the interpreter's body of ``fusejit::interp`` for big calls (``threaded_body``; the
operator library, below the runtime, has NumPy's own).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import compile_cache  # noqa: F401  (caches the functions below with fusejit's own)

_NEAR = 8       # (NumPy's LIKELY_IN_CACHE_SIZE)


@njit(cache=True)
def _search(key, arr, n, guess):
    """The ``j`` with ``arr[j] <= key < arr[j + 1]`` (-1 below ``arr[0]``, ``n`` above
    ``arr[n - 1]``, ``n - 1`` at it), searched from ``guess`` as NumPy searches."""
    if key > arr[n - 1]:
        return n
    if key < arr[0]:
        return -1
    if n <= 4:
        i = 1
        while i < n and key >= arr[i]:
            i += 1
        return i - 1
    guess = max(min(guess, n - 3), 1)
    low, high = 0, n
    # (each comparison as NumPy writes it: with NaN in ``arr`` the branches taken are its own)
    if key < arr[guess]:
        if not key < arr[guess - 1]:
            return guess - 1
        high = guess - 1
        if guess > _NEAR and key >= arr[guess - _NEAR]:
            low = guess - _NEAR
    else:
        if key < arr[guess + 1]:
            return guess
        if key < arr[guess + 2]:
            return guess + 1
        low = guess + 2
        if guess < n - _NEAR - 1 and key < arr[guess + _NEAR]:
            high = guess + _NEAR
    while low < high:
        middle = low + ((high - low) >> 1)
        if key >= arr[middle]:
            low = middle + 1
        else:
            high = middle
    return low - 1


@njit(cache=True, error_model="numpy")
def _walk(x, xp, fp, slopes, low, high, out, start, stop):
    """``out[start:stop]`` for the points ``x[start:stop]`` (flat, float64), the search
    starting from interval 0."""
    n = xp.size
    j = 0
    for i in range(start, stop):
        v = x[i]
        if v != v:
            out[i] = v
            continue
        j = _search(v, xp, n, j)
        if j == -1:
            out[i] = low
        elif j == n:
            out[i] = high
        elif j == n - 1 or xp[j] == v:
            out[i] = fp[j]
        else:
            slope = slopes[j] if slopes.size else (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
            r = slope * (v - xp[j]) + fp[j]
            if r != r:      # (NaN one way: the other end's form; equal ends their value)
                r = slope * (v - xp[j + 1]) + fp[j + 1]
                if r != r and fp[j] == fp[j + 1]:
                    r = fp[j]
            out[i] = r


@njit(cache=True, error_model="numpy")
def _prepared(x, xp, fp, left, right, has_left, has_right):
    """(the points flat, xp, fp, slopes, the values below and above, the flat result) after
    NumPy's checks (ValueError: the caller's fallback gives NumPy's own)."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    xs, fs = np.ascontiguousarray(xp), np.ascontiguousarray(fp)
    n = xs.size
    if n == 0 and flat.size:
        raise ValueError("array of sample points is empty")
    if fs.size != n:
        raise ValueError("fp and xp are not of the same length.")
    low = left if has_left else (fs[0] if n else 0.0)
    high = right if has_right else (fs[n - 1] if n else 0.0)
    slopes = np.empty(n - 1 if 1 < n <= flat.size else 0, np.float64)
    for i in range(slopes.size):
        slopes[i] = (fs[i + 1] - fs[i]) / (xs[i + 1] - xs[i])
    return flat, xs, fs, slopes, low, high, np.empty(flat.size, np.float64)


@njit(cache=True, error_model="numpy")
def _one_point(flat, xs, fs, low, high, out):
    """A single sample point: ``fp[0]`` at it, ``left`` / ``right`` on either side."""
    for i in range(flat.size):
        v = flat[i]
        out[i] = low if v < xs[0] else high if v > xs[0] else fs[0]


@njit(cache=True, error_model="numpy")
def interp(x, xp, fp, left, right, has_left, has_right):
    """``np.interp(x, xp, fp, left, right)`` of float64 arrays (``x`` of any shape), NumPy's
    walk; ``has_left`` / ``has_right``: given (else ``fp``'s ends)."""
    flat, xs, fs, slopes, low, high, out = _prepared(x, xp, fp, left, right, has_left,
                                                     has_right)
    if xs.size == 1:
        _one_point(flat, xs, fs, low, high, out)
    elif flat.size:
        _walk(flat, xs, fs, slopes, low, high, out, 0, flat.size)
    return out.reshape(x.shape)


@njit(cache=True)
def _increasing(xs):
    for i in range(xs.size - 1):
        if not xs[i] <= xs[i + 1]:
            return False
    return True


@njit(cache=True, parallel=True, error_model="numpy")
def _walk_chunks(flat, xs, fs, slopes, low, high, out, chunks):
    size = flat.size
    for c in prange(chunks):
        _walk(flat, xs, fs, slopes, low, high, out, c * size // chunks,
              (c + 1) * size // chunks)


@njit(cache=True, error_model="numpy")
def interp_threaded(x, xp, fp, left, right, has_left, has_right, chunks):
    """``interp`` with the points split into ``chunks`` walked by threads where ``xp``
    increases (the same values); NumPy's single walk elsewhere."""
    flat, xs, fs, slopes, low, high, out = _prepared(x, xp, fp, left, right, has_left,
                                                     has_right)
    if xs.size == 1:
        _one_point(flat, xs, fs, low, high, out)
    elif flat.size and chunks > 1 and _increasing(xs):
        _walk_chunks(flat, xs, fs, slopes, low, high, out, chunks)
    elif flat.size:
        _walk(flat, xs, fs, slopes, low, high, out, 0, flat.size)
    return out.reshape(x.shape)


def threaded_body(x: np.ndarray, xp: np.ndarray, fp: np.ndarray, left=None, right=None):
    """The interpreter's body of ``fusejit::interp`` (set on its overload when this module is
    imported, as the runtime does): NumPy's own below 4096 points, else NumPy's walk split
    among threads where the free-core rule gives them (the same values)."""
    from ..oplib.array_ops import _interp
    from ..oplib.table import as_tensor
    from .fusion.plan import num_threads, parallel_now

    if x.size < 4096 or xp.ndim != 1 or fp.ndim != 1 or xp.size < 2 or fp.size != xp.size:
        return _interp(x, xp, fp, left, right)
    threads = num_threads()
    work = x.size * (5.0 + 2.0 * np.log2(xp.size))       # (ns: a search and a line)
    chunks = threads if parallel_now(work, threads) else 1
    f64 = np.float64
    return as_tensor(interp_threaded(
        x.astype(f64, copy=False), xp.astype(f64, copy=False), fp.astype(f64, copy=False),
        0.0 if left is None else float(left), 0.0 if right is None else float(right),
        left is not None, right is not None, chunks))


def _install() -> None:
    from ..oplib.table import ENTRIES

    for overload in ENTRIES["fusejit::interp"].overloads:
        overload.numpy_body = threaded_body


_install()

__all__ = ["interp", "interp_threaded", "threaded_body"]
