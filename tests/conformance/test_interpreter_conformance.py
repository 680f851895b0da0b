"""Every corpus graph, before and after PyTorch's fuser, runs on both engines (the reference
interpreter and the native loop) and matches the values PyTorch computed (``outputs.npz``), dtype
and shape included; the two engines' results agree bit for bit.

Inputs are rebuilt from ``inputs.npz`` per ``summary.json``: non-tensor parameters become Python
scalars, and a tensor specialised to non-contiguous strides is passed with those strides. The
``tensor_constants`` case prints a 20-element constant as ``<Tensor>``; its note says it is
``torch.arange(20.).reshape(4, 5)`` (float32), which the harness puts back before compiling.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from fusejit import parse_ir
from fusejit.ir.graph import ElidedTensor
from fusejit.ir.symbols import prim
from fusejit.runtime.executor import ENGINES
from fusejit.runtime.executor import compile as compile_graph
from tests.conftest import IR_FILES, KERNEL_CASES, corpus_path, read_corpus
from tests.runtime.conftest import nrt_balanced  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("nrt_balanced")

_SCALARS = {"int": int, "float": float, "bool": bool}
# Values of tensor constants the IR text elides, from each case's summary.json notes.
_ELIDED = {
    "tensor_constants": {(4, 5): np.arange(20.0, dtype=np.float32).reshape(4, 5)},
}


def _with_strides(array: np.ndarray, strides: list[int]) -> np.ndarray:
    """``array``'s values laid out with the given element strides (a permuted contiguous one)."""
    order = sorted(range(array.ndim), key=lambda d: -strides[d])
    laid_out = np.ascontiguousarray(array.transpose(order)).transpose(np.argsort(order))
    return laid_out


def _inputs(case: str) -> list:
    summary = json.loads(read_corpus(f"{case}/summary.json"))
    arrays = np.load(corpus_path(f"{case}/inputs.npz"))
    values = []
    for spec in summary["inputs"]:
        array = arrays[spec["key"]]
        if spec["type"] in _SCALARS:
            values.append(_SCALARS[spec["type"]](array.item()))
        elif spec.get("strides") is not None and array.ndim > 1:
            values.append(_with_strides(array, spec["strides"]))
        else:
            values.append(array)
    return values


def _fill_elided_constants(case: str, graph) -> None:
    graphs = [graph] + [n.g("Subgraph") for n in graph.all_nodes() if n.has_attribute("Subgraph")]
    for g in graphs:
        for node in g.all_nodes():
            if node.kind == prim.Constant and node.has_attribute("value") \
                    and isinstance(node.attr("value"), ElidedTensor):
                shape = tuple(node.output().type.sizes)
                node.t_("value", _ELIDED[case][shape])


def _run_case(rel: str, fuse: bool, engine: str) -> tuple:
    case = rel.split("/")[0]
    graph = parse_ir(read_corpus(rel))
    _fill_elided_constants(case, graph)
    fn = compile_graph(graph, fuse=fuse, engine=engine)
    result = fn(*_inputs(case))
    return result if isinstance(result, tuple) else (result,)


def _check_case(rel: str, fuse: bool, engine: str) -> None:
    case = rel.split("/")[0]
    results = _run_case(rel, fuse, engine)
    expected = np.load(corpus_path(f"{case}/outputs.npz"))
    assert len(results) == len(expected.files)
    for i, got in enumerate(results):
        want = expected[f"out{i}"]
        if isinstance(got, list):              # int[] from size(): stored as int64 arrays
            assert all(type(x) is int for x in got)
            got = np.asarray(got, dtype=np.int64)
        assert isinstance(got, np.ndarray), f"out{i} is {type(got).__name__}"
        assert got.dtype == want.dtype, f"out{i}: dtype {got.dtype}, expected {want.dtype}"
        assert got.shape == want.shape, f"out{i}: shape {got.shape}, expected {want.shape}"
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"out{i}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rel", IR_FILES)
def test_corpus_graph_matches_pytorch(rel, engine):
    _check_case(rel, fuse=False, engine=engine)


# The cases whose kernels the default suite runs (``KERNEL_CASES``: every other one, not
# many_inputs_130), on both engines, which run the same kernels; the rest, exhaustive cases.
# test_compile_forms_pytorchs_groups_and_compiles_each checks every case's fusion.
_KERNELS_RUN = {p.values[0] for p in KERNEL_CASES
                if not any(m.name == "exhaustive" for m in p.marks)}


@pytest.mark.parametrize("rel, engine", [
    pytest.param(rel, engine,
                 marks=[] if rel.split("/")[0] in _KERNELS_RUN else [pytest.mark.exhaustive])
    for rel in IR_FILES if rel.endswith("input.ir") for engine in ENGINES])
def test_corpus_graph_fused_by_compile_matches_pytorch(rel, engine):
    # compile(fuse=True) specialises to the inputs, runs fusejit's own fuser and compiles every
    # group into a kernel.
    _check_case(rel, fuse=True, engine=engine)


@pytest.mark.parametrize("case", [r.split("/")[0] for r in IR_FILES if r.endswith("input.ir")])
def test_compile_forms_pytorchs_groups_and_compiles_each(case):
    graph = parse_ir(read_corpus(f"{case}/input.ir"))
    _fill_elided_constants(case, graph)
    fn = compile_graph(graph, fuse=True)
    inputs = _inputs(case)
    summary = json.loads(read_corpus(f"{case}/summary.json"))
    groups = [n for n in fn.graph_for(*inputs).all_nodes() if n.kind == prim.FusionGroup]
    assert len(groups) == summary["fusion_group_count"]
    plan = fn.plan_for(fn.check_inputs(inputs))
    assert len(plan.kernels) == len(groups)
    kernel_ops = [op for op in plan.code.operations if op in plan.kernels]
    assert len(kernel_ops) == len(groups)


# Ops whose native bodies may round differently from the NumPy ones (libm transcendental
# functions, mm's and sum's order of additions): see fusejit/runtime/native/pointwise.py.
_INEXACT = {"aten::exp", "aten::log", "aten::tanh", "aten::sigmoid", "aten::sin", "aten::cos",
            "aten::mm", "aten::sum"}


@pytest.mark.parametrize("rel", IR_FILES)
def test_engines_agree_on_corpus(rel):
    native = _run_case(rel, fuse=False, engine="native")
    reference = _run_case(rel, fuse=False, engine="reference")
    graph = parse_ir(read_corpus(rel))
    graphs = [graph] + [n.g("Subgraph") for n in graph.all_nodes() if n.has_attribute("Subgraph")]
    exact = not any(n.kind in _INEXACT for g in graphs for n in g.all_nodes())
    assert len(native) == len(reference)
    for i, (got, want) in enumerate(zip(native, reference)):
        assert type(got) is type(want), f"out{i}"
        if not isinstance(want, np.ndarray):
            assert got == want, f"out{i}"
            continue
        assert got.dtype == want.dtype and got.shape == want.shape, f"out{i}"
        if exact or want.dtype.kind != "f":
            np.testing.assert_array_equal(got, want, err_msg=f"out{i}", strict=True)
        else:  # a few ulp per inexact op, compounded through the graph
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"out{i}")


def test_elided_constant_without_values_is_an_error():
    from fusejit import InterpreterError

    graph = parse_ir(read_corpus("tensor_constants/input.ir"))
    fn = compile_graph(graph)
    with pytest.raises(InterpreterError, match=r"%33 .*<Tensor>"):
        fn(*_inputs("tensor_constants"))
