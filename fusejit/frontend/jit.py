"""``fusejit.jit``: a decorator that scripts a NumPy function and runs it through the executor.

::

    @fusejit.jit
    def gate(x, h):
        return F.sigmoid(x) * np.tanh(h)

    gate(x, h)               # scripted on first use, fused, run by the interpreter
    gate.graph               # the scripted graph (Tensor-typed, as TorchScript prints it)
    gate.graph_for(x, h)     # the optimised graph that runs for these arguments
    gate.code_for(x, h)      # its instruction dump
    gate.__wrapped__(x, h)   # the original function, plain NumPy

Scripting happens on first use (not at decoration), so helpers defined later in the module are
found. ``jit(device="cpu")`` takes options; a device the executor does not offer is an error.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..errors import FusejitError
from ..ir.graph import Graph
from .script import script


class JitFunction:
    """A scripted function: call it like the original; ``graph``, ``graph_for``, ``code_for``."""

    def __init__(self, fn: Callable, device: str | None = None):
        if not inspect.isfunction(fn):
            raise FusejitError(f"fusejit.jit needs a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.device = device
        self._signature = inspect.signature(fn)
        self._graph: Graph | None = None
        self._compiled = None

    @property
    def graph(self) -> Graph:
        """The scripted graph (before optimisation)."""
        if self._graph is None:
            self._graph = script(self.fn)
        return self._graph

    def _executor(self):
        if self._compiled is None:
            from ..runtime.executor import compile

            options: dict[str, Any] = {"fuse": True}
            if self.device is not None:
                if "device" in inspect.signature(compile).parameters:
                    options["device"] = self.device
                elif self.device != "cpu":
                    raise FusejitError(f"device {self.device!r} is not available: this "
                                       f"executor runs on the CPU")
            self._compiled = compile(self.graph, **options)
        return self._compiled

    def _arguments(self, args: tuple, kwargs: dict) -> list[Any]:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise FusejitError(f"{self.fn.__qualname__}(): {error}") from None
        bound.apply_defaults()
        return list(bound.arguments.values())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._executor()(*self._arguments(args, kwargs))

    def graph_for(self, *args: Any, **kwargs: Any) -> Graph:
        """The optimised graph that runs for these arguments."""
        return self._executor().graph_for(*self._arguments(args, kwargs))

    def code_for(self, *args: Any, **kwargs: Any) -> str:
        """The interpreter's instruction dump for these arguments."""
        return self._executor().code_for(*self._arguments(args, kwargs)).dump()

    def __reduce__(self) -> tuple:
        # Sent to another process as the scripted graph's text (runtime/portable.py).
        from ..runtime.portable import reduce_jit

        return reduce_jit(self)

    def __copy__(self):
        # Like a Python function, a compiled function is its own copy (pickling, not copying,
        # goes through __reduce__'s text, which a copy would lose the Python body to).
        return self

    def __deepcopy__(self, memo: dict):
        return self

    def __repr__(self) -> str:
        return f"<fusejit.jit {self.fn.__qualname__}>"

    def _repr_html_(self) -> str:
        from ..display import jit_html

        return jit_html(self, self._compiled)


def jit(fn: Callable | None = None, *, device: str | None = None) -> Any:
    """Script ``fn`` and run it through the executor; ``@jit`` or ``@jit(device=...)``."""
    if fn is None:
        return lambda f: JitFunction(f, device=device)
    return JitFunction(fn, device=device)


__all__ = ["JitFunction", "jit"]
