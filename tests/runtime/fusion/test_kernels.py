"""Fused kernels on hand-written groups: chunks, concat along an inner dim, the parallel path
with tiling and strided inputs, 0-size inputs, and clear errors for bad groups and shapes."""

from __future__ import annotations

import re

import numpy as np
import pytest

import fusejit
from fusejit.errors import InterpreterError, IRError
from fusejit.runtime import cores
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion import plan as plans

from .oracle import run_subgraph

CHUNK_CONCAT = """graph(%x : Float(*, *), %y : Float(*, *), %s : float):
  %one : int = prim::Constant[value=1]()
  %a : Float(*, *), %b : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%x)
  %c : Float(*, *) = aten::mul(%a, %s)
  %d : Float(*, *) = aten::add(%c, %y, %one)
  %e : Float(*, *) = aten::tanh(%b)
  %f : Float(*, *) = prim::FusedConcat[dim=1](%d, %e)
  return (%f, %d)
"""

CHAIN = """graph(%x : Float(*, *), %y : Float(*, *)):
  %one : int = prim::Constant[value=1]()
  %a : Float(*, *) = aten::mul(%x, %y)
  %b : Float(*, *) = aten::sigmoid(%a)
  %c : Float(*, *) = aten::sub(%b, %y, %one)
  %d : Float(*, *) = aten::exp(%c)
  %e : Float(*, *) = aten::log(%d)
  return (%e, %a)
"""


def _check(graph_text, *inputs, rtol=4e-6):
    graph = fusejit.parse_ir(graph_text)
    got = FusedKernel(graph)(*inputs)
    want = run_subgraph(graph, *inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 8), pytest.param((1, 2), marks=pytest.mark.exhaustive),
                                   (5, 0)])
def test_chunk_and_inner_concat(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal((shape[0], shape[1] // 2)).astype(np.float32)
    _check(CHUNK_CONCAT, x, y, 1.5)


# The parallel kernel's loops over a strip are the serial one's, whose strided and zero inner
# strides test_cached_plans_follow_strides_offsets_and_dtypes reads (and the parallel short-row
# kernel's strided rows, test_short_rows_run_the_short_row_kernel): each layout here compiles a
# parallel variant of its own (about 2 s), so the default suite runs the contiguous one.
@pytest.mark.parametrize("layout", ["contiguous"] + [
    pytest.param(layout, marks=pytest.mark.exhaustive)
    for layout in ("transposed", "row_broadcast", "step2")])
def test_parallel_path(layout, monkeypatch):
    """The parallel kernel (any work is enough here); the layouts give unit, strided and zero
    inner strides."""
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0)
    rng = np.random.default_rng(2)
    rows, cols = 96, 1024 * 2
    assert not plans.make_plan(FusedKernel(fusejit.parse_ir(CHAIN)).layout,
                               [(rows, cols)] * 2, [(cols, 1)] * 2).serial
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    y = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    if layout == "transposed":
        x = np.ascontiguousarray(x.T).T
    elif layout == "row_broadcast":
        y = np.broadcast_to(y[:, :1], (rows, cols))
    elif layout == "step2":
        x = np.repeat(x, 2, axis=1)[:, ::2]
    _check(CHAIN, x, y)


# Every way a kernel loop leaves its simple form: sine's fix-up beyond its limit, short forms
# computed again whole where a strip holds an argument outside them (log1p as the logs and
# expm1, pow), a separate vectorised pass (lgamma).
FIXUPS = """graph(%x : {t}(*), %y : {t}(*)):
  %a : Tensor = aten::sin(%x)
  %b : Tensor = aten::log1p(%x)
  %c : Tensor = aten::pow(%y, %x)
  %d : Tensor = aten::lgamma(%y)
  return (%a, %b, %c, %d)
"""


# (Double: the same fix-up passes on float64, one more pair of wide kernels: 8-11 s of compile)
@pytest.mark.parametrize("ty", ["Float", pytest.param("Double", marks=pytest.mark.exhaustive)])
def test_parallel_kernel_with_fixups_matches_the_serial_one(ty, parallel_plans):
    """Two threads (tiles of two strips) against one, bit for bit, on arguments in the fast
    forms' domains with some outside scattered through them (NaN, inf, zeros, negatives,
    subnormals, huge): only some strips are computed again, whichever thread runs them."""
    dtype = np.float32 if ty == "Float" else np.float64
    rng = np.random.default_rng(5)
    n = 9 * 1024 + 77
    x = rng.uniform(-0.9, 3.0, n).astype(dtype)
    y = rng.uniform(0.1, 5.0, n).astype(dtype)
    odd = np.array([np.nan, np.inf, -np.inf, 0.0, -2.5, 1e-40, 3e38, 1e5], dtype)
    for arr, at in ((x, rng.choice(n, 12, replace=False)), (y, rng.choice(n, 12, replace=False))):
        arr[at] = rng.choice(odd, at.size)
    graph = FIXUPS.format(t=ty)
    with np.errstate(all="ignore"):
        want = FusedKernel(fusejit.parse_ir(graph))(x, y)
        with parallel_plans(1024 + 3):
            kernel = FusedKernel(fusejit.parse_ir(graph))
            assert not kernel._prepare((x, y))[3].serial
            got = kernel(x, y)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.array_equal(g, w, equal_nan=True), f"output {k}"


def test_strided_inputs_are_read_without_gathers():
    """A kernel reading a strided row slice asks LLVM for no gathers (``vm.no_gathers``, in
    its serial and parallel kernels), one reading only unit-stride and broadcast inputs does
    not; the attribute is in the function's LLVM IR, the values are right, and on an AVX-512
    host the machine code has no gather instruction (the loads are scalar)."""
    from llvmlite import binding
    from numba import njit

    from fusejit.runtime.fusion import vecmath

    graph = fusejit.parse_ir(CHAIN)
    x = np.ones((4, 16), np.float32)
    assert fusejit.kernel_source(graph, x[:, ::2], x[:, :8]).count("vm.no_gathers()") == 2
    assert "no_gathers" not in fusejit.kernel_source(graph, x[:, :8], x[:1, :8])

    @njit(cache=False)
    def strided(x, out):
        vecmath.no_gathers()
        row = x[::3]
        for i in range(out.size):
            out[i] = row[i] * np.float32(2.0) + np.float32(1.0)

    x = np.arange(300, dtype=np.float32)
    out = np.empty(100, np.float32)
    strided(x, out)
    np.testing.assert_array_equal(out, x[::3] * 2 + 1)
    assert "+prefer-no-gather" in strided.inspect_llvm(strided.signatures[0])
    if binding.get_host_cpu_features().get("avx512f"):
        # Gather mnemonics only (vgatherdps, vpgatherqd, ...): the symbol names in the listing
        # contain this test's own name.
        asm = strided.inspect_asm(strided.signatures[0])
        assert not re.findall(r"^\s*v?p?gather\w*\s", asm, re.MULTILINE)


def test_one_dim_input_is_split_into_tiles(monkeypatch):
    """Tiles are the parallel kernel's; here by the free-core rule (plan.Plan.launch): ~1 ms
    of work, under the busy rule's SERIAL_WORK_NS, with the other core taken as free."""
    for name, value in (("_assumed", [1.0]), ("_taken", [0.0]), ("_free", [0.0])):
        monkeypatch.setattr(cores, name, value)            # (put back after the test)
    monkeypatch.setattr(plans, "FREE_WORK_NS", 0)
    x = np.linspace(-3, 3, 200_003, dtype=np.float32).reshape(1, -1)
    if plans.num_threads() > 1:
        plan = plans.make_plan(FusedKernel(fusejit.parse_ir(CHAIN)).layout, [x.shape] * 2,
                               [(x.size, 1)] * 2)
        assert plan.serial and plan.launch()[1][3] > 1    # (meta[3]: blocks of the row)
    _check(CHAIN, x, x[:, ::-1])          # a negative stride is copied first


def test_rank_one_and_zero_size():
    text = CHAIN.replace("(*, *)", "(*)")
    _check(text, np.zeros(0, np.float32), np.zeros(0, np.float32))
    _check(text, np.arange(5, dtype=np.float32), np.ones(1, np.float32))


@pytest.mark.parametrize("inputs,message", [
    ((np.ones((3, 4), np.float32), np.ones((2, 4), np.float32)), "do not broadcast"),
    ((np.ones((3, 4), np.float32),), "takes 2 inputs"),
    ((np.ones((3, 4), np.float32), 2.0), "must be a NumPy array"),
])
def test_bad_inputs_raise(inputs, message):
    kernel = FusedKernel(fusejit.parse_ir(CHAIN))
    with pytest.raises(InterpreterError, match=message):
        kernel(*inputs)


def test_uneven_chunk_raises():
    kernel = FusedKernel(fusejit.parse_ir(CHUNK_CONCAT))
    with pytest.raises(InterpreterError, match="equal chunks"):
        kernel(np.ones((2, 5), np.float32), np.ones((2, 2), np.float32), 1.0)


def test_output_smaller_than_iteration_shape_raises():
    text = """graph(%x : Float(*, *), %y : Float(*)):
  %a : Float(*) = aten::neg(%y)
  %b : Float(*, *) = aten::mul(%x, %y)
  return (%a, %b)
"""
    with pytest.raises(InterpreterError, match="output 0 has shape"):
        FusedKernel(fusejit.parse_ir(text))(np.ones((2, 3), np.float32), np.ones(3, np.float32))


def test_integer_remainder_by_zero_raises():
    text = """graph(%x : Long(*), %y : Long(*)):
  %a : Long(*) = aten::remainder(%x, %y)
  return (%a)
"""
    kernel = FusedKernel(fusejit.parse_ir(text))
    (ok,) = kernel(np.array([7, -7]), np.array([3, 3]))
    np.testing.assert_array_equal(ok, [1, 2])
    with pytest.raises(InterpreterError, match="division by zero"):
        kernel(np.array([7, -7]), np.array([3, 0]))
    # (the flag is the call's own: the next call of the same signature is not refused)
    np.testing.assert_array_equal(kernel(np.array([8, -8]), np.array([3, 3]))[0], [2, 1])


@pytest.mark.parametrize("body,message", [
    ("%a : Float(*, *) = aten::mm(%x, %x)", "cannot run in a fused kernel"),
    ("%a : Bool(*, *) = aten::gt(%x, %x)\n  %b : Bool(*, *) = aten::neg(%a)",
     "not defined for Bool"),
])
def test_bad_groups_raise(body, message):
    name = "%b" if "%b" in body else "%a"
    text = f"graph(%x : Float(*, *)):\n  {body}\n  return ({name})\n"
    with pytest.raises(IRError, match=message):
        FusedKernel(fusejit.parse_ir(text))(np.ones((2, 2), np.float32))


TYPE_AS_OTHER = """graph(%x : Tensor, %like : Tensor):
  %e : Tensor = aten::exp(%x)
  %n : Tensor = aten::neg(%like)
  %t : Tensor = aten::type_as(%e, %n)
  return (%t)
"""


@pytest.mark.parametrize("x_shape,like_shape", [
    ((3,), (2,)), pytest.param((6,), (1, 1), marks=pytest.mark.exhaustive), ((2, 3), (4, 5, 6)),
    pytest.param((4,), (), marks=pytest.mark.exhaustive), ((), (7,))])
def test_type_as_other_gives_only_a_dtype(x_shape, like_shape):
    """``other`` (and what is computed from it alone) neither broadcasts nor is read."""
    x = np.linspace(-1, 1, int(np.prod(x_shape))).reshape(x_shape)
    like = np.zeros(like_shape, np.float32)
    kernel = FusedKernel(fusejit.parse_ir(TYPE_AS_OTHER))
    (out,) = kernel(x, like)
    assert out.shape == x.shape and out.dtype == np.float32
    np.testing.assert_allclose(out, np.exp(x).astype(np.float32), rtol=2e-7)
    source = kernel.source(x, like)
    assert "a1 = " not in source and "aten::neg" not in source


OWN_SHAPES = """graph(%x : Tensor, %s : Tensor, %r : Tensor):
  %e : Tensor = aten::exp(%s)
  %m : Tensor = aten::mul(%e, %x)
  %k : Tensor = aten::add(%r, %e, %e)
  return (%m, %e, %k)
"""


@pytest.mark.parametrize("x_shape,s_shape,r_shape", [
    ((1,), (), (1,)), pytest.param((1, 1), (1,), (), marks=pytest.mark.exhaustive),
    ((1, 5), (5,), (1, 1, 5)), pytest.param((2, 3), (2, 3), (3,), marks=pytest.mark.exhaustive)])
def test_each_output_keeps_its_own_shape(x_shape, s_shape, r_shape):
    rng = np.random.default_rng(3)
    x, s, r = (rng.standard_normal(sh).astype(np.float32) for sh in (x_shape, s_shape, r_shape))
    got = FusedKernel(fusejit.parse_ir(OWN_SHAPES))(x, s, r)
    want = (np.exp(s) * x, np.exp(s), r + np.exp(s) * np.exp(s))
    for g, w in zip(got, want):
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_output_read_more_than_once_per_element_is_refused():
    """An output smaller than the iteration space would be written several times per element."""
    kernel = FusedKernel(fusejit.parse_ir(OWN_SHAPES))
    with pytest.raises(InterpreterError, match=r"output 1 has shape \(\) .*\(2,\)"):
        kernel(np.ones(2, np.float32), np.ones((), np.float32), np.ones(1, np.float32))


CONCAT_OWN_RANK = """graph(%s : Tensor, %t : Tensor, %a : Tensor):
  %e : Tensor = aten::mul(%s, %t)
  %w : Tensor = aten::add(%e, %a, %e)
  %c : Tensor = prim::FusedConcat[dim=-1](%e, %e)
  return (%c, %w)
"""


@pytest.mark.parametrize("s_shape,t_shape,a_shape", [
    ((), (1,), (1, 1)), pytest.param((3,), (3,), (1, 1, 3), marks=pytest.mark.exhaustive),
    ((2, 1), (1, 4), (1, 2, 4))])
def test_concat_output_keeps_its_pieces_rank(s_shape, t_shape, a_shape):
    rng = np.random.default_rng(4)
    s, t, a = (rng.standard_normal(sh).astype(np.float32) for sh in (s_shape, t_shape, a_shape))
    c, w = FusedKernel(fusejit.parse_ir(CONCAT_OWN_RANK))(s, t, a)
    e = s * t
    np.testing.assert_allclose(c, np.concatenate([e, e], axis=-1), rtol=1e-6)
    assert c.shape == np.concatenate([e, e], axis=-1).shape
    np.testing.assert_allclose(w, e + e * a, rtol=1e-6)
    assert w.shape == (e + a).shape


CONCAT_INNER = """graph(%x : Tensor):
  %e : Tensor = aten::exp(%x)
  %c : Tensor = prim::FusedConcat[dim=DIM](%e, %x)
  return (%c, %e)
"""


# ((2, 3, 1) along its last dim: the pieces of width one of (2, 1) along 1 or -1, and of (300, 1),
# under one more outer dim: an exhaustive case, as (3, 1, 1) along 1 is beside (2, 3, 1) along 1)
@pytest.mark.parametrize("shape,dim", [((2, 1), 1), ((2, 1), -1),
                                       pytest.param((3, 1, 1), 1, marks=pytest.mark.exhaustive),
                                       ((2, 3, 1), 1),
                                       pytest.param((2, 3, 1), 2, marks=pytest.mark.exhaustive),
                                       ((1, 4), 0), ((300, 1), 1)])
def test_concat_along_a_dim_followed_by_ones(shape, dim):
    """The pieces' writes step over each other's elements: a strided inner walk."""
    x = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    c, e = FusedKernel(fusejit.parse_ir(CONCAT_INNER.replace("DIM", str(dim))))(x)
    np.testing.assert_allclose(c, np.concatenate([np.exp(x), x], dim), rtol=1e-6)
    np.testing.assert_allclose(e, np.exp(x), rtol=1e-6)


def test_repeated_calls_follow_each_calls_layout():
    """One kernel called again with other shapes, strides and kinds of array: each call's
    result is the reference's (calls of plain C-contiguous arrays reuse the plan their first
    call made; the others, and shapes seen for the first time, make their own)."""
    graph = fusejit.parse_ir(CHAIN)
    kernel = FusedKernel(graph)
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 8)).astype(np.float32)
    other = rng.standard_normal((8, 6)).astype(np.float32)
    column = rng.standard_normal(6).astype(np.float32)[:, None]    # (6, 1): relaxed strides
    calls = [(base, base), (base, other.T), (base, base), (base[:3], base[:3]),
             (column, base), (base, base), (column, column), (base, np.ascontiguousarray(other.T))]
    # a short last dimension that does not coalesce: the short-row kernel (plan.short_meta)
    tall = rng.standard_normal((40, 3)).astype(np.float32)
    calls += [(tall, tall[:, :1]), (tall[:, 1:], tall[:, :1])]      # (one kernel variant)
    for x, y in calls:
        got = kernel(x, y)
        want = run_subgraph(graph, x, y)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=4e-6, atol=1e-6)
            assert g.shape == np.shape(w)
    with pytest.raises(InterpreterError, match="must be a NumPy array"):
        kernel(base, 1.0)


def _short_rows(rng, case):
    """(x, y) of the CHAIN graph whose last dimension, after coalescing, is short."""
    x = rng.uniform(-2, 2, (900, 8)).astype(np.float32)
    if case == "vector":            # (x - mean) / std's broadcast of a row of 8
        return x, rng.uniform(-2, 2, 8).astype(np.float32)
    if case == "alpha":             # an image's 3 channels against an alpha of one
        img = rng.uniform(-2, 2, (30, 40, 3)).astype(np.float32)
        return img, rng.uniform(0, 1, (30, 40, 1)).astype(np.float32)
    if case == "3d":                # rows of 5 under two outer dims, y broadcast over two
        return (rng.uniform(-2, 2, (6, 70, 5)).astype(np.float32),
                rng.uniform(-2, 2, (70, 1)).astype(np.float32))
    if case == "strided":           # a column step: strided loads
        return x[:, :6:2], x[:, 1:7:2]
    if case == "reversed":          # rows walked backwards
        return x[:, ::-1], x[:, :1]
    return x.T.copy().T, x          # an F-ordered x: F-ordered outputs, walked its way


# (the parallel kernel: its loop is the same, so strided rows run in it alone by default, and
# vector's rows in the serial one; alpha's y is broadcast along its rows as 3d's is)
@pytest.mark.parametrize("case, parallel", [
    ("vector", False), pytest.param("alpha", False, marks=pytest.mark.exhaustive),
    ("3d", False), pytest.param("strided", False, marks=pytest.mark.exhaustive),
    ("reversed", False), ("fortran", False),
    pytest.param("vector", True, marks=pytest.mark.exhaustive), ("strided", True)])
def test_short_rows_run_the_short_row_kernel(case, parallel, monkeypatch):
    """Rows shorter than ``plan.SHORT_ROW`` (8 columns, an image's 3 channels, rows of 5 of a
    3-d array, strided and reversed rows) take the short-row kernel, whose tiles are runs of
    rows walked by index; the serial and the parallel kernel both give the reference's
    values, shapes and memory order."""
    monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0 if parallel else 1e30)
    x, y = _short_rows(np.random.default_rng(5), case)
    graph = fusejit.parse_ir(CHAIN.replace("Float(*, *)", "Tensor"))
    kernel = FusedKernel(graph)
    source = kernel.source(x, y)
    assert case == "fortran" or "for row in range(first, min(n_blocks, first + block)):" in source
    got = kernel(x, y)
    want = run_subgraph(graph, x, y)
    for g, w in zip(got, want):
        assert g.shape == np.shape(w) and g.flags.f_contiguous == np.asarray(w).flags.f_contiguous
        np.testing.assert_allclose(g, w, rtol=4e-6, atol=1e-6)


def _chain_numpy(x, y):
    a = x * y
    return np.log(np.exp(1 / (1 + np.exp(-a)) - y)), a


def test_cached_plans_follow_strides_offsets_and_dtypes():
    """Calls of plain arrays reuse the plan and flattening of an earlier call with the same
    dtypes, shapes and strides: a view with other strides, another offset into the same
    buffer, negative strides, broadcast (zero) strides, a large strided view (read through a
    window, not copied), another dtype, or an input passed twice must each give NumPy's answer,
    in fresh output arrays."""
    kernel = FusedKernel(fusejit.parse_ir(CHAIN))
    rng = np.random.default_rng(5)
    big = rng.standard_normal((9, 16)).astype(np.float32)
    row = rng.standard_normal(8).astype(np.float32)
    large = rng.standard_normal((300, 80)).astype(np.float32)     # > 32 KB when sliced
    calls = [
        (big[:8, :8], big[1:, 8:]), (big[1:, :8], big[:8, 8:]),   # same strides, new offsets
        (big[:8, ::2], big[1:, 8:]), (big[:8, 7::-1], big[8:0:-1, 8:]),    # steps, negative
        (np.broadcast_to(row, (8, 8)), big[:8, :8]), (big[:8, :8].T, np.broadcast_to(row, (8, 8))),
        (large[:, ::2], large[:, 1::2]), (large[:, :40], large[:, 40:]),     # same shapes
        (np.ascontiguousarray(large[:, ::2]), large[:, 1::2]), (large[1:, ::2], large[:-1, 1::2]),
        (big[:8, :8].astype(np.float64), big[1:, 8:].astype(np.float64)),
        (np.broadcast_to(big[0, ::2], (8, 8)), np.broadcast_to(np.float32(0.5), (8, 8))),
        (np.broadcast_to(large[0], (300, 80))[:, ::2], large[:, 1::2]),
        (np.broadcast_to(large[0], (2, 300, 80)), np.broadcast_to(large[1, :80], (2, 300, 80))),
        (big[:8, :8], big[:8, :8]),
    ]
    for x, y in calls + calls:            # (the second pass reuses every cached plan)
        got = kernel(x, y)
        for g, w in zip(got, _chain_numpy(x, y)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=4e-6, atol=1e-6)
            assert not np.shares_memory(g, x) and not np.shares_memory(g, y)
        assert not np.shares_memory(got[0], got[1])


# (the window depends on the dtype's itemsize alone: bool's one byte and float64's eight run by
# default)
@pytest.mark.parametrize("dtype", [
    np.bool_, *[pytest.param(dtype, marks=pytest.mark.exhaustive)
                for dtype in (np.int8, np.uint16, np.int64, np.float32)], np.float64])
def test_windows_of_strided_views_are_numpys(dtype):
    """A strided view's window (``compiler._window``, compiled) holds what NumPy's
    ``as_strided`` gives for it: the elements from its first to the last it reaches, of unit
    stride, of its dtype, read-only where the view is; empty for an empty view. It keeps the
    view's memory alive after every other reference is gone."""
    import gc

    from numpy.lib.stride_tricks import as_strided

    from fusejit.runtime.fusion.compiler import _window

    base = (np.arange(7 * 9 * 5) % 11).astype(dtype).reshape(7, 9, 5)
    frozen = base[1:, ::2]
    frozen.flags.writeable = False
    views = [base[1:6, 2:7], base[::2, 1:, ::3], base[:, :0], base[2:3, 4:5, 1:2],
             base.transpose(2, 0, 1)[1:], base[3, 1:, 2:], base[:, 2], frozen]
    for view in views:
        item = view.itemsize
        span = 1 + sum((n - 1) * s // item for n, s in zip(view.shape, view.strides)) \
            if view.size else 0
        want = as_strided(view, shape=(span,), strides=(item,))
        got = _window(view)
        assert got.dtype == view.dtype and got.shape == want.shape and got.flags.c_contiguous
        assert np.array_equal(got, want) and got.flags.writeable == want.flags.writeable
    window = _window(np.arange(1000.0).reshape(10, 100)[2:5, 3:50])
    gc.collect()
    _ = [np.full(1000, -1.0) for _ in range(50)]
    assert np.array_equal(window, np.arange(203.0, 203.0 + 2 * 100 + 47))


def test_cached_plan_does_not_admit_declined_arrays():
    """A plan cached for native float32 arrays is not reused for arrays with the same shape and
    strides that the kernel must decline: another byte order, an ndarray subclass."""
    kernel = FusedKernel(fusejit.parse_ir(CHAIN))
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4) / 12
    kernel(x, x)
    with pytest.raises(InterpreterError, match="byte order"):
        kernel(x.astype(">f4"), x)
    with pytest.raises(InterpreterError, match="not a plain array"):
        kernel(np.asmatrix(x), x)
