"""``rolls_as_views``: the rolls of one array, as ``@fusejit.jit`` runs them, become windows of
one wrapped copy of it (``fusejit::wrap_pad``) that the kernels read, with NumPy's values for
every shift (beyond the length, negative, zero), rank, dtype and nesting; rolls that are
written into or returned stay copies; and the whole-graph size bound sees a roll as its
array's shape."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import aten, prim
from fusejit.oplib import OPS
from fusejit.runtime.array_bounds import made_elements
from tests.runtime.conftest import scripted


def _kinds(graph) -> list:
    kinds = []
    for node in graph.all_nodes():
        kinds.append(str(node.kind))
        if node.kind == prim.FusionGroup:
            kinds += [str(n.kind) for n in node.g("Subgraph").nodes()]
    return kinds


def neighbours(b):
    return (np.roll(b, 1, 0) + np.roll(b, -1, 0) + np.roll(b, 1, 1) + np.roll(b, -1, 1)
            + np.roll(np.roll(b, 1, 0), 1, 1) + np.roll(np.roll(b, -1, 0), -1, 1)
            + np.roll(np.roll(b, 1, 0), -1, 1) + np.roll(np.roll(b, -1, 0), 1, axis=-1))


def shifted(x, y):
    return np.roll(x, 3) * 2 - np.roll(x, -7) + np.roll(x, 0) * y + np.roll(y, 25)


@pytest.mark.parametrize("shape", [(7, 5), (1, 9), (2, 2), (64, 33)])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float32])
def test_a_stencil_of_rolls_reads_one_wrapped_copy_with_numpys_values(shape, dtype):
    b = (np.random.default_rng(3).random(shape) * 4).astype(dtype)
    jitted = fusejit.jit(neighbours)
    kinds = _kinds(jitted.graph_for(b))
    assert kinds.count("fusejit::wrap_pad") == 1 and str(aten.cat) not in kinds
    got, want = jitted(b), neighbours(b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_shifts_past_the_length_negative_and_zero(n):
    """Shifts of 3, -7, 0 and 25 of vectors down to one element: the copy wraps round as
    often as a shift needs (np.roll's shift modulo the length)."""
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    jitted = fusejit.jit(shifted)
    assert "fusejit::wrap_pad" in _kinds(jitted.graph_for(x, y))
    np.testing.assert_allclose(jitted(x, y), shifted(x, y), rtol=1e-15)


def written_roll(x):
    r = np.roll(x, 1)
    r[0] = 7.0
    return r + np.roll(x, -1), x


def returned_roll(x):
    return np.roll(x, 2), np.roll(x, 2) * 3.0


def test_a_roll_written_into_or_returned_stays_a_copy():
    x = np.arange(6.0)
    for fn in (written_roll, returned_roll):
        jitted = fusejit.jit(fn)
        got, want = jitted(x.copy()), fn(x.copy())
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert g.flags.c_contiguous
    # (the returned one stays a cat; the one only multiplied reads the copy)
    kinds = _kinds(fusejit.jit(returned_roll).graph_for(x))
    assert str(aten.cat) in kinds


def life(board, steps: int):
    b = board.copy()
    for _ in range(steps):
        n = neighbours(b)
        b = ((n == 3) | ((b == 1) & (n == 2))).astype(np.uint8)
    return b


def test_a_loop_of_rolls_keeps_a_size_bound_and_runs_as_numpy():
    """A roll is its array's shape (as a join of two slices, each step's rolls doubled the
    bound until there was none, and the loop compiled whole at any size: 0.33x NumPy on a
    256 x 256 board)."""
    board = (np.random.default_rng(5).random((30, 20)) < 0.3).astype(np.uint8)
    bound = made_elements(scripted(life, board, 4))
    assert bound is not None and bound(board, 4) == board.size
    np.testing.assert_array_equal(fusejit.jit(life)(board, 4), life(board, 4))


@pytest.mark.parametrize("pad", [[1, 2, 0, 0], [0, 0, 3, 1], [2, 2, 2, 2], [5, 0, 0, 7]])
@pytest.mark.parametrize("shape", [(3, 4), (0, 4), (1, 1)])
def test_wrap_pad_is_nppads_wrap(shape, pad):
    """Its body against np.pad(mode="wrap"), pads past the length included; zeros along an
    empty dimension (np.pad refuses one); always a fresh array."""
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    body = OPS["fusejit::wrap_pad(Tensor self, int[] pad) -> Tensor"].numpy_body
    got = body(x, pad)
    widths = [(pad[0], pad[1]), (pad[2], pad[3])]
    if x.size:
        np.testing.assert_array_equal(got, np.pad(x, widths, mode="wrap"))
    else:
        assert got.shape == tuple(n + a + b for n, (a, b) in zip(shape, widths))
    assert not np.shares_memory(got, x)
