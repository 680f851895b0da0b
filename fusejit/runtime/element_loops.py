"""Pointwise expressions of a compiled training stage written as explicit loops.

The stage writer (``element_stage``) inlines single-use ``add``/``sub``/``mul``/``neg`` into one
NumPy expression, which Numba compiles as an array expression: a broadcasting loop that is not
vectorised, about 0.9 us for 16x64 float64 elements here. Written as a loop nest over the
output's elements it takes 0.2-0.35 us (bounds-checked, as the stage functions are)::

    v43 = ((v27 * v35) * (v36 * ((-v36) + np.float64(v16))))

becomes::

    if v35.shape == v27.shape and v36.shape == v27.shape:
        v43 = np.empty(v27.shape, np.float64)
        for k4 in range(v43.shape[0]):
            for k5 in range(v43.shape[1]):
                v43[k4, k5] = ((v27[k4, k5] * v35[k4, k5]) * (v36[k4, k5] * ...))
    else:   # (broadcast over a dim of size 1: NumPy's own expression)
        v43 = ((v27 * v35) * (v36 * ((-v36) + np.float64(v16))))

While the writer builds such an expression its operands are *tokens* (``Elements.leaf``), so
that each operand can be indexed once the whole expression is known; operands of lower rank are
indexed by the trailing indices (a bias row). ``div`` is left out: the stage functions raise
Python's ZeroDivisionError on scalars, where NumPy's arrays give inf.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

_TOKEN = re.compile("\x00([0-9]+)\x00")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# The kinds whose expressions become loops (their element forms cannot raise); ``type_as`` only
# of a comparison written into the same loop (relu's backward mask: ``element_stage``).
LOOP_KINDS = frozenset({"aten::add", "aten::sub", "aten::mul", "aten::neg", "aten::relu",
                        "aten::type_as"})
MAX_RANK = 4


class Elements:
    """The operands (leaves) of the expressions being built, by token."""

    def __init__(self):
        self.leaves: list[tuple[str, int]] = []   # (text in the stage function, rank)
        self.on = False                            # building a loop expression now

    def leaf(self, text: str, rank: int) -> str:
        """A token for operand ``text`` of ``rank`` (0: a number, used as it is)."""
        self.leaves.append((self.resolve(text), rank))
        return f"\x00{len(self.leaves) - 1}\x00"

    def resolve(self, text: str) -> str:
        """``text`` with its tokens back to their operands: the NumPy expression."""
        return _TOKEN.sub(lambda m: self.leaves[int(m.group(1))][0], text)

    def loop(self, out: str, expr: str, rank: int, dtype: np.dtype,
             fresh: Callable[[str], str]) -> list[tuple[int, str]] | None:
        """``out = expr`` as (indent, line) pairs of a loop nest, or None when ``expr`` has no
        operand of the output's rank (nothing to take the shape from)."""
        ids = list(dict.fromkeys(int(k) for k in _TOKEN.findall(expr)))
        full = [k for k in ids if self.leaves[k][1] == rank]
        if not full or not 1 <= rank <= MAX_RANK:
            return None
        lines: list[tuple[int, str]] = []
        names: dict[int, str] = {}
        for k in ids:
            text, r = self.leaves[k]
            if r == 0 or _IDENTIFIER.fullmatch(text):
                names[k] = text
            else:   # (an expression operand: computed once, before the loop)
                names[k] = fresh("e")
                lines.append((0, f"{names[k]} = {text}"))
        index = [fresh("k") for _ in range(rank)]

        def element(m: re.Match) -> str:
            k = int(m.group(1))
            r = self.leaves[k][1]
            return names[k] if r == 0 else f"{names[k]}[{', '.join(index[rank - r:])}]"

        shape = f"{names[full[0]]}.shape"
        checks = list(dict.fromkeys(
            f"{names[k]}.shape == {shape}" if self.leaves[k][1] == rank
            else f"{names[k]}.shape == {shape}[{rank - self.leaves[k][1]}:]"
            for k in ids if self.leaves[k][1] != 0 and names[k] != names[full[0]]))
        indent = 1 if checks else 0
        if checks:
            lines.append((0, f"if {' and '.join(checks)}:"))
        lines.append((indent, f"{out} = np.empty({shape}, np.{dtype.name})"))
        for d, i in enumerate(index):
            lines.append((indent + d, f"for {i} in range({out}.shape[{d}]):"))
        lines.append((indent + rank, f"{out}[{', '.join(index)}] = {_TOKEN.sub(element, expr)}"))
        if checks:
            whole = _TOKEN.sub(lambda m: names[int(m.group(1))], expr)
            lines += [(0, "else:"), (1, f"{out} = {whole}")]
        return lines


__all__ = ["LOOP_KINDS", "Elements"]
