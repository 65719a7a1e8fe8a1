"""Print isl AST expressions as C (the nodes come from `ppcg_py.isl_c`)."""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from ..isl_c import c_node


def c_expr(expr: isl.AstExpr) -> str:
    """An isl AST expression as C text."""
    from .printer import c_text
    return c_text(c_node(expr))


def param_node(pa: isl.PwAff, context: isl.Set) -> c_ast.Node:
    """An expression of the parameters only, simplified under `context`."""
    context = context.align_params(pa.get_space()).params()
    pa = pa.align_params(context.get_space())
    if not pa.get_domain_space().is_params():
        pa = pa.project_domain_on_params()
    return c_node(isl.AstBuild.from_context(context).expr_from_pw_aff(pa.gist_params(context).coalesce()))


def param_expr(pa: isl.PwAff, context: isl.Set) -> str:
    """C text of an expression of the parameters only, simplified under `context`."""
    from .printer import c_text
    return c_text(param_node(pa, context))
