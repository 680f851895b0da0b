"""Make the gradient corpus in tests/data/gradients with PyTorch (run offline, by hand).

    python tools/make_gradient_corpus.py [OUT_DIR]

For each case a small function is compiled with ``torch.jit.script``; its graph goes through
``_jit_pass_inline``, ``_jit_pass_constant_propagation``, ``_jit_pass_lower_all_tuples`` and
``_jit_pass_dce`` (as the conformance corpus does) and is printed to ``graph.ir``. The function
runs eagerly on float64 inputs; ``torch.autograd.grad`` with random output gradients gives the
input gradients. Files per case folder:

| file | content |
| --- | --- |
| graph.ir | the printed graph, ``str(graph)`` exactly as PyTorch prints it |
| inputs.npz | ``arg0``, ``arg1``, ... in graph-input order |
| outputs.npz | ``out0``, ... the function's results (a returned tuple flattened) |
| grad_outputs.npz | ``out0``, ... the gradient given for each output |
| grads.npz | ``arg0``, ... PyTorch's gradient of each input listed in summary.json ``wrt`` |
| summary.json | description, torch version, ``wrt`` |

fusejit's tests read these files and never import torch.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "gradients"


@torch.jit.script
def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = torch.mm(x, w_ih.t()) + torch.mm(hx, w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


@torch.jit.script
def gru_cell(x, hx, w_ih, w_hh, b_ih, b_hh):
    gi = torch.mm(x, w_ih.t()) + b_ih
    gh = torch.mm(hx, w_hh.t()) + b_hh
    i_r, i_i, i_n = gi.chunk(3, 1)
    h_r, h_i, h_n = gh.chunk(3, 1)
    resetgate = torch.sigmoid(i_r + h_r)
    inputgate = torch.sigmoid(i_i + h_i)
    newgate = torch.tanh(i_n + resetgate * h_n)
    return newgate + inputgate * (hx - newgate)


@torch.jit.script
def softmax_cross_entropy(logits, target):
    shifted = logits - logits.sum(dim=[1], keepdim=True) / 5.0
    exps = torch.exp(shifted)
    log_z = torch.log(exps.sum(dim=[1], keepdim=True))
    log_p = shifted - log_z
    return -(target * log_p).sum() / 3.0


@torch.jit.script
def layer_norm(x, gamma, beta):
    mu = x.sum(dim=[-1], keepdim=True) / 6.0
    centred = x - mu
    var = (centred * centred).sum(dim=[-1], keepdim=True) / 6.0
    return centred * torch.rsqrt(var + 1e-5) * gamma + beta


@torch.jit.script
def rnn_loop(x, h, w, u):
    for _ in range(3):
        h = torch.tanh(torch.matmul(h, w) + torch.matmul(x, u))
    return (h * h).sum()


@torch.jit.script
def branch(x, w):
    y = x * w
    if bool(y.sum() > 0):
        y = torch.exp(y) * w
    else:
        y = torch.sigmoid(y) * y
    return y.sum(dim=[0])


@torch.jit.script
def mlp(x, w1, b1, w2, b2):
    h = torch.relu(torch.mm(x, w1) + b1)
    out = torch.mm(h, w2) + b2
    return (out * out).sum() / 2.0


@torch.jit.script
def extremes(x):
    return torch.amax(x, dim=[1]), torch.amin(x, dim=[0, 1], keepdim=True)


@torch.jit.script
def products(x, y):
    return torch.prod(x, 1), torch.prod(y), torch.prod(x, 0, keepdim=True)


@torch.jit.script
def running_flips(x, w):
    return torch.flip(torch.cumsum(x, 1), [0, 1]) * w, torch.cumsum(x, -2)


@torch.jit.script
def slicing(x):
    return x[:, 1:] - x[:, :-1], x[::2, 1:3] * 2.0, x[-2:]


@torch.jit.script
def moments(x):
    return (torch.var(x, dim=[1], correction=0, keepdim=True),
            torch.std(x, dim=[0], correction=2),
            torch.var(x, dim=None, correction=1), torch.std(x, dim=[0, 1], keepdim=True))


def _ties(rng: np.random.Generator) -> np.ndarray:
    """Rows whose maximum comes once, twice and three times, and a minimum that comes
    twice: PyTorch shares the gradient evenly among ties."""
    x = np.round(rng.standard_normal((4, 5)), 1)
    x[1, [0, 3]] = x[1].max() + 1.0
    x[2, [1, 2, 4]] = x[2].max() + 1.0
    x[3, [2, 3]] = x.min() - 1.0
    return x


def _zeros(rng: np.random.Generator) -> list[np.ndarray]:
    """Rows with no zero, one zero and two zeros (prod_backward's three cases), and a tensor
    with exactly one zero for the product of everything."""
    x = rng.standard_normal((3, 4))
    x[1, 2] = 0.0
    x[2, [0, 3]] = 0.0
    y = rng.standard_normal((2, 3))
    y[1, 1] = 0.0
    return [x, y]


def _inputs(rng: np.random.Generator, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    return [rng.standard_normal(s) for s in shapes]


def cases(rng: np.random.Generator) -> dict:
    target = np.eye(5)[rng.integers(0, 5, 3)]
    return {
        "lstm_cell": (lstm_cell, "LSTM cell (mm, chunk, sigmoid, tanh), two outputs",
                      _inputs(rng, [(3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,)]),
                      list(range(7))),
        "gru_cell": (gru_cell, "GRU cell (two chunks of three, gates mixing)",
                     _inputs(rng, [(3, 4), (3, 5), (15, 4), (15, 5), (15,), (15,)]),
                     list(range(6))),
        "softmax_cross_entropy": (softmax_cross_entropy,
                                  "softmax cross-entropy written out (sum over dims, exp, log)",
                                  [rng.standard_normal((3, 5)), target], [0]),
        "layer_norm": (layer_norm, "layer norm over the last dim (sum/keepdim, rsqrt)",
                       _inputs(rng, [(4, 6), (6,), (6,)]), [0, 1, 2]),
        "rnn_loop": (rnn_loop, "a 3-step tanh RNN loop (prim::Loop with a constant trip count)",
                     _inputs(rng, [(2, 3), (2, 4), (4, 4), (3, 4)]), [0, 1, 2, 3]),
        "branch": (branch, "a data-dependent prim::If; the sum is positive for these inputs",
                   [np.abs(rng.standard_normal((3, 4))), np.abs(rng.standard_normal(4))],
                   [0, 1]),
        "mlp": (mlp, "a two-layer MLP with relu and a squared loss",
                _inputs(rng, [(4, 3), (3, 6), (6,), (6, 2), (2,)]), [0, 1, 2, 3, 4]),
    }


def rule_cases(rng: np.random.Generator) -> dict:
    """The reductions and views whose rules came later (own random stream, so the cases above
    are made exactly as before)."""
    return {
        "extremes": (extremes, "amax over a dim and amin over all with keepdim, with two- "
                               "and three-way ties", [_ties(rng)], [0]),
        "products": (products, "prod over a dim (rows with 0, 1 and 2 zeros) and of all "
                               "elements (one zero)", _zeros(rng), [0, 1]),
        "running_flips": (running_flips, "cumsum along each dim, flip of two dims",
                          _inputs(rng, [(3, 4), (3, 4)]), [0, 1]),
        "slicing": (slicing, "basic slices: neighbour differences, steps, negative starts",
                    _inputs(rng, [(5, 4)]), [0]),
        "moments": (moments, "var and std with corrections 0, 1, 2, dims, keepdim and all",
                    _inputs(rng, [(4, 5)]), [0]),
    }


def printed_graph(fn) -> str:
    graph = fn.graph.copy()
    torch._C._jit_pass_inline(graph)
    torch._C._jit_pass_constant_propagation(graph)
    torch._C._jit_pass_lower_all_tuples(graph)
    torch._C._jit_pass_dce(graph)
    # Source comments keep the file name only, as the conformance corpus does.
    return re.sub(r"# \S*/([^/\s]+\.py):", r"# \1:", str(graph))


def write_case(folder: Path, fn, description: str, inputs: list[np.ndarray], wrt: list[int],
               rng: np.random.Generator) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tensors = [torch.tensor(x, dtype=torch.float64, requires_grad=i in wrt)
               for i, x in enumerate(inputs)]
    result = fn(*tensors)
    outputs = list(result) if isinstance(result, tuple) else [result]
    grad_outputs = [torch.tensor(rng.standard_normal(tuple(o.shape))) for o in outputs]
    grads = torch.autograd.grad(outputs, [tensors[i] for i in wrt], grad_outputs)
    (folder / "graph.ir").write_text(printed_graph(fn), encoding="utf-8")
    np.savez(folder / "inputs.npz", **{f"arg{i}": x for i, x in enumerate(inputs)})
    np.savez(folder / "outputs.npz",
             **{f"out{i}": o.detach().numpy() for i, o in enumerate(outputs)})
    np.savez(folder / "grad_outputs.npz",
             **{f"out{i}": g.numpy() for i, g in enumerate(grad_outputs)})
    np.savez(folder / "grads.npz", **{f"arg{i}": g.numpy() for i, g in zip(wrt, grads)})
    summary = {"description": description, "torch": torch.__version__, "wrt": wrt,
               "passes": ["_jit_pass_inline", "_jit_pass_constant_propagation",
                          "_jit_pass_lower_all_tuples", "_jit_pass_dce"]}
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    for make, seed in ((cases, 2013), (rule_cases, 2026)):
        rng = np.random.default_rng(seed)
        for name, (fn, description, inputs, wrt) in make(rng).items():
            write_case(out / name, fn, description, inputs, wrt, rng)
            print(f"{name}: {len(inputs)} inputs, gradients of {wrt}")


if __name__ == "__main__":
    main()
