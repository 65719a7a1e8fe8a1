"""The C type of statement expressions, and single-precision math on the device.

C evaluates `sqrt(x)` in double even when `x` is a float; on a GPU that is the
slow path (and PPCG copies the call verbatim). When every argument of a math
call has type float after C's usual arithmetic conversions (int arguments
convert to float next to a float one, a double literal such as `2.0` keeps
the call in double), the call is renamed to its float variant: `sqrt` ->
`sqrtf`, `exp` -> `expf`, `pow` -> `powf`, `fabs` -> `fabsf`, ... The float
call's result is float, so an enclosing call over it can become float too.
This follows what CUDA programmers write; the results differ from C's double
evaluation only in float rounding. An int or float argument of a double math call
gets C's conversion written out: `fabs(j)` becomes `fabs((double) j)`, `fmax(f, 0.3)`
becomes `fmax((double) f, 0.3)`.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from .c_walk import OperandVisitor, type_words

FLOAT_VARIANT = {name: name + "f" for name in (
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs", "floor", "ceil",
    "trunc", "round", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "fmod", "fmin", "fmax", "hypot", "cbrt", "erf", "erfc", "copysign", "fdim", "fma")}
DOUBLE_RESULT = frozenset(FLOAT_VARIANT)
FLOAT_RESULT = frozenset(FLOAT_VARIANT.values())
INT_RESULT = frozenset({"abs", "min", "max"})
_RANK = {"int": 0, "float": 1, "double": 2}
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||"})

# 'int' | 'float' | 'double' of a variable, from its name.
TypeOf = Callable[[str], str]
# ... of a cast's type name (typedefs resolved by the caller).
CastKind = Callable[[c_ast.Typename], str]


def arithmetic_kind(c_type: str) -> str:
    """'int', 'float' or 'double' for a C arithmetic type name."""
    words = c_type.split()
    if "double" in words:
        return "double"
    if "float" in words:
        return "float"
    return "int"


def _join(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def default_cast_kind(typename: c_ast.Typename) -> str:
    return arithmetic_kind(" ".join(type_words(typename)))


def expression_kind(node: c_ast.Node, type_of: TypeOf, cast_kind: CastKind = default_cast_kind) -> str:
    """The arithmetic type of an expression (C's usual conversions)."""
    def kind(child: c_ast.Node) -> str:
        return expression_kind(child, type_of, cast_kind)

    if isinstance(node, c_ast.Constant):
        if node.type in ("float", "double", "long double"):
            return "double" if node.type != "float" else "float"
        return "int"
    if isinstance(node, c_ast.ID):
        return type_of(node.name)
    if isinstance(node, c_ast.ArrayRef):
        base: c_ast.Node = node
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        return type_of(base.name) if isinstance(base, c_ast.ID) else "double"
    if isinstance(node, c_ast.Cast):
        return cast_kind(node.to_type)
    if isinstance(node, c_ast.UnaryOp):
        return "int" if node.op in ("!", "sizeof") else kind(node.expr)
    if isinstance(node, c_ast.BinaryOp):
        if node.op in _COMPARISONS:
            return "int"
        return _join(kind(node.left), kind(node.right))
    if isinstance(node, c_ast.TernaryOp):
        return _join(kind(node.iftrue), kind(node.iffalse))
    if isinstance(node, c_ast.Assignment):
        return kind(node.lvalue)
    if isinstance(node, c_ast.FuncCall):
        name = node.name.name if isinstance(node.name, c_ast.ID) else ""
        args = node.args.exprs if node.args else []
        if name in FLOAT_RESULT:
            return "float"
        if name in INT_RESULT:
            result = "int"
            for arg in args:
                result = _join(result, kind(arg))
            return result
        return "double"
    return "double"


def use_float_math(node: c_ast.Node, type_of: TypeOf, cast_kind: CastKind = default_cast_kind) -> None:
    """Rename, in place and innermost first, math calls whose arguments are all float."""
    _FloatMath(type_of, cast_kind).visit(node)


class _FloatMath(OperandVisitor):
    def __init__(self, type_of: TypeOf, cast_kind: CastKind) -> None:
        self.type_of, self.cast_kind = type_of, cast_kind

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        super().visit_FuncCall(node)    # the arguments first: a float call inside makes a float argument
        if not isinstance(node.name, c_ast.ID):
            return
        variant = FLOAT_VARIANT.get(node.name.name)
        args = node.args.exprs if node.args else []
        if variant is None or not args:
            return
        kinds = [expression_kind(arg, self.type_of, self.cast_kind) for arg in args]
        if "double" not in kinds and "float" in kinds:
            node.name = c_ast.ID(variant, node.name.coord)
        elif node.name.name in DOUBLE_RESULT:
            # C converts an int (or, next to a double, a float) argument to double; CUDA's
            # C++ overloads would instead pick a host-only template (`fabs(int)` and
            # `fmax(float, double)` do not compile in a kernel)
            for k, (arg, arg_kind) in enumerate(zip(args, kinds)):
                if arg_kind != "double":
                    args[k] = _to_double(arg)


def _to_double(node: c_ast.Node) -> c_ast.Cast:
    double = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["double"]))
    return c_ast.Cast(c_ast.Typename(None, [], None, double), node, node.coord)
