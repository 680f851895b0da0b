"""Test matrices that the default suite covers rather than runs whole.

``covered(a, b, c)`` gives the parameters of every combination of the axes' values, as stacked
``parametrize`` decorators would, and marks ``exhaustive`` (``FUSEJIT_FULL_SUITE=1`` runs them)
those outside a cover: a subset in which every ``strength`` values of any ``strength`` axes
meet in at least one case. With the default ``strength=2``, every dtype meets every layout and
every program, and every program every layout, in far fewer cases than the product: 20 of
5 x 4 x 4. ``strength=1`` runs each value of each axis once. The cover is chosen greedily in
the product's order, so it is the same on every run and machine.

``halved(cases)`` runs every other case of a long corpus of programs by default: each compiles
a whole-graph function and kernels of its own, and the corpora together cost a tenth of a cold
suite.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

_PARAM = type(pytest.param(None))   # (pytest's ParameterSet, which it does not export)


def _tuples(combo: tuple, groups: list[tuple]) -> set:
    return {(group, tuple(combo[i] for i in group)) for group in groups}


def cover(*sizes: int, strength: int = 2) -> list[tuple]:
    """Index tuples into axes of these sizes, in the product's order, whose ``strength``-wise
    combinations include every one the product has (a greedy choice: each next tuple is the
    first that covers the most combinations not yet covered)."""
    combos = list(itertools.product(*(range(n) for n in sizes)))
    groups = list(itertools.combinations(range(len(sizes)), min(strength, len(sizes))))
    missing = set().union(*(_tuples(c, groups) for c in combos))
    chosen = []
    while missing:
        best = max(combos, key=lambda c: len(_tuples(c, groups) & missing))
        chosen.append(best)
        missing -= _tuples(best, groups)
    return sorted(chosen)


def covered(*axes: Sequence, strength: int = 2) -> list:
    """``pytest.param`` of every combination of the axes' values (for
    ``parametrize("a, b, c", covered(a_values, b_values, c_values))``), those outside
    ``cover``'s choice marked ``exhaustive``."""
    kept = set(cover(*(len(axis) for axis in axes), strength=strength))
    return [pytest.param(*(axis[i] for axis, i in zip(axes, combo)),
                         marks=[] if combo in kept else [pytest.mark.exhaustive])
            for combo in itertools.product(*(range(len(axis)) for axis in axes))]


def halved(params: Sequence) -> list:
    """A corpus of cases (programs, graphs) of which the default suite runs every other one,
    the first, third, ...: the rest are marked ``exhaustive``. Each item may be a
    ``pytest.param`` (its marks and id are kept) or the values of one case."""
    out = []
    for i, p in enumerate(params):
        if not isinstance(p, _PARAM):
            p = pytest.param(*(p if isinstance(p, tuple) else (p,)))
        marks = list(p.marks) + ([pytest.mark.exhaustive] if i % 2 else [])
        out.append(pytest.param(*p.values, marks=marks, id=p.id))
    return out


__all__ = ["cover", "covered", "halved"]
