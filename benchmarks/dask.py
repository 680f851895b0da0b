"""fusejit functions on Dask arrays against Dask's own NumPy-spelled code, in the same run.

    python benchmarks/dask.py [--log2-size 28] [--log2-chunk 22] [--log2-memory 24] [--repeat 3]

Cases (float32, from ``benchmarks/fusion.py``): the LSTM cell's pointwise step, whose gate
arrays have 2^size elements (hidden 1024, so 4096 columns, chunked by rows; the split axis stays
whole), and the 12-op chain on two flat arrays of 2^size elements, both in 2^chunk-element
chunks. Rows:

* ``dask numpy-spelled``: the same math written with dask.array operations (one task per op and
  chunk), Dask's threaded scheduler;
* ``dask + fusejit``: the ``@fusejit.jit`` function called on the same Dask arrays (one task per
  chunk running the compiled plan), the threaded scheduler;
* ``dask + fusejit 1thr``: the same with one Dask thread (the kernels use every core);
* ``fusejit chunk loop``: the ``@fusejit.jit`` function called from a Python loop on each of the
  same chunks as NumPy arrays (what the Dask rows compute, without Dask);
* ``fusejit in memory`` and ``numpy in memory``: the plain calls on NumPy arrays of 2^memory
  elements (all of 2^size may not fit: NumPy's chain keeps 11 temporaries alive), scaled by
  2^(size - memory) to the Dask rows' size.

Dask inputs are generated and persisted before timing; each Dask row times ``persist()`` of the
outputs. "overhead/chunk" is (row - its counterpart) / number of chunks, the counterpart of the
fusejit rows being the chunk loop (so it is Dask's scheduling and the task call, minus any gain
from running two chunks at once), that of the NumPy-spelled row NumPy in memory, scaled.
Prints medians of ``--repeat`` runs; on a shared machine rows vary by up to 2x between runs.

Measured (2 shared cores, 3 repeats, two runs): at 2^28 in 2^22-element chunks (64 chunks),
dask + fusejit is 2.1-3.2x (LSTM) and 2.5-2.6x (chain) faster than dask numpy-spelled, and
within run-to-run noise of the chunk loop (which itself ran 2x slower than the in-memory call
scaled from 2^24: memory effects at 1 GiB arrays, not Dask). With 256 chunks of 2^14 elements
the Dask overhead is about 0.3 ms a chunk for the one-output chain and 2 ms for the two-output
LSTM step (a task per chunk plus one per output picking it out of the chunk's tuple).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

# This file is named dask.py: with its folder first on sys.path, `import dask` would find it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

# Steady-state times: kernels compile and plans take their engine on the first call (tiering
# only changes the first calls; benchmarks/cold_start.py measures those).
os.environ.setdefault("FUSEJIT_TIERING", "0")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

import fusejit  # noqa: E402

_spec = importlib.util.spec_from_file_location("fusion_cases", _HERE / "fusion.py")
fusion = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fusion)

HIDDEN = 1024


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_dask(cx, ig, hg, b_ih, b_hh):
    gates = ig + hg + b_ih + b_hh
    i, f, g, o = (gates[:, k * HIDDEN:(k + 1) * HIDDEN] for k in range(4))
    cy = sigmoid(f) * cx + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(cy), cy


def chain_dask(x, y):
    a = x * y
    b = a + x
    e = sigmoid(b) * 0.5 - y
    f = np.tanh(e)
    return np.maximum(-(np.exp(f * f + a) / b), 0)


def median_time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def persist(outputs):
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return dask.persist(*outputs)


def one_thread(fn, args):
    # One Dask thread, each chunk's kernel parallel on every core: no oversubscription.
    with dask.config.set(num_workers=1):
        return persist(fn(*args))


def lstm_inputs(log2: int, chunk_rows: int, rng):
    rows = (1 << log2) // (4 * HIDDEN)
    f32 = lambda *shape, chunks: rng.standard_normal(shape, chunks=chunks, dtype=np.float32)
    return (f32(rows, HIDDEN, chunks=(chunk_rows, HIDDEN)),
            f32(rows, 4 * HIDDEN, chunks=(chunk_rows, 4 * HIDDEN)),
            f32(rows, 4 * HIDDEN, chunks=(chunk_rows, 4 * HIDDEN)),
            f32(4 * HIDDEN, chunks=-1), f32(4 * HIDDEN, chunks=-1))


def chain_inputs(log2: int, chunk: int, rng):
    return tuple(rng.uniform(-1, 1, 1 << log2, chunks=chunk).astype(np.float32)
                 for _ in range(2))


def run_case(name, jit_fn, numpy_fn, dask_fn, big, small, repeat: int) -> None:
    big = dask.persist(*big)
    chunks = max(x.npartitions for x in big)
    small_np = tuple(np.asarray(x) for x in small)
    scale = big[1 if len(big) > 2 else 0].size / small_np[1 if len(small_np) > 2 else 0].size
    # the same chunks as NumPy arrays (persisted: no copies), for the chunk loop
    blocks = [[x.blocks[i].compute() if x.npartitions == chunks else x.compute() for x in big]
              for i in range(chunks)]
    pairs = zip(persist(jit_fn(*big)), persist(dask_fn(*big)))
    err = max(float(da.max(abs(a - b) / da.maximum(abs(b), 1)).compute()) for a, b in pairs)
    times = {
        "dask numpy-spelled": median_time(lambda: persist(dask_fn(*big)), repeat),
        "dask + fusejit": median_time(lambda: persist(jit_fn(*big)), repeat),
        "dask + fusejit 1thr": median_time(lambda: one_thread(jit_fn, big), repeat),
        "fusejit chunk loop": median_time(lambda: [jit_fn(*c) for c in blocks], repeat),
        "fusejit in memory": median_time(lambda: jit_fn(*small_np), repeat) * scale,
        "numpy in memory": median_time(lambda: numpy_fn(*small_np), repeat) * scale,
    }
    base = {"dask numpy-spelled": times["numpy in memory"],
            "dask + fusejit": times["fusejit chunk loop"],
            "dask + fusejit 1thr": times["fusejit chunk loop"]}
    print(f"{name}: {chunks} chunks (max rel diff fusejit vs dask {err:.1e})")
    for key, t in times.items():
        extra = (f"   overhead/chunk {(t - base[key]) / chunks * 1e3:8.3f} ms"
                 if key in base else "")
        ratio = times["dask numpy-spelled"] / t
        print(f"  {key:20s} {t * 1e3:10.1f} ms   dask-numpy/this = {ratio:5.2f}x{extra}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log2-size", type=int, default=28)
    parser.add_argument("--log2-chunk", type=int, default=22)
    parser.add_argument("--log2-memory", type=int, default=24,
                        help="size of the in-memory rows (scaled to --log2-size)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    dask.config.set(scheduler="threads")
    rng = da.random.default_rng(0)
    memory = min(args.log2_memory, args.log2_size)
    jit_lstm, jit_chain = fusejit.jit(fusion.lstm_pointwise), fusejit.jit(fusion.chain)

    chunk_rows = (1 << args.log2_chunk) // (4 * HIDDEN)
    run_case(f"LSTM pointwise, gates 2^{args.log2_size} elements", jit_lstm,
             fusion.lstm_pointwise, lstm_dask, lstm_inputs(args.log2_size, chunk_rows, rng),
             lstm_inputs(memory, chunk_rows, rng), args.repeat)
    run_case(f"12-op chain, 2^{args.log2_size} elements", jit_chain, fusion.chain, chain_dask,
             chain_inputs(args.log2_size, 1 << args.log2_chunk, rng),
             chain_inputs(memory, 1 << args.log2_chunk, rng), args.repeat)


if __name__ == "__main__":
    main()
