"""Augmented assignment, ``x += v`` and ``x[i] *= v`` (``StatementEmitter``'s mixin): in place
for arrays, as NumPy and TorchScript write them::

    x += 1               aten::add_(%x, %1, %1)        the caller's array is updated
    x[1:] += x[:-1]      aten::add_(slice(%x), aten::clone(slice(%x)))   NumPy reads first
    x[mask] *= 2         x where not mask, x * 2 where it is (masked.store)
    x[m] -= d[m]         the same, with x - d
    x[m] /= v            x[m] = x[m] / v: the selection, updated and put back
    n += 1               a number: rebound

NumPy's casting rule holds: ``x op= v`` is refused where the result's dtype does not cast
"same_kind" to ``x``'s (an int array's ``x /= 2``).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten, prim
from ..ir.types import BOOL
from . import numpy_lowering
from .builder import Item, describe, is_tensor, scalar_type_of
from .lowering import _SYMBOL, NUMPY_BINARY, binary, to_int
from .masked import Masked, mask_among, same_mask, split_mask, unmasked
from .masked import check as masked_check
from .masked import store as masked_store
from .masked import values as masked_values
from .numpy_arrays import is_int_array
from .numpy_dtypes import cast, check_python_ints, dtype_of, numpy_dtype, wide_literal
from .numpy_lowering import rank_of, refuse_reversed_target, viewed


class InPlaceStatements:
    """``stmt_AugAssign`` (for ``StatementEmitter``)."""

    b: Any

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        """``x += y``: in place for arrays (``aten::add_``, as NumPy and TorchScript do)."""
        if isinstance(stmt.target, ast.Subscript):
            base = self.eval_value(stmt.target.value)
            index = self.eval_index(stmt.target.slice)
            self.at(stmt.target)
            if not is_tensor(base):
                raise self.b.error(f"a {describe(base)} does not support item assignment")
            self.keep_read_elements(base)
            if is_tensor(index) and dtype_of(index) == np.dtype(np.bool_):
                return self._masked_update(stmt, base, index)
            at = mask_among(self.b, index)
            if at is not None:      # (x[mask, 1] += v: the mask over the view x[:, 1])
                # (x[:, mask] op= v: the view transposed, its mask first, for numbers only)
                moved = any(isinstance(i, slice) for i in index[:at])
                return self._masked_update(stmt, *split_mask(self.b, base, index, at, True),
                                           numbers_only=moved)
            items = index if isinstance(index, tuple) else (index,)
            if any(is_int_array(self.b, i) or isinstance(i, slice)
                   and numpy_lowering.negative_step(self.b, i) for i in items):
                # (a gathered or flipped copy, not a view: computed, then stored)
                return self._indexed_update(stmt, base, index)
            current = numpy_lowering.index(self.b, base, index)
        elif isinstance(stmt.target, ast.Name):
            current = self.eval_Name(ast.copy_location(ast.Name(stmt.target.id, ast.Load()),
                                                       stmt))
        else:
            raise self.unsupported(stmt.target, "augmented assignment to an attribute")
        operand = self.eval_value(stmt.value)
        self.at(stmt)
        op = _INPLACE.get(type(stmt.op))
        # NumPy's scalars (what x[i] of a 1-d array is) are immutable: s += v rebinds s and
        # never writes through to the array s was read from.
        scalar = (isinstance(stmt.target, ast.Name) and is_tensor(current)
                  and current.type.rank == 0 and current not in self.b.zero_d_arrays)
        if is_tensor(current) and not scalar:
            refuse_reversed_target(self.b, current)
            self.keep_read_elements(current)
            if not is_tensor(operand) and scalar_type_of(operand) is None:
                raise self.b.error(f"cannot add a {describe(operand)} to an array in place")
            if op is None:
                return self._written_back(stmt, current, operand)
            if dtype_of(current) == np.dtype(np.uint64):
                operand = wide_literal(self.b, operand)      # (h *= 0xC2B2AE3D27D4EB4F)
            computed = self._check_inplace_cast(op, current, operand)
            target = dtype_of(current)
            if target is not None and target.kind == "f" and computed is not None and \
                    computed != target and self._an_argument(current):
                # (float32 += np.float64(0.1): NumPy adds in float64 and rounds once;
                # aten's add_ rounded 0.1 to float32 first, an ulp off for ~1% of values.
                # An array the function made keeps the update, which the executor's passes
                # make a value rounded as NumPy's: fresh_updates, carried_arrays.)
                return self._written_back(stmt, current, operand)
            if is_tensor(operand) and operand is not current \
                    and viewed(operand) is viewed(current):
                # x[1:] += x[:-1]: NumPy reads the operand before writing (a compiled loop
                # would read what it has just written)
                operand = self.b.emit("aten::clone", [operand, None], "a copy of the operand")
            # (np.dtype(...) == None holds: the dtype is tested against None with ``is``)
            numeric = dtype_of(current) is not None and dtype_of(current) != np.bool_
            if op == "sub" and is_tensor(operand) and dtype_of(operand) == np.bool_ and \
                    numeric:
                # (x -= mask: NumPy's loop reads the mask as x's dtype, 0 and 1; aten::sub_
                # refuses a bool operand)
                operand = cast(self.b, operand, dtype_of(current), "'-='")
            elif op == "sub" and scalar_type_of(operand) in (BOOL, bool) and numeric:
                # (x -= True: the same, as 1)
                operand = to_int(self.b, operand)
            args = [current, operand, 1] if op in ("add", "sub") else [current, operand]
            result = self.b.emit(aten[f"{op}_"], args, f"'{op}='")
            if isinstance(stmt.target, ast.Subscript):
                return  # written through the view
            if current in self.b.zero_d_arrays:
                self.b.zero_d_arrays.add(result)      # (the same 0-d array, updated)
        else:
            from .expressions import _BINOPS

            name = _BINOPS.get(type(stmt.op))
            if name is None:
                raise self.unsupported(stmt, f"the operator {type(stmt.op).__name__}")
            result = binary(self.b, name, current, operand)
        self.assign(stmt.target, result)

    def _an_argument(self, x: Value) -> bool:
        """Is ``x`` an argument's memory (through views and a loop's variables)?"""
        root = numpy_lowering.memory_of(x)
        return root.node.kind == prim.Param and root.node.owning_block is self.b.graph.block

    def _written_back(self, stmt: ast.AugAssign, current: Value, operand: Item) -> None:
        """``x //= v``, ``x %= v``, ``x **= v``, ``x &= v`` ... (ops aten has no in-place
        form of here): computed out of place, which reads the operands first as NumPy
        does, and copied into ``x`` (the caller's array, or the view written through)."""
        from .expressions import _BINOPS

        name = _BINOPS.get(type(stmt.op))
        if name is None or name == "matmul":
            raise self.unsupported(stmt, f"in-place {type(stmt.op).__name__} on an array")
        self._check_inplace_cast(name, current, operand)
        updated = binary(self.b, name, current, operand)
        result = self.b.emit(aten.copy_, [current, updated, False], f"'{_SYMBOL[name]}='")
        if isinstance(stmt.target, ast.Name):
            if current in self.b.zero_d_arrays:
                self.b.zero_d_arrays.add(result)
            self.assign(stmt.target, result)

    def _check_inplace_cast(self, op: str, current: Value, operand: Item) -> np.dtype | None:
        """NumPy writes ``x op= v`` into ``x`` only where its result dtype casts to ``x``'s
        "same_kind" (an int array's ``x /= 2`` and ``x += 1.5`` raise UFuncTypeError); that
        dtype (None: not known)."""
        target = dtype_of(current)
        try:
            result = numpy_dtype(NUMPY_BINARY[op], [current, operand], self.b.numpy_scalars)
        except OverflowError as error:      # (uint8_array += -1)
            raise self.b.error(f"'{_SYMBOL[op]}=': {error} (NumPy 2 refuses a Python int out "
                               f"of the array's range)") from None
        if target is not None and result is not None and not np.can_cast(result, target,
                                                                         "same_kind"):
            symbol = _SYMBOL[op]
            raise self.b.error(f"'{symbol}=': NumPy cannot write the {result} result into "
                               f"the {target} array in place (casting rule 'same_kind'); "
                               f"write x = x {symbol} v for a new array")
        check_python_ints(self.b, [operand], result, f"'{_SYMBOL[op]}='")
        return result

    def _masked_update(self, stmt: ast.AugAssign, base: Value, mask: Value,
                       numbers_only: bool = False) -> None:
        """``x[mask] op= v``: ``x[mask] = x[mask] op v``, as NumPy runs it.

        A number ``v``, or ``y[mask]`` under the same mask with ``y`` of ``x``'s rank for an
        op defined everywhere (``+ - * & | ^``): the op over all of ``x``, kept where the
        mask holds (``store``: no selection made, fused with what computes the mask). Any
        other array (one value per selected element, ``y[other_mask]``, a division that
        could fail outside the mask): the selection made, updated and put back
        (``aten::index_put_``, whose error names the counts where they differ)."""
        from .expressions import _BINOPS

        op = _BINOPS.get(type(stmt.op))
        if op is None or op == "matmul":
            raise self.unsupported(stmt, f"in-place {type(stmt.op).__name__} of a selection")
        # (the sizes first, as Python reads x[mask] before v: a check placed after the update
        # is computed would stand between it and the where keeping it, apart in two kernels)
        masked_check(self.b, base, mask)
        operand = self.eval_value(stmt.value, masked=True)
        self.at(stmt)
        number = scalar_type_of(operand) is not None or (
            is_tensor(operand) and operand.type.rank == 0)
        if not number and is_tensor(operand) and op in _EVERYWHERE and not numbers_only:
            # (computed from selections by the mask, ``x[m] += dt * v[m]``: over all of v)
            spread = unmasked(self.b, operand, mask, rank_of(base))
            operand = operand if spread is None else Masked(spread, mask)
        whole = isinstance(operand, Masked) and op in _EVERYWHERE \
            and same_mask(operand.mask, mask) and rank_of(operand.array) == rank_of(base)
        if numbers_only and not number:
            raise self.b.error("x[:, mask] op= v takes a number v; for arrays write "
                               "x = np.where(mask, x op v, x) with the mask broadcast")
        if number or whole:
            updated = binary(self.b, op, base, operand.array if whole else operand)
        else:
            if isinstance(operand, Masked):
                operand = masked_values(self.b, operand)
            if not (is_tensor(operand) or scalar_type_of(operand) is not None):
                raise self.b.error(f"x[mask] op= v: v must be a number or an array, got a "
                                   f"{describe(operand)}")
            updated = binary(self.b, op, masked_values(self.b, Masked(base, mask)), operand)
        if not np.can_cast(dtype_of(updated), dtype_of(base), "same_kind"):
            raise self.b.error(f"x[mask] op= v: the result ({dtype_of(updated)}) cannot be "
                               f"cast to the array's dtype ({dtype_of(base)}), as in NumPy")
        masked_store(self.b, base, mask, Masked(updated, mask) if number or whole else updated,
                     checked=True)

    def _indexed_update(self, stmt: ast.AugAssign, base: Value, index: Item) -> None:
        """``x[idx] += v`` with an integer-array index (``counts[a[i]] += 1`` too) or a
        negative-step slice (``x[::-1] += v``):
        ``x[idx] = x[idx] + v``, as NumPy runs it (a gathered copy updated, then written back
        with ``index_put_``, the last write winning where indices repeat). Updating the
        gathered copy in place would leave ``x`` as it was."""
        from .expressions import _BINOPS

        current = numpy_lowering.index(self.b, base, index)
        operand = self.eval_value(stmt.value)
        self.at(stmt)
        op = _BINOPS.get(type(stmt.op))
        if op is None:
            raise self.unsupported(stmt, f"the operator {type(stmt.op).__name__}")
        updated = binary(self.b, op, current, operand)
        if not np.can_cast(dtype_of(updated), dtype_of(base), "same_kind"):
            raise self.b.error(f"x[idx] op= v: the result ({dtype_of(updated)}) cannot be "
                               f"cast to the array's dtype ({dtype_of(base)}), as in NumPy")
        numpy_lowering.store(self.b, base, index, updated)


_INPLACE = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}

# The ops ``x[mask] op= y[mask]`` computes over the whole arrays (then keeps where the mask
# holds): defined for every pair of elements, so the ones outside the mask cannot fail.
_EVERYWHERE = frozenset({"add", "sub", "mul", "and", "or", "xor"})
