"""Fit ``veclgamma``'s float32 polynomial: lgamma(t) / ((t - 1)(t - 2)) on [1, 3], as a
polynomial of u = t - 2 of degree 12, for a small relative error (near-minimax by Lawson's
reweighting of least squares at 400 Chebyshev nodes; lgamma by mpmath at 40 digits).

    python tools/fit_lgamma_f32.py          # needs mpmath (not a fusejit dependency)

Prints the coefficients rounded to float32 (``veclgamma._Q32``) and the fit's maximum relative
error in float32 ulps (2^-24), in float64 arithmetic before the rounding: 0.09.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

DEGREE, NODES = 12, 400


def ratio(t: float) -> float:
    t = mp.mpf(t)
    if min(abs(t - 1), abs(t - 2)) < mp.mpf(10) ** -30:      # (the removable singularities)
        t += mp.mpf(10) ** -25
    return float(mp.loggamma(t) / ((t - 1) * (t - 2)))


def main() -> None:
    mp.mp.dps = 40
    k = np.arange(NODES)
    u = np.cos(np.pi * (k + 0.5) / NODES)                   # t = 2 + u on [1, 3]
    y = np.array([ratio(2.0 + v) for v in u])
    a = np.vander(u, DEGREE + 1, increasing=True) / y[:, None]
    weight = np.full(NODES, 1.0 / NODES)
    for _ in range(30):
        root = np.sqrt(weight)
        c = np.linalg.lstsq(a * root[:, None], root, rcond=None)[0]
        err = np.abs(a @ c - 1.0)
        weight = weight * err / np.sum(weight * err)
    print("coefficients:", ", ".join(repr(float(np.float32(v))) for v in c))
    print(f"max relative error: {err.max() / 2.0 ** -24:.3f} float32 ulps")


if __name__ == "__main__":
    main()
