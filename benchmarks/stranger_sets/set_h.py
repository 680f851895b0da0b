"""Corpus H: everyday NumPy programs on unsigned integer data.

Thirty plain functions that work with uint8 / uint16 / uint32 / uint64 arrays
and NumPy unsigned scalars, the way people write them in practice:

* hashing and random generators (FNV-1a, murmur3 / xxhash64 finalisers,
  splitmix64, LCG, xorshift32, PCG32) relying on silent unsigned wraparound,
  including uint64 constants above 2**63;
* bit manipulation (popcount tables and SWAR popcount, bit reversal, parity,
  Gray codes, Morton / Z-order interleaving, bit-field packing);
* image processing on uint8 / uint16 images (gamma LUTs, histograms,
  histogram equalisation, Otsu thresholding, saturating blends through wider
  types, RGB565 packing, 12-bit sensor scaling, per-channel statistics);
* checksums (Adler-32, Fletcher-16, table-driven CRC-32);
* bloom filters, hash bucketing, cellular automata on uint8 grids;
* mixed arithmetic of unsigned arrays with Python ints, floats and int64
  arrays, comparisons with Python ints, and reductions (sum, mean, cumsum,
  max, argmax, bincount, unique, sort).

Roughly a third of the programs use about 10_000 elements, a third 100_000 to
1_000_000 elements, and a third 1 to 8 million elements.
"""

import math

import numpy as np


# ---------------------------------------------------------------------------
# Small inputs (about 10_000 elements)
# ---------------------------------------------------------------------------


def fnv1a_rows(data):
    """32-bit FNV-1a hash of every row of a uint8 matrix."""
    rows, cols = data.shape
    h = np.full(rows, 2166136261, dtype=np.uint32)
    for j in range(cols):
        h ^= data[:, j]
        h *= 16777619
    n_distinct = np.unique(h).size
    return h, n_distinct


def popcount_lut16(values):
    """Population count of uint16 values via a 256-entry lookup table."""
    byte_vals = np.arange(256, dtype=np.uint8)
    table = np.zeros(256, dtype=np.uint8)
    for bit in range(8):
        table += (byte_vals >> bit) & 1
    counts = table[values & 0xFF] + table[values >> 8]
    total = counts.sum()
    spread = np.bincount(counts, minlength=17)
    return counts, total, spread


def gray_code_roundtrip(x):
    """Encode uint32 values as Gray codes and decode them back."""
    g = x ^ (x >> 1)
    b = g.copy()
    for shift in (1, 2, 4, 8, 16):
        b ^= b >> shift
    ok = bool(np.array_equal(b, x))
    changed_bits = np.unique(g ^ x).size
    return g, b, ok, changed_bits


def parity64(x):
    """Bit parity of uint64 words by xor folding."""
    p = x.copy()
    p ^= p >> 32
    p ^= p >> 16
    p ^= p >> 8
    p ^= p >> 4
    p ^= p >> 2
    p ^= p >> 1
    p &= 1
    odd = p.sum()
    return p.astype(np.uint8), odd


def adler32_vector(data):
    """Adler-32 checksum of a uint8 buffer without a Python loop."""
    mod = 65521
    n = data.size
    d = data.astype(np.uint64)
    a = (1 + int(d.sum())) % mod
    weights = np.arange(n, 0, -1, dtype=np.uint64)
    b = (n + int((weights * d).sum())) % mod
    return np.uint32((b << 16) | a)


def fletcher16_blocks(data, block):
    """Fletcher-16 of a whole uint8 buffer and of each fixed-size block."""
    c = np.cumsum(data, dtype=np.uint64)
    sum1 = int(c[-1] % 255)
    sum2 = int(c.sum() % 255)
    whole = np.uint16((sum2 << 8) | sum1)
    blocks = data.reshape(-1, block)
    bc = np.cumsum(blocks, axis=1, dtype=np.uint64)
    s1 = bc[:, -1] % 255
    s2 = bc.sum(axis=1) % 255
    per_block = ((s2 << 8) | s1).astype(np.uint16)
    return whole, per_block


def game_of_life(grid, steps):
    """Conway's game of life on a toroidal uint8 grid."""
    g = grid.copy()
    population = np.zeros(steps, dtype=np.uint64)
    for t in range(steps):
        n = (np.roll(g, 1, 0) + np.roll(g, -1, 0) + np.roll(g, 1, 1)
             + np.roll(g, -1, 1) + np.roll(np.roll(g, 1, 0), 1, 1)
             + np.roll(np.roll(g, 1, 0), -1, 1)
             + np.roll(np.roll(g, -1, 0), 1, 1)
             + np.roll(np.roll(g, -1, 0), -1, 1))
        g = ((n == 3) | ((g == 1) & (n == 2))).astype(np.uint8)
        population[t] = g.sum()
    return g, np.sum(g), population


def gamma_lut_histogram(img, gamma):
    """Apply a gamma lookup table to a uint8 image and histogram the result."""
    levels = np.arange(256) / 255.0
    lut = (255.0 * levels ** (1.0 / gamma) + 0.5).astype(np.uint8)
    out = lut[img]
    hist = np.bincount(out.ravel(), minlength=256)
    return out, hist, int(hist.argmax()), float(out.mean())


def lcg_streams(seeds, steps):
    """Numerical Recipes LCG on many uint32 streams with xor accumulation."""
    x = seeds.copy()
    acc = np.zeros_like(x)
    for _ in range(steps):
        x = x * 1664525 + 1013904223
        acc ^= x >> 16
    return x, acc, acc.max()


def crc32_messages(messages):
    """Table-driven CRC-32 (IEEE) of each row of a uint8 matrix."""
    c = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        c = np.where(c & 1, 0xEDB88320 ^ (c >> 1), c >> 1)
    table = c.astype(np.uint32)
    crc = np.full(messages.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(messages.shape[1]):
        idx = (crc ^ messages[:, j]) & 0xFF
        crc = table[idx] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return crc


# ---------------------------------------------------------------------------
# Medium inputs (100_000 to 1_000_000 elements)
# ---------------------------------------------------------------------------


def splitmix64_batch(seeds):
    """splitmix64 output function applied to a batch of uint64 seeds."""
    z = seeds + 0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z = z ^ (z >> 31)
    return z, z.max(), int(z.argmax())


def murmur3_fmix_buckets(keys, n_buckets):
    """murmur3 32-bit finaliser followed by bucket occupancy counts."""
    h = keys.copy()
    h ^= h >> 16
    h *= 0x85EBCA6B
    h ^= h >> 13
    h *= 0xC2B2AE35
    h ^= h >> 16
    buckets = (h % n_buckets).astype(np.intp)
    counts = np.bincount(buckets, minlength=n_buckets)
    return h, counts, int(counts.max()), int(counts.min())


def xorshift32_uniform(seeds, steps):
    """Marsaglia xorshift32 generators converted to floats in [0, 1)."""
    x = seeds | 1
    total = np.zeros(x.shape, dtype=np.float64)
    for _ in range(steps):
        x ^= x << 13
        x ^= x >> 17
        x ^= x << 5
        total += x * (1.0 / 4294967296.0)
    mean = total / steps
    return x, float(mean.mean()), float(mean.std())


def bloom_filter(keys, queries, m_bits, k):
    """Build a bloom filter bit array from uint64 keys and probe it."""
    mask = m_bits - 1
    h1 = keys * 0x9E3779B97F4A7C15
    h2 = ((keys ^ (keys >> 31)) * 0xBF58476D1CE4E5B9) | 1
    bitmap = np.zeros(m_bits, dtype=bool)
    for i in range(k):
        bitmap[(h1 + i * h2) & mask] = True
    packed = np.packbits(bitmap)
    q1 = queries * 0x9E3779B97F4A7C15
    q2 = ((queries ^ (queries >> 31)) * 0xBF58476D1CE4E5B9) | 1
    hit = np.ones(queries.shape, dtype=bool)
    for i in range(k):
        idx = (q1 + i * q2) & mask
        byte = packed[idx >> 3]
        bit = (byte >> (7 - (idx & 7))) & 1
        hit &= bit == 1
    fill = float(np.unpackbits(packed).mean())
    return packed, float(hit.mean()), fill


def rgb565_roundtrip(img):
    """Pack an RGB uint8 image into RGB565 and expand it back."""
    r = img[..., 0]
    g = img[..., 1]
    b = img[..., 2]
    packed = (((r >> 3).astype(np.uint16) << 11)
              | ((g >> 2).astype(np.uint16) << 5)
              | (b >> 3).astype(np.uint16))
    r5 = (packed >> 11) & 0x1F
    g6 = (packed >> 5) & 0x3F
    b5 = packed & 0x1F
    out = np.stack([(r5 << 3) | (r5 >> 2),
                    (g6 << 2) | (g6 >> 4),
                    (b5 << 3) | (b5 >> 2)], axis=-1).astype(np.uint8)
    err = np.abs(out.astype(np.int16) - img.astype(np.int16))
    return packed, out, float(err.mean()), int(err.max())


def saturating_blend(a, b, alpha):
    """Alpha blend, saturating add and subtract of two uint8 images."""
    a16 = a.astype(np.uint16)
    b16 = b.astype(np.uint16)
    blend = ((a16 * alpha + b16 * (256 - alpha)) >> 8).astype(np.uint8)
    sat_add = np.minimum(a16 + b16, 255).astype(np.uint8)
    sat_sub = np.where(a > b, a - b, 0).astype(np.uint8)
    return blend, sat_add, sat_sub, float(blend.mean())


def sensor12_scale(raw, black, white):
    """Scale 12-bit uint16 sensor data to 16-bit and 8-bit outputs."""
    clipped = np.minimum(np.maximum(raw, black), white) - black
    span = white - black
    out16 = (clipped.astype(np.float64) * (65535.0 / span) + 0.5).astype(np.uint16)
    out8 = (out16 >> 8).astype(np.uint8)
    saturated = int((raw >= 4095).sum())
    below_black = int((raw < black).sum())
    row_means = out16.mean(axis=1)
    return out16, out8, row_means, saturated, below_black


def morton_encode_2d(x, y):
    """Interleave uint16 coordinates into 32-bit Morton (Z-order) codes."""
    xs = x.astype(np.uint32)
    ys = y.astype(np.uint32)
    parts = []
    for v in (xs, ys):
        v = (v | (v << 8)) & 0x00FF00FF
        v = (v | (v << 4)) & 0x0F0F0F0F
        v = (v | (v << 2)) & 0x33333333
        v = (v | (v << 1)) & 0x55555555
        parts.append(v)
    code = parts[0] | (parts[1] << 1)
    dx = code & 0x55555555
    dx = (dx | (dx >> 1)) & 0x33333333
    dx = (dx | (dx >> 2)) & 0x0F0F0F0F
    dx = (dx | (dx >> 4)) & 0x00FF00FF
    dx = (dx | (dx >> 8)) & 0x0000FFFF
    order = np.argsort(code, kind="stable")
    ok = bool(np.array_equal(dx.astype(np.uint16), x))
    return code, order, ok


def multiply_shift_buckets(keys, bits):
    """Fibonacci multiply-shift hashing of uint64 keys into 2**bits buckets."""
    h = (keys * 0x9E3779B97F4A7C15) >> (64 - bits)
    counts = np.bincount(h.astype(np.intp), minlength=1 << bits)
    expected = keys.size / (1 << bits)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    return counts, int(counts.max()), float(counts.std()), chi2


def bit_reverse32(x):
    """Reverse the bit order of uint32 words with mask-and-shift swaps."""
    v = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
    v = ((v >> 2) & 0x33333333) | ((v & 0x33333333) << 2)
    v = ((v >> 4) & 0x0F0F0F0F) | ((v & 0x0F0F0F0F) << 4)
    v = ((v >> 8) & 0x00FF00FF) | ((v & 0x00FF00FF) << 8)
    v = (v >> 16) | (v << 16)
    w = ((v >> 1) & 0x55555555) | ((v & 0x55555555) << 1)
    w = ((w >> 2) & 0x33333333) | ((w & 0x33333333) << 2)
    w = ((w >> 4) & 0x0F0F0F0F) | ((w & 0x0F0F0F0F) << 4)
    w = ((w >> 8) & 0x00FF00FF) | ((w & 0x00FF00FF) << 8)
    w = (w >> 16) | (w << 16)
    return v, bool(np.array_equal(w, x)), v.max()


# ---------------------------------------------------------------------------
# Large inputs (1 to 8 million elements)
# ---------------------------------------------------------------------------


def histogram_equalize(img):
    """Histogram equalisation of a uint8 grayscale image."""
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0][0]
    total = img.size
    lut = np.clip(np.round((cdf - cdf_min) / (total - cdf_min) * 255.0),
                  0, 255).astype(np.uint8)
    eq = lut[img]
    return eq, int(hist.argmax()), eq.max(), float(eq.mean())


def otsu_threshold(img):
    """Otsu's threshold of a uint8 image and the resulting binary mask."""
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    prob = hist / img.size
    omega = np.cumsum(prob)
    mu = np.cumsum(prob * np.arange(256))
    mu_t = mu[-1]
    denom = omega * (1.0 - omega)
    denom[denom == 0] = np.inf
    sigma_b = (mu_t * omega - mu) ** 2 / denom
    t = int(np.argmax(sigma_b))
    mask = img > t
    fg = int(np.count_nonzero(mask))
    return t, mask, fg, float(img[mask].mean())


def pcg32_streams(states, steps):
    """PCG32 (XSH-RR) generators advanced over a batch of uint64 states."""
    state = states.copy()
    acc = np.zeros(state.shape, dtype=np.uint32)
    total = np.zeros(state.shape, dtype=np.float64)
    for _ in range(steps):
        old = state
        state = old * 6364136223846793005 + 1442695040888963407
        xorshifted = (((old >> 18) ^ old) >> 27).astype(np.uint32)
        rot = (old >> 59).astype(np.uint32)
        out = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))
        acc ^= out
        total += out
    return state, acc, float(total.mean() / steps)


def xxhash64_avalanche(values):
    """xxhash64 avalanche finaliser and top-byte distribution."""
    h = values ^ (values >> 33)
    h *= 0xC2B2AE3D27D4EB4F
    h ^= h >> 29
    h *= 0x165667B19E3779F9
    h ^= h >> 32
    top, counts = np.unique(h >> 56, return_counts=True)
    return h, top, counts, h.min()


def bitfield_records(version, flags, channel, value):
    """Pack record fields into uint32 words and unpack them again."""
    packed = (((version.astype(np.uint32) & 0x7) << 29)
              | ((flags.astype(np.uint32) & 0x1F) << 24)
              | (channel.astype(np.uint32) << 16)
              | value.astype(np.uint32))
    v = (packed >> 29).astype(np.uint8)
    f = ((packed >> 24) & 0x1F).astype(np.uint8)
    c = ((packed >> 16) & 0xFF).astype(np.uint8)
    val = (packed & 0xFFFF).astype(np.uint16)
    ok = bool(np.array_equal(v, version & 7) and np.array_equal(f, flags & 0x1F)
              and np.array_equal(c, channel) and np.array_equal(val, value))
    flagged = int(((f & 0x10) != 0).sum())
    return packed, ok, np.sum(val), flagged


def bitset_jaccard(a, b):
    """Jaccard similarity of 256-bit bitsets stored as rows of uint64."""
    x = np.stack([a & b, a | b])
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = (x * 0x0101010101010101) >> 56
    counts = x.sum(axis=-1)
    inter = counts[0]
    union = counts[1]
    jac = inter / np.maximum(union, 1)
    return jac, float(jac.mean()), inter.sum(), int(jac.argmax())


def rule30_automaton(cells, steps, rule):
    """Elementary cellular automaton on a wrapped uint8 row."""
    c = cells.copy()
    r = np.uint8(rule)
    density = np.zeros(steps, dtype=np.float64)
    for t in range(steps):
        left = np.roll(c, 1)
        right = np.roll(c, -1)
        idx = (left << 2) | (c << 1) | right
        c = (r >> idx) & 1
        density[t] = c.sum() / c.size
    return c, c.sum(), density


def channel_stats_uint16(img):
    """Per-channel sums, means and gray-world white balance of uint16 RGB."""
    h, w, _ = img.shape
    sums = img.sum(axis=(0, 1))
    means = sums / (h * w)
    gains = means.mean() / means
    balanced = np.clip(img * gains + 0.5, 0, 65535).astype(np.uint16)
    peak = img.max()
    peak_at = int(img.argmax())
    return balanced, sums, means, peak, peak_at


def radix_sort_uint32(x):
    """LSD radix sort of uint32 keys, one byte per pass."""
    keys = x.copy()
    for shift in (0, 8, 16, 24):
        digit = ((keys >> shift) & 0xFF).astype(np.uint8)
        order = np.argsort(digit, kind="stable")
        keys = keys[order]
    ok = bool(np.array_equal(keys, np.sort(x)))
    n_unique = int(np.count_nonzero(keys[1:] != keys[:-1])) + 1
    return keys, ok, n_unique, keys[keys.size // 2]


def mixed_unsigned_arith(counts, offsets, threshold):
    """Mixed uint32 / int64 / float arithmetic and comparisons."""
    shifted = counts + offsets
    wide = counts.astype(np.uint64) + offsets
    scaled = counts * 0.5 + 1.0
    big = counts > threshold
    small = counts <= 1000
    run = np.cumsum(counts)
    score = float(math.sqrt(float(scaled.mean())))
    return (int(big.sum()), int(small.sum()), float(shifted.mean()),
            float(wide.max()), scaled.max(), run[-1], score)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _make_args():
    rng = np.random.default_rng(20240817)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # small
    add(fnv1a_rows, rng.integers(0, 256, size=(625, 16), dtype=np.uint8))
    add(popcount_lut16, rng.integers(0, 1 << 16, size=10_000, dtype=np.uint16))
    add(gray_code_roundtrip,
        rng.integers(0, 1 << 32, size=10_000, dtype=np.uint32))
    add(parity64, rng.integers(0, 1 << 64, size=10_000, dtype=np.uint64))
    add(adler32_vector, rng.integers(0, 256, size=10_000, dtype=np.uint8))
    add(fletcher16_blocks, rng.integers(0, 256, size=10_000, dtype=np.uint8),
        100)
    add(game_of_life,
        (rng.random((100, 100)) < 0.3).astype(np.uint8), 50)
    add(gamma_lut_histogram,
        rng.integers(0, 256, size=(100, 100), dtype=np.uint8), 2.2)
    add(lcg_streams, rng.integers(0, 1 << 32, size=10_000, dtype=np.uint32),
        100)
    add(crc32_messages, rng.integers(0, 256, size=(625, 16), dtype=np.uint8))

    # medium
    add(splitmix64_batch,
        rng.integers(0, 1 << 64, size=500_000, dtype=np.uint64))
    add(murmur3_fmix_buckets,
        np.arange(300_000, dtype=np.uint32), 64)
    add(xorshift32_uniform,
        rng.integers(0, 1 << 32, size=200_000, dtype=np.uint32), 20)
    add(bloom_filter,
        rng.integers(0, 1 << 64, size=200_000, dtype=np.uint64),
        rng.integers(0, 1 << 64, size=200_000, dtype=np.uint64),
        1 << 21, 3)
    add(rgb565_roundtrip,
        rng.integers(0, 256, size=(512, 512, 3), dtype=np.uint8))
    add(saturating_blend,
        rng.integers(0, 256, size=(400, 400, 3), dtype=np.uint8),
        rng.integers(0, 256, size=(400, 400, 3), dtype=np.uint8), 96)
    add(sensor12_scale,
        rng.integers(0, 4096, size=(480, 640), dtype=np.uint16), 64, 4000)
    add(morton_encode_2d,
        rng.integers(0, 1 << 16, size=250_000, dtype=np.uint16),
        rng.integers(0, 1 << 16, size=250_000, dtype=np.uint16))
    add(multiply_shift_buckets,
        np.arange(1, 800_001, dtype=np.uint64) * 4096, 10)
    add(bit_reverse32,
        rng.integers(0, 1 << 32, size=500_000, dtype=np.uint32))

    # large
    add(histogram_equalize,
        np.clip(rng.normal(90, 25, size=(2048, 2048)), 0, 255)
        .astype(np.uint8))
    add(otsu_threshold,
        np.where(rng.random((1500, 1500)) < 0.4,
                 rng.normal(60, 15, size=(1500, 1500)),
                 rng.normal(180, 20, size=(1500, 1500)))
        .clip(0, 255).astype(np.uint8))
    add(pcg32_streams,
        rng.integers(0, 1 << 64, size=1_000_000, dtype=np.uint64), 10)
    add(xxhash64_avalanche,
        rng.integers(0, 1 << 64, size=2_000_000, dtype=np.uint64))
    add(bitfield_records,
        rng.integers(0, 8, size=2_000_000, dtype=np.uint8),
        rng.integers(0, 32, size=2_000_000, dtype=np.uint8),
        rng.integers(0, 256, size=2_000_000, dtype=np.uint8),
        rng.integers(0, 1 << 16, size=2_000_000, dtype=np.uint16))
    add(bitset_jaccard,
        rng.integers(0, 1 << 64, size=(400_000, 4), dtype=np.uint64),
        rng.integers(0, 1 << 64, size=(400_000, 4), dtype=np.uint64))
    add(rule30_automaton,
        (rng.random(1_000_000) < 0.5).astype(np.uint8), 50, 30)
    add(channel_stats_uint16,
        rng.integers(0, 1 << 16, size=(1024, 1024, 3), dtype=np.uint16))
    add(radix_sort_uint32,
        rng.integers(0, 1 << 32, size=2_000_000, dtype=np.uint32))
    add(mixed_unsigned_arith,
        rng.integers(0, 1 << 32, size=4_000_000, dtype=np.uint32),
        rng.integers(-1_000_000, 1_000_000, size=4_000_000, dtype=np.int64),
        3_000_000_000)

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
