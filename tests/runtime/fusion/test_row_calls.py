"""Remembered calls of row and column kernels (``RowKernel.__call__``): a call whose signature
passed every check before goes straight to the compiled entry point, so each layout, offset and
odd input must still give NumPy's answer or the full checks' error; a plan of one operation
runs without the interpreter loop from its first call, tiering on."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import InterpreterError
from fusejit.examples import softmax
from fusejit.ir.symbols import prim
from fusejit.runtime import blas
from fusejit.runtime.fusion.row_kernel import RowKernel


def _kernel(fn, *args) -> RowKernel:
    fused = fusejit.compile(fusejit.script(fn), fuse=True, reductions=True)
    (group,) = [n for n in fused.graph_for(*args).nodes()
                if n.kind in (prim.RowReductionGroup, prim.ColumnReductionGroup)]
    return RowKernel(group)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")    # (np.matrix)
def test_remembered_calls_follow_each_calls_layout():
    """Contiguous rows, another offset with the same strides, other shapes, a broadcast
    input, sliced rows (copied, being small), each called twice (the second time from what
    the first remembered): NumPy's softmax, in fresh arrays. Inputs the kernel declines keep
    their errors after a plain array of the same shape and strides was remembered."""
    rng = np.random.default_rng(4)
    big = rng.standard_normal((7, 40)).astype(np.float32)
    kernel = _kernel(softmax, big)
    calls = [big[:6], big[1:], big[:3], np.broadcast_to(big[2], (5, 40)), big[:6, :20],
             big[1:, 20:], big[:6]]
    seen: list[np.ndarray] = []
    for x in calls + calls:
        (got,) = kernel(x)
        want = softmax(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
        assert not any(np.shares_memory(got, s) for s in (*seen, big))
        seen.append(got)
    assert len(kernel._calls) == len({(x.shape, x.strides) for x in calls})
    with pytest.raises(InterpreterError, match="non-native byte order"):
        kernel(big[:6].astype(">f4"))
    with pytest.raises(InterpreterError, match="matrix"):
        kernel(np.asmatrix(big[:6]))
    with pytest.raises(InterpreterError, match="takes 1 inputs"):
        kernel(big[:6], big[:6])
    with pytest.raises(InterpreterError, match="must be a NumPy array"):
        kernel(1.0)


def remainder_sums(x, y):
    return (x % y * 2.0).sum(axis=0)       # (integer sums are not grouped)


def test_remembered_column_call_still_reports_division_by_zero():
    """An integer remainder in a column kernel: a remembered call whose divisor holds a zero
    is caught by the kernel's flag (NumPy's answer otherwise), and ``@jit`` then raises the
    interpreted op's error."""
    rng = np.random.default_rng(6)
    x = rng.integers(-50, 50, (9, 12))
    y = rng.integers(1, 7, (9, 12))
    kernel = _kernel(remainder_sums, x, y)
    for _ in range(2):
        (got,) = kernel(x, y)
        np.testing.assert_array_equal(got, remainder_sums(x, y))
    zero = y.copy()
    zero[4, 5] = 0
    with pytest.raises(InterpreterError, match="division by zero"):
        kernel(x, zero)
    fused = fusejit.compile(fusejit.script(remainder_sums), fuse=True, reductions=True)
    np.testing.assert_array_equal(fused(x, y), remainder_sums(x, y))
    with pytest.raises(fusejit.FusejitError, match="remainder"):
        fused(x, zero)


def test_one_operation_plans_skip_the_warming_loop(monkeypatch):
    """Tiering on: a plan of one fused group runs ``SingleOperation`` from its first call (the
    native loop would never take it), not the timed full loop of a plan still warming up."""
    monkeypatch.setenv("FUSEJIT_TIERING", "1")
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "0")
    x = np.random.default_rng(2).standard_normal((3, 8)).astype(np.float32)
    fn = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    plan = fn.plan_for(fn.check_inputs([x]))
    assert plan.single is not None and plan.tier() == "reference"
    for _ in range(2):
        np.testing.assert_allclose(fn(x), softmax(x), rtol=2e-6, atol=1e-7)
    assert plan.warming == 0.0 and plan.tier() == "reference"


def product_then_map(x, y):
    return np.tanh(x @ y)


def test_only_plans_that_may_run_products_refresh_the_blas_rule(monkeypatch):
    """A plan of one group (no product inside) skips ``blas.refresh``; one with a product
    still refreshes the rule its product reads."""
    refreshed: list[int] = []
    monkeypatch.setattr(blas, "refresh", lambda: refreshed.append(1))
    x = np.random.default_rng(3).standard_normal((3, 8)).astype(np.float32)
    grouped = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    np.testing.assert_allclose(grouped(x), softmax(x), rtol=2e-6, atol=1e-7)
    assert not refreshed and not grouped.plan_for([x]).products
    # (two operations, none a product: a row group and its aten::Int)
    counted = fusejit.compile(fusejit.script(count_positive), fuse=True, reductions=True)
    assert counted(x) == count_positive(x)
    assert not refreshed and not counted.plan_for([x]).products
    product = fusejit.compile(fusejit.script(product_then_map), fuse=True, reductions=True)
    np.testing.assert_allclose(product(x, x.T), product_then_map(x, x.T), rtol=1e-5)
    assert refreshed and product.plan_for([x, x.T]).products


def count_positive(x):
    return np.count_nonzero(x > 0)


def test_quick_calls_take_only_inputs_exactly_like_the_last_ones():
    """A kernel repeats its last call for inputs of the same dtype (by identity), shape and
    strides (``fusion/quick.py``), at any offset; other inputs, an equal dtype of another
    identity and inputs the kernel declines go the full way: NumPy's softmax each time, in
    fresh arrays, or the checks' error. A compiled function whose plan is that one group
    calls it the same way (``remembered.py``), and still sees each input that changes."""
    rng = np.random.default_rng(7)
    big = rng.standard_normal((7, 40)).astype(np.float32)
    kernel = _kernel(softmax, big)
    kernel(big[:6])
    quick = kernel._quick
    assert quick is not None and quick((big[:5],)) is None and quick((big[:6, :20],)) is None
    assert quick((big[:6].astype(big.dtype.newbyteorder(">")),)) is None
    tagged = big[:6].view(np.dtype(np.float32, metadata={"tag": 1}))
    assert tagged.dtype == big.dtype and quick((tagged,)) is None
    seen: list[np.ndarray] = []
    for x in (big[1:], big[:6], big[:5], big[:6, :20], tagged, big[1:], big[:6]):
        (got,) = kernel(x)
        np.testing.assert_allclose(got, softmax(x), rtol=2e-6, atol=1e-7)
        assert got.shape == x.shape and not np.shares_memory(got, big)
        assert not any(np.shares_memory(got, s) for s in seen)
        seen.append(got)
    with pytest.raises(InterpreterError, match="non-native byte order"):
        kernel(big[:6].astype(">f4"))
    fn = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    for x in (big[:6], big[:6], big[1:], big[:5], big[:6, :20], big[:6]):
        np.testing.assert_allclose(fn(x), softmax(x), rtol=2e-6, atol=1e-7)
    group = fn.plan_for([big]).single.group()
    assert group is not None and group.kernel._quick is not None
    # (a parameter it does not read: the plan drops it, and is still one operation)
    fn = fusejit.compile(fusejit.script(softmax_of_first), fuse=True, reductions=True)
    for x in (big[:6], big[:6], big[1:], big[:5], big[:6]):
        np.testing.assert_allclose(fn(x, big), softmax(x), rtol=2e-6, atol=1e-7)
    assert fn.plan_for([big, big]).single.group() is not None


def softmax_of_first(x, unused):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
