"""The cheap maps' kernels against NumPy, on the layouts their loops treat differently, the
pooled memory of big outputs (``runtime/fusion/outputs.py``) and their streamed stores
(``runtime/fusion/streams.py``)."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

import fusejit
from fusejit.errors import FusejitError
from fusejit.runtime.fusion import FusedKernel, streams
from fusejit.runtime.fusion import outputs as pool
from fusejit.runtime.fusion.loops import STRIP

_TYPE = {np.float32: "Float", np.float64: "Double"}
# (output, the NumPy form): one kernel computes them all
_MAPS = [("aten::max(%x, %y)", lambda x, y, lo: np.maximum(x, y)),
         ("aten::min(%x, %y)", lambda x, y, lo: np.minimum(x, y)),
         ("aten::clamp(%x, %lo, %hi)", lambda x, y, lo: np.minimum(np.maximum(x, lo), 1.5)),
         ("aten::clamp(%x, %lo, %none)", lambda x, y, lo: np.maximum(x, lo)),
         ("aten::relu(%x)", lambda x, y, lo: np.maximum(x, 0)),
         ("aten::neg(%x)", lambda x, y, lo: -x)]


def _kernel(dtype) -> FusedKernel:
    ty = _TYPE[dtype]
    lines = [f"graph(%x : {ty}(*), %y : {ty}(*), %lo : float):",
             "  %hi : float = prim::Constant[value=1.5]()",
             "  %none : NoneType = prim::Constant()"]
    lines += [f"  %o{i} : Tensor = {call}" for i, (call, _) in enumerate(_MAPS)]
    lines.append(f"  return ({', '.join(f'%o{i}' for i in range(len(_MAPS)))})")
    return FusedKernel(fusejit.parse_ir("\n".join(lines) + "\n"))


_KERNELS: dict = {}


def _check(dtype, x, y, lo: float) -> None:
    kernel = _KERNELS.setdefault(dtype, _kernel(dtype))
    got = kernel(x, y, lo)
    with np.errstate(all="ignore"):
        for (call, numpy_form), out in zip(_MAPS, got):
            want = numpy_form(x, y, dtype(lo)).astype(dtype)
            # equal values, NaN where NumPy has NaN, and the sign of every zero
            assert out.dtype == want.dtype and out.shape == want.shape, call
            assert np.array_equal(out, want, equal_nan=True), call
            assert np.array_equal(np.signbit(out), np.signbit(want)), call


def _special(n: int, dtype, rng) -> tuple[np.ndarray, np.ndarray]:
    """Values with NaN in x, in y and in both, signed zeros against each other, infinities."""
    x = rng.uniform(-3, 3, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    x[::7] = np.nan
    y[::5] = np.nan
    x[3::11], y[3::11] = -0.0, 0.0
    x[4::11], y[4::11] = 0.0, -0.0
    x[5::13], y[6::13] = np.inf, -np.inf
    return x, y


# (float64's loops are float32's, with half the lanes: an exhaustive case)
@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_cheap_maps_match_numpy_on_every_layout(dtype):
    rng = np.random.default_rng(15)
    for n in (1, 3, 17, 1000):                       # tiny, and one with a vector loop
        x, y = _special(n + 9, dtype, rng)
        _check(dtype, x[:n], y[:n], -0.5)            # aligned as NumPy allocates
        _check(dtype, x[1:n + 1], y[3:n + 3], -0.5)  # starting off any vector boundary
        _check(dtype, x[1:n + 1], y[:n], float("nan"))      # a NaN bound gives NaN
    x, y = _special(3000, dtype, rng)
    _check(dtype, x[::3], y[1::3], 0.25)             # strided
    _check(dtype, x[:2000].reshape(40, 50).T, y[:2000].reshape(50, 40), 0.25)


def test_big_outputs_come_from_the_pool_aligned_and_are_reused_only_when_free(monkeypatch):
    monkeypatch.setattr(pool, "_held", [])      # (no free buffer left by another test)
    items = pool.MIN_BYTES // 4
    neg = FusedKernel(fusejit.parse_ir("graph(%x : Float(*)):\n"
                                       "  %o : Tensor = aten::neg(%x)\n  return (%o)\n"))
    x = np.arange(items + 5, dtype=np.float32)
    for n in (items - 1, items, items + 5):          # around the threshold
        (out,) = neg(x[:n])
        assert np.array_equal(out, -x[:n])
        if n >= items:
            assert out.ctypes.data % 4096 == 0          # (outputs.py says why)
    (first,) = neg(x[:items])
    (second,) = neg(x[:items])
    assert not np.shares_memory(first, second)       # both alive: two buffers
    view = first[10:]
    address = first.ctypes.data
    del first
    (third,) = neg(x[1:items + 1])
    assert not np.shares_memory(third, view)          # a view still reads the first buffer
    assert np.array_equal(view, -x[10:items])
    del view
    (fourth,) = neg(x[2:items + 2])
    assert fourth.ctypes.data == address               # free again: reused
    assert np.array_equal(fourth, -x[2:items + 2]) and np.array_equal(third, -x[1:items + 1])
    total, free = pool.pooled_bytes()
    assert 0 < total <= pool._limit_bytes() and free < total


# (IR call, the NumPy form) of host ops that write big results into pooled memory
_HOST = [("aten::add(%x, %y, %one)", lambda x, y: x + y),
         ("aten::add(%x, %y, %two)", lambda x, y: x + 2 * y),      # (the general path)
         ("aten::sub(%x, %y, %one)", lambda x, y: x - y),
         ("aten::mul(%x, %y)", lambda x, y: x * y),
         ("aten::div(%x, %y)", lambda x, y: x / y),
         ("aten::neg(%x)", lambda x, y: -x),
         ("aten::abs(%x)", lambda x, y: np.abs(x)),
         ("aten::sqrt(%x)", lambda x, y: np.sqrt(x)),
         ("aten::clone(%x, %none)", lambda x, y: x.copy()),
         ("aten::type_as(%x, %d)", lambda x, y: x.astype(np.float64))]


def test_big_host_op_results_come_from_the_pool(monkeypatch):
    """An op the interpreter runs on the host (a graph run op by op) writes a big result into
    pooled memory (NumPy's fresh array faults each page in: float64 x + y of 2^22 elements ran
    1.93 -> 1.16 ns/element), equal to NumPy's and of its dtype; a result NumPy would not make
    C-contiguous, or a ufunc whose result dtype differs, is NumPy's own. Operands of one
    shape, and of two that broadcast."""
    from fusejit.oplib import pointwise

    monkeypatch.setattr(pool, "_held", [])
    monkeypatch.setattr(pool, "MIN_BYTES", pointwise._POOL_GATE)     # (1 MiB: cheaper arrays)
    x = np.linspace(0.5, 4.0, pool.MIN_BYTES // 4, dtype=np.float32)
    y = x[::-1].copy()
    for call, numpy_form in _HOST:
        graph = fusejit.parse_ir("graph(%x : Tensor, %y : Tensor, %d : Tensor):\n"
                                 "  %one : int = prim::Constant[value=1]()\n"
                                 "  %two : int = prim::Constant[value=2]()\n"
                                 "  %none : NoneType = prim::Constant()\n"
                                 f"  %o : Tensor = {call}\n  return (%o)\n")
        run = fusejit.compile(graph, engine="reference")
        for a, b, pooled in ((x, y, True), (x.reshape(2, -1), y[:x.size // 2], True),
                             (x.reshape(2, -1).T, y.reshape(2, -1).T, False)):
            got, want = run(a, b, np.zeros(1)), numpy_form(a, b)
            assert got.dtype == want.dtype and np.array_equal(got, want), call
            assert (not got.flags.owndata) == pooled, call
    assert pointwise.same_dtype_ufunc(np.exp, np.dtype(np.float32))
    assert not pointwise.same_dtype_ufunc(np.isnan, np.dtype(np.float32))
    assert not pointwise.same_dtype_ufunc(lambda v: -v, np.dtype(np.float32))


def test_big_empty_arrays_come_from_the_pool(monkeypatch):
    """``aten::empty_like``/``aten::empty`` (made for arrays a kernel then writes whole: see
    ``passes/inplace_fusion.py``) take big arrays from the pool, as kernel outputs do (a fresh
    one takes its page faults on the kernel's threads), of the shape and dtype asked for."""
    monkeypatch.setattr(pool, "_held", [])
    graph = fusejit.parse_ir("graph(%x : Tensor):\n"
                             "  %none : NoneType = prim::Constant()\n"
                             "  %f64 : int = prim::Constant[value=7]()\n"
                             "  %size : int[] = aten::size(%x)\n"
                             "  %a : Tensor = aten::empty_like(%x, %none, %none, %none, %none,"
                             " %none)\n"
                             "  %b : Tensor = aten::empty(%size, %f64, %none, %none, %none,"
                             " %none)\n"
                             "  return (%a, %b)\n")
    run = fusejit.compile(graph, engine="reference")
    for shape, pooled in (((pool.MIN_BYTES // 4,), True), ((2, pool.MIN_BYTES // 8), True),
                          ((1000,), False)):
        for a, dtype in zip(run(np.ones(shape, np.float32)), (np.float32, np.float64)):
            assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
            assert (not a.flags.owndata) == pooled


def test_pool_limit_from_the_environment(monkeypatch):
    monkeypatch.setattr(pool, "_limit", [])
    monkeypatch.setenv("FUSEJIT_OUTPUT_POOL_MB", "0")
    out = pool.take((pool.MIN_BYTES // 8,), np.float64)
    assert out.base is None                          # a plain array: the pool is off
    monkeypatch.setattr(pool, "_limit", [])
    monkeypatch.setenv("FUSEJIT_OUTPUT_POOL_MB", "lots")
    with pytest.raises(FusejitError, match="FUSEJIT_OUTPUT_POOL_MB"):
        pool.take((pool.MIN_BYTES,), np.uint8)


def _fmod_values(dtype, rng) -> tuple[np.ndarray, np.ndarray]:
    """Operands of mixed magnitudes, every pair of special values, and quotients next to an
    integer (where the rounded division may overshoot the truncated quotient)."""
    n = 3000
    x = rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-60, 60, n)
    y = rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-60, 60, n)
    tiny = np.finfo(dtype).smallest_subnormal
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, tiny,
                        float(np.finfo(dtype).max), 2.0 ** 52, 2.0 ** 24 + 2])
    k = rng.integers(1, 1 << 20, 2000).astype(np.float64)
    y_near = rng.uniform(0.5, 2, 2000)
    x = np.concatenate([x, np.repeat(special, special.size), k * y_near,
                        np.nextafter(k * y_near, 0)])
    y = np.concatenate([y, np.tile(special, special.size), y_near, y_near])
    with np.errstate(all="ignore"):
        return x.astype(dtype), y.astype(dtype)


# (float32's fmod is float64's, of its operands widened: an exhaustive case; float64 has the
# quotients of 2^52 and more, and the rounded ones past the truncated quotient)
@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])
def test_fmod_and_remainder_are_exact(dtype):
    ty = _TYPE[dtype]
    kernel = FusedKernel(fusejit.parse_ir(
        f"graph(%x : {ty}(*), %y : {ty}(*)):\n  %f : Tensor = aten::fmod(%x, %y)\n"
        "  %r : Tensor = aten::remainder(%x, %y)\n  return (%f, %r)\n"))
    x, y = _fmod_values(dtype, np.random.default_rng(52))
    m = y[1::3].size
    for xs, ys in ((x, y), (x[1:], y[:-1]), (x[::3][:m], y[1::3]), (x[:5], y[:5])):
        fmod, remainder = kernel(xs, ys)
        with np.errstate(all="ignore"):
            want_fmod = np.fmod(xs, ys)
            # PyTorch's float remainder (the operator library's): fmod moved to y's sign
            want_rem = np.where((want_fmod != 0) & ((ys < 0) != (want_fmod < 0)),
                                want_fmod + ys, want_fmod)
        for got, want in ((fmod, want_fmod), (remainder, want_rem)):
            assert got.dtype == want.dtype
            assert np.array_equal(got, want, equal_nan=True)
            numbers = ~np.isnan(want)        # (the sign of every zero; a NaN's is not asked)
            assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


# -- streamed outputs (``streams``): below and above the threshold, on every alignment ----------

def _streaming_kernel(monkeypatch, text: str, threshold: int) -> FusedKernel:
    """A kernel of ``text`` generated while kernels stream from ``threshold`` bytes moved."""
    monkeypatch.setattr(streams, "STREAM_BYTES", threshold)
    return FusedKernel(fusejit.parse_ir(text))


# (a stream copies elements of 4 and of 8 bytes, whatever their kind: Double and Int, the same
# sizes as Long and Float, are exhaustive cases)
_STREAMED = [("Float", np.float32),
             pytest.param("Double", np.float64, marks=pytest.mark.exhaustive),
             ("Long", np.int64), pytest.param("Int", np.int32, marks=pytest.mark.exhaustive)]


@pytest.mark.parametrize("ty,dtype", _STREAMED)
def test_streamed_outputs_match_numpy_around_the_threshold(monkeypatch, ty, dtype):
    """Two outputs (one of them bool: 1-byte elements) of sizes below and above the threshold
    (64 KiB moved), odd lengths, inputs and outputs off any 32-byte boundary: equal to NumPy's."""
    kernel = _streaming_kernel(monkeypatch, (
        f"graph(%x : {ty}(*), %y : {ty}(*)):\n  %one : int = prim::Constant[value=1]()\n"
        "  %s : Tensor = aten::sub(%x, %y, %one)\n  %m : Tensor = aten::mul(%s, %y)\n"
        "  %g : Tensor = aten::gt(%x, %y)\n  return (%m, %g)\n"), 1 << 16)
    rng = np.random.default_rng(7)
    n_max = 3 * STRIP * 4 + 37
    x = rng.integers(-1000, 1000, n_max + 8).astype(dtype)
    y = rng.integers(-1000, 1000, n_max + 8).astype(dtype)
    assert "st.stream_copy(" in kernel.source(x, y)
    for n in (5, 1000, 2 * STRIP + 3, n_max):     # (n_max streams for each dtype, 1000 none)
        for a, b in ((0, 0), (1, 3), (5, 0)):
            xs, ys = x[a:a + n], y[b:b + n]
            got, gt = kernel(xs, ys)
            assert got.dtype == dtype and np.array_equal(got, (xs - ys) * ys), (n, a, b)
            assert np.array_equal(gt, xs > ys), (n, a, b)


# (float64 takes the same streamed path with 8-byte elements: an exhaustive case, 4 s cold)
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_streamed_in_place_update_on_two_threads(monkeypatch, parallel_plans, dtype):
    """``x`` updated in place (``write_into``: the output is an input, here off a 32-byte
    boundary), and a parallel call in tiles of two strips: NumPy's values, NaN and the sign of
    zero included."""
    ty = _TYPE[dtype]
    kernel = _streaming_kernel(monkeypatch, (
        f"graph(%x : {ty}(*), %y : {ty}(*)):\n  %one : int = prim::Constant[value=1]()\n"
        "  %o : Tensor = aten::add(%x, %y, %one)\n  return (%o)\n"), 1 << 16)
    rng = np.random.default_rng(8)
    x, y = _special(7 * STRIP + 11, dtype, rng)      # (more than 64 KiB moved)
    want = x[1:] + y[:-1]
    target = x[1:].copy()
    unaligned = np.empty(target.size + 1, dtype)[1:]
    unaligned[...] = target
    for out in (target, unaligned):
        assert kernel.write_into(out, (out, y[:-1])) is out
        assert np.array_equal(out, want, equal_nan=True)
        assert np.array_equal(np.signbit(out), np.signbit(want))
    if numba.config.NUMBA_NUM_THREADS < 2:
        return
    with parallel_plans(STRIP + 3):                  # (tiles of two strips)
        parallel = FusedKernel(kernel.layout.graph)
        (got,) = parallel(x[1:], y[:-1])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("call, streamed", [("aten::neg(%x)", True),
                                             ("aten::div(%x, %y)", True),
                                             ("aten::reciprocal(%x)", True),
                                             ("aten::sqrt(%x)", False),
                                             ("aten::rsqrt(%x)", False),
                                             ("aten::tanh(%x)", False)])
def test_which_kernels_stream(monkeypatch, call, streamed):
    """Cheap maps and divisions stream their big outputs; kernels that call vectorised math
    or take a square root keep plain stores (``codegen._Generator.streamed`` has the figures).
    The source alone is made: nothing is compiled."""
    kernel = _streaming_kernel(monkeypatch, "graph(%x : Float(*), %y : Float(*)):\n"
                               f"  %o : Tensor = {call}\n  return (%o)\n", 1 << 16)
    x = np.ones(1 << 15, np.float32)
    assert ("st.stream_copy(" in kernel.source(x, x)) is streamed


def test_streamed_from_the_host_threshold():
    """With the host's threshold (about its last-level cache): a map moving less than it runs
    the plain module, and the module that streams is made (and compiled) only when a call
    moves more; NumPy's values from both."""
    neg = FusedKernel(fusejit.parse_ir("graph(%x : Float(*)):\n"
                                       "  %o : Tensor = aten::neg(%x)\n  return (%o)\n"))
    big = np.arange(streams.streams_from(8) + 5, dtype=np.float32)
    small = big[:1 << 12]
    assert np.array_equal(neg(small)[0], -small)
    assert "st." not in neg.source(small)
    assert [stream for _key, stream in neg._variants] == [False]
    source = neg.source(big)
    assert f"STREAMS_FROM = {streams.streams_from(8)}" in source
    assert "st.store_fence()" in source
    for x in (big, big[3:], small):
        assert np.array_equal(neg(x)[0], -x)


def test_streaming_kernel_keeps_vector_loops_and_stores_around_the_cache(monkeypatch):
    """The serial kernel of a big-output map, compiled uncached: its IR has non-temporal vector
    stores and a fence, and both its loops (the streamed one into the strip buffer, the plain
    one) vectorised."""
    kernel = _streaming_kernel(monkeypatch, (
        "graph(%x : Float(*), %y : Float(*)):\n  %one : int = prim::Constant[value=1]()\n"
        "  %o : Tensor = aten::add(%x, %y, %one)\n  return (%o)\n"), 1 << 16)
    x = np.linspace(-1, 1, 6 * STRIP + 5, dtype=np.float32)     # (more than 64 KiB moved)
    _specs, flats, scalars, plan, _key = kernel._prepare((x, x))
    text = kernel.source(x, x).replace("cache=True", "cache=False")
    namespace: dict = {}
    exec(compile(text, "<streaming kernel, uncached>", "exec"), namespace)
    serial = namespace["kernel_serial"]
    out = np.empty_like(x)
    serial(plan.meta, *flats, *scalars, out, np.zeros(1, np.int64))
    assert np.array_equal(out, x + x)
    ir = serial.inspect_llvm(serial.signatures[0])
    stores = re.findall(r"store <(\d+) x \w+> [^\n]*!nontemporal", ir)
    assert stores and all(int(lanes) >= 2 for lanes in stores)
    assert re.search(r"call void @llvm\.x86\.sse\.sfence|fence seq_cst", ir)
    assert len(re.findall(r"fadd [^\n]*<\d+ x float>", ir)) >= 2
    assert len(re.findall(r"^vector\.body\d*:", ir, re.MULTILINE)) >= 2
    # (only the copy's stores are non-temporal: the loops' own stores stay plain)
    assert not re.search(r"store float [^\n]*!nontemporal", ir)


def test_streaming_is_bit_identical_on_chunks_and_concats(monkeypatch):
    """A kernel reading chunks of an input and writing a FusedConcat (pieces at offsets within
    each row) and a second output, over rows of 3000: with streaming, every bit of what it
    computes without (the same kernel, generated with streaming out of reach)."""
    text = ("graph(%x : Float(*, *), %y : Float(*, *), %s : float):\n"
            "  %one : int = prim::Constant[value=1]()\n"
            "  %a : Float(*, *), %b : Float(*, *) = prim::ConstantChunk[chunks=2, dim=1](%x)\n"
            "  %c : Float(*, *) = aten::mul(%a, %s)\n"
            "  %d : Float(*, *) = aten::add(%c, %y, %one)\n"
            "  %e : Float(*, *) = aten::abs(%b)\n"
            "  %f : Float(*, *) = prim::FusedConcat[dim=1](%d, %e)\n  return (%f, %d)\n")
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 6001)).astype(np.float32)[:, 1:]
    y = rng.standard_normal((3, 3000)).astype(np.float32)
    plain = _streaming_kernel(monkeypatch, text, 1 << 62)
    want = plain(x, y, 0.75)
    streamed = _streaming_kernel(monkeypatch, text, 1 << 16)
    got = streamed(x, y, 0.75)
    assert "st.stream_copy(" in streamed.source(x, y, 0.75)
    assert "st." not in plain._variants[next(iter(plain._variants))].source
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.array_equal(g.view(np.int32), w.view(np.int32))


def test_outputs_big_together_come_from_the_pool(monkeypatch):
    """A kernel's several outputs come from the pool where together they reach
    ``MIN_SEVERAL_BYTES`` (two arrays of half of it each: a time step's two state arrays,
    which freed together glibc gives back and faults in again), with the values of one
    computed by NumPy; one output of that size, below ``MIN_BYTES``, is NumPy's own."""
    monkeypatch.setattr(pool, "_held", [])
    monkeypatch.setattr(pool, "MIN_BYTES", 4 << 20)
    monkeypatch.setattr(pool, "MIN_SEVERAL_BYTES", 1 << 20)
    two = FusedKernel(fusejit.parse_ir("graph(%x : Float(*), %v : Float(*)):\n"
                                       "  %k : float = prim::Constant[value=0.5]()\n"
                                       "  %one : int = prim::Constant[value=1]()\n"
                                       "  %a : Float(*) = aten::mul(%x, %k)\n"
                                       "  %b : Float(*) = aten::sub(%v, %a, %one)\n"
                                       "  %c : Float(*) = aten::add(%x, %b, %one)\n"
                                       "  return (%c, %b)\n"))
    one = FusedKernel(fusejit.parse_ir("graph(%x : Float(*), %v : Float(*)):\n"
                                       "  %k : float = prim::Constant[value=0.5]()\n"
                                       "  %one : int = prim::Constant[value=1]()\n"
                                       "  %a : Float(*) = aten::mul(%x, %k)\n"
                                       "  %b : Float(*) = aten::sub(%v, %a, %one)\n"
                                       "  return (%b)\n"))
    x, v = np.random.default_rng(8).standard_normal((2, pool.MIN_SEVERAL_BYTES // 8),
                                                    np.float32)
    b = v - x * np.float32(0.5)
    for kernel, expected, pooled in ((two, (x + b, b), True), (one, (b,), False)):
        for _ in range(2):
            got = kernel(x, v)
            for a, e in zip(got, expected, strict=True):
                assert np.array_equal(a, e)
                assert (not a.flags.owndata) == pooled
