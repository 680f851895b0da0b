"""``fuse_more_maps``: the maps with a kernel form that PyTorch's fuser list leaves out (``&``,
``|``, ``^``, ``x % 7``, integer ``//``) join ``@fusejit.jit``'s fusion groups and their
row reductions, while plain ``fuse_graph`` still leaves them alone; the values against NumPy's,
integer division by zero as the interpreter reports it, and float floor division (not fused,
NumPy's own algorithm) in a kernel against ``np.floor_divide`` on signed zeros, infinities and
NaN."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.parser import parse_ir
from fusejit.ir.symbols import aten, prim
from fusejit.passes import fuse_graph, fuse_more_maps
from fusejit.runtime import executor
from fusejit.runtime.fusion.compiler import FusedKernel


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def in_range(x, lo, hi):
    return np.count_nonzero((x >= lo) & (x < hi))


def int_mix(a, b):
    return (a * 3 + b // 2) % 7 - (a & b)


def masks(x, y):
    m = (x > 0) | (y < 0.5)
    return np.where(m ^ (x < y), x * y, 0.0)


def float_floor(x, y):
    return np.exp(x // y) * 2


RNG = np.random.default_rng(3)
X, Y = RNG.standard_normal(300), RNG.standard_normal(300)
A, B = RNG.integers(-50, 50, 300), RNG.integers(1, 9, 300) * RNG.choice([-1, 1], 300)


def test_a_mask_of_comparisons_is_one_group_inside_its_reduction():
    f = fusejit.jit(in_range)
    assert f(X, -0.5, 0.5) == in_range(X, -0.5, 0.5)
    assert _top(f.graph_for(X, -0.5, 0.5)) == [prim.RowReductionGroup, aten.Int]


def test_integer_arithmetic_with_floor_division_remainder_and_bitwise_is_one_kernel():
    f = fusejit.jit(int_mix)
    got = f(A, B)
    assert got.dtype == np.int64 and np.array_equal(got, int_mix(A, B))
    assert _top(f.graph_for(A, B)) == [prim.FusionGroup]


def test_bool_masks_with_or_and_xor_fuse_with_their_comparisons():
    f = fusejit.jit(masks)
    np.testing.assert_array_equal(f(X, Y), masks(X, Y))
    assert _top(f.graph_for(X, Y)) == [prim.FusionGroup]


def test_integer_division_by_zero_in_a_group_is_the_interpreters_error():
    f = fusejit.jit(divide_plus_one)
    np.testing.assert_array_equal(f(A, B), divide_plus_one(A, B))
    assert _top(f.graph_for(A, B)) == [prim.FusionGroup]
    with pytest.raises(fusejit.FusejitError, match="(?s)aten::floor_divide.*ZeroDivision"):
        f(A, np.where(np.arange(300) == 7, 0, B))


def divide_plus_one(a, b):
    return a // b + 1


def test_float_floor_division_fuses_with_numpys_bits():
    """NumPy's float floor division from the exact fmod (``helpers.floor_divide_of``), in the
    group with what is around it (exp: within its ulp; the quotients' bits are
    test_lone_maps's)."""
    f = fusejit.jit(float_floor)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(f(X, Y), float_floor(X, Y), rtol=1e-15)
    assert _top(f.graph_for(X, Y)) == [prim.FusionGroup]


def test_fuse_graph_alone_leaves_them_as_pytorch_does():
    ir = """graph(%x : Long(*, device=cpu), %y : Long(*, device=cpu)):
  %seven : int = prim::Constant[value=7]()
  %a : Long(*, device=cpu) = aten::__and__(%x, %y)
  %b : Long(*, device=cpu) = aten::remainder(%a, %seven)
  %c : Long(*, device=cpu) = aten::floor_divide(%b, %y)
  return (%c)
"""
    graph = parse_ir(ir)
    fuse_graph(graph)
    assert prim.FusionGroup not in _top(graph)
    fuse_more_maps(graph)
    assert _top(graph) == [prim.FusionGroup]


def _binary_graph(op: str, dtype):
    """``aten::<op>(%x, %y)`` of two arrays of ``dtype``."""
    ty = "Float" if dtype == np.float32 else "Double"
    return parse_ir(f"""graph(%x : {ty}(*), %y : {ty}(*)):
  %r : {ty}(*) = aten::{op}(%x, %y)
  return (%r)
""")


def _every_pair(special, dtype, x_range, y_range, n):
    """Every pair of ``special`` values, then ``n`` uniform pairs from the two ranges."""
    x, y = (np.array(v, dtype) for v in zip(*[(a, b) for a in special for b in special]))
    return (np.concatenate([x, RNG.uniform(*x_range, n).astype(dtype)]),
            np.concatenate([y, RNG.uniform(*y_range, n).astype(dtype)]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_kernel_is_numpys(dtype):
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -7.25, 3.0, 1e30, -1e-30, np.inf, -np.inf, np.nan]
    x, y = _every_pair(special, dtype, (-1e3, 1e3), (-9, 9), 500)
    (got,) = FusedKernel(_binary_graph("floor_divide", dtype))(x, y)
    with np.errstate(all="ignore"):
        want = np.floor_divide(x, y)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("ty, dtype", [("Long", np.int64), ("Int", np.int32)])
def test_integer_floor_division_at_the_extremes_is_numpys(ty, dtype):
    """Every pair of extremes and small values, in one kernel with remainder: the minimum
    divided by -1 wraps to the minimum, as in NumPy (Numba's own // gives 0 there)."""
    graph = parse_ir(f"""graph(%x : {ty}(*), %y : {ty}(*)):
  %q : {ty}(*) = aten::floor_divide(%x, %y)
  %r : {ty}(*) = aten::remainder(%x, %y)
  return (%q, %r)
""")
    info = np.iinfo(dtype)
    values = np.array([info.min, info.max, -1, 1, 7, -7, 2, -2], dtype)
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    q, r = FusedKernel(graph)(x, y)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(q, np.floor_divide(x, y))
        np.testing.assert_array_equal(r, np.remainder(x, y))
    assert q.dtype == r.dtype == dtype


def windowed(c, w):
    return (c[w:] - c[:-w]) / w


def int_mix_by(t, p, k):
    return (t // p) * k + t % p - (t > k)


def float_by(x, n, k):
    return (x * n - k) / n + (x >= k) + x ** n


# ints near float32's and float64's exactness limits, zero, and int64's extremes
EDGE_INTS = [0, 1, -1, 3, -7, 2 ** 24 + 1, -(2 ** 24) - 3, 2 ** 53 + 1, 2 ** 62, -(2 ** 63)]


def test_ints_that_are_not_constants_join_the_groups():
    c = np.cumsum(X)
    f = fusejit.jit(windowed)
    np.testing.assert_allclose(f(c, 5), windowed(c, 5), rtol=1e-15)
    graph = f.graph_for(c, 5)
    assert aten.div not in _top(graph) and aten.sub not in _top(graph)
    g = fusejit.jit(int_mix_by)
    np.testing.assert_array_equal(g(A, 7, 3), int_mix_by(A, 7, 3))
    assert _top(g.graph_for(A, 7, 3)).count(prim.FusionGroup) == 1


@pytest.fixture
def kernels_only(monkeypatch):
    """Fail if a group is interpreted: the answer must come from its kernel."""
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


@pytest.mark.parametrize("p", [k for k in EDGE_INTS if k])
def test_integer_maps_by_any_int_are_numpys(p, kernels_only):
    t = np.concatenate([A, [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1]])
    g = fusejit.jit(int_mix_by)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(g(t, p, 3), int_mix_by(t, p, 3))
        np.testing.assert_array_equal(g(t, 9, p), int_mix_by(t, 9, p))


def test_integer_division_by_an_int_argument_of_zero_is_the_interpreters_error():
    g = fusejit.jit(int_mix_by)
    g(A, 7, 3)
    with pytest.raises(fusejit.FusejitError, match="ZeroDivision"):
        g(A, 0, 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [k for k in EDGE_INTS if k and abs(k) < 2 ** 62])
def test_float_maps_by_any_int_are_numpys(dtype, n, kernels_only):
    x = np.concatenate([X * 2 ** 24, [2.0 ** 24, 2.0 ** 24 + 2, 2.0 ** 53, -0.0, np.inf,
                                      np.nan]]).astype(dtype)
    f = fusejit.jit(float_by)
    with np.errstate(all="ignore"):
        got, want = f(x, n, 2 ** 24 + 1), float_by(x, n, 2 ** 24 + 1)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=4e-7 if dtype == np.float32 else 1e-15)
    with np.errstate(all="ignore"):      # (the comparison alone: exact)
        np.testing.assert_array_equal(fusejit.jit(compare_with)(x, n), compare_with(x, n))


def compare_with(x, k):
    return (x >= k) & (x < k + 2) | (x == k)


DIVIDE_BY = """graph(%t : Long(*), %p : int):
  %q : Long(*) = aten::floor_divide(%t, %p)
  %r : Long(*) = aten::remainder(%t, %p)
  %f : Long(*) = aten::fmod(%t, %p)
  return (%q, %r, %f)
"""


def test_division_by_an_int_argument_uses_a_magic_number_and_is_numpys():
    """A kernel divides int64s by a number argument with the multiplier ``h.divider`` makes
    once per call (its zero test once too), not an idiv per element; every divisor's
    quotients and remainders are NumPy's: the extremes, -1, 1, powers of two and their
    neighbours, random ones."""
    kernel = FusedKernel(parse_ir(DIVIDE_BY))
    info = np.iinfo(np.int64)
    edges = [info.min, info.min + 1, info.max, info.max - 1, 1, -1, 2, -2, 3, -3, 7, -7,
             2 ** 32, -(2 ** 32), 2 ** 62, -(2 ** 62)]
    t = np.concatenate([np.array(edges + [0], np.int64),
                        RNG.integers(info.min, info.max, 3000, dtype=np.int64),
                        RNG.integers(-1000, 1000, 1000)])
    divisors = edges + [2 ** k + e for k in range(2, 63) for e in (-1, 0, 1)] + \
        [-(2 ** k) for k in range(1, 64)] + \
        [int(d) for d in RNG.integers(info.min, info.max, 100, dtype=np.int64) if d]
    source = kernel.source(t, 7)
    assert "h.divider(s0)" in source and "h.floor_divide_i" not in source
    loop = source[source.index("for c in range(n)"):]
    assert "status[0] = 1" not in loop.split("def ")[0]     # (tested before the loops)
    for p in divisors:
        q, r, f = kernel(t, p)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(q, np.floor_divide(t, np.int64(p)), err_msg=str(p))
            np.testing.assert_array_equal(r, np.remainder(t, np.int64(p)), err_msg=str(p))
            np.testing.assert_array_equal(f, np.fmod(t, np.int64(p)), err_msg=str(p))


def _ulps(got, want):
    """Units in the last place between ``got`` and ``want`` (finite, of one float dtype)."""
    kind = np.int32 if got.dtype == np.float32 else np.int64
    a, b = got.view(kind).astype(np.int64), want.view(kind).astype(np.int64)
    a = np.where(a < 0, np.iinfo(kind).min - a, a)
    b = np.where(b < 0, np.iinfo(kind).min - b, b)
    return np.abs(a - b)


@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_logaddexp_kernel_is_numpys_formula(dtype):
    """``np.logaddexp`` in a kernel (``@fusejit.jit``'s own fusion; PyTorch's list has none):
    NumPy's ``npy_logaddexp`` with the vectorisable exp and log1p, so special values (equal
    infinities, NaN, one infinity, signed zeros) are NumPy's exactly and the rest within a few
    ulps (a held-out softplus mean of 300k float64 went 4.6 -> 0.41 ms)."""
    special = [0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 1e-40, 700.0, -745.0, 88.0, np.inf, -np.inf,
               np.nan]
    x, y = _every_pair(special, dtype, (-60, 60), (-60, 60), 3000)
    (got,) = FusedKernel(_binary_graph("logaddexp", dtype))(x, y)
    with np.errstate(all="ignore"):
        want = np.logaddexp(x, y)
    assert got.dtype == dtype
    exact = ~np.isfinite(want) | (x == y) | ~np.isfinite(x) | ~np.isfinite(y)
    np.testing.assert_array_equal(got[exact], want[exact])
    assert _ulps(got[~exact], want[~exact]).max() <= 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hypot_kernel_is_correctly_rounded_without_overflow(dtype):
    """``np.hypot`` in a kernel (``vecmath.hypot_f32``/``hypot_f64``, vectorised; C's hypot
    cost 16 ns an element): special values as NumPy's (an infinity beside a NaN is inf), no
    overflow or underflow of the squares on the way (magnitudes 2**-1074 to 2**1023), float32
    NumPy's own bits, float64 within half an ulp of the exact value (glibc's is off by up to
    0.55) where long double can tell."""
    finfo = np.finfo(dtype)
    special = [0.0, -0.0, 1.0, -3.0, 4.0, float(finfo.tiny), float(finfo.smallest_subnormal),
               float(finfo.max), -float(finfo.max), 1e-30, 1e30, np.inf, -np.inf, np.nan]
    x, y = _every_pair(special, dtype, (-1, 1), (-1, 1), 3000)
    spread = np.exp2(RNG.uniform(finfo.minexp - finfo.nmant, finfo.maxexp - 1, (2, 3000)))
    x[-3000:] *= spread[0]
    y[-3000:] *= spread[1]
    (got,) = FusedKernel(_binary_graph("hypot", dtype))(x, y)
    with np.errstate(all="ignore"):
        want = np.hypot(x, y)
    assert got.dtype == dtype
    if dtype == np.float32:
        np.testing.assert_array_equal(got, want)
        return
    exact = ~np.isfinite(want) | (x == 0) | (y == 0)
    np.testing.assert_array_equal(got[exact], want[exact])
    assert _ulps(got[~exact], want[~exact]).max() <= 1
    if np.finfo(np.longdouble).nmant >= 63:
        ref = np.hypot(x.astype(np.longdouble), y.astype(np.longdouble))
        normal = ~exact & (np.abs(want) >= finfo.tiny)
        error = np.abs(got[normal] - ref[normal]) / np.spacing(got[normal]).astype(np.longdouble)
        assert error.max() <= 0.5 + 1e-6


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cbrt_kernel_is_correctly_rounded(dtype):
    """``np.cbrt`` in a kernel (``vecmath.cbrt_f32``/``cbrt_f64``, vectorised; it was
    NumPy's call between two kernels): NumPy's special values (the sign of -0.0 kept), exact
    at cubes, magnitudes from the smallest subnormal to the largest float, within half an ulp
    of the exact root (float64: where long double can tell; float32: of the float64 root).
    NumPy's (the C library's) are not: its float32 roots are off by up to 1.92 ulp (35% of
    them differ from these), its float64 ones misrounded in 0.6% of a random sample."""
    finfo = np.finfo(dtype)
    ty = "Float" if dtype == np.float32 else "Double"
    kernel = FusedKernel(parse_ir(f"""graph(%x : {ty}(*)):
  %r : {ty}(*) = fusejit::cbrt(%x)
  return (%r)
"""))
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, finfo.tiny, finfo.smallest_subnormal,
                        finfo.max, -finfo.max, 1.0, -1.0], dtype)
    (got,) = kernel(special)
    assert np.array_equal(got[:5], np.cbrt(special[:5]), equal_nan=True)
    assert np.signbit(got[1]) and not np.signbit(got[0])
    assert np.all(_ulps(got[5:], np.cbrt(special[5:])) <= 1)
    roots = np.arange(1, 300, dtype=dtype) * RNG.choice([-1, 1], 299)
    (got,) = kernel(roots ** 3)
    np.testing.assert_array_equal(got, roots)
    x = np.exp2(RNG.uniform(finfo.minexp - finfo.nmant, finfo.maxexp - 1, 20000)).astype(dtype)
    x *= RNG.choice([-1, 1], x.size).astype(dtype)
    (got,) = kernel(x)
    assert got.dtype == dtype
    assert _ulps(got, np.cbrt(x)).max() <= (2 if dtype == np.float32 else 1)
    if dtype == np.float32:
        ref = np.cbrt(x.astype(np.float64))
    elif np.finfo(np.longdouble).nmant >= 63:
        ref = np.cbrt(x.astype(np.longdouble))
    else:
        return
    error = np.abs(got - ref) / np.spacing(np.abs(got)).astype(ref.dtype)
    assert error.max() <= 0.5 + 1e-6
    # (precise kernels call the same form per element: the same values)
    precise = FusedKernel(parse_ir(f"""graph(%x : {ty}(*)):
  %r : {ty}(*) = fusejit::cbrt(%x)
  return (%r)
"""), precise=True)
    np.testing.assert_array_equal(precise(x)[0], got)


def test_a_fix_up_recomputes_the_whole_expression_of_its_node():
    """Where a strip holds an element outside a fast form's domain (log1p of inf, from NaN or
    an infinity among the values), its fix-up computes the node's whole expression with the
    exact form (softplus's threshold and division by beta included): it computed the bare
    log1p(exp(beta x)) for every element of the strip, 1999 of 2000 values off by beta."""
    from fusejit.oplib.unary import _softplus

    graph = parse_ir("""graph(%x : Double(*)):
  %b : float = prim::Constant[value=2.]()
  %t : float = prim::Constant[value=20.]()
  %l : Double(*) = aten::softplus(%x, %b, %t)
  return (%l)
""")
    x = np.linspace(-30.0, 30.0, 2000)
    x[5], x[1500] = np.nan, np.inf
    (got,) = FusedKernel(graph)(x)
    want = _softplus(x, 2.0, 20.0)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    np.testing.assert_allclose(got[finite], want[finite], rtol=4e-16, atol=0)
