"""Scratch buffers written with ``out=`` and read back in the same step become values.

NumPy code written for speed routes intermediate results through preallocated buffers::

    tmp = np.empty(c.size - 2, dtype=np.float32)
    for k in range(n_steps):
        np.subtract(c[2:], c[:-2], out=tmp)      %t = aten::sub(...); aten::copy_(%tmp, %t)
        tmp *= -a                                aten::mul_(%tmp, %a)
        c[1:-1] += tmp                           aten::add_(%view, %tmp)

Each write and each read of ``tmp`` is a pass over memory, and the reads of ``tmp`` hide from
the fuser that ``c[1:-1] += tmp`` needs ``-a * (c[2:] - c[:-2])``: every statement ran as its
own kernel (or its own Numba array expression). Where ``tmp`` is such a buffer, this pass
replaces each read of it by the value last written into it, and each in-place update of it by
the out-of-place op on that value; the buffer's contents are then never read, and its writes
are dropped. The step above becomes one expression, ``c[1:-1] += -a * (c[2:] - c[:-2])``.

A buffer qualifies when all of these hold, else it is left as it is:

* it is made by the function (``np.empty``, ``np.zeros``, ``np.empty_like`` ...: an
  ``aten::zeros`` / ``aten::full_like`` ... node), not an argument, and never viewed,
  returned or stored in a list: its uses (and those of the values standing for its memory:
  the results of its writes and updates, which the frontend rebinds its name to, a loop's
  variable each step updates in place, an ``if``'s result that every branch gives) are
  writes of it whole (``aten::copy_`` into it), in-place ``+ - * /`` of it (not of it by
  itself), reads by pointwise ops (the fuser's simple maps), reductions and products, or as
  the source of a write or an update of another array, and its sizes;
* in every block, each read comes after a write of it in the same block (a loop's step
  reads what that step wrote, never what the step before left; an ``if`` branch may read
  what was written before the ``if``, and after the ``if`` the value each branch left is
  read, a new output of the ``if``), and nothing reads it after a loop that writes it;
* every value written has the buffer's shape wherever the write succeeds (``_covers``): of
  that shape as far as the graph tells (the sizes of the same arrays' dimensions, offset by
  the same constants: ``c[2:] - c[:-2]`` and ``np.empty(c.size - 2)``), or a pointwise op of
  arrays of no more dimensions one of which is; and each update is by a number or an array of
  no more dimensions. A value that only broadcasts into the buffer (a row into every row of
  a matrix), or whose shape the graph does not tell, keeps the buffer. (A write or update
  NumPy refuses for its shapes, a bigger value than the buffer, is not refused here.)

A value of another dtype than the buffer's is cast to it (what the write did).

``forward_view_stores`` does the same for stores into a view of a persistent array within
one block (``np.multiply(a[i], dp[i - 1], out=dp[i])``, then ``np.subtract(d[i], dp[i],
out=dp[i])`` and ``dp[i] /= b``: one store of the last value); see its section below.
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL, INT, NoneType, TensorType
from .graph_fuser import is_simple_map
from .pass_checks import graph_pass
from .raising import located, raise_unless

# Ops making a new array, and which of their inputs gives its shape: a size list, or an
# array whose shape it copies.
_MADE_BY_SIZES = frozenset({aten.zeros, aten.ones, aten.empty, aten.full})
_MADE_LIKE = frozenset({aten.zeros_like, aten.ones_like, aten.empty_like, aten.full_like})
# In-place updates -> the out-of-place op computing the value they store
_UPDATES = {aten.add_: aten.add, aten.sub_: aten.sub, aten.mul_: aten.mul, aten.div_: aten.div}
_WRITES = frozenset({aten.copy_, *_UPDATES})
_SIZES = frozenset({aten.size, aten.numel, aten.dim, aten.len})
# Ops that read an array's elements into a new array or a number (besides the fuser's maps)
_READS = frozenset({aten.sum, aten.mean, aten.amax, aten.amin, aten.prod, aten.any, aten.all,
                    aten.argmax, aten.argmin, aten.std, aten.var, aten.mm, aten.matmul,
                    aten.dot, aten.clone})
_INT64_MAX = (1 << 63) - 1


@graph_pass
def forward_scratch_buffers(graph: Graph) -> bool:
    """Replace the reads of each qualifying buffer of ``graph`` (see the module docstring)
    by the values written into it, and drop its writes; True if any was."""
    changed, again = False, True
    while again:    # (a buffer read by another's updates qualifies once those are values)
        again = False
        for node in list(graph.all_nodes()):
            if (node.kind in _MADE_BY_SIZES or node.kind in _MADE_LIKE) and node.owning_block:
                buffer = node.output()
                members = _members(buffer)
                plan = _plan(graph, buffer, members) if members is not None else None
                if plan is not None:
                    _rewrite(graph, buffer, members, plan)
                    changed = again = True
    return changed


def _is_write(node: Node, members: set) -> bool:
    return node.kind in _WRITES and node.inputs[0] in members


def _members(buffer: Value) -> set | None:
    """The values that are ``buffer``'s memory: it, the results of writes and updates of
    them (``%tmp.3 = aten::mul_(%tmp.2, %a)``: the frontend's names are rebound to them),
    and a loop's variable whose value before the loop is one and which each step updates in
    place (its block parameter, and the loop's result); None where one is used otherwise than
    the module docstring allows."""
    if not (isinstance(buffer.type, TensorType) and buffer.type.dtype is not None
            and buffer.type.rank is not None):
        return None
    members, todo, carried, merged = {buffer}, [buffer], [], []
    while todo:
        value = todo.pop()
        for use in value.uses:
            user, k = use.user, use.offset
            if user.kind in _SIZES:
                continue
            if k == 0 and user.kind in _WRITES:
                new = [user.output()]
            elif k >= 1 and user.kind in _WRITES:
                continue        # (the source of another array's write: a read)
            elif user.kind == prim.Loop and k >= 2:
                body = user.blocks[0]
                new = [body.inputs[k - 1], user.outputs[k - 2]]
                carried.append((body, k - 1))
            elif user.kind == prim.Return and user.owning_block.owning_node is not None \
                    and user.owning_block.owning_node.kind == prim.Loop and k >= 1:
                continue        # (a loop's step gives it on: checked below)
            elif user.kind == prim.Return and user.owning_block.owning_node is not None \
                    and user.owning_block.owning_node.kind == prim.If:
                merged.append((user.owning_block.owning_node, k))
                new = [user.owning_block.owning_node.outputs[k]]
            elif is_simple_map(user, int_scalars=True) or user.kind in _READS:
                continue
            else:
                return None
            for v in new:
                if v not in members:
                    members.add(v)
                    todo.append(v)
    for body, i in carried:     # (each step gives on the memory it took: an update in place)
        if body.outputs[i] not in members:
            return None
    for node, k in merged:      # (an if gives it in every branch: x *= 2 in one of them)
        if any(block.outputs[k] not in members for block in node.blocks):
            return None
    for value in members:
        for use in value.uses:
            if use.user.kind == prim.Return and use.user.owning_block.owning_node is not None \
                    and use.user.owning_block.owning_node.kind == prim.Loop:
                body = use.user.owning_block
                if use.offset < 1 or body.inputs[use.offset] not in members:
                    return None
            elif _is_write(use.user, members) and any(
                    v in members for v in use.user.inputs[1:]):
                return None     # (x += x: a read and a write at once)
    return members


def _plan(graph: Graph, buffer: Value, members: set) -> dict | None:
    """What each write, update and read of the buffer's memory is ({node: "write",
    "update" or "read"}), walking the blocks in order; None where a read may see what another
    block (a loop's previous step, the code before a loop) left, or a written value's shape
    is not the buffer's as far as the graph tells."""
    roles: dict[Node, str] = {}

    def walk(block: Block, known: bool) -> bool | None:
        for node in block.nodes():
            if node.blocks:
                inner = [walk(b, known and node.kind == prim.If) for b in node.blocks]
                if None in inner:
                    return None
                if node.kind == prim.If:
                    known = all(inner)      # (each branch's value, merged by the if)
                elif _writes_within(node, members):
                    known = False           # (after a loop writing it: its last step's)
                continue
            if node.kind in _SIZES or not any(v in members for v in node.inputs):
                continue
            if node.kind == aten.copy_ and node.inputs[0] in members:
                known = True
                roles[node] = "write"
            elif node.kind in _UPDATES and node.inputs[0] in members:
                if not known:
                    return None
                roles[node] = "update"
            elif node.kind != prim.Loop:
                if not known:
                    return None
                roles[node] = "read"
        return known

    if walk(graph.block, False) is None or "write" not in roles.values():
        return None
    target = _shape(buffer)
    if target is None:
        return None
    for node, role in roles.items():
        if role == "write" and not _unwritten_result(node.input(1)):
            return None
        if role == "write" and not _covers(node.input(1), target, len(target)):
            if _leaves(node.input(1), len(target)) is None:
                return None
            roles[node] = "checked write"   # (x * y of two arguments: checked as it runs)
        if role == "update" and not _fits(node.input(1), len(target)):
            return None
    return roles


def _writes_within(node: Node, members: set) -> bool:
    """Does ``node`` (a loop or an if) write or update the buffer in its blocks?"""
    for block in node.blocks:
        for inner in block.nodes():
            if _is_write(inner, members) or inner.blocks and _writes_within(inner, members):
                return True
    return False


# Ops whose result may be their first input itself, or a view of it
_ALIASING = frozenset({aten.select, aten.slice, aten.reshape, aten.view, aten.expand,
                       aten.expand_as, aten.t, aten.transpose, aten.permute, aten.squeeze,
                       aten.unsqueeze, aten.flatten, aten.type_as, aten.to, aten.contiguous,
                       aten.view_as, aten.reshape_as, aten.detach, aten.real})


def _unwritten_result(value: Value, depth: int = 0) -> bool:
    """Is ``value`` an array an op computed (not an argument, a view or a write's result)
    that nothing writes afterwards, through a view either (``t = a * 2; np.copyto(buf, t);
    t += 1``: a read of ``buf`` must not become a read of ``t``)?"""
    node = value.node
    if depth == 0 and (node.kind in (prim.Param, prim.Constant) or node.kind in _ALIASING
                       or node.kind.ns != "aten" or node.schema is None
                       or node.schema.written):
        return False
    if depth > 64:
        return False
    for use in value.uses:
        user = use.user
        if user.kind in _ALIASING and use.offset == 0:
            if not _unwritten_result(user.output(), depth + 1):
                return False
            continue
        if user.kind == prim.Return and user.owning_block.owning_node is None:
            continue        # (returned: nothing here writes it after)
        schema = user.schema
        if schema is None or use.offset in schema.written:
            return False
    return True


def _fits(operand: Value, rank: int) -> bool:
    """May an update of the buffer (of ``rank``) by ``operand`` be computed out of place: a
    number, or an array of no more dimensions? (NumPy's update keeps the buffer's shape, and
    raises where the operand does not broadcast into it.)"""
    if not isinstance(operand.type, TensorType):
        return True
    return operand.type.rank is not None and operand.type.rank <= rank


def _covers(value: Value, target: tuple, rank: int, depth: int = 0) -> bool:
    """Is the value written of the buffer's shape ``target`` wherever the write succeeds: of
    that shape as far as the graph tells, or a pointwise op of arrays of no more dimensions
    one of which is (its shape then holds the buffer's, and a write of a bigger one raises in
    NumPy)? A value that only broadcasts into the buffer (a row written into every row of a
    matrix) is not."""
    if depth > 64 or not isinstance(value.type, TensorType) or value.type.rank != rank:
        return False
    if _shape(value) == target:
        return True
    node = value.node
    if not is_simple_map(node, int_scalars=True):
        return False
    arrays = [v for v in node.inputs if isinstance(v.type, TensorType)]
    return all(_fits(v, rank) for v in arrays) and any(
        _covers(v, target, rank, depth + 1) for v in arrays)


def _rewrite(graph: Graph, buffer: Value, members: set, roles: dict) -> None:
    """Carry out ``roles``: reads take the value last written (in their block, or before
    the if), updates compute it, writes and updates go (their results, which the loops give
    on, stand for the memory they wrote)."""
    dtype = buffer.type.dtype
    gone: list[Node] = []

    def walk(block: Block, value: Value | None) -> None:
        for node in list(block.nodes()):
            if node.blocks:
                ends = [walk(b, value if node.kind == prim.If else None) for b in node.blocks]
                if node.kind == prim.If and _writes_within(node, members):
                    value = _merged(node, ends) if all(e is not None for e in ends) else None
                elif _writes_within(node, members):
                    value = None
                continue
            role = roles.get(node)
            if role in ("write", "checked write"):
                if role == "checked write":
                    _check_shape(graph, node, node.input(0), node.input(1))
                value = _as_dtype(graph, node, node.input(1), dtype)
                gone.append(node)
            elif role == "update":
                value = _updated(graph, node, value, dtype)
                gone.append(node)
            elif role == "read":
                for i, v in enumerate(node.inputs):
                    if v in members:
                        node.replace_input(i, value)
        return value

    walk(graph.block, None)
    for node in reversed(gone):
        node.output().replace_all_uses_with(node.input(0))
        node.destroy()


def _leaves(value: Value, rank: int, depth: int = 0) -> list[Value] | None:
    """The arrays a written value is a pointwise op of (through the fuser's maps), where
    each has at most the buffer's ``rank`` dimensions and the value has it; else None."""
    if depth > 64 or not isinstance(value.type, TensorType) or value.type.rank is None \
            or value.type.rank > rank:
        return None
    node = value.node
    if not is_simple_map(node, int_scalars=True):
        return [value] if value.type.rank == rank or depth else None
    found: list[Value] = []
    for v in node.inputs:
        if isinstance(v.type, TensorType) and v.type.rank != 0:
            inner = _leaves(v, rank, depth + 1)
            if inner is None:
                return None
            found += inner
    return found if depth or any(v.type.rank == rank for v in found) else None


# The error where a value the pass reads back from a buffer does not have its shape.
SHAPE_MESSAGE = ("ValueError: the value written into an array (out=, or a whole-array "
                 "store) does not have the array's shape; NumPy broadcasts a smaller one into "
                 "it (or raises), and fusejit, which reads the array back as the value "
                 "written, needs them equal: write np.broadcast_to(value, array.shape)")


def _check_shape(graph: Graph, at: Node, target: Value, value: Value) -> None:
    """Before ``at``: raise where the arrays ``value`` is a pointwise op of do not broadcast
    to exactly ``target``'s shape (each size of each either the target's or 1, and one of
    them the target's); sizes only, which the fuser reads from its groups' inputs."""
    rank = target.type.rank
    leaves = _leaves(value, rank)

    def op(kind, inputs, type_):
        return located(graph, at, kind, inputs, type_)

    with graph.inserting_before(at):
        one = graph.insert_constant(1)
        ok = None
        for d in range(rank):
            want = op(aten.size, [target, graph.insert_constant(d)], INT)
            fits = hit = None
            for leaf in leaves:
                k = d - (rank - leaf.type.rank)
                if k < 0:
                    continue
                size = op(aten.size, [leaf, graph.insert_constant(k)], INT)
                same = op(aten.eq, [size, want], BOOL)
                either = op(aten["__or__"], [same, op(aten.eq, [size, one], BOOL)], BOOL)
                fits = either if fits is None else op(aten["__and__"], [fits, either], BOOL)
                hit = same if hit is None else op(aten["__or__"], [hit, same], BOOL)
            both = op(aten["__and__"], [fits, hit], BOOL)
            ok = both if ok is None else op(aten["__and__"], [ok, both], BOOL)
    raise_unless(graph, at, ok, SHAPE_MESSAGE)


def _merged(node: Node, values: list[Value]) -> Value:
    """The value each branch of the if ``node`` left in the buffer, as a new output of it."""
    for block, value in zip(node.blocks, values):
        block.register_output(value)
    same = len({v.type for v in values}) == 1
    return node.add_output(values[0].type if same else values[0].type.dimensioned_only())


def _typed(node: Node) -> None:
    from .shape_analysis import merge_types
    from .shape_rules import Facts, infer_outputs

    for out, t in zip(node.outputs, infer_outputs(node, Facts())):
        out.set_type(merge_types(out.type, t, frozenset()))


def _updated(graph: Graph, update: Node, value: Value, dtype: np.dtype) -> Value:
    """The value the in-place ``update`` of an array holding ``value`` leaves in it: its
    out-of-place op, in the array's ``dtype`` (before ``update``)."""
    with graph.inserting_before(update):
        made = graph.insert(_UPDATES[update.kind], [value, *update.inputs[1:]])
    made.source_range = update.source_range
    _typed(made)
    return _as_dtype(graph, update, made.output(), dtype)


def _as_dtype(graph: Graph, at: Node, value: Value, dtype: np.dtype) -> Value:
    """``value`` in ``dtype`` (an ``aten::type_as`` against a 0-d constant, before ``at``)."""
    if isinstance(value.type, TensorType) and value.type.dtype == dtype:
        return value
    with graph.inserting_before(at):
        like = graph.insert_constant(np.zeros((), dtype))
        cast = graph.insert(aten.type_as, [value, like])
    cast.source_range = at.source_range
    _typed(cast)
    return cast.output()


# -- shapes as the graph tells them ----------------------------------------------------------
#
# A shape is a tuple of sizes; a size is ``(root, dim, offset)``: the size of dimension ``dim``
# of the array ``root`` (an argument, or an array whose shape nothing here tells) plus
# ``offset``, or ``(None, None, n)`` for a constant ``n``. Two arrays whose shapes are equal
# tuples have equal shapes whenever both are made.


def _shape(value: Value, depth: int = 0) -> tuple | None:
    if depth > 64 or not isinstance(value.type, TensorType) or value.type.rank is None:
        return None
    node, rank = value.node, value.type.rank
    if node.kind in _MADE_LIKE or node.kind in (aten.type_as, aten.clone, aten.contiguous,
                                                aten.copy_) or node.kind in _UPDATES:
        return _shape(node.input(0), depth + 1)
    if node.kind in _MADE_BY_SIZES:
        sizes = node.input(0)
        if sizes.node.kind != prim.ListConstruct:
            return None
        shape = tuple(_size(v, depth + 1) for v in sizes.node.inputs)
        return shape if None not in shape and len(shape) == rank else None
    if node.kind == aten.select:
        base, dim = _shape(node.input(0), depth + 1), _constant(node.input(1))
        if base is None or dim is None:
            return None
        dim %= max(len(base), 1)
        return base[:dim] + base[dim + 1:]
    if node.kind == aten.slice:
        return _sliced(node, depth)
    if node.kind == prim.Param or node.kind == prim.Constant:
        return tuple((value, d, 0) for d in range(rank))
    if is_simple_map(node, int_scalars=True):
        shapes = {_shape(v, depth + 1) for v in node.inputs
                  if isinstance(v.type, TensorType) and v.type.rank != 0}
        return shapes.pop() if len(shapes) == 1 and None not in shapes and rank else None
    return tuple((value, d, 0) for d in range(rank)) if node.kind.ns == "aten" and \
        not _is_view(node) else None


def _is_view(node: Node) -> bool:
    return node.kind in (aten.reshape, aten.view, aten.expand, aten.t, aten.transpose,
                         aten.permute, aten.squeeze, aten.unsqueeze, aten.flatten)


def _sliced(node: Node, depth: int) -> tuple | None:
    """``x[a:b]`` along one dimension with step 1, constant ``a >= 0`` and ``b`` left out or a
    constant below 0: the size of that dimension less ``a`` and ``-b``."""
    base = _shape(node.input(0), depth + 1)
    dim, step = _constant(node.input(1)), _constant(node.input(4), 1)
    start, end = _constant(node.input(2), 0), _constant(node.input(3), _INT64_MAX)
    if base is None or dim is None or step != 1 or start is None or start < 0:
        return None
    dim %= max(len(base), 1)
    root, d, offset = base[dim]
    if end is None:
        return None
    if end >= _INT64_MAX:
        cut = start
    elif end < 0:
        cut = start - end
    else:
        return None
    if root is None:
        return None
    return base[:dim] + ((root, d, offset - cut),) + base[dim + 1:]


def _size(value: Value, depth: int) -> tuple | None:
    """An int ``value`` as a size (``x.shape[1]``, ``x.size - 2``, ``n`` an argument: the
    int itself), else None."""
    node = value.node
    if node.kind == prim.Constant:
        n = constant_value(node)
        return (None, None, n) if type(n) is int else None
    if node.kind == aten.size and len(node.inputs) == 2:
        shape, dim = _shape(node.input(0), depth + 1), _constant(node.input(1))
        if shape is None or dim is None or not shape:
            return None
        return shape[dim % len(shape)]
    if node.kind == aten.numel:
        shape = _shape(node.input(0), depth + 1)
        return shape[0] if shape is not None and len(shape) == 1 else None
    if node.kind in (aten.add, aten.sub) and len(node.inputs) == 2:
        base, n = _size(node.input(0), depth + 1), _constant(node.input(1))
        if base is None or n is None:
            return None
        return (base[0], base[1], base[2] + (n if node.kind == aten.add else -n))
    return (value, None, 0)


def _constant(value: Value, none: int | None = None) -> int | None:
    """An int constant's value (``none`` for a None constant), else None."""
    if value.node.kind != prim.Constant:
        return None
    n = constant_value(value.node)
    if n is None:
        return none if isinstance(value.type, NoneType) else None
    return n if type(n) is int else None


# -- stores into views read back in the same block -------------------------------------------
#
#     np.multiply(a[i], dp[i - 1], out=dp[i])      copy_(dp[i], a[i] * dp[i-1])
#     np.subtract(d[i], dp[i], out=dp[i])          copy_(dp[i], d[i] - <that>)
#     dp[i] /= denom                               dp[i] := <that> / denom
#
# Within one block, a read of the elements a view like ``dp[i]`` (the same view: the same ops
# of the same values) was last given takes the value given, and a store that the next store
# into the same view overwrites before anything could read it is dropped; the three lines then
# store once. Reads and writes by anything else that may alias the array (``AliasDb``), and any
# loop or if between, end what is known.

_VIEW_KINDS = frozenset({aten.select, aten.slice})


@graph_pass
def forward_view_stores(graph: Graph) -> bool:
    """In each block of ``graph``, reads of a view just stored into take the stored value,
    updates of it compute theirs, and stores overwritten unread go; True if any did."""
    from .alias_analysis import AliasDb

    db = AliasDb(graph)
    changed = False
    for block in [graph.block, *(b for n in graph.all_nodes() for b in n.blocks)]:
        changed = _forward_in_block(graph, block, db) or changed
    return changed


def _view_key(value: Value) -> tuple | None:
    """The same view of the same array has the same key: its ops and their operands (values
    by identity, constants by value)."""
    node = value.node
    if node.kind not in _VIEW_KINDS:
        return None
    base = _view_key(node.input(0)) or ("array", node.input(0))
    parts = []
    for v in node.inputs[1:]:
        if v.node.kind == prim.Constant:
            parts.append(("constant", repr(constant_value(v.node))))
        else:
            parts.append(("value", v))
    return (node.kind, base, *parts)


def _forward_in_block(graph: Graph, block: Block, db) -> bool:
    known: dict[tuple, tuple[Value, Value]] = {}     # key -> (the view, the value stored)
    last: dict[tuple, tuple[Node, bool]] = {}        # key -> (its last store, read since)
    dead: list[Node] = []
    changed = False

    def aliases(a: Value, b: Value) -> bool:
        return db.may_alias(a, b)

    def forget_aliases_of(view: Value, keep: tuple | None) -> None:
        for key in [k for k, (v, _) in known.items() if k != keep and aliases(v, view)]:
            del known[key]
        for key in [k for k, (n, _) in last.items() if k != keep and aliases(n.input(0), view)]:
            del last[key]

    def mark_reads(values) -> None:
        for k in list(last):
            store, _ = last[k]
            if any(isinstance(v.type, TensorType) and aliases(v, store.input(0))
                   for v in values):
                last[k] = (store, True)

    for node in list(block.nodes()):
        if node.blocks:
            known.clear()
            last.clear()
            continue
        # a read of a view stored into takes the value stored (a write's operands, not its
        # target)
        if node.kind in _WRITES or is_simple_map(node, int_scalars=True) or \
                node.kind in _READS:
            first = 1 if node.kind in _WRITES else 0
            for i, v in enumerate(node.inputs):
                k = _view_key(v) if i >= first else None
                if k is not None and k in known:
                    node.replace_input(i, known[k][1])
                    changed = True
        target = node.inputs[0] if node.inputs else None
        key = _view_key(target) if target is not None else None
        if key is not None and node.kind in _UPDATES and key in known \
                and _fits(node.input(1), target.type.rank or 0) \
                and isinstance(target.type, TensorType):
            # dp[i] /= x after a store into dp[i]: the store of (stored / x), whose operands
            # may still read memory a store wrote
            mark_reads(node.inputs[1:])
            value = _updated(graph, node, known[key][1], target.type.dtype)
            with graph.inserting_before(node):
                store = graph.insert(aten.copy_, [target, value, graph.insert_constant(False)])
            store.source_range = node.source_range
            store.output().set_type(target.type)
            node.output().replace_all_uses_with(target)
            node.destroy()
            node, changed = store, True
        if key is not None and node.kind == aten.copy_ and isinstance(target.type, TensorType) \
                and not node.output().uses:
            value = node.input(1)
            shape = _shape(target)
            if shape is not None and target.type.rank is not None and \
                    _unwritten_result(value) and _covers(value, shape, target.type.rank):
                if key in last and not last[key][1]:
                    dead.append(last[key][0])       # (overwritten before any read)
                forget_aliases_of(target, key)
                known[key] = (target, _as_dtype(graph, node, value, target.type.dtype))
                last[key] = (node, False)
                continue
        if node.kind in _VIEW_KINDS:
            continue            # (a view reads no elements; its users do)
        mark_reads(node.inputs)
        if db.get_writes(node):
            for v in node.inputs:
                if isinstance(v.type, TensorType):
                    forget_aliases_of(v, None)
    for store in dead:
        store.destroy()
    return changed or bool(dead)
