"""Command line: ``python -m fusejit demo | fuse FILE.ir``."""

from __future__ import annotations

import argparse
import sys

from . import FusejitError, parse_ir
from .examples import LSTM_CELL


def demo() -> int:
    graph = parse_ir(LSTM_CELL)
    graph.lint()
    print("# An LSTM cell in TorchScript IR, parsed and printed back by fusejit:\n")
    print(graph, end="")
    try:
        from .passes import fuse_graph
    except ImportError:
        return 0
    fused = graph.copy()
    fuse_graph(fused)
    print("\n# After fuse_graph (PyTorch's legacy graph fuser):\n")
    print(fused, end="")
    return 0


def fuse(path: str) -> int:
    from .passes import fuse_graph

    with open(path, encoding="utf-8") as f:
        graph = parse_ir(f.read())
    fuse_graph(graph)
    print(graph, end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fusejit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="parse, fuse and print an LSTM cell")
    fuse_cmd = sub.add_parser("fuse", help="print the fused form of an IR file")
    fuse_cmd.add_argument("file")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            return demo()
        return fuse(args.file)
    except FusejitError as exc:
        print(f"fusejit: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"fusejit: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
