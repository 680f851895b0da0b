"""The hostile-input corpus (``tests/data/bad_ir``, expectations in ``EXPECTED.tsv``): every text
raises the listed ``fusejit`` error (with the node's source location where the table names one)
or runs, and nothing it names is ever executed: ``@CANARY@`` in a text becomes a path that
exists only if some string of the graph was evaluated as code.

Files are read as UTF-8 with ``surrogateescape``, so invalid bytes reach the parser as lone
surrogates instead of failing before it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fusejit
from fusejit.ir.types import BoolType, FloatType, IntType

DATA = Path(__file__).resolve().parent.parent / "data" / "bad_ir"


def _table() -> list[tuple[str, str, str, str, str]]:
    rows = []
    for line in (DATA / "EXPECTED.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        cols = line.split("\t") + [""]
        rows.append((cols[0], cols[1], cols[2], cols[3], cols[4]))
    return rows


ROWS = _table()


def _parse_inputs(spec: str) -> list:
    values = []
    for token in spec.split(","):
        if token.startswith("str="):
            values.append(token[4:])
            continue
        kind, _, rest = token.partition("[")
        shape_text, _, fill = rest.partition("]")
        shape = tuple(int(n) for n in shape_text.split("x"))
        dtype = {"f32": np.float32, "i64": np.int64}[kind]
        n = int(np.prod(shape))
        data = np.full(n, int(fill[1:]), dtype) if fill else np.arange(1, n + 1, dtype=dtype)
        values.append(data.reshape(shape))
    return values


def _default_inputs(graph) -> list:
    values = []
    for v in graph.inputs:
        if isinstance(v.type, BoolType):
            values.append(True)
        elif isinstance(v.type, IntType):
            values.append(2)
        elif isinstance(v.type, FloatType):
            values.append(0.5)
        else:
            values.append(np.arange(3, dtype=np.float32))
    return values


def _run(text: str, spec: str):
    graph = fusejit.parse_ir(text)
    fusejit.lint(graph)
    inputs = _default_inputs(graph) if spec == "-" else _parse_inputs(spec)
    results = []
    for fuse, engine in ((False, "reference"), (True, "native")):
        results.append(fusejit.compile(graph, fuse=fuse, engine=engine)(*inputs))
    return results


def test_corpus_is_complete():
    files = sorted(p.name for p in DATA.glob("*.ir"))
    assert files == sorted(r[0] for r in ROWS)
    assert len(files) >= 30


@pytest.mark.parametrize("name,expect,spec,what,where", ROWS, ids=[r[0] for r in ROWS])
def test_hostile_text(name, expect, spec, what, where, tmp_path):
    canary = tmp_path / "CANARY"
    raw = (DATA / name).read_bytes().decode("utf-8", "surrogateescape")
    text = raw.replace("@CANARY@", str(canary))
    if expect == "runs":
        results = _run(text, spec)
        reference, native = results
        for a, b in zip(reference if isinstance(reference, tuple) else (reference,),
                        native if isinstance(native, tuple) else (native,)):
            if isinstance(a, np.ndarray):
                np.testing.assert_allclose(b, a, rtol=1e-6)
            else:
                assert a == b
    else:
        error_class = getattr(fusejit, expect)
        with pytest.raises(error_class) as info:
            _run(text, spec)
        if where:
            assert where in str(info.value), str(info.value)
    assert not canary.exists(), f"{name}: text from the graph was executed"
    assert not list(tmp_path.iterdir())


def test_hostile_fusion_group_kernel_source(tmp_path):
    """The hostile FusionGroup text compiles to a kernel holding none of its names or comments."""
    from fusejit.runtime.fusion import FusedKernel

    canary = tmp_path / "CANARY"
    text = (DATA / "code_fusion_group_hostile.ir").read_text(encoding="utf-8")
    graph = fusejit.parse_ir(text.replace("@CANARY@", str(canary)))
    (group,) = [n for n in graph.nodes() if n.kind == "prim::FusionGroup"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    kernel = FusedKernel(group)
    (out,) = kernel(x, x)
    np.testing.assert_allclose(out, 1 / (1 + np.exp(-x * x)), rtol=1e-6)
    source = kernel.source(x, x)
    for word in ("__import__", "os.system", "exec.1", "eval", "open", str(canary), "CANARY"):
        assert word not in source
    assert not canary.exists()
