"""Lowering a graph to the interpreter's integer-encoded instructions (interpreter.cpp's Code).

``Code(graph)`` copies the graph, preprocesses the copy (``desugar_trip_counts``, ``flatten_io``,
``drop_unused``, ``find_last_uses``) and turns it into a flat program over numbered registers::

    graph(%x : Tensor, %c : bool):            0, 1 = prim::Load
      %y : Tensor = prim::If(%c)              = prim::JumpNZ move(1) -> 5
        block0():                             2 = aten::neg 0
          %a : Tensor = aten::exp(%x)         3 = prim::Assign move(2)
          -> (%a)                             = prim::Jump -> 7
        block1():                             4 = aten::exp 0
          %b : Tensor = aten::neg(%x)         3 = prim::Assign move(4)
          -> (%b)                             = prim::Drop move(0)
      return (%y)                             = prim::Store move(3)

Each dump line reads ``outputs = kind inputs``; ``move(r)`` marks the last use of register ``r``
(the interpreter frees it), ``-> t`` a jump target. If becomes JumpNZ / Jump, Loop becomes
Assign / JumpZ / JumpNZ with the loop's outputs aliased to its body's input registers.

The encoding needs no Python object to decode an instruction, so a Numba loop can run it:
``instructions`` is an ``(n, 6)`` int64 array with the columns below; operand registers live in
``int_data`` and their move flags in ``bool_data`` at the same positions (outputs have a False
flag there). ``ARG`` is the jump offset (``pc = pc + 1 + ARG`` when taken) for jumps, an index
into ``constants`` for CONSTANT, into ``operations`` for OP and into ``subcodes`` for CALL/FORK.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from ..errors import FusejitError, InterpreterError, kind_of, make
from ..ir.constants import constant_value
from ..ir.graph import Block, ElidedTensor, Graph, Node, SourceRange, Value
from ..ir.symbols import prim
from ..oplib import make_operation as table_operation
from ..passes.desugar_trip_counts import desugar_trip_counts
from ..passes.drop_unused import drop_unused
from ..passes.find_last_uses import find_last_uses
from ..passes.flatten_io import flatten_io

# Columns of Code.instructions.
OPCODE, ARG, IN_START, IN_SIZE, OUT_START, OUT_SIZE = range(6)
N_COLUMNS = 6


class Opcode(IntEnum):
    """What one instruction does; the integers are what the interpreter loops dispatch on."""

    OP = 0          # outputs = operations[ARG](*inputs)
    CONSTANT = 1    # output = constants[ARG]
    LOAD = 2        # outputs = the call's arguments, taken from the stack
    STORE = 3       # the inputs are pushed on the stack as the call's results
    DROP = 4        # frees its inputs (all moved)
    ASSIGN = 5      # outputs = inputs, all read before any is written
    JUMP = 6        # pc += ARG
    JUMPZ = 7       # pc += ARG if not input
    JUMPNZ = 8      # pc += ARG if input
    CALL = 9        # outputs = run subcodes[ARG] on inputs (a FusionGroup's subgraph)
    FORK = 10       # output = Future of subcodes[ARG] run on inputs in the fork pool
    WAIT = 11       # output = value of the input Future (suspends if unfinished)
    PLACEHOLDER = 12  # a jump whose target is not known yet; none is left after lowering


_JUMP_KINDS = {Opcode.JUMP: prim.Jump, Opcode.JUMPZ: prim.JumpZ, Opcode.JUMPNZ: prim.JumpNZ}
# Nodes whose subgraph the executor compiles into one kernel (``make_group_operation``).
_KERNEL_GROUPS = frozenset({prim.FusionGroup, prim.RowReductionGroup, prim.ColumnReductionGroup})
_FIXED_OPCODES = {
    prim.Load: Opcode.LOAD, prim.Store: Opcode.STORE, prim.Drop: Opcode.DROP,
    prim.fork: Opcode.FORK, "aten::wait": Opcode.WAIT,
}


def relative_jump(from_pc: int, to_pc: int) -> int:
    return to_pc - (from_pc + 1)


class Code:
    """A graph lowered to integer-encoded instructions; see the module docstring."""

    def __init__(self, graph: Graph,
                 make_operation: Callable[[Node], Callable[..., tuple]] | None = None,
                 make_group_operation: Callable[[Node], Callable[..., tuple] | None]
                 | None = None):
        if not isinstance(graph, Graph):
            raise FusejitError(f"Code needs a fusejit Graph, got {type(graph).__name__}")
        self.source_graph = graph
        # Where OP instructions get their callables: the operator table unless a caller (a
        # test, a later engine) supplies its own; Python ops always come from their node.
        self._make_operation = make_operation
        # A FusionGroup becomes an OP running what this returns for it (a compiled kernel);
        # without it, or when it returns None, a CALL interpreting the group's subgraph.
        self._make_group_operation = make_group_operation
        self.n_inputs = len(graph.inputs)
        self.n_outputs = len(graph.outputs)
        self.graph = graph.copy()
        desugar_trip_counts(self.graph)
        # A staged graph (seed 000; see flatten_stages) already starts each stage with a Load
        # and ends it with a Store.
        stages = _top_level_stores(self.graph)
        if stages and not (self.graph.inputs or self.graph.outputs):
            self.n_inputs = len(next(self.graph.nodes()).outputs)
            self.n_outputs = len(stages[0].inputs)
        else:
            flatten_io(self.graph)
        drop_unused(self.graph)
        self.move_flags = find_last_uses(self.graph)

        self.constants: list[Any] = []
        self.operations: list[Callable[..., tuple]] = []
        self.subcodes: list[Code] = []
        # Per instruction, for dumps and error messages.
        self.kinds: list[str] = []
        self.nodes: list[Node | None] = []
        self.source_ranges: list[SourceRange | None] = []
        self.register_size = 0
        self._rows: list[list[int]] = []
        self._int_data: list[int] = []
        self._bool_data: list[bool] = []
        self._registers: dict[Value, int] = {}
        self.insert_nodes_from_block(self.graph.block)
        # Each stage runs up to and including its Store (interpreter.cpp's stage_end); plain
        # code is one stage.
        self.stage_ends = [pc + 1 for pc in range(len(self._rows))
                           if self._rows[pc][OPCODE] == Opcode.STORE
                           and self.nodes[pc] is not None
                           and self.nodes[pc].owning_block is self.graph.block]
        if self.stage_ends:
            self.stage_ends[-1] = len(self._rows)   # (Drops after the last Store belong to it)
        self.instructions = np.array(self._rows, dtype=np.int64).reshape(-1, N_COLUMNS)
        self.int_data = np.array(self._int_data, dtype=np.int64)
        self.bool_data = np.array(self._bool_data, dtype=np.bool_)
        # The same rows as Python lists, for the reference loop.
        self.rows: list[list[int]] = self._rows
        self._operands: list | None = None
        del self._int_data, self._bool_data

    @property
    def operands(self) -> list[tuple[tuple[tuple[int, bool], ...], tuple[int, ...]]]:
        """Per instruction, its inputs as (register, moved) pairs and its output registers, in
        Python ints, for the engines' Python side (reading ``int_data`` element by element makes
        a NumPy scalar per read, ~0.1 us each). Made on the first run, from ``int_data`` and
        ``bool_data`` as they are then."""
        if self._operands is None:
            ints, moves = self.int_data.tolist(), self.bool_data.tolist()
            self._operands = [(tuple(zip(ints[i:i + n], moves[i:i + n])), tuple(ints[o:o + m]))
                              for _, _, i, n, o, m in self.rows]
        return self._operands

    # -- lowering -----------------------------------------------------------------------------

    def insert_nodes_from_block(self, block: Block) -> None:
        for node in block.nodes():
            if node.kind == prim.If:
                self.insert_if(node)
            elif node.kind == prim.Loop:
                self.insert_loop(node)
            else:
                self.insert_node(node)

    def insert_if(self, node: Node) -> None:
        # JumpNZ c -> then; <else>; outs = else outs; Jump -> end; then: <then>; outs = then outs
        if len(node.inputs) != 1 or len(node.blocks) != 2:
            raise self._malformed(node, "prim::If needs one condition and two blocks")
        then_block, else_block = node.blocks
        cond_branch = self.insert_instruction(
            Opcode.PLACEHOLDER, prim.Placeholder, node, node.inputs, self.move_flags[node], ())
        self.insert_nodes_from_block(else_block)
        self.insert_assign(node, else_block.outputs, self.block_flags(else_block), node.outputs)
        jump = self.insert_instruction(Opcode.PLACEHOLDER, prim.Placeholder, node, (), (), ())
        then_start = len(self._rows)
        self.insert_nodes_from_block(then_block)
        self.insert_assign(node, then_block.outputs, self.block_flags(then_block), node.outputs)
        self.patch_jump(jump, Opcode.JUMP, len(self._rows))
        self.patch_jump(cond_branch, Opcode.JUMPNZ, then_start)

    def insert_loop(self, node: Node) -> None:
        # After desugar_trip_counts: inputs (cond, carried...), body inputs (carried...),
        # body outputs (cond, carried...). The condition goes through a register of its own,
        # so a value that is both the condition and carried is never read after its move:
        #   t, l = c, i;  JumpZ move(t) -> end;  begin: <body>;  t, l = v0, v;
        #   JumpNZ move(t) -> begin;  end:
        body = node.blocks[0] if len(node.blocks) == 1 else None
        if body is None or len(node.inputs) != len(body.inputs) + 1 \
                or len(body.outputs) != len(node.inputs) or len(node.outputs) != len(body.inputs):
            raise self._malformed(node, "prim::Loop's inputs, outputs and body do not agree")
        cond = self.new_register()
        self.insert_assign(node, node.inputs, self.move_flags[node], body.inputs,
                           first_output=cond)
        cond_branch = self.insert_instruction(
            Opcode.PLACEHOLDER, prim.Placeholder, node, (cond,), (True,), ())
        entry = len(self._rows)
        self.insert_nodes_from_block(body)
        self.insert_assign(node, body.outputs, self.block_flags(body), body.inputs,
                           first_output=cond)
        cond_branch_end = self.insert_instruction(
            Opcode.PLACEHOLDER, prim.Placeholder, node, (cond,), (True,), ())
        self.alias_registers_to(node.outputs, body.inputs)
        self.patch_jump(cond_branch, Opcode.JUMPZ, len(self._rows))
        self.patch_jump(cond_branch_end, Opcode.JUMPNZ, entry)

    def insert_node(self, node: Node) -> None:
        flags = self.move_flags[node]
        opcode = _FIXED_OPCODES.get(node.kind)
        if node.kind == prim.Constant:
            self.insert_constant(node)
            return
        kernel = None
        if opcode is None and node.kind in _KERNEL_GROUPS and self._make_group_operation:
            kernel = self._make_group_operation(node)
        if kernel is not None:
            arg = len(self.operations)
            self.operations.append(kernel)
            opcode = Opcode.OP
        elif opcode in (Opcode.FORK, None) and node.has_attribute("Subgraph") \
                and node.kind_of("Subgraph") == "g":
            arg = len(self.subcodes)
            self.subcodes.append(Code(node.g("Subgraph"), self._make_operation))
            opcode = Opcode.FORK if opcode == Opcode.FORK else Opcode.CALL
        elif opcode == Opcode.FORK:
            raise self._malformed(node, "prim::fork needs a Subgraph attribute")
        elif opcode is None:
            arg = len(self.operations)
            self.operations.append(self.get_operation(node))
            opcode = Opcode.OP
        else:
            arg = 0
        self.insert_instruction(opcode, node.kind, node, node.inputs, flags, node.outputs, arg)

    def insert_constant(self, node: Node) -> None:
        value = constant_value(node)
        if isinstance(value, ElidedTensor):
            # No values to run with: an instruction that explains, raised only if it runs.
            arg = len(self.operations)
            self.operations.append(_missing_tensor_operation(node))
            self.insert_instruction(Opcode.OP, node.kind, node, (), (), node.outputs, arg)
            return
        arg = len(self.constants)
        self.constants.append(value)
        self.insert_instruction(Opcode.CONSTANT, node.kind, node, (), (), node.outputs, arg)

    def get_operation(self, node: Node) -> Callable[..., tuple]:
        """The callable that runs ``node``: a Python op's function or the operator table's."""
        if node.kind == prim.PythonOp:
            from .python_op import make_python_operation

            return make_python_operation(node)
        make_operation = self._make_operation or table_operation
        try:
            return make_operation(node)
        except FusejitError as error:
            raise _node_error(InterpreterError, "no operation for node", node, error) from error

    def insert_assign(self, node: Node, inputs: Sequence[Value], flags: Sequence[bool],
                      outputs: Sequence[Value], first_output: int | None = None) -> int:
        out_regs = [self.register_for(v) for v in outputs]
        if first_output is not None:
            out_regs.insert(0, first_output)
        return self.insert_instruction(Opcode.ASSIGN, prim.Assign, node, inputs, flags, (),
                                       out_regs=out_regs)

    def insert_instruction(self, opcode: Opcode, kind: str, node: Node | None,
                           inputs: Sequence[Value | int], flags: Sequence[bool],
                           outputs: Sequence[Value], arg: int = 0,
                           out_regs: Sequence[int] | None = None) -> int:
        """Append one instruction; ``inputs`` are values or (for hidden temporaries) registers."""
        if len(flags) != len(inputs):
            raise self._malformed(node, "move flags do not match the inputs")
        in_start = len(self._int_data)
        for value, flag in zip(inputs, flags):
            register = value if isinstance(value, int) else self.existing_register(value, node)
            self._int_data.append(register)
            self._bool_data.append(bool(flag))
        out_start = len(self._int_data)
        registers = out_regs if out_regs is not None else [self.register_for(v) for v in outputs]
        for register in registers:
            self._int_data.append(register)
            self._bool_data.append(False)
        self._rows.append([int(opcode), arg, in_start, len(inputs), out_start, len(registers)])
        self.kinds.append(kind)
        self.nodes.append(node)
        self.source_ranges.append(node.source_range if node is not None else None)
        return len(self._rows) - 1

    def patch_jump(self, pc: int, opcode: Opcode, target: int) -> None:
        row = self._rows[pc]
        assert row[OPCODE] == Opcode.PLACEHOLDER
        row[OPCODE] = int(opcode)
        row[ARG] = relative_jump(pc, target)
        self.kinds[pc] = _JUMP_KINDS[opcode]

    def block_flags(self, block: Block) -> list[bool]:
        return self.move_flags[block.return_node]

    # -- registers ----------------------------------------------------------------------------

    def new_register(self) -> int:
        self.register_size += 1
        return self.register_size - 1

    def register_for(self, value: Value) -> int:
        """The register of ``value``, allocating one on its definition."""
        register = self._registers.get(value)
        if register is None:
            register = self._registers[value] = self.new_register()
        return register

    def existing_register(self, value: Value, node: Node | None) -> int:
        register = self._registers.get(value)
        if register is None:
            raise self._malformed(node, f"%{value.debug_name} is read before it is defined")
        return register

    def alias_registers_to(self, new: Sequence[Value], existing: Sequence[Value]) -> None:
        """Make each ``new`` value live in the register of the matching ``existing`` one."""
        for n, e in zip(new, existing):
            if n in self._registers:
                raise self._malformed(n.node, f"%{n.debug_name} already has a register")
            self._registers[n] = self._registers[e]

    def _malformed(self, node: Node | None, why: str) -> InterpreterError:
        shown = str(node).strip() if node is not None else "?"
        return InterpreterError(f"cannot lower graph: {why}\n  {shown}")

    # -- printing -----------------------------------------------------------------------------

    def dump_instruction(self, pc: int) -> str:
        """One instruction as ``outs = kind ins`` (``move(r)`` marks a move, ``-> t`` a jump)."""
        opcode, arg, in_start, in_size, out_start, out_size = (int(x)
                                                               for x in self.instructions[pc])
        outs = ", ".join(str(r) for r in self.int_data[out_start:out_start + out_size])
        uses = ", ".join(
            f"move({r})" if self.bool_data[in_start + i] else str(r)
            for i, r in enumerate(self.int_data[in_start:in_start + in_size]))
        line = f"{outs} = {self.kinds[pc]} {uses}".strip()
        if opcode in (Opcode.JUMP, Opcode.JUMPZ, Opcode.JUMPNZ):
            line += f" -> {pc + 1 + arg}"
        return line

    def dump(self) -> str:
        """The program, one instruction a line (staged code: each stage under a heading)."""
        if len(self.stage_ends) <= 1:
            return "".join(self.dump_instruction(pc) + "\n"
                           for pc in range(len(self.instructions)))
        lines, start = [], 0
        for stage, end in enumerate(self.stage_ends):
            lines.append(f"stage {stage}:\n")
            lines.extend(f"  {self.dump_instruction(pc)}\n" for pc in range(start, end))
            start = end
        return "".join(lines)

    def __len__(self) -> int:
        return len(self.instructions)

    def __str__(self) -> str:
        return f"{self.graph}\n{self.dump()}"

    def _repr_html_(self) -> str:
        from ..display import code_html

        return code_html(self)


def _top_level_stores(graph: Graph) -> list[Node]:
    return [n for n in graph.block.nodes() if n.kind == prim.Store]


def _missing_tensor_operation(node: Node) -> Callable[..., tuple]:
    name = node.output().debug_name
    where = f" at {node.source_range}" if node.source_range is not None else ""

    def missing_tensor(*args: Any) -> tuple:
        raise InterpreterError(
            f"tensor constant %{name}{where} has no values (its IR text shows <Tensor>); set "
            f"them with node.t_('value', array) before compiling")

    return missing_tensor


def _node_error(cls: type[FusejitError], what: str, node: Node | None,
                cause: BaseException) -> FusejitError:
    """``cls`` with PyTorch's wording: what failed, the node, its source location, the cause."""
    location = node.location if node is not None else "unknown"
    source_range = node.source_range if node is not None else None
    if location == "unknown" and isinstance(cause, FusejitError):
        # (a node the passes made, a FusionGroup: where its failing member came from)
        inner = getattr(cause, "source_range", None)
        location = str(inner) if inner is not None else getattr(cause, "located_at", location)
        source_range = inner
    shown = str(node).strip() if node is not None else "?"
    hint = ""
    if "ZeroDivisionError" in f"{type(cause).__name__}: {cause}":
        hint = ("\n(an integer // or % by zero: NumPy returns 0 there with a RuntimeWarning; "
                "fusejit raises, as PyTorch does: check the divisor, or divide floats)")
    error = make(cls, kind_of(cause),
                 f"{what} (at {location}):\n  {shown}\n{type(cause).__name__}: {cause}{hint}")
    error.node = node
    error.source_range = source_range
    error.located_at = location
    return error
