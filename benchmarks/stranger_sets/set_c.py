"""Benchmark corpus C: elementwise-heavy NumPy programs.

Ordinary scientific-Python style functions dominated by chains of ufuncs and
arithmetic on whole arrays (activations, option pricing, physics formulas,
colour/audio/image transforms, statistics, geometry, numerical approximations),
some of them finishing with a reduction.  ``progs`` is a list of
``(name, function, args_tuple)`` built from a fixed-seed generator.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# Activation functions
# ---------------------------------------------------------------------------

def gelu_tanh(x):
    c = math.sqrt(2.0 / math.pi)
    return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x ** 3)))


def swish(x, beta):
    return x / (1.0 + np.exp(-beta * x))


def mish(x):
    # stable softplus: max(x, 0) + log1p(exp(-|x|))
    sp = np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    return x * np.tanh(sp)


def activation_mix(x):
    softsign = x / (1.0 + np.abs(x))
    elu = np.where(x > 0, x, np.expm1(np.minimum(x, 0.0)))
    alpha = 1.6732632423543772
    scale = 1.0507009873554805
    selu = scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))
    return softsign + 0.5 * elu - 0.25 * selu


def hardswish_gelu_blend(x, w):
    hs = x * np.clip(x + 3.0, 0.0, 6.0) / 6.0
    g = x * (1.0 / (1.0 + np.exp(-1.702 * x)))
    return w * hs + (1.0 - w) * g


def softplus_beta(x, beta, threshold):
    bx = beta * x
    soft = np.log1p(np.exp(np.minimum(bx, threshold))) / beta
    return np.where(bx > threshold, x, soft)


def relu6_hardswish_small(x):
    relu6 = np.minimum(np.maximum(x, np.float32(0)), np.float32(6))
    hswish = x * relu6 / np.float32(6)
    return relu6, hswish


def leaky_hard_sigmoid_small(x, slope):
    leaky = np.where(x >= 0, x, slope * x)
    hsig = np.clip(0.2 * x + 0.5, 0.0, 1.0)
    return leaky * hsig


# ---------------------------------------------------------------------------
# Finance
# ---------------------------------------------------------------------------

def _norm_cdf_as(d):
    # Abramowitz & Stegun 26.2.17 approximation of the normal CDF
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
    w = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
    return np.where(d < 0, 1.0 - w, w)


def black_scholes_call_put(S, K, T, r, sigma):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    disc = np.exp(-r * T)
    call = S * _norm_cdf_as(d1) - K * disc * _norm_cdf_as(d2)
    put = K * disc * _norm_cdf_as(-d2) - S * _norm_cdf_as(-d1)
    return call, put


def black_scholes_vega_f64(S, K, T, r, sigma):
    d1 = (np.log(S) - np.log(K) + (r + sigma ** 2 / 2) * T) / (sigma * np.sqrt(T))
    pdf = np.exp(-d1 ** 2 / 2) / math.sqrt(2 * math.pi)
    vega = S * pdf * np.sqrt(T)
    return vega.sum(), vega.max()


def compound_interest_small(principal, rates, years, n_per_year):
    discrete = principal * (1.0 + rates / n_per_year) ** (n_per_year * years)
    continuous = principal * np.exp(rates * years)
    return continuous - discrete


# ---------------------------------------------------------------------------
# Physics
# ---------------------------------------------------------------------------

def planck_spectral_radiance(wavelength, temperature):
    h = 6.62607015e-34
    c = 2.99792458e8
    kb = 1.380649e-23
    a = 2.0 * h * c ** 2 / wavelength ** 5
    b = h * c / (wavelength * kb * temperature)
    return a / np.expm1(b)


def lennard_jones_energy(r, epsilon, sigma):
    sr6 = (sigma / r) ** 6
    sr12 = sr6 * sr6
    return 4.0 * epsilon * np.sum(sr12 - sr6)


def relativistic_energy(v, m):
    c = 299792458.0
    beta = v / c
    gamma = 1.0 / np.sqrt(1.0 - beta * beta)
    total = gamma * m * c * c
    kinetic = (gamma - 1.0) * m * c * c
    return total, kinetic


def damped_oscillator(t, omega0, zeta, amp):
    # t is (N,), omega0 / zeta are (M,1) -> (M, N) grid
    wd = omega0 * np.sqrt(1.0 - zeta ** 2)
    env = amp * np.exp(-zeta * omega0 * t)
    x = env * np.cos(wd * t)
    v = env * (-zeta * omega0 * np.cos(wd * t) - wd * np.sin(wd * t))
    energy = 0.5 * v ** 2 + 0.5 * (omega0 * x) ** 2
    return energy.mean(axis=1)


def catenary_chain(x, a):
    y = a * np.cosh(x / a)
    slope = np.sinh(x / a)
    arc = a * np.sinh(x / a)
    tension = np.sqrt(1.0 + slope * slope)
    return y - a + 0.1 * arc * np.tanh(x) / tension


def inverse_square_small(power, dist):
    intensity = power / (4.0 * np.float32(math.pi) * dist ** 2)
    return 10.0 * np.log10(intensity / np.float32(1e-12))


def kinetic_energy_small(m, vx, vy, vz):
    return np.sum(0.5 * m * (vx ** 2 + vy ** 2 + vz ** 2))


def arrhenius_rates(T, Ea, A):
    R = 8.314462618
    k = A * np.exp(-Ea / (R * T))
    return np.log(k), np.log10(k)


def barometric_pressure(h, T0):
    p0 = 101325.0
    L = 0.0065
    g = 9.80665
    M = 0.0289644
    R = 8.3144598
    return p0 * (1.0 - L * h / T0) ** (g * M / (R * L))


def hill_equation(conc, kd, n):
    cn = np.power(conc, n)
    return cn / (kd ** n + cn)


def snell_refraction(theta_i, n1, n2):
    s = n1 / n2 * np.sin(theta_i)
    tir = np.abs(s) > 1.0
    theta_t = np.arcsin(np.clip(s, -1.0, 1.0))
    ci = np.cos(theta_i)
    ct = np.cos(theta_t)
    rs = ((n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)) ** 2
    rp = ((n1 * ct - n2 * ci) / (n1 * ct + n2 * ci)) ** 2
    refl = np.where(tir, 1.0, 0.5 * (rs + rp))
    return refl


# ---------------------------------------------------------------------------
# Meteorology
# ---------------------------------------------------------------------------

def heat_index(T, RH):
    # Rothfusz regression, T in Fahrenheit
    hi = (-42.379 + 2.04901523 * T + 10.14333127 * RH - 0.22475541 * T * RH
          - 6.83783e-3 * T * T - 5.481717e-2 * RH * RH + 1.22874e-3 * T * T * RH
          + 8.5282e-4 * T * RH * RH - 1.99e-6 * T * T * RH * RH)
    simple = 0.5 * (T + 61.0 + (T - 68.0) * 1.2 + RH * 0.094)
    return np.where(simple < 80.0, simple, hi)


# ---------------------------------------------------------------------------
# Colour and image
# ---------------------------------------------------------------------------

def srgb_to_linear(c):
    return np.where(c <= 0.04045, c / 12.92, np.power((c + 0.055) / 1.055, 2.4))


def linear_to_srgb_luma(r, g, b):
    def enc(c):
        c = np.clip(c, 0.0, 1.0)
        return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1.0 / 2.4) - 0.055)
    return 0.2126 * enc(r) + 0.7152 * enc(g) + 0.0722 * enc(b)


def rgb_to_hsv(r, g, b):
    maxc = np.maximum(np.maximum(r, g), b)
    minc = np.minimum(np.minimum(r, g), b)
    v = maxc
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1.0), 0.0)
    safe = np.where(delta > 0, delta, 1.0)
    rc = (maxc - r) / safe
    gc = (maxc - g) / safe
    bc = (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = (h / 6.0) % 1.0
    h = np.where(delta > 0, h, 0.0)
    return h, s, v


def gamma_correct(img, gamma, gain):
    return np.clip(gain * np.power(img, 1.0 / gamma), 0.0, 1.0)


def s_curve_contrast(img, k):
    x = img - 0.5
    y = 0.5 + 0.5 * np.tanh(k * x) / math.tanh(0.5 * k)
    return np.clip(y, 0.0, 1.0)


def sigmoid_tone_map(hdr, exposure, white):
    x = hdr * exposure
    reinhard = x * (1.0 + x / (white * white)) / (1.0 + x)
    sig = 1.0 / (1.0 + np.exp(-4.0 * (np.log2(x + 1e-4) + 1.0)))
    return 0.5 * reinhard + 0.5 * sig


def blend_modes(a, b, opacity):
    screen = 1.0 - (1.0 - a) * (1.0 - b)
    overlay = np.where(a < 0.5, 2.0 * a * b, 1.0 - 2.0 * (1.0 - a) * (1.0 - b))
    soft = np.where(b < 0.5,
                    a - (1.0 - 2.0 * b) * a * (1.0 - a),
                    a + (2.0 * b - 1.0) * (np.sqrt(a) - a))
    mixed = (screen + overlay + soft) / 3.0
    return a + opacity * (mixed - a)


def vignette(h_idx, w_idx, img, strength):
    # h_idx (H,1), w_idx (1,W) float grids in [-1,1]
    r = np.hypot(h_idx, w_idx)
    falloff = np.cos(np.clip(r * strength, 0.0, math.pi / 2)) ** 4
    return img * falloff


# ---------------------------------------------------------------------------
# Audio
# ---------------------------------------------------------------------------

def amplitude_to_db(x, ref, floor_db):
    mag = np.abs(x)
    db = 20.0 * np.log10(np.maximum(mag, 1e-10) / ref)
    return np.maximum(db, floor_db)


def mu_law_roundtrip(x, mu):
    enc = np.sign(x) * np.log1p(mu * np.abs(x)) / math.log1p(mu)
    q = np.floor((enc + 1.0) * 127.5 + 0.5) / 127.5 - 1.0
    dec = np.sign(q) * np.expm1(np.abs(q) * math.log1p(mu)) / mu
    return dec


def soft_clip_chain(x, drive, mix):
    y = np.tanh(drive * x) / np.tanh(drive)
    cubic = np.where(np.abs(x) < 1.0, 1.5 * x - 0.5 * x ** 3, np.sign(x))
    return mix * y + (1.0 - mix) * cubic


# ---------------------------------------------------------------------------
# Statistics and ML
# ---------------------------------------------------------------------------

def normal_loglik(x, mu, sigma):
    z = (x - mu) / sigma
    return np.sum(-0.5 * z * z - np.log(sigma) - 0.5 * math.log(2 * math.pi))


def logistic_loglik(x, loc, scale):
    z = (x - loc) / scale
    lp = -z - math.log(scale) - 2.0 * np.log1p(np.exp(-z))
    return lp.sum()


def cauchy_loglik(x, x0, gamma):
    return np.sum(-np.log(math.pi * gamma * (1.0 + ((x - x0) / gamma) ** 2)))


def logsumexp_rows(a):
    m = np.max(a, axis=-1, keepdims=True)
    return (m + np.log(np.sum(np.exp(a - m), axis=-1, keepdims=True)))[:, 0]


def softmax_rows(a, temperature):
    z = a / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax_rows(a):
    shifted = a - np.max(a, axis=1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))


def layer_norm(x, gamma, beta, eps):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    return xc * (1.0 / np.sqrt(var + eps)) * gamma + beta


def rms_norm_gelu(x, weight):
    ms = np.mean(x ** 2, axis=-1, keepdims=True)
    y = x / np.sqrt(ms + 1e-6) * weight
    return 0.5 * y * (1.0 + np.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))


def standardize_columns(x):
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    return (x - mu) / np.where(sd > 0, sd, 1.0)


def logit_expit_roundtrip(p, eps):
    pc = np.clip(p, eps, 1.0 - eps)
    logit = np.log(pc) - np.log1p(-pc)
    back = 1.0 / (1.0 + np.exp(-logit))
    return np.abs(back - pc).max()


def focal_loss(logits, labels, alpha, gamma):
    p = 1.0 / (1.0 + np.exp(-logits))
    pt = np.where(labels > 0.5, p, 1.0 - p)
    at = labels * alpha + (1.0 - labels) * (1.0 - alpha)
    loss = -at * (1.0 - pt) ** gamma * np.log(np.clip(pt, 1e-7, 1.0))
    return loss.sum()


def binary_cross_entropy(p, y):
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def kl_div_softmax(a, b):
    la = a - a.max(axis=1, keepdims=True)
    la = la - np.log(np.exp(la).sum(axis=1, keepdims=True))
    lb = b - b.max(axis=1, keepdims=True)
    lb = lb - np.log(np.exp(lb).sum(axis=1, keepdims=True))
    return np.sum(np.exp(la) * (la - lb), axis=1)


def entropy_bits(p):
    # rows of probabilities with exact zeros allowed
    terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=-1)


def gaussian_pdf_small(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2.0 * math.pi))


def harmonic_geometric_means(x):
    hm = x.shape[0] / np.sum(np.reciprocal(x))
    gm = np.exp(np.mean(np.log(x)))
    return hm, gm


def stirling_lgamma_small(x):
    # Stirling series for log Gamma(x), x > 0 moderately large
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 / 1680)))
    return (x - 0.5) * np.log(x) - x + 0.5 * math.log(2 * math.pi) + series


# ---------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------

def haversine_km(lat1, lon1, lat2, lon2):
    lat1, lon1, lat2, lon2 = (np.radians(a) for a in (lat1, lon1, lat2, lon2))
    dlat = lat2 - lat1
    dlon = lon2 - lon1
    a = np.sin(dlat / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin(dlon / 2) ** 2
    return 2.0 * 6371.0 * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def polar_cartesian_roundtrip(r, theta):
    x = r * np.cos(theta)
    y = r * np.sin(theta)
    r2 = np.hypot(x, y)
    t2 = np.arctan2(y, x)
    return np.max(np.abs(r2 - r)), np.mean(np.cos(t2 - theta))


def spherical_to_cartesian_small(r, theta, phi):
    st = np.sin(theta)
    return r * st * np.cos(phi), r * st * np.sin(phi), r * np.cos(theta)


def slope_from_dem(dzdx, dzdy):
    slope = np.arctan(np.hypot(dzdx, dzdy))
    aspect = np.arctan2(dzdy, -dzdx)
    grade = np.tan(slope) * 100.0
    return slope, aspect, grade


# ---------------------------------------------------------------------------
# Numerical formulas
# ---------------------------------------------------------------------------

def erf_approx(x):
    # Abramowitz & Stegun 7.1.26
    p = 0.3275911
    a1, a2, a3, a4, a5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429
    s = np.sign(x)
    ax = np.abs(x)
    t = 1.0 / (1.0 + p * ax)
    y = 1.0 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * np.exp(-ax * ax)
    return s * y


def gelu_erf_approx(x):
    return 0.5 * x * (1.0 + erf_approx(x * np.float32(1.0 / math.sqrt(2.0))))


def horner_exp_poly(x):
    # degree-7 Taylor polynomial of exp on [-1, 1] written as nested products
    return 1.0 + x * (1.0 + x * (0.5 + x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120
           + x * (1.0 / 720 + x * (1.0 / 5040)))))))


def pade_tanh(x):
    # (7,6) Pade approximant of tanh, clamped
    xc = np.clip(x, -4.97, 4.97)
    x2 = xc * xc
    num = xc * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
    den = 135135.0 + x2 * (62370.0 + x2 * (3150.0 + x2 * 28.0))
    return num / den


def newton_inv_sqrt(x, iters):
    y = 1.0 / np.sqrt(x) * 0.9  # deliberately perturbed start
    for _ in range(iters):
        y = y * (1.5 - 0.5 * x * y * y)
    return y


def sinc_small(x):
    px = math.pi * x
    return np.where(x == 0.0, 1.0, np.sin(px) / np.where(x == 0.0, 1.0, px))


def chebyshev_small(x, n):
    return np.cos(n * np.arccos(np.clip(x, -1.0, 1.0)))


def quantize_dequantize(x, scale, zero_point):
    q = np.clip(np.floor(x / scale + 0.5) + zero_point, 0.0, 255.0)
    return (q - zero_point) * scale


# ---------------------------------------------------------------------------
# Long synthetic chains on large arrays
# ---------------------------------------------------------------------------

def chain12_trig_exp(x, y):
    a = np.sin(x) * np.cos(y)
    b = np.exp(-0.5 * x * x)
    c = a * b + np.sqrt(np.abs(y) + 1.0)
    d = c / (1.0 + x * x)
    return d * d - 0.25 * np.tanh(c)


def chain_log1p_expm1(x):
    a = np.log1p(np.abs(x))
    b = np.expm1(-a)
    c = a * b + np.log1p(x * x)
    d = np.expm1(0.1 * c)
    return np.sqrt(d * d + 1.0) - np.abs(b)


def chain_arctan(x, y):
    t = np.arctan(x) + np.arctan2(y, 1.0 + np.abs(x))
    u = t * t * 0.5 - np.cos(t)
    v = np.maximum(u, -0.5) * np.reciprocal(1.0 + np.abs(y))
    return np.minimum(v, 2.0) + 0.01 * np.arctan(v * 3.0)


def chain_sum_reduce(x):
    z = np.exp(-np.abs(x)) * np.cos(3.0 * x) + np.sqrt(x * x + 1.0) - np.abs(x)
    return z.sum(), np.max(z)


def chain_power_mix(x):
    a = x ** 2
    b = x ** -1.5
    c = np.power(x, 0.3333)
    d = a * b / (1.0 + c) + np.log(x) * x ** 0.5
    return d.mean()


# ---------------------------------------------------------------------------
# Dirty data: NaN / inf / zeros / negatives
# ---------------------------------------------------------------------------

def safe_log_ratio(a, b):
    valid = (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b)
    aa = np.where(valid, a, 1.0)
    bb = np.where(valid, b, 1.0)
    return np.where(valid, np.log(aa) - np.log(bb), np.nan)


def nan_aware_zscore_mean(x):
    finite = np.isfinite(x)
    xf = np.where(finite, x, 0.0)
    n = finite.sum()
    mu = xf.sum() / n
    var = np.where(finite, (x - mu) ** 2, 0.0).sum() / n
    z = np.where(finite, (x - mu) / np.sqrt(var), 0.0)
    return np.mean(np.tanh(z))


def safe_divide_inf(num, den):
    out = np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0)
    return np.clip(np.nan_to_num(out, nan=0.0, posinf=1e6, neginf=-1e6), -1e6, 1e6)


def nan_propagating_chain(x):
    # NaNs flow through; inf becomes nan via inf - inf
    y = np.exp(-x * x) + x - x
    return np.sqrt(np.abs(y)) * np.sign(x)


def nan_max_relu(x):
    r = np.maximum(x, 0.0)       # propagates NaN
    f = np.fmax(x, 0.0)          # ignores NaN
    return np.sum(np.isnan(r)), np.sum(f * f)


# ---------------------------------------------------------------------------
# Argument construction
# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240611)
    f32 = np.float32
    L22 = 2 ** 22
    L23 = 2 ** 23
    L24 = 2 ** 24

    def n32(n, scale=1.0, loc=0.0):
        return (rng.standard_normal(n, dtype=np.float32) * f32(scale) + f32(loc))

    def u32(n, lo=0.0, hi=1.0):
        return rng.uniform(lo, hi, n).astype(np.float32)

    def n64(n, scale=1.0, loc=0.0):
        return rng.standard_normal(n) * scale + loc

    def u64(n, lo=0.0, hi=1.0):
        return rng.uniform(lo, hi, n)

    progs = []
    add = lambda name, fn, *args: progs.append((name, fn, tuple(args)))

    # --- large float32 (2**22 .. 2**24) ---
    add("gelu_tanh_f32_large", gelu_tanh, n32(L22, 2.0))
    add("swish_f32_large", swish, n32(L22, 3.0), 1.0)
    add("mish_f32_large", mish, n32(L22, 3.0))
    add("black_scholes_f32_large", black_scholes_call_put,
        u32(L22, 50.0, 150.0), u32(L22, 60.0, 140.0), u32(L22, 0.1, 2.0), 0.02, 0.3)
    add("mu_law_f32_large", mu_law_roundtrip, u32(L22, -1.0, 1.0), 255.0)
    add("pade_tanh_f32_large", pade_tanh, n32(L22, 2.5))
    add("chain12_trig_exp_f32_huge", chain12_trig_exp, n32(L24 // 2, 1.5), n32(L24 // 2, 1.5))
    add("chain_log1p_expm1_f32_large", chain_log1p_expm1, n32(L23, 2.0))
    add("chain_arctan_f32_large", chain_arctan, n32(L22, 3.0), n32(L22, 3.0))
    add("gelu_erf_approx_f32_large", gelu_erf_approx, n32(L22, 2.0))
    add("hardswish_gelu_f32_large", hardswish_gelu_blend, n32(L22, 3.0), 0.3)
    add("softplus_beta_f32_large", softplus_beta, n32(L22, 5.0), 2.0, 20.0)
    add("quantize_dequant_f32_large", quantize_dequantize, n32(L22, 1.0), 0.02, 128.0)
    add("catenary_f32_large", catenary_chain, u32(L22, -3.0, 3.0), 1.7)
    add("chain_sum_reduce_f32_huge", chain_sum_reduce, n32(L24, 2.0))

    # --- 2-D float32 row ops ---
    add("softmax_rows_f32_1024", softmax_rows, n32(1024 * 1024, 2.0).reshape(1024, 1024), 0.7)
    add("log_softmax_f32_4096x256", log_softmax_rows, n32(4096 * 256, 3.0).reshape(4096, 256))
    add("logsumexp_f32_256x4096", logsumexp_rows, n32(256 * 4096, 2.0).reshape(256, 4096))
    add("layer_norm_f32_1024", layer_norm, n32(1024 * 1024, 1.5, 0.3).reshape(1024, 1024),
        u32(1024, 0.5, 1.5), n32(1024, 0.1), 1e-5)
    add("rms_norm_gelu_f32_256x4096", rms_norm_gelu, n32(256 * 4096).reshape(256, 4096),
        u32(4096, 0.8, 1.2))
    add("kl_div_softmax_f32_1024x512", kl_div_softmax,
        n32(1024 * 512).reshape(1024, 512), n32(1024 * 512).reshape(1024, 512))

    # --- medium float32 ---
    add("activation_mix_f32", activation_mix, n32(500_000, 2.0))
    add("relativistic_energy_f64", relativistic_energy, u64(200_000, 1e6, 2.5e8), 1.67e-27)
    add("srgb_to_linear_f32_img", srgb_to_linear, u32(1024 * 1024).reshape(1024, 1024))
    add("linear_to_srgb_luma_f32", linear_to_srgb_luma,
        u32(512 * 512, 0.0, 1.1).reshape(512, 512), u32(512 * 512).reshape(512, 512),
        u32(512 * 512).reshape(512, 512))
    add("amplitude_db_f64", amplitude_to_db, n64(441_000, 0.3), 1.0, -80.0)
    add("logistic_loglik_f32", logistic_loglik, n32(300_000, 2.0, 1.0), 1.0, 1.2)
    add("logit_expit_f64", logit_expit_roundtrip, u64(250_000), 1e-9)
    add("focal_loss_f32", focal_loss, n32(200_000, 2.5),
        (rng.random(200_000) < 0.3).astype(np.float32), 0.25, 2.0)
    add("entropy_bits_f32_rows", entropy_bits,
        np.where(u32(2048 * 64) < 0.2, f32(0), u32(2048 * 64)).reshape(2048, 64)
        / f32(32.0))
    add("polar_roundtrip_f64", polar_cartesian_roundtrip, u64(500_000, 0.1, 10.0),
        u64(500_000, -math.pi, math.pi))
    add("gamma_correct_f32_img", gamma_correct, u32(1024 * 1024).reshape(1024, 1024), 2.2, 1.1)
    add("s_curve_contrast_f64_img", s_curve_contrast, u64(4096 * 256).reshape(4096, 256), 6.0)
    add("sigmoid_tone_map_f32", sigmoid_tone_map,
        np.exp(n32(512 * 768, 1.5)).reshape(512, 768), 0.8, 4.0)
    add("blend_modes_f32_img", blend_modes, u32(1024 * 1024).reshape(1024, 1024),
        u32(1024 * 1024).reshape(1024, 1024), 0.6)
    add("hill_equation_f64", hill_equation, np.exp(n64(200_000, 2.0)), 1.5, 2.6)
    add("safe_divide_inf_f32", safe_divide_inf,
        np.concatenate([n32(99_000), np.array([np.inf, -np.inf, np.nan] * 333 + [0.0],
                                              dtype=np.float32)]),
        np.where(u32(100_000) < 0.05, f32(0), n32(100_000)))

    # --- medium float64 ---
    add("black_scholes_vega_f64", black_scholes_vega_f64, u64(200_000, 80.0, 120.0),
        u64(200_000, 80.0, 120.0), u64(200_000, 0.05, 3.0), 0.01, u64(200_000, 0.1, 0.6))
    add("planck_law_f64", planck_spectral_radiance, u64(400_000, 1e-7, 3e-6),
        u64(400_000, 1000.0, 10000.0))
    add("lennard_jones_f64", lennard_jones_energy, u64(1_000_000, 0.9, 3.0), 0.997, 1.0)
    add("damped_oscillator_f64", damped_oscillator, np.linspace(0.0, 20.0, 4000),
        u64(64, 0.5, 5.0).reshape(64, 1), u64(64, 0.01, 0.5).reshape(64, 1), 1.0)
    add("rgb_to_hsv_f64", rgb_to_hsv, u64(262_144), u64(262_144), u64(262_144))
    add("soft_clip_f64", soft_clip_chain, n64(441_000, 0.6), 3.0, 0.7)
    add("normal_loglik_f64", normal_loglik, n64(1_000_000, 2.0, 1.0), 1.0, 2.0)
    add("cauchy_loglik_f64", cauchy_loglik, n64(500_000, 3.0), 0.2, 1.5)
    add("standardize_cols_f64_4096x256", standardize_columns, n64(4096 * 256, 3.0, 5.0).reshape(4096, 256))
    add("bce_f64", binary_cross_entropy, u64(300_000), (rng.random(300_000) < 0.5).astype(np.float64))
    add("haversine_f64", haversine_km, u64(300_000, -90.0, 90.0), u64(300_000, -180.0, 180.0),
        u64(300_000, -90.0, 90.0), u64(300_000, -180.0, 180.0))
    add("slope_dem_f64", slope_from_dem, n64(512 * 512, 0.5).reshape(512, 512),
        n64(512 * 512, 0.5).reshape(512, 512))
    add("heat_index_f64", heat_index, u64(200_000, 50.0, 110.0), u64(200_000, 10.0, 100.0))
    add("arrhenius_f64", arrhenius_rates, u64(100_000, 250.0, 1200.0), 75_000.0, 1e13)
    add("barometric_f64", barometric_pressure, u64(200_000, 0.0, 11_000.0), 288.15)
    add("horner_exp_poly_f64", horner_exp_poly, u64(1_000_000, -1.0, 1.0))
    add("newton_inv_sqrt_f64", newton_inv_sqrt, u64(500_000, 0.01, 100.0), 4)
    add("snell_f64", snell_refraction, u64(300_000, 0.0, 1.5), 1.5, 1.0)
    add("vignette_f64", vignette, np.linspace(-1, 1, 768).reshape(768, 1),
        np.linspace(-1, 1, 1024).reshape(1, 1024), u64(768 * 1024).reshape(768, 1024), 1.2)
    add("chain_power_mix_f64", chain_power_mix, u64(500_000, 0.1, 20.0))
    add("harmonic_geo_mean_f64", harmonic_geometric_means, u64(400_000, 0.5, 50.0))

    # --- dirty data (NaN / inf / zeros / negatives) ---
    a = n64(200_000, 2.0, 1.0)
    a[::97] = np.nan
    a[::1001] = 0.0
    b = n64(200_000, 2.0, 1.5)
    b[::503] = np.inf
    add("safe_log_ratio_f64_dirty", safe_log_ratio, a, b)
    c = n64(300_000, 4.0, 2.0)
    c[::211] = np.nan
    c[::3001] = np.inf
    add("nan_zscore_f64_dirty", nan_aware_zscore_mean, c)
    d = n32(250_000, 2.0)
    d[::129] = np.nan
    d[::4099] = np.inf
    add("nan_propagation_f32_dirty", nan_propagating_chain, d)
    e = n32(250_000)
    e[::77] = np.nan
    add("nan_max_relu_f32_dirty", nan_max_relu, e)

    # --- small arrays (100 .. 2000) ---
    add("gaussian_pdf_small_f64", gaussian_pdf_small, np.linspace(-5, 5, 500), 0.3, 1.2)
    add("sinc_small_f64", sinc_small, np.linspace(-10, 10, 1001))
    add("chebyshev_small_f64", chebyshev_small, np.linspace(-1, 1, 200), 7)
    add("inverse_square_small_f32", inverse_square_small, u32(1500, 1.0, 100.0),
        u32(1500, 0.5, 50.0))
    add("compound_interest_small_f64", compound_interest_small, 1000.0, u64(100, 0.01, 0.1),
        30.0, 12.0)
    add("relu6_hardswish_small_f32", relu6_hardswish_small, n32(2000, 4.0))
    add("leaky_hard_sigmoid_small_f32", leaky_hard_sigmoid_small, n32(256, 3.0), 0.01)
    add("spherical_small_f64", spherical_to_cartesian_small, u64(800, 0.5, 2.0),
        u64(800, 0.0, math.pi), u64(800, 0.0, 2 * math.pi))
    add("kinetic_energy_small_f32", kinetic_energy_small, u32(100, 1.0, 5.0), n32(100),
        n32(100), n32(100))
    add("stirling_lgamma_small_f64", stirling_lgamma_small, u64(1000, 5.0, 200.0))

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
