"""fusejit's operators against PyTorch's own results (tests/data/op_reference.npz).

The file was written by tools/make_op_reference.py with PyTorch 2.13 (CPU): for each case the
inputs, PyTorch's result (values and dtype) or the fact that PyTorch refused the call. This test
needs no torch: it rebuilds each call as a one-node graph and runs fusejit's operation on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.runtime.test_ops_support import call

DATA = Path(__file__).resolve().parent.parent / "data" / "op_reference.npz"
_FILE = np.load(DATA)
META = json.loads(str(_FILE["meta"]))


def _args(i: int, entry: dict) -> list:
    args = []
    for j, arg in enumerate(entry["args"]):
        if arg["kind"] == "tensor":
            args.append(_FILE[f"c{i}_a{j}"])
        elif arg["kind"] == "tensors":
            args.append([_FILE[f"c{i}_a{j}_{k}"] for k in range(entry["list_len"][str(j)])])
        else:
            args.append(arg["value"])
    return args


def _case_id(i: int) -> str:
    entry = META[i]
    kinds = ",".join(
        str(_FILE[f"c{i}_a{j}"].dtype) if a["kind"] == "tensor" else f"{a['type']}"
        for j, a in enumerate(entry["args"]))
    return f"{i}-{entry['kind'][6:]}({kinds})"


@pytest.mark.parametrize("i", range(len(META)), ids=_case_id)
def test_matches_pytorch(i: int) -> None:
    entry = META[i]
    args = _args(i, entry)
    if entry["error"]:
        with pytest.raises(Exception):  # noqa: B017 - PyTorch's error types are not ours
            call(entry["kind"], *args)
        return
    result = call(entry["kind"], *args)
    if entry["result"] != "tensor":
        assert type(result).__name__ == entry["result"]
        assert result == pytest.approx(entry["value"], rel=1e-6)
        return
    expected = _FILE[f"c{i}_out"]
    assert type(result) is np.ndarray
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    if expected.dtype.kind == "f":
        # float32 transcendental functions differ from PyTorch's by a few ulp
        rtol = 1e-5 if expected.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(result, expected)


def test_reference_file_covers_pytorch_errors() -> None:
    # the file must exercise refusals too (int ** negative scalar, bool subtraction, ...)
    assert sum(m["error"] for m in META) >= 5
    assert len(META) >= 200
