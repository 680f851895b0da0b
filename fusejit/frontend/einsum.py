"""``np.einsum`` lowered to ops with derivatives, as PyTorch's own ``einsum`` is (permutes, a
batched matrix product, sums), so its gradient needs no rule of its own::

    np.einsum('bij,bjk->bik', x, y)    %z = aten::matmul(%x, %y)
    np.einsum('ij,ij->', a, b)         %z = aten::sum(aten::mul(%a, %b), [0, 1])
    np.einsum('ii->', a)               %z = aten::sum(aten::diagonal(%a, 0, 0, 1), [0])
    np.einsum('i,j->ij', u, v)         %z = aten::mul(unsqueeze(%u, 1), unsqueeze(%v, 0))
    np.einsum('ji', a)                 %z = aten::permute(%a, [1, 0])  (implicit output: sorted)

Each operand first loses its repeated letters (``aten::diagonal``) and the letters no other
operand and not the output has (a sum); then operands are combined left to right. Two operands
sharing one summed letter, each with at most one letter of its own, are a ``matmul`` over their
common (batch) letters; any other pair is a broadcast product summed over the shared letters
no later operand needs. Sizes follow NumPy (a size-1 dimension broadcasts). Ellipses ('...')
are refused, naming the subscripts.
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from .builder import IRBuilder, Item, describe, is_tensor
from .lowering import binary
from .numpy_dtypes import conform

Term = tuple[Value, str]   # an array and the letter of each of its dimensions


def einsum(b: IRBuilder, subscripts: Item, operands: tuple) -> Value:
    text = b.static(subscripts)
    if not isinstance(text, str):
        raise b.error(f"np.einsum: the subscripts must be a constant string, got "
                      f"{describe(subscripts)}")
    inputs, output = _parse(b, text, len(operands))
    if not all(is_tensor(x) for x in operands):
        raise b.error(f"np.einsum({text!r}): every operand must be an array")
    arrays = conform(b, lambda *v: np.result_type(*v), list(operands), "np.einsum")
    terms: list[Term] = []
    for x, letters in zip(arrays, inputs):
        rank = x.type.rank
        if rank is None or rank != len(letters):
            raise b.error(f"np.einsum({text!r}): operand {len(terms)} has "
                          f"{'unknown rank' if rank is None else f'{rank} dimensions'}, its "
                          f"subscripts {letters!r} name {len(letters)}")
        terms.append(_diagonals(b, x, letters))
    for k in range(len(terms)):
        later = set(output).union(*(t[1] for j, t in enumerate(terms) if j != k))
        terms[k] = _sum_out(b, terms[k], later)
    acc = terms[0]
    for k in range(1, len(terms)):
        keep = set(output).union(*(t[1] for t in terms[k + 1:]))
        acc = _combine(b, acc, terms[k], keep)
    acc = _sum_out(b, acc, set(output))
    return _permute(b, acc, output)


def _parse(b: IRBuilder, text: str, count: int) -> tuple[list[str], str]:
    spec = text.replace(" ", "")
    what = f"np.einsum({text!r})"
    if "." in spec:
        raise b.error(f"{what}: ellipsis ('...') subscripts are not supported; name every axis")
    lhs, arrow, output = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        raise b.error(f"{what}: {len(inputs)} operand subscripts for {count} operands")
    letters = "".join(inputs)
    if not all(c.isalpha() for c in letters + output):
        raise b.error(f"{what}: subscripts must be letters, with ',' between operands and "
                      f"'->' before the output")
    if not arrow:   # implicit output: the letters used once, in alphabetical order
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if len(set(output)) != len(output) or not set(output) <= set(letters):
        raise b.error(f"{what}: the output subscripts {output!r} must be distinct letters of "
                      f"the operands")
    return inputs, output


def _diagonals(b: IRBuilder, x: Value, letters: str) -> Term:
    """``x`` with each repeated letter reduced to its diagonal (``'ii' -> 'i'``)."""
    while True:
        twice = next((c for c in letters if letters.count(c) > 1), None)
        if twice is None:
            return x, letters
        first = letters.index(twice)
        second = letters.index(twice, first + 1)
        x = b.emit("aten::diagonal", [x, 0, first, second], "np.einsum")
        letters = letters[:first] + letters[first + 1:second] + letters[second + 1:] + twice


def _sum_out(b: IRBuilder, term: Term, keep: set[str]) -> Term:
    x, letters = term
    dims = [d for d, c in enumerate(letters) if c not in keep]
    if not dims:
        return term
    summed = b.emit(aten.sum, [x, dims, False, None], "np.einsum")
    return summed, "".join(c for c in letters if c in keep)


def _permute(b: IRBuilder, term: Term, order: str) -> Value:
    x, letters = term
    if letters == order:
        return x
    return b.emit("aten::permute", [x, [letters.index(c) for c in order]], "np.einsum")


def _combine(b: IRBuilder, left: Term, right: Term, keep: set[str]) -> Term:
    (x, la), (y, lb) = left, right
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    mine = [c for c in la if c not in lb]
    theirs = [c for c in lb if c not in la]
    if len(summed) == 1 and len(mine) <= 1 and len(theirs) <= 1 and (mine or theirs):
        # (batch, m, k) @ (batch, k, n): a missing m or n is a dimension of 1, then dropped
        xm = _permute(b, (x, la), "".join(batch + mine + summed))
        ym = _permute(b, (y, lb), "".join(batch + summed + theirs))
        if not mine:
            xm = b.emit(aten.unsqueeze, [xm, -2], "np.einsum")
        if not theirs:
            ym = b.emit(aten.unsqueeze, [ym, -1], "np.einsum")
        z = binary(b, "matmul", xm, ym)
        if not mine:
            z = b.emit(aten.select, [z, -2, 0], "np.einsum")
        if not theirs:
            z = b.emit(aten.select, [z, -1, 0], "np.einsum")
        return z, "".join(batch + mine + theirs)
    order = "".join(batch + mine + theirs + summed)
    product = binary(b, "mul", _spread(b, x, la, order), _spread(b, y, lb, order))
    return _sum_out(b, (product, order), set(batch + mine + theirs))


def _spread(b: IRBuilder, x: Value, letters: str, order: str) -> Value:
    """``x`` with its dimensions in ``order``'s order and a dimension of 1 for each letter of
    ``order`` it lacks (so it broadcasts against the other operand)."""
    x = _permute(b, (x, letters), "".join(c for c in order if c in letters))
    for d, c in enumerate(order):
        if c not in letters:
            x = b.emit(aten.unsqueeze, [x, d], "np.einsum")
    return x


__all__ = ["einsum"]
