"""The scanner under ``parse_ir``: position, look-ahead, errors with line and column.

``Scanner`` reads IR text one token at a time (``at``, ``accept``, ``expect``, ``match``) and
skips spaces and ``#`` comments between tokens; ``error`` builds the ``IRParseError`` that shows
the offending line under a caret; ``nested`` bounds how deep the parser may recurse.
"""

from __future__ import annotations

import re

from ..errors import IRParseError
from .limits import INT64_MAX, INT64_MIN, MAX_TEXT_DEPTH

_WS = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_SPACE_START = frozenset(" \t\r\n#")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
INT = re.compile(r"-?[0-9]+(?![0-9.eE])")


class _Depth:
    """``with parser.nested():`` one level deeper, refused beyond ``MAX_TEXT_DEPTH``."""

    __slots__ = ("parser",)

    def __init__(self, parser: Scanner):
        self.parser = parser

    def __enter__(self) -> None:
        self.parser.depth += 1
        if self.parser.depth > MAX_TEXT_DEPTH:
            raise self.parser.error(f"nesting deeper than {MAX_TEXT_DEPTH} levels")

    def __exit__(self, *exc) -> None:
        self.parser.depth -= 1


class Scanner:
    """Position in ``text`` and the primitives every parsing method uses."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0
        # Line counting resumes from the last position asked about (nodes come in text order),
        # so numbering every node's line stays linear in the text.
        self.counted = (0, 1)

    def error(self, message: str, pos: int | None = None) -> IRParseError:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return IRParseError(message, self.text, line, column)

    def line_of(self, pos: int) -> int:
        last_pos, last_line = self.counted
        if pos < last_pos:
            last_pos, last_line = 0, 1
        line = last_line + self.text.count("\n", last_pos, pos)
        self.counted = (pos, line)
        return line

    def skip(self) -> None:
        # Most calls find no space or comment: test one character before running the regex.
        if self.text[self.pos:self.pos + 1] in _SPACE_START:
            self.pos = _WS.match(self.text, self.pos).end()

    def at(self, literal: str) -> bool:
        text, pos = self.text, self.pos
        if text[pos:pos + 1] in _SPACE_START:  # skip(), inlined: the parser's hottest call
            pos = self.pos = _WS.match(text, pos).end()
        return text.startswith(literal, pos)

    def accept(self, literal: str) -> bool:
        text, pos = self.text, self.pos
        if text[pos:pos + 1] in _SPACE_START:
            pos = self.pos = _WS.match(text, pos).end()
        if text.startswith(literal, pos):
            self.pos = pos + len(literal)
            return True
        return False

    def expect(self, literal: str, what: str | None = None) -> None:
        if not self.accept(literal):
            raise self.error(f"expected {what or repr(literal)}, found {self.describe()}")

    def describe(self) -> str:
        self.skip()
        if self.pos >= len(self.text):
            return "end of text"
        snippet = self.text[self.pos:self.pos + 12].split("\n", 1)[0]
        return repr(snippet)

    def match(self, pattern: re.Pattern) -> re.Match | None:
        self.skip()
        found = pattern.match(self.text, self.pos)
        if found:
            self.pos = found.end()
        return found

    def ident(self, what: str = "a name") -> str:
        found = self.match(_IDENT)
        if not found:
            raise self.error(f"expected {what}, found {self.describe()}")
        return found.group(0)

    def nested(self) -> _Depth:
        return _Depth(self)

    def parse_int_list(self) -> list[int]:
        self.expect("[")
        items: list[int] = []
        if self.accept("]"):
            return items
        while True:
            self.skip()
            pos = self.pos
            found = self.match(INT)
            if not found:
                raise self.error(f"expected an integer, found {self.describe()}")
            items.append(self.int64(found.group(0), pos))
            if self.accept("]"):
                return items
            self.expect(",", "',' or ']'")

    def int64(self, text: str, pos: int) -> int:
        value = int(text)
        if not INT64_MIN <= value <= INT64_MAX:
            raise self.error(f"integer {text} does not fit in 64 bits", pos)
        return value
