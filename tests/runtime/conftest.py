"""Fixtures for the runtime tests: Numba's NRT allocation counters must balance; every fused
kernel's plan made parallel for a while; whole-graph functions compiled with a fallback that
fails the test, and their results compared with NumPy's exactly (``same_arrays``)."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager

import numpy as np
import pytest


def refuse(*args):
    """A fallback that fails the test: the values checked are the compiled function's."""
    raise AssertionError("the compiled function fell back to the interpreter")


def same_arrays(got, want) -> None:
    """``got`` is ``want`` (one result or a tuple of them): each of the same dtype and shape,
    and equal element by element (NaN where NumPy's is)."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        np.testing.assert_array_equal(g, w)


def scripted(fn, *args):
    """``fn``'s graph, scripted for arguments like ``args``."""
    from fusejit.frontend.jit import argument_ir_type
    from fusejit.frontend.script import script

    return script(fn, [argument_ir_type(f"a{i}", a) for i, a in enumerate(args)])


def compiled_whole(fn, *args):
    """``fn`` compiled as one whole-graph function for arguments like ``args``, whose fallback
    fails the test (``refuse``)."""
    from fusejit.runtime.element_function import compile_element_graph
    from fusejit.runtime.element_support import is_element_graph

    graph = scripted(fn, *args)
    assert is_element_graph(graph), graph
    return compile_element_graph(graph, refuse)


def nrt_live() -> tuple[int, int]:
    """(live NRT allocations, live meminfos) in this process."""
    from numba.core.runtime import rtsys

    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free, stats.mi_alloc - stats.mi_free


@pytest.fixture
def nrt_balanced():
    """Fail the test if it leaves Numba-allocated memory behind (typed Lists, buffers)."""
    from numba.core.runtime import _nrt_python

    from fusejit.runtime.interpreter import _load

    _load()  # initialises the NRT
    _nrt_python.memsys_enable_stats()
    before = nrt_live()
    # Everything alive now is set aside from the collector until the test is over, so the
    # collections below walk only what the test made: a full collection of a worker holding
    # the suite's compiled code took ~1 s, and a fused call on the native engine leaves cycles
    # (holding NRT memory) that only a collection frees.
    gc.freeze()
    try:
        yield
        # Forked tasks may still be unwinding on pool threads, and cycles wait for the
        # collector: look again, collecting, for a moment.
        deadline = time.monotonic() + 2.0
        while True:
            after = nrt_live()
            if all(a <= b for a, b in zip(after, before)) or time.monotonic() > deadline:
                break
            gc.collect()
            after = nrt_live()
            if all(a <= b for a, b in zip(after, before)) or time.monotonic() > deadline:
                break
            time.sleep(0.01)
    finally:
        gc.unfreeze()
    # Fewer is fine: an earlier failure's traceback may have let go of its arrays meanwhile.
    assert all(a <= b for a, b in zip(after, before)), \
        f"NRT live (allocations, meminfos) {before} -> {after}"


@pytest.fixture
def parallel_plans(monkeypatch):
    """``with parallel_plans(min_block):`` every fused kernel planned inside runs in parallel on
    two threads (``plan.SERIAL_WORK_NS`` at zero), its rows cut into blocks of at least
    ``min_block`` elements. The suite takes the machine as busy, so kernels elsewhere run
    serially. Skips the test where Numba has one thread."""
    import numba

    import fusejit
    from fusejit.runtime.fusion import plan as plans

    @contextmanager
    def parallel(min_block: int):
        if numba.config.NUMBA_NUM_THREADS < 2:
            pytest.skip("one thread only")
        before = plans.num_threads()
        fusejit.set_num_threads(2)
        try:
            with monkeypatch.context() as patch:
                patch.setattr(plans, "SERIAL_WORK_NS", 0.0)
                patch.setattr(plans, "_MIN_BLOCK", min_block)
                yield
        finally:
            fusejit.set_num_threads(before)

    return parallel
