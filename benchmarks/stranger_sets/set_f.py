"""Benchmark corpus F: sixty everyday NumPy programs of the kind a scientist,
engineer or data analyst writes without thinking about performance tools.
Twenty are long elementwise formulas over arrays of one to eight million
elements (ML losses and activations, option pricing, colour science, optics,
audio effects, relativistic kinematics, black-body radiation, great-circle
distances and log-densities of common distributions), twelve are explicit
time-stepping simulations with in-place updates (particles in a box, heat and
wave equations, epidemics, chaotic maps, springs, predator-prey, bouncing
balls, Ornstein-Uhlenbeck paths, thermostats, coupled oscillators, gradient
descent), fourteen are mid-size multi-step analyses (robust statistics,
binning, drawdowns, nearest-centre assignment, row-wise softmax / layer norm /
log-sum-exp, power iteration, rank correlation, trading signals, histogram
equalisation, weighted medians, peak finding, group-wise standardisation),
and fourteen are small-array or integer programs (Collatz, Life, elementary
automata, Jacobi relaxation, digit sums, popcounts, unique counts, GCDs,
stratified Monte Carlo, a sieve, hash mixing, a sandpile, modular powers and
run-length statistics)."""

import math

import numpy as np


# ---------------------------------------------------------------------------
# Elementwise chains on large arrays
# ---------------------------------------------------------------------------

def gelu_mse_loss(x, target):
    c = math.sqrt(2.0 / math.pi)
    inner = c * (x + 0.044715 * x ** 3)
    activated = 0.5 * x * (1.0 + np.tanh(inner))
    diff = activated - target
    mse = np.mean(np.square(diff))
    worst = np.max(np.abs(diff))
    return mse, worst, np.linalg.norm(diff)


def _std_normal_cdf(z):
    # Abramowitz & Stegun 26.2.17
    k = 1.0 / (1.0 + 0.2316419 * np.abs(z))
    poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
                + k * (-1.821255978 + k * 1.330274429))))
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    upper = 1.0 - pdf * poly
    return np.where(z >= 0, upper, 1.0 - upper)


def black_scholes_call_price(spot, strike, maturity, rate, vol):
    sqrt_t = np.sqrt(maturity)
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol * vol) * maturity) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    discount = np.exp(-rate * maturity)
    call = spot * _std_normal_cdf(d1) - strike * discount * _std_normal_cdf(d2)
    return call


def srgb_relative_luminance(r, g, b, gamma):
    r_lin = np.where(r <= 0.04045, r / 12.92, ((r + 0.055) / 1.055) ** gamma)
    g_lin = np.where(g <= 0.04045, g / 12.92, ((g + 0.055) / 1.055) ** gamma)
    b_lin = np.where(b <= 0.04045, b / 12.92, ((b + 0.055) / 1.055) ** gamma)
    lum = 0.2126 * r_lin + 0.7152 * g_lin + 0.0722 * b_lin
    lightness = np.where(lum > 216.0 / 24389.0, 116.0 * np.cbrt(lum) - 16.0,
                         lum * (24389.0 / 27.0))
    return lum, lightness.mean()


def cielab_lightness_chroma_hue(X, Y, Z, xn, yn, zn):
    delta = 6.0 / 29.0

    def f(t):
        return np.where(t > delta ** 3, np.power(t, 1.0 / 3.0),
                        t / (3.0 * delta * delta) + 4.0 / 29.0)

    fx = f(X / xn)
    fy = f(Y / yn)
    fz = f(Z / zn)
    L = 116.0 * fy - 16.0
    a = 500.0 * (fx - fy)
    b = 200.0 * (fy - fz)
    chroma = np.hypot(a, b)
    hue = np.degrees(np.arctan2(b, a)) % 360.0
    return L, chroma, hue


def logistic_loss_and_accuracy(z, y):
    # numerically stable binary cross entropy with logits
    loss = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
    log_sig = np.minimum(z, 0) - np.log1p(np.exp(-np.abs(z)))
    p = np.reciprocal(1.0 + np.exp(-z))
    correct = (p > 0.5) == (y > 0.5)
    return loss.mean(), correct.mean(), log_sig.sum()


def mu_law_quantization_snr(signal, mu, bits):
    x = np.clip(signal, -1.0, 1.0)
    scale = math.log1p(mu)
    compressed = np.sign(x) * np.log1p(mu * np.abs(x)) / scale
    levels = 2 ** (bits - 1) - 1
    q = np.round(compressed * levels) / levels
    expanded = np.sign(q) * np.expm1(np.abs(q) * scale) / mu
    err = expanded - x
    snr_db = 10.0 * np.log10(np.sum(x * x) / np.sum(err * err))
    return snr_db


def relativistic_kinetic_energy(beta, mass, c):
    rapidity = np.arctanh(beta)
    gamma = np.cosh(rapidity)
    momentum = mass * c * np.sinh(rapidity)
    rest = mass * c * c
    total = np.sqrt((momentum * c) ** 2 + rest ** 2)
    kinetic = total - rest
    kinetic_alt = (gamma - 1.0) * rest
    rel_diff = np.abs(kinetic - kinetic_alt) / np.maximum(kinetic, 1e-300)
    return kinetic.sum(), rel_diff.max()


def student_t_logpdf_and_score(x, nu, loc, scale):
    const = (math.lgamma(0.5 * (nu + 1.0)) - math.lgamma(0.5 * nu)
             - 0.5 * math.log(nu * math.pi))
    z = (x - loc) / scale
    logpdf = const - np.log(scale) - 0.5 * (nu + 1.0) * np.log1p(z * z / nu)
    score = (nu + 1.0) * z / (scale * (nu + z * z))
    return logpdf.sum(), np.abs(score).max()


def huber_loss_sum(pred, target, delta):
    d = pred - target
    ad = np.abs(d)
    quadratic = 0.5 * d * d
    linear = delta * (ad - 0.5 * delta)
    loss = np.where(ad <= delta, quadratic, linear)
    n_outliers = np.count_nonzero(ad > delta)
    return loss.sum(), n_outliers


def fresnel_unpolarized_reflectance(theta_i, n1, n2):
    cos_i = np.cos(theta_i)
    sin_t = n1 / n2 * np.sin(theta_i)
    theta_t = np.arcsin(sin_t)
    cos_t = np.cos(theta_t)
    rs = ((n1 * cos_i - n2 * cos_t) / (n1 * cos_i + n2 * cos_t)) ** 2
    rp = ((n1 * cos_t - n2 * cos_i) / (n1 * cos_t + n2 * cos_i)) ** 2
    R = 0.5 * (rs + rp)
    T = 1.0 - R
    brewster = math.atan(n2 / n1)
    near_brewster = np.abs(theta_i - brewster) < 0.01
    return R, T.mean(), rp[near_brewster].max()


def planck_radiance_roundtrip(wavelength_nm, temperature):
    h = 6.62607015e-34
    c = 2.99792458e8
    k = 1.380649e-23
    lam = wavelength_nm * 1e-9
    c1 = 2.0 * h * c * c
    c2 = h * c / k
    radiance = c1 / lam ** 5 / np.expm1(c2 / (lam * temperature))
    brightness_t = c2 / lam / np.log1p(c1 / (lam ** 5 * radiance))
    rel_err = np.abs(brightness_t - temperature) / temperature
    band = np.ceil(wavelength_nm / 100.0)
    return radiance.mean(), rel_err.max(), np.linalg.norm(radiance * 1e-12), band.max()


def binary_entropy_and_kl_bits(p, q):
    eps = 1e-6
    p = np.clip(p, eps, 1.0 - eps)
    q = np.clip(q, eps, 1.0 - eps)
    H = -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))
    kl = p * np.log2(p / q) + (1.0 - p) * np.log2((1.0 - p) / (1.0 - q))
    return H.mean(), kl.sum(), np.max(kl)


def haversine_distance_bearing(lat1, lon1, lat2, lon2, radius):
    phi1 = np.radians(lat1)
    phi2 = np.radians(lat2)
    dphi = phi2 - phi1
    dlmb = np.radians(lon2 - lon1)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlmb / 2) ** 2
    a = np.clip(a, 0.0, 1.0)
    c = 2.0 * np.arctan2(np.sqrt(a), np.sqrt(1.0 - a))
    dist = radius * c
    y = np.sin(dlmb) * np.cos(phi2)
    x = np.cos(phi1) * np.sin(phi2) - np.sin(phi1) * np.cos(phi2) * np.cos(dlmb)
    bearing = np.degrees(np.arctan2(y, x)) % 360.0
    return dist, bearing


def tube_distortion_levels(signal, drive, mix):
    pre = signal * drive
    soft = (2.0 / math.pi) * np.arctan(pre)
    asym = np.tanh(pre + 0.2) - math.tanh(0.2)
    hard = np.clip(pre, -1.0, 1.0)
    wet = 0.5 * soft + 0.3 * asym + 0.2 * hard
    out = mix * wet + (1.0 - mix) * signal
    rms = np.sqrt(np.mean(out * out))
    peak = np.max(np.abs(out))
    level_db = 20.0 * np.log10(rms + 1e-12)
    crest_db = 20.0 * np.log10(peak / rms)
    return level_db, crest_db


def selu_and_mish_stats(x):
    alpha = 1.6732632423543772
    scale = 1.0507009873554805
    selu = scale * np.where(x > 0, x, alpha * np.expm1(x))
    softplus = np.log1p(np.exp(x))
    mish = x * np.tanh(softplus)
    return selu.mean(), selu.std(), mish.mean()


def reinhard_tonemap_8bit(lum, key, white, gamma):
    log_avg = np.exp(np.mean(np.log(1e-4 + lum)))
    scaled = key / log_avg * lum
    mapped = scaled * (1.0 + scaled / (white * white)) / (1.0 + scaled)
    display = np.power(np.clip(mapped, 0.0, 1.0), 1.0 / gamma)
    codes = np.floor(display * 255.0 + 0.5).astype(np.uint8)
    clipped_fraction = np.mean(mapped >= 1.0)
    return codes, clipped_fraction


def gamma_vs_lognormal_loglik(x, shape, rate):
    log_x = np.log(x)
    gamma_lp = (shape * math.log(rate) - math.lgamma(shape)
                + (shape - 1.0) * log_x - rate * x)
    mu = log_x.mean()
    sigma = log_x.std()
    lognorm_lp = (-log_x - math.log(sigma) - 0.5 * math.log(2.0 * math.pi)
                  - (log_x - mu) ** 2 / (2.0 * sigma * sigma))
    llr = gamma_lp - lognorm_lp
    return llr.sum(), np.mean(llr > 0)


def focal_loss_mean(logits, labels, alpha, gamma):
    p = 1.0 / (1.0 + np.exp(-logits))
    positive = labels > 0.5
    pt = np.where(positive, p, 1.0 - p)
    at = np.where(positive, alpha, 1.0 - alpha)
    pt = np.clip(pt, 1e-7, 1.0)
    loss = -at * (1.0 - pt) ** gamma * np.log(pt)
    return loss.mean()


def vector_angle_degrees(ax, ay, az, bx, by, bz):
    dot = ax * bx + ay * by + az * bz
    na = np.sqrt(ax * ax + ay * ay + az * az)
    nb = np.sqrt(bx * bx + by * by + bz * bz)
    cos_ang = np.clip(dot / (na * nb), -1.0, 1.0)
    ang = np.degrees(np.arccos(cos_ang))
    mid_band = np.logical_and(ang > 30.0, ang < 60.0)
    return ang.max(), ang.mean(), np.count_nonzero(ang > 90.0), np.count_nonzero(mid_band)


def refraction_lateral_shift(theta, thickness, n_glass):
    theta_r = np.arcsin(np.sin(theta) / n_glass)
    shift = thickness * np.sin(theta - theta_r) / np.cos(theta_r)
    shift_alt = thickness * (np.tan(theta) - np.tan(theta_r)) * np.cos(theta)
    path_len = thickness / np.cos(theta_r)
    return shift, np.max(np.abs(shift - shift_alt)), path_len.sum()


# ---------------------------------------------------------------------------
# Time-stepping simulations
# ---------------------------------------------------------------------------

def particles_in_box(x, y, vx, vy, dt, steps, box):
    x = x.copy()
    y = y.copy()
    vx = vx.copy()
    vy = vy.copy()
    wall_hits = 0
    for _ in range(steps):
        x += vx * dt
        y += vy * dt
        low = x < 0
        x[low] = -x[low]
        vx[low] *= -1
        high = x > box
        x[high] = 2 * box - x[high]
        vx[high] *= -1
        low_y = y < 0
        y[low_y] = -y[low_y]
        vy[low_y] *= -1
        high_y = y > box
        y[high_y] = 2 * box - y[high_y]
        vy[high_y] *= -1
        wall_hits += low.sum() + high.sum() + low_y.sum() + high_y.sum()
    kinetic = 0.5 * np.sum(vx ** 2 + vy ** 2)
    return x.mean(), y.mean(), kinetic, wall_hits


def heat_rod_explicit(u0, alpha, steps):
    u = u0.copy()
    u[0] = 0.0
    u[-1] = 0.0
    for _ in range(steps):
        u[1:-1] += alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u, u.sum()


def sir_parameter_sweep(beta, gamma, i0, dt, steps):
    S = np.full_like(beta, 1.0 - i0)
    I = np.full_like(beta, i0)
    R = np.zeros_like(beta)
    peak = I.copy()
    peak_day = np.zeros(beta.shape, dtype=np.int64)
    for t in range(steps):
        new_inf = beta * S * I * dt
        recov = gamma * I * dt
        S -= new_inf
        I += new_inf - recov
        R += recov
        higher = I > peak
        peak[higher] = I[higher]
        peak_day[higher] = t
    return peak, peak_day, R


def logistic_map_lyapunov(r, x0, steps, burn_in):
    x = x0.copy()
    lyap = np.zeros_like(x)
    for t in range(steps):
        x[:] = r * x * (1.0 - x)
        if t >= burn_in:
            lyap += np.log(np.abs(r * (1.0 - 2.0 * x)) + 1e-12)
    lyap /= steps - burn_in
    return lyap, np.mean(lyap > 0)


def damped_spring_ensemble(x, v, k, c, dt, steps, vmax):
    x = x.copy()
    v = v.copy()
    for _ in range(steps):
        a = -k * x - c * v
        v += a * dt
        np.clip(v, -vmax, vmax, out=v)
        x += v * dt
    energy = 0.5 * v * v + 0.5 * k * x * x
    return energy.mean(), np.abs(x).max()


def wave_string_leapfrog(u0, courant, steps):
    c2 = courant * courant
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = (2.0 * u[1:-1] - u_prev[1:-1]
                        + c2 * (u[2:] - 2.0 * u[1:-1] + u[:-2]))
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    velocity = u - u_prev
    strain = np.diff(u)
    energy = 0.5 * np.sum(velocity ** 2) + 0.5 * c2 * np.sum(strain ** 2)
    return u, energy


def logistic_regression_gd(X, y, lr, steps, l2):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(steps):
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        err = p - y
        grad_w = X.T @ err / n + l2 * w
        grad_b = err.mean()
        w -= lr * grad_w
        b -= lr * grad_b
    z = X @ w + b
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    return w, b, loss


def lotka_volterra_ensemble(prey, pred, a, b, c, d, dt, steps):
    prey = prey.copy()
    pred = pred.copy()
    max_prey = prey.copy()
    for _ in range(steps):
        d_prey = (a * prey - b * prey * pred) * dt
        d_pred = (d * prey * pred - c * pred) * dt
        prey += d_prey
        pred += d_pred
        np.maximum(prey, 0.0, out=prey)
        np.maximum(pred, 0.0, out=pred)
        np.maximum(max_prey, prey, out=max_prey)
    return prey.mean(), pred.mean(), max_prey.max()


def bouncing_balls(height, vel, g, restitution, dt, steps):
    y = height.copy()
    vy = vel.copy()
    bounces = np.zeros(y.shape, dtype=np.int64)
    for _ in range(steps):
        vy -= g * dt
        y += vy * dt
        below = y < 0
        y[below] = -y[below] * restitution
        vy[below] *= -restitution
        bounces += below
    return y.mean(), bounces.max(), np.mean(bounces)


def ornstein_uhlenbeck_paths(x0, noise, theta, mu, sigma, dt):
    x = x0.copy()
    time_avg = np.zeros_like(x)
    diffusion = sigma * math.sqrt(dt)
    n_steps = noise.shape[0]
    for t in range(n_steps):
        x += theta * (mu - x) * dt + diffusion * noise[t]
        time_avg += x
    time_avg /= n_steps
    return x.mean(), x.std(), time_avg.mean()


def thermostat_hysteresis(temp0, outside, setpoint, band, heat_rate, loss_rate, dt, steps):
    temp = temp0.copy()
    heater = temp < setpoint
    on_steps = np.zeros(temp.shape, dtype=np.int64)
    for _ in range(steps):
        heater = np.where(temp < setpoint - band, True,
                          np.where(temp > setpoint + band, False, heater))
        temp += dt * (heat_rate * heater - loss_rate * (temp - outside))
        on_steps += heater
    duty = on_steps / steps
    return temp.mean(), duty.mean()


def kuramoto_oscillators(theta0, omega, coupling, dt, steps):
    theta = theta0.copy()
    two_pi = 2.0 * math.pi
    order = np.empty(steps)
    for t in range(steps):
        re = np.mean(np.cos(theta))
        im = np.mean(np.sin(theta))
        R = math.hypot(re, im)
        psi = math.atan2(im, re)
        theta += dt * (omega + coupling * R * np.sin(psi - theta))
        np.mod(theta, two_pi, out=theta)
        order[t] = R
    return order[-1], order.mean()


# ---------------------------------------------------------------------------
# Mid-size multi-step programs
# ---------------------------------------------------------------------------

def robust_zscore_filter(values, threshold):
    med = np.median(values)
    mad = np.median(np.abs(values - med))
    z = 0.6745 * (values - med) / mad
    keep = np.abs(z) < threshold
    cleaned = values[keep]
    return cleaned.mean(), cleaned.std(ddof=1), values.size - cleaned.size


def binned_means_digitize(x, y, n_bins, lo, hi):
    edges = np.linspace(lo, hi, n_bins + 1)
    idx = np.digitize(x, edges) - 1
    valid = (idx >= 0) & (idx < n_bins)
    idx = idx[valid]
    yv = y[valid]
    counts = np.bincount(idx, minlength=n_bins)
    sums = np.bincount(idx, weights=yv, minlength=n_bins)
    sq = np.bincount(idx, weights=yv * yv, minlength=n_bins)
    safe = np.maximum(counts, 1)
    means = sums / safe
    var = np.maximum(sq / safe - means ** 2, 0.0)
    stderr = np.sqrt(var / safe)
    centers = 0.5 * (edges[:-1] + edges[1:])
    return centers, means, stderr


def max_drawdown_from_returns(log_returns):
    equity = np.exp(np.cumsum(log_returns))
    running_peak = np.maximum.accumulate(equity)
    drawdown = 1.0 - equity / running_peak
    worst = np.argmax(drawdown)
    sharpe = log_returns.mean() / log_returns.std() * math.sqrt(252.0)
    return drawdown.max(), worst, sharpe, equity[-1]


def kmeans_assign_update(points, centers):
    diff = points[:, None, :] - centers[None, :, :]
    d2 = np.sum(diff * diff, axis=2)
    nearest = np.argmin(d2, axis=1)
    min_d2 = d2[np.arange(points.shape[0]), nearest]
    k = centers.shape[0]
    counts = np.bincount(nearest, minlength=k)
    new_centers = np.empty_like(centers)
    for j in range(points.shape[1]):
        sums = np.bincount(nearest, weights=points[:, j], minlength=k)
        new_centers[:, j] = np.where(counts > 0, sums / np.maximum(counts, 1), centers[:, j])
    inertia = min_d2.sum()
    return new_centers, inertia, counts


def softmax_row_entropy(logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    p = e / e.sum(axis=1, keepdims=True)
    entropy = -np.sum(p * np.log(p + 1e-12), axis=1)
    return entropy, np.argmax(p, axis=1)


def layer_norm_rows(x, gain, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.mean(centered * centered, axis=-1, keepdims=True)
    return centered / np.sqrt(var + eps) * gain + bias


def cross_entropy_from_scores(scores, targets, temperature):
    s = scores / temperature
    m = s.max(axis=1)
    lse = m + np.log(np.exp(s - m[:, None]).sum(axis=1))
    log_probs = s - lse[:, None]
    nll = -log_probs[np.arange(s.shape[0]), targets]
    accuracy = np.mean(np.argmax(s, axis=1) == targets)
    return nll.mean(), accuracy


def power_iteration_dominant_eig(A, v0, iters):
    v = v0 / np.linalg.norm(v0)
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = v @ w
        v = w / np.linalg.norm(w)
    residual = np.linalg.norm(A @ v - lam * v)
    return lam, residual


def spearman_vs_pearson(x, y):
    n = x.size
    rx = np.empty(n)
    ry = np.empty(n)
    rx[np.argsort(x)] = np.arange(n)
    ry[np.argsort(y)] = np.arange(n)
    rx -= rx.mean()
    ry -= ry.mean()
    rho = np.sum(rx * ry) / math.sqrt(np.sum(rx * rx) * np.sum(ry * ry))
    xc = x - x.mean()
    yc = y - y.mean()
    r = np.sum(xc * yc) / np.sqrt(np.sum(xc ** 2) * np.sum(yc ** 2))
    return rho, r


def moving_average_crossover(prices, short_window, long_window):
    c = np.cumsum(np.insert(prices, 0, 0.0))
    sma_short = (c[short_window:] - c[:-short_window]) / short_window
    sma_long = (c[long_window:] - c[:-long_window]) / long_window
    sma_short = sma_short[long_window - short_window:]
    signal = np.sign(sma_short - sma_long)
    trades = np.count_nonzero(np.diff(signal) != 0)
    aligned = prices[long_window - 1:]
    step_returns = np.diff(aligned) / aligned[:-1]
    strategy = signal[:-1] * step_returns
    total = np.prod(1.0 + strategy) - 1.0
    return trades, total, strategy.std()


def percentile_equalize(image, lo_pct, hi_pct, n_bins):
    lo, hi = np.percentile(image, [lo_pct, hi_pct])
    norm = np.clip((image - lo) / (hi - lo), 0.0, 1.0)
    hist, _ = np.histogram(norm, bins=n_bins, range=(0.0, 1.0))
    cdf = np.cumsum(hist) / hist.sum()
    bin_idx = np.minimum((norm * n_bins).astype(np.int64), n_bins - 1)
    equalized = cdf[bin_idx]
    return equalized, hist


def weighted_median_and_spread(values, weights):
    order = np.argsort(values)
    v = values[order]
    w = weights[order]
    cw = np.cumsum(w)
    idx = np.searchsorted(cw, 0.5 * cw[-1])
    wmedian = v[idx]
    wmean = np.sum(w * v) / cw[-1]
    wstd = math.sqrt(np.sum(w * (v - wmean) ** 2) / cw[-1])
    q1 = v[np.searchsorted(cw, 0.25 * cw[-1])]
    q3 = v[np.searchsorted(cw, 0.75 * cw[-1])]
    return wmedian, wmean, wstd, q3 - q1


def detect_peaks(signal, threshold, min_distance):
    d = np.diff(signal)
    peaks = np.flatnonzero((d[:-1] > 0) & (d[1:] <= 0)) + 1
    peaks = peaks[signal[peaks] > threshold]
    gaps = np.diff(peaks, prepend=-min_distance)
    peaks = peaks[gaps >= min_distance]
    heights = signal[peaks]
    spacing = np.diff(peaks).mean() if peaks.size > 1 else 0.0
    return peaks.size, heights.mean(), spacing


def group_standardise(labels, values, n_groups):
    counts = np.bincount(labels, minlength=n_groups)
    safe = np.maximum(counts, 1)
    mean = np.bincount(labels, weights=values, minlength=n_groups) / safe
    sq = np.bincount(labels, weights=values * values, minlength=n_groups) / safe
    std = np.sqrt(np.maximum(sq - mean ** 2, 1e-12))
    z = (values - mean[labels]) / std[labels]
    return z, mean, std


# ---------------------------------------------------------------------------
# Small-array and integer programs
# ---------------------------------------------------------------------------

def collatz_stopping_times(starts):
    n = starts.astype(np.int64)
    steps = np.zeros(n.shape, dtype=np.int64)
    active = n > 1
    while active.any():
        even = active & (n % 2 == 0)
        odd = active & ~even
        n[even] //= 2
        n[odd] = 3 * n[odd] + 1
        steps += active
        active = n > 1
    longest = np.argmax(steps)
    return steps.max(), starts[longest], steps.mean()


def game_of_life(grid, generations):
    g = grid.astype(np.uint8)
    population = np.empty(generations, dtype=np.int64)
    for t in range(generations):
        nb = np.zeros(g.shape, dtype=np.uint8)
        nb[1:-1, 1:-1] = (g[:-2, :-2] + g[:-2, 1:-1] + g[:-2, 2:]
                          + g[1:-1, :-2] + g[1:-1, 2:]
                          + g[2:, :-2] + g[2:, 1:-1] + g[2:, 2:])
        born = (g == 0) & (nb == 3)
        survive = (g == 1) & ((nb == 2) | (nb == 3))
        g = (born | survive).astype(np.uint8)
        g[0, :] = 0
        g[-1, :] = 0
        g[:, 0] = 0
        g[:, -1] = 0
        population[t] = g.sum()
    return g, population


def elementary_automaton(initial, rule, steps):
    rule_bits = ((rule >> np.arange(8)) & 1).astype(np.uint8)
    cells = initial.astype(np.uint8)
    history = np.empty((steps, cells.size), dtype=np.uint8)
    for t in range(steps):
        left = np.roll(cells, 1)
        right = np.roll(cells, -1)
        idx = (left << 2) | (cells << 1) | right
        cells = rule_bits[idx]
        history[t] = cells
    density = history.mean(axis=0)
    return history[-1], density


def jacobi_plate_temperature(u0, top_temp, iters):
    u = u0.copy()
    u[0, :] = top_temp
    u[-1, :] = 0.0
    u[:, 0] = 0.0
    u[:, -1] = 0.0
    for _ in range(iters):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    residual = np.abs(u[1:-1, 1:-1] - 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1]
                                             + u[1:-1, :-2] + u[1:-1, 2:])).max()
    return u, residual


def digit_sum_histogram(numbers, base):
    n = numbers.copy()
    s = np.zeros_like(n)
    while (n > 0).any():
        s += n % base
        n //= base
    hist = np.bincount(s)
    positive = numbers > 0
    roots = np.where(positive, 1 + (numbers - 1) % (base - 1), 0)
    consistent = np.all((s % (base - 1)) == (roots % (base - 1)))
    return hist, roots, consistent


def popcount_and_parity(words):
    v = words.astype(np.uint32)
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    counts = (v * 0x01010101) >> 24
    parity = counts & 1
    hamming = np.bitwise_xor(words[1:], words[:-1])
    h = hamming - ((hamming >> 1) & 0x55555555)
    h = (h & 0x33333333) + ((h >> 2) & 0x33333333)
    h = (h + (h >> 4)) & 0x0F0F0F0F
    hdist = (h * 0x01010101) >> 24
    return np.bincount(counts, minlength=33), int(parity.sum()), hdist.mean()


def unique_counts_mode(labels):
    vals, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    mode = vals[np.argmax(counts)]
    singletons = np.count_nonzero(counts == 1)
    freq = counts[inverse] / labels.size
    top5 = vals[np.argsort(counts)[::-1][:5]]
    return mode, singletons, freq.mean(), top5


def vectorized_gcd_lcm(a, b):
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    while (y != 0).any():
        nz = y != 0
        x[nz], y[nz] = y[nz], x[nz] % y[nz]
    g = x
    lcm = a // g * b
    coprime = np.mean(g == 1)
    return g, lcm, coprime


def stratified_pi_estimate(u, v, n_strata):
    inside = (u * u + v * v) <= 1.0
    pi_plain = 4.0 * inside.mean()
    iu = np.minimum(np.floor(u * n_strata).astype(np.int64), n_strata - 1)
    iv = np.minimum(np.floor(v * n_strata).astype(np.int64), n_strata - 1)
    cell = iu * n_strata + iv
    counts = np.bincount(cell, minlength=n_strata * n_strata)
    hits = np.bincount(cell, weights=inside, minlength=n_strata * n_strata)
    filled = counts > 0
    pi_strat = 4.0 * np.mean(hits[filled] / counts[filled])
    return pi_plain, pi_strat


def sieve_prime_gaps(limit):
    is_prime = np.ones(limit + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(math.isqrt(limit)) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = False
    primes = np.flatnonzero(is_prime)
    gaps = np.diff(primes)
    twins = np.count_nonzero(gaps == 2)
    return primes.size, gaps.max(), twins


def murmur_mix_bucket_chi2(keys, bits):
    h = keys.astype(np.uint64)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    bucket = (h >> np.uint64(64 - bits)).astype(np.intp)
    n_buckets = 1 << bits
    hist = np.bincount(bucket, minlength=n_buckets)
    expected = keys.size / n_buckets
    chi2 = np.sum((hist - expected) ** 2 / expected)
    return hist, chi2


def abelian_sandpile(grid, max_iters):
    g = grid.astype(np.int64)
    start = g.sum()
    rounds = 0
    while rounds < max_iters:
        q = g // 4
        if not q.any():
            break
        g -= 4 * q
        g[1:, :] += q[:-1, :]
        g[:-1, :] += q[1:, :]
        g[:, 1:] += q[:, :-1]
        g[:, :-1] += q[:, 1:]
        rounds += 1
    lost = start - g.sum()
    return g, rounds, lost


def modular_power_fermat(bases, exponents, modulus):
    result = np.ones_like(bases)
    b = bases % modulus
    e = exponents.copy()
    while (e > 0).any():
        odd = (e & 1) == 1
        result = np.where(odd, (result * b) % modulus, result)
        b = (b * b) % modulus
        e >>= 1
    # Fermat check: a^(p-1) == 1 mod p when p is prime and p does not divide a
    f = np.ones_like(bases)
    bb = bases % modulus
    k = modulus - 1
    while k > 0:
        if k & 1:
            f = (f * bb) % modulus
        bb = (bb * bb) % modulus
        k >>= 1
    return result, np.all(f[bases % modulus != 0] == 1)


def run_length_stats(seq, n_values):
    change = np.flatnonzero(np.diff(seq) != 0) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [seq.size])))
    values = seq[starts]
    longest = np.zeros(n_values, dtype=np.int64)
    np.maximum.at(longest, values, lengths)
    mean_len = np.bincount(values, weights=lengths, minlength=n_values) / np.maximum(
        np.bincount(values, minlength=n_values), 1)
    return lengths.max(), longest, mean_len


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(2026_12_05)
    f32 = np.float32
    progs = []

    # --- elementwise chains -------------------------------------------------
    n = 1 << 21
    progs.append(("gelu_mse_loss", gelu_mse_loss,
                  (rng.standard_normal(n, dtype=f32), rng.standard_normal(n, dtype=f32))))
    n = 1 << 20
    progs.append(("black_scholes_call_price", black_scholes_call_price,
                  (rng.uniform(50, 150, n), rng.uniform(50, 150, n),
                   rng.uniform(0.05, 2.0, n), 0.03, rng.uniform(0.1, 0.6, n))))
    progs.append(("srgb_relative_luminance", srgb_relative_luminance,
                  (rng.random(n, dtype=f32), rng.random(n, dtype=f32),
                   rng.random(n, dtype=f32), 2.4)))
    progs.append(("cielab_lightness_chroma_hue", cielab_lightness_chroma_hue,
                  (rng.random(n) * 0.95, rng.random(n), rng.random(n) * 1.09,
                   0.95047, 1.0, 1.08883)))
    n = 1 << 22
    progs.append(("logistic_loss_and_accuracy", logistic_loss_and_accuracy,
                  (rng.standard_normal(n, dtype=f32) * 3,
                   (rng.random(n) < 0.4).astype(f32))))
    n = 1 << 21
    t = np.arange(n) / 44100.0
    audio = (0.8 * np.sin(2 * np.pi * 440.0 * t) + 0.05 * rng.standard_normal(n)).astype(f32)
    progs.append(("mu_law_quantization_snr", mu_law_quantization_snr, (audio, 255.0, 8)))
    n = 1 << 20
    progs.append(("relativistic_kinetic_energy", relativistic_kinetic_energy,
                  (rng.uniform(0.0, 0.99, n), 9.109e-31 * rng.uniform(1.0, 2000.0, n),
                   299792458.0)))
    progs.append(("student_t_logpdf_and_score", student_t_logpdf_and_score,
                  (rng.standard_t(5.0, n), 5.0, 0.1, rng.uniform(0.5, 2.0, n))))
    n = 1 << 23
    progs.append(("huber_loss_sum", huber_loss_sum,
                  (rng.standard_normal(n, dtype=f32), rng.standard_normal(n, dtype=f32), 1.0)))
    n = 1 << 20
    progs.append(("fresnel_unpolarized_reflectance", fresnel_unpolarized_reflectance,
                  (rng.uniform(0.0, 1.5, n), 1.0, 1.52)))
    progs.append(("planck_radiance_roundtrip", planck_radiance_roundtrip,
                  (rng.uniform(300.0, 2500.0, n), rng.uniform(3000.0, 6500.0, n))))
    n = 1 << 21
    progs.append(("binary_entropy_and_kl_bits", binary_entropy_and_kl_bits,
                  (rng.random(n, dtype=f32), rng.random(n, dtype=f32))))
    n = 1 << 20
    progs.append(("haversine_distance_bearing", haversine_distance_bearing,
                  (rng.uniform(-80, 80, n), rng.uniform(-180, 180, n),
                   rng.uniform(-80, 80, n), rng.uniform(-180, 180, n), 6371.0)))
    n = 1 << 21
    t = np.arange(n) / 44100.0
    guitar = (0.5 * np.sin(2 * np.pi * 110.0 * t) + 0.2 * np.sin(2 * np.pi * 330.0 * t)
              + 0.05 * rng.standard_normal(n)).astype(f32)
    progs.append(("tube_distortion_levels", tube_distortion_levels, (guitar, 4.0, 0.7)))
    n = 1 << 22
    progs.append(("selu_and_mish_stats", selu_and_mish_stats,
                  (rng.standard_normal(n, dtype=f32) * 3,)))
    progs.append(("reinhard_tonemap_8bit", reinhard_tonemap_8bit,
                  (rng.lognormal(-1.0, 1.5, n).astype(f32), 0.18, 4.0, 2.2)))
    n = 1 << 20
    progs.append(("gamma_vs_lognormal_loglik", gamma_vs_lognormal_loglik,
                  (rng.gamma(2.5, 1.0 / 1.5, n), 2.5, 1.5)))
    n = 1 << 21
    progs.append(("focal_loss_mean", focal_loss_mean,
                  (rng.standard_normal(n, dtype=f32) * 2,
                   (rng.random(n) < 0.3).astype(f32), 0.25, 2.0)))
    n = 1 << 20
    progs.append(("vector_angle_degrees", vector_angle_degrees,
                  tuple(rng.standard_normal(n) for _ in range(6))))
    n = 1 << 21
    progs.append(("refraction_lateral_shift", refraction_lateral_shift,
                  (rng.uniform(0.0, 1.4, n).astype(f32), rng.uniform(1.0, 5.0, n).astype(f32),
                   1.5)))

    # --- time-stepping simulations -----------------------------------------
    m = 50_000
    progs.append(("particles_in_box", particles_in_box,
                  (rng.random(m), rng.random(m), rng.standard_normal(m),
                   rng.standard_normal(m), 0.01, 200, 1.0)))
    progs.append(("heat_rod_explicit", heat_rod_explicit, (rng.random(100_000), 0.4, 500)))
    m = 10_000
    progs.append(("sir_parameter_sweep", sir_parameter_sweep,
                  (rng.uniform(0.1, 0.5, m), rng.uniform(0.05, 0.2, m), 1e-3, 0.5, 300)))
    m = 50_000
    progs.append(("logistic_map_lyapunov", logistic_map_lyapunov,
                  (rng.uniform(2.8, 4.0, m), rng.uniform(0.1, 0.9, m), 400, 100)))
    m = 100_000
    progs.append(("damped_spring_ensemble", damped_spring_ensemble,
                  (rng.standard_normal(m, dtype=f32), rng.standard_normal(m, dtype=f32),
                   rng.uniform(0.5, 4.0, m).astype(f32), rng.uniform(0.0, 0.3, m).astype(f32),
                   0.01, 300, 2.0)))
    m = 50_000
    xs = np.arange(m)
    pulse = np.exp(-((xs - m / 2) / 500.0) ** 2) + 0.01 * rng.standard_normal(m)
    progs.append(("wave_string_leapfrog", wave_string_leapfrog, (pulse, 0.9, 300)))
    X = rng.standard_normal((5000, 32))
    w_true = rng.standard_normal(32)
    labels = ((X @ w_true + rng.standard_normal(5000)) > 0).astype(np.float64)
    progs.append(("logistic_regression_gd", logistic_regression_gd, (X, labels, 0.5, 200, 1e-3)))
    m = 20_000
    progs.append(("lotka_volterra_ensemble", lotka_volterra_ensemble,
                  (rng.uniform(5, 15, m), rng.uniform(2, 8, m), 1.1, 0.4, 0.4, 0.1, 0.01, 400)))
    m = 100_000
    progs.append(("bouncing_balls", bouncing_balls,
                  (rng.uniform(1.0, 10.0, m).astype(f32), rng.standard_normal(m, dtype=f32),
                   9.81, 0.8, 0.005, 300)))
    m = 20_000
    progs.append(("ornstein_uhlenbeck_paths", ornstein_uhlenbeck_paths,
                  (rng.standard_normal(m), rng.standard_normal((200, m)), 1.5, 0.5, 0.3, 0.01)))
    m = 50_000
    progs.append(("thermostat_hysteresis", thermostat_hysteresis,
                  (rng.uniform(15, 25, m).astype(f32), rng.uniform(-5, 10, m).astype(f32),
                   21.0, 0.5, 2.0, 0.1, 0.05, 400)))
    m = 20_000
    progs.append(("kuramoto_oscillators", kuramoto_oscillators,
                  (rng.uniform(0, 2 * np.pi, m), rng.normal(0.0, 0.5, m), 1.5, 0.05, 300)))

    # --- mid-size programs --------------------------------------------------
    vals = rng.standard_normal(20_000)
    vals[rng.integers(0, vals.size, 200)] += rng.uniform(-50, 50, 200)
    progs.append(("robust_zscore_filter", robust_zscore_filter, (vals, 3.5)))
    xb = rng.uniform(0, 10, 50_000)
    progs.append(("binned_means_digitize", binned_means_digitize,
                  (xb, np.sin(xb) + 0.3 * rng.standard_normal(xb.size), 40, 0.0, 10.0)))
    progs.append(("max_drawdown_from_returns", max_drawdown_from_returns,
                  (rng.normal(0.0003, 0.01, 10_000),)))
    progs.append(("kmeans_assign_update", kmeans_assign_update,
                  (rng.standard_normal((4000, 3)), rng.standard_normal((64, 3)))))
    progs.append(("softmax_row_entropy", softmax_row_entropy,
                  (rng.standard_normal((512, 1024), dtype=f32) * 3,)))
    progs.append(("layer_norm_rows", layer_norm_rows,
                  (rng.standard_normal((512, 1024), dtype=f32) * 2 + 0.5,
                   (1.0 + 0.1 * rng.standard_normal(1024)).astype(f32),
                   (0.1 * rng.standard_normal(1024)).astype(f32), 1e-5)))
    targets = rng.integers(0, 512, 1024)
    scores = rng.standard_normal((1024, 512)) * 2
    scores[np.arange(1024), targets] += 6.0
    progs.append(("cross_entropy_from_scores", cross_entropy_from_scores,
                  (scores, targets, 0.7)))
    B = rng.standard_normal((600, 600))
    progs.append(("power_iteration_dominant_eig", power_iteration_dominant_eig,
                  ((B + B.T) / 2 + 30.0 * np.eye(600), rng.standard_normal(600), 60)))
    xs = rng.standard_normal(20_000)
    progs.append(("spearman_vs_pearson", spearman_vs_pearson,
                  (xs, xs ** 3 + rng.standard_normal(xs.size))))
    progs.append(("moving_average_crossover", moving_average_crossover,
                  (100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, 20_000))), 20, 100)))
    progs.append(("percentile_equalize", percentile_equalize,
                  (rng.gamma(2.0, 1.0, (256, 256)).astype(f32), 1.0, 99.0, 256)))
    progs.append(("weighted_median_and_spread", weighted_median_and_spread,
                  (rng.standard_normal(30_000), rng.uniform(0.1, 2.0, 30_000))))
    tt = np.linspace(0, 100, 50_000)
    sig = (np.sin(2 * np.pi * 0.5 * tt) + 0.5 * np.sin(2 * np.pi * 1.7 * tt)
           + 0.2 * rng.standard_normal(tt.size))
    progs.append(("detect_peaks", detect_peaks, (sig, 0.8, 50)))
    grp = rng.integers(0, 100, 50_000)
    progs.append(("group_standardise", group_standardise,
                  (grp, rng.normal(grp * 0.1, 1.0), 100)))

    # --- small-array and integer programs ------------------------------------
    progs.append(("collatz_stopping_times", collatz_stopping_times,
                  (rng.integers(1, 10_000, 2000),)))
    progs.append(("game_of_life", game_of_life,
                  ((rng.random((64, 64)) < 0.3).astype(np.uint8), 100)))
    progs.append(("elementary_automaton", elementary_automaton,
                  (rng.integers(0, 2, 257).astype(np.uint8), 30, 200)))
    progs.append(("jacobi_plate_temperature", jacobi_plate_temperature,
                  (rng.random((64, 64)), 100.0, 500)))
    progs.append(("digit_sum_histogram", digit_sum_histogram,
                  (rng.integers(0, 1_000_000, 10_000), 10)))
    progs.append(("popcount_and_parity", popcount_and_parity,
                  (rng.integers(0, 2 ** 32, 4096, dtype=np.uint32),)))
    progs.append(("unique_counts_mode", unique_counts_mode, (rng.zipf(1.5, 3000) % 1000,)))
    progs.append(("vectorized_gcd_lcm", vectorized_gcd_lcm,
                  (rng.integers(1, 100_000, 2000), rng.integers(1, 100_000, 2000))))
    progs.append(("stratified_pi_estimate", stratified_pi_estimate,
                  (rng.random(10_000), rng.random(10_000), 10)))
    progs.append(("sieve_prime_gaps", sieve_prime_gaps, (50_000,)))
    progs.append(("murmur_mix_bucket_chi2", murmur_mix_bucket_chi2,
                  (rng.integers(0, 2 ** 62, 8192, dtype=np.uint64), 6)))
    pile = rng.integers(0, 4, (31, 31))
    pile[15, 15] += 1500
    progs.append(("abelian_sandpile", abelian_sandpile, (pile, 10_000)))
    progs.append(("modular_power_fermat", modular_power_fermat,
                  (rng.integers(2, 1_000_000, 3000), rng.integers(0, 10 ** 9, 3000), 1_000_003)))
    runs = np.repeat(rng.integers(0, 4, 2000), rng.integers(1, 8, 2000))[:5000]
    progs.append(("run_length_stats", run_length_stats, (runs, 4)))

    return progs


progs = _make_args()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    names = set()
    for name, fn, args in progs:
        assert name not in names, name
        names.add(name)
        res = fn(*args)
        assert res is not None
        print(name)
    print("count:", len(progs))
