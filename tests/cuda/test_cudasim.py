"""The CUDA codegen, launch path and executor under Numba's simulator, against the CPU results.

Run in their own process (``NUMBA_ENABLE_CUDASIM=1``); NumPy arrays stand in for device
arrays. Oracles: the operator library's NumPy bodies for single ops, the reference
interpreter on CPU and PyTorch's outputs (``outputs.npz``) for whole graphs.
"""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.errors import FusejitError, InterpreterError
from fusejit.ir.parser import parse_ir
from fusejit.ir.types import TensorType
from fusejit.runtime.devices import cuda_device
from fusejit.runtime.executor import compile as compile_graph
from fusejit.runtime.fusion.cuda_compiler import CudaFusedKernel
from tests.conformance import test_fuser_conformance2 as conformance2
from tests.conftest import CASES, corpus_path, read_corpus

from .cases import OP_CASES, assert_matches, op_graph, op_inputs, reference

pytestmark = pytest.mark.cudasim


@pytest.fixture(scope="module")
def device():
    dev = cuda_device()
    assert dev.simulated and dev.xp is np
    return dev


@pytest.mark.parametrize("case", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_simple_map_op(device, case):
    graph = parse_ir(op_graph(case))
    inputs = op_inputs(case)
    kernel = CudaFusedKernel(graph, device)
    (got,) = kernel(*inputs)
    assert "cuda.gridsize(1)" in kernel.source(*inputs)
    assert_matches(got, reference(graph, inputs))


BROADCAST = """graph(%a : Float(*, *), %b : Float(*), %s : float, %z : Float()):
  %one : int = prim::Constant[value=1]()
  %m : Float(*, *) = aten::mul(%a, %b)
  %n : Float(*, *) = aten::add(%m, %s, %one)
  %r : Float(*, *) = aten::sub(%n, %z, %one)
  return (%r)
"""


THREE_D = """graph(%x : Float(*, *, *), %y : Float(*, *, *)):
  %one : int = prim::Constant[value=1]()
  %m : Float(*, *, *) = aten::mul(%x, %y)
  %r : Float(*, *, *) = aten::add(%m, %x, %one)
  return (%r)
"""


def test_kernels_index_random_layouts_as_numpy_does(device):
    """Transposed, sliced with steps, broadcast and size-1 dimensions: the kernel's index
    arithmetic (unit and zero strides, leading size-1 dimensions dropped) against NumPy."""
    kernel = CudaFusedKernel(parse_ir(THREE_D), device)
    rng = np.random.default_rng(7)

    def operand(shape):
        base = rng.standard_normal(tuple(2 * s for s in shape)).astype(np.float32)
        view = base[tuple(slice(None, None, 2) if rng.random() < 0.4 else slice(0, s)
                          for s in shape)]
        order = rng.permutation(3) if rng.random() < 0.4 else np.arange(3)
        return np.ascontiguousarray(view).transpose(order).copy().transpose(np.argsort(order)) \
            if rng.random() < 0.5 else view

    for _ in range(25):
        shape = tuple(int(v) for v in rng.choice([1, 2, 3, 5], 3))
        x = operand(shape)
        y = operand(tuple(1 if rng.random() < 0.4 else s for s in shape))
        (got,) = kernel(x, y)
        np.testing.assert_allclose(got, x * y + x, rtol=1e-6)


def test_contiguous_calls_index_without_division(device):
    kernel = CudaFusedKernel(parse_ir(THREE_D), device)
    x = np.ones((4, 5, 6), np.float32)
    source = kernel.source(x, x)
    assert "//" not in source and "x0[f0 + i2]" in source
    transposed = np.ones((6, 5, 4), np.float32).transpose(2, 1, 0)
    assert "//" in kernel.source(x, transposed)


@pytest.mark.parametrize("a_shape, b_shape, transpose", [
    ((3, 1), (5,), False),          # column against row: both broadcast
    ((4, 6), (6,), False),          # row vector
    ((6, 4), (6,), True),           # a transposed (non-contiguous) view
    ((1, 7), (1,), False),          # size-1 on both sides
])
def test_broadcasting(device, a_shape, b_shape, transpose):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(a_shape).astype(np.float32)
    a = a.T if transpose else a
    b = rng.standard_normal(b_shape).astype(np.float32)
    z = np.asarray(0.25, np.float32)
    (got,) = CudaFusedKernel(parse_ir(BROADCAST), device)(a, b, 1.5, z)
    want = (a * b + np.float32(1.5)) - z
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # (in the inputs' memory order, as NumPy's result: F-ordered for the transposed a)
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == \
        (want.flags.c_contiguous, want.flags.f_contiguous)


def test_integer_division_by_zero_raises(device):
    case = next(c for c in OP_CASES if c[0] == "remainder_long")
    a, b = op_inputs(case)
    b[1, 2] = 0
    with pytest.raises(InterpreterError, match="division by zero"):
        CudaFusedKernel(parse_ir(op_graph(case)), device)(a, b)


def test_empty_tensor_launches_nothing(device):
    case = next(c for c in OP_CASES if c[0] == "mul")
    a = np.zeros((0, 4), np.float32)
    (got,) = CudaFusedKernel(parse_ir(op_graph(case)), device)(a, a)
    assert got.shape == (0, 4)


def test_source_names_compute_capability(device):
    case = OP_CASES[0]
    src = CudaFusedKernel(parse_ir(op_graph(case)), device).source(*op_inputs(case))
    major, minor = device.compute_capability
    assert f"target cuda sm_{major}{minor}" in src
    assert "@cuda.jit(cache=True)" in src and "for lin in range(start, numel, step):" in src


def _corpus(case):
    graph = parse_ir(read_corpus(f"{case}/input.ir"))
    ins = np.load(corpus_path(f"{case}/inputs.npz"))
    outs = np.load(corpus_path(f"{case}/outputs.npz"))
    # Scalar parameters are stored as 0-dim arrays.
    inputs = [ins[k] if isinstance(p.type, TensorType) else ins[k].item()
              for p, k in zip(graph.inputs, ins)]
    return graph, inputs, [outs[k] for k in outs]


RUNNABLE = [c for c in CASES if c != "tensor_constants"]   # its constant values are elided


@pytest.mark.parametrize("case", RUNNABLE)
def test_corpus_graph(device, case):
    """Chunk, concat, broadcasting, loops, ifs, the LSTM and GRU cells: the whole graph on the
    device against PyTorch's outputs and the CPU reference interpreter."""
    graph, inputs, expected = _corpus(case)
    fn = compile_graph(graph, fuse=True, device="cuda")
    got = fn(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    cpu = compile_graph(graph, engine="reference")(*inputs)
    cpu = cpu if isinstance(cpu, tuple) else (cpu,)
    assert len(got) == len(expected) == len(cpu)
    for g, c, e in zip(got, cpu, expected):
        if not isinstance(c, np.ndarray):            # sizes: int lists
            assert g == c and list(g) == list(e)
            continue
        assert isinstance(g, np.ndarray) and g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case, kernels", [("lstm_cell", 1), ("chunk_fused_dim1", 1),
                                           ("cat_fused_dim0", 1), ("nothing_fuses_single_ops", 0)])
def test_groups_become_cuda_kernels(device, case, kernels):
    graph, inputs, _ = _corpus(case)
    fn = compile_graph(graph, fuse=True, device="cuda")
    text = str(fn.graph_for(*inputs))
    assert text.count("= prim::FusionGroup_") == kernels
    plan = fn.plan_for(fn.check_inputs(inputs))
    assert len(plan.kernels) == kernels
    assert all(isinstance(op.kernel, CudaFusedKernel) for op in plan.kernels)


def test_unfused_simple_map_runs_as_one_node_kernel(device):
    graph = parse_ir(op_graph(next(c for c in OP_CASES if c[0] == "tanh")))
    fn = compile_graph(graph, fuse=False, device="cuda")
    x = op_inputs(OP_CASES[0])[0]
    np.testing.assert_allclose(fn(x), np.tanh(x), rtol=2e-6, atol=1e-7)
    plan = fn.plan_for(fn.check_inputs([x]))
    assert plan.kernels == []
    single = [op for op in plan.code.operations if getattr(op, "__name__", "") == "<lambda>"]
    assert single, "the simple map should run through a kernel"


# A graph the CPU executor specialises, canonicalises and fuses: an aten::chunk that only the
# pipeline's canonicalisation turns into a ConstantChunk, and a dead op that DCE removes.
PIPELINE = """graph(%x : Tensor, %y : Tensor):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %l : Tensor[] = aten::chunk(%x, %two, %one)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)
  %dead : Tensor = aten::exp(%y)
  %m : Tensor = aten::mul(%a, %b)
  %r : Tensor = aten::add(%m, %y, %one)
  return (%r)
"""


@pytest.mark.parametrize("fuse", [True, False])
def test_cuda_plans_take_the_cpu_pipeline(device, fuse):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    cuda = compile_graph(parse_ir(PIPELINE), fuse=fuse, device="cuda")
    cpu = compile_graph(parse_ir(PIPELINE), fuse=fuse, engine="reference")
    np.testing.assert_allclose(cuda(x, y), x[:, :2] * x[:, 2:] + y, rtol=1e-6)
    # the same passes; only the tensors' device differs
    cpu_text = str(cpu.graph_for(x, y)).replace("device=cpu", "device=cuda")
    assert str(cuda.graph_for(x, y)) == cpu_text
    if fuse:
        text = str(cuda.graph_for(x, y))
        assert "aten::chunk" not in text and "aten::exp" not in text
        assert text.count("= prim::FusionGroup_") == 1
        # specialised per argument spec, as on the CPU: a float64 call gets its own plan
        cuda(x.astype(np.float64), y.astype(np.float64))
        assert len(cuda._plans) == 2


def test_cuda_compile_honours_its_arguments(device):
    graph = parse_ir(PIPELINE)
    with pytest.raises(FusejitError, match="engine='native' runs on the CPU only"):
        compile_graph(graph, fuse=True, engine="native", device="cuda")
    for precise in (True, False):
        fn = compile_graph(graph, fuse=True, engine="reference", precise=precise, device="cuda")
        assert fn.precise is precise and fn.engine == "reference"
    fn = compile_graph(graph, fuse=True, device="cuda")
    x = np.ones((2, 4), np.float32)
    y = np.ones((2, 2), np.float32)
    fn(x, y)
    assert fn.plan_for(fn.check_inputs([x, y])).tier() == "reference"


def test_tensor_argument_must_be_an_array(device):
    fn = compile_graph(parse_ir(BROADCAST), device="cuda")
    with pytest.raises(InterpreterError, match="expects a tensor on cuda"):
        fn([1.0], np.ones(3, np.float32), 1.0, np.asarray(1.0, np.float32))


def test_group_chunking_a_chunk_piece(device):
    """A ConstantChunk of a chunk piece inside a group (PyTorch 2.13 forms such groups; see
    tests/data/fuzz_chunk_of_chunk.ir) compiles to a CUDA kernel too."""
    graph = parse_ir("""graph(%i : Float(1), %x : Float(4)):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=0](%x)
  %c : Tensor, %d : Tensor = prim::ConstantChunk[chunks=2, dim=0](%a)
  %s : Tensor = aten::sqrt(%a)
  %r : Tensor = aten::lerp(%s, %i, %c)
  return (%r, %s)
""")
    i = np.array([0.5], np.float32)
    x = np.array([4.0, 9.0, 16.0, 25.0], np.float32)
    r, s = CudaFusedKernel(graph, device)(i, x)
    sq = np.sqrt(x[:2])
    np.testing.assert_allclose(s, sq, rtol=1e-6)
    np.testing.assert_allclose(r, sq + x[:1] * (i - sq), rtol=1e-6)


def test_jit_on_cuda_runs_cuda_kernels(device):
    import fusejit

    @fusejit.jit(device="cuda")
    def f(x, y):
        return np.tanh(x * y) + y

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.linspace(0, 1, 3, dtype=np.float32)
    np.testing.assert_allclose(f(x, y), np.tanh(x * y) + y, rtol=1e-6)
    assert "device=cuda" in str(f.graph_for(x, y))
    compiled, args = f._specialise((x, y))
    plan = compiled.plan_for(compiled.check_inputs(args))
    assert plan.kernels and all(isinstance(op.kernel, CudaFusedKernel) for op in plan.kernels)


def test_jit_on_cuda_hashes_unsigned_arrays_as_numpy(device):
    """uint64 products by constants beyond int64, shifts by any count (0 past the width)
    and uint32 wraparound, in CUDA kernels, bit for bit against NumPy."""
    import fusejit

    @fusejit.jit(device="cuda")
    def mix(z, w, k):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        w = w * np.uint32(2654435761) + np.uint32(12345)
        return z ^ (z >> np.uint64(31)), w >> k, w << 40

    rng = np.random.default_rng(9)
    z = rng.integers(0, 1 << 64, 257, dtype=np.uint64)
    w = rng.integers(0, 1 << 32, 257, dtype=np.uint32)
    for k in (3, 31, 32, 70):
        for got, want in zip(mix(z, w, k), mix.__wrapped__(z, w, k), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    compiled, args = mix._specialise((z, w, 3))
    plan = compiled.plan_for(compiled.check_inputs(args))
    assert plan.kernels and all(isinstance(op.kernel, CudaFusedKernel) for op in plan.kernels)


@pytest.mark.parametrize("case", conformance2.KERNEL_CASES)
def test_conformance2_kernels_on_cuda(device, case):
    """The second PyTorch corpus's kernel cases (chunk of a chunk piece, concatenations,
    broadcasts, bool and int outputs) through compile(device="cuda") against PyTorch."""
    fn = compile_graph(parse_ir(conformance2._read(case, "input.ir")), fuse=True, device="cuda")
    inputs = conformance2._inputs(case)
    plan = fn.plan_for(fn.check_inputs(inputs))
    assert plan.kernels and all(isinstance(op.kernel, CudaFusedKernel) for op in plan.kernels)
    conformance2._check_outputs(case, fn(*inputs))
