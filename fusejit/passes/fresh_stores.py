"""Masked stores into arrays nobody else holds, as values (for ``@fusejit.jit``, beyond PyTorch).

NumPy code often copies an array and then fixes some of its elements::

    y = x.copy()
    y[y < 0] = 0                      # the frontend: aten::copy_(%y, aten::where(%m, %0, %y))
    return y * 2

Through the store, that is a copy, a kernel computing the ``where`` written back into ``y``
(``inplace_fusion``), and a second pass for ``y * 2``: 0.73x NumPy's time at 10^4 float32.
But nothing else can see ``y`` (it is a new array, and no view or container of it exists), so
the store changes only what the later uses of ``y`` read. This pass gives them the ``where``
itself and drops the store::

    %y = aten::clone(%x)                       %y = aten::clone(%x)          (dead: removed)
    %w = aten::where(%m, %0, %y)      ==>      %w = aten::where(%m, %0, %y)
    %r = aten::copy_(%y, %w)                   %z = aten::mul(%w, %2)
    %z = aten::mul(%y, %2)

and the fuser then makes ``where(x < 0, 0, x) * 2`` one kernel. It applies where:

* ``y`` is made by a clone or a map (a new array), in the store's block;
* no use of ``y`` before the store makes a value that may alias it (a view, a list holding
  it, an in-place op: it would see the store), and each has a schema (no unknown op could
  keep it); the uses after the store read the ``where`` instead, whatever they do (a later
  store into ``y`` is a store into the ``where``, made a value in turn);
* the stored value is ``where(mask, v, y)`` with ``y`` itself as the kept branch, of ``y``'s
  dtype, used by the store alone, and the mask and ``v`` are no larger than ``y``: the mask
  is checked against ``y``'s sizes (the frontend's masked lowerings check them: see
  ``frontend/masked.py``) and ``v`` is a number or is computed from ``y`` and numbers by maps
  (``x[m] += 1``); so the ``where`` has ``y``'s shape and the store would copy it whole.

Uses of ``y`` before the store keep reading ``y``; those after it (in later nodes' blocks too)
read the ``where``. A copy only read (by ops that neither write it nor keep a view of it),
before anything may write the array it copies, is dropped too, whether or not a store was
(its readers read that array): the example is one kernel reading ``x``. ``fuse_graph`` is
unchanged; the executor runs this before it, on CPU plans of ``@fusejit.jit``.
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import IntType, ListType, TensorType
from .alias_analysis import AliasDb, _same_block_ancestor
from .dead_code_elimination import eliminate_dead_code
from .more_maps import computed_from, jit_map
from .pass_checks import graph_pass

# Ops making a new array from another (beside the maps): y = x.copy(), np.array(x).
_FRESH = frozenset({aten.clone})
# Maps that give their input back where its dtype is the one asked for (as Tensor.to does):
# their result may be the array itself, never a new one.
_SAME_ARRAY = frozenset({aten.type_as, aten._cast_Float})


@graph_pass
def functionalize_fresh_stores(graph: Graph) -> bool:
    """Replace each store of ``where(mask, v, y)`` into a fresh ``y`` by the ``where`` (see
    the module's docstring); True if any was."""
    changed = False
    while any(n.kind == aten.copy_ for n in graph.all_nodes()):
        db = AliasDb(graph)
        store = next((n for n in graph.all_nodes() if n.kind == aten.copy_ and
                      _functional(n, db)), None)
        if store is None:
            break
        _replace(store)
        changed = True
    copies = [n for n in graph.all_nodes() if n.kind in _FRESH]
    db = AliasDb(graph) if copies else None     # (the analysis only where a copy is)
    dropped = False
    for node in copies:
        if _only_read(node, db):
            node.output().replace_all_uses_with(node.input(0))
            node.destroy()
            dropped = True
    if changed or dropped:
        eliminate_dead_code(graph)
    return changed or dropped


def _functional(store: Node, db: AliasDb) -> bool:
    if len(store.inputs) != 3 or len(store.outputs) != 1:
        return False
    y, stored = store.input(0), store.input(1)
    made = y.node
    if made.owning_block is not store.owning_block or not _is_fresh(made):
        return False
    where = stored.node
    if where.kind != aten.where or len(where.inputs) != 3 or where.input(2) is not y \
            or len(stored.uses) != 1:
        return False
    if not (_same_dtype(stored, y) and _mask_fits(where.input(0), y)
            and computed_from(where.input(1), y)):
        return False
    for use in y.uses:
        user = use.user
        if user is store or user is where:
            continue
        if _after(user, store):
            continue        # (it will read the where, whatever it does with it)
        if not reads_only(user, y, db):
            return False    # (a view or container of y made before the store sees it)
    return True


def reads_only(user: Node, value: Value, db: AliasDb) -> bool:
    """Does ``user`` read ``value`` without writing it or letting it out: an op with a schema
    whose arguments that ``value`` is (or may alias) carry no alias annotation (it may write
    another: ``traj[t] = x`` copies ``x`` into a row of ``traj``), none of its results
    ``value`` itself or a view of it?"""
    schema = user.schema
    if schema is None or user.kind in _SAME_ARRAY or schema.is_vararg:
        return False
    for i, argument in enumerate(schema.arguments[:len(user.inputs)]):
        # (an annotated argument is written, or kept: ``hist.append(x)`` puts x in a list)
        if argument.alias is not None and (user.inputs[i] is value
                                           or db.may_alias(user.inputs[i], value)):
            return False
    # (a result made by ``user`` is a new array, whichever a loop carries it back to be)
    return not any(not db.made_here(out) and db.may_alias(out, value) for out in user.outputs)


def _only_read(copy: Node, db: AliasDb) -> bool:
    """Is ``copy`` (``y = x.copy()``) only read, before anything may write ``x``, and not
    returned? Each use, in the copy's block, is an op (with a schema) that neither writes nor
    keeps ``y`` (the array itself given back), a view of it only read in turn (``y.T``), or a
    list of arrays only read (``np.concatenate``). Then its uses may read ``x`` itself (the
    copy the store needed is gone: ``where(x < 0, 0, x) * 2`` reads ``x``; ``np.cov(x, y)``'s
    ``astype`` copies)."""
    y, x = copy.output(), copy.input(0)
    if not y.uses or not isinstance(x.type, TensorType):
        return False
    readers = _readers(y, copy.owning_block, db)
    if readers is None:
        return False
    last = copy
    for reader in readers:
        if reader.is_after(last):
            last = reader
    return not db.writes_between(copy, last, db.points_to(x))


def _readers(value: Value, block, db: AliasDb, depth: int = 0) -> list[Node] | None:
    """The nodes of ``block`` that read ``value``, directly, through views of it or through
    lists holding it, where none writes it or lets it out (returns it, keeps it in a block's
    result, gives it back as it is); else None."""
    readers = []
    for use in value.uses:
        user = use.user
        if user.owning_block is not block or depth > 4:
            return None
        if user.kind == prim.ListConstruct:
            found = _readers(user.output(), block, db, depth + 1)
        elif user.schema is None or user.schema.written or user.kind in _SAME_ARRAY:
            return None
        else:
            found = [user]
            for out in user.outputs:        # (a view of it: read in turn)
                if not db.made_here(out) and db.may_alias(out, value):
                    more = _readers(out, block, db, depth + 1)
                    if more is None:
                        return None
                    found += more
        if found is None:
            return None
        readers += found
    return readers


@graph_pass
def broadcast_read_fills(graph: Graph) -> bool:
    """``np.full_like(x, v)`` (``zeros_like``, ``ones_like``; ``np.full``, ``np.zeros`` and
    ``np.ones`` of a shape) only read (as ``_readers`` finds: not written, returned or kept)
    is the value broadcast to that shape, a view of one element: ``aten::expand`` of a 0-d
    constant of the result's dtype. The fill made
    a new array each call, which a map then read again (``np.full_like(x, 3.0) + x`` at 10^6
    float64: 0.66x NumPy's time); the fuser's kernels read the view's one element. True if
    any was rewritten."""
    fills = [(n, _fill_value(n)) for n in graph.all_nodes()]
    fills = [(n, v) for n, v in fills if v is not None]
    db = AliasDb(graph) if fills else None      # (the analysis only where a fill is)
    changed = False
    for node, value in fills:
        out = node.output()
        dtype = out.type.dtype if isinstance(out.type, TensorType) else None
        if dtype is None or isinstance(value, bool) or not isinstance(value, (int, float)) \
                or _readers(out, node.owning_block, db) is None:
            continue
        with graph.inserting_before(node):
            filled = graph.insert_constant(np.array(value, dtype=dtype))
            if node.kind == aten.full_like:
                sizes = graph.insert(aten.size, [node.input(0)])
                sizes.output().type = ListType(IntType())
                sizes = sizes.output()
            else:       # (np.zeros(shape): the shape given)
                sizes = node.input(0)
            false = graph.insert_constant(False)
            expanded = graph.insert(aten.expand, [filled, sizes, false])
        expanded.output().type = out.type.with_(strides=None)
        expanded.copy_location(node)
        out.replace_all_uses_with(expanded.output())
        node.destroy()
        changed = True
    return changed


def _fill_value(node: Node):
    """The number a fill (``full_like``, ``full``, ``zeros``, ``ones``) writes everywhere,
    where it is a constant; else None."""
    if node.kind in (aten.zeros, aten.ones):
        return 0 if node.kind == aten.zeros else 1
    if node.kind in (aten.full_like, aten.full) and node.input(1).node.kind == prim.Constant:
        return constant_value(node.input(1).node)
    return None


def _is_fresh(node: Node) -> bool:
    return node.kind in _FRESH or node.kind not in _SAME_ARRAY and len(node.outputs) == 1 and \
        jit_map(node)


def _same_dtype(a: Value, b: Value) -> bool:
    ta, tb = a.type, b.type
    return isinstance(ta, TensorType) and isinstance(tb, TensorType) and \
        ta.dtype is not None and ta.dtype == tb.dtype and ta.rank is not None \
        and ta.rank == tb.rank


def _mask_fits(mask: Value, y: Value) -> bool:
    """Is ``mask`` no larger than ``y``: computed from ``y`` and numbers by maps (``y < 0``:
    ``y``'s shape), or checked against ``y``'s leading sizes, with size-1 trailing axes
    (``frontend.masked._spread``)? The frontend's checks are ``aten::size`` comparisons of the
    mask before the unsqueezes: a mask that passes them broadcasts into ``y``'s shape."""
    if computed_from(mask, y):
        return True
    base = mask
    while base.node.kind == aten.unsqueeze:
        base = base.node.input(0)
    checked = set(_axes_compared(base, y))
    rank = base.type.rank if isinstance(base.type, TensorType) else None
    return rank is not None and rank >= 1 and checked >= set(range(rank))


def _axes_compared(mask: Value, y: Value):
    """The axes ``a`` with an ``aten::eq(size(mask, a), size(y, a))`` feeding an ``If``."""
    for use in mask.uses:
        sized = use.user
        if sized.kind != aten.size or len(sized.inputs) != 2 or \
                sized.input(1).node.kind != prim.Constant:
            continue
        axis = constant_value(sized.input(1).node)
        for u in sized.output().uses:
            eq = u.user
            if eq.kind != aten.eq or len(eq.inputs) != 2:
                continue
            other = eq.input(1 - u.offset).node
            if other.kind == aten.size and other.input(0) is y and \
                    other.input(1).node.kind == prim.Constant and \
                    constant_value(other.input(1).node) == axis and \
                    any(w.user.kind == prim.If for w in eq.output().uses):
                yield axis


def _after(user: Node, store: Node) -> bool:
    """Does ``user`` (in the store's block, or in a block of one of its nodes) run after it?"""
    here = _same_block_ancestor(user, store.owning_block)
    return here is not None and here.is_after(store)


def _replace(store: Node) -> None:
    y, stored = store.input(0), store.input(1)
    later = [use for use in y.uses if use.user is not store and _after(use.user, store)]
    for use in later:
        use.user.replace_input(use.offset, stored)
    store.output().replace_all_uses_with(stored)
    store.destroy()


__all__ = ["functionalize_fresh_stores", "reads_only"]
