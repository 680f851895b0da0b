"""Malformed IR text raises IRParseError with line, column and a caret, never anything else."""

from __future__ import annotations

import pytest

from fusejit import FusejitError, IRParseError, parse_ir
from fusejit.ir import lint

GOOD = """\
graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %y : Float(2, 3, strides=[3, 1], device=cpu) = aten::add(%x, %x, %one) # f.py:3:8
  return (%y)
"""

BAD = [
    # (name, text, expected fragment of the message, line, text the caret must point at)
    ("unknown value", GOOD.replace("aten::add(%x, %x", "aten::add(%x, %q"), "unknown value %q", 3, "%q"),
    ("duplicate definition", GOOD.replace("%y : Float", "%one : Float"), "%one is defined twice", 3, "%one"),
    ("missing return", GOOD.replace("  return (%y)\n", ""), "expected 'return'", 4, ""),
    ("unbalanced parenthesis", GOOD.replace("(%x, %x, %one)", "(%x, %x, %one"), "',' or ')'", 4, "return"),
    ("unbalanced bracket", GOOD.replace("strides=[3, 1], r", "strides=[3, 1, r"), "expected an integer", 1, "requires"),
    ("bad type", GOOD.replace("%one : int", "%one : integer"), "unknown type 'integer'", 2, "integer"),
    ("bad device", GOOD.replace("device=cpu)):", "device=tpu)):"), "unknown device", 1, "tpu"),
    ("bad constant", GOOD.replace("[value=1]", "[value=1x]"), "',' or ']'", 2, "x]"),
    ("int out of range", GOOD.replace("[value=1]", "[value=99999999999999999999]"), "does not fit in 64 bits", 2, "9999"),
    ("float out of range", GOOD.replace("[value=1]", "[value=1e999]"), "out of range", 2, "1e999"),
    ("truncated", GOOD[:90], "", 0, None),
    ("empty", "", "expected 'graph(", 1, ""),
    ("binary junk", "\x7fELF\x02\x01\x01\x00\x00", "NUL", 1, "\x00"),
    ("strides vs sizes", GOOD.replace("strides=[3, 1], requires", "strides=[3], requires"), "1 strides for 2 sizes", 1, "Float"),
    ("use after block ends", """\
graph(%c : bool):
  %r : int = prim::If(%c)
    block0():
      %a : int = prim::Constant[value=1]()
      -> (%a)
    block1():
      -> (%a)
  return (%r)
""", "unknown value %a", 7, "%a"),
    ("group without section", "graph(%x : Tensor):\n  %y : Tensor = prim::FusionGroup_0(%x)\n  return (%y)\n",
     "no 'with prim::FusionGroup_0", 2, "prim::"),
    ("unreferenced section", "graph(%x : Tensor):\n  return (%x)\nwith prim::FusionGroup_0 = graph(%a : Tensor):\n  return (%a)\n",
     "no node refers", 3, "prim::"),
    ("unterminated string", GOOD.replace("[value=1]", '[value="abc]'), "unterminated string", 2, "\"abc"),
    ("numeric name too long", GOOD.replace("%one", "%1234567890123456789012"), "too large", 2, "%1234"),
    ("text after graph", GOOD + "garbage\n", "unexpected text", 5, "garbage"),
]


@pytest.mark.parametrize("name, text, fragment, line, anchor", BAD, ids=[b[0] for b in BAD])
def test_malformed_text_raises_parse_error_with_location(name, text, fragment, line, anchor):
    with pytest.raises(IRParseError) as info:
        parse_ir(text)
    err = info.value
    assert isinstance(err, FusejitError)
    assert fragment in str(err)
    if anchor is not None:
        line_text = (text.splitlines() + [""])[line - 1]
        column = line_text.index(anchor) + 1
        assert (err.line, err.column) == (line, column), str(err)
        assert f"line {line}, column {column}" in str(err)
        assert str(err).rstrip().endswith("^")


def test_pathological_nesting_is_an_error_not_a_recursion_error():
    depth = 5000
    body = "graph(%c : bool):\n"
    for level in range(depth):
        body += "  " * (level + 1) + f"%r{level} : int = prim::If(%c)\n" + "  " * (level + 2) + "block0():\n"
    with pytest.raises(IRParseError, match="nesting deeper"):
        parse_ir(body)
    nested_type = "graph(%x : " + "(" * 5000 + "int" + ")" * 5000 + "):\n  return (%x)\n"
    with pytest.raises(IRParseError, match="nesting deeper"):
        parse_ir(nested_type)


def test_value_names_are_data():
    text = """\
graph(%__import__ : Tensor,
      %os.system : Tensor):
  %__class__ : Tensor = aten::add(%__import__, %os.system, %__import__)
  return (%__class__)
"""
    g = parse_ir(text)
    lint(g)
    assert str(g) == text
    assert [v.debug_name for v in g.inputs] == ["__import__", "os.system"]


def test_strings_are_data():
    text = 'graph():\n  %s : str = prim::Constant[value="__import__(\\"os\\").system(\\"x\\")"]()\n  return (%s)\n'
    g = parse_ir(text)
    assert g.outputs[0].node.s("value") == '__import__("os").system("x")'
    assert str(g) == text


def test_non_text_input_is_rejected_cleanly():
    with pytest.raises(IRParseError):
        parse_ir(b"\xff\xfe\x00garbage")
    with pytest.raises(IRParseError):
        parse_ir(None)  # type: ignore[arg-type]
