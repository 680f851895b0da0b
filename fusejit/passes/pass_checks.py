"""``@graph_pass``: what every pass does around its body.

Before the pass: refuse a graph nested deeper than ``ir.limits.MAX_DEPTH`` (passes recurse once
per level of blocks, so a deeper graph would end in a ``RecursionError``) or with attributes out
of range (a ``chunks`` the fuser would turn into that many outputs). After it, when the
environment sets ``FUSEJIT_CHECK_IR=1``: ``lint`` the graph, so a pass that breaks an invariant
is named at once instead of failing far downstream::

    FUSEJIT_CHECK_IR=1 python -m fusejit fuse model.ir
    IRError: after pass fuse_graph: lint: ...

A pass given a ``Block`` (the fuser cleans blocks mid-way) is checked for depth only: its graph
may be between two steps of the caller. So are the interpreter's preprocessing passes
(``@lowering_pass``), whose output is interpreter form, not IR that ``lint`` accepts.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TypeVar

from ..errors import IRError
from ..ir.graph import Block, Graph
from ..ir.limits import check_depth
from ..ir.lint import lint

F = TypeVar("F", bound=Callable)


def check_ir_enabled() -> bool:
    """Is ``FUSEJIT_CHECK_IR=1`` set (read on every pass, so tests can switch it)?"""
    return os.environ.get("FUSEJIT_CHECK_IR", "") == "1"


def graph_pass(fn: F) -> F:
    """Wrap a pass ``fn(graph_or_block, ...)`` with the depth check and the optional lint."""
    return _wrap(fn, lints=True)


def lowering_pass(fn: F) -> F:
    """Wrap an interpreter-preprocessing pass (``runtime.code`` runs them before lowering): the
    depth check only, as its result (``prim::Load``/``Store``, desugared loops) is meant for
    the interpreter and no longer satisfies ``lint``."""
    return _wrap(fn, lints=False)


def _wrap(fn: F, lints: bool) -> F:
    name = fn.__name__

    @functools.wraps(fn)
    def run(graph_or_block, *args, **kwargs):
        if isinstance(graph_or_block, Block):
            graph = graph_or_block.graph
        elif isinstance(graph_or_block, Graph):
            graph = graph_or_block
        else:
            raise IRError(f"{name} expects a Graph, got {type(graph_or_block).__name__}")
        check_depth(graph, attributes=True)
        result = fn(graph_or_block, *args, **kwargs)
        if lints and graph is graph_or_block and check_ir_enabled():
            try:
                lint(graph)
            except IRError as exc:
                error = IRError(f"after pass {name}: {exc}")
                error.node = getattr(exc, "node", None)
                raise error from None
        return result

    return run  # type: ignore[return-value]
