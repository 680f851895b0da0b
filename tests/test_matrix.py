"""The default suite's cover of a test matrix (tests/matrix.py) meets every pair it promises."""

from __future__ import annotations

import itertools

import pytest

from tests.matrix import cover, covered


@pytest.mark.parametrize("sizes", [(5, 4, 4), (2, 3), (3, 1, 2, 4), (1,)])
@pytest.mark.parametrize("strength", [1, 2])
def test_every_combination_of_strength_axes_meets_in_the_cover(sizes, strength):
    chosen = cover(*sizes, strength=strength)
    assert len(set(chosen)) == len(chosen) and chosen == sorted(chosen)
    for axes in itertools.combinations(range(len(sizes)), min(strength, len(sizes))):
        met = {tuple(c[i] for i in axes) for c in chosen}
        assert met == set(itertools.product(*(range(sizes[i]) for i in axes)))


def test_the_cover_is_smaller_than_the_product_and_the_rest_is_exhaustive():
    assert len(cover(5, 4, 4)) <= 25 and len(cover(4, 6, strength=1)) == 6
    params = covered("abcd", [1, 2, 3], strength=1)
    assert [p.values for p in params] == list(itertools.product("abcd", [1, 2, 3]))
    runs = [p for p in params if not p.marks]
    assert len(runs) == 4 and all(m.name == "exhaustive" for p in params for m in p.marks)
