"""The operator library: every op fusejit runs, keyed by schema, with a NumPy reference body.

The contract the interpreter, the lowering and the fusion tests code against::

    from fusejit.runtime.ops import make_operation, has_operation, OPS
    op = make_operation(node)   # an Operation bound to the node (its attributes, e.g. the
                                #   chunks/dim of a prim::ConstantChunk)
    outs = op(*args)            # args: the node's input values in order; a tuple with one value
                                #   per node output
    has_operation(node)         # False for nodes the interpreter runs itself (prim::Constant, If,
                                #   Loop, FusionGroup and other Subgraph nodes, PythonOp, fork,
                                #   aten::wait, Param, Return, Load, Store, Drop) and unknown ops
    OPS                         # schema text (or prim kind) -> OpEntry(schema, numpy_body,
                                #   native_body=None, cupy_body=None, pure=True/False)

For example::

    %z : Float(2, 3) = aten::add(%x, %y, %alpha)
    make_operation(node)(x, y, 1)  ->  (x + y,)

``make_operation`` finds the entry through ``registry.find(node)`` (the first registered schema
the node matches) or, for ``prim::`` kinds, by kind; when nothing matches it raises
``fusejit.SchemaError`` naming the kind, the input types and the known overloads.

Run-time values: tensors are ``np.ndarray`` (a 0-dim result is a 0-dim array, never a NumPy
scalar); scalars are Python ``int``/``float``/``bool``; lists ``list``; tuples ``tuple``; None.
Views stay views (``t``, ``view``, ``select``, ``expand``, ``chunk``), so an in-place op through a
view is seen in its base. Bodies never mutate inputs, except the in-place ops (``pure=False``).
A failing body raises an ordinary exception with PyTorch's message; the interpreter wraps it
with the node and its source location.

Modules: ``table`` (OpEntry, binding), ``pointwise`` (the fuser's simple maps), ``tensor``
(views, reductions, mm, chunking), ``scalar`` (int/float/bool arithmetic), ``prims`` (lists,
tuples, exceptions).
"""

from __future__ import annotations

from . import grad_ops, numpy_ops, pointwise, prims, scalar, tensor  # noqa: F401  (each fills OPS)
from .table import (
    INTERPRETER_KINDS,
    OPS,
    OpEntry,
    Operation,
    find_entry,
    has_operation,
    make_operation,
)

__all__ = ["INTERPRETER_KINDS", "OPS", "OpEntry", "Operation", "find_entry", "has_operation",
           "make_operation"]
