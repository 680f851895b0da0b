"""``Node.schema`` memoises its lookup: the answer follows the node's input types and the
registry's contents, never a stale match."""

from __future__ import annotations

import fusejit
from fusejit.ir.schema import OperatorRegistry, registry
from fusejit.ir.types import FLOAT, INT


def _mul_node():
    graph = fusejit.parse_ir("""graph(%x : Tensor, %y : Tensor):
  %z : Tensor = aten::mul(%x, %y)
  return (%z)""")
    return graph, next(graph.nodes())


def test_schema_follows_a_changed_input_type() -> None:
    graph, node = _mul_node()
    assert node.schema.text == "aten::mul(Tensor self, Tensor other) -> Tensor"
    node.input(1).set_type(FLOAT)
    assert node.schema.text == "aten::mul(Tensor self, Scalar other) -> Tensor"
    node.input(1).set_type(INT)
    assert node.schema.text == "aten::mul(Tensor self, Scalar other) -> Tensor"
    constant = graph.insert_constant("text")
    node.replace_input(1, constant)
    assert node.schema is None


def test_schema_follows_the_registry() -> None:
    graph = fusejit.parse_ir("""graph(%x : Tensor):
  %z : Tensor = test_ns::twice(%x)
  return (%z)""")
    node = next(graph.nodes())
    assert node.schema is None
    text = "test_ns::twice(Tensor self) -> Tensor"
    version = registry.version
    try:
        registry.register(text)
        assert registry.version > version
        assert node.schema.text == text
    finally:
        registry._by_kind.pop("test_ns::twice", None)
        registry._found.clear()
        registry.version += 1
    assert node.schema is None


def test_a_fresh_registry_finds_what_it_holds() -> None:
    fresh = OperatorRegistry()
    _, node = _mul_node()
    assert fresh.find(node) is None
    fresh.register("aten::mul(Tensor self, Tensor other) -> Tensor")
    assert fresh.find(node).text == "aten::mul(Tensor self, Tensor other) -> Tensor"
