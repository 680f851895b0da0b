"""``fuse_graph`` and ``compile`` on the second PyTorch 2.13 corpus, ``tests/data/conformance2``
(made by ``tools/make_conformance2.py``: every simple-map op and overload, chunk, cat,
broadcasting, ``_grad_sum_to_size``, common subexpressions).

Per case: the printed graph after ``fuse_graph`` equals PyTorch's ``expected_fused.ir`` up to
value names, and the groups and the nodes left outside match ``summary.json`` (the checks of
``test_fuser_conformance``); the fused graph, its groups interpreted, computes PyTorch's
``outputs.npz``. Compiling every group into a kernel costs seconds a case, so the kernels are
checked on the cases of ``KERNEL_CASES``, which between them hold every group shape the corpus
has (chunks, chunk of a chunk piece, concatenations, broadcasts, bool and int outputs).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.ir.graph import Graph
from fusejit.ir.symbols import prim
from fusejit.passes import fuse_graph
from fusejit.runtime.executor import compile as compile_graph

from .test_fuser_conformance import (
    _groups_in_print_order,
    _outside_per_block,
    _strip_names,
    canonical_text,
)

ROOT = Path(__file__).resolve().parent.parent / "data" / "conformance2"
CASES = sorted(p.name for p in ROOT.iterdir() if p.is_dir())

# Cases fusejit cannot read or run yet, and why; strict, so each is noticed when it passes.
NOT_YET: dict[str, str] = {}
# Cases that fuse as PyTorch's do but whose graph cannot run yet (none now).
NOT_YET_RUNNING: dict[str, str] = {**NOT_YET}

# (chunk_uneven: the kernel declines pieces of unequal size and the group is interpreted.)
KERNEL_CASES = ["binary_remainder_int", "broadcast_three_ranks", "cat_dim1_three",
                "chunk_motion_broadcast", "chunk_of_chunk", "chunk_of_chunk_used", "chunk_uneven",
                "compare_bool_returned_and_used", "lstm_like", "pow_scalar_tensor",
                "size_of_broadcast", "transposed_input", "type_as_int_to_float"]


def _params(names: list[str], table: dict[str, str]) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=table[n]))
            if n in table else n for n in names]


def _read(case: str, name: str) -> str:
    return (ROOT / case / name).read_text(encoding="utf-8")


def _summary(case: str) -> dict:
    return json.loads(_read(case, "summary.json"))


@pytest.fixture(scope="module")
def fused() -> dict[str, Graph]:
    return {}


def _fuse(case: str, cache: dict[str, Graph]) -> Graph:
    if case not in cache:
        graph = parse_ir(_read(case, "input.ir"))
        fuse_graph(graph)
        graph.lint()
        cache[case] = graph
    return cache[case]


@pytest.mark.parametrize("case", _params(CASES, NOT_YET))
def test_fused_text_matches_pytorch(case: str, fused: dict[str, Graph]) -> None:
    graph = _fuse(case, fused)
    assert canonical_text(str(graph)) == canonical_text(_read(case, "expected_fused.ir"))


@pytest.mark.parametrize("case", _params(CASES, NOT_YET))
def test_groups_and_outside_nodes_match_summary(case: str, fused: dict[str, Graph]) -> None:
    graph = _fuse(case, fused)
    summary = _summary(case)
    groups = _groups_in_print_order(graph)
    assert len(groups) == summary["fusion_group_count"]
    top = [n for n in graph.nodes() if n.kind == prim.FusionGroup]
    assert len(top) == summary["fusion_group_count_top_level"]
    for group, expected in zip(groups, summary["fusion_groups"]):
        assert sorted(str(n.kind) for n in group.g("Subgraph").nodes()) == expected["op_kinds"]
        assert len(group.inputs) == expected["num_inputs"]
        assert len(group.outputs) == expected["num_outputs"]
    got: list = []
    _outside_per_block(graph.block, "graph", got)
    assert got == [(_strip_names(k), v) for k, v in summary["nodes_outside_groups"].items()]


def _inputs(case: str) -> list:
    arrays = np.load(ROOT / case / "inputs.npz")
    values = []
    for spec in _summary(case)["inputs"]:
        array = arrays[spec["key"]]
        kind = spec["type"]
        if kind in ("int", "float", "bool"):
            values.append({"int": int, "float": float, "bool": bool}[kind](array.item()))
        elif array.ndim > 1 and spec["strides"][-1] != 1:
            # A transposed input: the same values, laid out as PyTorch's strides say.
            values.append(np.ascontiguousarray(array.T).T)
        else:
            values.append(array)
    return values


def _check_outputs(case: str, results) -> None:
    results = results if isinstance(results, tuple) else (results,)
    expected = np.load(ROOT / case / "outputs.npz")
    assert len(results) == len(expected.files)
    for i, got in enumerate(results):
        want = expected[f"out{i}"]
        if isinstance(got, list):              # int[] from size()
            got = np.asarray(got, dtype=np.int64)
        assert got.dtype == want.dtype, f"out{i}: dtype {got.dtype}, expected {want.dtype}"
        assert got.shape == want.shape, f"out{i}: shape {got.shape}, expected {want.shape}"
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"out{i}")


@pytest.mark.parametrize("case", _params(CASES, NOT_YET_RUNNING))
def test_fused_graph_computes_pytorchs_outputs(case: str, fused: dict[str, Graph]) -> None:
    # fuse=False runs the graph as given: each group's subgraph interpreted.
    fn = compile_graph(_fuse(case, fused), fuse=False, engine="reference")
    _check_outputs(case, fn(*_inputs(case)))


@pytest.mark.parametrize("case", KERNEL_CASES)
def test_compiled_kernels_compute_pytorchs_outputs(case: str) -> None:
    fn = compile_graph(parse_ir(_read(case, "input.ir")), fuse=True, engine="reference")
    inputs = _inputs(case)
    plan = fn.plan_for(fn.check_inputs(inputs))
    assert plan.kernels and all(op.kernel is not None for op in plan.kernels)
    _check_outputs(case, fn(*inputs))
