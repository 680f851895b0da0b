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
                       key: str | None = None):
    """The :class:`CompiledFunction` of ``text`` in this process, parsed once per digest."""
    key = key or digest(text, fuse, engine, precise)
    fn = _MEMO.get(key)
    if fn is None:
        from .executor import CompiledFunction

        with _MEMO_LOCK:
            fn = _MEMO.get(key)
            if fn is None:
                fn = CompiledFunction(parse_ir(text), fuse=fuse, engine=engine, precise=precise)
                _MEMO[key] = fn
    return fn


def reduce_compiled(fn) -> tuple:
    """``CompiledFunction.__reduce__``: rebuilt from its graph text and options."""
    return compiled_from_text, (graph_text(fn.graph), fn.fuse, fn.engine, fn.precise)


def reduce_jit(fn) -> tuple:
    """``JitFunction.__reduce__``: the scripted graph's text, the signature and the name; the
    Python body stays behind (its globals need not exist in the receiving process)."""
    return jit_from_text, (graph_text(fn.graph), fn.device, fn._signature, fn.__qualname__)


def jit_from_text(text: str, device: str | None, signature: Any, qualname: str):
    """A ``@fusejit.jit`` function rebuilt from its scripted graph's text."""
    from ..frontend.jit import JitFunction

    def body_not_sent(*args: Any, **kwargs: Any) -> Any:
        raise FusejitError(f"{qualname} was rebuilt from its graph in another process; its "
                           f"Python body was not sent, only the graph runs here")

    body_not_sent.__qualname__ = qualname
    body_not_sent.__name__ = qualname.rpartition(".")[2]
    fn = JitFunction(body_not_sent, device=device)
    fn._signature = signature
    fn._graph = parse_ir(text)
    if device in (None, "cpu"):
        fn._compiled = compiled_from_text(text, True, "auto", False)
    return fn


def _all_nodes(graph: Graph):
    for node in graph.all_nodes():
        yield node
        for name in node.attribute_names():
            if node.kind_of(name) == "g":
                yield from _all_nodes(node.g(name))
