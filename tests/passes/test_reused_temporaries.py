"""``reuse_dead_temporaries``: an add, sub, mul or div whose operand is a new array nothing else
reads may write its result into it (``reuses=<position>``), as NumPy's temporary elision does
for ``x[idx] * 2.0``. Checked: which nodes are marked, that the marked body writes into the
temporary exactly where that is the result it would make (and computes as before elsewhere),
and ``@fusejit.jit`` results against NumPy with the arguments left unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.ir.graph import Graph
from fusejit.ir.parser import parse_ir
from fusejit.oplib.binary import REUSE_MIN_BYTES
from fusejit.oplib.table import REUSES, make_operation
from fusejit.passes.reused_temporaries import reuse_dead_temporaries
from tests.runtime.conftest import same_arrays


def _marked(graph: Graph) -> dict[str, int]:
    return {n.kind: n.i(REUSES) for n in graph.all_nodes() if n.has_attribute(REUSES)}


def test_a_gathered_operand_is_marked_at_its_position():
    graph = parse_ir("""
graph(%x : Double(*), %idx : Long(*), %y : Double(*)):
  %two : float = prim::Constant[value=2.]()
  %one : int = prim::Constant[value=1]()
  %l : Tensor?[] = prim::ListConstruct(%idx)
  %g : Double(*) = aten::index(%x, %l)
  %d : Double(*) = aten::sub(%y, %g, %one)
  return (%d)""")
    assert reuse_dead_temporaries(graph)
    assert _marked(graph) == {"aten::sub": 1}


@pytest.mark.parametrize("body", [
    # the operand is an argument: the caller's array
    "%p : Double(*) = aten::mul(%x, %two)\n  return (%p)",
    # the temporary is read again after the product
    "%g : Double(*) = aten::index(%x, %l)\n  %p : Double(*) = aten::mul(%g, %two)\n"
    "  return (%p, %g)",
    # a view shares the temporary's memory
    "%g : Double(*) = aten::index(%x, %l)\n  %v : Double(*) = aten::slice(%g, %zero, %zero, "
    "%one, %one)\n  %p : Double(*) = aten::mul(%g, %two)\n  return (%p, %v)",
    # a reshape may be a view of its input: not an op that always makes a new array
    "%s : int[] = prim::ListConstruct(%one)\n  %g : Double(*) = aten::reshape(%x, %s)\n"
    "  %p : Double(*) = aten::mul(%g, %two)\n  return (%p)",
], ids=["argument", "read-again", "viewed", "maybe-view"])
def test_what_is_not_a_dead_temporary(body):
    graph = parse_ir(f"""
graph(%x : Double(*), %idx : Long(*)):
  %two : float = prim::Constant[value=2.]()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %l : Tensor?[] = prim::ListConstruct(%idx)
  {body}""")
    assert not reuse_dead_temporaries(graph)
    assert _marked(graph) == {}


def test_a_temporary_made_before_a_loop_is_not_written_in_it():
    graph = parse_ir("""
graph(%x : Double(*), %idx : Long(*), %n : int):
  %two : float = prim::Constant[value=2.]()
  %true : bool = prim::Constant[value=1]()
  %l : Tensor?[] = prim::ListConstruct(%idx)
  %g : Double(*) = aten::index(%x, %l)
  %acc : Double(*) = prim::Loop(%n, %true, %x)
    block0(%i : int, %a : Double(*)):
      %p : Double(*) = aten::mul(%g, %two)
      -> (%true, %p)
  return (%acc)""")
    assert not reuse_dead_temporaries(graph)


def _mul_node(position: int | None):
    graph = parse_ir("""
graph(%a : Tensor, %b : Tensor):
  %p : Tensor = aten::mul(%a, %b)
  return (%p)""")
    (node,) = [n for n in graph.nodes() if n.kind == "aten::mul"]
    if position is not None:
        node.i_(REUSES, position)
    return node


BIG = REUSE_MIN_BYTES // 8 + 1


@pytest.mark.parametrize("position", [0, 1])
def test_the_marked_body_writes_into_the_temporary_when_it_holds_the_result(position):
    rng = np.random.default_rng(0)
    t, y = rng.standard_normal(BIG), rng.standard_normal(BIG)
    run = make_operation(_mul_node(position))
    want = t * y
    args = (t, y) if position == 0 else (y, t)
    (got,) = run(*args)
    assert got is t
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", ["small", "promotes", "broadcasts", "bool", "int-by-float"])
def test_the_marked_body_computes_as_before_elsewhere(case):
    rng = np.random.default_rng(1)
    t = rng.standard_normal(BIG)
    other = rng.standard_normal(BIG)
    if case == "small":
        t, other = t[:100].copy(), other[:100]
    elif case == "promotes":             # (float32 temporary, float64 result)
        t = t.astype(np.float32)
    elif case == "broadcasts":           # (the temporary is one row of the result)
        t, other = t[:BIG // 4].copy(), rng.standard_normal((4, BIG // 4))
    elif case == "bool":
        t, other = t > 0, other > 0
    else:
        t, other = np.arange(BIG, dtype=np.int64), 0.5
    before = t.copy()
    (want,) = make_operation(_mul_node(None))(t, other)     # (the body without the mark)
    (got,) = make_operation(_mul_node(0))(t, other)
    assert got is not t
    np.testing.assert_array_equal(t, before)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def gather_scale(x, idx):
    return x[idx] * 2.0


def gather_plus_argument(x, idx):
    return x - x[idx]


def sorted_shifted(x):
    return np.sort(x) - 0.5


def product_scaled(a):
    return (a @ a) * 0.5


def gather_rows_plus_row(m, idx, row):
    return m[idx] + row


N = 3 * BIG
RNG = np.random.default_rng(7)
X = RNG.standard_normal(N)
IDX = RNG.integers(-N, N, N)
M = RNG.standard_normal((400, 300))


@pytest.mark.parametrize("fn,args,reuses", [
    (gather_scale, (X, IDX), True), (gather_plus_argument, (X, IDX), True),
    (sorted_shifted, (X,), True), (product_scaled, (M[:300].copy(),), True),
    (gather_scale, (X.astype(np.float32), IDX), True),
    (gather_scale, (np.arange(N), IDX), False),  # (int64 gathered: a kernel casts and scales)
    (gather_rows_plus_row, (M, RNG.integers(0, 400, 900), RNG.standard_normal(300)), True),
    (gather_rows_plus_row, (M, np.array([3]), RNG.standard_normal((1000, 300))), True),
], ids=["scale", "argument-minus", "sort", "product", "float32", "int64", "rows", "grows"])
def test_jit_results_match_numpy_and_arguments_are_kept(fn, args, reuses):
    jitted = fusejit.jit(fn)
    copies = [a.copy() for a in args]
    for _ in range(3):
        got, want = jitted(*args), fn(*copies)
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        if fn is product_scaled:
            # (the plan's BLAS call may block the sums otherwise: within the rounding bound
            # of a dot product of n terms, n eps |a| @ |a|, which an element near 0 needs)
            (a,) = copies
            bound = a.shape[1] * np.finfo(a.dtype).eps * (np.abs(a) @ np.abs(a)) * 0.5
            assert np.all(np.abs(got - want) <= bound)
        else:
            np.testing.assert_array_equal(got, want)
        for a, c in zip(args, copies, strict=True):
            np.testing.assert_array_equal(a, c)
    assert bool(_marked(jitted.graph_for(*args))) == reuses


# -- a row-reduction group writing an element output into its dead temporary input ---------

_ROWS = """
graph(%x : Double(*, *), %y : Double(*, *)):
  %zero : int = prim::Constant[value=0]()
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %m : Double(*, *) = aten::cat(%l, %zero)
  %c : Double(*, *) = prim::RowReductionGroup_0(%m)
  %n : int = aten::size(%m, %zero)
  return (%c, %n)
with prim::RowReductionGroup_0 = graph(%m : Double(*, *)):
  %dims : int[] = prim::Constant[value=[1]]()
  %keep : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %mu : Double(*, *) = aten::mean(%m, %dims, %keep, %none)
  {element}
  return (%c)"""
_CENTRED = "%c : Double(*, *) = aten::sub(%m, %mu, %one)"


def test_a_row_group_of_cheap_element_ops_may_write_into_its_dead_temporary():
    """The concatenation feeds the group, and only its shape is read after: marked. An
    expensive element op (exp: its output loop would lose its vector form), a per-row view
    (a row's first element read after it is written) or a temporary read again are not."""
    graph = parse_ir(_ROWS.format(element=_CENTRED))
    assert reuse_dead_temporaries(graph)
    assert _marked(graph) == {"prim::RowReductionGroup": 0}
    for element in ("%e : Double(*, *) = aten::exp(%m)\n  %c : Double(*, *) = "
                    "aten::sub(%e, %mu, %one)",
                    "%f : Double(*) = aten::select(%m, %one, %one)\n  %g : Double(*, *) = "
                    "aten::unsqueeze(%f, %one)\n  %c : Double(*, *) = aten::sub(%m, %g, %one)"):
        graph = parse_ir(_ROWS.format(element=element))
        reuse_dead_temporaries(graph)
        assert _marked(graph) == {}
    read_again = parse_ir(_ROWS.format(element=_CENTRED).replace("return (%c, %n)",
                                                                 "return (%c, %m)"))
    reuse_dead_temporaries(read_again)
    assert _marked(read_again) == {}


@pytest.mark.parametrize("rows, cols, written", [(2, 1 << 19, True), (4, 1000, False)])
def test_the_row_kernel_writes_into_a_big_dead_input_with_numpys_values(rows, cols, written):
    """Big enough (``REUSE_MIN_BYTES``), the centred rows are written into the concatenation
    itself; small, into a new array; the values are NumPy's either way."""
    from fusejit.ir.symbols import prim
    from fusejit.runtime.fusion.row_kernel import RowKernel

    graph = parse_ir(_ROWS.format(element=_CENTRED))
    reuse_dead_temporaries(graph)
    kernel = RowKernel(next(n for n in graph.nodes() if n.kind == prim.RowReductionGroup))
    rng = np.random.default_rng(7)
    m = rng.standard_normal((rows, cols))
    want = m - m.mean(axis=1, keepdims=True)
    for _ in range(2):          # (the first call of a signature, then a remembered one)
        held = m.copy()
        (out,) = kernel(held)
        assert (out is held) == written
        np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
    held = m.copy()
    held.flags.writeable = False
    (out,) = kernel(held)
    assert out is not held
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def covariance(x, y):
    return np.cov(x, y), np.corrcoef(x, y)


def test_cov_of_long_vectors_matches_numpy_with_the_arguments_kept():
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((2, 1 << 19))
    keep = x.copy(), y.copy()
    fn = fusejit.jit(covariance)
    for _ in range(3):
        got, want = fn(x, y), covariance(x, y)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10)
    np.testing.assert_array_equal(x, keep[0])
    np.testing.assert_array_equal(y, keep[1])


# -- an array a loop carries, made anew each step ---------------------------------------------

_CARRIED = """
graph(%x : Double(*), %v : Double(*), %n : int):
  %true : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %z : Double(*) = aten::zeros_like(%x)
  %acc : Double(*) = prim::Loop(%n, %true, {start})
    block0(%i : int, %a : Double(*)):
      %s : Double(*) = aten::add(%a, %v, %one)
      %k : Double(*) = fusejit::kept_shape(%s, %a)
      {more}
      -> (%true, {result})
  return (%acc{extra})"""


@pytest.mark.parametrize("start, more, result, extra, marked", [
    ("%z", "", "%k", "", True),
    ("%x", "", "%k", "", False),                  # (the caller's array)
    ("%z", "", "%k", ", %z", False),              # (the start read after the loop)
    ("%z", "%w : Double(*) = aten::mul(%a, %v)", "%k", "", False),   # (read again)
    ("%z", "%w : Double(*) = aten::slice(%k, %one, %one, %none, %one)", "%w", "", False),
    ("%z", "%w : Double(*) = aten::slice(%k, %one, %one, %none, %one)", "%k", "", False),
], ids=["made", "argument", "start-read-after", "read-again", "a-view-carried",
        "a-view-taken"])
def test_an_array_a_loop_carries_is_a_temporary_where_only_the_loop_holds_it(
        start, more, result, extra, marked):
    """The step's add may write into the array the step starts with where the loop started it
    as a new array only the loop reads, each step ends it as a new array it made (through a
    shape check), and nothing but the add reads it in the step; not where it is the caller's
    array, the start is read elsewhere, the step reads it again, or a view of the step's new
    array is carried or taken."""
    graph = parse_ir(_CARRIED.format(start=start, more=more, result=result, extra=extra))
    assert reuse_dead_temporaries(graph) == marked
    assert _marked(graph) == ({"aten::add": 0} if marked else {})


def shifted_sums(x, k, n):
    acc = np.zeros(n)
    for j in range(k):
        acc += x[j:j + n]           # (a value the loop carries: carried_arrays)
    return acc


def argument_accumulated(x, y, k):
    acc = x
    for _ in range(k):
        acc = acc + y               # (the first step's acc is the caller's x)
    return acc


def history_kept(x, y, k):
    acc = np.zeros_like(x)
    history = []
    for _ in range(k):
        acc = acc + y
        history.append(acc)         # (each step's array kept: none may be written)
    return acc, history[0]


@pytest.mark.parametrize("fn, args, reuses", [
    (shifted_sums, (RNG.standard_normal(BIG + 9), 9, BIG), True),
    (argument_accumulated, (RNG.standard_normal(BIG), RNG.standard_normal(BIG), 5), False),
    (history_kept, (RNG.standard_normal(BIG), RNG.standard_normal(BIG), 5), False),
], ids=["shifted-sums", "argument", "history"])
def test_loops_accumulating_a_new_array_match_numpy(fn, args, reuses):
    jitted = fusejit.jit(fn)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for _ in range(3):
        same_arrays(jitted(*args), fn(*copies))
        for a, c in zip(args, copies, strict=True):
            np.testing.assert_array_equal(a, c)
    assert bool(_marked(jitted.graph_for(*args))) == reuses
