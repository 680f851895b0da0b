"""``fusejit.jit``: a decorator that scripts a NumPy function per argument types and runs it.

::

    @fusejit.jit
    def newton(a, x0=1.0, eps=1e-5):     # no annotations: a float argument is a scalar
        ...

    newton(2.0)              # scripted for (float, float, float), fused, run by the interpreter
    newton.graph             # the scripted graph (Tensor-typed, as TorchScript prints it)
    newton.graph_for(2.0)    # the optimised graph that runs for these arguments
    newton.code_for(2.0)     # its instruction dump
    newton.__wrapped__(2.0)  # the original function, plain NumPy
    newton.races             # what the race against NumPy decided (``race.py``)

Like Numba and JAX, a call is specialised on its arguments' types: a Python ``int``, ``float``
or ``bool`` is a scalar of that type, an array is a tensor of its dtype and rank (never its
sizes). Knowing dtypes while scripting is what lets the frontend give NumPy's result dtypes
(``int / int`` is float64, ``float32 * 0.5`` stays float32). Parameters annotated ``int``,
``float`` or ``bool`` keep their annotated type. Scripting happens on first use of each
signature (not at decoration), so helpers defined later in the module are found.
``jit(device="cpu")`` takes options; a device the executor does not offer is an error.
A settled signature's calls are timed against the function as written, which takes the sizes
it runs faster (``race.py``).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..dask import has_dask_arrays, is_dask_array
from ..errors import FusejitError, ScriptError
from ..ir.graph import Graph
from ..ir.types import BOOL, FLOAT, INT, NONE, ScalarType, TensorType, Type
from ..runtime.array_bounds import loop_steps, made_elements
from ..runtime.devices import is_cuda_array
from ..runtime.direct import direct_function
from ..runtime.element_function import (
    compile_element_graph,
    is_element_graph,
    lone_column_reduction,
    whole_size,
)
from ..runtime.element_support import computes_arrays, makes_arrays_in_loops
from ..runtime.portable import Portable
from ..runtime.scalar_function import compile_scalar_graph, is_scalar_graph
from ..runtime.tiering import timed_choice
from .builder import NeedsConstant, rebuilt
from .fastcall import NUMPY_SCALAR, install_fast_call
from .race import Race, RaceResult, raceable
from .script import Branched, script, scripted

_count = itertools.count()

# Array dtypes a jitted function takes; others are refused naming the argument.
SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))
_SCALARS = {bool: BOOL, int: INT, float: FLOAT}


_NDARRAY = np.ndarray


def call_key(args: tuple) -> tuple:
    """What a call is specialised on: the argument types, and dtype and rank for arrays."""
    types = tuple(map(type, args))
    arrays = _NDARRAY in types or any(map(is_cuda_array, args))
    return tuple(map(argument_key, args)) if arrays else types


def argument_key(value: Any) -> Any:
    """What a call is specialised on for one argument (cheap: it runs on every call)."""
    cls = type(value)
    if cls is np.ndarray:
        return value.dtype, value.ndim
    if cls in _SCALARS or value is None:
        return cls  # the same as call_key's for scalar-only calls
    if is_cuda_array(value):
        return "cuda", value.dtype, value.ndim
    return _Other  # checked (and refused or converted) by the slow path


class _Other:
    """The key of an argument that needs conversion or is refused."""


def argument_ir_type(name: str, value: Any) -> Type:
    """The IR type of a graph input for a (converted) argument, or a FusejitError naming it.
    A Dask array is typed as the NumPy arrays its chunks are (``fusejit/dask.py``); a CuPy
    array as a tensor on cuda (the executor's current device)."""
    cuda = is_cuda_array(value)
    if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
        # (a subclass's own semantics would be lost silently: np.matrix's * is a product,
        # a masked array's mask would be read as data by the kernels)
        cls = type(value)
        hint = ("pass x.filled(value), or x.compressed() for the unmasked values"
                if isinstance(value, np.ma.MaskedArray) else
                "pass np.asarray(x), whose * is elementwise: x @ y for products"
                if isinstance(value, np.matrix) else "pass np.asarray(x)")
        raise FusejitError(f"argument {name!r}: a {cls.__module__}.{cls.__name__} (an ndarray "
                           f"subclass) is not supported: fusejit computes with plain arrays; "
                           f"{hint}")
    if isinstance(value, np.ndarray) or is_dask_array(value) or cuda:
        if value.dtype not in SUPPORTED_DTYPES:
            native = value.dtype.newbyteorder("=")
            kind = value.dtype.kind
            hint = (f"convert it with .astype(np.{native.name})"
                    if not value.dtype.isnative and native in SUPPORTED_DTYPES
                    else "convert it with .astype(np.float32)" if kind == "f"
                    else "take its .real or np.abs() first" if kind == "c"
                    else "pass an array of bool, int or float dtype")
            raise FusejitError(f"argument {name!r}: arrays of dtype {value.dtype} are not "
                               f"supported ({hint})")
        return TensorType(ScalarType.from_dtype(value.dtype), (None,) * value.ndim, None, None,
                          "cuda" if cuda else "cpu")
    if value is None:
        return NONE
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        return scalar
    cls = type(value)
    what = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
    if cls is list:
        raise FusejitError(f"argument {name!r}: a list is supported when it holds at most "
                           f"{LIST_ARGUMENT_MAX} Python numbers (its values are then constants "
                           f"of the call); pass np.asarray(...) of it instead")
    raise FusejitError(f"argument {name!r}: a {what} is not supported (pass NumPy or CuPy "
                       f"arrays of bool, int or float dtypes, Python numbers or None)")


# A list of numbers passed for a parameter is the tuple it holds (a constant of the call's
# signature, as a tuple of numbers is) up to this many numbers; longer ones are refused (an
# array, np.asarray(...), is one value however long: the tuple's loops are unrolled).
LIST_ARGUMENT_MAX = 256


def _listed(value: list) -> Any:
    """A list of numbers (nested lists too, at most ``LIST_ARGUMENT_MAX`` numbers) as the
    tuple it holds; other lists as they are (refused by the slow path)."""
    def frozen(v: Any) -> Any:
        return tuple(map(frozen, v)) if type(v) is list else v

    made = frozen(value)
    count = [0]

    def numbers(v: Any) -> bool:
        if type(v) is tuple:
            return all(map(numbers, v))
        count[0] += 1
        return type(v) in _SCALARS

    return made if numbers(made) and count[0] <= LIST_ARGUMENT_MAX else value


def _numbers(value: Any) -> bool:
    """A tuple of Python numbers (nested tuples too): scripted as a constant, keyed by value."""
    return type(value) is tuple and all(
        type(v) in _SCALARS or _numbers(v) for v in value)


def _constant_key(i: int, value: Any) -> tuple:
    """Parameter ``i``, scripted as a constant, in a signature's key: its value and the types
    in it where the value can be a constant (a str, an int or bool, a tuple of numbers), else
    its type alone (an array where an earlier call passed a tuple: then an input, of a
    signature of its own)."""
    if _can_be_constant(value):
        return (i, _nan_free(value), _types_of(value))
    return (i, type(value))


class _NaN:
    """A NaN in a key: equal to every other (a float NaN equals nothing, so a tuple holding a
    new NaN object at each call missed every key, and each call scripted and compiled anew)."""


def _nan_free(value: Any) -> Any:
    if type(value) is tuple:
        return tuple(map(_nan_free, value))
    return _NaN if type(value) is float and value != value else value


def _can_be_constant(value: Any) -> bool:
    return type(value) in (str, int, bool) or _numbers(value)


def _types_of(value: Any) -> Any:
    """What tells ``(1, 2)`` from ``(1.0, 2.0)`` and ``(True,)`` in a key (they are equal)."""
    return tuple(map(_types_of, value)) if type(value) is tuple else type(value)


def _convert(value: Any) -> Any:
    """NumPy scalars become 0-d arrays (they keep their dtype, as in NumPy's own rules); a
    ``np.memmap`` is the array it maps (its operators are ndarray's)."""
    if isinstance(value, np.generic) and not isinstance(value, (np.complexfloating,
                                                                np.object_)):
        return np.asarray(value)
    if isinstance(value, np.memmap):
        return value.view(np.ndarray)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int) and type(value) is not int:  # IntEnum members and the like
        return int(value)
    if isinstance(value, float) and type(value) is not float:
        return float(value)
    return value


# Straight-line array code compiled whole runs on arrays up to this many elements; bigger
# calls take the fused interpreter path (see JitFunction._tiered).
WHOLE_GRAPH_MAX_ELEMENTS = 1 << 12
# A first call whose loops run this many nodes (``array_bounds.loop_steps``: a loop over the
# elements of a 10^5-element array, say) compiles whole at once rather than interpreting: the
# reference interpreter takes 2-4 us a node (a 7-node loop body over 10^6 prices: 23.5 s),
# compiling whole 1-3 s.
FIRST_CALL_WHOLE_STEPS = 500_000
# Where both may run a signature's size, its calls after the compiling one time the whole form
# and the interpreter on arguments of one size, a call each in turn, until each form has had
# TIMED_CALLS calls and the timed calls have taken TIMED_SECONDS together, or each has had
# MOST_TIMED_CALLS: a form's first calls run slower (caches, the interpreter's straight-line
# code), so its fastest call counts, and cheap calls are timed more often (3 calls each of the
# parity of 10^4 uint64 words kept the whole form, 45 us a call, in 1 of 5 runs, against the
# interpreter's 25 us; its timed calls took 35-47 us). The interpreter takes that size and
# bigger ones when its fastest call was INTERPRETER_MARGIN times faster (else the whole form
# keeps that size and smaller ones). A signature whose calls keep changing size stops
# measuring after MEASURED_CALLS sizes and keeps the whole form (see JitFunction._tiered).
INTERPRETER_MARGIN = 1.1
TIMED_CALLS = 3
TIMED_SECONDS = 0.002
MOST_TIMED_CALLS = 32
MEASURED_CALLS = 12
# ... and on arguments up to this many elements (made arrays, ``array_bounds.made_elements``)
# beyond WHOLE_GRAPH_MAX_ELEMENTS, where some programs still run faster whole (the
# interpreter's ~1 us an op and no kernel to gain).
TIMED_MAX_ELEMENTS = 1 << 16
# ... and at any size up to this one where the graph's loops run at least ``LOOPED_STEPS``
# nodes (``loop_steps``) on arrays of at most ``WHOLE_GRAPH_MAX_ELEMENTS`` elements made in
# them (``made_elements(in_loops=True)``), its big arrays made once outside them: the
# interpreter pays its cost a node at every step (set J's PageRank, 600-element ranks times a
# 600 x 600 matrix for 17 steps: 1.24 ms interpreted, NumPy 1.04).
LOOPED_TIMED_MAX_ELEMENTS = 1 << 24
LOOPED_STEPS = 1000


# Nodes whose 0-d result NumPy returns as a 0-d array too (``np.array(3.0)``,
# ``np.zeros(())``); NumPy returns every other 0-d result (``x.sum()``, ``x[0]``, ``s * 2``) as a
# NumPy scalar.
_ARRAY_MAKERS = frozenset({
    "prim::Param", "prim::Constant", "aten::zeros", "aten::ones", "aten::full", "aten::empty",
    "aten::zeros_like", "aten::ones_like", "aten::full_like", "aten::empty_like",
    "aten::tensor", "aten::scalar_tensor"})


# ... and nodes whose result of a rank known only when it runs is a 0-d array when it is 0-d
# (x.squeeze() of a (1, 1) array, a view).
_VIEWS_OF_ANY_RANK = _ARRAY_MAKERS | {
    "aten::squeeze", "aten::reshape", "aten::view", "aten::clone", "aten::expand",
    "aten::permute", "aten::transpose", "aten::t", "aten::unsqueeze", "aten::contiguous",
    "aten::flatten", "aten::copy_", "aten::type_as", "aten::to"}


def _kernels_ready(interpreted: Any, args: tuple) -> bool:
    """Does the interpreter's plan for ``args`` run its fused kernels already (compiled, none
    still compiling in the background), or no kernel at all? (False where that cannot be
    told.)"""
    try:
        kernels = interpreted.plan_for(interpreted.check_inputs(list(args))).kernels
    except Exception:  # noqa: BLE001 - not a CompiledFunction, or arguments it refuses
        return False
    return all(getattr(op, "ready", False) for op in kernels)


def _scalar_if_0d(value: Any) -> Any:
    """An output of a rank known only when it runs: a NumPy scalar where it is 0-d."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def numpy_scalar_outputs(graph: Graph) -> dict[int, Any]:
    """The outputs of ``graph`` that NumPy would return as NumPy scalars, by position, with
    their scalar type: 0-d results of reductions, indexing and arithmetic. Not a 0-d argument
    returned as it came, nor a 0-d array made on purpose (``_ARRAY_MAKERS``). Outputs whose
    rank is known only when they run (``np.dot(x, y)`` of arrays of unknown rank, an element
    of a list built by append) are made scalars when they turn out 0-d (``_scalar_if_0d``)."""
    made: dict[int, Any] = {}
    for i, v in enumerate(graph.outputs):
        if not isinstance(v.type, TensorType) or v.node.kind in _ARRAY_MAKERS:
            continue
        if v.type.sizes == () and v.type.scalar_type is not None:
            made[i] = v.type.scalar_type.dtype.type
        elif v.type.sizes is None and v.node.kind not in _VIEWS_OF_ANY_RANK:
            made[i] = _scalar_if_0d
    return made


def _shaped(fn: Any, structure: Any, scalars: dict[int, type] | None = None,
            count: int = 1) -> Any:
    """``fn`` with its flat outputs put back into the tuples and lists the function returns
    (``scripted``'s structure: ``return x, (n, m)``, ``return (x,)``), and the outputs at
    ``scalars`` (``numpy_scalar_outputs``; ``count`` outputs in all) as NumPy scalars, as NumPy
    returns them: ``x.sum()`` is an ``np.float64``, not a 0-d array (which a later write to
    ``x`` could change, when it is a view like ``x[0]``). ``fn`` itself when the outputs are
    the returned value already."""
    if structure is None and not scalars:
        return fn
    if structure is not None:   # (its leaves, and any flags after them: script.Branched)
        count = max(count, len(_leaves(structure)))
    shape = _written_shape(structure, scalars or {}, count)
    if shape is None:
        def shape(out: Any) -> Any:
            flat = (out,) if count == 1 else out or ()
            if scalars:
                outputs, flat = flat, list(flat)
                for i, make in scalars.items():
                    flat[i] = _made(make, flat[i], outputs)
                if structure is None:
                    return flat[0] if count == 1 else tuple(flat)
            return _filled(structure, flat)

    def run(*args: Any) -> Any:
        return shape(fn(*args))

    for name in ("graph_for", "code_for"):
        setattr(run, name, getattr(fn, name))
    if hasattr(fn, "_remembered"):
        run.parts = (shape, fn)     # (the fast call calls fn's remembered runners: fastcall)
    if hasattr(fn, "fallback"):
        # A compiled tier whose Numba entry the fast call enters itself (``fastcall``): its
        # attributes, with the shaping after its own ``post`` and around its fallback.
        for name in ("compiled", "refused", "written", "max_elements", "made_elements",
                     "made_limit", "before", "rejoin", "saved"):
            if hasattr(fn, name):
                setattr(run, name, getattr(fn, name))
        post, fallback = getattr(fn, "post", None), fn.fallback
        zero_d = getattr(fn, "zero_d", None)
        if post is not None and zero_d is not None:
            run.post = _shaped_at_once(zero_d, structure, scalars or {}, count,
                                       getattr(fn, "numbers", ()))
        else:
            run.post = shape if post is None else (lambda out: shape(post(out)))
        run.fallback = lambda *args: shape(fallback(*args))
        if hasattr(fallback, "_remembered"):
            run.fallback.parts = (shape, fallback)
    return run


def _with_direct(fn: Any, direct: Any) -> Any:
    """``fn`` (a signature's callable) running ``direct`` (``runtime/direct.py``) first where
    every array argument is small enough for it, and itself where ``direct`` fails (with the
    graph's own error) or the arrays are bigger; ``fn`` itself when ``direct`` is None. The
    fast call (``fastcall.py``) reads ``direct`` from it and calls the same way. A graph with
    a temporary runs whole on small arrays: only the fast call runs its ``direct``, on arrays
    too big for that (``fn.max_elements``) and small enough for ``direct``."""
    if direct is None:
        return fn
    if direct.temporary:
        try:    # (the fast call's, between the whole graph's sizes and its own)
            fn.direct = direct
        except AttributeError:
            pass
        return fn
    limit = direct.max_elements

    def run(*args: Any) -> Any:
        if all(a.size <= limit for a in args if type(a) is _NDARRAY):
            try:
                return direct(*args)
            except Exception:  # noqa: BLE001, S110 - fn raises the graph's own error
                pass
        return fn(*args)

    for name in ("graph_for", "code_for", "compiled", "refused", "written", "max_elements",
                 "made_elements", "made_limit", "before", "post", "fallback", "zero_d",
                 "rejoin", "saved"):
        if hasattr(fn, name):
            setattr(run, name, getattr(fn, name))
    run.direct, run.without_direct = direct, fn
    return run


def _written_shape(structure: Any, scalars: dict[int, Any],
                   count: int) -> Callable[[Any], Any] | None:
    """``_shaped``'s ``shape`` written out for its outputs, or None where the general one
    is needed (a dict in the structure, a ``script.Branched`` flag, no outputs). Its loop
    over ``scalars`` and ``_made``'s tests cost ~0.5 us a call of ``np.count_nonzero(x)``;
    the text makes each output in place::

        def shape(out):                          # return x.sum(), (y, n)
            v0, v1, v2, = out
            return (v0[()] if isinstance(v0, NDARRAY) else M0(v0), (v1, v2))

    ``Mi`` is the output's NumPy scalar type (``x.sum()`` an ndarray, made ``v0[()]``; a
    number the graph holds, ``np.count_nonzero``'s int, ``np.int64(v)``) or
    ``_scalar_if_0d``; the text holds only positions, so no user text enters it."""
    if count < 1 or any(type(make) is Branched for make in scalars.values()):
        return None
    names: dict[str, Any] = {"NDARRAY": np.ndarray}

    def item(i: int) -> str:
        make = scalars.get(i)
        if make is None:
            return f"v{i}"
        names[f"M{i}"] = make
        if make is _scalar_if_0d:
            return f"M{i}(v{i})"
        # (an ndarray subclass would be made an element too, as _made makes it)
        return f"(v{i}[()] if isinstance(v{i}, NDARRAY) else M{i}(v{i}))"

    def filled(s: Any) -> str | None:
        if isinstance(s, int) and not isinstance(s, bool):
            return item(s) if 0 <= s < count else None
        if type(s) in (tuple, list):
            parts = [filled(p) for p in s]
            if None in parts:
                return None
            inner = "".join(p + ", " for p in parts)
            return f"({inner})" if type(s) is tuple else f"[{inner}]"
        return None

    if structure is None:
        body = item(0) if count == 1 else f"({''.join(item(i) + ', ' for i in range(count))})"
    else:
        body = filled(structure)
        if body is None:
            return None
    unpack = "v0 = out" if count == 1 else f"{''.join(f'v{i}, ' for i in range(count))}= out"
    text = f"def shape(out):\n    {unpack}\n    return {body}\n"
    exec(compile(text, f"<fusejit returned values {next(_count)}>", "exec"), names)
    return names["shape"]


def _made(make: Any, value: Any, outputs: Any) -> Any:
    """An output as the caller gets it (``_shaped``'s ``scalars``): ``make`` of it (of it and
    the other outputs, for ``script.Branched``), or a 0-d array's NumPy scalar."""
    if type(make) is Branched:
        return make(value, outputs)
    if make is _scalar_if_0d or not isinstance(value, np.ndarray):
        return make(value)
    return value[()]


def _shaped_at_once(zero_d: tuple, structure: Any, scalars: dict[int, type],
                    count: int, lists: tuple = ()) -> Callable[[Any], Any]:
    """What ``_shaped``'s ``shape`` of a compiled tier's ``post`` gives, from the compiled
    function's results directly: its 0-d outputs (``zero_d``: position and dtype) made
    NumPy scalars (``scalars``) or 0-d arrays in one step, not a 0-d array each first
    (~0.3 us a call of ``x.max()``); its lists of numbers (``lists``: position and NumPy
    scalar type) lists of NumPy scalars, as its ``post`` makes them, before the returned
    structure's own conversion of their items (``int(row.argmax())``: Python ints)."""
    if structure is not None:
        count = max(count, len(_leaves(structure)))
    makes = tuple((i, scalars.get(i), dtype) for i, dtype in zero_d)
    # (outputs the graph holds as numbers, np.count_nonzero(x)'s np.int64: made as shape does)
    numbers = tuple((i, make) for i, make in scalars.items()
                    if i not in {j for j, _ in zero_d})

    def shape(out: Any) -> Any:
        flat = [out] if count == 1 else list(out)
        outputs = tuple(flat)
        for i, make, dtype in makes:
            flat[i] = np.asarray(flat[i], dtype) if make is None else _made(make, flat[i],
                                                                             outputs)
        for i, scalar in lists:     # (first: the structure's makes take the list's items)
            flat[i] = list(map(scalar, flat[i]))
        for i, make in numbers:
            flat[i] = _made(make, flat[i], outputs)
        if structure is not None:
            return _filled(structure, flat)
        return flat[0] if count == 1 else tuple(flat)

    return shape


def _leaves(structure: Any) -> list[int]:
    if isinstance(structure, dict):
        return _leaves(tuple(structure.values()))
    if isinstance(structure, (tuple, list)):
        return [i for s in structure for i in _leaves(s)]
    return [structure]


def _filled(structure: Any, outputs: tuple) -> Any:
    if isinstance(structure, dict):
        return {k: _filled(s, outputs) for k, s in structure.items()}
    if isinstance(structure, (tuple, list)):
        return rebuilt(structure, [_filled(s, outputs) for s in structure])
    return outputs[structure]


def _shown_type(value: Any) -> str:
    """An argument's type as ``JitFunction.races`` shows it: ``float32 2-d``, ``int``."""
    if type(value) is _NDARRAY:
        return f"{value.dtype} {value.ndim}-d"
    return type(value).__name__


def _without(fn: Any, positions: tuple) -> Any:
    """``fn`` called with the arguments at ``positions`` left out (string arguments, which
    the graph holds as constants); ``fn`` itself when there are none."""
    if not positions:
        return fn
    keep = [i for i in range(max(positions) + 1) if i not in positions]
    last = max(positions) + 1

    def drop(args: tuple) -> tuple:
        return tuple(args[i] for i in keep) + args[last:]

    def run(*args: Any) -> Any:
        return fn(*drop(args))

    run.graph_for = lambda *args: fn.graph_for(*drop(args))  # type: ignore[attr-defined]
    run.code_for = lambda *args: fn.code_for(*drop(args))  # type: ignore[attr-defined]
    return run


class JitFunction(Portable):
    """A scripted function: call it like the original; ``graph``, ``graph_for``, ``code_for``."""

    def __init__(self, fn: Callable, device: str | None = None, race: bool | None = None):
        if not inspect.isfunction(fn):
            raise FusejitError(f"fusejit.jit needs a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.__fusejit_function__ = fn  # what a jitted caller inlines
        self.device = device
        self.race = race        # (None: FUSEJIT_NUMPY_RACE decides; race.py)
        # (CuPy arrays are keyed by dtype and rank as NumPy arrays are, on every call)
        self._device_arrays = device not in (None, "cpu")
        self._signature = inspect.signature(fn)
        params = list(self._signature.parameters.values())
        self._names = [p.name for p in params]
        # Positional calls skip ``Signature.bind``: missing trailing positional parameters and
        # keyword-only ones take their defaults (numbers and None) from ``_defaults``.
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
        keyword_only = [p for p in params if p.kind == p.KEYWORD_ONLY]
        defaults = [p.default for p in positional if p.default is not p.empty]
        defaults += [p.default for p in keyword_only]
        simple = len(positional) + len(keyword_only) == len(params) and all(
            isinstance(d, (bool, int, float)) or d is None for d in defaults)
        self._total = len(params) if simple else -1
        self._positional = len(positional) if simple else -1
        self._defaults = tuple(defaults) if simple else ()
        self._required = len(positional) - (len(defaults) - len(keyword_only))
        self._graph: Graph | None = None
        self._specialised: dict[tuple, Any] = {}
        # The interpreter's compiled function of each signature (under any whole-graph tier):
        # Dask calls run it chunk by chunk, displays show the latest one.
        self._interpreted: dict[tuple, Any] = {}
        self._compiled: Any = None
        # The NumPy calls each signature runs directly on small arrays (runtime/direct.py).
        self._direct: dict[tuple, Any] = {}
        self._constant_params: tuple[int, ...] = ()   # (see _script)
        # Each raced signature's race (``race.py``), kept after it ends for ``races``.
        self._races: dict[tuple, Race] = {}

    @property
    def graph(self) -> Graph:
        """The scripted graph (before optimisation, unannotated parameters as Tensors)."""
        if self._graph is None:
            self._graph = script(self.fn)
        return self._graph

    def _compile(self, graph: Graph):
        from ..runtime.executor import compile

        options: dict[str, Any] = {"fuse": True}
        if self.device in (None, "cpu"):
            options["reductions"] = True     # row-reduction kernels (CPU plans only)
        if self.device is not None:
            if "device" in inspect.signature(compile).parameters:
                options["device"] = self.device
            elif self.device != "cpu":
                raise FusejitError(f"device {self.device!r} is not available: this "
                                   f"executor runs on the CPU")
        return compile(graph, **options)

    def _arguments(self, args: tuple, kwargs: dict) -> tuple:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise FusejitError(f"{self.fn.__qualname__}(): {error}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _specialise(self, args: tuple) -> tuple[Any, tuple]:
        """The compiled function for these arguments' types, and the arguments converted."""
        # (NumPy scalars are passed as 0-d arrays and read as the scalars they are)
        scalars = {i: a.dtype for i, a in enumerate(args)
                   if isinstance(a, np.generic) and a.dtype.kind in "biuf"}
        args = tuple(_convert(a) for a in args)
        if not self._device_arrays:
            for name, a in zip(self._names, args):
                if is_cuda_array(a):
                    raise FusejitError(f"argument {name!r} is a CuPy array, and "
                                       f"{self.fn.__qualname__} runs on the CPU: decorate it "
                                       f"with @fusejit.jit(device=\"cuda\")")
        key = self._key(args, scalars)
        compiled = self._specialised.get(key)
        if compiled is None:
            # A string argument (mode="mean"), or a tuple of numbers (weights=(0.5, 0.25)),
            # is a constant of its signature, and no input of the graph: it selects code
            # while scripting, as JAX's static arguments do.
            strings = tuple(i for i, a in enumerate(args) if type(a) is str or _numbers(a))
            types = [NONE if i in strings else argument_ir_type(n, a)
                     for i, (n, a) in enumerate(zip(self._names, args))]
            try:
                graph, structure, kinds = self._scripted(types, args, strings, scalars,
                                                         branched=True)
            except ScriptError as error:
                if not any(type(args[i]) is str for i in strings):
                    raise
                names = ", ".join(repr(self._names[i]) for i in strings
                                  if type(args[i]) is str)
                raise FusejitError(f"argument {names}: a str is not supported here (only as "
                                   f"an option compared with ==, mode == \"mean\", or a dict "
                                   f"key): {error}") from None
            for i in reversed(strings):
                graph.erase_input(i)
            kept = [t for i, t in enumerate(types) if i not in strings]
            key = self._key(args, scalars)  # (with the parameters found to be constants)
            compiled = self._compiled = self._compile(graph)
            if self._total >= 0 and hasattr(compiled, "_remembered"):
                # (a remembered runner is written into the fast call: fastcall.py)
                compiled._remembered.listeners.append(self._refresh_fast_call)
            # (Dask arrays stay lazy, 0-d ones too: only the NumPy tiers make scalars)
            self._interpreted[key] = _shaped(_without(compiled, strings), structure, None,
                                             len(graph.outputs))
            made = {i: kind for i, kind in (numpy_scalar_outputs(graph) | kinds).items()
                    if kind is not None}
            if self._device_arrays:
                made = {}   # (CuPy returns 0-d device arrays where NumPy returns scalars)
            shape = (structure, made, len(graph.outputs))
            direct = None
            race = not self._device_arrays and self._total >= 0 and \
                raceable(self.fn, graph, args, self.race)
            if self.device in (None, "cpu") and [v.type for v in graph.inputs] == kept:
                if not strings and not self._constant_params and structure is None:
                    direct = self._direct[key] = direct_function(graph, made)
                # (NumPy's own ufunc calls already, written into the fast call: not raced)
                race = race and direct is None
                # Scalars only, or element loops and small array code: one Numba function
                # for the whole graph (the interpreter's per-step cost would dominate);
                # not for NumPy calls with no temporary, faster than it at any size.
                whole = (compile_scalar_graph if is_scalar_graph(graph) else
                         compile_element_graph if is_element_graph(graph) and (
                             direct is None or direct.temporary) else None)
                if whole is not None:
                    compiled = self._tiered(key, graph, compiled, whole, strings, shape,
                                            (args, tuple(scalars)) if race else None)
                    race = False    # (the tier races the form it settles on)
            compiled = _shaped(_without(compiled, strings), *shape)
            if direct is not None:
                compiled = _with_direct(compiled, direct)
            if race:
                compiled = self._raced(key, compiled, args, tuple(scalars))
            self._specialised[key] = compiled
            self._refresh_fast_call()
        return compiled, args

    def _key(self, args: tuple, scalars: dict[int, np.dtype] | None = None) -> tuple:
        """``call_key``, and the values of the parameters scripted as constants; ``scalars``:
        the positions of the NumPy scalars ``args`` had (as 0-d arrays now)."""
        key = call_key(args)
        if scalars:   # (no fast-call test: their calls convert them on the slow path)
            key = tuple((NUMPY_SCALAR, k[0]) if i in scalars else k
                        for i, k in enumerate(key))
        if self._constant_params:
            key += tuple(_constant_key(i, args[i]) for i in self._constant_params)
        return key

    def _script(self, types: list[Type], args: tuple, strings: tuple = ()) -> Graph:
        """``_scripted``'s graph (what ``fusejit.grad`` differentiates)."""
        return self._scripted(types, args, strings)[0]

    def _scripted(self, types: list[Type], args: tuple, strings: tuple = (),
                  scalars: dict[int, np.dtype] | None = None, branched: bool = False
                  ) -> tuple[Graph, Any, dict[int, type]]:
        """Script for ``types``; an int or bool argument used as an axis (``axis=-1``) or
        ``keepdims``, and a string argument (``strings``), make their parameters constants of
        each signature (their values are part of the key from then on), as JAX's static
        arguments and Numba's literals are. Also returns the returned value's structure and
        its NumPy scalars held as numbers (``scripted``)."""
        constants = {i: args[i] for i in (*self._constant_params, *strings)
                     if _can_be_constant(args[i])}
        while True:
            try:
                graph, structure, kinds = scripted(self.fn, types, constants, scalars,
                                                   branched)
                break
            except NeedsConstant as error:
                i = error.index
                if i in constants or type(args[i]) not in (int, bool):
                    raise
                constants[i] = args[i]
        # (once a constant, in every signature's key: by value, or by type where a call
        # passes what cannot be one)
        self._constant_params = tuple(sorted({*self._constant_params, *constants}))
        return graph, structure, kinds

    def _refresh_fast_call(self) -> None:
        """Write the instance's own ``__call__`` for the signatures it has now
        (``fastcall.py``); functions whose defaults are not plain numbers keep the general
        one."""
        if self._total >= 0:
            install_fast_call(self, JitFunction.__call__, JitFunction._call_bound,
                              list(self._specialised.items()))

    def _raced(self, key: tuple, form: Any, args: tuple, scalars: tuple = ()) -> Any:
        """``form`` (a signature's settled callable) raced against the function as written
        (``race.py``); ``form`` goes in alone once the race ends. ``scalars``: the positions
        of NumPy scalar arguments (0-d arrays here: the function as written gets them back
        as the scalars they were)."""
        positional = self._positional
        keyword_only = self._names[positional:]
        fn = self.fn
        if keyword_only or scalars:
            def numpy(*args: Any) -> Any:
                if scalars:
                    args = tuple(a[()] if i in scalars else a for i, a in enumerate(args))
                return fn(*args[:positional], **dict(zip(keyword_only, args[positional:])))
        else:
            numpy = fn

        def done(form: Any) -> None:
            if self._specialised.get(key) is run:
                self._specialised[key] = form
                self._refresh_fast_call()

        shown = ", ".join(f"{name}: " + (f"numpy.{a.dtype}" if i in scalars else _shown_type(a))
                          for i, (name, a) in enumerate(zip(self._names, args)))
        arrays = tuple(i for i, a in enumerate(args) if type(a) is _NDARRAY)
        race = self._races[key] = Race(form, numpy, f"{self.fn.__qualname__}({shown})",
                                       arrays, done)
        run = race.runner(len(args))
        return run

    @property
    def races(self) -> list[RaceResult]:
        """What the race against NumPy (``frontend/race.py``) decided so far, per signature
        and size class: which side runs those calls, and each side's fastest call."""
        return [result for race in self._races.values() for result in race.results]

    def _tiered(self, key: tuple, graph: Graph, interpreted: Any, whole: Callable,
                strings: tuple = (), shape: tuple = (None,),
                race: tuple[tuple, tuple] | None = None) -> Any:
        """Interpret the first call; compile the whole graph when the signature is called
        again (a function called once never waits for Numba), or at once where the first
        call's loops would run longer interpreted than the compile takes
        (``FIRST_CALL_WHOLE_STEPS``). Straight-line array code runs
        whole only on small arrays: on big ones the fused kernels (vectorised math, threads)
        beat Numba's NumPy, which computes one op at a time (a 12-op chain on 2^22 float32:
        whole 148 ms, fused 16 ms, NumPy 58 ms; equal near 2^10 elements). So does a loop
        that makes arrays, where ``array_bounds.made_elements`` bounds them (a 5-step loop of
        ``v = v - dt * x`` on 2^22 float64 ran whole at 0.21x NumPy), and a loop of few
        steps on arrays the arguments bound whose stack after it has no bound; other loops
        (over elements, or many steps appending arrays to stack) run whole at any size. A
        lone column reduction (``x.sum(0)``) runs whole at any size: it reads its input once
        either way, and the interpreter's path around NumPy's reduction cost more than the
        reduction (``element_function.lone_column_reduction``). So does a graph that computes no
        array, only makes, copies and moves elements (``np.zeros`` and a scatter into it:
        ``element_support.computes_arrays``). Graphs held to the size bound time the
        two forms before keeping one (``measured``; ``tiering.timed_choice``), at any size
        where their loops run many steps on small arrays (``LOOPED_TIMED_MAX_ELEMENTS``).
        ``race`` (the signature's arguments and NumPy scalar positions, where it is raced):
        the form this settles on is raced against NumPy (``_raced``)."""
        loops = any(node.kind == "prim::Loop" for node in graph.all_nodes())
        computes = whole is compile_element_graph and not lone_column_reduction(graph) \
            and computes_arrays(graph)
        arrays_made = computes and (not loops or makes_arrays_in_loops(graph))
        # Loops whose array work is all runs (``element_runs``: one loop over the elements
        # each, no array made) are timed against the interpreter at any size: a run is one
        # pass on one core, where the interpreter's kernels use every core and may take
        # several steps of an unrolled loop in one pass (3 steps of x *= 0.999; x += 0.001 on
        # 4 x 10^6 float64). (``np.minimum(lo, x[k:k + n], out=lo)`` and its maximum, 8 steps
        # on 4 x 10^6 float32: whole 28 ms, interpreted 59, NumPy 48.)
        runs_only = computes and loops and not arrays_made and \
            makes_arrays_in_loops(graph, runs=False)
        sized = arrays_made and (not loops or made_elements(graph) is not None) or runs_only
        stepped = made_elements(graph, in_loops=True) if arrays_made and loops else None

        limit = (WHOLE_GRAPH_MAX_ELEMENTS,) if sized else ()

        def install(compiled: Any) -> None:
            form = _with_direct(_shaped(_without(compiled, strings), *shape),
                                self._direct.get(key))
            self._specialised[key] = form if race is None else self._raced(key, form, *race)

        def settle(compiled: Any, args: tuple) -> Any:
            """Install ``compiled`` for good and run this call on it."""
            install(compiled)
            try:
                return compiled(*args)
            finally:  # after the call: Numba has compiled its overload, whose entry it takes
                self._refresh_fast_call()

        def first_calls(*args: Any) -> Any:
            nonlocal sized, limit
            calls = first_calls.calls
            first_calls.calls = calls + 1
            if calls == 0 and arrays_made and not sized and stepped is not None and \
                    loop_steps(graph, args) < LOOPED_STEPS:
                # (arrays made whose sizes no argument bounds, a stack of what a loop
                # appended, but a loop of few steps on arrays an argument bounds: held to the
                # size limit, the interpreter's kernels take big ones; set J's 4-step
                # particle update of 1.2 * 10^6 elements, appending energies, ran whole at
                # 0.42x NumPy, interpreted at 9-12x)
                sized, limit = True, (WHOLE_GRAPH_MAX_ELEMENTS,)
            if calls == 0 and (sized or loop_steps(graph, args) < FIRST_CALL_WHOLE_STEPS):
                return interpreted(*args)
            if calls == 0:      # (a loop too long to interpret: compiled whole at once)
                first_calls.calls = calls = 1
            if calls == 1:
                if not (sized and timed_choice()):
                    return settle(whole(graph, interpreted, *limit), args)
                # (beyond the limit only where the interpreter fuses nothing, or its kernels
                # are compiled: timed while they compile in the background, it lost sizes it
                # wins once they run)
                ready = _kernels_ready(interpreted, args)
                if runs_only and not ready and first_calls.waits < MEASURED_CALLS:
                    # (the whole form, untimed, while the interpreter's kernels compile)
                    first_calls.calls, first_calls.waits = 1, first_calls.waits + 1
                    first_calls.whole = first_calls.whole or whole(graph, interpreted)
                    return first_calls.whole(*args)
                wide = TIMED_MAX_ELEMENTS if ready else limit[0]
                if runs_only:
                    wide = LOOPED_TIMED_MAX_ELEMENTS
                if stepped is not None and stepped(*args) <= WHOLE_GRAPH_MAX_ELEMENTS and \
                        loop_steps(graph, args) >= LOOPED_STEPS:
                    wide = max(wide, LOOPED_TIMED_MAX_ELEMENTS)
                try:
                    first_calls.whole = whole(graph, interpreted, wide)
                except BaseException:
                    first_calls.calls = calls       # (the next call tries again, not measures)
                    raise
                return first_calls.whole(*args)     # (Numba compiles it here)
            return measured(args)

        def measured(args: tuple) -> Any:
            """Sized graphs: near the size limit, Numba's NumPy (an op at a time, a new array
            each) and the interpreter's fused kernels trade places by program (a 20-step
            escape-time loop on 3072 elements: whole 819 us, interpreted 457 us, NumPy 516 us;
            at 1024: 360, 479 and 450); and beyond the limit, up to ``TIMED_MAX_ELEMENTS``,
            where the interpreter runs op by op with no fused kernel (``np.outer`` of two
            100-element vectors: whole 3.8 us, interpreted 13.0, NumPy 7.0). A plan with a
            kernel keeps the limit: timed while its kernels compile in the background, it lost
            sizes it then wins (a masked ``where`` on 10^4 elements: 14.5 us whole, 2.8
            interpreted). Calls on arguments of one size alternate between the two, at least
            ``TIMED_CALLS`` each and more where they are cheap (``TIMED_SECONDS``,
            ``MOST_TIMED_CALLS``): their first calls run slower, so the fastest counts. The
            faster keeps that size: the whole form every size up to it (at least the limit),
            or the interpreter every size from it (at most the limit). Sizes never timed keep
            the limit."""
            compiled = first_calls.whole
            size = whole_size(compiled, args)
            if compiled.refused:
                return settle(compiled, args)
            if size is None:
                # (the usual limit: bigger arguments go to the interpreter, as sizes above it
                # that were never timed; the module is the one compiled, its limit another)
                return settle(whole(graph, interpreted, *limit), args)
            timed = first_calls.timed
            if timed.get("size") != size:
                first_calls.sizes += 1
                if first_calls.sizes > MEASURED_CALLS:
                    return settle(whole(graph, interpreted, *limit), args)
                timed.clear()
                timed.update(size=size, whole=[], interpreted=[])
            wholes, interpreteds = timed["whole"], timed["interpreted"]
            run, times = ((compiled, wholes) if len(wholes) <= len(interpreteds) else
                          (interpreted, interpreteds))
            start = time.perf_counter()
            result = run(*args)
            times.append(time.perf_counter() - start)
            timed_enough = sum(wholes) + sum(interpreteds) >= TIMED_SECONDS
            if len(interpreteds) == len(wholes) >= TIMED_CALLS and \
                    (timed_enough or len(wholes) >= MOST_TIMED_CALLS):
                if min(interpreteds) * INTERPRETER_MARGIN < min(wholes):
                    kept = min(size - 1, WHOLE_GRAPH_MAX_ELEMENTS)
                else:
                    kept = max(size, WHOLE_GRAPH_MAX_ELEMENTS)
                install(whole(graph, interpreted, kept))
                self._refresh_fast_call()
            return result

        first_calls.calls = 0  # type: ignore[attr-defined]
        first_calls.waits = 0  # type: ignore[attr-defined]
        first_calls.sizes = 0  # type: ignore[attr-defined]
        first_calls.whole = None  # type: ignore[attr-defined]
        first_calls.timed = {}  # type: ignore[attr-defined]
        first_calls.graph_for = interpreted.graph_for  # type: ignore[attr-defined]
        first_calls.code_for = interpreted.code_for  # type: ignore[attr-defined]
        return first_calls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != self._total or self._total != self._positional:
            if not kwargs and self._required <= len(args) <= self._positional:
                args += self._defaults[len(args) - self._required:]
            else:
                args = self._arguments(args, kwargs)
        return self._call_bound(args)

    def _call_bound(self, args: tuple) -> Any:
        """Run on ``args``, one value per parameter (keyword-only ones included)."""
        types = tuple(map(type, args))  # call_key, inlined: this runs on every call
        if list in types:   # (a list of numbers: the tuple it holds; others refused)
            args = tuple(_listed(a) if type(a) is list else a for a in args)
            types = tuple(map(type, args))
            for name, a in zip(self._names, args):
                if type(a) is list:
                    argument_ir_type(name, a)
        key = (tuple(map(argument_key, args)) if _NDARRAY in types or self._device_arrays
               else types)
        if self._constant_params:
            key += tuple(_constant_key(i, args[i]) for i in self._constant_params)
        compiled = self._specialised.get(key)
        if compiled is None:
            if has_dask_arrays(args):
                return self._call_on_dask(args)
            compiled, args = self._specialise(args)
        return compiled(*args)

    def _call_on_dask(self, args: tuple) -> Any:
        """Dask arrays in, Dask arrays out: the signature's interpreter function, typed by the
        arrays' dtypes and ranks, runs chunk by chunk (``fusejit/dask.py``)."""
        stand_ins = tuple(np.empty((0,) * a.ndim, a.dtype) if is_dask_array(a) else a
                          for a in args)
        self._specialise(stand_ins)
        converted = tuple(a if is_dask_array(a) else _convert(a) for a in args)
        return self._interpreted[self._key(tuple(map(_convert, stand_ins)))](*converted)

    def graph_for(self, *args: Any, **kwargs: Any) -> Graph:
        """The optimised graph that runs for these arguments."""
        compiled, args = self._specialise(self._arguments(args, kwargs))
        return compiled.graph_for(*args)

    def code_for(self, *args: Any, **kwargs: Any) -> str:
        """The interpreter's instruction dump for these arguments."""
        compiled, args = self._specialise(self._arguments(args, kwargs))
        return compiled.code_for(*args).dump()

    def __reduce__(self) -> tuple:
        # Sent to another process as the scripted graph's text (runtime/portable.py).
        from ..runtime.portable import reduce_jit

        return reduce_jit(self)

    def __repr__(self) -> str:
        return f"<fusejit.jit {self.fn.__qualname__}>"

    def _repr_html_(self) -> str:
        from ..display import jit_html

        return jit_html(self, self._compiled)


def jit(fn: Callable | None = None, *, device: str | None = None,
        race: bool | None = None) -> Any:
    """Script ``fn`` and run it through the executor; ``@jit`` or ``@jit(device=...)``.
    ``race``: time the compiled forms against ``fn`` as written and run the faster
    (``race.py``): None (the default) unless ``FUSEJIT_NUMPY_RACE=0``, False never, True
    always (where the signature can be raced)."""
    if fn is None:
        return lambda f: JitFunction(f, device=device, race=race)
    return JitFunction(fn, device=device, race=race)


__all__ = ["JitFunction", "SUPPORTED_DTYPES", "argument_ir_type", "argument_key", "call_key",
           "jit"]
