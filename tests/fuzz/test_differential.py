"""Differential fuzzing: random graphs (``graphs.py``) run on the reference interpreter, through
``fusejit.compile(g, fuse=True)`` and through every fusion group's ``FusedKernel``
(``harness.py``); results agree per ``tolerances.py``.

Bugs the fuzzer found are pinned in ``test_regressions.py``.

The default suite fuzzes half of the fuzz-ci profile's graphs; an exhaustive test
(tests/conftest.py) fuzzes the profile's whole count, in a draw of its own. A profile named on
the command line (``--hypothesis-profile=long``) runs whole in the default test.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from .conftest import CHOSEN, fuzz_settings, progress
from .graphs import FuzzCase, build_case
from .harness import check_case

TOTALS = {"graphs": 0, "groups": 0, "kernel_calls": 0, "errors": 0, "declined": 0}


@st.composite
def fuzz_cases(draw, blocks: bool = True) -> FuzzCase:
    rnd = draw(st.randoms(use_true_random=False))
    seed = draw(st.integers(0, 2**32 - 1))
    typed = draw(st.booleans())
    hostile = draw(st.integers(0, 4)) == 0
    n_ops = draw(st.integers(3, 14))
    return build_case(rnd, seed, typed, hostile, n_ops, blocks)


def _half_of_fuzz_ci() -> settings:
    """fuzz-ci with half its graphs (each compiles kernels of its own, most of the test's
    time); a profile named on the command line, whole."""
    chosen = fuzz_settings()
    if CHOSEN["profile"] is not None:
        return chosen
    return settings(chosen, max_examples=chosen.max_examples // 2)


def _check(case: FuzzCase) -> None:
    note(repr(case))
    problems, stats = check_case(case)
    TOTALS["graphs"] += 1
    for key, n in stats.items():
        TOTALS[key] = TOTALS.get(key, 0) + n
    progress("differential", TOTALS)
    assert not problems, "\n".join(problems)


@_half_of_fuzz_ci()
@given(case=fuzz_cases())
def test_fused_paths_match_the_reference(case: FuzzCase) -> None:
    _check(case)


@pytest.mark.exhaustive
@pytest.mark.skipif(CHOSEN["profile"] is not None,
                    reason="the default test runs the named profile whole")
@fuzz_settings()
@given(case=fuzz_cases())
def test_fused_paths_match_the_reference_on_every_fuzz_ci_graph(case: FuzzCase) -> None:
    _check(case)


def test_generator_is_deterministic_and_valid() -> None:
    """The same draw makes the same graph, and every graph parses and lints (checked in
    check_case) with one argument per parameter."""
    import fusejit

    for seed in range(30):
        a = build_case(random.Random(seed), seed, True, seed % 3 == 0, 10)
        b = build_case(random.Random(seed), seed, True, seed % 3 == 0, 10)
        assert a.text == b.text
        graph = fusejit.parse_ir(a.text)
        fusejit.lint(graph)
        assert len(graph.inputs) == len(a.args)
