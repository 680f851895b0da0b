"""Bugs the differential fuzzer found, one test each, minimised by hand; the oracle is NumPy.

Bugs in files still being written by others are ``xfail(strict=True)``: they start passing
(and so fail here) when fixed, and the marker is then removed.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.runtime.fusion import FusedKernel

SUM = """graph(%a : Tensor):
  %none : NoneType = prim::Constant()
  %r : Tensor = aten::sum(%a, %none)
  return (%r)
"""


@pytest.mark.parametrize("values", [[-np.inf], [np.inf, 1.0], [np.inf, 2.0, 3.0]])
def test_native_sum_of_infinities(values):
    a = np.array(values, np.float32)
    out = fusejit.compile(fusejit.parse_ir(SUM))(a)
    np.testing.assert_array_equal(out, np.sum(a))


@pytest.mark.parametrize("values", [[-np.inf], [np.inf, 1.0]])
def test_reference_sum_of_infinities(values):
    a = np.array(values, np.float32)
    out = fusejit.compile(fusejit.parse_ir(SUM), engine="reference")(a)
    np.testing.assert_array_equal(out, np.sum(a))


TYPE_AS = """graph(%x : Double(), %y : Double(6), %i : Long(), %like : Double(1, 1)):
  %half : float = prim::Constant[value=0.5]()
  %t : Tensor = aten::type_as(%i, %like)
  %r : Tensor = aten::addcmul(%t, %x, %y, %half)
  return (%r)
"""


def _type_as_inputs():
    return (np.array(2.0), np.arange(6.0), np.array(3), np.zeros((1, 1)))


def test_type_as_group_forms():
    graph = fusejit.parse_ir(TYPE_AS)
    fusejit.fuse_graph(graph)
    assert [n.kind for n in graph.nodes()] == ["prim::FusionGroup"]


def test_kernel_type_as_other_does_not_broadcast():
    x, y, i, like = _type_as_inputs()
    graph = fusejit.parse_ir(TYPE_AS)
    fusejit.fuse_graph(graph)
    (group,) = graph.nodes()
    (out,) = FusedKernel(group)(*[{v.debug_name: a for v, a in zip(
        graph.inputs, (x, y, i, like))}[v.debug_name] for v in group.inputs])
    expected = i.astype(np.float64) + 0.5 * x * y
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_interpreted_type_as_other_does_not_broadcast():
    x, y, i, like = _type_as_inputs()
    out = fusejit.compile(fusejit.parse_ir(TYPE_AS), fuse=True)(x, y, i, like)
    np.testing.assert_array_equal(out, i.astype(np.float64) + 0.5 * x * y)


OUTPUTS_OF_TWO_SHAPES = """graph(%x : Float(2), %s : Float()):
  %e : Tensor = aten::exp(%s)
  %r : Tensor = aten::mul(%e, %x)
  return (%r, %e)
"""


def test_group_with_outputs_of_two_shapes():
    """The fuser groups exp(s) (0-dim, also an output) with mul(e, x) (2,), as PyTorch does;
    the kernel cannot write both and declines with an InterpreterError (PyTorch's runFusion
    falls back to the interpreter there), while the interpreted group is right."""
    graph = fusejit.parse_ir(OUTPUTS_OF_TWO_SHAPES)
    fusejit.fuse_graph(graph)
    groups = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    assert len(groups) == 1 and len(groups[0].outputs) == 2
    x, s = np.array([1.0, 2.0], np.float32), np.array(0.5, np.float32)
    r, e = fusejit.compile(fusejit.parse_ir(OUTPUTS_OF_TWO_SHAPES), fuse=True)(x, s)
    np.testing.assert_allclose(r, np.exp(s) * x, rtol=1e-6)
    assert e.shape == ()
    with pytest.raises(fusejit.InterpreterError, match="should not have grouped"):
        FusedKernel(groups[0])(*[{"x": x, "s": s}[v.debug_name] for v in groups[0].inputs])


def test_kernel_keeps_each_outputs_rank():
    graph = fusejit.parse_ir(OUTPUTS_OF_TWO_SHAPES)
    fusejit.fuse_graph(graph)
    (group,) = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    x, s = np.array([3.0], np.float32), np.array(0.5, np.float32)
    outs = FusedKernel(group)(*[{"x": x, "s": s}[v.debug_name] for v in group.inputs])
    shapes = {v.debug_name: o.shape for v, o in zip(group.outputs, outs)}
    assert shapes == {"r": (1,), "e": ()}


def test_kernel_type_as_other_of_any_shape():
    text = """graph(%x : Double(3), %like : Float(2)):
  %e : Tensor = aten::exp(%x)
  %t : Tensor = aten::type_as(%e, %like)
  return (%t)
"""
    graph = fusejit.parse_ir(text)
    fusejit.fuse_graph(graph)
    (group,) = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    x, like = np.arange(3.0), np.zeros(2, np.float32)
    (out,) = FusedKernel(group)(*[{"x": x, "like": like}[v.debug_name] for v in group.inputs])
    np.testing.assert_allclose(out, np.exp(x).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 3])
def test_kernel_keeps_concat_outputs_rank(n):
    text = """graph(%s : Float(), %t : Float(N), %a : Float(1, 1)):
  %e : Tensor = aten::eq(%s, %t)
  %w : Tensor = aten::where(%e, %a, %a)
  %l : Tensor[] = prim::ListConstruct(%e, %e)
  %zero : int = prim::Constant[value=0]()
  %c : Tensor = aten::cat(%l, %zero)
  return (%c, %w)
"""
    graph = fusejit.parse_ir(text.replace("N", str(n)))
    fusejit.fuse_graph(graph)
    (group,) = [node for node in graph.nodes() if node.kind == "prim::FusionGroup"]
    t = np.arange(n, dtype=np.float32)
    args = {"s": np.array(1.0, np.float32), "t": t, "a": np.full((1, 1), 2.0, np.float32)}
    outs = FusedKernel(group)(*[args[v.debug_name] for v in group.inputs])
    e = t == 1.0
    expected = {"c": np.concatenate([e, e]),
                "w": np.where(e, args["a"], args["a"])}
    for v, out in zip(group.g("Subgraph").outputs, outs):
        np.testing.assert_array_equal(out, expected[v.debug_name])
        assert out.shape == expected[v.debug_name].shape


@pytest.mark.parametrize("dim", [1, -1])
def test_kernel_concat_along_a_size_one_last_dim(dim):
    text = f"""graph(%x : Float(2, 1)):
  %e : Tensor = aten::exp(%x)
  %c : Tensor = prim::FusedConcat[dim={dim}](%e, %x)
  return (%c, %e)
"""
    x = np.array([[0.5], [-1.0]], np.float32)
    c, e = FusedKernel(fusejit.parse_ir(text))(x)
    np.testing.assert_allclose(c, np.concatenate([np.exp(x), x], dim), rtol=1e-6)


def test_compiled_concat_along_a_size_one_last_dim():
    text = """graph(%x : Float(2, 1)):
  %e : Tensor = aten::exp(%x)
  %n : Tensor = aten::neg(%e)
  %l : Tensor[] = prim::ListConstruct(%n, %x)
  %d : int = prim::Constant[value=1]()
  %c : Tensor = aten::cat(%l, %d)
  return (%c)
"""
    x = np.array([[0.5], [-1.0]], np.float32)
    out = fusejit.compile(fusejit.parse_ir(text), fuse=True)(x)
    np.testing.assert_allclose(out, np.concatenate([-np.exp(x), x], 1), rtol=1e-6)


def test_kernel_tanh_keeps_the_sign_of_zero():
    text = """graph(%x : Float(2)):
  %t : Tensor = aten::tanh(%x)
  %n : Tensor = aten::neg(%t)
  return (%n)
"""
    x = np.array([-0.0, 0.0], np.float32)
    (out,) = FusedKernel(fusejit.parse_ir(text))(x)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(-np.tanh(x)))


DEAD_IN_GROUP = """graph(%x : Long(3, strides=[1], requires_grad=0, device=cpu),
      %y : Long(2, 3, strides=[3, 1], requires_grad=0, device=cpu),
      %z : Long(3, strides=[1], requires_grad=0, device=cpu)):
  %r : Long(3, strides=[1], requires_grad=0, device=cpu), %s : Long(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = prim::FusionGroup_0(%x, %y, %z)
  return (%r, %s)
with prim::FusionGroup_0 = graph(%a : Long(3, strides=[1], requires_grad=0, device=cpu),
      %b : Long(2, 3, strides=[3, 1], requires_grad=0, device=cpu),
      %c : Long(3, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %d : Long(3, strides=[1], requires_grad=0, device=cpu) = aten::remainder(%a, %c)
  %r : Long(3, strides=[1], requires_grad=0, device=cpu) = aten::add(%a, %one, %one)
  %s : Long(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::mul(%b, %two)
  return (%r, %s)
"""


@pytest.mark.parametrize("engine", ["reference", "native"])
def test_a_declined_group_falls_back_without_its_dead_code(engine):
    # The kernel declines (outputs of two shapes); the interpreted fallback must not raise at
    # the dead integer remainder by zero that the kernel never computes: the pipeline's dead
    # code elimination reaches into groups. (The fuzzer's own kernel check fused without it,
    # and so compared the kernel with a subgraph that raised.)
    x, y, z = np.arange(3), np.arange(6).reshape(2, 3), np.array([1, 0, 2])
    fn = fusejit.compile(fusejit.parse_ir(DEAD_IN_GROUP), fuse=True, engine=engine)
    r, s = fn(x, y, z)
    np.testing.assert_array_equal(r, x + 1)
    np.testing.assert_array_equal(s, y * 2)


def test_group_chunking_a_chunk_piece_compiles():
    """PyTorch 2.13 forms a group that chunks a piece of a chunk of its input (a long fuzz run
    found it here; tests/data/conformance2/chunk_of_chunk_used is PyTorch's own); the kernel
    reads the piece of the piece as one more offset and size cut."""
    from pathlib import Path

    from fusejit.passes import eliminate_dead_code

    text = (Path(__file__).parent.parent / "data" / "fuzz_chunk_of_chunk.ir").read_text()
    graph = fusejit.parse_ir(text)
    eliminate_dead_code(graph)
    fusejit.fuse_graph(graph)
    (group,) = [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]
    sub = group.g("Subgraph")
    assert any(m.kind == "prim::ConstantChunk" and m.input() not in sub.inputs
               for m in sub.nodes())
    i2 = np.array([0.5], np.float32)
    v11 = np.array([4.0, 9.0, 16.0, 25.0], np.float32)
    r, s = FusedKernel(group)(i2, v11)
    sq = np.sqrt(v11[:2])                    # sqrt of piece 0; lerp's weight: its piece 0
    np.testing.assert_allclose(s, sq, rtol=1e-6)
    np.testing.assert_allclose(r, sq + v11[:1] * (i2 - sq), rtol=1e-6)
    assert "kernel" in fusejit.kernel_source(group, i2, v11)


CHUNK_AND_UNUSED_PIECE = """graph(%x : Float(6, device=cpu)):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=0](%x)
  %two : int = prim::Constant[value=2]()
  %zero : int = prim::Constant[value=0]()
  %l : Tensor[] = aten::chunk(%x, %two, %zero)
  %c : Tensor, %d : Tensor = prim::ListUnpack(%l)
  %e : Tensor = aten::lerp(%d, %d, %d)
  %y : Tensor = aten::addcmul(%b, %e, %c, %two)
  return (%y)
"""


def test_a_chunk_reused_by_a_group_with_a_piece_nothing_uses():
    """The fuser merges a second chunk of ``x`` into a group that already chunks ``x``; a
    piece of the first (``%a``) is used by nothing, so it is no group input: the fuser looked
    it up among them and failed (ValueError) on a valid graph."""
    x = np.arange(1.0, 7.0, dtype=np.float32)
    got = fusejit.compile(fusejit.parse_ir(CHUNK_AND_UNUSED_PIECE), fuse=True)(x)
    c, d = x[:3], x[3:]
    np.testing.assert_allclose(got, x[3:] + 2 * (d + d * (d - d)) * c, rtol=1e-6)


ALSO_READ_IN_A_BRANCH = """graph(%x : Float(6, device=cpu), %flag : bool):
  %f : bool = prim::Constant[value=0]()
  %c : Float(6, device=cpu) = aten::_cast_Float(%x, %f)
  %m : Bool(6, device=cpu) = aten::ge(%c, %c)
  %picked : Bool(6, device=cpu) = prim::If(%flag)
    block0():
      -> (%m)
    block1():
      -> (%m)
  %two : float = prim::Constant[value=2.]()
  %e : Bool(6, device=cpu) = aten::eq(%x, %two)
  %g : Bool(6, device=cpu) = aten::gt(%x, %x)
  return (%g, %e, %picked)
"""


def test_maps_of_one_array_stay_apart_where_a_branch_reads_one_before_the_last():
    """``fuse_sibling_maps`` put the maps of ``x`` into one group at the last one's place,
    though an ``If`` before it returns the first's value from its branches (its uses there
    are the blocks' return nodes, which the placement rule had taken for the graph's own):
    the graph used a value before its definition."""
    x = np.array([0.5, 2.0, -1.0, 2.0, np.nan, 3.0], np.float32)
    fn = fusejit.compile(fusejit.parse_ir(ALSO_READ_IN_A_BRANCH), fuse=True, reductions=True)
    g, e, picked = fn(x, True)
    np.testing.assert_array_equal(g, x > x)
    np.testing.assert_array_equal(e, x == 2.0)
    np.testing.assert_array_equal(picked, x >= x)


TYPE_AS_INTO_A_ROW_GROUP = """graph(%x : Long(2, device=cpu), %like : Long(1, 2, device=cpu)):
  %t : Tensor = aten::type_as(%x, %like)
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %u : Tensor = aten::threshold(%t, %zero, %one)
  %minus : int = prim::Constant[value=-1]()
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::cumsum(%u, %minus, %none)
  return (%c)
"""


def test_a_row_group_takes_no_shape_from_type_as_other():
    """A row group's plan broadcast ``type_as``'s ``other`` (which gives a dtype only) into the
    value's shape: a running sum of a (2,) vector came out (1, 2) where ``other`` was."""
    x, like = np.array([3, -2]), np.zeros((1, 2), np.int64)
    fn = fusejit.compile(fusejit.parse_ir(TYPE_AS_INTO_A_ROW_GROUP), fuse=True, reductions=True)
    got = fn(x, like)
    want = np.cumsum(np.where(x > 0, x, 1))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
