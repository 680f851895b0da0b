"""How closely the fused paths must agree with the reference interpreter: the one table.

The generator marks every value *exact* or not. A value is exact when every op on its path is
one whose result IEEE 754 (or two's-complement integer arithmetic) fixes to the bit: ``+ - *
/``, ``sqrt``, ``abs``, ``neg``, ``relu``, ``max``/``min``, ``clamp``, ``where``, comparisons,
rounding (``floor ceil trunc round frac``), ``fmod``/``remainder`` and casts. Such values must
be bit-identical in every engine, NaN for NaN, in every dtype.

Everything else (exp, log, tanh, sigmoid, trig, pow, lerp, addcmul, atan2, erf, reductions
and mm) is *inexact*: NumPy's SIMD float32 functions, libm and the kernels' fast float32
exp/log/tanh/sigmoid (measured in ``runtime/fusion/fastmath.py``: at most a few ulp) may each
round differently, and sums and matrix products may add in a different order. Inexact values
are compared with ``|a - b| <= atol + rtol * |b|`` per element, NaN for NaN, inf for same inf:

    ================  =======  ========  =================================================
    dtype             rtol     atol      why
    ================  =======  ========  =================================================
    float32           2e-4     2e-5      a few ulp per op (eps 1.2e-7), chains of <= 12 ops
    float64           1e-9     1e-12     libm vs NumPy within 1 ulp, same chains
    ================  =======  ========  =================================================

Integers and bools are always exact: inexact float values never feed a discontinuous op
(rounding, comparison, remainder, a cast to an integer dtype, a ``where`` condition), so the
generator never makes an integer out of an inexact float. Integer overflow wraps (two's
complement) in every engine; integer ``remainder``/``fmod`` by zero raises a ``FusejitError`` in
every engine; float division by zero gives inf/NaN as IEEE says.
"""

from __future__ import annotations

import numpy as np

INEXACT = {np.dtype(np.float32): (2e-4, 2e-5), np.dtype(np.float64): (1e-9, 1e-12)}


def mismatch(expected: np.ndarray, got: np.ndarray, exact: bool) -> str | None:
    """Why ``got`` is not ``expected`` under the table above, or None when they agree."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.dtype != got.dtype:
        return f"dtype {got.dtype}, expected {expected.dtype}"
    if expected.shape != got.shape:
        return f"shape {got.shape}, expected {expected.shape}"
    if expected.dtype.kind != "f" or expected.size == 0:
        bad = expected != got
    else:
        nan = np.isnan(expected) & np.isnan(got)
        if exact or expected.dtype not in INEXACT:
            bad = ~nan & (expected != got)
        else:
            rtol, atol = INEXACT[expected.dtype]
            with np.errstate(invalid="ignore", over="ignore"):
                same_inf = np.isinf(expected) & (expected == got)
                close = np.abs(expected - got) <= atol + rtol * np.abs(expected)
            bad = ~(nan | same_inf | close)
    if not np.any(bad):
        return None
    where = tuple(int(i[0]) for i in np.nonzero(bad)) if bad.ndim else ()
    return (f"{int(np.count_nonzero(bad))} of {expected.size} elements differ"
            f"{' (exact)' if exact else ''}; first at {where}: got {got[where]!r}, "
            f"expected {expected[where]!r}")
