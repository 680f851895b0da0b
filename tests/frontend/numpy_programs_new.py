"""A third batch of everyday NumPy programs (issue 14's kinds), written as a NumPy user writes
them before looking at what fusejit prefers: ``len(x)``, ``ddof=``, boolean masks, chained
assignment, module-level helpers and constants, in-place updates of arguments, keywords.

Entries are ``(name, function, make_arguments)``, as in ``numpy_programs.PROGRAMS`` (which
appends them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

GRAVITY = 9.81
POLY = [2.0, -3.0, 0.5, 1.0]


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax_temperature(logits, temperature=1.0, axis=-1):
    z = logits / temperature
    z = z - np.max(z, axis=axis, keepdims=True)
    ez = np.exp(z)
    return ez / np.sum(ez, axis=axis, keepdims=True)


def log_softmax(x):
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def layer_norm_var(x, w, b, eps=1e-6):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    xhat = (x - mean) / np.sqrt(var + eps)
    return xhat * w + b


def logreg_train(X, y, lr=0.5, epochs=20):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(epochs):
        p = sigmoid(X @ w + b)
        err = p - y
        w -= lr * X.T @ err / len(y)
        b -= lr * err.mean()
    return w, b


def logreg_loss(w, X, y):
    p = sigmoid(X @ w)
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def rnn_sequence(xs, W, U, b):
    h = np.zeros(W.shape[0])
    outs = []
    for t in range(len(xs)):
        h = np.tanh(W @ h + U @ xs[t] + b)
        outs.append(h)
    return np.array(outs)


def lstm_cell(x, h, c, W, b):
    n = h.shape[0]
    z = np.concatenate([x, h]) @ W + b
    i = sigmoid(z[:n])
    f = sigmoid(z[n:2 * n])
    o = sigmoid(z[2 * n:3 * n])
    g = np.tanh(z[3 * n:])
    c = f * c + i * g
    h = o * np.tanh(c)
    return h, c


def newton_cubic(x0, tol=1e-10, max_iter=50):
    x = x0
    for i in range(max_iter):  # noqa: B007 - as the user wrote it
        fx = x ** 3 - 2 * x - 5
        dfx = 3 * x ** 2 - 2
        step = fx / dfx
        x -= step
        if abs(step) < tol:
            break
    return x


def newton_sqrt_array(a, iters=6):
    x = np.ones_like(a)
    for _ in range(iters):
        x = 0.5 * (x + a / x)
    return x


def longest_collatz(n):
    best, best_len = 1, 1
    for start in range(1, n):
        k = start
        length = 1
        while k != 1:
            if k % 2:
                k = 3 * k + 1
            else:
                k //= 2
            length += 1
        if length > best_len:
            best_len = length
            best = start
    return best, best_len


def mandelbrot_point(cr, ci, max_iter=100):
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        n += 1
    return n


def mandelbrot_grid(xmin, xmax, ymin, ymax, width, height, max_iter=30):
    cr = np.linspace(xmin, xmax, width)[np.newaxis, :] * np.ones((height, 1))
    ci = np.linspace(ymin, ymax, height)[:, np.newaxis] * np.ones((1, width))
    zr = np.zeros((height, width))
    zi = np.zeros((height, width))
    iters = np.zeros((height, width), dtype=np.int32)
    for _ in range(max_iter):
        mask = zr ** 2 + zi ** 2 < 4
        zr_new = zr ** 2 - zi ** 2 + cr
        zi = np.where(mask, 2 * zr * zi + ci, zi)
        zr = np.where(mask, zr_new, zr)
        iters[mask] += 1
    return iters


def kmeans(points, centers, iters=5):
    for _ in range(iters):
        dists = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
        labels = dists.argmin(1)
        new = np.zeros_like(centers)
        for k in range(centers.shape[0]):
            members = labels == k
            new[k] = (points * members[:, None]).sum(0) / max(members.sum(), 1)
        centers = new
    return centers, labels


def horner_array(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def horner_constants(x):
    acc = 0.0
    for c in POLY:
        acc = acc * x + c
    return acc


def image_gradient(img):
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, 1:-1] = (img[:, 2:] - img[:, :-2]) / 2
    gy[1:-1, :] = (img[2:, :] - img[:-2, :]) / 2
    return np.sqrt(gx ** 2 + gy ** 2)


def frame_change(a, b, thresh=10):
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16))
    changed = diff > thresh
    return changed.sum(), diff.mean()


def column_zscore(data):
    mu = data.mean(axis=0)
    sd = data.std(axis=0, ddof=1)
    return (data - mu) / sd


def column_minmax(a):
    lo = a.min(axis=0)
    hi = a.max(axis=0)
    return (a - lo) / (hi - lo), np.argmax(a, axis=0)


def tax(income):
    return np.where(income < 10, 0.0,
                    np.where(income < 50, (income - 10) * 0.2, 8 + (income - 50) * 0.4))


def huber_loss(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)).mean()


def count_weights(counts, weights):
    total = counts.sum()
    frac = counts / total
    return (frac * weights).sum(), counts.mean(), counts // 2 + 1, frac.astype(np.float32)


def normalize_inplace(x):
    x -= x.mean()
    x /= x.std()
    return x


def clamp_inplace(a, lo, hi):
    a[a < lo] = lo
    a[a > hi] = hi
    return a


def scale_shift(x, *, scale=1.0, shift=0.0, clip=None):
    y = x * scale + shift
    if clip is not None:
        y = np.clip(y, -clip, clip)
    return y


def projectile(v0, angle, t):
    x = v0 * np.cos(angle) * t
    y = v0 * np.sin(angle) * t - 0.5 * GRAVITY * t ** 2
    return x, y


def ewma_span(x, span=10):
    alpha = 2 / (span + 1)
    out = np.zeros_like(x)
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def rbf_gram(X, gamma=1.0):
    sq = np.sum(X ** 2, axis=1)
    d = sq[:, None] + sq[None, :] - 2 * X @ X.T
    d = np.maximum(d, 0)
    return np.exp(-gamma * d)


def moving_average(x, w=3):
    c = np.cumsum(x)
    c[w:] = c[w:] - c[:-w]
    return c[w - 1:] / w


def _r(seed: int) -> np.random.Generator:
    return np.random.default_rng(1400 + seed)


def _uint8_image(seed: int) -> np.ndarray:
    return _r(seed).integers(0, 256, (24, 32)).astype(np.uint8)


NEW_PROGRAMS: list[tuple[str, Callable, Callable[[], tuple]]] = [
    ("softmax_temperature", softmax_temperature,
     lambda: (_r(1).standard_normal((32, 10)).astype(np.float32), 0.7)),
    ("log_softmax", log_softmax, lambda: (_r(2).standard_normal((16, 8)),)),
    ("layer_norm_var", layer_norm_var,
     lambda: (_r(3).standard_normal((8, 16)), np.ones(16), np.zeros(16))),
    ("logreg_train", logreg_train,
     lambda: (_r(4).standard_normal((50, 3)), (_r(5).random(50) > 0.5).astype(np.float64))),
    ("logreg_loss", logreg_loss,
     lambda: (_r(6).standard_normal(3), _r(7).standard_normal((40, 3)),
              (_r(8).random(40) > 0.5).astype(np.float64))),
    ("rnn_sequence", rnn_sequence,
     lambda: (_r(9).standard_normal((6, 3)), _r(10).standard_normal((5, 5)) * 0.3,
              _r(11).standard_normal((5, 3)) * 0.3, np.zeros(5))),
    ("lstm_cell", lstm_cell,
     lambda: (_r(12).standard_normal(3), np.zeros(4), np.zeros(4),
              _r(13).standard_normal((7, 16)) * 0.3, np.zeros(16))),
    ("newton_cubic", newton_cubic, lambda: (2.0,)),
    ("newton_sqrt_array", newton_sqrt_array, lambda: (_r(14).random(100) * 10 + 0.5,)),
    ("longest_collatz", longest_collatz, lambda: (30,)),
    ("mandelbrot_point", mandelbrot_point, lambda: (-0.5, 0.5)),
    ("mandelbrot_grid", mandelbrot_grid, lambda: (-2.0, 1.0, -1.0, 1.0, 24, 16)),
    ("kmeans", kmeans, lambda: (_r(15).standard_normal((60, 2)),
                                _r(16).standard_normal((3, 2)))),
    ("horner_array", horner_array,
     lambda: (np.array([1.0, -2.0, 0.5, 3.0]), _r(17).standard_normal(50))),
    ("horner_constants", horner_constants, lambda: (1.5,)),
    ("image_gradient", image_gradient, lambda: (_r(18).random((20, 30)),)),
    ("frame_change", frame_change, lambda: (_uint8_image(19), _uint8_image(20))),
    ("column_zscore", column_zscore, lambda: (_r(21).standard_normal((30, 4)),)),
    ("column_minmax", column_minmax, lambda: (_r(22).standard_normal((30, 4)),)),
    ("tax", tax, lambda: (_r(23).random(100) * 100,)),
    ("huber_loss", huber_loss, lambda: (_r(24).standard_normal(100) * 2,)),
    ("count_weights", count_weights,
     lambda: (_r(25).integers(0, 10, 20).astype(np.int32),
              _r(26).random(20).astype(np.float32))),
    ("normalize_inplace", normalize_inplace, lambda: (_r(27).standard_normal(40) * 3 + 1,)),
    ("clamp_inplace", clamp_inplace, lambda: (_r(28).standard_normal(40), -0.5, 0.5)),
    ("scale_shift", scale_shift, lambda: (_r(29).standard_normal(30),)),
    ("projectile", projectile, lambda: (20.0, 0.7, np.linspace(0.0, 2.0, 50))),
    ("ewma_span", ewma_span, lambda: (_r(30).standard_normal(200),)),
    ("rbf_gram", rbf_gram, lambda: (_r(31).standard_normal((20, 3)),)),
    ("moving_average", moving_average, lambda: (_r(32).standard_normal(40),)),
]
