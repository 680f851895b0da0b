"""A corpus of fifty everyday NumPy programs.

The programs below are the kind of code that scientists, engineers, data
analysts and machine-learning practitioners write day to day, straight in
NumPy, without reaching for any performance tool.  They fall into four groups:

* Twenty elementwise formulas ("chains") over 1-D or 2-D float32/float64
  arrays, drawn from physics, finance, ML activations and losses, signal
  processing, statistical densities, geodesy and graphics.  Five work on
  about ten thousand elements, five on about two hundred thousand, and ten
  on one to sixteen million elements.
* Ten row-wise or column-wise programs over 2-D arrays: softmax variants,
  normalisations, per-row and per-column statistics, pairwise distances by
  broadcasting, weighted averages and cumulative sums.
* Ten time-stepping or iterative programs that run a Python ``for`` loop of
  50 to 500 steps and update arrays in place.
* Ten small or integer programs: integer arithmetic, bit manipulation,
  histograms with ``np.bincount``, cumulative sums and differences,
  sorting-based statistics and boolean counting.

Every program is a plain module-level function that takes NumPy arrays and
Python numbers and returns arrays, numbers or tuples of them.  The list
``progs`` holds ``(name, function, args)`` triples with deterministic inputs.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# Elementwise chains, ~10_000 elements
# ---------------------------------------------------------------------------

def gelu_tanh_with_grad(x):
    c = math.sqrt(2.0 / math.pi)
    x3 = x ** 3
    inner = c * (x + 0.044715 * x3)
    t = np.tanh(inner)
    y = 0.5 * x * (1.0 + t)
    sech2 = 1.0 - t * t
    dy = 0.5 * (1.0 + t) + 0.5 * x * sech2 * c * (1.0 + 3.0 * 0.044715 * x * x)
    return y, dy, float(y.mean())


def lognormal_pdf(x, mu, sigma):
    logx = np.log(x)
    z = (logx - mu) / sigma
    pdf = np.exp(-0.5 * z * z) / (x * sigma * math.sqrt(2.0 * math.pi))
    logpdf = -0.5 * z ** 2 - logx - math.log(sigma) - 0.5 * math.log(2.0 * math.pi)
    cdf = 0.5 * (1.0 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))
    hazard = pdf / np.maximum(1.0 - cdf, 1e-12)
    return pdf, hazard, float(logpdf.sum())


def haversine_km(lat1, lon1, lat2, lon2, radius):
    phi1 = np.radians(lat1)
    phi2 = np.radians(lat2)
    dphi = phi2 - phi1
    dlmb = np.radians(lon2 - lon1)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlmb / 2) ** 2
    a = np.clip(a, 0.0, 1.0)
    c = 2 * np.arctan2(np.sqrt(a), np.sqrt(1 - a))
    d = radius * c
    return d, d.max()


def black_scholes_call(S, K, T, r, sigma):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    inv_sqrt2pi = 1.0 / math.sqrt(2.0 * math.pi)

    k1 = 1.0 / (1.0 + 0.2316419 * np.abs(d1))
    poly1 = k1 * (0.319381530 + k1 * (-0.356563782 + k1 * (1.781477937
                  + k1 * (-1.821255978 + k1 * 1.330274429))))
    n1 = 1.0 - inv_sqrt2pi * np.exp(-0.5 * d1 * d1) * poly1
    nd1 = np.where(d1 >= 0, n1, 1.0 - n1)

    k2 = 1.0 / (1.0 + 0.2316419 * np.abs(d2))
    poly2 = k2 * (0.319381530 + k2 * (-0.356563782 + k2 * (1.781477937
                  + k2 * (-1.821255978 + k2 * 1.330274429))))
    n2 = 1.0 - inv_sqrt2pi * np.exp(-0.5 * d2 * d2) * poly2
    nd2 = np.where(d2 >= 0, n2, 1.0 - n2)

    call = S * nd1 - K * np.exp(-r * T) * nd2
    return call, nd1


def planck_radiance(wavelength, temperature):
    h = 6.62607015e-34
    c = 299792458.0
    kb = 1.380649e-23
    x = h * c / (wavelength * kb * temperature)
    radiance = 2.0 * h * c ** 2 / wavelength ** 5 / np.expm1(x)
    photons = radiance * wavelength / (h * c)
    t_bright = h * c / (wavelength * kb * np.log1p(2.0 * h * c ** 2 / (wavelength ** 5 * radiance)))
    log_rad = np.log10(radiance)
    return radiance, photons, float(np.abs(t_bright - temperature).max() + log_rad.max())


# ---------------------------------------------------------------------------
# Elementwise chains, ~200_000 elements
# ---------------------------------------------------------------------------

def softplus_bce_loss(logits, targets):
    z = logits
    loss = np.maximum(z, 0) - z * targets + np.log1p(np.exp(-np.abs(z)))
    p = 1.0 / (1.0 + np.exp(-z))
    grad = (p - targets) / z.size
    return float(loss.mean()), grad


def damped_oscillator(t, amplitude, gamma, omega, phase):
    env = amplitude * np.exp(-gamma * t)
    arg = omega * t + phase
    c = np.cos(arg)
    s = np.sin(arg)
    x = env * c
    v = env * (-gamma * c - omega * s)
    energy = 0.5 * v ** 2 + 0.5 * omega ** 2 * x ** 2
    return x, v, float(energy.mean())


def student_t_logpdf(x, nu, loc, scale):
    const = (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)
             - 0.5 * math.log(nu * math.pi) - math.log(scale))
    z = (x - loc) / scale
    logpdf = const - (nu + 1) / 2 * np.log1p(z ** 2 / nu)
    pdf = np.exp(logpdf)
    return float(logpdf.sum()), pdf


def srgb_reinhard_luma(r, g, b, exposure, gamma):
    r_lin = np.where(r <= 0.04045, r / 12.92, ((r + 0.055) / 1.055) ** 2.4)
    g_lin = np.where(g <= 0.04045, g / 12.92, ((g + 0.055) / 1.055) ** 2.4)
    b_lin = np.where(b <= 0.04045, b / 12.92, ((b + 0.055) / 1.055) ** 2.4)
    lum = (0.2126 * r_lin + 0.7152 * g_lin + 0.0722 * b_lin) * exposure
    mapped = lum / (1.0 + lum)
    out = np.clip(mapped, 0.0, 1.0) ** (1.0 / gamma)
    return out, float(out.mean())


def cartesian_to_spherical(x, y, z):
    r = np.sqrt(x * x + y * y + z * z)
    theta = np.arccos(np.clip(z / r, -1.0, 1.0))
    phi = np.arctan2(y, x)
    lat_deg = np.degrees(0.5 * np.pi - theta)
    return r, phi, float(lat_deg.mean())


# ---------------------------------------------------------------------------
# Elementwise chains, 1-16 million elements
# ---------------------------------------------------------------------------

def focal_loss(p, y, alpha, gamma):
    eps = 1e-6
    p = np.clip(p, eps, 1.0 - eps)
    pos = y > 0.5
    pt = np.where(pos, p, 1.0 - p)
    at = np.where(pos, alpha, 1.0 - alpha)
    loss = -at * (1.0 - pt) ** gamma * np.log(pt)
    return float(loss.mean()), float(loss.max())


def huber_and_logcosh(pred, target, delta):
    r = pred - target
    a = np.abs(r)
    huber = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))
    logcosh = a + np.log1p(np.exp(-2.0 * a)) - math.log(2.0)
    rmse = np.sqrt(np.mean(r ** 2))
    return float(huber.mean()), float(logcosh.mean()), float(rmse)


def mish_and_swish(x):
    softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)
    mish = x * np.tanh(softplus)
    swish = x / (1.0 + np.exp(-x))
    return mish, swish


def geodetic_to_ecef(lat_deg, lon_deg, h):
    a = 6378137.0
    f = 1.0 / 298.257223563
    e2 = f * (2.0 - f)
    lat = np.radians(lat_deg)
    lon = np.radians(lon_deg)
    sin_lat = np.sin(lat)
    cos_lat = np.cos(lat)
    n = a / np.sqrt(1.0 - e2 * sin_lat ** 2)
    x = (n + h) * cos_lat * np.cos(lon)
    y = (n + h) * cos_lat * np.sin(lon)
    z = (n * (1.0 - e2) + h) * sin_lat
    return x, y, float(z.mean())


def ecef_to_geodetic(x, y, z):
    a = 6378137.0
    f = 1.0 / 298.257223563
    b = a * (1.0 - f)
    e2 = f * (2.0 - f)
    ep2 = (a * a - b * b) / (b * b)
    p = np.sqrt(x ** 2 + y ** 2)
    th = np.arctan2(z * a, p * b)
    lat = np.arctan2(z + ep2 * b * np.sin(th) ** 3, p - e2 * a * np.cos(th) ** 3)
    lon = np.arctan2(y, x)
    n = a / np.sqrt(1.0 - e2 * np.sin(lat) ** 2)
    h = p / np.cos(lat) - n
    return np.degrees(lat), np.degrees(lon), float(h.mean())


def chirp_window_db(t, f0, f1, duration):
    k = (f1 - f0) / duration
    phase = 2.0 * np.pi * (f0 * t + 0.5 * k * t * t)
    s = np.sin(phase)
    w = 0.5 - 0.5 * np.cos(2.0 * np.pi * t / duration)
    y = s * w
    power_db = 10.0 * np.log10(y * y + 1e-12)
    return y, float(power_db.mean())


def gmm2_loglik(x, w1, m1, s1, m2, s2):
    half_log2pi = 0.5 * math.log(2.0 * math.pi)
    l1 = math.log(w1) - math.log(s1) - half_log2pi - 0.5 * ((x - m1) / s1) ** 2
    l2 = math.log(1.0 - w1) - math.log(s2) - half_log2pi - 0.5 * ((x - m2) / s2) ** 2
    m = np.maximum(l1, l2)
    ll = m + np.log(np.exp(l1 - m) + np.exp(l2 - m))
    resp = np.exp(l1 - ll)
    return float(ll.sum()), resp


def relativistic_kinematics(beta, mass):
    c = 299792458.0
    gamma = 1.0 / np.sqrt(1.0 - beta ** 2)
    kinetic = (gamma - 1.0) * mass * c ** 2
    momentum = gamma * mass * beta * c
    rapidity = 0.5 * np.log((1.0 + beta) / (1.0 - beta))
    check = np.abs(np.cosh(rapidity) - gamma)
    return kinetic, momentum, float(check.max())


def fresnel_unpolarised(theta_i, n1, n2):
    sin_t = n1 / n2 * np.sin(theta_i)
    tir = sin_t >= 1.0
    cos_t = np.sqrt(np.clip(1.0 - sin_t ** 2, 0.0, None))
    cos_i = np.cos(theta_i)
    rs = ((n1 * cos_i - n2 * cos_t) / (n1 * cos_i + n2 * cos_t)) ** 2
    rp = ((n1 * cos_t - n2 * cos_i) / (n1 * cos_t + n2 * cos_i)) ** 2
    refl = np.where(tir, 1.0, 0.5 * (rs + rp))
    return refl, float(refl.mean())


def aces_filmic_tonemap(hdr, exposure, gamma):
    x = hdr * exposure
    a, b, c, d, e = 2.51, 0.03, 2.43, 0.59, 0.14
    y = np.clip((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0)
    out = y ** (1.0 / gamma)
    return out, float(out.mean())


# ---------------------------------------------------------------------------
# Row-wise / column-wise programs on 2-D arrays
# ---------------------------------------------------------------------------

def row_softmax(x, temperature):
    z = x / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def softmax_cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    picked = np.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    loss = lse - picked
    acc = np.mean(np.argmax(logits, axis=1) == labels)
    return float(loss.mean()), float(acc)


def layer_norm(x, gamma, beta, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * gamma + beta


def column_zscore(x):
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    z = (x - mu) / sd
    return z, float(np.abs(z).max())


def nearest_neighbours(a, b):
    diff = a[:, None, :] - b[None, :, :]
    d2 = (diff ** 2).sum(axis=-1)
    idx = np.argmin(d2, axis=1)
    dist = np.sqrt(d2.min(axis=1))
    return idx, float(dist.mean())


def weighted_row_stats(x, w):
    mean = np.average(x, axis=1, weights=w)
    var = np.average((x - mean[:, None]) ** 2, axis=1, weights=w)
    return mean, np.sqrt(var)


def max_drawdown(prices):
    logret = np.diff(np.log(prices), axis=0)
    cum = np.cumsum(logret, axis=0)
    wealth = np.exp(cum)
    peak = np.maximum.accumulate(wealth, axis=0)
    dd = wealth / peak - 1.0
    vol = logret.std(axis=0) * math.sqrt(252.0)
    return dd.min(axis=0), vol


def robust_minmax_scale(x, lo_q, hi_q):
    lo = np.percentile(x, lo_q, axis=0)
    hi = np.percentile(x, hi_q, axis=0)
    y = np.clip((x - lo) / (hi - lo + 1e-12), 0.0, 1.0)
    return y


def cosine_similarity_best(a, b):
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    s = an @ bn.T
    best = s.max(axis=1)
    return s, float(best.mean())


def moving_average_rows(x, window):
    c = np.cumsum(x, axis=1, dtype=np.float64)
    c = np.concatenate([np.zeros((x.shape[0], 1)), c], axis=1)
    ma = (c[:, window:] - c[:, :-window]) / window
    return ma, ma.std(axis=1)


# ---------------------------------------------------------------------------
# Time-stepping / iterative programs
# ---------------------------------------------------------------------------

def heat_equation_1d(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += alpha * lap
    return u, float(u.max()), float(u.sum())


def bouncing_particles(x0, v0, dt, g, restitution, steps):
    x = x0.copy()
    v = v0.copy()
    for _ in range(steps):
        v -= g * dt
        x += v * dt
        below = x < 0.0
        x[below] = -x[below] * restitution
        v[below] = -v[below] * restitution
    return float(x.mean()), float(v.std()), int((x < 0.01).sum())


def logistic_regression_gd(X, y, lr, steps):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(steps):
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        err = p - y
        w -= lr * (X.T @ err) / n
        b -= lr * err.mean()
    p = np.clip(1.0 / (1.0 + np.exp(-(X @ w + b))), 1e-12, 1 - 1e-12)
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return w, b, float(loss)


def sir_parameter_sweep(beta, gamma, i0, dt, steps):
    s = 1.0 - i0
    i = i0.copy()
    r = np.zeros_like(i0)
    peak = i.copy()
    for _ in range(steps):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s -= new_inf
        i += new_inf - new_rec
        r += new_rec
        np.maximum(peak, i, out=peak)
    return peak, r, float(s.mean())


def game_of_life(board, steps):
    b = board.copy()
    for _ in range(steps):
        n = (np.roll(b, 1, 0) + np.roll(b, -1, 0) + np.roll(b, 1, 1) + np.roll(b, -1, 1)
             + np.roll(np.roll(b, 1, 0), 1, 1) + np.roll(np.roll(b, 1, 0), -1, 1)
             + np.roll(np.roll(b, -1, 0), 1, 1) + np.roll(np.roll(b, -1, 0), -1, 1))
        b = np.where((n == 3) | ((b == 1) & (n == 2)), 1, 0).astype(np.uint8)
    return b, int(b.sum())


def wave_equation_2d(u0, c, steps):
    u_prev = u0.copy()
    u = u0.copy()
    c2 = c * c
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                           - 4.0 * u[1:-1, 1:-1])
        u_next = 2.0 * u - u_prev + c2 * lap
        u_next[0, :] = 0.0
        u_next[-1, :] = 0.0
        u_next[:, 0] = 0.0
        u_next[:, -1] = 0.0
        u_prev, u = u, u_next
    energy = float(((u - u_prev) ** 2).sum() + c2 * (lap ** 2).sum())
    return u, energy


def kmeans_2d(points, centers0, steps):
    centers = centers0.copy()
    k = centers.shape[0]
    for _ in range(steps):
        d2 = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d2, axis=1)
        counts = np.bincount(labels, minlength=k)
        sx = np.bincount(labels, weights=points[:, 0], minlength=k)
        sy = np.bincount(labels, weights=points[:, 1], minlength=k)
        safe = np.maximum(counts, 1)
        new = np.stack([sx / safe, sy / safe], axis=1)
        centers = np.where(counts[:, None] > 0, new, centers)
    d2 = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
    inertia = float(d2.min(axis=1).sum())
    return centers, inertia


def binomial_american_put(S0, strikes, r, sigma, T, steps):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(steps + 1)
    ST = S0 * u ** j * d ** (steps - j)
    K = strikes[:, None]
    V = np.maximum(K - ST[None, :], 0.0)
    for n in range(steps - 1, -1, -1):
        V = disc * (p * V[:, 1:] + (1.0 - p) * V[:, :-1])
        jn = np.arange(n + 1)
        S = S0 * u ** jn * d ** (n - jn)
        V = np.maximum(V, K - S[None, :])
    return V[:, 0]


def kepler_solve(M, e, steps):
    E = np.where(e > 0.8, np.pi, M + e * np.sin(M))
    for _ in range(steps):
        f = E - e * np.sin(E) - M
        fp = 1.0 - e * np.cos(E)
        E -= f / fp
    resid = np.abs(E - e * np.sin(E) - M)
    return E, float(resid.max()), int((resid < 1e-10).sum())


def adam_quadratic(target, scales, lr, steps):
    b1, b2, eps = 0.9, 0.999, 1e-8
    theta = np.zeros_like(target)
    m = np.zeros_like(target)
    v = np.zeros_like(target)
    for t in range(1, steps + 1):
        g = scales * (theta - target)
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        theta -= lr * mhat / (np.sqrt(vhat) + eps)
    loss = 0.5 * np.sum(scales * (theta - target) ** 2)
    return theta, float(loss)


# ---------------------------------------------------------------------------
# Small and integer programs
# ---------------------------------------------------------------------------

def collatz_steps(starts):
    n = starts.astype(np.int64)
    steps = np.zeros_like(n)
    active = n > 1
    while active.any():
        x = n[active]
        n[active] = np.where((x & 1) == 0, x >> 1, 3 * x + 1)
        steps[active] += 1
        active = n > 1
    best = int(np.argmax(steps))
    return steps, int(starts[best]), int(steps[best])


def popcount64(values):
    x = values.astype(np.uint64)
    m1 = np.uint64(0x5555555555555555)
    m2 = np.uint64(0x3333333333333333)
    m4 = np.uint64(0x0F0F0F0F0F0F0F0F)
    h01 = np.uint64(0x0101010101010101)
    x = x - ((x >> np.uint64(1)) & m1)
    x = (x & m2) + ((x >> np.uint64(2)) & m2)
    x = (x + (x >> np.uint64(4))) & m4
    counts = ((x * h01) >> np.uint64(56)).astype(np.int64)
    hist = np.bincount(counts, minlength=65)
    return counts, int(counts.sum()), hist


def age_histogram(ages, incomes, bin_width):
    bins = ages // bin_width
    counts = np.bincount(bins)
    pct = counts / counts.sum() * 100.0
    cum = np.cumsum(pct)
    median_bin = int(np.searchsorted(cum, 50.0))
    income_sum = np.bincount(bins, weights=incomes, minlength=counts.size)
    income_sq = np.bincount(bins, weights=incomes * incomes, minlength=counts.size)
    safe = np.maximum(counts, 1)
    mean_income = income_sum / safe
    sd_income = np.sqrt(np.maximum(income_sq / safe - mean_income ** 2, 0.0))
    adults = int(np.count_nonzero((ages >= 18) & (ages < 65)))
    return counts, pct, median_bin * bin_width, mean_income, sd_income, adults


def xorshift_bucket_balance(keys, n_buckets):
    x = keys.astype(np.int64) & 0xFFFFFFFF
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    buckets = x % n_buckets
    counts = np.bincount(buckets, minlength=n_buckets)
    return int(counts.max() - counts.min()), counts


def run_lengths(flags, values):
    padded = np.concatenate([[0], flags.astype(np.int8), [0]])
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    lengths = ends - starts
    if lengths.size == 0:
        return 0, 0.0, 0, 0.0, np.zeros(1, dtype=np.int64)
    gaps = starts[1:] - ends[:-1]
    hist = np.bincount(lengths)
    longest_gap = int(gaps.max()) if gaps.size else 0
    csum = np.concatenate([[0.0], np.cumsum(values)])
    run_totals = csum[ends] - csum[starts]
    return int(lengths.max()), float(lengths.mean()), longest_gap, float(run_totals.max()), hist


def robust_summary(x):
    s = np.sort(x)
    n = s.size
    med = 0.5 * (s[(n - 1) // 2] + s[n // 2])
    q1 = s[n // 4]
    q3 = s[(3 * n) // 4]
    iqr = q3 - q1
    mad = np.median(np.abs(x - med))
    k = n // 10
    trimmed = s[k:n - k].mean()
    outliers = int(((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr)).sum())
    return float(med), float(iqr), float(mad), float(trimmed), outliers


def spearman_rho(a, b):
    n = a.size
    ra = np.empty(n, dtype=np.int64)
    rb = np.empty(n, dtype=np.int64)
    ra[np.argsort(a)] = np.arange(n)
    rb[np.argsort(b)] = np.arange(n)
    d = ra - rb
    rho = 1.0 - 6.0 * float(np.sum(d * d)) / (n * (n * n - 1.0))
    return rho


def coprime_fraction(a, b):
    g = np.gcd(a, b)
    frac = float(np.mean(g == 1))
    pi_est = math.sqrt(6.0 / frac)
    l = np.lcm(a, b)
    return frac, pi_est, int(l.max())


def dice_chi_square(rolls1, rolls2):
    sums = rolls1 + rolls2
    counts = np.bincount(sums, minlength=13)[2:]
    n = sums.size
    expected = n * np.array([1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]) / 36.0
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    faces1 = np.bincount(rolls1, minlength=7)[1:]
    faces2 = np.bincount(rolls2, minlength=7)[1:]
    chi2_faces = float((((faces1 - n / 6.0) ** 2).sum() + ((faces2 - n / 6.0) ** 2).sum()) / (n / 6.0))
    doubles = int(np.count_nonzero(rolls1 == rolls2))
    streak = np.diff(np.flatnonzero(sums == 7))
    longest_gap = int(streak.max()) if streak.size else 0
    return chi2, chi2_faces, doubles, longest_gap, counts


def sieve_primes(limit):
    is_p = np.ones(limit + 1, dtype=bool)
    is_p[:2] = False
    for i in range(2, math.isqrt(limit) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    primes = np.flatnonzero(is_p)
    gaps = np.diff(primes)
    twins = int(np.sum(gaps == 2))
    gap_hist = np.bincount(gaps)
    pi_x = np.cumsum(is_p)
    xs = np.arange(10, limit + 1)
    rel_err = np.abs(pi_x[10:] - xs / np.log(xs)) / pi_x[10:]
    return int(primes.size), twins, int(primes[-1]), gap_hist, float(rel_err.max())


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20261205)
    f32 = np.float32
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # chains, ~10_000
    add(gelu_tanh_with_grad, rng.normal(0.0, 2.0, 10_000).astype(f32))
    add(lognormal_pdf, rng.lognormal(0.5, 0.8, 12_000), 0.5, 0.8)
    add(haversine_km,
        rng.uniform(-80, 80, 10_000), rng.uniform(-180, 180, 10_000),
        rng.uniform(-80, 80, 10_000), rng.uniform(-180, 180, 10_000), 6371.0)
    add(black_scholes_call,
        rng.uniform(50, 150, 10_000), rng.uniform(60, 140, 10_000),
        rng.uniform(0.1, 3.0, 10_000), 0.03, 0.25)
    add(planck_radiance, rng.uniform(2e-7, 2e-5, 10_000), rng.uniform(1000, 8000, 10_000))

    # chains, ~200_000
    add(softplus_bce_loss, rng.normal(0, 3, 200_000).astype(f32),
        (rng.random(200_000) < 0.3).astype(f32))
    add(damped_oscillator, np.linspace(0.0, 20.0, 200_000), 2.0, 0.15, 3.7, 0.4)
    add(student_t_logpdf, rng.standard_t(4.0, 200_000) * 1.5 + 0.3, 4.0, 0.3, 1.5)
    add(srgb_reinhard_luma,
        rng.random((400, 500), dtype=f32), rng.random((400, 500), dtype=f32),
        rng.random((400, 500), dtype=f32), 2.5, 2.2)
    add(cartesian_to_spherical, *rng.normal(0, 10, (3, 200_000)))

    # chains, 1-16 million
    add(focal_loss, rng.random(2_000_000, dtype=f32),
        (rng.random(2_000_000) < 0.1).astype(f32), 0.25, 2.0)
    pred = rng.normal(0, 1, 4_000_000)
    add(huber_and_logcosh, pred, pred + rng.normal(0, 0.7, 4_000_000), 1.0)
    add(mish_and_swish, rng.normal(0, 3, 4_000_000).astype(f32))
    add(geodetic_to_ecef, rng.uniform(-89, 89, 1_000_000),
        rng.uniform(-180, 180, 1_000_000), rng.uniform(-100, 9000, 1_000_000))
    lat = np.radians(rng.uniform(-80, 80, 1_000_000))
    lon = np.radians(rng.uniform(-180, 180, 1_000_000))
    hgt = rng.uniform(-100, 9000, 1_000_000)
    a_ = 6378137.0
    e2_ = (1 / 298.257223563) * (2 - 1 / 298.257223563)
    n_ = a_ / np.sqrt(1 - e2_ * np.sin(lat) ** 2)
    add(ecef_to_geodetic, (n_ + hgt) * np.cos(lat) * np.cos(lon),
        (n_ + hgt) * np.cos(lat) * np.sin(lon), (n_ * (1 - e2_) + hgt) * np.sin(lat))
    add(chirp_window_db, np.linspace(0.0, 2.0, 2_000_000), 50.0, 4000.0, 2.0)
    add(gmm2_loglik, np.concatenate([rng.normal(-2, 1, 1_200_000),
                                     rng.normal(3, 0.5, 800_000)]),
        0.6, -2.0, 1.0, 3.0, 0.5)
    add(relativistic_kinematics, rng.uniform(0.0, 0.99, 4_000_000),
        rng.uniform(1e-30, 1e-26, 4_000_000))
    add(fresnel_unpolarised, rng.uniform(0.0, 1.5, 2_000_000), 1.5, 1.0)
    add(aces_filmic_tonemap, rng.exponential(0.5, (2048, 4096)).astype(f32), 1.2, 2.2)

    # row-wise / column-wise
    add(row_softmax, rng.normal(0, 2, (256, 4096)).astype(f32), 0.7)
    add(softmax_cross_entropy, rng.normal(0, 1, (2048, 512)).astype(f32),
        rng.integers(0, 512, 2048))
    add(layer_norm, rng.normal(1, 3, (2048, 512)).astype(f32),
        rng.normal(1, 0.1, 512).astype(f32), rng.normal(0, 0.1, 512).astype(f32), 1e-5)
    add(column_zscore, rng.normal(5, 2, (100, 100_000)).astype(f32))
    add(nearest_neighbours, rng.normal(0, 1, (500, 16)), rng.normal(0, 1, (400, 16)))
    add(weighted_row_stats, rng.normal(0, 1, (1000, 2000)), rng.random(2000) + 0.1)
    add(max_drawdown, 100.0 * np.exp(np.cumsum(rng.normal(0.0003, 0.01, (2520, 200)), axis=0)))
    add(robust_minmax_scale, rng.standard_cauchy((2048, 512)), 1.0, 99.0)
    add(cosine_similarity_best, rng.normal(0, 1, (1000, 256)).astype(f32),
        rng.normal(0, 1, (2000, 256)).astype(f32))
    add(moving_average_rows, rng.normal(0, 1, (256, 4096)).astype(f32), 32)

    # iterative
    u0 = np.zeros(100_000)
    u0[40_000:60_000] = 1.0
    add(heat_equation_1d, u0, 0.45, 500)
    add(bouncing_particles, rng.uniform(0, 10, 200_000), rng.normal(0, 2, 200_000),
        0.01, 9.81, 0.8, 100)
    Xl = rng.normal(0, 1, (2000, 20))
    wl = rng.normal(0, 1, 20)
    yl = (Xl @ wl + rng.normal(0, 1, 2000) > 0).astype(np.float64)
    add(logistic_regression_gd, Xl, yl, 0.5, 200)
    add(sir_parameter_sweep, rng.uniform(0.1, 0.5, 10_000), rng.uniform(0.05, 0.2, 10_000),
        rng.uniform(1e-4, 1e-2, 10_000), 0.5, 365)
    add(game_of_life, (rng.random((256, 256)) < 0.3).astype(np.uint8), 100)
    yy, xx = np.mgrid[0:200, 0:200]
    add(wave_equation_2d, np.exp(-((xx - 100.0) ** 2 + (yy - 80.0) ** 2) / 50.0), 0.5, 300)
    true_c = rng.uniform(-10, 10, (8, 2))
    pts = true_c[rng.integers(0, 8, 5000)] + rng.normal(0, 1.0, (5000, 2))
    add(kmeans_2d, pts, pts[:8].copy(), 50)
    add(binomial_american_put, 100.0, np.linspace(70, 130, 200), 0.04, 0.3, 1.0, 300)
    add(kepler_solve, rng.uniform(0, 2 * np.pi, 100_000), rng.uniform(0, 0.9, 100_000), 50)
    add(adam_quadratic, rng.normal(0, 1, 50_000), rng.uniform(0.1, 10, 50_000), 0.01, 200)

    # small / integer
    add(collatz_steps, np.arange(1, 5001, dtype=np.int64))
    add(popcount64, rng.integers(0, 2 ** 62, 20_000, dtype=np.int64))
    add(age_histogram, rng.integers(0, 100, 20_000), rng.lognormal(10.5, 0.6, 20_000), 10)
    add(xorshift_bucket_balance, rng.integers(0, 2 ** 31, 20_000, dtype=np.int64), 97)
    add(run_lengths, rng.random(20_000) < 0.7, rng.exponential(1.0, 20_000))
    add(robust_summary, rng.standard_t(3.0, 20_000))
    sa = rng.normal(0, 1, 5000)
    add(spearman_rho, sa, sa + rng.normal(0, 1, 5000))
    add(coprime_fraction, rng.integers(1, 10_000, 20_000), rng.integers(1, 10_000, 20_000))
    add(dice_chi_square, rng.integers(1, 7, 20_000), rng.integers(1, 7, 20_000))
    add(sieve_primes, 20_000)
    return progs


progs = _make_args()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    names = [name for name, _, _ in progs]
    assert len(names) == len(set(names)), "duplicate program names"
    for name, fn, args in progs:
        assert name == fn.__name__
        result = fn(*args)
        assert result is not None, name
        print(name)
    print("count:", len(progs))
