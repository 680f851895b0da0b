"""DCE, CSE, constant pooling and chunk canonicalisation, each against hand-derived IR."""

from __future__ import annotations

import pytest

from fusejit import parse_ir
from fusejit.ir.symbols import prim
from fusejit.passes import (
    canonicalize_graph_fuser_ops,
    eliminate_common_subexpression,
    eliminate_dead_code,
)

# Not ``from fusejit.passes import constant_pooling``: once the submodule of the same name is
# imported (the fuser imports it), the package attribute is the module, not the function.
from fusejit.passes.constant_pooling import constant_pooling


def kinds(graph) -> list[str]:
    return [str(n.kind) for n in graph.nodes()]


def same_graph(graph, text: str) -> None:
    assert str(graph) == str(parse_ir(text))


# -- dead code elimination -----------------------------------------------------------------------

def test_dce_removes_unused_pure_nodes_transitively():
    g = parse_ir("""graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::sin(%a)
  %c : Tensor = aten::cos(%x)
  return (%c)
""")
    eliminate_dead_code(g)
    assert kinds(g) == ["aten::cos"]


@pytest.mark.parametrize("line, kept", [
    ("   = prim::Print(%a)", True),                              # side effect
    ("  %r : Tensor = aten::mul_(%a, %x)", True),                 # writes %a
    ("  %r : Tensor = user::mystery(%a)", True),                  # unknown: may write
    ("  %r : Tensor = aten::mul(%a, %x)", False),                 # pure, unused
    ("  %r : Tensor = aten::t(%a)", False),                       # a view, unused
])
def test_dce_keeps_effects_and_writers(line: str, kept: bool):
    g = parse_ir(f"""graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
{line}
  return (%x)
""")
    eliminate_dead_code(g)
    # The unused constant always goes; the exp goes only with its last reader.
    kind = line.split("= ")[-1].split("(")[0].strip()
    assert kinds(g) == (["aten::exp", kind] if kept else [])


def test_dce_removes_unused_if_outputs_and_their_producers():
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %r : Tensor, %s : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::exp(%x)
      %b : Tensor = aten::sin(%x)
      -> (%a, %b)
    block1():
      -> (%x, %x)
  return (%s)
""")
    eliminate_dead_code(g)
    same_graph(g, """graph(%x : Tensor, %c : bool):
  %s : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::sin(%x)
      -> (%b)
    block1():
      -> (%x)
  return (%s)
""")


def test_dce_removes_dead_loop_carried_value_and_keeps_live_one():
    g = parse_ir("""graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor, %z : Tensor = prim::Loop(%n, %t, %x, %x)
    block0(%i : int, %p : Tensor, %q : Tensor):
      %p2 : Tensor = aten::exp(%p)
      %w : Tensor = aten::sin(%x)
      -> (%t, %p2, %w)
  return (%y)
""")
    eliminate_dead_code(g)
    same_graph(g, """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %p : Tensor):
      %p2 : Tensor = aten::exp(%p)
      -> (%t, %p2)
  return (%y)
""")


# -- common subexpression elimination -----------------------------------------------------------

def test_cse_merges_equal_nodes_and_keeps_the_first():
    g = parse_ir("""graph(%x : Tensor):
  %a : int[] = aten::size(%x)
  %b : int[] = aten::size(%x)
  %c : int[] = prim::BroadcastSizes(%a, %b)
  return (%c)
""")
    assert eliminate_common_subexpression(g)
    same_graph(g, """graph(%x : Tensor):
  %a : int[] = aten::size(%x)
  %c : int[] = prim::BroadcastSizes(%a, %a)
  return (%c)
""")


@pytest.mark.parametrize("first, second", [
    ("aten::rand_like(%x)", "aten::rand_like(%x)"),                  # nondeterministic
    ("aten::mul(%x, %two)", "aten::mul(%x, %three)"),               # different inputs
    ("prim::Constant[value=5]()", "prim::Constant[value=5.]()"),   # int vs float
])
def test_cse_leaves_distinct_or_nondeterministic_nodes(first: str, second: str):
    type_ = "int" if "Constant" in first else "Tensor"
    type2 = "float" if "5." in second else type_
    g = parse_ir(f"""graph(%x : Tensor):
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %a : {type_} = {first}
  %b : {type2} = {second}
  %l : Any[] = prim::ListConstruct(%a, %b)
  return (%l)
""")
    before = len(kinds(g))
    eliminate_common_subexpression(g)
    assert len(kinds(g)) == before


def test_cse_does_not_merge_values_a_later_op_writes():
    g = parse_ir("""graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::exp(%x)
  %c : Tensor = aten::add_(%a, %one, %one)
  %d : Tensor = aten::mul(%b, %c)
  return (%d)
""")
    eliminate_common_subexpression(g)
    assert kinds(g).count("aten::exp") == 2


def test_cse_does_not_make_two_graph_outputs_one_buffer():
    g = parse_ir("""graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::exp(%x)
  return (%a, %b)
""")
    assert not eliminate_common_subexpression(g)


def test_cse_checks_the_graph_outputs_as_they_are_after_each_merge():
    """%b merges into %a, which makes %a a graph output; %c, also returned, must then stay (as
    PyTorch, which tests against the graph's current outputs): it became a second name for %a's
    buffer, (%a, %a, %d), when the outputs were taken once before the pass."""
    t = "Float(3, 3, strides=[3, 1], requires_grad=0, device=cpu)"
    g = parse_ir(f"""graph(%x : {t}, %y : {t}):
  %a : {t} = aten::mul(%x, %y)
  %b : {t} = aten::mul(%x, %y)
  %c : {t} = aten::mul(%x, %y)
  %d : {t} = aten::mm(%a, %y)
  return (%b, %c, %d)
""")
    assert eliminate_common_subexpression(g)
    a, c, _ = g.outputs
    assert a is not c
    assert [n.output().debug_name for n in g.nodes()] == ["a", "c", "d"]


def test_cse_keeps_an_inner_view_of_a_graph_input():
    """Both transposes alias %x, which the caller owns: PyTorch leaves the inner one (its
    aliasing relationship with the caller's memory may not change); an inner exp merges."""
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::t(%x)
  %e : Tensor = aten::exp(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::t(%x)
      %f : Tensor = aten::exp(%x)
      %s : Tensor = aten::mul(%b, %f)
      -> (%s)
    block1():
      -> (%a)
  %d : Tensor = aten::mul(%e, %r)
  return (%d)
""")
    eliminate_common_subexpression(g)
    every_kind = [str(n.kind) for n in g.all_nodes()]
    assert every_kind.count("aten::t") == 2
    assert every_kind.count("aten::exp") == 1


def test_cse_inner_block_reuses_outer_value_but_not_the_reverse():
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::exp(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::exp(%x)
      %s : Tensor = aten::sin(%x)
      -> (%b)
    block1():
      %s2 : Tensor = aten::sin(%x)
      -> (%s2)
  %d : Tensor = aten::mul(%a, %r)
  return (%d)
""")
    eliminate_common_subexpression(g)
    same_graph(g, """graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::exp(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %s : Tensor = aten::sin(%x)
      -> (%a)
    block1():
      %s2 : Tensor = aten::sin(%x)
      -> (%s2)
  %d : Tensor = aten::mul(%a, %r)
  return (%d)
""")


# -- constant pooling ---------------------------------------------------------------------------

def test_constant_pooling_dedupes_and_hoists_in_reverse_first_appearance():
    g = parse_ir("""graph(%x : Tensor, %c : bool):
  %a : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %a)
  %f : float = prim::Constant[value=1.]()
  %z : Tensor = aten::mul(%y, %f)
  %r : Tensor = prim::If(%c)
    block0():
      %b : int = prim::Constant[value=1]()
      %w : Tensor = aten::add(%z, %z, %b)
      -> (%w)
    block1():
      -> (%z)
  return (%r)
""")
    constant_pooling(g)
    same_graph(g, """graph(%x : Tensor, %c : bool):
  %f : float = prim::Constant[value=1.]()
  %a : int = prim::Constant[value=1]()
  %y : Tensor = aten::add(%x, %x, %a)
  %z : Tensor = aten::mul(%y, %f)
  %r : Tensor = prim::If(%c)
    block0():
      %w : Tensor = aten::add(%z, %z, %a)
      -> (%w)
    block1():
      -> (%z)
  return (%r)
""")


# -- canonicalize_graph_fuser_ops ---------------------------------------------------------------

CHUNK = """graph(%x : Tensor, %k : int):
  %n : int = prim::Constant[value={chunks}]()
  %d : int = prim::Constant[value=1]()
  %l : Tensor[] = aten::chunk(%x, {n}, %d)
  {outs} = prim::ListUnpack(%l)
  %r : Tensor = aten::mul(%a, %b)
  return (%r)
"""


def test_chunk_and_unpack_become_constant_chunk():
    g = parse_ir(CHUNK.format(chunks=2, n="%n", outs="%a : Tensor, %b : Tensor"))
    canonicalize_graph_fuser_ops(g)
    same_graph(g, """graph(%x : Tensor, %k : int):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=1](%x)
  %r : Tensor = aten::mul(%a, %b)
  return (%r)
""")


@pytest.mark.parametrize("chunks, n, outs", [
    (2, "%k", "%a : Tensor, %b : Tensor"),                 # chunk count not constant
    (3, "%n", "%a : Tensor, %b : Tensor"),                 # unpack arity differs
])
def test_chunk_stays_when_not_static(chunks: int, n: str, outs: str):
    g = parse_ir(CHUNK.format(chunks=chunks, n=n, outs=outs))
    canonicalize_graph_fuser_ops(g)
    assert prim.ConstantChunk not in kinds(g)
    assert "aten::chunk" in kinds(g)
