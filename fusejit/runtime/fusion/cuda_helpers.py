"""Device functions that generated CUDA kernels call, the ``h.`` of a ``@cuda.jit`` kernel.

The CUDA template renders the same op table as the CPU one; where the CPU text names a NumPy
ufunc or a ``helpers`` function, the CUDA text names the function of the same name here::

    %3 : Float(*) = aten::trunc(%1)            ->   t3 = np.float32(h.trunc(a0))
    %4 : Float(*) = aten::remainder(%1, %2)    ->   t4 = np.float32(h.remainder_f(a0, a1))

On a device the rounding functions and ``fmod`` are libdevice's (``math.trunc`` on a float32
is ``truncf`` there); the multi-line helpers are ``helpers``' own Python bodies compiled for
the device, so both targets share one definition of each op's semantics. Under Numba's
simulator (``NUMBA_ENABLE_CUDASIM=1``) kernels are plain Python over NumPy scalars, where
``math.trunc`` would return a Python int and ``libdevice`` does not run, so the five
primitives (and cbrt) are NumPy's there. Importing this module imports ``numba.cuda``: only
CUDA kernel modules do.
"""

from __future__ import annotations

import math

import numpy as np
from numba import config, cuda

from . import helpers

_device = cuda.jit(device=True)

if config.ENABLE_CUDASIM:
    @_device
    def trunc(x):
        return np.trunc(x)

    @_device
    def floor(x):
        return np.floor(x)

    @_device
    def ceil(x):
        return np.ceil(x)

    @_device
    def rint(x):
        return np.rint(x)

    @_device
    def fmod(a, b):
        return np.fmod(a, b)

    @_device
    def cbrt_f32(x):
        return np.cbrt(x)

    cbrt_f64 = cbrt_f32
else:  # pragma: no cover - needs a CUDA device
    from numba.cuda import libdevice

    # float32 arguments get the float32 functions (truncf, fmodf); rint in float64 is exact
    # for a float32 argument, so the caller's cast back loses nothing.
    @_device
    def trunc(x):
        return math.trunc(x)

    @_device
    def floor(x):
        return math.floor(x)

    @_device
    def ceil(x):
        return math.ceil(x)

    @_device
    def rint(x):
        return libdevice.rint(x)

    @_device
    def fmod(a, b):
        return math.fmod(a, b)

    @_device
    def cbrt_f32(x):
        return libdevice.cbrtf(x)

    @_device
    def cbrt_f64(x):
        return libdevice.cbrt(x)


@_device
def remainder_f(a, b):
    """Python-style float modulus (the divisor's sign), as ``helpers.remainder_f``."""
    m = fmod(a, b)
    if m != 0 and (b < 0) != (m < 0):
        m += b
    return m


remainder_i = _device(helpers.remainder_i.py_func)
fmod_i = _device(helpers.fmod_i.py_func)
floor_divide_i = _device(helpers.floor_divide_i.py_func)
floor_divide_f = _device(helpers.floor_divide_f.py_func)
pow_i = _device(helpers.pow_i.py_func)
maximum_f = _device(helpers.maximum_f.py_func)
minimum_f = _device(helpers.minimum_f.py_func)
clamp = _device(helpers.clamp.py_func)
pow_half = _device(helpers.pow_half.py_func)
lerp = _device(helpers.lerp.py_func)
sigmoid = _device(helpers.sigmoid.py_func)
