"""Staged execution of a differentiated graph (seed 000's stages, as two ``Code``s).

Stage 0 runs the forward graph and returns the outputs and an :class:`AutogradHandle` holding
what stage 1 needs; stage 1 takes the handle and the output gradients and returns the input
gradients. Each stage is a graph compiled by the executor (``fuse=True``: specialised, fused,
lowered to ``Code``), so the backward graph is fused like any other, ``_grad_sum_to_size``
included::

    staged = StagedCode(graph, wrt=[0], example_inputs)
    outputs, handle = staged.run_forward(*inputs)         # stage 0
    (grad_x,) = staged.run_backward(handle, grad_out)     # stage 1; the handle is spent
    print(staged.dump(*inputs))                           # both stages' instructions

The handle holds only the forward values the backward graph reads, and lets go of them when
stage 1 starts: after it the saved arrays are freed (unless the caller holds them too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import FusejitError
from ..ir.graph import Graph
from .differentiate import Gradient, differentiate


class AutogradHandle:
    """What the backward stage needs from one forward run (the seed's ``AutogradHandle``)."""

    __slots__ = ("saved", "__weakref__")

    def __init__(self, saved: list[Any]):
        self.saved: list[Any] | None = saved

    def take(self) -> list[Any]:
        """The saved values, once: the handle forgets them, so they die with the backward run."""
        if self.saved is None:
            raise FusejitError("this autograd handle was already used by a backward run; run "
                               "the forward stage again to differentiate again")
        saved, self.saved = self.saved, None
        return saved

    def __repr__(self) -> str:
        held = "spent" if self.saved is None else f"{len(self.saved)} saved values"
        return f"<AutogradHandle {held}>"


class StagedCode:
    """A graph differentiated with respect to inputs ``wrt``, compiled as two stages."""

    def __init__(self, graph: Graph, wrt: Sequence[int], example_inputs: Sequence[Any] | None,
                 fuse: bool = True, engine: str = "auto"):
        from ..passes import argument_type, propagate_input_shapes
        from ..runtime.executor import CompiledFunction

        graph = graph.copy()
        if example_inputs is not None:
            # Ranks and dtypes known (as the executor specialises): rules may depend on them.
            propagate_input_shapes(graph, [argument_type(x) if isinstance(x, np.ndarray)
                                           else None for x in example_inputs])
        self.gradient: Gradient = differentiate(graph, wrt)
        self.forward = CompiledFunction(self.gradient.forward, fuse=fuse, engine=engine)
        self.backward = CompiledFunction(self.gradient.backward, fuse=fuse, engine=engine)

    def run_forward(self, *inputs: Any) -> tuple[tuple, AutogradHandle]:
        """Stage 0: the outputs (a tuple) and the handle for stage 1."""
        results = _as_tuple(self.forward(*inputs), len(self.gradient.forward.outputs))
        n = self.gradient.num_outputs
        return results[:n], AutogradHandle(list(results[n:]))

    def run_backward(self, handle: AutogradHandle, *grad_outputs: Any) -> list[Any]:
        """Stage 1: one gradient per ``wrt`` input (None where no output depends on it)."""
        grads = [g for g, has in zip(grad_outputs, self.gradient.output_has_grad) if has]
        if len(grad_outputs) != self.gradient.num_outputs:
            raise FusejitError(f"the backward stage takes {self.gradient.num_outputs} output "
                               f"gradients, got {len(grad_outputs)}")
        stack = grads + handle.take()
        del grad_outputs, grads
        computed = iter(_as_tuple(self.backward(*stack), len(self.gradient.backward.outputs)))
        del stack
        return [next(computed) if reached else None for reached in self.gradient.wrt_reached]

    def dump(self, *inputs: Any, grad_outputs: Sequence[Any] | None = None) -> str:
        """Both stages' instructions for these inputs (``Code.dump()`` of each)."""
        outputs, handle = self.run_forward(*inputs)
        if grad_outputs is None:
            grad_outputs = [np.ones_like(o) if isinstance(o, np.ndarray) else None
                            for o in outputs]
        grads = [g for g, has in zip(grad_outputs, self.gradient.output_has_grad) if has]
        return (f"stage 0 (forward):\n{self.forward.code_for(*inputs).dump()}\n"
                f"stage 1 (backward):\n"
                f"{self.backward.code_for(*grads, *handle.take()).dump()}")


def _as_tuple(result: Any, n: int) -> tuple:
    if n == 1:
        return (result,)
    return () if result is None else tuple(result)


__all__ = ["AutogradHandle", "StagedCode"]
