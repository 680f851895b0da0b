"""The operator library: one entry per op with everything fusejit knows about it.

``fusejit.oplib`` sits below ``passes/`` and ``runtime/`` and imports only ``fusejit.ir``,
``fusejit.errors`` and NumPy. The passes (constant propagation, shape rules, the fuser's
simple-map set) and the runtime (interpreters, kernel generators, device bodies) read their
op facts here; none of them keeps a table of its own::

    from fusejit.oplib import make_operation, has_operation, OPS
    op = make_operation(node)   # an Operation bound to the node (its attributes, e.g. the
                                #   chunks/dim of a prim::ConstantChunk)
    outs = op(*args)            # args: the node's input values in order; a tuple with one value
                                #   per node output
    has_operation(node)         # False for nodes the interpreter runs itself (prim::Constant, If,
                                #   Loop, FusionGroup and other Subgraph nodes, PythonOp, fork,
                                #   aten::wait, Param, Return, Load, Store, Drop) and unknown ops
    OPS                         # schema text (or prim kind) -> OpEntry

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

An op's entry (``OpEntry``, in ``ENTRIES`` by kind) holds its overloads (``Overload``: schema,
NumPy and device bodies, purity; in ``OPS`` by schema text) and, for the ops the graph fuser
takes, its simple-map schemas, dtype rule, kernel renderer and native body name. Adding a
pointwise op is one entry in one module, plus its tests.

Modules: ``table`` (entries, binding), ``dtypes`` (PyTorch's type promotion), ``render`` (what
a kernel renderer sees), the pointwise ops in ``unary``, ``binary`` and ``selection`` (helpers
in ``pointwise``), ``tensor`` (views, reductions, mm, chunking), ``numpy_ops`` (what
NumPy-spelled code needs beyond those), ``grad_ops`` (what backward graphs use), ``linalg_ops``
(factorisations, triangle indices), ``scalar``
(int/float/bool arithmetic), ``prims`` (lists, tuples, exceptions).
"""

from __future__ import annotations

from . import (  # noqa: F401  (each module fills the table)
    array_ops,
    binary,
    device,
    grad_ops,
    linalg_ops,
    numpy_ops,
    prims,
    scalar,
    selection,
    tensor,
    unary,
)
from .table import (
    ENTRIES,
    INTERPRETER_KINDS,
    OPS,
    OpEntry,
    Operation,
    Overload,
    find_entry,
    has_operation,
    make_operation,
)

__all__ = ["ENTRIES", "FUSIBLE", "INTERPRETER_KINDS", "KERNELS", "OPS", "OpEntry", "Operation",
           "Overload", "find_entry", "has_operation", "make_operation"]

# The ops a generated kernel can compute (kind -> entry with a renderer and a dtype rule), and
# among them the ones PyTorch's graph fuser takes as simple maps. The others run in kernels a
# custom fusion pass makes (``custom_fuse_graph``) and as one-node CUDA kernels.
KERNELS: dict[str, OpEntry] = {kind: op for kind, op in ENTRIES.items() if op.render}
FUSIBLE: dict[str, OpEntry] = {kind: op for kind, op in KERNELS.items() if op.fusible}
