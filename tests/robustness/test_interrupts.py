"""Ctrl-C stops a loop that never ends, on every engine, and the function still works after.

Before ``runtime/interrupts.py``, an IR ``prim::Loop`` without end on the native engine, or a
jitted ``while`` loop compiled whole, could only be killed. A SIGALRM whose handler raises
``KeyboardInterrupt`` stands in for Ctrl-C here: the kernel delivers it without a Python thread
(a graph compiled whole holds the GIL, so no thread could send one), and Python runs the
handler only where the loop lets it. The loops would run for minutes: a test whose interrupt
did not get through fails on the time it took, never hangs the suite for good.
"""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager

import pytest

import fusejit

# ~2^36 iterations: minutes on any engine, so only the interrupt ends the call in time
LOOP = """graph(%n : int, %x : int):
  %true : bool = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %m : int = prim::Constant[value=1000003]()
  %r : int = prim::Loop(%n, %true, %x)
    block0(%i : int, %acc : int):
      %a : int = aten::mul(%acc, %three)
      %b : int = aten::remainder(%a, %m)
      -> (%true, %b)
  return (%r)
"""
FOREVER = 1 << 36


def _python_loop(n: int, x: int) -> int:
    for _ in range(n):
        x = x * 3 % 1000003
    return x


@contextmanager
def _interrupt_after(seconds: float):
    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _interrupted_in_time(fn, *args) -> float:
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), _interrupt_after(0.2):
        fn(*args)
    return time.monotonic() - start


@pytest.mark.parametrize("engine", ["native", "reference"])
def test_an_endless_ir_loop_is_interrupted_and_the_function_runs_again(engine):
    fn = fusejit.compile(fusejit.parse_ir(LOOP), engine=engine)
    assert fn(7, 5) == _python_loop(7, 5)   # (loads the engine before the clock starts)
    assert _interrupted_in_time(fn, FOREVER, 5) < 5.0
    assert fn(1000, 2) == _python_loop(1000, 2)


def test_an_endless_loop_compiled_whole_is_interrupted():
    """A scalar graph's second call runs its ``while`` in one Numba function."""
    fn = fusejit.jit(_python_loop)
    assert (fn(7, 5), fn(9, 5)) == (_python_loop(7, 5), _python_loop(9, 5))
    assert hasattr(fn._specialised[(int, int)], "compiled")
    assert _interrupted_in_time(fn, FOREVER, 5) < 5.0
    assert fn(1000, 2) == _python_loop(1000, 2)
