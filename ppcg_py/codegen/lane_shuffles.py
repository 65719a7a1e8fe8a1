"""The loads of a row of neighbours passed between lanes (memory/shuffles.py).

Every lane runs every shuffle (the register of offset d comes by `__shfl_up_sync` or
`__shfl_down_sync` from the lane |d| places away in its segment), then a lane whose
neighbour is outside its segment replaces that value by its own load: the shuffle
gave it its own element there, which the statement must not read.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..isl_c import integer
from .ast import LaneShuffle, Subscript
from .printer import declaration

FULL_MASK = "0xffffffffu"


def lane_loads(row: LaneShuffle, element: Callable[[Subscript], c_ast.Node]) -> list[c_ast.Node]:
    """The row's registers declared and filled, the base's first."""
    registers = dict(row.registers)
    base = c_ast.ID(registers[0])
    loads: list[c_ast.Node] = [declaration(registers[0], element(row.base), type_name=row.element_type)]
    for offset, direct in row.direct:
        name = registers[offset]
        kind = "__shfl_down_sync" if offset > 0 else "__shfl_up_sync"
        shuffle = c_ast.FuncCall(c_ast.ID(kind), c_ast.ExprList(
            [c_ast.Constant("unsigned int", FULL_MASK), base, integer(abs(offset)), integer(row.width)]))
        loads.append(declaration(name, shuffle, type_name=row.element_type))
        loads.append(c_ast.If(_outside(row, offset), c_ast.Assignment("=", c_ast.ID(name), element(direct)), None))
    return loads


def _outside(row: LaneShuffle, offset: int) -> c_ast.Node:
    """Whether the lane `offset` places along is outside the caller's segment."""
    position: c_ast.Node = c_ast.ID(row.lane)
    if row.block_x > row.width:
        position = c_ast.BinaryOp("%", position, integer(row.width))
    if offset < 0:
        return c_ast.BinaryOp("<", position, integer(-offset))
    return c_ast.BinaryOp(">=", position, integer(row.width - offset))
