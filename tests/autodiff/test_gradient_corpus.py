"""fusejit's gradients of PyTorch-printed graphs against PyTorch's own autograd results
(tests/data/gradients, made by tools/make_gradient_corpus.py with PyTorch 2.13)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import fusejit

CORPUS = Path(__file__).resolve().parent.parent / "data" / "gradients"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def load(case: str, name: str) -> dict[str, np.ndarray]:
    with np.load(CORPUS / case / name) as data:
        return {k: data[k] for k in data.files}


def by_index(arrays: dict[str, np.ndarray], prefix: str) -> list[np.ndarray]:
    return [arrays[f"{prefix}{i}"] for i in range(len(arrays))]


def test_corpus_covers_what_the_issue_asks() -> None:
    assert {"lstm_cell", "gru_cell", "softmax_cross_entropy", "layer_norm",
            "rnn_loop"} <= set(CASES)
    # and the rules added later: amax/amin with ties, prod with zeros, cumsum, flip, slices,
    # var/std with corrections
    assert {"extremes", "products", "running_flips", "slicing", "moments"} <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_gradients_match_pytorch(case: str) -> None:
    graph = fusejit.parse_ir((CORPUS / case / "graph.ir").read_text(encoding="utf-8"))
    wrt = json.loads((CORPUS / case / "summary.json").read_text(encoding="utf-8"))["wrt"]
    inputs = by_index(load(case, "inputs.npz"), "arg")
    expected_outputs = by_index(load(case, "outputs.npz"), "out")
    grad_outputs = by_index(load(case, "grad_outputs.npz"), "out")
    expected = load(case, "grads.npz")

    outputs, vjp_fn = fusejit.vjp(graph, *inputs, fuse=False, engine="reference")
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for got, want in zip(outputs, expected_outputs, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    grads = vjp_fn(*grad_outputs)
    for i in wrt:
        np.testing.assert_allclose(grads[i], expected[f"arg{i}"], rtol=1e-10, atol=1e-12,
                                   err_msg=f"{case}: gradient of input {i}")
