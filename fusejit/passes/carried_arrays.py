"""Arrays a loop updates in place, carried as values (for ``@fusejit.jit``, beyond PyTorch).

A time-stepping loop keeps its state in arrays it made and updates them in place::

    y, vy = y0.copy(), vy0.copy()
    for _ in range(steps):
        vy -= g * dt                  # aten::sub_(%vy, ...)
        y += vy * dt                  # aten::add_(%y, aten::mul(%vy, %dt))
        hit = y < 0.0
        y[hit] = -y[hit]              # aten::copy_(%y, aten::where(%hit, -%y, %y))
        vy[hit] *= -restitution       # aten::copy_(%vy, aten::where(%hit, %vy * -r, %vy))

Each update writes one array, so the fuser's groups end at each of them, and a step is five
passes over memory (``inplace_fusion`` folds each update into the group that computes its
operand, no further). But nothing outside the loop can see these arrays while it runs: each was
made for it (a copy, a fill, a map), and no view, list or other name holds it. Then its updates
change only what the loop's later reads of it see, and each can be a new value instead::

    %vy1 = aten::sub(%vy, ...)            # the updates' out-of-place ops, in order;
    %y1 = aten::add(%y, aten::mul(%vy1, %dt))     # each read of the array reads the value
    %hit = aten::lt(%y1, 0.)                      # its updates have made so far
    %y2 = aten::where(%hit, aten::neg(%y1), %y1)
    %vy2 = aten::where(%hit, aten::mul(%vy1, -r), %vy1)
    -> (%vy2, %y2)                         # (the loop carries the last values)

which the fuser makes one kernel reading ``vy`` and ``y`` and writing their next values. An
array qualifies (``_carried``) where:

* the loop's initial value is made for it (``_MADE``, a clone, a map: a new array) and read
  by nothing else but ops before the loop that neither write it nor keep a view of it; an
  array made before the loop and updated in it without being rebound (``vx[out] *= -1``)
  is made a value the loop carries first (``_carry``), the code after the loop reading the
  loop's result;
* in the loop's body, each update of it (``+= -= *= /=``, ``x[...] = v`` as ``aten::copy_``,
  ``x.fill(c)`` or ``x[:] = c`` of a constant its dtype holds exactly, whose value is
  ``np.full_like(x, c)``: a buffer reset each step) is
  a node of the body itself (not of a branch), and every other use of it, at any depth, is an
  op that neither writes it nor keeps a view or list of it, or the body's result for its
  own place in the loop (once); the body's result is the array, or a new array the body
  makes and only reads (``x = np.clip(x, 0, L)`` after ``x += v``);
* each update's result casts to the array's dtype as the in-place op would (a cast of the same
  kind: ``aten::type_as`` after it, where its dtype differs), and a stored ``v`` is computed
  by maps from the array itself, so that it is at least the array's shape, and read by the
  store alone (``x[...] = y`` of another array ``y`` copies it: carried as ``y``, the two
  would be one array);
* the loop's value of it is read after the loop (or the loop stays for another reason: another
  of its results read, a write in its body, ``out[k] = acc.sum()``; and the first update
  reads the array, which keeps it carried: ``_kept_alive``), and a result made after the
  updates reads the last of them (``_reads_last``).

An in-place update never changes the array's shape: ``x += v`` raises where ``v`` would
broadcast ``x`` to a larger one. A value computed by maps from ``x`` and numbers keeps its
shape; any other operand (another array of the loop) might not, so the body's last value is
checked against the shape it began with (``fusejit::kept_shape``, raising as the update would,
at the first such update's line; a shape that grew at one update cannot shrink back at a
later one: each value is a map of the one before), or the update's own value where something
after it writes an array the caller can see. Every update's value is read (by the next one,
by the loop's result after the loop), so none is removed as dead code with the error NumPy's
update would raise. A mask's size check, computed from the shapes the step starts with,
moves to the step's start (a step that would raise twice may then raise the check's error
first). ``fuse_graph`` is unchanged; the executor runs this before it, on CPU plans of
``@fusejit.jit``.
"""

from __future__ import annotations

import numpy as np

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import Symbol, aten, prim
from ..ir.types import BoolType, FloatType, IntType, ScalarType, TensorType
from ..oplib.dtypes import category, result_type_from
from .alias_analysis import AliasDb, _same_block_ancestor, has_side_effects
from .dead_code_elimination import _may_write, eliminate_dead_code
from .fresh_stores import _SAME_ARRAY, _is_fresh, reads_only
from .more_maps import computed_from_any, is_map
from .pass_checks import graph_pass

KEPT_SHAPE = Symbol("fusejit::kept_shape")

# in-place op -> its out-of-place op (None: the stored value itself; a fill, the array full
# of its number: ``_filled``)
_UPDATES = {aten.add_: aten.add, aten.sub_: aten.sub, aten.mul_: aten.mul, aten.div_: aten.div,
            aten.copy_: None, aten.fill_: aten.full_like}
# Ops that always make a new array, shared with nothing, besides a clone and the maps.
_MADE = frozenset({aten.zeros, aten.zeros_like, aten.ones, aten.ones_like, aten.full,
                   aten.full_like, aten.empty, aten.empty_like})
# Reads of an array's shape alone.
_SHAPE_READS = frozenset({aten.size, aten.dim, aten.numel, aten.len})


@graph_pass
def functionalize_carried_arrays(graph: Graph) -> bool:
    """Carry as values the arrays each loop of ``graph`` updates in place, where only the loop
    can see them (the module's docstring); True if any was."""
    changed = False
    for loop in [n for n in graph.all_nodes() if n.kind == prim.Loop]:
        body = loop.blocks[0]
        if len(loop.inputs) != len(loop.outputs) + 2 or \
                len(body.inputs) != len(loop.outputs) + 1:
            continue
        db = AliasDb(graph)
        here = False
        for array in _mutated_within(loop):
            updates = _updated_outside(loop, array, db)
            if updates:
                _carry(loop, array)
                _rewrite(graph, loop, len(loop.outputs) - 1, updates)
                here = True
                db = AliasDb(graph)
        for k in range(len(loop.outputs)):
            updates = _carried(loop, k, db)
            if updates:
                _rewrite(graph, loop, k, updates)
                here = True
                db = AliasDb(graph)
        if here:
            _hoist_checks(body)
            changed = True
    if changed:
        eliminate_dead_code(graph)
    return changed


def _fresh(init: Value) -> bool:
    """Is ``init`` a new array, a tensor of known dtype and rank (a cast to another dtype,
    ``a0.astype(np.float32)`` of a float64 ``a0``, is one)?"""
    node, dtype = init.node, _dtype(init)
    if dtype is None:
        return False
    if node.kind in _SAME_ARRAY:
        source = _dtype(node.input(0)) if node.inputs else None
        return source is not None and source != dtype
    return node.kind in _MADE or _is_fresh(node)


def _carried(loop: Node, k: int, db: AliasDb) -> list[Node] | None:
    """The updates, in order, of the array ``loop`` carries at ``k``, where it qualifies."""
    body = loop.blocks[0]
    init, param, result = loop.inputs[2 + k], body.inputs[1 + k], body.outputs[1 + k]
    if not _fresh(init) or _dtype(param) != _dtype(init):
        return None
    for use in init.uses:
        if use.user is loop:
            if use.offset != 2 + k:
                return None
            continue
        before = _same_block_ancestor(use.user, loop.owning_block)
        if before is None or not loop.is_after(before) or not reads_only(use.user, init, db):
            return None
    found = _updates(param, body, db, 1 + k)
    if found is None or result not in found[1] and not (
            _fresh_result(result, body, k, db) and _reads_last(result, found[0][-1], found[1])):
        return None
    if not loop.outputs[k].uses and (found[0][0].kind == aten.copy_ or
                                     not _kept_alive(loop, found[0])):
        # (the loop's value unused after it: its updates' values, and the errors NumPy's
        # raise, live on only where dead-code elimination keeps the loop, and this value
        # carried: the first update reads the array the step starts with, which a store does
        # not)
        return None
    return found[0]


def _kept_alive(loop: Node, updates: list[Node]) -> bool:
    """Will dead-code elimination keep ``loop`` once ``updates`` are values: is another of
    its results read after it, or does its body write memory or have side effects besides
    them (``out[k] = acc.sum()``)?"""
    def writes(block: Block) -> bool:
        return any(node not in updates and (has_side_effects(node) or _may_write(node))
                   or any(writes(b) for b in node.blocks) for node in block.nodes())
    return any(out.uses for out in loop.outputs) or writes(loop.blocks[0])


def _reads_last(result: Value, last: Node, members: set[Value], depth: int = 8) -> bool:
    """Is ``result`` computed by maps from the array as the body's ``last`` update leaves it
    (a read of it placed after that update)? Else that update's value would be unused, and
    removed with the error NumPy's update raises (``y = x * 2; x += m; x = y``)."""
    node = result.node
    if depth <= 0 or node is None or not is_map(node) or not node.is_after(last):
        return False
    return any(v in members or _reads_last(v, last, members, depth - 1) for v in node.inputs
               if isinstance(v.type, TensorType))


def _fresh_result(result: Value, body: Block, k: int, db: AliasDb) -> bool:
    """Is ``result`` a new array the body makes (``x = np.clip(x, lo, hi)`` after ``x += v``),
    read only, but as the body's result at ``k`` (so the next step's array is again one that
    only the loop holds)?"""
    if result.node.owning_block is not body or not _fresh(result):
        return False
    return all(use.offset == 1 + k if use.user is body.return_node
               else reads_only(use.user, result, db) for use in result.uses)


def _mutated_within(loop: Node) -> list[Value]:
    """The arrays made before ``loop`` in its block (not among its inputs) that an update at
    the top of its body writes."""
    body = loop.blocks[0]
    arrays = []
    for node in body.nodes():
        if node.kind in _UPDATES and node.inputs:
            array = node.input(0)
            if array.node.owning_block is loop.owning_block and array not in arrays and \
                    array not in loop.inputs and loop.is_after(array.node):
                arrays.append(array)
    return arrays


def _updated_outside(loop: Node, array: Value, db: AliasDb) -> list[Node] | None:
    """The updates, in order, of ``array`` (a new array made before ``loop``, not carried) in
    the loop's body, where it qualifies: before the loop, only reads; after it, anything (the
    loop's result then)."""
    if not _fresh(array):
        return None
    body = loop.blocks[0]
    for use in array.uses:
        at = _same_block_ancestor(use.user, loop.owning_block)
        if at is None or at is not loop and not at.is_after(loop) and \
                not reads_only(use.user, array, db):
            return None
    if not any(_same_block_ancestor(use.user, loop.owning_block) is not loop
               for use in array.uses):
        return None     # (read by nothing after the loop: see _carried)
    found = _updates(array, body, db, None)
    return found[0] if found is not None else None


def _updates(start: Value, body: Block, db: AliasDb, result_at: int | None,
             any_result: bool = False) -> tuple[list[Node], set[Value]] | None:
    """The updates of the array ``start`` names in ``body``, in order, and its names there
    (``start`` and their results), where each update is a node of the body itself that casts
    as the in-place op would (``_casts``), and each other use in the body reads it only or is
    the body's result at ``result_at`` (at any place, with ``any_result``: a straight-line
    block's, ``fresh_updates``); else None. Uses outside the body are not looked at."""
    target = _dtype(start)
    updates: list[Node] = []
    members, pending = {start}, [start]
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = use.user
            if _same_block_ancestor(user, body) is None:
                continue
            if user is body.return_node:
                if use.offset != result_at and not any_result:
                    return None
            elif user.kind in _UPDATES and use.offset == 0:
                if user.owning_block is not body or len(user.outputs) != 1 or \
                        user.kind == aten.fill_ and _filled(user, target) is None:
                    return None
                updates.append(user)
                members.add(user.output())
                pending.append(user.output())
            elif not reads_only(user, value, db):
                return None
    if not updates or not all(_casts(u, target, members) for u in updates):
        return None
    return sorted(updates, key=_order(body)), members


def _carry(loop: Node, array: Value) -> None:
    """Make ``loop`` carry ``array`` (its last place): the body reads its parameter, the code
    after the loop the loop's result."""
    body = loop.blocks[0]
    param = body.add_input(type=array.type)
    for use in list(array.uses):
        if _same_block_ancestor(use.user, body) is not None:
            use.user.replace_input(use.offset, param)
    body.register_output(param)
    result = loop.add_output(type=array.type)
    for use in list(array.uses):
        at = _same_block_ancestor(use.user, loop.owning_block)
        if at is not None and at.is_after(loop):
            use.user.replace_input(use.offset, result)
    loop.add_input(array)


def _dtype(value: Value) -> np.dtype | None:
    t = value.type
    return t.dtype if isinstance(t, TensorType) and t.scalar_type is not None and \
        t.rank is not None else None


def _operand_kind(value: Value) -> tuple[np.dtype, str] | None:
    t = value.type
    if isinstance(t, TensorType):
        dtype = _dtype(value)
        return None if dtype is None else (dtype, "zero_dim" if t.rank == 0 else "tensor")
    for number, dtype in ((BoolType, np.bool_), (IntType, np.int64), (FloatType, np.float64)):
        if isinstance(t, number):
            return np.dtype(dtype), "scalar"
    return None


def _result_dtype(update: Node, target: np.dtype) -> np.dtype | None:
    """The dtype of ``update``'s out-of-place op (its stored value's for a copy), or None."""
    if update.kind == aten.copy_:
        return _dtype(update.input(1))
    if update.kind == aten.fill_:
        return target if _filled(update, target) is not None else None
    kinds = [(target, "tensor"), _operand_kind(update.input(1))]
    return None if kinds[1] is None else result_type_from(kinds)


def _casts(update: Node, target: np.dtype, members: set[Value]) -> bool:
    """Does ``update``'s value go into the array as the in-place op writes it: an op's result
    of the array's category (its dtype, or one it casts to: a result of a higher category
    raises), a stored value of any dtype (cast as ``x[...] = v`` casts) but at least the
    array's shape (``_covers``) and read by the store alone, a new array (``x[...] = y`` of
    another array ``y`` copies it: carried as ``y`` itself, a later update of either would
    write both)?"""
    dtype = _result_dtype(update, target)
    if dtype is None:
        return False
    if update.kind == aten.copy_:
        stored = update.input(1)
        return stored in members or len(stored.uses) == 1 and stored.node is not None and \
            is_map(stored.node) and _covers(stored, members, 8)
    return category(dtype) == category(target)


def _covers(value: Value, members: set[Value], depth: int) -> bool:
    """Is ``value`` the array, or a map with such an operand (its shape, maybe broadcast)?"""
    if value in members:
        return True
    node = value.node
    return depth > 0 and node is not None and is_map(node) and \
        any(_covers(v, members, depth - 1) for v in node.inputs if isinstance(v.type, TensorType))


def _rewrite(graph: Graph, loop: Node, k: int, updates: list[Node]) -> None:
    """Replace ``updates`` by their values (``_value_of``), each read of the array by the value
    its updates have made so far, and the body's result, where it is the array, by the last
    value. Where an update's operand might have grown the array (``unproven``), a value is
    checked (``kept_shape``): the body's result at its end, where it is the last value or a
    map of it and numbers (of its shape) and nothing after the update writes an array the
    caller can see or has side effects (``_harmless``; the later updates become values); else
    the value right after the update (such a write after it; ``x = x + y`` after the updates,
    which may grow ``x`` as NumPy would)."""
    body = loop.blocks[0]
    param, result = body.inputs[1 + k], body.outputs[1 + k]
    target = _dtype(param)
    members = {param} | {u.output() for u in updates}
    unproven = next((u for u in updates if not computed_from_any(u.input(1), members)), None)
    at_end = unproven is not None and computed_from_any(result, members) and \
        all(_harmless(n) for n in body.nodes() if n.is_after(unproven) and n not in updates)
    current, values = param, {param}
    for node in list(body.nodes()):
        _read_current(node, members, current)
        if node in updates:
            with graph.inserting_before(node):
                current = _value_of(graph, node, current, target)
            values.add(current)
            if node is unproven and not at_end:
                with graph.inserting_before(node):
                    current = _kept(graph, current, param, unproven)
                values.add(current)
    end = current if result in members else result
    if at_end:
        with graph.inserting_before(body.return_node):
            end = _kept(graph, end, param, unproven)
        values.add(end)
    body.return_node.replace_input(1 + k, end)
    for node in reversed(updates):
        node.destroy()
    _read_shape_at_start(body, param, values)


def _kept(graph: Graph, value: Value, param: Value, unproven: Node) -> Value:
    """``value``, checked to have ``param``'s shape (``fusejit::kept_shape``, raising at the
    line of ``unproven``, the first update whose operand might have grown the array)."""
    check = graph.insert(KEPT_SHAPE, [value, param])
    check.output().type = value.type.with_(sizes=param.type.sizes, strides=None) \
        if isinstance(value.type, TensorType) else value.type
    check.copy_location(unproven)
    return check.output()


def _read_shape_at_start(block: Block, param: Value, values: set[Value]) -> None:
    """Point the shape reads (``_SHAPE_READS``) of the array's values in ``block``, and of
    maps of them and numbers of its rank, at ``param``: each has its shape (where one grew,
    the body's last value has grown too, and ``kept_shape`` raises before the step ends). A
    mask's size check then waits for no kernel (``_hoist_checks``)."""
    rank = param.type.rank
    for node in block.nodes():
        if node.kind in _SHAPE_READS and node.inputs and node.input(0) is not param and \
                isinstance(node.input(0).type, TensorType) and \
                node.input(0).type.rank == rank and computed_from_any(node.input(0), values):
            node.replace_input(0, param)
        for inner in node.blocks:
            _read_shape_at_start(inner, param, values)


def _hoist_checks(body: Block) -> None:
    """Move each check of the loop's body (an ``If`` of no results whose blocks only raise)
    whose condition is computed from numbers and shapes known when the step starts to the
    step's start, where every node it passes writes nothing the caller can see and has no
    side effects (``_harmless``): it then stands between no two kernels (``vy[hit] *= r``
    checks ``hit``'s size against ``vy``'s between the kernel computing ``hit`` and the one
    updating ``vy``). A check that fails raises before those nodes run instead of after:
    nothing outside the call can tell, but for which error a step that has two raises (an
    op it passes that would raise first: ``w[i]`` past the end, before a mask of the wrong
    size)."""
    anchor: Node | None = None
    moved: set[Node] = set()
    passed: list[Node] = []
    for node in list(body.nodes()):
        if node in moved:
            continue
        deps = _check_inputs(node, body) if _is_check(node) else None
        if deps is None or not all(_harmless(n) for n in passed if n not in deps):
            passed.append(node)
            continue
        for dep in sorted(deps - moved, key=_order(body)) + [node]:
            first = next(iter(body.nodes()))
            if anchor is None and dep is not first:
                dep.move_before(first)
            elif anchor is not None and dep.prev is not anchor:
                dep.move_after(anchor)
            anchor = dep
            moved.add(dep)


def _order(block: Block):
    order = {node: i for i, node in enumerate(block.nodes())}
    return order.__getitem__


def _is_check(node: Node) -> bool:
    return node.kind == prim.If and not node.outputs and all(
        all(n.kind == prim.RaiseException for n in block.nodes()) for block in node.blocks)


def _check_inputs(check: Node, body: Block) -> set[Node] | None:
    """The nodes of ``body`` that ``check``'s condition is computed by, where each makes
    numbers only (no tensor, no block, no write) from shapes and values the loop does not
    change (a size check, not ``if i == 3: raise``), and its blocks read nothing of ``body``."""
    deps: set[Node] = set()
    pending = list(check.inputs)
    for block in check.blocks:
        for inner in block.nodes():
            if any(_same_block_ancestor(v.node, body) is not None for v in inner.inputs):
                return None
    while pending:
        value = pending.pop()
        node = value.node
        if node is body.param_node and not isinstance(value.type, TensorType):
            return None     # (the step's counter, a number the loop carries: not a shape)
        if node is None or node is body.param_node or node.owning_block is not body or \
                node in deps:
            continue
        if node.blocks or node.schema is None or node.schema.written or \
                any(isinstance(out.type, TensorType) for out in node.outputs):
            return None
        if node.kind in _SHAPE_READS:
            # (the shape of an array the step starts with, or one made before the loop)
            array = node.input(0).node
            if array is not body.param_node and array.owning_block is body:
                return None
            pending.extend(node.inputs[1:])
        else:
            pending.extend(node.inputs)
        deps.add(node)
    return deps


def _harmless(node: Node) -> bool:
    """Could an error raised after ``node`` instead of before it go unnoticed: does it (and
    each node in its blocks) have no side effects but a check's raise (the error's kind may
    then differ, no state), and write only the function's own new arrays (``_local``: they
    die with the error), never one the caller can see?"""
    if _is_check(node):
        return True
    if has_side_effects(node):
        return False
    schema = node.schema
    if schema is not None:
        return all(_local(node.inputs[i]) for i in schema.written if i < len(node.inputs))
    return all(_harmless(n) for block in node.blocks for n in block.nodes())


def _local(value: Value, seen: frozenset = frozenset(), depth: int = 8) -> bool:
    """Is ``value`` (or the array it views or updates) one the function made, not an argument
    nor anything an argument could be: a new array (``_fresh``), or a loop's variable that
    starts as one and is one at the end of each step (``seen``: the variables already being
    asked about, which stay local if nothing else says otherwise)?"""
    node = value.node
    if depth <= 0 or node is None:
        return False
    if node.kind == prim.Param:
        owner = node.owning_block.owning_node if node.owning_block is not None else None
        if owner is None or owner.kind != prim.Loop:
            return False        # (an argument)
        if value in seen:
            return True
        k, seen = value.offset - 1, seen | {value}
        return k >= 0 and _local(owner.inputs[2 + k], seen, depth - 1) and \
            _local(node.owning_block.outputs[1 + k], seen, depth - 1)
    if _fresh(value):
        return True
    schema = node.schema
    aliased = node.inputs and schema is not None and schema.returns and \
        node.kind in (*_UPDATES, aten.slice, aten.select, aten.reshape, aten.view,
                      aten.unsqueeze, aten.squeeze, aten.t, aten.transpose, aten.permute)
    return bool(aliased) and _local(node.input(0), seen, depth - 1)


def _read_current(node: Node, members: set[Value], current: Value) -> None:
    """Point ``node``'s reads of the array (in its blocks too) at ``current``."""
    for i, value in enumerate(node.inputs):
        if value in members and value is not current:
            node.replace_input(i, current)
    for block in node.blocks:
        for inner in block.nodes():
            _read_current(inner, members, current)


def _value_of(graph: Graph, update: Node, current: Value, target: np.dtype) -> Value:
    """The value ``update`` (its reads of the array at ``current``) leaves in the array: its
    out-of-place op, cast to the array's dtype where that differs."""
    op = _UPDATES[update.kind]
    if op is None:
        value = update.input(1)
    elif update.kind == aten.fill_:
        # (np.full_like(x, v) of x's dtype; broadcast_read_fills makes one that is only read
        # a view of one element)
        none = graph.insert_constant(None)
        node = graph.insert(op, [current, update.input(1), none, none, none, none, none])
        node.copy_location(update)
        node.output().type = _typed(current, target, current.type.rank)
        value = node.output()
    else:
        node = graph.insert(op, [current, *update.inputs[1:]])
        node.copy_location(update)
        ranks = [current.type.rank] + [v.type.rank for v in update.inputs[1:2]
                                       if isinstance(v.type, TensorType)]
        node.output().type = _typed(current, _result_dtype(update, target), max(ranks))
        value = node.output()
    if _dtype(value) != target:
        cast = graph.insert(aten.type_as, [value, current])
        cast.copy_location(update)
        cast.output().type = _typed(current, target, value.type.rank)
        value = cast.output()
    return value


def _filled(fill: Node, target: np.dtype) -> int | float | bool | None:
    """The number ``fill`` (``aten::fill_``: ``x.fill(v)``, ``x[...] = v``, ``x[:] = v``)
    writes into an array of dtype ``target``, where it is a constant that dtype holds exactly
    (so every way of writing it agrees: NumPy raises for -1 into uint8, where a full_like
    would wrap it); else None."""
    if len(fill.inputs) != 2 or fill.input(1).node.kind != prim.Constant:
        return None
    value = constant_value(fill.input(1).node)
    if type(value) not in (bool, int, float):
        return None
    try:
        held = np.array(value, dtype=target)
    except (OverflowError, ValueError, TypeError):
        return None
    same = held.item() == value or value != value and held.item() != held.item()
    return value if same else None


def _typed(like: Value, dtype: np.dtype, rank: int) -> TensorType:
    return TensorType(ScalarType.from_dtype(dtype), (None,) * rank, None, None,
                      like.type.device)


__all__ = ["KEPT_SHAPE", "functionalize_carried_arrays"]
