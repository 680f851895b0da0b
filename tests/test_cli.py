"""The command line (``python -m fusejit``): ``run`` binds an .npz's arrays to the graph's inputs
by name or by position, and says which keys do not fit."""

from __future__ import annotations

import numpy as np
import pytest

from fusejit.__main__ import main

GRAPH = """graph(%x.1 : Tensor, %h : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %d : Tensor = aten::sub(%x.1, %h, %one)
  %y : Tensor = aten::mul(%d, %n)
  return (%y)
"""

X = np.array([10.0, 20.0], np.float32)
H = np.array([1.0, 2.0], np.float32)


@pytest.fixture
def ir_file(tmp_path):
    path = tmp_path / "g.ir"
    path.write_text(GRAPH)
    return path


def _run(capsys, ir_file, tmp_path, **arrays):
    npz = tmp_path / "in.npz"
    np.savez(npz, **arrays)
    code = main(["run", str(ir_file), str(npz), "--no-fuse"])
    return code, capsys.readouterr()


def _printed(out: str) -> list[float]:
    body = out.split("\n", 1)[1]
    return [float(v) for v in body.strip(" []\n").split()]


@pytest.mark.parametrize("order", [("x", "h", "n"), ("n", "h", "x"), ("h", "x", "n")])
def test_run_binds_arrays_by_input_name_in_any_order(capsys, ir_file, tmp_path, order):
    values = {"x": X, "h": H, "n": np.array(3)}
    code, out = _run(capsys, ir_file, tmp_path, **{k: values[k] for k in order})
    assert code == 0, out.err
    assert _printed(out.out) == list((X - H) * 3)


def test_run_binds_full_debug_names(capsys, ir_file, tmp_path):
    code, out = _run(capsys, ir_file, tmp_path, **{"x.1": X, "h": H, "n": np.array(2)})
    assert code == 0, out.err
    assert _printed(out.out) == list((X - H) * 2)


def test_run_binds_arg_keys_by_position(capsys, ir_file, tmp_path):
    code, out = _run(capsys, ir_file, tmp_path, arg1=H, arg0=X, arg2=np.array(1))
    assert code == 0, out.err
    assert _printed(out.out) == list(X - H)


@pytest.mark.parametrize("arrays, words", [
    ({"x": X, "h": H}, "no array for %n"),
    ({"x": X, "h": H, "n": np.array(1), "z": H}, "no input named z"),
    ({"arg0": X, "h": H, "n": np.array(1)}, "no array for %x.1"),
])
def test_run_refuses_keys_that_do_not_bind(capsys, ir_file, tmp_path, arrays, words):
    code, out = _run(capsys, ir_file, tmp_path, **arrays)
    assert code == 1
    assert words in out.err and "FusejitError" in out.err


def test_run_reports_a_file_that_is_not_an_npz(capsys, ir_file, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    assert main(["run", str(ir_file), str(bad)]) == 1
    assert "not a readable .npz" in capsys.readouterr().err


def test_run_refuses_a_base_name_two_inputs_share(capsys, tmp_path):
    path = tmp_path / "two.ir"
    path.write_text("graph(%x.1 : Tensor, %x.2 : Tensor):\n"
                    "  %one : int = prim::Constant[value=1]()\n"
                    "  %d : Tensor = aten::sub(%x.1, %x.2, %one)\n  return (%d)\n")
    code, out = _run(capsys, path, tmp_path, x=X)
    assert code == 1 and "no array for %x.1, %x.2" in out.err


@pytest.fixture
def short_warm_up(monkeypatch):
    """The demo calls each case until it has run 1.5 x ``PROMOTE_SECONDS`` (or 1000 times) so
    that it times the tier the case settles on; with tiering off, as in the suite
    (tests/conftest.py), a case runs there from its first call, and those 1000 calls of tiny
    cases were most of a demo's time once compiled: two calls each."""
    from fusejit.runtime import tiering

    monkeypatch.setattr(tiering, "PROMOTE_SECONDS", 0.0)


@pytest.mark.usefixtures("short_warm_up")
def test_demo_is_short_and_reports_each_case_against_numpy(capsys):
    assert main(["demo", "--batch", "4", "--hidden", "8", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= 60, len(lines)
    rows = [line for line in lines if line.startswith(("LSTM cell", "100-step", "whole LSTM"))]
    assert len(rows) == 3
    for row in rows:
        assert float(row.split()[-1]) < 1e-4          # fusejit agrees with NumPy on every case
    assert "(--verbose shows them)" in out


@pytest.mark.usefixtures("short_warm_up")
def test_demo_verbose_prints_the_instructions(capsys):
    assert main(["demo", "--batch", "4", "--hidden", "8", "--repeat", "1", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "prim::Store" in out and "--verbose shows them" not in out
