import math
import numpy as np


# ---------------------------------------------------------------- sensor data
def calibrate_poly(raw, coeffs):
    return np.polyval(coeffs, raw)


def fahrenheit_to_kelvin(temps_f):
    return (temps_f - 32.0) * 5.0 / 9.0 + 273.15


def reject_mad(x, k):
    med = np.median(x)
    mad = np.median(np.abs(x - med))
    keep = np.abs(x - med) <= k * 1.4826 * mad
    return x[keep], int(np.count_nonzero(~keep))


def resample_interp(t, v, n_out):
    t_new = np.linspace(t[0], t[-1], n_out)
    return t_new, np.interp(t_new, t, v)


def debounce(signal, min_run):
    out = signal.copy()
    state = out[0]
    count = 0
    for i in range(1, len(signal)):
        if signal[i] != state:
            count += 1
            if count >= min_run:
                state = signal[i]
                count = 0
        else:
            count = 0
        out[i] = state
    return out


def adc_to_volts(counts, vref, bits):
    return counts.astype(np.float64) * vref / (2 ** bits - 1)


def moving_average_valid(x, w):
    c = np.cumsum(np.concatenate(([0.0], x)))
    return (c[w:] - c[:-w]) / w


def sensor_drift_correct(t, y):
    A = np.vstack([t, np.ones_like(t)]).T
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return y - A @ coef, coef


def hampel_filter(x, half, nsig):
    y = x.copy()
    n = len(x)
    flagged = 0
    for i in range(half, n - half):
        win = x[i - half:i + half + 1]
        med = np.median(win)
        s = 1.4826 * np.median(np.abs(win - med))
        if abs(x[i] - med) > nsig * s:
            y[i] = med
            flagged += 1
    return y, flagged


# ---------------------------------------------------------------- grids / games
def life_step(board):
    b = board.astype(np.int32)
    n = sum(np.roll(np.roll(b, dy, 0), dx, 1)
            for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((b == 1) & (n == 2))).astype(np.uint8)


def life_run(board, steps):
    b = board.copy()
    for _ in range(steps):
        b = life_step(b)
    return b, int(b.sum())


def diffuse(grid, alpha, steps):
    g = grid.copy()
    for _ in range(steps):
        lap = np.zeros_like(g)
        lap[1:-1, 1:-1] = (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2]
                           + g[1:-1, 2:] - 4.0 * g[1:-1, 1:-1])
        g += alpha * lap
    return g


def count_neighbours_padded(mask):
    p = np.pad(mask.astype(np.int64), 1)
    h, w = mask.shape
    total = np.zeros((h, w), dtype=np.int64)
    for dy in range(3):
        for dx in range(3):
            if dy == 1 and dx == 1:
                continue
            total += p[dy:dy + h, dx:dx + w]
    return total


def rule30(cells, steps):
    rows = [cells]
    c = cells
    for _ in range(steps):
        left = np.roll(c, 1)
        right = np.roll(c, -1)
        c = left ^ (c | right)
        rows.append(c)
    return np.array(rows)


def minesweeper_numbers(mines):
    m = mines.astype(np.int32)
    counts = count_neighbours_padded(m).astype(np.int32)
    counts[mines] = -1
    return counts


def sandpile_topple(grid, max_iter):
    g = grid.copy()
    it = 0
    while it < max_iter and (g >= 4).any():
        tip = g >= 4
        g[tip] -= 4
        t = tip.astype(g.dtype)
        g[1:, :] += t[:-1, :]
        g[:-1, :] += t[1:, :]
        g[:, 1:] += t[:, :-1]
        g[:, :-1] += t[:, 1:]
        it += 1
    return g, it


# ---------------------------------------------------------------- audio
def apply_gain_db(x, db):
    return x * 10.0 ** (db / 20.0)


def frame_rms(x, frame):
    n = len(x) // frame
    frames = x[:n * frame].reshape(n, frame)
    return np.sqrt(np.mean(frames ** 2, axis=1))


def clip_detect(x, thresh):
    clipped = np.abs(x) >= thresh
    return clipped.sum(), np.flatnonzero(clipped)[:10]


def compressor(x, thresh, ratio):
    mag = np.abs(x)
    over = mag > thresh
    out = np.where(over, np.sign(x) * (thresh + (mag - thresh) / ratio), x)
    return out.astype(x.dtype)


def mix_channels(left, right, pan):
    gl = math.cos(pan * math.pi / 2)
    gr = math.sin(pan * math.pi / 2)
    mono = gl * left + gr * right
    peak = np.max(np.abs(mono))
    if peak > 1.0:
        mono = mono / peak
    return mono


def peak_dbfs(x):
    p = float(np.max(np.abs(x)))
    return 20.0 * math.log10(p) if p > 0 else -np.inf


def zero_crossing_rate(x, frame):
    n = len(x) // frame
    f = x[:n * frame].reshape(n, frame)
    s = np.signbit(f)
    return np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1) / (frame - 1)


def fade_in_out(x, n_fade):
    y = x.copy()
    ramp = np.linspace(0.0, 1.0, n_fade, dtype=x.dtype)
    y[:n_fade] *= ramp
    y[-n_fade:] *= ramp[::-1]
    return y


def int16_to_float(pcm):
    return pcm.astype(np.float32) / np.float32(32768.0)


# ---------------------------------------------------------------- tabular
def group_means(keys, vals):
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv, weights=vals)
    counts = np.bincount(inv)
    return uniq, sums / counts


def group_max(keys, vals, n_groups):
    out = np.full(n_groups, -np.inf)
    np.maximum.at(out, keys, vals)
    return out


def rank_transform(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(x))
    return ranks


def pct_change(prices):
    return np.diff(prices) / prices[:-1] * 100.0


def running_drawdown(equity):
    peak = np.maximum.accumulate(equity)
    dd = (equity - peak) / peak
    return dd, float(dd.min())


def top_k(x, k):
    idx = np.argpartition(x, -k)[-k:]
    idx = idx[np.argsort(x[idx])[::-1]]
    return idx, x[idx]


def pivot_sales(store, month, amount, n_store, n_month):
    table = np.zeros((n_store, n_month))
    np.add.at(table, (store, month), amount)
    return table, table.sum(axis=1), table.sum(axis=0)


def zscore_columns(table):
    mu = table.mean(axis=0, keepdims=True)
    sd = table.std(axis=0, ddof=1, keepdims=True)
    return (table - mu) / sd


def running_min_reset(x):
    return np.minimum.accumulate(x), np.argmin(x)


def quantile_bins(x, nbins):
    edges = np.quantile(x, np.linspace(0, 1, nbins + 1))
    b = np.searchsorted(edges[1:-1], x, side="right")
    return b, np.bincount(b, minlength=nbins)


def weighted_group_std(keys, vals, w):
    n = keys.max() + 1
    sw = np.bincount(keys, weights=w, minlength=n)
    m = np.bincount(keys, weights=w * vals, minlength=n) / sw
    var = np.bincount(keys, weights=w * (vals - m[keys]) ** 2, minlength=n) / sw
    return np.sqrt(var)


# ---------------------------------------------------------------- colour / image
def to_gray(img):
    return img @ np.array([0.299, 0.587, 0.114])


def to_gray_uint8(img):
    g = np.dot(img.astype(np.float32), np.array([0.2126, 0.7152, 0.0722], dtype=np.float32))
    return np.clip(np.round(g), 0, 255).astype(np.uint8)


def gamma_correct(img, gamma):
    f = img.astype(np.float64) / 255.0
    return (255.0 * f ** (1.0 / gamma)).astype(np.uint8)


def hist_equalise(gray):
    hist = np.bincount(gray.ravel(), minlength=256)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0][0]
    lut = np.round((cdf - cdf_min) / (cdf[-1] - cdf_min) * 255).astype(np.uint8)
    return lut[gray]


def alpha_blend(fg, bg, alpha):
    a = alpha[..., None]
    return fg * a + bg * (1.0 - a)


def channel_stats(img):
    flat = img.reshape(-1, 3).astype(np.float64)
    return flat.mean(axis=0), flat.std(axis=0), flat.min(axis=0), flat.max(axis=0)


def invert_and_threshold(img, t):
    g = 255 - img.mean(axis=2)
    return (g > t).astype(np.uint8) * 255


def box_blur3(img):
    p = np.pad(img, ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = img.shape[:2]
    acc = np.zeros(img.shape, dtype=np.float64)
    for dy in range(3):
        for dx in range(3):
            acc += p[dy:dy + h, dx:dx + w]
    return acc / 9.0


def rgb_to_hsv_value_sat(img):
    mx = img.max(axis=2)
    mn = img.min(axis=2)
    sat = np.where(mx > 0, (mx - mn) / np.where(mx > 0, mx, 1.0), 0.0)
    return mx, sat


# ---------------------------------------------------------------- kinematics
def rot_z_batch(angles):
    c, s = np.cos(angles), np.sin(angles)
    z, o = np.zeros_like(angles), np.ones_like(angles)
    return np.stack([np.stack([c, -s, z], -1),
                     np.stack([s, c, z], -1),
                     np.stack([z, z, o], -1)], -2)


def homogeneous(R, t):
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = t
    return T


def transform_points(theta, tx, ty, pts):
    c, s = math.cos(theta), math.sin(theta)
    T = np.array([[c, -s, tx], [s, c, ty], [0.0, 0.0, 1.0]])
    ph = np.hstack([pts, np.ones((pts.shape[0], 1))])
    return (ph @ T.T)[:, :2]


def planar_fk(thetas, lengths):
    x = y = 0.0
    phi = 0.0
    joints = np.zeros((len(thetas) + 1, 2))
    for i in range(len(thetas)):
        phi += thetas[i]
        x += lengths[i] * math.cos(phi)
        y += lengths[i] * math.sin(phi)
        joints[i + 1] = (x, y)
    return joints


def dh_chain(params):
    T = np.eye(4)
    for a, alpha, d, theta in params:
        ct, st = np.cos(theta), np.sin(theta)
        ca, sa = np.cos(alpha), np.sin(alpha)
        A = np.array([[ct, -st * ca, st * sa, a * ct],
                      [st, ct * ca, -ct * sa, a * st],
                      [0.0, sa, ca, d],
                      [0.0, 0.0, 0.0, 1.0]])
        T = T @ A
    return T


def quat_mul(q, r):
    w1, x1, y1, z1 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    w2, x2, y2, z2 = r[..., 0], r[..., 1], r[..., 2], r[..., 3]
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def quat_normalise(q):
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_rotmat(q):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def integrate_unicycle(v, omega, dt):
    theta = np.cumsum(omega) * dt
    x = np.cumsum(v * np.cos(theta)) * dt
    y = np.cumsum(v * np.sin(theta)) * dt
    return x, y, theta


# ---------------------------------------------------------------- optimisation
def gd_quadratic(A, b, lr, iters):
    x = np.zeros_like(b)
    for _ in range(iters):
        g = A @ x - b
        x -= lr * g
    return x, float(np.linalg.norm(A @ x - b))


def rosenbrock_gd(x0, lr, iters):
    x = x0.copy()
    for _ in range(iters):
        g = np.zeros_like(x)
        g[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1 - x[:-1])
        g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
        x = x - lr * g
    f = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    return x, f


def backtracking_gd(A, b, iters):
    x = np.zeros(A.shape[1])
    f = 0.0
    for _ in range(iters):
        r = A @ x - b
        f = 0.5 * r @ r
        g = A.T @ r
        t = 1.0
        while True:
            xn = x - t * g
            rn = A @ xn - b
            if 0.5 * rn @ rn <= f - 0.5 * t * (g @ g) or t < 1e-10:
                break
            t *= 0.5
        x = xn
    return x, f


def projected_gd_box(Q, c, lo, hi, lr, iters):
    x = np.zeros_like(c)
    for _ in range(iters):
        x = np.clip(x - lr * (Q @ x + c), lo, hi)
    return x, 0.5 * x @ Q @ x + c @ x


def newton_1d(a, b, c, x0, tol):
    x = x0
    it = 0
    while it < 100:
        f = a * x ** 3 + b * x + c
        fp = 3 * a * x ** 2 + b
        step = f / fp
        x -= step
        it += 1
        if abs(step) < tol:
            break
    return x, it


def momentum_descent(A, b, lr, beta, iters):
    x = np.zeros(A.shape[1])
    v = np.zeros_like(x)
    hist = np.empty(iters)
    for k in range(iters):
        g = A.T @ (A @ x - b)
        v = beta * v + g
        x = x - lr * v
        hist[k] = np.linalg.norm(A @ x - b)
    return x, hist


# ---------------------------------------------------------------- probability
def normal_pdf(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def normal_cdf_loop(xs, mu, sigma):
    out = np.empty(len(xs))
    for i, x in enumerate(xs):
        out[i] = 0.5 * (1.0 + math.erf((x - mu) / (sigma * math.sqrt(2.0))))
    return out


def gaussian_loglik(x, mu, sigma):
    n = x.size
    return -0.5 * n * math.log(2 * math.pi * sigma ** 2) - np.sum((x - mu) ** 2) / (2 * sigma ** 2)


def softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def logsumexp_rows(z):
    m = z.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True))).ravel()


def log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    s = z - m
    return s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))


def mc_pi(u):
    inside = (u[:, 0] ** 2 + u[:, 1] ** 2) <= 1.0
    est = 4.0 * inside.mean()
    se = 4.0 * inside.std() / math.sqrt(len(inside))
    return est, se


def mc_option_price(z, s0, k, r, sigma, t):
    st = s0 * np.exp((r - 0.5 * sigma ** 2) * t + sigma * math.sqrt(t) * z)
    payoff = np.maximum(st - k, 0.0)
    return math.exp(-r * t) * payoff.mean()


def bernoulli_nll(p, y):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def empirical_cdf(x, grid):
    xs = np.sort(x)
    return np.searchsorted(xs, grid, side="right") / len(xs)


# ---------------------------------------------------------------- linear algebra
def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v -= (Q[:, i] @ A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return Q


def power_iteration(A, iters):
    v = np.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
    return lam, v


def projection_matrix(A):
    P = A @ np.linalg.inv(A.T @ A) @ A.T
    return P, np.trace(P), np.allclose(P @ P, P)


def row_norms(X):
    return np.linalg.norm(X, axis=1), np.linalg.norm(X, ord=1, axis=1), np.linalg.norm(X, ord=np.inf, axis=1)


def outer_rank1_update(M, u, v, alpha):
    N = M.copy()
    N += alpha * np.outer(u, v)
    return N


def einsum_batch_bilinear(x, W, y):
    return np.einsum("bi,ij,bj->b", x, W, y)


def kron_laplacian(n):
    d = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    I = np.eye(n)
    L = np.kron(d, I) + np.kron(I, d)
    return L, np.trace(L)


def cosine_similarity_matrix(X):
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    return Xn @ Xn.T


def pairwise_dist(X):
    sq = np.einsum("ij,ij->i", X, X)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    return np.sqrt(np.maximum(d2, 0.0))


# ---------------------------------------------------------------- numeric tricks
def close_checks(a, b):
    return np.isclose(a, b, rtol=1e-5, atol=1e-8), bool(np.allclose(a, b))


def second_difference(x):
    return np.diff(x, n=2)


def gradient_nonuniform(t, y):
    return np.gradient(y, t)


def compound_growth(rates):
    return np.cumprod(1.0 + rates) - 1.0


def round_money(x):
    return np.round(x, 2), np.round(x, -1)


def seconds_to_hms(s):
    h = s // 3600
    m = (s % 3600) // 60
    sec = s % 60
    return np.stack([h, m, sec], axis=1)


def popcount8(x):
    c = np.zeros_like(x)
    y = x.copy()
    for _ in range(8):
        c += y & 1
        y >>= 1
    return c


def bit_flags(flags):
    a = (flags & 0b0001) != 0
    b = (flags & 0b0100) != 0
    toggled = flags ^ 0b1010
    merged = flags | 0b0011
    return a & ~b, toggled, merged


def bin_lookup(edges, values):
    idx = np.searchsorted(edges, values, side="left")
    return np.clip(idx, 0, len(edges) - 1)


def gray_code(n):
    return n ^ (n >> 1)


def digit_sum(x):
    s = np.zeros_like(x)
    y = x.copy()
    while np.any(y > 0):
        s += y % 10
        y //= 10
    return s


def float32_accumulate(x):
    return x.sum(dtype=np.float32), x.astype(np.float64).sum()


# ---------------------------------------------------------------- large arrays
def large_frame_energy(x):
    frames = x.reshape(-1, 1000)
    e = (frames * frames).sum(axis=1)
    return 10.0 * np.log10(e + 1e-12)


def large_group_sum(keys, vals):
    return np.bincount(keys, weights=vals)


def large_clip_mask_count(x, lo, hi):
    y = x.copy()
    y[y < lo] = lo
    y[y > hi] = hi
    return y, int(np.count_nonzero(x != y))


def large_softplus_mean(x):
    return float(np.mean(np.logaddexp(0.0, x)))


def large_image_gray(img):
    return to_gray(img).astype(np.float32)


def large_cummax_pct(prices):
    return np.maximum.accumulate(prices) / prices - 1.0


def large_sort_median(x):
    s = np.sort(x)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def large_bitmix(a):
    h = a ^ (a >> 16)
    h = (h * np.int64(0x45d9f3b)) & 0xFFFFFFFF
    return h ^ (h >> 16)


def large_hist(x, nbins):
    counts, edges = np.histogram(x, bins=nbins, range=(-4.0, 4.0))
    return counts, edges


def large_interp(t, v, tq):
    return np.interp(tq, t, v)


def large_uint8_gamma(img):
    lut = (255.0 * (np.arange(256) / 255.0) ** 0.5).astype(np.uint8)
    return lut[img]


# ---------------------------------------------------------------- argument set-up
def _build():
    r = np.random.default_rng(2024)
    P = []

    def add(name, fn, *args):
        P.append((name, fn, args))

    # sensors
    add("calibrate_poly", calibrate_poly, r.uniform(0, 5, 500), np.array([0.01, -0.2, 1.5, 0.3]))
    add("f_to_k", fahrenheit_to_kelvin, r.normal(70, 15, 300))
    xo = r.normal(0, 1, 400); xo[::37] += 12.0
    add("reject_mad", reject_mad, xo, 3.5)
    t = np.sort(r.uniform(0, 10, 120)); t[0] = 0.0; t[-1] = 10.0
    add("resample_interp", resample_interp, t, np.sin(t), 256)
    add("debounce", debounce, r.uniform(size=300) < 0.3, 3)
    add("adc_to_volts", adc_to_volts, r.integers(0, 4096, 1000, dtype=np.int32), 3.3, 12)
    add("moving_avg", moving_average_valid, r.normal(size=800), 15)
    tt = np.linspace(0, 60, 600)
    add("drift_correct", sensor_drift_correct, tt, 0.05 * tt + r.normal(0, 0.2, 600))
    xh = np.sin(np.linspace(0, 20, 400)) + r.normal(0, 0.1, 400); xh[::23] = 5.0
    add("hampel", hampel_filter, xh, 5, 3.0)

    # grids
    board = (r.uniform(size=(32, 32)) < 0.3).astype(np.uint8)
    add("life_step", life_step, board)
    add("life_run", life_run, board, 10)
    g = np.zeros((40, 40)); g[20, 20] = 100.0
    add("diffuse", diffuse, g, 0.2, 50)
    add("neighbours", count_neighbours_padded, r.uniform(size=(24, 30)) < 0.4)
    c0 = np.zeros(64, dtype=np.int8); c0[32] = 1
    add("rule30", rule30, c0, 31)
    add("minesweeper", minesweeper_numbers, r.uniform(size=(16, 16)) < 0.15)
    sp = np.zeros((21, 21), dtype=np.int64); sp[10, 10] = 200
    add("sandpile", sandpile_topple, sp, 10000)

    # audio
    sig = (0.5 * np.sin(np.linspace(0, 200, 4000)) + 0.1 * r.normal(size=4000)).astype(np.float32)
    add("gain_db", apply_gain_db, sig, -6.0)
    add("frame_rms", frame_rms, sig.astype(np.float64), 256)
    add("clip_detect", clip_detect, 1.3 * sig, 0.6)
    add("compressor", compressor, sig, 0.3, 4.0)
    add("mix_channels", mix_channels, r.uniform(-1, 1, 2048), r.uniform(-1, 1, 2048), 0.3)
    add("peak_dbfs", peak_dbfs, sig)
    add("zcr", zero_crossing_rate, r.normal(size=3000), 300)
    add("fade", fade_in_out, sig, 200)
    add("int16_to_float", int16_to_float, r.integers(-32768, 32767, 2000).astype(np.int16))

    # tabular
    add("group_means", group_means, r.integers(0, 7, 1000), r.normal(10, 3, 1000))
    add("group_max", group_max, r.integers(0, 12, 600), r.normal(size=600), 12)
    add("rank", rank_transform, r.normal(size=500))
    add("pct_change", pct_change, 100 * np.cumprod(1 + r.normal(0, 0.01, 250)))
    add("drawdown", running_drawdown, 1000 * np.cumprod(1 + r.normal(0.001, 0.02, 500)))
    add("top_k", top_k, r.normal(size=2000), 10)
    add("pivot_sales", pivot_sales, r.integers(0, 5, 900), r.integers(0, 12, 900),
        r.gamma(2.0, 50.0, 900), 5, 12)
    add("zscore_cols", zscore_columns, r.normal([1, 50, 300], [0.5, 10, 80], size=(200, 3)))
    add("running_min", running_min_reset, r.normal(size=300).cumsum())
    add("quantile_bins", quantile_bins, r.exponential(size=1000), 5)
    add("weighted_group_std", weighted_group_std, r.integers(0, 4, 500), r.normal(size=500),
        r.uniform(0.1, 2.0, 500))

    # images
    img_f = r.uniform(0, 1, (48, 64, 3))
    img_u8 = r.integers(0, 256, (48, 64, 3), dtype=np.uint8)
    add("to_gray", to_gray, img_f)
    add("to_gray_u8", to_gray_uint8, img_u8)
    add("gamma", gamma_correct, img_u8, 2.2)
    add("hist_eq", hist_equalise, (r.beta(2, 5, (64, 64)) * 255).astype(np.uint8))
    add("alpha_blend", alpha_blend, img_f, r.uniform(0, 1, (48, 64, 3)), r.uniform(0, 1, (48, 64)))
    add("channel_stats", channel_stats, img_u8)
    add("invert_thresh", invert_and_threshold, img_u8, 128.0)
    add("box_blur", box_blur3, img_f)
    add("hsv_vs", rgb_to_hsv_value_sat, img_f)

    # kinematics
    add("rot_z_batch", rot_z_batch, r.uniform(-np.pi, np.pi, 16))
    add("homogeneous", homogeneous, rot_z_batch(np.array([0.7]))[0], np.array([1.0, 2.0, 3.0]))
    add("transform_pts", transform_points, 0.5, 1.0, -2.0, r.normal(size=(100, 2)))
    add("planar_fk", planar_fk, r.uniform(-1, 1, 6), np.array([1.0, 0.8, 0.6, 0.5, 0.3, 0.2]))
    dh = r.uniform(-1, 1, (6, 4))
    add("dh_chain", dh_chain, dh)
    add("quat_mul", quat_mul, quat_normalise(r.normal(size=(50, 4))), quat_normalise(r.normal(size=(50, 4))))
    add("quat_norm", quat_normalise, r.normal(size=(100, 4)).astype(np.float32))
    add("quat_to_R", quat_to_rotmat, r.normal(size=4))
    add("unicycle", integrate_unicycle, r.uniform(0.5, 1.5, 500), r.normal(0, 0.3, 500), 0.01)

    # optimisation
    M = r.normal(size=(20, 20)); A_spd = M @ M.T / 20 + np.eye(20)
    add("gd_quadratic", gd_quadratic, A_spd, r.normal(size=20), 0.1, 200)
    add("rosenbrock_gd", rosenbrock_gd, np.full(5, -0.5), 1e-3, 2000)
    add("backtracking", backtracking_gd, r.normal(size=(40, 10)), r.normal(size=40), 50)
    add("projected_gd", projected_gd_box, A_spd, r.normal(size=20), -0.5, 0.5, 0.1, 300)
    add("newton_1d", newton_1d, 1.0, 2.0, -5.0, 1.0, 1e-12)
    add("momentum", momentum_descent, r.normal(size=(30, 8)), r.normal(size=30), 0.005, 0.9, 150)

    # probability
    add("normal_pdf", normal_pdf, np.linspace(-4, 4, 200), 0.5, 1.3)
    add("normal_cdf_loop", normal_cdf_loop, np.linspace(-3, 3, 61), 0.0, 1.0)
    add("gauss_loglik", gaussian_loglik, r.normal(2, 1.5, 500), 2.0, 1.5)
    add("softplus", softplus, np.linspace(-30, 30, 400))
    add("logsumexp_rows", logsumexp_rows, r.normal(0, 10, (32, 50)))
    add("log_softmax", log_softmax, r.normal(size=(16, 10)).astype(np.float32))
    add("mc_pi", mc_pi, r.uniform(size=(5000, 2)))
    add("mc_option", mc_option_price, r.standard_normal(5000), 100.0, 105.0, 0.03, 0.2, 1.0)
    add("bernoulli_nll", bernoulli_nll, r.uniform(size=300), (r.uniform(size=300) < 0.4).astype(np.float64))
    add("ecdf", empirical_cdf, r.normal(size=700), np.linspace(-3, 3, 50))

    # linear algebra
    add("gram_schmidt", gram_schmidt, r.normal(size=(12, 6)))
    add("power_iter", power_iteration, A_spd, 100)
    add("projection", projection_matrix, r.normal(size=(10, 3)))
    add("row_norms", row_norms, r.normal(size=(64, 8)))
    add("rank1_update", outer_rank1_update, r.normal(size=(8, 8)), r.normal(size=8), r.normal(size=8), 0.5)
    add("einsum_bilinear", einsum_batch_bilinear, r.normal(size=(32, 6)), r.normal(size=(6, 5)), r.normal(size=(32, 5)))
    add("kron_laplacian", kron_laplacian, 6)
    add("cosine_sim", cosine_similarity_matrix, r.normal(size=(20, 16)))
    add("pairwise_dist", pairwise_dist, r.normal(size=(30, 3)))

    # numeric tricks
    a = r.normal(size=50)
    add("close_checks", close_checks, a, a + r.normal(0, 1e-9, 50))
    add("diff2", second_difference, np.arange(40, dtype=np.float64) ** 2)
    tg = np.cumsum(r.uniform(0.1, 1.0, 100))
    add("gradient_nonuni", gradient_nonuniform, tg, np.sin(tg))
    add("compound_growth", compound_growth, r.normal(0.005, 0.02, 120))
    add("round_money", round_money, r.uniform(0, 1000, 100))
    add("sec_to_hms", seconds_to_hms, r.integers(0, 200000, 50, dtype=np.int64))
    add("popcount8", popcount8, r.integers(0, 256, 300, dtype=np.uint8))
    add("bit_flags", bit_flags, r.integers(0, 16, 200, dtype=np.int32))
    add("bin_lookup", bin_lookup, np.array([0.0, 1.0, 2.5, 5.0, 10.0]), r.uniform(-1, 12, 100))
    add("gray_code", gray_code, np.arange(64, dtype=np.int64))
    add("digit_sum", digit_sum, r.integers(0, 1000000, 200, dtype=np.int64))
    add("f32_accum", float32_accumulate, r.uniform(size=3000).astype(np.float32))

    # large
    add("L_frame_energy", large_frame_energy, r.normal(size=1_000_000))
    add("L_group_sum", large_group_sum, r.integers(0, 1000, 500_000), r.normal(size=500_000))
    add("L_clip", large_clip_mask_count, r.normal(size=400_000), -2.0, 2.0)
    add("L_softplus", large_softplus_mean, r.normal(0, 5, 300_000))
    add("L_gray", large_image_gray, r.uniform(size=(256, 512, 3)))
    add("L_cummax", large_cummax_pct, 100 * np.cumprod(1 + r.normal(0, 0.001, 200_000)))
    add("L_median", large_sort_median, r.normal(size=250_001))
    add("L_bitmix", large_bitmix, r.integers(0, 2 ** 31, 300_000, dtype=np.int64))
    add("L_hist", large_hist, r.normal(size=1_000_000), 64)
    tl = np.linspace(0, 100, 100_000)
    add("L_interp", large_interp, tl, np.cos(tl), r.uniform(0, 100, 200_000))
    add("L_u8_gamma", large_uint8_gamma, r.integers(0, 256, (400, 400, 3), dtype=np.uint8))
    return P


progs = _build()


if __name__ == "__main__":
    names = [p[0] for p in progs]
    assert len(names) == len(set(names)), "duplicate names"

    def summ(v):
        if isinstance(v, tuple):
            return "(" + ", ".join(summ(e) for e in v) + ")"
        if isinstance(v, np.ndarray):
            if v.dtype == bool:
                return f"arr{v.shape} bool sum={int(v.sum())}"
            return f"arr{v.shape} {v.dtype} sum={float(np.sum(v.astype(np.float64))):.6g}"
        assert v is not None and not isinstance(v, list)
        return f"{type(v).__name__} {float(v):.6g}"

    for name, fn, args in progs:
        print(f"{name:20s} {summ(fn(*args))}")
    print("count:", len(progs))
