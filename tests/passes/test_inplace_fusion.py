"""passes/inplace_fusion.py and runtime/fusion/written_into.py: ``x op= <fused expression>``
as one kernel writing into ``x``, checked against NumPy on copies of the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import FusejitError
from fusejit.ir.symbols import aten, prim
from fusejit.runtime.fusion import written_into
from tests.matrix import covered


def add_update(x, v, dt):
    x += v * dt + 0.5 * v * v
    return x


def div_update(x, v):
    x /= 1.0 + v * v
    return x


def reads_target(x, v):
    x[...] = x * v + 1.0      # the group reads x at the positions it writes
    x *= v * v - 2.0
    return x


def chunked(x, v):
    x += np.concatenate([v * 2.0, v - 1.0])     # a concat in the group: left to aten::add_
    return x


def lone_map(x, v):
    # a lone map the update takes: a group of its own (of the reversed concatenation: a map
    # of the concatenation itself is a kernel writing one, passes/maps_over_cat.py)
    x += np.concatenate([v, v])[::-1] * 2.0
    return x


def slice_written(x, h):
    d = np.zeros_like(x)
    d[1:-1] = (x[2:] - x[:-2]) / (2 * h)   # the group moves past d's slice, writes into it
    np.add(x, d, out=d)
    return d


def out_chain(x, y, s):
    z = np.empty_like(x)
    np.subtract(x, y, out=z)
    z *= s
    z += 2
    np.exp(z, out=z)
    z /= 3.0
    return z


def empty_shape(x, y):
    z = np.empty(x.shape, dtype=x.dtype)
    np.multiply(x, y, out=z)
    return z


def scaled_after(a, b, c, s):
    y = a * b + c
    y *= 2.0
    y -= s
    return y


def scaled_after_a_use(a, b):
    y = a * b
    t = y.sum()       # (sees y before the update: a value, passes/fresh_updates.py)
    y *= 3
    return y, t


def argument_target(z, w):
    z[...] = w * 2.0          # w may be z itself: the second group must read it updated
    z *= w + 1.0
    return z


def view_between(x, y):
    z = np.zeros_like(x)
    np.add(x, y, out=z)
    np.multiply(z[::-1], 3.0, out=z)     # reads z (reversed) as it was after the add
    return z


def written_in_part(x):
    z = np.zeros_like(x)
    z[1:] = x[1:] * 2.0      # z[0] stays 0
    return z


def read_first(x):
    z = np.ones_like(x)
    z += np.sqrt(x)
    return z


_ADD = fusejit.jit(add_update)
_DIV = fusejit.jit(div_update)


def _kinds(graph):
    return [n.kind for n in graph.block.nodes()]


def test_update_joins_the_group():
    x, v = np.ones(8), np.ones(8)
    graph = _ADD.graph_for(x, v, 0.1)
    groups = [n for n in graph.block.nodes() if n.kind == prim.FusionGroup]
    assert aten.add_ not in _kinds(graph)
    assert len(groups) == 1 and groups[0].has_attribute("written_into")
    assert groups[0].inputs[groups[0].i("written_into")] is graph.inputs[0]
    # adds and multiplications write straight into an x bigger than the caches (in them,
    # their loop into a new array, vectorised, and the copy cost less); a division computes
    # and copies in
    big, small = np.empty(written_into._STRAIGHT_FROM // 8), np.empty(1000)
    assert written_into.WrittenInto(None, groups[0]).straight(big)
    assert not written_into.WrittenInto(None, groups[0]).straight(small)
    div_graph = _DIV.graph_for(x, v)
    div_group = [n for n in div_graph.block.nodes() if n.kind == prim.FusionGroup][0]
    assert not written_into.WrittenInto(None, div_group).straight(big)


def test_group_reading_the_target_writes_into_it():
    compiled = fusejit.jit(reads_target)
    x, v = np.random.default_rng(1).random((2, 5000))
    kinds = _kinds(compiled.graph_for(x, v))
    assert aten.copy_ not in kinds and aten.mul_ not in kinds
    expected = reads_target(x.copy(), v)
    assert compiled(x, v) is x
    np.testing.assert_allclose(x, expected, rtol=1e-13)
    with pytest.raises(FusejitError, match="broadcast shape"):   # x (1, n) read as (6, n)
        compiled(np.ones((1, 5000)), np.ones((6, 5000)))


def test_group_with_a_concat_keeps_the_update():
    graph = fusejit.jit(chunked).graph_for(np.ones(8), np.ones(4))
    assert aten.add_ in _kinds(graph)


def test_lone_maps_and_slices_of_the_target_join_the_update(monkeypatch):
    """A lone map the update takes gets a group (``passes/lone_maps.py``); a slice of the
    target made after the group is passed over; neither needs aten::copy_ or add_, and a
    group that does not read the target writes into it directly."""
    copies, copy_into = [], written_into.copy_into
    monkeypatch.setattr(written_into, "copy_into",
                        lambda *args: copies.append(1) or copy_into(*args))
    rng = np.random.default_rng(4)
    x, v = rng.random(10000), rng.random(5000)
    compiled = fusejit.jit(lone_map)
    assert aten.add_ not in _kinds(compiled.graph_for(x, v))
    expected = lone_map(x.copy(), v)
    assert compiled(x, v) is x
    np.testing.assert_allclose(x, expected, rtol=1e-13)

    compiled = fusejit.jit(slice_written)
    graph = compiled.graph_for(x, 0.1)
    assert aten.copy_ not in _kinds(graph) and aten.add_ not in _kinds(graph)
    groups = [n for n in graph.block.nodes() if n.kind == prim.FusionGroup]
    assert len(groups) == 2 and all(g.has_attribute("written_into") for g in groups)
    assert written_into.WrittenInto(None, groups[0]).unread      # (d not read: a division)
    np.testing.assert_allclose(compiled(x, 0.1), slice_written(x, 0.1), rtol=1e-13)
    assert not copies


# (sizes above jit's WHOLE_GRAPH_MAX_ELEMENTS, where calls run the plan and its kernels)
def _x_v(case):
    rng = np.random.default_rng(len(case))
    if case == "1-d":
        return rng.random(5000), rng.random(5000)
    if case == "strided x":          # (the kernel's output copied in: not C-contiguous)
        return rng.random((2, 10000))[:, ::2], rng.random((2, 5000))
    if case == "2-d, v broadcast":
        return rng.random((100, 50)), rng.random(50)
    if case == "float32":
        return rng.random(5000).astype(np.float32), rng.random(5000).astype(np.float32)
    raise AssertionError(case)


# (each update and each case once: the division's other cases, the addition's strided x, are
# the same writes into the caller's array)
@pytest.mark.parametrize("fn, compiled, extra, case", [
    pytest.param(*update, case, marks=p.marks, id=f"{update[0].__name__[:3]}-{case}")
    for p in covered([(add_update, _ADD, (0.1,)), (div_update, _DIV, ())],
                     ["1-d", "strided x", "2-d, v broadcast", "float32"], strength=1)
    for update, case in [p.values]])
def test_caller_array_updated_as_numpy(case, fn, compiled, extra, monkeypatch):
    copies, copy_into = [], written_into.copy_into
    monkeypatch.setattr(written_into, "copy_into",
                        lambda *args: copies.append(1) or copy_into(*args))
    x, v = _x_v(case)
    expected = fn(x.copy(), v.copy(), *extra)
    result = compiled(x, v, *extra)
    assert result is x
    assert not copies     # (the kernel ran: into x, or into a new array copied into x)
    np.testing.assert_allclose(x, expected, rtol=1e-6 if x.dtype == np.float32 else 1e-13)


def heat_step(u, alpha):
    u[1:-1] += alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


@pytest.mark.parametrize("fn, args", [(add_update, lambda b: (b[1:], b[:-1], 0.1)),
                                      (heat_step, lambda b: (b, 0.25))],
                         ids=["add_update", "heat_step"])
def test_target_overlapping_an_input_reads_it_first(fn, args, monkeypatch):
    """The group reads every input before the target is written, as NumPy computes the
    right-hand side into a temporary: the kernel computes into a new array, copied in (not
    the interpreter's op-by-op ``copy_into``)."""
    copies, copy_into = [], written_into.copy_into
    monkeypatch.setattr(written_into, "copy_into",
                        lambda *a: copies.append(1) or copy_into(*a))
    compiled = fusejit.jit(fn)
    for _ in range(2):
        base = np.random.default_rng(3).random(5001)
        expected = base.copy()
        fn(*args(expected))
        compiled(*args(base))
        np.testing.assert_allclose(base, expected, rtol=1e-13)
    assert not copies


def test_target_broadcast_to_a_larger_shape_raises():
    x, v = np.ones((1, 5000)), np.ones((6, 5000))
    with pytest.raises(ValueError):
        add_update(x.copy(), v, 0.1)
    with pytest.raises(FusejitError, match="broadcast shape"):
        _ADD(x, v, 0.1)
    assert np.all(x == 1.0)


def _updates(graph):
    return [n for n in graph.block.nodes()
            if n.kind == prim.FusionGroup and n.has_attribute("written_into")
            or n.kind in (aten.add_, aten.mul_, aten.div_, aten.copy_)]


_SHAPES = [(10000,), (300, 40), (7,)]


@pytest.mark.parametrize("dtype, shape", [
    pytest.param(*p.values, marks=p.marks,
                 id=f"{p.values[0].__name__}-shape{_SHAPES.index(p.values[1])}")
    for p in covered([np.float32, np.float64], _SHAPES, strength=1)])
def test_successive_updates_of_a_new_array_are_one_kernel(shape, dtype):
    """``np.empty_like`` then ``out=`` and ``op=`` updates, by arrays and numbers: one group
    writing into the array, which it does not read, and no zero fill (``aten::empty_like``)."""
    rng = np.random.default_rng(5)
    x, y = rng.random(shape).astype(dtype), rng.random(shape).astype(dtype)
    compiled = fusejit.jit(out_chain)
    graph = compiled.graph_for(x, y, 0.7)
    (group,) = _updates(graph)
    assert not group.g("Subgraph").inputs[group.i("written_into")].uses
    assert aten.full_like not in _kinds(graph) and aten.empty_like in _kinds(graph)
    assert written_into.WrittenInto(None, group).unread
    for _ in range(2):
        np.testing.assert_allclose(compiled(x, y, 0.7), out_chain(x, y, 0.7),
                                   rtol=2e-6 if dtype == np.float32 else 1e-13)
    with pytest.raises(FusejitError, match="broadcast shape"):
        compiled(np.ones((1, 5000), dtype), np.ones((6, 5000), dtype), 0.7)


def test_numbers_updating_a_new_array_join_its_group():
    rng = np.random.default_rng(9)
    a, b, c = rng.random((3, 10000))
    compiled = fusejit.jit(scaled_after)
    kinds = _kinds(compiled.graph_for(a, b, c, 0.3))
    assert kinds.count(prim.FusionGroup) == 1 and aten.mul_ not in kinds \
        and aten.sub_ not in kinds
    for _ in range(2):
        np.testing.assert_allclose(compiled(a, b, c, 0.3), scaled_after(a, b, c, 0.3),
                                   rtol=1e-13)
    compiled = fusejit.jit(scaled_after_a_use)
    assert aten.mul_ not in _kinds(compiled.graph_for(a, b))
    for _ in range(2):
        for got, want in zip(compiled(a, b), scaled_after_a_use(a, b)):
            np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=pytest.mark.exhaustive),
                                   np.float64])
def test_an_empty_array_written_whole_is_not_filled(dtype):
    rng = np.random.default_rng(8)
    x, y = rng.random((300, 40)).astype(dtype), rng.random(40).astype(dtype)
    compiled = fusejit.jit(empty_shape)
    kinds = _kinds(compiled.graph_for(x, y))
    assert aten.empty in kinds and aten.zeros not in kinds
    for _ in range(2):
        np.testing.assert_array_equal(compiled(x, y), empty_shape(x, y))


def test_updates_that_may_see_an_alias_stay_apart():
    """The merged group would read its other inputs before writing: not where one may share
    the array's memory (an argument, which the caller may pass twice; a view of the array)."""
    rng = np.random.default_rng(6)
    compiled = fusejit.jit(argument_target)
    z = rng.random(10000)
    assert len(_updates(compiled.graph_for(z, z))) == 2
    for _ in range(2):
        a, b = z.copy(), z.copy()
        np.testing.assert_allclose(compiled(a, a), argument_target(b, b), rtol=1e-13)
    x, y = rng.random((2, 10000))
    compiled = fusejit.jit(view_between)
    assert len(_updates(compiled.graph_for(x, y))) == 2
    np.testing.assert_allclose(compiled(x, y), view_between(x, y), rtol=1e-13)


@pytest.mark.parametrize("fn", [written_in_part, read_first])
def test_arrays_read_or_written_in_part_keep_their_fill(fn):
    """A fill written in part keeps its fill; one read by its update is a value instead
    (passes/fresh_updates.py: the ones a broadcast number, no fill, no update)."""
    x = np.random.default_rng(7).random(10000)
    compiled = fusejit.jit(fn)
    kinds = _kinds(compiled.graph_for(x))
    if fn is written_in_part:
        assert aten.full_like in kinds
    else:
        assert aten.full_like not in kinds and aten.add_ not in kinds
    for _ in range(2):
        np.testing.assert_array_equal(compiled(x), fn(x))


def relu_in_place(a):
    a[a < 0] = 0


def clip_in_place(a, lo, hi):
    a[a < lo] = lo
    a[a > hi] = hi
    return a


def take_where_larger(x, y):
    larger = y > x
    x[larger] = y[larger]
    return x


def cap_rows(x, caps):
    x[x > caps] = -1.5
    return x


@pytest.mark.parametrize("fn, make", [
    (relu_in_place, lambda r: (r.standard_normal((300, 40)).astype(np.float32),)),
    # (an int array: the same mask and masked store as the float arrays')
    pytest.param(relu_in_place, lambda r: (r.integers(-5, 5, 9000),),
                 marks=pytest.mark.exhaustive),
    (clip_in_place, lambda r: (r.standard_normal(9000) * 3, -1.0, 1.5)),
    (take_where_larger, lambda r: (r.standard_normal(9000), r.standard_normal(9000))),
    (cap_rows, lambda r: (r.standard_normal((200, 50)), r.standard_normal(50))),
], ids=["relu f32", "relu int", "clip", "array values", "broadcast mask"])
def test_masked_stores_write_where_numpy_writes(fn, make, monkeypatch):
    """``a[a < 0] = 0`` as one group written into ``a``: the kernel computes the mask (and
    the values, unless they are an input) and NumPy's masked assignment writes them
    (``WrittenInto._store``), on arrays with masked elements and without."""
    stores = []
    store = written_into.WrittenInto._store
    monkeypatch.setattr(written_into.WrittenInto, "_store",
                        lambda self, *a: stores.append(store(self, *a)) or stores[-1])
    rng = np.random.default_rng(8)
    compiled = fusejit.jit(fn)
    for _ in range(3):
        args = make(rng)
        want_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        want = fn(*want_args)
        got = compiled(*args)
        np.testing.assert_array_equal(args[0], want_args[0])
        if want is not None:
            assert got is args[0]
        compiled(*args)                  # (again: nothing left to mask)
        fn(*want_args)
        np.testing.assert_array_equal(args[0], want_args[0])
    assert stores and all(stores)


def stepped(x, v, dt, n):
    for _ in range(n):
        x += v * dt + 1.0
        v *= 0.99
    return x, v


def test_updates_inside_a_loop_join_their_groups():
    """A time step's ``x += <expression>`` is one kernel writing into ``x`` too (the loop's
    body was left two passes: the group's new array, then NumPy's add_); the caller's arrays
    end as NumPy leaves them, and ``kernel_source`` shows the update's kernel."""
    compiled = fusejit.jit(stepped)
    x, v = np.random.default_rng(2).random((2, 5000))
    graph = compiled.graph_for(x, v, 0.1, 3)
    loop = next(n for n in graph.block.nodes() if n.kind == prim.Loop)
    body = list(loop.blocks[0].nodes())
    assert aten.add_ not in [n.kind for n in body]
    assert any(n.kind == prim.FusionGroup and n.has_attribute("written_into") for n in body)
    mine, theirs = (x.copy(), v.copy()), (x.copy(), v.copy())
    for _ in range(2):
        got, want = compiled(*mine, 0.1, 3), stepped(*theirs, 0.1, 3)
        assert got[0] is mine[0] and got[1] is mine[1]
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert "# kernel 0" in str(fusejit.kernel_source(compiled, x, v, 0.1, 3))


def fall(y, vy, dt, n):
    for _ in range(n):
        y += vy * dt            # (a lone multiplication: cheap alone, one pass with the add)
    return y


def test_a_lone_map_an_update_in_a_loop_takes_joins_it():
    compiled = fusejit.jit(fall)
    y, vy = np.random.default_rng(3).random((2, 5000))
    graph = compiled.graph_for(y, vy, 0.01, 4)
    loop = next(n for n in graph.block.nodes() if n.kind == prim.Loop)
    kinds = [n.kind for n in loop.blocks[0].nodes()]
    assert aten.mul not in kinds and aten.add_ not in kinds
    mine, theirs = y.copy(), y.copy()
    np.testing.assert_array_equal(compiled(mine, vy, 0.01, 4), fall(theirs, vy, 0.01, 4))
    np.testing.assert_array_equal(mine, theirs)


def stencil(u, a, n):
    for _ in range(n):
        u[1:-1] += a * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def test_a_stencil_update_in_a_loop_stays_numpys():
    """An update whose group reads other views of the array (``u[2:]``, ``u[:-2]``) would
    always be computed into a new array and copied in at run time: in a loop it stays the
    group's new array and NumPy's add_. NumPy's values either way."""
    compiled = fusejit.jit(stencil)
    u = np.random.default_rng(4).random(5000)
    loop = next(n for n in compiled.graph_for(u, 0.2, 3).block.nodes() if n.kind == prim.Loop)
    assert aten.add_ in [n.kind for n in loop.blocks[0].nodes()]
    mine, theirs = u.copy(), u.copy()
    np.testing.assert_array_equal(compiled(mine, 0.2, 3), stencil(theirs, 0.2, 3))
    np.testing.assert_array_equal(mine, theirs)


def flip_above(x, n):
    for _ in range(n):
        x += 0.1
        x[x > 0.5] *= -1.0
    return x


def test_a_dense_masked_store_writes_in_one_pass_a_sparse_one_through_numpy(monkeypatch):
    """A masked store's mask is sampled every ``_SAMPLE_EVERY`` calls: dense (over
    ``_DENSE`` of it set), the group writes the array in one pass (NumPy's masked
    assignment branches per element: 731 us for 200k float64 a third set, against ~100);
    sparse, NumPy's masked assignment writes only where it holds. NumPy's values both ways,
    over steps whose masks go from dense to sparse."""
    from fusejit.runtime.fusion.compiler import FusedKernel

    calls = {"one pass": 0, "store": 0}
    write_into, store = FusedKernel.write_into, written_into.WrittenInto._store

    def counted_store(self, *args):
        calls["store"] += 1
        return store(self, *args)

    def counted_write(kernel, *args):
        calls["one pass"] += 1
        return write_into(kernel, *args)

    monkeypatch.setattr(written_into.WrittenInto, "_store", counted_store)
    monkeypatch.setattr(FusedKernel, "write_into", counted_write)
    x = np.random.default_rng(5).standard_normal(20_000) * 0.1 + 0.45   # (half above 0.5)
    compiled = fusejit.jit(flip_above)
    mine, theirs = x.copy(), x.copy()
    np.testing.assert_array_equal(compiled(mine, 60), flip_above(theirs, 60))
    np.testing.assert_array_equal(mine, theirs)
    # (an array this small takes the dense steps' whole where into a new array, copied in:
    # its loop into x itself would not vectorise)
    assert calls["store"] and not calls["one pass"]
    monkeypatch.setattr(written_into, "_STRAIGHT_FROM", 0)     # (as an array beyond the caches)
    compiled = fusejit.jit(flip_above)
    mine, theirs = x.copy(), x.copy()
    np.testing.assert_array_equal(compiled(mine, 60), flip_above(theirs, 60))
    np.testing.assert_array_equal(mine, theirs)
    assert calls["one pass"] and calls["store"]


def scrambled(x, steps):
    for _ in range(steps):
        x ^= x << 13
        x ^= x >> 17
        x ^= x << 5
    return x


def scaled_then_added(x, y, steps):
    for _ in range(steps):
        x -= 0.5 * x * x
        x += 0.25 * y       # (y may be x: the caller passes one array twice)
    return x


def _loop_updates(compiled, *args):
    graph = compiled.graph_for(*args)
    loop = next(n for n in graph.block.nodes() if n.kind == prim.Loop)
    return [n for n in loop.blocks[0].nodes()
            if n.kind == prim.FusionGroup and n.has_attribute("written_into")]


def test_successive_updates_by_numbers_in_a_loop_are_one_kernel():
    """A time step's ``x ^= x << 13; x ^= x >> 17; x ^= x << 5`` (a xorshift generator's
    step) is one group writing into ``x`` (three, each a pass, before): the later updates read
    numbers only, which cannot share the memory of ``x``, whatever array the loop carries. One
    reading another array (which may be ``x`` itself) stays apart."""
    x = np.random.default_rng(11).integers(1, 1 << 32, 5000, dtype=np.uint32)
    compiled = fusejit.jit(scrambled)
    assert len(_loop_updates(compiled, x, 4)) == 1
    mine, theirs = x.copy(), x.copy()
    for _ in range(2):
        got = compiled(mine, 4)
        assert got is mine
        np.testing.assert_array_equal(got, scrambled(theirs, 4))
    compiled = fusejit.jit(scaled_then_added)
    z = np.random.default_rng(12).random(5000)
    assert len(_loop_updates(compiled, z, z, 3)) == 2
    mine, theirs = z.copy(), z.copy()
    for _ in range(2):
        np.testing.assert_allclose(compiled(mine, mine, 3), scaled_then_added(theirs, theirs, 3),
                                   rtol=1e-13)


def fmix(keys):
    h = keys.copy()
    h ^= h >> 16
    h *= 0x85EBCA6B         # (wraps: NumPy's uint32 product)
    h ^= h >> 13
    h += 7
    h -= 3
    return h


@pytest.mark.parametrize("dtype", [np.uint32,
                                   pytest.param(np.int64, marks=pytest.mark.exhaustive)])
def test_integer_updates_by_constant_ints_join_the_group(dtype):
    """A hash finaliser's ``h *= 0x85EBCA6B`` joined no group (only float arrays' updates by
    numbers did): a pass each. Integer products wrap in the kernel as in NumPy's update."""
    info = np.iinfo(dtype)
    keys = np.random.default_rng(13).integers(info.min, info.max, 5000, dtype=dtype)
    compiled = fusejit.jit(fmix)
    kinds = _kinds(compiled.graph_for(keys))
    assert kinds.count(prim.FusionGroup) == 1 and aten.mul_ not in kinds \
        and aten.add_ not in kinds and aten.sub_ not in kinds
    for _ in range(2):
        got = compiled(keys)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, fmix(keys))
