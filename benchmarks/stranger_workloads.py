"""Workloads written by a stranger to fusejit: about 50 numerical functions as a NumPy user
writes them and would decorate with ``@fusejit.jit`` (image and signal processing, finance,
physics, machine learning, statistics), written without looking at what fusejit handles well,
against NumPy eager and ``numba.njit(parallel=True)`` of the same function in the same run.

    python benchmarks/stranger_workloads.py [--repeat N] [--quick] [--only SUBSTRING] [--cpu]
                                            [--no-numba] [--scale F] [--below R]

The cases mix float32 arrays with Python floats, integer arrays promoted to float, bool masks,
1-d, 2-d and 3-d arrays with broadcasting (``x[:, None] - y[None, :]``), keyword arguments,
several outputs, and in-place updates (``x += ...``, ``out[...] = ...``), at 10^5 to 10^7
elements (``--scale`` multiplies every size; ``--quick`` is ``--scale 1/64``, a smoke test).

Timing is ``heldout.py``'s (``median_times``: one warm-up call, then the medians of ``--repeat``
calls, the engines alternating within each repetition; ``--cpu``: the process's CPU time with
every runtime on one thread) and its rows (``show``). Each engine's result is checked against
NumPy's on its own fresh copy of the inputs (so that an in-place case is checked from the same
starting values); the printed ``diff`` is the largest relative difference over all outputs.
The cases below ``--below`` times NumPy (default 1.0), and the refused ones, are listed at the
end with the minimum and median of fusejit's ratios. The machine is shared: single rows move
by several percent between runs.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np
from scipy import special

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import heldout  # noqa: E402  (its timing, checks and printing; sets FUSEJIT_TIERING=0)

import fusejit  # noqa: E402

# --- image and signal processing ----------------------------------------------------------------


def normalise_image(img):
    lo = img.min()
    hi = img.max()
    return (img - lo) / (hi - lo + 1e-8)


def gamma_correct(img, gamma=2.2):
    return np.clip(img, 0.0, 1.0) ** (1.0 / gamma)


def alpha_blend(fg, bg, alpha):
    a = alpha[:, :, None]
    return a * fg + (1.0 - a) * bg


def threshold_band(img, lo, hi):
    return np.where(img < lo, 0.0, np.where(img > hi, 1.0, img))


def rgb_to_gray(img):
    return 0.299 * img[:, :, 0] + 0.587 * img[:, :, 1] + 0.114 * img[:, :, 2]


def srgb_to_linear(img_u8):
    c = img_u8 / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def soft_threshold(x, lam):
    return np.sign(x) * np.maximum(np.abs(x) - lam, 0.0)


def hann_window(signal):
    n = signal.shape[0]
    k = np.arange(n)
    return signal * (0.5 - 0.5 * np.cos(2.0 * np.pi * k / (n - 1)))


def first_difference(x):
    return x[1:] - x[:-1]


# --- finance --------------------------------------------------------------------------------


def simple_returns(prices):
    return prices[1:] / prices[:-1] - 1.0


def log_returns(prices):
    return np.log(prices[1:] / prices[:-1])


def black_scholes_call(S, K, T, r, sigma):
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    nd1 = 0.5 * (1.0 + special.erf(d1 / math.sqrt(2.0)))
    nd2 = 0.5 * (1.0 + special.erf(d2 / math.sqrt(2.0)))
    return S * nd1 - K * np.exp(-r * T) * nd2


def portfolio_returns(weights, returns):
    return (returns * weights[None, :]).sum(axis=1)


def sharpe_per_asset(returns):
    return returns.mean(axis=0) / returns.std(axis=0) * np.sqrt(252.0)


# --- physics --------------------------------------------------------------------------------


def pairwise_distances(a, b):
    d = a[:, None, :] - b[None, :, :]
    return np.sqrt((d * d).sum(axis=-1))


def gaussian_kernel(x, y, sigma=0.5):
    return np.exp(-((x[:, None] - y[None, :]) ** 2) / (2.0 * sigma ** 2))


def lennard_jones(r, eps=1.0, sigma=1.0):
    sr6 = (sigma / r) ** 6
    return 4.0 * eps * (sr6 * sr6 - sr6)


def softened_potential(r2, m, softening=0.01):
    return -m / np.sqrt(r2 + softening * softening)


def kinetic_energy(m, v):
    return 0.5 * np.sum(m[:, None] * v * v)


def verlet_step(x, v, a, dt):
    x += v * dt + 0.5 * a * dt * dt
    v += a * dt
    return x, v


# --- machine learning ------------------------------------------------------------------------


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    return 0.5 * x * (1.0 + special.erf(x / np.sqrt(2.0)))


def swish(x, beta=1.0):
    return x / (1.0 + np.exp(-beta * x))


def softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


def logsumexp_rows(x):
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


def cross_entropy(logits, onehot):
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -(onehot * logp).sum(axis=1).mean()


def adam_update(p, g, m, v, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, t=10):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    m_hat = m / (1 - b1 ** t)
    v_hat = v / (1 - b2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def adam_inplace(p, g, m, v, lr, t):
    m *= 0.9
    m += 0.1 * g
    v[...] = 0.999 * v + 0.001 * g * g
    p -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return p, m, v


def layer_norm_affine(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def cosine_similarity(a, b):
    num = (a * b).sum(axis=1)
    den = np.sqrt((a * a).sum(axis=1)) * np.sqrt((b * b).sum(axis=1))
    return num / np.maximum(den, 1e-8)


def binary_cross_entropy(p, y):
    p = np.clip(p, 1e-7, 1.0 - 1e-7)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1.0 - p))


def leaky_relu(x, slope=0.01):
    return np.where(x > 0, x, slope * x)


# --- statistics -------------------------------------------------------------------------------


def zscore_columns(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def moments(x):
    m = x.mean()
    d = x - m
    var = (d * d).mean()
    skew = (d ** 3).mean() / var ** 1.5
    kurt = (d ** 4).mean() / (var * var) - 3.0
    return m, var, skew, kurt


def weighted_mean(x, w):
    return (w * x).sum() / w.sum()


def masked_row_mean(x, mask):
    return np.where(mask, x, 0.0).sum(axis=1) / np.maximum(mask.sum(axis=1), 1)


def huber_loss(pred, target, delta=1.0):
    d = pred - target
    ad = np.abs(d)
    return np.where(ad <= delta, 0.5 * d * d, delta * (ad - 0.5 * delta))


def poisson_deviance(counts, rate):
    safe = np.where(counts > 0, counts, 1)
    return 2.0 * (counts * np.log(safe / rate) - (counts - rate))


def clip_outliers(x, k=3.0):
    mu = x.mean()
    sd = x.std()
    out = np.empty_like(x)
    out[...] = np.clip(x, mu - k * sd, mu + k * sd)
    return out


# --- integers, loops, out= and tuple arguments (session 10) ----------------------------------


def bucket_and_phase(t, period):
    return t // period, t % period, -t // 3


def blend_u8(a, b):
    return a + b, (a.astype(np.int16) + b) // 2, a > b


def to_uint8(img):
    return (np.clip(img, 0.0, 1.0) * 255).astype(np.uint8)


def harmonic_euler(x, v, dt):
    for _ in range(5):
        v = v - dt * x
        x = x + dt * v
    return x, v


def central_difference(f, h):
    d = np.empty_like(f)
    d[1:-1] = (f[2:] - f[:-2]) / (2 * h)
    d[0] = (f[1] - f[0]) / h
    d[-1] = (f[-1] - f[-2]) / h
    return d


def exp_sum_out(x, y):
    z = np.empty_like(x)
    np.add(x, y, out=z)
    np.exp(z, out=z)
    return z


def polynomial(x, coeffs):
    acc = np.zeros_like(x)
    for k, c in enumerate(coeffs):
        acc += c * x ** k
    return acc


def quadrant_counts(x, y):
    return ((x > 0) & (y > 0)).sum(), ((x < 0) * (y < 0)).sum(), (x > y).mean()


# --- the cases --------------------------------------------------------------------------------

F32, F64 = np.float32, np.float64


def cases(rng, scale: float):
    """(title, function, make inputs (no arguments -> (args, kwargs)), changes its inputs)."""
    def n(count):                       # an element count, at least 16
        return max(16, int(count * scale))

    def side(count):                    # a square's side for about ``count`` elements
        return max(4, int(math.sqrt(count * scale)))

    def u(shape, lo=-1.0, hi=1.0, dtype=F32):
        return rng.uniform(lo, hi, shape).astype(dtype)

    h = side(2 ** 22)
    img3 = (side(2 ** 21), side(2 ** 21), 3)
    big, mid, small = n(10 ** 7), n(2 ** 22), n(10 ** 5)
    rows = (side(2 ** 22) // 4, 4 * side(2 ** 22))
    t_assets = (n(2 ** 22) // 512, 512)
    pts = side(2 ** 22)
    yield ("normalise_image 2-d f32", normalise_image,
           lambda: ((u((h, h), 0, 255),), {}), False)
    yield ("gamma_correct kw 2-d f32", gamma_correct,
           lambda: ((u((h, h), -0.1, 1.1),), {"gamma": 2.4}), False)
    yield ("alpha_blend 3-d f32", alpha_blend,
           lambda: ((u(img3, 0, 1), u(img3, 0, 1), u(img3[:2], 0, 1)), {}), False)
    yield ("threshold_band where f32", threshold_band,
           lambda: ((u((h, h), 0, 1), 0.2, 0.8), {}), False)
    yield ("rgb_to_gray 3-d f32", rgb_to_gray, lambda: ((u(img3, 0, 1),), {}), False)
    yield ("srgb_to_linear uint8", srgb_to_linear,
           lambda: ((rng.integers(0, 256, img3, dtype=np.uint8),), {}), False)
    yield ("soft_threshold 1-d f64", soft_threshold,
           lambda: ((u(mid, dtype=F64), 0.3), {}), False)
    yield ("hann_window arange f32", hann_window, lambda: ((u(mid),), {}), False)
    yield ("first_difference 1e7 f64", first_difference,
           lambda: ((u(big, dtype=F64),), {}), False)
    yield ("simple_returns 2-d f64", simple_returns,
           lambda: ((u(t_assets, 50, 150, F64),), {}), False)
    yield ("log_returns 2-d f32", log_returns,
           lambda: ((u(t_assets, 50, 150),), {}), False)
    yield ("black_scholes erf f64", black_scholes_call,
           lambda: ((u(mid, 50, 150, F64), u(mid, 50, 150, F64), u(mid, 0.1, 2, F64),
                     0.03, u(mid, 0.1, 0.5, F64)), {}), False)
    yield ("portfolio_returns bcast f64", portfolio_returns,
           lambda: ((u(512, 0, 1, F64), u(t_assets, -0.05, 0.05, F64)), {}), False)
    yield ("sharpe_per_asset axis0 f64", sharpe_per_asset,
           lambda: ((u(t_assets, -0.05, 0.06, F64),), {}), False)
    yield ("pairwise_distances 3-d bcast f32", pairwise_distances,
           lambda: ((u((pts // 2, 3)), u((pts // 2, 3))), {}), False)
    yield ("gaussian_kernel outer kw f32", gaussian_kernel,
           lambda: ((u(pts), u(pts)), {"sigma": 0.3}), False)
    yield ("lennard_jones pow f64", lennard_jones,
           lambda: ((u(mid, 0.9, 3.0, F64),), {"eps": 0.5}), False)
    yield ("softened_potential f32", softened_potential,
           lambda: ((u(mid, 0, 4), u(mid, 0.5, 2)), {}), False)
    yield ("kinetic_energy sum f64", kinetic_energy,
           lambda: ((u(mid // 3, 1, 2, F64), u((mid // 3, 3), dtype=F64)), {}), False)
    yield ("verlet_step inplace f64", verlet_step,
           lambda: ((u((mid // 3, 3), dtype=F64), u((mid // 3, 3), dtype=F64),
                     u((mid // 3, 3), dtype=F64), 1e-3), {}), True)
    yield ("gelu_tanh 1e7 f32", gelu_tanh, lambda: ((u(big, -4, 4),), {}), False)
    yield ("gelu_erf f32", gelu_erf, lambda: ((u(mid, -4, 4),), {}), False)
    yield ("swish kw 1e5 f32", swish, lambda: ((u(small, -6, 6),), {"beta": 1.5}), False)
    yield ("softplus f64", softplus, lambda: ((u(mid, -20, 20, F64),), {}), False)
    yield ("logsumexp_rows f32", logsumexp_rows, lambda: ((u(rows, -5, 5),), {}), False)
    yield ("cross_entropy onehot f32", cross_entropy,
           lambda: ((u(rows, -5, 5),
                     np.eye(rows[1], dtype=F32)[rng.integers(0, rows[1], rows[0])]), {}),
           False)
    yield ("adam_update kw 3 outs f32", adam_update,
           lambda: ((u(mid), u(mid), u(mid, -0.1, 0.1), u(mid, 0, 0.01)),
                    {"lr": 3e-4, "t": 5}), False)
    yield ("adam_inplace f32", adam_inplace,
           lambda: ((u(mid), u(mid), u(mid, -0.1, 0.1), u(mid, 0, 0.01), 3e-4, 5), {}),
           True)
    yield ("layer_norm_affine 3-d f32", layer_norm_affine,
           lambda: ((u((n(2 ** 22) // (128 * 768) or 1, 128, 768)), u(768, 0.5, 1.5),
                     u(768, -0.1, 0.1)), {}), False)
    yield ("cosine_similarity rows f32", cosine_similarity,
           lambda: ((u(rows), u(rows)), {}), False)
    yield ("binary_cross_entropy bool f32", binary_cross_entropy,
           lambda: ((u(mid, 0, 1), rng.random(mid) < 0.3), {}), False)
    yield ("leaky_relu where kw 1e5 f32", leaky_relu,
           lambda: ((u(small),), {"slope": 0.2}), False)
    yield ("zscore_columns f32", zscore_columns,
           lambda: ((u((rows[1], rows[0]), 0, 10),), {}), False)
    yield ("moments 4 scalars f64", moments, lambda: ((u(mid, -2, 3, F64),), {}), False)
    yield ("weighted_mean f32", weighted_mean, lambda: ((u(mid), u(mid, 0, 1)), {}), False)
    yield ("masked_row_mean bool f32", masked_row_mean,
           lambda: ((u(rows), rng.random(rows) < 0.7), {}), False)
    yield ("huber_loss kw f32", huber_loss,
           lambda: ((u(mid, -3, 3), u(mid, -3, 3)), {"delta": 0.5}), False)
    yield ("poisson_deviance int64 f64", poisson_deviance,
           lambda: ((rng.poisson(3.0, mid), u(mid, 0.5, 6, F64)), {}), False)
    yield ("clip_outliers out[...] f32", clip_outliers,
           lambda: ((rng.standard_normal(mid).astype(F32),), {"k": 2.5}), False)
    yield ("bucket_and_phase // % int64", bucket_and_phase,
           lambda: ((rng.integers(-10 ** 6, 10 ** 6, mid), 7), {}), False)
    yield ("blend_u8 wrap uint8", blend_u8,
           lambda: ((rng.integers(0, 256, mid, dtype=np.uint8),
                     rng.integers(0, 256, mid, dtype=np.uint8)), {}), False)
    yield ("to_uint8 clip astype f32", to_uint8, lambda: ((u((h, h), -0.2, 1.2),), {}), False)
    yield ("harmonic_euler range loop f64", harmonic_euler,
           lambda: ((u(mid, dtype=F64), u(mid, dtype=F64), 0.01), {}), False)
    yield ("central_difference slices f64", central_difference,
           lambda: ((u(mid, dtype=F64), 0.1), {}), False)
    yield ("exp_sum_out out= f64", exp_sum_out,
           lambda: ((u(mid, dtype=F64), u(mid, dtype=F64)), {}), False)
    yield ("polynomial tuple arg f32", polynomial,
           lambda: ((u(mid),), {"coeffs": (0.5, -1.0, 0.25, 0.125)}), False)
    yield ("quadrant_counts masks f64", quadrant_counts,
           lambda: ((u(mid, dtype=F64), u(mid, dtype=F64)), {}), False)


# --- measuring --------------------------------------------------------------------------------


def outputs(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def max_diff(got, want) -> float:
    """The largest of ``heldout.rel_diff`` over the outputs (inf if their number differs)."""
    got, want = outputs(got), outputs(want)
    if len(got) != len(want):
        return float("inf")
    return max(heldout.rel_diff(g, w) for g, w in zip(got, want))


def measure(fn, make, changes: bool, repeat: int, others: tuple) -> dict:
    """``heldout.measure`` for a case with keyword arguments, several outputs or in-place
    updates: each engine's first (compiling, checked) call gets a fresh copy of the inputs,
    the timed calls share one copy per engine (in-place cases keep updating it)."""
    args, kwargs = make()

    def fresh():
        return tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)

    want = fn(*fresh(), **kwargs)
    timed = fresh()
    calls = {"numpy": lambda: fn(*timed, **kwargs)}
    row: dict = {}
    makers = {"fusejit": fusejit.jit}
    if "numba" in others:
        makers["numba"] = lambda f: heldout.numba_of(f)[0]
    for name, make_call in makers.items():
        try:
            call = make_call(fn)
            got = call(*fresh(), **kwargs)
        except Exception as why:  # noqa: BLE001 - a refusal is a result here
            text = str(why).strip().splitlines() or [type(why).__name__]
            row[name] = f"refused: {type(why).__name__}: {text[0]}"
            continue
        mine = fresh() if changes else timed
        calls[name] = lambda c=call, a=mine: c(*a, **kwargs)
        row[name + " diff"] = max_diff(got, want)
    row.update(heldout.median_times(calls, repeat))
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="sizes / 64, a smoke test")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    parser.add_argument("--only", default="", help="run the cases whose title has this")
    parser.add_argument("--cpu", action="store_true", help="CPU time, one thread each")
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--below", type=float, default=1.0, help="list cases under this ratio")
    args = parser.parse_args()
    others = () if args.no_numba else ("numba",)
    if args.cpu:
        fusejit.set_num_threads(1)
        if others:
            import numba

            numba.set_num_threads(1)
        heldout.CLOCK[0] = time.process_time
    rng = np.random.default_rng(2026)
    ratios, low = [], []
    for title, fn, make, changes in cases(rng, args.scale / 64 if args.quick else args.scale):
        if args.only not in title:
            continue
        with np.errstate(all="ignore"):
            row = measure(fn, make, changes, args.repeat, others)
        heldout.show(title, row)
        value = row.get("fusejit")
        if isinstance(value, str):
            low.append(f"  {title}: {value}")
            continue
        ratio = row["numpy"] / value
        ratios.append(ratio)
        if ratio < args.below or row["fusejit diff"] > 1e-3:
            low.append(f"  {title}: {ratio:.2f}x (diff {row['fusejit diff']:.1e})")
    if ratios:
        print(f"== fusejit over {len(ratios)} cases: min {min(ratios):.2f}x, median "
              f"{statistics.median(ratios):.2f}x, max {max(ratios):.2f}x NumPy")
    print(f"below {args.below}x NumPy, refused or off by > 1e-3 ({len(low)}):")
    print("\n".join(low))


if __name__ == "__main__":
    main()
