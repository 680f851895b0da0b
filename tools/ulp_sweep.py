"""Measure the maximum ulp error of the fused kernels' vectorised math (``vecmath``, ``fastmath``).

    python tools/ulp_sweep.py f32 [--step K] [NAME ...]    # every K-th float32 (K=1: all 2^32)
    python tools/ulp_sweep.py f64 [--samples N] [NAME ...] # N random float64s + specials
    python tools/ulp_sweep.py binary [--samples N]         # atan2 and float32 pow, random pairs

Oracles:

- float32: the float64 libm function (through Numba's ``math``) of the float32 input, unrounded;
  the error is |fast - oracle| in units of the float32 spacing at the oracle rounded to float32.
  (glibc's float64 functions are within 1 ulp of float64, ~2^-29 float32 ulps.)
- float64: NumPy's ufunc (glibc's libm; erf and erfc: glibc's through Numba); the error is
  |fast - numpy| in units of the float64 spacing at NumPy's result. glibc's float64
  exp/log/sin/cos/pow are correctly rounded or within 1 ulp, the others within a few, so the
  error against the exact value is at most the figure printed plus glibc's own. Samples:
  uniform bit patterns (every exponent equally), plus uniform values in [-4, 4] and
  [-800, 800], plus the special values.

sin/cos/tan are measured as the kernel computes them: the fast form for |x| <= TRIG_LIMIT
(float32: TRIG_LIMIT_F32), libm beyond (the kernel's fix-up loop). sigmoid's oracle is
1 / (1 + e**-x) in float64, 0 where float32's (float64's) e**-x overflows, as the reference
computes it. The sweep runs in parallel on all cores (``prange`` over chunks of the range).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from numba import njit, prange

from fusejit.runtime.fusion import fastmath as fm
from fusejit.runtime.fusion import vecmath as vm
from fusejit.runtime.fusion import vecspecial as vs
from fusejit.runtime.fusion import vectrig as vt

LIM = vm.TRIG_LIMIT
LIM32 = vt.TRIG_LIMIT_F32


def _sig64(x):
    e = math.exp(-x)
    return 0.0 if e > 3.4028234663852886e38 else 1.0 / (1.0 + e)     # (float32's overflow)


_sig64 = njit(_sig64)

# name -> (fast float32 function, float64 oracle); trig forms wrap the kernel's fix-up
F32 = {
    "exp": (fm.exp_f32, math.exp), "expm1": (fm.expm1_f32, math.expm1),
    "log": (fm.log_f32, math.log), "log1p": (fm.log1p_f32, math.log1p),
    "log2": (fm.log2_f32, math.log2), "log10": (fm.log10_f32, math.log10),
    "sin": (vt.sin_f32, math.sin), "cos": (vt.cos_f32, math.cos), "tan": (vt.tan_f32, math.tan),
    "asin": (vt.asin_f32, math.asin), "acos": (vt.acos_f32, math.acos),
    "atan": (vt.atan_f32, math.atan), "sinh": (fm.sinh_f32, math.sinh),
    "cosh": (fm.cosh_f32, math.cosh), "tanh": (fm.tanh_f32, math.tanh),
    "sigmoid": (fm.sigmoid_f32, _sig64), "erf": (vs.erf_f32, math.erf),
    "erfc": (vs.erfc_f32, math.erfc),
}
F64 = {
    "exp": (vm.exp_f64, np.exp), "expm1": (vm.expm1_f64, np.expm1),
    "log": (vm.log_f64, np.log), "log1p": (vm.log1p_f64, np.log1p),
    "log2": (vm.log2_f64, np.log2), "log10": (vm.log10_f64, np.log10),
    "sin": (vm.sin_f64, np.sin), "cos": (vm.cos_f64, np.cos), "tan": (vm.tan_f64, np.tan),
    "asin": (vm.asin_f64, np.arcsin), "acos": (vm.acos_f64, np.arccos),
    "atan": (vm.atan_f64, np.arctan), "sinh": (vs.sinh_f64, np.sinh),
    "cosh": (vs.cosh_f64, np.cosh), "tanh": (vm.tanh_f64, np.tanh),
    "sigmoid": (vm.sigmoid_f64, None), "erf": (vs.erf_f64, math.erf),
    "erfc": (vs.erfc_f64, math.erfc),
}
TRIG = ("sin", "cos", "tan")


@njit
def _ulps32(got, ref):
    """|got - ref| in float32 ulps at ref rounded; 0 for the same NaN/inf, inf for a mismatch."""
    want = np.float32(ref)
    if not (math.isfinite(want) and math.isfinite(got)):
        same = (got == want) or (got != got and want != want)
        return 0.0 if same else math.inf
    a = abs(want)
    up = np.nextafter(a, np.float32(math.inf))
    if not math.isfinite(up):
        up = a + (a - np.nextafter(a, np.float32(0.0)))
    return abs(np.float64(got) - ref) / (np.float64(up) - np.float64(a))


def _make_f32_sweep(fast, oracle, trig: bool):
    if trig:
        slow = oracle

        @njit
        def kernel_fn(x):
            return np.float32(slow(np.float64(x))) if abs(x) > LIM32 else fast(x)
    else:
        kernel_fn = fast

    @njit(parallel=True)
    def sweep(start, stop, step, chunks):
        worst = np.zeros(chunks)
        where = np.zeros(chunks, np.uint32)
        span = (stop - start + chunks - 1) // chunks
        for k in prange(chunks):
            lo = start + k * span
            hi = min(stop, lo + span)
            best, at = 0.0, np.uint32(0)
            for b in range(lo, hi, step):
                bits = np.uint32(b)
                x = fm._bits_to_f32(np.int32(np.int64(b) - (np.int64(b) >> 31 << 32)))
                err = _ulps32(kernel_fn(x), oracle(np.float64(x)))
                if err > best:
                    best, at = err, bits
            worst[k] = best
            where[k] = at
        return worst, where
    return sweep


def sweep_f32(name: str, step: int) -> tuple[float, float]:
    fast, oracle = F32[name]
    sweep = _make_f32_sweep(fast, oracle, name in TRIG)
    worst, where = sweep(0, 1 << 32, step, 256)
    i = int(np.argmax(worst))
    return float(worst[i]), float(np.array([where[i]], np.uint32).view(np.float32)[0])


def _apply64(fast):
    @njit(parallel=True)
    def run(x, out):
        for i in prange(x.size):
            out[i] = fast(x[i])
    return run


def specials64() -> np.ndarray:
    v = np.array([0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-20, 1e-8, 0.5, 1.0, 2.0,
                  0.4375, 0.6875, 1.1875, 2.4375, 19.1, 40.0, 709.0, 709.78, 709.79, 710.5,
                  745.13, 746.0, np.pi / 4, np.pi / 2, np.pi, 1e5, LIM, 1e22,
                  1.7976931348623157e308, np.inf, np.nan])
    with np.errstate(all="ignore"):
        v = np.concatenate([v, np.nextafter(v, np.inf), np.nextafter(v, 0)])
    return np.concatenate([v, -v])


def sweep_f64(name: str, samples: int, chunk: int = 1 << 23) -> tuple[float, float]:
    fast, oracle = F64[name]
    run = _apply64(fast)
    rng = np.random.default_rng(1)
    worst, where = 0.0, 0.0
    done = 0
    first = True
    while done < samples:
        n = min(chunk, samples - done)
        third = n // 3
        signs = rng.choice([-1.0, 1.0], third)
        with np.errstate(all="ignore"):
            patterns = rng.integers(0, 1 << 63, third, dtype=np.int64).view(np.float64) * signs
        x = np.concatenate([patterns,
                            rng.uniform(-4, 4, third), rng.uniform(-800, 800, n - 2 * third)])
        if first:
            x = np.concatenate([x, specials64()])
            first = False
        got = np.empty_like(x)
        run(x, got)
        with np.errstate(all="ignore"):
            if oracle is None:      # sigmoid, as the reference computes it
                want = 1 / (1 + np.exp(-x))
            elif isinstance(oracle, np.ufunc):
                want = oracle(x)
            else:                   # (libm's function, where NumPy has none: erf, erfc)
                want = np.empty_like(x)
                _apply64(oracle)(x, want)
            if name in TRIG:
                big = np.abs(x) > LIM
                got[big] = want[big]        # (the kernel's fix-up loop runs libm there)
            err = np.abs(got - want) / np.spacing(np.abs(want))
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        err[same] = 0.0
        err[~same & ~(np.isfinite(got) & np.isfinite(want))] = np.inf
        i = int(np.argmax(err))
        if err[i] > worst:
            worst, where = float(err[i]), float(x[i])
        done += n
    return worst, where


BINARY = {"atan2_f32": (vt.atan2_f32, np.arctan2, np.float32),
          "pow_f32": (fm.pow_f32, np.power, np.float32),
          "atan2_f64": (vm.atan2_f64, np.arctan2, np.float64),
          "pow_f64": (vs.pow_f64, np.power, np.float64)}


def _apply2(fast):
    @njit(parallel=True)
    def run(x, y, out):
        for i in prange(x.size):
            out[i] = fast(x[i], y[i])
    return run


def sweep_binary(name: str, samples: int, chunk: int = 1 << 22) -> tuple[float, tuple]:
    """Random pairs: a third uniform bit patterns, a third uniform in [-4, 4], a third with
    x in (0, 4] and y in [-40, 40] (pow's useful range); float32 results are compared with the
    float64 oracle unrounded, float64 ones with NumPy's."""
    fast, oracle, dtype = BINARY[name]
    run = _apply2(fast)
    rng = np.random.default_rng(2)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    worst, where, done = 0.0, (0.0, 0.0), 0
    while done < samples:
        n = min(chunk, samples - done)
        t = n // 3
        pat = rng.integers(0, np.iinfo(bits).max, (2, t), dtype=bits).view(dtype)
        x = np.concatenate([pat[0], rng.uniform(-4, 4, t), rng.uniform(0, 4, n - 2 * t)])
        y = np.concatenate([pat[1], rng.uniform(-4, 4, t), rng.uniform(-40, 40, n - 2 * t)])
        with np.errstate(all="ignore"):
            x, y = x.astype(dtype), y.astype(dtype)
        got = np.empty_like(x)
        run(x, y, got)
        with np.errstate(all="ignore"):
            want = oracle(x.astype(np.float64), y.astype(np.float64))
            rounded = want.astype(dtype)
            err = np.abs(got - want) / np.spacing(np.abs(rounded)).astype(np.float64)
        same = ((got == rounded) & ~np.isfinite(rounded)) | (np.isnan(got) & np.isnan(rounded))
        err[same] = 0.0
        err[~same & ~(np.isfinite(got) & np.isfinite(rounded))] = np.inf
        err[np.isnan(err)] = np.inf
        i = int(np.argmax(err))
        if err[i] > worst:
            worst, where = float(err[i]), (float(x[i]), float(y[i]))
        done += n
    return worst, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dtype", choices=["f32", "f64", "binary"])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--samples", type=int, default=10 ** 8)
    args = parser.parse_intermixed_args()
    table = {"f32": F32, "f64": F64, "binary": BINARY}[args.dtype]
    for name in args.names or list(table):
        start = time.perf_counter()
        if args.dtype == "binary":
            err, at = sweep_binary(name, args.samples)
            what = f"{args.samples:.1e} random pairs"
        elif args.dtype == "f32":
            err, at = sweep_f32(name, args.step)
            what = "all 2^32" if args.step == 1 else f"every {args.step}th of 2^32"
        else:
            err, at = sweep_f64(name, args.samples)
            what = f"{args.samples:.1e} samples + specials"
        print(f"{name:8s} {args.dtype} max {err:8.3f} ulp at {at!r:26s} ({what}, "
              f"{time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
