"""The packages import downwards only: ir <- oplib <- passes <- runtime.

An import placed inside a function hides a cycle from Python but not from this scan: every
``import`` statement of a module is read from its syntax tree, wherever it sits.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "fusejit"

# package -> the fusejit packages its modules may import (itself included)
ALLOWED = {
    "ir": {"ir", "errors", "display"},
    "oplib": {"oplib", "ir", "errors"},
    "passes": {"passes", "oplib", "ir", "errors", "display"},
}


def _imported(path: Path, text: str | None = None) -> set[str]:
    """The fusejit packages (first component below ``fusejit``) that ``path`` imports."""
    # (a package's __init__ counts as a module inside it: relative levels work the same)
    module = ["fusejit", *path.relative_to(PACKAGE).with_suffix("").parts]
    if text is None:
        text = path.read_text(encoding="utf-8")
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module[:-node.level]
                names = [".".join(base + ([node.module] if node.module else []))]
                if not node.module:     # from .. import x
                    names = [".".join(base + [alias.name]) for alias in node.names]
            else:
                names = [node.module or ""]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "fusejit" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_packages_below_it(package):
    wrong = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        extra = _imported(path) - ALLOWED[package]
        if extra:
            wrong[str(path.relative_to(PACKAGE))] = sorted(extra)
    assert not wrong, wrong


def test_scan_sees_imports_inside_functions():
    # (the scan's own check, on text that is not in the package)
    probe = PACKAGE / "passes" / "probe.py"
    text = "def f():\n    from ..runtime.ops import OPS\n    import fusejit.frontend\n"
    assert _imported(probe, text) == {"runtime", "frontend"}
    assert _imported(PACKAGE / "passes" / "__init__.py", "from ..oplib import OPS") == {"oplib"}


def test_importing_the_passes_loads_no_runtime_module():
    code = ("import sys, fusejit.passes, fusejit.passes.graph_fuser, fusejit.oplib; "
            "print(sorted(m for m in sys.modules if m.startswith('fusejit.runtime')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
