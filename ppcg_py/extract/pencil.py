"""PENCIL's built-in functions, read as pet reads them.

PENCIL programs call a few functions that no header defines for the compiler:
pet knows them by name. Without that knowledge they would be calls to functions
without a body, run on the host as written, and no compiler of the output would
find them. Each is recognised only where the file defines no function of that
name (a file that defines its own `imin` keeps it, and it is inlined as any other).

- `imin`, `imax`, `umin`, `umax`: the smaller or larger of two integers. In a loop
  bound or subscript they are an affine minimum or maximum; where they are printed
  they become a conditional expression, which every target compiles.
- `__pencil_assume(condition)`: the program promises that the condition holds
  wherever the call is reached. The SCoP's context excludes the parameter values
  for which it could fail, and the call runs no code. A condition the model cannot
  read (it reads memory) is a promise the compiler does not need: it is dropped.
- `__pencil_kill(x, ...)`: the values of each argument (a variable, or one element
  `x[i]`) are dead from here on. Each is a kill of the model, as the start of a
  local's life is, and runs no code. A variable killed whole at the end of the SCoP,
  with nothing after the kill touching it, is not copied back to the host.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from .c_walk import identifier_names, nodes_of, replaced
from .normalize import Marker

MIN_MAX = {"imin": "<", "umin": "<", "imax": ">", "umax": ">"}
ASSUME = "__pencil_assume"
KILL = "__pencil_kill"
BUILTINS = frozenset(MIN_MAX) | {ASSUME, KILL}


class Assumption(Marker):
    """`__pencil_assume(condition)`: a fact about the parameters, no code."""

    __slots__ = ("condition",)

    def __init__(self, condition: c_ast.Node, coord=None) -> None:
        super().__init__(ASSUME, coord)
        self.condition = condition


class PencilKill(Marker):
    """`__pencil_kill(x, ...)`: the variables or elements whose values die here."""

    __slots__ = ("targets",)

    def __init__(self, targets: list[c_ast.Node], coord=None) -> None:
        super().__init__(KILL, coord)
        self.targets = targets


def builtin_calls(items: tuple[c_ast.Node, ...], defined: frozenset[str]) -> tuple[c_ast.Node, ...]:
    """`items` with PENCIL's built-ins that the file does not define replaced: the
    minima and maxima by conditional expressions, the assumptions and kills that
    stand as statements by markers. `items` are left as they are (a copy is made
    where something changes)."""
    names = BUILTINS - defined
    if not any(_builtin(call, names) for item in items for call in nodes_of(item, c_ast.FuncCall)):
        return items
    return tuple(_rewritten(copy.deepcopy(item), names) for item in items)


def dead_after(items: tuple[c_ast.Node, ...]) -> frozenset[str]:
    """The variables killed whole by a `__pencil_kill` of the SCoP's top level that no
    later statement of the SCoP names: nothing after the SCoP may read them."""
    dead: set[str] = set()
    for k, item in enumerate(items):
        if isinstance(item, PencilKill):
            for target in item.targets:
                if isinstance(target, c_ast.ID) and not any(target.name in identifier_names(later)
                                                            for later in items[k + 1:]):
                    dead.add(target.name)
    return frozenset(dead)


def _builtin(call: c_ast.FuncCall, names: frozenset[str]) -> bool:
    return isinstance(call.name, c_ast.ID) and call.name.name in names


def _rewritten(node: c_ast.Node, names: frozenset[str]) -> c_ast.Node:
    """`node` (a copy: changed in place) with the built-ins replaced."""
    minima: dict[int, c_ast.Node] = {}
    for call in reversed(nodes_of(node, c_ast.FuncCall)):   # the inner calls first
        if _builtin(call, names) and call.name.name in MIN_MAX:
            minima[id(call)] = _min_max(call, minima)
    node = replaced(node, minima)
    marker = _marker(node, names)
    if marker is not None:   # a statement of the SCoP's top level
        return marker
    markers = {id(child): _marker(child, names)
               for block in nodes_of(node, c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile)
               for child in _statements_of(block) if _marker(child, names) is not None}
    return replaced(node, markers)


def _marker(statement: c_ast.Node, names: frozenset[str]) -> c_ast.Node | None:
    """What an assumption or a kill standing as a statement becomes (None: another
    statement); such a call anywhere else has no value to give, and C rejects it."""
    if not (isinstance(statement, c_ast.FuncCall) and _builtin(statement, names)
            and statement.name.name in (ASSUME, KILL)):
        return None
    args = list(statement.args.exprs) if statement.args is not None else []
    if statement.name.name == KILL:
        return PencilKill(args, statement.coord)
    return Assumption(args[0], statement.coord) if args else c_ast.EmptyStatement(statement.coord)


def _min_max(call: c_ast.FuncCall, done: dict[int, c_ast.Node]) -> c_ast.Node:
    """`(a < b ? a : b)` for `imin(a, b)` (the arguments have no side effects in a SCoP),
    its arguments' own built-ins (`done`) already replaced."""
    args = [replaced(a, done) for a in (call.args.exprs if call.args is not None else [])]
    if len(args) != 2:
        return call
    a, b = args
    comparison = c_ast.BinaryOp(MIN_MAX[call.name.name], a, b, call.coord)
    return c_ast.TernaryOp(comparison, copy.deepcopy(a), copy.deepcopy(b), call.coord)


def _statements_of(node: c_ast.Node) -> list[c_ast.Node]:
    """The statements directly below a block, branch or loop."""
    if isinstance(node, c_ast.Compound):
        return list(node.block_items or [])
    if isinstance(node, c_ast.If):
        return [s for s in (node.iftrue, node.iffalse) if s is not None]
    return [node.stmt] if node.stmt is not None else []
