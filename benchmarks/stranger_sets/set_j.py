"""Corpus J: programs structured the way software engineers write NumPy code.

Thirty-six plain functions written with the everyday structure of
application code rather than one-line array expressions:

* module-level helpers that return tuples (``mu, sd = _stats(x)``) and are
  shared by several programs (``_normalise``, ``_sigmoid``, ``_kmeans_step``,
  ``_jacobi_sweep``, ...), keyword arguments with defaults, early returns and
  ``if x.ndim == 1:`` style shape checks;
* Python lists of arrays built in loops with ``out.append(...)`` or list
  comprehensions, then combined with np.stack / np.concatenate / np.vstack /
  ``sum(list)`` or walked with ``for d in details:``; lists of floats turned
  into arrays at the end;
* iterative algorithms with Python loops: while-loops with convergence tests
  on floats, Jacobi and red-black Gauss-Seidel sweeps written with slices,
  Newton and fixed-point iterations on arrays, bisection with np.where, power
  iteration, conjugate gradients, k-means, EM, IRLS, gradient-descent
  logistic regression and exponential / Holt smoothing;
* parameter sweeps over small lists (bandwidths, windows, thresholds,
  polynomial degrees) that produce tables of results;
* elementwise chains (exp, log, log1p, sqrt, tanh, sin/cos, arctan2, clip,
  where, abs, maximum) plus reductions with axes and keepdims, cumsum,
  matmul and dot;
* float32 (about 40%) and float64, plus a few int32 / int64 programs.

Roughly a third of the programs use about 10_000 elements, a third 100_000 to
1_000_000 elements, and a third 1 to 8 million elements.
"""

import math

import numpy as np


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def _stats(x):
    """Mean and standard deviation as Python floats."""
    mu = float(np.mean(x))
    sd = float(np.std(x))
    return mu, sd


def _normalise(x, axis=0, eps=1e-6):
    """Standardise along an axis (or globally with axis=None)."""
    mu = x.mean(axis=axis, keepdims=True)
    sd = x.std(axis=axis, keepdims=True)
    return (x - mu) / (sd + eps)


def _layer_norm(h, eps=1e-5):
    """Per-row normalisation used between dense layers."""
    mu = h.mean(axis=-1, keepdims=True)
    var = h.var(axis=-1, keepdims=True)
    return (h - mu) / np.sqrt(var + eps)


def _sigmoid(z):
    """Overflow-free logistic function written with tanh."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _logistic_loss(z, y):
    """Mean binary cross-entropy from logits, stable for large |z|."""
    return float(np.mean(np.maximum(z, 0.0) - y * z
                         + np.log1p(np.exp(-np.abs(z)))))


def _sq_dists(points, centers):
    """Squared distances (n, k), accumulated one coordinate at a time."""
    d = np.zeros((points.shape[0], centers.shape[0]), dtype=points.dtype)
    for j in range(points.shape[1]):
        diff = points[:, j:j + 1] - centers[:, j]
        d += diff * diff
    return d


def _kmeans_step(points, centers):
    """One Lloyd step; empty clusters keep their old centre."""
    d = _sq_dists(points, centers)
    labels = np.argmin(d, axis=1)
    k = centers.shape[0]
    counts = np.bincount(labels, minlength=k)
    sums = np.stack([np.bincount(labels, weights=points[:, j], minlength=k)
                     for j in range(points.shape[1])], axis=1)
    means = sums / np.maximum(counts, 1)[:, None]
    new_centers = np.where(counts[:, None] > 0, means, centers)
    return new_centers.astype(centers.dtype), labels, d


def _jacobi_sweep(u, rhs):
    """One Jacobi sweep for the 5-point Poisson stencil; returns (u, max change)."""
    new = u.copy()
    new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1]
                              + u[1:-1, :-2] + u[1:-1, 2:]
                              + rhs[1:-1, 1:-1])
    err = float(np.max(np.abs(new - u)))
    return new, err


def _moving_average(x, window):
    """Centred ('valid') moving average from a padded cumulative sum."""
    c = np.cumsum(np.concatenate(([0.0], x)))
    return (c[window:] - c[:-window]) / window


def _max_drawdown(r):
    """Maximum drawdown of a return series and the index where it occurs."""
    wealth = np.exp(np.cumsum(np.log1p(r)))
    peak = np.maximum.accumulate(wealth)
    dd = 1.0 - wealth / peak
    i = int(np.argmax(dd))
    return float(dd[i]), i


# ---------------------------------------------------------------------------
# Small inputs (about 10_000 elements)
# ---------------------------------------------------------------------------


def jacobi_poisson_small(f, h, tol=1e-8, max_iter=150):
    """Jacobi iteration for -lap(u) = f with a float convergence test."""
    u = np.zeros_like(f)
    rhs = (h * h) * f
    err = math.inf
    it = 0
    while err > tol and it < max_iter:
        u, err = _jacobi_sweep(u, rhs)
        it += 1
    return u, it


def kmeans_small(points, init_centers, n_steps=10, tol=1e-6):
    """A few Lloyd iterations on float32 blobs with an early exit."""
    centers = init_centers.copy()
    d = None
    for _ in range(n_steps):
        new_centers, labels, d = _kmeans_step(points, centers)
        shift = float(np.max(np.abs(new_centers - centers)))
        centers = new_centers
        if shift < tol:
            break
    d = _sq_dists(points, centers)
    inertia = float(np.sum(np.min(d, axis=1), dtype=np.float64))
    return centers, inertia


def newton_cube_root(a, tol=1e-5, max_iter=60):
    """Vectorised Newton iteration for a**(1/3) in float32."""
    x = 1.0 + a / np.float32(3.0)
    it = 0
    step = math.inf
    while step > tol and it < max_iter:
        x_new = (np.float32(2.0) * x + a / (x * x)) / np.float32(3.0)
        step = float(np.max(np.abs(x_new - x) / x_new))
        x = x_new
        it += 1
    resid = np.abs(x * x * x - a) / a
    return x, float(resid.max())


def bisection_lambert_w(y, tol=1e-10, max_iter=100):
    """Solve w * exp(w) = y for y >= 0 by array bisection with np.where."""
    lo = np.zeros_like(y)
    hi = np.log1p(y) + 0.1
    it = 0
    while float(np.max(hi - lo)) > tol and it < max_iter:
        mid = 0.5 * (lo + hi)
        below = mid * np.exp(mid) < y
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        it += 1
    return 0.5 * (lo + hi)


def power_iteration(A, tol=1e-12, max_iter=500):
    """Dominant eigenpair of a symmetric matrix by repeated mat-vec products."""
    n = A.shape[0]
    v = np.ones(n) / math.sqrt(n)
    lam_old = 0.0
    lam = 0.0
    for _ in range(max_iter):
        w = A @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
        if abs(lam - lam_old) < tol * abs(lam):
            break
        lam_old = lam
    k = int(np.argmax(np.abs(v)))
    if v[k] < 0:
        v = -v
    resid = float(np.linalg.norm(A @ v - lam * v))
    return lam, v, resid


def exp_smoothing_table(series, alphas):
    """One-step-ahead MSE of simple exponential smoothing for several alphas."""
    table = []
    for alpha in alphas:
        a = np.float32(alpha)
        level = series[0].copy()
        errs = []
        for t in range(1, series.shape[0]):
            err = series[t] - level
            errs.append(np.mean(err * err))
            level = level + a * err
        table.append(np.array(errs).mean())
    table = np.array(table, dtype=np.float32)
    best = float(alphas[int(np.argmin(table))])
    return table, best


def logistic_regression_gd(X, y, lr=0.5, tol=1e-5, max_iter=300):
    """Batch gradient descent for logistic regression with a gradient-norm stop."""
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    gnorm = math.inf
    it = 0
    while gnorm > tol and it < max_iter:
        z = X @ w + b
        r = _sigmoid(z) - y
        gw = X.T @ r / n
        gb = float(r.mean())
        w = w - lr * gw
        b = b - lr * gb
        gnorm = math.sqrt(float(gw @ gw) + gb * gb)
        it += 1
    loss = _logistic_loss(X @ w + b, y)
    return w, b, loss


def zscore_outlier_table(counts, thresholds=(1.5, 2.0, 2.5, 3.0, 3.5, 4.0)):
    """Outlier counts and excess totals of int32 event counts per z threshold."""
    x = counts.astype(np.float64)
    mu, sd = _stats(x)
    if sd == 0.0:
        return np.zeros((len(thresholds), 2), dtype=np.int64)
    z = np.abs(x - mu) / sd
    rows = []
    for t in thresholds:
        mask = z > t
        n_out = int(np.count_nonzero(mask))
        total = int(counts[mask].sum()) if n_out else 0
        rows.append([n_out, total])
    return np.array(rows, dtype=np.int64)


def _gs_colour_update(u, rhs, i0, j0):
    n, m = u.shape
    ci, cj = slice(i0, n - 1, 2), slice(j0, m - 1, 2)
    up, dn = slice(i0 - 1, n - 2, 2), slice(i0 + 1, n, 2)
    lf, rt = slice(j0 - 1, m - 2, 2), slice(j0 + 1, m, 2)
    u[ci, cj] = 0.25 * (u[up, cj] + u[dn, cj] + u[ci, lf] + u[ci, rt]
                        + rhs[ci, cj])


def red_black_gauss_seidel(f, h, n_sweeps=30):
    """Red-black Gauss-Seidel with strided slices; returns the residual history."""
    u = np.zeros_like(f)
    h2 = h * h
    rhs = h2 * f
    history = []
    for _ in range(n_sweeps):
        # red points (i + j even), then black points (i + j odd)
        _gs_colour_update(u, rhs, 1, 1)
        _gs_colour_update(u, rhs, 2, 2)
        _gs_colour_update(u, rhs, 1, 2)
        _gs_colour_update(u, rhs, 2, 1)
        lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
               - 4.0 * u[1:-1, 1:-1]) / h2
        res = f[1:-1, 1:-1] + lap
        history.append(math.sqrt(float(np.mean(res * res))))
    return u, np.array(history)


def kepler_fixed_point(M, e, tol=1e-5, max_iter=100):
    """Eccentric and true anomaly from E = M + e sin E by fixed-point iteration."""
    E = M.copy()
    err = math.inf
    it = 0
    while err > tol and it < max_iter:
        E_new = M + e * np.sin(E)
        err = float(np.max(np.abs(E_new - E)))
        E = E_new
        it += 1
    half = np.float32(0.5) * E
    nu = 2.0 * np.arctan2(np.sqrt(1.0 + e) * np.sin(half),
                          np.sqrt(1.0 - e) * np.cos(half))
    r = 1.0 - e * np.cos(E)
    return nu, r


def chunk_histograms_int64(values, n_bins=16, chunk=125):
    """Per-chunk histograms of int64 symbols via a list comprehension."""
    hists = [np.bincount(values[i:i + chunk], minlength=n_bins)
             for i in range(0, values.shape[0], chunk)]
    H = np.stack(hists)
    p = H / H.sum(axis=1, keepdims=True)
    logp = np.log(np.where(p > 0, p, 1.0))
    entropy = -np.sum(p * logp, axis=1)
    return H.sum(axis=0), entropy


def moving_average_rmse_table(x, clean, windows=(5, 11, 21, 41, 81)):
    """RMSE of centred moving averages against a clean signal per window."""
    n = x.shape[0]
    rmses = []
    for w in windows:
        avg = _moving_average(x, w)
        half = w // 2
        ref = clean[half:n - half]
        rmses.append(math.sqrt(float(np.mean((avg - ref) ** 2))))
    rmses = np.array(rmses)
    return rmses, int(windows[int(np.argmin(rmses))])


# ---------------------------------------------------------------------------
# Medium inputs (100_000 to 1_000_000 elements)
# ---------------------------------------------------------------------------


def mlp_forward_stats(x, weights, biases):
    """Dense tanh layers with layer norm, collecting per-layer statistics."""
    if x.ndim == 1:
        x = x[None, :]
    h = x
    means = []
    spreads = []
    for W, b in zip(weights, biases):
        h = np.tanh(h @ W + b)
        h = _layer_norm(h)
        means.append(h.mean(axis=0))
        spreads.append(float(np.abs(h).max()))
    return np.stack(means), np.array(spreads), h


def ridge_conjugate_gradient(X, y, lam, tol=1e-10, max_iter=100):
    """Matrix-free conjugate gradients for (X^T X + lam I) w = X^T y."""
    b = X.T @ y
    w = np.zeros(X.shape[1])
    r = b.copy()
    p = r.copy()
    rs = float(r @ r)
    bnorm = math.sqrt(float(b @ b))
    it = 0
    while math.sqrt(rs) > tol * bnorm and it < max_iter:
        Ap = X.T @ (X @ p) + lam * p
        alpha = rs / float(p @ Ap)
        w = w + alpha * p
        r = r - alpha * Ap
        rs_new = float(r @ r)
        p = r + (rs_new / rs) * p
        rs = rs_new
        it += 1
    rmse = math.sqrt(float(np.mean((X @ w - y) ** 2)))
    return w, rmse


def _bond_price_and_slope(y, coupon, n):
    vn = np.exp(-n * np.log1p(y))
    annuity = (1.0 - vn) / y
    price = coupon * annuity + vn
    dvn = -n * vn / (1.0 + y)
    slope = coupon * (-dvn / y - annuity / y) + dvn
    return price, slope


def bond_yield_newton(price, coupon, n_periods, tol=1e-12, max_iter=50):
    """Yield to maturity of many bonds by vectorised Newton iterations."""
    y = coupon.copy()
    step = math.inf
    it = 0
    while step > tol and it < max_iter:
        p, dp = _bond_price_and_slope(y, coupon, n_periods)
        delta = (p - price) / dp
        y = y - delta
        step = float(np.max(np.abs(delta)))
        it += 1
    p, dp = _bond_price_and_slope(y, coupon, n_periods)
    duration = -dp * (1.0 + y) / p
    return y, duration


def bisection_row_thresholds(x, q=0.1, n_iter=30):
    """Per-row threshold leaving a fraction q of values above it (bisection)."""
    k = int(q * x.shape[1])
    lo = x.min(axis=1, keepdims=True)
    hi = x.max(axis=1, keepdims=True)
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        above = np.sum(x > mid, axis=1, keepdims=True)
        too_low = above > k
        lo = np.where(too_low, mid, lo)
        hi = np.where(too_low, hi, mid)
    thr = hi[:, 0]
    kept = np.where(x > hi, x, np.float32(0.0))
    return thr, kept.sum(axis=1)


def kde_bandwidth_table(train, test, bandwidths):
    """Held-out Gaussian KDE log-likelihood for several bandwidths."""
    d = test[:, None] - train[None, :]
    d2 = d * d
    rows = []
    for h in bandwidths:
        k = np.exp(-0.5 * d2 / (h * h))
        dens = k.mean(axis=1) / (h * math.sqrt(2.0 * math.pi))
        rows.append(float(np.mean(np.log(dens + 1e-300))))
    table = np.array(rows)
    best = float(bandwidths[int(np.argmax(table))])
    return table, best


def pagerank_power(adj, damping=0.85, tol=1e-10, max_iter=300):
    """PageRank by power iteration with dangling-node handling."""
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    dangling = out_deg == 0
    P = adj / np.where(dangling, 1.0, out_deg)[:, None]
    r = np.full(n, 1.0 / n)
    err = math.inf
    it = 0
    while err > tol and it < max_iter:
        dangling_mass = float(r[dangling].sum())
        r_new = damping * (r @ P + dangling_mass / n) + (1.0 - damping) / n
        err = float(np.abs(r_new - r).sum())
        r = r_new
        it += 1
    return r / r.sum()


def chunked_feature_projection(X, W, chunk=8192):
    """Standardise row blocks, project and squash, then concatenate."""
    outs = []
    for start in range(0, X.shape[0], chunk):
        block = X[start:start + chunk]
        z = _normalise(block, axis=0) @ W
        outs.append(np.tanh(z))
    Y = np.concatenate(outs)
    return Y, Y.mean(axis=0)


def inventory_simulation_int64(demand, start_stock, reorder_point, order_qty):
    """Daily (s, Q) inventory policy across stores with int64 quantities."""
    n_days, n_stores = demand.shape
    stock = np.full(n_stores, start_stock, dtype=np.int64)
    shortage = np.zeros(n_stores, dtype=np.int64)
    n_orders = np.zeros(n_stores, dtype=np.int64)
    for t in range(n_days):
        d = demand[t]
        sold = np.minimum(stock, d)
        shortage += d - sold
        stock = stock - sold
        order = np.where(stock < reorder_point, order_qty, 0)
        stock = stock + order
        n_orders += order > 0
    return stock, shortage, n_orders


def _normal_logpdf(x, mu, sd):
    z = (x - mu) / sd
    return -0.5 * z * z - math.log(sd) - 0.5 * math.log(2.0 * math.pi)


def em_gmm_1d(x, mu0, mu1, max_iter=10, tol=1e-9):
    """EM for a two-component 1-D Gaussian mixture with a log-likelihood stop."""
    w = 0.5
    _, sd = _stats(x)
    sd0 = sd1 = sd
    ll_old = -math.inf
    n = x.shape[0]
    ll = ll_old
    for _ in range(max_iter):
        l0 = math.log(w) + _normal_logpdf(x, mu0, sd0)
        l1 = math.log(1.0 - w) + _normal_logpdf(x, mu1, sd1)
        m = np.maximum(l0, l1)
        lse = m + np.log(np.exp(l0 - m) + np.exp(l1 - m))
        ll = float(lse.sum())
        r0 = np.exp(l0 - lse)
        r1 = 1.0 - r0
        n0 = float(r0.sum())
        n1 = n - n0
        w = n0 / n
        mu0 = float(r0 @ x) / n0
        mu1 = float(r1 @ x) / n1
        sd0 = math.sqrt(float(r0 @ ((x - mu0) ** 2)) / n0)
        sd1 = math.sqrt(float(r1 @ ((x - mu1) ** 2)) / n1)
        if abs(ll - ll_old) < tol * abs(ll):
            break
        ll_old = ll
    return np.array([w, mu0, sd0, 1.0 - w, mu1, sd1]), ll


def holt_linear_batch(series, alpha, beta):
    """Holt's linear trend smoothing for a batch of float32 series."""
    level = series[0].copy()
    trend = series[1] - series[0]
    forecasts = []
    for t in range(1, series.shape[0]):
        f = level + trend
        forecasts.append(f)
        new_level = alpha * series[t] + (1 - alpha) * f
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    F = np.stack(forecasts)
    mae = np.mean(np.abs(series[1:] - F), axis=0)
    return mae, level + trend


def huber_irls(X, y, delta=1.345, tol=1e-8, max_iter=30):
    """Huber regression by iteratively reweighted least squares."""
    beta = np.linalg.solve(X.T @ X, X.T @ y)
    r = y - X @ beta
    scale = float(np.median(np.abs(r - np.median(r)))) / 0.6745
    cut = delta * scale
    for _ in range(max_iter):
        r = y - X @ beta
        a = np.abs(r)
        w = np.where(a <= cut, 1.0, cut / np.maximum(a, cut))
        Xw = X * w[:, None]
        beta_new = np.linalg.solve(Xw.T @ X, Xw.T @ y)
        step = float(np.max(np.abs(beta_new - beta)))
        beta = beta_new
        if step < tol:
            break
    return beta, scale


def signal_frame_features(x, frame=1024, hop=512):
    """Frame a float32 signal with a list comprehension and compute features."""
    frames = [x[i:i + frame] for i in range(0, x.shape[0] - frame + 1, hop)]
    F = np.stack(frames)
    n = np.arange(frame, dtype=np.float32)
    win = np.float32(0.5) - np.float32(0.5) * np.cos(
        np.float32(2.0 * math.pi) * n / np.float32(frame - 1))
    Fw = F * win
    rms = np.sqrt(np.mean(Fw * Fw, axis=1))
    log_energy = np.log(rms + np.float32(1e-6))
    zcr = np.mean(np.signbit(F[:, 1:]) != np.signbit(F[:, :-1]), axis=1)
    return np.stack([rms, log_energy, zcr.astype(np.float32)], axis=1)


# ---------------------------------------------------------------------------
# Large inputs (1 to 8 million elements)
# ---------------------------------------------------------------------------


def jacobi_poisson_large(f, h, tol=1e-7, max_iter=8):
    """A handful of float32 Jacobi sweeps on a 1024 x 1024 grid."""
    u = np.zeros_like(f)
    rhs = f * np.float32(h * h)
    err = math.inf
    it = 0
    while err > tol and it < max_iter:
        u, err = _jacobi_sweep(u, rhs)
        it += 1
    return u, err


def kmeans_large(points, init_centers, n_steps=2):
    """Two Lloyd steps on float32 points; returns centres and cluster sizes."""
    centers = init_centers.copy()
    labels = None
    for _ in range(n_steps):
        centers, labels, _ = _kmeans_step(points, centers)
    sizes = np.bincount(labels, minlength=centers.shape[0])
    return centers, sizes


def logistic_regression_large(X, y, lr=1.0, n_iter=10):
    """Fixed-step gradient descent, recording the loss after every step."""
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    losses = []
    for _ in range(n_iter):
        z = X @ w + b
        losses.append(_logistic_loss(z, y))
        r = _sigmoid(z) - y
        w = w - lr * (X.T @ r) / n
        b = b - lr * float(r.mean())
    return w, b, np.array(losses)


def lambert_w_newton(y, tol=1e-12, max_iter=20):
    """Principal Lambert W for y >= 0 by Newton iterations from a log guess."""
    L = np.log1p(y)
    w = L * (1.0 - np.log1p(L) / (2.0 + L))
    step = math.inf
    it = 0
    while step > tol and it < max_iter:
        ew = np.exp(w)
        delta = (w * ew - y) / (ew * (w + 1.0))
        w = w - delta
        step = float(np.max(np.abs(delta) / (1.0 + w)))
        it += 1
    return w


def normalise_channels_stack(image, clip=3.0):
    """Normalise each channel, clip, and combine with sum() and np.stack."""
    channels = []
    for c in image:
        channels.append(np.clip(_normalise(c, axis=None), -clip, clip))
    composite = sum(channels) / len(channels)
    energy = np.array([float(np.mean(ch * ch)) for ch in channels])
    return composite, np.stack(channels).max(axis=0), energy


def gbm_asian_option(z, s0, mu, sigma, dt, strike):
    """Monte-Carlo Asian call: paths collected in a list, then np.stack."""
    drift = (mu - 0.5 * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    s = np.full(z.shape[1], s0)
    path = [s]
    for zt in z:
        s = s * np.exp(drift + vol * zt)
        path.append(s)
    P = np.stack(path)
    avg = P.mean(axis=0)
    payoff = np.maximum(avg - strike, 0.0)
    disc = math.exp(-mu * dt * z.shape[0])
    price = disc * float(payoff.mean())
    stderr = disc * float(payoff.std()) / math.sqrt(payoff.shape[0])
    return price, stderr, float(P[-1].mean())


def image_pyramid_energy(img, max_levels=6):
    """Build a 2x2-mean pyramid in a loop and measure detail energy per level."""
    levels = [img]
    cur = img
    while min(cur.shape) >= 2 and len(levels) < max_levels:
        cur = np.float32(0.25) * (cur[0::2, 0::2] + cur[1::2, 0::2]
                                  + cur[0::2, 1::2] + cur[1::2, 1::2])
        levels.append(cur)
    energies = []
    for fine, coarse in zip(levels[:-1], levels[1:]):
        up = np.repeat(np.repeat(coarse, 2, axis=0), 2, axis=1)
        detail = fine - up
        energies.append(float(np.mean(detail * detail, dtype=np.float64)))
    return np.array(energies), levels[-1]


def histogram_equalise_int32(img, n_levels=256):
    """Classic histogram equalisation through a cumulative-histogram LUT."""
    hist = np.bincount(img.ravel(), minlength=n_levels)
    cdf = np.cumsum(hist)
    cdf_min = int(cdf[cdf > 0][0])
    total = int(cdf[-1])
    if total == cdf_min:
        return img.copy(), hist
    lut = ((cdf - cdf_min) * (n_levels - 1)) // (total - cdf_min)
    lut = np.clip(lut, 0, n_levels - 1).astype(np.int32)
    out = lut[img]
    return out, np.bincount(out.ravel(), minlength=n_levels)


def particle_box_steps(pos, vel, dt, k, c, n_steps=4):
    """Damped springs in a reflecting box, recording the energy every step."""
    energies = []
    for _ in range(n_steps):
        acc = -k * pos - c * vel
        vel = vel + dt * acc
        pos = pos + dt * vel
        over = pos > 1.0
        pos = np.where(over, np.float32(2.0) - pos, pos)
        vel = np.where(over, -vel, vel)
        under = pos < -1.0
        pos = np.where(under, np.float32(-2.0) - pos, pos)
        vel = np.where(under, -vel, vel)
        ke = 0.5 * float(np.sum(vel * vel, dtype=np.float64))
        pe = 0.5 * float(k) * float(np.sum(pos * pos, dtype=np.float64))
        energies.append(ke + pe)
    return pos, vel, np.array(energies)


def polynomial_degree_table(x, y, max_degree=5):
    """Least-squares polynomial fits of increasing degree from one Gram matrix."""
    cols = [np.ones_like(x)]
    for _ in range(max_degree):
        cols.append(cols[-1] * x)
    V = np.stack(cols, axis=1)
    G = V.T @ V
    rhs = V.T @ y
    rms = []
    coef = None
    for d in range(1, max_degree + 1):
        coef = np.linalg.solve(G[:d + 1, :d + 1], rhs[:d + 1])
        resid = y - V[:, :d + 1] @ coef
        rms.append(math.sqrt(float(np.mean(resid * resid))))
    return np.array(rms), coef


def drawdown_report(returns, periods_per_year=252):
    """Per-asset max drawdown, its index and annualised volatility."""
    if returns.ndim == 1:
        returns = returns[None, :]
    details = [_max_drawdown(r) for r in returns]
    mdd = []
    where = []
    for dd, i in details:
        mdd.append(dd)
        where.append(i)
    vols = []
    for r in returns:
        _, sd = _stats(r)
        vols.append(sd * math.sqrt(periods_per_year))
    return np.array(mdd), np.array(where, dtype=np.int64), np.array(vols)


def threshold_sweep_metrics(scores, labels, thresholds):
    """Precision / recall / F1 table for a float32 classifier score sweep."""
    pos = labels == 1
    n_pos = int(np.count_nonzero(pos))
    rows = []
    for t in thresholds:
        pred = scores > t
        tp = int(np.count_nonzero(pred & pos))
        fp = int(np.count_nonzero(pred)) - tp
        precision = tp / max(tp + fp, 1)
        recall = tp / max(n_pos, 1)
        f1 = 0.0
        if precision + recall > 0:
            f1 = 2.0 * precision * recall / (precision + recall)
        rows.append([float(t), precision, recall, f1])
    return np.vstack([np.array(r) for r in rows])


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _make_args():
    rng = np.random.default_rng(20240917)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # small
    gx, gy = np.meshgrid(np.linspace(0.0, 1.0, 100), np.linspace(0.0, 1.0, 100))
    add(jacobi_poisson_small, np.sin(np.pi * gx) * np.sin(np.pi * gy) + 1.0,
        1.0 / 99)
    blob_c = np.array([[-3.0, -3.0], [3.0, -2.0], [-2.0, 3.0], [3.0, 3.0]])
    pts = (blob_c[rng.integers(0, 4, size=5000)]
           + 0.8 * rng.standard_normal((5000, 2))).astype(np.float32)
    add(kmeans_small, pts, pts[[0, 1, 2, 3]].copy() * np.float32(0.5)
        + np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]],
                   dtype=np.float32))
    add(newton_cube_root, rng.uniform(0.1, 1000.0, size=10_000).astype(np.float32))
    add(bisection_lambert_w, rng.uniform(0.0, 20.0, size=10_000))
    Q, _ = np.linalg.qr(rng.standard_normal((100, 100)))
    eig = rng.uniform(0.0, 1.0, size=100)
    eig[0] = 2.0
    add(power_iteration, (Q * eig) @ Q.T)
    base = np.cumsum(rng.standard_normal((100, 100)) * 0.1, axis=0)
    add(exp_smoothing_table,
        (base + 0.5 * rng.standard_normal((100, 100))).astype(np.float32),
        (0.1, 0.2, 0.3, 0.5, 0.7))
    Xl = rng.standard_normal((2000, 5))
    logits = Xl @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.3
    add(logistic_regression_gd, Xl,
        (rng.random(2000) < 1.0 / (1.0 + np.exp(-logits))).astype(np.float64))
    cnt = rng.poisson(40.0, size=10_000)
    cnt[rng.random(10_000) < 0.01] += rng.integers(20, 80, size=1)[0]
    add(zscore_outlier_table, cnt.astype(np.int32))
    add(red_black_gauss_seidel, np.exp(-20.0 * ((gx - 0.4) ** 2 + (gy - 0.6) ** 2)),
        1.0 / 99)
    add(kepler_fixed_point,
        rng.uniform(0.0, 2.0 * np.pi, size=10_000).astype(np.float32),
        np.float32(0.3))
    add(chunk_histograms_int64,
        np.minimum(rng.geometric(0.2, size=10_000) - 1, 15).astype(np.int64))
    t = np.linspace(0.0, 6.0 * np.pi, 10_000)
    clean = np.sin(t) + 0.3 * np.sin(5.0 * t)
    add(moving_average_rmse_table, clean + 0.3 * rng.standard_normal(10_000),
        clean)

    # medium
    add(mlp_forward_stats, rng.standard_normal((4096, 64)).astype(np.float32),
        (rng.standard_normal((4, 64, 64)) / 8.0).astype(np.float32),
        (0.1 * rng.standard_normal((4, 64))).astype(np.float32))
    Xr = rng.standard_normal((20_000, 20))
    add(ridge_conjugate_gradient, Xr,
        Xr @ rng.standard_normal(20) + 0.5 * rng.standard_normal(20_000), 10.0)
    nb = 200_000
    coupon = rng.uniform(0.02, 0.08, size=nb)
    n_per = rng.integers(2, 60, size=nb).astype(np.float64)
    y_true = rng.uniform(0.01, 0.10, size=nb)
    price, _ = _bond_price_and_slope(y_true, coupon, n_per)
    add(bond_yield_newton, price, coupon, n_per)
    add(bisection_row_thresholds, rng.standard_normal((1000, 200)).astype(np.float32))
    train = np.concatenate([rng.normal(-1.0, 0.5, 500), rng.normal(1.5, 1.0, 300)])
    test = np.concatenate([rng.normal(-1.0, 0.5, 160), rng.normal(1.5, 1.0, 90)])
    add(kde_bandwidth_table, train, test, (0.05, 0.1, 0.2, 0.3, 0.5, 0.8))
    adj = (rng.random((600, 600)) < 0.02).astype(np.float64)
    adj[rng.integers(0, 600, size=10)] = 0.0
    add(pagerank_power, adj)
    add(chunked_feature_projection,
        (rng.standard_normal((50_000, 16)) * rng.uniform(0.5, 3.0, 16)
         + rng.uniform(-2.0, 2.0, 16)).astype(np.float32),
        (rng.standard_normal((16, 8)) / 4.0).astype(np.float32))
    add(inventory_simulation_int64,
        rng.poisson(20.0, size=(365, 1000)).astype(np.int64), 100, 40, 120)
    xm = np.concatenate([rng.normal(-2.0, 1.0, 120_000), rng.normal(3.0, 1.5, 80_000)])
    add(em_gmm_1d, xm, -1.0, 1.0)
    trend = np.linspace(0.0, 5.0, 500)[:, None] * rng.uniform(0.5, 2.0, 400)
    add(holt_linear_batch,
        (10.0 + trend + 0.3 * rng.standard_normal((500, 400))).astype(np.float32),
        np.float32(0.3), np.float32(0.1))
    Xh = np.column_stack([np.ones(30_000), rng.standard_normal((30_000, 3))])
    yh = Xh @ np.array([1.0, 2.0, -1.0, 0.5]) + rng.standard_t(3, size=30_000)
    add(huber_irls, Xh, yh)
    ts = np.arange(500_000) / 16_000.0
    add(signal_frame_features,
        (np.sin(2.0 * np.pi * 440.0 * ts) * (0.5 + 0.5 * np.sin(2.0 * np.pi * ts))
         + 0.05 * rng.standard_normal(500_000)).astype(np.float32))

    # large
    lx, ly = np.meshgrid(np.linspace(0.0, 1.0, 1024), np.linspace(0.0, 1.0, 1024))
    add(jacobi_poisson_large,
        (np.sin(3.0 * np.pi * lx) * np.cos(2.0 * np.pi * ly) + 1.0).astype(np.float32),
        1.0 / 1023)
    cen3 = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 1.0], [0.0, 4.0, -1.0],
                     [4.0, 4.0, 2.0]])
    pts3 = (cen3[rng.integers(0, 4, size=400_000)]
            + rng.standard_normal((400_000, 3))).astype(np.float32)
    add(kmeans_large, pts3,
        np.array([[1.0, 1.0, 0.0], [3.0, 1.0, 0.0], [1.0, 3.0, 0.0],
                  [3.0, 3.0, 0.0]], dtype=np.float32))
    XL = rng.standard_normal((250_000, 8))
    zl = XL @ rng.standard_normal(8) * 0.7
    add(logistic_regression_large, XL,
        (rng.random(250_000) < 1.0 / (1.0 + np.exp(-zl))).astype(np.float64))
    add(lambert_w_newton, rng.uniform(0.0, 50.0, size=1_000_000))
    add(normalise_channels_stack,
        (rng.standard_normal((8, 512, 512)) * rng.uniform(0.5, 4.0, (8, 1, 1))
         + rng.uniform(-5.0, 5.0, (8, 1, 1))).astype(np.float32))
    add(gbm_asian_option, rng.standard_normal((252, 8000)), 100.0, 0.05, 0.2,
        1.0 / 252, 100.0)
    add(image_pyramid_energy, rng.random((2048, 2048), dtype=np.float32))
    add(histogram_equalise_int32,
        np.clip(rng.normal(90.0, 30.0, size=(2000, 2000)), 0, 255).astype(np.int32))
    add(particle_box_steps,
        rng.uniform(-1.0, 1.0, size=(600_000, 2)).astype(np.float32),
        rng.standard_normal((600_000, 2)).astype(np.float32),
        np.float32(0.05), np.float32(2.0), np.float32(0.1))
    xp = rng.uniform(-1.0, 1.0, size=600_000)
    add(polynomial_degree_table, xp,
        np.exp(xp) * np.cos(2.0 * xp) + 0.1 * rng.standard_normal(600_000))
    add(drawdown_report, 0.002 * rng.standard_normal((6, 250_000)) + 2e-5)
    labels = (rng.random(2_000_000) < 0.3).astype(np.int32)
    add(threshold_sweep_metrics,
        _sigmoid(1.5 * (2.0 * labels - 1.0)
                 + rng.standard_normal(2_000_000)).astype(np.float32),
        labels, np.linspace(0.1, 0.9, 9).astype(np.float32))

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
