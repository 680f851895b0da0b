"""Differential check of ``fusejit.jit`` against NumPy 2: result dtype, shape and value.

    python tools/numpy_dtype_diff.py              # every case, reference interpreter (~40 s)
    python tools/numpy_dtype_diff.py --fused      # one tuple program per dtype, fused kernels
    python tools/numpy_dtype_diff.py --refused    # also list what fusejit refuses

Cases are one-line programs over an array ``a`` of each supported dtype (and ``b``): operators
with Python numbers (weak) and NumPy scalars (strong), mixed-dtype arrays, ufuncs, reductions,
``where``/``clip``/``maximum``, ``astype``, creation functions, shapes in arithmetic. Each is
scripted as ``fusejit.jit`` scripts it for its arguments' types and run on the reference
interpreter (the dtype rules are the frontend's), or, with ``--fused``, batched into one tuple
program per array dtype and called through ``fusejit.jit`` with tiering off (fused kernels, then
the whole-graph function). A case differs when fusejit returns another dtype, shape or value
(rtol 1e-5), or returns where NumPy raises; a ``FusejitError`` is a refusal, not a
difference. A Python number where NumPy gives a NumPy scalar of the same value and dtype (and
a 0-d array for a NumPy scalar) is not reported. ``tests/frontend/test_numpy_dtype_rules.py``
holds a cheap subset.
"""

from __future__ import annotations

import argparse
import itertools
import linecache
import os
import sys
import warnings

import numpy as np

DTYPES = ("f32", "f64", "i32", "i64", "i8", "u8", "b")
SCALARS = ("2", "2.5", "True", "np.float64(2)", "np.float32(2)", "np.int64(2)", "np.int32(3)",
           "np.sqrt(2)", "np.sqrt(a.shape[1])", "float(np.sqrt(2))", "np.float32(a.shape[0])")
ONE_ARRAY = (
    "a.sum()", "a.sum(axis=0)", "a.prod()", "a.mean()", "a.mean(axis=1)", "a.max()",
    "a.min(axis=0)", "a.std()", "a.var(axis=0)", "a.cumsum(axis=1)", "a.argmax()", "a.any()",
    "a.sum(dtype=np.int32)", "np.sum(a > 0)", "np.mean(a > 0)", "a @ a.T",
    "a @ a.T / np.sqrt(a.shape[1])", "np.linalg.norm(a)", "np.dot(a[0], a[1])",
    "np.einsum('ij,ij->i', a, a)", "np.trace(a)", "np.where(a > 0, a, 0)",
    "np.where(a > 0, a, 0.5)", "np.where(a > 0, 1, 0)", "np.where(a > 0, 1.0, 0.0)",
    "np.clip(a, 0, 1)", "np.clip(a, 0.5, 2.5)", "np.maximum(a, 0)", "np.maximum(a, 0.5)",
    "np.maximum(a, np.float32(0.5))", "a.astype(np.float32)", "a.astype(np.int32)",
    "a.astype(float)", "a.astype(bool)", "np.zeros_like(a)", "np.ones_like(a)",
    "np.full_like(a, 2.5)", "np.zeros(a.shape)", "np.full(a.shape, 3)",
    "np.full(a.shape, a.shape[0])", "np.arange(a.shape[0])", "np.arange(0, 1, 0.25)",
    "np.arange(a.shape[1]) * 0.5", "np.linspace(0, 1, a.shape[1])", "np.eye(a.shape[0])",
    "a * a.shape[0]", "a / a.shape[0]", "a / len(a)", "a / a.size", "a + np.pi",
    "a ** 2", "np.power(a, 2)", "np.square(a)", "np.round(a)", "np.sqrt(a)", "np.exp(a)",
    "np.abs(a)", "np.sign(a)", "np.floor(a)", "np.isnan(a)", "np.logical_not(a)", "-a",
    "a // 2", "a % 3", "a - True", "a + 300", "a + 2 ** 40", "a * a.shape[0] ** 2",
    "np.stack([a, a.astype(np.float64)])", "np.concatenate([a, a.astype(np.int64)])",
    "np.cov(a)", "np.polyval(a[0], 2)", "(a > 0) & (a < 2)", "(a > 0) * 1.5")
TWO_ARRAYS = ("a + b", "a * b", "a / b", "a // b", "np.maximum(a, b)", "np.where(a > 0, a, b)",
              "a < b", "np.clip(a, b, 3)")


def cases() -> list[tuple[str, tuple]]:
    """(expression, argument dtypes) of every case."""
    out = [(f"a {op} {s}", (d,)) for d in DTYPES for s in SCALARS for op in "+-*/"]
    out += [(f"{s} * a", (d,)) for d in DTYPES for s in SCALARS]
    out += [(e, (d,)) for d in DTYPES for e in ONE_ARRAY]
    out += [(e, (d, e2)) for d, e2 in itertools.product(DTYPES, DTYPES) for e in TWO_ARRAYS]
    return out


def arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ints = rng.integers(-9, 9, (3, 4))
    return {"f32": (rng.standard_normal((3, 4)) * 3).astype(np.float32),
            "f64": rng.standard_normal((3, 4)) * 3, "i32": ints.astype(np.int32), "i64": ints,
            "i8": ints.astype(np.int8), "u8": np.abs(ints).astype(np.uint8), "b": ints > 0}


_names = itertools.count()


def function(expression: str, params: str):
    """``def f(params): return expression`` with its source where ``inspect`` reads it."""
    file = f"<dtype diff {next(_names)}>"
    text = f"def f({params}):\n    return {expression}\n"
    linecache.cache[file] = (len(text), None, text.splitlines(True), file)
    scope = {"np": np}
    exec(compile(text, file, "exec"), scope)
    return scope["f"]


def numpy_result(fn, args: tuple):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*(a.copy() for a in args))


def difference(got, want) -> str | None:
    """How ``got`` differs from NumPy's ``want`` in dtype, shape or value (None: it does not)."""
    got, want = (v if isinstance(v, tuple) else (v,) for v in (got, want))
    if len(got) != len(want):
        return f"{len(got)} results, NumPy {len(want)}"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if (g.dtype, g.shape) != (w.dtype, w.shape):
            return f"{g.dtype}{g.shape}, NumPy {w.dtype}{w.shape}"
        close = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-6,
                            equal_nan=True) if w.dtype.kind == "f" else np.array_equal(g, w)
        if not close:
            return f"values {g.ravel()[:4]}, NumPy {w.ravel()[:4]}"
    return None


def reference(fn, args: tuple):
    """``fn`` scripted for ``args``' types as ``fusejit.jit`` does, on the reference loop."""
    from fusejit.frontend.jit import argument_ir_type
    from fusejit.frontend.script import script
    from fusejit.runtime.executor import compile as compile_graph

    types = [argument_ir_type(f"a{i}", a) for i, a in enumerate(args)]
    return compile_graph(script(fn, types), engine="reference")(*args)


def check_each(show_refused: bool) -> int:
    import fusejit

    data, differ, refused, total = arrays(), 0, 0, 0
    for expression, dtypes in cases():
        total += 1
        fn = function(expression, ", ".join("ab"[:len(dtypes)]))
        args = tuple(data[d] for d in dtypes)
        try:
            want = numpy_result(fn, args)
        except Exception:  # noqa: BLE001 - NumPy refuses it: fusejit must refuse it too
            want = None
        try:
            with np.errstate(all="ignore"):
                got = reference(fn, tuple(a.copy() for a in args))
        except fusejit.FusejitError as error:
            refused += want is not None
            if show_refused and want is not None:
                print(f"refused  {expression:42} {dtypes}: {str(error).splitlines()[0][:90]}")
            continue
        why = "NumPy raises" if want is None else difference(got, want)
        if why:
            differ += 1
            print(f"DIFFERS  {expression:42} {dtypes}: {why}")
    print(f"{total} cases: {differ} differ, {refused} refused", file=sys.stderr)
    return differ


def check_fused() -> int:
    import fusejit

    os.environ["FUSEJIT_TIERING"] = "0"   # (kernels compile at once: the first call runs them)
    data, differ = arrays(), 0
    for d in DTYPES:
        kept = []
        for expression, dtypes in cases():
            if dtypes != (d,):
                continue
            fn = function(expression, "a")
            try:
                want = numpy_result(fn, (data[d],))
                if difference(reference(fn, (data[d].copy(),)), want) is None:
                    kept.append((expression, want))
            except Exception:  # noqa: BLE001 - refused or differing: check_each reports it
                continue
        jitted = fusejit.jit(function("(" + ", ".join(e for e, _ in kept) + ",)", "a"))
        for call in ("fused kernels", "whole graph"):
            with np.errstate(all="ignore"):
                got = jitted(data[d].copy())
            for (expression, want), g in zip(kept, got):
                why = difference(g, want)
                if why:
                    differ += 1
                    print(f"DIFFERS  {expression:42} ({d!r}) {call}: {why}")
        print(f"{d}: {len(kept)} expressions, twice", file=sys.stderr)
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fused", action="store_true", help="through fusejit.jit's kernels")
    parser.add_argument("--refused", action="store_true", help="list refusals too")
    options = parser.parse_args()
    sys.exit(1 if (check_fused() if options.fused else check_each(options.refused)) else 0)


if __name__ == "__main__":
    main()
