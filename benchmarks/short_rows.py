"""Short rows and integer columns: ``fusejit.jit`` against NumPy eager, measured in the same run.

    python benchmarks/short_rows.py [--repeat N]

Maps over arrays whose last dimension is short (8 columns against per-column statistics, an
image's 3 channels against an alpha of one), which run the short-row kernel (``plan.SHORT_ROW``:
tiles of whole rows walked by index), and reductions of integer and bool columns, which run in
column kernels with int64 sums. Each function is called three times first (the interpreter,
then the compiled forms) and checked against NumPy; then, once all are, the median of
``--repeat`` calls of each, alternated with NumPy's, and NumPy's time over fusejit's (> 1:
fusejit is faster).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("FUSEJIT_TIERING", "0")

import numpy as np  # noqa: E402

import fusejit  # noqa: E402


def standardise(x, mean, std):
    return (x - mean) / std


def masked_standardise(x, m, out, mean, std):
    return np.where(m[:, None], (x - mean) / std, out)


def alpha_blend(alpha, fg, bg):
    return alpha * fg + (1.0 - alpha) * bg


def counts(a):
    return np.count_nonzero(a, axis=0), (a > 50).sum(axis=0), a.sum(axis=0, dtype=np.int64)


def flags(a):
    return (a > 90).any(axis=0), (a > -90).all(axis=0), a.max(axis=0) - a.min(axis=0)


def cases() -> list[tuple[str, object, tuple]]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200_000, 8))
    mean, std = x.mean(axis=0), x.std(axis=0)
    img = rng.random((1448, 1448, 3), dtype=np.float32)
    alpha = rng.random((1448, 1448, 1), dtype=np.float32)
    ints = rng.integers(-100, 100, (2048, 2048)).astype(np.int32)
    return [
        ("(x - mean) / std, 200000 x 8 float64", standardise, (x, mean, std)),
        ("masked (x - mean) / std, 200000 x 8", masked_standardise,
         (x, rng.random(200_000) < 0.2, np.zeros_like(x), mean, std)),
        ("alpha blend, 1448 x 1448 x 3 float32", alpha_blend, (alpha, img, img[::-1])),
        ("int32 column counts, 2048 x 2048", counts, (ints,)),
        ("int32 column any/all/range, 2048 x 2048", flags, (ints,)),
    ]


def _same(got, want) -> bool:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    return all(g.dtype == w.dtype and g.shape == w.shape and np.allclose(g, w, rtol=1e-6)
               for g, w in zip(got, want))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21)
    options = parser.parse_args()
    # (every case checked, and so compiled, before any is timed: checked and timed case by
    # case, the first case of a fresh process ran 0.42-0.66x in 4 of 9 runs and 1.8-2.1x in
    # the other 5)
    checked = []
    for label, fn, args in cases():
        jitted = fusejit.jit(fn)
        want = fn(*args)
        for call in range(3):
            if not _same(jitted(*args), want):
                raise SystemExit(f"{label}: call {call + 1} differs from NumPy")
        checked.append((label, fn, jitted, args))
    for label, fn, jitted, args in checked:
        times: dict[str, list[float]] = {"numpy": [], "fusejit": []}
        for _ in range(options.repeat):
            for name, f in (("numpy", fn), ("fusejit", jitted)):
                start = time.perf_counter()
                f(*args)
                times[name].append(time.perf_counter() - start)
        numpy_t, ours = (statistics.median(times[k]) for k in ("numpy", "fusejit"))
        print(f"{label:42s} numpy {numpy_t * 1e3:8.3f} ms  fusejit {ours * 1e3:8.3f} ms  "
              f"ratio {numpy_t / ours:6.2f}")


if __name__ == "__main__":
    main()
