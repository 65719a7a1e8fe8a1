"""Arrays the program addresses as flat sequences, read as the arrays of several
dimensions they hold.

C code often keeps a matrix behind a pointer and computes its elements' places:
`c[i * m + j]`, `a[(i * n + j) * m + k]`. Such a subscript is no affine function of
the loops and parameters, so the model could not know which element a reference
touches. Where every subscript of a one-dimensional array of unknown size is a sum
`d0 * n * m + d1 * m + d2` of affine digits `d` over the same parameters `n`, `m`
(written in any order and grouping), the array is read as `c[?][n][m]` and each
reference as the element `[d0][d1][d2]` (delinearisation, as Polly does for
parametric sizes). That reading is exact only where every inner digit stays within
its size (`0 <= d2 < m`, `0 <= d1 < n`): two different digit tuples then name two
different places. The builder checks that on each reference's instances and
refuses the program, saying which digit may leave its range, where it does not
hold. Host code keeps addressing the array as the program does (`codegen` prints
its elements linearised); the device copy has the same layout.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pycparser import c_ast

from .affine import keeps_value
from .c_walk import nodes_of

Monomial = tuple[str, ...]          # the atoms of a product, sorted (a name, or an opaque node's key)


@dataclass(frozen=True)
class Polynomial:
    """A subscript as a sum of integer multiples of products of atoms: identifiers
    and, for anything else (`idx[i]`, `i / 2`), the node itself."""

    terms: dict[Monomial, int]
    opaque: dict[str, c_ast.Node]

    def mul(self, other: Polynomial) -> Polynomial:
        terms: dict[Monomial, int] = {}
        for a, x in self.terms.items():
            for b, y in other.terms.items():
                key = tuple(sorted(a + b))
                terms[key] = terms.get(key, 0) + x * y
        return Polynomial(_nonzero(terms), {**self.opaque, **other.opaque})

    def add(self, other: Polynomial, sign: int = 1) -> Polynomial:
        terms = dict(self.terms)
        for key, value in other.terms.items():
            terms[key] = terms.get(key, 0) + sign * value
        return Polynomial(_nonzero(terms), {**self.opaque, **other.opaque})


def _nonzero(terms: dict[Monomial, int]) -> dict[Monomial, int]:
    return {k: v for k, v in terms.items() if v != 0}


def polynomial(node: c_ast.Node) -> Polynomial:
    """`node` expanded into a sum of products (casts that keep values dropped; any other
    is an opaque atom, as `affine.AffineSpace` refuses it)."""
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "unsigned int", "long long int",
                                                         "unsigned long int", "unsigned long long int"):
        text = node.value.rstrip("uUlL")
        value = int(text, 0) if not (len(text) > 1 and text[0] == "0" and text[1].isdigit()) else int(text, 8)
        return Polynomial(_nonzero({(): value}), {})
    if isinstance(node, c_ast.ID):
        return Polynomial({(node.name,): 1}, {})
    if isinstance(node, c_ast.Cast) and keeps_value(node):
        return polynomial(node.expr)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        inner = polynomial(node.expr)
        return inner if node.op == "+" else Polynomial({k: -v for k, v in inner.terms.items()}, inner.opaque)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        left, right = polynomial(node.left), polynomial(node.right)
        return left.mul(right) if node.op == "*" else left.add(right, 1 if node.op == "+" else -1)
    key = f"@{id(node)}"
    return Polynomial({(key,): 1}, {key: node})


def shape(subscripts: Iterable[c_ast.Node], params: tuple[str, ...]) -> tuple[str, ...] | None:
    """The sizes (parameters, outer to inner) of the inner dimensions that the
    subscripts of a flat array address, or None where they address none: no
    subscript multiplies a digit by a parameter, or one that does cannot be split
    into affine digits over the sizes the others name."""
    polys = [polynomial(s) for s in subscripts]
    found = max((_sizes(p, params) for p in polys), key=len, default=())
    if not found:
        return None
    if any(digits(p, found) is None for p in polys):
        return None
    return found


def _sizes(poly: Polynomial, params: tuple[str, ...]) -> tuple[str, ...]:
    """The sizes one subscript names, innermost found first: the parameter in every
    product of several atoms, then the same in what multiplies it."""
    sizes: list[str] = []
    while True:
        products = [m for m in poly.terms if len(m) > 1]
        if not products:
            return tuple(reversed(sizes))
        common = [p for p in params if all(p in m for m in products)]
        if not common:
            return tuple(reversed(sizes))
        # several (`i * n * m`): the one in the most terms (`j * m` names m alone), then the first
        size = max(common, key=lambda p: (sum(p in m for m in poly.terms), -params.index(p)))
        sizes.append(size)
        poly = _quotient(poly, size)


def _quotient(poly: Polynomial, size: str) -> Polynomial:
    """The terms of `poly` that hold `size`, divided by it."""
    terms: dict[Monomial, int] = {}
    for monomial, value in poly.terms.items():
        if size in monomial:
            rest = list(monomial)
            rest.remove(size)
            terms[tuple(rest)] = terms.get(tuple(rest), 0) + value
    return Polynomial(_nonzero(terms), poly.opaque)


def _remainder(poly: Polynomial, size: str) -> Polynomial:
    return Polynomial({m: v for m, v in poly.terms.items() if size not in m}, poly.opaque)


def digits(poly: Polynomial, sizes: tuple[str, ...]) -> list[c_ast.Node] | None:
    """The subscript's digits, outer to inner (one more than `sizes`), as C
    expressions; None where a digit is a product of several atoms (not affine)."""
    found: list[Polynomial] = []
    for size in reversed(sizes):
        found.insert(0, _remainder(poly, size))
        poly = _quotient(poly, size)
    found.insert(0, poly)
    if any(len(m) > 1 for p in found for m in p.terms):
        return None
    return [_expression(p) for p in found]


def digits_of(subscript: c_ast.Node, sizes: tuple[str, ...]) -> list[c_ast.Node] | None:
    """`digits` of a C subscript."""
    return digits(polynomial(subscript), sizes)


def _expression(poly: Polynomial) -> c_ast.Node:
    """The C expression of an affine polynomial (each term one atom or none)."""
    result: c_ast.Node | None = None
    for monomial, value in sorted(poly.terms.items(), key=lambda term: (not term[0], term[0])):   # constant last
        atom: c_ast.Node | None = None
        for name in monomial:
            node = poly.opaque[name] if name in poly.opaque else c_ast.ID(name)
            atom = node if atom is None else c_ast.BinaryOp("*", atom, node)
        magnitude = c_ast.Constant("int", str(abs(value)))
        term = magnitude if atom is None else (atom if abs(value) == 1 else c_ast.BinaryOp("*", magnitude, atom))
        if result is None:
            result = term if value > 0 else c_ast.UnaryOp("-", term)
        else:
            result = c_ast.BinaryOp("+" if value > 0 else "-", result, term)
    return result if result is not None else c_ast.Constant("int", "0")


def flat_arrays(items: Iterable[c_ast.Node], candidates: set[str],
                params: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The arrays among `candidates` (one dimension, no affine size) whose references
    in `items` address inner dimensions, with those dimensions' sizes."""
    subscripts: dict[str, list[c_ast.Node]] = {}
    for item in items:
        for ref in nodes_of(item, c_ast.ArrayRef):
            if isinstance(ref.name, c_ast.ID) and ref.name.name in candidates:
                subscripts.setdefault(ref.name.name, []).append(ref.subscript)
    shapes = {}
    for name, subs in subscripts.items():
        found = shape(subs, params)
        if found is not None:
            shapes[name] = found
    return shapes
