"""``fuse_lone_maps``: which lone maps ``@fusejit.jit`` gives a fusion group of their own (costly
float maps, also inside loops) and which stay NumPy's (cheap maps, product exponents, float32
square roots, integers); that plain ``fuse_graph`` leaves them alone; and their kernels' values
against NumPy's on contiguous, strided and transposed inputs."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.lint import lint
from fusejit.ir.symbols import aten, prim
from fusejit.passes import fuse_graph, fuse_lone_maps
from fusejit.passes.lone_maps import COSTLY
from fusejit.runtime import executor


def _kinds(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def _grouped(graph) -> list:
    return sorted(str(n.kind) for g in graph.nodes() if g.kind == prim.FusionGroup
                  for n in g.g("Subgraph").nodes() if n.kind != prim.Constant)


IR = """graph(%x : Float(4, 8, device=cpu), %d : Double(4, 8, device=cpu),
      %i : Long(4, 8, device=cpu), %w : Float(8, 8, device=cpu)):
  %two : int = prim::Constant[value=2]()
  %q : float = prim::Constant[value=0.75]()
  %a : Float(4, 8, device=cpu) = aten::exp(%x)
  %b : Float(4, 8, device=cpu) = aten::mm(%a, %w)
  %c : Float(4, 8, device=cpu) = aten::pow(%x, %two)
  %e : Float(4, 8, device=cpu) = aten::pow(%x, %q)
  %f : Float(4, 8, device=cpu) = aten::sqrt(%x)
  %g : Double(4, 8, device=cpu) = aten::sqrt(%d)
  %h : Float(4, 8, device=cpu) = aten::abs(%x)
  %k : Long(4, 8, device=cpu) = aten::neg(%i)
  %m : Float(4, 8, device=cpu) = aten::log1p(%b)
  return (%c, %e, %f, %g, %h, %k, %m)
"""


def test_costly_lone_maps_get_groups_of_their_own():
    graph = fusejit.parse_ir(IR)
    fuse_graph(graph)
    assert prim.FusionGroup not in _kinds(graph)        # (PyTorch's fuser: all lone ops)
    assert fuse_lone_maps(graph)
    lint(graph)
    # exp (before the mm), pow by 0.75, the float64 square root, log1p (after the mm)
    assert _grouped(graph) == sorted(["aten::exp", "aten::pow", "aten::sqrt", "aten::log1p"])
    left = _kinds(graph)
    for kind in (aten.mm, aten.pow, aten.sqrt, aten.abs, aten.neg):
        assert kind in left                 # (x ** 2, float32 sqrt, abs, an integer map)
    assert not fuse_lone_maps(graph)        # (nothing more to do)


def test_costly_maps_are_those_kernels_compute_with_vectorised_math():
    """A lone map takes a kernel only for an op with a vectorised form, and every op with one
    (``templates._VEC``) counts as costly (hypot, logaddexp and cbrt: maps of
    ``@fusejit.jit``'s own fusion, with vectorised forms)."""
    from fusejit.runtime.fusion import templates

    assert set(templates._VEC) <= COSTLY <= templates.VECTOR_MATH
    assert all(kind in templates._VEC or kind in (aten.atan2, aten.sqrt, aten.rsqrt, aten.pow,
                                                  aten.hypot, aten.logaddexp, "fusejit::cbrt",
                                                  aten.fmod, aten.remainder, aten.floor_divide)
               for kind in COSTLY)


def loop_body(x, n: int):
    for _ in range(n):
        x = np.tanh(x) @ x
    return x


def lone_maps(x, y):
    return np.log1p(x), np.arctan2(x, y), x ** 0.75, np.cosh(y), x * 2.0


@pytest.fixture
def kernels_only(monkeypatch):
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


def test_a_lone_map_in_a_loop_body_is_grouped_and_fuse_graph_alone_leaves_it():
    x = np.eye(4, dtype=np.float32)
    fused = fusejit.compile(fusejit.script(loop_body), fuse=True, reductions=True)
    (loop,) = [n for n in fused.graph_for(x, 3).nodes() if n.kind == prim.Loop]
    assert prim.FusionGroup in _kinds(loop.blocks[0])
    plain = fusejit.compile(fusejit.script(loop_body), fuse=True)
    (loop,) = [n for n in plain.graph_for(x, 3).nodes() if n.kind == prim.Loop]
    assert prim.FusionGroup not in _kinds(loop.blocks[0])


@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_lone_maps_run_as_kernels_with_numpy_values(dtype, kernels_only):
    """Kernels (not NumPy) compute them, on C-ordered, strided and transposed inputs, with
    NumPy's values to a few ulp, NaN, inf and -0.0 included."""
    rng = np.random.default_rng(3)
    base = (rng.random((64, 160)) * 4).astype(dtype)
    base[0, :6] = [np.nan, np.inf, -0.0, 0.0, 1e-30, -1.0]
    y = (rng.standard_normal((64, 80)) * 3).astype(dtype)
    fused = fusejit.compile(fusejit.script(lone_maps), fuse=True, reductions=True)
    for x in (base[:, :80].copy(), base[:, ::2], base[:80, :64].T):
        yy = y[:, :x.shape[1]] if x.shape == y[:, :x.shape[1]].shape else y[:64, :64]
        kinds = _kinds(fused.graph_for(x, yy))
        # (the maps of x alone, x * 2.0 with them, are one group: ``fuse_sibling_maps``;
        # arctan2 of x and y, and cosh of y, a group each)
        assert kinds.count(prim.FusionGroup) == 3 and aten.mul not in kinds
        with np.errstate(all="ignore"):
            got, want = fused(x, yy), lone_maps(x, yy)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=2e-6 if dtype == np.float32 else 1e-14,
                                       equal_nan=True)


def lone_cbrt(x):
    return np.cbrt(x)


def test_a_lone_cbrt_gets_a_kernel_in_float64_only():
    """NumPy's float32 cbrt is SVML's on AVX-512 hosts (0.32 ns an element, a third of the
    correctly rounded form's): a lone one stays NumPy's; a float64 one (glibc's, 2 ns)
    takes a kernel."""
    for dtype, kernel in ((np.float32, False), (np.float64, True)):
        x = np.linspace(-8.0, 27.0, 5000).astype(dtype)
        jitted = fusejit.jit(lone_cbrt)
        kinds = [n.kind for n in jitted.graph_for(x).nodes()]
        assert (prim.FusionGroup in kinds) is kernel, dtype
        np.testing.assert_allclose(jitted(x), np.cbrt(x), rtol=2 * np.finfo(dtype).eps)


def inverse_hyperbolic(x, v):
    return np.arcsinh(x), np.arccosh(np.abs(x) + 1.0), np.arctanh(v)


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])
def test_inverse_hyperbolic_maps_fuse_and_run_as_kernels(dtype, kernels_only):
    """np.arcsinh, np.arccosh and np.arctanh (not on PyTorch's list) join the groups around
    them, with no NumPy call left, and a lone one gets a kernel; NumPy's values within a few
    ulp, -0.0, +-inf at +-1 and NaN outside the domain included."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(4000) * 10.0 ** rng.integers(-8, 12, 4000)).astype(dtype)
    v = rng.uniform(-1.0, 1.0, 4000).astype(dtype)
    x[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    v[:7] = [1.0, -1.0, -0.0, 1.5, -2.0, np.nan, 1e-30]
    jitted = fusejit.jit(inverse_hyperbolic)
    kinds = _kinds(jitted.graph_for(x, v))
    assert not {aten.asinh, aten.acosh, aten.atanh} & set(kinds), kinds
    with np.errstate(all="ignore"):
        got, want = jitted(x, v), inverse_hyperbolic(x, v)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=4 * np.finfo(dtype).eps, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))
    lone = fusejit.jit(lone_arctanh)
    assert prim.FusionGroup in _kinds(lone.graph_for(v))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(lone(v), np.arctanh(v), rtol=4 * np.finfo(dtype).eps,
                                   equal_nan=True)


def lone_arctanh(v):
    return np.arctanh(v)


def float_division(x, y):
    return x // y


def float_division_chain(x, y):
    return np.floor_divide(x * 2.0, y) - 1.0, np.fmod(x, y)


# (float64 floor division's bits: also test_more_maps.py's kernel test, by default)
@pytest.mark.parametrize("dtype", [np.float32,
                                   pytest.param(np.float64, marks=pytest.mark.exhaustive)])
def test_float_floor_division_and_fmod_run_as_kernels_with_numpys_bits(dtype, kernels_only):
    """Float ``//`` (alone, and fused with what is around it) and a lone np.fmod are kernels
    (NumPy's loops call C's fmod, 9-20 ns an element) with NumPy's bits: every pair of special
    values (zero divisors, infinities, NaN, signed zeros, subnormals, quotients past 2^52) and
    random pairs of every magnitude, integral ones included."""
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -3.0, 7.0, 0.1,
                        1e-40, 1e30, -1e30, 2.0 ** 60, 5e-324], dtype)
    a, b = (v.ravel() for v in np.meshgrid(special, special))
    rng = np.random.default_rng(12)
    r = (rng.standard_normal((2, 20000)) * 10.0 ** rng.integers(-5, 8, (2, 20000))).astype(dtype)
    x = np.concatenate([a, r[0], np.round(r[0])])
    y = np.concatenate([b, r[1], np.round(r[1]) + 1])
    for fn in (float_division, float_division_chain, lone_fmod):
        jitted = fusejit.jit(fn)
        assert prim.FusionGroup in _kinds(jitted.graph_for(x, y)), fn.__name__
        with np.errstate(all="ignore"):
            got, want = jitted(x, y), fn(x, y)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
            assert np.array_equal(np.signbit(g), np.signbit(w) | np.isnan(w) & np.signbit(g))


def lone_fmod(x, y):
    return np.fmod(x, y)


def cube(x):
    return x ** 3


def inverse_square(x):
    return x ** -2


def square(x):
    return x ** 2


def root(x):
    return x ** 0.5


def test_a_lone_pow_by_3_or_minus_2_gets_a_kernel_and_by_2_or_half_stays_numpys():
    """NumPy computes x ** 2 and x ** 0.5 with one ufunc each, but calls C's pow for 3 and -2
    (~60 ns an element for negative bases): those two take kernels, within 2 ulp of NumPy's
    (two products, as in a fused chain), with its special values."""
    rng = np.random.default_rng(13)
    x = rng.uniform(-5.0, 5.0, 3000)
    x[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    for fn, kernel in ((cube, True), (inverse_square, True), (square, False), (root, False)):
        jitted = fusejit.jit(fn)
        assert (prim.FusionGroup in _kinds(jitted.graph_for(x))) is kernel, fn.__name__
        with np.errstate(all="ignore"):
            got, want = jitted(x), fn(x)
        finite = np.isfinite(want) & (want != 0)
        np.testing.assert_array_equal(got[~finite], want[~finite])
        signed = ~finite & ~np.isnan(want)
        assert np.array_equal(np.signbit(got[signed]), np.signbit(want[signed]))
        assert np.all(np.abs(got[finite] - want[finite]) <= 2 * np.spacing(np.abs(want[finite])))
