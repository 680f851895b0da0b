"""Attribute values in IR text: numbers, strings, lists, tuples and ATen-printed tensors.

::

    prim::Constant[value=0.5]()                                    f
    prim::Constant[value="trunc"]()                                s (C escapes, octal bytes)
    prim::Constant[value=[2, 12]]()                                is
    prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()           t (as ATen prints tensors)
    prim::Constant[value={0.5}]()                                  t (a one-element tensor)

Numbers are checked as they are read: ints must fit in 64 bits, floats may not overflow to
``inf`` unless written ``inf``, and a tensor shows only numbers ATen prints (not Python's
``1_0``), as many as its shape says.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .graph import ElidedTensor, Node
from .limits import MAX_RANK
from .scanner import INT, Scanner
from .types import ScalarType, TensorType

FLOAT = re.compile(r"-?(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|\.[0-9]+"
                   r"(?:[eE][-+]?[0-9]+)?|inf|nan)(?![A-Za-z0-9_])")
_TENSOR_NUMBER = re.compile(r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?|inf|nan)")
_TENSOR_TAIL = re.compile(r"\[ (?:CPU|CUDA)?([A-Za-z0-9]+)Type\{([0-9,]*)\} \]")
SCALAR_NAMES = {st.name: st for st in ScalarType}
_ESCAPES = {"\\": 0x5C, "'": 0x27, '"': 0x22, "a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9,
            "v": 11, "?": 0x3F}


class AttributeParser(Scanner):
    """Reads a node's ``[name=value, ...]`` attributes."""

    def parse_attributes(self, node: Node) -> None:
        self.expect("[")
        while True:
            self.skip()
            pos = self.pos
            name = self.ident("an attribute name")
            if node.has_attribute(name):
                raise self.error(f"attribute {name!r} given twice", pos)
            self.expect("=", f"'=' after attribute {name}")
            value_start = self.pos
            kind, value = self.parse_attribute_value()
            node.set_attr(name, kind, value)
            if kind == "t":
                node._attr_text[name] = self.text[value_start:self.pos]
            if self.accept("]"):
                return
            self.expect(",", "',' or ']' between attributes")

    def parse_attribute_value(self) -> tuple[str, object]:
        with self.nested():
            if self.text.startswith("<Tensor>", self.pos):
                self.pos += len("<Tensor>")
                return "t", ElidedTensor(TensorType())
            tail = _TENSOR_TAIL.search(self.text, self.pos, self.pos + 4000)
            if tail and self.is_tensor_text(tail):
                return "t", self.parse_tensor_text(tail)
            self.skip()
            pos = self.pos
            if self.text.startswith("{", pos):
                return "t", self.parse_braced_scalar()
            if self.accept("["):
                items = []
                if not self.accept("]"):
                    while True:
                        items.append(self.parse_attribute_value())
                        if self.accept("]"):
                            break
                        self.expect(",", "',' or ']' in a list attribute")
                kinds = {k for k, _ in items}
                values = [v for _, v in items]
                if not items or kinds == {"i"}:
                    return "is", values
                if kinds <= {"i", "f"}:
                    return "fs", [float(v) for v in values]
                if kinds == {"s"}:
                    return "ss", values
                if kinds == {"t"}:
                    return "ts", values
                return "ival", values
            if self.accept("("):
                items = []
                while not self.accept(")"):
                    items.append(self.parse_attribute_value()[1])
                    if not self.accept(","):
                        self.expect(")", "',' or ')' in a tuple attribute")
                        break
                return "ival", tuple(items)
            if self.text.startswith('"', pos):
                return "s", self.parse_string()
            if found := self.match(FLOAT):
                return "f", self.float_value(found.group(0), pos)
            if found := self.match(INT):
                return "i", self.int64(found.group(0), pos)
            if found := self.match(re.compile(r"True|False")):
                return "ival", found.group(0) == "True"
            raise self.error(f"expected an attribute value, found {self.describe()}")

    def float_value(self, text: str, pos: int) -> float:
        value = float(text)
        if math.isinf(value) and "inf" not in text:
            raise self.error(f"float constant {text} is out of range", pos)
        return value

    def is_tensor_text(self, tail: re.Match) -> bool:
        body = self.text[self.pos:tail.start()]
        return "\n" not in body and "]" not in body and "," not in body and "=" not in body

    def parse_tensor_text(self, tail: re.Match) -> np.ndarray:
        body = self.text[self.pos:tail.start()]
        type_name, dims_text = tail.group(1), tail.group(2)
        if type_name not in SCALAR_NAMES:
            raise self.error(f"unknown tensor element type {type_name!r}")
        dtype = SCALAR_NAMES[type_name].dtype
        dims = [int(d) for d in dims_text.split(",") if d]
        if len(dims) > MAX_RANK:
            raise self.error(f"tensor constant of rank {len(dims)}; at most {MAX_RANK} dims")
        scale = 1.0
        scaled = re.match(r"\s*(\S+) \*(?=\s)", body)
        if scaled:
            scale = self.tensor_number(scaled.group(1))
            body = body[scaled.end():]
        blocks = re.split(r"Columns [0-9]+ to [0-9]+", body)
        numbers = [[self.tensor_number(t) * scale for t in b.split()] for b in blocks]
        count = math.prod(dims)
        if len(blocks) > 1:
            rows = count // dims[-1] if dims and dims[-1] else 0
            try:
                pieces = [np.array(b, dtype=np.float64).reshape(rows, -1) for b in numbers if b]
                flat = np.concatenate(pieces, axis=1).ravel() if pieces else np.zeros(0)
            except ValueError:
                raise self.error(f"tensor constant's column blocks do not fit shape {dims}") \
                    from None
        else:
            flat = np.array(numbers[0], dtype=np.float64)
        if flat.size != count:
            raise self.error(f"tensor constant shows {flat.size} values for shape {dims}")
        self.pos = tail.end()
        return flat.astype(dtype).reshape(dims)

    def tensor_number(self, token: str) -> float:
        # ATen prints plain decimals, exponents, inf and nan; Python's float() also takes
        # "1_0", "infinity" and "1e999" (inf), which no printed tensor holds.
        if not _TENSOR_NUMBER.fullmatch(token):
            raise self.error(f"bad number {token[:40]!r} in a tensor constant")
        value = float(token)
        if math.isinf(value) and "inf" not in token:
            raise self.error(f"number {token[:40]} in a tensor constant is out of range")
        return value

    def parse_braced_scalar(self) -> np.ndarray:
        self.expect("{")
        self.skip()
        start = self.pos
        found = self.match(FLOAT) or self.match(INT)
        if not found:
            raise self.error(f"expected a number inside '{{...}}', found {self.describe()}")
        self.expect("}")
        text = found.group(0)
        if any(c in text for c in ".eEin"):
            return np.array(self.float_value(text, start), dtype=np.float32)
        return np.array(self.int64(text, start), dtype=np.int64)

    def parse_string(self) -> str:
        start = self.pos
        self.pos += 1
        out = bytearray()
        text = self.text
        while True:
            if self.pos >= len(text) or text[self.pos] == "\n":
                raise self.error("unterminated string", start)
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                return out.decode("utf-8", "surrogateescape")
            if ch == "\\":
                nxt = text[self.pos + 1:self.pos + 2]
                octal = re.match(r"[0-7]{1,3}", text[self.pos + 1:self.pos + 4])
                if octal:
                    code = int(octal.group(0), 8)
                    if code > 255:
                        raise self.error("octal escape out of range")
                    out.append(code)
                    self.pos += 1 + len(octal.group(0))
                    continue
                if nxt not in _ESCAPES:
                    raise self.error(f"unknown escape \\{nxt}")
                out.append(_ESCAPES[nxt])
                self.pos += 2
                continue
            out.extend(ch.encode("utf-8", "surrogateescape"))
            self.pos += 1
