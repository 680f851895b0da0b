"""Bugs the fuzzer found that are not fixed yet (each pinned by an ``xfail(strict=True)`` test
in ``test_regressions.py``), and how to recognise a fuzz failure as one of them.

The differential test counts a recognised failure as ``known`` instead of failing, so the CI
profile stays green while the owner fixes it; ``FUSEJIT_FUZZ_STRICT=1`` makes them failures.
Delete an entry when its xfail test starts passing.
"""

from __future__ import annotations

import os

import numpy as np

import fusejit
from fusejit.runtime.ops import make_operation
from fusejit.runtime.python_op import create_python_op

from .graphs import FuzzCase

STRICT = os.environ.get("FUSEJIT_FUZZ_STRICT") == "1"


def _sum_saw_infinity(case: FuzzCase) -> bool:
    """Did any aten::sum (in any block) get an infinite element, running on the reference?"""
    graph = fusejit.parse_ir(case.text)
    seen = [False]
    for node in [n for n in graph.all_nodes() if n.kind == "aten::sum"]:
        op = make_operation(node)

        def body(*args, op=op):
            x = args[0]
            if isinstance(x, np.ndarray) and x.dtype.kind == "f" and np.isinf(x).any():
                seen[0] = True
            return op(*args)[0]

        stand_in = create_python_op(graph, body, list(node.inputs), 1, [node.output().type])
        stand_in.insert_before(node)
        node.output().replace_all_uses_with(stand_in.output())
        node.destroy()
    try:
        fusejit.compile(graph, engine="reference")(*case.args)
    except fusejit.FusejitError:
        pass
    return seen[0]


def known_bug(case: FuzzCase, problem: str) -> str | None:
    """The name of the known bug that explains ``problem``, or None."""
    if STRICT:
        return None
    if problem.startswith("fused run raised") and "should not have grouped them" in problem:
        # the kernel declines a group whose outputs differ in shape; the executor must then
        # interpret the group, as PyTorch's runFusion fallback does
        # (test_regressions.py::test_group_with_outputs_of_two_shapes)
        return "executor_no_fallback_on_declined_kernel"
    if problem.startswith("compile(fuse=True)") and _sum_saw_infinity(case):
        return "native_sum_of_infinities"
    return None

