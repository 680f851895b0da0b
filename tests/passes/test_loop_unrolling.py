"""``unroll_constant_loops``: a ``for`` loop of a few constant trips is written out, so that the
fuser makes one kernel of its trips. Checked: which loops are written out, that the written-out
graph computes what the loop did (the reference interpreter on both), and ``@fusejit.jit``
programs against NumPy with the loop gone from their plans."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.parser import parse_ir
from fusejit.passes.loop_unrolling import MAX_NODES, MAX_TRIPS, unroll_constant_loops

LOOP = """
graph(%x : Float(*), %s : Float(*), %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %trips : int = prim::Constant[value={trips}]()
  %y : Float(*), %k : int = prim::Loop({count}, %true, %s, %one)
    block0(%i : int, %acc : Float(*), %m : int):
      %f : float = aten::Float(%i)
      %t : Float(*) = aten::mul(%x, %f)
      %u : Float(*) = aten::add(%acc, %t, %one)
      %m2 : int = aten::mul(%m, %i)
      %go : bool = {condition}
      -> (%go, %u, %m2)
  return (%y, %k)"""


def _loop(trips: int = 4, count: str = "%trips", condition: str = "prim::Constant[value=1]()"):
    return parse_ir(LOOP.replace("{trips}", str(trips)).replace("{count}", count)
                    .replace("{condition}", condition))


def _loops(graph) -> int:
    return sum(n.kind == "prim::Loop" for n in graph.all_nodes())


def _run(graph, *args):
    return fusejit.compile(graph, engine="reference")(*args)


@pytest.mark.parametrize("trips", [0, 1, 4, 40])
def test_a_constant_for_loop_is_written_out_and_computes_the_same(trips):
    rng = np.random.default_rng(trips)
    x, s = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    want = _run(_loop(trips), x, s, 3)
    graph = _loop(trips)
    assert unroll_constant_loops(graph)
    assert _loops(graph) == 0
    graph.lint()
    got = _run(graph, x, s, 3)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]


@pytest.mark.parametrize("graph", [
    _loop(count="%n"),                                  # trips known only when it runs
    _loop(trips=MAX_TRIPS + 1),                         # too many trips
    _loop(condition="aten::lt(%i, %one)"),              # a break: the condition is computed
], ids=["runtime-count", "too-many", "break"])
def test_other_loops_stay(graph):
    assert not unroll_constant_loops(graph)
    assert _loops(graph) == 1


def test_a_body_over_the_node_budget_stays():
    (loop,) = [n for n in _loop().nodes() if n.kind == "prim::Loop"]
    body_nodes = len(list(loop.blocks[0].nodes()))
    trips = MAX_NODES // body_nodes + 1
    assert trips <= MAX_TRIPS
    assert not unroll_constant_loops(_loop(trips=trips))
    assert unroll_constant_loops(_loop(trips=trips - 1))


def test_nested_loops_are_written_out_outer_first():
    graph = parse_ir("""
graph(%x : Float(*)):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %y : Float(*) = prim::Loop(%three, %true, %x)
    block0(%i : int, %a : Float(*)):
      %z : Float(*) = prim::Loop(%three, %true, %a)
        block0(%j : int, %b : Float(*)):
          %c : Float(*) = aten::add(%b, %b, %one)
          -> (%true, %c)
      -> (%true, %z)
  return (%y)""")
    x = np.arange(4, dtype=np.float32)
    want = _run(graph.copy(), x)
    assert unroll_constant_loops(graph)
    assert _loops(graph) == 0
    np.testing.assert_array_equal(_run(graph, x), want)
    np.testing.assert_array_equal(want, x * 2 ** 9)


def polynomial(x):
    return np.polyval([1.0, -2.0, 0.5, 3.0], x)


def damped_steps(x, v):
    for _ in range(5):
        v = v - 0.1 * x
        x = x + 0.1 * v
    return x, v


@pytest.mark.parametrize("fn,args", [
    (polynomial, (np.linspace(-2.0, 2.0, 20000),)),
    (damped_steps, (np.linspace(0.0, 1.0, 20000), np.linspace(1.0, 0.0, 20000)))])
def test_jit_plans_lose_the_loop_and_match_numpy(fn, args):
    jitted = fusejit.jit(fn)
    for _ in range(2):
        got, want = jitted(*args), fn(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            assert (g.dtype, g.shape) == (w.dtype, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)
    plan = jitted.graph_for(*args)
    assert _loops(plan) == 0
    assert [n.kind for n in plan.nodes()].count("prim::FusionGroup") == 1
