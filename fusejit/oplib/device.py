"""Device bodies: each tensor overload's ``cupy_body``, written against the array module ``xp``.

A device body takes the array module first, then the op's inputs, so the same text runs with
CuPy on a GPU and with NumPy under Numba's CUDA simulator (where NumPy arrays stand in for
device arrays)::

    %y : Float(4, 3) = aten::t(%x)            cupy_body(cupy, x)  ->  x.T (a device view)
    %z : Float(4, 5) = aten::mm(%a, %b)       cupy_body(cupy, a, b) -> cupy.matmul(a, b)

Many reference bodies only use array methods and NumPy functions that CuPy arrays dispatch to
their own module (``np.broadcast_to``, ``np.concatenate``: NEP 18); those are reused after
review and listed in ``_GENERIC``. The others get an ``xp`` body here. Ops with a kernel
renderer (``add``, ``exp``...) need none: outside fusion groups the device runs them as
one-node CUDA kernels. ``fusejit.runtime.ops.cupy_bodies`` binds these to nodes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import ShapeMismatch
from . import prims, tensor  # noqa: F401  (the overloads whose slots are filled here)
from .dtypes import category
from .table import OPS, wrap_dim

_INT64 = "int64"


def _view(xp, self, size: list[int]):
    if xp.__name__ == "numpy":
        return tensor._view(self, size)
    out = self.view()
    try:
        out.shape = tensor.infer_size(size, self.size)   # refuses where reshape would copy
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.") from None
    return out


def _reshape(xp, self, shape: list[int]):
    return self.reshape(tensor.infer_size(shape, self.size))


def _contiguous(xp, self, memory_format: int = 0):
    return self if self.flags.c_contiguous else xp.ascontiguousarray(self)


def _sum_dtype(self, dtype: int | None):
    if dtype is not None:
        return tensor.dtype_of_code(dtype)
    return self.dtype if category(self.dtype) == 2 else _INT64


def _sum_all(xp, self, dtype: int | None = None):
    out = _sum_dtype(self, dtype)
    return xp.asarray(xp.sum(tensor._summed(self, out), dtype=out))


def _sum_dims(xp, self, dim: list[int] | None, keepdim: bool = False,
              dtype: int | None = None):
    out = _sum_dtype(self, dtype)
    if self.ndim == 0:
        return self.astype(out)
    axes = tensor._reduce_dims(dim, self.ndim)
    return xp.asarray(xp.sum(tensor._summed(self, out), axis=axes, keepdims=keepdim,
                             dtype=out))


def _mm(xp, self, mat2):
    if self.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if self.ndim != 2 else "mat2 must be a matrix")
    if self.shape[1] != mat2.shape[0]:
        raise ShapeMismatch(f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x"
                           f"{self.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    tensor._check_matmul_dtypes(self, mat2)
    return xp.matmul(self, mat2)


def _matmul(xp, self, other):
    if self.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{self.ndim}D and {other.ndim}D")
    tensor._check_matmul_dtypes(self, other)
    return xp.asarray(xp.matmul(self, other))


def _broadcast_tensors(xp, tensors: list) -> list:
    return list(xp.broadcast_arrays(*tensors))


def _broadcasting_chunk(xp, *tensors, chunks: int, dim: int) -> tuple:
    outs: list = []
    for t in xp.broadcast_arrays(*tensors):
        pieces = tensor.chunk(t, chunks, dim)
        if len(pieces) != chunks:
            raise RuntimeError(f"Expected chunk to return {chunks} outputs, but got "
                               f"{len(pieces)}")
        outs.extend(pieces)
    return tuple(outs)


def _sum_to_size(xp, self, size: list[int] | None):
    if size is None:
        return self
    lead = self.ndim - len(size)
    if lead < 0 or any(s not in (1, self.shape[lead + i]) for i, s in enumerate(size)):
        raise RuntimeError(f"size {list(size)} is not expandable to size {list(self.shape)}")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and self.shape[lead + i] != 1)
    if not axes:
        return self
    return xp.sum(self, axis=axes, keepdims=True).reshape(tuple(size))


def _like(fill: int) -> Callable:
    def body(xp, self):
        return xp.full(self.shape, fill, self.dtype)
    return body


def _size_dim(xp, self, dim: int) -> int:
    if self.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return int(self.shape[wrap_dim(dim, self.ndim)])


_XP_BODIES: dict[str, Callable] = {
    "aten::view(Tensor(a) self, int[] size) -> Tensor(a)": _view,
    "aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)": _reshape,
    "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)":
        _contiguous,
    "aten::size(Tensor self, int dim) -> int": _size_dim,
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor": _sum_all,
    "aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor": _sum_dims,
    "aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)": _sum_to_size,
    "aten::mm(Tensor self, Tensor mat2) -> Tensor": _mm,
    "aten::matmul(Tensor self, Tensor other) -> Tensor": _matmul,
    "aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]": _broadcast_tensors,
    "prim::BroadcastingChunk": _broadcasting_chunk,
    "aten::zeros_like(Tensor self) -> Tensor": _like(0),
    "aten::ones_like(Tensor self) -> Tensor": _like(1),
}

# Reference bodies that touch arrays only through methods, indexing and NEP-18 functions.
_GENERIC = (
    "aten::t(Tensor(a) self) -> Tensor(a)",
    "aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)",
    "aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)",
    "aten::size(Tensor self) -> int[]",
    "aten::dim(Tensor self) -> int",
    "aten::numel(Tensor self) -> int",
    "aten::chunk(Tensor(a) self, int chunks, int dim=0) -> Tensor(a)[]",
    "prim::ConstantChunk",
    "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
    "aten::stack(Tensor[] tensors, int dim=0) -> Tensor",
    "prim::FusedConcat",
    "prim::dtype",
    # A tensor read as a number: the one device-to-host copy the program asks for.
    "aten::item(Tensor self) -> Scalar",
    "aten::Int(Tensor a) -> int",
    "aten::Float(Tensor a) -> float",
    "aten::Bool(Tensor a) -> bool",
)


def _generic(body: Callable) -> Callable:
    @functools.wraps(body)
    def run(xp, *args: Any, **kwargs: Any):
        return body(*args, **kwargs)
    return run


for _key, _body in _XP_BODIES.items():
    OPS[_key].cupy_body = _body
for _key in _GENERIC:
    OPS[_key].cupy_body = _generic(OPS[_key].numpy_body)
