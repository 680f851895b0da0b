"""HTML views of lowered code, compiled functions and kernel source, for notebooks.

::

    code_html(code)            # one row an instruction: pc, outputs, op, inputs (move flags
                               # in bold), jump target, source line; jump targets are marked
    function_html(fn, plans)   # per argument spec: engine, instructions, fusion groups,
                               # kernels, build and call times; each plan's graph and code
    source_html(text)          # Python source, highlighted by Pygments where it is installed

Every piece of text that comes from a graph, a constant or a source file is HTML-escaped.
"""

from __future__ import annotations

import html
import inspect
from collections import Counter
from itertools import count
from typing import Any

import numpy as np

from ..ir.symbols import prim

__all__ = ["KernelSource", "code_html", "function_html", "jit_html", "source_html"]

# The class is repeated to outrank JupyterLab's ":not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon
# td" rule, which right-aligns every cell of an HTML output.
_STYLE = """<style>
table.fusejit-table { border-collapse: collapse; font-family: monospace; font-size: 12px; }
table.fusejit-table.fusejit-table thead th { text-align: left; padding: 2px 8px;
                                             border-bottom: 1px solid #90a4ae; }
table.fusejit-table.fusejit-table tbody td { text-align: left; padding: 1px 8px;
                                             vertical-align: top; }
table.fusejit-table.fusejit-table tr.target td { background: #fff8e1; }
.fusejit-table .move { font-weight: bold; color: #c62828; }
.fusejit-table .jump { color: #1565c0; }
.fusejit-table .src { color: #78909c; }
</style>"""
_tables = count()


def _e(value: Any) -> str:
    return html.escape(str(value))


def _table(header: list[str], rows: list[str], caption: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    cap = f"<caption style='text-align:left'>{caption}</caption>" if caption else ""
    return (f'<table class="fusejit-table">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _constant_text(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array({list(value.shape)}, {value.dtype})"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "\u2026"


# -- Code ---------------------------------------------------------------------------------------

def code_html(code) -> str:
    """``code`` as a table of instructions, with the subprograms of CALL/FORK below it."""
    return _STYLE + _code_table(code)


def _code_table(code, title: str = "") -> str:
    from ..runtime.code import ARG, IN_SIZE, IN_START, OPCODE, OUT_SIZE, OUT_START, Opcode

    jumps = (Opcode.JUMP, Opcode.JUMPZ, Opcode.JUMPNZ)
    prefix = f"fj{next(_tables)}-"
    table = code.instructions
    target_of = {pc: pc + 1 + int(table[pc, ARG]) for pc in range(len(table))
                 if int(table[pc, OPCODE]) in jumps}
    sources = Counter(target_of.values())
    rows = []
    for pc in range(len(table)):
        opcode, arg = int(table[pc, OPCODE]), int(table[pc, ARG])
        first_in, first_out = int(table[pc, IN_START]), int(table[pc, OUT_START])
        ins = [(int(code.int_data[i]), bool(code.bool_data[i]))
               for i in range(first_in, first_in + int(table[pc, IN_SIZE]))]
        outs = code.int_data[first_out:first_out + int(table[pc, OUT_SIZE])]
        operands = ", ".join(f'<span class="move">move({r})</span>' if moved else str(r)
                             for r, moved in ins)
        if opcode == Opcode.CONSTANT:
            operands = _e(_constant_text(code.constants[arg]))
        elif opcode in (Opcode.CALL, Opcode.FORK):
            operands += f" <i>(subprogram {arg})</i>"
        jump = ""
        if pc in target_of:
            jump = (f'<a class="jump" href="#{prefix}{target_of[pc]}">'
                    f"\u2192 {target_of[pc]}</a>")
        source = code.source_ranges[pc]
        marker = " \u25b6" if pc in sources else ""
        rows.append(
            f'<tr id="{prefix}{pc}"{" class=target" if pc in sources else ""}>'
            f"<td>{pc}{marker}</td><td>{_e(', '.join(str(int(r)) for r in outs))}</td>"
            f"<td>{_e(code.kinds[pc])}</td><td>{operands}</td><td>{jump}</td>"
            f'<td class="src">{_e(source) if source is not None else ""}</td></tr>')
    caption = (f"{_e(title)}{len(table)} instructions, {code.register_size} registers, "
               f"{len(code.constants)} constants; <span class='move'>move(r)</span> is the "
               f"last use of register r (it is freed), \u25b6 a jump target")
    out = _table(["pc", "outputs", "instruction", "inputs", "jump", "source"], rows, caption)
    for i, sub in enumerate(code.subcodes):
        out += f"<details><summary>subprogram {i}</summary>{_code_table(sub)}</details>"
    return out


# -- compiled functions ---------------------------------------------------------------------------

def _spec_text(spec: tuple) -> str:
    parts = []
    for item in spec:
        if isinstance(item, tuple):
            dtype, rank, contiguous = item
            layout = "" if contiguous else ", strided"
            parts.append(f"{np.dtype(dtype).name}[{rank}-d{layout}]")
        else:
            parts.append(getattr(item, "__name__", str(item)))
    return "(" + ", ".join(parts) + ")"


def _groups(graph) -> list[str]:
    """One line per fusion group: its printed name and the ops it computes."""
    lines = []
    number = count()
    for node in graph.all_nodes():
        if node.kind in (prim.FusionGroup, prim.CudaFusionGroup):
            ops = Counter(n.kind for n in node.g("Subgraph").nodes() if n.kind != prim.Constant)
            body = ", ".join(k if c == 1 else f"{k} \u00d7{c}" for k, c in ops.items())
            lines.append(f"{node.kind}_{next(number)}: {body}")
    return lines


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{1000 * seconds:.3f}"


def function_html(fn, plans: list[tuple[tuple, Any]], timings: dict | None = None) -> str:
    """A ``CompiledFunction``: its settings, then one row per plan (argument spec) with its
    ``timings`` (a ``PlanTimings`` per plan) and, below, each plan's fusion groups, graph and
    instructions."""
    from .graph import graph_html

    names = ", ".join(f"%{p.debug_name}" for p in fn.params)
    head = (f"<p><b>fusejit.CompiledFunction</b>({_e(names)}) &mdash; engine={_e(fn.engine)}, "
            f"fuse={fn.fuse}, precise={fn.precise}</p>")
    if not plans:
        return (_STYLE + head + "<p>No plan yet: one is built per argument spec on the first "
                "call.</p><details><summary>graph</summary>" + graph_html(fn.graph)
                + "</details>")
    rows, details = [], []
    for i, (spec, plan) in enumerate(plans):
        groups = _groups(plan.graph)
        timed = (timings or {}).get(plan)
        calls = timed.calls if timed else 0
        mean = timed.mean_s if timed else None
        engine = plan.engine if fn.engine == "auto" else fn.engine
        shown_spec = _spec_text(spec) if fn.fuse else "any (not specialised: fuse=False)"
        rows.append(
            f"<tr><td>{i}</td><td>{_e(shown_spec)}</td><td>{_e(engine)}</td>"
            f"<td>{len(plan.code)}</td><td>{len(groups)}</td><td>{len(plan.kernels)}</td>"
            f"<td>{_ms(timed.build_s if timed else None)}</td><td>{calls}</td>"
            f"<td>{_ms(timed.first_call_s if timed else None)}</td><td>{_ms(mean)}</td></tr>")
        group_list = "".join(f"<li><code>{_e(g)}</code></li>" for g in groups) or \
            "<li>no fusion group</li>"
        # With one plan its instructions are open: the graph is usually shown beside it.
        opened = " open" if len(plans) == 1 else ""
        details.append(
            f"<details><summary>plan {i} {_e(shown_spec)}: fusion groups and graph</summary>"
            f"<ul>{group_list}</ul>{graph_html(plan.graph)}</details>"
            f"<details{opened}><summary>plan {i}: instructions</summary>"
            f"{_code_table(plan.code)}</details>")
    table = _table(["plan", "argument spec", "engine", "instructions", "fusion groups",
                    "kernels", "build ms", "calls", "first call ms", "later calls: mean ms"], rows,
                   "plans, one per argument spec (dtype, rank, contiguity); the first call "
                   "compiles the kernels")
    return _STYLE + head + table + "".join(details)


def jit_html(jit_fn, compiled) -> str:
    """A ``@fusejit.jit`` function: its name, then its compiled function (or its graph)."""
    from ..errors import FusejitError
    from .graph import graph_html

    device = f" device={_e(jit_fn.device)}" if jit_fn.device else ""
    head = (f"<p><b>@fusejit.jit</b> <code>{_e(jit_fn.fn.__qualname__)}"
            f"{_e(inspect.signature(jit_fn.fn))}</code>{device}</p>")
    races = getattr(jit_fn, "races", [])
    if races:      # (the race against NumPy: frontend/race.py)
        head += "<p>Raced against NumPy:</p><ul>" + "".join(
            f"<li><code>{_e(str(result))}</code></li>" for result in races) + "</ul>"
    if compiled is not None:
        shown = getattr(compiled, "_repr_html_", None)
        return head + (shown() if shown is not None else f"<pre>{_e(repr(compiled))}</pre>")
    try:
        body = graph_html(jit_fn.graph)
    except FusejitError as error:
        body = f"<pre>{_e(error)}</pre>"
    return head + "<p>Not called yet; the scripted graph:</p>" + body


# -- source ----------------------------------------------------------------------------------------

def source_html(text: str) -> str:
    """Python source as HTML: highlighted by Pygments where installed, else plain ``<pre>``."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f'<pre class="fusejit-source">{_e(text)}</pre>'
    formatter = HtmlFormatter(noclasses=True, prestyles="font-family: monospace; font-size: 12px")
    return highlight(text, PythonLexer(), formatter)


class KernelSource(str):
    """Generated kernel source: prints as text, displays highlighted in a notebook."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return source_html(str(self))
