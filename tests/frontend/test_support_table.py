"""The README's "What NumPy is supported" table is the one the frontend's tables generate."""

from __future__ import annotations

from pathlib import Path

from fusejit.frontend.calls import CALLEES, METHODS
from fusejit.frontend.support import support_rows, support_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_table_is_the_generated_one():
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- numpy-support:start -->\n") + len("<!-- numpy-support:start -->\n")
    end = text.index("<!-- numpy-support:end -->")
    assert text[start:end] == support_table(), \
        "README out of date: paste the output of python -m fusejit.frontend.support"


def test_every_callee_and_method_is_listed():
    listed = " ".join(names for _, names in support_rows())
    from fusejit.autodiff.python_op import PythonOp

    for obj in CALLEES:
        if isinstance(obj, PythonOp):   # a user's op (the autodiff tests make some)
            continue
        assert f"{getattr(obj, '__name__', '')}`" in listed
    for name in METHODS:
        assert f"`x.{name}()`" in listed
