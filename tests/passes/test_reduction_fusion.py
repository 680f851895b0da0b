"""The row-reduction pass: which patterns form one ``prim::RowReductionGroup`` and which do not
(other axes, integers, non-convex groups), and that plain ``fuse_graph`` plans are unchanged."""

from __future__ import annotations

import numpy as np

import fusejit
from fusejit.ir.lint import lint
from fusejit.ir.symbols import aten, prim


def _kinds(fn, *args, reductions=True) -> list:
    compiled = fusejit.compile(fusejit.script(fn), fuse=True, reductions=reductions)
    graph = compiled.graph_for(*args)
    lint(graph)
    return [n.kind for n in graph.nodes() if n.kind != prim.Constant]


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


X = np.ones((4, 8), np.float32)


def test_softmax_is_one_group_whose_subgraph_holds_the_ops():
    compiled = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    graph = compiled.graph_for(X)
    (group,) = [n for n in graph.nodes() if n.kind != prim.Constant]
    assert group.kind == prim.RowReductionGroup
    inner = [n.kind for n in group.g("Subgraph").nodes() if n.kind != prim.Constant]
    assert inner == [aten.amax, aten.sub, aten.exp, aten.sum, aten.div]
    assert fusejit.parse_ir(str(graph)) is not None          # prints and parses back


def test_without_the_option_the_fuser_graph_is_unchanged():
    kinds = _kinds(softmax, X, reductions=False)
    assert prim.RowReductionGroup not in kinds
    assert aten.amax in kinds and aten.sum in kinds and prim.FusionGroup in kinds


def test_other_axes_are_left_alone_and_integer_rows_and_columns_grouped():
    def columns(x):
        return x - x.mean(axis=0, keepdims=True)

    def counts(x):
        return x - x.sum(axis=-1, keepdims=True)

    def column_counts(x):
        return x - x.sum(axis=0, keepdims=True)

    ints = np.ones((4, 8), np.int64)
    assert prim.RowReductionGroup not in _kinds(columns, X)
    # (integer rows and columns: the row and column kernels sum them in int64)
    assert _kinds(counts, ints) == [prim.RowReductionGroup]
    assert _kinds(column_counts, ints) == [prim.ColumnReductionGroup]


def test_a_path_through_an_outside_op_keeps_the_group_convex():
    def through_matmul(x, w):
        m = x.max(axis=-1, keepdims=True)
        return np.exp(x - m - m @ w)      # amax -> sub, and amax -> matmul -> sub

    w = np.ones((1, 8), np.float32)
    kinds = _kinds(through_matmul, X, w)
    # (the amax is a group of its own; the sub and exp stay in the fusion group after matmul)
    assert kinds == [prim.RowReductionGroup, aten.matmul, prim.FusionGroup]
    compiled = fusejit.compile(fusejit.script(through_matmul), fuse=True, reductions=True)
    np.testing.assert_allclose(compiled(X, w), through_matmul(X, w), rtol=1e-6)


def test_flat_rows_do_not_mix_with_elements():
    def flat_plus(x):
        return x + x.sum(axis=-1)             # [B] + [B, N]: broadcasts along the columns

    square = np.arange(16, dtype=np.float32).reshape(4, 4)
    assert _kinds(flat_plus, square) == [prim.RowReductionGroup, aten.add]  # (the sum alone)


def test_column_groups_and_their_limits():
    def standardize(x):
        return (x - x.mean(axis=0)) / x.std(axis=0)

    def mixed(x):
        return x - x.mean(axis=0) - x.mean(axis=-1, keepdims=True)

    def middle_flat(x):
        return x - x.mean(axis=1)     # [4, 4] against [4, 4, 4]: broadcasts along axis 0

    assert _kinds(standardize, X) == [prim.ColumnReductionGroup]
    assert _kinds(standardize, np.ones((2, 4, 8), np.float32)) == [prim.ColumnReductionGroup]
    cube = np.arange(64, dtype=np.float32).reshape(4, 4, 4)
    assert aten.sub in _kinds(middle_flat, cube)       # (outside the lone mean's group)
    kinds = _kinds(mixed, X)        # rows and columns never share a group
    assert kinds.count(prim.ColumnReductionGroup) + kinds.count(prim.RowReductionGroup) <= 1


def test_a_sibling_joins_only_where_the_group_can_still_be_placed():
    def softmax_then_mean(x, w):
        y = softmax(x) @ w                   # the softmax is used before x.mean(...)
        return y, x.mean(axis=-1, keepdims=True) * 2

    w = np.ones((8, 3), np.float32)
    kinds = _kinds(softmax_then_mean, X, w)
    assert kinds.count(prim.RowReductionGroup) == 2 and aten.amax not in kinds
    compiled = fusejit.compile(fusejit.script(softmax_then_mean), fuse=True, reductions=True)
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    for got, want in zip(compiled(x, w), softmax_then_mean(x, w)):
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_the_option_survives_pickling():
    import pickle

    compiled = fusejit.compile(fusejit.script(softmax), fuse=True, reductions=True)
    again = pickle.loads(pickle.dumps(compiled))
    assert again.reductions
    assert prim.RowReductionGroup in [n.kind for n in again.graph_for(X).nodes()]


def test_reductions_of_several_or_all_axes_are_row_groups():
    def instance_norm(x):
        return (x - x.mean(axis=(1, 2), keepdims=True)) / x.std(axis=(1, 2), keepdims=True)

    def whole(x):
        return (x - x.mean()) / x.std()

    def not_a_suffix(x):
        return x - x.mean(axis=(0, 2), keepdims=True)

    cube = np.ones((2, 4, 8), np.float32)
    assert _kinds(instance_norm, cube) == [prim.RowReductionGroup]
    assert _kinds(whole, cube) == [prim.RowReductionGroup]
    assert prim.RowReductionGroup not in _kinds(not_a_suffix, cube)
    # other sets of axes: column groups, whose kernels write per-row values only (an element
    # output leaves the reduction unfused, as before)
    assert _kinds(lambda x: x.sum(axis=(0, 2)), cube) == [prim.ColumnReductionGroup]
    assert _kinds(lambda x: (x.mean(axis=(2, 0)), x.std(axis=(0, 2))), cube)[0] == \
        prim.ColumnReductionGroup
    assert prim.ColumnReductionGroup not in _kinds(not_a_suffix, cube)
    # a lone reduction is a group too: its kernel beats NumPy's behind the interpreter
    assert _kinds(lambda x: x.sum(), cube) == [prim.RowReductionGroup]


def read_then_written(a, b):
    p = a * b + 1.0
    a += 1.0              # p was computed before: its sum must not see a + 1
    return p, p.sum()


def read_then_masked(a, b):
    p = a * 2.0 + b
    a[a > 0.5] = 0.0
    return p.sum() + a.sum(), p


def read_then_other_array_written(a, b, c):
    p = a * b
    c += 1.0              # (c may be a or b: the caller can pass one array twice)
    return p.sum()


def test_a_group_does_not_move_its_reads_past_a_write():
    """A group runs where its last member was: an early member moved past an in-place write
    would read the written memory. Such members stay out (NumPy's values, on the first call,
    which runs these plans, and later ones); the sum alone still forms its group."""
    rng = np.random.default_rng(12)
    for fn, count in ((read_then_written, 2), (read_then_masked, 2),
                      (read_then_other_array_written, 3)):
        jitted = fusejit.jit(fn)
        for _ in range(3):
            args = [rng.random(50) for _ in range(count)]
            mine, theirs = [a.copy() for a in args], [a.copy() for a in args]
            got, want = jitted(*mine), fn(*theirs)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(g, w, rtol=1e-13)
            for m, t in zip(mine, theirs):
                np.testing.assert_array_equal(m, t)
    a, b, c = rng.random((3, 50))
    graph = fusejit.jit(read_then_other_array_written).graph_for(a, b, c)
    (group,) = [n for n in graph.nodes() if n.kind == prim.RowReductionGroup]
    assert aten.mul not in [n.kind for n in group.g("Subgraph").nodes()]
    # c the array a itself: NumPy sums a * b as it was before c += 1
    want = read_then_other_array_written(a.copy(), b, a.copy())
    mine = a.copy()
    np.testing.assert_allclose(fusejit.jit(read_then_other_array_written)(mine, b, mine), want,
                               rtol=1e-13)


def huber_and_outliers(pred, target, delta):
    d = pred - target
    ad = np.abs(d)
    loss = np.where(ad <= delta, 0.5 * d * d, delta * (ad - 0.5 * delta))
    n_outliers = int(np.count_nonzero(ad > delta))     # a number, read before the next sum
    return loss.sum(), n_outliers


def count_then_written(x, y):
    n = int(np.count_nonzero(x > 0.5))
    y += 1.0                             # a write: the int stays before it
    return x.sum(), n


def test_a_number_read_of_a_reduction_moves_down_so_the_next_reduction_joins_it():
    """``int(count)`` between two reductions of one sweep kept them in two groups (and the
    loss array made whole between them); it moves down to its first use, so one group
    computes both. It moves past nothing that writes memory."""
    rng = np.random.default_rng(3)
    pred, target = rng.standard_normal((2, 1000)).astype(np.float32)
    jitted = fusejit.jit(huber_and_outliers)
    graph = jitted.graph_for(pred, target, 1.0)
    groups = [n for n in graph.nodes() if n.kind == prim.RowReductionGroup]
    assert len(groups) == 1 and len(groups[0].outputs) == 2
    got, want = jitted(pred, target, 1.0), huber_and_outliers(pred, target, 1.0)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    assert got[1] == want[1] and type(got[1]) is int
    x, y = rng.random((2, 100))
    graph = fusejit.jit(count_then_written).graph_for(x, y)
    kinds = [n.kind for n in graph.nodes() if n.kind != prim.Constant]
    assert kinds.index(aten.Int) < kinds.index(aten.add_)
    mine = y.copy()
    got, want = fusejit.jit(count_then_written)(x, mine), count_then_written(x, y.copy())
    # (the row kernel's sum is blocked as the host's vectors say, not in NumPy's order)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    assert got[1] == want[1] and np.array_equal(mine, y + 1.0)


def three_means_of_one_array(z, y):
    loss = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
    log_sig = np.minimum(z, 0) - np.log1p(np.exp(-np.abs(z)))
    p = np.reciprocal(1.0 + np.exp(-z))
    correct = (p > 0.5) == (y > 0.5)
    return loss.mean(), correct.mean(), log_sig.sum()


def test_reductions_of_separate_chains_of_one_array_share_its_sweep():
    """Three reductions, each of its own chain, all reading z (and y): one group, which
    reads z once; NumPy's values."""
    rng = np.random.default_rng(21)
    z = (rng.standard_normal(4000) * 3).astype(np.float32)
    y = (rng.random(4000) < 0.4).astype(np.float32)
    jitted = fusejit.jit(three_means_of_one_array)
    groups = [n for n in jitted.graph_for(z, y).nodes() if n.kind == prim.RowReductionGroup]
    assert len(groups) == 1 and len(groups[0].outputs) == 3
    for got, want in zip(jitted(z, y), three_means_of_one_array(z, y)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=2e-6)


def hypot_terms(x, w):
    a = np.sqrt(x * x + 1.0) * w
    b = np.sqrt(x * x + 1.0) - w
    return a.sum(), b.max(), np.sqrt(x * x + 1.0).mean(), np.exp(-np.abs(w)) + np.exp(-np.abs(w))


def _inner_kinds(graph) -> list:
    kinds = []
    for node in graph.nodes():
        for name in node.attribute_names():
            if node.kind_of(name) == "g":
                kinds += _inner_kinds(node.g(name))
        kinds.append(node.kind)
    return kinds


def test_an_expression_written_again_is_computed_once():
    """``sqrt(x * x + 1)`` written three times, ``exp(-|w|)`` twice: the executor eliminates
    common subexpressions before it fuses (PyTorch's order), so each op is computed once in
    the kernels, where the groups would otherwise hold a copy each; NumPy's values."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3000)
    w = rng.standard_normal(3000)
    jitted = fusejit.jit(hypot_terms)
    kinds = _inner_kinds(jitted.graph_for(x, w))
    assert kinds.count(aten.sqrt) == 1 and kinds.count(aten.exp) == 1
    assert kinds.count(aten.abs) == 1 and kinds.count(aten.mul) == 2
    for got, want in zip(jitted(x, w), hypot_terms(x, w)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
