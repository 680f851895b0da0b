"""Python source for one fusion group, for Numba's ``@njit(parallel=True)``.

The kernel walks the (coalesced) output shape as tiles: a ``prange`` over rows, each row cut
into column blocks, and an inner loop over one block that reads every operand through a row
slice, so that LLVM sees unit-stride loads and vectorises. Index math lives in one int64 array
``meta`` (offsets and strides per operand, outer sizes) that the caller fills from the actual
shapes, so one kernel serves every size of a given (dtype, rank, inner-stride class) signature::

    graph(%0 : Float(*, *), %1 : Float(*)):        # x and a row vector
      %2 : Float(*, *) = aten::mul(%0, %1)
      return (%2)

    @njit(parallel=True, cache=True, error_model="numpy")
    def kernel_parallel(meta, x0, x1, o0, status):
        ...
        for tile in prange(n_tiles):
            ...                                    # outer index -> bases b0, b1, q0
            r0 = x0[b0:b0 + n]
            r1 = x1[b1:b1 + n]
            w0 = o0[q0:q0 + n]
            for c in range(n):
                a0 = r0[c]
                a1 = r1[c]
                # t0 : Float = aten::mul(a0, a1)
                t0 = np.float32(a0 * a1)
                w0[c] = t0

Only identifiers made here and numbers formatted here appear in the text: node kinds come
from the renderer table, names are ``x0 a1 t2 k3``, constants are re-formatted from validated
numbers; nothing (names, comments, strings) is copied from the graph.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ... import __version__
from ...errors import IRError
from ...ir.constants import constant_value
from ...ir.symbols import prim
from ...ir.types import ScalarType
from ...oplib.dtypes import float_to_int_via
from ...oplib.render import BOOL, Emitter, Operand
from ..compile_cache import runtime_digest
from .interleave import NAME as INTERLEAVE
from .interleave import count_for, inline_pow
from .layout import GroupLayout
from .loops import DEFER, STRIP, ScalarPass, inner_loops, stream_loops
from .native_entry import entry_text, native_capable
from .streams import streams_from
from .templates import (
    _SEPARATE,
    _TRIG,
    RENDERERS,
    STRUCTURAL,
    element_cost,
    fast_name,
    inside_form,
    kernel_decorator,
    math_imports,
    math_modules,
    trig_limit,
    vector_function,
)

# The name a kernel module gives the elements from which a call streams its outputs.
STREAMS_FROM = "STREAMS_FROM"


# A CUDA kernel reads at most this many offsets, strides and sizes from its meta array once
# before its loop, rather than in every iteration (codegen's cuda_kernel_text).
CUDA_HOISTED_META = 8
# Inner-stride classes of an operand, after the caller has coalesced dimensions (REVERSED:
# an inner stride of -1, a reversed view's).
UNIT, ZERO, STRIDED, REVERSED = "unit", "zero", "strided", "reversed"

_SUPPORTED = {np.dtype(t) for t in ("bool", "int8", "uint8", "int16", "int32", "int64", "uint16",
                                    "uint32", "uint64",
                                    "float32", "float64")}


class ArgSpec:
    """What a kernel is specialised on for one group input: never its sizes."""

    __slots__ = ("kind", "dtype", "rank")

    def __init__(self, kind: str, dtype: np.dtype, rank: int = 0):
        self.kind = kind            # "tensor" or "scalar"
        self.dtype = np.dtype(dtype)
        self.rank = rank

    def key(self) -> tuple:
        return (self.kind, self.dtype.str, self.rank)

    def __repr__(self) -> str:
        return f"ArgSpec({self.kind}, {self.dtype}, rank={self.rank})"


def format_number(value: object, dtype: np.dtype) -> str:
    """Source text for ``value`` converted to ``dtype``; only digits, signs and NumPy names."""
    dtype = np.dtype(dtype)
    if type(value) not in (bool, int, float):
        raise IRError(f"a fused kernel constant must be a number, not {type(value).__name__}")
    if dtype == BOOL:
        return "True" if value else "False"
    if dtype.kind in "iu":
        if isinstance(value, float):
            if not math.isfinite(value):
                raise IRError(f"cannot convert {value!r} to {dtype}")
            value = int(value)           # C-style truncation, as a cast would do
        info = np.iinfo(dtype)
        wrapped = (int(value) - int(info.min)) % (1 << (8 * dtype.itemsize)) + int(info.min)
        return f"np.{dtype.name}({wrapped})"
    number = float(dtype.type(value))
    if math.isnan(number):
        text = "np.nan"
    elif math.isinf(number):
        text = "np.inf" if number > 0 else "-np.inf"
    else:
        text = repr(number)
    return f"np.{dtype.name}({text})"


def _plain(value: object) -> str:
    """A constant as it reads in a comment: formatted here from a validated number."""
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(int(value))
    return repr(float(value))


def _type_name(dtype: np.dtype) -> str:
    return ScalarType.from_dtype(dtype).name


class _Generator(Emitter):
    def __init__(self, layout: GroupLayout, specs: list[ArgSpec], classes: list[str],
                 rank: int, precise: bool, target: str = "cpu", host_forms: bool = True):
        self.layout = layout
        # (False: the portable forms of ``templates.HOST_FORMS``' functions, ``generate``)
        self.host_forms = host_forms
        self.specs = specs
        self.classes = classes
        self.rank = rank
        self.target = target
        # fastmath exists for LLVM's CPU vectoriser; on CUDA libdevice is already fast.
        self.fast = not precise and target == "cpu"
        self.has_guards = False
        self.constants: dict[str, str] = {}     # formatted text -> module-level name
        self.guards: list[str] = []
        self.math_used: set[str] = set()        # the math modules it calls (by alias)
        # lines of the inner loop, before writes, and ScalarPasses where the loop is cut
        self.body: list = []
        self.dtypes: dict[str, np.dtype] = {}
        self.pending: ScalarPass | None = None
        self.values: dict[object, Operand] = {}
        self.loaded: set[int] = set()
        self.counter = 0
        # expression -> name of a value computed once per call (``hoist``; CPU kernels only)
        self.hoisted: dict[str, str] | None = {} if target == "cpu" else None
        self.once_guards: set[str] = set()      # (``guard_once``'s conditions)

    # -- Emitter interface used by the renderers -------------------------------------------
    def literal(self, value: object, dtype: np.dtype) -> str:
        text = format_number(value, dtype)
        if text not in self.constants:
            self.constants[text] = f"k{len(self.constants)}"
        return self.constants[text]

    def cast(self, op: Operand, dtype: np.dtype) -> str:
        dtype = np.dtype(dtype)
        if op.is_constant:
            if op.value is None:
                raise IRError("None where a number is needed in a fused kernel")
            return self.literal(op.value, dtype)
        if op.dtype == dtype:
            return op.expr
        if dtype == BOOL:
            return f"({op.expr} != 0)"
        via = float_to_int_via(op.dtype, dtype)    # (-1.7 to uint8: 255, as NumPy's)
        if via is not None:
            return f"np.{dtype.name}(np.{via}({op.expr}))"
        return f"np.{dtype.name}({op.expr})"

    def guard(self, condition: str) -> None:
        self.guards.append(condition)
        self.has_guards = True

    def pend(self, cut: ScalarPass, fast: str | None = None) -> None:
        """The node being rendered needs ``cut``: a loop of its own (no ``when``), or a fix-up
        where ``cut.when`` holds that computes the node's expression with the text ``fast``
        replaced by ``cut.expr``. Several in one expression (an exp and a log1p in
        logaddexp's) join: one fix-up where any holds, each replacement made (every exact text
        is right for every element); a loop of its own takes the node whole."""
        cut.replaces = [] if fast is None else [(fast, cut.expr)]
        old = self.pending
        if old is None:
            self.pending = cut
        elif old.when is None or cut.when is None:
            self.pending = ScalarPass("", "")
        else:
            merged = ScalarPass("", "", f"({old.when}) | ({cut.when})", old.total and cut.total)
            merged.replaces = old.replaces + cut.replaces
            self.pending = merged

    def checked(self, fast: str, exact: str, when: str) -> str:
        if not self.fast:
            return exact
        # (a fix-up, as for sine beyond its limit: loops.inner_loops reruns a strip with one)
        self.pend(ScalarPass("", exact, when), fast)
        return fast

    def math(self, kind: str, libm: str, x: str, dtype: np.dtype) -> str:
        fast = fast_name(kind, dtype) if self.fast else None
        if fast is None:
            return libm
        inside = inside_form(kind, dtype)
        if kind in _TRIG:
            # fast only for |x| up to the limit: a fix-up loop recomputes the rest with libm
            text = f"{fast}({x})"
            self.pend(ScalarPass("", libm, f"abs({x}) > {trig_limit(dtype)}"), text)
            return text
        if inside is not None:
            short, outside = inside
            return self.short_form(f"{short}({x})", f"{fast}({x})", f"{outside}({x})")
        if kind in _SEPARATE:
            self.pend(ScalarPass("", ""))       # (a vectorised loop of its own)
        return f"{fast}({x})"

    def short_form(self, short: str, full: str, outside: str) -> str:
        """``short``, valid where ``outside`` is false; a fix-up computes the strips holding an
        element where it is true again with ``full`` (vectorised too)."""
        self.pend(ScalarPass("", full, outside, total=True), short)
        return short

    def assigned(self, node, name: str, expr: str, dtype: np.dtype) -> tuple[list, str]:
        """The loop's items computing ``name``, the node's rendered ``expr`` in ``dtype``: its
        assignment (or a loop of its own), and the fix-up ``pending`` asks for, the expression
        with each fast text replaced by its exact one (all of it where a renderer returns the
        fast text alone); and the text of both, whose math modules the kernel imports (the
        fix-up's test names its limit's: vm.TRIG_LIMIT)."""
        cut = self.pending
        slow = None
        if cut is not None and cut.when is not None:
            slow = expr
            for fast, exact in cut.replaces:
                if fast not in slow:
                    raise IRError(f"{node.kind}: its renderer's expression lacks the fast form "
                                  f"it asked for ({fast})")
                slow = slow.replace(fast, exact)
        if dtype != BOOL:
            expr = f"np.{dtype.name}({expr})"
            slow = slow and f"np.{dtype.name}({slow})"
        items: list = [ScalarPass(name, expr) if cut is not None and cut.when is None
                       else f"{name} = {expr}"]
        if slow is None:
            return items, expr
        items.append(ScalarPass(name, slow, cut.when, cut.total))
        return items, f"{expr} {slow} {cut.when}"

    def vectorised(self, name: str) -> str | None:
        return vector_function(name, self.host_forms) if self.fast else None

    def function(self, name: str) -> str:
        # CUDA has no NumPy ufuncs in kernels: the helpers module maps them to libdevice.
        return f"np.{name}" if self.target == "cpu" else f"h.{name}"

    def random(self, dtype: np.dtype) -> str:
        if self.target != "cpu":
            raise IRError("rand_like has no CUDA kernel form: fusejit's CUDA kernels have no "
                          "random number generator")
        # Numba gives each thread of a parallel loop its own generator state. The generator's
        # call keeps LLVM from vectorising a loop: the samples are drawn in a loop of their own.
        if self.fast:
            self.pend(ScalarPass("", ""))
        return "np.random.random()"

    def hoist(self, expr: str) -> str | None:
        if self.hoisted is None:
            return None
        if expr not in self.hoisted:
            self.hoisted[expr] = f"once{len(self.hoisted)}"
        return self.hoisted[expr]

    def guard_once(self, condition: str) -> None:
        if self.hoisted is None:
            self.guard(condition)
        else:
            self.once_guards.add(condition)
            self.has_guards = True

    # -- walking the subgraph --------------------------------------------------------------
    def operand_for(self, value, load: bool = True) -> Operand:
        """The operand for ``value``; ``load=False`` asks only for its dtype (no read)."""
        index = self.layout.operand_of.get(value)
        op = self.values.get(value)
        if op is None:
            if index is None:
                raise IRError(f"%{value.debug_name} is not available in the fused kernel")
            spec = self.specs[self._tensor_position(self.layout.operands[index].input)]
            op = Operand(f"a{index}", spec.dtype, "tensor" if spec.rank else "zero_dim")
            self.values[value] = op
        if load and index is not None:
            self.loaded.add(index)
        return op

    def _tensor_position(self, tensor_number: int) -> int:
        for pos, number in self.layout.tensor_index.items():
            if number == tensor_number:
                return pos
        raise AssertionError(tensor_number)

    def run(self) -> None:
        layout = self.layout
        for pos, value in enumerate(layout.graph.inputs):
            if pos in layout.scalar_index:
                spec = self.specs[pos]
                self.values[value] = Operand(f"s{layout.scalar_index[pos]}", spec.dtype, "scalar")
        for node in layout.graph.nodes():
            if node.kind == prim.Constant:
                if all(use.user.kind in STRUCTURAL for use in node.output().uses):
                    continue   # (a view's argument, or unused: a graph passed whole may
                    #            hold an unused string constant)
                value = constant_value(node)
                if value is not None and type(value) not in (bool, int, float):
                    raise IRError(f"constant of type {type(value).__name__} in a fused kernel")
                text = _plain(value)
                dtype = np.dtype(np.float64 if isinstance(value, float) else
                                 np.bool_ if isinstance(value, bool) else np.int64)
                self.values[node.output()] = Operand(text, dtype, "scalar", value)
            elif node.kind in STRUCTURAL:
                continue    # (cuts make operands, see layout.py; concats are outputs)
            else:
                self._emit(node)

    def _emit(self, node) -> None:
        live = node.output() in self.layout.needed
        op = RENDERERS[node.kind]
        ops = [self.operand_for(v, live and i not in op.dtype_only)
               for i, v in enumerate(node.inputs)]
        self.guards = []
        self.pending = None
        had_guards = self.has_guards
        dtype = np.dtype(op.dtype(ops))
        expr = op.render(self, node, ops, dtype)
        if dtype not in _SUPPORTED:
            raise IRError(f"{node.kind} would produce {dtype}, unsupported in fused kernels")
        if not live:
            # Only its dtype is read (by a type_as): nothing to compute in the loop.
            self.has_guards = had_guards
            self.values[node.output()] = Operand("(dtype only)", dtype, "tensor")
            return
        name = f"t{self.counter}"
        self.counter += 1
        shown = ", ".join(op.expr for op in ops)
        self.body.append(f"# {name} : {_type_name(dtype)} = {node.kind}({shown})")
        for condition in self.guards:
            self.body.append(f"if {condition}:")
            self.body.append("    status[0] = 1")
        self.dtypes[name] = dtype
        items, texts = self.assigned(node, name, expr, dtype)
        self.body += items
        self.math_used |= math_modules(texts)
        kinds = [op.kind for op in ops if op.is_tensor]
        kind = "tensor" if "tensor" in kinds else "zero_dim"
        self.values[node.output()] = Operand(name, dtype, kind)

    # -- assembling the module -------------------------------------------------------------
    def output_dtypes(self) -> list[np.dtype]:
        dtypes = []
        for out in self.layout.outputs:
            pieces = {self.operand_for(v).dtype for v in out.pieces}
            if len(pieces) != 1:
                raise IRError("prim::FusedConcat of tensors with different dtypes")
            dtypes.append(pieces.pop())
        return dtypes

    def wide(self) -> bool:
        """Do this kernel's loops ask LLVM for 512-bit vectors (``vm.wide_vectors``)? Where
        they call vectorised math: on an AVX-512 host float64 exp ran 2.3 -> 0.94 ns/element,
        float32 sigmoid 0.66 -> 0.49, the float64 12-op chain 11.1 -> 8.0."""
        return self.target == "cpu" and bool(self.math_used)

    def vector_bits(self) -> int:
        """The widest vectors this CPU kernel's loops ask LLVM for: 512 bits where they call
        vectorised math (``wide``); memory-bound ones narrower, as NumPy's own loops are (AVX2
        for add, SSE for abs and floor). LLVM's tuning gives some CPUs 256 bits by default and
        others (AMD Zen 4) 512. On the Zen 4 host, 2^22 elements, one thread's CPU time,
        medians of 3 alternated runs of benchmarks/ops.py --cpu (21 calls each, load 6-16):
        256 bits instead of 512, float32 add 0.85 -> 0.94x NumPy, sub 0.83 -> 0.98x (earlier:
        float64 add 1.39 -> 1.64 ns/element with 512 bits, floor 1.06 -> 1.27). Reading one
        array, 128 bits against 256: float32 floor 0.84 -> 0.98x, abs 0.88 -> 0.95x, relu
        1.29 -> 1.56x (a C loop of 16-byte accesses matched np.abs where 32-byte ones ran
        0.87-0.94x, whatever the arrays' alignment); reading two, 256 (float64 mul 0.84x with
        128 bits, 0.93x with 256). A division or square root keeps 256 bits: their vector
        instructions are slow enough for the width to count (float32 sqrt 0.97 -> 1.18x,
        rsqrt 1.16 -> 2.06x with 256 bits instead of 128)."""
        if self.wide():
            return 512
        streams = sum(1 for k in self.loaded if self.classes[k] != ZERO)
        return 128 if streams <= 1 and not self._computes("/", "sqrt(") else 256

    def kernel_text(self, name: str, parallel: bool, fixer: bool = False,
                    stream: bool = False, short: bool = False) -> list[str]:
        """A CPU kernel's lines. The parallel one defers the second loop of a strip that holds
        an argument outside a fast form's domain (``loops.DEFER``: it marks the strip); the
        serial one, ``fixer``, then computes only the marked strips when its status array
        holds marks (a call's plain status array, of length 1, holds none). ``stream``: a
        call of ``STREAMS_FROM`` elements or more streams its outputs, where the kernel can
        (``streamed``). ``short``: the short-row kernel (``short_kernel_text``)."""
        if short:
            return self.short_kernel_text(name, parallel)
        layout, rank = self.layout, self.rank
        loop = "prange" if parallel else "range"
        lines = self._kernel_head(name, parallel)
        streamed = stream and self.streamed()
        if streamed:
            # (rows * cols elements; a tile shorter than a strip keeps plain stores)
            lines.append(f"    stream = block >= {STRIP} and (n_tiles // n_blocks) * cols >= "
                         f"{STREAMS_FROM}")
        lines += [f"    for tile in {loop}(n_tiles):",
                 "        row = tile // n_blocks",
                 "        c0 = (tile - row * n_blocks) * block",
                 "        n = min(block, cols - c0)"]
        # (a strided row slice's loads: scalar loads, not gathers; vm.no_gathers)
        lines += self._vector_lines(any(self.classes[k] == STRIDED for k in self.loaded))
        outer = rank - 1
        # Decompose the row number into outer indices, innermost outer dimension first.
        lines.append("        rest = row")
        for d in range(outer - 1, 0, -1):
            lines.append(f"        i{d} = rest % meta[{4 + d}]")
            lines.append(f"        rest = rest // meta[{4 + d}]")
        if outer:
            lines.append("        i0 = rest")
        first = 4 + outer
        stride_of = lambda k, d: f"meta[{first + k * (rank + 1) + 1 + d}]"  # noqa: E731

        def base(k: int) -> str:
            terms = [f"meta[{first + k * (rank + 1)}]"]
            terms += [f"i{d} * {stride_of(k, d)}" for d in range(outer)]
            terms.append(f"c0 * {stride_of(k, rank - 1)}")
            return " + ".join(terms)

        inner: dict[str, str] = {}
        for k in sorted(self.loaded):
            source = f"x{layout.operands[k].input}"
            lines.append(f"        b{k} = {base(k)}")
            cls = self.classes[k]
            if cls == ZERO:
                lines.append(f"        a{k} = {source}[b{k}]")
            elif cls == UNIT:
                lines.append(f"        r{k} = {source}[b{k}:b{k} + n]")
                inner[f"a{k}"] = f"a{k} = r{k}[c]"
            elif cls == REVERSED:
                # (a row walked backwards, ``x[::-1]``: a contiguous slice read from its end,
                # which LLVM loads as vectors and reverses in registers; ``loops._in_strip``
                # knows the form. The index is unsigned: Numba's wraparound of a negative
                # signed index kept the loop scalar, 58 us against 26 for 10^5 float64)
                lines.append(f"        v{k} = {source}[b{k} - n + 1:b{k} + 1]")
                inner[f"a{k}"] = f"a{k} = v{k}[np.uint64(n - 1 - c)]"
            else:
                step = stride_of(k, rank - 1)
                lines.append(f"        r{k} = {source}[b{k}:b{k} + (n - 1) * {step} + 1:{step}]")
                inner[f"a{k}"] = f"a{k} = r{k}[c]"
        writes: list[str] = []
        k = len(layout.operands)
        for j, out in enumerate(layout.outputs):
            for value in out.pieces:
                lines.append(f"        q{k} = {base(k)}")
                if self.classes[k] == STRIDED:
                    # a FusedConcat piece whose inner dimensions after the concat dim are 1s
                    step = stride_of(k, rank - 1)
                    lines.append(f"        w{k} = o{j}[q{k}:q{k} + (n - 1) * {step} + 1:{step}]")
                else:
                    lines.append(f"        w{k} = o{j}[q{k}:q{k} + n]")
                writes.append(f"w{k}[c] = {self.operand_for(value).expr}")
                k += 1
        marks = "set" if parallel else "read" if fixer else None
        allocs, loops = inner_loops(self.body, inner, writes, self.dtypes, marks=marks)
        if streamed:
            allocs_s, loops_s = stream_loops(inner, self.body, writes)
            lines.append("        if stream:")
            lines.extend("            " + line for line in allocs_s + loops_s)
            lines.append("        else:")
            lines.extend("            " + line for line in allocs + loops)
        else:
            lines.extend("        " + line for line in allocs + loops)
        return lines

    def _kernel_head(self, name: str, parallel: bool) -> list[str]:
        """A CPU kernel's decorator and signature, its reads of ``meta``'s tiling, the values
        it computes once a call (``hoist``) and its once-a-call guards."""
        layout = self.layout
        args = (["meta"] + [f"x{i}" for i in range(len(layout.tensor_index))]
                + [f"s{i}" for i in range(len(layout.scalar_index))]
                + [f"o{i}" for i in range(len(layout.outputs))] + ["status"])
        lines = [kernel_decorator(parallel),
                 f"def {name}({', '.join(args)}):",
                 "    n_tiles = meta[0]", "    cols = meta[1]", "    block = meta[2]",
                 "    n_blocks = meta[3]"]
        lines += [f"    {local} = {expr}" for expr, local in (self.hoisted or {}).items()]
        for condition in sorted(self.once_guards):
            lines += [f"    if {condition}:", "        status[0] = 1"]
        return lines

    def _vector_lines(self, strided: bool) -> list[str]:
        """A tile's first lines: the vector width LLVM is to use, and no gathers where an
        operand is read (or written) ``strided``."""
        bits = self.vector_bits()
        lines = [f"        vm.{'wide_vectors' if bits == 512 else f'vectors_{bits}'}()"]
        return lines + (["        vm.no_gathers()"] if strided else [])

    def short_kernel_text(self, name: str, parallel: bool) -> list[str]:
        """The lines of a kernel for rows shorter than ``plan.SHORT_ROW`` (``plan.short_meta``:
        ``block`` rows a tile, ``n_blocks`` rows in all). Each row is walked by index from its
        operands' bases, with no row slices, and each cut pass runs over the whole row (no
        strips, no deferred marks, no streamed stores)::

            for tile in prange(n_tiles):
                first = tile * block
                n = cols
                for row in range(first, min(n_blocks, first + block)):
                    ...                                # outer index -> bases b0, b1, q2
                    a1 = x1[b1]                        # a zero-stride operand: once a row
                    for c in range(n):
                        a0 = x0[b0 + c]
                        t0 = np.float64(a0 - a1)
                        o0[q2 + c] = t0

        (x - mean) / std over 200000 x 8 float64, one thread: 2.3 ms, against 3.4 ms with a
        slice per operand and row and 15 ms walking the long dimension (by hand).)"""
        layout, rank = self.layout, self.rank
        loop = "prange" if parallel else "range"
        lines = self._kernel_head(name, parallel)
        first = 4 + rank - 1
        outer = rank - 1
        n_reads = len(layout.operands)
        walked = sorted(self.loaded) + list(range(n_reads, len(self.classes)))
        # (each operand's offset and strides read from meta once, into locals: read in the
        # row loop, they were loaded again for every row, as a store to an output may, for
        # all Numba tells LLVM, write meta)
        for k in walked:
            lines.append(f"    off{k} = meta[{first + k * (rank + 1)}]")
            lines += [f"    st{k}_{d} = meta[{first + k * (rank + 1) + 1 + d}]"
                      for d in range(outer)]
            if self.classes[k] == STRIDED:
                lines.append(f"    step{k} = meta[{first + k * (rank + 1) + rank}]")
        lines += [f"    size{d} = meta[{4 + d}]" for d in range(1, outer)]
        lines += [f"    for tile in {loop}(n_tiles):",
                  "        first = tile * block",
                  "        n = cols"]
        lines += self._vector_lines(any(self.classes[k] == STRIDED for k in walked))
        row_lines = ["rest = row"]
        for d in range(outer - 1, 0, -1):
            row_lines += [f"i{d} = rest % size{d}", f"rest = rest // size{d}"]
        if outer:
            row_lines.append("i0 = rest")

        def base(k: int) -> str:
            return " + ".join([f"off{k}"] + [f"i{d} * st{k}_{d}" for d in range(outer)])

        def at(k: int, index: str) -> str:
            cls = self.classes[k]
            if cls == UNIT:
                return f"{index} + c"
            if cls == REVERSED:     # (an unsigned index: no wraparound test)
                return f"np.uint64({index} - c)"
            return f"{index} + c * step{k}"

        inner: dict[str, str] = {}
        for k in sorted(self.loaded):
            source = f"x{layout.operands[k].input}"
            row_lines.append(f"b{k} = {base(k)}")
            if self.classes[k] == ZERO:
                row_lines.append(f"a{k} = {source}[b{k}]")
            else:
                inner[f"a{k}"] = f"a{k} = {source}[{at(k, f'b{k}')}]"
        writes: list[str] = []
        k = n_reads
        for j, out in enumerate(layout.outputs):
            for value in out.pieces:
                row_lines.append(f"q{k} = {base(k)}")
                writes.append(f"o{j}[{at(k, f'q{k}')}] = {self.operand_for(value).expr}")
                k += 1
        allocs, loops = inner_loops(self.body, inner, writes, self.dtypes, strips=False)
        lines += ["        " + line for line in allocs]
        lines.append("        for row in range(first, min(n_blocks, first + block)):")
        lines += ["            " + line for line in row_lines + loops]
        return lines

    def streamed(self) -> bool:
        """Can this CPU kernel stream its outputs (``streams``)? Where its loop is one pass
        (no cut), every output row it writes is contiguous, and it calls no vectorised math
        (``wide``): the strip loops cost those more than the streamed stores save. On the Zen 4
        host, 2^22 float32, one thread, ns/element plain -> streamed (3 alternated runs):
        sinh 0.36-0.38 -> 0.42-0.43 (0.85x NumPy), tanh 0.31-0.32 -> 0.35-0.36, log1p and sin
        even; abs 0.21-0.23 -> 0.17-0.18, mul 0.39-0.52 -> 0.31-0.38. (The 12-op chain of
        ``benchmarks/fusion.py``, 2^24, ran 0-20% faster streamed, within the runs' noise.)
        Nor where it takes a square root: plain -> streamed, 3 runs of 61 alternated calls,
        float32 sqrt 0.25-0.33 -> 0.29-0.46, rsqrt 0.33-0.38 -> 0.36-0.52, float64 sqrt
        0.71-0.75 -> 0.85-0.99 (float32 reciprocal, a division, 0.26-0.31 -> 0.21-0.25, and
        float32 div 0.40-0.54 -> 0.36-0.60: divisions still stream)."""
        n_reads = len(self.layout.operands)
        return (self.target == "cpu" and not self.wide() and not self._computes("sqrt(")
                and not any(isinstance(item, ScalarPass) for item in self.body)
                and all(cls != STRIDED for cls in self.classes[n_reads:]))

    def _computes(self, *texts: str) -> bool:
        """Does a line of the element computation hold one of ``texts``?"""
        return any(isinstance(line, str) and not line.startswith("#")
                   and any(text in line for text in texts) for line in self.body)

    def bytes_per_element(self) -> int:
        """Bytes a call moves per element of its iteration space: each row it reads (not a
        broadcast one), each output piece it writes."""
        layout = self.layout
        read = sum(self.specs[self._tensor_position(layout.operands[k].input)].dtype.itemsize
                   for k in self.loaded if self.classes[k] != ZERO)
        written = sum(dtype.itemsize * len(out.pieces)
                      for dtype, out in zip(self.output_dtypes(), layout.outputs))
        return read + written

    def cuda_kernel_text(self, name: str, classes: list[str] | None = None,
                         lead: int = 0) -> list[str]:
        """The same element computation as ``kernel_text``, as a ``@cuda.jit`` grid-stride
        loop over the linear output index (one element per thread and iteration).

        ``classes`` are the plan's inner-stride classes of the operands (reads, then output
        pieces), or None (every one strided): a unit stride is no multiplication in the last
        dimension, and a zero one no term. The first ``lead`` dimensions have size 1 (the plan
        pads its coalesced sizes to the group's rank): they take no index arithmetic, so a
        contiguous call of any rank indexes with ``lin`` itself, without the 64-bit divisions
        that split it. Offsets, strides and sizes are
        read from ``meta`` once, before the loop, where they are few (``CUDA_HOISTED_META``):
        the loop's stores could alias ``meta`` for all Numba knows, so it reads them again
        for every element, from the L1 cache, which costs less than the registers that
        many of them would hold."""
        layout, rank = self.layout, self.rank
        n_operands = len(layout.operands) + sum(len(out.pieces) for out in layout.outputs)
        if classes is None:
            classes = [STRIDED] * n_operands
        n_tensors = len(layout.tensor_index)
        args = (["meta", "numel"] + [f"x{i}" for i in range(n_tensors)]
                + [f"s{i}" for i in range(len(layout.scalar_index))]
                + [f"o{i}" for i in range(len(layout.outputs))] + ["status"])
        lines = ["@cuda.jit(cache=True)",
                 f"def {name}({', '.join(args)}):"]
        # The plan's sizes: outer dimensions at meta[4 + d], the last one at meta[1].
        size_of = lambda d: "meta[1]" if d == rank - 1 else f"meta[{4 + d}]"  # noqa: E731
        first = 4 + rank - 1
        used = sorted(self.loaded) + list(range(len(layout.operands), n_operands))
        names: dict[str, str] = {}     # a meta read's local, where it is read before the loop
        for k in used:
            names[f"f{k}"] = f"meta[{first + k * (rank + 1)}]"
            for d in range(lead, rank):
                if d < rank - 1 or classes[k] in (STRIDED, REVERSED):
                    names[f"t{k}_{d}"] = f"meta[{first + k * (rank + 1) + 1 + d}]"
        for d in range(lead + 1, rank):
            names[f"n{d}"] = size_of(d)
        hoisted = len(names) <= CUDA_HOISTED_META
        if hoisted:
            lines += [f"    {local} = {read}" for local, read in names.items()]
        at = (lambda local: local) if hoisted else names.__getitem__
        lines += ["    start = cuda.grid(1)",
                  "    step = cuda.gridsize(1)",
                  "    for lin in range(start, numel, step):"]
        if lead == rank - 1:
            lines.append(f"        i{rank - 1} = lin")
        else:
            lines.append("        rest = lin")
            for d in range(rank - 1, lead, -1):
                lines.append(f"        q = rest // {at(f'n{d}')}")
                lines.append(f"        i{d} = rest - q * {at(f'n{d}')}")
                lines.append("        rest = q")
            lines.append(f"        i{lead} = rest")

        def index(k: int) -> str:
            terms = [at(f"f{k}")]
            for d in range(lead, rank):
                if d < rank - 1 or classes[k] in (STRIDED, REVERSED):
                    terms.append(f"i{d} * {at(f't{k}_{d}')}")
                elif classes[k] == UNIT:
                    terms.append(f"i{d}")
            return " + ".join(terms)

        body: list[str] = [f"a{k} = x{layout.operands[k].input}[{index(k)}]"
                           for k in sorted(self.loaded)]
        assert not any(isinstance(line, ScalarPass) for line in self.body)   # (CPU only)
        body += self.body
        k = len(layout.operands)
        for j, out in enumerate(layout.outputs):
            for value in out.pieces:
                body.append(f"o{j}[{index(k)}] = {self.operand_for(value).expr}")
                k += 1
        lines.extend("        " + line for line in body)
        return lines


def generate(layout: GroupLayout, specs: list[ArgSpec], classes: list[str], rank: int,
             precise: bool = False, stream: bool = False,
             short: bool = False) -> tuple[str, list[np.dtype]]:
    """The kernel module's source and the group outputs' dtypes.

    ``specs`` describes every group input, ``classes`` gives each operand's inner-stride class
    (reads first, then output pieces), ``rank`` is the iteration rank (at least 1).
    ``stream``: the kernels stream the outputs of calls of the module's ``STREAMS_FROM``
    elements or more. A module whose kernels can stream defines that number either way: the
    caller compiles the streaming module, whose loops are twice as long, only for calls of
    that size (``compiler.FusedKernel._variant``). ``short``: kernels for rows shorter than
    ``plan.SHORT_ROW`` (``_Generator.short_kernel_text``), which never stream.
    """
    for spec in specs:
        if spec.dtype not in _SUPPORTED:
            raise IRError(f"fused kernels do not support dtype {spec.dtype}")
    # (a long kernel computes float32 pow inline, the portable form, rather than by a call of
    # the host's vector function, AVX-512's ``pow_simd_f32``: ``interleave.inline_pow``)
    cost = element_cost(layout)
    gen = _Generator(layout, specs, classes, max(rank, 1), precise,
                     host_forms=not inline_pow(cost))
    gen.run()
    out_dtypes = gen.output_dtypes()
    stream = stream and not short
    parallel = gen.kernel_text("kernel_parallel", True, stream=stream, short=short)
    deferred = any(line.strip() == DEFER for line in parallel)
    serial = gen.kernel_text("kernel_serial", False, fixer=deferred, stream=stream,
                             short=short)
    head = ["# Generated by fusejit: a fused elementwise kernel. The file name is a hash of",
            "# this text; the file is written once and never edited.",
            f"# fusejit {format_version(__version__)}, numba {format_version(numba.__version__)}",
            f"# helpers {HELPERS_DIGEST}",
            "import math", "", "import numpy as np", "from numba import njit, prange", "",
            "from fusejit.runtime.fusion import helpers as h"]
    # (vm: the vector width, ``wide``)
    head += math_imports(gen.math_used | ({"vm"} if gen.target == "cpu" else set()))
    streamed = gen.streamed() and not short
    if streamed and stream:
        head.append("from fusejit.runtime.fusion import streams as st")
    entries: list[str] = []
    if native_capable(specs, out_dtypes):
        # Entry points for the interpreter's native loop (see native_entry.py).
        head.append("from fusejit.runtime.native import kernel_entry as ke")
        for name, kernel in (("native_parallel", "kernel_parallel"),
                             ("native_serial", "kernel_serial")):
            entries += ["", ""] + entry_text(layout, specs, out_dtypes, gen.rank, name, kernel,
                                             deferred and kernel == "kernel_parallel")
    head.append("")
    head += [f"{name} = {text}" for text, name in gen.constants.items()]
    if streamed:
        head.append(f"{STREAMS_FROM} = {streams_from(gen.bytes_per_element())}")
    # (not where the loop calls a vector function, simd's pow: a call spills every live
    # vector, and four chains have four times as many)
    interleave = count_for(cost, gen.wide() and not gen._computes("pow_simd_f32("))
    if interleave:
        # (compile with that many vectors a loop iteration: ``interleave``)
        head.append(f"{INTERLEAVE} = {interleave}")
    text = "\n".join(head + ["", ""] + parallel + ["", ""] + serial + entries) + "\n"
    return text, out_dtypes


# A hash of every module kernels call into and of the toolchain (compile_cache.runtime_digest):
# changed helpers give new kernel files, and Numba's files for them live under that digest.
HELPERS_DIGEST = runtime_digest()


def format_version(version: str) -> str:
    """A version string reduced to digits, dots and letters (it goes into a comment)."""
    return "".join(ch for ch in version if ch.isalnum() or ch in ".+-")[:40]


def generate_cuda(layout: GroupLayout, specs: list[ArgSpec], rank: int,
                  compute_capability: tuple[int, int], classes: list[str] | None = None,
                  lead: int = 0) -> tuple[str, list[np.dtype], bool]:
    """The CUDA kernel module's source, the outputs' dtypes, and whether the kernel can set
    its status flag (integer division by zero), which costs the caller a device sync to read.
    ``classes`` and ``lead``: the plan's stride classes (or None) and leading size-1 dimensions
    (``cuda_kernel_text``; ``CudaFusedKernel`` passes classes for one-dimensional loops only).

    The compute capability is written into the text, so the file, its hash and Numba's cache
    entry are per device generation.
    """
    for spec in specs:
        if spec.dtype not in _SUPPORTED:
            raise IRError(f"fused kernels do not support dtype {spec.dtype}")
    rank = max(rank, 1)
    gen = _Generator(layout, specs, [STRIDED] * len(layout.operands), rank, True, "cuda")
    gen.run()
    out_dtypes = gen.output_dtypes()
    major, minor = (int(v) for v in compute_capability)
    head = ["# Generated by fusejit: a fused elementwise CUDA kernel. The file name is a hash",
            "# of this text; the file is written once and never edited.",
            f"# fusejit {format_version(__version__)}, numba {format_version(numba.__version__)},"
            f" target cuda sm_{major}{minor}", f"# helpers {HELPERS_DIGEST}",
            "import math", "", "import numpy as np", "from numba import cuda", "",
            "from fusejit.runtime.fusion import cuda_helpers as h", ""]
    head += [f"{name} = {text}" for text, name in gen.constants.items()]
    text = "\n".join(head + ["", ""] + gen.cuda_kernel_text("kernel_cuda", classes, lead)) + "\n"
    return text, out_dtypes, gen.has_guards
