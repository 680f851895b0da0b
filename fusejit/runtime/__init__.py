"""Running graphs: the operator table, lowering to Code, interpreters, fused kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..oplib import pointwise as _pointwise
from ..oplib import tensor as _tensor_ops


def _output_pool(dtype: np.dtype, *operands: Any) -> np.ndarray | None:
    """The host ops' big results come from the kernel outputs' pool (``fusion/outputs.py``,
    imported on the first big result: the fused-kernel runtime is not loaded before)."""
    from .fusion.outputs import out_for

    return out_for(dtype, *operands)


def _new_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``np.empty`` for the host's ``aten::empty``/``empty_like``, from the same pool."""
    from .fusion.outputs import take

    return take(shape, dtype)


def _host_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The interpreters' host ``aten::mm``/``matmul``: ``blas.matmul``, which picks BLAS threads
    by the rule compiled products follow (imported on the first product, not with the package).
    Installed here, with the runtime package, so that every host product follows the one rule
    whichever module of the runtime a program imported first. The first call puts
    ``blas.matmul`` itself in its place (an import statement a call cost ~0.3 us)."""
    from .blas import matmul

    _tensor_ops.HOST_PRODUCT[:] = [matmul]
    return matmul(a, b)


_pointwise.OUTPUT_POOL[:] = [_output_pool]
_pointwise.NEW_ARRAY[:] = [_new_array]
_tensor_ops.HOST_PRODUCT[:] = [_host_product]
