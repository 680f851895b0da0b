"""Matrix factorisations and triangle indices for NumPy-spelled code, with PyTorch's schemas::

    np.linalg.cholesky(a)            %l = aten::linalg_cholesky(%a)      (lower: L @ L.T == a)
    np.linalg.svd(a, compute_uv=False), np.linalg.norm(a, 2 / 'nuc')
                                     %s = aten::linalg_svdvals(%a)       (descending)
    np.linalg.eigvalsh(a, UPLO)      %w = aten::linalg_eigvalsh(%a, %UPLO)  (ascending)
    w, v = np.linalg.eigh(a, UPLO)   %w, %v = aten::linalg_eigh(%a, %UPLO)
    np.triu_indices(n, k, m)         %ij = aten::triu_indices(%n, %m, %k)   (2 x count, int64)
    u, s, vh = np.linalg.svd(a, fm)  %u, %s, %vh = aten::linalg_svd(%a, %fm)
    q, r = np.linalg.qr(a, mode)     %q, %r = aten::linalg_qr(%a, %mode)  ('reduced', 'complete')
    np.linalg.pinv(a, rcond, h)      %p = fusejit::pinv(%a, %rcond, %h)
    np.linalg.matrix_rank(a, tol, h) %k = fusejit::matrix_rank(%a, %tol, %h)   (int64)
    np.linalg.lstsq(a, b, rcond)     %x, %res, %k, %s = fusejit::lstsq(%a, %b, %rcond)
    np.polyfit(x, y, deg)            %p = fusejit::polyfit(%x, %y, %deg)

These last are NumPy's own calls; they have no derivative yet (differentiating through one
raises ``AutodiffError`` naming it).

Like NumPy's ``cholesky``, ``linalg_cholesky`` reads the lower triangle of ``a`` only (the
upper one is assumed to mirror it). ``fusejit::svdvals_backward(grad, a)`` is the singular
values' gradient ``U diag(grad) Vh`` (the SVD recomputed: the forward saves nothing but ``a``);
it holds where the singular values are distinct, as PyTorch's ``svd_backward`` does;
``fusejit::eigvalsh_backward`` likewise gives ``V diag(grad) V^T``, on the triangle read. Their
derivatives are in ``fusejit/autodiff/linalg_rules.py``.
"""

from __future__ import annotations

import numpy as np

from .table import as_tensor, register


def _float(a: np.ndarray) -> np.ndarray:
    return a.astype(np.result_type(a.dtype, np.float32), copy=False)


def _matrices(what: str, a: np.ndarray) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{what}: The input tensor A must have at least 2 dimensions.")


def _cholesky(self: np.ndarray, upper: bool = False) -> np.ndarray:
    _matrices("linalg.cholesky", self)
    if self.shape[-1] != self.shape[-2]:
        raise RuntimeError("linalg.cholesky: A must be batches of square matrices")
    try:
        lower = np.linalg.cholesky(_float(self))
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because "
                           "the input is not positive-definite.") from None
    return as_tensor(np.swapaxes(lower, -1, -2).copy() if upper else lower)


def _svdvals(a: np.ndarray, driver: str | None = None) -> np.ndarray:
    _matrices("linalg.svdvals", a)
    return as_tensor(np.linalg.svd(_float(a), compute_uv=False))


def _svdvals_backward(grad: np.ndarray, a: np.ndarray) -> np.ndarray:
    u, _, vh = np.linalg.svd(_float(a), full_matrices=False)
    return as_tensor((u * grad[..., None, :]) @ vh)


def _eigvalsh(self: np.ndarray, UPLO: str = "L") -> np.ndarray:  # noqa: N803 (NumPy's name)
    _matrices("linalg.eigvalsh", self)
    return as_tensor(np.linalg.eigvalsh(_float(self), UPLO=UPLO))


def _eigvalsh_backward(grad: np.ndarray, a: np.ndarray, UPLO: str) -> np.ndarray:  # noqa: N803
    """``V diag(grad) V^T`` (symmetric), folded onto the triangle ``UPLO`` the forward read:
    an element off the diagonal there stands for both mirrored ones."""
    _, v = np.linalg.eigh(_float(a), UPLO=UPLO)
    full = (v * grad[..., None, :]) @ np.swapaxes(v, -1, -2)
    keep, strict = (np.tril(full), np.tril(full, -1)) if UPLO == "L" else (
        np.triu(full), np.triu(full, 1))
    return as_tensor(keep + strict)


def _eigh(self: np.ndarray, UPLO: str = "L") -> tuple:  # noqa: N803 (NumPy's name)
    _matrices("linalg.eigh", self)
    values, vectors = np.linalg.eigh(_float(self), UPLO=UPLO)
    return as_tensor(values), as_tensor(vectors)


def _eigh_backward(grad_values: np.ndarray | None, grad_vectors: np.ndarray | None,
                   a: np.ndarray, UPLO: str) -> np.ndarray:  # noqa: N803
    """``V (diag(gL) + F o (V^T gV)) V^T`` with ``F_ij = 1 / (L_j - L_i)`` off the diagonal
    (PyTorch's ``linalg_eig_backward`` for a symmetric matrix), made symmetric and folded
    onto the triangle ``UPLO`` read. Eigenvalues must be distinct where ``gV`` is given."""
    values, v = np.linalg.eigh(_float(a), UPLO=UPLO)
    vt = np.swapaxes(v, -1, -2)
    inner = np.zeros(v.shape, dtype=v.dtype)
    if grad_vectors is not None:
        gaps = values[..., None, :] - values[..., :, None]
        n = values.shape[-1]
        with np.errstate(divide="ignore"):
            f = np.where(np.eye(n, dtype=bool), 0.0, 1.0 / np.where(np.eye(n, dtype=bool), 1.0,
                                                                      gaps))
        inner = f * (vt @ grad_vectors)
    if grad_values is not None:
        inner = inner + grad_values[..., None] * np.eye(values.shape[-1], dtype=v.dtype)
    full = v @ inner @ vt
    full = (full + np.swapaxes(full, -1, -2)) / 2
    keep, strict = (np.tril(full), np.tril(full, -1)) if UPLO == "L" else (
        np.triu(full), np.triu(full, 1))
    return as_tensor(keep + strict)


def _svd(A: np.ndarray, full_matrices: bool = True, driver: str | None = None) -> tuple:  # noqa: N803
    _matrices("linalg.svd", A)
    u, values, vh = np.linalg.svd(_float(A), full_matrices=full_matrices)
    return as_tensor(u), as_tensor(values), as_tensor(vh)


def _qr(A: np.ndarray, mode: str = "reduced") -> tuple:  # noqa: N803
    _matrices("linalg.qr", A)
    if mode not in ("reduced", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    q, r = np.linalg.qr(_float(A), mode=mode)
    return as_tensor(q), as_tensor(r)


def _pinv(a: np.ndarray, rcond: float | None = None, hermitian: bool = False) -> np.ndarray:
    _matrices("linalg.pinv", a)
    if rcond is None:
        return as_tensor(np.linalg.pinv(_float(a), hermitian=hermitian))
    return as_tensor(np.linalg.pinv(_float(a), rcond, hermitian=hermitian))


def _matrix_rank(A: np.ndarray, tol: float | None = None,  # noqa: N803
                 hermitian: bool = False) -> np.ndarray:
    return as_tensor(np.asarray(np.linalg.matrix_rank(A, tol, hermitian), np.int64))


def _lstsq(a: np.ndarray, b: np.ndarray, rcond: float | None = None) -> tuple:
    """``np.linalg.lstsq`` (its default rcond: machine precision times the larger size):
    the solution, the residuals (empty unless full rank and more rows), the rank (0-d int32,
    NumPy's LAPACK int)
    and the singular values."""
    dtype = np.result_type(a.dtype, b.dtype, np.float32)
    x, residuals, rank, values = np.linalg.lstsq(a.astype(dtype, copy=False),
                                                 b.astype(dtype, copy=False), rcond=rcond)
    return (as_tensor(x), as_tensor(residuals), as_tensor(np.asarray(rank, np.int32)),
            as_tensor(values))


def _polyfit(x: np.ndarray, y: np.ndarray, deg: int) -> np.ndarray:
    if deg < 0:
        raise ValueError("expected deg >= 0")
    return as_tensor(np.polyfit(x, y, deg))


def _triangle_indices(upper: bool):
    def body(row: int, col: int, offset: int = 0, dtype: int | None = None, layout=None,
             device=None, pin_memory=None) -> np.ndarray:
        if row < 0 or col < 0:
            raise RuntimeError(f"{'triu' if upper else 'tril'}_indices: row and col must be "
                               f"non-negative, got {row} and {col}")
        pick = np.triu_indices if upper else np.tril_indices
        return np.stack(pick(row, offset, col)).astype(np.int64)
    return body


_FACTORY = "*, ScalarType? dtype=4, Layout? layout=None, Device? device=None, " \
           "bool? pin_memory=None"
register("aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor", _cholesky)
register("aten::linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
         "(Tensor U, Tensor S, Tensor Vh)", _svd, multiple=True)
register("aten::linalg_qr(Tensor A, str mode=\"reduced\") -> (Tensor Q, Tensor R)", _qr,
         multiple=True)
register("fusejit::pinv(Tensor a, float? rcond, bool hermitian) -> Tensor", _pinv)
register("fusejit::matrix_rank(Tensor A, float? tol, bool hermitian) -> Tensor", _matrix_rank)
register("fusejit::lstsq(Tensor a, Tensor b, float? rcond) -> (Tensor solution, "
         "Tensor residuals, Tensor rank, Tensor singular_values)", _lstsq, multiple=True)
register("fusejit::polyfit(Tensor x, Tensor y, int deg) -> Tensor", _polyfit)
register("aten::linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", _svdvals)
register("fusejit::svdvals_backward(Tensor grad, Tensor A) -> Tensor", _svdvals_backward)
register("aten::linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor", _eigvalsh)
register("aten::linalg_eigh(Tensor self, str UPLO=\"L\") -> (Tensor eigenvalues, "
         "Tensor eigenvectors)", _eigh, multiple=True)
register("fusejit::eigh_backward(Tensor? grad_values, Tensor? grad_vectors, Tensor A, "
         "str UPLO) -> Tensor", _eigh_backward)
register("fusejit::eigvalsh_backward(Tensor grad, Tensor A, str UPLO) -> Tensor",
         _eigvalsh_backward)
register(f"aten::triu_indices(int row, int col, int offset=0, {_FACTORY}) -> Tensor",
         _triangle_indices(True))
register(f"aten::tril_indices(int row, int col, int offset=0, {_FACTORY}) -> Tensor",
         _triangle_indices(False))
