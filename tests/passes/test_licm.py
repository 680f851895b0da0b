"""Loop-invariant code motion on IR text: what leaves a ``prim::Loop`` body and what must stay
(effects, writes, the counter, carried values, ops that could raise in a loop that may not
run); values against the unhoisted graph on the reference interpreter and NumPy; gradients of
loops with invariant parts against float64 finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit import parse_ir
from fusejit.ir.symbols import prim
from fusejit.passes import loop_invariant_code_motion

from ..autodiff.test_api import assert_grads

RNG = np.random.default_rng(19)

HEADER = """graph(%x : Tensor, %w : Tensor, %h0 : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %true : bool = prim::Constant[value=1]()
"""


def loop_graph(body: str, trip: str = "%three", cond: str = "%true") -> str:
    """A loop carrying %h (from %h0) whose body is ``body`` (which defines %h2)."""
    lines = "\n".join(f"      {line}" for line in body.strip().splitlines())
    return HEADER + f"""  %y : Tensor = prim::Loop({trip}, {cond}, %h0)
    block0(%i : int, %h : Tensor):
{lines}
      -> (%true, %h2)
  return (%y)
"""


def hoisted(graph) -> list[str]:
    """The kinds of the top-level nodes before the loop, constants left out."""
    kinds = []
    for node in graph.nodes():
        if node.kind == prim.Loop:
            return kinds
        if node.kind != prim.Constant:
            kinds.append(str(node.kind))
    raise AssertionError("no loop")


ARGS = (RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3)), RNG.standard_normal((2, 4)))


def run(text: str, hoist: bool, n: int = 3):
    """The graph (hoisted or not) and its result on the reference interpreter, for %x, %w,
    %h0 of ``ARGS``."""
    graph = parse_ir(text)
    if hoist:
        loop_invariant_code_motion(graph)
    return graph, fusejit.compile(graph, engine="reference")(*ARGS, n), ARGS


RNN_BODY = """
%wt : Tensor = aten::t(%w)
%a : Tensor = aten::matmul(%x, %wt)
%b : Tensor = aten::tanh(%a)
%s : Tensor = aten::add(%b, %h, %one)
%h2 : Tensor = aten::tanh(%s)
"""


def test_invariant_chain_leaves_a_loop_that_surely_runs():
    text = loop_graph(RNN_BODY)
    graph, got, (x, w, h0) = run(text, hoist=True)
    assert hoisted(graph) == ["aten::t", "aten::matmul", "aten::tanh"]
    graph.lint()
    h = h0
    for _ in range(3):
        h = np.tanh(np.tanh(x @ w.T) + h)
    np.testing.assert_allclose(got, h, rtol=1e-12)
    np.testing.assert_allclose(got, run(text, hoist=False)[1], rtol=1e-12)


@pytest.mark.parametrize("body, why", [
    ("%a : Tensor = aten::mul(%h, %w)\n%h2 : Tensor = aten::add(%a, %h, %one)", "carried"),
    ("%c : Tensor = prim::NumToTensor(%i)\n%a : Tensor = aten::mul(%w, %c)\n"
     "%h2 : Tensor = aten::add(%a, %h, %one)", "counter"),
    ("%r : Tensor = aten::rand_like(%w)\n%h2 : Tensor = aten::add(%r, %h, %one)",
     "nondeterministic"),
    (" = prim::Print(%w)\n%h2 : Tensor = aten::add(%h, %h, %one)", "side effect"),
    # %a reads %w, which the loop writes
    ("%a : Tensor = aten::mul(%w, %w)\n%u : Tensor = aten::add_(%w, %h, %one)\n"
     "%h2 : Tensor = aten::add(%a, %h, %one)", "reads what the loop writes"),
    # a fresh tensor per iteration, written in place: it must stay fresh
    ("%z : Tensor = aten::zeros_like(%w)\n%u : Tensor = aten::add_(%z, %h, %one)\n"
     "%h2 : Tensor = aten::add(%z, %h, %one)", "output written"),
])
def test_what_must_stay(body: str, why: str):
    graph = parse_ir(loop_graph(body))
    before = str(graph)
    assert not loop_invariant_code_motion(graph), why
    assert str(graph) == before


@pytest.mark.parametrize("trip, cond", [("%n", "%true"), ("%three", "%c0")])
def test_ops_that_may_raise_stay_in_a_loop_that_may_not_run(trip: str, cond: str):
    # %w is 4x3: x @ w (not w.T) raises, but only if the loop runs; %n = 0 must not raise.
    body = """
%wl : int[] = prim::ListConstruct(%one, %one)
%nl : int = aten::len(%wl)
%sz : int[] = aten::size(%w)
%a : Tensor = aten::matmul(%x, %w)
%h2 : Tensor = aten::add(%a, %h, %one)
"""
    text = loop_graph(body, trip, cond).replace(
        "%true : bool = prim::Constant[value=1]()",
        "%true : bool = prim::Constant[value=1]()\n  %c0 : bool = aten::gt(%n, %one)")
    graph, got, (_, _, h0) = run(text, hoist=True, n=0)
    # the size and the list's length cannot raise: they move anyway (the list with its reader)
    assert hoisted(graph)[-3:] == ["prim::ListConstruct", "aten::len", "aten::size"]
    assert "aten::matmul" not in hoisted(graph)
    np.testing.assert_array_equal(got, h0)


def test_a_list_moves_only_with_a_reader_that_moves():
    body = """
%l : Tensor[] = prim::ListConstruct(%x, %x)
%c : Tensor = aten::cat(%l, %one)
%l2 : Tensor[] = prim::ListConstruct(%w, %w)
%d : Tensor = aten::cat(%l2, %i)
%h2 : Tensor = aten::add(%h, %d, %one)
"""
    graph = parse_ir(loop_graph(body))
    loop_invariant_code_motion(graph)
    assert hoisted(graph) == ["prim::ListConstruct", "aten::cat"]   # (the unused %c too)
    loop = next(n for n in graph.nodes() if n.kind == prim.Loop)
    assert [str(n.kind) for n in loop.blocks[0].nodes()] == [
        "prim::ListConstruct", "aten::cat", "aten::add"]


def test_nothing_that_may_raise_moves_past_an_effect():
    body = " = prim::Print(%i)\n" + RNN_BODY
    graph = parse_ir(loop_graph(body))
    assert not loop_invariant_code_motion(graph)


def test_nested_loops_hoist_each_value_as_far_as_it_is_invariant():
    text = HEADER + """  %y : Tensor = prim::Loop(%three, %true, %h0)
    block0(%i : int, %h : Tensor):
      %ti : Tensor = prim::NumToTensor(%i)
      %h3 : Tensor = prim::Loop(%three, %true, %h)
        block0(%j : int, %g : Tensor):
          %wt : Tensor = aten::t(%w)
          %a : Tensor = aten::matmul(%x, %wt)
          %b : Tensor = aten::mul(%a, %ti)
          %s : Tensor = aten::add(%b, %g, %one)
          %g2 : Tensor = aten::tanh(%s)
          -> (%true, %g2)
      %h2 : Tensor = aten::mul(%h3, %ti)
      -> (%true, %h2)
  return (%y)
"""
    graph, got, (x, w, h0) = run(text, hoist=True)
    graph.lint()
    assert hoisted(graph) == ["aten::t", "aten::matmul"]
    outer = next(n for n in graph.nodes() if n.kind == prim.Loop)
    body_kinds = [str(n.kind) for n in outer.blocks[0].nodes()]
    # %b depends on the outer counter: it leaves the inner loop only
    assert body_kinds == ["prim::NumToTensor", "aten::mul", "prim::Loop", "aten::mul"]
    h = h0
    for i in range(3):
        for _ in range(3):
            h = np.tanh((x @ w.T) * i + h)
        h = h * i
    np.testing.assert_allclose(got, h, rtol=1e-12)


IF_LOOP = HEADER + """  %zero : int = prim::Constant[value=0]()
  %y : Tensor = prim::Loop(%three, %true, %h0)
    block0(%i : int, %h : Tensor):
      %odd : bool = aten::gt(%i, %one)
      %h2 : Tensor = prim::If(%odd)
        block0():
          %e : Tensor = aten::exp(%h0)
          %p : Tensor = aten::add(%h, %e, %one)
          -> (%p)
        block1():
          -> (%h)
      %big : bool = aten::gt(%n, %zero)
      %q : Tensor = prim::If(%big)
        block0():
          %wt : Tensor = aten::t(%w)
          -> (%wt)
        block1():
          -> (%w)
      %wt2 : Tensor = aten::t(%q)
      %r : Tensor = aten::matmul(%h2, %wt2)
      %h4 : Tensor = aten::matmul(%r, %q)
      -> (%true, %h4)
  return (%y)
"""


def test_an_invariant_if_moves_whole_and_a_branch_never_runs_speculatively():
    graph, got, (_, w, h0) = run(IF_LOOP, hoist=True, n=2)
    assert hoisted(graph) == ["aten::gt", "prim::If", "aten::t"]
    outer = next(n for n in graph.nodes() if n.kind == prim.Loop)
    inner_if = next(n for n in outer.blocks[0].nodes() if n.kind == prim.If)
    assert [str(n.kind) for n in inner_if.blocks[0].nodes()] == ["aten::exp", "aten::add"]
    h = h0
    for i in range(3):
        h = (h + np.exp(h0) if i > 1 else h) @ w @ w.T
    np.testing.assert_allclose(got, h, rtol=1e-12)


# -- gradients through loops with invariant parts (the hoisted values' gradients are summed
# over the iterations) --------------------------------------------------------------------

def invariant_rnn(x, h, w, u, b, steps: int):
    for _ in range(steps):
        h = np.tanh(x @ w.T + h @ u + np.sin(b) * 2.0)
    return np.sum(h * h)


def invariant_nested(x, w):
    h = x
    for _ in range(2):
        for _ in range(3):
            h = np.tanh(h * np.exp(w) + x * w)
        h = h * np.cos(w)
    return np.sum(h)


@pytest.mark.parametrize("fn, shapes, extra", [
    (invariant_rnn, [(2, 3), (2, 4), (4, 3), (4, 4), (4,)], (4,)),
    (invariant_nested, [(2, 3), (3,)], ()),
], ids=["rnn", "nested"])
def test_gradients_of_hoisted_values_match_finite_differences(fn, shapes, extra):
    args = [RNG.standard_normal(s) for s in shapes]
    grads = fusejit.grad(fn, argnums=tuple(range(len(args))), fuse=False)(*args, *extra)
    assert_grads(lambda *a: fn(*a, *extra), args, grads)
