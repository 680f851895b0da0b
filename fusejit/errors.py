"""The exceptions fusejit raises.

Every error a user can provoke is a :class:`FusejitError`, so ``except fusejit.FusejitError``
catches all of them and nothing else. An error where the same code run by Python (or NumPy)
raises one of Python's exceptions is an instance of that class too (``kinded``): a function's
``a[10]`` past its array's end raises an ``InterpreterError`` that ``except IndexError``
catches, its ``np.linalg.solve`` of a singular matrix one that is a ``LinAlgError``, its
``raise ValueError("...")`` a ``JITException`` that is a ``ValueError``.
"""

from __future__ import annotations

import builtins


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


class ShapeMismatch(RuntimeError, ValueError):
    """Operands whose shapes an operation cannot take: a reshape to another number of
    elements, arrays to broadcast, concatenate, stack or multiply whose sizes differ. The
    ``RuntimeError`` PyTorch raises, and the ``ValueError`` NumPy raises for the same mistake
    (an operation's error, which the running function's ``InterpreterError`` is an instance
    of: ``kinded``)."""


class InterpreterError(FusejitError):
    """An operation failed while a graph was running; the message names the node and its source."""


# (fusejit's class, the Python class) -> the class that is both
_KINDED: dict[tuple[type, type], type] = {}


def kinded(cls: type[FusejitError], kind: type | None) -> type[FusejitError]:
    """``cls`` made a subclass of ``kind`` too, the exception class that the same code raises
    run by Python or NumPy (its attribute ``kind``); ``cls`` itself where ``kind`` is None,
    not an ``Exception``, a ``FusejitError``, or a class Python cannot take as a second base.
    It prints, pickles and reads as ``cls`` does (its message as given, not as ``KeyError``
    quotes one)."""
    if kind is None or not issubclass(kind, Exception) or issubclass(kind, FusejitError) or \
            issubclass(cls, kind):
        return cls
    made = _KINDED.get((cls, kind))
    if made is None:
        try:
            made = type(cls.__name__, (cls, kind), {
                "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__, "kind": kind, "__str__": BaseException.__str__,
                "__reduce__": _reduce})
        except TypeError:
            made = cls
        _KINDED[(cls, kind)] = made
    return made


def kind_of(error: BaseException) -> type | None:
    """The Python (or NumPy) exception class that ``error`` stands for: its own class, or a
    ``FusejitError``'s ``kind`` (None where it has none)."""
    if isinstance(error, FusejitError):
        return getattr(type(error), "kind", None)
    return type(error)


def make(cls: type[FusejitError], kind: type | None, message: str) -> FusejitError:
    """An instance of ``kinded(cls, kind)`` with ``message``; of ``cls`` where ``kind``'s
    constructor does not take one message (``UnicodeDecodeError``)."""
    try:
        return kinded(cls, kind)(message)
    except TypeError:
        return cls(message)


def builtin_kind(message: str) -> type | None:
    """The builtin exception class that a ``prim::RaiseException`` message names before its
    first colon ("ValueError: ..."; a name of Python's ``builtins`` module only, looked up,
    never evaluated), else None."""
    name = message.split(":", 1)[0].strip()
    kind = getattr(builtins, name, None) if name.isidentifier() else None
    return kind if isinstance(kind, type) and issubclass(kind, Exception) else None


def _reduce(error: FusejitError) -> tuple:
    base = type(error).__mro__[1]
    return (_rebuilt, (base, type(error).kind, error.args), error.__dict__ or None)


def _rebuilt(cls: type[FusejitError], kind: type, args: tuple) -> FusejitError:
    return kinded(cls, kind)(*args)
