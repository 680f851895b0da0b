"""NumPy's own BLAS from compiled code (``runtime/blas.py``): the products against NumPy's
matmul over layouts, dtypes and edge sizes, the discovery and its fallback, and the writers'
choice between the two."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from fusejit.runtime import blas, cores

RNG = np.random.default_rng(15)
FOUND = blas.numpy_blas() is not None
needs_blas = pytest.mark.skipif(not FOUND, reason=f"NumPy's BLAS not used: "
                                f"{blas.fallback_reason()}")


def _padded(rows: int, cols: int, dtype) -> np.ndarray:
    """A (rows, cols) view with unit-stride rows and a longer row stride."""
    return RNG.standard_normal((rows, cols + 3)).astype(dtype)[:, :cols]


def _broadcast(x: np.ndarray, shape: tuple) -> np.ndarray:
    """``x`` broadcast to ``shape`` (stride 0 along the new or size-1 dims), writeable as the
    compiled products' arguments are typed."""
    strides = (0,) * (len(shape) - x.ndim) + tuple(
        0 if n == 1 else s for n, s in zip(x.shape, x.strides))
    return np.lib.stride_tricks.as_strided(x, shape, strides)


def _operands(rows: int, cols: int, dtype) -> list[tuple[str, np.ndarray]]:
    """(rows, cols) operands in each layout a product meets."""
    c = RNG.standard_normal((rows, cols)).astype(dtype)
    return [
        ("C", c),
        ("transposed", np.ascontiguousarray(c.T).T),            # the Trans flag, ld = rows
        ("padded rows", _padded(rows, cols, dtype)),             # ld > cols
        ("padded transposed", _padded(cols, rows, dtype).T),     # Trans, ld > rows
        ("strided", RNG.standard_normal((2 * rows, 2 * cols)).astype(dtype)[::2, ::2]),
        ("reversed", c[::-1, ::-1]),                             # copied first
        ("broadcast", _broadcast(c[:1], (rows, cols))),          # row stride 0: copied
    ]


def _products(a, b, u, v):
    return blas.mm(a, b), blas.mv(a, u), blas.vm(u, b), blas.dot(u, v)


@functools.cache
def _driver():
    """mm, mv, vm and dot compiled once per dtype for operands of any layout ('A'): the
    layout each case has is read at run time, so one compile covers them all (and the suite
    stays quick). Compiled at the first test that calls it, not when the module is imported:
    every pytest-xdist worker imports every test module, and this takes about 5 s a dtype."""
    from numba import njit, types

    return njit([(types.Array(f, 2, "A"), types.Array(f, 2, "A"), types.Array(f, 1, "A"),
                  types.Array(f, 1, "A")) for f in (types.float32, types.float64)])(_products)


def _tolerance(dtype) -> dict:
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12,
                                                                      "atol": 1e-12}


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_equal_numpys_matmul(dtype) -> None:
    """mm, mv, vm and dot over every pair of layouts, and sizes 0, 1 and a few."""
    tol = _tolerance(dtype)
    for m, k, n in [(5, 7, 3), (1, 4, 6), (4, 1, 3), (3, 4, 1), (0, 3, 2), (3, 0, 2),
                    (3, 2, 0)]:
        vectors = [("contiguous", RNG.standard_normal(k).astype(dtype)),
                   ("strided", RNG.standard_normal(2 * k).astype(dtype)[::2]),
                   ("reversed", RNG.standard_normal(k).astype(dtype)[::-1]),
                   ("broadcast", _broadcast(RNG.standard_normal(1).astype(dtype), (k,)))]
        for i, (name_a, a) in enumerate(_operands(m, k, dtype)):
            for j, (name_b, b) in enumerate(_operands(k, n, dtype)):
                name_u, u = vectors[(i + j) % len(vectors)]
                name_v, v = vectors[(i + j + 1) % len(vectors)]
                case = f"{name_a} @ {name_b}, vectors {name_u} and {name_v}, of {m, k, n}"
                mm, mv, vm, dot = _driver()(a, b, u, v)
                for got, want in ((mm, a @ b), (mv, a @ u), (vm, u @ b)):
                    assert got.dtype == dtype and got.shape == want.shape, case
                    np.testing.assert_allclose(got, want, **tol, err_msg=case)
                np.testing.assert_allclose(dot, u @ v, **tol, err_msg=case)
                if i < 4 and j < 4:   # operands NumPy hands to BLAS as they are: its bits
                    np.testing.assert_array_equal(mm, a @ b, err_msg=case)


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                            marks=pytest.mark.exhaustive)])
def test_a_stack_times_a_vector_has_numpys_bits(dtype) -> None:
    """``stacked_mv``: NumPy's matmul calls gemv for each matrix of a stack, and so does the
    compiled product (one gemv over all the stack's rows sums otherwise in OpenBLAS for some
    shapes: (5, 7, 300) and (200, 3, 4) here), for contiguous, strided and transposed
    stacks and contiguous and strided vectors (a reversed one NumPy sums without BLAS)."""
    for shape in ((48, 64, 3), (1, 1, 1), (5, 7, 300), (3, 100, 17), (200, 3, 4)):
        a = RNG.standard_normal(shape).astype(dtype)
        x = RNG.standard_normal(2 * shape[2]).astype(dtype)
        for stack in (a, a[:, ::2], np.swapaxes(np.swapaxes(a, 1, 2).copy(), 1, 2)):
            for vector in (x[::2], x[: shape[2]]):
                got = blas.stacked_mv(stack, vector)
                assert got.dtype == dtype
                np.testing.assert_array_equal(got, stack @ vector)


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_matrix_times_its_own_transpose_has_numpys_bits(dtype) -> None:
    """NumPy's matmul computes ``a @ a.T`` (and ``a.T @ a``) by syrk, one triangle mirrored,
    whose sums round otherwise than gemm's: so does ``mm`` (small products, on one thread in
    both). A copy of the transpose is another array: gemm in both."""
    for rows, cols in [(20, 30), (9, 4), (2, 17), (33, 8)]:
        m = RNG.standard_normal((rows, cols)).astype(dtype)
        for a, b in [(m, m.T), (m.T, m), (m[:, ::2], m[:, ::2].T), (m, m.T.copy())]:
            u = np.ones(b.shape[0], dtype)
            got = _driver()(a, b, u, u)[0]
            np.testing.assert_array_equal(got, a @ b)
            if b.base is a or a.base is b:
                np.testing.assert_array_equal(got, got.T)


@needs_blas
def test_products_refuse_mismatched_sizes() -> None:
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match="inner sizes"):
        _driver()(a, np.ones((2, 3)), np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="inner sizes"):
        _driver()(a, np.ones((3, 3)), np.ones(2), np.ones(2))


@needs_blas
def test_small_products_run_on_one_thread_and_put_the_count_back() -> None:
    """OpenBLAS's count is process-wide: a small product sets it to 1 for its call and puts
    it back; a large one leaves it alone."""
    import ctypes

    found = blas.numpy_blas()
    if not found.pthreads:
        pytest.skip("the thread count is switched only for OpenBLAS's own pthreads")
    get = ctypes.CFUNCTYPE(ctypes.c_int)(found.addresses["openblas_get_num_threads"])
    set_ = ctypes.CFUNCTYPE(None, ctypes.c_int)(found.addresses["openblas_set_num_threads"])

    seen_from_inside = _threads_inside()
    original = get()
    set_(2)
    try:
        assert seen_from_inside(1000) == (2, 1, 2)
        assert seen_from_inside(10**12) == (0, 2, 2)
        np.testing.assert_array_equal(_driver()(np.ones((8, 8)), np.ones((8, 8)), np.ones(8),
                                               np.ones(8))[0], np.full((8, 8), 8.0))
        assert get() == 2
    finally:
        set_(original)


def test_discovery_falls_back_with_a_reason(monkeypatch) -> None:
    from numpy.random import _common  # an extension that links no BLAS

    found, reason = blas.find_numpy_blas([_common.__file__])
    assert found is None and "no OpenBLAS cblas_?gemm/?gemv/?dot" in reason
    found, reason = blas.find_numpy_blas([os.devnull])
    assert found is None and os.path.basename(os.devnull) in reason
    monkeypatch.setenv("FUSEJIT_BLAS", "numba")
    found, reason = blas.find_numpy_blas()
    assert found is None and "FUSEJIT_BLAS=numba" in reason


@needs_blas
def test_numpys_own_library_is_found() -> None:
    found = blas.numpy_blas()
    assert found.int_bits in (32, 64)
    assert set(found.addresses) >= {"cblas_sgemm", "cblas_dgemm"}
    assert blas.blas_identity() == found.describe() and blas.fallback_reason() == ""


def _typed_mm_graph():
    """``tanh(x @ w.T)`` with the dtypes and ranks of a call (as the whole stages see it)."""
    import fusejit
    from fusejit.autodiff.observed import observe, retype

    def f(x, w):
        return np.tanh(x @ w.T)

    graph = fusejit.jit(f).graph.copy()
    _, seen, _ = observe(graph, [np.ones((2, 3)), np.ones((4, 3))])
    retype(graph, seen)
    return graph


def test_writers_emit_numpys_blas_or_np_dot(monkeypatch) -> None:
    from fusejit.runtime import element_function

    graph = _typed_mm_graph()
    if FOUND:
        source = element_function.element_source(graph)
        assert "_blas.mm(" in source and "np.dot(" not in source
        assert "from fusejit.runtime import blas as _blas" in source
    monkeypatch.setattr(element_function, "numpy_blas", lambda: None)
    source = element_function.element_source(graph)
    assert "np.dot(" in source and "_blas" not in source


# Run in a fresh process: SciPy's BLAS (which Numba's np.dot calls) poisoned, its functions
# replaced by abort(), then a training step compiled whole, checked against NumPy.
_POISONED_SCIPY_BLAS = textwrap.dedent("""
    import ctypes
    import ctypes.util

    import numpy as np
    from scipy.linalg import cython_blas

    capsule = ctypes.pythonapi.PyCapsule_New
    capsule.restype, capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                           ctypes.c_void_p]
    name_of = ctypes.pythonapi.PyCapsule_GetName
    name_of.restype, name_of.argtypes = ctypes.c_char_p, [ctypes.py_object]
    abort = ctypes.cast(ctypes.CDLL(ctypes.util.find_library("c")).abort, ctypes.c_void_p)
    names = []   # (the capsule names stay alive: PyCapsule_New does not copy them)
    for fn in ("sgemm", "dgemm", "sgemv", "dgemv", "sdot", "ddot"):
        names.append(name_of(cython_blas.__pyx_capi__[fn]))
        cython_blas.__pyx_capi__[fn] = capsule(abort.value, names[-1], None)

    import fusejit
    from fusejit import ops as F
    from fusejit.autodiff.staged import StagedCode

    def mlp_loss(x, y, w1, b1, w2, b2):   # (tests/autodiff/test_whole_stages.py's MLP)
        h = F.relu(x @ w1 + b1)
        d = F.sigmoid(h @ w2 + b2) - y
        return np.sum(d * d) * 0.5

    rng = np.random.default_rng(0)
    x, y, w1, b1, w2, b2 = args = [rng.standard_normal(s) for s in ((6, 5), (6, 2), (5, 7),
                                                                    (7,), (7, 2), (2,))]
    staged = StagedCode(fusejit.jit(mlp_loss).graph, (2, 3, 4, 5), args, fuse=False,
                        engine="reference", whole=True)
    assert staged.whole is not None
    outputs, handle = staged.run_forward(*args)
    grads = staged.run_backward(handle, np.ones_like(outputs[0]))
    z = x @ w1 + b1
    h = np.maximum(z, 0)
    s = 1 / (1 + np.exp(-(h @ w2 + b2)))
    g2 = (s - y) * s * (1 - s)
    g1 = g2 @ w2.T * (z > 0)
    for got, want in zip(grads, (x.T @ g1, g1.sum(0), h.T @ g2, g2.sum(0))):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    print("ran")
""")


@needs_blas
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds abort() in libc")
def test_compiled_stages_do_not_call_scipys_blas(tmp_path) -> None:
    """A training step compiled whole runs its products on NumPy's BLAS, not SciPy's (a second
    OpenBLAS with its own thread pool). Numba itself loads SciPy's library, so the check is
    that with SciPy's BLAS functions replaced by abort() the step still runs and is right."""
    script = tmp_path / "poisoned.py"
    script.write_text(_POISONED_SCIPY_BLAS)
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600, env=dict(os.environ))
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split()[-1:] == ["ran"], ran.stdout


def _threads_inside():
    from numba import njit

    @njit
    def seen_from_inside(macs):
        before = blas._serially(macs, 8)
        during = blas._get_threads()
        blas._restore(before)
        return before, during, blas._get_threads()

    return seen_from_inside


@needs_blas
def test_threads_follow_free_cores_and_set_num_threads(monkeypatch) -> None:
    """Busy cores: only products of SERIAL_WORK_NS use more than one thread; free cores:
    products from PARALLEL_WORK_NS do; fusejit.set_num_threads(1) holds every product (and the
    host's matmul) to one. The count is put back after each call."""
    import ctypes

    import fusejit
    import fusejit.runtime.fusion.plan

    found = blas.numpy_blas()
    if not found.pthreads or blas._POOL < 2:
        pytest.skip("needs OpenBLAS's own pthreads, two or more")
    get = ctypes.CFUNCTYPE(ctypes.c_int)(found.addresses["openblas_get_num_threads"])
    inside = _threads_inside()
    medium = int(2 * blas.PARALLEL_WORK_NS / blas._NS_PER_MAC_F64)   # (well under serial work)
    huge = 10**12
    original, numba_threads = blas.max_threads(), fusejit.runtime.fusion.plan.num_threads()
    assumed = list(cores._assumed)
    try:
        pool = get()
        for free, want_medium, want_huge in ((0.0, 1, pool), (1.0, 2, 2)):
            cores.assume_free_cores(free)
            blas.refresh()
            assert inside(100)[1:] == (1, pool)
            assert inside(medium)[1:] == (min(want_medium, pool), pool)
            assert inside(huge)[1:] == (min(want_huge, pool), pool)
        fusejit.set_num_threads(1)
        blas.refresh()
        assert blas.max_threads() == 1 and inside(huge)[1:] == (1, pool)
        # the interpreter's host matmul (oplib), on the count the rule chose
        seen = []
        matmul = np.matmul

        def spy(a, b):
            seen.append(get())
            return matmul(a, b)

        graph = fusejit.parse_ir("graph(%a : Tensor, %b : Tensor):\n"
                                 "  %c : Tensor = aten::matmul(%a, %b)\n  return (%c)\n")
        a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((5, 2))
        with monkeypatch.context() as patched:
            patched.setattr(np, "matmul", spy)
            got = fusejit.compile(graph, engine="reference")(a, b)
        np.testing.assert_array_equal(got, matmul(a, b))
        assert seen == [1] and get() == pool
    finally:
        fusejit.set_num_threads(numba_threads)
        blas.set_max_threads(original)
        cores.assume_free_cores(None)
        cores._assumed[:] = assumed
    assert blas.max_threads() == original


def test_free_cores_is_measured_between_samples() -> None:
    if not os.path.exists("/proc/stat"):
        pytest.skip("measured from /proc/stat")
    cores.free_cores()
    free = cores.free_cores()
    assert free is None or 0.0 <= free <= len(cores.CORES) - 1


_SPIN = """
import os
import fusejit
print(os.environ.get("GOMP_SPINCOUNT"))
"""


@pytest.mark.parametrize("given, want", [({}, "10000"), ({"GOMP_SPINCOUNT": "5"}, "5"),
                                         ({"OMP_WAIT_POLICY": "ACTIVE"}, "None")])
def test_openmp_threads_spin_briefly_unless_the_user_chose(given, want) -> None:
    """``import fusejit`` shortens libgomp's spin after a parallel kernel (its threads had
    kept the cores from the products and NumPy calls that followed), before Numba loads it;
    a spin count or wait policy the user set stays theirs."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")} | given
    done = subprocess.run([sys.executable, "-c", _SPIN], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.strip() == want


@needs_blas
def test_free_cores_take_the_products_openblas_itself_splits() -> None:
    """With the other cores free, a float32 gemm past OpenBLAS's own split (m n k over
    65536 * 4, whatever the dtype) may use them, as NumPy's call does: a (4096, 16) @ (16, 8)
    float32 product ran on one thread in 13.8 us, NumPy's on two in 7.8. Under the split it
    stays on one."""
    assumed = list(cores._assumed)
    try:
        cores.assume_free_cores(1.0)
        blas.refresh()
        threads = blas._STATE[0]
        assert blas._allowed_threads(4096 * 16 * 8, 4) == threads
        assert blas._allowed_threads(65536 * 4 + 4096, 4) == threads
        assert blas._allowed_threads(65536 * 3, 4) == 1
        assert blas._allowed_threads(65536 * 4 + 4096, 8) == threads
        cores.assume_free_cores(0.0)
        blas.refresh()
        assert blas._allowed_threads(4096 * 16 * 8, 4) == 1     # (busy: serial work rules)
    finally:
        cores._assumed[:] = assumed
        blas.refresh()


def test_a_product_with_a_vector_weighs_its_memory_reads() -> None:
    """gemv reads a matrix element per multiply-add (memory-bound, ~4x gemm's time for one):
    1000x100 @ 100 float64 uses the free cores, as NumPy's call does, where gemm's rate would
    keep it on one thread."""
    import ctypes

    assert blas._macs(1000, 1, 1000) == blas._VECTOR_PRODUCT_FACTOR * 10**6
    assert blas._macs(1, 7, 3) == blas._VECTOR_PRODUCT_FACTOR * 21
    assert blas._macs(10, 10, 10) == 1000
    found = blas.numpy_blas()
    if not found.pthreads or blas._POOL < 2:
        pytest.skip("needs OpenBLAS's own pthreads, two or more")
    get = ctypes.CFUNCTYPE(ctypes.c_int)(found.addresses["openblas_get_num_threads"])
    inside = _threads_inside()
    assumed = list(cores._assumed)
    try:
        pool = get()
        cores.assume_free_cores(1.0)
        blas.refresh()
        assert 10**5 * blas._NS_PER_MAC_F64 < blas.PARALLEL_WORK_NS   # (gemm's rate: serial)
        assert inside(blas._macs(1000, 1, 100))[1] == min(2, pool)
        assert inside(10**5)[1] == 1
    finally:
        cores._assumed[:] = assumed
        blas.refresh()
