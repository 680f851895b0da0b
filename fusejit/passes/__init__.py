"""Graph passes: each a function ``name(graph) -> None`` (or ``-> bool`` "changed") in its own
module. Names are PyTorch's, snake_cased. Pipelines are plain lists of passes.

Modules are imported on first use, so ``import fusejit`` stays cheap.
"""

from __future__ import annotations

import importlib

# public name -> module that defines it
_EXPORTS = {
    # fuser and the passes it relies on (graph_fuser.cpp)
    "eliminate_dead_code": "dead_code_elimination",
    "eliminate_common_subexpression": "common_subexpression_elimination",
    "constant_pooling": "constant_pooling",
    "constant_propagation": "constant_propagation",
    "canonicalize_graph_fuser_ops": "canonicalize_graph_fuser_ops",
    "AliasDb": "alias_analysis",
    "fuse_graph": "graph_fuser",
    "custom_fuse_graph": "graph_fuser",
    "peephole_optimize_shape_expressions": "graph_fuser",
    # interpreter preprocessing (interpreter.cpp)
    "desugar_trip_counts": "desugar_trip_counts",
    "flatten_io": "flatten_io",
    "drop_unused": "drop_unused",
    "find_last_uses": "find_last_uses",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fusejit.passes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
