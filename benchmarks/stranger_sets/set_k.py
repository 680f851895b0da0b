"""Corpus K: in-place NumPy written by performance-minded users.

Thirty-six small, self-contained programs of the kind a scientist, engineer
or data analyst writes when they care about allocations and memory traffic.
Every program copies its inputs before mutating them and then works on its
own buffers in place.

Styles covered (each program mixes several):

* in-place arithmetic: ``x += dt * v``, ``a *= 0.5``, slice updates such as
  ``y[1:-1] += tmp``, ufuncs with ``out=`` (``np.add``, ``np.multiply``,
  ``np.exp``, ``np.clip``, ``np.maximum`` ...), ``np.copyto``;
* preallocated outputs filled row by row or column by column inside loops,
  ping-pong (double) buffers swapped each time step, ring buffers indexed
  modulo their depth;
* masked and fancy-indexed assignment: ``x[mask] = v``, ``np.putmask``,
  ``np.add.at`` scatter-adds, lookup tables;
* cumulative / running quantities: ``np.cumsum(..., out=...)``,
  ``np.maximum.accumulate``, exponential moving averages, prefix sums,
  running minima and maxima;
* time stepping (heat, wave, advection and advection-diffusion stencils,
  particles, Euler / Heun / midpoint / leapfrog integrators, cellular
  automata with ``np.roll``), iterative solvers (Jacobi, red-black SOR,
  power iteration, PageRank, Thomas algorithm), image filters that write
  into an edge-padded buffer;
* elementwise chains with exp, log, log1p, expm1, sqrt, tanh, sin, cos,
  arctan2, abs, maximum, minimum, where, and reductions with axis/keepdims.

Dtypes: about 40% float32 (kept float32 throughout with ``np.float32``
constants), about 45% float64, and a handful of int32 / int64 / bool
programs.  Sizes: roughly a third around 10_000 elements, a third between
100_000 and 1_000_000 elements, and a third between 1 and 8 million
elements.  Loops run 5 to 200 steps and every program finishes well under
a second.  All programs are deterministic, well conditioned, and return
finite arrays / scalars / tuples.
"""

import numpy as np


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------

def _fill_padded(img, pad, buf):
    """Copy ``img`` into the centre of ``buf`` and replicate its edges."""
    h, w = img.shape
    buf[pad:pad + h, pad:pad + w] = img
    buf[:pad, pad:pad + w] = img[0]
    buf[pad + h:, pad:pad + w] = img[-1]
    buf[:, :pad] = buf[:, pad:pad + 1]
    buf[:, pad + w:] = buf[:, pad + w - 1:pad + w]
    return buf


def _sigmoid_inplace(z):
    """Numerically safe logistic function, overwriting ``z``."""
    z *= 0.5
    np.tanh(z, out=z)
    z += 1.0
    z *= 0.5
    return z


def _norm_cdf_inplace(x):
    """tanh approximation of the standard normal CDF, overwriting ``x``."""
    x3 = x * x
    x3 *= x
    x3 *= 0.044715
    x += x3
    x *= 0.7978845608028654
    np.tanh(x, out=x)
    x += 1.0
    x *= 0.5
    return x


def _sor_sublattice(u, rhs, r0, c0, omega):
    """Over-relax every second interior point starting at (r0, c0)."""
    n, m = u.shape
    rs, cs = slice(r0, n - 1, 2), slice(c0, m - 1, 2)
    up, dn = slice(r0 - 1, n - 2, 2), slice(r0 + 1, n, 2)
    lf, rt = slice(c0 - 1, m - 2, 2), slice(c0 + 1, m, 2)
    gs = u[up, cs] + u[dn, cs]
    gs += u[rs, lf]
    gs += u[rs, rt]
    gs += rhs[rs, cs]
    gs *= 0.25 * omega
    u[rs, cs] *= 1.0 - omega
    u[rs, cs] += gs


# ---------------------------------------------------------------------------
# PDE / stencil time stepping
# ---------------------------------------------------------------------------

def heat_rod_explicit(u0, kappa, dx, dt, n_steps):
    """FTCS heat equation on a rod with fixed end temperatures."""
    u = u0.copy()
    v = np.empty_like(u)
    r = kappa * dt / (dx * dx)
    left, right = u[0], u[-1]
    for _ in range(n_steps):
        v[1:-1] = u[2:]
        v[1:-1] += u[:-2]
        v[1:-1] -= 2.0 * u[1:-1]
        v[1:-1] *= r
        v[1:-1] += u[1:-1]
        v[0] = left
        v[-1] = right
        u, v = v, u
    return u


def wave_string_leapfrog(u0, v0, c, dx, dt, n_steps):
    """Plucked string, second-order leapfrog with three rotating buffers."""
    c2 = np.float32((c * dt / dx) ** 2)
    half = np.float32(0.5)
    prev = u0.copy()
    cur = prev.copy()
    cur[1:-1] += np.float32(dt) * v0[1:-1]
    cur[1:-1] += half * c2 * (prev[2:] - 2 * prev[1:-1] + prev[:-2])
    cur[0] = cur[-1] = 0
    nxt = np.empty_like(prev)
    energy = np.empty(n_steps, dtype=np.float32)
    for k in range(n_steps):
        nxt[1:-1] = cur[2:] + cur[:-2]
        nxt[1:-1] -= 2 * cur[1:-1]
        nxt[1:-1] *= c2
        nxt[1:-1] += 2 * cur[1:-1]
        nxt[1:-1] -= prev[1:-1]
        nxt[0] = nxt[-1] = 0
        prev, cur, nxt = cur, nxt, prev
        energy[k] = np.dot(cur, cur)
    return cur, energy


def advect_tracer_upwind(q0, u, v, dx, dt, n_steps):
    """First-order upwind advection of a tracer on a periodic 2-D grid."""
    q = q0.copy()
    cx = u * dt / dx
    cy = v * dt / dx
    dqx = np.empty_like(q)
    dqy = np.empty_like(q)
    mass = np.empty(n_steps + 1)
    mass[0] = q.sum()
    for k in range(n_steps):
        np.subtract(q, np.roll(q, 1, axis=1), out=dqx)
        np.subtract(q, np.roll(q, 1, axis=0), out=dqy)
        dqx *= cx
        dqy *= cy
        q -= dqx
        q -= dqy
        mass[k + 1] = q.sum()
    return q, mass


def advect_diffuse_pulse(c0, courant, diff_number, n_steps):
    """Advection-diffusion of a concentration pulse, FTCS with slice updates."""
    c = c0.copy()
    a = np.float32(0.5 * courant)
    d = np.float32(diff_number)
    tmp = np.empty(c.size - 2, dtype=np.float32)
    lap = np.empty(c.size - 2, dtype=np.float32)
    peak = np.empty(n_steps, dtype=np.float32)
    for k in range(n_steps):
        np.subtract(c[2:], c[:-2], out=tmp)
        tmp *= -a
        np.add(c[2:], c[:-2], out=lap)
        lap -= 2 * c[1:-1]
        lap *= d
        tmp += lap
        c[1:-1] += tmp
        c[0] = c[1]
        c[-1] = c[-2]
        peak[k] = c.max()
    return c, peak


def jacobi_poisson(f, h, n_iter):
    """Jacobi iteration for -lap(u) = f with zero Dirichlet boundaries."""
    u = np.zeros_like(f)
    new = np.zeros_like(f)
    h2f = (h * h) * f
    change = np.empty(n_iter)
    inner = (slice(1, -1), slice(1, -1))
    for k in range(n_iter):
        w = new[inner]
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=w)
        w += u[1:-1, :-2]
        w += u[1:-1, 2:]
        w += h2f[inner]
        w *= 0.25
        change[k] = np.abs(new - u).max()
        u, new = new, u
    return u, change


def sor_red_black(f, h, omega, n_iter):
    """Red-black successive over-relaxation for the Poisson equation."""
    u = np.zeros_like(f)
    rhs = (h * h) * f
    norms = np.empty(n_iter)
    for k in range(n_iter):
        _sor_sublattice(u, rhs, 1, 1, omega)
        _sor_sublattice(u, rhs, 2, 2, omega)
        _sor_sublattice(u, rhs, 1, 2, omega)
        _sor_sublattice(u, rhs, 2, 1, omega)
        norms[k] = np.sqrt(np.mean(u * u))
    return u, norms


# ---------------------------------------------------------------------------
# particles and ODE ensembles
# ---------------------------------------------------------------------------

def particles_soft_floor(pos, vel, dt, n_steps, k_floor, drag):
    """Semi-implicit Euler for falling particles with a penalty floor at z=0."""
    p = pos.copy()
    v = vel.copy()
    g = np.array([0.0, 0.0, -9.81], dtype=np.float32)
    pen = np.empty(p.shape[0], dtype=np.float32)
    damp = np.float32(1) - drag * dt
    zmax = np.empty(n_steps, dtype=np.float32)
    for k in range(n_steps):
        np.negative(p[:, 2], out=pen)
        np.maximum(pen, np.float32(0), out=pen)
        pen *= k_floor * dt
        v += dt * g
        v[:, 2] += pen
        v *= damp
        p += dt * v
        zmax[k] = p[:, 2].max()
    return p, v, zmax


def driven_oscillators_heun(x0, v0, omega, zeta, f_amp, f_freq, dt, n_steps):
    """Ensemble of damped, driven oscillators integrated with Heun (RK2)."""
    x = x0.copy()
    v = v0.copy()
    w2 = omega * omega
    c = 2.0 * zeta * omega
    amp = np.abs(x)
    a1 = np.empty_like(x)
    a2 = np.empty_like(x)
    xp = np.empty_like(x)
    vp = np.empty_like(x)
    for k in range(n_steps):
        t = k * dt
        np.multiply(c, v, out=a1)
        a1 += w2 * x
        np.subtract(f_amp * np.cos(f_freq * t), a1, out=a1)
        np.multiply(v, dt, out=xp)
        xp += x
        np.multiply(a1, dt, out=vp)
        vp += v
        np.multiply(c, vp, out=a2)
        a2 += w2 * xp
        np.subtract(f_amp * np.cos(f_freq * (t + dt)), a2, out=a2)
        vp += v
        x += (0.5 * dt) * vp
        a1 += a2
        v += (0.5 * dt) * a1
        np.maximum(amp, np.abs(x), out=amp)
    return x, v, amp


def lotka_volterra_ensemble(prey0, pred0, alpha, beta, gamma, delta, dt, n_steps):
    """Predator-prey ensemble over a parameter sweep, explicit midpoint rule."""
    x = prey0.copy()
    y = pred0.copy()
    xm = np.empty_like(x)
    ym = np.empty_like(y)
    peak_prey = x.copy()
    peak_pred = y.copy()
    half = 0.5 * dt
    for _ in range(n_steps):
        np.multiply(x, alpha - beta * y, out=xm)
        np.multiply(y, delta * x - gamma, out=ym)
        xm *= half
        ym *= half
        xm += x
        ym += y
        x += dt * xm * (alpha - beta * ym)
        y += dt * ym * (delta * xm - gamma)
        np.maximum(peak_prey, x, out=peak_prey)
        np.maximum(peak_pred, y, out=peak_pred)
    return x, y, peak_prey, peak_pred


def lif_population(i_ext, v0, dt, tau, v_th, v_reset, t_ref, n_steps):
    """Leaky integrate-and-fire neurons with refractory periods."""
    v = v0.copy()
    refr = np.zeros(v.shape, dtype=np.int64)
    spikes = np.zeros(v.shape, dtype=np.int64)
    rate = np.empty(n_steps)
    ref_steps = int(round(t_ref / dt))
    decay = dt / tau
    dv = np.empty_like(v)
    for t in range(n_steps):
        np.subtract(i_ext, v, out=dv)
        dv *= decay
        frozen = refr > 0
        dv[frozen] = 0.0
        v += dv
        refr[frozen] -= 1
        fired = v >= v_th
        v[fired] = v_reset
        refr[fired] = ref_steps
        np.add(spikes, fired, out=spikes)
        rate[t] = fired.mean()
    return spikes, v, rate


def decay_chain_inventory(n0, lam, dt, n_steps):
    """Radioactive decay chain: each species feeds the next one down."""
    amounts = n0.copy()
    frac = np.empty_like(amounts)
    np.multiply(lam, -dt, out=frac)
    np.expm1(frac, out=frac)
    np.negative(frac, out=frac)
    decayed = np.empty_like(amounts)
    history = np.empty((n_steps, amounts.shape[0]), dtype=np.float32)
    for t in range(n_steps):
        np.multiply(amounts, frac, out=decayed)
        amounts -= decayed
        amounts[1:] += decayed[:-1]
        history[t] = amounts.sum(axis=1)
    return amounts, history


# ---------------------------------------------------------------------------
# signals, streams and running quantities
# ---------------------------------------------------------------------------

def ewm_mean_std(x, alpha):
    """Exponentially weighted running mean and standard deviation per channel."""
    a = np.float32(alpha)
    keep = np.float32(1) - a
    m = x[0].copy()
    var = np.zeros_like(m)
    diff = np.empty_like(m)
    incr = np.empty_like(m)
    mean_out = np.empty_like(x)
    std_out = np.empty_like(x)
    mean_out[0] = m
    std_out[0] = 0
    for t in range(1, x.shape[0]):
        np.subtract(x[t], m, out=diff)
        np.multiply(diff, a, out=incr)
        m += incr
        diff *= incr
        var += diff
        var *= keep
        mean_out[t] = m
        np.sqrt(var, out=std_out[t])
    return mean_out, std_out


def equity_drawdown(returns):
    """Equity curve from simple returns and its running drawdown."""
    n = returns.size
    equity = np.empty(n)
    np.log1p(returns, out=equity)
    np.cumsum(equity, out=equity)
    np.exp(equity, out=equity)
    peak = np.empty(n)
    np.maximum.accumulate(equity, out=peak)
    dd = equity / peak
    dd -= 1.0
    worst = np.minimum.accumulate(dd)
    return equity, dd, worst[-1]


def ring_buffer_average(frames, depth):
    """Running mean of the last ``depth`` frames using a ring buffer."""
    n_frames, n_pix = frames.shape
    ring = np.zeros((depth, n_pix), dtype=np.float32)
    acc = np.zeros(n_pix, dtype=np.float32)
    out = np.empty_like(frames)
    for k in range(n_frames):
        slot = k % depth
        acc -= ring[slot]
        np.copyto(ring[slot], frames[k])
        acc += ring[slot]
        out[k] = acc
        out[k] /= np.float32(min(k + 1, depth))
    return out


def kalman_random_walk(z, q, r, x0, p0):
    """Scalar Kalman filter run over many independent random-walk tracks."""
    n_t, n = z.shape
    x = np.full(n, x0, dtype=np.float64)
    p = np.full(n, p0, dtype=np.float64)
    gain = np.empty(n)
    innov = np.empty(n)
    est = np.empty_like(z)
    mean_gain = np.empty(n_t)
    for t in range(n_t):
        p += q
        np.add(p, r, out=gain)
        np.divide(p, gain, out=gain)
        np.subtract(z[t], x, out=innov)
        innov *= gain
        x += innov
        p *= 1.0 - gain
        est[t] = x
        mean_gain[t] = gain.mean()
    return est, p, mean_gain


def sliding_window_range(x, window):
    """Sliding-window min, max and range of a long signal."""
    n = x.shape[0] - window + 1
    lo = x[:n].copy()
    hi = x[:n].copy()
    for k in range(1, window):
        np.minimum(lo, x[k:k + n], out=lo)
        np.maximum(hi, x[k:k + n], out=hi)
    spread = hi - lo
    record = np.maximum.accumulate(spread)
    return spread, record


def prefix_range_sums(values, starts, lengths):
    """Answer many range-sum queries from a prefix-sum table."""
    prefix = np.zeros(values.size + 1, dtype=np.int64)
    np.cumsum(values, out=prefix[1:])
    ends = starts + lengths
    sums = prefix[ends]
    sums -= prefix[starts]
    best = np.empty_like(sums)
    np.maximum.accumulate(sums, out=best)
    return sums, best


# ---------------------------------------------------------------------------
# images and grids
# ---------------------------------------------------------------------------

def box_blur_separable(img, radius):
    """Separable box blur via an edge-replicated padded buffer."""
    h, w = img.shape
    k = 2 * radius + 1
    buf = np.empty((h + 2 * radius, w + 2 * radius), dtype=img.dtype)
    _fill_padded(img, radius, buf)
    rows = np.zeros((h + 2 * radius, w), dtype=img.dtype)
    for dx in range(k):
        rows += buf[:, dx:dx + w]
    out = np.zeros((h, w), dtype=img.dtype)
    for dy in range(k):
        out += rows[dy:dy + h]
    out *= np.float32(1.0 / (k * k))
    return out


def unsharp_mask(img, amount, threshold):
    """3x3 Gaussian unsharp masking with a detail threshold."""
    h, w = img.shape
    buf = np.empty((h + 2, w + 2))
    _fill_padded(img, 1, buf)
    blur = 4.0 * buf[1:-1, 1:-1]
    edge = buf[:-2, 1:-1] + buf[2:, 1:-1]
    edge += buf[1:-1, :-2]
    edge += buf[1:-1, 2:]
    edge *= 2.0
    blur += edge
    blur += buf[:-2, :-2]
    blur += buf[:-2, 2:]
    blur += buf[2:, :-2]
    blur += buf[2:, 2:]
    blur /= 16.0
    detail = img - blur
    detail[np.abs(detail) < threshold] = 0.0
    out = img.copy()
    out += amount * detail
    np.clip(out, 0.0, 1.0, out=out)
    return out


def flat_field_calibrate(raw, dark, flat, raw_saturation):
    """Dark/flat correction, hot-pixel replacement and percentile stretch."""
    hot = raw >= raw_saturation
    img = raw.copy()
    img -= dark
    gain = flat / flat.mean()
    img /= gain
    np.clip(img, np.float32(0), np.float32(raw_saturation), out=img)
    med = np.median(img[~hot])
    np.putmask(img, hot, med)
    lo, hi = np.percentile(img, [1.0, 99.0]).astype(np.float32)
    img -= lo
    img *= np.float32(1) / (hi - lo)
    np.clip(img, np.float32(0), np.float32(1), out=img)
    return img, hot.sum()


def resize_bilinear(img, out_h, out_w):
    """Align-corners bilinear resize with exact integer source coordinates."""
    h, w = img.shape
    ys = np.arange(out_h, dtype=np.int64) * (h - 1)
    y0 = ys // (out_h - 1)
    fy = (ys % (out_h - 1)).astype(np.float32) / np.float32(out_h - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    xs = np.arange(out_w, dtype=np.int64) * (w - 1)
    x0 = xs // (out_w - 1)
    fx = (xs % (out_w - 1)).astype(np.float32) / np.float32(out_w - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    rows = img[y0]
    rows += fy[:, None] * (img[y1] - rows)
    left = rows[:, x0]
    out = np.empty((out_h, out_w), dtype=np.float32)
    np.subtract(rows[:, x1], left, out=out)
    out *= fx
    out += left
    return out


def segment_threshold_cleanup(img, lo, hi, min_neighbors):
    """Two-level threshold labelling with removal of isolated pixels."""
    labels = np.zeros(img.shape, dtype=np.int32)
    labels[img >= lo] = 1
    labels[img >= hi] = 2
    fg = labels > 0
    nb = np.zeros(img.shape, dtype=np.int32)
    nb[1:, :] += fg[:-1, :]
    nb[:-1, :] += fg[1:, :]
    nb[:, 1:] += fg[:, :-1]
    nb[:, :-1] += fg[:, 1:]
    isolated = fg & (nb < min_neighbors)
    labels[isolated] = 0
    counts = np.bincount(labels.ravel(), minlength=3)
    return labels, counts


def histogram_equalize(img, levels):
    """Integer histogram equalisation through a cumulative lookup table."""
    counts = np.bincount(img.ravel(), minlength=levels)
    cdf = np.empty(levels, dtype=np.int64)
    np.cumsum(counts, out=cdf)
    cdf_min = cdf[np.argmax(counts > 0)]
    n = img.size
    lut = cdf - cdf_min
    lut *= levels - 1
    lut //= max(n - cdf_min, 1)
    np.clip(lut, 0, levels - 1, out=lut)
    out = lut.astype(np.int32)[img]
    return out


def detector_hit_map(rows, cols, n_rows, n_cols, hot_factor):
    """Accumulate detector hits with np.add.at and mask hot pixels."""
    counts = np.zeros((n_rows, n_cols), dtype=np.int64)
    np.add.at(counts, (rows, cols), 1)
    med = np.median(counts)
    hot = counts > hot_factor * max(med, 1.0)
    cleaned = counts.copy()
    cleaned[hot] = 0
    row_tot = cleaned.sum(axis=1)
    col_tot = cleaned.sum(axis=0)
    return cleaned, row_tot, col_tot, int(hot.sum())


def game_of_life_torus(board, n_steps):
    """Conway's Game of Life on a torus, neighbours counted with np.roll."""
    b = board.copy()
    nb = np.empty(b.shape, dtype=np.uint8)
    pop = np.empty(n_steps, dtype=np.int64)
    for t in range(n_steps):
        nb.fill(0)
        for dy in (-1, 0, 1):
            shifted = np.roll(b, dy, axis=0)
            for dx in (-1, 0, 1):
                if dy == 0 and dx == 0:
                    continue
                nb += np.roll(shifted, dx, axis=1)
        b = (nb == 3) | (b & (nb == 2))
        pop[t] = np.count_nonzero(b)
    return b, pop


def elementary_automaton(cells, rule, n_steps):
    """Wolfram elementary cellular automaton with periodic boundaries."""
    table = np.array([(rule >> i) & 1 for i in range(8)], dtype=bool)
    hist = np.empty((n_steps + 1, cells.size), dtype=bool)
    hist[0] = cells
    code = np.empty(cells.size, dtype=np.uint8)
    for t in range(n_steps):
        cur = hist[t]
        code[:] = np.roll(cur, 1)
        code <<= 1
        code |= cur
        code <<= 1
        code |= np.roll(cur, -1)
        np.take(table, code, out=hist[t + 1])
    density = hist.sum(axis=1)
    return hist, density


def rotate_warp_polar(xy, angle, radial_gain):
    """Rotate points and warp their radius logarithmically, via polar coords."""
    x = xy[:, 0]
    y = xy[:, 1]
    r = np.sqrt(x * x + y * y)
    theta = np.arctan2(y, x)
    theta += np.float32(angle)
    np.log1p(r, out=r)
    r *= np.float32(radial_gain)
    np.expm1(r, out=r)
    out = np.empty_like(xy)
    np.cos(theta, out=out[:, 0])
    out[:, 0] *= r
    np.sin(theta, out=out[:, 1])
    out[:, 1] *= r
    return out, r.mean(dtype=np.float32)


# ---------------------------------------------------------------------------
# statistics, ML and linear algebra
# ---------------------------------------------------------------------------

def softmax_temperature(logits, temperature):
    """Row softmax with temperature, computed in place, plus row entropy."""
    z = logits / np.float32(temperature)
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    logz = np.maximum(z, np.float32(1e-30))
    np.log(logz, out=logz)
    logz *= z
    entropy = -logz.sum(axis=1)
    return z, entropy


def layer_norm_affine(x, gamma, beta, eps):
    """Layer normalisation over the last axis with learned scale and shift."""
    y = x.copy()
    y -= y.mean(axis=-1, keepdims=True)
    var = np.square(y).mean(axis=-1, keepdims=True)
    var += eps
    np.sqrt(var, out=var)
    y /= var
    y *= gamma
    y += beta
    return y


def log_normalize_rows(logp):
    """Normalise unnormalised log-probabilities row-wise (log-sum-exp)."""
    m = logp.max(axis=1, keepdims=True)
    out = logp - m
    s = np.exp(out).sum(axis=1, keepdims=True)
    np.log(s, out=s)
    out -= s
    s += m
    return out, s[:, 0]


def group_center_scale(values, groups, n_groups):
    """Per-group standardisation using scatter-add group statistics."""
    sums = np.zeros(n_groups)
    counts = np.zeros(n_groups, dtype=np.int64)
    np.add.at(sums, groups, values)
    np.add.at(counts, groups, 1)
    means = sums / np.maximum(counts, 1)
    z = values - means[groups]
    sq = np.zeros(n_groups)
    np.add.at(sq, groups, z * z)
    std = sq / np.maximum(counts - 1, 1)
    np.sqrt(std, out=std)
    z /= std[groups]
    return z, means, std


def logistic_regression_gd(X, y, lr, l2, n_iter):
    """Batch gradient descent for L2-regularised logistic regression."""
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    z = np.empty(n)
    p = np.empty(n)
    grad = np.empty(d)
    loss = np.empty(n_iter)
    for k in range(n_iter):
        np.dot(X, w, out=z)
        z += b
        loss[k] = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * np.dot(w, w)
        np.copyto(p, z)
        _sigmoid_inplace(p)
        p -= y
        np.dot(X.T, p, out=grad)
        grad /= n
        grad += l2 * w
        w -= lr * grad
        b -= lr * p.mean()
    return w, b, loss


def black_scholes_calls(S, K, T, sigma, r):
    """European call and put prices for a book of options (float32)."""
    vol = np.sqrt(T)
    vol *= sigma
    d1 = S / K
    np.log(d1, out=d1)
    d1 += (r + np.float32(0.5) * sigma * sigma) * T
    d1 /= vol
    d2 = d1 - vol
    _norm_cdf_inplace(d1)
    _norm_cdf_inplace(d2)
    disc_k = np.exp(-r * T)
    disc_k *= K
    call = S * d1
    call -= disc_k * d2
    np.maximum(call, np.float32(0), out=call)
    put = call - S
    put += disc_k
    np.maximum(put, np.float32(0), out=put)
    return call, put


def thomas_batched(a, b, c, d):
    """Solve many tridiagonal systems at once (one system per column)."""
    n = b.shape[0]
    cp = np.empty_like(b)
    dp = np.empty_like(b)
    x = np.empty_like(b)
    denom = np.empty(b.shape[1])
    np.divide(c[0], b[0], out=cp[0])
    np.divide(d[0], b[0], out=dp[0])
    for i in range(1, n):
        np.multiply(a[i], cp[i - 1], out=denom)
        np.subtract(b[i], denom, out=denom)
        np.divide(c[i], denom, out=cp[i])
        np.multiply(a[i], dp[i - 1], out=dp[i])
        np.subtract(d[i], dp[i], out=dp[i])
        dp[i] /= denom
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        np.multiply(cp[i], x[i + 1], out=x[i])
        np.subtract(dp[i], x[i], out=x[i])
    return x


def pagerank_coo(src, dst, n_nodes, damping, n_iter):
    """Power-iteration PageRank on an edge list with dangling-node handling."""
    out_deg = np.bincount(src, minlength=n_nodes).astype(np.float64)
    dangling = out_deg == 0
    inv_deg = np.zeros(n_nodes)
    np.divide(1.0, out_deg, out=inv_deg, where=~dangling)
    r = np.full(n_nodes, 1.0 / n_nodes)
    new = np.empty_like(r)
    w = np.empty_like(r)
    contrib = np.empty(src.size)
    deltas = np.empty(n_iter)
    for k in range(n_iter):
        np.multiply(r, inv_deg, out=w)
        np.take(w, src, out=contrib)
        new.fill(0.0)
        np.add.at(new, dst, contrib)
        leak = damping * r[dangling].sum() + (1.0 - damping)
        new *= damping
        new += leak / n_nodes
        deltas[k] = np.abs(new - r).sum()
        r, new = new, r
    return r, deltas


def dominant_eigpair(A, x0, n_iter):
    """Power iteration with Rayleigh-quotient history."""
    x = x0 / np.linalg.norm(x0)
    y = np.empty_like(x)
    lam = np.empty(n_iter)
    for k in range(n_iter):
        np.dot(A, x, out=y)
        lam[k] = np.dot(x, y)
        y /= np.linalg.norm(y)
        x, y = y, x
    if np.dot(x, x0) < 0:
        x *= -1.0
    return lam[-1], x, lam


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240611)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    f32 = np.float32

    # heat rod: 200k cells float64
    xg = np.linspace(0.0, 1.0, 200_000)
    u0 = 20.0 + 5.0 * np.sin(3.0 * np.pi * xg) + 50.0 * np.exp(-((xg - 0.4) / 0.001) ** 2)
    add(heat_rod_explicit, u0, 1.0, 1.0, 0.4, 100)

    # plucked string: 10k float32
    xs = np.arange(10_000, dtype=np.float32)
    u0s = np.exp(-((xs - f32(3000)) / f32(200)) ** 2).astype(np.float32)
    u0s[0] = u0s[-1] = 0
    add(wave_string_leapfrog, u0s, np.zeros(10_000, dtype=np.float32), 1.0, 1.0, 0.5, 200)

    # 2-D upwind advection: 700x700 float64
    gy, gx = np.mgrid[0:700, 0:700]
    q0 = np.exp(-(((gx - 200.0) ** 2 + (gy - 300.0) ** 2) / (2 * 40.0 ** 2))) + 0.1
    add(advect_tracer_upwind, q0, 1.0, 0.5, 1.0, 0.4, 20)

    # particles: 10k x 3 float32
    pos = np.empty((10_000, 3), dtype=np.float32)
    pos[:, :2] = rng.uniform(-10, 10, (10_000, 2))
    pos[:, 2] = rng.uniform(0.5, 5.0, 10_000)
    vel = rng.normal(0.0, 1.0, (10_000, 3)).astype(np.float32)
    add(particles_soft_floor, pos, vel, f32(0.005), 200, f32(1000.0), f32(0.1))

    # EWM mean/std: 200 x 64 float32
    t = np.arange(200, dtype=np.float32)[:, None]
    sig = (np.sin(t / f32(15)) + f32(0.3) * rng.standard_normal((200, 64))).astype(np.float32)
    add(ewm_mean_std, sig, 0.1)

    # drawdown: 2M float64
    add(equity_drawdown, rng.normal(0.0, 1e-3, 2_000_000))

    # detector: 500k hits on 256x256
    hr = rng.integers(0, 256, 500_000)
    hc = rng.integers(0, 256, 500_000)
    hot_r = rng.integers(0, 256, 20)
    hot_c = rng.integers(0, 256, 20)
    hr[:20 * 400] = np.repeat(hot_r, 400)
    hc[:20 * 400] = np.repeat(hot_c, 400)
    add(detector_hit_map, hr, hc, 256, 256, 5.0)

    # Game of Life: 100x100 bool
    add(game_of_life_torus, rng.random((100, 100)) < 0.3, 60)

    # Jacobi Poisson: 100x100 float64
    py, px = np.mgrid[0:100, 0:100] / 99.0
    fpo = np.sin(np.pi * px) * np.sin(2 * np.pi * py) * 50.0 + 10.0
    add(jacobi_poisson, fpo, 1.0 / 99.0, 200)

    # box blur: 2000x2000 float32
    add(box_blur_separable, rng.random((2000, 2000), dtype=np.float32), 2)

    # red-black SOR: 400x400 float64
    sy, sx = np.mgrid[0:400, 0:400] / 399.0
    fsor = np.exp(-((sx - 0.3) ** 2 + (sy - 0.6) ** 2) / 0.02) * 100.0
    add(sor_red_black, fsor, 1.0 / 399.0, 1.6, 30)

    # driven oscillators: 100k float64
    n_osc = 100_000
    add(driven_oscillators_heun, rng.normal(0.0, 1.0, n_osc), rng.normal(0.0, 1.0, n_osc),
        rng.uniform(1.0, 10.0, n_osc), rng.uniform(0.05, 0.5, n_osc), 2.0, 3.0, 0.01, 100)

    # softmax: 2048 x 256 float32
    add(softmax_temperature, (3.0 * rng.standard_normal((2048, 256))).astype(np.float32), 0.7)

    # layer norm: 8192 x 512 float32
    xln = (2.0 + 1.5 * rng.standard_normal((8192, 512))).astype(np.float32)
    gam = rng.uniform(0.5, 1.5, 512).astype(np.float32)
    bet = rng.normal(0.0, 0.1, 512).astype(np.float32)
    add(layer_norm_affine, xln, gam, bet, f32(1e-5))

    # flat field: 1732x1732 float32
    shape = (1732, 1732)
    dark = (100.0 + 5.0 * rng.standard_normal(shape)).astype(np.float32)
    fy_, fx_ = np.mgrid[0:1732, 0:1732] / 1731.0
    flat = (1.0 - 0.2 * ((fx_ - 0.5) ** 2 + (fy_ - 0.5) ** 2)).astype(np.float32)
    raw = (dark + flat * rng.uniform(200.0, 3000.0, shape)).astype(np.float32)
    hot_idx = rng.integers(0, raw.size, 2000)
    raw.ravel()[hot_idx] = 4095.0
    add(flat_field_calibrate, raw, dark, flat, f32(4095.0))

    # ring buffer: 120 frames x 8192 float32
    frames = (10.0 + rng.standard_normal((120, 8192))).astype(np.float32)
    add(ring_buffer_average, frames, 8)

    # prefix sums: 2M int32 values, 200k queries
    vals = rng.integers(-1000, 1000, 2_000_000).astype(np.int32)
    starts = rng.integers(0, 1_900_000, 200_000)
    lengths = rng.integers(1, 100_000, 200_000)
    add(prefix_range_sums, vals, starts, lengths)

    # logistic regression: 10k x 8 float64
    Xlr = rng.standard_normal((10_000, 8))
    w_true = rng.normal(0.0, 1.0, 8)
    ylr = (rng.random(10_000) < 1.0 / (1.0 + np.exp(-(Xlr @ w_true)))).astype(np.float64)
    add(logistic_regression_gd, Xlr, ylr, 0.5, 1e-3, 100)

    # Kalman: 60 steps x 200 tracks float64
    truth = np.cumsum(rng.normal(0.0, 0.03, (60, 200)), axis=0)
    rk = rng.uniform(0.05, 0.5, 200)
    zk = truth + rng.standard_normal((60, 200)) * np.sqrt(rk)
    add(kalman_random_walk, zk, 1e-3, rk, 0.0, 1.0)

    # Black-Scholes: 2M float32
    nbs = 2_000_000
    S = rng.uniform(50.0, 150.0, nbs).astype(np.float32)
    K = rng.uniform(60.0, 140.0, nbs).astype(np.float32)
    T = rng.uniform(0.1, 2.0, nbs).astype(np.float32)
    sg = rng.uniform(0.1, 0.5, nbs).astype(np.float32)
    add(black_scholes_calls, S, K, T, sg, f32(0.03))

    # log-sum-exp: 5000 x 200 float64
    add(log_normalize_rows, 5.0 * rng.standard_normal((5000, 200)) - 20.0)

    # polar warp: 2M x 2 float32
    add(rotate_warp_polar, rng.normal(0.0, 3.0, (2_000_000, 2)).astype(np.float32), 0.35, 0.8)

    # segmentation: 2000x2000 int32
    seg = rng.integers(0, 1000, (2000, 2000)).astype(np.int32)
    seg[500:1200, 300:900] += 600
    add(segment_threshold_cleanup, seg, 700, 1300, 2)

    # unsharp: 512x512 float64
    uy, ux = np.mgrid[0:512, 0:512] / 511.0
    uimg = 0.5 + 0.3 * np.sin(8 * ux) * np.cos(5 * uy) + 0.05 * rng.standard_normal((512, 512))
    add(unsharp_mask, np.clip(uimg, 0.0, 1.0), 1.5, 0.02)

    # Lotka-Volterra: 10k float64
    nlv = 10_000
    add(lotka_volterra_ensemble, rng.uniform(5.0, 15.0, nlv), rng.uniform(2.0, 8.0, nlv),
        rng.uniform(0.8, 1.2, nlv), rng.uniform(0.05, 0.15, nlv),
        rng.uniform(0.8, 1.2, nlv), rng.uniform(0.05, 0.15, nlv), 0.01, 200)

    # advection-diffusion: 10k float32
    xa = np.arange(10_000, dtype=np.float32)
    ca = (f32(1.0) + np.exp(-((xa - f32(2000)) / f32(100)) ** 2)).astype(np.float32)
    add(advect_diffuse_pulse, ca, 0.4, 0.2, 200)

    # group stats: 500k float64, 1000 groups
    grp = rng.integers(0, 1000, 500_000)
    gv = 10.0 + rng.normal(0.0, 1.0, 1000)[grp] + rng.standard_normal(500_000)
    add(group_center_scale, gv, grp, 1000)

    # Thomas: 64 x 10k float64, diagonally dominant
    ta = rng.uniform(-1.0, 1.0, (64, 10_000))
    tc = rng.uniform(-1.0, 1.0, (64, 10_000))
    ta[0] = 0.0
    tc[-1] = 0.0
    tb = 2.5 + rng.random((64, 10_000))
    td = rng.standard_normal((64, 10_000))
    add(thomas_batched, ta, tb, tc, td)

    # decay chain: 5 species x 10k samples float32
    n0 = np.zeros((5, 10_000), dtype=np.float32)
    n0[0] = rng.uniform(1e3, 1e4, 10_000)
    lam = np.empty((5, 10_000), dtype=np.float32)
    lam[:4] = rng.uniform(0.01, 0.2, (4, 10_000))
    lam[4] = 0.0
    add(decay_chain_inventory, n0, lam, f32(0.5), 100)

    # elementary CA rule 30: 10k cells bool
    add(elementary_automaton, rng.random(10_000) < 0.5, 30, 200)

    # LIF neurons: 100k float64
    nlif = 100_000
    add(lif_population, rng.uniform(0.5, 2.0, nlif), rng.uniform(0.0, 1.0, nlif),
        5e-4, 2e-2, 1.0, 0.0, 2e-3, 200)

    # bilinear resize: 1024x1024 -> 1536x1536 float32
    add(resize_bilinear, rng.random((1024, 1024), dtype=np.float32), 1536, 1536)

    # sliding min/max: 4M float32
    sw = np.cumsum(rng.standard_normal(4_000_000)).astype(np.float32) * f32(0.01)
    add(sliding_window_range, sw, 9)

    # PageRank: 200k nodes, 1M edges
    n_nodes = 200_000
    src = rng.integers(0, n_nodes - 1000, 1_000_000)
    dst = (rng.zipf(1.6, 1_000_000) - 1) % n_nodes
    add(pagerank_coo, src, dst, n_nodes, 0.85, 10)

    # power iteration: 100x100 float64 with a clear spectral gap
    Q, _ = np.linalg.qr(rng.standard_normal((100, 100)))
    ev = np.concatenate([[10.0, 5.0], rng.uniform(-3.0, 3.0, 98)])
    A = (Q * ev) @ Q.T
    A = 0.5 * (A + A.T)
    add(dominant_eigpair, A, rng.standard_normal(100) + Q[:, 0], 100)

    # histogram equalisation: 1732x1732 int32 12-bit
    he = np.clip(rng.normal(1500.0, 300.0, (1732, 1732)), 0, 4095).astype(np.int32)
    add(histogram_equalize, he, 4096)

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
