"""Graph passes: each a function ``name(graph) -> None`` (or ``-> bool`` "changed") in its own
module. Names are PyTorch's, snake_cased.

Several modules share their function's name (``constant_pooling.constant_pooling``); importing the
functions here, after their modules, makes ``fusejit.passes.constant_pooling`` the function.
"""

from __future__ import annotations

from .accumulations import sum_fresh_accumulations
from .alias_analysis import AliasDb
from .canonicalize_graph_fuser_ops import canonicalize_graph_fuser_ops
from .carried_arrays import functionalize_carried_arrays
from .common_subexpression_elimination import eliminate_common_subexpression
from .constant_pooling import constant_pooling
from .constant_propagation import constant_propagation
from .dead_code_elimination import eliminate_dead_code
from .desugar_trip_counts import desugar_trip_counts
from .drop_unused import drop_unused
from .find_last_uses import find_last_uses
from .flatten_io import flatten_io
from .fresh_stores import broadcast_read_fills, functionalize_fresh_stores
from .fresh_updates import functionalize_fresh_updates
from .graph_fuser import (
    custom_fuse_graph,
    fuse_backward_graph,
    fuse_graph,
    peephole_optimize_shape_expressions,
)
from .inplace_fusion import fuse_inplace_updates
from .licm import loop_invariant_code_motion
from .lone_maps import fuse_lone_maps
from .loop_unrolling import unroll_constant_loops
from .maps_over_cat import distribute_maps_over_cat
from .more_maps import fuse_more_maps
from .reduction_fusion import fuse_row_reductions
from .reused_temporaries import reuse_dead_temporaries
from .rolls_as_views import rolls_as_views
from .shape_analysis import argument_type, propagate_input_shapes
from .short_products import expand_short_products
from .sibling_maps import fuse_sibling_maps
from .sorted_values import sort_values_only
from .view_inputs import move_views_into_groups

__all__ = [
    "AliasDb", "BACKWARD_FUSION_PIPELINE", "FUSION_PIPELINE", "argument_type",
    "broadcast_read_fills",
    "canonicalize_graph_fuser_ops", "constant_pooling", "constant_propagation",
    "custom_fuse_graph", "desugar_trip_counts", "distribute_maps_over_cat", "drop_unused",
    "eliminate_common_subexpression",
    "eliminate_dead_code", "expand_short_products", "find_last_uses", "flatten_io",
    "functionalize_carried_arrays",
    "functionalize_fresh_stores",
    "functionalize_fresh_updates",
    "fuse_backward_graph", "fuse_graph",
    "fuse_inplace_updates", "fuse_lone_maps", "fuse_more_maps", "fuse_sibling_maps",
    "move_views_into_groups",
    "fuse_row_reductions", "loop_invariant_code_motion",
    "peephole_optimize_shape_expressions", "propagate_input_shapes", "reuse_dead_temporaries",
    "rolls_as_views", "sort_values_only", "sum_fresh_accumulations", "unroll_constant_loops",
]

# What the executor runs on a graph after specialising its types to the inputs (PyTorch's
# legacy executor, optimised path), before lowering it to Code. As PyTorch's runOptimization,
# common subexpressions go before the fuser: otherwise a computation written twice
# (``np.log1p(np.exp(-np.abs(z)))`` in two expressions) lands in two groups, and a pass that
# later joins them computes it twice. Loop-invariant code motion is fusejit's own step, kept
# out of fuse_graph (whose result is checked against PyTorch's).
FUSION_PIPELINE = [canonicalize_graph_fuser_ops, eliminate_dead_code,
                   eliminate_common_subexpression, loop_invariant_code_motion, fuse_graph]
# The same for differentiated graphs: their _grad_sum_to_size nodes join groups (the seed's rule;
# autodiff.fused_sums sums a group's outputs after its kernel).
BACKWARD_FUSION_PIPELINE = [canonicalize_graph_fuser_ops, eliminate_dead_code, fuse_backward_graph]
