"""Lowerings for NumPy's norms, products over named axes, weighted averages, sorting and
small linear algebra, written with ops that have derivatives::

    np.linalg.norm(v, 1)          aten::sum(aten::abs(%v))     (inf: amax; p: sum(|v|^p)^(1/p))
    np.linalg.norm(a, np.inf)     the largest row sum of |a|   (1: column sum; 'fro': 2-norm)
    np.inner(a, b)                np.einsum('az,bz->ab', a, b) (for the operands' ranks)
    np.tensordot(a, b, axes)      np.einsum over the paired axes
    np.average(a, axis, weights)  sum(a * w, axis) / sum(w, axis)
    np.sort(a, axis)              take_along_axis(a, aten::argsort(%a, axis), axis)
    np.searchsorted(a, v, side)   aten::searchsorted(%a, %v, right=side == 'right')
    np.bincount(x, w, minlength)  aten::bincount(%x, %w, minlength)
    np.unique(x)                  fusejit::unique_values(%x)
    np.nonzero(x), np.argwhere    aten::nonzero(%x) (a row per position; its columns)
    np.median(a, axis)            the mean of the two middle elements of np.sort(a, axis)
    np.linalg.inv/det/solve       aten::linalg_inv, aten::linalg_det, aten::linalg_solve
    np.linalg.slogdet(a)          aten::linalg_slogdet: sign, log|det| (NumPy's own)
    np.linalg.norm(a, 2 / 'nuc')  the largest / the sum of aten::linalg_svdvals(%a)
    np.linalg.cholesky(a)         aten::linalg_cholesky(%a)
    np.linalg.eigvalsh(a)         aten::linalg_eigvalsh(%a, "L")
    np.triu_indices(n, k)         aten::select(aten::triu_indices(%n, %n, %k), 0, 0 / 1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from ..ir.types import ScalarType, TensorType
from .builder import IRBuilder, Item, describe, is_none, is_tensor
from .lowering import _array, binary, reshape
from .numpy_arrays import _axis, _rank, take_along_axis
from .numpy_dtypes import conform, dtype_of


def norm(b: IRBuilder, x: Item, ord: Item = None, axis: Item = None,  # noqa: A002
         keepdims: Item = False) -> Value:
    """``np.linalg.norm``: vector norms (``ord`` 1, 2, inf, -inf or another number) of 1-D
    arrays or along one axis, and the Frobenius, 1- and inf-norms of matrices; ``ord=None`` is
    the 2-norm of the flattened array."""
    from .numpy_lowering import norm as two_norm
    from .numpy_lowering import reduce

    order = b.static(ord)
    x = _array(b, x, "np.linalg.norm")
    if order is None or (order == "fro" and is_none(axis)):
        return two_norm(b, x, None, axis, keepdims)
    what = f"np.linalg.norm(ord={order!r})"
    rank = _rank(b, x, what)
    axes = axis if isinstance(axis, (tuple, list)) else None if is_none(axis) else (axis,)
    matrix = (axes is None and rank == 2) or (axes is not None and len(axes) == 2)
    (x,) = conform(b, np.sqrt, [x], what)
    magnitude = b.emit(aten.abs, [x], what)
    if matrix:
        if order == "fro":
            return two_norm(b, x, None, axis, keepdims)
        rows, cols = axes if axes is not None else (0, 1)
        if order in (2, -2, "nuc"):
            return _spectral(b, x, order, (rows, cols), rank, keepdims, what)
        if order not in (1, -1, np.inf, -np.inf):
            raise b.error(f"{what} of a matrix is not supported; use ord='fro', 'nuc', 1, 2, "
                          f"np.inf or their negatives")
        inner, outer = (rows, cols) if order in (1, -1) else (cols, rows)
        sums = reduce(b, "sum", magnitude, inner, True)
        pick = "max" if order > 0 else "min"
        keep = b.static_bool(keepdims, "np.linalg.norm's keepdims")
        return reduce(b, pick, sums, outer if keep else (inner, outer), keep)
    if axes is None and rank != 1:
        raise b.error(f"{what} needs a 1-D array or an axis (a 2-D array with a matrix ord)")
    along = None if axes is None else axes[0]
    if not isinstance(order, (int, float)) or isinstance(order, bool):
        raise b.error(f"{what}: a vector's ord must be a number")
    if order in (np.inf, -np.inf):
        return reduce(b, "max" if order > 0 else "min", magnitude, along, keepdims)
    if order == 1:
        return reduce(b, "sum", magnitude, along, keepdims)
    if order == 2:
        return two_norm(b, x, None, along, keepdims)
    if order <= 0:
        raise b.error(f"{what}: ord 0 and negative orders have no gradient here; not supported")
    powered = binary(b, "pow", magnitude, float(order))
    return binary(b, "pow", reduce(b, "sum", powered, along, keepdims), 1.0 / order)



def _spectral(b: IRBuilder, x: Value, order: Any, axes: tuple, rank: int, keepdims: Item,
              what: str) -> Value:
    """Matrix norms of singular values: the largest (ord 2), the smallest (-2), their sum
    ('nuc'), over the last two axes."""
    from .numpy_lowering import reduce

    pair = {b.static(a) % rank if isinstance(b.static(a), int) else None for a in axes}
    if pair != {rank - 2, rank - 1}:
        raise b.error(f"{what}: ord 2, -2 and 'nuc' are supported over the last two axes")
    values = b.emit("aten::linalg_svdvals", [x, None], what)
    pick = {2: "max", -2: "min", "nuc": "sum"}[order]
    result = reduce(b, pick, values, -1, False)
    if b.static_bool(keepdims, "np.linalg.norm's keepdims"):
        for _ in range(2):
            result = b.emit(aten.unsqueeze, [result, -1], what)
    return result


def svd(b: IRBuilder, a: Item, full_matrices: Item = True, compute_uv: Item = True,
        hermitian: Item = False) -> Value:
    """``np.linalg.svd(a, compute_uv=False)``: the singular values, largest first; with
    ``compute_uv`` (its default), ``(U, S, Vh)``, NumPy's own (``aten::linalg_svd``)."""
    what = "np.linalg.svd"
    if b.static(hermitian) is not False:
        raise b.error(f"{what}: hermitian=True is not supported")
    (a,) = conform(b, np.linalg.svd, [_array(b, a, what)], what)
    rank = _rank(b, a, what)
    if rank < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    if b.static(compute_uv) is False:
        return b.emit("aten::linalg_svdvals", [a, None], what)
    full = b.static_bool(full_matrices, f"{what}(full_matrices=...)")
    return _named("SVDResult", _outputs(b, "aten::linalg_svd", [a, full, None], a,
                                        [rank, rank - 1, rank]))


def _named(result: str, values: tuple) -> tuple:
    """``values`` as NumPy's named result ``result`` (``np.linalg``'s ``SVDResult``, ``QRResult``,
    ``EighResult``, ``SlogdetResult``: ``np.linalg.slogdet(a).logabsdet``), where this NumPy
    has it; a plain tuple otherwise."""
    from numpy.linalg import _linalg

    kind = getattr(_linalg, result, None)
    return kind(*values) if kind is not None else values


def _outputs(b: IRBuilder, kind: str, inputs: list, like: Value, ranks: list[int],
             dtypes: list | None = None) -> tuple[Value, ...]:
    """The results of a node of several (NumPy's own call), typed as arrays of ``ranks``, of
    ``like``'s dtype (or ``dtypes``' where given), their sizes known when it runs."""
    node = b.create(kind, [b.value_const(i) if isinstance(i, str) else b.value(i)
                           for i in inputs], len(ranks))
    for i, (out, rank) in enumerate(zip(node.outputs, ranks)):
        dtype = dtypes[i] if dtypes is not None and dtypes[i] is not None else dtype_of(like)
        if dtype is None and isinstance(like.type, TensorType):   # (like's, unknown)
            out.set_type(like.type.with_(sizes=(None,) * rank, strides=None))
        else:
            _typed(out, like, dtype, rank)
    b.refine(node)
    return tuple(node.outputs)


def qr(b: IRBuilder, a: Item, mode: Item = "reduced") -> Value | tuple[Value, Value]:
    """``q, r = np.linalg.qr(a, mode)``: NumPy's own (``aten::linalg_qr``); ``mode='r'``
    gives ``r`` alone."""
    what = "np.linalg.qr"
    name = b.static(mode)
    if name not in ("reduced", "complete", "r"):
        raise b.error(f"{what}: mode must be 'reduced', 'complete' or 'r', got {describe(mode)}")
    (a,) = conform(b, np.linalg.qr, [_array(b, a, what)], what)
    rank = _rank(b, a, what)
    if rank < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    q, r = _outputs(b, "aten::linalg_qr", [a, "reduced" if name == "r" else name], a,
                    [rank, rank])
    return r if name == "r" else _named("QRResult", (q, r))


def pinv(b: IRBuilder, a: Item, rcond: Item = None, hermitian: Item = False) -> Value:
    """``np.linalg.pinv(a)``: NumPy's own (``fusejit::pinv``)."""
    what = "np.linalg.pinv"
    (a,) = conform(b, np.linalg.pinv, [_array(b, a, what)], what)
    rank = _rank(b, a, what)
    if rank < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    cutoff = None if is_none(rcond) else binary(b, "mul", rcond, 1.0)
    (found,) = _outputs(b, "fusejit::pinv", [a, cutoff, b.static_bool(hermitian, what)], a,
                        [rank])
    return found


def matrix_rank(b: IRBuilder, A: Item, tol: Item = None, hermitian: Item = False) -> Value:  # noqa: N803
    """``np.linalg.matrix_rank(A)``: NumPy's own (``fusejit::matrix_rank``, int64)."""
    what = "np.linalg.matrix_rank"
    x = _array(b, A, what)
    rank = _rank(b, x, what)
    cutoff = None if is_none(tol) else binary(b, "mul", tol, 1.0)
    (found,) = _outputs(b, "fusejit::matrix_rank", [x, cutoff, b.static_bool(hermitian, what)],
                        x, [max(rank - 2, 0)], [np.int64])
    return found


def lstsq(b: IRBuilder, a: Item, y: Item, rcond: Item = None) -> tuple[Value, ...]:
    """``x, residuals, rank, s = np.linalg.lstsq(a, b)``: NumPy's own (``fusejit::lstsq``);
    ``rank`` NumPy's int32."""
    what = "np.linalg.lstsq"
    a, y = _array(b, a, what), _array(b, y, what)
    if _rank(b, a, what) != 2 or _rank(b, y, what) not in (1, 2):
        raise b.error(f"{what}: a 2-D matrix and a 1-D or 2-D right-hand side are supported")
    (like,) = conform(b, np.linalg.lstsq, [a], what)
    cutoff = None if is_none(rcond) else binary(b, "mul", rcond, 1.0)
    dtype = np.result_type(dtype_of(a) or np.float64, dtype_of(y) or np.float64, np.float32)
    return _outputs(b, "fusejit::lstsq", [a, y, cutoff], like,
                    [_rank(b, y, what), 1, 0, 1], [dtype, dtype, np.int32, dtype])


def polyfit(b: IRBuilder, x: Item, y: Item, deg: Item, rcond: Item = None, full: Item = False,
            w: Item = None, cov: Item = False) -> Value:
    """``np.polyfit(x, y, deg)``: NumPy's own (``fusejit::polyfit``), the coefficients
    highest power first; not ``rcond``, ``full``, ``w`` nor ``cov``."""
    what = "np.polyfit"
    if not is_none(rcond) or not is_none(w) or b.static(full) is not False or \
            b.static(cov) is not False:
        raise b.error(f"{what}: only x, y and deg are supported (not rcond, full, w, cov)")
    x, y = _array(b, x, what), _array(b, y, what)
    if _rank(b, x, what) != 1 or _rank(b, y, what) not in (1, 2):
        raise b.error(f"{what}: x must be 1-D and y 1-D or 2-D")
    (found,) = _outputs(b, "fusejit::polyfit", [x, y, b.static_int(deg, f"{what}'s deg")], y,
                        [_rank(b, y, what)], [np.float64])
    return found


def _symmetric(b: IRBuilder, a: Item, UPLO: Item, what: str) -> Value:  # noqa: N803
    """``a`` of ``eigvalsh``/``eigh``: a float array of rank 2 or more, ``UPLO`` 'L' or 'U'."""
    if UPLO not in ("L", "U"):
        raise b.error(f"{what}: UPLO must be 'L' or 'U', got {describe(UPLO)}")
    (a,) = conform(b, np.linalg.eigvalsh, [_array(b, a, what)], what)
    if _rank(b, a, what) < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    return a


def eigvalsh(b: IRBuilder, a: Item, UPLO: Item = "L") -> Value:  # noqa: N803 (NumPy's name)
    """``np.linalg.eigvalsh(a)``: the eigenvalues of symmetric ``a``, ascending (the triangle
    ``UPLO`` is read)."""
    what = "np.linalg.eigvalsh"
    a = _symmetric(b, a, UPLO, what)
    return b.emit("aten::linalg_eigvalsh", [a, b.value_const(UPLO)], what)


def eigh(b: IRBuilder, a: Item, UPLO: Item = "L") -> tuple[Value, Value]:  # noqa: N803
    """``w, v = np.linalg.eigh(a)``: eigenvalues (ascending) and eigenvectors (columns) of
    symmetric ``a``; a gradient through ``v`` needs distinct eigenvalues and a loss that does
    not depend on each vector's sign."""
    what = "np.linalg.eigh"
    a = _symmetric(b, a, UPLO, what)
    rank = a.type.rank
    return _named("EighResult", _outputs(b, "aten::linalg_eigh", [a, UPLO], a,
                                         [rank - 1, rank]))


def cholesky(b: IRBuilder, a: Item, upper: Item = False) -> Value:
    """``np.linalg.cholesky(a)``: lower-triangular ``L`` with ``L @ L.T == a`` (``a``'s lower
    triangle is read); ``upper=True`` gives ``L.T``."""
    what = "np.linalg.cholesky"
    (a,) = conform(b, np.linalg.cholesky, [_array(b, a, what)], what)
    if _rank(b, a, what) < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    lower = b.emit("aten::linalg_cholesky", [a, False], what)
    if b.static_bool(upper, f"{what}(upper=...)"):
        return b.emit(aten.transpose, [lower, -1, -2], what)
    return lower


def triangle_indices(name: str):
    """``np.triu_indices(n, k, m)`` / ``np.tril_indices``: the row and column indices of the
    triangle, as two int64 arrays."""
    def lower(b: IRBuilder, n: Item, k: Item = 0, m: Item = None) -> tuple[Value, Value]:
        what = f"np.{name}"
        both = b.emit(f"aten::{name}", [n, n if is_none(m) else m, k, 4, None, None, None],
                      what)
        return tuple(b.emit(aten.select, [both, 0, i], what) for i in (0, 1))
    return lower


def average(b: IRBuilder, a: Item, axis: Item = None, weights: Item = None,
            returned: Item = False, keepdims: Item = False) -> Value:
    """``np.average``: the mean, or ``sum(a * w) / sum(w)`` (1-D weights lie along ``axis``);
    ``returned=True`` adds the sum of the weights (the count without them), in the
    average's shape, as NumPy's pair."""
    from .numpy_lowering import reduce

    pair = b.static_bool(returned, "np.average(returned=...)")
    a = _array(b, a, "np.average")
    if is_none(weights):
        mean = reduce(b, "mean", a, axis, keepdims)
        if not pair:
            return mean
        count = binary(b, "div", b.emit("aten::numel", [a], "np.average"),
                       b.emit("aten::numel", [mean], "np.average"))
        return mean, binary(b, "mul", b.emit("aten::ones_like", [mean], "np.average"), count)
    w = _array(b, weights, "np.average's weights")
    rank, wrank = _rank(b, a, "np.average"), _rank(b, w, "np.average's weights")
    if wrank != rank:
        if wrank != 1 or is_none(axis) or isinstance(axis, (tuple, list)):
            raise b.error("np.average: weights of another shape must be 1-D, with one axis")
        along = _axis(b, rank, axis, "np.average's axis")
        w = reshape(b, w, [-1 if d == along else 1 for d in range(rank)])
    total = reduce(b, "sum", binary(b, "mul", a, w), axis, keepdims)
    scale = reduce(b, "sum", binary(b, "mul", w, b.emit("aten::ones_like", [a], "np.average")),
                   axis, keepdims)
    mean = binary(b, "div", total, scale)
    return (mean, scale) if pair else mean



def inner(b: IRBuilder, x: Item, y: Item) -> Value:
    """``np.inner``: a sum over both last axes (``np.einsum('...i,...i')`` with the leading
    axes of each kept, x's first)."""
    from .einsum import einsum

    rx, ry = (_rank(b, _array(b, v, "np.inner"), "np.inner") for v in (x, y))
    if rx == 0 or ry == 0:
        return binary(b, "mul", x, y)
    left, right = _LETTERS[:rx - 1], _LETTERS[rx - 1:rx + ry - 2]
    return einsum(b, f"{left}z,{right}z->{left}{right}", (x, y))



def tensordot(b: IRBuilder, x: Item, y: Item, axes: Item = 2) -> Value:
    """``np.tensordot``: ``axes=n`` sums x's last n axes with y's first n; a pair of axis
    lists names them."""
    from .einsum import einsum

    rx, ry = (_rank(b, _array(b, v, "np.tensordot"), "np.tensordot") for v in (x, y))
    spec = b.static(axes)
    if isinstance(spec, int) and not isinstance(spec, bool):
        if not 0 <= spec <= min(rx, ry):
            raise b.error(f"np.tensordot: axes={spec} does not fit ranks {rx} and {ry}")
        pairs = list(zip(range(rx - spec, rx), range(spec)))
    elif isinstance(spec, tuple) and len(spec) == 2:
        firsts, seconds = ((s,) if isinstance(s, int) else tuple(s) for s in spec)
        if len(firsts) != len(seconds):
            raise b.error("np.tensordot: the two axis lists must have the same length")
        pairs = [(a % rx, c % ry) for a, c in zip(firsts, seconds)]
    else:
        raise b.error(f"np.tensordot: axes must be a constant int or a pair of axis lists, got "
                      f"{describe(axes)}")
    left = list(_LETTERS[:rx])
    right = list(_LETTERS[rx:rx + ry])
    for a, c in pairs:
        right[c] = left[a]
    summed = {left[a] for a, _ in pairs}
    out = [c for c in left if c not in summed] + [c for c in right if c not in summed]
    result = einsum(b, f"{''.join(left)},{''.join(right)}->{''.join(out)}", (x, y))
    if not out:     # (every axis summed: NumPy's reshape to () gives a 0-d array, no scalar)
        b.zero_d_arrays.add(result)
    return result



def linalg(name: str):
    """``np.linalg.inv``/``det`` of square matrices (stacks of them too)."""
    def lower(b: IRBuilder, a: Item) -> Value:
        what = f"np.linalg.{name}"
        (a,) = conform(b, getattr(np.linalg, name), [_array(b, a, what)], what)
        if _rank(b, a, what) < 2:
            raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
        return b.emit(f"aten::linalg_{name}", [a], what)
    return lower



def slogdet(b: IRBuilder, a: Item) -> tuple[Value, Value]:
    """``sign, logdet = np.linalg.slogdet(a)``: the sign and log of ``|det(a)|``, NumPy's own
    (finite where the determinant over- or underflows)."""
    what = "np.linalg.slogdet"
    (a,) = conform(b, np.linalg.slogdet, [_array(b, a, what)], what)
    rank = _rank(b, a, what)
    if rank < 2:
        raise b.error(f"{what} needs a 2-D array (or a stack of matrices)")
    return _named("SlogdetResult", _outputs(b, "aten::linalg_slogdet", [a], a,
                                            [rank - 2, rank - 2]))



def solve(b: IRBuilder, a: Item, x: Item) -> Value:
    what = "np.linalg.solve"
    a, x = conform(b, np.linalg.solve, [_array(b, a, what), _array(b, x, what)], what)
    if _rank(b, a, what) != 2 or _rank(b, x, what) not in (1, 2):
        raise b.error(f"{what}: a 2-D matrix and a 1-D or 2-D right-hand side are supported")
    return b.emit("aten::linalg_solve", [a, x, True], what)



def argsort(b: IRBuilder, a: Item, axis: Item = -1, kind: Item = None) -> Value:
    """``np.argsort``: ``fusejit::argsort``, NumPy's own for ``kind``, so that tied keys come
    in NumPy's order (its default sort is not stable); ``axis=None`` sorts the flattened
    array."""
    x = _array(b, a, "np.argsort")
    if is_none(axis):
        x, axis = reshape(b, x, [-1]), 0
    from ..oplib.array_ops import SORT_KINDS

    name = None if is_none(kind) else b.static(kind)
    if name not in SORT_KINDS:
        raise b.error(f"np.argsort's kind must be one of 'quicksort', 'mergesort', "
                      f"'heapsort', 'stable', got {describe(kind)}")
    rank = _rank(b, x, "np.argsort")
    dim = _axis(b, rank, axis, "np.argsort's axis") if rank else 0
    return _typed(b.emit("fusejit::argsort", [x, dim, SORT_KINDS.index(name)], "np.argsort"),
                  x, np.int64, rank)


def partition(arg: bool):
    """``np.partition`` / ``np.argpartition``: NumPy's own (``fusejit::partition``,
    ``fusejit::argpartition``), ``kth`` an int or a list of them; ``axis=None`` partitions the
    flattened array."""
    what = "np.argpartition" if arg else "np.partition"

    def lower(b: IRBuilder, a: Item, kth: Item, axis: Item = -1, kind: Item = "introselect",
              order: Item = None) -> Value:
        x = _array(b, a, what)
        if b.static(kind) != "introselect" or not is_none(order):
            raise b.error(f"{what}: only kind='introselect' (its default) and no order= are "
                          "supported")
        if is_none(axis):
            x, axis = reshape(b, x, [-1]), 0
        rank = _rank(b, x, what)
        if rank == 0:
            raise b.error(f"{what} of a 0-d array: there is no axis to partition")
        dim = _axis(b, rank, axis, f"{what}'s axis")
        found = b.emit("fusejit::argpartition" if arg else "fusejit::partition",
                       [x, b.int_list(kth, f"{what}'s kth"), dim], what)
        return _typed(found, x, np.int64, rank) if arg else found
    return lower


def lexsort(b: IRBuilder, keys: Item, axis: Item = -1) -> Value:
    """``np.lexsort(keys)``: NumPy's own (``fusejit::lexsort``) for a tuple or list of 1-D
    keys of one length (the last key sorts first), int64 positions."""
    what = "np.lexsort"
    if not isinstance(keys, (tuple, list)) or not keys:
        raise b.error(f"{what} takes a tuple or list of 1-D arrays here")
    if b.static(axis) != -1:
        raise b.error(f"{what}: only axis=-1 is supported")
    arrays = [_array(b, k, what) for k in keys]
    if any(_rank(b, k, what) != 1 for k in arrays):
        raise b.error(f"{what}: the keys must be 1-D arrays here")
    found = b.emit("fusejit::lexsort", [b.tensor_list(arrays, what)], what)
    return _typed(found, arrays[0], np.int64, 1)


def histogram2d(b: IRBuilder, x: Item, y: Item, bins: Item = 10, range: Item = None,  # noqa: A002
                density: Item = None, weights: Item = None) -> tuple[Value, Value, Value]:
    """``H, xedges, yedges = np.histogram2d(x, y, bins)``: NumPy's own
    (``fusejit::histogram2d``), ``bins`` an int or a pair of ints; not ``range``,
    ``density`` nor ``weights``."""
    what = "np.histogram2d"
    if not (is_none(range) and is_none(density) and is_none(weights)):
        raise b.error(f"{what}: only x, y and bins (ints) are supported")
    counts = b.static(bins)
    counts = list(counts) if isinstance(counts, (tuple, list)) else [counts, counts]
    if len(counts) != 2 or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                   for n in counts):
        raise b.error(f"{what}: bins must be a positive int or a pair of them here, got "
                      f"{describe(bins)}")
    x, y = _array(b, x, what), _array(b, y, what)
    if _rank(b, x, what) != 1 or _rank(b, y, what) != 1:
        raise b.error(f"{what}: x and y must be 1-D arrays")
    # (NumPy stacks x and y into one sample array: the edges are in its dtype, float64 for
    # integers)
    edges = np.result_type(dtype_of(x) or np.float64, dtype_of(y) or np.float64)
    edges = edges if edges.kind == "f" else np.dtype(np.float64)
    return _outputs(b, "fusejit::histogram2d", [x, y, b.value_const(counts)], x, [2, 1, 1],
                    [np.float64, edges, edges])


def _stable_order(b: IRBuilder, x: Value, axis: Item) -> Value:
    """The stable ``aten::argsort`` of ``x`` along ``axis`` (what orders ``np.sort``'s values:
    equal values, any order of them gives them)."""
    rank = _rank(b, x, "np.sort")
    return b.emit("aten::argsort", [x, _axis(b, rank, axis, "np.sort's axis") if rank
                                    else 0, False], "np.sort")



def _typed(value: Value, like: Value, dtype: Any, rank: int) -> Value:
    """``value`` typed as an array of ``dtype`` and ``rank`` on ``like``'s device, its sizes
    unknown (they depend on the data): what later lowerings read (a mask's dtype)."""
    if isinstance(like.type, TensorType):
        value.set_type(like.type.with_(scalar_type=ScalarType.from_dtype(np.dtype(dtype)),
                                       sizes=(None,) * rank, strides=None))
    return value


def searchsorted(b: IRBuilder, a: Item, v: Item, side: Item = "left",
                 sorter: Item = None) -> Value:
    """``np.searchsorted``: ``aten::searchsorted`` of a vector ``a`` (NumPy's own search: its
    order for NaN, its common dtype of ``a`` and ``v``, a number taken as ``np.asarray``
    takes it); int64 positions of ``v``'s shape, a NumPy scalar for a number."""
    from .lowering import as_tensor

    x = _array(b, a, "np.searchsorted")
    if x.type.rank not in (None, 1):   # (unknown: the op's own check when it runs)
        raise b.error("np.searchsorted: a must be 1-D")
    if not is_none(sorter):
        raise b.error("np.searchsorted: sorter= is not supported; search np.sort(a), or "
                      "a[order] for order = np.argsort(a)")
    where = b.static(side)
    if where not in ("left", "right"):
        raise b.error(f"np.searchsorted: side must be 'left' or 'right', got {describe(side)}")
    # (a number is made as np.searchsorted's np.asarray makes it, float64 or int64, not as
    # a weak scalar: 0.1 is compared with a float32 array in float64)
    if isinstance(v, (tuple, list)):    # (made an array as np.asarray makes it)
        from .numpy_lowering import array

        v = array(b, v)
    number = b.static(v)
    known = isinstance(number, (int, float)) and not isinstance(number, bool)
    values = as_tensor(b, v, "np.searchsorted", np.asarray(number).dtype if known else None)
    return b.emit("aten::searchsorted", [x, values, False, where == "right", None, None],
                  "np.searchsorted")


def bincount(b: IRBuilder, x: Item, weights: Item = None, minlength: Item = 0) -> Value:
    """``np.bincount``: ``aten::bincount`` (NumPy's counts, int64, or sums of the weights,
    float64; an array as long as the largest value + 1, so its length is known at run time)."""
    x = _array(b, x, "np.bincount")
    # (a rank or dtype known only when it runs, as a loop's variable whose dtype changes in
    # its first iteration has: NumPy's bincount checks them then, naming this line)
    if x.type.rank not in (None, 1) or dtype_of(x) is not None and dtype_of(x).kind not in "iub":
        raise b.error("np.bincount: x must be a 1-D array of non-negative ints")
    if not is_none(weights):
        weights = _array(b, weights, "np.bincount's weights")
    if is_tensor(minlength):    # (n = keys.max() + 1: a NumPy integer)
        if minlength.type.rank != 0 or dtype_of(minlength) is None or \
                dtype_of(minlength).kind not in "iu":
            raise b.error("np.bincount: minlength must be an integer")
        from .lowering import to_int

        minlength = to_int(b, minlength)
    counted = b.emit("aten::bincount", [x, None if is_none(weights) else weights, minlength],
                     "np.bincount")
    return _typed(counted, x, np.int64 if is_none(weights) else np.float64, 1)


def nonzero(b: IRBuilder, a: Item) -> tuple[Value, ...]:
    """``np.nonzero(a)`` (and ``np.where(condition)``): one int64 array of positions per
    axis, from ``aten::nonzero``'s rows (their count known when it runs); of a vector,
    ``fusejit::flatnonzero``."""
    x = _array(b, a, "np.nonzero")
    rank = _rank(b, x, "np.nonzero")
    if rank == 0:
        raise b.error("np.nonzero of a 0-d array is not supported (NumPy deprecates it); "
                      "write np.nonzero(np.atleast_1d(a))")
    if rank == 1:       # (its one array at once, contiguous, as NumPy's)
        return (_typed(b.emit("fusejit::flatnonzero", [x], "np.nonzero"), x, np.int64, 1),)
    found = _typed(b.emit("aten::nonzero", [x], "np.nonzero"), x, np.int64, 2)
    return tuple(b.emit(aten.select, [found, 1, d], "np.nonzero") for d in range(rank))


def argwhere(b: IRBuilder, a: Item) -> Value:
    """``np.argwhere(a)``: the positions of the nonzero elements, a row each."""
    x = _array(b, a, "np.argwhere")
    if _rank(b, x, "np.argwhere") == 0:
        raise b.error("np.argwhere of a 0-d array is not supported; write "
                      "np.argwhere(np.atleast_1d(a))")
    return _typed(b.emit("aten::nonzero", [x], "np.argwhere"), x, np.int64, 2)


def flatnonzero(b: IRBuilder, a: Item) -> Value:
    """``np.flatnonzero(a)``: the positions of the nonzero elements of the flattened array."""
    x = _array(b, a, "np.flatnonzero")
    return _typed(b.emit("fusejit::flatnonzero", [x], "np.flatnonzero"), x, np.int64, 1)


def unique(b: IRBuilder, ar: Item, return_index: Item = False, return_inverse: Item = False,
           return_counts: Item = False, axis: Item = None, equal_nan: Item = True) -> Value:
    """``np.unique(x)``: the sorted distinct values of the flattened array (its length known
    at run time); with ``return_index``, ``return_inverse``, ``return_counts``, the tuple of
    those NumPy returns (int64 positions and counts; the inverse in ``x``'s shape, as NumPy
    2's); with ``axis``, the distinct slices along it (the inverse one per slice)."""
    x = _array(b, ar, "np.unique")
    wanted = [b.static_bool(flag, f"np.unique's {name}") for flag, name in (
        (return_index, "return_index"), (return_inverse, "return_inverse"),
        (return_counts, "return_counts"))]
    if not b.static_bool(equal_nan, "np.unique's equal_nan"):
        raise b.error("np.unique: equal_nan=False is not supported")
    if not is_none(axis):
        # (the distinct slices along an axis, np.unique(points, axis=0): NumPy's own call,
        # each result NumPy's, picked as the flags ask)
        rank = _rank(b, x, "np.unique")
        dim = b.static_int(axis, "np.unique's axis")
        if not -rank <= dim < rank:
            raise b.error(f"np.unique: axis {dim} is out of bounds for an array of dimension "
                          f"{rank}")
        values, index, inverse, counts = _outputs(
            b, "fusejit::unique_along", [x, dim % rank], x, [rank, 1, 1, 1],
            [None, *[np.int64] * 3])
        picked = tuple(out for out, keep in zip((index, inverse, counts), wanted) if keep)
        return (values, *picked) if picked else values
    if not any(wanted):
        found = b.emit("fusejit::unique_values", [x], "np.unique")
        return found if dtype_of(x) is None else _typed(found, x, dtype_of(x), 1)
    rank = _rank(b, x, "np.unique")
    if wanted == [False, False, True]:
        return _outputs(b, "fusejit::unique_counts", [x], x, [1, 1], [None, np.int64])
    if not wanted[0]:
        # (no first positions: NumPy then sorts with its unstable argsort, several times
        # faster than the stable one the positions need: 150,000 int64 ids, 3.1 ms against
        # 8.7 ms with all four results)
        values, inverse, counts = _outputs(b, "fusejit::unique_inverse", [x], x,
                                           [1, rank, 1], [None, np.int64, np.int64])
        return (values, inverse, counts) if wanted[2] else (values, inverse)
    values, index, inverse, counts = _outputs(b, "fusejit::unique_all", [x], x,
                                              [1, 1, rank, 1], [None, *[np.int64] * 3])
    return (values, *(out for out, keep in zip((index, inverse, counts), wanted) if keep))


def sort(b: IRBuilder, a: Item, axis: Item = -1, kind: Item = None) -> Value:
    """``np.sort``: the array taken along ``axis`` in its ``argsort`` order (so its gradient
    goes back to where each value came from)."""
    x = _array(b, a, "np.sort")
    if is_none(axis):
        x, axis = reshape(b, x, [-1]), 0
    if _rank(b, x, "np.sort") == 0:
        raise b.error("np.sort of a 0-d array: there is no axis to sort")
    return take_along_axis(b, x, _stable_order(b, x, axis), axis)



def median(b: IRBuilder, a: Item, axis: Item = None, keepdims: Item = False) -> Value:
    """``np.median``: the mean of the sorted array's two middle elements along ``axis`` (the
    same one when the length is odd)."""
    from .lowering import as_tensor, size, where
    from .numpy_lowering import isnan

    x = _array(b, a, "np.median")
    (x,) = conform(b, np.median, [x], "np.median")
    keep = b.static_bool(keepdims, "np.median(keepdims=...)")
    rank = _rank(b, x, "np.median")
    if isinstance(axis, (tuple, list)):
        # (several axes: moved last and merged into one, NumPy's way; keepdims puts them back
        # as axes of one)
        axes = sorted({_axis(b, rank, d, "np.median's axis") for d in axis})
        if len(axes) != len(axis):
            raise b.error("np.median: duplicate value in 'axis'")
        others = [d for d in range(rank) if d not in axes]
        moved = b.emit(aten.permute, [x, others + axes], "np.median")
        merged = reshape(b, moved, [size(b, x, d) for d in others] + [-1])
        found = median(b, merged, -1)
        for d in axes if keep else ():
            found = b.emit(aten.unsqueeze, [found, d], "np.median")
        return found
    if is_none(axis):
        along, ordered = 0, sort(b, reshape(b, x, [-1]), 0)
    else:
        along = _axis(b, rank, axis, "np.median's axis")
        ordered = sort(b, x, along)
    n = size(b, ordered, along)
    low = b.emit(aten.select, [ordered, along, binary(b, "floordiv", binary(b, "sub", n, 1), 2)],
                 "np.median")
    high = b.emit(aten.select, [ordered, along, binary(b, "floordiv", n, 2)], "np.median")
    middle = binary(b, "mul", binary(b, "add", low, high), 0.5)
    # (an odd count has one middle element, NumPy's median itself: its double overflows
    # near the float's largest)
    odd = as_tensor(b, binary(b, "eq", binary(b, "remainder", n, 2), 1), "np.median",
                    np.dtype(np.bool_))
    middle = where(b, odd, high, middle)
    if dtype_of(ordered) is not None and dtype_of(ordered).kind == "f":
        # a NaN sorts last and makes NumPy's median NaN
        last = b.emit(aten.select, [ordered, along, -1], "np.median")
        middle = where(b, isnan(b, last), float("nan"), middle)
    if not keep:
        return middle
    if is_none(axis):
        return reshape(b, middle, [1] * rank)
    return b.emit(aten.unsqueeze, [middle, along], "np.median")


_LETTERS = "abcdefghijklmnopqrstuvwxy"   # (z: inner's summed axis)

__all__ = ["argsort", "average", "cholesky", "eigh", "eigvalsh", "histogram2d", "inner",
           "lexsort", "linalg",
           "lstsq", "matrix_rank", "median", "norm", "partition", "pinv", "polyfit", "qr",
           "slogdet", "solve", "sort", "svd", "tensordot", "triangle_indices"]
