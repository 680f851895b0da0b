"""fusejit: TorchScript's graph IR, legacy graph fuser and register interpreter, on Numba.

::

    import fusejit
    graph = fusejit.parse_ir(text)          # PyTorch's printed IR, byte for byte
    fusejit.fuse_graph(graph)               # PyTorch's legacy graph fuser
    fn = fusejit.compile(graph)             # lowered to Code and run by the interpreter
    outputs = fn(*arrays)

Runtime names are imported on first use, so ``import fusejit`` does not start Numba.
"""

from __future__ import annotations

import importlib
import os

# Numba runs parallel kernels on GNU OpenMP (libgomp) threads, which spin for 300000 rounds
# after each kernel before they sleep. On a 2-core machine that spinning takes the cores from
# what runs next, OpenBLAS's threads or NumPy: a parallel kernel followed by a product took
# 8.0 ms a call, against 1.7-2.5 ms with this spin (an MLP layer pair, 512 x 256 float32;
# pairwise distances 8.0 -> 3.1-5.3 ms), back-to-back kernels the same within noise. Set
# before Numba loads libgomp, unless the user chose a wait policy or spin count.
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from . import oplib  # noqa: F401,E402  (fills the operator registry the IR checks nodes against)
from .errors import (
    FusejitError,
    InterpreterError,
    IRError,
    IRParseError,
    JITException,
    SchemaError,
    ScriptError,
)
from .ir import Block, Graph, Node, Use, Value, lint, parse_ir

__version__ = "0.1.0"

# public name -> module that defines it, imported lazily
_LAZY = {
    "compile": "fusejit.runtime.executor",
    "CompiledFunction": "fusejit.runtime.executor",
    "Code": "fusejit.runtime.code",
    "Opcode": "fusejit.runtime.code",
    "InterpreterState": "fusejit.runtime.reference",
    "Future": "fusejit.runtime.futures",
    "set_fork_pool_size": "fusejit.runtime.futures",
    "create_python_op": "fusejit.runtime.python_op",
    "jit": "fusejit.frontend",
    "script": "fusejit.frontend",
    "trace": "fusejit.frontend",
    "TracerWarning": "fusejit.frontend.trace",
    "kernel_source": "fusejit.runtime.executor",
    "FusedKernel": "fusejit.runtime.fusion",
    "set_num_threads": "fusejit.runtime.fusion",
    "fuse_graph": "fusejit.passes",
    "custom_fuse_graph": "fusejit.passes",
    "show": "fusejit.display",
    "grad": "fusejit.autodiff.api",
    "value_and_grad": "fusejit.autodiff.api",
    "vjp": "fusejit.autodiff.api",
    "differentiate": "fusejit.autodiff",
    "StagedCode": "fusejit.autodiff.staged",
    "python_op": "fusejit.autodiff.python_op",
}

__all__ = [
    "Block", "FusejitError", "Graph", "IRError", "IRParseError", "InterpreterError",
    "JITException", "Node", "SchemaError", "ScriptError", "Use", "Value", "__version__", "lint",
    "parse_ir", *sorted(_LAZY),
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fusejit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
