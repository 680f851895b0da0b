"""Running a fusion group whose output is written into one of its inputs (the group's
``written_into`` attribute, from ``passes/inplace_fusion.py``: ``x += expr`` as one kernel)::

    %x2 = prim::FusionGroup_0[written_into=3](%v, %a, %dt, %x)     # returns x itself, updated

A kernel that writes into memory it also reads loses LLVM's vector loop: the loop's run-time
overlap check sees the input and output windows overlap and takes the scalar loop. That costs
nothing where the loop is memory-bound and much where it computes (measured on 2^22 float32,
``p -= lr * m / (sqrt(v) + eps)``: 4.5 ms into another array, 34 ms into ``p``). So a group of
adds, subtractions and multiplications writes straight into an array bigger than the caches
(``_STRAIGHT_FROM``; ``verlet``'s ``x += v * dt + 0.5 * a * dt * dt`` on 2^22 float64: 0.86x
NumPy -> 1.38x: in the caches its loop computes, and loses 2-3x); any other group
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
from ...passes.dead_code_elimination import eliminate_dead_code

# Ops whose loop stays memory-bound on the scalar path (see above).
_CHEAP = {aten.add, aten.sub, aten.mul, aten.neg, prim.Constant}
# ... for arrays bigger than the caches only: a group that reads the array it writes goes
# straight into it from this many bytes. Below, its vectorised loop into a new array and the
# copy cost less: x += v * dt + 0.5 * a * dt * dt, us a call straight -> through a copy
# (medians, 2 runs each): float32 10^4 3.0 -> 1.1, 2 * 10^5 24 -> 15, 10^6 (4 MB) 111 -> 49,
# 4 * 10^6 (16 MB) 185-200 -> 347-356; float64 10^6 (8 MB) 117-134 -> 137, 4 * 10^6 (32 MB)
# 492-523 -> 910-1017. (set F's damped_spring_ensemble, 10^5 float32 updated 300 times:
# 37-39 ms -> 24 ms, NumPy 31 ms.) A masked store's dense path likewise.
_STRAIGHT_FROM = 1 << 23


# A masked store writes through its group in one pass where more than this share of its
# mask held when last sampled; it samples again after _SAMPLE_EVERY such calls.
_DENSE = 0.03
_SAMPLE_EVERY = 15


class WrittenInto:
    """A ``FusedKernel`` whose one output is its input ``index``. It has no native entry: the
    native loop runs it through the host (a few hundred ns, next to a pass over the data)."""

    __slots__ = ("kernel", "index", "unread", "cheap", "masked", "value_at", "dense", "since")

    def __init__(self, kernel: Any, group: Node):
        self.kernel = kernel
        self.index = group.i("written_into")
        subgraph = group.g("Subgraph")
        # (a group that does not read the array, ``d[1:-1] = expr``, has no overlap to lose
        # its vector loop to: the checks below keep its inputs out of the array's memory)
        self.unread = not subgraph.inputs[self.index].uses
        self.cheap = all(n.kind in _CHEAP for n in subgraph.block.nodes())
        # (a kernel picking by exponent, ``exponents.ByExponent``: the mask's from its general)
        self.masked, self.value_at = _masked_store(subgraph, self.index,
                                                   getattr(kernel, "general", kernel))
        # (whether a masked store's mask held for more than _DENSE of its elements when last
        # sampled, and the calls since: ``__call__``)
        self.dense, self.since = False, _SAMPLE_EVERY

    def source(self, *inputs) -> str:
        """The generated source of the kernel computing the update (``kernel_source``)."""
        return self.kernel.source(*inputs)

    def uncompiled(self, *inputs) -> list:
        """``FusedKernel.uncompiled`` of a call of this one."""
        kernel = self.masked if self.masked is not None else self.kernel
        return kernel.uncompiled(*inputs, run=self)

    def __call__(self, *inputs) -> tuple[np.ndarray]:
        target = inputs[self.index]
        if type(target) is not np.ndarray or not target.flags.writeable:
            raise InterpreterError("the updated array is not a plain writeable array")
        if self.masked is not None:
            # NumPy's masked assignment branches per element: fast for a sparse mask (copyto
            # where= of 200k float64, 1% set: 33 us), slow for one set at random in a third
            # of the elements (731 us), where the group writing the array in one vectorised
            # pass costs ~100 us. The mask's density, sampled every _SAMPLE_EVERY calls, picks.
            self.since += 1
            sample = self.since > _SAMPLE_EVERY
            if self.dense and not sample:
                if self.straight(target, masked=True) and self._apart(target, inputs):
                    return (self.kernel.write_into(target, inputs),)
            else:       # (a dense mask in a small array: copied in whole, below)
                if sample:
                    self.since = 0
                if self._store(target, inputs, sample):
                    return (target,)
        if self.straight(target) and self._apart(target, inputs):
            return (self.kernel.write_into(target, inputs),)
        # (into a new array, then copied in: every input is read before the array is written)
        result = self.kernel(*inputs)[0]
        if result.shape != target.shape or result.dtype != target.dtype:
            raise InterpreterError("the kernel's output is not the updated array's shape "
                                   "and dtype")
        np.copyto(target, result)
        return (target,)

    def straight(self, target: np.ndarray, masked: bool = False) -> bool:
        """Does the kernel write straight into ``target`` (where it is apart from the other
        inputs)? Where the group does not read it; where it reads it, for a group of cheap
        ops (or a dense masked store: ``masked``) and an array beyond ``_STRAIGHT_FROM``."""
        return self.unread or (self.cheap or masked) and target.nbytes >= _STRAIGHT_FROM

    def _apart(self, target: np.ndarray, inputs: tuple) -> bool:
        """Is ``target`` C-contiguous and apart from the other inputs' memory?"""
        return target.flags.c_contiguous and not any(
            i != self.index and isinstance(other, np.ndarray)
            and np.may_share_memory(target, other) for i, other in enumerate(inputs))

    def _store(self, target: np.ndarray, inputs: tuple, sample: bool = False) -> bool:
        """A masked store, ``a[a < 0] = 0``: the kernel computes the mask (and the stored
        values, unless they are an input), and NumPy's boolean assignment (``np.copyto``'s
        ``where=`` for arrays of values) writes them where it is true, as NumPy's own masked
        assignment does: nothing where no element is masked (the group computed into a new
        array copied whole had run at 0.3-0.5x NumPy). False where the mask or values do not
        fit the array (the general path decides)."""
        outs = self.masked(*inputs)
        mask = outs[0]
        if sample and type(mask) is np.ndarray and mask.size:
            self.dense = np.count_nonzero(mask) > mask.size * _DENSE
        value = outs[1] if self.value_at is None else inputs[self.value_at]
        if mask.shape != target.shape or mask.dtype != np.bool_:
            return False
        if isinstance(value, np.ndarray) and value.ndim:
            if value.dtype != target.dtype or np.broadcast_shapes(
                    value.shape, target.shape) != target.shape:
                return False
            np.copyto(target, value, where=mask)
            return True
        if not isinstance(value, (np.ndarray, int, float, bool)):
            return False
        # (a number: NumPy's boolean assignment, 2.5x faster than copyto's where= on 10^6
        # float32 with nothing masked)
        target[mask] = value
        return True


def _masked_store(subgraph: Any, index: int, kernel: Any) -> tuple[Any, int | None]:
    """For a group whose output is ``where(mask, value, target)`` (``a[a < lo] = lo``), the
    kernel of the mask (and of the value, unless it is one of the group's inputs: its
    position then), else (None, None)."""
    (out,) = subgraph.outputs
    node = out.node
    if node is None or node.kind != aten.where or len(node.inputs) != 3 \
            or node.inputs[2] is not subgraph.inputs[index]:
        return None, None
    value = node.inputs[1]
    inputs = list(subgraph.inputs)
    value_at = inputs.index(value) if value in inputs else None
    if value_at is None and value.node is not None and value.node.kind == prim.Constant:
        return None, None        # (a constant array: the general path)
    graph = subgraph.copy()
    (where,) = [n for n in graph.block.nodes() if n.kind == aten.where and n.outputs[0] is
                graph.outputs[0]]
    graph.erase_output(0)
    graph.register_output(where.inputs[0])
    if value_at is None:
        graph.register_output(where.inputs[1])
    eliminate_dead_code(graph)
    try:
        return type(kernel)(graph, precise=kernel.precise), value_at
    except Exception:  # noqa: BLE001 - a mask the kernel compiler cannot express: as before
        return None, None


def copy_into(target: Any, result: Any) -> tuple[Any]:
    """``result`` (the group computed into a new array) written into ``target``, with
    ``aten::add_``'s check that it does not broadcast ``target`` to a larger shape."""
    if np.broadcast_shapes(result.shape, target.shape) != target.shape:
        raise InterpreterError(f"in-place update: output with shape {list(target.shape)} "
                               f"doesn't match the broadcast shape {list(result.shape)}")
    target[...] = result
    return (target,)
