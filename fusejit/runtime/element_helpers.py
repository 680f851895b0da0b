"""The fixed helper functions of generated element and stage modules, compiled once.

``element_function`` and ``element_stage`` write a graph as a Numba function in a module of its
own; what NumPy's Numba lacks (sums and extrema along an axis, ``_grad_sum_to_size``, maps over
the kernels' vectorisable math, a list of arrays stacked) they call as helpers. The helpers'
text used to be part of every generated module, so each stage compiled its own copy of each
helper it called (and cached it again under its own file): in a process taking many first
gradients, the same few helpers compiled dozens of times. They are now one module
(``HELPERS_TEXT``, loaded through the kernel cache), whose functions generated modules import by
name (``import_line``), so a helper compiles once per process and signature, and once per
machine through Numba's disk cache.

The import line carries the hash of ``HELPERS_TEXT``: a generated module's cached code links the
helpers' code into its own, so a change to a helper must change the text (and the cache file) of
every module that calls it.
"""

from __future__ import annotations

import re
import types

import numpy as np

from ..ir.symbols import aten
from .fusion.templates import (
    fast_name,
    math_imports,
    math_modules,
    trig_limit,
    vector_function,
)

# The highest rank the helpers cover (``_grad_sum_to_size`` from each rank to each lower one):
# stages take arrays up to it (``element_stage``).
MAX_RANK = 4
# Unary maps on arrays written as loops over the kernels' vectorisable forms (``fast_name``):
# Numba's np.tanh calls libm element by element, ~10x NumPy's own SIMD loops.
FAST_MAPS = ("exp", "log", "tanh", "sigmoid", "expm1", "log1p", "log2", "log10", "sinh", "cosh",
             "asin", "acos", "atan", "asinh", "acosh", "atanh")
# sin, cos, tan: their fast forms hold for |x| up to a limit (``trig_limit``); the map then
# recomputes larger arguments with libm in a second loop, as fused kernels' fix-up does.
TRIG_MAPS = ("sin", "cos", "tan")
# Binary ones (by NumPy's name for the ufunc)
BINARY_MAPS = {"atan2": "arctan2", "hypot": "hypot"}



def _down_columns(fn: str, update: str) -> str:
    """``_{fn}_down(b, out, first)``: the columns of ``a`` as the rows of ``b = a.T`` (a
    Fortran-ordered or transposed ``a``), each reduced down its rows from ``first`` on into
    ``out``, in the rows' order (the same values as row by row), 8 columns (then 4, then 1) at
    a time: several chains in flight, reading a cache line of each. Row by row, each element
    read was a cache line: x.sum(axis=0) of a Fortran-ordered 1024 x 1024 float32 ran 0.04x
    NumPy; 8 at a time 1.04-1.07x (float32, float64)."""
    def block(width: int) -> str:
        ks = range(width)
        step = "".join(f"            s{k} = {update.format(s=f's{k}', v=f'c{k}[i]')}\n"
                       for k in ks)
        return (f"    while j + {width} <= cols:\n"
                + "".join(f"        c{k} = b[j + {k}]\n        s{k} = out[j + {k}]\n"
                          for k in ks)
                + "        for i in range(first, rows):\n" + step
                + "".join(f"        out[j + {k}] = s{k}\n" for k in ks)
                + f"        j += {width}\n")
    return (f"@njit(cache=True)\ndef _{fn}_down(b, out, first):\n"
            "    cols, rows = b.shape\n    j = 0\n" + block(8) + block(4) + block(1)
            + "    return out\n\n\n")


def _down_rows(fn: str, step: str, start: str, zero: bool = False) -> str:
    """``_{fn}_rows(a, out)``: ``out[j]`` = the rows of ``a`` reduced at column ``j`` in the
    rows' order by ``step`` (``{s}``: the value so far, ``{v}``: the row's element), the
    first row's element taken as ``start`` says (``zero``: which may read the argument
    ``zero``), reading up to 4 rows a pass over ``out``:
    the values of a pass per row, with a third of the passes over ``out``. A pass per row
    took 809 us for x.max(axis=0) of 4 x 10^6 float32 (NumPy 779), 4 rows at a time 557
    (sums: 835, NumPy 897, and 450 us; loops written by hand, one thread)."""
    def pass_(rows: int, first: bool) -> str:
        value = start.format(v="r0[j]") if first else "out[j]"
        for k in range(1 if first else 0, rows):
            value = step.format(s=value, v=f"r{k}[j]")
        return ("".join(f"        r{k} = a[i + {k}]\n" for k in range(rows))
                + f"        for j in range(n):\n            out[j] = {value}\n")

    text = (f"@njit(cache=True)\ndef _{fn}_rows(a, out{', zero' if zero else ''}):\n"
            "    m, n = a.shape\n    i = 0\n"
            "    first = min(m, 4)\n")
    for rows in range(4, 0, -1):
        text += f"    {'if' if rows == 4 else 'elif'} first == {rows}:\n" + pass_(rows, True)
    text += "    i = first\n    while i + 3 <= m:\n" + pass_(3, False) + "        i += 3\n"
    text += "    if m - i == 2:\n" + pass_(2, False) + "    elif m - i == 1:\n" + pass_(1, False)
    return text + "    return out\n\n\n"


# Reductions over one axis of a 2-d array, for what Numba's NumPy lacks (fixed text). Over
# axis 0 sums, maxima and minima run along the rows, up to 4 at a time (``_down_rows``), so
# that the inner loop reads rows and vectorises (columns of a.T are strided: a lone
# x.max(axis=0) of 1024 x 1024 float32 would run 6x slower than NumPy's), or down the columns
# where those are contiguous (``_down_columns``); they take NumPy's order, its NaN rule and
# its ties (np.maximum(a, b) is b where equal), so give its values. (Down the columns, maxima
# and minima are ``rowmath``'s, one instruction, which put 0.0 above -0.0 in a tie: a compare
# and select ran 0.36x NumPy, whose own loop along contiguous columns orders them its way.)
_AXIS_HELPERS = _down_columns("sum", "{s} + {v}") + "".join(
    _down_columns(fn, f"rm.{fn}imum({{s}}, {{v}})") for fn in ("max", "min")) + \
    _down_rows("sum", "({s} + {v})", "(zero + {v})", zero=True) + "".join(
        _down_rows(fn, f"_pick_{fn}({{s}}, {{v}})", "{v}") for fn in ("max", "min")) + \
    "".join(f'''@njit(cache=True)
def _pick_{fn}(o, v):
    t = o if o {op} v else v
    return o if o != o else t


''' for fn, op in (("max", ">"), ("min", "<"))) + '''@njit(cache=True)
def _sum0(a, zero):
    if a.shape[0] > 1 and a.shape[1] > 1 and abs(a.strides[0]) < abs(a.strides[1]):
        return _sum_down(a.T, np.full(a.shape[1], zero), 0)
    if a.shape[0] == 0:
        return np.full(a.shape[1], zero)
    return _sum_rows(a, np.empty(a.shape[1], type(zero)), zero)


''' + "".join(f'''@njit(cache=True)
def _{fn}0(a):
    if a.shape[0] == 0:
        raise ValueError("zero-size array to a reduction which has no identity")
    if a.shape[0] > 1 and a.shape[1] > 1 and abs(a.strides[0]) < abs(a.strides[1]):
        return _{fn}_down(a.T, a[0].copy(), 1)
    return _{fn}_rows(a, np.empty(a.shape[1], a.dtype))


''' for fn in ("max", "min")) + "".join(f'''@njit(cache=True)
def _{fn}2(a, axis):
    if axis == 0:
        return _{fn}0(a)
    if a.shape[1] == 0:     # (NumPy's error even where there are no rows)
        raise ValueError("zero-size array to a reduction which has no identity")
    out = np.empty(a.shape[0], a.dtype)
    for i in range(a.shape[0]):
        out[i] = np.{fn}(a[i])
    return out


''' for fn in ("max", "min")) + "".join(f'''@njit(cache=True)
def _{fn}2(a, axis):
    b = a if axis == 1 else a.T
    if b.shape[1] == 0:
        raise ValueError("attempt to get {fn} of an empty sequence")
    out = np.empty(b.shape[0], np.int64)
    for i in range(b.shape[0]):
        out[i] = np.{fn}(b[i])
    return out


''' for fn in ("argmax", "argmin")) + "".join(f'''@njit(cache=True, error_model="numpy")
def _{fn}2(a, axis, ddof):
    b = a if axis == 1 else a.T
    out = np.empty(b.shape[0], np.float64)
    n = b.shape[1]
    for i in range(b.shape[0]):
        row = b[i]
        total = 0.0
        for j in range(n):
            total = rm.add(total, np.float64(row[j]))
        mean = total / n
        squares = 0.0
        for j in range(n):
            d = np.float64(row[j]) - mean
            squares = rm.add(squares, d * d)
        out[i] = {"np.sqrt" if fn == "std" else ""}(squares / max(n - ddof, 0))
    return out


''' for fn in ("var", "std")) + "".join(f'''@njit(cache=True)
def _{fn}_all(a):
    flat = np.ascontiguousarray(a).reshape(a.size)
    if flat.size == 0:
        raise ValueError("zero-size array to reduction operation {fn}imum which has no identity")
    # (NaN wins; of mixed zeros, 0.0 for max and -0.0 for min, as the fused row kernels give
    # them: NumPy's depends on where its SIMD lanes put them)
    top = flat[0]
    for i in range(1, flat.size):
        top = rm.{fn}imum(top, flat[i])
    return top


''' for fn in ("max", "min")) + "".join(f'''@njit(cache=True)
def _{fn}2(a, axis):
    b = a if axis == 1 else a.T
    out = np.empty(b.shape[0], np.bool_)
    for i in range(b.shape[0]):
        out[i] = np.{fn}(b[i])
    return out


''' for fn in ("any", "all"))


_LIST_HELPERS = """@njit(cache=True)
def _stack_list(items):
    out = np.empty((len(items),) + items[0].shape, items[0].dtype)
    for i in range(len(items)):
        out[i] = items[i]
    return out


@njit(cache=True)
def _stack_numbers(items, zero):
    if len(items) == 0:
        raise ValueError("need at least one array to stack")
    out = np.empty(len(items), type(zero))
    for i in range(len(items)):
        out[i] = items[i]
    return out


@njit(cache=True)
def _one_element(x):
    if x.size != 1:
        raise ValueError("cannot reshape an array of another size into shape ()")


"""


def _sum_to_size_helper(rank_in: int, rank_out: int) -> str:
    """``_grad_sum_to_size`` from rank ``rank_in`` to ``rank_out`` (PyTorch's ``sum_to``):
    the leading dims summed away, then each dim the size has as 1 summed keeping it."""
    lines = [f"@njit(cache=True)\ndef _sum_to_size_{rank_in}_{rank_out}(x, size):",
             "    y0 = np.ascontiguousarray(x)"]
    lead = rank_in - rank_out
    for k in range(lead):   # (one name per rank: Numba types each variable once)
        lines.append(f"    y{k + 1} = _sum_lead(y{k})")
    lines.append(f"    z = np.ascontiguousarray(y{lead})")
    if rank_out == 1:   # (a 1-d sum over its only axis is a number)
        lines += ["    if size[0] == 1 and z.shape[0] != 1:",
                  "        z = np.full(1, z.sum(), z.dtype)"]
    for d in range(rank_out if rank_out > 1 else 0):
        shape = "".join("1, " if k == d else f"z.shape[{k}], " for k in range(rank_out))
        lines += [f"    if size[{d}] == 1 and z.shape[{d}] != 1:",
                  f"        z = z.sum(axis={d}).reshape(({shape}))"]
    return "\n".join(lines) + "\n    return z\n\n\n"


def map_name(kind: str, dtype: np.dtype) -> str:
    return f"_map_{kind}_{dtype.name}"


def _map_helper(kind: str, dtype: np.dtype) -> str:
    """``kind`` of each element of an array, through its vectorisable form (for sin, cos and
    tan, then libm's where |x| is beyond the form's limit)."""
    fn = fast_name(getattr(aten, kind), dtype)
    fix = f"""    for i in range(x.size):
        if abs(flat[i]) > {trig_limit(dtype)}:
            out[i] = math.{kind}(flat[i])
""" if kind in TRIG_MAPS else ""
    return f"""@njit(cache=True, error_model="numpy")
def {map_name(kind, dtype)}(x):
    flat = np.ascontiguousarray(x).reshape(x.size)
    out = np.empty(x.size, flat.dtype)
    for i in range(x.size):
        out[i] = {fn}(flat[i])
{fix}    return out.reshape(x.shape)


"""


# The sum over axis 0 of any rank, as a loop over rows that vectorises (Numba's sum(axis=)
# does not).
_SUM_LEAD = """@njit(cache=True, error_model="numpy")
def _sum_lead(x):
    out = np.zeros(x.shape[1:], x.dtype)
    for i in range(x.shape[0]):
        out += x[i]
    return out


"""

# acc += x for C-ordered acc of x's shape, as one flat loop (Numba's += on arrays is a generic
# broadcasting loop, several times slower here).
_ACCUMULATE = """@njit(cache=True, error_model="numpy")
def _accumulate(acc, x):
    if acc.shape != x.shape:
        raise ValueError("accumulating a gradient of another shape")
    flat = acc.reshape(acc.size)
    other = np.ascontiguousarray(x).reshape(x.size)
    for i in range(flat.size):
        flat[i] += other[i]


"""

# np.convolve's full convolution (Numba's own took 4.2 us for 50 by 10 elements, NumPy's 1.2):
# each element of the shorter operand adds its multiple of the longer into its stretch of the
# output, an inner loop LLVM vectorises; NumPy's errors for an empty operand. (The operands come
# in the result's dtype.)
_CONVOLVE = """@njit(cache=True)
def _convolve(a, v):
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n = a.shape[0]
    out = np.zeros(n + v.shape[0] - 1, a.dtype)
    for j in range(v.shape[0]):
        vj = v[j]
        for i in range(n):
            out[i + j] += a[i] * vj
    return out


"""

# np.unique's values, first positions, inverse (in the array's shape, as NumPy 2's) and
# counts: the flattened array in its stable order (NumPy's with return_index), each run of equal
# values one entry (``_run_starts``), NaNs one run (NumPy's equal_nan). Numba's np.unique keeps
# every NaN and has none of the others. Without positions (values, counts): the values sorted
# as they are, as NumPy sorts them then, about twice as fast as the stable order of positions.
_UNIQUE = """@njit(cache=True)
def _run_starts(s):
    n = s.size
    runs = 0
    for i in range(n):
        if i == 0 or not (s[i] == s[i - 1] or s[i] != s[i] and s[i - 1] != s[i - 1]):
            runs += 1
    starts = np.empty(runs, np.int64)
    run = 0
    for i in range(n):
        if i == 0 or not (s[i] == s[i - 1] or s[i] != s[i] and s[i - 1] != s[i - 1]):
            starts[run] = i
            run += 1
    return starts


# The distinct values of a from order, an argsort of it flattened: the values, where each
# starts in the sorted order, the inverse (in a's shape) and the counts.
@njit(cache=True)
def _unique_in_order(a, order):
    s = a.ravel()[order]
    starts = _run_starts(s)
    counts = np.diff(np.append(starts, s.size))
    inverse = np.empty(s.size, np.int64)
    inverse[order] = np.repeat(np.arange(starts.size), counts)
    return s[starts], starts, inverse.reshape(a.shape), counts


@njit(cache=True)
def _unique_all(a):
    order = np.argsort(a.ravel(), kind="mergesort")     # (stable: the first positions)
    values, starts, inverse, counts = _unique_in_order(a, order)
    return values, order[starts], inverse, counts


@njit(cache=True)
def _unique_inverse(a):
    values, _, inverse, counts = _unique_in_order(a, np.argsort(a.ravel()))
    return values, inverse, counts


@njit(cache=True)
def _unique_counts(a):
    s = np.sort(a.ravel())
    starts = _run_starts(s)
    return s[starts], np.diff(np.append(starts, s.size))


"""

# NumPy's float floor division (npy_floor_divide: from fmod, rounded to the nearest integer
# quotient), which Numba's np.floor_divide is not: it takes floor(a / b), so float32
# 3 // 0.3 is 10 there (NumPy and Python: 9) and inf // 0.3 is inf (NumPy: nan). One per
# dtype, its constants of that dtype (a float64 literal would make the float32 one float64);
# compiled on first use.
_FLOOR_DIVIDE = "".join(f"""@vectorize(cache=True)
def _floor_divide_{t}(a, b):
    if b == 0:
        return np.divide(a, b)
    mod = np.fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and (b < 0) != (mod < 0):
        div -= np.{t}(1)
    if div == 0:
        return np.copysign(div, np.divide(a, b))
    floor = np.floor(div)
    if div - floor > np.{t}(0.5):
        floor += np.{t}(1)
    return floor


""" for t in ("float32", "float64"))

# np.argsort of a float vector by NumPy's default kind (or heapsort), whose order of equal
# values is its algorithm's: the stable order where all values differ (then the only order;
# one NaN goes last, as NumPy puts it), else an error, and the call reruns on the interpreter
# (NumPy's own sort: equal values, -0.0 and 0.0, several NaN).
_ARGSORT_DISTINCT = """@njit(cache=True)
def _argsort_distinct(x):
    order = np.argsort(x, kind="mergesort")
    for i in range(1, order.size):
        a, b = x[order[i - 1]], x[order[i]]
        if not (a < b or b != b and a == a):
            raise ValueError("equal values: NumPy's sort orders them")
    return order


"""

# x[mask] for a bool mask of x's shape: the elements where it is true, in C order (a mask of
# another shape is NumPy's IndexError: raised here, and the call reruns on the interpreter)
_MASK_GATHER = """@njit(cache=True)
def _mask_gather(x, mask):
    if x.shape != mask.shape:
        raise IndexError("boolean index did not match indexed array")
    flat = np.ascontiguousarray(x).reshape(x.size)
    picks = np.ascontiguousarray(mask).reshape(mask.size)
    count = 0
    for i in range(picks.size):
        if picks[i]:
            count += 1
    out = np.empty(count, flat.dtype)
    k = 0
    for i in range(picks.size):
        if picks[i]:
            out[k] = flat[i]
            k += 1
    return out


"""

# x[mask] = values for a bool mask of x's shape: the elements where it is true, in C order,
# take the values, one each (or the one value, all); a mask of another shape, or a count of
# values neither that nor 1, is NumPy's error: raised here, and the call reruns on the
# interpreter, which raises it
_MASK_PUT = """@njit(cache=True)
def _mask_put(x, mask, values):
    if x.shape != mask.shape:
        raise IndexError("boolean index did not match indexed array")
    picks = np.ascontiguousarray(mask).reshape(mask.size)
    count = 0
    for i in range(picks.size):
        if picks[i]:
            count += 1
    if values.size != count and values.size != 1:
        raise ValueError("NumPy boolean array indexing assignment cannot assign")
    step = 1 if values.size == count else 0
    k = 0
    i = 0
    for index in np.ndindex(x.shape):
        if picks[i]:
            x[index] = values[k]
            k += step
        i += 1


"""

# x[...] = np.where(mask, v, x), a masked store (x[m] = v[m], x[m] = 3): the elements where the
# mask holds take v's, in one pass that reads v only there, as NumPy's own masked assignment
# touches only them (the where and the copy were two passes over all of x: a peak-tracking
# loop on 3000 elements ran at 0.4x NumPy). Shapes that differ, or a v whose memory may
# overlap x's, take the where (computed whole before x is written).
_MASKED_COPY = """@njit(cache=True)
def _extent(a):
    lo = a.ctypes.data
    hi = lo
    for k in range(a.ndim):
        span = (a.shape[k] - 1) * a.strides[k]
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi + a.itemsize


@njit(cache=True)
def _apart(a, b):
    if a.size == 0 or b.size == 0:
        return True
    a_lo, a_hi = _extent(a)
    b_lo, b_hi = _extent(b)
    return b_hi <= a_lo or a_hi <= b_lo


@njit(cache=True)
def _masked_copy(x, mask, v):
    if x.size == 0:
        return
    if mask.shape != x.shape or v.shape != x.shape or not _apart(x, v):
        x[...] = np.where(mask, v, x)
    elif x.ndim == 1:
        for i in range(x.shape[0]):
            if mask[i]:
                x[i] = v[i]
    else:
        for index in np.ndindex(x.shape):
            if mask[index]:
                x[index] = v[index]


@njit(cache=True)
def _masked_fill(x, mask, value):
    if mask.shape != x.shape:
        x[...] = np.where(mask, value, x)
    elif x.ndim == 1:
        for i in range(x.shape[0]):
            if mask[i]:
                x[i] = value
    else:
        for index in np.ndindex(x.shape):
            if mask[index]:
                x[index] = value


"""

# Integer floor division and remainder of two numbers by a divisor known only when it runs:
# by 0 the interpreter's error (raised here, and the call reruns there); by -1 the negation
# (C's INT_MIN / -1 traps) and 0; else Python's floor and the divisor's sign, as NumPy's.
# Arrays divided by arrays of divisors: NumPy's floor_divide and remainder (Numba's compute
# NumPy's values) of the divisors checked first (_int_divisors):
# a 0 or a -1 among them raises, and the call reruns on the interpreter, which raises or
# computes them as NumPy does.
_INT_DIVIDE = """@njit(cache=True)
def _int_floordiv(a, b):
    if b == 0:
        raise ZeroDivisionError("integer division by zero")
    if b == -1:
        return -a
    return a // b


@njit(cache=True)
def _int_mod(a, b):
    if b == 0:
        raise ZeroDivisionError("integer modulo by zero")
    if b == -1:
        return a - a
    return a % b


@njit(cache=True)
def _int_divisors(b):
    for v in b.ravel():
        if v == 0 or v == -1:
            raise ZeroDivisionError("integer division by zero or -1")
    return b


"""

# NumPy's float sums (pairwise_sum in loops_utils.h): under 8 elements one by one, up to 128
# in 8 running sums, above that the two halves (cut at a multiple of 8) summed alike; a
# whole-array sum is 0 plus that of the C-ordered elements, a row sum 0 plus that of the row.
# Written out so that float32 sums round as NumPy's do (a float64 sum is more accurate but not
# NumPy's answer) and float64 ones are NumPy's too (Numba's np.sum adds one by one).
_PAIRWISE = """@njit(cache=True, error_model="numpy")
def _block_sum(a, lo, n):
    if n < 8:   # (n >= 1: NumPy starts from -0.0, and -0.0 + x is x)
        res = a[lo]
        for i in range(lo + 1, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    end = lo + n - n % 8
    for i in range(lo + 8, end, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(end, lo + n):
        res += a[i]
    return res


@njit(cache=True, error_model="numpy")
def _pairwise(a, lo, n):
    if n <= 128:
        return _block_sum(a, lo, n)
    # NumPy's recursion, with stacks: a recursive function (native.tensor_ops._pairwise)
    # called from here aborts the process with "LLVM ERROR: Symbol not found" once cached;
    # a segment is split once (flag 1), then its halves' two sums are added
    starts = np.empty(256, np.int64)
    sizes = np.empty(256, np.int64)
    split = np.zeros(256, np.bool_)
    sums = np.empty(256, a.dtype)
    top, count = 0, 0
    starts[0], sizes[0], split[0] = lo, n, False
    while top >= 0:
        start, size = starts[top], sizes[top]
        if split[top]:
            top -= 1
            sums[count - 2] = sums[count - 2] + sums[count - 1]
            count -= 1
        elif size <= 128:
            top -= 1
            sums[count] = _block_sum(a, start, size)
            count += 1
        else:
            split[top] = True
            half = size // 2
            half -= half % 8
            starts[top + 1], sizes[top + 1], split[top + 1] = start + half, size - half, False
            starts[top + 2], sizes[top + 2], split[top + 2] = start, half, False
            top += 2
    return sums[0]


@njit(cache=True, error_model="numpy")
def _sum_pw(a):
    flat = np.ascontiguousarray(a).reshape(a.size)
    zero = np.zeros(1, flat.dtype)
    if a.size == 0:
        return zero[0]
    return zero[0] + _pairwise(flat, 0, a.size)


@njit(cache=True)
def _count_rows(a):
    # (rows of bools or small integers: exact int64 sums, which float64 holds exactly, so
    # any order is NumPy's pairwise sum of them cast to float64, with no float64 copy)
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        total = 0
        for j in range(a.shape[1]):
            total += np.int64(a[i, j])
        out[i] = total
    return out


@njit(cache=True, error_model="numpy")
def _sum_rows_pw(a):
    rows = np.ascontiguousarray(a)
    out = np.zeros(rows.shape[0], rows.dtype)
    for i in range(rows.shape[0]):
        if rows.shape[1]:
            out[i] += _pairwise(rows[i], 0, rows.shape[1])
    return out


# Running sums and products along one axis of a matrix, one by one along it: NumPy's order
@njit(cache=True, error_model="numpy")
def _cum2(a, axis, product):
    out = np.empty(a.shape, a.dtype)
    rows, cols = a.shape
    if axis == 0:
        if rows:
            out[0] = a[0]
        for i in range(1, rows):
            out[i] = out[i - 1] * a[i] if product else out[i - 1] + a[i]
    else:
        for i in range(rows):
            if cols:
                out[i, 0] = a[i, 0]
            for j in range(1, cols):
                out[i, j] = out[i, j - 1] * a[i, j] if product else out[i, j - 1] + a[i, j]
    return out


# np.maximum.accumulate and np.minimum.accumulate of a vector, or along one axis of a matrix:
# each step NumPy's maximum (or minimum) of the running value and the next element
# (_max_nan0, _min_nan0 below: of equal values the later, -0.0 or 0.0; NaN from there on)
@njit(cache=True, error_model="numpy")
def _running1(a, largest):
    out = np.empty(a.shape, a.dtype)
    if a.shape[0]:
        m = a[0]
        out[0] = m
        for i in range(1, a.shape[0]):
            m = _max_nan0(m, a[i]) if largest else _min_nan0(m, a[i])
            out[i] = m
    return out


@njit(cache=True, error_model="numpy")
def _running2(a, axis, largest):
    out = np.empty(a.shape, a.dtype)
    if axis == 1:
        for r in range(a.shape[0]):
            out[r] = _running1(a[r], largest)
    elif a.shape[0]:
        out[0] = a[0]
        for i in range(1, a.shape[0]):
            for j in range(a.shape[1]):
                m, x = out[i - 1, j], a[i, j]
                out[i, j] = _max_nan0(m, x) if largest else _min_nan0(m, x)
    return out


# NumPy's maximum/minimum of 0-d values (below): NaN from either operand, and b where they
# are equal (np.maximum(-0.0, 0.0) is 0.0; Python's max gives a, and drops a NaN b).
#
# An int clip bound of an int array, in the array's range: one beyond it on the side where
# it binds nothing is NumPy's dropped bound (np.clip(uint8_array, -3, 3)); beyond it on the
# other side NumPy raises, and so does this (the interpreter then gives the error)
@njit(cache=True)
def _int_bound(v, lo, hi, low):
    if (v > hi) if low else (v < lo):
        raise OverflowError("a clip bound out of the array's range")
    return max(v, lo) if low else min(v, hi)


""" + "".join(f"""@njit(cache=True)
def _{fn[:3]}_nan0(a, b):
    return a if (a {op} b or a != a) else b


""" for fn, op in (("maximum", ">"), ("minimum", "<")))


# A vector's running sum and product, one by one from the first element (NumPy's order)
_RUNNING = "".join(f"""@njit(cache=True, error_model="numpy")
def _{fn}(a):
    flat = np.ascontiguousarray(a).reshape(a.size)
    out = np.empty(a.size, flat.dtype)
    if a.size:
        out[0] = flat[0]     # (not 0 + x[0]: NumPy's cumsum of -0.0 is -0.0)
    for i in range(1, a.size):
        out[i] = out[i - 1] {op} flat[i]
    return out


""" for fn, op in (("cumsum", "+"), ("cumprod", "*")))


def _binary_map_helper(kind: str, dtype: np.dtype) -> str:
    """``kind`` of two arrays of one rank and dtype, element by element through its
    vectorisable form where their shapes are equal, else NumPy's broadcasting ufunc (Numba's
    np.arctan2 of 500 float64 pairs took 6.9 us, NumPy's 1.5)."""
    fn = vector_function(f"{kind}_{'f32' if dtype == np.float32 else 'f64'}")
    return f"""@njit(cache=True, error_model="numpy")
def {map_name(kind, dtype)}(y, x):
    if y.shape != x.shape:
        return np.{BINARY_MAPS[kind]}(y, x)
    a = np.ascontiguousarray(y).reshape(y.size)
    b = np.ascontiguousarray(x).reshape(x.size)
    out = np.empty(y.size, a.dtype)
    for i in range(y.size):
        out[i] = {fn}(a[i], b[i])
    return out.reshape(y.shape)


"""


# x += v of arrays, x and v of one dtype: Numba's in-place operator, with no new array (a 3x3
# box sum of 100 x 100 float64, nine acc += img[i:i + h, j:j + w], took 76 us as acc[...] = acc
# + v, 30 as acc += v; NumPy 41). Numba's operator broadcasts a (6, n) v into a (1, n) x, where
# NumPy raises, and reads a v overlapping x after writing it: such a v takes the store of a
# new value (x[...] = x + v), which raises NumPy's ValueError and reads v first. The in-place
# update is a function of its own: written in ``_add_into`` beside that branch, it ran 1.7x
# slower (2004 x 2000 float32 += a strided view: 2.2 ms against 1.3; NumPy 1.2).
def _update_helper(name: str, symbol: str) -> str:
    return f"""@njit(cache=True)
def _{name}_in_place(x, v):
    x {symbol}= v


@njit(cache=True)
def _{name}_into(x, v):
    fits = v.ndim <= x.ndim
    if fits:
        for k in range(1, v.ndim + 1):
            if v.shape[v.ndim - k] != 1 and v.shape[v.ndim - k] != x.shape[x.ndim - k]:
                fits = False
    if fits and _apart(x, v):
        _{name}_in_place(x, v)
    else:
        x[...] = x {symbol} v


"""


# np.where(c, a, b) of arrays: a ufunc, which Numba's array expressions fuse with the
# comparisons and arithmetic around it into one loop, where np.where makes an array of its
# own each time (np.sign as three nested selects, 2000 float64: 6.3 us, as _pick 1.1 us).
# Its two values come in the result's dtype (``element_function._where``).
_PICK = """@vectorize(cache=True)
def _pick(c, a, b):
    return a if c else b


"""


_UPDATES = "".join(_update_helper(name, symbol) for name, symbol in (
    ("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")))


_MAP_HELPERS = "".join(_map_helper(k, np.dtype(d)) for k in FAST_MAPS + TRIG_MAPS
                       for d in ("float32", "float64")) + "".join(
    _binary_map_helper(k, np.dtype(d)) for k in BINARY_MAPS for d in ("float32", "float64"))
# The imports of the maps' math (stage modules import them too: their Regions call it)
MATH_IMPORTS = "".join(f"{line}\n" for line in math_imports(math_modules(_MAP_HELPERS)))
HELPERS_TEXT = (
    "import math\n\nimport numpy as np\nfrom numba import vectorize\n"
    "from fusejit.runtime.element_jit import helper_jit as njit\n"
    "from fusejit.runtime.fusion import rowmath as rm\n" + MATH_IMPORTS + "\n\n"
    + _AXIS_HELPERS + _LIST_HELPERS + _SUM_LEAD + _ACCUMULATE + _CONVOLVE + _UNIQUE
    + _FLOOR_DIVIDE + _INT_DIVIDE + _ARGSORT_DISTINCT + _MASK_GATHER + _MASK_PUT + _MASKED_COPY
    + _UPDATES + _PICK + _PAIRWISE + _RUNNING
    + "".join(_sum_to_size_helper(i, o) for i in range(1, MAX_RANK + 1)
              for o in range(1, i + 1))
    + _MAP_HELPERS)
NAMES = tuple(re.findall(r"^def (\w+)\(", HELPERS_TEXT, re.MULTILINE))


_loaded: dict[str, types.ModuleType] = {}   # kernels directory -> the module


def helpers_module() -> types.ModuleType:
    """The module of ``HELPERS_TEXT`` for the current cache directory (held here, not only in
    the kernel cache's LRU: its dispatchers keep what they compiled for the process)."""
    from .fusion.cache import kernels_dir, load_module

    key = str(kernels_dir())
    if key not in _loaded:
        _loaded[key] = load_module(HELPERS_TEXT)
    return _loaded[key]


def import_line() -> str:
    """The line a generated module imports the helpers with (see the module's docstring)."""
    from .fusion.cache import source_hash

    return (f"from fusejit.runtime.element_helpers import {', '.join(NAMES)}"
            f"  # helpers {source_hash(HELPERS_TEXT)}\n")


def __getattr__(name: str):
    """A helper's dispatcher, for ``import_line``'s import (PEP 562)."""
    if name in NAMES:
        return getattr(helpers_module(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BINARY_MAPS", "FAST_MAPS", "HELPERS_TEXT", "MATH_IMPORTS", "MAX_RANK", "NAMES",
           "helpers_module", "import_line", "map_name"]
