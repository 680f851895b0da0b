"""``np.einsum`` lowered to ops with derivatives, as PyTorch's own ``einsum`` is (permutes, a
batched matrix product, sums), so its gradient needs no rule of its own::

    np.einsum('bij,bjk->bik', x, y)    %z = aten::matmul(%x, %y)
    np.einsum('ij,ij->', a, b)         %z = aten::sum(aten::mul(%a, %b), [0, 1])
    np.einsum('ii->', a)               %z = aten::sum(aten::diagonal(%a, 0, 0, 1), [0])
    np.einsum('i,j->ij', u, v)         %z = aten::mul(unsqueeze(%u, 1), unsqueeze(%v, 0))
    np.einsum('ji', a)                 %z = aten::permute(%a, [1, 0])  (implicit output: sorted)

Each operand first loses its repeated letters (``aten::diagonal``) and the letters no other
operand and not the output has (a sum); then operands are combined left to right. Two operands
sharing summed letters are a ``matmul`` over their common (batch) letters, each side's own
letters and the summed ones flattened (``_matmul``: ``np.tensordot(a, b, ([2, 3], [1, 0]))``
is one BLAS product, as in NumPy); a pair with no summed letter is a broadcast product (an
outer product). Sizes follow NumPy (a size-1 dimension broadcasts). An ellipsis
('...') stands for letters of their own, one per broadcast dimension (aligned from the right).
"""

from __future__ import annotations

import numpy as np

from ..ir.graph import Value
from ..ir.symbols import aten
from .builder import IRBuilder, Item, describe, is_tensor
from .lowering import binary
from .numpy_dtypes import cast, conform, dtype_of

Term = tuple[Value, str]   # an array and the letter of each of its dimensions


def einsum(b: IRBuilder, subscripts: Item, operands: tuple) -> Value:
    text = b.static(subscripts)
    if not isinstance(text, str):
        raise b.error(f"np.einsum: the subscripts must be a constant string, got "
                      f"{describe(subscripts)}")
    if not all(is_tensor(x) for x in operands):
        raise b.error(f"np.einsum({text!r}): every operand must be an array")
    inputs, output = _parse(b, text, [x.type.rank for x in operands])
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
    # (aten::sum of ints gives int64, NumPy's einsum keeps the operands' dtype: wrapping
    # sums agree modulo 2^bits, so the cast gives NumPy's values too)
    result = _permute(b, acc, output)
    dtype = dtype_of(arrays[0])
    return result if dtype is None else cast(b, result, dtype, "np.einsum")


def _parse(b: IRBuilder, text: str, ranks: list[int | None]) -> tuple[list[str], str]:
    spec = text.replace(" ", "")
    what = f"np.einsum({text!r})"
    lhs, arrow, output = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(ranks):
        raise b.error(f"{what}: {len(inputs)} operand subscripts for {len(ranks)} operands")
    if "." in spec:
        inputs, output = _ellipses(b, what, inputs, output if arrow else None, ranks)
        arrow = "->"
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


def _ellipses(b: IRBuilder, what: str, inputs: list[str], output: str | None,
              ranks: list[int | None]) -> tuple[list[str], str]:
    """``'...'`` replaced by letters the subscripts do not use, one per broadcast dimension,
    aligned from the right as NumPy broadcasts them (``'...ij,jk->...ik'`` on ranks 3 and 2:
    ``'Aij,jk->Aik'``). Without ``'->'`` the broadcast dimensions lead the output."""
    used = set("".join(inputs) + (output or ""))
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    counts = []
    for term, rank in zip(inputs, ranks):
        named = len(term.replace("...", ""))
        if term.count("...") > 1 or term.replace("...", "").count(".") or (
                "..." not in term and "." in term):
            raise b.error(f"{what}: an operand's subscripts may hold one '...'")
        if rank is None:
            raise b.error(f"{what}: '...' needs operands of known rank")
        counts.append(rank - named if "..." in term else 0)
        if counts[-1] < 0:
            raise b.error(f"{what}: operand {len(counts) - 1} has {rank} dimensions, its "
                          f"subscripts {term!r} name more")
    width = max(counts)
    broadcast = "".join(spare[:width])
    inputs = [term.replace("...", broadcast[width - k:]) for term, k in zip(inputs, counts)]
    if output is None:
        letters = "".join(t.replace("...", "") for t in inputs)
        singles = sorted(c for c in set(letters) if letters.count(c) == 1 and c not in broadcast)
        return inputs, broadcast + "".join(singles)
    if output.count("...") > 1 or output.replace("...", "").count("."):
        raise b.error(f"{what}: the output's subscripts may hold one '...'")
    return inputs, output.replace("...", broadcast)


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
    if summed and (mine or theirs):
        return _matmul(b, (x, la), (y, lb), batch, mine, summed, theirs)
    order = "".join(batch + mine + theirs + summed)
    product = binary(b, "mul", _spread(b, x, la, order), _spread(b, y, lb, order))
    return _sum_out(b, (product, order), set(batch + mine + theirs))


def _matmul(b: IRBuilder, left: Term, right: Term, batch: list[str], mine: list[str],
            summed: list[str], theirs: list[str]) -> Term:
    """Two operands sharing summed letters as one (batch, m, k) @ (batch, k, n) product
    (BLAS), as NumPy's ``tensordot`` and PyTorch's ``einsum`` compute it: each side's own
    letters and the summed ones flattened into one dimension (a missing m or n is one of
    size 1, then dropped). A summed dimension of size 1 on one side broadcasts against the
    other's, as NumPy's einsum does. (A broadcast product of all the letters, summed, was
    the product of every size: ``'abcd,dce->abe'`` of a (32, 252, 64, 5) array took 147 ms
    that way, NumPy's tensordot 2.)"""
    from .lowering import reshape, size

    xm = _permute(b, left, "".join(batch + mine + summed))
    ym = _permute(b, right, "".join(batch + summed + theirs))
    nb, nm = len(batch), len(mine)
    # (the summed sizes broadcast: equal, or 1 on one side; expand refuses others)
    ks = [binary(b, "max", size(b, xm, nb + nm + i), size(b, ym, nb + i))
          for i in range(len(summed))]
    xm = b.emit(aten.expand, [xm, b.int_list([-1] * (nb + nm) + ks, "np.einsum"), False],
                "np.einsum")
    ym = b.emit(aten.expand, [ym, b.int_list([-1] * nb + ks + [-1] * len(theirs),
                                             "np.einsum"), False], "np.einsum")
    sizes_m = [size(b, xm, nb + i) for i in range(nm)]
    sizes_n = [size(b, ym, nb + len(summed) + i) for i in range(len(theirs))]

    def product(sizes: list) -> Item:
        total = 1
        for n in sizes:
            total = n if total == 1 else binary(b, "mul", total, n)
        return total

    if nm != 1 or len(summed) != 1:
        xm = reshape(b, xm, [size(b, xm, d) for d in range(nb)] + [product(sizes_m),
                                                                    product(ks)])
    if len(theirs) != 1 or len(summed) != 1:
        ym = reshape(b, ym, [size(b, ym, d) for d in range(nb)] + [product(ks),
                                                                    product(sizes_n)])
    z = binary(b, "matmul", xm, ym)
    if nm != 1 or len(theirs) != 1:
        z = reshape(b, z, [size(b, z, d) for d in range(nb)] + sizes_m + sizes_n)
    return z, "".join(batch + mine + theirs)


def _spread(b: IRBuilder, x: Value, letters: str, order: str) -> Value:
    """``x`` with its dimensions in ``order``'s order and a dimension of 1 for each letter of
    ``order`` it lacks (so it broadcasts against the other operand)."""
    x = _permute(b, (x, letters), "".join(c for c in order if c in letters))
    for d, c in enumerate(order):
        if c not in letters:
            x = b.emit(aten.unsqueeze, [x, d], "np.einsum")
    return x


__all__ = ["einsum"]
