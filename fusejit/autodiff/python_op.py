"""Python ops with their own backward, like ``torch.autograd.Function``::

    @fusejit.python_op
    def swish(x):                      # forward: (outputs, what backward needs)
        s = 1.0 / (1.0 + np.exp(-x))
        return x * s, (x, s)

    @swish.defbackward
    def swish(saved, grad):            # one gradient per input (None: no gradient)
        x, s = saved
        return (grad * (s + x * s * (1.0 - s)),)

    @fusejit.jit
    def f(x):
        return np.sum(swish(x) * 2.0)   # a prim::PythonOp node in f's graph

Called from a scripted function, the op becomes a ``prim::PythonOp`` whose callable runs the
forward and drops the saved values. Differentiated, the forward node gets one more output, the
saved values (a Python object: the seed's ``HandleBuilder``), which the backward stage hands to a
second ``prim::PythonOp`` running the backward (the seed's ``Eval``). Called eagerly, it is just
the forward's outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import FusejitError
from ..ir.graph import Node
from ..ir.types import ANY, TensorType
from .rules import derivative


class PythonOp:
    """A Python forward with a Python backward, usable inside scripted functions."""

    def __init__(self, forward: Callable[..., tuple], num_outputs: int = 1):
        self.forward = forward
        self.backward: Callable[..., tuple] | None = None
        self.num_outputs = num_outputs
        self.__name__ = getattr(forward, "__name__", "python_op")
        self.__doc__ = getattr(forward, "__doc__", None)
        _register_callee(self)

    def defbackward(self, backward: Callable[..., tuple]) -> PythonOp:
        """Set the backward: ``backward(saved, *output_grads) -> one gradient per input``."""
        self.backward = backward
        return self

    def outputs_only(self, *args: Any) -> Any:
        outputs, _ = self._forward(args)
        return outputs

    def outputs_and_saved(self, *args: Any) -> tuple:
        outputs, saved = self._forward(args)
        return (*(outputs if self.num_outputs > 1 else (outputs,)), saved)

    def run_backward(self, n_inputs: int) -> Callable[..., tuple]:
        def backward(saved: Any, *grads: Any) -> Any:
            if self.backward is None:
                raise FusejitError(f"Python op {self.__name__} has no backward (use "
                                   f"@{self.__name__}.defbackward)")
            result = self.backward(saved, *grads)
            result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            if len(result) != n_inputs:
                raise FusejitError(f"the backward of Python op {self.__name__} returned "
                                   f"{len(result)} gradients for {n_inputs} inputs")
            return result if n_inputs != 1 else result[0]
        return backward

    def _forward(self, args: tuple) -> tuple:
        result = self.forward(*args)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise FusejitError(f"the forward of Python op {self.__name__} must return "
                               f"(outputs, saved values)")
        return result

    def __call__(self, *args: Any) -> Any:
        return self.outputs_only(*args)

    def __repr__(self) -> str:
        return f"<fusejit.python_op {self.__name__}>"


def python_op(forward: Callable[..., tuple] | None = None, *, num_outputs: int = 1):
    """Decorate a forward ``f(*inputs) -> (outputs, saved)``; then ``@op.defbackward``."""
    if forward is None:
        return lambda f: PythonOp(f, num_outputs)
    return PythonOp(forward, num_outputs)


def _register_callee(op: PythonOp) -> None:
    """Make scripted functions turn calls of ``op`` into ``prim::PythonOp`` nodes."""
    from ..frontend.calls import CALLEES, Callee
    from ..runtime.python_op import create_python_op

    def lower(b, args: tuple):
        values = [b.value(a) for a in args]
        node = create_python_op(b.graph, op.outputs_only, values, op.num_outputs,
                                name=op.__name__)
        b.graph.insert_node(node)
        if b.loc is not None:
            node.source_range = b.loc.source_range()
        return node.output() if op.num_outputs == 1 else tuple(node.outputs)

    CALLEES[op] = Callee(op.__name__, "*args", lower)


@derivative("prim::PythonOp")
def _python_op_derivative(ctx, node: Node, grads: list) -> list:
    from ..runtime.python_op import PythonCallable, create_python_op

    held = node.attr("fn") if node.has_attribute("fn") else None
    owner = getattr(getattr(held, "fn", None), "__self__", None)
    if not isinstance(owner, PythonOp):
        ctx.unsupported(node, "a prim::PythonOp without a backward (make it with "
                              "@fusejit.python_op and defbackward) is not differentiated")
    # The forward node also returns the saved values, kept in a register for stage 1.
    node.ival_("fn", PythonCallable(owner.outputs_and_saved, held.name))
    saved = node.add_output(ANY)
    inputs = [ctx.saved(saved)]
    for grad in grads:
        inputs.append(grad if grad is not None else ctx.const(None))
    tensors = [v for v in node.inputs if isinstance(v.type, TensorType)]
    backward = create_python_op(ctx.graph, owner.run_backward(len(node.inputs)), inputs,
                                len(node.inputs), name=f"{held.name}_backward")
    ctx.graph.insert_node(backward)
    backward.source_range = node.source_range
    return [(v, g) for v, g in zip(node.inputs, backward.outputs) if v in tensors]


__all__ = ["PythonOp", "python_op"]
