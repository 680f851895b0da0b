"""Views, shapes, chunking, reductions and matrix ops against hand-derived PyTorch behaviour."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fusejit.errors import SchemaError
from fusejit.ir.types import INT, ListType
from fusejit.runtime.ops import make_operation
from tests.runtime.test_ops_support import call, make_node

F32, I64 = np.float32, np.int64


def grid(rows: int = 3, cols: int = 4) -> np.ndarray:
    return np.arange(rows * cols, dtype=F32).reshape(rows, cols)


# -- views stay views ------------------------------------------------------------------------

@pytest.mark.parametrize("kind, args", [
    ("aten::t", ()), ("aten::view", ([4, 3],)), ("aten::view", ([-1],)),
    ("aten::select", (1, 2)), ("aten::reshape", ([2, 6],)), ("aten::contiguous", (0,)),
])
def test_view_ops_share_memory_with_their_input(kind: str, args: tuple) -> None:
    x = grid()
    assert np.shares_memory(call(kind, x, *args), x)


def test_chunk_pieces_are_views() -> None:
    x = grid()
    for piece in call("aten::chunk", x, 2, 1):
        assert np.shares_memory(piece, x)


def test_view_of_non_viewable_strides_is_an_error_reshape_copies() -> None:
    xt = grid().T  # (4, 3) with strides (1, 4): flattening needs a copy
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        call("aten::view", xt, [12])
    flat = call("aten::reshape", xt, [12])
    assert flat.tolist() == [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    assert not np.shares_memory(flat, xt)


@pytest.mark.parametrize("shape, message", [([5, -1], "invalid for input of size 12"),
                                            ([-1, -1], "only one dimension"),
                                            ([2, 5], "invalid for input of size 12")])
def test_view_shape_errors(shape: list, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        call("aten::view", grid(), shape)


def test_select_of_a_vector_is_a_zero_dim_view() -> None:
    v = np.arange(4, dtype=F32)
    s = call("aten::select", v, 0, -1)
    assert type(s) is np.ndarray and s.shape == () and s == 3.0
    assert np.shares_memory(s, v)
    with pytest.raises(IndexError):
        call("aten::select", v, 0, 4)


def test_expand_keeps_minus_one_and_adds_leading_dims() -> None:
    col = np.array([[1.0], [2.0]], F32)
    got = call("aten::expand", col, [3, -1, 4], False)
    assert got.shape == (3, 2, 4)
    assert got[2, 1].tolist() == [2.0] * 4
    with pytest.raises(RuntimeError, match="must match the existing size"):
        call("aten::expand", col, [3, 4], False)
    with pytest.raises(RuntimeError, match="leading, non-existing"):
        call("aten::expand", col, [-1, 2, 1], False)


def test_t_rejects_three_dims_and_contiguous_copies_only_when_needed() -> None:
    with pytest.raises(RuntimeError, match="<= 2 dimensions"):
        call("aten::t", np.zeros((1, 2, 3), F32))
    x = grid()
    assert call("aten::contiguous", x, 0) is x
    c = call("aten::contiguous", x.T, 0)
    assert c.flags.c_contiguous and c.tolist() == x.T.tolist()


# -- chunking --------------------------------------------------------------------------------

@pytest.mark.parametrize("size, chunks, sizes", [
    (6, 3, [2, 2, 2]), (7, 3, [3, 3, 1]), (5, 4, [2, 2, 1]), (6, 4, [2, 2, 2]),
    (1, 3, [1]), (0, 2, [0, 0]), (10, 1, [10]),
])
def test_chunk_sizes_follow_pytorch(size: int, chunks: int, sizes: list) -> None:
    x = np.arange(size, dtype=F32)
    pieces = call("aten::chunk", x, chunks, 0)
    assert [p.shape[0] for p in pieces] == sizes
    if size:
        assert np.concatenate(pieces).tolist() == x.tolist()


def test_constant_chunk_binds_its_attributes() -> None:
    x = grid(2, 6)
    a, b, c = call("prim::ConstantChunk", x, num_outputs=3, chunks=3, dim=1)
    assert a.tolist() == [[0, 1], [6, 7]] and c.tolist() == [[4, 5], [10, 11]]
    assert b.shape == (2, 2)


def test_constant_chunk_with_fewer_pieces_than_outputs() -> None:
    x = np.arange(5, dtype=F32)  # chunk(4) of 5 gives 3 pieces
    node = make_node("prim::ConstantChunk", x, num_outputs=4, chunks=4, dim=0)
    with pytest.raises(RuntimeError, match="at least 4"):
        make_operation(node)(x)


def test_broadcasting_chunk_broadcasts_then_chunks_each_input() -> None:
    x, y = grid(2, 4), np.array([100.0, 200.0, 300.0, 400.0], F32)
    x0, x1, y0, y1 = call("prim::BroadcastingChunk", x, y, num_outputs=4, chunks=2, dim=1)
    assert x0.tolist() == [[0, 1], [4, 5]] and x1.tolist() == [[2, 3], [6, 7]]
    assert y0.tolist() == [[100, 200], [100, 200]] and y1.shape == (2, 2)


@pytest.mark.parametrize("size, dim, chunks, regular, last", [
    ([4, 6], 1, 2, [4, 3], [4, 3]), ([4, 7], 1, 3, [4, 3], [4, 1]), ([5, 2], 0, 4, [2, 2], [1, 2]),
    ([4, 7], -1, 3, [4, 3], [4, 1]),
])
def test_chunk_sizes_prim(size, dim, chunks, regular, last) -> None:
    node = make_node("prim::ChunkSizes", size, num_outputs=2, types=[ListType(INT)], dim=dim,
                     chunks=chunks)
    assert make_operation(node)(size) == (regular, last)


@pytest.mark.parametrize("sizes, expected", [
    ([[4, 1], [3]], [4, 3]), ([[2, 3], [2, 3]], [2, 3]), ([[1], [5, 1, 2]], [5, 1, 2]),
    ([[], [3]], [3]),
])
def test_broadcast_sizes(sizes: list, expected: list) -> None:
    assert call("prim::BroadcastSizes", *sizes) == expected
    assert list(np.broadcast_shapes(*map(tuple, sizes))) == expected  # independent oracle


def test_broadcast_sizes_incompatible_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="must match"):
        call("prim::BroadcastSizes", [2, 3], [4])


def test_fused_concat_and_cat_promote() -> None:
    a, b = grid(1, 2), np.array([[7, 8]], I64)
    got = call("prim::FusedConcat", a, b, dim=0)
    assert got.dtype == F32 and got.tolist() == [[0, 1], [7, 8]]
    assert call("aten::cat", [a, b], 1).tolist() == [[0, 1, 7, 8]]
    # PyTorch still skips legacy empty 1-D tensors
    assert call("aten::cat", [np.zeros(0, F32), a], 0).tolist() == [[0, 1]]
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        call("aten::cat", [a, grid(2, 3)], 0)


def test_broadcast_tensors() -> None:
    a, b = np.ones((2, 1), F32), np.arange(3, dtype=F32)
    x, y = call("aten::broadcast_tensors", [a, b])
    assert x.shape == y.shape == (2, 3) and y[1].tolist() == [0, 1, 2]


@pytest.mark.parametrize("shapes", [[(2, 3), (2, 3)], [(4, 5), (5,)], [(3, 1), (3, 1)],
                                    [(2, 3, 4), (3, 4), (2, 3, 4)]])
def test_broadcast_tensors_gives_numpys_read_only_views(shapes) -> None:
    rng = np.random.default_rng(0)
    tensors = [rng.standard_normal(shape).astype(F32) for shape in shapes]
    tensors[0] = tensors[0].T.copy().T            # (a non-contiguous layout where it can)
    got = call("aten::broadcast_tensors", tensors)
    for g, w, t in zip(got, np.broadcast_arrays(*tensors), tensors):
        assert g.shape == w.shape and not g.flags.writeable
        np.testing.assert_array_equal(g, w)
        assert np.shares_memory(g, t)
        if 1 not in w.shape:
            assert g.strides == w.strides


def test_grad_sum_to_size_keeps_numpys_sum_dtypes() -> None:
    for dtype in (np.float32, np.float64, np.int32, np.bool_):
        x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
        got = call("aten::_grad_sum_to_size", x, [1, 4])
        want = np.sum(x, axis=0, keepdims=True)
        assert got.dtype == want.dtype and got.shape == (1, 4)
        np.testing.assert_array_equal(got, want)


# -- reductions and products -----------------------------------------------------------------

def test_sum_variants() -> None:
    x = grid()
    assert call("aten::sum", x, None).tolist() == 66.0
    assert call("aten::sum", x, [1], True, None).tolist() == [[6.0], [22.0], [38.0]]
    assert call("aten::sum", x, [0, -1], False, None).shape == ()
    ints = call("aten::sum", np.array([True, True, False]), None)
    assert ints.dtype == I64 and ints == 2
    as_double = call("aten::sum", x, [0], False, 7)  # 7 is ScalarType Double
    assert as_double.dtype == np.float64
    with pytest.raises(RuntimeError, match="appears multiple times"):
        call("aten::sum", x, [1, -1], False, None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_reductions_are_numpys_to_the_bit(dtype) -> None:
    # (float sum, mean, amax and amin call NumPy's reductions without its Python wrappers)
    x = np.random.default_rng(3).uniform(-1, 1, 1001).astype(dtype)
    for got, want in ((call("aten::sum", x, None), np.sum(x)),
                      (call("aten::sum", x.reshape(7, 143), [1], True, None),
                       np.sum(x.reshape(7, 143), axis=1, keepdims=True)),
                      (call("aten::mean", x, None), np.mean(x)),
                      (call("aten::mean", x[:1], None), np.mean(x[:1])),
                      (call("aten::amax", x, [], False), np.max(x)),
                      (call("aten::amin", x.reshape(7, 143), [0], True),
                       np.min(x.reshape(7, 143), axis=0, keepdims=True))):
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


def test_grad_sum_to_size_is_the_inverse_of_broadcasting() -> None:
    x = np.ones((2, 3, 4), F32)
    assert call("aten::_grad_sum_to_size", x, [3, 1]).tolist() == [[8.0]] * 3
    assert call("aten::_grad_sum_to_size", x, None) is x
    with pytest.raises(RuntimeError, match="not expandable"):
        call("aten::_grad_sum_to_size", x, [5])


def test_softmax_rows_sum_to_one_and_match_the_formula() -> None:
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]], F32)
    got = call("aten::softmax", x, 1, None)
    row = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    assert got[0].tolist() == pytest.approx([v / sum(row) for v in row], rel=1e-6)
    assert got[1].tolist() == pytest.approx([1 / 3] * 3)  # no overflow


def test_mm_and_matmul() -> None:
    a, b = grid(2, 3), grid(3, 2)
    expected = [[sum(a[i, k] * b[k, j] for k in range(3)) for j in range(2)] for i in range(2)]
    assert call("aten::mm", a, b).tolist() == expected
    assert call("aten::matmul", a, b[:, 0].copy()).tolist() == [row[0] for row in expected]
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        call("aten::mm", a, a)
    with pytest.raises(RuntimeError, match="same dtype"):
        call("aten::mm", a, b.astype(np.float64))


def test_size_dim_numel_item_and_conversions() -> None:
    x = grid()
    assert call("aten::size", x) == [3, 4] and call("aten::size", x, -1) == 4
    assert call("aten::dim", x) == 2 and call("aten::numel", x) == 12
    with pytest.raises(IndexError, match="Dimension out of range"):
        call("aten::size", x, 2)
    z = np.array(2.75, F32)
    assert call("aten::item", z) == 2.75 and type(call("aten::item", z)) is float
    assert call("aten::Int", z) == 2 and call("aten::Float", np.array(3, I64)) == 3.0
    assert call("aten::Bool", np.array([0.0], F32)) is False
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        call("aten::item", x)
    t = call("prim::NumToTensor", 2.5)
    assert t.dtype == np.float64 and t.shape == ()
    assert call("prim::NumToTensor", 3).dtype == I64
    assert call("aten::zeros_like", x).tolist() == np.zeros((3, 4)).tolist()
    assert call("aten::ones_like", np.zeros(2, I64)).dtype == I64


def test_unknown_overload_names_kind_types_and_known_overloads() -> None:
    node = make_node("aten::mm", [1, 2], 3)
    with pytest.raises(SchemaError) as info:
        make_operation(node)
    text = str(info.value)
    assert "aten::mm(int[], int)" in text and "aten::mm(Tensor self, Tensor mat2)" in text


@pytest.mark.parametrize("shape, count", [((7, 5), 9), ((40000,), 30000), ((20,), 6)])
def test_a_gather_by_an_int_array_is_numpys_indexing(shape, count) -> None:
    """``aten::index`` with one int array (``x[idx]``: rows by np.take, many elements by
    np.take, few by indexing) gives NumPy's values, a new C-contiguous array, and NumPy's
    IndexError for an index out of range; negative indices count from the end."""
    from fusejit.oplib.array_ops import _index

    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape)
    for dtype in (np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32,
                  np.uint64):
        signed = np.dtype(dtype).kind == "i"
        top = min(shape[0], np.iinfo(dtype).max)
        idx = rng.integers(-top if signed else 0, top, count).astype(dtype)
        got = _index(x, [idx])
        np.testing.assert_array_equal(got, x[idx])
        assert got.flags.c_contiguous and not np.shares_memory(got, x)
        if shape[0] <= np.iinfo(dtype).max:
            bad = np.array([0, shape[0]], dtype)
            with pytest.raises(IndexError, match=f"index {shape[0]} is out of bounds"):
                _index(x, [bad])
    huge = np.array([2**64 - 1], np.uint64)     # (NumPy's indexing reads it as -1)
    np.testing.assert_array_equal(_index(x, [huge]), x[huge])


@pytest.mark.parametrize("value", [np.array(5), np.array(-3, np.int8), np.array(200, np.uint8),
                                   np.array(True), np.array(2.5), np.array(-0.0, np.float32),
                                   np.array([7]), np.array([[1.5]])])
def test_tensor_to_number_conversions_are_pythons_of_the_element(value) -> None:
    """aten::Int/Float/Bool of a one-element array: Python's int/float/bool of its element
    (0-d arrays take a shorter path); a float Int truncates, and a non-finite one raises."""
    from fusejit.oplib.tensor import _tensor_to_bool, _tensor_to_float, _tensor_to_int

    element = value.reshape(()).item()
    got = _tensor_to_int(value)
    assert type(got) is int and got == int(element)
    got = _tensor_to_float(value)
    assert type(got) is float and got == float(element)
    assert math.copysign(1.0, got) == math.copysign(1.0, float(element))
    assert _tensor_to_bool(value) is bool(element)
    # (Python's classes: int() of an infinity is an OverflowError, of a NaN a ValueError)
    with pytest.raises(OverflowError):
        _tensor_to_int(np.array(np.inf))
    with pytest.raises(ValueError):
        _tensor_to_int(np.array(np.nan))
