"""Staged code for a differentiated graph (seed 000: stages, ``flattenStages``, handles).

The forward and backward graphs of :func:`~fusejit.autodiff.differentiate` are joined into one
graph whose stages each start with a ``prim::Load`` and end with a ``prim::Store``; the backward
nodes read the forward values directly, not through graph inputs::

    graph():
      %x = prim::Load()                     # stage 0: the inputs
      %y = aten::tanh(%x)
      prim::Store(%y)                       # stage 0's outputs
      %gy = prim::Load()                    # stage 1: the output gradients
      %1 = aten::mul(%y, %y) ...            # reads %y, kept in its register
      prim::Store(%gx)                      # stage 1's outputs

``Code`` lowers it as one program with ``stage_ends``; ``run_one_stage`` on either engine runs
one stage and keeps the registers for the next. Liveness is computed over both stages, so after
stage 0 the registers hold exactly the values stage 1 reads: that state is the
:class:`AutogradHandle`. Each stage is specialised and fused (``fuse=True``) before joining,
so nothing moves across the boundary and the backward stage's groups hold its
``_grad_sum_to_size`` nodes as the fuser allows (their sums run after the kernel:
``fused_sums``)::

    staged = StagedCode(graph, wrt=[0], example_inputs=[x])
    outputs, handle = staged.run_forward(x)               # stage 0
    (grad_x,) = staged.run_backward(handle, grad_out)     # stage 1; the handle is spent
    print(staged.dump())                                  # "stage 0:" ... "stage 1:" ...
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import FusejitError
from ..ir.graph import Graph, Value
from ..ir.symbols import prim
from ..runtime import blas, tiering
from .differentiate import Gradient, differentiate
from .fused_sums import SummedGroup, strip_grad_sum_to_size
from .whole import SavedValues, input_sizes, whole_stages

# Input sizes each StagedCode compiles whole stages for (a training loop has one or two: the
# batch and a last short batch); calls with more sizes run on the interpreter.
MAX_WHOLE_SIZES = 4

if TYPE_CHECKING:
    from ..runtime.code import Code
    from ..runtime.executor import GroupOperation


class AutogradHandle:
    """What the backward stage needs from one forward run (the seed's ``AutogradHandle``): the
    interpreter state paused between the stages, whose registers hold the saved values, or
    the saved values the compiled forward stage returned (``autodiff/whole.py``)."""

    __slots__ = ("state", "sizes", "__weakref__")

    def __init__(self, state: Any, sizes: tuple | None = None):
        self.state = state
        self.sizes = sizes   # the inputs' sizes, where the interpreter ran a forward that
        # counts towards compiling the stages whole (``StagedCode._warm``)

    def saved_values(self) -> list[Any]:
        """The values held for the backward stage (the live registers)."""
        if self.state is None:
            return []
        if isinstance(self.state, SavedValues):   # the compiled forward stage's results
            return list(self.state.values)
        registers = getattr(self.state, "registers", None)
        if registers is None:   # the native engine's register file
            registers = [self.state.regs.read(r) for r in range(self.state.code.register_size)]
        return [v for v in registers if v is not None]

    def take(self) -> Any:
        """The paused state, once: the handle lets go of it, so the saved values die with the
        backward run."""
        if self.state is None:
            raise FusejitError("this autograd handle was already used by a backward run; run "
                               "the forward stage again to differentiate again")
        state, self.state = self.state, None
        return state

    def __repr__(self) -> str:
        return "<AutogradHandle spent>" if self.state is None else "<AutogradHandle>"


def staged_graph(gradient: Gradient, forward: Graph, backward: Graph) -> Graph:
    """One graph with two stages (``flattenStages``): Load, the forward nodes, Store of the
    outputs; Load of the output gradients, the backward nodes (reading forward values where
    the backward graph read saved inputs), Store of the input gradients."""
    joint = Graph()
    env: dict[Value, Value] = {}

    def clone_nodes(graph: Graph) -> None:
        for node in graph.nodes():
            clone = joint.insert_node(joint.create_clone(node, lambda v: env[v]))
            env.update(zip(node.outputs, clone.outputs))

    def load(values: Sequence[Value]) -> None:
        node = joint.insert(prim.Load, (), 0)
        for value in values:
            env[value] = node.add_output(value.type).copy_metadata(value)

    n = gradient.num_outputs
    load(forward.inputs)
    clone_nodes(forward)
    joint.insert(prim.Store, [env[v] for v in forward.outputs[:n]], 0)
    num_grads = sum(gradient.output_has_grad)
    for saved, value in zip(backward.inputs[num_grads:], forward.outputs[n:]):
        env[saved] = env[value]
    load(backward.inputs[:num_grads])
    clone_nodes(backward)
    joint.insert(prim.Store, [env[v] for v in backward.outputs], 0)
    return joint


def trip_count_inputs(graph: Graph) -> list[int]:
    """The int inputs of ``graph`` that are the trip count of a ``prim::Loop``."""
    found = []
    for i, value in enumerate(graph.inputs):
        if any(use.user.kind == prim.Loop and use.offset == 0 for use in value.uses):
            found.append(i)
    return found


class StagedCode:
    """A graph differentiated with respect to inputs ``wrt``, lowered to one two-stage Code."""

    def __init__(self, graph: Graph, wrt: Sequence[int], example_inputs: Sequence[Any],
                 fuse: bool = True, engine: str = "auto", precise: bool = False,
                 whole: bool | None = None):
        from ..passes import argument_type, propagate_input_shapes
        if engine not in ("auto", "native", "reference"):
            raise FusejitError(f"unknown engine {engine!r}; choose auto, native or reference")
        # "auto" runs on the reference loop: a training step is mostly large ops and kernels,
        # whose time does not depend on the loop that calls them.
        self.engine = "native" if engine == "native" else "reference"
        self.fuse, self.precise = fuse, precise
        graph = graph.copy()
        self.params = list(graph.inputs)
        # Loop trip counts passed as int arguments are known now: they become constants, so
        # loop-invariant nodes may leave the loop before differentiating (a loop that surely
        # runs); the caller keys its cache on their values (trip_count_inputs).
        for i in trip_count_inputs(graph):
            with graph.inserting_before(next(graph.nodes(), graph.return_node)):
                constant = graph.insert_constant(int(example_inputs[i]))
            graph.inputs[i].replace_all_uses_with(constant)
        # Ranks and dtypes known (as the executor specialises): rules may depend on them.
        propagate_input_shapes(graph, [argument_type(x) if isinstance(x, np.ndarray) else None
                                       for x in example_inputs])
        self.gradient = differentiate(graph, wrt)
        # Small arrays: both stages compiled whole (autodiff/whole.py), by default where the
        # interpreter would run fused code; whole=True asks for it on any engine, at once.
        # By default (whole=None, tiering on) the interpreter runs a size's first calls and
        # the stages compile once it has spent WHOLE_AFTER_SECONDS on them (runtime/tiering.py)
        self.whole = None
        self._wholes: dict[tuple, Any] = {}   # input sizes -> WholeStages or None
        self._whole_wanted = bool(whole or whole is None and fuse and engine == "auto")
        # input sizes -> interpreter seconds, while those sizes warm up (None: untiered)
        self._warming: dict[tuple, float] | None = None
        if self._whole_wanted:
            if whole is None and tiering.enabled():
                self._warming = {}
            else:
                self.whole = whole_stages(self.gradient, example_inputs)
                self._wholes[input_sizes(example_inputs)] = self.whole
                self._whole_wanted = self.whole is not None
        self._code = None
        self.kernels: list[GroupOperation] = []

    @property
    def graph(self) -> Graph:
        """The joined two-stage graph the interpreter runs."""
        return self.code.graph

    @property
    def code(self) -> Code:
        """The two-stage Code (built at first use: a stage compiled whole may never need it)."""
        if self._code is None:
            self._code = self._build_code()
        return self._code

    def _build_code(self) -> Code:
        from ..passes import BACKWARD_FUSION_PIPELINE, propagate_input_shapes
        from ..runtime.code import Code
        from ..runtime.executor import GroupOperation

        gradient = self.gradient
        forward, backward = gradient.forward.copy(), gradient.backward.copy()
        if self.fuse:
            n = gradient.num_outputs
            grad_types = [o.type for o, has in zip(forward.outputs[:n],
                                                   gradient.output_has_grad) if has]
            propagate_input_shapes(backward, grad_types + [o.type for o in forward.outputs[n:]])
            for graph_ in (forward, backward):
                for run_pass in BACKWARD_FUSION_PIPELINE:
                    run_pass(graph_)
        joint = staged_graph(gradient, forward, backward)

        def group_operation(node):
            stripped = strip_grad_sum_to_size(node)
            if stripped is None:
                self.kernels.append(GroupOperation(node, self.precise))
                return self.kernels[-1]
            kernel_group, keep, sizes, full = stripped
            self.kernels.append(GroupOperation(kernel_group, self.precise))
            return SummedGroup(self.kernels[-1], node, keep, sizes, full)

        return Code(joint, make_group_operation=group_operation if self.fuse else None)

    def _state(self):
        if self.engine == "native":
            from ..runtime.interpreter import NativeInterpreter

            return NativeInterpreter(self.code)
        from ..runtime.reference import InterpreterState

        return InterpreterState(self.code)

    def _whole_for(self, inputs: list, sizes: tuple | None) -> Any:
        """The stages compiled whole for these inputs, of sizes ``sizes`` (made at the first
        call with them, or once they have warmed up on the interpreter, for up to
        ``MAX_WHOLE_SIZES`` sizes), or None: the interpreter runs them."""
        if not self._whole_wanted:
            return None
        stages = self._wholes.get(sizes, self)
        if stages is self:
            if len(self._wholes) >= MAX_WHOLE_SIZES:
                self._wholes[sizes] = None
                return None
            if self._warming is not None and (
                    self._warming.get(sizes, 0.0) < tiering.WHOLE_AFTER_SECONDS):
                return None
            stages = whole_stages(self.gradient, inputs)
            self._wholes[sizes] = stages
            if self.whole is None:
                self.whole = stages
                # (a graph whose stages do not qualify at one size is left to the interpreter)
                self._whole_wanted = stages is not None
            if self._warming is not None:
                self._warming.pop(sizes, None)
        return stages

    def _warm(self, sizes: tuple | None, seconds: float) -> None:
        """Count interpreter time towards compiling the stages whole for ``sizes``."""
        if sizes is not None and self._warming is not None and self._whole_wanted:
            self._warming[sizes] = self._warming.get(sizes, 0.0) + seconds

    def run_forward(self, *inputs: Any) -> tuple[tuple, AutogradHandle]:
        """Stage 0: the outputs (a tuple) and the handle for stage 1."""
        from ..runtime.executor import _check_argument

        if len(inputs) != len(self.params):
            raise FusejitError(f"the function takes {len(self.params)} arguments, got "
                               f"{len(inputs)}")
        stack = [_check_argument(p, i, x) for i, (p, x) in enumerate(zip(self.params, inputs))]
        blas.refresh()   # (whether products may use the other cores: runtime/blas.py)
        sizes = input_sizes(stack) if self._whole_wanted else None
        stages = self._whole_for(stack, sizes)
        if stages is not None:
            ran = stages.forward(stack)
            if ran is not None:
                outputs, saved = ran
                return outputs, AutogradHandle(saved)
        started = time.perf_counter()
        state = self._state()
        state.run_one_stage(stack)
        self._warm(sizes, time.perf_counter() - started)
        return tuple(stack), AutogradHandle(state, sizes)

    def run_backward(self, handle: AutogradHandle, *grad_outputs: Any) -> list[Any]:
        """Stage 1: one gradient per ``wrt`` input (None where no output depends on it)."""
        if len(grad_outputs) != self.gradient.num_outputs:
            raise FusejitError(f"the backward stage takes {self.gradient.num_outputs} output "
                               f"gradients, got {len(grad_outputs)}")
        stack = [g for g, has in zip(grad_outputs, self.gradient.output_has_grad) if has]
        del grad_outputs
        sizes = handle.sizes
        state = handle.take()
        if isinstance(state, SavedValues):
            stack = state.stages.backward(stack, state)
        else:
            started = time.perf_counter()
            state.run_one_stage(stack)
            self._warm(sizes, time.perf_counter() - started)
        del state
        computed = iter(stack)
        return [next(computed) if reached else None for reached in self.gradient.wrt_reached]

    def dump(self) -> str:
        """Both stages' instructions (``Code.dump()``)."""
        return self.code.dump()


__all__ = ["AutogradHandle", "StagedCode", "staged_graph", "trip_count_inputs"]
