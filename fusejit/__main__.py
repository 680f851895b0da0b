"""Command line: ``python -m fusejit demo | fuse FILE | run FILE INPUTS.npz | cache info|clear |
warmup``."""

from __future__ import annotations

import argparse
import sys

from . import FusejitError, parse_ir


def demo(args: argparse.Namespace) -> int:
    import time

    import numpy as np

    from . import jit, kernel_source
    from .examples import lstm_cell

    rng = np.random.default_rng(0)
    batch, hidden = args.batch, args.hidden

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    inputs = (f32(batch, hidden), f32(batch, hidden), f32(batch, hidden),
              f32(4 * hidden, hidden), f32(4 * hidden, hidden), f32(4 * hidden), f32(4 * hidden))
    cell = jit(lstm_cell)
    print("# The LSTM cell, NumPy-spelled Python (fusejit/examples.py), decorated with "
          "@fusejit.jit and scripted to TorchScript IR:\n")
    print(cell.graph, end="")
    start = time.perf_counter()
    fused = cell(*inputs)
    first = time.perf_counter() - start
    print(f"\n# Specialised to the inputs ({batch}x{hidden} float32) and fused by PyTorch's "
          f"legacy graph fuser:\n")
    print(cell.graph_for(*inputs), end="")
    print("\n# The interpreter's instructions:\n")
    print(cell.code_for(*inputs), end="")
    print("\n# The generated kernel (Numba, parallel over rows):\n")
    print(kernel_source(cell.graph, *inputs), end="")
    expected = lstm_cell(*inputs)
    error = max(float(np.max(np.abs(a - b))) for a, b in zip(fused, expected))
    fused_ms = _median_ms(lambda: cell(*inputs))
    eager_ms = _median_ms(lambda: lstm_cell(*inputs))
    print(f"\n# first call (scripting, fusing, compiling or loading kernels): {first:.2f} s")
    print(f"# max |fused - NumPy| = {error:.2e}")
    print(f"# median time: fusejit {fused_ms:.3f} ms, NumPy eager {eager_ms:.3f} ms "
          f"({eager_ms / fused_ms:.2f}x)")
    return 0


def _median_ms(fn, repeat: int = 15) -> float:
    import statistics
    import time

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def _read_graph(path: str):
    with open(path, encoding="utf-8") as f:
        return parse_ir(f.read())


def fuse(args: argparse.Namespace) -> int:
    from .passes import fuse_graph

    graph = _read_graph(args.file)
    fuse_graph(graph)
    print(graph, end="")
    return 0


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from . import compile
    from .ir.types import TensorType

    graph = _read_graph(args.file)
    with np.load(args.inputs, allow_pickle=False) as data:
        keys = sorted(data.files, key=lambda k: (len(k), k))
        inputs = []
        for key, value in zip(keys, graph.inputs):
            array = data[key]
            if array.ndim == 0 and not isinstance(value.type, TensorType):
                inputs.append(array.item())
            else:
                inputs.append(array)
    outputs = compile(graph, fuse=not args.no_fuse)(*inputs)
    if not isinstance(outputs, tuple):
        outputs = (outputs,)
    np.set_printoptions(threshold=20, edgeitems=3)
    for i, out in enumerate(outputs):
        if isinstance(out, np.ndarray):
            print(f"out{i}: {out.dtype}{list(out.shape)}\n{out}")
        else:
            print(f"out{i}: {out!r}")
    return 0


def cache(args: argparse.Namespace) -> int:
    from .runtime.fusion import cache_clear, cache_info

    if args.action == "clear":
        print(f"removed {cache_clear()} files")
        return 0
    info = cache_info()
    mib = lambda n: f"{n / 2**20:.1f} MiB"  # noqa: E731
    print(f"directory: {info['directory']}")
    print(f"kernels: {info['entries']} ({mib(info['kernels_bytes'])})")
    print(f"native loop and helpers: {mib(info['native_bytes'])}")
    print(f"total: {mib(info['size'])} of {mib(info['max_bytes'])} (FUSEJIT_CACHE_MAX_MB)")
    return 0


def warmup(args: argparse.Namespace) -> int:
    from .runtime.warmup import warmup as run_warmup

    seconds = run_warmup()
    print(f"warmup done in {seconds:.1f} s")
    return cache(argparse.Namespace(action="info"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fusejit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo_cmd = sub.add_parser("demo", help="an LSTM cell: graph, fused graph, kernel, timings")
    demo_cmd.add_argument("--batch", type=int, default=512)
    demo_cmd.add_argument("--hidden", type=int, default=1024)
    fuse_cmd = sub.add_parser("fuse", help="print the fused form of an IR file")
    fuse_cmd.add_argument("file")
    run_cmd = sub.add_parser("run", help="run an IR file on inputs from an .npz (arg0, arg1, ...)")
    run_cmd.add_argument("file")
    run_cmd.add_argument("inputs")
    run_cmd.add_argument("--no-fuse", action="store_true", help="run without fusing")
    cache_cmd = sub.add_parser("cache", help="the kernel cache: info or clear")
    cache_cmd.add_argument("action", choices=["info", "clear"])
    sub.add_parser("warmup", help="compile the native loop and common kernels ahead of time")
    args = parser.parse_args(argv)
    handler = {"demo": demo, "fuse": fuse, "run": run, "cache": cache,
               "warmup": warmup}[args.command]
    try:
        return handler(args)
    except (FusejitError, OSError, ValueError) as exc:
        print(f"fusejit: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
