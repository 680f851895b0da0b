"""Command line: ``python -m fusejit demo | fuse FILE | run FILE INPUTS.npz | cache info|clear |
warmup``."""

from __future__ import annotations

import argparse
import sys
import zipfile
from typing import IO

from . import FusejitError, parse_ir


def demo(args: argparse.Namespace) -> int:
    """The LSTM cell jitted: its graph, the fused graph, a kernel excerpt, then times against
    NumPy for the cell and for two cases where fusion pays (``--verbose``: every dump whole)."""
    import time

    import numpy as np

    from . import jit, kernel_source
    from .examples import lstm_cell, lstm_loop, lstm_pointwise

    rng = np.random.default_rng(0)
    batch, hidden = args.batch, args.hidden

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    inputs = (f32(batch, hidden), f32(batch, hidden), f32(batch, hidden),
              f32(4 * hidden, hidden), f32(4 * hidden, hidden), f32(4 * hidden), f32(4 * hidden))
    cell = jit(lstm_cell)
    start = time.perf_counter()
    cell(*inputs)
    first = time.perf_counter() - start
    print(f"fusejit demo: an LSTM cell (fusejit/examples.py), NumPy-spelled, under @fusejit.jit\n"
          f"first result in {first:.1f} s (scripted, fused, its group interpreted until it is "
          f"hot: runtime/tiering.py)")
    show = _all_lines if args.verbose else _some_lines
    print("\n# Scripted to TorchScript IR:")
    show(str(cell.graph), 12)
    print(f"\n# Specialised to {batch}x{hidden} float32 and fused by PyTorch's legacy graph "
          f"fuser:")
    fused_text = str(cell.graph_for(*inputs))
    show(fused_text if args.verbose else fused_text.split("\nwith ")[0], 16)
    if args.verbose:
        print("\n# The interpreter's instructions:")
        print(cell.code_for(*inputs), end="")
    source = kernel_source(cell.graph, *inputs)
    print(f"\n# The generated kernel ({source.count(chr(10))} lines of Python for Numba, parallel "
          f"over rows); its inner loop:")
    show(source if args.verbose else _inner_loop(source), 12)
    print(f"\n# Median times ({args.repeat} runs), NumPy eager vs fusejit:")
    print(f"{'case':<42}{'NumPy ms':>9}{'fusejit ms':>11}{'speed-up':>9}{'max |diff|':>11}")
    big = 4 * hidden
    gates = (f32(2 * batch, big), f32(2 * batch, 4 * big), f32(2 * batch, 4 * big),
             f32(4 * big), f32(4 * big))
    small = 64
    loop_in = (f32(1, small), f32(1, small), f32(1, small), f32(4 * small, small) * 0.1,
               f32(4 * small, small) * 0.1, f32(4 * small), f32(4 * small), 100)
    slower = []
    for name, fn, data in (
            (f"LSTM cell pointwise part {2 * batch}x{big}", lstm_pointwise, gates),
            (f"100-step LSTM loop, hidden {small}", lstm_loop, loop_in),
            (f"whole LSTM cell {batch}x{hidden} (two matmuls)", lstm_cell, inputs)):
        jitted = jit(fn)
        _warm_up(jitted, data)
        eager_ms, fused_ms = _median_ms((fn, jitted), data, args.repeat)
        error = max(float(np.max(np.abs(a - b))) for a, b in zip(jitted(*data), fn(*data)))
        print(f"{name:<42}{eager_ms:>9.2f}{fused_ms:>11.2f}{eager_ms / fused_ms:>8.2f}x"
              f"{error:>11.1e}")
        if fused_ms > eager_ms:
            slower.append(name)
    if slower:
        print(f"# fusejit was slower than NumPy on: {'; '.join(slower)}.")
    if not _native_ready():
        print("# The native interpreter is not compiled on this machine yet: these plans ran on "
              "the\n# reference interpreter (a background process compiles it once; "
              "`python -m fusejit\n# warmup` does it now). Run the demo again to time them "
              "natively.")
    return 0


def _warm_up(fn, data) -> None:
    """Call ``fn`` until it has run for longer than a plan stays on the reference interpreter
    before moving to the native one (``runtime/tiering.py``), so the timings are steady."""
    import time

    from .runtime.tiering import PROMOTE_SECONDS

    start = time.perf_counter()
    for calls in range(1000):
        fn(*data)
        if calls and time.perf_counter() - start > 1.5 * PROMOTE_SECONDS:
            break


def _some_lines(text: str, count: int) -> None:
    lines = text.rstrip("\n").split("\n")
    for line in lines[:count]:
        print(line if len(line) <= 110 else line[:107] + "...")
    if len(lines) > count:
        print(f"  ... {len(lines) - count} more lines (--verbose shows them)")


def _all_lines(text: str, count: int) -> None:
    print(text, end="" if text.endswith("\n") else "\n")


def _inner_loop(source: str) -> str:
    """The generated kernel from its first computed value on: each IR line above its code."""
    start = source.find("            # t0 ")
    return source[start:] if start >= 0 else source


def _native_ready() -> bool:
    from .runtime import tiering

    return tiering.native_ready()


def _median_ms(fns, data, repeat: int) -> tuple[float, float]:
    """Median milliseconds of the two functions on ``data``, run alternately (a noisy machine
    slows both alike)."""
    import statistics
    import time

    times: tuple[list, list] = ([], [])
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            start = time.perf_counter()
            fn(*data)
            out.append(time.perf_counter() - start)
    return 1000 * statistics.median(times[0]), 1000 * statistics.median(times[1])


# IR text beyond this is refused: no printed graph comes near it, and reading stops there (a
# path such as /dev/zero would otherwise be read until memory runs out).
MAX_IR_BYTES = 256 * 2**20


def _read_graph(path: str):
    with open(path, "rb") as f:
        data = f.read(MAX_IR_BYTES + 1)
    if len(data) > MAX_IR_BYTES:
        raise FusejitError(f"{path}: more than {MAX_IR_BYTES >> 20} MiB; not a graph's IR text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FusejitError(f"{path}: not UTF-8 text ({exc})") from None
    return parse_ir(text)


def fuse(args: argparse.Namespace) -> int:
    from .passes import fuse_graph

    graph = _read_graph(args.file)
    fuse_graph(graph)
    print(graph, end="")
    return 0


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from . import compile

    graph = _read_graph(args.file)
    arrays = read_npz(args.inputs)
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


def read_npz(path: str) -> dict:
    """The named arrays of the ``.npz`` at ``path``. Anything that is not an archive of plain
    arrays is a ``FusejitError`` naming the file, and so is an array whose header declares more
    bytes than the archive holds for it (NumPy would allocate the declared size first: 4 TiB
    for a 100-byte file)."""
    import numpy as np

    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    _check_declared_size(member, info, path)
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, FusejitError):
        raise
    except zipfile.BadZipFile as exc:
        raise FusejitError(f"{path}: not a readable .npz archive ({exc}); an .npz archive of "
                           f"named arrays is needed (np.savez)") from None
    except Exception as exc:  # noqa: BLE001 - NumPy's header parsing raises many kinds
        raise FusejitError(f"{path}: not a readable .npz archive of arrays "
                           f"({type(exc).__name__}: {exc})") from None


def _check_declared_size(member: IO[bytes], info: zipfile.ZipInfo, path: str) -> None:
    """Refuse an array member whose header declares more bytes than the member holds."""
    import numpy as np

    if not info.filename.endswith(".npy"):
        return
    read = {(1, 0): np.lib.format.read_array_header_1_0,
            (2, 0): np.lib.format.read_array_header_2_0}.get(np.lib.format.read_magic(member))
    if read is None:
        return   # (np.load reports the version it cannot read)
    shape, _, dtype = read(member)
    declared = dtype.itemsize
    for n in shape:
        declared *= n
    if declared > info.file_size:
        raise FusejitError(f"{path}: {info.filename} declares {declared} bytes of {dtype} "
                           f"{shape}; the archive holds {info.file_size}")


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
    demo_cmd.add_argument("--repeat", type=int, default=15)
    demo_cmd.add_argument("--verbose", action="store_true", help="print every dump whole")
    fuse_cmd = sub.add_parser("fuse", help="print the fused form of an IR file")
    fuse_cmd.add_argument("file")
    run_cmd = sub.add_parser("run", help="run an IR file on an .npz's arrays (by input name, "
                             "or arg0, arg1, ...)")
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
