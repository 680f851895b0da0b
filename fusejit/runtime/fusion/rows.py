"""Python source for one row-reduction group (``passes/reduction_fusion.py``), for Numba.

The kernel runs over the rows of the iteration shape ``S = (rows..., n)`` (a ``prange`` in the
parallel variant). Within a row it makes one pass over the columns per level of reductions,
each accumulating that level's reductions, then one last pass writing the element outputs;
values computed once per row (the reductions, and pointwise ops on them) live in registers.
Element values are recomputed in each pass that needs them, except those the last reduction
pass computes for the output pass too (softmax's exponentials): a row buffer keeps them.
Softmax, ``e = exp(x - x.max(-1)); e / e.sum(-1)``::

    keep_t2 = np.empty(n, np.float32)                  # (per row in the parallel variant)
    for row in range(rows):
        r0 = x0[b0:b0 + n]                             # b0: where the row starts
        acc_t0_max = -inf                              # pass 1: the max, NaN-propagating
        for c0 in range(0, n, EXTREMA_BLOCK):          # (float32: a sum for NaN)
            ...  part = rm.fmax(part, a0); odd = rm.add(odd, a0)   # (NaN if a0 is)
            if odd != odd or part == 0.0: ...  part = rm.maximum(part, a0)  # the block again
        t0 = acc_t0_max
        acc_t3_sum = 0.0                               # pass 2: sum of exp(x - max)
        for blk in range(...):                         # float32 partial sums per block
            c0 = ...; c1 = ...                         # (of BLOCK; a short last one cut: TAIL)
            ...  t2 = fm.exp_f32(a0 - t0); part = rm.add(part, t2); kq_t2[c] = t2
            acc_t3_sum += np.float64(part)
        t3 = np.float32(acc_t3_sum)
        w0 = o0[row * n:row * n + n]                   # output pass
        for c in range(n):
            t2 = keep_t2[c]
            w0[c] = np.float32(t2 / t3)

The parallel kernel of a call with one long row (a reduction of a whole array) shares out the
row's blocks instead (``split``): chunks of blocks, one thread each, keep each block's partials,
which are then combined in block order.
Tensor inputs are read from where their rows start (a constant step per input, or a table
``bases`` the caller fills from any strides and broadcasts) with one step along the row,
specialised as unit, zero or strided. Element expressions come from the fused kernels'
renderer table (``templates.RENDERERS``), so they compute exactly what a fusion group computes.
Sums accumulate blocks of ``BLOCK`` elements in vectorised partial sums, added up in float64
(accurate like NumPy's pairwise sums); max and min propagate NaN as NumPy does, and order
-0.0 below 0.0. Integers and bools: their max and min, and sums in int64 (NumPy's dtype).
"""

from __future__ import annotations

import re

import numpy as np

from ... import __version__
from ...errors import IRError
from ...ir.constants import constant_value
from ...ir.graph import Graph, Node, Value
from ...ir.symbols import aten, prim
from ...ir.types import BoolType, FloatType, IntType, NumberType, TensorType
from ...oplib.render import Operand
from ...passes.reduction_fusion import (
    SCANS,
    VIEWS,
    keeps_dim,
    kept_axis,
    reduced_dim,
    reduced_dims,
    view_class,
)
from .codegen import (
    _SUPPORTED,
    HELPERS_DIGEST,
    STRIDED,
    UNIT,
    ZERO,
    ArgSpec,
    _Generator,
    _plain,
    _type_name,
    format_version,
)
from .loops import ScalarPass, inner_loops
from .rowargs import ARG_KINDS, ArgReduction
from .templates import (
    DTYPE_ONLY,
    RENDERERS,
    VECTOR_MATH,
    WIDENED_CALLS,
    fast_name,
    kernel_decorator,
    math_imports,
    math_modules,
)

ELEMENT, ROW, FLAT = "element", "row", "flat"
# An input's class in rows it does not walk at one step (``row_kernel._row_split``): read by
# runs of elements at one step into a buffer per block of the row.
NESTED = "nested"
# Position of the keepdim input of each reduction the kernels compute.
KEEPDIM_AT = {aten.sum: 2, aten.mean: 2, aten.amax: 2, aten.amin: 2, aten.var: 3,
              aten.std: 3, aten.argmax: 2, aten.argmin: 2}
BLOCK = 1024          # elements summed in float32 (or the input's float) before float64
# elements of a pass of maxima and minima between its checks for NaN and zeros (8192: 7% less
# time than 1024 over rows of 10^5 float32, one thread)
EXTREMA_BLOCK = 8192
# elements of a pass of an argmax (argmin) of bools between its checks for a True (False),
# where it stops (``rowargs.ArgReduction``)
SEARCH_BLOCK = 256
_NAMES = re.compile(r"\b[at]\d+\b")


class Reduction:
    """One accumulator of the kernel: ``kind`` is sum, max, min, sqdev (the sum of squared
    deviations from the mean ``mean`` of an earlier level, for var and std) or sumexp (the sum
    of exp(x - m) for the max ``mean`` of an earlier level, for softmax)."""

    __slots__ = ("node", "kind", "source", "level", "mean", "name")

    def __init__(self, node: Node, kind: str, source: Value, level: int,
                 mean: Reduction | None = None):
        self.node = node
        self.kind = kind
        self.source = source
        self.level = level
        self.mean = mean
        self.name = ""


def shared_with(r: Reduction, reductions: list[Reduction]) -> Reduction:
    """The first of ``reductions`` accumulating what ``r`` does (``x.mean()`` beside
    ``x.var()`` sums ``x`` once)."""
    return next(o for o in reductions if o.kind == r.kind and o.source is r.source)


class RowGroup:
    """The static structure of a row-reduction subgraph: input kinds, value classes, levels."""

    __slots__ = ("graph", "axis", "dim", "input_kinds", "tensor_index", "scalar_index",
                 "classes", "levels", "reductions", "scans", "scanned", "outputs", "keepdim")

    def __init__(self, graph: Graph, axis: str = "row"):
        self.graph = graph
        self.axis = axis        # "row": last-axis reductions; "column": one other axis
        self.dim: int | None = None       # the axis reduced (0 to rank - 1), from the first
        self.input_kinds: list[str] = []
        self.tensor_index: dict[int, int] = {}
        self.scalar_index: dict[int, int] = {}
        self.classes: dict[Value, str] = {}
        self.levels: dict[Value, int] = {}
        self.reductions: list[Reduction] = []
        # running sums and products (``SCANS``): computed in the last pass, where their
        # values are (``scanned``: values computed from them, which no reduction may read)
        self.scans: list[Node] = []
        self.scanned: set[Value] = set()
        self.keepdim: dict[Node, bool] = {}
        for pos, value in enumerate(graph.inputs):
            if isinstance(value.type, TensorType):
                self.tensor_index[pos] = len(self.tensor_index)
                self.input_kinds.append("tensor")
                self.classes[value] = ELEMENT
            elif isinstance(value.type, (FloatType, IntType, BoolType, NumberType)):
                self.scalar_index[pos] = len(self.scalar_index)
                self.input_kinds.append("scalar")
            else:
                raise IRError(f"row-reduction group input {pos} has type {value.type}")
            self.levels[value] = 0
        for node in graph.nodes():
            self._analyse(node)
        if not self.reductions and not self.scans:
            raise IRError("a row-reduction group needs a reduction")
        self.outputs = list(graph.outputs)
        for value in self.outputs:
            if value not in self.classes:
                raise IRError(f"row-reduction group output %{value.debug_name} is not a tensor")

    def _analyse(self, node: Node) -> None:
        if node.kind == prim.Constant:
            self.levels[node.output()] = 0
            return
        if any(v in self.scanned for v in node.inputs):
            if node.kind in KEEPDIM_AT or node.kind == aten.softmax:
                raise IRError(f"{node.kind} of a running sum or product in a row group")
            self.scanned.update(node.outputs)
        if node.kind in SCANS and self.axis == "row":
            # a running sum or product along the rows, in the last pass (no level of its own)
            source = node.input(0)
            if self.classes.get(source) != ELEMENT or len(node.inputs) != 3 \
                    or len(node.outputs) != 1:
                raise IRError(f"{node.kind} of a value that is not an element value")
            self._reduces(node)
            self.scans.append(node)
            self.scanned.add(node.output())
            self.classes[node.output()] = ELEMENT
            self.levels[node.output()] = self.levels[source]
            return
        if node.kind in KEEPDIM_AT:
            source = node.input(0)
            if self.classes.get(source) != ELEMENT:
                raise IRError(f"{node.kind} of a value that is not an element value")
            arity = (2, 4) if node.kind in (aten.sum, aten.mean) else (KEEPDIM_AT[node.kind] + 1,)
            if len(node.inputs) not in arity or len(node.outputs) != 1:
                raise IRError(f"{node.kind} with {len(node.inputs)} inputs in a reduction group")
            self._reduces(node)
            level = self.levels[source] + 1
            keepdim = keeps_dim(node)
            self.keepdim[node] = keepdim
            kind = {aten.sum: "sum", aten.mean: "sum", aten.amax: "max", aten.amin: "min",
                    aten.argmax: "argmax", aten.argmin: "argmin"}.get(node.kind)
            if kind is None:      # var, std: the mean first, then squared deviations
                mean = Reduction(node, "sum", source, level)
                self.reductions += [mean, Reduction(node, "sqdev", source, level + 1, mean)]
                level += 1
            else:
                self.reductions.append(Reduction(node, kind, source, level))
            self.classes[node.output()] = ROW if keepdim else FLAT
            self.levels[node.output()] = level
            return
        if node.kind in VIEWS:
            rank = self.reductions[0].source.type.rank if self.reductions else None
            found = view_class(node, kept_axis(self.axis, self.dim, rank), rank,
                               self.classes.get(node.input(0)))
            if found is None:
                raise IRError(f"{node.kind} in a reduction group is not a per-row view")
            self.classes[node.output()] = found
            self.levels[node.output()] = self.levels[node.input(0)]
            return
        if node.kind == aten.softmax and self.axis == "row":
            # exp(x - max) / sum(exp(x - max)): the max, then the sum, then the elements
            source = node.input(0)
            if self.classes.get(source) != ELEMENT:
                raise IRError("aten::softmax of a value that is not an element value")
            self._reduces(node)
            level = self.levels[source] + 1
            top = Reduction(node, "max", source, level)
            self.reductions += [top, Reduction(node, "sumexp", source, level + 1, top)]
            self.classes[node.output()] = ELEMENT
            self.levels[node.output()] = level + 1
            return
        if node.kind not in RENDERERS or len(node.outputs) != 1 or node.blocks:
            raise IRError(f"{node.kind} cannot run in a row-reduction kernel")
        found = {self.classes[v] for v in node.inputs if isinstance(v.type, TensorType)}
        if not found or (FLAT in found and found != {FLAT} and self.axis == "row"
                         and self.dim != 0):
            raise IRError(f"{node.kind} mixes per-row and per-element values")
        self.classes[node.output()] = (ELEMENT if ELEMENT in found else
                                       ROW if ROW in found else FLAT)
        self.levels[node.output()] = max(self.levels[v] for v in node.inputs)

    def _reduces(self, node: Node) -> None:
        """Record the axes reduction ``node`` reduces: the same for the whole group, the last
        (or the last few) in a row group, one other in a column group."""
        t = node.input(0).type
        rank = t.rank if isinstance(t, TensorType) else None
        if not rank:
            if self.axis == "row":
                return          # (the row kernel reads the last axis, whatever the rank)
            raise IRError(f"{node.kind} in a column-reduction group needs a known rank")
        if node.kind == aten.softmax or node.kind in SCANS or len(node.inputs) == 2:
            dims: object = None if len(node.inputs) == 2 else [-1]
        elif node.input(1).node.kind == prim.Constant:
            dims = reduced_dims(node)
        else:
            raise IRError(f"{node.kind} in a reduction group needs constant axes")
        dim = reduced_dim(node)
        if dim is None:
            raise IRError(f"{node.kind} in a reduction group reduces {dims}: not one axis, "
                          "the last few or all")
        if self.dim is None:
            self.dim = dim
        single = isinstance(dims, list) and len(dims) == 1
        several = isinstance(dim, tuple)        # (a column group's set of axes)
        if dim != self.dim or \
                (self.axis == "column") != (several or (single and dim < rank - 1)):
            raise IRError(f"{node.kind} reduces {dims} in a {self.axis}-reduction group of "
                          f"axis {self.dim}")

    @property
    def passes(self) -> int:
        return max((r.level for r in self.reductions), default=0) + 1

    def splits(self, classes: list[str] | tuple[str, ...]) -> bool:
        """May one long row, its inputs read as ``classes`` say, run as blocks on several
        threads (``RowGenerator.split``)? Not with running sums (they carry from block to
        block), arg reductions (their index and early stop), per-row views (which read
        elements of other blocks) or an input read by runs (its buffer is the row's)."""
        return not self.scans and all(r.kind not in ARG_KINDS for r in self.reductions) \
            and not any(node.kind in VIEWS for node in self.graph.nodes()) \
            and NESTED not in classes

    @property
    def sources(self) -> list[Value]:
        """The element values the group reduces or scans (all of the iteration shape)."""
        return [r.source for r in self.reductions] + [n.input(0) for n in self.scans]


class RowGenerator(_Generator):
    """The fused kernels' emitter (literals, casts, guards, cut loops) over a ``RowGroup``."""

    WHAT = "row"

    def __init__(self, group: RowGroup, specs: list[ArgSpec], classes: list[str],
                 precise: bool, linear: bool = False):
        self.group = group
        # Rows at a constant step in every input: ``bases[k, 0]`` is that step (no table).
        self.linear = linear
        self.specs = specs
        self.classes = classes           # per tensor input: unit, zero or strided
        self.target = "cpu"
        self.fast = not precise
        self.host_forms = True           # (this machine's vector math: ``vector_function``)
        self.hoisted = None              # (no values computed once per call: ``hoist``)
        self.has_guards = False
        self.constants: dict[str, str] = {}
        self.guards: list[str] = []
        self.pending: ScalarPass | None = None
        self.values: dict[Value, Operand] = {}
        self.code: dict[Node, list] = {}       # element node -> its lines and ScalarPasses
        self.dtypes: dict[str, np.dtype] = {}
        self.counter = 0
        self.modules: set[str] = set()
        self.widened = False             # (calls one of ``WIDENED_CALLS``)
        self.wide_math = False           # (set by module_text: ``directives``)
        self.exps: dict[Node, str] = {}          # softmax node -> the name of its exp(x - max)
        self.scan_starts: dict[Node, str] = {}   # scan node -> its accumulator's start
        # Does the parallel kernel split each row's blocks among the threads, for a call of
        # one long row (``row_kernel._row_plan``), rather than share out the rows?
        self.split = False
        # Each value's class in this kernel: the group's, but for the values ``per_row``
        # finds constant along the rows of these inputs.
        self.value_classes: dict[Value, str] = group.classes
        # Outputs (positions) of the ELEMENT class whose arrays are per-row (``per_row``).
        self.row_outputs: frozenset[int] = frozenset()

    def per_row(self, outputs: frozenset[int]) -> None:
        """Compute once a row, in registers, the element values that only inputs read at
        step 0 along the row (``ZERO``: ``lo`` of shape ``(rows, 1)``), per-row values and
        numbers reach (``mid = 0.5 * (lo + hi)``), and write the element ``outputs``
        (positions), whose arrays the plan found per-row (``(rows, 1)``), once a row.
        ``np.where(x.sum(-1, keepdims=True) > k, mid, lo)`` in a bisection's loop so runs in
        its row kernel, where the plan declined an element output of a row's shape."""
        group = self.group
        classes = dict(group.classes)
        for pos, k in group.tensor_index.items():
            if self.classes[k] == ZERO:
                classes[group.graph.inputs[pos]] = ROW
        for node in group.graph.nodes():
            if node.kind == prim.Constant or node.kind in SCANS or node.kind in KEEPDIM_AT \
                    or node.kind in VIEWS or node.kind == aten.softmax:
                continue
            out = node.output()
            skip = DTYPE_ONLY.get(node.kind, ())
            if classes.get(out) == ELEMENT and all(
                    classes[v] != ELEMENT for i, v in enumerate(node.inputs)
                    if isinstance(v.type, TensorType) and i not in skip):
                classes[out] = ROW
        for j in outputs:
            if classes[group.outputs[j]] == ELEMENT:
                raise IRError(f"row kernel: output {j} is per-row, but its value is computed "
                              "from elements of the rows")
        self.value_classes = classes
        self.row_outputs = outputs

    def written_per_element(self, j: int) -> bool:
        """Is output ``j`` written element by element (else once a row)?"""
        return self.group.classes[self.group.outputs[j]] == ELEMENT and \
            j not in self.row_outputs

    def row_base(self, k: int, index: str) -> str:
        """Where row ``index`` of tensor input ``k`` starts."""
        return f"bases[{k}, 0] * {index}" if self.linear else f"bases[{k}, {index}]"

    def operand_for(self, value: Value, load: bool = True) -> Operand:
        return self.values[value]

    def name(self) -> str:
        self.counter += 1
        return f"t{self.counter - 1}"

    def run(self) -> None:
        group = self.group
        for pos, value in enumerate(group.graph.inputs):
            spec = self.specs[pos]
            if pos in group.scalar_index:
                self.values[value] = Operand(f"s{group.scalar_index[pos]}", spec.dtype,
                                             "scalar")
            else:
                kind = "tensor" if spec.rank else "zero_dim"
                self.values[value] = Operand(f"a{group.tensor_index[pos]}", spec.dtype, kind)
        for node in group.graph.nodes():
            if node.kind == prim.Constant:
                value = constant_value(node)
                if value is not None and type(value) not in (bool, int, float, list):
                    raise IRError(f"constant of type {type(value).__name__} in a row kernel")
                if type(value) is not list:
                    dtype = np.dtype(np.float64 if isinstance(value, float) else
                                     np.bool_ if isinstance(value, bool) else np.int64)
                    self.values[node.output()] = Operand(_plain(value), dtype, "scalar", value)
            elif node.kind in SCANS:
                self._scan(node)
            elif node.kind in KEEPDIM_AT:
                self._reduction(node)
            elif node.kind == aten.softmax:
                self._softmax(node)
            elif node.kind in VIEWS:       # (the same per-row register, another shape)
                source = self.values[node.input(0)]
                self.values[node.output()] = Operand(source.expr, source.dtype, "tensor")
            else:
                self._pointwise(node)

    def _reduction(self, node: Node) -> None:
        dtype = self.values[node.input(0)].dtype
        if dtype.kind != "f":
            extremum = node.kind in (aten.amax, aten.amin, aten.argmax, aten.argmin)
            if not (extremum or node.kind == aten.sum) or dtype.kind not in "biu":
                raise IRError(f"{node.kind} of {dtype} in a {self.WHAT} kernel (floats only, "
                              "and the max, min and sum of integers and bools)")
            if node.kind == aten.sum:
                dtype = np.dtype(np.int64)      # (NumPy's sum of int32, int8 or bool)
        if node.kind in (aten.argmax, aten.argmin):
            dtype = np.dtype(np.int64)          # (an index)
        name = self.name()
        self.dtypes[name] = dtype
        # A reduction of every axis without keepdim is a 0-dim tensor, which promotes as one.
        flat_scalar = not self.group.keepdim[node] and (
            node.input(0).type.rank == 1 or (self.group.axis == "row" and self.group.dim == 0))
        self.values[node.output()] = Operand(name, dtype, "zero_dim" if flat_scalar else "tensor")
        for r in self.group.reductions:
            if r.node is node:
                r.name = name

    def exp_of(self, dtype: np.dtype) -> str:
        """The function computing exp on ``dtype`` in this kernel (fast unless precise)."""
        name = fast_name(aten.exp, dtype) if self.fast else None
        if name is None:
            return "math.exp"
        self.modules.add(name.split(".")[0])
        return name

    def _softmax(self, node: Node) -> None:
        source = self.values[node.input(0)]
        dtype = source.dtype
        top, total, exp, name = self.name(), self.name(), self.name(), self.name()
        for r in self.group.reductions:
            if r.node is node:
                r.name = top if r.kind == "max" else total
        for t in (top, total, exp, name):
            self.dtypes[t] = dtype
        d = f"np.{dtype.name}"
        self.exps[node] = exp
        self.code[node] = [f"# {name} : {_type_name(dtype)} = aten::softmax({source.expr})",
                           f"{exp} = {d}({self.exp_of(dtype)}({d}({source.expr} - {top})))",
                           f"{name} = {d}({exp} / {total})"]
        self.values[node.output()] = Operand(name, dtype, "tensor")

    def _scan(self, node: Node) -> None:
        """A running sum or product: its accumulator (``run_tK``, started per row before the
        last pass: ``scan_starts``) updated in the element loop, in the output's dtype (the
        input's float; int64 for integers and bools), one element after the other as NumPy's
        ``cumsum`` and ``cumprod`` do."""
        source = self.values[node.input(0)]
        dtype = np.dtype(source.dtype if source.dtype.kind == "f" else np.int64)
        name = self.name()
        d = f"np.{dtype.name}"
        op = "+" if node.kind == aten.cumsum else "*"
        self.dtypes[name] = dtype
        self.code[node] = [f"# {name} : {_type_name(dtype)} = {node.kind}({source.expr})",
                           f"run_{name} = {d}(run_{name} {op} {d}({source.expr}))",
                           f"{name} = run_{name}"]
        # (a float sum starts at -0.0, the one zero that gives every x back: NumPy's cumsum
        # starts at the first element, -0.0 for a row that begins with it)
        start = 1 if op == "*" else "-0.0" if dtype.kind == "f" else 0
        self.scan_starts[node] = f"run_{name} = {d}({start})"
        self.values[node.output()] = Operand(name, dtype, "tensor")

    def _pointwise(self, node: Node) -> None:
        ops = [self.values[v] for v in node.inputs]
        self.guards = []
        self.pending = None
        op = RENDERERS[node.kind]
        dtype = np.dtype(op.dtype(ops))
        expr = op.render(self, node, ops, dtype)
        if dtype not in _SUPPORTED:
            raise IRError(f"{node.kind} would produce {dtype}, unsupported in row kernels")
        out_type = node.output().type
        if isinstance(out_type, TensorType) and out_type.dtype is not None \
                and out_type.dtype != dtype:
            raise IRError(f"{node.kind} computes {dtype} in a kernel where the graph says "
                          f"{out_type.dtype}")
        name = self.name()
        shown = ", ".join(op.expr for op in ops)
        lines: list = [f"# {name} : {_type_name(dtype)} = {node.kind}({shown})"]
        for condition in self.guards:
            lines += [f"if {condition}:", "    status[0] = 1"]
        items, texts = self.assigned(node, name, expr, dtype)
        lines += items
        self.modules |= math_modules(texts)
        self.widened = self.widened or any(call in texts for call in WIDENED_CALLS)
        self.dtypes[name] = dtype
        self.code[node] = lines
        kinds = [op.kind for op in ops if op.is_tensor]
        self.values[node.output()] = Operand(name, dtype,
                                             "tensor" if "tensor" in kinds else "zero_dim")

    # -- the kernel text -------------------------------------------------------------------
    def _closure(self, roots: list[Value], given: frozenset = frozenset(),
                 leaves: frozenset = frozenset()) -> list[Node]:
        """The element nodes computing ``roots`` from the inputs and the ``given`` values, in
        graph order; the inputs of ``leaves`` are not needed."""
        wanted: set[Node] = set()
        classes = self.value_classes
        stack = [v for v in roots if classes.get(v) == ELEMENT]
        while stack:
            value = stack.pop()
            node = value.node
            if value not in given and node in self.code and node not in wanted:
                wanted.add(node)
                if node not in leaves:
                    stack += [v for v in node.inputs if classes.get(v) == ELEMENT]
        return [n for n in self.group.graph.nodes() if n in wanted]

    def _scalar_lines(self, node: Node) -> list[str]:
        """A per-row node's lines, its cut loops (if any) as plain scalar code."""
        out: list[str] = []
        for item in self.code[node]:
            if isinstance(item, ScalarPass):
                if item.when is None:
                    out.append(f"{item.name} = {item.expr}")
                else:
                    out += [f"if {item.when}:", f"    {item.name} = {item.expr}"]
            else:
                out.append(item)
        return out

    def _loop(self, nodes: list[Node], loads: dict[str, str], tail: list[str],
              skip: frozenset = frozenset()) -> tuple:
        """A loop over the row computing ``nodes`` (except the values named in ``skip``, which
        ``loads`` gives), then ``tail``: (buffer allocations, loop lines)."""
        body = [line for n in nodes for line in self.code[n]
                if not (isinstance(line, str) and line.split(" = ")[0] in skip)]
        text = " ".join(line if isinstance(line, str) else f"{line.expr} {line.when}"
                        for line in body + tail
                        if not (isinstance(line, str) and line.startswith("#")))
        used = {k: v for k, v in loads.items() if k in set(_NAMES.findall(text))}
        return inner_loops(body, used, tail, self.dtypes, strips=False)

    def kernel_text(self, name: str, parallel: bool) -> list[str]:
        group = self.group
        n_tensors = len(group.tensor_index)
        args = (["n", "rows", "bases", "steps"] + [f"x{i}" for i in range(n_tensors)]
                + [f"s{i}" for i in range(len(group.scalar_index))]
                + [f"o{j}" for j in range(len(group.outputs))] + ["status"])
        # (a split kernel runs its rows one by one, each row's blocks on every thread)
        split = parallel and self.split and group.splits(self.classes)
        loop = "prange" if parallel and not split else "range"
        lines = [kernel_decorator(parallel),
                 f"def {name}({', '.join(args)}):"]
        body: list[str] = []
        head: list[str] = []     # per call (serial) or per row (parallel: per thread's row)
        loads: dict[str, str] = {}
        body += self.directives()
        for k in range(n_tensors):
            body.append(f"b{k} = {self.row_base(k, 'row')}")
            if self.classes[k] == ZERO:
                body.append(f"a{k} = x{k}[b{k}]")
            elif self.classes[k] == UNIT:
                body.append(f"r{k} = x{k}[b{k}:b{k} + n]")
                loads[f"a{k}"] = f"a{k} = r{k}[c]"
            elif self.classes[k] == STRIDED:
                body.append(f"r{k} = x{k}[b{k}:b{k} + (n - 1) * steps[{k}] + 1:steps[{k}]]")
                loads[f"a{k}"] = f"a{k} = r{k}[c]"
            else:       # (read by runs into a block buffer: ``_nested_block``)
                dtype = np.dtype(self.specs[self._position(k)].dtype).name
                head.append(f"g{k} = np.empty(min(n, max(BLOCK, EXTREMA_BLOCK)), np.{dtype})")
                loads[f"a{k}"] = f"a{k} = n{k}[c]"      # (only ever read by blocks)
        row_nodes = [n for n in group.graph.nodes()
                     if n in self.code and self.value_classes[n.output()] != ELEMENT]
        # (per-row values of inputs alone, before the first pass)
        body += [line for n in row_nodes if group.levels[n.output()] == 0
                 for line in self._scalar_lines(n)]
        element_outputs = [v for j, v in enumerate(group.outputs)
                           if self.written_per_element(j)]
        final = self._closure(element_outputs)
        last = group.passes - 1
        # Element outputs that no reduction's result reaches are written by the last
        # reduction pass, which then makes the output pass (and its row buffers) unneeded.
        early = {j: v for j, v in enumerate(group.outputs)
                 if v in element_outputs} if self._early(element_outputs) else {}
        kept = [] if early else self._kept(final, [r for r in group.reductions
                                                   if r.level == last])
        # a softmax whose sum is in the last pass keeps its exponentials for the output pass
        soft = frozenset() if early else frozenset(n for n in final if n in self.exps and any(
            r.node is n and r.kind == "sumexp" and r.level == last for r in group.reductions))
        names = [self.values[v].expr for v in kept] + [self.exps[n] for n in soft]
        for name in names:
            head.append(f"keep_{name} = np.empty(n, np.{np.dtype(self.dtypes[name]).name})")
        for level in range(1, group.passes):
            if level == last:
                body += [f"w{j} = o{j}[row * n:row * n + n]" for j in early]
            body += self._pass([r for r in group.reductions if r.level == level], loads,
                               names if level == last else [], split,
                               early if level == last else {})
            for node in row_nodes:
                if group.levels[node.output()] == level:
                    body += self._scalar_lines(node)
        writes: list[str] = []
        for j, value in enumerate(group.outputs):
            expr = self.values[value].expr
            if self.written_per_element(j):
                if j not in early:
                    body.append(f"w{j} = o{j}[row * n:row * n + n]")
                    writes.append(f"w{j}[c] = {expr}")
            else:
                body.append(f"o{j}[row] = {expr}")
        if writes and split:
            body += self._split_writes(element_outputs, kept, soft, names, loads)
        elif writes:
            computed = self._closure(element_outputs, frozenset(kept), soft)
            body += [self.scan_starts[n] for n in computed if n in self.scan_starts]
            reads = dict(loads)
            for name in names:
                reads[name] = f"{name} = keep_{name}[c]"
            allocs, loops = self._loop(computed, reads, writes,
                                       frozenset(self.exps[n] for n in soft))
            body += allocs + loops
        # The serial kernel allocates its row buffers once (1024 allocations of a row cost
        # about a tenth of a 1024 x 1024 softmax).
        if parallel and not split:
            body = head + body
        else:
            lines += ["    " + line for line in head]
        lines.append(f"    for row in {loop}(rows):")
        lines += ["        " + line for line in body]
        return lines

    def _split_writes(self, element_outputs: list[Value], kept: list[Value],
                      soft: frozenset, names: list[str], loads: dict[str, str]) -> list[str]:
        """The output pass of a split kernel: its blocks shared among the threads, each
        reading its block of the operands and of the row buffers, and writing its block of
        every element output (``w{j}``, the output's row)."""
        computed = self._closure(element_outputs, frozenset(kept), soft)
        reads = {name: f"{name} = q{name[1:]}[c]" for name in loads}
        for name in names:
            reads[name] = f"{name} = kq_{name}[c]"
        outs = [j for j in range(len(self.group.outputs)) if self.written_per_element(j)]
        writes = [f"v{j}[c] = {self.values[self.group.outputs[j]].expr}" for j in outs]
        allocs, loops = self._loop(computed, reads, writes,
                                   frozenset(self.exps[n] for n in soft))
        used = {word for line in loops for word in _NAMES.findall(line)}
        inner = [line for name in loads if name in used for line in self._block_slice(name)]
        inner += [f"kq_{name} = keep_{name}[c0:c1]" for name in names]
        inner += [f"v{j} = w{j}[c0:c1]" for j in outs]
        inner += [_in_block(line) for line in loops]
        return _split_blocks("BLOCK", [_block_buffer(a, "BLOCK") for a in allocs], inner, [],
                             {}, self.directives())

    def directives(self) -> list[str]:
        """The lines that open each function of a CPU kernel whose loops LLVM vectorises (a
        ``prange`` body is a function of its own): 512-bit vectors where ``module_text`` says
        (``wide_math``), and no gathers where an input is read strided (``NO_GATHERS``)."""
        lines = ["vm.wide_vectors()"] if self.wide_math else []
        return lines + ([NO_GATHERS] if STRIDED in self.classes else [])

    def _early(self, element_outputs: list[Value]) -> bool:
        """May the last reduction pass write every element output? Where none depends on a
        reduction's result of that pass or later (``y = f(x)`` beside ``g(x).max()``): it
        computes them beside that pass's sources, where an output pass would read the inputs
        again (a 4M float64 chain with its max and two outputs: 54.9 ms so, 15.8 ms in the
        pass). Not with running sums (they are the output pass's) or arg reductions in that
        pass (a search may stop early)."""
        group = self.group
        last = group.passes - 1
        return bool(element_outputs) and last >= 1 and not group.scans and all(
            group.levels[v] < last for v in element_outputs) and not any(
            r.kind in ARG_KINDS for r in group.reductions if r.level == last)

    def _kept(self, final: list[Node], last: list[Reduction]) -> list[Value]:
        """Element values the last reduction pass computes that the output pass would compute
        again: that pass keeps them in a row buffer (softmax's exp) instead."""
        if not last:
            return []
        earlier = set(self._closure([r.source for r in last]))
        wanted = set(final)
        kept = []
        for node in final:
            if node in earlier and any(u.user in wanted - earlier or u.user.kind == prim.Return
                                       for u in node.output().uses):
                kept.append(node.output())
        return kept

    def _pass(self, reductions: list[Reduction], loads: dict[str, str],
              kept: list[str], split: bool = False,
              outputs: dict[int, Value] | None = None) -> list[str]:
        """One pass over the row accumulating ``reductions`` (and storing the ``kept`` values,
        and writing ``outputs``, output position -> value, into their rows ``w{j}``), and
        their per-row results; with ``split``, its blocks shared among the threads
        (``_split_blocks``)."""
        outputs = outputs or {}
        lines = [f"# pass: {', '.join(str(r.node.kind) for r in reductions)}"]
        if len(reductions) == 1 and reductions[0].kind in ARG_KINDS and not kept:
            r = reductions[0]
            whole = ArgReduction(self, r, self.values[r.source].expr,
                                 self.values[r.source].dtype).whole_row(loads)
            if whole is not None:
                return lines + whole
        updates, finals, aliases, exps = [], [], [], []
        redos: list[tuple] = []
        args: list[ArgReduction] = []
        # For a pass over strided rows (``_lanes``): per partial accumulator of a block, how
        # two lanes' partials combine; per update, its steps without the reassociation flags
        # (``rm.add``'s let LLVM vectorise the lanes back into vectors filled by scalar loads)
        combines: dict[str, str] = {}
        plain: dict[int, list[str]] = {}
        part_types: dict[str, str] = {}     # (each partial accumulator's dtype: ``split``)
        for r in reductions:
            dtype = np.dtype(self.dtypes[r.name]).name
            acc, part = f"acc_{r.name}_{r.kind}", f"part_{r.name}_{r.kind}"
            first = shared_with(r, reductions)
            if first is not r and r.kind in ARG_KINDS:
                # (``np.argmax(x, -1)`` beside its ``keepdims=True``: the first's index, its
                # final made before this one's)
                finals.append(f"{r.name} = {first.name}")
                continue
            if first is not r:
                aliases.append(f"{acc} = acc_{first.name}_{first.kind}")
                finals.append(self._final(r, acc))
                continue
            source = self.values[r.source].expr
            if r.kind in ARG_KINDS:
                arg = ArgReduction(self, r, source, self.values[r.source].dtype,
                                   len(reductions) == 1 and not kept)
                args.append(arg)
                lines += arg.before()
                updates.append(arg.update())
                finals.append(arg.final())
                continue
            part_types[part] = f"np.{dtype}"
            if r.kind in ("max", "min"):
                fn = "rm.maximum" if r.kind == "max" else "rm.minimum"
                start = _extremum_start(r.kind, np.dtype(dtype))
                lines.append(f"{acc} = {start}")
                exact = f"{part} = {fn}({part}, {source})"
                combine = f"{acc} = {fn}({acc}, {part})"
                # A fast pass (vmaxpd into independent vector accumulators, and an
                # or-reduction of x != x), then the exact one again over a block where it
                # saw a NaN or a zero (whose sign vmaxpd may have lost), as NumPy does.
                # llvm.maximum alone (6 ops a vector, one chain of 4 of them) ran 0.72-0.87x
                # NumPy over rows of 10^6, this 0.91-0.97x (memory-bound there); rows of 256
                # float32 2.1-2.3x -> 2.5-3.0x (benchmarks/reductions.py --cpu).
                # (in lanes, ``_lanes``: a compare and select, exact for integers; for floats
                # it drops a NaN and keeps the first of equal zeros, both of which the exact
                # pass then redoes: 8 lanes of maxima of x[:, ::2] took 308 us against 391
                # with rm.maxnum, float32)
                beats = ">" if r.kind == "max" else "<"
                select = f"{part} = {source} if {source} {beats} {part} else {part}"
                if not self._redone(r):
                    updates.append((f"{part} = {start}", [exact], combine))
                    if np.dtype(dtype).kind in "iu":
                        plain[len(updates) - 1] = [select]
                        combines[part] = f"{fn}({{a}}, {{b}})"
                else:
                    # (the NaN test: a sum of the elements, NaN if one is, or where +inf and
                    # -inf meet, which only costs the exact pass; one vaddps an element, where
                    # x != x or-reduced took two: 1M float32, 59-69 -> 51-57 us, NumPy 51-56.
                    # float64 too: rows of 10^4 to 10^6 and 100 x 4096, loops written by hand,
                    # one thread, took 0.73-0.96 of the time of the or-reduced test, two runs)
                    odd = f"odd_{r.name}_{r.kind}"
                    redos.append((r, part, start, exact, f"{odd} != {odd}"))
                    updates.append((f"{part} = {start}; {odd} = np.{dtype}(0.0)",
                                    [f"{part} = rm.f{r.kind}({part}, {source})",
                                     f"{odd} = rm.add({odd}, {source})"], combine))
                    plain[len(updates) - 1] = [select, f"{odd} = {odd} + {source}"]
                    combines[part] = f"rm.{r.kind}num({{a}}, {{b}})"
                    combines[odd] = "({a} + {b})"
            else:
                value = source
                if r.kind == "sqdev":
                    mean = f"np.{dtype}(acc_{r.mean.name}_sum / n)"
                    lines.append(f"mean_{r.name} = {mean}")
                    value = f"np.{dtype}({source} - mean_{r.name})"
                    value = f"{value} * {value}"
                elif r.kind == "sumexp":
                    value = self.exps[r.node]
                    exps.append(self.code[r.node][1])      # (its line ``tE = exp(x - max)``)
                if np.dtype(dtype).kind == "i":   # (int64: exact, wrapping as NumPy's)
                    part_types[part] = "np.int64"
                    lines.append(f"{acc} = np.int64(0)")
                    updates.append((f"{part} = np.int64(0)",
                                    [f"{part} += np.int64({value})"], f"{acc} += {part}"))
                    combines[part] = "({a} + {b})"      # (exact, wrapping)
                    plain[len(updates) - 1] = updates[-1][1]
                else:
                    lines.append(f"{acc} = 0.0")
                    updates.append((f"{part} = np.{dtype}(0.0)",
                                    [f"{part} = rm.add({part}, np.{dtype}({value}))"],
                                    f"{acc} += np.float64({part})"))
                    combines[part] = "({a} + {b})"
                    plain[len(updates) - 1] = [f"{part} = {part} + np.{dtype}({value})"]
            finals.append(self._final(r, acc))
        nodes = self._closure([r.source for r in reductions] + list(outputs.values()))
        # Within a block the operands are read through block slices ``q0`` (indexing the row
        # slices from c0 kept LLVM from vectorising: 3.6 ms against 1.5 ms a sum of exp).
        blocked = {name: f"{name} = q{name[1:]}[c]" for name in loads}
        stores = [f"kq_{name}[c] = {name}" for name in kept]
        stores += [f"v{j}[c] = {self.values[v].expr}" for j, v in outputs.items()]
        steps = [line for u in updates for line in u[1]]
        allocs, loops = self._loop(nodes, blocked, exps + steps + stores)
        used = sorted({name for line in loops for name in _NAMES.findall(line)} & set(loads))
        loops = ["    " + _in_block(line) for line in loops]
        # (a pass of maxima and minima only needs no float64 partial sums: longer blocks)
        block = "BLOCK" if len(redos) + len(args) < len(reductions) else "EXTREMA_BLOCK"
        if any(arg.stops for arg in args):
            block = "SEARCH_BLOCK"
        # (the buffers of a cut loop hold one block, made once a row)
        buffers = [_block_buffer(a, block) for a in allocs]
        inner = [line for name in used for line in self._block_slice(name)]
        inner += [f"kq_{name} = keep_{name}[c0:c1]" for name in kept]
        inner += [f"v{j} = w{j}[c0:c1]" for j in outputs]
        strided = any(self.classes[int(name[1:])] == STRIDED for name in used)
        lanes = None
        # (lanes of scalars where the elements are cheap: a sum of exp(x) of x[:, ::2] ran
        # 0.79x NumPy in scalar lanes, 3.1x with its exp in vectors)
        cheap = not any(node.kind in VECTOR_MATH for node in nodes)
        if strided and cheap and not (args or kept or outputs or exps or allocs) and \
                len(plain) == len(updates):
            steps = [line for k in range(len(updates)) for line in plain[k]]
            unrolled, body = self._loop(nodes, blocked, steps)
            if not unrolled:
                lanes = _lanes([u[0] for u in updates],
                               ["    " + _in_block(line) for line in body], combines)
        if lanes is not None:
            inner += lanes
        else:
            inner += [u[0] for u in updates] + [line[4:] for line in loops]
        for r, part, start, exact, odd in redos:
            inner += [f"if {odd} or {part} == 0.0:", f"    {part} = {start}"]
            allocs, loops = self._loop(self._closure([r.source]), blocked, [exact])
            inner += ["    " + _block_buffer(a, block) for a in allocs]
            inner += ["    " + _in_block(line) for line in loops]
        inner += [line for arg in args for line in arg.block_end(blocked)]
        combined = [u[2] for u in updates if u[2]]
        if split:
            lines += _split_blocks(block, buffers, inner, combined, part_types,
                                   self.directives())
        else:
            count, edges = _blocks(block)
            lines += buffers + [f"for blk in range({count}):"]
            lines += ["    " + line for line in edges + inner + combined]
        slices = {name: "\n".join(self._block_slice(name)) for name in loads}
        lines += [line for arg in args for line in arg.after(block, slices, blocked)]
        return lines + aliases + [f for f in finals if f]

    def _position(self, k: int) -> int:
        """The graph input position of tensor input ``k``."""
        return next(pos for pos, j in self.group.tensor_index.items() if j == k)

    def _block_slice(self, name: str) -> list[str]:
        """The lines giving the block ``c0:c1`` of the row of operand ``name`` (``aK``) as
        ``qK``: a slice of its row, or for a nested one (``NESTED``) a buffer filled by its
        runs of ``n_in = steps[2K]`` elements, ``steps[k]`` apart, the runs ``steps[K + k]``
        apart (an odometer: no division per element)."""
        k = int(name[1:])
        if self.classes[k] != NESTED:
            return [f"q{k} = r{k}[c0:c1]"]
        count = len(self.group.tensor_index)
        step, out, n_in = f"steps[{k}]", f"steps[{count + k}]", f"steps[{2 * count}]"
        gather = [f"while d{k} < c1 - c0:",
                  f"    run{k} = min({n_in} - j{k}, c1 - c0 - d{k})",
                  f"    p{k} = b{k} + i{k} * {out} + j{k} * {step}",
                  f"    if {step} == 1:       # (a slice copy: twice the speed of the loop)",
                  f"        g{k}[d{k}:d{k} + run{k}] = x{k}[p{k}:p{k} + run{k}]",
                  "    else:",
                  f"        for e in range(run{k}):",
                  f"            g{k}[d{k} + e] = x{k}[p{k} + e * {step}]",
                  f"    d{k} += run{k}; i{k} += 1; j{k} = 0",
                  f"q{k} = g{k}[:c1 - c0]"]
        # (a block inside one unit-stride run is read where it is: no copy)
        return [f"i{k} = c0 // {n_in}; j{k} = c0 - i{k} * {n_in}; d{k} = 0",
                f"if {step} == 1 and j{k} + c1 - c0 <= {n_in}:",
                f"    p{k} = b{k} + i{k} * {out} + j{k}",
                f"    q{k} = x{k}[p{k}:p{k} + c1 - c0]",
                "else:"] + ["    " + line for line in gather]

    def _redone(self, r: Reduction) -> bool:
        """Does the max or min ``r`` take the fast pass and the exact one where needed? Not
        where its element values draw random numbers (the exact pass would draw others)."""
        if np.dtype(self.dtypes[r.name]).kind != "f":
            return False            # (integers and bools: no NaN and one zero)
        return not any("np.random" in line for n in self._closure([r.source])
                       for line in self.code[n] if isinstance(line, str))

    def _final(self, r: Reduction, acc: str, count: str = "n") -> str:
        """The per-row result of ``r`` from its accumulator over ``count`` elements."""
        dtype = np.dtype(self.dtypes[r.name]).name
        kind = r.node.kind
        if r.kind in ("max", "min"):
            return f"{r.name} = {acc}"
        if r.kind == "sumexp":
            return f"{r.name} = np.{dtype}({acc})"
        if kind == aten.sum:
            return f"{r.name} = np.{dtype}({acc})"
        if kind == aten.mean:
            return f"{r.name} = np.{dtype}({acc} / {count})"
        if r.kind == "sum":
            return ""             # (the mean inside var and std: read by the next pass)
        correction = constant_value(r.node.input(2).node)
        ddof = self.literal(1 if correction is None else correction, np.float64)
        root = "np.sqrt" if kind == aten.std else ""
        return f"{r.name} = np.{dtype}({root}({acc} / ({count} - {ddof})))"


def _extremum_start(kind: str, dtype: np.dtype) -> str:
    """The literal a ``kind`` (max or min) accumulator of ``dtype`` starts from."""
    if dtype.kind == "f":
        return f"np.{dtype.name}({'-' if kind == 'max' else ''}np.inf)"
    if dtype.kind == "b":
        return f"np.bool_({kind == 'min'})"
    info = np.iinfo(dtype)
    return f"np.{dtype.name}({info.min if kind == 'max' else info.max})"


# A pass over strided rows (``x[:, ::2]``) runs as this many lanes, each with its own partial
# accumulators, in a scalar loop: LLVM reads such rows with gathers, or without them
# (``NO_GATHERS``) with scalar loads put into vectors, at 0.4-0.55 ns an element, where
# independent scalar chains take 0.17-0.35 (x.sum(axis=-1) of x[:, ::2], 1024 x 1024, loops
# written by hand, one thread: 390-404 us into vectors, 271 with 4 lanes, 176 with 8, NumPy
# 224-233, float32; 432-563, 441, 361 and 404-407 us, float64).
LANES = 8
_ASSIGNED = re.compile(r"^    (\w+) (?:\+)?= ")
_BLOCK_INDEX = re.compile(r"\[c\]")
_STARTED = re.compile(r"(?:^|; )(\w+) = ")


def _lanes(starts: list[str], loops: list[str], combines: dict[str, str]) -> list[str] | None:
    """A block's loop ``loops`` (over ``c`` in the block, after the partial accumulators'
    ``starts``) as ``LANES`` lanes: each lane its own copy of every name the loop assigns
    (``_L``), element ``c + L`` of each block slice, its partials started as ``starts`` say;
    the rest of the block in lane 0; the lanes' partials then combined pairwise as
    ``combines`` says (``{a} + {b}``: their sum). None where the loop is not one plain loop of
    assignments, or assigns a partial with no combine."""
    if not loops or loops[0].strip() != "for c in range(c1 - c0):":
        return None
    body = [line[4:] for line in loops[1:]]
    if any(not _ASSIGNED.match(line) and not line.lstrip().startswith("#") for line in body):
        return None
    names = {_ASSIGNED.match(line).group(1) for line in body if _ASSIGNED.match(line)}
    partials = [name for start in starts for name in _STARTED.findall(start)]
    if not partials or any(p not in combines or p not in names for p in partials):
        return None
    renamed = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")

    def lane(line: str, u: int, index: str) -> str:
        return _BLOCK_INDEX.sub(f"[{index}]", renamed.sub(lambda m: f"{m.group(1)}_{u}", line))

    text = [lane(start, u, "c") for u in range(LANES) for start in starts]
    # (while loops: ``for c in range(0, whole, 8)`` ran the float32 sum 1.7x slower)
    text += ["c = 0", f"while c + {LANES} <= c1 - c0:"]
    text += [lane(line, u, f"c + {u}" if u else "c") for u in range(LANES) for line in body]
    text += [f"    c += {LANES}", "while c < c1 - c0:"]
    text += [lane(line, 0, "c") for line in body] + ["    c += 1"]
    for p in partials:
        level = [f"{p}_{u}" for u in range(LANES)]
        while len(level) > 1:
            level = [combines[p].format(a=a, b=b) for a, b in zip(level[::2], level[1::2])]
        text.append(f"{p} = {level[0]}")
    return text


# A split row (``RowGenerator.split``) is cut into at most this many chunks of blocks, each
# run by one thread with its own block buffers: several a thread (on up to 16 threads) even
# out a thread that starts late on a busy machine. (A constant: Numba's get_num_threads() in
# a kernel is a dynamic global, which its disk cache refuses.)
CHUNKS = 64
_PARTIAL = re.compile(r"\bpart_\w+")


def _split_blocks(block: str, buffers: list[str], inner: list[str], combined: list[str],
                  part_types: dict[str, str], directives: list[str]) -> list[str]:
    """A pass's loop over the blocks of a row (``inner``: one block's lines, after its
    ``c0``, ``c1``; ``buffers``: its cut loops' block buffers) as chunks of blocks the threads
    share (each chunk's body, a function of its own, opening with the kernel's
    ``directives``), each block's partials (``part_types``: name -> dtype) kept in an array,
    and then combined in block order as ``combined`` says, as the serial kernel combines
    them: the result does not depend on the thread count or on which thread ran a block. (It
    may differ from the serial kernel's in the last bit: LLVM may vectorise a block's
    reassociated sum another way in each kernel.)"""
    count, edges = _blocks(block)
    parts = [p for line in combined for p in _PARTIAL.findall(line)]
    lines = [f"nb = {count}", f"nchunks = min(nb, {CHUNKS})"]
    lines += [f"pp_{p} = np.empty(nb, {part_types[p]})" for p in parts]
    lines += ["for chunk in prange(nchunks):"]
    lines += ["    " + line for line in directives + buffers]
    lines += ["    for blk in range(chunk * nb // nchunks, (chunk + 1) * nb // nchunks):"]
    lines += ["        " + line for line in edges]
    lines += ["        " + line for line in inner]
    lines += [f"        pp_{p}[blk] = {p}" for p in parts]
    if combined:
        lines += ["for blk in range(nb):"]
        lines += ["    " + _PARTIAL.sub(lambda m: f"pp_{m.group(0)}[blk]", line)
                  for line in combined]
    return lines


# Where a sum's last block (shorter than ``BLOCK``) is cut in two. LLVM's vectorised loop steps
# 64 float32 elements (4 vectors of 16 lanes) and adds the elements past its last whole step
# one by one to the reduced sum, up to 0.5 ulp of the row's sum each; cut, they are a block of
# their own. Mean relative error of float32 row sums against float64's (rows of 77, 200, 1000:
# 5.9e-8, 4.6e-8, 4.1e-8 uncut; 3.7e-8, 3.4e-8, 3.1e-8 cut; NumPy's pairwise sums 6.1e-8,
# 2.9e-8, 2.8e-8).
TAIL = 64


def _blocks(block: str) -> tuple[str, list[str]]:
    """A pass's loop over the blocks of a row: its count of blocks, and the lines at the start
    of block ``blk`` giving its first and past-last elements ``c0`` and ``c1``. Blocks of
    ``block`` elements; a sum's (``BLOCK``) last one cut where ``TAIL`` says."""
    if block != "BLOCK":
        return f"(n + {block} - 1) // {block}", [f"c0 = blk * {block}",
                                                 f"c1 = min(c0 + {block}, n)"]
    cut = "n - n % TAIL"
    return "n // BLOCK + (n % BLOCK >= TAIL) + (n % TAIL > 0)", [
        f"c0 = min(blk * BLOCK, {cut})", f"c1 = min(c0 + BLOCK, {cut} if c0 < {cut} else n)"]


def _in_block(line: str) -> str:
    """A line of a loop over the row (``_loop``) as a line of the loop over a block, the
    fix-up loops under ``if fix:`` too (over the whole row, they made a row of 4M float32
    logarithms take 0.66 s)."""
    text = line.lstrip()
    if text != "for c in range(n):":
        return line
    return line[:len(line) - len(text)] + "for c in range(c1 - c0):"


def _block_buffer(line: str, block: str) -> str:
    """A cut loop's buffer allocation (``bt3 = np.empty(n, np.float32)``) for one block."""
    return line.replace("np.empty(n, ", f"np.empty(min(n, {block}), ", 1)


def generate_rows(group: RowGroup, specs: list[ArgSpec], classes: list[str],
                  precise: bool = False, linear: bool = False, split: bool = False,
                  row_outputs: frozenset[int] = frozenset(),
                  long_rows: bool = False) -> tuple[str, list[np.dtype]]:
    """The kernel module's source and the outputs' dtypes, for inputs described by ``specs``
    whose steps along the row are ``classes`` (unit, zero or strided, per tensor input), and
    whose rows start at a constant step (``linear``) or anywhere (a table of offsets); with
    ``split``, a parallel kernel that shares each row's blocks among the threads, where the
    group allows (``RowGroup.splits``: the plan asks it too); the element outputs at the
    positions ``row_outputs`` have per-row arrays (``RowGenerator.per_row``); ``long_rows``:
    rows of ``WIDE_ROW`` elements or more (``module_text``)."""
    gen = RowGenerator(group, specs, classes, precise, linear)
    gen.split = split
    gen.per_row(row_outputs)
    return module_text(gen, "row-reduction", long_rows)


# The line a kernel reading a strided operand runs first: LLVM then reads it with scalar
# loads, not AVX-512 gathers (``vecmath.no_gathers``). x.sum(axis=-1) of x[:, ::2], 1024 x 1024,
# loops written by hand, one thread: 854 us with gathers, 404 without (float32; NumPy 224),
# 2480 and 563 us (float64; NumPy 407).
NO_GATHERS = "vm.no_gathers()"


# Rows (of a row kernel; the columns of a column kernel, the runs of a segment kernel: its
# vectorised loop's length) of this many elements or more run in 512-bit vectors where their
# kernel calls vectorised math, as the element-wise kernels do (``codegen.wide``). In 512-bit
# vectors softmax over rows of 10 elements took 2.2x the time (LLVM's loop of 16 lanes never
# ran; the host's loop of 8 did), over rows of 100 float32 1.5x; over rows of 256, 1000 and
# 4096, float32 and float64, softmax and log-sum-exp took 0.72-0.89x the time they take in
# the host's default vectors (200,000-262,144 elements a call, two alternated rounds).
WIDE_ROW = 256


def module_text(gen: RowGenerator, what: str,
                long_rows: bool = False) -> tuple[str, list[np.dtype]]:
    """The module holding ``gen``'s serial and parallel kernels, and the outputs' dtypes.
    Its loops run in 512-bit vectors (``RowGenerator.directives``) where they call vectorised
    math over ``long_rows`` (``WIDE_ROW``), and wherever they call a function only the
    vectoriser's widening reaches (``templates.WIDENED_CALLS``), whatever the rows: LLVM left
    a row kernel calling ``vp.pow_simd_f32`` scalar, and ``(x ** (1 / g)).mean()`` of
    2048 x 4096 float32 ran 86 ms serially against 12.7 ms with 512-bit vectors
    (``(x ** 0.37).mean(axis=-1)`` of 200,000 float32, rows of 10: 1135 against 220 us a
    call; rows of 1000: 604 against 67)."""
    for spec in gen.specs:
        if spec.dtype not in _SUPPORTED:
            raise IRError(f"{what} kernels do not support dtype {spec.dtype}")
    gen.run()
    gen.wide_math = bool(gen.modules) and long_rows or gen.widened
    if STRIDED in gen.classes or gen.wide_math:
        gen.modules.add("vm")           # (``directives``)
    out_dtypes = [gen.values[v].dtype for v in gen.group.outputs]
    head = [f"# Generated by fusejit: a {what} kernel. The file name is a hash of",
            "# this text; the file is written once and never edited.",
            f"# fusejit {format_version(__version__)}",
            f"# helpers {HELPERS_DIGEST}",
            "import math", "", "import numpy as np", "from numba import njit, prange", "",
            "from fusejit.runtime.fusion import helpers as h",
            "from fusejit.runtime.fusion import rowmath as rm",
            "from fusejit.runtime.fusion import rowsearch as rs"]
    head += math_imports(gen.modules)
    head += ["", f"BLOCK = {BLOCK}", f"TAIL = {TAIL}", f"EXTREMA_BLOCK = {EXTREMA_BLOCK}",
             f"SEARCH_BLOCK = {SEARCH_BLOCK}"]
    parallel = gen.kernel_text("kernel_parallel", True)
    serial = gen.kernel_text("kernel_serial", False)
    head += [f"{name} = {text}" for text, name in gen.constants.items()]
    text = "\n".join(head + ["", ""] + parallel + ["", ""] + serial) + "\n"
    return text, out_dtypes


__all__ = ["ELEMENT", "FLAT", "NESTED", "NO_GATHERS", "ROW", "VIEWS", "RowGroup", "STRIDED", "UNIT",
           "ZERO", "generate_rows"]
