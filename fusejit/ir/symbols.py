"""Interned node kinds and attribute names.

A symbol is a ``namespace::name`` string (``aten::add``, ``prim::If``, ``attr::value``). Symbols are
interned, so kinds compare by identity as cheaply as by value, and the namespaces give attribute
access for the common ones::

    >>> from fusejit.ir.symbols import aten, prim
    >>> prim.If
    Symbol('prim::If')
    >>> aten.add.ns, aten.add.name
    ('aten', 'add')

Kind sets that passes test membership in (rather than listing ops) live at the bottom.
"""

from __future__ import annotations

import re

from ..errors import IRError

_NAMESPACES = ("aten", "prim", "attr", "onnx", "scope", "user", "cuda", "fusejit")
_VALID = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*::[A-Za-z_0-9][A-Za-z_0-9.]*$")
_table: dict[str, Symbol] = {}


class Symbol(str):
    """An interned ``namespace::name`` string."""

    __slots__ = ()

    def __new__(cls, qualified: str) -> Symbol:
        found = _table.get(qualified)
        if found is not None:
            return found
        if not isinstance(qualified, str) or not _VALID.match(qualified):
            raise IRError(f"not a qualified symbol such as aten::add: {qualified!r}"[:300])
        sym = super().__new__(cls, qualified)
        _table[qualified] = sym
        return sym

    @property
    def ns(self) -> str:
        return self.split("::", 1)[0]

    @property
    def name(self) -> str:
        return self.split("::", 1)[1]

    def __repr__(self) -> str:
        return f"Symbol({str(self)!r})"


def is_qualified(text: str) -> bool:
    return bool(_VALID.match(text))


class _Namespace:
    """Attribute access to the symbols of one namespace: ``aten.add``, ``prim.FusionGroup``."""

    def __init__(self, ns: str):
        self._ns = ns

    def __getattr__(self, name: str) -> Symbol:
        if name.startswith("__"):
            raise AttributeError(name)
        symbol = Symbol(f"{self._ns}::{name}")
        setattr(self, name, symbol)  # later lookups skip __getattr__ (passes test kinds often)
        return symbol

    def __getitem__(self, name: str) -> Symbol:
        return Symbol(f"{self._ns}::{name}")


aten = _Namespace("aten")
prim = _Namespace("prim")
attr = _Namespace("attr")

# Nodes that carry blocks and that the interpreter lowers to jumps.
CONTROL_FLOW = frozenset({prim.If, prim.Loop})

# Fusion-group kinds: the legacy fuser's, and the ones the GPU/TensorExpr fusers would use.
FUSION_GROUPS = frozenset({prim.FusionGroup, prim.CudaFusionGroup, prim.TensorExprGroup})

# Shape-expression nodes the fuser produces and the peephole pass simplifies.
SHAPE_EXPRESSIONS = frozenset({prim.BroadcastSizes, prim.ChunkSizes, aten.size})

# List and tuple plumbing.
CONTAINERS = frozenset({
    prim.ListConstruct, prim.ListUnpack, prim.TupleConstruct, prim.TupleUnpack,
    prim.TupleIndex, prim.TupleSlice,
})

# Nodes with effects that dead-code elimination must keep.
SIDE_EFFECTS = frozenset({
    prim.RaiseException, prim.Print, prim.Store, prim.Drop, prim.fork, aten.wait,
    prim.PythonOp, prim.SetAttr, aten.warn,
})

# Nodes whose result differs between calls with equal inputs: never CSE'd or constant-folded.
NONDETERMINISTIC = frozenset({
    aten.rand, aten.rand_like, aten.randn, aten.randn_like, aten.dropout, aten.bernoulli,
    aten.normal, aten.uniform, prim.PythonOp,
})
