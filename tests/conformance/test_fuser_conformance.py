"""``fuse_graph`` on every corpus ``input.ir`` against PyTorch's own ``expected_fused.ir``.

Compared: the number of fusion groups; per group, in printing order, the sorted op kinds and the
numbers of inputs and outputs (``summary.json``); the kinds of the nodes left outside groups in
each block; and the whole printed text after renaming values in order of first appearance
(value names are PyTorch's internal numbering, so only the structure can match).
"""

from __future__ import annotations

import json
import re

import pytest

from fusejit import parse_ir
from fusejit.ir.graph import Block, Graph
from fusejit.ir.symbols import prim
from fusejit.passes import fuse_graph
from tests.conftest import CASES, corpus_path, read_corpus

_VALUE = re.compile(r"%[A-Za-z0-9_.]+")


def canonical_text(text: str) -> str:
    """Rename values ``%v0, %v1, ...`` by first appearance, separately in each graph section."""
    return "".join(_rename_section(s) for s in re.split(r"(?m)^(?=with )", text))


def _rename_section(section: str) -> str:
    names: dict[str, str] = {}
    return _VALUE.sub(lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), section)


def _groups_in_print_order(graph: Graph) -> list:
    return [n for n in graph.all_nodes() if n.kind == prim.FusionGroup]


def _outside_per_block(block: Block, path: str, out: list) -> None:
    out.append((path, [str(n.kind) for n in block.nodes() if n.kind != prim.FusionGroup]))
    for node in block.nodes():
        for i, sub in enumerate(node.blocks):
            _outside_per_block(sub, f"{path} > {node.kind} > block{i}", out)


def _strip_names(location: str) -> str:
    return re.sub(r" \(%[^)]*\)", "", location)


@pytest.fixture(scope="module")
def fused() -> dict[str, Graph]:
    return {}


def _fuse(case: str, cache: dict[str, Graph]) -> Graph:
    if case not in cache:
        graph = parse_ir(read_corpus(f"{case}/input.ir"))
        fuse_graph(graph)
        graph.lint()
        cache[case] = graph
    return cache[case]


@pytest.mark.parametrize("case", CASES)
def test_groups_match_summary(case: str, fused: dict[str, Graph]) -> None:
    graph = _fuse(case, fused)
    summary = json.loads(corpus_path(f"{case}/summary.json").read_text())
    groups = _groups_in_print_order(graph)
    assert len(groups) == summary["fusion_group_count"]
    top = [n for n in graph.nodes() if n.kind == prim.FusionGroup]
    assert len(top) == summary["fusion_group_count_top_level"]
    for group, expected in zip(groups, summary["fusion_groups"]):
        kinds = sorted(str(n.kind) for n in group.g("Subgraph").nodes())
        assert kinds == expected["op_kinds"]
        assert len(group.inputs) == expected["num_inputs"]
        assert len(group.outputs) == expected["num_outputs"]


@pytest.mark.parametrize("case", CASES)
def test_nodes_outside_groups(case: str, fused: dict[str, Graph]) -> None:
    graph = _fuse(case, fused)
    summary = json.loads(corpus_path(f"{case}/summary.json").read_text())
    got: list = []
    _outside_per_block(graph.block, "graph", got)
    expected = [(_strip_names(k), v) for k, v in summary["nodes_outside_groups"].items()]
    assert got == expected


@pytest.mark.parametrize("case", CASES)
def test_canonical_text(case: str, fused: dict[str, Graph]) -> None:
    graph = _fuse(case, fused)
    expected = read_corpus(f"{case}/expected_fused.ir")
    assert canonical_text(str(graph)) == canonical_text(expected)


def test_canonical_text_renames_by_first_appearance() -> None:
    text = "graph(%b : int):\n  %a : int = aten::neg(%b)\n  return (%a)\n"
    assert canonical_text(text) == (
        "graph(%v0 : int):\n  %v1 : int = aten::neg(%v0)\n  return (%v1)\n")
    other = "graph(%x : int):\n  %x.1 : int = aten::neg(%x)\n  return (%x.1)\n"
    assert canonical_text(text) == canonical_text(other)
    swapped = "graph(%x : int):\n  %y : int = aten::neg(%x)\n  return (%x)\n"
    assert canonical_text(text) != canonical_text(swapped)
