"""``FUSEJIT_CHECK_IR=1`` lints after every pass (DESIGN.md, "Passes"), naming the pass that
broke the graph; without it, no pass pays for a lint."""

from __future__ import annotations

import pytest

import fusejit
from fusejit import IRError
from fusejit.passes import pass_checks
from fusejit.passes.pass_checks import graph_pass
from tests.conftest import read_corpus


@graph_pass
def _breaks_use_lists(graph):
    """A faulty pass: forgets the uses of the graph's first input."""
    graph.inputs[0].uses.clear()


def _count_lints(monkeypatch) -> list:
    calls = []
    real = pass_checks.lint

    def counting(graph):
        calls.append(graph)
        real(graph)

    monkeypatch.setattr(pass_checks, "lint", counting)
    return calls


def test_a_broken_pass_is_named(monkeypatch):
    graph = fusejit.parse_ir(read_corpus("chunk_fused_dim1/input.ir"))
    monkeypatch.setenv("FUSEJIT_CHECK_IR", "1")
    with pytest.raises(IRError, match="after pass _breaks_use_lists: lint: use-list"):
        _breaks_use_lists(graph)


def test_every_pass_of_the_pipeline_is_linted(monkeypatch):
    calls = _count_lints(monkeypatch)
    graph = fusejit.parse_ir(read_corpus("chunk_fused_dim1/input.ir"))
    monkeypatch.setenv("FUSEJIT_CHECK_IR", "1")
    for run_pass in fusejit.passes.FUSION_PIPELINE:
        before = len(calls)
        run_pass(graph)
        assert any(g is graph for g in calls[before:]), run_pass.__name__
    unchecked = fusejit.parse_ir(read_corpus("chunk_fused_dim1/input.ir"))
    monkeypatch.delenv("FUSEJIT_CHECK_IR")
    for run_pass in fusejit.passes.FUSION_PIPELINE:
        run_pass(unchecked)
    assert str(graph) == str(unchecked)


def test_no_lint_without_the_variable(monkeypatch):
    calls = _count_lints(monkeypatch)
    monkeypatch.delenv("FUSEJIT_CHECK_IR", raising=False)
    graph = fusejit.parse_ir(read_corpus("chunk_fused_dim1/input.ir"))
    fusejit.fuse_graph(graph)
    _breaks_use_lists(graph)
    assert calls == []
