"""The NumPy functions of ``frontend/numpy_arrays.py``, ``numpy_linalg.py`` and ``einsum.py``
in ``@fusejit.jit`` against NumPy itself: values, shapes and dtypes, over the forms users
write (implicit einsum outputs, advanced indices NumPy places first, offsets, mixed dtypes);
and the errors that name the line. Their gradients are checked in
``tests/autodiff/test_stranger_grads.py`` and ``test_array_rules_gradcheck.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit
from tests.matrix import halved

from .numpy_programs import assert_same as _same

R = np.random.default_rng(1)
a, b, c = R.standard_normal((3, 4)), R.standard_normal((4, 2)), R.standard_normal((2, 3, 4))
i2, j2 = np.array([[0, 2], [1, 1]]), np.array([3, 0])

CASES = {
 "einsum implicit": (lambda a, b: np.einsum('ij,jk', a, b), (a, b)),
 "einsum ba": (lambda a: np.einsum('ba', a), (a,)),
 "einsum 3 ops": (lambda a, b: np.einsum('i,ij,j->', a[:, 0], a, b[:, 0]), (a, b)),
 "einsum mixed dtypes": (lambda a, b: np.einsum('ij,jk->ik', a.astype(np.float32), b), (a, b)),
 "einsum f32": (lambda a, b: np.einsum('ij,jk->ki', a, b), (a.astype(np.float32), b.astype(np.float32))),
 "einsum bcast size1": (lambda a, b: np.einsum('ij,ij->i', a, b), (a, a[:1])),
 "index 2d idx": (lambda a, i: a[i], (a, i2)),
 "index pair bcast": (lambda a, i, j: a[i, j], (a, i2, j2)),
 "index nonadjacent": (lambda c, j: c[0, :, j], (c, j2)),
 "index adjacent": (lambda c, j: c[:, 1, j], (c, j2)),
 "index int array and slice": (lambda c, j: c[1:, j, ::2], (c, j2 % 3)),
 "diag -1": (lambda v: np.diag(v, -1), (a[0],)),
 "trace 3d": (lambda c: np.trace(c, -1, 1, 2), (c,)),
 "trace int": (lambda i: np.trace(i), (i2,)),
 "trace method": (lambda a, b: (a @ b @ b.T).trace(1), (a, b)),
 "diagonal method 3d": (lambda c: c.diagonal(0, 2, 1), (c,)),
 "np.diagonal offset": (lambda a: np.diagonal(a, -1), (a,)),
 "clip arrays f32": (lambda a, lo: np.clip(a, lo, 0.5), (a.astype(np.float32), -np.abs(a))),
 "tril 3d": (lambda c: np.tril(c, 1), (c,)),
 "T 3d": (lambda c: c.T, (c,)),
 "logaddexp int": (lambda i: np.logaddexp(i, 1), (i2,)),
 "hypot f32": (lambda a: np.hypot(a, 2.0), (a.astype(np.float32),)),
 "sort int": (lambda i: np.sort(i, axis=0), (i2,)),
 "sort axis 0": (lambda a: np.sort(a, axis=0), (a,)),
 "sort 3d middle axis": (lambda c: np.sort(c, axis=1) + np.sort(c, axis=-1)[..., :3, :], (c,)),
 "partition": (lambda c: np.partition(c, 2), (c,)),
 "partition kth list axis 0": (lambda c: np.partition(c, [0, -1], axis=0), (c,)),
 "partition flat int": (lambda i: np.partition(i, 1, axis=None), (i2,)),
 "argpartition f32": (lambda a: np.argpartition(a, (1, 2)), (a.astype(np.float32),)),
 "argpartition axis None": (lambda c: np.argpartition(c, 5, axis=None), (c,)),
 "quantile axis 1": (lambda a: np.quantile(a, 0.3, axis=1), (a,)),
 # (|det| is 1e400: out of float64's range, and det's log with it)
 "slogdet past det's range": (lambda m: np.linalg.slogdet(m * 100.0)[1],
                              (R.standard_normal((200, 200)) + 4 * np.eye(200),)),
 "slogdet f32 stack": (lambda c: np.linalg.slogdet(c[:, :, :3]), (c.astype(np.float32),)),
 "median even": (lambda a: np.median(a, axis=1), (a,)),
 "pad 2d": (lambda a: np.pad(a, 2), (a,)),
 "sliding windows mean": (lambda v: np.lib.stride_tricks.sliding_window_view(v, 3).mean(
     axis=-1), (R.standard_normal(10),)),
 "sliding windows 2d f32": (lambda c: np.lib.stride_tricks.sliding_window_view(c[0], (2, 3)),
                            (c.astype(np.float32),)),
 "sliding windows axes": (lambda c: np.lib.stride_tricks.sliding_window_view(
     c, (2, 2), axis=(2, 0)), (c,)),
 "ix_ lists": (lambda a: a[np.ix_([0, 2], [3, 1, 1])], (a,)),
 "ix_ arrays": (lambda c, j: c[np.ix_(j, j, np.array([0, 3]))], (c, np.array([1, 0]))),
 "pad edge": (lambda a: np.pad(a, ((1, 2), (0, 3)), mode="edge"), (a,)),
 "pad wrap past the length": (lambda v: np.pad(v, (5, 9), mode="wrap"), (a[0],)),
 "pad reflect past the length f32": (lambda c: np.pad(c, 7, mode="reflect"),
                                     (c.astype(np.float32),)),
 "pad symmetric int": (lambda i: np.pad(i, ((3, 1), (2, 5)), mode="symmetric"), (i2,)),
 "pad reflect one element": (lambda v: np.pad(v[:1], 2, mode="reflect"), (a[0],)),
 "repeat none": (lambda a: np.repeat(a, 3), (a,)),
 "tile short reps": (lambda c: np.tile(c, 2), (c,)),
 "squeeze all": (lambda a: a[:1, None].squeeze(), (a,)),
 "take negative": (lambda a: np.take(a, np.array([-1, 3])), (a,)),
 "norm -inf": (lambda v: np.linalg.norm(v, -np.inf), (a[0],)),
 "tensordot 0": (lambda a, b: np.tensordot(a[0], b[:, 0], axes=0), (a, b)),
 "moveaxis one": (lambda c: np.moveaxis(c, 0, -1), (c,)),
 "moveaxis two": (lambda c: np.moveaxis(c, [0, 1], [-1, -2]) * 2, (c,)),
 "ravel F": (lambda a: np.ravel(a, order="F"), (a,)),
 "ravel F of a view": (lambda c: np.ravel(c.transpose(1, 0, 2), "F"), (c,)),
 "reshape F method": (lambda c: c.reshape(4, 6, order="F"), (c,)),
 "reshape F function": (lambda a: np.reshape(a, (2, -1), order="F"), (a,)),
 "dstack matrices": (lambda a: np.dstack([a, a * 2]), (a,)),
 "dstack vectors": (lambda a: np.dstack((a[0], a[1])), (a,)),
 "signbit zeros nans": (lambda z: np.signbit(z), (np.array([0.0, -0.0, np.nan, -np.nan, -np.inf, 2.0]),)),
 "signbit ints": (lambda i: np.signbit(i - 1), (i2,)),
 "copysign nan sign": (lambda z: np.copysign(np.ones_like(z), z), (np.array([np.nan, -np.nan, -0.0, 0.0]),)),
 "copysign int zero": (lambda i: np.copysign(i - 1, -1), (i2,)),
 "fix floats": (lambda a: np.fix(a * 3), (a,)),
 "fix negative halves": (lambda z: np.fix(z), (np.array([-0.5, 0.5, -1.5, np.inf, -np.inf, np.nan]),)),
 "fix ints": (lambda i: np.fix(i - 1), (i2,)),
 "geomspace": (lambda: np.geomspace(1, 1000, 4), ()),
 "geomspace negative no end": (lambda: np.geomspace(-2.0, -50.0, 7, endpoint=False), ()),
 "geomspace of array ends": (lambda a: np.geomspace(abs(a[0, 0]), abs(a[0, 1]), 6), (a,)),
 "indices": (lambda: np.indices((3, 4)), ()),
 "indices float32": (lambda: np.indices((2, 3, 2), dtype=np.float32), ()),
 "indices of a shape": (lambda c: np.indices(c.shape)[1] * c, (c,)),
 "masked then sliced": (lambda a: a[a > 0][::2].sum(), (a,)),
 "masked then indexed": (lambda a: a[a > 0][-1], (a,)),
 "masked rows then a column": (lambda a: a[a[:, 0] > -5][:, 1], (a,)),
 "delete one": (lambda a: np.delete(a, 2), (a,)),
 "delete a list along an axis": (lambda a: np.delete(a, [0, -1], axis=1), (a,)),
 "delete negative": (lambda a: np.delete(a[0], -1), (a,)),
 "insert a number": (lambda a: np.insert(a[0], 2, 99.0), (a,)),
 "insert a vector before the last": (lambda a: np.insert(a[0], -1, [7.0, 8.0]), (a,)),
 "insert cast to ints": (lambda i: np.insert(i, 0, 2.7), (i2,)),
 "insert a column": (lambda a: np.insert(a, 1, 0.0, axis=1), (a,)),
 "insert at the end": (lambda a: np.insert(a, 3, 5.0, axis=0), (a,)),
 "modf": (lambda z: np.modf(z), (np.array([-3.0, -2.5, -0.5, -0.0, 0.5, np.inf, -np.inf, np.nan]),)),
 "modf f32": (lambda a: np.modf(a.astype(np.float32) * 3), (a,)),
 "modf ints": (lambda i: np.modf(i - 1), (i2,)),
 "ravel_multi_index": (lambda i: np.ravel_multi_index((i[0], i[1]), (10, 10)), (i2,)),
 "ravel_multi_index 3": (lambda i: np.ravel_multi_index((i[0], i[1], i[0]), (6, 10, 7)), (i2,)),
 "trim_zeros": (lambda t: np.trim_zeros(t), (np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0]),)),
 "trim_zeros front": (lambda t: np.trim_zeros(t, "f"), (np.array([0.0, 1.0, 0.0, 2.0, 0.0]),)),
 "trim_zeros back": (lambda t: np.trim_zeros(t, trim="b"), (np.array([0.0, 1.0, 2.0, 0.0]),)),
 "trim_zeros all zero": (lambda t: np.trim_zeros(t * 0.0), (np.array([0.0, 1.0]),)),
 "slice bounds of 0-d arrays": (lambda a, i: a[0, i[0, 0]:i[0, 1] + 1], (a, i2)),
 "slogdet field": (lambda c: np.linalg.slogdet(c[:, :, :3]).logabsdet, (c,)),
 "eigh field": (lambda a: np.linalg.eigh(a[:, :3].T @ a[:, :3]).eigenvalues, (a,)),
 "svd field": (lambda a: np.linalg.svd(a).S, (a,)),
 "qr field": (lambda a: np.linalg.qr(a).R, (a,)),
 "repeat counts list": (lambda a: np.repeat(a[0], [1, 0, 2, 3]), (a,)),
 "repeat counts array along an axis": (lambda a, i: np.repeat(a, i[0] + 1, axis=1), (a, np.array([[0, 2, 1, 0]]))),
 "repeat counts rows": (lambda a: np.repeat(a, [2, 0, 1], axis=0), (a,)),
 "repeat counts flattened": (lambda a: np.repeat(a, np.arange(12) % 3), (a,)),
 "repeat zero counts": (lambda a: np.repeat(a[0], [0, 0, 0, 0]), (a,)),
 "tensordot every axis": (lambda a: np.tensordot(a, a, axes=([0, 1], [0, 1])), (a,)),
 "tensordot vectors": (lambda a: np.tensordot(a[0], a[1], axes=1), (a,)),
 "inner 1d 2d": (lambda a: np.inner(a[0], a), (a,)),
 "average axis0 weights": (lambda a, w: np.average(a, axis=0, weights=w), (a, np.array([1.0, 2, 3]))),
}


@pytest.mark.parametrize("name", halved(list(CASES)))
def test_matches_numpy(name: str) -> None:
    f, args = CASES[name]
    got, want = fusejit.jit(f)(*args), f(*args)
    # (a 0-d array stays one, a NumPy scalar one, NumPy's named tuple its own: SlogdetResult)
    assert type(got) is type(want)
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def gather(x, i):
    return x[i]


def wrong_output(x):
    return np.einsum('ij,jk->iz', x, x)


def _slogdet(s):
    return np.linalg.slogdet(s)


def _eigh(s):
    return np.linalg.eigh(s)


def _svd(x):
    return np.linalg.svd(x)


def _qr(x):
    return np.linalg.qr(x)


def test_linalg_results_are_numpys_named_tuples() -> None:
    """np.linalg.slogdet, eigh, svd and qr return NumPy's named tuples (SlogdetResult...),
    whose fields read by name outside the function and inside it."""
    s = a[:, :3].T @ a[:, :3] + np.eye(3)
    for f, args in ((_slogdet, (s,)), (_eigh, (s,)), (_svd, (a,)), (_qr, (a,))):
        got, want = fusejit.jit(f)(*args), f(*args)
        assert type(got) is type(want) and got._fields == want._fields
        for field in want._fields:
            np.testing.assert_allclose(np.abs(getattr(got, field)), np.abs(getattr(want, field)),
                                       rtol=1e-10, atol=1e-12)


def test_moveaxis_and_geomspace_refuse_as_numpy_does() -> None:
    with pytest.raises(fusejit.FusejitError, match="out of bounds"):
        fusejit.jit(lambda c: np.moveaxis(c, 3, 0))(c)
    with pytest.raises(fusejit.FusejitError, match="repeated axis"):
        fusejit.jit(lambda c: np.moveaxis(c, [0, 0], [1, 2]))(c)
    with pytest.raises(fusejit.FusejitError):
        fusejit.jit(lambda a: np.insert(a[0], 5, 1.0))(a)
    with pytest.raises(fusejit.FusejitError):
        fusejit.jit(lambda a: np.delete(a[0], 4))(a)
    with pytest.raises(fusejit.FusejitError):
        fusejit.jit(lambda i: np.ravel_multi_index((i[0], i[1]), (2, 2)))(i2 + 1)
    with pytest.raises(fusejit.FusejitError, match="length of the repeated axis"):
        fusejit.jit(lambda a: np.repeat(a[0], [1, 2]))(a)
    with pytest.raises(fusejit.FusejitError, match="negative"):
        fusejit.jit(lambda a: np.repeat(a[0], [1, -1, 2, 0]))(a)
    with pytest.raises(fusejit.FusejitError, match="cannot include zero"):
        fusejit.jit(lambda a: np.geomspace(a[0, 0] * 0.0, 8.0, 3))(a)


def test_an_index_out_of_range_is_an_error_naming_the_line() -> None:
    with pytest.raises(fusejit.FusejitError, match="index 3 is out of bounds") as error:
        fusejit.jit(gather)(np.ones((3, 2)), np.array([0, 3]))
    assert "test_numpy_arrays.py:" in str(error.value)


def test_bad_einsum_subscripts_are_named() -> None:
    with pytest.raises(fusejit.FusejitError, match=r"np.einsum\('ij,jk->iz'\): the output"):
        fusejit.jit(wrong_output)(np.ones((3, 3)))


def positions(v, m):
    return np.nonzero(v > 0)[0], np.where(v < 0), np.flatnonzero(m), np.nonzero(m)


def test_nonzero_positions_are_numpys_arrays():
    """np.nonzero of a vector (and np.where of one condition, np.flatnonzero of any array):
    one contiguous int64 array, as NumPy's; of a matrix, one array per axis."""
    v, m = R.standard_normal(50), R.standard_normal((4, 5)) > 0
    got, want = fusejit.jit(positions)(v, m), positions(v, m)
    flat = [got[0], *got[1], got[2], *got[3]]
    for g, w in zip(flat, [want[0], *want[1], want[2], *want[3]]):
        assert g.dtype == w.dtype == np.int64
        np.testing.assert_array_equal(g, w)
    assert all(g.flags.c_contiguous for g in flat[:3])


S3 = R.standard_normal((3, 5, 5))
LINALG = {
    "svd": (lambda a: np.linalg.svd(a), (a,)),
    "svd stack reduced": (lambda s: np.linalg.svd(s, full_matrices=False), (S3,)),
    "svd int": (lambda i: np.linalg.svd(i), (i2,)),
    "qr complete f32": (lambda a: np.linalg.qr(a.T, mode="complete"), (a.astype(np.float32),)),
    "qr r": (lambda s: np.linalg.qr(s, mode="r"), (S3,)),
    "pinv": (lambda a: np.linalg.pinv(a), (a,)),
    "pinv rcond stack": (lambda s: np.linalg.pinv(s, rcond=0.5), (S3,)),
    "matrix_rank": (lambda s: (np.linalg.matrix_rank(s), np.linalg.matrix_rank(s[0], tol=0.5)),
                    (S3,)),
    "matrix_rank zero": (lambda a: np.linalg.matrix_rank(a * 0.0), (a,)),
    "lstsq overdetermined": (lambda a, v: np.linalg.lstsq(a.T, v, rcond=None),
                             (a, R.standard_normal(4))),
    "lstsq underdetermined": (lambda a, v: np.linalg.lstsq(a, v), (a, R.standard_normal(3))),
    "lstsq f32 matrix rhs": (lambda a, m: np.linalg.lstsq(a.T, m), (a.astype(np.float32), b)),
    "polyfit": (lambda v: np.polyfit(np.arange(4.0), v, 2), (a[0],)),
    "polyfit columns": (lambda m: np.polyfit(np.arange(4.0), m, 1), (b,)),
    "unique counts": (lambda i: np.unique(i, return_counts=True), (i2,)),
    "unique all": (lambda v: np.unique(v, return_index=True, return_inverse=True,
                                       return_counts=True), (np.round(a * 2),)),
    "unique inverse counts": (lambda v: np.unique(v, return_inverse=True, return_counts=True),
                              (np.round(c * 2),)),
    "unique inverse": (lambda i: np.unique(i, return_inverse=True), (i2,)),
    "roll pairs": (lambda c: np.roll(c, (1, -2), axis=(0, 2)), (c,)),
 "lexsort": (lambda v, i: (np.lexsort((v, i)), np.lexsort([i, v, -v])),
             (np.round(R.standard_normal(20)), R.integers(0, 4, 20))),
 "cond": (lambda s: (np.linalg.cond(s), np.linalg.cond(s[0] * 0.0)), (S3,)),
 "nanpercentile": (lambda v: (np.nanpercentile(v, 50), np.nanquantile(v, [0.1, 0.9]),
                               np.nanpercentile(v, 30, method="lower"),
                               np.nanquantile(v[:2] * np.nan, 0.5)),
                   (np.where(R.standard_normal(15) > 1, np.nan, R.standard_normal(15)),)),
 "apply_along_axis reductions": (lambda a: (
     np.apply_along_axis(np.max, 1, a), np.apply_along_axis(np.median, -1, a),
     np.apply_along_axis(np.argmin, 0, a), np.apply_along_axis(np.sum, 0, np.round(a * 8))),
     (a,)),
 "histogram2d": (lambda v, w: (*np.histogram2d(v, w, bins=3), np.histogram2d(v, w, (2, 4))[0]),
                 (R.standard_normal(30), R.standard_normal(30).astype(np.float32))),
 "histogram2d f32 ints": (lambda v, i: (*np.histogram2d(v, v[::-1], bins=2),
                                        *np.histogram2d(i, i[::-1], bins=3)),
                          (R.standard_normal(20).astype(np.float32), R.integers(0, 5, 20))),
 "median over axes": (lambda c: (np.median(c, axis=(0, 1)), np.median(c, axis=(2, 0),
                                                                     keepdims=True)), (c,)),
 "average returned": (lambda a: np.average(a, axis=0, weights=np.arange(1.0, 4.0),
                                           returned=True), (a,)),
 "average returned unweighted": (lambda c: np.average(c, axis=(0, 2), returned=True),
                                 (np.round(c * 4),)),
 "sum initial": (lambda a: (np.sum(a, initial=10.0), a.prod(axis=1, initial=2.0)), (a,)),
 "convolve lists": (lambda v: (np.convolve(v, [1.0, 2.0, 1.0], mode="same"),
                               np.correlate(v, [1.0, -1.0])), (a[0],)),
 **{f"quantile {method} {kind}": (
     lambda v, m=method: (np.quantile(v, 0.3, method=m), np.percentile(v, [10, 50, 90], method=m),
                          np.quantile(v.reshape(3, -1), 0.125, axis=1, method=m)),
     (data,))
    for method in ("linear", "lower", "higher", "nearest", "midpoint")
    for kind, data in (("f64", R.standard_normal(12)), ("f32", np.arange(12, dtype=np.float32)),
                       ("int", np.arange(12)))},
    "roll flat shifts": (lambda a: np.roll(a, (1, 2)), (a,)),
}


# Of the quantile methods' cases (each method with float64, float32 and int data), the default
# suite runs each method other than linear once and each kind of data at least once; each
# compiles its own. (Linear, NumPy's default method, runs by default in
# test_matches_numpy[quantile axis 1] and test_numpy_constructs.py's array_likes_of_numbers:
# a scalar q along an axis, a list and a tuple of q; its f64 forms here run with midpoint.)
_QUANTILES_KEPT = {"quantile lower f32", "quantile higher int", "quantile nearest f32",
                   "quantile midpoint f64"}


def _quantiles_kept(params) -> list:
    return [p if not p.values[0].startswith("quantile ") or p.values[0] in _QUANTILES_KEPT
            or p.marks else pytest.param(*p.values, marks=[pytest.mark.exhaustive], id=p.id)
            for p in params]


@pytest.mark.parametrize("name", _quantiles_kept(halved(list(LINALG))))
def test_results_of_several_arrays_match_numpy(name: str) -> None:
    """NumPy's own calls (np.linalg.svd/qr/lstsq ..., np.unique's extra arrays): each result
    exactly NumPy's, in its dtype and shape (lstsq's rank NumPy's int32)."""
    f, args = LINALG[name]
    got, want = fusejit.jit(f)(*args), f(*args)
    got, want = (got if isinstance(got, tuple) else (got,)), (
        tuple(want) if isinstance(want, tuple) else (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def singular_value_loss(a):
    u, s, vh = np.linalg.svd(a)
    return s.sum() + u.sum()


def test_a_gradient_through_a_call_with_no_rule_names_it():
    with pytest.raises(fusejit.FusejitError, match="linalg_svd"):
        fusejit.grad(singular_value_loss)(a)


def padded_sum(v, w):
    return np.sum(np.pad(v, (4, 6), mode="reflect") * w)


def test_a_padded_arrays_gradient_adds_up_where_each_element_was_copied():
    v, w = R.standard_normal(5), R.standard_normal(15)
    sources = np.pad(np.arange(5), (4, 6), mode="reflect")      # (np.pad's own positions)
    np.testing.assert_allclose(fusejit.grad(padded_sum)(v, w),
                               np.bincount(sources, weights=w, minlength=5), rtol=1e-12)


def edge_blur(img):
    p = np.pad(img, 1, mode="edge")
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) / 4.0


def test_np_pad_in_a_copying_mode_is_one_copy_with_numpys_values():
    """np.pad in 'edge', 'wrap', 'reflect', 'symmetric' is one fusejit::pad (the array
    copied in once, the ends filled from it), not a gather per padded axis (512 x 512 'edge'
    had taken ~2.9 ms against NumPy's 80 us); an empty axis raises NumPy's ValueError."""
    img = R.random((40, 30))
    jitted = fusejit.jit(edge_blur)
    for _ in range(3):
        np.testing.assert_array_equal(jitted(img), edge_blur(img))
    kinds = [n.kind for n in jitted.graph_for(img).all_nodes()]
    assert kinds.count("fusejit::pad") == 1 and "aten::index" not in kinds
    with pytest.raises(ValueError, match="empty axis"):
        np.pad(np.zeros((0, 3)), 1, mode="edge")
    with pytest.raises(fusejit.FusejitError, match="can't extend empty axis 0"):
        jitted(np.zeros((0, 3)))

def cube_roots(x, f, i, n):
    return np.cbrt(x), np.cbrt(f), np.cbrt(i), np.cbrt(n), np.cbrt(-8), np.cbrt(f[0])


def test_cbrt_is_exact_at_cubes_and_specials_and_within_numpys_ulp():
    """np.cbrt: exact at cubes (cbrt(-27.0) is -3.0, which x ** (1/3) misses by an ulp) and
    at the specials, in float32, of integers (float64) and of numbers; elsewhere the fused
    form is correctly rounded where NumPy's (the C library's) may be an ulp off
    (tests/passes/test_more_maps.py measures both against the exact root)."""
    x = np.concatenate([np.arange(-30.0, 31.0) ** 3, R.standard_normal(200) * 50,
                        [np.inf, -np.inf, np.nan, -0.0, 5e-324]])
    args = (x, x[:60].astype(np.float32), np.arange(-9, 10), 27.0)
    got, want = fusejit.jit(cube_roots)(*args), cube_roots(*args)
    for g, w in zip(got, want):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        g, w = np.atleast_1d(g), np.atleast_1d(w)
        exact = (np.round(w) == w) | ~np.isfinite(w)       # (the cubes' roots, the specials)
        np.testing.assert_array_equal(g[exact], w[exact])
        np.testing.assert_allclose(g, w, rtol=2 * np.finfo(w.dtype).eps, atol=0)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def _eigh_either(s, c):
    if c > 0:
        r = np.linalg.eigh(s)
    else:
        r = np.linalg.eigh(s * 2)
    return r


def test_a_named_result_keeps_its_type_through_an_if() -> None:
    s = a[:, :3].T @ a[:, :3] + np.eye(3)
    for c in (1.0, -1.0):
        got, want = fusejit.jit(_eigh_either)(s, c), _eigh_either(s, c)
        assert type(got) is type(want)
        np.testing.assert_allclose(got.eigenvalues, want.eigenvalues, rtol=1e-10)


def clipped_in_place(x, v, vmax, steps):
    for _ in range(steps):
        v += -0.1 * x
        np.clip(v, -vmax, vmax, out=v)
        x += 0.1 * v
    y = np.empty_like(x)
    r = np.clip(x, -0.5, 0.5, out=y)
    x.clip(-0.2, 0.2, out=x)
    return x, v, y, r


def test_clip_writes_into_its_out_array_as_numpys():
    rng = np.random.default_rng(5)
    args = (rng.standard_normal(300), rng.standard_normal(300), 0.8, 12)
    want = clipped_in_place(*(np.copy(a) for a in args[:2]), *args[2:])
    got = fusejit.jit(clipped_in_place)(*args)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)
    assert np.array_equal(args[0], want[0]) and np.array_equal(args[1], want[1])  # (in place)
    assert got[2] is got[3]


def test_clip_into_an_out_array_it_cannot_cast_to_is_refused_as_numpy_refuses():
    def into_ints(x):
        return np.clip(x, 0, 1, out=np.empty(x.shape, np.int64))
    with pytest.raises(fusejit.ScriptError, match=r"np.clip: cannot cast the float64 result"):
        fusejit.jit(into_ints)(np.ones(3))


def clipped_by_wide_ints(a, b):
    a[...] = np.clip(a, -2, 2)
    return a, np.clip(b, -200, 50), b.clip(None, 1000)


def clipped_above_the_dtype(a):
    return np.clip(a, 300, 400)


@pytest.mark.parametrize("n", [6, 6000])
def test_clip_of_an_int_array_by_ints_beyond_its_dtype_compares_by_value(n, monkeypatch):
    """``np.clip(uint8_array, -2, 2)``: NumPy 2 compares the Python int -2 by value (nothing
    is below it). The fused kernel took it as the uint8 254 and clipped everything to 2 (on
    the first call with ``FUSEJIT_TIERING=0``, which every call here is: the interpreter's
    kernels); a bound no element can pass is dropped, and one that leaves nothing in range
    is NumPy's OverflowError, refused. Every call, int8 too."""
    a = (np.arange(n) % 256).astype(np.uint8)
    b = (np.arange(n) % 256 - 128).astype(np.int8)
    monkeypatch.setenv("FUSEJIT_TIERING", "0")
    f = fusejit.jit(clipped_by_wide_ints)
    for _ in range(3):
        want = clipped_by_wide_ints(a.copy(), b.copy())
        for got, expected in zip(f(a.copy(), b.copy()), want):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
    with pytest.raises(fusejit.ScriptError, match="Python integer 300 out of bounds for uint8"):
        fusejit.jit(clipped_above_the_dtype)(a)


def running_totals_of_a_0d_array(a):
    return np.cumsum(a, axis=-1), np.cumprod(a, axis=0), a.cumsum(axis=0), np.cumsum(a)


def test_running_totals_of_a_0d_array_along_an_axis_are_1d_as_numpys():
    """``np.cumsum(np.array(2.5), axis=-1)`` is ``array([2.5])``: NumPy runs a 0-d array as
    1-d. fusejit returned a 0-d result (a NumPy scalar); axis 1 is NumPy's AxisError,
    refused when scripted (it was an IndexError when the interpreter ran it)."""
    f = fusejit.jit(running_totals_of_a_0d_array)
    for _ in range(3):
        _same(f(np.array(2.5)), running_totals_of_a_0d_array(np.array(2.5)))
    with pytest.raises(fusejit.ScriptError, match="axis 1 is out of bounds"):
        fusejit.jit(lambda a: np.cumprod(a, axis=1))(np.array(2.5))


def ints_rounded(x, y, z):
    return np.round(x, -1), np.round(y, -2), np.round(z, -1), x.round(2)


@pytest.mark.parametrize("n", [20, 6000])
def test_np_round_of_ints_to_tens_is_numpys(n):
    """``np.round(int_array, -1)``: NumPy divides by 10 in float64, rounds half to even,
    multiplies back and casts to the array's dtype (5 -> 0, 15 -> 20, int8 125 -> 120). It was
    refused ("takes a float array"), the fuzzer's commonest refusal. Every call; int64, int8,
    uint8; a non-negative ``decimals`` of ints is a copy."""
    rng = np.random.default_rng(0)
    x = rng.integers(-1000, 1000, n)
    x[:4] = [5, 15, 25, -35]
    y = rng.integers(-128, 127, n).astype(np.int8)
    z = (np.arange(n) * 5 % 256).astype(np.uint8)
    f = fusejit.jit(ints_rounded)
    for _ in range(3):
        _same(f(x, y, z), ints_rounded(x, y, z))


def numpy_floats_stored_into_ints(a, x):
    a[int(np.argmax(a))] = np.float32(-1.5)
    a[3] = np.float32(300.5)
    a[4] = x.mean() - 10.0          # a np.float64 known when it runs: -7.5 -> 249
    return a


def python_float_out_of_range(a):
    a[0] = -1.5
    return a


def test_numpy_float_scalars_stored_into_int_elements_wrap_as_numpys():
    """``uint8_array[k] = np.float32(-1.5)`` stores 255 in NumPy (a NumPy scalar is cast as
    an array is); fusejit's first call raised the OverflowError of the Python float -1.5, and
    the compiled calls skipped the store. A Python float out of range is NumPy's
    OverflowError. Every call."""
    f = fusejit.jit(numpy_floats_stored_into_ints)
    x = np.full(8, 2.5)
    for _ in range(3):
        a = np.arange(37).astype(np.uint8)
        np.testing.assert_array_equal(f(a.copy(), x), numpy_floats_stored_into_ints(a, x))
    with pytest.raises(fusejit.FusejitError, match="Python integer -1 out of bounds for uint8"):
        fusejit.jit(python_float_out_of_range)(np.zeros(3, np.uint8))


def sieve(limit):
    is_prime = np.ones(limit + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(math.isqrt(limit)) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = False
    return np.flatnonzero(is_prime)


def strided(x, k, j):
    return x[j::k].sum(), x[:, ::k] * 2, x[1:-1:k, j:]


def test_slice_steps_known_at_run_time_read_and_write_as_numpys():
    for n in (10, 97, 1000):
        assert np.array_equal(fusejit.jit(sieve)(n), sieve(n))
    x = np.arange(48.0).reshape(6, 8)
    run = fusejit.jit(strided)
    for k, j in ((1, 0), (2, 1), (3, 2), (9, 0)):
        for g, w in zip(run(x, k, j), strided(x, k, j)):
            assert g.shape == w.shape and np.array_equal(g, w)
    for k in (0, -2):    # (a run-time step must be positive: a negative one reverses)
        with pytest.raises(Exception, match="slice step known only at run time must be "
                                            "positive"):
            run(x, k, 0)


def bounce(height, vel, g, r, dt, steps):
    y = height.copy()
    vy = vel.copy()
    bounces = np.zeros(y.shape, dtype=np.int64)
    for _ in range(steps):
        vy -= g * dt
        y += vy * dt
        below = y < 0
        y[below] = -y[below] * r
        vy[below] *= -r
        bounces += below
    return y, vy, bounces


def selected_updates(x, v, w, k):
    m = x > 0.3
    x[m] += 0.5 * v[m] - w[m]
    x[m] = np.sqrt(x[m]) + w[m] * k
    v[m] -= 2 * x[m]
    i = (np.abs(x) * 100).astype(np.int64)
    j = np.arange(x.size) % 7
    mi = i > 10
    i[mi] = i[mi] // (j[mi] + 1) - j[mi]     # (// computed on the selection only)
    i[mi] += j[mi] * 3
    return x, v, i


def selected_rows(a, w):
    m = a[:, 0] > 0
    a[m] = a[m] * w + 1.0
    a[m] -= w
    return a


def test_values_computed_from_selections_by_the_mask_are_stored_with_a_where():
    """``y[m] = -y[m] * r``, ``x[m] += dt * v[m]``: maps of selections by the store's own
    mask (rows too, with arrays of the trailing axes) are computed over the whole arrays and
    kept where the mask holds, no selection made; an integer // stays on the selection
    (outside it the divisor could be 0). NumPy's values, NaN where NumPy has it."""
    rng = np.random.default_rng(8)
    cases = [(bounce, (rng.uniform(1, 10, 500).astype(np.float32),
                       rng.standard_normal(500).astype(np.float32), 9.81, 0.8, 0.005, 200)),
             (selected_updates, (rng.random(300), rng.random(300), rng.random(300), 0.25)),
             (selected_rows, (rng.standard_normal((40, 4)), rng.standard_normal(4)))]
    with np.errstate(invalid="ignore"):
        for fn, args in cases:
            mine = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
            theirs = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
            got, want = fusejit.jit(fn)(*mine), fn(*theirs)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True), fn.__name__
    kinds = {n.kind for n in fusejit.jit(bounce).graph_for(*cases[0][1]).all_nodes()}
    assert "aten::index" not in kinds and "aten::index_put_" not in kinds
    kinds = [n.kind for n in fusejit.jit(selected_updates).graph_for(*cases[1][1]).all_nodes()]
    assert kinds.count("aten::index_put_") == 1        # (the // store)


def contracted(a, c, spec):
    return np.einsum(spec, a, c)


def windowed_conv(x, w):
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[0], axis=1)
    return np.tensordot(win, w, axes=([2, 3], [1, 0]))


@pytest.mark.parametrize("spec, first, second", [
    ("abcd,dce->abe", (3, 7, 4, 2), (2, 4, 5)), ("abc,bcd->ad", (2, 3, 4), (3, 4, 5)),
    ("ab,bcd->acd", (2, 3), (3, 4, 5)), ("abc,bc->a", (2, 3, 4), (3, 4)),
    ("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5)), ("bij,bjk->bik", (1, 3, 4), (2, 4, 5)),
    # (a summed dimension of size 1 broadcasts, as in NumPy's einsum)
    ("ij,jk->ik", (2, 1), (3, 4)), ("ijk,jkl->il", (2, 1, 3), (4, 3, 5))])
def test_einsum_over_several_summed_letters_is_one_matrix_product(spec, first, second):
    """Two operands sharing summed letters are one matmul over flattened letters (BLAS), not
    a broadcast product of every letter summed: ``tensordot(win, w, ([2, 3], [1, 0]))`` of a
    (32, 252, 64, 5) window array took 147 ms that way, NumPy 2."""
    a, c = R.standard_normal(first), R.standard_normal(second)
    jitted = fusejit.jit(contracted)
    _same(jitted(a, c, spec), contracted(a, c, spec))
    kinds = [str(n.kind) for n in jitted.graph_for(a, c, spec).all_nodes()]
    products = [k for k in kinds if k in ("aten::matmul", "aten::mm", "aten::bmm")]
    assert len(products) == 1 and "aten::sum" not in kinds, kinds
    x, w = R.standard_normal((2, 9, 3)), R.standard_normal((4, 3, 5))
    _same(fusejit.jit(windowed_conv)(x, w), windowed_conv(x, w))
