"""Where fusejit's compiled code lives on disk, and when it is trusted.

::

    $FUSEJIT_CACHE_DIR (default ~/.cache/fusejit), a directory 0700 owned by the user
      kernels/fk_<sha256 of the text>.py            generated kernel sources (fusion/cache.py)
      kernels/<digest>/fk_<...>.nbi, .nbc           Numba's cache of those kernels
      native/<digest>/loop.run_loop-83.py311.nbi    Numba's cache of fusejit's own functions
      ....nbi.sha256, ....nbc.sha256                the manifest of each file above

``<digest>`` hashes the source of every fusejit module whose compiled code or constants can end
up inside another function (``runtime/native/*.py``, the kernel helpers, and every module of
``runtime/`` they import), with the Numba, llvmlite and NumPy versions and the CPU's name.
Numba's own key covers one file, so an edited callee used to leave stale code inlined into its
callers; a new digest is a new directory instead.

``FusejitLocator`` (first in Numba's list of cache locators) claims fusejit's package files and
its generated kernels only; the user's own functions and ``NUMBA_CACHE_DIR`` are untouched.
Their index and data files are pickles, so a file is unpickled only when its SHA-256 matches the
manifest fusejit wrote beside it when it saved it, read from a directory that ``usable_root``
verified; anything else is deleted and compiled again. A root that is not a private directory
of this user (a symbolic link, another owner, writable by others, a file, a FIFO) is not used:
one ``RuntimeWarning``, then a private temporary directory for this process. A write that fails
(read-only, a full disk) warns once and the process goes on compiling in memory.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import io
import os
import pickle
import re
import shutil
import stat
import tempfile
import warnings
from pathlib import Path

import llvmlite
import numba
import numpy as np
from numba.core import caching

from . import status  # noqa: F401  (announces slow compiles on stderr)

_PACKAGE = Path(__file__).resolve().parent.parent           # the fusejit package
# Modules whose compiled code other compiled code inlines: the seeds of the digest's closure.
_SEEDS = ("runtime/native/*.py", "runtime/fusion/helpers.py", "runtime/fusion/fastmath.py",
          "runtime/fusion/vecmath.py", "runtime/fusion/vecspecial.py",
          "runtime/fusion/vecpow.py", "runtime/fusion/vectrig.py", "runtime/fusion/veclgamma.py",
          "runtime/fusion/vecinverse.py", "runtime/fusion/cuda_helpers.py",
          "runtime/fusion/rowmath.py", "runtime/fusion/rowsearch.py", "runtime/fusion/streams.py",
          "runtime/blas.py", "runtime/lapack.py", "runtime/interpolate.py",
          "runtime/scalar_helpers.py")
_IMPORT = re.compile(r"^\s*from\s+([.\w]+)\s+import\s+(\([^)]*\)|[^\n]*)"
                     r"|^\s*import\s+(fusejit[.\w]*)", re.MULTILINE)
_KERNEL_FILE = re.compile(r"fk_[0-9a-f]{32}\.py")
_NONBLOCK = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)


def configured_root() -> Path:
    """The cache root the environment asks for (not checked or created here)."""
    env = os.environ.get("FUSEJIT_CACHE_DIR")
    if env:
        # (expanded: a "~/..." from a .env file or a Dockerfile ENV, which no shell expanded,
        # would otherwise be a directory named "~" under the working directory)
        return Path(env).expanduser().absolute()
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home).absolute() / "fusejit"


# -- the root: a private directory of this user, or a private fallback ----------------------

def owned_by_user(info: os.stat_result) -> bool:
    """Whether ``info`` (an lstat) belongs to this user (tests replace this to simulate
    another owner)."""
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


_verdicts: dict[str, Path | None] = {}
_fallback: list[Path] = []
_warned: set[str] = set()


def warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"fusejit: {message}", RuntimeWarning, stacklevel=3)


def _why_unusable(root: Path) -> str | None:
    """Why ``root`` cannot hold trusted files (None when it can); created 0700 if missing."""
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        try:
            root.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass                       # another process made it: check what is there now
        except OSError as why:
            return f"it cannot be created ({why.strerror})"
        info = os.lstat(root)
    except OSError as why:
        return f"it cannot be read ({why.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if not owned_by_user(info):
        return "it belongs to another user"
    if stat.S_IMODE(info.st_mode) & 0o022:
        return "other users can write to it"
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(root, 0o700)      # readable by others only: nothing planted, just close it
        except OSError:
            pass
    return None


def usable_root(root: Path | None = None) -> Path | None:
    """``root`` (default ``configured_root()``) when it is a private directory of this user;
    otherwise, after one warning, a private temporary directory removed at exit (None if even
    that cannot be made: then everything compiles in memory)."""
    root = configured_root() if root is None else root
    key = str(root)
    if key in _verdicts and (_verdicts[key] != root or os.path.lexists(root)):
        return _verdicts[key]          # (a root removed meanwhile is checked and made again)
    why = _why_unusable(root)
    if why is None:
        _verdicts[key] = root
        return root
    if not _fallback:
        try:
            _fallback.append(Path(tempfile.mkdtemp(prefix="fusejit-cache-")))
            atexit.register(shutil.rmtree, _fallback[0], True)
            _verdicts[str(_fallback[0])] = _fallback[0]
        except OSError:
            _fallback.append(None)    # type: ignore[arg-type]
    place = _fallback[0]
    warn_once(f"root:{key}", f"the cache directory {key} is not used ({why}); compiled code "
              f"is kept {'in ' + str(place) if place else 'in memory'} for this process "
              "only. Set FUSEJIT_CACHE_DIR to a directory of your own.")
    _verdicts[key] = place
    return place


def private_dir(root: Path | None, *parts: str) -> Path | None:
    """``root/parts...``, each level a directory of ours created 0700 (something else in the
    way is moved aside); None when the root is unusable or the directory cannot be made."""
    path = usable_root(root)
    for part in parts:
        if path is None:
            return None
        path = path / part
        for _attempt in range(3):      # (found, or made; moved aside, made, found)
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                try:
                    os.mkdir(path, 0o700)
                except FileExistsError:
                    continue
                except OSError as why:
                    write_failed(path, why)
                    return None
                continue
            if stat.S_ISDIR(info.st_mode) and owned_by_user(info):
                break
            move_aside(path)
        else:
            return None
    return path


# -- writes that may fail ----------------------------------------------------------------------

_writes = {"enabled": True}


def writes_enabled() -> bool:
    return _writes["enabled"]


def write_failed(path: Path, why: OSError) -> None:
    """A write into the cache failed (read-only, disk full, ...): warn once and stop writing
    for this process; every call still runs, compiled in memory."""
    _writes["enabled"] = False
    warn_once("write", f"cannot write to the cache ({path}: {why.strerror or why}); compiling "
              "without the disk cache for the rest of this process")


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def count_written(n: int) -> None:
    """Add ``n`` to the bytes this process has written into the cache (``bytes_written``)."""
    _written[0] += n


def bytes_written() -> int:
    """The bytes this process has written into any cache directory so far (what the disk cap,
    ``fusion/cache.py``, adds to the size it last found)."""
    return _written[0]


_written = [0]


def atomic_write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file and a rename; False (after one
    warning) when it cannot."""
    if not writes_enabled():
        return False
    tmp = path.with_name(f".tmp-{os.urandom(8).hex()}")
    try:
        _write_new(tmp, data)
        os.replace(tmp, path)
        count_written(len(data))
        return True
    except OSError as why:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if not isinstance(why, FileNotFoundError):
            write_failed(path, why)   # (a directory removed meanwhile: made again next time)
        return False


def move_aside(path: Path) -> None:
    """Take whatever is at ``path`` (file, link, FIFO, directory) out of the way, never
    following a symbolic link; a moved directory is deleted. A rename inside our private
    directory cannot reach outside it."""
    aside = path.with_name(f".tmp-stale-{os.urandom(8).hex()}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return                             # another process got there first
    except OSError:
        return
    try:
        if stat.S_ISDIR(os.lstat(aside).st_mode):
            shutil.rmtree(aside, ignore_errors=True)     # does not follow links inside
        else:
            os.unlink(aside)
    except OSError:
        pass                               # left as .tmp-*, which cache_clear removes


# -- files trusted through a manifest ----------------------------------------------------------

def manifest_of(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _read_regular(path: Path, limit: int = -1) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of ours; None if missing. Anything else
    (a link, FIFO, directory, another owner's file) is moved aside without being opened."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(info.st_mode) or not owned_by_user(info):
        move_aside(path)
        return None
    try:
        fd = os.open(path, _NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        now = os.fstat(f.fileno())
        if (now.st_ino, now.st_dev) != (info.st_ino, info.st_dev) or \
                not stat.S_ISREG(now.st_mode):
            return None
        return f.read(limit)


def read_trusted(path: Path) -> bytes | None:
    """The bytes of ``path`` when their SHA-256 is the one in its manifest; otherwise the file
    and its manifest are deleted and None returned."""
    data = _read_regular(path)
    if data is None:
        return None
    expected = _read_regular(manifest_of(path), 128)
    if expected is None or expected.strip() != hashlib.sha256(data).hexdigest().encode():
        move_aside(path)
        move_aside(manifest_of(path))
        return None
    return data


def write_trusted(path: Path, data: bytes) -> None:
    """Write ``data`` and its manifest (the manifest first: a reader between the two renames
    sees a mismatch and recompiles, never a stale file taken as new)."""
    if atomic_write(manifest_of(path), hashlib.sha256(data).hexdigest().encode() + b"\n"):
        atomic_write(path, data)


# -- the digest of everything compiled code inlines --------------------------------------------

def _imports(path: Path) -> set[Path]:
    """fusejit source files that ``path`` imports (read from its text, over-approximating)."""
    found: set[Path] = set()
    package = path.parent
    for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        module, names, absolute = match.groups()
        if absolute:
            module, names = absolute, ""
        if module.startswith("."):
            base = package
            for _ in range(len(module) - len(module.lstrip(".")) - 1):
                base = base.parent
            parts = [p for p in module.lstrip(".").split(".") if p]
        elif module.split(".")[0] == "fusejit":
            base, parts = _PACKAGE, module.split(".")[1:]
        else:
            continue
        target = base.joinpath(*parts)
        if target.with_suffix(".py").is_file():
            found.add(target.with_suffix(".py"))
            continue
        # a package: the submodules named, and its __init__ only for names defined there
        # (each ", "-separated item is "name" or "name as alias": the alias names nothing here)
        for item in names.strip("() \n").split(","):
            name = item.split()[0] if item.split() else ""
            if name.isidentifier():
                sub = target / f"{name}.py"
                found.add(sub if sub.is_file() else target / "__init__.py")
        found = {f for f in found if f.is_file()}
    return found


def digest_files() -> set[Path]:
    """The runtime modules whose text the digest covers: the seeds and what they import."""
    todo = [p for seed in _SEEDS for p in sorted(_PACKAGE.glob(seed))]
    seen: set[Path] = set()
    runtime = _PACKAGE / "runtime"
    while todo:
        path = todo.pop()
        # Compiled code reads globals of runtime modules only (opcodes, tables, constants);
        # ir/ and passes/ hold no compiled code, and this module none either.
        if path not in seen and runtime in path.parents and path.name != "compile_cache.py":
            seen.add(path)
            todo += _imports(path)
    return seen


@functools.lru_cache(maxsize=1)
def runtime_digest() -> str:
    """16 hex digits naming the compiled code of this fusejit source, toolchain and CPU."""
    digest = hashlib.sha256()
    for path in sorted(digest_files()):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    from llvmlite import binding

    from .blas import blas_identity

    # (compiled products call the BLAS found, by name and integer width: see blas.py)
    digest.update(f"numba {numba.__version__} llvmlite {llvmlite.__version__} numpy "
                  f"{np.__version__} cpu {binding.get_host_cpu_name()} "
                  f"blas {blas_identity()}".encode())
    return digest.hexdigest()[:16]


# -- Numba's side: a locator for fusejit's functions and a cache file that checks manifests ----

_places: dict[str, tuple[Path | None, tuple[str, ...]]] = {}   # token path -> (root, parts)


class FusejitLocator(caching._CacheLocator):
    """Caches fusejit's own ``@njit(cache=True)`` functions in ``native/<digest>`` and its
    generated kernels in ``kernels/<digest>``; declines every other function."""

    def __init__(self, py_func, root: Path | None, parts: tuple[str, ...]):
        self._lineno = py_func.__code__.co_firstlineno
        # (Numba's warning that a compile result cannot be cached names this file and line)
        self._py_file = py_func.__code__.co_filename
        self._path = str((root or configured_root()).joinpath(*parts))
        _places[self._path] = (root, parts)

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(os.path.abspath(py_file))
        module = getattr(py_func, "__module__", "") or ""
        if module.startswith("fusejit_kernels.") and _KERNEL_FILE.fullmatch(path.name):
            # a generated kernel (fusion/cache.py names its module and file)
            return cls(py_func, path.parent.parent, (path.parent.name, runtime_digest()))
        try:
            path.resolve().relative_to(_PACKAGE)
        except (ValueError, OSError):
            return None
        if not module.startswith("fusejit."):
            return None
        # The root is read once per process, when the module defining the function is
        # imported (the loop compiled under one root is not looked for under another);
        # usable_root checks it on first use.
        return cls(py_func, configured_root(), ("native", runtime_digest()))

    def ensure_cache_path(self):
        pass                      # made (and checked) when a file is written

    def get_cache_path(self):
        return self._path

    def get_source_stamp(self):
        return runtime_digest()   # the file's own content is part of the digest

    def get_disambiguator(self):
        return str(self._lineno)


class TrustedCacheFile(caching.IndexDataCacheFile):
    """Numba's index and data files, read only through ``read_trusted``."""

    def __init__(self, cache_path, filename_base, source_stamp):
        super().__init__(cache_path, filename_base, source_stamp)
        self.root, self._parts = _places[cache_path]

    def directory(self) -> Path | None:
        return private_dir(self.root, *self._parts)

    def _read(self, name: str) -> bytes | None:
        directory = self.directory()
        if directory is None:
            return None
        data = read_trusted(directory / name)
        if data is not None:
            touch_use(directory)
        return data

    def _write(self, name: str, data: bytes) -> None:
        directory = self.directory() if writes_enabled() else None
        if directory is not None:
            write_trusted(directory / name, data)
            touch_use(directory)

    def _load_index(self):
        data = self._read(self._index_name)
        if data is None:
            return {}
        stream = io.BytesIO(data)
        if pickle.load(stream) != self._version:
            return {}
        stamp, overloads = pickle.loads(stream.read())
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads):
        stream = io.BytesIO()
        pickle.dump(self._version, stream, protocol=-1)
        stream.write(self._dump((self._source_stamp, overloads)))
        self._write(self._index_name, stream.getvalue())

    def _load_data(self, name):
        data = self._read(name)
        if data is None:
            raise FileNotFoundError(name)       # Numba's load() then compiles afresh
        return pickle.loads(data)

    def _save_data(self, name, data):
        self._write(name, self._dump(data))


_touched: set[str] = set()


def touch_use(path: Path) -> None:
    """Mark ``path`` used now, once a process (eviction removes the least recently used
    first)."""
    if str(path) not in _touched:
        _touched.add(str(path))
        try:
            os.utime(path)
        except OSError:
            pass


_NumbaCacheFile = caching.IndexDataCacheFile


def _cache_file(cache_path, filename_base, source_stamp):
    """Numba's ``IndexDataCacheFile`` for every path but those ``FusejitLocator`` gave."""
    kind = TrustedCacheFile if cache_path in _places else _NumbaCacheFile
    return kind(cache_path=cache_path, filename_base=filename_base, source_stamp=source_stamp)


def install() -> None:
    """Put ``FusejitLocator`` first in Numba's locator list (once). Done on import: the native
    and fusion packages import this module before defining any ``cache=True`` function."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # (renamed in 0.68)
    classes = impl._locator_classes
    if FusejitLocator not in classes:
        classes.insert(0, FusejitLocator)
        # Cache.__init__ looks the class up by name when it builds a function's cache.
        caching.IndexDataCacheFile = _cache_file


def reset_for_tests() -> None:
    """Forget the verdicts on roots, the warnings given and a failed write."""
    _verdicts.clear()
    _warned.clear()
    _touched.clear()
    _writes["enabled"] = True


install()

__all__ = ["FusejitLocator", "TrustedCacheFile", "atomic_write", "configured_root", "install",
           "move_aside", "private_dir", "read_trusted", "runtime_digest", "touch_use",
           "usable_root", "warn_once", "write_trusted"]
