"""Every fused group of the conformance corpus compiles to vector instructions.

One libm call left in a kernel's loop makes LLVM run the whole loop an element at a time; the
vectorisable math (``vecmath``/``fastmath``) and the separate scalar passes (``loops``) exist
to prevent that. Numba disables inspection of code loaded from its cache, so each group's
serial kernel is compiled here once more, uncached, and its optimised LLVM IR is searched for
vector arithmetic on floats (or on integers, for integer-only groups)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.fusion.loops import STRIP
from tests.conftest import CASES

from .oracle import run_subgraph
from .test_corpus import run_corpus_case

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
    first = next(i for i, line in enumerate(serial)
                 if line in ("        for c in range(n):", f"        for s in range(0, n, {STRIP}):"))
    body = [line[4:] for line in serial[first:]]
    body = [line[4:] for line in serial if line.startswith("        bt")] + body
    layout = kernel.layout
    n = min(8, plan.numel)
    args: dict = {"n": n}
    for k, op in enumerate(layout.operands):
        flat = flats[op.input]
        args[f"r{k}"] = np.ascontiguousarray(flat[:n] if flat.size >= n else
                                             np.resize(flat, n))
        args[f"a{k}"] = flat[0]
    k = len(layout.operands)
    for j, out in enumerate(layout.outputs):
        for _piece in out.pieces:
            args[f"w{k}"] = np.empty(n, outs[j].dtype)
            k += 1
    for i, value in enumerate(scalars):
        args[f"s{i}"] = value
    args["status"] = np.zeros(1, np.int64)
    names = [name for name in args if name == "n" or re.search(rf"\b{name}\b", "\n".join(body))]
    source = (f"@njit(cache=False, error_model='numpy')\ndef probe({', '.join(names)}):\n"
              + "\n".join(body) + "\n")
    namespace: dict = {}
    exec(compile(text + "\n" + source, "<fused kernel loops, uncached>", "exec"), namespace)
    probe = namespace["probe"]
    probe(*[args[name] for name in names])
    return probe.inspect_llvm(probe.signatures[0])


@pytest.mark.parametrize("case", CASES)
def test_corpus_groups_vectorise(case):
    _Recording.seen = []
    run_corpus_case(case, _Recording)
    for kernel, inputs, outs in _Recording.seen:
        if max(np.size(x) for x in inputs) < 2 and all(o.size < 2 for o in outs):
            continue        # (nothing to vectorise over)
        ir = _loop_probe_ir(kernel, inputs, outs)
        lanes = [int(m.group(2)) for m in _VECTOR_OP.finditer(ir)]
        assert lanes and max(lanes) >= 2, kernel.source(*inputs)
