"""Memory safety of the native engine: sizes whose products wrap around int64, huge and negative
indices, in-place ops on views, against the reference engine (``native_safety_cases``).

The cases run in one subprocess: a bug here can segfault, which fails the tests instead of
killing pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.runtime.native_safety_cases import CASES

_ROOT = Path(__file__).resolve().parents[2]


# The subprocess runs the cases, then the compiled graph of
# test_a_compiled_graph_rejects_wrapping_sizes_in_its_own_process (``COMPILED``, one more JSON
# line): one start of Python, fusejit and the native loop for both (each start cost ~1.4 s).
_CHILD = ("import sys\n"
          "from tests.runtime.native_safety_cases import main\n"
          "main(sys.argv[1:])\n")


@pytest.fixture(scope="module")
def outcomes() -> dict:
    proc = subprocess.run([sys.executable, "-c", _CHILD + COMPILED, *CASES],
                          cwd=_ROOT, env=dict(os.environ), capture_output=True, text=True,
                          timeout=600)
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            results[result["case"]] = result
    results["_exit"] = (proc.returncode, proc.stderr[-2000:])
    return results


@pytest.mark.parametrize("case", list(CASES))
def test_native_engine_agrees_with_the_reference(outcomes, case):
    result = outcomes.get(case)
    code, stderr = outcomes["_exit"]
    assert result is not None, f"the case process died (exit {code}) before {case}:\n{stderr}"
    assert result["same"], json.dumps(result, indent=1)[:3000]


def test_the_cases_run_to_the_end(outcomes):
    code, stderr = outcomes["_exit"]
    assert code == 0, stderr


def test_the_reference_refuses_the_wrapping_sizes(outcomes):
    """The oracle itself: the wrapped sizes are errors there (so agreeing means raising), and
    a valid view still gives the right row natively."""
    for case in ("view_wraps", "reshape_wraps", "view_add_inplace", "expand_wraps",
                 "add_broadcast_wraps", "mm_result_wraps", "chunk_huge_chunks"):
        assert "error" in outcomes[case]["reference"], case
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert outcomes["view_ok"]["native"]["outputs"][0]["values"] == x.reshape(6, 2)[5].tolist()


EIGHT_NODES = """graph(%x : Tensor, %a : int, %b : int, %i : int):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::view(%x, %shape)
  %z : Tensor = aten::select(%y, %zero, %i)
  %w : Tensor = aten::add(%z, %z, %one)
  %v : Tensor = aten::mul(%w, %z)
  %u : Tensor = aten::neg(%v)
  return (%u)
"""


# (run by ``outcomes``' subprocess, after the cases)
COMPILED = (
    "import json\n"
    "import numpy as np, fusejit\n"
    "from tests.runtime.test_native_safety import EIGHT_NODES\n"
    "words = []\n"
    "fn = fusejit.compile(fusejit.parse_ir(EIGHT_NODES), engine='native')\n"
    "x = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
    "words += ['engine', str(fn.engine)]\n"
    "words += ['ok', str(fn(x, 6, 2, 5).tolist() == [-200.0, -242.0])]\n"
    "for i in (1, 2, 2**40):\n"
    "    try:\n"
    "        fn(x, 2**62 + 3, 4, i)\n"
    "    except fusejit.FusejitError as e:\n"
    "        words += ['error', str('is invalid for input of size 12' in str(e))]\n"
    "words += ['untouched', str((x == np.arange(12).reshape(3, 4)).all())]\n"
    "print(json.dumps({'case': 'compiled_graph', 'words': words}), flush=True)\n")


def test_a_compiled_graph_rejects_wrapping_sizes_in_its_own_process(outcomes):
    """This all-native graph of 8 nodes on the native loop (which plain ``fusejit.compile``
    takes from 16 nodes without a loop: ``executor.NATIVE_MIN_OPS``), compiled in the cases'
    process: the wrapped view must raise the reference's error, not read rows past the 3 x 4
    input."""
    result = outcomes.get("compiled_graph")
    code, stderr = outcomes["_exit"]
    assert result is not None, f"the case process died (exit {code}) before the graph:\n{stderr}"
    assert result["words"] == ["engine", "native", "ok", "True", "error", "True", "error",
                               "True", "error", "True", "untouched", "True"], result
