"""The native engine against the reference engine on adversarial graphs (``adversarial.py``):
sizes whose products wrap around int64, huge and negative sizes and indices, in-place ops
through views of the inputs. Both engines must give the same outputs, leave the inputs the
same, or raise the same error (type and message) at the same node; any other exception is a
crash. ``--hypothesis-profile=long`` runs 10,000 graphs, fuzz-ci 150.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, note
from hypothesis import strategies as st

import fusejit
from fusejit.errors import FusejitError

from .adversarial import build_adversarial
from .conftest import fuzz_settings, progress
from .graphs import FuzzCase
from .vocabulary import MAX_NUMEL

TOTALS = {"graphs": 0, "errors": 0, "mismatches": 0}


@st.composite
def adversarial_cases(draw) -> FuzzCase:
    rnd = draw(st.randoms(use_true_random=False))
    return build_adversarial(rnd, draw(st.integers(0, 2**32 - 1)), draw(st.integers(1, 8)))


def _describe(value) -> object:
    if isinstance(value, np.ndarray):
        # (a large view is compared by its shape: reading it could take hours; flat, since
        # tolist() of an empty (2**59, 0) array makes 2**59 lists)
        values = value.ravel().tolist() if value.size <= MAX_NUMEL else None
        return ("array", str(value.dtype), value.shape, values)
    return (type(value).__name__, value)


def _outcome(engine: str, case: FuzzCase) -> tuple:
    args = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in case.args]
    fn = fusejit.compile(fusejit.parse_ir(case.text), engine=engine)
    try:
        result = fn(*args)
    except FusejitError as error:
        outcome: tuple = ("error", type(error).__name__, str(error))
    except Exception as error:  # noqa: BLE001 - a crash is what we are looking for
        outcome = ("crash", type(error).__name__, str(error))
    else:
        results = result if isinstance(result, tuple) else (result,)
        outcome = ("ok", [_describe(r) for r in results])
    return outcome, [_describe(a) for a in args]


def _same(a, b) -> bool:
    # NaN is not produced from the integer-valued inputs, but compare it as equal anyway
    return a == b or repr(a) == repr(b)


@fuzz_settings()
@given(case=adversarial_cases())
def test_native_engine_matches_the_reference_on_adversarial_graphs(case: FuzzCase) -> None:
    note(repr(case))
    want, want_inputs = _outcome("reference", case)
    got, got_inputs = _outcome("native", case)
    TOTALS["graphs"] += 1
    TOTALS["errors"] += want[0] == "error"
    problems = []
    if want[0] == "crash" or got[0] == "crash":
        problems.append(f"crash: reference {want}, native {got}")
    elif not _same(want, got):
        problems.append(f"native {got}\nreference {want}")
    if not _same(want_inputs, got_inputs):
        problems.append(f"inputs after the run: native {got_inputs}, reference {want_inputs}")
    TOTALS["mismatches"] += bool(problems)
    progress("adversarial", TOTALS)
    assert not problems, "\n".join(problems)


def test_the_adversarial_generator_is_deterministic_and_valid() -> None:
    for seed in range(30):
        a = build_adversarial(random.Random(seed), seed, 6)
        b = build_adversarial(random.Random(seed), seed, 6)
        assert a.text == b.text
        graph = fusejit.parse_ir(a.text)
        fusejit.lint(graph)
        assert len(graph.inputs) == len(a.args)
