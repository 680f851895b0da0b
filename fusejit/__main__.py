"""Command line: ``python -m fusejit demo | fuse FILE | run FILE INPUTS.npz | cache info|clear``."""

from __future__ import annotations

import argparse
import sys

from . import FusejitError, parse_ir
from .examples import LSTM_CELL


def demo(args: argparse.Namespace) -> int:
    graph = parse_ir(LSTM_CELL)
    graph.lint()
    print("# An LSTM cell in TorchScript IR, parsed and printed back by fusejit:\n")
    print(graph, end="")
    from .passes import fuse_graph

    fused = graph.copy()
    fuse_graph(fused)
    print("\n# After fuse_graph (PyTorch's legacy graph fuser):\n")
    print(fused, end="")
    return 0


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
    for key, value in cache_info().items():
        print(f"{key}: {value}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fusejit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="an LSTM cell: graph, fused graph, kernel, timings")
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
