"""Every fused group of the conformance corpora compiles to vector instructions.

One libm call left in a kernel's loop makes LLVM run the whole loop an element at a time; the
vectorisable math (``vecmath``/``fastmath``) and the separate scalar passes (``loops``) exist
to prevent that. Numba disables inspection of code loaded from its cache, so each group's
serial kernel is compiled here once more, uncached, and its optimised LLVM IR is searched for
vector arithmetic on floats (or on integers, for integer-only groups).

Corpora: ``tests/data/conformance`` (the cases of ``KERNEL_CASES``), and
``tests/data/conformance2`` (188 cases, mostly one op each): the 65 cases of ``COVER2``, whose
groups hold every (op kind, result dtype) pair that any group of that corpus holds, of which
the default suite runs those holding a pair that the default cases of the first corpus do not
(``_IN_CORPUS`` lists the others; a test checks that the default cases hold every pair);
all of them with ``FUSEJIT_VECTORISE_ALL=1``. Compiling a probe costs about a second a group on
this project's 2-core machine, and the suite must stay under 10 minutes (``slow`` only labels:
the default run still runs it)."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.ir.constants import constant_value
from fusejit.ir.graph import ElidedTensor
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion.loops import STRIP
from tests.conformance import test_fuser_conformance2 as conformance2
from tests.conftest import KERNEL_CASES, read_corpus

from .oracle import run_subgraph
from .test_corpus import _eval_block, run_corpus_case

# A vector operation: arithmetic, a compare or a load/store of <N x type> with N >= 2.
_VECTOR_OP = re.compile(r"= (fadd|fsub|fmul|fdiv|add|sub|mul|fcmp \w+|icmp \w+|load|select"
                        r"|call) [^\n]*<(\d+) x (float|double|i\d+)>")


class _Recording(FusedKernel):
    """Records each group's inputs; computes its outputs node by node (no kernel compiled)."""

    seen: list = []

    def __call__(self, *inputs):
        with np.errstate(all="ignore"):
            outs = tuple(np.asarray(v) for v in run_subgraph(self.layout.graph, *inputs))
        _Recording.seen.append((self, inputs, outs))
        return outs


def _loop_probe_ir(kernel: FusedKernel, inputs: tuple, outs: tuple) -> str:
    """The optimised LLVM IR of the kernel's inner loops, compiled uncached: the serial
    kernel's tile body (buffers and ``for c in range(n)`` loops, or the strips of a cut loop,
    text unchanged) as a function
    of the row slices it reads and writes (compiling the loops alone costs far less than the
    whole kernel)."""
    _specs, flats, scalars, plan, _key = kernel._prepare(inputs)
    text = kernel.source(*inputs).replace("cache=True", "cache=False")
    serial = text[text.index("def kernel_serial"):]
    serial = serial[:serial.index("\n\n")].splitlines()
    # (the short-row kernel's loops sit in its loop over a tile's rows, one level deeper)
    first = next(i for i, line in enumerate(serial)
                 if line.strip() in ("for c in range(n):", f"for s in range(0, n, {STRIP}):"))
    depth = len(serial[first]) - len(serial[first].lstrip()) - 4
    body = [line[depth:] for line in serial[first:]]
    body = [line[4:] for line in serial if line.startswith(("        bt", "        ba"))] + body
    layout = kernel.layout
    n = min(8, plan.numel)
    args: dict = {"n": n}
    for k, op in enumerate(layout.operands):
        flat = flats[op.input]
        args[f"r{k}"] = np.ascontiguousarray(flat[:n] if flat.size >= n else
                                             np.resize(flat, n))
        args[f"a{k}"] = flat[0]
        # A strided operand's loads index its whole array, x[b + c * d]: the probe, like its
        # rows, gives it unit steps (a constant 1 for d, below), so that what is checked is
        # that the group's work vectorises, whatever the strides of the recorded call.
        args[f"x{op.input}"], args[f"b{k}"] = args[f"r{k}"], 0
    k = len(layout.operands)
    for j, out in enumerate(layout.outputs):
        args[f"o{j}"] = np.empty(n, outs[j].dtype)     # (the short-row kernel's o0[q2 + c])
        for _piece in out.pieces:
            args[f"w{k}"], args[f"q{k}"] = np.empty(n, outs[j].dtype), 0
            k += 1
    for i, value in enumerate(scalars):
        args[f"s{i}"] = value
    args["status"] = np.zeros(1, np.int64)
    args["tile"], args["block"] = 0, n      # (a serial kernel's test for strips marked for it)
    body = [re.sub(r"\b(?:d|step)\d+\b", "1", line) for line in body]
    names = [name for name in args if name == "n" or re.search(rf"\b{name}\b", "\n".join(body))]
    source = (f"@njit(cache=False, error_model='numpy')\ndef probe({', '.join(names)}):\n"
              + "\n".join(body) + "\n")
    namespace: dict = {}
    exec(compile(text + "\n" + source, "<fused kernel loops, uncached>", "exec"), namespace)
    probe = namespace["probe"]
    probe(*[args[name] for name in names])
    return probe.inspect_llvm(probe.signatures[0]), body


# What a loop of its own may hold and stay scalar: libm, the generator, a fix-up's branch.
_SCALAR_CALL = re.compile(r"math\.|np\.random|np\.fmod|h\.remainder_f|^\s*if ")


def _loops_to_vectorise(body: list[str]) -> int:
    """How many of the probe's ``for c`` loops hold only vectorisable lines."""
    count, depth, scalar = 0, None, False
    for line in body + ["<end>"]:
        indent = len(line) - len(line.lstrip())
        if depth is not None and indent <= depth:
            count += not scalar
            depth = None
        if line.lstrip().startswith("for c in range("):
            depth, scalar = indent, False
        elif depth is not None and _SCALAR_CALL.search(line):
            scalar = True
    return count


def _assert_recorded_groups_vectorise() -> None:
    for kernel, inputs, outs in _Recording.seen:
        if max(np.size(x) for x in inputs) < 2 and all(o.size < 2 for o in outs):
            continue        # (nothing to vectorise over)
        ir, body = _loop_probe_ir(kernel, inputs, outs)
        lanes = [int(m.group(2)) for m in _VECTOR_OP.finditer(ir)]
        assert lanes and max(lanes) >= 2, kernel.source(*inputs)
        # every loop without a libm or generator call vectorised, not just one of them
        vectorised = len(re.findall(r"^vector\.body\d*:", ir, re.MULTILINE))
        assert vectorised >= _loops_to_vectorise(body), "\n".join(body)


@pytest.mark.parametrize("case", KERNEL_CASES)
def test_corpus_groups_vectorise(case):
    _Recording.seen = []
    run_corpus_case(case, _Recording)
    _assert_recorded_groups_vectorise()


# conformance2 cases whose groups between them hold every (op kind, result dtype) pair of the
# corpus's groups (a greedy cover)
COVER2 = ["if_branches", "chunk_of_chunk_used", "compare_int_scalar", "type_as_float_to_double",
          "unary_int_abs_neg", "compare_bool_tensors", "scalar_div_float_param",
          "grad_sum_to_size_neg_add", "compare_bool_returned_and_used", "compare_eq_tensor",
          "mixed_dtypes", "relu_sigmoid_int", "unary_abs_double", "cast_float",
          "clamp_max_none", "sum_between", "cat_with_mm", "where_two_scalars",
          "compare_le_scalar", "compare_lt_scalar", "pow_param_exponent", "addcmul_default",
          "atan2_broadcast", "binary_fmod_int", "binary_max_int", "binary_min_int",
          "binary_remainder_int", "clamp_int_tensor", "pow_int_tensor", "threshold_int",
          "threshold_op", "unary_neg_double", "unary_relu_double", "unary_sigmoid_double",
          "unary_tanh_double", "binary_fmod", "binary_max", "binary_min", "binary_remainder",
          "div_int_true", "logit_eps", "unary_acos", "unary_asin", "unary_atan", "unary_ceil",
          "unary_cosh", "unary_erf", "unary_erfc", "unary_expm1", "unary_floor", "unary_frac",
          "unary_lgamma", "unary_log", "unary_log10", "unary_log1p", "unary_log2", "unary_neg",
          "unary_reciprocal", "unary_relu", "unary_round", "unary_rsqrt", "unary_sinh",
          "unary_tan", "unary_trunc", "rand_like_zeroed"]


# COVER2 cases each of whose pairs a default case of the conformance corpus holds too
# (test_corpus_groups_vectorise: binary_tensor_ops, unary_rounding_special_chain, ...), or
# another default case of COVER2: exhaustive cases
_IN_CORPUS = {"if_branches", "scalar_div_float_param", "compare_bool_returned_and_used",
              "compare_eq_tensor", "cat_with_mm", "where_two_scalars", "compare_le_scalar",
              "compare_lt_scalar", "pow_param_exponent", "atan2_broadcast", "binary_fmod",
              "binary_max", "binary_min", "binary_remainder", "unary_ceil", "unary_erf",
              "unary_erfc", "unary_floor", "unary_frac", "unary_lgamma", "unary_neg",
              "unary_relu", "unary_round", "unary_trunc"}


def _pairs(groups) -> set[tuple[str, str]]:
    return {(str(node.kind), str(node.outputs[0].type).split("(")[0])
            for group in groups if group.kind == "prim::FusionGroup"
            for node in group.g("Subgraph").nodes() if node.outputs}


def _kinds_and_dtypes(case: str) -> set[tuple[str, str]]:
    return _pairs(parse_ir(conformance2._read(case, "expected_fused.ir")).all_nodes())


def _corpus_kinds_and_dtypes(case: str) -> set[tuple[str, str]]:
    """The pairs of the groups a case of the conformance corpus runs whatever its inputs: not
    those in a block (of prim::If, one runs), none where a group reads an elided tensor
    constant (``run_corpus_case`` skips the case)."""
    graph = parse_ir(read_corpus(f"{case}/expected_fused.ir"))
    groups = [n for n in graph.block.nodes() if n.kind == "prim::FusionGroup"]
    if any(v.node.kind == "prim::Constant" and isinstance(constant_value(v.node), ElidedTensor)
           for group in groups for v in group.inputs):
        return set()
    return _pairs(groups)


def test_cover2_holds_every_kind_and_dtype_of_the_corpus():
    everything = set().union(*(_kinds_and_dtypes(case) for case in conformance2.CASES))
    covered = set().union(*(_kinds_and_dtypes(case) for case in COVER2))
    assert everything - covered == set()
    assert len(everything) > 50          # (the corpus was read: ops in float, double, int, bool)
    # (the default suite's cases of both corpora hold every pair too)
    default = set().union(*(_kinds_and_dtypes(case) for case in COVER2
                            if case not in _IN_CORPUS))
    default |= set().union(*(_corpus_kinds_and_dtypes(p.values[0]) for p in KERNEL_CASES
                             if not any(m.name == "exhaustive" for m in p.marks)))
    assert everything - default == set()
    assert _IN_CORPUS < set(COVER2)


_ALL2 = os.environ.get("FUSEJIT_VECTORISE_ALL") == "1"


@pytest.mark.parametrize("case", conformance2.CASES if _ALL2 else [
    pytest.param(case, marks=[pytest.mark.exhaustive] * (case in _IN_CORPUS)) for case in COVER2])
def test_conformance2_groups_vectorise(case):
    graph = parse_ir(conformance2._read(case, "expected_fused.ir"))
    if not any(node.kind == "prim::FusionGroup" for node in graph.all_nodes()):
        pytest.skip("PyTorch formed no fusion group here")
    _Recording.seen = []
    _eval_block(graph.block, conformance2._inputs(case), [], {}, _Recording)
    assert _Recording.seen
    _assert_recorded_groups_vectorise()
