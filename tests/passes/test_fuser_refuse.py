"""The fuser given a graph it already fused. A group ending in a ``prim::FusedConcat`` and read
by another group merges into it (the seed checks FusedConcat producers only for concat fusion);
the size expressions then met a value with no shape expression and raised a bare ``KeyError``.
"""

from __future__ import annotations

import numpy as np

import fusejit
from fusejit.ir import lint
from tests.conftest import corpus_path, read_corpus


def test_fusing_a_fused_graph_again_keeps_its_values():
    fused = fusejit.parse_ir(read_corpus("cat_output_consumed/expected_fused.ir"))
    again = fused.copy()
    fusejit.fuse_graph(again)
    lint(again)
    assert str(fusejit.parse_ir(str(again))) == str(again)
    inputs = np.load(corpus_path("cat_output_consumed/inputs.npz"))
    args = [inputs[f"arg{i}"] for i in range(len(inputs.files))]
    expected = np.load(corpus_path("cat_output_consumed/outputs.npz"))["out0"]
    result = fusejit.compile(again, engine="reference")(*args)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)
