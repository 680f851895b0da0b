"""``inlining.ALWAYS_INLINE``: a function too big for LLVM's inliner is still inlined into its
callers (no call left, the caller's loop vectorised), with the same results as a plain call."""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from fusejit.runtime.fusion.inlining import ALWAYS_INLINE


def _long_chain(x):
    # over LLVM's inline threshold: 30 dependent polynomial steps
    y = x
    for _ in range(30):
        y = y * np.float64(0.999) + np.float64(0.001) * (y * y - y)
    return y


_inlined = njit(cache=False, error_model="numpy", **ALWAYS_INLINE)(_long_chain)
_plain = njit(cache=False, error_model="numpy")(_long_chain)


@njit(cache=False, error_model="numpy")
def _loop_inlined(x, out):
    for i in range(x.size):
        out[i] = _inlined(x[i])


@njit(cache=False, error_model="numpy")
def _loop_plain(x, out):
    for i in range(x.size):
        out[i] = _plain(x[i])


def test_marked_function_is_inlined_and_vectorised():
    x = np.random.default_rng(0).uniform(-1, 1, 1000)
    got, want = np.empty_like(x), np.empty_like(x)
    _loop_inlined(x, got)
    _loop_plain(x, want)
    np.testing.assert_array_equal(got, want)
    inlined = _loop_inlined.inspect_llvm(_loop_inlined.signatures[0])
    plain = _loop_plain.inspect_llvm(_loop_plain.signatures[0])
    # (the control: LLVM's own inliner leaves the long chain a call, and the loop scalar)
    assert re.search(r"call [^\n]*_long_chain", plain)
    assert not re.search(r"call [^\n]*_long_chain", inlined)
    assert re.search(r"fmul [^\n]*<\d+ x double>", inlined)
