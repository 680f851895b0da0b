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

A stage compiled for known shapes (the example's, ``autodiff/whole.py``) writes one of the
two: the loop nest, whose else raises ``SHAPES_CHANGED``, where the example's operands have the
output's shape, and NumPy's expression alone where one broadcasts. The fallback that is never
run was a fifth of the stages' compile time (six losses of ``test_stranger_grads``: 36.0 CPU
seconds with both, 29.1 with one).

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
# Raised by a stage compiled for its example's shapes (``decide``) when an operand's shape
# differs from the example's there (``autodiff/whole.py`` then runs the stage's general form).
SHAPES_CHANGED = "fusejit: an operand's shape differs from the compiled example's"


class Elements:
    """The operands (leaves) of the expressions being built, by token."""

    def __init__(self, shape_of: Callable[[str], tuple | None] = lambda name: None):
        self.leaves: list[tuple[str, int]] = []   # (text in the stage function, rank)
        self.on = False                            # building a loop expression now
        self.shape_of = shape_of                   # an operand's shape in the example

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
        pairs = list(dict.fromkeys((names[k], names[full[0]], rank - self.leaves[k][1])
                                   for k in ids if self.leaves[k][1] != 0
                                   and names[k] != names[full[0]]))
        checks = shape_checks(pairs)
        verdict = decide(pairs, self.shape_of) if checks else None
        whole = _TOKEN.sub(lambda m: names[int(m.group(1))], expr)
        if verdict is False:   # (an operand broadcasts in the example: NumPy's expression)
            return lines + [(0, f"{out} = {whole}")]
        indent = 1 if checks else 0
        if checks:
            lines.append((0, f"if {' and '.join(checks)}:"))
        lines.append((indent, f"{out} = np.empty({shape}, np.{dtype.name})"))
        for d, i in enumerate(index):
            lines.append((indent + d, f"for {i} in range({out}.shape[{d}]):"))
        lines.append((indent + rank, f"{out}[{', '.join(index)}] = {_TOKEN.sub(element, expr)}"))
        if checks:
            lines += [(0, "else:"), (1, f"raise ValueError({SHAPES_CHANGED!r})" if verdict
                                     else f"{out} = {whole}")]
        return lines


def shape_checks(pairs: list[tuple[str, str, int]]) -> list[str]:
    """``name.shape == full.shape[drop:]`` for each ``(name, full, drop)``."""
    return [f"{name}.shape == {full}.shape" if drop == 0
            else f"{name}.shape == {full}.shape[{drop}:]" for name, full, drop in pairs]


def decide(pairs: list[tuple[str, str, int]],
           shape_of: Callable[[str], tuple | None]) -> bool | None:
    """Do all of ``shape_checks(pairs)`` hold in the example a stage is compiled for (its
    operands' shapes there: ``shape_of``)? None where an operand's shape is not known."""
    verdict = True
    for name, full, drop in pairs:
        mine, theirs = shape_of(name), shape_of(full)
        if mine is None or theirs is None:
            return None
        verdict = verdict and mine == theirs[drop:]
    return verdict


class Region:
    """Consecutive pointwise nodes of one block as one loop nest, in a function of its own
    (``element_stage`` checks the operands' shapes before calling it, so its indexing is
    unchecked and vectorises): each node's element is a local, and only the values read
    after the region are stored, into the arrays the function returns::

        if v22.shape == v13.shape and v5.shape == v13.shape[1:]:
            (v23, ) = _region1(v13.shape, v13, v22, v5)
        else:   # (an operand broadcasts: the same function on broadcast copies)
            shape2 = np.broadcast_shapes(v13.shape, v22.shape, v5.shape, )
            (v23, ) = _region1(shape2, np.ascontiguousarray(np.broadcast_to(v13, shape2[0:])),
                               ...)

    An operand that is a slice of an array along one dim (a chunk of the LSTM's gates) is
    read from that array at an offset, so the function sees C-ordered arrays only (such a
    region's fallback runs each node as NumPy's expression instead)."""

    def __init__(self, rank: int):
        self.rank = rank
        self.index = [f"k{d}" for d in range(rank)]
        self.arguments: dict[str, str] = {}   # text in the caller -> parameter name
        self.lines: list[str] = []
        self.outputs: list[str] = []
        self.starts: list[str] = []   # the parameters that are offsets
        self.parts: list[str] = []    # the locals stored side by side into one joined array
        self.joined_dim = 0

    def argument(self, text: str) -> str:
        """The parameter that takes ``text`` of the caller."""
        if text not in self.arguments:
            self.arguments[text] = f"a{len(self.arguments)}"
        return self.arguments[text]

    def element(self, array: str, rank: int, offset: tuple[int, str] | None = None) -> str:
        """The element of ``array`` (of ``rank`` <= the nest's; trailing indices) at the
        nest's index; ``offset`` (dim, text): ``array`` is read that far along dim."""
        index = self.index[self.rank - rank:]
        if offset is not None:
            dim, start = offset
            name = self.argument(start)
            self.starts += [name] if name not in self.starts else []
            index[dim] = f"{name} + {index[dim]}"
        return f"{self.argument(array)}[{', '.join(index)}]"

    def local(self, expr: str, stored: bool) -> str:
        """A local holding ``expr``'s element, also stored into a returned array if
        ``stored``."""
        name = f"t{len(self.lines)}"
        self.lines.append(f"{name} = {expr}")
        if stored:
            self.outputs.append(name)
        return name

    def join(self, expr: str, dim: int) -> None:
        """Store ``expr``'s element as the next part of the joined array (``np.concatenate``
        of the parts along ``dim``, each of the nest's shape), returned last."""
        self.parts.append(self.local(expr, False))
        self.joined_dim = dim

    def source(self, fn: str, shape: str, dtype: np.dtype) -> str:
        """The function's module text; its parameters are ``self.arguments`` in order."""
        shape = self.argument(shape)
        index = ", ".join(self.index)
        outs = [f"o{i}" for i in range(len(self.outputs))]
        # (no disk cache and no CPython wrapper of its own: only the stage function calls it,
        # and the stage's cached code holds it. Each was a cached function of its own: its
        # object code written out separately, and a wrapper boxing a tuple of arrays)
        lines = ["@njit(error_model=\"numpy\", no_cpython_wrapper=True)",
                 f"def {fn}({', '.join(self.arguments.values())}):"]
        # (an offset LLVM cannot prove >= 0 keeps Numba's negative-index wraparound in the
        # loop, which then does not vectorise: the LSTM's forward took 4.0 ms, not 2.5)
        lines += [f"    {a} = max({a}, 0)" for a in self.starts]
        lines += [f"    {o} = np.empty({shape}, np.{dtype.name})" for o in outs]
        stores = [f"{o}[{index}] = {t}" for o, t in zip(outs, self.outputs)]
        if self.parts:
            d = self.joined_dim
            sizes = "".join(f"{len(self.parts)} * {shape}[{k}], " if k == d else
                            f"{shape}[{k}], " for k in range(self.rank))
            lines.append(f"    joined = np.empty(({sizes}), np.{dtype.name})")
            for p, t in enumerate(self.parts):
                lines.append(f"    s{p} = max({p} * {shape}[{d}], 0)")
                at = [f"s{p} + {k}" if k == self.index[d] else k for k in self.index]
                stores.append(f"joined[{', '.join(at)}] = {t}")
            outs.append("joined")
        for d, k in enumerate(self.index):
            lines.append(f"{'    ' * (d + 1)}for {k} in range({shape}[{d}]):")
        inner = "    " * (self.rank + 1)
        lines += [inner + line for line in self.lines + stores]
        lines.append(f"    return ({''.join(o + ', ' for o in outs)})")
        return "\n".join(lines) + "\n\n\n"


__all__ = ["LOOP_KINDS", "Elements", "Region"]
