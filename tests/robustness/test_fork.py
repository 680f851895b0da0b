"""Fork safety: after a parallel kernel ran, a forked child still computes fused functions (its
kernels run serially when the threading layer cannot survive the fork, ``runtime.forks``) and
a fork-start ``multiprocessing.Pool`` maps one without hanging.

One fresh Python process starts the threading layer and then forks, so pytest's own process is
never forked; a timeout fails a hang. It runs both tests' bodies, the forked children's first
(starting it, importing fusejit and compiling, was most of each test's time), and each test
checks its own lines of its output.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]

_SETUP = textwrap.dedent("""
    import multiprocessing, os, sys
    import numpy as np
    import fusejit
    from numba.np.ufunc import parallel

    TEXT = '''graph(%x : Tensor, %y : Tensor):
      %one : int = prim::Constant[value=1]()
      %a : Tensor = aten::mul(%x, %y)
      %b : Tensor = aten::tanh(%a)
      %c : Tensor = aten::add(%b, %x, %one)
      return (%c)
    '''
    N = 100_000
    rng = np.random.default_rng(0)
    X = rng.standard_normal(N).astype(np.float32)
    Y = rng.standard_normal(N).astype(np.float32)
    fns = {engine: fusejit.compile(fusejit.parse_ir(TEXT), fuse=True, engine=engine)
           for engine in ("native", "reference")}

    def right(engine, k):
        x, y = X + k, Y - k
        got = fns[engine](x, y)
        want = np.tanh(x * y) + x
        return bool(np.allclose(got, want, rtol=1e-5, atol=1e-5))

    for engine in fns:        # twice: the second native call runs the bound kernel slot
        assert right(engine, 0) and right(engine, 0)
    assert parallel._is_initialized, "the parallel kernel did not start the threading layer"
    print("layer", parallel.threading_layer(), flush=True)
""")


_FORKED_CHILDREN = """
    for engine in fns:
        pid = os.fork()
        if pid == 0:
            ok = right(engine, 1) and right(engine, 2)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print(engine, os.waitstatus_to_exitcode(status))
"""

_FORK_POOL = """
    def work(k):
        return right("native", k) and right("reference", k)

    with multiprocessing.get_context("fork").Pool(2) as pool:
        result = pool.map_async(work, range(4))
        print("pool", result.get(timeout=120))
    print("parent", right("native", 5))
"""


@pytest.fixture(scope="module")
def out() -> list[str]:
    body = textwrap.dedent(_FORKED_CHILDREN) + textwrap.dedent(_FORK_POOL)
    proc = subprocess.run([sys.executable, "-c", _SETUP + body], cwd=_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    return proc.stdout.split()


def test_a_forked_child_computes_a_fused_function_on_100k_elements(out):
    assert out[2:6] == ["native", "0", "reference", "0"], out


def test_a_fork_pool_maps_a_fused_function(out):
    assert out[6:] == ["pool", "[True,", "True,", "True,", "True]", "parent", "True"], out
