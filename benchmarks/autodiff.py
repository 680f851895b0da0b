"""One training step (forward and backward) with ``fusejit.value_and_grad``, against a
hand-written NumPy backward, and PyTorch eager autograd and ``jax.jit(jax.value_and_grad)``
where they are installed, measured in the same run.

    python benchmarks/autodiff.py [--repeats 7] [--steps 100] [--scaling 20,40,80]
                                  [--crossover 32,64,128,256,512] [--cpu] [--blas-threads]
                                  [--only mlp|lstm] [--sweep 32x32,256x256,1024x1024]

Cases: a 2-layer MLP with a squared loss, and the 100-step LSTM loop of ``fusejit.examples``
(``sum(h)`` of the last step; fusejit keeps the loop a loop when it differentiates: the forward
saves each iteration's values, the backward runs the iterations in reverse). Every result is
first checked against the NumPy backward. Times are medians of ``--repeats`` steps after a warm
step; the first fusejit call (differentiation, fusion, kernel compiles) is reported apart.
Fused kernels compile when a plan is built here (``FUSEJIT_TIERING=0``), so warm steps do not
include compiles. ``--scaling`` also times differentiating, fusing and lowering LSTM cells
written out one after another (a big straight-line graph): how compile time grows with size.
Small steps run as two compiled functions (``autodiff/whole.py``); ``--crossover`` times MLPs
of growing size both ways (``whole=True``/``whole=False``), which is how the size limit for
straight-line graphs was chosen. The MLP's floor is its five matmuls: the ``MLP matmuls only``
row times them alone in NumPy (a step cannot be faster than its BLAS calls on the same cores).
fusejit's compiled products run small products on one BLAS thread while NumPy's use its default
threads, which on a busy machine cost far more than they save: the ``MLP, one BLAS thread`` row
times both steps with NumPy's BLAS (the one fusejit calls too) held to one thread.
``--blas-threads`` times the MLP's products alone on one BLAS thread and on the default count,
which is how ``runtime/blas.py`` came to run such products on one thread.
``--sweep BxH,...`` times MLP steps of batch B, H inputs, H hidden units and 10 outputs, from
overhead-bound to BLAS-bound: the products alone in NumPy (the floor: a step that calls the same
BLAS cannot beat its five products by much), NumPy's step, fusejit's and jax's. NumPy's step
over the floor is the most any step calling that BLAS can gain over NumPy: where it is under 2,
so is a 2x goal. Each row also gives the load average and the cores ``runtime/blas.py`` found
free of other processes when it started.
The machine is shared and noisy: compare ratios from one run. ``--cpu`` times the process's
CPU time instead of wall time (with ``OPENBLAS_NUM_THREADS=1``: the work a step does, which a
loaded machine disturbs far less than wall time).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import statistics
import time
import warnings

os.environ.setdefault("FUSEJIT_TIERING", "0")

import numpy as np  # noqa: E402

import fusejit  # noqa: E402
from fusejit import ops as F  # noqa: E402
from fusejit.examples import lstm_loop  # noqa: E402


def mlp_loss(x, y, w1, b1, w2, b2):
    h = F.relu(x @ w1 + b1)
    d = h @ w2 + b2 - y
    return np.sum(d * d) * 0.5


def mlp_numpy(x, y, w1, b1, w2, b2):
    z = x @ w1 + b1
    h = np.maximum(z, 0.0)
    d = h @ w2 + b2 - y
    loss = 0.5 * np.sum(d * d)
    dh = d @ w2.T
    dz = dh * (z > 0)
    return loss, (x.T @ dz, dz.sum(0), h.T @ d, d.sum(0))


def lstm_loss(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
    hy, _ = lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh, steps)
    return np.sum(hy)


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_numpy(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
    tape = []
    for _ in range(steps):
        gates = x @ w_ih.T + h @ w_hh.T + b_ih + b_hh
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        c_new = f * c + i * g
        tanh_c = np.tanh(c_new)
        tape.append((h, c, i, f, g, o, tanh_c))
        h, c = o * tanh_c, c_new
    loss = np.sum(h)
    dh, dc = np.ones_like(h), np.zeros_like(c)
    dw_ih, dw_hh = np.zeros_like(w_ih), np.zeros_like(w_hh)
    db = np.zeros_like(b_ih)
    for h_prev, c_prev, i, f, g, o, tanh_c in reversed(tape):
        dc = dc + dh * o * (1.0 - tanh_c * tanh_c)
        dgates = np.concatenate([dc * g * i * (1.0 - i), dc * c_prev * f * (1.0 - f),
                                 dc * i * (1.0 - g * g), dh * tanh_c * o * (1.0 - o)], axis=1)
        dw_ih += dgates.T @ x
        dw_hh += dgates.T @ h_prev
        db += dgates.sum(0)
        dh, dc = dgates @ w_hh, dc * f
    return loss, (dw_ih, dw_hh, db, db.copy())


def mlp_matmuls(x, y, w1, b1, w2, b2):
    """The MLP step's matrix products alone (forward, then the backward's three)."""
    h = x @ w1
    d = h @ w2
    return d @ w2.T, x.T @ h, h.T @ d


CLOCK = time.perf_counter   # (time.process_time with --cpu)


@contextlib.contextmanager
def one_blas_thread():
    """NumPy's BLAS (which fusejit's compiled products call too) on one thread meanwhile: on
    a busy machine its default threads make NumPy's step several times slower, so this row is
    the like comparison. Yields False (nothing changed) where fusejit did not find that BLAS."""
    from fusejit.runtime.blas import numpy_blas

    found = numpy_blas()
    if found is None:
        yield False
        return
    get = ctypes.CFUNCTYPE(ctypes.c_int)(found.addresses["openblas_get_num_threads"])
    put = ctypes.CFUNCTYPE(None, ctypes.c_int)(found.addresses["openblas_set_num_threads"])
    before = get()
    put(1)
    try:
        yield True
    finally:
        put(before)


def timed(fns: list, repeats: int) -> list[float | None]:
    """Median seconds of each callable (None: not available), taking turns so that a busy
    spell on the shared machine hits all of them alike."""
    for fn in fns:
        if fn is not None:
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, spent in zip(fns, times):
            if fn is not None:
                start = CLOCK()
                fn()
                spent.append(CLOCK() - start)
    return [statistics.median(t) if t else None for t in times]


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:8.2f}ms" if seconds is not None else f"{'-':>10}"


def torch_step(kind: str, arrays: list, wrt: tuple[int, ...], steps: int):
    try:
        import torch
    except ImportError:
        return None
    tensors = [torch.tensor(a) for a in arrays]
    for i in wrt:
        tensors[i].requires_grad_(True)

    def run():
        if kind == "mlp":
            x, y, w1, b1, w2, b2 = tensors
            d = torch.relu(x @ w1 + b1) @ w2 + b2 - y
            loss = 0.5 * (d * d).sum()
        else:
            x, h, c, w_ih, w_hh, b_ih, b_hh = tensors
            for _ in range(steps):
                gates = x @ w_ih.t() + h @ w_hh.t() + b_ih + b_hh
                i, f, g, o = gates.chunk(4, 1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                h = torch.sigmoid(o) * torch.tanh(c)
            loss = h.sum()
        return torch.autograd.grad(loss, [tensors[i] for i in wrt])

    return run


def jax_step(fn, arrays: list, wrt: tuple[int, ...], static: tuple = ()):
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    step = jax.jit(jax.value_and_grad(fn, argnums=wrt), static_argnums=static)
    args = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]
    return lambda: jax.block_until_ready(step(*args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--scaling", default="",
                        help="also time compiling unrolled LSTM graphs of these step counts, "
                             "e.g. 20,40,80")
    parser.add_argument("--blas-threads", action="store_true",
                        help="also time the MLP's products on one and on the default number of "
                             "BLAS threads")
    parser.add_argument("--crossover", default="",
                        help="also time MLP steps of these widths compiled whole and on the "
                             "interpreter, e.g. 32,64,128,256,512")
    parser.add_argument("--only", choices=("mlp", "lstm"), default=None,
                        help="run only this case of the main table")
    parser.add_argument("--sweep", default="",
                        help="also time MLP steps of these sizes BxH (batch x hidden), e.g. "
                             "32x32,128x128,256x256,1024x1024")
    parser.add_argument("--cpu", action="store_true",
                        help="time the process's CPU time, not wall time")
    options = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if options.cpu else time.perf_counter
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore", RuntimeWarning)

    mlp_args = [rng.standard_normal((256, 128)), rng.standard_normal((256, 10)),
                rng.standard_normal((128, 256)) * 0.1, rng.standard_normal(256) * 0.1,
                rng.standard_normal((256, 10)) * 0.1, rng.standard_normal(10) * 0.1]
    hidden = 64
    lstm_args = [rng.standard_normal((16, 32)), rng.standard_normal((16, hidden)),
                 rng.standard_normal((16, hidden)),
                 rng.standard_normal((4 * hidden, 32)) * 0.1,
                 rng.standard_normal((4 * hidden, hidden)) * 0.1,
                 rng.standard_normal(4 * hidden) * 0.1, rng.standard_normal(4 * hidden) * 0.1]
    cases = [
        ("MLP 256x128-256-10", "mlp", mlp_loss, mlp_numpy, mlp_args, (2, 3, 4, 5), ()),
        (f"LSTM {options.steps} steps, 16x64", "lstm", lstm_loss, lstm_numpy,
         lstm_args + [options.steps], (3, 4, 5, 6), (7,)),
    ]
    print(f"{'case':28} {'first call':>10} {'fusejit':>10} {'numpy':>10} {'torch':>10} "
          f"{'jax':>10}  fusejit/numpy  fusejit/jax")
    for name, kind, fn, numpy_fn, args, wrt, static in cases:
        if options.only not in (None, kind):
            continue
        step = fusejit.value_and_grad(fn, argnums=wrt)
        start = time.perf_counter()
        value, grads = step(*args)
        first = time.perf_counter() - start
        ref_value, ref_grads = numpy_fn(*args)
        np.testing.assert_allclose(value, ref_value, rtol=1e-9)
        for got, want in zip(grads, ref_grads):
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        jax_fn = _jax_version(kind)
        t_fusejit, t_numpy, t_torch, t_jax = timed(
            [lambda s=step, a=args: s(*a), lambda f=numpy_fn, a=args: f(*a),
             torch_step(kind, arrays, wrt, options.steps),
             jax_fn and jax_step(jax_fn, args, wrt, static)], options.repeats)
        vs_jax = f"{t_fusejit / t_jax:10.2f}x" if t_jax else f"{'-':>11}"
        print(f"{name:28} {first:9.1f}s {_ms(t_fusejit)} {_ms(t_numpy)} {_ms(t_torch)} "
              f"{_ms(t_jax)}  {t_fusejit / t_numpy:12.2f}x {vs_jax}")
        if kind == "mlp":
            (t_blas,) = timed([lambda a=args: mlp_matmuls(*a)], options.repeats)
            print(f"{'MLP matmuls only (NumPy)':28} {'':10} {'':10} {_ms(t_blas)}")
            with one_blas_thread() as limited:
                if limited:
                    t_one, t_numpy_one = timed([lambda s=step, a=args: s(*a),
                                                lambda f=numpy_fn, a=args: f(*a)],
                                               options.repeats)
                    print(f"{'MLP, one BLAS thread':28} {'':10} {_ms(t_one)} "
                          f"{_ms(t_numpy_one)} {'':21}  {t_one / t_numpy_one:12.2f}x")
    if options.scaling:
        compile_scaling([int(n) for n in options.scaling.split(",")])
    if options.crossover:
        crossover([int(n) for n in options.crossover.split(",")], options.repeats)
    if options.blas_threads:
        blas_threads(mlp_args, options.repeats)
    if options.sweep:
        sweep([tuple(int(n) for n in size.split("x")) for size in options.sweep.split(",")],
              options.repeats)


def blas_threads(mlp_args: list, repeats: int) -> None:
    """Each of the MLP step's products (NumPy's matmul, NumPy's BLAS) on the default number of
    BLAS threads and on one, taking turns."""
    x, y, w1, b1, w2, b2 = mlp_args
    h, d = np.maximum(x @ w1, 0), y
    products = [("x @ w1", x, w1), ("h @ w2", h, w2), ("d @ w2.T", d, w2.T),
                ("x.T @ dz", x.T, h), ("h.T @ d", h.T, d)]
    print(f"\n{'MLP product':16} {'m x k x n':>14} {'default':>10} {'one thread':>10}  "
          f"default/one")
    for name, a, b in products:
        def on_one(a=a, b=b):
            with one_blas_thread():
                a @ b
        t_default, t_one = timed([lambda a=a, b=b: a @ b, on_one], repeats)
        size = f"{a.shape[0]}x{a.shape[1]}x{b.shape[1]}"
        print(f"{name:16} {size:>14} {_ms(t_default)} {_ms(t_one)}  {t_default / t_one:10.2f}x")


def sweep(sizes: list[tuple[int, int]], repeats: int) -> None:
    """MLP steps of batch B and width H (H inputs, H hidden, 10 outputs): the products floor,
    NumPy's step, fusejit's and jax's, taking turns, with the ratios that matter."""
    import types

    from fusejit.runtime import blas

    free_cores = getattr(blas, "free_cores", lambda: None)   # (older fusejit: not measured)
    rng = np.random.default_rng(2)
    print(f"\n{'MLP BxH':>10} {'products':>10} {'numpy':>10} {'fusejit':>10} {'jax':>10}  "
          f"numpy/fusejit  numpy/products  fusejit/jax  load  free")
    jax_loss = _jax_version("mlp")
    for batch, width in sizes:
        args = [rng.standard_normal((batch, width)), rng.standard_normal((batch, 10)),
                rng.standard_normal((width, width)) * 0.1, rng.standard_normal(width) * 0.1,
                rng.standard_normal((width, 10)) * 0.1, rng.standard_normal(10) * 0.1]
        # (a fresh function per size: each keeps its own staged code, as a model would)
        step = fusejit.value_and_grad(types.FunctionType(mlp_loss.__code__, globals()),
                                      argnums=(2, 3, 4, 5))
        value, grads = step(*args)
        ref_value, ref_grads = mlp_numpy(*args)
        np.testing.assert_allclose(value, ref_value, rtol=1e-9)
        for got, want in zip(grads, ref_grads):
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
        free_cores()
        t_products, t_numpy, t_fusejit, t_jax = timed(
            [lambda a=args: mlp_matmuls(*a), lambda a=args: mlp_numpy(*a),
             lambda s=step, a=args: s(*a),
             jax_loss and jax_step(jax_loss, args, (2, 3, 4, 5))], repeats)
        free = free_cores()
        vs_jax = f"{t_fusejit / t_jax:10.2f}x" if t_jax else f"{'-':>11}"
        print(f"{batch:>5}x{width:<4} {_ms(t_products)} {_ms(t_numpy)} {_ms(t_fusejit)} "
              f"{_ms(t_jax)}  {t_numpy / t_fusejit:12.2f}x {t_numpy / t_products:14.2f}x "
              f"{vs_jax} {os.getloadavg()[0]:5.1f} {'-' if free is None else f'{free:4.1f}'}")


def crossover(widths: list[int], repeats: int) -> None:
    """MLP steps (batch = width, width/2 inputs, 10 outputs) compiled whole against the
    interpreter's fused staged Code."""
    import types

    rng = np.random.default_rng(1)
    print(f"\n{'MLP width':>10} {'whole':>10} {'interpreter':>12} {'numpy':>10}  whole/interp")
    for width in widths:
        args = [rng.standard_normal((width, width // 2)), rng.standard_normal((width, 10)),
                rng.standard_normal((width // 2, width)) * 0.1,
                rng.standard_normal(width) * 0.1, rng.standard_normal((width, 10)) * 0.1,
                rng.standard_normal(10) * 0.1]
        # (a fresh function per width and path: each keeps its own staged code)
        steps = [fusejit.value_and_grad(types.FunctionType(mlp_loss.__code__, globals()),
                                        argnums=(2, 3, 4, 5), whole=whole)
                 for whole in (True, False)]
        t_whole, t_interp, t_numpy = timed(
            [lambda s=steps[0], a=args: s(*a), lambda s=steps[1], a=args: s(*a),
             lambda a=args: mlp_numpy(*a)], repeats)
        print(f"{width:10d} {_ms(t_whole)} {_ms(t_interp):>12} {_ms(t_numpy)}  "
              f"{t_whole / t_interp:10.2f}x")


def unrolled_lstm(steps: int) -> fusejit.Graph:
    """``steps`` LSTM cells written out one after another (no loop): a big straight-line graph,
    as a program unrolled by hand would give."""
    lines = ["graph(%x : Tensor, %h0 : Tensor, %c0 : Tensor, %w_ih : Tensor, %w_hh : Tensor,"
             " %b_ih : Tensor, %b_hh : Tensor):",
             "  %one : int = prim::Constant[value=1]()",
             "  %wi : Tensor = aten::t(%w_ih)", "  %wh : Tensor = aten::t(%w_hh)"]
    for k in range(steps):
        lines += [f"  %a{k} : Tensor = aten::matmul(%x, %wi)",
                  f"  %b{k} : Tensor = aten::matmul(%h{k}, %wh)",
                  f"  %s{k} : Tensor = aten::add(%a{k}, %b{k}, %one)",
                  f"  %t{k} : Tensor = aten::add(%s{k}, %b_ih, %one)",
                  f"  %u{k} : Tensor = aten::add(%t{k}, %b_hh, %one)",
                  f"  %i{k} : Tensor, %f{k} : Tensor, %g{k} : Tensor, %o{k} : Tensor = "
                  f"prim::ConstantChunk[chunks=4, dim=1](%u{k})",
                  f"  %si{k} : Tensor = aten::sigmoid(%i{k})",
                  f"  %sf{k} : Tensor = aten::sigmoid(%f{k})",
                  f"  %tg{k} : Tensor = aten::tanh(%g{k})",
                  f"  %so{k} : Tensor = aten::sigmoid(%o{k})",
                  f"  %m{k} : Tensor = aten::mul(%sf{k}, %c{k})",
                  f"  %n{k} : Tensor = aten::mul(%si{k}, %tg{k})",
                  f"  %c{k + 1} : Tensor = aten::add(%m{k}, %n{k}, %one)",
                  f"  %tc{k} : Tensor = aten::tanh(%c{k + 1})",
                  f"  %h{k + 1} : Tensor = aten::mul(%so{k}, %tc{k})"]
    lines += ["  %none : NoneType = prim::Constant()",
              f"  %loss : Tensor = aten::sum(%h{steps}, %none)", "  return (%loss)"]
    return fusejit.parse_ir("\n".join(lines) + "\n")


def compile_scaling(sizes: list[int]) -> None:
    """Seconds to differentiate, fuse and lower (no kernel compiles) unrolled LSTM graphs."""
    from fusejit.autodiff.staged import StagedCode

    rng = np.random.default_rng(0)
    hidden = 8
    args = [rng.standard_normal((4, 5)), rng.standard_normal((4, hidden)),
            rng.standard_normal((4, hidden)), rng.standard_normal((4 * hidden, 5)),
            rng.standard_normal((4 * hidden, hidden)), rng.standard_normal(4 * hidden),
            rng.standard_normal(4 * hidden)]
    print(f"\n{'unrolled LSTM steps':>20} {'nodes':>7} {'compile':>9}  ratio to previous")
    previous = None
    for steps in sizes:
        graph = unrolled_lstm(steps)
        start = time.perf_counter()
        StagedCode(graph, (3, 4, 5, 6), args)
        spent = time.perf_counter() - start
        ratio = f"{spent / previous:.1f}x" if previous else ""
        print(f"{steps:20d} {len(list(graph.nodes())):7d} {spent:8.2f}s  {ratio}")
        previous = spent


def _jax_version(kind: str):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    if kind == "mlp":
        def loss(x, y, w1, b1, w2, b2):
            d = jax.nn.relu(x @ w1 + b1) @ w2 + b2 - y
            return 0.5 * jnp.sum(d * d)
        return loss

    def lstm(x, h, c, w_ih, w_hh, b_ih, b_hh, steps):
        for _ in range(steps):
            gates = x @ w_ih.T + h @ w_hh.T + b_ih + b_hh
            i, f, g, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return jnp.sum(h)
    return lstm


if __name__ == "__main__":
    main()
