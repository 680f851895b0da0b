"""Benchmark corpus D: everyday NumPy programs across domains not usually found in
benchmark suites -- e-commerce and logistics tables, weather and climate series,
sports statistics, epidemiology, traffic, ecology, chemistry, astronomy, game
mechanics, text-like integer processing, scheduling, matrix utilities and small
time-stepped simulations. Each program is a plain function over NumPy arrays and
Python scalars; `progs` lists (name, function, args) triples.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# e-commerce and logistics
# ---------------------------------------------------------------------------

def order_totals(prices, qty, discount_rate, tax_rate):
    subtotal = prices * qty
    discounted = np.where(subtotal > 100.0, subtotal * (1.0 - discount_rate), subtotal)
    tax = np.round(discounted * tax_rate, 2)
    total = discounted + tax
    return np.round(total, 2), float(total.sum())


def revenue_by_category(category, prices, qty, n_categories):
    revenue = np.bincount(category, weights=prices * qty, minlength=n_categories)
    units = np.bincount(category, weights=qty, minlength=n_categories)
    avg_price = np.where(units > 0, revenue / np.maximum(units, 1), 0.0)
    share = revenue / revenue.sum()
    order = np.argsort(-revenue)
    return revenue, avg_price, share, order


def top_customers(customer_ids, amounts, k):
    uniq, inv = np.unique(customer_ids, return_inverse=True)
    spend = np.bincount(inv, weights=amounts)
    counts = np.bincount(inv)
    order = np.argsort(spend)[::-1][:k]
    return uniq[order], spend[order], spend[order] / counts[order]


def shipping_cost(weights_kg, distance_km, zone):
    billable = np.ceil(np.maximum(weights_kg, 0.5) * 2.0) / 2.0
    base = np.where(billable <= 1.0, 4.99,
                    np.where(billable <= 5.0, 7.99 + 1.2 * (billable - 1.0),
                             12.79 + 0.9 * (billable - 5.0)))
    zone_mult = np.array([1.0, 1.15, 1.35, 1.6, 2.1])[zone]
    dist_fee = np.clip((distance_km - 50.0) * 0.02, 0.0, 25.0)
    cost = base * zone_mult + dist_fee
    free = (billable <= 2.0) & (zone == 0)
    cost[free] = 0.0
    return np.round(cost, 2)


def inventory_simulation(demand, reorder_point, order_qty, lead_time, start_stock):
    n = demand.shape[0]
    stock = np.zeros(n)
    lost = np.zeros(n)
    arrivals = np.zeros(n + lead_time + 1)
    level = float(start_stock)
    on_order = 0.0
    for t in range(n):
        level += arrivals[t]
        on_order -= arrivals[t]
        sold = min(level, float(demand[t]))
        lost[t] = demand[t] - sold
        level -= sold
        if level + on_order <= reorder_point:
            arrivals[t + lead_time] += order_qty
            on_order += order_qty
        stock[t] = level
    fill_rate = 1.0 - lost.sum() / demand.sum()
    return stock, lost, fill_rate


def discount_tier(cart_totals, thresholds, rates):
    tier = np.searchsorted(thresholds, cart_totals, side="right")
    rate = np.concatenate(([0.0], rates))[tier]
    savings = cart_totals * rate
    counts = np.bincount(tier, minlength=len(thresholds) + 1)
    return tier, np.round(cart_totals - savings, 2), counts


def pick_path_length(aisle, position, aisle_width):
    # serpentine walk: odd aisles are traversed backwards
    key = np.where(aisle % 2 == 1, -position, position)
    order = np.lexsort((key, aisle))
    a = aisle[order].astype(np.float64)
    p = position[order]
    steps = np.abs(np.diff(a)) * aisle_width + np.abs(np.diff(p))
    return order, steps.sum(), steps.max()


def delivery_lateness(promised_min, actual_min, carrier, n_carriers):
    late = actual_min - promised_min
    late_pos = np.maximum(late, 0)
    hours = late_pos // 60
    minutes = late_pos % 60
    is_late = (late > 0).astype(np.float64)
    n_shipments = np.bincount(carrier, minlength=n_carriers)
    n_late = np.bincount(carrier, weights=is_late, minlength=n_carriers)
    late_rate = n_late / np.maximum(n_shipments, 1)
    mean_delay = np.bincount(carrier, weights=late_pos, minlength=n_carriers) / np.maximum(n_late, 1)
    return hours, minutes, late_rate, mean_delay


def price_elasticity(product, price, units, n_products):
    logp = np.log(price)
    logq = np.log(units + 1.0)
    cnt = np.maximum(np.bincount(product, minlength=n_products), 1).astype(np.float64)
    mp = np.bincount(product, weights=logp, minlength=n_products) / cnt
    mq = np.bincount(product, weights=logq, minlength=n_products) / cnt
    dp = logp - mp[product]
    dq = logq - mq[product]
    sxy = np.bincount(product, weights=dp * dq, minlength=n_products)
    sxx = np.bincount(product, weights=dp * dp, minlength=n_products)
    slope = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), 0.0)
    elastic = slope < -1.0
    return slope, elastic.sum()


def coupon_stacking(order_values, coupon_pct, coupon_flat, min_spend):
    n = order_values.shape[0]
    out = np.empty(n)
    for i in range(n):
        v = order_values[i]
        best = v
        if v >= min_spend[i]:
            a = v * (1.0 - coupon_pct[i]) - coupon_flat[i]
            b = (v - coupon_flat[i]) * (1.0 - coupon_pct[i])
            best = min(a, b)
        out[i] = max(best, 0.0)
    return out, order_values.sum() - out.sum()


def fleet_utilization(truck_id, load_kg, capacity_kg, n_trucks):
    loads = np.bincount(truck_id, weights=load_kg, minlength=n_trucks)
    util = loads / capacity_kg
    over = util > 1.0
    excess = np.where(over, loads - capacity_kg, 0.0)
    trips_needed = np.ceil(loads / capacity_kg).astype(np.int64)
    return util, excess, trips_needed, int(over.sum())


def nearest_depot(customers, depots):
    d = np.sqrt(((customers[:, None, :] - depots[None, :, :]) ** 2).sum(axis=-1))
    nearest = np.argmin(d, axis=1)
    dist = d[np.arange(d.shape[0]), nearest]
    load = np.bincount(nearest, minlength=depots.shape[0])
    return nearest, dist, load


# ---------------------------------------------------------------------------
# weather and climate
# ---------------------------------------------------------------------------

def temperature_anomaly(daily_temp):
    clim = daily_temp.mean(axis=0)
    anom = daily_temp - clim[None, :]
    annual = anom.mean(axis=1)
    sd = daily_temp.std(axis=0)
    z = anom / sd
    yrs = np.arange(daily_temp.shape[0], dtype=np.float64)
    yc = yrs - yrs.mean()
    slope = (yc * (annual - annual.mean())).sum() / (yc * yc).sum()
    extreme_days = (np.abs(z) > 2.0).sum(axis=1)
    return annual, slope, extreme_days


def rolling_mean(x, window):
    c = np.cumsum(np.concatenate(([0.0], x)))
    return (c[window:] - c[:-window]) / window


def degree_days(tmin, tmax, base):
    tavg = (tmin + tmax) / 2.0
    hdd = np.maximum(base - tavg, 0.0)
    cdd = np.maximum(tavg - base, 0.0)
    return hdd.sum(axis=1), cdd.sum(axis=1), np.cumsum(hdd, axis=1)[:, -1]


def heat_index(temp_f, rh):
    T = temp_f
    R = rh
    simple = 0.5 * (T + 61.0 + (T - 68.0) * 1.2 + R * 0.094)
    hi = (-42.379 + 2.04901523 * T + 10.14333127 * R - 0.22475541 * T * R
          - 6.83783e-3 * T * T - 5.481717e-2 * R * R + 1.22874e-3 * T * T * R
          + 8.5282e-4 * T * R * R - 1.99e-6 * T * T * R * R)
    adj1 = ((13.0 - R) / 4.0) * np.sqrt(np.clip((17.0 - np.abs(T - 95.0)) / 17.0, 0.0, None))
    hi = np.where((R < 13) & (T >= 80) & (T <= 112), hi - adj1, hi)
    adj2 = ((R - 85.0) / 10.0) * ((87.0 - T) / 5.0)
    hi = np.where((R > 85) & (T >= 80) & (T <= 87), hi + adj2, hi)
    avg = (simple + T) / 2.0
    return np.where(avg < 80.0, simple, hi)


def longest_dry_spell(precip_mm, threshold):
    dry = precip_mm < threshold
    padded = np.concatenate(([0], dry.astype(np.int8), [0]))
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    lengths = ends - starts
    if lengths.size == 0:
        return 0, 0, 0.0
    i = np.argmax(lengths)
    return int(lengths[i]), int(starts[i]), float(lengths.mean())


def monthly_summary(daily_temp, daily_precip, day_of_year):
    month_edges = np.array([0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334])
    month = np.searchsorted(month_edges, day_of_year, side="right") - 1
    cnt = np.bincount(month, minlength=12)
    tmean = np.bincount(month, weights=daily_temp, minlength=12) / cnt
    precip = np.bincount(month, weights=daily_precip, minlength=12)
    tsq = np.bincount(month, weights=daily_temp ** 2, minlength=12) / cnt
    tstd = np.sqrt(np.maximum(tsq - tmean ** 2, 0.0))
    return tmean, tstd, precip


def wind_chill(temp_c, wind_kmh):
    v16 = np.power(wind_kmh, np.float32(0.16))
    wc = (np.float32(13.12) + np.float32(0.6215) * temp_c - np.float32(11.37) * v16
          + np.float32(0.3965) * temp_c * v16)
    valid = (temp_c <= 10) & (wind_kmh > 4.8)
    return np.where(valid, wc, temp_c).astype(np.float32)


def dew_point(temp_c, rh):
    a, b = 17.62, 243.12
    gamma = np.log(np.clip(rh, 1.0, 100.0) / 100.0) + a * temp_c / (b + temp_c)
    td = b * gamma / (a - gamma)
    spread = temp_c - td
    fog_risk = spread < 2.5
    return td, spread, fog_risk.mean()


def frost_free_season(tmin):
    frost = tmin <= 0.0
    mid = tmin.shape[1] // 2
    spring = frost[:, :mid]
    autumn = frost[:, mid:]
    last_spring = mid - 1 - np.argmax(spring[:, ::-1], axis=1)
    last_spring = np.where(spring.any(axis=1), last_spring, -1)
    first_autumn = mid + np.argmax(autumn, axis=1)
    first_autumn = np.where(autumn.any(axis=1), first_autumn, tmin.shape[1])
    return first_autumn - last_spring - 1


# ---------------------------------------------------------------------------
# sports statistics
# ---------------------------------------------------------------------------

def batting_stats(singles, doubles, triples, homers, walks, hbp, at_bats, sac_flies):
    hits = singles + doubles + triples + homers
    tb = singles + 2 * doubles + 3 * triples + 4 * homers
    ab = at_bats
    avg = np.where(ab > 0, hits / np.maximum(ab, 1), 0.0)
    obp_den = ab + walks + hbp + sac_flies
    obp = np.where(obp_den > 0, (hits + walks + hbp) / np.maximum(obp_den, 1), 0.0)
    slg = np.where(ab > 0, tb / np.maximum(ab, 1), 0.0)
    ops = obp + slg
    rank = np.argsort(-ops, kind="stable")
    return np.round(avg, 3), np.round(obp, 3), np.round(slg, 3), rank[:10]


def elo_ratings(home, away, home_goals, away_goals, n_teams, k, home_adv):
    r = np.full(n_teams, 1500.0)
    expected = np.empty(home.shape[0])
    for g in range(home.shape[0]):
        h = home[g]
        a = away[g]
        exp_h = 1.0 / (1.0 + 10.0 ** ((r[a] - r[h] - home_adv) / 400.0))
        if home_goals[g] > away_goals[g]:
            s = 1.0
        elif home_goals[g] == away_goals[g]:
            s = 0.5
        else:
            s = 0.0
        margin = math.log(abs(int(home_goals[g]) - int(away_goals[g])) + 1) + 1.0
        delta = k * margin * (s - exp_h)
        r[h] += delta
        r[a] -= delta
        expected[g] = exp_h
    return r, expected


def league_table(home, away, hg, ag, n_teams):
    hp = np.where(hg > ag, 3, np.where(hg == ag, 1, 0))
    ap = np.where(ag > hg, 3, np.where(hg == ag, 1, 0))
    pts = np.bincount(home, weights=hp, minlength=n_teams) + np.bincount(away, weights=ap, minlength=n_teams)
    gf = np.bincount(home, weights=hg, minlength=n_teams) + np.bincount(away, weights=ag, minlength=n_teams)
    ga = np.bincount(home, weights=ag, minlength=n_teams) + np.bincount(away, weights=hg, minlength=n_teams)
    gd = gf - ga
    order = np.lexsort((-gf, -gd, -pts))
    return pts.astype(np.int64), gd.astype(np.int64), order


def race_splits(split_times):
    n = split_times.shape[1]
    cum = np.cumsum(split_times, axis=1)
    finish = cum[:, -1]
    place = np.argsort(np.argsort(finish)) + 1
    pace_change = np.diff(split_times, axis=1)
    negative_split = split_times[:, n // 2:].sum(axis=1) < split_times[:, :n // 2].sum(axis=1)
    leader_at_split = np.argmin(cum, axis=0)
    gap_to_leader = cum - cum.min(axis=0)[None, :]
    return place, negative_split, leader_at_split, gap_to_leader[:, -1], pace_change.std(axis=1)


def shot_chart(x, y, made, nx, ny, court_w, court_h):
    ix = np.clip((x / court_w * nx).astype(np.int64), 0, nx - 1)
    iy = np.clip((y / court_h * ny).astype(np.int64), 0, ny - 1)
    cell = iy * nx + ix
    att = np.bincount(cell, minlength=nx * ny).reshape(ny, nx)
    mk = np.bincount(cell, weights=made.astype(np.float64), minlength=nx * ny).reshape(ny, nx)
    pct = np.where(att > 0, mk / np.maximum(att, 1), np.nan)
    dist = np.hypot(x - court_w / 2.0, y)
    three = dist > 7.24
    pts = np.where(made, np.where(three, 3, 2), 0)
    return pct, int(pts.sum()), three.mean()


def player_efficiency(pts, reb, ast, tov, fga, fgm, fta, ftm, minutes):
    eff = pts + reb + ast - (fga - fgm) - (fta - ftm) - tov
    per36 = eff / np.maximum(minutes, 1.0) * 36.0
    ts = pts / (2.0 * (fga + 0.44 * fta) + 1e-9)
    qualified = minutes >= 500
    score = np.where(qualified, per36, -np.inf)
    rank = np.argsort(score)[::-1]
    pct = (np.argsort(np.argsort(per36)) + 0.5) / per36.size
    return eff, per36, ts, rank[:15], pct


# ---------------------------------------------------------------------------
# epidemiology
# ---------------------------------------------------------------------------

def sir_regions(S0, I0, R0, beta, gamma, dt, n_steps):
    S = S0.astype(np.float64)
    I = I0.astype(np.float64)
    R = R0.astype(np.float64)
    N = S + I + R
    peak_I = I.copy()
    peak_t = np.zeros(S.shape, dtype=np.int64)
    for t in range(n_steps):
        new_inf = beta * S * I / N * dt
        new_rec = gamma * I * dt
        S -= new_inf
        I += new_inf - new_rec
        R += new_rec
        higher = I > peak_I
        peak_I[higher] = I[higher]
        peak_t[higher] = t + 1
    return S, I, R, peak_I, peak_t


def seir_mobility(S0, E0, I0, mobility, beta, sigma, gamma, n_steps, lockdown_start, lockdown_factor):
    S = S0.astype(np.float64)
    E = E0.astype(np.float64)
    I = I0.astype(np.float64)
    R = np.zeros_like(S)
    N = S + E + I
    curve = np.empty(n_steps)
    for t in range(n_steps):
        b = beta * (lockdown_factor if t >= lockdown_start else 1.0)
        force = b * (mobility @ (I / N))
        new_e = S * np.minimum(force, 1.0)
        new_i = sigma * E
        new_r = gamma * I
        S = S - new_e
        E = E + new_e - new_i
        I = I + new_i - new_r
        R = R + new_r
        curve[t] = I.sum()
    return curve, R / N, int(np.argmax(curve))


def age_standardized_rate(cases, population, standard_pop):
    rates = cases / population * 1e5
    w = standard_pop / standard_pop.sum()
    asr = rates @ w
    crude = cases.sum(axis=1) / population.sum(axis=1) * 1e5
    var = ((w ** 2)[None, :] * cases / population ** 2).sum(axis=1) * 1e10
    se = np.sqrt(var)
    ci = np.stack([asr - 1.96 * se, asr + 1.96 * se], axis=1)
    return asr, crude, ci


def reproduction_number(cases, serial_interval, window):
    c = np.cumsum(np.concatenate(([0.0], cases.astype(np.float64))))
    recent = c[window:] - c[:-window]
    lagged = recent[:-serial_interval]
    current = recent[serial_interval:]
    rt = np.where(lagged > 0, current / np.maximum(lagged, 1e-12), np.nan)
    growth = np.diff(np.log(np.maximum(cases, 1).astype(np.float64)))
    above_one = np.nanmean(rt > 1.0)
    return rt, growth, above_one


# ---------------------------------------------------------------------------
# traffic
# ---------------------------------------------------------------------------

def nagel_schreckenberg(road, vmax, slow_draws, p_slow):
    L = road.size
    pos = np.flatnonzero(road >= 0)
    vel = road[pos].astype(np.int64)
    flow = np.zeros(slow_draws.shape[0])
    for t in range(slow_draws.shape[0]):
        order = np.argsort(pos)
        pos = pos[order]
        vel = vel[order]
        gaps = (np.roll(pos, -1) - pos - 1) % L
        vel = np.minimum(vel + 1, vmax)
        vel = np.minimum(vel, gaps)
        slow = slow_draws[t, :vel.size] < p_slow
        vel = np.where(slow & (vel > 0), vel - 1, vel)
        pos = (pos + vel) % L
        flow[t] = vel.mean()
    final = np.full(L, -1, dtype=np.int64)
    final[pos] = vel
    return final, flow


def rule184_traffic(cells, n_steps):
    c = cells.astype(np.uint8)
    moved = np.empty(n_steps, dtype=np.int64)
    for t in range(n_steps):
        right = np.roll(c, -1)
        left = np.roll(c, 1)
        new = (left & (1 - c)) | (c & right)
        moved[t] = int((c & (1 - right)).sum())
        c = new.astype(np.uint8)
    return c, moved


def signal_queue(arrivals, green, cycle, service_rate):
    n = arrivals.shape[0]
    q = 0.0
    queue = np.empty(n)
    served = np.zeros(n)
    for t in range(n):
        q += arrivals[t]
        if (t % cycle) < green:
            s = min(q, service_rate)
            q -= s
            served[t] = s
        queue[t] = q
    delay = queue.sum() / max(arrivals.sum(), 1)
    return queue, np.cumsum(served), delay


def loop_detector_summary(counts, occupancy, lane, n_lanes, interval_s):
    flow = counts * 3600.0 / interval_s
    density = occupancy / 100.0 * 1000.0 / 5.5
    speed = np.where(density > 0, flow / np.maximum(density, 1e-9), np.nan)
    congested = (speed < 40) & (density > 25)
    lane_flow = np.bincount(lane, weights=flow, minlength=n_lanes) / np.bincount(lane, minlength=n_lanes)
    return speed, congested.mean(), lane_flow


# ---------------------------------------------------------------------------
# ecology
# ---------------------------------------------------------------------------

def lotka_volterra(prey0, pred0, alpha, beta, delta, gamma, dt, n_steps):
    x = prey0.copy()
    y = pred0.copy()
    traj = np.empty((n_steps, x.size))
    for t in range(n_steps):
        dx = (alpha * x - beta * x * y) * dt
        dy = (delta * x * y - gamma * y) * dt
        x += dx
        y += dy
        np.maximum(x, 0.0, out=x)
        np.maximum(y, 0.0, out=y)
        traj[t] = x
    return x, y, traj.max(axis=0), traj.argmax(axis=0)


def logistic_harvest(N0, r, K, harvest_rate, quota, n_years):
    N = N0.copy()
    catch = np.zeros_like(N)
    collapse = np.zeros(N.shape, dtype=bool)
    for year in range(n_years):
        N = N + r * N * (1.0 - N / K)
        N[N < 0] = 0.0
        h = np.minimum(harvest_rate * N, quota)
        N -= h
        catch += h
        collapse |= N < 0.05 * K
    return N, catch, collapse


def diversity_indices(counts):
    total = counts.sum(axis=1, keepdims=True)
    p = counts / np.maximum(total, 1)
    logp = np.log(np.where(p > 0, p, 1.0))
    shannon = -(p * logp).sum(axis=1)
    simpson = 1.0 - (p ** 2).sum(axis=1)
    richness = (counts > 0).sum(axis=1)
    evenness = np.where(richness > 1, shannon / np.log(np.maximum(richness, 2)), 0.0)
    return shannon, simpson, richness, evenness


def lincoln_petersen(marked, captured, recaptured):
    N = (marked + 1) * (captured + 1) / (recaptured + 1) - 1
    var = ((marked + 1) * (captured + 1) * (marked - recaptured) * (captured - recaptured)
           / ((recaptured + 1) ** 2 * (recaptured + 2)))
    return np.floor(N), np.sqrt(var)


# ---------------------------------------------------------------------------
# chemistry
# ---------------------------------------------------------------------------

def arrhenius_table(temps_K, Ea_J, A):
    R = 8.314462618
    k = A[None, :] * np.exp(-Ea_J[None, :] / (R * temps_K[:, None]))
    half_life = math.log(2.0) / k
    fastest = np.argmax(k, axis=1)
    ratio = k[-1] / k[0]
    return k, half_life, fastest, ratio


def consecutive_reactions(A0, k1, k2, dt, n_steps):
    A = A0.copy()
    B = np.zeros_like(A)
    C = np.zeros_like(A)
    bmax = np.zeros_like(A)
    tmax = np.zeros(A.shape, dtype=np.int64)
    for step in range(n_steps):
        rA = k1 * A * dt
        rB = k2 * B * dt
        A -= rA
        B += rA - rB
        C += rB
        better = B > bmax
        bmax[better] = B[better]
        tmax[better] = step
    return A, B, C, bmax, tmax * dt


def weak_acid_ph(conc, pKa, salt_conc):
    Ka = 10.0 ** (-pKa)
    h_pure = (-Ka + np.sqrt(Ka * Ka + 4.0 * Ka * conc)) / 2.0
    ph_pure = -np.log10(h_pure)
    buffer = salt_conc > 0
    ph = ph_pure.copy()
    ph[buffer] = pKa[buffer] + np.log10(salt_conc[buffer] / conc[buffer])
    dissociation = h_pure / conc
    return ph, dissociation


def van_der_waals(n_mol, volume_L, temp_K, gas, a_table, b_table):
    R = 0.082057
    a = a_table[gas]
    b = b_table[gas]
    p_ideal = n_mol * R * temp_K / volume_L
    p_vdw = n_mol * R * temp_K / (volume_L - n_mol * b) - a * n_mol ** 2 / volume_L ** 2
    z = p_vdw / p_ideal
    return p_vdw, z


def molar_masses(formula_counts, atomic_masses, sample_grams):
    mm = formula_counts @ atomic_masses
    moles = sample_grams / mm
    mass_frac = formula_counts * atomic_masses[None, :] / mm[:, None]
    heaviest = np.argmax(mass_frac, axis=1)
    return mm, moles, mass_frac, heaviest


def titration_curve(volume_base_mL, acid_conc, acid_vol_mL, base_conc):
    n_acid = acid_conc * acid_vol_mL / 1000.0
    n_base = base_conc * volume_base_mL / 1000.0
    total_L = (acid_vol_mL + volume_base_mL) / 1000.0
    excess = (n_acid - n_base) / total_L
    kw = 1e-14
    h = excess / 2.0 + np.sqrt(excess ** 2 / 4.0 + kw)
    ph = -np.log10(h)
    eq_idx = np.argmax(np.diff(ph))
    return ph, volume_base_mL[eq_idx]


# ---------------------------------------------------------------------------
# astronomy
# ---------------------------------------------------------------------------

def distance_modulus(apparent_mag, parallax_mas, extinction):
    d_pc = 1000.0 / parallax_mas
    M = apparent_mag - 5.0 * np.log10(d_pc) + 5.0 - extinction
    lum_sun = 10.0 ** (-0.4 * (M - 4.83))
    return M, lum_sun, int((M < 0).sum())


def kepler_solve(mean_anomaly, ecc, n_iter):
    E = np.where(ecc < 0.8, mean_anomaly, np.pi)
    for _ in range(n_iter):
        f = E - ecc * np.sin(E) - mean_anomaly
        fp = 1.0 - ecc * np.cos(E)
        E = E - f / fp
    nu = 2.0 * np.arctan2(np.sqrt(1.0 + ecc) * np.sin(E / 2.0), np.sqrt(1.0 - ecc) * np.cos(E / 2.0))
    r = 1.0 - ecc * np.cos(E)
    return E, nu, r


def orbit_positions(a, e, inc, argp, node, M0, n_mean, times):
    M = (M0[:, None] + n_mean[:, None] * times[None, :]) % (2.0 * np.pi)
    ec = e[:, None]
    E = M.copy()
    for _ in range(6):
        E -= (E - ec * np.sin(E) - M) / (1.0 - ec * np.cos(E))
    xp = a[:, None] * (np.cos(E) - ec)
    yp = a[:, None] * np.sqrt(1.0 - ec ** 2) * np.sin(E)
    cO, sO = np.cos(node)[:, None], np.sin(node)[:, None]
    cw, sw = np.cos(argp)[:, None], np.sin(argp)[:, None]
    ci, si = np.cos(inc)[:, None], np.sin(inc)[:, None]
    x = (cO * cw - sO * sw * ci) * xp + (-cO * sw - sO * cw * ci) * yp
    y = (sO * cw + cO * sw * ci) * xp + (-sO * sw + cO * cw * ci) * yp
    z = (sw * si) * xp + (cw * si) * yp
    return np.stack([x, y, z], axis=-1)


def angular_separation(ra1, dec1, ra2, dec2, radius_arcsec):
    r1, d1, r2, d2 = np.radians(ra1), np.radians(dec1), np.radians(ra2), np.radians(dec2)
    hav = np.sin((d2 - d1) / 2.0) ** 2 + np.cos(d1) * np.cos(d2) * np.sin((r2 - r1) / 2.0) ** 2
    sep = np.degrees(2.0 * np.arcsin(np.sqrt(np.clip(hav, 0.0, 1.0)))) * 3600.0
    return sep, int((sep < radius_arcsec).sum())


def phase_fold(times, flux, period, n_bins):
    phase = (times / period) % 1.0
    order = np.argsort(phase)
    ph = phase[order]
    fl = flux[order]
    b = np.minimum(np.floor(ph * n_bins).astype(np.int64), n_bins - 1)
    cnt = np.bincount(b, minlength=n_bins)
    mean = np.bincount(b, weights=fl, minlength=n_bins) / np.maximum(cnt, 1)
    depth = np.median(flux) - mean.min()
    return mean, np.argmin(mean) / n_bins, depth


def planck_spectrum(wavelength_nm, temps_K):
    h = 6.62607015e-34
    c = 2.99792458e8
    kB = 1.380649e-23
    lam = wavelength_nm[None, :] * 1e-9
    T = temps_K[:, None]
    B = 2.0 * h * c ** 2 / lam ** 5 / np.expm1(h * c / (lam * kB * T))
    peak = wavelength_nm[np.argmax(B, axis=1)]
    wien = 2.897771955e-3 / temps_K * 1e9
    dl = np.diff(wavelength_nm * 1e-9)
    band_flux = ((B[:, 1:] + B[:, :-1]) * dl[None, :]).sum(axis=1) / 2.0
    return peak, wien, band_flux


def flux_to_magnitude(counts, exposure_s, zero_point, sky_counts):
    net = counts - sky_counts
    good = net > 0
    mag = np.full(counts.shape, np.nan)
    mag[good] = zero_point - 2.5 * np.log10(net[good] / exposure_s)
    snr = net / np.sqrt(np.maximum(counts, 1))
    err = 1.0857 / np.maximum(snr, 1e-9)
    return mag, err, int(good.sum())


# ---------------------------------------------------------------------------
# game mechanics
# ---------------------------------------------------------------------------

def damage_roll(attack, defense, crit_roll, crit_chance, crit_mult, level_diff):
    base = attack * (100.0 / (100.0 + np.maximum(defense, 0)))
    level_scale = np.clip(1.0 + 0.05 * level_diff, 0.5, 1.5)
    is_crit = crit_roll < crit_chance
    dmg = base * level_scale * np.where(is_crit, crit_mult, 1.0)
    dmg = np.maximum(np.floor(dmg).astype(np.int32), 1)
    return dmg, is_crit.mean(), dmg.sum(dtype=np.int64)


def ability_rotation(cooldowns, damages, n_ticks, gcd):
    ready_at = np.zeros(cooldowns.size, dtype=np.int64)
    total = 0.0
    casts = np.zeros(cooldowns.size, dtype=np.int64)
    timeline = np.full(n_ticks, -1, dtype=np.int64)
    next_gcd = 0
    for tick in range(n_ticks):
        if tick < next_gcd:
            continue
        ready = ready_at <= tick
        if not ready.any():
            continue
        cand = np.where(ready, damages, -1.0)
        j = int(np.argmax(cand))
        total += damages[j]
        casts[j] += 1
        ready_at[j] = tick + cooldowns[j]
        next_gcd = tick + gcd
        timeline[tick] = j
    return total / n_ticks, casts, timeline


def xp_levels(xp, base_xp, growth, max_level):
    per_level = np.floor(base_xp * growth ** np.arange(max_level))
    thresholds = np.cumsum(per_level)
    level = np.searchsorted(thresholds, xp, side="right")
    prev = np.concatenate(([0.0], thresholds))[level]
    nxt = np.concatenate((thresholds, [np.inf]))[level]
    progress = np.where(np.isfinite(nxt), (xp - prev) / (nxt - prev), 1.0)
    return level, progress, np.bincount(level, minlength=max_level + 1)


def loot_drops(rolls, weights, rarity):
    cdf = np.cumsum(weights) / weights.sum()
    item = np.minimum(np.searchsorted(cdf, rolls, side="right"), weights.size - 1)
    counts = np.bincount(item, minlength=weights.size)
    rare_hits = rarity[item] >= 3
    idx = np.flatnonzero(rare_hits)
    gaps = np.diff(np.concatenate(([-1], idx, [rolls.size]))) - 1
    deviation = counts / rolls.size - weights / weights.sum()
    return counts, deviation, int(gaps.max())


def combat_ticks(hp, max_hp, regen, dot_damage, dot_duration, n_ticks):
    hp = hp.astype(np.float64)
    remaining = dot_duration.copy()
    death_tick = np.full(hp.shape, -1, dtype=np.int64)
    alive = hp > 0
    for t in range(n_ticks):
        active = (remaining > 0) & alive
        hp[active] -= dot_damage[active]
        remaining[active] -= 1
        hp[alive] += regen[alive]
        np.minimum(hp, max_hp, out=hp)
        newly_dead = alive & (hp <= 0)
        death_tick[newly_dead] = t
        alive &= ~newly_dead
        hp[~alive] = 0.0
    return hp, death_tick, int(alive.sum())


def grid_moves(start_x, start_y, moves, walls):
    height, width = walls.shape
    dx = np.array([0, 1, -1, 0, 0])
    dy = np.array([0, 0, 0, 1, -1])
    x = start_x.copy()
    y = start_y.copy()
    bumps = np.zeros(x.shape, dtype=np.int64)
    for s in range(moves.shape[1]):
        m = moves[:, s]
        nx = np.clip(x + dx[m], 0, width - 1)
        ny = np.clip(y + dy[m], 0, height - 1)
        blocked = walls[ny, nx]
        bumps += blocked
        x = np.where(blocked, x, nx)
        y = np.where(blocked, y, ny)
    occupancy = np.bincount(y * width + x, minlength=width * height).reshape(height, width)
    return x, y, occupancy, bumps


# ---------------------------------------------------------------------------
# text-like integer processing
# ---------------------------------------------------------------------------

def char_histogram(codes):
    counts = np.bincount(codes, minlength=256)
    letters = counts[97:123] + counts[65:91]
    freq = letters / max(letters.sum(), 1)
    order = np.argsort(-freq, kind="stable")
    return counts, freq, order[:5]


def caesar_shift(codes, shift):
    c = codes.astype(np.int32)
    lower = (c >= 97) & (c <= 122)
    upper = (c >= 65) & (c <= 90)
    out = c.copy()
    out[lower] = (c[lower] - 97 + shift) % 26 + 97
    out[upper] = (c[upper] - 65 + shift) % 26 + 65
    return out.astype(np.uint8)


def vigenere(codes, key):
    letters = (codes >= 97) & (codes <= 122)
    idx = np.cumsum(letters) - 1
    k = key[idx[letters] % key.size]
    out = codes.copy()
    out[letters] = ((codes[letters].astype(np.int64) - 97 + k) % 26 + 97).astype(np.uint8)
    return out


def word_length_stats(codes):
    is_letter = ((codes >= 97) & (codes <= 122)) | ((codes >= 65) & (codes <= 90))
    padded = np.concatenate(([0], is_letter.astype(np.int8), [0]))
    d = np.diff(padded)
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    lengths = ends - starts
    hist = np.bincount(np.minimum(lengths, 20), minlength=21)
    return lengths.mean(), hist, int(lengths.max())


def rolling_hash_matches(codes, pattern, base, mod):
    m = pattern.size
    n = codes.size
    h = np.zeros(n - m + 1, dtype=np.int64)
    ph = 0
    for j in range(m):
        h = (h * base + codes[j:n - m + 1 + j]) % mod
        ph = (ph * base + int(pattern[j])) % mod
    cand = np.flatnonzero(h == ph)
    return cand, h[:100]


def run_length_encode(codes):
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [codes.size])))
    values = codes[starts]
    return values, lengths


def vowel_ratio(codes, line_len):
    c = codes.astype(np.int16)
    lower = np.where((c >= 65) & (c <= 90), c + 32, c)
    vowels = np.isin(lower, np.array([97, 101, 105, 111, 117]))
    letters = (lower >= 97) & (lower <= 122)
    n_lines = c.size // line_len
    v = vowels[:n_lines * line_len].reshape(n_lines, line_len).sum(axis=1)
    l = letters[:n_lines * line_len].reshape(n_lines, line_len).sum(axis=1)
    return v / np.maximum(l, 1), lower.astype(np.uint8)


# ---------------------------------------------------------------------------
# scheduling
# ---------------------------------------------------------------------------

def job_timeline(durations, query_times):
    ends = np.cumsum(durations)
    starts = ends - durations
    job = np.searchsorted(ends, query_times, side="right")
    valid = job < durations.size
    job_c = np.minimum(job, durations.size - 1)
    elapsed = np.where(valid, query_times - starts[job_c], 0)
    return job, elapsed, ends[-1]


def max_concurrent(starts, ends):
    times = np.concatenate((starts, ends))
    delta = np.concatenate((np.ones(starts.size, dtype=np.int64), -np.ones(ends.size, dtype=np.int64)))
    order = np.lexsort((delta, times))
    running = np.cumsum(delta[order])
    i = np.argmax(running)
    return int(running[i]), times[order][i], running


def shift_coverage(shift_start_h, shift_len_h, demand_per_hour):
    H = demand_per_hour.size
    ends = np.minimum(shift_start_h + shift_len_h, H)
    diff = np.bincount(shift_start_h, minlength=H + 1) - np.bincount(ends, minlength=H + 1)
    staff = np.cumsum(diff)[:H]
    gap = demand_per_hour - staff
    under = np.clip(gap, 0, None)
    return staff, int(under.sum()), np.flatnonzero(gap > 0)


def edf_schedule(release, duration, deadline):
    n = release.size
    done = np.zeros(n, dtype=bool)
    finish = np.zeros(n)
    t = 0.0
    for _ in range(n):
        avail = (~done) & (release <= t)
        if not avail.any():
            t = float(release[~done].min())
            avail = (~done) & (release <= t)
        cand = np.where(avail, deadline, np.inf)
        j = int(np.argmin(cand))
        t += duration[j]
        finish[j] = t
        done[j] = True
    lateness = finish - deadline
    return finish, lateness.max(), int((lateness > 0).sum())


def weekly_workload(timestamps_min, durations_min):
    day = timestamps_min // 1440
    dow = (day + 3) % 7
    hour = (timestamps_min % 1440) // 60
    grid = np.bincount(dow * 24 + hour, weights=durations_min, minlength=168).reshape(7, 24)
    busiest = np.unravel_index(np.argmax(grid), grid.shape)
    weekend_share = grid[5:].sum() / grid.sum()
    return grid, int(busiest[0]), int(busiest[1]), weekend_share


# ---------------------------------------------------------------------------
# matrix utilities
# ---------------------------------------------------------------------------

def normalize_rows(X):
    norms = np.sqrt((X * X).sum(axis=1))
    return X / np.where(norms > 0, norms, 1.0)[:, None]


def cosine_top_k(queries, items, k):
    qn = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    itn = items / np.linalg.norm(items, axis=1, keepdims=True)
    sim = qn @ itn.T
    idx = np.argsort(-sim, axis=1)[:, :k]
    top = np.take_along_axis(sim, idx, axis=1)
    return idx, top


def centered_rbf_gram(X, gamma):
    sq = (X ** 2).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = np.exp(-gamma * np.maximum(d2, 0.0))
    row = K.mean(axis=0)
    total = K.mean()
    Kc = K - row[None, :] - row[:, None] + total
    return Kc, np.trace(Kc)


def standardize_columns(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    Z = (X - mu) / np.where(sd > 0, sd, 1)
    outliers = (np.abs(Z) > 3).any(axis=1)
    return Z.astype(np.float32), int(outliers.sum())


def power_iteration(A, n_iter):
    v = np.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(n_iter):
        w = A @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
    return lam, v


def gram_schmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].astype(np.float64)
        for i in range(j):
            R[i, j] = Q[:, i] @ A[:, j]
            v -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        Q[:, j] = v / R[j, j]
    return Q, R


def pagerank(adj, damping, n_iter):
    n = adj.shape[0]
    out_deg = adj.sum(axis=1)
    P = np.where(out_deg[:, None] > 0, adj / np.maximum(out_deg, 1)[:, None], 1.0 / n)
    r = np.full(n, 1.0 / n)
    for _ in range(n_iter):
        r = (1.0 - damping) / n + damping * (r @ P)
    return r, np.argsort(-r)[:10]


# ---------------------------------------------------------------------------
# small simulations
# ---------------------------------------------------------------------------

def heat_rod(T0, alpha, dt, dx, n_steps, left_T, right_T):
    T = T0.copy()
    r = alpha * dt / dx ** 2
    for _ in range(n_steps):
        T[1:-1] += r * (T[2:] - 2.0 * T[1:-1] + T[:-2])
        T[0] = left_T
        T[-1] = right_T
    return T


def random_walk_stats(steps, barrier):
    pos = np.cumsum(steps, axis=1, dtype=np.int64)
    final = pos[:, -1]
    max_exc = np.abs(pos).max(axis=1)
    crossed = np.abs(pos) >= barrier
    first_hit = np.where(crossed.any(axis=1), np.argmax(crossed, axis=1), -1)
    return final.mean(), final.var(), max_exc, first_hit


def particles_in_box(pos, vel, box, dt, n_steps):
    x = pos.copy()
    v = vel.copy()
    wall_hits = np.zeros(x.shape[0], dtype=np.int64)
    for _ in range(n_steps):
        x += v * dt
        low = x < 0
        high = x > box
        x[low] = -x[low]
        x[high] = 2.0 * box - x[high]
        bounced = low | high
        v[bounced] = -v[bounced]
        wall_hits += bounced.sum(axis=1)
    return x, v, wall_hits


def game_of_life(board, n_steps):
    b = board.copy()
    pop = np.empty(n_steps, dtype=np.int64)
    for t in range(n_steps):
        n = np.zeros(b.shape, dtype=np.int8)
        for i in (-1, 0, 1):
            for j in (-1, 0, 1):
                if i == 0 and j == 0:
                    continue
                n += np.roll(np.roll(b, i, axis=0), j, axis=1)
        b = (n == 3) | (b & (n == 2))
        pop[t] = b.sum()
    return b, pop


def spring_chain(x0, k, m, damping, dt, n_steps):
    x = x0.copy()
    v = np.zeros_like(x)
    energy = np.empty(n_steps)
    for t in range(n_steps):
        f = np.zeros_like(x)
        stretch = np.diff(x) - 1.0
        f[:-1] += k * stretch
        f[1:] -= k * stretch
        f -= damping * v
        f[0] = 0.0
        v += f / m * dt
        x += v * dt
        energy[t] = 0.5 * (m * v * v).sum() + 0.5 * k * (stretch ** 2).sum()
    return x, energy


def amortization_schedule(principal, annual_rate, n_months, extra_payment):
    r = annual_rate / 12.0
    pay = principal * r / (1.0 - (1.0 + r) ** (-n_months))
    balance = np.empty(n_months)
    interest = np.empty(n_months)
    b = principal
    for i in range(n_months):
        it = b * r
        p = min(pay + extra_payment[i] - it, b)
        b -= p
        interest[i] = it
        balance[i] = b
    payoff = int(np.argmax(balance <= 1e-9))
    return balance, np.cumsum(interest), payoff


def lindley_waits(interarrival, service):
    n = interarrival.size
    w = np.zeros(n)
    for i in range(1, n):
        w[i] = max(0.0, w[i - 1] + service[i - 1] - interarrival[i])
    return w, w.mean(), np.percentile(w, 95)


def fire_spread(fuel, ignition, n_steps):
    state = np.where(fuel, 1, 0).astype(np.int8)
    state[ignition & fuel] = 2
    new_per_step = np.zeros(n_steps, dtype=np.int64)
    for t in range(n_steps):
        burning = state == 2
        nb = (np.roll(burning, 1, axis=0) | np.roll(burning, -1, axis=0)
              | np.roll(burning, 1, axis=1) | np.roll(burning, -1, axis=1))
        new_fire = (state == 1) & nb
        state[burning] = 3
        state[new_fire] = 2
        new_per_step[t] = new_fire.sum()
    return state, new_per_step


def projectiles_with_drag(speed, angle_deg, drag, dt, n_steps):
    th = np.radians(angle_deg)
    vx = speed * np.cos(th)
    vy = speed * np.sin(th)
    x = np.zeros_like(vx)
    y = np.zeros_like(vx)
    landed = np.zeros(vx.shape, dtype=bool)
    rng_ = np.zeros_like(vx)
    tof = np.zeros_like(vx)
    for step in range(n_steps):
        v = np.hypot(vx, vy)
        active = ~landed
        ax = -drag * v * vx
        ay = -9.81 - drag * v * vy
        vx = np.where(active, vx + ax * dt, vx)
        vy = np.where(active, vy + ay * dt, vy)
        x[active] += vx[active] * dt
        y[active] += vy[active] * dt
        hit = active & (y < 0)
        rng_[hit] = x[hit]
        tof[hit] = (step + 1) * dt
        landed |= hit
    return rng_, tof, int(landed.sum())


def ma_crossover(prices, short, long):
    c = np.cumsum(np.concatenate(([0.0], prices)))
    sma_s = (c[short:] - c[:-short]) / short
    sma_l = (c[long:] - c[:-long]) / long
    sma_s = sma_s[long - short:]
    signal = np.where(sma_s > sma_l, 1, -1).astype(np.int8)
    crosses = np.flatnonzero(np.diff(signal) != 0) + 1
    rets = np.diff(np.log(prices))[long - 1:]
    strat = signal[:-1] * rets
    return crosses.size, strat.sum(), rets.sum(), np.cumsum(strat)[-1]


def equalize_histogram(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[np.nonzero(cdf)[0][0]]
    lut = np.round((cdf - cdf_min) / max(img.size - cdf_min, 1) * 255.0)
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[img]


# ---------------------------------------------------------------------------
# argument construction
# ---------------------------------------------------------------------------

def _text_codes(rng, n):
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    freqs = np.array([12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0, 2.8, 2.8,
                      2.4, 2.4, 2.2, 2.0, 2.0, 1.9, 1.5, 1.0, 0.8, 0.15, 0.15, 0.1, 0.07])
    alphabet = [ord(ch) for ch in letters] + [ord(ch.upper()) for ch in letters] + [32, 46, 44, 10]
    p = np.concatenate((freqs * 0.78, freqs * 0.04, [18.0, 1.2, 1.0, 0.3]))
    p = p / p.sum()
    return rng.choice(np.array(alphabet, dtype=np.uint8), size=n, p=p)


def _make_args():
    rng = np.random.default_rng(20240611)
    progs = []

    def add(name, fn, *args):
        progs.append((name, fn, args))

    # --- e-commerce / logistics ---
    n = 1_000_000
    add("order_totals", order_totals,
        np.round(rng.lognormal(3.0, 0.8, n), 2), rng.integers(1, 6, n), 0.1, 0.0825)
    n = 2_000_000
    add("revenue_by_category", revenue_by_category,
        rng.integers(0, 40, n), np.round(rng.lognormal(2.5, 0.7, n), 2), rng.integers(1, 4, n), 40)
    n = 150_000
    add("top_customers", top_customers,
        rng.integers(100_000, 900_000, n), np.round(rng.gamma(2.0, 30.0, n), 2), 25)
    n = 100_000
    add("shipping_cost", shipping_cost,
        rng.gamma(1.5, 2.0, n), rng.uniform(1.0, 2500.0, n), rng.integers(0, 5, n))
    add("inventory_simulation", inventory_simulation,
        rng.poisson(20, 365), 120.0, 300.0, 5, 250)
    add("discount_tier", discount_tier,
        np.round(rng.gamma(2.0, 45.0, 80_000), 2),
        np.array([50.0, 100.0, 200.0, 500.0]), np.array([0.05, 0.1, 0.15, 0.2]))
    n = 20_000
    add("pick_path_length", pick_path_length,
        rng.integers(0, 60, n), rng.uniform(0.0, 45.0, n), 3.2)
    n = 1_000_000
    promised = rng.integers(0, 60 * 24 * 30, n)
    add("delivery_lateness", delivery_lateness,
        promised, promised + rng.integers(-180, 600, n), rng.integers(0, 8, n), 8)
    n = 120_000
    prod = rng.integers(0, 500, n)
    pr = rng.uniform(2.0, 50.0, n)
    add("price_elasticity", price_elasticity,
        prod, pr, rng.poisson(np.exp(4.0 - 1.2 * np.log(pr) + 1.0)).astype(np.float64), 500)
    add("coupon_stacking", coupon_stacking,
        np.round(rng.uniform(5.0, 300.0, 200), 2), rng.choice([0.05, 0.1, 0.2], 200),
        rng.choice([0.0, 5.0, 10.0], 200), rng.choice([25.0, 50.0, 75.0], 200))
    add("fleet_utilization", fleet_utilization,
        rng.integers(0, 300, 60_000), rng.gamma(2.0, 120.0, 60_000),
        rng.choice([8000.0, 12000.0, 20000.0], 300), 300)
    add("nearest_depot", nearest_depot,
        rng.uniform(0.0, 100.0, (20_000, 2)), rng.uniform(0.0, 100.0, (25, 2)))

    # --- weather / climate ---
    years, days = 150, 365
    doy = np.arange(days)
    seasonal = 12.0 - 10.0 * np.cos(2 * np.pi * doy / 365.0)
    temps = seasonal[None, :] + 0.01 * np.arange(years)[:, None] + rng.normal(0, 3.0, (years, days))
    add("temperature_anomaly", temperature_anomaly, temps)
    add("rolling_mean", rolling_mean, rng.normal(15.0, 5.0, 2_000_000).cumsum() * 0.001, 30)
    stations = 2740
    tmin = seasonal[None, :] - 5.0 + rng.normal(0, 3.0, (stations, days))
    add("degree_days", degree_days, tmin, tmin + rng.uniform(4.0, 14.0, (stations, days)), 18.0)
    n = 1_000_000
    add("heat_index", heat_index, rng.uniform(60.0, 115.0, n), rng.uniform(5.0, 100.0, n))
    rain = rng.exponential(2.0, 50_000) * (rng.random(50_000) < 0.35)
    add("longest_dry_spell", longest_dry_spell, rain, 0.2)
    n = 365 * 200
    d_of_y = np.tile(np.arange(365), 200)
    add("monthly_summary", monthly_summary,
        12.0 - 10.0 * np.cos(2 * np.pi * d_of_y / 365.0) + rng.normal(0, 3, n),
        rng.exponential(2.0, n), d_of_y)
    n = 150_000
    add("wind_chill", wind_chill,
        rng.uniform(-40.0, 15.0, n).astype(np.float32), rng.uniform(0.0, 80.0, n).astype(np.float32))
    add("dew_point", dew_point, rng.uniform(-10.0, 40.0, 100_000), rng.uniform(5.0, 100.0, 100_000))
    add("frost_free_season", frost_free_season,
        seasonal[None, :] - 8.0 + rng.normal(0, 4.0, (300, days)))

    # --- sports ---
    n = 5000
    singles = rng.poisson(90, n)
    doubles = rng.poisson(25, n)
    triples = rng.poisson(3, n)
    homers = rng.poisson(15, n)
    outs = rng.poisson(350, n)
    add("batting_stats", batting_stats,
        singles, doubles, triples, homers, rng.poisson(50, n), rng.poisson(5, n),
        singles + doubles + triples + homers + outs, rng.poisson(4, n))
    g = 300
    home = rng.integers(0, 20, g)
    away = (home + rng.integers(1, 20, g)) % 20
    add("elo_ratings", elo_ratings, home, away, rng.poisson(1.5, g), rng.poisson(1.1, g), 20, 20.0, 65.0)
    hh, aa = np.meshgrid(np.arange(20), np.arange(20), indexing="ij")
    off = hh != aa
    add("league_table", league_table,
        hh[off], aa[off], rng.poisson(1.5, 380), rng.poisson(1.1, 380), 20)
    add("race_splits", race_splits, rng.normal(300.0, 25.0, (4000, 42)).clip(180.0, None))
    n = 60_000
    add("shot_chart", shot_chart,
        rng.uniform(0.0, 15.0, n), rng.gamma(2.0, 2.5, n).clip(0, 14.0), rng.random(n) < 0.45,
        15, 14, 15.0, 14.0)
    n = 300
    fga = rng.integers(100, 1500, n)
    fta = rng.integers(20, 500, n)
    add("player_efficiency", player_efficiency,
        rng.integers(100, 2500, n), rng.integers(50, 900, n), rng.integers(20, 700, n),
        rng.integers(10, 250, n), fga, (fga * rng.uniform(0.35, 0.6, n)).astype(np.int64),
        fta, (fta * rng.uniform(0.6, 0.9, n)).astype(np.int64), rng.uniform(50.0, 3000.0, n))

    # --- epidemiology ---
    n = 5000
    pop = rng.integers(10_000, 1_000_000, n)
    inf = rng.integers(1, 50, n)
    add("sir_regions", sir_regions,
        pop - inf, inf, np.zeros(n, dtype=np.int64), rng.uniform(0.2, 0.5, n), rng.uniform(0.08, 0.15, n),
        0.5, 300)
    nr = 20
    mob = rng.random((nr, nr)) + 5.0 * np.eye(nr)
    mob = mob / mob.sum(axis=1, keepdims=True)
    add("seir_mobility", seir_mobility,
        rng.integers(50_000, 2_000_000, nr).astype(np.float64), np.zeros(nr), rng.integers(0, 20, nr).astype(np.float64),
        mob, 0.35, 0.2, 0.1, 250, 60, 0.4)
    regions, ages = 3000, 18
    popm = rng.integers(1000, 50_000, (regions, ages)).astype(np.float64)
    add("age_standardized_rate", age_standardized_rate,
        rng.poisson(popm * np.linspace(1e-4, 5e-3, ages)[None, :]).astype(np.float64),
        popm, rng.integers(20_000, 80_000, ages).astype(np.float64))
    add("reproduction_number", reproduction_number,
        rng.poisson(50.0 * (1.5 + np.sin(np.arange(100_000) / 40.0))), 5, 7)

    # --- traffic ---
    L = 10_000
    road = np.full(L, -1, dtype=np.int64)
    occupied = rng.random(L) < 0.2
    road[occupied] = rng.integers(0, 6, occupied.sum())
    add("nagel_schreckenberg", nagel_schreckenberg,
        road, 5, rng.random((200, int(occupied.sum()))), 0.25)
    add("rule184_traffic", rule184_traffic, (rng.random(50_000) < 0.45).astype(np.uint8), 200)
    add("signal_queue", signal_queue, rng.poisson(0.4, 480).astype(np.float64), 30, 90, 1.0)
    n = 120_000
    add("loop_detector_summary", loop_detector_summary,
        rng.poisson(12, n).astype(np.float64), rng.uniform(0.0, 60.0, n), rng.integers(0, 4, n), 4, 30.0)

    # --- ecology ---
    ps = 200
    add("lotka_volterra", lotka_volterra,
        rng.uniform(5.0, 20.0, ps), rng.uniform(2.0, 8.0, ps), rng.uniform(0.8, 1.2, ps),
        rng.uniform(0.05, 0.15, ps), rng.uniform(0.05, 0.12, ps), rng.uniform(0.8, 1.2, ps), 0.005, 2000)
    n = 10_000
    add("logistic_harvest", logistic_harvest,
        rng.uniform(100.0, 1000.0, n), rng.uniform(0.1, 1.2, n), rng.uniform(1000.0, 5000.0, n),
        rng.uniform(0.0, 0.4, n), 400.0, 100)
    add("diversity_indices", diversity_indices, rng.negative_binomial(2, 0.3, (2000, 50)))
    marked = rng.integers(30, 200, 100)
    captured = rng.integers(30, 200, 100)
    add("lincoln_petersen", lincoln_petersen,
        marked, captured, (np.minimum(marked, captured) * rng.uniform(0.05, 0.5, 100)).astype(np.int64))

    # --- chemistry ---
    add("arrhenius_table", arrhenius_table,
        np.linspace(250.0, 800.0, 500), rng.uniform(40e3, 200e3, 400), 10.0 ** rng.uniform(8, 14, 400))
    add("consecutive_reactions", consecutive_reactions,
        rng.uniform(0.5, 2.0, 20_000), rng.uniform(0.05, 0.5, 20_000), rng.uniform(0.01, 0.3, 20_000), 0.1, 300)
    n = 100_000
    salt = np.where(rng.random(n) < 0.5, rng.uniform(0.01, 1.0, n), 0.0)
    add("weak_acid_ph", weak_acid_ph, rng.uniform(1e-4, 1.0, n), rng.uniform(2.0, 10.0, n), salt)
    n = 100_000
    add("van_der_waals", van_der_waals,
        rng.uniform(0.1, 5.0, n), rng.uniform(1.0, 50.0, n), rng.uniform(200.0, 600.0, n),
        rng.integers(0, 6, n), np.array([1.355, 1.370, 3.640, 5.536, 2.283, 4.225]),
        np.array([0.0320, 0.0387, 0.0427, 0.0305, 0.0428, 0.0371]))
    add("molar_masses", molar_masses,
        rng.integers(0, 6, (40, 10)) + np.eye(40, 10, dtype=np.int64),
        np.array([1.008, 12.011, 14.007, 15.999, 32.06, 30.974, 35.45, 22.99, 39.098, 24.305]),
        rng.uniform(0.5, 50.0, 40))
    add("titration_curve", titration_curve, np.linspace(0.0, 50.0, 100_001), 0.1, 25.0, 0.1)

    # --- astronomy ---
    n = 200_000
    add("distance_modulus", distance_modulus,
        rng.uniform(5.0, 20.0, n), rng.uniform(0.1, 50.0, n), rng.exponential(0.2, n))
    n = 1_000_000
    add("kepler_solve", kepler_solve, rng.uniform(0.0, 2 * np.pi, n), rng.uniform(0.0, 0.95, n), 8)
    nb, nt = 200, 500
    add("orbit_positions", orbit_positions,
        rng.uniform(0.5, 30.0, nb), rng.uniform(0.0, 0.6, nb), rng.uniform(0.0, 0.5, nb),
        rng.uniform(0.0, 2 * np.pi, nb), rng.uniform(0.0, 2 * np.pi, nb), rng.uniform(0.0, 2 * np.pi, nb),
        rng.uniform(0.01, 1.0, nb), np.linspace(0.0, 100.0, nt))
    n = 1_000_000
    ra = rng.uniform(0.0, 360.0, n)
    dec = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n)))
    add("angular_separation", angular_separation,
        ra, dec, ra + rng.normal(0, 0.001, n), np.clip(dec + rng.normal(0, 0.001, n), -90, 90), 3.0)
    n = 500_000
    t = np.sort(rng.uniform(0.0, 1000.0, n))
    fl = 1.0 - 0.01 * (((t / 3.7) % 1.0) < 0.03) + rng.normal(0, 0.002, n)
    add("phase_fold", phase_fold, t, fl, 3.7, 200)
    add("planck_spectrum", planck_spectrum, np.linspace(100.0, 3000.0, 400), np.linspace(2500.0, 40000.0, 25))
    n = 100_000
    add("flux_to_magnitude", flux_to_magnitude,
        rng.gamma(2.0, 2000.0, n).astype(np.float32), 30.0, 25.0, 150.0)

    # --- game mechanics ---
    n = 1_000_000
    add("damage_roll", damage_roll,
        rng.uniform(50.0, 500.0, n).astype(np.float32), rng.integers(0, 400, n), rng.random(n),
        0.15, 2.0, rng.integers(-10, 11, n).astype(np.int32))
    add("ability_rotation", ability_rotation,
        rng.integers(1, 40, 12), rng.uniform(50.0, 500.0, 12), 3000, 2)
    add("xp_levels", xp_levels, rng.integers(0, 2_000_000, 100_000), 100.0, 1.15, 60)
    add("loot_drops", loot_drops,
        rng.random(200_000), rng.uniform(0.1, 10.0, 64), rng.integers(0, 5, 64))
    n = 20_000
    max_hp = rng.uniform(100.0, 1000.0, n)
    add("combat_ticks", combat_ticks,
        max_hp * rng.uniform(0.3, 1.0, n), max_hp, rng.uniform(0.0, 5.0, n),
        rng.uniform(1.0, 40.0, n), rng.integers(0, 60, n).astype(np.int32), 100)
    walls = rng.random((64, 64)) < 0.15
    nu = 5000
    sx = rng.integers(0, 64, nu).astype(np.int32)
    sy = rng.integers(0, 64, nu).astype(np.int32)
    walls[sy, sx] = False
    add("grid_moves", grid_moves, sx, sy, rng.integers(0, 5, (nu, 120)), walls)

    # --- text-like ---
    add("char_histogram", char_histogram, _text_codes(rng, 4_000_000))
    add("caesar_shift", caesar_shift, _text_codes(rng, 2_000_000), 13)
    add("vigenere", vigenere, _text_codes(rng, 200_000), rng.integers(0, 26, 11))
    add("word_length_stats", word_length_stats, _text_codes(rng, 2_000_000))
    txt = _text_codes(rng, 150_000)
    add("rolling_hash_matches", rolling_hash_matches, txt, txt[1000:1006].copy(), 257, 1_000_000_007)
    add("run_length_encode", run_length_encode,
        np.repeat(rng.integers(0, 4, 40_000).astype(np.uint8), rng.integers(1, 8, 40_000)))
    add("vowel_ratio", vowel_ratio, _text_codes(rng, 160_000), 80)

    # --- scheduling ---
    dur = rng.integers(5, 120, 50_000)
    add("job_timeline", job_timeline, dur, rng.integers(0, int(dur.sum()) + 500, 100_000))
    st = rng.integers(0, 1_000_000, 80_000)
    add("max_concurrent", max_concurrent, st, st + rng.integers(10, 5000, 80_000))
    add("shift_coverage", shift_coverage,
        rng.integers(0, 168, 2000), rng.choice([4, 6, 8, 10, 12], 2000),
        rng.integers(40, 120, 168))
    rel = np.sort(rng.uniform(0.0, 500.0, 300))
    add("edf_schedule", edf_schedule, rel, rng.uniform(0.5, 3.0, 300), rel + rng.uniform(2.0, 30.0, 300))
    add("weekly_workload", weekly_workload,
        rng.integers(0, 60 * 24 * 365, 200_000), rng.gamma(2.0, 15.0, 200_000))

    # --- matrix utilities ---
    add("normalize_rows", normalize_rows, rng.normal(0, 1, (50_000, 32)).astype(np.float32))
    add("cosine_top_k", cosine_top_k, rng.normal(0, 1, (200, 64)), rng.normal(0, 1, (2000, 64)), 10)
    add("centered_rbf_gram", centered_rbf_gram, rng.normal(0, 1, (500, 16)), 0.1)
    add("standardize_columns", standardize_columns,
        (rng.normal(0, 1, (20_000, 10)) * np.arange(1, 11)).astype(np.float32))
    Msmall = rng.normal(0, 1, (20, 20))
    add("power_iteration", power_iteration, Msmall @ Msmall.T, 100)
    add("gram_schmidt", gram_schmidt, rng.normal(0, 1, (20, 12)))
    add("pagerank", pagerank, rng.random((400, 400)) < 0.02, 0.85, 50)

    # --- small simulations ---
    add("heat_rod", heat_rod, rng.uniform(15.0, 25.0, 2000), 1e-4, 0.1, 0.01, 2000, 100.0, 0.0)
    add("random_walk_stats", random_walk_stats,
        rng.choice(np.array([-1, 1], dtype=np.int8), (2000, 500)), 20)
    add("particles_in_box", particles_in_box,
        rng.uniform(0.0, 10.0, (5000, 3)), rng.normal(0, 2.0, (5000, 3)), 10.0, 0.01, 200)
    add("game_of_life", game_of_life, rng.random((256, 256)) < 0.3, 100)
    add("spring_chain", spring_chain,
        np.arange(50, dtype=np.float64) + rng.normal(0, 0.1, 50), 50.0, rng.uniform(0.5, 2.0, 50), 0.05, 0.002, 3000)
    add("amortization_schedule", amortization_schedule,
        250_000.0, 0.065, 360, np.where(rng.random(360) < 0.1, 1000.0, 0.0))
    add("lindley_waits", lindley_waits, rng.exponential(1.0, 500), rng.exponential(0.9, 500))
    add("fire_spread", fire_spread, rng.random((300, 300)) < 0.6, rng.random((300, 300)) < 0.0005, 150)
    add("projectiles_with_drag", projectiles_with_drag,
        rng.uniform(20.0, 80.0, 100), rng.uniform(10.0, 80.0, 100), 0.002, 0.01, 2000)
    add("ma_crossover", ma_crossover,
        100.0 * np.exp(np.cumsum(rng.normal(0, 0.01, 1_000_000))), 20, 100)
    add("equalize_histogram", equalize_histogram,
        np.clip(rng.normal(90, 25, (1000, 1000)), 0, 255).astype(np.uint8))

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
