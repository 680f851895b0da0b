"""Rich display of fusejit objects, in Jupyter and outside it.

In a notebook, leaving one of these as a cell's value shows it:

===========================  ==================================================================
``Graph``                    a Graphviz picture (fusion groups as clusters); text without ``dot``
``CompiledFunction``, jit    its plans per argument spec: engine, fusion groups, kernels, times
``Code``                     a table of instructions with move flags and jumps, like ``dump()``
``fusejit.kernel_source()``  the generated kernel, syntax-highlighted
===========================  ==================================================================

Outside a notebook ``fusejit.show(x)`` writes the same view to a file and returns its path::

    path = fusejit.show(fn.graph_for(x, y))   # .../fusejit-graph-xxxx.svg (or .html)

Nothing here is imported by ``import fusejit``; Graphviz, Pygments and IPython are imported
only when something is drawn.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ..errors import FusejitError
from ..ir.graph import Graph
from .graph import MAX_UNFOLDED_NODES, dot_available, graph_dot, graph_html, graph_svg
from .tables import KernelSource, code_html, function_html, jit_html, source_html

__all__ = ["MAX_UNFOLDED_NODES", "KernelSource", "code_html", "dot_available", "function_html",
           "graph_dot", "graph_html", "graph_svg", "jit_html", "show", "source_html"]

_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title></head>
<body style="font-family: Helvetica, Arial, sans-serif">
{body}
</body></html>
"""


def _html_of(x: Any) -> str:
    if isinstance(x, str) and not hasattr(x, "_repr_html_"):
        return source_html(x)
    render = getattr(x, "_repr_html_", None)
    if render is None:
        raise FusejitError(f"fusejit.show cannot show a {type(x).__name__}: it shows graphs, "
                           f"compiled and jit functions, Code and kernel source")
    return render()


def show(x: Any, path: str | Path | None = None) -> Path:
    """Write ``x``'s display to a file and return its path: a graph as SVG (HTML where
    Graphviz is missing), anything else as an HTML page. Without ``path``, a new file in the
    temporary directory."""
    svg = graph_svg(x) if isinstance(x, Graph) else None
    if svg is not None:
        text, suffix = svg, ".svg"
    else:
        text = _PAGE.format(title=f"fusejit {type(x).__name__}", body=_html_of(x))
        suffix = ".html"
    if path is None:
        with tempfile.NamedTemporaryFile("w", prefix=f"fusejit-{type(x).__name__.lower()}-",
                                         suffix=suffix, delete=False, encoding="utf-8") as f:
            f.write(text)
            return Path(f.name)
    path = Path(path)
    path.write_text(text, encoding="utf-8")
    return path
