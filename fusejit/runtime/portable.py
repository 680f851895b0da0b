"""Compiled functions travel between processes as IR text, never as compiled code.

::

    blob = pickle.dumps(fusejit.compile(graph, fuse=True))    # the graph's printed text
    fn = pickle.loads(blob)               # in a worker: parse_ir(text), compiled on first call

Kernels and the native loop are process-local (Numba function pointers), so pickling a
:class:`~fusejit.CompiledFunction` or a ``@fusejit.jit`` function sends the printed graph and its
options. The receiving process parses the text once per distinct text (memoised by a SHA-256
digest), so a Dask worker that runs a function on a thousand chunks plans and compiles it once;
the kernels themselves load from the on-disk cache (``$FUSEJIT_CACHE_DIR``) when another process
has compiled them before.

A graph that its text cannot carry (a tensor constant, printed ``<Tensor>``; a
``prim::PythonOp``, which holds a Python callable) raises :class:`~fusejit.FusejitError` naming
the node instead of arriving broken.
"""

from __future__ import annotations

import hashlib
import linecache
import os
import sys
import threading
from typing import Any

from ..errors import FusejitError
from ..ir.graph import Graph
from ..ir.parser import parse_ir
from ..ir.symbols import prim

_MEMO: dict[str, Any] = {}
_MEMO_LOCK = threading.Lock()


def digest(text: str, *options: Any) -> str:
    """The key a receiving process memoises a compiled function under."""
    return hashlib.sha256(repr((text, options)).encode()).hexdigest()


def graph_text(graph: Graph) -> str:
    """``graph`` printed, after checking that parsing the text gives the same program back."""
    for node in _all_nodes(graph):
        kinds = {node.kind_of(name) for name in node.attribute_names()}
        if node.kind == prim.PythonOp or kinds & {"t", "ts"}:
            where = f" at {node.source_range}" if node.source_range is not None else ""
            raise FusejitError(
                f"cannot send this function to another process as IR text: node "
                f"{node.kind}{where} holds a value its text cannot carry:\n  {str(node).strip()}")
    return str(graph)


def compiled_from_text(text: str, fuse: bool, engine: str, precise: bool,
                       key: str | None = None, device: str = "cpu", reductions: bool = False):
    """The :class:`CompiledFunction` of ``text`` in this process, parsed once per digest."""
    key = key or digest(text, fuse, engine, precise, device, reductions)
    fn = _MEMO.get(key)
    if fn is None:
        from .executor import CompiledFunction

        with _MEMO_LOCK:
            fn = _MEMO.get(key)
            if fn is None:
                fn = CompiledFunction(parse_ir(text), fuse=fuse, engine=engine, precise=precise,
                                      device=device, reductions=reductions)
                _MEMO[key] = fn
    return fn


class Portable:
    """What compiled functions share: pickled through ``__reduce__`` (``reduce_compiled``,
    ``reduce_jit``), and, like Python functions, their own copies (a copy rebuilt through the
    pickled form would be a second compile, and for a ``@jit`` function could lose its body)."""

    __slots__ = ()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self


def reduce_compiled(fn) -> tuple:
    """``CompiledFunction.__reduce__``: rebuilt from its graph text and options."""
    return compiled_from_text, (graph_text(fn.graph), fn.fuse, fn.engine, fn.precise, None,
                                fn.device.name, fn.reductions)


def reduce_jit(fn) -> tuple | str:
    """``JitFunction.__reduce__``. A jitted function its module holds under its name (the usual
    ``@fusejit.jit`` at module level) pickles by reference, as a plain function does. Any other
    (in ``__main__`` or a notebook) sends its Python function, which cloudpickle (as Dask uses)
    pickles by value, with its source text: fusejit scripts it per signature, and the receiving
    process may not have that source on disk."""
    from ..frontend.script import load_source

    module = sys.modules.get(fn.__module__)
    found: Any = module
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is fn and fn.__module__ != "__main__":
        return fn.__qualname__
    file = load_source(fn.fn).file     # (a ScriptError here if the source cannot be read)
    return jit_from_source, (fn.fn, fn.device, file, linecache.getlines(file), fn.race)


def jit_from_source(fn: Any, device: str | None, file: str, lines: list[str],
                    race: bool | None = None):
    """A ``@fusejit.jit`` function rebuilt in another process: where its source file cannot be
    read there, the sent text stands in for it (Python's linecache, which ``inspect`` reads)."""
    from ..frontend.jit import JitFunction

    if file and not os.path.exists(file) and file not in linecache.cache:
        text = "".join(lines)
        linecache.cache[file] = (len(text), None, list(lines), file)
    return JitFunction(fn, device=device, race=race)


def _all_nodes(graph: Graph):
    for node in graph.all_nodes():
        yield node
        for name in node.attribute_names():
            if node.kind_of(name) == "g":
                yield from _all_nodes(node.g(name))
