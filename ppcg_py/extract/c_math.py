"""The C type of statement expressions, and C's double math kept on every target.

C evaluates `sqrt(x)` in double even when `x` is a float, and so does the
arithmetic around it: in `A[i] -= fabs(B[i]) - 1` with float arrays, the
subtraction is done in double and rounded once. CUDA compiles as C++, whose
overloads pick `float fabs(float)` instead, so a call copied verbatim would
round after every operation (fuzz 4242:86 drifted by 1e-4 over a recurrence).
So a double math call's float or int arguments get C's conversion written out:
`fabs(j)` becomes `fabs((double) j)`, `fmax(f, 0.3)` becomes `fmax((double) f, 0.3)`.

The float variant (`sqrtf`, `fabsf`, ...) is used only where it gives the very
value C computes: the call's result is converted to float at once (the whole
right-hand side of `=` to a float, a `(float)` cast, an argument of a float
call), all its arguments are float, and the function is exact or correctly
rounded (`sqrt`, `fabs`, `floor`, ...), so that rounding the double result to
float equals computing in float.
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
# Exact or correctly rounded in both precisions: float(f((double) x)) == ff(x) for float x
# (for sqrt, a double rounding from 53 to 24 bits is innocuous).
SAME_IN_FLOAT = frozenset({"sqrt", "fabs", "floor", "ceil", "trunc", "round", "fmin", "fmax",
                           "fmod", "copysign"})
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
    """Make, in place, every math call compute what C computes, on every target: float
    variants where they give C's value, C's conversions to double written out elsewhere."""
    _FloatMath(type_of, cast_kind).visit(node)


class _FloatMath(OperandVisitor):
    def __init__(self, type_of: TypeOf, cast_kind: CastKind) -> None:
        self.type_of, self.cast_kind = type_of, cast_kind
        self.narrowed: set[int] = set()     # ids of calls whose value C converts to float at once

    def _kind(self, node: c_ast.Node) -> str:
        return expression_kind(node, self.type_of, self.cast_kind)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        if node.op == "=" and self._kind(node.lvalue) == "float":
            self.narrowed.add(id(node.rvalue))
        self.generic_visit(node)

    def visit_Cast(self, node: c_ast.Cast) -> None:
        if self.cast_kind(node.to_type) == "float":
            self.narrowed.add(id(node.expr))
        self.generic_visit(node)

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        name = node.name.name if isinstance(node.name, c_ast.ID) else ""
        args = node.args.exprs if node.args else []
        if name in FLOAT_RESULT:        # its parameters are float
            self.narrowed.update(id(arg) for arg in args)
        super().visit_FuncCall(node)    # the arguments first: a float call inside makes a float argument
        variant = FLOAT_VARIANT.get(name)
        if variant is None or not args:
            return
        kinds = [self._kind(arg) for arg in args]
        if (name in SAME_IN_FLOAT and id(node) in self.narrowed
                and "double" not in kinds and "float" in kinds):
            node.name = c_ast.ID(variant, node.name.coord)
            return
        # C converts an int or float argument to double; CUDA's C++ overloads would instead
        # pick the float function, or a host-only template (`fabs(int)` and
        # `fmax(float, double)` do not compile in a kernel)
        for k, (arg, arg_kind) in enumerate(zip(args, kinds)):
            if arg_kind != "double":
                args[k] = _to_double(arg)


def _to_double(node: c_ast.Node) -> c_ast.Cast:
    double = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["double"]))
    return c_ast.Cast(c_ast.Typename(None, [], None, double), node, node.coord)
