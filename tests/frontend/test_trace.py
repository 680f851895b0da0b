"""fusejit.trace: recorded nodes, complete types from the examples, locations, and errors."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import fusejit
from fusejit import ops as F
from fusejit.frontend import trace
from fusejit.ir import TensorType, lint
from fusejit.ir.types import ScalarType


def cell(x, w, b):
    h = x @ w.T + b
    a, c = np.split(h, 2, axis=1)
    return F.sigmoid(a) * np.tanh(c), h.sum(axis=0)


def test_trace_records_ops_with_complete_types():
    x = np.ones((3, 4), np.float32)
    w = np.ones((6, 4), np.float32)
    b = np.ones(6, np.float32)
    g = trace(cell, x, w, b)
    lint(g)
    assert [v.debug_name for v in g.inputs] == ["x", "w", "b"]
    assert g.inputs[0].type == TensorType(ScalarType.Float, (3, 4), (4, 1), False, "cpu")
    ops = [n for n in g.nodes() if n.kind != "prim::Constant"]
    assert [n.kind for n in ops] == ["aten::t", "aten::mm", "aten::add", "aten::chunk",
                                     "prim::ListUnpack", "aten::sigmoid", "aten::tanh",
                                     "aten::mul", "aten::sum"]
    t, mm = ops[0], ops[1]
    assert t.output().type.sizes == (4, 6) and t.output().type.strides == (1, 4)
    assert mm.output().type.sizes == (3, 6)
    pieces = ops[4].outputs
    assert [p.type.sizes for p in pieces] == [(3, 3), (3, 3)]
    assert [p.type.strides for p in pieces] == [(6, 1), (6, 1)]  # views, as chunk gives
    assert ops[-1].output().type.sizes == (6,)
    _, first = inspect.getsourcelines(cell)
    assert mm.source_range.file == __file__ and mm.source_range.line == first + 1


def promotes(x, i):
    return x + 1, i * 0.5, i / 2, np.exp(i), i > 1


def test_traced_dtypes_follow_numpy_promotion():
    x = np.ones(3, np.float16)
    i = np.arange(3, dtype=np.int64)
    g = trace(promotes, x, i)
    # oracle: NumPy itself (Python scalars are weak, NEP 50; int64 * 0.5, int / int and exp of
    # integers are float64)
    want = [ScalarType.from_dtype(np.asarray(r).dtype) for r in promotes(x, i)]
    assert want == [ScalarType.Half, ScalarType.Double, ScalarType.Double, ScalarType.Double,
                    ScalarType.Bool]
    assert [v.type.scalar_type for v in g.outputs] == want


def closure_constant(x):
    return x * TABLE


TABLE = np.array([1.0, 2.0, 3.0], np.float32)


def test_closed_over_arrays_become_constants():
    g = trace(closure_constant, np.ones(3, np.float32))
    mul = [n for n in g.nodes() if n.kind == "aten::mul"][0]
    assert mul.input(1).node.kind == "prim::Constant"
    np.testing.assert_array_equal(mul.input(1).node.t("value"), TABLE)


def test_example_inputs_are_not_modified():
    def f(x):
        x += 1
        return x

    x = np.zeros(3, np.float32)
    trace(f, x)
    np.testing.assert_array_equal(x, np.zeros(3, np.float32))


def unsupported_function(x):
    return np.i0(x)


def unsupported_ufunc_method(x):
    return np.add.reduce(x)


def bad_index(x):
    return x[x > 0]


def failing_example(x, y):
    return x @ y


@pytest.mark.parametrize("fn, inputs, message", [
    (unsupported_function, [np.ones(3)], "np.i0 is not supported"),
    (unsupported_ufunc_method, [np.ones(3)], "np.add.reduce is not supported"),
    (bad_index, [np.ones(3)], "basic indexing only"),
    (failing_example, [np.ones((2, 3)), np.ones((2, 3))], "failed on the example values"),
])
def test_trace_errors_point_at_the_line(fn, inputs, message):
    with pytest.raises(fusejit.ScriptError, match=message) as info:
        trace(fn, *inputs)
    _, first = inspect.getsourcelines(fn)
    assert f"{__file__}:{first + 1}:" in str(info.value)


def test_non_array_example_inputs_are_rejected():
    with pytest.raises(fusejit.ScriptError, match="only NumPy arrays"):
        trace(lambda x, n: x * n, np.ones(2), 3)


def test_conversion_to_a_plain_array_is_an_error_not_a_silent_constant():
    with pytest.raises(fusejit.ScriptError, match="converted to a plain NumPy array"):
        trace(lambda x: np.asarray(x, dtype=np.float64), np.ones(2))
