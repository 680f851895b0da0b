"""The exceptions fusejit raises.

Every error a user can provoke is a :class:`FusejitError`, so ``except fusejit.FusejitError``
catches all of them and nothing else.
"""

from __future__ import annotations


class FusejitError(Exception):
    """Base class of every error fusejit raises on bad input."""


class IRError(FusejitError):
    """A graph breaks an invariant of the IR (raised by graph mutations and by ``lint``)."""


class DTypeError(IRError, ValueError):
    """A NumPy dtype with no TorchScript scalar type (complex, uint64, object, strings...).

    Also a ``ValueError``, which is what callers that probe dtypes catch.
    """


class IRParseError(FusejitError):
    """IR text could not be parsed; the message shows the line and a caret under the column."""

    def __init__(self, message: str, text: str = "", line: int = 0, column: int = 0):
        self.line = line
        self.column = column
        self.reason = message
        if line > 0:
            lines = text.splitlines()
            shown = lines[line - 1] if line - 1 < len(lines) else ""
            shown = shown.encode("ascii", "backslashreplace").decode("ascii")
            shown = shown[:200]
            caret = " " * min(max(column - 1, 0), len(shown)) + "^"
            message = f"line {line}, column {column}: {message}\n    {shown}\n    {caret}"
        super().__init__(message)


class SchemaError(FusejitError):
    """An operator schema string is malformed, or a node does not match any known schema."""


class ScriptError(FusejitError):
    """Python source uses a construct that the frontend cannot translate."""


class JITException(FusejitError):
    """Raised by ``prim::RaiseException`` in a running graph."""


class InterpreterError(FusejitError):
    """An operation failed while a graph was running; the message names the node and its source."""
