"""fusejit functions on Dask arrays (fusejit/dask.py), checked against NumPy on the same data.

The threaded scheduler runs most cases; one ``LocalCluster`` with two worker processes, started
once for the module, runs the same functions in other processes, including across a worker
killed mid-computation (Dask retries; the replacement worker rebuilds the function from text).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import fusejit
from fusejit import ops as F

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


@fusejit.jit
def chain(x, y):
    a = x * y
    b = F.sigmoid(a + x) * 0.5 - y
    return np.tanh(b) * b + a


@fusejit.jit
def lstm_pointwise(cx, gates, b):
    i, f, g, o = np.split(gates + b, 4, axis=1)
    cy = F.sigmoid(f) * cx + F.sigmoid(i) * np.tanh(g)
    return F.sigmoid(o) * np.tanh(cy), cy


def chain_numpy(x, y):
    a = x * y
    b = (1 / (1 + np.exp(-(a + x)))) * 0.5 - y
    return np.tanh(b) * b + a


def lstm_numpy(cx, gates, b):
    sig = lambda v: 1 / (1 + np.exp(-v))
    i, f, g, o = np.split(gates + b, 4, axis=1)
    cy = sig(f) * cx + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(cy), cy


# fused exp/tanh are float32 approximations (fusejit/runtime/fusion/fastmath.py)
TOL = {"rtol": 2e-5, "atol": 2e-6}
RNG = np.random.default_rng(21)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def threaded():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.mark.parametrize("chunks", [(10, 7), (16, 4), (50, 7), (13, 3)],
                         ids=["divides", "uneven", "one-chunk", "uneven-both"])
def test_pointwise_chain_matches_numpy(chunks):
    x, y = rand(50, 7), rand(50, 7)
    out = chain(da.from_array(x, chunks=chunks), da.from_array(y, chunks=(25, 7)))
    assert isinstance(out, da.Array) and out.dtype == np.float32
    assert out.numblocks[0] > 1 or chunks[0] == 50
    np.testing.assert_allclose(out.compute(), chain_numpy(x, y), **TOL)
    # each chunk runs the same compiled plan as the in-memory call
    np.testing.assert_array_equal(out.compute(), chain(x, y))


def test_one_compiled_function_per_stage_whatever_the_shapes(monkeypatch):
    from fusejit.runtime import portable

    monkeypatch.setattr(portable, "_MEMO", {})
    for shape, chunks in (((20, 6), 4), ((50, 7), (16, 3)), ((9,), 2)):
        x, y = rand(*shape), rand(*shape)
        out = chain(da.from_array(x, chunks=chunks), y).compute()
        np.testing.assert_allclose(out, chain_numpy(x, y), **TOL)
    assert len(portable._MEMO) == 1


def test_broadcast_across_chunked_dimensions():
    x, y = rand(30, 1, 6), rand(5, 6)
    out = chain(da.from_array(x, chunks=(7, 1, 4)), da.from_array(y, chunks=(2, 3)))
    assert out.shape == (30, 5, 6)
    np.testing.assert_allclose(out.compute(), chain_numpy(x, y), **TOL)
    # a NumPy argument mixes with a Dask one
    np.testing.assert_allclose(chain(da.from_array(x, chunks=(4, 1, 6)), y).compute(),
                               chain_numpy(x, y), **TOL)


def test_split_axis_is_made_whole_and_outputs_keep_their_sizes():
    cx, gates, b = rand(30, 6), rand(30, 24), rand(24)
    hy, cy = lstm_pointwise(da.from_array(cx, chunks=(7, 4)), da.from_array(gates, chunks=(8, 5)),
                            da.from_array(b, chunks=5))
    assert hy.shape == cy.shape == (30, 6) and hy.chunks[1] == (6,)
    expect_h, expect_c = lstm_numpy(cx, gates, b)
    np.testing.assert_allclose(hy.compute(), expect_h, **TOL)
    np.testing.assert_allclose(cy.compute(), expect_c, **TOL)


def test_fused_graph_with_fusion_group_and_broadcast_tensors():
    cx, gates, b = rand(30, 6), rand(30, 24), rand(24)
    fused = fusejit.parse_ir(str(lstm_pointwise.graph_for(cx, gates, b)))
    assert {"prim::FusionGroup", "aten::broadcast_tensors"} <= {n.kind for n in fused.nodes()}
    hy, cy = fusejit.compile(fused, fuse=True)(da.from_array(cx, chunks=(7, 4)),
                                               da.from_array(gates, chunks=(8, 5)), b)
    expect_h, expect_c = lstm_numpy(cx, gates, b)
    np.testing.assert_allclose(hy.compute(), expect_h, **TOL)
    np.testing.assert_allclose(cy.compute(), expect_c, **TOL)


SUM_IR = """graph(%x : Tensor, %y : Tensor, %alpha : float):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %y)
  %b : Tensor = aten::mul(%a, %alpha)
  %dims : int[] = prim::ListConstruct(%one)
  %keep : bool = prim::Constant[value={keep}]()
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%b, %dims, %keep, %none)
  %e : Tensor = aten::exp(%s)
  %r : Tensor = aten::add(%e, %s, %one)
  return (%r, %b)"""


@pytest.mark.parametrize("keep, fuse", [(0, True), (1, False)])
def test_sum_over_a_chunked_axis_is_a_tree_reduction(keep, fuse):
    fn = fusejit.compile(fusejit.parse_ir(SUM_IR.replace("{keep}", str(keep))), fuse=fuse)
    x, y = rand(12, 40), rand(12, 40)
    r, b = fn(da.from_array(x, chunks=(5, 6)), da.from_array(y, chunks=(12, 6)), 0.25)
    s = np.sum(x * y * np.float32(0.25), axis=1, keepdims=bool(keep))
    np.testing.assert_allclose(b.compute(), x * y * np.float32(0.25), **TOL)
    np.testing.assert_allclose(r.compute(), np.exp(s) + s, rtol=1e-4, atol=1e-5)
    # Dask's reduction, not a rechunk to one piece: its layers are in the graph
    assert any("sum" in name or "reduction" in name for name in r.dask.layers)
    assert b.numblocks == (3, 7)


def test_sum_of_everything_and_integer_sums_as_pytorch_does():
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::sum(%x, %none)
  return (%s)""")
    x = np.arange(1000, dtype=np.int32).reshape(40, 25)
    out = fusejit.compile(graph, fuse=True)(da.from_array(x, chunks=(9, 7)))
    assert out.dtype == np.int64 and out.compute() == x.sum(dtype=np.int64)


def test_unchunkable_node_is_named():
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %s : Tensor = aten::softmax(%x, %one, %none) # model.py:3:8
  %r : Tensor = aten::relu(%s)
  return (%r)""")
    fn = fusejit.compile(graph, fuse=True)
    with pytest.raises(fusejit.FusejitError, match=r"aten::softmax at model\.py:3:8"):
        fn(da.from_array(rand(8, 4), chunks=(4, 2)))


def test_matmul_over_a_chunked_contraction_axis_runs_through_dask():
    from fusejit.examples import lstm_cell

    x, hx, cx = rand(20, 16), rand(20, 32), rand(20, 32)
    weights = (rand(128, 16) * 0.3, rand(128, 32) * 0.3, rand(128), rand(128))
    hy, cy = fusejit.jit(lstm_cell)(da.from_array(x, chunks=(6, 5)), da.from_array(hx, chunks=8),
                                    da.from_array(cx, chunks=(7, 32)), *weights)
    assert any(name.startswith("matmul") for name in hy.dask.layers)
    expect_h, expect_c = lstm_cell(x, hx, cx, *weights)
    np.testing.assert_allclose(hy.compute(), expect_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cy.compute(), expect_c, rtol=1e-4, atol=1e-5)


@fusejit.jit
def scaled_product(x, w):
    return np.tanh(x) @ (w * 0.5)


def test_unrelated_pointwise_work_in_one_stage_runs_as_separate_blockwise():
    # tanh(x) (20, 6) and w * 0.5 (6, 3) share a stage but not a broadcast shape
    x, w = rand(20, 6), rand(6, 3)
    out = scaled_product(da.from_array(x, chunks=(7, 4)), da.from_array(w, chunks=(4, 3)))
    np.testing.assert_allclose(out.compute(), np.tanh(x) @ (w * 0.5), rtol=1e-5, atol=1e-6)


@fusejit.jit
def with_bias(x, b, row):
    c = np.tanh(b) + 1.0
    d = np.tanh(row) * 2.0
    return x * c + d, c, d


def test_outputs_narrower_than_their_stage_come_from_the_first_chunk():
    x, b, row = rand(20, 6), rand(6), rand(1, 6)
    y, c, d = with_bias(da.from_array(x, chunks=(7, 4)), da.from_array(b, chunks=4),
                        da.from_array(row, chunks=(1, 3)))
    assert (y.shape, c.shape, d.shape) == ((20, 6), (6,), (1, 6))
    # Dask's unified chunks along the shared axis, one chunk where they are narrow
    assert c.chunks[0] == d.chunks[1] == y.chunks[1] and d.chunks[0] == (1,)
    expect_c, expect_d = np.tanh(b) + 1, np.tanh(row) * 2
    np.testing.assert_allclose(y.compute(), x * expect_c + expect_d, **TOL)
    np.testing.assert_allclose(c.compute(), expect_c, **TOL)
    np.testing.assert_allclose(d.compute(), expect_d, **TOL)
    # the only output of its stage, narrow (the stage's other node is dead code)
    graph = fusejit.parse_ir("""graph(%x : Tensor, %b : Tensor):
  %c : Tensor = aten::tanh(%b)
  %y : Tensor = aten::mul(%x, %c)
  return (%c)""")
    only = fusejit.compile(graph, fuse=True)(da.from_array(x, chunks=3), da.from_array(b, chunks=2))
    np.testing.assert_allclose(only.compute(), np.tanh(b), **TOL)


def test_arrays_that_do_not_broadcast_are_an_error_not_a_wrong_answer():
    x = da.from_array(rand(6, 4), chunks=2)
    with pytest.raises(fusejit.FusejitError, match=r"does not broadcast"):
        chain(x, da.from_array(rand(6, 5), chunks=2))


def test_control_flow_over_whole_arrays_is_named():
    graph = fusejit.parse_ir("""graph(%x : Tensor, %flag : bool):
  %r : Tensor = prim::If(%flag) # model.py:7:4
    block0():
      %a : Tensor = aten::neg(%x)
      -> (%a)
    block1():
      -> (%x)
  return (%r)""")
    with pytest.raises(fusejit.FusejitError, match=r"prim::If at model\.py:7:4"):
        fusejit.compile(graph)(da.from_array(rand(8, 4), chunks=4), True)


def test_bad_arguments_get_the_executors_errors():
    x = da.from_array(rand(8, 4), chunks=4)
    with pytest.raises(fusejit.FusejitError, match="too many positional arguments"):
        chain(x, x, x)
    with pytest.raises(fusejit.FusejitError, match="expected 2 arguments"):
        fusejit.compile(chain.graph, fuse=True)(x, x, x)
    with pytest.raises(fusejit.FusejitError, match=r"argument 'y': a str is not supported"):
        chain(x, "y")
    with pytest.raises(fusejit.FusejitError, match="complex"):
        chain(x, x.astype(np.complex64))
    with pytest.raises(fusejit.FusejitError, match="compute_chunk_sizes"):
        chain(x[x[:, 0] > 0], x[x[:, 0] > 0])


def test_pickles_as_text_and_rebuilds_once_per_process():
    import linecache

    from fusejit.runtime.portable import graph_text, jit_from_source

    x, y = rand(6, 5), rand(6, 5)
    assert pickle.loads(pickle.dumps(chain)) is chain     # a module's function: by reference
    # Not found in its module (made in __main__ or a notebook): its function and source travel.
    function, device, file, lines = chain.fn, chain.device, chain.fn.__code__.co_filename, \
        linecache.getlines(chain.fn.__code__.co_filename)
    rebuilt = jit_from_source(function, device, file, lines)
    assert str(rebuilt.graph) == str(chain.graph)
    np.testing.assert_array_equal(rebuilt(x, y), chain(x, y))
    np.testing.assert_allclose(rebuilt.__wrapped__(x, y), chain(x, y), **TOL)
    # Where the source file is missing (a notebook cell's), the text sent stands in for it.
    file = "/nonexistent/fusejit-sent-source.py"
    code = function.__code__.replace(co_filename=file)
    moved = type(function)(code, function.__globals__, function.__name__)
    try:
        again = jit_from_source(moved, device, file, lines)
        np.testing.assert_array_equal(again(x, y), chain(x, y))
    finally:
        linecache.cache.pop(file, None)
    compiled = fusejit.compile(fusejit.parse_ir(SUM_IR.replace("{keep}", "0")), fuse=True)
    assert b"aten::sum" in pickle.dumps(compiled)
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %c : Tensor = prim::Constant[value={2}]()
  %r : Tensor = aten::mul(%x, %c)
  return (%r)""")
    graph.nodes().__next__().t_("value", np.ones(3, np.float32))
    with pytest.raises(fusejit.FusejitError, match="cannot send"):
        graph_text(graph)


def test_import_fusejit_does_not_import_dask():
    code = ("import sys, numpy as np, fusejit\n"
            "g = fusejit.parse_ir('graph(%x : Tensor):\\n  %r : Tensor = aten::neg(%x)\\n"
            "  return (%r)')\n"
            "fusejit.compile(g)(np.ones(3))\n"
            "assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')]\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


# -- dask.distributed: two worker processes ------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def _slowly(block):
    # 16 of these take 1.6 s or more on two workers: the kill, 0.4 s after the victim has
    # work, comes mid-computation unless this process is held up 1.2 s more; after it, they
    # are most of the time the survivor spends redoing the victim's share.
    time.sleep(0.2)
    return block


def _memo_keys():
    from fusejit.runtime import portable

    return set(portable._MEMO)


# 13-22 s with the cluster's start and stop on two busy cores: at the ~20 s that makes it `slow`.
# (`slow` only labels: the suite's default run, .ci/run, still runs it.)
@pytest.mark.slow
def test_local_cluster_and_a_worker_killed_mid_computation(client):
    x, y = rand(64, 9), rand(64, 9)
    dx, dy = da.from_array(x, chunks=(8, 5)), da.from_array(y, chunks=(16, 9))
    np.testing.assert_allclose(client.compute(chain(dx, dy)).result(), chain_numpy(x, y), **TOL)
    # the jit function itself travels (as its graph's text) and runs in a worker
    np.testing.assert_allclose(client.submit(chain, x, y).result(),
                               chain_numpy(x, y), **TOL)

    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    # 16 slow tasks ahead of the fused ones keep both workers busy while one is killed
    future = client.compute(chain(dx.map_blocks(_slowly), dy))
    deadline = time.time() + 60
    while not client.processing().get(victim) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.4)
    assert not future.done()
    os.kill(pids[victim], signal.SIGKILL)
    np.testing.assert_allclose(future.result(timeout=240), chain_numpy(x, y), **TOL)

    # the nanny's replacement has never seen the function: it rebuilds it from the text
    client.wait_for_workers(2, timeout=120)
    fresh = [w for w, pid in client.run(os.getpid).items() if pid not in pids.values()]
    assert fresh, "the killed worker was not replaced"
    cx, gates, b = rand(20, 3), rand(20, 12), rand(12)
    hy, cy = lstm_pointwise(da.from_array(cx, chunks=(6, 3)), da.from_array(gates, chunks=6), b)
    got_h, got_c = [f.result(timeout=240) for f in client.compute([hy, cy], workers=fresh)]
    expect_h, expect_c = lstm_numpy(cx, gates, b)
    np.testing.assert_allclose(got_h, expect_h, **TOL)
    np.testing.assert_allclose(got_c, expect_c, **TOL)
    assert client.run(_memo_keys, workers=fresh)[fresh[0]], "nothing was rebuilt on it"

