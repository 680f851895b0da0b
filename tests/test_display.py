"""Rich displays, checked as a person would see them: each is rendered to SVG or HTML, parsed,
and its text compared with what the object itself says (its nodes, its ``dump()``, its plans).

Pictures through ``dot`` run only where Graphviz is installed; the text fallback always runs.
Nothing here compiles a kernel: plans are built with ``graph_for`` and calls use the reference
loop, so the file takes about a second.
"""

from __future__ import annotations

import html
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

import fusejit
from fusejit import display
from fusejit.display import graph as graph_display
from fusejit.ir.symbols import prim
from tests.conftest import CASES, read_corpus

needs_dot = pytest.mark.skipif(not display.dot_available(),
                               reason="Graphviz (graphviz package and dot) not installed")

CHUNK_IR = """graph(%x.1 : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu),
      %y.1 : Float(4, 4, strides=[4, 1], requires_grad=0, device=cpu)):
  %3 : int = prim::Constant[value=1]() # cases.py:272:30
  %4 : Float(4, 4, strides=[4, 1], device=cpu) = aten::add(%x.1, %y.1, %3) # cases.py:272:14
  %10 : Float(*, *, device=cpu), %11 : Float(*, *, device=cpu) = prim::ConstantChunk[chunks=2, dim=1](%4) # cases.py:272:14
  %8 : Float(*, *, device=cpu) = aten::sigmoid(%10) # cases.py:273:11
  %9 : Float(*, *, device=cpu) = aten::mul(%8, %11) # cases.py:273:11
  return (%9)
"""

LOOP_IR = """graph(%x : Tensor, %n : int):
  %t : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %t, %x)
    block0(%i : int, %acc : Tensor):
      %e : Tensor = aten::exp(%acc)
      -> (%t, %e)
  %c : bool = aten::gt(%n, %n)
  %z : Tensor = prim::If(%c)
    block0():
      %a : Tensor = aten::neg(%y)
      -> (%a)
    block1():
      -> (%y)
  return (%z)
"""

_VOID = {"br", "hr", "img", "meta", "input", "link", "col", "area", "base", "wbr", "source"}


class _WellFormed(HTMLParser):
    """Checks that every opened element is closed in order; collects the visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []
        self.tags: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in _VOID:
            self.stack.append(tag)
        if tag == "style":
            self.skip += 1

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag == "style":
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)


def parse_html(text: str) -> _WellFormed:
    parser = _WellFormed()
    parser.feed(text)
    parser.close()
    assert not parser.stack, f"unclosed elements {parser.stack}"
    return parser


def svg_text(svg: str) -> str:
    root = ET.fromstring(svg)       # raises on malformed XML
    return "\n".join(t.strip() for t in root.itertext() if t.strip())


def fused_chunk_graph() -> fusejit.Graph:
    graph = fusejit.parse_ir(CHUNK_IR)
    fusejit.fuse_graph(graph)
    return graph


def group_nodes(graph):
    return [n for n in graph.all_nodes() if n.kind == prim.FusionGroup]


def test_import_fusejit_imports_no_display_library():
    code = ("import sys, fusejit, fusejit.display\n"
            "fusejit.show\n"
            "heavy = [m for m in ('graphviz', 'matplotlib', 'IPython', 'pygments', 'numba')\n"
            "         if m in sys.modules]\n"
            "print(heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


@needs_dot
def test_graph_svg_draws_every_node_and_groups_as_clusters():
    graph = fused_chunk_graph()
    svg = graph._repr_svg_()
    text = svg_text(svg)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    groups = [g for g in root.iter(f"{ns}g") if g.get("class") == "cluster"]
    boxes = [g for g in root.iter(f"{ns}g") if g.get("class") == "node"]
    [group] = group_nodes(graph)
    subgraph = group.g("Subgraph")
    assert len(groups) == 1 and "prim::FusionGroup_0" in text
    # One box per graph input, per node that is not an inlined scalar constant, and return.
    drawn = [n for n in [*graph.nodes(), *subgraph.nodes()]
             if n.kind != prim.Constant and n is not group]
    assert len(boxes) == len(graph.inputs) + len(drawn) + 1
    for node in drawn:
        assert str(node.kind) in text
        for out in node.outputs:
            assert f"%{out.debug_name} : {out.type}" in text
    assert "cases.py:273:11" in text            # source lines are shown
    # Scalar constants are written in place of their names.
    for add in (n for n in subgraph.nodes() if n.kind == "aten::add"):
        a, b, _ = add.inputs
        assert f"aten::add(%{a.debug_name}, %{b.debug_name}, 1)" in text


@needs_dot
def test_graph_html_embeds_the_svg_and_is_well_formed():
    graph = fused_chunk_graph()
    page = graph._repr_html_()
    parsed = parse_html(page)
    assert "svg" in parsed.tags
    assert "prim::FusionGroup_0" in "".join(parsed.text)


@needs_dot
def test_control_flow_blocks_are_clusters_and_big_graphs_fold():
    graph = fusejit.parse_ir(LOOP_IR)
    text = svg_text(display.graph_svg(graph))
    for shown in ("prim::Loop block0", "prim::If block0", "prim::If block1", "aten::exp",
                  "aten::neg", "block0(%i : int, %acc : Tensor)"):
        assert shown in text
    ns = "{http://www.w3.org/2000/svg}"
    edges = [g for g in ET.fromstring(display.graph_svg(graph)).iter(f"{ns}g")
             if g.get("class") == "edge"]
    # Each block's "->" box leads, dashed, to the node whose outputs it gives: 1 + 2 blocks.
    dashed = [e for e in edges if "stroke-dasharray" in ET.tostring(e, encoding="unicode")]
    assert len(dashed) == 3
    folded_svg = display.graph_svg(graph, fold=True)
    folded = svg_text(folded_svg)
    assert "aten::exp" not in folded and "1 block(s), 1 node(s) (folded)" in folded
    assert "2 block(s), 1 node(s) (folded)" in folded
    # %x and %n into the loop, %n twice into gt, gt into the if, the loop's %y (read inside
    # the if's folded block) into the if, the if into return.
    folded_edges = [g for g in ET.fromstring(folded_svg).iter(f"{ns}g")
                    if g.get("class") == "edge"]
    assert len(folded_edges) == 7


@needs_dot
def test_graph_past_the_limit_folds_its_groups():
    n = graph_display.MAX_UNFOLDED_NODES
    body = "".join(f"  %v{i + 1} : Float(8) = aten::sin(%v{i})\n" for i in range(n))
    graph = fusejit.parse_ir(f"graph(%v0 : Float(8)):\n{body}  return (%v{n})\n")
    fusejit.fuse_graph(graph)
    text = svg_text(display.graph_svg(graph))
    assert f"{n} ops (folded)" in text and f"aten::sin \u00d7{n}" in text
    unfolded = svg_text(display.graph_svg(graph, fold=False))
    assert unfolded.count("aten::sin") == n


@needs_dot
def test_text_from_the_graph_is_escaped_in_the_picture():
    graph = fusejit.parse_ir(
        'graph(%x : Tensor, %y : Tensor):\n'
        '  %m : str = prim::Constant[value="<b>&\\"\\\\N\\\\G"]()\n'
        '  %z : Tensor = aten::div(%x, %y, %m) # <evil>&.py:1:2\n'
        '  return (%z)\n')
    text = svg_text(display.graph_svg(graph))
    assert 'aten::div(%x, %y, "<b>&\\"\\\\N\\\\G")' in text
    assert "<evil>&.py:1:2" in text


def test_fallback_without_dot_shows_the_printed_graph_and_says_so_once(monkeypatch):
    monkeypatch.setattr(graph_display, "dot_available", lambda: False)
    monkeypatch.setattr(graph_display, "_told_no_dot", False)
    graph = fused_chunk_graph()
    assert graph._repr_svg_() is None
    first, second = graph._repr_html_(), graph._repr_html_()
    for page in (first, second):
        assert html.unescape("".join(parse_html(page).text)).endswith(str(graph))
    assert "Graphviz is not available" in first
    assert "Graphviz is not available" not in second


def _row_texts(page: str) -> list[list[str]]:
    """The cells of each body row of the first table in ``page``."""

    class Rows(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.rows, self.cell, self.in_body, self.done = [], None, False, False

        def handle_starttag(self, tag, attrs):
            if self.done:
                return
            if tag == "tbody":
                self.in_body = True
            elif tag == "tr" and self.in_body:
                self.rows.append([])
            elif tag == "td" and self.in_body:
                self.cell = []

        def handle_endtag(self, tag):
            if tag == "td" and self.cell is not None:
                self.rows[-1].append("".join(self.cell).strip())
                self.cell = None
            elif tag == "tbody":
                self.in_body, self.done = False, True

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    parser = Rows()
    parser.feed(page)
    return parser.rows


def test_code_table_matches_dump():
    from fusejit.runtime.code import OPCODE, Opcode

    code = fusejit.Code(fusejit.parse_ir(LOOP_IR))
    page = code._repr_html_()
    parse_html(page)
    rows = _row_texts(page)
    assert len(rows) == len(code)
    dump = code.dump().splitlines()
    jumps = 0
    for pc, (pc_cell, outs, kind, ins, jump, _source) in enumerate(rows):
        assert pc_cell.split()[0] == str(pc)
        if code.instructions[pc, OPCODE] == Opcode.CONSTANT:
            continue
        line = f"{outs} = {kind} {ins}".strip() + (f" -> {jump[2:]}" if jump else "")
        assert line == dump[pc]
        jumps += bool(jump)
    assert jumps == 4                             # loop: JumpZ, JumpNZ; if: JumpNZ, Jump
    assert page.count('class="move"') == code.dump().count("move(")


def test_compiled_function_shows_one_row_per_argument_spec():
    graph = fused_chunk_graph()
    fn = fusejit.compile(fusejit.parse_ir(CHUNK_IR), fuse=True, engine="reference")
    x32, x64 = np.ones((4, 4), np.float32), np.ones((4, 4), np.float64)
    fn.graph_for(x32, x32)
    fn.graph_for(x64, x64.T)                      # builds plans, compiles no kernel
    page = fn._repr_html_()
    parsed = parse_html(page)
    rows = _row_texts(page)
    assert [r[1] for r in rows] == ["(float32[2-d], float32[2-d])",
                                    "(float64[2-d], float64[2-d, strided])"]
    assert [r[4] for r in rows] == ["1", "1"]     # one fusion group in each plan
    assert [r[3] for r in rows] == [str(len(fn.code_for(x32, x32))),
                                    str(len(fn.code_for(x64, x64.T)))]
    text = "".join(parsed.text)
    assert len(group_nodes(graph)) == 1
    assert "prim::FusionGroup_0: prim::ConstantChunk \u00d72, aten::add \u00d72" in text


def test_compiled_function_counts_its_calls():
    fn = fusejit.compile(fusejit.parse_ir(CHUNK_IR), engine="reference")
    x = np.ones((4, 4), np.float32)
    for _ in range(3):
        fn(x, x)
    [row] = _row_texts(fn._repr_html_())
    assert row[1].startswith("any") and row[2] == "reference" and row[7] == "3"
    assert float(row[8]) > 0 and float(row[9]) > 0


def test_jit_function_before_and_after_its_first_plan(monkeypatch):
    monkeypatch.setattr(graph_display, "dot_available", lambda: False)

    @fusejit.jit
    def gate(x, h):
        return np.tanh(x) * h

    before = parse_html(gate._repr_html_())
    assert "Not called yet" in "".join(before.text)
    assert "aten::tanh" in "".join(before.text)
    x = np.ones((2, 3), np.float64)
    gate.graph_for(x, x)
    after = "".join(parse_html(gate._repr_html_()).text)
    assert "gate(x, h)" in after and "(float64[2-d], float64[2-d])" in after


@pytest.mark.parametrize("pygments", [True, False], ids=["pygments", "plain"])
def test_kernel_source_displays_highlighted_with_the_same_text(pygments, monkeypatch):
    if not pygments:
        monkeypatch.setitem(sys.modules, "pygments", None)
    else:
        pytest.importorskip("pygments")
    graph = fused_chunk_graph()
    [group] = group_nodes(graph)
    x = np.ones((4, 4), np.float32)
    source = fusejit.kernel_source(group, x, x)
    assert isinstance(source, str) and "@njit(parallel=True" in source
    page = source._repr_html_()
    parsed = parse_html(page)
    assert "".join(parsed.text).strip() == source.strip()
    assert ("span" in parsed.tags) == pygments


def test_show_writes_files_that_parse(tmp_path, monkeypatch):
    graph = fused_chunk_graph()
    code = fusejit.Code(graph)
    page = fusejit.show(code, tmp_path / "code.html")
    assert page == tmp_path / "code.html"
    assert "prim::FusionGroup" in "".join(parse_html(page.read_text()).text)
    written = fusejit.show(graph)
    try:
        if display.dot_available():
            assert written.suffix == ".svg"
            assert "prim::FusionGroup_0" in svg_text(written.read_text())
        else:
            assert written.suffix == ".html"
    finally:
        written.unlink()
    monkeypatch.setattr(graph_display, "dot_available", lambda: False)
    fallback = fusejit.show(graph, tmp_path / "g.html")
    assert fallback.suffix == ".html"
    assert "prim::FusionGroup_0" in "".join(parse_html(fallback.read_text()).text)
    with pytest.raises(fusejit.FusejitError, match="cannot show a dict"):
        fusejit.show({}, tmp_path / "x.html")


@needs_dot
@pytest.mark.parametrize("case", CASES)
def test_every_fused_corpus_graph_draws_all_its_kinds(case):
    graph = fusejit.parse_ir(read_corpus(f"{case}/expected_fused.ir"))
    svg = display.graph_svg(graph)
    text = svg_text(svg)
    kinds = {str(n.kind) for n in graph.all_nodes() if n.kind != prim.Constant}
    kinds |= {str(n.kind) for g in group_nodes(graph) for n in g.g("Subgraph").nodes()
              if n.kind != prim.Constant}
    kinds -= {str(prim.FusionGroup)}
    assert all(kind in text for kind in kinds), sorted(k for k in kinds if k not in text)
    clusters = [g for g in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g")
                if g.get("class") == "cluster"
                and "prim::FusionGroup_" in "".join(g.itertext())]
    folded = graph_display._count_nodes(graph.block) > graph_display.MAX_UNFOLDED_NODES
    assert len(clusters) == (0 if folded else len(group_nodes(graph)))
