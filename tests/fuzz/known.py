"""Bugs the fuzzer found that are not fixed yet (each pinned by an ``xfail(strict=True)`` test
in ``test_regressions.py``), and how to recognise a fuzz failure as one of them.

The differential test counts a recognised failure as ``known`` instead of failing, so the CI
profile stays green while the owner fixes it; ``FUSEJIT_FUZZ_STRICT=1`` makes them failures.
Delete an entry when its xfail test starts passing.
"""

from __future__ import annotations

import os

from .graphs import FuzzCase

STRICT = os.environ.get("FUSEJIT_FUZZ_STRICT") == "1"


def known_bug(case: FuzzCase, problem: str) -> str | None:
    """The name of the known bug that explains ``problem``, or None."""
    if STRICT:
        return None
    return None

