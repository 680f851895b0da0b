"""argmax and argmin in the row and column kernels (``rows.py``, ``columns.py``): where the
max (min) first occurs along the reduced axis, as NumPy finds it: the first NaN where there is
one, else the first of equal maxima (``-0.0 == 0.0``: the first zero of either sign).

**Rows of an input's own elements** (unit-stride): one search of the row,
``rowsearch.first_max`` (per vector lane the best value and the step it came in, one pass);
bools: the first True (``rowsearch.first_equal``), 0 where there is none, as NumPy's.
**Rows of computed elements** (a pointwise chain): a pass keeps, per block of the row, the
block's max from the fast pass the max reduction uses (``rm.fmax`` into vector accumulators)
and whether it holds a NaN (``rm.unordered``); the first block whose max beats every earlier
one is where the row's max first occurs. After the pass one more loop over that block finds
the first element equal to the max (a min-reduction of indices, which vectorises), and the
first block holding a NaN is searched for it the same way. The searched block's elements are
computed again (the same expressions, so the same values; a search that finds nothing sets
the kernel's status, and the group runs on the interpreter)::

    best_t1 = np.float32(-np.inf); at_t1 = 0; nan_t1 = -1
    for c0 in range(0, n, EXTREMA_BLOCK):
        ...                                  # part_t1 = rm.fmax(part_t1, t0); odd_t1 = ...
        if odd_t1:
            if nan_t1 < 0:                   # the first NaN of the first block with one
                ...                          # first_t1 = min(first_t1, c if t0 != t0 else lim)
                nan_t1 = c0 + first_t1
        elif part_t1 > best_t1:              # (a later block's equal max is not the first)
            best_t1 = part_t1; at_t1 = c0
    if nan_t1 < 0:                           # the first element equal to the max
        c0 = at_t1; c1 = min(c0 + EXTREMA_BLOCK, n); ...
        nan_t1 = c0 + first_t1
    t1 = nan_t1

**Columns**: per column of a block the best value and its row, updated by selects (a later
row only where it beats the best strictly, or is a NaN where the best is not), which
vectorise along the columns.
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import IRError

ARG_KINDS = ("argmax", "argmin")


def _start(kind: str, dtype: np.dtype) -> str:
    """The literal a block's max (argmax) or min (argmin) starts from: nothing beats it."""
    if dtype.kind == "f":
        return f"np.{dtype.name}({'-' if kind == 'argmax' else ''}np.inf)"
    if dtype.kind == "b":
        return f"np.bool_({kind == 'argmin'})"
    info = np.iinfo(dtype)
    return f"np.{dtype.name}({info.min if kind == 'argmax' else info.max})"


class ArgReduction:
    """The lines of one argmax or argmin ``r`` (a ``rows.Reduction``) in a row pass whose
    element value is ``source`` of ``dtype``."""

    def __init__(self, gen, r, source: str, dtype: np.dtype, alone: bool = False):
        # (``gen``: the ``rows.RowGenerator`` writing the pass; ``alone``: its only reduction)
        if any("np.random" in line for n in gen._closure([r.source])
               for line in gen.code[n] if isinstance(line, str)):
            # (the search computes the elements again: random draws would differ)
            raise IRError(f"{r.kind} of random numbers in a row kernel")
        self.gen = gen
        self.r = r
        self.source = source
        self.dtype = dtype
        name = r.name
        self.best, self.at, self.found = f"best_{name}", f"at_{name}", f"nan_{name}"
        self.part, self.odd, self.first = f"part_{name}", f"odd_{name}", f"first_{name}"
        self.floats = dtype.kind == "f"
        # The pass's only reduction, of bools, stops at the first block holding a True
        # (argmax) or a False (argmin), found in the block's own pass (a min-reduction of
        # indices): nothing later beats it (``rows.SEARCH_BLOCK``). (A pass taking the block's
        # max, then a search of the best block, ran rows of 64 float32 compares at 0.6-0.8x
        # NumPy; this one pass 1.1x.)
        self.stops = alone and dtype.kind == "b"

    def before(self) -> list[str]:
        """Lines before the pass's blocks."""
        return [f"{self.best} = {_start(self.r.kind, self.dtype)}; {self.at} = 0; "
                f"{self.found} = -1"]

    def update(self) -> tuple[str, list[str], str]:
        """(the block's start, the steps of the loop over the block, the block's end: none)."""
        source, part, odd = self.source, self.part, self.odd
        start = f"{part} = {_start(self.r.kind, self.dtype)}"
        pick = "max" if self.r.kind == "argmax" else "min"
        if self.stops:
            lim, wanted = f"lim_{self.r.name}", self.r.kind == "argmax"
            return (f"{lim} = np.int32(c1 - c0); {self.first} = {lim}",
                    [f"{self.first} = min({self.first}, np.int32(c) if {source} == "
                     f"np.bool_({wanted}) else {lim})"], "")
        if not self.floats:
            return start, [f"{part} = rm.{pick}imum({part}, {source})"], ""
        return (f"{start}; {odd} = False",
                [f"{part} = rm.f{pick}({part}, {source})",
                 f"{odd} = rm.unordered({odd}, {source})"], "")

    def _search(self, test: str, blocked: dict[str, str], call: str) -> list[str]:
        """A loop over the block (``c0`` to ``c1``) setting ``first`` to the first ``c``
        where ``test`` holds (``c1 - c0`` where none does); where the element is an input's
        own, read from a block slice ``qK``, ``call`` of that slice (``rowsearch.py``)."""
        name = self.source
        load = blocked.get(name, "")
        if load == f"{name} = q{name[1:]}[c]":
            return [f"lim_{self.r.name} = c1 - c0",
                    f"{self.first} = {call.replace('Q', 'q' + name[1:])}"]
        gen = self.gen
        # (int32 indices: twice the lanes of int64 ones; a block has fewer than 2^31)
        tail = [f"{self.first} = min({self.first}, np.int32(c) if {test} "
                f"else lim_{self.r.name})"]
        allocs, loops = gen._loop(gen._closure([self.r.source]), blocked, tail)
        return ([f"lim_{self.r.name} = np.int32(c1 - c0)", f"{self.first} = lim_{self.r.name}"]
                + allocs + [_in_block(line) for line in loops])

    def whole_row(self, loads: dict[str, str]) -> list[str] | None:
        """The lines of a pass of this one reduction of an input's own elements (unit-stride
        rows): one search of the row (``rowsearch.first_max``: per vector lane the best value
        and its index, one pass); for bools, the first True (argmax) or False (argmin), 0
        where there is none (NumPy's argmax of bools stops at the first True too). None for
        any other pass."""
        name = self.source
        if loads.get(name) != f"{name} = r{name[1:]}[c]":
            return None
        row = f"r{name[1:]}"
        if self.dtype.kind != "b":
            pick = "max" if self.r.kind == "argmax" else "min"
            return [f"{self.found} = rs.first_{pick}({row})", self.final()]
        wanted = self.r.kind == "argmax"
        return [f"{self.found} = rs.first_equal({row}, np.bool_({wanted}))",
                f"if {self.found} == n:", f"    {self.found} = 0", self.final()]

    def block_end(self, blocked: dict[str, str]) -> list[str]:
        """Lines at the end of each block (after its loop)."""
        if self.stops:
            return [f"if {self.first} < lim_{self.r.name}:",
                    f"    {self.found} = c0 + {self.first}", "    break"]
        beats = ">" if self.r.kind == "argmax" else "<"
        take = [f"if {self.part} {beats} {self.best}:",
                f"    {self.best} = {self.part}; {self.at} = c0"]
        if not self.floats:
            return take
        nan = self._search(f"{self.source} != {self.source}", blocked, "rs.first_nan(Q)")
        return ([f"if {self.odd}:", f"    if {self.found} < 0:"]
                + ["        " + line for line in nan]
                + [f"        {self.found} = c0 + {self.first}", "el" + take[0]] + take[1:])

    def after(self, block: str, slices: dict[str, str], blocked: dict[str, str]) -> list[str]:
        """Lines after the pass's blocks: the search of the best block, the result."""
        if self.stops:          # (no True (False) in the row: 0, as NumPy's)
            return [f"if {self.found} < 0:", f"    {self.found} = 0"]
        search = self._search(f"{self.source} == {self.best}", blocked,
                              f"rs.first_equal(Q, {self.best})")
        text = " ".join(search)
        heads = [part for name, line in slices.items()
                 if re.search(rf"\bq{name[1:]}\b", text) for part in line.split("\n")]
        return ([f"if {self.found} < 0:",
                 f"    c0 = {self.at}",
                 f"    c1 = min(c0 + {block}, n)"]
                + ["    " + line for line in heads + search]
                + [f"    if {self.first} == lim_{self.r.name}:",
                   "        status[0] = 1",      # (not found: the interpreter's answer)
                   f"    {self.found} = c0 + {self.first}"])

    def final(self) -> str:
        return f"{self.r.name} = np.int64({self.found})"


def _in_block(line: str) -> str:
    return "for c in range(c1 - c0):" if line == "for c in range(n):" else line


def column_arg_starts(kind: str, best: str, at: str, dtype: np.dtype) -> list[str]:
    """A column kernel's accumulators of argmax (argmin) over the rows (``columns.py``): the
    best value so far and its row, per column of the block."""
    return [f"{best} = np.full(n, {_start(kind, dtype)}, np.{dtype.name})",
            f"{at} = np.zeros(n, np.int64)"]


def column_arg_updates(kind: str, best: str, at: str, source: str, floats: bool) -> list[str]:
    """The lines updating them with row ``rowi``'s element ``source``: a later row takes a
    column only where it beats the best strictly (the first of equal ones stays), and a NaN
    where the best is not one (the first NaN stays), as NumPy's argmax; selects, which
    vectorise along the columns."""
    beats = ">" if kind == "argmax" else "<"
    take = f"({source} {beats} {best})"
    if floats:
        take = f"({take} | (({source} != {source}) & ({best} == {best})))"
    return [f"take_{at} = {take}",
            f"{best} = {source} if take_{at} else {best}",
            f"{at} = np.int64(rowi) if take_{at} else {at}"]
