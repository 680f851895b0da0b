"""Injected faults: an exception inside a Python op, inside a forked task, and in a fused
kernel's shape check is reported as a ``fusejit`` error naming the node and its source location,
and the same compiled function (or kernel) still gives right answers afterwards.

A corrupt, truncated or foreign kernel-cache file, and corrupt Numba cache files, are ignored and
rebuilt by a fresh process; two processes compiling the same graphs into one empty cache at once
both succeed. Cache tests use a temporary ``FUSEJIT_CACHE_DIR`` and subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fusejit
from fusejit.ir.graph import Graph
from fusejit.ir.symbols import aten, prim
from fusejit.ir.types import TENSOR, FutureType
from fusejit.ir.values import SourceRange
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.python_op import create_python_op

ENGINES = ["reference", "native"]


class Exploding:
    """A Python op body that raises on a negative first element, else adds one."""

    def __call__(self, a):
        if a.flat[0] < 0:
            raise ValueError("injected fault: negative input")
        return a + 1


def _python_op_graph() -> Graph:
    g = Graph()
    x = g.add_input("x")
    node = g.insert_node(create_python_op(g, Exploding(), [x], name="exploding"))
    node.source_range = SourceRange("faulty_model.py", 12, 8)
    y = g.insert(aten.mul, [node.output(), x]).output()
    g.register_output(y)
    return g


@pytest.mark.parametrize("engine", ENGINES)
def test_python_op_fault_names_node_and_location(engine):
    fn = fusejit.compile(_python_op_graph(), engine=engine)
    good = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(fn(good), (good + 1) * good)
    for _ in range(3):
        with pytest.raises(fusejit.InterpreterError) as info:
            fn(np.array([-1.0, 2.0], np.float32))
        message = str(info.value)
        assert "injected fault" in message
        assert "faulty_model.py:12:8" in message and "prim::PythonOp" in message
        np.testing.assert_array_equal(fn(good), (good + 1) * good)


def _fork_graph() -> Graph:
    g = Graph()
    x = g.add_input("x")
    sub = Graph()
    a = sub.add_input("a")
    op = sub.insert_node(create_python_op(sub, Exploding(), [a], name="task_body"))
    op.source_range = SourceRange("task_body.py", 3, 5)
    sub.register_output(op.output())
    fork = g.insert_node(g.create(prim.fork, [x], 1))
    fork.g_("Subgraph", sub)
    fork.output().set_type(FutureType(TENSOR))
    wait = g.insert(aten.wait, [fork.output()])
    wait.source_range = SourceRange("caller.py", 21, 4)
    g.register_output(wait.output())
    return g


@pytest.mark.parametrize("engine", ENGINES)
def test_forked_task_fault_names_node_and_location(engine):
    fn = fusejit.compile(_fork_graph(), engine=engine)
    good = np.array([4.0], np.float32)
    np.testing.assert_array_equal(fn(good), good + 1)
    with pytest.raises(fusejit.InterpreterError) as info:
        fn(np.array([-4.0], np.float32))
    message = str(info.value)
    assert "injected fault" in message
    assert "task_body.py:3:5" in message and "caller.py:21:4" in message
    np.testing.assert_array_equal(fn(good), good + 1)


GROUP = """graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::mul(%x, %y) # shapes.py:4:10
  %b : Tensor = aten::tanh(%a) # shapes.py:5:10
  return (%b)
"""


def test_kernel_shape_check_fault_then_works():
    graph = fusejit.parse_ir(GROUP)
    kernel = FusedKernel(graph)
    x, y = np.ones((2, 3), np.float32), np.full(3, 0.5, np.float32)
    np.testing.assert_allclose(kernel(x, y)[0], np.tanh(x * y), rtol=1e-6)
    with pytest.raises(fusejit.InterpreterError, match=r"do not broadcast.*%x.*\(2, 3\)"):
        kernel(x, np.ones(4, np.float32))
    with pytest.raises(fusejit.InterpreterError, match="takes 2 inputs"):
        kernel(x)
    np.testing.assert_allclose(kernel(x, y)[0], np.tanh(x * y), rtol=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
def test_fused_group_shape_fault_names_node_and_location(engine):
    fn = fusejit.compile(fusejit.parse_ir(GROUP), fuse=True, engine=engine)
    x, y = np.ones((2, 3), np.float32), np.full(3, 0.5, np.float32)
    assert any(n.kind == "prim::FusionGroup" for n in fn.graph_for(x, y).nodes())
    with pytest.raises(fusejit.InterpreterError) as info:
        fn(x, np.ones(4, np.float32))
    assert "shapes.py:4:10" in str(info.value) and "aten::mul" in str(info.value)
    np.testing.assert_allclose(fn(x, y), np.tanh(x * y), rtol=1e-6)


# -- the kernel cache across processes ---------------------------------------------------------

CASES = ["lstm_cell", "gru_cell", "chunk_fused_dim1", "cat_fused_dim0", "unary_trig_chain"]

_CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import fusejit
    from fusejit.runtime.fusion import FusedKernel, cache_info
    sys.path.insert(0, sys.argv[1])
    from tests.robustness.cache_child import run_groups
    print(json.dumps({"max_error": run_groups(sys.argv[2:]), **cache_info()}))
""")


def _spawn(cache: Path, cases: list[str]) -> subprocess.Popen:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, FUSEJIT_CACHE_DIR=str(cache))
    return subprocess.Popen([sys.executable, "-c", _CHILD, root, *cases], env=env, cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def corpus_cases():
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("conformance corpus not found")
    return CASES[::2]   # (three cases fill the cache as well as five, in 3 s less of a cold suite)


def test_two_processes_fill_one_empty_cache(tmp_path, corpus_cases):
    cache = tmp_path / "cache"
    procs = [_spawn(cache, corpus_cases) for _ in range(2)]
    results = [_finish(p) for p in procs]
    for r in results:
        assert r["max_error"] < 1e-4
    entries = sorted((cache / "kernels").glob("fk_*.py"))
    assert len(entries) == results[0]["misses"] + results[0]["hits"] > 0
    assert not list((cache / "kernels").glob(".tmp-*"))


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory):
    """A cache that one fresh process filled with the first case's kernels, and that process's
    report: made once, each damage below damages its own copy (copied with file times, which
    Numba's index checks)."""
    from tests.conftest import CORPUS

    if CORPUS is None:
        pytest.skip("conformance corpus not found")
    cache = tmp_path_factory.mktemp("filled") / "cache"
    return cache, _finish(_spawn(cache, CASES[:1]))


# An empty entry is read and compared with its text as a truncated one is (a prefix of the text
# that is shorter than it), and rewritten the same way.
@pytest.mark.parametrize("damage", ["truncate", "foreign",
                                    pytest.param("empty", marks=pytest.mark.exhaustive),
                                    "numba_index", "directory"])
def test_damaged_cache_is_ignored_and_rebuilt(tmp_path, corpus_cases, filled_cache, damage):
    cache = tmp_path / "cache"
    shutil.copytree(filled_cache[0], cache, symlinks=True)
    first = filled_cache[1]
    entries = sorted((cache / "kernels").glob("fk_*.py"))
    assert entries and first["max_error"] < 1e-4
    canary = tmp_path / "CANARY"
    originals = {p: p.read_bytes() for p in entries}
    for path in entries:
        if damage == "truncate":
            path.write_bytes(originals[path][: len(originals[path]) // 2])
        elif damage == "foreign":
            path.write_text(f"open({str(canary)!r}, 'w').close()\n")
        elif damage == "empty":
            path.write_bytes(b"")
        elif damage == "directory":
            path.unlink()
            path.mkdir()
    if damage == "numba_index":
        indexes = list((cache / "kernels").glob("*/*.nb?"))
        assert indexes
        for index in indexes:
            index.write_bytes(b"\x80\x04garbage, not a pickle")
    second = _finish(_spawn(cache, corpus_cases[:1]))
    assert second["max_error"] < 1e-4
    assert not canary.exists()
    for path, text in originals.items():
        assert path.is_file() and path.read_bytes() == text
