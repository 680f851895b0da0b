"""A group raising to a number known only at run time (``fusion/exponents.py``): calls where
the number is 2.0 run a kernel that squares, bit for bit NumPy's ``x ** 2.0``; other numbers
keep the general kernel."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.symbols import prim
from fusejit.runtime import executor
from fusejit.runtime.fusion.exponents import ByExponent

from ..conftest import scripted


@pytest.fixture
def kernels_only(monkeypatch):
    def refuse(self, args):
        raise AssertionError(f"{self.node.kind} was interpreted, not run by its kernel")

    monkeypatch.setattr(executor.GroupOperation, "interpret", refuse)


def _fused(fn, *args):
    """``fn``'s fused plan (groups and their kernels, no whole-graph function)."""
    return fusejit.compile(scripted(fn, *args), fuse=True, reductions=True)


def shifted_power(x, g):
    y = (x * 0.5 + 1.0) ** g
    return y, (1.0 - x) ** g - x


def focal(logits, labels, alpha, gamma):
    p = 1.0 / (1.0 + np.exp(-logits))
    pt = np.clip(np.where(labels > 0.5, p, 1.0 - p), 1e-7, 1.0)
    return (-alpha * (1.0 - pt) ** gamma * np.log(pt)).mean()


def weighted_focal(p, y, alpha, gamma):
    # (NumPy's where of two Python floats is float64: float64 weights of float32 terms)
    pos = y > 0.5
    pt = np.where(pos, np.clip(p, 1e-6, 1.0 - 1e-6), 1.0 - np.clip(p, 1e-6, 1.0 - 1e-6))
    at = np.where(pos, alpha, 1.0 - alpha)
    loss = -at * (1.0 - pt) ** gamma * np.log(pt)
    return loss.mean(), loss.max()


def decayed(w, g):
    w -= 0.01 * np.abs(w) ** g
    return w


# (float64 picks by the same rule: its square runs by default in the in-place update and masked
# store below, within 1e-15 of NumPy's; float32 stays, where narrow rounding shows)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")    # (NumPy's NaN of negative ** 2.5)
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64,
                                                            marks=pytest.mark.exhaustive)])
def test_a_number_of_two_squares_as_numpy_does(dtype, kernels_only):
    """Calls alternating 2.0, 2.5 and 2.0 again (and a negative base): the 2.0 calls are
    NumPy's squares exactly, the others NumPy's powers; one fused group, whose kernel picks."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(5000) * 3).astype(dtype)
    jitted = _fused(shifted_power, x, 2.0)
    assert len(_kernels(jitted, x, 2.0)) == 1
    for g in (2.0, 2.5, 2.0, 3.0):
        got, want = jitted(x, g), shifted_power(x, g)
        for a, b in zip(got, want):
            assert a.dtype == b.dtype
            if g == 2.0:
                np.testing.assert_array_equal(a, b)
            else:   # (the second output subtracts x: near-cancelling pairs lose digits)
                tol = 2e-6 if dtype == np.float32 else 1e-14
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol * np.nanmax(np.abs(b)))


def _kernels(jitted, *args):
    plan_graph = jitted.graph_for(*args)
    return [n for n in plan_graph.nodes() if n.kind in (prim.FusionGroup,
                                                        prim.RowReductionGroup)]


def test_the_square_runs_in_the_reduction_kernel_too(kernels_only):
    """A focal loss with gamma passed as 2.0: its row kernel's source for that call has no
    pow; for 1.5 it has; both means are NumPy's."""
    rng = np.random.default_rng(5)
    logits = (rng.standard_normal(20000) * 2).astype(np.float32)
    labels = (rng.random(20000) < 0.3).astype(np.float32)
    jitted = _fused(focal, logits, labels, 0.25, 2.0)
    (group,) = _kernels(jitted, logits, labels, 0.25, 2.0)
    assert group.kind == prim.RowReductionGroup
    for gamma in (2.0, 1.5):
        got, want = jitted(logits, labels, 0.25, gamma), focal(logits, labels, 0.25, gamma)
        np.testing.assert_allclose(got, want, rtol=1e-5)
    graph = scripted(focal, logits, labels, 0.25, 2.0)
    source = str(fusejit.kernel_source(graph, logits, labels, 0.25, 2.0))
    assert "aten::pow(t10, 2.0)" in source and "vp." not in source
    assert "vp.pow" in str(fusejit.kernel_source(graph, logits, labels, 0.25, 1.5))


def test_an_update_in_place_picks_too(kernels_only):
    """``w -= 0.01 * |w| ** g``, folded into its group (written into ``w``): NumPy's values
    for 2.0 and 0.7."""
    rng = np.random.default_rng(6)
    jitted = _fused(decayed, rng.standard_normal(100), 2.0)
    (group,) = _kernels(jitted, rng.standard_normal(100), 2.0)
    assert group.has_attribute("written_into")
    for g in (2.0, 0.7, 2.0):
        w = rng.standard_normal(3000)
        want = decayed(w.copy(), g)
        got = jitted(w, g)
        assert got is w or np.shares_memory(got, w)
        np.testing.assert_allclose(w, want, rtol=1e-15)


def test_precise_kernels_keep_libm():
    from fusejit.runtime.devices import CpuDevice

    (group,) = _kernels(_fused(shifted_power, np.ones(10), 2.0), np.ones(10), 2.0)
    assert isinstance(CpuDevice().group_kernel(group, False), ByExponent)
    assert not isinstance(CpuDevice().group_kernel(group, True), ByExponent)


def _loop_of(source: str, needle: str) -> list[str]:
    """The body of the innermost ``for c in range`` loop holding the line with ``needle``."""
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if needle in line)
    start = at
    while not lines[start].lstrip().startswith("for c in range"):
        start -= 1
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return body


def test_a_float32_logarithm_has_a_loop_apart_from_float64_work(kernels_only):
    """A focal loss's float32 log(pt) beside its float64 weights: the logarithm's short form
    runs in a loop with no float64 value, where LLVM vectorises it (one loop of both ran 5x
    slower); NumPy's mean and max."""
    rng = np.random.default_rng(8)
    p = rng.random(30000, dtype=np.float32)
    labels = (rng.random(30000) < 0.2).astype(np.float32)
    graph = scripted(weighted_focal, p, labels, 0.25, 2.0)
    source = str(fusejit.kernel_source(graph, p, labels, 0.25, 2.0))
    loop = _loop_of(source, "fm.log_inside_f32(")
    assert not any("np.float64(" in line and not line.strip().startswith("#") for line in loop)
    assert any("np.float64(" in line for line in source.splitlines())
    jitted = _fused(weighted_focal, p, labels, 0.25, 2.0)
    for got, want in zip(jitted(p, labels, 0.25, 2.0), weighted_focal(p, labels, 0.25, 2.0)):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def powered_below(x, g):
    x[x < 0.5] = np.abs(x[x < 0.5]) ** g
    return x


def test_a_masked_store_keeps_its_mask_kernel(kernels_only):
    """``x[m] = |x[m]| ** g``: the group writing into x picks by exponent and keeps the
    masked store's own path (NumPy's assignment where the mask holds); NumPy's values."""
    from fusejit.runtime.devices import CpuDevice
    from fusejit.runtime.fusion.written_into import WrittenInto

    rng = np.random.default_rng(9)
    x = rng.standard_normal(20000)
    jitted = _fused(powered_below, x, 2.0)
    (group,) = _kernels(jitted, x, 2.0)
    kernel = CpuDevice().group_kernel(group, False)
    assert isinstance(kernel, WrittenInto) and isinstance(kernel.kernel, ByExponent)
    assert kernel.masked is not None
    for g in (2.0, 1.5):
        a = rng.standard_normal(20000)
        want = powered_below(a.copy(), g)
        np.testing.assert_allclose(jitted(a, g), want, rtol=1e-15)
