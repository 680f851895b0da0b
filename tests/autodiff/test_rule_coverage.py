"""Every differentiable overload of the op table has a derivative rule, or is listed here with
the reason it has none.

Differentiable: some input is a ``Tensor`` and the one result is a ``Tensor``, and the op is not
in ``NONDIFFERENTIABLE`` (integer, bool and piecewise-constant results). The lists below must
stay exact: an overload that gains a rule has to leave them (the second test).
"""

from __future__ import annotations

import re

import fusejit.autodiff  # noqa: F401  (fills the derivative slots)
from fusejit.autodiff.rules import NONDIFFERENTIABLE
from fusejit.oplib import OPS

# Ops that only backward graphs use: fusejit does not differentiate twice.
BACKWARD_ONLY = {
    "aten::select_backward": "select's gradient; no double backward",
    "aten::slice_backward": "slice's gradient; no double backward",
    "aten::digamma": "lgamma's gradient; its own (polygamma) would serve double backward only",
    "fusejit::cumprod_backward": "cumprod's gradient; no double backward",
    "fusejit::running_backward": "np.maximum.accumulate's gradient; no double backward",
    "fusejit::svdvals_backward": "svdvals' gradient; no double backward",
    "fusejit::eigvalsh_backward": "eigvalsh's gradient; no double backward",
    "fusejit::partition_backward": "np.partition's gradient; no double backward",
    "fusejit::eigh_backward": "eigh's gradient; no double backward",
    "fusejit::convolve_grad": "np.convolve's gradient; no double backward",
    "fusejit::pad_backward": "np.pad's gradient (edge, wrap, reflect, symmetric); no double "
                             "backward",
}

# Ops that only the plans @fusejit.jit runs hold, put there after any gradient was taken.
EXECUTION_ONLY = {
    "fusejit::sort_values": "passes/sorted_values.py; np.sort's own graph (argsort and a "
                            "gather) carries its gradient",
    "fusejit::select_sorted": "passes/sorted_values.py, for np.median and np.percentile",
    "fusejit::wrap_pad": "passes/rolls_as_views.py; np.roll's own graph (slices and a cat) "
                         "carries its gradient",
    "fusejit::kept_shape": "passes/carried_arrays.py; the loop's in-place updates it checks "
                           "carry their own gradients",
}

# Overloads without a rule yet: differentiating a graph with one raises AutodiffError naming
# the node (tests/autodiff/test_api.py).
NO_RULE_YET: set[str] = {
    "aten::linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
    "(Tensor U, Tensor S, Tensor Vh)",
    'aten::linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)',
    "fusejit::pinv(Tensor a, float? rcond, bool hermitian) -> Tensor",
    "fusejit::lstsq(Tensor a, Tensor b, float? rcond) -> (Tensor solution, Tensor residuals, "
    "Tensor rank, Tensor singular_values)",
    "fusejit::polyfit(Tensor x, Tensor y, int deg) -> Tensor",
    "fusejit::reduceat(Tensor self, Tensor indices, int dim, str ufunc) -> Tensor",
}

# (one array, or a tuple of them: linalg_svd's U, S, Vh)
_TENSOR_RESULT = re.compile(r"-> (Tensor(\([a-z]!?\))?|\(Tensor \w+(, Tensor \w+)*\))$")


def _differentiable(schema: str, kind: str) -> bool:
    if "(" not in schema:
        # prim:: kinds have no schema to tell; those with rules (ConstantChunk, ListUnpack)
        # are in test_rules_gradcheck.py
        return False
    formals = schema[schema.index("(") + 1:schema.rindex(") ->")]
    takes_tensor = re.search(r"(^|, |\*, )Tensor(\([a-z]!?\))?(\[\])?\?? ", formals) is not None
    return takes_tensor and bool(_TENSOR_RESULT.search(schema)) and kind not in NONDIFFERENTIABLE


def _excused(schema: str, kind: str) -> bool:
    # In-place forms (name_): the autodiff refuses writes, as PyTorch's symbolic script has no
    # in-place formulas.
    return kind.endswith("_") or kind in BACKWARD_ONLY or kind in EXECUTION_ONLY or \
        schema in NO_RULE_YET


def test_every_differentiable_overload_has_a_rule_or_a_listed_reason():
    missing = [schema for schema, overload in OPS.items()
               if _differentiable(schema, overload.op.kind) and overload.derivative is None
               and not _excused(schema, overload.op.kind)]
    assert missing == []


def test_the_exception_lists_are_exact():
    # Each listed overload exists, is differentiable by the rule above and still has no rule.
    for schema in NO_RULE_YET:
        assert schema in OPS and OPS[schema].derivative is None, schema
        assert _differentiable(schema, OPS[schema].op.kind), schema
    for kind in [*BACKWARD_ONLY, *EXECUTION_ONLY]:
        overloads = [o for o in OPS.values() if o.op.kind == kind]
        assert overloads and all(o.derivative is None for o in overloads), kind


def test_the_check_sees_the_pointwise_ops():
    # Guard against a filter that lets everything through: these must count as differentiable.
    for schema in ("aten::exp(Tensor self) -> Tensor",
                   "aten::clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
                   "aten::where(Tensor condition, Tensor self, Scalar other) -> Tensor",
                   "aten::transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)"):
        assert _differentiable(schema, OPS[schema].op.kind), schema
    assert not _differentiable("aten::size(Tensor self) -> int[]", "aten::size")
    assert not _differentiable("aten::eq(Tensor self, Tensor other) -> Tensor", "aten::eq")
