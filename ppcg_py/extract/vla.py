"""Whether a file declares variable-length array parameters.

C++ (and so nvcc's host compilation) rejects them: such a file keeps its host
code in C, and the device work moves behind an `extern "C"` function.
"""
from __future__ import annotations

from pycparser import c_ast


def has_vla_parameters(ast: c_ast.FileAST) -> bool:
    for ext in ast.ext:
        decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.FuncDecl) and decl.type.args:
            if any(_variable_extent(p.type) for p in decl.type.args.params if isinstance(p, c_ast.Decl)):
                return True
    return False


def _variable_extent(node: c_ast.Node) -> bool:
    while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(node, c_ast.ArrayDecl) and node.dim is not None and not _constant(node.dim):
            return True
        node = node.type
    return False


def _constant(expr: c_ast.Node) -> bool:
    if isinstance(expr, c_ast.Constant):
        return True
    if isinstance(expr, c_ast.BinaryOp):
        return _constant(expr.left) and _constant(expr.right)
    if isinstance(expr, c_ast.UnaryOp) and expr.op in ("-", "+", "sizeof"):
        return expr.op == "sizeof" or _constant(expr.expr)
    if isinstance(expr, c_ast.Cast):
        return _constant(expr.expr)
    return False
