"""Rewrite a SCoP's statements into the few forms the builder models.

Works on a deep copy of the region (the parsed file is left alone):

- Declarations inside the SCoP (`double t = A[i] * 2;`) become a `Declaration`
  marker, where the local's life starts (the builder makes it a kill), and an
  assignment of the initialiser. A *local* is a variable of one iteration of
  the loops around its declaration. Each local gets a name unique in the function (`t`, or `t_1`
  when `t` is taken, e.g. by a variable it shadows or by a sibling block's own
  `t`), and every use in its scope is renamed, so later stages see one variable
  per declaration and C's block scoping is resolved here once.
- A label of an expression statement (`S1: A[i] = 0;`) becomes a `StatementLabel`
  marker before it: it names the statement the builder makes of it (the dumps show
  it). A label of a loop, block, branch or empty statement names no statement and
  is dropped. A label is only a target of `goto`, and no `goto` may reach into a
  SCoP (regions.py), so dropping it changes nothing.
- Chained assignments (`a = b = c;`, PolyBench's deriche has `a1 = a5 = k;`)
  and comma lists (`a = 1, b = 2;`) become one statement per assignment, in
  C's order: `b = c; a = b;`. Reading `b` back gives exactly the value C
  assigns to `a` (the value of `b` after the assignment, converted).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import CompileError
from ..names import fresh_name
from .c_walk import variable_ids


@dataclass(frozen=True)
class Local:
    """A scalar declared inside the SCoP."""

    name: str              # unique in the function
    source_name: str       # as written
    decl: c_ast.Decl       # for its type and location
    depth: int             # number of SCoP loops around the declaration


class Marker(c_ast.Node):
    """A named mark between the statements of the normalised SCoP (no C of its own)."""

    __slots__ = ("name", "coord", "__weakref__")
    attr_names = ("name",)

    def __init__(self, name: str, coord=None) -> None:
        self.name = name
        self.coord = coord

    def children(self) -> tuple:
        return ()

    def __iter__(self):
        return iter(())


class Declaration(Marker):
    """Where a local's life starts: no value written before it is read after it."""

    __slots__ = ()


class StatementLabel(Marker):
    """A label of the source: it names the statement that follows it."""

    __slots__ = ()


@dataclass(frozen=True)
class Normalized:
    items: tuple[c_ast.Node, ...]
    locals: dict[str, Local]


def normalize(items: tuple[c_ast.Node, ...], reserved: set[str], unique: frozenset[str] = frozenset()) -> Normalized:
    """The region's statements in normal form, with the locals they declare.

    `reserved` holds the names visible at the SCoP and its loop iterators: a
    local never takes one of them. `unique`: locals already named apart from every
    other name of the function (the inlined calls' `v_1`): they keep their names,
    and no other local takes one (fuzz 2620:180, an inlined `int v_1` in a `while`
    body beside a second SCoP local `v` renamed `v_1`).
    """
    rewriter = _Rewriter(set(reserved) | set(unique), unique)
    body = rewriter.block(list(copy.deepcopy(items)), [{}], 0)
    return Normalized(tuple(body), rewriter.locals)


class _Rewriter:
    def __init__(self, reserved: set[str], unique: frozenset[str] = frozenset()) -> None:
        self.taken = reserved
        self.unique = unique
        self.locals: dict[str, Local] = {}

    # -- statements ---------------------------------------------------------
    def block(self, items: list[c_ast.Node], scopes: list[dict[str, str]], depth: int) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        for item in items:
            out.extend(self.statement(item, scopes, depth))
        return out

    def statement(self, node: c_ast.Node, scopes: list[dict[str, str]], depth: int) -> list[c_ast.Node]:
        if isinstance(node, c_ast.Decl):
            return self.declaration(node, scopes, depth)
        if isinstance(node, c_ast.DeclList):
            return [s for decl in node.decls for s in self.declaration(decl, scopes, depth)]
        if isinstance(node, c_ast.Compound):
            return [c_ast.Compound(self.block(list(node.block_items or []), scopes + [{}], depth), node.coord)]
        if isinstance(node, c_ast.For):
            return [self.loop(node, scopes, depth)]
        if isinstance(node, c_ast.If):
            self.rename(node.cond, scopes)
            node.iftrue = self.single(node.iftrue, scopes, depth)
            if node.iffalse is not None:
                node.iffalse = self.single(node.iffalse, scopes, depth)
            return [node]
        if isinstance(node, c_ast.Label):
            named = not isinstance(node.stmt, (c_ast.Compound, c_ast.For, c_ast.If, c_ast.While, c_ast.DoWhile,
                                               c_ast.Switch, c_ast.EmptyStatement, c_ast.Decl, c_ast.DeclList))
            return [StatementLabel(node.name, node.coord)] * named + self.statement(node.stmt, scopes, depth)
        if isinstance(node, c_ast.ExprList):
            return [s for expr in node.exprs for s in self.statement(expr, scopes, depth)]
        self.rename(node, scopes)
        if isinstance(node, c_ast.Assignment):
            return split_chain(node)
        return [node]

    def single(self, node: c_ast.Node, scopes: list[dict[str, str]], depth: int) -> c_ast.Node:
        """A statement that must stay one node (a loop or branch body)."""
        parts = self.statement(node, scopes + [{}], depth)
        if len(parts) == 1:
            return parts[0]
        return c_ast.Compound(parts, node.coord)

    def loop(self, node: c_ast.For, scopes: list[dict[str, str]], depth: int) -> c_ast.For:
        inner = scopes + [{}]
        if isinstance(node.init, c_ast.DeclList):
            for decl in node.init.decls:
                if decl.init is not None:
                    self.rename(decl.init, scopes)
                inner[-1][decl.name] = decl.name  # the iterator hides outer locals
        elif node.init is not None:
            self.rename(node.init, scopes)
        for part in (node.cond, node.next):
            if part is not None:
                self.rename(part, inner)
        node.stmt = self.single(node.stmt, inner, depth + 1)
        return node

    def declaration(self, decl: c_ast.Decl, scopes: list[dict[str, str]], depth: int) -> list[c_ast.Node]:
        if decl.name is None or isinstance(decl.type, c_ast.FuncDecl):
            raise CompileError.at(decl.coord, "declaration inside a SCoP that declares no variable")
        if "static" in decl.storage or "extern" in decl.storage:
            raise CompileError.at(decl.coord, f"'{' '.join(decl.storage)}' declaration of '{decl.name}' "
                                  "inside a SCoP (only automatic scalars can be declared there)")
        if isinstance(decl.type, c_ast.PtrDecl):
            raise CompileError.at(decl.coord, f"pointer '{decl.name}' declared inside a SCoP "
                                  "(declare it before #pragma scop)")
        if isinstance(decl.init, c_ast.InitList):
            what = "array" if isinstance(decl.type, c_ast.ArrayDecl) else "scalar"
            raise CompileError.at(decl.coord, f"brace initialiser for {what} '{decl.name}'")
        if decl.init is not None:
            self.rename(decl.init, scopes)  # the initialiser sees the outer names
        unique = decl.name if decl.name in self.unique else self.fresh(decl.name)
        scopes[-1][decl.name] = unique
        self.locals[unique] = Local(unique, decl.name, decl, depth)
        start: list[c_ast.Node] = [Declaration(unique, decl.coord)]
        if decl.init is None:
            return start
        target = c_ast.ID(unique, decl.coord)
        return start + split_chain(c_ast.Assignment("=", target, decl.init, decl.coord))

    def fresh(self, name: str) -> str:
        return fresh_name(name, self.taken)

    # -- expressions --------------------------------------------------------
    def rename(self, node: c_ast.Node, scopes: list[dict[str, str]]) -> None:
        """Give every identifier the unique name of the declaration it refers to."""
        for ident in variable_ids(node):
            for scope in reversed(scopes):
                if ident.name in scope:
                    ident.name = scope[ident.name]
                    break


def split_chain(node: c_ast.Assignment) -> list[c_ast.Node]:
    """`a = b = c` -> [`b = c`, `a = b`]; any depth, any assignment operators."""
    if not isinstance(node.rvalue, c_ast.Assignment):
        return [node]
    inner = split_chain(node.rvalue)
    value = copy.deepcopy(node.rvalue.lvalue)
    return inner + [c_ast.Assignment(node.op, node.lvalue, value, node.coord)]
