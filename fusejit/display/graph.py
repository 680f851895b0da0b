"""Graph pictures: a ``Graph`` drawn by Graphviz, fusion groups as clusters, a text fallback.

::

    graph(%x : Float(4), %y : Float(4)):          [ %x : Float(4) ]   [ %y : Float(4) ]
      %2 : Float(4) = prim::FusionGroup_0(%x, %y)   +- prim::FusionGroup_0 ------------+
      return (%2)                                    | aten::mul(%3, %4)              |
    with prim::FusionGroup_0 = graph(...):           |   %5 : Float(4)   demo.py:3:11 |
      %5 : Float(4) = aten::mul(%3, %4) # ...        | aten::tanh(%5) ...             |
      %6 : Float(4) = aten::tanh(%5) # ...           +--------------------------------+
      return (%6)                                                [ return ]

Each node is a box: its op with attributes and inputs (scalar constants inlined), each output's
name and type, and the source line. A fusion group's subgraph is drawn inside a cluster named as
the printer numbers it (``prim::FusionGroup_K``), with edges from the producers outside; the
blocks of ``prim::If``/``prim::Loop`` are clusters too. Past ``MAX_UNFOLDED_NODES`` nodes the
drawing folds: each group or control-flow node is one box that counts what it holds.

The picture needs the ``graphviz`` package and Graphviz's ``dot`` program. Where either is
missing, ``graph_html`` shows the printed IR instead and says why, once per process.

All text placed in the DOT source is HTML-escaped; node identifiers are ones made here.
"""

from __future__ import annotations

import html
import shutil
from collections import Counter
from itertools import count

from ..ir.constants import constant_value
from ..ir.graph import Block, Graph, Node, Value
from ..ir.printer import format_ivalue, print_node
from ..ir.symbols import prim

__all__ = ["MAX_UNFOLDED_NODES", "dot_available", "graph_dot", "graph_html", "graph_svg"]

# Past this many nodes (all blocks and subgraphs counted) groups and blocks are drawn folded:
# dot's layout time grows quickly and a picture of hundreds of boxes is read by nobody.
MAX_UNFOLDED_NODES = 60
# Longer label lines are cut (types with strides, long tensor constants).
MAX_LINE = 72
_SVG_CACHE_SIZE = 32

_GROUP_COLOURS = ("#e3f2fd", "#fff3e0", "#e8f5e9", "#fce4ec", "#ede7f6", "#fffde7")
_svg_cache: dict[tuple[str, bool], str] = {}
_told_no_dot = False


def dot_available() -> bool:
    """Can graphs be drawn here: is the ``graphviz`` package importable and ``dot`` on PATH?"""
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return shutil.which("dot") is not None


def _count_nodes(block: Block) -> int:
    total = 0
    for node in block.nodes():
        total += 1
        for inner in node.blocks:
            total += _count_nodes(inner)
        if _is_group(node):
            total += _count_nodes(node.g("Subgraph").block)
    return total


def _is_group(node: Node) -> bool:
    return node.has_attribute("Subgraph") and node.kind_of("Subgraph") == "g"


def _block_reads(node: Node):
    """Every value read inside ``node``'s blocks (nested blocks included), in order."""
    for block in node.blocks:
        for inner in block.nodes():
            yield from inner.inputs
            yield from _block_reads(inner)
        yield from block.outputs


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "\u2026"


def _escape(text: str) -> str:
    # dot expands escapes in HTML-like labels too (\N is the node's name, \\ one backslash):
    # doubling every backslash leaves the text as it was.
    return html.escape(text).replace("\\", "\\\\")


def _row(text: str, *, bold: bool = False, colour: str | None = None) -> str:
    cell = _escape(_cut(text))
    if bold:
        cell = f"<B>{cell}</B>"
    if colour:
        cell = f'<FONT COLOR="{colour}" POINT-SIZE="10">{cell}</FONT>'
    return f'<TR><TD ALIGN="LEFT">{cell}</TD></TR>'


def _label(rows: list[str]) -> str:
    # Graphviz's HTML-like labels: the text inside is escaped by _row.
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0">' + "".join(rows) + "</TABLE>>"


def _inline_constant(value: Value) -> str | None:
    """The literal a scalar constant input is shown as, or None to show it as ``%name``."""
    node = value.node
    if node.kind != prim.Constant:
        return None
    literal = constant_value(node)
    if literal is None or isinstance(literal, (bool, int, float, str)):
        return format_ivalue(literal)
    return None


def _op_text(node: Node) -> str:
    """``kind[attributes](inputs)`` with scalar constants written in place of their names."""
    header = print_node(node).split("\n", 1)[0]
    if node.source_range is not None:
        header = header.removesuffix(f" # {node.source_range}")
    names = ", ".join(f"%{v.debug_name}" for v in node.inputs)
    call = header.split(" = ", 1)[1] if " = " in header else header
    attributes = call[len(node.kind):len(call) - len(names) - 2]
    args = ", ".join(_inline_constant(v) or f"%{v.debug_name}" for v in node.inputs)
    return f"{node.kind}{attributes}({args})"


class _Drawing:
    """Builds one ``graphviz.Digraph``; ``producer`` maps each value to the box that makes it."""

    def __init__(self, graph: Graph, fold: bool):
        import graphviz

        self.fold = fold
        self.dot = graphviz.Digraph("graph", format="svg")
        self.dot.attr(rankdir="TB", fontname="Helvetica", fontsize="11")
        self.dot.attr("node", shape="box", style="rounded,filled", fillcolor="white",
                      fontname="Helvetica", fontsize="11", margin="0.08,0.04")
        self.dot.attr("edge", color="#607d8b", arrowsize="0.6")
        self.ids = count()
        self.producer: dict[Value, str] = {}
        self.renamed: set[Value] = set()
        self.groups = 0
        for value in graph.inputs:
            box = self.box(self.dot, [_row(f"%{value.debug_name} : {value.type}")],
                           shape="ellipse", fillcolor="#eceff1")
            self.producer[value] = box
        self.draw_block(graph.block, self.dot)
        self.returns(graph.block, self.dot, "return")

    def box(self, container, rows: list[str], **attrs: str) -> str:
        name = f"n{next(self.ids)}"
        container.node(name, _label(rows), **attrs)
        return name

    def edges_to(self, box: str, values) -> None:
        for value in values:
            source = self.producer.get(value)
            if source is None:
                continue
            # Name the value where the box it comes from does not: one of several outputs,
            # or a group's subgraph input (the name the op text inside the cluster uses).
            node = value.node
            if value in self.renamed or (len(node.outputs) > 1 and node.kind != prim.Param):
                name = _escape(f"%{value.debug_name}")
                self.dot.edge(source, box, label=f'<<FONT POINT-SIZE="9">{name}</FONT>>',
                              fontcolor="#546e7a")
            else:
                self.dot.edge(source, box)

    def returns(self, block: Block, container, title: str) -> str:
        names = ", ".join(f"%{v.debug_name}" for v in block.outputs)
        box = self.box(container, [_row(f"{title} ({names})", bold=True)], shape="plain",
                       style="")
        self.edges_to(box, block.outputs)
        return box

    def node_rows(self, node: Node) -> list[str]:
        rows = [_row(_op_text(node), bold=True)]
        rows += [_row(f"%{out.debug_name} : {out.type}") for out in node.outputs]
        if node.source_range is not None:
            rows.append(_row(str(node.source_range), colour="#78909c"))
        return rows

    def draw_block(self, block: Block, container) -> None:
        for node in block.nodes():
            if node.kind == prim.Constant and all(_inline_constant(v) for v in node.outputs):
                continue
            if _is_group(node):
                self.draw_group(node, container)
                continue
            rows = self.node_rows(node)
            if node.blocks and self.fold:
                inner = sum(_count_nodes(b) for b in node.blocks)
                rows.append(_row(f"{len(node.blocks)} block(s), {inner} node(s) (folded)",
                                 colour="#78909c"))
            box = self.box(container, rows, fillcolor="#f5f5f5" if node.blocks else "white")
            self.edges_to(box, node.inputs)
            if node.blocks and self.fold:
                # Values the folded blocks read from outside still flow into the box.
                outside = dict.fromkeys(v for v in _block_reads(node) if v in self.producer)
                self.edges_to(box, [v for v in outside if v not in node.inputs])
            for out in node.outputs:
                self.producer[out] = box
            if not self.fold:
                for i, inner_block in enumerate(node.blocks):
                    block_end = self.draw_subblock(node, i, inner_block, container)
                    # What a block returns becomes the node's outputs (dashed: not a value).
                    self.dot.edge(block_end, box, style="dashed", arrowhead="empty")

    def draw_subblock(self, node: Node, index: int, block: Block, container) -> str:
        with container.subgraph(name=f"cluster_{next(self.ids)}") as cluster:
            cluster.attr(label=f"{node.kind} block{index}", style="dashed,rounded",
                         color="#90a4ae", fontcolor="#546e7a")
            if block.inputs:
                params = ", ".join(f"%{v.debug_name} : {v.type}" for v in block.inputs)
                box = self.box(cluster, [_row(f"block{index}({params})")], shape="plain",
                               style="")
                for value in block.inputs:
                    self.producer[value] = box
            self.draw_block(block, cluster)
            return self.returns(block, cluster, "->")

    def draw_group(self, node: Node, container) -> None:
        title = f"{node.kind}_{self.groups}"
        colour = _GROUP_COLOURS[self.groups % len(_GROUP_COLOURS)]
        self.groups += 1
        subgraph = node.g("Subgraph")
        if self.fold:
            ops = Counter(n.kind for n in subgraph.nodes() if n.kind != prim.Constant)
            rows = [_row(title, bold=True), _row(f"{sum(ops.values())} ops (folded)")]
            rows += [_row(kind if n == 1 else f"{kind} \u00d7{n}") for kind, n in ops.items()]
            rows += [_row(f"%{out.debug_name} : {out.type}") for out in node.outputs]
            box = self.box(container, rows, fillcolor=colour)
            self.edges_to(box, node.inputs)
            for out in node.outputs:
                self.producer[out] = box
            return
        # The subgraph's inputs are the group's inputs: its nodes read the outer producers.
        for outer, inner in zip(node.inputs, subgraph.inputs):
            if outer in self.producer:
                self.producer[inner] = self.producer[outer]
                self.renamed.add(inner)
        with container.subgraph(name=f"cluster_{next(self.ids)}") as cluster:
            cluster.attr(label=title, style="rounded,filled", fillcolor=colour,
                         color="#1e88e5", fontcolor="#0d47a1", fontname="Helvetica-Bold")
            self.draw_block(subgraph.block, cluster)
        for outer, inner in zip(node.outputs, subgraph.outputs):
            if inner in self.producer:
                self.producer[outer] = self.producer[inner]


def graph_dot(graph: Graph, fold: bool | None = None) -> str:
    """The DOT source of ``graph``'s picture (needs the ``graphviz`` package, not ``dot``).
    ``fold=None`` folds graphs of more than ``MAX_UNFOLDED_NODES`` nodes."""
    if fold is None:
        fold = _count_nodes(graph.block) > MAX_UNFOLDED_NODES
    return _Drawing(graph, fold).dot.source


def graph_svg(graph: Graph, fold: bool | None = None) -> str | None:
    """``graph`` drawn as an SVG document, or None where ``dot`` is not available."""
    if not dot_available():
        return None
    if fold is None:
        fold = _count_nodes(graph.block) > MAX_UNFOLDED_NODES
    # IPython asks for HTML and SVG of the same object in turn: run dot once for both.
    key = (str(graph), fold)
    svg = _svg_cache.get(key)
    if svg is None:
        import graphviz

        source = graph_dot(graph, fold)
        svg = graphviz.Source(source).pipe(format="svg", encoding="utf-8")
        if len(_svg_cache) >= _SVG_CACHE_SIZE:
            _svg_cache.clear()
        _svg_cache[key] = svg
    return svg


def _inline_svg(svg: str) -> str:
    """The ``<svg>`` element alone, without the XML declaration and doctype dot writes."""
    return svg[svg.index("<svg"):]


def graph_html(graph: Graph, fold: bool | None = None) -> str:
    """``graph`` as HTML: the SVG picture, or (without ``dot``) the printed IR in ``<pre>``."""
    svg = graph_svg(graph, fold)
    if svg is not None:
        return f'<div class="fusejit-graph">{_inline_svg(svg)}</div>'
    global _told_no_dot
    note = ""
    if not _told_no_dot:
        _told_no_dot = True
        note = ('<p class="fusejit-note"><em>Graphviz is not available here (the '
                "<code>graphviz</code> package and the <code>dot</code> program), so graphs "
                "are shown as text. Install both to draw them: <code>pip install "
                "fusejit[notebook]</code> and Graphviz from your system's packages.</em></p>")
    return f'<div class="fusejit-graph">{note}<pre>{html.escape(str(graph))}</pre></div>'
