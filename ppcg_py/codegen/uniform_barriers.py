"""A kernel's barriers out of the conditions around them (OpenCL).

isl's AST puts a kernel's barriers where its copies are, often inside an `if` on the
block's ids, the parameters and the loops around: `if (b1 <= 4 && c0 >= 48 * b0 + 2)
{ barrier; loads; barrier; statements; barrier; stores }`. Such a condition is the same
for every work-item of a group, so the code is valid OpenCL (and CUDA), but PoCL's
pthread device miscompiles some of them: fuzz 2980:8 corrupted the heap, 2980:121
computed wrong values, and the same kernels with the barriers outside the condition ran
right. So each such `if`, where its branch holds barriers at its top level only, becomes
the condition kept in a variable, then the pieces between the barriers each under it,
the barriers between them unconditional:

    int ppcg_uniform0 = (cond);
    if (ppcg_uniform0) { loads }
    barrier(...);
    if (ppcg_uniform0) { statements }

The same instances run in the same order; every work-item now meets every barrier,
which it did before too (the condition is uniform). Inner `if`s first, so that their
barriers reach the level of the `if` around them (their flags are then declared before
it and set in its piece). Left as they are: a condition that
names a work-item id (not uniform), an `if` with an `else`, a barrier inside a loop
of the branch (the loop's bounds may hold only where the condition does), and a branch
that declares a variable at its top level (the pieces would not see it).
"""
from __future__ import annotations

import itertools

from pycparser import c_ast

from ..extract.c_walk import identifier_names

__all__ = ["barriers_out_of_conditions"]


def barriers_out_of_conditions(statements: list[c_ast.Node], local_ids: frozenset[str]) -> list[c_ast.Node]:
    """`statements` (a kernel's body) with the barriers of uniform `if`s taken out."""
    return _Hoist(local_ids).block(statements)


class _Hoist:
    def __init__(self, local_ids: frozenset[str]) -> None:
        self.local_ids = local_ids
        self.names = (f"ppcg_uniform{k}" for k in itertools.count())
        self.flags: set[str] = set()

    def block(self, statements: list[c_ast.Node]) -> list[c_ast.Node]:
        out: list[c_ast.Node] = []
        for node in statements:
            out += self.statement(node)
        return out

    def statement(self, node: c_ast.Node) -> list[c_ast.Node]:
        if isinstance(node, c_ast.Compound):
            return [c_ast.Compound(self.block(node.block_items or []))]
        if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            node.stmt = _compound(self.statement(node.stmt))
            return [node]
        if not isinstance(node, c_ast.If):
            return [node]
        node.iftrue = _compound(self.statement(node.iftrue))
        if node.iffalse is not None:
            node.iffalse = _compound(self.statement(node.iffalse))
            return [node]
        body = (node.iftrue.block_items or []) if isinstance(node.iftrue, c_ast.Compound) else [node.iftrue]
        if not any(_is_barrier(s) for s in body) or identifier_names(node.cond) & self.local_ids or \
                any((isinstance(s, c_ast.Decl) and s.name not in self.flags) or
                    (not _is_barrier(s) and _holds_barrier(s)) for s in body):
            return [node]
        name = next(self.names)
        self.flags.add(name)
        out: list[c_ast.Node] = [_flag(name, node.cond)]
        piece: list[c_ast.Node] = []
        for s in body + [None]:
            if s is None or _is_barrier(s):
                if piece:
                    out.append(c_ast.If(c_ast.ID(name), c_ast.Compound(piece), None))
                piece = []
                if s is not None:
                    out.append(s)
            elif isinstance(s, c_ast.Decl):     # an inner flag: declared out here, set in its piece
                out.insert(0, _flag(s.name, None))
                piece.append(c_ast.Assignment("=", c_ast.ID(s.name), s.init))
            else:
                piece.append(s)
        return out


def _flag(name: str, value: c_ast.Node | None) -> c_ast.Decl:
    return c_ast.Decl(name, [], [], [], [], c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["int"])),
                      value, None)


def _compound(statements: list[c_ast.Node]) -> c_ast.Node:
    return statements[0] if len(statements) == 1 else c_ast.Compound(statements)


def _is_barrier(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == "barrier"


def _holds_barrier(node: c_ast.Node) -> bool:
    return _is_barrier(node) or any(_holds_barrier(child) for _, child in node.children())
