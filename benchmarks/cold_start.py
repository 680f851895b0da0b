"""Cold start, each step in a fresh process: importing fusejit, the demo's first result with
empty caches and with warm ones, the first call of a cached function, a warm call; beside them
``numba.njit`` and ``jax.jit`` (when installed) on the same elementwise chain.

    python benchmarks/cold_start.py [--repeat N]

"Empty caches" means a new ``FUSEJIT_CACHE_DIR`` and a new ``NUMBA_CACHE_DIR`` (so nothing
fusejit or Numba compiled before is found). The empty-cache demo starts the native loop's
background compile; the script then waits for it (``warm_native(wait=True)``) and reports how
long the loop took to compile, before the warm-cache runs. Prints medians of ``--repeat`` fresh
processes for the warm steps (one run for the empty-cache steps, which take minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

FIRST_CALL = r"""
import time
start = time.perf_counter()
import numpy as np
{imports}
imported = time.perf_counter()
x = np.random.default_rng(0).uniform(-1, 1, 1 << 20).astype(np.float32)
y = np.random.default_rng(1).uniform(-1, 1, 1 << 20).astype(np.float32)
{define}
t0 = time.perf_counter()
np.asarray(fn(x, y))
t1 = time.perf_counter()
warm = []
for _ in range(20):
    a = time.perf_counter(); np.asarray(fn(x, y)); warm.append(time.perf_counter() - a)
warm.sort()
print(imported - start, t1 - t0, warm[len(warm) // 2])
"""

CHAIN = """
def chain(x, y):
    a = x * y
    b = a + x
    c = 1 / (1 + {np}.exp(-b))
    d = c * 0.5
    e = d - y
    f = {np}.tanh(e)
    g = f * f
    h = g + a
    i = {np}.exp(h)
    j = i / b
    k = -j
    return {np}.maximum(k, 0)
"""

ALTERNATIVES = {
    "fusejit.jit": ("import fusejit", "fusejit.jit(chain)", "np"),
    "numba.njit": ("import numba", "numba.njit(cache=True)(chain)", "np"),
    "jax.jit": ("import jax, jax.numpy as jnp", "jax.jit(chain)", "jnp"),
}


def run(code: str, env: dict, args: tuple = ()) -> tuple[float, str]:
    """Seconds and stdout of a fresh process running ``code`` (from a file: fusejit reads the
    source of the functions it scripts) or ``python *args``."""
    if not args:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(code)
        args = (f.name,)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                         timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"failed: {args}\n{out.stderr[-2000:]}")
    return time.perf_counter() - start, out.stdout


def demo_first_result(env: dict) -> tuple[float, float]:
    wall, out = run("", env, ("-m", "fusejit", "demo", "--repeat", "3"))
    first = float(re.search(r"first result in ([0-9.]+) s", out).group(1))
    return first, wall


def available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="fusejit-cold-")
    env = {**os.environ, "FUSEJIT_CACHE_DIR": os.path.join(root, "fusejit"),
           "NUMBA_CACHE_DIR": os.path.join(root, "numba"), "FUSEJIT_QUIET": "1"}
    rows = []
    imports = [run("import fusejit", env)[0] for _ in range(args.repeat)]
    rows.append(("python -c 'import fusejit' (whole process)", statistics.median(imports)))
    first, wall = demo_first_result(env)
    rows.append(("demo: first result, empty caches", first))
    rows.append(("demo: whole run, empty caches", wall))
    start = time.perf_counter()
    run("from fusejit.runtime.tiering import warm_native; warm_native(wait=True)", env)
    rows.append(("native loop compile finished (background, once a machine)",
                 time.perf_counter() - start))
    runs = [demo_first_result(env) for _ in range(args.repeat)]
    rows.append(("demo: first result, warm caches", statistics.median(r[0] for r in runs)))
    rows.append(("demo: whole run, warm caches", statistics.median(r[1] for r in runs)))
    print(f"{'step (fresh process each)':<62}{'seconds':>10}")
    for name, seconds in rows:
        print(f"{name:<62}{seconds:>10.2f}")
    print(f"\n12-op chain on 2^20 float32, fresh process each, median of {args.repeat}: "
          f"import, first call, warm call")
    print(f"{'':<22}{'caches':<8}{'import s':>10}{'first call s':>14}{'warm call ms':>14}")
    for name, (imports_line, define, np_name) in ALTERNATIVES.items():
        if not available(name.split(".")[0]):
            print(f"{name:<22}(not installed)")
            continue
        code = FIRST_CALL.format(imports=imports_line,
                                 define=CHAIN.format(np=np_name) + f"fn = {define}")
        alt_env = {**env, "NUMBA_CACHE_DIR": os.path.join(root, f"numba-{name}"),
                   "FUSEJIT_CACHE_DIR": os.path.join(root, f"fusejit-{name}")}
        for caches in ("empty", "warm"):
            samples = [run(code, alt_env)[1].split() for _ in
                       range(1 if caches == "empty" else args.repeat)]
            med = [statistics.median(float(s[k]) for s in samples) for k in range(3)]
            print(f"{name:<22}{caches:<8}{med[0]:>10.2f}{med[1]:>14.3f}{1000 * med[2]:>14.3f}")


if __name__ == "__main__":
    main()
