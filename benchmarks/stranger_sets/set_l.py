"""Corpus L: reductions and normalisations along axes.

Thirty-six small, self-contained programs of the kind a scientist, data
analyst or ML engineer writes every day, where the real work is a reduction
along one or more axes combined with elementwise math and broadcasting the
reduced statistic back against the original array.

Styles covered (each program mixes several):

* ``sum`` / ``mean`` / ``var`` / ``std`` / ``min`` / ``max`` / ``prod`` /
  ``argmax`` / ``argmin`` / ``any`` / ``all`` along axis 0, axis 1, axis -1
  and ``axis=(0, 1)`` / ``axis=(0, 2, 3)``, with and without
  ``keepdims=True``, broadcast back with ``[:, None]`` or keepdims;
* softmax, log-sum-exp and log-softmax over axis 0 and the last axis,
  attention-style softmax over a 3-D score tensor;
* column z-scores, min-max scaling per column and per row, layer norm,
  batch norm (NCHW), RMS norm, group norm via reshape, per-channel image
  normalisation of ``uint8`` images;
* cosine similarity between row sets, ``np.linalg.norm(axis=...)``,
  covariance and correlation by hand, weighted means with ``np.average``;
* moving statistics with ``np.cumsum`` along an axis, nan-aware reductions
  (``np.nansum``, ``np.nanmean``, ``np.nanmax``) on data with planted NaNs,
  ``np.count_nonzero(axis=)``, ``np.ptp``, means of boolean masks,
  per-group sums with ``np.bincount(weights=)``, top-1 accuracy, Gini
  impurity and entropy per row, ``np.where`` guards on zero denominators.
* block reductions via reshape (2x2 max / mean pooling), geometric means
  via ``np.prod`` and ``np.cumprod`` along rows.

Dtypes: about half float32 (kept float32 with ``np.float32`` constants and
``dtype=`` on reductions where a user would), the rest float64, plus a few
int32 / int64 / uint8 inputs.  Shapes mix tall (1_000_000 x 8), wide
(8 x 1_000_000), square (1024 x 1024, 2048 x 2048), 3-D / 4-D tensors
(64 x 3 x 128 x 128) and small (200 x 50) arrays.  Every program finishes
well under a second, is deterministic, never mutates its inputs, and returns
finite arrays / scalars / tuples.
"""

import numpy as np


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------

def _safe_divide(num, den):
    """num / den, with 0 wherever den == 0."""
    ok = den != 0
    return np.where(ok, num / np.where(ok, den, 1), 0)


def _softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def _logsumexp(z, axis=-1, keepdims=False):
    m = z.max(axis=axis, keepdims=True)
    out = m + np.log(np.exp(z - m).sum(axis=axis, keepdims=True))
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out


# ---------------------------------------------------------------------------
# 1. standardisation and scaling
# ---------------------------------------------------------------------------

def zscore_columns(x):
    """Column-wise z-scores of a tall feature matrix."""
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    return (x - mu) / sd


def minmax_scale_columns(x):
    """Scale each column into [0, 1]; constant columns become 0."""
    lo = x.min(axis=0)
    hi = x.max(axis=0)
    rng = hi - lo
    rng = np.where(rng == 0, np.float32(1.0), rng)
    return (x - lo) / rng


def minmax_scale_rows(x):
    """Scale each row (a long signal) into [-1, 1]."""
    lo = x.min(axis=1, keepdims=True)
    hi = x.max(axis=1, keepdims=True)
    return 2.0 * (x - lo) / (hi - lo) - 1.0




def range_normalise_ptp(x):
    """Per-row peak-to-peak normalisation of small measurement blocks."""
    span = np.ptp(x, axis=1)
    centre = 0.5 * (x.max(axis=1) + x.min(axis=1))
    scaled = (x - centre[:, None]) / span[:, None]
    return scaled, span


def coefficient_of_variation(x):
    """Per-channel CV for long float32 recordings, accumulated in float64."""
    m = x.mean(axis=1, dtype=np.float64)
    v = x.var(axis=1, dtype=np.float64)
    cv = np.sqrt(v) / np.abs(m)
    snr_db = 10.0 * np.log10(m * m / v)
    return cv.astype(np.float32), snr_db.astype(np.float32)


# ---------------------------------------------------------------------------
# 2. softmax family
# ---------------------------------------------------------------------------

def softmax_rows(logits):
    """Row softmax of a float32 score matrix, written out by hand."""
    shifted = logits - logits.max(axis=-1)[:, None]
    e = np.exp(shifted)
    return e / e.sum(axis=-1)[:, None]


def softmax_columns(scores):
    """Softmax over axis 0 (each column is a distribution over rows)."""
    m = scores.max(axis=0)
    e = np.exp(scores - m)
    return e / e.sum(axis=0)


def logsumexp_rows(x):
    """Log-partition per row of a tall float64 matrix."""
    return _logsumexp(x, axis=1)


def log_softmax_nll(logits, labels):
    """Log-softmax and mean negative log-likelihood for a small batch."""
    lse = _logsumexp(logits, axis=-1, keepdims=True)
    logp = logits - lse
    nll = -logp[np.arange(logits.shape[0]), labels].mean()
    return logp, np.float32(nll)


def attention_softmax(q, k, v):
    """Multi-head scaled dot-product attention, softmax over the last axis."""
    d = q.shape[-1]
    scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(d))
    w = _softmax(scores, axis=-1)
    return w @ v, w.max(axis=-1)




# ---------------------------------------------------------------------------
# 3. normalisation layers
# ---------------------------------------------------------------------------

def layer_norm(x, gamma, beta):
    """Layer norm over the last axis of a (batch, seq, hidden) tensor."""
    eps = np.float32(1e-5)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def batch_norm_nchw(x, gamma, beta):
    """Training-mode batch norm over axis=(0, 2, 3) of an NCHW batch."""
    eps = np.float32(1e-5)
    mu = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    y = gamma[None, :, None, None] * xhat + beta[None, :, None, None]
    return y, mu.ravel(), var.ravel()


def rms_norm(x, weight):
    """RMSNorm as used in LLaMA-style models."""
    eps = np.float32(1e-6)
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def group_norm(x, num_groups, gamma, beta):
    """Group norm on NCHW via a reshape to (N, G, C//G, H, W)."""
    n, c, h, w = x.shape
    g = x.reshape(n, num_groups, c // num_groups, h, w)
    mu = g.mean(axis=(2, 3, 4), keepdims=True)
    var = g.var(axis=(2, 3, 4), keepdims=True)
    g = (g - mu) / np.sqrt(var + np.float32(1e-5))
    y = g.reshape(n, c, h, w)
    return y * gamma.reshape(1, c, 1, 1) + beta.reshape(1, c, 1, 1)


def normalise_uint8_images(imgs):
    """uint8 NCHW images -> float32 in [0,1] -> per-channel standardised."""
    x = imgs.astype(np.float32) / np.float32(255.0)
    mean = x.mean(axis=(0, 2, 3))
    std = x.std(axis=(0, 2, 3))
    return (x - mean[:, None, None]) / std[:, None, None], mean, std


def standardise_sequences(x):
    """(batch, time, feature) data standardised with stats over axis=(0, 1)."""
    mu = x.mean(axis=(0, 1), keepdims=True)
    sd = x.std(axis=(0, 1), keepdims=True)
    z = (x - mu) / sd
    per_seq_energy = (z ** 2).sum(axis=1)
    total = x.sum(axis=(0, 1))
    return z, per_seq_energy, total


# ---------------------------------------------------------------------------
# 4. similarity, norms, covariance
# ---------------------------------------------------------------------------

def cosine_similarity_topk(a, b):
    """Cosine similarity between two row sets, plus best match per row."""
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    sim = an @ bn.T
    best = sim.argmax(axis=1)
    return sim, best, sim.max(axis=1)


def unit_rows_l1_l2(x):
    """Row norms (L1, L2, max) and L2-normalised rows of a tall matrix."""
    l2 = np.linalg.norm(x, axis=1)
    l1 = np.linalg.norm(x, ord=1, axis=1)
    linf = np.abs(x).max(axis=1)
    return x / l2[:, None], l1, linf


def covariance_correlation(x):
    """Sample covariance and Pearson correlation, by hand."""
    n = x.shape[0]
    xc = x - x.mean(axis=0)
    cov = xc.T @ xc / (n - 1)
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    return cov, corr


def weighted_column_stats(x, w):
    """Weighted mean and weighted variance per column with np.average."""
    mu = np.average(x, axis=0, weights=w)
    var = np.average((x - mu) ** 2, axis=0, weights=w)
    return mu, np.sqrt(var)




# ---------------------------------------------------------------------------
# 5. moving statistics with cumsum
# ---------------------------------------------------------------------------

def moving_average_rows(x, window):
    """Trailing moving average along axis 1 of wide signals via cumsum."""
    c = np.cumsum(x, axis=1)
    c = np.concatenate([np.zeros((x.shape[0], 1)), c], axis=1)
    return (c[:, window:] - c[:, :-window]) / window


def rolling_std_columns(x, window):
    """Rolling mean / std down each column of a tall float32 table."""
    s1 = np.cumsum(x, axis=0, dtype=np.float64)
    s2 = np.cumsum(x.astype(np.float64) ** 2, axis=0)
    s1 = np.vstack([np.zeros((1, x.shape[1])), s1])
    s2 = np.vstack([np.zeros((1, x.shape[1])), s2])
    m = (s1[window:] - s1[:-window]) / window
    v = (s2[window:] - s2[:-window]) / window - m * m
    return m.astype(np.float32), np.sqrt(np.maximum(v, 0.0)).astype(np.float32)


# ---------------------------------------------------------------------------
# 6. NaN-aware and counting reductions
# ---------------------------------------------------------------------------

def nan_column_summary(x):
    """Column summaries of a table with missing values (NaN)."""
    n_valid = np.count_nonzero(~np.isnan(x), axis=0)
    total = np.nansum(x, axis=0)
    mean = np.nanmean(x, axis=0)
    peak = np.nanmax(x, axis=0)
    missing_frac = np.isnan(x).mean(axis=0)
    return n_valid, total, mean, peak, missing_frac


def nan_fill_row_mean(x):
    """Impute NaNs with their row mean, then centre each row."""
    row_mean = np.nanmean(x, axis=1)
    filled = np.where(np.isnan(x), row_mean[:, None], x)
    return filled - filled.mean(axis=1, keepdims=True)


def count_nonzero_density(a):
    """Non-zero counts per row / column of an int32 sparse-ish matrix."""
    per_col = np.count_nonzero(a, axis=0)
    per_row = np.count_nonzero(a, axis=1)
    density = per_row.sum() / a.size
    col_sum = a.sum(axis=0, dtype=np.int64)
    col_mean_nz = _safe_divide(col_sum.astype(np.float64), per_col)
    return per_row, per_col, density, col_mean_nz


def mask_fractions(imgs, lo, hi):
    """Fraction of dark / saturated pixels per image and per channel."""
    dark = imgs < lo
    sat = imgs >= hi
    dark_per_img = dark.mean(axis=(1, 2, 3))
    sat_per_chan = sat.mean(axis=(0, 2, 3))
    any_sat = sat.any(axis=(2, 3))
    return dark_per_img, sat_per_chan, any_sat.sum(axis=0)


def row_column_checks(x, thresh):
    """any / all checks along both axes of a square float32 matrix."""
    rows_all_pos = (x > 0).all(axis=1)
    cols_any_big = (np.abs(x) > thresh).any(axis=0)
    frac_pos = (x > 0).mean(axis=1, dtype=np.float32)
    return int(rows_all_pos.sum()), int(cols_any_big.sum()), frac_pos


# ---------------------------------------------------------------------------
# 7. histograms, groups, classification metrics
# ---------------------------------------------------------------------------

def row_normalised_histograms(counts):
    """Turn per-row histogram counts into probabilities (empty rows -> 0)."""
    totals = counts.sum(axis=1, keepdims=True)
    probs = _safe_divide(counts.astype(np.float64), totals)
    cdf = np.cumsum(probs, axis=1)
    mode = counts.argmax(axis=1)
    return probs, cdf, mode


def group_means_bincount(labels, values, n_groups):
    """Per-group mean via bincount, then each value's deviation from it."""
    sums = np.bincount(labels, weights=values, minlength=n_groups)
    counts = np.bincount(labels, minlength=n_groups)
    means = sums / np.maximum(counts, 1)
    dev = values - means[labels]
    sq = np.bincount(labels, weights=dev * dev, minlength=n_groups)
    return means, np.sqrt(sq / np.maximum(counts, 1))


def per_group_zscore_loop(x, groups, n_groups):
    """Standardise features within each group, looping over groups."""
    out = np.empty_like(x)
    for g in range(n_groups):
        m = groups == g
        block = x[m]
        out[m] = (block - block.mean(axis=0)) / block.std(axis=0)
    return out


def top1_accuracy(logits, labels):
    """Top-1 accuracy and mean confidence of the predicted class."""
    pred = logits.argmax(axis=1)
    acc = np.mean(pred == labels)
    p = _softmax(logits, axis=1)
    conf = p.max(axis=1)
    per_class = np.bincount(labels, weights=(pred == labels), minlength=logits.shape[1])
    per_class /= np.bincount(labels, minlength=logits.shape[1])
    return float(acc), conf.mean(dtype=np.float32), per_class


def entropy_per_row(p):
    """Shannon entropy (bits) of each row distribution; 0 log 0 = 0."""
    p = p / p.sum(axis=1, keepdims=True)
    logp = np.log2(np.where(p > 0, p, 1.0))
    h = -(p * logp).sum(axis=1)
    return h, h / np.log2(p.shape[1])


def gini_impurity_counts(counts):
    """Gini impurity of each node from class counts (int64)."""
    n = counts.sum(axis=1)
    p = counts / np.where(n == 0, 1, n)[:, None]
    gini = 1.0 - (p ** 2).sum(axis=1)
    weighted = (n * gini).sum() / n.sum()
    return gini, weighted




# ---------------------------------------------------------------------------
# 8. arg-reductions, products, pooling
# ---------------------------------------------------------------------------

def argmax_argmin_values(x):
    """Column argmax / row argmin and the values found there."""
    imax = x.argmax(axis=0)
    imin = np.argmin(x, axis=1)
    vmax = np.take_along_axis(x, imax[None, :], axis=0)[0]
    vmin = x[np.arange(x.shape[0]), imin]
    return imax, imin, vmax - vmin.mean()


def geometric_mean_rows(growth):
    """Geometric mean growth factor per row, via prod and via logs."""
    n = growth.shape[1]
    g_prod = np.prod(growth, axis=1) ** (1.0 / n)
    g_log = np.exp(np.log(growth).mean(axis=1))
    cum = np.cumprod(growth, axis=1)
    return g_prod, g_log, cum.max(axis=1)




def max_pool_2x2(img):
    """2x2 max pooling and average pooling by reshape + reduce."""
    h, w = img.shape
    blocks = img.reshape(h // 2, 2, w // 2, 2)
    return blocks.max(axis=(1, 3)), blocks.mean(axis=(1, 3))


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240702)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    f32 = np.float32

    # --- standardisation and scaling
    tall = rng.normal(3.0, 2.0, (1_000_000, 8)) * np.arange(1, 9)
    add(zscore_columns, tall)

    sq32 = rng.standard_normal((1024, 1024), dtype=np.float32) * f32(5.0)
    sq32[:, 7] = f32(2.5)  # a constant column
    add(minmax_scale_columns, sq32)

    wide = np.cumsum(rng.standard_normal((8, 1_000_000)), axis=1) * 0.01
    add(minmax_scale_rows, wide)


    add(range_normalise_ptp, rng.normal(10.0, 3.0, (200, 50)))

    wide32 = (rng.standard_normal((8, 1_000_000), dtype=np.float32)
              + np.arange(2, 10, dtype=np.float32)[:, None] * f32(3.0))
    add(coefficient_of_variation, wide32)

    # --- softmax family
    add(softmax_rows, rng.standard_normal((2048, 2048), dtype=np.float32) * f32(3.0))

    add(softmax_columns, rng.standard_normal((1000, 512)) * 4.0)

    add(logsumexp_rows, rng.standard_normal((1_000_000, 8)) * 2.0)

    add(log_softmax_nll,
        rng.standard_normal((200, 50), dtype=np.float32),
        rng.integers(0, 50, 200))

    add(attention_softmax,
        rng.standard_normal((8, 256, 64), dtype=np.float32),
        rng.standard_normal((8, 256, 64), dtype=np.float32),
        rng.standard_normal((8, 256, 64), dtype=np.float32))


    # --- normalisation layers
    add(layer_norm,
        rng.standard_normal((32, 128, 256), dtype=np.float32) * f32(2.0) + f32(0.5),
        (f32(1.0) + f32(0.1) * rng.standard_normal(256, dtype=np.float32)),
        f32(0.1) * rng.standard_normal(256, dtype=np.float32))

    add(batch_norm_nchw,
        rng.standard_normal((64, 3, 128, 128), dtype=np.float32) * f32(0.25) + f32(0.45),
        np.array([1.0, 0.9, 1.1], dtype=np.float32),
        np.array([0.0, 0.05, -0.05], dtype=np.float32))

    add(rms_norm,
        rng.standard_normal((4096, 512), dtype=np.float32),
        f32(1.0) + f32(0.05) * rng.standard_normal(512, dtype=np.float32))

    add(group_norm,
        rng.standard_normal((16, 32, 64, 64), dtype=np.float32) * f32(1.5),
        8,
        np.ones(32, dtype=np.float32),
        np.zeros(32, dtype=np.float32))

    imgs = rng.integers(0, 256, (64, 3, 128, 128), dtype=np.uint8)
    add(normalise_uint8_images, imgs)

    add(standardise_sequences, rng.normal(1.0, 3.0, (256, 256, 16)))

    # --- similarity, norms, covariance
    add(cosine_similarity_topk,
        rng.standard_normal((2000, 64), dtype=np.float32),
        rng.standard_normal((500, 64), dtype=np.float32))

    add(unit_rows_l1_l2, rng.standard_normal((1_000_000, 8), dtype=np.float32) + f32(0.5))

    mix = rng.standard_normal((16, 16)) * 0.3 + np.eye(16)
    add(covariance_correlation, rng.standard_normal((100_000, 16)) @ mix)

    add(weighted_column_stats,
        rng.normal(0.0, 1.0, (1_000_000, 8)) + np.arange(8),
        rng.uniform(0.5, 2.0, 1_000_000))


    # --- moving statistics
    add(moving_average_rows, rng.standard_normal((8, 1_000_000)), 50)

    add(rolling_std_columns,
        rng.standard_normal((400_000, 8), dtype=np.float32) * f32(2.0) + f32(1.0), 64)

    # --- NaN-aware and counting
    nt = rng.normal(5.0, 1.0, (1_000_000, 8))
    nt[rng.random(nt.shape) < 0.05] = np.nan
    add(nan_column_summary, nt)

    nr = rng.standard_normal((2048, 2048), dtype=np.float32)
    nr[rng.random(nr.shape) < 0.02] = np.nan
    add(nan_fill_row_mean, nr)

    sp = rng.integers(1, 100, (2048, 2048), dtype=np.int32)
    sp[rng.random(sp.shape) < 0.9] = 0
    sp[:, 5] = 0  # an empty column
    add(count_nonzero_density, sp)

    add(mask_fractions, imgs, 16, 240)

    add(row_column_checks,
        rng.uniform(-0.2, 3.0, (2048, 2048)).astype(np.float32), f32(2.99))

    # --- histograms, groups, metrics
    hc = rng.poisson(3.0, (1024, 1024)).astype(np.int64)
    hc[::97] = 0  # some empty rows
    add(row_normalised_histograms, hc)

    labels = rng.integers(0, 1000, 1_000_000)
    add(group_means_bincount, labels, rng.normal(labels * 0.01, 1.0), 1000)

    add(per_group_zscore_loop,
        rng.standard_normal((200_000, 8)) * 2.0 + 1.0,
        rng.integers(0, 5, 200_000), 5)

    y = rng.integers(0, 10, 100_000)
    lg = rng.standard_normal((100_000, 10), dtype=np.float32)
    lg[np.arange(100_000), y] += f32(1.5)
    add(top1_accuracy, lg, y)

    pe = rng.dirichlet(np.full(50, 0.5), 200)
    pe[pe < 1e-3] = 0.0
    add(entropy_per_row, pe)

    gc = rng.integers(0, 40, (200, 50)).astype(np.int64)
    gc[::17] = 0  # empty nodes
    add(gini_impurity_counts, gc)


    # --- arg-reductions, products, 3-D
    add(argmax_argmin_values, rng.standard_normal((1024, 1024)))

    add(geometric_mean_rows, rng.uniform(0.98, 1.03, (200, 50)))


    add(max_pool_2x2, rng.random((2048, 2048), dtype=np.float32))

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
