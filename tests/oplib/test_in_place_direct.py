"""The in-place add_, sub_, mul_ and div_ write into ``self`` with NumPy's ufunc where that computes
what the general in-place form computes (``oplib/binary.py``, ``_in_place``): the same values
and dtype, ``self`` returned, and every other case (other dtypes, broadcasting, alpha, read-only
or bool ``self``, a bool operand of sub_, a float result into ints) through the general form,
with its errors."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.oplib.binary import _add, _div, _mul, _sub
from fusejit.oplib.pointwise import inplace
from fusejit.oplib.table import OPS

_COMPUTE = {"add_": _add, "sub_": _sub, "mul_": _mul, "div_": _div}


def _body(name: str, overload: str):
    """The registered body of ``aten::name`` whose ``other`` is a ``overload``."""
    (entry,) = [o for text, o in OPS.items()
                if text.startswith(f"aten::{name}(") and f"{overload} other" in text]
    return entry.numpy_body


def _cases():
    rng = np.random.default_rng(0)
    f32 = rng.standard_normal((5, 7)).astype(np.float32)
    f64 = rng.standard_normal((5, 7))
    i64 = rng.integers(-50, 50, (5, 7))
    mask = rng.random((5, 7)) < 0.5
    return [
        ("direct: int64 += bool", i64, mask),
        ("direct: float32 op float32", f32, f32 * 3 + 1),
        ("direct: float64 op int64", f64, i64),
        ("direct: float32 op Python float", f32, 0.3),
        ("direct: float64 op Python int", f64, 7),
        ("direct: int64 op Python int", i64, -3),
        ("general: float32 op float64 array", f32, f64),
        ("general: broadcast other", f64, f64[:1]),
        ("general: int32 self", i64.astype(np.int32), 2),
        ("general: huge int", i64, 1 << 63),
        ("general: float32 op NaN", f32, float("nan")),
        ("direct: float64 op an array with zeros", f64, np.where(mask, 0.0, f64)),
        ("general: int64 op int64 (div_: a float result)", i64, i64 + 100),
    ]


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("label, self, other", _cases(), ids=[c[0] for c in _cases()])
def test_the_direct_form_computes_what_the_general_form_computes(name, label, self, other):
    body = _body(name, "Tensor" if isinstance(other, np.ndarray) else "Scalar")
    general = inplace(name, _COMPUTE[name])
    a, b = self.copy(), self.copy()
    other_a = other.copy() if isinstance(other, np.ndarray) else other
    try:
        want = general(b, other_a)
    except Exception as error:  # noqa: BLE001 - the same error, whichever form
        with pytest.raises(type(error)):
            body(a, other_a)
        return
    got = body(a, other_a)
    assert got is a and got.dtype == want.dtype == self.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_an_operand_that_is_a_view_of_self_reads_the_values_before_the_update(name):
    x = np.arange(36.0).reshape(6, 6)
    want = inplace(name, _COMPUTE[name])(x.copy(), x.copy().T)
    got = _body(name, "Tensor")(x, x.T)            # (other is self, transposed)
    np.testing.assert_array_equal(got, want)


def test_errors_stay_the_general_forms():
    sub = _body("sub_", "Tensor")
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        sub(np.arange(3), np.ones(3, bool))
    add = _body("add_", "Scalar")
    with pytest.raises(RuntimeError, match="can't be cast"):
        add(np.arange(3), 0.5)                      # a float result into int64
    with pytest.raises(RuntimeError, match="can't be cast"):
        _body("div_", "Tensor")(np.arange(3), np.arange(1, 4))
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        add(frozen, 1.0)
    np.testing.assert_array_equal(frozen, np.arange(3.0))


def test_alpha_other_than_one_takes_the_general_form():
    x, y = np.arange(6.0), np.linspace(0, 1, 6)
    want = inplace("add_", _add)(x.copy(), y, 2)
    got = _body("add_", "Tensor")(x, y, 2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, np.arange(6.0) + 2 * y)
