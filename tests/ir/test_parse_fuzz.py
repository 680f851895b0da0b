"""Property: a mutated corpus file either parses to a lint-clean graph that prints and parses back
to the same text, or raises IRParseError — never any other exception, never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fusejit import IRParseError, parse_ir
from fusejit.ir import lint
from tests.conftest import IR_FILES, read_corpus

TOKENS = ["%", "(", ")", "[", "]", ",", ":", "=", "->", "block0():", "prim::If", "prim::Loop",
          "Float(", "int", "Tensor", "\n", "  ", "#", '"', "\\", "with", "return", "-1", "1e308",
          "99999999999999999999", "%x", "\x00", "\u00e9", "\ud7ff", "prim::FusionGroup_0",
          "strides=[", "device=", "<Tensor>", "{", "}"]


@st.composite
def mutated(draw):
    text = read_corpus(draw(st.sampled_from(IR_FILES)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "swap", "dup"]))
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 40)))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.text(max_size=5)) + text[j:]
        elif op == "truncate":
            text = text[:i]
        else:
            lines = text.splitlines(keepends=True)
            if len(lines) > 2:
                a = draw(st.integers(0, len(lines) - 1))
                b = draw(st.integers(0, len(lines) - 1))
                if op == "swap":
                    lines[a], lines[b] = lines[b], lines[a]
                else:
                    lines.insert(b, lines[a])
                text = "".join(lines)
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_text_parses_cleanly_or_raises_parse_error(text):
    try:
        graph = parse_ir(text)
    except IRParseError as exc:
        assert exc.line >= 1 or "not UTF-8" in str(exc)
        return
    lint(graph)
    printed = str(graph)
    assert str(parse_ir(printed)) == printed


@pytest.mark.parametrize("rel", IR_FILES[:4])
def test_every_prefix_of_a_file_is_handled(rel):
    text = read_corpus(rel)
    for end in range(0, len(text), 7):
        try:
            parse_ir(text[:end])
        except IRParseError:
            pass
