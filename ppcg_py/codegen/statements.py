"""A statement's C body at one point of the generated code.

Every reference (a `Reference` node, named by its tag) becomes the element the
memory stage chose for it: a buffer element (`shared_A[t0][c5]`) or a linearised
element of the device copy (`A[i * n + j]`, a written scalar `x[0]`); every loop
iterator becomes the isl expression that computes it from the generated loops.
The substitution is made in a copy of the tree, so that the generator puts the
parentheses the new expressions need.
"""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pycparser import c_ast

from ..extract.model import Member, Reference
from ..isl_c import c_node


def instance(body: c_ast.Node, references: dict[str, c_ast.Node], iterators: dict[str, c_ast.Node]) -> c_ast.Node:
    """`body` with references and iterators replaced (the body itself is left as it is)."""
    return _substituted(copy.deepcopy(body), references, iterators)


def elements(subscripts: dict[str, Any], element: Callable[[Any, list[c_ast.Node]], c_ast.Node],
             iterators: dict[str, c_ast.Node]) -> dict[str, c_ast.Node]:
    """Each reference (tag -> `Subscript`) as C, given how to print an element of
    its array at C indices. An index is an isl expression, or for a reference the
    model over-approximates (`A[B[i]]`), the source's subscript, whose own
    references (`B[i]`) and iterators are replaced first."""
    done: dict[str, c_ast.Node] = {}
    pending = dict(subscripts)
    while pending:
        for tag, ref in list(pending.items()):
            inner = [r.tag for index in ref.indices if isinstance(index, c_ast.Node) for r in _references_in(index)]
            if all(t in done for t in inner):
                done[tag] = element(ref, [instance(i, done, iterators) if isinstance(i, c_ast.Node) else c_node(i)
                                          for i in ref.indices])
                del pending[tag]
    return done


def _references_in(node: c_ast.Node) -> list[Reference]:
    if isinstance(node, Reference):
        return [node]
    return [r for _, child in node.children() for r in _references_in(child)]


def printed_tags(body: c_ast.Node, accesses=()) -> frozenset[str]:
    """The tags of the references the body prints, and those inside the source
    subscripts it prints (a call to a summarised function has accesses, its
    summary's, that no reference of the body stands for)."""
    nodes = [body] + [sub for acc in accesses for sub in acc.subscripts or () if sub is not None]
    return frozenset(r.tag for node in nodes for r in _references_in(node))


def _substituted(node: c_ast.Node, references: dict[str, c_ast.Node], iterators: dict[str, c_ast.Node]):
    if isinstance(node, Reference):
        return copy.deepcopy(references[node.tag])
    if isinstance(node, c_ast.ID) and node.name in iterators:
        return copy.deepcopy(iterators[node.name])
    return _children_replaced(node, lambda child: _substituted(child, references, iterators))


def _children_replaced(node: c_ast.Node, replace: Callable[[c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """`node` with each child that is an expression of the statement (not a called
    function's or a member's name) replaced by `replace(child)`, in place."""
    for slot in node.__slots__:
        if slot in ("coord", "__weakref__") or not hasattr(node, slot):
            continue
        value = getattr(node, slot)
        if isinstance(value, c_ast.Node) and not _is_name(node, slot):
            setattr(node, slot, replace(value))
        elif isinstance(value, list):
            setattr(node, slot, [replace(v) if isinstance(v, c_ast.Node) else v for v in value])
    return node


def _is_name(node: c_ast.Node, slot: str) -> bool:
    """A called function's name or a member's name is no iterator."""
    return (isinstance(node, c_ast.FuncCall) and slot == "name") or (isinstance(node, c_ast.StructRef)
                                                                     and slot == "field")


def linearized(name: str, indices: list[c_ast.Node], extents: list[c_ast.Node]) -> c_ast.ArrayRef:
    """`name[(i0 * E1 + i1) * E2 + i2]` for a row-major array; a scalar is `name[0]`."""
    if not indices:
        return c_ast.ArrayRef(c_ast.ID(name), c_ast.Constant("int", "0"))
    flat = indices[0]
    for index, extent in zip(indices[1:], extents[1:]):
        flat = c_ast.BinaryOp("+", c_ast.BinaryOp("*", flat, extent), index)
    return c_ast.ArrayRef(c_ast.ID(name), flat)


def subscripted(name: str, indices: list[c_ast.Node]) -> c_ast.Node:
    """`name[i0][i1]...`"""
    result: c_ast.Node = c_ast.ID(name)
    for index in indices:
        result = c_ast.ArrayRef(result, index)
    return result


def member_element(base: c_ast.Node, member: Member, indices: list[c_ast.Node], extents: list[c_ast.Node],
                   *, linear: bool) -> c_ast.Node:
    """An element of a field array (extract/structs.py) in its struct variable `base`:
    `base[i0 * E1 + i1].c[k][l]` (`linear`, a device copy or a pointer to the host's
    first element; a variable with no dimensions is `base[0]`), else
    `base[i0][i1].c[k][l]`."""
    outer, inner = indices[:member.rank], iter(indices[member.rank:])
    if linear:
        element = linearized("", outer, extents[:member.rank])
        element.name = base
    else:
        element = base
        for index in outer:
            element = c_ast.ArrayRef(element, index)
    for name, dims in member.path:
        element = c_ast.StructRef(element, ".", c_ast.ID(name))
        for _ in range(dims):
            index = next(inner, None)
            if index is None:   # a row of the member (`f(s[i].c[k])`, an argument)
                return element
            element = c_ast.ArrayRef(element, index)
    return element


def field_rows(node: c_ast.Node, fields: frozenset[str],
               element: Callable[[str, list[c_ast.Node]], c_ast.Node]) -> c_ast.Node:
    """`node` with each field array named outside a reference (a member's row passed
    to a function the file only declares: `f(s_a[i][j])` for `f(s[i][j].a)`) printed
    as its member, `element(field, indices)`: no program declares the field array."""
    if isinstance(node, (c_ast.ArrayRef, c_ast.ID)):
        indices: list[c_ast.Node] = []
        root = node
        while isinstance(root, c_ast.ArrayRef):
            indices.insert(0, root.subscript)
            root = root.name
        if isinstance(root, c_ast.ID) and root.name in fields:
            return element(root.name, [field_rows(i, fields, element) for i in indices])
    return _children_replaced(node, lambda child: field_rows(child, fields, element))
