"""Hypothesis profiles for the differential fuzzer.

``fuzz-ci`` (the default here) runs a bounded, derandomised set of 100 graphs, so the
kernels it compiles are the same on every run and come from the on-disk kernel cache after the
first (compiling them is most of its time: with an empty cache 300 graphs took 180 s of a
600 s clean-clone suite on 2 cores, and 150 about 33 s); ``long`` runs 10,000 random graphs::

    python -m pytest tests/fuzz -q                              # fuzz-ci
    python -m pytest tests/fuzz --hypothesis-profile=long -q    # 10,000 graphs
"""

from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("fuzz-ci", max_examples=100, deadline=None, derandomize=True,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("long", max_examples=10_000, deadline=None,
                          suppress_health_check=_QUIET, print_blob=True)

# The profile the fuzz tests use: the one named on the command line, else fuzz-ci. The
# hypothesis plugin loads a named profile globally; without one, only these tests are bounded.
CHOSEN: dict[str, str | None] = {"profile": None}


def pytest_configure(config) -> None:
    CHOSEN["profile"] = config.getoption("hypothesis_profile", None)


def fuzz_settings():
    """Settings for a fuzz test: the command line's profile, or fuzz-ci."""
    name = CHOSEN["profile"] or "fuzz-ci"
    return settings(settings.get_profile(name))


def progress(title: str, totals: dict) -> None:
    """Every 100 graphs, append the counts to the file ``FUSEJIT_FUZZ_PROGRESS`` names (if any):
    a long run in the background shows how far it got before it ends."""
    path = os.environ.get("FUSEJIT_FUZZ_PROGRESS")
    if path and totals["graphs"] % 100 == 0:
        counts = ", ".join(f"{k} {v}" for k, v in totals.items())
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{time.strftime('%H:%M:%S')} {title}: {counts}\n")


def pytest_terminal_summary(terminalreporter) -> None:
    """A line of fuzzing counts per test: graphs run, fusion groups checked, kernel calls..."""
    from .test_adversarial import TOTALS as ADVERSARIAL
    from .test_differential import TOTALS

    for title, totals in (("differential fuzzing", TOTALS), ("adversarial (native engine)",
                                                              ADVERSARIAL)):
        if totals["graphs"]:
            counts = ", ".join(f"{k} {v}" for k, v in totals.items())
            terminalreporter.write_line(f"{title}: {counts}")
