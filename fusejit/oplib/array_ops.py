"""Ops for NumPy's array manipulation beyond views and slices: axis permutations, diagonals,
triangles, integer-array indexing (gather and its scatter-add), the functional forms of row and
slice writes, and two smooth binary maps, with PyTorch's schemas and semantics::

    x.transpose(2, 0, 1)        %p = aten::permute(%x, [2, 0, 1])
    np.diag(a, k) / np.trace    %d = aten::diagonal(%a, %k, 0, 1)
    np.diag(v, k)               %m = aten::diag_embed(%v, %k, 0, 1)
    np.triu(a, k)               %u = aten::triu(%a, %k)
    x[idx], x[rows, cols]       %g = aten::index(%x, [%idx])      (None: a full slice)
    x[idx] = v                  aten::index_put_(%x, [%idx], %v)  (functionalised: index_put)
    out[t] = h                  %o = aten::select_scatter(%out, %h, 0, %t)   (functionalised)
    np.logaddexp(a, b)          %l = aten::logaddexp(%a, %b)
    np.gcd(a, b), np.lcm(a, b)  aten::gcd(%a, %b), aten::lcm(%a, %b)   (integers)
    np.linalg.inv/det/solve     aten::linalg_inv(%a), aten::linalg_det, aten::linalg_solve
    np.linalg.slogdet           %sign, %logabsdet = aten::linalg_slogdet(%a)

``fusejit::cumprod_backward`` is cumprod's gradient without divisions (exact at zeros, as
PyTorch's ``cumprod_backward``; quadratic in the length of the axis).
``fusejit::maximum_accumulate(%x, %dim)`` and ``fusejit::minimum_accumulate`` are
``np.maximum.accumulate`` and ``np.minimum.accumulate`` themselves (PyTorch's ``cummax`` makes
indices too), ``fusejit::running_backward`` their gradient.
``fusejit::cat_offsets(%list, %dim)`` (not PyTorch's: its TorchScript ``cat`` gradient builds
the same list in a loop) gives where each element of a ``cat`` starts.
``fusejit::cbrt(%x)`` is ``np.cbrt`` itself (PyTorch has none), its derivative in
``fusejit/autodiff/array_rules.py``.
``fusejit::lexsort(%keys)`` is ``np.lexsort`` itself, ``fusejit::histogram2d`` ``np.histogram2d``.
``fusejit::flatnonzero(%x)`` is ``np.flatnonzero(x)`` (``np.nonzero`` of a vector).
``fusejit::unique_all(%x)`` is ``np.unique(x)`` with its index, inverse and counts;
``fusejit::unique_inverse(%x)`` with its inverse and counts (no index: an unstable sort).
``fusejit::unique_values(%x)`` is ``np.unique(x)`` (PyTorch's ``_unique2`` has three results).
``fusejit::argsort(%x, %dim, %kind)`` is ``np.argsort`` itself, NumPy's order of ties for its
kind (``aten::argsort``, stable, orders ``np.sort``'s values).
``fusejit::convolve(%a, %v, %mode)`` is ``np.convolve`` itself (a NumPy function PyTorch has no
1-D form of), ``fusejit::convolve_grad`` its gradient for either operand.
``fusejit::interp(%x, %xp, %fp, %left, %right)`` is ``np.interp`` (NumPy's own; the runtime
threads big calls: ``runtime/interpolate.py``), ``fusejit::interp_backward`` its gradient for
all five.
``fusejit::partition(%x, [%k, ...], %dim)`` and ``fusejit::argpartition`` are ``np.partition``
and ``np.argpartition`` themselves (their arrangement off the ``k``-th positions is NumPy's,
which the order ``argpartition`` gives need not reproduce); ``fusejit::partition_backward``
sends each output's gradient to the input element it came from.
``fusejit::sort_values(%x, %dim)`` is ``np.sort`` itself, and ``fusejit::select_sorted(%x,
[%k, ...])`` an array holding at positions ``k`` the values a sort would (``np.partition``):
what ``passes/sorted_values.py`` puts for a sort whose values alone are read.
``index_put`` with ``accumulate=True`` is the gather's gradient (``index_backward``): repeated
indices add up (``np.add.at``). ``diagonal_backward`` puts a diagonal's gradient into zeros.
Their derivatives are in ``fusejit/autodiff/array_rules.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .dtypes import DEFAULT_FLOAT, category, result_type
from .pointwise import inplace
from .render import Emitter, Operand, floating, promote_operands
from .table import as_tensor, define, register, wrap_dim


def _permute(self: np.ndarray, dims: list[int]) -> np.ndarray:
    wrapped = [wrap_dim(d, self.ndim) for d in dims]
    if len(wrapped) != self.ndim:
        raise RuntimeError(f"permute(): the number of dims ({len(dims)}) does not match the "
                           f"tensor's ({self.ndim})")
    if sorted(wrapped) != list(range(self.ndim)):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return np.transpose(self, wrapped) if self.ndim else self


def _diagonal_dims(rank: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = wrap_dim(dim1, rank), wrap_dim(dim2, rank)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal(self: np.ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    if self.ndim < 2:
        raise RuntimeError(f"diagonal(): expected a tensor of at least 2 dimensions, got "
                           f"{self.ndim}")
    d1, d2 = _diagonal_dims(self.ndim, dim1, dim2)
    return np.diagonal(self, offset, d1, d2)


def _on_diagonal(n1: int, n2: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of diagonal ``offset`` of an ``n1`` x ``n2`` matrix."""
    length = max(min(n1 + min(offset, 0), n2 - max(offset, 0)), 0)
    steps = np.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


def _diagonal_backward(grad: np.ndarray, input_sizes: list[int], offset: int, dim1: int,
                       dim2: int) -> np.ndarray:
    out = np.zeros(tuple(input_sizes), dtype=grad.dtype)
    d1, d2 = _diagonal_dims(out.ndim, dim1, dim2)
    view = np.moveaxis(out, (d1, d2), (-2, -1))
    rows, cols = _on_diagonal(view.shape[-2], view.shape[-1], offset)
    view[..., rows, cols] = grad
    return out


def _diag_embed(self: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    if self.ndim < 1:
        raise RuntimeError("diag_embed(): expected a tensor of at least 1 dimension")
    n = self.shape[-1] + abs(offset)
    out = np.zeros(self.shape[:-1] + (n, n), dtype=self.dtype)
    rows, cols = _on_diagonal(n, n, offset)
    out[..., rows, cols] = self
    d1, d2 = _diagonal_dims(out.ndim, dim1, dim2)
    return np.moveaxis(out, (-2, -1), (d1, d2))


def _triangle(fn):
    def body(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
        if self.ndim < 2:
            raise RuntimeError(f"{fn.__name__}: input tensor must have at least 2 dimensions")
        return as_tensor(fn(self, diagonal))
    return body


def _floating(*operands) -> np.dtype:
    dtype = result_type(*operands)
    return DEFAULT_FLOAT if category(dtype) < 2 else dtype


def _logaddexp(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = _floating(self, other)
    return as_tensor(np.logaddexp(self.astype(dtype, copy=False),
                                  other.astype(dtype, copy=False)))


def _integer_ufunc(ufunc: np.ufunc):
    """``np.gcd``/``np.lcm`` of integer tensors (PyTorch's ``gcd``, ``lcm``): NumPy's own, in
    the operands' promoted dtype."""
    def body(self: np.ndarray, other: np.ndarray) -> np.ndarray:
        dtype = result_type(self, other)
        if np.dtype(dtype).kind not in "iu":
            raise RuntimeError(f"{ufunc.__name__} is only defined for integer tensors, got "
                               f"{np.dtype(dtype).name}")
        return as_tensor(ufunc(self.astype(dtype, copy=False), other.astype(dtype, copy=False)))
    return body


def _cbrt(self: np.ndarray) -> np.ndarray:
    """``np.cbrt``, NumPy's own (exact at cubes: cbrt(-27.0) is -3.0); integers in float64."""
    return as_tensor(np.cbrt(self if self.dtype.kind == "f" else self.astype(np.float64)))


def _signbit(self: np.ndarray) -> np.ndarray:
    """``np.signbit``: the sign bit, of -0.0 and of a NaN too (no comparison sees those);
    an integer's sign, never a bool's."""
    return as_tensor(np.signbit(self))


def _hypot(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dtype = _floating(self, other)
    return as_tensor(np.hypot(self.astype(dtype, copy=False), other.astype(dtype, copy=False)))


def _key(indices: list) -> tuple:
    """The NumPy index of a ``Tensor?[]`` (None: the whole dimension), after PyTorch's checks."""
    for i in indices:
        if i is not None and i.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return tuple(slice(None) if i is None else i for i in indices)


# Gathers of at least this many elements from a vector go through np.take (10^5: 124 -> 99
# us; at 1000 elements NumPy's indexing is sooner, 0.98 against 1.68 us).
_TAKE_FROM = 1 << 14
# ... and gathers by indices of another integer dtype than intp, at any size: NumPy's indexing
# casts them element by element, ``take`` at once (a bool table of 8 by 10^4 uint8 codes,
# 21.6 -> 8.0 us; 10 int32 indices 0.58 -> 0.36 us). (Both cast uint64 to intp alike: 2^64 - 1
# reads the last element.)
_CAST_INDICES = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.uint8,
                                                np.uint16, np.uint32, np.uint64)) \
    - {np.dtype(np.intp)}


def _index(self: np.ndarray, indices: list) -> np.ndarray:
    if len(indices) == 1:
        only = indices[0]
        if type(only) is np.ndarray and only.ndim and only.dtype.kind in "iu" and self.ndim:
            # (x[idx], the common gather: a new array, ~1 us sooner; rows, or many elements,
            # by np.take, which copies each row whole: W[tokens] of 10^5 rows of 8 float64,
            # 1574 -> 397 us; the same values and IndexError)
            if only.dtype in _CAST_INDICES or only.dtype.kind == "i" and (
                    self.ndim > 1 or only.size > _TAKE_FROM):
                return self.take(only, axis=0)
            return self[only]
    key = _key(indices)
    if len(key) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got "
                         f"{len(key)})")
    picked = self[key]      # (a new array where any index is a tensor: no second copy)
    return as_tensor(np.asarray(picked) if any(i is not None for i in indices)
                     else np.array(picked))


def _index_put(self: np.ndarray, indices: list, values: np.ndarray,
               accumulate: bool = False) -> np.ndarray:
    return _index_put_(self.copy(), indices, values, accumulate)


def _index_put_(self: np.ndarray, indices: list, values: np.ndarray,
                accumulate: bool = False) -> np.ndarray:
    """``x[idx] = v`` (``x[idx] += v`` with ``accumulate``) through ``self``, a view too."""
    key = _key(indices)
    if accumulate:
        np.add.at(self, key, values.astype(self.dtype, copy=False))
    else:
        self[key] = values
    return self


# The ufuncs whose ``.at`` method ``fusejit::ufunc_at_`` runs (``np.add.at`` is
# ``index_put_`` with accumulate).
UFUNCS_AT = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
             "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin}


def _ufunc_at_(self: np.ndarray, indices: list, values: np.ndarray, ufunc: str) -> np.ndarray:
    """``np.<ufunc>.at(self, idx, v)`` through ``self``, a view too: every repeat of an index
    applied in turn; ``v`` cast to ``self``'s dtype as NumPy's unsafe cast does, unless it
    is of a dtype ``self``'s casts to safely (float values into an int array: the frontend
    gives them where NumPy computes in their dtype, and each result is cast back)."""
    if ufunc not in UFUNCS_AT:
        raise RuntimeError(f"fusejit::ufunc_at_: unknown ufunc {ufunc!r}")
    if values.dtype != self.dtype and not np.can_cast(self.dtype, values.dtype):
        values = values.astype(self.dtype)
    UFUNCS_AT[ufunc].at(self, _key(indices), values)
    return self


def _select_scatter(self: np.ndarray, src: np.ndarray, dim: int, index: int) -> np.ndarray:
    out = self.copy()
    dim = wrap_dim(dim, self.ndim)
    view = out[(slice(None),) * dim + (index, Ellipsis)]
    if view.shape != src.shape:
        raise RuntimeError(f"select_scatter: expected src to have a size equal to the slice of "
                           f"self. src size = {list(src.shape)}, slice size = {list(view.shape)}")
    out[(slice(None),) * dim + (index, Ellipsis)] = src
    return out


def _slice_scatter(self: np.ndarray, src: np.ndarray, dim: int = 0, start: int | None = None,
                   end: int | None = None, step: int = 1) -> np.ndarray:
    out = self.copy()
    dim = wrap_dim(dim, self.ndim)
    key = (slice(None),) * dim + (slice(start, end, step), Ellipsis)
    if out[key].shape != src.shape:
        raise RuntimeError(f"slice_scatter: expected src to have a size equal to the slice of "
                           f"self. src size = {list(src.shape)}, slice size = "
                           f"{list(out[key].shape)}")
    out[key] = src
    return out


def _constant_pad_nd(self: np.ndarray, pad: list[int], value: float = 0) -> np.ndarray:
    """Pads from the last dimension back (before, after); a negative pad crops."""
    if len(pad) % 2 or len(pad) // 2 > self.ndim:
        raise RuntimeError(f"Padding length must be divisible by 2 and at most twice the "
                           f"number of dimensions ({self.ndim}), got {len(pad)}")
    widths = [(0, 0)] * self.ndim
    for k in range(len(pad) // 2):
        widths[self.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    crop = tuple(slice(max(-lo, 0), self.shape[d] - max(-hi, 0))
                 for d, (lo, hi) in enumerate(widths))
    grown = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    return np.pad(self[crop], grown, constant_values=value)


def _square(what: str, a: np.ndarray) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{what}: A must be batches of square matrices, but they are "
                           f"{' by '.join(map(str, a.shape[-2:]))} matrices")


def _linalg(what: str, fn):
    def body(a: np.ndarray) -> np.ndarray:
        _square(what, a)
        return as_tensor(fn(a.astype(np.result_type(a.dtype, np.float32), copy=False)))
    return body


def _linalg_slogdet(a: np.ndarray) -> tuple:
    """``np.linalg.slogdet``: the sign and ``log|det(a)|``, NumPy's own (from the LU factors:
    finite where the determinant itself over- or underflows)."""
    _square("linalg.slogdet", a)
    sign, logabsdet = np.linalg.slogdet(a.astype(np.result_type(a.dtype, np.float32),
                                                 copy=False))
    return as_tensor(np.asarray(sign)), as_tensor(np.asarray(logabsdet))


def _linalg_solve(a: np.ndarray, b: np.ndarray, left: bool = True) -> np.ndarray:
    _square("linalg.solve", a)
    if not left:
        raise RuntimeError("linalg.solve: left=False is not supported")
    dtype = result_type(a, b)
    return as_tensor(np.linalg.solve(a.astype(dtype, copy=False), b.astype(dtype, copy=False)))


def _argsort(self: np.ndarray, dim: int = -1, descending: bool = False) -> np.ndarray:
    if self.ndim == 0:
        return np.zeros((), np.int64)
    axis = wrap_dim(dim, self.ndim)
    # (stable: equal elements keep their order, as NumPy's kind="stable" and PyTorch's stable)
    order = np.argsort(-self if descending else self, axis=axis, kind="stable")
    return order.astype(np.int64)


# np.argsort's kinds, by the int fusejit::argsort takes (0: its default)
SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _numpy_argsort(self: np.ndarray, dim: int, kind: int = 0) -> np.ndarray:
    """``np.argsort(self, axis=dim, kind=SORT_KINDS[kind])``: NumPy's own order of ties for
    each kind (its default sort is not stable: it orders tied keys otherwise than ``stable``)."""
    if self.ndim == 0:
        return np.zeros((), np.int64)
    return self.argsort(axis=wrap_dim(dim, self.ndim), kind=SORT_KINDS[kind]).astype(
        np.int64, copy=False)


# np.convolve's modes, by the int fusejit::convolve takes
CONVOLVE_MODES = ("full", "valid", "same")


def _convolve(a: np.ndarray, v: np.ndarray, mode: int) -> np.ndarray:
    """``np.convolve(a, v, CONVOLVE_MODES[mode])`` of two vectors, NumPy's own (its errors for
    an empty one)."""
    if a.ndim != 1 or v.ndim != 1:
        raise RuntimeError(f"np.convolve takes two 1-D arrays, got {a.ndim}-D and {v.ndim}-D")
    return as_tensor(np.convolve(a, v, CONVOLVE_MODES[mode]))


def _convolve_grad(grad: np.ndarray, other: np.ndarray, length: int, mode: int) -> np.ndarray:
    """The gradient of ``np.convolve(x, other, mode)`` with respect to ``x`` (``length``
    elements; convolution commutes, so either operand): the output's gradient placed where the
    mode's output lies in the full convolution, correlated with ``other`` (``'valid'``)."""
    short = min(length, other.shape[0])
    full = np.zeros(length + other.shape[0] - 1, dtype=grad.dtype)
    start = 0 if mode == 0 else short - 1 if mode == 1 else (short - 1) // 2
    full[start:start + grad.shape[0]] = grad
    return as_tensor(np.correlate(full, other, "valid"))


def _interp(x: np.ndarray, xp: np.ndarray, fp: np.ndarray, left: np.ndarray | None = None,
            right: np.ndarray | None = None) -> np.ndarray:
    """``np.interp(x, xp, fp, left, right)`` (float64; ``xp`` and ``fp`` vectors), NumPy's own
    (the runtime splits big calls among threads: ``runtime/interpolate.threaded_body``)."""
    if xp.ndim != 1 or fp.ndim != 1:
        raise RuntimeError(f"np.interp: xp and fp must be 1-D, got {xp.ndim}-D and {fp.ndim}-D")
    return as_tensor(np.interp(x, xp, fp, left, right))


def _interp_backward(grad: np.ndarray, x: np.ndarray, xp: np.ndarray, fp: np.ndarray,
                     left: np.ndarray | None = None, right: np.ndarray | None = None) -> tuple:
    """The gradients of ``np.interp(x, xp, fp, left, right)`` for its five operands (each in its
    own dtype and shape; zeros for a missing ``left`` / ``right``). Inside ``[xp[0], xp[-1])``
    the value is ``fp[j] + (fp[j + 1] - fp[j]) * (x - xp[j]) / (xp[j + 1] - xp[j])``, with
    ``xp[j] <= x`` the last such point; at ``xp[-1]`` it is ``fp[-1]``; outside, ``left`` /
    ``right`` or ``fp``'s ends; NaN points have none."""
    g = np.asarray(grad, np.float64).reshape(-1)
    v = np.asarray(x, np.float64).reshape(-1)
    xs, fs = xp.astype(np.float64), fp.astype(np.float64)
    n = xs.shape[0]
    dx, dxp, dfp = np.zeros_like(v), np.zeros(n), np.zeros(n)
    dleft = dright = 0.0
    if n:
        j = np.searchsorted(xs, v, side="right") - 1
        below, above = v < xs[0], v > xs[-1]
        at_end = (j == n - 1) & ~above
        inside = (j >= 0) & (j < n - 1) & ~np.isnan(v)
        k = np.clip(j, 0, max(n - 2, 0))[inside]
        gi, vi = g[inside], v[inside]
        if n > 1 and k.size:
            h = xs[k + 1] - xs[k]
            t = (vi - xs[k]) / h
            slope = (fs[k + 1] - fs[k]) / h
            dx[inside] = gi * slope
            np.add.at(dfp, k, gi * (1.0 - t))
            np.add.at(dfp, k + 1, gi * t)
            np.add.at(dxp, k, gi * slope * (t - 1.0))
            np.add.at(dxp, k + 1, -gi * slope * t)
        dfp[n - 1] += g[at_end].sum()
        if left is None:
            dfp[0] += g[below].sum()
        else:
            dleft = g[below].sum()
        if right is None:
            dfp[n - 1] += g[above].sum()
        else:
            dright = g[above].sum()

    def shaped(d: np.ndarray | float, like: np.ndarray | None) -> np.ndarray:
        like = np.asarray(0.0 if like is None else like)
        dtype = like.dtype if like.dtype.kind == "f" else np.float64
        return as_tensor(np.asarray(d, dtype).reshape(like.shape))

    return (shaped(dx, x), shaped(dxp, xp), shaped(dfp, fp), shaped(dleft, left),
            shaped(dright, right))


def _partition_axis(what: str, self: np.ndarray, kth: list[int], dim: int) -> int:
    if self.ndim == 0:
        raise RuntimeError(f"{what}: a 0-d array has no axis to partition")
    axis = wrap_dim(dim, self.ndim)
    n = self.shape[axis]
    for k in kth:
        if not -n <= k < n:
            raise RuntimeError(f"{what}: kth(={k}) out of bounds ({n})")
    return axis


def _partition(self: np.ndarray, kth: list[int], dim: int) -> np.ndarray:
    """``np.partition(self, kth, axis=dim)``, NumPy's own."""
    axis = _partition_axis("np.partition", self, kth, dim)
    return as_tensor(np.partition(self, kth, axis=axis))


def _argpartition(self: np.ndarray, kth: list[int], dim: int) -> np.ndarray:
    """``np.argpartition(self, kth, axis=dim)``, NumPy's own (int64)."""
    axis = _partition_axis("np.argpartition", self, kth, dim)
    return as_tensor(self.argpartition(kth, axis=axis).astype(np.int64, copy=False))


def _partition_backward(grad: np.ndarray, self: np.ndarray, kth: list[int],
                        dim: int) -> np.ndarray:
    """The gradient of ``np.partition(self, kth, axis=dim)``: each output position's gradient
    added where its value came from. The partition is a permutation of each slice; the output
    element of rank ``r`` in its slice (stable ranks: equal values in order, NaNs last) is the
    input element of rank ``r``, so that one is its source (of equal values, one each)."""
    axis = wrap_dim(dim, self.ndim)
    out = np.partition(self, kth, axis=axis)
    sources = np.argsort(self, axis=axis, kind="stable")
    ranks = np.argsort(np.argsort(out, axis=axis, kind="stable"), axis=axis, kind="stable")
    found = np.zeros(self.shape, dtype=grad.dtype)
    np.put_along_axis(found, np.take_along_axis(sources, ranks, axis), grad, axis)
    return as_tensor(found)


def _sort_values(self: np.ndarray, dim: int) -> np.ndarray:
    if self.ndim == 0:
        return self.copy()
    out = self.copy()     # (np.sort's own steps, less its wrappers' ~1 us)
    out.sort(axis=wrap_dim(dim, self.ndim))
    return as_tensor(out)


# The length under which ``_select_sorted`` partitions at every position in one call.
_SELECT_AT_ONCE = 10_000


def _select_sorted(self: np.ndarray, positions: list[int]) -> np.ndarray:
    """A vector holding at each of ``positions`` the value ``np.sort(self)`` holds there;
    ``np.sort`` itself where one is out of range (the caller's read then fails as on it)."""
    n = self.shape[0] if self.ndim == 1 else 0
    if self.ndim != 1 or not all(-n <= k < n for k in positions):
        return _sort_values(self, 0)
    kth = sorted({k % n for k in positions})
    if n < _SELECT_AT_ONCE:
        # (a short vector: NumPy's partition at all the positions at once. 8000 float64 at
        # the median's three: 8.8 us, one at a time 16.4; 16000: 93.7 against 28.1)
        if len(kth) > 1 and kth[-1] == n - 1:
            # (the last, which the median reads for a NaN: the largest after the others'
            # partition, np.max's NaN as a sort's NaN last; a third kth cost ~40% more)
            out = np.partition(self, kth[:-1])
            out[-1] = out[kth[-2]:].max()
            return as_tensor(out)
        return as_tensor(np.partition(self, kth))
    if self.dtype.itemsize == 1:
        # (8-bit values: counted, each position's value found in the running counts. NumPy's
        # partition of 2^20 uint8 took 7.1 ms at the median's positions, as slow at one)
        codes = self.view(np.uint8)
        if self.dtype == np.int8:
            codes = codes ^ np.uint8(0x80)      # (signed order: -128 first)
        ends = np.cumsum(np.bincount(codes, minlength=256))
        found = np.searchsorted(ends, np.array(kth), side="right").astype(np.uint8)
        out = np.zeros_like(self)
        out[kth] = (found ^ np.uint8(0x80) if self.dtype == np.int8 else found).view(
            self.dtype)
        return as_tensor(out)
    # One position at a time, each partition over what lies past the one before (the values
    # there are the largest): NumPy's partition at one position runs its vectorised
    # selection, at several a slower one. 2^18 float64 at 4 positions (np.percentile(x,
    # [1, 99])'s): 0.64 ms, 2.86 at once; NumPy's np.percentile itself takes the latter.
    out = self.copy()
    start = 0
    for k in kth:
        out[start:].partition(k - start)
        start = k + 1
    return as_tensor(out)


REDUCEAT_UFUNCS = ("add", "multiply", "maximum", "minimum")


def _reduceat(self: np.ndarray, indices: np.ndarray, dim: int, ufunc: str) -> np.ndarray:
    """``np.<ufunc>.reduceat(self, indices, axis=dim)``, NumPy's own (each segment from one
    index to the next reduced in order; a segment whose next index is not past it is the
    element at its index)."""
    if ufunc not in REDUCEAT_UFUNCS:
        raise RuntimeError(f"reduceat: ufunc must be one of {', '.join(REDUCEAT_UFUNCS)}, "
                           f"got {ufunc!r}")
    return as_tensor(getattr(np, ufunc).reduceat(self, indices, axis=dim))


def _searchsorted(sorted_sequence: np.ndarray, self: np.ndarray, out_int32: bool = False,
                  right: bool = False, side: str | None = None,
                  sorter: np.ndarray | None = None) -> np.ndarray:
    """``np.searchsorted`` of a vector of boundaries (PyTorch's batched boundaries and
    ``sorter`` are not supported)."""
    if sorter is not None:
        raise RuntimeError("searchsorted: sorter is not supported")
    if side is not None:
        if side not in ("left", "right") or right and side == "left":
            raise RuntimeError("searchsorted: side must be 'left' or 'right', and agree with "
                               "right=True")
        right = side == "right"
    if sorted_sequence.ndim != 1:
        raise RuntimeError("searchsorted: only 1-D boundaries are supported, got "
                           f"{sorted_sequence.ndim}-D")
    found = sorted_sequence.searchsorted(self, side="right" if right else "left")
    return as_tensor(np.asarray(found, np.int32 if out_int32 else np.int64))


def _bincount(self: np.ndarray, weights: np.ndarray | None = None,
              minlength: int = 0) -> np.ndarray:
    """``np.bincount``: its counts (int64), or sums of ``weights`` (float64), and its errors
    (a negative value, an array not 1-D)."""
    return as_tensor(np.bincount(self, weights, minlength))


def _nonzero(self: np.ndarray) -> np.ndarray:
    """The positions of the nonzero elements, one row each (PyTorch's nonzero: NumPy's
    np.argwhere), in C order."""
    return as_tensor(np.argwhere(self).astype(np.int64, copy=False))


def _unique_all(self: np.ndarray) -> tuple:
    """``np.unique(x, return_index=True, return_inverse=True, return_counts=True)``, NumPy's
    own (its inverse's shape is NumPy's too), the positions int64."""
    values, index, inverse, counts = np.unique(self, return_index=True, return_inverse=True,
                                               return_counts=True)
    return (as_tensor(values), *(as_tensor(a.astype(np.int64, copy=False))
                                 for a in (index, inverse, counts)))


def _unique_along(self: np.ndarray, dim: int) -> tuple:
    """``np.unique(x, axis=dim, return_index=True, return_inverse=True, return_counts=True)``,
    NumPy's own: the distinct slices along ``dim`` (rows of a matrix, in lexicographic order)
    and the int64 positions, inverse (one per slice) and counts."""
    values, index, inverse, counts = np.unique(self, axis=dim, return_index=True,
                                               return_inverse=True, return_counts=True)
    return (as_tensor(values), *(as_tensor(a.reshape(-1).astype(np.int64, copy=False))
                                 for a in (index, inverse, counts)))


def _unique_inverse(self: np.ndarray) -> tuple:
    """``np.unique(x, return_inverse=True, return_counts=True)``, NumPy's own: without the
    first positions NumPy's argsort need not be stable (its quicksort, not its mergesort)."""
    values, inverse, counts = np.unique(self, return_inverse=True, return_counts=True)
    return (as_tensor(values), *(as_tensor(a.astype(np.int64, copy=False))
                                 for a in (inverse, counts)))


def _unique_counts(self: np.ndarray) -> tuple:
    """``np.unique(x, return_counts=True)``, NumPy's own: without the index and inverse
    ``_unique_all`` makes, NumPy sorts the values in place of an argsort of them (2 million
    uint64s: 117 ms for all four, about half for these two)."""
    values, counts = np.unique(self, return_counts=True)
    return as_tensor(values), as_tensor(counts.astype(np.int64, copy=False))


def _histogram2d(x: np.ndarray, y: np.ndarray, bins: list[int]) -> tuple:
    """``np.histogram2d(x, y, bins)``, NumPy's own: the counts (float64) and both edges."""
    counts, xedges, yedges = np.histogram2d(x, y, bins=list(bins))
    return as_tensor(counts), as_tensor(xedges), as_tensor(yedges)


def _lexsort(keys: list) -> np.ndarray:
    """``np.lexsort(keys)``: NumPy's own order (the last key primary; stable), int64."""
    return as_tensor(np.lexsort(tuple(keys)).astype(np.int64, copy=False))


def _flatnonzero(self: np.ndarray) -> np.ndarray:
    """``np.flatnonzero``: the positions of the nonzero elements of the flattened array
    (``np.nonzero`` of a vector: its one array, contiguous)."""
    found = self.ravel().nonzero()[0]       # (np.flatnonzero, without its Python)
    return found if found.dtype == np.int64 else found.astype(np.int64)


def _unique_values(self: np.ndarray) -> np.ndarray:
    """``np.unique(x)``: the sorted distinct values of the flattened array (NaNs as one)."""
    return as_tensor(np.unique(self))


def _cumprod(self: np.ndarray, dim: int, dtype: int | None = None) -> np.ndarray:
    from .table import dtype_of_code

    if self.ndim == 0:
        return self.copy() if dtype is None else self.astype(dtype_of_code(dtype))
    out_dtype = dtype_of_code(dtype) if dtype is not None else (
        self.dtype if self.dtype.kind in "fc" else np.dtype(np.int64))
    return as_tensor(np.cumprod(self, axis=wrap_dim(dim, self.ndim), dtype=out_dtype))


def _running(ufunc: np.ufunc):
    def body(self: np.ndarray, dim: int) -> np.ndarray:
        if self.ndim == 0:
            raise RuntimeError(f"np.{ufunc.__name__}.accumulate: cannot accumulate on a scalar")
        return as_tensor(ufunc.accumulate(self, axis=wrap_dim(dim, self.ndim)))
    return body


def _running_backward(grad: np.ndarray, self: np.ndarray, result: np.ndarray,
                      dim: int) -> np.ndarray:
    """Each running extreme's gradient to the element it is: the last one equal to it so far
    (NumPy's maximum and minimum return the second of two equal operands), or the NaN that
    made it NaN."""
    axis = wrap_dim(dim, self.ndim)
    x, r, g = (np.moveaxis(a, axis, -1) for a in (self, result, grad))
    n = x.shape[-1]
    taken = (x == r) | ((x != x) & (r != r))
    source = np.maximum.accumulate(np.where(taken, np.arange(n), 0), axis=-1)
    out = np.zeros(x.shape, dtype=np.result_type(x.dtype, g.dtype))
    lines = out.reshape(-1, n)
    np.add.at(lines, (np.arange(lines.shape[0])[:, None], source.reshape(-1, n)),
              np.broadcast_to(g, x.shape).reshape(-1, n))
    return np.moveaxis(out, -1, axis).astype(self.dtype, copy=False)


def _cumprod_backward(grad: np.ndarray, self: np.ndarray, dim: int) -> np.ndarray:
    """d(cumprod)_k / dx_i is the cumulative product to k with x_i left out (zeros included:
    no division), so dx_i = sum over k >= i of grad_k times that product."""
    if self.ndim == 0:
        return grad.astype(self.dtype)
    axis = wrap_dim(dim, self.ndim)
    x, g = np.moveaxis(self, axis, -1), np.moveaxis(grad, axis, -1)
    out = np.empty(x.shape, dtype=np.result_type(x.dtype, g.dtype))
    for i in range(x.shape[-1]):
        left_out = x.copy()
        left_out[..., i] = 1
        products = np.cumprod(left_out, axis=-1)[..., i:]
        out[..., i] = np.sum(g[..., i:] * products, axis=-1)
    return np.moveaxis(out, -1, axis).astype(self.dtype, copy=False)


PAD_MODES = ("edge", "wrap", "reflect", "symmetric")


def _pad_widths(self: np.ndarray, pad: list[int], what: str) -> list[tuple[int, int]]:
    if len(pad) != 2 * self.ndim or any(w < 0 for w in pad):
        raise RuntimeError(f"{what}: {len(pad)} pad widths for an array of rank {self.ndim}, "
                           f"or a negative one")
    return [(pad[2 * d], pad[2 * d + 1]) for d in range(self.ndim)]


def _pad(self: np.ndarray, pad: list[int], mode: str) -> np.ndarray:
    """``np.pad(self, ((pad[0], pad[1]), (pad[2], pad[3]), ...), mode=mode)`` for the modes
    that copy the array's own elements (``PAD_MODES``). A fresh array, the middle copied in
    once and each padded dimension's ends filled from it by slices, one dimension after the
    other as np.pad does (the corners from the ends of the dimensions before); ``np.pad``
    itself where an end is wider than what it mirrors or wraps (it repeats the pattern). On
    512 x 512 float64 with ``mode="edge"``: ~2.9 ms as the two gathers it was, NumPy 80 us."""
    if mode not in PAD_MODES:
        raise RuntimeError(f"pad: mode must be one of {', '.join(PAD_MODES)}, got {mode!r}")
    widths = _pad_widths(self, pad, "pad")
    for d, (lo, hi) in enumerate(widths):
        if (lo or hi) and not self.shape[d]:
            raise ValueError(f"can't extend empty axis {d} using modes other than "
                             f"'constant' or 'empty'")
    skip = 1 if mode == "reflect" else 0    # (reflect leaves the edge out: n - 1 to mirror)
    if any(max(lo, hi) > n - skip for n, (lo, hi) in zip(self.shape, widths)):
        return as_tensor(np.pad(self, widths, mode=mode))
    out = np.empty(tuple(n + lo + hi for n, (lo, hi) in zip(self.shape, widths)), self.dtype)
    out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(self.shape, widths))] = self
    for d, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        n = self.shape[d]

        def along(start: int, stop: int, flip: bool = False, d: int = d) -> tuple:
            return (slice(None),) * d + (slice(start, stop, None) if not flip else
                                         slice(stop - 1, start - 1 if start else None, -1),)

        first, last = lo, lo + n        # (the array's own elements along d: [first, last))
        if lo:
            out[along(0, lo)] = out[along(first, first + 1) if mode == "edge" else
                                    along(last - lo, last) if mode == "wrap" else
                                    along(first + skip, first + skip + lo, flip=True)]
        if hi:
            out[along(last, last + hi)] = out[along(last - 1, last) if mode == "edge" else
                                              along(first, first + hi) if mode == "wrap" else
                                              along(last - skip - hi, last - skip, flip=True)]
    return as_tensor(out)


def _pad_backward(grad: np.ndarray, self: np.ndarray, pad: list[int],
                  mode: str) -> np.ndarray:
    """The gradient of ``_pad``: each padded place's gradient added into the element it
    copies (``np.add.at``), dimension by dimension from the last padded back."""
    widths = _pad_widths(self, pad, "pad_backward")
    out = grad
    for d in reversed(range(self.ndim)):
        lo, hi = widths[d]
        if not (lo or hi):
            continue
        n = self.shape[d]
        positions = np.arange(-lo, n + hi)
        if mode == "edge":
            positions = np.clip(positions, 0, n - 1)
        elif mode == "wrap":
            positions = positions % n
        else:
            period = 2 * n if mode == "symmetric" else max(2 * n - 2, 1)
            j = positions % period
            positions = np.where(j < n, j, period - j - (1 if mode == "symmetric" else 0))
        summed = np.zeros(out.shape[:d] + (n,) + out.shape[d + 1:], dtype=out.dtype)
        np.add.at(summed, (slice(None),) * d + (positions,), out)
        out = summed
    return as_tensor(out.astype(np.result_type(grad.dtype, self.dtype), copy=False))


def _wrap_pad(self: np.ndarray, pad: list[int]) -> np.ndarray:
    """``np.pad(self, ((pad[0], pad[1]), (pad[2], pad[3]), ...), mode="wrap")``
    (``passes/rolls_as_views.py``: rolls as windows of it; ``_pad``), but zeros along an
    empty dimension (no window reads them) where np.pad raises. A fresh array always."""
    widths = _pad_widths(self, pad, "wrap_pad")
    if 0 in self.shape:
        return as_tensor(np.zeros(tuple(n + lo + hi for n, (lo, hi) in zip(self.shape, widths)),
                                  self.dtype))
    return _pad(self, pad, "wrap") if any(pad) else as_tensor(self.copy())


def _kept_shape(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``self``, the value a loop's in-place updates of ``other`` left, where it kept
    ``other``'s shape (``passes/carried_arrays.py``); else the in-place op's error (an update
    whose operand broadcast the array to a larger shape)."""
    if self.shape != other.shape:
        raise RuntimeError(f"output with shape {list(other.shape)} doesn't match the "
                           f"broadcast shape {list(self.shape)}")
    return self


def _cat_offsets(tensors: list, dim: int) -> list[int]:
    """Where each of ``tensors`` starts in their ``cat`` along ``dim``, and where the last
    ends (the forward saves it for the gradient of a ``cat`` of an appended list)."""
    offsets = [0]
    for t in tensors:
        offsets.append(offsets[-1] + int(t.shape[wrap_dim(dim, t.ndim)]))
    return offsets


register("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", _permute)
register("aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
         _diagonal)
register("aten::diagonal_backward(Tensor grad_output, int[] input_sizes, int offset, int dim1, "
         "int dim2) -> Tensor", _diagonal_backward)
register("aten::diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
         _diag_embed)
register("aten::triu(Tensor self, int diagonal=0) -> Tensor", _triangle(np.triu))
register("aten::tril(Tensor self, int diagonal=0) -> Tensor", _triangle(np.tril))


def _render_logaddexp(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    """NumPy's ``npy_logaddexp``: ``x + log(2)`` where the two are equal (infinities of one
    sign), else the larger plus ``log1p(exp(-|x - y|))``, and ``x - y`` where that is NaN;
    exp and log1p in their vectorisable forms (one of each per element)."""
    x, y = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    d = f"({x} - {y})"
    below = f"(-abs{d})"
    exp = cx.math("aten::exp", f"math.exp{below}", below, dtype)
    log1p = cx.math("aten::log1p", f"math.log1p({exp})", exp, dtype)
    larger = f"({x} if {d} > 0 else {y})"
    return f"(({x} + {cx.literal(math.log(2.0), dtype)}) if {x} == {y} else " \
           f"({larger} + {log1p}) if {d} == {d} else {d})"


_LOGADDEXP = "aten::logaddexp(Tensor self, Tensor other) -> Tensor"
register(_LOGADDEXP, _logaddexp)
define("aten::logaddexp", dtype=floating(0, 2), render=_render_logaddexp, extends=(_LOGADDEXP,))


def _render_hypot(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    """sqrt(x**2 + y**2) without overflow: the vectorisable form (``vecmath.hypot_f32`` and
    ``hypot_f64``) where the target has one, else C's hypot."""
    x, y = cx.cast(ops[0], dtype), cx.cast(ops[1], dtype)
    fast = cx.vectorised(f"hypot_{'f32' if dtype == np.float32 else 'f64'}")
    return f"{fast}({x}, {y})" if fast is not None else f"math.hypot({x}, {y})"


_HYPOT = "aten::hypot(Tensor self, Tensor other) -> Tensor"
register(_HYPOT, _hypot)
define("aten::hypot", dtype=floating(0, 2), render=_render_hypot, extends=(_HYPOT,))


def _cbrt_dtype(ops: list[Operand]) -> np.dtype:
    """A float operand's dtype; float64 for integers and bools (NumPy's, as ``_cbrt``)."""
    dtype = promote_operands(ops[:1])
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _render_cbrt(cx: Emitter, node, ops: list[Operand], dtype: np.dtype) -> str:
    """NumPy's np.cbrt (of a float array: the frontend casts integers to float64, as NumPy):
    ``vecmath.cbrt_f32``/``cbrt_f64``, correctly rounded in every case measured (vectorised);
    where the target does not vectorise, the same form called per element (``helpers``), or
    libdevice's on CUDA (``cuda_helpers``)."""
    x = cx.cast(ops[0], dtype)
    kind = "f32" if dtype == np.float32 else "f64"
    fast = cx.vectorised(f"cbrt_{kind}")
    return f"{fast}({x})" if fast is not None else f"h.cbrt_{kind}({x})"


# (runtime/direct.py calls np.cbrt where the array is already float)
_CBRT = "fusejit::cbrt(Tensor self) -> Tensor"
register(_CBRT, _cbrt, ufunc=np.cbrt)
define("fusejit::cbrt", dtype=_cbrt_dtype, render=_render_cbrt, extends=(_CBRT,))
register("fusejit::cbrt_(Tensor(a!) self) -> Tensor(a!)", inplace("cbrt_", _cbrt), pure=False)
register("aten::signbit(Tensor self) -> Tensor", _signbit)
register("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", _index)
register("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) "
         "-> Tensor", _index_put)
register("aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, "
         "bool accumulate=False) -> Tensor(a!)", _index_put_, pure=False)
register("fusejit::ufunc_at_(Tensor(a!) self, Tensor?[] indices, Tensor values, str ufunc) "
         "-> Tensor(a!)", _ufunc_at_, pure=False)
register("aten::select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor",
         _select_scatter)
register("aten::slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, "
         "int? end=None, int step=1) -> Tensor", _slice_scatter)
register("aten::squeeze(Tensor(a) self) -> Tensor(a)", lambda self: np.squeeze(self))
register("aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor",
         _constant_pad_nd)
register("aten::linalg_inv(Tensor A) -> Tensor", _linalg("linalg.inv", np.linalg.inv))
register("aten::linalg_det(Tensor A) -> Tensor", _linalg("linalg.det", np.linalg.det))
register("aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", _linalg_slogdet,
         multiple=True)
register("aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor", _linalg_solve)
register("aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor", _argsort)
register("aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", _cumprod)
register("fusejit::cumprod_backward(Tensor grad, Tensor self, int dim) -> Tensor",
         _cumprod_backward)
register("fusejit::cat_offsets(Tensor[] tensors, int dim) -> int[]", _cat_offsets)
register("fusejit::wrap_pad(Tensor self, int[] pad) -> Tensor", _wrap_pad)
register("fusejit::pad(Tensor self, int[] pad, str mode) -> Tensor", _pad)
register("fusejit::pad_backward(Tensor grad, Tensor self, int[] pad, str mode) -> Tensor",
         _pad_backward)
register("fusejit::kept_shape(Tensor(a) self, Tensor other) -> Tensor(a)", _kept_shape,
         pure=False)
register("aten::gcd(Tensor self, Tensor other) -> Tensor", _integer_ufunc(np.gcd))
register("aten::lcm(Tensor self, Tensor other) -> Tensor", _integer_ufunc(np.lcm))
register("fusejit::maximum_accumulate(Tensor self, int dim) -> Tensor", _running(np.maximum))
register("fusejit::minimum_accumulate(Tensor self, int dim) -> Tensor", _running(np.minimum))
register("fusejit::running_backward(Tensor grad, Tensor self, Tensor result, int dim) -> Tensor",
         _running_backward)
register("aten::bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor",
         _bincount)
register("fusejit::unique_values(Tensor self) -> Tensor", _unique_values)
register("aten::nonzero(Tensor self) -> Tensor", _nonzero)
register("fusejit::flatnonzero(Tensor self) -> Tensor", _flatnonzero)
register("fusejit::lexsort(Tensor[] keys) -> Tensor", _lexsort)
register("fusejit::histogram2d(Tensor x, Tensor y, int[] bins) -> (Tensor counts, "
         "Tensor xedges, Tensor yedges)", _histogram2d, multiple=True)
register("fusejit::unique_all(Tensor self) -> (Tensor values, Tensor indices, Tensor inverse, "
         "Tensor counts)", _unique_all, multiple=True)
register("fusejit::unique_inverse(Tensor self) -> (Tensor values, Tensor inverse, "
         "Tensor counts)", _unique_inverse, multiple=True)
register("fusejit::unique_along(Tensor self, int dim) -> (Tensor values, Tensor indices, "
         "Tensor inverse, Tensor counts)", _unique_along, multiple=True)
register("fusejit::unique_counts(Tensor self) -> (Tensor values, Tensor counts)",
         _unique_counts, multiple=True)
register("aten::searchsorted(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
         "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor", _searchsorted)
register("fusejit::argsort(Tensor self, int dim, int kind=0) -> Tensor", _numpy_argsort)
register("fusejit::convolve(Tensor a, Tensor v, int mode) -> Tensor", _convolve)
register("fusejit::convolve_grad(Tensor grad, Tensor other, int length, int mode) -> Tensor",
         _convolve_grad)
register("fusejit::interp(Tensor x, Tensor xp, Tensor fp, Tensor? left=None, "
         "Tensor? right=None) -> Tensor", _interp)
register("fusejit::interp_backward(Tensor grad, Tensor x, Tensor xp, Tensor fp, "
         "Tensor? left=None, Tensor? right=None) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
         _interp_backward, multiple=True)
register("fusejit::sort_values(Tensor self, int dim) -> Tensor", _sort_values)
register("fusejit::partition(Tensor self, int[] kth, int dim) -> Tensor", _partition)
register("fusejit::argpartition(Tensor self, int[] kth, int dim) -> Tensor", _argpartition)
register("fusejit::partition_backward(Tensor grad, Tensor self, int[] kth, int dim) -> Tensor",
         _partition_backward)
register("fusejit::select_sorted(Tensor self, int[] positions) -> Tensor", _select_sorted)
register("fusejit::reduceat(Tensor self, Tensor indices, int dim, str ufunc) -> Tensor",
         _reduceat)
