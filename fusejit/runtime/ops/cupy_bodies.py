"""Binding device bodies to nodes: the CUDA path's ``make_operation``.

Each tensor overload's device body (``cupy_body``) is in ``fusejit.oplib.device``; this module
binds it to a node with the array module ``xp`` (CuPy on a GPU, NumPy under the simulator), or
makes an operation that raises a clear error when the op has no device body (never a hidden
host copy)::

    make_device_operation(node, cupy)(x)     # aten::t: x.T, on the device
"""

from __future__ import annotations

import functools
from typing import Any

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
    """``node`` bound to its device body with ``xp`` as the array module, or an operation that
    raises a clear error when the op has no device body (never a hidden host copy)."""
    entry = find_entry(node)
    if entry is None or entry.cupy_body is None:
        if entry is not None and is_host_only(entry):
            return make_operation(node)
        if xp.__name__ == "numpy":
            # Under the simulator the reference body is the device body.
            return make_operation(node)
        return _missing(node, entry)
    reference = make_operation(node)       # binds the node's attributes the same way
    bound = reference.fn.keywords if isinstance(reference.fn, functools.partial) else {}
    fn = functools.partial(entry.cupy_body, xp, **bound)
    return Operation(entry, node.kind, fn, len(node.outputs))


def _missing(node, entry) -> Operation:
    if entry is None:
        return make_operation(node)         # raises the table's "no operation for" error

    def missing(*args: Any) -> Any:
        raise RuntimeError(f"{entry.schema} has no CuPy body: running it on the GPU would copy "
                           "its inputs to the host (add one in fusejit/oplib/"
                           "device.py)")

    return Operation(entry, node.kind, missing, len(node.outputs))
