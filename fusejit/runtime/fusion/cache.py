"""The on-disk kernel cache: generated sources stored under the hash of their text.

::

    $FUSEJIT_CACHE_DIR (default ~/.cache/fusejit, or $XDG_CACHE_HOME/fusejit), mode 0700
      kernels/fk_<sha256 of the text, 32 hex>.py      written once (temp file + link), never edited
      kernels/<digest>/fk_....nbi / .nbc (+ .sha256)  Numba's cache, kept by ../compile_cache.py
      native/<digest>/...                             Numba's cache of fusejit's own functions

Before use, an entry is read back and compared with the text we expect; a truncated, corrupt or
foreign file (not ours, not a regular file) is replaced, and the module is executed from the
text we generated, never from bytes read off disk. Whatever sits where an entry belongs is moved
aside within the cache directory first (a directory is then deleted; symbolic links are never
followed). When the cache cannot be written the module runs from memory all the same.

Loaded modules are kept in a small LRU; one it lets go of leaves ``sys.modules`` but stays
importable for as long as any of its functions lives (``_Evicted``): Numba imports a function's
module by name whenever the function compiles a new signature, and would otherwise compile it
against a blank stand-in module (``'<dynamic>'``), whose cache entries no later process can load.
The disk holds at most ``FUSEJIT_CACHE_MAX_MB`` MiB
(default 1024): after a new entry, the least recently used kernels (and native caches of other
fusejit versions) are deleted until it fits.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import math
import os
import stat
import sys
import tempfile
import types
import weakref
from collections import OrderedDict
from pathlib import Path

from ...errors import FusejitError
from .. import compile_cache as cc

_stats = {"hits": 0, "misses": 0}
# (kernels directory, source hash) -> module, least recently used first
_modules: OrderedDict[tuple[str, str], types.ModuleType] = OrderedDict()
LRU_SIZE = 64
_PACKAGE = "fusejit_kernels"
# module name -> every module loaded here that is still alive (a module refers to itself from
# its own globals, so it lives as long as its functions do)
_alive: weakref.WeakValueDictionary[str, types.ModuleType] = weakref.WeakValueDictionary()
_DEFAULT_MAX_MB = 1024.0


def cache_dir() -> Path | None:
    """The user's private cache directory (created 0700 if missing), a private fallback if it
    is unusable, or None when there is no disk cache at all."""
    return cc.usable_root()


def kernels_dir() -> Path | None:
    return cc.private_dir(None, "kernels")


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _entry_is_valid(path: Path, data: bytes) -> bool:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode) or not cc.owned_by_user(info):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            return f.read(len(data) + 1) == data
    except OSError:
        return False


def store(text: str) -> Path | None:
    """The path of ``text``'s cache entry, writing it (atomically) if it is missing or bad;
    None when the cache cannot hold it (the module then runs from memory)."""
    data = text.encode("utf-8")
    directory = kernels_dir()
    if directory is None:
        return None
    path = directory / f"fk_{source_hash(text)}.py"
    if _entry_is_valid(path, data):
        _stats["hits"] += 1
        return path
    _stats["misses"] += 1
    if not cc.writes_enabled():
        return None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".py", dir=directory)
    except OSError as why:
        if not isinstance(why, FileNotFoundError):   # (removed meanwhile: run from memory)
            cc.write_failed(directory, why)
        return None
    try:
        # (no fsync: an entry is read back and compared with its text before every use, so
        # one torn by a crash is rewritten, never trusted; a flush to disk cost a wait per
        # kernel compiled)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        cc.count_written(len(data))
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)             # never clobbers an entry another process wrote
        except FileExistsError:
            if not _entry_is_valid(path, data):
                # A bad entry: replace it. os.replace cannot replace a directory, so whatever
                # is there is moved aside first.
                cc.move_aside(path)
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    if not _entry_is_valid(path, data):
                        raise FusejitError(f"kernel cache entry {path} keeps being replaced "
                                           "by something else") from None
    except OSError as why:
        if not isinstance(why, FileNotFoundError):
            cc.write_failed(path, why)     # a full disk: run from memory, warn once
        return None
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    _keep_under_cap(path)
    return path


def drop_numba_files(text: str) -> int:
    """Remove Numba's index and data files of ``text``'s entry (they are rebuilt on the next
    compilation); returns how many files were removed."""
    directory = kernels_dir()
    if directory is None:
        return 0
    return _remove(_unit_files(directory, source_hash(text))[1:])


def reload_module(text: str) -> types.ModuleType:
    """``load_module`` afresh after Numba failed to load its cached code for ``text``: its
    files are dropped and the module re-executed, so the kernels compile again."""
    _modules.pop((str(kernels_dir()), source_hash(text)), None)
    drop_numba_files(text)
    return load_module(text)


def load_module(text: str) -> types.ModuleType:
    """The module defined by ``text``, backed by its cache file so Numba can cache to disk."""
    key = source_hash(text)
    memo = (str(kernels_dir()), key)
    module = _modules.get(memo)
    if module is not None:
        _modules.move_to_end(memo)
        return module
    path = store(text)
    if path is None:
        # No disk cache: the same name, so Numba's locator still recognises a kernel (whose
        # cache files are then neither read nor written).
        path = cc.configured_root() / "kernels" / f"fk_{key}.py"
    else:
        cc.touch_use(path)
    name = f"{_PACKAGE}.fk_{key}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.__dict__["__fusejit_module__"] = module
    _install_finder()
    sys.modules[name] = module
    try:
        # Execute the text we generated, labelled with the cache file's path (for tracebacks
        # and for Numba's cache locator), never the bytes on disk.
        exec(compile(text, str(path), "exec"), module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _modules[memo] = module
    _alive[name] = module
    while len(_modules) > LRU_SIZE:
        # Callers holding a kernel keep its functions; only the cache lets go of it.
        _memo, old = _modules.popitem(last=False)
        if sys.modules.get(old.__name__) is old:
            del sys.modules[old.__name__]
    return module


class _Evicted(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a kernel module the LRU took out of ``sys.modules`` while its functions live."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith(f"{_PACKAGE}.") and name in _alive:
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        module = _alive.get(spec.name)
        if module is None:
            raise ImportError(f"kernel module {spec.name} is gone", name=spec.name)
        return module

    def exec_module(self, module):
        pass        # already executed from its text when it was loaded


def _install_finder() -> None:
    """Make ``fusejit_kernels.*`` importable: the package, and the finder of evicted modules."""
    if _PACKAGE not in sys.modules:
        package = types.ModuleType(_PACKAGE, "fusejit's generated kernel modules")
        package.__path__ = []
        sys.modules[_PACKAGE] = package
    if not any(isinstance(finder, _Evicted) for finder in sys.meta_path):
        sys.meta_path.append(_Evicted())


# -- size, eviction, clearing -----------------------------------------------------------------

def max_bytes() -> int:
    """``FUSEJIT_CACHE_MAX_MB`` in bytes (default 1024 MiB)."""
    text = os.environ.get("FUSEJIT_CACHE_MAX_MB", "")
    try:
        mib = float(text) if text else _DEFAULT_MAX_MB
        if not (mib > 0 and math.isfinite(mib)):
            raise ValueError
    except ValueError:
        cc.warn_once("max_mb", f"FUSEJIT_CACHE_MAX_MB must be a positive number of MiB, got "
                     f"{text[:40]!r}; using {_DEFAULT_MAX_MB:g}")
        mib = _DEFAULT_MAX_MB
    return int(mib * 2**20)


def _size(path: str) -> int:
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def _tree_size(path: Path) -> int:
    return sum(_size(os.path.join(d, name)) for d, _dirs, files in os.walk(path)
               for name in files)


def _unit_files(kernels: Path, key: str) -> list[Path]:
    """A kernel's source file, then Numba's files for it under every digest."""
    files = [kernels / f"fk_{key}.py"]
    for sub in _scandir(kernels):
        if sub.is_dir(follow_symlinks=False):
            files += [Path(e.path) for e in _scandir(Path(sub.path))
                      if e.name.startswith(f"fk_{key}.")]
    return files


def _scandir(path: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(path))
    except OSError:
        return []


def _remove(paths) -> int:
    removed = 0
    for path in paths:
        try:
            os.unlink(path)
            removed += 1
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            cc.move_aside(Path(path))
        except OSError:
            pass
    return removed


def _mtime(path: str) -> float:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return 0.0


def _units(root: Path) -> list[tuple[float, int, list[Path]]]:
    """Everything that can be evicted: (last use, bytes, paths) per kernel and per native
    cache of another digest."""
    units = []
    kernels = root / "kernels"
    by_key: dict[str, list[Path]] = {}
    for entry in _scandir(kernels):
        if entry.is_dir(follow_symlinks=False):
            for inner in _scandir(Path(entry.path)):
                by_key.setdefault(inner.name[3:35], []).append(Path(inner.path))
        elif entry.name.startswith("fk_") and entry.name.endswith(".py"):
            by_key.setdefault(entry.name[3:35], []).insert(0, Path(entry.path))
    for key, paths in by_key.items():
        source = kernels / f"fk_{key}.py"
        used = _mtime(str(source)) or max(_mtime(str(p)) for p in paths)
        units.append((used, sum(_size(str(p)) for p in paths), paths))
    current = cc.runtime_digest()
    for entry in _scandir(root / "native"):
        if entry.name != current:
            units.append((_mtime(entry.path), _tree_size(Path(entry.path)), [Path(entry.path)]))
    return units


# Finding the cache's size walks it (about 5 us a file, 5 to 15 files a kernel). Walked after
# every new entry, filling a cache took time quadratic in its kernels (1000 new kernels of six
# files each: 16-20 CPU s, now 4.6-5.4, most of it writing), and a user with a large cache
# paid about 5 ms per thousand files for each new kernel. A process walks it at its
# first new entry under a root, then again only when the bytes it has written since
# (``compile_cache.bytes_written``) could have taken it past the cap, or after ``REWALK`` more
# new entries: other processes' writes, which it does not count, are found by then.
REWALK = 64
_walked: dict[str, tuple[int, int, int]] = {}   # root -> (size found, bytes_written then, entries)


def _keep_under_cap(keep: Path) -> None:
    """After a new entry ``keep``: ``evict`` when the cache may have passed the cap."""
    root = cache_dir()
    if root is None:
        return
    seen = _walked.get(str(root))
    if seen is not None:
        size, mark, entries = seen
        if entries < REWALK and size + cc.bytes_written() - mark <= max_bytes():
            _walked[str(root)] = (size, mark, entries + 1)
            return
    evict(keep)


def evict(keep: Path | None = None) -> int:
    """Delete the least recently used kernels (and other versions' native caches) until the
    cache fits ``FUSEJIT_CACHE_MAX_MB``; returns the bytes freed. ``keep`` is never deleted."""
    root = cache_dir()
    if root is None:
        return 0
    limit = max_bytes()
    mark = cc.bytes_written()
    total = _tree_size(root / "kernels") + _tree_size(root / "native")
    freed = 0
    _walked[str(root)] = (total, mark, 0)
    if total <= limit:
        return 0
    for _used, size, paths in sorted(_units(root), key=lambda unit: unit[0]):
        if total - freed <= limit:
            break
        if keep in paths:
            continue
        for path in paths:
            if path.is_dir() and not path.is_symlink():
                cc.move_aside(path)
            else:
                _remove([path])
        freed += size
    _walked[str(root)] = (total - freed, mark, 0)
    return freed


def cache_info() -> dict:
    """Where the cache is, its kernels, the sizes in bytes of kernels (sources and Numba's
    files), the native loop's cache and both, the cap, and this process's hits and misses."""
    root = cache_dir()
    kernels = len([e for e in _scandir(root / "kernels") if e.name.startswith("fk_")]) \
        if root else 0
    kernel_bytes = _tree_size(root / "kernels") if root else 0
    native_bytes = _tree_size(root / "native") if root else 0
    return {"directory": str(root) if root else "(memory only)", "entries": kernels,
            "kernels_bytes": kernel_bytes, "native_bytes": native_bytes,
            "size": kernel_bytes + native_bytes, "max_bytes": max_bytes(),
            "hits": _stats["hits"], "misses": _stats["misses"]}


def cache_clear() -> int:
    """Delete everything fusejit compiled to disk: kernel sources, Numba's files of kernels and
    of fusejit's own functions (also those an older fusejit left in the package's
    ``__pycache__``); returns the number of files. A process using the cache meanwhile finds
    its files gone and compiles again."""
    removed = 0
    root = cache_dir()
    if root is not None:
        for name in ("kernels", "native"):
            for dirpath, _dirs, files in os.walk(root / name, topdown=False):
                removed += _remove(os.path.join(dirpath, f) for f in files)
        removed += _remove(Path(e.path) for e in _scandir(root) if e.name.startswith(".tmp-"))
    package = Path(__file__).resolve().parents[2]
    for pycache in package.glob("**/__pycache__"):
        removed += _remove(p for p in pycache.glob("*.nb[ic]"))
    _modules.clear()
    return removed
