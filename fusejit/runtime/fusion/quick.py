"""A kernel's quick call: the call it made last, repeated for inputs exactly like those.

A warm call of ``FusedKernel`` or ``RowKernel`` builds its signature key (thread count; each
array's dtype, shape and strides), looks up what its first call found (``compiler._Call``),
turns each input into the argument its kernel reads, asks the plan how to launch and calls
the compiled entry point: 3-4 us of Python on one core, as much as NumPy's reduction of 10^4
elements takes in all. Where the plan runs serially whatever the machine's load (its work is
below the parallel threshold, and it has no split for free cores), all of that but the
allocation of the outputs is the same at every call of the signature, and a function written
for it does the rest::

    def quick(inputs):                       # a (10, 1000) float32 row reduction
        if len(inputs) != 1 or THREADS[0] != 1:
            return None
        a0, = inputs
        if type(a0) is not NDARRAY or a0.dtype is not D0 or a0.shape != S0 \\
                or a0.strides != T0:
            return None                      # (another signature: the kernel's full path)
        o0 = ALLOC0(S_0, D_0)                # np.empty, or the output pool's take
        ENTRY(H0, H1, H2, H3, a0.reshape(-1), o0, STATUS)
        return (o0,)

It tests what the key holds, dtypes by identity (an equal dtype of another identity takes
the full path), so every input it passes is what the first call's checks passed. Kernels that
can set their status flag (integer division), and plans that may run in parallel, have none.
Every value it uses is a global of the generated text, so no user text enters it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import plan as plans

_count = itertools.count()


def quick_call(call: Any, inputs: tuple, head: tuple | None) -> Callable[[tuple], Any] | None:
    """The quick call of ``call`` (a ``compiler._Call`` its kernel just ran on ``inputs``,
    through its serial entry point), whose arguments before the data are ``head`` (None: its
    plan may run in parallel): None where it has none."""
    from .compiler import (
        _AS_BOOL,
        _AS_FLOAT,
        _AS_INT,
        _AS_IS,
        _DENSE,
        _NO_STATUS,
        _SELF,
        _VIEW,
        _flat,
    )
    from .outputs import take_all

    entry = call.entries[True]
    if head is None or entry is None or call.variant.guarded or not call.steps:
        return None
    names: dict[str, Any] = {"NDARRAY": np.ndarray, "THREADS": plans._threads,
                             "ENTRY": entry, "FLAT": _flat, "NP": np, "STATUS": _NO_STATUS}
    n = len(inputs)
    lines = ["def quick(inputs):",
             f"    if len(inputs) != {n} or THREADS[0] != {int(plans.num_threads())}:",
             "        return None",
             f"    {''.join(f'a{i}, ' for i in range(n))}= inputs"]
    data = {}
    for pos, how in call.steps:
        x, a = inputs[pos], f"a{pos}"
        if type(x) is np.ndarray:
            names[f"D{pos}"], names[f"S{pos}"], names[f"T{pos}"] = x.dtype, x.shape, x.strides
            lines += [f"    if type({a}) is not NDARRAY or {a}.dtype is not D{pos} or "
                      f"{a}.shape != S{pos} or {a}.strides != T{pos}:",
                      "        return None"]
            data[pos] = (a if how == _SELF else f"{a}.reshape(-1)" if how == _VIEW else
                         f"{a}.ravel('K')" if how == _DENSE and 0 not in x.strides else
                         f"{a}[{(0,) * how}].reshape(-1)" if how > 0 else
                         f"FLAT({a}, {how}, NP)")
            continue
        names[f"K{pos}"] = type(x)
        lines += [f"    if type({a}) is not K{pos}:", "        return None"]
        if how == _AS_IS:
            data[pos] = a
        elif how == _AS_INT:
            lines += [f"    {a} = int({a})",
                      f"    if not {-(1 << 63)} <= {a} <= {(1 << 63) - 1}:",
                      "        return None"]     # (the full path's error)
            data[pos] = a
        elif how in (_AS_FLOAT, _AS_BOOL):
            data[pos] = f"{'float' if how == _AS_FLOAT else 'bool'}({a})"
        else:
            return None
    outs = []
    for j, (shape, dtype) in enumerate(zip(call.out_shapes, call.out_dtypes)):
        names[f"ALLOC{j}"] = take_all if call.pooled else np.empty
        names[f"S_{j}"], names[f"D_{j}"] = tuple(shape), np.dtype(dtype)
        lines.append(f"    o{j} = ALLOC{j}(S_{j}, D_{j})")
        outs.append(f"o{j}" if call.flat_outs is None else f"o{j}.reshape(-1)")
    for k, value in enumerate(head):
        names[f"H{k}"] = value
    args = [*(f"H{k}" for k in range(len(head))), *(data[pos] for pos, _how in call.steps),
            *outs, "STATUS"]
    results = [f"o{j}" for j in range(len(outs))]
    turns = getattr(call.plan, "out_axes", None)     # (a row kernel's plan has none)
    if turns is not None:
        # (outputs allocated in memory order, returned in their own shapes: plan.py)
        for j, axes in enumerate(turns):
            names[f"A_{j}"] = axes
            results[j] = f"o{j}.transpose(A_{j})"
    lines += [f"    ENTRY({', '.join(args)})",
              f"    return ({''.join(f'{r}, ' for r in results)})"]
    text = "\n".join(lines) + "\n"
    exec(compile(text, f"<fusejit quick kernel call {next(_count)}>", "exec"), names)
    return names["quick"]


__all__ = ["quick_call"]
