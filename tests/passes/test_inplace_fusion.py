"""passes/inplace_fusion.py and runtime/fusion/written_into.py: ``x op= <fused expression>``
as one kernel writing into ``x``, checked against NumPy on copies of the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import FusejitError
from fusejit.ir.symbols import aten, prim
from fusejit.runtime.fusion import written_into


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
    x += np.concatenate([v, v]) * 2.0     # a lone map the update takes: a group of its own
    return x


def slice_written(x, h):
    d = np.zeros_like(x)
    d[1:-1] = (x[2:] - x[:-2]) / (2 * h)   # the group moves past d's slice, writes into it
    np.add(x, d, out=d)
    return d


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
    # adds and multiplications write straight into x; a division computes and copies in
    assert written_into.WrittenInto(None, groups[0]).direct
    div_graph = _DIV.graph_for(x, v)
    div_group = [n for n in div_graph.block.nodes() if n.kind == prim.FusionGroup][0]
    assert not written_into.WrittenInto(None, div_group).direct


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
    assert written_into.WrittenInto(None, groups[0]).direct      # (d not read: a division)
    np.testing.assert_allclose(compiled(x, 0.1), slice_written(x, 0.1), rtol=1e-13)
    assert not copies


# (sizes above jit's WHOLE_GRAPH_MAX_ELEMENTS, where calls run the plan and its kernels)
def _x_v(case):
    rng = np.random.default_rng(len(case))
    if case == "1-d":
        return rng.random(5000), rng.random(5000)
    if case == "strided x":          # (declined: computed into a new array, copied in)
        return rng.random((2, 10000))[:, ::2], rng.random((2, 5000))
    if case == "2-d, v broadcast":
        return rng.random((100, 50)), rng.random(50)
    if case == "float32":
        return rng.random(5000).astype(np.float32), rng.random(5000).astype(np.float32)
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["1-d", "strided x", "2-d, v broadcast", "float32"])
@pytest.mark.parametrize("fn,compiled,extra", [(add_update, _ADD, (0.1,)),
                                               (div_update, _DIV, ())],
                         ids=["add", "div"])
def test_caller_array_updated_as_numpy(case, fn, compiled, extra, monkeypatch):
    copies, copy_into = [], written_into.copy_into
    monkeypatch.setattr(written_into, "copy_into",
                        lambda *args: copies.append(1) or copy_into(*args))
    x, v = _x_v(case)
    expected = fn(x.copy(), v.copy(), *extra)
    result = compiled(x, v, *extra)
    assert result is x
    assert bool(copies) == (case == "strided x")     # else the kernel's path ran
    np.testing.assert_allclose(x, expected, rtol=1e-6 if x.dtype == np.float32 else 1e-13)


def test_target_overlapping_an_input_reads_it_first():
    base = np.random.default_rng(3).random(5001)
    expected = base.copy()
    add_update(expected[1:], expected[:-1], 0.1)
    _ADD(base[1:], base[:-1], 0.1)
    np.testing.assert_allclose(base, expected, rtol=1e-13)


def test_target_broadcast_to_a_larger_shape_raises():
    x, v = np.ones((1, 5000)), np.ones((6, 5000))
    with pytest.raises(ValueError):
        add_update(x.copy(), v, 0.1)
    with pytest.raises(FusejitError, match="broadcast shape"):
        _ADD(x, v, 0.1)
    assert np.all(x == 1.0)
