"""Example graphs used by the demo, the docs and the benchmarks."""

from __future__ import annotations

import numpy as np

from . import ops as F

# An LSTM cell as TorchScript prints it after scripting, canonicalisation and shape analysis:
# gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh, split in four, the pointwise tail.
LSTM_CELL = """\
graph(%x : Float(4, 16, strides=[16, 1], requires_grad=0, device=cpu),
      %hx : Float(4, 32, strides=[32, 1], requires_grad=0, device=cpu),
      %cx : Float(4, 32, strides=[32, 1], requires_grad=0, device=cpu),
      %w_ih : Float(128, 16, strides=[16, 1], requires_grad=0, device=cpu),
      %w_hh : Float(128, 32, strides=[32, 1], requires_grad=0, device=cpu),
      %b_ih : Float(128, strides=[1], requires_grad=0, device=cpu),
      %b_hh : Float(128, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %w_ih_t : Float(16, 128, strides=[1, 16], requires_grad=0, device=cpu) = aten::t(%w_ih) # lstm.py:2:16
  %xw : Float(4, 128, strides=[128, 1], device=cpu) = aten::mm(%x, %w_ih_t) # lstm.py:2:12
  %w_hh_t : Float(32, 128, strides=[1, 32], requires_grad=0, device=cpu) = aten::t(%w_hh) # lstm.py:2:30
  %hw : Float(4, 128, strides=[128, 1], device=cpu) = aten::mm(%hx, %w_hh_t) # lstm.py:2:25
  %s1 : Float(4, 128, strides=[128, 1], device=cpu) = aten::add(%xw, %hw, %one) # lstm.py:2:12
  %s2 : Float(4, 128, strides=[128, 1], device=cpu) = aten::add(%s1, %b_ih, %one) # lstm.py:2:12
  %gates : Float(4, 128, strides=[128, 1], device=cpu) = aten::add(%s2, %b_hh, %one) # lstm.py:2:12
  %ig : Float(*, *, device=cpu), %fg : Float(*, *, device=cpu), %gg : Float(*, *, device=cpu), %og : Float(*, *, device=cpu) = prim::ConstantChunk[chunks=4, dim=1](%gates) # lstm.py:3:17
  %i : Float(*, *, device=cpu) = aten::sigmoid(%ig) # lstm.py:4:8
  %f : Float(*, *, device=cpu) = aten::sigmoid(%fg) # lstm.py:4:25
  %g : Float(*, *, device=cpu) = aten::tanh(%gg) # lstm.py:4:42
  %o : Float(*, *, device=cpu) = aten::sigmoid(%og) # lstm.py:4:56
  %fc : Float(*, *, device=cpu) = aten::mul(%f, %cx) # lstm.py:5:9
  %ig2 : Float(*, *, device=cpu) = aten::mul(%i, %g) # lstm.py:5:18
  %cy : Float(*, *, device=cpu) = aten::add(%fc, %ig2, %one) # lstm.py:5:9
  %tc : Float(*, *, device=cpu) = aten::tanh(%cy) # lstm.py:6:13
  %hy : Float(*, *, device=cpu) = aten::mul(%o, %tc) # lstm.py:6:9
  return (%hy, %cy)
"""


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """The LSTM cell in plain NumPy (``fusejit.ops`` supplies sigmoid); ``demo`` jits it."""
    gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def lstm_pointwise(cx, ig, hg, b_ih, b_hh):
    """The LSTM cell's pointwise part: the gates' two matmul halves in, h and c out (one fusion
    group: where fusing pays most)."""
    gates = ig + hg + b_ih + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh, steps: int):
    """``steps`` LSTM steps in one function: the loop runs in the interpreter, not in Python."""
    for _ in range(steps):
        gates = x @ w_ih.T + h @ w_hh.T + b_ih + b_hh
        i, f, g, o = np.split(gates, 4, axis=1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * np.tanh(g)
        h = F.sigmoid(o) * np.tanh(c)
    return h, c


# A while loop with an if inside, over ints only: the interpreter benchmark's scalar loop
# (``acc`` adds even k and subtracts 1 for odd k, for k < n).
WHILE_IF = """graph(%n : int):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %max : int = prim::Constant[value=9223372036854775807]()
  %c0 : bool = aten::lt(%zero, %n)
  %i : int, %acc : int = prim::Loop(%max, %c0, %zero, %zero)
    block0(%it : int, %k : int, %a : int):
      %r : int = aten::remainder(%k, %two)
      %even : bool = aten::eq(%r, %zero)
      %a2 : int = prim::If(%even)
        block0():
          %p : int = aten::add(%a, %k)
          -> (%p)
        block1():
          %q : int = aten::sub(%a, %one)
          -> (%q)
      %k2 : int = aten::add(%k, %one)
      %c : bool = aten::lt(%k2, %n)
      -> (%c, %k2, %a2)
  return (%acc)
"""


# Row reductions as NumPy code writes them; each is one row-reduction kernel under
# ``@fusejit.jit`` (passes/reduction_fusion.py).
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * gamma + beta


def log_sum_exp(x):
    m = x.max(axis=-1, keepdims=True)
    return np.log(np.exp(x - m).sum(axis=-1, keepdims=True)) + m


def standardize_columns(x):
    """Column statistics: one column-reduction kernel (reductions over axis 0)."""
    return (x - x.mean(axis=0)) / x.std(axis=0)
