"""Run in a child process by the cache tests: every FusionGroup of some corpus cases' fused
graphs through ``FusedKernel`` (via the fuzz harness's stand-in PythonOps), checked against the
interpreted group and the corpus's PyTorch outputs; prints nothing, returns the worst error."""

from __future__ import annotations

import numpy as np

import fusejit
from fusejit.ir.types import BoolType, FloatType, IntType
from tests.conftest import corpus_path, read_corpus
from tests.fuzz.graphs import FuzzCase
from tests.fuzz.harness import _replace_groups


def _argument(t, a: np.ndarray):
    if isinstance(t, BoolType):
        return bool(a)
    if isinstance(t, IntType):
        return int(a)
    if isinstance(t, FloatType):
        return float(a)
    return a


def run_groups(cases: list[str]) -> float:
    worst = 0.0
    for case in cases:
        graph = fusejit.parse_ir(read_corpus(f"{case}/expected_fused.ir"))
        problems: list[str] = []
        stub = FuzzCase(str(graph), [], {}, False)
        checks = _replace_groups(graph, stub, problems)
        assert checks, f"{case}: no fusion group"
        inputs = np.load(corpus_path(f"{case}/inputs.npz"))
        outputs = np.load(corpus_path(f"{case}/outputs.npz"))
        args = [_argument(v.type, inputs[f"arg{i}"]) for i, v in enumerate(graph.inputs)]
        got = fusejit.compile(graph, engine="reference")(*args)
        got = got if isinstance(got, tuple) else (got,)
        assert not problems, "\n".join(problems)
        assert all(c.calls for c in checks), f"{case}: a kernel never ran"
        for i, value in enumerate(got):
            expected = outputs[f"out{i}"]
            if expected.dtype.kind == "f":
                worst = max(worst, float(np.max(np.abs(value - expected), initial=0.0)))
            else:
                assert np.array_equal(value, expected)
    return worst
