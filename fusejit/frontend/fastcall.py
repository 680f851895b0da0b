"""The fast call path of a ``@fusejit.jit`` function: a generated ``__call__`` that tests a
call's argument types against the signatures already specialised and calls their compiled
function with no further lookup.

A warm call of ``JitFunction.__call__`` builds the signature key (``call_key``), looks it up and
goes through the tier's wrappers: about 1 µs, more than a whole Newton iteration in CPython.
Once a function has signatures, its instance gets a class of its own whose ``__call__`` is
written for them. The text numbers the parameters and every value it uses (types, dtypes,
callables) is a global of the generated code, so no user text enters it; the compiled code
object then takes the function's own parameter names and defaults, so keyword calls bind
natively (no ``**kwargs`` dictionary per call)::

    def __call__(self, a0=MISSING, a1=MISSING, *rest, **unknown):  # renamed (a, x0=1.0, ...)
        if unknown:
            return KEYWORDS(self, unknown)       # FusejitError: "unexpected keyword 'z'"
        if rest:
            return SLOW(self, a0, a1, *rest)         # JitFunction.__call__: its error
        if type(a0) is T_float and type(a1) is T_float:  # (float, float): compiled whole
            try:
                return E0(a0, a1)                    # Numba's entry point for that signature
            except Exception:
                return F0(a0, a1)                    # the interpreter: the graph's own error
        if a0 is MISSING:                            # (no signature's tests pass it)
            return UNBOUND(self, (a0, a1))           # "missing a required argument: 'a'"
        return BOUND(self, (a0, a1))                 # JitFunction._call_bound

A signature compiled whole calls the Numba overload's ``entry_point`` (a C function that
unboxes the arguments as its signature says, skipping Numba's type dispatch), after its
``before`` (``blas.refresh`` for graphs with products: the BLAS thread rule their compiled code
reads is measured there, as on every other path); the exact type
tests above are what make that safe (an ``int`` never reaches a ``float`` overload, a strided
view never a C-contiguous one: arrays are also tested for ``flags.c_contiguous`` and the size
limit of straight-line code: bigger arrays go straight to the interpreter, whose fused kernels
run them). Arguments an element function writes are tested writeable,
copied before the call and put back before the interpreter reruns a failed one (only those in
the signature's ``saved``: none where the call can only fail before it writes them). Outputs
that are array arguments (written in place) are not among the Numba function's results: the
call returns the argument itself (``return a0`` after the entry's call), or ``J0(E0(a0, a1),
(a0, a1))`` rebuilds the outputs (the signature's ``rejoin``) before ``post``. Other
signatures call what ``JitFunction._specialised`` holds for them (the tier's wrapper, or the
interpreter), so every semantic stays where it was. Arrays are tested on type, dtype (by
identity: a byte-swapped dtype takes the slow path) and rank. A signature whose graph is a few
NumPy ufunc calls (``runtime/direct.py``: ``x + y``, ``(x * y).max()``) has them written into
its branch, run where its arrays are small enough (and, for a graph compiled whole, too big
for that), any exception sending the call on to the path it would have taken::

        if a0.size <= 262144 and a1.size <= 262144:
            try:
                v0_0 = U0_0(a0, a1)                  # np.add
                return v0_0
            except Exception:
                pass                                 # the graph's own path: its error
        return R0(a0, a1)
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from ..errors import FusejitError

# Signatures written into one generated ``__call__`` (the most recently specialised ones);
# others take the slow path, which still finds them.
MAX_SIGNATURES = 8

_SCALARS = (bool, int, float)
# The first item of a NumPy scalar argument's key (``jit._key``): it is passed on as a 0-d array
NUMPY_SCALAR = "numpy scalar"
_count = itertools.count()


class _Missing:
    """The default of every generated parameter: "not passed"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


def _entry_point(run: Any, key: tuple) -> Any:
    """The C entry of the Numba overload compiled for ``key`` (C-contiguous arrays), where the
    fast path may call it: a scalar function, or an element function.
    (Graphs that print the same source share one dispatcher, whose overloads are told apart
    by their argument types; strided calls add "A"-layout ones.)"""
    dispatcher = getattr(run, "compiled", None)
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads or not hasattr(run, "fallback"):
        return None
    for signature, overload in overloads.items():
        if len(signature) == len(key) and all(map(_matches, signature, key)):
            return overload.entry_point
    return None


def _matches(numba_type: Any, key: Any) -> bool:
    """Does Numba's argument type take an argument of ``key`` (``argument_key``)?"""
    from numba.core import types
    from numba.np.numpy_support import from_dtype

    if _array_key(key) or _numpy_scalar(key):
        # (a NumPy scalar is passed as the 0-d array the slow path makes of it)
        dtype, rank = (key[1], 0) if _numpy_scalar(key) else key
        return isinstance(numba_type, types.Array) and numba_type.layout == "C" \
            and numba_type.ndim == rank and numba_type.dtype == from_dtype(dtype)
    expected = {int: types.int64, float: types.float64, bool: types.boolean,
                type(None): types.none}.get(key)
    return expected is not None and numba_type == expected


def _numpy_scalar(key: Any) -> bool:
    """Is ``key`` a NumPy scalar argument's (``(NUMPY_SCALAR, dtype)``, ``jit._key``)?"""
    return isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str) \
        and key[0] == NUMPY_SCALAR


def _array_key(key: Any) -> bool:
    """Is ``key`` an array argument's (``(dtype, rank)``, ``argument_key``)?"""
    return isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], np.dtype)


def _test(index: int, key: Any, names: dict[str, Any]) -> str | None:
    """The Python test that argument ``index`` has the type ``key`` (an ``argument_key``)."""
    arg = f"a{index}"
    if key is type(None):
        return f"{arg} is None"
    if key in _SCALARS:
        names[f"T_{key.__name__}"] = key
        return f"type({arg}) is T_{key.__name__}"
    if _numpy_scalar(key):
        name = f"ST{len(names)}"
        names[name] = key[1].type       # (np.float32, ...: the exact type, as the key's)
        return f"type({arg}) is {name}"
    if _array_key(key):
        dtype, rank = key
        name = f"DT{len(names)}"
        names[name] = dtype
        return f"type({arg}) is NDARRAY and {arg}.dtype is {name} and {arg}.ndim == {int(rank)}"
    return None


# The most numbers a tuple (or list) argument scripted as a constant may hold for the fast call
# to test it element by element (a longer one takes the slow path's key).
_NUMBERS_TESTED = 8


def _numbers_test(index: int, value: Any, prefix: str, names: dict[str, Any]) -> str | None:
    """The Python test that argument ``index`` is the flat tuple of numbers ``value``, or a
    list of them (which the slow path would make that tuple), each of the same type (``(1, 2)``
    and ``(1.0, 2.0)`` are equal, and two signatures; a NaN is equal to nothing, and takes the
    slow path): None for another value. The numbers are globals ``prefix_j``."""
    if type(value) is not tuple or len(value) > _NUMBERS_TESTED or \
            any(type(v) not in _SCALARS for v in value):
        return None
    arg = f"a{index}"
    tests = [f"(type({arg}) is tuple or type({arg}) is list)", f"len({arg}) == {len(value)}"]
    for j, v in enumerate(value):
        names[f"T_{type(v).__name__}"] = type(v)
        names[f"{prefix}_{j}"] = v
        tests.append(f"type({arg}[{j}]) is T_{type(v).__name__} and {arg}[{j}] == {prefix}_{j}")
    return " and ".join(tests)


def _array_rank(key: Any) -> int:
    """The rank an argument key gives an array (0 for other keys)."""
    if _array_key(key):
        return int(key[1])
    return 0


def fast_call_source(n_positional: int, n_required: int, n_keyword_only: int,
                     signatures: list[tuple[tuple, Any]], names: dict[str, Any]) -> str:
    """The text of ``__call__`` for a function of ``n_positional`` positional parameters (the
    first ``n_required`` without defaults) and ``n_keyword_only`` keyword-only ones, which
    dispatches ``signatures`` (key, callable). ``names`` receives the globals it uses."""
    positional = [f"a{i}" for i in range(n_positional)]
    everything = [f"a{i}" for i in range(n_positional + n_keyword_only)]
    # (defaults are set on the function object: MISSING marks a required parameter)
    params = [f"{p}=MISSING" for p in positional]
    params.append("*rest")
    params += [f"{p}=MISSING" for p in everything[n_positional:]]
    params.append("**unknown")
    lines = [f"def __call__(self, {', '.join(params)}):",
             "    if unknown:",
             "        return KEYWORDS(self, unknown)",
             "    if rest:",
             f"        return SLOW(self, {''.join(p + ', ' for p in positional)}*rest)"]
    call = f"({', '.join(everything)})"
    for s, (key, run) in enumerate(signatures):
        # (a key goes on with (position, value, types) of the parameters scripted as
        # constants; the types are the position's own test, or a tuple's, which has none; or
        # (position, type) where the call passed what cannot be a constant, an array, which
        # the position's own test tells)
        tests = [_test(i, k, names) for i, k in enumerate(key[:len(everything)])]
        for constant in key[len(everything):]:
            if len(constant) == 3:
                i, value, _types = constant
                if tests[i] is None:        # (a tuple, or a list the slow path makes one)
                    tests[i] = _numbers_test(i, value, f"V{s}_{i}", names)
                    continue
                names[f"V{s}_{i}"] = value
                tests.append(f"a{i} == V{s}_{i}")
        if len(key) < len(everything) or None in tests:
            continue
        entry = _entry_point(run, key[:len(everything)])
        arrays = [i for i, k in enumerate(key[:len(everything)]) if _array_key(k)]
        scalars = [i for i, k in enumerate(key[:len(everything)]) if _numpy_scalar(k)]
        written = getattr(run, "written", None) or ()
        limit = getattr(run, "max_elements", None) if hasattr(run, "fallback") else None
        sizes = [f"a{i}.size <= {int(limit)}" for i in arrays if limit is not None]
        shaped = [i for i in arrays if _array_rank(key[i]) > 1]
        if sizes and shaped:
            # (an argument with a size-1 dimension broadcasts against the others, as the
            # run's too_big says: the product of the sizes then stays within the limit)
            flat = " and ".join(f"1 not in a{i}.shape" for i in shaped)
            product = " * ".join(f"a{i}.size" for i in arrays)
            sizes.append(f"({flat} or {product} <= {int(limit)})")
        made = getattr(run, "made_elements", None) if sizes else None
        if made is not None:     # (or no array the graph makes bigger than its limit)
            # (``array_bounds``' terms, of the parameters a0...: positions, axes, max; the
            # most of them is at most the limit where each is)
            terms = getattr(made, "terms", None)
            if terms:
                bound = " and ".join(f"{term} <= {int(run.made_limit)}" for term in terms)
            else:
                names[f"M{s}"] = made
                bound = f"M{s}{call} <= {int(run.made_limit)}"
            sizes = [f"({' and '.join(sizes)} or {bound})"]
        if entry is not None:
            tests += [f"a{i}.flags.c_contiguous" for i in arrays]
            # (the entry writes where its signature says the array is writeable)
            tests += [f"a{i}.flags.writeable" for i in written]
        lines.append(f"    if {' and '.join(tests) or 'True'}:")
        # (NumPy scalars go on as the 0-d arrays the slow path makes of them, ``jit._convert``)
        lines += [f"        a{i} = ASARRAY(a{i})" for i in scalars]
        direct = _direct_lines(s, run, arrays, names)
        if sizes:
            # bigger arrays: straight to the interpreter (its fused kernels), as ``run``
            # sends them, without the general path's key and lookup (~2 us a call)
            names[f"F{s}"] = run.fallback
            lines.append(f"        if not ({' and '.join(sizes)}):")
            lines += [f"    {line}" for line in direct]
            lines += _remembered_lines(f"F{s}", run.fallback, key, arrays, everything, names,
                                       "            ")
            lines.append(f"            return F{s}{call}")
        elif entry is None and direct and not run.direct.temporary:
            # (a graph with a temporary runs whole on small arrays, once compiled: above)
            lines += direct
            run = run.without_direct    # (what follows when the NumPy calls fail)
        if entry is not None:
            names[f"E{s}"], names[f"F{s}"] = entry, run.fallback
            post = getattr(run, "post", None)
            rejoin = getattr(run, "rejoin", None)
            result = f"E{s}{call}"
            # (the array arguments it returns: left out of its results, put back here)
            passes = rejoin is not None and post is None and rejoin.argument is not None
            if rejoin is not None and not passes:
                names[f"J{s}"] = rejoin
                result = f"J{s}({result}, ({''.join(p + ', ' for p in everything)}))"
            if post is not None:
                names[f"P{s}"] = post
                result = f"P{s}({result})"
            # arguments it writes are saved, and put back before the interpreter reruns
            saved = getattr(run, "saved", written)
            lines += [f"        s{i} = a{i}.copy()" for i in saved]
            before = getattr(run, "before", None)
            if before is not None:   # (blas.refresh: the thread rule its products read)
                names[f"B{s}"] = before
                lines.append(f"        B{s}()")
            lines += ["        try:",
                      f"            {result}" if passes else f"            return {result}",
                      "        except Exception:"]
            lines += [f"            COPYTO(a{i}, s{i})" for i in saved]
            lines.append(f"            return F{s}{call}")
            if passes:
                lines.append(f"        return a{int(rejoin.argument)}")
        else:
            names[f"R{s}"] = run
            lines += _remembered_lines(f"R{s}", run, key, arrays, everything, names,
                                       "        ")
            lines.append(f"        return R{s}{call}")
    if n_required:
        # (after the signatures, whose tests no MISSING passes: a call that binds costs
        # nothing for it)
        missing = " or ".join(f"a{i} is MISSING" for i in range(n_required))
        lines += [f"    if {missing}:",
                  f"        return UNBOUND(self, ({''.join(p + ', ' for p in everything)}))"]
    lines.append(f"    return BOUND(self, ({''.join(p + ', ' for p in everything)}))")
    return "\n".join(lines) + "\n"


def _remembered_lines(name: str, target: Any, key: tuple, arrays: list[int],
                      everything: list[str], names: dict[str, Any], indent: str) -> list[str]:
    """Where ``target`` (what the text calls as ``name``) is a ``CompiledFunction``, or its
    outputs shaped (``jit._shaped``'s ``parts``), and the function has remembered a runner
    for C-contiguous arrays of ``key`` (``runtime/remembered.py``): the lines that call that
    runner for such arrays, skipping the layers between (``_shaped``'s call, the function's
    ``__call__``, its dispatch's tests: ~0.3 us); otherwise none. The runner is what the
    dispatch would run, and it keeps its own tests (ints within int64) and its timing. A key
    remembered later writes the text again (``RememberedCalls.listeners``)."""
    shape, compiled = (None, target) if hasattr(target, "_remembered") else \
        getattr(target, "parts", (None, None))
    remembered = getattr(compiled, "_remembered", None)
    if remembered is None:
        return []
    wanted = tuple((k[0], k[1], True) if isinstance(k, tuple) else k
                   for k in key[:len(everything)])
    found = remembered.runners.get(wanted)
    if found is None:
        return []
    names[f"Q{name}"] = found
    result = f"Q{name}(({''.join(p + ', ' for p in everything)}))"
    if shape is not None:
        names[f"S{name}"] = shape
        result = f"S{name}({result})"
    contiguous = " and ".join(f"a{i}.flags.c_contiguous" for i in arrays)
    if not contiguous:
        return [f"{indent}return {result}"]
    return [f"{indent}if {contiguous}:", f"{indent}    return {result}"]


def _direct_lines(s: int, run: Any, arrays: list[int], names: dict[str, Any]) -> list[str]:
    """The lines (at the depth of a signature's body) that call the signature's NumPy calls
    (``run.direct``: ``runtime/direct.py``) where its arrays are small enough for them; on
    any exception the lines after them run the graph's own path (its error)."""
    direct = getattr(run, "direct", None)
    if direct is None:
        return []
    body, returned, made = direct.inline(str(s))      # (its text here: one call less)
    names.update(made)
    sizes = [f"a{i}.size <= {int(direct.max_elements)}" for i in arrays]
    return [f"        if {' and '.join(sizes) or 'True'}:",
            "            try:",
            *(f"                {line}" for line in body),
            f"                return {returned}",
            "            except Exception:",
            "                pass"]


def _keywords(fn: Any, unknown: dict) -> Any:
    """A keyword no parameter has (the function takes no ``**kwargs``, or it would have no
    fast call): Python's error for it, as the general path raises it (a ``FusejitError``)."""
    name = next(iter(unknown))
    raise FusejitError(f"{fn.fn.__qualname__}(): got an unexpected keyword argument {name!r}")


def _unbound(slow: Any, fn: Any, values: tuple) -> Any:
    """A required parameter was not passed: the general path's error, from the arguments
    that were (by name, as they may have been)."""
    return slow(fn, **{name: v for name, v in zip(fn._names, values) if v is not MISSING})


def install_fast_call(fn: Any, slow: Any, bound: Any,
                      signatures: list[tuple[tuple, Any]]) -> None:
    """Give ``fn`` (a JitFunction whose defaults are numbers or None, ``fn._total >= 0``) a
    class of its own whose ``__call__`` dispatches ``signatures``, the most recent last;
    ``slow`` is the general ``__call__``, ``bound`` its part after binding (one value per
    parameter). The generated function's parameters take the function's own names and
    defaults (renamed in its code object, so keyword calls bind as they would on the
    original; an unknown keyword is a ``FusejitError`` naming it, the general path's error:
    ``**unknown`` costs a positional call ~25 ns, an empty dict)."""
    names: dict[str, Any] = {"MISSING": MISSING, "SLOW": slow, "BOUND": bound,
                             "NDARRAY": np.ndarray, "COPYTO": np.copyto, "ASARRAY": np.asarray,
                             "UNBOUND": functools.partial(_unbound, slow),
                             "KEYWORDS": _keywords}
    n_keyword_only = fn._total - fn._positional
    n_required = fn._required
    recent = signatures[-MAX_SIGNATURES:][::-1]
    text = fast_call_source(fn._positional, n_required, n_keyword_only, recent, names)
    exec(compile(text, f"<fusejit fast call {next(_count)}>", "exec"), names)
    call = names["__call__"]
    own = list(fn._names)
    this, rest, unknown = (_unused(stem, own) for stem in ("self", "args", "kwargs"))
    code = call.__code__
    varnames = (this, *own, rest, unknown)  # (keyword-only parameters come before *rest)
    call.__code__ = code.replace(co_varnames=varnames + code.co_varnames[len(varnames):],
                                 co_name=fn.fn.__name__, co_qualname=fn.fn.__qualname__)
    call.__name__, call.__qualname__ = fn.fn.__name__, fn.fn.__qualname__  # (in its errors)
    n_defaults = fn._positional - n_required
    call.__defaults__ = (MISSING,) * n_required + fn._defaults[:n_defaults]
    call.__kwdefaults__ = dict(zip(own[fn._positional:], fn._defaults[n_defaults:])) or None
    cls = type(fn)
    if cls.__dict__.get("_own_class") is not True:
        cls = type(cls.__name__, (cls,), {"_own_class": True, "__module__": cls.__module__,
                                          "__qualname__": cls.__qualname__})
        fn.__class__ = cls
    cls.__call__ = call


def _unused(stem: str, taken: list[str]) -> str:
    name = stem
    while name in taken:
        name = "_" + name
    return name


__all__ = ["MAX_SIGNATURES", "MISSING", "fast_call_source", "install_fast_call"]
