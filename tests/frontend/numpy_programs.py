"""Everyday NumPy programs, written as a new user writes them (issue 14's "stranger" set).

Each entry is ``(name, function, make_arguments)``. The functions are plain NumPy; the tests
(``test_numpy_programs.py``) decorate them with ``fusejit.jit`` and compare with NumPy on value,
dtype and shape, and ``benchmarks/programs.py`` times them. Nothing here is tuned to fusejit:
the spelling is the one NumPy's documentation and tutorials use.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest


def assert_same(got, want, rtol: float = 1e-5) -> None:
    """``got`` (fusejit's results) equals ``want`` (NumPy's): arrays and NumPy scalars in
    dtype, shape and value; Python numbers in type and value."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, (np.ndarray, np.generic)):
            g, w = np.asarray(g), np.asarray(w)
            assert (g.dtype, g.shape) == (w.dtype, w.shape), (g.dtype, g.shape, w.dtype, w.shape)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
        else:
            assert type(g) is type(w) and g == pytest.approx(w)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def logistic_step(w, X, y, lr=0.1):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    grad = X.T @ (p - y) / X.shape[0]
    return w - lr * grad


def rnn(xs, h, w_x, w_h):
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w_x + h @ w_h)
    return h


def newton_sqrt(a, x0=1.0, eps=1e-5):
    x = x0
    while abs(x * x - a) > eps:
        x = 0.5 * (x + a / x)
    return x


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def mandelbrot(c_re, c_im, max_iter=20):
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_im)
    count = np.zeros(c_re.shape, dtype=np.int64)
    for _ in range(max_iter):
        inside = z_re * z_re + z_im * z_im <= 4.0
        z_re, z_im = (np.where(inside, z_re * z_re - z_im * z_im + c_re, z_re),
                      np.where(inside, 2.0 * z_re * z_im + c_im, z_im))
        count += inside
    return count


def kmeans_step(points, centers):
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return d.argmin(axis=1)


def horner(x, c0, c1, c2, c3):
    return ((c3 * x + c2) * x + c1) * x + c0


def image_diff(img):
    dx = img[:, 1:] - img[:, :-1]
    dy = img[1:, :] - img[:-1, :]
    return np.abs(dx).sum() + np.abs(dy).sum()


def column_stats(a):
    return a.mean(axis=0), a.std(axis=0), a.min(axis=0), a.max(axis=0)


def piecewise(x):
    return np.where(x < 0, -x, np.where(x < 1, x * x, 2 * x - 1))


def dtype_mixing(i32, f32, i64):
    return i32 / 2, f32 + i64, np.sqrt(i32), f32 * 0.5, i64 // 3


def inplace_update(a, b):
    a += b
    a *= 2.0
    return a


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def rbf_kernel(X, Y, gamma=0.5):
    sq = (X ** 2).sum(axis=1)[:, None] + (Y ** 2).sum(axis=1)[None, :] - 2.0 * X @ Y.T
    return np.exp(-gamma * sq)


def _rng() -> np.random.Generator:
    return np.random.default_rng(14)


def _f64(*shape: int) -> np.ndarray:
    return _rng().standard_normal(shape)


def _f32(*shape: int) -> np.ndarray:
    return _rng().standard_normal(shape).astype(np.float32)


PROGRAMS: list[tuple[str, Callable, Callable[[], tuple]]] = [
    ("softmax", softmax, lambda: (_f32(64, 128),)),
    ("layer_norm", layer_norm, lambda: (_f32(64, 128), _f32(128), _f32(128))),
    ("logistic_step", logistic_step,
     lambda: (_f64(8), _f64(256, 8), (_rng().random(256) > 0.5).astype(np.float64))),
    ("rnn", rnn, lambda: (_f32(16, 4, 8), _f32(4, 32), _f32(8, 32) * 0.3, _f32(32, 32) * 0.3)),
    ("newton_sqrt", newton_sqrt, lambda: (2.0,)),
    ("collatz", collatz, lambda: (27,)),
    ("mandelbrot", mandelbrot,
     lambda: tuple(np.meshgrid(np.linspace(-2.0, 0.5, 64), np.linspace(-1.2, 1.2, 48)))),
    ("kmeans_step", kmeans_step, lambda: (_f64(200, 2), _f64(5, 2))),
    ("horner", horner, lambda: (_f64(1000), 1.0, -2.0, 0.5, 3)),
    ("image_diff", image_diff, lambda: (_f32(48, 64),)),
    ("column_stats", column_stats, lambda: (_f64(100, 6),)),
    ("piecewise", piecewise, lambda: (_f64(1000) * 2,)),
    ("dtype_mixing", dtype_mixing,
     lambda: (np.arange(1, 13, dtype=np.int32), _f32(12), np.arange(12, dtype=np.int64))),
    ("inplace_update", inplace_update, lambda: (_f64(100), _f64(100))),
    ("ewma", ewma, lambda: (_f64(500), 0.3)),
    ("rbf_kernel", rbf_kernel, lambda: (_f64(40, 3), _f64(30, 3))),
]


# -- a second batch: Python structure (helpers, lists, loops over rows, keywords) ------------

SCALE = 2.0


def relu(x):
    return np.maximum(x, 0)


def mlp(x, w1, b1, w2, b2):
    return relu(x @ w1 + b1) @ w2 + b2


def lstm(xs, h, c, w, u, b):
    hs = []
    for x in xs:
        gates = x @ w + h @ u + b
        i, f, g, o = np.split(gates, 4, axis=-1)
        i, f, o = 1 / (1 + np.exp(-i)), 1 / (1 + np.exp(-f)), 1 / (1 + np.exp(-o))
        c = f * c + i * np.tanh(g)
        h = o * np.tanh(c)
        hs.append(h)
    return np.stack(hs), c


def row_norms(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.sqrt((a[i] ** 2).sum())
    return out


def first_above(x, threshold):
    found = -1
    for i in range(x.shape[0]):
        if x[i] > threshold:
            found = i
            break
    return found


def count_odd_skip(n):
    total = 0
    for k in range(n):
        if k % 3 == 0:
            continue
        total += k
    return total


def scaled_sum(x, *, scale=1.0, offset=0.0):
    return (x * scale + offset).sum() * SCALE


def normalize(x, mean=None, std=None):
    if mean is None:
        mean = x.mean(axis=0)
    if std is None:
        std = x.std(axis=0)
    return (x - mean) / (std + 1e-8)


def pairwise_dist(x):
    diff = x[:, np.newaxis, :] - x[np.newaxis, :, :]
    return np.sqrt((diff ** 2).sum(axis=-1))


def clip_grad(g, max_norm=1.0):
    norm = np.sqrt(np.sum(g * g))
    if norm > max_norm:
        g = g * (max_norm / norm)
    return g


def running_max(x):
    best = x[0]
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        best = max(best, x[i])
        out[i] = best
    return out


def concat_features(a, b):
    parts = [a, b, a * b]
    return np.concatenate(parts, axis=1)


def sigmoid_mean(x):
    s = 1.0 / (1.0 + np.exp(-x))
    return s.mean(), s.var(), np.argmax(s), s.cumsum()[-1]


def grid_sum(n, m):
    total = 0.0
    for i in range(n):
        for j in range(m):
            total += (i * m + j) * 0.5
    return total


def euler(y0, dt, steps):
    y = y0
    t = 0.0
    for _ in range(steps):
        y = y + dt * (-2.0 * y + np.sin(t))
        t += dt
    return y


def softmax_rows_eye(n):
    a = np.eye(n) + np.arange(n * n).reshape(n, n) / (n * n)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def histogram_counts(x, lo, hi):
    counts = np.zeros(4, dtype=np.int64)
    width = (hi - lo) / 4
    for k in range(4):
        inside = (x >= lo + k * width) & (x < lo + (k + 1) * width)
        counts[k] = inside.sum()
    return counts


PROGRAMS += [
    ("mlp", mlp, lambda: (_f32(16, 8), _f32(8, 32), _f32(32), _f32(32, 4), _f32(4))),
    ("lstm", lstm, lambda: (_f32(5, 2, 3), _f32(2, 4), _f32(2, 4), _f32(3, 16), _f32(4, 16),
                            _f32(16))),
    ("row_norms", row_norms, lambda: (_f64(20, 5),)),
    ("first_above", first_above, lambda: (_f64(50), 1.5)),
    ("count_odd_skip", count_odd_skip, lambda: (100,)),
    ("scaled_sum", scaled_sum, lambda: (_f64(30),)),
    ("normalize", normalize, lambda: (_f64(40, 3),)),
    ("pairwise_dist", pairwise_dist, lambda: (_f64(10, 3),)),
    ("clip_grad", clip_grad, lambda: (_f64(50),)),
    ("running_max", running_max, lambda: (_f64(30),)),
    ("concat_features", concat_features, lambda: (_f32(6, 3), _f32(6, 3))),
    ("sigmoid_mean", sigmoid_mean, lambda: (_f32(50),)),
    ("grid_sum", grid_sum, lambda: (30, 20)),
    ("euler", euler, lambda: (1.0, 0.01, 200)),
    ("softmax_rows_eye", softmax_rows_eye, lambda: (5,)),
    ("histogram_counts", histogram_counts, lambda: (_f64(200), -2.0, 2.0)),
]


# -- a third batch: other common spellings ---------------------------------------------------

EPS = 1e-9

def shape_unpack(x):
    n, m = x.shape
    return x.sum() / (n * m)

def norm_rows(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)

def logsumexp(x):
    m = x.max()
    return m + np.log(np.sum(np.exp(x - m)))

def positional_axis(x):
    return x.mean(0), x.sum(1), x.max(0), np.argmax(x, 1)

def gaussian(x, mu, sigma):
    return np.exp(-(x - mu) ** 2 / (2 * sigma ** 2)) / (sigma * np.sqrt(2 * np.pi))

def stack_ops(a, b):
    return np.hstack([a, b]), np.vstack((a, b)), np.concatenate((a, b))

def relu_scalar_first(x):
    return np.maximum(0, x), np.clip(x, 0, None), x.clip(min=0)

def copy_and_modify(x):
    y = x.copy()
    y[0] = 0
    return y, np.copy(x)

def reshape_col(x):
    return x.reshape(-1, 1) * x.reshape(1, -1)

def loop_len(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s

def isnan_fix(x):
    return np.where(np.isnan(x), 0.0, x)

def outer(a, b):
    return np.outer(a, b)

def mse(pred, target):
    return ((pred - target) ** 2).mean()

def cross_entropy(logits, labels_onehot):
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -(labels_onehot * logp).sum(axis=1).mean()

def power_iter(A, v, iters=10):
    for _ in range(iters):
        v = A @ v
        v = v / np.sqrt(np.sum(v * v))
    return v

def float_of_sum(x):
    total = float(x.sum())
    return total * 2

def cumulative(x):
    c = np.cumsum(x)
    return c / np.arange(1, x.shape[0] + 1)

def sgd_loop(w, X, y, steps=5, lr=0.01):
    for _ in range(steps):
        grad = 2 * X.T @ (X @ w - y) / X.shape[0]
        w -= lr * grad
    return w

def tri_count(n):
    c = 0
    for i in range(n):
        for j in range(i):
            if (i + j) % 3 == 0:
                c += 1
    return c

def abs_max(x):
    return np.abs(x).max(), np.abs(x).argmax()

def two_returns(x, flag):
    if flag:
        return x * 2
    return x - 1

def gd_quadratic(x0, lr, n):
    x = x0
    for _ in range(n):
        x = x - lr * 2 * (x - 3.0)
    return x

def dist_matrix(a, b):
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))

def mean_center(x):
    return x - x.mean(axis=0, keepdims=True)

def standardize(x):
    return (x - np.mean(x)) / np.std(x)


def _r(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


PROGRAMS += [
    ("shape_unpack", shape_unpack, lambda: (_r(2).standard_normal((4, 5)),)),
    ("norm_rows", norm_rows, lambda: (_r(3).standard_normal((4, 5)),)),
    ("logsumexp", logsumexp, lambda: (_r(4).standard_normal(50),)),
    ("positional_axis", positional_axis, lambda: (_r(5).standard_normal((4, 5)),)),
    ("gaussian", gaussian, lambda: (_r(6).standard_normal(50), 0.5, 1.5)),
    ("stack_ops", stack_ops,
     lambda: (_r(7).standard_normal((2, 3)), _r(8).standard_normal((2, 3)))),
    ("relu_scalar_first", relu_scalar_first, lambda: (_r(9).standard_normal(20),)),
    ("copy_and_modify", copy_and_modify, lambda: (_r(10).standard_normal(5),)),
    ("reshape_col", reshape_col, lambda: (_r(11).standard_normal(5),)),
    ("loop_len", loop_len, lambda: (_r(12).standard_normal(30),)),
    ("isnan_fix", isnan_fix, lambda: (np.array([1.0, np.nan, 2.0]),)),
    ("outer", outer, lambda: (_r(13).standard_normal(3), _r(14).standard_normal(4))),
    ("mse", mse, lambda: (_r(15).standard_normal(30), _r(16).standard_normal(30))),
    ("cross_entropy", cross_entropy,
     lambda: (_r(17).standard_normal((8, 4)), np.eye(4)[_r(18).integers(0, 4, 8)])),
    ("power_iter", power_iter,
     lambda: (_r(99).standard_normal((20, 20)), _r(19).standard_normal(20))),
    ("float_of_sum", float_of_sum, lambda: (_r(20).standard_normal(30),)),
    ("cumulative", cumulative, lambda: (_r(21).standard_normal(30),)),
    ("sgd_loop", sgd_loop,
     lambda: (_r(22).standard_normal(3), _r(23).standard_normal((50, 3)),
              _r(24).standard_normal(50))),
    ("tri_count", tri_count, lambda: (60,)),
    ("abs_max", abs_max, lambda: (_r(25).standard_normal(30),)),
    ("two_returns", two_returns, lambda: (_r(26).standard_normal(3), True)),
    ("gd_quadratic", gd_quadratic, lambda: (0.0, 0.1, 50)),
    ("dist_matrix", dist_matrix,
     lambda: (_r(27).standard_normal((5, 2)), _r(28).standard_normal((6, 2)))),
    ("mean_center", mean_center, lambda: (_r(29).standard_normal((5, 3)).astype(np.float32),)),
    ("standardize", standardize, lambda: (_r(30).standard_normal(40).astype(np.float32),)),
]


# -- a third batch, written before looking at what fusejit prefers (numpy_programs_new.py) ----

from .numpy_programs_new import NEW_PROGRAMS  # noqa: E402

PROGRAMS += NEW_PROGRAMS
