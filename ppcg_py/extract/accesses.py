"""Accesses of one statement: which array elements it reads and writes.

The statement subset: an assignment (`=`, `op=`) or `++`/`--` whose left side is
an array element or a scalar; right sides built from arithmetic, comparisons,
the ternary operator, casts and calls of pure math functions.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import CompileError
from .affine import AFFINE_CALLS
from .c_walk import replaced
from .external import PointerArgument
from .model import Reference
from .normalize import Marker

PURE_FUNCTIONS = frozenset({
    "sqrt", "sqrtf", "exp", "expf", "pow", "powf", "fabs", "fabsf", "abs",
    "floor", "floorf", "ceil", "ceilf", "log", "logf", "log2", "log2f", "log10", "log10f",
    "sin", "sinf", "cos", "cosf", "tan", "tanf", "tanh", "tanhf", "atan", "atanf",
    "exp2", "exp2f", "fmin", "fminf", "fmax", "fmaxf", "fmod", "fmodf", "round", "roundf",
    "min", "max", "cbrt", "cbrtf", "erf", "erff", "hypot", "hypotf", "atan2", "atan2f",
})
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})


@dataclass(frozen=True)
class RawAccess:
    """A reference before it becomes an isl map: array name and C subscripts."""

    array: str
    subscripts: tuple[c_ast.Node, ...]
    is_read: bool
    is_write: bool
    ref: c_ast.Node


def statement_accesses(stmt: c_ast.Node, kind_of) -> list[RawAccess]:
    """The references of one statement, in source order (the write first).

    `kind_of(name)` classifies an identifier as 'iterator', 'param', 'scalar'
    (read-only, passed by value), 'cell' (written scalar), 'array' or None, and
    the callee of a call as 'external' when the file only declares it.
    """
    if isinstance(stmt, c_ast.Assignment):
        if stmt.op not in ASSIGN_OPS:
            raise CompileError.at(stmt.coord, f"unsupported assignment operator '{stmt.op}'")
        target = _lvalue(stmt.lvalue, kind_of, read_too=stmt.op != "=")
        return target + _reads(stmt.rvalue, kind_of)
    if isinstance(stmt, c_ast.UnaryOp) and stmt.op in ("p++", "p--", "++", "--"):
        return _lvalue(stmt.expr, kind_of, read_too=True)
    if isinstance(stmt, c_ast.FuncCall):
        if kind_of(_callee(stmt)) == "external":   # a declared-only function (external.py)
            return _reads(stmt, kind_of)
        raise CompileError.at(stmt.coord, f"{_call_words(stmt)} as a statement (only assignments and "
                              "calls to functions defined in this file are allowed in a SCoP)")
    raise CompileError.at(getattr(stmt, "coord", None),
                          f"unsupported statement in SCoP ({_describe_kind(stmt)})")


def construct_accesses(node: c_ast.Node, kind_of) -> list[RawAccess]:
    """The references of a construct of dynamic control (an `if` on data, a `while`
    loop, a loop with `break`), in source order: those of its conditions, loop
    headers and statements. Names `kind_of` calls 'private' (the construct's own
    loop iterators and locals) are C variables of the construct: no access."""
    if node is None or isinstance(node, (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Pragma,
                                         Marker)):
        return []
    if isinstance(node, c_ast.Compound):
        return [a for item in node.block_items or [] for a in construct_accesses(item, kind_of)]
    if isinstance(node, c_ast.If):
        return (_reads(node.cond, kind_of) + construct_accesses(node.iftrue, kind_of)
                + construct_accesses(node.iffalse, kind_of))
    if isinstance(node, c_ast.While):
        return _reads(node.cond, kind_of) + construct_accesses(node.stmt, kind_of)
    if isinstance(node, c_ast.DoWhile):
        return construct_accesses(node.stmt, kind_of) + _reads(node.cond, kind_of)
    if isinstance(node, c_ast.For):
        init = node.init
        if isinstance(init, c_ast.DeclList):
            heads = [a for d in init.decls for a in _reads(d.init, kind_of)]
        else:
            heads = construct_accesses(init, kind_of) if init is not None else []
        return (heads + _reads(node.cond, kind_of) + construct_accesses(node.stmt, kind_of)
                + (construct_accesses(node.next, kind_of) if node.next is not None else []))
    if isinstance(node, c_ast.ExprList):
        return [a for e in node.exprs for a in construct_accesses(e, kind_of)]
    if isinstance(node, c_ast.DeclList):
        return [a for d in node.decls for a in construct_accesses(d, kind_of)]
    if isinstance(node, c_ast.Decl):    # a local of the construct (kind 'private'): its initialiser's reads
        return _reads(node.init, kind_of) if node.init is not None else []
    return statement_accesses(node, kind_of)


def expression_reads(node: c_ast.Node, kind_of) -> list[RawAccess]:
    """The references an expression reads (as on the right side of an assignment)."""
    return _reads(node, kind_of)


def tag_references(node: c_ast.Node, tags: list[tuple[c_ast.Node, str]]) -> c_ast.Node:
    """`node` with each reference node of `tags` (the same object, not an equal one)
    replaced by a `Reference` carrying its tag; changed in place."""
    return replaced(node, {id(original): Reference(tag, original.coord) for original, tag in tags})


def _lvalue(node: c_ast.Node, kind_of, *, read_too: bool) -> list[RawAccess]:
    if isinstance(node, c_ast.ID):
        kind = kind_of(node.name)
        if kind == "iterator":
            raise CompileError.at(node.coord, f"loop iterator '{node.name}' is written inside its loop")
        if kind == "private":
            return []
        if kind in ("cell", "array"):
            if kind == "array":
                raise CompileError.at(node.coord, f"assignment to array '{node.name}' as a whole")
            return [RawAccess(node.name, (), read_too, True, node)]
        raise CompileError.at(node.coord, f"assignment to '{node.name}', which is not a SCoP variable")
    if isinstance(node, c_ast.ArrayRef):
        name, subs = _array_ref(node, kind_of)
        extra = [a for s in subs for a in _reads(s, kind_of, subscript=True)]
        return [RawAccess(name, subs, read_too, True, node)] + extra
    if isinstance(node, c_ast.UnaryOp) and node.op == "*":
        raise CompileError.at(node.coord, "pointer operation '*' in a SCoP (use array subscripts)")
    raise CompileError.at(getattr(node, "coord", None),
                          f"unsupported assignment target ({_describe_kind(node)})")


def _reads(node: c_ast.Node | None, kind_of, *, subscript: bool = False) -> list[RawAccess]:
    """The references read by an expression. In a subscript (`subscript=True`),
    min/max/floord/ceild are allowed too: the subscript is reprinted from isl."""
    if node is None or isinstance(node, (c_ast.Constant, PointerArgument)):
        return []     # a pointer argument's accesses are the call's (external.py)
    if isinstance(node, c_ast.ID):
        kind = kind_of(node.name)
        if kind == "cell":
            return [RawAccess(node.name, (), True, False, node)]
        if kind == "array":
            raise CompileError.at(node.coord, f"array '{node.name}' used without subscripts "
                                  "(pointer arithmetic is not supported)")
        if kind is None:
            raise CompileError.at(node.coord, f"use of undeclared identifier '{node.name}'")
        return []
    if isinstance(node, c_ast.ArrayRef):
        name, subs = _array_ref(node, kind_of)
        return [RawAccess(name, subs, True, False, node)] + [a for s in subs
                                                              for a in _reads(s, kind_of, subscript=True)]
    if isinstance(node, c_ast.FuncCall):
        name = _callee(node)
        if name and not subscript and kind_of(name) == "external":
            return [a for arg in (node.args.exprs if node.args else []) for a in _reads(arg, kind_of)]
        if name not in PURE_FUNCTIONS and not (subscript and name in AFFINE_CALLS) and kind_of(name) is not None:
            raise CompileError.at(node.coord, f"call through the function pointer '{name}' (its target is not "
                                  "known: call the function by its name)")
        if name not in PURE_FUNCTIONS and not (subscript and name in AFFINE_CALLS):
            raise CompileError.at(node.coord, f"{_call_words(node)}, which may have side effects "
                                  "(only pure math functions and functions defined in this file "
                                  "can be called in a SCoP)")
        args = node.args.exprs if node.args else []
        return [a for arg in args for a in _reads(arg, kind_of, subscript=subscript)]
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("&", "*"):
            raise CompileError.at(node.coord, f"pointer operation '{node.op}' in a SCoP")
        if node.op in ("p++", "p--", "++", "--"):
            raise CompileError.at(node.coord, "increment inside an expression (side effect)")
        if node.op == "sizeof":
            return []
        return _reads(node.expr, kind_of, subscript=subscript)
    if isinstance(node, c_ast.BinaryOp):
        return _reads(node.left, kind_of, subscript=subscript) + _reads(node.right, kind_of, subscript=subscript)
    if isinstance(node, c_ast.TernaryOp):
        return [a for part in (node.cond, node.iftrue, node.iffalse)
                for a in _reads(part, kind_of, subscript=subscript)]
    if isinstance(node, c_ast.Cast):
        return _reads(node.expr, kind_of, subscript=subscript)
    if isinstance(node, c_ast.Assignment):
        raise CompileError.at(node.coord, "assignment inside an expression (side effect)")
    raise CompileError.at(getattr(node, "coord", None),
                          f"unsupported expression in SCoP ({_describe_kind(node)})")


def _array_ref(node: c_ast.ArrayRef, kind_of) -> tuple[str, tuple[c_ast.Node, ...]]:
    subs: list[c_ast.Node] = []
    base: c_ast.Node = node
    while isinstance(base, c_ast.ArrayRef):
        subs.append(base.subscript)
        base = base.name
    if not isinstance(base, c_ast.ID):
        raise CompileError.at(node.coord, f"unsupported array base ({_describe_kind(base)})")
    if kind_of(base.name) != "array":
        what = "undeclared identifier" if kind_of(base.name) is None else "a non-array"
        raise CompileError.at(base.coord, f"subscript of {what} '{base.name}'")
    return base.name, tuple(reversed(subs))


def _callee(node: c_ast.FuncCall) -> str:
    return node.name.name if isinstance(node.name, c_ast.ID) else ""


def _call_words(node: c_ast.FuncCall) -> str:
    name = _callee(node)
    return f"call to '{name}'" if name else "call through a function pointer"


def _describe_kind(node: c_ast.Node) -> str:
    names = {"StructRef": "struct member access", "FuncCall": "function call",
             "Return": "return", "Break": "break", "Continue": "continue", "Goto": "goto",
             "While": "while loop", "DoWhile": "do-while loop", "Switch": "switch",
             "Label": "label", "Decl": "declaration", "Compound": "block",
             "ExprList": "comma operator", "CompoundLiteral": "compound literal",
             "InitList": "initialiser list"}
    return names.get(type(node).__name__, type(node).__name__)
