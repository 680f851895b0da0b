"""Non-pointwise tensor ops: shapes and views, reductions, matrix products, chunking.

::

    %v : Float(2, 6) = aten::view(%x, %shape)             a view: writes through it reach %x
    %a, %b = prim::ConstantChunk[chunks=2, dim=1](%x)     chunk sizes ceil(n / chunks), last smaller
    %r : int[], %l : int[] = prim::ChunkSizes[dim=1, chunks=2](%sizes)
    %s : Float(1, 6) = aten::sum(%x, %dims, %keepdim, %dtype)

Views stay views as in PyTorch (``t``, ``view``, ``select``, ``expand``, ``chunk``,
``broadcast_tensors``, ``reshape`` when it can); ``view`` of strides it cannot express is an
error, as PyTorch's is. ``expand`` returns NumPy's read-only broadcast view, so writing into an
expanded tensor fails instead of silently writing one element many times.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..errors import ShapeMismatch
from ..ir.types import BoolType, FloatType, IntType, Type
from .dtypes import DEFAULT_FLOAT, category, promote_types
from .scalar import to_int64
from .table import as_tensor, dtype_of_code, register, wrap_dim

_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)


def _shape_text(shape: Any) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


# -- shapes and views -------------------------------------------------------------------------

def infer_size(shape: list[int], numel: int) -> tuple[int, ...]:
    """``shape`` with its one ``-1`` resolved so that the element count is ``numel``."""
    known, infer, inferred, lowest = 1, 0, -1, 0
    for i, s in enumerate(shape):    # (one loop: this runs for every reshape a plan makes)
        if s == -1:
            infer += 1
            inferred = i
        else:
            known *= s
            lowest = min(lowest, s)
    if infer > 1:
        raise RuntimeError("only one dimension can be inferred")
    if lowest < 0:
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if infer:
        if known == 0 or numel % known != 0:
            raise ShapeMismatch(f"shape '{_shape_text(shape)}' is invalid for input of size "
                               f"{numel}")
        sizes = list(shape)
        sizes[inferred] = numel // known
        return tuple(sizes)
    if known != numel:
        raise ShapeMismatch(f"shape '{_shape_text(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view(self: np.ndarray, size: list[int]) -> np.ndarray:
    shape = infer_size(size, self.size)
    try:
        return np.reshape(self, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None


def _reshape(self: np.ndarray, shape: list[int]) -> np.ndarray:
    if len(shape) == 1 and shape[0] == -1 and type(self) is np.ndarray:
        return self.reshape(-1)    # (x.ravel(), the usual case: ~1 us less than the checks)
    return np.reshape(self, infer_size(shape, self.size))  # a view when possible, else a copy


def _t(self: np.ndarray) -> np.ndarray:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return self.T


def _select(self: np.ndarray, dim: int, index: int) -> np.ndarray:
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_shape_text(self.shape)} at dimension {dim}")
    # the trailing Ellipsis keeps a 0-dim result a view instead of a NumPy scalar
    return self[(slice(None),) * dim + (index, Ellipsis)]


def _expand(self: np.ndarray, size: list[int], implicit: bool = False) -> np.ndarray:
    if len(size) < self.ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({len(size)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({self.ndim})")
    lead = len(size) - self.ndim
    target = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target.append(s)
            continue
        have = self.shape[i - lead]
        if s == -1:
            s = have
        elif have != 1 and s != have:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({have}) at non-singleton dimension {i}.  Target sizes: "
                               f"{_shape_text(size)}.  Tensor sizes: {_shape_text(self.shape)}")
        target.append(s)
    return np.broadcast_to(self, tuple(target))


def _contiguous(self: np.ndarray, memory_format: int = 0) -> np.ndarray:
    return self if self.flags.c_contiguous else np.array(self, order="C")


def _size(self: np.ndarray) -> list[int]:
    return list(self.shape)      # (NumPy's sizes are Python ints)


def _size_dim(self: np.ndarray, dim: int) -> int:
    return int(self.shape[wrap_dim(dim, self.ndim)]) if self.ndim else _size_0dim(dim)


def _size_0dim(dim: int) -> int:
    raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


register("aten::view(Tensor(a) self, int[] size) -> Tensor(a)", _view)
register("aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)", _reshape)
register("aten::t(Tensor(a) self) -> Tensor(a)", _t)
register("aten::select(Tensor(a) self, int dim, int index) -> Tensor(a)", _select)
register("aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)", _expand)
register("aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
         _contiguous)
register("aten::size(Tensor self) -> int[]", _size)
register("aten::size(Tensor self, int dim) -> int", _size_dim)
register("aten::dim(Tensor self) -> int", lambda self: int(self.ndim))
register("aten::numel(Tensor self) -> int", lambda self: int(self.size))


# -- broadcasting and size lists --------------------------------------------------------------

def broadcast_sizes(*sizes: list[int]) -> list[int]:
    """The broadcast of several shapes (PyTorch's infer_size), an error if incompatible."""
    rank = max((len(s) for s in sizes), default=0)
    result = [1] * rank
    for shape in sizes:
        for i, s in enumerate(shape, start=rank - len(shape)):
            if result[i] == 1:
                result[i] = s
            elif s != 1 and s != result[i]:
                raise ShapeMismatch(f"The size of tensor a ({result[i]}) must match the size of "
                                   f"tensor b ({s}) at non-singleton dimension {i}")
    return [int(s) for s in result]


def _broadcast_tensors(tensors: list[np.ndarray]) -> list[np.ndarray]:
    shape = tuple(broadcast_sizes(*(t.shape for t in tensors)))
    same = 1 not in shape    # (broadcast_to zeroes the strides of size-1 dimensions)
    return [_read_only_view(t) if same and t.shape == shape else np.broadcast_to(t, shape)
            for t in tensors]


def _read_only_view(t: np.ndarray) -> np.ndarray:
    """What ``np.broadcast_to(t, t.shape)`` gives (no size-1 dimensions), at a fifth of its
    cost: a read-only view with t's strides."""
    view = t.view(np.ndarray)
    view.flags.writeable = False
    return view


def _broadcast_sizes_prim(*sizes: list[int]) -> list[int]:
    return broadcast_sizes(*sizes)


register("aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]", _broadcast_tensors)
register("prim::BroadcastSizes", _broadcast_sizes_prim)


# -- chunking ---------------------------------------------------------------------------------

def chunk_sizes(dim_size: int, chunks: int) -> list[int]:
    """Sizes of ``chunk(chunks)`` along a dimension of ``dim_size``: ceil(n / chunks) each, the
    last smaller, and fewer pieces than asked when they run out (5 in 4 -> [2, 2, 1])."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    split = (dim_size + chunks - 1) // chunks
    if split == 0:  # an empty dimension still gives `chunks` empty pieces
        return [0] * chunks
    count = max((dim_size + split - 1) // split, 1)
    return [split] * (count - 1) + [dim_size - split * (count - 1)]


def chunk(self: np.ndarray, chunks: int, dim: int = 0) -> list[np.ndarray]:
    """PyTorch's ``chunk``: views of ``self`` along ``dim``."""
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, self.ndim)
    pieces, start = [], 0
    lead = (slice(None),) * dim
    for size in chunk_sizes(self.shape[dim], chunks):
        pieces.append(self[lead + (slice(start, start + size),)])
        start += size
    return pieces


def _constant_chunk(self: np.ndarray, *, chunks: int, dim: int,
                    outputs_used: tuple[bool, ...]) -> tuple:
    pieces = chunk(self, chunks, dim)
    if len(pieces) > len(outputs_used):
        raise RuntimeError(f"Expected chunk to return {len(outputs_used)} outputs, but got "
                           f"{len(pieces)}")
    # Fewer pieces than outputs is fine while the missing ones are never read.
    for i in range(len(pieces), len(outputs_used)):
        if outputs_used[i]:
            raise RuntimeError(f"Expected chunk to return at least {len(outputs_used)} outputs, "
                               f"but got {len(pieces)}")
    return tuple(pieces) + (None,) * (len(outputs_used) - len(pieces))


def _broadcasting_chunk(*tensors: np.ndarray, chunks: int, dim: int) -> tuple:
    # x0, x1, y0, y1 = BroadcastingChunk[chunks=2](x, y): every input's chunks in turn
    outs: list[np.ndarray] = []
    for t in _broadcast_tensors(list(tensors)):
        pieces = chunk(t, chunks, dim)
        if len(pieces) != chunks:
            raise RuntimeError(f"Expected chunk to return {chunks} outputs, but got "
                               f"{len(pieces)}")
        outs.extend(pieces)
    return tuple(outs)


def _chunk_sizes_prim(size: list[int], *, dim: int, chunks: int) -> tuple[list[int], list[int]]:
    """(regular chunk shape, last chunk shape) of a tensor of shape ``size``."""
    dim = wrap_dim(dim, len(size))
    pieces = chunk_sizes(size[dim], chunks)
    regular, last = list(size), list(size)
    regular[dim], last[dim] = pieces[0], pieces[-1]
    return regular, last


register("aten::chunk(Tensor(a) self, int chunks, int dim=0) -> Tensor(a)[]", chunk)
register("prim::ConstantChunk", _constant_chunk, multiple=True,
         binds=("chunks", "dim", "outputs_used"))
register("prim::BroadcastingChunk", _broadcasting_chunk, multiple=True, binds=("chunks", "dim"))
register("prim::ChunkSizes", _chunk_sizes_prim, multiple=True, binds=("dim", "chunks"))


# -- joining ----------------------------------------------------------------------------------

def _join_dtype(tensors: list[np.ndarray]) -> np.dtype:
    first = tensors[0].dtype
    if all(t.dtype is first for t in tensors) and first.isnative:
        return first      # (the common case, without a promotion per tensor)
    return functools.reduce(promote_types, (t.dtype for t in tensors))


def _cat(tensors: list[np.ndarray], dim: int = 0) -> np.ndarray:
    if tensors:
        # (arrays of one native dtype and rank: NumPy's concatenate as it is, ~2 us less;
        # where it refuses them, the checks below give PyTorch's error)
        first = tensors[0]
        rank, dtype = first.ndim, first.dtype
        if rank and -rank <= dim < rank and dtype.isnative and all(
                type(t) is np.ndarray and t.ndim == rank and t.dtype is dtype for t in tensors):
            try:
                return np.concatenate(tensors, axis=dim)
            except ValueError:
                pass
    else:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    dtype = _join_dtype(tensors)
    # PyTorch still skips legacy empty 1-D tensors of shape (0,)
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    for i, t in enumerate(kept):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    dim = wrap_dim(dim, kept[0].ndim)
    first = kept[0]
    for i, t in enumerate(kept):
        if t.shape != first.shape and (t.ndim != first.ndim or any(a != b for d, (a, b) in
                                       enumerate(zip(t.shape, first.shape)) if d != dim)):
            raise ShapeMismatch(f"Sizes of tensors must match except in dimension {dim}. "
                               f"Expected {_shape_text(first.shape)} but got "
                               f"{_shape_text(t.shape)} for tensor number {i} in the list.")
    return np.concatenate([t.astype(dtype, copy=False) for t in kept], axis=dim)


def _stack(tensors: list[np.ndarray], dim: int = 0) -> np.ndarray:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    if type(first) is np.ndarray and dim in (0, -first.ndim - 1):
        # (arrays of one dtype and shape along a new first axis, the common case: np.array
        # builds it in ~0.2-0.8 us where np.stack takes 2-3)
        shape, dtype = first.shape, first.dtype
        if all(type(t) is np.ndarray and t.dtype is dtype and t.shape == shape
               for t in tensors):
            return np.array(tensors)
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise ShapeMismatch(f"stack expects each tensor to be equal size, but got "
                               f"{_shape_text(tensors[0].shape)} at entry 0 and "
                               f"{_shape_text(t.shape)} at entry {i}")
    dtype = _join_dtype(tensors)
    dim = wrap_dim(dim, tensors[0].ndim + 1)
    return np.stack([t.astype(dtype, copy=False) for t in tensors], axis=dim)


def _fused_concat(*tensors: np.ndarray, dim: int) -> np.ndarray:
    return _cat(list(tensors), dim)


register("aten::cat(Tensor[] tensors, int dim=0) -> Tensor", _cat)
register("aten::stack(Tensor[] tensors, int dim=0) -> Tensor", _stack)
register("prim::FusedConcat", _fused_concat, binds=("dim",))


# -- reductions -------------------------------------------------------------------------------

def _sum_dtype(x: np.ndarray, dtype: int | None) -> np.dtype:
    if dtype is not None:
        return dtype_of_code(dtype)
    return x.dtype if x.dtype.kind == "f" else _INT64  # ints and bools sum to int64


def _reduce_dims(dims: list[int] | None, rank: int) -> tuple[int, ...]:
    if not dims:  # None or [] reduce every dimension
        return tuple(range(rank))
    wrapped = [wrap_dim(d, rank) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(wrapped)


def _summed(x, out: np.dtype):
    """What ``sum`` adds up in ``out``: integers and bools as they are (NumPy widens each one
    to int64 as it adds it; an int64 copy first made int32 sums 3-4x slower than NumPy's),
    other inputs cast to ``out`` first."""
    return x if x.dtype.kind in "biu" and out == _INT64 else x.astype(out, copy=False)


def _sum_all(self: np.ndarray, dtype: int | None = None) -> np.ndarray:
    if dtype is None and type(self) is np.ndarray and self.dtype.kind == "f":
        # (what np.sum runs for an ndarray, without its ~1 us of Python)
        return as_tensor(np.add.reduce(self, axis=None, dtype=self.dtype))
    out = _sum_dtype(self, dtype)
    return as_tensor(np.sum(_summed(self, out), dtype=out))


def _sum_dims(self: np.ndarray, dim: list[int] | None, keepdim: bool = False,
              dtype: int | None = None) -> np.ndarray:
    out = _sum_dtype(self, dtype)
    axes = _reduce_dims(dim, self.ndim)
    if self.ndim == 0:
        return as_tensor(self.astype(out))
    if type(self) is np.ndarray and self.dtype is out:
        return as_tensor(np.add.reduce(self, axis=axes, keepdims=keepdim, dtype=out))
    return as_tensor(np.sum(_summed(self, out), axis=axes, keepdims=keepdim, dtype=out))


def sum_to_size(x: np.ndarray, size: list[int]) -> np.ndarray:
    """Sum ``x`` down to ``size`` (the inverse of broadcasting it), as autograd does."""
    lead = x.ndim - len(size)
    if lead < 0 or any(s not in (1, x.shape[lead + i]) for i, s in enumerate(size)):
        raise RuntimeError(f"size {_shape_text(size)} is not expandable to size "
                           f"{_shape_text(x.shape)}")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and x.shape[lead + i] != 1)
    if not axes:
        return x
    # (np.sum is add.reduce for floats, behind ~2 us of Python; other dtypes it promotes)
    reduced = np.add.reduce(x, axis=axes, keepdims=True) if x.dtype.kind == "f" else \
        np.sum(x, axis=axes, keepdims=True)
    return as_tensor(reduced.reshape(tuple(size)))


def _grad_sum_to_size(self: np.ndarray, size: list[int] | None) -> np.ndarray:
    return self if size is None else sum_to_size(self, size)


def _size_if_not_equal(self_size: list[int], other_size: list[int]) -> list[int] | None:
    return None if list(self_size) == list(other_size) else list(self_size)


def _softmax(self: np.ndarray, dim: int, dtype: int | None = None) -> np.ndarray:
    x = self.astype(dtype_of_code(dtype), copy=False) if dtype is not None else self
    if category(x.dtype) != 2:
        raise RuntimeError(f"softmax is not implemented for {x.dtype} tensors")
    if x.ndim == 0:
        wrap_dim(dim, 0)
        return as_tensor(np.ones((), x.dtype))
    axis = wrap_dim(dim, x.ndim)
    if x.size == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return as_tensor(shifted / np.sum(shifted, axis=axis, keepdims=True))


register("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", _sum_all, ufunc=np.add,
         reduces=True)
register("aten::sum(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
         "-> Tensor", _sum_dims)
register("aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)", _grad_sum_to_size)
register("aten::_size_if_not_equal(int[] self_size, int[] other_size) -> int[]?",
         _size_if_not_equal)
register("aten::softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", _softmax)


# -- matrix products --------------------------------------------------------------------------

def _check_matmul_dtypes(a: np.ndarray, b: np.ndarray) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != "
                           f"{b.dtype}")


# The interpreters' host products. The runtime package (``runtime/__init__.py``) puts
# ``runtime.blas.matmul`` here, which picks BLAS threads as compiled products pick theirs;
# oplib imports nothing above it, so until then it is NumPy's own.
HOST_PRODUCT = [np.matmul]


def _host_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return HOST_PRODUCT[0](a, b)


def _mm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    if self.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self.shape[1] != mat2.shape[0]:
        raise ShapeMismatch(f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x"
                           f"{self.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    _check_matmul_dtypes(self, mat2)
    return _host_matmul(self, mat2)


def _matmul(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    if self.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{self.ndim}D and {other.ndim}D")
    _check_matmul_dtypes(self, other)
    return as_tensor(_host_matmul(self, other))


register("aten::mm(Tensor self, Tensor mat2) -> Tensor", _mm)
register("aten::matmul(Tensor self, Tensor other) -> Tensor", _matmul)


# -- tensors <-> numbers ----------------------------------------------------------------------

def _item(self: np.ndarray) -> bool | int | float:
    if self.size != 1:
        raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
    return self.reshape(()).item()


def _tensor_to_int(a: np.ndarray) -> int:
    # (a 0-d integer or bool array, a count: int() at once, 0.07 against 0.4 us; a float one
    # is checked finite and in range)
    if type(a) is np.ndarray and a.ndim == 0 and a.dtype.kind in "iub":
        return int(a)
    return to_int64(_item(a))


def _tensor_to_float(a: np.ndarray) -> float:
    if type(a) is np.ndarray and a.ndim == 0:
        return float(a)
    return float(_item(a))


def _tensor_to_bool(a: np.ndarray) -> bool:
    if type(a) is np.ndarray and a.ndim == 0:
        return bool(a)
    return bool(_item(a))


def _num_to_tensor(value: bool | int | float) -> np.ndarray:
    # Python scalars become 0-dim tensors of their own kind: bool, int64 or float64
    if isinstance(value, bool):
        return np.asarray(value, dtype=_BOOL)
    if isinstance(value, int):
        return np.asarray(value, dtype=_INT64)
    return np.asarray(value, dtype=np.float64)


def _implicit_tensor_to_num(a: np.ndarray, *, output_types: tuple[Type, ...]) -> Any:
    kind = output_types[0]
    if isinstance(kind, IntType):
        return _tensor_to_int(a)
    if isinstance(kind, FloatType):
        return _tensor_to_float(a)
    if isinstance(kind, BoolType):
        return _tensor_to_bool(a)
    return _item(a)


def _infer_list_dtype(data: Any) -> np.dtype:
    flat = np.asarray(data, dtype=object).ravel()
    if any(isinstance(v, float) for v in flat):
        return DEFAULT_FLOAT
    if flat.size and all(isinstance(v, bool) for v in flat):
        return _BOOL
    return _INT64 if flat.size else DEFAULT_FLOAT


def _tensor(data: list, dtype: int | None = None, device: Any = None,
            requires_grad: bool = False) -> np.ndarray:
    out = dtype_of_code(dtype) if dtype is not None else _infer_list_dtype(data)
    return np.array(data, dtype=out)


def _zeros_like(self: np.ndarray) -> np.ndarray:
    return np.zeros(self.shape, self.dtype)


def _ones_like(self: np.ndarray) -> np.ndarray:
    return np.ones(self.shape, self.dtype)


register("aten::item(Tensor self) -> Scalar", _item)
register("aten::Int(Tensor a) -> int", _tensor_to_int)
register("aten::Float(Tensor a) -> float", _tensor_to_float)
register("aten::Bool(Tensor a) -> bool", _tensor_to_bool)
register("prim::NumToTensor", _num_to_tensor)
register("prim::ImplicitTensorToNum", _implicit_tensor_to_num, binds=("output_types",))
register("aten::tensor(t[] data, *, ScalarType? dtype=None, Device? device=None, "
         "bool requires_grad=False) -> Tensor", _tensor)
register("aten::zeros_like(Tensor self) -> Tensor", _zeros_like)
register("aten::ones_like(Tensor self) -> Tensor", _ones_like)
