"""isl AST expressions as pycparser expression nodes.

Shared by the front end (a value it knows, such as an iterator's exit value, is
printed into a statement) and by code generation. min, max and floor division
use the generated header's helper functions (`ppcg_min`, `ppcg_max`,
`ppcg_floord`), which need no GNU extension.

isl keeps its integers exact; C's int does not.  To make a remainder's argument
non-negative, isl can add a constant near 2^31 (`(81920 * n - 65535 * b0 + ...
+ 2147172351) % 163840`, seed 4:447), whose sum overflows int.  A constant of
that size is printed as a long, which makes the sum around it 64-bit.
"""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

OP = isl.ast_expr_op_type
BINARY = {OP.add: "+", OP.sub: "-", OP.mul: "*", OP.div: "/", OP.pdiv_q: "/", OP.pdiv_r: "%",
          OP.zdiv_r: "%", OP.eq: "==", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">",
          OP.and_: "&&", OP.and_then: "&&", OP.or_: "||", OP.or_else: "||"}
HELPERS = {OP.min: "ppcg_min", OP.max: "ppcg_max"}

_SMALL = 2**15 - 1   # an int constant: times any int below 2^16 it stays within an int


def c_node(expr: isl.AstExpr) -> c_ast.Node:
    """An isl AST expression as a pycparser expression node."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        return integer(expr.get_val().to_python())
    if kind == isl.ast_expr_type.id:
        return c_ast.ID(expr.get_id().get_name())
    op = expr.get_op_type()
    args = [c_node(expr.get_op_arg(k)) for k in range(expr.get_op_n_arg())]
    if op in BINARY:
        return c_ast.BinaryOp(BINARY[op], args[0], args[1])
    if op == OP.minus:
        return c_ast.UnaryOp("-", args[0])
    if op in HELPERS:
        result = args[0]
        for arg in args[1:]:
            result = call(HELPERS[op], result, arg)
        return result
    if op == OP.fdiv_q:
        return call("ppcg_floord", args[0], args[1])
    if op in (OP.cond, OP.select):
        return c_ast.TernaryOp(args[0], args[1], args[2])
    if op == OP.call:
        return c_ast.FuncCall(args[0], c_ast.ExprList(args[1:]))
    if op == OP.access:
        result = args[0]
        for arg in args[1:]:
            result = c_ast.ArrayRef(result, arg)
        return result
    if op == OP.member:
        return c_ast.StructRef(args[0], ".", args[1])
    if op == OP.address_of:
        return c_ast.UnaryOp("&", args[0])
    raise ValueError(f"unsupported isl AST operation {op}")


def integer(value: int) -> c_ast.Constant:
    """An integer constant; a large one is a long (see the module docstring)."""
    return c_ast.Constant("int", f"{value}L" if abs(value) > _SMALL else str(value))


def is_constant(node: c_ast.Node, value: int) -> bool:
    """Whether `node` is the integer constant `value` (`integer` may have written it as a long)."""
    return isinstance(node, c_ast.Constant) and node.value.rstrip("L") == str(value)


def call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(list(args)))
