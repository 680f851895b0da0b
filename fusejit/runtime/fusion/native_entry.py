"""The native entry points of a CPU kernel module: the fused kernel called from the interpreter's
native loop on its registers, with no Python in between.

An entry takes the register file and the slot's row (``runtime/native/kernel_entry.py``),
checks each group input register against the dtype and rank the kernel was generated for and
the sizes and strides its bound plan was made for, allocates the outputs, runs the kernel and
writes the outputs to their registers. It returns False, having written nothing, when any check
fails or the kernel sets its status flag; the host then runs the group through ``FusedKernel``,
which raises the proper error or computes the answer another way::

    @njit(cache=True, nogil=True, error_model="numpy")
    def native_serial(tags, ints, floats, meta, b8, i64, f32, f64, ilists, int_data,
                      in_start, out_start, row):
        r0 = int_data[in_start + 0]
        if not ke.matches(tags, meta, r0, np.int64(2), np.int64(2), row, np.int64(4)):
            return False                     # (float32, rank 2, its key at row[4])
        ...
        kernel_serial(row[12:25], x0, x1, o0, status)

Only tensor dtypes the native register file holds (bool, int64, float32, float64) get entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..native.kernel_entry import HEADER, NUMEL, OUTPUT_WIDTH
from ..native.registers import BOOL, DTYPE_CODE, FLOAT, INT, OFFSET
from .loops import STRIP

if TYPE_CHECKING:
    from .codegen import ArgSpec
    from .layout import GroupLayout

# dtype -> (code in the register meta, name of its typed List in the entry's arguments).
_BANKS = ("b8", "i64", "f32", "f64")
_NATIVE = {dtype: (code, _BANKS[code]) for dtype, code in DTYPE_CODE.items()}
# scalar dtype -> (register tag, how to read its payload): registers.py's INT, FLOAT, BOOL.
_SCALAR = {np.dtype(np.int64): (INT, "ints[{r}]"), np.dtype(np.float64): (FLOAT, "floats[{r}]"),
           np.dtype(np.bool_): (BOOL, "ints[{r}] != 0")}


def _n(value: int) -> str:
    """An int argument of a helper call in an entry, typed int64 rather than as a literal: Numba
    compiles a helper called with a literal once per value (``matches`` for every key offset,
    ``put_output`` for every output offset: about 0.25 s each, over and over), but once for
    int64."""
    return f"np.int64({int(value)})"


class RowLayout:
    """Where a variant's row keeps each tensor input's key, the plan meta and the outputs."""

    __slots__ = ("key_at", "meta_at", "meta_len", "out_at", "width")

    def __init__(self, layout: GroupLayout, specs: list[ArgSpec], rank: int):
        tensor_ranks = [0] * len(layout.tensor_index)
        for pos, number in layout.tensor_index.items():
            tensor_ranks[number] = specs[pos].rank
        self.key_at, at = [], HEADER
        for r in tensor_ranks:
            self.key_at.append(at)
            at += 2 * r
        pieces = sum(len(out.pieces) for out in layout.outputs)
        n_operands = len(layout.operands) + pieces
        self.meta_at = at
        self.meta_len = 4 + (rank - 1) + n_operands * (1 + rank)
        self.out_at = at + self.meta_len
        self.width = self.out_at + len(layout.outputs) * OUTPUT_WIDTH


def native_capable(specs: list[ArgSpec], out_dtypes: list[np.dtype]) -> bool:
    return all(s.dtype in (_NATIVE if s.kind == "tensor" else _SCALAR) for s in specs) \
        and all(np.dtype(d) in _NATIVE for d in out_dtypes)


def entry_text(layout: GroupLayout, specs: list[ArgSpec], out_dtypes: list[np.dtype],
               rank: int, name: str, kernel: str, deferred: bool = False) -> list[str]:
    """The lines of entry ``name`` calling ``kernel`` (``rank`` is the kernel's rank). A
    ``deferred`` kernel (the parallel one of a kernel with fix-ups, ``loops.DEFER``) gets a
    status mark per strip, and the serial kernel computes the marked strips again."""
    rows = RowLayout(layout, specs, rank)
    lines = ['@njit(cache=True, nogil=True, error_model="numpy")',
             f"def {name}(tags, ints, floats, meta, b8, i64, f32, f64, ilists, int_data, "
             "in_start, out_start, row):"]
    reads: list[str] = []
    for pos, spec in enumerate(specs):
        r = f"r{pos}"
        lines.append(f"    {r} = int_data[in_start + {pos}]")
        if spec.kind == "tensor":
            number = layout.tensor_index[pos]
            code, bank = _NATIVE[spec.dtype]
            lines.append(f"    if not ke.matches(tags, meta, {r}, {_n(code)}, {_n(spec.rank)}, "
                         f"row, {_n(rows.key_at[number])}):")
            reads.append(f"    x{number} = {bank}[{r}][meta[{r}, {OFFSET}]:]")
        else:
            tag, payload = _SCALAR[spec.dtype]
            lines.append(f"    if tags[{r}] != {tag}:")
            reads.append(f"    s{layout.scalar_index[pos]} = {payload.format(r=r)}")
        lines.append("        return False")
    lines += reads
    outs = []
    for j, dtype in enumerate(out_dtypes):
        lines.append(f"    o{j} = np.empty(ke.output_numel(row, "
                     f"{_n(rows.out_at + j * OUTPUT_WIDTH)}), np.{np.dtype(dtype).name})")
        outs.append(f"o{j}")
    args = ([f"row[{rows.meta_at}:{rows.meta_at + rows.meta_len}]"]
            + [f"x{i}" for i in range(len(layout.tensor_index))]
            + [f"s{i}" for i in range(len(layout.scalar_index))] + outs + ["status"])
    # (loops.marks_size: a mark per strip of each of meta[0] tiles of meta[2] elements)
    size = (f"1 + row[{rows.meta_at}] * ((row[{rows.meta_at + 2}] + {STRIP - 1}) // {STRIP})"
            if deferred else "1")
    lines += [f"    if row[{NUMEL}] != 0:",
              f"        status = np.zeros({size}, np.int64)",
              f"        {kernel}({', '.join(args)})"]
    if deferred:
        lines += ["        if status[1:].any():",
                  f"            kernel_serial({', '.join(args)})"]
    lines += ["        if status[0] != 0:",
              "            return False"]
    for j, dtype in enumerate(out_dtypes):
        code, bank = _NATIVE[np.dtype(dtype)]
        lines.append(f"    ke.put_output(tags, ints, meta, b8, i64, f32, f64, ilists, {bank}, "
                     f"int_data[out_start + {j}], {_n(code)}, o{j}, row, "
                     f"{_n(rows.out_at + j * OUTPUT_WIDTH)})")
    lines.append("    return True")
    return lines

__all__ = ["RowLayout", "entry_text", "native_capable"]
