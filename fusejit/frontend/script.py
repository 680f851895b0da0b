"""``fusejit.script``: a NumPy-spelled Python function, read from its AST, as TorchScript IR.

::

    def f(x, n: int):                      graph(%x : Tensor, %n : int):
        for t in range(n):                   %2 : bool = prim::Constant[value=1]()   # f.py:2:4
            x = np.tanh(x) * 2               %x.1 : Tensor = prim::Loop(%n, %2, %x)  # f.py:2:4
        return x                               block0(%t : int, %x.2 : Tensor):
                                                 %5 : Tensor = aten::tanh(%x.2)     # f.py:3:12
                                                 ...
                                                 -> (%2, %x.3)
                                             return (%x.1)

Statements map as TorchScript maps them: ``if``/``elif``/``else`` to ``prim::If`` whose blocks
return the variables the branches assign; ``while`` to ``prim::Loop`` with the int64-max trip
count and the condition; ``for t in range(...)`` to ``prim::Loop`` with the trip count and a
constant true condition. The loop carries the variables its body assigns that were defined before
and are read in or after the loop. ``return`` inside ``if`` takes the rest of the function into
the other branch. Calls to other Python functions are scripted and inlined. Anything else raises
``ScriptError`` pointing at the file, line and column. Nothing is run eagerly and no user text is
evaluated.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ScriptError
from ..ir.graph import Graph, Value
from ..ir.symbols import prim
from ..ir.types import (
    BOOL,
    FLOAT,
    INT,
    BoolType,
    FloatType,
    IntType,
    ListType,
    TensorType,
    Type,
)
from ..passes.constant_pooling import constant_pooling
from ..passes.constant_propagation import constant_propagation
from ..passes.dead_code_elimination import eliminate_dead_code
from ..passes.scratch_buffers import forward_scratch_buffers, forward_view_stores
from . import numpy_arrays, numpy_lowering
from .builder import (
    IRBuilder,
    Item,
    describe,
    is_tensor,
    rebuilt,
    remove_unused_constants,
    scalar_type_of,
)
from .constructs import ErrstateBlocks
from .containers import ContainerStatements
from .expressions import (
    SCALAR_ANNOTATIONS,
    ExpressionEmitter,
    FunctionSource,
    Sugared,
    Undefined,
)
from .inplace import InPlaceStatements
from .local_functions import LocalFunction, LocalFunctions
from .loops import INT64_MAX, LoopStatements, _exposed_reads, exit_kinds, name_node, set_flag
from .lowering import ListTypeChanged, as_tensor, check_records_unused
from .masked import Masked, mask_among, split_mask
from .masked import store as masked_store
from .masked import values as masked_values
from .numpy_dtypes import dtype_of, numpy_scalar

_NUMBER_DTYPES = frozenset(map(np.dtype, (np.float64, np.int64, np.bool_)))
_FELL_OFF = object()  # a statement list that ends without ``return``
_RAISED = object()    # ... or that ends in ``raise``: it never returns
_MAX_INLINE_DEPTH = 32


def script(fn, arg_types: Sequence[Type] | None = None,
           constants: dict[int, Any] | None = None) -> Graph:
    """Translate ``fn`` into a TorchScript graph (``scripted``'s graph)."""
    return scripted(fn, arg_types, constants)[0]


def scripted(fn, arg_types: Sequence[Type] | None = None,
             constants: dict[int, Any] | None = None,
             numpy_scalars: dict[int, np.dtype] | None = None, branched: bool = False
             ) -> tuple[Graph, Any, dict[int, type]]:
    """Translate ``fn`` (a plain Python function over NumPy arrays) into a TorchScript graph.

    Unannotated parameters are tensors of unknown type; ``int``, ``float`` and ``bool``
    annotations make scalar inputs. A tuple return becomes several graph outputs.

    ``arg_types`` (one IR type per parameter, as ``fusejit.jit`` gives them per call) types
    the inputs instead: unannotated parameters take them, every value's type is inferred as it
    is emitted, and array arithmetic follows NumPy's dtype rules (casts are inserted where
    PyTorch's would differ). ``constants`` binds parameters (by position) to Python values
    that are scripted as constants (``fusejit.jit`` does so for an int or bool argument used as
    an axis); their graph inputs stay, unread. ``numpy_scalars`` (position: dtype) are the
    parameters passed NumPy scalars (``np.int64(3)``, 0-d arrays in the graph): they are read
    as the strong scalars they are, so ``x[:k]`` and ``range(k)`` take them.

    Also returns the structure of the returned value where the graph's flat outputs do not
    show it (``returned_structure``), else None, and what the caller makes of some outputs
    (by position): NumPy scalars held as numbers (``np.count_nonzero(x)``: ``np.int64``),
    shapes held as lists (``tuple``), 0-d arrays NumPy returns as arrays (``None``: kept).
    ``branched`` (with ``arg_types``): a returned value that is a Python number or a NumPy
    scalar by the branch taken (``if s < eps: return 0.0``) is one too, its flag a graph
    output after the returned ones (``Branched``); the structure is then never None.
    """
    try:
        return _scripted(fn, arg_types, constants, numpy_scalars, branched, True)
    except ListTypeChanged:   # (a list took another type of array after a typed read)
        return _scripted(fn, arg_types, constants, numpy_scalars, branched, False)


def _scripted(fn, arg_types: Sequence[Type] | None, constants: dict[int, Any] | None,
              numpy_scalars: dict[int, np.dtype] | None, branched: bool,
              typed_list_reads: bool) -> tuple[Graph, Any, dict[int, type]]:
    src = load_source(fn)
    graph = Graph()
    b = IRBuilder(graph, typed=arg_types is not None)
    b.typed_list_reads = typed_list_reads
    if branched and arg_types is not None:
        b.branched = {}
    emitter = StatementEmitter(b, src, inline_stack=(fn,))
    params = _parameters(emitter, src.tree)
    if arg_types is not None and len(arg_types) != len(params):
        raise ScriptError(f"{fn.__qualname__}: {len(arg_types)} argument types for "
                          f"{len(params)} parameters")
    for i, arg in enumerate(params):
        given = arg_types[i] if arg_types is not None else None
        emitter.env[arg.arg] = graph.add_input(arg.arg, _annotation_type(emitter, arg, given))
        if constants and i in constants:
            emitter.env[arg.arg] = constants[i]
        elif numpy_scalars and i in numpy_scalars:
            emitter.at(arg)
            # (shared: the 0-d input is converted to the scalar it holds)
            emitter.env[arg.arg] = numpy_scalar(b, emitter.env[arg.arg], numpy_scalars[i],
                                                shared=True)
        elif isinstance(given, TensorType) and given.rank == 0:
            # a 0-d array the caller passed (its NumPy scalars are numpy_scalars'): x *= 2
            # writes into it, where it rebinds a NumPy scalar
            b.zero_d_arrays.add(emitter.env[arg.arg])
    emitter.at(src.tree)
    result = emitter.emit_function_body()
    kinds: dict[int, type] = {}
    flags: list[Value] = []
    with graph.inserting_before(graph.block):
        outputs = emitter.flatten(result, "the returned value", dicts=True)
        for i, value in enumerate(outputs):
            dtype = b.numpy_scalars.get(value) if arg_types is not None else None
            if b.branched and value in b.branched:
                index, found = b.branched[value]
                kinds[i] = Branched(found, len(outputs) + len(flags))
                flags.append(index)
            elif dtype is not None and dtype not in _NUMBER_DTYPES:
                # np.float32(n): a 0-d array of its dtype, as x.sum() is
                value = as_tensor(b, value, "the returned value", dtype)
            elif dtype is not None:
                # (an int64, float64 or bool NumPy scalar stays a number in the graph, so
                # that scalar graphs keep their compiled tier: the caller makes it the
                # NumPy scalar NumPy returns)
                kinds[i] = dtype.type
            elif value in b.zero_d_arrays:
                kinds[i] = None   # (np.array(x.sum()): a 0-d array, as NumPy's)
            elif value.type == ListType(INT):
                kinds[i] = tuple  # (x.squeeze().shape, of a rank known when it runs)
            elif b.list_items.get(value) in _PYTHON_NUMBERS:   # (numbers appended)
                kinds[i] = functools.partial(_numbers, _PYTHON_NUMBERS[b.list_items[value]])
            elif b.scalar_lists.get(value):   # (x[i] appended: NumPy scalars)
                kinds[i] = _numpy_scalars
            if isinstance(value.type, TensorType) and value.type.rank != 0 and \
                    numpy_lowering.viewed(value).node.kind == prim.Constant:
                # (a constant array, or a view of one, is the graph's and read-only: the caller
                # gets a copy, writeable as NumPy's new array is; 0-d ones are returned as
                # they were, NumPy scalars or 0-d arrays by their kind)
                value = b.emit("aten::clone", [value, None], "the returned value")
            graph.register_output(value)
        for flag in flags:
            graph.register_output(flag)
    numpy_lowering.refuse_stale_reversals(graph)
    check_records_unused(b)
    remove_unused_constants(graph)
    if arg_types is not None:
        # What jit runs: arithmetic on constants folded (1 / 3 a constant exponent, which
        # kernels specialise), constants hoisted out of loop bodies (a while+if loop otherwise
        # reloads them every iteration), dead conversions dropped.
        constant_propagation(graph, numbers_only=True)
        eliminate_dead_code(graph)
        constant_pooling(graph)
        # (out= scratch buffers read back in the same step, and views read back after a
        # store: the values stored, which the fuser sees whole)
        if forward_scratch_buffers(graph) | forward_view_stores(graph):
            eliminate_dead_code(graph)
    graph.lint()
    structure = returned_structure(result, len(outputs))
    if flags and structure is None:     # (the flags are outputs the caller leaves out)
        structure = 0 if len(outputs) == 1 else tuple(range(len(outputs)))
    return graph, structure, kinds


class Branched:
    """What the caller makes of a returned number whose kind the branch that ran decides
    (``ExpressionEmitter.merged_kinds``): from the number (or its 0-d array) and the index of
    its kind among ``kinds`` (the graph output at ``flag``), the Python number or NumPy
    scalar NumPy returns."""

    __slots__ = ("kinds", "flag")

    def __init__(self, kinds: tuple, flag: int):
        self.kinds, self.flag = kinds, flag

    def __call__(self, value: Any, outputs: Sequence[Any]) -> Any:
        if isinstance(value, np.ndarray):
            value = value[()]
        kind = self.kinds[int(outputs[self.flag])]
        return kind(value) if isinstance(kind, type) else kind.type(value)


_PYTHON_NUMBERS = {FLOAT: float, INT: int, BOOL: bool}


def _numbers(kind: type, items: list) -> list:
    return [kind(x) for x in items]


def _numpy_scalars(items: list) -> list:
    return [x[()] if isinstance(x, np.ndarray) else x for x in items]


def returned_structure(result: Any, count: int) -> Any:
    """Where ``result`` (the returned item, ``count`` graph outputs) is not one value or a flat
    tuple of two or more, its tuples, lists and dicts with each output's position in its
    place: ``return x, (n, m)`` gives ``(0, (1, 2))``, ``return (x,)`` gives ``(0,)``,
    ``return {"a": x}`` gives ``{"a": 0}``; else None."""
    if not isinstance(result, (tuple, list, dict)) or (
            type(result) is tuple and len(result) >= 2
            and not any(isinstance(r, (tuple, list, dict)) for r in result)):
        return None
    return StatementEmitter.unflatten(result, iter(range(count)))


_SOURCES: dict[Any, FunctionSource] = {}


def load_source(fn) -> FunctionSource:
    """Parse ``fn``'s source (via ``inspect``) into a located ``FunctionSource``."""
    if not inspect.isfunction(fn):
        raise ScriptError(f"fusejit.script needs a Python function, got {type(fn).__name__}")
    if getattr(fn, "__fusejit_gradient__", False):
        # (its source, through __wrapped__, is the differentiated function's: the function's
        # value would come back where its gradient was asked for)
        raise ScriptError(f"{fn.__qualname__} is made by fusejit.grad or value_and_grad: it "
                          f"cannot be scripted, jitted or called in a jitted function; call it "
                          f"from Python")
    cached = _SOURCES.get(fn)
    if cached is not None and cached.fn is fn:
        return cached
    if fn.__name__ == "<lambda>":
        src = _lambda_source(fn)
        _SOURCES[fn] = src
        return src
    try:
        lines, first_line = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as error:
        raise ScriptError(f"cannot read the source of {fn.__qualname__}: {error}") from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != text else 0
    try:
        module = ast.parse(dedented)
    except SyntaxError as error:
        raise ScriptError(f"cannot parse the source of {fn.__qualname__}: {error}") from None
    tree = module.body[0] if module.body else None
    if not isinstance(tree, ast.FunctionDef):
        raise ScriptError(f"{fn.__qualname__}: expected a def statement in its source")
    src = FunctionSource(fn, tree, file, first_line - 1, indent)
    ErrstateBlocks(src.closure, src.globals).visit(tree)
    _SOURCES[fn] = src
    return src


def _lambda_source(fn) -> FunctionSource:
    """``fusejit.jit(lambda x: x * 2)``: the lambda found in its file by line and parameter
    names, as a ``def`` returning its body (positions are the file's own)."""
    code = fn.__code__
    file = code.co_filename
    text = "".join(linecache.getlines(file))
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        module = None
    names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [node for node in ast.walk(module) if isinstance(node, ast.Lambda)
             and node.lineno == code.co_firstlineno
             and [a.arg for a in (*node.args.posonlyargs, *node.args.args,
                                  *node.args.kwonlyargs)] == names] if module else []
    if len(found) != 1:
        why = "several lambdas with these parameters on its line" if found else \
            "its source cannot be read"
        raise ScriptError(f"{file}:{code.co_firstlineno}: cannot script this lambda ({why}); "
                          f"write it as a def")
    lam = found[0]
    tree = ast.FunctionDef(name="<lambda>", args=lam.args, body=[ast.Return(lam.body)],
                           decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(tree, lam)
    ast.copy_location(tree.body[0], lam.body)
    return FunctionSource(fn, tree, file, 0, 0)


def _parameters(emitter: ExpressionEmitter, tree: ast.FunctionDef,
                inlined: bool = False) -> list[ast.arg]:
    """The parameters of the function scripted; a helper inlined at a call also takes
    ``*args`` (a tuple of what the call passed) and ``**kwargs`` (a dict)."""
    args = tree.args
    if args.vararg is not None and not inlined:
        raise emitter.unsupported(args.vararg, "a *args parameter")
    if args.kwarg is not None and not inlined:
        raise emitter.unsupported(args.kwarg, "a **kwargs parameter")
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _annotation_type(emitter: ExpressionEmitter, arg: ast.arg, given: Type | None = None):
    """``int``/``float``/``bool`` annotations give scalars; none or ``np.ndarray``, a tensor.

    With a ``given`` type (the call's argument), the annotation only matters when it names a
    scalar type and the argument is a scalar (an ``int`` passed for ``x: float`` is a float);
    other annotations (``Optional[...]``, ``np.ndarray``, strings) are not read.
    """
    node = arg.annotation
    if given is not None:
        annotated = _scalar_annotation(emitter, node)
        if annotated is not None and isinstance(given, (IntType, FloatType, BoolType)):
            return annotated
        return given
    if node is None:
        return SCALAR_ANNOTATIONS[np.ndarray]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:  # a string annotation is parsed, never evaluated
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            raise emitter.unsupported(arg, f"the annotation {node.value!r}") from None
        ast.copy_location(node, arg)
    if isinstance(node, (ast.Name, ast.Attribute)):
        resolved = emitter.eval(node)
        if isinstance(resolved, Sugared) and resolved.obj in SCALAR_ANNOTATIONS:
            return SCALAR_ANNOTATIONS[resolved.obj]
    raise emitter.unsupported(arg, f"the annotation of parameter {arg.arg!r} (use int, float, "
                                   f"bool or np.ndarray)")


def _scalar_annotation(emitter: ExpressionEmitter, node: ast.expr | None) -> Type | None:
    if isinstance(node, (ast.Name, ast.Attribute)):
        try:
            resolved = emitter.eval(node)
        except ScriptError:
            return None
        if isinstance(resolved, Sugared) and resolved.obj in (int, float, bool):
            return SCALAR_ANNOTATIONS[resolved.obj]
    return None


class StatementEmitter(LoopStatements, ContainerStatements, InPlaceStatements,
                       LocalFunctions, ExpressionEmitter):
    """Emits the statements of one function body (a helper gets its own emitter)."""

    def __init__(self, b: IRBuilder, src: FunctionSource, inline_stack: tuple):
        super().__init__(b, src)
        self.inline_stack = inline_stack
        # Names read after the statement being emitted (for loop-carried liveness).
        self.live_after: list[set[str]] = [set()]
        self.loop_depth = 0
        self.loop_count = 0  # numbers the hidden names of rewritten loops ($break1 ...)
        # The emitters of the functions this one is inlined into (their names' elements
        # are kept too when a helper writes an array: keep_read_elements).
        self.callers: tuple[StatementEmitter, ...] = ()

    def emit_function_body(self) -> Item:
        result = self.emit_statements(self.src.tree.body)
        return None if result is _FELL_OFF or result is _RAISED else result

    # -- statement lists and returns ----------------------------------------------------------

    def emit_statements(self, stmts: list[ast.stmt]) -> Any:
        """Emit ``stmts``; returns the returned item, or ``_FELL_OFF``."""
        for i, stmt in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(stmt, (ast.For, ast.While)) and _returns(stmt):
                return self.emit_statements(self._returns_as_breaks(stmt, rest))
            if self.loop_depth and isinstance(stmt, (ast.Return, ast.If)) and _returns(stmt):
                raise self.unsupported(stmt, "return inside a loop (write the result to a "
                                             "variable and break, then return after the loop)")
            if isinstance(stmt, ast.Raise):     # (what follows it never runs)
                self.emit_statement(stmt)
                return _RAISED
            if isinstance(stmt, ast.Return):
                if rest:
                    raise self.unsupported(rest[0], "code after return")
                if stmt.value is None:
                    return None
                return self.eval_value(stmt.value)
            if isinstance(stmt, ast.If):
                static = self.static_condition(stmt.test)
                if static is not None:  # decided while scripting: only one branch exists
                    branch = stmt.body if static else stmt.orelse
                    return self.emit_statements(branch if _always_returns(branch)
                                                else [*branch, *rest])
            if isinstance(stmt, ast.If) and _returns(stmt):
                return self.emit_returning_if(stmt, rest)
            # (the names the statements after it may read before they assign them)
            self.live_after.append(self.live_after[-1] | _exposed_reads(rest, set()))
            try:
                self.emit_statement(stmt)
            finally:
                self.live_after.pop()
        return _FELL_OFF

    def _returns_as_breaks(self, loop: ast.For | ast.While, rest: list[ast.stmt]
                           ) -> list[ast.stmt]:
        """A loop that returns from inside, and the statements after it, as TorchScript's exit
        transform writes them: each ``return v`` stores ``v`` in hidden names, sets a flag and
        breaks (out of every loop it is in), and after the loop ``if $returned: return v``
        comes before the rest (a ``while True`` without a break of its own only ends by
        returning: then the return alone). Every return inside must give the same number of
        values (one, or a tuple of k)."""
        self.loop_count += 1
        flag = f"$returned{self.loop_count}"
        returns = _own_returns(loop)
        arity = {len(n.value.elts) if isinstance(n.value, ast.Tuple) else
                 0 if n.value is None else -1 for n in returns}
        if len(arity) != 1:
            raise self.unsupported(returns[0], "returns of different numbers of values inside "
                                               "a loop (make every return in it give as many "
                                               "values, a tuple of the same length)")
        (count,) = arity
        names = [f"{RETURNED_VALUE}{self.loop_count}_{k}" for k in range(max(count, 1))] \
            if count else []

        def stored(node: ast.Return) -> list[ast.stmt]:
            parts = node.value.elts if count > 0 else [node.value] if count else []
            out = [ast.copy_location(ast.Assign([name_node(n, node, store=True)], part), node)
                   for n, part in zip(names, parts)]
            return [*out, set_flag(flag, True, node), ast.copy_location(ast.Break(), node)]

        def rewritten(stmts: list[ast.stmt]) -> list[ast.stmt]:
            out: list[ast.stmt] = []
            for stmt in stmts:
                if isinstance(stmt, ast.Return):
                    return out + stored(stmt)       # (what follows never runs)
                if not _returns(stmt):
                    out.append(stmt)
                elif isinstance(stmt, ast.If):
                    out.append(ast.copy_location(
                        ast.If(stmt.test, rewritten(stmt.body), rewritten(stmt.orelse)), stmt))
                elif isinstance(stmt, (ast.For, ast.While)):
                    inner = type(stmt)(**{**{f: getattr(stmt, f) for f in stmt._fields},
                                          "body": rewritten(stmt.body),
                                          "orelse": rewritten(stmt.orelse)})
                    out.append(ast.copy_location(inner, stmt))
                    out.append(ast.copy_location(   # (and out of the loop around it)
                        ast.If(name_node(flag, stmt), [ast.copy_location(ast.Break(), stmt)],
                               []), stmt))
                else:
                    raise self.unsupported(stmt, "return inside this statement in a loop")
            return out

        new = type(loop)(**{**{f: getattr(loop, f) for f in loop._fields},
                            "body": rewritten(loop.body), "orelse": rewritten(loop.orelse)})
        value = None if not count else name_node(names[0], loop) if count < 0 else \
            ast.copy_location(ast.Tuple([name_node(n, loop) for n in names], ast.Load()), loop)
        done = ast.copy_location(ast.Return(value), loop)
        forever = isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and \
            bool(loop.test.value) and ast.Break not in exit_kinds(loop.body)
        after = [done] if forever else [
            ast.copy_location(ast.If(name_node(flag, loop), [done], []), loop), *rest]
        return [set_flag(flag, False, loop), ast.copy_location(new, loop), *after]

    def emit_returning_if(self, stmt: ast.If, rest: list[ast.stmt]) -> Item:
        """``if c: ... return a`` + rest: the rest goes into each branch that can fall through."""
        cond = self.condition(stmt.test)
        self.at(stmt)
        node = self.b.create(prim.If, [cond], 0)
        results = []
        for body in (stmt.body, stmt.orelse):
            block = node.add_block()
            stmts = body if _always_returns(body) else [*body, *rest]
            saved = dict(self.env)
            with self.b.graph.inserting_before(block):
                result = self.emit_statements(stmts)
                result = None if result is _FELL_OFF else result
                values = None if result is _RAISED else self.flatten(
                    result, "the returned value", dicts=True)
            results.append((result, values))
            self.env = saved
        raised = [values is None for _, values in results]
        if all(raised):
            return _RAISED
        if any(raised):
            # (a branch that raises returns nothing: its block gives placeholders of the
            # other's types, as TorchScript's prim::Uninitialized)
            k = raised.index(True)
            result, values = results[1 - k]
            placeholders = []
            with self.b.graph.inserting_before(node.blocks[k]):
                for v in values:
                    if not isinstance(v, Value):
                        v = self.b.value(v)
                    made = self.b.create(prim.Uninitialized, [])
                    made.output().set_type(v.type)
                    placeholders.append(made.output())
            results[k] = (result, placeholders)
        (first, then_values), (second, else_values) = results
        if len(then_values) != len(else_values) or _shape(first) != _shape(second):
            self.at(stmt)
            raise self.b.error("the branches of this if return different numbers of values "
                               "(or differently nested tuples, or dicts of other keys)")
        outputs = []
        for t, e in zip(then_values, else_values):
            self.at(stmt)
            kinded = self.merged_kinds(node, [t, e], "the returned values")
            if kinded is not None:
                outputs.append(kinded)
                continue
            t, e = self.widened([(node.blocks[0], t), (node.blocks[1], e)])
            node.blocks[0].register_output(t)
            node.blocks[1].register_output(e)
            outputs.append(node.add_output(self.join_types(t, e, "the returned values")))
            self.note_merged(outputs[-1], t, e)     # (np.float32 either way: one returned)
        return self.unflatten(first, iter(outputs))

    # -- statements ---------------------------------------------------------------------------

    def emit_statement(self, stmt: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if method is None:
            raise self.unsupported(stmt)
        method(stmt)

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return  # a docstring
        self.eval(stmt.value)

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        # (a name may hold x[mask] until it is reduced: members = x[m]; members.mean())
        # (and x[mask] = y[mask] writes y's selected elements: masked.store)
        value = self.eval_value(stmt.value, masked=all(
            isinstance(t, (ast.Name, ast.Subscript)) for t in stmt.targets))
        for target in stmt.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is None:
            raise self.unsupported(stmt, "a declaration without a value")
        self.assign(stmt.target, self.eval_value(stmt.value))

    def eval_NamedExpr(self, node: ast.NamedExpr) -> Item:
        """``(m := x.max())``: the value, bound to the name as an assignment would."""
        value = self.eval_value(node.value)
        self.assign(node.target, value)
        return value

    def assign(self, target: ast.expr, value: Item) -> None:
        if isinstance(target, ast.Name):
            self.at(target)
            value = self.materialize(value)
            self.env[target.id] = value
            if isinstance(value, Value) and not value.has_debug_name():
                value.set_debug_name(target.id)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(t, ast.Starred) for t in target.elts):
                self.assign_starred(target, value)
                return
            if is_tensor(value):   # a, b = x: x's rows, as NumPy iterates it
                self.at(target)
                value = numpy_arrays.unpack_rows(self.b, value, len(target.elts))
            if not isinstance(value, (tuple, list)):
                self.at(target)
                raise self.b.error(f"cannot unpack a {describe(value)} into "
                                   f"{len(target.elts)} names")
            if len(value) != len(target.elts):
                self.at(target)
                raise self.b.error(f"cannot unpack {len(value)} values into "
                                   f"{len(target.elts)} names")
            if any(isinstance(t, ast.Subscript) for t in target.elts):
                # a[0], a[1] = a[1], a[0]: every value is read before the first write
                value = [self.b.emit("aten::clone", [v, None], "a copy of the element")
                         if is_tensor(v) and v.type.rank == 0
                         and v.node.kind in numpy_lowering.VIEW_KINDS else v for v in value]
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        if isinstance(target, ast.Subscript):
            base = self.eval_value(target.value)
            if isinstance(base, dict):
                base[self.dict_key(target.slice)] = self.materialize(value)
                return
            index = self.eval_index(target.slice)
            self.at(target)
            if not is_tensor(base):
                raise self.b.error(f"a {describe(base)} does not support item assignment")
            self.keep_read_elements(base)
            value = numpy_lowering.check_stored_number(self.b, base, value)
            at = mask_among(self.b, index)
            if isinstance(value, Masked) or is_tensor(index) and \
                    dtype_of(index) == np.dtype(np.bool_):
                masked_store(self.b, base, index, value)
            elif at is not None:     # (x[mask, 1] = v: the mask over the view x[:, 1])
                numbers = scalar_type_of(value) is not None or \
                    is_tensor(value) and value.type.rank == 0
                masked_store(self.b, *split_mask(self.b, base, index, at, numbers), value)
            else:
                numpy_lowering.store(self.b, base, index, value)
            return
        raise self.unsupported(target, "assignment to an attribute")

    def assign_starred(self, target: ast.Tuple | ast.List, value: Item) -> None:
        """``a, *rest, z = t`` of a tuple or list (``coef, *_ = np.linalg.lstsq(...)``): the
        starred name gets the items between as a list, as in Python."""
        self.at(target)
        # (one star: Python's compiler refuses more)
        star = next(k for k, t in enumerate(target.elts) if isinstance(t, ast.Starred))
        if not isinstance(value, (tuple, list)):
            raise self.b.error(f"starred unpacking of a {describe(value)} is not supported "
                               f"(of a tuple or list it is); index it instead")
        after = len(target.elts) - star - 1
        if len(value) < len(target.elts) - 1:
            raise self.b.error(f"not enough values to unpack (expected at least "
                               f"{len(target.elts) - 1}, got {len(value)})")
        items = list(value)
        middle = items[star:len(items) - after]
        for t, v in zip(target.elts[:star], items[:star]):
            self.assign(t, v)
        self.assign(target.elts[star].value, middle)
        for t, v in zip(target.elts[star + 1:], items[len(items) - after:]):
            self.assign(t, v)

    def keep_read_elements(self, written: Value) -> None:
        """Before (or right after) a write into ``written``'s array (through views, and a
        loop's variable updated in place: ``numpy_lowering.memory_of``): a name bound to one of
        its elements (``t = x[0]``: a 0-d view here, a NumPy scalar in NumPy), or to a tuple
        or list holding one (``t = (x[0], x[1])``), keeps the value it read, so ``t = x[0];
        x[0] = x[1]; x[1] = t`` swaps. A 0-d view in NumPy too (``x[..., 0]``, in
        ``b.zero_d_arrays``) reads the write. The copy goes right after the read, every use of
        the read takes it, and so do the names that held it."""
        base = numpy_lowering.memory_of(written)
        for emitter in (self, *self.callers):
            copies = emitter.element_copies

            def kept(item: Any, copies: dict = copies) -> Any:
                if isinstance(item, list):      # (in place: other names may hold the list)
                    item[:] = [kept(i, copies) for i in item]
                    return item
                if isinstance(item, tuple):     # (a named one too: NumPy's EighResult)
                    return rebuilt(item, [kept(i, copies) for i in item])
                if isinstance(item, Masked):
                    return self._kept_selection(item, base)
                if not isinstance(item, Value):
                    return item
                item = copies.get(item, item)
                if is_tensor(item) and item.type.rank == 0 and \
                        item not in self.b.zero_d_arrays and \
                        item.node.kind in numpy_lowering.VIEW_KINDS and \
                        numpy_lowering.memory_of(item) is base:
                    with self.b.graph.inserting_after(item.node):
                        copy = self.b.emit("aten::clone", [item, None], "a copy of the element")
                    item.replace_all_uses_with(copy)
                    copy.node.replace_input(0, item)
                    copies[item] = copy
                    item = copy
                return item

            for name, item in list(emitter.env.items()):
                emitter.env[name] = kept(item)

    def _kept_selection(self, item: Masked, base: Value) -> Any:
        """``t = x[x > 0]`` before a write into ``x`` (or into the mask): the selection
        made as an array where it was read, for every name and use that holds it."""
        if item.kept is None and item.read_at is not None and base in (
                numpy_lowering.memory_of(item.array), numpy_lowering.memory_of(item.mask)):
            with self.b.graph.inserting_after(item.read_at):
                item.kept = masked_values(self.b, item)
        return item if item.kept is None else item.kept

    def materialize(self, item: Item) -> Any:
        """Literals in ``item`` as constants (so a variable is always a graph value). A list
        stays the same list, its items made so in place: names bound to it share it, as in
        Python (``b = a; b.append(v)`` appends to ``a``, and so does a helper given ``a``)."""
        if isinstance(item, list):
            item[:] = [self.materialize(i) for i in item]
            return item
        if isinstance(item, tuple):
            return rebuilt(item, [self.materialize(i) for i in item])
        if isinstance(item, Masked):
            return item  # x[mask], until it is reduced (masked.py)
        if isinstance(item, dict):
            return {k: self.materialize(v) for k, v in item.items()}  # (containers.py)
        if isinstance(item, (str, LocalFunction)):
            return item  # a dict's key, while scripting (for k, v in d.items()); a lambda
        if isinstance(item, slice):   # (ci = slice(i0, n - 1, 2): an index, its parts values)
            return slice(*(None if part is None else self.b.value(part)
                           for part in (item.start, item.stop, item.step)))
        return self.b.value(item)

    # -- if -----------------------------------------------------------------------------------

    def stmt_If(self, stmt: ast.If) -> None:
        cond = self.condition(stmt.test)
        self.at(stmt)
        node = self.b.create(prim.If, [cond], 0)
        before = self.env
        branch_envs, raised = [], []
        for body in (stmt.body, stmt.orelse):
            block = node.add_block()
            self.env = dict(before)
            with self.b.graph.inserting_before(block):
                raised.append(self.emit_statements(body) is _RAISED)
            branch_envs.append(self.env)
        self.env = before
        then_env, else_env = branch_envs
        for name in _changed(before, then_env, else_env):
            t, e = then_env.get(name), else_env.get(name)
            if any(raised) and not all(raised):
                # (after the if, only the branch that does not raise has run: its values)
                k = raised.index(True)
                live = (t, e)[1 - k]
                if live is not None and not isinstance(live, Undefined):
                    self.at(stmt)
                    self.env[name] = self._merge_one_side(node, name, live, k)
                continue
            missing = [v is None or isinstance(v, Undefined) for v in (t, e)]
            if missing.count(True) == 1 and (name.startswith(RETURNED_VALUE)
                                             or self.assignment_flag(name) is not None):
                # (a loop's return stores its value in one branch, read only where it ran,
                # TorchScript's exit transform's; a name first assigned in a loop, with a flag
                # that it was, which its reads test: the other branch gives placeholders)
                self.at(stmt)
                self.env[name] = self._merge_one_side(node, name, (t, e)[missing.index(False)],
                                                      missing.index(True))
                continue
            if any(missing):
                self.env[name] = Undefined(f"it is assigned in only one branch of the if at "
                                           f"line {stmt.lineno + self.src.line_offset} "
                                           f"(assign it before the if, or in both branches)")
                continue
            self.at(stmt)
            self.env[name] = self._merge(node, name, t, e)

    def _merge_one_side(self, node, name: str, live: Any, raising: int) -> Any:
        """``name``'s value after an if whose branch ``raising`` raises: the other branch's,
        through the if (the raising block gives placeholders of its types)."""
        outs = []
        for value in self.flatten(live, repr(name), dicts=True):
            if not isinstance(value, Value):
                with self.b.graph.inserting_before(node.blocks[1 - raising]):
                    value = self.b.value(value)
            with self.b.graph.inserting_before(node.blocks[raising]):
                placeholder = self.b.create(prim.Uninitialized, [])
            placeholder.output().set_type(value.type)
            node.blocks[raising].register_output(placeholder.output())
            node.blocks[1 - raising].register_output(value)
            out = node.add_output(value.type)
            outs.append(out.set_debug_name(name) if not isinstance(live, (tuple, dict)) else out)
        return self.unflatten(live, iter(outs))

    def _merge(self, node, name: str, t: Any, e: Any) -> Any:
        then_values = self.flatten(t, repr(name), dicts=True)   # (dicts of the same keys too)
        else_values = self.flatten(e, repr(name), dicts=True)
        if len(then_values) != len(else_values) or _shape(t) != _shape(e):
            raise self.b.error(f"{name!r} holds values of different shapes in the two branches")
        outs = []
        for tv, ev in zip(then_values, else_values):
            kinded = self.merged_kinds(node, [tv, ev], f"the branches' values of {name!r}")
            if kinded is not None:
                outs.append(kinded.set_debug_name(name) if not isinstance(t, (tuple, dict))
                            else kinded)
                continue
            tv, ev = self.widened([(node.blocks[0], tv), (node.blocks[1], ev)])
            node.blocks[0].register_output(tv)
            node.blocks[1].register_output(ev)
            out = node.add_output(self.join_types(tv, ev, f"the branches' values of {name!r}"))
            self.note_merged(out, tv, ev)
            outs.append(out.set_debug_name(name) if not isinstance(t, (tuple, dict)) else out)
        return self.unflatten(t, iter(outs))

    # -- helpers (inlined calls) --------------------------------------------------------------

    def inline_call(self, fn, args: list[Item], kwargs: dict[str, Item]) -> Item:
        """Script ``fn`` and emit its body here, its parameters bound to the arguments."""
        local = isinstance(fn, LocalFunction)
        name = fn.name if local else fn.__qualname__
        if fn in self.inline_stack:
            raise self.b.error(f"recursive call to {name} cannot be inlined; "
                               f"write the recursion as a loop")
        if len(self.inline_stack) >= _MAX_INLINE_DEPTH:
            raise self.b.error("helper calls are nested too deeply")
        call_loc = self.b.loc
        src = fn.source if local else load_source(fn)
        helper = StatementEmitter(self.b, src, self.inline_stack + (fn,))
        helper.callers = (*self.callers, self)
        if local:
            helper.env.update(fn.scope())   # (a closure: the enclosing function's names)
        params = _parameters(helper, src.tree, inlined=True)
        try:
            bound = (fn.signature if local else inspect.signature(fn)).bind(*args, **kwargs)
        except TypeError as error:
            self.b.loc = call_loc
            raise self.b.error(f"{name}(): {error}") from None
        bound.apply_defaults()
        for param in params:
            item = bound.arguments[param.arg]
            if isinstance(item, np.generic) and isinstance(item.item(), (bool, int, float)):
                # (a NumPy scalar default, k=np.float32(1.5): strong, as NumPy's)
                helper.at(param)
                item = numpy_scalar(self.b, item.item(), item.dtype)
            elif isinstance(item, np.generic):
                item = item.item()
            if not isinstance(item, (Value, Masked, tuple, list, dict, bool, int, float, str,
                                     slice, type(None))):
                self.b.loc = call_loc
                given = "the default of" if param.arg not in bound.signature.parameters or \
                    bound.signature.parameters[param.arg].default is item else "argument"
                raise self.b.error(f"{name}(): {given} {param.arg!r} is a "
                                   f"{type(item).__name__}; only arrays, numbers, strings, "
                                   f"slices, None and tuples, lists and dicts of them are "
                                   f"supported")
            helper.at(param)
            helper.env[param.arg] = helper.materialize(item)
        result = helper.emit_function_body()
        self.b.loc = call_loc
        return result

    # -- flattening (tuples in if/loop outputs) -----------------------------------------------

    def flatten(self, item: Any, what: str, dicts: bool = False) -> list[Value]:
        """The graph values of ``item``, its tuples and lists flattened (and its dicts' values
        with ``dicts``: a returned dict, whose keys the caller's structure keeps)."""
        if isinstance(item, (tuple, list)) or dicts and isinstance(item, dict):
            parts = item.values() if isinstance(item, dict) else item
            return [v for i in parts for v in self.flatten(i, what, dicts)]
        if isinstance(item, (Value, bool, int, float)) or item is None:
            return [self.b.value(item)]
        raise self.b.error(f"{what} is a {describe(item)}, which cannot be a graph value; "
                           f"write its arrays and numbers as a tuple instead")

    @staticmethod
    def unflatten(template: Any, values) -> Any:
        if isinstance(template, dict):
            return {k: StatementEmitter.unflatten(t, values) for k, t in template.items()}
        if isinstance(template, (tuple, list)):
            return rebuilt(template, [StatementEmitter.unflatten(t, values) for t in template])
        return next(values)




def _shape(item: Any) -> Any:
    if isinstance(item, (tuple, list)):
        return tuple(_shape(i) for i in item)
    if isinstance(item, dict):
        return dict, tuple((k, _shape(i)) for k, i in item.items())
    return None


def _changed(before: dict, *after: dict) -> list[str]:
    names: dict[str, None] = {}
    for env in after:
        for name, item in env.items():
            if before.get(name) is not item:
                names[name] = None
    return list(names)


# The hidden names holding what a return inside a loop returns (``_returns_as_breaks``).
RETURNED_VALUE = "$value"


def _own_returns(stmt: ast.AST) -> list[ast.Return]:
    """The ``return`` statements in ``stmt``, outside functions and classes defined in it."""
    if isinstance(stmt, ast.Return):
        return [stmt]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return []
    return [r for child in ast.iter_child_nodes(stmt) for r in _own_returns(child)]


def _returns(stmt: ast.stmt) -> bool:
    """Does ``stmt`` contain a ``return`` (outside nested functions)?"""
    return bool(_own_returns(stmt))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


__all__ = ["INT64_MAX", "load_source", "script"]
