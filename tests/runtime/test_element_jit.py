"""Which whole-graph functions compile with LLVM's loop vectoriser (``runtime/element_jit.py``):
those whose text has no loop of its own keep it, so their array expressions run in vector
instructions, and so do those whose loops store into no one-byte array; those with a user loop
or an indexing loop that could store into a bool, int8 or uint8 array compile without it (the
loops LLVM 22 miscompiled). Each compiled function is checked against NumPy."""

from __future__ import annotations

import re

import numpy as np

from fusejit.runtime.element_function import compile_element_graph, element_source
from fusejit.runtime.element_jit import ElementDispatcher, VectorisedElementDispatcher
from tests.runtime.conftest import refuse, scripted


def _compiled(fn, *args):
    graph = scripted(fn, *args)
    return element_source(graph), compile_element_graph(graph, refuse)


def scaled(img8):
    return img8.astype(np.float32) / 255.0 + 0.5


def running(x):
    total = x * 0.0
    for i in range(3):
        total = total + x / (i + 1.0)
    return total


def gathered(x, idx):
    return x[idx] * 2.0


def flagged(x, idx):
    seen = np.zeros(x.shape[0], dtype=np.bool_)
    for i in range(idx.shape[0]):
        seen[idx[i]] = True
    return np.where(seen, x, 0.0)


def test_a_function_without_loops_compiles_with_vectors():
    img8 = (np.arange(48 * 64) % 251).astype(np.uint8).reshape(48, 64)
    source, run = _compiled(scaled, img8)
    assert "@element_jit(vectorise=True)\n" in source, source
    np.testing.assert_array_equal(run(img8), scaled(img8))
    assert type(run.compiled) is VectorisedElementDispatcher
    # (compiled anew: a function Numba loads from its disk cache has no LLVM text to show)
    fresh = VectorisedElementDispatcher(py_func=run.compiled.py_func, locals={},
                                        targetoptions={"nopython": True, "boundscheck": True})
    fresh.compile(run.compiled.signatures[0])
    llvm = "".join(fresh.inspect_llvm().values())
    assert re.search(r"<(4|8|16) x float>", llvm), "no float32 vector in the compiled function"


def test_functions_with_loops_of_their_own_keep_the_vectoriser_unless_they_store_bytes():
    x = np.linspace(-1.0, 1.0, 50)
    idx = np.array([3, 0, 49, 7])
    for fn, args in ((running, (x,)), (gathered, (x, idx))):
        source, run = _compiled(fn, *args)
        assert "@element_jit(vectorise=True, loops=True)\n" in source, source
        assert type(run.compiled) is VectorisedElementDispatcher and run.compiled.loops
        np.testing.assert_allclose(run(*args), fn(*args), rtol=1e-15)
    source, run = _compiled(flagged, x, idx)
    assert "@element_jit(loops=True)\n" in source and "vectorise" not in source, source
    assert type(run.compiled) is ElementDispatcher
    np.testing.assert_array_equal(run(x, idx), flagged(x, idx))


def two_differences(q, n):
    # (what a whole-graph function makes of ``q - np.roll(q, 1, axis)`` twice a step: two
    # array expressions inside a user's loop)
    v = q.copy()
    out = np.zeros(n)
    for i in range(n):
        a = np.concatenate((v[:, -1:], v[:, :-1]), axis=1)
        da = (np.ascontiguousarray(v).reshape(v.size)
              - np.ascontiguousarray(a).reshape(a.size)).reshape(v.shape)
        b = np.concatenate((v[-1:], v[:-1]), axis=0)
        db = (np.ascontiguousarray(v).reshape(v.size)
              - np.ascontiguousarray(b).reshape(b.size)).reshape(v.shape)
        v = v - 0.25 * da - 0.125 * db
        out[i] = v.sum()
    return out


def _vector_subtractions(dispatcher) -> int:
    llvm = "".join(dispatcher.inspect_llvm().values())
    return len(re.findall(r"fsub (?:fast )?<\d+ x double>", llvm))


def test_whole_graph_functions_unswitch_the_array_expressions_of_a_loop():
    # Under LLVM's default unswitching budget the array expressions of this loop keep their
    # per-element broadcast tests, and some stay scalar (1.8x slower: element_jit's
    # docstring); the compile of a whole-graph function with loops has the larger budget,
    # which unswitches them into more vector loops, and a plain Numba compile after it has
    # LLVM's default again.
    from numba import njit

    from fusejit.runtime.element_jit import COMPILE_SETTINGS

    q = np.cos(np.arange(20 * 30, dtype=np.float64)).reshape(20, 30)
    expected = two_differences(q, 3)

    def plain() -> int:
        fn = njit(two_differences)
        np.testing.assert_allclose(fn(q, 3), expected, rtol=1e-14)
        return _vector_subtractions(fn)

    def whole(loops: bool):
        fn = VectorisedElementDispatcher(py_func=two_differences, locals={},
                                         targetoptions={"nopython": True, "boundscheck": True})
        fn.loops = loops
        np.testing.assert_allclose(fn(q, 3), expected, rtol=1e-14)
        return _vector_subtractions(fn)

    before = plain()
    assert whole(True) > before
    assert plain() == before
    # (a function without loops of its own keeps LLVM's budget: compiles of loop-free whole
    # forms took 1.4x as long with it)
    assert whole(False) == before
    # (the budget is in the generated text, the key of its cache: a function compiled under
    # another budget is not loaded for it)
    source, _ = _compiled(running, np.linspace(-1.0, 1.0, 50))
    assert COMPILE_SETTINGS in source
