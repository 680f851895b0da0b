"""Scalar arithmetic (TorchScript's int/float/bool semantics) and the list/tuple/exception prims."""

from __future__ import annotations

import math
import operator

import pytest

from fusejit.errors import JITException, SchemaError
from fusejit.ir.graph import Graph
from fusejit.ir.types import INT, ListType, TupleType
from fusejit.runtime.ops import OPS, has_operation, make_operation
from tests.runtime.test_ops_support import call, make_node

INT_PAIRS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5), (6, 3)]


@pytest.mark.parametrize("a, b", INT_PAIRS)
def test_int_floordiv_and_remainder_follow_python(a: int, b: int) -> None:
    q, r = call("aten::floordiv", a, b), call("aten::remainder", a, b)
    assert (q, r) == divmod(a, b)
    assert type(q) is int and type(r) is int


@pytest.mark.parametrize("a, b", INT_PAIRS)
def test_int_true_division_is_float(a: int, b: int) -> None:
    got = call("aten::div", a, b)
    assert type(got) is float and got == a / b


@pytest.mark.parametrize("op", ["floordiv", "remainder"])
def test_int_division_by_zero_raises(op: str) -> None:
    with pytest.raises(ZeroDivisionError):
        call(f"aten::{op}", 1, 0)


def test_float_ops_follow_ieee() -> None:
    assert call("aten::div", 1.0, 0.0) == math.inf
    assert math.isnan(call("aten::div", 0.0, 0.0))
    assert math.isnan(call("aten::sqrt", -1.0))
    assert call("aten::log", 0.0) == -math.inf
    assert math.isnan(call("aten::pow", -8.0, 1.0 / 3.0))
    assert call("aten::floordiv", 7.5, 2.0) == 3.0
    assert call("aten::remainder", -7.5, 2.0) == -7.5 % 2.0


_SPECIALS = [0, 3, -7, 2**53 + 1, -(2**62), True, False, 0.0, -0.0, 1.5, -2.25, 0.1, 5e-324,
             1e-310, 1e308, -1e308, math.inf, -math.inf, math.nan]


def test_float_division_is_numpys_float64_division() -> None:
    """``a / b`` of numbers is NumPy's float64 division on every pair of specials (signed
    zeros, subnormals, overflow to inf, inf / inf, NaN, a zero divisor, ints past 2**53):
    Python's own division where it gives a value, NumPy's where Python raises."""
    import numpy as np

    for a in _SPECIALS:
        for b in _SPECIALS:
            got = call("aten::div", a, b)
            with np.errstate(all="ignore"):
                want = float(np.true_divide(np.float64(a), np.float64(b)))
            assert type(got) is float
            assert got == want or (math.isnan(got) and math.isnan(want)), (a, b)
            assert math.copysign(1.0, got) == math.copysign(1.0, want), (a, b)


def test_int_overflow_wraps_like_int64() -> None:
    big = (1 << 63) - 1
    assert call("aten::add", big, 1) == -(1 << 63)
    assert call("aten::mul", 1 << 62, 4) == 0
    assert call("aten::neg", -(1 << 63)) == -(1 << 63)


@pytest.mark.parametrize("op, fn", [("add", operator.add), ("sub", operator.sub),
                                    ("mul", operator.mul), ("lt", operator.lt),
                                    ("ge", operator.ge), ("eq", operator.eq),
                                    ("min", min), ("max", max)])
@pytest.mark.parametrize("a, b", [(3, 4), (2.5, 3), (3, 2.5), (-1.5, -1.5)])
def test_mixed_scalar_arithmetic(op, fn, a, b) -> None:
    got = call(f"aten::{op}", a, b)
    assert got == fn(a, b)
    if op in ("add", "sub", "mul"):
        assert type(got) is (int if isinstance(a, int) and isinstance(b, int) else float)


def test_pow_of_ints_is_float_and_rounding_gives_int() -> None:
    assert call("aten::pow", 2, 10) == 1024.0 and type(call("aten::pow", 2, 10)) is float
    assert call("aten::pow", 2, -1) == 0.5
    assert call("aten::floor", -2.5) == -3 and type(call("aten::floor", -2.5)) is int
    assert call("aten::ceil", -2.5) == -2
    for x in (math.inf, math.nan):   # Python's classes: an OverflowError, a ValueError
        with pytest.raises(type(_error_of(math.floor, x))):
            call("aten::floor", x)


def _error_of(fn, *args) -> BaseException:
    try:
        fn(*args)
    except Exception as error:
        return error
    raise AssertionError(f"{fn.__name__}{args} raised nothing")


def test_conversions_and_bool_logic() -> None:
    assert call("aten::Int", 2.9) == 2 and call("aten::Int", -2.9) == -2
    assert call("aten::Int", True) == 1 and call("aten::Float", 3) == 3.0
    assert call("aten::Bool", 0.0) is False and call("aten::Bool", 3) is True
    assert call("aten::__not__", True) is False
    assert call("aten::__and__", True, False) is False
    assert call("aten::__or__", True, False) is True
    assert call("aten::__xor__", True, True) is False
    with pytest.raises(ValueError):
        call("aten::Int", math.nan)


def test_nan_propagates_through_min_and_max() -> None:
    assert math.isnan(call("aten::min", math.nan, 1.0))
    assert math.isnan(call("aten::max", 1.0, math.nan))


# -- lists, tuples, identity -----------------------------------------------------------------

def test_list_construct_and_unpack() -> None:
    lst = call("prim::ListConstruct", 1, 2, 3)
    assert lst == [1, 2, 3]
    assert call("prim::ListUnpack", lst, num_outputs=3) == (1, 2, 3)
    node = make_node("prim::ListUnpack", lst, num_outputs=2)
    with pytest.raises(RuntimeError, match="Expected 2 elements in a list but found 3"):
        make_operation(node)(lst)


def test_tuple_construct_unpack_index() -> None:
    tup = call("prim::TupleConstruct", 1, 2.5, True)
    assert tup == (1, 2.5, True)
    graph = Graph()
    t = graph.add_input(type=TupleType((INT, INT)))
    unpack = graph.insert("prim::TupleUnpack", [t], 3)
    with pytest.raises(RuntimeError, match="tuple of 3"):
        make_operation(unpack)((1, 2))
    assert call("prim::TupleIndex", tup, -1) is True


def test_list_ops() -> None:
    lst = [4, 5, 6]
    assert call("aten::len", lst) == 3
    assert call("aten::__getitem__", lst, -1) == 6
    with pytest.raises(IndexError):
        call("aten::__getitem__", lst, 3)
    assert call("aten::append", lst, 7) is lst and lst == [4, 5, 6, 7]
    assert not OPS["aten::append(t[](a!) self, t(c -> *) el) -> t[](a!)"].pure


def test_is_and_isnot() -> None:
    import numpy as np

    x = np.zeros(2)
    assert call("aten::__is__", None, None) is True
    assert call("aten::__isnot__", x, None) is True
    assert call("aten::__is__", x, x) is True
    assert call("aten::__is__", x, x.copy()) is False


def test_raise_exception_raises_jit_exception_with_message() -> None:
    node = make_node("prim::RaiseException", "bad input", num_outputs=0)
    with pytest.raises(JITException, match="bad input"):
        make_operation(node)("bad input")


def test_uninitialized_and_unchecked_cast() -> None:
    assert call("prim::Uninitialized") is None
    obj = [1]
    assert call("prim::unchecked_cast", obj) is obj


@pytest.mark.parametrize("kind", ["prim::If", "prim::Loop", "prim::Constant", "prim::fork",
                                  "aten::wait", "prim::PythonOp", "prim::Store"])
def test_interpreter_kinds_have_no_operation(kind: str) -> None:
    graph = Graph()
    node = graph.insert(kind, [], 0)
    assert not has_operation(node)
    with pytest.raises(SchemaError, match="interpreter"):
        make_operation(node)


def test_subgraph_nodes_have_no_operation() -> None:
    graph = Graph()
    node = graph.insert_node(graph.create_with_subgraph("prim::DifferentiableGraph"))
    assert not has_operation(node)


def test_unknown_kind_is_a_schema_error() -> None:
    graph = Graph()
    x = graph.add_input(type=ListType(INT))
    node = graph.insert("aten::frobnicate", [x], 1)
    assert not has_operation(node)
    with pytest.raises(SchemaError, match="aten::frobnicate is not a known operator"):
        make_operation(node)


def test_every_registered_schema_has_an_entry() -> None:
    from fusejit.ir.schema import registry
    from fusejit.runtime.ops import INTERPRETER_KINDS

    missing = [s.text for kind in registry.kinds() if kind not in INTERPRETER_KINDS
               for s in registry.schemas(kind) if s.text not in OPS]
    assert missing == []
