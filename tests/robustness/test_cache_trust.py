"""The compile cache trusts only what this user wrote, and never fails a call.

Planted pickles in Numba's index and data files are deleted, not loaded; a cache root that is a
symbolic link, a file, a FIFO, writable by others or owned by someone else is replaced by a
private directory after one warning; a full disk warns once and the process compiles in memory;
``cache clear`` between the steps of a compile makes that compile start again. The kernel LRU
lets go of modules, and the disk cap evicts the least recently used kernel first.
"""

from __future__ import annotations

import errno
import gc
import os
import pickle
import signal
import stat
import sys
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

import fusejit
from fusejit.runtime import compile_cache as cc
from fusejit.runtime.fusion import FusedKernel, cache_clear, cache_info
from fusejit.runtime.fusion import cache as kcache

IR = """graph(%x : Float(*, *), %y : Float(*, *)):
  %c : int = prim::Constant[value=1]()
  %a : Float(*, *) = aten::mul(%x, %y)
  %b : Float(*, *) = aten::sub(%a, %y, %c)
  return (%b)
"""
X = np.arange(12, dtype=np.float32).reshape(3, 4)
Y = np.full((3, 4), 3, np.float32)


def expected():
    return X * Y - Y


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("FUSEJIT_CACHE_DIR", str(root))
    monkeypatch.setenv("FUSEJIT_COMPILE_IN_PROCESS", "1000000")   # (as early in a process)
    cc.reset_for_tests()
    kcache._modules.clear()
    yield root
    cc.reset_for_tests()
    kcache._modules.clear()


def run_kernel():
    (out,) = FusedKernel(fusejit.parse_ir(IR))(X, Y)
    return out


def forget_modules():
    """As a new process would: the next call executes the module again and Numba reads its
    cache files."""
    for module in kcache._modules.values():
        sys.modules.pop(module.__name__, None)
    kcache._modules.clear()


def numba_files(root: Path) -> list[Path]:
    return sorted((root / "kernels" / cc.runtime_digest()).glob("fk_*.nb?"))


class Payload:
    """Unpickling this creates the marker file: proof that a planted pickle ran."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("plant", ["tampered", "without_manifest"])
def test_planted_pickle_is_never_loaded(private_cache, tmp_path, plant):
    np.testing.assert_array_equal(run_kernel(), expected())
    files = numba_files(private_cache)
    assert any(f.suffix == ".nbi" for f in files) and any(f.suffix == ".nbc" for f in files)
    marker = tmp_path / "PLANTED_CODE_RAN"
    for f in files:
        f.write_bytes(pickle.dumps(Payload(marker)))
        if plant == "without_manifest":
            cc.manifest_of(f).unlink()
    forget_modules()
    np.testing.assert_array_equal(run_kernel(), expected())
    assert not marker.exists()
    rebuilt = numba_files(private_cache)
    assert rebuilt and all(cc.read_trusted(f) is not None for f in rebuilt)
    # a manifest that matches really is what lets the next process load its code
    forget_modules()
    np.testing.assert_array_equal(run_kernel(), expected())
    assert not marker.exists()


def test_fifo_in_place_of_an_index_does_not_block(private_cache):
    run_kernel()
    indexes = [f for f in numba_files(private_cache) if f.suffix == ".nbi"]
    assert indexes
    for index in indexes:   # (one per cached function of the kernel module)
        index.unlink()
        os.mkfifo(index)
    forget_modules()
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(60)
    try:
        np.testing.assert_array_equal(run_kernel(), expected())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert stat.S_ISREG(os.lstat(index).st_mode)


def _make_root(kind: str, root: Path, tmp_path: Path, monkeypatch) -> None:
    if kind == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        root.symlink_to(tmp_path / "elsewhere")
    elif kind == "world_writable":
        root.mkdir()
        os.chmod(root, 0o777)
    elif kind == "group_writable":
        root.mkdir()
        os.chmod(root, 0o770)
    elif kind == "file":
        root.write_text("not a directory")
    elif kind == "fifo":
        os.mkfifo(root)
    elif kind == "other_owner":
        root.mkdir(mode=0o700)
        real = cc.owned_by_user
        monkeypatch.setattr(cc, "owned_by_user",
                            lambda info: real(info) and info.st_ino != os.lstat(root).st_ino)


@pytest.mark.parametrize("kind", ["symlink", "world_writable", "group_writable", "file", "fifo",
                                  "other_owner"])
def test_unsafe_root_is_not_used(private_cache, tmp_path, monkeypatch, kind):
    _make_root(kind, private_cache, tmp_path, monkeypatch)
    text = "# a kernel\nA = 1\n"
    with pytest.warns(RuntimeWarning, match="is not used"):
        path = kcache.store(text)
    assert path is not None and private_cache not in path.parents
    assert (tmp_path / "elsewhere") not in path.parents
    fallback = path.parent.parent
    info = os.lstat(fallback)
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # once only
        assert kcache.store(text) == path
    if kind == "other_owner":                         # and a call still runs
        np.testing.assert_array_equal(run_kernel(), expected())


# (A read-only file system fails the same writes and is handled as a full disk is: only the
# message the warning quotes differs.)
@pytest.mark.parametrize("error", [(errno.ENOSPC, "No space left on device"),
                                   pytest.param((errno.EROFS, "Read-only file system"),
                                                marks=pytest.mark.exhaustive)])
def test_full_disk_warns_once_and_a_later_run_recovers(private_cache, monkeypatch, error):
    def full(*args, **kwargs):
        raise OSError(*error)

    monkeypatch.setattr(cc, "_write_new", full)
    monkeypatch.setattr(kcache.tempfile, "mkstemp", full)
    with pytest.warns(RuntimeWarning, match=error[1]):
        np.testing.assert_array_equal(run_kernel(), expected())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forget_modules()
        np.testing.assert_array_equal(run_kernel(), expected())
    assert not numba_files(private_cache)
    assert not list(private_cache.rglob(".tmp-*"))    # nothing half-written left behind
    # the next run, with room on the disk again, writes its cache
    monkeypatch.undo()
    monkeypatch.setenv("FUSEJIT_CACHE_DIR", str(private_cache))
    cc.reset_for_tests()
    forget_modules()
    np.testing.assert_array_equal(run_kernel(), expected())
    assert numba_files(private_cache)


def test_clear_between_store_and_compile(private_cache, monkeypatch):
    store = kcache.store

    def store_then_clear(text):
        path = store(text)
        cache_clear()                                 # another process runs `cache clear`
        return path

    monkeypatch.setattr(kcache, "store", store_then_clear)
    np.testing.assert_array_equal(run_kernel(), expected())


def test_clear_between_index_and_data(private_cache, monkeypatch):
    run_kernel()
    forget_modules()
    load = cc.TrustedCacheFile._load_data
    cleared = []

    def clear_then_load(self, name):
        cleared.append(cache_clear())
        return load(self, name)

    monkeypatch.setattr(cc.TrustedCacheFile, "_load_data", clear_then_load)
    np.testing.assert_array_equal(run_kernel(), expected())
    assert cleared and cleared[0] > 0


def test_lru_lets_go_of_modules(private_cache, monkeypatch):
    monkeypatch.setattr(kcache, "LRU_SIZE", 2)
    first = kcache.load_module("FIRST = 1\n")
    ref, name = weakref.ref(first), first.__name__
    del first
    kcache.load_module("SECOND = 2\n")
    kcache.load_module("FIRST = 1\n")                 # a hit moves it to the front
    kcache.load_module("THIRD = 3\n")                 # so SECOND goes
    assert ref() is not None and name in sys.modules
    kcache.load_module("FOURTH = 4\n")
    kcache.load_module("FIFTH = 5\n")
    gc.collect()
    assert ref() is None and name not in sys.modules
    assert len(kcache._modules) == 2


def test_disk_cap_evicts_least_recently_used(private_cache, monkeypatch):
    texts = {name: f"# kernel {name}\n" + "X = 1\n" * 60 for name in "ABC"}
    paths = {name: kcache.store(texts[name]) for name in "AB"}
    numba_a = private_cache / "kernels" / cc.runtime_digest() / \
        f"fk_{kcache.source_hash(texts['A'])}.kernel_serial-1.py311.nbi"
    numba_a.parent.mkdir(exist_ok=True)
    numba_a.write_bytes(b"x" * 100)
    os.utime(paths["A"], (1000, 1000))               # A used long ago, B later
    os.utime(paths["B"], (2000, 2000))
    size = len(texts["A"])
    monkeypatch.setenv("FUSEJIT_CACHE_MAX_MB", str((2 * size + 150) / 2**20))
    paths["C"] = kcache.store(texts["C"])
    assert not paths["A"].exists() and not numba_a.exists()
    assert paths["B"].exists() and paths["C"].exists()
    assert cache_info()["size"] <= cache_info()["max_bytes"]


def test_the_cap_walks_the_cache_once_per_process_until_it_may_be_reached(private_cache,
                                                                           monkeypatch):
    # (walking after every new entry made filling a cache quadratic in its kernels)
    walks = []
    evict = kcache.evict
    monkeypatch.setattr(kcache, "evict", lambda keep=None: walks.append(keep) or evict(keep))
    texts = [f"# kernel {k}\n" + "X = 1\n" * 60 for k in range(kcache.REWALK + 4)]
    for text in texts[:3]:
        kcache.store(text)
    assert len(walks) == 1
    size = cache_info()["size"]
    # another process's writes are found within REWALK new entries of this one's
    for text in texts[3:kcache.REWALK + 4]:
        kcache.store(text)
    assert len(walks) == 2
    # the bytes this process wrote since could pass a cap: walked, and the oldest evicted
    monkeypatch.setenv("FUSEJIT_CACHE_MAX_MB", str((size + 100) / 2**20))
    kcache.store("# one more\n")
    assert len(walks) == 3 and cache_info()["size"] <= cache_info()["max_bytes"]


def test_info_shows_sizes_and_clear_removes_everything(private_cache, capsys):
    from fusejit.__main__ import main

    kcache.store("# a kernel\nB = 2\n")
    native = private_cache / "native" / "0123456789abcdef"
    native.mkdir(parents=True)
    (native / "loop.run_loop-1.py311.nbi").write_bytes(b"x" * 2048)
    info = cache_info()
    assert info["native_bytes"] == 2048 and info["kernels_bytes"] > 0
    assert info["size"] == info["native_bytes"] + info["kernels_bytes"]
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "kernels: 1" in out and "native loop" in out and "FUSEJIT_CACHE_MAX_MB" in out
    assert main(["cache", "clear"]) == 0
    assert cache_info()["size"] == 0
    assert not [p for p in private_cache.rglob("*") if p.is_file()]


def test_users_own_numba_functions_are_left_alone(tmp_path, monkeypatch):
    source = tmp_path / "user_module_for_cache_test.py"
    source.write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n"
                      "    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    import user_module_for_cache_test as user

    assert user.f(41) == 42
    assert cc.FusejitLocator.from_function(user.f.py_func, str(source)) is None
    assert not isinstance(user.f._cache._cache_file, cc.TrustedCacheFile)
    assert list((tmp_path / "__pycache__").glob("user_module_for_cache_test.f-*.nbi"))
    assert not list(tmp_path.rglob("*.sha256"))


def test_a_result_that_cannot_be_cached_warns_naming_its_file(private_cache):
    # Numba declines to cache a compile result with lifted code or dynamic globals (every
    # whole-graph function has them under NUMBA_OPT=0): it warns, naming the function's file
    # and line, and the function runs uncached. The warning read a locator attribute that
    # fusejit's locator lacked, and the compile raised AttributeError instead.
    from types import SimpleNamespace

    from numba.core.errors import NumbaWarning

    from fusejit.runtime import lapack

    impl = lapack.solve._cache._impl
    assert isinstance(impl.locator, cc.FusejitLocator)
    result = SimpleNamespace(lifted=[], library=SimpleNamespace(has_dynamic_globals=True),
                             fndesc=SimpleNamespace(qualname="solve"))
    with pytest.warns(NumbaWarning, match="Cannot cache compiled function .solve.") as seen:
        assert impl.check_cachable(result) is False
    assert seen[0].filename == lapack.__file__


def test_digest_covers_every_module_compiled_code_reads(tmp_path, monkeypatch, request):
    import shutil

    # (however this ends, later tests in this process must not see the copy's digest)
    request.addfinalizer(cc.runtime_digest.cache_clear)

    from fusejit.runtime.fusion import codegen

    assert codegen.HELPERS_DIGEST == cc.runtime_digest()
    copy = tmp_path / "fusejit"
    shutil.copytree(cc._PACKAGE / "runtime", copy / "runtime")
    monkeypatch.setattr(cc, "_PACKAGE", copy)
    digests = []
    for edited in [None, "native/slots.py", "native/views.py", "code.py",
                   "fusion/fastmath.py"]:
        if edited:
            with open(copy / "runtime" / edited, "a") as f:
                f.write("\n# edited\n")
        cc.runtime_digest.cache_clear()
        digests.append(cc.runtime_digest())
    cc.runtime_digest.cache_clear()
    assert len(set(digests)) == len(digests)
    with open(copy / "runtime" / "fusion" / "compiler.py", "a") as f:
        f.write("\n# edited: no compiled code reads this module\n")
    assert cc.runtime_digest() == digests[-1]
    cc.runtime_digest.cache_clear()


def _unseen_kernel(last_op: str):
    """IR's graph with ``last_op`` in place of its sub and a float constant drawn now, so that
    no earlier run compiled its kernel; and that constant."""
    constant = float(np.random.default_rng().integers(1, 2**40)) / 2**20
    graph = fusejit.parse_ir(IR.replace("%c : int = prim::Constant[value=1]()",
                                        f"%c : float = prim::Constant[value={constant!r}]()")
                             .replace("aten::sub(%a, %y, %c)", last_op))
    return graph, constant


def test_kernels_compile_in_a_child_after_the_limit(monkeypatch):
    from fusejit.runtime.fusion import isolated
    from fusejit.runtime.status import LISTENER

    # The session's cache, where the child finds fusejit's helpers compiled.
    graph, constant = _unseen_kernel("aten::add(%a, %c, %c)")
    monkeypatch.setenv("FUSEJIT_COMPILE_IN_PROCESS", "0")
    compiled_here = LISTENER.kernels
    try:
        (out,) = FusedKernel(graph)(X, Y)
    finally:
        isolated._CHILD.stop()
    np.testing.assert_allclose(out, X * Y + np.float32(constant) * np.float32(constant))
    # the child wrote the cache and this process loaded it: no kernel compiled here
    assert LISTENER.kernels == compiled_here


def test_cache_removed_while_running(private_cache):
    import shutil

    np.testing.assert_array_equal(run_kernel(), expected())
    shutil.rmtree(private_cache)                    # `rm -rf ~/.cache/fusejit` meanwhile
    graph = fusejit.parse_ir(IR.replace("aten::sub", "aten::add"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (out,) = FusedKernel(graph)(X, Y)
    np.testing.assert_array_equal(out, X * Y + Y)
    assert stat.S_IMODE(os.lstat(private_cache).st_mode) == 0o700
    assert len(numba_files(private_cache)) >= 2     # made again, and written


@pytest.mark.parametrize("value", ["lots", "-1", "0", "inf", "nan", "1e400"])
def test_bad_cap_warns_and_uses_the_default(private_cache, monkeypatch, value):
    monkeypatch.setenv("FUSEJIT_CACHE_MAX_MB", value)
    with pytest.warns(RuntimeWarning, match="FUSEJIT_CACHE_MAX_MB"):
        assert kcache.max_bytes() == 1024 * 2**20
    monkeypatch.setenv("FUSEJIT_CACHE_MAX_MB", "0.5")
    assert kcache.max_bytes() == 2**19


def test_a_child_of_other_fusejit_sources_is_not_used(monkeypatch):
    from fusejit.runtime.fusion import isolated
    from fusejit.runtime.status import LISTENER

    graph, constant = _unseen_kernel("aten::mul(%a, %c)")
    monkeypatch.setenv("FUSEJIT_COMPILE_IN_PROCESS", "0")
    monkeypatch.setattr(isolated, "_CHILD", isolated._Child())
    # as if fusejit had been edited on disk after this process imported it
    monkeypatch.setattr(isolated, "_digest", lambda: "0" * 16)
    compiled_here = LISTENER.kernels
    try:
        with pytest.warns(RuntimeWarning, match="sources differ"):
            (out,) = FusedKernel(graph)(X, Y)
    finally:
        isolated._CHILD.stop()
    np.testing.assert_allclose(out, X * Y * np.float32(constant), rtol=1e-6)
    assert LISTENER.kernels == compiled_here + 1 and not isolated._CHILD.usable


def test_clear_removes_a_file_being_written(private_cache, monkeypatch):
    write = cc._write_new

    def write_then_clear(path, data):
        write(path, data)
        cache_clear()                      # another process's `cache clear` takes the temp file

    monkeypatch.setattr(cc, "_write_new", write_then_clear)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(run_kernel(), expected())
    assert cc.writes_enabled()


def test_every_cached_function_of_fusejit_lives_under_the_cache_root():
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    import fusejit.runtime.fusion as fusion
    import fusejit.runtime.native as native

    seen = 0
    for package in (native, fusion):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                cache = getattr(value, "_cache", None)
                if isinstance(value, Dispatcher) and hasattr(cache, "_cache_file"):
                    seen += 1
                    assert isinstance(cache._cache_file, cc.TrustedCacheFile), value
                    # (under the root configured when its module was imported)
                    path = Path(cache.cache_path)
                    assert path.parent.name == "native" and path.name == cc.runtime_digest()
                    assert cc._PACKAGE not in path.parents
    assert seen > 20          # the loop, its helpers and the kernel helpers


def test_no_disk_at_all_still_runs(private_cache, monkeypatch):
    private_cache.write_text("a file where the cache should be")

    def no_temp(*args, **kwargs):
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(cc.tempfile, "mkdtemp", no_temp)
    monkeypatch.setattr(cc, "_fallback", [])
    with pytest.warns(RuntimeWarning, match="in memory"):
        np.testing.assert_array_equal(run_kernel(), expected())
    assert kcache.cache_dir() is None and cache_info()["directory"] == "(memory only)"


def test_an_aliased_import_names_the_module_not_its_package(tmp_path):
    """``from . import fastmath as fm`` makes the digest cover fastmath.py, not the package's
    __init__ (and through it every module the package imports)."""
    for name in ("__init__", "a", "b", "c"):
        (tmp_path / f"{name}.py").write_text("")
    source = tmp_path / "m.py"
    source.write_text("from . import a as fm\nfrom . import (b as x,\n    c)\n")
    assert cc._imports(source) == {tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"}
