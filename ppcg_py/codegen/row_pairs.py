"""A time tile's marked loop run two values at a time (schedule/cpu/row_pairs.py says
where that is legal): `for (c = lo; c <= hi; c++) BODY` becomes

    {
      int c = lo;
      for (; c + 1 <= hi; c += 2) BODY, each row loop computing the rows at c and c + 1
      if (c <= hi) BODY
    }

where BODY's loops and conditions do not depend on `c` (each pair then runs the same
loops). A row loop (one assignment `A[..] = e`) computes both values, then stores both,
under `omp simd`:

    #pragma omp simd
    for (int k = ..) { double v0 = e; double v1 = e[c + 1/c]; A[..] = v0; A[..][c + 1/c] = v1; }

A loop whose body is any other shape stays as it is."""
from __future__ import annotations

import copy
from collections.abc import Callable

import islpy as isl
from pycparser import c_ast

from ..extract.c_walk import identifier_names
from ..isl_c import integer
from .ast import control_children, loop_iterator
from .common import add
from .printer import block_items, declaration, declared_iterator, descend
from .statements import instance


def first_iterator(node: isl.AstNode) -> str | None:
    """The iterator of the first loop of isl's AST `node` (through marks, blocks and
    ifs): a band's first member's, whose other members' loops are numbered on from it."""
    if (iterator := loop_iterator(node)) is not None:
        return iterator
    if node.get_type() == isl.ast_node_type.mark:
        return first_iterator(node.mark_get_node())
    for child in control_children(node):
        if (found := first_iterator(child)) is not None:
            return found
    return None


def paired_loops(statements: list[c_ast.Node], iterator: str, values: tuple[str, str],
                 element_type: Callable[[str], str | None], pragma: str) -> list[c_ast.Node]:
    """`statements` with each loop over `iterator` (found through loops, ifs and blocks)
    that qualifies run two values at a time. `values`: the names of a pair's two values;
    `element_type(array)`: the type of an array's elements (None: not an array);
    `pragma`: the row loops' vector pragma."""
    result: list[c_ast.Node] = []
    for statement in statements:
        if isinstance(statement, c_ast.For) and declared_iterator(statement) == iterator:
            statement = _paired(statement, iterator, values, element_type, pragma) or statement
        elif isinstance(statement, (c_ast.For, c_ast.If, c_ast.Compound)):     # an outer member's loop (time's)
            descend(statement, lambda items: paired_loops(items, iterator, values, element_type, pragma))
        result.append(statement)
    return result


def _paired(loop: c_ast.For, iterator: str, values: tuple[str, str], element_type: Callable[[str], str | None],
            pragma: str) -> c_ast.Compound | None:
    cond, body = loop.cond, block_items(loop.stmt)
    if not (isinstance(loop.next, c_ast.UnaryOp) and loop.next.op == "p++") or \
            not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=") and _is_id(cond.left, iterator)) or \
            _mentions(cond.right, iterator) or not body or not all(_shape(s, iterator, element_type) for s in body):
        return None
    c = c_ast.ID(iterator)
    jammed = _jammed_items(body, iterator, values, element_type, pragma)
    pairs = c_ast.For(None, c_ast.BinaryOp(cond.op, _next(iterator), cond.right), c_ast.Assignment("+=", c, integer(2)),
                      c_ast.Compound(jammed))
    last = c_ast.If(c_ast.BinaryOp(cond.op, c, copy.deepcopy(cond.right)), c_ast.Compound(copy.deepcopy(body)), None)
    return c_ast.Compound([declaration(iterator, loop.init.decls[0].init), pairs, last])


def _next(iterator: str) -> c_ast.Node:
    """`c + 1`: the pair's second value."""
    return add(c_ast.ID(iterator), integer(1))


def _shape(statement: c_ast.Node, iterator: str, element_type: Callable[[str], str | None]) -> bool:
    """Whether the statement may be jammed: loops, ifs and blocks whose control does not
    mention `iterator`, around assignments `A[..] = e` to arrays."""
    if isinstance(statement, c_ast.Assignment):
        return statement.op == "=" and element_type(_array(statement.lvalue) or "") is not None
    if isinstance(statement, c_ast.For):
        return not any(_mentions(part, iterator) for part in (statement.init, statement.cond, statement.next)) \
            and all(_shape(s, iterator, element_type) for s in block_items(statement.stmt))
    if isinstance(statement, c_ast.If):
        return not _mentions(statement.cond, iterator) and all(
            _shape(s, iterator, element_type) for branch in (statement.iftrue, statement.iffalse)
            if branch is not None for s in block_items(branch))
    if isinstance(statement, c_ast.Compound):
        return all(_shape(s, iterator, element_type) for s in statement.block_items or [])
    if isinstance(statement, c_ast.Decl):       # a degenerate loop's iterator (`const int c5 = ..`)
        return not _mentions(statement.init, iterator)
    return isinstance(statement, c_ast.Pragma)


def _jammed(statement: c_ast.Node, iterator: str, values: tuple[str, str], element_type: Callable[[str], str | None],
            pragma: str) -> list[c_ast.Node]:
    """The statement for the pair (`_shape` holds): a row loop computing both rows."""
    shift = {iterator: _next(iterator)}
    if isinstance(statement, c_ast.Assignment):
        return [statement, instance(statement, {}, shift)]
    inner = block_items(statement.stmt) if isinstance(statement, c_ast.For) else []
    if len(inner) == 1 and isinstance(inner[0], c_ast.Assignment):
        row = inner[0]
        kind = element_type(_array(row.lvalue) or "")
        first, second = values
        shifted = instance(row, {}, shift)
        body = [declaration(first, row.rvalue, type_name=kind), declaration(second, shifted.rvalue, type_name=kind),
                c_ast.Assignment("=", row.lvalue, c_ast.ID(first)),
                c_ast.Assignment("=", shifted.lvalue, c_ast.ID(second))]
        return [c_ast.Pragma(pragma), c_ast.For(statement.init, statement.cond, statement.next, c_ast.Compound(body))]
    if isinstance(statement, (c_ast.For, c_ast.If, c_ast.Compound)):
        statement = copy.copy(statement)    # its lists replaced, the loop's own left as they are
        descend(statement, lambda items: _jammed_items(items, iterator, values, element_type, pragma))
    return [statement]


def _jammed_items(items: list[c_ast.Node], iterator: str, values: tuple[str, str],
                  element_type: Callable[[str], str | None], pragma: str) -> list[c_ast.Node]:
    """A block's statements jammed; a vector pragma already before a row loop (its
    width) replaces the one the pair's loop would get."""
    result: list[c_ast.Node] = []
    for statement in items:
        jammed = _jammed(statement, iterator, values, element_type, pragma)
        if result and isinstance(result[-1], c_ast.Pragma) and jammed and isinstance(jammed[0], c_ast.Pragma):
            jammed = jammed[1:]
        result.extend(jammed)
    return result


def _array(node: c_ast.Node) -> str | None:
    """The array an element reference `A[..][..]` names."""
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else None


def _is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _mentions(node: c_ast.Node | None, name: str) -> bool:
    return node is not None and name in identifier_names(node)
