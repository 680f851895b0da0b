"""``fusejit.grad``, ``fusejit.value_and_grad`` and ``fusejit.vjp``, in JAX's spelling::

    @fusejit.jit
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    dw = fusejit.grad(loss)(w, x)                          # d loss / d w, a NumPy array
    value, (dw, dx) = fusejit.value_and_grad(loss, argnums=(0, 1))(w, x)
    outputs, vjp_fn = fusejit.vjp(f, w, x)                 # any outputs
    dw, dx = vjp_fn(cotangent)

``fn`` is a ``@fusejit.jit`` function, a plain Python function (scripted with
``fusejit.script``), a ``fusejit.Graph`` or a ``fusejit.compile``d function. Each argument spec
(dtype and rank of each array) gets its own :class:`~fusejit.autodiff.staged.StagedCode`: the
graph is specialised, differentiated, and both stages are fused and compiled.

A warm call whose stages run compiled whole (``autodiff/whole.py``) skips the general path:
``value_and_grad`` keeps, per exact argument signature (array dtypes, shapes and strides, int
values, number types), the compiled stages a previous call of it ran, and calls them directly
(``_Warm``). A 32x32 MLP step took 50 us through the general path, of which 11 us were the
compiled stages: binding, conversion, specialisation lookup, handles and checks were the rest.
What the general path checks follows from the signature, so it was checked when the entry was
made; a call the compiled forward stage refuses (it raises) takes the general path again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import FusejitError
from ..ir.graph import Graph
from ..ir.types import FloatType, IntType, TensorType
from .signatures import KeptInputs, signature_graph
from .staged import StagedCode, trip_count_inputs
from .whole import SavedValues, WholeStages


class Differentiable:
    """A function ready to differentiate: its graph, how it binds arguments, its staged codes."""

    def __init__(self, fn: Any, fuse: bool = True, engine: str = "auto",
                 whole: bool | None = None):
        from ..frontend.jit import JitFunction
        from ..runtime.executor import CompiledFunction

        self.fuse, self.engine, self.whole = fuse, engine, whole
        self._bind: Callable[[tuple, dict], list] = _positional
        self._jitted: JitFunction | None = None
        self._graphs: dict[tuple, tuple] = {}     # a jitted function's graph per signature
        if getattr(fn, "__fusejit_gradient__", False):
            # (scripting it would follow __wrapped__ to the function itself: a first
            # derivative returned as the second)
            raise FusejitError("fusejit differentiates once: a function made by fusejit.grad or"
                               " fusejit.value_and_grad cannot be differentiated again")
        if isinstance(fn, Graph):
            self.graph = fn
        elif isinstance(fn, CompiledFunction):
            self.graph, self.fuse = fn.graph, fn.fuse
            self.engine = fn.engine
        elif isinstance(fn, JitFunction) or callable(fn):
            # scripted per call signature, as a call scripts it (signatures.py)
            self._jitted = fn if isinstance(fn, JitFunction) else JitFunction(fn)
            self._bind = self._converted
        else:
            raise FusejitError(f"cannot differentiate a {type(fn).__name__}: pass a "
                               f"@fusejit.jit function, a Python function or a fusejit.Graph")
        self._staged: dict[tuple, StagedCode] = {}
        self._lock = threading.Lock()
        self.warm: dict[tuple, _Warm] = {}   # (argnums, fast_key per argument) -> _Warm

    def bind(self, args: tuple, kwargs: dict) -> list:
        return self._bind(args, kwargs)

    def _converted(self, args: tuple, kwargs: dict) -> list:
        from ..frontend.jit import _convert

        assert self._jitted is not None
        return [_convert(a) for a in self._jitted._arguments(args, kwargs)]

    def remember(self, key: tuple, args: tuple, inputs: list, staged: Any,
                 stages: WholeStages, computed: list, wrt: tuple[int, ...]) -> None:
        """Let warm calls of ``key`` run ``stages`` directly, where the general path changed
        nothing: binding and conversion gave the arguments themselves, each the type of its
        parameter (an int passed for a float parameter is converted there: not here), and
        the gradients ``computed`` came back in the order of ``wrt`` (each input once)."""
        params = getattr(staged, "params", None)
        if len(self.warm) >= MAX_WARM or params is None or len(args) != len(inputs) or len(
                set(wrt)) != len(wrt) or not all(a is x for a, x in zip(args, inputs)) \
                or not all(type(p.type) is _PARAMETER_TYPES.get(type(a))
                           for p, a in zip(params, args)):
            return
        with self._lock:
            self.warm[key] = _Warm(stages, wrt, computed, inputs)

    def staged(self, inputs: list, wrt: tuple[int, ...]) -> StagedCode | KeptInputs:
        from ..runtime.executor import argument_spec

        with self._lock:
            if self._jitted is None:
                graph, kept, signature = self.graph, tuple(range(len(inputs))), ()
            else:
                signature, graph, kept = signature_graph(self._jitted, inputs, self._graphs)
            used = [inputs[i] for i in kept]
            key = (argument_spec(used), signature, wrt,
                   tuple(used[i] for i in trip_count_inputs(graph)))
            code = self._staged.get(key)
            if code is None:
                code = StagedCode(graph, [kept.index(i) for i in wrt], used, fuse=self.fuse,
                                  engine=self.engine, whole=self.whole)
                if len(kept) < len(inputs):
                    code = KeptInputs(code, kept)
                self._staged[key] = code
        return code


# The parameter type that takes each kind of argument as it is.
_PARAMETER_TYPES = {np.ndarray: TensorType, int: IntType, float: FloatType}
# Exact signatures whose warm calls skip the general path, per function (a training loop has
# one or two: the batch and a last short batch).
MAX_WARM = 8


def fast_key(value: Any) -> Any:
    """What a warm call is keyed on for one argument (runs on every call: cheap). None: this
    argument needs the general path (conversion, or a type it refuses)."""
    cls = type(value)
    if cls is np.ndarray:
        return value.dtype, value.shape, value.strides
    if cls is int:   # (its value: a trip count or an axis selects the code)
        return cls, value
    if cls is float:
        return cls
    return None


class _Warm:
    """A value_and_grad signature whose stages ran compiled whole: the stages, and whether
    their gradients are the call's as they are (every ``wrt`` input reached, in its dtype)
    or go through ``_fill`` as the general path's do."""

    __slots__ = ("stages", "wrt", "reached", "direct")

    def __init__(self, stages: WholeStages, wrt: tuple[int, ...], computed: list[Any],
                 inputs: list):
        self.stages, self.wrt = stages, wrt
        self.reached = [g is not None for g in computed]
        self.direct = all(isinstance(g, np.ndarray) and g.dtype == inputs[i].dtype
                          for g, i in zip(computed, wrt))

    def run(self, args: tuple) -> tuple[Any, list] | None:
        """The value and the gradients, or None: the general path runs this call."""
        ran = self.stages.value_and_grad(args)
        if ran is None or self.direct:
            return ran
        value, computed = ran
        found = iter(computed)
        return value, _fill([next(found) if r else None for r in self.reached], list(args),
                            self.wrt)


# fn -> {(fuse, engine, whole): Differentiable}, so that ``fusejit.grad(f)(x)`` written inside a
# training loop differentiates and compiles ``f`` once, not at every step.
_TARGETS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TARGETS_LOCK = threading.Lock()


def differentiable(fn: Any, fuse: bool = True, engine: str = "auto",
                   whole: bool | None = None) -> Differentiable:
    """The (cached) :class:`Differentiable` of ``fn``."""
    try:
        with _TARGETS_LOCK:
            by_options = _TARGETS.setdefault(fn, {})
    except TypeError:   # not weakly referenceable: not cached
        return Differentiable(fn, fuse=fuse, engine=engine, whole=whole)
    key = (fuse, engine, whole)
    target = by_options.get(key)
    if target is None:
        target = by_options[key] = Differentiable(fn, fuse=fuse, engine=engine, whole=whole)
    return target


def _positional(args: tuple, kwargs: dict) -> list:
    if kwargs:
        raise FusejitError("a graph takes positional arguments only")
    return list(args)


def _normalise_argnums(argnums: int | Sequence[int], n: int) -> tuple[int, ...]:
    many = not isinstance(argnums, (int, np.integer))
    nums = tuple(argnums) if many else (argnums,)
    result = []
    for i in nums:
        if not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise FusejitError(f"argnums {argnums!r}: the function takes {n} arguments")
        result.append(int(i) % n)
    return tuple(result)


def _check_differentiable(inputs: list, wrt: tuple[int, ...]) -> None:
    for i in wrt:
        x = inputs[i]
        if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
            kind = f"{x.dtype} array" if isinstance(x, np.ndarray) else type(x).__name__
            raise FusejitError(f"argument {i} is a {kind}: gradients are taken with respect "
                               f"to floating-point arrays only")


def _fill(grads: list, inputs: list, wrt: tuple[int, ...]) -> list:
    """One gradient per ``wrt`` input: zeros where none reached it, and in the input's dtype
    (as PyTorch's engine casts them: sum(x, dtype=float64) of a float32 x gives float32)."""
    return [np.zeros_like(inputs[i]) if g is None
            else g.astype(inputs[i].dtype, copy=False) if isinstance(g, np.ndarray) else g
            for g, i in zip(grads, wrt)]


def _scalar_seed(outputs: tuple, name: str) -> np.ndarray:
    if len(outputs) != 1 or not isinstance(outputs[0], np.ndarray) or outputs[0].size != 1:
        shapes = ", ".join(str(getattr(o, "shape", type(o).__name__)) for o in outputs)
        raise FusejitError(f"{name} needs a function with one scalar output (0-d or one "
                           f"element); this one returned ({shapes}); use fusejit.vjp for "
                           f"other outputs")
    return np.ones_like(outputs[0])


def value_and_grad(fn: Any, argnums: int | Sequence[int] = 0, *, fuse: bool = True,
                   engine: str = "auto",
                   whole: bool | None = None) -> Callable[..., tuple[Any, Any]]:
    """``fn`` made to return ``(value, gradient)``; the gradient is one array for an int
    ``argnums`` and a tuple for a sequence, as in JAX. ``fn`` must return one scalar.
    ``whole``: run both stages as compiled functions where they qualify (None: for small
    arrays with ``fuse`` on the auto engine, once they have warmed up on the interpreter,
    ``runtime/tiering.py``; True: from the first call; ``autodiff/whole.py``), False: never."""
    target = differentiable(fn, fuse=fuse, engine=engine, whole=whole)
    many = not isinstance(argnums, (int, np.integer))
    nums = tuple(argnums) if many else argnums
    warm = target.warm

    def run(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        key = None if kwargs else (nums, *map(fast_key, args))
        entry = warm.get(key)
        if entry is not None:
            ran = entry.run(args)
            if ran is not None:
                return ran[0], (tuple(ran[1]) if many else ran[1][0])
        inputs = target.bind(args, kwargs)
        wrt = _normalise_argnums(nums, len(inputs))
        _check_differentiable(inputs, wrt)
        staged = target.staged(inputs, wrt)
        outputs, handle = staged.run_forward(*inputs)
        stages = handle.state.stages if isinstance(handle.state, SavedValues) else None
        seed = _scalar_seed(outputs, "fusejit.grad")
        computed = staged.run_backward(handle, seed)
        grads = _fill(computed, inputs, wrt)
        if stages is not None and key is not None and None not in key:
            target.remember(key, args, inputs, staged, stages, computed, wrt)
        return outputs[0], (tuple(grads) if many else grads[0])

    run.__wrapped__ = fn
    run.__fusejit_gradient__ = True   # (Differentiable refuses it: no second derivatives)
    return run


def grad(fn: Any, argnums: int | Sequence[int] = 0, *, fuse: bool = True,
         engine: str = "auto", whole: bool | None = None) -> Callable[..., Any]:
    """The gradient of scalar-valued ``fn`` with respect to its arguments ``argnums``."""
    both = value_and_grad(fn, argnums, fuse=fuse, engine=engine, whole=whole)

    def run(*args: Any, **kwargs: Any) -> Any:
        return both(*args, **kwargs)[1]

    run.__wrapped__ = fn
    run.__fusejit_gradient__ = True   # (Differentiable refuses it: no second derivatives)
    return run


def vjp(fn: Any, *args: Any, fuse: bool = True, engine: str = "auto",
        whole: bool | None = None):
    """``(outputs, vjp_fn)``: ``vjp_fn(*cotangents)`` (one per output) returns the gradients
    with respect to every floating-point array argument (None for other arguments)."""
    target = differentiable(fn, fuse=fuse, engine=engine, whole=whole)
    inputs = target.bind(args, {})
    wrt = tuple(i for i, x in enumerate(inputs)
                if isinstance(x, np.ndarray) and x.dtype.kind == "f")
    staged = target.staged(inputs, wrt)
    outputs, handle = staged.run_forward(*inputs)

    def vjp_fn(*cotangents: Any) -> tuple:
        if len(cotangents) != len(outputs):
            raise FusejitError(f"vjp_fn takes one cotangent per output ({len(outputs)}), got "
                               f"{len(cotangents)}")
        for i, (c, o) in enumerate(zip(cotangents, outputs)):
            if isinstance(o, np.ndarray) and np.shape(c) != o.shape:
                raise FusejitError(f"cotangent {i} has shape {np.shape(c)}, output {i} has "
                                   f"shape {o.shape}")
        cots = [np.asarray(c, dtype=o.dtype) if isinstance(o, np.ndarray) else c
                for c, o in zip(cotangents, outputs)]
        grads = iter(_fill(staged.run_backward(handle, *cots), inputs, wrt))
        return tuple(next(grads) if i in wrt else None for i in range(len(inputs)))

    return (outputs[0] if len(outputs) == 1 else outputs), vjp_fn


__all__ = ["Differentiable", "differentiable", "grad", "value_and_grad", "vjp"]
