"""Write tests/data/op_reference.npz: what PyTorch computes for a table of op calls.

Run with PyTorch installed (``pip install torch==2.13.0``, CPU)::

    python tools/make_op_reference.py

The file holds, for every case, its inputs, PyTorch's result (or the fact that PyTorch raised)
and a JSON description (``meta``): the op kind, and for each argument whether it is a tensor, a
Python scalar (int/float/bool), an int list, a string or None. The test suite reads it without
torch (tests/runtime/test_ops_reference.py) and runs fusejit's operator on the same inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "op_reference.npz"

F32 = np.array([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7], dtype=np.float32)
F64 = np.array([-3.25, -1.0, -0.75, 0.0, 0.25, 1.0, 2.5, 7.5], dtype=np.float64)
POS = np.array([0.1, 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 10.0], dtype=np.float32)
UNIT = np.array([-0.9, -0.5, -0.1, 0.0, 0.2, 0.4, 0.6, 0.95], dtype=np.float32)
I64 = np.array([-7, -3, -1, 0, 1, 2, 5, 9], dtype=np.int64)
I64_NZ = np.array([-4, 3, -2, 2, -3, 5, 7, 2], dtype=np.int64)
I32 = np.array([-5, -2, 0, 1, 3, 4, 6, 8], dtype=np.int32)
BOOLS = np.array([True, False, True, True, False, False, True, False])
F32_2D = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
ZERO_F64 = np.array(1.5, dtype=np.float64)
ZERO_I64 = np.array(3, dtype=np.int64)

UNARY = ("abs neg relu sigmoid tanh exp expm1 log log1p log2 log10 sqrt rsqrt reciprocal sin cos "
         "tan asin acos atan sinh cosh erf erfc lgamma ceil floor round trunc frac").split()
DOMAIN = {"log": POS, "log1p": POS, "log2": POS, "log10": POS, "sqrt": POS, "rsqrt": POS,
          "asin": UNIT, "acos": UNIT, "lgamma": POS}
BINARY = "add sub mul div remainder fmod atan2 max min pow".split()
COMPARE = "eq ne ge gt le lt".split()


# c10::ScalarType codes, which TorchScript passes where Python passes a torch.dtype
CODES = {6: torch.float32, 7: torch.float64, 4: torch.int64}


def code(c):
    return None if c is None else CODES[c]


def t(x):
    return ("tensor", np.asarray(x))


def s(x):
    return ("scalar", x)


def cases():
    """(aten kind, torch callable, arguments) triples."""
    out = []
    for name in UNARY:
        fn = getattr(torch, name)
        out.append((name, fn, [t(DOMAIN.get(name, F32))]))
        out.append((name, fn, [t(F64 if name not in DOMAIN else DOMAIN[name].astype(np.float64))]))
        if name not in ("frac",):
            out.append((name, fn, [t(I64 if name not in DOMAIN else np.abs(I64) + 1)]))
    out.append(("round", torch.round, [t(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5],
                                                  np.float32))]))
    mixes = [(t(F32), t(F32[::-1].copy() + 0.25)), (t(I64), t(I64_NZ)), (t(I64), t(F32)),
             (t(F32), t(ZERO_F64)), (t(I64), s(2.5)), (t(I32), t(ZERO_I64)), (t(I64), s(3)),
             (t(F64), s(-1.5)), (t(I32), t(I64_NZ))]
    for name in BINARY:
        fn = {"max": torch.maximum, "min": torch.minimum}.get(name, getattr(torch, name))
        for a, b in mixes:
            if b[0] == "scalar" and name in ("atan2", "max", "min"):
                continue
            if name in ("add", "sub"):  # graph nodes carry every argument: alpha too
                alpha = lambda x, y, alpha, fn=fn: fn(x, y, alpha=alpha)
                out.append((name, alpha, [a, b, s(1)]))
            else:
                out.append((name, fn, [a, b]))
    for a, b in [(t(F32), t(F32[::-1].copy())), (t(I64), s(0)), (t(I64), s(0.5)),
                 (t(BOOLS), t(BOOLS[::-1].copy())), (t(F64), t(ZERO_F64))]:
        for name in COMPARE:
            out.append((name, getattr(torch, name), [a, b]))
    for a, b in [(t(BOOLS), t(BOOLS[::-1].copy())), (t(I64), t(I64_NZ)), (t(BOOLS), t(I64))]:
        for name, fn in (("__and__", torch.bitwise_and), ("__or__", torch.bitwise_or),
                         ("__xor__", torch.bitwise_xor)):
            out.append((name, fn, [a, b]))
    for mode in ("trunc", "floor"):
        div = lambda a, b, rounding_mode, mode=mode: torch.div(a, b, rounding_mode=rounding_mode)
        out.append(("div", div, [t(F32), t(I64_NZ.astype(np.float32)), ("str", mode)]))
        out.append(("div", div, [t(I64), t(I64_NZ), ("str", mode)]))
    out += [
        ("add", lambda a, b, alpha: torch.add(a, b, alpha=alpha), [t(F32), t(F64[:8]), s(2)]),
        ("add", lambda a, b, alpha: torch.add(a, b, alpha=alpha), [t(I64), t(I64_NZ), s(-3)]),
        ("add", lambda a, b, alpha: torch.add(a, b, alpha=alpha), [t(I64), s(1.5), s(2)]),
        ("sub", lambda a, b, alpha: torch.sub(a, b, alpha=alpha), [t(F32), t(POS), s(0.5)]),
        ("add", lambda a, b, alpha: torch.add(a, b, alpha=alpha), [t(BOOLS), t(BOOLS), s(1)]),
        ("sub", lambda a, b, alpha: torch.sub(a, b, alpha=alpha), [t(BOOLS), t(BOOLS), s(1)]),
        ("add", lambda a, b, alpha: torch.add(a, b, alpha=alpha), [t(I64), t(I64), s(0.5)]),
        ("pow", torch.pow, [t(I64), s(-1)]),
        ("pow", torch.pow, [t(I64), s(2)]),
        ("pow", torch.pow, [s(2), t(I64_NZ)]),
        ("pow", torch.pow, [s(2.0), t(I64)]),
        ("pow", torch.pow, [s(-1.5), t(F64)]),
        ("pow", torch.pow, [t(np.array([-2, -1, 0, 1, 2, 3])),
                            t(np.array([-1, -3, 2, -2, -1, 0]))]),
        ("clamp", torch.clamp, [t(F32), s(-1.0), s(1.0)]),
        ("clamp", torch.clamp, [t(F32), s(0), ("none", None)]),
        ("clamp", torch.clamp, [t(F32), ("none", None), s(0.25)]),
        ("clamp", torch.clamp, [t(I64), s(-2), s(3)]),
        ("clamp", torch.clamp, [t(I64), s(-2.5), s(3)]),
        ("clamp", torch.clamp, [t(F32), s(2.0), s(1.0)]),
        ("clamp", torch.clamp, [t(np.array([np.nan, 1.0, -np.inf], np.float32)), s(0.0), s(2.0)]),
        ("threshold", torch.threshold, [t(F32), s(0.5), s(-9.0)]),
        ("threshold", torch.threshold, [t(I64), s(1), s(100)]),
        ("lerp", torch.lerp, [t(F32), t(POS), s(0.3)]),
        ("lerp", torch.lerp, [t(F32), t(POS), s(0.8)]),
        ("lerp", torch.lerp, [t(F32), t(POS), t(UNIT)]),
        ("addcmul", lambda a, b, c, value: torch.addcmul(a, b, c, value=value),
         [t(F32), t(POS), t(UNIT), s(0.5)]),
        ("addcmul", lambda a, b, c, value: torch.addcmul(a, b, c, value=value),
         [t(I64), t(I64_NZ), t(I64), s(2)]),
        ("where", torch.where, [t(BOOLS), t(F32), t(I64)]),
        ("where", torch.where, [t(BOOLS), t(I64), t(ZERO_F64)]),
        ("where", torch.where, [t(F32), t(F32), t(F32)]),
        ("type_as", lambda a, b: a.type_as(b), [t(F32), t(I64)]),
        ("sigmoid", torch.sigmoid, [t(BOOLS)]),
        ("neg", torch.neg, [t(BOOLS)]),
        ("mul", torch.mul, [t(BOOLS), t(BOOLS[::-1].copy())]),
        ("mul", torch.mul, [t(BOOLS), s(2.5)]),
        ("sum", lambda a, dtype: torch.sum(a, dtype=code(dtype)), [t(I32), ("none", None)]),
        ("sum", lambda a, dtype: torch.sum(a, dtype=code(dtype)), [t(BOOLS), ("none", None)]),
        ("sum", lambda a, d, k, dtype: torch.sum(a, d, k, dtype=code(dtype)),
         [t(F32_2D), ("ints", [1]), s(True), ("none", None)]),
        ("sum", lambda a, d, k, dtype: torch.sum(a, d, k, dtype=code(dtype)),
         [t(F32_2D), ("ints", [0, -1]), s(False), ("none", None)]),
        ("sum", lambda a, d, k, dtype: torch.sum(a, d, k, dtype=code(dtype)),
         [t(F32_2D), ("ints", [0]), s(False), s(7)]),
        ("softmax", lambda a, d, dtype: torch.softmax(a, d, dtype=code(dtype)),
         [t(F32_2D), s(1), ("none", None)]),
        ("softmax", lambda a, d, dtype: torch.softmax(a, d, dtype=code(dtype)),
         [t(F32_2D), s(0), s(7)]),
        ("mm", torch.mm, [t(F32_2D), t(F32_2D.T.copy())]),
        ("mm", torch.mm, [t(F32_2D), t(F32_2D)]),
        ("matmul", torch.matmul, [t(F32_2D), t(F32[:4].copy())]),
        ("cat", lambda ts, dim: torch.cat(ts, dim), [("tensors", [F32_2D, I64[:4].reshape(1, 4)]),
                                                    s(0)]),
        ("cat", lambda ts, dim: torch.cat(ts, dim), [("tensors", [F32_2D, F32_2D]), s(-1)]),
        ("stack", lambda ts, dim: torch.stack(ts, dim), [("tensors", [F32[:3], F64[:3]]), s(1)]),
        ("view", lambda a, size: a.view(size), [t(F32_2D), ("ints", [2, -1])]),
        ("view", lambda a, size: a.view(size), [t(F32_2D), ("ints", [5, -1])]),
        ("reshape", torch.reshape, [t(F32_2D), ("ints", [-1])]),
        ("select", torch.select, [t(F32_2D), s(1), s(-1)]),
        ("select", torch.select, [t(F32_2D), s(0), s(3)]),
        ("expand", lambda a, size, implicit: a.expand(size), [t(F32[:4].reshape(4, 1)),
                                                              ("ints", [2, -1, 3]), s(False)]),
        ("expand", lambda a, size, implicit: a.expand(size), [t(F32_2D), ("ints", [3, 5]),
                                                              s(False)]),
        ("item", lambda a: a.item(), [t(ZERO_F64)]),
        ("item", lambda a: a.item(), [t(F32)]),
    ]
    return out


def to_torch(arg):
    kind, value = arg
    if kind == "tensor":
        return torch.from_numpy(np.array(value))
    if kind == "tensors":
        return [torch.from_numpy(np.array(v)) for v in value]
    return value


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    meta = []
    for i, (kind, fn, args) in enumerate(cases()):
        entry = {"kind": f"aten::{kind}", "args": [], "error": False}
        for j, (arg_kind, value) in enumerate(args):
            if arg_kind == "tensor":
                arrays[f"c{i}_a{j}"] = np.asarray(value)
            elif arg_kind == "tensors":
                for k, v in enumerate(value):
                    arrays[f"c{i}_a{j}_{k}"] = np.asarray(v)
                entry.setdefault("list_len", {})[str(j)] = len(value)
            entry["args"].append({"kind": arg_kind, "value": None if arg_kind in (
                "tensor", "tensors") else value, "type": type(value).__name__})
        try:
            result = fn(*(to_torch(a) for a in args))
        except Exception as error:  # PyTorch refused: fusejit must refuse too
            entry["error"] = True
            entry["message"] = str(error).splitlines()[0][:200]
        else:
            if isinstance(result, torch.Tensor):
                arrays[f"c{i}_out"] = result.numpy().copy()
                entry["result"] = "tensor"
            else:
                entry["result"] = type(result).__name__
                entry["value"] = result
        meta.append(entry)
    arrays["meta"] = np.array(json.dumps(meta))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(meta)} cases to {OUT} ({OUT.stat().st_size} bytes), "
          f"{sum(m['error'] for m in meta)} expected errors")


if __name__ == "__main__":
    main()
