"""NumPy functions written in the NumPy that fusejit scripts, inlined where a program calls
them (``SHIMS``: the NumPy function -> its stand-in here)::

    c = np.cov(x, rowvar=False)      inlined: cov(x, None, False, False, None) below
    y = np.polyval(p, t)             inlined: Horner's rule over p's entries

Each stand-in follows NumPy's own definition (``numpy/lib/_function_base_impl.py`` and
friends) for the arguments it takes, with the same operations in the same order (so the same
rounding), and every step it takes has a derivative. A construct a stand-in does not cover is
refused naming the caller's line (``expressions.eval_Call``).
"""

from __future__ import annotations

import numpy as np


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    x = np.atleast_2d(m)
    if not rowvar:
        x = x.T
    if y is not None:
        other = np.atleast_2d(y)
        if not rowvar:
            other = other.T
        x = np.concatenate((x, other), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    xc = x - np.mean(x, axis=1, keepdims=True)
    c = xc @ xc.T / (x.shape[1] - ddof)   # (real arrays: no conj)
    if m.ndim == 1 and y is None:
        return c[0, 0]   # (NumPy squeezes the 1 x 1 matrix; other squeezes need sizes)
    return c


def corrcoef(x, y=None, rowvar=True):
    c = cov(x, y, rowvar)
    stddev = np.sqrt(np.diag(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return np.clip(c, -1, 1)


def polyval(p, x):
    # NumPy: y = zeros_like(x); for pv in p: y = y * x + pv (its first step gives p[0])
    p = np.asarray(p)
    y = x * 0 + p[0]
    for i in range(1, p.shape[0]):
        y = y * x + p[i]
    return y


def kron(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return (a[:, None] * b[None, :]).reshape(-1)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("np.kron is supported for two 1-D or two 2-D arrays")
    outer = a[:, None, :, None] * b[None, :, None, :]
    return outer.reshape(a.shape[0] * b.shape[0], a.shape[1] * b.shape[1])


def meshgrid(x, y, indexing="xy"):
    # (x + zeros: copies of x along a new axis, in x's dtype, with a gradient)
    x, y = np.asarray(x).reshape(-1), np.asarray(y).reshape(-1)
    if indexing == "xy":
        return (x[None, :] + np.zeros((y.shape[0], 1), dtype=x.dtype),
                y[:, None] + np.zeros((1, x.shape[0]), dtype=y.dtype))
    return (x[:, None] + np.zeros((1, y.shape[0]), dtype=x.dtype),
            y[None, :] + np.zeros((x.shape[0], 1), dtype=y.dtype))


def tri(N, M=None, k=0, dtype=None):
    if M is None:
        M = N
    if dtype is None:
        return np.tril(np.ones((N, M)), k)
    return np.tril(np.ones((N, M)), k).astype(dtype)


SHIMS = {np.cov: cov, np.corrcoef: corrcoef, np.polyval: polyval, np.kron: kron,
         np.meshgrid: meshgrid, np.tri: tri}

__all__ = ["SHIMS"]
