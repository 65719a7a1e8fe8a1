"""The walks over pycparser's AST that the front end shares.

Most of them must not take the callee of a call for a variable: `sqrt` in
`sqrt(x)` is an `ID` node too. `OperandVisitor` is the walk that does not
descend into a call's name; the collectors below build on it or on
pycparser's plain `NodeVisitor`. Every walk is pre-order, in source order.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

# The loop iterator a `for` node declares or assigns, or None (see builder._loop_init).
LoopIterator = Callable[[c_ast.For], str | None]


class OperandVisitor(c_ast.NodeVisitor):
    """A walk that skips the callee name of each call: only its arguments are operands."""

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        if node.args is not None:
            self.visit(node.args)


class _Ids(OperandVisitor):
    def __init__(self) -> None:
        self.found: list[c_ast.ID] = []

    def visit_ID(self, node: c_ast.ID) -> None:
        self.found.append(node)


class _VariableIds(_Ids):
    def visit_StructRef(self, node: c_ast.StructRef) -> None:
        self.visit(node.name)   # `.field` names a member, not a variable


def operand_ids(node: c_ast.Node) -> list[c_ast.ID]:
    """Every identifier of `node` but the callees of calls, in source order."""
    walk = _Ids()
    walk.visit(node)
    return walk.found


def variable_ids(node: c_ast.Node) -> list[c_ast.ID]:
    """Like `operand_ids`, without the member names of struct accesses (`s.x`: only `s`)."""
    walk = _VariableIds()
    walk.visit(node)
    return walk.found


class NameScan(OperandVisitor):
    """What a SCoP's names are used for: loop iterators, scalars written, and every use
    with its location in source order (the order of first uses is the parameter order)."""

    def __init__(self, loop_iterator: LoopIterator) -> None:
        self.loop_iterator = loop_iterator
        self.iterators: set[str] = set()
        self.written: set[str] = set()
        self.used: list[tuple[str, object]] = []   # name, coord

    def visit_For(self, node: c_ast.For) -> None:
        it = self.loop_iterator(node)
        if it is not None:
            self.iterators.add(it)
        self.generic_visit(node)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        if isinstance(node.lvalue, c_ast.ID):
            self.written.add(node.lvalue.name)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        # `&s` is an argument of a call that may write s (a summarised or declared-only function)
        if node.op in ("p++", "p--", "++", "--", "&") and isinstance(node.expr, c_ast.ID):
            self.written.add(node.expr.name)
        self.generic_visit(node)

    def visit_ID(self, node: c_ast.ID) -> None:
        self.used.append((node.name, node.coord))


class _Names(c_ast.NodeVisitor):
    def __init__(self, declarations: bool) -> None:
        self.declarations = declarations
        self.names: set[str] = set()

    def visit_ID(self, node: c_ast.ID) -> None:
        self.names.add(node.name)

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if self.declarations and node.name:
            self.names.add(node.name)
        self.generic_visit(node)


def identifier_names(node: c_ast.Node) -> set[str]:
    """The names of every identifier of `node`, callees of calls included."""
    walk = _Names(declarations=False)
    walk.visit(node)
    return walk.names


def all_names(node: c_ast.Node) -> set[str]:
    """Every name `node` uses or declares: what a new name must not take."""
    walk = _Names(declarations=True)
    walk.visit(node)
    return walk.names


class _Nodes(c_ast.NodeVisitor):
    def __init__(self, kinds: tuple[type[c_ast.Node], ...]) -> None:
        self.kinds = kinds
        self.found: list[c_ast.Node] = []

    def generic_visit(self, node: c_ast.Node) -> None:
        if isinstance(node, self.kinds):
            self.found.append(node)
        super().generic_visit(node)


def nodes_of(node: c_ast.Node, *kinds: type[c_ast.Node]) -> list[c_ast.Node]:
    """The nodes of these types in `node` (itself included), in source order."""
    walk = _Nodes(kinds)
    walk.visit(node)
    return walk.found


class _TypeWords(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.words: list[str] = []

    def visit_IdentifierType(self, node: c_ast.IdentifierType) -> None:
        self.words.extend(node.names)

    def visit_PtrDecl(self, node: c_ast.PtrDecl) -> None:
        self.words.append("pointer")   # what it points to is not the type's kind


def type_words(node: c_ast.Node) -> list[str]:
    """The words of a type name (`unsigned int`), "pointer" for a pointer."""
    walk = _TypeWords()
    walk.visit(node)
    return walk.words


def replaced(node: c_ast.Node, new: dict[int, c_ast.Node]) -> c_ast.Node:
    """`node` with each node whose id is a key of `new` (that very object, not an equal
    one) replaced by its value, in place; what replaces a node is not searched."""
    if id(node) in new:
        return new[id(node)]
    for attr in node.__slots__:
        if attr in ("coord", "__weakref__") or not hasattr(node, attr):
            continue
        value = getattr(node, attr)
        if isinstance(value, c_ast.Node):
            setattr(node, attr, replaced(value, new))
        elif isinstance(value, list):
            setattr(node, attr, [replaced(v, new) if isinstance(v, c_ast.Node) else v for v in value])
    return node


class Wrapped(c_ast.Node):
    """A node of the front end's own that marks one expression (`expr`) for a later
    walk: walks see the expression as its only child."""

    __slots__ = ("expr", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, expr: c_ast.Node, coord=None) -> None:
        self.expr, self.coord = expr, coord

    def children(self) -> tuple:
        return (("expr", self.expr),)

    def __iter__(self):
        yield self.expr

