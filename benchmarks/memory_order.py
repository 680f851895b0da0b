"""Fused kernels over transposed and F-ordered inputs against NumPy eager (and NumExpr where
installed), measured in the same run.

    PYTHONPATH=. python benchmarks/memory_order.py [--repeat N] [--threads N]

The expression is ``np.exp(a) * 0.5 + a`` for ``a`` = ``x.T`` (a transposed C array),
an F-ordered array, and a C array (for reference), x of 1024^2 and 2048^2 float32 and
float64; through ``@fusejit.jit`` and through the group's ``FusedKernel``. NumPy's result
keeps the input's memory order (``order='K'``), and so do the kernel's outputs, whose loop
runs in memory order (``fusion/plan.py``, ``_memory_order``). Prints median wall times of
``--repeat`` calls and NumPy's time over each (above 1: faster than NumPy).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("FUSEJIT_TIERING", "0")      # (kernels from the first call)

import numpy as np  # noqa: E402
from fusion import median_time  # noqa: E402  (this folder's benchmarks/fusion.py)

import fusejit  # noqa: E402
from fusejit.runtime.fusion import FusedKernel, set_num_threads  # noqa: E402

GROUP = """graph(%x : Tensor):
  %half : float = prim::Constant[value=0.5]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::mul(%a, %half)
  %c : Tensor = aten::add(%b, %x, %one)
  return (%c)
"""


def expression(a):
    return np.exp(a) * 0.5 + a


def layouts(n: int, dtype) -> dict[str, np.ndarray]:
    x = np.random.default_rng(0).random((n, n)).astype(dtype)
    return {"x.T": x.T, "F-ordered": np.asfortranarray(x), "C": x}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--threads", type=int, default=0, help="kernel threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        set_num_threads(args.threads)
    try:
        import numexpr as ne
    except ImportError:
        ne = None
    jitted = fusejit.jit(expression)
    kernel = FusedKernel(fusejit.parse_ir(GROUP))
    print(f"np.exp(a) * 0.5 + a, medians of {args.repeat}; ratio = numpy time / this time")
    for n in (1024, 2048):
        for dtype in (np.float32, np.float64):
            for name, a in layouts(n, dtype).items():
                want = expression(a)
                got = jitted(a)
                np.testing.assert_allclose(got, want, rtol=1e-6)
                assert got.strides == want.strides, (got.strides, want.strides)
                calls = {"numpy eager": expression, "fusejit.jit": jitted,
                         "FusedKernel": kernel}
                if ne is not None:
                    calls["numexpr"] = lambda a: ne.evaluate("exp(a) * 0.5 + a",
                                                             local_dict={"a": a})
                times = {key: median_time(lambda fn=fn, a=a: fn(a), args.repeat)
                         for key, fn in calls.items()}
                base = times["numpy eager"]
                cells = "  ".join(f"{key} {t * 1e3:8.3f} ms ({base / t:5.2f}x)"
                                  for key, t in times.items())
                print(f"{n}^2 {np.dtype(dtype).name:7s} {name:9s}  {cells}")


if __name__ == "__main__":
    main()
