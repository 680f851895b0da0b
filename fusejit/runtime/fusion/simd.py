"""Hand-written AVX-512 vector functions that LLVM's loop vectoriser calls from kernel loops:
float32 x**y with register-resident tables (``vpermi2ps``), which LLVM never produces from the
element-wise code of ``vecpow`` (its table lookups become gathers, slower than the polynomials).

A kernel line ``t2 = vp.pow_simd_f32(t0, t1)`` lowers to a call of the scalar function
``fj_powf``, defined in the kernel's own LLVM module with the attribute

    "vector-function-abi-variant"="_ZGV_LLVM_N16vv_fj_powf(fj_powf_v16),..."

(the way LLVM maps libm's calls to SVML or libmvec): the vectoriser widens the loop and calls
``fj_powf_v16`` on 16 lanes at a time (``fj_powf_v8``/``_v4`` if it picks a narrower loop; they
widen to 16). ``fj_powf`` itself (a loop's scalar remainder) calls ``fj_powf_v16`` on one lane.
The vector function must exist in the module when the vectoriser looks (it is ``noinline``, and
its caller keeps it alive), and its body is never inlined: Numba's one vectorising pipeline
runs no inliner after the vectoriser. The kernel pays a call per 16 elements.

Only where ``HOST_AVX512`` holds (Numba compiles for this host, which has AVX-512F: the same
test as ``vecmath.SCALEF``); elsewhere the renderer keeps ``vecpow``'s portable forms, and the
CUDA path never sees these names.

A kernel whose whole work in a strip is that pow (``loops._strip_call``: two float32 rows
read, one written) calls ``fj_powf_strip`` instead (``powf_strip``, ``vecpow.pow_strip_f32``):
the loop over the strip written here in IR, the constants and tables loaded once (into
registers, or spilled to the stack once), no call per 16 lanes, the last elements by masked
loads and stores. Its flag (the running maximum of |nf|'s bits) says whether a pair had
|y log2 x| beyond 200 or was outside the domain, which every such pair's nf shows (``_Strip``):
the kernel then computes the strip again with ``vecpow.pow_f32``.

Method of ``fj_powf_v16`` and of the strip (float32 lanes throughout, one rounding at the
end): for x normal, 0 < x < inf, and |y| <= 2**100 (the domain kernels check per strip,
``vecpow.pow_outside_simd_f32``; other strips take ``vecpow.pow_f32``):

- x = 2**e m with m in [0.75, 1.5) by ``vgetmantps`` (interval 3); e = getexp(x) - getexp(m)
  (the strip: getexp(x 4/3), the same for every mantissa; x 4/3 overflows only for x >= 1.5
  2**127, whose nf is then inf or NaN, flagged); k = round(32 m) in the low bits of 32 m +
  1.5 * 2**23 indexes 32-entry tables (one ``vpermi2ps`` each); r_k = round(32 / (k/32)) / 32
  has 5 significant bits, so t = m r_k - 1 (|t| <= 0.0298) is exact in one fused
  multiply-add.
- log2 x = e - log2 r_k + log2(1 + t) in double-float: -log2 r_k as lch + lcl, lch on the
  2**-16 grid so that e + lch is exact (|lcl| <= 2**-17); (1/ln 2) t and -(1/(2 ln 2)) t**2
  (t**2 split exactly) as pairs; t**3 R(t) in float32 (R of degree 3, fitted here, relative
  error 2**-24.3); e + lch, (1/ln 2) t and the t**2 term summed by Fast2Sum into h (each larger
  one is at least the next: |e + lch| >= 0.044 > |(1/ln 2) t| where it is not 0), the rest
  (lcl included) into lo.
- nf = round(32 y (h + lcl)) / 32 by one FMA with 1.5 * 2**18 (whose low bits are n32 = 32 n
  + j); r = (y h - nf) + y lo in two FMAs (|y h - nf| <= 1/64 + |y lcl|, so the first rounds
  by 2**-28 or less; |r| <= 1/64 + 2**-24). ``fj_powf_v16`` clamps nf to +-200 (past float32's
  range) and drops r where it did; the strip flags such strips instead.
- 2**z = 2**n 2**(j/32) 2**r: 2**(j/32) as a float32 pair (two more tables, indexed by the
  low bits of nf + 1.5 * 2**18), 2**r - 1 = r P2(r) (fitted, relative error 2**-25.9), 2**n by
  ``vscalefps``, which scales by 2**floor(nf) (overflow to inf, gradual underflow).

  A vector holding a subnormal result (nf < -125) adds th and its low part in float64 and
  scales that instead (``llvm.ldexp``): one rounding (a branch the common case skips).

Measured (``tools/ulp_sweep.py binary``, as ``vecpow``'s table): within 0.53 ulp, both.

Speed (one thread's CPU time, x and y in [0.1, 3]; ``vecpow`` has the kernels' figures): the
strip loop alone, 2^16 pairs, 1.18-1.23x NumPy's SVML powf (medians of 101, 5 rounds, load
14); its loop is about 48 port-0/5 instructions for 16 lanes (5 of them ``vpermi2ps``) plus
the flag's two and the subnormal test's two.

(Before the strip and the shorter method: a plain loop over ``fj_powf_v16`` ran 0.87-0.90x
NumPy's SVML powf, about 69 port-0/5 instructions for 16 lanes with the call, the reloaded
constants and the caller's spills; a first form in float64 lanes, ``vpermi2pd`` tables and
``vgetmantpd``/``vgetexppd``, 0.68-0.73x. The double-float log2, about 20 of those
instructions, is what keeps 0.53 ulp where |y log2 x| reaches 150 with x near 1; NumPy: 1.437
ulp there.)
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from . import fastmath as fm
from .vecmath import _OPTS, SCALEF

# Numba compiles for this host and it has AVX-512F (vpermi2ps, vscalefps, 512-bit vectors):
# decided once, at import.
HOST_AVX512 = SCALEF

_LD = np.longdouble
_F32 = ir.FloatType()
_I32 = ir.IntType(32)
_I16 = ir.IntType(16)
_I64 = ir.IntType(64)
_V = ir.VectorType(_F32, 16)
_VI = ir.VectorType(_I32, 16)
_VD = ir.VectorType(ir.DoubleType(), 16)

_LN2 = np.log(_LD(2))
_C1 = 1 / _LN2                       # log2(1 + t) = C1 t + C2 t**2 + t**3 R(t)
_C2 = -1 / (2 * _LN2)
# R(t) = _R[0] + _R[1] t + _R[2] t**2 + _R[3] t**3 for |t| <= 0.0305 (relative error 2**-24.3)
_R = (0.48089832067489624, -0.360673725605011, 0.2887308597564697, -0.24062898755073547)
# 2**r - 1 = r (_EX[0] + _EX[1] r + _EX[2] r**2) for |r| <= 1/60 (relative error 2**-25.9)
_EX = (0.6931471824645996, 0.24022850394248962, 0.05550410971045494)
_SHIFT_K = 1.5 * 2.0**23             # + 32 m: round(32 m) in the sum's low bits
_SHIFT_Z = 1.5 * 2.0**18             # + z: z rounded to 1/32, 32 z in the low bits
_Z_CLAMP = 200.0                     # 2**200, 2**-200: far past float32's range
# The largest |y| kernels pass (``vecpow.pow_outside_simd_f32``): y log2 x stays finite.
Y_LIMIT = 2.0**100
_FOUR_THIRDS = 4 / 3


def _split(value) -> tuple[float, float]:
    """``value`` (long double) as float32 hi + lo."""
    hi = np.float32(value)
    return float(hi), float(np.float32(value - _LD(hi)))


def _tables() -> dict[str, list[float]]:
    """The 32-entry tables, by name: r_k and -log2 r_k (hi, lo) at k & 31 for k = 24..48;
    2**(j/32) (hi, lo) at j."""
    tab = {name: [0.0] * 32 for name in ("r", "lch", "lcl", "th", "tl")}
    for k in range(24, 49):
        r = np.float32(np.rint(1024 / k) / 32)
        tab["r"][k & 31] = float(r)
        lc = -np.log2(_LD(r))
        hi = np.rint(lc * 2**16) / 2**16          # (on the 2**-16 grid: e + hi is exact)
        tab["lch"][k & 31], tab["lcl"][k & 31] = float(hi), float(np.float32(lc - hi))
    for j in range(32):
        tab["th"][j], tab["tl"][j] = _split(np.exp2(_LD(j) / 32))
    return tab


class _Pool:
    """The function's constants in one global array of 16-lane rows (tables two rows each,
    scalars splat across one): one base address and offsets, vector loads rather than the
    large code model's address per constant pool entry. (The global is not marked constant, so
    LLVM keeps the loads instead of folding them back into that pool.)"""

    def __init__(self, module: ir.Module, builder: ir.IRBuilder, name: str):
        rows: list[list[float]] = []
        self.rows: dict[object, int] = {}
        for key, values in _tables().items():
            self.rows[key] = len(rows)
            rows += [values[:16], values[16:]]
        scalars = (0.0, 32.0, _FOUR_THIRDS, _SHIFT_K, -1.0, _Z_CLAMP, -_Z_CLAMP, _SHIFT_Z,
                   -_SHIFT_Z, *_split(_C1), *_split(_C2), *_R, *_EX)
        for value in scalars:
            if value not in self.rows:
                self.rows[value] = len(rows)
                rows.append([float(np.float32(value))] * 16)
        self.type = ir.ArrayType(_V, len(rows))
        pool = module.globals.get(name)
        if pool is None:
            pool = ir.GlobalVariable(module, self.type, name)
            pool.linkage = "linkonce_odr"
            pool.align = 64
            pool.initializer = ir.Constant(self.type, [ir.Constant(_V, row) for row in rows])
        self.pool, self.builder, self.loaded = pool, builder, {}

    def row(self, index: int) -> ir.Value:
        if index not in self.loaded:
            ptr = self.builder.gep(self.pool, [ir.Constant(_I32, 0), ir.Constant(_I32, index)],
                                   inbounds=True, source_etype=self.type)
            self.loaded[index] = self.builder.load(ptr, typ=_V, align=64)
        return self.loaded[index]

    def load_all(self) -> None:
        """Load every row where the builder stands (a strip's entry: once, not per group)."""
        for index in range(self.type.count):
            self.row(index)

    def __call__(self, value: float) -> ir.Value:
        """The splat constant ``value`` (one of the scalars above)."""
        return self.row(self.rows[value])

    def table(self, name: str) -> tuple[ir.Value, ir.Value]:
        return self.row(self.rows[name]), self.row(self.rows[name] + 1)


def _ints(value: int) -> ir.Constant:
    return ir.Constant(_VI, [ir.Constant(_I32, value)] * 16)


def _pow_parts(module: ir.Module, b: ir.IRBuilder, k: _Pool, x: ir.Value, y: ir.Value,
               clamp: bool = True) -> tuple[ir.Value, ...]:
    """Emit x**y for 16 float32 lanes (the module docstring's method) up to the last scaling:
    (the result where it is normal, th, w, nf) for ``_round_subnormal``. Without ``clamp``
    the result is right only where |nf| <= _Z_CLAMP (nf is y log2 x rounded to 1/32)."""
    perm = module.declare_intrinsic("llvm.x86.avx512.vpermi2var.ps.512", (),
                                    ir.FunctionType(_V, [_V, _VI, _V]))
    scalef = module.declare_intrinsic("llvm.x86.avx512.mask.scalef.ps.512", (),
                                      ir.FunctionType(_V, [_V, _V, _V, _I16, _I32]))
    getexp = module.declare_intrinsic("llvm.x86.avx512.mask.getexp.ps.512", (),
                                      ir.FunctionType(_V, [_V, _V, _I16, _I32]))
    getmant = module.declare_intrinsic("llvm.x86.avx512.mask.getmant.ps.512", (),
                                       ir.FunctionType(_V, [_V, _I32, _V, _I16, _I32]))
    fma_fn = module.declare_intrinsic("llvm.fma.v16f32", (), ir.FunctionType(_V, [_V] * 3))
    lanes, current = ir.Constant(_I16, -1), ir.Constant(_I32, 4)

    def fma(a, c, d):
        return b.call(fma_fn, [a, c, d])

    def look(name, index):
        low, high = k.table(name)
        return b.call(perm, [low, index, high])

    def fast_two_sum(big, small):
        s = b.fadd(big, small)
        return s, b.fsub(small, b.fsub(s, big))

    def exponent(v):
        return b.call(getexp, [v, ir.Constant(_V, None), lanes, current])

    c1h, c1l = _split(_C1)
    c2h, c2l = _split(_C2)
    # x = 2**e m, m in [0.75, 1.5) (vgetmantps' interval 3; e = floor(log2 x) less m's
    # floor(log2 m), 0 or -1); k = round(32 m); t = m r_k - 1 exactly
    # (the strip's: sign control 2, NaN for a negative x, so that its nf is NaN and flagged)
    m = b.call(getmant, [x, ir.Constant(_I32, 3 if clamp else 11), ir.Constant(_V, None),
                         lanes, current])
    if clamp:
        e = b.fsub(exponent(x), exponent(m))
    else:
        # (floor(log2(x 4/3)) is e for every float32 mantissa; x 4/3 overflows for x >= 1.5
        # 2**127, whose nf is then infinite or NaN: those strips are flagged)
        e = exponent(b.fmul(x, k(_FOUR_THIRDS)))
    index = b.bitcast(fma(m, k(32.0), k(_SHIFT_K)), _VI)
    t = fma(m, look("r", index), k(-1.0))
    # log2 x = (e + lch) + C1 t + C2 t**2 + t**3 R(t) + lcl, as h + lo (lch on the 2**-16
    # grid: e + lch is exact)
    a = b.fadd(e, look("lch", index))
    ph = b.fmul(t, k(c1h))
    pl = fma(t, k(c1l), fma(t, k(c1h), b.fneg(ph)))
    t2h = b.fmul(t, t)
    t2l = fma(t, t, b.fneg(t2h))
    u = b.fmul(k(c2h), t2h)
    ul = fma(k(c2h), t2h, b.fneg(u))
    rest = fma(t, fma(t, fma(t, fma(t, k(_R[3]), k(_R[2])), k(_R[1])), k(_R[0])), k(c2l))
    small = fma(k(c2h), t2l, b.fmul(t2h, rest))
    h1, e1 = fast_two_sum(a, ph)
    h, e2 = fast_two_sum(h1, u)
    # (e2 comes last in the chain: added last)
    lcl = look("lcl", index)
    lo = b.fadd(b.fadd(b.fadd(lcl, pl), b.fadd(ul, small)), b.fadd(e1, e2))
    # z = y log2 x = 32 n + j + r: nf = n + j/32 = y (h + lcl) rounded to 1/32 (the low bits
    # of y (h + lcl) + 1.5 * 2**18 index the tables: vpermi2ps reads 5 bits), r = (y h - nf) +
    # y lo in two FMAs (|y h - nf| <= 1/64 + |y lcl|: the first rounds by 2**-28 or less)
    shifted = fma(y, b.fadd(h, lcl), k(_SHIFT_Z))
    nf = b.fadd(shifted, k(-_SHIFT_Z))
    r = fma(y, lo, fma(y, h, b.fneg(nf)))
    if clamp:
        # nf within +-200 (past float32's range), where r is dropped (it may be large)
        clamped = b.select(b.fcmp_ordered("<", nf, k(-_Z_CLAMP)), k(-_Z_CLAMP), nf)
        clamped = b.select(b.fcmp_ordered(">", clamped, k(_Z_CLAMP)), k(_Z_CLAMP), clamped)
        r = b.select(b.fcmp_ordered("==", nf, clamped), r, k(0.0))
        nf = clamped
    bits = b.bitcast(shifted, _VI)
    # 2**(j/32) 2**r = th + (th r P2(r) + tl)
    th = look("th", bits)
    w = fma(b.fmul(th, r), fma(r, fma(r, k(_EX[2]), k(_EX[1])), k(_EX[0])), look("tl", bits))
    # (vscalefps scales by 2**floor(nf) = 2**n)
    fast = b.call(scalef, [b.fadd(th, w), nf, ir.Constant(_V, None), lanes, current])
    return fast, th, w, nf


def _round_subnormal(module: ir.Module, b: ir.IRBuilder,
                     groups: list[tuple[ir.Value, ...]]) -> list[ir.Value]:
    """The results of ``_pow_parts``' ``groups``. A subnormal result (n <= -126: p < 2) would
    round twice, p to float32 and then the scaled p: where any lane of the groups has one (a
    branch the common case skips), p = th + w is taken in float64, scaled and rounded once."""
    tiny = None
    for group in groups:
        lanes = b.bitcast(b.fcmp_ordered("<", group[3], ir.Constant(_V, [-125.0] * 16)), _I16)
        tiny = lanes if tiny is None else b.or_(tiny, lanes)
    common = b.block
    precise = b.append_basic_block("subnormal")
    done = b.append_basic_block("done")
    b.cbranch(b.icmp_unsigned("!=", tiny, ir.Constant(_I16, 0)), precise, done)
    b.position_at_end(precise)
    ldexp = module.declare_intrinsic("llvm.ldexp.v16f64.v16i32", (),
                                     ir.FunctionType(_VD, [_VD, _VI]))
    floor = module.declare_intrinsic("llvm.floor.v16f32", (), ir.FunctionType(_V, [_V]))
    rounded = []
    for _fast, th, w, nf in groups:
        wide = b.fadd(b.fpext(th, _VD), b.fpext(w, _VD))
        n = b.fptosi(b.call(floor, [nf]), _VI)
        rounded.append(b.fptrunc(b.call(ldexp, [wide, n]), _V))
    b.branch(done)
    b.position_at_end(done)
    results = []
    for (fast, *_rest), value in zip(groups, rounded):
        result = b.phi(_V)
        result.add_incoming(fast, common)
        result.add_incoming(value, precise)
        results.append(result)
    return results


def _pow_body(module: ir.Module, b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """Emit x**y for 16 float32 lanes; returns the result."""
    k = _Pool(module, b, "fj_powf_k")
    return _round_subnormal(module, b, [_pow_parts(module, b, k, x, y)])[0]


def _lanes(count: int, width: int) -> ir.Constant:
    """A shufflevector mask: lanes 0..count-1 of a ``width``-lane vector (0 past its end)."""
    return ir.Constant(ir.VectorType(_I32, count),
                       [ir.Constant(_I32, i if i < width else 0) for i in range(count)])


def _define_pow(module: ir.Module) -> ir.Function:
    """Define fj_powf_v16, its narrower variants and the scalar fj_powf in ``module``."""
    wide = ir.Function(module, ir.FunctionType(_V, [_V, _V]), "fj_powf_v16")
    wide.linkage = "linkonce_odr"
    wide.attributes.add("noinline")
    wide.attributes.add("nounwind")
    b = ir.IRBuilder(wide.append_basic_block())
    b.ret(_pow_body(module, b, *wide.args))
    mappings = ["_ZGV_LLVM_N16vv_fj_powf(fj_powf_v16)"]
    for lanes in (8, 4):
        vtype = ir.VectorType(_F32, lanes)
        narrow = ir.Function(module, ir.FunctionType(vtype, [vtype, vtype]), f"fj_powf_v{lanes}")
        narrow.linkage = "linkonce_odr"
        narrow.attributes.add("nounwind")
        b = ir.IRBuilder(narrow.append_basic_block())
        spread = [b.shuffle_vector(v, v, _lanes(16, lanes)) for v in narrow.args]
        out = b.call(wide, spread)
        b.ret(b.shuffle_vector(out, out, _lanes(lanes, 16)))
        mappings.append(f"_ZGV_LLVM_N{lanes}vv_fj_powf(fj_powf_v{lanes})")
    scalar = ir.Function(module, ir.FunctionType(_F32, [_F32, _F32]), "fj_powf")
    scalar.linkage = "linkonce_odr"
    scalar.attributes.add("noinline")
    scalar.attributes.add("nounwind")
    # (string and memory attributes bypass llvmlite's list of known ones, as
    # vecmath.wide_vectors does; without memory(none) the vectoriser would not widen the call)
    for attribute in (f'"vector-function-abi-variant"="{",".join(mappings)}"',
                      "memory(none)", "willreturn"):
        set.add(scalar.attributes, attribute)
    b = ir.IRBuilder(scalar.append_basic_block())
    zero = ir.Constant(_I32, 0)
    lanes = [b.insert_element(ir.Constant(_V, ir.Undefined), v, zero) for v in scalar.args]
    b.ret(b.extract_element(b.call(wide, lanes), zero))
    return scalar


@intrinsic
def powf_avx512(typingctx, x, y):
    """x**y for float32 x normal, 0 < x < inf, and |y| <= Y_LIMIT (anything for other
    arguments, without a fault): a call of ``fj_powf``, which the vectoriser widens to
    ``fj_powf_v16``. Only where HOST_AVX512 holds."""
    if not (x == y == types.float32):
        return None

    def codegen(context, builder, signature, args):
        function = builder.module.globals.get("fj_powf") or _define_pow(builder.module)
        return builder.call(function, args)
    return types.float32(types.float32, types.float32), codegen


# --- a whole strip: the loop in IR ---------------------------------------------------------------

_Y_LIMIT_BITS = int(np.float32(Y_LIMIT).view(np.int32))
# 16-lane groups an iteration of the strip's loop. (Two, side by side, were slower: 1.03-1.06x
# NumPy against 1.13-1.18x for one, 2^16 pairs, two alternated runs; the out-of-order core
# overlaps the iterations, and two groups spill more of the 30 constants. Three: 0.70 ns an
# element against 0.59.)
_GROUPS = 1


@njit(**_OPTS)
def pow_outside(x, y):
    """Is (x, y) outside ``powf_avx512``'s domain (x normal, 0 < x < inf, |y| <= Y_LIMIT)?
    (On the bits, as ``fm.log_outside``: a NaN y's are above the limit's.)"""
    return fm.log_outside(x) | (fm._I(fm._f32_to_bits(y) & fm._I(0x7FFFFFFF)) > _Y_LIMIT_BITS)


def _splat(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    lane = b.insert_element(ir.Constant(_VI, ir.Undefined), value, ir.Constant(_I32, 0))
    return b.shuffle_vector(lane, lane, ir.Constant(_VI, [ir.Constant(_I32, 0)] * 16))


# A strip's flag: the running unsigned maximum of |nf|'s bits, past 200's where |y log2 x| is
# or nf is NaN. Every other pair outside the domain has such an nf: x = +-0 or +-inf (getexp
# -inf or inf), x < 0 (vgetmantps gives NaN) or NaN, y infinite or NaN (and NaN where x = 1);
# a subnormal x is computed right (vgetmantps and vgetexpps normalise it).
_NF_LIMIT = int(np.float32(_Z_CLAMP).view(np.int32))


class _Strip:
    """The IR of fj_powf_strip's groups: loads, ``_pow_parts`` (unclamped), the flag's maxima
    and the stores, for the 16 * _GROUPS elements from i (``limit``: only those below it)."""

    def __init__(self, module: ir.Module, b: ir.IRBuilder, k: _Pool, pointers: list):
        self.module, self.b, self.k, self.pointers = module, b, k, pointers
        self.mask_type = ir.VectorType(ir.IntType(1), 16)
        ptr = pointers[0].type
        self.load = module.declare_intrinsic("llvm.masked.load.v16f32.p0", (), ir.FunctionType(
            _V, [ptr, _I32, self.mask_type, _V]))
        self.store = module.declare_intrinsic("llvm.masked.store.v16f32.p0", (),
                                              ir.FunctionType(ir.VoidType(), [
                                                  _V, ptr, _I32, self.mask_type]))
        self.umax = module.declare_intrinsic("llvm.umax.v16i32", (),
                                             ir.FunctionType(_VI, [_VI, _VI]))

    def groups(self, i: ir.Value, limit: ir.Value | None, flags: ir.Value) -> ir.Value:
        b, k = self.b, self.k
        xs, ys, outs = self.pointers
        align = ir.Constant(_I32, 4)
        groups, places = [], []
        for g in range(_GROUPS):
            offset = b.add(i, ir.Constant(_I64, 16 * g))
            at = [b.gep(base, [offset], inbounds=True, source_etype=_F32)
                  for base in (xs, ys, outs)]
            if limit is None:
                mask = None
                x, y = (b.load(b.bitcast(place, _V.as_pointer()), typ=_V, align=4)
                        for place in at[:2])
            else:
                mask = b.icmp_signed("<", ir.Constant(_VI, [ir.Constant(_I32, 16 * g + j)
                                                            for j in range(16)]), limit)
                x, y = (b.call(self.load, [place, align, mask, ir.Constant(_V, None)])
                        for place in at[:2])
            parts = _pow_parts(self.module, b, k, x, y, clamp=False)
            top = b.call(self.umax, [flags, b.and_(b.bitcast(parts[3], _VI),
                                                    _ints(0x7FFFFFFF))])
            flags = top if mask is None else b.select(mask, top, flags)
            groups.append(parts)
            places.append((at[2], mask))
        for value, (place, mask) in zip(_round_subnormal(self.module, b, groups), places):
            if mask is None:
                b.store(value, b.bitcast(place, _V.as_pointer()), align=4)
            else:
                b.call(self.store, [value, place, align, mask])
        return flags


def _define_strip(module: ir.Module, ptr: ir.Type) -> ir.Function:
    """Define fj_powf_strip(x, y, out, n) in ``module``: out[i] = x[i]**y[i] for i < n by
    ``_pow_parts``, _GROUPS groups of 16 lanes an iteration (then the rest, masked), the
    constants loaded once; returns whether any pair had |nf| > _Z_CLAMP or NaN (outside the
    domain, or |y log2 x| past 200: the caller computes those strips again)."""
    fn = ir.Function(module, ir.FunctionType(ir.IntType(8), [ptr, ptr, ptr, _I64]),
                     "fj_powf_strip")
    fn.linkage = "linkonce_odr"
    fn.attributes.add("noinline")
    fn.attributes.add("nounwind")
    *pointers, n = fn.args
    blocks = {name: fn.append_basic_block(name)
              for name in ("entry", "head", "body", "tail", "last", "end")}
    b = ir.IRBuilder(blocks["entry"])
    k = _Pool(module, b, "fj_powf_k")
    k.load_all()
    strip = _Strip(module, b, k, pointers)
    step = 16 * _GROUPS
    full = b.sub(n, b.urem(n, ir.Constant(_I64, step)))
    b.branch(blocks["head"])
    b.position_at_end(blocks["head"])
    i = b.phi(_I64)
    flags = b.phi(_VI)
    i.add_incoming(ir.Constant(_I64, 0), blocks["entry"])
    flags.add_incoming(ir.Constant(_VI, None), blocks["entry"])
    b.cbranch(b.icmp_signed("<", i, full), blocks["body"], blocks["tail"])
    b.position_at_end(blocks["body"])
    after = strip.groups(i, None, flags)
    i.add_incoming(b.add(i, ir.Constant(_I64, step)), b.block)
    flags.add_incoming(after, b.block)
    b.branch(blocks["head"])
    b.position_at_end(blocks["tail"])
    b.cbranch(b.icmp_signed("<", full, n), blocks["last"], blocks["end"])
    b.position_at_end(blocks["last"])
    last = strip.groups(full, _splat(b, b.trunc(b.sub(n, full), _I32)), flags)
    came = b.block
    b.branch(blocks["end"])
    b.position_at_end(blocks["end"])
    final = b.phi(_VI)
    final.add_incoming(flags, blocks["tail"])
    final.add_incoming(last, came)
    outside = b.icmp_unsigned(">", final, _ints(_NF_LIMIT))
    b.ret(b.zext(b.icmp_unsigned("!=", b.bitcast(outside, _I16), ir.Constant(_I16, 0)),
                 ir.IntType(8)))
    return fn


def _strip_loop(x, y, out):
    """``powf_strip`` for arrays that are not C-contiguous: the element loop, which the
    vectoriser widens to calls of fj_powf_v16."""
    fix = False
    for c in range(x.size):
        out[c] = powf_avx512(x[c], y[c])
        fix = fix | pow_outside(x[c], y[c])
    return fix


@intrinsic
def powf_strip(typingctx, x, y, out):
    """out[i] = x[i]**y[i] for float32 arrays of one length, right where the returned flag is
    false; the flag is true where some pair is outside the domain (a subnormal x is inside) or
    has |y log2 x| past 200 (``_define_strip``). C-contiguous arrays: a call of fj_powf_strip,
    the whole loop in IR; others: the element loop over ``powf_avx512``, flagged by
    ``pow_outside``. Only where HOST_AVX512 holds."""
    arrays = (x, y, out)
    if not all(isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.float32
               for a in arrays):
        return None

    def codegen(context, builder, signature, args):
        if any(a.layout != "C" for a in signature.args):
            return context.compile_internal(builder, _strip_loop, signature, args)
        views = [context.make_array(a)(context, builder, v)
                 for a, v in zip(signature.args, args)]
        function = builder.module.globals.get("fj_powf_strip") or _define_strip(
            builder.module, views[0].data.type)
        count = builder.extract_value(views[0].shape, 0)
        flag = builder.call(function, [view.data for view in views] + [count])
        return builder.icmp_unsigned("!=", flag, ir.Constant(ir.IntType(8), 0))
    return types.boolean(x, y, out), codegen
