"""A differentiated graph's two stages as two compiled functions, for small arrays.

On a 16x64 LSTM step every fused kernel or host op the interpreter runs costs more than its
arithmetic, so a training step of such arrays is run as two Numba functions instead
(``runtime/element_stage.py``)::

    forward(inputs)                    -> (outputs..., saved values...)
    backward(output grads, saved...)   -> input gradients

They compute the ``Gradient``'s own forward and backward graphs, so the handle holds exactly
the forward graph's saved values (for a loop, one ``numba.typed.List`` of per-iteration
tuples) and lets go of them when the backward stage takes them. ``StagedCode`` uses them when
both stages qualify; calls whose arrays are larger than ``max_elements`` (a straight-line graph
of big arrays: fused kernels and BLAS threads win there) or that fail in the compiled forward
run on the interpreter's staged Code instead.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba.core.errors import NumbaError, NumbaPerformanceWarning

from ..errors import FusejitError
from ..ir.graph import Graph, Value
from ..ir.symbols import aten, prim
from ..passes import eliminate_common_subexpression, eliminate_dead_code
from ..runtime import blas
from .differentiate import Gradient
from .observed import drop_sums, observe, retype

# Straight-line stages run whole while every array argument has at most this many elements;
# stages with a loop run whole at any size (FUSEJIT_WHOLE_STAGE_ELEMENTS). Measured with
# ``benchmarks/autodiff.py --crossover`` (MLP steps, one thread, loaded 2-core machine): whole
# 0.35x the interpreter's time at width 32, 0.51x at 128, even at 256 and 512 (arguments of
# 131072 elements), 1.12x at 1024, where BLAS time dominates and fused kernels use threads.
_DEFAULT_ELEMENTS = 131072


def _env_elements() -> int:
    """``$FUSEJIT_WHOLE_STAGE_ELEMENTS``; a value that is not a count warns and keeps the
    default (at import, so a typo must not make ``import fusejit.autodiff`` fail)."""
    text = os.environ.get("FUSEJIT_WHOLE_STAGE_ELEMENTS", "").strip()
    if not text:
        return _DEFAULT_ELEMENTS
    if text.isdigit():
        return int(text)
    warnings.warn(f"FUSEJIT_WHOLE_STAGE_ELEMENTS must be a count of elements, got "
                  f"{text[:40]!r}; using {_DEFAULT_ELEMENTS}", stacklevel=2)
    return _DEFAULT_ELEMENTS


WHOLE_STAGE_MAX_ELEMENTS = _env_elements()


class SavedValues:
    """What the compiled forward stage saved, as the handle holds it."""

    __slots__ = ("values", "stages")

    def __init__(self, values: list[Any], stages: WholeStages):
        self.values, self.stages = values, stages


def _has_loop(graph: Graph) -> bool:
    return any(node.kind == prim.Loop for node in graph.all_nodes())


def _zero_d(graph: Graph, values: Sequence) -> list[tuple[int, np.dtype]]:
    return [(i, v.type.dtype) for i, v in enumerate(values)
            if getattr(v.type, "rank", None) == 0 and v.type.dtype is not None]


class WholeStages:
    """The compiled forward and backward functions of ``gradient``."""

    def __init__(self, gradient: Gradient, forward: Graph, backward: Graph,
                 max_elements: int | None, shapes: dict[Value, tuple] | None = None):
        from ..runtime.element_stage import compile_stage_graph

        self.num_outputs = gradient.num_outputs
        self.num_grads = sum(gradient.output_has_grad)
        # Written for the example's shapes (``shapes``): a call whose operands' shapes differ
        # there (a size computed from data) runs the general form, compiled then (``_retry``).
        self.forward_fn = compile_stage_graph(forward, "forward_stage", shapes)
        self.backward_fn = compile_stage_graph(backward, "backward_stage", shapes)
        self.graphs = (forward, backward)
        self.general: list[Any] = [None, None] if shapes else [self.forward_fn,
                                                                self.backward_fn]
        self.max_elements = max_elements
        # 0-d tensors are Numba scalars inside the functions; NumPy 0-d arrays outside.
        self.scalar_inputs = [i for i, _ in _zero_d(forward, forward.inputs)]
        self.scalar_grads = [i for i, _ in _zero_d(backward, backward.inputs)]
        self.zero_d_outputs = _zero_d(forward, forward.outputs[:self.num_outputs])
        self.zero_d_grads = _zero_d(backward, backward.outputs)
        self.single_forward = len(forward.outputs) == 1
        self.single_backward = len(backward.outputs) == 1
        self.refused: list[BaseException] = []
        self.sizes: tuple | None = None   # the input sizes it was compiled for
        self.warm = [False, False]

    def _call(self, which: int, fn: Any, args: list) -> Any:
        if self.warm[which]:
            try:
                return fn(*args)
            except ValueError as error:
                return self._retry(which, error, args)
        with warnings.catch_warnings():   # (np.dot of a chunk copies it: said once here)
            warnings.simplefilter("ignore", NumbaPerformanceWarning)
            try:
                results = fn(*args)
            except ValueError as error:
                results = self._retry(which, error, args)
        self.warm[which] = True
        return results

    def _retry(self, which: int, error: ValueError, args: Sequence[Any]) -> Any:
        """Stage ``which`` run in its general form: ``error`` said an operand's shape differs
        from the example's (else it is raised again)."""
        from ..runtime.element_loops import SHAPES_CHANGED
        from ..runtime.element_stage import compile_stage_graph

        if SHAPES_CHANGED not in str(error):
            raise error
        if self.general[which] is None:
            name = ("forward_stage", "backward_stage")[which]
            self.general[which] = compile_stage_graph(self.graphs[which], name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumbaPerformanceWarning)
            return self.general[which](*args)

    def forward(self, inputs: Sequence[Any]) -> tuple[tuple, SavedValues] | None:
        """The outputs and the saved values; None when this call runs on the interpreter."""
        if self.refused:
            return None
        if self.sizes is not None and input_sizes(inputs) != self.sizes:
            return None
        if self.max_elements is not None:
            for x in inputs:
                if isinstance(x, np.ndarray) and x.size > self.max_elements:
                    return None
        args = list(inputs)
        for i in self.scalar_inputs:
            args[i] = args[i][()]
        try:
            results = self._call(0, self.forward_fn, args)
        except Exception as error:  # noqa: BLE001 - the interpreter gives the answer or error
            if isinstance(error, NumbaError):
                self.refused.append(error)
            return None
        results = [results] if self.single_forward else list(results)
        n = self.num_outputs
        for i, dtype in self.zero_d_outputs:
            results[i] = np.asarray(results[i], dtype)
        return tuple(results[:n]), SavedValues(results[n:], self)

    def value_and_grad(self, inputs: Sequence[Any]) -> tuple[Any, list] | None:
        """Both stages for a warm call of a scalar function (``fusejit.value_and_grad``'s
        fast path): the value and the backward's results for the output gradient 1, without
        a handle; None when this call runs on the interpreter (the compiled forward raised).
        The caller has checked the arguments' types and sizes against an earlier call of
        these stages."""
        if self.refused:
            return None
        blas.refresh()
        if self.scalar_inputs:
            inputs = list(inputs)
            for i in self.scalar_inputs:
                inputs[i] = inputs[i][()]
        try:
            results = self.forward_fn(*inputs)
        except Exception:  # noqa: BLE001 - the general path gives the answer or error
            return None
        if self.single_forward:
            results = (results,)
        value = results[0]
        if self.zero_d_outputs:   # (a Numba scalar inside; a 0-d array to the caller)
            dtype = self.zero_d_outputs[0][1]   # (the seed: a NumPy scalar, as backward's)
            value, seeds = np.asarray(value, dtype), (dtype.type(1),)
        else:
            seeds = (np.ones_like(value),)
        try:   # (warm: no first-call warnings to quiet, as _call does)
            args = [*seeds[:self.num_grads], *results[1:]]
            try:
                grads = self.backward_fn(*args)
            except ValueError as changed:
                grads = self._retry(1, changed, args)
        except Exception as error:
            raise FusejitError(f"the compiled backward stage failed: {error}") from error
        return value, self._gradients(grads)

    def backward(self, grads: list, saved: SavedValues) -> list:
        """The input gradients from the output gradients and the saved values (spent)."""
        args, saved.values = grads + saved.values, []
        for i in self.scalar_grads:
            args[i] = np.asarray(args[i])[()]
        try:
            results = self._call(1, self.backward_fn, args)
        except Exception as error:
            raise FusejitError(f"the compiled backward stage failed: {error}") from error
        finally:
            del args
        return self._gradients(results)

    def _gradients(self, results: Any) -> list:
        """The backward function's results as the input gradients (0-d ones as arrays)."""
        results = [results] if self.single_backward else list(results)
        for i, dtype in self.zero_d_grads:
            results[i] = np.asarray(results[i], dtype)
        return results


def whole_stages(gradient: Gradient, example_inputs: Sequence[Any]) -> WholeStages | None:
    """The compiled stages of ``gradient``, or None when a stage does not qualify."""
    from ..runtime.element_stage import is_stage_graph
    from ..runtime.element_support import written_arguments

    forward, backward = gradient.forward.copy(), gradient.backward.copy()
    if any(node.kind == prim.PythonOp for g in (forward, backward) for node in g.all_nodes()):
        return None
    n = gradient.num_outputs
    seen_shapes: dict[Value, set] = {}
    try:
        outputs, seen, idle = observe(forward, example_inputs, seen_shapes)
        grads = [np.ones_like(np.asarray(o)) for o, has in zip(outputs[:n],
                                                               gradient.output_has_grad) if has]
        grad_inputs, seen_backward, idle_backward = observe(backward, grads + outputs[n:],
                                                            seen_shapes)
    except Exception:  # noqa: BLE001 - the interpreter reports the graph's own error
        return None
    retype(forward, seen)
    retype(backward, seen_backward)
    # Compiled for the example's sizes (calls with others run on the interpreter): the sums
    # to sizes that summed nothing go, and the pointwise code around them fuses.
    drop_sums(idle | idle_backward)
    share_equal_sizes(backward, dict(zip(backward.inputs, grads + outputs[n:])))
    # (the interpreter's fuser cleans up inside its groups); the backward first, so that the
    # forward no longer computes the saved values it stopped reading
    _tidy(backward)
    _prune_saved_tuples(gradient, forward, backward)
    _tidy(forward)
    if not (is_stage_graph(forward) and is_stage_graph(backward)):
        return None
    limit = None if _has_loop(forward) or _has_loop(backward) else WHOLE_STAGE_MAX_ELEMENTS
    # Written for the example's shapes where each value had one (in a loop it may have had
    # several: those checks stay in the code) and no stage writes its arguments (a stage that
    # finds other shapes stops and its general form runs again from the same arguments).
    shapes = None if written_arguments(forward) or written_arguments(backward) else {
        v: next(iter(s)) for v, s in seen_shapes.items() if len(s) == 1}
    stages = WholeStages(gradient, forward, backward, None, shapes)
    stages.sizes = input_sizes(example_inputs)
    # Compiled now, on the example, and checked against the run above: a stage Numba cannot
    # type, or one that computes something else, leaves the graph to the interpreter.
    try:
        ran = stages.forward(example_inputs)
        if ran is None:
            return None
        got = [*ran[0], *stages.backward(grads, ran[1])]
    except FusejitError:
        return None
    if not all(_close(a, b) for a, b in zip(got, [*outputs[:n], *grad_inputs])):
        return None
    stages.max_elements = limit
    return stages


def _tidy(graph: Graph) -> None:
    eliminate_common_subexpression(graph)
    eliminate_dead_code(graph)


def share_equal_sizes(backward: Graph, values: dict) -> None:
    """Sums of one gradient to saved sizes that were equal in the example read the same size
    value, so that CSE leaves one: an LSTM's ``b_ih`` and ``b_hh`` get the same row sums of
    the gates' gradient, which the backward computed twice per step. (Sound for the sizes the
    stages are compiled for, as ``drop_sums``: every size follows from the input sizes.)"""
    first: dict[tuple, Value] = {}
    for node in backward.all_nodes():
        size = node.input(1) if node.kind == aten._grad_sum_to_size else None
        if size is not None and isinstance(values.get(size), (list, tuple)):
            key = (node.input(0), tuple(values[size]))
            node.replace_input(1, first.setdefault(key, size))


def _prune_saved_tuples(gradient: Gradient, forward: Graph, backward: Graph) -> None:
    """Leave out of the per-iteration saved tuples what the backward no longer reads (the
    sizes of sums ``drop_sums`` removed), so the forward neither keeps nor computes them."""
    n, num_grads = gradient.num_outputs, sum(gradient.output_has_grad)
    for saved, loaded in zip(forward.outputs[n:], backward.inputs[num_grads:]):
        made = saved.node
        appends = [u.user for u in saved.uses if u.user is not forward.return_node]
        if made.kind != prim.ListConstruct or made.inputs or not all(
                a.kind == "aten::append" and a.input(0) is saved for a in appends):
            continue
        packs = [a.input(1).node for a in appends]
        reads = [u.user for u in loaded.uses]
        if not all(p.kind == prim.TupleConstruct for p in packs) or not all(
                r.kind == "aten::__getitem__" and all(
                    v.user.kind == prim.TupleUnpack for v in r.output().uses) for r in reads):
            continue
        unpacks = [v.user for r in reads for v in r.output().uses]
        width = len(packs[0].inputs)
        for i in reversed(range(width)):
            if not any(u.outputs[i].uses for u in unpacks):
                for pack in packs:
                    pack.remove_input(i)
                for unpack in unpacks:
                    unpack.erase_output(i)


def input_sizes(inputs: Sequence[Any]) -> tuple:
    return tuple(x.shape if isinstance(x, np.ndarray) else None for x in inputs)


def _close(got: Any, want: Any) -> bool:
    if not isinstance(want, (np.ndarray, np.generic)):
        return True
    got, want = np.asarray(got), np.asarray(want)
    rtol = 1e-3 if want.dtype.itemsize < 8 else 1e-6
    scale = float(np.max(np.abs(want), initial=0.0)) if want.dtype.kind == "f" else 0.0
    return got.shape == want.shape and got.dtype == want.dtype and bool(
        np.allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True))


__all__ = ["SavedValues", "WholeStages", "input_sizes", "share_equal_sizes", "whole_stages",
           "WHOLE_STAGE_MAX_ELEMENTS"]
