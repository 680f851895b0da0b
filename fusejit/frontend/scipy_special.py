"""``scipy.special`` functions that losses call, written with ops that have derivatives::

    expit(x)                    aten::sigmoid(%x)
    logit(p)                    aten::logit(%p, None)
    logsumexp(a, axis)          m + log(sum(exp(a - m), axis))      m = a.max(axis, keepdims)
    softmax(x, axis)            exp(x - m) / sum(exp(x - m), axis, keepdims)
    log_softmax(x, axis)        x - logsumexp(x, axis, keepdims=True)
    xlogy(x, y)                 where(x == 0, 0, x * log(y))
    erf, erfc                   aten::erf, aten::erfc
    gammaln(x)                  where(x == -inf, -inf, lgamma(x))

``m`` keeps ``exp`` from overflowing, as SciPy's own does; its gradient cancels exactly.
``aten::lgamma`` is PyTorch's (and glibc's): +inf at -inf, where SciPy's gammaln gives -inf.
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from .builder import IRBuilder, Item, is_none, is_tensor
from .lowering import _array, as_tensor, binary, unary, where
from .numpy_dtypes import conform
from .numpy_lowering import reduce


def _floating(b: IRBuilder, x: Item, what: str) -> Value:
    (x,) = conform(b, np.exp, [_array(b, x, what)], what)
    return x


def logsumexp(b: IRBuilder, a: Item, axis: Item = None, weights: Item = None,
              keepdims: Item = False, return_sign: Item = False) -> Value:
    what = "scipy.special.logsumexp"
    if not is_none(weights) or b.static(return_sign) is not False:
        raise b.error(f"{what}: the b= and return_sign= arguments are not supported")
    x = _floating(b, a, what)
    top = reduce(b, "max", x, axis, True)
    total = reduce(b, "sum", unary(b, "exp", binary(b, "sub", x, top), what), axis, True)
    out = binary(b, "add", top, unary(b, "log", total, what))
    if b.static_bool(keepdims, f"{what}(keepdims=...)"):
        return out
    return reduce(b, "sum", out, axis, False)   # (drops the kept dims: each holds one value)


def softmax(b: IRBuilder, x: Item, axis: Item = None) -> Value:
    what = "scipy.special.softmax"
    x = _floating(b, x, what)
    e = unary(b, "exp", binary(b, "sub", x, reduce(b, "max", x, axis, True)), what)
    return binary(b, "div", e, reduce(b, "sum", e, axis, True))


def log_softmax(b: IRBuilder, x: Item, axis: Item = None) -> Value:
    x = _floating(b, x, "scipy.special.log_softmax")
    return binary(b, "sub", x, logsumexp(b, x, axis, None, True))


def xlogy(b: IRBuilder, x: Item, y: Item) -> Value:
    what = "scipy.special.xlogy"
    x, y = conform(b, np.multiply, [x, y], what)
    product = binary(b, "mul", x, unary(b, "log", y, what))
    return where(b, binary(b, "eq", x, 0), 0.0, product)


def gammaln(b: IRBuilder, x: Item) -> Value:
    what = "scipy.special.gammaln"
    if not is_tensor(x):    # (a number: SciPy's float64 result, a NumPy scalar)
        x = as_tensor(b, x, what, np.dtype(np.float64))
    y = unary(b, "lgamma", x, what)
    return where(b, binary(b, "eq", x, -np.inf), -np.inf, y)


def logit(b: IRBuilder, p: Item) -> Value:
    return b.emit(aten.logit, [_floating(b, p, "scipy.special.logit"), None],
                  "scipy.special.logit")


__all__ = ["gammaln", "log_softmax", "logit", "logsumexp", "softmax", "xlogy"]
