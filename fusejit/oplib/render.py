"""What an op's kernel renderer sees and may ask for, and the dtype rules renderers share.

A renderer turns one node of a fusion group into the expression that computes one element. It
receives the node's operands (names we made or formatted literals, with dtypes) and the result
dtype its entry's ``dtype`` rule gave, and returns the expression text::

    %5 : Float(*, *) = aten::add(%3, %4, %alpha)      # alpha = 2
        -> "a0 + k0 * a1"        where k0 = np.float32(2.0) at module level, dtype float32

Type promotion is ``fusejit.oplib.dtypes.result_type_from``; operands are cast to the compute
dtype before the op, as PyTorch's TensorIterator does, so ``float32 * 0.1`` multiplies by
``float32(0.1)``. The generator (``fusejit.runtime.fusion.codegen``) implements ``Emitter``
for CPU and CUDA kernels; one renderer serves both targets.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import IRError
from .dtypes import DEFAULT_FLOAT, result_type_from, scalar_dtype

BOOL = np.dtype(np.bool_)
FLOAT32 = np.dtype(np.float32)
_NO_VALUE = object()


class Operand:
    """One input of a node as the generator sees it: text, dtype and how it promotes."""

    __slots__ = ("expr", "dtype", "kind", "value")

    def __init__(self, expr: str, dtype: np.dtype, kind: str, value: object = _NO_VALUE):
        self.expr = expr
        self.dtype = np.dtype(dtype)
        self.kind = kind          # "tensor", "zero_dim" or "scalar"
        self.value = value        # a constant's Python value, else _NO_VALUE

    @property
    def is_constant(self) -> bool:
        return self.value is not _NO_VALUE

    @property
    def is_none(self) -> bool:
        return self.value is None

    @property
    def is_tensor(self) -> bool:
        return self.kind != "scalar"

    def promotion(self) -> tuple[np.dtype, str]:
        if self.kind == "scalar":
            return scalar_dtype(self.value if self.is_constant else self.dtype.type(0)), "scalar"
        return self.dtype, self.kind


class Emitter:
    """What a renderer may ask of the generator (implemented in ``runtime.fusion.codegen``)."""

    def cast(self, op: Operand, dtype: np.dtype) -> str:
        raise NotImplementedError

    def literal(self, value: object, dtype: np.dtype) -> str:
        raise NotImplementedError

    def guard(self, condition: str) -> None:
        """Set the kernel's status flag where ``condition`` holds (integer division by zero
        cannot raise inside a parallel loop; the caller turns the flag into an error)."""
        raise NotImplementedError

    def math(self, kind: str, libm: str, x: str, dtype: np.dtype) -> str:
        """Unary ``kind`` of ``x`` in ``dtype``, whose exact form is the text ``libm``: the
        target's vectorisable form when it has one (``runtime.fusion.templates.fast_name``),
        else ``libm``, computed where it keeps the rest of the loop vectorising."""
        raise NotImplementedError

    def checked(self, fast: str, exact: str, when: str) -> str:
        """The text ``fast`` (vectorisable, right where the boolean text ``when`` is False),
        with the elements where ``when`` holds recomputed as ``exact`` (a libm call) on CPU;
        ``exact`` alone where the target does not vectorise (CUDA, ``precise``)."""
        raise NotImplementedError

    def vectorised(self, name: str) -> str | None:
        """The vectorised function ``name`` (``vm.<name>``, or ``vs.<name>`` for the special
        functions) where the target vectorises it (CPU, not ``precise``), else None."""
        raise NotImplementedError

    def function(self, name: str) -> str:
        """The callable text for a rounding function or ``fmod`` (NumPy's names) on the
        generator's target: ``np.trunc`` on CPU, a device helper on CUDA."""
        raise NotImplementedError

    def random(self, dtype: np.dtype) -> str:
        """A uniform sample in [0, 1) of ``dtype``, fresh for every element."""
        raise NotImplementedError

    def hoist(self, expr: str) -> str | None:
        """A name for the value of ``expr`` (of the kernel's number arguments ``s0``, ``s1``
        and constants only), computed once per call before the loops; None where the target
        has no place for it (the renderer then computes per element)."""
        return None

    def guard_once(self, condition: str) -> None:
        """``guard`` for a ``condition`` of the kernel's number arguments alone: tested once
        per call where the target hoists (a test and store in the loop cost an int64 division
        by an argument a third of its time), else per element."""
        self.guard(condition)


def integer_division(cx: Emitter, helper: str, a: str, b: Operand, dtype: np.dtype) -> \
        str | None:
    """``h.<helper>_by(a, b, ...)``: int64 ``a`` divided by the kernel's number argument ``b``
    with the magic number ``h.divider`` computes once per call (``Emitter.hoist``), rather than
    an idiv per element (NumPy divides by a scalar so, with libdivide), its zero test once per
    call too; None where ``b`` is not such an argument or the target has no hoist: the caller
    then divides per element, and guards."""
    if dtype != np.dtype(np.int64) or b.kind != "scalar" or b.is_constant or \
            b.dtype != np.dtype(np.int64):
        return None
    divider = cx.hoist(f"h.divider({b.expr})")
    if divider is None:
        return None
    cx.guard_once(f"{b.expr} == 0")
    numbers = ", ".join(f"{divider}[{i}]" for i in range(4))
    return f"h.{helper}_by({a}, {b.expr}, {numbers})"


# render(cx, node, operands, dtype) -> expression text
Renderer = Callable[[Emitter, object, list[Operand], np.dtype], str]
DtypeRule = Callable[[list[Operand]], np.dtype]


def fail(node, why: str) -> IRError:
    where = f" ({node.source_range})" if getattr(node, "source_range", None) else ""
    return IRError(f"cannot compile {node.kind} in a fused kernel: {why}{where}")


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def float_of(dtype: np.dtype) -> np.dtype:
    """Float ops compute integers and bools in the default float dtype."""
    return dtype if is_float(dtype) else DEFAULT_FLOAT


def promote_operands(ops: list[Operand]) -> np.dtype:
    return result_type_from([op.promotion() for op in ops if not op.is_none])


# -- dtype rules (each entry names one; the NumPy bodies follow the same rules) ------------------

def promoted(first: int = 0, stop: int | None = None) -> DtypeRule:
    """PyTorch's promotion of operands ``first:stop``."""
    return lambda ops: promote_operands(ops[first:stop])


def floating(first: int = 0, stop: int | None = None) -> DtypeRule:
    """Promotion of operands ``first:stop``, integers and bools made the default float."""
    return lambda ops: float_of(promote_operands(ops[first:stop]))


def same_as(index: int) -> DtypeRule:
    """The dtype of operand ``index``."""
    return lambda ops: ops[index].dtype


def fixed(dtype: np.dtype) -> DtypeRule:
    dtype = np.dtype(dtype)
    return lambda ops: dtype
