"""Command line: ``python -m fusejit demo | fuse FILE | run FILE INPUTS.npz | cache info|clear``."""

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
    import zipfile

    import numpy as np

    from . import compile

    graph = _read_graph(args.file)
    try:
        with np.load(args.inputs, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise FusejitError(f"{args.inputs}: an .npz archive of named arrays is needed, "
                                   f"not a single .npy array")
            arrays = {key: data[key] for key in data.files}
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise FusejitError(f"{args.inputs}: not a readable .npz archive ({exc})") from None
    inputs = bind_npz(graph, arrays, args.inputs)
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


def bind_npz(graph, arrays: dict, source: str = "inputs") -> list:
    """The graph's inputs from an ``.npz``'s arrays: by the inputs' names (``x.1`` or ``x``) when
    the keys are those names, by position when they are ``arg0, arg1, ...``; anything else is an
    error naming the keys that do not fit. 0-d arrays become scalars for non-tensor inputs."""
    from .ir.types import TensorType

    params = list(graph.inputs)
    positional = [f"arg{i}" for i in range(len(params))]
    if set(arrays) == set(positional):
        keys = positional
    else:
        keys = [_key_for(p.debug_name, arrays) for p in params]
        keys = [k if keys.count(k) == 1 else None for k in keys]   # x.1 and x.2 both "x"
        missing = [f"%{p.debug_name}" for p, k in zip(params, keys) if k is None]
        extra = sorted(set(arrays) - set(keys))
        if missing or extra:
            names = ", ".join(f"%{p.debug_name}" for p in params)
            raise FusejitError(
                f"{source}: the keys {sorted(arrays)} do not bind the graph's inputs ({names}): "
                + (f"no array for {', '.join(missing)}; " if missing else "")
                + (f"no input named {', '.join(extra)}; " if extra else "")
                + f"name the arrays after the inputs or {', '.join(positional)}")
    inputs = []
    for param, key in zip(params, keys):
        array = arrays[key]
        if array.ndim == 0 and not isinstance(param.type, TensorType):
            inputs.append(array.item())
        else:
            inputs.append(array)
    return inputs


def _key_for(name: str, arrays: dict) -> str | None:
    """``name`` itself, or PyTorch's name without its ``.N`` suffix (``x`` for ``x.1``)."""
    if name in arrays:
        return name
    base, dot, suffix = name.rpartition(".")
    if dot and suffix.isdigit() and base in arrays:
        return base
    return None


def cache(args: argparse.Namespace) -> int:
    from .runtime.fusion import cache_clear, cache_info

    if args.action == "clear":
        print(f"removed {cache_clear()} files")
        return 0
    for key, value in cache_info().items():
        print(f"{key}: {value}")
    return 0


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
    args = parser.parse_args(argv)
    handler = {"demo": demo, "fuse": fuse, "run": run, "cache": cache}[args.command]
    try:
        return handler(args)
    except (FusejitError, OSError, ValueError) as exc:
        print(f"fusejit: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
