"""Benchmark corpus A: everyday NumPy programs (signal, stats, images,
geometry, finance, physics, ML, numerics, data cleaning)."""
import math
import numpy as np


# ---------------------------------------------------------------- signal

def moving_average(x, w):
    kernel = np.ones(w) / w
    return np.convolve(x, kernel, mode="valid")


def moving_average_cumsum(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def gaussian_smooth(x, sigma):
    half = int(3 * sigma)
    t = np.arange(-half, half + 1)
    k = np.exp(-0.5 * (t / sigma) ** 2)
    k = k / k.sum()
    return np.convolve(x, k, mode="same")


def zero_crossings(x):
    s = np.sign(x)
    s[s == 0] = 1
    return np.count_nonzero(np.diff(s))


def zero_crossing_rate_frames(x, frame):
    n = len(x) // frame
    fr = x[: n * frame].reshape(n, frame)
    crossings = np.abs(np.diff(np.signbit(fr).astype(np.int8), axis=1)).sum(axis=1)
    return crossings / (frame - 1)


def rms_frames(x, frame):
    n = x.size // frame
    fr = x[: n * frame].reshape(n, frame)
    return np.sqrt(np.mean(fr ** 2, axis=1))


def iir_lowpass_loop(x, alpha):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1.0 - alpha) * acc
        y[i] = acc
    return y


def peak_detect(x, thresh):
    mid = x[1:-1]
    peaks = (mid > x[:-2]) & (mid > x[2:]) & (mid > thresh)
    idx = np.nonzero(peaks)[0] + 1
    return idx, x[idx]


def autocorr_lag(x, maxlag):
    x = x - x.mean()
    denom = np.dot(x, x)
    out = np.empty(maxlag + 1)
    for k in range(maxlag + 1):
        out[k] = np.dot(x[: len(x) - k], x[k:]) / denom
    return out


# ------------------------------------------------------------ statistics

def zscore(x):
    return (x - x.mean()) / x.std()


def zscore_columns(X):
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)


def weighted_mean_var(x, w):
    m = np.sum(w * x) / np.sum(w)
    v = np.sum(w * (x - m) ** 2) / np.sum(w)
    return m, v


def sorted_quantiles(x):
    s = np.sort(x)
    n = len(s)
    q = np.array([0.05, 0.25, 0.5, 0.75, 0.95])
    pos = q * (n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = pos - lo
    return s[lo] * (1 - frac) + s[hi] * frac


def mad_outliers(x, k):
    med = np.median(x)
    mad = np.median(np.abs(x - med)) * 1.4826
    mask = np.abs(x - med) > k * mad
    return mask.sum(), np.where(mask, med, x)


def correlation_matrix(X):
    C = np.cov(X, rowvar=False)
    d = np.sqrt(np.diag(C))
    return C / np.outer(d, d)


def histogram_entropy(x, bins):
    counts, edges = np.histogram(x, bins=bins)
    p = counts / counts.sum()
    p = p[p > 0]
    return -np.sum(p * np.log2(p))


def bincount_mode(labels):
    counts = np.bincount(labels)
    return int(np.argmax(counts)), counts


def digitize_group_means(x, y, edges):
    idx = np.digitize(x, edges)
    nb = len(edges) + 1
    sums = np.bincount(idx, weights=y, minlength=nb)
    cnt = np.bincount(idx, minlength=nb)
    means = np.where(cnt > 0, sums / np.maximum(cnt, 1), 0.0)
    return means, cnt


def running_mean_var_welford(x):
    n = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return mean, m2 / (n - 1)


# -------------------------------------------------------------- images

def image_gradients(img):
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, 1:-1] = (img[:, 2:] - img[:, :-2]) / 2.0
    gy[1:-1, :] = (img[2:, :] - img[:-2, :]) / 2.0
    mag = np.sqrt(gx ** 2 + gy ** 2)
    return mag, np.arctan2(gy, gx)


def box_blur3(img):
    p = np.pad(img, 1, mode="edge")
    out = (p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:]
           + p[1:-1, :-2] + p[1:-1, 1:-1] + p[1:-1, 2:]
           + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:])
    return out / 9.0


def threshold_otsu_like(img):
    flat = img.ravel()
    t = flat.mean()
    for _ in range(20):
        lo = flat[flat <= t]
        hi = flat[flat > t]
        t_new = 0.5 * (lo.mean() + hi.mean())
        if abs(t_new - t) < 1e-6:
            break
        t = t_new
    return t, (img > t).astype(np.uint8)


def laplacian_image(img):
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2]
                       + img[1:-1, 2:] - 4 * img[1:-1, 1:-1])
    return out


def rgb_to_gray(rgb):
    w = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    return (rgb.astype(np.float32) @ w)


def downsample2(img):
    h, w = img.shape
    return img[: h // 2 * 2, : w // 2 * 2].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def image_histogram_equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0][0]
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255).astype(np.uint8)
    return lut[img]


# ------------------------------------------------------------ geometry

def pairwise_distances(P):
    d = P[:, None, :] - P[None, :, :]
    return np.sqrt((d ** 2).sum(axis=-1))


def nearest_neighbor(P, Q):
    d2 = ((P[:, None, :] - Q[None, :, :]) ** 2).sum(axis=2)
    idx = np.argmin(d2, axis=1)
    return idx, np.sqrt(d2[np.arange(len(P)), idx])


def polygon_area(xy):
    x = xy[:, 0]
    y = xy[:, 1]
    return 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def rotate_points_2d(P, theta):
    c, s = math.cos(theta), math.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return P @ R.T


def rotate_3d_z_then_x(P, a, b):
    Rz = np.array([[np.cos(a), -np.sin(a), 0.0],
                   [np.sin(a), np.cos(a), 0.0],
                   [0.0, 0.0, 1.0]])
    Rx = np.array([[1.0, 0.0, 0.0],
                   [0.0, np.cos(b), -np.sin(b)],
                   [0.0, np.sin(b), np.cos(b)]])
    R = Rx @ Rz
    return (R @ P.T).T


def angles_between(U, V):
    cos = np.sum(U * V, axis=1) / (np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1))
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def points_in_circle_fraction(P, r):
    return np.mean(P[:, 0] ** 2 + P[:, 1] ** 2 <= r * r)


# ------------------------------------------------------------- finance

def simple_and_log_returns(prices):
    r = prices[1:] / prices[:-1] - 1.0
    lr = np.log(prices[1:] / prices[:-1])
    return r, lr


def ewma_loop(x, lam):
    out = np.empty(len(x))
    s = x[0]
    for i in range(len(x)):
        s = lam * s + (1 - lam) * x[i]
        out[i] = s
    return out


def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = prices / peak - 1.0
    return dd.min(), int(np.argmin(dd))


def sharpe_ratio(returns, rf):
    excess = returns - rf / 252
    return np.sqrt(252) * excess.mean() / excess.std(ddof=1)


def rolling_volatility(returns, w):
    c1 = np.cumsum(np.concatenate(([0.0], returns)))
    c2 = np.cumsum(np.concatenate(([0.0], returns ** 2)))
    s1 = c1[w:] - c1[:-w]
    s2 = c2[w:] - c2[:-w]
    var = (s2 - s1 * s1 / w) / (w - 1)
    return np.sqrt(np.maximum(var, 0.0))


def npv(cash, r):
    t = np.arange(len(cash))
    return np.sum(cash / (1.0 + r) ** t)


def npv_irr_bisect(cash, lo, hi):
    f_lo = npv(cash, lo)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        f_mid = npv(cash, mid)
        if f_lo * f_mid <= 0:
            hi = mid
        else:
            lo = mid
            f_lo = f_mid
        if hi - lo < 1e-10:
            break
    return 0.5 * (lo + hi)


# ------------------------------------------------------------- physics

def heat_equation_1d(u0, alpha, dx, dt, steps):
    u = u0.copy()
    r = alpha * dt / dx ** 2
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat_equation_2d(u0, r, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += r * lap
    return u


def spring_chain_verlet(x0, k, m, dt, steps):
    x = x0.copy()
    v = np.zeros_like(x)
    n = len(x)
    for _ in range(steps):
        f = np.zeros(n)
        f[1:-1] = k * (x[2:] - 2 * x[1:-1] + x[:-2])
        v += 0.5 * dt * f / m
        x += dt * v
        f[1:-1] = k * (x[2:] - 2 * x[1:-1] + x[:-2])
        v += 0.5 * dt * f / m
    return x, v


def projectile_euler(v0, angle_deg, drag, dt):
    g = 9.81
    th = math.radians(angle_deg)
    pos = np.array([0.0, 0.0])
    vel = np.array([v0 * math.cos(th), v0 * math.sin(th)])
    t = 0.0
    while pos[1] >= 0.0:
        speed = np.linalg.norm(vel)
        acc = -drag * speed * vel + np.array([0.0, -g])
        vel = vel + acc * dt
        pos = pos + vel * dt
        t += dt
    return pos[0], t


def nbody_step(pos, vel, mass, dt, steps):
    p = pos.copy()
    v = vel.copy()
    eps = 1e-3
    for _ in range(steps):
        d = p[None, :, :] - p[:, None, :]
        r2 = (d ** 2).sum(axis=-1) + eps
        inv = r2 ** -1.5
        np.fill_diagonal(inv, 0.0)
        a = (d * (inv * mass[None, :])[:, :, None]).sum(axis=1)
        v += a * dt
        p += v * dt
    return p, v


def oscillator_deriv(s, omega, zeta):
    return np.array([s[1], -2 * zeta * omega * s[1] - omega ** 2 * s[0]])


def damped_oscillator_rk4(x0, v0, omega, zeta, dt, steps):
    state = np.array([x0, v0])
    traj = np.empty((steps, 2))
    for i in range(steps):
        k1 = oscillator_deriv(state, omega, zeta)
        k2 = oscillator_deriv(state + 0.5 * dt * k1, omega, zeta)
        k3 = oscillator_deriv(state + 0.5 * dt * k2, omega, zeta)
        k4 = oscillator_deriv(state + dt * k3, omega, zeta)
        state = state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[i] = state
    return traj


# ------------------------------------------------------------------ ML

def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return np.mean(lse - logits[np.arange(len(labels)), labels])


def one_hot(labels, k):
    return (labels[:, None] == np.arange(k)[None, :]).astype(np.float32)


def linreg_gd(X, y, lr, iters):
    w = np.zeros(X.shape[1])
    b = 0.0
    n = X.shape[0]
    for _ in range(iters):
        pred = X @ w + b
        err = pred - y
        w -= lr * (X.T @ err) / n
        b -= lr * err.mean()
    return w, b


def logistic_regression_step(X, y, w, lr):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    grad = X.T @ (p - y) / len(y)
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    return w - lr * grad, loss


def kmeans_assign(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    labels = d.argmin(axis=1)
    newC = np.zeros_like(C)
    for k in range(C.shape[0]):
        mask = labels == k
        if mask.any():
            newC[k] = X[mask].mean(axis=0)
        else:
            newC[k] = C[k]
    return labels, newC


def kmeans_iterations(X, C0, iters):
    C = C0.copy()
    for _ in range(iters):
        d = np.linalg.norm(X[:, None, :] - C[None], axis=2)
        lab = np.argmin(d, axis=1)
        for k in range(len(C)):
            pts = X[lab == k]
            if len(pts) > 0:
                C[k] = pts.mean(axis=0)
    inertia = np.sum((X - C[lab]) ** 2)
    return C, inertia


def cosine_similarity_matrix(A, B):
    An = A / np.linalg.norm(A, axis=1, keepdims=True)
    Bn = B / np.linalg.norm(B, axis=1, keepdims=True)
    return An @ Bn.T


def sigmoid_f32(x):
    x = x.astype(np.float32)
    return np.float32(1) / (np.float32(1) + np.exp(-x))


# ---------------------------------------------------- numerical methods

def newton_sqrt(a, tol):
    x = a.copy()
    x[x == 0] = 1.0
    it = 0
    while True:
        x_new = 0.5 * (x + a / x)
        it += 1
        if np.max(np.abs(x_new - x)) < tol or it > 100:
            return x_new, it
        x = x_new


def bisection_cubic(a, b, c, d, lo, hi):
    flo = ((a * lo + b) * lo + c) * lo + d
    n = 0
    while hi - lo > 1e-12 and n < 200:
        mid = (lo + hi) / 2
        fm = ((a * mid + b) * mid + c) * mid + d
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
        n += 1
    return (lo + hi) / 2


def trapezoid_integrate(f_vals, x):
    dx = x[1:] - x[:-1]
    return np.sum(dx * (f_vals[1:] + f_vals[:-1]) / 2.0)


def simpson_integrate(a, b, n):
    x = np.linspace(a, b, n + 1)
    y = np.exp(-x ** 2) * np.cos(3 * x)
    h = (b - a) / n
    return h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())


def horner_loop(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def polyval_compare(coeffs, x):
    return np.polyval(coeffs, x)


def interp_resample(t, y, t_new):
    return np.interp(t_new, t, y)


def solve_tridiagonal_dense(n, diag, off):
    A = np.diag(np.full(n, diag)) + np.diag(np.full(n - 1, off), 1) + np.diag(np.full(n - 1, off), -1)
    b = np.sin(np.linspace(0, np.pi, n))
    x = np.linalg.solve(A, b)
    return x, np.linalg.norm(A @ x - b)


def lstsq_line_fit(x, y):
    A = np.vstack([x, np.ones_like(x)]).T
    coef, res, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    return coef, sv


def inverse_check(A):
    Ainv = np.linalg.inv(A)
    err = np.linalg.norm(A @ Ainv - np.eye(A.shape[0]))
    return Ainv, err, np.linalg.det(A)


def power_iteration(A, iters):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
    return lam, v


# --------------------------------------------------------- data cleaning

def fill_nan_with_mean(X):
    col_mean = np.nanmean(X, axis=0)
    r, c = np.where(np.isnan(X))
    out = X.copy()
    out[r, c] = col_mean[c]
    return out


def nan_to_num_clip(x, lo, hi):
    return np.clip(np.nan_to_num(x, nan=0.0, posinf=hi, neginf=lo), lo, hi)


def forward_fill(x):
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


def unique_counts_top(codes, k):
    vals, counts = np.unique(codes, return_counts=True)
    order = np.argsort(counts)[::-1][:k]
    return vals[order], counts[order]


def winsorize(x, p):
    lo, hi = np.percentile(x, [p, 100 - p])
    return np.clip(x, lo, hi)


def rank_data(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), dtype=np.int64)
    ranks[order] = np.arange(1, len(x) + 1)
    return ranks


def cumsum_reset_on_mask(x, reset):
    out = np.empty_like(x)
    acc = 0
    for i in range(len(x)):
        if reset[i]:
            acc = 0
        acc += x[i]
        out[i] = acc
    return out


def sentinel_replace(x, sentinel):
    y = x.astype(np.float64)
    y[x == sentinel] = np.nan
    return np.nanmean(y), np.nanstd(y), np.count_nonzero(np.isnan(y))


# --------------------------------------------------------------- data

def _make_args():
    rng = np.random.default_rng(20240601)
    t = np.linspace(0, 1, 2000)
    sig = np.sin(2 * np.pi * 50 * t) + 0.3 * rng.standard_normal(2000)
    rng2 = np.random.default_rng(7)
    big = rng2.standard_normal(1_000_000)
    big2 = rng2.standard_normal(200_000)
    prices = 100 * np.exp(np.cumsum(0.0004 + 0.012 * rng.standard_normal(1260)))
    big_prices = 50 * np.exp(np.cumsum(0.0002 + 0.01 * rng2.standard_normal(500_000)))
    img = rng.random((64, 64))
    big_img = rng2.random((512, 512))
    rgb = rng.integers(0, 256, size=(48, 64, 3), dtype=np.uint8)
    img_u8 = rng.integers(40, 200, size=(128, 128)).astype(np.uint8)
    nan_arr = rng.standard_normal((200, 6))
    nan_arr[rng.random((200, 6)) < 0.08] = np.nan
    ff = rng.standard_normal(500)
    ff[rng.random(500) < 0.2] = np.nan
    ff[0] = 0.5
    messy = rng.normal(10, 3, 1000)
    messy[[3, 50, 400]] = np.nan
    messy[[10, 700]] = np.inf
    messy[99] = -np.inf
    A_spd = rng.standard_normal((32, 32))
    A_spd = A_spd @ A_spd.T + 32 * np.eye(32)
    A_dd = rng.standard_normal((64, 64)) + 70 * np.eye(64)
    X_cls = rng.standard_normal((300, 5))
    w_true = np.array([1.5, -2.0, 0.5, 0.0, 1.0])
    y_reg = X_cls @ w_true + 0.3 + 0.1 * rng.standard_normal(300)
    y_bin = (X_cls @ w_true > 0).astype(np.float64)
    blobs = np.concatenate([rng.normal(c, 0.5, size=(200, 2)) for c in ([0, 0], [4, 4], [0, 5])])
    big_blobs = np.concatenate([rng2.normal(c, 0.7, size=(50_000, 2)) for c in ([0, 0], [3, 3], [-3, 2], [1, -4])])
    verts = rng.random((50, 3))
    faces = np.array([rng.choice(50, 3, replace=False) for _ in range(80)])
    angles = np.sort(rng.uniform(0, 2 * np.pi, 40))
    radii = 1 + 0.3 * rng.random(40)
    polygon = np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])
    xq = np.linspace(0, 2, 101)
    boot_idx = rng.integers(0, 400, size=(1000, 400))
    R = 0.0005 + 0.01 * rng.standard_normal((750, 4))

    progs = [
        # signal
        ("moving_average", moving_average, (sig, 25)),
        ("moving_average_cumsum_big", moving_average_cumsum, (big, 100)),
        ("gaussian_smooth", gaussian_smooth, (sig, 4.0)),
        ("zero_crossings", zero_crossings, (sig.copy(),)),
        ("zcr_frames_big", zero_crossing_rate_frames, (big, 1024)),
        ("rms_frames_f32", rms_frames, (sig.astype(np.float32), 64)),
        ("iir_lowpass_loop", iir_lowpass_loop, (sig[:800], 0.1)),
        ("peak_detect", peak_detect, (sig, 1.0)),
        ("autocorr_lag", autocorr_lag, (sig, 40)),
        # statistics
        ("zscore_big", zscore, (big,)),
        ("zscore_columns", zscore_columns, (X_cls,)),
        ("weighted_mean_var", weighted_mean_var, (rng.normal(5, 2, 1000), rng.random(1000))),
        ("sorted_quantiles", sorted_quantiles, (rng.exponential(2.0, 3001),)),
        ("mad_outliers", mad_outliers, (rng.standard_t(2, 4000), 3.5)),
        ("correlation_matrix", correlation_matrix, (R,)),
        ("histogram_entropy_big", histogram_entropy, (big2, 64)),
        ("bincount_mode", bincount_mode, (rng.integers(0, 20, 3000),)),
        ("digitize_group_means", digitize_group_means,
         (rng.uniform(0, 100, 5000), rng.normal(0, 1, 5000), np.array([10.0, 25.0, 50.0, 75.0, 90.0]))),
        ("welford_loop", running_mean_var_welford, (rng.normal(3, 1.5, 1500),)),
        # images
        ("image_gradients", image_gradients, (img,)),
        ("box_blur3_big", box_blur3, (big_img,)),
        ("threshold_iterative", threshold_otsu_like, (img,)),
        ("laplacian_image_f32", laplacian_image, (img.astype(np.float32),)),
        ("rgb_to_gray", rgb_to_gray, (rgb,)),
        ("downsample2", downsample2, (rng.random((63, 50)),)),
        ("hist_equalize", image_histogram_equalize, (img_u8,)),
        # geometry
        ("pairwise_distances", pairwise_distances, (rng.random((60, 3)),)),
        ("nearest_neighbor", nearest_neighbor, (rng.random((200, 2)), rng.random((50, 2)))),
        ("polygon_area", polygon_area, (polygon,)),
        ("rotate_points_2d", rotate_points_2d, (rng.standard_normal((1000, 2)), 0.6)),
        ("rotate_3d", rotate_3d_z_then_x, (rng.standard_normal((500, 3)), 0.3, -1.1)),
        ("angles_between", angles_between, (rng.standard_normal((400, 3)), rng.standard_normal((400, 3)))),
        ("circle_fraction_big", points_in_circle_fraction, (rng2.uniform(-1, 1, (400_000, 2)), 1.0)),
        # finance
        ("returns", simple_and_log_returns, (prices,)),
        ("ewma_loop", ewma_loop, (prices, 0.94)),
        ("max_drawdown_big", max_drawdown, (big_prices,)),
        ("sharpe_ratio", sharpe_ratio, (np.diff(np.log(prices)), 0.03)),
        ("rolling_volatility_big", rolling_volatility, (np.diff(np.log(big_prices)), 21)),
        ("irr_bisect", npv_irr_bisect, (np.array([-1000.0, 200, 250, 300, 350, 400]), 0.0, 1.0)),
        # physics
        ("heat_1d", heat_equation_1d, (np.sin(np.linspace(0, np.pi, 101)) ** 2, 1e-4, 0.01, 0.4, 500)),
        ("heat_2d", heat_equation_2d, (np.pad(np.ones((30, 30)), 1), 0.2, 100)),
        ("spring_chain", spring_chain_verlet, (np.linspace(0, 1, 50) + 0.01 * rng.standard_normal(50), 50.0, 0.1, 0.005, 400)),
        ("projectile", projectile_euler, (40.0, 35.0, 0.002, 0.001)),
        ("nbody", nbody_step, (rng.standard_normal((16, 3)), np.zeros((16, 3)), rng.uniform(0.5, 2, 16), 1e-3, 50)),
        ("damped_osc_rk4", damped_oscillator_rk4, (1.0, 0.0, 2 * np.pi, 0.05, 0.01, 500)),
        # ML
        ("softmax", softmax, (rng.standard_normal((128, 10)) * 3,)),
        ("log_softmax_f32", log_softmax, (rng.standard_normal((256, 32)).astype(np.float32),)),
        ("cross_entropy", cross_entropy, (rng.standard_normal((500, 10)), rng.integers(0, 10, 500))),
        ("one_hot", one_hot, (rng.integers(0, 7, 1000).astype(np.int32), 7)),
        ("linreg_gd", linreg_gd, (X_cls, y_reg, 0.1, 200)),
        ("logistic_step", logistic_regression_step, (X_cls, y_bin, np.zeros(5), 0.5)),
        ("kmeans_assign", kmeans_assign, (blobs, np.array([[1.0, 1.0], [3.0, 3.0], [-1.0, 4.0]]))),
        ("kmeans_iter_big", kmeans_iterations, (big_blobs, np.array([[0.5, 0.5], [2.0, 2.0], [-2.0, 1.0], [0.0, -3.0]]), 5)),
        ("cosine_sim", cosine_similarity_matrix, (rng.standard_normal((64, 16)), rng.standard_normal((40, 16)))),
        ("sigmoid_f32_big", sigmoid_f32, (big * 4,)),
        # numerics
        ("newton_sqrt", newton_sqrt, (rng.uniform(0.1, 100, 1000), 1e-12)),
        ("bisection_cubic", bisection_cubic, (1.0, -2.0, -5.0, 6.0, 2.0, 4.0)),
        ("trapezoid", trapezoid_integrate, (np.sin(xq) ** 2, xq)),
        ("simpson", simpson_integrate, (0.0, 3.0, 200)),
        ("horner_loop", horner_loop, ([2.0, -3.0, 0.5, 1.0, -4.0], np.linspace(-2, 2, 500))),
        ("polyval", polyval_compare, (np.array([1.0, 0.0, -2.5, 0.7]), np.linspace(-3, 3, 800))),
        ("interp_resample", interp_resample, (np.sort(rng.uniform(0, 10, 200)), rng.standard_normal(200), np.linspace(0, 10, 1000))),
        ("solve_tridiag", solve_tridiagonal_dense, (48, 2.0, -1.0)),
        ("lstsq_line", lstsq_line_fit, (np.linspace(0, 10, 300), 2.5 * np.linspace(0, 10, 300) - 1 + rng.standard_normal(300))),
        ("inverse_check", inverse_check, (A_spd,)),
        ("power_iteration", power_iteration, (A_spd, 100)),
        # data cleaning
        ("fill_nan_mean", fill_nan_with_mean, (nan_arr,)),
        ("nan_to_num_clip", nan_to_num_clip, (messy, 0.0, 20.0)),
        ("forward_fill", forward_fill, (ff,)),
        ("unique_counts_top", unique_counts_top, (rng.integers(0, 50, 5000, dtype=np.int64), 5)),
        ("winsorize_big", winsorize, (rng2.standard_t(3, 300_000), 1.0)),
        ("rank_data", rank_data, (rng.standard_normal(1000),)),
        ("cumsum_reset", cumsum_reset_on_mask, (rng.integers(0, 10, 600, dtype=np.int64), rng.random(600) < 0.1)),
        ("sentinel_replace", sentinel_replace, (np.where(rng.random(800) < 0.1, -999, rng.integers(0, 100, 800)).astype(np.int32), -999)),
    ]
    return progs


progs = _make_args()


def _summ(v):
    if isinstance(v, tuple):
        return "(" + ", ".join(_summ(e) for e in v) + ")"
    if isinstance(v, np.ndarray):
        if v.size == 0:
            return "array%s %s" % (v.shape, v.dtype)
        return "array%s %s sum=%.6g" % (v.shape, v.dtype, float(np.sum(v.astype(np.float64))))
    return "%s=%.6g" % (type(v).__name__, float(v))


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("error")
    names = set()
    for name, fn, args in progs:
        assert name not in names, name
        names.add(name)
        res = fn(*args)
        assert res is not None
        print("%-26s %s" % (name, _summ(res)))
    print("count:", len(progs))
