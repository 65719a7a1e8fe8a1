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
import re
from collections.abc import Callable

import islpy as isl
from pycparser import c_ast

from .ast import control_children
from .printer import block_items, declaration
from .statements import instance


def member_iterator(node: isl.AstNode, member: int) -> str:
    """The iterator of the loops of member `member` of the band whose AST is `node`: isl
    names a band's loops by consecutive numbers, and its first member's loop comes
    first."""
    first = _first_iterator(node)
    found = re.fullmatch(r"(.*?)(\d+)", first or "")
    return f"{found.group(1)}{int(found.group(2)) + member}" if found else ""


def _first_iterator(node: isl.AstNode) -> str | None:
    if node.get_type() == isl.ast_node_type.for_:
        return node.for_get_iterator().get_id().get_name()
    if node.get_type() == isl.ast_node_type.mark:
        return _first_iterator(node.mark_get_node())
    for child in control_children(node):
        found = _first_iterator(child)
        if found is not None:
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
        if isinstance(statement, c_ast.For) and _loop_over(statement) == iterator:
            statement = _paired(statement, iterator, values, element_type, pragma) or statement
        elif isinstance(statement, c_ast.For):     # an outer member's loop (the time steps')
            statement.stmt = c_ast.Compound(paired_loops(block_items(statement.stmt), iterator, values,
                                                         element_type, pragma))
        elif isinstance(statement, c_ast.If):
            statement.iftrue = c_ast.Compound(paired_loops(block_items(statement.iftrue), iterator, values,
                                                           element_type, pragma))
            if statement.iffalse is not None:
                statement.iffalse = c_ast.Compound(paired_loops(block_items(statement.iffalse), iterator, values,
                                                                element_type, pragma))
        elif isinstance(statement, c_ast.Compound):
            statement = c_ast.Compound(paired_loops(statement.block_items or [], iterator, values, element_type,
                                                    pragma))
        result.append(statement)
    return result


def _loop_over(loop: c_ast.For) -> str | None:
    init = loop.init
    return init.decls[0].name if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 else None


def _paired(loop: c_ast.For, iterator: str, values: tuple[str, str], element_type: Callable[[str], str | None],
            pragma: str) -> c_ast.Compound | None:
    cond, body = loop.cond, block_items(loop.stmt)
    if not (isinstance(loop.next, c_ast.UnaryOp) and loop.next.op == "p++") or \
            not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=") and _is_id(cond.left, iterator)) or \
            _mentions(cond.right, iterator) or not body or not all(_shape(s, iterator, element_type) for s in body):
        return None
    c = c_ast.ID(iterator)
    second = c_ast.BinaryOp("+", c, c_ast.Constant("int", "1"))
    jammed = _jammed_items(body, iterator, values, element_type, pragma)
    pairs = c_ast.For(None, c_ast.BinaryOp(cond.op, second, cond.right), c_ast.Assignment("+=", c, _two()),
                      c_ast.Compound(jammed))
    last = c_ast.If(c_ast.BinaryOp(cond.op, c, copy.deepcopy(cond.right)), c_ast.Compound(copy.deepcopy(body)), None)
    return c_ast.Compound([declaration(iterator, loop.init.decls[0].init), pairs, last])


def _two() -> c_ast.Constant:
    return c_ast.Constant("int", "2")


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
    shift = {iterator: c_ast.BinaryOp("+", c_ast.ID(iterator), c_ast.Constant("int", "1"))}
    if isinstance(statement, c_ast.Assignment):
        return [statement, instance(statement, {}, shift)]
    if isinstance(statement, c_ast.For):
        inner = block_items(statement.stmt)
        if len(inner) == 1 and isinstance(inner[0], c_ast.Assignment):
            row = inner[0]
            kind = element_type(_array(row.lvalue) or "")
            first, second = values
            shifted = instance(row, {}, shift)
            body = [declaration(first, row.rvalue, type_name=kind), declaration(second, shifted.rvalue, type_name=kind),
                    c_ast.Assignment("=", row.lvalue, c_ast.ID(first)),
                    c_ast.Assignment("=", shifted.lvalue, c_ast.ID(second))]
            return [c_ast.Pragma(pragma), c_ast.For(statement.init, statement.cond, statement.next,
                                                    c_ast.Compound(body))]
        return [c_ast.For(statement.init, statement.cond, statement.next, c_ast.Compound(
            _jammed_items(inner, iterator, values, element_type, pragma)))]
    if isinstance(statement, c_ast.If):
        return [c_ast.If(statement.cond,
                         c_ast.Compound(_jammed_items(block_items(statement.iftrue), iterator, values, element_type,
                                                      pragma)),
                         None if statement.iffalse is None else c_ast.Compound(
                             _jammed_items(block_items(statement.iffalse), iterator, values, element_type, pragma)))]
    if isinstance(statement, c_ast.Compound):
        return [c_ast.Compound(_jammed_items(statement.block_items or [], iterator, values, element_type, pragma))]
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
    if node is None:
        return False
    if _is_id(node, name):
        return True
    return any(_mentions(child, name) for _, child in node.children())
