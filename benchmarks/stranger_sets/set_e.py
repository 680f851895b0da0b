"""Benchmark corpus E: elementwise numerical code.

Ordinary NumPy programs of the kind written in physics, finance, machine
learning and signal processing: long chains of ufuncs over whole arrays
(optionally ending in a reduction), time-stepping simulations that update
arrays in place inside a Python loop, and small-array / 2-D broadcast
computations.
"""

import math

import numpy as np


# ---------------------------------------------------------------------------
# Elementwise chains, float32 (large arrays)
# ---------------------------------------------------------------------------

def gelu_softplus_f32(x):
    c = 0.7978845608
    inner = c * (x + 0.044715 * x * x * x)
    gelu = 0.5 * x * (1.0 + np.tanh(inner))
    softplus = np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    return gelu - 0.25 * softplus


def black_scholes_call_f32(S, K, T, r, sigma):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    # Abramowitz-Stegun 26.2.17 for the normal CDF, written out twice
    k1 = 1.0 / (1.0 + 0.2316419 * np.abs(d1))
    poly1 = k1 * (0.319381530 + k1 * (-0.356563782 + k1 * (1.781477937
                  + k1 * (-1.821255978 + k1 * 1.330274429))))
    w1 = 1.0 - 0.3989422804 * np.exp(-0.5 * d1 * d1) * poly1
    n1 = np.where(d1 >= 0, w1, 1.0 - w1)
    k2 = 1.0 / (1.0 + 0.2316419 * np.abs(d2))
    poly2 = k2 * (0.319381530 + k2 * (-0.356563782 + k2 * (1.781477937
                  + k2 * (-1.821255978 + k2 * 1.330274429))))
    w2 = 1.0 - 0.3989422804 * np.exp(-0.5 * d2 * d2) * poly2
    n2 = np.where(d2 >= 0, w2, 1.0 - w2)
    return S * n1 - K * np.exp(-r * T) * n2


def focal_loss_f32(logits, targets, alpha, gamma):
    p = 1.0 / (1.0 + np.exp(-logits))
    pt = targets * p + (1.0 - targets) * (1.0 - p)
    at = alpha * targets + (1.0 - alpha) * (1.0 - targets)
    pt = np.clip(pt, 1e-7, 1.0)
    loss = -at * (1.0 - pt) ** gamma * np.log(pt)
    return loss.mean()


def lennard_jones_f32(r, sigma, eps, rcut):
    sr_cut6 = (sigma / rcut) ** 6
    e_cut = 4.0 * eps * (sr_cut6 * sr_cut6 - sr_cut6)
    sr2 = (sigma / r) ** 2
    sr6 = sr2 * sr2 * sr2
    sr12 = sr6 * sr6
    energy = np.where(r < rcut, 4.0 * eps * (sr12 - sr6) - e_cut, 0.0)
    force = np.where(r < rcut, 24.0 * eps * (2.0 * sr12 - sr6) / r, 0.0)
    return energy.sum(), force


def srgb_tonemap_f32(img, gain):
    c = np.clip(img * gain, 0.0, 1.0)
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    mapped = lin / (1.0 + lin)
    out = np.where(mapped <= 0.0031308, 12.92 * mapped,
                   1.055 * mapped ** (1.0 / 2.4) - 0.055)
    return out


def wave_packet_f32(x, t, k0, omega, velocity, width):
    shift = x - velocity * t
    env = np.exp(-(shift * shift) / (2.0 * width * width))
    phase = k0 * x - omega * t
    re = env * np.cos(phase)
    im = env * np.sin(phase)
    prob = re * re + im * im
    return re, prob.max(), prob.sum()


def polar_warp_f32(x, y, angle, strength):
    r = np.hypot(x, y)
    theta = np.arctan2(y, x) + angle * np.exp(-r * strength)
    r2 = np.sqrt(r) * (1.0 + 0.1 * np.sin(3.0 * theta))
    xn = r2 * np.cos(theta)
    yn = r2 * np.sin(theta)
    return xn, yn


def huber_loss_f32(pred, target, delta):
    r = pred - target
    a = np.abs(r)
    quad = 0.5 * r * r
    lin = delta * (a - 0.5 * delta)
    loss = np.where(a <= delta, quad, lin)
    return loss.mean(), a.max()


def normalize_swish_f32(x, gamma, beta):
    mu = x.mean()
    centered = x - mu
    var = (centered * centered).mean()
    y = centered / np.sqrt(var + 1e-5) * gamma + beta
    return y / (1.0 + np.exp(-y))


def log_barrier_f32(x, lo, hi, t):
    inside = (x > lo) & (x < hi)
    d_lo = np.maximum(x - lo, 1e-12)
    d_hi = np.maximum(hi - x, 1e-12)
    phi = t * x * x - np.log(d_lo) - np.log(d_hi)
    vals = np.where(inside, phi, 0.0)
    return vals.sum(), np.count_nonzero(inside)


# ---------------------------------------------------------------------------
# Elementwise chains, float64
# ---------------------------------------------------------------------------

def planck_radiance_f64(lam, temp):
    h = 6.62607015e-34
    c = 299792458.0
    kb = 1.380649e-23
    a = 2.0 * h * c * c / lam ** 5
    b = h * c / (lam * kb * temp)
    radiance = a / np.expm1(b)
    return radiance, radiance.mean()


def haversine_f64(lat1, lon1, lat2, lon2):
    deg = math.pi / 180.0
    p1 = lat1 * deg
    p2 = lat2 * deg
    dphi = (lat2 - lat1) * deg
    dlam = (lon2 - lon1) * deg
    a = np.sin(dphi / 2.0) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlam / 2.0) ** 2
    c = 2.0 * np.arctan2(np.sqrt(a), np.sqrt(1.0 - a))
    d = 6371.0 * c
    return d, d.sum()


def black_scholes_logistic_f64(S, K, T, r, sigma):
    vol = sigma * np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / vol
    d2 = d1 - vol
    nd1 = 1.0 / (1.0 + np.exp(-1.702 * d1))
    nd2 = 1.0 / (1.0 + np.exp(-1.702 * d2))
    disc = K * np.exp(-r * T)
    call = S * nd1 - disc * nd2
    put = call - S + disc
    return call, put


def relativistic_energy_f64(v, m):
    c = 299792458.0
    beta = v / c
    gamma = 1.0 / np.sqrt(1.0 - beta * beta)
    ke = (gamma - 1.0) * m * c * c
    p = gamma * m * v
    return ke.sum(), p


def angle_between_f64(ax, ay, az, bx, by, bz):
    dot = ax * bx + ay * by + az * bz
    na = np.sqrt(ax * ax + ay * ay + az * az)
    nb = np.sqrt(bx * bx + by * by + bz * bz)
    cosang = np.clip(dot / (na * nb), -1.0, 1.0)
    ang = np.arccos(cosang)
    return ang, ang.mean()


def safe_log_ratio_f64(num, den):
    ratio = num / den
    ok = np.isfinite(ratio) & (ratio > 0)
    out = np.where(ok, np.log(np.where(ok, ratio, 1.0)), 0.0)
    return out, out.sum(), np.count_nonzero(ok)


def kepler_orbit_f64(M, e, a, iters):
    E = M + e * np.sin(M)
    for _ in range(iters):
        E = E - (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
    nu = 2.0 * np.arctan2(np.sqrt(1.0 + e) * np.sin(E / 2.0),
                          np.sqrt(1.0 - e) * np.cos(E / 2.0))
    r = a * (1.0 - e * np.cos(E))
    return nu, r


def rosenbrock_sum_f64(x):
    head = x[:-1]
    tail = x[1:]
    terms = 100.0 * (tail - head ** 2) ** 2 + (1.0 - head) ** 2
    return terms.sum()


def catenary_f64(x, a):
    u = x / a
    y = a * np.cosh(u)
    slope = np.sinh(u)
    arc = a * slope
    curvature = 1.0 / (a * np.cosh(u) ** 2)
    angle = np.arctan(slope)
    return y, arc.max() - arc.min(), curvature.mean(), angle


def snell_fresnel_f64(theta_i, n1, n2):
    sin_t = n1 / n2 * np.sin(theta_i)
    tir = np.abs(sin_t) > 1.0
    theta_t = np.arcsin(np.clip(sin_t, -1.0, 1.0))
    ci = np.cos(theta_i)
    ct = np.cos(theta_t)
    rs = ((n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)) ** 2
    rp = ((n1 * ct - n2 * ci) / (n1 * ct + n2 * ci)) ** 2
    R = np.where(tir, 1.0, 0.5 * (rs + rp))
    brewster_gap = np.abs(theta_i - np.arctan(n2 / n1))
    shift = np.tan(theta_i) - np.tan(theta_t)
    return R, R.mean(), brewster_gap.min(), np.where(tir, 0.0, shift)


# ---------------------------------------------------------------------------
# Time-stepping simulations (in-place updates in Python loops)
# ---------------------------------------------------------------------------

def harmonic_symplectic(x0, v0, k, dt, steps):
    x = x0.copy()
    v = v0.copy()
    for _ in range(steps):
        v -= k * x * dt
        x += v * dt
    energy = 0.5 * (v * v + k * x * x)
    return x, v, energy.sum()


def bouncing_balls(y0, vy0, g, restitution, dt, steps):
    y = y0.copy()
    vy = vy0.copy()
    bounces = np.zeros(y.shape, dtype=np.int64)
    for _ in range(steps):
        vy -= g * dt
        y += vy * dt
        hit = y < 0.0
        y[hit] = -y[hit]
        vy[hit] *= -restitution
        bounces += hit
    return y, vy, bounces


def heat_1d(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] += alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u, u.sum()


def lotka_volterra_ensemble(prey0, pred0, a, b, c, d, dt, steps):
    x = prey0.copy()
    y = pred0.copy()
    for _ in range(steps):
        dx = (a * x - b * x * y) * dt
        dy = (d * x * y - c * y) * dt
        x += dx
        y += dy
        np.maximum(x, 0.0, out=x)
        np.maximum(y, 0.0, out=y)
    return x, y


def sir_ensemble(beta, gamma, i0, dt, steps):
    s = 1.0 - i0
    i = i0.copy()
    r = np.zeros_like(i0)
    peak = i0.copy()
    for _ in range(steps):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s -= new_inf
        i += new_inf - new_rec
        r += new_rec
        np.maximum(peak, i, out=peak)
    return s, r, peak


def damped_pendulum(theta0, omega0, damping, g_over_l, dt, steps):
    theta = theta0.copy()
    omega = omega0.copy()
    amp = np.abs(theta0)
    for _ in range(steps):
        omega += (-g_over_l * np.sin(theta) - damping * omega) * dt
        theta += omega * dt
        amp = np.maximum(amp, np.abs(theta))
    return theta, omega, amp


def particles_box_2d(x0, y0, vx0, vy0, L, dt, steps):
    x = x0.copy()
    y = y0.copy()
    vx = vx0.copy()
    vy = vy0.copy()
    for _ in range(steps):
        x += vx * dt
        y += vy * dt
        lo = x < 0.0
        x[lo] = -x[lo]
        vx[lo] *= -1.0
        hi = x > L
        x[hi] = 2.0 * L - x[hi]
        vx[hi] *= -1.0
        lo = y < 0.0
        y[lo] = -y[lo]
        vy[lo] *= -1.0
        hi = y > L
        y[hi] = 2.0 * L - y[hi]
        vy[hi] *= -1.0
    ke = 0.5 * (vx * vx + vy * vy)
    return x, y, ke.mean()


def gbm_lookback(s0, mu, sigma, dt, noise):
    n = noise.shape[1]
    s = np.full(n, s0)
    running_max = s.copy()
    sq = math.sqrt(dt)
    for k in range(noise.shape[0]):
        s += mu * s * dt + sigma * s * sq * noise[k]
        np.maximum(running_max, s, out=running_max)
    payoff = running_max - s
    return s.mean(), payoff.mean(), running_max


def fitzhugh_nagumo(v0, w0, I_ext, a, b, eps, dt, steps):
    v = v0.copy()
    w = w0.copy()
    spikes = np.zeros(v.shape, dtype=np.int64)
    for _ in range(steps):
        v_old = v.copy()
        dv = v - v * v * v / 3.0 - w + I_ext
        dw = eps * (v + a - b * w)
        v += dv * dt
        w += dw * dt
        spikes += (v_old < 1.0) & (v >= 1.0)
    return v, w, spikes


def wave_1d_leapfrog(u0, c, dx, dt, steps):
    r2 = (c * dt / dx) ** 2
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = (2.0 * u[1:-1] - u_prev[1:-1]
                        + r2 * (u[2:] - 2.0 * u[1:-1] + u[:-2]))
        u_prev = u
        u = u_next
    vel = (u - u_prev) / dt
    return u, 0.5 * (vel * vel).sum() * dx


# ---------------------------------------------------------------------------
# Small arrays and 2-D broadcasts
# ---------------------------------------------------------------------------

def compound_growth(principal, rate, years, periods):
    n_periods = np.floor(years * periods)
    amount = principal * np.power(1.0 + rate / periods, n_periods)
    continuous = principal * np.exp(rate * years)
    gap = continuous - amount
    return amount, gap.mean()


def gaussian_kernel_rows(a, b, bandwidth):
    d2 = (a[:, None] - b[None, :]) ** 2
    K = np.exp(-d2 / (2.0 * bandwidth * bandwidth))
    return K.sum(axis=1)


def naive_dft_magnitude(signal):
    N = signal.shape[0]
    n = np.arange(N)
    ang = 2.0 * math.pi * n[:, None] * n[None, :] / N
    re = (signal[None, :] * np.cos(ang)).sum(axis=1)
    im = -(signal[None, :] * np.sin(ang)).sum(axis=1)
    return np.hypot(re, im)


def coulomb_field_grid(qx, qy, q, gx, gy, soft):
    dx = gx[:, None] - qx[None, :]
    dy = gy[:, None] - qy[None, :]
    r = np.sqrt(dx * dx + dy * dy + soft * soft)
    inv_r3 = 1.0 / (r * r * r)
    phi = (q[None, :] / r).sum(axis=1)
    ex = (q[None, :] * dx * inv_r3).sum(axis=1)
    ey = (q[None, :] * dy * inv_r3).sum(axis=1)
    return phi, ex, ey


def poly_tanh_clip(x):
    p = ((((0.03 * x - 0.2) * x + 0.5) * x - 1.1) * x + 0.7) * x + 0.1
    y = np.tanh(p) + 0.05 * x
    return np.clip(y, -0.9, 0.9)


def softmax_entropy(logits, temperature):
    z = logits / temperature
    z = z - z.max()
    e = np.exp(z)
    p = e / e.sum()
    entropy = -(p * np.log(np.maximum(p, 1e-300))).sum()
    return p, entropy


def bond_price_grid(yields, times, coupon, face):
    disc = (1.0 + yields[:, None]) ** (-times[None, :])
    price = coupon * disc.sum(axis=1) + face * disc[:, -1]
    weighted = coupon * (times[None, :] * disc).sum(axis=1) + face * times[-1] * disc[:, -1]
    duration = weighted / price
    return price, duration


def attention_softmax(q, k, scale):
    s = q[:, None] * k[None, :] * scale
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=1, keepdims=True)
    return p


def blackman_harris_energy(signal):
    N = signal.shape[0]
    k = np.arange(N)
    t = 2.0 * math.pi * k / (N - 1)
    w = 0.35875 - 0.48829 * np.cos(t) + 0.14128 * np.cos(2.0 * t) - 0.01168 * np.cos(3.0 * t)
    windowed = signal * w
    energy = (windowed * windowed).sum() / (w * w).sum()
    return windowed, energy


def hsv_to_rgb(h, s, v):
    h6 = h * 6.0
    i = np.floor(h6)
    f = h6 - i
    p = v * (1.0 - s)
    q = v * (1.0 - s * f)
    t = v * (1.0 - s * (1.0 - f))
    i = i % 6
    r = np.where(i == 0, v, np.where(i == 1, q, np.where(i == 2, p,
                 np.where(i == 3, p, np.where(i == 4, t, v)))))
    g = np.where(i == 0, t, np.where(i == 1, v, np.where(i == 2, v,
                 np.where(i == 3, q, np.where(i == 4, p, p)))))
    b = np.where(i == 0, p, np.where(i == 1, p, np.where(i == 2, t,
                 np.where(i == 3, v, np.where(i == 4, v, q)))))
    return r, g, b


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240517)
    f32 = np.float32
    n4 = 2 ** 22

    # shared large float32 inputs (never modified by the programs)
    x_norm = rng.standard_normal(n4, dtype=f32)
    y_norm = rng.standard_normal(n4, dtype=f32)
    u01 = rng.random(n4, dtype=f32)
    S32 = rng.uniform(10.0, 100.0, n4).astype(f32)
    K32 = rng.uniform(10.0, 100.0, n4).astype(f32)
    T32 = rng.uniform(0.25, 2.0, n4).astype(f32)
    targets = (rng.random(n4) < 0.3).astype(f32)
    r_lj = rng.uniform(0.85, 3.5, n4).astype(f32)
    xgrid32 = np.linspace(-50.0, 50.0, n4, dtype=f32)

    n1m = 1 << 20
    pred32 = rng.standard_normal(n1m, dtype=f32)
    targ32 = (pred32 + 0.5 * rng.standard_normal(n1m, dtype=f32)).astype(f32)
    barrier_x = rng.uniform(-1.1, 1.1, n1m).astype(f32)

    progs = [
        ("gelu_softplus_f32", gelu_softplus_f32, (x_norm,)),
        ("black_scholes_call_f32", black_scholes_call_f32, (S32, K32, T32, 0.02, 0.3)),
        ("focal_loss_f32", focal_loss_f32, (x_norm * 2.0, targets, 0.25, 2.0)),
        ("lennard_jones_f32", lennard_jones_f32, (r_lj, 1.0, 1.0, 2.5)),
        ("srgb_tonemap_f32", srgb_tonemap_f32, (u01, 1.7)),
        ("wave_packet_f32", wave_packet_f32, (xgrid32, 3.0, 2.5, 1.3, 2.0, 6.0)),
        ("polar_warp_f32", polar_warp_f32, (x_norm, y_norm, 0.8, 0.5)),
        ("huber_loss_f32", huber_loss_f32, (pred32, targ32, 1.0)),
        ("normalize_swish_f32", normalize_swish_f32, (y_norm * 3.0 + 1.0, 1.5, -0.2)),
        ("log_barrier_f32", log_barrier_f32, (barrier_x, -1.0, 1.0, 0.5)),
    ]

    # float64 chains
    n_pl = 500_000
    lam = rng.uniform(1e-7, 1e-5, n_pl)
    temp = rng.uniform(2500.0, 9000.0, n_pl)
    progs.append(("planck_radiance_f64", planck_radiance_f64, (lam, temp)))

    n_hv = 1_000_000
    lat1 = rng.uniform(-89.0, 89.0, n_hv)
    lon1 = rng.uniform(-180.0, 180.0, n_hv)
    lat2 = rng.uniform(-89.0, 89.0, n_hv)
    lon2 = rng.uniform(-180.0, 180.0, n_hv)
    progs.append(("haversine_f64", haversine_f64, (lat1, lon1, lat2, lon2)))

    n_bs = 800_000
    S = rng.uniform(20.0, 200.0, n_bs)
    K = S * rng.uniform(0.7, 1.3, n_bs)
    T = rng.uniform(0.1, 3.0, n_bs)
    sig = rng.uniform(0.1, 0.6, n_bs)
    progs.append(("black_scholes_logistic_f64", black_scholes_logistic_f64, (S, K, T, 0.03, sig)))

    n_rel = 600_000
    v = rng.uniform(0.0, 0.99, n_rel) * 299792458.0
    m = rng.uniform(1e-30, 1e-27, n_rel)
    progs.append(("relativistic_energy_f64", relativistic_energy_f64, (v, m)))

    n_ang = 400_000
    vecs = rng.standard_normal((6, n_ang))
    progs.append(("angle_between_f64", angle_between_f64,
                  (vecs[0].copy(), vecs[1].copy(), vecs[2].copy(),
                   vecs[3].copy(), vecs[4].copy(), vecs[5].copy())))

    n_lr = 700_000
    num = rng.exponential(1.0, n_lr)
    den = rng.exponential(1.0, n_lr)
    num[rng.random(n_lr) < 0.02] = 0.0
    den[rng.random(n_lr) < 0.02] = 0.0
    num[rng.random(n_lr) < 0.01] = np.nan
    den[rng.random(n_lr) < 0.01] = np.inf
    num[rng.random(n_lr) < 0.01] *= -1.0
    progs.append(("safe_log_ratio_f64", safe_log_ratio_f64, (num, den)))

    n_kp = 300_000
    Mk = rng.uniform(0.0, 2.0 * math.pi, n_kp)
    ek = rng.uniform(0.0, 0.9, n_kp)
    ak = rng.uniform(0.4, 30.0, n_kp)
    progs.append(("kepler_orbit_f64", kepler_orbit_f64, (Mk, ek, ak, 12)))

    progs.append(("rosenbrock_sum_f64", rosenbrock_sum_f64,
                  (rng.uniform(-2.0, 2.0, 1_000_000),)))

    progs.append(("catenary_f64", catenary_f64,
                  (np.linspace(-40.0, 40.0, 900_000), 12.0)))

    n_sn = 500_000
    theta_i = rng.uniform(0.01, 1.5, n_sn)
    n2 = rng.uniform(1.0, 2.4, n_sn)
    progs.append(("snell_fresnel_f64", snell_fresnel_f64, (theta_i, 1.5, n2)))

    # time-stepping simulations
    n = 100_000
    progs.append(("harmonic_symplectic", harmonic_symplectic,
                  (rng.standard_normal(n), rng.standard_normal(n),
                   rng.uniform(0.5, 4.0, n), 0.01, 200)))

    n = 50_000
    progs.append(("bouncing_balls", bouncing_balls,
                  (rng.uniform(0.5, 10.0, n), rng.uniform(-2.0, 5.0, n),
                   9.81, 0.85, 0.005, 300)))

    xs = np.linspace(0.0, 1.0, 50_000)
    u0 = np.exp(-((xs - 0.4) / 0.05) ** 2) + 0.5 * (xs > 0.7)
    progs.append(("heat_1d", heat_1d, (u0, 0.24, 500)))

    n = 100_000
    progs.append(("lotka_volterra_ensemble", lotka_volterra_ensemble,
                  (rng.uniform(5.0, 15.0, n), rng.uniform(2.0, 8.0, n),
                   rng.uniform(0.8, 1.2, n), rng.uniform(0.05, 0.15, n),
                   rng.uniform(0.8, 1.6, n), rng.uniform(0.05, 0.12, n),
                   0.01, 200)))

    n = 20_000
    progs.append(("sir_ensemble", sir_ensemble,
                  (rng.uniform(0.1, 0.6, n), rng.uniform(0.05, 0.2, n),
                   rng.uniform(1e-4, 1e-2, n), 1.0, 365)))

    n = 100_000
    progs.append(("damped_pendulum", damped_pendulum,
                  (rng.uniform(-3.0, 3.0, n), rng.uniform(-1.0, 1.0, n),
                   0.15, 9.81, 0.005, 250)))

    n = 50_000
    L = 10.0
    progs.append(("particles_box_2d", particles_box_2d,
                  (rng.uniform(0.0, L, n), rng.uniform(0.0, L, n),
                   rng.standard_normal(n) * 3.0, rng.standard_normal(n) * 3.0,
                   L, 0.01, 200)))

    noise = rng.standard_normal((100, 20_000))
    progs.append(("gbm_lookback", gbm_lookback, (100.0, 0.05, 0.25, 1.0 / 100.0, noise)))

    n = 100_000
    progs.append(("fitzhugh_nagumo", fitzhugh_nagumo,
                  (rng.uniform(-2.0, 2.0, n), rng.uniform(-0.5, 1.5, n),
                   rng.uniform(0.2, 0.8, n), 0.7, 0.8, 0.08, 0.1, 250)))

    xw = np.linspace(0.0, 1.0, 20_000)
    u0w = np.exp(-((xw - 0.5) / 0.02) ** 2)
    progs.append(("wave_1d_leapfrog", wave_1d_leapfrog,
                  (u0w, 1.0, xw[1] - xw[0], 0.8 * (xw[1] - xw[0]), 400)))

    # small arrays and 2-D broadcasts
    progs.append(("compound_growth", compound_growth,
                  (rng.uniform(1000.0, 50000.0, 3000), rng.uniform(0.01, 0.12, 3000),
                   rng.uniform(1.0, 30.0, 3000), 12.0)))

    progs.append(("gaussian_kernel_rows", gaussian_kernel_rows,
                  (rng.standard_normal(1000), rng.standard_normal(500), 0.3)))

    tt = np.arange(256)
    sig256 = np.sin(2 * math.pi * 13 * tt / 256) + 0.3 * rng.standard_normal(256)
    progs.append(("naive_dft_magnitude", naive_dft_magnitude, (sig256,)))

    progs.append(("coulomb_field_grid", coulomb_field_grid,
                  (rng.uniform(-1.0, 1.0, 20), rng.uniform(-1.0, 1.0, 20),
                   rng.choice([-1.0, 1.0], 20),
                   rng.uniform(-2.0, 2.0, 20_000), rng.uniform(-2.0, 2.0, 20_000),
                   0.05)))

    progs.append(("poly_tanh_clip", poly_tanh_clip, (rng.uniform(-3.0, 3.0, 50),)))

    progs.append(("softmax_entropy", softmax_entropy,
                  (rng.standard_normal(1000) * 4.0, 0.7)))

    progs.append(("bond_price_grid", bond_price_grid,
                  (rng.uniform(0.005, 0.09, 500), np.arange(1.0, 41.0), 4.0, 100.0)))

    progs.append(("attention_softmax", attention_softmax,
                  (rng.standard_normal(64), rng.standard_normal(2000), 0.125)))

    progs.append(("blackman_harris_energy", blackman_harris_energy,
                  (np.cos(0.07 * np.arange(2048)) + 0.1 * rng.standard_normal(2048),)))

    progs.append(("hsv_to_rgb", hsv_to_rgb,
                  (rng.random(3000), rng.random(3000), rng.random(3000))))

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
