"""Generated kernel source holds nothing that came from the graph: for every FusionGroup in the
corpus's ``expected_fused.ir`` files, renaming every value and rewriting every source comment
(to marker text) leaves ``kernel_source`` byte-identical, and no marker appears in it.

The fuzzer makes the same check with hostile names (``__import__``, ``os_system`` ...) on
random graphs (``tests/fuzz/harness.py``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import fusejit
from fusejit.ir.types import BoolType, FloatType, IntType
from fusejit.runtime.fusion import kernel_source
from fusejit.runtime.python_op import create_python_op
from tests.conftest import CASES, corpus_path, read_corpus

MARK = "zqzq"
_NAME = re.compile(r"%([A-Za-z0-9_.]+)")
_COMMENT = re.compile(r" # [^\n]*")


def _renamed(text: str) -> str:
    names: dict[str, str] = {}

    def name(match: re.Match) -> str:
        return "%" + names.setdefault(match.group(1), f"{MARK}{len(names)}__import__")

    counter = iter(range(1, 1 << 30))
    text = _COMMENT.sub(lambda m: f" # {MARK}_evil('x').py:{next(counter)}:1", text)
    return _NAME.sub(name, text)


def _argument(t, a: np.ndarray):
    if isinstance(t, BoolType):
        return bool(a)
    if isinstance(t, IntType):
        return int(a)
    if isinstance(t, FloatType):
        return float(a)
    return a


def _group_inputs(case: str) -> list[list]:
    """Each FusionGroup's actual inputs in the case's fused graph on its corpus inputs:
    every group is replaced by a PythonOp that records its arguments and interprets it."""
    graph = fusejit.parse_ir(read_corpus(f"{case}/expected_fused.ir"))
    recorded: list[list] = []
    for group in [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]:
        seen: list = []
        recorded.append(seen)
        body = fusejit.compile(group.g("Subgraph"), engine="reference")

        def record(*args, seen=seen, body=body):
            seen[:] = list(args)
            return body(*args)

        node = create_python_op(graph, record, list(group.inputs), len(group.outputs),
                                [v.type for v in group.outputs])
        node.insert_before(group)
        for old, new in zip(group.outputs, node.outputs):
            old.replace_all_uses_with(new)
        group.destroy()
    if any(n.kind == "prim::Constant" and "<Tensor>" in str(n) for n in graph.all_nodes()):
        # An elided tensor constant cannot run: take the (complete) types PyTorch recorded.
        return [[np.ones(v.type.sizes, v.type.dtype) for v in group.inputs]
                for group in _groups(read_corpus(f"{case}/expected_fused.ir"))]
    inputs = np.load(corpus_path(f"{case}/inputs.npz"))
    fusejit.compile(graph, engine="reference")(
        *[_argument(v.type, inputs[f"arg{i}"]) for i, v in enumerate(graph.inputs)])
    return recorded


def _groups(text: str) -> list:
    graph = fusejit.parse_ir(text)
    return [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]


FUSED = [c for c in CASES if "prim::FusionGroup" in read_corpus(f"{c}/expected_fused.ir")]


@pytest.mark.parametrize("case", FUSED)
def test_kernel_source_ignores_names_and_comments(case):
    text = read_corpus(f"{case}/expected_fused.ir")
    hostile = _renamed(text)
    assert MARK in hostile
    originals, renamed = _groups(text), _groups(hostile)
    assert len(originals) == len(renamed) > 0
    for group, other, inputs in zip(originals, renamed, _group_inputs(case)):
        if not inputs:
            continue                   # a group in a branch not taken
        source = kernel_source(group, *inputs)
        assert kernel_source(other, *inputs) == source
        assert MARK not in source and "__import__" not in source and "evil" not in source


def test_corpus_has_fusion_groups():
    assert len(FUSED) >= 20
