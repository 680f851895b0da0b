"""Everyday NumPy programs (``numpy_programs.PROGRAMS``) under ``fusejit.jit``, against NumPy.

Each program must be accepted as written and give NumPy's values, dtypes and shapes. Programs
that use what fusejit does not support yet are listed in ``NOT_YET`` with the reason; they are
strict xfails, so one that starts working fails the suite until it is taken off the list.
"""

from __future__ import annotations

import numpy as np
import pytest

import fusejit
from tests.matrix import halved

from .numpy_programs import PROGRAMS

NOT_YET: dict[str, str] = {}


def _copy(args: tuple) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _check(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        g = np.asarray(g)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# Programs of the halved corpus that others it runs cover, kind for kind, are exhaustive cases
# too: column means and deviations (normalize), a loop of np.where over a grid (mandelbrot),
# products in a loop and broadcast (power_iter, logistic_step, dist_matrix), row reductions
# (softmax, logsumexp), arithmetic with numbers (horner, projectile, standardize), nested
# np.where (isnan_fix), integer division and casts (dtype_mixing).
_COVERED = {"column_stats", "column_zscore", "count_weights", "mandelbrot_grid", "rbf_gram",
            "logreg_train", "log_softmax", "softmax_rows_eye", "gaussian", "tax", "mse"}


def _marked(p: tuple):
    marks = [pytest.mark.exhaustive] if p[0] in _COVERED else []
    if p[0] in NOT_YET:
        marks.append(pytest.mark.xfail(reason=NOT_YET[p[0]], strict=True))
    return pytest.param(*p, marks=marks)


@pytest.mark.parametrize("name, fn, make", halved([_marked(p) for p in PROGRAMS]),
                         ids=[p[0] for p in PROGRAMS])
def test_program_matches_numpy(name, fn, make):
    """The first call of a signature runs on the interpreter (see WHOLE for the second)."""
    args = make()
    want_args = _copy(args)
    want = fn(*want_args)
    got = fusejit.jit(fn)(*args)
    _check(got, want)
    for a, w in zip(args, want_args):  # arguments updated in place as NumPy updates them
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            _check(a, w)    # (to the outputs' tolerance: a reduction kernel adds in its order)
        elif isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, w)


# Programs called twice: the second call runs the whole-graph Numba function (scalar graphs,
# element loops, small array code). Every program takes that path where it can; this subset
# (one of each kind) keeps the cold-cache compile time of the suite small. Four repeat a kind
# others cover and are exhaustive cases (tests/conftest.py): lstm and lstm_cell (the products,
# tanh and slices of rnn_sequence and image_gradient), softmax_temperature (the row reductions
# of softmax and logsumexp), rbf_kernel (rnn_sequence's products, norm_rows's row sums
# broadcast): 11 s of a cold suite.
WHOLE = ["collatz", "newton_sqrt", "ewma", "running_max", "first_above", "softmax",
         "row_norms", "logsumexp", "mandelbrot", "loop_len", "mse", "norm_rows", "rbf_kernel",
         "normalize_inplace", "image_gradient", "lstm_cell", "softmax_temperature", "lstm",
         "rnn_sequence"]
_REPEATED_KIND = {"lstm", "softmax_temperature", "lstm_cell", "rbf_kernel"}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.exhaustive] if name in _REPEATED_KIND else [])
    for name in WHOLE])
def test_second_call_compiles_whole_and_matches_numpy(name):
    fn, make = next((f, m) for n, f, m in PROGRAMS if n == name)
    jitted = fusejit.jit(fn)
    jitted(*make())
    args = make()
    want_args = _copy(args)
    _check(jitted(*args), fn(*want_args))
    compiled = next(iter(jitted._specialised.values()))
    assert hasattr(compiled, "compiled") and not getattr(compiled, "refused", [])
