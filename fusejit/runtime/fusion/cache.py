"""The on-disk kernel cache: generated sources stored under the hash of their text.

::

    $FUSEJIT_CACHE_DIR (default ~/.cache/fusejit, or $XDG_CACHE_HOME/fusejit), mode 0700
      kernels/fk_<sha256 of the text, 32 hex>.py      written once (temp file + link), never edited
      kernels/__pycache__/fk_....nbi / .nbc           Numba's own cache (cache=True)

Numba keys its cache on the source file's path and modification time, so an entry is never
rewritten once valid. Before use, an entry is read back and compared with the text we expect;
a truncated, corrupt or foreign file (not ours, not a regular file) is replaced, and the module
is executed from the text we generated, never from bytes read off disk. Whatever sits where an
entry belongs is moved aside within the cache directory first (a directory is then deleted;
symbolic links are never followed). Numba's own files for an entry that fail to load are
dropped by ``reload_module``, which recompiles.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
import types
from pathlib import Path

from ...errors import FusejitError

_stats = {"hits": 0, "misses": 0}
_modules: dict[tuple[str, str], types.ModuleType] = {}


def cache_dir() -> Path:
    """The user's private cache directory, created with mode 0700 if missing."""
    env = os.environ.get("FUSEJIT_CACHE_DIR")
    if env:
        root = Path(env)
    else:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(home) / "fusejit"
    _private_dir(root)
    return root


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise FusejitError(f"kernel cache {path} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise FusejitError(f"kernel cache {path} belongs to another user; set FUSEJIT_CACHE_DIR")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)


def kernels_dir() -> Path:
    path = cache_dir() / "kernels"
    _private_dir(path)
    return path


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _entry_is_valid(path: Path, data: bytes) -> bool:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    try:
        with open(path, "rb") as f:
            return f.read(len(data) + 1) == data
    except OSError:
        return False


def store(text: str) -> Path:
    """The path of ``text``'s cache entry, writing it (atomically) if it is missing or bad."""
    data = text.encode("utf-8")
    directory = kernels_dir()
    path = directory / f"fk_{source_hash(text)}.py"
    if _entry_is_valid(path, data):
        _stats["hits"] += 1
        return path
    _stats["misses"] += 1
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".py", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, path)             # never clobbers an entry another process wrote
        except FileExistsError:
            if not _entry_is_valid(path, data):
                # A bad entry: replace it (new mtime, so Numba recompiles). os.replace cannot
                # replace a directory, so whatever is there is moved aside first.
                _move_aside(path)
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    if not _entry_is_valid(path, data):
                        raise FusejitError(f"kernel cache entry {path} keeps being replaced "
                                           "by something else") from None
    finally:
        if tmp:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
    return path


def _move_aside(path: Path) -> None:
    """Take whatever is at ``path`` (file, link, directory) out of the way, never following a
    symbolic link; a moved directory is deleted. A rename inside our private directory cannot
    reach outside it."""
    aside = path.with_name(f".tmp-stale-{os.urandom(8).hex()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return                             # another process got there first
    except OSError as why:
        raise FusejitError(f"kernel cache: cannot move {path} out of the way: {why}") from None
    try:
        if stat.S_ISDIR(os.lstat(aside).st_mode):
            # rmtree does not follow links inside the tree (and refuses a link at the top).
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.unlink(aside)
    except OSError:
        pass                               # left as .tmp-*, which cache_clear removes


def drop_numba_files(text: str) -> int:
    """Remove Numba's index and data files of ``text``'s entry (they are rebuilt on the next
    compilation); returns how many entries were removed."""
    pycache = kernels_dir() / "__pycache__"
    prefix = f"fk_{source_hash(text)}."
    removed = 0
    try:
        entries = list(os.scandir(pycache))
    except (FileNotFoundError, NotADirectoryError):
        return 0
    for entry in entries:
        if entry.name.startswith(prefix) and entry.name.endswith((".nbi", ".nbc")):
            _move_aside(Path(entry.path))
            removed += 1
    return removed


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
        return module
    path = store(text)
    name = f"fusejit_kernels.fk_{key}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        # Execute the text we generated, labelled with the cache file's path (for tracebacks
        # and for Numba's cache locator), never the bytes on disk.
        exec(compile(text, str(path), "exec"), module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _modules[memo] = module
    return module


def cache_info() -> dict:
    """Entries, total size in bytes (sources and Numba's files), and this process's hits/misses."""
    root = cache_dir()
    kernels = root / "kernels"
    entries = len(list(kernels.glob("fk_*.py"))) if kernels.is_dir() else 0
    size = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                size += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return {"directory": str(root), "entries": entries, "size": size,
            "hits": _stats["hits"], "misses": _stats["misses"]}


def cache_clear() -> int:
    """Delete every cached kernel (sources and Numba's files); returns the number of files."""
    kernels = cache_dir() / "kernels"
    removed = 0
    if not kernels.is_dir():
        return 0
    for dirpath, _dirs, files in os.walk(kernels, topdown=False):
        for name in files:
            if name.startswith(("fk_", ".tmp-")):
                try:
                    os.unlink(os.path.join(dirpath, name))
                    removed += 1
                except FileNotFoundError:
                    pass
    _modules.clear()
    return removed
