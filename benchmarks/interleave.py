"""Kernels compiled with and without interleaved vector loops (``fusion/interleave.py``), on
``heldout.py``'s chains: one thread's CPU time per element, runs alternated, each setting in a
fresh process with a cache directory of its own.

    python benchmarks/interleave.py [--rounds R] [--log2n L] [--inline-pow] [CHAIN ...]

A CHAIN is a hand-written chain's name (``trig_mix``) or a random chain's seed (``5412``);
by default all 16 hand-written ones. "off" raises ``interleave.FROM_NS`` past every kernel
(which also turns off long kernels' inline pow, ``interleave.inline_pow``).
Prints each run's ns an element and the ratio of the medians (off / on: above 1, the
interleaved kernels are faster).

``--inline-pow`` compares instead where float32 pow is computed: "off" is the library's
``interleave.INLINE_POW_FROM_NS`` (kernels below it call the host's vector pow and do not
interleave), "on" lowers it to ``FROM_NS`` (every interleaved kernel computes pow inline).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

_CHILD = r"""
import os, sys, time, statistics
import numpy as np
sys.path.insert(0, {here!r})
os.environ.setdefault("FUSEJIT_TIERING", "0")
import fusejit.runtime.fusion.interleave as il
if {off!r} and not {inline!r}:
    il.FROM_NS = float("inf")
if {inline!r} and not {off!r}:
    il.INLINE_POW_FROM_NS = il.FROM_NS
import heldout, fusejit
fusejit.set_num_threads(1)
name = {name!r}
fn = heldout.random_chain(int(name))[0] if name.isdigit() else getattr(heldout, name)
n = 1 << {log2n}
rng = np.random.default_rng(11)
data = tuple(rng.uniform(-2, 2, n).astype(np.float32) for _ in range(fn.__code__.co_argcount))
jf = fusejit.jit(fn)
with np.errstate(all="ignore"):
    jf(*data)
    times = []
    for _ in range(15):
        t0 = time.process_time()
        jf(*data)
        times.append(time.process_time() - t0)
print(statistics.median(times) * 1e9 / n)
"""

HAND_WRITTEN = ("gelu_tanh", "gelu_erf", "mish_softplus", "trig_mix", "hyperbolic", "log_family",
                "special_fns", "pow_tensor", "logistic_loss", "gauss_pdf", "lennard_jones",
                "haversine", "piecewise", "black_scholes", "rsqrt_angle", "log_sigmoid_mix")


def run(name: str, off: bool, log2n: int, cache: str, inline: bool = False) -> float:
    env = dict(os.environ, FUSEJIT_CACHE_DIR=cache, FUSEJIT_QUIET="1")
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), off=off, name=name,
                         log2n=log2n, inline=inline)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chains", nargs="*", default=list(HAND_WRITTEN))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--log2n", type=int, default=22)
    parser.add_argument("--inline-pow", action="store_true",
                        help="compare float32 pow inline in every interleaved kernel (on) with "
                             "the library's bound (off)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as off_cache, tempfile.TemporaryDirectory() as on_cache:
        for name in args.chains:
            off, on = [], []
            for _ in range(args.rounds):
                off.append(run(name, True, args.log2n, off_cache, args.inline_pow))
                on.append(run(name, False, args.log2n, on_cache, args.inline_pow))
            ratio = statistics.median(off) / statistics.median(on)
            print(f"{name:18s} off {' '.join(f'{t:6.3f}' for t in off)}   on "
                  f"{' '.join(f'{t:6.3f}' for t in on)} ns/element   off/on {ratio:5.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
