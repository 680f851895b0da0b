"""A node with more or fewer outputs than its operator returns is refused when bound, on both
engines, instead of leaving the extra outputs unset (found by the hostile-input corpus)."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit

CASES = [
    ("%a : Tensor, %b : Tensor = aten::exp(%x)", "returns 1 value"),
    ("%a : Tensor, %b : Tensor, %c : Tensor = aten::mul(%x, %x)", "returns 1 value"),
]


@pytest.mark.parametrize("engine", ["reference", "native"])
@pytest.mark.parametrize("line,message", CASES)
def test_extra_outputs_are_refused(line, message, engine):
    text = f"graph(%x : Tensor):\n  {line}\n  return (%a)\n"
    with pytest.raises(fusejit.FusejitError, match=message):
        fusejit.compile(fusejit.parse_ir(text), engine=engine)(np.ones(2, np.float32))


def test_list_results_still_unpack():
    text = """graph(%x : Tensor):
  %n : int = prim::Constant[value=2]()
  %d : int = prim::Constant[value=0]()
  %l : Tensor[] = aten::chunk(%x, %n, %d)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)
  return (%a, %b)
"""
    x = np.arange(4, dtype=np.float32)
    a, b = fusejit.compile(fusejit.parse_ir(text), engine="reference")(x)
    np.testing.assert_array_equal(a, x[:2])
    np.testing.assert_array_equal(b, x[2:])
