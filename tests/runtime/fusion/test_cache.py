"""The kernel source cache: private directory, write-once entries, bad entries replaced,
counters, clearing, and two processes compiling the same kernel at once."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fusejit
from fusejit.runtime.compile_cache import digest_files, runtime_digest
from fusejit.runtime.fusion import FusedKernel, cache_clear, cache_info, kernel_source
from fusejit.runtime.fusion import cache as kcache
from fusejit.runtime.fusion.templates import MATH_MODULES

IR = """graph(%x : Float(*, *), %y : Float(*, *)):
  %c : int = prim::Constant[value=1]()
  %a : Float(*, *) = aten::mul(%x, %y)  # evil_comment_text.py:1:1
  %evil_name.1 : Float(*, *) = aten::add(%a, %x, %c)
  return (%evil_name.1)
"""


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("FUSEJIT_CACHE_DIR", str(root))
    return root


def test_entries_are_private_and_written_once(private_cache):
    text = "# a kernel\nX = 1\n"
    path = kcache.store(text)
    assert path.read_text() == text
    assert stat.S_IMODE(os.stat(private_cache).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    mtime = os.stat(path).st_mtime_ns
    hits = cache_info()["hits"]
    assert kcache.store(text) == path
    assert os.stat(path).st_mtime_ns == mtime
    assert cache_info()["hits"] == hits + 1


@pytest.mark.parametrize("damage", ["truncate", "foreign_text", "symlink"])
def test_bad_entry_is_replaced(private_cache, tmp_path, damage):
    text = "# a kernel\nY = 2\n"
    path = kcache.store(text)
    if damage == "truncate":
        path.write_text(text[:5])
    elif damage == "foreign_text":
        path.write_text("raise SystemExit('not ours')\n")
    else:
        target = tmp_path / "elsewhere.py"
        target.write_text(text)
        path.unlink()
        path.symlink_to(target)
    misses = cache_info()["misses"]
    assert kcache.store(text) == path
    assert cache_info()["misses"] == misses + 1
    assert not path.is_symlink() and path.read_text() == text


def test_kernel_runs_after_corruption(private_cache):
    graph = fusejit.parse_ir(IR)
    x, y = np.ones((3, 4), np.float32), np.full((3, 4), 2, np.float32)
    source = kernel_source(graph, x, y)
    path = kcache.store(source)
    path.write_text("import os\n")          # corrupt: must never be executed
    kcache._modules.clear()
    (out,) = FusedKernel(graph)(x, y)
    np.testing.assert_array_equal(out, x * y + x)
    assert path.read_text() == source


@pytest.mark.parametrize("where", ["empty_dir", "full_dir", "dir_with_link"])
def test_directory_where_an_entry_belongs_is_moved_aside(private_cache, tmp_path, where):
    text = "# a kernel\nZ = 3\n"
    path = kcache.kernels_dir() / f"fk_{kcache.source_hash(text)}.py"
    path.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    if where == "full_dir":
        (path / "inner").mkdir()
        (path / "inner" / "f.txt").write_text("x")
    elif where == "dir_with_link":
        (path / "link").symlink_to(outside)      # rmtree must not follow it
    assert kcache.store(text) == path
    assert path.is_file() and path.read_text() == text
    assert (outside / "keep.txt").read_text() == "keep"
    assert not list(path.parent.glob(".tmp-*"))


# (each damage fails the same check, the SHA-256 in the file's manifest: garbage and empty are
# exhaustive cases)
@pytest.mark.parametrize("damage", [pytest.param("garbage", marks=pytest.mark.exhaustive),
                                    pytest.param("empty", marks=pytest.mark.exhaustive),
                                    "truncated"])
def test_damaged_numba_files_are_dropped_and_recompiled(private_cache, damage):
    graph = fusejit.parse_ir(IR)
    x, y = np.arange(12, dtype=np.float32).reshape(3, 4), np.full((3, 4), 2, np.float32)
    FusedKernel(graph)(x, y)
    pycache = private_cache / "kernels" / runtime_digest()
    files = list(pycache.glob("fk_*.nb?"))
    assert any(f.suffix == ".nbi" for f in files) and any(f.suffix == ".nbc" for f in files)
    damaged = {}
    for f in files:
        data = f.read_bytes()
        damaged[f] = {"garbage": b"\x80\x04garbage, not a pickle", "empty": b"",
                      "truncated": data[:len(data) // 2]}[damage]
        f.write_bytes(damaged[f])
    kcache._modules.clear()          # as a new process would: Numba reads its files again
    (out,) = FusedKernel(graph)(x, y)
    np.testing.assert_array_equal(out, x * y + x)
    rebuilt = list(pycache.glob("fk_*.nbi"))
    # rebuilt with manifests that match
    assert all(kcache.cc.read_trusted(f) is not None for f in rebuilt)
    assert rebuilt and all(f.read_bytes() != damaged.get(f) for f in rebuilt)


def test_a_module_the_lru_let_go_of_compiles_new_signatures_in_its_own_globals(
        private_cache, monkeypatch):
    # Numba imports a function's module by name for each new signature; a module the LRU had
    # taken out of sys.modules made it compile against a blank '<dynamic>' module, and the
    # cache entry it wrote could not be loaded again (ModuleNotFoundError: '<dynamic>').
    import pickle

    module = kcache.load_module("from numba import njit\n\n\n@njit(cache=True)\n"
                                "def lru_twice(x):\n    return x * 2\n")
    assert module.lru_twice(np.arange(3.0))[2] == 4.0
    monkeypatch.setattr(kcache, "LRU_SIZE", 0)
    kcache.load_module("# another module, to make the LRU let go\nZ = 3\n")
    assert module.__name__ not in sys.modules
    assert module.lru_twice(np.arange(3, dtype=np.int32)[::2])[1] == 4     # a new signature
    environments = [r.environment for r in module.lru_twice.overloads.values()]
    assert [e.globals is module.__dict__ for e in environments] == [True, True]
    assert all(pickle.loads(pickle.dumps(e)) is e for e in environments)


def test_source_holds_no_graph_text(private_cache):
    x = np.ones((3, 4), np.float32)
    source = kernel_source(fusejit.parse_ir(IR), x, x)
    assert "evil" not in source and "aten::mul(" in source


def test_info_and_clear(private_cache):
    graph = fusejit.parse_ir(IR)
    x = np.ones((2, 2), np.float32)
    FusedKernel(graph)(x, x)
    info = cache_info()
    assert info["entries"] >= 1 and info["size"] > 0
    assert info["directory"] == str(private_cache)
    assert cache_clear() >= 1
    assert cache_info()["entries"] == 0


_CHILD = textwrap.dedent("""
    import json, sys, numpy as np, fusejit
    from fusejit.runtime.fusion import FusedKernel, cache_info
    graph = fusejit.parse_ir(sys.stdin.read())
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (out,) = FusedKernel(graph)(x, x)
    ok = bool(np.array_equal(out, x * x + x))
    print(json.dumps({"ok": ok, **{k: cache_info()[k] for k in ("hits", "misses")}}))
""")


def _spawn(env):
    return subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_two_processes_compile_the_same_kernel(private_cache):
    env = dict(os.environ, FUSEJIT_CACHE_DIR=str(private_cache))
    procs = [_spawn(env) for _ in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(IR, timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["ok"] for r in results)
    assert len(list((private_cache / "kernels").glob("fk_*.py"))) == 1
    # A third reader finds the source (a hit) and Numba's compiled code beside it: this
    # process, its kernel modules forgotten, as a new process has none loaded.
    kcache._modules.clear()
    before = cache_info()
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (out,) = FusedKernel(fusejit.parse_ir(IR))(x, x)
    np.testing.assert_array_equal(out, x * x + x)
    after = cache_info()
    assert (after["hits"] - before["hits"], after["misses"] - before["misses"]) == (1, 0)
    assert list((private_cache / "kernels").glob(f"{runtime_digest()}/fk_*.nbi"))


# -- what a user sees while fusejit compiles ------------------------------------------------

def _cold():
    """Stands for the native loop's function in a cold compile event (a real one takes
    minutes)."""
    import types

    return types.SimpleNamespace(__module__="fusejit.runtime.native.loop",
                                 __qualname__="run_loop")


def test_cold_native_loop_is_announced_once(capfd, monkeypatch):
    from fusejit.runtime import status

    monkeypatch.delenv("FUSEJIT_QUIET", raising=False)
    status.LISTENER.announce(_cold())
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert "compiling the native interpreter loop" in err and "once per machine" in err
    assert "minutes" in err and "fusejit warmup" in err
    monkeypatch.setenv("FUSEJIT_QUIET", "1")
    status.LISTENER.announce(_cold())
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("quiet", [False, True])
def test_first_kernel_compile_is_announced(private_cache, capfd, monkeypatch, quiet):
    from fusejit.runtime import status

    if quiet:
        monkeypatch.setenv("FUSEJIT_QUIET", "1")
    else:
        monkeypatch.delenv("FUSEJIT_QUIET", raising=False)
    monkeypatch.setattr(status.LISTENER, "kernels", 0)
    graph = fusejit.parse_ir(IR.replace("aten::mul", "aten::div"))
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    (out,) = FusedKernel(graph)(x, x)
    np.testing.assert_allclose(out, x / x + x)
    err = capfd.readouterr().err
    if quiet:
        assert err == ""
    else:
        assert err.count("compiling fused kernels") == 1 and "once per machine" in err
    FusedKernel(graph)(x, x)                     # compiled already: nothing more is said
    assert "compiling" not in capfd.readouterr().err


def test_progress_lines_without_a_terminal(capfd, monkeypatch):
    from fusejit.runtime.status import Progress

    monkeypatch.delenv("FUSEJIT_QUIET", raising=False)
    progress = Progress(2, "warmup")
    progress.step("first")
    progress.step("second")
    assert progress.close() >= 0
    assert capfd.readouterr().err.splitlines() == ["[1/2] warmup: first",
                                                   "[2/2] warmup: second"]


def test_collector_runs_less_often_during_a_compile_and_as_before_after():
    """While Numba compiles (Python's own code inside it and nested compiles included), the
    collector's first generation is status.COMPILE_GC_THRESHOLD objects; afterwards the
    thresholds are the process's own again, also when the compile fails."""
    import gc

    from numba import njit
    from numba.core import event

    from fusejit.runtime import status

    seen = []

    class Probe(event.Listener):          # (registered after fusejit's listener: runs after it)
        def on_start(self, ev):
            seen.append(gc.get_threshold()[0])

        def on_end(self, ev):
            pass

    before = gc.get_threshold()
    gc.set_threshold(650, *before[1:])
    try:
        with event.install_listener("numba:compile", Probe()):
            assert njit(cache=False)(lambda x: x + 1)(41) == 42
            assert gc.get_threshold()[0] == 650
            with pytest.raises(Exception, match="(?i)typing"):
                njit(cache=False)(lambda x: x.no_such_attribute)(1)
            assert gc.get_threshold()[0] == 650
    finally:
        gc.set_threshold(*before)
    assert seen and all(t == status.COMPILE_GC_THRESHOLD for t in seen)


def test_warmup_command_runs_each_step_with_progress(private_cache, capfd, monkeypatch):
    from fusejit.__main__ import main
    from fusejit.runtime import warmup

    monkeypatch.delenv("FUSEJIT_QUIET", raising=False)
    ran = []
    monkeypatch.setattr(warmup, "STEPS", [("one", lambda: ran.append(1)),
                                          ("two", lambda: ran.append(2))])
    assert main(["warmup"]) == 0
    captured = capfd.readouterr()
    assert ran == [1, 2]
    assert captured.err.splitlines() == ["[1/2] warmup: one", "[2/2] warmup: two"]
    assert "warmup done in" in captured.out and "FUSEJIT_CACHE_MAX_MB" in captured.out


def test_every_module_generated_code_imports_is_in_the_digest():
    """Generated kernels and whole-graph functions inline the runtime modules they import; an
    edit to one of them must change the digest, or cached kernels would keep the old code (a new
    math module left out of the seeds did exactly that)."""
    package = Path(fusejit.__file__).parent
    covered = {path.resolve() for path in digest_files()}
    imported = set()
    for writer in package.rglob("*.py"):
        text = writer.read_text(encoding="utf-8")
        # (the import lines a writer puts into generated source, as string literals)
        for module in re.findall(r"[\"']from (fusejit(?:\.\w+)+) import (\w+) as \w+", text):
            imported.add(module)
    assert imported, "found no generated import lines: the pattern no longer matches"
    imported |= {("fusejit.runtime.fusion", module) for module in MATH_MODULES.values()}
    missing = []
    for parent, name in imported:
        path = package.parent.joinpath(*parent.split("."), f"{name}.py")
        if path.exists() and path.resolve() not in covered:
            missing.append(f"{parent}.{name}")
    assert not missing, f"modules generated code imports but the digest ignores: {missing}"
