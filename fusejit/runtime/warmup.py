"""``python -m fusejit warmup``: compile ahead of time what a first call would, for images and CI.

Steps, each loaded from the cache when it is already there::

    [1/4] warmup: the native interpreter loop            (minutes on a cold cache)
    [2/4] warmup: kernel helpers and native kernel entries
    [3/4] warmup: LSTM cell kernels, float32, serial and parallel
    [4/4] warmup: LSTM cell kernels, float64, serial and parallel

The kernels are those of ``fusejit.examples.lstm_cell`` (what ``demo`` runs), on the native
engine, at a size below and one above the parallel threshold.
"""

from __future__ import annotations

import os

import numpy as np

from .status import Progress


def _loop() -> None:
    from .tiering import warm_native

    warm_native(wait=True)   # (after a background compile of it, if one is running)


def _helpers() -> None:
    # The helpers compile with the first kernel that calls them; a one-op graph is the
    # cheapest such kernel.
    from .. import compile, parse_ir

    graph = parse_ir("graph(%x : Tensor):\n  %y : Tensor = aten::tanh(%x)\n"
                     "  %z : Tensor = aten::sigmoid(%y)\n  return (%z)\n")
    fn = compile(graph, fuse=True, engine="native")
    fn(np.ones((2, 3), np.float32))


def lstm_sizes() -> list[tuple[int, int]]:
    """(batch, hidden) of the two warmup calls: one below the parallel threshold, one whose
    kernel work passes it even at one nanosecond an element (``FREE_WORK_NS``, the threshold
    while cores are free, which ``_lstm`` assumes)."""
    from .fusion.plan import FREE_WORK_NS

    hidden = 64
    return [(2, 8), (FREE_WORK_NS // hidden + 1, hidden)]


def _lstm(dtype) -> None:
    from .. import jit
    from ..examples import lstm_cell
    from . import cores
    from .fusion.plan import num_threads

    cell = jit(lstm_cell)
    rng = np.random.default_rng(0)
    # With every thread's core taken as free, the big call runs (and compiles) the parallel
    # form on any machine load; the native loop then binds that form.
    with cores.free_cores_assumed(num_threads()):
        for batch, hidden in lstm_sizes():
            shapes = [(batch, hidden)] * 3 + [(4 * hidden, hidden)] * 2 + [(4 * hidden,)] * 2
            cell(*[rng.standard_normal(s).astype(dtype) for s in shapes])


STEPS = [("the native interpreter loop", _loop),
         ("kernel helpers and native kernel entries", _helpers),
         ("LSTM cell kernels, float32, serial and parallel", lambda: _lstm(np.float32)),
         ("LSTM cell kernels, float64, serial and parallel", lambda: _lstm(np.float64))]


def warmup() -> float:
    """Compile (or load) everything in ``STEPS``; returns the seconds it took."""
    progress = Progress(len(STEPS), "warmup")
    # Untiered, so that the kernels compile and the plans run natively on their first call.
    tiering_was = os.environ.get("FUSEJIT_TIERING")
    os.environ["FUSEJIT_TIERING"] = "0"
    try:
        for what, step in STEPS:
            progress.step(what)
            step()
    finally:
        if tiering_was is None:
            del os.environ["FUSEJIT_TIERING"]
        else:
            os.environ["FUSEJIT_TIERING"] = tiering_was
    return progress.close()
