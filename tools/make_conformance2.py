"""Make the second fuser conformance corpus, tests/data/conformance2, with PyTorch 2.13.

    python tools/make_conformance2.py [OUT_DIR]

The first corpus (tests/data/conformance, 32 hand-picked graphs) came from PyTorch as its README
says; this tool makes many more cases the same way, from small functions listed in ``CASES``
below: every op of the legacy fuser's simple-map list with each of its overloads, chunk (also
of a chunk piece), cat, broadcasting, ``_grad_sum_to_size``, ``logit``,
``where(Tensor, Tensor, Scalar)``, int and bool tensors, and graphs where the fuser's common
subexpression elimination matters.

Each case's function is written into a module file (``conformance2_cases.py`` in a temporary
folder, so that TorchScript can read its source; the ``# conformance2_cases.py:L:C`` comments
in the IR point there) and compiled with ``torch.jit.script``. A copy of its graph goes through
``_jit_pass_inline``, ``_jit_pass_constant_propagation``, ``_jit_pass_lower_all_tuples``,
``_jit_pass_canonicalize_graph_fuser_ops``, ``_jit_pass_complete_shape_analysis`` on the
example inputs and ``_jit_pass_dce`` (``input.ir``); then, with the legacy CPU fuser switched
on (``_jit_override_can_fuse_on_cpu_legacy(True)``, ``_jit_override_can_fuse_on_cpu(True)``),
``_jit_pass_fuse`` (``FuseGraph``: the fuser, CSE, DCE, the shape-expression peephole) gives
``expected_fused.ir``. ``outputs.npz`` holds what the plain Python function computes eagerly;
``summary.json`` describes the fused graph as the first corpus's does.

fusejit's tests read these files and never import torch.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "conformance2"
MODULE = "conformance2_cases"

# Input specs: "KIND:d0,d1,..." for tensors, "float=V" / "int=V" / "bool=V" for scalars.
# Tensor kinds: f (float32, normal), d (float64, normal), p (float32 in [0.2, 2]), u (float32
# in [-0.9, 0.9]), l (int64 in [-6, 6]), n (int64 in [1, 6]), b (bool), t (float32, the
# transpose of a contiguous tensor: non-contiguous).
UNARY = ("abs acos asin atan ceil cos cosh exp expm1 erf erfc floor frac lgamma log log10 log1p "
         "log2 neg reciprocal relu round rsqrt sigmoid sin sinh sqrt tan tanh trunc").split()
_DOMAIN = {"acos": "u", "asin": "u", "log": "p", "log10": "p", "log2": "p", "log1p": "p",
           "rsqrt": "p", "sqrt": "p", "reciprocal": "p", "lgamma": "p"}
BINARY = "atan2 div fmod max min mul remainder".split()
COMPARE = "eq ne ge gt le lt".split()

CASES: list[tuple[str, str, list[str], list[str], str]] = []
"""(name, description, features, input specs, body); the body's parameters are a, b, c, ..."""


def case(name: str, description: str, features: list[str], inputs: list[str], body: str):
    CASES.append((name, description, features, inputs, body))


# -- unary ops: each op inside a chain, so that a group forms around it ---------------------------
for op in UNARY:
    kind = _DOMAIN.get(op, "f")
    case(f"unary_{op}", f"{op} between two fusible ops", ["unary"], [f"{kind}:3,5", "f:3,5"],
         f"return torch.{op}(a * 1.0) + b")
for op in ("sigmoid", "tanh", "exp", "abs", "neg", "relu"):
    case(f"unary_{op}_double", f"{op} on float64", ["unary", "float64"], ["d:4,3", "d:4,3"],
         f"return torch.{op}(a - b) * b")
case("unary_int_abs_neg", "abs and neg of int64 tensors", ["unary", "int"], ["l:6", "l:6"],
     "return torch.abs(a) - torch.neg(b)")
case("cast_float", "_cast_Float of an int64 tensor inside a group", ["cast"], ["l:3,4", "f:3,4"],
     "return torch._cast_Float(a * 2, False) * b")
case("rand_like_zeroed", "rand_like fuses; multiplied by 0 so the output is known",
     ["rand_like"], ["f:4,4"], "return torch.rand_like(a) * 0.0 + torch.exp(a)")
case("logit_plain", "logit (eps None) between fusible ops", ["logit"], ["u:3,4"],
     "return torch.logit(a * 0.5 + 0.5) * 2.0")
case("logit_eps", "logit with eps", ["logit"], ["u:3,4"],
     "return torch.logit(torch.sigmoid(a), 1e-6) + a")

# -- binary ops ---------------------------------------------------------------------------------
for op in BINARY:
    case(f"binary_{op}", f"{op}(Tensor, Tensor) in a chain", ["binary"], ["p:4,5", "p:4,5"],
         f"return torch.{op}(a + 1.0, b) * a")
for op in ("max", "min", "mul", "remainder", "fmod"):
    case(f"binary_{op}_int", f"{op} of int64 tensors", ["binary", "int"], ["l:5", "n:5"],
         f"return torch.{op}(a * 2, b) + b")
case("div_int_true", "true division of int64 tensors gives float", ["binary", "int"],
     ["l:5", "n:5"], "return torch.div(a + 1, b) * 2.0")
case("atan2_broadcast", "atan2 with a broadcast column", ["binary", "broadcast"],
     ["f:4,1", "f:5"], "return torch.atan2(a * 2.0, b).exp()")
for op in COMPARE:
    case(f"compare_{op}_tensor", f"{op}(Tensor, Tensor) then type_as", ["compare", "type_as"],
         ["f:3,4", "f:3,4"], f"return torch.{op}(a, b * 0.5).type_as(a) * a")
    case(f"compare_{op}_scalar", f"{op}(Tensor, Scalar) returned as bool", ["compare", "bool"],
         ["f:3,4"], f"return torch.{op}(a * 2.0, 0.5)")
case("compare_int_scalar", "comparison of an int64 tensor with an int", ["compare", "int"],
     ["l:6"], "m = (a + 1) > 2\nreturn m, torch.where(m, a, a * 3)")
case("compare_bool_returned_and_used", "a bool mask used inside and returned",
     ["compare", "where"], ["f:4", "f:4"], "m = (a * b) >= 0.0\nreturn m, torch.where(m, a, b)")
case("type_as_int_to_float", "type_as casts an int64 tensor to float32", ["type_as", "int"],
     ["l:3,4", "f:3,4"], "return (a * 3).type_as(b) + b")
case("type_as_float_to_double", "type_as casts float32 to float64", ["type_as"],
     ["f:3,4", "d:3,4"], "return torch.sigmoid(a).type_as(b) * b")
case("type_as_other_computed", "type_as whose other is computed in the group", ["type_as"],
     ["l:4", "f:4"], "return a.type_as(b * 2.0) + b.exp()")

# -- tensor-scalar overloads --------------------------------------------------------------------
for op, sym in (("mul", "*"), ("div", "/")):
    case(f"scalar_{op}_float", f"{op}(Tensor, float constant)", ["scalar"], ["f:4,4"],
         f"return (a {sym} 3.0).tanh()")
    case(f"scalar_{op}_int", f"{op}(Tensor, int constant)", ["scalar"], ["f:4,4"],
         f"return (a {sym} 3).tanh()")
    case(f"scalar_{op}_float_param", f"{op}(Tensor, float parameter)", ["scalar"],
         ["f:4,4", "float=1.5"], f"return (a {sym} b).tanh()")
    case(f"scalar_{op}_int_param", f"{op}(Tensor, int parameter) does not fuse", ["scalar"],
         ["f:4,4", "int=3"], f"return (a {sym} b).tanh()")
for op, sym in (("add", "+"), ("sub", "-")):
    case(f"{op}_tensor_alpha", f"{op}(Tensor, Tensor, alpha=2)", ["alpha"], ["f:3,4", "f:3,4"],
         f"return torch.{op}(a, b, alpha=2).exp()")
    case(f"{op}_tensor_alpha_float", f"{op}(Tensor, Tensor, alpha=0.5)", ["alpha"],
         ["f:3,4", "f:3,4"], f"return torch.{op}(a, b, alpha=0.5).exp()")
    case(f"{op}_scalar", f"{op}(Tensor, Scalar)", ["scalar"], ["f:3,4"],
         f"return (a {sym} 2.5).sin() {sym} 1")
    case(f"{op}_scalar_alpha", f"{op}(Tensor, Scalar, alpha)", ["scalar", "alpha"], ["f:3,4"],
         f"return torch.{op}(a.sin(), 2.5, 3)")
    case(f"{op}_float_param", f"{op}(Tensor, float parameter)", ["scalar"],
         ["f:3,4", "float=0.25"], f"return (a {sym} b).sin() * a")
    case(f"{op}_int_tensors", f"{op} of int64 tensors with alpha", ["alpha", "int"],
         ["l:5", "l:5"], f"return torch.{op}(a, b, alpha=3) * b")
case("rsub_builtin", "1 - t and 2.0 * t builtins", ["scalar"], ["f:3,4"],
     "return (1 - a.sigmoid()) * (2.0 * a)")

# -- clamp, threshold, lerp, addcmul, where -------------------------------------------------------
case("clamp_both", "clamp with min and max", ["clamp"], ["f:5,3"],
     "return torch.clamp(a * 2.0, -0.5, 0.5).exp()")
case("clamp_min_none", "clamp with min only (max None)", ["clamp"], ["f:5,3"],
     "return torch.clamp(a * 2.0, min=-0.5).exp()")
case("clamp_max_none", "clamp with max only (min None)", ["clamp"], ["f:5,3"],
     "return torch.clamp(a * 2.0, max=0.5).exp()")
case("clamp_int_bounds", "clamp with int bounds on float", ["clamp"], ["f:5,3"],
     "return torch.clamp(a * 4.0, -1, 1).exp()")
case("clamp_int_tensor", "clamp of an int64 tensor", ["clamp", "int"], ["l:7"],
     "return torch.clamp(a * 2, -3, 3) + a")
case("clamp_param_bound", "clamp with a float parameter bound", ["clamp", "scalar"],
     ["f:5,3", "float=0.3"], "return torch.clamp(a.sin(), b, 0.9) * a")
case("clamp_min_max_methods", "clamp_min / clamp_max methods", ["clamp"], ["f:5,3"],
     "return a.exp().clamp_min(1.0).clamp_max(2.0)")
case("threshold_op", "threshold", ["threshold"], ["f:4,5"],
     "return torch.threshold(a * 2.0, 0.1, 20.0).sin()")
case("lerp_scalar", "lerp with a scalar weight", ["lerp"], ["f:4,5", "f:4,5"],
     "return torch.lerp(a.exp(), b, 0.3) + a")
case("lerp_tensor", "lerp with a tensor weight", ["lerp"], ["f:4,5", "f:4,5", "u:4,5"],
     "return torch.lerp(a.exp(), b, c) + a")
case("addcmul_default", "addcmul with default value", ["addcmul"], ["f:4", "f:4", "f:4"],
     "return torch.addcmul(a.exp(), b, c) * a")
case("addcmul_value", "addcmul with value=2", ["addcmul"], ["f:4", "f:4", "f:4"],
     "return torch.addcmul(a.exp(), b, c, value=2) * a")
case("where_tensor", "where(cond, Tensor, Tensor)", ["where"], ["f:3,4", "f:3,4"],
     "return torch.where(a > b, a.exp(), b.sin()) + a")
case("where_scalar_other", "where(cond, Tensor, Scalar)", ["where"], ["f:3,4"],
     "return torch.where(a > 0.0, a.exp(), 0.5) + a")
case("where_bool_param", "where with a bool tensor input", ["where", "bool"],
     ["b:3,4", "f:3,4", "f:3,4"], "return torch.where(a, b * 2.0, c) * c")
case("where_broadcast", "where broadcasting a column condition", ["where", "broadcast"],
     ["f:4,1", "f:4,5"], "return torch.where(a > 0.0, b, b * 2.0).exp()")

case("where_scalar_self", "where(cond, Scalar, Tensor)", ["where"], ["f:3,4"],
     "return torch.where(a > 0.0, 0.5, a.exp()) + a")
case("where_two_scalars", "where(cond, Scalar, Scalar)", ["where"], ["f:3,4"],
     "return torch.where(a > 0.0, 1.0, -1.0) * a.exp()")
case("clamp_tensor_bounds", "clamp with tensor bounds", ["clamp"], ["f:3,4", "f:3,4"],
     "return torch.clamp(a.exp(), min=b) * a")
case("remainder_scalar", "remainder(Tensor, Scalar) is not on the list", ["binary", "scalar"],
     ["f:3,4"], "return torch.remainder(a.exp(), 0.7) * a")
case("fmod_scalar", "fmod(Tensor, Scalar) is not on the list", ["binary", "scalar"],
     ["f:3,4"], "return torch.fmod(a.exp(), 0.7) * a")
case("int_true_div_scalar", "int64 tensor divided by an int", ["scalar", "int"], ["l:6"],
     "return (a * 3) / 2 + 1.0")
case("compare_bool_tensors", "eq / ne of bool tensors", ["compare", "bool"], ["b:6", "b:6"],
     "return torch.eq(a, b), torch.ne(a, b).type_as(a)")
case("relu_sigmoid_int", "relu of int64; sigmoid of int64 gives float", ["unary", "int"],
     ["l:6"], "return torch.relu(a * 2), torch.sigmoid(a * 1)")
case("threshold_int", "threshold of an int64 tensor", ["threshold", "int"], ["l:6"],
     "return torch.threshold(a * 2, 1, 0) + a")
case("inplace_exp_", "exp_ on an intermediate", ["inplace"], ["f:4", "f:4"],
     "c = a * b\nc.exp_()\nreturn (c + a).sin()")

# -- pow overloads ------------------------------------------------------------------------------
case("pow_tensor_float", "pow(Tensor, float)", ["pow"], ["p:3,4"],
     "return torch.pow(a * 2.0, 1.5) + a")
case("pow_tensor_int", "Tensor ** int", ["pow"], ["f:3,4"], "return (a * 2.0) ** 3 + a")
case("pow_tensor_half", "pow(Tensor, 0.5)", ["pow"], ["p:3,4"], "return (a + 1.0) ** 0.5 * a")
case("pow_scalar_tensor", "pow(float, Tensor)", ["pow"], ["f:3,4"],
     "return torch.pow(2.0, a * 0.5) - a")
case("pow_int_scalar_tensor", "int ** Tensor", ["pow"], ["f:3,4"], "return 3 ** (a * 0.5) - a")
case("pow_tensor_tensor", "pow(Tensor, Tensor)", ["pow"], ["p:3,4", "f:3,4"],
     "return torch.pow(a + 0.5, b).sin()")
case("pow_param_exponent", "pow(Tensor, float parameter)", ["pow", "scalar"],
     ["p:3,4", "float=2.5"], "return torch.pow(a * 3.0, b) * a")
case("pow_int_tensor", "pow of an int64 tensor by an int", ["pow", "int"], ["l:6"],
     "return (a + 1) ** 2 * a")

# -- broadcasting, shapes, strides ---------------------------------------------------------------
case("broadcast_row_column", "(4, 1) with (5,)", ["broadcast"], ["f:4,1", "f:5"],
     "return (a * b + a).tanh()")
case("broadcast_three_ranks", "(2, 3, 4), (3, 1), (4,)", ["broadcast"],
     ["f:2,3,4", "f:3,1", "f:4"], "return (a + b) * c - b")
case("broadcast_zero_dim", "a 0-dim tensor with a matrix", ["broadcast"], ["f:", "f:3,4"],
     "return (a * b).exp() + a")
case("transposed_input", "a transposed input", ["strides"], ["t:5,4", "f:5,4"],
     "return (a * b).sigmoid() + a")
case("mixed_dtypes", "float32 and float64 promote", ["dtype"], ["f:3", "d:3"],
     "return (a * b).exp() + a")
case("int_and_float", "int64 and float32 promote", ["dtype", "int"], ["l:3", "f:3"],
     "return (a * b).exp() + a")
case("bool_and_float", "bool times float", ["dtype", "bool"], ["b:3", "f:3"],
     "return (a * b).exp() + b")

# -- multiple uses, outputs, common subexpressions -----------------------------------------------
case("cse_duplicated_mul", "the same mul twice, both in one group", ["cse"], ["f:4", "f:4"],
     "c = a * b\nd = a * b\nreturn c.exp() + d.sin()")
case("cse_duplicated_mul_outside", "the same mul twice, each a lone op feeding mm",
     ["cse", "mm"], ["f:4,4", "f:4,4"], "c = a * b\nd = a * b\nreturn torch.mm(c, d)")
case("cse_duplicated_mul_returned", "the same mul twice, both returned", ["cse"],
     ["f:4", "f:4"], "c = a * b\nd = a * b\nreturn c.exp(), c, d")
case("cse_duplicated_mul_group_outputs", "the same mul twice, both read inside a group and by mm:"
     " PyTorch keeps both", ["cse", "mm"], ["f:3,3", "f:3,3"],
     "c = a * b\nd = a * b\nreturn c.exp() + d.sin(), torch.mm(c, d)")
case("cse_two_groups_same_producer", "one exp read by two separate groups", ["cse", "mm"],
     ["f:4,4", "f:4,4"], "e = a.exp()\nf = torch.mm(e, b)\nreturn (e * 2.0).sin(), f.tanh() * e")
case("cse_duplicated_groups", "two identical chains", ["cse"], ["f:4", "f:4"],
     "c = (a * b).exp()\nd = (a * b).exp()\nreturn c + d")
case("cse_constant_operands", "a * 2.0 twice, lone ops feeding mm: the constants differ",
     ["cse", "mm"], ["f:4,4"], "c = a * 2.0\nd = a * 2.0\nreturn torch.mm(c, d)")
case("cse_constant_operands_grouped", "a * 2.0 twice inside one group", ["cse"], ["f:4"],
     "c = a * 2.0\nd = a * 2.0\nreturn c.exp() + d.sin()")
case("cse_scalar_ops_outside", "x + 1 twice with an int constant, lone ops feeding mm",
     ["cse", "mm"], ["f:4,4"], "c = a + 1\nd = a + 1\nreturn torch.mm(c, d)")
case("cse_alpha_operands", "add with alpha twice, lone ops feeding mm", ["cse", "mm"],
     ["f:4,4", "f:4,4"], "c = torch.add(a, b, alpha=2)\nd = torch.add(a, b, alpha=2)\n"
     "return torch.mm(c, d)")
case("cse_sizes", "size() of the same value twice", ["cse", "size"], ["f:3,4", "f:3,4"],
     "p = (a * b).exp()\nq = p * a\nreturn q, p.size(), p.size()")
case("cse_in_branch", "a mul repeated inside a branch", ["cse", "if"],
     ["f:4,4", "f:4,4", "bool=True"],
     "m = a * b\nif c:\n    n = a * b\n    r = torch.mm(m, n)\nelse:\n    r = torch.mm(m, a)\n"
     "return r")
case("cse_mm_duplicated", "the same mm twice around a group", ["cse", "mm"],
     ["f:4,4", "f:4,4"], "m = torch.mm(a, b)\nn = torch.mm(a, b)\nreturn (m * n).exp()")
case("cse_group_outputs_equal", "two groups computing the same value", ["cse", "mm"],
     ["f:4,4", "f:4,4"],
     "c = (a * b).exp()\nm = torch.mm(c, b)\nd = (a * b).exp()\nreturn (m + d).tanh(), c")
case("diamond_outputs", "one product feeds several outputs", ["multi_use"], ["f:4", "f:4"],
     "p = a * b\nreturn p.sin(), p.cos(), p + a")
case("fixpoint_chain", "a producer with two grouped consumers", ["fixpoint"], ["f:4"],
     "e = a.exp()\ns = e.sin()\nt = e.cos().tanh()\nreturn t, s")
case("intermediate_to_mm", "an intermediate read by mm becomes an output", ["mm"],
     ["f:3,3", "f:3,3"], "e = (a * b).sigmoid()\nm = torch.mm(e, b)\nreturn (m + e).sin()")
case("sum_between", "pointwise, sum, pointwise", ["reduction"], ["f:3,4"],
     "s = (a * 2.0).exp().sum(1, keepdim=True)\nreturn (a / s).tanh()")
case("size_used_only", "an intermediate used only by size()", ["size"], ["f:3,4", "f:3,4"],
     "p = a * b\nq = p.exp()\nreturn q * b, p.size()")
case("size_of_broadcast", "size() of a broadcast intermediate", ["size", "broadcast"],
     ["f:3,1", "f:4"], "p = a + b\nq = p.sin()\nreturn q * a, p.size()")
case("inplace_between", "an in-place add_ splits groups", ["inplace"], ["f:4", "f:4"],
     "c = a * b\nc.add_(1.0)\nreturn (c * a).exp()")
case("view_between", "a view splits groups", ["view"], ["f:4,6"],
     "c = (a * 2.0).exp()\nd = c.view(6, 4)\nreturn (d + 1.0).sin()")
case("scalar_int_param_blocks", "a non-constant int scalar blocks fusion", ["scalar"],
     ["f:4", "int=2"], "return (a * b).exp() + a")
case("float_params_inputs", "two float parameters become group inputs", ["scalar"],
     ["f:4", "float=0.5", "float=2.0"], "return (a * b + c).exp() * b")

# -- control flow -------------------------------------------------------------------------------
case("if_branches", "groups inside each branch, never across", ["if"],
     ["f:4", "f:4", "bool=True"],
     "e = (a * b).exp()\nif c:\n    d = (e + 1.0).sin() * b\nelse:\n    d = (e - 1.0).cos()"
     "\nreturn d * a")
case("loop_body", "a fusible loop body", ["loop"], ["f:4", "f:4", "int=3"],
     "for _ in range(c):\n    a = (a * b).tanh() + 1.0\nreturn a")

# -- chunk --------------------------------------------------------------------------------------
case("chunk_input_dim0", "chunk(2, 0) of an input", ["chunk"], ["f:4,3"],
     "x, y = a.chunk(2, 0)\nreturn (x * y).exp()")
case("chunk_input_dim1_three", "chunk(3, 1) of an input", ["chunk"], ["f:2,6"],
     "x, y, z = a.chunk(3, 1)\nreturn x * y + z")
case("chunk_negative_dim", "chunk(2, -1)", ["chunk"], ["f:3,4"],
     "x, y = a.chunk(2, -1)\nreturn (x - y).sigmoid()")
case("chunk_motion", "(a + b).chunk(2, 1): the add moves past the chunk", ["chunk_motion"],
     ["f:4,4", "f:4,4"], "x, y = (a + b).chunk(2, 1)\nreturn x.sigmoid() * y")
case("chunk_motion_broadcast", "(a * b).chunk with broadcasting operands", ["chunk_motion"],
     ["f:4,6", "f:6"], "x, y = (a * b).chunk(2, 1)\nreturn x.tanh() + y")
case("chunk_motion_chain", "two producers moved past one chunk", ["chunk_motion"],
     ["f:4,4", "f:4,4"], "x, y = (a.exp() + b).chunk(2, 0)\nreturn x * y")
case("chunk_of_chunk", "a chunk of a chunk piece", ["chunk"], ["f:8,3"],
     "x, y = a.chunk(2, 0)\nu, v = x.chunk(2, 0)\nreturn (u * v).exp() + y[:2]")
case("chunk_of_chunk_used", "a chunk piece used and chunked again", ["chunk"], ["f:4"],
     "x, y = a.chunk(2, 0)\nu, v = x.chunk(2, 0)\nw = torch.sqrt(x.abs())\n"
     "return torch.lerp(w, u, v), w")
case("chunk_of_computed_chunk", "a chunk of a chunk of a computed value", ["chunk"],
     ["f:8", "f:8"], "x, y = (a * b).chunk(2, 0)\nu, v = x.chunk(2, 0)\nreturn u + v * 2.0, y")
case("chunk_two_inputs", "chunks of two inputs", ["chunk"], ["f:4,2", "f:2,6"],
     "x, y = a.chunk(2, 0)\nu, v, w = b.chunk(3, 1)\nreturn (x * u + y * v).exp() - w")
case("chunk_same_input_twice", "two chunks of the same input", ["chunk"], ["f:4,4"],
     "x, y = a.chunk(2, 0)\nu, v = a.chunk(2, 0)\nreturn x * v + u * y")
case("chunk_uneven", "chunk(2, 0) of 5 rows: pieces of 3 and 2", ["chunk"], ["f:5,3"],
     "x, y = a.chunk(2, 0)\nreturn (x.exp() * 2.0, y.sin() + 1.0)")
case("chunk_three_size_all", "chunk(3) with every piece's size used", ["chunk", "size"],
     ["f:3,6", "f:3,6"],
     "x, y, z = (a + b).chunk(3, 1)\nreturn x * y * z, x.size(), y.size(), z.size()")
case("chunk_one_piece", "chunk(1) is a no-op", ["chunk"], ["f:4"],
     "(x,) = a.chunk(1, 0)\nreturn (x * 2.0).exp()")
case("chunk_size_used", "sizes of chunk pieces", ["chunk", "size"], ["f:4,6"],
     "x, y = (a * 2.0).chunk(2, 1)\nz = x.exp()\nreturn z * y, x.size()")
case("lstm_like", "LSTM-like gates", ["chunk_motion", "mm"],
     ["f:3,4", "f:4,16", "f:3,4", "f:16"],
     "g = torch.mm(a, b) + d\ni, f, c2, o = g.chunk(4, 1)\ncy = f.sigmoid() * c + i.sigmoid() *"
     " c2.tanh()\nreturn o.sigmoid() * cy.tanh(), cy")

# -- cat ----------------------------------------------------------------------------------------
case("cat_dim0", "cat of two fusible results along 0", ["cat"], ["f:2,3", "f:2,3"],
     "return torch.cat([a + b, a * b], 0)")
case("cat_dim1_three", "cat of three along 1", ["cat"], ["f:2,3", "f:2,3"],
     "return torch.cat([a.exp(), b.sin(), a - b], 1)")
case("cat_negative_dim", "cat along -1", ["cat"], ["f:2,3", "f:2,3"],
     "return torch.cat([a.exp(), b * 2.0], -1)")
case("cat_consumed", "the cat's result feeds more ops", ["cat"], ["f:2,3", "f:2,3"],
     "c = torch.cat([a + b, a - b], 0)\nreturn (c * 2.0).tanh()")
case("cat_of_inputs", "cat of plain inputs is not fused", ["cat"], ["f:2,3", "f:2,3"],
     "return torch.cat([a, b], 0) * 2.0")
case("cat_with_mm", "cat of a pointwise result and an mm", ["cat", "mm"],
     ["f:2,2", "f:2,2"], "return torch.cat([a * b, torch.mm(a, b)], 0)")
case("cat_intermediate_reused", "a cat input also read later", ["cat"], ["f:2,3", "f:2,3"],
     "p = a * b\nc = torch.cat([p, a + b], 0)\nreturn c, p.exp()")


def _grad_sum_cases() -> None:
    case("grad_sum_to_size_mul", "_grad_sum_to_size then mul", ["grad_sum_to_size"],
         ["f:3,4", "f:4"],
         "z = a * 2.0\ns = torch.ops.aten._grad_sum_to_size(z, b.size())\nreturn s * b")
    case("grad_sum_to_size_neg_add", "_grad_sum_to_size through neg and add",
         ["grad_sum_to_size"], ["f:3,4", "f:4"],
         "z = a.exp()\ns = torch.ops.aten._grad_sum_to_size(z, b.size())\nreturn -s + b")
    case("grad_sum_to_size_blocked", "_grad_sum_to_size then exp (does not commute)",
         ["grad_sum_to_size"], ["f:3,4", "f:4"],
         "z = a * 3.0\ns = torch.ops.aten._grad_sum_to_size(z, b.size())\nreturn s.exp()")
    case("grad_sum_to_size_none", "_grad_sum_to_size with a None size", ["grad_sum_to_size"],
         ["f:3,4"], "z = a * 3.0\ns = torch.ops.aten._grad_sum_to_size(z, None)\n"
         "return s.exp()")


_grad_sum_cases()


# -- generation ---------------------------------------------------------------------------------
_PARAMS = "abcdefghijklmnop"


def _module_text() -> str:
    lines = ["# Functions of the conformance2 corpus (written by tools/make_conformance2.py).",
             "import torch", "from typing import List, Tuple", "", ""]
    for name, _, _, inputs, body in CASES:
        params = []
        for i, spec in enumerate(inputs):
            pname = _PARAMS[i]
            if "=" in spec:
                params.append(f"{pname}: {spec.split('=')[0]}")
            else:
                params.append(pname)
        lines.append(f"def {name}({', '.join(params)}):")
        lines += ["    " + line for line in body.split("\n")]
        lines += ["", ""]
    return "\n".join(lines)


def _make_input(spec: str, rng: np.random.Generator):
    if "=" in spec:
        kind, text = spec.split("=")
        return {"float": float, "int": int, "bool": lambda t: t == "True"}[kind](text)
    kind, dims = spec.split(":")
    shape = tuple(int(d) for d in dims.split(",")) if dims else ()
    if kind == "t":
        return torch.from_numpy(rng.standard_normal(shape[::-1]).astype(np.float32)).t()
    if kind in "fd":
        array = rng.standard_normal(shape)
    elif kind == "p":
        array = rng.uniform(0.2, 2.0, shape)
    elif kind == "u":
        array = rng.uniform(-0.9, 0.9, shape)
    elif kind == "l":
        return torch.from_numpy(rng.integers(-6, 7, shape).astype(np.int64))
    elif kind == "n":
        return torch.from_numpy(rng.integers(1, 7, shape).astype(np.int64))
    elif kind == "b":
        return torch.from_numpy(rng.integers(0, 2, shape).astype(bool))
    else:
        raise ValueError(spec)
    return torch.from_numpy(array.astype(np.float64 if kind == "d" else np.float32))


def _copies(inputs: list) -> list:
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _flatten(result) -> list:
    # A returned tuple is flattened; a torch.Size (a tuple too) is one int[] output.
    if isinstance(result, tuple) and not isinstance(result, torch.Size):
        return [x for r in result for x in _flatten(r)]
    return [result]


def _as_array(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().contiguous().numpy()
    if isinstance(value, (list, torch.Size)):
        return np.asarray(list(value), dtype=np.int64)
    return np.asarray(value)


def _describe_value(key: str, value, name: str | None = None) -> dict:
    entry: dict = {"key": key}
    if name is not None:
        entry["name"] = name
    if isinstance(value, torch.Tensor):
        entry.update(type="Tensor", dtype=str(value.numpy().dtype), shape=list(value.shape),
                     strides=list(value.stride()))
    elif isinstance(value, (list, torch.Size)):
        entry.update(type="int[]", value=list(value))
    else:
        entry.update(type=type(value).__name__, value=value)
    return entry


def _location(path: list[str]) -> str:
    return " > ".join(["graph", *path])


def _walk(block, path: list[str], groups: list, outside: dict) -> None:
    outside[_location(path)] = [n.kind() for n in block.nodes()
                                if n.kind() != "prim::FusionGroup"]
    for node in block.nodes():
        if node.kind() == "prim::FusionGroup":
            sub = node.g("Subgraph")
            kinds = sorted(n.kind() for n in sub.nodes())
            groups.append({
                "location": _location(path),
                "num_inputs": len(list(node.inputs())),
                "num_outputs": len(list(node.outputs())),
                "input_values": [f"%{v.debugName()}" for v in node.inputs()],
                "output_values": [f"%{v.debugName()}" for v in node.outputs()],
                "op_kinds": kinds,
                "op_kinds_excluding_constants": [k for k in kinds if k != "prim::Constant"],
            })
        for i, sub_block in enumerate(node.blocks()):
            first = next(iter(node.inputs()), None)
            label = f"{node.kind()} (%{first.debugName()})" if first is not None else node.kind()
            _walk(sub_block, [*path, label, f"block{i}"], groups, outside)


def _prepare(fn, inputs):
    graph = fn.graph.copy()
    torch._C._jit_pass_inline(graph)
    torch._C._jit_pass_constant_propagation(graph)
    torch._C._jit_pass_lower_all_tuples(graph)
    torch._C._jit_pass_canonicalize_graph_fuser_ops(graph)
    torch._C._jit_pass_complete_shape_analysis(graph, tuple(inputs), False)
    torch._C._jit_pass_dce(graph)
    return graph


def main(out: Path) -> None:
    torch._C._jit_set_texpr_fuser_enabled(False)
    torch._C._jit_set_profiling_executor(False)
    torch._C._jit_override_can_fuse_on_cpu_legacy(True)
    torch._C._jit_override_can_fuse_on_cpu(True)
    workdir = Path(tempfile.mkdtemp())
    (workdir / f"{MODULE}.py").write_text(_module_text())
    spec = importlib.util.spec_from_file_location(MODULE, workdir / f"{MODULE}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    failures = []
    for name, description, features, specs, _ in CASES:
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        inputs = [_make_input(s, rng) for s in specs]
        python_fn = getattr(module, name)
        try:
            scripted = torch.jit.script(python_fn)
            with torch.no_grad():
                eager = _flatten(python_fn(*_copies(inputs)))
            graph = _prepare(scripted, inputs)
            # Source comments name the module file alone, as in the first corpus.
            input_text = str(graph).replace(f"{workdir}/", "")
            torch._C._jit_pass_fuse(graph, False)
            fused_text = str(graph).replace(f"{workdir}/", "")
        except Exception as error:  # noqa: BLE001 - a case PyTorch cannot make is reported
            failures.append((name, f"{type(error).__name__}: {str(error)[:200]}"))
            continue
        # The scripted function runs on PyTorch's legacy executor, whose fuser compiles the
        # groups: a check of the fused graph, which PyTorch's own kernel compiler may refuse.
        try:
            with torch.no_grad():
                run = _flatten(scripted(*_copies(inputs)))
            ok = len(eager) == len(run) and all(
                np.allclose(_as_array(e), _as_array(r), equal_nan=True)
                for e, r in zip(eager, run))
            fused_run = "matches eager" if ok else "differs from eager"
        except Exception as error:  # noqa: BLE001 - recorded in the summary
            fused_run = f"failed: {str(error).strip().splitlines()[-1][:160]}"
        groups: list = []
        outside: dict = {}
        _walk(graph.block(), [], groups, outside)
        for k, g in enumerate(groups):
            g["name"] = f"prim::FusionGroup_{k}"
        folder = out / name
        folder.mkdir()
        (folder / "input.ir").write_text(input_text)
        (folder / "expected_fused.ir").write_text(fused_text)
        np.savez(folder / "inputs.npz", **{f"arg{i}": _as_array(x) for i, x in enumerate(inputs)})
        np.savez(folder / "outputs.npz", **{f"out{i}": _as_array(x) for i, x in enumerate(eager)})
        params = [p.debugName().split(".")[0] for p in scripted.graph.inputs()]
        summary = {
            "case": name, "description": description, "features": features,
            "pytorch_version": torch.__version__,
            "inputs": [_describe_value(f"arg{i}", x, params[i]) for i, x in enumerate(inputs)],
            "outputs": [_describe_value(f"out{i}", x) for i, x in enumerate(eager)],
            "fusion_group_count": len(groups),
            "fusion_group_count_top_level": sum(1 for n in graph.nodes()
                                                if n.kind() == "prim::FusionGroup"),
            "fusion_groups": groups,
            "nodes_outside_groups": outside,
            "notes": [],
            "checks": {"pytorch_fused_run": fused_run},
        }
        (folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    shutil.rmtree(workdir)
    _write_readme(out)
    made = len(CASES) - len(failures)
    print(f"{made} cases written to {out}")
    for name, why in failures:
        print(f"  skipped {name}: {why}")


def _write_readme(out: Path) -> None:
    lines = ["# Fuser conformance corpus, second set (PyTorch 2.13)", "",
             "Written by `tools/make_conformance2.py`; do not edit by hand. The files of each",
             "case folder are those of `tests/data/conformance` (see its README), except that",
             "`summary.json`'s `checks.pytorch_fused_run` says how PyTorch's own legacy executor",
             "did running the fused graph (its CPU kernel compiler refuses some groups that",
             "`FuseGraph` forms: logit, negative chunk and cat dims, chunk of a chunk piece).",
             "", "| case | what it checks | PyTorch's fused run |", "| --- | --- | --- |"]
    for folder in sorted(p for p in out.iterdir() if p.is_dir()):
        summary = json.loads((folder / "summary.json").read_text())
        run = summary["checks"]["pytorch_fused_run"].replace("|", "/")
        lines.append(f"| `{summary['case']}` | {summary['description']} | {run} |")
    (out / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
