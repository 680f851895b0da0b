"""Ops that backward graphs use beside the forward ones: the views a gradient is put back
through (``narrow``, ``transpose``; ``unsqueeze`` is in ``numpy_ops``) and the scatter of a
view's gradient into zeros (``select_backward``, ``slice_backward``), with PyTorch's schemas::

    %g : Tensor = aten::select_backward(%grad, %sizes, %dim, %index)
    # zeros of size %sizes, with %grad written at index %index of dimension %dim

Their derivatives are in ``fusejit/autodiff/rules.py``.
"""

from __future__ import annotations

import numpy as np

from .table import register, wrap_dim


def _transpose(self: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    rank = max(self.ndim, 1)
    return np.swapaxes(self, wrap_dim(dim0, rank), wrap_dim(dim1, rank)) if self.ndim else self


def _narrow(self: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    if start < 0:
        start += size
    if not (0 <= start <= size and 0 <= length <= size - start):
        raise IndexError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return self[(slice(None),) * dim + (slice(start, start + length), Ellipsis)]


def _select_backward(grad: np.ndarray, input_sizes: list[int], dim: int,
                     index: int) -> np.ndarray:
    out = np.zeros(tuple(input_sizes), dtype=grad.dtype)
    dim = wrap_dim(dim, len(input_sizes))
    out[(slice(None),) * dim + (index, Ellipsis)] = grad
    return out


def _slice_backward(grad: np.ndarray, input_sizes: list[int], dim: int, start: int, end: int,
                    step: int) -> np.ndarray:
    out = np.zeros(tuple(input_sizes), dtype=grad.dtype)
    dim = wrap_dim(dim, len(input_sizes))
    out[(slice(None),) * dim + (slice(start, end, step), Ellipsis)] = grad
    return out


register("aten::transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", _transpose)
register("aten::narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)", _narrow)
register("aten::select_backward(Tensor grad_output, int[] input_sizes, int dim, int index) "
         "-> Tensor", _select_backward)
register("aten::slice_backward(Tensor grad_output, int[] input_sizes, int dim, int start, "
         "int end, int step) -> Tensor", _slice_backward)
