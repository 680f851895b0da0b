"""The independent oracle for fused kernels: run the subgraph node by node with the operator
library's NumPy bodies (``fusejit.runtime.ops.make_operation``)."""

from __future__ import annotations

import numpy as np

from fusejit.ir.constants import constant_value
from fusejit.runtime.ops import make_operation


def run_subgraph(graph, *inputs) -> list:
    env = dict(zip(graph.inputs, inputs))
    for node in graph.nodes():
        if node.kind == "prim::Constant":
            env[node.output()] = constant_value(node)
        elif node.kind == "prim::FusedConcat":
            env[node.output()] = np.concatenate([env[v] for v in node.inputs], node.i("dim"))
        else:
            outs = make_operation(node)(*[env[v] for v in node.inputs])
            for value, out in zip(node.outputs, outs):
                env[value] = out
    return [env[v] for v in graph.outputs]
