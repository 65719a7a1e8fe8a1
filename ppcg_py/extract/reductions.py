"""Reductions: statements that fold values into one location with an associative and
commutative operator (`s += A[i]`, `tmp[i] = tmp[i] + A[i][j] * x[j]`,
`m = fmax(m, A[i])`, `m = m < A[i] ? m : A[i]`).

The instances of such a statement that update one location may run in any order,
up to the rounding of floating-point `+` and `*`: the schedule stage drops the
dependences between them (schedule/cpu/reductions.py) and the C target prints the loops
that then run in parallel with OpenMP's `reduction` clause.

A statement `s op= e` (or `s = s op e`, `s = e op s`, `s = min(s, e)`, a ternary that
picks the smaller or larger of `s` and `e`) is a reduction on the location `s` when:

- the location's read and write are the same element for every instance (equal index
  maps, both exact, a must-write);
- `e` reads nothing of the location's array, and the statement writes nothing else;
- `e` has no side effect: no assignment, `++` or `--`, and calls only to functions
  known to be pure (C's math functions, `min`/`max`, functions declared
  `__attribute__((pure))` or `((const))`); when unsure, no reduction;
- the types make the fold associative: an integer location (not `_Bool`) folds `+`
  and `*` of an integer `e` exactly (wrapping arithmetic), `&`, `|`, `^` are
  integer-only; min and max are exact for any arithmetic type (NaNs aside); `+` and
  `*` of a floating-point location are reductions too, but *inexact*: reassociating
  them changes the rounding (the schedule uses them only with `--reductions`).

`s -= e` and `s = s - e` are `+` reductions of `-e`.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from .accesses import PURE_FUNCTIONS
from .c_math import DOUBLE_RESULT, FLOAT_RESULT, INT_RESULT, arithmetic_kind, expression_kind
from .model import Access, Reference, Scop, Statement

__all__ = ["OPERATORS", "Reduction", "find_reductions", "reduction_of"]

# the operators, as OpenMP's reduction clause names them
OPERATORS = ("+", "*", "&", "|", "^", "min", "max")

_COMPOUND = {"+=": "+", "-=": "+", "*=": "*", "&=": "&", "|=": "|", "^=": "^"}
_MIN_MAX_CALLS = {"fmin": "min", "fminf": "min", "min": "min", "fmax": "max", "fmaxf": "max", "max": "max"}
# calls whose value depends on their arguments alone (isl's helpers in known values included)
_PURE_CALLS = PURE_FUNCTIONS | DOUBLE_RESULT | FLOAT_RESULT | INT_RESULT | {
    "ppcg_min", "ppcg_max", "ppcg_floord", "floord", "ceild", "labs", "llabs"}
_ORDER = {"<", "<=", ">", ">="}


@dataclass(frozen=True)
class Reduction:
    """Statement `statement` folds values into one element of `array` per instance with `op`."""

    statement: str
    op: str                           # one of OPERATORS
    array: str
    reads: tuple[str, ...]            # the tags of the location's reads (one, or two in a ternary)
    write: str                        # the tag of the location's write
    exact: bool                       # reassociating it gives the same value (integers, min, max)
    line: int = 0

    @property
    def written(self) -> str:
        """The operator as `-v` names it: `+=`, `min`, ..."""
        return self.op if self.op in ("min", "max") else f"{self.op}="


def find_reductions(scop: Scop) -> tuple[Reduction, ...]:
    """The reductions among the SCoP's statements, in statement order."""
    pure = frozenset(name for name, _line, _col, is_pure in scop.external_calls if is_pure)
    found = (reduction_of(stmt, scop, pure) for stmt in scop.statements)
    return tuple(r for r in found if r is not None)


def reduction_of(stmt: Statement, scop: Scop, pure_calls: frozenset[str] = frozenset()) -> Reduction | None:
    """The reduction `stmt` performs, or None."""
    body = stmt.body
    if not isinstance(body, c_ast.Assignment) or not isinstance(body.lvalue, Reference):
        return None
    if any(name not in pure_calls for name in stmt.calls):
        return None
    accesses = {acc.tag: acc for acc in stmt.accesses}
    write = accesses.get(body.lvalue.tag)
    if write is None or not write.is_write or not write.must or not write.exact:
        return None
    if [acc for acc in stmt.accesses if acc.is_write] != [write]:
        return None     # it writes something else too (a call's state, another variable)
    try:
        array = scop.array(write.array)
    except KeyError:
        return None
    if array.hidden or array.member is not None or not _arithmetic(array.element_type):
        return None
    found = _form(body, write, accesses)
    if found is None:
        return None
    op, reads, operands = found
    location = {write.tag, *reads}
    if any(acc.array == write.array and acc.tag not in location for acc in stmt.accesses):
        return None     # e reads the location's array elsewhere (`A[i] += A[i - 1]`, `s += s * e`)
    for tag in reads:
        read = accesses[tag]
        if not read.is_read or not read.exact or not read.index.is_equal(write.index):
            return None
    if not all(_pure(e, pure_calls) for e in operands):
        return None
    integer = arithmetic_kind(array.element_type) == "int"
    if op in ("&", "|", "^") and not integer:
        return None
    if op in ("+", "*") and integer and any(_kind(e, stmt, scop) != "int" for e in operands):
        return None     # `int s; s += 0.5 * x;` truncates at each step: no fold
    exact = op in ("min", "max") or integer
    return Reduction(stmt.name, op, write.array, tuple(reads), write.tag, exact, stmt.line)


def _form(body: c_ast.Assignment, write: Access, accesses: dict[str, Access]
          ) -> tuple[str, tuple[str, ...], list[c_ast.Node]] | None:
    """(op, the location's read tags, the other operands) of the statement's shape, or None."""
    if body.op in _COMPOUND:
        if not write.is_read:
            return None
        return _COMPOUND[body.op], (write.tag,), [body.rvalue]
    if body.op != "=":
        return None
    value = body.rvalue

    def is_location(node: c_ast.Node) -> bool:
        return isinstance(node, Reference) and node.tag in accesses and accesses[node.tag].array == write.array

    if isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-", "*", "&", "|", "^"):
        op = "+" if value.op == "-" else value.op
        terms = _terms(value, op)
        mine = [(node, positive) for node, positive in terms if is_location(node)]
        if len(mine) != 1 or not mine[0][1]:
            return None     # `s = e - s`, `s = s + s`
        return op, (mine[0][0].tag,), [node for node, _ in terms if node is not mine[0][0]]
    if isinstance(value, c_ast.FuncCall) and isinstance(value.name, c_ast.ID) and value.name.name in _MIN_MAX_CALLS:
        args = value.args.exprs if value.args is not None else []
        if len(args) != 2:
            return None
        bare = [_uncast(arg) for arg in args]
        mine = [k for k, arg in enumerate(bare) if is_location(arg)]
        if len(mine) != 1 or (bare[mine[0]] is not args[mine[0]] and not _widening(args[mine[0]])):
            return None
        return _MIN_MAX_CALLS[value.name.name], (bare[mine[0]].tag,), [args[1 - mine[0]]]
    if isinstance(value, c_ast.TernaryOp) and isinstance(value.cond, c_ast.BinaryOp) and value.cond.op in _ORDER:
        left, right = value.cond.left, value.cond.right
        mine = [node for node in (left, right) if is_location(node)]
        if len(mine) != 1:
            return None
        other = right if mine[0] is left else left
        if _same(value.iftrue, left, accesses) and _same(value.iffalse, right, accesses):
            picks_left = True
        elif _same(value.iftrue, right, accesses) and _same(value.iffalse, left, accesses):
            picks_left = False
        else:
            return None
        smaller = picks_left == (value.cond.op in ("<", "<="))
        branch = value.iftrue if _same(value.iftrue, mine[0], accesses) else value.iffalse
        if not isinstance(branch, Reference):
            return None
        return ("min" if smaller else "max"), (mine[0].tag, branch.tag), [other]
    return None


def _terms(node: c_ast.Node, op: str, positive: bool = True) -> list[tuple[c_ast.Node, bool]]:
    """The operands of a chain of `op` (`+` also takes `-`), each with its sign."""
    if isinstance(node, c_ast.BinaryOp) and (node.op == op or (op == "+" and node.op == "-")):
        return _terms(node.left, op, positive) + _terms(node.right, op, positive == (node.op != "-"))
    return [(node, positive)]


def _uncast(node: c_ast.Node) -> c_ast.Node:
    return node.expr if isinstance(node, c_ast.Cast) else node


def _widening(cast: c_ast.Node) -> bool:
    """A `(double)` cast (what use_float_math writes around a math call's argument):
    it changes no value of a narrower arithmetic type."""
    if not isinstance(cast, c_ast.Cast):
        return False
    kind = cast.to_type.type
    return isinstance(kind, c_ast.TypeDecl) and isinstance(kind.type, c_ast.IdentifierType) \
        and kind.type.names == ["double"]


def _same(a: c_ast.Node, b: c_ast.Node, accesses: dict[str, Access]) -> bool:
    """Whether two expressions are the same: the same shape, references to the same
    elements (equal exact index maps)."""
    if isinstance(a, Reference) or isinstance(b, Reference):
        if not (isinstance(a, Reference) and isinstance(b, Reference)):
            return False
        x, y = accesses.get(a.tag), accesses.get(b.tag)
        return (x is not None and y is not None and x.array == y.array and x.exact and y.exact
                and x.index.is_equal(y.index))
    if type(a) is not type(b):
        return False
    if any(getattr(a, name) != getattr(b, name) for name in a.attr_names):
        return False
    left, right = list(a.children()), list(b.children())
    return len(left) == len(right) and all(n == m and _same(x, y, accesses)
                                           for (n, x), (m, y) in zip(left, right))


_SAFE_NODES = (c_ast.Constant, c_ast.ID, Reference, c_ast.BinaryOp, c_ast.TernaryOp, c_ast.Cast, c_ast.Typename,
               c_ast.TypeDecl, c_ast.IdentifierType, c_ast.ExprList)


def _pure(node: c_ast.Node, pure_calls: frozenset[str]) -> bool:
    """Whether evaluating `node` changes nothing (and may be repeated or moved)."""
    if isinstance(node, c_ast.FuncCall):
        if not isinstance(node.name, c_ast.ID) or node.name.name not in _PURE_CALLS | pure_calls:
            return False
        return node.args is None or _pure(node.args, pure_calls)
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("++", "--", "p++", "p--", "&", "*"):
            return False
    elif not isinstance(node, _SAFE_NODES):
        return False
    return all(_pure(child, pure_calls) for _, child in node.children())


def _arithmetic(c_type: str) -> bool:
    words = c_type.replace("*", " * ").split()
    return bool(words) and "*" not in words and not {"_Bool", "bool", "struct", "union", "enum"} & set(words)


def _kind(node: c_ast.Node, stmt: Statement, scop: Scop) -> str:
    """'int', 'float' or 'double': the arithmetic type of an operand (C's conversions)."""
    arrays = {acc.tag: acc.array for acc in stmt.accesses}
    types = {a.name: a.element_type for a in scop.arrays}
    names = scop.value_types | {it: "int" for it in stmt.iterators}
    copied = copy.deepcopy(node)

    def swap(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, Reference):
            return c_ast.ID(f"\0{n.tag}")
        for attr in n.__slots__:
            if attr in ("coord", "__weakref__") or not hasattr(n, attr):
                continue
            value = getattr(n, attr)
            if isinstance(value, c_ast.Node):
                setattr(n, attr, swap(value))
            elif isinstance(value, list):
                setattr(n, attr, [swap(v) if isinstance(v, c_ast.Node) else v for v in value])
        return n

    def type_of(name: str) -> str:
        if name.startswith("\0"):
            return arithmetic_kind(types.get(arrays.get(name[1:], ""), "double"))
        return arithmetic_kind(names[name]) if name in names else "double"

    return expression_kind(swap(copied), type_of)
