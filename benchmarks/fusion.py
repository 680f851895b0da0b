"""The whole pipeline (script, specialise, fuse, compile kernels, interpret) against the
alternatives, measured in the same run.

    python benchmarks/fusion.py [--repeat N] [--quick]

Cases: the LSTM cell's pointwise part (gates in, h and c out) at batch 1024 x hidden 4096 and
64 x 512, float32; a 12-op elementwise chain on 2^24 float32 values; the chain with
``log1p(abs(x * y))`` added (float32), and the chain in float64; softmax and layer norm of a
1024 x 1024 float32 matrix (fusejit has no max/mean yet: softmax is exp(x) / sum(exp(x)), the
mean a sum times 1/n), and as NumPy writes them with max and mean (softmax, layer norm,
log-sum-exp, each one row-reduction kernel in fusejit, and standardised columns, one column
kernel); a 100-step LSTM loop with batch 1, hidden 64 (one jitted function holding the loop).
Each is a NumPy-spelled function decorated with ``fusejit.jit``; the same function undecorated
is "NumPy eager". NumExpr, PyTorch eager, TorchScript, ``torch.compile`` and ``jax.jit`` (its
own spelling of each case, with ``jax.numpy``) run when installed. Prints median times and the
ratio NumPy-eager-time / this-time (higher is faster).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import types

import numpy as np

import fusejit
from fusejit import examples
from fusejit import ops as F
from fusejit.examples import lstm_loop, lstm_pointwise

os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
# Steady-state times: kernels compile and plans take their engine on the first call (tiering
# only changes the first calls; benchmarks/cold_start.py measures those).
os.environ.setdefault("FUSEJIT_TIERING", "0")


def chain(x, y):
    a = x * y
    b = a + x
    c = F.sigmoid(b)
    d = c * 0.5
    e = d - y
    f = np.tanh(e)
    g = f * f
    h = g + a
    i = np.exp(h)
    j = i / b
    k = -j
    return F.relu(k)


def log1p_chain(x, y):
    a = x * y
    b = a + x
    c = F.sigmoid(b)
    d = c * 0.5
    e = d - y
    f = np.tanh(e)
    g = f * f
    h = g + np.log1p(np.abs(a))
    i = np.exp(h)
    j = i / b
    k = -j
    return F.relu(k)


def softmax(x):
    e = np.exp(x)
    return e / np.sum(e, axis=1, keepdims=True)


def layer_norm(x, gamma, beta, inv_n: float):
    mu = np.sum(x, axis=1, keepdims=True) * inv_n
    d = x - mu
    var = np.sum(d * d, axis=1, keepdims=True) * inv_n
    return d / np.sqrt(var + 1e-5) * gamma + beta


# -- row reductions as NumPy code writes them (one row-reduction kernel each in fusejit) ---------

ROW_REDUCTIONS = (examples.softmax, examples.layer_norm, examples.log_sum_exp,
                  examples.standardize_columns)


def with_module(fn, module):
    """``fn`` with ``np`` bound to ``module`` (``jax.numpy``): the same code for jax.jit."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": module}, fn.__name__)


def reduction_alternatives() -> dict[str, tuple]:
    """``jax.jit``, PyTorch eager and ``torch.compile`` versions of ``ROW_REDUCTIONS``, for
    what is installed, with the function converting an array (outside the timed call)."""
    found: dict[str, tuple] = {}
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        fns = tuple(jax.jit(with_module(f, jnp)) for f in ROW_REDUCTIONS)
        found["jax.jit"] = (lambda a: jnp.asarray(a),
                            tuple(lambda *d, f=f: f(*d).block_until_ready() for f in fns))
    try:
        import torch
    except ImportError:
        return found

    def softmax_t(x):
        e = torch.exp(x - x.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    def layer_norm_t(x, gamma, beta):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + 1e-5) * gamma + beta

    def log_sum_exp_t(x):
        m = x.amax(-1, keepdim=True)
        return torch.log(torch.exp(x - m).sum(-1, keepdim=True)) + m

    def standardize_t(x):
        return (x - x.mean(0)) / x.std(0, correction=0)

    eager = (softmax_t, layer_norm_t, log_sum_exp_t, standardize_t)
    found["torch eager"] = (torch.from_numpy, eager)
    try:
        found["torch.compile"] = (torch.from_numpy, tuple(torch.compile(f) for f in eager))
    except Exception as why:  # noqa: BLE001 - report and go on
        print(f"(torch.compile unavailable: {why})")
    return found


def reduction_cases(side: int, repeat: int) -> None:
    """Softmax, layer norm, log-sum-exp and standardised columns of a side x side float32
    matrix."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((side, side)).astype(np.float32)
    gamma = rng.standard_normal(side).astype(np.float32)
    beta = rng.standard_normal(side).astype(np.float32)
    others = reduction_alternatives()
    cases = zip(("softmax", "layer norm", "log-sum-exp", "standardised columns"),
                ROW_REDUCTIONS, ((x,), (x, gamma, beta), (x,), (x,)))
    for index, (title, fn, data) in enumerate(cases):
        jitted = fusejit.jit(fn)
        got, want = jitted(*data), fn(*data)
        err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1)))
        times = {"fusejit": median_time(lambda f=jitted, d=data: f(*d), repeat),
                 "numpy eager": median_time(lambda f=fn, d=data: f(*d), repeat)}
        for name, (convert, fns) in others.items():
            converted = tuple(convert(a) for a in data)
            times[name] = median_time(lambda f=fns[index], d=converted: f(*d), repeat)
        report(f"{title} (max, mean, std: reduction kernels) {side}x{side} float32 "
               f"(max rel diff {err:.1e})", times)


def median_time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(name: str, times: dict[str, float]) -> None:
    base = times["numpy eager"]
    print(name)
    for key, t in times.items():
        print(f"  {key:16s} {t * 1e3:10.3f} ms   numpy/this = {base / t:6.2f}x")


def numexpr_cases():
    try:
        import numexpr as ne
    except ImportError:
        return None

    def lstm(cx, ig, hg, b_ih, b_hh):
        hidden = cx.shape[1]
        gates = ne.evaluate("ig + hg + b_ih + b_hh")
        i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
        cy = ne.evaluate("1 / (1 + exp(-f)) * cx + 1 / (1 + exp(-i)) * tanh(g)")
        return ne.evaluate("1 / (1 + exp(-o)) * tanh(cy)"), cy

    def chain_ne(x, y):
        return ne.evaluate("where(-(exp(tanh(0.5 / (1 + exp(-(x * y + x))) - y) ** 2 + x * y)"
                           " / (x * y + x)) > 0, -(exp(tanh(0.5 / (1 + exp(-(x * y + x))) - y)"
                           " ** 2 + x * y) / (x * y + x)), 0)")

    return lstm, chain_ne


def torch_cases():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(os.cpu_count() or 1)

    def lstm(cx, ig, hg, b_ih, b_hh):
        gates = ig + hg + b_ih + b_hh
        i, f, g, o = gates.chunk(4, 1)
        cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(cy), cy

    def chain_t(x, y):
        a = x * y
        b = a + x
        e = torch.sigmoid(b) * 0.5 - y
        f = torch.tanh(e)
        return torch.relu(-(torch.exp(f * f + a) / b))

    def loop(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
        for _ in range(steps):
            gates = x @ w_ih.t() + h @ w_hh.t() + b_ih + b_hh
            i, f, g, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def log1p_t(x, y):
        a = x * y
        b = a + x
        f = torch.tanh(torch.sigmoid(b) * 0.5 - y)
        return torch.relu(-(torch.exp(f * f + torch.log1p(torch.abs(a))) / b))

    def softmax_t(x):
        e = torch.exp(x)
        return e / torch.sum(e, 1, keepdim=True)

    def layer_norm_t(x, gamma, beta, inv_n: float):
        mu = torch.sum(x, 1, keepdim=True) * inv_n
        d = x - mu
        var = torch.sum(d * d, 1, keepdim=True) * inv_n
        return d / torch.sqrt(var + 1e-5) * gamma + beta

    fns = (lstm, chain_t, loop, log1p_t, softmax_t, layer_norm_t)
    variants = {"torch eager": fns}
    try:
        variants["torchscript"] = tuple(torch.jit.script(f) for f in fns)
    except Exception as why:  # noqa: BLE001 - report and go on
        print(f"(TorchScript unavailable: {why})")
    try:
        variants["torch.compile"] = tuple(torch.compile(f) for f in fns)
    except Exception as why:  # noqa: BLE001
        print(f"(torch.compile unavailable: {why})")
    return torch, variants


# --- jax.jit columns (when jax is installed) -----------------------------------------------

def jax_cases():
    """name -> ``jax.jit`` of the case's NumPy function spelled with ``jax.numpy``, or None."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)       # (the float64 chain stays float64)

    def sigmoid(v):
        return 1 / (1 + jnp.exp(-v))

    def lstm(cx, ig, hg, b_ih, b_hh):
        gates = ig + hg + b_ih + b_hh
        i, f, g, o = jnp.split(gates, 4, axis=1)
        cy = sigmoid(f) * cx + sigmoid(i) * jnp.tanh(g)
        return sigmoid(o) * jnp.tanh(cy), cy

    def chain_j(x, y, log1p=False):
        a = x * y
        b = a + x
        f = jnp.tanh(sigmoid(b) * 0.5 - y)
        h = f * f + (jnp.log1p(jnp.abs(a)) if log1p else a)
        return jnp.maximum(-(jnp.exp(h) / b), 0)

    def softmax_j(x):
        e = jnp.exp(x)
        return e / jnp.sum(e, axis=1, keepdims=True)

    def layer_norm_j(x, gamma, beta, inv_n):
        mu = jnp.sum(x, axis=1, keepdims=True) * inv_n
        d = x - mu
        var = jnp.sum(d * d, axis=1, keepdims=True) * inv_n
        return d / jnp.sqrt(var + 1e-5) * gamma + beta

    fns = {"lstm": lstm, "chain": chain_j, "log1p": lambda x, y: chain_j(x, y, True),
           "softmax": softmax_j, "layer_norm": layer_norm_j}
    return jax, {name: jax.jit(fn) for name, fn in fns.items()}


def jax_time(jx, name: str | None, data: tuple, repeat: int) -> dict[str, float]:
    """{"jax.jit": median time} of case ``name`` on ``data`` (moved to jax first), or {}."""
    if not jx or name is None:
        return {}
    jax, fns = jx
    fn = fns[name]
    jdata = tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in data)
    return {"jax.jit": median_time(lambda: jax.block_until_ready(fn(*jdata)), repeat)}


# --- one case ----------------------------------------------------------------------------------

def run_case(title: str, fn, data: tuple, th, torch_index: int, repeat: int, jx=None,
             jax_name: str | None = None) -> None:
    """One case: fusejit against NumPy eager (and PyTorch's variants at ``torch_index``, and
    jax.jit's ``jax_name`` case)."""
    jitted = fusejit.jit(fn)
    got, want = jitted(*data), fn(*data)
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1)))
    times = {"fusejit": median_time(lambda: jitted(*data), repeat),
             "numpy eager": median_time(lambda: fn(*data), repeat)}
    if th:
        torch, variants = th
        tdata = tuple(torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in data)
        for name, fns in variants.items():
            times[name] = median_time(lambda f=fns[torch_index]: f(*tdata), repeat)
    times.update(jax_time(jx, jax_name, data, repeat))
    report(f"{title} (max rel diff {err:.1e})", times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    ne_cases = numexpr_cases()
    th = torch_cases()
    jx = jax_cases()

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    sizes = ((64, 128),) if args.quick else ((1024, 4096), (64, 512))
    jit_lstm = fusejit.jit(lstm_pointwise)
    for batch, hidden in sizes:
        data = (f32(batch, hidden), f32(batch, 4 * hidden), f32(batch, 4 * hidden),
                f32(4 * hidden), f32(4 * hidden))
        got, want = jit_lstm(*data), lstm_pointwise(*data)
        err = max(float(np.max(np.abs(a - b))) for a, b in zip(got, want))
        times = {"fusejit": median_time(lambda d=data: jit_lstm(*d), args.repeat),
                 "numpy eager": median_time(lambda d=data: lstm_pointwise(*d), args.repeat)}
        if ne_cases:
            times["numexpr"] = median_time(lambda d=data: ne_cases[0](*d), args.repeat)
        if th:
            torch, variants = th
            tdata = tuple(torch.from_numpy(a) for a in data)
            for name, fns in variants.items():
                times[name] = median_time(lambda f=fns[0], d=tdata: f(*d), args.repeat)
        times.update(jax_time(jx, "lstm", data, args.repeat))
        report(f"LSTM cell pointwise {batch}x{hidden} float32 (max abs diff {err:.1e})", times)

    n = 1 << (16 if args.quick else 24)
    x, y = rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    jit_chain = fusejit.jit(chain)
    got, want = jit_chain(x, y), chain(x, y)
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1)))
    times = {"fusejit": median_time(lambda: jit_chain(x, y), args.repeat),
             "numpy eager": median_time(lambda: chain(x, y), args.repeat)}
    if ne_cases:
        times["numexpr"] = median_time(lambda: ne_cases[1](x, y), args.repeat)
    if th:
        torch, variants = th
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        for name, fns in variants.items():
            times[name] = median_time(lambda f=fns[1]: f(tx, ty), args.repeat)
    times.update(jax_time(jx, "chain", (x, y), args.repeat))
    report(f"12-op chain on 2^{n.bit_length() - 1} float32 (max rel diff {err:.1e})", times)

    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    run_case(f"12-op chain with log1p on 2^{n.bit_length() - 1} float32", log1p_chain, (x, y),
             th, 3, args.repeat, jx, "log1p")
    run_case(f"12-op chain on 2^{n.bit_length() - 1} float64", chain, (x64, y64), th, 1,
             args.repeat, jx, "chain")
    side = 128 if args.quick else 1024
    m = rng.standard_normal((side, side)).astype(np.float32)
    run_case(f"softmax {side}x{side} float32", softmax, (m,), th, 4, args.repeat, jx, "softmax")
    gamma, beta = f32(side), f32(side)
    run_case(f"layer norm {side}x{side} float32", layer_norm, (m, gamma, beta, 1.0 / side), th,
             5, args.repeat, jx, "layer_norm")

    reduction_cases(side, args.repeat)

    hidden, steps = 64, 100
    data = (f32(1, hidden), f32(1, hidden), f32(1, hidden), f32(4 * hidden, hidden) * 0.1,
            f32(4 * hidden, hidden) * 0.1, f32(4 * hidden), f32(4 * hidden))
    jit_loop = fusejit.jit(lstm_loop)
    got, want = jit_loop(*data, steps), lstm_loop(*data, steps)
    err = max(float(np.max(np.abs(a - b))) for a, b in zip(got, want))
    times = {"fusejit": median_time(lambda: jit_loop(*data, steps), args.repeat),
             "numpy eager": median_time(lambda: lstm_loop(*data, steps), args.repeat)}
    if th:
        torch, variants = th
        tdata = tuple(torch.from_numpy(a) for a in data)
        for name, fns in variants.items():
            times[name] = median_time(lambda f=fns[2]: f(*tdata, steps), args.repeat)
    report(f"{steps}-step LSTM loop, batch 1, hidden {hidden} (max abs diff {err:.1e})", times)


if __name__ == "__main__":
    main()
