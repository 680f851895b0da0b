"""Backward fusion groups ending in ``_grad_sum_to_size``: the kernel runs without the sums,
which run after it (or, for a sum inside the group, are checked to be no-ops at each call);
results equal interpreting the group as written."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.autodiff.fused_sums import SummedGroup, strip_grad_sum_to_size
from fusejit.ir.symbols import prim
from fusejit.passes import fuse_graph
from fusejit.runtime.code import Code
from fusejit.runtime.reference import InterpreterState

T = "Double(*, *, device=cpu)"


def group_of(text: str):
    graph = parse_ir(text)
    fuse_graph(graph, fuse_grad_sum_to_size=True)
    (group,) = [n for n in graph.nodes() if n.kind == prim.FusionGroup]
    return graph, group


def interpreter_of(group):
    code = Code(group.g("Subgraph"))

    def run(*args):
        stack = list(args)
        InterpreterState(code).run(stack)
        return tuple(stack)
    return run


OUTPUT_SUM = f"""graph(%g : {T}, %y : {T}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {T} = aten::_grad_sum_to_size(%a, %s)
  return (%r)
"""
INNER_SUM = f"""graph(%g : {T}, %y : {T}, %w : {T}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {T} = aten::_grad_sum_to_size(%a, %s)
  %b : {T} = aten::mul(%r, %w)
  return (%b)
"""


def test_a_sum_that_is_only_an_output_moves_after_the_kernel() -> None:
    _, group = group_of(OUTPUT_SUM)
    kernel_group, keep, sizes, full = strip_grad_sum_to_size(group)
    kinds = [str(n.kind) for n in kernel_group.g("Subgraph").nodes()]
    assert "aten::_grad_sum_to_size" not in kinds
    assert all(not str(v.type).endswith("[]") for v in kernel_group.inputs)
    assert full == [] and sizes[0] is not None
    summed = SummedGroup(interpreter_of(kernel_group), group, keep, sizes, full)
    g, y = np.random.default_rng(0).standard_normal((2, 3, 4))
    for size in ([3, 4], [1, 4], [3, 1]):
        values = {"g": g, "y": y, "s": size}
        ordered = [values[v.debug_name] for v in group.inputs]
        got, want = summed(*ordered)[0], interpreter_of(group)(*ordered)[0]
        assert got.shape == tuple(size)
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("size, interpreted", [([3, 4], False), ([1, 4], True)])
def test_a_sum_inside_the_group_must_be_a_no_op(size, interpreted) -> None:
    _, group = group_of(INNER_SUM)
    kernel_group, keep, sizes, full = strip_grad_sum_to_size(group)
    assert len(full) == 1 and sizes == [None]
    calls = []
    kernel = interpreter_of(kernel_group)
    summed = SummedGroup(lambda *a: calls.append(1) or kernel(*a), group, keep, sizes, full)
    rng = np.random.default_rng(1)
    values = {"g": rng.standard_normal((3, 4)), "y": rng.standard_normal((3, 4)),
              "w": rng.standard_normal(tuple(size)), "s": size}
    ordered = [values[v.debug_name] for v in group.inputs]
    np.testing.assert_allclose(summed(*ordered)[0], interpreter_of(group)(*ordered)[0])
    assert calls == ([] if interpreted else [1])


def test_groups_without_sums_are_left_alone() -> None:
    _, group = group_of(f"""graph(%x : {T}):
  %a : {T} = aten::exp(%x)
  %b : {T} = aten::neg(%a)
  return (%b)
""")
    assert strip_grad_sum_to_size(group) is None
