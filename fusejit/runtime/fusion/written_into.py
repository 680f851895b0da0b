"""Running a fusion group whose output is written into one of its inputs (the group's
``written_into`` attribute, from ``passes/inplace_fusion.py``: ``x += expr`` as one kernel)::

    %x2 = prim::FusionGroup_0[written_into=3](%v, %a, %dt, %x)     # returns x itself, updated

A kernel that writes into memory it also reads loses LLVM's vector loop: the loop's run-time
overlap check sees the input and output windows overlap and takes the scalar loop. That costs
nothing where the loop is memory-bound and much where it computes (measured on 2^22 float32,
``p -= lr * m / (sqrt(v) + eps)``: 4.5 ms into another array, 34 ms into ``p``). So a group of
adds, subtractions and multiplications writes straight into the array (``verlet``'s
``x += v * dt + 0.5 * a * dt * dt`` on 2^22 float64: 0.86x NumPy -> 1.38x); any other group
computes into a new array, vectorised, and copies it in (one pass more, still two fewer than
the kernel's result added by ``aten::add_`` and copied: 0.9x -> 2x NumPy for that ``p``). A
group that does not read the array (``x[...] = expr``, ``d[1:-1] = expr``) writes into it
directly, whatever it computes.

To be written straight into, the array must hold the output as the kernel would have made it
(a plain, writeable, C-contiguous array of the output's shape and dtype) and share no memory with
another input (which the kernel might read at positions already written). Any other writeable
array of the output's shape and dtype takes the kernel's output through a copy, as NumPy
computes ``u[1:-1] += a * (u[2:] - 2 * u[1:-1] + u[:-2])`` into a temporary before it adds it
in: inputs that overlap the array (that stencil: interpreted op by op, it had run at 0.27x
NumPy on 10^6 float64), strided arrays (``x.T -= m``). Otherwise this declines
(``InterpreterError``) and ``GroupOperation`` interprets the group into a new array and copies
it in (``copy_into``), raising where ``aten::add_`` would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InterpreterError
from ...ir.graph import Node
from ...ir.symbols import aten, prim

# Ops whose loop stays memory-bound on the scalar path (see above).
_CHEAP = {aten.add, aten.sub, aten.mul, aten.neg, prim.Constant}


class WrittenInto:
    """A ``FusedKernel`` whose one output is its input ``index``. It has no native entry: the
    native loop runs it through the host (a few hundred ns, next to a pass over the data)."""

    __slots__ = ("kernel", "index", "direct")

    def __init__(self, kernel: Any, group: Node):
        self.kernel = kernel
        self.index = group.i("written_into")
        subgraph = group.g("Subgraph")
        # (a group that does not read the array, ``d[1:-1] = expr``, has no overlap to lose
        # its vector loop to: the checks below keep its inputs out of the array's memory)
        self.direct = not subgraph.inputs[self.index].uses or all(
            n.kind in _CHEAP for n in subgraph.block.nodes())

    def uncompiled(self, *inputs) -> list:
        """``FusedKernel.uncompiled`` of a call of this one."""
        return self.kernel.uncompiled(*inputs, run=self)

    def __call__(self, *inputs) -> tuple[np.ndarray]:
        target = inputs[self.index]
        if type(target) is not np.ndarray or not target.flags.writeable:
            raise InterpreterError("the updated array is not a plain writeable array")
        if self.direct and target.flags.c_contiguous and not any(
                i != self.index and isinstance(other, np.ndarray)
                and np.may_share_memory(target, other) for i, other in enumerate(inputs)):
            return (self.kernel.write_into(target, inputs),)
        # (into a new array, then copied in: every input is read before the array is written)
        result = self.kernel(*inputs)[0]
        if result.shape != target.shape or result.dtype != target.dtype:
            raise InterpreterError("the kernel's output is not the updated array's shape "
                                   "and dtype")
        np.copyto(target, result)
        return (target,)


def copy_into(target: Any, result: Any) -> tuple[Any]:
    """``result`` (the group computed into a new array) written into ``target``, with
    ``aten::add_``'s check that it does not broadcast ``target`` to a larger shape."""
    if np.broadcast_shapes(result.shape, target.shape) != target.shape:
        raise InterpreterError(f"in-place update: output with shape {list(target.shape)} "
                               f"doesn't match the broadcast shape {list(result.shape)}")
    target[...] = result
    return (target,)
