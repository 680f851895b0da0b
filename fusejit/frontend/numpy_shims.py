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

import inspect
import math

import numpy as np


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    x = np.atleast_2d(m).astype(np.float64)   # (NumPy: result_type(m, y, float64))
    if not rowvar:
        x = x.T
    if y is not None:
        other = np.atleast_2d(y).astype(np.float64)
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
    x = np.asarray(x)   # (a number: a 0-d int64 or float64 array, strong, as NumPy's)
    y = np.zeros_like(x) * x + p[0]
    for i in range(1, p.shape[0]):
        y = y * x + p[i]
    return y


def unsupported(message):
    """Refuses the call being inlined while scripting, naming the caller's line (the
    frontend recognises this function; it never runs)."""
    raise NotImplementedError(message)


def kron(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return (a[:, None] * b[None, :]).reshape(-1)
    if a.ndim != 2 or b.ndim != 2:
        unsupported("np.kron is supported for two 1-D or two 2-D arrays")
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


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None or axisa != -1 or axisb != -1 or axisc != -1:
        unsupported("np.cross is supported along the last axis (of 3-vectors)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def correlate(a, v, mode="valid"):
    # the full correlation is the convolution with v reversed; but where v is the longer,
    # NumPy centres 'same' by a's length rounded down (correlating v with a, reversed), not up
    a, v = np.asarray(a), np.asarray(v)
    if mode == "same" and v.shape[0] > a.shape[0]:
        return np.convolve(a, v[::-1], "full")[a.shape[0] // 2:a.shape[0] // 2 + v.shape[0]]
    return np.convolve(a, v[::-1], mode)


def select(condlist, choicelist, default=0):
    # the first condition that holds picks its choice
    result = np.where(condlist[0], choicelist[0], default)
    taken = condlist[0]
    for cond, choice in zip(condlist[1:], choicelist[1:]):
        result = np.where(taken, result, np.where(cond, choice, result))
        taken = taken | cond
    return result


def matrix_power(a, n):
    if n == 0:
        return np.eye(a.shape[-1], dtype=a.dtype) + a * 0
    if n < 0:
        a = np.linalg.inv(a)
        n = -n
    result = a
    for _ in range(n - 1):
        result = result @ a
    return result


def vdot(a, b):
    return np.dot(np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))


def _outer_operands(a, b):
    # (ufunc.outer: a's axes, then b's; arrays of at most one axis)
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim > 1 or b.ndim > 1:
        unsupported("ufunc.outer is supported for 0-d and 1-d arrays")
    if b.ndim == 1:
        a = a[..., None]
    return a, b


def add_outer(a, b):
    a, b = _outer_operands(a, b)
    return a + b


def subtract_outer(a, b):
    a, b = _outer_operands(a, b)
    return a - b


def multiply_outer(a, b):
    a, b = _outer_operands(a, b)
    return a * b


def divide_outer(a, b):
    a, b = _outer_operands(a, b)
    return a / b


def copysign(x1, x2):
    # (NumPy's dtype: x1's and x2's promoted as floats; np.copysign(1.0, f32) is float32,
    # which np.where of two Python floats is not; the magnitude in it before its sign is
    # set: np.copysign(0, -1) is -0.0)
    magnitude = np.asarray(np.abs(x1)).astype((x1 + x2 * 1.0).dtype)
    negative = np.signbit(x2)      # (-0.0 and a NaN's sign bit too: NumPy copies the bit)
    return np.where(negative, -magnitude, magnitude)



def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = np.swapaxes(np.asarray(y), axis, -1)
    if x is None:
        d = dx
    else:
        if x.ndim != 1:
            unsupported("np.trapezoid: x must be 1-D")
        d = np.diff(x)
    return np.sum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)



def multi_dot(arrays):
    result = arrays[0]
    for a in arrays[1:]:
        result = result @ a
    return result


def rot90(m, k=1):
    if m.ndim != 2:
        unsupported("np.rot90 is supported for 2-D arrays, in the plane of their two axes")
    turns = k % 4
    if turns == 1:
        return np.flip(m, 1).T
    if turns == 2:
        return np.flip(np.flip(m, 0), 1)
    if turns == 3:
        return np.flip(m.T, 1)
    return m


def add_reduce(a, axis=0, keepdims=False):
    return np.sum(a, axis=axis, keepdims=keepdims)


def multiply_reduce(a, axis=0, keepdims=False):
    return np.prod(a, axis=axis, keepdims=keepdims)


def maximum_reduce(a, axis=0, keepdims=False):
    return np.max(a, axis=axis, keepdims=keepdims)


def minimum_reduce(a, axis=0, keepdims=False):
    return np.min(a, axis=axis, keepdims=keepdims)


def logaddexp_reduce(a, axis=0, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    if keepdims:
        return out
    return np.squeeze(out, axis=axis)


def _into(out, result):
    # NumPy's out=: the result written into out (which broadcasts it), and out returned
    if out is None:
        return result
    out[...] = result
    return out


def add_accumulate(a, axis=0, dtype=None, out=None):
    if dtype is not None:
        unsupported("ufunc.accumulate: dtype= is not supported; cast the array first")
    return _into(out, np.cumsum(a, axis=axis))


def multiply_accumulate(a, axis=0, dtype=None, out=None):
    if dtype is not None:
        unsupported("ufunc.accumulate: dtype= is not supported; cast the array first")
    return _into(out, np.cumprod(a, axis=axis))


def digitize(x, bins, right=False):
    # NumPy's: which bin each x falls in, by searchsorted on bins that increase, on the
    # reversed bins where they decrease; neither is NumPy's ValueError
    x = np.asarray(x)
    bins = np.asarray(bins)
    if not np.all(bins[1:] >= bins[:-1]):
        if not np.all(bins[1:] <= bins[:-1]):
            raise ValueError("bins must be monotonically increasing or decreasing")
        if right:
            return bins.shape[0] - np.searchsorted(bins[::-1], x, side="left")
        return bins.shape[0] - np.searchsorted(bins[::-1], x, side="right")
    if right:
        return np.searchsorted(bins, x, side="left")
    return np.searchsorted(bins, x, side="right")


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    # NumPy's equal-width bins: edges as its np.linspace makes them (in the data's float
    # dtype from its extremes, float64 for integers; from a given range in float64, then
    # cast), each value's bin from its offset, moved by one where that lands off its edges
    # (NumPy's correction), values outside the range counted in one more bin, dropped
    a = np.asarray(a).reshape(-1)
    edges = np.asarray(bins)
    if edges.ndim != 0:
        # edges given: NumPy's counts of the sorted values up to each edge (the last bin
        # closed), their differences
        if edges.ndim != 1:
            raise ValueError("`bins` must be 1d, when an array")
        if weights is not None:
            unsupported("np.histogram: weights= with bins given as edges is not supported")
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        ordered = np.sort(a)
        below = np.concatenate((np.searchsorted(ordered, edges[:-1], side="left"),
                                np.searchsorted(ordered, edges[-1:], side="right")))
        n = np.diff(below)
        if density:
            return n / np.diff(edges).astype(np.float64) / n.sum(), edges
        return n, edges
    zero = np.zeros((), dtype=(a[:0] * 1.0).dtype)
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is None:
        first = a.min() + zero
        last = a.max() + zero
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError("autodetected range of `a` is not finite")
        if first == last:
            first = first - 0.5
            last = last + 0.5
        # (a number: the edges' own map and the bins' map then share no array producer, which
        # the fuser would put in one group with outputs of two shapes; exact, of the dtype)
        step = float((last - first) / bins)
        edges = np.arange(bins + 1).astype(zero.dtype) * step + first
        edges[-1] = last
    else:
        start = range[0] * 1.0
        stop = range[1] * 1.0
        if start > stop:
            raise ValueError("max must be larger than min in range parameter.")
        if not (-np.inf < start < np.inf and -np.inf < stop < np.inf):
            raise ValueError("supplied range of `histogram` is not finite")
        if start == stop:
            start = start - 0.5
            stop = stop + 0.5
        step = (stop - start) / bins
        wide = np.arange(bins + 1) * step + start
        wide[-1] = stop
        edges = wide.astype(zero.dtype)
        first = zero + start
        last = zero + stop
    x = a.astype(zero.dtype)
    keep = (x >= first) & (x <= last)
    i = np.where(keep, (x - first) / (last - first) * bins, 0.0).astype(np.int64)
    i = np.where(i >= bins, bins - 1, i)
    # (edges[i] and edges[i + 1] by the arithmetic that made the edges, element by element:
    # the same values, and no gather to split the maps into three kernels)
    if range is None:
        below = i.astype(zero.dtype) * step + first
    else:
        below = (i * step + start).astype(zero.dtype)
    i = np.where(x < below, i - 1, i)
    j = i + 1
    if range is None:
        above = np.where(j == bins, last, j.astype(zero.dtype) * step + first)
    else:
        above = np.where(j == bins, last, (j * step + start).astype(zero.dtype))
    i = np.where((x >= above) & (i != bins - 1), i + 1, i)
    i = np.where(keep, i, bins)
    if weights is None:
        n = np.bincount(i, minlength=bins + 1)[:bins]
    else:
        w = np.asarray(weights).reshape(-1)
        n = np.bincount(i, weights=w, minlength=bins + 1)[:bins].astype(w.dtype)
    if density:
        return n / np.diff(edges).astype(np.float64) / n.sum(), edges
    return n, edges


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    # NumPy's answer (== against each test element: NaN is in nothing). A few test elements:
    # each compared, the comparisons and their any() one row kernel over the elements (a
    # binary search of 160K int16 codes in 5 int64 vowels took 1.6 ms, 10 ns an element);
    # more: a binary search of the sorted test elements, n log m, not an n x m comparison
    element = np.asarray(element)
    tests = np.sort(np.asarray(test_elements).reshape(-1))
    if tests.shape[0] == 0:
        return np.zeros(element.shape, np.bool_) != invert
    if tests.shape[0] <= 8:
        found = (element.reshape(-1, 1) == tests.reshape(1, -1)).sum(axis=1) > 0
        return (found != invert).reshape(element.shape)
    at = np.minimum(np.searchsorted(tests, element), tests.shape[0] - 1)
    # (reshaped to element's shape: the gather from a constant list has no known rank)
    return ((tests[at] == element) != invert).reshape(element.shape)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    # NumPy's: base ** np.linspace(start, stop, num)
    # (tests of names and None: decided while scripting)
    if endpoint:
        pass
    else:
        unsupported("np.logspace: endpoint=False is not supported")
    if dtype is not None:
        unsupported("np.logspace: dtype= is not supported")
    if axis:
        unsupported("np.logspace: axis= is not supported")
    return np.power(base, np.linspace(start, stop, num))


def unravel_index(indices, shape, order="C"):
    # NumPy's: the position along each axis of a C-order flat index, from the last axis
    if order != "C":
        unsupported("np.unravel_index: order='F' is not supported")
    flat = np.asarray(indices)
    size = 1
    for extent in shape:
        size = size * extent
    if np.any((flat < 0) | (flat >= size)):
        raise ValueError("index is out of bounds for array in np.unravel_index")
    found = ()
    for extent in shape[::-1]:
        found = (flat % extent,) + found
        flat = flat // extent
    return found


def gradient(f, spacing=None, axis=None):
    # NumPy's with edge_order=1: central differences inside, one-sided ones at the two ends,
    # along every axis (a tuple of arrays for more than one) or along axis; the spacing a
    # number, or for one axis the coordinates (non-uniform differences unless their steps
    # are all equal, as NumPy decides); integers in float64. Its spacings are *varargs,
    # which the stand-ins cannot take: one here; edge_order=2 is refused as an unknown
    # argument.
    f = np.asarray(f)
    if f.dtype != np.float32 and f.dtype != np.float64:
        f = f.astype(np.float64)
    if axis is None:
        if f.ndim == 1:
            return _gradient_along(f, spacing, 0)
        if f.ndim != 2:
            unsupported("np.gradient of an array of more than two dimensions needs axis=")
        if spacing is not None:
            given = np.asarray(spacing)
            if given.ndim != 0:
                unsupported("np.gradient: coordinates need axis= (or a vector)")
        return _gradient_along(f, spacing, 0), _gradient_along(f, spacing, 1)
    return _gradient_along(f, spacing, axis)


def _gradient_along(f, spacing, axis):
    g = np.swapaxes(f, axis, 0)     # (NumPy's AxisError for an axis f has not)
    if g.shape[0] < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    if spacing is None:
        return _uniform_gradient(f, 1.0, axis)
    x = np.asarray(spacing)
    if x.ndim == 0:
        return _uniform_gradient(f, spacing, axis)
    if x.ndim != 1:
        unsupported("np.gradient: distances must be either scalars or 1d")
    if x.shape[0] != g.shape[0]:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    if x.dtype != np.float32 and x.dtype != np.float64:
        x = x.astype(np.float64)
    steps = np.diff(x)
    if np.all(steps == steps[0]):
        return _uniform_gradient(f, steps[0], axis)
    return np.swapaxes(_varying_gradient(g, steps), axis, 0)


def _uniform_gradient(f, dx, axis):
    # Written into the result by parts, as NumPy's own: each part as NumPy's expression
    # computes it, then stored in the array's dtype. Along the first or last axis the parts
    # are slices of f and the result in their own order (a swapped view's stores run across
    # its rows). The parts were concatenated along a swapped view and the result swapped
    # back: a loop taking both gradients of 700 x 700 float64 took 18.8-19.4 ms, NumPy 14;
    # now 6.0-6.7 ms.
    out = np.empty(f.shape, f.dtype)
    if axis == 0 or axis == -f.ndim:
        _parts_into(out, f, dx)
    elif axis == f.ndim - 1 or axis == -1:
        out[..., :1] = (f[..., 1:2] - f[..., :1]) / dx
        out[..., 1:-1] = (f[..., 2:] - f[..., :-2]) / (2. * dx)
        out[..., -1:] = (f[..., -1:] - f[..., -2:-1]) / dx
    else:
        _parts_into(np.swapaxes(out, axis, 0), np.swapaxes(f, axis, 0), dx)
    return out


def _parts_into(o, g, dx):
    # (the two ends and the middle of the gradient along g's first axis, stored into o)
    o[:1] = (g[1:2] - g[:1]) / dx
    o[1:-1] = (g[2:] - g[:-2]) / (2. * dx)
    o[-1:] = (g[-1:] - g[-2:-1]) / dx


def _varying_gradient(g, steps):
    dx1 = steps[0:-1]
    dx2 = steps[1:]
    a = -(dx2) / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    if g.ndim == 2:
        a, b, c = a[:, None], b[:, None], c[:, None]
    elif g.ndim != 1:
        unsupported("np.gradient with coordinates: vectors and matrices only")
    inside = a * g[:-2] + b * g[1:-1] + c * g[2:]
    return np.concatenate(((g[1:2] - g[:1]) / steps[0], inside,
                           (g[-1:] - g[-2:-1]) / steps[-1])).astype(g.dtype)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    # NumPy's: the sorted distinct values in both
    if return_indices:
        unsupported("np.intersect1d: return_indices=True is not supported")
    a = np.unique(np.asarray(ar1))
    return a[np.isin(a, np.asarray(ar2))]


def union1d(ar1, ar2):
    # NumPy's: the sorted distinct values in either
    return np.unique(np.concatenate((np.asarray(ar1).reshape(-1), np.asarray(ar2).reshape(-1))))


def setdiff1d(ar1, ar2, assume_unique=False):
    # NumPy's: the distinct values of ar1 (ar1 itself, flattened, if assume_unique) not in ar2
    if assume_unique:
        a = np.asarray(ar1).reshape(-1)
    else:
        a = np.unique(np.asarray(ar1))
    return a[np.isin(a, ar2, invert=True)]


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.all(np.isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    # NumPy: False where the shapes differ; NaNs equal each other with equal_nan
    a1 = np.asarray(a1)
    a2 = np.asarray(a2)
    if a1.shape != a2.shape:
        return False
    if equal_nan:
        return bool(((a1 == a2) | (np.isnan(a1) & np.isnan(a2))).all())
    return bool((a1 == a2).all())


def nansum(a, axis=None, dtype=None, keepdims=False):
    # (NumPy's: NaNs replaced by 0, then sum)
    return np.sum(np.where(np.isnan(a), 0, a), axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, keepdims=False):
    # NumPy's: the sum of the non-NaNs over their count, divided into the sum's dtype
    # (np.true_divide(tot, cnt, out=tot, casting="unsafe")); integers: np.mean
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        return np.mean(a, axis=axis, keepdims=keepdims)
    mask = np.isnan(a)
    count = np.sum(~mask, axis=axis, keepdims=keepdims)
    total = np.sum(np.where(mask, 0, a), axis=axis, keepdims=keepdims)
    return (total / count).astype(a.dtype)


def _nan_reduction(a, axis, keepdims, largest):
    # NumPy's nanmax/nanmin: the NaNs skipped, NaN where a slice holds nothing else (NumPy
    # warns there); integers: np.max/np.min
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        if largest:
            return np.max(a, axis=axis, keepdims=keepdims)
        return np.min(a, axis=axis, keepdims=keepdims)
    mask = np.isnan(a)
    if largest:
        found = np.max(np.where(mask, -np.inf, a), axis=axis, keepdims=keepdims)
    else:
        found = np.min(np.where(mask, np.inf, a), axis=axis, keepdims=keepdims)
    return np.where(np.all(mask, axis=axis, keepdims=keepdims), np.nan, found)


def nanmax(a, axis=None, keepdims=False):
    return _nan_reduction(a, axis, keepdims, True)


def nanmin(a, axis=None, keepdims=False):
    return _nan_reduction(a, axis, keepdims, False)


def _nan_arg(a, axis, largest):
    # NumPy's nanargmax/nanargmin: the NaNs replaced by -inf (+inf), then argmax (argmin);
    # NumPy's ValueError where a slice is all NaN
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        if largest:
            return np.argmax(a, axis=axis)
        return np.argmin(a, axis=axis)
    mask = np.isnan(a)
    if np.any(np.all(mask, axis=axis)):
        raise ValueError("All-NaN slice encountered")
    if largest:
        return np.argmax(np.where(mask, -np.inf, a), axis=axis)
    return np.argmin(np.where(mask, np.inf, a), axis=axis)


def nanargmax(a, axis=None):
    return _nan_arg(a, axis, True)


def nanargmin(a, axis=None):
    return _nan_arg(a, axis, False)


def nanprod(a, axis=None, keepdims=False):
    # (NumPy's: NaNs replaced by 1, then prod)
    return np.prod(np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None):
    return np.cumsum(np.where(np.isnan(a), 0, a), axis=axis)


def nancumprod(a, axis=None):
    return np.cumprod(np.where(np.isnan(a), 1, a), axis=axis)


def nanvar(a, axis=None, ddof=0, keepdims=False):
    # NumPy's: the mean of the non-NaNs, then the sum of their squared deviations over
    # count - ddof (NaN where that is not positive); integers: np.var
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        return np.var(a, axis=axis, ddof=ddof, keepdims=keepdims)
    mask = np.isnan(a)
    count = np.sum(~mask, axis=axis, keepdims=True)
    mean = (np.sum(np.where(mask, 0, a), axis=axis, keepdims=True) / count).astype(a.dtype)
    deviation = np.where(mask, 0, a - mean)
    squares = np.sum(deviation * deviation, axis=axis, keepdims=keepdims)
    dof = np.sum(~mask, axis=axis, keepdims=keepdims) - ddof
    return np.where(dof > 0, squares / np.maximum(dof, 1), np.nan).astype(a.dtype)


def nanstd(a, axis=None, ddof=0, keepdims=False):
    return np.sqrt(nanvar(a, axis, ddof, keepdims))


def nanmedian(a, axis=None, keepdims=False):
    # NumPy's: the median of each slice's non-NaNs (they sort before the NaNs: the middle of
    # the first count of the sorted slice); NaN for a slice of NaNs alone (NumPy warns)
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        return np.median(a, axis=axis, keepdims=keepdims)
    if axis is None:
        if keepdims:
            unsupported("np.nanmedian: keepdims=True without an axis is not supported")
        s = np.sort(a.reshape(-1))
        n = np.sum(~np.isnan(s))
        if n == 0:
            return np.asarray(np.nan, dtype=a.dtype)
        if n % 2 == 1:      # (one middle element: the mean of two of it may overflow)
            return s[n // 2]
        return (s[(n - 1) // 2] + s[n // 2]) / 2
    s = np.sort(a, axis=axis)
    n = np.sum(~np.isnan(s), axis=axis, keepdims=True)
    low = np.take_along_axis(s, np.maximum(n - 1, 0) // 2, axis=axis)
    high = np.take_along_axis(s, np.minimum(n // 2, s.shape[axis] - 1), axis=axis)
    middle = np.where(n > 0, np.where(n % 2 == 1, high, (low + high) / 2),
                      np.nan).astype(a.dtype)
    if keepdims:
        return middle
    return np.squeeze(middle, axis=axis)


def append(arr, values, axis=None):
    # NumPy's: both flattened and concatenated, or concatenated along axis (a new array:
    # in a loop that grows an array, appending to a list costs less, in NumPy too)
    arr = np.asarray(arr)
    values = np.asarray(values)
    if axis is None:
        return np.concatenate((arr.reshape(-1), values.reshape(-1)))
    return np.concatenate((arr, values), axis=axis)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False):
    # NumPy's: the quantile of the non-NaN values (the first count of the sorted array, NaNs
    # sorting last); NaN where there are none (NumPy warns); integers: np.quantile
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        return quantile(a, q, axis, out, overwrite_input, method, keepdims)
    if axis is not None:
        unsupported("np.nanquantile/np.nanpercentile: axis= is not supported (the whole array)")
    s = np.sort(a.reshape(-1))
    n = int(np.sum(~np.isnan(s)))
    if n == 0:
        return np.asarray(np.nan, dtype=a.dtype)
    return quantile(s[:n], q, None, out, overwrite_input, method, keepdims)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False):
    return nanquantile(a, q / 100, axis, out, overwrite_input, method, keepdims)


def cond(x, p=None):
    # NumPy's for p=None (the 2-norm): the largest singular value over the smallest, of each
    # matrix; inf for a singular one (0 / 0), NaN only where the matrix holds one
    if p is not None:
        unsupported("np.linalg.cond: only p=None (the 2-norm) is supported")
    s = np.linalg.svd(x, compute_uv=False)
    r = s[..., 0] / s[..., -1]
    return np.where(np.isnan(r) & ~np.isnan(x).any(axis=(-2, -1)), np.inf, r)


def ediff1d(ary, to_end=None, to_begin=None):
    # NumPy's: the differences of the flattened array, with to_begin and to_end (flattened,
    # in its dtype) around them
    a = np.asarray(ary).reshape(-1)
    d = a[1:] - a[:-1]
    if to_begin is not None:
        d = np.concatenate((np.asarray(to_begin).astype(a.dtype).reshape(-1), d))
    if to_end is not None:
        d = np.concatenate((d, np.asarray(to_end).astype(a.dtype).reshape(-1)))
    return d


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    # NumPy's "linear" method for a number q: the sorted values at floor and ceil of
    # (n - 1) * q, interpolated by _lerp (from the upper one when the weight is >= 0.5);
    # NaN where the values hold one (sorted last). "lower", "higher" and "nearest" (half to
    # even) take one of the two values; "midpoint" their _lerp at 0.5 (the lower value where
    # the two are one).
    if keepdims:
        unsupported("np.quantile/np.percentile: keepdims=True is not supported")
    if out is not None:
        unsupported("np.quantile/np.percentile: out= is not supported")
    a = np.asarray(a)
    if axis is None:
        s = np.sort(a.reshape(-1))
    else:
        s = np.swapaxes(np.sort(a, axis=axis), axis, 0)
    n = s.shape[0]
    virtual = (n - 1) * q
    below = min(int(np.floor(virtual)), n - 1)
    above = min(below + 1, n - 1)
    t = virtual - below
    if method == "linear":
        lo, hi = s[below], s[above]
        d = hi - lo
        if t >= 0.5:
            result = hi - d * (1 - t)
        else:
            result = lo + d * t
    elif method == "lower":
        result = s[below]
    elif method == "higher":
        if t > 0:
            result = s[above]
        else:
            result = s[below]
    elif method == "nearest":
        if t > 0.5 or t == 0.5 and below % 2 == 1:
            result = s[above]
        else:
            result = s[below]
    elif method == "midpoint":
        if t > 0:
            lo, hi = s[below], s[above]
            result = hi - (hi - lo) * 0.5
        else:
            result = s[below]
    else:
        unsupported("np.quantile/np.percentile: method must be 'linear', 'lower', 'higher', "
                    "'nearest' or 'midpoint' here")
    if s.dtype != np.float32 and s.dtype != np.float64:
        return result       # (integers: "lower", "higher" and "nearest" keep the dtype)
    return np.where(np.isnan(s[-1]), np.nan, result)


def quantile_of_vector(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                       keepdims=False):
    # an array q (a vector), NumPy's "linear" method for each (as quantile's for one number):
    # one result per q, ahead of the other axes
    if keepdims or out is not None or method != "linear" or q.ndim != 1:
        unsupported("np.quantile/np.percentile: an array q is supported as a vector, with "
                    "method='linear' (no keepdims, no out); pass a list of numbers otherwise")
    a = np.asarray(a)
    if axis is None:
        s = np.sort(a.reshape(-1))
    else:
        s = np.swapaxes(np.sort(a, axis=axis), axis, 0)
    if s.ndim > 2:
        unsupported("np.quantile/np.percentile: an array q is supported for a vector, or "
                    "along an axis of a matrix")
    n = s.shape[0]
    virtual = (n - 1) * q
    below = np.minimum(np.floor(virtual).astype(np.int64), n - 1)
    above = np.minimum(below + 1, n - 1)
    t = virtual - below
    if s.ndim == 2:
        t = t[:, None]
    lo, hi = s[below], s[above]
    d = hi - lo
    result = np.where(t >= 0.5, hi - d * (1 - t), lo + d * t)
    return np.where(np.isnan(s[-1]), np.nan, result)


def percentile_of_vector(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                         keepdims=False):
    return quantile_of_vector(a, q / 100, axis, out, overwrite_input, method, keepdims)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    return quantile(a, q / 100, axis, out, overwrite_input, method, keepdims)


def _atleast_3d(a):
    # NumPy's: a 0-d array (1, 1, 1), a vector (1, n, 1), a matrix (m, n, 1)
    a = np.asarray(a)
    if a.ndim == 0:
        return a.reshape(1, 1, 1)
    if a.ndim == 1:
        return a[None, :, None]
    if a.ndim == 2:
        return a[:, :, None]
    return a


def dstack(tup):
    # NumPy's: the arrays made at least 3-D, joined along the third axis
    return np.concatenate([_atleast_3d(a) for a in tup], axis=2)


def fix(x):
    # NumPy's: rounded toward zero (np.ceil of the negatives, np.floor of the others: a
    # float's truncation, -0.0 for -0.5); integers and bools as they are, in a new array
    x = np.asarray(x)
    if x.dtype == np.float32 or x.dtype == np.float64:
        return np.trunc(x)
    return x.copy()


def geomspace(start, stop, num=50, endpoint=True):
    # NumPy's for real bounds: 10 ** linspace of the logs of start and stop divided by
    # start's sign (bounds of two signs: NaN, as NumPy's real result is), the ends exactly
    # start and stop, the sign put back; a zero bound is NumPy's ValueError
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = -1.0 if start < 0 else 1.0
    r = 10.0 ** np.linspace(np.log10(start / sign), np.log10(stop / sign), num,
                            endpoint=endpoint)
    if num > 0:
        r[0] = start / sign
        if endpoint and num > 1:
            r[-1] = stop / sign
    return sign * r


def delete(arr, obj, axis=None):
    # NumPy's: the entries along axis (of the flattened array for None) that obj (an int, a
    # list of them or a slice) does not name; an index out of range is NumPy's IndexError
    a = np.asarray(arr)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    a = np.moveaxis(a, axis, 0)
    keep = np.ones(a.shape[0], dtype=np.bool_)
    keep[obj] = False
    return np.moveaxis(a[keep], 0, axis)


def insert(arr, obj, values, axis=None):
    # NumPy's for one position (an int, before which the values go; negative from the end):
    # values cast to arr's dtype, a number or 0-d array broadcast to one slice along axis, a
    # vector inserted as a block into a vector
    a = np.asarray(arr)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    a = np.moveaxis(a, axis, 0)
    n = a.shape[0]
    if obj < -n or obj > n:
        raise IndexError("index is out of bounds for np.insert")
    at = obj + n if obj < 0 else obj
    v = np.asarray(values).astype(a.dtype)
    if v.ndim == 0:
        v = np.broadcast_to(v, a[:1].shape)
    elif a.ndim != 1 or v.ndim != 1:
        unsupported("np.insert: values must be a number, or a vector inserted into a vector")
    return np.moveaxis(np.concatenate((a[:at], v, a[at:]), axis=0), 0, axis)


def modf(x):
    # NumPy's: the fractional and the integral parts, both with x's sign (np.modf(-3.0) is
    # (-0.0, -3.0)); of an infinity, a zero and the infinity; integers as float64
    x = np.asarray(x)
    if x.dtype != np.float32 and x.dtype != np.float64:
        x = x.astype(np.float64)
    whole = np.trunc(x)
    return np.copysign(np.where(np.isinf(x), 0.0, x - whole), x), whole


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    # NumPy's for mode="raise", order="C": the flat C-order index of each coordinate tuple;
    # a coordinate outside its dimension is NumPy's ValueError
    if mode != "raise" or order != "C":
        unsupported("np.ravel_multi_index: only mode='raise' and order='C' are supported")
    flat = np.asarray(multi_index[0]).astype(np.int64) * 0
    for index, extent in zip(multi_index, dims):
        index = np.asarray(index)
        if np.any((index < 0) | (index >= extent)):
            raise ValueError("invalid entry in coordinates array")
        flat = flat * extent + index
    return flat


def trim_zeros(filt, trim="fb"):
    # NumPy's for a vector: the slice from the first to the last nonzero ("f": from the
    # first, "b": to the last); empty where all are zero
    if trim != "fb" and trim != "bf" and trim != "f" and trim != "b":
        unsupported("np.trim_zeros: trim must be 'f', 'b' or 'fb'")
    a = np.asarray(filt)
    nz = np.flatnonzero(a)
    if nz.shape[0] == 0:
        return a[:0]
    start = 0 if trim == "b" else nz[0]
    stop = a.shape[0] if trim == "f" else nz[-1] + 1
    return a[start:stop]


def vander(x, N=None, increasing=False):
    # NumPy's: columns x**0, x**1, ... (decreasing by default) in x's dtype promoted with
    # int64, each power the running product of the one before (multiply.accumulate)
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    if N is None:
        N = x.shape[0]
    if N < 0:
        raise ValueError("negative dimensions are not allowed")
    xv = x * np.ones(1, dtype=np.int64)
    powers = np.multiply.accumulate(np.broadcast_to(xv[:, None], (x.shape[0], max(N - 1, 0))),
                                    axis=1)
    v = np.concatenate((np.ones_like(xv)[:, None], powers), axis=1)[:, :N]
    if not increasing:
        v = v[:, ::-1]
    return v


# --- window functions (NumPy's definitions: M as a float64, points 1 - M, 3 - M, ..., M - 1;
# no points for M < 1, a single 1 for M == 1)

def _cosine_window(M, a, b, c):
    # a + b cos(pi n / (M - 1)) (+ c cos(2 pi n / (M - 1)), blackman's: c a constant, the
    # term left out where it is 0, so hanning's and hamming's sums are NumPy's own)
    M = float(M)
    if M < 1:
        return np.zeros(0)
    if M == 1:
        return np.ones(1)
    n = np.arange(1 - M, M, 2.0)
    if c == 0.0:
        return a + b * np.cos(np.pi * n / (M - 1))
    return a + b * np.cos(np.pi * n / (M - 1)) + c * np.cos(2.0 * np.pi * n / (M - 1))


def hanning(M):
    return _cosine_window(M, 0.5, 0.5, 0.0)


def hamming(M):
    return _cosine_window(M, 0.54, 0.46, 0.0)


def blackman(M):
    return _cosine_window(M, 0.42, 0.5, 0.08)


def bartlett(M):
    M = float(M)
    if M < 1:
        return np.zeros(0)
    if M == 1:
        return np.ones(1)
    n = np.arange(1 - M, M, 2.0)
    return np.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


# --- math's integer functions (Python's, for int64: a result past int64 is an OverflowError,
# where Python's ints would grow) ----------------------------------------------------------------

_INT64_MAX = 9223372036854775807


def factorial(n, /):
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    if n > 20:
        raise OverflowError("factorial(): n! for n > 20 does not fit a 64-bit int")
    result = 1
    for i in range(2, n + 1):
        result = result * i
    return result


def perm(n, k=None, /):
    if k is None:
        return factorial(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer")
    if k < 0:
        raise ValueError("k must be a non-negative integer")
    result = 0 if k > n else 1
    for i in range(n - k + 1 if k <= n else 1, n + 1 if k <= n else 1):
        if result > _INT64_MAX // i:
            raise OverflowError("perm(): the result does not fit a 64-bit int")
        result = result * i
    return result


def comb(n, k, /):
    # (the product (n - k + 1) ... n over 1 ... k, one factor at a time: each partial
    # quotient is itself a binomial coefficient, so every division is exact)
    if n < 0:
        raise ValueError("n must be a non-negative integer")
    if k < 0:
        raise ValueError("k must be a non-negative integer")
    result = 0 if k > n else 1
    k = min(k, n - k)
    for i in range(1, k + 1):
        factor = n - k + i
        if result > _INT64_MAX // factor:
            raise OverflowError("comb(): an intermediate product does not fit a 64-bit int")
        result = result * factor // i
    return result


def gcd(a=0, b=0, /):
    a, b = abs(a), abs(b)
    while b != 0:
        a, b = b, a % b
    return a


def lcm(a=1, b=1, /):
    if a == 0 or b == 0:
        return 0
    return abs(a // gcd(a, b) * b)


SHIMS = {np.cov: cov, np.corrcoef: corrcoef, np.polyval: polyval, np.kron: kron,
         np.meshgrid: meshgrid, np.tri: tri, np.cross: cross,
         np.correlate: correlate, np.select: select, np.linalg.matrix_power: matrix_power,
         np.vdot: vdot, np.add.outer: add_outer, np.subtract.outer: subtract_outer,
         np.multiply.outer: multiply_outer, np.divide.outer: divide_outer,
         np.copysign: copysign, np.trapezoid: trapezoid, np.linalg.multi_dot: multi_dot,
         np.rot90: rot90, np.add.reduce: add_reduce, np.multiply.reduce: multiply_reduce,
         np.maximum.reduce: maximum_reduce, np.minimum.reduce: minimum_reduce,
         np.logaddexp.reduce: logaddexp_reduce, np.add.accumulate: add_accumulate,
         np.multiply.accumulate: multiply_accumulate,
         np.allclose: allclose, np.array_equal: array_equal, np.nansum: nansum, np.nanmean: nanmean,
         np.quantile: quantile, np.percentile: percentile, np.digitize: digitize,
         np.histogram: histogram, np.isin: isin, np.logspace: logspace,
         np.unravel_index: unravel_index, np.gradient: gradient, np.intersect1d: intersect1d,
         np.union1d: union1d, np.setdiff1d: setdiff1d, np.nanmax: nanmax, np.nanmin: nanmin,
         np.nanargmax: nanargmax, np.nanargmin: nanargmin, np.nanprod: nanprod,
         np.nancumsum: nancumsum, np.nancumprod: nancumprod, np.nanvar: nanvar,
         np.nanstd: nanstd, np.nanmedian: nanmedian, np.ediff1d: ediff1d,
         np.append: append, np.linalg.cond: cond, np.nanquantile: nanquantile,
         np.nanpercentile: nanpercentile, np.dstack: dstack,
         np.fix: fix, np.geomspace: geomspace, np.delete: delete, np.insert: insert, np.modf: modf,
         np.ravel_multi_index: ravel_multi_index, np.trim_zeros: trim_zeros,
         math.factorial: factorial, math.perm: perm, math.comb: comb, math.gcd: gcd,
         math.lcm: lcm, np.vander: vander, np.hanning: hanning, np.hamming: hamming,
         np.blackman: blackman, np.bartlett: bartlett}

# Shims whose argument (position, name) may be a list or tuple of numbers, as NumPy's may be
# array_like: mapped over its items, the results stacked (np.percentile(x, [5, 95])).
OVER_ITEMS = {quantile: (1, "q"), percentile: (1, "q"), nanquantile: (1, "q"),
              nanpercentile: (1, "q")}
# ... and the stand-ins for an array of those items (np.quantile(x, np.linspace(0, 1, 5)))
OVER_ARRAY = {quantile: quantile_of_vector, percentile: percentile_of_vector}

# (the file the scripted stand-ins' nodes are first located in, named as scripting names it)
SHIMS_FILE = inspect.getsourcefile(cov) or __file__

__all__ = ["OVER_ARRAY", "OVER_ITEMS", "SHIMS", "SHIMS_FILE", "unsupported"]
