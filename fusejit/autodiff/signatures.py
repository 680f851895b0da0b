"""The graph a ``@fusejit.jit`` function is differentiated on, one per call signature.

``fusejit.grad(f)(w, x, 0.1, 1, "mean")`` scripts ``f`` for these arguments exactly as the plain
call ``f(w, x, 0.1, 1, "mean")`` does (``JitFunction._script``): arrays of known dtype and rank,
a float argument a float (not an array), an int used as an axis a constant of the signature,
a string option a constant that selects code. So whatever a call runs also differentiates:
``np.flip(x)`` (which needs the rank), ``x.max(axis=axis)``, ``if lam > 0``, ``range(n)``.

Where the graph scripted once without types takes the arguments as they are (arrays, and
numbers where it annotates them), that graph serves every signature, as it did before,
unless the typed graph casts to NumPy's dtypes where the untyped one cannot know them
(``0.9 ** np.arange(n)``: float64 in NumPy, float32 by PyTorch's rules; float32 arguments
with a float64 ``np.zeros`` loop state); the typed graphs are for the rest. A string
argument is no input of its graph; :class:`KeptInputs` runs a staged code on the arguments its
graph kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import FusejitError
from ..ir.graph import Graph
from ..ir.types import NONE, BoolType, FloatType, IntType, TensorType


def signature_graph(jitted: Any, args: list, cache: dict) -> tuple[tuple, Graph, tuple[int, ...]]:
    """``(key, graph, kept)`` for ``jitted`` called with (converted) ``args``: the key of the
    signature (types, the values of constant parameters and of string options), its scripted
    graph, and the positions of ``args`` that are the graph's inputs."""
    from ..frontend.jit import argument_ir_type

    if "generic" not in cache:
        try:
            cache["generic"] = jitted.graph
        except FusejitError:      # (it needs ranks or constant axes: typed scripting will do)
            cache["generic"] = None
    generic = cache["generic"]
    fits = generic is not None and _fits(generic, args)
    strings = tuple(i for i, a in enumerate(args) if type(a) is str)
    key = (jitted._key(tuple(args)), tuple(args[i] for i in strings))
    found = cache.get(key)
    if found is None:
        types = [NONE if i in strings else argument_ir_type(name, a)
                 for i, (name, a) in enumerate(zip(jitted._names, args))]
        try:
            graph = jitted._script(types, tuple(args), strings)
        except FusejitError:
            if not fits:
                raise
            graph = generic   # (the generic graph takes these arguments: keep it)
        for i in reversed(strings):
            graph.erase_input(i)
        kept = tuple(i for i in range(len(args)) if i not in strings)
        if fits and _numpy_casts(graph) <= _numpy_casts(generic):
            # the graph scripted once for all signatures, as before (what the benchmarks
            # measure), unless typing found NumPy dtypes it lacks (0.9 ** np.arange(n) is
            # float64 in NumPy, float32 by PyTorch's rules)
            graph = generic
        # (the key again: scripting may have found parameters that must be constants)
        key = (jitted._key(tuple(args)), tuple(args[i] for i in strings))
        found = cache[key] = (graph, kept)
    if found[0] is generic:
        return (), generic, found[1]
    return (key, *found)


def _numpy_casts(graph: Graph) -> int:
    """How many ``aten::type_as`` casts to a constant's dtype (``numpy_dtypes.cast``)."""
    return sum(1 for node in graph.all_nodes() if node.kind == "aten::type_as"
               and node.input(1).node.kind == "prim::Constant")


def _fits(graph: Graph, args: list) -> bool:
    """Do ``args`` match the input types of the signature-free graph (arrays for its tensors,
    Python numbers of their kinds for its annotated numbers)?"""
    if len(graph.inputs) != len(args):
        return False
    for value, arg in zip(graph.inputs, args):
        kind = type(value.type)
        if kind is TensorType:
            if not isinstance(arg, np.ndarray):
                return False
        elif _NUMBERS.get(kind) is not type(arg):
            return False
    return True


_NUMBERS = {IntType: int, FloatType: float, BoolType: bool}


class KeptInputs:
    """A staged code whose graph takes the arguments at positions ``kept`` only."""

    def __init__(self, code: Any, kept: tuple[int, ...]):
        self.code, self.kept = code, kept

    def run_forward(self, *inputs: Any) -> tuple:
        return self.code.run_forward(*[inputs[i] for i in self.kept])

    def run_backward(self, handle: Any, *grad_outputs: Any) -> list[Any]:
        return self.code.run_backward(handle, *grad_outputs)

    def dump(self) -> str:
        return self.code.dump()


__all__ = ["KeptInputs", "signature_graph"]
