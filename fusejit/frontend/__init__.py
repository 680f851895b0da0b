"""Frontends: NumPy-spelled Python functions to TorchScript IR.

::

    import fusejit
    from fusejit import ops as F

    @fusejit.jit
    def gate(x, y):
        return F.sigmoid(x) * np.tanh(y)

    gate.graph            # scripted:  aten::sigmoid, aten::tanh, aten::mul
    fusejit.script(f)     # the same graph from a plain function
    fusejit.trace(f, x, y)  # recorded by running f on tracer arrays (control flow frozen)
"""

from __future__ import annotations

from .jit import JitFunction, jit
from .script import script
from .trace import trace

__all__ = ["JitFunction", "jit", "script", "trace"]
