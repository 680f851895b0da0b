"""Corpus O: mixed dtypes and data wrangling.

Programs whose inputs and intermediates mix dtypes the way real data does:
uint8/uint16 images promoted to float32 or int32 and brought back with rounding
and clipping (gamma lookup tables, alpha compositing, fixed-point YCbCr, HSV,
contrast stretching, histogram equalisation, Otsu thresholding, RGB565 packing,
integral-image box blur), int16 PCM audio through float32 and Q15 fixed point
(gain, saturating mixes, mu-law companding), int64 epoch timestamps bucketed
with `//` and `%` and sessionised with np.diff, money kept in integer cents,
boolean masks combined with &, |, ~ and logical_xor, float16 storage upcast for
compute, complex64/complex128 phasor arithmetic, and grouping/ranking idioms
built from np.unique, np.bincount, np.add.at, np.maximum.at, np.searchsorted,
np.digitize, np.lexsort, stable argsort and NaN-aware reductions.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# Images
# ---------------------------------------------------------------------------

def apply_gamma_lut_u8(img, gamma):
    levels = np.arange(256, dtype=np.float64) / 255.0
    lut = np.clip(np.round(255.0 * levels ** (1.0 / gamma)), 0, 255).astype(np.uint8)
    return lut[img]


def composite_rgba_over_rgb(fg_rgba, bg_rgb):
    rgb = fg_rgba[..., :3].astype(np.float32)
    alpha = fg_rgba[..., 3:4].astype(np.float32) / 255.0
    out = rgb * alpha + bg_rgb.astype(np.float32) * (1.0 - alpha)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def rgb_to_ycbcr_fixed_point(img):
    # JFIF full-range conversion in 16.16 fixed point, the way libjpeg does it.
    r = img[..., 0].astype(np.int32)
    g = img[..., 1].astype(np.int32)
    b = img[..., 2].astype(np.int32)
    y = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
    cb = ((-11059 * r - 21709 * g + 32768 * b + 32768) >> 16) + 128
    cr = ((32768 * r - 27439 * g - 5329 * b + 32768) >> 16) + 128
    ycc = np.stack([y, cb, cr], axis=-1)
    return np.clip(ycc, 0, 255).astype(np.uint8)


def luma_coverage_dot(img, threshold):
    weights = np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    lum = np.dot(img.astype(np.float32), weights) / 255.0
    bright = lum > threshold
    coverage = float(np.count_nonzero(bright)) / bright.size
    row_mean = lum.mean(axis=1)
    col_peak = lum.max(axis=0)
    return float(lum.mean()), coverage, row_mean, col_peak


def rgb_u8_to_hsv(img):
    rgb = img.astype(np.float32) / 255.0
    r = rgb[..., 0]
    g = rgb[..., 1]
    b = rgb[..., 2]
    maxc = rgb.max(axis=-1)
    minc = rgb.min(axis=-1)
    delta = maxc - minc
    v = maxc
    s = np.where(maxc > 0, delta / np.maximum(maxc, 1e-12), 0.0)
    safe = np.where(delta > 0, delta, 1.0)
    rc = (maxc - r) / safe
    gc = (maxc - g) / safe
    bc = (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], axis=-1).astype(np.float32)


def equalize_gray_via_cdf(gray):
    hist = np.bincount(gray.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.flatnonzero(hist)[0]]
    denom = max(int(gray.size - cdf_min), 1)
    lut = ((cdf - cdf_min) * 255 + denom // 2) // denom
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[gray]


def stretch_u16_to_u8(img, low_pct, high_pct):
    lo, hi = np.percentile(img, [low_pct, high_pct])
    scale = 255.0 / max(hi - lo, 1.0)
    out = (img.astype(np.float32) - np.float32(lo)) * np.float32(scale)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def otsu_threshold_u8(gray):
    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    levels = np.arange(256, dtype=np.float64)
    omega = np.cumsum(p)
    mu = np.cumsum(p * levels)
    mu_t = mu[-1]
    denom = omega * (1.0 - omega)
    between = np.where(denom > 1e-12, (mu_t * omega - mu) ** 2 / np.where(denom > 1e-12, denom, 1.0), 0.0)
    t = int(np.argmax(between))
    mask = gray > t
    fg_fraction = np.count_nonzero(mask) / mask.size
    return t, mask, fg_fraction


def rgb565_pack_roundtrip(img):
    r5 = img[..., 0].astype(np.uint16) >> 3
    g6 = img[..., 1].astype(np.uint16) >> 2
    b5 = img[..., 2].astype(np.uint16) >> 3
    packed = (r5 << 11) | (g6 << 5) | b5
    ur = (packed >> 11) & 0x1F
    ug = (packed >> 5) & 0x3F
    ub = packed & 0x1F
    r8 = (ur << 3) | (ur >> 2)
    g8 = (ug << 2) | (ug >> 4)
    b8 = (ub << 3) | (ub >> 2)
    rec = np.stack([r8, g8, b8], axis=-1).astype(np.uint8)
    err = rec.astype(np.int16) - img.astype(np.int16)
    mse = float(np.mean(err.astype(np.float64) ** 2))
    psnr = 10.0 * math.log10(255.0 ** 2 / mse) if mse > 0 else float("inf")
    return packed, rec, psnr


def box_blur_integral_u8(gray, radius):
    k = 2 * radius + 1
    padded = np.pad(gray, radius + 1, mode="edge").astype(np.int64)
    ii = padded.cumsum(axis=0).cumsum(axis=1)
    s = ii[k:, k:] - ii[:-k, k:] - ii[k:, :-k] + ii[:-k, :-k]
    area = k * k
    mean = (s + area // 2) // area
    h, w = gray.shape
    return mean[:h, :w].astype(np.uint8)


# ---------------------------------------------------------------------------
# Audio
# ---------------------------------------------------------------------------

def pcm16_apply_gain_db(pcm, gain_db):
    g = np.float32(10.0 ** (gain_db / 20.0))
    x = pcm.astype(np.float32) * g
    n_clipped = int(np.count_nonzero(np.abs(x) > 32767.0))
    out = np.clip(np.rint(x), -32768, 32767).astype(np.int16)
    return out, n_clipped


def mix_pcm16_q15_saturating(a, b, c, gain_a, gain_b, gain_c):
    ga = int(round(gain_a * 32768))
    gb = int(round(gain_b * 32768))
    gc = int(round(gain_c * 32768))
    acc = a.astype(np.int32) * ga + b.astype(np.int32) * gb + c.astype(np.int32) * gc
    mixed = (acc + (1 << 14)) >> 15
    saturated = (mixed > 32767) | (mixed < -32768)
    out = np.clip(mixed, -32768, 32767).astype(np.int16)
    peak = int(np.abs(out.astype(np.int32)).max())
    return out, int(saturated.sum()), peak


def mulaw_roundtrip_snr(pcm, mu):
    x = pcm.astype(np.float64) / 32768.0
    y = np.sign(x) * np.log1p(mu * np.abs(x)) / math.log1p(mu)
    code = np.clip(np.floor((y + 1.0) * 127.5 + 0.5), 0, 255).astype(np.uint8)
    yd = code.astype(np.float64) / 127.5 - 1.0
    xd = np.sign(yd) * np.expm1(np.abs(yd) * math.log1p(mu)) / mu
    rec = np.clip(np.rint(xd * 32768.0), -32768, 32767).astype(np.int16)
    err = pcm.astype(np.float64) - rec.astype(np.float64)
    sig = float(np.sum(pcm.astype(np.float64) ** 2))
    noise = float(np.sum(err ** 2))
    snr_db = 10.0 * math.log10(sig / noise) if noise > 0 else float("inf")
    return code, rec, snr_db


# ---------------------------------------------------------------------------
# Timestamps, money, grouping
# ---------------------------------------------------------------------------

def hourly_profile_from_epoch(ts, values, tz_offset_s):
    local = ts + tz_offset_s
    hour = (local // 3600) % 24
    counts = np.bincount(hour, minlength=24)
    sums = np.bincount(hour, weights=values, minlength=24)
    means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    peak_hour = int(np.argmax(counts))
    minute_of_day = (local % 86400) // 60
    night = (minute_of_day < 360) | (minute_of_day >= 1320)
    return means, counts, peak_hour, float(values[night].mean())


def sessionize_user_events(user, ts, gap_s):
    order = np.lexsort((ts, user))
    u = user[order]
    t = ts[order]
    new = np.empty(u.shape[0], dtype=bool)
    new[0] = True
    new[1:] = (u[1:] != u[:-1]) | (np.diff(t) > gap_s)
    sid = np.cumsum(new) - 1
    n_sessions = int(sid[-1]) + 1
    lengths = np.bincount(sid)
    starts = np.flatnonzero(new)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1] = u.shape[0] - 1
    durations = t[ends] - t[starts]
    return n_sessions, float(lengths.mean()), durations, float(np.median(durations))


def weekday_revenue_cents(ts, cents):
    days = ts // 86400
    dow = (days + 3) % 7  # 1970-01-01 was a Thursday; Monday = 0
    totals = np.zeros(7, dtype=np.int64)
    np.add.at(totals, dow, cents)
    share_pct = np.round(totals * 100 / totals.sum(), 2)
    weekend = int(totals[5:].sum())
    return totals, share_pct, weekend // 100, weekend % 100


def quality_flag_masks(temp, humidity, pressure_dpa, lo, hi):
    valid = ~np.isnan(temp) & ~np.isnan(humidity)
    hot = temp > hi
    cold = temp < lo
    humid = humidity > 80.0
    low_p = pressure_dpa < 10000
    storm = humid & low_p
    disagree = np.logical_xor(hot, humid)
    flagged = valid & (hot | cold | storm) & ~disagree
    codes = (hot.astype(np.uint8) | (cold.astype(np.uint8) << 1)
             | (storm.astype(np.uint8) << 2) | ((~valid).astype(np.uint8) << 3))
    return (int(flagged.sum()), int(np.count_nonzero(disagree)),
            float(valid.mean()), codes)


def signed_floor_div_mod(x, y):
    q = x // y
    r = x % y
    trunc_q = (np.abs(x) // np.abs(y)) * np.sign(x) * np.sign(y)
    differs = int(np.count_nonzero(trunc_q != q))
    identity_ok = bool(np.all(q * y + r == x))
    ratio = x / y
    return q, r, differs, identity_ok, float(ratio.mean())


def price_band_stats_searchsorted(prices, edges):
    idx = np.searchsorted(edges, prices, side="right") - 1
    nb = edges.shape[0] - 1
    valid = (idx >= 0) & (idx < nb)
    counts = np.bincount(idx[valid], minlength=nb)
    revenue = np.bincount(idx[valid], weights=prices[valid], minlength=nb)
    avg = revenue / np.maximum(counts, 1)
    return counts, np.round(avg, 2), int(np.count_nonzero(~valid))


def sku_totals_unique(store, dept, item, radices, cents, qty):
    strides = np.ones(radices.shape[0], dtype=np.int64)
    strides[:-1] = np.cumprod(radices[::-1])[::-1][1:]
    key = store.astype(np.int64) * strides[0] + dept * strides[1] + item * strides[2]
    uniq, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    line = cents.astype(np.int64) * qty
    totals = np.zeros(uniq.shape[0], dtype=np.int64)
    np.add.at(totals, inv, line)
    top = np.argsort(-totals, kind="stable")[:10]
    top_store = uniq[top] // strides[0]
    top_dept = (uniq[top] // strides[1]) % radices[1]
    top_item = uniq[top] % radices[2]
    avg_ticket = totals / cnt
    return uniq, totals, cnt, np.stack([top_store, top_dept, top_item]), avg_ticket


def inventory_running_balance(deltas, start):
    bal = start + np.cumsum(deltas.astype(np.int64))
    stockout = bal < 0
    n_days = int(np.count_nonzero(stockout))
    first = int(np.argmax(stockout)) if n_days else -1
    backorder = np.where(stockout, -bal, 0)
    prev = np.empty_like(stockout)
    prev[0] = False
    prev[1:] = stockout[:-1]
    episodes = int(np.count_nonzero(stockout & ~prev))
    return bal, n_days, first, int(backorder.sum()), episodes, int(bal.max())


def compound_returns_from_bps(bps):
    growth = 1.0 + bps / 10000.0
    wealth = np.cumprod(growth, axis=1)
    peak = np.maximum.accumulate(wealth, axis=1)
    drawdown = wealth / peak - 1.0
    max_dd = drawdown.min(axis=1)
    total_pct = np.round((wealth[:, -1] - 1.0) * 100.0, 2)
    up_days = np.count_nonzero(bps > 0, axis=1)
    return total_pct, max_dd, up_days


def stable_rank_with_ties(scores):
    n = scores.shape[0]
    order = np.argsort(-scores, kind="stable")
    ordinal = np.empty(n, dtype=np.int64)
    ordinal[order] = np.arange(1, n + 1)
    s = scores[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    first[1:] = s[1:] != s[:-1]
    comp = np.maximum.accumulate(np.where(first, np.arange(1, n + 1), 0))
    comp_rank = np.empty(n, dtype=np.int64)
    comp_rank[order] = comp
    pct = 100.0 * (n - comp_rank) / (n - 1)
    return ordinal, comp_rank, pct


def latest_order_per_customer(cust, ts, amount_cents):
    order = np.lexsort((ts, cust))
    c = cust[order]
    is_last = np.empty(c.shape[0], dtype=bool)
    is_last[-1] = True
    is_last[:-1] = c[1:] != c[:-1]
    last_idx = order[is_last]
    spend = np.zeros(int(cust.max()) + 1, dtype=np.int64)
    np.add.at(spend, cust, amount_cents)
    customers = cust[last_idx]
    return customers, ts[last_idx], amount_cents[last_idx], spend[customers]


def age_bracket_income_digitize(ages, incomes, bins):
    b = np.digitize(ages, bins)
    nb = bins.shape[0] + 1
    counts = np.bincount(b, minlength=nb)
    ok = ~np.isnan(incomes)
    s = np.bincount(b[ok], weights=incomes[ok], minlength=nb)
    n = np.bincount(b[ok], minlength=nb)
    mean = np.where(n > 0, s / np.maximum(n, 1), np.nan)
    pct = np.round(100 * counts / counts.sum(), 1)
    return counts, mean, pct, int(np.count_nonzero(~ok))


def station_peak_and_mean_at(station, readings, n_stations):
    peak = np.full(n_stations, -np.inf, dtype=np.float32)
    np.maximum.at(peak, station, readings)
    total = np.zeros(n_stations, dtype=np.float64)
    np.add.at(total, station, readings)
    cnt = np.bincount(station, minlength=n_stations)
    has = cnt > 0
    mean = np.where(has, total / np.maximum(cnt, 1), np.nan)
    peak = np.where(has, peak, np.nan)
    return peak, mean, cnt


def blocked_card_share(card_ids, blocked_ids, cents):
    hit = np.isin(card_ids, blocked_ids)
    n_hit = int(np.count_nonzero(hit))
    blocked_cents = int(cents[hit].sum())
    total = int(cents.sum())
    pct = round(100.0 * blocked_cents / total, 3)
    clean_avg = float(cents[~hit].mean()) / 100.0
    return hit, n_hit, blocked_cents, pct, clean_avg


def invoice_tax_cents(unit_price, qty, invoice_id, rate_bp):
    cents = np.round(unit_price * 100).astype(np.int64)
    line = cents * qty
    tax = (line * rate_bp + 5000) // 10000
    n_inv = int(invoice_id.max()) + 1
    inv_total = np.zeros(n_inv, dtype=np.int64)
    np.add.at(inv_total, invoice_id, line + tax)
    grand = int(inv_total.sum())
    dollars = np.round(inv_total / 100, 2)
    return inv_total, int(tax.sum()), grand // 100, grand % 100, dollars


def tiles_needed_floor_ceil(widths, heights, tile, per_box):
    nx = np.ceil(widths / tile).astype(np.int64)
    ny = np.ceil(heights / tile).astype(np.int64)
    tiles = nx * ny
    full = np.floor(widths / tile).astype(np.int64) * np.floor(heights / tile).astype(np.int64)
    covered = tiles * tile * tile
    waste_pct = np.round(100.0 * (covered - widths * heights) / covered, 1)
    boxes = -(-tiles // per_box)
    return tiles, full, boxes, waste_pct, int(boxes.sum())


def percent_share_table(cur, prev):
    row_tot = cur.sum(axis=1, keepdims=True)
    col_tot = cur.sum(axis=0, keepdims=True)
    row_pct = np.round(100 * cur / np.maximum(row_tot, 1), 1)
    col_pct = np.round(100 * cur / np.maximum(col_tot, 1), 1)
    growth = np.where(prev > 0, (cur - prev) / np.where(prev > 0, prev, 1) * 100, np.nan)
    return row_pct, col_pct, np.round(growth, 1)


# ---------------------------------------------------------------------------
# Numeric storage, complex, bits, NaNs
# ---------------------------------------------------------------------------

def float16_feature_normalize(x16):
    x = x16.astype(np.float32)
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd = np.where(sd < 1e-3, 1.0, sd).astype(np.float32)
    z = (x - mu) / sd
    z16 = z.astype(np.float16)
    err = float(np.abs(z16.astype(np.float32) - z).max())
    overflow = int(np.count_nonzero(np.isinf(z16)))
    return z16, err, overflow


def rotate_phasors(z, theta, ref_angle):
    rot = z * np.exp(1j * theta).astype(np.complex64)
    mag = np.abs(rot)
    ph = np.angle(rot)
    wrapped = np.mod(ph - ref_angle + np.pi, 2 * np.pi) - np.pi
    power_db = 20.0 * np.log10(np.maximum(mag, 1e-12))
    return mag, wrapped.astype(np.float32), float(power_db.mean())


def cross_spectrum_coherence(x, y, fs):
    sxy = np.mean(x * np.conj(y), axis=0)
    sxx = np.mean(np.abs(x) ** 2, axis=0)
    syy = np.mean((y * y.conj()).real, axis=0)
    coh = np.abs(sxy) ** 2 / (sxx * syy)
    phase = np.angle(sxy)
    nfft = x.shape[1]
    freqs = np.arange(1, nfft) * (fs / nfft)
    delay = -phase[1:] / (2 * np.pi * freqs)
    return coh, phase, float(np.median(delay[coh[1:] > 0.5]))


def checksum_int64_products(a, b, modulus):
    prod = a.astype(np.int64) * b.astype(np.int64)
    s = prod % modulus
    rolling = np.cumsum(s) % modulus
    naive = a * b  # int32 wraps silently
    mismatches = int(np.count_nonzero(naive.astype(np.int64) != prod))
    return int(rolling[-1]), s, mismatches


def swar_bit_count_u32(x):
    v = x - ((x >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    counts = (v * 0x01010101) >> 24
    hist = np.bincount(counts, minlength=33)
    diff = x[1:] ^ x[:-1]
    ham = np.zeros(diff.shape[0], dtype=np.uint32)
    for i in range(32):
        ham += (diff >> i) & 1
    return counts.astype(np.uint8), hist, int(ham.sum()), int((counts & 1).sum())


def sensor_nan_summary(x):
    missing = np.isnan(x)
    miss_frac = missing.mean(axis=1)
    mean = np.nanmean(x, axis=1)
    std = np.nanstd(x, axis=1)
    mx = np.nanmax(x, axis=1)
    z = (x - mean[:, None]) / std[:, None]
    filled = np.nan_to_num(z, nan=0.0)
    outliers = np.count_nonzero(np.abs(filled) > 3.0, axis=1)
    return mean, std, mx, miss_frac, outliers


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240917)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    h, w = 384, 512
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([xx * 255 // (w - 1), yy * 255 // (h - 1), (xx + yy) * 255 // (w + h - 2)], axis=-1)
    noise = rng.integers(-40, 41, (h, w, 3))
    photo = np.clip(base + noise, 0, 255).astype(np.uint8)
    rgba = np.concatenate([rng.integers(0, 256, (h, w, 3), dtype=np.uint8),
                           rng.integers(0, 256, (h, w, 1), dtype=np.uint8)], axis=-1)
    dark_gray = np.clip(rng.normal(70, 25, (512, 512)), 0, 255).astype(np.uint8)
    bimodal = np.where(rng.random((512, 512)) < 0.4,
                       rng.normal(60, 15, (512, 512)), rng.normal(170, 20, (512, 512)))
    bimodal = np.clip(bimodal, 0, 255).astype(np.uint8)
    raw12 = np.clip(rng.gamma(2.0, 300.0, (512, 512)), 0, 4095).astype(np.uint16)

    add(apply_gamma_lut_u8, photo, 2.2)
    add(composite_rgba_over_rgb, rgba, photo)
    add(rgb_to_ycbcr_fixed_point, photo)
    add(luma_coverage_dot, photo, 0.41421356)
    add(rgb_u8_to_hsv, photo[::2, ::2].copy())
    add(equalize_gray_via_cdf, dark_gray)
    add(stretch_u16_to_u8, raw12, 1.0, 99.0)
    add(otsu_threshold_u8, bimodal)
    add(rgb565_pack_roundtrip, photo)
    add(box_blur_integral_u8, dark_gray, 3)

    sr = 48000
    n_pcm = 3 * sr
    t = np.arange(n_pcm) / sr
    tone = 14000 * np.sin(2 * np.pi * 440.0 * t) + rng.normal(0, 2500, n_pcm)
    pcm = np.clip(tone, -32768, 32767).astype(np.int16)
    pcm_b = np.clip(9000 * np.sin(2 * np.pi * 660.0 * t + 0.3) + rng.normal(0, 4000, n_pcm),
                    -32768, 32767).astype(np.int16)
    pcm_c = rng.integers(-20000, 20000, n_pcm, dtype=np.int16)
    add(pcm16_apply_gain_db, pcm, 6.5)
    add(mix_pcm16_q15_saturating, pcm, pcm_b, pcm_c, 0.8, 0.6, 0.45)
    add(mulaw_roundtrip_snr, pcm, 255.0)

    n_ev = 200_000
    ts = rng.integers(1_600_000_000, 1_700_000_000, n_ev, dtype=np.int64)
    add(hourly_profile_from_epoch, ts, rng.gamma(2.0, 10.0, n_ev).astype(np.float32), -5 * 3600)

    n_s = 60_000
    users = rng.integers(0, 500, n_s).astype(np.int32)
    ev_ts = 1_650_000_000 + rng.integers(0, 2 * 86400, n_s, dtype=np.int64)
    add(sessionize_user_events, users, ev_ts, 1800)

    add(weekday_revenue_cents, ts[:100_000], rng.integers(99, 50_000, 100_000, dtype=np.int64))

    n_q = 200_000
    temp = rng.normal(18.0, 9.0, n_q)
    temp[rng.random(n_q) < 0.02] = np.nan
    hum = rng.uniform(10.0, 100.0, n_q)
    hum[rng.random(n_q) < 0.01] = np.nan
    pres = rng.integers(9600, 10400, n_q).astype(np.int16)
    add(quality_flag_masks, temp, hum, pres, 0.0, 30.0)

    xs = rng.integers(-1_000_000, 1_000_000, 200_000, dtype=np.int64)
    ys = rng.integers(1, 1000, 200_000, dtype=np.int64) * rng.choice(np.array([-1, 1]), 200_000)
    add(signed_floor_div_mod, xs, ys)

    prices = np.round(rng.lognormal(3.0, 1.0, 200_000), 2)
    edges = np.array([0.0, 5.0, 10.0, 20.0, 50.0, 100.0, 250.0, 500.0])
    add(price_band_stats_searchsorted, prices, edges)

    n_l = 100_000
    radices = np.array([50, 20, 500], dtype=np.int64)
    add(sku_totals_unique,
        rng.integers(0, 50, n_l), rng.integers(0, 20, n_l), rng.integers(0, 60, n_l),
        radices, rng.integers(99, 9999, n_l).astype(np.int32),
        rng.integers(1, 6, n_l).astype(np.int32))

    add(inventory_running_balance, rng.integers(-50, 51, 100_000).astype(np.int32), 500)

    add(compound_returns_from_bps, rng.integers(-300, 320, (64, 2520)).astype(np.int32))

    add(stable_rank_with_ties, rng.integers(0, 1000, 100_000).astype(np.int32))

    n_o = 60_000
    add(latest_order_per_customer,
        rng.integers(0, 5000, n_o).astype(np.int32),
        1_650_000_000 + rng.integers(0, 365 * 86400, n_o, dtype=np.int64),
        rng.integers(100, 100_000, n_o, dtype=np.int64))

    n_p = 200_000
    incomes = rng.lognormal(10.5, 0.6, n_p)
    incomes[rng.random(n_p) < 0.05] = np.nan
    add(age_bracket_income_digitize, rng.integers(16, 95, n_p),
        incomes, np.array([18, 25, 35, 45, 55, 65, 75]))

    n_st = 2000
    add(station_peak_and_mean_at, rng.integers(0, n_st, 100_000),
        rng.normal(15.0, 8.0, 100_000).astype(np.float32), n_st)

    cards = rng.integers(4_000_000_000, 4_000_200_000, 200_000, dtype=np.int64)
    blocked = rng.choice(np.arange(4_000_000_000, 4_000_200_000, dtype=np.int64), 2000, replace=False)
    add(blocked_card_share, cards, blocked, rng.integers(100, 250_000, 200_000, dtype=np.int64))

    n_i = 100_000
    unit = rng.integers(49, 20_000, n_i) / 100.0
    add(invoice_tax_cents, unit, rng.integers(1, 12, n_i), np.sort(rng.integers(0, 8000, n_i)), 825)

    add(tiles_needed_floor_ceil, rng.uniform(0.8, 12.0, 100_000), rng.uniform(0.8, 9.0, 100_000),
        0.6, 12)

    cur = rng.integers(0, 5000, (400, 250))
    prev = np.maximum(cur + rng.integers(-800, 800, (400, 250)), 0)
    add(percent_share_table, cur, prev)

    add(float16_feature_normalize, rng.normal(3.0, 2.0, (8192, 32)).astype(np.float16))

    n_z = 200_000
    z = (rng.normal(size=n_z) + 1j * rng.normal(size=n_z)).astype(np.complex64)
    add(rotate_phasors, z, rng.uniform(-np.pi, np.pi, n_z).astype(np.float32), 0.25)

    nseg, nfft = 64, 1024
    xsig = rng.normal(size=(nseg, nfft)) + 1j * rng.normal(size=(nseg, nfft))
    kk = np.arange(nfft)
    ysig = xsig * np.exp(-2j * np.pi * kk * 3.0 / nfft) + 0.5 * (rng.normal(size=(nseg, nfft))
                                                                 + 1j * rng.normal(size=(nseg, nfft)))
    add(cross_spectrum_coherence, xsig, ysig, 8000.0)

    add(checksum_int64_products, rng.integers(-60_000, 60_000, 200_000, dtype=np.int32),
        rng.integers(-60_000, 60_000, 200_000, dtype=np.int32), 1_000_000_007)

    add(swar_bit_count_u32, rng.integers(0, 2**32, 100_000, dtype=np.uint32))

    sens = rng.normal(20.0, 5.0, (200, 2000))
    sens[rng.random((200, 2000)) < 0.07] = np.nan
    sens[rng.random((200, 2000)) < 0.002] = 80.0
    add(sensor_nan_summary, sens)

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
