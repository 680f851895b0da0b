"""NumPy 2's result dtypes (NEP 50) for one-line NumPy programs, differentially against NumPy.

Each case is an expression over ``a`` (and ``b``), scripted for its arguments' types as
``fusejit.jit`` scripts it and run on the reference interpreter: the dtype rules are the
frontend's, and the fused engines run the same typed graph (``tools/numpy_dtype_diff.py
--fused`` takes a larger table through them; kernels cost compile time). The result must equal
NumPy's in dtype, shape and value, or be refused with a ``FusejitError``; never a different
dtype. No Numba compile: the 412 cases take a few seconds.

The rules at stake: Python numbers are weak (``f32 * 2.5`` is float32), NumPy scalars are
strong (``f32 * np.float64(2)`` and ``f32 / np.sqrt(n)`` are float64; so is a global
``np.float32`` constant with an int8 array: float32), ints divide to float64, and functions
keep NumPy's own dtype (``np.where(c, 1.0, 0.0)`` float64, ``np.round`` of ints ints,
``np.dot`` of int32 int32, ``np.linalg.norm`` of ints float64). Where NumPy raises whatever
the values (``int8_array + 300``, ``np.positive`` of bools), fusejit must raise too.
"""

from __future__ import annotations

import linecache
import warnings

import numpy as np
import pytest

import fusejit
from fusejit.frontend.jit import _convert, argument_ir_type
from fusejit.frontend.script import script
from fusejit.runtime.executor import compile as compile_graph

from .numpy_programs import assert_same

HALF = np.float32(0.5)   # a NumPy scalar global: strong, as NumPy's


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    ints = rng.integers(-9, 9, (3, 4))
    return {"f32": (rng.standard_normal((3, 4)) * 3).astype(np.float32),
            "f64": rng.standard_normal((3, 4)) * 3, "i32": ints.astype(np.int32),
            "i64": ints, "i8": ints.astype(np.int8), "u8": np.abs(ints).astype(np.uint8),
            "b": ints > 0, "u16": rng.integers(0, 1 << 16, (3, 4)).astype(np.uint16),
            "u32": rng.integers(0, 1 << 32, (3, 4), dtype=np.uint32),
            # (half of them 2**63 or more: int64 would see them negative)
            "u64": rng.integers(0, 1 << 64, (3, 4), dtype=np.uint64)}


ARRAYS = _arrays()
_count = iter(range(1 << 30))


def _function(expression: str, params: str):
    """``def f(params): return expression``, with its source where ``inspect`` finds it."""
    file = f"<dtype rule {next(_count)}>"
    text = f"def f({params}):\n    return {expression}\n"
    linecache.cache[file] = (len(text), None, text.splitlines(True), file)
    scope = {"np": np, "HALF": HALF}
    exec(compile(text, file, "exec"), scope)
    return scope["f"]


def _interpreted(fn, args: tuple):
    """``fn`` scripted for ``args``' types as ``fusejit.jit`` does, on the reference loop."""
    args = tuple(_convert(a) for a in args)
    types = [argument_ir_type(f"a{i}", a) for i, a in enumerate(args)]
    return compile_graph(script(fn, types), engine="reference")(*args)


# (expression, dtypes of a and b): weak Python numbers, strong NumPy scalars, mixed arrays.
SCALARS = ["2", "2.5", "True", "np.float64(2)", "np.float32(2)", "np.int64(2)", "np.int32(3)",
           "np.sqrt(2)", "HALF", "np.float32(a.shape[0])", "np.sqrt(a.shape[1])",
           "float(np.sqrt(2))", "-np.float32(2)", "np.float64(2) + 1"]
CASES = [(f"a {op} {s}", d) for d in ("f32", "i32", "i8", "u8", "b") for s in SCALARS
         for op in ("*", "/")]
CASES += [(f"{s} - a", d) for d in ("f32", "i8") for s in SCALARS]
CASES += [(f"a {op} b", (d, e)) for d in ("f32", "i32", "u8", "b")
          for e in ("f64", "i64", "i8", "b") for op in ("+", "/", "//")]
CASES += [(e, d) for d in ("f32", "i32", "i8", "b") for e in (
    "a @ a.T / np.sqrt(a.shape[1])", "a / len(a)", "a.sum()", "a.prod(axis=0)", "a.mean()",
    "a.max()", "np.sum(a > 0)", "np.mean(a > 0)", "a ** 2", "np.square(a)", "np.power(a, 2)",
    "np.where(a > 0, 1.0, 0.0)", "np.where(a > 0, 1, 0)", "np.where(a > 0, a, np.float64(0))",
    "np.clip(a, 0.5, 2.5)", "np.clip(a, 0, 1)", "np.maximum(a, np.float32(0.5))",
    "np.minimum(a, 2)", "np.round(a)", "np.dot(a[0], a[1])", "np.einsum('ij,ij->i', a, a)",
    "np.linalg.norm(a)", "np.stack([a, a.astype(np.float64)])", "a.astype(np.int32) + 0.5",
    "np.concatenate([a, a.astype(np.int64)])", "np.zeros_like(a) + 1", "np.full(a.shape, 3)",
    "np.arange(a.shape[0]) * 0.5", "np.abs(a) < 2", "np.trace(a)", "a.cumsum(axis=1)",
    # Python's own arithmetic: bools are ints, int ** int is an int; out-of-range ints refused
    "a - True", "a * a.shape[0] ** 2", "a + 2 ** 40", "a + 300", "a * np.uint8(3)",
    "np.int8(3) * a", "np.int16(a)", "np.positive(a)",
    # a NumPy scalar returned: its dtype (a 0-d array of it where a Python number has another)
    "np.float32(a.shape[0])", "np.int32(a.shape[1]) * 2", "np.sqrt(a.shape[0])",
    "np.full(a.shape, HALF)", "np.full(a.shape, a.shape[0])", "np.abs(a)", "np.floor(a)",
    # comparisons with NumPy scalars are made in their common dtype, Python numbers' not
    "np.full(a.shape, np.float32(0.1)) == np.float64(0.1)",
    "np.full(a.shape, np.float32(0.1)) == 0.1", "a < np.float32(2.5)")]

# unsigned arrays: wrapping arithmetic, NumPy's uint64 sums and products, shifts, uint64 numbers
# beyond int64, comparisons with any Python int (exact), and mixed with signed and float arrays
CASES += [(e, d) for d in ("u8", "u16", "u32", "u64") for e in (
    "a + 1", "a - 1", "a * 3", "a // 3", "a % 7", "a / 2", "a * 2.5", "a >> 2", "a << 3",
    "a & 0xF", "a | 1", "~a", "-a", "abs(a)", "a ** 2", "a.sum()", "a.sum(axis=0)", "a.prod()",
    "a.prod(axis=1)", "np.cumsum(a)", "a.cumsum(axis=1)", "np.cumprod(a, axis=0)", "a.mean()",
    "a.std()", "a.max(axis=1)", "a.argmax()", "a > 2", "a > -1", "a <= -3", "a == 2 ** 40",
    "a != 2 ** 63", "a < 2 ** 64", "np.maximum(a, 7)", "np.where(a > 9, a, 0)",
    "a.astype(np.float32)", "a.astype(np.int64)", "np.sort(a, axis=1)", "a + a.shape[0]",
    "a * np.uint64(0x9E3779B97F4A7C15)", "a ^ np.uint32(0xDEADBEEF)", "a > 2 ** 63",
    "a + np.uint8(200)", "a[0, 1] + 1", "a[1, 2] > 5", "a[2, 3] * np.uint64(3)")]
CASES += [(f"a {op} b", (d, e)) for d in ("u16", "u32", "u64")
          for e in ("u8", "i64", "f32", "u64") for op in ("+", "*", "//", ">", "==")]


@pytest.mark.parametrize("expression, dtypes", CASES, ids=[f"{e} {d}" for e, d in CASES])
def test_result_dtype_shape_and_value_are_numpys(expression, dtypes):
    dtypes = (dtypes,) if isinstance(dtypes, str) else dtypes
    params = ", ".join("ab"[:len(dtypes)])
    fn = _function(expression, params)
    args = tuple(ARRAYS[d].copy() for d in dtypes)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = fn(*args)
    except Exception:  # noqa: BLE001 - NumPy refuses it: fusejit must too
        with pytest.raises(fusejit.FusejitError):
            _interpreted(fn, args)
        return
    try:
        with np.errstate(all="ignore"):
            got = _interpreted(fn, args)
    except fusejit.FusejitError:
        return   # refused, with its message: allowed, a different answer is not
    assert_same(got, want)


def test_a_python_number_made_from_a_numpy_scalar_is_weak_again():
    """``float(np.sqrt(2))`` is a Python float: float32 stays float32; the NumPy scalar
    beside it still makes float64 (one value of the scripted code each)."""
    def f(x):
        s = np.sqrt(2)
        return x * float(s), x * s

    x = ARRAYS["f32"]
    got = _interpreted(f, (x,))
    assert [g.dtype for g in got] == [np.float32, np.float64]
    assert_same(got, f(x))


def accumulate(a):
    s = np.float32(0)        # a float32 NumPy scalar carried through the loop
    t = 0                    # a Python int that becomes a float32 NumPy scalar in it
    for i in range(a.shape[0]):
        s = s + a[i, 0]
        t = t + np.float32(i)
    return s, a * t, np.cov(a), np.polyval(a[0], 2), a.sum(dtype=np.int32)


@pytest.mark.parametrize("dtype", ["b", "i8", "f32"])
def test_numpy_scalars_carried_by_loops_and_shims_keep_numpys_dtypes(dtype):
    a = ARRAYS[dtype]
    assert_same(_interpreted(accumulate, (a,)), accumulate(a))


def narrowed_in_a_loop(b):
    for _ in range(3):
        b = b.astype(np.uint8) + 200        # float32 before the loop, uint8 in it
    b += b
    return np.log1p(np.abs(b))              # NumPy: float16 of a uint8


def swapped_in_a_loop(a, b):
    t = 0
    for _ in range(2):
        b, a = a, b + a                     # b: bool, then float32
        t -= b.sum()                        # t: int, np.int64, then np.float64
    return t, a, b


def swapped_then_written(a, b):
    for _ in range(1):
        b = a.astype(np.int32) * 100000000
        b, a = a, b                         # a: float64 before, int32 after
    a[::-1] += a
    return a, b


def cast_for_n_steps(x, n):
    for _ in range(n):
        x = (x * 3).astype(np.int32) % 7     # float64 before, int32 from the first step
    return x * 0.5, x // 2


def cast_while_small(x):
    k = 0
    while k < 4:
        x = x.astype(np.float32) * np.float32(1.5)
        k += 1
    return x, x + 1e-8


def alternating(x, y, n):
    for _ in range(n):
        x, y = y, x                         # float64 and int32, swapped each step
    return x + 1, y


def alternating_twice(x, y):
    for _ in range(2):
        x, y = y, x
    return x + 1, y


_CHANGES = [
    (narrowed_in_a_loop, lambda: (np.linspace(0.0, 40.0, 37, dtype=np.float32),)),
    (narrowed_in_a_loop, lambda: (np.linspace(0.0, 40.0, 5000, dtype=np.float32),)),
    (swapped_in_a_loop, lambda: (np.arange(37) % 3 == 0, np.linspace(-2, 2, 37,
                                                                      dtype=np.float32))),
    (swapped_in_a_loop, lambda: (np.arange(5000) % 3 == 0, np.linspace(-2, 2, 5000,
                                                                         dtype=np.float32))),
    (swapped_then_written, lambda: (np.linspace(-3, 3, 132).reshape(12, 11),
                                    np.zeros((12, 11)))),
    (cast_for_n_steps, lambda: (np.linspace(0.0, 9.0, 37), 4)),
    (cast_for_n_steps, lambda: (np.linspace(0.0, 9.0, 5000), 1)),
    (cast_while_small, lambda: (np.linspace(0.0, 1.0, 37),)),
    (alternating_twice, lambda: (np.linspace(0.0, 1.0, 37), np.arange(37, dtype=np.int32))),
]


@pytest.mark.parametrize("fn, make", _CHANGES,
                         ids=[f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(_CHANGES)])
def test_a_loop_that_changes_a_dtype_computes_each_iteration_in_numpys_dtypes(fn, make):
    """A variable whose dtype the loop's body changes (``x = x.astype(np.uint8) + 200`` on a
    float32 ``x``; arrays of two dtypes swapped; a Python int that the loop makes an
    np.int64 and then an np.float64): the loop's first iterations are emitted on their own
    until the dtypes hold still (``loops._peeled``). Before, the loop's value had no dtype
    after it, and PyTorch's rules typed what followed: float32 where NumPy gives float16 or
    float64, and a TypeError for ``a[::-1] += a``. Every call compared with NumPy."""
    f = fusejit.jit(fn)
    for _ in range(3):
        args = make()
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert_same(f(*args), want)


def test_a_loop_that_changes_a_dtype_and_runs_zero_times_raises_saying_why():
    """``for i in range(n)`` whose body makes ``x`` int32: fusejit types ``x`` as the loop
    makes it, so a call with ``n = 0`` (NumPy: ``x`` stays float64) raises a ValueError naming
    the loop's line and the variable, rather than returning a wrong dtype."""
    f = fusejit.jit(cast_for_n_steps)
    x = np.linspace(0.0, 9.0, 37)
    assert_same(f(x, 2), cast_for_n_steps(x, 2))
    for _ in range(2):
        with pytest.raises(fusejit.FusejitError, match="ran zero times.*'x' .float64 before"):
            f(x, 0)


def test_a_loop_whose_dtypes_never_hold_still_is_refused():
    """Two arrays of different dtypes swapped in each of ``n`` iterations: no iteration on
    gives them one dtype, so the loop is refused, naming both variables."""
    f = fusejit.jit(alternating)
    with pytest.raises(fusejit.FusejitError, match=r"changes the dtype of 'x'.*'y'"):
        f(np.linspace(0.0, 1.0, 37), np.arange(37, dtype=np.int32), 5)


def branch_dtypes(x, flag):
    if flag:
        x = x.astype(np.int32)
    return x * 1.5, np.log1p(x), x


def branch_dtypes_plus_one(x, flag):
    if flag:
        x = x.astype(np.int32)
    return x + 1


@pytest.mark.parametrize("n", [37, 5000])
@pytest.mark.parametrize("flag", [True, False])
def test_an_array_that_branches_give_two_dtypes(flag, n):
    """``if flag: x = x.astype(np.int32)`` on a float64 ``x``: ``x * 1.5`` and
    ``np.log1p(x)`` are float64 whichever branch ran, and compute in it (PyTorch's rules
    typed them before: int32 * 1.5 gave float32); ``x + 1`` is int32 or float64 by the
    branch, and is refused, naming the array. Every call."""
    f, g = fusejit.jit(branch_dtypes), fusejit.jit(branch_dtypes_plus_one)
    for _ in range(3):
        x = np.linspace(0.0, 5.0, n)
        assert_same(f(x, flag), branch_dtypes(x, flag))
        with pytest.raises(fusejit.FusejitError, match="'\\+': the array 'x' has no one dtype"):
            g(x, flag)


def kinds_by_branch(a, flag):
    if flag:
        s = np.float32(2.5)
        t = 0
        u = a.astype(np.uint8).sum()
    else:
        s = np.float64(2.5)
        t = 1.5
        u = 0
    v = np.float32(1.0) if flag else 1
    return s, t, u, v, t * 2, t + a, s * a.astype(np.float64)


def kinds_by_branch_plus_int32(a, flag):
    t = 0 if flag else 1.5
    return t + a.astype(np.int32)


def kinds_by_branch_times_float(a, flag):
    s = np.float32(a[1]) if flag else np.float64(a[1])
    return s * 0.1


def kinds_by_runs(a, k):
    s = 0.0
    i = 0
    while i < k:
        s = s * 0.5 + a.max()       # a np.float32 from the first run on
        i += 1
    t = 0
    for _ in range(k):
        t = t + 0.5                 # a float from the first run on
    return s, t, t * a


def number_then_array(a, k):
    t = 0
    for _ in range(k):
        t = t + a
    return t


def _same_kinds(got, want):
    """``assert_same``, and every returned number of NumPy's own type (np.float32 or
    float, int or np.uint64...)."""
    assert_same(got, want)
    assert [type(g) for g in got] == [type(w) for w in want]


@pytest.mark.parametrize("n", [37, 5000])
@pytest.mark.parametrize("flag", [True, False])
def test_a_number_that_branches_give_two_kinds(flag, n):
    """A number that the branches of an if give different kinds (np.float32 or np.float64, an
    int or a float, a np.uint64 sum or an int) is returned as the branch that ran made it,
    and so is arithmetic on it whose kind the branch decides (``t * 2``: an int or a float);
    an op whose result dtype is the same either way computes in it (``t + a``: float32).
    Before, each came back with the merged kind (a float, a np.uint64). Where the result
    dtype depends on the branch (``t + int32 array``: int32 or float64) the op is refused,
    naming the number. Arithmetic that rounds to float32 in one branch only (``s * 0.1``)
    is computed again in float32 for that branch, as NumPy computes it (it was refused: the
    number is held once, in float64). Every call."""
    f, g = fusejit.jit(kinds_by_branch), fusejit.jit(kinds_by_branch_plus_int32)
    h = fusejit.jit(kinds_by_branch_times_float)
    a = np.linspace(0.0, 5.0, n, dtype=np.float32)
    for _ in range(3):
        _same_kinds(f(a, flag), kinds_by_branch(a, flag))
        with pytest.raises(fusejit.FusejitError, match="'t' is int or float by the branch"):
            g(a, flag)
        _same_kinds((h(a, flag),), (kinds_by_branch_times_float(a, flag),))


@pytest.mark.parametrize("k", [0, 3])
def test_a_number_a_loop_retypes_keeps_its_kind_where_it_runs_zero_times(k):
    """``s = 0.0`` then ``s = s * 0.5 + a.max()`` in a while loop: a np.float32 after one
    run, the float 0.0 after none (it came back a np.float32 0.0); ``t = 0`` then
    ``t = t + 0.5``: the int 0 after none (it came back 0.0). A number that the loop makes
    an array cannot be both: a call that runs it zero times raises, saying so. Every call."""
    f, g = fusejit.jit(kinds_by_runs), fusejit.jit(number_then_array)
    a = np.linspace(0.0, 5.0, 37, dtype=np.float32)
    for _ in range(3):
        _same_kinds(f(a, k), kinds_by_runs(a, k))
        if k:
            assert_same(g(a, k), number_then_array(a, k))
        else:
            with pytest.raises(fusejit.FusejitError, match="ran zero times; .*'t' .a number "
                                                           "before it, a float32 array after"):
                g(a, k)


def largest_from_zero(a):
    m = 0.0
    for x in a:
        if x > m:
            m = x                   # (a NumPy scalar of a's dtype where one is larger)
    return m, m * 0.1, m - 0.7, m / 3


def running_total(a):
    s = 0
    for x in a:
        if x > 0:
            s = s + x               # (of a's dtype: an int8 wraps)
        else:
            s = s * 3               # (an int while no element was positive)
    return s, s * 100


def doubled_or_halved(a):
    k = 1
    for i in range(a.shape[0]):
        k = k * 2 if a[i] > 0 else k + 0.5
    return k


def nested_zero_trips(a, n):
    t = 0
    for _ in range(2):
        for _ in range(n):          # (zero times where n is 0: t stays the int 0)
            t = t + a.max()
    return t


def builtin_extremes(a):
    t = 0
    for x in a:
        t = max(t, float(x))        # (Python's max keeps the int 0 while it wins)
    return t, max((a > 0.5).max(), 1), min(1.5, a.shape[0]), max(a.min(), 0)


def paid_down(a):
    b = 100
    for i in range(a.shape[0]):
        p = min(a[i] * 2, b)        # (of a's dtype, or b's kind, by which is smaller)
        b -= p                      # (b's kind and p's: each of its own if)
    return b


def two_ifs(a):
    t = 0 if a[0] > 0 else 1.5
    u = a[1] if a[2] > 0 else 2
    return t + u, t * u, u - t


def held_as_numbers(a):
    s, t = 0.0, 1
    for i in range(a.shape[0]):
        if a[i] > 0.5:
            s = np.float32(a[i])    # (NumPy scalars held as numbers: float32 rounds)
            t = np.int8(100)        # (int8 wraps)
    return s * 0.1, s / 3, s - 0.7, t * 3, t + 100, t - 1


def bits_of_kinds(a):
    k = 6 if a[0] > 0 else np.int8(6)
    return k & 3, k << 1, k | 9


def functions_of_kinds(a):
    k = 4 if a[0] > 0 else np.float32(4.1)      # (a number: an int or a np.float32)
    m = a[1] if a[0] > 0 else 2                 # (a 0-d array: a's scalar or an int)
    # (correctly rounded functions only: NumPy's float32 exp may be an ulp off)
    return np.sqrt(k), abs(k), -k, np.negative(k), np.abs(k), np.sqrt(m), -m, np.abs(m)


_KIND_CASES = [
    (functions_of_kinds, lambda n, dtype: (np.arange(n) % 3 + 1).astype(dtype)),
    (functions_of_kinds, lambda n, dtype: -(np.arange(n) % 3 + 1).astype(dtype)),
    (bits_of_kinds, lambda n, dtype: np.ones(n, dtype)),
    (bits_of_kinds, lambda n, dtype: np.zeros(n, dtype)),
    (held_as_numbers, lambda n, dtype: (np.linspace(0.0, 1.0, n) * 1.7).astype(dtype)),
    (held_as_numbers, lambda n, dtype: np.zeros(n, dtype)),
    (paid_down, lambda n, dtype: np.linspace(0.0, 5.0, n).astype(dtype)),
    (paid_down, lambda n, dtype: np.full(n, 100, dtype)),
    (two_ifs, lambda n, dtype: (np.arange(n) % 3 - 1).astype(dtype)),
    (two_ifs, lambda n, dtype: (1 - np.arange(n) % 3).astype(dtype)),
    (largest_from_zero, lambda n, dtype: np.linspace(-1.0, 1.0, n).astype(dtype) * 0.37),
    (largest_from_zero, lambda n, dtype: -np.ones(n, dtype)),
    (running_total, lambda n, dtype: (np.arange(n) % 7 - 2).astype(dtype)),
    (running_total, lambda n, dtype: -np.ones(n, dtype)),
    (doubled_or_halved, lambda n, dtype: np.ones(20, dtype)),
    (doubled_or_halved, lambda n, dtype: (np.arange(20) - 3).astype(dtype)),
    (builtin_extremes, lambda n, dtype: -np.ones(n, dtype)),
    (builtin_extremes, lambda n, dtype: np.linspace(-1.0, 1.0, n).astype(dtype)),
]


# Programs that read a's elements only to compare them, or to make a NumPy scalar of a kind of
# their own (``np.float32(a[i])``): a's dtype decides no kind they return, so other dtypes and
# sizes than float32's 37 elements repeat that case.
_OWN_KINDS = (bits_of_kinds, held_as_numbers, doubled_or_halved)


def _kinds_as_numpys(cases, n, dtype):
    for fn, make in cases:
        a = make(n, dtype)
        f = fusejit.jit(fn)
        with np.errstate(over="ignore"):
            want = fn(a.copy())
        for _ in range(3):
            got = f(a.copy())
            assert repr(got) == repr(want), (fn.__name__, got, want)


def _kind_params(kept):
    return [pytest.param(dtype, n, marks=[] if (dtype, n) in kept else [pytest.mark.exhaustive])
            for dtype in (np.float32, np.float64, np.int8, np.int32) for n in (37, 5000)]


# (float32, whose numbers round, and int8, whose numbers wrap; float64 and int32 repeat them
# in a wider kind. 5000 elements once: int8's.)
@pytest.mark.parametrize("dtype, n", _kind_params({(np.float32, 37), (np.int8, 37),
                                                   (np.int8, 5000)}))
def test_a_number_whose_kind_the_iterations_decide(dtype, n):
    """A number whose kind (an int or a float, a Python number or a NumPy scalar) the
    iterations that ran decide (``m = 0.0``, then ``m = x`` for an element x that is larger;
    ``k = k * 2 if ... else k + 0.5``) is carried through the loop with the index of its kind,
    and comes back, and is computed with, as NumPy's: an int 0 where no step made it a float,
    a np.float32 where one did. It came back as the loop's merged type (np.float64 for
    float32 elements, 8.0 for 8), or arithmetic on it was refused. Arithmetic that rounds or
    wraps in a narrow kind (``m * 0.1`` of a np.float32, ``s * 100`` of a np.int8) is
    computed in that kind, to the bit. Builtin ``max``/``min`` of numbers of different kinds
    is the argument that wins. Numbers of two ifs' kinds give one of each combination, and
    functions of one (``np.sqrt(k)``: a np.float64 for an int, a np.float32 for one).
    Every call: the interpreter, then the compiled forms."""
    _kinds_as_numpys([c for c in _KIND_CASES if c[0] not in _OWN_KINDS], n, dtype)


@pytest.mark.parametrize("dtype, n", _kind_params({(np.float32, 37)}))
def test_a_number_whose_kind_the_iterations_decide_whatever_the_array_s_dtype(dtype, n):
    """As above, for the programs whose returned kinds a's dtype does not decide (a number
    held as a NumPy scalar: np.float32 rounds, np.int8 wraps; ``k * 2 if ... else k + 0.5``;
    an int or a np.int8 by the branch, in bitwise ops)."""
    _kinds_as_numpys([c for c in _KIND_CASES if c[0] in _OWN_KINDS], n, dtype)


def returned_from_either_branch(a, c):
    t = np.float32(a[0]) + 1
    if c > 0.1:
        return t, np.int8(3)
    return t, np.int8(4)


def chosen_by_a_conditional(a, c):
    t = np.float32(a[0]) if c > 0.1 else np.float32(a[1])
    return t, t * 0.1


def test_a_numpy_scalar_either_branch_returns_stays_one():
    """``return t`` in both branches of an if, t a np.float32 (or np.int8) either way, and
    ``np.float32(x) if c else np.float32(y)``: the NumPy scalar, as NumPy returns it (the
    return came back a Python float 0.0, and ``np.asarray`` of it float64; fuzz seed
    541701). Both branches, every call."""
    a = np.linspace(0.5, 2.0, 5)
    for fn in (returned_from_either_branch, chosen_by_a_conditional):
        f = fusejit.jit(fn)
        for _ in range(2):
            for c in (1.0, 0.0):
                assert repr(f(a, c)) == repr(fn(a, c))


def full_of_a_kind(a):
    k = 1 if a[0] > 0 else 1.5
    return np.full(3, k)


def array_of_a_kind(a):
    k = 1 if a[0] > 0 else 1.5
    return np.array([k, k])


def arange_to_a_kind(a):
    k = 3 if a[0] > 0 else 3.0
    return np.arange(k)


def test_an_array_of_a_number_whose_kind_the_branch_decides_is_refused():
    """``np.full(3, k)``, ``np.array([k, k])``, ``np.arange(k)`` of a k that is an int or a
    float by the branch taken: NumPy's array is int64 or float64 by it, and an array has one
    dtype here, so each is refused, naming k (each gave a float64 array where NumPy's was
    int64)."""
    a = np.ones(5)
    for fn in (full_of_a_kind, array_of_a_kind, arange_to_a_kind):
        assert fn(a).dtype == np.int64      # (NumPy's, where the int branch runs)
        with pytest.raises(fusejit.FusejitError, match="'k' is int or float by the branch"):
            fusejit.jit(fn)(a)


@pytest.mark.parametrize("n", [0, 3])
def test_a_loop_in_a_loop_keeps_a_number_s_kind_where_it_runs_zero_times(n):
    """``t = 0``, then an inner loop that makes it a np.float32 and runs zero times inside an
    outer one that runs: the int 0, as in Python (it came back np.float32(0.0), with no
    error: the zero-trip check saw the outer loop only)."""
    a = np.linspace(0.0, 5.0, 37, dtype=np.float32)
    f = fusejit.jit(nested_zero_trips)
    for _ in range(3):
        assert repr(f(a, n)) == repr(nested_zero_trips(a, n))


def numpy_scalars_defined_in_a_loop(a, n):
    i = 0
    while i < n:
        a = a + 1
        t = np.int8(3)
        u = a.sum()
        v = np.float32(i) * 2
        i += 1
    return t, u, v, a


def test_numpy_scalars_first_defined_in_a_loop_that_rebinds_an_array():
    """``t = np.int8(3)`` defined only in a while loop that also rebinds an array: the first
    call raised ``TypeError: int() ... not 'NoneType'`` (the placeholder standing for ``t``
    before the loop was converted to the NumPy scalar's number); later calls ran. Every call
    returns NumPy's scalars."""
    f = fusejit.jit(numpy_scalars_defined_in_a_loop)
    a = np.ones(37, np.float32)
    for n in (1, 3):
        for _ in range(3):
            _same_kinds(f(a, n), numpy_scalars_defined_in_a_loop(a, n))


def number_grown_into_an_array(a, c, n):
    acc = 0
    for i in range(n):
        acc = acc + a * i
    return acc + c, np.where(acc > 0, acc, c)


def test_a_number_a_loop_makes_an_array_has_the_array_s_rank_after_it():
    """``acc = 0``, then ``acc = acc + a * i`` (a float32 array): ``acc`` is a float32 array
    from the first iteration on, and ``acc + c`` with an int32 ``c`` is float64. The number
    merged with the array had no rank, later ops took it as a number and gave float32. The
    first iteration now runs on its own; a call where the loop runs zero times raises, as
    for the dtypes a loop changes. Every call."""
    f = fusejit.jit(number_grown_into_an_array)
    a = np.linspace(-1.0, 1.0, 37, dtype=np.float32)
    c = np.ones(37, np.int32)
    for _ in range(3):
        assert_same(f(a, c, 2), number_grown_into_an_array(a, c, 2))
    with pytest.raises(fusejit.FusejitError, match="ran zero times"):
        f(a, c, 0)


def retyped_before_a_break(a, b):
    t = 0
    while True:
        t += 1
        if t > 2:
            break
        a = (b > b) * 2
    return a, a * np.float64(0.5)


def read_after_a_retyping_branch(a, b, n):
    t = 0
    y = a * 0.5
    while t < n:
        t += 1
        y = a * 0.5                 # a: float32 in the first step, int64 after
        if t > 3:
            break
        a = (b > b) * 2
    return y


def test_an_array_a_loop_step_retypes_by_a_branch_is_of_several_dtypes():
    """In ``while True: ...; if t > 2: break; a = (b > b) * 2`` the assignment runs only
    where the step did not break, so ``a`` after a step is float32 or int64. Ops on it read
    its entry dtype (``(a + a) * 0.5`` float32 where NumPy gives float64, and in the loop
    ``a * 0.5`` likewise); they now compute in the dtype every possibility gives
    (``a * np.float64(0.5)``: float64) or are refused, naming it. Every call."""
    a, b = np.ones((50, 3), np.float32), np.ones((50, 3), np.float32)
    f = fusejit.jit(retyped_before_a_break)
    for _ in range(3):
        got, want = f(a, b), retyped_before_a_break(a, b)
        assert [g.dtype for g in got] == [w.dtype for w in want]
    with pytest.raises(fusejit.FusejitError, match="the array 'a' has no one dtype"):
        fusejit.jit(read_after_a_retyping_branch)(a, b, 5)


_K = np.float32(1.5)


def _scaled(x, y, k=_K):
    return x * k + y


def default_numpy_scalar(a, b):
    return _scaled(a, b), _scaled(a, b, k=np.float32(1.5))


def test_a_helper_s_numpy_scalar_default_is_strong_as_numpy_s():
    """``def h(x, y, k=np.float32(1.5))`` called without ``k``: ``uint8 * k + float32`` is
    float32 in NumPy (a NumPy scalar is strong); the default was taken as the Python float
    1.5 (weak), and the result was float64. Every call."""
    f = fusejit.jit(default_numpy_scalar)
    a, b = np.arange(37, dtype=np.uint8), np.ones(37, np.float32)
    for _ in range(3):
        assert_same(f(a, b), default_numpy_scalar(a, b))


def sum_of_appended(a, n):
    rows = []
    for i in range(n):
        rows.append(a * i)
    return sum(rows)


def test_sum_of_a_list_empty_when_it_runs_is_a_clear_error():
    """``sum(rows)`` of arrays appended in a loop that ran zero times: Python's 0. The stack
    of no arrays raised "stack expects a non-empty TensorList" from inside the interpreter;
    it is now a ValueError saying why. A list with items sums as Python's. Every call."""
    f = fusejit.jit(sum_of_appended)
    a = np.ones(37, np.float32)
    for _ in range(3):
        assert_same(f(a, 2), sum_of_appended(a, 2))
        with pytest.raises(fusejit.FusejitError, match="sum.. of a list that is empty when"):
            f(a, 0)


def kinds_of_arithmetic(x):
    k = x[0] > 0                    # a np.bool_ ...
    if x[1] > 0:
        k = 5                       # ... or an int
    if x[2] > 0:
        m = x.sum()                 # a np.float64 (a 0-d array here) or a float
    else:
        m = 0.0
    n = int(x.size) if x[3] > 0 else np.int64(3)
    p = 4 if x[4] > 0 else 2.25
    return (k * 2, m * 2, n ** 2, float(p), np.float64(p), np.sqrt(p))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_arithmetic_and_conversions_of_a_number_that_branches_give_two_kinds(sign):
    """Ops on a number whose kind the branch decides give the kind NumPy gives for the branch
    taken: ``k * 2`` of a np.bool_ or an int (held as a 0-d array) is a np.int64 or an int,
    ``n ** 2`` of an int or a np.int64 an int or a np.int64; ``float(p)`` is a float and
    ``np.float64(p)`` a np.float64 whichever ran (they returned ``p``'s own kind), and
    ``np.sqrt(p)`` a np.float64 (a NumPy function of a Python number). Every call."""
    f = fusejit.jit(kinds_of_arithmetic)
    x = np.ones(37) * sign
    for _ in range(3):
        _same_kinds(f(x), kinds_of_arithmetic(x))


def float32_updated_in_float64(a, b):
    a += np.float64(0.1)
    a[..., 0] -= np.float64(0.3)
    a *= b
    return a


@pytest.mark.parametrize("n", [12, 2000])
def test_a_float32_array_updated_by_float64_is_rounded_once_as_numpy(n):
    """``a += np.float64(0.1)`` on float32 ``a``: NumPy adds in float64 and rounds once to
    float32 (the "same_kind" cast); fusejit rounded 0.1 to float32 first and added in
    float32, one ulp off for about 1% of the values. So for a float64 array operand. Every
    call, bit for bit."""
    rng = np.random.default_rng(3)
    a = rng.uniform(-0.2, 0.2, (n, 8)).astype(np.float32)
    b = rng.uniform(0.5, 2.0, (n, 8))
    f = fusejit.jit(float32_updated_in_float64)
    want = float32_updated_in_float64(a.copy(), b)
    for _ in range(3):
        got = f(a.copy(), b)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def ints_meet_narrow_arrays(a, k):
    b = a.copy()
    b[0] = k                    # a store
    b += k                      # an in-place update
    return (b.astype(np.int8) & k) + k, a < k    # ufuncs of int8 (a comparison takes any int)


def int_or_uint8_by_branch(a, k):
    j = k if a[1] > 0 else np.uint8(3)     # (a Python int or a NumPy uint8: uint8 either way)
    return a + j, a * 2


@pytest.mark.parametrize("n", [5, 6000])
def test_a_python_int_known_only_at_run_time_must_fit_the_array_s_dtype(n):
    """NumPy 2 raises OverflowError where a Python int does not fit the integer dtype it meets
    (``uint8_array + k``, a store, an in-place update), whatever the values: the first call
    raised it, the compiled forms wrapped the int (300 as 44). Every call, both sizes; a
    comparison with any int runs, as NumPy's. So does an int that a branch makes a Python int
    or a NumPy uint8 (fuzz round 5's bug_02)."""
    a = np.arange(n, dtype=np.uint8)
    for program in (ints_meet_narrow_arrays, int_or_uint8_by_branch):
        f = fusejit.jit(program)
        for k in (3, 100, 127, 128, 255, 256, -1, 2**40, 5):
            try:
                want = program(a, k)
            except OverflowError:
                want = None
            for _ in range(3):
                if want is None:
                    with pytest.raises(fusejit.FusejitError, match="OverflowError: Python int"):
                        f(a, k)
                    continue
                for got, expected in zip(f(a, k), want, strict=True):
                    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def where_of_a_float32_by_either_branch(a):
    if np.any(a < 0):
        t = np.float32(2.5)
    else:
        t = np.float32(1.5)
    return np.where(a > 0, t, 2.5), t * 2.0


def where_of_an_int_or_a_float(a):
    if np.any(a < 0):
        t = 1
    else:
        t = 2.5
    return np.where(a > 0, t, 2.5)      # (float64 either way)


def where_of_a_float32_or_a_float64(a):
    if np.any(a < 0):
        t = np.float32(2.5)
    else:
        t = np.float64(2.5)
    return np.where(a > 0, t, 2.5)


@pytest.mark.parametrize("n", [37, 5000])
def test_np_where_of_a_number_the_branches_make(n):
    """A np.float32 that both branches make stays one (it became a weak float: np.where's
    result was float64 where NumPy's is float32), and ``np.where`` of a number whose kind the
    branch decides is refused where NumPy's dtype depends on it (it gave float64 where NumPy
    gave float32; fuzz seed 491601), computed where it does not. Both branches, every call."""
    a = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    for fn in (where_of_a_float32_by_either_branch, where_of_an_int_or_a_float):
        f = fusejit.jit(fn)
        for _ in range(2):
            for x in (a, a + 2.0):
                _same_kinds(f(x) if isinstance(fn(x), tuple) else (f(x),),
                            fn(x) if isinstance(fn(x), tuple) else (fn(x),))
    with pytest.raises(fusejit.FusejitError, match="'t' is np.float32 or np.float64 by"):
        fusejit.jit(where_of_a_float32_or_a_float64)(a)
