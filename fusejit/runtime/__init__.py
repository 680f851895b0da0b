"""Running graphs: the operator table, lowering to Code, interpreters, fused kernels."""
