"""Reprint a statement's C body with device subscripts and new iterators.

Every array reference becomes a linearised access to the device copy
(`A[(i) * (n) + (j)]`), every written scalar the element `x[0]` of its device
cell, every loop iterator the isl expression that computes it from the
generated loops.
"""
from __future__ import annotations

from pycparser import c_ast, c_generator

from ..extract.model import Reference


class StatementPrinter(c_generator.CGenerator):
    """A C generator that prints each reference as given for its tag, and
    substitutes loop iterators."""

    def __init__(self, references: dict[str, str], iterators: dict[str, str]) -> None:
        super().__init__()
        self.references = references
        self.iterators = iterators

    def visit_Reference(self, node: Reference) -> str:
        return self.references[node.tag]

    def _is_simple_node(self, node: c_ast.Node) -> bool:
        """A reference prints as a subscripted name: no parentheses needed around it."""
        return isinstance(node, Reference) or super()._is_simple_node(node)

    def visit_ID(self, node: c_ast.ID) -> str:
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


def print_statement(body: c_ast.Node, references: dict[str, str], iterators: dict[str, str]) -> str:
    return StatementPrinter(references, iterators).visit(body) + ";"
