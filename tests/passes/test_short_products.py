"""``expand_short_products``: ``a @ w`` with ``w`` a constant vector of a few floats is the sum of
its terms (views of ``a``'s channels times numbers), which the fuser puts in one kernel with
what reads the result; other products stay products. Checked against NumPy at every call
(values to the last bits BLAS may round differently, dtypes, NumPy's error for a mismatched
size), and which graphs keep ``aten::matmul``."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.parser import parse_ir
from fusejit.ir.symbols import aten, prim
from fusejit.passes.short_products import MAX_TERMS, expand_short_products


def to_gray(img):
    return img @ np.array([0.299, 0.587, 0.114])


def to_gray_bytes(img):
    g = np.dot(img.astype(np.float32), np.array([0.2126, 0.7152, 0.0722], dtype=np.float32))
    return np.clip(np.round(g), 0, 255).astype(np.uint8)


def single_precision_by_double(img):
    return np.tanh(img.astype(np.float32) @ np.array([0.5, -0.25, 0.25]))


def mixed_rows(x, gain):
    return gain * (x @ np.array([1.0, -2.0, 0.5, 0.25, 3.0])) + 1.0


def eight_terms(x):
    return x @ np.array([-1.0, 0.75, -0.5, 0.25, 0.0, 0.125, 2.0, 1e-3], dtype=np.float32)


def of_integers(x):
    return x @ np.array([0.5, 1.0, 2.0])


RNG = np.random.default_rng(11)
IMG = RNG.uniform(0.0, 255.0, (40, 50, 3))


@pytest.mark.parametrize("fn, args, rtol", [  # (a sum's own rounding: its terms' size)
    (to_gray, (IMG,), 1e-15),
    (to_gray, (IMG.astype(np.float32),), 1e-15),     # (float32 @ float64: a float64 product)
    (to_gray_bytes, (IMG,), 0),
    (single_precision_by_double, (IMG / 255.0,), 1e-15),
    (mixed_rows, (RNG.standard_normal((7, 300, 5)), 0.5), 1e-14),
    (eight_terms, (RNG.standard_normal((500, MAX_TERMS)).astype(np.float32),), 1e-5),
    (of_integers, (np.arange(18).reshape(6, 3),), 0),      # (cast to float64 first)
], ids=["gray", "float32-by-float64", "bytes", "cast-first", "rank-3", "eight-float32",
        "int64"])
def test_products_with_a_short_constant_vector_are_numpys(fn, args, rtol):
    jitted = fusejit.jit(fn)
    want = fn(*args)
    for _ in range(3):
        got = jitted(*args)
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol and rtol * 10)
    graph = jitted.graph_for(*args)
    kinds = [n.kind for n in graph.nodes()]
    assert aten.matmul not in kinds and kinds.count(prim.FusionGroup) == 1


def test_a_mismatched_inner_size_raises_numpys_error():
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        to_gray(IMG[..., :2])
    jitted = fusejit.jit(to_gray)
    for _ in range(3):
        with pytest.raises(fusejit.FusejitError, match="mismatch in its core dimension 0"):
            jitted(IMG[..., :2].copy())
        with pytest.raises(fusejit.FusejitError, match="mismatch in its core dimension 0"):
            jitted(np.ones((4, 5)))
    np.testing.assert_allclose(jitted(IMG), to_gray(IMG), rtol=1e-15)


def by_argument(x, w):
    return x @ w


def nine_terms(x):
    return x @ np.ones(MAX_TERMS + 1)


def by_matrix(x):
    return x @ np.array([[1.0, 0.5], [0.0, 2.0], [1.0, 1.0]])


def of_a_vector(x):
    return x @ np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("fn, args", [
    (by_argument, (RNG.standard_normal((6, 3)), RNG.standard_normal(3))),
    (nine_terms, (RNG.standard_normal((6, MAX_TERMS + 1)),)),
    (by_matrix, (RNG.standard_normal((6, 3)),)),
    (of_a_vector, (RNG.standard_normal(3),)),
], ids=["argument", "nine", "matrix", "rank-1"])
def test_other_products_stay_products(fn, args):
    """A vector that is an argument, longer than ``MAX_TERMS``, a matrix, or a vector by the
    vector (a number): products as before, with NumPy's values."""
    jitted = fusejit.jit(fn)
    for _ in range(2):
        np.testing.assert_allclose(jitted(*args), fn(*args), rtol=1e-15)
    kinds = {n.kind for n in jitted.graph_for(*args).all_nodes()}
    assert kinds & {aten.matmul, aten.mm}


def test_the_pass_leaves_a_product_of_two_arguments_alone():
    graph = parse_ir("""graph(%a : Double(*, *), %b : Double(*)):
  %p : Double(*) = aten::matmul(%a, %b)
  return (%p)""")
    assert not expand_short_products(graph)
