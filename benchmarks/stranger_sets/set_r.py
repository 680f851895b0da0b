"""Corpus R: time-stepping loops, stencils and image filters as notebooks write them.

Programs in the style of course notebooks and lab scripts for numerical PDEs, image
processing and lattice models: explicit FTCS heat and diffusion in 1-D and 2-D (with
np.roll for periodic domains and u[1:-1, 1:-1] slicing for Dirichlet ones), leapfrog
wave equations, upwind and Lax-Wendroff advection, viscous Burgers with np.gradient,
Gray-Scott reaction-diffusion, Lax-Friedrichs shallow water, Allen-Cahn with np.pad,
explicit Cahn-Hilliard, Fisher-KPP fronts with np.diff, backward-Euler and Crank-Nicolson
heat with a hand-written Thomas algorithm loop; image filters on uint8 and float32 images
(repeated-shift box blur, separable Gaussian via np.convolve per row and column or via
shifted sums, Sobel and Laplacian edge maps, unsharp masking with np.clip and
astype(np.uint8), erosion / dilation with np.minimum / np.maximum of shifted views,
Perona-Malik diffusion, histogram equalisation with np.bincount / np.cumsum, 3x3 median
via np.sort over stacked shifts, Sauvola thresholding with integral images, Harris
corners); iterative Poisson solvers (Jacobi, red-black SOR, matrix-free conjugate
gradient, a two-grid cycle with restriction / prolongation by slicing); and cellular
automata (game of life, forest fire, BTW sandpile, lattice SIR epidemic) driven by
pre-drawn random numbers. In-place updates, out= arguments, boundary conditions set by
slice assignment, history lists turned into arrays with np.array and preallocated
history buffers all appear. Float64, float32, uint8 and small-integer inputs are mixed,
with arrays from a thousand to a million elements and 10 to 200 steps per loop.
"""

import math
import numpy as np


# ----------------------------------------------------------------------------------------
# explicit PDE time stepping
# ----------------------------------------------------------------------------------------

def heat_1d_ftcs_history(u0, alpha, dx, dt, nsteps, save_every):
    # 1-D heat equation, forward Euler in time, central differences in space,
    # fixed zero temperature at both ends; keep snapshots for plotting
    u = u0.copy()
    r = alpha * dt / dx**2
    u[0] = 0.0
    u[-1] = 0.0
    history = [u.copy()]
    times = [0.0]
    for n in range(nsteps):
        un = u.copy()
        u[1:-1] = un[1:-1] + r * (un[2:] - 2.0 * un[1:-1] + un[:-2])
        u[0] = 0.0
        u[-1] = 0.0
        if (n + 1) % save_every == 0:
            history.append(u.copy())
            times.append((n + 1) * dt)
    return np.array(times), np.array(history)


def heat_2d_periodic_roll(u0, kappa, dt, h, nsteps):
    # 2-D diffusion on a periodic box, Laplacian from np.roll
    u = u0.copy()
    c = np.float32(kappa * dt / (h * h))
    total0 = u.sum(dtype=np.float64)
    for step in range(nsteps):
        lap = (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0)
               + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u)
        u += c * lap
    drift = u.sum(dtype=np.float64) - total0
    return u, float(u.max() - u.min()), float(drift)


def heat_2d_dirichlet_out(T0, T_left, T_right, T_top, T_bottom, alpha, dx, dt, nsteps):
    # plate with fixed edge temperatures; temporaries reused through out=
    T = T0.copy()
    T[:, 0] = T_left
    T[:, -1] = T_right
    T[0, :] = T_top
    T[-1, :] = T_bottom
    r = alpha * dt / (dx * dx)
    Tnew = T.copy()
    tmp = np.empty_like(T[1:-1, 1:-1])
    center = []
    ny, nx = T.shape
    for step in range(nsteps):
        np.add(T[2:, 1:-1], T[:-2, 1:-1], out=tmp)
        tmp += T[1:-1, 2:]
        tmp += T[1:-1, :-2]
        tmp -= 4.0 * T[1:-1, 1:-1]
        np.multiply(tmp, r, out=tmp)
        Tnew[1:-1, 1:-1] = T[1:-1, 1:-1] + tmp
        T, Tnew = Tnew, T
        center.append(T[ny // 2, nx // 2])
    return T, np.array(center)


def wave_1d_leapfrog(u0, v0, c, dx, dt, nsteps, nsave):
    # string fixed at both ends, second-order leapfrog, snapshots into a preallocated array
    n = u0.size
    C2 = (c * dt / dx) ** 2
    u_prev = u0.copy()
    u = np.zeros_like(u0)
    u[1:-1] = u0[1:-1] + dt * v0[1:-1] + 0.5 * C2 * (u0[2:] - 2 * u0[1:-1] + u0[:-2])
    snaps = np.zeros((nsave, n))
    stride = max(nsteps // nsave, 1)
    k = 0
    for step in range(1, nsteps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev = u
        u = u_next
        if step % stride == 0 and k < nsave:
            snaps[k, :] = u
            k += 1
    return snaps


def wave_2d_membrane_energy(u0, c, h, dt, nsteps):
    # vibrating square membrane, clamped edges, track a discrete energy every step
    u_old = u0.copy()
    u = u0.copy()
    r2 = np.float32((c * dt / h) ** 2)
    energy = np.zeros(nsteps)
    for n in range(nsteps):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                           - 4.0 * u[1:-1, 1:-1])
        u_new = 2.0 * u - u_old + r2 * lap
        u_new[0, :] = 0.0
        u_new[-1, :] = 0.0
        u_new[:, 0] = 0.0
        u_new[:, -1] = 0.0
        vel = (u_new - u_old) / (2 * dt)
        gx = np.diff(u, axis=1) / h
        gy = np.diff(u, axis=0) / h
        energy[n] = 0.5 * (np.sum(vel**2) + c * c * (np.sum(gx**2) + np.sum(gy**2))) * h * h
        u_old = u
        u = u_new
    return u, energy


def advection_upwind_1d(q0, a, dx, dt, nsteps):
    # first-order upwind for q_t + a(x) q_x = 0 with a velocity that changes sign
    q = q0.copy()
    ap = np.maximum(a, 0.0)
    am = np.minimum(a, 0.0)
    nu = dt / dx
    mass = []
    for _ in range(nsteps):
        dq_back = q - np.roll(q, 1)
        dq_fwd = np.roll(q, -1) - q
        q = q - nu * (ap * dq_back + am * dq_fwd)
        mass.append(q.sum() * dx)
    return q, np.array(mass)


def advection_lax_wendroff_periodic(x, q0, c, dt, nsteps):
    # Lax-Wendroff for constant-speed advection, compare with the exact shifted profile
    dx = x[1] - x[0]
    C = c * dt / dx
    q = q0.copy()
    for n in range(nsteps):
        qp = np.roll(q, -1)
        qm = np.roll(q, 1)
        q = q - 0.5 * C * (qp - qm) + 0.5 * C**2 * (qp - 2 * q + qm)
    L = x[-1] - x[0] + dx
    shift = c * dt * nsteps
    x_back = (x - x[0] - shift) % L + x[0]
    exact = np.interp(x_back, x, q0, period=L)
    err = q - exact
    return q, np.sqrt(np.mean(err**2)), np.abs(err).max()


def burgers_viscous_gradient(x, u0, nu, dt, nsteps):
    # viscous Burgers u_t + u u_x = nu u_xx, derivatives with np.gradient, u=0 at walls
    u = u0.copy()
    dx = x[1] - x[0]
    for n in range(nsteps):
        ux = np.gradient(u, dx)
        uxx = np.gradient(ux, dx)
        u = u + dt * (-u * ux + nu * uxx)
        u[0] = 0.0
        u[-1] = 0.0
    max_slope = np.abs(np.gradient(u, dx)).max()
    return u, max_slope


def gray_scott_reaction_diffusion(U0, V0, Du, Dv, F, k, dt, nsteps):
    # Gray-Scott model on a periodic grid (float32), five-point Laplacian with rolls
    U = U0.copy()
    V = V0.copy()
    for i in range(nsteps):
        Lu = (np.roll(U, 1, 0) + np.roll(U, -1, 0) + np.roll(U, 1, 1) + np.roll(U, -1, 1)
              - 4 * U)
        Lv = (np.roll(V, 1, 0) + np.roll(V, -1, 0) + np.roll(V, 1, 1) + np.roll(V, -1, 1)
              - 4 * V)
        uvv = U * V * V
        U += dt * (Du * Lu - uvv + F * (1 - U))
        V += dt * (Dv * Lv + uvv - (F + k) * V)
    return U, V


def shallow_water_1d_lax_friedrichs(h0, hu0, g, dx, cfl, nsteps):
    # dam break with Lax-Friedrichs, reflective walls through ghost cells, adaptive dt
    h = h0.copy()
    hu = hu0.copy()
    t = 0.0
    for n in range(nsteps):
        u = hu / h
        smax = np.max(np.abs(u) + np.sqrt(g * h))
        dt = cfl * dx / smax
        hg = np.concatenate(([h[0]], h, [h[-1]]))
        hug = np.concatenate(([-hu[0]], hu, [-hu[-1]]))
        f1 = hug
        f2 = hug**2 / hg + 0.5 * g * hg**2
        h = 0.5 * (hg[2:] + hg[:-2]) - dt / (2 * dx) * (f1[2:] - f1[:-2])
        hu = 0.5 * (hug[2:] + hug[:-2]) - dt / (2 * dx) * (f2[2:] - f2[:-2])
        t += dt
    return h, hu, t


def allen_cahn_2d_pad(u0, eps, dt, h, nsteps):
    # Allen-Cahn phase separation with zero-flux boundaries via np.pad(mode="edge")
    u = u0.copy()
    frac = np.zeros(nsteps)
    for n in range(nsteps):
        up = np.pad(u, 1, mode="edge")
        lap = (up[2:, 1:-1] + up[:-2, 1:-1] + up[1:-1, 2:] + up[1:-1, :-2]
               - 4 * up[1:-1, 1:-1]) / (h * h)
        u = u + dt * (eps**2 * lap - (u**3 - u))
        frac[n] = np.mean(u > 0)
    return u, frac


def cahn_hilliard_explicit(c0, gamma, M, dt, h, nsteps):
    # Cahn-Hilliard c_t = M lap(c^3 - c - gamma lap c), fully explicit, periodic
    c = c0.copy()
    inv_h2 = 1.0 / (h * h)
    free_energy = []
    for n in range(nsteps):
        lap_c = (np.roll(c, 1, 0) + np.roll(c, -1, 0) + np.roll(c, 1, 1) + np.roll(c, -1, 1)
                 - 4 * c) * inv_h2
        mu = c * c * c - c - gamma * lap_c
        lap_mu = (np.roll(mu, 1, 0) + np.roll(mu, -1, 0) + np.roll(mu, 1, 1)
                  + np.roll(mu, -1, 1) - 4 * mu) * inv_h2
        c += dt * M * lap_mu
        if n % 10 == 0:
            gx = (np.roll(c, -1, 1) - c) / h
            gy = (np.roll(c, -1, 0) - c) / h
            f = 0.25 * (c**2 - 1) ** 2 + 0.5 * gamma * (gx**2 + gy**2)
            free_energy.append(f.sum() * h * h)
    return c, np.array(free_energy)


def fisher_kpp_front_1d(x, u0, D, r, dt, nsteps):
    # Fisher-KPP invasion front, Laplacian with np.diff(u, 2), Neumann ends; measure speed
    u = u0.copy()
    dx = x[1] - x[0]
    pos = np.zeros(nsteps)
    for n in range(nsteps):
        lap = np.zeros_like(u)
        lap[1:-1] = np.diff(u, 2) / dx**2
        lap[0] = 2 * (u[1] - u[0]) / dx**2
        lap[-1] = 2 * (u[-2] - u[-1]) / dx**2
        u = u + dt * (D * lap + r * u * (1 - u))
        idx = np.argmax(u < 0.5)
        pos[n] = x[idx]
    t = dt * np.arange(1, nsteps + 1)
    half = nsteps // 2
    speed = (pos[-1] - pos[half]) / (t[-1] - t[half])
    return u, pos, speed, 2 * math.sqrt(D * r)


def heat_1d_explicit_vs_implicit(u0, alpha, dx, dt_explicit, dt_implicit, t_end):
    # same rod, FTCS with a small step versus backward Euler with a big step (Thomas solve)
    n = u0.size
    u_exp = u0.copy()
    r = alpha * dt_explicit / dx**2
    nexp = int(round(t_end / dt_explicit))
    for k in range(nexp):
        u_exp[1:-1] = u_exp[1:-1] + r * (u_exp[2:] - 2 * u_exp[1:-1] + u_exp[:-2])

    u_imp = u0.copy()
    s = alpha * dt_implicit / dx**2
    nimp = int(round(t_end / dt_implicit))
    m = n - 2
    a = -s * np.ones(m)
    b = (1 + 2 * s) * np.ones(m)
    c = -s * np.ones(m)
    for k in range(nimp):
        d = u_imp[1:-1].copy()
        d[0] += s * u_imp[0]
        d[-1] += s * u_imp[-1]
        cp = np.zeros(m)
        dp = np.zeros(m)
        cp[0] = c[0] / b[0]
        dp[0] = d[0] / b[0]
        for i in range(1, m):
            denom = b[i] - a[i] * cp[i - 1]
            cp[i] = c[i] / denom
            dp[i] = (d[i] - a[i] * dp[i - 1]) / denom
        xs = np.zeros(m)
        xs[-1] = dp[-1]
        for i in range(m - 2, -1, -1):
            xs[i] = dp[i] - cp[i] * xs[i + 1]
        u_imp[1:-1] = xs
    return u_exp, u_imp, np.abs(u_exp - u_imp).max()


def crank_nicolson_thomas_1d(x, u0, D, dt, nsteps, left_value, right_value):
    # Crank-Nicolson diffusion with Dirichlet ends; constant matrix so the forward
    # sweep coefficients are computed once and reused every step
    dx = x[1] - x[0]
    lam = D * dt / dx**2
    u = u0.copy()
    u[0] = left_value
    u[-1] = right_value
    m = u.size - 2
    lower = -0.5 * lam
    diag = 1 + lam
    upper = -0.5 * lam
    cprime = np.empty(m)
    denom = np.empty(m)
    cprime[0] = upper / diag
    denom[0] = diag
    for i in range(1, m):
        denom[i] = diag - lower * cprime[i - 1]
        cprime[i] = upper / denom[i]
    profiles = []
    for n in range(nsteps):
        rhs = u[1:-1] + 0.5 * lam * (u[2:] - 2 * u[1:-1] + u[:-2])
        rhs[0] += 0.5 * lam * left_value
        rhs[-1] += 0.5 * lam * right_value
        dprime = np.empty(m)
        dprime[0] = rhs[0] / denom[0]
        for i in range(1, m):
            dprime[i] = (rhs[i] - lower * dprime[i - 1]) / denom[i]
        sol = np.empty(m)
        sol[-1] = dprime[-1]
        for i in range(m - 2, -1, -1):
            sol[i] = dprime[i] - cprime[i] * sol[i + 1]
        u[1:-1] = sol
        profiles.append(u.copy())
    profiles = np.array(profiles)
    steady = left_value + (right_value - left_value) * (x - x[0]) / (x[-1] - x[0])
    return profiles, np.sqrt(np.mean((u - steady) ** 2))


def advection_2d_upwind_rotating(q0, L, dt, nsteps):
    # solid-body rotation of a blob, donor-cell upwind in both directions
    ny, nx = q0.shape
    xs = np.linspace(-L, L, nx)
    ys = np.linspace(-L, L, ny)
    X, Y = np.meshgrid(xs, ys)
    dx = xs[1] - xs[0]
    dy = ys[1] - ys[0]
    u = -Y
    v = X
    q = q0.copy()
    for n in range(nsteps):
        dqx_m = (q - np.roll(q, 1, axis=1)) / dx
        dqx_p = (np.roll(q, -1, axis=1) - q) / dx
        dqy_m = (q - np.roll(q, 1, axis=0)) / dy
        dqy_p = (np.roll(q, -1, axis=0) - q) / dy
        dqdx = np.where(u > 0, dqx_m, dqx_p)
        dqdy = np.where(v > 0, dqy_m, dqy_p)
        q = q - dt * (u * dqdx + v * dqdy)
        q[0, :] = 0.0
        q[-1, :] = 0.0
        q[:, 0] = 0.0
        q[:, -1] = 0.0
    cx = (q * X).sum() / q.sum()
    cy = (q * Y).sum() / q.sum()
    return q, cx, cy


# ----------------------------------------------------------------------------------------
# image filters
# ----------------------------------------------------------------------------------------

def box_blur_repeated_shifts(img, radius, passes):
    # approximate Gaussian blur of a uint8 image: several box blurs from rolled copies
    f = img.astype(np.float32)
    size = 2 * radius + 1
    for p in range(passes):
        acc = np.zeros_like(f)
        for dy in range(-radius, radius + 1):
            rowshift = np.roll(f, dy, axis=0)
            for dx in range(-radius, radius + 1):
                acc += np.roll(rowshift, dx, axis=1)
        f = acc / (size * size)
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


def gaussian_blur_convolve_rows_cols(img, sigma):
    # separable Gaussian: 1-D kernel, np.convolve along every row then every column
    radius = int(math.ceil(3 * sigma))
    t = np.arange(-radius, radius + 1, dtype=np.float32)
    kernel = np.exp(-0.5 * (t / sigma) ** 2)
    kernel /= kernel.sum()
    h, w = img.shape
    tmp = np.empty_like(img)
    for i in range(h):
        tmp[i, :] = np.convolve(img[i, :], kernel, mode="same")
    out = np.empty_like(img)
    for j in range(w):
        out[:, j] = np.convolve(tmp[:, j], kernel, mode="same")
    return out


def gaussian_blur_shifted_sums(img, sigma):
    # separable Gaussian on an RGB float image via weighted sums of shifted slices
    radius = int(math.ceil(2.5 * sigma))
    w = [math.exp(-0.5 * (k / sigma) ** 2) for k in range(-radius, radius + 1)]
    s = sum(w)
    w = [wk / s for wk in w]
    H, W, C = img.shape
    p = np.pad(img, ((radius, radius), (0, 0), (0, 0)), mode="reflect")
    tmp = np.zeros((H, W, C))
    for i, wk in enumerate(w):
        tmp += wk * p[i:i + H]
    p = np.pad(tmp, ((0, 0), (radius, radius), (0, 0)), mode="reflect")
    out = np.zeros((H, W, C))
    for i, wk in enumerate(w):
        out += wk * p[:, i:i + W]
    return out


def sobel_edge_magnitude(img, threshold):
    # Sobel gradients with slicing, magnitude, quantised direction and binary edge map
    p = img.astype(np.float32)
    gx = ((p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:])
          - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2]))
    gy = ((p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:])
          - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:]))
    mag = np.hypot(gx, gy)
    mag = mag / mag.max() * 255
    angle = np.degrees(np.arctan2(gy, gx)) % 180
    sector = (np.floor((angle + 22.5) / 45.0).astype(np.int64)) % 4
    edges = np.zeros(img.shape, dtype=np.uint8)
    edges[1:-1, 1:-1] = np.where(mag > threshold, 255, 0)
    counts = np.bincount(sector[mag > threshold], minlength=4)
    return edges, counts


def laplacian_edge_map(img, sigma_passes):
    # smooth with a few 3x3 binomial passes, 5-point Laplacian, zero crossings
    f = img.astype(np.float64) / 255.0
    for _ in range(sigma_passes):
        g = np.pad(f, 1, mode="edge")
        f = (g[:-2, :-2] + 2 * g[:-2, 1:-1] + g[:-2, 2:]
             + 2 * g[1:-1, :-2] + 4 * g[1:-1, 1:-1] + 2 * g[1:-1, 2:]
             + g[2:, :-2] + 2 * g[2:, 1:-1] + g[2:, 2:]) / 16.0
    lap = np.zeros_like(f)
    lap[1:-1, 1:-1] = f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2] - 4 * f[1:-1, 1:-1]
    s = np.sign(lap)
    zc = np.zeros(f.shape, dtype=bool)
    zc[:, :-1] |= np.diff(s, axis=1) != 0
    zc[:-1, :] |= np.diff(s, axis=0) != 0
    strength = np.abs(lap)
    edges = zc & (strength > 0.5 * strength.mean())
    return edges.astype(np.uint8) * 255, int(edges.sum())


def unsharp_mask_uint8(img, amount, threshold):
    # classic unsharp mask on an RGB uint8 photo with a 3x3 Gaussian blur
    f = img.astype(np.float32)
    p = np.pad(f, ((1, 1), (1, 1), (0, 0)), mode="edge")
    blur = (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:]
            + 2 * p[1:-1, :-2] + 4 * p[1:-1, 1:-1] + 2 * p[1:-1, 2:]
            + p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) / 16.0
    detail = f - blur
    mask = np.abs(detail) >= threshold
    sharp = f + amount * detail * mask
    sharp = np.clip(sharp, 0, 255)
    return sharp.astype(np.uint8)


def morphology_open_close(img, iterations):
    # grey-scale opening then closing with a 3x3 square, shifts of an edge-padded copy
    out = img.copy()
    H, W = img.shape
    # opening: erosions then dilations
    for it in range(iterations):
        p = np.pad(out, 1, mode="edge")
        er = p[1:-1, 1:-1].copy()
        for dy in range(3):
            for dx in range(3):
                np.minimum(er, p[dy:dy + H, dx:dx + W], out=er)
        out = er
    for it in range(iterations):
        p = np.pad(out, 1, mode="edge")
        di = p[1:-1, 1:-1].copy()
        for dy in range(3):
            for dx in range(3):
                np.maximum(di, p[dy:dy + H, dx:dx + W], out=di)
        out = di
    opened = out.copy()
    # closing: dilations then erosions
    for it in range(iterations):
        p = np.pad(out, 1, mode="edge")
        di = p[1:-1, 1:-1].copy()
        for dy in range(3):
            for dx in range(3):
                np.maximum(di, p[dy:dy + H, dx:dx + W], out=di)
        out = di
    for it in range(iterations):
        p = np.pad(out, 1, mode="edge")
        er = p[1:-1, 1:-1].copy()
        for dy in range(3):
            for dx in range(3):
                np.minimum(er, p[dy:dy + H, dx:dx + W], out=er)
        out = er
    tophat = img.astype(np.int16) - opened.astype(np.int16)
    return out, opened, tophat


def perona_malik_diffusion(img, niter, kappa, gamma):
    # anisotropic diffusion, exponential conduction function, four neighbour fluxes
    im = img.astype(np.float32)
    deltaS = np.zeros_like(im)
    deltaE = np.zeros_like(im)
    NS = np.zeros_like(im)
    EW = np.zeros_like(im)
    for ii in range(niter):
        deltaS[:-1, :] = np.diff(im, axis=0)
        deltaE[:, :-1] = np.diff(im, axis=1)
        gS = np.exp(-(deltaS / kappa) ** 2)
        gE = np.exp(-(deltaE / kappa) ** 2)
        S = gS * deltaS
        E = gE * deltaE
        NS[:] = S
        EW[:] = E
        NS[1:, :] -= S[:-1, :]
        EW[:, 1:] -= E[:, :-1]
        im += gamma * (NS + EW)
    return im


def histogram_equalize(img):
    # global histogram equalisation of an 8-bit image through a lookup table
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    nz = cdf[cdf > 0]
    cdf_min = nz[0]
    total = cdf[-1]
    lut = np.floor((cdf - cdf_min) / (total - cdf_min) * 255.0 + 0.5)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    out = lut[img]
    new_hist = np.bincount(out.ravel(), minlength=256)
    return out, hist, new_hist


def median3x3_sort_stack(img, noise_mask, noise_values):
    # add salt-and-pepper noise then remove it with a 3x3 median (sort over 9 shifts)
    noisy = img.copy()
    noisy[noise_mask] = noise_values[noise_mask]
    p = np.pad(noisy, 1, mode="reflect")
    H, W = img.shape
    stack = np.stack([p[dy:dy + H, dx:dx + W] for dy in range(3) for dx in range(3)])
    med = np.sort(stack, axis=0)[4]
    err_before = np.mean(np.abs(noisy.astype(np.int32) - img.astype(np.int32)))
    err_after = np.mean(np.abs(med.astype(np.int32) - img.astype(np.int32)))
    return med, err_before, err_after


def sauvola_threshold_integral(img, window, k, R):
    # local mean / std from integral images of I and I^2, then Sauvola binarisation
    f = img.astype(np.float64)
    H, W = f.shape
    ii = np.zeros((H + 1, W + 1))
    ii2 = np.zeros((H + 1, W + 1))
    ii[1:, 1:] = np.cumsum(np.cumsum(f, axis=0), axis=1)
    ii2[1:, 1:] = np.cumsum(np.cumsum(f * f, axis=0), axis=1)
    r = window // 2
    rows = np.arange(H)
    cols = np.arange(W)
    y0 = np.clip(rows - r, 0, H)
    y1 = np.clip(rows + r + 1, 0, H)
    x0 = np.clip(cols - r, 0, W)
    x1 = np.clip(cols + r + 1, 0, W)
    area = (y1 - y0)[:, None] * (x1 - x0)[None, :]
    s1 = ii[y1][:, x1] - ii[y0][:, x1] - ii[y1][:, x0] + ii[y0][:, x0]
    s2 = ii2[y1][:, x1] - ii2[y0][:, x1] - ii2[y1][:, x0] + ii2[y0][:, x0]
    mean = s1 / area
    var = np.maximum(s2 / area - mean**2, 0.0)
    std = np.sqrt(var)
    thresh = mean * (1 + k * (std / R - 1))
    binary = (f > thresh).astype(np.uint8) * 255
    return binary, mean, std


def harris_corner_response(img, k, rel_threshold):
    # Harris detector: np.gradient, structure tensor smoothed by 3x3 shifted sums, NMS
    f = img.astype(np.float32)
    Iy, Ix = np.gradient(f)
    Ixx = Ix * Ix
    Iyy = Iy * Iy
    Ixy = Ix * Iy
    H, W = f.shape
    Sxx = np.zeros_like(f)
    Syy = np.zeros_like(f)
    Sxy = np.zeros_like(f)
    pxx = np.pad(Ixx, 1)
    pyy = np.pad(Iyy, 1)
    pxy = np.pad(Ixy, 1)
    for dy in range(3):
        for dx in range(3):
            Sxx += pxx[dy:dy + H, dx:dx + W]
            Syy += pyy[dy:dy + H, dx:dx + W]
            Sxy += pxy[dy:dy + H, dx:dx + W]
    R = Sxx * Syy - Sxy**2 - k * (Sxx + Syy) ** 2
    pr = np.pad(R, 1, constant_values=-np.inf)
    local_max = np.full(R.shape, -np.inf, dtype=R.dtype)
    for dy in range(3):
        for dx in range(3):
            if dy == 1 and dx == 1:
                continue
            local_max = np.maximum(local_max, pr[dy:dy + H, dx:dx + W])
    corners = (R > local_max) & (R > rel_threshold * R.max())
    pts = np.argwhere(corners)
    return pts, R[corners]


# ----------------------------------------------------------------------------------------
# iterative solvers for Poisson problems
# ----------------------------------------------------------------------------------------

def jacobi_poisson_2d(f, h, niter, check_every):
    # -lap u = f on the unit square, u = 0 on the boundary, plain Jacobi sweeps
    u = np.zeros_like(f)
    res_hist = []
    for it in range(niter):
        u_new = u.copy()
        u_new[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                    + h * h * f[1:-1, 1:-1])
        u = u_new
        if it % check_every == 0:
            r = f[1:-1, 1:-1] + (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                 - 4 * u[1:-1, 1:-1]) / (h * h)
            res_hist.append(np.sqrt(np.sum(r * r)) * h)
    return u, np.array(res_hist)


def red_black_sor_poisson(f, h, omega, niter):
    # successive over-relaxation with red-black ordering using checkerboard masks
    n, m = f.shape
    u = np.zeros_like(f)
    ii, jj = np.meshgrid(np.arange(1, n - 1), np.arange(1, m - 1), indexing="ij")
    red = (ii + jj) % 2 == 0
    black = ~red
    h2f = h * h * f[1:-1, 1:-1]
    changes = []
    for it in range(niter):
        old = u.copy()
        for mask in (red, black):
            gs = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] + h2f)
            interior = u[1:-1, 1:-1]
            interior[mask] = (1 - omega) * interior[mask] + omega * gs[mask]
        changes.append(np.max(np.abs(u - old)))
    return u, np.array(changes)


def conjugate_gradient_poisson(b, h, tol, maxiter):
    # CG for the 5-point Laplacian with zero Dirichlet boundary, operator applied matrix-free
    x = np.zeros(b.shape)
    r = b.copy()
    p = r.copy()
    rs_old = np.sum(r * r)
    norm_b = math.sqrt(rs_old)
    history = [1.0]
    k = 0
    for k in range(1, maxiter + 1):
        pp = np.pad(p, 1)
        Ap = (4 * p - pp[2:, 1:-1] - pp[:-2, 1:-1] - pp[1:-1, 2:] - pp[1:-1, :-2]) / (h * h)
        alpha = rs_old / np.sum(p * Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = np.sum(r * r)
        history.append(math.sqrt(rs_new) / norm_b)
        if math.sqrt(rs_new) < tol * norm_b:
            break
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
    return x, k, np.array(history)


def two_grid_poisson(f, h, ncycles, nu_pre, nu_post, coarse_sweeps):
    # two-grid correction scheme: weighted-Jacobi smoothing, full-weighting restriction,
    # coarse Jacobi solve, linear-interpolation prolongation, all by slicing
    n = f.shape[0]
    u = np.zeros_like(f)
    w = 2.0 / 3.0
    res_norms = []
    for cycle in range(ncycles):
        for s in range(nu_pre):
            u_j = u.copy()
            u_j[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                      + h * h * f[1:-1, 1:-1])
            u = (1 - w) * u + w * u_j
        r = np.zeros_like(u)
        r[1:-1, 1:-1] = f[1:-1, 1:-1] + (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                         + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]) / (h * h)
        res_norms.append(np.sqrt(np.sum(r**2)) * h)
        nc = (n - 1) // 2 + 1
        rc = np.zeros((nc, nc))
        rc[1:-1, 1:-1] = (4 * r[2:-1:2, 2:-1:2]
                          + 2 * (r[1:-2:2, 2:-1:2] + r[3::2, 2:-1:2]
                                 + r[2:-1:2, 1:-2:2] + r[2:-1:2, 3::2])
                          + r[1:-2:2, 1:-2:2] + r[3::2, 1:-2:2]
                          + r[1:-2:2, 3::2] + r[3::2, 3::2]) / 16.0
        H = 2 * h
        e = np.zeros((nc, nc))
        for s in range(coarse_sweeps):
            e_new = e.copy()
            e_new[1:-1, 1:-1] = 0.25 * (e[2:, 1:-1] + e[:-2, 1:-1] + e[1:-1, 2:]
                                        + e[1:-1, :-2] + H * H * rc[1:-1, 1:-1])
            e = e_new
        ef = np.zeros_like(u)
        ef[::2, ::2] = e
        ef[1::2, ::2] = 0.5 * (e[:-1, :] + e[1:, :])
        ef[::2, 1::2] = 0.5 * (e[:, :-1] + e[:, 1:])
        ef[1::2, 1::2] = 0.25 * (e[:-1, :-1] + e[1:, :-1] + e[:-1, 1:] + e[1:, 1:])
        u += ef
        for s in range(nu_post):
            u_j = u.copy()
            u_j[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                      + h * h * f[1:-1, 1:-1])
            u = (1 - w) * u + w * u_j
    return u, np.array(res_norms)


# ----------------------------------------------------------------------------------------
# cellular automata and lattice agents
# ----------------------------------------------------------------------------------------

def game_of_life_roll(board, nsteps):
    # Conway's game of life on a torus, neighbour counts from eight rolls
    b = board.copy()
    population = np.zeros(nsteps + 1, dtype=np.int64)
    population[0] = b.sum()
    for t in range(nsteps):
        n = (np.roll(b, 1, 0) + np.roll(b, -1, 0) + np.roll(b, 1, 1) + np.roll(b, -1, 1)
             + np.roll(np.roll(b, 1, 0), 1, 1) + np.roll(np.roll(b, 1, 0), -1, 1)
             + np.roll(np.roll(b, -1, 0), 1, 1) + np.roll(np.roll(b, -1, 0), -1, 1))
        b = ((n == 3) | ((b == 1) & (n == 2))).astype(np.uint8)
        population[t + 1] = b.sum()
    return b, population


def forest_fire_automaton(state0, rand, p_grow, f_lightning):
    # Drossel-Schwabl forest fire: 0 empty, 1 tree, 2 burning; rand holds one draw per
    # cell per step
    EMPTY, TREE, FIRE = 0, 1, 2
    state = state0.copy()
    nsteps = rand.shape[0]
    counts = np.zeros((nsteps, 3), dtype=np.int64)
    for t in range(nsteps):
        r = rand[t]
        burning = state == FIRE
        nb_fire = (np.roll(burning, 1, 0) | np.roll(burning, -1, 0)
                   | np.roll(burning, 1, 1) | np.roll(burning, -1, 1))
        new = state.copy()
        new[burning] = EMPTY
        trees = state == TREE
        new[trees & (nb_fire | (r < f_lightning))] = FIRE
        new[(state == EMPTY) & (r < p_grow)] = TREE
        state = new
        counts[t, 0] = np.count_nonzero(state == EMPTY)
        counts[t, 1] = np.count_nonzero(state == TREE)
        counts[t, 2] = np.count_nonzero(state == FIRE)
    return state, counts


def sandpile_toppling(grid0, drop_rows, drop_cols):
    # Bak-Tang-Wiesenfeld sandpile: drop grains at given sites, topple until stable,
    # record avalanche sizes; grains falling off the edge are lost
    grid = grid0.copy()
    sizes = []
    for k in range(len(drop_rows)):
        grid[drop_rows[k], drop_cols[k]] += 1
        size = 0
        unstable = grid >= 4
        while unstable.any():
            topple = np.where(unstable, 1, 0)
            size += int(topple.sum())
            grid -= 4 * topple
            grid[1:, :] += topple[:-1, :]
            grid[:-1, :] += topple[1:, :]
            grid[:, 1:] += topple[:, :-1]
            grid[:, :-1] += topple[:, 1:]
            unstable = grid >= 4
        sizes.append(size)
    return grid, np.array(sizes)


def sir_lattice_epidemic(state0, rand, beta, gamma):
    # stochastic SIR on a grid: S=0, I=1, R=2; infection chance grows with the number
    # of infected von Neumann neighbours
    state = state0.copy()
    nsteps = rand.shape[0]
    S_hist = []
    I_hist = []
    R_hist = []
    for t in range(nsteps):
        inf = (state == 1).astype(np.int8)
        k = np.zeros(state.shape, dtype=np.int8)
        k[1:, :] += inf[:-1, :]
        k[:-1, :] += inf[1:, :]
        k[:, 1:] += inf[:, :-1]
        k[:, :-1] += inf[:, 1:]
        p_inf = 1.0 - (1.0 - beta) ** k
        r = rand[t]
        new_inf = (state == 0) & (r < p_inf)
        recover = (state == 1) & (r < gamma)
        state[new_inf] = 1
        state[recover] = 2
        S_hist.append(np.count_nonzero(state == 0))
        I_hist.append(np.count_nonzero(state == 1))
        R_hist.append(np.count_nonzero(state == 2))
    return state, np.array(S_hist), np.array(I_hist), np.array(R_hist)


def _make_args():
    rng = np.random.default_rng(20240918)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # explicit PDE time stepping
    x = np.linspace(0.0, 1.0, 2000)
    u0 = np.sin(np.pi * x) + 0.3 * np.sin(7 * np.pi * x) + 0.01 * rng.standard_normal(2000)
    dx = x[1] - x[0]
    add(heat_1d_ftcs_history, u0, 1.0, dx, 0.4 * dx * dx, 200, 20)
    T0 = (rng.uniform(0, 1, (256, 256)) ** 4).astype(np.float32)
    add(heat_2d_periodic_roll, T0, 1.0, 0.2, 1.0, 40)
    add(heat_2d_dirichlet_out, np.full((200, 200), 20.0), 100.0, 0.0, 50.0, 25.0,
        1.0e-4, 0.01, 0.2, 100)
    xs = np.linspace(0, 1, 5000)
    pluck = np.where(xs < 0.3, xs / 0.3, (1 - xs) / 0.7) * 0.01
    add(wave_1d_leapfrog, pluck, np.zeros(5000), 1.0, xs[1] - xs[0], 0.9 * (xs[1] - xs[0]),
        150, 15)
    g = np.linspace(-1, 1, 160)
    GX, GY = np.meshgrid(g, g)
    bump = (np.exp(-((GX - 0.2) ** 2 + (GY + 0.1) ** 2) / 0.01)).astype(np.float32)
    bump[0, :] = bump[-1, :] = bump[:, 0] = bump[:, -1] = 0
    add(wave_2d_membrane_energy, bump, 1.0, g[1] - g[0], 0.5 * (g[1] - g[0]), 60)
    xa = np.linspace(0, 2 * np.pi, 20000, endpoint=False)
    add(advection_upwind_1d, np.exp(-20 * (xa - 2.0) ** 2) + np.exp(-20 * (xa - 4.5) ** 2),
        np.sin(xa) + 0.3, xa[1] - xa[0], 0.5 * (xa[1] - xa[0]), 100)
    xl = np.linspace(-1, 1, 4000, endpoint=False)
    add(advection_lax_wendroff_periodic, xl, np.where(np.abs(xl) < 0.3, 1.0, 0.0)
        + np.exp(-200 * (xl - 0.5) ** 2), 1.0, 0.8 * (xl[1] - xl[0]), 200)
    xb = np.linspace(-1, 1, 1000)
    add(burgers_viscous_gradient, xb, -np.sin(np.pi * xb) + 0.05 * rng.standard_normal(1000),
        0.01, 1.0e-4, 200)
    Ugs = np.ones((128, 128), dtype=np.float32)
    Vgs = np.zeros((128, 128), dtype=np.float32)
    Ugs[54:74, 54:74] = 0.5
    Vgs[54:74, 54:74] = 0.25
    Ugs += (0.02 * rng.standard_normal((128, 128))).astype(np.float32)
    Vgs += (0.02 * rng.standard_normal((128, 128))).astype(np.float32)
    add(gray_scott_reaction_diffusion, Ugs, Vgs, 0.16, 0.08, 0.035, 0.065, 1.0, 60)
    nsw = 4000
    hsw = np.where(np.arange(nsw) < nsw // 2, 2.0, 1.0)
    add(shallow_water_1d_lax_friedrichs, hsw, np.zeros(nsw), 9.81, 10.0 / nsw, 0.9, 150)
    add(allen_cahn_2d_pad, rng.uniform(-0.1, 0.1, (96, 96)), 0.02, 0.01, 1.0 / 95, 25)
    add(cahn_hilliard_explicit, 0.05 * rng.standard_normal((128, 128)), 0.5, 1.0, 0.01, 1.0,
        100)
    xf = np.linspace(0, 200, 1001)
    add(fisher_kpp_front_1d, xf, np.where(xf < 5, 1.0, 0.0), 1.0, 1.0,
        0.4 * (xf[1] - xf[0]) ** 2, 200)
    xr = np.linspace(0, 1, 1001)
    add(heat_1d_explicit_vs_implicit, np.sin(np.pi * xr) + 0.5 * np.sin(3 * np.pi * xr),
        1.0, xr[1] - xr[0], 0.4 * (xr[1] - xr[0]) ** 2, 2.0e-5, 1.0e-4)
    xc = np.linspace(0, 1, 1000)
    add(crank_nicolson_thomas_1d, xc, rng.uniform(0, 1, 1000), 1.0, 2.0e-5, 8, 1.0, 0.0)
    gq = np.linspace(-1, 1, 128)
    QX, QY = np.meshgrid(gq, gq)
    add(advection_2d_upwind_rotating, np.exp(-((QX - 0.4) ** 2 + QY**2) / 0.02), 1.0,
        0.4 * (gq[1] - gq[0]), 80)

    # image filters
    yy, xx = np.mgrid[0:256, 0:256]
    photo = (128 + 60 * np.sin(xx / 17.0) * np.cos(yy / 23.0)
             + 30 * ((xx - 128) ** 2 + (yy - 100) ** 2 < 50 ** 2)
             + 12 * rng.standard_normal((256, 256)))
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    add(box_blur_repeated_shifts, photo, 1, 3)
    add(gaussian_blur_convolve_rows_cols,
        rng.standard_normal((200, 300)).astype(np.float32) + np.float32(1.0), 2.0)
    add(gaussian_blur_shifted_sums, rng.uniform(0, 1, (240, 320, 3)), 1.5)
    yy5, xx5 = np.mgrid[0:512, 0:512]
    scene = (100 + 80 * (((xx5 // 64) + (yy5 // 64)) % 2)
             + 40 * ((xx5 - 300) ** 2 + (yy5 - 200) ** 2 < 90 ** 2)
             + 8 * rng.standard_normal((512, 512)))
    scene = np.clip(scene, 0, 255).astype(np.uint8)
    add(sobel_edge_magnitude, scene, 60.0)
    add(laplacian_edge_map, photo, 2)
    rgb = np.clip(np.stack([photo, photo[::-1], photo[:, ::-1]], axis=-1).astype(np.int32)
                  + rng.integers(-10, 10, (256, 256, 3)), 0, 255).astype(np.uint8)
    add(unsharp_mask_uint8, rgb, 1.2, 3.0)
    add(morphology_open_close, scene[:256, :256].copy(), 2)
    add(perona_malik_diffusion, photo.astype(np.float32), 15, 20.0, 0.2)
    dark = np.clip(rng.gamma(2.0, 20.0, (512, 512)), 0, 255).astype(np.uint8)
    add(histogram_equalize, dark)
    add(median3x3_sort_stack, photo, rng.uniform(0, 1, (256, 256)) < 0.08,
        np.where(rng.uniform(0, 1, (256, 256)) < 0.5, 0, 255).astype(np.uint8))
    page = np.clip(200 - 0.3 * xx + 40 * (rng.uniform(0, 1, (256, 256)) < 0.1)
                   - 120 * ((yy % 32) < 3), 0, 255).astype(np.uint8)
    add(sauvola_threshold_integral, page, 25, 0.3, 128.0)
    add(harris_corner_response, scene[:384, :384].astype(np.float32) / 255.0, 0.05, 0.01)

    # Poisson solvers
    nP = 129
    hP = 1.0 / (nP - 1)
    gp = np.linspace(0, 1, nP)
    PX, PY = np.meshgrid(gp, gp, indexing="ij")
    fP = 2 * np.pi**2 * np.sin(np.pi * PX) * np.sin(np.pi * PY) + 10 * np.exp(
        -((PX - 0.3) ** 2 + (PY - 0.7) ** 2) / 0.01)
    add(jacobi_poisson_2d, fP, hP, 200, 10)
    add(red_black_sor_poisson, fP[:65, :65].copy(), 1.0 / 64, 1.9, 60)
    add(conjugate_gradient_poisson, fP[1:-1, 1:-1][:63, :63].copy(), 1.0 / 64, 1.0e-8, 300)
    add(two_grid_poisson, fP, hP, 5, 3, 3, 60)

    # cellular automata
    add(game_of_life_roll, (rng.uniform(0, 1, (200, 200)) < 0.3).astype(np.uint8), 100)
    forest0 = (rng.uniform(0, 1, (128, 128)) < 0.55).astype(np.int8)
    forest0[64, 64] = 2
    add(forest_fire_automaton, forest0, rng.uniform(0, 1, (60, 128, 128)).astype(np.float32),
        0.03, 1.0e-4)
    add(sandpile_toppling, rng.integers(0, 4, (40, 40)), rng.integers(0, 40, 200),
        rng.integers(0, 40, 200))
    sir0 = np.zeros((128, 128), dtype=np.int8)
    sir0[rng.uniform(0, 1, (128, 128)) < 0.002] = 1
    add(sir_lattice_epidemic, sir0, rng.uniform(0, 1, (60, 128, 128)), 0.3, 0.1)

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
