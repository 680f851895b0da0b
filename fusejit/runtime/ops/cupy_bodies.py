"""Binding device bodies to nodes: the CUDA path's ``make_operation``.

Each tensor overload's device body (``cupy_body``) is in ``fusejit.oplib.device``; this module
binds it to a node with the array module ``xp`` (CuPy on a GPU, NumPy under the simulator)::

    make_device_operation(node, cupy)(x)     # aten::t: x.T, on the device

An op with no device body runs its NumPy body on the CuPy arrays (``_through_numpy``): NumPy's
functions and ufuncs hand CuPy arrays to CuPy's own (NEP 18 and ``__array_ufunc__``), and CuPy
refuses to be converted to a NumPy array, so the body either runs on the device or fails;
it never copies an input to the host. A failure is an error naming the op. An array the body
makes from numbers alone (``aten::zeros``, ``aten::arange``) is copied to the device.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...oplib.table import Operation, find_entry, make_operation


def is_host_only(entry) -> bool:
    """True for entries that never see a tensor (scalar arithmetic, lists, tuples, prims on
    sizes): their reference body runs unchanged next to device tensors."""
    text = entry.schema
    if "(" not in text:
        return text in _HOST_PRIMS
    return "Tensor" not in text and "Scalar" not in text.split("->")[0]


# prim:: kinds without a schema whose bodies only move Python values around.
_HOST_PRIMS = frozenset({
    "prim::BroadcastSizes", "prim::ChunkSizes", "prim::ListConstruct", "prim::ListUnpack",
    "prim::TupleConstruct", "prim::TupleUnpack", "prim::TupleIndex", "prim::RaiseException",
    "prim::Uninitialized", "prim::unchecked_unwrap_optional", "prim::Print",
    "prim::TupleSlice", "prim::unchecked_cast", "prim::max", "prim::min", "prim::abs",
})


def make_device_operation(node, xp) -> Operation:
    """``node`` bound to its device body with ``xp`` as the array module, or, for an op with
    none, to its NumPy body run on the device arrays (never a hidden host copy)."""
    entry = find_entry(node)
    if entry is None or entry.cupy_body is None:
        if entry is not None and is_host_only(entry):
            return make_operation(node)
        if xp.__name__ == "numpy" or entry is None:
            # Under the simulator the reference body is the device body (and an unknown op
            # raises the table's "no operation for" error).
            return make_operation(node)
        return _through_numpy(make_operation(node), xp)
    reference = make_operation(node)       # binds the node's attributes the same way
    bound = reference.fn.keywords if isinstance(reference.fn, functools.partial) else {}
    fn = functools.partial(entry.cupy_body, xp, **bound)
    return Operation(entry, node.kind, fn, len(node.outputs))


def _through_numpy(reference: Operation, xp) -> Operation:
    """``reference`` (a NumPy body) run on device arrays, its NumPy array outputs copied to the
    device, and any failure raised as an error naming the op."""
    schema, body = reference.entry.schema, reference.fn

    def run(*args: Any) -> Any:
        try:
            result = body(*args)
        except Exception as error:  # noqa: BLE001 - NumPy's and Numba's refusals vary
            raise RuntimeError(f"{schema} has no CuPy body, and its NumPy body failed on "
                               f"CuPy arrays ({type(error).__name__}: {error}); add one in "
                               f"fusejit/oplib/device.py") from error
        return _on_device(result, xp)

    return Operation(reference.entry, reference.kind, run, reference.num_outputs)


def _on_device(value: Any, xp) -> Any:
    if type(value) is np.ndarray:
        return xp.asarray(value)
    if type(value) in (tuple, list):
        return type(value)(_on_device(v, xp) for v in value)
    return value
