"""Corpus P: time series, finance and signal processing without pandas.

Programs in the style of quants, data analysts and DSP engineers working with
plain NumPy: rolling windows built from np.cumsum differences,
sliding_window_view or explicit Python loops; recursive and closed-form
exponentially weighted averages; returns, drawdowns via np.maximum.accumulate,
Sortino ratios, rolling and EWMA volatility, VWAP, Bollinger bands, RSI, MACD,
Donchian channels; resampling by integer bucket ids with np.bincount,
np.add.reduceat and np.unique; lagged features built with slicing and np.roll;
autocorrelation with np.correlate and shifted dot products; FIR filtering with
np.convolve; polynomial detrending; z-score anomaly runs found with np.diff on
boolean masks and np.flatnonzero; NaN forward-fill through index accumulation;
PnL from position changes and per-trade statistics; order-book sweeps with
np.searchsorted; np.interp onto a regular grid; frame-based zero-crossing and
energy features via reshape.  Data is mostly float64 with some float32, as 1-D
series and 2-D (n_assets x n_days) panels reduced with axis= arguments.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _window_sum(a, window):
    c = np.cumsum(a, dtype=np.float64)
    c = np.concatenate(([0.0], c))
    return c[window:] - c[:-window]


def _ema_recursive(x, span):
    alpha = 2.0 / (span + 1.0)
    out = np.empty(x.shape[0])
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
    return out


# ---------------------------------------------------------------------------
# rolling windows / smoothing
# ---------------------------------------------------------------------------

def rolling_mean_cumsum_panel(prices, window=20):
    # prices: (n_assets, n_days); trailing mean along the time axis
    n_assets, n_days = prices.shape
    if n_days < window:
        return np.empty((n_assets, 0))
    c = np.cumsum(prices, axis=1)
    c = np.concatenate([np.zeros((n_assets, 1), dtype=c.dtype), c], axis=1)
    ma = (c[:, window:] - c[:, :-window]) / window
    # distance of the last price from its moving average, in percent
    dist = (prices[:, window - 1:] / ma - 1.0) * 100.0
    return ma, dist.mean(axis=1)


def rolling_zscore_sliding(x, window=30):
    if x.shape[0] < window:
        return np.zeros(0, dtype=x.dtype)
    w = np.lib.stride_tricks.sliding_window_view(x, window)
    mu = w.mean(axis=-1)
    sd = w.std(axis=-1, ddof=1)
    z = (x[window - 1:] - mu) / np.where(sd > 0, sd, 1.0)
    return z


def ewma_loop(x, alpha=0.1):
    out = np.empty_like(x)
    s = x[0]
    for i in range(x.shape[0]):
        s = alpha * x[i] + (1.0 - alpha) * s
        out[i] = s
    return out


def ewm_mean_adjusted_matrix(x, span=20):
    # closed-form "adjust=True" EWM mean via a lower-triangular weight matrix
    alpha = 2.0 / (span + 1.0)
    n = x.shape[0]
    idx = np.arange(n)
    lag = idx[:, None] - idx[None, :]
    w = np.where(lag >= 0, (1.0 - alpha) ** np.maximum(lag, 0), 0.0)
    num = w @ x
    den = w.sum(axis=1)
    return num / den


def rolling_volatility_annualized(prices, window=21, periods=252, annualize=True):
    r = np.diff(np.log(prices))
    if r.shape[0] < window:
        return np.zeros(0)
    s1 = _window_sum(r, window)
    s2 = _window_sum(r * r, window)
    var = (s2 - s1 * s1 / window) / (window - 1)
    vol = np.sqrt(np.maximum(var, 0.0))
    if annualize:
        vol = vol * math.sqrt(periods)
    return vol


def riskmetrics_ewma_vol_panel(returns, lam=0.94, periods=252):
    # returns: (n_assets, n_days); loop over time, vectorised over assets
    n_assets, n_days = returns.shape
    var = np.var(returns[:, :20], axis=1)
    out = np.empty((n_assets, n_days))
    for t in range(n_days):
        r = returns[:, t]
        var = lam * var + (1.0 - lam) * r * r
        out[:, t] = var
    vol = np.sqrt(out * periods)
    return vol, vol[:, -1].mean()


# ---------------------------------------------------------------------------
# performance / risk
# ---------------------------------------------------------------------------

def drawdown_stats_panel(prices):
    # prices: (n_assets, n_days)
    peak = np.maximum.accumulate(prices, axis=1)
    dd = prices / peak - 1.0
    mdd = dd.min(axis=1)
    frac_underwater = (dd < 0).mean(axis=1)
    trough = np.argmin(dd, axis=1)
    avg_dd = dd.mean(axis=1)
    return mdd, frac_underwater, trough, avg_dd


def sortino_ratio_panel(returns, target=0.0, periods=252, annualize=True):
    # returns: (n_assets, n_days)
    excess = returns - target
    downside = np.minimum(excess, 0.0)
    dd = np.sqrt(np.mean(downside ** 2, axis=1))
    mu = excess.mean(axis=1)
    ratio = np.where(dd > 0, mu / np.where(dd > 0, dd, 1.0), np.nan)
    if annualize:
        ratio = ratio * np.sqrt(periods)
    return ratio


def cumulative_pnl_positions(prices, signal, cost_bps=5.0, max_pos=1.0):
    pos = np.where(signal > 0, max_pos, np.where(signal < 0, -max_pos, 0.0))
    held = np.roll(pos, 1)
    held[0] = 0.0
    dp = np.diff(prices, prepend=prices[0])
    gross = held * dp
    trades = np.abs(np.diff(pos, prepend=0.0))
    costs = trades * prices * cost_bps * 1e-4
    pnl = np.cumsum(gross - costs)
    running_peak = np.maximum.accumulate(pnl)
    max_dd = np.max(running_peak - pnl)
    return pnl[-1], max_dd, int(np.count_nonzero(trades))


def trade_pnl_statistics(prices, positions):
    dp = np.diff(prices)
    held = positions[:-1]
    step_pnl = held * dp
    starts = np.concatenate(([0], np.flatnonzero(np.diff(held)) + 1))
    seg_pnl = np.add.reduceat(step_pnl, starts)
    seg_pos = held[starts]
    trade_pnl = seg_pnl[seg_pos != 0]
    if trade_pnl.size == 0:
        return 0, 0.0, 0.0
    wins = trade_pnl > 0
    win_rate = wins.mean()
    gross_profit = trade_pnl[wins].sum()
    gross_loss = -trade_pnl[~wins].sum()
    profit_factor = gross_profit / gross_loss if gross_loss > 0 else np.inf
    return trade_pnl.size, win_rate, profit_factor


def momentum_topk_portfolio(prices, lookback=60, holding=20, top_k=10):
    # prices: (n_assets, n_days); rebalance every `holding` days
    n_assets, n_days = prices.shape
    rets = []
    for t in range(lookback, n_days - holding, holding):
        mom = prices[:, t] / prices[:, t - lookback] - 1.0
        top = np.argsort(mom)[-top_k:]
        fwd = prices[top, t + holding] / prices[top, t] - 1.0
        rets.append(fwd.mean())
    rets = np.array(rets)
    equity = np.cumprod(1.0 + rets)
    return rets, equity[-1]


def cross_sectional_rank_weights(signals):
    # signals: (n_assets, n_days); dollar-neutral rank weights per day
    n_assets = signals.shape[0]
    ranks = np.argsort(np.argsort(signals, axis=0), axis=0).astype(np.float64)
    centered = ranks - (n_assets - 1) / 2.0
    weights = centered / np.abs(centered).sum(axis=0, keepdims=True)
    turnover = np.abs(np.diff(weights, axis=1)).sum(axis=0).mean()
    return weights, turnover


# ---------------------------------------------------------------------------
# technical indicators
# ---------------------------------------------------------------------------

def vwap_by_session(price, volume, session_ids):
    n = int(session_ids.max()) + 1
    pv = np.bincount(session_ids, weights=price * volume, minlength=n)
    v = np.bincount(session_ids, weights=volume, minlength=n)
    vwap = np.where(v > 0, pv / np.where(v > 0, v, 1.0), np.nan)
    dev = price / vwap[session_ids] - 1.0
    return vwap, np.abs(dev).mean()


def bollinger_breakout_events(prices, window=20, k=2.0):
    w = np.lib.stride_tricks.sliding_window_view(prices, window)
    mid = w.mean(axis=1)
    sd = w.std(axis=1)
    p = prices[window - 1:]
    upper = mid + k * sd
    lower = mid - k * sd
    above = p > upper
    below = p < lower
    up_events = np.flatnonzero(np.diff(above.astype(np.int8)) == 1)
    down_events = np.flatnonzero(np.diff(below.astype(np.int8)) == 1)
    pct_b = (p - lower) / (upper - lower)
    return up_events.size, down_events.size, pct_b


def rsi_wilder_loop(prices, period=14):
    delta = np.diff(prices)
    gains = np.where(delta > 0, delta, 0.0)
    losses = np.where(delta < 0, -delta, 0.0)
    out = np.full(prices.shape[0], np.nan)
    if delta.shape[0] < period:
        return out
    avg_g = gains[:period].mean()
    avg_l = losses[:period].mean()
    out[period] = 100.0 - 100.0 / (1.0 + avg_g / avg_l) if avg_l > 0 else 100.0
    for i in range(period, delta.shape[0]):
        avg_g = (avg_g * (period - 1) + gains[i]) / period
        avg_l = (avg_l * (period - 1) + losses[i]) / period
        if avg_l > 0:
            out[i + 1] = 100.0 - 100.0 / (1.0 + avg_g / avg_l)
        else:
            out[i + 1] = 100.0
    return out


def macd_crossovers(prices, fast=12, slow=26, signal=9):
    macd_line = _ema_recursive(prices, fast) - _ema_recursive(prices, slow)
    signal_line = _ema_recursive(macd_line, signal)
    hist = macd_line - signal_line
    s = np.sign(hist[slow:])
    crosses = np.flatnonzero(np.diff(s) != 0) + slow + 1
    bullish = int(np.count_nonzero(np.diff(s) > 0))
    return hist, crosses, bullish


def donchian_breakouts(high, low, close, window=20):
    hw = np.lib.stride_tricks.sliding_window_view(high[:-1], window)
    lw = np.lib.stride_tricks.sliding_window_view(low[:-1], window)
    upper = hw.max(axis=1)
    lower = lw.min(axis=1)
    c = close[window:]
    long_sig = c > upper
    short_sig = c < lower
    long_entries = np.flatnonzero(np.diff(long_sig.astype(np.int8)) == 1) + window + 1
    short_entries = np.flatnonzero(np.diff(short_sig.astype(np.int8)) == 1) + window + 1
    width = ((upper - lower) / c).mean()
    return long_entries, short_entries, width


# ---------------------------------------------------------------------------
# resampling / aggregation
# ---------------------------------------------------------------------------

def ohlc_bars_reduceat(price, volume, bar_size=100):
    if price.shape[0] < bar_size:
        return np.zeros((0, 5))
    n = price.shape[0] // bar_size * bar_size
    starts = np.arange(0, n, bar_size)
    o = price[starts]
    h = np.maximum.reduceat(price[:n], starts)
    l = np.minimum.reduceat(price[:n], starts)
    c = price[starts + bar_size - 1]
    v = np.add.reduceat(volume[:n], starts)
    return np.stack([o, h, l, c, v], axis=1)


def resample_irregular_unique(keys, values):
    uniq, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, weights=values)
    means = sums / counts
    sq = np.bincount(inv, weights=values * values)
    std = np.sqrt(np.maximum(sq / counts - means ** 2, 0.0))
    return uniq, means, std, counts


def realized_variance_by_day(log_prices, day_ids):
    r = np.diff(log_prices)
    same = day_ids[1:] == day_ids[:-1]
    ids = day_ids[1:][same]
    r = r[same]
    n_days = int(day_ids.max()) + 1
    rv = np.bincount(ids, weights=r * r, minlength=n_days)
    abs_r = np.abs(r)
    bp_same = ids[1:] == ids[:-1]
    bp_terms = abs_r[1:] * abs_r[:-1]
    bv = (math.pi / 2.0) * np.bincount(ids[1:][bp_same], weights=bp_terms[bp_same],
                                       minlength=n_days)
    jump_share = np.maximum(rv - bv, 0.0) / np.where(rv > 0, rv, 1.0)
    return rv, bv, jump_share


def interpolate_to_regular_grid(t, y, step=1.0):
    if t.shape[0] < 2:
        return y.copy(), 0.0
    n_grid = int(math.floor((t[-1] - t[0]) / step)) + 1
    grid = t[0] + step * np.arange(n_grid)
    vals = np.interp(grid, t, y)
    last_idx = np.searchsorted(t, grid, side="right") - 1
    age = grid - t[last_idx]
    return vals, age.max()


def forward_fill_nan(x):
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(x.shape[0]), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


def forward_fill_panel(panel):
    # panel: (n_assets, n_days) with gaps; ffill along time, then row mean
    n_assets, n_days = panel.shape
    mask = np.isnan(panel)
    idx = np.where(mask, 0, np.arange(n_days)[None, :])
    idx = np.maximum.accumulate(idx, axis=1)
    out = panel[np.arange(n_assets)[:, None], idx]
    row_mean = np.nanmean(panel, axis=1, keepdims=True)
    out = np.where(np.isnan(out), row_mean, out)
    return out, mask.mean(axis=1)


# ---------------------------------------------------------------------------
# statistics / regression
# ---------------------------------------------------------------------------

def ar_lag_regression(x, n_lags=5):
    n = x.shape[0]
    cols = [x[n_lags - k - 1: n - k - 1] for k in range(n_lags)]
    X = np.column_stack(cols + [np.ones(n - n_lags)])
    y = x[n_lags:]
    coef = np.linalg.solve(X.T @ X, X.T @ y)
    resid = y - X @ coef
    r2 = 1.0 - resid.var() / y.var()
    return coef, r2


def acf_np_correlate(x, max_lag=50):
    d = x - x.mean()
    full = np.correlate(d, d, mode="full")
    mid = d.shape[0] - 1
    acf = full[mid: mid + max_lag + 1] / full[mid]
    conf = 1.96 / math.sqrt(d.shape[0])
    n_sig = int(np.count_nonzero(np.abs(acf[1:]) > conf))
    return acf, n_sig


def acf_shifted_dot(x, max_lag=30):
    d = x - x.mean()
    denom = np.dot(d, d)
    acf = [1.0] + [np.dot(d[:-k], d[k:]) / denom for k in range(1, max_lag + 1)]
    acf = np.array(acf)
    # Ljung-Box Q statistic
    n = d.shape[0]
    lags = np.arange(1, max_lag + 1)
    q = n * (n + 2) * np.sum(acf[1:] ** 2 / (n - lags))
    return acf, q


def rolling_beta_cumsum(asset_ret, market_ret, window=60):
    if asset_ret.shape[0] < window:
        return np.zeros(0), np.zeros(0), 0.0
    sx = _window_sum(market_ret, window)
    sy = _window_sum(asset_ret, window)
    sxy = _window_sum(market_ret * asset_ret, window)
    sxx = _window_sum(market_ret * market_ret, window)
    cov = sxy - sx * sy / window
    var = sxx - sx * sx / window
    beta = cov / var
    alpha = (sy - beta * sx) / window
    return beta, alpha, float(np.mean(beta))


def roll_lag_correlations(x, y, lags=(1, 2, 5, 10, 20)):
    max_lag = max(lags)
    feats = np.stack([np.roll(x, L) for L in lags], axis=1)
    feats = feats[max_lag:]
    target = y[max_lag:]
    fc = feats - feats.mean(axis=0, keepdims=True)
    tc = target - target.mean()
    corr = (fc * tc[:, None]).sum(axis=0) / np.sqrt((fc ** 2).sum(axis=0) * (tc ** 2).sum())
    return corr


def hurst_exponent_rs(x, min_window=16):
    n = x.shape[0]
    windows = []
    w = min_window
    while w <= n // 4:
        windows.append(w)
        w *= 2
    if len(windows) < 2:
        return 0.5
    rs = []
    for w in windows:
        m = n // w
        chunks = x[: m * w].reshape(m, w)
        dev = chunks - chunks.mean(axis=1, keepdims=True)
        z = np.cumsum(dev, axis=1)
        r = z.max(axis=1) - z.min(axis=1)
        s = chunks.std(axis=1)
        valid = s > 0
        rs.append(np.mean(r[valid] / s[valid]))
    slope, _ = np.polyfit(np.log(np.array(windows, dtype=np.float64)), np.log(rs), 1)
    return slope


def detrend_polyfit(y, degree=2):
    t = np.linspace(0.0, 1.0, y.shape[0])
    coeffs = np.polyfit(t, y, degree)
    trend = np.polyval(coeffs, t)
    resid = y - trend
    return resid, coeffs, resid.std()


def zscore_anomaly_events(x, window=100, threshold=4.0, min_len=1):
    n = x.shape[0]
    if n <= window:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    c1 = np.cumsum(np.concatenate(([0.0], x)))
    c2 = np.cumsum(np.concatenate(([0.0], x * x)))
    s1 = c1[window:-1] - c1[:-window - 1]
    s2 = c2[window:-1] - c2[:-window - 1]
    mu = s1 / window
    var = s2 / window - mu * mu
    sd = np.sqrt(np.maximum(var, 1e-12))
    z = (x[window:] - mu) / sd
    flag = np.abs(z) > threshold
    padded = np.concatenate(([False], flag, [False])).astype(np.int8)
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    lengths = ends - starts
    keep = lengths >= min_len
    return starts[keep] + window, lengths[keep]


# ---------------------------------------------------------------------------
# market microstructure
# ---------------------------------------------------------------------------

def order_book_sweep_cost(levels, sizes, quantities):
    # levels: ascending ask prices, sizes: resting size per level
    cum_q = np.cumsum(sizes)
    cum_n = np.cumsum(levels * sizes)
    q = np.minimum(quantities, cum_q[-1])
    k = np.searchsorted(cum_q, q, side="left")
    prev_q = np.where(k > 0, cum_q[k - 1], 0.0)
    prev_n = np.where(k > 0, cum_n[k - 1], 0.0)
    notional = prev_n + (q - prev_q) * levels[k]
    avg_px = notional / q
    slippage_bps = (avg_px / levels[0] - 1.0) * 1e4
    unfilled = quantities - q
    return avg_px, slippage_bps, unfilled.sum()


def microprice_imbalance(bid, ask, bid_size, ask_size, horizon=10):
    mid = 0.5 * (bid + ask)
    tot = bid_size + ask_size
    imb = (bid_size - ask_size) / tot
    micro = (bid * ask_size + ask * bid_size) / tot
    spread_bps = (ask - bid) / mid * 1e4
    fut = mid[horizon:] - mid[:-horizon]
    corr = np.corrcoef(imb[:-horizon], fut)[0, 1]
    return micro, spread_bps.mean(), corr


# ---------------------------------------------------------------------------
# signal processing
# ---------------------------------------------------------------------------

def fir_lowpass(x, numtaps=63, cutoff=0.1):
    m = np.arange(numtaps) - (numtaps - 1) / 2.0
    h = 2.0 * cutoff * np.sinc(2.0 * cutoff * m)
    h *= np.hamming(numtaps)
    h /= h.sum()
    return np.convolve(x, h, mode="same")


def zero_crossing_rate_frames(signal, frame_len=256):
    n_frames = signal.shape[0] // frame_len
    if n_frames == 0:
        return np.zeros(0)
    frames = signal[: n_frames * frame_len].reshape(n_frames, frame_len)
    s = np.signbit(frames)
    zc = np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1)
    return zc / (frame_len - 1)


def frame_energy_db(signal, frame_len=512, hop=256):
    frames = np.lib.stride_tricks.sliding_window_view(signal, frame_len)[::hop]
    win = np.hanning(frame_len).astype(signal.dtype)
    energy = np.sum((frames * win) ** 2, axis=1)
    db = 10.0 * np.log10(energy + 1e-10)
    thresh = np.median(db) + 6.0
    active = db > thresh
    n_onsets = int(np.count_nonzero(np.diff(active.astype(np.int8)) == 1))
    return db, n_onsets


# ---------------------------------------------------------------------------
# argument construction
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240917)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    def gbm(n, vol=0.01, s0=100.0):
        return s0 * np.exp(np.cumsum(vol * rng.standard_normal(n)))

    def gbm_panel(n_assets, n_days, vol=0.015):
        steps = 0.0003 + vol * rng.standard_normal((n_assets, n_days))
        return 100.0 * np.exp(np.cumsum(steps, axis=1))

    # rolling windows / smoothing
    add(rolling_mean_cumsum_panel, gbm_panel(400, 1500), 50)
    add(rolling_zscore_sliding, gbm(20000).astype(np.float32), 30)
    add(ewma_loop, gbm(4000), 0.05)
    add(ewm_mean_adjusted_matrix, gbm(600), 20)
    add(rolling_volatility_annualized, gbm(500000), 21, 252, True)
    add(riskmetrics_ewma_vol_panel, 0.01 * rng.standard_normal((200, 1500)), 0.94, 252)

    # performance / risk
    add(drawdown_stats_panel, gbm_panel(300, 2500))
    add(sortino_ratio_panel, 0.0004 + 0.012 * rng.standard_normal((500, 2000)), 0.0001, 252, True)
    n = 700_000
    sig = np.convolve(rng.standard_normal(n), np.ones(200) / 200.0, mode="same")
    add(cumulative_pnl_positions, gbm(n, vol=0.001), sig, 0.5, 1.0)
    n = 500_000
    n_reg = 8000
    regime_pos = rng.choice(np.array([-1, 0, 1]), size=n_reg)
    regime_len = rng.integers(20, 105, size=n_reg)
    pos = np.repeat(regime_pos, regime_len)[:n]
    pos = np.concatenate([pos, np.zeros(n - pos.shape[0], dtype=pos.dtype)])
    add(trade_pnl_statistics, gbm(n, vol=0.001), pos)
    add(momentum_topk_portfolio, gbm_panel(300, 2500), 60, 20, 15)
    add(cross_sectional_rank_weights, rng.standard_normal((200, 500)))

    # technical indicators
    n_sessions = 2000
    per_session = 500
    session_ids = np.repeat(np.arange(n_sessions), per_session)
    add(vwap_by_session, gbm(n_sessions * per_session, vol=0.0005),
        rng.lognormal(3.0, 1.0, n_sessions * per_session), session_ids)
    add(bollinger_breakout_events, gbm(50000), 20, 2.0)
    add(rsi_wilder_loop, gbm(3000), 14)
    add(macd_crossovers, gbm(3000), 12, 26, 9)
    n = 100_000
    close = gbm(n)
    spread = np.abs(rng.standard_normal(n)) * 0.004 * close
    add(donchian_breakouts, close + spread, close - spread, close, 20)

    # resampling / aggregation
    add(ohlc_bars_reduceat, gbm(1_000_000, vol=0.0005), rng.lognormal(2.0, 0.8, 1_000_000), 100)
    add(resample_irregular_unique, rng.integers(0, 5000, 200000), rng.standard_normal(200000))
    n_days = 2000
    per_day = 500
    add(realized_variance_by_day, np.cumsum(0.0005 * rng.standard_normal(n_days * per_day)),
        np.repeat(np.arange(n_days), per_day))
    t_obs = np.cumsum(rng.exponential(1.0, 300000))
    add(interpolate_to_regular_grid, t_obs, np.cumsum(rng.standard_normal(300000)), 0.5)
    x = gbm(2_000_000, vol=0.0005)
    x[rng.random(2_000_000) < 0.1] = np.nan
    x[0] = 100.0
    add(forward_fill_nan, x)
    panel = gbm_panel(200, 2500).astype(np.float32)
    panel[rng.random(panel.shape) < 0.05] = np.nan
    panel[:20, :3] = np.nan
    add(forward_fill_panel, panel)

    # statistics / regression
    noise = rng.standard_normal(50000 + 60)
    ar_like = np.convolve(noise, 0.7 ** np.arange(60), mode="valid")[:50000]
    add(ar_lag_regression, ar_like, 5)
    add(acf_np_correlate, np.convolve(rng.standard_normal(4000), np.ones(5) / 5.0, mode="same"), 50)
    add(acf_shifted_dot, np.convolve(rng.standard_normal(50000), [1.0, 0.5, 0.25],
                                     mode="same").astype(np.float32), 30)
    mkt = 0.01 * rng.standard_normal(500000)
    asset = 1.2 * mkt + 0.008 * rng.standard_normal(500000)
    add(rolling_beta_cumsum, asset, mkt, 60)
    xs = rng.standard_normal(200000)
    ys = 0.3 * np.roll(xs, 2) - 0.2 * np.roll(xs, 10) + rng.standard_normal(200000)
    add(roll_lag_correlations, xs, ys)
    add(hurst_exponent_rs, 0.01 * rng.standard_normal(131072), 16)
    tt = np.linspace(0.0, 1.0, 100000)
    add(detrend_polyfit, 5.0 * tt - 3.0 * tt ** 2 + 0.5 * rng.standard_normal(100000), 2)
    x = rng.standard_normal(500000)
    spike_at = rng.choice(np.arange(1000, 499000), size=200, replace=False)
    x[spike_at] += 10.0 * np.sign(rng.standard_normal(200))
    add(zscore_anomaly_events, x, 100, 4.5, 1)

    # market microstructure
    levels = 100.0 + 0.01 * np.arange(1, 2001)
    sizes = rng.lognormal(4.0, 1.0, 2000)
    add(order_book_sweep_cost, levels, sizes, rng.lognormal(7.0, 1.2, 100000))
    n = 1_000_000
    mid = 100.0 + np.cumsum(0.005 * rng.standard_normal(n))
    half = 0.005 * rng.integers(1, 4, n)
    add(microprice_imbalance, (mid - half).astype(np.float32), (mid + half).astype(np.float32),
        rng.lognormal(5.0, 1.0, n).astype(np.float32), rng.lognormal(5.0, 1.0, n).astype(np.float32), 10)

    # signal processing
    tsig = np.arange(100000)
    sig = (np.sin(2 * np.pi * 0.01 * tsig) + 0.5 * rng.standard_normal(100000)).astype(np.float32)
    add(fir_lowpass, sig, 63, 0.05)
    tsig = np.arange(1_000_000)
    sig = (np.sin(2 * np.pi * 0.003 * tsig) * (1 + 0.5 * np.sin(2 * np.pi * 1e-5 * tsig))
           + 0.3 * rng.standard_normal(1_000_000)).astype(np.float32)
    add(zero_crossing_rate_frames, sig, 256)
    n = 500_000
    env = np.where((np.arange(n) // 20000) % 3 == 0, 1.0, 0.1)
    add(frame_energy_db, (env * rng.standard_normal(n)).astype(np.float32), 512, 256)

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
