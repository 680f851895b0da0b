"""fusejit's CUDA kernels on a GPU against CuPy eager and PyTorch, in one run of a few minutes.

    python benchmarks/gpu.py            # on a machine with an NVIDIA GPU (target: H200)
    python benchmarks/gpu.py --sim      # the same script under Numba's simulator, tiny sizes

Steps, each printed as it runs:
1. imports CuPy and numba.cuda, installing them from ``.whl/*.whl`` into /tmp/site (no network
   needed) when they are missing;
2. runs the ``gpu`` tests (``cudasim`` ones under ``--sim``);
3. measures the device's copy bandwidth (a device-to-device copy, read + write bytes);
4. times the LSTM cell's pointwise part (the corpus's fusion group: gates chunked in four,
   sigmoid/tanh, two outputs) at batch x hidden 1024x4096 and 8192x8192, and a 12-op chain on
   2^26 float32 values: fusejit's kernel, CuPy eager, PyTorch eager and ``torch.compile``
   (when PyTorch is installed), with each one's achieved GB/s (bytes the fused kernel must
   move / time) as a fraction of the copy bandwidth. Goal: >= 80% of copy bandwidth and >= 3x
   CuPy eager;
5. runs NumPy-style programs through ``@fusejit.jit(device="cuda")`` on 4096 x 4096 float32
   CuPy arrays: the first call's time, the largest error against NumPy on the host, and the
   time against the same function run eagerly on the CuPy arrays (NumPy's functions dispatch
   to CuPy's).

On the lent H200 image (numba 0.68.0, numba-cuda 0.30.4, CuPy 14.2, NumPy 2.5), numba-cuda
fails to import its own array module: it reads ``np.row_stack``, which NumPy 2.5 removed. The
runs behind the figures in the notes put a ``sitecustomize.py`` on ``PYTHONPATH`` there that
sets ``numpy.row_stack = numpy.vstack``; fusejit itself never changes NumPy.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = "/tmp/site"

CHAIN_IR = """graph(%x : Float(*), %y : Float(*)):
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %a : Float(*) = aten::mul(%x, %y)
  %b : Float(*) = aten::add(%a, %x, %one)
  %c : Float(*) = aten::sigmoid(%b)
  %d : Float(*) = aten::mul(%c, %half)
  %e : Float(*) = aten::sub(%d, %y, %one)
  %f : Float(*) = aten::tanh(%e)
  %g : Float(*) = aten::mul(%f, %f)
  %h : Float(*) = aten::add(%g, %a, %one)
  %i : Float(*) = aten::exp(%h)
  %j : Float(*) = aten::div(%i, %b)
  %k : Float(*) = aten::neg(%j)
  %l : Float(*) = aten::relu(%k)
  return (%l)
"""


def ensure_imports(sim: bool) -> None:
    """Import what the GPU run needs, installing local wheels when an import fails."""
    if sim:
        return
    try:
        import cupy  # noqa: F401
        import numba.cuda  # noqa: F401
        return
    except ImportError as error:
        print(f"[setup] {error}; installing from .whl/")
    wheels = sorted(glob.glob(os.path.join(ROOT, ".whl", "*.whl")))
    if not wheels:
        sys.exit("[setup] no wheels in .whl/ and CuPy is missing: pip install -e '.[cuda]'")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                    "--target", SITE, *wheels], check=True)
    sys.path.insert(0, SITE)
    os.environ["PYTHONPATH"] = SITE + os.pathsep + os.environ.get("PYTHONPATH", "")
    import cupy  # noqa: F401
    print(f"[setup] installed {len(wheels)} wheels into {SITE}")


def run_tests(sim: bool) -> None:
    marker = "cudasim" if sim else "gpu"
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pytest", "tests/cuda", "-m", marker, "-q",
                             "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True)
    lines = (result.stdout + result.stderr).strip().splitlines()
    print(f"[tests] pytest -m {marker}: exit {result.returncode} "
          f"({time.perf_counter() - start:.1f} s)")
    shown = lines if result.returncode else lines[-1:]
    for line in shown[-60:]:
        print("   ", line)


# -- timing -------------------------------------------------------------------------------------

class Timer:
    """Median wall time of a device computation: CUDA events on a GPU, perf_counter in sim."""

    def __init__(self, xp, sim: bool, repeat: int):
        self.xp, self.sim, self.repeat = xp, sim, repeat

    def __call__(self, fn) -> float:
        fn()
        if self.sim:
            times = []
            for _ in range(self.repeat):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            return statistics.median(times)
        cuda = self.xp.cuda
        times = []
        for _ in range(self.repeat):
            begin, end = cuda.Event(), cuda.Event()
            begin.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cuda.get_elapsed_time(begin, end) / 1e3)
        return statistics.median(times)


def copy_bandwidth(xp, timer: Timer, n: int) -> float:
    src = xp.ones(n, xp.float32)
    dst = xp.empty_like(src)
    seconds = timer(lambda: dst.__setitem__(Ellipsis, src))
    return 2 * src.nbytes / seconds / 1e9


def report(title: str, nbytes: int, times: dict[str, float], copy_gbs: float) -> None:
    print(title)
    base = times.get("cupy")
    for name, seconds in times.items():
        gbs = nbytes / seconds / 1e9
        ratio = f"  cupy/this {base / seconds:5.2f}x" if base else ""
        print(f"  {name:14s} {seconds * 1e3:9.3f} ms  {gbs:8.1f} GB/s "
              f"({100 * gbs / copy_gbs:5.1f}% of copy){ratio}")


# -- the cases ----------------------------------------------------------------------------------

def lstm_eager(xp, cx, ig, hg, b_ih, b_hh):
    gates = b_hh + b_ih + ig + hg
    i, f, g, o = xp.split(gates, 4, axis=1)
    sig = lambda v: 1 / (1 + xp.exp(-v))  # noqa: E731
    cy = sig(f) * cx + sig(i) * xp.tanh(g)
    return sig(o) * xp.tanh(cy), cy


def chain_eager(xp, x, y):
    a = x * y
    b = a + x
    c = 1 / (1 + xp.exp(-b))
    f = xp.tanh(c * 0.5 - y)
    j = xp.exp(f * f + a) / b
    return xp.maximum(-j, 0)


def torch_versions(fn):
    """(eager, compiled) PyTorch callables of ``fn`` written against ``xp``, or {}."""
    try:
        import torch
    except ImportError:
        return {}
    ns = type("torch_xp", (), {"exp": torch.exp, "tanh": torch.tanh, "maximum": torch.clamp_min,
                               "split": lambda t, k, axis: torch.chunk(t, k, dim=axis)})
    eager = lambda *a: fn(ns, *a)  # noqa: E731
    return {"torch eager": eager, "torch.compile": torch.compile(eager)}


def bench_lstm(args, xp, device, timer, copy_gbs) -> None:
    import numpy as np

    import fusejit
    from fusejit.runtime.fusion.cuda_compiler import CudaFusedKernel

    path = os.path.join(ROOT, "tests", "data", "conformance", "lstm_cell", "expected_fused.ir")
    graph = fusejit.parse_ir(open(path).read())
    group = next(n for n in graph.all_nodes() if n.kind == "prim::FusionGroup")
    kernel = CudaFusedKernel(group, device)
    sizes = ((2, 8), (4, 4)) if args.sim else ((1024, 4096), (8192, 8192))
    rng = np.random.default_rng(0)
    for batch, hidden in sizes:
        host = [rng.standard_normal(s, dtype=np.float32) for s in
                ((batch, hidden), (batch, 4 * hidden), (batch, 4 * hidden), (4 * hidden,),
                 (4 * hidden,))]
        cx, ig, hg, b_ih, b_hh = (xp.asarray(h) for h in host)
        shape = (batch, 4 * hidden)
        inputs = (cx, hg, ig, xp.broadcast_to(b_ih, shape), xp.broadcast_to(b_hh, shape))
        hy, cy = kernel(*inputs)
        want = lstm_eager(np, *host)
        err = max(float(np.max(np.abs(_host(xp, hy) - want[0]))),
                  float(np.max(np.abs(_host(xp, cy) - want[1]))))
        times = {"fusejit": timer(lambda: kernel(*inputs)),  # noqa: B023
                 "cupy": timer(lambda: lstm_eager(xp, cx, ig, hg, b_ih, b_hh))}  # noqa: B023
        if not args.sim and _has_torch():
            import torch
            t = [torch.as_tensor(a, device="cuda") for a in (cx, ig, hg, b_ih, b_hh)]
            for name, fn in torch_versions(lstm_eager).items():
                times[name] = timer(lambda fn=fn, t=t: fn(*t))
        nbytes = 4 * batch * hidden * 11 + 2 * 4 * 4 * hidden
        report(f"LSTM cell pointwise {batch}x{hidden} float32 (max abs diff {err:.1e})", nbytes,
               times, copy_gbs)


def bench_chain(args, xp, device, timer, copy_gbs) -> None:
    import numpy as np

    import fusejit
    from fusejit.runtime.fusion.cuda_compiler import CudaFusedKernel

    n = 1 << (6 if args.sim else 26)
    rng = np.random.default_rng(1)
    hx, hy = (rng.uniform(0.5, 1.0, n).astype(np.float32) for _ in range(2))
    x, y = xp.asarray(hx), xp.asarray(hy)
    kernel = CudaFusedKernel(fusejit.parse_ir(CHAIN_IR), device)
    (got,) = kernel(x, y)
    want = chain_eager(np, hx, hy)
    err = float(np.max(np.abs(_host(xp, got) - want) / np.maximum(np.abs(want), 1)))
    times = {"fusejit": timer(lambda: kernel(x, y)),
             "cupy": timer(lambda: chain_eager(xp, x, y))}
    if not args.sim and _has_torch():
        import torch
        tx, ty = torch.as_tensor(x, device="cuda"), torch.as_tensor(y, device="cuda")
        for name, fn in torch_versions(chain_eager).items():
            times[name] = timer(lambda fn=fn: fn(tx, ty))
    report(f"12-op chain on 2^{n.bit_length() - 1} float32 (max rel diff {err:.1e})", 12 * n,
           times, copy_gbs)


def _softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def _where_mix(x, y):
    return np.where(x > 0.5, x * y, y - x) * 2.0


def _zscore(x):
    return (x - x.mean()) / x.std()


def _softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _chain_log1p(x, y):
    c = 1 / (1 + np.exp(-(x * y + x)))
    f = np.tanh(c * 0.5 - y)
    return np.maximum(-np.exp(f * f + x * y), 0) + np.log1p(np.abs(x))


def _lerp_clip(x, y):
    return np.clip(x + 0.3 * (y - x), -1.0, 1.0)


PROGRAMS = (_softplus, _gelu, _where_mix, _zscore, _softmax_rows, _chain_log1p, _lerp_clip)


def bench_jit(args, xp, timer) -> None:
    import inspect

    import fusejit

    shape = (8, 16) if args.sim else (4096, 4096)
    rng = np.random.default_rng(2)
    print(f"@fusejit.jit(device='cuda') on {shape} float32 (eager: the same function on CuPy "
          f"arrays)")
    for fn in PROGRAMS:
        n_args = len(inspect.signature(fn).parameters)
        host = [rng.uniform(-2, 2, shape).astype(np.float32) for _ in range(n_args)]
        device_args = [xp.asarray(h) for h in host]
        jitted = fusejit.jit(fn, device="cuda")
        start = time.perf_counter()
        got = jitted(*device_args)
        first = time.perf_counter() - start
        want = fn(*host)
        err = float(np.max(np.abs(_host(xp, got) - want) / np.maximum(np.abs(want), 1)))
        t_jit = timer(lambda: jitted(*device_args))  # noqa: B023
        t_eager = timer(lambda: fn(*device_args))  # noqa: B023
        print(f"  {fn.__name__[1:]:12s} first call {first:5.2f} s  max rel diff {err:.1e}  "
              f"jit {t_jit * 1e3:7.3f} ms  eager {t_eager * 1e3:7.3f} ms  "
              f"eager/jit {t_eager / t_jit:5.2f}x")


def _host(xp, a):
    return a.get() if hasattr(a, "get") else a


def _has_torch() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", action="store_true", help="Numba's CUDA simulator, tiny sizes")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--skip-tests", action="store_true")
    args = parser.parse_args()
    if args.sim:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"     # before numba is imported
    sys.path.insert(0, ROOT)
    start = time.perf_counter()
    ensure_imports(args.sim)
    if not args.skip_tests:
        run_tests(args.sim)
    from fusejit.runtime.devices import cuda_device

    device = cuda_device()
    xp = device.xp
    print(f"[device] {device!r}; numpy stands in for cupy" if args.sim else f"[device] {device!r}")
    timer = Timer(xp, args.sim, args.repeat or (2 if args.sim else 20))
    copy_gbs = copy_bandwidth(xp, timer, 1 << (10 if args.sim else 28))
    print(f"[copy] device-to-device copy: {copy_gbs:.1f} GB/s (read + write)")
    bench_lstm(args, xp, device, timer, copy_gbs)
    bench_chain(args, xp, device, timer, copy_gbs)
    bench_jit(args, xp, timer)
    print(f"[done] {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
