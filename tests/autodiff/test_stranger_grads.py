"""Gradients of NumPy-spelled losses and models (``stranger_programs.py``), taken with
``fusejit.grad`` as a user takes them (default engine and fusion), against float64 central
finite differences of the plain Python function: 1e-6 relative error. Constructs that cannot be
differentiated must be refused with a FusejitError naming the source line.

A user's first calls of a gradient run on the interpreter, tiered (fusion groups op by op
until they have taken 0.2 s, then compiled), and once warm as stages compiled whole
(``tiering.WHOLE_AFTER_SECONDS``). The programs take turns at the three: every fourth compiled
whole at once (``whole=True``, 2-3 s of compiling a program), every fourth on the interpreter
with its kernels compiled (the suite's FUSEJIT_TIERING=0, about 1 s), the others as a user's
first call runs them (tiering on, about 0.1 s). ``test_whole_stages.py`` compares the whole
stages with the interpreter on its own programs.

The default suite compiles far fewer: one program in 64 runs whole and one in 16 with its
kernels, the others of those two modes tiered (``_whole``), and the fourth and eighth of every
eight run unfused; ``FUSEJIT_FULL_SUITE=1`` (tests/conftest.py) runs every program in its own
mode, fused.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from fusejit.errors import FusejitError
from tests.conftest import FULL_SUITE

from . import stranger_programs as P
from .test_api import numeric_grad

RNG = np.random.default_rng(2026)


def n(*shape: int) -> np.ndarray:
    return np.asarray(RNG.standard_normal(shape))


def away(*shape: int) -> np.ndarray:
    return np.asarray(RNG.choice([-1.0, 1.0], shape) * RNG.uniform(0.3, 2.0, shape))


def one_hot(*labels: int) -> np.ndarray:
    return np.eye(3)[list(labels)]


# (function, arguments, argnums)
CASES = [
    (P.mse, lambda: [n(4, 3), n(3), n(1), n(4)], (0, 1, 2)),
    (P.relu_mlp, lambda: [n(4, 3), n(3, 5), n(5), n(5, 2)], (0, 1, 2, 3)),
    (P.logsumexp, lambda: [n(3, 4)], (0,)),
    (P.softmax_xent, lambda: [n(4, 3), n(3, 3), one_hot(0, 2, 1, 1)], (0, 1)),
    (P.smoothness, lambda: [n(3, 5)], (0,)),
    (P.gram, lambda: [n(4, 3), n(4, 2)], (0, 1)),
    (P.reshaped, lambda: [n(12), n(4, 3)], (0, 1)),
    (P.joined, lambda: [n(2, 3), n(2, 3)], (0, 1)),
    (P.norm2, lambda: [n(3, 4)], (0,)),
    (P.linalg_norm, lambda: [n(3, 4)], (0,)),
    (P.cubic_reciprocal, lambda: [away(3, 4)], (0,)),
    (P.by_row, lambda: [n(3, 4), n(4)], (0, 1)),
    (P.row_max, lambda: [n(3, 5), n(3)], (0, 1)),
    (P.column_min, lambda: [n(3, 5)], (0,)),
    (P.moments, lambda: [n(4, 3)], (0,)),
    (P.product, lambda: [n(3, 4)], (0,)),
    (P.running_sum, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.flipped, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.deep_tanh, lambda: [n(2, 3), n(3, 3) * 0.5, n(3)], (0, 1, 2)),
    (P.branch_on_scalar, lambda: [n(2, 3), n(3), 1.0], (0, 1)),
    (P.branch_on_scalar, lambda: [n(2, 3), n(3), -1.0], (0, 1)),
    (P.helper_gate, lambda: [n(2, 3), n(3, 4), n(4)], (0, 1, 2)),
    (P.linear_recurrence, lambda: [n(2, 3), n(3) * 0.5, n(2, 3)], (0, 1, 2)),
    (P.leaky_relu, lambda: [away(3, 4)], (0,)),
    (P.abs_clip, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.masked_sum, lambda: [away(3, 4)], (0,)),
    (P.mask_multiply, lambda: [away(3, 4)], (0,)),
    (P.layer_norm, lambda: [n(3, 5), n(5), n(5)], (0, 1, 2)),
    (P.huber, lambda: [n(3, 4) * 2, n(3, 4)], (0, 1)),
    (P.logistic, lambda: [n(5, 3), n(3), np.sign(n(5))], (0, 1)),
    (P.attention, lambda: [n(3, 4), n(5, 4), n(5, 2)], (0, 1, 2)),
    (P.outer_broadcast, lambda: [n(3), n(4)], (0, 1)),
    (P.covariance, lambda: [n(5, 3)], (0,)),
    (P.rows_and_columns, lambda: [n(5, 4)], (0,)),
    (P.accumulate_loss, lambda: [n(2, 3), n(3)], (0, 1)),
    (P.matvec, lambda: [n(3, 4), away(4)], (0, 1)),
    (P.mean_axes, lambda: [n(2, 3, 4)], (0,)),
    (P.pairwise_max, lambda: [n(3, 4), n(4)], (0, 1)),
    (P.in_place_update, lambda: [n(2, 3), n(3)], (0, 1)),
    (P.ridge, lambda: [n(3), n(5, 3), n(5), 0.1], (0, 1)),
    (P.axis_argument, lambda: [n(3, 4), 1], (0,)),
    (P.axis_argument, lambda: [n(3, 4), 0], (0,)),
    (P.reduction_option, lambda: [n(3, 4), "mean"], (0,)),
    (P.reduction_option, lambda: [n(3, 4), "sum"], (0,)),
    (P.dots, lambda: [n(3, 4), n(3, 2)], (0, 1)),
    (P.scalar_first, lambda: [away(3, 4)], (0,)),
    (P.binary_cross_entropy, lambda: [RNG.uniform(0.05, 0.95, 6),
                                      (RNG.uniform(size=6) > 0.5).astype(float)], (0, 1)),
    (P.powers, lambda: [away(3, 4)], (0,)),
    (P.ellipsis_newaxis, lambda: [n(2, 3, 4)], (0,)),
    (P.stacked, lambda: [n(2, 3), n(2, 3)], (0, 1)),
    (P.axes_moved, lambda: [n(2, 3)], (0,)),
    (P.outer, lambda: [n(3), n(4)], (0, 1)),
    (P.row_norms, lambda: [n(3, 4)], (0,)),
    (P.branch_on_array, lambda: [n(3, 4)], (0,)),
    (P.where_both, lambda: [away(3, 4), n(3, 4)], (0, 1)),
    (P.loop_over_rows, lambda: [n(3, 4)], (0,)),
    (P.flattened, lambda: [n(3, 4)], (0,)),
    (P.more_moments, lambda: [n(3, 4)], (0,)),
    (P.builtin_sum, lambda: [n(3, 4)], (0,)),
    (P.rnn_from_zeros, lambda: [n(4), n(4)], (0, 1)),
    (P.comprehension, lambda: [n(3, 4)], (0,)),
    (P.methods, lambda: [n(3, 4)], (0,)),
    (P.trig, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.accumulate_array, lambda: [n(2, 3), n(3)], (0, 1)),
    (P.last_states, lambda: [n(3), n(3, 3)], (0, 1)),
    (P.stacked_states, lambda: [n(3), n(3, 3)], (0, 1)),
    (P.appended_in_order, lambda: [n(3)], (0,)),
    (P.scaled_in_loop, lambda: [n(2, 3), n(3)], (0, 1)),
    (P.positional_axes, lambda: [n(4, 3), n(3)], (0, 1)),
    (P.where_log, lambda: [away(3, 4)], (0,)),
    (P.outer_batch, lambda: [n(2, 3), n(2, 4)], (0, 1)),
    (P.distances, lambda: [n(4, 3), n(4, 3)], (0, 1)),
    (P.logs, lambda: [RNG.uniform(0.5, 2.0, (3, 4))], (0,)),
    (P.global_and_default, lambda: [n(3)], (0,)),
    (P.gaussian, lambda: [n(3, 4), n(3, 4) + 3.0, 0.7], (0, 1)),
    (P.standardised_mlp, lambda: [n(3, 4), n(4, 2), n(2)], (0, 1, 2)),
    (P.reshape_chain, lambda: [n(6)], (0,)),
    (P.angles, lambda: [away(3, 4), away(3, 4)], (0, 1)),
    (P.masked_assignments, lambda: [away(3, 4)], (0,)),
    (P.einsum_contractions, lambda: [n(3, 4), n(4, 2), n(2, 3, 4), n(2, 4, 3)], (0, 1, 2, 3)),
    (P.einsum_more, lambda: [n(2, 3), n(3, 3), n(3)], (0, 1, 2)),
    (P.matrix_parts, lambda: [n(4, 4), n(4)], (0, 1)),
    (P.smooth_maxes, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.permuted, lambda: [n(2, 3, 4), n(4, 2, 3)], (0, 1)),
    (P.rounded_and_clipped, lambda: [n(3, 4), n(3, 4)], (0, 1)),
    (P.scalar_extremes, lambda: [n(3, 4), n(3, 4), 0.7], (0, 1)),
    (P.fancy_index, lambda: [n(4, 3)], (0,)),
    (P.gathered, lambda: [n(5, 3), np.array([4, 0, 4, -2, 1])], (0,)),
    (P.picked_log_likelihood, lambda: [n(4, 3), np.array([2, 0, 1, 2])], (0,)),
    (P.embedding_bag, lambda: [n(5, 3), np.array([1, 3, 1, 1]), n(3, 2)], (0, 2)),
    (P.rows_into_buffer, lambda: [n(4, 3), n(3, 3) * 0.5], (0, 1)),
    (P.element_assignment, lambda: [n(2, 3), n(3)], (0, 1)),
    (P.slice_assignment, lambda: [n(3, 4)], (0,)),
    (P.concatenated_appends, lambda: [n(2, 3), n(3, 3)], (0, 1)),
    (P.squeezed_padded_taken, lambda: [n(3, 4), n(4), np.array([0, 11, 5, 5])], (0, 1)),
    (P.products_and_averages, lambda: [n(3, 4), n(4, 2), n(4)], (0, 1, 2)),
    (P.vector_and_matrix_norms, lambda: [away(3, 4), away(4)], (0, 1)),
    (P.writes_and_unpacking, lambda: [n(3, 4), n(4)], (0, 1)),
    (P.gaussian_log_likelihood, lambda: [n(5, 3), n(3), n(3, 3)], (0, 1, 2)),
    (P.tiled_and_repeated, lambda: [n(4, 3), n(3)], (0, 1)),
    (P.scipy_special_losses, lambda: [n(4, 3), np.eye(3)[[0, 2, 1, 0]]], (0,)),
    (P.sorted_statistics, lambda: [n(3, 4), n(4)], (0, 1)),
    (P.recurrence_in_a_buffer, lambda: [n(4, 3), n(3)], (0, 1)),
    (P.small_numpy_helpers, lambda: [away(3, 4), n(5)], (0, 1)),
    (P.cumulative_products, lambda: [n(3, 4), n(5)], (0, 1)),
]

# A second stranger's programs (classic losses, physics, statistics, attention, recurrences,
# fits, matrix functions, index and branch writes), several per function. They run unfused:
# they cover the frontend's lowerings, the derivative rules and the write rewrites, which do
# not depend on the engine (fused backward graphs are covered above), and unfused they
# compile nothing (about 3 s in all, against minutes of kernel compiles cold).
_ATOMS = np.array([[0, 0, 0], [1.1, 0, 0], [0, 1.2, 0.1], [1.0, 1.1, 0.9]])
HELD_OUT = [
    (P.margin_losses, lambda: [n(3), n(5, 3), n(3, 4), np.array([0, 3, 1, 1, 2]),
                               np.sign(n(5))], (0, 1, 2)),
    (P.probabilistic_losses, lambda: [n(6), n(3, 4), n(3, 4), n(3), n(3) * 0.3,
                                      RNG.poisson(2.0, 6).astype(float)], (0, 1, 2, 3, 4)),
    (P.embedding_losses, lambda: [n(4, 3), n(4, 3), n(4, 3)], (0, 1, 2)),
    (P.physics_energies, lambda: [_ATOMS + 0.05 * n(4, 3), n(4), RNG.uniform(0.5, 2, 3)],
     (0, 1, 2)),
    (P.statistics, lambda: [n(7), n(7), n(7), n(6, 3)], (0, 1, 2, 3)),
    (P.mixture_log_likelihood, lambda: [n(6), n(3), n(3) * 0.3, n(3)], (0, 1, 2, 3)),
    (P.attention_and_norms, lambda: [n(4, 4), n(4, 12) * 0.5, n(4), n(4)], (0, 1, 2, 3)),
    (P.recurrences_and_scans, lambda: [n(4, 2), n(3, 2), n(3, 3) * 0.5, n(5) * 0.1, n(4)],
     (0, 1, 2, 3, 4)),
    (P.fits, lambda: [n(4), RNG.uniform(0.05, 0.95, 6), n(4), n(4), np.array([1.0, 0.7, 0.2]),
                      n(2) * 0.5], (0, 1, 2, 3, 4, 5)),
    (P.matrix_functions, lambda: [n(3, 3), n(3), n(3)], (0, 1, 2)),
    (P.piecewise_and_powers, lambda: [away(3, 4) * 2, n(3, 4)], (0, 1)),
    (P.index_writes_and_branches, lambda: [n(3, 4), 1.0], (0,)),
    (P.index_writes_and_branches, lambda: [n(3, 4), -1.0], (0,)),
    (P.integer_index_assignment, lambda: [n(3, 4)], (0,)),
    (P.einsum_ellipsis, lambda: [n(2, 3), n(3, 2)], (0, 1)),
    (P.pairwise_loop_energy, lambda: [n(4, 3), n(3)], (0, 1)),
    (P.elementwise_stand_ins, lambda: [RNG.uniform(0.2, 0.9, (3, 4)),
                                       RNG.uniform(0.2, 0.9, (3, 4))], (0, 1)),
    (P.convolution_pooling_and_steps, lambda: [n(5, 5), n(3, 3), n(3), np.array([1, 2, 2, 0])],
     (0, 1, 2)),
    (P.local_functions, lambda: [n(3, 4), n(4, 4) * 0.5, 0.8], (0, 1)),
    (P.more_numpy_functions, lambda: [away(8) * 1.3, n(3), n(3, 3) * 0.5, n(4, 3), n(4, 3)],
     (0, 1, 2, 3, 4)),
]


# Fused cases run in three modes by their index (whole, not whole, tiered: ``index % 4``), the
# tiered one twice. In the default suite the second tiered quarter (index % 4 == 3) runs unfused,
# and of the compiled ones only those with index % 64 == 0 run whole (mse, and last_states: a
# loop) and those with index % 16 == 1 with their kernels; the rest run tiered: every program's
# derivative rules are still checked, the kernel mode runs on a sixteenth of them and the whole
# mode on two (the whole and kernel modes were 109 of this module's 112 s in a cold suite, 24 of
# 30 with an eighth and a sixteenth of them, 11 of 17 with these; test_whole_stages.py compares
# the whole stages with the interpreter on programs of its own). (Some programs compile no
# whole stage when asked to: running_sum, ellipsis_newaxis and einsum_more compiled kernels
# only.) FUSEJIT_FULL_SUITE=1 (tests/conftest.py) runs each in its own mode, fused.


def _whole(index: int) -> bool | None:
    """``whole=`` of case ``index``: True (compiled whole at once), False (interpreted, with its
    kernels compiled) or None (tiered, as a user's first calls run)."""
    if index % 4 > 1 or (not FULL_SUITE and index % 64 != 0 and index % 16 != 1):
        return None
    return index % 4 == 0


@pytest.mark.parametrize("index, fn, make_args, argnums, fuse", [
    pytest.param(i, *case, fuse and (FULL_SUITE or i % 4 != 3), id=f"{case[0].__name__}-{i}")
    for i, (case, fuse) in enumerate([(c, True) for c in CASES] + [(c, False) for c in HELD_OUT])])
def test_gradient_matches_finite_differences(index, fn, make_args, argnums, fuse,
                                            monkeypatch) -> None:
    global RNG
    RNG = np.random.default_rng(index)   # (the same inputs whichever worker runs it, in any order)
    args = make_args()
    whole = _whole(index)
    whole = whole if whole is None else fuse and whole
    if whole is None:
        monkeypatch.setenv("FUSEJIT_TIERING", "1")
    value, grads = fusejit.value_and_grad(fn, argnums=argnums, fuse=fuse, whole=whole)(*args)
    np.testing.assert_allclose(value, fn.fn(*args), rtol=1e-12)
    for k, got in zip(argnums, grads):
        want = numeric_grad(fn.fn, args, k)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, got.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=f"argument {k}")


@pytest.mark.parametrize("fn, args, pattern", [
    (P.write_into_argument, [n(2, 3), n(3)], r"aten::add_ writes in place"),
    (P.write_seen_through_view, [n(2, 3), n(3)], r"aten::mul_ writes in place"),
    (P.float_of_array, [n(3, 4)], r"aten::Float turns an array that carries a gradient"),
    (P.while_loop, [n(3, 4)], r"a loop whose condition is computed as it runs"),
    (P.list_read_in_another_loop, [n(3), n(3, 3)], r"aten::__getitem__"),
    (P.loop_write_through_alias, [n(2, 3), n(3)], r"aten::mul_ writes in place"),
    (P.two_names_one_buffer, [n(3)], r"aten::mul_ writes in place"),
    (P.singular_vectors, [n(3, 3)], r"no derivative for aten::linalg_svd"),
    (P.kron_of_3d, [n(2, 2, 2)], r"np.kron: np.kron is supported for two 1-D or two 2-D"),
    (P.view_read_after_row_write, [n(2, 3), n(3)], r"aten::copy_ writes in place"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_be_differentiated_is_refused_naming_the_line(fn, args, pattern) -> None:
    with pytest.raises(FusejitError, match=pattern) as error:
        fusejit.grad(fn, argnums=0)(*args)
    assert "stranger_programs.py:" in str(error.value)


def test_the_stand_ins_outputs_match_numpy() -> None:
    # the NumPy functions the gradient programs above use, each output against NumPy's own
    # (value, shape and dtype); run unfused: no kernel to compile
    x, y, a, v = n(6), n(3, 6), n(4, 4), n(4)
    outputs, _ = fusejit.vjp(P.stand_in_outputs, x, y, a, v, fuse=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = P.stand_in_outputs.fn(x, y, a, v)
    assert len(outputs) == len(expected)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        want = np.asarray(want)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"output {k}")


def test_einsum_with_an_ellipsis_inside_fusejit_trace() -> None:
    a, w = n(2, 3), n(3, 3)

    def f(a, w):
        return np.sum(np.einsum('...i,ij->...j', a, w) ** 2)
    value, grads = fusejit.value_and_grad(fusejit.trace(f, a, w), argnums=(0, 1),
                                          fuse=False)(a, w)
    np.testing.assert_allclose(value, f(a, w), rtol=1e-12)
    for k, got in enumerate(grads):
        np.testing.assert_allclose(got, numeric_grad(f, [a, w], k), rtol=1e-6, atol=1e-7)


def test_vjp_of_two_array_outputs_matches_finite_differences() -> None:
    x, h, c, w = n(2, 3), n(2, 2), n(2, 2), n(5, 8) * 0.5
    (h2, c2), vjp_fn = fusejit.vjp(P.lstm_cell, x, h, c, w, fuse=False)
    dh, dc = n(2, 2), n(2, 2)
    grads = vjp_fn(dh, dc)

    def projected(*args):
        out_h, out_c = P.lstm_cell.fn(*args)
        return np.sum(out_h * dh) + np.sum(out_c * dc)
    want_h, want_c = P.lstm_cell.fn(x, h, c, w)
    np.testing.assert_allclose(h2, want_h, rtol=1e-12)
    np.testing.assert_allclose(c2, want_c, rtol=1e-12)
    for k, got in enumerate(grads):
        np.testing.assert_allclose(got, numeric_grad(projected, [x, h, c, w], k), rtol=1e-6,
                                   atol=1e-7, err_msg=f"argument {k}")


def test_float32_arguments_with_a_float64_loop_state() -> None:
    # NumPy computes h in float64 (np.zeros' dtype wins); the gradients come back as float32
    x, w = n(4, 3).astype(np.float32), (n(3, 3) * 0.5).astype(np.float32)
    value, (gx, gw) = fusejit.value_and_grad(P.rnn_float32_inputs, argnums=(0, 1),
                                             fuse=False)(x, w)
    np.testing.assert_allclose(value, P.rnn_float32_inputs.fn(x, w), rtol=1e-12)
    wide = [x.astype(np.float64), w.astype(np.float64)]
    for k, got in enumerate((gx, gw)):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, numeric_grad(P.rnn_float32_inputs.fn, wide, k),
                                   rtol=1e-5, atol=1e-6)


def test_a_gradient_function_is_not_differentiated_or_scripted_again() -> None:
    # grad's result wraps the function (__wrapped__): scripting it used to script the function
    # itself, so grad(grad(f)) returned the first derivative and jit(grad(f)) the value
    df = fusejit.grad(P.norm2)
    x = n(3, 4)
    with pytest.raises(FusejitError, match="differentiates once"):
        fusejit.grad(df)(x)
    with pytest.raises(FusejitError, match="made by fusejit.grad"):
        fusejit.jit(df)(x)
    np.testing.assert_allclose(df(x), x / np.sqrt(np.sum(x ** 2)), rtol=1e-12)
