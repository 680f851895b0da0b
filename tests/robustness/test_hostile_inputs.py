"""Hostile and careless inputs found by the ``attack`` pass, each once wrong or a crash:

- a float converted to int beyond int64 (``int(1e300)``, ``math.floor(9.3e18)``) wrapped to 0
  on the interpreter and gave INT64_MIN in the compiled whole-graph function, and
  ``math.floor(nan)`` gave INT64_MIN there: the same call changed its answer between the
  first and the second call. Now it is an error on every tier (Python's int does not fit);
- ``python -m fusejit run`` on an ``.npz`` whose header declares 4 TiB raised ``MemoryError``,
  on a malformed header ``tokenize.TokenError`` and on a single ``.npy`` ``TypeError``, all as
  tracebacks; ``fuse /dev/zero`` read until memory ran out; IR that is not UTF-8 gave a bare
  ``UnicodeDecodeError``. Each is now one ``fusejit:`` line naming the file;
- ``python -m fusejit warmup`` failed with ``ImportError`` (a constant of ``plan.py`` it read
  had been removed; the test of the command replaces its steps);
- (``hostile3``) ``a += b`` where ``b`` overlaps ``a`` (``f(x[1:], x[:-1])``) gave NumPy's
  answer on the first call and a running sum from the second on: the compiled whole-graph
  function's ``+=`` read elements it had already written;
- (``hostile3``) arithmetic on NumPy integer scalars narrower than int64 did not wrap:
  ``s += np.uint8(200) * 2`` added 400 (NumPy: 144), ``x * k + k * 200`` of uint8 raised.
"""

from __future__ import annotations

import io
import math
import re
import zipfile

import numpy as np
import pytest

import fusejit
from fusejit.__main__ import main

CONVERSIONS = ["aten::Int", "aten::floor", "aten::ceil"]
BEYOND = [1e300, -1e300, 9.3e18, -9.3e18, 2.0**63, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("op", CONVERSIONS)
def test_float_to_int_beyond_int64_is_an_error_on_the_interpreter(op):
    graph = fusejit.parse_ir(f"graph(%x : float):\n  %y : int = {op}(%x)\n  return (%y)\n")
    fn = fusejit.compile(graph, engine="reference")
    python = {"aten::Int": int, "aten::floor": math.floor, "aten::ceil": math.ceil}[op]
    for x in (2.5, -2.5, -2.0**63, 9.2e18, -9.2e18):
        assert fn(x) == python(x)
    for x in BEYOND:
        with pytest.raises(fusejit.InterpreterError, match="cannot convert float"):
            fn(x)


def conversions(x):
    return int(x), math.floor(x), math.ceil(x)


def test_float_to_int_gives_one_answer_on_every_tier():
    """First call (interpreter) and later calls (the whole graph compiled by Numba) agree:
    Python's value, or an error where Python's int does not fit int64."""
    fn = fusejit.jit(conversions)
    for x in (2.5, -3.5, 1e18, -(2.0**63)):
        for _ in range(2):
            assert fn(x) == conversions(x)
    assert hasattr(fn._specialised[(float,)], "compiled")   # (the Numba tier ran)
    for x in BEYOND:
        for _ in range(2):
            with pytest.raises(fusejit.FusejitError, match="cannot convert float"):
                fn(x)


def _npz_with_header(tmp_path, header: bytes, data: bytes = b"\0" * 16):
    path = tmp_path / "in.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", header + data)
    return path


def _header(shape) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return out.getvalue()


@pytest.fixture
def ir_file(tmp_path):
    path = tmp_path / "g.ir"
    path.write_text("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x)\n  return (%y)\n")
    return path


@pytest.mark.parametrize("make, words", [
    (lambda tmp: _npz_with_header(tmp, _header((2**40,))), "declares 4398046511104 bytes"),
    (lambda tmp: _npz_with_header(tmp, _header((2**62, 2**62))), "the archive holds"),
    (lambda tmp: _npz_with_header(
        tmp, b"\x93NUMPY\x01\x00\x10\x00{'descr': os.system('id')}     \n", b""),
     "not a readable .npz archive of arrays"),
    (lambda tmp: (np.save(tmp / "one.npy", np.ones(3)), tmp / "one.npy")[1],
     "an .npz archive of named arrays is needed"),
], ids=["4TiB_header", "overflowing_header", "code_in_header", "single_npy"])
def test_run_refuses_a_hostile_npz_naming_it(capsys, tmp_path, ir_file, make, words):
    npz = make(tmp_path)
    assert main(["run", str(ir_file), str(npz)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fusejit: FusejitError: ") and str(npz) in err and words in err, err
    assert err.count("\n") == 1     # one line, no traceback


def test_ir_files_that_are_not_text_are_refused(capsys, tmp_path, monkeypatch):
    import fusejit.__main__ as cli

    binary = tmp_path / "bad.ir"
    binary.write_bytes(b"\xff\xfe graph")
    assert main(["fuse", str(binary)]) == 1
    assert "not UTF-8 text" in capsys.readouterr().err
    # (reading stops after the limit: /dev/zero is refused instead of filling memory)
    monkeypatch.setattr(cli, "MAX_IR_BYTES", 64)
    big = tmp_path / "big.ir"
    big.write_text("graph(%x : Tensor):\n" + "  # comment\n" * 20 + "  return (%x)\n")
    assert main(["fuse", str(big)]) == 1
    assert "not a graph's IR text" in capsys.readouterr().err


def test_warmup_steps_run_and_size_the_parallel_call(monkeypatch):
    """The real ``_lstm`` step (its kernels replaced by a recorder): its imports resolve, its
    big call has work for a parallel kernel, and the free-core setting is put back."""
    from fusejit.runtime import cores, warmup
    from fusejit.runtime.fusion.plan import FREE_WORK_NS

    shapes = []
    monkeypatch.setattr(fusejit, "jit", lambda fn: lambda *a: shapes.append(a[0].shape))
    before = cores.spare_cores()
    warmup._lstm(np.float32)
    assert shapes == list(warmup.lstm_sizes())
    assert math.prod(shapes[-1]) >= FREE_WORK_NS    # at least a nanosecond an element
    assert cores.spare_cores() == before


@pytest.mark.parametrize("dtype, hint", [
    (">f8", "astype(np.float64)"), (">i4", "astype(np.int32)"), (">u4", "astype(np.uint32)"),
    ("complex64", ".real or np.abs()"), ("float16", "astype(np.float32)"),
    ("V8", "bool, int or float"),
])
def test_an_unsupported_array_dtype_gets_a_hint_that_fits_it(dtype, hint):
    """(A big-endian float64 array was told to convert to float32, a uint32 one to "pass a
    numeric array", a complex one to drop its imaginary part silently.)"""
    with pytest.raises(fusejit.FusejitError, match=rf"argument 'x': .*{dtype}.*{re.escape(hint)}"):
        fusejit.jit(lambda x: x + 1)(np.zeros(2, dtype))


def test_bad_environment_values_are_named(monkeypatch):
    """``FUSEJIT_FREE_CORES=inf`` raised a bare OverflowError inside a kernel launch; a
    ``FUSEJIT_WHOLE_STAGE_ELEMENTS`` typo made ``import fusejit.autodiff`` fail."""
    import importlib

    from fusejit.autodiff import whole
    from fusejit.runtime import cores

    monkeypatch.setenv("FUSEJIT_FREE_CORES", "inf")
    with pytest.raises(fusejit.FusejitError, match="FUSEJIT_FREE_CORES must be a finite"):
        cores._env_free_cores()
    monkeypatch.setenv("FUSEJIT_WHOLE_STAGE_ELEMENTS", "12k")
    with pytest.warns(UserWarning, match="FUSEJIT_WHOLE_STAGE_ELEMENTS must be a count"):
        assert whole._env_elements() == whole._DEFAULT_ELEMENTS
    monkeypatch.setenv("FUSEJIT_WHOLE_STAGE_ELEMENTS", "4096")
    assert whole._env_elements() == 4096
    assert importlib.import_module("fusejit.autodiff.whole") is whole


def floor_divide_and_sqrt(x):
    return x // 0.3, x ** 0.5, x // x


def test_whole_graph_floor_divide_and_half_power_give_numpys_values():
    """The compiled whole-graph function (second call on) took Numba's np.floor_divide,
    floor(a / b): float32 3 // 0.3 gave 10 (NumPy 9), inf // 0.3 inf (NumPy nan); and C's pow
    for x ** 0.5, where NumPy takes sqrt: -inf ** 0.5 gave inf (NumPy nan), -0.0 gave 0.0."""
    x = np.array([3.0, np.inf, -np.inf, -0.0, 0.0, np.nan, 7.0, -5.5, 1e30, 2.0], np.float32)
    fn = fusejit.jit(floor_divide_and_sqrt)
    with np.errstate(all="ignore"):
        want = floor_divide_and_sqrt(x)
        for _ in range(2):
            got = fn(x)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype
                np.testing.assert_array_equal(g, w)
                np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
    assert hasattr(fn._specialised[((np.dtype(np.float32), 1),)], "compiled")


def test_kernel_source_of_a_graph_with_an_unused_string_constant():
    """(``kernel_source`` took such a graph for one kernel and refused the constant with an
    IRError, while ``compile`` ran it.)"""
    from fusejit.runtime.fusion import FusedKernel

    graph = fusejit.parse_ir("""graph(%x : Float(*, *)):
  %s : str = prim::Constant[value="<b>not code</b>"]()
  %one : int = prim::Constant[value=1]()
  %a : Float(*, *) = aten::mul(%x, %x)
  %b : Float(*, *) = aten::sub(%a, %x, %one)
  return (%b)
""")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    source = str(fusejit.kernel_source(graph, x))
    assert "not code" not in source
    assert FusedKernel(graph).source(x) == source


def masked_column_mean(x, groups):
    m = groups == 2
    return x[m].mean(axis=0)


def test_kernel_source_of_a_function_whose_reduction_group_declines_its_inputs():
    """``m.sum()`` beside per-column values of 8 (a row group over rows of 2000 that gives an
    output of shape (8,)) declines the row kernel, and the call runs the group unfused.
    ``kernel_source`` raised the KernelDeclined; it shows the kernels that ran."""
    x = np.arange(16000.0).reshape(2000, 8)
    groups = np.arange(2000) % 5
    f = fusejit.jit(masked_column_mean)
    source = str(fusejit.kernel_source(f, x, groups))
    assert "# kernel 0" in source and "column-reduction kernel" in source
    for _ in range(3):
        np.testing.assert_allclose(f(x, groups), masked_column_mean(x, groups), rtol=1e-12)


def rows_written_with_out(b, c, a):
    cp = np.empty_like(b)
    denom = np.empty(b.shape[1])
    np.divide(c[0], b[0], out=cp[0])
    for i in range(1, b.shape[0]):
        np.multiply(a[i], cp[i - 1], out=denom)
        np.divide(c[i], b[i] - denom, out=cp[i])
    return cp


def test_a_fused_graph_with_a_group_written_into_an_array_fuses_again():
    """``np.divide(c[0], b[0], out=cp[0])``: a group written into a row of ``cp`` whose own
    output nothing reads. Optimised a second time (``kernel_source`` of the function, or
    ``compile(graph_for(...), fuse=True)``), the pass dropping group outputs read only for
    their sizes dropped that output too (no use at all), and the group, left with none,
    raised ValueError / IndexError; it keeps it."""
    rng = np.random.default_rng(3)
    b, c, a = (rng.random((6, 5000)) + 2.0 for _ in range(3))
    f = fusejit.jit(rows_written_with_out)
    want = rows_written_with_out(b, c, a)
    for _ in range(3):
        np.testing.assert_allclose(f(b, c, a), want, rtol=1e-12)
    assert "# kernel 0" in str(fusejit.kernel_source(f, b, c, a))
    again = fusejit.compile(f.graph_for(b, c, a).copy(), fuse=True)
    np.testing.assert_allclose(again(b, c, a), want, rtol=1e-12)


@pytest.mark.parametrize("thing", [None, "graph(%x : Tensor):\n  return (%x)\n", 3])
def test_kernel_source_of_something_else_is_named(thing):
    """(It raised AttributeError: 'NoneType' object has no attribute 'nodes'.)"""
    with pytest.raises(fusejit.FusejitError, match="kernel_source needs a Graph"):
        fusejit.kernel_source(thing, np.ones(3, np.float32))


def test_a_cache_dir_written_with_a_tilde_is_the_home_directory(monkeypatch, tmp_path):
    from fusejit.runtime import compile_cache

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("FUSEJIT_CACHE_DIR", "~/kernels")
    assert compile_cache.configured_root() == tmp_path / "kernels"


def add_into(a, b):
    a += b
    return a


def test_an_in_place_operand_that_overlaps_its_target_is_read_as_numpy_reads_it():
    fn = fusejit.jit(add_into)
    for _ in range(3):   # (the second call on runs the compiled whole-graph function)
        for forward in (True, False):
            x, y = np.arange(10.0), np.arange(10.0)
            got = fn(x[1:], x[:-1]) if forward else fn(x[:-1], x[1:])
            want = add_into(y[1:], y[:-1]) if forward else add_into(y[:-1], y[1:])
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(x, y)
    assert hasattr(fn._specialised[((np.dtype(np.float64), 1),) * 2], "compiled")


def test_an_in_place_operand_that_would_broadcast_the_target_raises_on_every_call():
    # NumPy: "non-broadcastable output operand"; the compiled whole-graph function (second
    # call on) once broadcast the (6, n) operand into the (1, n) target without an error
    fn = fusejit.jit(add_into)
    for _ in range(3):
        x = np.ones((1, 8))
        with pytest.raises(fusejit.FusejitError):
            fn(x, np.full((6, 8), 0.5))
        np.testing.assert_array_equal(x, 1.0)
        np.testing.assert_array_equal(fn(np.ones((6, 8)), np.full(8, 0.5)), 1.5)


def scalar_wraps(k, j):
    s = 0.0
    s += k * 2
    return s + (k + j) - k * j


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32])
def test_numpy_integer_scalars_wrap_around_as_numpy_does(dtype):
    k, j = np.iinfo(dtype).max - 3, np.iinfo(dtype).max // 2
    fn = fusejit.jit(scalar_wraps)
    with np.errstate(over="ignore"):
        # (the wrap is in the graph, which every tier runs: the interpreter's first call checks it)
        got, want = fn(dtype(k), dtype(j)), scalar_wraps(dtype(k), dtype(j))
    assert got == want   # (a Python float where NumPy gives np.float64: a known difference)
