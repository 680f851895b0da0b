"""The inner loop of a CPU kernel, split where an op has no vectorisable form.

One call LLVM does not inline (a random draw), or a vectorised form too long to inline in a
long chain (``vl.lgamma_f32``), keeps LLVM from vectorising any of a loop. Such an op becomes
a ``ScalarPass``: the loop is cut there, values that cross a cut go through per-tile buffers
(``bt3``), and the op runs in a loop of its own (which LLVM vectorises where it can). A fast
form that is only valid in part of the domain (sine beyond ``vm.TRIG_LIMIT``, float fmod with
a quotient of 2^52 or more) stays in the vectorised loop and is followed by a fix-up that
recomputes the rare other elements: where the fix-ups are the only cuts, the vectorised loop
also notes whether a strip has such an element, and only then a scalar loop computes that
strip again, with libm for those elements (``_rerun_loops``); otherwise a fix-up pass between
the cut loops::

    t2 = np.float32(a0 * a1)                     for c in range(n):      # vectorised
    t3 = np.float32(vl.lgamma_f32(t2))   ->          bt2[c] = np.float32(r0[c] * r1[c])
    w4[c] = t3 + a0                              for c in range(n):      # its own loop
                                                     bt3[c] = np.float32(vl.lgamma_f32(bt2[c]))
                                                 for c in range(n):      # vectorised
                                                     w4[c] = bt3[c] + r0[c]
"""

from __future__ import annotations

import re

import numpy as np

from .templates import STRIP_FORMS

_NAME = re.compile(r"\b[at]\d+\b")
# Elements per strip of a cut loop: its buffers (a few of them, 4 or 8 bytes an element) stay
# in the L1 cache from one pass to the next.
STRIP = 1024
_DEF = re.compile(r"^(t\d+) = ")
# A parallel kernel's strip that needs the second loop of ``_rerun_loops`` marks itself in
# the status array instead (``status[0]`` stays the division flag; then a mark per strip of
# each tile: ``marks_size``): the full forms that loop inlines are as long again as the fast
# loop and doubled a parallel kernel's compile time, while few calls need them. The serial
# kernel, given the marks (``inner_loops``' ``marks="read"``), computes the marked strips again
# and skips the others; a plain status array (length 1) holds no marks.
_MARK = f"status[1 + tile * ((block + {STRIP - 1}) // {STRIP}) + s // {STRIP}]"
DEFER = f"{_MARK} = 1"


def marks_size(n_tiles: int, block: int) -> int:
    """The length of a status array with a mark per strip of ``n_tiles`` tiles of ``block``."""
    return 1 + n_tiles * (-(-block // STRIP))


class ScalarPass:
    """``name = expr`` in a loop of its own; with ``when``, only where ``when`` holds (a fix-up
    of the value the vectorised loop computed). ``targets``: the output rows a fix-up writes
    instead of a buffer (set by ``inner_loops`` where the value is only written out).
    ``total``: ``expr`` is right for every element (the full form of a short one), so a strip
    computed again takes it for all of them, without a branch (``_rerun_loops``).
    ``replaces``: while a node is rendered (``codegen._Generator.pend``), the (fast text, exact
    text) pairs its fix-up substitutes in the node's whole expression."""

    __slots__ = ("name", "expr", "when", "targets", "total", "replaces")

    def __init__(self, name: str, expr: str, when: str | None = None, total: bool = False):
        self.name = name
        self.expr = expr
        self.when = when
        self.targets: list[str] = []
        self.total = total
        self.replaces: list[tuple[str, str]] = []

    def used(self) -> set[str]:
        found = set(_NAME.findall(self.expr))
        if self.when is not None:
            found |= set(_NAME.findall(self.when))
            if not self.targets:
                found.add(self.name)
        return found


def _write_through(pieces: list, writes: list[str]) -> list:
    """``pieces`` with each fix-up whose value is only written out (``w2[c] = t0``, a kernel
    of one trigonometric op) writing the outputs itself: the vectorised loop writes the outputs
    directly and the fix-up patches them, rather than both going through a buffer and a copy
    loop (which, with no arithmetic left to overlap the output's memory traffic, made float64
    ``tan`` 1.7x slower)."""
    pieces = [piece if isinstance(piece, ScalarPass) else list(piece) for piece in pieces]
    last = pieces[-1]
    for i, fix in enumerate(pieces):
        if not isinstance(fix, ScalarPass) or fix.when is None or i == 0:
            continue
        direct = [line for line in writes if line in last and line.endswith(f"= {fix.name}")]
        rest = [line for j, piece in enumerate(pieces) if j > i
                for line in ([piece.expr, piece.when or ""] if isinstance(piece, ScalarPass)
                             else [line for line in piece if line not in direct])]
        home = pieces[i - 1]
        if not direct or isinstance(home, ScalarPass) or fix.name in _used(rest) or not any(
                line.startswith(f"{fix.name} = ") for line in home):
            continue
        for line in direct:
            last.remove(line)
            home.append(line)
        fix.targets = [line.split(" = ")[0] for line in direct]
    return pieces


def _used(lines: list[str]) -> set[str]:
    return {name for line in lines if not line.lstrip().startswith("#")
            for name in _NAME.findall(line)}


def _widths_apart(pieces: list, dtypes: dict[str, np.dtype]) -> list:
    """``pieces`` with each short form that a fix-up follows in a loop of its own where the
    loop before it also computes floats of another width: LLVM vectorised such a loop badly
    (a float32 ``fm.log_inside_f32`` beside float64 selects and products, the focal loss's
    ``-alpha * (1 - p) ** 2 * log(p)`` of float32 p: 7.5 ms over 2^21 elements on one
    thread, 1.4 ms with the logarithm in its own loop)."""
    out: list = []
    for k, piece in enumerate(pieces):
        after = pieces[k + 1] if k + 1 < len(pieces) else None
        if isinstance(piece, list) and isinstance(after, ScalarPass) and \
                after.when is not None and after.name in dtypes:
            names = [m.group(1) if (m := _DEF.match(line)) else None for line in piece]
            at = names.index(after.name) if after.name in names else None
            widths = {np.dtype(dtypes[name]) for name in names[:at or 0] if name in dtypes}
            own = np.dtype(dtypes[after.name])
            if at and any(w.kind == "f" and w != own for w in widths) and own.kind == "f":
                while at > 0 and piece[at - 1].startswith("#"):
                    at -= 1
                out += [piece[:at], piece[at:]]
                continue
        out.append(piece)
    return out


def inner_loops(body: list, loads: dict[str, str], writes: list[str],
                dtypes: dict[str, np.dtype], strips: bool = True,
                marks: str | None = None) -> tuple[list[str], list[str]]:
    """(buffer allocations for the tile, the loops) for ``body`` (lines and ``ScalarPass``es),
    ``loads`` (operand name -> its load line) and the output ``writes``.

    With ``strips`` the cut passes run strip by strip over the fused kernel's row slices
    (``r0``, ``w0``); without, each pass runs over all ``n`` elements with whatever loads and
    writes the caller gives (the row kernels index their own block and row buffers).
    ``marks``: "set" (a parallel kernel), a strip that would be computed again
    (``_rerun_loops``) only marks itself (``DEFER``); "read" (the serial kernel), given marks
    it computes only the marked strips."""
    pieces: list = []
    current: list[str] = []
    for item in body:
        if isinstance(item, ScalarPass):
            pieces += [current, item]
            current = []
        else:
            current.append(item)
    pieces.append(current + writes)
    # (a random draw would be redrawn by the rerun: those keep the cut form)
    if (strips and len(pieces) > 1 and all(isinstance(piece, list) or piece.when is not None
                                           for piece in pieces)
            and not any("np.random" in line for line in body if isinstance(line, str))):
        return [], _strip_loops(_rerun_loops(body, loads, writes, marks))
    pieces = _widths_apart(pieces, dtypes)
    if strips and len(pieces) > 1:
        pieces = _write_through(pieces, writes)
    if len(pieces) == 1:
        return [], ["for c in range(n):"] + ["    " + line for line in
                                             list(loads.values()) + pieces[0]]
    defined: dict[str, int] = {}
    uses: list[set[str]] = []
    for i, piece in enumerate(pieces):
        if isinstance(piece, ScalarPass):
            if piece.when is None:
                defined[piece.name] = i
            uses.append(piece.used())
        else:
            for line in piece:
                match = _DEF.match(line)
                if match:
                    defined[match.group(1)] = i
            uses.append(_used(piece))
    buffered = sorted((name for name, at in defined.items()
                       if any(name in used for i, used in enumerate(uses) if i != at)),
                      key=lambda name: int(name[1:]))
    size = f"min(n, {STRIP})" if strips else "n"
    allocs = [f"b{name} = np.empty({size}, np.{np.dtype(dtypes[name]).name})"
              for name in buffered]
    span = "m" if strips else "n"
    in_strip = _in_strip if strips else (lambda line: line)
    # The passes run strip by strip: the buffers stay in the L1 cache between them.
    loops: list[str] = []
    for i, piece in enumerate(pieces):
        if not isinstance(piece, ScalarPass) and all(line.startswith("#") for line in piece):
            loops += piece          # (only the comment of the pass that follows)
            continue
        reads = [in_strip(loads[name]) for name in sorted(uses[i]) if name in loads]
        reads += [f"{name} = b{name}[c]" for name in buffered
                  if name in uses[i] and defined[name] != i]
        if isinstance(piece, ScalarPass) and piece.when is not None:
            # a fix-up: a vectorised scan of the strip first, the scalar loop only if it found
            # an element to fix (rare: sine beyond vm.TRIG_LIMIT)
            scan = [line for line in reads
                    if set(_NAME.findall(line.split(" = ")[0])) & set(_NAME.findall(piece.when))]
            loops += ["fix = False", f"for c in range({span}):"]
            loops += ["    " + line for line in scan + [f"fix = fix | ({piece.when})"]]
            loops += ["if fix:"]
            if piece.targets:
                body_lines = reads + [f"if {piece.when}:", f"    {piece.name} = {piece.expr}"]
                body_lines += [f"    {in_strip(target)} = {piece.name}"
                               for target in piece.targets]
            else:
                body_lines = reads + [f"if {piece.when}:",
                                      f"    b{piece.name}[c] = {piece.expr}"]
            loops.append(f"    for c in range({span}):")
            loops += ["        " + line for line in body_lines]
            continue
        loops.append(f"for c in range({span}):")
        if isinstance(piece, ScalarPass):
            body_lines = reads + [f"b{piece.name}[c] = {piece.expr}"]
        else:
            stores = [f"b{name}[c] = {name}" for name in buffered if defined[name] == i]
            body_lines = reads + [in_strip(line) if line in writes else line
                                  for line in piece] + stores
        loops += ["    " + line for line in body_lines]
    if not strips:
        return allocs, loops
    return allocs, _strip_loops(loops)


def stream_loops(loads: dict[str, str], lines: list[str],
                 writes: list[str]) -> tuple[list[str], list[str]]:
    """(buffer allocations for the tile, the loops) of a one-pass body (``lines``) whose output
    rows (``writes``: ``w2[c] = t0``) are streamed: each strip is computed into buffers that
    stay in the L1 cache (``bw2``), vectorised as the plain loop is, then moved to the rows by
    ``streams.stream_copy``; a fence ends the tile."""
    targets = [line.split("[c] = ")[0] for line in writes]
    allocs = [f"b{row} = np.empty(min(n, {STRIP}), {row}.dtype)" for row in targets]
    loop = ["for c in range(m):"] + ["    " + _in_strip(line) for line in loads.values()]
    loop += ["    " + line for line in lines] + ["    b" + line for line in writes]
    loop += [f"st.stream_copy({row}[s:s + m], b{row})" for row in targets]
    return allocs, _strip_loops(loop) + ["st.store_fence()"]


def _rerun_loops(body: list, loads: dict[str, str], writes: list[str],
                 marks: str | None = None) -> list[str]:
    """The loops of a strip whose only cuts are fix-ups (sine beyond its limit): one vectorised
    loop computes every element with the fast forms and notes whether any argument is out of
    range; only then a second, scalar loop computes the strip again, taking libm's value where
    it must. (A cut loop would store and reload every value crossing the fix-up, and scan the
    arguments in a pass of its own: float32 sin ran 0.46 ns/element this way, 0.88 cut.)
    ``marks``: see ``inner_loops``."""
    fast, slow = [], []
    for item in body:
        if isinstance(item, ScalarPass):
            fast.append(f"fix = fix | ({item.when})")
            slow += ([f"{item.name} = {item.expr}"] if item.total else
                     [f"if {item.when}:", f"    {item.name} = {item.expr}"])
        else:
            fast.append(item)
            slow.append(item)
    reads = [_in_strip(loads[name]) for name in sorted(_used(fast + writes)) if name in loads]
    stores = [_in_strip(line) for line in writes]
    # (a strip whose whole work has a strip form calls it: ``_strip_call``)
    call = _strip_call(body, loads, writes)
    first = [call] if call else (["fix = False", "for c in range(m):"]
                                 + ["    " + line for line in reads + fast + stores])
    if marks == "set":
        return first + ["if fix:", "    " + DEFER]
    if marks == "read":
        first = [f"if len(status) > 1 and {_MARK} == 0:", "    continue"] + first
    return (first + ["if fix:", "    for c in range(m):"]
            + ["        " + line for line in reads + slow + stores])


_ONE_OP = re.compile(r"(t\d+) = np\.float32\(([\w.]+)\((a\d+), (a\d+)\)\)")
_ROW_LOAD = re.compile(r"a\d+ = (r\d+)\[c\]")
_ROW_WRITE = re.compile(r"(w\d+)\[c\] = (t\d+)")


def _strip_call(body: list, loads: dict[str, str], writes: list[str]) -> str | None:
    """``fix = STRIP(sr0, sr1, sw2)`` where a strip's whole work is one op with a strip form
    (``templates.STRIP_FORMS``: two rows loaded, the value written to one output row, and the
    rerun's test that form's domain); else None."""
    work = [item for item in body if not (isinstance(item, str) and item.startswith("#"))]
    if len(work) != 2 or len(writes) != 1 or not isinstance(work[1], ScalarPass):
        return None
    op, write = _ONE_OP.fullmatch(work[0]), _ROW_WRITE.fullmatch(writes[0])
    if op is None or write is None or write.group(2) != op.group(1):
        return None
    form, outside = STRIP_FORMS.get(op.group(2), (None, None))
    rows = [_ROW_LOAD.fullmatch(loads.get(name, "")) for name in op.group(3, 4)]
    if form is None or work[1].when != f"{outside}({op.group(3)}, {op.group(4)})" or not all(
            rows):
        return None
    return f"fix = {form}(s{rows[0].group(1)}, s{rows[1].group(1)}, s{write.group(1)})"


def _strip_loops(loops: list[str]) -> list[str]:
    """``loops`` (over ``m`` elements of the strips' slices) inside the loop over strips."""
    # (each strip reads and writes through slices: an index s + c would make LLVM allow for a
    # negative index, and gather)
    views = sorted({m for line in loops for m in _STRIP_VIEW.findall(line)},
                   key=lambda name: (name[1], int(name[2:])))
    strips = [f"for s in range(0, n, {STRIP}):", f"    m = min({STRIP}, n - s)"]
    strips += [f"    {view} = {view[1:]}[n - s - m:n - s]" if view[1] == "v" else
               f"    {view} = {view[1:]}[s:s + m]" for view in views]
    return strips + ["    " + line for line in loops]


_ROW = re.compile(r"\b([rw]\d+)\[c\]")
# (a reversed row, ``codegen``'s REVERSED: the tile's slice read from its end)
_REVERSED_ROW = re.compile(r"\b(v\d+)\[np\.uint64\(n - 1 - c\)\]")
# (any use: a strip form takes the views whole, ``fix = vp.pow_strip_f32(sr0, sr1, sw2)``)
_STRIP_VIEW = re.compile(r"\b(s[rvw]\d+)\b")


def _in_strip(line: str) -> str:
    """A load (``a0 = r0[c]``, ``a1 = v1[np.uint64(n - 1 - c)]``) or output write (``w3[c] =
    t2``) of the tile, moved to the strip's slice of that row (``sr0``, ``sv1``, ``sw3``)."""
    line = _REVERSED_ROW.sub(r"s\1[np.uint64(m - 1 - c)]", line)
    return _ROW.sub(r"s\1[c]", line)
