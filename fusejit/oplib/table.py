"""The operator table: one ``OpEntry`` per op, one ``Overload`` per schema (or ``prim::`` kind),
and node binding.

The overload a node runs is found by the schema the node matches (``registry.find(node)``);
``prim::`` nodes have no fixed schema and are found by kind::

    %z : Float(3) = aten::add(%x, %y, %one)     -> OPS["aten::add(Tensor self, Tensor other, ...)"]
    %a, %b = prim::ConstantChunk[chunks=2, dim=0](%x)   -> OPS["prim::ConstantChunk"]

``make_operation(node)`` binds the overload to the node: the attributes it names in ``binds``
(``chunks``, ``dim``...) are read once from the node and passed to the body as keywords, so the
call at run time is just ``op(*inputs)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

try:
    from numpy.exceptions import AxisError
except ImportError:     # (NumPy 1.24)
    from numpy import AxisError

from ..errors import SchemaError
from ..ir.schema import registry
from ..ir.symbols import aten, prim

Body = Callable[..., Any]


class Overload:
    """One schema of an op (or one ``prim::`` kind) and its bodies.

    ``numpy_body(*inputs, **bound)`` is the reference implementation; ``cupy_body(xp, ...)``
    the device body, where the reference one does not serve (``oplib/device``).
    ``pure`` is False for ops that write into an argument, have side effects or are
    nondeterministic: constant propagation skips them. ``multiple`` says the body returns a
    tuple of all outputs (else it returns the one output). ``binds`` names what is read from the
    node when binding: attribute names, or the specials ``"num_outputs"``, ``"outputs_used"``
    and ``"output_types"``. ``derivative`` is the autodiff rule of this overload, filled in by
    ``fusejit.autodiff.rules`` (which sits above this package). ``ufunc`` is the NumPy ufunc
    that computes the overload exactly as its body does where every tensor operand already has
    the result dtype and every argument after the ufunc's operands has its schema default
    (``x + y`` of two float32 arrays is ``np.add(x, y)``); with ``reduces`` the overload is that
    ufunc's ``reduce`` over all axes (``x.max()``). ``runtime/direct.py`` calls it directly.
    """

    __slots__ = ("schema", "op", "numpy_body", "cupy_body", "pure", "multiple", "binds",
                 "derivative", "ufunc", "reduces")

    def __init__(self, schema: str, op: OpEntry, numpy_body: Body, pure: bool = True,
                 multiple: bool = False, binds: tuple[str, ...] = (), ufunc: Any = None,
                 reduces: bool = False):
        self.schema = schema
        self.op = op
        self.numpy_body = numpy_body
        self.cupy_body: Body | None = None
        self.pure = pure
        self.multiple = multiple
        self.binds = binds
        self.derivative: Body | None = None
        self.ufunc = ufunc
        self.reduces = reduces

    def __repr__(self) -> str:
        return f"Overload({self.schema!r}, pure={self.pure})"


class OpEntry:
    """Everything known about one op (one kind, such as ``aten::add``).

    - ``overloads``: its schemas, each with its NumPy (and device) body.
    - ``fuses``: the schemas under which the graph fuser takes it as a simple map, spelled as
      PyTorch's fuser spells them (``graph_fuser.cpp``'s list); empty for ops ``fuse_graph``
      leaves alone (a renderer still lets custom fusion and one-node CUDA kernels run them).
    - ``dtype``: the result dtype of one element from the operands (``render.Operand``), the
      rule the kernel generator and the NumPy body share (tests check they agree).
    - ``render(cx, node, operands, dtype) -> text``: one element's expression in a generated
      kernel, for CPU and CUDA alike (``cx`` is the generator: ``render.Emitter``).
    - ``dtype_only``: input positions that give only a dtype (``type_as``'s ``other``).
    - ``sum_to_size``: the fusible schemas through which a ``_grad_sum_to_size`` may be delayed.
    - ``extends``: schemas with a kernel form that PyTorch's list leaves out, which
      ``@fusejit.jit``'s own fusion takes (``passes/more_maps.py``): ``x & y``, ``x % 7``.
    - ``native``: the name of the native interpreter's body for its tensor overloads (``"ADD"``).
    """

    __slots__ = ("kind", "overloads", "fuses", "dtype", "render", "dtype_only", "sum_to_size",
                 "native", "extends")

    def __init__(self, kind: str):
        self.kind = kind
        self.overloads: list[Overload] = []
        self.fuses: tuple[str, ...] = ()
        self.dtype: Callable[[list], np.dtype] | None = None
        self.render: Callable[..., str] | None = None
        self.dtype_only: frozenset[int] = frozenset()
        self.sum_to_size: tuple[str, ...] = ()
        self.native: str | None = None
        self.extends: tuple[str, ...] = ()

    @property
    def fusible(self) -> bool:
        return bool(self.fuses)

    def __repr__(self) -> str:
        return f"OpEntry({self.kind!r}, {len(self.overloads)} overload(s))"


# kind -> entry, and schema text (or prim kind) -> overload
ENTRIES: dict[str, OpEntry] = {}
OPS: dict[str, Overload] = {}

# Nodes the interpreter runs itself (control flow, subgraphs, Python callables, futures, frames).
INTERPRETER_KINDS = frozenset({
    prim.Constant, prim.If, prim.Loop, prim.FusionGroup, prim.PythonOp, prim.fork, aten.wait,
    prim.Param, prim.Return, prim.Load, prim.Store, prim.Drop,
})


def entry(kind: str) -> OpEntry:
    """The entry of ``kind``, made empty on first use."""
    found = ENTRIES.get(kind)
    if found is None:
        found = ENTRIES[kind] = OpEntry(kind)
    return found


def register(schema: str, body: Body, *, pure: bool = True, multiple: bool = False,
             binds: tuple[str, ...] = (), ufunc: Any = None, reduces: bool = False) -> Overload:
    """Add ``body`` under ``schema`` (registering the schema if it is new) or a ``prim::`` kind;
    ``ufunc`` and ``reduces``: see :class:`Overload`."""
    key = kind = schema
    if "(" in schema:
        parsed = registry.register(schema)
        key, kind = parsed.text, parsed.name
    op = entry(kind)
    overload = Overload(key, op, body, pure=pure, multiple=multiple, binds=binds, ufunc=ufunc,
                        reduces=reduces)
    if key in OPS:
        op.overloads.remove(OPS[key])
    op.overloads.append(overload)
    OPS[key] = overload
    return overload


def declare(schema: str) -> None:
    """A schema with no body: the interpreter runs its nodes itself (``aten::wait``)."""
    entry(registry.register(schema).name)


def define(kind: str, *, fuses: Iterable[str] = (), dtype: Callable[[list], np.dtype],
           render: Callable[..., str], dtype_only: Iterable[int] = (),
           sum_to_size: Iterable[str] = (), native: str | None = None,
           extends: Iterable[str] = ()) -> OpEntry:
    """Give ``kind``'s entry its kernel facts (see :class:`OpEntry`)."""
    op = entry(kind)
    op.fuses = tuple(fuses)
    op.dtype = dtype
    op.render = render
    op.dtype_only = frozenset(dtype_only)
    op.sum_to_size = tuple(sum_to_size)
    op.native = native
    op.extends = tuple(extends)
    return op


def _interpreter_handles(node) -> bool:
    return node.kind in INTERPRETER_KINDS or node.has_attribute("Subgraph")


def find_entry(node) -> Overload | None:
    """The overload ``node`` runs, or None (also None for nodes the interpreter handles)."""
    if _interpreter_handles(node):
        return None
    schema = registry.find(node)
    if schema is not None:
        return OPS.get(schema.text)
    return OPS.get(node.kind) if node.kind.startswith("prim::") else None


def has_operation(node) -> bool:
    """Can ``make_operation(node)`` bind it? False for interpreter-run nodes and unknown ops."""
    return find_entry(node) is not None


class Operation:
    """An op bound to one node: ``op(*inputs)`` returns a tuple with one value per output."""

    __slots__ = ("entry", "kind", "fn", "num_outputs", "multiple")

    def __init__(self, entry: Overload, kind: str, fn: Body, num_outputs: int):
        self.entry = entry
        self.kind = kind
        self.fn = fn
        self.num_outputs = num_outputs
        self.multiple = entry.multiple

    def __call__(self, *args: Any) -> tuple:
        if not self.multiple:
            return (self.fn(*args),)
        outs = self.fn(*args)
        if len(outs) != self.num_outputs:
            raise RuntimeError(f"{self.kind} produced {len(outs)} values for "
                               f"{self.num_outputs} outputs")
        return tuple(outs)

    def __repr__(self) -> str:
        return f"<Operation {self.entry.schema}>"


def make_operation(node) -> Operation:
    """Bind the table entry for ``node``; raises ``SchemaError`` when there is none."""
    if _interpreter_handles(node):
        raise SchemaError(f"{node.kind} is run by the interpreter itself, not by an operation")
    entry = find_entry(node)
    if entry is None:
        raise SchemaError(_no_match_message(node))
    schema = registry.find(node)
    if schema is not None and not entry.multiple and len(schema.returns) != len(node.outputs):
        # A single-result body would leave the node's other outputs unset (read as None).
        raise SchemaError(f"{schema.text} returns {len(schema.returns)} value(s) but the node "
                          f"has {len(node.outputs)} outputs:\n  {str(node).strip()}")
    bound = {name: _bind_value(node, name) for name in entry.binds}
    fn = functools.partial(entry.numpy_body, **bound) if bound else entry.numpy_body
    if node.has_attribute(REUSES) and node.kind in REUSING:
        fn = REUSING[node.kind](fn, node.i(REUSES))
    return Operation(entry, node.kind, fn, len(node.outputs))


# A node's ``reuses`` attribute names an input that is a dead temporary, an array no other
# value reads or aliases (``passes/reused_temporaries.py``): its body may write the result
# into it. ``REUSING[kind](body, position)`` is that body, which the op modules register.
REUSES = "reuses"
REUSING: dict[str, Callable[[Body, int], Body]] = {}


def _bind_value(node, name: str) -> Any:
    if name == "num_outputs":
        return len(node.outputs)
    if name == "outputs_used":
        return tuple(out.has_uses() for out in node.outputs)
    if name == "output_types":
        return tuple(out.type for out in node.outputs)
    if not node.has_attribute(name):
        raise SchemaError(f"{node.kind} needs attribute {name!r}\n{node}")
    return node.attr(name)


def _no_match_message(node) -> str:
    types = ", ".join(str(v.type) for v in node.inputs)
    known = registry.schemas(node.kind)
    lines = [f"no operation for {node.kind}({types})"]
    if node.source_range is not None:
        lines[0] += f" at {node.source_range}"
    if known:
        lines.append("known overloads:")
        lines.extend(f"  {s.text}" for s in known)
    else:
        lines.append(f"{node.kind} is not a known operator")
    return "\n".join(lines)


# -- helpers shared by the op modules ---------------------------------------------------------

# TorchScript passes dtypes as ints (c10::ScalarType codes).
SCALAR_TYPE_CODES: dict[int, np.dtype] = {
    0: np.dtype(np.uint8), 1: np.dtype(np.int8), 2: np.dtype(np.int16), 3: np.dtype(np.int32),
    4: np.dtype(np.int64), 5: np.dtype(np.float16), 6: np.dtype(np.float32),
    7: np.dtype(np.float64), 11: np.dtype(np.bool_), 27: np.dtype(np.uint16),
    28: np.dtype(np.uint32), 29: np.dtype(np.uint64),
}
DTYPE_CODES: dict[np.dtype, int] = {dtype: code for code, dtype in SCALAR_TYPE_CODES.items()}


def dtype_of_code(code: int) -> np.dtype:
    try:
        return SCALAR_TYPE_CODES[code]
    except KeyError:
        raise ValueError(f"unsupported ScalarType code {code}") from None


def is_cuda_array(value: Any) -> bool:
    """Is ``value`` a CuPy array? Checked by its type's module, so CuPy is never imported."""
    module = type(value).__module__
    return module == "cupy" or module.startswith("cupy.")


def as_tensor(value: Any) -> np.ndarray:
    """Wrap NumPy's scalar results (reductions and ufuncs on 0-dim input) as 0-dim arrays
    (CuPy's are 0-d device arrays already: a NumPy body run on the device keeps them)."""
    return value if type(value) is np.ndarray or is_cuda_array(value) else np.asarray(value)


def wrap_dim(dim: int, rank: int, what: str = "dim") -> int:
    """A possibly negative dimension index made positive, PyTorch's range check included: its
    error is NumPy's ``AxisError``, an ``IndexError`` (PyTorch's class) and a ``ValueError``."""
    bound = max(rank, 1)  # a 0-dim tensor accepts dim 0 and -1
    if not -bound <= dim < bound:
        raise AxisError(f"Dimension out of range (expected to be in range of "
                        f"[{-bound}, {bound - 1}], but got {dim})")
    return dim + bound if dim < 0 else dim
