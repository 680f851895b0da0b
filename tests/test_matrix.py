"""The default suite's cover of a test matrix (tests/matrix.py) meets every pair it promises."""

from __future__ import annotations

import itertools

import pytest

from tests.matrix import cover, covered, halved


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


def test_a_halved_corpus_runs_every_other_case_and_keeps_marks_and_ids():
    params = halved([pytest.param(1, id="one", marks=pytest.mark.slow), (2, "b"), 3, 4])
    assert [p.values for p in params] == [(1,), (2, "b"), (3,), (4,)]
    assert [p.id for p in params] == ["one", None, None, None]
    assert [sorted(m.name for m in p.marks) for p in params] == [
        ["slow"], ["exhaustive"], [], ["exhaustive"]]
