"""The runtime's view of the operator library (``fusejit.oplib``), plus the device bodies.

The op entries, their NumPy bodies and node binding live in ``fusejit.oplib``; this package
re-exports them for the interpreters and adds ``cupy_bodies`` (imported by the CUDA path only).
"""

from __future__ import annotations

from ...oplib import (
    INTERPRETER_KINDS,
    OPS,
    OpEntry,
    Operation,
    find_entry,
    has_operation,
    make_operation,
)

__all__ = ["INTERPRETER_KINDS", "OPS", "OpEntry", "Operation", "find_entry", "has_operation",
           "make_operation"]
