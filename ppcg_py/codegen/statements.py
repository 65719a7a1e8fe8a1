"""Reprint a statement's C body with device subscripts and new iterators.

Every array reference becomes a linearised access to the device copy
(`A[(i) * (n) + (j)]`), every written scalar the element `x[0]` of its device
cell, every loop iterator the isl expression that computes it from the
generated loops.
"""
from __future__ import annotations

from pycparser import c_ast, c_generator


class StatementPrinter(c_generator.CGenerator):
    """A C generator that substitutes references (by node identity) and iterators."""

    def __init__(self, references: dict[int, str], iterators: dict[str, str]) -> None:
        super().__init__()
        self.references = references
        self.iterators = iterators

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> str:
        if id(node) in self.references:
            return self.references[id(node)]
        return super().visit_ArrayRef(node)

    def visit_ID(self, node: c_ast.ID) -> str:
        if id(node) in self.references:
            return self.references[id(node)]
        if node.name in self.iterators:
            return f"({self.iterators[node.name]})"
        return node.name


def linearized(name: str, indices: list[str], extents: list[str]) -> str:
    """`name[((i0) * E1 + i1) * E2 + i2]` for a row-major array."""
    if not indices:
        return f"{name}[0]"
    flat = indices[0]
    for index, extent in zip(indices[1:], extents[1:]):
        flat = f"({flat}) * ({extent}) + {index}"
    return f"{name}[{flat}]"


def print_statement(body: c_ast.Node, references: dict[int, str], iterators: dict[str, str]) -> str:
    return StatementPrinter(references, iterators).visit(body) + ";"
