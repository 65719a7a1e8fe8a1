"""Print isl AST expressions as C.

min, max and floor division use the generated header's helper functions
(`ppcg_min`, `ppcg_max`, `ppcg_floord`), which need no GNU extension.

isl keeps its integers exact; C's int does not.  To make a remainder's argument
non-negative, isl can add a constant near 2^31 (`(81920 * n - 65535 * b0 + ...
+ 2147172351) % 163840`, seed 4:447), whose sum overflows int.  A constant of
that size is printed as a long, which makes the sum around it 64-bit.
"""
from __future__ import annotations

import islpy as isl

OP = isl.ast_expr_op_type
BINARY = {OP.add: "+", OP.sub: "-", OP.mul: "*", OP.div: "/", OP.pdiv_q: "/", OP.pdiv_r: "%",
          OP.zdiv_r: "%", OP.eq: "==", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">",
          OP.and_: "&&", OP.and_then: "&&", OP.or_: "||", OP.or_else: "||"}


_SMALL = 2**15 - 1   # an int constant: times any int below 2^16 it stays within an int


def c_expr(expr: isl.AstExpr) -> str:
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        value = expr.get_val().to_python()
        return f"{value}L" if abs(value) > _SMALL else str(value)
    if kind == isl.ast_expr_type.id:
        return expr.get_id().get_name()
    op = expr.get_op_type()
    args = [c_expr(expr.get_op_arg(k)) for k in range(expr.get_op_n_arg())]
    if op in BINARY:
        return f"({args[0]} {BINARY[op]} {args[1]})"
    if op == OP.minus:
        return f"(-{args[0]})"
    if op in (OP.min, OP.max):
        name = "ppcg_min" if op == OP.min else "ppcg_max"
        result = args[0]
        for arg in args[1:]:
            result = f"{name}({result}, {arg})"
        return result
    if op == OP.fdiv_q:
        return f"ppcg_floord({args[0]}, {args[1]})"
    if op in (OP.cond, OP.select):
        return f"({args[0]} ? {args[1]} : {args[2]})"
    if op == OP.call:
        return f"{args[0]}({', '.join(args[1:])})"
    if op == OP.access:
        return args[0] + "".join(f"[{a}]" for a in args[1:])
    if op == OP.member:
        return f"{args[0]}.{args[1]}"
    if op == OP.address_of:
        return f"(&{args[0]})"
    raise ValueError(f"unsupported isl AST operation {op}")


def param_expr(pa: isl.PwAff, context: isl.Set) -> str:
    """C text of an expression of the parameters only, simplified under `context`."""
    context = context.align_params(pa.get_space()).params()
    pa = pa.align_params(context.get_space())
    if not pa.get_domain_space().is_params():
        pa = pa.project_domain_on_params()
    return c_expr(isl.AstBuild.from_context(context).expr_from_pw_aff(pa.gist_params(context).coalesce()))
