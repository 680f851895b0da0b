"""``move_views_into_groups``: the slices, selects and transpositions with constant arguments that
``@fusejit.jit``'s fusion groups read move into the groups, whose kernels then read the base
arrays at the views' offsets and strides. Checked: the graphs (no view left outside where only
groups read it; one left for its other readers), the values against NumPy for stencils,
differences, strided and transposed views of inputs of every layout, random slices of random
shapes against the unfused interpreter (including the native loop, which binds a kernel's
plan to its inputs' sizes and strides), an update written into a view that overlaps the views
read, and the errors of views that do not fit the call's shapes. Reversed views (``aten::flip``,
a copy in the IR) move in too, read backwards: checked against NumPy for every layout and axis,
and left outside where the array is written between the flip and the group."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fusejit
from fusejit.ir.lint import lint
from fusejit.ir.symbols import aten, prim
from fusejit.passes import fuse_graph, move_views_into_groups
from fusejit.runtime.executor import CompiledFunction
from fusejit.runtime.fusion.compiler import FusedKernel
from tests.matrix import covered, halved


def _top(graph) -> list:
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def _group_inputs(graph) -> list[int]:
    return [len(n.inputs) for n in graph.nodes() if n.kind == prim.FusionGroup]


def laplacian(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]


def diff(x):
    return x[1:] - x[:-1]


def pairs(x):
    return x[::2] * 0.5 + x[1::2]


def symmetric(a, b):
    return a + a.T - np.transpose(b, (1, 0, 2))[:, :, 1]


def shifted_and_kept(x):
    a = x[1:]
    return np.exp(a) * 2.0, a


RNG = np.random.default_rng(11)


def _layouts(shape, dtype=np.float64):
    """Arrays of ``shape``: C-ordered, Fortran-ordered, a strided view, and a broadcast one."""
    base = RNG.standard_normal(shape).astype(dtype)
    wide = RNG.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)
    row = RNG.standard_normal(shape[-1]).astype(dtype)
    return {"c": base, "f": np.asfortranarray(base), "strided": wide[..., ::2],
            "broadcast": np.broadcast_to(row, shape)}


# (f and broadcast inputs read through views in a group: the reversed views' cases below, and
# the random slices' for f)
@pytest.mark.parametrize("layout", ["c", "strided"] + [
    pytest.param(layout, marks=pytest.mark.exhaustive) for layout in ("f", "broadcast")])
def test_a_stencil_is_one_group_reading_its_array(layout):
    u = _layouts((13, 17))[layout]
    f = fusejit.jit(laplacian)
    for _ in range(3):      # (the first call plans, later ones take the remembered call)
        np.testing.assert_allclose(f(u), laplacian(u), rtol=1e-14, atol=1e-14)
    graph = f.graph_for(u)
    assert _top(graph) == [prim.FusionGroup]
    assert _group_inputs(graph) == [1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_a_difference_of_slices_is_one_kernel_reading_the_array_twice(dtype):
    f = fusejit.jit(diff)
    for n in (1, 2, 7, 1000):
        x = (RNG.standard_normal(n) * 100).astype(dtype)
        got = f(x)
        assert got.dtype == diff(x).dtype
        np.testing.assert_array_equal(got, diff(x))
    assert _top(f.graph_for(x)) == [prim.FusionGroup]
    # (a strided input: the views' strides are the input's times their steps)
    y = (RNG.standard_normal(40) * 100).astype(dtype)[::3]
    np.testing.assert_array_equal(f(y), diff(y))


@pytest.mark.parametrize("n", [0, 1, 2, 9, 10])
def test_stepped_slices_of_even_and_odd_lengths(n):
    x = RNG.standard_normal(n)
    f = fusejit.jit(pairs)
    if n % 2 and n > 1:     # (lengths n // 2 + 1 and n // 2; 1 and 0 broadcast)
        with pytest.raises(ValueError):
            pairs(x)
        with pytest.raises(fusejit.FusejitError, match="broadcast"):
            f(x)
        return
    np.testing.assert_allclose(f(x), pairs(x), rtol=1e-15)
    assert aten.slice not in _top(f.graph_for(x))


# (transposed views of f and strided inputs: the random slices' transposed programs, whose y is
# strided and whose x is Fortran-ordered in some calls)
@pytest.mark.parametrize("layout", ["c"] + [
    pytest.param(layout, marks=pytest.mark.exhaustive) for layout in ("f", "strided")])
def test_transpositions_and_a_select_of_inputs(layout):
    a = _layouts((6, 6))[layout]
    b = _layouts((6, 6, 3))[layout]
    f = fusejit.jit(symmetric)
    for _ in range(2):
        np.testing.assert_allclose(f(a, b), symmetric(a, b), rtol=1e-15)
    graph = f.graph_for(a, b)
    assert _top(graph) == [prim.FusionGroup] and _group_inputs(graph) == [2]


def test_a_view_other_nodes_read_stays_for_them():
    x = RNG.standard_normal(50)
    f = fusejit.jit(shifted_and_kept)
    y, a = f(x)
    want_y, want_a = shifted_and_kept(x)
    np.testing.assert_allclose(y, want_y, rtol=1e-15)
    np.testing.assert_array_equal(a, want_a)
    graph = f.graph_for(x)
    assert _top(graph).count(aten.slice) == 1 and prim.FusionGroup in _top(graph)


def test_fuse_graph_alone_leaves_the_views_outside():
    text = """graph(%x : Float(8, device=cpu)):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %m : int = prim::Constant[value=-1]()
  %none : NoneType = prim::Constant()
  %a : Float(7, device=cpu) = aten::slice(%x, %0, %1, %none, %1)
  %b : Float(7, device=cpu) = aten::slice(%x, %0, %none, %m, %1)
  %c : Float(7, device=cpu) = aten::sub(%a, %b, %1)
  %d : Float(7, device=cpu) = aten::mul(%c, %c)
  return (%d)
"""
    graph = fusejit.parse_ir(text)
    fuse_graph(graph)
    assert _top(graph).count(aten.slice) == 2
    assert move_views_into_groups(graph)
    lint(graph)
    assert _top(graph) == [prim.FusionGroup] and _group_inputs(graph) == [1]
    assert not move_views_into_groups(graph)


def _slice_program(starts, ends, steps, transpose: bool) -> str:
    """IR of ``(v * 3 + v * w)`` where v and w are the same chain of views of x and y."""
    lines = ["graph(%x : Double(*, *, device=cpu), %y : Double(*, *, device=cpu)):",
             "  %none : NoneType = prim::Constant()",
             "  %one : int = prim::Constant[value=1]()",
             "  %three : float = prim::Constant[value=3.]()"]
    for name in ("x", "y"):
        value = name
        for dim, (start, end, step) in enumerate(zip(starts, ends, steps)):
            args = []
            for k, v in enumerate((dim, start, end, step)):
                const = f"%{name}c{dim}_{k}"
                if v is None:
                    args.append("%none")
                    continue
                lines.append(f"  {const} : int = prim::Constant[value={v}]()")
                args.append(const)
            lines.append(f"  %{name}{dim} : Double(*, *, device=cpu) = aten::slice("
                         f"%{value}, {', '.join(args)})")
            value = f"{name}{dim}"
        if transpose:
            lines.append(f"  %{name}t : Double(*, *, device=cpu) = aten::t(%{value})")
            value = f"{name}t"
        lines.append(f"  %{name}v : Double(*, *, device=cpu) = aten::mul(%{value}, %one)")
    lines += ["  %p : Double(*, *, device=cpu) = aten::mul(%xv, %three)",
              "  %q : Double(*, *, device=cpu) = aten::mul(%xv, %yv)",
              "  %r : Double(*, *, device=cpu) = aten::add(%p, %q, %one)",
              "  return (%r)"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", halved(range(12)))
def test_random_slices_of_random_shapes_against_the_interpreter(seed):
    rng = np.random.default_rng(seed)
    bound = lambda: None if rng.random() < 0.25 else int(rng.integers(-9, 10))  # noqa: E731
    starts, ends = [bound(), bound()], [bound(), bound()]
    steps = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    text = _slice_program(starts, ends, steps, bool(rng.integers(2)))
    fused = CompiledFunction(fusejit.parse_ir(text), fuse=True, reductions=True)
    native = CompiledFunction(fusejit.parse_ir(text), fuse=True, reductions=True,
                              engine="native")
    plain = CompiledFunction(fusejit.parse_ir(text), engine="reference")
    for _ in range(4):
        shape = tuple(int(n) for n in rng.integers(0, 9, 2))
        x = _layouts(shape)["f" if rng.random() < 0.3 else "c"] if 0 not in shape \
            else np.zeros(shape)
        y = RNG.standard_normal((shape[0], 2 * shape[1]))[:, ::2]
        want = plain(x, y)
        for fn in (fused, native, native):      # (the native loop binds on its second run)
            got = fn(x, y)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-15)
    assert aten.slice not in _top(fused.graph_for(x, y))


def stencil_update(u):
    u[1:-1] = u[:-2] + u[2:] - 2 * u[1:-1]
    return u


def stencil_into(out, u):
    out[1:-1] = u[:-2] + u[2:] - 2 * u[1:-1]
    return out


def test_an_update_of_the_array_the_views_read_reads_it_before_writing():
    u = RNG.standard_normal(100)
    f = fusejit.jit(stencil_update)
    for _ in range(3):
        got, want = f(u.copy()), stencil_update(u.copy())
        np.testing.assert_allclose(got, want, rtol=1e-15)
    u, out = RNG.standard_normal(64), np.zeros(64)
    g = fusejit.jit(stencil_into)
    for _ in range(3):
        got, want = g(out.copy(), u), stencil_into(out.copy(), u)
        np.testing.assert_allclose(got, want, rtol=1e-15)
    # (the group reads u itself, and writes into the one view left: out's)
    graph = g.graph_for(out, u)
    assert _top(graph) == [aten.slice, prim.FusionGroup] and _group_inputs(graph) == [2]


def test_a_view_out_of_range_for_the_call_is_the_ops_error():
    def pick(x):
        return x[:, 3] * 2.0 + 1.0
    f = fusejit.jit(pick)
    x = RNG.standard_normal((5, 6))
    np.testing.assert_allclose(f(x), pick(x), rtol=1e-15)
    with pytest.raises(fusejit.FusejitError, match="index 3 out of range"):
        f(RNG.standard_normal((5, 2)))


def test_the_kernels_plan_names_the_cut_of_a_view_that_does_not_fit():
    graph = fusejit.parse_ir("""graph(%x : Double(*, *, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %k : int = prim::Constant[value=4]()
  %a : Double(*, device=cpu) = aten::select(%x, %one, %k)
  %b : Double(*, device=cpu) = aten::mul(%a, %a)
  return (%b)
""")
    kernel = FusedKernel(graph)
    x = RNG.standard_normal((3, 5))
    np.testing.assert_array_equal(kernel(x)[0], x[:, 4] * x[:, 4])
    with pytest.raises(fusejit.FusejitError, match=r"group input 0 \(%x, index 4 along dim 1\)"):
        kernel(RNG.standard_normal((3, 4)))


def symmetric_part(x):
    return (x + x[::-1]) * 0.5


def mirror_columns(a):
    return a[:, ::-1] - a


def flipped_all(a):
    return np.flip(a) * a + 1


def flipped_rows_cut(a):
    return np.flip(a, 0)[1:] * 2 - a[-2::-1] + a[:0:-1]


def stepped_backwards(a):
    return a[::-2] + a[::2] * 3


def reversed_update(x):
    x += x[::-1]
    return x


# Of covered()'s 20 cases (each layout with each program, each dtype), the default suite runs 8:
# each layout with a float and with an int dtype, each program in one layout at least (and
# symmetric_part's two-dimensional one, in C order); each compiles kernels of its own.
_REVERSED_KEPT = {("c", np.float32, symmetric_part), ("f", np.float32, mirror_columns),
                  ("c", np.int64, flipped_all), ("broadcast", np.float64, flipped_all),
                  ("f", np.int64, flipped_rows_cut), ("strided", np.float64, flipped_rows_cut),
                  ("broadcast", np.uint8, stepped_backwards),
                  ("strided", np.int64, stepped_backwards)}


def _kept(params, kept) -> list:
    """``params`` (of ``covered``) with the cases whose values are not in ``kept`` marked
    ``exhaustive`` too."""
    return [pytest.param(*p.values, marks=[*p.marks, *(
        [] if tuple(p.values) in kept or p.marks else [pytest.mark.exhaustive])])
        for p in params]


@pytest.mark.parametrize("layout, dtype, program", _kept(covered(
    ["c", "f", "strided", "broadcast"], [np.float32, np.float64, np.int64, np.uint8],
    [symmetric_part, mirror_columns, flipped_all, flipped_rows_cut, stepped_backwards]),
    _REVERSED_KEPT))
def test_reversed_views_are_read_backwards_by_the_group(program, dtype, layout):
    f = fusejit.jit(program)
    for shape in ((7, 5), (1, 1), (2, 300), (33, 64)):
        a = (_layouts(shape, dtype)[layout] * 50).astype(dtype)
        if layout == "broadcast":
            a = np.broadcast_to(a[0], shape)
        if program is symmetric_part and layout != "c":
            a = a[:, 0] if layout != "broadcast" else np.broadcast_to(a[0, :1], (shape[0],))
        want = program(a)
        for _ in range(3):      # (the interpreter, then the compiled plan)
            got = f(a)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert aten.flip not in _top(f.graph_for(a))


def test_an_update_of_the_reversed_array_reads_it_before_writing():
    f = fusejit.jit(reversed_update)
    for n in (1, 6, 1001, 1 << 21):      # (2^21 float64: past written_into's straight writes)
        x = RNG.standard_normal(n)
        want = reversed_update(x.copy())
        for _ in range(3):
            np.testing.assert_array_equal(f(x.copy()), want)


def test_a_flip_stays_outside_where_its_array_is_written_before_the_group():
    text = """graph(%x : Double(*, device=cpu), %y : Double(*, device=cpu)):
  %d : int[] = prim::Constant[value=[0]]()
  %one : int = prim::Constant[value=1]()
  %r : Double(*, device=cpu) = aten::flip(%x, %d)
  %x2 : Double(*, device=cpu) = aten::add_(%x, %y, %one)
  %s : Double(*, device=cpu) = aten::mul(%r, %y)
  %t : Double(*, device=cpu) = aten::add(%s, %one, %one)
  return (%t, %x2)
"""
    plain = CompiledFunction(fusejit.parse_ir(text), engine="reference")
    fused = CompiledFunction(fusejit.parse_ir(text), fuse=True, reductions=True)
    for n in (0, 5, 1000):
        x, y = RNG.standard_normal(n), RNG.standard_normal(n)
        want = plain(x.copy(), y)
        for _ in range(3):
            for got, expected in zip(fused(x.copy(), y), want):
                np.testing.assert_array_equal(got, expected)
    assert _top(fused.graph_for(x.copy(), y))[0] == aten.flip


def test_the_kernels_plan_names_a_reversed_view():
    graph = fusejit.parse_ir("""graph(%x : Double(*, *, device=cpu), %y : Double(*, *, device=cpu)):
  %d : int[] = prim::Constant[value=[0, 1]]()
  %r : Double(*, *, device=cpu) = aten::flip(%x, %d)
  %b : Double(*, *, device=cpu) = aten::mul(%r, %y)
  return (%b)
""")
    kernel = FusedKernel(graph)
    x, y = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    np.testing.assert_array_equal(kernel(x, y)[0], x[::-1, ::-1] * y)
    with pytest.raises(fusejit.FusejitError, match=r"%x, reversed along dims \[0, 1\]"):
        kernel(RNG.standard_normal((3, 4)), y)


def negative_step_slices(x):
    return (x[3:0:-2] * 2, x[:1:-1] + 1, x[2::-1] - x[:3][::-1], x[-1:-4:-2] * x[-1:-4:-2],
            x[9:0:-1] + 0.5, x[1:3:-1] * 3, x[-2::-1] + x[:-1], x[:-20:-3] * 2,
            x[20:-20:-1] - 1, x[-20::-1] + 1)


def test_negative_step_slices_of_every_bound_against_numpy():
    f = fusejit.jit(negative_step_slices)
    for n in range(13):
        x = RNG.standard_normal(n)
        want = negative_step_slices(x)
        for _ in range(2):
            for got, expected in zip(f(x), want, strict=True):
                assert got.shape == expected.shape
                np.testing.assert_array_equal(got, expected)
    assert aten.flip not in _top(f.graph_for(RNG.standard_normal(12)))


REVERSED_MATH = """graph(%x : Double(*, device=cpu), %y : Double(*, device=cpu)):
  %d : int[] = prim::Constant[value=[0]]()
  %one : int = prim::Constant[value=1]()
  %r : Double(*, device=cpu) = aten::flip(%x, %d)
  %a : Double(*, device=cpu) = aten::{op}(%r)
  %c : Double(*, device=cpu) = aten::mul(%a, %y)
  %e : Double(*, device=cpu) = aten::add(%c, %r, %one)
  return (%e)
"""


@pytest.mark.parametrize("op, exact", [
    ("neg", np.negative),                              # (one pass; streamed stores when big)
    ("sin", np.sin),                                   # (a fix-up rerun beyond its limit)
    ("lgamma", np.vectorize(math.lgamma, otypes=[float])),   # (a loop of its own)
])
def test_a_reversed_view_in_every_loop_form_of_the_kernel(op, exact):
    kernel = FusedKernel(fusejit.parse_ir(REVERSED_MATH.format(op=op)))
    for n in (1, 1000, 1 << 21):
        x = RNG.uniform(0.1, 30, n)
        x[::97] *= 1e6          # (sine's fix-up: beyond the fast form's limit)
        y = RNG.standard_normal(n)
        want = exact(x[::-1]) * y + x[::-1]
        for _ in range(2):
            np.testing.assert_allclose(kernel(x, y)[0], want, rtol=1e-12, atol=1e-12)
