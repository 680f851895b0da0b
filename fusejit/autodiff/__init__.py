"""Reverse-mode automatic differentiation of fusejit graphs.

``differentiate(graph, wrt)`` splits a graph into a forward graph (its outputs plus what the
backward pass needs) and a backward graph (output gradients plus saved values -> input
gradients); ``rules.RULES`` holds each op's derivative; ``api`` offers ``grad``,
``value_and_grad`` and ``vjp`` over a :class:`~fusejit.autodiff.staged.StagedCode`.
"""

from __future__ import annotations

from . import python_op as _python_op  # noqa: F401  (adds prim::PythonOp to the rules)
from .differentiate import AutodiffError, Gradient, differentiate

__all__ = ["AutodiffError", "Gradient", "differentiate"]
