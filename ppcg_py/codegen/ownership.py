"""Ownership checks: `(value - id) % size == 0` around a kernel's statements and copies.

A tile loop is mapped to blocks and a point loop to threads by a modulo filter on
the schedule (`schedule.gpu.kernels._modulo_filter`): block b runs the tiles congruent to
b modulo the grid, thread t the points congruent to t modulo the block. isl's loops
should run only those values, but under the existentials of these filters it has
printed loops whose first value is not congruent to the id (fuzz 10:23: a tile run by
all three blocks of a wrapping grid; fuzz 13:277: a one-value point loop
`for (c2 = m - 32 * c1; c2 <= m - 32 * c1; c2 += 2)` run by both threads), and
nothing inside checked again. So each statement and copy checks the congruence of
every mapped value, except where the loops around make it evident: the value is the
id itself, or a loop iterator whose loop steps by the size from a start congruent to
the id (checked on the printed expression: `t0`, `max(t0, t0 - 32 * c0 + 4)`, ...).
In PolyBench, the checks left are outside the innermost loops.
"""
from __future__ import annotations

from pycparser import c_ast

from ..isl_c import c_node, integer


def owned(checks: tuple, loops: dict[str, tuple], statement: c_ast.Node) -> list[c_ast.Node]:
    """`statement` under the ownership checks (`ast.Ownership`) the loops around it do not make evident."""
    conditions = [c_ast.BinaryOp("==", c_ast.BinaryOp("%", c_ast.BinaryOp("-", c_node(o.value), c_ast.ID(o.id)),
                                                      integer(o.size)), integer(0))
                  for o in checks if not evident(o, loops)]
    if not conditions:
        return [statement]
    condition = conditions[0]
    for check in conditions[1:]:
        condition = c_ast.BinaryOp("&&", condition, check)
    return [c_ast.If(condition, c_ast.Compound([statement]), None)]


def evident(check, loops: dict[str, tuple]) -> bool:
    """Whether the loops around make `check.value` congruent to `check.id` modulo `check.size`
    (every value is, modulo 1: a block of one thread along that dimension)."""
    if check.size == 1:
        return True
    value = c_node(check.value)
    if isinstance(value, c_ast.ID) and value.name in loops:
        start, step = loops[value.name]
        return (step is None or _multiple(step, check.size)) and _congruent(start, check.id, check.size)
    return _congruent(value, check.id, check.size)


def _congruent(node: c_ast.Node, name: str, size: int) -> bool:
    """`node` is `name` plus a multiple of `size`, whatever the values of the other names."""
    return _residue(node, size) == {name: 1}


def _multiple(node: c_ast.Node, size: int) -> bool:
    """`node` is a multiple of `size` whatever the values of the names in it."""
    return _residue(node, size) == {}


Form = dict[str, int]   # name -> coefficient, "" -> the constant; modulo a size, zeros left out


def _residue(node: c_ast.Node, size: int) -> Form | None:
    """`node` as a linear form modulo `size`, for all values of the names in it; None where
    that cannot be told from its form. C's `%` keeps the congruence modulo its divisor,
    so `-((t0 - t1 + 15) % 16) + t0 + 32 * c0 + 15` is t1 modulo 16."""
    if isinstance(node, c_ast.Constant):
        return _form({"": int(node.value.rstrip("L"))}, size) if node.type == "int" else None
    if isinstance(node, c_ast.ID):
        return _form({node.name: 1}, size)
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        inner = _residue(node.expr, size)
        return None if inner is None else _form({k: -v for k, v in inner.items()}, size)
    if isinstance(node, c_ast.BinaryOp):
        return _binary_residue(node, size)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in ("ppcg_min", "ppcg_max"):
        return _same([_residue(arg, size) for arg in node.args.exprs])
    if isinstance(node, c_ast.TernaryOp):
        return _same([_residue(node.iftrue, size), _residue(node.iffalse, size)])
    return None


def _binary_residue(node: c_ast.BinaryOp, size: int) -> Form | None:
    if node.op == "%":
        divisor = node.right
        if isinstance(divisor, c_ast.Constant) and divisor.type == "int" \
                and int(divisor.value.rstrip("L")) % size == 0:
            return _residue(node.left, size)
        return None
    left, right = _residue(node.left, size), _residue(node.right, size)
    if left is None or right is None:
        return {} if node.op == "*" and ({} in (left, right)) else None
    if node.op == "*":
        if set(left) <= {""} or set(right) <= {""}:
            factor, other = (left.get("", 0), right) if set(left) <= {""} else (right.get("", 0), left)
            return _form({k: factor * v for k, v in other.items()}, size)
        return None
    if node.op not in "+-":
        return None
    sign = 1 if node.op == "+" else -1
    return _form({k: left.get(k, 0) + sign * right.get(k, 0) for k in set(left) | set(right)}, size)


def _form(coefficients: Form, size: int) -> Form:
    return {k: v % size for k, v in coefficients.items() if v % size}


def _same(forms: list[Form | None]) -> Form | None:
    return forms[0] if forms and forms[0] is not None and all(f == forms[0] for f in forms) else None
