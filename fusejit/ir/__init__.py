"""The TorchScript IR: symbols, types, the graph, its text format and its checker."""

from .constants import constant_value
from .graph import Block, ElidedTensor, Graph, Node, SourceRange, Use, Value
from .lint import lint
from .parser import parse_ir
from .symbols import Symbol, aten, attr, prim
from .types import ScalarType, TensorType, Type

__all__ = ["Block", "ElidedTensor", "Graph", "Node", "ScalarType", "SourceRange", "Symbol",
           "TensorType", "Type", "Use", "Value", "aten", "attr", "constant_value", "lint",
           "parse_ir", "prim"]
