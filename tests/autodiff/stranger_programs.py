"""Losses and small models written the way a NumPy user writes them, for
``test_stranger_grads.py``: each is a ``@fusejit.jit`` function returning a scalar (a few
after the refused group return arrays, for ``vjp`` and the stand-ins' outputs). The group
marked "refused" are constructs that cannot be differentiated (or scripted): they must be
refused with an error naming the line, never give a wrong gradient. A second stranger's
programs follow it (several per function).
"""

from __future__ import annotations

import numpy as np
import scipy.special
from scipy.special import expit, log_softmax, softmax, xlogy

import fusejit


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logsumexp_rows(z):
    m = np.max(z, axis=1, keepdims=True)
    return m + np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))


@fusejit.jit
def mse(x, w, b, y):
    return np.mean((x @ w + b - y) ** 2)


@fusejit.jit
def relu_mlp(x, w1, b1, w2):
    h = np.maximum(x @ w1 + b1, 0)
    return np.sum(h @ w2)


@fusejit.jit
def logsumexp(x):
    return np.sum(logsumexp_rows(x))


@fusejit.jit
def softmax_xent(x, w, onehot):
    z = x @ w
    logp = z - logsumexp_rows(z)
    return -np.mean(np.sum(onehot * logp, axis=1))


@fusejit.jit
def smoothness(x):
    return np.sum((x[:, 1:] - x[:, :-1]) ** 2)


@fusejit.jit
def gram(x, y):
    return np.sum((x.T @ y) ** 2)


@fusejit.jit
def reshaped(x, w):
    return np.sum(np.tanh(x.reshape(3, 4).T) * w)


@fusejit.jit
def joined(x, y):
    both = np.concatenate([x, y], axis=1)
    pair = np.stack([x, y * y], axis=0)
    return np.sum(both ** 2) + np.sum(pair[1] - pair[0])


@fusejit.jit
def norm2(x):
    return np.sqrt(np.sum(x ** 2))


@fusejit.jit
def linalg_norm(x):
    return np.linalg.norm(x)


@fusejit.jit
def cubic_reciprocal(x):
    return np.sum(x ** 3 + 1 / x)


@fusejit.jit
def by_row(x, r):
    return np.sum((x / (1.0 + r * r)) ** 2)


@fusejit.jit
def row_max(x, w):
    return np.sum(x.max(axis=1) * w)


@fusejit.jit
def column_min(x):
    return np.sum(np.min(x, axis=0) ** 2) + np.amin(x)


@fusejit.jit
def moments(x):
    return np.sum(np.var(x, axis=0)) + np.std(x) + np.sum(x.var(axis=1, ddof=1))


@fusejit.jit
def product(x):
    return np.sum(np.prod(x, axis=1)) + np.prod(x[0])


@fusejit.jit
def running_sum(x, w):
    return np.sum(np.cumsum(x, axis=1) * w) + np.sum(np.cumsum(x[0]))


@fusejit.jit
def flipped(x, w):
    return np.sum(np.flip(x, axis=0) * w) + np.sum(x[::-1, 0] * w[:, 1])


@fusejit.jit
def deep_tanh(x, w, b):
    h = x
    for _ in range(3):
        h = np.tanh(h @ w + b)
    return np.sum(h)


@fusejit.jit
def branch_on_scalar(x, w, mode: float):
    if mode > 0:
        y = np.exp(x * w)
    else:
        y = np.log1p(x * x) * w
    return np.sum(y)


@fusejit.jit
def helper_gate(x, w, b):
    return np.sum(sigmoid(x @ w + b) * np.tanh(x @ w))


@fusejit.jit
def linear_recurrence(x, a, b):
    h = x
    for _ in range(4):
        h = h * a + b
    return np.sum(h * h)


@fusejit.jit
def leaky_relu(x):
    return np.sum(np.where(x > 0, x, 0.1 * x))


@fusejit.jit
def abs_clip(x, y):
    return np.sum(np.abs(x - y)) + np.sum(np.clip(x, -0.5, 0.5) ** 2)


@fusejit.jit
def masked_sum(x):
    return np.sum(x[x > 0])


@fusejit.jit
def mask_multiply(x):
    return np.sum(x * (x > 0) + x ** 2 * (x <= 0))


@fusejit.jit
def layer_norm(x, g, b):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return np.sum(((x - mu) / np.sqrt(var + 1e-5) * g + b) ** 2)


@fusejit.jit
def huber(x, y):
    d = x - y
    return np.mean(np.where(np.abs(d) < 1.0, 0.5 * d ** 2, np.abs(d) - 0.5))


@fusejit.jit
def logistic(x, w, y):
    return np.mean(np.log1p(np.exp(-y * (x @ w))))


@fusejit.jit
def attention(q, k, v):
    s = q @ k.T / np.sqrt(4.0)
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return np.sum((p @ v) ** 2)


@fusejit.jit
def outer_broadcast(x, w):
    return np.sum(np.sin(x[:, None] * w[None, :]))


@fusejit.jit
def covariance(x):
    xc = x - x.mean(axis=0, keepdims=True)
    c = xc.T @ xc / (x.shape[0] - 1)
    return np.sum(c * c)


@fusejit.jit
def rows_and_columns(x):
    return np.sum(x[1] * x[:, 0][:4]) + np.sum(x[-1] ** 2) + np.sum(x[::2, 1:3])


@fusejit.jit
def accumulate_loss(x, w):
    total = 0.0
    for i in range(3):
        total += np.sum((x * w - i) ** 2)
    return total


@fusejit.jit
def matvec(a, v):
    return np.dot(a @ v, a @ v) + np.sum(np.power(np.abs(v) + 1.0, 2.5))


@fusejit.jit
def mean_axes(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2) + np.sum(np.sum(x, axis=1, keepdims=True) * x)


@fusejit.jit
def pairwise_max(x, y):
    return np.sum(np.maximum(x, y) + np.minimum(x, 2 * y))


@fusejit.jit
def fancy_index(x):
    idx = np.array([2, 0, 2])
    return np.sum(x[idx] ** 2)


@fusejit.jit
def in_place_update(x, w):
    h = x.copy()
    h *= w
    h += 1.0
    return np.sum(h * h)


@fusejit.jit
def ridge(w, x, y, lam):
    return np.mean((x @ w - y) ** 2) + lam * np.sum(w ** 2)


@fusejit.jit
def axis_argument(x, axis):
    return np.sum(np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True) * x)


@fusejit.jit
def reduction_option(x, reduction):
    e = (x - 0.5) ** 2
    if reduction == "mean":
        return np.mean(e)
    return np.sum(e)


@fusejit.jit
def dots(x, y):
    return np.sum(x.T.dot(y) ** 2) + np.sum(np.dot(x.T, y))


@fusejit.jit
def scalar_first(x):
    return np.sum(np.maximum(0, x) + np.minimum(1.0, x) * 2)


@fusejit.jit
def binary_cross_entropy(p, t):
    q = np.clip(p, 1e-7, 1 - 1e-7)
    return -np.mean(t * np.log(q) + (1 - t) * np.log(1 - q))


@fusejit.jit
def powers(x):
    return (np.sum(np.tanh(x) ** 2 + np.square(x) + np.power(x, 3) + abs(x) * 0.1) + x.mean()
            - (-x).sum())


@fusejit.jit
def ellipsis_newaxis(x):
    return np.sum(x[..., 0] ** 2) + np.sum(x[None] * x[:, np.newaxis, 0:1, :1])


@fusejit.jit
def stacked(a, b):
    return np.sum(np.hstack([a, b]) ** 2) + np.sum(np.vstack([a, b * a]))


@fusejit.jit
def axes_moved(x):
    moved = np.swapaxes(x[None], 1, 2).reshape(1, 2, 3)
    return np.sum(np.expand_dims(x, 0) * moved) + np.sum(np.diff(x) ** 2)


@fusejit.jit
def outer(a, b):
    return np.sum(np.outer(a, b) ** 2)


@fusejit.jit
def row_norms(x):
    return np.sum(np.sum(x * x, axis=1) ** 0.5) + np.sum(np.linalg.norm(x, axis=1))


@fusejit.jit
def branch_on_array(x):
    if np.sum(x) > 0:
        y = x * 2
    else:
        y = -x
    return np.sum(y ** 2)


@fusejit.jit
def where_both(x, y):
    return np.sum(np.where((x > 0) & (y < 1), x * y, y - x))


@fusejit.jit
def loop_over_rows(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + np.sum(x[i] ** 2) * (i + 1)
    for row in x:
        total = total + np.sum(row) ** 2
    return total


@fusejit.jit
def flattened(x):
    return (np.sum(x.reshape(-1) * np.arange(12.0)) + np.sum(x.flatten() ** 2)
            + np.sum(np.cumsum(x) * 0.1))


@fusejit.jit
def more_moments(x):
    return (np.var(x) + np.sum(np.std(x, axis=0, ddof=1, keepdims=True))
            + np.sum(np.amax(x, axis=(0, 1))) + np.sum(np.min(x, axis=1, keepdims=True)))


@fusejit.jit
def builtin_sum(x):
    return np.sum(sum(x) ** 2)


@fusejit.jit
def rnn_from_zeros(x, w):
    h = np.zeros(4)
    for _ in range(3):
        h = np.tanh(h * w + x)
    return np.sum(h ** 2)


@fusejit.jit
def comprehension(x):
    parts = [x[i] * (i + 1) for i in range(3)]
    return np.sum(np.stack(parts) ** 2)


@fusejit.jit
def methods(x):
    return (x.sum(axis=0).mean() + np.sum(x, axis=(0, 1)) + x.std() + x.prod(axis=1).sum()
            + x.min() + x.max(axis=0).sum())


@fusejit.jit
def trig(x, y):
    return np.sum(np.sin(x) * np.cos(y) + np.arctan(x * y) + np.sinh(x) / np.cosh(y))


@fusejit.jit
def accumulate_array(x, w):
    total = np.zeros(())
    for i in range(3):
        total += np.sum((x * w - i) ** 2)
    return total


@fusejit.jit
def last_states(x, w):
    hs = []
    h = x
    for _ in range(3):
        h = np.tanh(w @ h)
        hs.append(h)
    return np.sum(hs[-1] ** 2) + np.sum(hs[1] * hs[0])


@fusejit.jit
def stacked_states(x, w):
    outs = [x]
    h = x
    for i in range(4):
        h = np.tanh(w @ h)
        if i % 2 == 0:
            outs.append(h)
        else:
            outs.append(h * 2)
    return np.sum(np.stack(outs) ** 2) + np.sum(outs[0] * outs[-1])


@fusejit.jit
def appended_in_order(x):
    outs = []
    outs.append(x)
    outs.append(x * 2)
    for i in range(2):
        outs.append(np.sin(x) * i)
    return np.sum(np.stack(outs, axis=1) * np.arange(12.0).reshape(3, 4))


@fusejit.jit
def scaled_in_loop(x, w):
    h = x * 1.0
    for _ in range(3):
        h *= w
        h += 0.5
    return np.sum(h * h)


W0 = np.eye(3) * 2.0


@fusejit.jit
def positional_axes(x, w):
    return np.sum(x.sum(1)) + np.sum(x.max(1)) + np.sum(np.max(x, 1)) + np.mean(x, axis=0) @ w


@fusejit.jit
def where_log(x):
    return (np.sum(np.where(x > 0, np.log(np.abs(x) + 1), 0.0))
            + np.sum((x > 0).astype(float) * x) + np.sum(x.astype(np.float64)))


@fusejit.jit
def outer_batch(x, y):
    return np.sum(np.sum(x[:, :, None] * y[:, None, :], axis=0) ** 2)


@fusejit.jit
def distances(x, y):
    return np.linalg.norm(x - y, axis=-1).mean() + np.sqrt(np.mean(x ** 2, axis=0)).sum()


@fusejit.jit
def logs(x):
    return (np.log(x).sum() + np.sum(x / x.sum()) + np.sum(np.exp(x) - 1 - x)
            + np.sum(x ** 0.5 + 2 ** x + np.exp2(x) + np.log2(x) + np.log10(x)))


@fusejit.jit
def global_and_default(x, scale=2.0):
    return np.sum((W0 @ x) ** 2) + np.sum(np.tanh(x * scale))


@fusejit.jit
def gaussian(x, y, sigma):
    return np.sum((x - y) ** 2) / (2 * sigma ** 2) + np.mean(np.abs(x - y) ** 1.5)


@fusejit.jit
def standardised_mlp(x, w, b):
    h = x @ w + b
    h = h - h.mean(axis=0)
    h = h / (h.std(axis=0) + 1e-3)
    return np.mean(np.maximum(h, 0.0) ** 2)


@fusejit.jit
def reshape_chain(x):
    return (np.sum(x.reshape(2, 3).T.reshape(-1)[1:4] ** 2)
            + np.sum(x.reshape(3, 2)[:, ::-1] * np.arange(6.0).reshape(3, 2)))


@fusejit.jit
def angles(x, y):
    return (np.sum(np.arctan2(y, x)) + np.sum(np.sign(x) * np.sqrt(np.abs(x)))
            + np.sum(np.sqrt(x * x + y * y)))


@fusejit.jit
def masked_assignments(x):
    y = x * 2.0
    y[y < 0] = 0.0
    z = np.empty_like(x)
    z[:] = x * 2
    return np.sum(y ** 2) + np.sum(z ** 3)


# -- einsum, diagonals, triangles, permutations, integer-array indexing, row writes

@fusejit.jit
def einsum_contractions(a, b, x, y):
    return (np.sum(np.einsum('ij,jk->ik', a, b) ** 2)
            + np.sum(np.einsum('bij,bjk->bik', x, y) * 0.5)
            + np.einsum('ij,ij->', a, a)
            + np.einsum('i,i->', a[0], a[1])
            + np.sum(np.einsum('ij->j', a) ** 2)
            + np.einsum('ii->', x[0] @ y[0])
            + np.sum(np.einsum('i,j->ij', a[0], b[:, 0]) ** 2))


@fusejit.jit
def einsum_more(x, w, v):
    h = np.tanh(np.einsum('bi,ij->bj', x, w))
    return (np.sum(np.einsum('bj,bj->b', h, h)) + np.sum(np.einsum('ij,jk,k', w.T, w, v) ** 2)
            + np.sum(np.einsum('ij', w) * np.einsum('ji', w.T)) + np.sum(np.einsum('ii->i', w.T @ w)))


@fusejit.jit
def matrix_parts(a, v):
    return (np.trace(a @ a.T) + np.sum(np.diag(a) ** 2) + np.sum(np.diag(v) @ a)
            + np.sum(np.triu(a) ** 2) + np.sum(np.tril(a, -1) * a) + np.trace(a, 1)
            + np.sum(np.diag(a, k=-1) * v[:3]) + np.sum(np.diag(v[1:], 1) * a))


@fusejit.jit
def smooth_maxes(x, y):
    return (np.sum(np.logaddexp(0.0, x)) + np.sum(np.logaddexp(x, y) ** 2)
            + np.sum(np.hypot(x, y)) + np.mean(np.logaddexp(x, 1.5)))


@fusejit.jit
def permuted(x, w):
    return (np.sum(x.transpose(2, 0, 1) * w) + np.sum(np.transpose(x, (1, 0, 2)) ** 2)
            + np.sum(x.transpose((0, 2, 1))[1] * w[:, 0, :]) + np.sum(x.T ** 3)
            + np.sum(np.transpose(x) * x.T))


@fusejit.jit
def rounded_and_clipped(x, y):
    return (np.sum(x * x.round()) + np.sum(y * np.round(x, 1))
            + np.sum(np.clip(x, a_min=-0.5, a_max=0.5) ** 2)
            + np.sum(np.clip(y, min=-1.0) ** 2) + np.sum(x.clip(max=0.3) * y)
            + np.sum(np.clip(x, None, 0.2)) + np.sum(np.clip(x, -y * y, y * y)))


@fusejit.jit
def scalar_extremes(x, w, lam: float):
    a, b, c = np.sum(x), np.sum(x * w), np.sum(x ** 2)
    return max(a, b, c) + min((a, b)) + max([np.mean(x), 0.5]) * min(lam, 2.0, 3.0)


@fusejit.jit
def gathered(x, idx):
    return (np.sum(x[idx] ** 2) + np.sum(x[:, [2, 0, 2]] * 3.0)
            + np.sum(x[idx, 1]) + np.sum(x[-1, idx % 3]))


@fusejit.jit
def picked_log_likelihood(z, labels):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return -np.mean(np.log(p[np.arange(z.shape[0]), labels]))


@fusejit.jit
def embedding_bag(table, tokens, w):
    vectors = table[tokens]
    return np.sum(np.tanh(vectors.sum(axis=0) @ w))


@fusejit.jit
def rows_into_buffer(x, w):
    n = x.shape[0]
    out = np.zeros((n, 3))
    h = np.zeros(3)
    for t in range(n):
        h = np.tanh(w @ h + x[t])
        out[t] = h
    return np.sum(out ** 2) + np.sum(out[-1])


@fusejit.jit
def element_assignment(x, w):
    h = np.zeros((2, 3))
    h[0] = x[1] * w
    return np.sum(h * h)


@fusejit.jit
def slice_assignment(x):
    y = np.zeros((3, 4))
    y[1:] = x[1:] * 2
    y[0, :2] = x[0, 2:] ** 2
    return np.sum(y ** 3)


@fusejit.jit
def concatenated_appends(x, w):
    pieces = []
    h = x
    for _ in range(3):
        h = np.tanh(h @ w)
        pieces.append(h)
    pieces.append(x[:1])
    cols = []
    for i in range(2):
        cols.append(x * (i + 1.0))
    return (np.sum(np.concatenate(pieces) ** 2)
            + np.sum(np.concatenate(cols, axis=1)[:, 0]))


@fusejit.jit
def squeezed_padded_taken(x, v, idx):
    y = (x @ v[:, None]).squeeze()
    return (np.sum(y ** 2) + np.sum(np.squeeze(x[:, :1], axis=1) * v[:3])
            + np.sum(np.take(x, idx) ** 2) + np.sum(np.take(x, idx[:2] % 3, axis=0) * x[:2])
            + np.sum(np.take_along_axis(x, idx[:3, None] % 4, axis=1))
            + np.sum(np.atleast_2d(v) ** 2) + np.sum(np.atleast_1d(np.sum(v)) * 2)
            + np.sum(np.pad(x, ((0, 1), (2, 0))) ** 2)
            + np.sum(np.pad(v, (1, 2), constant_values=0.5) ** 3))


@fusejit.jit
def products_and_averages(x, w, v):
    return (np.sum(np.tensordot(x, w, axes=1) ** 2) + np.sum(np.tensordot(x, x, axes=([0], [0])))
            + np.sum(np.inner(x, x) ** 2) + np.inner(v, v)
            + np.average(x, weights=np.abs(x) + 1.0) + np.sum(np.average(x, axis=1, weights=v))
            + np.average(v))


@fusejit.jit
def vector_and_matrix_norms(x, v):
    return (np.linalg.norm(v, 1) + np.linalg.norm(v, np.inf) + np.linalg.norm(v, ord=3)
            + np.linalg.norm(x, np.inf) + np.linalg.norm(x, 1)
            + np.sum(np.linalg.norm(x, ord=1, axis=1)) + np.linalg.norm(x, 'fro')
            + np.sum(np.linalg.norm(x, axis=0, keepdims=True)))


@fusejit.jit
def writes_and_unpacking(x, w):
    h = np.zeros_like(x)
    h[:, 0] = x[:, 0] * 2
    h[:, 1:] = np.tanh(x[:, 1:])
    acc = np.zeros((2, 4))
    for t in range(x.shape[0]):
        acc[t % 2] += x[t] * w
    grid = np.zeros((2, 4))
    for i in range(2):
        for j in range(4):
            grid[i, j] = x[i, j] * w[j] + 1.0
    a, b, c = x
    return np.sum(h ** 2) + np.sum(acc ** 2) + np.sum(grid ** 2) + np.sum(a * b + c)


@fusejit.jit
def gaussian_log_likelihood(x, mu, chol):
    cov = chol @ chol.T + 0.5 * np.eye(x.shape[1])
    d = x - mu
    sign, logdet = np.linalg.slogdet(cov)
    precision = np.linalg.inv(cov)
    return (0.5 * np.sum(d * np.linalg.solve(cov, d.T).T) + 0.5 * x.shape[0] * sign * logdet
            + np.trace(precision) + np.log(np.linalg.det(cov)) + mu @ np.linalg.solve(cov, mu))


@fusejit.jit
def tiled_and_repeated(x, v):
    return (np.sum(np.tile(x, (2, 1)) ** 2) + np.sum(np.repeat(x, 2, axis=0) * np.arange(8.0)[:, None])
            + np.sum(np.tile(v, 3) * np.arange(9.0)) + np.sum(np.repeat(v, 2) ** 3)
            + np.sum(np.tile(v, (2, 2)) ** 2) + np.sum(x.repeat(3, axis=1) ** 2)
            + np.sum(np.tile(x, (2, 1, 3)) * 0.5))


@fusejit.jit
def scipy_special_losses(z, t):
    p = softmax(z, axis=1)
    return (np.sum(scipy.special.logsumexp(z, axis=1)) + scipy.special.logsumexp(z)
            + np.sum(expit(z) * t)
            + np.sum(log_softmax(z, axis=-1) * t) + np.sum(xlogy(t, p))
            + np.sum(scipy.special.erf(z)) + np.sum(scipy.special.logit(expit(z)) ** 2)
            + np.sum(scipy.special.logsumexp(z, axis=0, keepdims=True)))


@fusejit.jit
def sorted_statistics(x, v):
    s = np.sort(x, axis=1)
    trimmed = np.mean(np.sort(v)[1:-1])
    return (np.sum(s * np.arange(4.0)) + trimmed + np.median(v) + np.sum(np.median(x, axis=0) ** 2)
            + np.median(x) + np.sum(np.median(x, axis=1, keepdims=True) * x)
            + np.sum(x[0, np.argsort(v)] * v) + np.sum(np.sort(x, axis=None)[-3:]))


@fusejit.jit
def recurrence_in_a_buffer(x, w):
    n = x.shape[0]
    out = np.empty((n + 1, 3))
    out[0] = 0.0
    for t in range(n):
        out[t + 1] = np.tanh(out[t] * w + x[t])
    cols = np.zeros((3, n))
    for t in range(n):
        cols[:, t] = x[t] * 2
    win = x.copy()
    for t in range(n - 1):
        win[t:t + 2] = win[t:t + 2] * 0.5
    return np.sum(out ** 2) + np.sum(cols * cols) + np.sum(win ** 3)


@fusejit.jit
def small_numpy_helpers(x, v):
    eps = np.finfo(float).eps
    left, right = np.hsplit(x, 2)
    top = np.vsplit(x, 3)[0]
    return (np.sum(np.log(np.abs(x) + eps)) + np.sum(np.roll(x, 1, axis=1) * x)
            + np.sum(np.roll(v, -1) * v ** 2) + np.sum(np.column_stack([v[:3], x[:, 0]]) ** 2)
            + np.sum(left * right) + np.sum(top ** 3) + np.sum(np.flipud(x) * np.fliplr(x))
            + np.float64(0.5) * np.sum(x))


@fusejit.jit
def cumulative_products(x, v):
    survival = np.cumprod(1.0 - 0.5 / (1.0 + x * x), axis=1)
    return np.sum(survival) + np.sum(np.cumprod(v) ** 2) + np.sum(x.cumprod(axis=0) * x)


# -- refused: each must raise a FusejitError naming its line --------------------------------

@fusejit.jit
def write_into_argument(x, w):
    x += w
    return np.sum(x * x)


@fusejit.jit
def write_seen_through_view(x, w):
    h = x * 2.0
    v = h[0]
    h *= 3.0
    return np.sum(v * w)


@fusejit.jit
def float_of_array(x):
    return float(np.sum(x ** 2)) * 1.0 + np.sum(x)


@fusejit.jit
def while_loop(x):
    h = x
    i = 0
    while i < 3:
        h = np.tanh(h)
        i += 1
    return np.sum(h)


@fusejit.jit
def list_read_in_another_loop(x, w):
    hs = []
    h = x
    for _ in range(3):
        h = np.tanh(w @ h)
        hs.append(h)
    total = np.zeros(())
    for i in range(3):
        total = total + np.sum(hs[i])
    return total


@fusejit.jit
def loop_write_through_alias(x, w):
    h0 = x * 1.0
    h = h0
    for _ in range(3):
        h *= w
    return np.sum(h) + np.sum(h0)


@fusejit.jit
def two_names_one_buffer(x):
    a = x * 1.0
    b = a
    for _ in range(2):
        a *= 2.0
    return np.sum(a) + np.sum(b)


@fusejit.jit
def einsum_ellipsis(a, b):
    return np.sum(np.einsum('...ij,...jk->...ik', a, b))


@fusejit.jit
def integer_index_assignment(x):
    y = x * 1.0
    y[np.array([0, 2])] = 0.0
    return np.sum(y ** 2)


@fusejit.jit
def view_read_after_row_write(x, w):
    h = np.zeros((2, 3))
    r = h[0]
    h[0] = x[1] * w
    return np.sum(r * w) + np.sum(h)


# -- held-out style programs (a second stranger's set): classic losses, physics energies,
# statistics, attention and normalisations, recurrences and scans, fits, matrix functions,
# writes into integer-indexed elements and inside ifs. Several programs share one function
# (their losses added) to keep the compiled work small.

@fusejit.jit
def margin_losses(w, x, big_w, labels, y):
    n = x.shape[0]
    hinge = np.mean(np.maximum(0, 1 - y * (x @ w))) + 0.5 * 0.1 * w @ w
    scores = x @ big_w
    correct = scores[np.arange(n), labels]
    margins = np.maximum(0, scores - correct[:, None] + 1.0)
    margins[np.arange(n), labels] = 0
    r = x @ w - y
    q = np.minimum(np.abs(r), 1.0)
    shrunk = np.sign(scores) * np.maximum(np.abs(scores) - 0.2, 0)
    return hinge + margins.sum() / n + np.sum(q * (np.abs(r) - 0.5 * q)) + np.sum(shrunk ** 2)


@fusejit.jit
def probabilistic_losses(z, a, b, mu, logvar, y):
    p = 1 / (1 + np.exp(-z))
    pt = np.where(y == 1, p, 1 - p)
    alpha = np.where(y == 1, 0.25, 0.75)
    focal = -np.sum(alpha * (1 - pt) ** 2.0 * np.log(pt))
    pa = np.exp(a) / np.exp(a).sum(axis=-1, keepdims=True)
    logq = b - scipy.special.logsumexp(b, axis=-1, keepdims=True)
    kl = np.sum(pa * (np.log(pa) - logq))
    kl_normal = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    poisson = np.mean(np.exp(z) - y * z + scipy.special.gammaln(y + 1))
    target = np.eye(a.shape[1])[np.argmax(b, axis=1)] * 0.9 + 0.1 / a.shape[1]
    smoothed = -np.mean(np.sum(target * (a - np.log(np.sum(np.exp(a), 1, keepdims=True))), 1))
    cauchy = np.sum(np.log(np.pi * np.exp(logvar)) + np.log1p(((mu - z[:3]) / np.exp(logvar))
                                                             ** 2))
    return focal + kl + kl_normal + poisson + smoothed + cauchy


@fusejit.jit
def embedding_losses(anchor, positive, negative):
    d_ap = np.sum((anchor - positive) ** 2, axis=1)
    d_an = np.sum((anchor - negative) ** 2, axis=1)
    triplet = np.mean(np.maximum(d_ap - d_an + 1.0, 0.0))
    same = np.array([1.0, 0.0, 1.0, 0.0])
    d = np.sqrt(np.sum((anchor - negative) ** 2, axis=1) + 1e-9)
    contrastive = 0.5 * np.mean(same * d ** 2 + (1 - same) * np.maximum(2.0 - d, 0) ** 2)
    return triplet + contrastive


@fusejit.jit
def physics_energies(pos, charges, stiffness):
    n = pos.shape[0]
    i, j = np.triu_indices(n, k=1)
    d2 = np.sum((pos[i] - pos[j]) ** 2, axis=1)
    inv6 = (1.0 / d2) ** 3
    lennard_jones = 4.0 * np.sum(inv6 ** 2 - inv6)
    diff = pos[:, None, :] - pos[None, :, :]
    dist = np.sqrt((diff ** 2).sum(-1) + np.eye(n))
    off_diagonal = ~np.eye(n, dtype=bool)
    coulomb = 0.5 * np.where(off_diagonal, np.outer(charges, charges) / dist, 0.0).sum()
    bonds = pos[1:] - pos[:-1]
    springs = 0.5 * np.sum(stiffness * (np.linalg.norm(bonds, axis=1) - 1.0) ** 2)
    rows, cols = np.tril_indices(n, -1)
    return lennard_jones + coulomb + springs + np.sum(dist[rows, cols])


@fusejit.jit
def statistics(x, y, a, data):
    w = np.exp(a) / np.sum(np.exp(a))
    mu = np.sum(w * x) / np.sum(w)
    weighted_var = np.sum(w * (x - mu) ** 2) / np.sum(w)
    xm, ym = x - x.mean(), y - y.mean()
    pearson = np.sum(xm * ym) / np.sqrt(np.sum(xm ** 2) * np.sum(ym ** 2))
    c = np.cov(data, rowvar=False)
    return (weighted_var + pearson + np.corrcoef(x, y)[0, 1] + np.sum(c ** 2)
            + np.trace(np.cov(data.T)) + np.cov(x) + np.sum(np.cov(x, y, bias=True))
            + np.sum(np.corrcoef(data.T) ** 2))


@fusejit.jit
def mixture_log_likelihood(x, mu, log_sigma, logits):
    log_pi = logits - scipy.special.logsumexp(logits)
    z = (x[:, None] - mu[None, :]) / np.exp(log_sigma)
    lp = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi) + log_pi
    return -np.sum(scipy.special.logsumexp(lp, axis=1))


@fusejit.jit
def attention_and_norms(x, w, gamma, beta):
    t, d = x.shape
    q, k, v = x @ w[:, :4], x @ w[:, 4:8], x @ w[:, 8:]
    s = q @ k.T / np.sqrt(4)
    s = np.where(np.triu(np.ones((t, t)), k=1).astype(bool), -1e9, s)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    heads = (x @ w).reshape(t, 3, 2, 2).transpose(1, 2, 0, 3)     # (qkv, head, t, dh)
    scores = heads[0] @ heads[1].transpose(0, 2, 1) - 1e9 * np.tri(t, k=-1).T
    attn = np.exp(scores - scores.max(-1, keepdims=True))
    attn = attn / attn.sum(-1, keepdims=True)
    mixed = (attn @ heads[2]).transpose(1, 0, 2).reshape(t, 4)
    xhat = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + 1e-5)
    groups = x.reshape(t, 2, d // 2)
    gmu = groups.mean(axis=2, keepdims=True)
    gvar = ((groups - gmu) ** 2).mean(axis=2, keepdims=True)
    grouped = ((groups - gmu) / np.sqrt(gvar + 1e-5)).reshape(t, d)
    return (np.sum((p @ v) ** 2) + np.sum(np.tanh(mixed)) + np.sum((gamma * xhat + beta) ** 3)
            + np.sum(np.sin(grouped * gamma)))


@fusejit.jit
def recurrences_and_scans(x, wx, wh, r, c):
    h = np.zeros(wh.shape[0])
    loss = 0.0
    for t in range(x.shape[0]):
        h = np.tanh(wx @ x[t] + wh @ h)
        loss += np.sum(h ** 2)
    s = x[0]
    for t in range(1, x.shape[0]):
        s = 0.3 * x[t] + 0.7 * s
    prices = 1.5 * np.exp(np.cumsum(r))
    discounted = np.sum(prices * 0.9 ** np.arange(r.shape[0]))
    y = 0.0
    for ck in c:
        y = y * r + ck
    z = np.zeros_like(r)
    for k in range(c.shape[0]):
        z = z * r + c[k]
    return (loss / x.shape[0] + np.sum(s ** 2) + discounted
            + np.sum(np.cumsum(r[::-1])[::-1] ** 2) + np.sum(y ** 2) + np.sum(np.sin(z)))


@fusejit.jit
def fits(coef, t, knots, slopes, params, centre):
    poly = np.mean((np.polyval(coef, t) - np.cos(t)) ** 2)
    u = np.linspace(0.0, 1.0, 7)
    h00, h10 = 2 * u ** 3 - 3 * u ** 2 + 1, u ** 3 - 2 * u ** 2 + u
    h01, h11 = -2 * u ** 3 + 3 * u ** 2, u ** 3 - u ** 2
    curve = (h00[None, :] * knots[:-1, None] + h10[None, :] * slopes[:-1, None]
             + h01[None, :] * knots[1:, None] + h11[None, :] * slopes[1:, None])
    where = np.clip(t, 0.01, 0.99) * (knots.shape[0] - 1)
    at = np.clip(np.floor(where).astype(int), 0, knots.shape[0] - 2)
    frac = where - at
    linear = knots[at] * (1 - frac) + knots[at + 1] * frac
    time = np.arange(8) / 8.0
    wave = params[0] * np.sin(2 * np.pi * params[1] * time + params[2])
    gx, gy = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 4))
    bump = np.sum(np.exp(-((gx - centre[0]) ** 2 + (gy - centre[1]) ** 2) / 0.64))
    return (poly + np.sum(np.diff(curve, axis=1) ** 2) + np.sum(linear ** 2)
            + np.mean((wave - time) ** 2) + bump + np.sum(np.kron(knots, slopes) ** 2)
            + np.sum(np.kron(np.outer(knots, slopes), np.eye(2)) * 0.5)
            + np.sum(np.interp(t, np.linspace(0.0, 1.0, 4), knots) ** 2))


@fusejit.jit
def matrix_functions(a, b, x):
    n = a.shape[0]
    sq = (x[:, None] - x[None, :]) ** 2
    k = np.exp(-0.5 * sq) + 0.5 * np.eye(n)
    sign, logdet = np.linalg.slogdet(k)
    gp = 0.5 * b @ np.linalg.solve(k, b) + 0.5 * logdet
    s = a @ a.T + np.eye(n)
    chol = np.linalg.cholesky(s)
    z = np.linalg.solve(chol, b)
    m = a + 3 * np.eye(n)
    return (gp + 2 * np.sum(np.log(np.diag(chol))) + z @ z + np.sum(np.linalg.inv(m) ** 2)
            + np.linalg.det(m) ** 2 + np.linalg.norm(a, 2) + np.linalg.norm(a, 'nuc')
            + np.linalg.norm(a, -2) + np.sum(np.linalg.svd(a, compute_uv=False) ** 3)
            + np.sum(np.einsum('...i,ij,...j->...', a, s, a) ** 2)
            + np.sum(np.einsum('...ij,jk', a[None], s)))


@fusejit.jit
def piecewise_and_powers(x, e):
    soft = np.sum(np.where(x > 2.0, x, np.log1p(np.exp(np.minimum(x, 2.0)))))
    base = np.abs(x) + 0.5
    return soft + np.sum(base ** e) + np.sum(np.power(base, 0.5 * e)) + np.sum(np.sign(x) * e)


@fusejit.jit
def index_writes_and_branches(x, flag: float):
    y = x * 2.0
    idx = np.array([0, 2])
    y[idx] = x[idx] ** 2
    y[1, [0, 3]] = x[1, :2] * 3.0
    z = np.zeros_like(x)
    z[:] = x
    if flag > 0:
        z[0] = x[0] ** 2
    else:
        z[:, 1] = np.tanh(x[:, 1])
    out = np.zeros((3, 4))
    for t in range(3):
        if t % 2 == 0:
            out[t] = x[t] * (t + 1)
        out[:, t] += 0.5 * x[:, t]
    return np.sum(y ** 2) + np.sum(z ** 3) + np.sum(out ** 2)


@fusejit.jit
def pairwise_loop_energy(pos, w):
    n = pos.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(pos[i] - pos[j])
            energy += 1.0 / r
    loss = 0.0
    for t in range(1, n):
        loss = loss + np.sum((pos[t] - w * pos[t - 1]) ** 2)
    return energy + loss


@fusejit.jit
def more_numpy_functions(x, k, a, r, f):
    s = a + a.T
    values, vectors = np.linalg.eigh(a @ a.T + np.diag(np.arange(1.0, 4.0)))
    e = np.exp(x - x.max())
    e /= e.sum()
    piece = np.select([x < -1, x < 1], [-x - 0.5, 0.5 * x ** 2], default=x - 0.5)
    rows = r / np.linalg.norm(r, axis=1, keepdims=True)
    return (np.sum(np.linalg.eigvalsh(s) ** 3) + np.sum(np.linalg.eigvalsh(s, UPLO="U"))
            + np.sum(np.cross(r, f) ** 2) + np.sum(np.convolve(x, k, mode="valid") ** 2)
            + np.sum(np.convolve(x, k) ** 2) + np.sum(np.correlate(x, k, "same") * x)
            + np.sum(piece) + np.sum(np.linalg.matrix_power(a, 3)) + np.vdot(r, f)
            + x[:3] @ s @ k + np.sum(np.add.outer(x, k) ** 2) + np.sum(np.multiply.outer(k, 2.0))
            - np.log(e[2]) + np.mean(x ** 2) - np.mean(x) ** 2 + np.var(x, ddof=1)
            + np.sum(x[::2] * x[1::2]) + np.sum(np.diff(x, n=2) ** 2)
            + np.sum(np.triu(rows @ rows.T, 1) ** 2) + np.abs(r).max()
            + np.sum(np.cumsum(r[:, ::-1], axis=1) ** 2)
            + np.sum(values ** 2) + np.sum(vectors[:, -1] ** 4) + np.sum((vectors * values) @ r.T))


@fusejit.jit
def elementwise_stand_ins(x, y):
    # x, y in (0.2, 0.9)
    return (np.sum(np.arcsinh(x - 0.5) + np.arccosh(1 + x) + np.arctanh(x - 0.5))
            + np.sum(np.sinc(x) * np.deg2rad(y)) + np.sum(np.cbrt(x - 0.5) * np.reciprocal(y))
            + np.sum(np.heaviside(x - 0.5, 0.5) * y) + np.sum(np.fmax(x, y) - np.fmin(x, y))
            + np.sum(np.float_power(x, y)) + np.sum(np.logaddexp2(x, y))
            + np.sum(np.copysign(x, y - 0.5)) + np.sum(np.nan_to_num(x / y))
            + np.sum(np.trapezoid(x, axis=1)) + np.trapezoid(y[0], x[0]) + np.sum(np.ptp(x, 0))
            + np.sum(np.linalg.multi_dot([x, y.T, x])) + np.sum(np.rot90(x) * np.rot90(y, 3))
            + np.sum(np.mod(x * 5, 1.0) * y) + np.sum(np.fmod(x * 3, y + 0.3) ** 2)
            + np.sum(x % (y + 0.5)) + np.sum(x, where=y > 0.5) + np.mean(x * y, where=x > 0.4)
            + np.sum(np.logaddexp.reduce(x, axis=1)) + np.sum(np.add.accumulate(y, axis=1) ** 2)
            + np.sum(np.broadcast_to(x[0], (2, 4)) * y[:2]))


@fusejit.jit
def stand_in_outputs(x, y, a, v):
    i, j = np.triu_indices(4, 1)
    gx, gy = np.meshgrid(v, y[0], indexing="ij")
    return (np.cov(x), np.cov(x, y), np.cov(a, rowvar=False, ddof=0), np.corrcoef(a),
            np.polyval(v, x), np.kron(a, np.eye(2)), np.kron(v, y[0]), gx, gy,
            np.convolve(x, v), np.convolve(v, x, "valid"), np.convolve(x, v[:2], "same"),
            np.correlate(x, v, "full"), np.select([x < 0, x < 1], [x, 2 * x], -1.0),
            np.linalg.matrix_power(a, 2), np.linalg.matrix_power(a, -1), np.cross(a[:, :3], v[:3]),
            np.linalg.eigvalsh(a @ a.T), np.linalg.svd(a, compute_uv=False),
            np.linalg.cholesky(a @ a.T + np.eye(4)), a[i, j], np.tri(3, 4, 1),
            np.einsum('...j,j', a, v), np.subtract.outer(v, x[:2]), np.arcsinh(x),
            np.arccosh(1 + x * x), np.sinc(x), np.ptp(a, axis=1), np.rot90(a),
            np.trapezoid(a, dx=0.5), np.logaddexp.reduce(a, axis=0), np.nan_to_num(x / (x > 0)),
            np.linalg.norm(a, 2), np.linalg.norm(a, 'nuc'), np.broadcast_to(v, (2, 4)),
            np.sum(a, axis=0, where=a > 0), np.mean(a, 1, where=a < 1, keepdims=True),
            np.interp(x, np.sort(y[0]), y[1]), np.interp(x, np.sort(y[0]), y[1], 0.0, 1.0),
            np.linalg.eigh(a @ a.T)[0], np.linalg.eigh(a @ a.T, UPLO="U")[1])


@fusejit.jit
def convolution_pooling_and_steps(image, kernel, w, idx):
    h, wd = image.shape
    out = np.zeros((h - 2, wd - 2))
    for i in range(h - 2):
        for j in range(wd - 2):
            out[i, j] = np.sum(image[i:i + 3, j:j + 3] * kernel)
    pooled = image[:4, :4].reshape(2, 2, 2, 2).max(axis=(1, 3))
    x, y = image[:, :3], image[:, 3]
    for _ in range(3):
        w = w - 0.1 * 2 * x.T @ (x @ w - y) / x.shape[0]
    total = 0.0
    for t in range(idx.shape[0]):
        total = total + np.sum(np.tanh(kernel[idx[t]]))
    return (np.sum(np.maximum(out, 0) ** 2) + np.sum(pooled ** 2) + np.mean((x @ w - y) ** 2)
            + total + sum(np.sum(row ** 2) for row in (kernel[0], kernel[2])))


@fusejit.jit
def local_functions(x, w, scale):
    sigmoid = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731

    def layer(h, m, bias=0.1):
        return np.tanh(h @ m + bias) * scale

    def loss(h):
        return np.sum(sigmoid(h) ** 2)
    return loss(layer(layer(x, w), w.T @ w, bias=-0.2)) + sum(sigmoid(v) for v in (1.0, 2.0))


@fusejit.jit
def lstm_cell(x, h, c, w):
    z = np.concatenate([x, h], axis=-1) @ w
    n = h.shape[-1]
    i = 1 / (1 + np.exp(-z[:, :n]))
    f = 1 / (1 + np.exp(-z[:, n:2 * n]))
    g = np.tanh(z[:, 2 * n:3 * n])
    o = 1 / (1 + np.exp(-z[:, 3 * n:]))
    c2 = f * c + i * g
    return o * np.tanh(c2), c2


@fusejit.jit
def rnn_float32_inputs(x, w):
    h = np.zeros(3)
    for t in range(x.shape[0]):
        h = np.tanh(w @ h + x[t])
    return np.sum(h ** 2)


@fusejit.jit
def singular_vectors(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(u * s)


@fusejit.jit
def kron_of_3d(x):
    return np.sum(np.kron(x, x))
