"""Every simple-map op (the transcendentals, then the cheap maps), alone in a fused kernel,
against NumPy's ufunc (or the NumPy expression that computes it), float32 and float64, in
nanoseconds per element.

    python benchmarks/ops.py [--size N] [--repeat R] [--threads T | --cpu] [--free-cores K]
                             [NAME ...]

Medians of R timed calls each, fused and NumPy interleaved in the same run; ratio = NumPy time /
fused time (higher is faster). By default kernels choose threads by their work and the cores
other processes leave free (README, "Threads"); ``--free-cores 0`` takes the machine as busy
(the serial rule under 16 ms of work), ``--free-cores 1`` as having one more core free. The
load average is printed before and after, and each row's "free" column is the free cores the
rule saw at its end (``cores.spare_cores``: with 2 threads, 0 runs kernels under 16 ms of
work serially, 1 in parallel). erf, erfc and lgamma compare with SciPy's ufuncs
when SciPy is installed (NumPy has none).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import fusejit
from fusejit.runtime import cores
from fusejit.runtime.fusion import FusedKernel

try:
    from scipy import special
except ImportError:          # (only erf, erfc and lgamma need it)
    special = None


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name -> (NumPy form, input range, the op's IR call with %x (%y: a second tensor))
OPS = {
    "exp": (np.exp, (-5, 5), "aten::exp(%x)"),
    "expm1": (np.expm1, (-5, 5), "aten::expm1(%x)"),
    "log": (np.log, (0.01, 100), "aten::log(%x)"),
    "log1p": (np.log1p, (-0.5, 100), "aten::log1p(%x)"),
    "log2": (np.log2, (0.01, 100), "aten::log2(%x)"),
    "log10": (np.log10, (0.01, 100), "aten::log10(%x)"),
    "sin": (np.sin, (-10, 10), "aten::sin(%x)"),
    "cos": (np.cos, (-10, 10), "aten::cos(%x)"),
    "tan": (np.tan, (-1.5, 1.5), "aten::tan(%x)"),
    "asin": (np.arcsin, (-1, 1), "aten::asin(%x)"),
    "acos": (np.arccos, (-1, 1), "aten::acos(%x)"),
    "atan": (np.arctan, (-10, 10), "aten::atan(%x)"),
    "sinh": (np.sinh, (-5, 5), "aten::sinh(%x)"),
    "cosh": (np.cosh, (-5, 5), "aten::cosh(%x)"),
    "tanh": (np.tanh, (-5, 5), "aten::tanh(%x)"),
    "sigmoid": (_sigmoid, (-10, 10), "aten::sigmoid(%x)"),
    # NumPy's inverse hyperbolic functions (``@fusejit.jit``'s own maps, not PyTorch's list)
    "asinh": (np.arcsinh, (-10, 10), "aten::asinh(%x)"),
    "acosh": (np.arccosh, (1, 10), "aten::acosh(%x)"),
    "atanh": (np.arctanh, (-0.99, 0.99), "aten::atanh(%x)"),
    "erf": (special.erf if special else None, (-3, 3), "aten::erf(%x)"),
    "erfc": (special.erfc if special else None, (-3, 3), "aten::erfc(%x)"),
    "lgamma": (special.gammaln if special else None, (0.1, 10), "aten::lgamma(%x)"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 100), "aten::rsqrt(%x)"),
    "reciprocal": (np.reciprocal, (0.5, 100), "aten::reciprocal(%x)"),
    "sqrt": (np.sqrt, (0, 100), "aten::sqrt(%x)"),
    "atan2": (np.arctan2, (-10, 10), "aten::atan2(%x, %y)"),
    "pow": (np.power, (0.1, 3), "aten::pow(%x, %y)"),
    "pow_2.5": (lambda x: np.power(x, 2.5), (0.1, 3), "aten::pow(%x, %e)"),
    "pow_-0.5": (lambda x: np.power(x, -0.5), (0.1, 3), "aten::pow(%x, %m)"),
    # general constant exponents (no integer 2y), a constant base, a scalar base the kernel
    # takes as an argument (%s, 2.0 here)
    "pow_1/3": (lambda x: np.power(x, 1 / 3), (0.1, 3), "aten::pow(%x, %third)"),
    "pow_0.75": (lambda x: np.power(x, 0.75), (0.1, 3), "aten::pow(%x, %q)"),
    "pow_-2.2": (lambda x: np.power(x, -2.2), (0.1, 3), "aten::pow(%x, %n)"),
    "pow_1.7": (lambda x: np.power(x, 1.7), (0.1, 3), "aten::pow(%x, %p)"),
    "2**x": (lambda x: np.power(x.dtype.type(2), x), (-10, 10), "aten::pow(%two, %x)"),
    "10**x": (lambda x: np.power(x.dtype.type(10), x), (-5, 5), "aten::pow(%ten, %x)"),
    "s**x": (lambda x: np.power(x.dtype.type(2), x), (-10, 10), "aten::pow(%s, %x)"),
    # the cheap maps: memory bound, one read (or two) and one write an element, like NumPy
    "add": (np.add, (-10, 10), "aten::add(%x, %y, %one)"),
    "sub": (np.subtract, (-10, 10), "aten::sub(%x, %y, %one)"),
    "mul": (np.multiply, (-10, 10), "aten::mul(%x, %y)"),
    "div": (np.divide, (0.5, 10), "aten::div(%x, %y)"),
    "neg": (np.negative, (-10, 10), "aten::neg(%x)"),
    "abs": (np.abs, (-10, 10), "aten::abs(%x)"),
    "relu": (lambda x: np.maximum(x, 0), (-10, 10), "aten::relu(%x)"),
    "floor": (np.floor, (-10, 10), "aten::floor(%x)"),
    "ceil": (np.ceil, (-10, 10), "aten::ceil(%x)"),
    "round": (np.rint, (-10, 10), "aten::round(%x)"),
    "trunc": (np.trunc, (-10, 10), "aten::trunc(%x)"),
    "frac": (lambda x: x - np.trunc(x), (-10, 10), "aten::frac(%x)"),
    "maximum": (np.maximum, (-10, 10), "aten::max(%x, %y)"),
    "minimum": (np.minimum, (-10, 10), "aten::min(%x, %y)"),
    "clamp": (lambda x: np.clip(x, -0.5, 2.5), (-10, 10), "aten::clamp(%x, %m, %e)"),
    "lerp": (lambda x, y: x + 0.5 * (y - x), (-10, 10), "aten::lerp(%x, %y, %h)"),
    "fmod": (np.fmod, (0.5, 10), "aten::fmod(%x, %y)"),
    "remainder": (np.remainder, (0.5, 10), "aten::remainder(%x, %y)"),
    "floor_divide": (np.floor_divide, (0.5, 10), "aten::floor_divide(%x, %y)"),
}
_TYPE = {np.float32: "Float", np.float64: "Double"}


def _kernel(call: str, dtype) -> FusedKernel:
    ty = _TYPE[dtype]
    graph = fusejit.parse_ir(f"graph(%x : {ty}(*), %y : {ty}(*), %s : float):\n"
                             f"  %e : float = prim::Constant[value=2.5]()\n"
                             f"  %third : float = prim::Constant[value={1 / 3!r}]()\n"
                             f"  %q : float = prim::Constant[value=0.75]()\n"
                             f"  %n : float = prim::Constant[value=-2.2]()\n"
                             f"  %p : float = prim::Constant[value=1.7]()\n"
                             f"  %two : float = prim::Constant[value=2.0]()\n"
                             f"  %ten : float = prim::Constant[value=10.0]()\n"
                             f"  %m : float = prim::Constant[value=-0.5]()\n"
                             f"  %h : float = prim::Constant[value=0.5]()\n"
                             f"  %one : int = prim::Constant[value=1]()\n"
                             f"  %o : Tensor = {call}\n  return (%o)\n")
    return FusedKernel(graph)


def _median_pair(fused, eager, repeat: int, clock=time.perf_counter) -> tuple[float, float]:
    fused()
    eager()
    tf, te = [], []
    for _ in range(repeat):
        start = clock()
        fused()
        tf.append(clock() - start)
        start = clock()
        eager()
        te.append(clock() - start)
    return statistics.median(tf), statistics.median(te)


def _print_load() -> None:
    one, five, fifteen = os.getloadavg()
    print(f"load average (1, 5, 15 min): {one:.2f} {five:.2f} {fifteen:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    parser.add_argument("--size", type=int, default=1 << 22)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--cpu", action="store_true",
                        help="one thread, timed by this thread's CPU time (time.thread_time): "
                             "steadier than wall time on a machine other processes load")
    parser.add_argument("--free-cores", type=float, default=None,
                        help="take this many other cores as free instead of measuring them")
    args = parser.parse_intermixed_args()
    if args.threads or args.cpu:
        fusejit.set_num_threads(1 if args.cpu else args.threads)
    if args.free_cores is not None:
        cores.assume_free_cores(args.free_cores)
    _print_load()
    clock = time.thread_time if args.cpu else time.perf_counter
    rng = np.random.default_rng(0)
    print(f"{args.size} elements, median of {args.repeat}; ns per element"
          + (" of one thread's CPU time" if args.cpu else ""))
    print(f"{'op':12s} {'dtype':8s} {'fused':>8s} {'numpy':>8s} {'numpy/fused':>12s} "
          f"{'free':>5s}")
    slower = []
    for name in args.names or list(OPS):
        eager, (lo, hi), call = OPS[name]
        for dtype in (np.float32, np.float64):
            x = rng.uniform(lo, hi, args.size).astype(dtype)
            y = rng.uniform(lo, hi, args.size).astype(dtype)
            kernel = _kernel(call, dtype)
            binary = "%y" in call
            if eager is None:
                print(f"{name:12s} {np.dtype(dtype).name:8s} (no NumPy/SciPy form installed)")
                continue
            args_ = (x, y) if binary else (x,)
            with np.errstate(all="ignore"):
                tf, te = _median_pair(lambda k=kernel, a=x, b=y: k(a, b, 2.0),
                                      lambda f=eager, a=args_: f(*a), args.repeat, clock)
            ratio = te / tf
            if ratio < 1:
                slower.append(f"{name} {np.dtype(dtype).name}")
            print(f"{name:12s} {np.dtype(dtype).name:8s} {tf / args.size * 1e9:8.2f} "
                  f"{te / args.size * 1e9:8.2f} {ratio:11.2f}x {cores.spare_cores():5.1f}",
                  flush=True)
    print("slower than NumPy:", ", ".join(slower) or "none")
    _print_load()


if __name__ == "__main__":
    main()
