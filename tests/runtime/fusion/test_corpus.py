"""The corpus's PyTorch-fused graphs: every FusionGroup compiled and run inside its graph.

A small evaluator walks ``expected_fused.ir`` (ops through the operator library, prim::If and
prim::Loop by hand); each FusionGroup runs as a fused kernel and is compared with the same
subgraph evaluated node by node; the graph's final results are compared with ``outputs.npz``,
which PyTorch computed.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.constants import constant_value
from fusejit.ir.graph import ElidedTensor
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.ops import make_operation
from tests.conftest import KERNEL_CASES, corpus_path, read_corpus

from .oracle import run_subgraph


def _eval_block(block, args, groups_run, env, kernel=FusedKernel):
    env.update(zip(block.inputs, args))
    for node in block.nodes():
        ins = [env[v] for v in node.inputs]
        if node.kind == "prim::Constant":
            outs = [constant_value(node)]
        elif node.kind == "prim::FusionGroup":
            if any(isinstance(v, ElidedTensor) for v in ins):
                pytest.skip("a tensor constant's values are elided in the IR text")
            sub = node.g("Subgraph")
            outs = list(kernel(node)(*ins))
            with np.errstate(all="ignore"):
                want = run_subgraph(sub, *ins)
            for got, ref in zip(outs, want):
                ref = np.asarray(ref)
                assert got.dtype == ref.dtype and got.shape == ref.shape
                np.testing.assert_allclose(got, ref, rtol=4e-6, atol=1e-6, equal_nan=True)
            groups_run.append(node)
        elif node.kind == "prim::If":
            branch = node.blocks[0] if ins[0] else node.blocks[1]
            outs = _eval_block(branch, [], groups_run, env, kernel)
        elif node.kind == "prim::Loop":
            trips, cond, carried = ins[0], ins[1], ins[2:]
            i = 0
            while cond and i < trips:
                res = _eval_block(node.blocks[0], [i, *carried], groups_run, env, kernel)
                cond, carried = res[0], res[1:]
                i += 1
            outs = carried
        else:
            outs = list(make_operation(node)(*ins))
        env.update(zip(node.outputs, outs))
    return [env[v] for v in block.outputs]


def run_corpus_case(case: str, kernel=FusedKernel) -> list:
    """Evaluate the case's expected_fused.ir on its inputs, each group through ``kernel``;
    the graph's results (asserting each group against its node-by-node evaluation)."""
    graph = fusejit.parse_ir(read_corpus(f"{case}/expected_fused.ir"))
    groups = [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]
    if not groups:
        pytest.skip("PyTorch formed no fusion group here")
    with np.load(corpus_path(f"{case}/inputs.npz")) as data:
        inputs = [data[f"arg{i}"] for i in range(len(graph.inputs))]
    args = [a if a.ndim or not str(graph.inputs[i].type).startswith(("int", "float", "bool"))
            else a.item() for i, a in enumerate(inputs)]
    groups_run: list = []
    results = _eval_block(graph.block, args, groups_run, {}, kernel)
    assert groups_run, "no fusion group ran"
    return results


# diamond_multi_use (one product read by a sine, a cosine and two more ops) runs what the default
# cases run: sin and cos in fixpoint_two_outputs, values read many times in lstm_cell's group
_REPEATED = {"diamond_multi_use"}
_GROUP_CASES = [pytest.param(*p.values, id=p.id, marks=[*p.marks, pytest.mark.exhaustive]
                             if p.values[0] in _REPEATED else p.marks) for p in KERNEL_CASES]


@pytest.mark.parametrize("case", _GROUP_CASES)
def test_corpus_groups(case):
    results = run_corpus_case(case)
    with np.load(corpus_path(f"{case}/outputs.npz")) as data:
        for i, got in enumerate(results):
            want = data[f"out{i}"]
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
