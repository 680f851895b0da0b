"""fusejit: TorchScript's graph IR, legacy graph fuser and register interpreter, on Numba.

::

    import fusejit
    graph = fusejit.parse_ir(text)      # PyTorch's printed IR, byte for byte
    print(graph)
"""

from __future__ import annotations

from .errors import (
                     FusejitError,
                     InterpreterError,
                     IRError,
                     IRParseError,
                     JITException,
                     SchemaError,
                     ScriptError,
)
from .ir import Block, Graph, Node, Use, Value, lint, parse_ir

__version__ = "0.1.0"

__all__ = [
    "Block", "FusejitError", "Graph", "IRError", "IRParseError", "InterpreterError",
    "JITException", "Node", "SchemaError", "ScriptError", "Use", "Value", "__version__", "lint",
    "parse_ir",
]
