"""Tiering (``runtime/tiering.py``): groups run interpreted and plans on the reference loop until
they are hot; then kernels compile and plans move to the native loop, if it is compiled."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import fusejit
from fusejit.runtime import executor, tiering
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion.cache import cache_dir

LOOP = """graph(%x : Tensor, %y : Tensor):
  %t : bool = prim::Constant[value=1]()
  %n : int = prim::Constant[value=3]()
  %one : int = prim::Constant[value=1]()
  %out : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %z : Tensor):
      %a : Tensor = aten::add(%z, %y, %one)
      %b : Tensor = aten::tanh(%a)
      -> (%t, %b)
  return (%out)
"""

SHORT = """graph(%x : Tensor, %y : Tensor):
  %z : Tensor = aten::mul(%x, %y)
  return (%z)
"""


def _expected(x, y):
    return np.tanh(np.tanh(np.tanh(x + y) + y) + y)


@pytest.fixture
def tiered(monkeypatch):
    monkeypatch.setenv("FUSEJIT_TIERING", "1")
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "0")


@pytest.fixture
def engines(monkeypatch):
    """Counts the native drivers the executor builds (and, where a test passes the counting
    one on, the remembered calls)."""
    built = []
    real = executor.NativeInterpreter

    def counting(code):
        built.append(code)
        return real(code)

    monkeypatch.setattr(executor, "NativeInterpreter", counting)
    return built


def _inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((4, 5)).astype(np.float32),
            rng.standard_normal(5).astype(np.float32))


def test_a_group_runs_interpreted_until_hot_then_its_kernel(tiered, monkeypatch):
    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    x, y = _inputs()
    np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    assert group._kernel is None and group.spent > 0      # interpreted, nothing compiled
    monkeypatch.setattr(tiering, "KERNEL_AFTER_SECONDS", 0.0)
    np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
    assert isinstance(group._kernel, FusedKernel)


# Straight-line (no loop), with enough operations that the native loop would take it
# (executor.NATIVE_MIN_OPS: ten transposes back to the sum's layout make up the count).
STRAIGHT = """graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %y, %one)
  %s : int = aten::size(%a, %one)
  %b : Tensor = aten::mul(%a, %s)
  %c : Tensor = aten::mm(%b, %b)
  %d : Tensor = aten::sub(%c, %x, %one)
  %e : Tensor = aten::mm(%d, %b)
  %t0 : Tensor = aten::add(%e, %y, %one)
  %t1 : Tensor = aten::t(%t0)
  %t2 : Tensor = aten::t(%t1)
  %t3 : Tensor = aten::t(%t2)
  %t4 : Tensor = aten::t(%t3)
  %t5 : Tensor = aten::t(%t4)
  %t6 : Tensor = aten::t(%t5)
  %t7 : Tensor = aten::t(%t6)
  %t8 : Tensor = aten::t(%t7)
  %t9 : Tensor = aten::t(%t8)
  %t10 : Tensor = aten::t(%t9)
  return (%t10)
"""


def test_a_warming_plan_runs_its_straight_line_form(tiered, monkeypatch):
    """On its way to the native loop a plan is timed on the reference side: through its
    straight-line function where it has one, not the general loop (~3x slower a step)."""
    loops = []
    real = executor.InterpreterState
    monkeypatch.setattr(executor, "InterpreterState", lambda code: loops.append(code) or real(code))
    monkeypatch.setattr(tiering, "promote_after", lambda: float("inf"))
    fn = fusejit.compile(fusejit.parse_ir(STRAIGHT), fuse=True)
    x = np.random.default_rng(1).standard_normal((3, 3))
    y = np.eye(3)
    a = x + y
    b = a * 3
    want = (b @ b - x) @ b + y
    for _ in range(3):
        np.testing.assert_allclose(fn(x, y), want)
    plan = fn.plan_for(fn.check_inputs([x, y]))
    assert plan.engine == "native" and plan.tier() == "warming" and plan.warming > 0
    assert plan.straight() is not None and not loops


def _unseen():
    """A one-group graph whose kernel no earlier run compiled (a float constant drawn now),
    and what it computes."""
    c = float(np.random.default_rng().integers(1, 2**40)) / 2**20
    text = SHORT.replace("%z : Tensor = aten::mul(%x, %y)",
                         f"%c : float = prim::Constant[value={c!r}]()\n"
                         f"  %m : Tensor = aten::mul(%x, %y)\n"
                         f"  %z : Tensor = aten::mul(%m, %c)")
    return text, lambda x, y: x * y * np.float32(c)


@pytest.fixture
def asking(tiered, monkeypatch):
    """Tiering with background compiles: groups ask for their kernel at their first call and
    never compile it in this process (``KERNEL_AFTER_SECONDS``); a background service of the
    test's own."""
    from fusejit.runtime.fusion import isolated

    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "1")
    monkeypatch.setattr(tiering, "KERNEL_ASK_SECONDS", 0.0)
    monkeypatch.setattr(tiering, "KERNEL_AFTER_SECONDS", float("inf"))
    background = isolated._Background()
    monkeypatch.setattr(isolated, "_BACKGROUND", background)
    yield
    background.stop()


def test_a_warm_group_takes_its_kernel_once_a_background_process_compiled_it(asking):
    """A group whose kernel the disk cache lacks asks a background process to compile it,
    runs interpreted meanwhile, and runs the kernel (loaded from the disk cache: nothing
    compiles in this process) from the first call after the compile is done. A new function
    of the same graph, in a process that has not loaded the kernel, takes it at its first
    call (``GroupOperation._ask``)."""
    from fusejit.runtime.fusion import cache as kcache
    from fusejit.runtime.status import LISTENER

    text, want = _unseen()
    x, y = _inputs()
    compiled_here = LISTENER.kernels
    fn = fusejit.compile(fusejit.parse_ir(text), fuse=True)
    np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    assert group._kernel is None and group._later      # interpreted, the compile asked for
    job, kernel = group._later
    deadline = time.monotonic() + 300
    while job.done is None and time.monotonic() < deadline:
        np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
        time.sleep(0.02)
    assert job.done is True and group._kernel is None
    np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
    assert group._kernel is kernel and group._later is False
    assert LISTENER.kernels == compiled_here

    kcache._modules.clear()           # (as in a new process: the module executed again)
    again = fusejit.compile(fusejit.parse_ir(text), fuse=True)
    np.testing.assert_allclose(again(x, y), want(x, y), rtol=1e-6)
    (group,) = again.plan_for(again.check_inputs([x, y])).kernels
    assert isinstance(group._kernel, FusedKernel) and group._later is False
    assert LISTENER.kernels == compiled_here


def test_long_calls_wait_for_their_kernel_once_hot(asking, monkeypatch):
    """A group whose calls are long (``WAIT_CALL_SECONDS``) waits for its background compile
    once it has taken ``KERNEL_AFTER_SECONDS``, and runs that call on the kernel; one already
    hot and long when it first asks compiles what it runs here, in the calling process."""
    from fusejit.runtime.status import LISTENER

    # (as early in a process: a compile here is in this process, not the isolated child's)
    monkeypatch.setenv("FUSEJIT_COMPILE_IN_PROCESS", "1000000")
    x, y = _inputs()
    text, want = _unseen()
    fn = fusejit.compile(fusejit.parse_ir(text), fuse=True)
    compiled_here = LISTENER.kernels
    np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    job, kernel = group._later
    monkeypatch.setattr(tiering, "KERNEL_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(tiering, "WAIT_CALL_SECONDS", 0.0)
    np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
    assert job.done is True and group._kernel is kernel and group._later is False
    assert LISTENER.kernels == compiled_here

    text, want = _unseen()
    fn = fusejit.compile(fusejit.parse_ir(text), fuse=True)
    np.testing.assert_allclose(fn(x, y), want(x, y), rtol=1e-6)
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    assert isinstance(group._kernel, FusedKernel) and group._later is False
    assert LISTENER.kernels == compiled_here + 1


# (a script's start: the graph on stdin compiled, called once with groups that ask for their
# kernel at their first call and never compile it themselves; its one group)
_ASKING = """
import os
import sys
import numpy as np
import fusejit
from fusejit.runtime import tiering
from fusejit.runtime.fusion import FusedKernel
tiering.KERNEL_ASK_SECONDS, tiering.KERNEL_AFTER_SECONDS = 0.0, float("inf")
fn = fusejit.compile(fusejit.parse_ir(sys.stdin.read()), fuse=True)
x, y = np.ones((4, 5), np.float32), np.ones(5, np.float32)
fn(x, y)
(group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
"""
_ASKS_THEN_ENDS = _ASKING + """
print("cached" if isinstance(group._kernel, FusedKernel) else "asked" if group._later else "?")
# (and what it asked for: module text, function name, Numba signature)
import base64, pickle
asked = [request[1:] for request in group._later[0].requests] if group._later else []
print(base64.b64encode(pickle.dumps(asked)).decode())
"""


def _run_asking(script: str, text: str) -> str:
    """What ``script`` prints, run on graph ``text`` in a new process with tiering and
    background compiles on."""
    env = dict(os.environ, FUSEJIT_TIERING="1", FUSEJIT_BACKGROUND_COMPILE="1",
               FUSEJIT_QUIET="1")
    done = subprocess.run([sys.executable, "-c", script], input=text, env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    return done.stdout.strip()


def _in_disk_cache(asked: list) -> bool:
    """Does the disk cache hold every (module text, function name, signature) of ``asked``?"""
    from fusejit.runtime.fusion import cache as kcache
    from fusejit.runtime.fusion.isolated import cached

    return all(cached(getattr(kcache.load_module(module), name), sig)
               for module, name, sig in asked)


def test_a_process_that_ends_leaves_its_background_compiles_to_finish():
    """A script that ends while its kernel compiles in the background does not wait for it,
    and the compile finishes all the same: a later process finds the kernel in the disk cache
    at its first ask. (The later process starts once the disk cache holds what the script
    asked for, or every few seconds.)"""
    import base64
    import pickle

    text, _want = _unseen()
    seen, asked = _run_asking(_ASKS_THEN_ENDS, text).splitlines()
    assert seen == "asked"
    asked = pickle.loads(base64.b64decode(asked))
    assert asked
    deadline = time.monotonic() + 300
    tried = time.monotonic()
    while seen != "cached" and time.monotonic() < deadline:
        if _in_disk_cache(asked) or time.monotonic() > tried + 5.0:
            seen = _run_asking(_ASKS_THEN_ENDS, text).splitlines()[0]
            tried = time.monotonic()
        else:
            time.sleep(0.05)
    assert seen == "cached"


_FORKS_WHILE_ASKING = _ASKING + """
assert group._later
pid = os.fork()
if pid == 0:
    tiering.KERNEL_AFTER_SECONDS = tiering.WAIT_CALL_SECONDS = 0.0
    fn(x, y)
    os._exit(0 if group._kernel else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_does_not_wait_for_its_parents_background_compile():
    """A child forked while its parent's compile runs in the background (the parent's thread
    and helper are not the child's) compiles the kernel itself when it would wait for it."""
    text, _want = _unseen()
    assert _run_asking(_FORKS_WHILE_ASKING, text) == "0"


def test_a_dry_run_records_what_a_call_compiles_and_compiles_nothing():
    """``FusedKernel.uncompiled``: the Numba functions and signatures a call on these inputs
    may compile, none of them compiled by the dry run, one marked as what the call runs now;
    the call then compiles exactly that one."""
    text, want = _unseen()
    x, y = _inputs()
    kernel = FusedKernel(fusejit.parse_ir(text))
    missing = kernel.uncompiled(x, y)
    assert [now for *_, now in missing].count(True) == 1
    assert all(sig not in fn.overloads for _, fn, sig, _ in missing)
    (out,) = kernel(x, y)
    np.testing.assert_allclose(out, want(x, y), rtol=1e-6)
    assert all((sig in fn.overloads) == now for _, fn, sig, now in missing)
    assert not any(now for *_, now in kernel.uncompiled(x, y))


def test_a_kernel_numba_refuses_leaves_its_group_interpreted_with_a_warning(tiered,
                                                                           monkeypatch):
    """A kernel fusejit generated that Numba refuses (a fault of fusejit's, as an aliased
    argmax's once was) is not the caller's error: the group warns once and runs interpreted,
    with the same values."""
    from numba.core.errors import TypingError

    def refused(*args):     # (styled as Numba styles it where colorama is installed)
        raise TypingError("\x1b[1mNameError: name 'acc_t0_argmax' is not defined\x1b[0m")

    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    x, y = _inputs()
    fn(x, y)
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    group._kernel = refused
    refusal = r"Numba refused .* TypingError: NameError: name"
    with pytest.warns(RuntimeWarning, match=refusal) as seen:
        np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
    assert "\x1b" not in str(seen[0].message)
    assert group._kernel is False and group.kernel is None
    np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)    # (no warning again)


def test_without_tiering_kernels_compile_with_the_plan(monkeypatch):
    monkeypatch.setenv("FUSEJIT_TIERING", "0")
    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    x, y = _inputs()
    (group,) = fn.plan_for(fn.check_inputs([x, y])).kernels
    assert isinstance(group._kernel, FusedKernel)


def test_a_plan_stays_on_the_reference_loop_until_hot(tiered, monkeypatch, engines):
    monkeypatch.setattr(tiering, "_built", False)
    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    x, y = _inputs()
    for _ in range(3):
        np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
    plan = fn.plan_for(fn.check_inputs([x, y]))
    assert plan.engine == "native"              # where it belongs ...
    assert plan.tier() == "warming" and plan.warming > 0 and not engines   # ... not there yet
    plan.warming = tiering.PROMOTE_SECONDS
    monkeypatch.setattr(tiering, "native_ready", lambda: True)
    monkeypatch.setattr(tiering, "KERNEL_AFTER_SECONDS", 0.0)
    np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
    assert plan.tier() == "native" and len(engines) == 1


def test_a_hot_plan_that_cannot_run_natively_settles_on_the_reference_loop(tiered, engines):
    fn = fusejit.compile(fusejit.parse_ir(SHORT), fuse=True)
    x, y = _inputs()
    plan = fn.plan_for(fn.check_inputs([x, y]))
    plan.warming = tiering.PROMOTE_SECONDS
    np.testing.assert_array_equal(fn(x, y), x * y)
    assert plan.engine == "reference" and plan.tier() == "reference" and not engines


def test_a_hot_plan_asks_once_for_a_background_compile(tiered, monkeypatch, capsys, engines):
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "1")
    monkeypatch.setattr(tiering, "_built", False)
    monkeypatch.setattr(tiering, "_background", None)
    monkeypatch.setattr(tiering, "native_ready", lambda: False)
    monkeypatch.setattr(tiering, "KERNEL_ASK_SECONDS", float("inf"))  # (the plan's asking only)
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append(args) or object())
    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    x, y = _inputs()
    plan = fn.plan_for(fn.check_inputs([x, y]))
    for _ in range(2):
        plan.warming = tiering.PROMOTE_SECONDS
        np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
        # Still on the reference loop, and it waits a while before it asks again.
        assert plan.tier() == "warming" and plan.warming < 0 and not engines
    assert len(started) == 1 and started[0][0] == sys.executable
    assert "compiling the native interpreter in a background process" in capsys.readouterr().err


def test_the_background_compile_notice_is_silenced_by_fusejit_quiet(monkeypatch, capsys):
    monkeypatch.setenv("FUSEJIT_BACKGROUND_COMPILE", "1")
    monkeypatch.setenv("FUSEJIT_QUIET", "1")
    monkeypatch.setattr(tiering, "_background", None)
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: object())
    tiering.request_native()
    assert capsys.readouterr().err == ""


def test_warm_native_leaves_the_compile_to_the_process_holding_the_lock():
    with open(cache_dir() / "native-compile.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert tiering.warm_native() is False


def test_warm_native_puts_the_loop_in_the_disk_cache():
    from fusejit.runtime.native.state import loop_compiled

    assert tiering.warm_native(wait=True) is True
    assert loop_compiled()


def test_kernel_source_compiles_the_kernels_it_shows(tiered):
    x, y = _inputs()
    source = fusejit.kernel_source(fusejit.parse_ir(LOOP), x, y)
    assert "def kernel_parallel" in source and "tanh" in source


def test_a_compile_waits_for_the_process_holding_the_lock_then_loads(monkeypatch):
    """Processes sharing a cache compile the native loop once: one that finds the lock held
    waits, instead of compiling the same loop beside the holder."""
    import threading

    from fusejit.runtime.native import state

    real = state.run_loop.compile
    compiled = []
    monkeypatch.setattr(state, "_addresses", None)
    monkeypatch.setattr(state, "loop_compiled", lambda: False)
    monkeypatch.setattr(state.run_loop, "compile", lambda sig: (compiled.append(sig), real(sig)))
    with open(cache_dir() / "native-compile.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        worker = threading.Thread(target=state._loop_addresses)
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and not compiled      # waiting on the holder
        fcntl.flock(lock, fcntl.LOCK_UN)
        worker.join(600)
    assert not worker.is_alive() and len(compiled) == 1
    assert state._addresses is not None


def test_calls_with_big_arrays_run_on_the_host_loop(monkeypatch, engines):
    """A native plan (``engine="auto"``) runs a call with big arrays (``HOST_LOOP_BYTES`` in
    float64) on the reference loop, whose kernels and NumPy calls allocate as NumPy does, or
    from the output pool (the native loop's arrays come from Numba's allocator: a page fault
    per 4 KiB); smaller calls of the same plan stay native, on the general path and
    remembered alike."""
    from fusejit.runtime import remembered
    from fusejit.runtime.fusion import outputs

    monkeypatch.setenv("FUSEJIT_TIERING", "0")
    natives = engines
    monkeypatch.setattr(remembered, "NativeInterpreter", executor.NativeInterpreter)
    fn = fusejit.compile(fusejit.parse_ir(LOOP), fuse=True)
    small, y = _inputs()
    big = np.tile(small, (64, 1))                  # 64 x 5 float32: 320 elements, by their
    monkeypatch.setattr(outputs, "HOST_LOOP_BYTES", big.size * 8)     # float64 counterpart
    for x in (small, big, small, big, big, small):
        count = len(natives)
        np.testing.assert_allclose(fn(x, y), _expected(x, y), rtol=1e-6)
        assert len(natives) == count + (x is small)
    assert fn.plan_for(fn.check_inputs([big, y])).engine == "native"
