"""Adversarial sizes and indices for the native engine, run against the reference engine.

Each case is a graph and its inputs. ``run_case`` runs it on both engines, each on its own copy
of the inputs, and reports whether they agree: the same outputs, the same inputs afterwards
(in-place ops on views) or the same error (type and message). A memory-safety bug may crash
the process instead, so ``test_native_safety`` runs this module in a subprocess::

    python -m tests.runtime.native_safety_cases view_wraps reshape_wraps ...

prints one JSON line per case: ``{"case": ..., "same": ..., "native": ..., "reference": ...}``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import numpy as np

from fusejit import parse_ir
from fusejit.runtime.code import Code
from fusejit.runtime.interpreter import NativeInterpreter
from fusejit.runtime.reference import InterpreterState

_VIEW_SELECT = """graph(%x : Tensor, %a : int, %b : int, %i : int):
  %zero : int = prim::Constant[value=0]()
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::{op}(%x, %shape)
  %z : Tensor = aten::select(%y, %zero, %i)
  return (%z)
"""
_VIEW_ADD_ = """graph(%x : Tensor, %a : int, %b : int):
  %one : int = prim::Constant[value=1]()
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::view(%x, %shape)
  %z : Tensor = aten::add_(%y, %y, %one)
  return (%z)
"""
_EXPAND = """graph(%x : Tensor, %a : int, %b : int, %i : int):
  %zero : int = prim::Constant[value=0]()
  %false : bool = prim::Constant[value=0]()
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::expand(%x, %shape, %false)
  %z : Tensor = aten::select(%y, %zero, %i)
  return (%z)
"""
_EXPAND_PAIR = """graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %false : bool = prim::Constant[value=0]()
  %rows : int[] = prim::ListConstruct(%n, %one)
  %cols : int[] = prim::ListConstruct(%one, %n)
  %a : Tensor = aten::expand(%x, %rows, %false)
  %b : Tensor = aten::expand(%x, %cols, %false)
  %z : Tensor = aten::{op}(%a, %b{extra})
  return (%z)
"""
_EXPAND_SUM = """graph(%x : Tensor, %a : int, %b : int):
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %shape : int[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::expand(%x, %shape, %false)
  %z : Tensor = aten::{op}(%y{extra})
  return (%z)
"""
_CHUNK = """graph(%x : Tensor):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks={chunks}, dim=0](%x)
  return (%a, %b)
"""
_SELECT = """graph(%x : Tensor, %d : int, %i : int):
  %y : Tensor = aten::select(%x, %d, %i)
  return (%y)
"""
_GETITEM = """graph(%x : Tensor, %i : int):
  %s : int[] = aten::size(%x)
  %n : int = aten::__getitem__(%s, %i)
  return (%n)
"""


def _x() -> np.ndarray:
    return np.arange(12, dtype=np.float32).reshape(3, 4)


def _one() -> np.ndarray:
    return np.ones((1, 1), np.float32)


# name -> (graph text, a function making fresh inputs)
CASES: dict[str, tuple[str, Callable[[], list]]] = {
    # (2**62 + 3) * 4 wraps around int64 to 12, the element count of a 3 x 4 tensor
    "view_wraps": (_VIEW_SELECT.format(op="view"), lambda: [_x(), 2**62 + 3, 4, 2]),
    "reshape_wraps": (_VIEW_SELECT.format(op="reshape"), lambda: [_x(), 2**62 + 3, 4, 2]),
    "view_wraps_negative": (_VIEW_SELECT.format(op="view"), lambda: [_x(), -(2**62) + 3, -4, 0]),
    "view_inferred_huge": (_VIEW_SELECT.format(op="view"), lambda: [_x(), -1, 2**62, 0]),
    "view_negative": (_VIEW_SELECT.format(op="view"), lambda: [_x(), -3, -4, 0]),
    "view_ok": (_VIEW_SELECT.format(op="view"), lambda: [_x(), 6, -1, 5]),
    "view_add_inplace": (_VIEW_ADD_, lambda: [_x(), 2**62 + 3, 4]),
    "expand_wraps": (_EXPAND, lambda: [np.ones((1, 4), np.float32), 2**62, 4, 2**61]),
    "expand_huge_leading": (_EXPAND, lambda: [np.ones(1, np.float32), 2**62 + 1, 1, 2**62]),
    "expand_negative": (_EXPAND, lambda: [np.ones((1, 4), np.float32), -2, 4, 0]),
    "expand_ok": (_EXPAND, lambda: [np.ones((1, 4), np.float32), 5, -1, 4]),
    # two valid views whose broadcast has 2**80 elements
    "add_broadcast_wraps": (_EXPAND_PAIR.format(op="add", extra=", %one"),
                            lambda: [_one(), 2**40]),
    "lt_broadcast_wraps": (_EXPAND_PAIR.format(op="lt", extra=""), lambda: [_one(), 2**40]),
    "mm_result_wraps": (_EXPAND_PAIR.format(op="mm", extra=""), lambda: [_one(), 2**40]),
    # an empty view of 2**60 x 0 bools is fine, but NumPy refuses to sum it (as int64: 2**63
    # bytes by its count); found by the adversarial fuzzer
    "sum_huge_empty_bool": (_EXPAND_SUM.format(op="sum", extra=", %none"),
                            lambda: [np.zeros(0, np.bool_), 2**60, 0]),
    "neg_huge_empty": (_EXPAND_SUM.format(op="neg", extra=""),
                       lambda: [np.zeros(0, np.float32), 2**60, 0]),
    "chunk_huge_chunks": (_CHUNK.format(chunks=2**63 - 1), lambda: [_x()]),
    "chunk_more_pieces": (_CHUNK.format(chunks=3), lambda: [_x()]),
    "select_huge_index": (_SELECT, lambda: [_x(), 0, 2**63 - 1]),
    "select_lowest_index": (_SELECT, lambda: [_x(), 1, -(2**63)]),
    "select_huge_dim": (_SELECT, lambda: [_x(), -(2**63), 0]),
    "getitem_lowest_index": (_GETITEM, lambda: [_x(), -(2**63)]),
    "getitem_huge_index": (_GETITEM, lambda: [_x(), 2**63 - 1]),
}


def _outcome(state_type, text: str, inputs: list) -> dict:
    stack = list(inputs)
    try:
        state_type(Code(parse_ir(text))).run(stack)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return {"error": type(error).__name__, "message": str(error)}
    return {"outputs": [_describe(v) for v in stack], "inputs": [_describe(v) for v in inputs]}


def _describe(value) -> object:
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape),
                "values": value.ravel()[:64].tolist()}
    return repr(value)


def run_case(name: str) -> dict:
    text, make_inputs = CASES[name]
    native = _outcome(NativeInterpreter, text, make_inputs())
    reference = _outcome(InterpreterState, text, make_inputs())
    return {"case": name, "same": native == reference, "native": native,
            "reference": reference}


def main(names: list[str]) -> None:
    for name in names:
        print(json.dumps(run_case(name)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(CASES))
