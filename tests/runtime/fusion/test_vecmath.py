"""The vectorised transcendentals in fused kernels against the operator library's NumPy bodies
on the special values: NaN, +-inf, +-0, subnormals, domain edges and the points where the fast
forms switch method. The unary ops of a dtype share six kernels, compiled once per dtype."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel, fastmath, loops, vecmath, vecspecial, vectrig
from tests.matrix import covered

from .oracle import run_subgraph

UNARY = ["exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
         "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "lgamma", "rsqrt",
         "reciprocal", "sqrt", "asinh", "acosh", "atanh"]
_TYPE = {"float32": "Float", "float64": "Double"}


def special_values(dtype) -> np.ndarray:
    info = np.finfo(dtype)
    tiny, sub = float(info.tiny), float(info.smallest_subnormal)
    edges = [0.0, np.inf, np.nan, sub, tiny * 0.5, tiny, float(info.max), 1.0, 0.5, 2.0,
             1e-30, 1e-8, 1e-3, 0.3, 0.4375, 0.6875, 1.1875, 2.4375, 0.625, 9.01, 19.1, 20.0,
             40.0, 88.72283, 88.7229, 89.0, 103.97, 104.0, 709.78, 709.79, 710.5, 745.13, 746.0,
             np.pi / 4, np.pi / 2, np.pi, 1e5, vecmath.TRIG_LIMIT, vecmath.TRIG_LIMIT * 1.5,
             vectrig.TRIG_LIMIT_F32, 0.6,
             1e22, 1e300, 1.0 - 2.0 ** -24, 1.0 + 2.0 ** -23,
             # float64 exp/sinh/cosh: where the reduction's k changes (ln2/2, 3 ln2/2), where
             # e**-x stops mattering to cosh, the subnormal and overflow thresholds
             0.34657359027997264, 1.0397207708399179, 18.37, 36.8, 708.3964185322641,
             710.4758600739439, 710.475860073944, 744.44, 7.0e-17,
             # float32 erfc: its last subnormals and the clamp of its tail form
             10.05, 10.0708, 10.1,
             # asinh, acosh: where float32's (2**125) and float64's (2**28) argument changes
             # (and the kernels' short forms end), where |x| - 1 stops being exact
             4096.0, 2.0 ** 28, 2.0 ** 53, 2.0 ** 125]
    values = np.array(edges, np.float64)
    with np.errstate(over="ignore"):
        values = values.astype(dtype)
    with np.errstate(over="ignore"):
        near = np.concatenate([np.nextafter(values, dtype(np.inf)), np.nextafter(values, dtype(0))])
    values = np.concatenate([values, near])
    return np.concatenate([values, -values])


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in ulps of want; 0 where both are NaN or equal (signs of zeros compared),
    inf where one is NaN, infinite or of another sign of zero."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(g - w) / np.spacing(np.abs(want)).astype(np.float64)
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got)
                                                                     & np.isnan(want))
    err[same] = 0.0
    err[~same & ~(np.isfinite(got) & np.isfinite(want))] = np.inf
    err[~same & (want == 0) & (got == 0)] = np.inf
    return err


_cache: dict = {}
_kernels: dict = {}

# The UNARY ops of a dtype are split over this many kernels, op i into kernel i % GROUPS:
# compiling grows faster than a kernel's size (float64, CPU time of a cold compile on a loaded
# 2-core machine, two runs each: one kernel of all 22 ops 12.6-13.1 s, 4 kernels 9.1-9.2 s,
# 6 or 8 kernels 8.2 s; float32: 6.5 s, 5.8 s for 4, 6.0 s for 8).
GROUPS = 6


def unary_kernels(dtype: str, x: np.ndarray) -> dict[str, np.ndarray]:
    """Every UNARY op of ``dtype`` on ``x``, from the GROUPS kernels that hold them (compiled
    once per dtype and shared by the tests below)."""
    if dtype not in _kernels:
        _kernels[dtype] = [(UNARY[k::GROUPS], FusedKernel(_graph(dtype, UNARY[k::GROUPS])))
                           for k in range(GROUPS)]
    results = {}
    for ops, kernel in _kernels[dtype]:
        got = kernel(x)
        assert len(got) == len(ops)
        results.update(zip(ops, got))
    assert set(results) == set(UNARY)
    return results


def _unary_results(dtype: str):
    if dtype not in _cache:
        x = special_values(np.dtype(dtype).type)
        got = unary_kernels(dtype, x)
        with np.errstate(all="ignore"):
            want = run_subgraph(_graph(dtype, UNARY), x)
        _cache[dtype] = x, {op: (got[op], w) for op, w in zip(UNARY, want)}
    return _cache[dtype]


# NumPy's own float32 functions are a few ulps off in places.
BOUND = {"float32": 3.0, "float64": 4.0}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", UNARY)
def test_unary_special_values(op, dtype):
    x, results = _unary_results(dtype)
    got, want = results[op]
    assert got.dtype == want.dtype == np.dtype(dtype)
    if op == "lgamma":
        # libm in both, but not the same implementation: ~1e-14 apart, 1e-16 near its zeros
        np.testing.assert_allclose(got, want, rtol=1e-13 if dtype == "float64" else 1e-6,
                                   atol=1e-15)
        return
    err = ulps(got, np.asarray(want))
    bad = np.flatnonzero(err > BOUND[dtype])
    assert not bad.size, [(x[i], got[i], want[i]) for i in bad[:5]]


def _graph(dtype: str, ops: list[str]):
    body = "".join(f"  %o{i} : Tensor = aten::{op}(%x)\n" for i, op in enumerate(ops))
    outs = ", ".join(f"%o{i}" for i in range(len(ops)))
    return fusejit.parse_ir(f"graph(%x : {_TYPE[dtype]}(*)):\n{body}  return ({outs})\n")


FAST = sorted(set(vecmath.F64_ULPS) - {"atan2"})


def _bound(op: str, dtype: str) -> float:
    if dtype == "float64":
        return vecmath.F64_ULPS[op]
    return vectrig.ULPS.get(op) or vecmath.F32_ULPS.get(op) or fastmath.ULP_BOUNDS[op]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_documented_ulp_bounds_on_a_dense_sample(dtype):
    """The bounds of vecmath's table, on every 65521st float32 bit pattern (float32; the oracle
    is NumPy's float64 function, unrounded) or 2^16 random float64 values of every magnitude
    (the oracle is NumPy's float64 function). The full sweeps are tools/ulp_sweep.py."""
    if dtype == "float32":
        x = np.arange(0, 1 << 32, 65521, dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        rng = np.random.default_rng(5)
        x = np.concatenate([rng.integers(0, 1 << 63, 1 << 15).view(np.float64),
                            rng.uniform(-30, 30, 1 << 15)])
        x = np.concatenate([x, -x])
    x = x[np.isfinite(x)]
    # (the kernels of every UNARY op, which test_unary_special_values compiles too: compiled
    # once per dtype, not twice; the FAST ops are checked here)
    every = unary_kernels(dtype, x)
    got = [every[op] for op in FAST]
    with np.errstate(all="ignore"):
        wide = run_subgraph(_graph("float64", FAST), x.astype(np.float64))
    failures = []
    for op, g, w in zip(FAST, got, wide):
        w = np.asarray(w)
        if op == "sigmoid" and dtype == "float32":
            w = np.where(x < -88.7228, 0.0, w)       # (where float32's e**-x overflows)
        if op in ("sin", "cos", "tan"):
            limit = vectrig.TRIG_LIMIT_F32 if dtype == "float32" else vecmath.TRIG_LIMIT
            keep = np.abs(x) <= limit       # (libm beyond: the reference's own)
            g, w = g[keep], w[keep]
        with np.errstate(all="ignore"):
            rounded = w.astype(x.dtype)
            unit = np.spacing(np.abs(rounded)).astype(np.float64)
            err = np.abs(g.astype(np.float64) - w) / unit
        # (an exact value beyond the float32 range rounds to the infinity both must give)
        same = (g == w) | (np.isnan(g) & np.isnan(w)) | ((g == rounded) & np.isinf(rounded))
        err[same] = 0.0
        err[np.isnan(err)] = np.inf
        if err.max() > _bound(op, dtype):
            failures.append(f"{op}: {err.max():.3f} ulp at x = {x[int(np.argmax(err))]!r}")
    assert not failures, failures


def _binary(text: str, dtype: str, a: np.ndarray, b: np.ndarray, precise: bool = False):
    ty = _TYPE[dtype]
    graph = fusejit.parse_ir(f"graph(%x : {ty}(*), %y : {ty}(*)):\n"
                             f"  %c : float = prim::Constant[value=-0.5]()\n"
                             f"  %h : float = prim::Constant[value=0.5]()\n"
                             f"  %n : float = prim::Constant[value=nan]()\n"
                             f"  %z : NoneType = prim::Constant()\n"
                             f"  %o : Tensor = {text}\n  return (%o)\n")
    got = FusedKernel(graph, precise=precise)(a, b)[0]
    with np.errstate(all="ignore"):
        want = np.asarray(run_subgraph(graph, a, b)[0])
    return got, want


def _grid(dtype: str):
    v = special_values(np.dtype(dtype).type)[::3]
    v = np.concatenate([v, np.array([3.0, -3.0, 0.5, -2.5, 7.0], dtype)])
    a, b = np.meshgrid(v, v)
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", ["aten::atan2(%x, %y)", "aten::pow(%x, %y)"])
def test_binary_special_values(text, dtype):
    """Every pair of special values (and, for float64 atan2, 2^15 random pairs of every
    magnitude, in the same call, within its documented bound; its ratio's two reductions share
    one division)."""
    a, b = _grid(dtype)
    bound = np.full(a.size, BOUND[dtype])
    if text.startswith("aten::atan2") and dtype == "float64":
        rng = np.random.default_rng(8)
        pairs = np.concatenate([rng.integers(0, 1 << 64, (2, 1 << 14), dtype=np.uint64)
                                .view(np.float64), rng.uniform(-4, 4, (2, 1 << 14))], axis=1)
        a, b = np.concatenate([a, pairs[0]]), np.concatenate([b, pairs[1]])
        bound = np.concatenate([bound, np.full(pairs.shape[1], vecmath.F64_ULPS["atan2"])])
    got, want = _binary(text, dtype, a, b)
    err = ulps(got, want)
    bad = np.flatnonzero(err > bound)
    assert not bad.size, [(a[i], b[i], got[i], want[i]) for i in bad[:5]]


@pytest.mark.parametrize("exponent, dtype", covered(["%c", "%h"], ["float32", "float64"],
                                                    strength=1))
def test_pow_half_powers_match_unfused(exponent, dtype):
    """pow(x, +-0.5) at -0.0 and -inf: what NumPy's power (the unfused reference) gives."""
    x = np.array([-0.0, 0.0, -np.inf, np.inf, 4.0, -4.0, np.nan], dtype)
    got, want = _binary(f"aten::pow(%x, {exponent})", dtype, x, x)
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()


@pytest.mark.parametrize("text", ["aten::clamp(%x, %n, %h)", "aten::clamp(%x, %c, %n)",
                                  "aten::clamp(%x, %n, %z)", "aten::clamp(%x, %z, %n)"])
def test_clamp_with_a_nan_bound_is_nan(text):
    x = np.array([-1.0, 0.0, 0.25, 2.0, np.nan], np.float32)
    got, want = _binary(text, "float32", x, x)
    assert np.isnan(want).all()
    np.testing.assert_array_equal(got, want)


def test_tanh_of_nan_is_nan_every_call():
    """x * nan then tanh, float32: NaN each time (an undefined int32(NaN) gave garbage)."""
    graph = fusejit.parse_ir("graph(%x : Float(*)):\n"
                             "  %n : float = prim::Constant[value=nan]()\n"
                             "  %m : Tensor = aten::mul(%x, %n)\n"
                             "  %o : Tensor = aten::tanh(%m)\n  return (%o)\n")
    kernel = FusedKernel(graph)
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    for _ in range(3):
        assert np.isnan(kernel(x)[0]).all()


def test_precise_keeps_libm():
    graph = fusejit.parse_ir("graph(%x : Float(*)):\n  %o : Tensor = aten::log1p(%x)\n"
                             "  return (%o)\n")
    x = np.linspace(0, 3, 8, dtype=np.float32)
    assert "math.log1p" in fusejit.kernel_source(graph, x, precise=True)
    assert "fm.log1p_f32" in fusejit.kernel_source(graph, x)


def test_vector_width_marks_only_its_function():
    """``vm.wide_vectors()`` gives the function it is called in LLVM's 512-bit preference
    (machine code with zmm registers on AVX-512 hosts), ``vm.vectors_256()`` the 256-bit one
    (no zmm register), and neither touches another function."""
    from llvmlite import binding
    from numba import njit

    @njit(cache=False)
    def wide(x, out):
        vecmath.wide_vectors()
        for i in range(x.size):
            out[i] = x[i] * np.float32(2.0) + np.float32(1.0)

    @njit(cache=False)
    def narrow(x, out):
        vecmath.vectors_256()
        for i in range(x.size):
            out[i] = x[i] * np.float32(2.0) + np.float32(1.0)

    @njit(cache=False)
    def plain(x, out):
        for i in range(x.size):
            out[i] = x[i] * np.float32(2.0) + np.float32(1.0)

    x = np.arange(100, dtype=np.float32)
    for fn in (wide, narrow, plain):
        out = np.empty_like(x)
        fn(x, out)
        np.testing.assert_array_equal(out, x * 2 + 1)
    assert vecmath.WIDE_ATTRIBUTE in wide.inspect_llvm(wide.signatures[0])
    assert vecmath.VECTORS_256 in narrow.inspect_llvm(narrow.signatures[0])
    text = plain.inspect_llvm(plain.signatures[0])
    assert vecmath.WIDE_ATTRIBUTE not in text and vecmath.VECTORS_256 not in text
    if binding.get_host_cpu_features().get("avx512f"):
        assert "%zmm" in wide.inspect_asm(wide.signatures[0])
        assert "%zmm" not in narrow.inspect_asm(narrow.signatures[0])


@pytest.mark.parametrize("call, width", [("aten::exp(%x)", "wide_vectors"),
                                         ("aten::add(%x, %y, %one)", "vectors_256"),
                                         ("aten::add(%x, %x, %one)", "vectors_128"),
                                         ("aten::relu(%x)", "vectors_128"),
                                         ("aten::sqrt(%x)", "vectors_256"),
                                         ("aten::reciprocal(%x)", "vectors_256")])
def test_kernels_ask_for_their_vector_width(call, width):
    """Kernels that call vectorised math ask for 512-bit vectors, memory-bound ones for 256-bit
    ones, or 128-bit ones where they read one array and neither divide nor take a square root
    (``codegen._Generator.vector_bits``), in both kernels of the module."""
    graph = fusejit.parse_ir(f"graph(%x : Float(*), %y : Float(*)):\n"
                             f"  %one : int = prim::Constant[value=1]()\n"
                             f"  %o : Tensor = {call}\n  return (%o)\n")
    x = np.ones(4, np.float32)
    text = fusejit.kernel_source(graph, x, x)
    assert text.count(f"vm.{width}()") == 2
    for other in {"wide_vectors", "vectors_256", "vectors_128"} - {width}:
        assert f"vm.{other}()" not in text


def test_float64_pow_on_random_pairs():
    """vp.pow_f64 against NumPy's power within ``F64_ULPS``'s pow bound (NumPy's is not
    correctly rounded on every host: on one AVX-512 host about 5% of its results were 1 ulp
    off, so the bound measured here is against NumPy, not the exact value): bit-pattern pairs, x in (0, 4] with y in [-40, 40], integer y, results near the
    overflow and underflow thresholds (subnormals) and x near 1 with huge y."""
    rng = np.random.default_rng(9)
    n = 1 << 13
    with np.errstate(all="ignore"):
        patterns = rng.integers(0, 1 << 63, (2, n)).view(np.float64) * rng.choice([-1.0, 1.0],
                                                                                  (2, n))
    x = np.concatenate([patterns[0], rng.uniform(0, 4, n), rng.uniform(-4, 4, n),
                        np.full(n, 2.0), np.full(n, 0.5), rng.uniform(0.999, 1.001, n)])
    y = np.concatenate([patterns[1], rng.uniform(-40, 40, n),
                        rng.integers(-20, 20, n).astype(np.float64),
                        rng.uniform(1020, 1024.5, n), rng.uniform(1020, 1080, n),
                        rng.uniform(-1e6, 1e6, n)])
    got, want = _binary("aten::pow(%x, %y)", "float64", x, y)
    err = ulps(got, want)
    worst = int(np.argmax(err))
    assert err[worst] <= vecmath.POW_F64_ULPS, (x[worst], y[worst], got[worst], want[worst])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fix_ups_across_strips(dtype):
    """Sine, cosine and tangent chained, with arguments beyond TRIG_LIMIT sprinkled over
    several strips of a cut loop (and a last, partial strip): every element as NumPy's."""
    ty = _TYPE[dtype]
    graph = fusejit.parse_ir(f"graph(%x : {ty}(*), %y : {ty}(*)):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %a : Tensor = aten::mul(%x, %y)\n"
                             "  %b : Tensor = aten::sin(%a)\n"
                             "  %c : Tensor = aten::cos(%b)\n"
                             "  %d : Tensor = aten::add(%c, %a, %one)\n"
                             "  %e : Tensor = aten::tan(%a)\n"
                             "  return (%d, %e)\n")
    rng = np.random.default_rng(4)
    n = 3 * loops.STRIP + 77
    x = rng.uniform(-10, 10, n).astype(dtype)
    y = np.where(rng.random(n) < 0.01, 3.0e7, 1.0).astype(dtype)
    d, e = FusedKernel(graph)(x, y)
    a = x * y
    rtol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(d, np.cos(np.sin(a)) + a, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(e, np.tan(a), rtol=rtol * 4, atol=rtol)


def test_parallel_kernel_leaves_fix_ups_to_the_serial_one(monkeypatch):
    """A parallel kernel (forced: no work threshold, two threads) of float64 log marks the
    strips holding an argument outside log's short form (0, negatives, subnormals, inf, NaN),
    and the serial kernel computes just those again (``loops.DEFER``): the result equals the
    serial kernel's bit for bit, and NumPy's."""
    import numba

    from fusejit.runtime.fusion import plan as plans

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    graph = _graph("float64", ["log"])
    rng = np.random.default_rng(6)
    n = 3 * 2048 - 5                                 # (three tiles of two threads' plan)
    x = rng.uniform(0.5, 4.0, n)
    x[[10, 2100, 2500, 4000]] = [-1.0, 0.0, -np.inf, 5e-324]
    x[-3:] = [np.inf, np.nan, 1e-310]
    serial = FusedKernel(graph)(x)[0]
    before = plans.num_threads()
    fusejit.set_num_threads(2)
    try:
        monkeypatch.setattr(plans, "SERIAL_WORK_NS", 0.0)
        kernel = FusedKernel(graph)
        got = kernel(x)[0]
        source = kernel.source(x)
    finally:
        fusejit.set_num_threads(before)
    parallel = source.split("def kernel_parallel")[1].split("def kernel_serial")[0]
    assert loops.DEFER in parallel and "vm.log_f64(" not in parallel
    np.testing.assert_array_equal(got, serial)
    with np.errstate(all="ignore"):
        want = np.log(x)
    np.testing.assert_allclose(got, want, rtol=2.3e-16)


def test_fix_up_writes_outputs_in_place():
    """A lone tangent (its value only written out): the vectorised loop writes the output and
    the fix-up patches it, with no buffer and copy loop between them (``loops._write_through``);
    arguments beyond TRIG_LIMIT in the middle and at the end of strips are still libm's."""
    graph = _graph("float64", ["tan"])
    n = 2 * loops.STRIP + 5
    x = np.linspace(-1.5, 1.5, n)
    x[[3, loops.STRIP - 1, loops.STRIP, n - 1]] = [2.0e7, -3.5e9, 1e300, 7.5e6]
    kernel = FusedKernel(graph)
    source = kernel.source(x)
    assert "bt" not in source and "sw1[c] = t0" in source
    np.testing.assert_allclose(kernel(x)[0], np.tan(x), rtol=1e-14)


def test_forms_for_hosts_without_avx512():
    """exp, cosh and sinh as hosts without AVX-512 compute them (``vm.SCALEF`` false: powers of
    two from bits, clamped, rather than ``vscalefpd``), on the special values and on random
    values over their whole range, within the documented bounds of NumPy's results."""
    from numba import njit

    @njit(error_model="numpy")
    def three(x, e, c, s):
        for i in range(x.size):
            e[i] = vecmath._exp_bits(x[i])
            c[i] = vecspecial._cosh_bits(x[i])
            s[i] = vecspecial._sinh_bits(x[i])

    rng = np.random.default_rng(3)
    x = np.concatenate([special_values(np.float64), rng.uniform(-750.0, 750.0, 1 << 14),
                        rng.uniform(-3.0, 3.0, 1 << 14)])
    e, c, s = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    three(x, e, c, s)
    with np.errstate(all="ignore"):
        assert ulps(e, np.exp(x)).max() <= vecmath.F64_ULPS["exp"]
        assert ulps(c, np.cosh(x)).max() <= vecmath.F64_ULPS["cosh"]
        assert ulps(s, np.sinh(x)).max() <= vecmath.F64_ULPS["sinh"]


def test_float64_pow_short_form_at_its_edges():
    """float64 x**y where y log x is just inside the short form's range (results near the
    overflow threshold and down to the smallest normals, built from exponent bits) and just
    outside it (subnormal and overflowing results): within the pow bound of NumPy's power, and
    bit-equal whether a strip is computed by the short form or, holding a pair outside it
    (x = 0), by the full form. (The kernel of ``test_float64_pow_on_random_pairs``.)"""
    rng = np.random.default_rng(10)
    n = loops.STRIP
    x = np.concatenate([np.full(n, 2.0), np.full(n, 0.5), rng.uniform(0.9, 1.1, n),
                        np.full(2 * n, 2.0)])
    ln2 = np.log(2.0)
    y = np.concatenate([rng.uniform(700.0, 708.99, n) / ln2, rng.uniform(700.0, 707.99, n) / ln2,
                        rng.uniform(700.0, 708.99, n) / np.log(x[2 * n:3 * n]),
                        rng.uniform(-745.0, -708.01, n) / ln2,
                        rng.uniform(709.01, 710.0, n) / ln2])
    spoiled = x.copy()
    spoiled[n - 1::n] = 0.0                  # one pair outside in every strip
    got, want = _binary("aten::pow(%x, %y)", "float64", x, y)
    full = _binary("aten::pow(%x, %y)", "float64", spoiled, y)[0]
    assert ulps(got, want).max() <= vecmath.POW_F64_ULPS
    keep = spoiled != 0.0
    np.testing.assert_array_equal(got[keep], full[keep])
    assert np.isinf(got[4 * n:]).any() and (got[3 * n:4 * n] < np.finfo(np.float64).tiny).any()
