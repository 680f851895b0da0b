"""Corpus M: simulation and numerical-methods code as written in notebooks.

Explicit time-stepping loops (Euler, RK4, leapfrog, velocity Verlet) over small
state arrays, finite-difference stencils written with slices and np.roll
(heat, wave, advection, reaction-diffusion), Jacobi / red-black SOR relaxation
with fixed iteration counts or tolerance checks, elementwise Newton and
bisection solvers, Monte Carlo estimators over pre-generated random arrays,
particle systems with broadcast pairwise distances and np.where cutoffs,
quaternion and rotation math on (N,4)/(N,3) arrays, polynomial evaluation
(np.polyval, Horner, Clenshaw), hand-written trapezoid and Simpson rules,
cellular automata, random walks via cumsum, and population / epidemic models
swept over parameter arrays. Inputs mix float64 and float32 (some programs are
float32 throughout), sizes range from ~100 elements to ~1e6, and the code uses
everyday idioms: in-place updates, slice assignment, .copy(), np.clip,
boolean masks, fancy indexing, np.linalg.norm(axis=...), np.stack, np.outer,
occasional np.einsum, Python scalar parameters, and tuple returns.
"""
import math
import numpy as np


# ----------------------------------------------------------------------------
# ODE time stepping
# ----------------------------------------------------------------------------

def damped_oscillator_euler(x0, v0, omega, zeta, dt, steps):
    x = x0.copy()
    v = v0.copy()
    w2 = omega * omega
    for _ in range(steps):
        a = -w2 * x - 2.0 * zeta * omega * v
        x += dt * v
        v += dt * a
    energy = 0.5 * v ** 2 + 0.5 * w2 * x ** 2
    return x, v, float(energy.mean())


def _pendulum_rhs(theta, omega, g_over_l, damping):
    return omega, -g_over_l * np.sin(theta) - damping * omega


def pendulum_ensemble_rk4(theta0, omega0, g_over_l, damping, dt, steps):
    th = theta0.copy()
    om = omega0.copy()
    for _ in range(steps):
        k1t, k1o = _pendulum_rhs(th, om, g_over_l, damping)
        k2t, k2o = _pendulum_rhs(th + 0.5 * dt * k1t, om + 0.5 * dt * k1o, g_over_l, damping)
        k3t, k3o = _pendulum_rhs(th + 0.5 * dt * k2t, om + 0.5 * dt * k2o, g_over_l, damping)
        k4t, k4o = _pendulum_rhs(th + dt * k3t, om + dt * k3o, g_over_l, damping)
        th = th + dt / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t)
        om = om + dt / 6.0 * (k1o + 2 * k2o + 2 * k3o + k4o)
    energy = 0.5 * om ** 2 + g_over_l * (1.0 - np.cos(th))
    return th, om, energy


def harmonic_chain_leapfrog(q0, p0, k, m, dt, steps):
    q = q0.copy()
    p = p0.copy()
    force = k * (np.roll(q, 1) - 2.0 * q + np.roll(q, -1))
    p += 0.5 * dt * force
    for _ in range(steps - 1):
        q += dt * p / m
        force = k * (np.roll(q, 1) - 2.0 * q + np.roll(q, -1))
        p += dt * force
    q += dt * p / m
    force = k * (np.roll(q, 1) - 2.0 * q + np.roll(q, -1))
    p += 0.5 * dt * force
    kinetic = 0.5 * np.sum(p ** 2) / m
    potential = 0.5 * k * np.sum((np.roll(q, -1) - q) ** 2)
    return q, p, kinetic + potential


def _lj_forces(pos, box, cutoff):
    d = pos[:, None, :] - pos[None, :, :]
    d -= box * np.round(d / box)
    r2 = np.sum(d * d, axis=-1)
    mask = (r2 < cutoff * cutoff) & (r2 > 0.0)
    inv_r2 = np.where(mask, 1.0 / np.where(mask, r2, 1.0), 0.0)
    inv_r6 = inv_r2 ** 3
    fmag = 24.0 * inv_r2 * inv_r6 * (2.0 * inv_r6 - 1.0)
    forces = np.sum(fmag[:, :, None] * d, axis=1)
    pot = 0.5 * np.sum(np.where(mask, 4.0 * inv_r6 * (inv_r6 - 1.0), 0.0))
    return forces, pot


def lennard_jones_verlet(pos0, vel0, box, dt, steps, cutoff):
    pos = pos0.copy()
    vel = vel0.copy()
    f, pot = _lj_forces(pos, box, cutoff)
    for _ in range(steps):
        vel += 0.5 * dt * f
        pos += dt * vel
        pos = np.mod(pos, box)
        f, pot = _lj_forces(pos, box, cutoff)
        vel += 0.5 * dt * f
    kinetic = 0.5 * np.sum(vel ** 2)
    return pos, vel, float(kinetic), float(pot)


def _sir_rhs(s, i, beta, gamma):
    inf = beta * s * i
    rec = gamma * i
    return -inf, inf - rec, rec


def sir_parameter_sweep_rk4(beta, gamma, i0, dt, steps):
    s = np.full_like(beta, 1.0 - i0)
    i = np.full_like(beta, i0)
    r = np.zeros_like(beta)
    peak = i.copy()
    for _ in range(steps):
        a1, b1, c1 = _sir_rhs(s, i, beta, gamma)
        a2, b2, c2 = _sir_rhs(s + 0.5 * dt * a1, i + 0.5 * dt * b1, beta, gamma)
        a3, b3, c3 = _sir_rhs(s + 0.5 * dt * a2, i + 0.5 * dt * b2, beta, gamma)
        a4, b4, c4 = _sir_rhs(s + dt * a3, i + dt * b3, beta, gamma)
        s = s + dt / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4)
        i = i + dt / 6.0 * (b1 + 2 * b2 + 2 * b3 + b4)
        r = r + dt / 6.0 * (c1 + 2 * c2 + 2 * c3 + c4)
        peak = np.maximum(peak, i)
    return s, i, r, peak


def seir_contact_matrix_euler(contact, pop, beta, sigma, gamma, e0, dt, steps):
    S = pop - e0
    E = e0.copy()
    I = np.zeros_like(pop)
    R = np.zeros_like(pop)
    curve = np.empty(steps)
    for t in range(steps):
        lam = beta * (contact @ (I / pop))
        new_exposed = lam * S * dt
        new_infectious = sigma * E * dt
        new_recovered = gamma * I * dt
        S -= new_exposed
        E += new_exposed - new_infectious
        I += new_infectious - new_recovered
        R += new_recovered
        curve[t] = I.sum()
    attack_rate = R / pop
    return curve, attack_rate, S, E, I, R


def _lv_rhs(x, y, alpha, beta, delta, gamma):
    return alpha * x - beta * x * y, delta * x * y - gamma * y


def lotka_volterra_rk4_ensemble(x0, y0, alpha, beta, delta, gamma, dt, steps):
    x = x0.copy()
    y = y0.copy()
    for _ in range(steps):
        k1x, k1y = _lv_rhs(x, y, alpha, beta, delta, gamma)
        k2x, k2y = _lv_rhs(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, alpha, beta, delta, gamma)
        k3x, k3y = _lv_rhs(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, alpha, beta, delta, gamma)
        k4x, k4y = _lv_rhs(x + dt * k3x, y + dt * k3y, alpha, beta, delta, gamma)
        x = x + (dt / 6.0) * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + (dt / 6.0) * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    invariant = delta * x - gamma * np.log(x) + beta * y - alpha * np.log(y)
    return x, y, invariant


def _lorenz_rhs(s, sigma, rho, beta):
    x = s[:, 0]
    y = s[:, 1]
    z = s[:, 2]
    return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], axis=1)


def lorenz_ensemble_rk4_float32(states, sigma, rho, beta, dt, steps):
    s = states.copy()
    for _ in range(steps):
        k1 = _lorenz_rhs(s, sigma, rho, beta)
        k2 = _lorenz_rhs(s + 0.5 * dt * k1, sigma, rho, beta)
        k3 = _lorenz_rhs(s + 0.5 * dt * k2, sigma, rho, beta)
        k4 = _lorenz_rhs(s + dt * k3, sigma, rho, beta)
        s += (dt / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)
    centroid = s.mean(axis=0)
    spread = np.linalg.norm(s - centroid, axis=1).mean()
    return s, centroid, spread


def _quat_multiply(a, b):
    aw, ax, ay, az = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=1)


def quaternion_attitude_integration(q0, omega_body, dt, steps):
    q = q0 / np.linalg.norm(q0, axis=1, keepdims=True)
    w = np.concatenate([np.zeros((omega_body.shape[0], 1)), omega_body], axis=1)
    for _ in range(steps):
        qdot = 0.5 * _quat_multiply(q, w)
        q = q + dt * qdot
        q /= np.linalg.norm(q, axis=1, keepdims=True)
    angle = 2.0 * np.arccos(np.clip(np.abs(q[:, 0]), 0.0, 1.0))
    return q, angle


# ----------------------------------------------------------------------------
# PDE stencils and relaxation
# ----------------------------------------------------------------------------

def wave_equation_1d_leapfrog(u0, c, dx, dt, steps):
    r2 = (c * dt / dx) ** 2
    u_prev = u0.copy()
    u = u0.copy()
    u[1:-1] = u0[1:-1] + 0.5 * r2 * (u0[2:] - 2.0 * u0[1:-1] + u0[:-2])
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2.0 * u[1:-1] - u_prev[1:-1] + r2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_next[0] = 0.0
        u_next[-1] = 0.0
        u_prev, u = u, u_next
    vel = (u - u_prev) / dt
    grad = np.diff(u) / dx
    energy = 0.5 * np.sum(vel ** 2) * dx + 0.5 * c * c * np.sum(grad ** 2) * dx
    return u, float(energy)


def heat_diffusion_2d_float32(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
               - 4.0 * u[1:-1, 1:-1])
        u[1:-1, 1:-1] += alpha * lap
    return u, u.sum()


def jacobi_poisson_2d(f, h, iters):
    u = np.zeros_like(f)
    h2 = h * h
    for _ in range(iters):
        u_new = u.copy()
        u_new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                    + u[1:-1, 2:] + h2 * f[1:-1, 1:-1])
        u = u_new
    res = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
           - 4.0 * u[1:-1, 1:-1]) / h2 + f[1:-1, 1:-1]
    return u, float(np.sqrt(np.mean(res ** 2)))


def red_black_sor_tolerance(f, h, omega, tol, max_iter):
    n, m = f.shape
    u = np.zeros_like(f)
    h2 = h * h
    ii, jj = np.indices((n - 2, m - 2))
    red = (ii + jj) % 2 == 0
    black = ~red
    change = np.inf
    for _ in range(max_iter):
        u_old = u.copy()
        for mask in (red, black):
            interior = u[1:-1, 1:-1]
            gs = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                         + h2 * f[1:-1, 1:-1])
            interior[mask] += omega * (gs[mask] - interior[mask])
        change = np.max(np.abs(u - u_old))
        if change < tol:
            break
    return u, float(change)


def _thomas_batched(a, b, c, d):
    # constant-coefficient tridiagonal solve along axis 1, vectorised over rows
    n = d.shape[1]
    cp = np.empty(n)
    dp = np.empty_like(d)
    cp[0] = c / b
    dp[:, 0] = d[:, 0] / b
    for i in range(1, n):
        denom = b - a * cp[i - 1]
        cp[i] = c / denom
        dp[:, i] = (d[:, i] - a * dp[:, i - 1]) / denom
    x = np.empty_like(d)
    x[:, -1] = dp[:, -1]
    for i in range(n - 2, -1, -1):
        x[:, i] = dp[:, i] - cp[i] * x[:, i + 1]
    return x


def crank_nicolson_heat_thomas(u0, alpha, dt, dx, steps):
    r = alpha * dt / (dx * dx)
    u = u0.copy()
    u[:, 0] = 0.0
    u[:, -1] = 0.0
    for _ in range(steps):
        rhs = (1.0 - r) * u[:, 1:-1] + 0.5 * r * (u[:, :-2] + u[:, 2:])
        u[:, 1:-1] = _thomas_batched(-0.5 * r, 1.0 + r, -0.5 * r, rhs)
    total_heat = 0.5 * dx * np.sum(u[:, 1:] + u[:, :-1], axis=1)
    return u, total_heat


def upwind_advection_periodic(u0, velocity, dx, dt, steps):
    u = u0.copy()
    c = velocity * dt / dx
    for _ in range(steps):
        if velocity > 0:
            u = u - c * (u - np.roll(u, 1))
        else:
            u = u - c * (np.roll(u, -1) - u)
    return u, u.sum() * dx, u.max()


def _laplacian_periodic(z):
    return (np.roll(z, 1, axis=0) + np.roll(z, -1, axis=0)
            + np.roll(z, 1, axis=1) + np.roll(z, -1, axis=1) - 4.0 * z)


def gray_scott_reaction_diffusion(u0, v0, du, dv, feed, kill, dt, steps):
    u = u0.copy()
    v = v0.copy()
    for _ in range(steps):
        uvv = u * v * v
        u += dt * (du * _laplacian_periodic(u) - uvv + feed * (1.0 - u))
        v += dt * (dv * _laplacian_periodic(v) + uvv - (feed + kill) * v)
        np.clip(u, 0.0, 1.0, out=u)
        np.clip(v, 0.0, 1.0, out=v)
    return u, v, float(v.mean())


# ----------------------------------------------------------------------------
# Elementwise nonlinear solvers
# ----------------------------------------------------------------------------

def newton_cube_root(a, iters):
    x = np.maximum(a, 1.0)
    for _ in range(iters):
        x = (2.0 * x + a / (x * x)) / 3.0
    return x, float(x.sum())


def kepler_equation_newton(mean_anomaly, ecc, iters):
    E = np.where(ecc < 0.8, mean_anomaly, math.pi)
    for _ in range(iters):
        f = E - ecc * np.sin(E) - mean_anomaly
        fp = 1.0 - ecc * np.cos(E)
        E -= f / fp
    nu = 2.0 * np.arctan2(np.sqrt(1.0 + ecc) * np.sin(0.5 * E),
                          np.sqrt(1.0 - ecc) * np.cos(0.5 * E))
    radius = 1.0 - ecc * np.cos(E)
    return E, nu, radius


def bisection_cubic_roots(p, q, iters):
    lo = np.zeros_like(q)
    hi = np.cbrt(q) + 1e-3
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        fm = mid ** 3 + p * mid - q
        go_right = fm < 0.0
        lo = np.where(go_right, mid, lo)
        hi = np.where(go_right, hi, mid)
    root = 0.5 * (lo + hi)
    resid = np.abs(root ** 3 + p * root - q)
    return root, float(resid.max())


# ----------------------------------------------------------------------------
# Monte Carlo
# ----------------------------------------------------------------------------

def monte_carlo_pi_estimate(u, v):
    n = u.shape[0]
    inside = (u * u + v * v) <= 1.0
    hits = inside.astype(np.float64)
    running = 4.0 * np.cumsum(hits) / np.arange(1, n + 1)
    p = hits.mean()
    stderr = 4.0 * math.sqrt(p * (1.0 - p) / n)
    checkpoints = running[n // 10 - 1::n // 10]
    return float(running[-1]), stderr, checkpoints


def monte_carlo_european_call(z, s0, strike, rate, sigma, maturity):
    drift = (rate - 0.5 * sigma * sigma) * maturity
    vol = sigma * math.sqrt(maturity)
    st_up = s0 * np.exp(drift + vol * z)
    st_dn = s0 * np.exp(drift - vol * z)
    payoff = 0.5 * (np.maximum(st_up - strike, 0.0) + np.maximum(st_dn - strike, 0.0))
    disc = math.exp(-rate * maturity)
    price = disc * payoff.mean()
    stderr = disc * payoff.std(ddof=1) / math.sqrt(z.shape[0])
    delta = disc * np.mean(0.5 * (np.where(st_up > strike, st_up / s0, 0.0)
                                  + np.where(st_dn > strike, st_dn / s0, 0.0)))
    return float(price), float(stderr), float(delta)


def brownian_reflecting_box(pos0, kicks, box, drift):
    pos = pos0.copy()
    n_steps = kicks.shape[0]
    msd = np.empty(n_steps, dtype=pos.dtype)
    for t in range(n_steps):
        pos += kicks[t]
        pos[:, 0] += drift
        pos = np.where(pos < 0.0, -pos, pos)
        pos = np.where(pos > box, 2.0 * box - pos, pos)
        msd[t] = np.mean(np.sum((pos - pos0) ** 2, axis=1))
    return pos, msd


def random_walk_statistics(steps, barrier):
    n_walkers, n_steps = steps.shape
    pos = np.cumsum(steps, axis=1, dtype=np.int32)
    msd = np.mean(pos.astype(np.float64) ** 2, axis=0)
    max_excursion = np.abs(pos).max(axis=1)
    hit = pos >= barrier
    ever = hit.any(axis=1)
    first = np.where(ever, hit.argmax(axis=1) + 1, n_steps)
    return msd, float(max_excursion.mean()), float(first.mean()), float(ever.mean())


def ising_checkerboard_metropolis(spins0, uniforms, beta, sweeps):
    spins = spins0.copy()
    L = spins.shape[0]
    ii, jj = np.indices((L, L))
    masks = [(ii + jj) % 2 == 0, (ii + jj) % 2 == 1]
    mag = np.empty(sweeps)
    for s in range(sweeps):
        for c in range(2):
            nb = (np.roll(spins, 1, 0) + np.roll(spins, -1, 0)
                  + np.roll(spins, 1, 1) + np.roll(spins, -1, 1))
            dE = 2 * spins * nb
            accept = (dE <= 0) | (uniforms[s, c] < np.exp(-beta * dE))
            flip = accept & masks[c]
            spins = np.where(flip, -spins, spins)
        mag[s] = spins.mean()
    nb = np.roll(spins, 1, 0) + np.roll(spins, 1, 1)
    energy = -float(np.sum(spins * nb)) / spins.size
    return spins, mag, energy


# ----------------------------------------------------------------------------
# Particles and rotations
# ----------------------------------------------------------------------------

def coulomb_energy_with_cutoff(pos, charges, cutoff, softening):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.linalg.norm(d, axis=-1)
    r_soft = np.sqrt(r * r + softening * softening)
    qq = np.outer(charges, charges)
    n = pos.shape[0]
    offdiag = ~np.eye(n, dtype=bool)
    within = (r < cutoff) & offdiag
    pair_e = np.where(within, qq / r_soft, 0.0)
    energy = 0.5 * pair_e.sum()
    fmag = np.where(within, qq / r_soft ** 3, 0.0)
    forces = np.einsum("ij,ijk->ik", fmag, d)
    n_neighbors = within.sum(axis=1)
    return float(energy), forces, n_neighbors


def quaternion_rotate_vectors(q, v):
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w = q[:, :1]
    qv = q[:, 1:]
    t = 2.0 * np.cross(qv, v)
    rotated = v + w * t + np.cross(qv, t)
    lengths = np.linalg.norm(rotated, axis=1)
    return rotated, lengths


def quaternion_slerp_batch(q0, q1, t):
    q0 = q0 / np.linalg.norm(q0, axis=1, keepdims=True)
    q1 = q1 / np.linalg.norm(q1, axis=1, keepdims=True)
    dot = np.sum(q0 * q1, axis=1)
    q1 = np.where(dot[:, None] < 0.0, -q1, q1)
    dot = np.clip(np.abs(dot), -1.0, 1.0)
    theta = np.arccos(dot)
    sin_t = np.sin(theta)
    small = sin_t < 1e-6
    safe = np.where(small, 1.0, sin_t)
    s0 = np.where(small, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    s1 = np.where(small, t, np.sin(t * theta) / safe)
    out = s0[:, None] * q0 + s1[:, None] * q1
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out, theta


def rodrigues_rotate_einsum(axes, angles, vecs):
    k = axes / np.linalg.norm(axes, axis=1, keepdims=True)
    n = k.shape[0]
    K = np.zeros((n, 3, 3))
    K[:, 0, 1] = -k[:, 2]
    K[:, 0, 2] = k[:, 1]
    K[:, 1, 0] = k[:, 2]
    K[:, 1, 2] = -k[:, 0]
    K[:, 2, 0] = -k[:, 1]
    K[:, 2, 1] = k[:, 0]
    s = np.sin(angles)[:, None, None]
    c = np.cos(angles)[:, None, None]
    R = np.eye(3)[None, :, :] + s * K + (1.0 - c) * np.einsum("nij,njk->nik", K, K)
    rotated = np.einsum("nij,nj->ni", R, vecs)
    trace = np.einsum("nii->n", R)
    recovered = np.arccos(np.clip(0.5 * (trace - 1.0), -1.0, 1.0))
    return rotated, recovered


# ----------------------------------------------------------------------------
# Polynomials and quadrature
# ----------------------------------------------------------------------------

def horner_polynomial_loop(coeffs, x):
    p = np.full_like(x, coeffs[0])
    dp = np.zeros_like(x)
    for c in coeffs[1:]:
        dp = dp * x + p
        p = p * x + c
    return p, dp


def clenshaw_chebyshev_series(c, x, a, b):
    t = (2.0 * x - (a + b)) / (b - a)
    b1 = np.zeros_like(t)
    b2 = np.zeros_like(t)
    for k in range(len(c) - 1, 0, -1):
        b1, b2 = 2.0 * t * b1 - b2 + c[k], b1
    return t * b1 - b2 + c[0]


def taylor_exp_polyval_error(x, degree):
    coeffs = [1.0 / math.factorial(k) for k in range(degree, -1, -1)]
    approx = np.polyval(coeffs, x)
    exact = np.exp(x)
    rel_err = np.abs(approx - exact) / exact
    return approx, float(rel_err.max()), float(rel_err.mean())


def trapezoid_damped_sines(freqs, x, decay):
    y = np.exp(-decay * x) * np.sin(np.outer(freqs, x))
    dx = np.diff(x)
    panels = 0.5 * (y[:, 1:] + y[:, :-1]) * dx
    integral = panels.sum(axis=1)
    cumulative = np.concatenate([np.zeros((len(freqs), 1)), np.cumsum(panels, axis=1)], axis=1)
    L = x[-1]
    w = freqs
    exact = (w - np.exp(-decay * L) * (decay * np.sin(w * L) + w * np.cos(w * L))) / (decay ** 2 + w ** 2)
    return integral, cumulative[:, ::100], float(np.abs(integral - exact).max())


def simpson_composite_rule(k, b, n):
    x = np.linspace(0.0, b, n + 1)
    h = b / n
    y = 1.0 / (1.0 + np.outer(k, x * x))
    s = y[:, 0] + y[:, -1] + 4.0 * y[:, 1:-1:2].sum(axis=1) + 2.0 * y[:, 2:-1:2].sum(axis=1)
    approx = s * h / 3.0
    sk = np.sqrt(k)
    exact = np.arctan(sk * b) / sk
    return approx, np.abs(approx - exact)


# ----------------------------------------------------------------------------
# Discrete systems and maps
# ----------------------------------------------------------------------------

def game_of_life_roll(grid0, steps):
    grid = grid0.copy()
    population = np.empty(steps, dtype=np.int64)
    for t in range(steps):
        n = (np.roll(grid, 1, 0) + np.roll(grid, -1, 0) + np.roll(grid, 1, 1)
             + np.roll(grid, -1, 1) + np.roll(np.roll(grid, 1, 0), 1, 1)
             + np.roll(np.roll(grid, 1, 0), -1, 1) + np.roll(np.roll(grid, -1, 0), 1, 1)
             + np.roll(np.roll(grid, -1, 0), -1, 1))
        grid = ((n == 3) | ((grid == 1) & (n == 2))).astype(np.uint8)
        population[t] = grid.sum()
    return grid, population


def elementary_automaton_history(state0, rule, steps):
    table = np.array([(rule >> i) & 1 for i in range(8)], dtype=np.int8)
    state = state0.astype(np.int8)
    history = np.empty((steps + 1, state.shape[0]), dtype=np.int8)
    history[0] = state
    for t in range(1, steps + 1):
        idx = 4 * np.roll(state, 1) + 2 * state + np.roll(state, -1)
        state = table[idx]
        history[t] = state
    density = history.mean(axis=1)
    return history, density


def logistic_bifurcation_orbits(r, x0, n_transient, n_keep):
    x = np.full_like(r, x0)
    for _ in range(n_transient):
        x = r * x * (1.0 - x)
    orbit = np.empty((n_keep, r.shape[0]))
    lyap = np.zeros_like(r)
    for t in range(n_keep):
        x = r * x * (1.0 - x)
        orbit[t] = x
        lyap += np.log(np.maximum(np.abs(r * (1.0 - 2.0 * x)), 1e-300))
    return orbit, lyap / n_keep


# ----------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240613)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # ODE stepping
    add(damped_oscillator_euler, rng.standard_normal(1000), rng.standard_normal(1000),
        rng.uniform(0.5, 2.0, 1000), 0.05, 0.01, 300)
    add(pendulum_ensemble_rk4, rng.uniform(-2.5, 2.5, 500), rng.uniform(-1.0, 1.0, 500),
        9.81, 0.1, 0.01, 200)
    add(harmonic_chain_leapfrog, 0.1 * rng.standard_normal(256), np.zeros(256),
        1.0, 1.0, 0.05, 400)

    side = 4
    spacing = 1.2
    g = np.arange(side) * spacing + 0.5 * spacing
    lattice = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    lattice = lattice + 0.03 * rng.standard_normal(lattice.shape)
    add(lennard_jones_verlet, lattice, 0.5 * rng.standard_normal(lattice.shape),
        side * spacing, 0.004, 30, 2.5)

    add(sir_parameter_sweep_rk4, rng.uniform(0.1, 0.5, 2000), rng.uniform(0.05, 0.2, 2000),
        1e-3, 0.5, 200)

    n_age = 16
    contact = rng.uniform(0.5, 3.0, (n_age, n_age))
    contact = 0.5 * (contact + contact.T) + np.diag(rng.uniform(2.0, 6.0, n_age))
    pop = rng.uniform(2e5, 1e6, n_age)
    e0 = np.zeros(n_age)
    e0[3] = 50.0
    add(seir_contact_matrix_euler, contact, pop, 0.03, 0.2, 0.1, e0, 0.25, 400)

    add(lotka_volterra_rk4_ensemble, rng.uniform(0.5, 2.0, 1000), rng.uniform(0.5, 2.0, 1000),
        1.1, 0.4, 0.1, 0.4, 0.02, 300)
    add(lorenz_ensemble_rk4_float32,
        (np.array([1.0, 1.0, 20.0]) + rng.standard_normal((512, 3))).astype(np.float32),
        10.0, 28.0, 8.0 / 3.0, 0.005, 100)
    add(quaternion_attitude_integration, rng.standard_normal((200, 4)),
        rng.uniform(-1.0, 1.0, (200, 3)), 0.01, 200)

    # PDE stencils / relaxation
    nx = 2000
    xg = np.linspace(0.0, 1.0, nx + 1)
    u0 = np.exp(-((xg - 0.3) / 0.05) ** 2)
    u0[0] = u0[-1] = 0.0
    dx = 1.0 / nx
    add(wave_equation_1d_leapfrog, u0, 1.0, dx, 0.9 * dx, 500)

    hot = np.zeros((128, 128), dtype=np.float32)
    hot[48:80, 48:80] = 1.0
    hot += 0.01 * rng.random((128, 128), dtype=np.float32)
    add(heat_diffusion_2d_float32, hot, 0.2, 100)

    ng = 64
    xx, yy = np.meshgrid(np.linspace(0, 1, ng), np.linspace(0, 1, ng), indexing="ij")
    src = np.sin(math.pi * xx) * np.sin(2 * math.pi * yy) * 10.0
    add(jacobi_poisson_2d, src, 1.0 / (ng - 1), 200)
    ng2 = 40
    xx2, yy2 = np.meshgrid(np.linspace(0, 1, ng2), np.linspace(0, 1, ng2), indexing="ij")
    src2 = np.exp(-50.0 * ((xx2 - 0.4) ** 2 + (yy2 - 0.6) ** 2)) * 100.0
    add(red_black_sor_tolerance, src2, 1.0 / (ng2 - 1), 1.8, 1e-6, 500)

    xr = np.linspace(0.0, 1.0, 102)
    rods = np.sin(np.outer(rng.integers(1, 6, 64), math.pi * xr)) + 0.1 * rng.random((64, 102))
    add(crank_nicolson_heat_thomas, rods, 0.01, 0.01, xr[1] - xr[0], 20)

    xa = np.linspace(0.0, 1.0, 4096, endpoint=False, dtype=np.float32)
    ua = (np.exp(-((xa - 0.25) / 0.03) ** 2) + (np.abs(xa - 0.6) < 0.1)).astype(np.float32)
    add(upwind_advection_periodic, ua, 1.0, 1.0 / 4096, 0.5 / 4096, 300)

    gs_u = np.ones((64, 64), dtype=np.float32)
    gs_v = np.zeros((64, 64), dtype=np.float32)
    gs_u[28:36, 28:36] = 0.5
    gs_v[28:36, 28:36] = 0.25
    gs_u += 0.02 * rng.random((64, 64), dtype=np.float32)
    gs_v += 0.02 * rng.random((64, 64), dtype=np.float32)
    add(gray_scott_reaction_diffusion, gs_u, gs_v, 0.16, 0.08, 0.035, 0.065, 1.0, 100)

    # Elementwise solvers
    add(newton_cube_root, rng.uniform(0.01, 1000.0, 100_000), 30)
    add(kepler_equation_newton, rng.uniform(0.0, 2 * math.pi, 50_000),
        rng.uniform(0.0, 0.9, 50_000), 8)
    add(bisection_cubic_roots, rng.uniform(0.1, 5.0, 40_000), rng.uniform(0.1, 50.0, 40_000), 50)

    # Monte Carlo
    add(monte_carlo_pi_estimate, rng.random(1_000_000, dtype=np.float32),
        rng.random(1_000_000, dtype=np.float32))
    add(monte_carlo_european_call, rng.standard_normal(300_000), 100.0, 105.0, 0.03, 0.25, 1.0)
    add(brownian_reflecting_box, rng.uniform(0.0, 10.0, (2000, 2)).astype(np.float32),
        (0.1 * rng.standard_normal((200, 2000, 2))).astype(np.float32), 10.0, 0.01)
    add(random_walk_statistics, (2 * rng.integers(0, 2, (1000, 500)) - 1).astype(np.int8), 20)
    L = 64
    add(ising_checkerboard_metropolis,
        (2 * rng.integers(0, 2, (L, L)) - 1).astype(np.int8),
        rng.random((50, 2, L, L)), 0.5, 50)

    # Particles and rotations
    add(coulomb_energy_with_cutoff, rng.uniform(0.0, 10.0, (400, 3)),
        rng.choice([-1.0, 1.0], 400), 3.0, 0.1)
    add(quaternion_rotate_vectors, rng.standard_normal((100_000, 4)).astype(np.float32),
        rng.standard_normal((100_000, 3)).astype(np.float32))
    add(quaternion_slerp_batch, rng.standard_normal((50_000, 4)), rng.standard_normal((50_000, 4)),
        rng.random(50_000))
    add(rodrigues_rotate_einsum, rng.standard_normal((20_000, 3)),
        rng.uniform(0.1, 3.0, 20_000), rng.standard_normal((20_000, 3)))

    # Polynomials and quadrature
    add(horner_polynomial_loop, rng.standard_normal(12), rng.uniform(-1.0, 1.0, 200_000))
    add(clenshaw_chebyshev_series,
        (rng.standard_normal(30) / (1.0 + np.arange(30)) ** 2).astype(np.float32),
        rng.uniform(-3.0, 5.0, 100_000).astype(np.float32), -3.0, 5.0)
    add(taylor_exp_polyval_error, rng.uniform(-2.0, 2.0, 100_000), 9)
    xt = np.concatenate([[0.0], np.sort(rng.uniform(0.0, 10.0, 1998)), [10.0]])
    add(trapezoid_damped_sines, rng.uniform(0.5, 5.0, 100), xt, 0.3)
    add(simpson_composite_rule, rng.uniform(0.1, 20.0, 2000), 2.0, 40)

    # Discrete systems and maps
    add(game_of_life_roll, (rng.random((128, 128)) < 0.3).astype(np.uint8), 50)
    ca0 = np.zeros(400, dtype=np.int64)
    ca0[200] = 1
    ca0[rng.integers(0, 400, 20)] = 1
    add(elementary_automaton_history, ca0, 110, 200)
    add(logistic_bifurcation_orbits, np.linspace(2.5, 3.5, 1000), 0.2, 300, 100)

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
