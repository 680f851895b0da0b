"""``benchmarks/fuzz.py`` (the differential fuzzer of ``fusejit.jit`` against NumPy) keeps
working: its generator makes programs that compile, deterministically by seed, and a case it
replays runs through ``fusejit.jit`` and is compared with NumPy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz.py"


def _fuzz():
    spec = importlib.util.spec_from_file_location("fusejit_fuzz_script", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_is_deterministic_and_its_programs_compile():
    fuzz = _fuzz()
    for seed in range(40):
        src, arrays, scalar, meta = fuzz.make_case(seed)
        again = fuzz.make_case(seed)
        assert src == again[0] and meta == again[3] and scalar == again[2]
        assert all(np.array_equal(a, b) for a, b in zip(arrays, again[1]))
        compile(src, f"<case {seed}>", "exec")
        assert [a.shape for a in arrays][0] == meta["shape"]


def test_a_replayed_case_runs_through_fusejit_and_agrees_with_numpy(tmp_path):
    """Case 5 (an in-place program over three arrays) compared on its three calls."""
    verdict = _fuzz().run_case(5, str(tmp_path))
    assert verdict["status"] == "ok", verdict


def test_a_difference_no_farther_from_the_wider_result_than_numpy_s_is_rounding():
    """A float32 sum that differs from NumPy's (added up in another order) but is no farther
    from the program run in float64 is counted as rounding, not a failure; one 1% off is a
    failure."""
    fuzz = _fuzz()
    a = np.random.default_rng(0).uniform(-3, 3, 5000).astype(np.float32)

    def f(a, s):
        return a.sum(dtype=a.dtype) * s

    want = f(a.copy(), 1.5)
    closest = np.float32(f(a.astype(np.float64), 1.5))    # (the float32 nearest the exact)
    near = fuzz.rounding_only(f, [a], 1.5, (want, [a]), (closest, [a]))
    assert near is not None and near.startswith("from the exact result")
    assert fuzz.rounding_only(f, [a], 1.5, (want, [a]), (np.float32(want * 1.01), [a])) is None
