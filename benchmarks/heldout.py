"""Held-out workloads, written to find fusejit's weaknesses (not tuned for): NumPy code as a
user would write it, decorated with ``fusejit.jit``, against NumPy eager, ``numba.njit(
parallel=True)`` of the same function, and ``jax.jit`` of the same function with ``np`` bound
to ``jax.numpy``, all measured in the same run.

    python benchmarks/heldout.py [--repeat N] [--quick] [--only SUBSTRING] [--cpu]
                                 [--no-numba] [--no-jax] [--no-chains] [--no-rows]
    python benchmarks/heldout.py --random N [--seed S] [--dtypes float32,float64]
                                 [--lowest K] [--source] [--cpu] [--log2n L] ...

- **Chains:** 16 elementwise chains of 8-14 ops each over #15's op list (exp, expm1, the log
  family, trigonometric and inverse, hyperbolic, sigmoid written ``1 / (1 + np.exp(-x))``,
  ``scipy.special`` erf/erfc/gammaln, pow with tensor and constant exponents, sqrt,
  ``1 / np.sqrt``, clip, where, maximum, abs), on 2^24 values, float32 and float64.
- **Random chains** (``--random N``): N chains per dtype from seeds S, S + 1, ...
  (``random_chain``): 8-14 ops drawn uniformly from #15's list (pow in its three overloads),
  each in a NumPy spelling with the guard a user writes (``np.abs``, ``np.clip``, ``+ eps``),
  wired at random over 1-3 inputs; then the minimum and median speed-up and the lowest chains
  (``--source`` prints them). The same seed gives the same chain on every machine.
- **Rows:** softmax, log-softmax, layer norm, RMS norm, log-sum-exp, standardisation,
  variance/std, cosine similarity per row, row L2 normalisation, column centring and
  softmax over columns, min-max
  scaling, entropy, in several spellings (``keepdims=True`` against ``[:, None]``, ``x.max``
  against ``np.max``, ``axis=-1`` against ``axis=1``), at 1024 x 1024, 4096 x 256, 256 x 4096
  and 3-d shapes.

Every result is checked against NumPy's (max relative difference printed). A NumPy spelling
that fusejit, numba or jax rejects prints as ``refused`` with the first line of the error.
Ratios are NumPy-eager time / that time (higher is faster), medians of ``--repeat`` calls after
one warm-up call (fusejit's race against NumPy, ``frontend/race.py``, runs among them: "NumPy's
side" where it gave the size to the function as written). numba and jax compile before
timing. The machine is shared: single rows move by several percent between runs. ``--cpu``
measures the process's CPU time with every runtime on one thread (fusejit, numba, XLA), the
figure that holds on a busy machine where wall times follow the load (a 1024 x 1024 NumPy
layer norm took 5 to 200 ms within one run at load 15).
"""

from __future__ import annotations

import argparse
import linecache
import os
import random
import statistics
import sys
import time
import types

import numpy as np
from scipy import special

import fusejit

os.environ.setdefault("FUSEJIT_TIERING", "0")


# --- elementwise chains (x, y uniform in [-1, 1]) ------------------------------------------

def gelu_tanh(x, y):
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    g = 0.5 * x * (1.0 + np.tanh(inner))
    return g * y + 1 / (1 + np.exp(-y))


def gelu_erf(x, y):
    g = x * 0.5 * (1.0 + special.erf(x * 0.7071067811865476))
    return np.clip(g - special.erfc(y) * 0.25, -0.5, 2.0)


def mish_softplus(x, y):
    sp = np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    m = y * np.tanh(sp)
    return np.where(m > 0, m, 0.01 * m) - sp


def trig_mix(x, y):
    a = np.sin(x) * np.cos(y)
    b = np.arctan2(a, x + 1.5)
    c = np.tan(b * 0.5)
    d = np.arcsin(np.clip(c, -1.0, 1.0))
    return d + np.arccos(y * 0.9) - np.arctan(x)


def hyperbolic(x, y):
    a = np.sinh(x) + np.cosh(y)
    b = np.tanh(a * y)
    c = np.expm1(b) / (1.0 + x * x)
    return np.where(c > 0, c, 0.1 * c) + np.exp(-np.abs(y))


def log_family(x, y):
    p = x * x + 1.0
    q = np.log(p) + np.log2(p + y * y)
    r = np.log10(np.abs(q) + 1e-3)
    return np.sqrt(np.abs(r * x)) - np.log1p(y * y)


def special_fns(x, y):
    a = special.erf(x * 0.7) + special.erfc(y)
    b = special.gammaln(np.abs(a) + 0.5)
    c = b * np.exp(-x * x)
    return np.maximum(c, -1.0) + 1 / np.sqrt(y * y + 1.0)


def pow_tensor(x, y):
    b = np.abs(x) + 0.5
    a = b ** y
    c = np.power(b, 1.5) + a
    d = c ** 0.75
    return np.sqrt(d) * np.sign(x) - 1.0 / (d + 1.0)


def logistic_loss(x, y):
    p = 1 / (1 + np.exp(-3.0 * x))
    p = np.clip(p, 1e-6, 1 - 1e-6)
    t = (y > 0).astype(x.dtype)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def gauss_pdf(x, y):
    s = np.abs(y) + 0.1
    z = (x - 0.25) / s
    return np.exp(-0.5 * z * z) / (s * np.sqrt(2 * np.pi)) + np.log(s)


def lennard_jones(x, y):
    r = np.sqrt(x * x + y * y) + 0.5
    inv = 1.0 / r
    inv6 = inv ** 6
    e = 4.0 * (inv6 * inv6 - inv6)
    return np.clip(e, -10.0, 10.0) * np.cos(r)


def haversine(x, y):
    dlat = (y - x) * 0.5
    dlon = (x + y) * 0.25
    a = np.sin(dlat) ** 2 + np.cos(x) * np.cos(y) * np.sin(dlon) ** 2
    return 2.0 * np.arcsin(np.sqrt(a))


def piecewise(x, y):
    a = np.where(x > 0, np.log1p(x), np.expm1(x))
    b = np.where(np.abs(y) < 0.5, y, np.sign(y) * 0.5)
    return np.minimum(a * b, 0.2) + np.maximum(np.abs(a), np.abs(b)) * 0.5


def black_scholes(x, y):
    s = 100.0 + 10.0 * x
    v = 0.2 + 0.1 * np.abs(y)
    d1 = (np.log(s / 100.0) + 0.5 * v * v) / v
    d2 = d1 - v
    nd1 = 0.5 * special.erfc(-d1 * 0.7071067811865476)
    nd2 = 0.5 * special.erfc(-d2 * 0.7071067811865476)
    return s * nd1 - 100.0 * nd2


def rsqrt_angle(x, y):
    inv = 1 / np.sqrt(x * x + y * y + 1e-6)
    u = x * inv
    v = y * inv
    return np.arctan2(v, u) * np.reciprocal(1.0 + u * u) + np.exp2(v)


def log_sigmoid_mix(x, y):
    s = 1.0 / (1.0 + np.exp(-x))
    ls = np.log(s)
    t = np.tanh(y) * s
    return np.abs(ls - t) ** 0.5 + np.log10(1.0 + s * s)


CHAINS = (gelu_tanh, gelu_erf, mish_softplus, trig_mix, hyperbolic, log_family, special_fns,
          pow_tensor, logistic_loss, gauss_pdf, lennard_jones, haversine, piecewise,
          black_scholes, rsqrt_angle, log_sigmoid_mix)


# --- seeded random chains ----------------------------------------------------------------------
# Each op of #15's list as NumPy users spell it, with the guard a user writes in front of a
# domain (``np.abs``, ``np.clip``, ``+ eps``) so values stay finite; pow in its three overloads
# (tensor ** tensor, tensor ** constant, constant ** tensor). ``{a}``: the operand, ``{b}``: a
# second value (atan2, tensor ** tensor). Each spelling comes with a bound on |result| given
# the bound B on |a|; an operand whose result could pass 1e6 is clipped to [-8, 8] first, as a
# user rescales a value before a power.
SPELLINGS = {
    "exp": (("np.exp(-np.abs({a}))", lambda b: 1.0),
            ("np.exp(np.clip({a}, -4.0, 4.0))", lambda b: 55.0)),
    "expm1": (("np.expm1(np.clip({a}, -3.0, 3.0))", lambda b: 20.0),),
    "log": (("np.log(np.abs({a}) + 1e-3)", lambda b: 7.0 + np.log1p(b)),
            ("np.log(1.0 + {a} * {a})", lambda b: 2.0 * np.log1p(b))),
    "log1p": (("np.log1p(np.abs({a}))", lambda b: np.log1p(b)),),
    "log2": (("np.log2(np.abs({a}) + 0.5)", lambda b: 1.0 + np.log2(b + 1.0)),),
    "log10": (("np.log10({a} * {a} + 1e-2)", lambda b: 2.0 + 2.0 * np.log10(b + 1.0)),),
    "sin": (("np.sin({a})", lambda b: 1.0),),
    "cos": (("np.cos({a})", lambda b: 1.0),),
    "tan": (("np.tan(np.clip({a}, -1.4, 1.4))", lambda b: 6.0),),
    "asin": (("np.arcsin(np.clip({a}, -1.0, 1.0))", lambda b: 1.6),),
    "acos": (("np.arccos(np.clip({a}, -1.0, 1.0))", lambda b: 3.2),),
    "atan": (("np.arctan({a})", lambda b: 1.6),),
    "atan2": (("np.arctan2({a}, {b})", lambda b: 3.2),),
    "sinh": (("np.sinh(np.clip({a}, -3.0, 3.0))", lambda b: 10.1),),
    "cosh": (("np.cosh(np.clip({a}, -3.0, 3.0))", lambda b: 10.1),),
    "tanh": (("np.tanh({a})", lambda b: 1.0),),
    "sigmoid": (("1.0 / (1.0 + np.exp(-{a}))", lambda b: 1.0),),
    "erf": (("special.erf({a})", lambda b: 1.0),),
    "erfc": (("special.erfc({a})", lambda b: 2.0),),
    "lgamma": (("special.gammaln(np.abs({a}) + 0.5)", lambda b: 1.0 + (b + 1.0) ** 1.5),
               ("special.gammaln(1.0 + {a} * {a})", lambda b: 1.0 + (b + 1.0) ** 3)),
    "pow": (("(np.abs({a}) + 0.5) ** np.clip({b}, -2.0, 2.0)", lambda b: 4.0 + (b + 1.0) ** 2),
            ("np.abs({a}) ** 1.5", lambda b: b ** 1.5),
            ("np.power(np.abs({a}) + 0.1, -0.75)", lambda b: 5.7),
            ("np.abs({a}) ** (1 / 3)", lambda b: b ** (1 / 3)),
            ("{a} ** 2", lambda b: b * b),
            ("2.0 ** np.clip({a}, -4.0, 4.0)", lambda b: 16.0)),
    "rsqrt": (("1.0 / np.sqrt(np.abs({a}) + 1e-3)", lambda b: 32.0),),
    "reciprocal": (("np.reciprocal(1.0 + np.abs({a}))", lambda b: 1.0),
                   ("1.0 / (1.0 + {a} * {a})", lambda b: 1.0)),
}
_LIMIT = 1e6


def random_chain(seed: int):
    """(a function of 1-3 arrays, its op names): 8-14 ops drawn from ``SPELLINGS`` (glue
    arithmetic not counted), each applied to the latest value (60%) or any earlier one, 40% of
    the results combined with an earlier value by +, - or *; the function returns the sum of
    the values nothing else read. Its source is in ``linecache``, so fusejit can script it."""
    rng = random.Random(seed)
    bound = {name: 2.0 for name in ("x", "y", "z")[:rng.randint(1, 3)]}   # inputs in [-2, 2]
    params = list(bound)
    read: set[str] = set()
    lines, ops = [], []
    done: set[tuple[str, str]] = set()
    for k in range(rng.randint(8, 14)):
        values = list(bound)
        while True:         # (not the same spelling of the same value twice)
            op = rng.choice(list(SPELLINGS))
            spelling, grows = rng.choice(SPELLINGS[op])
            a = values[-1] if rng.random() < 0.6 else rng.choice(values)
            if (spelling, a) not in done:
                break
        done.add((spelling, a))
        b = rng.choice([v for v in values if v != a] or values)
        a_text, a_bound = a, bound[a]
        if grows(a_bound) > _LIMIT:
            a_text, a_bound = f"np.clip({a}, -8.0, 8.0)", 8.0
        text, out = spelling.format(a=a_text, b=b), grows(a_bound)
        read.update((a, b) if "{b}" in spelling else (a,))
        if rng.random() < 0.4:
            w = rng.choice(values)
            sign = rng.choice("+-*" if out * bound[w] <= _LIMIT else "+-")
            text, out = f"{text} {sign} {w}", (out * bound[w] if sign == "*" else out + bound[w])
            read.add(w)
        name = f"v{k}"
        lines.append(f"    {name} = {text}")
        bound[name] = out
        ops.append(op)
    leaves = [v for v in bound if v not in read]
    lines.append("    return " + " + ".join(leaves))
    fname = f"chain_{seed}"
    file = f"<heldout random chain {seed}>"
    source = f"def {fname}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    linecache.cache[file] = (len(source), None, source.splitlines(True), file)
    space = {"np": np, "special": special}
    exec(compile(source, file, "exec"), space)      # (the benchmark's own generated text)
    return space[fname], ops


def run_random(args, others: tuple) -> None:
    """``args.random`` chains per dtype from seeds ``args.seed``, ...: each row, then per
    dtype the distribution of fusejit's speed-ups and the lowest chains with their source."""
    n = 1 << (14 if args.quick else args.log2n)
    rng = np.random.default_rng(11)
    seeds = range(args.seed, args.seed + args.random)
    for dtype in (np.dtype(name) for name in args.dtypes.split(",")):
        ratios = []
        for seed in seeds:
            fn, ops = random_chain(seed)
            title = f"random {seed} {np.dtype(dtype).name} {len(ops)} ops"
            data = tuple(rng.uniform(-2, 2, n).astype(dtype)
                         for _ in range(fn.__code__.co_argcount))
            with np.errstate(all="ignore"):
                row = measure(fn, data, args.repeat, others)
            show(f"{title} {','.join(ops)}", row)
            if not isinstance(row.get("fusejit"), str):
                ratios.append((row["numpy"] / row["fusejit"], seed, ops))
        if not ratios:
            continue
        ratios.sort()
        values = [r for r, _, _ in ratios]
        goal = 8.0 if dtype == np.float32 else 4.0
        print(f"== {np.dtype(dtype).name}: {len(values)} chains, speed-up min {values[0]:.2f}x"
              f" median {statistics.median(values):.2f}x max {values[-1]:.2f}x; "
              f"{sum(v >= goal for v in values)} at >= {goal:g}x", flush=True)
        for ratio, seed, ops in ratios[:args.lowest]:
            print(f"   low {ratio:6.2f}x seed {seed}: {','.join(ops)}")
            if args.source:
                print("".join(linecache.getlines(f"<heldout random chain {seed}>")))


# --- row workloads -----------------------------------------------------------------------------

def softmax_np_max(x):
    e = np.exp(x - np.max(x, axis=1)[:, None])
    return e / np.sum(e, axis=1)[:, None]


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    s = x - m
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def layer_norm_var(x, g, b):
    mu = x.mean(1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g + b


def rms_norm(x, g):
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-6) * g


def log_sum_exp_1d(x):
    m = np.max(x, axis=1)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=1))


def standardise_rows(x):
    return (x - x.mean(axis=1)[:, None]) / x.std(axis=1)[:, None]


def row_var_std(x):
    return np.var(x, axis=-1) + x.std(axis=-1)


def cosine_rows(a, b):
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def l2_normalise(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def centre_columns(x):
    return x - x.mean(axis=0)


def softmax_columns(x):
    e = np.exp(x - x.max(axis=0))
    return e / e.sum(axis=0)


def minmax_rows(x):
    lo = x.min(axis=1, keepdims=True)
    hi = np.max(x, axis=1, keepdims=True)
    return (x - lo) / (hi - lo)


def entropy_rows(x):
    p = np.exp(x - x.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    return -np.sum(p * np.log(p), axis=-1)


def max_abs_scale(x):
    return x / np.max(np.abs(x), axis=-1, keepdims=True)


def softmax_temperature(x):
    z = x / 0.7
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# (function, shapes); every row workload takes float32 arrays of the first shape, then the
# per-column parameters its signature asks for (g, b: vectors over the last axis).
ROWS = (
    (softmax_np_max, ((1024, 1024), (4096, 256))),
    (log_softmax, ((1024, 1024), (256, 4096), (16, 256, 256))),
    (layer_norm_var, ((1024, 1024), (4096, 256), (256, 4096))),
    (rms_norm, ((1024, 1024), (8, 512, 256))),
    (log_sum_exp_1d, ((1024, 1024), (256, 4096))),
    (standardise_rows, ((1024, 1024), (4096, 256))),
    (row_var_std, ((1024, 1024), (256, 4096))),
    (cosine_rows, ((1024, 1024), (4096, 256))),
    (l2_normalise, ((1024, 1024), (4096, 256))),
    (centre_columns, ((1024, 1024), (256, 4096))),
    (softmax_columns, ((1024, 1024), (256, 4096))),
    (minmax_rows, ((1024, 1024),)),
    (entropy_rows, ((1024, 1024), (16, 256, 256))),
    (max_abs_scale, ((1024, 1024),)),
    (softmax_temperature, ((1024, 1024), (16, 256, 256))),
)


# --- the alternatives ----------------------------------------------------------------------

def rebound(fn, **names):
    """``fn`` with its module globals ``names`` replaced (``np`` -> ``jax.numpy``, ...)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, **names}, fn.__name__)


def jax_of(fn):
    try:
        import jax
        import jax.numpy as jnp
        import jax.scipy.special as jspecial
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(rebound(fn, np=jnp, special=jspecial))
    return lambda *a: jax.block_until_ready(jitted(*a)), lambda a: jax.device_put(a)


def numba_of(fn):
    try:
        import numba
    except ImportError:
        return None
    return numba.njit(parallel=True)(fn), lambda a: a


CLOCK = [time.perf_counter]        # (--cpu: time.process_time)


def median_times(calls: dict, repeat: int) -> dict[str, float]:
    """{name: median seconds of ``repeat`` calls}, after one warm-up call each (the first,
    checked call compiled), the calls of one repetition in turn."""
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    clock = CLOCK[0]
    for _ in range(repeat):
        for name, call in calls.items():
            start = clock()
            call()
            times[name].append(clock() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def rel_diff(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float("inf")
    both_nan = np.isnan(got) & np.isnan(want)
    diff = np.where(both_nan, 0.0, np.abs(got - want) / np.maximum(np.abs(want), 1.0))
    return float(np.max(np.where(np.isnan(diff), np.inf, diff)))


def measure(fn, data: tuple, repeat: int, others: tuple) -> dict[str, str | float]:
    """{column: median seconds, or 'refused: why'}, and the relative differences; ``others``
    names the alternatives to run ("numba", "jax.jit"). The columns' calls alternate within
    each repetition, so a change of load moves them alike."""
    want = fn(*data)
    calls = {"numpy": lambda: fn(*data)}
    row: dict[str, str | float] = {}
    makers = {"fusejit": lambda f: (fusejit.jit(f), lambda a: a)}
    makers.update({name: make for name, make in (("numba", numba_of), ("jax.jit", jax_of))
                   if name in others})
    for name, make in makers.items():
        made = make(fn)
        if made is None:
            continue
        call, convert = made
        args = tuple(convert(a) for a in data)
        try:
            got = call(*args)
        except Exception as why:  # noqa: BLE001 - a refusal is a result here
            row[name] = "refused: " + (str(why).strip().splitlines() or [type(why).__name__])[0]
            continue
        calls[name] = lambda c=call, a=args: c(*a)
        row[name + " diff"] = rel_diff(got, want)
        if name == "fusejit":
            jitted = call
    row.update(median_times(calls, repeat))
    if "fusejit" in calls and any(r.runs == "numpy" for r in jitted.races):
        row["fusejit side"] = "numpy"    # (the race against NumPy: frontend/race.py)
    return row


def show(title: str, row: dict, file=sys.stdout) -> None:
    base = row["numpy"]
    cells = [f"{title:42s} numpy {base * 1e3:9.2f} ms"]
    for name in ("fusejit", "numba", "jax.jit"):
        value = row.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            cells.append(f"{name} {value[:70]}")
        else:
            side = " NumPy's side" if row.get(name + " side") == "numpy" else ""
            cells.append(f"{name} {base / value:6.2f}x (diff {row[name + ' diff']:.1e}){side}")
    print(" | ".join(cells), file=file, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--only", default="", help="run the cases whose title has this")
    parser.add_argument("--cpu", action="store_true", help="CPU time, one thread each")
    parser.add_argument("--log2n", type=int, default=24, help="chain length 2^N")
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--no-chains", action="store_true")
    parser.add_argument("--no-rows", action="store_true")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="N seeded random chains per dtype (instead of the hand ones)")
    parser.add_argument("--seed", type=int, default=0, help="the first random chain's seed")
    parser.add_argument("--lowest", type=int, default=5, help="random chains listed as low")
    parser.add_argument("--source", action="store_true", help="print the low chains' source")
    parser.add_argument("--dtypes", default="float32,float64", help="the random chains' dtypes")
    args = parser.parse_args()
    if args.cpu:
        # (before jax's first import: XLA reads its flags then)
        os.environ["XLA_FLAGS"] = ("--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")
        fusejit.set_num_threads(1)
        if not args.no_numba:
            import numba

            numba.set_num_threads(1)
        CLOCK[0] = time.process_time
    others = tuple(name for name, off in (("numba", args.no_numba), ("jax.jit", args.no_jax))
                   if not off)
    if args.random:
        run_random(args, others)
        return
    rng = np.random.default_rng(7)
    n = 1 << (14 if args.quick else args.log2n)
    for fn in () if args.no_chains else CHAINS:
        for dtype in (np.float32, np.float64):
            title = f"chain {fn.__name__} 2^{n.bit_length() - 1} {np.dtype(dtype).name}"
            if args.only not in title:
                continue
            data = tuple(rng.uniform(-1, 1, n).astype(dtype) for _ in range(2))
            show(title, measure(fn, data, args.repeat, others))
    for fn, shapes in () if args.no_rows else ROWS:
        for shape in shapes:
            if args.quick:
                shape = tuple(max(2, s // 16) for s in shape)
            title = f"rows {fn.__name__} {'x'.join(map(str, shape))} float32"
            if args.only not in title:
                continue
            names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
            # (the first argument, and every argument of a two-matrix workload, is a matrix)
            data = tuple(rng.standard_normal(shape if k == 0 or names[0] == "a" else shape[-1:])
                         .astype(np.float32) for k in range(len(names)))
            show(title, measure(fn, data, args.repeat, others))


if __name__ == "__main__":
    main()
