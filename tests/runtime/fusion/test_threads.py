"""The serial/parallel choice by work (elements x estimated cost), ``fusejit.set_num_threads``
and ``$FUSEJIT_NUM_THREADS``. Plans only: no kernel is compiled here."""

from __future__ import annotations

import numba
import pytest

import fusejit
from fusejit.runtime import blas
from fusejit.runtime.fusion import plan as plans
from fusejit.runtime.fusion.layout import analyse


def _layout(op: str):
    return analyse(fusejit.parse_ir(f"graph(%x : Float(*)):\n  %y : Tensor = aten::{op}(%x)\n"
                                    f"  %z : Tensor = aten::mul(%y, %x)\n  return (%z)\n"))


@pytest.fixture
def restore_threads():
    before, products = numba.get_num_threads(), blas.max_threads()
    saved = list(plans._threads)
    yield
    numba.set_num_threads(before)
    blas.set_max_threads(products)   # (set_num_threads caps BLAS products too)
    plans._threads[:] = saved


def _serial(op: str, n: int) -> bool:
    return plans.make_plan(_layout(op), [(n,)], [(1,)]).serial


def test_cheap_small_is_serial_and_expensive_small_is_not(restore_threads):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    fusejit.set_num_threads(2)
    n = 2_000_000
    assert _serial("neg", n)                 # ~1.4 ms of work
    assert not _serial("lgamma", n)          # ~22 ms of work (veclgamma: ~10 ns an element)
    assert not _serial("neg", 1 << 26)


def test_one_thread_is_always_serial(restore_threads):
    fusejit.set_num_threads(1)
    assert numba.get_num_threads() == 1 and blas.max_threads() == 1
    assert _serial("lgamma", 1 << 24)


@pytest.mark.parametrize("bad", [0, -1, 2.0, "2", True, 10 ** 6])
def test_bad_thread_counts_are_refused(bad, restore_threads):
    with pytest.raises(fusejit.FusejitError, match="set_num_threads"):
        fusejit.set_num_threads(bad)


def test_environment_variable(monkeypatch, restore_threads):
    monkeypatch.setenv("FUSEJIT_NUM_THREADS", "1")
    plans._threads[:] = []
    assert plans.num_threads() == 1 and numba.get_num_threads() == 1
    monkeypatch.setenv("FUSEJIT_NUM_THREADS", "many")
    plans._threads[:] = []
    with pytest.raises(fusejit.FusejitError, match="FUSEJIT_NUM_THREADS"):
        plans.num_threads()
