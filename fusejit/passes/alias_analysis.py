"""Alias analysis: which values may share memory, which nodes read or write it, and whether a
node may be moved without changing what the program computes (PyTorch's ``AliasDb``).

Every value of a mutable type (tensors, lists, tuples holding them, futures) points to a set of
abstract memory locations. An op's schema says how its outputs relate to its inputs::

    %v : Tensor = aten::t(%x)              # "Tensor(a) self -> Tensor(a)": %v aliases %x
    %w : Tensor = aten::add_(%v, %y, %one) # "Tensor(a!) self": writes what %v (so %x) points to
    %z : Tensor = aten::exp(%x)            # no annotation: a fresh location; reads %x

Graph inputs point to a per-type *wildcard* location (the caller may pass aliased tensors);
ops without a schema are treated conservatively (their outputs are wildcards and they write
everything they receive). Nodes with side effects (``prim::Print``...) are never reordered.

The fuser asks two questions: ``move_before_topologically_valid(n, before)`` moves ``n`` just
before ``before`` (dragging after ``before`` the nodes that must stay behind ``n``), or refuses;
``could_move_before_topologically`` asks the same without moving anything.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..ir.graph import Block, Graph, Node, Value
from ..ir.limits import check_depth
from ..ir.symbols import CONTAINERS, FUSION_GROUPS, SIDE_EFFECTS, prim
from ..ir.types import (
    AnyType,
    FutureType,
    ListType,
    OptionalType,
    TensorType,
    TupleType,
    Type,
)

__all__ = ["AliasDb", "has_side_effects", "is_mutable_type"]

_EMPTY: frozenset[int] = frozenset()

# prim kinds that only compute fresh values from their inputs and write nothing.
_PURE_PRIMS = frozenset({
    prim.Constant, prim.BroadcastSizes, prim.ChunkSizes, prim.FusedConcat, prim.NumToTensor,
    prim.ImplicitTensorToNum, prim.Uninitialized, prim.dtype, prim.device, prim.max, prim.min,
    prim.abs, prim.GetAttr, prim.Load, prim.CallFunction, *FUSION_GROUPS,
})
# kinds whose outputs are views of their (first) tensor inputs.
_VIEW_PRIMS = frozenset({prim.ConstantChunk, prim.BroadcastingChunk, prim.unchecked_cast})
_UNPACKS = frozenset({prim.ListUnpack, prim.TupleUnpack, prim.TupleIndex})
# An item read from a list (``aten::__getitem__``, ``aten::pop``) points to the list itself:
# what the list holds is looked up when asked (``_with_contained``), so an item appended after
# the read in the program (a loop's next iteration reads it) is seen too
_LIST_READS = frozenset({"aten::__getitem__", "aten::pop"})
_PACKS = frozenset({prim.ListConstruct, prim.TupleConstruct})
_IF = prim.If
_LOOP = prim.Loop
_PARAM = prim.Param



def is_mutable_type(t: Type) -> bool:
    """Can a value of type ``t`` share memory with another (tensors and containers)?"""
    if isinstance(t, (TensorType, ListType, FutureType, AnyType)):
        return True
    if isinstance(t, TupleType):
        return any(is_mutable_type(e) for e in t.elems)
    if isinstance(t, OptionalType):
        return is_mutable_type(t.elem)
    return False


def _category(t: Type) -> str:
    while isinstance(t, OptionalType):
        t = t.elem
    return type(t).__name__


def has_side_effects(node: Node) -> bool:
    """Side effects of ``node`` or of any node in its blocks (such nodes never move)."""
    if node.kind in SIDE_EFFECTS:
        return True
    return any(has_side_effects(n) for b in node.blocks for n in b.nodes())


class AliasDb:
    """Points-to sets for the values of one graph, computed eagerly, extended lazily for values
    the passes create later (their nodes are analysed when first asked about)."""

    def __init__(self, graph: Graph):
        check_depth(graph)  # the analysis recurses once per level of blocks
        self.graph = graph
        self._points_to: dict[Value, frozenset[int]] = {}
        self._contained: dict[int, frozenset[int]] = {}
        # Locations carried into a loop's body or back to its next iteration, to the
        # locations of the body's parameter they may then be (``_carry``): a value pointing to
        # one of them points to those too.
        self._joins: dict[int, frozenset[int]] = {}
        self._made: dict[int, Value] = {}       # location -> the result made there
        self._wildcards: dict[str, int] = {}
        self._count = 0
        self._analyze_block(graph.block)

    # -- building the points-to sets ---------------------------------------------------------

    def _fresh(self, contained: Iterable[int] = ()) -> frozenset[int]:
        loc = self._count
        self._count += 1
        inner = frozenset(contained)
        if inner:
            self._contained[loc] = inner
        return frozenset((loc,))

    def _made_for(self, v: Value) -> frozenset[int]:
        """A new location for the result ``v``, memory its node makes (``made_here``)."""
        locs = self._fresh()
        self._made.update(dict.fromkeys(locs, v))
        return locs

    def made_here(self, v: Value) -> bool:
        """Is ``v`` memory its node makes each time it runs (a map's result, a copy)? Then
        no value that was there before that node ran is ``v`` or a view of it, though a loop
        may carry ``v`` back to be one of them in its next iteration (``_carry``)."""
        self.points_to(v)
        raw = self._points_to[v]
        return len(raw) == 1 and self._made.get(next(iter(raw))) is v

    def _wildcard(self, t: Type) -> frozenset[int]:
        key = _category(t)
        loc = self._wildcards.get(key)
        if loc is None:
            elems: list[Type] = []
            if isinstance(t, ListType):
                elems = [t.elem]
            elif isinstance(t, TupleType):
                elems = list(t.elems)
            elif isinstance(t, FutureType):
                elems = [t.elem]
            inner = set()
            for e in elems:
                if is_mutable_type(e):
                    inner |= self._wildcard(e)
            (loc,) = self._fresh(inner)
            self._wildcards[key] = loc
        return frozenset((loc,))

    def _analyze_block(self, block: Block) -> None:
        owner = block.owning_node
        for v in block.inputs:
            if owner is not None and owner.kind == _LOOP and isinstance(v.type, TensorType):
                # an array a loop carries: a location of its own, which the arrays carried in
                # and back then join (``_carry``)
                self._set(v, self._fresh())
            else:
                self._set(v, self._wildcard(v.type) if is_mutable_type(v.type) else _EMPTY)
        for node in block.nodes():
            for sub in node.blocks:
                self._analyze_block(sub)
            self._analyze_node(node)

    def _set(self, v: Value, locs: frozenset[int]) -> None:
        self._points_to[v] = locs if is_mutable_type(v.type) else _EMPTY

    def _analyze_node(self, node: Node) -> None:
        kind = node.kind
        ins = [self.points_to(v) for v in node.inputs]
        union = frozenset().union(*ins) if ins else _EMPTY
        if kind in _PACKS:
            self._set(node.output(), self._fresh(union))
        elif kind in _UNPACKS:
            inner = frozenset().union(*(self._contained.get(loc, _EMPTY) for loc in
                                        (ins[0] if ins else _EMPTY)))
            for out in node.outputs:
                self._set(out, inner or (self._wildcard(out.type)
                                         if is_mutable_type(out.type) else _EMPTY))
        elif kind in _VIEW_PRIMS:
            for out in node.outputs:
                self._set(out, union)
        elif kind in _LIST_READS and ins and isinstance(node.input(0).type, ListType):
            for out in node.outputs:
                self._set(out, ins[0] if is_mutable_type(out.type) else _EMPTY)
        elif kind == _IF:
            for i, out in enumerate(node.outputs):
                self._set(out, frozenset().union(
                    *(self.points_to(b.outputs[i]) for b in node.blocks)))
        elif kind == _LOOP:
            body = node.blocks[0] if node.blocks else None
            for i, out in enumerate(node.outputs):
                locs = self.points_to(node.input(i + 2)) if i + 2 < len(ins) else _EMPTY
                if body is not None and i + 1 < len(body.outputs):
                    locs = locs | self.points_to(body.outputs[i + 1])
                    if i + 1 < len(body.inputs):
                        self._carry(locs, self.points_to(body.inputs[i + 1]))
                self._set(out, locs)
        elif kind in _PURE_PRIMS or kind in CONTAINERS:
            for out in node.outputs:
                self._set(out, self._made_for(out))
        else:
            schema = node.schema
            if schema is None:
                for out in node.outputs:
                    self._set(out, self._wildcard(out.type) if is_mutable_type(out.type)
                              else _EMPTY)
                return
            aliased = frozenset().union(*(
                locs for locs, arg in zip(ins, schema.arguments)
                if arg.alias and "->" not in arg.alias and "*" not in arg.alias))
            entering = [locs for locs, arg in zip(ins, schema.arguments)
                        if arg.alias and "->" in arg.alias]
            if entering:
                # (``append(t[](a!) self, t(c -> *) el)``: ``el`` is held by the list it is
                # written into from now on; an item read from the list may be it)
                held = frozenset().union(*entering)
                for locs, arg in zip(ins, schema.arguments):
                    if arg.alias and "!" in arg.alias:
                        for loc in locs:
                            self._contained[loc] = self._contained.get(loc, _EMPTY) | held
            for out in node.outputs:
                self._set(out, aliased if aliased else self._made_for(out))

    def _carry(self, locs: frozenset[int], param: frozenset[int]) -> None:
        """The memory at ``locs`` enters a loop's body as its parameter pointing to ``param``
        (carried in, or back from the last iteration): what writes the parameter writes it,
        and what writes it writes the parameter. (Two ``np.empty_like(q)`` carried by a loop
        that writes them were one array to common-subexpression elimination: each pointed to
        its own location, the parameters to another.)"""
        for loc in locs - param:
            self._joins[loc] = self._joins.get(loc, _EMPTY) | param

    def _joined(self, locs: frozenset[int]) -> frozenset[int]:
        """``locs`` with every location they were carried into (``_carry``), transitively."""
        result, work = set(locs), [loc for loc in locs if loc in self._joins]
        while work:
            for loc in self._joins.get(work.pop(), ()):
                if loc not in result:
                    result.add(loc)
                    work.append(loc)
        return frozenset(result) if len(result) > len(locs) else locs

    def points_to(self, v: Value) -> frozenset[int]:
        """The memory locations ``v`` may refer to (empty for ints, floats...)."""
        found = self._points_to.get(v)
        if found is not None:
            return self._joined(found) if self._joins else found
        # A value created after the analysis: analyse its producer (iteratively: chains of
        # new nodes can be long).
        stack = [v.node]
        while stack:
            node = stack[-1]
            missing = [i.node for i in node.inputs if i not in self._points_to]
            if node.kind == _PARAM:
                owner = node.owning_block.owning_node if node.owning_block else None
                for out in node.outputs:
                    wild = self._wildcard(out.type) if is_mutable_type(out.type) else _EMPTY
                    if owner is not None and owner.kind == _IF:
                        wild = _EMPTY
                    self._set(out, wild)
                stack.pop()
            elif missing:
                stack.extend(missing)
            else:
                for b in node.blocks:
                    for out in b.outputs:
                        if out not in self._points_to:
                            self.points_to(out)
                self._analyze_node(node)
                stack.pop()
        found = self._points_to[v]
        return self._joined(found) if self._joins else found

    def _with_contained(self, locs: frozenset[int]) -> set[int]:
        result, work = set(), list(locs)
        while work:
            loc = work.pop()
            if loc in result:
                continue
            result.add(loc)
            work.extend(self._contained.get(loc, ()))
        return result

    # -- reads and writes ----------------------------------------------------------------------

    def get_writes(self, node: Node) -> set[int] | frozenset[int]:
        """Locations ``node`` (or a node in its blocks) may write."""
        if not node.blocks:
            # The common case, asked for every node a move walks past: a node that writes
            # nothing whatever its inputs point to.
            kind = node.kind
            if kind in _PURE_PRIMS or kind in CONTAINERS or kind in _VIEW_PRIMS:
                return _EMPTY
            schema = node.schema
            if schema is not None and not schema.written:
                return _EMPTY
        result: set[int] = set()
        self._writes_into(node, result)
        return result

    def _writes_into(self, node: Node, result: set[int]) -> None:
        kind = node.kind
        if not (kind in _PURE_PRIMS or kind in CONTAINERS or kind in _VIEW_PRIMS
                or kind in (_IF, _LOOP)):
            schema = node.schema
            if schema is None:
                if kind not in SIDE_EFFECTS:
                    for v in node.inputs:
                        result |= self._with_contained(self.points_to(v))
            else:
                inputs = node.inputs
                for i in schema.written:
                    if i < len(inputs):
                        # (with what it holds: an item read from a list points to the list,
                        # so ``d += 1`` of ``for d in items`` writes the arrays appended to
                        # it; and appending to a list counts as writing what it holds, so an
                        # array appended in a loop stays fresh in each iteration)
                        result |= self._with_contained(self.points_to(inputs[i]))
        for b in node.blocks:
            for n in b.nodes():
                self._writes_into(n, result)

    def get_reads(self, node: Node) -> set[int]:
        """Locations ``node`` (or a node in its blocks) may read, contained elements included."""
        result: set[int] = set()
        self._reads_into(node, result)
        return result

    def _reads_into(self, node: Node, result: set[int]) -> None:
        for v in node.inputs:
            locs = self.points_to(v)
            if locs:
                result |= self._with_contained(locs)
        for b in node.blocks:
            for n in b.nodes():
                self._reads_into(n, result)

    def may_alias(self, a: Value, b: Value) -> bool:
        return bool(self._with_contained(self.points_to(a))
                    & self._with_contained(self.points_to(b)))

    def has_writers(self, node: Node) -> bool:
        """Does some node of the graph write memory that one of ``node``'s outputs may use?"""
        locs: set[int] = set()
        for out in node.outputs:
            locs |= self._with_contained(self.points_to(out))
        if not locs:
            return False
        return any(self.get_writes(n) & locs for n in self.graph.all_nodes()
                   if not n.blocks)

    def written_locations(self) -> set[int]:
        """Every location any node of the graph may write (for passes that ask many times)."""
        result: set[int] = set()
        for n in self.graph.all_nodes():
            if not n.blocks:
                self._writes_into(n, result)
        return result

    def writes_between(self, first: Node, last: Node, locations: set[int] | frozenset[int],
                       skip: frozenset[Node] | set[Node] = frozenset()) -> bool:
        """Does a node after ``first`` and before ``last`` (of one block; their blocks'
        nodes included), but those in ``skip``, write any of ``locations``?"""
        node = first.next
        while node is not last:
            if node not in skip and self.get_writes(node) & locations:
                return True
            node = node.next
        return False

    def locations(self, v: Value) -> set[int]:
        """The locations ``v`` may point to, with what they contain."""
        return self._with_contained(self.points_to(v))

    def output_locations(self, node: Node) -> set[int]:
        locs: set[int] = set()
        for out in node.outputs:
            locs |= self._with_contained(self.points_to(out))
        return locs

    # -- moving nodes --------------------------------------------------------------------------

    def move_before_topologically_valid(self, n: Node, move_point: Node) -> bool:
        """Move ``n`` just before ``move_point`` if that keeps every dependency; else False."""
        return self._try_move(n, move_point, before=True, dry_run=False)

    def move_after_topologically_valid(self, n: Node, move_point: Node) -> bool:
        return self._try_move(n, move_point, before=False, dry_run=False)

    def could_move_before_topologically(self, n: Node, move_point: Node) -> bool:
        """Would ``move_before_topologically_valid`` succeed? (Moves nothing.)"""
        return self._try_move(n, move_point, before=True, dry_run=True)

    def could_move_after_topologically(self, n: Node, move_point: Node) -> bool:
        return self._try_move(n, move_point, before=False, dry_run=True)

    def _try_move(self, to_move: Node, move_point: Node, before: bool, dry_run: bool) -> bool:
        # Walk from ``to_move`` toward ``move_point``, collecting into a working set every node
        # that depends on what is being moved; then check the working set can pass the point.
        if to_move.owning_block is not move_point.owning_block:
            return False
        if to_move is move_point:
            return True
        forward = not to_move.is_after(move_point)
        cur = to_move.next if forward else to_move.prev
        on_move_side = (before and forward) or (not before and not forward)
        if on_move_side and cur is move_point:
            return True
        if has_side_effects(to_move) or (not on_move_side and has_side_effects(move_point)):
            return False
        ws = _WorkingSet(to_move, self)
        while cur is not move_point:
            # (as PyTorch's Node::hasSideEffects: a node's own kind, not its blocks', so pure
            # nodes pass an ``if`` that raises, a check of shapes between a producer and its
            # consumer; such an ``if`` never travels with the nodes that move)
            if cur.kind in SIDE_EFFECTS:
                return False
            if ws.depends_on(cur):
                if has_side_effects(cur):
                    return False
                ws.add(cur)
            cur = cur.next if forward else cur.prev
        split = on_move_side
        if split:
            ws.erase_mover()
        if ws.depends_on(move_point):
            return False
        if dry_run:
            return True
        if split:
            _move(to_move, move_point, before)
            anchor = move_point
            for dep in ws.nodes:
                _move(dep, anchor, not before)
                anchor = dep
        else:
            _move(to_move, move_point, before)
            anchor = to_move
            for dep in ws.nodes:
                _move(dep, anchor, before)
                anchor = dep
        return True


def _move(n: Node, anchor: Node, before: bool) -> None:
    if before:
        n.move_before(anchor)
    else:
        n.move_after(anchor)


def _same_block_ancestor(target: Node, block: Block | None) -> Node | None:
    node: Node | None = target
    while node is not None and node.owning_block is not block:
        owner = node.owning_block
        node = owner.owning_node if owner is not None else None
    return node


def _users_same_block(n: Node) -> set[Node]:
    users: set[Node] = set()
    for out in n.outputs:
        for use in out.uses:
            found = _same_block_ancestor(use.user, n.owning_block)
            if found is not None:
                users.add(found)
    return users


class _WorkingSet:
    """The node being moved plus the nodes that must travel with (or stay behind) it."""

    __slots__ = ("db", "mover", "mover_users", "mover_reads", "mover_writes", "nodes",
                 "members", "users", "reads", "writes")

    def __init__(self, mover: Node, db: AliasDb):
        self.db = db
        self.mover: Node | None = mover
        self.mover_users = _users_same_block(mover)
        self.mover_writes = db.get_writes(mover)
        self.mover_reads = db.get_reads(mover)
        self.nodes: list[Node] = []
        self.members: set[Node] = set()
        self.users: set[Node] = set()
        self.reads: set[int] = set()
        self.writes: set[int] = set()

    def add(self, n: Node) -> None:
        self.nodes.append(n)
        self.members.add(n)
        self.users |= _users_same_block(n)
        self.writes |= self.db.get_writes(n)
        self.reads |= self.db.get_reads(n)

    def erase_mover(self) -> None:
        self.mover = None
        self.mover_users = set()
        self.mover_reads = set()
        self.mover_writes = set()

    def depends_on(self, n: Node) -> bool:
        if self.mover is None and not self.nodes:
            return False
        return self._data_dependency(n) or self._mutability_dependency(n)

    def _data_dependency(self, n: Node) -> bool:
        pivot = self.mover if self.mover is not None else self.nodes[0]
        if n.is_after(pivot):
            return n in self.mover_users or n in self.users
        users = _users_same_block(n)
        if self.mover is not None and self.mover in users:
            return True
        return not users.isdisjoint(self.members)

    def _mutability_dependency(self, n: Node) -> bool:
        n_writes = self.db.get_writes(n)
        if n_writes and (n_writes & self.reads or n_writes & self.mover_reads):
            return True
        if self.writes or self.mover_writes:
            n_reads = self.db.get_reads(n)
            return bool(n_reads & self.writes or n_reads & self.mover_writes)
        return False
