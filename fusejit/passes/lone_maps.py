"""Lone costly maps as fusion groups of their own, for ``@fusejit.jit`` (beyond PyTorch).

PyTorch's fuser makes a group only where a map fuses with a neighbour: ``np.log1p(x)`` alone,
or beside ops it cannot fuse (a matmul, a reduction of another axis), stays a node the
interpreter runs with NumPy's loop. For transcendentals, square roots and pow a kernel is
faster: its vectorised forms of them beat NumPy's loops (``benchmarks/ops.py``: 1.04-31x on one
thread, most at 1.2-3x), and it may use the free cores. Through NumPy such a function ran at
0.89-0.98x NumPy's own time (its call on top of NumPy's loop), and on a strided input
(``x[:, ::2]``), where NumPy's loops are scalar, at 0.92-0.96x where a kernel is several times
faster. This pass gives each such node a ``prim::FusionGroup`` of one node::

    %y = aten::log1p(%x)          ==>      %y = prim::FusionGroup_0(%x)
                                           with prim::FusionGroup_0 = graph(%x):
                                             %y = aten::log1p(%x)
                                             return (%y)

Cheap maps (add, mul, abs) stay NumPy's: one of them alone is as fast either way, memory
bound; but one that an in-place update takes (``np.add(x, y, out=z)``, ``z[1:] = x - y``)
gets a group too, which ``fuse_inplace_updates`` folds the update into: the kernel writes
into ``z``, where NumPy's op would make an array and ``aten::copy_`` copy it. So does one that
reads a view with constant arguments (``x[1:] - x[:-1]``), which ``move_views_into_groups``
then moves into the group: one kernel reading ``x``.
``fuse_graph`` is unchanged (its groups are checked against PyTorch's); the executor runs this
after it and after the reduction groups (``fuse_row_reductions``), which take a map feeding a
reduction themselves.
"""

from __future__ import annotations

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node
from ..ir.symbols import Symbol, aten, prim
from ..ir.types import ScalarType, TensorType
from .graph_fuser import is_simple_map
from .inplace_fusion import foldable_update
from .more_maps import JitMapsFuser, jit_map
from .pass_checks import graph_pass
from .view_inputs import view_step

_CBRT = Symbol("fusejit::cbrt")
# The maps a kernel computes with vectorised forms (``runtime/fusion/templates.py``'s
# ``VECTOR_MATH``), and float fmod, remainder and floor division: NumPy's loops call C's fmod,
# 9-20 ns an element, where a kernel's exact form (``helpers.fmod_wide``) vectorises.
COSTLY = frozenset({
    aten.fmod, aten.remainder, aten.floor_divide,
    aten.exp, aten.expm1, aten.log, aten.log1p, aten.log2, aten.log10, aten.sin, aten.cos,
    aten.tan, aten.asin, aten.acos, aten.atan, aten.atan2, aten.sinh, aten.cosh, aten.tanh,
    aten.sigmoid, aten.erf, aten.erfc, aten.lgamma, aten.sqrt, aten.rsqrt, aten.pow,
    aten.hypot, aten.logaddexp, _CBRT, aten.asinh, aten.acosh, aten.atanh})
# pow exponents NumPy's power computes with one operation (a square, a square root, a
# reciprocal; NumPy 2's fast scalar powers), as the kernels do (``POW_SPECIAL``), and the
# trivial ones: those stay NumPy's. Its other exponents call C's pow, 4-80 ns an element
# (x ** 3 of negative bases ~60), where the kernels' products take ~0.1-0.3 (their results
# within an ulp of it, as inside a fused chain).
_CHEAP_EXPONENTS = frozenset({2.0, 0.5, -1.0, 0.0, 1.0})
_FLOATS = frozenset({ScalarType.Float, ScalarType.Double})


def costly_map(node: Node) -> bool:
    """Is ``node`` a map of ``COSTLY`` on float tensors whose kernel form beats NumPy's?"""
    if node.kind not in COSTLY or len(node.outputs) != 1:
        return False
    out = node.output().type
    if not isinstance(out, TensorType) or out.scalar_type not in _FLOATS:
        return False
    if node.kind == aten.sqrt and out.scalar_type == ScalarType.Float:
        # (NumPy's float32 square root is one vector instruction, contiguous or strided: a
        # kernel's ran 1.8x faster on a C-ordered array, 0.76-0.90x on x[:, ::2])
        return False
    if node.kind == _CBRT and out.scalar_type == ScalarType.Float:
        # (NumPy's float32 cbrt is SVML's on AVX-512 hosts, 0.32 ns an element on one core and
        # up to 1.92 ulp off; the correctly rounded form takes 0.94: a lone one stays NumPy's)
        return False
    if not all(v.type.scalar_type in _FLOATS for v in node.inputs
               if isinstance(v.type, TensorType)):
        return False
    if node.kind == aten.pow and node.input(1).node.kind == prim.Constant:
        exponent = constant_value(node.input(1).node)
        if isinstance(exponent, (int, float)) and float(exponent) in _CHEAP_EXPONENTS:
            return False
    return jit_map(node)     # (hypot and logaddexp: maps of @fusejit.jit's own fusion)


def _feeds_update(node: Node) -> bool:
    """Is ``node`` a map whose one use is an in-place update of an array of its dtype and
    rank (``np.add(x, y, out=z)``, ``z[1:] = x * y``), which ``fuse_inplace_updates`` then
    folds into its group: one pass writing into ``z``, not a new array copied in?"""
    if len(node.outputs) != 1 or len(node.output().uses) != 1:
        return False
    use = node.output().uses[0]
    return use.offset == 1 and foldable_update(use.user) and is_simple_map(node)


def _fuse_block(block: Block, graph: Graph) -> bool:
    changed = False
    fuser = JitMapsFuser(block, graph)
    for node in list(block.nodes()):
        for sub in node.blocks:
            changed |= _fuse_block(sub, graph)
        if (costly_map(node) or _feeds_update(node) or _reads_views(node)) \
                and fuser.is_fusable(node):
            fuser.create_singleton_fusion_group(node)
            changed = True
    return changed


def _reads_views(node: Node) -> bool:
    """Is ``node`` a map reading a view that ``move_views_into_groups`` moves into its group
    (``x[1:] - x[:-1]``: one kernel reading ``x`` twice, not two views made by the interpreter
    and NumPy's loop over them)?"""
    return any(view_step(v.node) is not None for v in node.inputs) and is_simple_map(node)


@graph_pass
def fuse_lone_maps(graph: Graph) -> bool:
    """Give each lone costly map (``COSTLY``, on float tensors), each lone map that an
    in-place update takes (``_feeds_update``, in a loop's body too) and each lone map of
    views (``_reads_views``) a fusion group of its own; whether any changed."""
    return _fuse_block(graph.block, graph)


__all__ = ["COSTLY", "costly_map", "fuse_lone_maps"]
