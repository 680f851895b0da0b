"""The graph fuser's rules for ``aten::_grad_sum_to_size`` (seed 004), the op backward graphs
reduce broadcast gradients with. PyTorch 2.13 fuses none (checked by the conformance2 corpus's
``grad_sum_to_size_*`` cases); ``fuse_graph(..., fuse_grad_sum_to_size=True)`` applies the
seed's rules, which backward graphs use:

- it is fusible when the node producing its input is (``isFusableMap``);
- a group takes it only if its result reaches the group's outputs through ops that commute with
  summing (mul, div, neg, add, where, type_as as ``self``) (``tryFuse`` /
  ``trackSingleGradSumToSizeToOutputs``);
- its size list becomes a group input (``mergeNodeIntoGroup``);
- a group holding it is not absorbed into a concatenation (``canFuseWithConcat``).
"""

from __future__ import annotations

from fusejit import parse_ir
from fusejit.ir.symbols import prim
from fusejit.ir.types import ListType
from fusejit.passes import fuse_graph
from fusejit.passes.graph_fuser import track_single_grad_sum_to_size_to_outputs

T = "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)"
R = "Float(1, 4, strides=[4, 1], requires_grad=0, device=cpu)"


def groups(graph) -> list:
    return [n for n in graph.nodes() if n.kind == prim.FusionGroup]


def inner_kinds(group) -> list[str]:
    return sorted(str(n.kind) for n in group.g("Subgraph").nodes() if n.kind != prim.Constant)


def outside(graph) -> list[str]:
    return [str(n.kind) for n in graph.nodes()
            if n.kind not in (prim.FusionGroup, prim.Constant)]


def test_fused_with_its_producer_and_commuting_consumer() -> None:
    g = parse_ir(f"""graph(%g : {T}, %y : {T}, %w : {R}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {R} = aten::_grad_sum_to_size(%a, %s)
  %b : {R} = aten::mul(%r, %w)
  return (%b)
""")
    fuse_graph(g, fuse_grad_sum_to_size=True)
    g.lint()
    (group,) = groups(g)
    assert inner_kinds(group) == ["aten::_grad_sum_to_size", "aten::mul", "aten::mul"]
    # the size list is passed into the group, after its tensors
    sizes = [v for v in group.inputs if isinstance(v.type, ListType)]
    assert [v.debug_name for v in sizes] == ["s"]
    assert outside(g) == []


def test_not_fused_by_default_as_in_pytorch_2_13() -> None:
    g = parse_ir(f"""graph(%g : {T}, %y : {T}, %w : {R}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {R} = aten::_grad_sum_to_size(%a, %s)
  %b : {R} = aten::mul(%r, %w)
  return (%b)
""")
    fuse_graph(g)
    assert groups(g) == []
    assert outside(g) == ["aten::mul", "aten::_grad_sum_to_size", "aten::mul"]


def test_not_fused_when_its_input_comes_from_outside() -> None:
    # isFusableMap: _grad_sum_to_size of a graph input has no producer to fuse with.
    g = parse_ir(f"""graph(%g : {T}, %w : {R}, %s : int[]):
  %r : {R} = aten::_grad_sum_to_size(%g, %s)
  %b : {R} = aten::mul(%r, %w)
  return (%b)
""")
    fuse_graph(g, fuse_grad_sum_to_size=True)
    assert outside(g) == ["aten::_grad_sum_to_size", "aten::mul"]
    assert groups(g) == []


def test_not_absorbed_by_a_consumer_that_does_not_commute_with_summing() -> None:
    # exp(sum_to(x)) != sum_to(exp(x)): the group of exp may not take the reduction.
    g = parse_ir(f"""graph(%g : {T}, %y : {T}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {R} = aten::_grad_sum_to_size(%a, %s)
  %b : {R} = aten::exp(%r)
  %c : {R} = aten::neg(%b)
  return (%c)
""")
    fuse_graph(g, fuse_grad_sum_to_size=True)
    g.lint()
    # The reduction forms a group with its producer; the exp group refuses it, both as a node
    # (the seed's check) and, on the fuser's next pass, as a group (checked the same way).
    assert outside(g) == []
    assert sorted(inner_kinds(grp) for grp in groups(g)) == [
        ["aten::_grad_sum_to_size", "aten::mul"], ["aten::exp", "aten::neg"]]


def test_type_as_carries_the_gradient_only_as_self() -> None:
    g = parse_ir(f"""graph(%g : {T}, %m : {R}, %s : int[]):
  %a : {T} = aten::neg(%g)
  %r : {R} = aten::_grad_sum_to_size(%a, %s)
  %as_other : {R} = aten::type_as(%m, %r)
  %as_self : {R} = aten::type_as(%r, %m)
  %e : {R} = aten::exp(%as_self)
  return (%as_other, %e)
""")
    r = next(n for n in g.nodes() if n.kind == "aten::_grad_sum_to_size").output()
    # through type_as as `other` only the dtype is read; as `self` it reaches exp
    assert not track_single_grad_sum_to_size_to_outputs(r)
    as_other = next(n for n in g.nodes() if n.output().debug_name == "as_other")
    as_other.output().replace_all_uses_with(as_other.input(0))
    assert track_single_grad_sum_to_size_to_outputs(r) is False
    e = next(n for n in g.nodes() if n.kind == "aten::exp")
    e.output().replace_all_uses_with(e.input(0))
    e.destroy()
    assert track_single_grad_sum_to_size_to_outputs(r)


def test_group_with_it_is_not_merged_into_a_concat() -> None:
    g = parse_ir(f"""graph(%g : {T}, %y : {T}, %w : {R}, %s : int[]):
  %a : {T} = aten::mul(%g, %y)
  %r : {R} = aten::_grad_sum_to_size(%a, %s)
  %b : {R} = aten::mul(%r, %w)
  %e : {R} = aten::exp(%w)
  %l : Tensor[] = prim::ListConstruct(%b, %e)
  %d : int = prim::Constant[value=0]()
  %c : Tensor = aten::cat(%l, %d)
  return (%c)
""")
    fuse_graph(g, fuse_grad_sum_to_size=True)
    g.lint()
    with_reduction = [grp for grp in groups(g)
                      if "aten::_grad_sum_to_size" in inner_kinds(grp)]
    assert len(with_reduction) == 1
    assert "prim::FusedConcat" not in inner_kinds(with_reduction[0])
    concat = [grp for grp in groups(g) if "prim::FusedConcat" in inner_kinds(grp)]
    assert len(concat) == 1 and "aten::exp" in inner_kinds(concat[0])
