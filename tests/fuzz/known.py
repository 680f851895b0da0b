"""Bugs the fuzzer found that are not fixed yet (each pinned by an ``xfail(strict=True)`` test
in ``test_regressions.py``), and how to recognise a fuzz failure as one of them.

The differential test counts a recognised failure as ``known`` instead of failing, so the CI
profile stays green while the owner fixes it; ``FUSEJIT_FUZZ_STRICT=1`` makes them failures.
Delete an entry when its xfail test starts passing.
"""

from __future__ import annotations

import os
import re

import numpy as np

import fusejit
from fusejit.runtime.ops import make_operation
from fusejit.runtime.python_op import create_python_op

from .graphs import FuzzCase

STRICT = os.environ.get("FUSEJIT_FUZZ_STRICT") == "1"
_SHAPES = re.compile(r"^kernel %\S+: shape \(([^)]*)\), expected \(([^)]*)\)")


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
    if problem.startswith("kernel") and "aten::type_as" in problem:
        return "kernel_type_as_other_broadcasts"
    match = _SHAPES.match(problem)
    if match:
        got = [s.strip() for s in match.group(1).split(",") if s.strip()]
        want = [s.strip() for s in match.group(2).split(",") if s.strip()]
        # the output got the iteration rank: the same sizes with extra 1s somewhere
        if len(got) > len(want) and [s for s in got if s != "1"] == [s for s in want if s != "1"]:
            return "kernel_output_rank"
        numel = lambda shape: int(np.prod([int(s) for s in shape]))  # noqa: E731
        if "prim::FusedConcat" in problem and len(got) > len(want) and numel(got) == numel(want):
            # the concat dim counted at the iteration rank: (1, 3) pieces make (2, 3), not (6,)
            return "kernel_concat_rank"
    if problem.startswith("compile(fuse=True)") and _sum_saw_infinity(case):
        return "native_sum_of_infinities"
    return None

