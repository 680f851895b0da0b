"""Run one fuzzed graph three ways and say where they disagree.

1. the oracle: ``fusejit.compile(g, fuse=False, engine="reference")`` on ``g`` after dead code
   elimination (PyTorch drops dead ops even where they would raise);
2. the product: ``fusejit.compile(g, fuse=True)`` (fused, default engine), the same with
   ``reductions=True`` (``@fusejit.jit``'s passes beyond PyTorch, one graph in four), and the
   same on the native engine twice (the second run calls the kernels from the native loop);
3. the kernels: ``fuse_graph`` on a copy, then every ``prim::FusionGroup`` (in blocks too) is
   replaced by a ``prim::PythonOp`` that runs both ``FusedKernel`` and the group's subgraph on
   the reference interpreter, on the group's actual inputs, compares them and passes the
   interpreted results on. The rewritten graph runs on the reference interpreter::

       %5 : Tensor = prim::FusionGroup_0(%x, %y)    ==>    %5 : Tensor = prim::PythonOp[fn=...](%x, %y)

Errors must agree: where the oracle raises a ``FusejitError`` the others must raise one too
(any other exception is a crash); values are compared per ``tolerances.py``.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

import fusejit
from fusejit.errors import FusejitError
from fusejit.ir.graph import Graph, Node
from fusejit.passes import eliminate_dead_code, fuse_graph
from fusejit.runtime.fusion import FusedKernel
from fusejit.runtime.python_op import create_python_op

from .graphs import HOSTILE_SOURCE, HOSTILE_WORDS, FuzzCase
from .known import known_bug
from .tolerances import mismatch

_FORBIDDEN = (*HOSTILE_WORDS, HOSTILE_SOURCE.split(".")[0])


def _as_tuple(result: Any) -> tuple:
    if result is None:
        return ()
    return result if isinstance(result, tuple) else (result,)


def _run(fn, args: list) -> tuple[tuple | None, Exception | None]:
    try:
        return _as_tuple(fn(*[a for a in args])), None
    except FusejitError as error:
        return None, error


def _compare(tag: str, names: list[str], exact: dict[str, bool], expected: tuple,
             got: tuple) -> list[str]:
    if len(expected) != len(got):
        return [f"{tag}: {len(got)} outputs, expected {len(expected)}"]
    problems = []
    for name, e, g in zip(names, expected, got):
        if isinstance(e, np.ndarray) or isinstance(g, np.ndarray):
            if not isinstance(g, np.ndarray) or not isinstance(e, np.ndarray):
                problems.append(f"{tag} %{name}: got {type(g).__name__}, expected "
                                f"{type(e).__name__}")
                continue
            why = mismatch(e, g, exact.get(name, False))
        else:
            why = None if (e == g or e != e and g != g) and type(e) is type(g) else \
                f"got {g!r}, expected {e!r}"
        if why:
            problems.append(f"{tag} %{name}: {why}")
    return problems


def _declined(error: Exception) -> bool:
    """The kernel refusing a call whose outputs differ in shape (PyTorch's fuser falls back to
    the interpreter there: ``runFusion`` returns false); the executor must do the same."""
    return "should not have grouped them" in str(error)


class _GroupCheck:
    """The PythonOp standing in for one FusionGroup: kernel vs interpreted subgraph."""

    def __init__(self, group: Node, case: FuzzCase, problems: list[str]):
        self.subgraph = group.g("Subgraph")
        self.names = [v.debug_name for v in group.outputs]
        self.text = str(self.subgraph)
        self.case = case
        self.problems = problems
        self.interpreted = fusejit.compile(self.subgraph, fuse=False, engine="reference")
        self.kernel = FusedKernel(self.subgraph)
        self.calls = 0
        self.declined = 0

    def __call__(self, *args: Any):
        self.calls += 1
        expected, error = _run(self.interpreted, list(args))
        try:
            got, kernel_error = _run(self.kernel, list(args))
        except Exception as crash:       # noqa: BLE001 - a crash is what we are looking for
            self.problems.append(f"kernel crashed: {type(crash).__name__}: {crash}\n{self.text}")
            got, kernel_error = None, None
        if error is not None:
            if kernel_error is None and got is not None:
                self.problems.append(f"kernel returned values where the interpreter raised "
                                     f"{error}\n{self.text}")
            raise error
        if kernel_error is not None and _declined(kernel_error):
            self.declined += 1
        elif kernel_error is not None:
            self.problems.append(f"kernel raised {kernel_error!r}; the interpreter did not\n"
                                 f"{self.text}")
        elif got is not None:
            found = _compare("kernel", self.names, self.case.exact, expected, got)
            if found:
                self.problems.extend(p + "\n" + self.text for p in found)
        if self.case.hostile:
            for variant in self.kernel._variants.values():
                leaked = [w for w in _FORBIDDEN if w in variant.source]
                if leaked:
                    self.problems.append(f"kernel source holds graph text {leaked}")
        return expected[0] if len(expected) == 1 else expected


def _replace_groups(graph: Graph, case: FuzzCase, problems: list[str]) -> list[_GroupCheck]:
    checks = []
    groups = [n for n in graph.all_nodes() if n.kind == "prim::FusionGroup"]
    for group in groups:
        check = _GroupCheck(group, case, problems)
        node = create_python_op(graph, check, list(group.inputs), len(group.outputs),
                                [v.type for v in group.outputs], name="fusion_group_check")
        node.insert_before(group)
        for old, new in zip(group.outputs, node.outputs):
            new.copy_metadata(old)
            old.replace_all_uses_with(new)
        group.destroy()
        checks.append(check)
    return checks


def check_case(case: FuzzCase) -> tuple[list[str], dict]:
    """Problems found running ``case`` three ways (less those ``known.py`` recognises), and
    counts (groups, kernel calls, errors, declined kernel calls, known bugs by name)."""
    graph = fusejit.parse_ir(case.text)
    fusejit.lint(graph)
    names = [v.debug_name for v in graph.outputs]
    stats = {"groups": 0, "kernel_calls": 0, "errors": 0, "declined": 0}
    # The oracle runs the graph without its dead code: every pass pipeline starts with DCE, and
    # TorchScript may drop a dead op that would have raised (an integer remainder by zero).
    oracle_graph = graph.copy()
    eliminate_dead_code(oracle_graph)
    expected, error = _run(fusejit.compile(oracle_graph, fuse=False, engine="reference"),
                           case.args)
    fused, fused_error = _run(fusejit.compile(graph, fuse=True), case.args)
    problems: list[str] = []
    if error is not None:
        stats["errors"] = 1
        if fused_error is None:
            problems.append(f"fused run returned values where the reference raised {error}")
    elif fused_error is not None:
        problems.append(f"fused run raised {fused_error!r}; the reference did not")
    else:
        problems += _compare("compile(fuse=True)", names, case.exact, expected, fused)
    # The native loop with its kernel slots: the first run binds them, the second calls the
    # kernels from the loop. One graph in four (by its text, so a derandomised profile picks
    # the same ones): binding compiles each kernel's native entry, which a cold CI run pays.
    native = fusejit.compile(graph, fuse=True, engine="native")
    runs = ("first", "second") if zlib.crc32(case.text.encode()) % 4 == 0 else ()
    for run in runs:
        got, native_error = _run(native, case.args)
        label = f"native engine, {run} run"
        if (native_error is None) != (error is None):
            problems.append(f"{label}: error {native_error!r}, reference {error!r}")
        elif error is None:
            problems += _compare(label, names, case.exact, expected, got)

    # @fusejit.jit's plans: the passes beyond PyTorch (maps with int arguments, sibling maps,
    # row groups, lone maps, in-place updates, views moved in, masked stores made values).
    # Another graph in four, for the same reason.
    if zlib.crc32(case.text.encode()) % 4 == 1:
        beyond = fusejit.compile(graph, fuse=True, reductions=True)
        got, beyond_error = _run(beyond, case.args)
        label = "compile(fuse=True, reductions=True)"
        if (beyond_error is None) != (error is None):
            problems.append(f"{label}: error {beyond_error!r}, reference {error!r}")
        elif error is None:
            problems += _compare(label, names, case.exact, expected, got)

    kernel_graph = graph.copy()
    eliminate_dead_code(kernel_graph)      # as FUSION_PIPELINE does: no dead code in groups
    fuse_graph(kernel_graph)
    checks = _replace_groups(kernel_graph, case, problems)
    fusejit.lint(kernel_graph)
    via_kernels, kernel_error = _run(
        fusejit.compile(kernel_graph, fuse=False, engine="reference"), case.args)
    if (kernel_error is None) != (error is None):
        problems.append(f"with kernels checked: error {kernel_error!r}, reference {error!r}")
    elif error is None:
        problems += _compare("kernel graph", names, case.exact, expected, via_kernels)
    stats["groups"] = len(checks)
    stats["kernel_calls"] = sum(c.calls for c in checks)
    stats["declined"] = sum(c.declined for c in checks)
    unknown = []
    for problem in problems:
        tag = known_bug(case, problem)
        if tag is None:
            unknown.append(problem)
        else:
            stats[f"known {tag}"] = stats.get(f"known {tag}", 0) + 1
    return unknown, stats
