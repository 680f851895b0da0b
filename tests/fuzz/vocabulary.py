"""What the fuzzer's graphs are made of: dtypes, op names, the hostile names, and the records
for one value (:class:`Meta`) and one generated graph (:class:`FuzzCase`).

A ``Meta`` is the generator's knowledge of a value, e.g. ``%v5`` is a float32 tensor of shape
(3, 1), exact (see ``tolerances.py``)::

    %v5 : Float(3, 1, requires_grad=0, device=cpu) = aten::mul(%i1, %i2)
"""

from __future__ import annotations

import numpy as np

F32, F64, I64, BOOL = (np.dtype(t) for t in ("float32", "float64", "int64", "bool"))
MAX_NUMEL = 720

# Hostile debug names and a hostile source file name: any of these words in a kernel's
# source means text was copied from the graph.
HOSTILE_WORDS = ("__import__", "evil_payload", "os_system", "subprocess_popen", "__builtins__")
HOSTILE_SOURCE = "evil_source_file.py"

INEXACT_UNARY = tuple("exp log tanh sigmoid sin cos atan log1p expm1 erf rsqrt acos asin cosh "
                      "sinh tan log10 log2 erfc".split())
EXACT_FLOAT_UNARY = ("sqrt", "reciprocal")
SAME_UNARY = ("abs", "neg", "relu")
ROUNDING_UNARY = ("floor", "ceil", "trunc", "round", "frac")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
FLOAT_CONSTANTS = (0.5, -1.25, 2.0, 0.1, 3.0, -0.3, 1e-3)
INT_CONSTANTS = (0, 1, 2, 3, -2)


class Meta:
    """What the generator knows of one value: a tensor's shape and dtype, or a scalar's kind."""

    __slots__ = ("name", "shape", "dtype", "exact", "scalar")

    def __init__(self, name: str, shape: tuple[int, ...] = (), dtype: np.dtype = F32,
                 exact: bool = True, scalar: str | None = None):
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.exact = exact
        self.scalar = scalar          # None for tensors, else "float" | "int" | "bool"

    def proxy(self):
        return np.zeros(self.shape, self.dtype)

    @property
    def kind(self) -> str:
        return {"b": "bool", "i": "int", "f": "float"}[self.dtype.kind]


class FuzzCase:
    """A generated graph: its text, its call arguments and what each value name must satisfy."""

    __slots__ = ("text", "args", "exact", "hostile")

    def __init__(self, text: str, args: list, exact: dict[str, bool], hostile: bool):
        self.text = text
        self.args = args
        self.exact = exact
        self.hostile = hostile

    def __repr__(self) -> str:
        described = [f"array({a.dtype}, shape={a.shape}, strides={a.strides})"
                     if isinstance(a, np.ndarray) else repr(a) for a in self.args]
        return f"FuzzCase(\n{self.text}\nargs={described})"


