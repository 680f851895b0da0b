"""Corpus I: programs that lean on views, slicing and axis work.

Thirty-six plain functions written the way scientists and engineers write
everyday NumPy code, with most of the work done through views and axes:

* reversed and strided views (x[::-1], x[::2], a[:, ::-1], np.flip), forward,
  backward and centred differences, symmetric sums, moving averages from
  cumulative-sum differences and np.diff;
* small stencils on 2-D images (box blurs, Laplacians, Sobel, separable
  Gaussian blurs, local maxima) written with shifted slices, some with bounds
  computed from the image shape;
* axis reductions and boolean axis work (.any / .all along an axis, argmax
  along rows, max along the last axis, mean / std with keepdims broadcasting,
  row and column normalisation, np.count_nonzero with an axis);
* masks, np.where chains, np.clip and piecewise functions;
* a few short time-stepping loops (heat, wave, diffusion, advection, total
  variation) that update arrays through slices in place or by rebinding;
* float32 and float64 mixed, plus a few int32 / int64 programs.

Roughly a third of the programs use about 10_000 elements, a third 100_000 to
1_000_000 elements, and a third 1 to 8 million elements.
"""

import math

import numpy as np


# ---------------------------------------------------------------------------
# Small inputs (about 10_000 elements)
# ---------------------------------------------------------------------------


def centred_gradient_1d(x, dx):
    """Second-order gradient: centred differences inside, one-sided at the ends."""
    g = np.empty_like(x)
    g[1:-1] = (x[2:] - x[:-2]) / (2.0 * dx)
    g[0] = (x[1] - x[0]) / dx
    g[-1] = (x[-1] - x[-2]) / dx
    return g


def moving_average_cumsum(x, window):
    """Trailing moving average computed from differences of a padded cumsum."""
    c = np.cumsum(np.concatenate(([0.0], x)))
    avg = (c[window:] - c[:-window]) / window
    resid = x[window - 1:] - avg
    return avg, float(np.abs(resid).max())


def even_odd_decomposition(x):
    """Split a signal into even and odd parts with x + x[::-1] and x - x[::-1]."""
    rev = x[::-1]
    even = 0.5 * (x + rev)
    odd = 0.5 * (x - rev)
    energy = float((x * x).sum())
    e_even = float((even * even).sum())
    e_odd = float((odd * odd).sum())
    return even, odd, e_even / energy, e_odd / energy


def heat_equation_1d(u0, alpha, steps):
    """Explicit FTCS heat equation on a rod with fixed ends, float32 state."""
    u = u0.astype(np.float32).copy()
    r = np.float32(alpha)
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u, float(u.mean())


def box_blur_3x3(img):
    """3x3 box blur of the interior with slice bounds computed from the shape."""
    h, w = img.shape
    acc = np.zeros((h - 2, w - 2), dtype=img.dtype)
    for di in range(3):
        for dj in range(3):
            acc += img[di:h - 2 + di, dj:w - 2 + dj]
    out = img.copy()
    out[1:h - 1, 1:w - 1] = acc / 9.0
    return out


def row_softmax(logits):
    """Numerically stable softmax over each row using keepdims broadcasting."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=1, keepdims=True)
    pred = np.argmax(p, axis=1)
    entropy = -(p * np.log(p + 1e-12)).sum(axis=1)
    return p, pred, float(entropy.mean())


def local_peaks_1d(x, min_height):
    """Find strict local maxima above a height with neighbour comparisons."""
    mid = x[1:-1]
    is_peak = (mid > x[:-2]) & (mid > x[2:]) & (mid > min_height)
    idx = np.nonzero(is_peak)[0] + 1
    n = int(np.count_nonzero(is_peak))
    spacing = np.diff(idx)
    mean_spacing = float(spacing.mean()) if spacing.size else 0.0
    return idx, n, mean_spacing


def cumulative_trapezoid(y, x):
    """Cumulative trapezoidal integral using neighbour sums and np.diff."""
    seg = 0.5 * (y[1:] + y[:-1]) * np.diff(x)
    out = np.zeros_like(y)
    out[1:] = np.cumsum(seg)
    return out, float(out[-1])


def wave_equation_leapfrog(u0, c, steps):
    """Leapfrog string vibration with rebinding of the previous/current states."""
    courant2 = c * c
    prev = u0.copy()
    cur = u0.copy()
    cur[1:-1] = u0[1:-1] + 0.5 * courant2 * (u0[2:] - 2.0 * u0[1:-1] + u0[:-2])
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = (2.0 * cur[1:-1] - prev[1:-1]
                     + courant2 * (cur[2:] - 2.0 * cur[1:-1] + cur[:-2]))
        prev, cur = cur, nxt
    energy = float((cur * cur).sum())
    return cur, energy


def haar_wavelet_levels(x, levels):
    """Multi-level Haar transform using even/odd strided views x[::2], x[1::2]."""
    approx = x.astype(np.float64)
    details = []
    s = 1.0 / math.sqrt(2.0)
    for _ in range(levels):
        a = approx[::2]
        b = approx[1::2]
        details.append((a - b) * s)
        approx = (a + b) * s
    energies = np.array([float((d * d).sum()) for d in details])
    return approx, energies


def zero_crossing_counts_int32(sig, block):
    """Count sign changes of an int32 signal per block of samples."""
    s = np.sign(sig)
    change = (s[1:] != s[:-1]) & (s[1:] != 0)
    n = (change.size // block) * block
    per_block = np.count_nonzero(change[:n].reshape(-1, block), axis=1)
    jumps = np.abs(np.diff(sig.astype(np.int64)))
    return per_block, int(jumps.max()), float(per_block.mean())


def column_zscore_outliers(data, limit):
    """Column z-scores with keepdims, clip them, and flag rows with any outlier."""
    mu = data.mean(axis=0, keepdims=True)
    sd = data.std(axis=0, keepdims=True)
    z = (data - mu) / sd
    bad_rows = (np.abs(z) > limit).any(axis=1)
    clean_cols = ~(np.abs(z) > limit).any(axis=0)
    zc = np.clip(z, -limit, limit)
    return zc, bad_rows, clean_cols, int(np.count_nonzero(bad_rows))


# ---------------------------------------------------------------------------
# Medium inputs (100_000 to 1_000_000 elements)
# ---------------------------------------------------------------------------


def laplacian_5point(img):
    """Five-point Laplacian of a float32 image, interior only, zero border."""
    lap = np.zeros_like(img)
    lap[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1]
                       + img[1:-1, :-2] + img[1:-1, 2:]
                       - 4.0 * img[1:-1, 1:-1])
    return lap, float(np.abs(lap).sum())


def sobel_edges(img, thresh):
    """Sobel gradient magnitude and orientation with slice-based 3x3 kernels."""
    h, w = img.shape
    tl = img[0:h - 2, 0:w - 2]
    tc = img[0:h - 2, 1:w - 1]
    tr = img[0:h - 2, 2:w]
    ml = img[1:h - 1, 0:w - 2]
    mr = img[1:h - 1, 2:w]
    bl = img[2:h, 0:w - 2]
    bc = img[2:h, 1:w - 1]
    br = img[2:h, 2:w]
    gx = (tr + 2.0 * mr + br) - (tl + 2.0 * ml + bl)
    gy = (bl + 2.0 * bc + br) - (tl + 2.0 * tc + tr)
    mag = np.hypot(gx, gy)
    theta = np.arctan2(gy, gx)
    edges = mag > thresh
    return mag, theta, edges, int(np.count_nonzero(edges))


def diffusion_2d_neumann(u0, d, steps):
    """Explicit 2-D diffusion in float32 with zero-flux edges copied each step."""
    u = u0.astype(np.float32)
    for _ in range(steps):
        u[1:-1, 1:-1] += d * (u[:-2, 1:-1] + u[2:, 1:-1]
                              + u[1:-1, :-2] + u[1:-1, 2:]
                              - 4.0 * u[1:-1, 1:-1])
        u[0, :] = u[1, :]
        u[-1, :] = u[-2, :]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
    return u, float(u.sum()), float(u.max())


def piecewise_tariff(kwh):
    """Tiered electricity tariff as a chain of np.where over consumption bands."""
    t1, t2, t3 = 100.0, 300.0, 800.0
    p1, p2, p3, p4 = 0.10, 0.15, 0.22, 0.30
    cost = np.where(
        kwh <= t1, kwh * p1,
        np.where(kwh <= t2, t1 * p1 + (kwh - t1) * p2,
                 np.where(kwh <= t3,
                          t1 * p1 + (t2 - t1) * p2 + (kwh - t2) * p3,
                          t1 * p1 + (t2 - t1) * p2 + (t3 - t2) * p3
                          + (kwh - t3) * p4)))
    cost = np.where(kwh < 0.0, 0.0, cost)
    return cost, float(cost.sum()), float(cost.mean())


def classifier_confusion(scores, labels, n_classes):
    """Argmax predictions along rows and a confusion matrix from boolean masks."""
    pred = np.argmax(scores, axis=1)
    top = scores.max(axis=-1)
    classes = np.arange(n_classes)
    true_oh = labels[:, None] == classes[None, :]
    pred_oh = pred[:, None] == classes[None, :]
    conf = np.zeros((n_classes, n_classes), dtype=np.int64)
    for k in range(n_classes):
        conf[k] = np.count_nonzero(pred_oh[true_oh[:, k]], axis=0)
    acc = float(np.trace(conf)) / labels.size
    return conf, acc, float(top.mean())


def flip_augment_mean(img):
    """Average an RGB image with its horizontal, vertical and 180-degree flips."""
    h_flip = img[:, ::-1, :]
    v_flip = np.flip(img, axis=0)
    r180 = img[::-1, ::-1]
    avg = (img + h_flip + v_flip + r180) * 0.25
    lr_asym = float(np.abs(img - h_flip).mean())
    ud_asym = float(np.abs(img - v_flip).mean())
    chan_means = avg.mean(axis=(0, 1))
    return avg, chan_means, lr_asym, ud_asym


def minmax_normalise_columns(table):
    """Scale each float32 column to [0, 1]; constant columns become zero."""
    lo = table.min(axis=0, keepdims=True)
    hi = table.max(axis=0, keepdims=True)
    rng = hi - lo
    safe = np.where(rng > 0, rng, np.float32(1.0))
    out = (table - lo) / safe
    out = np.where(rng > 0, out, np.float32(0.0))
    return out, out.mean(axis=0), out.std(axis=0)


def surface_curvature(z, dx, dy):
    """Second differences of a height field along both axes with np.diff(n=2)."""
    zxx = np.diff(z, n=2, axis=1) / (dx * dx)
    zyy = np.diff(z, n=2, axis=0) / (dy * dy)
    lap = zxx[1:-1, :] + zyy[:, 1:-1]
    convex = lap > 0
    frac_convex_rows = convex.mean(axis=1)
    return lap, frac_convex_rows, float(lap.mean()), float(lap.std())


def counter_rollover_rates(counts, dt, modulus):
    """Rates from an int64 counter that wraps at a modulus, fixing negative steps."""
    d = np.diff(counts)
    d = np.where(d < 0, d + modulus, d)
    rate = d / dt
    n_wraps = int(np.count_nonzero(counts[1:] < counts[:-1]))
    total = int(d.sum())
    return rate, n_wraps, total


def valid_row_means(obs):
    """Drop rows with any non-finite entry and average the rest column-wise."""
    good = np.isfinite(obs).all(axis=1)
    kept = obs[good]
    col_mean = kept.mean(axis=0)
    col_std = kept.std(axis=0)
    bad_per_col = np.count_nonzero(~np.isfinite(obs), axis=0)
    return col_mean, col_std, bad_per_col, int(good.sum())


def reward_to_go(rewards):
    """Reverse cumulative sums along time via rewards[:, ::-1], then normalise."""
    rtg = rewards[:, ::-1].cumsum(axis=1)[:, ::-1]
    mu = rtg.mean(axis=1, keepdims=True)
    sd = rtg.std(axis=1, keepdims=True) + 1e-8
    adv = (rtg - mu) / sd
    best_step = np.argmax(rtg, axis=1)
    return adv, best_step, float(rtg[:, 0].mean())


def bilinear_upsample_2x(img):
    """Upsample to (2h-1, 2w-1) by filling strided sub-grids with neighbour means."""
    h, w = img.shape
    out = np.empty((2 * h - 1, 2 * w - 1), dtype=img.dtype)
    out[::2, ::2] = img
    out[1::2, ::2] = 0.5 * (img[:-1, :] + img[1:, :])
    out[::2, 1::2] = 0.5 * (img[:, :-1] + img[:, 1:])
    out[1::2, 1::2] = 0.25 * (img[:-1, :-1] + img[1:, :-1]
                              + img[:-1, 1:] + img[1:, 1:])
    return out


# ---------------------------------------------------------------------------
# Large inputs (1 to 8 million elements)
# ---------------------------------------------------------------------------


def gaussian_blur_separable(img):
    """Separable 5-tap binomial blur of a float32 image, rows then columns."""
    k0, k1, k2 = 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0
    tmp = img.copy()
    tmp[2:-2, :] = (k2 * (img[:-4, :] + img[4:, :])
                    + k1 * (img[1:-3, :] + img[3:-1, :])
                    + k0 * img[2:-2, :])
    out = tmp.copy()
    out[:, 2:-2] = (k2 * (tmp[:, :-4] + tmp[:, 4:])
                    + k1 * (tmp[:, 1:-3] + tmp[:, 3:-1])
                    + k0 * tmp[:, 2:-2])
    return out


def unsharp_mask(img, amount):
    """Sharpen with image + amount * (image - 3x3 blur), clipped to [0, 1]."""
    h, w = img.shape
    blur = img.copy()
    blur[1:h - 1, 1:w - 1] = (
        img[0:h - 2, 0:w - 2] + img[0:h - 2, 1:w - 1] + img[0:h - 2, 2:w]
        + img[1:h - 1, 0:w - 2] + img[1:h - 1, 1:w - 1] + img[1:h - 1, 2:w]
        + img[2:h, 0:w - 2] + img[2:h, 1:w - 1] + img[2:h, 2:w]) / 9.0
    sharp = np.clip(img + amount * (img - blur), 0.0, 1.0)
    clipped = int(np.count_nonzero((sharp == 0.0) | (sharp == 1.0)))
    return sharp, clipped


def particle_speed_stats(vel, mass):
    """Per-particle speeds along the last axis, kinetic energy and the fastest one."""
    speed = np.sqrt((vel * vel).sum(axis=-1))
    ke = 0.5 * mass * speed * speed
    fastest = int(np.argmax(speed))
    max_comp = np.abs(vel).max(axis=-1)
    moving_all = (np.abs(vel) > 0.1).all(axis=1)
    return (float(ke.sum()), fastest, float(max_comp.mean()),
            int(np.count_nonzero(moving_all)))


def tv_denoise_steps(img, lam, tau, steps):
    """Gradient steps on a smoothed total-variation energy with forward differences."""
    u = img.copy()
    eps = np.float32(1e-3)
    for _ in range(steps):
        gx = np.zeros_like(u)
        gy = np.zeros_like(u)
        gx[:, :-1] = u[:, 1:] - u[:, :-1]
        gy[:-1, :] = u[1:, :] - u[:-1, :]
        norm = np.sqrt(gx * gx + gy * gy + eps * eps)
        px = gx / norm
        py = gy / norm
        div = px.copy()
        div[:, 1:] -= px[:, :-1]
        div += py
        div[1:, :] -= py[:-1, :]
        u = u - tau * ((u - img) - lam * div)
    return u, float(np.abs(u - img).mean())


def pooling_pyramid(img):
    """2x2 mean and max pooling via reshape-and-axis, compared with strided picks."""
    h, w = img.shape
    blocks = img[:h // 2 * 2, :w // 2 * 2].reshape(h // 2, 2, w // 2, 2)
    mean_pool = blocks.mean(axis=(1, 3))
    max_pool = blocks.max(axis=(1, 3))
    picked = img[::2, ::2][:h // 2, :w // 2]
    alias_err = float(np.abs(picked - mean_pool).mean())
    return mean_pool, max_pool, alias_err


def rolling_mean_var(x, window):
    """Rolling mean and variance from cumsum differences of x and x**2."""
    c1 = np.concatenate(([0.0], np.cumsum(x)))
    c2 = np.concatenate(([0.0], np.cumsum(x * x)))
    s1 = c1[window:] - c1[:-window]
    s2 = c2[window:] - c2[:-window]
    mean = s1 / window
    var = np.maximum(s2 / window - mean * mean, 0.0)
    return mean, var, float(var.max())


def band_index_masks(bands):
    """NDVI and water index from a (bands, h, w) stack, with masks along axis 0."""
    blue, red, nir = bands[0], bands[1], bands[2]
    ndvi = (nir - red) / (nir + red)
    ndwi = (blue - nir) / (blue + nir)
    veg = ndvi > 0.3
    water = ndwi > 0.2
    bright = (bands > 0.8).all(axis=0)
    saturated_any = (bands >= 0.99).any(axis=0)
    n_bright_bands = np.count_nonzero(bands > 0.5, axis=0)
    label = np.where(water, 2, np.where(veg, 1, 0))
    label = np.where(bright, 3, label)
    return (label, n_bright_bands, int(saturated_any.sum()),
            float(ndvi.mean()))


def dem_local_maxima_int32(dem):
    """Cells of an int32 elevation grid higher than all eight neighbours."""
    h, w = dem.shape
    c = dem[1:h - 1, 1:w - 1]
    peak = np.ones(c.shape, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di == 0 and dj == 0:
                continue
            peak &= c > dem[1 + di:h - 1 + di, 1 + dj:w - 1 + dj]
    rows_with_peak = peak.any(axis=1)
    slope_x = np.abs(np.diff(dem, axis=1)).max()
    slope_y = np.abs(np.diff(dem, axis=0)).max()
    return (int(np.count_nonzero(peak)), int(rows_with_peak.sum()),
            int(slope_x), int(slope_y))


def spectra_peak_features(spectra, wavelengths):
    """Per-spectrum peak bin, peak height, centroid and width above half maximum."""
    peak_bin = np.argmax(spectra, axis=1)
    peak_val = spectra.max(axis=-1)
    weights = spectra / spectra.sum(axis=1, keepdims=True)
    centroid = (weights * wavelengths[None, :]).sum(axis=1)
    above = spectra >= 0.5 * peak_val[:, None]
    width = np.count_nonzero(above, axis=1)
    return peak_bin, peak_val, centroid, width


def upwind_advection_periodic(u0, c, steps):
    """First-order upwind advection on a periodic grid using slices for the wrap."""
    u = u0.copy()
    for _ in range(steps):
        du = np.empty_like(u)
        du[1:] = u[1:] - u[:-1]
        du[0] = u[0] - u[-1]
        u = u - c * du
    mass_err = abs(float(u.sum()) - float(u0.sum()))
    return u, mass_err, float(u.max())


def matrix_symmetry_parts(mats):
    """Symmetric/antisymmetric split of a batch of matrices via transposed views."""
    mt = mats.transpose(0, 2, 1)
    sym = 0.5 * (mats + mt)
    skew = 0.5 * (mats - mt)
    trace = np.diagonal(mats, axis1=1, axis2=2).sum(axis=-1)
    sym_norm = np.sqrt((sym * sym).sum(axis=(1, 2)))
    skew_norm = np.sqrt((skew * skew).sum(axis=(1, 2)))
    ratio = skew_norm / sym_norm
    return trace, ratio, float(ratio.max())


def actuator_response(cmd, deadzone, limit):
    """Deadzone, saturation and rate limiting of a float32 actuator command."""
    out = np.where(np.abs(cmd) < deadzone, np.float32(0.0),
                   cmd - np.sign(cmd) * deadzone)
    out = np.clip(out, -limit, limit)
    rate = np.diff(out)
    slew = np.clip(rate, -0.05, 0.05)
    smooth = np.empty_like(out)
    smooth[0] = out[0]
    smooth[1:] = out[0] + np.cumsum(slew)
    sat_frac = float(np.count_nonzero(np.abs(out) >= limit)) / out.size
    return smooth, sat_frac, float(np.abs(out - smooth).max())


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _make_args():
    rng = np.random.default_rng(20240905)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # small
    t = np.linspace(0.0, 4.0 * np.pi, 10_000)
    add(centred_gradient_1d, np.sin(t) + 0.01 * rng.standard_normal(10_000),
        float(t[1] - t[0]))
    add(moving_average_cumsum, rng.standard_normal(10_000).cumsum(), 50)
    add(even_odd_decomposition,
        np.exp(-np.linspace(-3.0, 3.0, 10_000) ** 2)
        + 0.3 * np.linspace(-1.0, 1.0, 10_000))
    add(heat_equation_1d,
        (rng.random(10_000) < 0.1).astype(np.float32) * 100.0, 0.4, 150)
    add(box_blur_3x3, rng.random((100, 100)))
    add(row_softmax, rng.standard_normal((100, 100)) * 3.0)
    add(local_peaks_1d,
        np.sin(np.linspace(0.0, 60.0, 10_000))
        + 0.2 * rng.standard_normal(10_000), 0.8)
    xs = np.sort(rng.random(10_000)) * 10.0
    add(cumulative_trapezoid, np.exp(-xs) * np.cos(3.0 * xs), xs)
    add(wave_equation_leapfrog,
        np.exp(-((np.linspace(0.0, 1.0, 10_000) - 0.3) / 0.01) ** 2), 0.9, 150)
    add(haar_wavelet_levels, rng.standard_normal(8192).cumsum(), 10)
    add(zero_crossing_counts_int32,
        rng.integers(-1000, 1000, size=10_000, dtype=np.int32), 100)
    add(column_zscore_outliers, rng.standard_normal((1000, 10)) * 5.0 + 20.0,
        3.0)

    # medium
    add(laplacian_5point, rng.random((512, 512), dtype=np.float32))
    add(sobel_edges, rng.random((400, 400)), 2.0)
    u2 = np.zeros((256, 256), dtype=np.float32)
    u2[100:156, 100:156] = 1.0
    add(diffusion_2d_neumann, u2, 0.2, 40)
    add(piecewise_tariff, rng.gamma(2.0, 200.0, size=500_000) - 5.0)
    add(classifier_confusion, rng.standard_normal((100_000, 10)),
        rng.integers(0, 10, size=100_000), 10)
    add(flip_augment_mean, rng.random((256, 256, 3), dtype=np.float32))
    tab = rng.standard_normal((200_000, 4)).astype(np.float32)
    tab[:, 3] = 7.0
    add(minmax_normalise_columns, tab)
    gx, gy = np.meshgrid(np.linspace(-2, 2, 500), np.linspace(-2, 2, 500))
    add(surface_curvature, np.sin(gx * 2.0) * np.cos(gy * 3.0) + 0.1 * gx * gy,
        4.0 / 499, 4.0 / 499)
    mod = 1 << 32
    add(counter_rollover_rates,
        np.cumsum(rng.integers(0, 50_000, size=300_000, dtype=np.int64))
        % mod, 0.5, mod)
    obs = rng.standard_normal((300_000, 3))
    obs[rng.random((300_000, 3)) < 0.01] = np.nan
    obs[rng.random((300_000, 3)) < 0.002] = np.inf
    add(valid_row_means, obs)
    add(reward_to_go, rng.random((1000, 200)) - 0.4)
    add(bilinear_upsample_2x, rng.random((300, 300)))

    # large
    add(gaussian_blur_separable, rng.random((2048, 1024), dtype=np.float32))
    add(unsharp_mask, rng.random((1500, 1500)), 1.5)
    add(particle_speed_stats, rng.standard_normal((1_000_000, 3)), 2.5)
    add(tv_denoise_steps,
        (np.kron(rng.random((32, 32)), np.ones((32, 32)))
         + 0.1 * rng.standard_normal((1024, 1024))).astype(np.float32),
        0.2, 0.1, 5)
    add(pooling_pyramid, rng.random((2048, 2048), dtype=np.float32))
    add(rolling_mean_var, rng.standard_normal(2_000_000), 100)
    add(band_index_masks, rng.uniform(0.01, 1.0, size=(3, 1024, 1024)))
    add(dem_local_maxima_int32,
        rng.integers(0, 3000, size=(1200, 1200), dtype=np.int32))
    add(spectra_peak_features,
        rng.random((20_000, 200), dtype=np.float32),
        np.linspace(400.0, 700.0, 200))
    add(upwind_advection_periodic,
        np.exp(-((np.linspace(0.0, 1.0, 1_000_000) - 0.5) / 0.05) ** 2),
        0.5, 20)
    add(matrix_symmetry_parts, rng.standard_normal((1000, 40, 40)))
    add(actuator_response,
        (rng.standard_normal(4_000_000) * 2.0).astype(np.float32),
        np.float32(0.2), np.float32(3.0))

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
