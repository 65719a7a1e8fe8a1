"""Calls to functions the file only declares (a logger, `rand`, `memset`, a solver
step of a library): pet's model of a call it cannot see into.

A statement that calls such a function is one statement of the model, printed
as written, and the only place it can run is the host (no device version of
the function exists). Its accesses over-approximate what the callee may do:

- it reads its value arguments, as any expression does;
- through each pointer or array argument it may read and may write the whole
  array the argument points into; only the element, for `&A[i]` passed to a
  parameter declared as a pointer to one scalar (`double *p`, not `double p[]`
  nor `void *`); only reads, for a `const` pointee;
- it may read and write every global variable of the file that the SCoP uses;
- it reads and writes the state hidden behind every such function (static
  variables, the C library's streams, globals the SCoP does not use): one
  variable of the model, `CALL_STATE`, that every such call reads and writes, so
  that the calls keep their order among themselves.

Functions known to be pure (declared `__attribute__((const))` or
`__attribute__((pure))`) touch no hidden state and write nothing: loops around
their calls stay parallel where the dependences allow (the call still runs on
the host). The math library's functions are not in this module at all: they are
expressions every target prints (accesses.PURE_FUNCTIONS).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from .c_walk import Wrapped, nodes_of, replaced

# The hidden state of every declared-only function: a variable of the model alone (a
# reserved C name: no program declares it), never printed, never on the device.
CALL_STATE = "__ppcg_call_state"


@dataclass(frozen=True)
class Parameter:
    """What a call may do through one parameter of a declared-only function."""

    pointer: bool          # a pointer or array parameter
    const: bool = False    # its pointee is const: only read
    one_element: bool = False   # `T *p` with T a scalar type: points to one element


@dataclass(frozen=True)
class ExternalFunction:
    """A function the file declares without a body (and without a PENCIL summary)."""

    name: str
    parameters: tuple[Parameter, ...] | None   # None: unprototyped `f()`; variadic: the fixed ones
    pure: bool = False


def external_functions(ast: c_ast.FileAST, path: str, excluded: frozenset[str]) -> dict[str, ExternalFunction]:
    """The functions declared in the file (its headers included) and defined nowhere in
    it, but those in `excluded` (summarised, or handled by name)."""
    defined = {ext.decl.name for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}
    declared = [ext for ext in ast.ext if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl)]
    pure = _declared_pure(path, {d.name for d in declared if d.name not in defined})
    found: dict[str, ExternalFunction] = {}
    for decl in declared:
        if decl.name in defined or decl.name in excluded or decl.name in found:
            continue
        found[decl.name] = ExternalFunction(decl.name, _parameters(decl.type), decl.name in pure)
    return found


def _parameters(ftype: c_ast.FuncDecl) -> tuple[Parameter, ...] | None:
    if ftype.args is None:
        return None
    params = [p for p in ftype.args.params if not isinstance(p, c_ast.EllipsisParam)]
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) and _is_void(params[0].type):
        return ()
    return tuple(_parameter(p.type) for p in params)


def _parameter(node: c_ast.Node) -> Parameter:
    if isinstance(node, c_ast.ArrayDecl):
        return Parameter(True, const=_const_pointee(node.type))
    if isinstance(node, c_ast.PtrDecl):
        pointee = node.type
        one = isinstance(pointee, c_ast.TypeDecl) and isinstance(pointee.type, c_ast.IdentifierType) \
            and not _is_void(pointee) and "char" not in pointee.type.names
        return Parameter(True, const=_const_pointee(pointee), one_element=one)
    return Parameter(False)


def _const_pointee(node: c_ast.Node) -> bool:
    while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        node = node.type
    return isinstance(node, c_ast.TypeDecl) and "const" in (node.quals or [])


def _is_void(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
        and node.type.names == ["void"]


# The preprocessor defines `__attribute__` away: the attribute is read from the text.
_PURE = re.compile(r"__attribute__\s*\(\s*\(\s*(?:__)?(?:const|pure)(?:__)?\s*\)\s*\)")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _declared_pure(path: str, names: set[str]) -> set[str]:
    """The functions of `names` whose declaration in the file itself carries
    `__attribute__((const))` or `__attribute__((pure))`."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = _COMMENTS.sub(" ", handle.read())
    except OSError:
        return set()
    if "__attribute__" not in text:
        return set()
    pure = set()
    for declaration in re.split(r"[;{}]", text):
        if _PURE.search(declaration):
            pure |= {n for n in names if re.search(rf"\b{re.escape(n)}\s*\(", declaration)}
    return pure


# -- the pointer arguments of a statement's calls ---------------------------------
class PointerArgument(Wrapped):
    """An argument of a call to a declared-only function that designates memory (`A`,
    `A[i]`, `&A[i][j]`, `&s`, `A + k`): no value is read where it is written; the call's
    accesses through it are the module's over-approximation. It lives while the
    builder takes the statement's accesses, then gives way to its expression again."""

    __slots__ = ()


@dataclass(frozen=True)
class MemoryArgument:
    """What one pointer argument may reach: `array` (a scalar: its only element),
    `element` the subscripts of the one element it reaches (None: the whole array)."""

    array: str
    element: tuple[c_ast.Node, ...] | None
    written: bool
    coord: object


def external_calls(node: c_ast.Node, functions: dict[str, ExternalFunction]) -> list[c_ast.FuncCall]:
    """The calls of `node` to declared-only functions, in source order."""
    return [call for call in nodes_of(node, c_ast.FuncCall)
            if isinstance(call.name, c_ast.ID) and call.name.name in functions]


def memory_arguments(calls: list[c_ast.FuncCall], functions: dict[str, ExternalFunction],
                     rank_of) -> list[MemoryArgument]:
    """Wrap, in place, each argument of `calls` that designates memory in a
    `PointerArgument`, and say what the call may reach through it. `rank_of(name)`:
    the number of dimensions of a variable of the SCoP (None: not an array or a
    scalar variable of the SCoP)."""
    found: list[MemoryArgument] = []
    for call in calls:
        function = functions[call.name.name]
        args = call.args.exprs if call.args else []
        for k, arg in enumerate(args):
            declared = function.parameters[k] if function.parameters is not None and \
                k < len(function.parameters) else None
            reach = _reach(arg, declared, rank_of)
            if reach is None:
                continue
            args[k] = PointerArgument(arg, arg.coord)
            found.append(reach)
    return found


def _reach(arg: c_ast.Node, declared: Parameter | None, rank_of) -> MemoryArgument | None:
    written = declared is None or not declared.const
    target, address = arg, False
    if isinstance(target, c_ast.UnaryOp) and target.op == "&":
        target, address = target.expr, True
    elif isinstance(target, c_ast.BinaryOp) and target.op in ("+", "-") and _base(target.left, rank_of):
        target = target.left      # `A + k`: somewhere in A
    subs: list[c_ast.Node] = []
    while isinstance(target, c_ast.ArrayRef):
        subs.append(target.subscript)
        target = target.name
    if not isinstance(target, c_ast.ID):
        return None
    rank = rank_of(target.name)
    if rank is None or (rank == 0 and not address) or len(subs) > rank:
        return None      # a value: the expression's own reads
    if rank and len(subs) == rank and not address:
        return None      # an element's value
    one = address and len(subs) == rank and (rank == 0 or (declared is not None and declared.one_element))
    return MemoryArgument(target.name, tuple(reversed(subs)) if one else None, written, arg.coord)


def _base(node: c_ast.Node, rank_of) -> bool:
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return isinstance(node, c_ast.ID) and bool(rank_of(node.name))


def unwrapped(node: c_ast.Node) -> c_ast.Node:
    """`node` with every `PointerArgument` replaced by its expression (in place)."""
    return replaced(node, {id(p): p.expr for p in nodes_of(node, PointerArgument)})
